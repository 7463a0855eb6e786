/* SPDX-License-Identifier: MIT */
/*
 * AVX-512 variants (F, BW and VL, and BMI2 for bzhi; built with only those
 * flags): 64-byte zmm vectors, and byte-masked loads and stores below 64
 * bytes, which need no size ladder of branches.  The copy and set
 * algorithms are vecops.h's.
 *
 * On x86-64, GCC builds this file with xmm0-15 reserved
 * (AVX512_REGS_CFLAGS in configure.ac), so that it keeps to zmm16-31 as
 * glibc's avx512 and evex string functions do: those leave no dirty upper
 * state, and no function here needs a vzeroupper before it returns.
 */
#include "x86.h"

#define FAMILY avx512
#define VEC 64
#define vec_t __m512i
#define VLOADU(p) _mm512_loadu_si512((const void *)(p))
#define VLOADA(p) _mm512_load_si512((const void *)(p))
#define VSTOREU(p, v) _mm512_storeu_si512((void *)(p), (v))
#define VSTOREA(p, v) _mm512_store_si512((void *)(p), (v))
#define VSTREAM(p, v) _mm512_stream_si512((__m512i *)(void *)(p), (v))
#define VSPLAT(c) _mm512_set1_epi8((char)(c))
#define VZERO() _mm512_setzero_si512()

/* The first n <= 64 bytes (bzhi keeps every bit from 64 on) */
static inline __mmask64 mask_le64(size_t n)
{
#ifdef __x86_64__
	return _cvtu64_mask64(_bzhi_u64(~0ull, (unsigned)n));
#else
	/* no 64-bit bzhi on i386 */
	return _cvtu64_mask64(n >= 64 ? ~0ull : (1ull << n) - 1);
#endif
}

/*
 * n <= 64 bytes in one masked load and store, without a ladder of size
 * branches.  Masked-off bytes are neither read nor written and cannot fault,
 * but where they reach an unmapped or not yet faulted page the access takes
 * an assist of ~700 cycles on Zen 5 (an 8-byte copy ending at a guard page
 * took 674 TSC ticks instead of 4): rare enough that no check for a page's
 * end pays for itself (copy_small() and set_small() in vecops.h).
 */
static inline void mask_copy(unsigned char *d, const unsigned char *s, size_t n)
{
	__mmask64 k = mask_le64(n);

	_mm512_mask_storeu_epi8(d, k, _mm512_maskz_loadu_epi8(k, s));
}

static inline void mask_set(unsigned char *d, int c, size_t n)
{
	_mm512_mask_storeu_epi8(d, mask_le64(n), VSPLAT(c));
}

#define VMASK_COPY mask_copy
#define VMASK_SET mask_set

#include "vecops.h"

void copy_page_avx512(void *dst, const void *src)
{
	page_copy(dst, src);
}

void copy_page_avx512_nt(void *dst, const void *src)
{
	page_copy_nt(dst, src, 0);
	_mm_sfence();
}

/* One page is read back soon: temporal unless thr says otherwise. */
void copy_page_avx512_auto(void *dst, const void *src, size_t thr)
{
	if (FM_PAGE_SIZE >= thr)
		copy_page_avx512_nt(dst, src);
	else
		page_copy(dst, src);
}

void clear_pages_avx512(void *page, size_t npages)
{
	pages_clear(page, npages);
}

void clear_pages_avx512_nt(void *page, size_t npages)
{
	pages_clear_nt(page, npages);
}

void clear_pages_avx512_auto(void *page, size_t npages, size_t thr)
{
	pages_clear_auto(page, npages, thr);
}
