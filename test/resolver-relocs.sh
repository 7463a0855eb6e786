#!/bin/sh
# The ifunc resolvers, and everything they call, may run before libfastmem
# itself is relocated: ld.so resolves an ifunc symbol when it relocates the
# object that uses it, and an underlinked library (one that calls fm_memcpy
# without depending on libfastmem) linked -z now is relocated first.  Code
# addresses computed from the instruction pointer are right then; a pointer
# loaded from memory that a relocation fills in is not.  GCC makes such loads
# where the source has none: the vectoriser built an array of two string
# addresses with a 16-byte load from .data.rel.ro (settings.c's too_long,
# a crash at startup with a long FASTMEM_CONFIG).  So, in the machine code:
# no instruction reachable from a resolver reads a relocated word.
set -u
: "${top_builddir:?}" "${OBJDUMP:=objdump}" "${READELF:=readelf}"
so=$top_builddir/.libs/libfastmem.so
if [ ! -e "$so" ]; then
	echo "SKIP: no shared library under $top_builddir/.libs"
	exit 77
fi
case $("$READELF" -h "$so" 2>/dev/null) in
*X86-64*) ;;
*)
	echo "SKIP: the check reads x86-64 code only"
	exit 77
	;;
esac

tmp=${TMPDIR:-/tmp}/resolver-relocs.$$
trap 'rm -f "$tmp".*' EXIT
# relocated words (start addresses), the resolvers (the IFUNC symbols'
# values) and the disassembly
"$READELF" -rW "$so" |
	awk '$3 ~ /^R_X86_64_(RELATIVE|64|GLOB_DAT|IRELATIVE)$/ {
		print $1 }' >"$tmp.rel"
"$READELF" -sW "$so" | awk '$4 == "IFUNC" { print $2 }' | sort -u >"$tmp.ifunc"
"$OBJDUMP" -d --no-show-raw-insn "$so" >"$tmp.dis"
if [ ! -s "$tmp.ifunc" ]; then
	echo "FAIL: no IFUNC symbol in $so"
	exit 1
fi

awk -v relf="$tmp.rel" -v ifuncf="$tmp.ifunc" '
function hex(s,   i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
BEGIN {
	nrel = 0
	while ((getline l < relf) > 0)
		rel[nrel++] = hex(l)
	while ((getline l < ifuncf) > 0)
		root[hex(l)] = 1
}
# a function: "0000000000003f40 <name>:"
/^[0-9a-f]+ <[^>]+>:$/ {
	fn = $2
	gsub(/[<>:]/, "", fn)
	if (hex($1) in root)
		roots[fn] = 1
	next
}
fn == "" { next }
{
	line = $0
	# direct calls and jumps to another function: an edge
	if (match(line, /(call|jmp)[a-z]*[ \t]+[0-9a-f]+ <[^>+]+>/)) {
		t = substr(line, RSTART, RLENGTH)
		sub(/.*</, "", t)
		sub(/>.*/, "", t)
		if (t != fn)
			edge[fn] = edge[fn] " " t
		next
	}
	# a memory operand relative to the instruction pointer that is read
	# (lea only computes the address): where does it point?
	if (line ~ /\(%rip\)/ && line !~ /[ \t]lea[a-z]*[ \t]/ &&
	    match(line, /# [0-9a-f]+ </)) {
		a = hex(substr(line, RSTART + 2, RLENGTH - 4))
		# a vector load may read 16 bytes from a: any relocated word
		# overlapping [a, a + 16)
		for (i = 0; i < nrel; i++)
			if (rel[i] + 8 > a && rel[i] < a + 16) {
				bad[fn] = bad[fn] "\n    " line
				break
			}
	}
}
END {
	n = 0
	for (r in roots)
		todo[n++] = r
	while (n > 0) {
		f = todo[--n]
		if (f in seen)
			continue
		seen[f] = 1
		k = split(edge[f], e, " ")
		for (i = 1; i <= k; i++)
			if (!(e[i] in seen))
				todo[n++] = e[i]
	}
	status = 0
	reach = 0
	for (f in seen) {
		reach++
		if (f in bad) {
			print "FAIL: " f " (reached from a resolver) reads a relocated word:" bad[f]
			status = 1
		}
		if (f ~ /@plt$/) {
			print "FAIL: " f " is called from code a resolver reaches"
			status = 1
		}
	}
	if (!status)
		print "ok: " reach " functions reached from the resolvers read no relocated word"
	exit status
}' "$tmp.dis"
