/* SPDX-License-Identifier: MIT */
/*
 * Zeroing with DC ZVA (set_zva, clear_pages_zva): one instruction zeroes a
 * whole block, its size given by DCZID_EL0, without reading it from memory
 * first; the AArch64 counterpart of PowerPC's dcbz.  Arm's optimized-routines
 * memset and the Linux kernel's arm64 clear_page zero this way (read, not
 * copied).  Only zero can be set this way, so memset of any other value,
 * and zeroes too short to hold a few whole blocks, go to the Advanced SIMD
 * set; so does everything when the probe in cpu.c has not verified the
 * block size (fm_zva_size() is 0).
 */
#include "aarch64.h"

/* Below this many blocks the partial blocks at both ends, stored the
 * ordinary way, are most of the work (optimized-routines starts at 160
 * bytes for a 64-byte block; 256 here, and four blocks for larger ones). */
#define ZVA_MIN_BYTES 256
#define ZVA_MIN_BLOCKS 4

static void zva_blocks(u8 *p, const u8 *end, unsigned block)
{
	for (; p < end; p += block)
		fm_dc_zva(p);
}

void *set_zva(void *dst, int c, size_t n)
{
	u8 *d = dst, *p, *e;
	unsigned block = fm_zva_size();

	if ((unsigned char)c || !block || n < ZVA_MIN_BYTES ||
	    n < ZVA_MIN_BLOCKS * (size_t)block)
		return fm_asimd_set(dst, c, n);
	p = fm_align_up(d, block);
	e = fm_align_down(d + n, block);
	fm_asimd_set(d, 0, (size_t)(p - d));
	zva_blocks(p, e, block);
	fm_asimd_set(e, 0, (size_t)(d + n - e));
	return dst;
}

/* Page-aligned; every block size the probe accepts divides a page. */
void clear_pages_zva(void *page, size_t npages)
{
	u8 *p = page;
	unsigned block = fm_zva_size();

	if (!block) {
		fm_asimd_set(page, 0, npages * FM_PAGE_SIZE);
		return;
	}
	zva_blocks(p, p + npages * FM_PAGE_SIZE, block);
}
