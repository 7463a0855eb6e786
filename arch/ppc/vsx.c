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
 * The shape (lib/vec16-copy.h, shared with the AArch64 asimd family)
 * follows the published design of glibc's POWER8 and POWER10 string
 * routines (sysdeps/powerpc/powerpc64/power8, power10; read, not copied),
 * which rely on POWER8 and later handling unaligned VSX accesses
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

typedef __vector unsigned char vec16;

static FM_ALWAYS_INLINE vec16 ld(const u8 *p)
{
	return vec_xl(0, (const unsigned char *)p);
}

static FM_ALWAYS_INLINE void st(u8 *p, vec16 v)
{
	vec_xst(v, 0, (unsigned char *)p);
}

/* no streaming store in this family: nt is ignored */
static FM_ALWAYS_INLINE void store64(u8 *p, vec16 a, vec16 b, vec16 c, vec16 e,
				     int nt)
{
	(void)nt;
	st(p, a);
	st(p + 16, b);
	st(p + 32, c);
	st(p + 48, e);
}

#include "vec16-copy.h"

/*
 * The forward copy as a function of its own, as it was before the shape was
 * shared: with the shared copy_fwd (always inline, for asimd's two store
 * kinds) inlined straight into copy_vsx, GCC 12 laid copy_vsx out with the
 * forward loop first, the 33-128 byte copies behind a taken branch and a
 * register saved on the stack.  Through this, copy_vsx's object code is the
 * same instruction for instruction as the unshared version's.
 */
static void copy_forward(u8 *d, const u8 *s, size_t n)
{
	copy_fwd(d, s, n, 0);
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
		copy_forward(d, s, n);
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
		vec16 a = ld(s + i), b = ld(s + i + 16), c = ld(s + i + 32);
		vec16 e = ld(s + i + 48), f = ld(s + i + 64);
		vec16 g = ld(s + i + 80), h = ld(s + i + 96);
		vec16 k = ld(s + i + 112);

		store64(d + i, a, b, c, e, 0);
		store64(d + i + 64, f, g, h, k, 0);
	}
}
