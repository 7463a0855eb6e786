#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <x86intrin.h>
#include <dlfcn.h>
#include <fastmem/fastmem.h>
/* cc -O2 hot-variants.c -lfastmem -ldl (aocl: /work/peers/libpeer-aocl.so if present) */
typedef void *(*cpy)(void *, const void *, size_t);
static double timeit(cpy f, char *d, const char *s, size_t n)
{
	double best = 1e30;
	for (int r = 0; r < 15; r++) {
		uint64_t t0 = __rdtsc();
		for (int i = 0; i < 2048; i++) {
			f(d, s, n);
			__asm__ volatile("" ::: "memory");
		}
		double t = (double)(__rdtsc() - t0) / 2048;
		if (t < best) best = t;
	}
	return best;
}
int main(int argc, char **argv)
{
	char *s = mmap(0, 1 << 20, 3, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *d = mmap(0, 1 << 20, 3, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(s, 1, 1 << 20); memset(d, 2, 1 << 20);
	const struct fm_variant *v; size_t nv = fm_variants(FM_OP_MEMCPY, &v);
	const char *want[] = { "avx512", "avx512_zen4", "avx2", "erms", "sse2" };
	cpy fs[8]; const char *nm[8]; int k = 0;
	fs[k] = memcpy; nm[k++] = "glibc";
	for (unsigned w = 0; w < 5; w++) for (size_t i = 0; i < nv; i++)
		if (!strcmp(v[i].name, want[w])) { fs[k] = v[i].fn.memcpy; nm[k++] = want[w]; }
	void *h = dlopen("/work/peers/libpeer-aocl.so", RTLD_NOW); if (h) { fs[k] = dlsym(h, "aocl_memcpy"); nm[k++] = "aocl"; }
	size_t ns[] = { 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384 };
	int offs[][2] = { {0,0}, {7,13}, {0,64}, {0,2048}, {7, 13+2048} };
	printf("%-14s", "size s/d");
	for (int j = 0; j < k; j++) printf("%10s", nm[j]);
	printf("\n");
	for (unsigned a = 0; a < 5; a++) for (unsigned z = 0; z < sizeof ns / sizeof *ns; z++) {
		char *S = s + 4096 + offs[a][0], *D = d + 4096 + offs[a][1];
		printf("%6zu %3d/%-4d", ns[z], offs[a][0], offs[a][1]);
		for (int j = 0; j < k; j++) printf("%10.1f", timeit(fs[j], D, S, ns[z]));
		printf("\n");
	}
}
