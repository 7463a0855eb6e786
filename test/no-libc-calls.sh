#!/bin/sh
# libfastmem must never call memcpy/memmove/memset: under LD_PRELOAD those
# are libfastmem itself (infinite recursion), and inside a resolver they may
# not be relocated yet.  GCC emits such calls for struct copies and for loops
# it recognises, so look at the object code: no undefined reference to them
# in any object of the library, and no call through the PLT to them.  Nor
# to __stack_chk_fail: a stack protector reads TLS, which a static program's
# resolvers run before.
set -u
: "${top_builddir:?}" "${OBJDUMP:=objdump}"
libs=""
for f in "$top_builddir"/.libs/libfastmem.so "$top_builddir"/.libs/libfastmem-preload.so \
	"$top_builddir"/.libs/libfastmem.a; do
	[ -e "$f" ] && libs="$libs $f"
done
if [ -z "$libs" ]; then
	echo "no library built under $top_builddir/.libs" >&2
	exit 99
fi
funcs='memcpy|memmove|memset|__memcpy_chk|__memmove_chk|__memset_chk|mempcpy|bzero|__stack_chk_fail'
status=0
for f in $libs; do
	undef=$("$OBJDUMP" -t "$f" 2>/dev/null | grep -E '\*UND\*' |
		grep -E "[[:space:]]($funcs)(@.*)?\$")
	calls=$("$OBJDUMP" -d "$f" | grep -E "<($funcs)@plt>")
	if [ -n "$undef$calls" ]; then
		echo "FAIL: $f references the C library's memory functions:"
		printf '%s\n%s\n' "$undef" "$calls" | sed '/^$/d; s/^/  /'
		status=1
	else
		echo "ok: $f has no reference to $funcs"
	fi
done
exit $status
