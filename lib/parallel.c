/* SPDX-License-Identifier: MIT */
/*
 * Copies and clears split over several threads: fm_memcpy_parallel,
 * fm_memset_parallel, fm_clear_pages_parallel, and the pool of worker
 * threads they share.
 *
 * One core cannot saturate memory (docs/parallel.md), so
 * a huge call is cut into page-aligned chunks (of the destination) that the
 * calling thread and up to nthreads - 1 workers take in turn.  Every chunk
 * is done by the single-thread call with the streaming decision the
 * single-thread policy makes for the whole call (the op's threshold, and
 * below it the residency probe; through the _hint forms), so a 48 MiB copy
 * streams in 12 MiB chunks exactly when fm_memcpy would stream it whole.
 *
 * The pool:
 *  - is created by the first parallel call that wants a helper, never
 *    earlier: no constructor creates threads, and the plain fm_* calls (the
 *    resolvers, the preload) never reach this file;
 *  - serves one call at a time: a caller that finds it busy (another thread
 *    is in a parallel call) does its whole call alone, without waiting;
 *    memory is what the busy call already saturates;
 *  - workers block every signal and sleep on a condition variable between
 *    calls;
 *  - after fork() the child has no workers (pthread_atfork: the parent
 *    waits for the call in progress, the child forgets the workers, which
 *    do not exist there, and the next call creates new ones); a fork from
 *    a signal handler that interrupted this thread's own parallel call
 *    does not wait for it (it would wait for itself): see fork_prepare;
 *  - no thread holds the lock or owns the pool across a cancellation
 *    point: the calls disable cancellation while they own the pool (its
 *    waits are pthread_cond_wait), so pthread_cancel acts after the call;
 *  - a thread that cannot be created is counted (fm_parallel_info) and the
 *    call goes on with the workers there are, at worst on the caller alone;
 *  - a destructor stops and joins the workers (exit, dlclose).
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "internal.h"

/*
 * SPLIT_MIN: the size from which two threads beat one, hot and cold, for
 * copies, sets and clears alike; below it nthreads == 0 means one thread.
 * Measured on the development machine (2-core AMD EPYC 7xx3 KVM guest,
 * 512 KiB L2, 32 MiB L3) with
 *   fastmem-bench parallel -s 256K,512K,1M,2M,4M,8M,16M,32M --threads 2 \
 *           --mode cold,hot
 * two threads over one (fm_memcpy, fm_memset, fm_clear_pages): cold copy
 * 0.75x at 256 KiB, 1.06x at 2 MiB, 1.18x at 8 MiB; cold set 0.63x at
 * 256 KiB, 0.93x at 2 MiB, 1.13x at 4 MiB; hot set 0.89x at 4 MiB, 1.17x
 * at 8 MiB; hot clear 1.14x at 8 MiB.  From 8 MiB all six win.  The
 * automatic count gives each thread at least SPLIT_MIN / 2.
 */
#define SPLIT_MIN ((size_t)8 << 20)
/*
 * Cap on the automatic count when FASTMEM_THREADS (or threads in the config
 * file) does not set one.  The count never exceeds the CPUs of the affinity
 * mask: on the development machine 4 threads on its 2 CPUs ran at
 * 0.96-1.05x of 2 threads (fastmem-bench parallel, docs/parallel.md).
 * Beyond 2 CPUs nothing could be measured there; 8 is an assumption (a few
 * cores saturate a socket's memory channels, and every thread is a wake-up), to
 * be replaced by measurements on larger machines.
 */
#define AUTO_CAP 8
/* Chunks: page multiples of at least CHUNK_MIN, about CHUNKS_PER_THREAD per
 * thread so that a thread the scheduler delays does not hold the call up. */
#define CHUNK_MIN ((size_t)64 << 10)
#define CHUNKS_PER_THREAD 4
#define WORKER_STACK ((size_t)256 << 10)

#define PAGE ((size_t)FM_PAGE_SIZE)

enum kind { K_COPY, K_SET, K_CLEAR };

struct job {
	enum kind kind;
	char *dst;
	const char *src;
	int c;
	enum fm_hint hint;
	size_t n;     /* bytes */
	size_t head;  /* bytes before the destination's first page boundary */
	size_t chunk; /* bytes per chunk, a page multiple */
	size_t nchunks;
	size_t next; /* next chunk to take (atomic) */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work; /* workers: slots became non-zero, or quit */
	pthread_cond_t done; /* the caller: active dropped to 0 */
	pthread_cond_t idle; /* fork: owner dropped to 0 */
	pthread_t tid[FM_THREADS_MAX - 1];
	unsigned nworkers; /* atomic reads (fm_parallel_info takes no lock) */
	unsigned slots;	   /* helpers still wanted for the job */
	unsigned active;   /* helpers working on it */
	int quit;
	int fork_skipped; /* fork_prepare found this thread owning the pool */
	unsigned forks;	  /* children that began inside an owner's call */
	/* atomic: the thread (pthread_self) whose call, fork or exit owns the
	 * pool, 0 if none */
	uintptr_t owner;
	unsigned long failed; /* atomic: thread creations that failed */
	struct job job;
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER,
};

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* --- the work ------------------------------------------------------------ */

static void run_chunk(const struct job *j, size_t i)
{
	size_t a = i ? j->head + i * j->chunk : 0;
	size_t b = i + 1 < j->nchunks ? j->head + (i + 1) * j->chunk : j->n;

	switch (j->kind) {
	case K_COPY:
		fm_memcpy_hint_uncounted(j->dst + a, j->src + a, b - a,
					 j->hint);
		break;
	case K_SET:
		fm_memset_hint_uncounted(j->dst + a, j->c, b - a, j->hint);
		break;
	case K_CLEAR:
		fm_clear_pages_hint(j->dst + a, (b - a) / PAGE, j->hint);
		break;
	}
}

static void work(struct job *j)
{
	size_t i;

	while ((i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) <
	       j->nchunks)
		run_chunk(j, i);
}

static void *worker(void *arg)
{
	(void)arg;
	/* nobody outside has the workers' ids, but a cancelled worker would
	 * hold the lock: cancellation has no business here */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (!pool.quit && !pool.slots)
			pthread_cond_wait(&pool.work, &pool.lock);
		if (pool.quit)
			break;
		pool.slots--;
		pool.active++;
		pthread_mutex_unlock(&pool.lock);
		work(&pool.job);
		pthread_mutex_lock(&pool.lock);
		if (!--pool.active)
			pthread_cond_signal(&pool.done);
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* --- the pool ------------------------------------------------------------ */

static uintptr_t self_id(void)
{
	return (uintptr_t)pthread_self();
}

/* Own the pool (one atomic word naming the owner: a signal handler can
 * tell whether the thread it interrupted owns it). */
static int try_own(void)
{
	uintptr_t none = 0;

	return __atomic_compare_exchange_n(&pool.owner, &none, self_id(), 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static int own_it(void)
{
	return __atomic_load_n(&pool.owner, __ATOMIC_RELAXED) == self_id();
}

/* Under pool.lock. */
static void release(void)
{
	__atomic_store_n(&pool.owner, 0, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&pool.idle);
}

/*
 * fork() waits for the call in progress, so that the child never sees the
 * pool half-written.  Unless this thread owns the pool: then fork is
 * running in a signal handler that interrupted this thread's own call
 * (maybe with pool.lock held), which would never end while we wait, so
 * fork goes ahead and the child starts from a fresh pool (fork_child).
 */
static void fork_prepare(void)
{
	int cancel;

	if (own_it()) {
		pool.fork_skipped = 1;
		return;
	}
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	pthread_mutex_lock(&pool.lock);
	while (!try_own())
		pthread_cond_wait(&pool.idle, &pool.lock);
	pthread_setcancelstate(cancel, NULL);
}

static void fork_parent(void)
{
	if (pool.fork_skipped) {
		pool.fork_skipped = 0;
		return;
	}
	release();
	pthread_mutex_unlock(&pool.lock);
}

/*
 * The workers do not exist in the child: forget them (their stacks stay
 * mapped, as every thread's does after fork).  The lock is made anew: after
 * a skipped prepare a worker, or the interrupted call, may have held it.
 * The interrupted call (should the child return into it, which POSIX does
 * not allow: only async-signal-safe calls until exec) still owns the pool,
 * and redoes its whole job alone (split() sees pool.forks change).
 */
static void fork_child(void)
{
	int skipped = pool.fork_skipped;

	__atomic_store_n(&pool.nworkers, 0, __ATOMIC_RELAXED);
	pool.slots = 0;
	pool.active = 0;
	pool.quit = 0;
	pool.fork_skipped = 0;
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.work, NULL);
	pthread_cond_init(&pool.done, NULL);
	pthread_cond_init(&pool.idle, NULL);
	if (skipped)
		pool.forks++;
	else
		__atomic_store_n(&pool.owner, 0, __ATOMIC_RELAXED);
}

static void register_atfork(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Under pool.lock, owning the pool: grow it to `want` workers if it can. */
static void grow(unsigned want)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int attr_ok;

	if (want > FM_THREADS_MAX - 1)
		want = FM_THREADS_MAX - 1;
	if (pool.nworkers >= want)
		return;
	pthread_once(&atfork_once, register_atfork);
	attr_ok = pthread_attr_init(&attr) == 0;
	if (attr_ok)
		pthread_attr_setstacksize(&attr, WORKER_STACK);
	/* workers inherit a mask that blocks every signal */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (pool.nworkers < want) {
		pthread_t t;

		if (pthread_create(&t, attr_ok ? &attr : NULL, worker, NULL)) {
			__atomic_fetch_add(&pool.failed, 1, __ATOMIC_RELAXED);
			break;
		}
		pthread_setname_np(t, "fastmem");
		pool.tid[pool.nworkers] = t;
		__atomic_store_n(&pool.nworkers, pool.nworkers + 1,
				 __ATOMIC_RELAXED);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (attr_ok)
		pthread_attr_destroy(&attr);
}

__attribute__((destructor)) static void shutdown_pool(void)
{
	unsigned n;
	int cancel;

	if (!try_own())
		return; /* a call is running in another thread: leave it be */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	pthread_mutex_lock(&pool.lock);
	n = pool.nworkers;
	pool.quit = 1;
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.lock);
	for (unsigned i = 0; i < n; i++)
		pthread_join(pool.tid[i], NULL);
	pthread_mutex_lock(&pool.lock);
	__atomic_store_n(&pool.nworkers, 0, __ATOMIC_RELAXED);
	pool.quit = 0;
	release();
	pthread_mutex_unlock(&pool.lock);
	pthread_setcancelstate(cancel, NULL);
}

/* --- splitting a call ---------------------------------------------------- */

static unsigned affinity_cpus(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set))
		return (unsigned)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

static unsigned auto_cap(enum fm_source *src)
{
	struct fm_settings scratch;
	const struct fm_settings *st = fm_settings_get(&scratch);

	*src = st->threads_src ? st->threads_src : FM_SRC_DEFAULT;
	return st->threads_src ? st->threads : AUTO_CAP;
}

static unsigned auto_threads(void)
{
	enum fm_source src;
	unsigned cpus = affinity_cpus(), cap = auto_cap(&src);

	return cpus < cap ? cpus : cap;
}

/* How many threads for n bytes (the caller's nthreads, 0: automatic). */
static unsigned thread_count(size_t n, unsigned nthreads)
{
	size_t most;

	if (!nthreads) {
		if (n < SPLIT_MIN)
			return 1;
		nthreads = auto_threads();
		most = n / (SPLIT_MIN / 2);
		if (nthreads > most)
			nthreads = (unsigned)most;
	}
	if (nthreads > FM_THREADS_MAX)
		nthreads = FM_THREADS_MAX;
	most = n / CHUNK_MIN;
	return nthreads > most ? (unsigned)(most ? most : 1) : nthreads;
}

/* The single-thread policy's decision for the whole call: its threshold,
 * and below it the residency probe where the CPU has one. */
static enum fm_hint decide(enum kind kind, const char *dst, const char *src,
			   size_t n)
{
	static const enum fm_op ops[] = { [K_COPY] = FM_OP_MEMCPY,
					  [K_SET] = FM_OP_MEMSET,
					  [K_CLEAR] = FM_OP_CLEAR_PAGE };

	return fm_streams(ops[kind], dst, src, n) ? FM_HINT_NONTEMPORAL
						  : FM_HINT_TEMPORAL;
}

/* Under pool.lock, owning the pool: write the job for t threads and hand
 * it to `helpers` workers. */
static void post_job(enum kind kind, char *dst, const char *src, int c,
		     size_t n, enum fm_hint hint, unsigned helpers)
{
	struct job *j = &pool.job;
	size_t t = (size_t)helpers + 1, body;

	/* no helper is active: the job is ours to write */
	j->kind = kind;
	j->dst = dst;
	j->src = src;
	j->c = c;
	j->n = n;
	j->hint = hint;
	j->head = (size_t)(-(uintptr_t)dst & (PAGE - 1));
	if (j->head > n)
		j->head = n;
	body = n - j->head;
	j->chunk = body / (t * CHUNKS_PER_THREAD);
	j->chunk = (j->chunk + PAGE - 1) & ~(PAGE - 1);
	if (j->chunk < CHUNK_MIN)
		j->chunk = CHUNK_MIN;
	j->nchunks = (body + j->chunk - 1) / j->chunk;
	if (!j->nchunks)
		j->nchunks = 1;
	j->next = 0;
	pool.slots = helpers;
	if (helpers == pool.nworkers)
		pthread_cond_broadcast(&pool.work);
	else
		for (unsigned i = 0; i < helpers; i++)
			pthread_cond_signal(&pool.work);
}

/*
 * Cut the call (kind, dst, src, c, n bytes) into chunks for t threads and
 * run it with the pool's help.  Returns 0 if it was not run (one thread, or
 * no helper to be had): the caller then makes the single-thread call.
 * Cancellation is off while the call owns the pool: a thread cancelled in
 * the wait below would leave the lock held and the pool owned for ever.
 */
static int split(enum kind kind, char *dst, const char *src, int c, size_t n,
		 unsigned t)
{
	enum fm_hint hint;
	unsigned helpers, forks;
	int cancel;

	if (t < 2)
		return 0;
	hint = decide(kind, dst, src, n);
	if (!try_own())
		return 0;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	pthread_mutex_lock(&pool.lock);
	grow(t - 1);
	helpers = pool.nworkers < t - 1 ? pool.nworkers : t - 1;
	if (helpers)
		post_job(kind, dst, src, c, n, hint, helpers);
	forks = pool.forks;
	pthread_mutex_unlock(&pool.lock);

	if (helpers)
		work(&pool.job);

	pthread_mutex_lock(&pool.lock);
	pool.slots = 0;
	while (pool.active)
		pthread_cond_wait(&pool.done, &pool.lock);
	if (helpers && forks != pool.forks) {
		/* a child forked (in a handler) during the call: the chunks
		 * the parent's workers took are not done here */
		pool.job.next = 0;
		work(&pool.job);
	}
	release();
	pthread_mutex_unlock(&pool.lock);
	pthread_setcancelstate(cancel, NULL);
	return helpers != 0;
}

/* The call on the calling thread alone (counted by tracing as itself). */
static void alone(enum kind kind, char *dst, const char *src, int c, size_t n)
{
	switch (kind) {
	case K_COPY:
		fm_memcpy(dst, src, n);
		break;
	case K_SET:
		fm_memset(dst, c, n);
		break;
	case K_CLEAR:
		fm_clear_pages(dst, n / PAGE);
		break;
	}
}

/*
 * A parallel call: split when the count says so and, for a large
 * automatic call under the built-in cap, when timing says splitting pays
 * on this machine (lib/autothreads.c; a trial call is timed either way).
 * An explicit nthreads, or a cap that FASTMEM_THREADS or a config file
 * set, is obeyed without timing.  Returns whether the call was split.
 */
static int parallel(enum kind kind, char *dst, const char *src, int c, size_t n,
		    unsigned nthreads)
{
	unsigned t = thread_count(n, nthreads);
	struct fm_auto_trial tr = { 0, 0, 0 };
	enum fm_source src_of_cap;
	int want = t >= 2, done;

	if (want && !nthreads) {
		auto_cap(&src_of_cap);
		if (src_of_cap == FM_SRC_DEFAULT)
			want = fm_auto_begin((int)kind, &tr);
	}
	done = want && split(kind, dst, src, c, n, t);
	if (!done)
		alone(kind, dst, src, c, n);
	if (tr.timed)
		fm_auto_end((int)kind, &tr, n, done);
	return done;
}

void *fm_memcpy_parallel(void *restrict dst, const void *restrict src, size_t n,
			 unsigned nthreads)
{
	/* chunks of overlapping buffers would read what others wrote */
	if (fm_overlaps(dst, src, n))
		return fm_memcpy(dst, src, n);
	/* tracing counts a split call once, whole (fm_memcpy counts itself) */
	if (parallel(K_COPY, dst, src, 0, n, nthreads))
		fm_trace_count(FM_OP_MEMCPY, dst, src, n);
	return dst;
}

void *fm_memset_parallel(void *dst, int c, size_t n, unsigned nthreads)
{
	if (parallel(K_SET, dst, NULL, c, n, nthreads))
		fm_trace_count(FM_OP_MEMSET, dst, NULL, n);
	return dst;
}

void fm_clear_pages_parallel(void *page, size_t npages, unsigned nthreads)
{
	/* misaligned: as fm_clear_pages does, a memset */
	if ((uintptr_t)page & (PAGE - 1))
		fm_memset_parallel(page, 0, npages * PAGE, nthreads);
	else
		parallel(K_CLEAR, page, NULL, 0, npages * PAGE, nthreads);
}

/* --- introspection ------------------------------------------------------- */

static char cap_text[FM_PATH_MAX + 32];

void fm_parallel_info(struct fm_parallel_info *info)
{
	struct fm_settings scratch;
	const struct fm_settings *st;
	enum fm_source src;
	size_t len = 0;
	const char *parts[3] = { "built-in", "", "" };

	if (!info)
		return;
	info->cpus = affinity_cpus();
	info->cap = auto_cap(&src);
	info->threads = info->cpus < info->cap ? info->cpus : info->cap;
	info->split_min = SPLIT_MIN;
	if (src == FM_SRC_ENV) {
		parts[0] = "environment (FASTMEM_THREADS)";
	} else if (src == FM_SRC_CONFIG || src == FM_SRC_SYSTEM) {
		st = fm_settings_get(&scratch);
		parts[0] = "config (";
		parts[1] = fm_source_path(st, src);
		parts[2] = ")";
	}
	for (int i = 0; i < 3; i++)
		for (const char *p = parts[i];
		     *p && len + 1 < sizeof(cap_text);)
			cap_text[len++] = *p++;
	cap_text[len] = 0;
	info->cap_source = cap_text;
	info->workers = __atomic_load_n(&pool.nworkers, __ATOMIC_RELAXED);
	info->create_failed = __atomic_load_n(&pool.failed, __ATOMIC_RELAXED);
}

int fm_parallel_auto(enum fm_op op, struct fm_parallel_auto *out)
{
	enum fm_source src;
	unsigned cpus = affinity_cpus(), cap = auto_cap(&src);
	unsigned threads = cpus < cap ? cpus : cap;
	int kind = op == FM_OP_MEMCPY	    ? K_COPY
		   : op == FM_OP_MEMSET	    ? K_SET
		   : op == FM_OP_CLEAR_PAGE ? K_CLEAR
					    : -1;

	if (kind < 0 || !out)
		return -1;
	fm_auto_state(kind, out, threads);
	if (src != FM_SRC_DEFAULT) {
		out->basis = FM_AUTO_SETTING;
		out->threads = threads;
	}
	return 0;
}
