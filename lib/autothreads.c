/* SPDX-License-Identifier: MIT */
/*
 * The automatic thread count of the parallel calls, timed: is a large call
 * faster split over the pool or on the calling thread alone, on this
 * machine, for this operation?
 *
 * Whether splitting pays depends on the machine, not on the CPU count: on
 * a 2-core Zen 5 guest fm_memcpy_parallel of 512 MiB ran 1.31x glibc with
 * two threads, on a 2-core Zen 3 guest 0.84x, because there one thread
 * already took all the memory bandwidth the guest gets (issue #25).  So the
 * first large automatic calls of each operation (copy, set, clear) are
 * timed, TRIALS split and TRIALS alone, alternating; from then on the
 * calls split only if the best split call beat the best lone call by
 * GAIN_PERCENT.  Every RECHECK large calls the trial is run again (the
 * machine's load changes; the losing way costs at most TRIALS calls in
 * RECHECK).  When FASTMEM_THREADS or `threads` in a config file (which
 * `fastmem-bench calibrate --parallel` writes from its own measurement)
 * sets the cap, nothing is timed: the setting decides.
 *
 * Times are per byte (calls differ in size) from CLOCK_MONOTONIC (the vDSO:
 * no system call); the best of each side, since a shared machine only ever
 * makes a call slower.  The state is relaxed atomics: callers in several
 * threads may each add a sample; a lost or extra one changes nothing that
 * the next trial would not.
 */
#include "config.h"

#include <time.h>

#include "internal.h"

#define TRIALS 3
#define RECHECK 256
#define GAIN_PERCENT 2

enum { UNDECIDED, ALONE, SPLIT };

static struct observation {
	unsigned long calls; /* large automatic calls so far */
	/* best picoseconds per KiB this trial, 0 none yet */
	uint64_t best_split, best_alone;
	unsigned samples;	   /* timed calls of the current trial */
	int decision;		   /* UNDECIDED, ALONE, SPLIT */
	unsigned decided_samples;  /* timed calls behind the decision */
	uint64_t ratio_permille;   /* lone time / split time, x1000 */
	unsigned long trial_start; /* calls when the current trial began */
} obs[FM_PAR_KINDS];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int fm_auto_begin(int kind, struct fm_auto_trial *tr)
{
	struct observation *o = &obs[kind];
	unsigned long c = __atomic_fetch_add(&o->calls, 1, __ATOMIC_RELAXED);
	unsigned long start =
		__atomic_load_n(&o->trial_start, __ATOMIC_RELAXED);
	int decision = __atomic_load_n(&o->decision, __ATOMIC_RELAXED);

	tr->timed = 0;
	if (decision != UNDECIDED && c - start >= RECHECK) {
		/* a re-check: a fresh trial, the decision stands meanwhile */
		__atomic_store_n(&o->trial_start, c, __ATOMIC_RELAXED);
		__atomic_store_n(&o->best_split, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&o->best_alone, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&o->samples, 0, __ATOMIC_RELAXED);
		start = c;
	}
	if (c - start < 2 * TRIALS) {
		tr->timed = 1;
		tr->split = (c - start) % 2 == 0;
		tr->t0 = now_ns();
		return tr->split;
	}
	return decision == SPLIT;
}

static void keep_best(uint64_t *best, uint64_t v)
{
	uint64_t old = __atomic_load_n(best, __ATOMIC_RELAXED);

	while ((!old || v < old) &&
	       !__atomic_compare_exchange_n(best, &old, v, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

void fm_auto_end(int kind, const struct fm_auto_trial *tr, size_t n,
		 int did_split)
{
	struct observation *o = &obs[kind];
	uint64_t ns = now_ns() - tr->t0, per_kib, split, alone;
	unsigned got;

	if (!tr->timed || did_split != tr->split || n < 1024)
		return; /* the pool was busy: not a split sample */
	per_kib = ns * 1000u / (n >> 10);
	keep_best(tr->split ? &o->best_split : &o->best_alone,
		  per_kib ? per_kib : 1);
	got = __atomic_add_fetch(&o->samples, 1, __ATOMIC_RELAXED);
	split = __atomic_load_n(&o->best_split, __ATOMIC_RELAXED);
	alone = __atomic_load_n(&o->best_alone, __ATOMIC_RELAXED);
	if (got < 2 * TRIALS || !split || !alone)
		return;
	__atomic_store_n(&o->ratio_permille, alone * 1000u / split,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&o->decided_samples, got, __ATOMIC_RELAXED);
	__atomic_store_n(&o->decision,
			 split * (100 + GAIN_PERCENT) <= alone * 100 ? SPLIT
								     : ALONE,
			 __ATOMIC_RELAXED);
}

int fm_auto_state(int kind, struct fm_parallel_auto *out, unsigned threads)
{
	struct observation *o = &obs[kind];
	int decision = __atomic_load_n(&o->decision, __ATOMIC_RELAXED);

	out->calls = __atomic_load_n(&o->calls, __ATOMIC_RELAXED);
	out->samples = __atomic_load_n(&o->decided_samples, __ATOMIC_RELAXED);
	out->split_ratio =
		(double)__atomic_load_n(&o->ratio_permille, __ATOMIC_RELAXED) /
		1000.0;
	if (decision == UNDECIDED) {
		out->basis = out->calls ? FM_AUTO_TIMING : FM_AUTO_UNTIMED;
		out->threads = threads;
	} else {
		out->basis = FM_AUTO_MEASURED;
		out->threads = decision == SPLIT ? threads : 1;
	}
	return 0;
}
