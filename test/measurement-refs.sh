#!/bin/sh
# The figures behind the tuning live in docs/measurements/, and the code
# points to them ("docs/measurements/zen3-guest.md#set_cold" in the class
# table, arch/x86/classes.c).  A pointer to a page or heading that moved or
# was renamed is evidence lost, so: every docs/measurements/ pointer in the
# library's sources, the tools and the tests names an existing file or
# directory, and its #anchor, if any, a heading of that Markdown page; and
# every relative link in those pages and in docs/*.md does too.
# Anchors are GitHub's: the heading lowercased, every character other than
# a letter, digit, space, '-' or '_' dropped, spaces made '-'.
# Usage: measurement-refs.sh [SRCDIR] (default: $top_srcdir, else .)
set -u
src=${1:-${top_srcdir:-.}}
if [ ! -d "$src/docs/measurements" ]; then
	echo "FAIL: no docs/measurements under $src" >&2
	exit 1
fi

# the anchors of a Markdown page, one a line
anchors() {
	awk '
	/^```/ { fence = !fence; next }
	fence || !/^#+ / { next }
	{
		h = $0
		sub(/^#+ +/, "", h)
		sub(/ +#* *$/, "", h)
		h = tolower(h)
		gsub(/[^a-z0-9 _-]/, "", h)
		gsub(/ /, "-", h)
		print h
	}' "$1"
}

# check one pointer: $1 the path (relative to $2), $3 where it was found
check() {
	path=${1%%#*}
	case $1 in
	*#*) anchor=${1#*#} ;;
	*) anchor= ;;
	esac
	path=${path%.}
	if [ ! -e "$2/$path" ]; then
		echo "FAIL: $3: $1: no such file or directory" >&2
		return 1
	fi
	[ -z "$anchor" ] && return 0
	if [ ! -f "$2/$path" ]; then
		echo "FAIL: $3: $1: an anchor into a directory" >&2
		return 1
	fi
	if ! anchors "$2/$path" | grep -qxF -- "$anchor"; then
		echo "FAIL: $3: $1: no heading with the anchor #$anchor" >&2
		return 1
	fi
	return 0
}

tmp=${TMPDIR:-/tmp}/measurement-refs.$$
trap 'rm -f "$tmp"' EXIT
status=0
n=0

# pointers in the sources: file:line:pointer
for dir in lib arch tools test; do
	[ -d "$src/$dir" ] || continue
	find "$src/$dir" -type f \( -name '*.c' -o -name '*.h' \) | sort
done | while read -r f; do
	grep -noE 'docs/measurements/[A-Za-z0-9_./-]*(#[A-Za-z0-9_-]+)?' \
		"$f" | sed "s|^|${f#"$src"/}:|"
done >"$tmp"
while IFS= read -r line; do
	where=${line%:*}
	ref=${line##*:}
	n=$((n + 1))
	check "$ref" "$src" "$where" || status=1
done <"$tmp"

# relative links in the measurement pages and the docs that cite them:
# ](page.md#anchor), ](#anchor)
{
	find "$src/docs" -maxdepth 1 -type f -name '*.md'
	find "$src/docs/measurements" -type f -name '*.md'
} | sort | while read -r f; do
	grep -noE '\]\([^)#: ]*(#[A-Za-z0-9_-]+)?\)' "$f" |
		sed -e 's/\](//' -e 's/)$//' -e "s|^|${f#"$src"/}:|"
done >"$tmp"
while IFS= read -r line; do
	where=${line%:*}
	ref=${line##*:}
	page=${where%:*}
	dir=${page%/*}
	case $ref in
	'#'*) ref=${page##*/}$ref ;;
	esac
	n=$((n + 1))
	check "$ref" "$src/$dir" "$where" || status=1
done <"$tmp"

if [ "$n" -eq 0 ]; then
	echo "FAIL: no docs/measurements pointer found under $src" >&2
	exit 1
fi
[ "$status" -eq 0 ] && echo "PASS: $n pointers into docs/measurements"
exit "$status"
