/* SPDX-License-Identifier: MIT */
/*
 * Size distributions: reading FASTMEM_TRACE files and LLVM libc's
 * probability lists, and drawing sizes from them.  See distribution.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "distribution.h"

#define TRACE_EXACT_MAX 4096
#define LLVM_MAX_SIZES (1u << 20)
#define FILE_MAX (64u << 20)

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int add_range(struct dist *d, int op, size_t lo, size_t hi, double w)
{
	struct dist_range *r;

	if (w <= 0)
		return 0;
	if (d->nr[op] % 256 == 0) {
		r = realloc(d->r[op], (d->nr[op] + 256) * sizeof(*r));
		if (!r)
			return -1;
		d->r[op] = r;
	}
	d->r[op][d->nr[op]++] = (struct dist_range){ lo, hi, w };
	d->total[op] += w;
	if (hi > d->max[op])
		d->max[op] = hi;
	return 0;
}

static void base_name(const char *path, char *out, size_t size)
{
	const char *b = strrchr(path, '/');
	const char *dot;
	size_t n;

	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	/* keep ".12345" (a pid), drop ".trace", ".csv" */
	if (dot && dot > b && !isdigit((unsigned char)dot[1]))
		n = (size_t)(dot - b);
	else
		n = strlen(b);
	if (n >= size)
		n = size - 1;
	memcpy(out, b, n);
	out[n] = 0;
}

/* A decimal count: digits only, no overflow. */
static int parse_count(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int op_index(const char *s)
{
	if (!strcmp(s, "memcpy"))
		return 0;
	if (!strcmp(s, "memmove"))
		return 1;
	if (!strcmp(s, "memset"))
		return 2;
	return -1;
}

/* The range a trace writes for sizes above 4096: 4097-8191, then
 * 2^k-(2^(k+1)-1). */
static int valid_range(uint64_t lo, uint64_t hi)
{
	if (lo == TRACE_EXACT_MAX + 1)
		return hi == 2 * TRACE_EXACT_MAX - 1;
	if (lo <= TRACE_EXACT_MAX || (lo & (lo - 1)) || lo > SIZE_MAX / 2 + 1)
		return 0;
	return hi == 2 * lo - 1;
}

/* How lib/trace-file.c starts the comment it writes when processes share a
 * trace path that has no %p. */
#define WARNING "# warning: "

static int parse_trace(const char *name, const char *text, size_t len,
		       struct dist *d, char *err, size_t errlen)
{
	uint64_t sum[3] = { 0, 0, 0 };
	int have_calls[3] = { 0, 0, 0 };
	unsigned lineno = 0;
	size_t i = 0;

	d->format = DIST_TRACE;
	while (i < len) {
		char line[256], f[4][64];
		size_t n = 0;
		int nf;

		lineno++;
		while (i < len && text[i] != '\n') {
			if (!text[i])
				return fail(err, errlen,
					    "%s:%u: a NUL byte: not a trace "
					    "file",
					    name, lineno);
			if (n + 1 < sizeof(line))
				line[n++] = text[i];
			i++;
		}
		i++;
		line[n] = 0;
		if (line[0] == '#') {
			/* a comment may be any length: what is kept of it
			 * suffices */
			if (!d->warning[0] &&
			    !strncmp(line, WARNING, strlen(WARNING)))
				snprintf(d->warning, sizeof(d->warning), "%s",
					 line + strlen(WARNING));
			continue;
		}
		if (n + 1 >= sizeof(line))
			return fail(err, errlen, "%s:%u: line too long", name,
				    lineno);
		if (!line[0])
			continue;
		nf = sscanf(line, "%63s %63s %63s %63s", f[0], f[1], f[2],
			    f[3]);
		if (nf == 2 && !strcmp(f[0], "fastmem-trace")) {
			if (strcmp(f[1], "1"))
				return fail(err, errlen,
					    "%s:%u: trace format version %s; "
					    "this fastmem-bench reads 1",
					    name, lineno, f[1]);
			continue;
		}
		if (nf != 3)
			return fail(err, errlen,
				    "%s:%u: expected three fields (OP SIZE "
				    "COUNT, or calls/aligned64/overlapping "
				    "OP N): '%s'",
				    name, lineno, line);
		int op = op_index(f[1]);
		uint64_t v, lo, hi;
		if (!strcmp(f[0], "calls") || !strcmp(f[0], "aligned64") ||
		    !strcmp(f[0], "overlapping")) {
			if (op < 0)
				return fail(err, errlen,
					    "%s:%u: unknown operation '%s' "
					    "(memcpy, memmove, memset)",
					    name, lineno, f[1]);
			if (parse_count(f[2], &v))
				return fail(err, errlen,
					    "%s:%u: '%s' is not a count", name,
					    lineno, f[2]);
			if (f[0][0] == 'c') {
				d->calls[op] += v;
				have_calls[op] = 1;
			} else if (f[0][0] == 'a') {
				d->aligned64[op] += v;
			} else {
				d->overlapping[op] += v;
			}
			continue;
		}
		op = op_index(f[0]);
		if (op < 0)
			return fail(err, errlen,
				    "%s:%u: unknown operation or key '%s'",
				    name, lineno, f[0]);
		char *dash = strchr(f[1], '-');
		if (dash) {
			*dash = 0;
			if (parse_count(f[1], &lo) ||
			    parse_count(dash + 1, &hi) || !valid_range(lo, hi))
				return fail(err, errlen,
					    "%s:%u: '%s-%s' is not a size "
					    "range of a trace (4097-8191, "
					    "8192-16383, ...)",
					    name, lineno, f[1], dash + 1);
		} else {
			if (parse_count(f[1], &lo) || lo > TRACE_EXACT_MAX)
				return fail(err, errlen,
					    "%s:%u: '%s' is not a size from 0 "
					    "to 4096 (larger sizes are "
					    "ranges)",
					    name, lineno, f[1]);
			hi = lo;
		}
		if (parse_count(f[2], &v))
			return fail(err, errlen, "%s:%u: '%s' is not a count",
				    name, lineno, f[2]);
		if (add_range(d, op == 2 ? DIST_SET : DIST_COPY, (size_t)lo,
			      (size_t)hi, (double)v))
			return fail(err, errlen, "%s: out of memory", name);
		sum[op] += v;
	}
	for (int op = 0; op < 3; op++) {
		static const char *const names[] = { "memcpy", "memmove",
						     "memset" };
		if (have_calls[op] && sum[op] != d->calls[op])
			return fail(err, errlen,
				    "%s: the %s sizes add up to %llu calls, "
				    "its 'calls' line says %llu",
				    name, names[op],
				    (unsigned long long)sum[op],
				    (unsigned long long)d->calls[op]);
		if (!have_calls[op])
			d->calls[op] = sum[op];
		if (d->aligned64[op] > d->calls[op] ||
		    d->overlapping[op] > d->calls[op])
			return fail(err, errlen,
				    "%s: more aligned or overlapping %s "
				    "calls than calls",
				    name, names[op]);
	}
	if (d->calls[0] + d->calls[1])
		d->aligned[DIST_COPY] =
			(double)(d->aligned64[0] + d->aligned64[1]) /
			(double)(d->calls[0] + d->calls[1]);
	if (d->calls[2])
		d->aligned[DIST_SET] =
			(double)d->aligned64[2] / (double)d->calls[2];
	if (!d->total[DIST_COPY] && !d->total[DIST_SET])
		return fail(err, errlen, "%s: the trace records no calls",
			    name);
	return 0;
}

static int parse_llvm(const char *name, const char *text, size_t len,
		      struct dist *d, char *err, size_t errlen)
{
	size_t i = 0, n = 0;
	int op_copy = 1, op_set = 1;

	d->format = DIST_LLVM;
	/* the operation from the name (MemcpyGoogleA, MemsetGoogleB, ...) */
	if (strcasestr(d->name, "memset") || strcasestr(d->name, "bzero"))
		op_copy = 0;
	else if (strcasestr(d->name, "memcpy") ||
		 strcasestr(d->name, "memmove"))
		op_set = 0;
	while (i < len) {
		char num[64], *end;
		size_t k = 0;
		double p;

		while (i < len && isspace((unsigned char)text[i]))
			i++;
		if (i == len)
			break;
		while (i < len && text[i] != ',' &&
		       !isspace((unsigned char)text[i])) {
			if (k + 1 >= sizeof(num))
				return fail(err, errlen,
					    "%s: entry %zu is not a "
					    "probability",
					    name, n);
			num[k++] = text[i++];
		}
		num[k] = 0;
		while (i < len && isspace((unsigned char)text[i]))
			i++;
		if (i < len && text[i] != ',')
			return fail(err, errlen,
				    "%s: entry %zu: expected a comma after "
				    "'%s'",
				    name, n, num);
		i++;	/* the comma (or the end) */
		if (!k) /* ",," (a trailing comma ends the list above) */
			return fail(err, errlen, "%s: entry %zu is empty", name,
				    n);
		errno = 0;
		p = strtod(num, &end);
		if (*end || errno || !isfinite(p) || p < 0 || p > 1)
			return fail(err, errlen,
				    "%s: entry %zu ('%s') is not a "
				    "probability from 0 to 1",
				    name, n, num);
		if (n >= LLVM_MAX_SIZES)
			return fail(err, errlen, "%s: more than %u sizes", name,
				    LLVM_MAX_SIZES);
		if ((op_copy && add_range(d, DIST_COPY, n, n, p)) ||
		    (op_set && add_range(d, DIST_SET, n, n, p)))
			return fail(err, errlen, "%s: out of memory", name);
		n++;
	}
	if (!n)
		return fail(err, errlen, "%s: empty", name);
	double t = op_copy ? d->total[DIST_COPY] : d->total[DIST_SET];
	if (t <= 0)
		return fail(err, errlen, "%s: every probability is 0", name);
	if (fabs(t - 1) > 0.01)
		return fail(err, errlen,
			    "%s: the probabilities add up to %g, not 1", name,
			    t);
	return 0;
}

int dist_parse(const char *name, const char *text, size_t len, struct dist *d,
	       char *err, size_t errlen)
{
	size_t i = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	base_name(name, d->name, sizeof(d->name));
	while (i < len && (isspace((unsigned char)text[i]) || text[i] == '#')) {
		if (text[i] == '#')
			while (i < len && text[i] != '\n')
				i++;
		else
			i++;
	}
	if (i == len)
		return fail(err, errlen, "%s: empty", name);
	if (len - i >= 13 && !memcmp(text + i, "fastmem-trace", 13))
		rc = parse_trace(name, text, len, d, err, errlen);
	else if (isdigit((unsigned char)text[i]) || text[i] == '.')
		rc = parse_llvm(name, text, len, d, err, errlen);
	else
		rc = fail(err, errlen,
			  "%s: neither a FASTMEM_TRACE file (its first line "
			  "is 'fastmem-trace 1') nor LLVM libc's format (one "
			  "line of comma-separated probabilities)",
			  name);
	if (rc)
		dist_free(d);
	return rc;
}

int dist_load(const char *path, struct dist *d, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	for (;;) {
		if (len == cap) {
			char *nb;
			if (cap >= FILE_MAX) {
				fclose(f);
				free(buf);
				return fail(err, errlen,
					    "%s: larger than 64 MiB", path);
			}
			cap = cap ? 2 * cap : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				fclose(f);
				free(buf);
				return fail(err, errlen, "%s: out of memory",
					    path);
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return fail(err, errlen, "%s: read error", path);
	}
	fclose(f);
	rc = dist_parse(path, buf, len, d, err, errlen);
	free(buf);
	return rc;
}

void dist_print_warning(const struct dist *d, const char *prog,
			const char *path)
{
	if (d->warning[0])
		fprintf(stderr, "%s: %s: warning: %s\n", prog, path,
			d->warning);
}

void dist_free(struct dist *d)
{
	for (int op = 0; op < DIST_OPS; op++) {
		free(d->r[op]);
		d->r[op] = NULL;
		d->nr[op] = 0;
	}
}

double dist_prob(const struct dist *d, int op, size_t n)
{
	double p = 0;

	if (d->total[op] <= 0)
		return 0;
	for (size_t i = 0; i < d->nr[op]; i++) {
		const struct dist_range *r = &d->r[op][i];
		if (n >= r->lo && n <= r->hi)
			p += r->w / (double)(r->hi - r->lo + 1);
	}
	return p / d->total[op];
}

/* splitmix64 */
uint64_t dist_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

size_t dist_draw(const struct dist *d, int op, uint64_t *state)
{
	double u = (double)(dist_rand(state) >> 11) * 0x1.0p-53 * d->total[op];
	const struct dist_range *r = d->r[op];
	size_t i = 0;

	if (!d->nr[op])
		return 0;
	/* linear: called only while building a sequence */
	for (; i + 1 < d->nr[op] && u >= r[i].w; i++)
		u -= r[i].w;
	r += i;
	if (r->hi == r->lo)
		return r->lo;
	return r->lo + (size_t)(dist_rand(state) % (r->hi - r->lo + 1));
}
