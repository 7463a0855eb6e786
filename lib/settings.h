/* SPDX-License-Identifier: MIT */
/*
 * What the lib/settings*.c files share: string helpers that call nothing
 * (the settings are read inside ifunc resolvers, before libc may be used),
 * and the line builder of the warnings.
 */
#ifndef FASTMEM_SETTINGS_H
#define FASTMEM_SETTINGS_H

#include "internal.h"

static inline int fm_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static inline char fm_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static inline size_t fm_str_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* Is s[0, len) exactly word?  With nocase, letters of either case match. */
static inline int fm_str_is(const char *s, size_t len, const char *word,
			    int nocase)
{
	size_t i = 0;

	for (; word[i]; i++) {
		if (i >= len)
			return 0;
		if (nocase ? fm_lower(s[i]) != fm_lower(word[i])
			   : s[i] != word[i])
			return 0;
	}
	return i == len;
}

/* Does s[0, len) start with p?  Then *plen is p's length. */
static inline int fm_has_prefix(const char *s, size_t len, const char *p,
				size_t *plen)
{
	size_t i = 0;

	for (; p[i]; i++)
		if (i >= len || s[i] != p[i])
			return 0;
	*plen = i;
	return 1;
}

/* s[0, len) without the blanks around it. */
static inline const char *fm_trim(const char *s, size_t *len)
{
	while (*len && fm_is_space(s[*len - 1]))
		(*len)--;
	while (*len && fm_is_space(*s))
		s++, (*len)--;
	return s;
}

/* Copy s[0, len) to dst; nonzero if it did not fit (dst then holds a
 * prefix). */
static inline int fm_copy_str(char *dst, size_t size, const char *s, size_t len)
{
	size_t i = 0;

	for (; i < len && i + 1 < size; i++)
		dst[i] = s[i];
	dst[i] = 0;
	return i < len;
}

/* Append s to buf[*len] (NUL-terminated, cut to fit in size). */
static inline void fm_put(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s && *len + 1 < size)
		buf[(*len)++] = *s++;
	if (size)
		buf[*len < size ? *len : size - 1] = 0;
}

/* Append v in decimal. */
static inline void fm_put_uint(char *buf, size_t size, size_t *len,
			       unsigned long v)
{
	char digits[24];
	size_t n = sizeof(digits) - 1;

	digits[n] = 0;
	do
		digits[--n] = (char)('0' + v % 10);
	while ((v /= 10) && n);
	fm_put(buf, size, len, digits + n);
}

/*
 * One warning line on stderr, assembled from parts: "fastmem: " first,
 * bytes that are not printable ASCII (and the backslash) as \xNN, "..."
 * where it is cut.
 */
struct fm_warn_line {
	char text[640];
	size_t len;
	int cut;
};

FM_HIDDEN void fm_warn_begin(struct fm_warn_line *w);
FM_HIDDEN void fm_warn_add(struct fm_warn_line *w, const char *const *parts,
			   size_t nparts);
FM_HIDDEN void fm_warn_end(struct fm_warn_line *w);

/* Plain loops (the library is built with -fno-tree-loop-distribute-patterns,
 * so they stay loops): the variants may be sanitizer-instrumented, this code
 * must not be.  A word at a time where it can: the settings and the scan
 * state, 2 KiB, are cleared at every start of every program. */
static inline void fm_zero(void *p, size_t n)
{
	typedef unsigned long __attribute__((may_alias)) fm_word;
	unsigned char *b = p;

	while (n && ((uintptr_t)b & (sizeof(fm_word) - 1))) {
		*b++ = 0;
		n--;
	}
	for (; n >= sizeof(fm_word); n -= sizeof(fm_word)) {
		*(fm_word *)(void *)b = 0;
		b += sizeof(fm_word);
	}
	while (n--)
		*b++ = 0;
}

/* Parsers of values.  0 (or the value) on success, -1 if s is not one. */
FM_HIDDEN int fm_parse_on_off(const char *s, size_t len); /* FM_PROBE_ON.. */
FM_HIDDEN int fm_parse_count(const char *s, size_t len, unsigned min,
			     unsigned max, unsigned *out);

/* The longest environment entry or config line read whole. */
#define FM_LINE_MAX FM_PATH_MAX

/*
 * Reading one source of settings (the environment, a config file) record
 * by record: settings.c parses, settings-load.c finds the sources.
 */
struct fm_scan {
	struct fm_settings *st;
	int warn; /* print warnings (the first, shared reading only) */
	/* the source being read: where its settings rank, and for warnings */
	enum fm_source src;
	int quote; /* may warnings show the file's bytes? */
	/* from the environment, for the default per-user file */
	int home_long; /* HOME longer than FM_PATH_MAX */
	char home[FM_PATH_MAX];
	char xdg[FM_PATH_MAX];
	/* record assembly across read() chunks */
	char line[FM_LINE_MAX];
	size_t len;
	int truncated;
	int skip; /* in an environment entry env_wanted() turned down */
	unsigned lineno;
};

/* Records end at NUL (the environment) or at a newline (config files). */
enum fm_scan_kind { FM_SCAN_ENV, FM_SCAN_CONFIG };

/* Warnings name the file by fm_source_path(st, src). */
FM_HIDDEN void fm_scan_begin(struct fm_scan *sc, enum fm_source src);
FM_HIDDEN void fm_scan_feed(struct fm_scan *sc, const char *buf, size_t n,
			    enum fm_scan_kind kind);
/* The last record, if it had no separator. */
FM_HIDDEN void fm_scan_finish(struct fm_scan *sc, enum fm_scan_kind kind);
/* Warnings about a file from now on start from zero (fm_settings_parse). */
FM_HIDDEN void fm_scan_reset_warnings(void);

static inline const char *fm_file_label(enum fm_source src)
{
	return src == FM_SRC_SYSTEM ? "system config " : "config ";
}

#endif /* FASTMEM_SETTINGS_H */
