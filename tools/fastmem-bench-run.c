/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench run [--runs N] -- PROGRAM ARGS...: is it faster for my
 * program?  The program itself, without and with libfastmem-preload.so,
 * interleaved (without, with, without, with, ...) so that a machine
 * slowing down or warming up weighs on both sides alike.  Every run must
 * write the same standard output and exit the same way: a program whose
 * result changes under the preload is not faster, it is wrong.
 *
 * With --trace FILE, one more run records the calls (FASTMEM_TRACE) and
 * replays them (fastmem-bench-run-trace.c).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "run.h"

#define PRELOAD_NAME "libfastmem-preload.so"
#define MAX_ENV 4096

extern char **environ;

static char program[4096]; /* PROGRAM's path */
static char preload[4096]; /* the preload library's path */
static char *env_without[MAX_ENV], *env_with[MAX_ENV];
static char ld_with[4096 + 8192 + 16], ld_without[8192];
static int stdin_file; /* standard input is a regular file: rewound */

/* One run of the program. */
struct outcome {
	double wall, cpu; /* seconds; cpu: user + system, children included */
	int status;	  /* from waitpid */
	uint64_t hash;	  /* of its standard output (FNV-1a) */
	uint64_t bytes;
	char err[160]; /* the last line of its standard error */
};

void run_fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "fastmem-bench run: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* The preload beside the libfastmem this program runs with. */
static int find_preload(void)
{
	Dl_info info;
	char *slash;

	if (opt.preload) {
		snprintf(preload, sizeof(preload), "%s", opt.preload);
	} else {
		if (!dladdr((void *)fm_version, &info) || !info.dli_fname ||
		    !strchr(info.dli_fname, '/')) {
			run_fail("%s: cannot tell where libfastmem is; give "
				 "--preload LIB",
				 PRELOAD_NAME);
			return -1;
		}
		snprintf(preload, sizeof(preload), "%s", info.dli_fname);
		slash = strrchr(preload, '/');
		snprintf(slash + 1,
			 sizeof(preload) - (size_t)(slash + 1 - preload), "%s",
			 PRELOAD_NAME);
	}
	if (access(preload, R_OK)) {
		char msg[4200];

		snprintf(msg, sizeof(msg),
			 "no preload library %s (%s); give "
			 "--preload LIB",
			 preload, strerror(errno));
		run_fail("%s", msg);
		return -1;
	}
	/* ld.so reads a relative LD_PRELOAD path from the program's cwd, the
	 * same as ours; an absolute one is clearer in the report */
	if (preload[0] != '/') {
		char *abs = realpath(preload, NULL);

		if (abs) {
			snprintf(preload, sizeof(preload), "%s", abs);
			free(abs);
		}
	}
	return 0;
}

/* LD_PRELOAD's value without any libfastmem-preload.so in it. */
static void strip_preload(const char *v, char *out, size_t len)
{
	size_t k = 0;

	out[0] = 0;
	while (*v) {
		size_t n = strcspn(v, ": ");
		const char *base = v;

		for (size_t i = 0; i < n; i++)
			if (v[i] == '/')
				base = v + i + 1;
		if (n &&
		    strncmp(base, PRELOAD_NAME, strlen(PRELOAD_NAME)) != 0 &&
		    k + n + 2 < len)
			k += (size_t)snprintf(out + k, len - k, "%s%.*s",
					      k ? ":" : "", (int)n, v);
		v += n;
		v += *v != 0;
	}
}

static int env_name_is(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(entry, name, n) && entry[n] == '=';
}

/* Was VAR given by --with-env (then the 'with' side takes that value)? */
static int overridden(const char *entry)
{
	for (int i = 0; i < opt.nwith_env; i++) {
		size_t n = strcspn(opt.with_env[i], "=");

		if (!strncmp(entry, opt.with_env[i], n) && entry[n] == '=')
			return 1;
	}
	return 0;
}

/* The two environments: ours without FASTMEM_TRACE (tracing slows every
 * call) and without the preload; the other with the preload first in
 * LD_PRELOAD and the --with-env variables. */
static int build_envs(void)
{
	const char *ld = getenv("LD_PRELOAD");
	int a = 0, b = 0;

	/* "LD_PRELOAD=" then what was in it, less the preload */
	memcpy(ld_without, "LD_PRELOAD=", 11);
	strip_preload(ld ? ld : "", ld_without + 11, sizeof(ld_without) - 11);
	snprintf(ld_with, sizeof(ld_with), "LD_PRELOAD=%s%s%s", preload,
		 ld_without[11] ? ":" : "", ld_without + 11);
	if (ld_without[11])
		env_without[a++] = ld_without;
	env_with[b++] = ld_with;
	for (char **e = environ; *e; e++) {
		if (env_name_is(*e, "LD_PRELOAD") ||
		    env_name_is(*e, "FASTMEM_TRACE"))
			continue;
		/* room for --with-env and run --trace's FASTMEM_TRACE */
		if (a + 2 >= MAX_ENV || b + opt.nwith_env + 3 >= MAX_ENV) {
			run_fail("%s", "too many environment variables");
			return -1;
		}
		env_without[a++] = *e;
		if (!overridden(*e))
			env_with[b++] = *e;
	}
	for (int i = 0; i < opt.nwith_env; i++)
		env_with[b++] = (char *)opt.with_env[i];
	env_without[a] = env_with[b] = NULL;
	return 0;
}

int run_prepare(void)
{
	const char *p = opt.argv_run[0];
	struct stat st;

	if (strchr(p, '/')) {
		snprintf(program, sizeof(program), "%s", p);
		if (access(program, X_OK) || stat(program, &st) ||
		    !S_ISREG(st.st_mode)) {
			run_fail("cannot run '%s': not an executable file", p);
			return -1;
		}
	} else if (find_in_path(p, program, sizeof(program))) {
		run_fail("cannot run '%s': not found in PATH", p);
		return -1;
	}
	if (find_preload() || build_envs())
		return -1;
	stdin_file = fstat(0, &st) == 0 && S_ISREG(st.st_mode);
	if (opt.runs <= 0)
		opt.runs = 5;
	return 0;
}

/* A temporary file for the child's output, already unlinked. */
static int scratch_file(void)
{
	char path[] = "/tmp/fastmem-run.XXXXXX";
	const char *dir = getenv("TMPDIR");
	char buf[4200];
	int fd;

	if (dir && *dir) {
		snprintf(buf, sizeof(buf), "%s/fastmem-run.XXXXXX", dir);
		fd = mkstemp(buf);
		if (fd >= 0) {
			unlink(buf);
			return fd;
		}
	}
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* FNV-1a of fd's contents, from its start; with last, the last line of
 * text too (unprintable bytes as '?'). */
static uint64_t hash_fd(int fd, uint64_t *bytes, char *last, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char buf[65536], cur[160];
	size_t k = 0;
	ssize_t n;

	*bytes = 0;
	if (last)
		last[0] = 0;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];

			h = (h ^ (unsigned char)c) * 0x100000001b3ull;
			if (c == '\n' && k) {
				cur[k] = 0;
				if (last)
					snprintf(last, len, "%s", cur);
				k = 0;
			} else if (c != '\n' && k + 1 < sizeof(cur)) {
				cur[k++] = c >= 0x20 && c < 0x7f ? c : '?';
			}
		}
		*bytes += (uint64_t)n;
	}
	if (k && last) {
		cur[k] = 0;
		snprintf(last, len, "%s", cur);
	}
	return h;
}

/* Run the program once with env; 0, or -1 if it could not be started. */
static int run_once(char **env, struct outcome *o)
{
	int out = scratch_file(), err = scratch_file();
	struct rusage ru;
	uint64_t err_bytes;
	pid_t pid;
	double t0;

	memset(o, 0, sizeof(*o));
	if (out < 0 || err < 0) {
		run_fail("cannot create a temporary file: %s", strerror(errno));
		return -1;
	}
	if (stdin_file)
		lseek(0, 0, SEEK_SET);
	fflush(stdout);
	t0 = now_ns();
	pid = fork();
	if (pid == 0) {
		int in = stdin_file ? 0 : open("/dev/null", O_RDONLY);

		if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(err, 2) < 0)
			_exit(127);
		/* the program gets 0, 1 and 2, not our scratch files */
		if (out > 2)
			close(out);
		if (err > 2)
			close(err);
		execve(program, opt.argv_run, env);
		dprintf(2, "cannot execute %s: %s\n", program, strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		run_fail("fork: %s", strerror(errno));
		close(out);
		close(err);
		return -1;
	}
	while (wait4(pid, &o->status, 0, &ru) < 0 && errno == EINTR)
		;
	o->wall = (now_ns() - t0) * 1e-9;
	o->cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
		 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	o->hash = hash_fd(out, &o->bytes, NULL, 0);
	hash_fd(err, &err_bytes, o->err, sizeof(o->err));
	close(out);
	close(err);
	return 0;
}

static void status_text(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, len, "wait status %#x", st);
}

/* Does o agree with the first run (want)?  Else say how, and 0. */
static int same_result(const struct outcome *want, const struct outcome *o,
		       const char *side, int run, int cross)
{
	char a[48], b[48], msg[600], when[64];

	if (run)
		snprintf(when, sizeof(when), "timed run %d %s", run, side);
	else
		snprintf(when, sizeof(when), "untimed run %s", side);
	if (o->status == want->status && o->hash == want->hash &&
	    o->bytes == want->bytes)
		return 1;
	status_text(want->status, a, sizeof(a));
	status_text(o->status, b, sizeof(b));
	if (o->status != want->status)
		snprintf(msg, sizeof(msg),
			 "the program exits differently %s (%s: %s; the "
			 "first run without it: %s)%s%s",
			 cross ? "with the preload" : "from run to run", when,
			 b, a, o->err[0] ? "; its last error line: " : "",
			 o->err);
	else
		snprintf(msg, sizeof(msg),
			 "the program's standard output differs %s (%s: %llu "
			 "bytes; the first run without it: %llu bytes)%s",
			 cross ? "with the preload" : "from run to run", when,
			 (unsigned long long)o->bytes,
			 (unsigned long long)want->bytes,
			 cross ? ""
			       : ": a program whose output changes cannot "
				 "be compared this way");
	run_fail("%s", msg);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[1000];

	memcpy(s, v, (size_t)n * sizeof(*v));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * The pairs' log ratios ln(without/with), which treat faster and slower
 * alike (a gain of 1 - with/without is unbounded one way): median, its
 * standard error (1.4826 MAD estimates the spread of one pair, 1.2533 s /
 * sqrt(n) that of a median of n) and range; then as time saved, 1 -
 * with/without, with the error carried over (times with/without).
 */
struct gain {
	double lmed, lerr;	 /* log ratio: median, standard error */
	double med, err, lo, hi; /* time saved: median, error, range */
};

static struct gain paired_gain(const double *without, const double *with, int n)
{
	double l[1000] = { 0 }, dev[1000] = { 0 }, lo, hi;
	struct gain r;

	for (int i = 0; i < n; i++)
		l[i] = log(without[i] / with[i]);
	r.lmed = median(l, n);
	lo = hi = l[0];
	for (int i = 0; i < n; i++) {
		dev[i] = fabs(l[i] - r.lmed);
		lo = l[i] < lo ? l[i] : lo;
		hi = l[i] > hi ? l[i] : hi;
	}
	r.lerr = 1.2533 * 1.4826 * median(dev, n) / sqrt((double)n);
	r.med = 1 - exp(-r.lmed);
	r.err = r.lerr * exp(-r.lmed);
	r.lo = 1 - exp(-lo);
	r.hi = 1 - exp(-hi);
	return r;
}

/* 'faster by 3.1% ± 0.8%' (time saved), 'slower by 40.0% ± 2.1%' (time
 * added), 'no difference measurable at this noise': beyond two standard
 * errors of the log ratio, and with 3 pairs or more. */
static const char *verdict_of(const struct gain *g, int n, char *buf,
			      size_t len)
{
	if (n < 3) {
		snprintf(buf, len,
			 "too few runs for a verdict (--runs 3 or more)");
		return "none";
	}
	if (fabs(g->lmed) > 2 * g->lerr && g->lmed != 0) {
		snprintf(buf, len, "%s by %.1f%% \302\261 %.1f%%",
			 g->lmed > 0 ? "faster" : "slower",
			 100 * fabs(g->lmed > 0 ? g->med : exp(-g->lmed) - 1),
			 100 * g->err);
		return g->lmed > 0 ? "faster" : "slower";
	}
	snprintf(buf, len,
		 "no difference measurable at this noise (%+.1f%% \302\261 "
		 "%.1f%%)",
		 100 * g->med, 100 * g->err);
	return "none";
}

/*
 * The runs: two untimed without the preload (a program whose output
 * changes from run to run is told apart from one the preload changes) and
 * one with it, then N timed pairs.  Run 0 is the untimed ones.
 */
static int run_pairs(double *wall[2], double *cpu[2], struct outcome *first)
{
	char **envs[2] = { env_without, env_with };
	static const char *const sides[2] = { "without the preload",
					      "with the preload" };
	struct outcome o;

	memset(first, 0, sizeof(*first));
	progress_begin(2L * opt.runs + 3);
	for (int r = -2; r < opt.runs; r++)
		for (int s = 0; s < 2 && !(r == -2 && s == 1); s++) {
			activity("run %d %s", r < 0 ? 0 : r + 1, sides[s]);
			if (run_once(envs[s], &o))
				return 1;
			if (r == -2)
				*first = o;
			else if (!same_result(first, &o, sides[s],
					      r < 0 ? 0 : r + 1, s))
				return 1;
			progress_step(activity_text());
			if (r < 0)
				continue;
			wall[s][r] = o.wall;
			cpu[s][r] = o.cpu;
		}
	progress_end();
	return 0;
}

static void print_side_stats(const char *what, double *v[2],
			     const struct gain *g)
{
	double a = median(v[0], opt.runs), b = median(v[1], opt.runs);

	if (opt.format == OUT_TEXT)
		printf("%-14s %10.4f s %10.4f s   %+6.1f%% (pairs %+.1f%% .. "
		       "%+.1f%%)\n",
		       what, a, b, 100 * g->med, 100 * g->lo, 100 * g->hi);
	else if (opt.format == OUT_JSON)
		json_extra(",\"%s\":{\"without_median_s\":%.6g,"
			   "\"with_median_s\":%.6g,\"gain\":%.6g,"
			   "\"gain_error\":%.6g,\"gain_low\":%.6g,"
			   "\"gain_high\":%.6g}",
			   what, a, b, g->med, g->err, g->lo, g->hi);
}

static void print_runs_csv(double *wall[2], double *cpu[2])
{
	printf("side,run,wall_s,cpu_s\n");
	for (int r = 0; r < opt.runs; r++)
		for (int s = 0; s < 2; s++)
			printf("%s,%d,%.6f,%.6f\n", s ? "with" : "without",
			       r + 1, wall[s][r], cpu[s][r]);
}

/* One more run with the preload and var set (build_envs left room for
 * one more variable): 0, or -1 if it could not be started. */
int run_with_var(char *var)
{
	struct outcome o;
	int n = 0, rc;

	while (env_with[n])
		n++;
	env_with[n] = var;
	env_with[n + 1] = NULL;
	rc = run_once(env_with, &o);
	env_with[n] = NULL;
	return rc;
}

int cmd_run(void)
{
	double *wall[2], *cpu[2];
	struct outcome first;
	struct gain gw, gc;
	char st[48], line[160], esc[8400];
	const char *kind;
	int rc;

	for (int s = 0; s < 2; s++) {
		wall[s] = calloc((size_t)opt.runs, sizeof(double));
		cpu[s] = calloc((size_t)opt.runs, sizeof(double));
		if (!wall[s] || !cpu[s])
			return 1;
	}
	note("run: %s, %d timed runs each way, interleaved (without, with, "
	     "...) after two untimed runs without and one with; with: "
	     "LD_PRELOAD=%s%s",
	     program, opt.runs, preload,
	     opt.nwith_env ? " and --with-env" : "");
	if (!stdin_file)
		note("run: standard input is /dev/null (give a regular file "
		     "on standard input to feed one)");
	rc = run_pairs(wall, cpu, &first);
	if (rc)
		return rc;
	status_text(first.status, st, sizeof(st));
	note("run: every run wrote the same %llu bytes on standard output "
	     "and ended with %s",
	     (unsigned long long)first.bytes, st);
	gw = paired_gain(wall[0], wall[1], opt.runs);
	gc = paired_gain(cpu[0], cpu[1], opt.runs);
	kind = verdict_of(&gw, opt.runs, line, sizeof(line));
	if (opt.format == OUT_CSV)
		print_runs_csv(wall, cpu);
	if (opt.format == OUT_TEXT)
		printf("\n== run: %d runs each way, medians ==\n%-14s %12s "
		       "%12s   %s\n",
		       opt.runs, "", "without", "with",
		       "time saved (median of pairs, range)");
	json_escape(preload, esc, sizeof(esc));
	json_extra("\"run\":{\"preload\":\"%s\",\"runs\":%d,\"stdout_bytes\":"
		   "%llu,\"status\":%d",
		   esc, opt.runs, (unsigned long long)first.bytes,
		   first.status);
	print_side_stats("wall", wall, &gw);
	print_side_stats("cpu", cpu, &gc);
	json_escape(line, esc, sizeof(esc));
	json_extra(",\"verdict\":\"%s\",\"text\":\"%s\"}", kind, esc);
	if (opt.format != OUT_JSON)
		printf("%sverdict: %s (wall time, median of %d paired runs)\n",
		       opt.format == OUT_CSV ? "# " : "", line, opt.runs);
	if (opt.ntraces)
		rc = run_record_and_replay(median(wall[0], opt.runs), gw.med,
					   gw.err);
	for (int s = 0; s < 2; s++) {
		free(wall[s]);
		free(cpu[s]);
	}
	return rc;
}
