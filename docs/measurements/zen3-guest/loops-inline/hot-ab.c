/* SPDX-License-Identifier: MIT */
/*
 * hot-ab: hot fixed-size copies or sets through glibc and the fm_memcpy /
 * fm_memset of two builds, interleaved in one process (21 runs of 50000
 * calls per cell, medians), at an aligned destination and at dst + 13
 * (src + 7 for copies; source and destination at one page offset, as in
 * fastmem-bench replay's hot tables).  For measurement only.
 *
 *   cc -O2 -o hot-ab hot-ab.c -ldl
 *   ./hot-ab set|copy OLD/libfastmem.so NEW/libfastmem.so [SIZES]
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 21
#define CALLS 50000

typedef void *(*set_fn)(void *, int, size_t);
typedef void *(*copy_fn)(void *, const void *, size_t);

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ns per call of CALLS calls of n bytes */
static double run(void *fn, int copy, char *d, const char *s, size_t n)
{
	double t0 = now_ns();

	if (copy) {
		copy_fn volatile f = (copy_fn)fn;
		copy_fn g = f;

		for (int i = 0; i < CALLS; i++)
			g(d, s, n);
	} else {
		set_fn volatile f = (set_fn)fn;
		set_fn g = f;

		for (int i = 0; i < CALLS; i++)
			g(d, 0, n);
	}
	return (now_ns() - t0) / CALLS;
}

int main(int argc, char **argv)
{
	static const size_t def[] = { 32,  64,	96,  128, 200,	256, 288,
				      384, 448, 512, 640, 1024, 2048 };
	size_t sizes[64];
	int ns = 0, copy;
	void *fn[3];
	char *buf;

	if (argc < 4) {
		fprintf(stderr, "usage: hot-ab set|copy LIB_A LIB_B [SIZES]\n");
		return 2;
	}
	copy = !strcmp(argv[1], "copy");
	fn[0] = copy ? (void *)memcpy : (void *)memset;
	for (int i = 0; i < 2; i++) {
		void *h = dlopen(argv[2 + i], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "hot-ab: %s\n", dlerror());
			return 1;
		}
		fn[1 + i] = dlsym(h, copy ? "fm_memcpy" : "fm_memset");
	}
	if (argc > 4) {
		for (char *p = argv[4]; *p && ns < 64;) {
			sizes[ns++] = strtoul(p, &p, 0);
			if (*p == ',')
				p++;
		}
	} else {
		memcpy(sizes, def, sizeof(def));
		ns = sizeof(def) / sizeof(*def);
	}
	buf = aligned_alloc(4096, 1 << 20);
	memset(buf, 1, 1 << 20);
	printf("%s: ns per call, median of %d runs; ratios: glibc's time over "
	       "each build's, and B's speed over A's\n",
	       argv[1], RUNS);
	for (int off = 0; off <= 13; off += 13)
		for (int i = 0; i < ns; i++) {
			char *d = buf + off + (copy ? 65536 : 0);
			const char *s = buf + (off ? 7 : 0);
			double r[3][RUNS], m[3];

			for (int k = 0; k < RUNS; k++)
				for (int f = 0; f < 3; f++)
					r[f][k] = run(fn[f], copy, d, s,
						      sizes[i]);
			for (int f = 0; f < 3; f++) {
				qsort(r[f], RUNS, sizeof(double), cmp_double);
				m[f] = r[f][RUNS / 2];
			}
			printf("%s dst+%-2d %5zu B: glibc %6.2f  A %6.2f "
			       "(%.2fx)  B %6.2f (%.2fx)  B/A %.3f\n",
			       argv[1], off, sizes[i], m[0], m[1], m[0] / m[1],
			       m[2], m[0] / m[2], m[1] / m[2]);
		}
	return 0;
}
