/* SPDX-License-Identifier: MIT */
/*
 * EVEX variants (AVX-512 F, BW and VL, and BMI2 for bzhi): 32-byte ymm
 * vectors, with byte-masked loads and stores below 32 bytes.  PROTOTYPE.
 */
#include "x86.h"

#define FAMILY evex
#define VEC 32
#define vec_t __m256i
#define VLOADU(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define VLOADA(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define VSTOREU(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define VSTOREA(p, v) _mm256_store_si256((__m256i *)(void *)(p), (v))
#define VSTREAM(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (v))
#define VSPLAT(c) _mm256_set1_epi8((char)(c))
#define VZERO() _mm256_setzero_si256()

static inline __mmask32 mask_le32(size_t n)
{
	return _cvtu32_mask32(_bzhi_u32(~0u, (unsigned)n));
}

static inline void mask_copy(unsigned char *d, const unsigned char *s, size_t n)
{
	__mmask64 k = _cvtu64_mask64(_bzhi_u64(~0ull, (unsigned)n));

	_mm512_mask_storeu_epi8(d, k, _mm512_maskz_loadu_epi8(k, s));
}
#define VMASK_BYTES 64

#define VMASK_COPY mask_copy

static inline void mask_set(unsigned char *d, int c, size_t n)
{
	_mm256_mask_storeu_epi8(d, mask_le32(n), VSPLAT(c));
}

#define VMASK_SET mask_set

#include "vecops.h"
