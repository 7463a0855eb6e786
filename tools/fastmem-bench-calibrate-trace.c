/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate --trace: the decisions weighed by the call sizes
 * a program recorded.  This file: the recorded files, the replayed
 * comparison every decision is made of, and the order of the decisions;
 * the decisions themselves are in -trace-variant.c and -trace-thresholds.c
 * (calibrate-trace.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate-trace.h"

struct dist trace[MAX_TRACES];
int ntrace;
const char *const arena_names[ARENAS] = { "L1", "LLC", "memory" };

int trace_runs(void)
{
	return opt.quick ? TRACE_RUNS_QUICK : TRACE_RUNS;
}

double share_between(const struct dist *d, int op, size_t lo, size_t hi)
{
	double w = 0;

	if (d->total[op] <= 0 || lo >= hi)
		return 0;
	for (size_t i = 0; i < d->nr[op]; i++) {
		const struct dist_range *r = &d->r[op][i];
		size_t a = r->lo > lo ? r->lo : lo;
		size_t b = r->hi < hi - 1 ? r->hi : hi - 1;

		if (a <= b)
			w += r->w * (double)(b - a + 1) /
			     (double)(r->hi - r->lo + 1);
	}
	return w / d->total[op];
}

int trace_op(enum fm_op op)
{
	return op == FM_OP_MEMSET ? DIST_SET : DIST_COPY;
}

int any_replayable(int dop)
{
	for (int f = 0; f < ntrace; f++)
		if (replayable(&trace[f], dop))
			return 1;
	return 0;
}

void trace_measure(int dop, unsigned mask, const struct series *ser, int ns,
		   struct verdict *v, char *src, char *dst,
		   void (*before)(unsigned arena))
{
	size_t arena[ARENAS];
	int runs = trace_runs();
	/* [run][file][arena][series] */
	static double r[TRACE_RUNS][MAX_TRACES][ARENAS][MAX_SERIES];

	replay_arenas(arena);
	memset(v, 0, sizeof(*v) * (size_t)ns);
	for (int run = 0; run < runs; run++)
		for (int f = 0; f < ntrace; f++) {
			if (!replayable(&trace[f], dop))
				continue;
			for (unsigned a = 0; a < ARENAS; a++) {
				struct cell out[MAX_SERIES];

				if (!(mask & (1u << a)))
					continue;
				if (before)
					before(a);
				activity("calibrate --trace %s %s %s run %d",
					 trace[f].name,
					 dop == DIST_COPY ? "copies" : "sets",
					 arena_names[a], run + 1);
				/* each candidate in a cell of its own with
				 * the current way: with more rows, the
				 * rotation runs each row after the same
				 * neighbour every time, and a row run after
				 * an identical one gains up to 30% here
				 * (branch history of the same sequence) */
				for (int s = 1; s < ns; s++) {
					struct series two[2] = { ser[0],
								 ser[s] };

					replay_cell(&trace[f], dop, a,
						    arena[a] / 2, two, 2, 0,
						    src, dst, out);
					r[run][f][a][s] =
						out[0].state == CELL_OK &&
								out[1].state ==
									CELL_OK
							? out[1].pratio
							: 0;
				}
				progress_step(activity_text());
			}
		}
	for (int s = 1; s < ns; s++) {
		struct verdict *x = &v[s];
		double sc[TRACE_RUNS], tmp[TRACE_RUNS];
		int loses = 0, bad = 0;

		for (int run = 0; run < runs; run++) {
			double lg = 0;
			int n = 0;

			for (int f = 0; f < ntrace; f++)
				for (unsigned a = 0; a < ARENAS; a++) {
					double q = r[run][f][a][s];

					if (!replayable(&trace[f], dop) ||
					    !(mask & (1u << a)))
						continue;
					if (q <= 0)
						bad = 1;
					else
						lg += log(q);
					n++;
				}
			sc[run] = n ? exp(lg / n) : 0;
		}
		for (int f = 0; f < ntrace; f++)
			for (unsigned a = 0; a < ARENAS; a++) {
				if (!replayable(&trace[f], dop) ||
				    !(mask & (1u << a)))
					continue;
				for (int run = 0; run < runs; run++)
					tmp[run] = r[run][f][a][s];
				x->med[f][a] = median_of(tmp, runs);
				x->lo[f][a] = tmp[0];
				x->hi[f][a] = tmp[runs - 1];
				loses |= x->med[f][a] < 2 - WIN;
			}
		x->score = median_of(sc, runs);
		x->slo = sc[0];
		x->shi = sc[runs - 1];
		x->measured = !bad;
		x->wins = !bad && !loses && x->score - 1 > (WIN - 1) &&
			  x->score - 1 > x->shi - x->slo;
	}
	/* series 1 is the control: the current way again, as a row of its
	 * own; how far it strays from 1 is bias that no real difference
	 * explains, and a candidate must beat that too */
	v[1].wins = 0;
	v[0].score = fabs(v[1].score - 1) + (v[1].shi - v[1].slo);
	for (int s = 2; s < ns; s++)
		v[s].wins &= v[s].score - 1 > v[0].score;
}

void print_verdict(const char *name, const struct verdict *x, int dop,
		   unsigned mask, const struct verdict *ctl, double noise)
{
	printf("   %-14s", name);
	if (!x->measured) {
		printf(" WRONG RESULT or not measured: never chosen\n");
		return;
	}
	for (int f = 0; f < ntrace; f++) {
		if (!replayable(&trace[f], dop))
			continue;
		printf("%s%s:", f ? "\n                  " : " ",
		       trace[f].name);
		for (unsigned a = 0; a < ARENAS; a++)
			if (mask & (1u << a))
				printf(" %s %.2fx (%.2f-%.2f)", arena_names[a],
				       x->med[f][a], x->lo[f][a], x->hi[f][a]);
	}
	printf("\n                  score %.2fx (runs %.2f-%.2f): %s\n",
	       x->score, x->slo, x->shi,
	       x->wins	  ? "wins"
	       : x == ctl ? "the control: its distance from 1 is noise"
	       : x->score - 1 <= (WIN - 1) ? "does not win by 2%"
	       : x->score - 1 <= x->shi - x->slo
		       ? "its gain is within the runs' range"
	       : x->score - 1 <= noise
		       ? "its gain is within the control's noise"
		       : "loses somewhere (below 0.98x in a file and arena)");
}

/* After measuring: the variants, then the pairs' thresholds, replayed. */
void trace_decide(struct pair *pairs)
{
	size_t arena[ARENAS], maxc = 0, side;
	int runs = trace_runs(), files[DIST_OPS] = { 0, 0 };
	long steps;
	char *src, *dst;

	replay_arenas(arena);
	for (int f = 0; f < ntrace; f++)
		for (int op = 0; op < DIST_OPS; op++) {
			size_t m = replay_max_call(&trace[f], op);

			maxc = m > maxc ? m : maxc;
			files[op] += replayable(&trace[f], op);
		}
	/* the variants: two cells per run and file, for memcpy and memset */
	steps = (long)runs * (files[DIST_COPY] + files[DIST_SET]) * 2;
	steps += trace_weigh_thresholds(pairs, files);
	side = arena[2] / 2;
	src = buf_alloc(side + maxc + PAGE, 0x11);
	dst = buf_alloc(side + maxc + PAGE, 0x22);
	note("--trace: %d file%s; each decision replayed in %d separate "
	     "runs, interleaved within each",
	     ntrace, ntrace == 1 ? "" : "s", runs);
	for (int f = 0; f < ntrace; f++) {
		const struct dist *x = &trace[f];
		char a[24], b[24];

		fmt_size(x->max[DIST_COPY], a, sizeof(a));
		fmt_size(x->max[DIST_SET], b, sizeof(b));
		if (x->format == DIST_TRACE)
			note("--trace %s: %llu memcpy + %llu memmove calls up "
			     "to %s, %llu memset up to %s",
			     x->name, (unsigned long long)x->calls[0],
			     (unsigned long long)x->calls[1], a,
			     (unsigned long long)x->calls[2], b);
		else
			note("--trace %s: LLVM libc distribution, sizes up "
			     "to %s",
			     x->name, x->total[DIST_COPY] > 0 ? a : b);
	}
	progress_begin(steps);
	trace_pick_variants(src, dst);
	trace_verify_thresholds(pairs, src, dst);
	progress_end();
	buf_free(src, side + maxc + PAGE);
	buf_free(dst, side + maxc + PAGE);
	if (opt.format != OUT_TEXT)
		return;
	trace_report_variants();
	trace_report_thresholds(pairs);
}

void trace_json(const struct pair *pairs)
{
	char esc[200];

	json_extra(",\"trace\":{\"runs\":%d,\"files\":[", trace_runs());
	for (int f = 0; f < ntrace; f++) {
		json_escape(opt.traces[f], esc, sizeof(esc));
		json_extra("%s\"%s\"", f ? "," : "", esc);
	}
	trace_json_variants();
	trace_json_thresholds(pairs);
	json_extra("]}");
}

/* Load the --trace files (before the header): 0, or 2 with a message. */
int trace_load(void)
{
	char err[512];

	for (int i = 0; i < opt.ntraces; i++) {
		if (dist_load(opt.traces[i], &trace[ntrace], err,
			      sizeof(err))) {
			fprintf(stderr, "fastmem-bench calibrate: --trace %s\n",
				err);
			return 2;
		}
		ntrace++;
	}
	if (ntrace && !any_replayable(DIST_COPY) && !any_replayable(DIST_SET)) {
		fprintf(stderr,
			"fastmem-bench calibrate: --trace: no file has "
			"copies or sets to replay (a FASTMEM_TRACE file needs "
			"100 or more of one): nothing to weigh\n");
		return 2;
	}
	return 0;
}
