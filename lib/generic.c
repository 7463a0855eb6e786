/* SPDX-License-Identifier: MIT */
/*
 * Portable variants: 64-bit words, four per iteration, with the head and tail
 * handled by overlapping unaligned accesses.  They compile on any CPU and are
 * the fallback everywhere.  Built with -fno-builtin
 * -fno-tree-loop-distribute-patterns so the loops stay loops.
 */
#include "internal.h"
#include "small.h"

/*
 * Both loops load the whole head and tail before storing anything and store
 * them last, which is what makes one routine correct for memcpy and for
 * overlapping memmove in either direction.
 */
static void copy_forward(unsigned char *d, const unsigned char *s, size_t n)
{
	uint64_t h[4], t[4], v[4];
	unsigned char *end = d + n - 32, *start = d;
	/* align the stores; the skipped bytes are part of the head */
	size_t skip = 8 - ((uintptr_t)d & 7);

	fm_load_words(h, s, 4);
	fm_load_words(t, s + n - 32, 4);
	d += skip;
	s += skip;
	for (; d < end; d += 32, s += 32) {
		fm_load_words(v, s, 4);
		fm_store_words(d, v, 4);
	}
	fm_store_words(end, t, 4);
	fm_store_words(start, h, 4);
}

static void copy_backward(unsigned char *d, const unsigned char *s, size_t n)
{
	uint64_t h[4], t[4], v[4];
	unsigned char *e = d + n;
	const unsigned char *se = s + n;
	size_t skip = ((uintptr_t)e & 7) ? ((uintptr_t)e & 7) : 8;

	fm_load_words(h, s, 4);
	fm_load_words(t, s + n - 32, 4);
	e -= skip;
	se -= skip;
	for (; e > d + 32; e -= 32, se -= 32) {
		fm_load_words(v, se - 32, 4);
		fm_store_words(e - 32, v, 4);
	}
	fm_store_words(d, h, 4);
	fm_store_words(d + n - 32, t, 4);
}

void *copy_generic(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (n <= 32)
		fm_copy_upto32(d, s, n);
	else if ((uintptr_t)d - (uintptr_t)s >= n)
		copy_forward(d, s, n);
	else
		copy_backward(d, s, n);
	return dst;
}

void *set_generic(void *dst, int c, size_t n)
{
	unsigned char *d = dst, *end;
	uint64_t v = fm_splat8(c);

	if (n <= 32) {
		fm_set_upto32(d, v, n);
		return dst;
	}
	end = d + n - 32;
	fm_store64(d, v);
	fm_store64(d + 8, v);
	fm_store64(d + 16, v);
	fm_store64(d + 24, v);
	d = (unsigned char *)(((uintptr_t)d + 8) & ~(uintptr_t)7);
	while (d < end) {
		fm_store64(d, v);
		fm_store64(d + 8, v);
		fm_store64(d + 16, v);
		fm_store64(d + 24, v);
		d += 32;
	}
	fm_store64(end, v);
	fm_store64(end + 8, v);
	fm_store64(end + 16, v);
	fm_store64(end + 24, v);
	return dst;
}

void copy_page_generic(void *dst, const void *src)
{
	copy_forward(dst, src, FM_PAGE_SIZE);
}

void clear_pages_generic(void *page, size_t npages)
{
	unsigned char *p = page;

	for (; npages; npages--, p += FM_PAGE_SIZE)
		set_generic(p, 0, FM_PAGE_SIZE);
}
