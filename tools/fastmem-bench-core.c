/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: timing, buffers, the timed loops, and the interleaved
 * measurement of one cell and of a table of sweeps.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#if BENCH_X86
#include <cpuid.h>
#include <x86intrin.h>
#endif

/* The system routines, called through volatile pointers so the compiler can
 * neither inline them nor see which function runs. */
void *(*volatile sys_memcpy)(void *, const void *, size_t) = memcpy;
void *(*volatile sys_memset)(void *, int, size_t) = memset;

int bench_failed;
double bench_start;

/* --- clocks --------------------------------------------------------------- */

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#if BENCH_X86
const int have_tsc = 1;
uint64_t ticks(void)
{
	return __rdtsc();
}
#else
const int have_tsc = 0;
uint64_t ticks(void)
{
	return 0;
}
#endif

int default_reps(void)
{
	/* calibrate decides from the ratios: two more runs */
	int extra = opt.cmd == CMD_CALIBRATE ? 2 : 0;

	return (opt.quick ? 5 : 11) + extra;
}

double default_batch_ns(void)
{
	if (opt.batch_ns > 0)
		return opt.batch_ns;
	return opt.quick ? 200e3 : 1e6;
}

/* --- buffers ------------------------------------------------------------- */

#define HUGE_ALIGN (2 * MIB)
#define MAX_MAPS 32

static struct {
	char *user, *raw;
	size_t len;
} maps[MAX_MAPS];

char *buf_alloc(size_t bytes, int fill)
{
	size_t len = bytes + HUGE_ALIGN;
	char *raw, *p;
	char a[32];

	raw = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED) {
		fmt_size(bytes, a, sizeof(a));
		fprintf(stderr,
			"fastmem-bench: cannot map %s: %s (try a smaller "
			"--region)\n",
			a, strerror(errno));
		exit(1);
	}
	p = (char *)(((uintptr_t)raw + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1));
#ifdef MADV_HUGEPAGE
	if (opt.thp && bytes >= 2 * HUGE_ALIGN)
		madvise(p, bytes & ~(HUGE_ALIGN - 1), MADV_HUGEPAGE);
#endif
	/* pre-fault: every page written, none left as the shared zero page */
	sys_memset(p, fill, bytes);
	for (int i = 0; i < MAX_MAPS; i++) {
		if (!maps[i].user) {
			maps[i].user = p;
			maps[i].raw = raw;
			maps[i].len = len;
			break;
		}
	}
	return p;
}

void buf_free(char *p, size_t bytes)
{
	(void)bytes;
	for (int i = 0; i < MAX_MAPS; i++) {
		if (maps[i].user == p) {
			munmap(maps[i].raw, maps[i].len);
			maps[i].user = NULL;
			return;
		}
	}
}

/*
 * A swept region is a guard page, then slots: each slot holds the largest
 * offset used (< 4096), the n bytes and 64 guard bytes, rounded up to pages,
 * so offsets keep their meaning relative to page boundaries.
 */
size_t sweep_stride(size_t n)
{
	return (n + PAGE + 64 + PAGE - 1) & ~(PAGE - 1);
}

/* The caches this process's data can live in: L2 and L3 (whole). */
static size_t cache_bytes(void)
{
	struct fm_cache_info ci;

	fm_cache_info(&ci);
	return ci.l2 + ci.l3;
}

const struct region_default region_defaults[CMD_COUNT] = {
	[CMD_COPY] = { 256 * MIB, 1 * GIB },
	[CMD_SET] = { 256 * MIB, 1 * GIB },
	[CMD_PAGE] = { 256 * MIB, 1 * GIB },
	[CMD_CALIBRATE] = { 512 * MIB, 1 * GIB },
	[CMD_VERSUS] = { 2 * GIB, 2 * GIB },
	[CMD_RESIDENCY] = { 512 * MIB, 1 * GIB },
	[CMD_REPLAY] = { 256 * MIB, 1 * GIB },
	[CMD_PARALLEL] = { 512 * MIB, 2 * GIB },
};

size_t region_total(enum cmd c)
{
	size_t r =
		opt.quick ? region_defaults[c].quick : region_defaults[c].full;
	size_t want = 4 * cache_bytes();
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	size_t ram = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz : 0;

	if (opt.region)
		return opt.region;
	if (ram && want > ram / 4)
		want = ram / 4;
	if (sizeof(void *) < 8 && want > 512 * MIB)
		want = 512 * MIB; /* a 32-bit address space */
	if (r < want)
		r = (want + MIB - 1) & ~(MIB - 1);
	return r;
}

#define FLUSH_MAX_N (64 * KIB)

#if BENCH_X86
static int have_clflushopt = -1;

static void flush_lines(const char *p, size_t n)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, e = (uintptr_t)p + n;

	if (have_clflushopt)
		for (; a < e; a += 64)
			__asm__ volatile("clflushopt %0"
					 : "+m"(*(volatile char *)a));
	else
		for (; a < e; a += 64)
			__asm__ volatile("clflush %0"
					 : "+m"(*(volatile char *)a));
}
#endif

int sweep_flush(size_t n, size_t slots)
{
#if BENCH_X86
	size_t lines = (n + 63) / 64 + 1;

	if (have_clflushopt < 0) {
		unsigned a, b, c, d;

		have_clflushopt = __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
				  (b & (1u << 23));
	}
	/* flush if the lines swept would fit twice in the caches */
	return slots > 1 && n <= FLUSH_MAX_N &&
	       slots * lines * 64 < 2 * cache_bytes() + 64 * MIB;
#else
	(void)n;
	(void)slots;
	return 0;
#endif
}

/* After a batch of k calls from sweep position p0: push the lines they
 * touched out of the caches. */
static void flush_batch(struct job *j, size_t p0, long k)
{
#if BENCH_X86
	size_t p = p0, n = j->n;

	if ((long)j->slots < k)
		k = (long)j->slots;
	if (j->run == run_cpage || j->run == run_clear)
		n *= PAGE;
	for (long i = 0; i < k; i++) {
		if (j->dstep)
			flush_lines(j->dst + p * j->dstep, n);
		if (j->sstep)
			flush_lines(j->src + p * j->sstep, n);
		if (++p >= j->slots)
			p = 0;
	}
	__asm__ volatile("mfence" ::: "memory");
#else
	(void)j;
	(void)p0;
	(void)k;
#endif
}

/* --- runners ---------------------------------------------------------------
 */

/* the row running now, for the crash report (fastmem-bench-progress.c) */
const char *volatile cur_series;

void *copy_temporal(void *d, const void *s, size_t n)
{
	return fm_memcpy_hint(d, s, n, FM_HINT_TEMPORAL);
}

void *copy_streaming(void *d, const void *s, size_t n)
{
	return fm_memcpy_hint(d, s, n, FM_HINT_NONTEMPORAL);
}

void *set_temporal(void *d, int c, size_t n)
{
	return fm_memset_hint(d, c, n, FM_HINT_TEMPORAL);
}

void *set_streaming(void *d, int c, size_t n)
{
	return fm_memset_hint(d, c, n, FM_HINT_NONTEMPORAL);
}

volatile uint64_t read_back_sink;

typedef uint64_t v2u64 __attribute__((vector_size(16)));

/* Read every byte back, four independent 16-byte sums per cache line, so
 * the reading is bound by where the data is, not by an addition chain. */
__attribute__((noinline)) uint64_t read_back(const char *p, size_t bytes)
{
	const v2u64 *q = (const v2u64 *)p;
	v2u64 a = { 0, 0 }, b = a, c = a, d = a;

	for (size_t i = 0; i < bytes / 64; i++) {
		a += q[4 * i];
		b += q[4 * i + 1];
		c += q[4 * i + 2];
		d += q[4 * i + 3];
	}
	a += b + c + d;
	return a[0] + a[1];
}

/* Before a batch of k calls from sweep position p0: give the destinations
 * back to the kernel, so that each call faults its pages in again (zeroed,
 * as a fresh mapping's), outside the timing. */
static void drop_batch(struct job *j, size_t p0, long k)
{
	size_t p = p0, n = j->n;

	if ((long)j->slots < k)
		k = (long)j->slots;
	for (long i = 0; i < k; i++) {
		uintptr_t a = (uintptr_t)(j->dst + p * j->dstep);
		uintptr_t b = a + n;

		a &= ~(uintptr_t)(PAGE - 1);
		b = (b + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
		madvise((void *)a, b - a, MADV_DONTNEED);
		if (++p >= j->slots)
			p = 0;
	}
}

/*
 * The timed loops, one per call signature so that a loop holds nothing but
 * the call and the step to the next slot.  CALL sees f (the row's function),
 * dst + p * ds and src + p * ss (the slot's destination and source), n and
 * c.
 */
#define RUNNER(name, fn_type, field, CALL)                                     \
	double name(struct job *j, long k)                                     \
	{                                                                      \
		fn_type f = j->s->fn.field;                                    \
		char *dst = j->dst, *src = j->src;                             \
		size_t n = j->n, ds = j->dstep, ss = j->sstep;                 \
		size_t slots = j->slots, p = *j->pos;                          \
		int c = j->c;                                                  \
		uint64_t t0;                                                   \
		double a, b;                                                   \
                                                                               \
		if (j->fresh)                                                  \
			drop_batch(j, p, k);                                   \
		t0 = ticks();                                                  \
		a = now_ns();                                                  \
                                                                               \
		(void)src, (void)ss, (void)n, (void)c;                         \
		for (long i = 0; i < k; i++) {                                 \
			CALL;                                                  \
			if (++p >= slots)                                      \
				p = 0;                                         \
		}                                                              \
		b = now_ns();                                                  \
		j->tsc = ticks() - t0;                                         \
		if (j->flush)                                                  \
			flush_batch(j, *j->pos, k);                            \
		*j->pos = p;                                                   \
		return b - a;                                                  \
	}

RUNNER(run_copy, copy_fn, copy, f(dst + p * ds, src + p * ss, n))
RUNNER(run_set, set_fn, set, f(dst + p * ds, c, n))
RUNNER(run_copy_rb, copy_fn, copy,
       (f(dst + p * ds, src + p * ss, n),
	read_back_sink += read_back(dst + p * ds, n)))
RUNNER(run_set_rb, set_fn, set,
       (f(dst + p * ds, c, n), read_back_sink += read_back(dst + p * ds, n)))
RUNNER(run_cpage, cpage_fn, cpage, f(dst + p * ds, src + p * ss))
RUNNER(run_clear, clear_fn, clear, f(dst + p * ds, n))

/* --- statistics
 * --------------------------------------------------------------- */

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

/* --- one cell
 * ----------------------------------------------------------------- */

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

	/* runs: every row once per run, the order rotating */
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
			int i = (x + r) % nj;

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
