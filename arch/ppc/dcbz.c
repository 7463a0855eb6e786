/* SPDX-License-Identifier: MIT */
/*
 * Zeroing with dcbz (set_dcbz, clear_pages_dcbz): one instruction clears a
 * whole cache line in the cache, without reading it from memory first.
 * Only zero can be set this way, so memset of any other value, and memsets
 * too short to hold a few whole lines, go to the portable code; so does
 * everything when the probe in cpu.c has not verified the dcbz size.
 */
#include "ppc.h"

/* Below this, the partial lines at both ends are most of the work. */
#define SET_DCBZ_MIN 512

static void dcbz_lines(u8 *p, const u8 *end, unsigned g)
{
	for (; p < end; p += FM_PPC_LINE)
		fm_dcbz_line(p, g);
}

void *set_dcbz(void *dst, int c, size_t n)
{
	u8 *d = dst, *p, *e;
	unsigned g = fm_ppc_dcbz_size();

	if ((unsigned char)c || n < SET_DCBZ_MIN || !g)
		return set_generic(dst, c, n);
	p = fm_align_up(d, FM_PPC_LINE);
	e = fm_align_down(d + n, FM_PPC_LINE);
	set_generic(d, 0, (size_t)(p - d));
	dcbz_lines(p, e, g);
	set_generic(e, 0, (size_t)(d + n - e));
	return dst;
}

void clear_pages_dcbz(void *page, size_t npages)
{
	u8 *p = page;
	unsigned g = fm_ppc_dcbz_size();

	if (!g) {
		set_generic(page, 0, npages * FM_PAGE_SIZE);
		return;
	}
	dcbz_lines(p, p + npages * FM_PAGE_SIZE, g);
}
