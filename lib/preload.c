/* SPDX-License-Identifier: MIT */
/*
 * libfastmem-preload.so: LD_PRELOAD it to give an unmodified program
 * libfastmem's memcpy & co.
 *
 * These are plain functions that jump to libfastmem.so's ifunc entry points.
 * Exporting ifunc symbols here instead would make ld.so resolve them while
 * relocating other libraries, before libfastmem is relocated, and print
 * "Relink ... for IFUNC symbol" warnings; a plain function that is one jump
 * away has neither problem.  memcpy tolerates overlap (every libfastmem copy
 * variant is overlap-safe), as glibc's does in practice.
 */
#include <stddef.h>

#include "fastmem/fastmem.h"

#define EXPORT __attribute__((visibility("default")))

extern void __chk_fail(void) __attribute__((noreturn));

EXPORT void *fm_preload_memcpy(void *dst, const void *src, size_t n)
{
	return fm_memcpy(dst, src, n);
}

EXPORT void *memcpy(void *dst, const void *src, size_t n)
	__attribute__((alias("fm_preload_memcpy")));

EXPORT void *memmove(void *dst, const void *src, size_t n)
{
	return fm_memmove(dst, src, n);
}

EXPORT void *memset(void *dst, int c, size_t n)
{
	return fm_memset(dst, c, n);
}

EXPORT void *mempcpy(void *dst, const void *src, size_t n)
{
	return (char *)fm_memcpy(dst, src, n) + n;
}

EXPORT void *__mempcpy(void *dst, const void *src, size_t n)
	__attribute__((alias("mempcpy")));

EXPORT void bcopy(const void *src, void *dst, size_t n)
{
	fm_memmove(dst, src, n);
}

EXPORT void bzero(void *dst, size_t n)
{
	fm_memset(dst, 0, n);
}

EXPORT void explicit_bzero(void *dst, size_t n)
{
	fm_memset(dst, 0, n);
	/* the stores must happen even if dst is never read again */
	__asm__ volatile("" : : "r"(dst) : "memory");
}

/* Fortify entry points keep their contract: abort on overflow. */
EXPORT void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
	if (n > dstlen)
		__chk_fail();
	return fm_memcpy(dst, src, n);
}

EXPORT void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
	if (n > dstlen)
		__chk_fail();
	return fm_memmove(dst, src, n);
}

EXPORT void *__memset_chk(void *dst, int c, size_t n, size_t dstlen)
{
	if (n > dstlen)
		__chk_fail();
	return fm_memset(dst, c, n);
}

EXPORT void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
	if (n > dstlen)
		__chk_fail();
	return (char *)fm_memcpy(dst, src, n) + n;
}
