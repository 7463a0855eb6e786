/* SPDX-License-Identifier: MIT */
/*
 * The copy of the cache-control families (cell.c, ppc970.c), written once:
 * Gunnar von Boehn's Cell memcpy (glibc sysdeps/powerpc/powerpc64/cell/
 * memcpy.S, the kernel's copypage_64.S) in C.  The destination is aligned to
 * the 128-byte line; each line of the source is touched with dcbt some lines
 * ahead, and each line of the destination is zeroed with dcbz some lines
 * ahead, so the stores find the line in the cache without reading it from
 * memory; then 128-byte strides of ld/std.  The source may have any
 * alignment (its loads are unaligned ld, as in glibc's Cell memcpy).
 *
 * dcbz would destroy source bytes that share a line with the destination,
 * so overlapping copies go to the plain ld/std copy, which is correct in both
 * directions; so do copies without a whole destination line in them.
 *
 * The including file defines:
 *   FAMILY        name token (cell, ppc970)
 *   DCBT_AHEAD    source lines touched ahead of the one being copied
 *   DCBZ_AHEAD    destination lines zeroed ahead (<= DCBT_AHEAD)
 *   POLICY_MIN    bytes from which the family's _auto policy uses the loop
 * and is compiled with the family's -mtune.
 */
#include "ppc.h"

#if !defined(FAMILY) || !defined(DCBT_AHEAD) || !defined(DCBZ_AHEAD) ||        \
	!defined(POLICY_MIN)
#error "define FAMILY, DCBT_AHEAD, DCBZ_AHEAD and POLICY_MIN first"
#endif
#if DCBZ_AHEAD > DCBT_AHEAD || DCBZ_AHEAD < 1
#error "DCBZ_AHEAD must be in 1..DCBT_AHEAD"
#endif

#define FN(pre, post) FN_(pre, FAMILY, post)
#define FN_(a, b, c) FN__(a, b, c)
#define FN__(a, b, c) a##b##c

#define L FM_PPC_LINE

/* One line: p aligned, q any alignment; four registers per group, which
 * hides the L1 latency on the in-order Cell PPE. */
static inline __attribute__((always_inline)) void copy_line(u8 *p, const u8 *q)
{
	fm_u64a *d = (fm_u64a *)(void *)p;

#pragma GCC unroll 4
	for (int i = 0; i < L / 8; i += 4) {
		uint64_t a = fm_load64(q + 8 * i), b = fm_load64(q + 8 * i + 8);
		uint64_t c = fm_load64(q + 8 * i + 16);
		uint64_t e = fm_load64(q + 8 * i + 24);

		d[i] = a;
		d[i + 1] = b;
		d[i + 2] = c;
		d[i + 3] = e;
	}
}

/*
 * nl >= 1 whole lines from q (any alignment) to p (line-aligned), the two
 * not overlapping; g is the verified dcbz block size.  Every destination
 * line is zeroed exactly once before it is written, and only lines inside
 * [p, p + nl * L); dcbt is given only addresses inside the source.
 */
static inline __attribute__((always_inline)) void
lines_copy_g(u8 *p, const u8 *q, size_t nl, unsigned g)
{
	u8 *end = p + nl * L;
	u8 *zend = p + (nl < DCBZ_AHEAD ? nl : DCBZ_AHEAD) * L;
	const u8 *tend = q + (nl < DCBT_AHEAD ? nl : DCBT_AHEAD) * L;

	for (const u8 *t = q; t < tend; t += L)
		fm_dcbt(t);
	for (u8 *z = p; z < zend; z += L)
		fm_dcbz_line(z, g);
	/* both hints stay inside the buffers while DCBT_AHEAD lines remain */
	if (nl > DCBT_AHEAD) {
		u8 *stop = end - DCBT_AHEAD * L;

		for (; p < stop; p += L, q += L) {
			fm_dcbt(q + DCBT_AHEAD * L);
			fm_dcbz_line(p + DCBZ_AHEAD * L, g);
			copy_line(p, q);
		}
	}
	if (nl > DCBZ_AHEAD) {
		u8 *stop = end - DCBZ_AHEAD * L;

		for (; p < stop; p += L, q += L) {
			fm_dcbz_line(p + DCBZ_AHEAD * L, g);
			copy_line(p, q);
		}
	}
	for (; p < end; p += L, q += L)
		copy_line(p, q);
}

/* The loops once for the usual dcbz size as a constant, once for others. */
static __attribute__((noinline)) void lines_copy(u8 *p, const u8 *q, size_t nl,
						 unsigned g)
{
	if (FM_LIKELY(g == L))
		lines_copy_g(p, q, nl, L);
	else
		lines_copy_g(p, q, nl, g);
}

/* n > 32, buffers not overlapping. */
static void copy_lines(u8 *d, const u8 *s, size_t n)
{
	unsigned g = fm_ppc_dcbz_size();
	u8 *p = fm_align_up(d, L);
	u8 *e = fm_align_down(d + n, L);

	if (!g || e <= p) {
		fm_ppc64_copy(d, s, n);
		return;
	}
	fm_ppc64_copy(d, s, (size_t)(p - d));
	lines_copy(p, s + (p - d), (size_t)(e - p) / L, g);
	fm_ppc64_copy(e, s + (e - d), (size_t)(d + n - e));
}

/* The family's copy: the line loop wherever a whole line fits. */
void *FN(copy_, )(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (n <= 32)
		fm_copy_upto32(d, s, n);
	else if (fm_overlaps(d, s, n))
		fm_ppc64_copy(d, s, n);
	else
		copy_lines(d, s, n);
	return dst;
}

/*
 * The automatic policy: the line loop from POLICY_MIN bytes, where the
 * touches and zeroing ahead have lines to work on, plain ld/std below.
 * PowerPC has no store that bypasses the cache (dcbz already spares the
 * read that a streaming store spares on x86, at any size), so the
 * non-temporal threshold has nothing to switch and is not used.
 */
void *FN(memcpy_, _auto)(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (n < POLICY_MIN || fm_overlaps(d, s, n))
		return fm_ppc64_copy(d, s, n);
	copy_lines(d, s, n);
	return dst;
}

void *FN(memmove_, _auto)(void *dst, const void *src, size_t n)
{
	return FN(memcpy_, _auto)(dst, src, n);
}

void *FN(copy_, _auto)(void *dst, const void *src, size_t n, size_t thr)
{
	(void)thr;
	return FN(memcpy_, _auto)(dst, src, n);
}

void FN(copy_page_, )(void *dst, const void *src)
{
	unsigned g = fm_ppc_dcbz_size();

	if (!g)
		fm_ppc64_copy_page(dst, src);
	else
		lines_copy(dst, src, FM_PAGE_SIZE / L, g);
}

/* A page is always above POLICY_MIN: the policy is the family's copy. */
void FN(copy_page_, _auto)(void *dst, const void *src, size_t thr)
{
	(void)thr;
	FN(copy_page_, )(dst, src);
}

#undef L
