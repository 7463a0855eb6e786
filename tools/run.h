/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench run, shared between its files: the timed runs and their
 * verdict (fastmem-bench-run.c) and --trace's recording and replay
 * (fastmem-bench-run-trace.c).
 */
#ifndef FASTMEM_BENCH_RUN_H
#define FASTMEM_BENCH_RUN_H

/* "fastmem-bench run: " and fmt with arg, one line on stderr. */
void run_fail(const char *fmt, const char *arg);
/* One more run with the preload and var ("NAME=value") set: 0, or -1 if
 * it could not be started. */
int run_with_var(char *var);

/* --trace FILE: record, replay libc against fm_* in the three arenas, and
 * print the saving the replay predicts beside the one measured (saved:
 * the share of the wall time, saved_err its standard error; run_s: the
 * median run without the preload).  0, or 1 on an error. */
int run_record_and_replay(double run_s, double saved, double saved_err);

#endif /* FASTMEM_BENCH_RUN_H */
