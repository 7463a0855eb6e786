/* SPDX-License-Identifier: MIT */
/*
 * The string-instruction variants: rep movsb/stosb (fast with ERMS, and for
 * short copies with FSRM), rep movsq/stosq for whole pages.  Inline asm
 * because C cannot say "rep movsb".
 */
#include "internal.h"
#include "small.h"

static inline void rep_movsb(void *d, const void *s, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static inline void rep_stosb(void *d, int c, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
}

void *copy_erms(void *dst, const void *src, size_t n)
{
	if (n <= 32) {
		fm_copy_upto32(dst, src, n);
		return dst;
	}
	/* rep movsb only runs forwards fast; backward overlap goes word-wise */
	if ((uintptr_t)dst - (uintptr_t)src < n)
		return copy_generic(dst, src, n);
	rep_movsb(dst, src, n);
	return dst;
}

void *set_erms(void *dst, int c, size_t n)
{
	if (n <= 32) {
		fm_set_upto32(dst, fm_splat8(c), n);
		return dst;
	}
	rep_stosb(dst, c, n);
	return dst;
}

void clear_pages_rep_stosb(void *page, size_t npages)
{
	rep_stosb(page, 0, npages * FM_PAGE_SIZE);
}

#ifdef __x86_64__
void copy_page_rep_movsq(void *dst, const void *src)
{
	size_t n = FM_PAGE_SIZE / 8;

	__asm__ volatile("rep movsq"
			 : "+D"(dst), "+S"(src), "+c"(n)
			 :
			 : "memory");
}

void clear_pages_rep_stosq(void *page, size_t npages)
{
	size_t n = npages * (FM_PAGE_SIZE / 8);

	__asm__ volatile("rep stosq" : "+D"(page), "+c"(n) : "a"(0) : "memory");
}
#else
void copy_page_rep_movsd(void *dst, const void *src)
{
	size_t n = FM_PAGE_SIZE / 4;

	__asm__ volatile("rep movsl"
			 : "+D"(dst), "+S"(src), "+c"(n)
			 :
			 : "memory");
}

void clear_pages_rep_stosd(void *page, size_t npages)
{
	size_t n = npages * (FM_PAGE_SIZE / 4);

	__asm__ volatile("rep stosl" : "+D"(page), "+c"(n) : "a"(0) : "memory");
}
#endif
