/* SPDX-License-Identifier: MIT */
/*
 * Building blocks shared by the variants: unaligned word access and the
 * small-size copies and sets that every variant uses below its loop size.
 * All loads happen before any store, so the small copies are overlap-safe.
 */
#ifndef FASTMEM_SMALL_H
#define FASTMEM_SMALL_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t __attribute__((may_alias, aligned(1))) fm_u64u;
typedef uint32_t __attribute__((may_alias, aligned(1))) fm_u32u;
typedef uint16_t __attribute__((may_alias, aligned(1))) fm_u16u;

static inline uint64_t fm_load64(const unsigned char *p)
{
	return *(const fm_u64u *)p;
}

static inline void fm_store64(unsigned char *p, uint64_t v)
{
	*(fm_u64u *)p = v;
}

/* Copy n <= 32 bytes; overlap-safe. */
static inline void fm_copy_upto32(unsigned char *d, const unsigned char *s,
				  size_t n)
{
	if (n >= 16) {
		uint64_t a = fm_load64(s), b = fm_load64(s + 8);
		uint64_t c = fm_load64(s + n - 16), e = fm_load64(s + n - 8);
		fm_store64(d, a);
		fm_store64(d + 8, b);
		fm_store64(d + n - 16, c);
		fm_store64(d + n - 8, e);
	} else if (n >= 8) {
		uint64_t a = fm_load64(s), b = fm_load64(s + n - 8);
		fm_store64(d, a);
		fm_store64(d + n - 8, b);
	} else if (n >= 4) {
		uint32_t a = *(const fm_u32u *)s,
			 b = *(const fm_u32u *)(s + n - 4);
		*(fm_u32u *)d = a;
		*(fm_u32u *)(d + n - 4) = b;
	} else if (n >= 2) {
		uint16_t a = *(const fm_u16u *)s,
			 b = *(const fm_u16u *)(s + n - 2);
		*(fm_u16u *)d = a;
		*(fm_u16u *)(d + n - 2) = b;
	} else if (n) {
		*d = *s;
	}
}

static inline uint64_t fm_splat8(int c)
{
	return (uint64_t)(unsigned char)c * 0x0101010101010101ull;
}

/* Set n <= 32 bytes to the byte whose splat is v. */
static inline void fm_set_upto32(unsigned char *d, uint64_t v, size_t n)
{
	if (n >= 16) {
		fm_store64(d, v);
		fm_store64(d + 8, v);
		fm_store64(d + n - 16, v);
		fm_store64(d + n - 8, v);
	} else if (n >= 8) {
		fm_store64(d, v);
		fm_store64(d + n - 8, v);
	} else if (n >= 4) {
		*(fm_u32u *)d = (uint32_t)v;
		*(fm_u32u *)(d + n - 4) = (uint32_t)v;
	} else if (n >= 2) {
		*(fm_u16u *)d = (uint16_t)v;
		*(fm_u16u *)(d + n - 2) = (uint16_t)v;
	} else if (n) {
		*d = (unsigned char)v;
	}
}

/* The portable variants, which others fall back on. */
void *copy_generic(void *dst, const void *src, size_t n);
void *set_generic(void *dst, int c, size_t n);

#endif /* FASTMEM_SMALL_H */
