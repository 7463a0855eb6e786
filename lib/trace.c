/* SPDX-License-Identifier: MIT */
/*
 * FASTMEM_TRACE=PATH: count the memcpy/memmove/memset calls of a process by
 * size and write the counts to PATH at exit (and on fm_trace_flush());
 * lib/trace-file.c writes the file.
 *
 * The resolvers call fm_trace_resolve() with the registry entry they chose;
 * with tracing off it returns that variant and nothing else changes (no
 * twin, no test on the call path).  With tracing on it returns the entry's
 * traced twin: the same variant with the count of lib/trace-count.h in
 * front, one increment of the size's counter (and, for aligned or
 * overlapping calls, a second).  The twins are generated from the registry
 * below and end in a direct jump to their variant; the x86 policies, which
 * the automatic choice takes, have the count inlined at their own top
 * (arch/x86/vecops-copy.h), so a traced call there makes no jump more than
 * an untraced one.  (The wrappers before them were one per op and jumped
 * through a pointer to the chosen variant.)
 *
 * Counting runs before main, in signal handlers and in every thread: no
 * allocation, no lock, no call.  Each thread counts into a shard of its
 * own (static memory it claims on its first call; one pointer in
 * initial-exec TLS), with plain one-byte increments: a shared counter's
 * locked increment waits for the copy's stores to drain (+132-182% per
 * call in the L1 memcpy replays on the Intel Xeon guest; see
 * docs/tracing.md), and one byte per size keeps the 4097 exact sizes of an
 * op within 4 KiB of cache, where 8-byte counters took 32 KiB.  A counter
 * that wraps adds 256 to a shared 64-bit carry.  Shards are static, so the
 * counts of a thread that exited stay; its shard goes to the next thread
 * that finds its owner gone.
 *
 * A signal handler that interrupts a count on the same thread and counts
 * itself loses nothing: on x86 the increment is one instruction (addb to
 * memory, then jc to the carry) and a signal arrives between instructions;
 * elsewhere it is an atomic add (load-reserved/store-conditional, which an
 * interrupting handler makes retry).  Threads that find every shard held
 * by a live thread count into a common shard with atomic adds.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>

#include "internal.h"
#include "sys.h"
#include "trace-count.h"
#include "variants.h"

#define SHARDS 64
#define T_OPS FM_TRACE_OPS

static struct fm_trace_shard shards[SHARDS];
static int shard_owner[SHARDS]; /* thread id, 0: free */
static int shards_used;		/* shards[0..shards_used-1] were claimed */
/* for threads that found no free shard, atomic adds */
static struct fm_trace_shard common;
uint64_t fm_trace_carry[T_OPS][FM_TRACE_SLOTS];

__thread struct fm_trace_shard *fm_trace_my_shard
	__attribute__((tls_model("initial-exec")));
/* calls to make before trying again to claim a shard */
static __thread unsigned claim_wait __attribute__((tls_model("initial-exec")));

static int enabled; /* the resolvers chose the twins */
static int writing; /* a write is in progress */

static inline void bump_atomic(struct fm_trace_shard *sh, int op, size_t slot)
{
	if (FM_UNLIKELY(!__atomic_add_fetch(&sh->count[op][slot], 1,
					    __ATOMIC_RELAXED)))
		fm_trace_count_carry(op, slot);
}

/* Is thread tid of this process gone (its shard free to take)? */
static int thread_gone(int tid)
{
	long pid = fm_id(SYS_getpid);

	return fm_syscall3(SYS_tgkill, pid, tid, 0) == -ESRCH;
}

/* A shard for this thread: a free one, or one whose thread exited; NULL
 * if every shard belongs to a live thread.  Async-signal-safe: a handler
 * that interrupts this claims a shard of its own, which stays this
 * thread's (its counts are added up with the others). */
static struct fm_trace_shard *claim_shard(void)
{
	int tid = (int)fm_id(SYS_gettid);

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < SHARDS; i++) {
			int owner = __atomic_load_n(&shard_owner[i],
						    __ATOMIC_RELAXED);

			if (owner && (pass == 0 || !thread_gone(owner)))
				continue;
			if (!__atomic_compare_exchange_n(
				    &shard_owner[i], &owner, tid, 0,
				    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				continue;
			for (int used = __atomic_load_n(&shards_used,
							__ATOMIC_RELAXED);
			     used <= i &&
			     !__atomic_compare_exchange_n(
				     &shards_used, &used, i + 1, 0,
				     __ATOMIC_RELEASE, __ATOMIC_RELAXED);)
				;
			return &shards[i];
		}
	return 0;
}

/* The calls of a thread without a shard into the common one, atomically */
static void count_common(int op, const void *d, const void *s, size_t n,
			 int copy)
{
	bump_atomic(&common, op, fm_trace_bucket(n));
	if (!(((uintptr_t)d | (uintptr_t)s) & 63))
		bump_atomic(&common, op, FM_TRACE_ALIGNED64);
	if (copy && fm_overlaps(d, s, n))
		bump_atomic(&common, op, FM_TRACE_OVERLAPPING);
}

/* The first call of a thread, and every call of a thread without a shard
 * (it tries to claim one again every 4096 calls). */
static void count_unowned(int op, const void *d, const void *s, size_t n,
			  int copy)
{
	struct fm_trace_shard *sh;

	if (!claim_wait) {
		sh = claim_shard();
		if (sh) {
			fm_trace_my_shard = sh;
			fm_trace_count_in(sh, op, d, s, n, copy);
			return;
		}
		claim_wait = 4096;
	}
	claim_wait--;
	count_common(op, d, s, n, copy);
}

/* noinline: inlined into a twin, its call made the twin save and restore
 * three registers on every call */
__attribute__((noinline)) void *
fm_trace_first_copy(int op, void *d, const void *s, size_t n, copy_fn *fn)
{
	count_unowned(op, d, s, n, 1);
	return fn(d, s, n);
}

__attribute__((noinline)) void *fm_trace_first_set(void *d, int c, size_t n,
						   set_fn *fn)
{
	count_unowned(FM_OP_MEMSET, d, 0, n, 0);
	return fn(d, c, n);
}

/*
 * The traced twins, one per variant and op, generated from the registry:
 * traced_memcpy_<id>, traced_memmove_<id> and traced_memset_<id> count
 * and jump straight to the variant (a direct jump: the wrappers before
 * them loaded the variant's address and jumped through it).  Each starts
 * on a 64-byte line, as the variants do.
 */
FM_DECLARE_VARIANTS

#define TWIN_COPY(name, op, target)                                            \
	static __attribute__((aligned(64))) void *name(void *d, const void *s, \
						       size_t n)               \
	{                                                                      \
		FM_TRACE_COPY(op, target, d, s, n);                            \
		return target(d, s, n);                                        \
	}
#define TWIN_SET(name, target)                                                 \
	static __attribute__((aligned(64))) void *name(void *d, int c,         \
						       size_t n)               \
	{                                                                      \
		FM_TRACE_SET(target, d, c, n);                                 \
		return target(d, c, n);                                        \
	}
#define TWINS_COPY_V(id, isa, fl)                                              \
	TWIN_COPY(traced_memcpy_##id, FM_OP_MEMCPY, copy_##id)                 \
	TWIN_COPY(traced_memmove_##id, FM_OP_MEMMOVE, copy_##id)
#define TWINS_SET_V(id, isa, fl) TWIN_SET(traced_memset_##id, set_##id)
#ifdef ARCH_TRACED_POLICIES
/* the arch's policies have twins of their own, the count inlined */
#define TWINS_COPY_P(id, isa, fl)                                              \
	copy_fn traced_memcpy_##id, traced_memmove_##id;
#define TWINS_SET_P(id, isa, fl) set_fn traced_memset_##id;
#else
#define TWINS_COPY_P(id, isa, fl)                                              \
	TWIN_COPY(traced_memcpy_##id, FM_OP_MEMCPY, memcpy_##id)               \
	TWIN_COPY(traced_memmove_##id, FM_OP_MEMMOVE, memmove_##id)
#define TWINS_SET_P(id, isa, fl) TWIN_SET(traced_memset_##id, memset_##id)
#endif
FM_COPY_VARIANTS(TWINS_COPY_V, TWINS_COPY_P)
FM_SET_VARIANTS(TWINS_SET_V, TWINS_SET_P)

/* Index -> twin, as a switch of PC-relative addresses (resolver-safe, as
 * registry.c's). */
#define IDX(id, isa, fl) IDX_##id,
#define CASE_TWIN(op, id, isa, fl)                                             \
	case IDX_##id:                                                         \
		return (void *)traced_##op##_##id;
#define CASE_MEMCPY(id, isa, fl) CASE_TWIN(memcpy, id, isa, fl)
#define CASE_MEMMOVE(id, isa, fl) CASE_TWIN(memmove, id, isa, fl)
#define CASE_MEMSET(id, isa, fl) CASE_TWIN(memset, id, isa, fl)

static void *traced_copy_at(enum fm_op op, int i)
{
	enum { FM_COPY_VARIANTS(IDX, IDX) };
	if (op == FM_OP_MEMMOVE)
		switch (i) {
			FM_COPY_VARIANTS(CASE_MEMMOVE, CASE_MEMMOVE)
		}
	else
		switch (i) {
			FM_COPY_VARIANTS(CASE_MEMCPY, CASE_MEMCPY)
		}
	return 0;
}

static void *traced_set_at(int i)
{
	enum { FM_SET_VARIANTS(IDX, IDX) };
	switch (i) {
		FM_SET_VARIANTS(CASE_MEMSET, CASE_MEMSET)
	}
	return 0;
}

void *fm_trace_twin(enum fm_op op, int index)
{
	switch (op) {
	case FM_OP_MEMCPY:
	case FM_OP_MEMMOVE:
		return traced_copy_at(op, index);
	case FM_OP_MEMSET:
		return traced_set_at(index);
	default:
		return 0;
	}
}

void fm_trace_count(enum fm_op op, const void *d, const void *s, size_t n)
{
	struct fm_trace_shard *sh;

	if (FM_LIKELY(!__atomic_load_n(&enabled, __ATOMIC_RELAXED)) ||
	    op > FM_OP_MEMSET)
		return;
	sh = fm_trace_my_shard;
	if (FM_UNLIKELY(!sh))
		count_unowned((int)op, d, s, n, op != FM_OP_MEMSET);
	else
		fm_trace_count_in(sh, (int)op, d, s, n, op != FM_OP_MEMSET);
}

/*
 * The shards added up.  The carry is read before and after: a thread
 * that wraps a counter meanwhile makes it read again.  (A count made by
 * another thread while this runs may be in it or not, as with any
 * snapshot; the counts of threads that exited are all in.)
 */
uint64_t fm_trace_counter(enum fm_op op, unsigned slot)
{
	for (;;) {
		uint64_t before = __atomic_load_n(&fm_trace_carry[op][slot],
						  __ATOMIC_ACQUIRE);
		uint64_t sum = __atomic_load_n(&common.count[op][slot],
					       __ATOMIC_RELAXED);
		int used = __atomic_load_n(&shards_used, __ATOMIC_ACQUIRE);

		for (int i = 0; i < used; i++)
			sum += __atomic_load_n(&shards[i].count[op][slot],
					       __ATOMIC_RELAXED);
		if (__atomic_load_n(&fm_trace_carry[op][slot],
				    __ATOMIC_ACQUIRE) == before)
			return before * 256 + sum;
	}
}

static int trace_requested(void)
{
	struct fm_settings scratch;

	return fm_settings_get(&scratch)->trace[0] != 0;
}

/* RESOLVER-SAFE: integers and code addresses only. */
void *fm_trace_resolve(enum fm_op op, int index)
{
	void *twin;

	if (FM_LIKELY(!trace_requested()))
		return fm_variant_fn(op, index);
	twin = fm_trace_twin(op, index);
	if (!twin)
		return fm_variant_fn(op, index);
	__atomic_store_n(&enabled, 1, __ATOMIC_RELAXED);
	return twin;
}

int fm_trace_flush(void)
{
	struct fm_settings scratch;
	const struct fm_settings *st;
	int err;

	if (!__atomic_load_n(&enabled, __ATOMIC_RELAXED))
		return -1;
	st = fm_settings_get(&scratch);
	if (!st->trace[0])
		return -1;
	if (__atomic_exchange_n(&writing, 1, __ATOMIC_ACQUIRE))
		return -1; /* another thread or an interrupted caller is */
	err = fm_trace_write(st->trace, fm_id(SYS_getpid));
	__atomic_store_n(&writing, 0, __ATOMIC_RELEASE);
	return err ? -1 : 0;
}

/*
 * A forked child starts counting from zero: its parent writes what was
 * counted before the fork, the child only its own calls (into its own file
 * when the path has %p).  The child has one thread, the one that forked:
 * it keeps its shard; the others' are free.
 */
static void trace_child(void)
{
	int used = __atomic_load_n(&shards_used, __ATOMIC_RELAXED);
	int tid = (int)fm_id(SYS_gettid);

	for (int op = 0; op < T_OPS; op++)
		for (int i = 0; i < FM_TRACE_SLOTS; i++) {
			__atomic_store_n(&fm_trace_carry[op][i], 0,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&common.count[op][i], 0,
					 __ATOMIC_RELAXED);
			for (int s = 0; s < used; s++)
				__atomic_store_n(&shards[s].count[op][i], 0,
						 __ATOMIC_RELAXED);
		}
	for (int s = 0; s < SHARDS; s++)
		__atomic_store_n(&shard_owner[s],
				 fm_trace_my_shard == &shards[s] ? tid : 0,
				 __ATOMIC_RELAXED);
	__atomic_store_n(&writing, 0, __ATOMIC_RELAXED);
	fm_trace_began();
}

/*
 * The resolvers of a lazily bound reference (the preload's calls into
 * libfastmem) may run after this constructor, so it asks the settings, not
 * `enabled`.  It checks at once that the file can be written: many programs
 * close stderr before exit (coreutils do), and a warning then would be
 * lost.
 */
__attribute__((constructor)) static void trace_init(void)
{
	struct fm_settings scratch;
	const struct fm_settings *st = fm_settings_get(&scratch);

	if (!st->trace[0])
		return;
	fm_trace_began();
	__atomic_store_n(&enabled, 1, __ATOMIC_RELAXED);
	pthread_atfork(0, 0, trace_child);
	/* say now, while stderr is surely open, if the file cannot be
	 * written (it is created empty here and written at exit) */
	fm_trace_probe_file(st->trace, fm_id(SYS_getpid));
}

/* exit() and the end of main; _exit() and fatal signals write nothing (a
 * program that ends that way calls fm_trace_flush() first). */
__attribute__((destructor)) static void trace_fini(void)
{
	if (__atomic_load_n(&enabled, __ATOMIC_RELAXED))
		fm_trace_flush();
}
