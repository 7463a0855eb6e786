/* SPDX-License-Identifier: MIT */
/*
 * FASTMEM_TRACE: this program run with --child SCENARIO and FASTMEM_TRACE
 * set makes known fm_* calls; the tests read the files it leaves and
 * assert the exact counts.  Also the reader of fastmem-bench replay
 * (tools/distribution.c): malformed files are rejected, LLVM libc's format
 * is read right.
 *
 * Scenarios:
 *   known    1000 copies of 100 B, 10 of 1 MiB, 5 overlapping moves of
 *            50 B, 3 non-overlapping moves of 4097 B, 7 sets of 64 B at a
 *            64-byte-aligned address, 2 of 0 B, 4 copies of 128 B 64-byte
 *            aligned at both ends, 2 copies of 0 B, 6 moves of 64 B
 *            to and from the adjacent 64 B, 1 move of 9 B onto
 *            itself; checks every byte against the same
 *            calls made by libc, and prints the variant each op runs
 *            (fm_selected) and unwrapped()
 *   fork     10 copies of 11 B; fork; the child 20 of 22 B then exit(0),
 *            the parent 30 of 33 B after the child is gone
 *   threads  4 threads started together, each 200000 copies of 40+t B and
 *            200000 sets of 64 B (the same counter: contention)
 *   signal   copies of 17 B in a loop, interrupted by a timer signal whose
 *            handler copies 33 B; prints how many of each it made
 *   signal_same  the same, the handler's copies 17 B too (the counter the
 *            loop it interrupts increments)
 *   many_threads  80 threads at once (more than the 64 counter shards),
 *            each 1000 copies of 50 B; then 80 more, once those exited
 *   shared   (FASTMEM_TRACE without %p) 10 copies of 11 B; fork, the child
 *            20 of 22 B then exit(0); fork, that child 30 of 33 B then
 *            exit(0); the parent 40 of 44 B
 *   flush_more  5 copies of 9 B, fm_trace_flush(), 3 more, exit
 *   flush    5 copies of 9 B, fm_trace_flush(), then _exit(0) (no
 *            destructor runs)
 *   hints    fm_memcpy_hint: 3 temporal of 200 B, 2 non-temporal of
 *            300 B and 2 of 64 KiB, 1 automatic of 400 B; fm_memset_hint:
 *            4 temporal of 500 B, 1 non-temporal of 8 KiB; one
 *            fm_memcpy_parallel and one fm_memset_parallel of 16 MiB on 2
 *            threads, one fm_clear_pages_parallel of 16 MiB (not counted:
 *            a page call)
 *   unwrapped  prints unwrapped() (below)
 *   none     no call at all
 */
/* readdir of a 32-bit build must cope with 64-bit inode numbers */
#define _FILE_OFFSET_BITS 64
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "distribution.h"
#include "harness.h"

/* --- the child ---------------------------------------------------------- */

/*
 * How many of fm_memcpy, fm_memmove, fm_memset resolved to exactly the
 * registry's function of the selected variant (0-3): with tracing off all
 * three (the call path is untouched), with it on none (traced twins).
 */
static int unwrapped(void)
{
	static const enum fm_op ops[] = { FM_OP_MEMCPY, FM_OP_MEMMOVE,
					  FM_OP_MEMSET };
	void *(*volatile cp)(void *, const void *, size_t) = fm_memcpy;
	void *(*volatile mv)(void *, const void *, size_t) = fm_memmove;
	void *(*volatile st)(void *, int, size_t) = fm_memset;
	void *resolved[] = { (void *)cp, (void *)mv, (void *)st };
	int same = 0;

	for (int k = 0; k < 3; k++) {
		const struct fm_variant *l;
		size_t n = fm_variants(ops[k], &l);
		for (size_t i = 0; i < n; i++)
			if (!strcmp(l[i].name, fm_selected(ops[k])))
				same += (void *)l[i].fn.memmove == resolved[k];
	}
	return same;
}

static char src[(1 << 20) + 4096] __attribute__((aligned(64)));
static char dst[(1 << 20) + 4096] __attribute__((aligned(64)));

/* What dst and src hold after the known calls, made by libc */
static char want_src[sizeof(src)], want_dst[sizeof(dst)];

static void copies(size_t n, int times)
{
	for (int i = 0; i < times; i++)
		fm_memcpy(dst + 1, src + 3, n);
}

#define THREAD_CALLS 200000

static pthread_barrier_t start;

static void *thread_main(void *arg)
{
	int t = (int)(long)arg;
	char buf[256], from[256];

	memset(from, t, sizeof(from));
	pthread_barrier_wait(&start); /* all at once: contention */
	for (int i = 0; i < THREAD_CALLS; i++) {
		fm_memcpy(buf, from, 40 + (size_t)t);
		fm_memset(buf + 1, i, 64);
	}
	return NULL;
}

static void *small_copies(void *arg)
{
	char buf[64], from[64];

	(void)arg;
	memset(from, 5, sizeof(from));
	pthread_barrier_wait(&start);
	for (int i = 0; i < 1000; i++)
		fm_memcpy(buf, from, 50);
	__asm__ volatile("" : : "r"(buf) : "memory");
	return NULL;
}

/* 80 threads at once, each 1000 copies of 50 B; 0 or an error. */
static int thread_wave(void)
{
	pthread_t th[80];

	pthread_barrier_init(&start, NULL, 80);
	for (int t = 0; t < 80; t++)
		if (pthread_create(&th[t], NULL, small_copies, NULL))
			return 2;
	for (int t = 0; t < 80; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&start);
	return 0;
}

/* Fork a child that makes times copies of n bytes and exits; 0 once it
 * did. */
static int forked_copies(size_t n, int times)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return 2;
	if (!pid) {
		copies(n, times);
		exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 3;
	return 0;
}

static volatile sig_atomic_t handled;
static size_t handler_size = 33;

static void on_alarm(int sig)
{
	char a[64], b[64];

	(void)sig;
	memset(b, 1, sizeof(b));
	fm_memcpy(a, b, handler_size);
	__asm__ volatile("" : : "r"(a) : "memory");
	handled++;
}

static int child(const char *s)
{

	if (!strcmp(s, "known")) {
		/* a different byte everywhere, so that a call that copied or
		 * set nothing, or the wrong bytes, shows */
		for (size_t i = 0; i < sizeof(src); i++) {
			src[i] = want_src[i] = (char)(i * 7 + i / 251);
			dst[i] = want_dst[i] = (char)(i * 13 + 5);
		}
		copies(100, 1000);
		memcpy(want_dst + 1, want_src + 3, 100);
		for (int i = 0; i < 10; i++)
			fm_memcpy(dst + 5, src + 7, 1 << 20);
		memcpy(want_dst + 5, want_src + 7, 1 << 20);
		for (int i = 0; i < 5; i++) {
			fm_memmove(dst + 1, dst, 50);
			memmove(want_dst + 1, want_dst, 50);
		}
		for (int i = 0; i < 3; i++)
			fm_memmove(dst + 1, src, 4097);
		memcpy(want_dst + 1, want_src, 4097);
		for (int i = 0; i < 7; i++)
			fm_memset(dst + 64, 1, 64);
		memset(want_dst + 64, 1, 64);
		fm_memset(dst + 1, 0, 0);
		fm_memset(dst + 1, 0, 0);
		for (int i = 0; i < 4; i++)
			fm_memcpy(dst + 128, src + 64, 128);
		memcpy(want_dst + 128, want_src + 64, 128);
		/* the edges of overlapping: none of these but the last */
		fm_memcpy(dst + 1, src + 9, 0);
		fm_memcpy(dst + 1, src + 9, 0);
		for (int i = 0; i < 3; i++) {
			fm_memmove(dst + 65, dst + 129, 64); /* adjacent */
			memmove(want_dst + 65, want_dst + 129, 64);
			fm_memmove(dst + 129, dst + 65, 64);
			memmove(want_dst + 129, want_dst + 65, 64);
		}
		fm_memmove(dst + 7, dst + 7, 9); /* itself: overlapping */
		if (memcmp(src, want_src, sizeof(src)) ||
		    memcmp(dst, want_dst, sizeof(dst))) {
			fprintf(stderr,
				"check_trace: known calls of %s, %s, "
				"%s: wrong bytes\n",
				fm_selected(FM_OP_MEMCPY),
				fm_selected(FM_OP_MEMMOVE),
				fm_selected(FM_OP_MEMSET));
			return 6;
		}
		printf("%s %s %s %d\n", fm_selected(FM_OP_MEMCPY),
		       fm_selected(FM_OP_MEMMOVE), fm_selected(FM_OP_MEMSET),
		       unwrapped());
	} else if (!strcmp(s, "fork")) {
		pid_t pid;
		int st;

		copies(11, 10);
		pid = fork();
		if (pid < 0)
			return 2;
		if (!pid) {
			copies(22, 20);
			exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			return 3;
		copies(33, 30);
	} else if (!strcmp(s, "threads")) {
		pthread_t th[4];

		pthread_barrier_init(&start, NULL, 4);
		for (long t = 0; t < 4; t++)
			if (pthread_create(&th[t], NULL, thread_main,
					   (void *)t))
				return 2;
		for (int t = 0; t < 4; t++)
			pthread_join(th[t], NULL);
	} else if (!strcmp(s, "many_threads")) {
		if (thread_wave() || thread_wave())
			return 2;
	} else if (!strcmp(s, "shared")) {
		copies(11, 10);
		if (forked_copies(22, 20) || forked_copies(33, 30))
			return 3;
		copies(44, 40);
	} else if (!strcmp(s, "flush_more")) {
		copies(9, 5);
		if (fm_trace_flush())
			return 4;
		copies(9, 3);
	} else if (!strcmp(s, "signal") || !strcmp(s, "signal_same")) {
		struct sigaction sa;
		struct itimerval it = { { 0, 200 }, { 0, 200 } };
		long loops = 0;

		if (!strcmp(s, "signal_same"))
			handler_size = 17;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		while (handled < 200 && loops < 200000000L) {
			fm_memcpy(dst + 1, src + 3, 17);
			loops++;
		}
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		printf("%ld %ld\n", loops, (long)handled);
		fflush(stdout);
	} else if (!strcmp(s, "flush")) {
		copies(9, 5);
		if (fm_trace_flush())
			return 4;
		_exit(0);
	} else if (!strcmp(s, "hints")) {
		size_t big = (size_t)16 << 20;
		char *a = aligned_alloc(4096, big),
		     *b = aligned_alloc(4096, big);

		if (!a || !b)
			return 5;
		memset(b, 3, big);
		for (int i = 0; i < 3; i++)
			fm_memcpy_hint(dst, src, 200, FM_HINT_TEMPORAL);
		for (int i = 0; i < 2; i++) {
			fm_memcpy_hint(dst, src, 300, FM_HINT_NONTEMPORAL);
			fm_memcpy_hint(dst, src, 65536, FM_HINT_NONTEMPORAL);
		}
		fm_memcpy_hint(dst, src, 400, FM_HINT_AUTO);
		for (int i = 0; i < 4; i++)
			fm_memset_hint(dst, 1, 500, FM_HINT_TEMPORAL);
		fm_memset_hint(dst, 1, 8192, FM_HINT_NONTEMPORAL);
		fm_memcpy_parallel(a, b, big, 2);
		fm_memset_parallel(a, 7, big, 2);
		fm_clear_pages_parallel(a, big / 4096, 2);
		free(a);
		free(b);
	} else if (!strcmp(s, "unwrapped")) {
		printf("%d\n", unwrapped());
	} else if (strcmp(s, "none")) {
		fprintf(stderr, "check_trace: unknown scenario '%s'\n", s);
		return 2;
	}
	return 0;
}

/* --- running it --------------------------------------------------------- */

static char self[PATH_MAX];
static char tmpdir[PATH_MAX];

struct result {
	char out[4096];
	char err[4096];
	int status;
	pid_t pid;
};

/* Run the child in a process group of its own, as a shell with job control
 * runs each command. */
static int own_group;
/* More of the child's environment ("NAME=value", NULL-terminated) */
static const char *extra_env[4];

/* Run this program with --child scenario and FASTMEM_TRACE=trace (none if
 * NULL), through $TEST_RUNNER. */
static void run(struct result *res, const char *scenario, const char *trace)
{
	char *env[12], *argv[20], tv[PATH_MAX + 32];
	int out[2], err[2], n = 0, a = 0;
	char *runner = getenv("TEST_RUNNER");
	char *copy = runner && *runner ? strdup(runner) : NULL;

	env[n++] = "FASTMEM_SYSTEM_CONFIG=";
	env[n++] = "FASTMEM_CONFIG=";
	if (trace) {
		snprintf(tv, sizeof(tv), "FASTMEM_TRACE=%s", trace);
		env[n++] = tv;
	}
	for (int i = 0; extra_env[i]; i++)
		env[n++] = (char *)extra_env[i];
	env[n] = NULL;
	for (char *tok = copy ? strtok(copy, " ") : NULL; tok && a < 12;
	     tok = strtok(NULL, " "))
		argv[a++] = tok;
	argv[a++] = self;
	argv[a++] = "--child";
	argv[a++] = (char *)scenario;
	argv[a] = NULL;

	ck_assert(pipe(out) == 0 && pipe(err) == 0);
	res->pid = fork();
	ck_assert(res->pid >= 0);
	if (res->pid == 0) {
		if (own_group)
			setpgid(0, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		execvpe(argv[0], argv, env);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	harness_slurp(out[0], res->out, sizeof(res->out));
	harness_slurp(err[0], res->err, sizeof(res->err));
	close(out[0]);
	close(err[0]);
	waitpid(res->pid, &res->status, 0);
	free(copy);
	ck_assert_msg(WIFEXITED(res->status) && WEXITSTATUS(res->status) == 0,
		      "child %s failed (status %#x), stderr: %s", scenario,
		      res->status, res->err);
}

/* A fresh directory for one test's trace files. */
static void fresh_dir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "%s/%s", tmpdir, name);
	ck_assert_msg(mkdir(dir, 0700) == 0, "mkdir %s: %s", dir,
		      strerror(errno));
}

/* The files in dir, sorted; returns how many. */
static int list(const char *dir, char names[][PATH_MAX], int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert(d != NULL);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && n < max)
			snprintf(names[n++], PATH_MAX, "%s/%s", dir, e->d_name);
	closedir(d);
	return n;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[1 << 16];
	size_t n;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Run child with FASTMEM_TRACE=<a fresh directory label>/t.%p; its one
 * trace file's text. */
static const char *traced_once(struct result *r, const char *label,
			       const char *child)
{
	char dir[PATH_MAX], pat[PATH_MAX + 16], names[2][PATH_MAX];

	fresh_dir(dir, sizeof(dir), label);
	snprintf(pat, sizeof(pat), "%s/t.%%p", dir);
	run(r, child, pat);
	ck_assert_msg(list(dir, names, 2) == 1, "%s: not one trace file",
		      label);
	return read_all(names[0]);
}

/* The number on the line "key COUNT" of the trace (0 if no such line; a
 * line that is there twice fails). */
static unsigned long long value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	unsigned long long v = 0;
	int seen = 0;

	for (const char *p = text; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			ck_assert_msg(!seen, "'%s' twice", key);
			v = strtoull(p + kl + 1, NULL, 10);
			seen = 1;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return v;
}

/* Every line "OP SIZE COUNT" of op, summed: the calls the sizes account
 * for. */
static unsigned long long sized(const char *text, const char *op)
{
	size_t ol = strlen(op);
	unsigned long long v = 0;

	for (const char *p = text; p && *p;) {
		const char *sp = strchr(p + ol + 1, ' ');
		if (!strncmp(p, op, ol) && p[ol] == ' ' && sp)
			v += strtoull(sp + 1, NULL, 10);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return v;
}

static void check_readable(const char *path)
{
	struct dist d;
	char err[512];

	ck_assert_msg(dist_load(path, &d, err, sizeof(err)) == 0,
		      "replay cannot read the trace: %s", err);
	dist_free(&d);
}

#define EQ(text, key, want)                                                    \
	ck_assert_msg(value(text, key) == (want), "%s: %llu, expected %llu",   \
		      key, value(text, key), (unsigned long long)(want))

/* The counts of the known calls (the scenario "known") */
static void check_known(const char *t)
{
	ck_assert_msg(!strncmp(t, "fastmem-trace 1\n", 16), "header: %.40s", t);
	EQ(t, "calls memcpy", 1016);
	EQ(t, "memcpy 100", 1000);
	EQ(t, "memcpy 1048576-2097151", 10);
	EQ(t, "memcpy 128", 4);
	EQ(t, "memcpy 0", 2);
	EQ(t, "aligned64 memcpy", 4);
	EQ(t, "overlapping memcpy", 0);
	EQ(t, "calls memmove", 15);
	EQ(t, "memmove 50", 5);
	EQ(t, "memmove 4097-8191", 3);
	EQ(t, "memmove 64", 6);
	EQ(t, "memmove 9", 1);
	EQ(t, "overlapping memmove", 6);
	EQ(t, "aligned64 memmove", 0);
	EQ(t, "calls memset", 9);
	EQ(t, "memset 64", 7);
	EQ(t, "memset 0", 2);
	EQ(t, "aligned64 memset", 7);
	ck_assert_uint_eq(sized(t, "memcpy"), 1016);
	ck_assert_uint_eq(sized(t, "memmove"), 15);
	ck_assert_uint_eq(sized(t, "memset"), 9);
}

START_TEST(known_calls_exact_counts)
{
	char dir[PATH_MAX], pat[PATH_MAX + 16], names[4][PATH_MAX], want[64];
	struct result r;
	const char *t;

	fresh_dir(dir, sizeof(dir), "known");
	snprintf(pat, sizeof(pat), "%s/t.%%p", dir);
	run(&r, "known", pat);
	ck_assert_int_eq(list(dir, names, 4), 1);
	snprintf(want, sizeof(want), "%s/t.%d", dir, (int)r.pid);
	ck_assert_str_eq(names[0], want);
	ck_assert_msg(r.err[0] == 0, "stderr: %s", r.err);
	t = read_all(names[0]);
	check_known(t);
	check_readable(names[0]);
}
END_TEST

/*
 * Every traced twin (lib/trace.c, and the policies' own in arch/), not
 * only the automatic choice's: the known calls with each usable copy
 * variant forced for memcpy and memmove, then each set variant for
 * memset, run that variant's twin (the child names it, and no call is
 * unwrapped), get the right bytes and exact counts.
 */
static void known_with(const char *memcpy_as, const char *memset_as,
		       const char *label)
{
	char dir[PATH_MAX], pat[PATH_MAX + 16], names[2][PATH_MAX];
	char cp[64], mv[64], st[64], sel[3][64];
	struct result r;
	int wrapped_not = -1;

	snprintf(cp, sizeof(cp), "FASTMEM_MEMCPY=%s", memcpy_as);
	snprintf(mv, sizeof(mv), "FASTMEM_MEMMOVE=%s", memcpy_as);
	snprintf(st, sizeof(st), "FASTMEM_MEMSET=%s", memset_as);
	extra_env[0] = cp;
	extra_env[1] = mv;
	extra_env[2] = st;
	fresh_dir(dir, sizeof(dir), label);
	snprintf(pat, sizeof(pat), "%s/t.%%p", dir);
	run(&r, "known", pat);
	extra_env[0] = NULL;
	ck_assert_msg(r.err[0] == 0, "%s: stderr: %s", label, r.err);
	ck_assert_msg(sscanf(r.out, "%63s %63s %63s %d", sel[0], sel[1], sel[2],
			     &wrapped_not) == 4,
		      "%s: child said '%s'", label, r.out);
	ck_assert_str_eq(sel[0], memcpy_as);
	ck_assert_str_eq(sel[1], memcpy_as);
	ck_assert_str_eq(sel[2], memset_as);
	ck_assert_msg(wrapped_not == 0, "%s: %d calls not traced", label,
		      wrapped_not);
	ck_assert_int_eq(list(dir, names, 2), 1);
	check_known(read_all(names[0]));
}

START_TEST(every_twin_exact_counts)
{
	const struct fm_variant *copy, *set;
	size_t ncopy = fm_variants(FM_OP_MEMCPY, &copy);
	size_t nset = fm_variants(FM_OP_MEMSET, &set);
	char label[64];
	int ran = 0;

	for (size_t i = 0; i < ncopy; i++)
		if (copy[i].usable) {
			snprintf(label, sizeof(label), "copy-%s", copy[i].name);
			known_with(copy[i].name, fm_selected(FM_OP_MEMSET),
				   label);
			ran++;
		}
	for (size_t i = 0; i < nset; i++)
		if (set[i].usable) {
			snprintf(label, sizeof(label), "set-%s", set[i].name);
			known_with(fm_selected(FM_OP_MEMCPY), set[i].name,
				   label);
			ran++;
		}
	ck_assert_int_ge(ran, 2); /* generic at least, for each */
}
END_TEST

/* What fastmem(3) says tracing counts: every hint call, whatever the hint
 * and size, and a parallel call once, whole (not its chunks). */
START_TEST(hint_and_parallel_calls_counted)
{
	struct result r;
	const char *t = traced_once(&r, "hints", "hints");

	EQ(t, "memcpy 200", 3);
	EQ(t, "memcpy 300", 2);
	EQ(t, "memcpy 65536-131071", 2);
	EQ(t, "memcpy 400", 1);
	EQ(t, "memcpy 16777216-33554431", 1);
	EQ(t, "calls memcpy", 9);
	EQ(t, "memset 500", 4);
	EQ(t, "memset 8192-16383", 1);
	EQ(t, "memset 16777216-33554431", 1);
	EQ(t, "calls memset", 6);
	ck_assert_uint_eq(sized(t, "memcpy"), 9);
	ck_assert_uint_eq(sized(t, "memset"), 6);
}
END_TEST

START_TEST(fork_each_process_its_own_counts)
{
	char dir[PATH_MAX], pat[PATH_MAX + 16], names[4][PATH_MAX], mine[64];
	struct result r;
	int n, parent = -1;

	fresh_dir(dir, sizeof(dir), "fork");
	snprintf(pat, sizeof(pat), "%s/t.%%p", dir);
	run(&r, "fork", pat);
	n = list(dir, names, 4);
	ck_assert_msg(n == 2, "%d trace files, expected 2", n);
	snprintf(mine, sizeof(mine), "/t.%d", (int)r.pid);
	for (int i = 0; i < 2; i++)
		if (strstr(names[i], mine) &&
		    !strcmp(strstr(names[i], mine), mine))
			parent = i;
	ck_assert_msg(parent >= 0, "no file of the parent %s", mine);
	const char *t = read_all(names[parent]);
	EQ(t, "memcpy 11", 10);
	EQ(t, "memcpy 33", 30);
	EQ(t, "memcpy 22", 0);
	EQ(t, "calls memcpy", 40);
	t = read_all(names[1 - parent]);
	EQ(t, "memcpy 22", 20);
	EQ(t, "memcpy 11", 0);
	EQ(t, "memcpy 33", 0);
	EQ(t, "calls memcpy", 20);
}
END_TEST

START_TEST(threads_lose_no_count)
{
	char key[32];
	struct result r;
	const char *t = traced_once(&r, "threads", "threads");

	for (int i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "memcpy %d", 40 + i);
		EQ(t, key, THREAD_CALLS);
	}
	EQ(t, "memset 64", 4 * THREAD_CALLS);
	EQ(t, "calls memcpy", 4 * THREAD_CALLS);
}
END_TEST

START_TEST(signal_handler_calls_counted)
{
	struct result r;
	long loops = -1, handled = -1;
	const char *t = traced_once(&r, "signal", "signal");

	ck_assert_int_eq(sscanf(r.out, "%ld %ld", &loops, &handled), 2);
	ck_assert_msg(handled > 0, "no signal arrived (%ld loops)", loops);
	EQ(t, "memcpy 17", (unsigned long long)loops);
	EQ(t, "memcpy 33", (unsigned long long)handled);
}
END_TEST

/* A handler that interrupts the loop's count and counts into the same
 * counter: nothing lost. */
START_TEST(signal_handler_same_counter)
{
	struct result r;
	long loops = -1, handled = -1;
	const char *t = traced_once(&r, "signal_same", "signal_same");

	ck_assert_int_eq(sscanf(r.out, "%ld %ld", &loops, &handled), 2);
	ck_assert_msg(handled > 0, "no signal arrived (%ld loops)", loops);
	EQ(t, "memcpy 17", (unsigned long long)(loops + handled));
}
END_TEST

/* More threads than shards at once (some count into the common one), then
 * as many again (they take the shards of the threads that exited). */
START_TEST(more_threads_than_shards)
{
	struct result r;
	const char *t = traced_once(&r, "many", "many_threads");

	EQ(t, "memcpy 50", 160000);
	EQ(t, "calls memcpy", 160000);
}
END_TEST

/* The sections of a file several processes wrote: how many, and the sum of
 * every "key N" line. */
static int sections(const char *text)
{
	int n = !strncmp(text, "fastmem-trace 1\n", 16);

	for (const char *p = text; (p = strstr(p, "\nfastmem-trace 1\n")); p++)
		n++;
	return n;
}

static unsigned long long summed(const char *text, const char *key)
{
	size_t kl = strlen(key);
	unsigned long long v = 0;

	for (const char *p = text; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			v += strtoull(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return v;
}

#define SUM(text, key, want)                                                   \
	ck_assert_msg(summed(text, key) == (want), "%s: %llu, expected %llu",  \
		      key, summed(text, key), (unsigned long long)(want))

/* Without %p, the processes of one run each leave their section, and say
 * so; replay adds them up. */
START_TEST(shared_path_keeps_every_process)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], names[2][PATH_MAX];
	struct result r;
	struct dist d;
	char err[512];

	fresh_dir(dir, sizeof(dir), "shared");
	snprintf(path, sizeof(path), "%s/t", dir);
	run(&r, "shared", path);
	ck_assert_int_eq(list(dir, names, 2), 1);
	const char *t = read_all(path);
	ck_assert_msg(sections(t) == 3, "%d sections: %s", sections(t), t);
	ck_assert_msg(strstr(t, "# warning: FASTMEM_TRACE has no %p"),
		      "no warning: %s", t);
	SUM(t, "memcpy 11", 10);
	SUM(t, "memcpy 22", 20);
	SUM(t, "memcpy 33", 30);
	SUM(t, "memcpy 44", 40);
	SUM(t, "calls memcpy", 100);
	ck_assert_msg(dist_load(path, &d, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(d.calls[0], 100);
	dist_free(&d);
}
END_TEST

/* A later run of a command replaces the file (another process group, as
 * from an interactive shell); in the same group (a script running the
 * command twice) both are kept; a flush then exit leaves one section. */
START_TEST(shared_path_runs_and_flushes)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct result r;
	const char *t;

	fresh_dir(dir, sizeof(dir), "reruns");
	snprintf(path, sizeof(path), "%s/t", dir);
	own_group = 1;
	run(&r, "known", path);
	run(&r, "known", path);
	own_group = 0;
	t = read_all(path);
	ck_assert_msg(sections(t) == 1, "%d sections: %s", sections(t), t);
	ck_assert_msg(!strstr(t, "# warning"), "warning: %s", t);
	EQ(t, "calls memcpy", 1016);
	run(&r, "known", path);
	run(&r, "known", path);
	t = read_all(path);
	ck_assert_msg(sections(t) == 2, "%d sections: %s", sections(t), t);
	SUM(t, "calls memcpy", 2032);
	ck_assert_msg(strstr(t, "# warning"), "no warning: %s", t);
	own_group = 1;
	run(&r, "flush_more", path);
	own_group = 0;
	t = read_all(path);
	ck_assert_msg(sections(t) == 1, "%d sections: %s", sections(t), t);
	EQ(t, "memcpy 9", 8);
}
END_TEST

START_TEST(flush_without_exit)
{
	char dir[PATH_MAX], pat[PATH_MAX + 16], names[2][PATH_MAX];
	struct result r;

	fresh_dir(dir, sizeof(dir), "flush");
	snprintf(pat, sizeof(pat), "%s/t.%%p", dir);
	run(&r, "flush", pat);
	ck_assert_int_eq(list(dir, names, 2), 1);
	EQ(read_all(names[0]), "memcpy 9", 5);
}
END_TEST

START_TEST(unwritable_path_one_warning)
{
	char pat[PATH_MAX + 32];
	struct result r;
	int lines = 0;

	snprintf(pat, sizeof(pat), "%s/no/such/dir/t.%%p", tmpdir);
	run(&r, "known", pat);
	for (const char *p = r.err; (p = strstr(p, "fastmem: ")); p++)
		lines++;
	ck_assert_msg(lines == 1, "%d warnings: %s", lines, r.err);
	ck_assert_msg(strstr(r.err, "FASTMEM_TRACE: cannot write") &&
			      strstr(r.err, "/no/such/dir/t.") &&
			      strstr(r.err, "no such file or directory"),
		      "warning: %s", r.err);
}
END_TEST

START_TEST(off_writes_nothing)
{
	char dir[PATH_MAX], names[2][PATH_MAX];
	struct result r;

	fresh_dir(dir, sizeof(dir), "off");
	ck_assert_int_eq(chdir(dir), 0);
	run(&r, "known", NULL);
	run(&r, "known", ""); /* empty: off */
	ck_assert_int_eq(list(dir, names, 2), 0);
	ck_assert_str_eq(r.err, "");
	/* this process traces nothing either, and its calls go straight to
	 * the variants: tracing off costs nothing */
	ck_assert_int_eq(fm_trace_flush(), -1);
	ck_assert_int_eq(unwrapped(), 3);
	run(&r, "unwrapped", NULL);
	ck_assert_str_eq(r.out, "3\n");
	/* on: every call goes through a traced twin */
	run(&r, "unwrapped", "/dev/null");
	ck_assert_str_eq(r.out, "0\n");
}
END_TEST

/* --- the reader of fastmem-bench replay ---------------------------------- */

static const struct {
	const char *name, *text, *msg;
} malformed[] = {
	{ "empty", "", "empty" },
	{ "blank", "\n  \n", "empty" },
	{ "binary",
	  "\x7f"
	  "ELF\x02\x01",
	  "neither" },
	{ "text", "hello world\n", "neither" },
	{ "version", "fastmem-trace 2\nmemcpy 1 1\n", "version 2" },
	{ "size", "fastmem-trace 1\nmemcpy 4097 1\n", "not a size" },
	{ "range", "fastmem-trace 1\nmemcpy 4096-8191 1\n", "range" },
	{ "range2", "fastmem-trace 1\nmemcpy 8192-10000 1\n", "range" },
	{ "count", "fastmem-trace 1\nmemcpy 5 -1\n", "count" },
	{ "count2", "fastmem-trace 1\nmemcpy 5 99999999999999999999\n",
	  "count" },
	{ "op", "fastmem-trace 1\nstrcpy 5 1\n", "unknown" },
	{ "fields", "fastmem-trace 1\nmemcpy 5\n", "three fields" },
	{ "sum", "fastmem-trace 1\ncalls memcpy 3\nmemcpy 5 2\n", "add up" },
	{ "nocalls", "fastmem-trace 1\ncalls memcpy 0\n", "no calls" },
	{ "nul", "fastmem-trace 1\nmemcpy 5\0 1\n", "NUL" },
	{ "llvm-word", "0.5,0.25,x,0.25\n", "entry 2" },
	{ "llvm-neg", "0.5,-0.25,0.75\n", "entry 1" },
	{ "llvm-big", "0.5,1.5\n", "entry 1" },
	{ "llvm-sum", "0.5,0.2\n", "add up to 0.7" },
	{ "llvm-empty", "0.5,,0.5\n", "empty" },
	{ "llvm-zero", "0,0,0\n", "every probability is 0" },
	{ "llvm-nan", "nan,1\n", "neither" },
	{ "llvm-space", "0.5 0.5\n", "comma" },
};

START_TEST(replay_rejects_malformed)
{
	struct dist d;
	char err[512] = "";
	size_t len = strlen(malformed[_i].text);

	if (!strcmp(malformed[_i].name, "nul"))
		len = 28;
	else if (!strcmp(malformed[_i].name, "binary"))
		len = 6;
	ck_assert_msg(dist_parse(malformed[_i].name, malformed[_i].text, len,
				 &d, err, sizeof(err)) == -1,
		      "%s accepted", malformed[_i].name);
	ck_assert_msg(strstr(err, malformed[_i].msg) &&
			      !strncmp(err, malformed[_i].name,
				       strlen(malformed[_i].name)),
		      "%s: message '%s' lacks '%s' or the name",
		      malformed[_i].name, err, malformed[_i].msg);
}
END_TEST

START_TEST(llvm_format_read_right)
{
	static const char text[] = "0.5,0.25,0,0.125,\n0.125,\n";
	static const double p[] = { 0.5, 0.25, 0, 0.125, 0.125, 0 };
	struct dist d;
	char err[512];
	unsigned long hist[6] = { 0 };
	uint64_t st = 1;
	const int draws = 400000;

	ck_assert_msg(dist_parse("MemcpyHandmade.csv", text, strlen(text), &d,
				 err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_str_eq(d.name, "MemcpyHandmade");
	ck_assert_int_eq(d.format, DIST_LLVM);
	ck_assert(d.total[DIST_SET] == 0); /* a memcpy distribution */
	ck_assert_uint_eq(d.max[DIST_COPY], 4);
	for (int n = 0; n < 6; n++)
		ck_assert_msg(fabs(dist_prob(&d, DIST_COPY, (size_t)n) - p[n]) <
				      1e-12,
			      "P(%d) = %g, expected %g", n,
			      dist_prob(&d, DIST_COPY, (size_t)n), p[n]);
	for (int i = 0; i < draws; i++) {
		size_t n = dist_draw(&d, DIST_COPY, &st);
		ck_assert_uint_lt(n, 5);
		hist[n]++;
	}
	for (int n = 0; n < 5; n++)
		ck_assert_msg(fabs((double)hist[n] / draws - p[n]) < 0.005,
			      "size %d drawn %.4f of the time, expected %g", n,
			      (double)hist[n] / draws, p[n]);
	dist_free(&d);
	/* a name that says neither: both operations */
	ck_assert_int_eq(
		dist_parse("fleet.csv", "0,1", 3, &d, err, sizeof(err)), 0);
	ck_assert(d.total[DIST_COPY] > 0 && d.total[DIST_SET] > 0);
	ck_assert(dist_prob(&d, DIST_SET, 1) == 1);
	dist_free(&d);
}
END_TEST

START_TEST(trace_ranges_drawn_within)
{
	static const char text[] = "fastmem-trace 1\n# comment\n"
				   "calls memcpy 4\naligned64 memcpy 2\n"
				   "memcpy 8192-16383 4\n"
				   "fastmem-trace 1\nmemset 7 3\n";
	struct dist d;
	char err[512];
	uint64_t st = 1;

	ck_assert_msg(dist_parse("t.123", text, strlen(text), &d, err,
				 sizeof(err)) == 0,
		      "%s", err);
	ck_assert_str_eq(d.name, "t.123");
	ck_assert(d.aligned[DIST_COPY] == 0.5);
	ck_assert_uint_eq(d.calls[2], 3);
	for (int i = 0; i < 1000; i++) {
		size_t n = dist_draw(&d, DIST_COPY, &st);
		ck_assert(n >= 8192 && n <= 16383);
		ck_assert_uint_eq(dist_draw(&d, DIST_SET, &st), 7);
	}
	dist_free(&d);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s;
	TCase *tc;
	int rc;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child(argv[2]);
	if (harness_start(argv[0], self, tmpdir, "fastmem-trace"))
		return 1;
	s = suite_create("trace");
	tc = tcase_create("trace");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, known_calls_exact_counts);
	tcase_add_test(tc, every_twin_exact_counts);
	tcase_add_test(tc, hint_and_parallel_calls_counted);
	tcase_add_test(tc, fork_each_process_its_own_counts);
	tcase_add_test(tc, threads_lose_no_count);
	tcase_add_test(tc, signal_handler_calls_counted);
	tcase_add_test(tc, signal_handler_same_counter);
	tcase_add_test(tc, more_threads_than_shards);
	tcase_add_test(tc, shared_path_keeps_every_process);
	tcase_add_test(tc, shared_path_runs_and_flushes);
	tcase_add_test(tc, flush_without_exit);
	tcase_add_test(tc, unwritable_path_one_warning);
	tcase_add_test(tc, off_writes_nothing);
	tcase_add_loop_test(tc, replay_rejects_malformed, 0,
			    (int)(sizeof(malformed) / sizeof(*malformed)));
	tcase_add_test(tc, llvm_format_read_right);
	tcase_add_test(tc, trace_ranges_drawn_within);
	suite_add_tcase(s, tc);
	rc = run_suite(s);
	harness_remove(tmpdir);
	return rc;
}
