/* SPDX-License-Identifier: MIT */
/*
 * The Advanced SIMD family (asimd, asimd_nt, asimd_auto): 128-bit loads and
 * stores, which GCC pairs into LDP/STP of q registers.
 *
 * The shape follows the published design of Arm's optimized-routines
 * memcpy/memmove for Advanced SIMD (string/aarch64/memcpy-advsimd.S, read,
 * not copied), the one lib/vec16-copy.h holds for both 16-byte vector
 * families: no byte loops and no alignment work for small sizes, only
 * loads from both ends that overlap in the middle (up to 16, 32, 64 and 128
 * bytes), every load before any store, which makes them memmove-correct
 * without an overlap check; above 128 bytes a loop of 64 bytes per
 * iteration with the destination aligned to 16, the first 16 and the last
 * 64 bytes loaded up front and stored last, and the loop run backward when
 * the destination starts inside the source.
 *
 * The streaming form stores with STNP (store pair, non-temporal hint), as
 * the Linux kernel's arm64 copy_page does (arch/arm64/lib/copy_page.S):
 * the hint lets the core write the lines without allocating them in its
 * caches.  Whether and from what size that pays is unmeasured here (no
 * AArch64 hardware in this project's CI): the policy streams from the
 * non-temporal threshold, which defaults to the cache-size formula.
 */
#include <arm_neon.h>

#include "aarch64.h"

typedef uint8x16_t vec16;

static FM_ALWAYS_INLINE vec16 ld(const u8 *p)
{
	return vld1q_u8(p);
}

static FM_ALWAYS_INLINE void st(u8 *p, vec16 v)
{
	vst1q_u8(p, v);
}

/* 64 bytes at p: four plain stores (two STP), or two STNP.  The accesses
 * vec16-copy.h's copy shape is made of. */
static FM_ALWAYS_INLINE void store64(u8 *p, vec16 a, vec16 b, vec16 c, vec16 e,
				     int nt)
{
	if (nt) {
		__asm__ volatile("stnp %q1, %q2, [%0]\n\t"
				 "stnp %q3, %q4, [%0, #32]"
				 :
				 : "r"(p), "w"(a), "w"(b), "w"(c), "w"(e)
				 : "memory");
		return;
	}
	st(p, a);
	st(p + 16, b);
	st(p + 32, c);
	st(p + 48, e);
}

#include "vec16-copy.h"

/* n <= 128, every load before any store: overlap-safe. */
static FM_ALWAYS_INLINE void copy_upto128(u8 *d, const u8 *s, size_t n)
{
	if (n < 16) {
		fm_copy_lt16(d, s, n);
	} else if (n <= 32) {
		vec16 a = ld(s), b = ld(s + n - 16);
		st(d, a);
		st(d + n - 16, b);
	} else {
		copy_33_128(d, s, n);
	}
}

void *fm_asimd_copy(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (n <= 128)
		copy_upto128(d, s, n);
	else if (fm_fwd_ok(d, s, n))
		copy_fwd(d, s, n, 0);
	else
		copy_bwd(d, s, n);
	return dst;
}

void *copy_asimd(void *dst, const void *src, size_t n)
{
	return fm_asimd_copy(dst, src, n);
}

/* Streams only what does not overlap: an overlapping move reads back what
 * it writes, the case streaming stores lose. */
static void *copy_streaming(void *dst, const void *src, size_t n)
{
	if (n > 128 && !fm_overlaps(dst, src, n)) {
		copy_fwd(dst, src, n, 1);
		return dst;
	}
	return fm_asimd_copy(dst, src, n);
}

void *copy_asimd_nt(void *dst, const void *src, size_t n)
{
	return copy_streaming(dst, src, n);
}

void *copy_asimd_auto(void *dst, const void *src, size_t n, size_t nt_from)
{
	if (n >= nt_from && n >= FM_NT_MIN)
		return copy_streaming(dst, src, n);
	return fm_asimd_copy(dst, src, n);
}

/* The plain entries read the threshold only past the small sizes. */
void *memcpy_asimd_auto(void *dst, const void *src, size_t n)
{
	if (n <= 128) {
		copy_upto128(dst, src, n);
		return dst;
	}
	return copy_asimd_auto(dst, src, n, fm_threshold_ready(FM_OP_MEMCPY));
}

void *memmove_asimd_auto(void *dst, const void *src, size_t n)
{
	if (n <= 128) {
		copy_upto128(dst, src, n);
		return dst;
	}
	return copy_asimd_auto(dst, src, n, fm_threshold_ready(FM_OP_MEMMOVE));
}

/* --- sets ---------------------------------------------------------------- */

/* Overlapping stores from both ends up to 128 bytes, then aligned 64-byte
 * blocks and the last 64 bytes stored at the end, as for the copies. */
void *fm_asimd_set(void *dst, int c, size_t n)
{
	u8 *d = dst, *p, *end;
	vec16 v = vdupq_n_u8((u8)c);

	if (n < 16) {
		fm_set_lt16(d, fm_splat8(c), n);
	} else if (n <= 32) {
		st(d, v);
		st(d + n - 16, v);
	} else if (n <= 64) {
		st(d, v);
		st(d + 16, v);
		st(d + n - 32, v);
		st(d + n - 16, v);
	} else {
		store64(d, v, v, v, v, 0);
		end = d + n - 64;
		for (p = fm_align_down(d + 64, 16); p < end; p += 64)
			store64(p, v, v, v, v, 0);
		store64(end, v, v, v, v, 0);
	}
	return dst;
}

void *set_asimd(void *dst, int c, size_t n)
{
	return fm_asimd_set(dst, c, n);
}

/* --- pages (page-aligned) ------------------------------------------------ */

static FM_ALWAYS_INLINE void copy_page(u8 *d, const u8 *s, int nt)
{
	for (size_t i = 0; i < FM_PAGE_SIZE; i += 128) {
		vec16 a = ld(s + i), b = ld(s + i + 16), c = ld(s + i + 32);
		vec16 e = ld(s + i + 48), f = ld(s + i + 64);
		vec16 g = ld(s + i + 80), h = ld(s + i + 96);
		vec16 k = ld(s + i + 112);

		store64(d + i, a, b, c, e, nt);
		store64(d + i + 64, f, g, h, k, nt);
	}
}

void copy_page_asimd(void *dst, const void *src)
{
	copy_page(dst, src, 0);
}

/* The kernel's arm64 copy_page design: loads, then STNP. */
void copy_page_asimd_nt(void *dst, const void *src)
{
	copy_page(dst, src, 1);
}

void clear_pages_asimd(void *page, size_t npages)
{
	u8 *p = page, *end = p + npages * FM_PAGE_SIZE;
	vec16 z = vdupq_n_u8(0);

	for (; p < end; p += 128) {
		store64(p, z, z, z, z, 0);
		store64(p + 64, z, z, z, z, 0);
	}
}
