/*
 * Hot sets of 256-512 B, the same buffer every call: glibc, the library's
 * set_avx2 and two set loops in C, the present one's structure (one
 * unaligned vector, aligned blocks of four from d + 32 rounded down, four
 * unaligned at the end) and glibc's (four unaligned, aligned blocks from
 * d + 128 rounded down, four unaligned at the end).  TSC ticks per call,
 * median of 31 interleaved runs of 2000 calls.  From build/:
 *   gcc -O2 -I.. ../docs/measurements/zen3-guest/set-classes/hotloop.c \
 *       .libs/libfastmem.a -lpthread -o /tmp/hotloop && /tmp/hotloop [OFFSET]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

typedef void *(*set_t)(void *, int, size_t);
extern void *set_avx2(void *, int, size_t);

#define SU(p, v) _mm256_storeu_si256((void *)(p), v)
#define SA(p, v) _mm256_store_si256((void *)(p), v)

/* aligned blocks of four vectors from p while p < end, then the four
 * unaligned vectors from end: the part both structures share */
__attribute__((always_inline, target("avx2"))) static inline void
blocks_and_tail(unsigned char *p, unsigned char *end, __m256i v)
{
	for (; p < end; p += 128) {
		SA(p, v);
		SA(p + 32, v);
		SA(p + 64, v);
		SA(p + 96, v);
	}
	SU(end, v);
	SU(end + 32, v);
	SU(end + 64, v);
	SU(end + 96, v);
}

__attribute__((noinline, target("avx2"))) static void *
loop_from_32(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	if (n <= 256)
		return memset(dst, c, n);
	__m256i v = _mm256_set1_epi8((char)c);

	SU(d, v);
	blocks_and_tail((unsigned char *)(((uintptr_t)d + 32) & ~(uintptr_t)31),
			d + n - 128, v);
	return dst;
}

__attribute__((noinline, target("avx2"))) static void *
loop_from_128(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	if (n <= 256)
		return memset(dst, c, n);
	__m256i v = _mm256_set1_epi8((char)c);

	SU(d, v);
	SU(d + 32, v);
	SU(d + 64, v);
	SU(d + 96, v);
	blocks_and_tail((unsigned char *)(((uintptr_t)d + 128) & ~(uintptr_t)31),
			d + n - 128, v);
	return dst;
}

static set_t volatile impls[] = { memset, set_avx2, loop_from_32,
				  loop_from_128 };
static const char *names[] = { "glibc", "set_avx2", "from_32", "from_128" };
#define NI (sizeof impls / sizeof impls[0])

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t off = argc > 1 ? (size_t)atoi(argv[1]) : 0;
	unsigned char *d = mmap(0, 1 << 20, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const size_t sizes[] = { 256, 288, 320, 384, 448, 512 };

	if (d == MAP_FAILED)
		return 1;
	memset(d, 2, 1 << 20);
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
		enum { R = 31, C = 2000 };
		size_t n = sizes[si];
		double t[NI][R], base = 0;

		for (int r = 0; r < R; r++)
			for (size_t i = 0; i < NI; i++) {
				size_t k = (i + r) % NI;
				set_t f = impls[k];
				uint64_t t0 = __rdtsc();

				for (int c = 0; c < C; c++)
					f(d + off, c, n);
				t[k][r] = (double)(__rdtsc() - t0) / C;
			}
		printf("%5zu", n);
		for (size_t i = 0; i < NI; i++) {
			qsort(t[i], R, sizeof(double), cmpd);
			if (!i)
				base = t[i][R / 2];
			printf("  %s %6.2f (%.2fx)", names[i], t[i][R / 2],
			       base / t[i][R / 2]);
		}
		printf("\n");
	}
	/* both loops against a reference, every size and offset */
	for (size_t n = 257; n < 600; n++)
		for (size_t o = 0; o < 64; o++) {
			memset(d, 0, 8192);
			loop_from_32(d + o + 64, 7, n);
			loop_from_128(d + 4096 + o + 64, 7, n);
			for (size_t i = 0; i < 2048; i++) {
				int in = i >= o + 64 && i < o + 64 + n;
				if (d[i] != (in ? 7 : 0) ||
				    d[4096 + i] != (in ? 7 : 0)) {
					printf("wrong: %zu B at +%zu\n", n, o);
					return 1;
				}
			}
		}
	return 0;
}
