/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate --trace, shared between its files: the recorded
 * files and the replayed comparison (fastmem-bench-calibrate-trace.c), the
 * per-op variant (-trace-variant.c) and the thresholds weighed by the
 * recorded sizes (-trace-thresholds.c).
 *
 * Every decision --trace adds is a comparison of two ways to run the
 * recorded calls: the current one (what this process runs) and a
 * candidate, replayed (replay's sequences: fixed seed, offsets over the
 * arena) interleaved in TRACE_RUNS separate runs.  Per run, the score is
 * the geometric mean of the candidate's speed ratios over every file and
 * arena; the candidate is written only if the median score beats 1 by
 * more than both WIN and the range of the runs' scores, and its median
 * ratio loses (below 2 - WIN) in no file and arena.
 */
#ifndef FASTMEM_BENCH_CALIBRATE_TRACE_H
#define FASTMEM_BENCH_CALIBRATE_TRACE_H

#include "calibrate.h"
#include "distribution.h"

#define TRACE_RUNS 5
#define TRACE_RUNS_QUICK 3
#define MAX_TRACES 32
#define ARENAS 3

/* the --trace files read (ntrace of them, calibrate.h) */
extern struct dist trace[MAX_TRACES];
extern const char *const arena_names[ARENAS];

struct verdict {
	/* per file and arena: median and range of the runs' ratios */
	double med[MAX_TRACES][ARENAS], lo[MAX_TRACES][ARENAS],
		hi[MAX_TRACES][ARENAS];
	double score, slo, shi; /* the score over the runs */
	int measured, wins;
};

/* The runs each comparison takes (fewer with --quick). */
int trace_runs(void);
/* The recorded calls op replays: DIST_SET for memset, else DIST_COPY. */
int trace_op(enum fm_op op);
/* Has some file enough dop calls to replay? */
int any_replayable(int dop);
/* Share of d's op calls of sizes in [lo, hi) (a range counts pro rata). */
double share_between(const struct dist *d, int op, size_t lo, size_t hi);

/*
 * Measure series ser[0] (the current way) against ser[1..ns) on every
 * file's dop calls in the arenas of mask (bit a: arena a); fill v[s].
 * ser[1] is the control (the current way again); v[0].score is the
 * noise it shows, which a winner's gain must exceed.  before(arena), if
 * given, runs before each arena's cells.
 */
void trace_measure(int dop, unsigned mask, const struct series *ser, int ns,
		   struct verdict *v, char *src, char *dst,
		   void (*before)(unsigned arena));
/* One candidate's figures, for the report. */
void print_verdict(const char *name, const struct verdict *x, int dop,
		   unsigned mask, const struct verdict *ctl, double noise);

/* --- the per-op variant (fastmem-bench-calibrate-trace-variant.c) ------ */
/* Replay every usable policy variant against the current one, for memcpy
 * and memset (trace_variant() then says which won). */
void trace_pick_variants(char *src, char *dst);
void trace_report_variants(void);
void trace_json_variants(void);

/* --- the thresholds (fastmem-bench-calibrate-trace-thresholds.c) ------- */
/* The limits the pairs' keys would set, and the recorded calls between
 * them and the current ones; returns the progress steps the replays of
 * trace_verify_thresholds will take (files: replayable files per op). */
long trace_weigh_thresholds(const struct pair *pairs,
			    const int files[DIST_OPS]);
/* Replay where the limits differ; a pair whose keys do not win is held. */
void trace_verify_thresholds(struct pair *pairs, char *src, char *dst);
void trace_report_thresholds(const struct pair *pairs);
void trace_json_thresholds(const struct pair *pairs);

#endif /* FASTMEM_BENCH_CALIBRATE_TRACE_H */
