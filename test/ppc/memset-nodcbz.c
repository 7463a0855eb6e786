/* SPDX-License-Identifier: MIT */
/*
 * A memset without dcbz, for test programs linked statically with
 * -Wl,--wrap=memset (test/ppc/run.sh does this on CPU models whose dcbz
 * clears less than AT_DCACHEBSIZE, such as qemu-ppc64 -cpu 970).  There,
 * glibc's memset zeroes whole lines with dcbz and leaves 3/4 of each
 * unzeroed; glibc's strstr then builds its shift table from stack garbage
 * and can loop forever.  --wrap sends every memset call in the program,
 * glibc's own internal ones included, here.  libfastmem calls no memset, so
 * the library under test is the same either way.
 *
 * Compile with -fno-builtin -fno-tree-loop-distribute-patterns: the loops
 * must not become a memset call (that would be this function).
 */
#include <stddef.h>
#include <stdint.h>

typedef uint64_t __attribute__((may_alias)) u64a;

void *__wrap_memset(void *dst, int c, size_t n);

void *__wrap_memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	uint64_t v = (uint64_t)(unsigned char)c * 0x0101010101010101ull;

	for (; n && ((uintptr_t)d & 7); n--)
		*d++ = (unsigned char)c;
	for (; n >= 8; n -= 8, d += 8)
		*(u64a *)(void *)d = v;
	for (; n; n--)
		*d++ = (unsigned char)c;
	return dst;
}
