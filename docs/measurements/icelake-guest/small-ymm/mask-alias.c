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
__attribute__((noinline)) void *cB(void *d, const void *s, size_t n)
{ __mmask64 k = m64(n); __m512i v;
  if (__builtin_expect(((uintptr_t)s & 4095) <= 4096 - 64, 1)) v = _mm512_loadu_si512(s); else v = _mm512_maskz_loadu_epi8(k, s);
  _mm512_mask_storeu_epi8(d, k, v); return d; }
__attribute__((noinline)) void *cD(void *d, const void *s, size_t n)
{ __mmask64 k = m64(n);
  __m256i lo = _mm256_maskz_loadu_epi8((__mmask32)k, s), hi = _mm256_maskz_loadu_epi8((__mmask32)(k>>32), (const char*)s+32);
  _mm256_mask_storeu_epi8(d, (__mmask32)k, lo); _mm256_mask_storeu_epi8((char*)d+32, (__mmask32)(k>>32), hi); return d; }
/* ymm masked: one masked ymm for n<=32, else two overlapping ymm */
__attribute__((noinline)) void *cE(void *d, const void *s, size_t n)
{ if (n <= 32) { __mmask32 k = (__mmask32)_bzhi_u32(~0u, n); _mm256_mask_storeu_epi8(d, k, _mm256_maskz_loadu_epi8(k, s)); return d; }
  __m256i a = _mm256_loadu_si256(s), b = _mm256_loadu_si256((const void*)((const char*)s+n-32));
  _mm256_storeu_si256(d, a); _mm256_storeu_si256((void*)((char*)d+n-32), b); return d; }
/* glibc-like classes */
__attribute__((noinline)) void *cG(void *d, const void *s, size_t n)
{ char *D = d; const char *S = s;
  if (n >= 32) { __m256i a = _mm256_loadu_si256((const void*)S), b = _mm256_loadu_si256((const void*)(S+n-32)); _mm256_storeu_si256((void*)D, a); _mm256_storeu_si256((void*)(D+n-32), b); return d; }
  if (n >= 16) { __m128i a = _mm_loadu_si128((const void*)S), b = _mm_loadu_si128((const void*)(S+n-16)); _mm_storeu_si128((void*)D, a); _mm_storeu_si128((void*)(D+n-16), b); return d; }
  if (n >= 8) { uint64_t a, b; memcpy(&a, S, 8); memcpy(&b, S+n-8, 8); memcpy(D, &a, 8); memcpy(D+n-8, &b, 8); return d; }
  if (n >= 4) { uint32_t a, b; memcpy(&a, S, 4); memcpy(&b, S+n-4, 4); memcpy(D, &a, 4); memcpy(D+n-4, &b, 4); return d; }
  if (n) { char a = S[0], b = S[n-1]; char c = S[n/2]; D[0]=a; D[n/2]=c; D[n-1]=b; }
  return d; }
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
	cpy fs[] = { memcpy, cA, cB, cD, cE, cG }; const char *nm[] = {"glibc","maskzmm","ldfull","mask2ymm","ymm","classes"};
	static const size_t ns[] = { 1, 8, 16, 32, 48, 64 };
	static const int doffs[] = { 0, 6, 128 };
	static const int soffs[] = {0, 7, 32, 60};
	for (unsigned q = 0; q < 4; q++)
	for (unsigned j = 0; j < 3; j++) {
	printf("soff %d dist %d\n%9s", soffs[q], doffs[j], ""); for (unsigned k=0;k<6;k++) printf("%7zu", ns[k]); printf("\n");
	for (unsigned f = 0; f < 6; f++) { printf("%9s", nm[f]);
	for (unsigned k = 0; k < 6; k++) {
		char *S = s + 4096 + soffs[q], *D = d + 4096 + soffs[q] + doffs[j];
		printf("%7.1f", timeit(fs[f], D, S, ns[k]));
	} printf("\n"); } }
}
