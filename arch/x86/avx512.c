/* SPDX-License-Identifier: MIT */
/*
 * AVX-512 variants (F, BW and VL, and BMI2 for bzhi; built with only those
 * flags): 64-byte zmm vectors, and byte-masked loads and stores below 64
 * bytes, which need no size ladder of branches.  The copy and set
 * algorithms are vecops.h's.
 *
 * Built twice (Makefile.am): as the avx512 family, and with AVX512_ZEN4 as
 * the avx512_zen4 family, the same code but for two choices the Zen 4
 * guest's measurements made (mask_copy and SET_LE8_IN_ORDER below), for the
 * CPU classes that ask for it (avx512_zen4 in arch/x86/classes.c).
 *
 * On x86-64, GCC builds this file with xmm0-15 reserved
 * (AVX512_REGS_CFLAGS in configure.ac), so that it keeps to zmm16-31 as
 * glibc's avx512 and evex string functions do: those leave no dirty upper
 * state, and no function here needs a vzeroupper before it returns.
 */
#include "x86.h"

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
 * n <= 64 bytes in one masked store, without a ladder of size branches.
 * Masked-off bytes are neither read nor written and cannot fault, but where
 * they reach an unmapped or not yet faulted page the access takes an assist
 * of ~700 cycles on Zen 5 (an 8-byte copy ending at a guard page took 674
 * TSC ticks instead of 4): rare enough that no check for a page's end pays
 * for itself (copy_small() and set_small() in vecops.h).
 */
#ifdef AVX512_ZEN4
#define FAMILY avx512_zen4

/*
 * Loaded as two masked ymm halves.  On the Zen 4 guest a zmm load that
 * misses the caches costs more than two ymm loads of the same bytes:
 * random 1-64 B copies in a 1 GiB arena took 56 TSC ticks a call with one
 * masked zmm load, 45 with two masked ymm loads (glibc 40; in L1 all
 * tied).  Over the replays (docs/measurements/zen4-guest.md#copy_ld256),
 * medians of 4: memory arena 1.08-1.10x faster, LLC 1.03-1.04x, L1 and hot
 * sizes 1.00x.
 * Not kept: the second half at s + n - 32, or at s below 33 bytes so as to
 * touch no line the bytes do not need (its address then waits on n):
 * memory 1.13-1.28x but L1 0.94x; every load of the family in ymm halves
 * (the loops too): memory 1.07-1.12x, hot 256 B 0.93x.  GCC 12 cannot
 * allocate _mm512_inserti64x4 with xmm0-15 reserved: the halves join in
 * asm.
 */
static inline void mask_copy(unsigned char *d, const unsigned char *s, size_t n)
{
	__mmask64 k = mask_le64(n);
	__m256i lo = _mm256_maskz_loadu_epi8((__mmask32)k, s);
	__m256i hi = _mm256_maskz_loadu_epi8((__mmask32)(k >> 32), s + 32);
	__m512i v;

	__asm__("vinserti64x4 $1, %t2, %g1, %0" : "=v"(v) : "v"(lo), "v"(hi));
	_mm512_mask_storeu_epi8(d, k, v);
}
#else
#define FAMILY avx512

static inline void mask_copy(unsigned char *d, const unsigned char *s, size_t n)
{
	__mmask64 k = mask_le64(n);

	_mm512_mask_storeu_epi8(d, k, _mm512_maskz_loadu_epi8(k, s));
}
#endif

#define VMASK_COPY mask_copy

static inline void mask_set(unsigned char *d, int c, size_t n)
{
	_mm512_mask_storeu_epi8(d, mask_le64(n), VSPLAT(c));
}

#define VMASK_SET mask_set

#ifdef AVX512_ZEN4
/*
 * Sets of more than 4 and up to 8 VEC (257-512 B) in address order
 * (vecops-set.h, set_le8).  On the Zen 4 guest, hot sets of 384 and 512 B
 * to dst + 13 ran 0.88-0.92x glibc with the order the avx512 build keeps
 * (the first two and last two vectors, then the middle four), 1.11x faster
 * in order; every replay table within 0.994-1.004
 * (docs/measurements/zen4-guest.md#set_le8_in_order).
 * Not kept: sets of up to 128 B as two masked stores, without the branch
 * at 64: replayed sets 1.14-1.18x faster in L1 but 0.85-0.87x from memory,
 * where the second store costs even on the first one's line.
 */
#define SET_LE8_IN_ORDER
#else
/*
 * The order of sets of 4-8 VEC that this build was last measured with
 * (Zen 5, the Xeons); the other orders were measured on Zen 3 (avx2 and
 * sse2) and Zen 4 (avx512_zen4) only.
 */
#define SET_LE8_ENDS_FIRST
#endif

#include "vecops.h"

#ifndef AVX512_ZEN4
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
#endif
