/* SPDX-License-Identifier: MIT */
/* The layouts measured by main.c: see there */
/* hot fixed-size and random-size sets: candidate layouts of the avx512 sets */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

typedef unsigned char u8;
typedef void *set_fn(void *d, int c, size_t n);
void *aocl_memset(void *, int, size_t);

#define VEC 64
#define V __m512i
#define ST(p, v) _mm512_storeu_si512((void *)(p), v)
#define STA(p, v) _mm512_store_si512((void *)(p), v)
#define RET(p) __asm__("" : "+a"(p))

static inline __mmask64 mask_le64(size_t n)
{
	return _cvtu64_mask64(_bzhi_u64(~0ull, (unsigned)n));
}

/* current set_loop */
__attribute__((noinline)) static void *loop1(u8 *d, int c, size_t n)
{
	V v = _mm512_set1_epi8(c);
	u8 *end = d + n - 4 * VEC;
	u8 *p = (u8 *)(((uintptr_t)d + VEC) & ~(uintptr_t)(VEC - 1));
	ST(d, v);
	for (; p < end; p += 4 * VEC) {
		STA(p, v); STA(p + VEC, v); STA(p + 2 * VEC, v); STA(p + 3 * VEC, v);
	}
	ST(end, v); ST(end + VEC, v); ST(end + 2 * VEC, v); ST(end + 3 * VEC, v);
	return d;
}

/* 4 VEC head: no store twice at aligned multiples of 4 VEC */
__attribute__((noinline)) static void *loop4(u8 *d, int c, size_t n)
{
	V v = _mm512_set1_epi8(c);
	u8 *end = d + n - 4 * VEC;
	u8 *p = (u8 *)(((uintptr_t)d + 4 * VEC) & ~(uintptr_t)(VEC - 1));
	ST(d, v); ST(d + VEC, v); ST(d + 2 * VEC, v); ST(d + 3 * VEC, v);
	for (; p < end; p += 4 * VEC) {
		STA(p, v); STA(p + VEC, v); STA(p + 2 * VEC, v); STA(p + 3 * VEC, v);
	}
	ST(end, v); ST(end + VEC, v); ST(end + 2 * VEC, v); ST(end + 3 * VEC, v);
	return d;
}

/* head 1 VEC, loop from the first aligned VEC, ends at the last 4 VEC
 * boundary measured from p: tail stores only what is left */
__attribute__((noinline)) static void *loopx(u8 *d, int c, size_t n)
{
	V v = _mm512_set1_epi8(c);
	u8 *e = d + n;
	u8 *p = (u8 *)(((uintptr_t)d + VEC) & ~(uintptr_t)(VEC - 1));
	ST(d, v);
	for (; e - p > 4 * VEC; p += 4 * VEC) {
		STA(p, v); STA(p + VEC, v); STA(p + 2 * VEC, v); STA(p + 3 * VEC, v);
	}
	/* 1..4 VEC left, from p */
	ST(e - VEC, v);
	if (e - p > VEC) {
		ST(p, v);
		if (e - p > 2 * VEC) {
			ST(p + VEC, v);
			ST(e - 2 * VEC, v);
		}
	}
	return d;
}

#define SMALL_CUR(d, c, n)                                              \
	RET(d);                                                         \
	if (n <= VEC) {                                                 \
		_mm512_mask_storeu_epi8(d, mask_le64(n), _mm512_set1_epi8(c)); \
		return d;                                               \
	}                                                               \
	if (n <= 2 * VEC) {                                             \
		V v = _mm512_set1_epi8(c);                              \
		ST(d, v); ST((u8 *)d + n - VEC, v);                     \
		return d;                                               \
	}

#define LE8(d, c, n, loop)                                              \
	if (n <= 8 * VEC) {                                             \
		V v = _mm512_set1_epi8(c);                              \
		u8 *q = d;                                              \
		ST(q, v); ST(q + VEC, v); ST(q + n - 2 * VEC, v); ST(q + n - VEC, v); \
		if (n > 4 * VEC) {                                      \
			ST(q + 2 * VEC, v); ST(q + 3 * VEC, v);         \
			ST(q + n - 4 * VEC, v); ST(q + n - 3 * VEC, v); \
		}                                                       \
		return d;                                               \
	}                                                               \
	return loop(d, c, n);

__attribute__((aligned(64))) void *cur(void *d, int c, size_t n)
{
	SMALL_CUR(d, c, n)
	LE8(d, c, n, loop1)
}

__attribute__((aligned(64))) void *cur_loop4(void *d, int c, size_t n)
{
	SMALL_CUR(d, c, n)
	LE8(d, c, n, loop4)
}

__attribute__((aligned(64))) void *cur_loopx(void *d, int c, size_t n)
{
	SMALL_CUR(d, c, n)
	LE8(d, c, n, loopx)
}

/* up to 2 VEC without a branch: two masked stores, the second at
 * d + max(n, 64) - 64 */
__attribute__((aligned(64))) void *b128(void *d, int c, size_t n)
{
	RET(d);
	V v = _mm512_set1_epi8(c);
	if (__builtin_expect(n <= 2 * VEC, 1)) {
		__mmask64 k = mask_le64(n);
		size_t off = n - VEC;
		off = n > VEC ? off : 0;
		_mm512_mask_storeu_epi8(d, k, v);
		_mm512_mask_storeu_epi8((u8 *)d + off, k, v);
		return d;
	}
	LE8(d, c, n, loop1)
}

/* 6 VEC class */
__attribute__((aligned(64))) void *cls6(void *d, int c, size_t n)
{
	SMALL_CUR(d, c, n)
	V v = _mm512_set1_epi8(c);
	u8 *q = d;
	if (n <= 4 * VEC) {
		ST(q, v); ST(q + VEC, v); ST(q + n - 2 * VEC, v); ST(q + n - VEC, v);
		return d;
	}
	if (n <= 8 * VEC) {
		ST(q, v); ST(q + VEC, v); ST(q + 2 * VEC, v); ST(q + 3 * VEC, v);
		ST(q + n - 2 * VEC, v); ST(q + n - VEC, v);
		if (n > 6 * VEC) {
			ST(q + n - 4 * VEC, v); ST(q + n - 3 * VEC, v);
		}
		return d;
	}
	return loop1(d, c, n);
}

/* AOCL's layout: 4 VEC class with the 2-VEC branch inside */
__attribute__((aligned(64))) void *lay_aocl(void *d, int c, size_t n)
{
	RET(d);
	V v = _mm512_set1_epi8(c);
	u8 *q = d;
	if (n <= VEC) {
		_mm512_mask_storeu_epi8(d, mask_le64(n), v);
		return d;
	}
	if (n <= 4 * VEC) {
		ST(q, v);
		if (n > 2 * VEC) {
			ST(q + VEC, v); ST(q + n - VEC, v); ST(q + n - 2 * VEC, v);
			return d;
		}
		ST(q + n - VEC, v);
		return d;
	}
	if (n <= 8 * VEC) {
		ST(q, v); ST(q + VEC, v); ST(q + 2 * VEC, v); ST(q + 3 * VEC, v);
		ST(q + n - 2 * VEC, v); ST(q + n - VEC, v);
		if (n > 6 * VEC) {
			ST(q + n - 4 * VEC, v); ST(q + n - 3 * VEC, v);
		}
		return d;
	}
	return loop1(d, c, n);
}


/* second store masked off entirely below 65 B */
__attribute__((aligned(64))) void *b128z(void *d, int c, size_t n)
{
	RET(d);
	V v = _mm512_set1_epi8(c);
	if (__builtin_expect(n <= 2 * VEC, 1)) {
		__mmask64 k = mask_le64(n);
		size_t r = n > VEC ? n - VEC : 0;
		_mm512_mask_storeu_epi8(d, k, v);
		_mm512_mask_storeu_epi8((u8 *)d + VEC, mask_le64(r), v);
		return d;
	}
	LE8(d, c, n, loop1)
}

/* second store at d + n - 64, all or nothing */
__attribute__((aligned(64))) void *b128n(void *d, int c, size_t n)
{
	RET(d);
	V v = _mm512_set1_epi8(c);
	if (__builtin_expect(n <= 2 * VEC, 1)) {
		__mmask64 k = mask_le64(n);
		__mmask64 k2 = n > VEC ? ~0ull : 0;
		size_t off = n > VEC ? n - VEC : 0;
		_mm512_mask_storeu_epi8(d, k, v);
		_mm512_mask_storeu_epi8((u8 *)d + off, k2, v);
		return d;
	}
	LE8(d, c, n, loop1)
}

#define SMALL_ONLY(d, c, n)                                             \
	RET(d);                                                         \
	if (n <= VEC) {                                                 \
		_mm512_mask_storeu_epi8(d, mask_le64(n), _mm512_set1_epi8(c)); \
		return d;                                               \
	}                                                               \
	if (n <= 2 * VEC) {                                             \
		V v = _mm512_set1_epi8(c);                              \
		ST(d, v); ST((u8 *)d + n - VEC, v);                     \
		return d;                                               \
	}

/* 8 VEC class in ascending order */
__attribute__((aligned(64))) void *seq8(void *d, int c, size_t n)
{
	SMALL_ONLY(d, c, n)
	V v = _mm512_set1_epi8(c);
	u8 *q = d;
	if (n <= 8 * VEC) {
		if (n <= 4 * VEC) {
			ST(q, v); ST(q + VEC, v); ST(q + n - 2 * VEC, v); ST(q + n - VEC, v);
			return d;
		}
		ST(q, v); ST(q + VEC, v); ST(q + 2 * VEC, v); ST(q + 3 * VEC, v);
		ST(q + n - 4 * VEC, v); ST(q + n - 3 * VEC, v);
		ST(q + n - 2 * VEC, v); ST(q + n - VEC, v);
		return d;
	}
	return loop1(d, c, n);
}

/* the 4 VEC stores, then the rest out of line */
__attribute__((aligned(64))) void *unl4(void *d, int c, size_t n)
{
	SMALL_ONLY(d, c, n)
	V v = _mm512_set1_epi8(c);
	u8 *q = d;
	if (n <= 8 * VEC) {
		ST(q, v); ST(q + VEC, v); ST(q + n - 2 * VEC, v); ST(q + n - VEC, v);
		if (__builtin_expect(n > 4 * VEC, 0)) {
			ST(q + 2 * VEC, v); ST(q + 3 * VEC, v);
			ST(q + n - 4 * VEC, v); ST(q + n - 3 * VEC, v);
		}
		return d;
	}
	return loop1(d, c, n);
}

/* 6 VEC class, ascending */
__attribute__((aligned(64))) void *cls6s(void *d, int c, size_t n)
{
	SMALL_ONLY(d, c, n)
	V v = _mm512_set1_epi8(c);
	u8 *q = d;
	if (n <= 4 * VEC) {
		ST(q, v); ST(q + VEC, v); ST(q + n - 2 * VEC, v); ST(q + n - VEC, v);
		return d;
	}
	if (n <= 8 * VEC) {
		ST(q, v); ST(q + VEC, v); ST(q + 2 * VEC, v); ST(q + 3 * VEC, v);
		if (n > 6 * VEC) {
			ST(q + n - 4 * VEC, v); ST(q + n - 3 * VEC, v);
		}
		ST(q + n - 2 * VEC, v); ST(q + n - VEC, v);
		return d;
	}
	return loop1(d, c, n);
}
