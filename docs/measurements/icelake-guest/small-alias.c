#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <x86intrin.h>
#include <fastmem/fastmem.h>
/* cc -O2 small-alias.c -lfastmem */
typedef void *(*cpy)(void *, const void *, size_t);
static double timeit(cpy f, char *d, const char *s, size_t n)
{
	double best = 1e30;
	for (int r = 0; r < 15; r++) {
		uint64_t t0 = __rdtsc();
		for (int i = 0; i < 4096; i++) {
			f(d, s, n);
			__asm__ volatile("" ::: "memory");
		}
		double t = (double)(__rdtsc() - t0) / 4096;
		if (t < best) best = t;
	}
	return best;
}
int main(int argc, char **argv)
{
	char *s = mmap(0, 1 << 20, 3, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *d = mmap(0, 1 << 20, 3, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(s, 1, 1 << 20); memset(d, 2, 1 << 20);
	cpy g = memcpy; cpy fm = fm_memcpy;
	static const size_t ns[] = { 1, 8, 16, 32, 48, 64, 96, 128, 256, 1024, 4096 };
	/* dst offset relative to src within the page */
	static const int doffs[] = { 0, 6, 64, 128, 1024, 2048 };
	printf("soff=7; rows: size; cols: (dst page offset - src page offset): glibc/fm ticks\n");
	for (unsigned k = 0; k < sizeof ns / sizeof *ns; k++) {
		printf("%5zu", ns[k]);
		for (unsigned j = 0; j < sizeof doffs / sizeof *doffs; j++) {
			char *S = s + 4096 + 7, *D = d + 4096 + 7 + doffs[j];
			double a = timeit(g, D, S, ns[k]), b = timeit(fm, D, S, ns[k]);
			printf("  %+5d:%5.1f/%5.1f", doffs[j], a, b);
		}
		printf("\n");
	}
}
