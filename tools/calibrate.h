/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate, shared between its files: the measurement of
 * the streaming thresholds (fastmem-bench-calibrate.c), the rep crossovers
 * (-rep.c), --trace (-trace.c, -trace-variant.c, -trace-thresholds.c:
 * calibrate-trace.h) and the config file (-config.c).
 *
 * Every key calibrate may write belongs to one decision.  A decision is
 * written only when its effect was measured beyond the noise of its cells
 * (and never with --quick); the summary lists every decision, written or
 * not, with its evidence.
 */
#ifndef FASTMEM_BENCH_CALIBRATE_H
#define FASTMEM_BENCH_CALIBRATE_H

#include "bench.h"

/* "wins": faster by at least 2% (and "loses": slower by 2%) */
#define WIN 1.02

/* A streaming threshold: temporal against streaming stores, hot and cold. */
struct pair {
	enum fm_op op;	  /* FM_OP_MEMCPY or FM_OP_MEMSET */
	const char *what; /* "copy", "set" */
	int found;
	char how[240];
	char hint[24];	      /* "fm_memcpy_hint" when comparing the hints */
	struct series ser[2]; /* temporal (reference), streaming */
	struct table *tab[2]; /* hot, cold */
	int x[2];	      /* crossover point per table, -1 none */
	int measured[2];
	size_t rec; /* recommendation; 0 none, SIZE_MAX never */
	char why[300];
	char skip[200]; /* --trace: why the pair was not measured */
	int held;	/* --trace: the recorded calls do not want the keys */
};

/* Where rep movsb / rep stosb take over from the vector loop. */
struct repcal {
	enum fm_op op;
	const char *what, *key;
	int found;
	struct series ser[2]; /* vector loop (reference), rep */
	struct table *t;
	int x;	    /* crossover point, -1 none */
	size_t rec; /* 0: no change */
	char why[200];
};

/* One decision: the keys it writes, their value, and why (not) written. */
#define DECISION_KEYS 2
struct decision {
	char what[48]; /* "copy threshold", "rep movsb", "threads" */
	const char *keys[DECISION_KEYS];
	char value[40]; /* as written: "16M", "never", "avx2_auto", "2" */
	int measured;	/* there is a value to consider */
	int write;	/* measured beyond noise: written */
	char why[1500]; /* the evidence, or why it is not written */
};

/* Add a decision (its keys NULL-terminated or full); returns it. */
struct decision *decision_add(const char *what, const char *key0,
			      const char *key1);

/*
 * The noise gate of a crossover decision, on table t (row 1 against row 0,
 * ratios the paired ones): from point x up (x < 0: the whole range, for
 * "never"), the effect is the median of |ratio - 1| in the direction
 * claimed, the noise the median over those sizes of the larger of the two
 * rows' spreads (half the interquartile range over the median, as each
 * cell shows it).  Fills why with the figures (who: what row 1 is, e.g.
 * "streaming"); 1 when effect > noise.
 */
int beyond_noise(const struct table *t, int x, const char *who, char *why,
		 size_t len);
/* The spread the decisions take for a cell: its own, or the one
 * FMTEST_BENCH_FORCE_SPREAD (a fraction, tests only) imposes. */
double decision_spread(const struct cell *c);
/* The ratio row 1 of a cell is decided on: the paired one, or the one
 * FMTEST_BENCH_FORCE_RATIO (tests only) imposes. */
double decision_ratio(const struct cell *c);
/* the --quick refusal, as a decision's why */
#define QUICK_WHY                                                              \
	"--quick: a quick run's cells are too few to support a key (run "      \
	"without --quick to write)"

const struct fm_variant *find_variant(enum fm_op op, const char *name);
void assign_fn(struct series *s, enum fm_op op, const struct fm_variant *v);
double median_of(double *v, int n); /* sorts v */
int crossover(struct table *t, int *wrong_above, int *wrong_below);
int writes_cold(const struct pair *p);

/* --- the rep crossovers (fastmem-bench-calibrate-rep.c) ---------------- */
void rep_calibrate(struct repcal rep[2], unsigned modes);

/* --- --trace (fastmem-bench-calibrate-trace.c) ------------------------- */
extern int ntrace; /* --trace files read */
int trace_load(void);
void trace_skip(struct pair *pairs, size_t smallest);
void trace_decide(struct pair *pairs);
void trace_json(const struct pair *pairs);
/* The variant --trace chose for memcpy (i 0) or memset (1): NULL none;
 * *why the evidence either way. */
const char *trace_variant(int i, const char **why);

/* --- the config file (fastmem-bench-calibrate-config.c) ---------------- */
int config_path(char *buf, size_t len, const char **whence);
/* Replace the keys of the written decisions by block, keeping every other
 * line (and our comments above kept lines): the lines kept, or -1. */
int write_config(const char *path, const char *block);

/* Decide, print the summary, write (or --dry-run show) the config file and
 * add the JSON: the exit status. */
int calibrate_decide(const struct pair pairs[2], const struct repcal rep[2],
		     const char *path, const char *whence);

extern struct decision decisions[];
extern int ndecisions;

#endif /* FASTMEM_BENCH_CALIBRATE_H */
