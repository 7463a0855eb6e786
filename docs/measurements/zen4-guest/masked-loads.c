/* SPDX-License-Identifier: MIT */
/*
 * Copies of 1..MAX bytes at random offsets in an arena of REGION bytes, one
 * way of loading and storing them per row, all rows interleaved in each of
 * 15 runs of 65536 calls; TSC ticks per call, best run, and the speed
 * relative to glibc's memcpy.  Written to find what made the avx512
 * family's masked copies of up to 64 bytes slow in the replay's memory
 * arena on the Zen 4 guest (zen4-guest.md, "copy_ld256").
 *
 *   gcc -O2 -mavx512f -mavx512bw -mavx512vl -mbmi2 masked-loads.c
 *   ./a.out MAX REGION [aligned]      (e.g. 64 1073741824)
 *
 * "aligned" puts every source and destination on a 64-byte line.  Rows
 * that ignore the size (full vectors) copy 64 bytes whatever n is.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

typedef unsigned char u8;
typedef void copy_fn(u8 *d, const u8 *s, size_t n);

static inline __mmask64 mask_le64(size_t n)
{
	return _cvtu64_mask64(_bzhi_u64(~0ull, (unsigned)n));
}

static inline __m512i join(__m256i lo, __m256i hi)
{
	return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

/* the avx512 family: one masked zmm load and store */
__attribute__((noinline)) static void zmm_masked(u8 *d, const u8 *s, size_t n)
{
	__mmask64 k = mask_le64(n);

	_mm512_mask_storeu_epi8(d, k, _mm512_maskz_loadu_epi8(k, s));
}

/* avx512_ld256: two masked ymm loads at s and s + 32, one masked zmm store */
__attribute__((noinline)) static void ymm_halves(u8 *d, const u8 *s, size_t n)
{
	__mmask64 k = mask_le64(n);
	__m256i lo = _mm256_maskz_loadu_epi8((__mmask32)k, s);
	__m256i hi = _mm256_maskz_loadu_epi8((__mmask32)(k >> 32), s + 32);

	_mm512_mask_storeu_epi8(d, k, join(lo, hi));
}

/* the second half at s below 33 bytes: no line the bytes do not need */
__attribute__((noinline)) static void ymm_halves_cmov(u8 *d, const u8 *s,
						      size_t n)
{
	__mmask64 k = mask_le64(n);
	size_t off = n > 32 ? 32 : 0;
	__m256i lo = _mm256_maskz_loadu_epi8((__mmask32)k, s);
	__m256i hi = _mm256_maskz_loadu_epi8((__mmask32)(k >> 32), s + off);

	_mm512_mask_storeu_epi8(d, k, join(lo, hi));
}

/* head and tail ymm at s and s + n - 32 (s below 33 bytes), two stores */
__attribute__((noinline)) static void ymm_head_tail(u8 *d, const u8 *s,
						    size_t n)
{
	__mmask32 k = _cvtu32_mask32(_bzhi_u32(~0u, (unsigned)n));
	size_t off = n > 32 ? n - 32 : 0;
	__m256i a = _mm256_maskz_loadu_epi8(k, s);
	__m256i b = _mm256_maskz_loadu_epi8(k, s + off);

	_mm256_mask_storeu_epi8(d, k, a);
	_mm256_mask_storeu_epi8(d + off, k, b);
}

/* no masks at all: the width, not the mask */
__attribute__((noinline)) static void zmm_full(u8 *d, const u8 *s, size_t n)
{
	(void)n;
	_mm512_storeu_si512(d, _mm512_loadu_si512(s));
}

/* a zmm load, two masked ymm stores: the load, not the store */
__attribute__((noinline)) static void zmm_load_ymm_stores(u8 *d, const u8 *s,
							  size_t n)
{
	__mmask64 k = mask_le64(n);
	__m512i v = _mm512_maskz_loadu_epi8(k, s);

	_mm256_mask_storeu_epi8(d, (__mmask32)k, _mm512_castsi512_si256(v));
	_mm256_mask_storeu_epi8(d + 32, (__mmask32)(k >> 32),
				_mm512_extracti64x4_epi64(v, 1));
}

/* glibc's kind of ladder: overlapping pairs of one width per class */
__attribute__((noinline)) static void ladder(u8 *d, const u8 *s, size_t n)
{
	if (n >= 32) {
		__m256i a = _mm256_loadu_si256((const void *)s);
		__m256i b = _mm256_loadu_si256((const void *)(s + n - 32));

		_mm256_storeu_si256((void *)d, a);
		_mm256_storeu_si256((void *)(d + n - 32), b);
	} else if (n >= 16) {
		__m128i a = _mm_loadu_si128((const void *)s);
		__m128i b = _mm_loadu_si128((const void *)(s + n - 16));

		_mm_storeu_si128((void *)d, a);
		_mm_storeu_si128((void *)(d + n - 16), b);
	} else if (n >= 8) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else if (n) {
		u8 a = s[0], b = s[n / 2], c = s[n - 1];

		d[0] = a;
		d[n / 2] = b;
		d[n - 1] = c;
	}
}

__attribute__((noinline)) static void libc(u8 *d, const u8 *s, size_t n)
{
	memcpy(d, s, n);
}

static const struct {
	const char *name;
	copy_fn *fn;
} rows[] = {
	{ "glibc memcpy", libc },
	{ "zmm masked (avx512)", zmm_masked },
	{ "ymm halves (avx512_ld256)", ymm_halves },
	{ "ymm halves, cmov", ymm_halves_cmov },
	{ "ymm head and tail", ymm_head_tail },
	{ "zmm, no mask", zmm_full },
	{ "zmm load, ymm stores", zmm_load_ymm_stores },
	{ "ladder", ladder },
};

enum { CALLS = 65536, RUNS = 15, NROWS = sizeof(rows) / sizeof(rows[0]) };

static uint32_t src_off[CALLS], dst_off[CALLS];
static uint8_t size[CALLS];

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s MAX REGION [aligned]\n", argv[0]);
		return 2;
	}
	unsigned max = (unsigned)atoi(argv[1]);
	size_t region = strtoull(argv[2], 0, 0), half = region / 2;
	int aligned = argc > 3;
	u8 *b = mmap(0, region + 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (max < 1 || max > 64 || half < 128 || b == MAP_FAILED) {
		fprintf(stderr, "MAX 1..64, REGION >= 256 bytes\n");
		return 2;
	}
	madvise(b, region, MADV_HUGEPAGE);
	memset(b, 1, region + 4096);
	for (int i = 0; i < CALLS; i++) {
		src_off[i] = (uint32_t)(rnd() % (half - 64));
		dst_off[i] = (uint32_t)(rnd() % (half - 64));
		if (aligned) {
			src_off[i] &= ~63u;
			dst_off[i] &= ~63u;
		}
		size[i] = (uint8_t)(1 + rnd() % max);
	}
	double best[NROWS];
	for (int j = 0; j < NROWS; j++)
		best[j] = 1e30;
	for (int r = 0; r < RUNS; r++)
		for (int x = 0; x < NROWS; x++) {
			int j = (x + r) % NROWS; /* a new order every run */
			uint64_t t0 = __rdtsc();

			for (int i = 0; i < CALLS; i++)
				rows[j].fn(b + half + dst_off[i],
					   b + src_off[i], size[i]);
			double t = (double)(__rdtsc() - t0) / CALLS;
			if (t < best[j])
				best[j] = t;
		}
	for (int j = 0; j < NROWS; j++)
		printf("%-26s %6.1f ticks/call %5.2fx\n", rows[j].name, best[j],
		       best[0] / best[j]);
	return 0;
}
