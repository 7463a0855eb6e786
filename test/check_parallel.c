/* SPDX-License-Identifier: MIT */
/*
 * fm_memcpy_parallel, fm_memset_parallel, fm_clear_pages_parallel and their
 * thread pool: byte-exact against the single-thread calls around chunk
 * boundaries, at odd sizes and alignments, flush against guard pages; many
 * threads calling at once; fork in a multithreaded caller; thread creation
 * failing; no thread from the plain calls.  (FASTMEM_THREADS and the
 * config key `threads`: check_env.)
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
#define PAGE ((size_t)FM_PAGE_SIZE)

/* The pool's smallest chunk (lib/parallel.c CHUNK_MIN): sizes around its
 * multiples cross chunk boundaries. */
#define CHUNK (64 * KIB)

enum kind { K_COPY, K_SET, K_CLEAR };
static const char *const kind_names[] = { "copy", "set", "clear" };

static struct arena A, B, R;

/* Small sizes under FMTEST_QUICK and under an emulator (TEST_RUNNER,
 * e.g. qemu-ppc64), where threads work but every byte is slow. */
static int small(void)
{
	const char *runner = getenv("TEST_RUNNER");

	return quick_mode() || (runner && *runner);
}

static size_t max_size(void)
{
	return small() ? 3 * MIB : 40 * MIB;
}

static void setup(void)
{
	size_t n = max_size() + 2 * PAGE;

	arena_init(&A, n); /* source */
	arena_init(&B, n); /* destination of the parallel call */
	arena_init(&R, n); /* destination of the single-thread call */
}

static void teardown(void)
{
	arena_free(&A);
	arena_free(&B);
	arena_free(&R);
}

static unsigned workers(void)
{
	struct fm_parallel_info pi;

	fm_parallel_info(&pi);
	return pi.workers;
}

/*
 * One call of kind with t threads on n bytes at dst offset `off` (from the
 * start of the arena, or from its end when `at_end`), src offset soff:
 * the parallel and the single-thread call must leave the same bytes, and
 * nothing around the destination may change.
 */
static void one(enum kind kind, size_t n, size_t off, size_t soff, int at_end,
		unsigned t)
{
	unsigned char *src = A.base + soff;
	unsigned char *d = at_end ? B.end - n - off : B.base + off;
	unsigned char *r = at_end ? R.end - n - off : R.base + off;
	int c = 0x5a + (int)(n & 7);
	long stray;
	void *ret = d;

	if (kind == K_CLEAR)
		n &= ~(PAGE - 1);
	if (!n)
		return;
	fill_pattern(src, n, n + off);
	fill_pattern(d, n, n + 1);
	fill_pattern(r, n, n + 1);
	arm_canaries(&B, d, n);
	switch (kind) {
	case K_COPY:
		ret = fm_memcpy_parallel(d, src, n, t);
		fm_memcpy(r, src, n);
		break;
	case K_SET:
		ret = fm_memset_parallel(d, c, n, t);
		fm_memset(r, c, n);
		break;
	case K_CLEAR:
		fm_clear_pages_parallel(d, n / PAGE, t);
		fm_clear_pages(r, n / PAGE);
		break;
	}
	ck_assert_msg(ret == d, "%s n=%zu t=%u: returned %p, not %p",
		      kind_names[kind], n, t, ret, (void *)d);
	if (memcmp(d, r, n)) {
		size_t i = 0;

		while (d[i] == r[i])
			i++;
		ck_abort_msg("%s n=%zu off=%zu soff=%zu %s t=%u: byte %zu is "
			     "%#x, single-thread call wrote %#x",
			     kind_names[kind], n, off, soff,
			     at_end ? "at end" : "at start", t, i, d[i], r[i]);
	}
	stray = stray_write(&B, d, n);
	ck_assert_msg(stray == -1,
		      "%s n=%zu off=%zu t=%u: wrote byte %ld outside the "
		      "destination",
		      kind_names[kind], n, off, t, stray);
}

/* Sizes: every multiple of the chunk up to 10 (and +-1 byte, +-1 page),
 * odd sizes, the op's streaming threshold +-1 and powers of two +-1. */
static size_t sizes(enum kind kind, size_t *out, size_t cap)
{
	static const size_t odd[] = { 1, 4095, 3 * MIB + 12345, 5 * MIB / 3 };
	enum fm_op op = kind == K_COPY	? FM_OP_MEMCPY
			: kind == K_SET ? FM_OP_MEMSET
					: FM_OP_CLEAR_PAGE;
	size_t n = 0, max = max_size();
	int quick = small();

	for (size_t k = 1; k <= 10 && n + 5 <= cap; k += quick ? 3 : 1) {
		out[n++] = k * CHUNK - 1;
		out[n++] = k * CHUNK;
		out[n++] = k * CHUNK + 1;
		if (!quick) {
			out[n++] = k * CHUNK - PAGE;
			out[n++] = k * CHUNK + PAGE;
		}
	}
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]) && n < cap; i++)
		if (odd[i] <= max)
			out[n++] = odd[i];
	if (!quick) {
		n += large_sizes(op, max, out + n, cap - n);
	} else if (fm_nt_threshold(op) < max) {
		/* where the chunks start to stream */
		out[n++] = fm_nt_threshold(op) - 1;
		out[n++] = fm_nt_threshold(op) + 1;
	}
	return n;
}

START_TEST(same_bytes_as_single_thread)
{
	enum kind kind = (enum kind)_i;
	static const size_t offs[] = { 0, 1, 63, 4095 };
	static const unsigned threads[] = { 2, 3, 4, 0 };
	size_t sz[128], ns = sizes(kind, sz, 128);
	int quick = small();

	for (size_t i = 0; i < ns; i++) {
		/* above 1 MiB (quick: always) one combination per size, in turn
		 */
		int big = sz[i] > 1 * MIB;

		for (size_t t = 0; t < 4; t++) {
			if ((quick && t == 1) || (big && t != i % 4))
				continue;
			for (size_t o = 0; o < 4; o++) {
				if ((quick && (o == 1 || o == 2)) ||
				    (big && o != (i / 4) % 4))
					continue;
				size_t soff = kind == K_COPY ? (o * 7) % 5 : 0;
				size_t off = kind == K_CLEAR && o ? 0 : offs[o];

				if (sz[i] > max_size())
					continue;
				one(kind, sz[i], off, soff, (i + o) & 1,
				    threads[t]);
			}
		}
	}
	/* misaligned page pointers: a memset of the same bytes */
	if (kind == K_CLEAR) {
		unsigned char *d = B.base + 100;
		size_t i = 0;

		fill_pattern(d, 20 * CHUNK, 3);
		arm_canaries(&B, d, 20 * CHUNK);
		fm_clear_pages_parallel(d, 20 * CHUNK / PAGE, 3);
		while (i < 20 * CHUNK && !d[i])
			i++;
		ck_assert_msg(i == 20 * CHUNK, "misaligned clear: byte %zu", i);
		ck_assert_int_eq(stray_write(&B, d, 20 * CHUNK), -1);
	}
	ck_assert_msg(workers() >= 1, "no worker thread was used");
}
END_TEST

/* --- many callers ------------------------------------------------------- */

#define CALLERS 8

struct caller {
	pthread_t tid;
	unsigned id;
	size_t n;
	unsigned char *src, *dst;
	int bad;
};

static void *caller_main(void *arg)
{
	struct caller *c = arg;
	int iters = small() ? 2 : 25;

	for (int it = 0; it < iters && !c->bad; it++) {
		size_t n = c->n - (size_t)it * 4099 % (c->n / 2);
		unsigned t = (c->id + (unsigned)it) % 5;
		int v = (int)(c->id * 16 + (unsigned)it) & 0xff;

		fill_pattern(c->src, n, c->id + (unsigned)it);
		if (fm_memcpy_parallel(c->dst, c->src, n, t) != c->dst ||
		    memcmp(c->dst, c->src, n))
			c->bad = 1;
		if (fm_memset_parallel(c->dst + 1, v, n - 1, t) != c->dst + 1)
			c->bad = 2;
		for (size_t i = 1; i < n && !c->bad; i++)
			if (c->dst[i] != v)
				c->bad = 3;
		fm_clear_pages_parallel(c->dst, n / PAGE, t);
		for (size_t i = 0; i < n / PAGE * PAGE && !c->bad; i++)
			if (c->dst[i])
				c->bad = 4;
	}
	return NULL;
}

START_TEST(many_callers_at_once)
{
	struct caller c[CALLERS];
	size_t n = small() ? 640 * KIB : 6 * MIB;

	for (unsigned i = 0; i < CALLERS; i++) {
		c[i].id = i;
		c[i].n = n + i * 12345;
		c[i].src = malloc(c[i].n);
		c[i].dst = aligned_alloc(PAGE, (c[i].n + PAGE) & ~(PAGE - 1));
		c[i].bad = 0;
		ck_assert(c[i].src && c[i].dst);
	}
	for (unsigned i = 0; i < CALLERS; i++)
		ck_assert_int_eq(
			pthread_create(&c[i].tid, NULL, caller_main, &c[i]), 0);
	for (unsigned i = 0; i < CALLERS; i++) {
		pthread_join(c[i].tid, NULL);
		ck_assert_msg(!c[i].bad, "caller %u: wrong result (step %d)", i,
			      c[i].bad);
		free(c[i].src);
		free(c[i].dst);
	}
}
END_TEST

/* --- fork ----------------------------------------------------------------- */

static int stop_spinners;
/* reachable from here in the forked child too (no leak under valgrind) */
static unsigned char *spin_buf[2][2];

static void *spinner(void *arg)
{
	size_t n = 2 * MIB;
	unsigned char **b = arg, *s = malloc(n), *d = malloc(n);

	b[0] = s;
	b[1] = d;
	if (!s || !d)
		abort();
	fill_pattern(s, n, 9);
	while (!__atomic_load_n(&stop_spinners, __ATOMIC_RELAXED)) {
		fm_memcpy_parallel(d, s, n, 2);
		if (memcmp(d, s, n))
			abort();
	}
	free(s);
	free(d);
	b[0] = b[1] = NULL;
	return NULL;
}

/* In the child: no worker inherited, and new ones work. */
static int child_after_fork(void)
{
	size_t n = 3 * MIB + 5;
	unsigned char *s = malloc(n), *d = malloc(n);

	alarm(60); /* a deadlock kills the child: the test fails */
	if (!s || !d)
		return 10;
	if (workers() != 0)
		return 11;
	fill_pattern(s, n, 4);
	if (fm_memcpy_parallel(d, s, n, 3) != d || memcmp(d, s, n))
		return 12;
	fm_memset_parallel(d, 0x33, n, 2);
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0x33)
			return 13;
	if (workers() < 1)
		return 14;
	free(s);
	free(d);
	return 0;
}

START_TEST(fork_in_multithreaded_caller)
{
	pthread_t t[2];
	int rounds = small() ? 2 : 6;
	const char *runner = getenv("TEST_RUNNER");

	/* qemu-user 7.2 aborts ("qemu_plugin_vcpu_init_hook: assertion
	 * failed") when the child of a multithreaded process creates a
	 * thread, with or without libfastmem: natively only */
	if (runner && *runner) {
		fprintf(stderr,
			"fork_in_multithreaded_caller: not under %s "
			"(qemu-user cannot create threads after such "
			"a fork)\n",
			runner);
		return;
	}
	__atomic_store_n(&stop_spinners, 0, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(
			pthread_create(&t[i], NULL, spinner, spin_buf[i]), 0);
	for (int r = 0; r < rounds; r++) {
		int status;
		pid_t pid;

		usleep(20000);
		pid = fork();
		ck_assert(pid >= 0);
		if (pid == 0)
			_exit(child_after_fork());
		ck_assert(waitpid(pid, &status, 0) == pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "child after fork failed: status %#x (exit "
			      "10-14: see child_after_fork; signal 14: "
			      "deadlock)",
			      status);
	}
	__atomic_store_n(&stop_spinners, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ck_assert(workers() >= 1);
}
END_TEST

/* --- thread creation failing ---------------------------------------------- */

/*
 * A child where no thread can be created: RLIMIT_NPROC 0, after dropping
 * root (the kernel does not enforce the limit for root) to nobody.  The
 * calls must still be right, and the library must say that creating a
 * thread failed (else this test would prove nothing).
 */
static int child_no_threads(void)
{
	struct rlimit rl = { 0, 0 };
	struct fm_parallel_info pi;
	size_t n = 2 * MIB + 77;
	unsigned char *s = malloc(n), *d = aligned_alloc(PAGE, 3 * MIB);
	unsigned long failed0;

	alarm(60);
	if (!s || !d)
		return 20;
	if (geteuid() == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			return 21;
	}
	if (setrlimit(RLIMIT_NPROC, &rl))
		return 22;
	fm_parallel_info(&pi);
	if (pi.workers)
		return 23;
	failed0 = pi.create_failed;
	fill_pattern(s, n, 5);
	if (fm_memcpy_parallel(d, s, n, 4) != d || memcmp(d, s, n))
		return 24;
	fm_memset_parallel(d, 0x44, n, 0);
	fm_memset_parallel(d, 0x45, n, 3);
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0x45)
			return 25;
	fm_clear_pages_parallel(d, n / PAGE, 2);
	for (size_t i = 0; i < n / PAGE * PAGE; i++)
		if (d[i])
			return 26;
	free(s);
	free(d);
	fm_parallel_info(&pi);
	if (pi.workers)
		return 27; /* a thread was created after all */
	if (pi.create_failed <= failed0)
		return 28;
	return 0;
}

START_TEST(thread_creation_fails)
{
	int status;
	pid_t pid = fork();

	ck_assert(pid >= 0);
	if (pid == 0)
		_exit(child_no_threads());
	ck_assert(waitpid(pid, &status, 0) == pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child without threads: status %#x (exit 21: cannot "
		      "drop root, 27/28: thread creation did not fail, "
		      "24-26: wrong result)",
		      status);
}
END_TEST

/* --- which calls create threads --------------------------------------------
 */

static int task_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

START_TEST(threads_only_from_parallel_calls)
{
	struct fm_parallel_info pi;
	size_t n = small() ? 2 * MIB : 24 * MIB, below;
	int t0 = task_count(), t1;
	unsigned w0 = workers();

	ck_assert_int_gt(t0, 0);
	fm_parallel_info(&pi);
	fm_memcpy(B.base, A.base, n);
	fm_memset(B.base, 1, n);
	fm_clear_pages(B.base, n / PAGE);
	fm_memcpy_hint(B.base, A.base, n, FM_HINT_NONTEMPORAL);
	/* below the split threshold the automatic count is one thread */
	below = pi.split_min - 1 < max_size() ? pi.split_min - 1 : max_size();
	fm_memcpy_parallel(B.base, A.base, below, 0);
	fm_memset_parallel(B.base, 2, below, 0);
	fm_clear_pages_parallel(B.base, below / PAGE, 0);
	/* one thread asked for */
	fm_memcpy_parallel(B.base, A.base, n, 1);
	ck_assert_int_eq(task_count(), t0);
	ck_assert_uint_eq(workers(), w0);
	/* two asked for: the pool has a worker, and it is a thread */
	fm_memcpy_parallel(B.base, A.base, 2 * MIB, 2);
	t1 = task_count();
	ck_assert_uint_ge(workers(), 1);
	/* (ThreadSanitizer adds a thread of its own with the first one) */
	ck_assert_int_ge(t1 - t0, (int)(workers() - w0));
}
END_TEST

/* The automatic count follows the affinity mask. */
START_TEST(automatic_count_follows_affinity)
{
	struct fm_parallel_info pi;
	cpu_set_t set;
	int status, cpu = -1;
	pid_t pid;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	fm_parallel_info(&pi);
	ck_assert_uint_eq(pi.cpus, (unsigned)CPU_COUNT(&set));
	ck_assert_uint_eq(pi.threads, pi.cpus < pi.cap ? pi.cpus : pi.cap);
	ck_assert_uint_ge(pi.split_min, 1 * MIB);
	for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
		if (CPU_ISSET(i, &set))
			cpu = i;
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(30);
		fm_parallel_info(&pi);
		if (pi.cpus != 1 || pi.threads != 1)
			_exit(31);
		/* automatic: one thread, so no worker is created */
		fm_memcpy_parallel(B.base, A.base, max_size(), 0);
		_exit(workers() ? 32 : 0);
	}
	ck_assert(waitpid(pid, &status, 0) == pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child pinned to one CPU: status %#x", status);
}
END_TEST

/* --- the automatic count on a machine where splitting loses --------------- */

static int stop_hogs; /* atomic */

static void *hog(void *arg)
{
	cpu_set_t *one = arg;

	pthread_setaffinity_np(pthread_self(), sizeof(*one), one);
	while (!__atomic_load_n(&stop_hogs, __ATOMIC_RELAXED))
		;
	return NULL;
}

/* Pin every pool worker ("fastmem" in /proc/self/task/TID/comm) to `one`
 * at the lowest priority (SCHED_IDLE); how many were found. */
static int starve_workers(const cpu_set_t *one)
{
	DIR *d = opendir("/proc/self/task");
	struct sched_param none = { 0 };
	struct dirent *e;
	int found = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, "fastmem", 7)) {
			pid_t tid = (pid_t)atoi(e->d_name);

			if (sched_setaffinity(tid, sizeof(*one), one) ||
			    sched_setscheduler(tid, SCHED_IDLE, &none))
				found = -100;
			found++;
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

#define HOGS 3

/*
 * A machine where splitting loses, made: the pool's worker runs at the
 * lowest priority on a CPU that HOGS busy threads keep busy, so a call
 * split with it waits for the chunk it took (or gains nothing when it
 * takes none), while the calling thread alone has the other CPU.  The
 * automatic count must time its first calls and then choose one thread.
 * (The decision is asserted, not a measured ratio: that would be flaky on
 * a shared machine.)
 */
static int child_splitting_loses(int cpu0)
{
	struct fm_parallel_auto pa;
	pthread_t hogs[HOGS];
	cpu_set_t one;
	/* its own buffers: the suite's are 3 MiB in quick mode, below the
	 * size from which calls are split (and timed) */
	size_t n = small() ? 8 * MIB : 16 * MIB;
	struct arena src, dst;

	arena_init(&src, n);
	arena_init(&dst, n);
	memset(src.base, 0x5a, n);
	if (fm_parallel_auto(FM_OP_MEMCPY, &pa) || pa.calls ||
	    pa.basis != FM_AUTO_UNTIMED)
		return 40;
	fm_memcpy_parallel(dst.base, src.base, 2 * MIB, 2); /* a worker */
	CPU_ZERO(&one);
	CPU_SET(cpu0, &one);
	if (starve_workers(&one) < 1)
		return 41;
	for (int i = 0; i < HOGS; i++)
		if (pthread_create(&hogs[i], NULL, hog, &one))
			return 42;
	for (int i = 0; i < 12; i++)
		fm_memcpy_parallel(dst.base, src.base, n, 0);
	__atomic_store_n(&stop_hogs, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < HOGS; i++)
		pthread_join(hogs[i], NULL);
	if (memcmp(dst.base, src.base, n))
		return 43;
	fm_parallel_auto(FM_OP_MEMCPY, &pa);
	printf("automatic count: basis %d, %u thread(s), split ran %.2fx of "
	       "one thread (%u timed calls)\n",
	       (int)pa.basis, pa.threads, pa.split_ratio, pa.samples);
	fflush(stdout);
	if (pa.basis != FM_AUTO_MEASURED || pa.samples < 6)
		return 44;
	/* the decision must follow the times (split from 1.02x on; the
	 * ratio is rounded down to a thousandth) */
	if (pa.threads == 1)
		return pa.split_ratio < 1.021 ? 0 : 45;
	return pa.split_ratio >= 1.019 ? 46 : 45;
}

START_TEST(automatic_count_chooses_one_thread_where_split_loses)
{
	struct fm_parallel_auto pa;
	cpu_set_t set;
	int status, cpu0 = -1;
	pid_t pid;

	ck_assert_int_eq(fm_parallel_auto(FM_OP_MEMMOVE, &pa), -1);
	ck_assert_int_eq(fm_parallel_auto(FM_OP_MEMSET, &pa), 0);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	/* ThreadSanitizer's instrumentation of the test's threads made the
	 * split calls win anyway (1.02-2.66x in CI): a timing test of another
	 * machine than this one */
#ifdef __SANITIZE_THREAD__
	if (1) {
		fprintf(stderr, "automatic_count_chooses_one_thread: not under "
				"ThreadSanitizer; skipped\n");
		return;
	}
#endif
	/* nor under an emulator: under qemu-ppc64le -cpu power10 the split
	 * calls won in all three processes once (a cross run, 2026-12-03), the
	 * emulator's own threads deciding what the timing sees */
	if (getenv("TEST_RUNNER") && *getenv("TEST_RUNNER")) {
		fprintf(stderr,
			"automatic_count_chooses_one_thread: not under "
			"%s; skipped\n",
			getenv("TEST_RUNNER"));
		return;
	}
	if (CPU_COUNT(&set) < 2 || getenv("FASTMEM_THREADS")) {
		fprintf(stderr, "automatic_count_chooses_one_thread: needs 2 "
				"CPUs and the built-in cap; skipped\n");
		return;
	}
	for (int i = 0; i < CPU_SETSIZE && cpu0 < 0; i++)
		if (CPU_ISSET(i, &set))
			cpu0 = i;
	/* Up to five fresh processes.  The starved worker does not make
	 * every machine's split calls lose: on a machine loaded by others the
	 * calls timed alone can run slower (all three processes split once
	 * in the clang stage of a CI run on the Intel guest, 2026-12-03), and
	 * on the Zen 5 guest the clang build's split calls of 8 MiB ran
	 * 1.25-1.40x the lone ones in five of five processes (the gcc build's
	 * 0.85-0.97x).  There the library rightly splits: an attempt whose
	 * split calls won passes on to the next, and five such attempts skip.
	 * A decision that does not follow the times, or none, fails at once,
	 * as does a library that never chooses one thread where it lost. */
	for (int attempt = 0; attempt < 5; attempt++) {
		pid = fork();
		ck_assert(pid >= 0);
		if (pid == 0) {
			alarm(120);
			_exit(child_splitting_loses(cpu0));
		}
		ck_assert(waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 46)
			break;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 46) {
		fprintf(stderr, "automatic_count_chooses_one_thread: split "
				"calls won in five processes here (each then "
				"split, as it should); skipped\n");
		return;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "splitting made to lose: status %#x (exit 40: state "
		      "not fresh, 41: no worker found or not starved, 43: "
		      "wrong bytes, 44: not measured, 45: the decision did "
		      "not follow the times)",
		      status);
}
END_TEST

START_TEST(zero_and_overlap)
{
	ck_assert_ptr_eq(fm_memcpy_parallel(NULL, NULL, 0, 4), NULL);
	ck_assert_ptr_eq(fm_memset_parallel(NULL, 1, 0, 0), NULL);
	fm_clear_pages_parallel(NULL, 0, 3);
	/* overlapping buffers: copied as by memmove, never split */
	size_t n = 2 * MIB;
	fill_pattern(B.base, n + 4 * KIB, 1);
	fill_pattern(R.base, n + 4 * KIB, 1);
	fm_memcpy_parallel(B.base + 4 * KIB, B.base, n, 4);
	fm_memmove(R.base + 4 * KIB, R.base, n);
	ck_assert(!memcmp(B.base, R.base, n + 4 * KIB));
}
END_TEST

/* One case per test, so that CK_RUN_CASE=name runs just one. */
static void add(Suite *s, const char *name, const TTest *test, int loops)
{
	TCase *tc = tcase_create(name);

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 600);
	if (loops)
		tcase_add_loop_test(tc, test, 0, loops);
	else
		tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

int main(void)
{
	Suite *s = suite_create("parallel");

	add(s, "same_bytes", same_bytes_as_single_thread, K_CLEAR + 1);
	add(s, "zero_and_overlap", zero_and_overlap, 0);
	add(s, "many_callers", many_callers_at_once, 0);
	add(s, "fork", fork_in_multithreaded_caller, 0);
	add(s, "thread_creation_fails", thread_creation_fails, 0);
	add(s, "threads_only_from_parallel_calls",
	    threads_only_from_parallel_calls, 0);
	add(s, "affinity", automatic_count_follows_affinity, 0);
	add(s, "split_loses",
	    automatic_count_chooses_one_thread_where_split_loses, 0);
	return run_suite(s);
}
