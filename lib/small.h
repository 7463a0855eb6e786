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

/*
 * Copies of n < 8, < 16 and <= 32 bytes, each a ladder over the one below;
 * overlap-safe (every load before the stores).  fm_copy_lt8 uses no 64-bit
 * access.
 */
static inline void fm_copy_lt8(unsigned char *d, const unsigned char *s,
			       size_t n)
{
	if (n >= 4) {
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

static inline void fm_copy_lt16(unsigned char *d, const unsigned char *s,
				size_t n)
{
	if (n >= 8) {
		uint64_t a = fm_load64(s), b = fm_load64(s + n - 8);
		fm_store64(d, a);
		fm_store64(d + n - 8, b);
	} else {
		fm_copy_lt8(d, s, n);
	}
}

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
	} else {
		fm_copy_lt16(d, s, n);
	}
}

/*
 * w doublewords at p into v[0..w), and back.  With w a constant the loop is
 * unrolled and v, a local array of the caller, lives in registers: the word
 * loops below load a whole block before storing any of it.
 */
static inline void fm_load_words(uint64_t *v, const unsigned char *p, int w)
{
#pragma GCC unroll 8
	for (int i = 0; i < w; i++)
		v[i] = fm_load64(p + 8 * i);
}

static inline void fm_store_words(unsigned char *p, const uint64_t *v, int w)
{
#pragma GCC unroll 8
	for (int i = 0; i < w; i++)
		fm_store64(p + 8 * i, v[i]);
}

static inline uint64_t fm_splat8(int c)
{
	return (uint64_t)(unsigned char)c * 0x0101010101010101ull;
}

/* Set n < 16 and n <= 32 bytes to the byte whose splat is v. */
static inline void fm_set_lt16(unsigned char *d, uint64_t v, size_t n)
{
	if (n >= 8) {
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

static inline void fm_set_upto32(unsigned char *d, uint64_t v, size_t n)
{
	if (n >= 16) {
		fm_store64(d, v);
		fm_store64(d + 8, v);
		fm_store64(d + n - 16, v);
		fm_store64(d + n - 8, v);
	} else {
		fm_set_lt16(d, v, n);
	}
}

/* The portable variants, which others fall back on. */
void *copy_generic(void *dst, const void *src, size_t n);
void *set_generic(void *dst, int c, size_t n);

#endif /* FASTMEM_SMALL_H */
