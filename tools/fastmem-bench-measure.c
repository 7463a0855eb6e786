/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: the interleaved measurement of one cell (verified, timed
 * in a balanced order of the rows, medians, quartiles and ratios)
 * and of a table of sweeps.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "run-order.h"

/* --- statistics ----------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const double *sorted, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;
	double f = pos - i;

	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] * (1 - f) + sorted[i + 1] * f;
}

static struct stat5 stats(double *v, int n)
{
	struct stat5 s = { 0, 0, 0, 0, 0 };

	if (n <= 0)
		return s;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.med = quantile(v, n, 0.5);
	s.q1 = quantile(v, n, 0.25);
	s.q3 = quantile(v, n, 0.75);
	return s;
}

/* --- one cell ------------------------------------------------------------- */

#define MAX_K (1L << 30)

/* Relative interquartile range of n values (not reordered). */
static double spread(const double *v, int n)
{
	double tmp[3 * 1000];
	struct stat5 s;

	if (n < 3 || n > (int)(sizeof(tmp) / sizeof(tmp[0])))
		return 0;
	memcpy(tmp, v, sizeof(double) * (size_t)n);
	s = stats(tmp, n);
	return s.med > 0 ? (s.q3 - s.q1) / s.med : 0;
}

/* Without --reps, a cell whose spread stays above this gets more runs. */
#define NOISY 0.10

void measure_cell(struct job *jobs, int nj, int ref, enum unit unit,
		  struct cell *out, int *verified)
{
	int base = opt.reps > 0 ? opt.reps : default_reps();
	int maxr = opt.reps > 0 ? base : 3 * base;
	/* --quick must end within a minute: no extra runs after 35 s */
	int late = opt.quick && now_ns() - bench_start > 35e9;
	double cap = opt.quick ? 1.5e9 : 8e9;
	double target = default_batch_ns();
	double *val = calloc((size_t)nj * (size_t)maxr, sizeof(double));
	double *tsc = calloc((size_t)nj * (size_t)maxr, sizeof(double));
	double *rat = calloc((size_t)nj * (size_t)maxr, sizeof(double));
	int ok[MAX_SERIES], cal = -1, r;
	long k = 1;
	double t, start;

	if (!val || !tsc || !rat || nj > MAX_SERIES) {
		fprintf(stderr, "fastmem-bench: out of memory\n");
		exit(1);
	}
	for (int i = 0; i < nj; i++) {
		int st = verified ? verified[i] : 0;

		memset(&out[i], 0, sizeof(out[i]));
		if (!st) {
			cur_series = jobs[i].s->name;
			jobs[i].why[0] = 0;
			st = jobs[i].verify(&jobs[i]) ? CELL_WRONG : CELL_OK;
			if (st == CELL_WRONG) {
				fprintf(stderr,
					"fastmem-bench: %s: WRONG RESULT in "
					"%s: %s; not timed\n",
					jobs[i].s->name, activity_text(),
					jobs[i].why);
				bench_failed = 1;
			}
			if (verified)
				verified[i] = st;
		}
		ok[i] = st == CELL_OK;
		out[i].state = st;
		if (ok[i] && (cal < 0 || i == ref))
			cal = i;
	}
	if (cal < 0)
		goto done;

	/* batch size: calls until a batch lasts `target` */
	cur_series = jobs[cal].s->name;
	for (;;) {
		t = jobs[cal].run(&jobs[cal], k);
		if (t >= target || k >= MAX_K)
			break;
		double f = t > 0 ? target * 1.2 / t : 64;
		long nk = (long)(k * (f > 64 ? 64 : f));
		k = nk > 2 * k ? nk : 2 * k;
	}
	/* warm-up (skipped when a single call already takes 20 ms) */
	if (t < 20e6) {
		double fastest = t;

		for (int i = 0; i < nj; i++) {
			if (!ok[i])
				continue;
			cur_series = jobs[i].s->name;
			double w = jobs[i].run(&jobs[i], k);
			if (w < fastest)
				fastest = w;
		}
		if (fastest > 0 && fastest < target / 2 && k < MAX_K)
			k = (long)(k * (target / fastest > 16
						? 16
						: target / fastest));
	}

	/* runs: every row once per run, in the order run_order gives */
	start = now_ns();
	for (r = 0; r < maxr; r++) {
		int noisy = 0;

		if (r >= base) {
			for (int i = 0; i < nj; i++)
				if (ok[i] && spread(&val[i * maxr], r) > NOISY)
					noisy = 1;
			if (!noisy || late || now_ns() - start > cap)
				break;
		}
		for (int x = 0; x < nj; x++) {
			int i = run_order(r, x, nj);

			if (!ok[i])
				continue;
			cur_series = jobs[i].s->name;
			t = jobs[i].run(&jobs[i], k);
			if (t <= 0)
				t = 1;
			if (unit == UNIT_GBS)
				val[i * maxr + r] = jobs[i].bytes * k / t;
			else
				val[i * maxr + r] = t / (k * jobs[i].ops);
			tsc[i * maxr + r] =
				(double)jobs[i].tsc / ((double)k * jobs[i].ops);
		}
		for (int i = 0; i < nj; i++) {
			if (!ok[i] || !ok[ref])
				continue;
			double a = val[i * maxr + r], b = val[ref * maxr + r];
			rat[i * maxr + r] = unit == UNIT_GBS ? a / b : b / a;
		}
	}
	for (int i = 0; i < nj; i++) {
		if (!ok[i])
			continue;
		out[i].v = stats(&val[i * maxr], r);
		if (have_tsc)
			out[i].tsc = stats(&tsc[i * maxr], r).med;
		out[i].pratio = ok[ref] ? stats(&rat[i * maxr], r).med : 0;
		out[i].nsamples = r;
	}
	for (int i = 0; i < nj; i++) {
		if (!ok[i] || !ok[ref] || out[i].v.med <= 0 ||
		    out[ref].v.med <= 0)
			continue;
		out[i].ratio = unit == UNIT_GBS ? out[i].v.med / out[ref].v.med
						: out[ref].v.med / out[i].v.med;
	}
done:
	cur_series = NULL;
	free(val);
	free(tsc);
	free(rat);
}

/* --- a table of sweeps ------------------------------------------------- */

void sweep_table(struct table *t, enum sweep_kind kind, const size_t *sizes,
		 int n, size_t soff, size_t doff, int cold,
		 const struct region *r, int c)
{
	size_t pos = 0;

	for (int x = 0; x < n; x++)
		table_add_point(t, sizes[x],
				kind == SWEEP_READBACK ? "1 page" : NULL);
	for (int x = 0; x < n; x++) {
		struct job jobs[MAX_SERIES];
		struct cell out[MAX_SERIES];
		size_t sz = sizes[x], st = sweep_stride(sz);
		size_t slots = cold ? (r->side - PAGE) / st : 1;

		if (!slots)
			slots = 1;
		pos %= slots;
		activity("%s %s", t->id, t->xlabel[x]);
		for (int s = 0; s < t->ns; s++) {
			struct job *j = &jobs[s];

			memset(j, 0, sizeof(*j));
			j->s = &t->series[s];
			j->src = r->src + PAGE + soff;
			j->dst = r->dst + PAGE + doff;
			j->slots = slots;
			j->flush = cold && sweep_flush(sz, slots);
			j->pos = &pos;
			j->bytes = (double)sz;
			j->ops = 1;
			j->n = sz;
			j->c = c;
			j->dstep = cold ? st : 0;
			switch (kind) {
			case SWEEP_COPY:
			case SWEEP_COPY_RB:
				j->run = kind == SWEEP_COPY ? run_copy
							    : run_copy_rb;
				j->verify = verify_copy;
				j->sstep = j->dstep;
				break;
			case SWEEP_SET:
				j->run = run_set;
				j->verify = verify_set;
				break;
			case SWEEP_CLEAR:
				j->run = run_clear;
				j->verify = verify_clear;
				j->n = sz / PAGE;
				break;
			case SWEEP_READBACK:
				j->run = run_rb_clear;
				j->verify = verify_clear;
				j->n = 1;
				j->c = RB_ALL;
				j->dstep = 0;
				break;
			}
		}
		measure_cell(jobs, t->ns, t->ref,
			     kind == SWEEP_READBACK ? UNIT_NS : UNIT_GBS, out,
			     NULL);
		for (int s = 0; s < t->ns; s++)
			*table_cell(t, s, x) = out[s];
		progress_step(activity_text());
	}
	progress_end();
}
