#!/bin/sh
# The ifunc resolvers, and everything they call, may run before libfastmem
# itself is relocated: ld.so resolves an ifunc symbol when it relocates the
# object that uses it, and an underlinked library (one that calls fm_memcpy
# without depending on libfastmem) linked -z now is relocated first.  Code
# addresses computed from the instruction pointer are right then; a pointer
# loaded from memory that a relocation fills in is not.  GCC makes such loads
# where the source has none: the vectoriser built an array of two string
# addresses with a 16-byte load from .data.rel.ro (settings.c's too_long,
# a crash at startup with a long FASTMEM_CONFIG).  So, in the machine code
# of every function a resolver reaches (through calls and through any
# branch to another function, conditional ones to .cold parts included):
# no operand relative to the instruction pointer that reads a relocated
# word, nor one that takes the address of an object holding one (a table
# of pointers read through a register).
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
# every dynamic relocation's target word; the data objects (address and
# size); the resolvers (the IFUNC symbols' values); the disassembly
"$READELF" -rW "$so" | awk '$1 ~ /^[0-9a-f]+$/ && $3 ~ /^R_/ { print $1 }' \
	>"$tmp.rel"
"$READELF" -sW "$so" |
	awk '$4 == "OBJECT" && $3 != "0" { print $2, $3, $8 }' >"$tmp.obj"
"$READELF" -sW "$so" | awk '$4 == "IFUNC" { print $2 }' | sort -u \
	>"$tmp.ifunc"
"$OBJDUMP" -d --no-show-raw-insn "$so" >"$tmp.dis"
if [ ! -s "$tmp.ifunc" ] || [ ! -s "$tmp.rel" ] || [ ! -s "$tmp.dis" ]; then
	echo "FAIL: no IFUNC symbol, relocation or code read from $so"
	exit 1
fi

awk -v relf="$tmp.rel" -v objf="$tmp.obj" -v ifuncf="$tmp.ifunc" '
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
# does [a, a + len) overlap a relocated word?
function relocated(a, len,   i) {
	for (i = 0; i < nrel; i++)
		if (rel[i] + 8 > a && rel[i] < a + len)
			return 1
	return 0
}
BEGIN {
	nrel = 0
	while ((getline l < relf) > 0)
		rel[nrel++] = hex(l)
	nobj = 0
	while ((getline l < objf) > 0) {
		split(l, fld, " ")
		# readelf writes large sizes in hex
		sz = fld[2] ~ /^0x/ ? hex(fld[2]) : fld[2] + 0
		if (relocated(hex(fld[1]), sz)) {
			obase[nobj] = hex(fld[1])
			osize[nobj] = sz
			oname[nobj++] = fld[3]
		}
	}
	nroot = 0
	while ((getline l < ifuncf) > 0) {
		root[hex(l)] = 1
		nroot++
	}
}
# a function: "0000000000003f40 <name>:"
/^[0-9a-f]+ <[^>]+>:$/ {
	fn = $2
	gsub(/[<>:]/, "", fn)
	if (hex($1) in root) {
		roots[fn] = 1
		found++
	}
	next
}
fn == "" { next }
{
	line = $0
	# a direct call or branch (jmp, jcc) to another function: an edge
	if (match(line, /[ \t](call|j[a-z]+)[ \t]+[0-9a-f]+ <[^>]+>/)) {
		t = substr(line, RSTART, RLENGTH)
		sub(/.*</, "", t)
		sub(/>.*/, "", t)
		sub(/\+0x[0-9a-f]+$/, "", t)
		if (t != fn)
			edge[fn] = edge[fn] " " t
		next
	}
	if (line !~ /\(%rip\)/ || !match(line, /# [0-9a-f]+/))
		next
	a = hex(substr(line, RSTART + 2, RLENGTH - 2))
	# a read of a relocated word (a vector load may read 16 bytes)
	if (line !~ /[ \t]lea[a-z]*[ \t]/ && relocated(a, 16)) {
		bad[fn] = bad[fn] "\n    " line
		next
	}
	# the address of an object that holds one
	for (i = 0; i < nobj; i++)
		if (a >= obase[i] && a < obase[i] + osize[i]) {
			bad[fn] = bad[fn] "\n    " line " (" oname[i] ")"
			break
		}
}
END {
	if (found < nroot) {
		print "FAIL: " nroot - found " of the " nroot \
		      " resolvers not found in the code"
		exit 1
	}
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
			print "FAIL: " f ", reached from a resolver, reads " \
			      "relocated data:" bad[f]
			status = 1
		}
		if (f ~ /@plt$/) {
			print "FAIL: " f " is called from code a resolver " \
			      "reaches"
			status = 1
		}
	}
	if (reach < nroot) {
		print "FAIL: only " reach " functions reached"
		exit 1
	}
	if (!status)
		print "ok: " reach " functions reached from the " nroot \
		      " resolvers read no relocated data"
	exit status
}' "$tmp.dis"
