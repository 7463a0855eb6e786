/* SPDX-License-Identifier: MIT */
/*
 * AVX2 variants: 32-byte ymm vectors.  The copy and set algorithms are
 * vecops.h's.
 */
#include "x86.h"

#define FAMILY avx2
#define VEC 32
#define vec_t __m256i
#define VLOADU(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define VLOADA(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define VSTOREU(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define VSTOREA(p, v) _mm256_store_si256((__m256i *)(void *)(p), (v))
#define VSTREAM(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (v))
#define VSPLAT(c) _mm256_set1_epi8((char)(c))
#define VZERO() _mm256_setzero_si256()

#include "vecops.h"

void clear_pages_avx2(void *page, size_t npages)
{
	pages_clear(page, npages);
}

void clear_pages_avx2_auto(void *page, size_t npages, size_t thr)
{
	pages_clear_auto(page, npages, thr);
}
