/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: timing, buffers and the timed loops (the measurement of
 * a cell is in fastmem-bench-measure.c).
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
