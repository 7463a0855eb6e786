/* SPDX-License-Identifier: MIT */
/*
 * The VSX family for POWER8 and later (copy_vsx, copy_page_vsx), compiled
 * with -mcpu=power8 and nothing else in it, so no VSX or ISA 2.07
 * instruction can run before the CPU has been checked (PPC_FEATURE_HAS_VSX
 * and PPC_FEATURE2_ARCH_2_07 from the auxiliary vector: the "power8"
 * feature).  Both byte orders: vec_xl/vec_xst load and store 16 bytes in
 * memory order on either, and the endian-dependent lvsl/vperm technique of
 * altivec.c is not needed.
 *
 * The shape follows the published design of glibc's POWER8 and POWER10
 * string routines (sysdeps/powerpc/powerpc64/power8, power10; read, not
 * copied), which rely on POWER8 and later handling unaligned VSX accesses
 * in hardware: no alignment work for short copies, only 16-byte loads from
 * both ends that overlap in the middle (up to 32, 64 and 128 bytes), every
 * load before any store, which makes them memmove-correct without an
 * overlap check; above 128 bytes a loop of 64 bytes per iteration with the
 * destination aligned to 16, the ends loaded first and stored last, run
 * backward when the destination starts inside the source.  (POWER10's
 * length-controlled lxvl/stxvl for the shortest copies would need
 * -mcpu=power9 and a family of its own.)  Unmeasured on hardware.
 */
#include <altivec.h>

#include "ppc.h"

typedef __vector unsigned char vu8;

static FM_ALWAYS_INLINE vu8 ld(const u8 *p)
{
	return vec_xl(0, (const unsigned char *)p);
}

static FM_ALWAYS_INLINE void st(u8 *p, vu8 v)
{
	vec_xst(v, 0, (unsigned char *)p);
}

static FM_ALWAYS_INLINE void store64(u8 *p, vu8 a, vu8 b, vu8 c, vu8 e)
{
	st(p, a);
	st(p + 16, b);
	st(p + 32, c);
	st(p + 48, e);
}

/* 32 < n <= 128, every load before any store: overlap-safe. */
static FM_ALWAYS_INLINE void copy_33_128(u8 *d, const u8 *s, size_t n)
{
	if (n <= 64) {
		vu8 a = ld(s), b = ld(s + 16);
		vu8 c = ld(s + n - 32), e = ld(s + n - 16);
		st(d, a);
		st(d + 16, b);
		st(d + n - 32, c);
		st(d + n - 16, e);
	} else {
		vu8 a = ld(s), b = ld(s + 16), c = ld(s + 32), e = ld(s + 48);
		vu8 f = ld(s + n - 64), g = ld(s + n - 48);
		vu8 h = ld(s + n - 32), k = ld(s + n - 16);
		store64(d, a, b, c, e);
		store64(d + n - 64, f, g, h, k);
	}
}

/* n > 128; correct unless dst starts inside (src, src + n). */
static void copy_fwd(u8 *d, const u8 *s, size_t n)
{
	vu8 head = ld(s);
	vu8 t0 = ld(s + n - 64), t1 = ld(s + n - 48);
	vu8 t2 = ld(s + n - 32), t3 = ld(s + n - 16);
	u8 *end = d + n - 64;
	/* align the stores; the skipped 1..16 bytes are the head's */
	size_t skip = 16 - ((uintptr_t)d & 15);
	u8 *p = d + skip;
	const u8 *q = s + skip;

	for (; p < end; p += 64, q += 64) {
		vu8 a = ld(q), b = ld(q + 16), c = ld(q + 32), e = ld(q + 48);
		store64(p, a, b, c, e);
	}
	store64(end, t0, t1, t2, t3);
	st(d, head);
}

/* n > 128; correct unless src starts inside (dst, dst + n). */
static void copy_bwd(u8 *d, const u8 *s, size_t n)
{
	vu8 tail = ld(s + n - 16);
	vu8 h0 = ld(s), h1 = ld(s + 16), h2 = ld(s + 32), h3 = ld(s + 48);
	/* align the stores; the skipped 0..15 bytes are the tail's */
	u8 *e = fm_align_down(d + n, 16);
	const u8 *q = s + (e - d);

	for (; e > d + 64; e -= 64, q -= 64) {
		vu8 a = ld(q - 64), b = ld(q - 48), c = ld(q - 32);
		vu8 f = ld(q - 16);
		store64(e - 64, a, b, c, f);
	}
	store64(d, h0, h1, h2, h3);
	st(d + n - 16, tail);
}

void *copy_vsx(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (n <= 32)
		fm_copy_upto32(d, s, n);
	else if (n <= 128)
		copy_33_128(d, s, n);
	else if (fm_fwd_ok(d, s, n))
		copy_fwd(d, s, n);
	else
		copy_bwd(d, s, n);
	return dst;
}

/* Page-aligned: touch the source page, then a line per iteration. */
void copy_page_vsx(void *dst, const void *src)
{
	u8 *d = dst;
	const u8 *s = src;

	for (size_t i = 0; i < FM_PAGE_SIZE; i += FM_PPC_LINE)
		fm_dcbt(s + i);
	for (size_t i = 0; i < FM_PAGE_SIZE; i += FM_PPC_LINE) {
		vu8 a = ld(s + i), b = ld(s + i + 16), c = ld(s + i + 32);
		vu8 e = ld(s + i + 48), f = ld(s + i + 64);
		vu8 g = ld(s + i + 80), h = ld(s + i + 96);
		vu8 k = ld(s + i + 112);

		store64(d + i, a, b, c, e);
		store64(d + i + 64, f, g, h, k);
	}
}
