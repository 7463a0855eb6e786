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
	uint64_t h0 = fm_load64(s), h1 = fm_load64(s + 8);
	uint64_t h2 = fm_load64(s + 16), h3 = fm_load64(s + 24);
	uint64_t t0 = fm_load64(s + n - 32), t1 = fm_load64(s + n - 24);
	uint64_t t2 = fm_load64(s + n - 16), t3 = fm_load64(s + n - 8);
	unsigned char *end = d + n - 32;
	/* align the stores; the skipped bytes are part of the head */
	size_t skip = 8 - ((uintptr_t)d & 7);

	d += skip;
	s += skip;
	while (d < end) {
		uint64_t a = fm_load64(s), b = fm_load64(s + 8);
		uint64_t c = fm_load64(s + 16), e = fm_load64(s + 24);
		fm_store64(d, a);
		fm_store64(d + 8, b);
		fm_store64(d + 16, c);
		fm_store64(d + 24, e);
		d += 32;
		s += 32;
	}
	fm_store64(end, t0);
	fm_store64(end + 8, t1);
	fm_store64(end + 16, t2);
	fm_store64(end + 24, t3);
	d = end + 32 - n;
	fm_store64(d, h0);
	fm_store64(d + 8, h1);
	fm_store64(d + 16, h2);
	fm_store64(d + 24, h3);
}

static void copy_backward(unsigned char *d, const unsigned char *s, size_t n)
{
	uint64_t h0 = fm_load64(s), h1 = fm_load64(s + 8);
	uint64_t h2 = fm_load64(s + 16), h3 = fm_load64(s + 24);
	uint64_t t0 = fm_load64(s + n - 32), t1 = fm_load64(s + n - 24);
	uint64_t t2 = fm_load64(s + n - 16), t3 = fm_load64(s + n - 8);
	unsigned char *start = d;
	unsigned char *e = d + n;
	const unsigned char *se = s + n;
	size_t skip = ((uintptr_t)e & 7) ? ((uintptr_t)e & 7) : 8;

	e -= skip;
	se -= skip;
	while (e > start + 32) {
		uint64_t a = fm_load64(se - 8), b = fm_load64(se - 16);
		uint64_t c = fm_load64(se - 24), f = fm_load64(se - 32);
		fm_store64(e - 8, a);
		fm_store64(e - 16, b);
		fm_store64(e - 24, c);
		fm_store64(e - 32, f);
		e -= 32;
		se -= 32;
	}
	fm_store64(start, h0);
	fm_store64(start + 8, h1);
	fm_store64(start + 16, h2);
	fm_store64(start + 24, h3);
	e = start + n;
	fm_store64(e - 32, t0);
	fm_store64(e - 24, t1);
	fm_store64(e - 16, t2);
	fm_store64(e - 8, t3);
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
