/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate: where the config file is, and writing it: the
 * keys of the written decisions replace their old lines, every other line
 * stays (lib/settings.c reads it).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate.h"

int config_path(char *buf, size_t len, const char **whence)
{
	const char *e = getenv("FASTMEM_CONFIG");
	const char *x = getenv("XDG_CONFIG_HOME");
	const char *h = getenv("HOME");

	if (opt.system) {
		struct fm_settings_info si;

		fm_settings_info(&si);
		snprintf(buf, len, "%s", si.system.path);
		*whence = "--system";
		if (!buf[0]) {
			fprintf(stderr, "fastmem-bench calibrate: "
					"FASTMEM_SYSTEM_CONFIG is empty: no "
					"system config to write\n");
			return -1;
		}
		if (geteuid() != 0 && !opt.dry_run) {
			fprintf(stderr,
				"fastmem-bench calibrate: --system writes %s, "
				"which only root may do: run it as root "
				"(sudo fastmem-bench calibrate --system), or "
				"add --dry-run to see what it would write\n",
				buf);
			return -1;
		}
	} else if (e) {
		if (!*e) {
			fprintf(stderr,
				"fastmem-bench calibrate: FASTMEM_CONFIG is "
				"set "
				"but empty, which tells libfastmem to read no "
				"config file; set it to a path or unset it\n");
			return -1;
		}
		snprintf(buf, len, "%s", e);
		*whence = "FASTMEM_CONFIG";
	} else if (x && x[0] == '/') {
		snprintf(buf, len, "%s/fastmem/fastmem.conf", x);
		*whence = "$XDG_CONFIG_HOME";
	} else if (h && *h) {
		snprintf(buf, len, "%s/.config/fastmem/fastmem.conf", h);
		*whence = "$HOME";
	} else {
		fprintf(stderr, "fastmem-bench calibrate: neither "
				"FASTMEM_CONFIG, XDG_CONFIG_HOME nor HOME is "
				"set: nowhere to write the config file\n");
		return -1;
	}
	if (strlen(buf) >= 255)
		fprintf(stderr,
			"fastmem-bench calibrate: warning: %s is longer than "
			"libfastmem reads (255 bytes)\n",
			buf);
	return 0;
}

static int mkdirs(const char *path)
{
	char d[4096];
	char *slash;

	snprintf(d, sizeof(d), "%s", path);
	slash = strrchr(d, '/');
	if (!slash || slash == d)
		return 0;
	*slash = 0;
	for (char *p = d + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(d, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(d, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

/* A comment we wrote: a block's header, or the why of the keys below it */
static int our_comment(const char *line)
{
	line += strspn(line, " \t");
	return !strncmp(line, "# fastmem-bench calibrate", 25);
}

/* Neither blank nor a comment: a key = value line (lib/settings.c) */
static int key_line(const char *line)
{
	line += strspn(line, " \t\r\n\v\f");
	return *line && *line != '#';
}

/* Is this key line one we write anew (so that the old one goes)? */
static int ours(const char *line)
{
	const char *p = line + strspn(line, " \t");
	size_t kl = strcspn(p, " \t=\n");

	for (int d = 0; d < ndecisions; d++)
		for (int k = 0; k < DECISION_KEYS; k++) {
			const char *key = decisions[d].keys[k];

			if (decisions[d].write && key && strlen(key) == kl &&
			    !strncmp(p, key, kl))
				return 1;
		}
	return 0;
}

/*
 * Our comments directly above a key line, held back until that line shows
 * whether it stays: they describe the keys below them, and go with them.
 */
struct above {
	char *buf;
	size_t len, cap;
	int lines;
	int keys; /* key lines read below them */
};

static int above_add(struct above *a, const char *line, size_t n)
{
	if (a->len + n > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 1024;
		char *b;

		while (cap < a->len + n)
			cap *= 2;
		b = realloc(a->buf, cap);
		if (!b)
			return -1;
		a->buf = b;
		a->cap = cap;
	}
	memcpy(a->buf + a->len, line, n);
	a->len += n;
	a->lines++;
	return 0;
}

static void above_drop(struct above *a)
{
	a->len = 0;
	a->lines = 0;
	a->keys = 0;
}

/*
 * Copy the old file's lines except the keys we write anew and our comments
 * above only such keys (a comment above a key that stays stays with it),
 * then append block.  Returns the number of lines kept, or -1.
 */
int write_config(const char *path, const char *block)
{
	struct above above = { NULL, 0, 0, 0, 0 };
	char tmp[4200], *line = NULL;
	size_t lsize = 0;
	ssize_t n;
	FILE *in, *out;
	int kept = 0, err = 0;

	if (mkdirs(path)) {
		fprintf(stderr,
			"fastmem-bench calibrate: cannot create the directory "
			"of %s: %s\n",
			path, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr,
			"fastmem-bench calibrate: cannot write %s: %s\n", tmp,
			strerror(errno));
		return -1;
	}
	/* libfastmem ignores a system config that others may write: make it
	 * 0644 whatever the umask */
	if (opt.system && fchmod(fileno(out), 0644)) {
		fprintf(stderr,
			"fastmem-bench calibrate: cannot chmod %s: %s\n", tmp,
			strerror(errno));
		fclose(out);
		unlink(tmp);
		return -1;
	}
	in = fopen(path, "r");
	while (in && !err && (n = getline(&line, &lsize, in)) > 0) {
		if (our_comment(line)) {
			/* any still held were above keys that all went */
			if (above.keys)
				above_drop(&above);
			err = above_add(&above, line, (size_t)n);
			continue;
		}
		if (key_line(line)) {
			above.keys++;
			if (ours(line))
				continue;
			if (above.len)
				fwrite(above.buf, 1, above.len, out);
			kept += above.lines;
			above.len = 0;
			above.lines = 0;
		} else {
			/* a blank line or another comment: ours above it
			 * belong to nothing below */
			above_drop(&above);
		}
		fwrite(line, 1, (size_t)n, out);
		if (line[n - 1] != '\n')
			fputc('\n', out);
		kept++;
	}
	free(line);
	free(above.buf);
	if (in)
		fclose(in);
	if (err) {
		fprintf(stderr,
			"fastmem-bench calibrate: out of memory reading %s\n",
			path);
		fclose(out);
		unlink(tmp);
		return -1;
	}
	fputs(block, out);
	if (fclose(out) || rename(tmp, path)) {
		fprintf(stderr,
			"fastmem-bench calibrate: cannot write %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	return kept;
}
