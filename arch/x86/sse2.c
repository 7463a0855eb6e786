/* SPDX-License-Identifier: MIT */
/*
 * SSE2 variants: 16-byte xmm vectors, unaligned loads and aligned stores
 * (movdqu/movdqa), movntdq for streaming.  The copy and set algorithms are
 * vecops.h's; the streaming page copy is the 2005 thread's xmm_copy_page
 * (prefetchnta five lines ahead of aligned loads, movntdq stores).
 */
#include "x86.h"

#define FAMILY sse2
#define VEC 16
#define vec_t __m128i
#define VLOADU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define VLOADA(p) _mm_load_si128((const __m128i *)(const void *)(p))
#define VSTOREU(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define VSTOREA(p, v) _mm_store_si128((__m128i *)(void *)(p), (v))
#define VSTREAM(p, v) _mm_stream_si128((__m128i *)(void *)(p), (v))
#define VSPLAT(c) _mm_set1_epi8((char)(c))
#define VZERO() _mm_setzero_si128()

#include "vecops.h"

void copy_page_sse2(void *dst, const void *src)
{
	page_copy(dst, src);
}

void copy_page_sse2_nt(void *dst, const void *src)
{
	page_copy_nt(dst, src, 5 * FM_LINE);
	_mm_sfence();
}

void copy_page_sse2_auto(void *dst, const void *src, size_t thr)
{
	if (FM_PAGE_SIZE >= thr)
		copy_page_sse2_nt(dst, src);
	else
		page_copy(dst, src);
}

void clear_pages_sse2_nt(void *page, size_t npages)
{
	pages_clear_nt(page, npages);
}

void clear_pages_sse2_auto(void *page, size_t npages, size_t thr)
{
	pages_clear_auto(page, npages, thr);
}
