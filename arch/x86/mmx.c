/* SPDX-License-Identifier: MIT */
/*
 * MMX copies for i686 (built with -mmmx -msse only): 8-byte movq through the
 * mm registers, and movntq streaming stores (SSE's addition to MMX) with
 * prefetchnta ahead, after the 2002 Athlon measurements in the seeds.  Every
 * path that touched an mm register executes emms before returning, so the
 * caller's x87 state is usable again.
 */
#include "x86.h"

#ifdef __i386__

typedef unsigned char u8;
typedef __m64 __attribute__((may_alias, aligned(1))) m64u;

#define LD(p) (*(const m64u *)(const void *)(p))
#define ST(p, v) (*(m64u *)(void *)(p) = (v))

/* 8 <= n <= 64: all loads before the stores, so overlap-safe */
static void copy_8_64(u8 *d, const u8 *s, size_t n)
{
	if (n <= 16) {
		__m64 a = LD(s), b = LD(s + n - 8);

		ST(d, a);
		ST(d + n - 8, b);
	} else if (n <= 32) {
		__m64 a = LD(s), b = LD(s + 8);
		__m64 y = LD(s + n - 16), z = LD(s + n - 8);

		ST(d, a);
		ST(d + 8, b);
		ST(d + n - 16, y);
		ST(d + n - 8, z);
	} else {
		__m64 a = LD(s), b = LD(s + 8), c = LD(s + 16), e = LD(s + 24);
		__m64 w = LD(s + n - 32), x = LD(s + n - 24);
		__m64 y = LD(s + n - 16), z = LD(s + n - 8);

		ST(d, a);
		ST(d + 8, b);
		ST(d + 16, c);
		ST(d + 24, e);
		ST(d + n - 32, w);
		ST(d + n - 24, x);
		ST(d + n - 16, y);
		ST(d + n - 8, z);
	}
}

/* n < 64, no mm register needed below 8 bytes */
static inline void copy_lt64(u8 *d, const u8 *s, size_t n)
{
	if (n >= 8)
		copy_8_64(d, s, n);
	else
		fm_copy_lt8(d, s, n);
}

/* n > 64; correct unless dst starts inside (src, src + n) */
static void copy_fwd(u8 *d, const u8 *s, size_t n)
{
	__m64 h = LD(s), t = LD(s + n - 8);
	u8 *end = d + n - 8;
	size_t skip = 8 - ((uintptr_t)d & 7);
	u8 *p = d + skip;
	const u8 *q = s + skip;

	for (; p + 32 <= end; p += 32, q += 32) {
		__m64 a = LD(q), b = LD(q + 8), c = LD(q + 16), e = LD(q + 24);

		ST(p, a);
		ST(p + 8, b);
		ST(p + 16, c);
		ST(p + 24, e);
	}
	for (; p < end; p += 8, q += 8)
		ST(p, LD(q));
	ST(end, t);
	ST(d, h);
}

/* n > 64; correct unless src starts inside (dst, dst + n) */
static void copy_bwd(u8 *d, const u8 *s, size_t n)
{
	__m64 h = LD(s), t = LD(s + n - 8);
	u8 *p = (u8 *)((uintptr_t)(d + n) & ~(uintptr_t)7);
	const u8 *q = s + (p - d);

	while (p >= d + 40) {
		p -= 32;
		q -= 32;
		__m64 a = LD(q + 24), b = LD(q + 16), c = LD(q + 8), e = LD(q);

		ST(p + 24, a);
		ST(p + 16, b);
		ST(p + 8, c);
		ST(p, e);
	}
	while (p > d + 8) {
		p -= 8;
		q -= 8;
		ST(p, LD(q));
	}
	ST(d, h);
	ST(d + n - 8, t);
}

void *copy_mmx(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (n < 8) {
		fm_copy_lt8(d, s, n);
		return dst;
	}
	if (n <= 64)
		copy_8_64(d, s, n);
	else if (fm_fwd_ok(d, s, n))
		copy_fwd(d, s, n);
	else
		copy_bwd(d, s, n);
	_mm_empty();
	return dst;
}

/*
 * Streams whole destination lines with movntq when the buffers do not
 * overlap (otherwise it is copy_mmx); the partial lines at both ends get
 * ordinary stores.
 */
void *copy_mmx_movntq(void *dst, const void *src, size_t n)
{
	u8 *d = dst, *p, *end;
	const u8 *s = src, *q;
	size_t h;

	if (n <= 4 * FM_LINE || fm_overlaps(d, s, n))
		return copy_mmx(dst, src, n);
	h = (size_t)(-(uintptr_t)d & (FM_LINE - 1));
	p = d + h;
	q = s + h;
	end = (u8 *)((uintptr_t)(d + n) & ~(uintptr_t)(FM_LINE - 1));
	copy_lt64(d, s, h);
	for (; p < end; p += FM_LINE, q += FM_LINE) {
		_mm_prefetch((const char *)q + 320, _MM_HINT_NTA);
		for (int i = 0; i < FM_LINE; i += 32) {
			__m64 a = LD(q + i), b = LD(q + i + 8);
			__m64 c = LD(q + i + 16), e = LD(q + i + 24);

			_mm_stream_pi((__m64 *)(void *)(p + i), a);
			_mm_stream_pi((__m64 *)(void *)(p + i + 8), b);
			_mm_stream_pi((__m64 *)(void *)(p + i + 16), c);
			_mm_stream_pi((__m64 *)(void *)(p + i + 24), e);
		}
	}
	copy_lt64(p, q, (size_t)(d + n - p));
	_mm_sfence();
	_mm_empty();
	return dst;
}

#else
/* x86-64 has SSE2 everywhere: the MMX variants exist only in i686 builds. */
typedef int fm_mmx_unused;
#endif
