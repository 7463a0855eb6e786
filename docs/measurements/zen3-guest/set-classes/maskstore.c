/* The cost of an AVX2 masked store (vpmaskmovd) against a plain one:
 * gcc -O2 -mavx2 maskstore.c -o maskstore && ./maskstore
 * best of 20 runs of 100000 stores to dst + 13, TSC ticks per store. */
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>

static const int32_t masks[16] = { -1, -1, -1, -1, -1, -1, -1, -1,
				   0,  0,  0,  0,  0,  0,  0,  0 };
static unsigned char buf[1 << 16] __attribute__((aligned(64)));

int main(void)
{
	static const char *what[] = { "vpmaskmovd ymm", "vmovdqu ymm",
				      "vpmaskmovd ymm x2", "vpmaskmovd xmm" };
	__m256i v = _mm256_set1_epi8(3);

	for (int mode = 0; mode < 4; mode++) {
		uint64_t best = ~0ull;

		for (int r = 0; r < 20; r++) {
			uint64_t t0 = __rdtsc();

			for (int i = 0; i < 100000; i++) {
				unsigned char *d = buf + ((i * 64) & 0x3fff) + 13;
				__m256i m = _mm256_loadu_si256(
					(const void *)(masks + 8 - (i & 7)));

				if (mode == 0)
					_mm256_maskstore_epi32((int *)d, m, v);
				else if (mode == 1)
					_mm256_storeu_si256((void *)d, v);
				else if (mode == 2) {
					_mm256_maskstore_epi32((int *)d, m, v);
					_mm256_maskstore_epi32((int *)(d + 32),
							       m, v);
				} else
					_mm_maskstore_epi32(
						(int *)d, _mm256_castsi256_si128(m),
						_mm256_castsi256_si128(v));
				__asm__ volatile("" : : "r"(d) : "memory");
			}
			uint64_t t = __rdtsc() - t0;
			if (t < best)
				best = t;
		}
		printf("%-18s %.2f ticks per iteration\n", what[mode],
		       best / 100000.0);
	}
	return 0;
}
