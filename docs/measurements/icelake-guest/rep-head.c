#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <x86intrin.h>
#include <fastmem/fastmem.h>
/* cc -O2 rep-head.c -lfastmem; ./a.out 2049 4096 [same] */
typedef void *(*cpy)(void *, const void *, size_t);
static void *rep_plain(void *d, const void *s, size_t n) { void *r = d; __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) :: "memory"); return r; }
static void *rep_aligned(void *d, const void *s, size_t n) {
	size_t h = -(uintptr_t)d & 63; void *r = d;
	memcpy(d, s, 64); /* head: one unaligned 64B (overlap ok) */
	d = (char *)d + h; s = (const char *)s + h; n -= h;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) :: "memory"); return r; }
#define NC 4096
static uint32_t sz[NC], so[NC], dof[NC];
static double run(cpy f, char *a, int calls) {
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < calls; i++) { int k = i & (NC-1); f(a + 24576 + dof[k], a + so[k], sz[k]); __asm__ volatile("":::"memory"); }
	return (double)(__rdtsc() - t0) / calls; }
static int cmp(const void *a, const void *b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
	size_t lo = strtoul(argv[1],0,0), hi = strtoul(argv[2],0,0); int same = argc > 3;
	char *a = aligned_alloc(4096, 1 << 20); memset(a, 1, 1 << 20);
	srand(1);
	for (int i = 0; i < NC; i++) { sz[i] = lo + rand() % (hi - lo + 1); so[i] = rand() % (24576 - sz[i] + 1); dof[i] = rand() % (24576 - sz[i] + 1); if (same) dof[i] = (dof[i] & ~63) | (so[i] & 63); if (dof[i] + sz[i] > 24576) dof[i] -= 64; }
	const struct fm_variant *v; size_t nv = fm_variants(FM_OP_MEMCPY, &v); cpy erms = 0, a512 = 0;
	for (size_t i = 0; i < nv; i++) { if (!strcmp(v[i].name, "erms")) erms = v[i].fn.memcpy; if (!strcmp(v[i].name, "avx512")) a512 = v[i].fn.memcpy; }
	cpy fs[] = { memcpy, fm_memcpy, erms, rep_plain, rep_aligned, a512 }; const char *nm[] = { "glibc", "fm", "erms", "rep", "rep_dalign", "avx512" };
	double t[6][21];
	for (int r = 0; r < 21; r++) for (int j = 0; j < 6; j++) t[j][r] = run(fs[j], a, 20000);
	for (int j = 0; j < 6; j++) { qsort(t[j], 21, sizeof(double), cmp); printf("%s %.0f  ", nm[j], t[j][10]); }
	printf("\n");
}
