/* SPDX-License-Identifier: MIT */
/*
 * The output helpers fastmem-info and fastmem-bench share: sizes as text
 * and back, JSON and CSV strings, text columns, and the small string
 * helpers.  Nothing here knows about either tool.
 */
#ifndef FASTMEM_TOOLS_OUT_H
#define FASTMEM_TOOLS_OUT_H

#include <stddef.h>
#include <stdio.h>

/* --- sizes --------------------------------------------------------------- */

/* "4 KiB", "300 KiB", "2 MiB", "100 B"; SIZE_MAX is "never". */
void fmt_size(size_t v, char *buf, size_t len);
/* "4K", "1M", "100"; SIZE_MAX is "never" (the config file's spelling). */
void fmt_size_short(size_t v, char *buf, size_t len);
/* Bytes with an optional K, M or G suffix (powers of 1024; KiB, KB and a
 * trailing B accepted): 0, or -1 when s is not such a size. */
int parse_size(const char *s, size_t *out);
/* qsort comparison of size_t values, ascending. */
int cmp_size(const void *a, const void *b);

/* --- strings ------------------------------------------------------------- */

/* Strip leading and trailing blanks in place. */
void trim(char *s);
/* Is item one of the elements of the comma-separated list? */
int list_has(const char *list, const char *item);
/* s as safe text: "(none)" if empty, bytes that are not printable ASCII
 * (a terminal escape in a path, say) as \xNN. */
const char *printable(const char *s, char *buf, size_t size);
/* Columns s takes on a terminal: UTF-8 continuation bytes take none. */
int text_width(const char *s);
/* s right-aligned (pad_left) or left-aligned (pad_right) in w columns. */
void pad_left(FILE *f, const char *s, int w);
void pad_right(FILE *f, const char *s, int w);
/* Find an executable regular file prog in $PATH: 0 and its path in out. */
int find_in_path(const char *prog, char *out, size_t len);

/* --- machine-readable strings -------------------------------------------- */

/* s as a JSON string, quotes included (NULL is ""). */
void json_str(FILE *f, const char *s);
/* s escaped for inside a JSON string, cut to fit len. */
void json_escape(const char *s, char *out, size_t len);
/* s as a CSV field, quoted, with its quotes doubled. */
void csv_str(FILE *f, const char *s);

#endif /* FASTMEM_TOOLS_OUT_H */
