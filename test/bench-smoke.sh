#!/bin/sh
# Every fastmem-bench subcommand once, cut down to seconds: it must exit 0
# (1 would mean a variant gave a wrong result, which the bench verifies
# before timing) and its output must have the tables it promises, as text,
# CSV and JSON.  Not a benchmark: nothing here looks at a speed.
: "${top_builddir:?}"
set -eu

unset FASTMEM_NT_THRESHOLD FASTMEM_DISABLE FASTMEM_MEMCPY FASTMEM_MEMMOVE \
	FASTMEM_MEMSET FASTMEM_COPY_PAGE FASTMEM_CLEAR_PAGE
bench=$top_builddir/fastmem-bench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
fast="-r 3 --batch 50 --no-progress --no-thp"

# run NAME EXPECTED-TABLES ARGS...: text output with that many "== " tables
run() {
	name=$1 want=$2
	shift 2
	# shellcheck disable=SC2086 # $fast is a list of options
	"$bench" "$@" $fast >"$dir/$name.txt" 2>"$dir/$name.err" ||
		fail "fastmem-bench $* exited $?: $(tail -3 "$dir/$name.err")"
	got=$(grep -c '^== ' "$dir/$name.txt" || true)
	[ "$got" -eq "$want" ] ||
		fail "fastmem-bench $*: $got tables, expected $want"
	echo "bench-smoke.sh: $* ok ($got tables)"
}

# copy and set: modes x alignments; page: one per op; readback: ops x counts
run copy 6 copy -s 64,8K --align 0-0,7-13 --region 64M
run set 6 set -s 64,8K --region 64M
run page 2 page --region 64M
run readback 4 readback --pages 1,8
run extent 1 extent -s 2M,4M
run versus 9 versus -s 8,4K
run residency 13 residency -s 1M --region 64M
# replay: the shipped corpora, recorded programs and fleet distributions
# (copies in 3 arenas, sets in 3, each corpus in its own tables), then the
# fixed sizes (copies and sets, aligned and not); and a handmade LLVM one
# (its name says memset: 3 tables)
run replay 16 replay --region 64M
# a peer library: libfastmem itself has fm_memcpy and fm_memset
run replay-peer 12 replay --region 64M --no-fixed \
	--peer "fm=$top_builddir/.libs/libfastmem.so"
grep -q '^ *fm/glibc: geometric mean\|^ *fm/libc: geometric mean' \
	"$dir/replay-peer.txt" || fail "replay --peer: no row for the peer"
if "$bench" replay --peer "x=$dir/none.so" >/dev/null 2>"$dir/peer.err"; then
	fail "replay accepted a peer library that does not exist"
fi
grep -q "none.so" "$dir/peer.err" ||
	fail "replay --peer: the error does not name the library"
printf '0.25,0.25,0,0.5,\n' >"$dir/MemsetHand.csv"
run replay-llvm 3 replay --region 64M "$dir/MemsetHand.csv"
# a malformed file: exit 2, one line naming it, no table
printf 'fastmem-trace 1\nmemcpy 5000 1\n' >"$dir/bad.trace"
if "$bench" replay "$dir/bad.trace" >"$dir/bad.out" 2>"$dir/bad.err"; then
	fail "replay accepted a malformed file"
else
	rc=$?
	[ $rc -eq 2 ] || fail "replay of a malformed file exited $rc, not 2"
fi
grep -q "bad.trace:2: '5000' is not a size" "$dir/bad.err" ||
	fail "replay's error does not name the file and line: $(cat "$dir/bad.err")"
[ ! -s "$dir/bad.out" ] || fail "replay printed output for a malformed file"
echo "bench-smoke.sh: replay rejects a malformed file ok"
run parallel 3 parallel -s 16M,32M --threads 2,0 --region 128M

# machine-readable forms of one of them
# shellcheck disable=SC2086
"$bench" copy -s 64,8K --align 0-0 --mode cache-cache --csv --region 64M \
	$fast >"$dir/copy.csv" || fail "copy --csv exited $?"
head -n 40 "$dir/copy.csv" | grep -q '^table,point,bytes,series,' ||
	fail "copy --csv: no header row"
# shellcheck disable=SC2086
"$bench" copy -s 64,8K --align 0-0 --mode cache-cache --json --region 64M \
	$fast >"$dir/copy.json" || fail "copy --json exited $?"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' \
		"$dir/copy.json" || fail "copy --json is not JSON"
fi

# one interface: the same --mode words everywhere (the old ones as
# aliases, naming the same tables), "libc" as the reference row of every
# table, one line for every usage error, --csv with --json refused
# shellcheck disable=SC2086
"$bench" copy -s 64 --align 0-0 --mode cache-cache,cold --csv --region 64M \
	$fast >"$dir/alias.csv" || fail "copy --mode cache-cache,cold exited $?"
grep -q '^"copy hot 0-0",' "$dir/alias.csv" && grep -q '^"copy cold 0-0",' \
	"$dir/alias.csv" || fail "copy --mode cache-cache,cold: no hot and cold tables"
# shellcheck disable=SC2086
"$bench" set -s 64 --align 0 --mode memory --csv --region 64M $fast \
	>"$dir/alias2.csv" || fail "set --mode memory exited $?"
grep -q '^"set cold 0",' "$dir/alias2.csv" || fail "set --mode memory: no cold table"
for f in "$dir"/*.csv; do
	awk -F, '$5 ~ /ref/ && $4 != "\"libc\"" { bad = 1; print FILENAME ": " $0 }
		END { exit bad }' "$f" >&2 || fail "a reference row not named libc"
done
for f in "$dir"/*.txt; do
	# after the header (which names the C library), no row or column glibc
	if sed -n '/^== /,$p' "$f" | grep -q '\bglibc\b'; then
		fail "$f names the reference glibc: $(grep -m1 glibc "$f")"
	fi
done
# usage errors: exit 2, exactly one line, pointing at --help
usage_error() {
	rc=0
	"$bench" "$@" >"$dir/u.out" 2>"$dir/u.err" || rc=$?
	[ "$rc" = 2 ] || fail "fastmem-bench $*: exit $rc, not 2"
	[ "$(wc -l <"$dir/u.err")" = 1 ] ||
		fail "fastmem-bench $*: not one line: $(cat "$dir/u.err")"
	grep -q -- '--help' "$dir/u.err" ||
		fail "fastmem-bench $*: does not point at --help: $(cat "$dir/u.err")"
	[ ! -s "$dir/u.out" ] || fail "fastmem-bench $*: printed on stdout"
}
usage_error copy --csv --json
usage_error copy --json --csv
usage_error copy --mode sideways
usage_error set --mode warm
usage_error page --sizes 4K
usage_error copy --sizes 12Q
usage_error copy --bogus
usage_error nonesuch
usage_error
usage_error calibrate --basis maybe
usage_error copy --plot out.txt
echo "bench-smoke.sh: one --mode vocabulary, libc rows, one-line errors ok"
# --plot on every subcommand (the help of each lists it) and drawn for
# the tables by mode, pattern and distribution too
for c in copy set page readback extent calibrate versus residency replay \
	parallel; do
	"$bench" "$c" --help | grep -q -- '--plot FILE' ||
		fail "fastmem-bench $c --help: no --plot"
done
if command -v gnuplot >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	"$bench" page --region 64M --plot "$dir/page.svg" $fast >"$dir/pp.txt" ||
		fail "page --plot exited $?"
	grep -q '^plot: .*page.svg (2 panels)' "$dir/pp.txt" ||
		fail "page --plot: $(tail -2 "$dir/pp.txt")"
	grep -q '<svg' "$dir/page.svg" || fail "page --plot wrote no SVG"
	# shellcheck disable=SC2086
	"$bench" readback --pages 1 --plot "$dir/rb.svg" $fast >/dev/null ||
		fail "readback --plot exited $?"
	grep -q '<svg' "$dir/rb.svg" || fail "readback --plot wrote no SVG"
	echo "bench-smoke.sh: --plot of page and readback ok"
fi
echo "bench-smoke.sh: ok"
