/* A 48-byte set (two ymm stores to dst + 13) with and without vzeroupper
 * before the return, 10000 calls a run, median of 31 interleaved runs,
 * TSC ticks per call: gcc -O2 -mavx2 vzeroupper.c && ./a.out */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

static unsigned char buf[1 << 16] __attribute__((aligned(64)));

#define SET48 "vmovd %1, %%xmm0\n\tvpbroadcastb %%xmm0, %%ymm0\n\t" \
	      "vmovdqu %%ymm0, (%0)\n\tvmovdqu %%ymm0, -32(%0,%2)\n\t"

__attribute__((noinline)) static void *with_vzeroupper(void *d, int c,
							size_t n)
{
	__asm__ volatile(SET48 "vzeroupper"
			 : : "r"(d), "r"(c), "r"(n) : "xmm0", "memory");
	return d;
}

__attribute__((noinline)) static void *without(void *d, int c, size_t n)
{
	__asm__ volatile(SET48 : : "r"(d), "r"(c), "r"(n) : "xmm0", "memory");
	return d;
}

typedef void *(*set_t)(void *, int, size_t);
static set_t volatile fns[2] = { with_vzeroupper, without };

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	double t[2][31];

	for (int r = 0; r < 31; r++)
		for (int k = 0; k < 2; k++) {
			int w = (k + r) & 1;
			set_t f = fns[w];
			uint64_t t0 = __rdtsc();

			for (int i = 0; i < 10000; i++)
				f(buf + ((i * 64) & 0x3fff) + 13, i, 48);
			t[w][r] = (double)(__rdtsc() - t0) / 10000;
		}
	for (int k = 0; k < 2; k++) {
		qsort(t[k], 31, sizeof(double), cmpd);
		printf("%-18s %.2f\n", k ? "without" : "with vzeroupper",
		       t[k][15]);
	}
	return 0;
}
