/* SPDX-License-Identifier: MIT */
/*
 * fastmem-info --pid PID: is libfastmem in that process, and with which
 * settings?  Read from /proc without attaching: the mappings (is the
 * preload or the library loaded), the initial environment (its LD_PRELOAD
 * and FASTMEM_* variables) and the auxiliary vector (secure-execution
 * mode).  Which variants its resolvers chose lives in its memory only; it
 * is said when it can be inferred (the same library file, CPU and settings
 * as this fastmem-info) and what cannot be known otherwise.
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fastmem/fastmem.h"
#include "info.h"
#include "out.h"

#define PRELOAD_NAME "libfastmem-preload.so"
#define LIB_NAME "libfastmem.so"
#define MAX_VARS 64

struct mapped {
	int found;
	char path[1024];
	unsigned long long inode;
	unsigned dev_major, dev_minor;
};

struct target {
	long pid;
	char comm[64];
	int maps_errno, environ_errno, auxv_errno; /* 0: read */
	struct mapped preload, lib;
	int in_ld_preload;    /* its LD_PRELOAD names the preload */
	char *vars[MAX_VARS]; /* its FASTMEM_* variables, NAME=VALUE */
	int nvars;
	char *home, *xdg; /* its HOME and XDG_CONFIG_HOME, or NULL */
	int secure;	  /* AT_SECURE: -1 unknown */
};

/* Does the path's last component start with name? */
static int base_is(const char *path, const char *name)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, name, strlen(name));
}

static void read_maps(struct target *t)
{
	char path[64], line[1400];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/maps", t->pid);
	f = fopen(path, "r");
	if (!f) {
		t->maps_errno = errno;
		return;
	}
	/* "addr perms offset MAJ:MIN inode path" */
	while (fgets(line, sizeof(line), f)) {
		struct mapped m = { 0 };
		int at = 0;

		if (sscanf(line, "%*s %*s %*s %x:%x %llu %n", &m.dev_major,
			   &m.dev_minor, &m.inode, &at) < 3 ||
		    !at || line[at] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(m.path, sizeof(m.path), "%s", line + at);
		m.found = 1;
		if (base_is(m.path, PRELOAD_NAME) && !t->preload.found)
			t->preload = m;
		else if (base_is(m.path, LIB_NAME) && !t->lib.found)
			t->lib = m;
	}
	/* a read error after opening (EACCES on some kernels) */
	if (ferror(f))
		t->maps_errno = errno ? errno : EIO;
	fclose(f);
}

/* The whole of a /proc file (NUL-separated fields), or NULL with errno. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 8192, n = 0, k;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			char *b = realloc(buf, 2 * cap + 1);

			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
	}
	if (buf && ferror(f)) {
		int e = errno ? errno : EIO;

		free(buf);
		buf = NULL;
		errno = e;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

static void read_environ(struct target *t)
{
	char path[64];
	size_t len;
	char *env;

	snprintf(path, sizeof(path), "/proc/%ld/environ", t->pid);
	env = slurp(path, &len);
	if (!env) {
		t->environ_errno = errno ? errno : EIO;
		return;
	}
	for (char *e = env; e < env + len; e += strlen(e) + 1) {
		if (!strncmp(e, "FASTMEM_", 8) && t->nvars < MAX_VARS)
			t->vars[t->nvars++] = e;
		else if (!strncmp(e, "HOME=", 5))
			t->home = e + 5;
		else if (!strncmp(e, "XDG_CONFIG_HOME=", 16))
			t->xdg = e + 16;
		else if (!strncmp(e, "LD_PRELOAD=", 11))
			t->in_ld_preload = strstr(e, PRELOAD_NAME) != NULL;
	}
	/* the strings point into env, kept for the life of the tool */
}

static void read_auxv(struct target *t)
{
	char path[64];
	size_t len;
	unsigned long *v;

	t->secure = -1;
	snprintf(path, sizeof(path), "/proc/%ld/auxv", t->pid);
	v = (unsigned long *)slurp(path, &len);
	if (!v) {
		t->auxv_errno = errno ? errno : EIO;
		return;
	}
	for (size_t i = 0; i + 1 < len / sizeof(*v); i += 2)
		if (v[i] == AT_SECURE)
			t->secure = v[i + 1] != 0;
	free(v);
}

/* Is m the file this fastmem-info runs libfastmem from? */
static int same_library(const struct mapped *m)
{
	Dl_info info;
	struct stat st;

	if (!m->found || !dladdr((void *)fm_version, &info) ||
	    !info.dli_fname || stat(info.dli_fname, &st))
		return 0;
	return st.st_ino == m->inode && major(st.st_dev) == m->dev_major &&
	       minor(st.st_dev) == m->dev_minor;
}

static int same_var(const char *name, const char *theirs)
{
	const char *ours = getenv(name);

	return theirs ? ours && !strcmp(ours, theirs) : !ours;
}

/* The same FASTMEM_* variables, HOME and XDG_CONFIG_HOME as ours? */
static int same_settings(const struct target *t)
{
	extern char **environ;
	int ours = 0;

	for (char **e = environ; *e; e++)
		ours += !strncmp(*e, "FASTMEM_", 8);
	if (ours != t->nvars)
		return 0;
	for (int i = 0; i < t->nvars; i++) {
		char name[128];
		size_t n = strcspn(t->vars[i], "=");

		snprintf(name, sizeof(name), "%.*s", (int)n, t->vars[i]);
		if (!same_var(name, t->vars[i] + n + 1))
			return 0;
	}
	return same_var("HOME", t->home) && same_var("XDG_CONFIG_HOME", t->xdg);
}

static const char *errtext(int e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", strerror(e),
		 e == EACCES || e == EPERM
			 ? " (another user's process, or a privileged one: "
			   "run as its user or as root)"
			 : "");
	return buf;
}

/* The variants it resolved: inferred, or why not. */
static const char *variants_text(const struct target *t, char *buf, size_t len)
{
	size_t k = 0;

	if (!t->lib.found)
		return "none: libfastmem is not mapped";
	if (same_library(&t->lib) && !t->environ_errno && same_settings(t) &&
	    t->secure == 0) {
		k += (size_t)snprintf(buf, len, "inferred: ");
		for (int op = 0; op < FM_OP_COUNT && k < len; op++)
			k += (size_t)snprintf(buf + k, len - k, "%s%s %s",
					      op ? ", " : "", fm_op_name(op),
					      fm_selected(op));
		if (k < len)
			snprintf(buf + k, len - k,
				 " (the same library file, CPU, FASTMEM_* "
				 "variables and config paths as this "
				 "fastmem-info, not in secure mode; a config "
				 "file changed since it started could "
				 "differ)");
		return buf;
	}
	snprintf(buf, len,
		 "unknown: they live in its memory, which fastmem-info does "
		 "not read (that needs ptrace); %s",
		 !same_library(&t->lib)
			 ? "it maps another libfastmem file than this "
			   "fastmem-info"
		 : t->secure != 0 ? "its secure-execution mode is not known"
				  : "its FASTMEM_* variables or config paths "
				    "differ from this fastmem-info's: run "
				    "fastmem-info with them to see the "
				    "choice");
	return buf;
}

static const char *preload_text(const struct target *t)
{
	if (!t->preload.found)
		return "no: libfastmem-preload.so is not mapped";
	if (t->in_ld_preload)
		return "yes: mapped and named in its LD_PRELOAD";
	return "mapped, but not named in its initial LD_PRELOAD "
	       "(/etc/ld.so.preload, dlopen or a changed environment): "
	       "whether its memcpy is libfastmem's cannot be told from "
	       "outside";
}

static void print_pid_text(const struct target *t)
{
	char e[256], v[1024], p[1100];

	printf("process     %ld (%s)\n", t->pid, t->comm);
	if (t->maps_errno) {
		printf("mappings    cannot read /proc/%ld/maps: %s\n", t->pid,
		       errtext(t->maps_errno, e, sizeof(e)));
	} else {
		printf("preload     %s%s%s\n", preload_text(t),
		       t->preload.found ? "\n            " : "",
		       t->preload.found
			       ? printable(t->preload.path, p, sizeof(p))
			       : "");
		printf("library     %s%s\n",
		       t->lib.found ? "mapped: " : "not mapped",
		       t->lib.found ? printable(t->lib.path, p, sizeof(p))
				    : "");
		printf("variants    %s\n", variants_text(t, v, sizeof(v)));
	}
	if (t->environ_errno)
		printf("settings    cannot read /proc/%ld/environ: %s\n",
		       t->pid, errtext(t->environ_errno, e, sizeof(e)));
	else if (!t->nvars)
		printf("settings    no FASTMEM_* variable in its initial "
		       "environment\n");
	for (int i = 0; !t->environ_errno && i < t->nvars; i++)
		printf("%s%s\n", i ? "            " : "settings    ",
		       printable(t->vars[i], p, sizeof(p)));
	if (t->secure > 0)
		printf("            secure-execution mode: it ignores these "
		       "and the per-user config\n");
	printf("parallel    its automatic thread counts are its own state: "
	       "not readable\n            from outside\n");
}

static void json_mapped(const char *key, const struct mapped *m)
{
	printf(",\"%s\":{\"mapped\":%s,\"path\":", key,
	       m->found ? "true" : "false");
	if (m->found)
		json_str(stdout, m->path);
	else
		printf("null");
}

static void json_error(const char *key, int e)
{
	printf(",\"%s\":", key);
	if (e)
		json_str(stdout, strerror(e));
	else
		printf("null");
}

static void print_pid_json(const struct target *t)
{
	char v[1024];

	printf("{\"pid\":%ld,\"command\":", t->pid);
	json_str(stdout, t->comm);
	json_error("maps_error", t->maps_errno);
	json_error("environ_error", t->environ_errno);
	if (!t->maps_errno) {
		json_mapped("preload", &t->preload);
		printf(",\"in_ld_preload\":%s}",
		       t->in_ld_preload ? "true" : "false");
		json_mapped("library", &t->lib);
		printf(",\"same_as_this\":%s}",
		       same_library(&t->lib) ? "true" : "false");
		printf(",\"variants\":");
		json_str(stdout, variants_text(t, v, sizeof(v)));
	}
	printf(",\"secure\":%s,\"settings\":", t->secure < 0 ? "null"
					       : t->secure   ? "true"
							     : "false");
	if (t->environ_errno) {
		printf("null}\n");
		return;
	}
	printf("{");
	for (int i = 0; i < t->nvars; i++) {
		char name[128];
		size_t n = strcspn(t->vars[i], "=");

		snprintf(name, sizeof(name), "%.*s", (int)n, t->vars[i]);
		printf("%s", i ? "," : "");
		json_str(stdout, name);
		printf(":");
		json_str(stdout, t->vars[i] + n + 1);
	}
	printf("}}\n");
}

int info_pid(const char *arg, int json)
{
	static struct target t;
	char path[64], *end;
	struct stat st;
	FILE *f;

	errno = 0;
	t.pid = strtol(arg, &end, 10);
	if (end == arg || *end || t.pid <= 0 || errno) {
		fprintf(stderr,
			"fastmem-info: --pid '%s': a process id (a positive "
			"number)\n",
			arg);
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%ld", t.pid);
	if (stat(path, &st)) {
		fprintf(stderr, "fastmem-info: no process %ld (%s: %s)\n",
			t.pid, path, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/%ld/comm", t.pid);
	f = fopen(path, "r");
	if (!f || !fgets(t.comm, sizeof(t.comm), f))
		snprintf(t.comm, sizeof(t.comm), "?");
	if (f)
		fclose(f);
	t.comm[strcspn(t.comm, "\n")] = 0;
	read_maps(&t);
	read_environ(&t);
	read_auxv(&t);
	if (json)
		print_pid_json(&t);
	else
		print_pid_text(&t);
	/* what could not be read was said; it is still a failure */
	return t.maps_errno || t.environ_errno ? 1 : 0;
}
