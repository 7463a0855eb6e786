/* SPDX-License-Identifier: MIT */
/*
 * Size distributions for fastmem-bench replay: a FASTMEM_TRACE file
 * (fastmem(3)) or LLVM libc's format (one line of comma-separated
 * probabilities for sizes 0, 1, 2, ...; libc/benchmarks/distributions/).
 */
#ifndef FASTMEM_DISTRIBUTION_H
#define FASTMEM_DISTRIBUTION_H

#include <stddef.h>
#include <stdint.h>

enum { DIST_COPY, DIST_SET, DIST_OPS };
enum dist_format { DIST_TRACE, DIST_LLVM };

/* Calls of sizes lo..hi (inclusive), weight w. */
struct dist_range {
	size_t lo, hi;
	double w;
};

struct dist {
	char name[64]; /* file name without directory and extension */
	enum dist_format format;
	/* per op (copies = memcpy + memmove; sets = memset) */
	struct dist_range *r[DIST_OPS];
	size_t nr[DIST_OPS];
	double total[DIST_OPS];	  /* sum of the weights; 0: no calls */
	double aligned[DIST_OPS]; /* fraction of calls 64-byte aligned */
	size_t max[DIST_OPS];	  /* largest size */
	/* trace files: the counts as recorded (memcpy, memmove, memset) */
	uint64_t calls[3], aligned64[3], overlapping[3];
	/* trace files: the library's "# warning: " comment (processes that
	 * shared a FASTMEM_TRACE path without %p), the first one; "" none */
	char warning[256];
};

/*
 * Read path into d.  0 on success; else -1 with a message naming the file
 * (and the line) in err.
 */
int dist_load(const char *path, struct dist *d, char *err, size_t errlen);
/* The same from memory; name is used in messages and for d->name. */
int dist_parse(const char *name, const char *text, size_t len, struct dist *d,
	       char *err, size_t errlen);
void dist_free(struct dist *d);
/* The warning a trace file holds, if any: one line on stderr, "PROG: PATH:
 * warning: ...".  Readers skip comments, so without this nobody sees it. */
void dist_print_warning(const struct dist *d, const char *prog,
			const char *path);

/* Probability of size n for op (exact sizes and ranges spread evenly). */
double dist_prob(const struct dist *d, int op, size_t n);

/* A fixed-seed generator and a size drawn from op's distribution. */
uint64_t dist_rand(uint64_t *state);
size_t dist_draw(const struct dist *d, int op, uint64_t *state);

#endif
