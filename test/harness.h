/* SPDX-License-Identifier: MIT */
/* Guard-page buffers and checkers shared by the test suites. */
#ifndef FASTMEM_TEST_HARNESS_H
#define FASTMEM_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>

#include "fastmem/fastmem.h"

/* Run every test of s; EXIT_SUCCESS when none failed. */
int run_suite(Suite *s);

/* Suites that run themselves as child processes: self = the program's real
 * path (PATH_MAX bytes), tmpdir = a new $TMPDIR/NAME-XXXXXX (PATH_MAX
 * bytes).  0 on success, else a message on stderr. */
int harness_start(const char *argv0, char *self, char *tmpdir,
		  const char *name);
/* Remove tmpdir and everything in it. */
void harness_remove(const char *tmpdir);
/* Read fd to its end into buf (NUL-terminated, at most size - 1 bytes). */
void harness_slurp(int fd, char *buf, size_t size);

/* A buffer of `size` bytes with PROT_NONE pages flush against both ends. */
struct arena {
	unsigned char *base; /* first usable byte (page-aligned) */
	unsigned char *end;  /* one past the last usable byte (page-aligned) */
	size_t size;
	unsigned char *map;
	size_t map_size;
};

void arena_init(struct arena *a, size_t size);
void arena_free(struct arena *a);

/* The byte the source pattern holds at position i (varies with i so any
 * misplaced byte shows). */
static inline unsigned char pattern_byte(size_t i)
{
	return (unsigned char)((i * 131u + 7u) ^ (i >> 9) ^ (i >> 17));
}

void fill_pattern(unsigned char *p, size_t n, size_t seed);

#define CANARY 0xA5
#define WINDOW 64 /* bytes around a destination checked for stray writes */

/* Set the window around [p, p+n) (clipped to the arena) to CANARY. */
void arm_canaries(const struct arena *a, unsigned char *p, size_t n);
/* Offset of the first byte outside [p, p+n) in its window that is not
 * CANARY, or -1. */
long stray_write(const struct arena *a, const unsigned char *p, size_t n);

/* Sizes and alignments; the quick set is for valgrind and sanitizer runs. */
int quick_mode(void);
/* Large sizes to test for op: powers of two +-1 up to max, and the op's
 * non-temporal threshold +-1.  Returns the count written to out. */
size_t large_sizes(enum fm_op op, size_t max, size_t *out, size_t cap);

#endif
