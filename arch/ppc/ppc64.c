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
	uint64_t h = fm_load64(s);
	uint64_t t0 = fm_load64(s + n - 64), t1 = fm_load64(s + n - 56);
	uint64_t t2 = fm_load64(s + n - 48), t3 = fm_load64(s + n - 40);
	uint64_t t4 = fm_load64(s + n - 32), t5 = fm_load64(s + n - 24);
	uint64_t t6 = fm_load64(s + n - 16), t7 = fm_load64(s + n - 8);
	u8 *end = d + n - 64;
	/* align the stores; the skipped 1..8 bytes are the head's */
	size_t skip = 8 - ((uintptr_t)d & 7);
	u8 *p = d + skip;
	const u8 *q = s + skip;

	for (; p < end; p += 64, q += 64) {
		uint64_t a = fm_load64(q), b = fm_load64(q + 8);
		uint64_t c = fm_load64(q + 16), e = fm_load64(q + 24);
		uint64_t f = fm_load64(q + 32), g = fm_load64(q + 40);
		uint64_t i = fm_load64(q + 48), j = fm_load64(q + 56);

		fm_store64(p, a);
		fm_store64(p + 8, b);
		fm_store64(p + 16, c);
		fm_store64(p + 24, e);
		fm_store64(p + 32, f);
		fm_store64(p + 40, g);
		fm_store64(p + 48, i);
		fm_store64(p + 56, j);
	}
	fm_store64(end, t0);
	fm_store64(end + 8, t1);
	fm_store64(end + 16, t2);
	fm_store64(end + 24, t3);
	fm_store64(end + 32, t4);
	fm_store64(end + 40, t5);
	fm_store64(end + 48, t6);
	fm_store64(end + 56, t7);
	fm_store64(d, h);
}

/* n > 64; correct unless src starts inside (dst, dst + n). */
static void copy_bwd(u8 *d, const u8 *s, size_t n)
{
	uint64_t h0 = fm_load64(s), h1 = fm_load64(s + 8);
	uint64_t h2 = fm_load64(s + 16), h3 = fm_load64(s + 24);
	uint64_t h4 = fm_load64(s + 32), h5 = fm_load64(s + 40);
	uint64_t h6 = fm_load64(s + 48), h7 = fm_load64(s + 56);
	uint64_t t = fm_load64(s + n - 8);
	/* align the stores; the skipped 1..8 bytes are the tail's */
	u8 *e = fm_align_down(d + n - 1, 8);
	const u8 *se = s + (e - d);

	while (e > d + 64) {
		uint64_t a = fm_load64(se - 8), b = fm_load64(se - 16);
		uint64_t c = fm_load64(se - 24), f = fm_load64(se - 32);
		uint64_t g = fm_load64(se - 40), i = fm_load64(se - 48);
		uint64_t j = fm_load64(se - 56), k = fm_load64(se - 64);

		fm_store64(e - 8, a);
		fm_store64(e - 16, b);
		fm_store64(e - 24, c);
		fm_store64(e - 32, f);
		fm_store64(e - 40, g);
		fm_store64(e - 48, i);
		fm_store64(e - 56, j);
		fm_store64(e - 64, k);
		e -= 64;
		se -= 64;
	}
	fm_store64(d, h0);
	fm_store64(d + 8, h1);
	fm_store64(d + 16, h2);
	fm_store64(d + 24, h3);
	fm_store64(d + 32, h4);
	fm_store64(d + 40, h5);
	fm_store64(d + 48, h6);
	fm_store64(d + 56, h7);
	fm_store64(d + n - 8, t);
}

/* 32 < n <= 64: four doublewords from each end, all loaded first. */
static inline void copy_33_64(u8 *d, const u8 *s, size_t n)
{
	uint64_t a = fm_load64(s), b = fm_load64(s + 8);
	uint64_t c = fm_load64(s + 16), e = fm_load64(s + 24);
	uint64_t w = fm_load64(s + n - 32), x = fm_load64(s + n - 24);
	uint64_t y = fm_load64(s + n - 16), z = fm_load64(s + n - 8);

	fm_store64(d, a);
	fm_store64(d + 8, b);
	fm_store64(d + 16, c);
	fm_store64(d + 24, e);
	fm_store64(d + n - 32, w);
	fm_store64(d + n - 24, x);
	fm_store64(d + n - 16, y);
	fm_store64(d + n - 8, z);
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
	fm_u64a *d = dst;
	const fm_u64a *s = src;

	for (size_t i = 0; i < FM_PAGE_SIZE; i += FM_PPC_LINE)
		fm_dcbt((const u8 *)src + i);
	for (size_t i = 0; i < FM_PAGE_SIZE / 8; i += 16) {
		uint64_t a0 = s[i], a1 = s[i + 1], a2 = s[i + 2];
		uint64_t a3 = s[i + 3], a4 = s[i + 4], a5 = s[i + 5];
		uint64_t a6 = s[i + 6], a7 = s[i + 7];

		d[i] = a0;
		d[i + 1] = a1;
		d[i + 2] = a2;
		d[i + 3] = a3;
		d[i + 4] = a4;
		d[i + 5] = a5;
		d[i + 6] = a6;
		d[i + 7] = a7;
		a0 = s[i + 8], a1 = s[i + 9], a2 = s[i + 10];
		a3 = s[i + 11], a4 = s[i + 12], a5 = s[i + 13];
		a6 = s[i + 14], a7 = s[i + 15];
		d[i + 8] = a0;
		d[i + 9] = a1;
		d[i + 10] = a2;
		d[i + 11] = a3;
		d[i + 12] = a4;
		d[i + 13] = a5;
		d[i + 14] = a6;
		d[i + 15] = a7;
	}
}

void copy_page_ppc64(void *dst, const void *src)
{
	fm_ppc64_copy_page(dst, src);
}
