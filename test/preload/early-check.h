/*
 * early-check.h - memcpy, memmove, memset and mempcpy exercised at one point
 * of a process's start-up and checked against byte loops.  Included by
 * early.c (the program: .preinit_array, a constructor, main) and
 * early-lib.c (a shared library's constructor).  Knows nothing about
 * libfastmem: under LD_PRELOAD=libfastmem-preload.so the calls are ours.
 * Build with -fno-builtin -fno-tree-loop-distribute-patterns so that the
 * reference loops stay loops and the calls stay calls.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define EARLY_BUF ((1 << 20) + 4096)

/* The byte that position i of buffer `seed` holds. */
static unsigned char early_pattern(size_t i, unsigned seed)
{
	return (unsigned char)(i * 131u + seed * 7u + (i >> 8));
}

/*
 * Copies, overlapping moves in both directions, sets and mempcpy over every
 * size up to 600 and larger ones up to 1 MiB (past the policies' loop and
 * rep sizes, and past the non-temporal threshold when the caller lowers
 * it), at several offsets.  Each is checked over its window and 64 bytes
 * beyond.  Returns the number of checks, or -1 with the first mismatch
 * described in `why`.
 */
static long early_check(char *why, size_t whylen)
{
	static unsigned char a[EARLY_BUF + 64], b[EARLY_BUF + 64];
	static unsigned char ref[EARLY_BUF + 64];
	static const size_t big[] = { 1000,  2048,  4095,   4096,   8000,
				      20000, 65536, 200001, 1 << 20 };
	long checks = 0;

	for (int pass = 0; pass < 2; pass++) {
		size_t nsizes = pass ? sizeof(big) / sizeof(big[0]) : 601;

		for (size_t k = 0; k < nsizes; k++) {
			size_t n = pass ? big[k] : k;
			size_t off = k % 17, doff = (k * 5) % 23;
			size_t i, m = n < EARLY_BUF - 40 ? n : EARLY_BUF - 40;
			size_t w = m + 64; /* the window checked */
			const char *op;

			/* memcpy */
			for (i = 0; i < w; i++) {
				a[i] = early_pattern(i, 1);
				b[i] = ref[i] = early_pattern(i, 2);
			}
			for (i = 0; i < m; i++)
				ref[doff + i] = a[off + i];
			op = "memcpy";
			if (memcpy(b + doff, a + off, m) != b + doff ||
			    memcmp(b, ref, w))
				goto bad;
			/* mempcpy */
			op = "mempcpy";
			if (mempcpy(b + doff, a + off, m) != b + doff + m ||
			    memcmp(b, ref, w))
				goto bad;
			/* memmove, dst above src and below it */
			for (int dir = 0; dir < 2; dir++) {
				size_t s = dir ? off + 9 : off,
				       d = dir ? off : off + 9;

				for (i = 0; i < w; i++)
					a[i] = ref[i] = early_pattern(i, 3);
				for (i = 0; i < m; i++)
					ref[d + i] = early_pattern(s + i, 3);
				op = dir ? "memmove (dst below src)"
					 : "memmove (dst above src)";
				if (memmove(a + d, a + s, m) != a + d ||
				    memcmp(a, ref, w))
					goto bad;
			}
			/* memset */
			for (i = 0; i < w; i++)
				b[i] = ref[i] = early_pattern(i, 4);
			for (i = 0; i < m; i++)
				ref[doff + i] = (unsigned char)(k | 1);
			op = "memset";
			if (memset(b + doff, (int)(k | 1), m) != b + doff ||
			    memcmp(b, ref, w))
				goto bad;
			checks += 5;
			continue;
		bad:
			snprintf(why, whylen, "%s of %zu bytes went wrong", op,
				 m);
			return -1;
		}
	}
	return checks;
}

/* One line of the report; only its outcome, so it reads the same with and
 * without the preload. */
static void early_report(char *line, size_t len, const char *where)
{
	char why[96];
	long n = early_check(why, sizeof(why));

	if (n < 0)
		snprintf(line, len, "%s: FAILED: %s", where, why);
	else
		snprintf(line, len, "%s: %ld checks ok", where, n);
}
