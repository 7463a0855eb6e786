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
if [ -n "${TEST_RUNNER:-}" ]; then
	echo "SKIP: programs built here would run under $TEST_RUNNER"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/underlinked.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

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
inc="-I$top_srcdir/include"
# $CC may hold flags (gcc -m32): split on purpose
# shellcheck disable=SC2086
if ! $CC "$inc" -fPIC -shared -Wl,-z,now "$tmp/bar.c" -o "$tmp/libbar.so" ||
	! $CC "$inc" "$tmp/main.c" -o "$tmp/main" -L"$lib" -lfastmem \
		-L"$tmp" -lbar -Wl,-rpath,"$tmp" -Wl,-rpath,"$lib"; then
	echo "SKIP: could not build the test programs with $CC"
	exit 77
fi

status=0
long=$(printf '/x%.0s' $(seq 200))
run() {
	name=$1
	shift
	out=$(env "$@" "$tmp/main" 2>"$tmp/err")
	rc=$?
	if [ $rc -ne 0 ] || [ "$out" != ok ]; then
		echo "FAIL: $name: exit $rc, output '$out'"
		sed 's/^/  /' "$tmp/err"
		status=1
	else
		echo "ok: $name"
	fi
}
# ld.so's "Relink" message shows that the order this test needs happened
"$tmp/main" 2>"$tmp/err" >/dev/null
if ! grep -q 'IFUNC' "$tmp/err"; then
	echo "SKIP: ld.so did not relocate the underlinked library first"
	exit 77
fi
run "no settings"
run "a config path over 255 bytes" FASTMEM_CONFIG="$long"
run "a system config path over 255 bytes" FASTMEM_SYSTEM_CONFIG="$long"
run "an unknown variant" FASTMEM_MEMCPY=no-such-variant
run "a threshold that does not parse" FASTMEM_NT_THRESHOLD=12Q
run "a bad probe setting" FASTMEM_PROBE=maybe
run "tracing on" FASTMEM_TRACE="$tmp/trace.%p"
exit $status
