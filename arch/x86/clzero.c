/* SPDX-License-Identifier: MIT */
/*
 * CLZERO (AMD): zeroes a whole 64-byte cache line without reading it.  Like
 * the movnt stores it is weakly ordered, so the run ends with sfence.  Inline
 * asm (fm_clzero_range in x86.h): the intrinsic would need -mclzero.  Past
 * the cache it clears 1.3-1.9x faster than streaming stores on Zen 5; on
 * lines that are in the cache it is several times slower than plain stores.
 */
#include "x86.h"

void clear_pages_clzero(void *page, size_t npages)
{
	unsigned char *p = page;

	fm_clzero_range(p, p + npages * FM_PAGE_SIZE);
}
