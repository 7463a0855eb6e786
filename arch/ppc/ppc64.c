/* SPDX-License-Identifier: MIT */
/*
 * The ppc64 family: plain ld/std, eight doublewords per iteration, stores
 * aligned, loads at whatever alignment the source has (64-bit PowerPC loads
 * unaligned doublewords in hardware).  It runs on every 64-bit PowerPC and
 * is what the cache-control families fall back on for short and
 * overlapping copies.
 *
 * As in lib/generic.c, the head and tail are loaded before anything is
 * stored and stored last, which makes one routine correct for memcpy and
 * for overlapping memmove in either direction.
 */
#include "ppc.h"

/* n > 64; correct unless dst starts inside (src, src + n). */
static void copy_fwd(u8 *d, const u8 *s, size_t n)
{
	uint64_t h = fm_load64(s), t[8], v[8];
	u8 *end = d + n - 64;
	/* align the stores; the skipped 1..8 bytes are the head's */
	size_t skip = 8 - ((uintptr_t)d & 7);
	u8 *p = d + skip;
	const u8 *q = s + skip;

	fm_load_words(t, s + n - 64, 8);
	for (; p < end; p += 64, q += 64) {
		fm_load_words(v, q, 8);
		fm_store_words(p, v, 8);
	}
	fm_store_words(end, t, 8);
	fm_store64(d, h);
}

/* n > 64; correct unless src starts inside (dst, dst + n). */
static void copy_bwd(u8 *d, const u8 *s, size_t n)
{
	uint64_t h[8], v[8], t = fm_load64(s + n - 8);
	/* align the stores; the skipped 1..8 bytes are the tail's */
	u8 *e = fm_align_down(d + n - 1, 8);
	const u8 *se = s + (e - d);

	fm_load_words(h, s, 8);
	for (; e > d + 64; e -= 64, se -= 64) {
		fm_load_words(v, se - 64, 8);
		fm_store_words(e - 64, v, 8);
	}
	fm_store_words(d, h, 8);
	fm_store64(d + n - 8, t);
}

/* 32 < n <= 64: four doublewords from each end, all loaded first. */
static inline void copy_33_64(u8 *d, const u8 *s, size_t n)
{
	uint64_t h[4], t[4];

	fm_load_words(h, s, 4);
	fm_load_words(t, s + n - 32, 4);
	fm_store_words(d, h, 4);
	fm_store_words(d + n - 32, t, 4);
}

void *fm_ppc64_copy(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (n <= 32)
		fm_copy_upto32(d, s, n);
	else if (n <= 64)
		copy_33_64(d, s, n);
	else if (fm_fwd_ok(d, s, n))
		copy_fwd(d, s, n);
	else
		copy_bwd(d, s, n);
	return dst;
}

void *copy_ppc64(void *dst, const void *src, size_t n)
{
	return fm_ppc64_copy(dst, src, n);
}

/*
 * Page copy after the kernel's copy_page for POWER4 and later: touch the
 * whole source page with dcbt first, so the loads find it on its way in,
 * then copy a line per iteration.
 */
void fm_ppc64_copy_page(void *dst, const void *src)
{
	u8 *d = dst;
	const u8 *s = src;
	uint64_t v[8];

	for (size_t i = 0; i < FM_PAGE_SIZE; i += FM_PPC_LINE)
		fm_dcbt(s + i);
	for (size_t i = 0; i < FM_PAGE_SIZE; i += 64) {
		fm_load_words(v, s + i, 8);
		fm_store_words(d + i, v, 8);
	}
}

void copy_page_ppc64(void *dst, const void *src)
{
	fm_ppc64_copy_page(dst, src);
}
