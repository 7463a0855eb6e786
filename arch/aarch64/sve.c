/* SPDX-License-Identifier: MIT */
/*
 * The SVE family (sve, sve_nt, sve_auto), compiled with
 * -march=armv8.2-a+sve and nothing else in it, so no SVE instruction can
 * run before HWCAP_SVE has been checked.
 *
 * Vector-length agnostic: the same code runs with 128-bit vectors
 * (Neoverse N2, V2, Grace) and 512-bit ones (A64FX).  It follows the
 * published design of Arm's optimized-routines memcpy-sve and glibc's
 * A64FX memcpy (read, not copied): a copy of up to two vectors is two
 * predicated loads and two predicated stores made by WHILELO, with no
 * branch on the size and no access outside [p, p + n) (inactive lanes are
 * not accessed, so they cannot fault); longer copies run a loop of two whole
 * vectors per iteration, forward or backward as overlap requires, and end
 * with the same predicated pair.  Each iteration loads before it stores,
 * which is what keeps the loops memmove-correct.  The streaming form stores
 * with STNT1B (contiguous non-temporal store).  Unmeasured on hardware.
 */
#include <arm_sve.h>

#include "aarch64.h"

#define SB(i, n) svwhilelt_b8_u64((i), (n))

/* Bytes [i, n) with n - i <= 2 vectors: predicated, loads first. */
static FM_ALWAYS_INLINE void copy_rest(u8 *d, const u8 *s, uint64_t i,
				       uint64_t n, uint64_t vl)
{
	svbool_t p0 = SB(i, n), p1 = SB(i + vl, n);
	svuint8_t a = svld1_u8(p0, s + i), b = svld1_u8(p1, s + i + vl);

	svst1_u8(p0, d + i, a);
	svst1_u8(p1, d + i + vl, b);
}

/* n > 2 vectors; correct unless dst starts inside (src, src + n). */
static FM_ALWAYS_INLINE void copy_fwd(u8 *d, const u8 *s, uint64_t n, int nt)
{
	uint64_t vl = svcntb(), i = 0;
	svbool_t all = svptrue_b8();

	for (; i + 2 * vl <= n; i += 2 * vl) {
		svuint8_t a = svld1_u8(all, s + i);
		svuint8_t b = svld1_u8(all, s + i + vl);

		if (nt) {
			svstnt1_u8(all, d + i, a);
			svstnt1_u8(all, d + i + vl, b);
		} else {
			svst1_u8(all, d + i, a);
			svst1_u8(all, d + i + vl, b);
		}
	}
	copy_rest(d, s, i, n, vl);
}

/* n > 2 vectors; correct unless src starts inside (dst, dst + n). */
static void copy_bwd(u8 *d, const u8 *s, uint64_t n)
{
	uint64_t vl = svcntb(), i = n;
	svbool_t all = svptrue_b8();

	for (; i >= 2 * vl; i -= 2 * vl) {
		svuint8_t b = svld1_u8(all, s + i - vl);
		svuint8_t a = svld1_u8(all, s + i - 2 * vl);

		svst1_u8(all, d + i - vl, b);
		svst1_u8(all, d + i - 2 * vl, a);
	}
	copy_rest(d, s, 0, i, vl);
}

static void *copy_plain(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (n <= 2 * svcntb())
		copy_rest(d, s, 0, n, svcntb());
	else if (fm_fwd_ok(d, s, n))
		copy_fwd(d, s, n, 0);
	else
		copy_bwd(d, s, n);
	return dst;
}

/* Streams only what does not overlap (see asimd.c). */
static void *copy_streaming(void *dst, const void *src, size_t n)
{
	if (n > 2 * svcntb() && !fm_overlaps(dst, src, n)) {
		copy_fwd(dst, src, n, 1);
		return dst;
	}
	return copy_plain(dst, src, n);
}

void *copy_sve(void *dst, const void *src, size_t n)
{
	return copy_plain(dst, src, n);
}

void *copy_sve_nt(void *dst, const void *src, size_t n)
{
	return copy_streaming(dst, src, n);
}

void *copy_sve_auto(void *dst, const void *src, size_t n, size_t nt_from)
{
	if (n >= nt_from && n >= FM_NT_MIN)
		return copy_streaming(dst, src, n);
	return copy_plain(dst, src, n);
}

/* The plain entries read the threshold only past the small sizes. */
void *memcpy_sve_auto(void *dst, const void *src, size_t n)
{
	if (n <= 2 * svcntb()) {
		copy_rest(dst, src, 0, n, svcntb());
		return dst;
	}
	return copy_sve_auto(dst, src, n, fm_threshold_ready(FM_OP_MEMCPY));
}

void *memmove_sve_auto(void *dst, const void *src, size_t n)
{
	if (n <= 2 * svcntb()) {
		copy_rest(dst, src, 0, n, svcntb());
		return dst;
	}
	return copy_sve_auto(dst, src, n, fm_threshold_ready(FM_OP_MEMMOVE));
}

/* Page-aligned, so never overlapping; the vector length divides a page. */
void copy_page_sve(void *dst, const void *src)
{
	copy_fwd(dst, src, FM_PAGE_SIZE, 0);
}

unsigned fm_sve_bytes(void)
{
	return (unsigned)svcntb();
}
