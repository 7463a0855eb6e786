#define _GNU_SOURCE
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <immintrin.h>
#include <x86intrin.h>
typedef void *(*cpy)(void *, const void *, size_t);
static inline __mmask64 m64(size_t n) { return _cvtu64_mask64(_bzhi_u64(~0ull, (unsigned)n)); }
__attribute__((noinline)) void *cA(void *d, const void *s, size_t n)
{ __mmask64 k = m64(n); _mm512_mask_storeu_epi8(d, k, _mm512_maskz_loadu_epi8(k, s)); return d; }
__attribute__((noinline)) void *c2x(void *d, const void *s, size_t n)
{ __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512((const char*)s + n - 64); _mm512_storeu_si512(d, a); _mm512_storeu_si512((char*)d + n - 64, b); return d; }
static double timeit(cpy f, char *d, const char *s, size_t n)
{
	double best = 1e30;
	for (int r = 0; r < 15; r++) {
		uint64_t t0 = __rdtsc();
		for (int i = 0; i < 4096; i++) { f(d, s, n); __asm__ volatile("" ::: "memory"); }
		double t = (double)(__rdtsc() - t0) / 4096;
		if (t < best) best = t;
	}
	return best;
}
int main(void)
{
	char *s = mmap(0, 1 << 20, 3, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *d = mmap(0, 1 << 20, 3, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(s, 1, 1 << 20); memset(d, 2, 1 << 20);
	for (int so = 0; so < 64; so += 7) {
	printf("soff %2d masked32:", so);
	for (int dist = -192; dist <= 192; dist += 16) printf(" %4.1f", timeit(cA, d + 8192 + so + dist, s + 8192 + so, 32));
	printf("\n        inline32:");
	for (int dist = -192; dist <= 192; dist += 16) printf(" %4.1f", timeit(memcpy, d + 8192 + so + dist, s + 8192 + so, 32));
	printf("\n");
	}
	printf("dists:");
	for (int dist = -192; dist <= 192; dist += 16) printf(" %4d", dist); printf("\n");
}
