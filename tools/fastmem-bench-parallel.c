/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench parallel: bandwidth of fm_memcpy_parallel,
 * fm_memset_parallel and fm_clear_pages_parallel against the thread count,
 * interleaved in one run with the system libc's single-threaded
 * memcpy/memset and libfastmem's single-threaded calls.
 */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* One series per thread count: nthreads for wrapper k is threads_of[k]. */
#define MAX_TCOUNTS 12
static unsigned threads_of[MAX_TCOUNTS];

#define WRAP(k)                                                                \
	static void *pcopy_##k(void *d, const void *s, size_t n)               \
	{                                                                      \
		return fm_memcpy_parallel(d, s, n, threads_of[k]);             \
	}                                                                      \
	static void *pset_##k(void *d, int c, size_t n)                        \
	{                                                                      \
		return fm_memset_parallel(d, c, n, threads_of[k]);             \
	}                                                                      \
	static void pclear_##k(void *p, size_t npages)                         \
	{                                                                      \
		fm_clear_pages_parallel(p, npages, threads_of[k]);             \
	}
WRAP(0)
WRAP(1)
WRAP(2)
WRAP(3)
WRAP(4)
WRAP(5)
WRAP(6)
WRAP(7)
WRAP(8)
WRAP(9)
WRAP(10)
WRAP(11)
#undef WRAP

#define FNS(k)                                                                 \
	{                                                                      \
		pcopy_##k, pset_##k, pclear_##k                                \
	}
static const struct {
	copy_fn copy;
	set_fn set;
	clear_fn clear;
} wrappers[MAX_TCOUNTS] = {
	FNS(0), FNS(1), FNS(2), FNS(3), FNS(4),	 FNS(5),
	FNS(6), FNS(7), FNS(8), FNS(9), FNS(10), FNS(11),
};
#undef FNS

static const size_t def_sizes[] = { 64 * MIB, 256 * MIB, 512 * MIB, GIB };
static const size_t quick_sizes[] = { 64 * MIB, 256 * MIB };

static unsigned cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set))
		return (unsigned)CPU_COUNT(&set);
	return 1;
}

/*
 * The thread counts: --threads, else 2 .. the CPUs (doubling past 4), twice
 * the CPUs where that is still few (more threads than CPUs: does it pay?),
 * and 0, the automatic count.
 */
static int thread_counts(void)
{
	unsigned n = cpus();
	int k = 0;

	if (opt.nthreads) {
		for (int i = 0; i < opt.nthreads && k < MAX_TCOUNTS; i++)
			threads_of[k++] = opt.threads[i];
		return k;
	}
	for (unsigned t = 2; t <= n && k < MAX_TCOUNTS - 2;
	     t = t < 4 ? t + 1 : 2 * t)
		threads_of[k++] = t;
	if (n <= 4 && k < MAX_TCOUNTS - 1)
		threads_of[k++] = 2 * n < 2 ? 2 : 2 * n;
	threads_of[k++] = 0;
	return k;
}

enum kind { K_COPY, K_SET, K_CLEAR };

/* ratio of the medians of series a and b at point x, 0 if either is not
 * there */
static double med_ratio(struct table *t, int a, int b, int x)
{
	const struct cell *ca = table_cell(t, a, x), *cb = table_cell(t, b, x);

	if (ca->state != CELL_OK || cb->state != CELL_OK || cb->v.med <= 0)
		return 0;
	return ca->v.med / cb->v.med;
}

/* Under the table: the automatic count against libc and the single-thread
 * fm_* call, at each size. */
static void conclude(struct table *t, int single, int autos)
{
	size_t len = 0;

	for (int x = 0; x < t->nx && len < sizeof(t->footer); x++) {
		double r0 = med_ratio(t, autos, t->ref, x);
		double r1 = med_ratio(t, autos, single, x);
		double best = 0;
		int bs = -1;

		for (int s = single + 1; s < t->ns; s++) {
			double r = med_ratio(t, s, t->ref, x);
			if (r > best) {
				best = r;
				bs = s;
			}
		}
		if (!r0)
			continue;
		len += (size_t)snprintf(
			t->footer + len, sizeof(t->footer) - len,
			"   %s: %s %.2fx %s, %.2fx %s; fastest %s %.2fx\n",
			t->xlabel[x], t->series[autos].name, r0,
			t->series[t->ref].name, r1, t->series[single].name,
			bs >= 0 ? t->series[bs].name : "-", best);
	}
	if (len >= sizeof(t->footer))
		t->footer[sizeof(t->footer) - 1] = 0;
}

static struct table *run_table(enum kind kind, int cold, const size_t *sizes,
			       int n, const struct region *r, int ntc)
{
	static const char *const op[] = { "memcpy", "memset", "clear_pages" };
	static const char *const single[] = { "fm_memcpy", "fm_memset",
					      "fm_clear_pages" };
	struct table *t;
	char id[64], a[24];
	int autos = -1;

	snprintf(id, sizeof(id), "parallel %s %s", op[kind],
		 cold ? "cold" : "hot");
	t = table_new(id, UNIT_GBS, 0);
	fmt_size(r->side, a, sizeof(a));
	snprintf(t->title, sizeof(t->title),
		 "%s, %s: GB/s by thread count (median), speed vs %s %s",
		 kind == K_CLEAR ? "clear_pages" : op[kind],
		 cold ? "cold" : "hot", REF_NAME,
		 kind == K_COPY ? "memcpy" : "memset");
	if (cold)
		snprintf(t->subtitle, sizeof(t->subtitle),
			 "buffers swept over %s%s (never cached); px = "
			 "fm_%s_parallel(..., x)",
			 kind == K_COPY ? "2 x " : "", a,
			 kind == K_CLEAR ? "clear_pages" : op[kind]);
	else
		snprintf(t->subtitle, sizeof(t->subtitle),
			 "the same buffers every call; px = "
			 "fm_%s_parallel(..., x)",
			 kind == K_CLEAR ? "clear_pages" : op[kind]);
	t->plot = PLOT_SIZES;
	memset(t->series, 0, sizeof(t->series[0]) * (size_t)(ntc + 2));
	snprintf(t->series[0].name, sizeof(t->series[0].name), "%s", REF_NAME);
	t->series[0].flags = S_REF;
	snprintf(t->series[1].name, sizeof(t->series[1].name), "%s",
		 single[kind]);
	t->series[1].flags = S_DISPATCH;
	switch (kind) {
	case K_COPY:
		t->series[0].fn.copy = sys_memcpy;
		t->series[1].fn.copy = fm_memcpy;
		break;
	case K_SET:
		t->series[0].fn.set = sys_memset;
		t->series[1].fn.set = fm_memset;
		break;
	case K_CLEAR:
		t->series[0].fn.clear = libc_clear;
		t->series[1].fn.clear = fm_clear_pages;
		break;
	}
	t->ns = 2;
	for (int k = 0; k < ntc; k++) {
		struct series *s = &t->series[t->ns++];

		if (threads_of[k])
			snprintf(s->name, sizeof(s->name), "p%u",
				 threads_of[k]);
		else
			snprintf(s->name, sizeof(s->name), "auto");
		if (!threads_of[k])
			autos = t->ns - 1;
		s->flags = S_DISPATCH;
		s->fn.copy = wrappers[k].copy;
		if (kind == K_SET)
			s->fn.set = wrappers[k].set;
		if (kind == K_CLEAR)
			s->fn.clear = wrappers[k].clear;
	}
	sweep_table(t,
		    kind == K_COPY  ? SWEEP_COPY
		    : kind == K_SET ? SWEEP_SET
				    : SWEEP_CLEAR,
		    sizes, n, 0, 0, cold, r, opt.byte);
	if (autos >= 0)
		conclude(t, 1, autos);
	table_emit(t);
	return t;
}

int cmd_parallel(void)
{
	unsigned modes = opt.modes ? opt.modes : MODE_COLD;
	size_t sizes[MAX_POINTS], maxs = 0;
	int n = 0, ntc = thread_counts();
	struct region r;
	struct fm_parallel_info pi;
	char a[24];

	if (opt.nsizes) {
		for (int i = 0; i < opt.nsizes; i++)
			sizes[n++] = (opt.sizes[i] + PAGE - 1) & ~(PAGE - 1);
	} else {
		const size_t *d = opt.quick ? quick_sizes : def_sizes;
		int nd = opt.quick ? 2 : 4;

		for (int i = 0; i < nd; i++)
			if (!opt.max || d[i] <= opt.max)
				sizes[n++] = d[i];
	}
	for (int i = 0; i < n; i++)
		if (sizes[i] > maxs)
			maxs = sizes[i];
	/* a side holds two positions of the largest size, or the region */
	r.side = region_total(CMD_PARALLEL) / 2;
	if (sizeof(void *) < 8 && r.side > 256 * MIB)
		r.side = 256 * MIB;
	if (!opt.region && r.side < PAGE + 2 * sweep_stride(maxs))
		r.side = (PAGE + 2 * sweep_stride(maxs) + MIB - 1) & ~(MIB - 1);
	if (!(modes & MODE_COLD))
		r.side = PAGE + sweep_stride(maxs);
	while (n > 1 && PAGE + sweep_stride(sizes[n - 1]) > r.side)
		n--;
	if (PAGE + sweep_stride(sizes[0]) > r.side) {
		fprintf(stderr,
			"fastmem-bench parallel: the sizes do not fit a "
			"--region of %zu MiB\n",
			2 * r.side / MIB);
		return 2;
	}
	fm_parallel_info(&pi);
	fmt_size(pi.split_min, a, sizeof(a));
	note("automatic count here: %u thread%s (%u CPUs, cap %u from %s); "
	     "one thread below %s",
	     pi.threads, pi.threads == 1 ? "" : "s", pi.cpus, pi.cap,
	     pi.cap_source, a);
	note("streaming from (memcpy, memset, clear_page): %zu, %zu, %zu "
	     "bytes; every chunk follows the decision for the whole call",
	     fm_nt_threshold(FM_OP_MEMCPY), fm_nt_threshold(FM_OP_MEMSET),
	     fm_nt_threshold(FM_OP_CLEAR_PAGE));
	r.src = buf_alloc(r.side, 0x11);
	r.dst = buf_alloc(r.side, 0x22);
	progress_begin(3L * n * (!!(modes & MODE_COLD) + !!(modes & MODE_HOT)));
	for (int m = 0; m < 2; m++) {
		int cold = m == 0;

		if (!(modes & (cold ? MODE_COLD : MODE_HOT)))
			continue;
		run_table(K_COPY, cold, sizes, n, &r, ntc);
		run_table(K_SET, cold, sizes, n, &r, ntc);
		run_table(K_CLEAR, cold, sizes, n, &r, ntc);
	}
	buf_free(r.src, r.side);
	buf_free(r.dst, r.side);
	return 0;
}

/*
 * calibrate --parallel: the thread count to cap the automatic one at, from
 * cold copies and sets of 256 MiB (--quick 64 MiB) split over 1, 2, ...
 * CPUs threads.  A count counts only if it beats the one-thread call by
 * more than 5% in both (the runs' spread on a shared host is a few %), and
 * the smallest count within 3% of the best is taken: more threads than
 * that take CPUs and gain nothing.  Returns the count (1 where splitting
 * does not pay) and says why; 0 with one CPU, where there is nothing to
 * decide.
 */
/* The cells' spread: the median over the counts of the larger of the
 * count's and the one-thread call's half-IQR over the median. */
static double calib_noise(struct table *t[2], int ntc)
{
	double v[2 * MAX_TCOUNTS], tmp;
	int n = 0;

	for (int o = 0; o < 2; o++)
		for (int k = 0; k < ntc; k++) {
			const struct cell *a = table_cell(t[o], 1, 0);
			const struct cell *b = table_cell(t[o], 2 + k, 0);
			double sa = a->v.med > 0
					    ? (a->v.q3 - a->v.q1) / 2 / a->v.med
					    : 1;
			double sb = b->v.med > 0
					    ? (b->v.q3 - b->v.q1) / 2 / b->v.med
					    : 1;

			v[n++] = sa > sb ? sa : sb;
		}
	for (int i = 1; i < n; i++) /* insertion sort: a handful */
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--)
			tmp = v[j], v[j] = v[j - 1], v[j - 1] = tmp;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

unsigned parallel_calibrate(char *why, size_t len, double *effect,
			    double *noise)
{
	size_t size = opt.quick ? 64 * MIB : 256 * MIB;
	unsigned n = cpus(), best = 1;
	double score[MAX_TCOUNTS] = { 0 }, top = 1;
	struct table *t[2];
	struct region r;
	int ntc = 0;

	if (n < 2) {
		snprintf(why, len, "one CPU in the affinity mask");
		return 0;
	}
	if (n > 256) /* the most FASTMEM_THREADS / threads accepts */
		n = 256;
	/* 2, 3, 4, 8, 16, ... below the CPUs, and the CPUs */
	for (unsigned c = 2; c < n && ntc < MAX_TCOUNTS - 1;
	     c = c < 4 ? c + 1 : 2 * c)
		threads_of[ntc++] = c;
	threads_of[ntc++] = n;
	/* the region (--region, else the default) holds two positions of a
	 * buffer a side; smaller sizes where it is small, down to the size
	 * from which the calls split at all */
	r.side = region_total(CMD_PARALLEL) / 2;
	if (sizeof(void *) < 8 && r.side > 256 * MIB)
		r.side = 256 * MIB;
	while (size > 8 * MIB && PAGE + 2 * sweep_stride(size) > r.side)
		size /= 2;
	if (r.side < PAGE + 2 * sweep_stride(size))
		r.side = (PAGE + 2 * sweep_stride(size) + MIB - 1) & ~(MIB - 1);
	r.src = buf_alloc(r.side, 0x11);
	r.dst = buf_alloc(r.side, 0x22);
	progress_begin(2);
	t[0] = run_table(K_COPY, 1, &size, 1, &r, ntc);
	t[1] = run_table(K_SET, 1, &size, 1, &r, ntc);
	progress_end();
	buf_free(r.src, r.side);
	buf_free(r.dst, r.side);
	/* series 0 libc, 1 the one-thread call, 2.. the counts */
	for (int k = 0; k < ntc; k++) {
		double lo = 0;

		for (int o = 0; o < 2; o++) {
			double v = med_ratio(t[o], 2 + k, 1, 0);

			lo = o == 0 || v < lo ? v : lo;
		}
		score[k] = lo;
		if (lo > top)
			top = lo;
	}
	/* the decision's margin: how far the best count lies from the 5%
	 * gain that decides between it and one thread */
	double high = score[0];

	for (int k = 1; k < ntc; k++)
		high = score[k] > high ? score[k] : high;
	*effect = high > 1.05 ? high - 1.05 : 1.05 - high;
	*noise = calib_noise(t, ntc);
	if (top > 1.05) {
		for (int k = ntc - 1; k >= 0; k--)
			if (score[k] >= 0.97 * top)
				best = threads_of[k];
	}
	size_t l = (size_t)snprintf(why, len,
				    "cold copy and set of %zu MiB, the slower "
				    "of the two over one thread:",
				    size / MIB);
	for (int k = 0; k < ntc && l < len; k++)
		l += (size_t)snprintf(why + l, len - l, " %u threads %.2fx",
				      threads_of[k], score[k]);
	if (l < len)
		snprintf(why + l, len - l, "%s",
			 best == 1 ? "; no count gains more than 5%"
				   : "; the fewest threads within 3% of the "
				     "best");
	return best;
}
