/* SPDX-License-Identifier: MIT */
/*
 * The residency probe: is the data of a large copy or set in the caches?
 * A measurement only: what to do with its answer is tune.c's.
 *
 * Streaming stores win when the data is not cached and lose when it is (the
 * 2005 read-back seed; docs/measurements/xeon-6-207/README.md#cold-crossovers).
 * Size cannot tell the two apart; a few loads can.  Eight loads spread over
 * the buffer, issued together so that their misses overlap, cost about one
 * memory latency when the data is out of the caches and a few cache
 * latencies when it is in: tens of nanoseconds against the tens of
 * microseconds of a 1 MiB copy.
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

int fm_x86_faults(const void *p, size_t n, uint32_t fault)
{
	return probe_spread(p, n, 1) > fault;
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
	 * Two memory latencies: a real buffer's page walk adds to its misses
	 * where the calibration's does not, and the midpoint called cached
	 * data cold (docs/measurements/zen3-guest.md#probe-the-cold-limit).
	 */
	cal->limit = 2 * memory;
	/*
	 * Page faults: eight loads over memory never touched take far longer
	 * than over memory evicted, and 16 memory latencies lies between,
	 * nearer the evicted side
	 * (docs/measurements/zen3-guest.md#probe-the-page-fault-limit).
	 */
	cal->fault = memory > UINT32_MAX / 16 ? UINT32_MAX : 16 * memory;
	return 1;
}
