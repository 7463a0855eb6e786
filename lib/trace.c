/* SPDX-License-Identifier: MIT */
/*
 * FASTMEM_TRACE=PATH: count the memcpy/memmove/memset calls of a process by
 * size and write the counts to PATH at exit (and on fm_trace_flush());
 * lib/trace-file.c writes the file.
 *
 * The resolvers call fm_trace_resolve() with the variant they chose; with
 * tracing off it returns that variant and nothing else changes (no wrapper,
 * no test on the call path).  With tracing on it keeps the variant in
 * trace_*_target and returns a counting wrapper that increments one counter
 * (and, for aligned or overlapping calls, a second) and tail-jumps to it.
 *
 * Counting runs before main, in signal handlers and in every thread: no
 * allocation, no lock, no call.  Each thread counts into a shard of its
 * own (static memory it claims on its first call; one pointer in
 * initial-exec TLS), with plain one-byte increments: a shared counter's
 * locked increment waits for the copy's stores to drain (+132-182% per
 * call in the L1 memcpy replays on the Intel Xeon guest, +36-42% now; see
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

#define SHARDS 64
#define T_OPS (FM_OP_MEMSET + 1) /* the byte-wise ops, by fm_op's numbers */

struct shard {
	uint8_t count[T_OPS][FM_TRACE_SLOTS];
} __attribute__((aligned(64)));

static struct shard shards[SHARDS];
static int shard_owner[SHARDS]; /* thread id, 0: free */
static int shards_used;		/* shards[0..shards_used-1] were claimed */
/* for threads that found no free shard, atomic adds */
static struct shard common;
/* wraps of the one-byte counters, all shards together: 256 calls each */
static uint64_t carry[T_OPS][FM_TRACE_SLOTS];

static __thread struct shard *my_shard
	__attribute__((tls_model("initial-exec")));
/* calls to make before trying again to claim a shard */
static __thread unsigned claim_wait __attribute__((tls_model("initial-exec")));

static copy_fn *trace_memcpy_target, *trace_memmove_target;
static set_fn *trace_memset_target;

static int enabled; /* the resolvers chose the wrappers */
static int writing; /* a write is in progress */

static inline size_t bucket(size_t n)
{
	if (FM_LIKELY(n <= FM_TRACE_EXACT_MAX))
		return n;
	return FM_TRACE_EXACT_MAX + 1 +
	       (8 * sizeof(size_t) - 1 -
		(size_t)__builtin_clzl((unsigned long)n)) -
	       12;
}

/* Inline, not a call: a call on the wrappers' path would make them save
 * and restore registers on every call. */
static inline void count_carry(int op, size_t slot)
{
	__atomic_fetch_add(&carry[op][slot], 1, __ATOMIC_RELAXED);
}

/* Add one to this thread's counter: one instruction, see above. */
static inline void bump(struct shard *sh, int op, size_t slot)
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
	count_carry(op, slot);
#else
	if (FM_UNLIKELY(!__atomic_add_fetch(c, 1, __ATOMIC_RELAXED)))
		count_carry(op, slot);
#endif
}

static inline void bump_atomic(struct shard *sh, int op, size_t slot)
{
	if (FM_UNLIKELY(!__atomic_add_fetch(&sh->count[op][slot], 1,
					    __ATOMIC_RELAXED)))
		count_carry(op, slot);
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
static struct shard *claim_shard(void)
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

static inline __attribute__((always_inline)) void
count_into(struct shard *sh, int op, const void *d, const void *s, size_t n,
	   int copy, void (*add)(struct shard *, int, size_t))
{
	add(sh, op, bucket(n));
	if (FM_UNLIKELY(!(((uintptr_t)d | (uintptr_t)s) & 63)))
		add(sh, op, FM_TRACE_ALIGNED64);
	if (copy && FM_UNLIKELY(fm_overlaps(d, s, n) && n))
		add(sh, op, FM_TRACE_OVERLAPPING);
}

/* The first call of a thread, and every call of a thread without a shard
 * (it tries to claim one again every 4096 calls). */
static void count_unowned(int op, const void *d, const void *s, size_t n,
			  int copy)
{
	struct shard *sh = 0;

	if (!claim_wait) {
		sh = claim_shard();
		if (sh) {
			my_shard = sh;
			count_into(sh, op, d, s, n, copy, bump);
			return;
		}
		claim_wait = 4096;
	}
	claim_wait--;
	count_into(&common, op, d, s, n, copy, bump_atomic);
}

/*
 * The wrappers.  A thread's calls after its first have no call but the
 * tail jump to the variant, so the wrapper saves no register; the first
 * (and those of a thread without a shard) take the _unowned tail call.
 */
#define TRACE_WRAPPER(name, op, is_copy, params, args, d, s, n)                \
	static __attribute__((noinline)) void *name##_unowned params           \
	{                                                                      \
		count_unowned(op, d, s, n, is_copy);                           \
		return name##_target args;                                     \
	}                                                                      \
	static void *name params                                               \
	{                                                                      \
		struct shard *sh = my_shard;                                   \
                                                                               \
		if (FM_UNLIKELY(!sh))                                          \
			return name##_unowned args;                            \
		count_into(sh, op, d, s, n, is_copy, bump);                    \
		return name##_target args;                                     \
	}

TRACE_WRAPPER(trace_memcpy, FM_OP_MEMCPY, 1, (void *d, const void *s, size_t n),
	      (d, s, n), d, s, n)
TRACE_WRAPPER(trace_memmove, FM_OP_MEMMOVE, 1,
	      (void *d, const void *s, size_t n), (d, s, n), d, s, n)
TRACE_WRAPPER(trace_memset, FM_OP_MEMSET, 0, (void *d, int c, size_t n),
	      (d, c, n), d, 0, n)

static void count(int op, const void *d, const void *s, size_t n, int copy)
{
	struct shard *sh = my_shard;

	if (FM_UNLIKELY(!sh))
		count_unowned(op, d, s, n, copy);
	else
		count_into(sh, op, d, s, n, copy, bump);
}

void fm_trace_count(enum fm_op op, const void *d, const void *s, size_t n)
{
	if (FM_UNLIKELY(__atomic_load_n(&enabled, __ATOMIC_RELAXED)) &&
	    op <= FM_OP_MEMSET)
		count((int)op, d, s, n, op != FM_OP_MEMSET);
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
		uint64_t before =
			__atomic_load_n(&carry[op][slot], __ATOMIC_ACQUIRE);
		uint64_t sum = __atomic_load_n(&common.count[op][slot],
					       __ATOMIC_RELAXED);
		int used = __atomic_load_n(&shards_used, __ATOMIC_ACQUIRE);

		for (int i = 0; i < used; i++)
			sum += __atomic_load_n(&shards[i].count[op][slot],
					       __ATOMIC_RELAXED);
		if (__atomic_load_n(&carry[op][slot], __ATOMIC_ACQUIRE) ==
		    before)
			return before * 256 + sum;
	}
}

static int trace_requested(void)
{
	struct fm_settings scratch;

	return fm_settings_get(&scratch)->trace[0] != 0;
}

/* RESOLVER-SAFE: integers and code addresses only. */
void *fm_trace_resolve(enum fm_op op, void *fn)
{
	if (FM_LIKELY(!trace_requested()))
		return fn;
	switch (op) {
	case FM_OP_MEMCPY:
		trace_memcpy_target = (copy_fn *)fn;
		fn = (void *)trace_memcpy;
		break;
	case FM_OP_MEMMOVE:
		trace_memmove_target = (copy_fn *)fn;
		fn = (void *)trace_memmove;
		break;
	case FM_OP_MEMSET:
		trace_memset_target = (set_fn *)fn;
		fn = (void *)trace_memset;
		break;
	default:
		return fn;
	}
	__atomic_store_n(&enabled, 1, __ATOMIC_RELAXED);
	return fn;
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
			__atomic_store_n(&carry[op][i], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&common.count[op][i], 0,
					 __ATOMIC_RELAXED);
			for (int s = 0; s < used; s++)
				__atomic_store_n(&shards[s].count[op][i], 0,
						 __ATOMIC_RELAXED);
		}
	for (int s = 0; s < SHARDS; s++)
		__atomic_store_n(&shard_owner[s],
				 my_shard == &shards[s] ? tid : 0,
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
