/* SPDX-License-Identifier: MIT */
/*
 * The count of one traced call (FASTMEM_TRACE), inlined into the traced
 * twins of the variants (lib/trace.c says why and how it is exact).  A
 * twin is the variant with this count in front:
 *
 *	void *traced_memcpy_x(void *d, const void *s, size_t n)
 *	{
 *		FM_TRACE_COPY(FM_OP_MEMCPY, copy_x, d, s, n);
 *		return copy_x(d, s, n);
 *	}
 *
 * On a thread's calls after its first that is no call: the shard pointer
 * from initial-exec TLS, a one-byte increment, two tests that are rarely
 * taken, then the direct tail jump to the variant.
 */
#ifndef FASTMEM_TRACE_COUNT_H
#define FASTMEM_TRACE_COUNT_H

#include "internal.h"

#define FM_TRACE_OPS (FM_OP_MEMSET + 1) /* the byte-wise ops, by number */

/* One thread's counters: one byte per slot, wraps carried to fm_trace_carry */
struct fm_trace_shard {
	uint8_t count[FM_TRACE_OPS][FM_TRACE_SLOTS];
} __attribute__((aligned(64)));

/* This thread's shard, NULL until its first traced call claims one */
extern __thread struct fm_trace_shard *fm_trace_my_shard
	__attribute__((tls_model("initial-exec"))) FM_HIDDEN;
/* Wraps of the one-byte counters, all shards together: 256 calls each */
extern FM_HIDDEN uint64_t fm_trace_carry[FM_TRACE_OPS][FM_TRACE_SLOTS];

/* The first traced call of a thread (and every call of a thread that found
 * no shard free): counts, then calls fn.  Out of line: only there do the
 * twins make a call. */
FM_HIDDEN void *fm_trace_first_copy(int op, void *d, const void *s, size_t n,
				    copy_fn *fn);
FM_HIDDEN void *fm_trace_first_set(void *d, int c, size_t n, set_fn *fn);

/* The slot of a size above FM_TRACE_EXACT_MAX: its power-of-two range */
static FM_ALWAYS_INLINE size_t fm_trace_range(size_t n)
{
	return FM_TRACE_EXACT_MAX + 1 +
	       (8 * sizeof(size_t) - 1 -
		(size_t)__builtin_clzl((unsigned long)n)) -
	       12;
}

static FM_ALWAYS_INLINE size_t fm_trace_bucket(size_t n)
{
	return FM_LIKELY(n <= FM_TRACE_EXACT_MAX) ? n : fm_trace_range(n);
}

/* Inline, not a call: a call on the twins' path would make them save and
 * restore registers on every call. */
static FM_ALWAYS_INLINE void fm_trace_count_carry(int op, size_t slot)
{
	__atomic_fetch_add(&fm_trace_carry[op][slot], 1, __ATOMIC_RELAXED);
}

/* Add one to this thread's counter: one instruction (see lib/trace.c) */
static FM_ALWAYS_INLINE void fm_trace_bump(struct fm_trace_shard *sh, int op,
					   size_t slot)
{
	uint8_t *c = &sh->count[op][slot];

#if defined(__x86_64__) || defined(__i386__)
	asm goto("addb $1, %0\n\tjc %l[wrapped]"
		 :
		 : "m"(*c)
		 : "cc", "memory"
		 : wrapped);
	return;
wrapped:
	fm_trace_count_carry(op, slot);
#else
	if (FM_UNLIKELY(!__atomic_add_fetch(c, 1, __ATOMIC_RELAXED)))
		fm_trace_count_carry(op, slot);
#endif
}

static FM_ALWAYS_INLINE void fm_trace_count_in(struct fm_trace_shard *sh,
					       int op, const void *d,
					       const void *s, size_t n,
					       int copy)
{
	fm_trace_bump(sh, op, fm_trace_bucket(n));
	if (FM_UNLIKELY(!(((uintptr_t)d | (uintptr_t)s) & 63)))
		fm_trace_bump(sh, op, FM_TRACE_ALIGNED64);
	if (copy && FM_UNLIKELY(fm_overlaps(d, s, n)))
		fm_trace_bump(sh, op, FM_TRACE_OVERLAPPING);
}

/* Count a copy, or hand the call to fm_trace_first_copy (a tail call) */
#define FM_TRACE_COPY(op, fn, d, s, n)                                         \
	do {                                                                   \
		struct fm_trace_shard *sh_ = fm_trace_my_shard;                \
                                                                               \
		if (FM_UNLIKELY(!sh_))                                         \
			return fm_trace_first_copy(op, d, s, n, fn);           \
		fm_trace_count_in(sh_, op, d, s, n, 1);                        \
	} while (0)

#define FM_TRACE_SET(fn, d, c, n)                                              \
	do {                                                                   \
		struct fm_trace_shard *sh_ = fm_trace_my_shard;                \
                                                                               \
		if (FM_UNLIKELY(!sh_))                                         \
			return fm_trace_first_set(d, c, n, fn);                \
		fm_trace_count_in(sh_, FM_OP_MEMSET, d, 0, n, 0);              \
	} while (0)

#endif /* FASTMEM_TRACE_COUNT_H */
