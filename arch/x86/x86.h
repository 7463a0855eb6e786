/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the x86 variant families.  Each family's file is compiled
 * with only its own ISA flags, so everything here is static inline and each
 * vector helper exists only where the including file's flags allow it.
 *
 * The streaming policy, one module fed by two: the class table (classes.c:
 * data, each number pointing to its evidence in docs/measurements/) and the
 * residency probe (probe.c: measurement) feed the crossovers in force and
 * the decisions (tune.c, and fm_x86_copy_how/fm_x86_set_how below, pure
 * functions of them).  lib/ reaches all of it only through the per-arch
 * hooks of lib/internal.h.
 */
#ifndef FASTMEM_X86_H
#define FASTMEM_X86_H

#include <immintrin.h>

#include "internal.h"
#include "small.h"

#define FM_LINE 64

/* --- CPU classes (classes.c) --------------------------------------------- */

enum { FM_X86_OTHER, FM_X86_AMD, FM_X86_INTEL };

struct fm_x86_id {
	unsigned vendor, family, model; /* display family and model */
};

/* A size: NEVER, or mul/div of bytes, of the L1d, or of the L2 per thread */
enum { FM_X_NEVER, FM_X_BYTES, FM_X_L1D, FM_X_L2 };
struct fm_crossover {
	uint8_t base;
	uint32_t mul, div;
};

#define FM_X86_MODEL_RANGES 4

/* A class of CPUs and where its policies cross over, with the source. */
struct fm_x86_class {
	char name[40];
	uint8_t vendor;
	uint16_t family;
	/* display models, inclusive ranges; an empty one is {0, 0} */
	uint16_t models[FM_X86_MODEL_RANGES][2];
	struct fm_crossover copy_rep; /* vector loop -> rep movsb */
	/* from here rep movsb only into a destination the probe finds
	 * cold, the vector loop into one cached or being faulted in (NEVER:
	 * rep movsb whatever the residency) */
	struct fm_crossover copy_rep_cold;
	/* and from here rep movsb again whatever the residency (NEVER:
	 * copy_rep_cold's rule up to the threshold) */
	struct fm_crossover copy_rep_any;
	struct fm_crossover set_rep; /* vector loop -> rep stosb */
	/* from here (below set_rep) a zmm set times its first
	 * FM_SET_TIMED bytes and, if those stores waited on memory, does
	 * the rest with rep stosb (NEVER: the vector loop whatever the
	 * residency) */
	struct fm_crossover set_rep_cold;
	/* 1: rep movsb slows down when the destination is 1-63 bytes ahead
	 * of the source modulo 4096 (fm_rep_movsb_slow), so copies take the
	 * vector loop there */
	uint8_t rep_movsb_aliasing;
	/* streaming wins from here when the data is not cached (the
	 * residency probe runs from here), and from here even when it is */
	struct fm_crossover copy_cold, copy_cached;
	struct fm_crossover set_cold, set_cached;
	/* rep stosb streams by itself from here, faster than streaming
	 * stores or clzero: sets use it whatever the residency */
	struct fm_crossover set_rep_streams;
	/* streaming copies prefetch (prefetcht0) this many bytes ahead of
	 * their loads, once per 4 vectors; 0: not at all */
	uint16_t copy_nt_prefetch;
	/* streaming sets and clears go through this many pages at once, a
	 * line from each in turn (1: one page after the other) */
	uint8_t set_nt_pages;
	/* 1: streamed zero fills use clzero where the CPU has it */
	uint8_t set_clzero;
	/* 1: the automatic memcpy, memmove and memset of a CPU with AVX-512
	 * are avx512_zen4_auto (avx512.c: copies of up to 64 bytes load two
	 * ymm halves, sets of 257-512 bytes store in address order), not
	 * avx512_auto */
	uint8_t avx512_zen4;
	char source[160];
};

FM_HIDDEN void fm_x86_cpu_id(struct fm_x86_id *id);
FM_HIDDEN const struct fm_x86_class *fm_x86_class(void);
FM_HIDDEN int fm_x86_class_matches(const struct fm_x86_class *k,
				   const struct fm_x86_id *id);
/* The table (n entries) and the entry for CPUs it does not match. */
FM_HIDDEN const struct fm_x86_class *
fm_x86_classes(size_t *n, const struct fm_x86_class **other);
FM_HIDDEN size_t fm_x86_crossover(struct fm_crossover x,
				  const struct fm_cache_info *ci);

/* --- the residency probe (probe.c) -----------------------------------------
 */

/*
 * Is [p, p+n) out of the caches?  Eight loads spread over it, issued
 * together so their misses overlap, timed against the limit the library
 * measured once (twice, at other lines, before it says yes: an interrupt
 * must not make cached data look cold).  Loads slower than fault are
 * page faults: memory never touched, which the kernel is zeroing through
 * the caches right now, so not cold.  Reads bytes of the buffer only.
 */
FM_HIDDEN int fm_x86_cold(const void *p, size_t n, uint32_t limit,
			  uint32_t fault);
/* Are [p, p+n)'s pages being faulted in (never touched)?  One probe of
 * eight loads against fault; 0 for a buffer too small to probe. */
FM_HIDDEN int fm_x86_faults(const void *p, size_t n, uint32_t fault);
/* Measure the latencies once: 1 if the probe is usable, else 0 and why. */
struct fm_x86_probe_cal {
	/* ticks for 8 overlapped loads: cached, from memory, cold above
	 * limit, page faults above fault */
	uint32_t cached, memory, limit, fault;
	const char *why; /* unusable: the reason */
};
/* tsc_disabled: the settings' tsc_disabled (the process started with
 * rdtsc disabled by prctl PR_SET_TSC), from settings the caller has */
FM_HIDDEN int fm_x86_probe_calibrate(struct fm_x86_probe_cal *cal,
				     int tsc_disabled);

/* --- the crossovers in force (tune.c) --------------------------------------
 */

/*
 * Ops whose automatic policy may stream below the threshold (stream[]):
 * fm_op's first three, by the same numbers.
 */
enum {
	FM_X_COPY = FM_OP_MEMCPY,
	FM_X_MOVE = FM_OP_MEMMOVE,
	FM_X_SET = FM_OP_MEMSET,
	FM_X_OPS
};
_Static_assert(FM_X_OPS == FM_OP_MEMSET + 1, "x86 ops are fm_op's first");

struct fm_x86_tune {
	size_t copy_rep_min;	 /* temporal copies use rep movsb from here */
	size_t copy_rep_cold;	 /* from here only into cold destinations */
	size_t copy_rep_any;	 /* from here into any destination again */
	size_t set_rep_min;	 /* temporal sets use rep stosb from here */
	size_t set_rep_timed;	 /* from here sets time their first bytes */
	uint32_t set_cold_ticks; /* and finish with rep stosb above this */
	int rep_movsb_aliasing;	 /* the class's: avoid fm_rep_movsb_slow */
	size_t set_rep_streams;	 /* every set uses rep stosb from here */
	int clzero;		 /* zero fills past the threshold use clzero */
	/*
	 * Below its threshold an automatic memcpy/memmove/memset of at least
	 * stream_min[op] bytes streams if the probe finds the data cold
	 * (probe set), or else, the probe being off or unusable, from
	 * size_min[op] bytes by size alone.  SIZE_MAX: never.
	 */
	size_t stream_min[FM_X_OPS];
	size_t size_min[FM_X_OPS];
	int probe;
	uint32_t probe_limit, probe_fault;
	int ready;
};

/*
 * Past the threshold, where data streams whatever its residency: are
 * [p, p+n)'s pages being faulted in (never touched)?  One probe, 0 without
 * a usable one: streaming into such pages loses
 * (docs/measurements/zen3-guest.md#faulting-pages-past-the-threshold).
 */
FM_HIDDEN int fm_x86_faulting(const struct fm_x86_tune *t, const void *p,
			      size_t n);
/* Should an automatic policy stream these n bytes (below its threshold)?
 * s is NULL for sets.  Call time only. */
FM_HIDDEN int fm_x86_stream(const struct fm_x86_tune *t, int op, const void *d,
			    const void *s, size_t n);
/* The same decision, given what the probe found (cold: nonzero). */
FM_HIDDEN int fm_x86_stream_decide(const struct fm_x86_tune *t, int op,
				   size_t n, int cold);
/* The crossovers of class k on a CPU with these caches and features, the
 * probe usable or not, with the user's thresholds explicit or not. */
FM_HIDDEN void
fm_x86_tune_compute(struct fm_x86_tune *t, const struct fm_x86_class *k,
		    const struct fm_cache_info *ci, uint32_t features,
		    const struct fm_x86_probe_cal *cal, int probe_usable,
		    const int explicit_thr[FM_X_OPS],
		    const size_t *cold_override);

extern FM_HIDDEN struct fm_x86_tune fm_x86_tune_cache;
/*
 * Copies past the small sizes and below this many bytes take the vector
 * loop without looking the crossovers up (copy_big, vecops-copy.h): 16 KiB,
 * or copy_rep_min where that is lower (a class whose rep movsb wins below
 * 16 KiB, or a rep_from setting), set before the first call
 * (fm_arch_thresholds_init), so that such copies reach rep movsb before
 * any call has computed the rest of the crossovers.
 */
#define FM_X86_LOOP_BELOW 16384
extern FM_HIDDEN size_t fm_x86_copy_loop_below;
/* Where temporal copies take rep movsb: the class's crossover, or
 * rep_from.memcpy (st may be NULL: none); SIZE_MAX without ERMS.
 * RESOLVER-SAFE. */
FM_HIDDEN size_t fm_x86_copy_rep_min(const struct fm_x86_class *k,
				     const struct fm_cache_info *ci, int erms,
				     const struct fm_settings *st);
FM_HIDDEN const struct fm_x86_tune *fm_x86_tune_init(void);
FM_HIDDEN const char *fm_x86_tune_notes(void);

static inline const struct fm_x86_tune *fm_x86_tune(void)
{
	if (FM_UNLIKELY(!__atomic_load_n(&fm_x86_tune_cache.ready,
					 __ATOMIC_ACQUIRE)))
		return fm_x86_tune_init();
	return &fm_x86_tune_cache;
}

/*
 * How the streaming loops run on this CPU: the class's set_nt_pages << 16 |
 * copy_nt_prefetch, 0 until first computed.  Class data alone, so that the
 * hints and the forced streaming variants read it without the crossovers
 * being computed or the probe calibrated (which times with rdtsc).  Every
 * thread computes the same word.  Call time only.
 */
extern FM_HIDDEN unsigned fm_x86_nt_shape_cache;
FM_HIDDEN unsigned fm_x86_nt_shape_init(void);

static inline unsigned fm_x86_nt_shape(void)
{
	unsigned v = __atomic_load_n(&fm_x86_nt_shape_cache, __ATOMIC_RELAXED);

	return FM_LIKELY(v) ? v : fm_x86_nt_shape_init();
}

/* Bytes streaming copies prefetch ahead (0: none) */
static inline size_t fm_x86_nt_prefetch(void)
{
	return fm_x86_nt_shape() & 0xffff;
}

/* Pages streaming sets go through at a time (at least 1) */
static inline size_t fm_x86_nt_pages(void)
{
	return fm_x86_nt_shape() >> 16;
}

/*
 * A forward copy is correct unless dst starts inside (src, src + n); a
 * backward one unless src starts inside (dst, dst + n).
 */
static inline int fm_fwd_ok(const void *d, const void *s, size_t n)
{
	return (uintptr_t)d - (uintptr_t)s >= n;
}

static inline int fm_bwd_ok(const void *d, const void *s, size_t n)
{
	return (uintptr_t)s - (uintptr_t)d >= n;
}

/*
 * 4 KiB aliasing: when dst is just ahead of src modulo 4096, the loads of a
 * forward loop look (to the store-forwarding check, which compares only
 * address bits 11:0) as if they depended on the stores just issued, and
 * stall.  Copying backward then avoids it.  glibc uses the same test.
 */
static inline int fm_alias_4k(const void *d, const void *s, size_t window)
{
	return (((uintptr_t)d - (uintptr_t)s) & 4095) < window;
}

/* sfence without needing -msse in the including file */
static inline void fm_sfence(void)
{
	__asm__ volatile("sfence" : : : "memory");
}

static inline void fm_rep_movsb(void *d, const void *s, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

/*
 * Is the destination 1-63 bytes ahead of the source modulo 4096, where
 * rep movsb slows down on some CPUs (each class's rep_movsb_aliasing says
 * whether it avoids the window;
 * docs/measurements/zen3-guest.md#rep_movsb_aliasing)?
 */
static inline int fm_rep_movsb_slow(const void *d, const void *s)
{
	return (((uintptr_t)d - (uintptr_t)s) & 4095) - 1 < FM_LINE - 1;
}

/* How a copy or set past the small sizes is done (FM_X_TIMED: sets only) */
enum fm_x86_how { FM_X_LOOP, FM_X_REP, FM_X_STREAM, FM_X_TIMED };

/*
 * The copy policy's choice once the threshold has not decided (the vector
 * families' copy_big_policy), apart so that tests can check it with any
 * crossovers.  op: FM_X_COPY or FM_X_MOVE, whose streaming below the
 * threshold depends on where the data is; -1 for the hints, which stream
 * only from their threshold.  rep movsb only where copy_rep may run (forward,
 * the destination not within a line below the source) and is not slow.
 */
static inline enum fm_x86_how fm_x86_copy_how(const struct fm_x86_tune *t,
					      const void *d, const void *s,
					      size_t n, int op)
{
	if (op >= 0 && n >= t->stream_min[op] && !fm_overlaps(d, s, n) &&
	    fm_x86_stream(t, op, d, s, n))
		return FM_X_STREAM;
	if (n >= t->copy_rep_min && fm_fwd_ok(d, s, n) &&
	    (uintptr_t)s - (uintptr_t)d >= FM_LINE &&
	    !(t->rep_movsb_aliasing && fm_rep_movsb_slow(d, s)) &&
	    (n < t->copy_rep_cold || n >= t->copy_rep_any || op < 0 ||
	     !t->probe || fm_x86_cold(d, n, t->probe_limit, t->probe_fault)))
		return FM_X_REP;
	return FM_X_LOOP;
}

/*
 * Sets from set_rep_timed bytes store their first FM_SET_TIMED bytes with
 * the vector loop, timed, and finish with rep stosb if that took longer than
 * set_cold_ticks (a quarter of the memory latency) but less than a page
 * fault: their own first stores tell a cold destination from a cached one
 * more cheaply than a load probe
 * (docs/measurements/zen5-guest.md#set_rep_cold).
 */
#define FM_SET_TIMED 4096

static inline int fm_x86_set_rest_rep(const struct fm_x86_tune *t, uint64_t dt)
{
	return dt > t->set_cold_ticks && dt <= t->probe_fault;
}

/*
 * The set policy's choice for n bytes past the small sizes (the vector
 * families' set_big_policy), apart so that tests can check it with any
 * crossovers, as fm_x86_copy_how.  thr: the streaming threshold; probe:
 * whether streaming below it depends on where the data is (the dispatched
 * memset) or not (the hints).  Whether a streamed zero fill uses clzero
 * (t->clzero) is the caller's, which has the byte; FM_X_TIMED is for
 * families whose loop is fast enough for the timed start (zmm).
 */
static inline enum fm_x86_how fm_x86_set_how(const struct fm_x86_tune *t,
					     const void *d, size_t n,
					     size_t thr, int probe)
{
	/* where rep stosb streams by itself, faster than our stores */
	if (n >= t->set_rep_streams)
		return FM_X_REP;
	if ((n >= thr && !(probe && fm_x86_faulting(t, d, n))) ||
	    (probe && n >= t->stream_min[FM_X_SET] &&
	     fm_x86_stream(t, FM_X_SET, d, 0, n)))
		return FM_X_STREAM;
	if (n >= t->set_rep_min)
		return FM_X_REP;
	if (probe && n >= t->set_rep_timed)
		return FM_X_TIMED;
	return FM_X_LOOP;
}

static inline void fm_rep_stosb(void *d, int c, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
}

static inline void fm_clzero(unsigned char *line)
{
	__asm__ volatile("clzero" : : "a"(line) : "memory");
}

/*
 * Zero the lines in [p, end), both line-aligned, a line from each of 8 pages
 * in turn (faster past the caches than one page after the other:
 * docs/measurements/zen5-guest.md#set_clzero); ends with sfence.
 */
static inline void fm_clzero_range(unsigned char *p, unsigned char *end)
{
	for (; end - p >= 8 * FM_PAGE_SIZE; p += 8 * FM_PAGE_SIZE)
		for (size_t o = 0; o < FM_PAGE_SIZE; o += FM_LINE)
#pragma GCC unroll 8
			for (int k = 0; k < 8; k++)
				fm_clzero(p + k * FM_PAGE_SIZE + o);
	for (; p < end; p += FM_LINE)
		fm_clzero(p);
	fm_sfence();
}

#ifdef __SSE2__
/* 16 <= n <= 32, overlap-safe */
static inline void fm_copy_16_32(unsigned char *d, const unsigned char *s,
				 size_t n)
{
	__m128i a = _mm_loadu_si128((const __m128i *)s);
	__m128i b = _mm_loadu_si128((const __m128i *)(s + n - 16));

	_mm_storeu_si128((__m128i *)d, a);
	_mm_storeu_si128((__m128i *)(d + n - 16), b);
}

static inline void fm_set_16_32(unsigned char *d, __m128i v, size_t n)
{
	_mm_storeu_si128((__m128i *)d, v);
	_mm_storeu_si128((__m128i *)(d + n - 16), v);
}
#endif

#ifdef __AVX__
/* 32 <= n <= 64, overlap-safe */
static inline void fm_copy_32_64(unsigned char *d, const unsigned char *s,
				 size_t n)
{
	__m256i a = _mm256_loadu_si256((const __m256i *)s);
	__m256i b = _mm256_loadu_si256((const __m256i *)(s + n - 32));

	_mm256_storeu_si256((__m256i *)d, a);
	_mm256_storeu_si256((__m256i *)(d + n - 32), b);
}

static inline void fm_set_32_64(unsigned char *d, __m256i v, size_t n)
{
	_mm256_storeu_si256((__m256i *)d, v);
	_mm256_storeu_si256((__m256i *)(d + n - 32), v);
}
#endif

#endif /* FASTMEM_X86_H */
