/* SPDX-License-Identifier: MIT */
/*
 * The residency probe: is the data of a large copy or set in the caches?
 *
 * Streaming stores win when the data is not cached and lose when it is (the
 * 2005 read-back seed; docs/measurements/xeon-6-207: streaming a cold
 * 2-32 MiB copy wins 1.16-1.31x even counting the read-back, streaming the
 * same copy of cached data loses 0.59-0.82x).  Size cannot tell the two
 * apart; a few loads can.  Eight loads spread over the buffer, issued
 * together so that their misses overlap, cost about one memory latency when
 * the data is out of the caches and a few cache latencies when it is in:
 * tens of nanoseconds against the tens of microseconds of a 1 MiB copy.
 *
 * Call time only; no allocation, no lock, no call: safe wherever memcpy is.
 */
#include <cpuid.h>

#include "x86.h"

/*
 * The leading lfence waits for the loads before it to complete: Intel
 * documents lfence; rdtsc for this, and AMD's lfence is dispatch serializing
 * (always from family 0x17 on; before, where the OS set the bit).  rdtscp
 * would do the same but is not everywhere: the Zen 5 KVM guest hides it.
 * Where lfence does not wait, cached and uncached loads time alike and the
 * calibration turns the probe off.  The trailing one keeps the loads after
 * it from starting before the count is read.
 */
static inline uint64_t tsc_read(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence"
			 : "=a"(lo), "=d"(hi)
			 :
			 : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* Ticks for eight independent loads at p, p + step, ..., p + 7 step. */
static __attribute__((noinline)) uint32_t probe8(const unsigned char *p,
						 size_t step)
{
	const volatile unsigned char *q = p;
	uint64_t t0, t1;
	unsigned v;

	t0 = tsc_read();
	v = q[0] + q[step] + q[2 * step] + q[3 * step] + q[4 * step] +
	    q[5 * step] + q[6 * step] + q[7 * step];
	t1 = tsc_read();
	__asm__ volatile("" : : "r"(v)); /* the loads happened */
	return t1 - t0 > UINT32_MAX ? UINT32_MAX : (uint32_t)(t1 - t0);
}

/* Eight loads over [p, p+n), from the quarter (q = 1) or three quarters
 * (q = 3) of an eighth on; 0 where n is too small to spread them. */
static uint32_t probe_spread(const void *p, size_t n, int q)
{
	size_t step = (n / 8) & ~(size_t)(FM_LINE - 1);

	if (step < FM_LINE)
		return 0;
	/* the largest offset read is 3/4 step + 7 step < n */
	return probe8((const unsigned char *)p +
			      ((q * step / 4) & ~(size_t)(FM_LINE - 1)),
		      step);
}

int fm_x86_cold(const void *p, size_t n, uint32_t limit, uint32_t fault)
{
	uint32_t t = probe_spread(p, n, 1);

	if (t <= limit || t > fault)
		return 0;
	t = probe_spread(p, n, 3);
	return t > limit && t <= fault;
}

/* Eight lines in eight pages, for the calibration. */
static unsigned char cal_lines[8][FM_PAGE_SIZE]
	__attribute__((aligned(FM_PAGE_SIZE)));

#define CAL_TRIALS 24
#define SLOW_TSC 2000 /* ticks for 8 cached loads: rdtsc must be trapping */

int fm_x86_probe_calibrate(struct fm_x86_probe_cal *cal, int tsc_disabled)
{
	unsigned a, b, c, d;
	uint32_t cached = UINT32_MAX, memory = UINT32_MAX;

	cal->cached = cal->memory = cal->limit = cal->fault = 0;
	cal->why = "";
	if (tsc_disabled) {
		/* prctl(PR_SET_TSC, PR_TSC_SIGSEGV) when the process started:
		 * rdtsc would kill it */
		cal->why = "the time stamp counter is disabled (PR_SET_TSC)";
		return 0;
	}
	if ((unsigned)__get_cpuid_max(0x80000000u, 0) < 0x80000007u) {
		cal->why = "no invariant TSC";
		return 0;
	}
	__cpuid(0x80000007u, a, b, c, d);
	if (!(d & (1u << 8))) {
		cal->why = "no invariant TSC";
		return 0;
	}
	for (int t = 0; t < CAL_TRIALS; t++) {
		/* a different line each trial, so no prefetcher learns it */
		size_t off =
			(size_t)(t * 3 % (FM_PAGE_SIZE / FM_LINE)) * FM_LINE;
		uint32_t x;

		for (int i = 0; i < 8; i++)
			cal_lines[i][off]++;
		x = probe8(&cal_lines[0][off], FM_PAGE_SIZE);
		cached = x < cached ? x : cached;
		for (int i = 0; i < 8; i++)
			__asm__ volatile("clflush %0"
					 : "+m"(cal_lines[i][off]));
		__asm__ volatile("mfence" ::: "memory");
		x = probe8(&cal_lines[0][off], FM_PAGE_SIZE);
		memory = x < memory ? x : memory;
	}
	cal->cached = cached;
	cal->memory = memory;
	if (cached > SLOW_TSC) {
		cal->why = "reading the time stamp counter is slow (trapped)";
		return 0;
	}
	if (memory < 2 * cached || memory - cached < 100) {
		cal->why = "cached and uncached loads take the same time";
		return 0;
	}
	/*
	 * Two memory latencies.  The calibration's lines are in pages whose
	 * translations are cached; a real buffer's are not, and the page walk
	 * is cheap when its tables are cached (data in use) and dear when they
	 * are not (data long unused).  On the Zen 3 KVM guest (eight loads
	 * over a buffer, ticks): cached 1-2 MiB p50 294-514, p90 686-907;
	 * evicted by a 1 GiB sweep at least 5071; calibrated memory 343-417.
	 * The midpoint (~200) called cached 2 MiB data cold 9 times in 101.
	 */
	cal->limit = 2 * memory;
	/*
	 * Page faults.  Memory never touched (a fresh mmap, a large malloc)
	 * faults on the probe's loads, eight faults one after the other (each
	 * maps the shared zero page), and again on the call's first store to
	 * each page, where the kernel zeroes a new page through the caches:
	 * streaming into such pages made fresh 2-8 MiB sets 0.75-0.84x glibc,
	 * read back or not (4 KiB pages; with huge pages at parity).  Eight
	 * loads over a fresh 2-8 MiB buffer on the Zen 3 guest: 13794 ticks
	 * at least, p50 18000-35000 (33 to 84 times the calibrated memory
	 * latency, 368-417);
	 * evicted by a 1 GiB sweep, 4 KiB pages or 2 MiB: 1176-4974 (3 to 12
	 * times).  16 times lies between, with the wider margin on the
	 * faults' side: a fault taken for cold loses 20% to glibc, cold
	 * taken for a fault only misses the chance to stream.  Measured on
	 * this guest alone; where NUMA balancing unmaps long-unused pages, it
	 * may call such cold data a fault (a chance missed, not a loss).
	 */
	cal->fault = memory > UINT32_MAX / 16 ? UINT32_MAX : 16 * memory;
	return 1;
}

int fm_x86_stream_decide(const struct fm_x86_tune *t, int op, size_t n,
			 int cold)
{
	if (n < t->stream_min[op])
		return 0;
	if (!t->probe)
		return n >= t->size_min[op];
	return cold;
}

int fm_x86_faulting(const struct fm_x86_tune *t, const void *p, size_t n)
{
	return t->probe && probe_spread(p, n, 1) > t->probe_fault;
}

int fm_x86_stream(const struct fm_x86_tune *t, int op, const void *d,
		  const void *s, size_t n)
{
	/* a copy streams only if neither end is in use */
	int cold = t->probe && n >= t->stream_min[op] &&
		   (!s || fm_x86_cold(s, n, t->probe_limit, t->probe_fault)) &&
		   fm_x86_cold(d, n, t->probe_limit, t->probe_fault);

	return fm_x86_stream_decide(t, op, n, cold);
}

int fm_arch_streams_below(enum fm_op op, const void *d, const void *s, size_t n)
{
	const struct fm_x86_tune *t = fm_x86_tune();

	/* the page calls never probe */
	return (int)op < FM_X_OPS && n >= t->stream_min[op] &&
	       fm_x86_stream(t, op, d, op == FM_OP_MEMSET ? 0 : s, n);
}
