/* SPDX-License-Identifier: MIT */
/*
 * Environment variables and the config file, each in a child process with a
 * controlled environment: the variant chosen, the thresholds and the exact
 * warnings are asserted.  The child is this program run with --child.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static char self[PATH_MAX];
static char tmpdir[PATH_MAX];

static const char *const op_names[FM_OP_COUNT] = {
	"memcpy", "memmove", "memset", "copy_page", "clear_page",
};

/* --- the child ---------------------------------------------------------- */

static int child(void)
{
	static unsigned char a[300000], b[300000];

	for (int op = 0; op < FM_OP_COUNT; op++)
		printf("%s %s|%s|%zu|%s\n", op_names[op], fm_selected(op),
		       fm_selected_reason(op), fm_nt_threshold(op),
		       fm_nt_threshold_source(op));
	struct fm_parallel_info pi;
	fm_parallel_info(&pi);
	printf("parallel cap=%u threads=%u cpus=%u source=%s\n", pi.cap,
	       pi.threads, pi.cpus, pi.cap_source);
	printf("usable %s\n", fm_cpu_features());
	/* the chosen variants must run and be right */
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (unsigned char)(i * 7);
	fm_memcpy(b + 1, a, sizeof(a) - 1);
	if (memcmp(b + 1, a, sizeof(a) - 1))
		return 3;
	fm_memset(b, 0x11, sizeof(b));
	for (size_t i = 0; i < sizeof(b); i++)
		if (b[i] != 0x11)
			return 3;
	fm_clear_pages(b + 4096 - ((uintptr_t)b & 4095), 4);
	fm_memcpy_parallel(b, a, sizeof(a), 0);
	if (memcmp(b, a, sizeof(a)))
		return 3;
	return 0;
}

/* --- running it --------------------------------------------------------- */

struct result {
	char out[8192];
	char err[8192];
	int status;
};

static void slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;

	while ((r = read(fd, buf + len, size - 1 - len)) > 0 ||
	       (r < 0 && errno == EINTR))
		if (r > 0)
			len += (size_t)r;
	buf[len] = 0;
}

/* Run the child with exactly the given NULL-terminated "K=V" list. */
static void run(struct result *res, ...)
{
	char *env[32], *argv[16];
	char home[PATH_MAX + 8];
	int out[2], err[2], n = 0, a = 0;
	va_list ap;
	pid_t pid;
	char *runner = getenv("TEST_RUNNER");
	char *copy = runner && *runner ? strdup(runner) : NULL;

	snprintf(home, sizeof(home), "HOME=%s/nohome", tmpdir);
	env[n++] = home;
	va_start(ap, res);
	for (char *kv; (kv = va_arg(ap, char *)) && n < 30;)
		env[n++] = kv;
	va_end(ap);
	env[n] = NULL;
	for (char *tok = copy ? strtok(copy, " ") : NULL; tok && a < 12;
	     tok = strtok(NULL, " "))
		argv[a++] = tok;
	argv[a++] = self;
	argv[a++] = "--child";
	argv[a] = NULL;

	ck_assert(pipe(out) == 0 && pipe(err) == 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		execvpe(argv[0], argv, env);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	slurp(out[0], res->out, sizeof(res->out));
	slurp(err[0], res->err, sizeof(res->err));
	close(out[0]);
	close(err[0]);
	waitpid(pid, &res->status, 0);
	free(copy);
	ck_assert_msg(WIFEXITED(res->status) && WEXITSTATUS(res->status) == 0,
		      "child failed (status %#x), stderr: %s", res->status,
		      res->err);
}

/* Field f (0 name, 1 reason, 2 threshold, 3 source) of op's line. */
static const char *field(const struct result *r, enum fm_op op, int f)
{
	static char buf[512];
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), "%s ", op_names[op]);
	for (p = r->out; p && strncmp(p, key, strlen(key));
	     p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		;
	ck_assert_msg(p != NULL, "no line for %s in: %s", key, r->out);
	p += strlen(key);
	for (int i = 0; i < f; i++)
		p = strchr(p, '|') + 1;
	size_t len = strcspn(p, "|\n");
	snprintf(buf, sizeof(buf), "%.*s", (int)len, p);
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static const char *auto_choice(enum fm_op op)
{
	static char buf[FM_OP_COUNT][64];
	struct result r;

	run(&r, NULL);
	snprintf(buf[op], sizeof(buf[op]), "%s", field(&r, op, 0));
	return buf[op];
}

/* --- tests -------------------------------------------------------------- */

START_TEST(no_settings_no_output)
{
	struct result r;

	run(&r, NULL);
	ck_assert_str_eq(r.err, "");
	for (int op = 0; op < FM_OP_COUNT; op++) {
		ck_assert_str_eq(field(&r, op, 0), fm_selected(op));
		ck_assert_str_eq(field(&r, op, 1), "auto");
	}
}
END_TEST

static const char *const env_names[FM_OP_COUNT] = {
	"FASTMEM_MEMCPY",    "FASTMEM_MEMMOVE",	   "FASTMEM_MEMSET",
	"FASTMEM_COPY_PAGE", "FASTMEM_CLEAR_PAGE",
};

/* Every usable variant of every op can be forced by name. */
START_TEST(force_each_variant)
{
	int op = _i;
	const struct fm_variant *list;
	size_t n = fm_variants(op, &list);
	char kv[128], reason[64];

	snprintf(reason, sizeof(reason), "environment (%s)", env_names[op]);
	for (size_t i = 0; i < n; i++) {
		struct result r;
		if (!list[i].usable)
			continue;
		snprintf(kv, sizeof(kv), "%s=%s", env_names[op], list[i].name);
		run(&r, kv, NULL);
		ck_assert_str_eq(r.err, "");
		ck_assert_str_eq(field(&r, op, 0), list[i].name);
		ck_assert_str_eq(field(&r, op, 1), reason);
	}
}
END_TEST

START_TEST(unknown_variant_warns_and_keeps_auto)
{
	struct result r;
	const char *want = auto_choice(FM_OP_MEMCPY);

	run(&r, "FASTMEM_MEMCPY=bogus", NULL);
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 0), want);
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 1), "auto");
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "FASTMEM_MEMCPY=\"bogus\""));
	ck_assert_ptr_nonnull(strstr(r.err, "valid: "));
	ck_assert_ptr_nonnull(strstr(r.err, "generic"));
	ck_assert_ptr_nonnull(strstr(r.err, want));
}
END_TEST

/* A variant the CPU "cannot run" (its features disabled) is refused, never
 * executed; the child's copies still pass. */
START_TEST(unusable_variant_refused)
{
	int op = _i;
	const struct fm_variant *list;
	size_t n = fm_variants(op, &list);

	for (size_t i = 0; i < n; i++) {
		struct result r;
		char force[128], disable[128];
		if (!list[i].isa[0] || !list[i].usable)
			continue;

		snprintf(force, sizeof(force), "%s=%s", env_names[op],
			 list[i].name);
		snprintf(disable, sizeof(disable), "FASTMEM_DISABLE=%s",
			 list[i].isa);
		run(&r, force, disable, NULL);
		ck_assert_msg(strcmp(field(&r, op, 0), list[i].name),
			      "%s ran with its features disabled",
			      list[i].name);
		ck_assert_str_eq(field(&r, op, 1), "auto");
		ck_assert_int_eq(count_lines(r.err), 1);
		ck_assert_ptr_nonnull(strstr(r.err, "cannot run on this CPU"));
		ck_assert_ptr_nonnull(strstr(r.err, list[i].name));
	}
}
END_TEST

START_TEST(disable_features)
{
	struct result r;
	const char *usable;

	run(&r,
	    "FASTMEM_DISABLE=avx512,avx2,erms,sse2,mmx,sse,fsrm,clzero,"
	    "altivec,dcbz,cell,ppc970",
	    NULL);
	ck_assert_str_eq(r.err, "");
	usable = strstr(r.out, "usable ");
	ck_assert_ptr_nonnull(usable);
	ck_assert_str_eq(usable, "usable \n");
	for (int op = 0; op < FM_OP_COUNT; op++) {
		const struct fm_variant *list;
		size_t n = fm_variants(op, &list);
		const char *sel = field(&r, op, 0);
		for (size_t i = 0; i < n; i++)
			if (!strcmp(list[i].name, sel))
				ck_assert_str_eq(list[i].isa, "");
	}
	run(&r, "FASTMEM_DISABLE=avx512,warp9", NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(
		strstr(r.err, "FASTMEM_DISABLE=\"avx512,warp9\""));
	ck_assert_ptr_nonnull(strstr(r.err, "valid: "));
	ck_assert_ptr_null(strstr(field(&r, FM_OP_COUNT - 1, 0), "avx512"));
	ck_assert_ptr_null(strstr(strstr(r.out, "usable "), "avx512"));
}
END_TEST

START_TEST(threshold_from_environment)
{
	struct result r;
	char detected[64];

	run(&r, NULL);
	snprintf(detected, sizeof(detected), "%s", field(&r, FM_OP_MEMCPY, 2));

	run(&r, "FASTMEM_NT_THRESHOLD=123K", NULL);
	ck_assert_str_eq(r.err, "");
	for (int op = 0; op < FM_OP_COUNT; op++) {
		ck_assert_str_eq(field(&r, op, 2), "125952");
		ck_assert_str_eq(field(&r, op, 3),
				 "environment (FASTMEM_NT_THRESHOLD)");
	}
	run(&r, "FASTMEM_NT_THRESHOLD=2MiB", NULL);
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 2), "2097152");
	run(&r, "FASTMEM_NT_THRESHOLD=1g", NULL);
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 2), "1073741824");
	run(&r, "FASTMEM_NT_THRESHOLD=never", NULL);
	snprintf(detected + 32, 32, "%zu", (size_t)-1);
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), detected + 32);

	static const char *const bad[] = { "abc", "2M5", "-1", "",
					   "99999999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char kv[64];
		snprintf(kv, sizeof(kv), "FASTMEM_NT_THRESHOLD=%s", bad[i]);
		run(&r, kv, NULL);
		ck_assert_msg(count_lines(r.err) == 1, "'%s': %s", bad[i],
			      r.err);
		ck_assert_ptr_nonnull(strstr(r.err, "FASTMEM_NT_THRESHOLD=\""));
		ck_assert_ptr_nonnull(strstr(r.err, "is not a size"));
		ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), detected);
	}
}
END_TEST

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(config_file)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64], want[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/calib.conf", tmpdir);
	write_file(path, "# written by a test\n"
			 "nt_threshold = 3M\n"
			 "  nt_threshold.memset=5M  \n"
			 "memset = generic\n");
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	run(&r, kv, NULL);
	ck_assert_str_eq(r.err, "");
	snprintf(want, sizeof(want), "config (%s)", path);
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), "3145728");
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 3), want);
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 2), "5242880");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 0), "generic");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 1), want);

	/* the environment beats the file */
	run(&r, kv, "FASTMEM_NT_THRESHOLD=1M", "FASTMEM_MEMSET=bogus", NULL);
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 2), "1048576");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 1), "auto");

	/* bad lines are named with their line number */
	write_file(path, "nt_threshold = lots\nfrobnicate = 1\n"
			 "nt_threshold.memcpy = 1M\n");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 2);
	ck_assert_ptr_nonnull(strstr(r.err, ":1: not a size"));
	ck_assert_ptr_nonnull(strstr(r.err, ":2: unknown key"));
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), "1048576");

	/* an unreadable FASTMEM_CONFIG is reported; an empty one means none */
	run(&r, "FASTMEM_CONFIG=/nonexistent/fastmem.conf", NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "cannot be read"));
	run(&r, "FASTMEM_CONFIG=", NULL);
	ck_assert_str_eq(r.err, "");
}
END_TEST

START_TEST(default_config_paths)
{
	struct result r;
	char dir[PATH_MAX], file[PATH_MAX + 32], kv[PATH_MAX + 32];

	/* $HOME/.config/fastmem/fastmem.conf */
	snprintf(dir, sizeof(dir), "%s/home", tmpdir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/home/.config", tmpdir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/home/.config/fastmem", tmpdir);
	mkdir(dir, 0700);
	snprintf(file, sizeof(file), "%s/fastmem.conf", dir);
	write_file(file, "nt_threshold.copy_page = 7K\n");
	snprintf(kv, sizeof(kv), "HOME=%s/home", tmpdir);
	run(&r, kv, NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(field(&r, FM_OP_COPY_PAGE, 2), "7168");

	/* $XDG_CONFIG_HOME/fastmem/fastmem.conf wins over $HOME */
	snprintf(dir, sizeof(dir), "%s/xdg", tmpdir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/xdg/fastmem", tmpdir);
	mkdir(dir, 0700);
	snprintf(file, sizeof(file), "%s/fastmem.conf", dir);
	write_file(file, "nt_threshold.copy_page = 9K\n");
	char xdg[PATH_MAX + 32];
	snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s/xdg", tmpdir);
	run(&r, kv, xdg, NULL);
	ck_assert_str_eq(field(&r, FM_OP_COPY_PAGE, 2), "9216");
}
END_TEST

/* The child's "parallel ..." line: cap, threads and the cap's source. */
static void parallel_line(const struct result *r, unsigned *cap,
			  unsigned *threads, char *source, size_t size)
{
	const char *p = strstr(r->out, "parallel cap=");
	unsigned cpus;
	int len = 0;

	ck_assert_msg(p != NULL, "no parallel line in: %s", r->out);
	ck_assert_int_eq(sscanf(p, "parallel cap=%u threads=%u cpus=%u %n", cap,
				threads, &cpus, &len),
			 3);
	ck_assert_uint_eq(*threads, cpus < *cap ? cpus : *cap);
	p += len;
	ck_assert(!strncmp(p, "source=", 7));
	p += 7;
	snprintf(source, size, "%.*s", (int)strcspn(p, "\n"), p);
}

START_TEST(threads_setting)
{
	struct result r;
	unsigned cap, threads, auto_cap;
	char src[PATH_MAX + 32], path[PATH_MAX + 32], kv[PATH_MAX + 64];

	run(&r, NULL);
	parallel_line(&r, &auto_cap, &threads, src, sizeof(src));
	ck_assert_str_eq(src, "built-in");
	ck_assert_uint_ge(auto_cap, 1);

	run(&r, "FASTMEM_THREADS=1", NULL);
	ck_assert_str_eq(r.err, "");
	parallel_line(&r, &cap, &threads, src, sizeof(src));
	ck_assert_uint_eq(cap, 1);
	ck_assert_uint_eq(threads, 1);
	ck_assert_str_eq(src, "environment (FASTMEM_THREADS)");
	run(&r, "FASTMEM_THREADS= 256 ", NULL);
	ck_assert_str_eq(r.err, "");
	parallel_line(&r, &cap, &threads, src, sizeof(src));
	ck_assert_uint_eq(cap, 256);

	static const char *const bad[] = { "0",	 "",	"abc",	      "-2",
					   "2x", "257", "99999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(kv, sizeof(kv), "FASTMEM_THREADS=%s", bad[i]);
		run(&r, kv, NULL);
		ck_assert_msg(count_lines(r.err) == 1, "'%s': %s", bad[i],
			      r.err);
		snprintf(kv, sizeof(kv),
			 "fastmem: FASTMEM_THREADS=\"%s\" is "
			 "not a thread count; valid: a number "
			 "from 1 to 256; keeping the automatic "
			 "count\n",
			 bad[i]);
		ck_assert_str_eq(r.err, kv);
		parallel_line(&r, &cap, &threads, src, sizeof(src));
		ck_assert_uint_eq(cap, auto_cap);
		ck_assert_str_eq(src, "built-in");
	}

	/* the config file's threads = N, below the environment */
	snprintf(path, sizeof(path), "%s/threads.conf", tmpdir);
	write_file(path, "threads = 2\n");
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	run(&r, kv, NULL);
	ck_assert_str_eq(r.err, "");
	parallel_line(&r, &cap, &threads, src, sizeof(src));
	ck_assert_uint_eq(cap, 2);
	ck_assert_ptr_nonnull(strstr(src, "config ("));
	ck_assert_ptr_nonnull(strstr(src, path));
	run(&r, kv, "FASTMEM_THREADS=3", NULL);
	parallel_line(&r, &cap, &threads, src, sizeof(src));
	ck_assert_uint_eq(cap, 3);
	write_file(path, "threads = many\n");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, ":1: not a thread count (valid: "
					    "a number from 1 to 256): many"));
	parallel_line(&r, &cap, &threads, src, sizeof(src));
	ck_assert_uint_eq(cap, auto_cap);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s;
	TCase *tc;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child();
	if (!realpath(argv[0], self)) {
		perror(argv[0]);
		return 1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s/fastmem-env-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	s = suite_create("environment");
	tc = tcase_create("env");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, no_settings_no_output);
	tcase_add_loop_test(tc, force_each_variant, 0, FM_OP_COUNT);
	tcase_add_test(tc, unknown_variant_warns_and_keeps_auto);
	tcase_add_loop_test(tc, unusable_variant_refused, 0, FM_OP_COUNT);
	tcase_add_test(tc, disable_features);
	tcase_add_test(tc, threshold_from_environment);
	tcase_add_test(tc, config_file);
	tcase_add_test(tc, default_config_paths);
	tcase_add_test(tc, threads_setting);
	suite_add_tcase(s, tc);
	rc = run_suite(s);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return rc;
}
