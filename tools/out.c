/* SPDX-License-Identifier: MIT */
/*
 * The output helpers fastmem-info and fastmem-bench share (out.h).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

/* --- sizes --------------------------------------------------------------- */

void fmt_size(size_t v, char *buf, size_t len)
{
	if (v == SIZE_MAX)
		snprintf(buf, len, "never");
	else if (v && v % GIB == 0)
		snprintf(buf, len, "%zu GiB", v / GIB);
	else if (v && v % MIB == 0)
		snprintf(buf, len, "%zu MiB", v / MIB);
	else if (v && v % KIB == 0)
		snprintf(buf, len, "%zu KiB", v / KIB);
	else
		snprintf(buf, len, "%zu B", v);
}

void fmt_size_short(size_t v, char *buf, size_t len)
{
	if (v == SIZE_MAX)
		snprintf(buf, len, "never");
	else if (v && v % GIB == 0)
		snprintf(buf, len, "%zuG", v / GIB);
	else if (v && v % MIB == 0)
		snprintf(buf, len, "%zuM", v / MIB);
	else if (v && v % KIB == 0)
		snprintf(buf, len, "%zuK", v / KIB);
	else
		snprintf(buf, len, "%zu", v);
}

/* The shift of a size suffix (K, M, G; nothing or B), -1 if none. */
static int suffix_shift(char c)
{
	switch (c) {
	case 0:
	case 'b':
	case 'B':
		return 0;
	case 'k':
	case 'K':
		return 10;
	case 'm':
	case 'M':
		return 20;
	case 'g':
	case 'G':
		return 30;
	default:
		return -1;
	}
}

int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;
	int shift;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || (shift = suffix_shift(*end)) < 0)
		return -1;
	if (*end) /* the suffix, then i and B as in KiB */
		end++;
	if (shift && *end == 'i')
		end++;
	if (shift && (*end == 'B' || *end == 'b'))
		end++;
	if (*end)
		return -1;
	if (shift && v > (SIZE_MAX >> shift))
		return -1;
	*out = (size_t)(v << shift);
	return 0;
}

int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* --- strings ------------------------------------------------------------- */

void trim(char *s)
{
	char *p = s;
	size_t n;

	while (*p == ' ')
		p++;
	memmove(s, p, strlen(p) + 1);
	n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = 0;
}

int list_has(const char *list, const char *item)
{
	size_t l = strlen(item);

	for (const char *p = list; l && (p = strstr(p, item)); p += l)
		if ((p == list || p[-1] == ',') && (!p[l] || p[l] == ','))
			return 1;
	return 0;
}

const char *printable(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	if (!*s)
		return "(none)";
	for (; *s && n + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[n++] = (char)c;
		else
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
	}
	buf[n] = 0;
	return buf;
}

int text_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

void pad_left(FILE *f, const char *s, int w)
{
	for (int i = text_width(s); i < w; i++)
		fputc(' ', f);
	fputs(s, f);
}

void pad_right(FILE *f, const char *s, int w)
{
	fputs(s, f);
	for (int i = text_width(s); i < w; i++)
		fputc(' ', f);
}

int find_in_path(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char dir[2048];

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat st;

		snprintf(dir, sizeof(dir), "%.*s", (int)n, n ? path : ".");
		snprintf(out, len, "%s/%s", dir, prog);
		if (access(out, X_OK) == 0 && stat(out, &st) == 0 &&
		    S_ISREG(st.st_mode))
			return 0;
		path += n;
		if (*path == ':')
			path++;
	}
	return -1;
}

/* --- machine-readable strings -------------------------------------------- */

/* c inside a JSON string: itself, or its escape */
static const char *json_char(unsigned char c, char buf[8])
{
	if (c == '"' || c == '\\')
		snprintf(buf, 8, "\\%c", c);
	else if (c < 0x20)
		snprintf(buf, 8, "\\u%04x", c);
	else
		buf[0] = (char)c, buf[1] = 0;
	return buf;
}

void json_str(FILE *f, const char *s)
{
	char b[8];

	fputc('"', f);
	for (; s && *s; s++)
		fputs(json_char((unsigned char)*s, b), f);
	fputc('"', f);
}

void json_escape(const char *s, char *out, size_t len)
{
	size_t e = 0;
	char b[8];

	for (; s && *s; s++) {
		size_t n = strlen(json_char((unsigned char)*s, b));

		if (e + n >= len)
			break;
		memcpy(out + e, b, n);
		e += n;
	}
	out[e] = 0;
}

void csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
