/* SPDX-License-Identifier: MIT */
/*
 * MOVNTI page variants: non-temporal stores from general registers only
 * (SSE2's movnti), as in the 2021 clear_page_movnt patch: no vector state is
 * touched.  64-bit stores on x86-64, 32-bit ones on i686.
 */
#include "x86.h"

#ifdef __x86_64__
typedef long long word;
#define STREAM(p, v) _mm_stream_si64((long long *)(void *)(p), (v))
#else
typedef int word;
#define STREAM(p, v) _mm_stream_si32((int *)(void *)(p), (v))
#endif

#define W ((int)sizeof(word))

void copy_page_movnti(void *dst, const void *src)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	for (size_t i = 0; i < FM_PAGE_SIZE; i += FM_LINE) {
		const word *q = (const word *)(const void *)(s + i);

		_mm_prefetch((const char *)s + i + 512, _MM_HINT_NTA);
		for (int k = 0; k < FM_LINE / W; k += 4) {
			word a = q[k], b = q[k + 1], c = q[k + 2], e = q[k + 3];

			STREAM(d + i + k * W, a);
			STREAM(d + i + (k + 1) * W, b);
			STREAM(d + i + (k + 2) * W, c);
			STREAM(d + i + (k + 3) * W, e);
		}
	}
	_mm_sfence();
}

void clear_pages_movnti(void *page, size_t npages)
{
	unsigned char *p = page, *end = p + npages * FM_PAGE_SIZE;
	word z = 0;

	for (; p < end; p += FM_LINE)
		for (int k = 0; k < FM_LINE; k += W)
			STREAM(p + k, z);
	_mm_sfence();
}
