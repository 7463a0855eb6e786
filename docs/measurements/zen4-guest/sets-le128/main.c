/* SPDX-License-Identifier: MIT */
/*
 * Sets of hot fixed sizes and of the fleet's size distributions at random
 * offsets in an arena (ARENA bytes, default 32 KiB), one layout of the
 * avx512 family's small sets per row (cand.c), interleaved in each of 21
 * runs; TSC ticks per call for glibc (called through a wrapper: its ratio
 * to glibc is lower than the replay's, the rows' ratios to each other are
 * what this is for), the other rows as speed relative to it (medians).
 * Written for zen4-guest.md, "Sets of up to 128 bytes without a branch".
 *
 *   F="-O2 -mavx512f -mavx512bw -mavx512vl -mbmi2 -falign-jumps=32 -fPIC"
 *   F="$F $(for i in $(seq 0 15); do printf ' -ffixed-xmm%s' $i; done)"
 *   gcc $F -c cand.c && gcc -O2 -c main.c
 *   gcc -o sets main.o cand.o libpeer-aocl.so     (AOCL-LibMem's aocl_memset)
 *   ./sets docs/distributions/fleet/Memset*.csv
 *   NOHOT=1 ARENA=1073741824 ./sets docs/distributions/fleet/Memset*.csv
 *
 * The rows below are run.2's; run.1 had libc, cur, b128, cls6, aoclay,
 * loop4, loopx, aocl, and l1.txt and mem.txt libc, cur, b128, b128z, b128n,
 * aocl (the hot rows of l1.txt with the sizes 16 B-4 KiB).  The hot rows
 * move by up to 10% from one build of this file to the next, with where
 * the code falls: the replay A/B decides (zen4-guest.md).
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

typedef unsigned char u8;
typedef void *set_fn(void *d, int c, size_t n);
void *aocl_memset(void *, int, size_t);
set_fn cur, b128, b128z, b128n, cls6, lay_aocl, cur_loop4, cur_loopx, seq8, unl4, cls6s;
static void *libc(void *d, int c, size_t n) { return memset(d, c, n); }

static struct { const char *name; set_fn *fn; } rows[] = {
	{ "libc", libc }, { "cur", cur }, { "seq8", seq8 }, { "unl4", unl4 },
	{ "cls6", cls6 }, { "cls6s", cls6s }, { "aocl", aocl_memset },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))
#define RUNS 21

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static u8 *arena;
static set_fn *volatile callp;

static double hot(set_fn *f, size_t off, size_t n, int calls)
{
	callp = f;
	set_fn *g = callp;
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < calls; i++)
		g(arena + off, 0, n);
	return (double)(__rdtsc() - t0) / calls;
}

#define NCALLS 65536
static uint32_t offs[NCALLS], sizes[NCALLS];

static double rnd(set_fn *f)
{
	callp = f;
	set_fn *g = callp;
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < NCALLS; i++)
		g(arena + offs[i], 0, sizes[i]);
	return (double)(__rdtsc() - t0) / NCALLS;
}

static void report(const char *label, double t[NROWS][RUNS])
{
	double med[NROWS];
	printf("%-14s", label);
	for (size_t r = 0; r < NROWS; r++) {
		qsort(t[r], RUNS, sizeof(double), cmpd);
		med[r] = t[r][RUNS / 2];
		if (r == 0)
			printf(" %6.1f", med[r]);
		else
			printf(" %6.3f", med[0] / med[r]);
	}
	printf("\n");
}

static int load_dist(const char *path, double *p, int max)
{
	FILE *f = fopen(path, "r");
	int k = 0;
	if (!f) return 0;
	while (k < max && fscanf(f, "%lf", &p[k]) == 1) {
		k++;
		if (fgetc(f) != ',') break;
	}
	fclose(f);
	return k;
}

int main(int argc, char **argv)
{
	size_t region = getenv("ARENA") ? strtoull(getenv("ARENA"), 0, 0) : 32768;
	arena = mmap(0, region + (1 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(arena, region + (1 << 20), MADV_HUGEPAGE);
	memset(arena, 1, region + (1 << 20));
	printf("%-14s", "");
	for (size_t r = 0; r < NROWS; r++)
		printf(" %6s", rows[r].name);
	printf("\n");
	static const size_t sz[] = { 64, 128, 160, 200, 256, 300, 384, 448, 512, 1024 };
	static double t[NROWS][RUNS];
	for (int a = 0; a < 2 && !getenv("NOHOT"); a++)
		for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
			size_t off = a ? 13 : 0;
			for (int run = 0; run < RUNS; run++)
				for (size_t r = 0; r < NROWS; r++) {
					size_t rr = (r + run) % NROWS;
					t[rr][run] = hot(rows[rr].fn, off, sz[i], 2000);
				}
			char lab[32];
			snprintf(lab, sizeof lab, "hot %zu%s", sz[i], a ? "+13" : "");
			report(lab, t);
		}
	for (int k = 1; k < argc; k++) {
		static double p[8192];
		int m = load_dist(argv[k], p, 8192);
		double sum = 0;
		for (int j = 0; j < m; j++) sum += p[j];
		srand(1);
		for (int i = 0; i < NCALLS; i++) {
			double u = (double)rand() / RAND_MAX * sum, acc = 0;
			int j = 0;
			for (; j < m - 1; j++) { acc += p[j]; if (acc >= u) break; }
			sizes[i] = j;
			offs[i] = (uint32_t)(((uint64_t)rand() * 65536 + rand()) % (region - j + 1));
		}
		for (int run = 0; run < RUNS; run++)
			for (size_t r = 0; r < NROWS; r++) {
				size_t rr = (r + run) % NROWS;
				t[rr][run] = rnd(rows[rr].fn);
			}
		const char *b = strrchr(argv[k], '/');
		report(b ? b + 1 : argv[k], t);
	}
	return 0;
}
