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
#include <grp.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h" /* the table of settings (lib/settings-table.c) */

static char self[PATH_MAX];
static char tmpdir[PATH_MAX];

/* --- the child ---------------------------------------------------------- */

static int child(void)
{
	static unsigned char a[300000], b[300000];

	for (int op = 0; op < FM_OP_COUNT; op++)
		printf("%s %s|%s|%zu|%s\n", fm_op_name(op), fm_selected(op),
		       fm_selected_reason(op), fm_nt_threshold(op),
		       fm_nt_threshold_source(op));
	printf("notes %s\n", fm_cpu_notes());
	struct fm_parallel_info pi;
	fm_parallel_info(&pi);
	printf("parallel cap=%u threads=%u cpus=%u source=%s\n", pi.cap,
	       pi.threads, pi.cpus, pi.cap_source);
	/* the rest of the introspection, twice: none of it may read the
	 * settings again with their warnings */
	for (int i = 0; i < 2; i++) {
		struct fm_settings_info si;
		struct fm_cache_info ci;
		const struct fm_variant *list;

		fm_settings_info(&si);
		if (!i)
			printf("settings secure=%d\n", si.secure);
		fm_cache_info(&ci);
		for (int op = 0; op < FM_OP_COUNT; op++)
			fm_variants(op, &list);
		(void)fm_cpu_features_detected();
	}
	/* last: a test reads the rest of the output as this line */
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

/* When set, run() executes this program instead, as user and group nobody
 * (the secure-mode test's set-user-ID copy of this program). */
static const char *run_as_nobody;

struct result {
	char out[8192];
	char err[8192];
	int status;
};

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
	/* the machine's own system config stays out (a test may set another:
	 * the last of two definitions wins) */
	env[n++] = "FASTMEM_SYSTEM_CONFIG=";
	va_start(ap, res);
	for (char *kv; (kv = va_arg(ap, char *)) && n < 30;)
		env[n++] = kv;
	va_end(ap);
	env[n] = NULL;
	for (char *tok = copy ? strtok(copy, " ") : NULL; tok && a < 12;
	     tok = strtok(NULL, " "))
		argv[a++] = tok;
	argv[a++] = run_as_nobody ? (char *)run_as_nobody : self;
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
		if (run_as_nobody &&
		    (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
			_exit(126);
		execvpe(argv[0], argv, env);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	harness_slurp(out[0], res->out, sizeof(res->out));
	harness_slurp(err[0], res->err, sizeof(res->err));
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

	snprintf(key, sizeof(key), "%s ", fm_op_name(op));
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

/* How often needle occurs in s. */
static int count_of(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
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
	    "altivec,dcbz,cell,ppc970,sve,dczva,power8",
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

	/* a relative HOME (or XDG_CONFIG_HOME) names no file: read from the
	 * working directory, it would be whatever lies there */
	char cwd[PATH_MAX];

	ck_assert(getcwd(cwd, sizeof(cwd)) != NULL);
	ck_assert_int_eq(chdir(tmpdir), 0);
	run(&r, "HOME=home", NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_ne(field(&r, FM_OP_COPY_PAGE, 2), "7168");
	run(&r, "XDG_CONFIG_HOME=xdg", NULL);
	ck_assert_str_ne(field(&r, FM_OP_COPY_PAGE, 2), "9216");
	ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

/* Files that are not regular, or hostile, as FASTMEM_CONFIG: each ends at
 * once (Check's timeout catches a hang) with a bounded, clear warning. */
static void assert_automatic(const struct result *r)
{
	for (int op = 0; op < FM_OP_COUNT; op++)
		ck_assert_str_eq(field(r, op, 1), "auto");
}

START_TEST(config_not_regular)
{
	struct result r;
	char fifo[PATH_MAX + 16], kv[PATH_MAX + 32];
	const char *paths[] = { "/dev/zero", "/dev/urandom", fifo, tmpdir };

	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	ck_assert(mkfifo(fifo, 0600) == 0 || errno == EEXIST);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", paths[i]);
		run(&r, kv, NULL);
		ck_assert_int_eq(count_lines(r.err), 1);
		ck_assert_msg(strstr(r.err, "is not a regular file; using no "
					    "config file"),
			      "%s: %s", paths[i], r.err);
		assert_automatic(&r);
	}
}
END_TEST

static void write_bytes(const char *path, const char *data, size_t n)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	fclose(f);
}

START_TEST(config_hostile_contents)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64];
	size_t big = 10u << 20;
	char *data = malloc(big);

	ck_assert_ptr_nonnull(data);
	snprintf(path, sizeof(path), "%s/hostile.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);

	/* 10 MiB of junk lines, with a valid line past 64 KiB that must not
	 * apply: a bounded number of warnings, then one line saying so */
	for (size_t i = 0; i < big; i++)
		data[i] = (i % 97 == 96) ? '\n' : (char)('a' + i % 23);
	snprintf(data + 100000, 32, "\nmemset = generic\n");
	write_bytes(path, data, big);
	run(&r, kv, NULL);
	ck_assert_ptr_nonnull(strstr(r.err, "larger than 64 KiB"));
	ck_assert_ptr_nonnull(
		strstr(r.err, "further warnings about this file suppressed"));
	ck_assert_int_le(count_lines(r.err), 2 + 5);
	assert_automatic(&r);

	/* NUL bytes, a very long line and a terminal escape; the good line
	 * after them still applies, and no raw control byte is printed */
	static const char nasty[] = "memcpy\0= generic\n"
				    "\033[31mred\\\x80 = 1\n";
	size_t n = 0;
	for (size_t i = 0; i < sizeof(nasty) - 1; i++)
		data[n++] = nasty[i];
	for (int i = 0; i < 5000; i++)
		data[n++] = 'x';
	for (const char *p = "\nmemset = generic\n"; *p;)
		data[n++] = *p++;
	write_bytes(path, data, n);
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 3);
	ck_assert_ptr_nonnull(strstr(r.err, ":1: line holds a NUL byte"));
	ck_assert_ptr_nonnull(strstr(r.err, ":2: unknown key"));
	ck_assert_ptr_nonnull(strstr(r.err, "\\x1b[31mred\\x5c\\x80"));
	ck_assert_ptr_nonnull(strstr(r.err, ":3: line too long"));
	ck_assert_ptr_null(strchr(r.err, '\033'));
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 0), "generic");
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 1), "auto");
	free(data);
}
END_TEST

/* The system config: read only if root owns it and only root may write it;
 * the per-user file and the environment outrank it. */
START_TEST(system_config)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64], want[PATH_MAX + 64];
	char user[PATH_MAX + 32], ukv[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/system.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_SYSTEM_CONFIG=%s", path);
	snprintf(want, sizeof(want), "config (%s)", path);
	write_file(path, "memset = generic\nnt_threshold = 5M\n");
	chmod(path, 0644);

	if (getuid() != 0) {
		/* a file of ours is not root's */
		run(&r, kv, NULL);
		ck_assert_int_eq(count_lines(r.err), 1);
		ck_assert_ptr_nonnull(strstr(r.err, "is not owned by root"));
		assert_automatic(&r);
		return;
	}
	run(&r, kv, NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 0), "generic");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 1), want);
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), "5242880");
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 3), want);

	/* per-user config > system config; environment > both */
	snprintf(user, sizeof(user), "%s/user.conf", tmpdir);
	write_file(user, "nt_threshold.memcpy = 6M\n");
	snprintf(ukv, sizeof(ukv), "FASTMEM_CONFIG=%s", user);
	run(&r, kv, ukv, NULL);
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), "6291456");
	ck_assert_str_eq(field(&r, FM_OP_MEMMOVE, 2), "5242880");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 0), "generic");
	run(&r, kv, ukv, "FASTMEM_NT_THRESHOLD=7M", "FASTMEM_MEMSET=generic",
	    NULL);
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), "7340032");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 1),
			 "environment (FASTMEM_MEMSET)");

	/* others may write it, or someone else owns it: ignored, said once */
	chmod(path, 0664);
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "writable by group or others"));
	assert_automatic(&r);
	chmod(path, 0644);
	ck_assert(chown(path, 65534, 65534) == 0);
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "is not owned by root"));
	assert_automatic(&r);
	ck_assert(chown(path, 0, 0) == 0);

	/* a symbolic link is not followed, even to a file root owns */
	char link[PATH_MAX + 32], lkv[PATH_MAX + 64];
	snprintf(link, sizeof(link), "%s/system-link.conf", tmpdir);
	ck_assert(symlink(path, link) == 0);
	snprintf(lkv, sizeof(lkv), "FASTMEM_SYSTEM_CONFIG=%s", link);
	run(&r, lkv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "or is a symbolic link"));
	assert_automatic(&r);

	/* nor is a file in a directory that others may change */
	char dir[PATH_MAX + 32], inner[PATH_MAX + 64], ikv[PATH_MAX + 96];
	snprintf(dir, sizeof(dir), "%s/open-dir", tmpdir);
	ck_assert(mkdir(dir, 0700) == 0 && chmod(dir, 0777) == 0);
	snprintf(inner, sizeof(inner), "%s/fastmem.conf", dir);
	write_file(inner, "memset = generic\n");
	chmod(inner, 0644);
	snprintf(ikv, sizeof(ikv), "FASTMEM_SYSTEM_CONFIG=%s", inner);
	run(&r, ikv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "in a directory that others"));
	assert_automatic(&r);
	chmod(dir, 0755);
	run(&r, ikv, NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 0), "generic");
}
END_TEST

/* The 64 KiB limit: a file of exactly 64 KiB is read whole, its last line
 * included; one byte more and that line is cut, so it does not count. */
START_TEST(config_size_limit)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64];
	static char data[64 * 1024 + 1];
	const char *last = "memset = generic";
	size_t n = 64 * 1024, ll = strlen(last);

	snprintf(path, sizeof(path), "%s/exact.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	memset(data, '#', sizeof(data));
	for (size_t i = 80; i < n; i += 80)
		data[i] = '\n';
	data[n - ll - 1] = '\n';
	memcpy(data + n - ll, last, ll);
	write_bytes(path, data, n);
	run(&r, kv, NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 0), "generic");

	data[n - ll - 1] = '#'; /* the line now starts one byte earlier... */
	data[n - ll - 2] = '\n';
	memcpy(data + n - ll - 1, last, ll);
	data[n - 1] = 'c'; /* ...and runs one byte past the limit */
	data[n] = '\n';
	write_bytes(path, data, n + 1);
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "larger than 64 KiB"));
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 1), "auto");
}
END_TEST

/* A file not everyone may read is never quoted (root reading a user's
 * config that links to /etc/shadow); a path too long to hold is refused. */
START_TEST(config_private_and_long)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64], lkv[600];

	snprintf(path, sizeof(path), "%s/private.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	write_file(path, "secret-token-4711\n");
	chmod(path, 0600);
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "not world-readable"));
	ck_assert_ptr_null(strstr(r.err, "4711"));
	chmod(path, 0644);
	run(&r, kv, NULL);
	ck_assert_ptr_nonnull(strstr(r.err, "secret-token-4711"));

	snprintf(lkv, sizeof(lkv), "FASTMEM_CONFIG=/%0300d", 0);
	run(&r, lkv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "FASTMEM_CONFIG is longer than"));
	assert_automatic(&r);
}
END_TEST

#if (defined(__x86_64__) || defined(__i386__)) && !defined(FM_GENERIC_ONLY)
/* FASTMEM_PROBE, FASTMEM_STREAM_COLD and their config keys, good and bad:
 * fastmem-info's notes (fm_cpu_notes) say what is in force. */
START_TEST(probe_settings)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64];

	run(&r, "FASTMEM_PROBE=off", NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_ptr_nonnull(strstr(r.out, "probe: off (FASTMEM_PROBE=off)"));
	run(&r, "FASTMEM_PROBE=sometimes", NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(
		strstr(r.err, "FASTMEM_PROBE=\"sometimes\" is not on or off"));
	ck_assert_ptr_null(strstr(r.out, "probe: off"));
	run(&r, "FASTMEM_STREAM_COLD=lots", NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(
		strstr(r.err, "FASTMEM_STREAM_COLD=\"lots\" is not a size"));

	/* with the probe usable, a cold crossover shows in the notes; a
	 * threshold set alone makes a size policy */
	if (strstr(r.out, "probe: on")) {
		run(&r, "FASTMEM_STREAM_COLD=3M", NULL);
		ck_assert_ptr_nonnull(strstr(
			r.out, "memset streams data found cold from 3 MiB"));
		run(&r, "FASTMEM_NT_THRESHOLD=64M", NULL);
		ck_assert_ptr_nonnull(strstr(
			r.out, "below its threshold memset never streams"));
	}

	snprintf(path, sizeof(path), "%s/probe.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	write_file(path, "probe = off\nprobe = maybe\nstream_cold = soon\n"
			 "stream_cold.memset = 5M\n");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 2);
	ck_assert_ptr_nonnull(strstr(r.err, ":2: not on or off: maybe"));
	ck_assert_ptr_nonnull(strstr(r.err, ":3: not a size"));
	ck_assert_ptr_nonnull(
		strstr(r.out, "probe: off (config: probe = off)"));
	/* the environment outranks the file */
	run(&r, kv, "FASTMEM_PROBE=on", NULL);
	ck_assert_ptr_null(strstr(r.out, "probe: off"));

	/* a threshold with a cold crossover but the probe off: the threshold
	 * alone decides */
	run(&r, "FASTMEM_NT_THRESHOLD=64M", "FASTMEM_STREAM_COLD=1M",
	    "FASTMEM_PROBE=off", NULL);
	ck_assert_ptr_nonnull(
		strstr(r.out, "below its threshold memset never streams"));
}
END_TEST

/* rep_from[.memcpy|.memset]: where rep movsb / rep stosb take over, good
 * and bad; the notes say what is in force (with ERMS: else there is no rep
 * path to move) */
START_TEST(rep_from_settings)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/rep.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	write_file(path, "rep_from.memcpy = 4K\nrep_from.memset = 2M\n"
			 "rep_from.memmove = 1K\nrep_from = soon\n");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 2);
	ck_assert_ptr_nonnull(strstr(r.err, ":3: unknown key"));
	ck_assert_ptr_nonnull(strstr(r.err, ":4: not a size"));
	if (!strstr(r.out, "rep movsb"))
		return; /* no ERMS here */
	ck_assert_ptr_nonnull(
		strstr(r.out, "copies rep movsb from 4 KiB (config)"));
	ck_assert_ptr_nonnull(
		strstr(r.out, "sets rep stosb from 2 MiB (config)"));
	/* both at once; never turns rep stosb off altogether */
	write_file(path, "rep_from = 1M\nrep_from.memset = never\n");
	run(&r, kv, NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_ptr_nonnull(
		strstr(r.out, "copies rep movsb from 1 MiB (config)"));
	ck_assert_ptr_nonnull(strstr(r.out, "sets vector loop only"));
	/* without the file, the class's crossovers */
	run(&r, NULL);
	ck_assert_ptr_null(strstr(r.out, "(config)"));
}
END_TEST
#endif
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

/* Keywords and units in any case, and sizes up to the largest size_t
 * (#25). */
START_TEST(spellings_any_case)
{
	static const struct {
		const char *value;
		size_t bytes;
	} sizes[] = {
		{ "NEVER", SIZE_MAX }, { "Never", SIZE_MAX }, { "4kIB", 4096 },
		{ "4Mib", 4u << 20 },  { "1gB", 1u << 30 },   { "8KB", 8192 },
		{ "100b", 100 },       { " 2 m ", 0 },
	};
	struct result r;
	char kv[96], want[32], path[PATH_MAX + 32], ckv[PATH_MAX + 64];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(kv, sizeof(kv), "FASTMEM_NT_THRESHOLD=%s",
			 sizes[i].value);
		run(&r, kv, NULL);
		if (!sizes[i].bytes) { /* a blank inside: not a size */
			ck_assert_ptr_nonnull(strstr(r.err, "is not a size"));
			continue;
		}
		ck_assert_msg(!strcmp(r.err, ""), "%s: %s", kv, r.err);
		snprintf(want, sizeof(want), "%zu", sizes[i].bytes);
		ck_assert_str_eq(field(&r, FM_OP_MEMSET, 2), want);
	}

	/* the largest size_t is a size; one more is not */
	snprintf(want, sizeof(want), "%zu", (size_t)SIZE_MAX);
	snprintf(kv, sizeof(kv), "FASTMEM_STREAM_COLD=%s", want);
	run(&r, kv, NULL);
	ck_assert_str_eq(r.err, "");
	snprintf(kv, sizeof(kv), "FASTMEM_NT_THRESHOLD=%s", want);
	run(&r, kv, NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), want);
	snprintf(kv, sizeof(kv), "FASTMEM_NT_THRESHOLD=%s",
		 sizeof(size_t) == 8 ? "18446744073709551616" : "4294967296");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(r.err, "is not a size"));

	/* on and off, feature names */
	static const char *const quiet[] = { "FASTMEM_PROBE=OFF",
					     "FASTMEM_PROBE=On",
					     "FASTMEM_PROBE= oN ",
					     "FASTMEM_DISABLE=AVX2,Erms" };
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		run(&r, quiet[i], NULL);
		ck_assert_msg(!strcmp(r.err, ""), "%s: %s", quiet[i], r.err);
	}
	ck_assert_ptr_null(strstr(strstr(r.out, "usable "), "avx2"));
	ck_assert_ptr_null(strstr(strstr(r.out, "usable "), "erms"));
#if (defined(__x86_64__) || defined(__i386__)) && !defined(FM_GENERIC_ONLY)
	run(&r, "FASTMEM_PROBE=OFF", NULL);
	ck_assert_ptr_nonnull(strstr(r.out, "probe: off (FASTMEM_PROBE=off)"));
#endif

	/* the same in a config file */
	snprintf(path, sizeof(path), "%s/case.conf", tmpdir);
	snprintf(ckv, sizeof(ckv), "FASTMEM_CONFIG=%s", path);
	write_file(path, "probe = OFF\nnt_threshold = 4kIB\n"
			 "nt_threshold.memset = NEVER\nthreads = 2\n");
	run(&r, ckv, NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), "4096");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 2), want);
}
END_TEST

/* A file not everyone may read: no byte of it in any warning, the value of
 * a variant key included; each warning still has its line number. */
START_TEST(private_variant_value)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/private-variant.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	write_file(path, "# secret-comment-0815\n"
			 "memcpy = secret-variant-4711\n"
			 "nt_threshold = secret-size-4712\n"
			 "secret-key-4713 = 1\n");
	chmod(path, 0600);
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 3);
	ck_assert_ptr_null(strstr(r.err, "secret"));
	ck_assert_ptr_null(strstr(r.err, "did you mean"));
	ck_assert_ptr_nonnull(strstr(r.err, ":2: memcpy = [not shown"));
	ck_assert_ptr_nonnull(strstr(r.err, ":3: not a size"));
	ck_assert_ptr_nonnull(strstr(r.err, ":4: unknown key"));
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 1), "auto");
	/* world-readable, the same file is quoted */
	chmod(path, 0644);
	run(&r, kv, NULL);
	ck_assert_ptr_nonnull(
		strstr(r.err, ":2: memcpy = secret-variant-4711 is not a "
			      "variant of this operation"));
	ck_assert_ptr_null(strstr(r.err, "0815"));
}
END_TEST

/* FASTMEM_* variables the library does not know: one line each, once per
 * process, naming the setting meant when the name is near one (#24). */
START_TEST(misspelt_variables)
{
	static const struct {
		const char *kv, *says;
	} cases[] = {
		{ "FASTMEM_MEMCOPY=avx2",
		  "FASTMEM_MEMCOPY is not a libfastmem setting; ignored (did "
		  "you mean FASTMEM_MEMCPY?)" },
		{ "FASTMEM_NT_THRESOLD=4M",
		  "FASTMEM_NT_THRESOLD is not a libfastmem setting; ignored "
		  "(did you mean FASTMEM_NT_THRESHOLD?)" },
		{ "FASTMEM_memcpy=avx2",
		  "FASTMEM_memcpy is not a libfastmem setting; ignored (did "
		  "you mean FASTMEM_MEMCPY? Names are case-sensitive)" },
		{ "FASTMEM_SYS_CONFIG=/etc/f.conf",
		  "FASTMEM_SYS_CONFIG is not a libfastmem setting; ignored "
		  "(did you mean FASTMEM_SYSTEM_CONFIG?)" },
		{ "FASTMEM_NT_THRESHOLD_MEMSET=1M",
		  "FASTMEM_NT_THRESHOLD_MEMSET is not a libfastmem setting; "
		  "ignored (did you mean FASTMEM_NT_THRESHOLD?)" },
	};
	struct result r, plain;
	char want[512];

	run(&plain, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run(&r, cases[i].kv, NULL);
		snprintf(want, sizeof(want), "fastmem: %s", cases[i].says);
		ck_assert_msg(count_lines(r.err) == 1 &&
				      !strncmp(r.err, want, strlen(want)),
			      "%s: %s", cases[i].kv, r.err);
		for (int op = 0; op < FM_OP_COUNT; op++) {
			ck_assert_str_eq(field(&r, op, 1), "auto");
			snprintf(want, sizeof(want), "%s",
				 field(&plain, op, 2));
			ck_assert_str_eq(field(&r, op, 2), want);
		}
	}
	/* names far from every setting warn too, without a guess: one line
	 * each, once (the child resolves every operation, calls every
	 * introspection function twice and fm_settings_info()) */
	run(&r, "FASTMEM_WHATEVER=1", NULL);
	ck_assert_str_eq(r.err, "fastmem: FASTMEM_WHATEVER is not a libfastmem "
				"setting; ignored\n");
	/* the test suite's old names are FMTEST_* now: these are nobody's */
	run(&r, "FASTMEM_PRELOAD=/lib/x.so", "FASTMEM_TEST_QUICK=1",
	    "FMTEST_QUICK=1", NULL);
	ck_assert_int_eq(count_lines(r.err), 2);
	ck_assert_int_eq(count_of(r.err, "FASTMEM_PRELOAD is not"), 1);
	ck_assert_int_eq(count_of(r.err, "FASTMEM_TEST_QUICK is not"), 1);
	ck_assert_ptr_null(strstr(r.err, "did you mean"));
	ck_assert_ptr_null(strstr(r.err, "FMTEST"));
	/* a name longer than the line keeps for it is cut, visibly */
	run(&r,
	    "FASTMEM_A_NAME_LONGER_THAN_SIXTY_THREE_BYTES_IS_SHOWN_CUT_SHORT_"
	    "HERE=1",
	    NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(
		strstr(r.err, "_CUT_SHORT... is not a libfastmem"));
	/* two of them: two lines; known ones say nothing */
	run(&r, "FASTMEM_MEMCOPY=avx2", "FASTMEM_TRHEADS=2",
	    "FASTMEM_THREADS=2", "FASTMEM_NT_THRESHOLD=1M", NULL);
	ck_assert_int_eq(count_lines(r.err), 2);
	ck_assert_ptr_nonnull(strstr(r.err, "mean FASTMEM_THREADS?"));
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), "1048576");
}
END_TEST

/*
 * In secure-execution mode the environment is not read: an unknown name
 * says nothing.  A set-user-ID-root copy of this program run as nobody (as
 * test/secure.sh does with fastmem-info); root only, natively only.
 */
START_TEST(secure_mode_unknown_silent)
{
	char dir[PATH_MAX + 8], copy[PATH_MAX + 32], cmd[3 * PATH_MAX];
	struct result r;
	const char *runner = getenv("TEST_RUNNER");
	struct statvfs fs;

	if (geteuid() != 0 || (runner && *runner)) {
		printf("secure_mode_unknown_silent: skipped (%s)\n",
		       geteuid() ? "needs root" : "under an emulator");
		return;
	}
	/* there the copy would run unprivileged, as nobody, who may not be
	 * able to read the build's libraries */
	if (statvfs(tmpdir, &fs) == 0 && (fs.f_flag & ST_NOSUID)) {
		printf("secure_mode_unknown_silent: skipped (%s is nosuid)\n",
		       tmpdir);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/suid", tmpdir);
	snprintf(copy, sizeof(copy), "%s/check_env", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s'", dir, self,
		 copy);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert(chmod(tmpdir, 0711) == 0 && chmod(dir, 0711) == 0 &&
		  chown(copy, 0, 0) == 0 && chmod(copy, 04755) == 0);
	run_as_nobody = copy;
	run(&r, "FASTMEM_WHATEVER=1", "FASTMEM_MEMCOPY=generic", NULL);
	run_as_nobody = NULL;
	if (!strstr(r.out, "settings secure=1")) {
		/* a nosuid mount: the copy ran as nobody, unprivileged */
		printf("secure_mode_unknown_silent: skipped (set-user-ID "
		       "ignored here)\n");
		return;
	}
	ck_assert_str_eq(r.err, "");
	/* control: the same program and environment, not privileged */
	run(&r, "FASTMEM_WHATEVER=1", "FASTMEM_MEMCOPY=generic", NULL);
	ck_assert_ptr_nonnull(strstr(r.out, "settings secure=0"));
	ck_assert_int_eq(count_lines(r.err), 2);
}
END_TEST

/*
 * The environment scan skips the entries no setting can start (PATH, LANG,
 * ...) without copying them: the entries it reads must still be read
 * wherever the 256-byte reads cut them, and names that start like one it
 * reads but are not (FASTMEMX, HOMES, XDG_CONFIG_HOMEY) must not be.
 */
START_TEST(environment_entries_skipped)
{
	char dir[PATH_MAX], file[PATH_MAX + 32], home[PATH_MAX + 32];
	char xdg[PATH_MAX + 32], filler[400];

	snprintf(dir, sizeof(dir), "%s/skip-xdg", tmpdir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/skip-xdg/fastmem", tmpdir);
	mkdir(dir, 0700);
	snprintf(file, sizeof(file), "%s/fastmem.conf", dir);
	write_file(file, "memmove = generic\n");
	snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s/skip-xdg", tmpdir);
	snprintf(home, sizeof(home), "HOME=%s/skip-home", tmpdir);
	for (int shift = 0; shift < 16; shift++) {
		struct result r;
		size_t len = 240 + (size_t)shift;

		/* an entry long enough to move the next ones across a read */
		memset(filler, 'f', len);
		memcpy(filler, "LONG_UNRELATED=", 15);
		filler[len] = 0;
		run(&r, filler, "FASTMEMX=1", "FASTMEM_NT_THRESHOLD=3M", filler,
		    "HOMES=/nonexistent", "FASTMEM_MEMCOPY=avx2", filler, xdg,
		    "XDG_CONFIG_HOMEY=/nonexistent", home, filler, NULL);
		ck_assert_msg(count_lines(r.err) == 1 &&
				      strstr(r.err, "FASTMEM_MEMCOPY is not"),
			      "shift %d: %s", shift, r.err);
		ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), "3145728");
		ck_assert_str_eq(field(&r, FM_OP_MEMMOVE, 0), "generic");
		ck_assert_ptr_nonnull(strstr(field(&r, FM_OP_MEMMOVE, 1), dir));
	}
}
END_TEST

/* Trailing comments in config lines, and a value cut short nowhere (#24). */
START_TEST(config_comments)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64], line[600];
	char data[1200];

	snprintf(path, sizeof(path), "%s/comments.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	/* a comment long enough to overflow the line: what matters is read */
	memset(line, 'c', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	snprintf(data, sizeof(data),
		 "memmove = generic  # comment\n"
		 "nt_threshold = 3M # three\n"
		 "  # indented\n"
		 "memset=generic#tight\n"
		 "nt_threshold.copy_page = 5K # %s\n",
		 line);
	write_file(path, data);
	run(&r, kv, NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(field(&r, FM_OP_MEMMOVE, 0), "generic");
	ck_assert_str_eq(field(&r, FM_OP_MEMSET, 0), "generic");
	ck_assert_str_eq(field(&r, FM_OP_MEMCPY, 2), "3145728");
	ck_assert_str_eq(field(&r, FM_OP_COPY_PAGE, 2), "5120");

	/* a variant value longer than any name is quoted whole */
	write_file(path, "# long\nmemcpy = generic_but_much_longer_than_any_"
			 "variant_name   # why\n");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 1);
	ck_assert_ptr_nonnull(strstr(
		r.err, ":2: not a variant name (too long): "
		       "generic_but_much_longer_than_any_variant_name\n"));
	run(&r, "FASTMEM_MEMMOVE=generic_but_much_longer_than_any_name", NULL);
	ck_assert_ptr_nonnull(
		strstr(r.err, "FASTMEM_MEMMOVE=\"generic_but_much_longer_than_"
			      "any_name\" is not a variant name (too long)"));
}
END_TEST

/* Every warning about a file counts towards its limit and names its line,
 * the registry's warnings about variant names too (#24). */
START_TEST(config_warning_limit)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64];
	const char *cut;

	snprintf(path, sizeof(path), "%s/limit.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	write_file(path, "frob = 1\nmemset = nope\nmemcpy = nope-either\n");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 3);
	ck_assert_ptr_nonnull(strstr(r.err, ":1: unknown key"));
	ck_assert_ptr_nonnull(strstr(r.err, ":2: memset = nope is not a "
					    "variant of this operation"));
	ck_assert_ptr_nonnull(strstr(r.err, ":3: memcpy = nope-either is not"));

	/* five bad lines, then bad variant names: nothing after the line
	 * that says the rest are suppressed */
	write_file(path, "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
			 "memcpy = nope\nmemset = nope\n");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 6);
	cut = strstr(r.err, "further warnings about this file suppressed\n");
	ck_assert_ptr_nonnull(cut);
	ck_assert_str_eq(strchr(cut, '\n'), "\n");
	ck_assert_ptr_null(strstr(r.err, "nope"));
	/* four: the first variant warning is the fifth, the second is cut */
	write_file(path, "a = 1\nb = 2\nc = 3\nd = 4\n"
			 "memcpy = nope\nmemset = nope\n");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 6);
	ck_assert_int_eq(!!strstr(r.err, ":5: memcpy = nope") +
				 !!strstr(r.err, ":6: memset = nope"),
			 1);
	ck_assert_ptr_nonnull(strstr(r.err, "suppressed\n"));
	/* the environment's own warnings are not the file's */
	run(&r, kv, "FASTMEM_MEMMOVE=nope", NULL);
	ck_assert_int_eq(count_lines(r.err), 7);
	ck_assert_ptr_nonnull(strstr(r.err, "FASTMEM_MEMMOVE=\"nope\""));
}
END_TEST

/* --- the manual names every setting, and only settings (#23) ------------ */

#define MANUAL_MAX (256 * 1024)

/* fastmem(3): under $top_srcdir (make check sets it), or beside the build
 * directory. */
static char *read_manual(void)
{
	const char *top = getenv("top_srcdir");
	char path[PATH_MAX + 32];
	char *text = calloc(1, MANUAL_MAX);
	FILE *f;
	size_t n;

	ck_assert_ptr_nonnull(text);
	snprintf(path, sizeof(path), "%s/man/fastmem.3",
		 top && *top ? top : "..");
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s (set top_srcdir)", path);
	n = fread(text, 1, MANUAL_MAX - 1, f);
	fclose(f);
	ck_assert_uint_lt(n, MANUAL_MAX - 1);
	return text;
}

/* The names in a .TP tag line: ".BR nt_threshold \", \"
 * nt_threshold.\fIop\fR" gives nt_threshold and nt_threshold.op. */
static int tag_names(const char *line, char names[][48], int max)
{
	int n = 0;
	size_t len = 0;

	line += strcspn(line, " \n"); /* the macro */
	for (const char *p = line;; p++) {
		if (*p == '\\' && p[1] == 'f' && p[2]) {
			p += 2; /* a font change */
			continue;
		}
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '.') {
			if (len + 1 < sizeof(names[0]))
				names[n][len++] = *p;
			continue;
		}
		if (len && n < max) {
			names[n++][len] = 0;
			len = 0;
		}
		if (!*p || *p == '\n')
			return n;
	}
}

struct manual_seen {
	int env[64], key[64], any_op[64], op[64][FM_OP_COUNT];
};

static int op_by_name(const char *name)
{
	for (int op = 0; op < FM_OP_COUNT; op++)
		if (!strcmp(name, fm_op_name(op)))
			return op;
	return -1;
}

/* A config key fastmem(3) names: the parser must accept it. */
static void manual_key(struct manual_seen *seen, const char *name)
{
	char base[48];
	const char *dot = strchr(name, '.');
	int i, op;

	snprintf(base, sizeof(base), "%.*s",
		 (int)(dot ? (size_t)(dot - name) : strlen(name)), name);
	i = fm_setting_by_key(base, strlen(base));
	ck_assert_msg(i >= 0,
		      "fastmem(3) names the config key %s, which the "
		      "parser does not accept",
		      name);
	if (!dot) {
		seen->key[i] = 1;
		return;
	}
	const struct fm_setting_def *d = fm_setting_at((size_t)i);
	ck_assert_msg(d->ops & (d->ops - 1),
		      "fastmem(3) names %s, but %s has no per-operation keys",
		      name, base);
	if (!strcmp(dot + 1, "op")) {
		ck_assert_msg(d->ops == (1u << FM_OP_COUNT) - 1,
			      "fastmem(3) names %s, but %s is not for every "
			      "operation",
			      name, base);
		seen->any_op[i] = 1;
		return;
	}
	op = op_by_name(dot + 1);
	ck_assert_msg(op >= 0 && (d->ops & (1u << op)),
		      "fastmem(3) names %s, which the parser does not accept",
		      name);
	seen->op[i][op] = 1;
}

START_TEST(manual_names_every_setting)
{
	static struct manual_seen seen;
	char *text = read_manual(), names[16][48];
	char section[64] = "";
	size_t count = fm_setting_count();

	ck_assert_uint_le(count, 64);
	for (char *line = text; line && *line;) {
		char *next = strchr(line, '\n');
		int tag = !strncmp(line, ".TP\n", 4), n;

		if (!strncmp(line, ".SH ", 4))
			snprintf(section, sizeof(section), "%.*s",
				 (int)strcspn(line + 4, "\n"), line + 4);
		line = next ? next + 1 : NULL;
		if (!tag || !line)
			continue;
		n = tag_names(line, names, 16);
		for (int k = 0; k < n; k++) {
			if (!strcmp(section, "ENVIRONMENT")) {
				int i = fm_setting_by_env(names[k],
							  strlen(names[k]));
				ck_assert_msg(i >= 0,
					      "fastmem(3) names %s, which the "
					      "library does not accept",
					      names[k]);
				seen.env[i] = 1;
			} else if (!strcmp(section, "CONFIG FILES")) {
				manual_key(&seen, names[k]);
			}
		}
	}
	for (size_t i = 0; i < count; i++) {
		const struct fm_setting_def *d = fm_setting_at(i);

		ck_assert_msg(!d->env[0] || seen.env[i],
			      "%s is not in fastmem(3)'s ENVIRONMENT", d->env);
		ck_assert_msg(!d->key[0] || seen.key[i],
			      "config key %s is not in fastmem(3)'s CONFIG "
			      "FILES",
			      d->key);
		if (!(d->ops & (d->ops - 1)) || seen.any_op[i])
			continue;
		for (int op = 0; op < FM_OP_COUNT; op++)
			ck_assert_msg(!(d->ops & (1u << op)) || seen.op[i][op],
				      "config key %s.%s is not in fastmem(3)",
				      d->key, fm_op_name(op));
	}
	free(text);
}
END_TEST

/* The parser itself (not just its table) takes every key of the table,
 * each per-operation form included. */
START_TEST(parser_accepts_every_key)
{
	struct result r;
	char path[PATH_MAX + 32], kv[PATH_MAX + 64], line[96];

	snprintf(path, sizeof(path), "%s/keys.conf", tmpdir);
	snprintf(kv, sizeof(kv), "FASTMEM_CONFIG=%s", path);
	for (size_t i = 0; i < fm_setting_count(); i++) {
		const struct fm_setting_def *d = fm_setting_at(i);

		for (int op = -1; op < FM_OP_COUNT && d->key[0]; op++) {
			if (op >= 0 && (!(d->ops & (d->ops - 1)) ||
					!(d->ops & (1u << op))))
				continue;
			snprintf(line, sizeof(line), "%s%s%s = 0x\n", d->key,
				 op < 0 ? "" : ".",
				 op < 0 ? "" : fm_op_name(op));
			write_file(path, line);
			run(&r, kv, NULL);
			ck_assert_msg(!strstr(r.err, "unknown key"), "%s: %s",
				      line, r.err);
		}
	}
	write_file(path, "nt_threshold.memcopy = 1M\nrep_from.copy_page = 1\n"
			 "memcpy.memcpy = generic\nthreads.memset = 2\n");
	run(&r, kv, NULL);
	ck_assert_int_eq(count_lines(r.err), 4);
	ck_assert_ptr_nonnull(strstr(r.err, ":4: unknown key"));
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s;
	TCase *tc;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child();
	if (harness_start(argv[0], self, tmpdir, "fastmem-env"))
		return 1;
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
	tcase_add_test(tc, config_not_regular);
	tcase_add_test(tc, config_hostile_contents);
	tcase_add_test(tc, system_config);
	tcase_add_test(tc, config_size_limit);
	tcase_add_test(tc, config_private_and_long);
#if (defined(__x86_64__) || defined(__i386__)) && !defined(FM_GENERIC_ONLY)
	tcase_add_test(tc, probe_settings);
	tcase_add_test(tc, rep_from_settings);
#endif
	tcase_add_test(tc, threads_setting);
	tcase_add_test(tc, spellings_any_case);
	tcase_add_test(tc, private_variant_value);
	tcase_add_test(tc, misspelt_variables);
	tcase_add_test(tc, secure_mode_unknown_silent);
	tcase_add_test(tc, environment_entries_skipped);
	tcase_add_test(tc, config_comments);
	tcase_add_test(tc, config_warning_limit);
	tcase_add_test(tc, manual_names_every_setting);
	tcase_add_test(tc, parser_accepts_every_key);
	suite_add_tcase(s, tc);
	rc = run_suite(s);
	harness_remove(tmpdir);
	return rc;
}
