#!/bin/sh
# A library that calls fm_memcpy without linking libfastmem (underlinked),
# itself linked -z now, is relocated before libfastmem: ld.so then runs our
# resolvers while libfastmem's own relocations are not applied yet (it says
# "Relink ... for IFUNC symbol").  The program must still run, also when
# the settings print warnings, whose code is where such a run crashed (a
# pointer loaded from a relocated word; see resolver-relocs.sh).
set -u
: "${top_builddir:?}" "${top_srcdir:?}" "${CC:=cc}"
lib=$top_builddir/.libs
if [ ! -e "$lib/libfastmem.so" ]; then
	echo "SKIP: no shared library under $lib"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/underlinked.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# $CC may hold flags (gcc -m32) and TEST_RUNNER a command (qemu-i386):
# both are split on purpose
# shellcheck disable=SC2086
cc() { $CC "$@"; }
# shellcheck disable=SC2086
runner() { ${TEST_RUNNER:-} "$@"; }

echo 'int main(void) { return 0; }' >"$tmp/ok.c"
if ! cc "$tmp/ok.c" -o "$tmp/ok" 2>/dev/null || ! runner "$tmp/ok"; then
	echo "SKIP: $CC cannot build and run a program here"
	exit 77
fi

cat >"$tmp/bar.c" <<'EOF'
#include <fastmem/fastmem.h>
void *bar_copy(void *d, const void *s, size_t n)
{
	return fm_memcpy(d, s, n);
}
EOF
cat >"$tmp/main.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <fastmem/fastmem.h>
void *bar_copy(void *d, const void *s, size_t n);
int main(void)
{
	static char a[1 << 20], b[1 << 20];

	memset(a, 'x', sizeof(a));
	bar_copy(b, a, sizeof(b));
	fm_memset(a, 'y', sizeof(a));
	if (memcmp(b, a, sizeof(a)) == 0 || b[12345] != 'x') {
		puts("wrong result");
		return 1;
	}
	puts("ok");
	return 0;
}
EOF
inc=-I$top_srcdir/include
if ! cc "$inc" -fPIC -shared -Wl,-z,now "$tmp/bar.c" -o "$tmp/libbar.so" ||
	! cc "$inc" "$tmp/main.c" -o "$tmp/main" -L"$lib" -lfastmem \
		-L"$tmp" -lbar -Wl,-rpath,"$tmp" -Wl,-rpath,"$lib"; then
	echo "ERROR: the test programs do not build"
	exit 99
fi

# the order this test needs: the underlinked library relocated before
# libfastmem (ld.so also says "Relink ... for IFUNC symbol")
LD_DEBUG=reloc runner "$tmp/main" 2>"$tmp/order" >/dev/null
order=$(sed -n 's/.*relocation processing: \([^ ]*\).*/\1/p' "$tmp/order" |
	grep -E 'libbar|libfastmem' | sed 's,.*/,,' | tr '\n' ' ')
case $order in
libbar.so\ libfastmem.so*) ;;
*)
	echo "FAIL: ld.so relocated '$order', not libbar.so first"
	exit 1
	;;
esac

status=0
long=$(printf '/x%.0s' $(seq 200))
run() {
	name=$1
	shift
	# the arguments are NAME=VALUE pairs
	# shellcheck disable=SC2163
	out=$( (export "$@" && runner "$tmp/main") 2>"$tmp/err")
	rc=$?
	if [ $rc -ne 0 ] || [ "$out" != ok ]; then
		echo "FAIL: $name: exit $rc, output '$out'"
		sed 's/^/  /' "$tmp/err"
		status=1
	else
		echo "ok: $name"
	fi
}
run "no settings" X=1
run "a config path over 255 bytes" FASTMEM_CONFIG="$long"
run "a system config path over 255 bytes" FASTMEM_SYSTEM_CONFIG="$long"
run "an unknown variant" FASTMEM_MEMCPY=no-such-variant
run "a threshold that does not parse" FASTMEM_NT_THRESHOLD=12Q
run "a bad probe setting" FASTMEM_PROBE=maybe
run "tracing on" FASTMEM_TRACE="$tmp/trace.%p"
exit $status
