#!/bin/sh
# The help text and fastmem-bench(1) describe the same command line: every
# subcommand and every option that some `fastmem-bench SUBCOMMAND --help`
# lists is documented in the man page, the man page documents no other,
# and each subcommand's --region default reads the same in both.  The
# comparison is first run on a copy of the man page with one option and
# one subcommand taken out, and must fail there: a check that cannot fail
# checks nothing.
: "${top_builddir:?}"
set -eu

bench=$top_builddir/fastmem-bench
man=${top_srcdir:-$top_builddir/..}/man/fastmem-bench.1
[ -r "$man" ] || { echo "FAIL: no man page at $man" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# the subcommands, from fastmem-bench --help
"$bench" --help | awk '/^Subcommands:/ { on = 1; next }
	on && /^$/ { exit }
	on { print $1 }' | sort -u >"$dir/help.cmds"
[ -s "$dir/help.cmds" ] || fail "fastmem-bench --help lists no subcommand"
# the options of every subcommand, from its --help
: >"$dir/help.opts.all"
while read -r cmd; do
	"$bench" "$cmd" --help >"$dir/help.$cmd" ||
		fail "fastmem-bench $cmd --help exited $?"
	sed -n 's/^  \(-[a-zA-Z], \)\{0,1\} *--\([a-z-]*\).*/\2/p' \
		"$dir/help.$cmd" >>"$dir/help.opts.all"
done <"$dir/help.cmds"
sort -u "$dir/help.opts.all" >"$dir/help.opts"

# man_lists MANPAGE: its subcommands (.TP then .B/.BR NAME under
# SUBCOMMANDS) and options (every \-\-name in a .TP tag under OPTIONS)
man_lists() {
	awk -v cmds="$dir/man.cmds" -v opts="$dir/man.opts" '
	/^\.SH / { sect = $2; next }
	/^\.TP/ { tag = 1; next }
	tag && sect == "SUBCOMMANDS" && /^\.BR? / { print $2 > cmds }
	tag && sect == "OPTIONS" {
		line = $0
		gsub(/\\-/, "-", line)
		while (match(line, /--[a-z][a-z-]*/)) {
			print substr(line, RSTART + 2, RLENGTH - 2) > opts
			line = substr(line, RSTART + RLENGTH)
		}
	}
	{ tag = 0 }' "$1"
	sort -u -o "$dir/man.cmds" "$dir/man.cmds"
	sort -u -o "$dir/man.opts" "$dir/man.opts"
}

# compare MANPAGE: 0 when it documents exactly the help's command line
compare() {
	: >"$dir/man.cmds"
	: >"$dir/man.opts"
	man_lists "$1"
	rc=0
	for kind in cmds opts; do
		comm -23 "$dir/help.$kind" "$dir/man.$kind" >"$dir/only-help"
		comm -13 "$dir/help.$kind" "$dir/man.$kind" >"$dir/only-man"
		if [ -s "$dir/only-help" ]; then
			echo "in --help but not in the man page ($kind):" \
				$(cat "$dir/only-help")
			rc=1
		fi
		if [ -s "$dir/only-man" ]; then
			echo "in the man page but not in --help ($kind):" \
				$(cat "$dir/only-man")
			rc=1
		fi
	done
	return $rc
}

# the check must fail on a page that lacks an option and a subcommand
awk '/^\.BI? \\-\\-no\\-fixed/ { next }
	/^\.B versus$/ && prev ~ /^\.TP/ { next }
	{ prev = $0; print }' "$man" >"$dir/broken.1"
if compare "$dir/broken.1" >"$dir/broken.out"; then
	fail "the comparison passed a man page without --no-fixed and versus"
fi
grep -q 'no-fixed' "$dir/broken.out" && grep -q 'versus' "$dir/broken.out" ||
	fail "the comparison did not name what was missing: $(cat "$dir/broken.out")"

compare "$man" >"$dir/out" || fail "$(cat "$dir/out")"
echo "bench-help.sh: $(wc -l <"$dir/help.cmds") subcommands and" \
	"$(wc -l <"$dir/help.opts") options in both --help and the man page"

# each subcommand's --region default, as its help states it, is in the
# man page's --region paragraph as "SUBCOMMAND DEFAULT" (and "(QUICK with
# --quick)" when that differs)
sed -n '/^\.BI \\-\\-region/,/^\.TP/p' "$man" | sed 's/\\-/-/g' |
	tr '\n' ' ' >"$dir/man.region"
while read -r cmd; do
	d=$(sed -n 's/^ *(default \([0-9]*[KMG]\)\(, --quick \([0-9]*[KMG]\)\)\{0,1\})$/\1 \3/p' \
		"$dir/help.$cmd")
	[ -n "$d" ] || continue
	set -- $d
	want="$cmd $1"
	[ $# -gt 1 ] && want="$want ($2 with --quick)"
	grep -qF "$want" "$dir/man.region" ||
		fail "--region default of $cmd: the help says '$want', the man page does not"
done <"$dir/help.cmds"
echo "bench-help.sh: --region defaults agree"
