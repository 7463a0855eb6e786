/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: the header, and the result tables as text, CSV and JSON
 * (fastmem-bench-plot.c draws them).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#if BENCH_X86
#include <cpuid.h>
#endif
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#define MAX_TABLES 64
#define MAX_NOTES 64

static struct table *tables[MAX_TABLES];
static int ntables;
static char *notes[MAX_NOTES];
static int nnotes;
static char *extra;
static size_t extra_len;
static int csv_header_done;

/* --- notes and extra JSON ---------------------------------------------------
 */

void note(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (int i = 0; i < nnotes; i++)
		if (!strcmp(notes[i], buf))
			return; /* once is enough */
	if (nnotes < MAX_NOTES)
		notes[nnotes++] = strdup(buf);
	if (opt.format == OUT_TEXT)
		printf("note: %s\n", buf);
	else if (opt.format == OUT_CSV)
		printf("# note: %s\n", buf);
	fflush(stdout);
}

void json_extra(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = strlen(buf);
	extra = realloc(extra, extra_len + n + 1);
	if (!extra)
		exit(1);
	memcpy(extra + extra_len, buf, n + 1);
	extra_len += n;
}

int json_extra_empty(void)
{
	return extra_len == 0;
}

/* --- tables ------------------------------------------------------------------
 */

struct table *table_new(const char *id, enum unit unit, int by_series)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t || ntables >= MAX_TABLES)
		exit(1);
	t->cells = calloc((size_t)MAX_SERIES * MAX_POINTS, sizeof(struct cell));
	if (!t->cells)
		exit(1);
	snprintf(t->id, sizeof(t->id), "%s", id);
	t->unit = unit;
	t->by_series = by_series;
	t->xname = "size";
	tables[ntables++] = t;
	return t;
}

int table_count(void)
{
	return ntables;
}

struct table *table_at(int i)
{
	return tables[i];
}

struct cell *table_cell(struct table *t, int series, int point)
{
	return &t->cells[series * MAX_POINTS + point];
}

void table_add_point(struct table *t, size_t value, const char *label)
{
	if (t->nx >= MAX_POINTS)
		return;
	t->xval[t->nx] = value;
	if (label)
		snprintf(t->xlabel[t->nx], sizeof(t->xlabel[0]), "%s", label);
	else
		fmt_size(value, t->xlabel[t->nx], sizeof(t->xlabel[0]));
	t->nx++;
}

static void fmt_value(double v, char *buf, size_t len)
{
	/* three significant digits; compare after rounding (9.996 is 10.0) */
	if (v >= 99.95)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 9.995)
		snprintf(buf, len, "%.1f", v);
	else if (v >= 0.09995)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

struct parts {
	char v[24], sp[16], tc[24], r[16];
};

static void cell_parts(const struct table *t, int s, const struct cell *c,
		       struct parts *p)
{
	memset(p, 0, sizeof(*p));
	if (c->state == CELL_EMPTY) {
		snprintf(p->v, sizeof(p->v), "-");
		return;
	}
	if (c->state == CELL_WRONG) {
		snprintf(p->v, sizeof(p->v), "WRONG");
		return;
	}
	fmt_value(c->v.med, p->v, sizeof(p->v));
	if (c->v.med > 0) {
		int pct = (int)((c->v.q3 - c->v.q1) / 2 / c->v.med * 100 + 0.5);
		snprintf(p->sp, sizeof(p->sp), "±%d%%", pct > 99 ? 99 : pct);
	}
	if (t->show_tsc && c->tsc > 0)
		snprintf(p->tc, sizeof(p->tc), "%.0f tsc", c->tsc);
	if (s != t->ref && c->ratio > 0)
		snprintf(p->r, sizeof(p->r), "%.2fx", c->ratio);
}

struct widths {
	int v, sp, tc, r, all;
};

static void widen(struct widths *w, const struct parts *p)
{
	int a;

	if ((a = text_width(p->v)) > w->v)
		w->v = a;
	if ((a = text_width(p->sp)) > w->sp)
		w->sp = a;
	if ((a = text_width(p->tc)) > w->tc)
		w->tc = a;
	if ((a = text_width(p->r)) > w->r)
		w->r = a;
}

static int total(const struct widths *w)
{
	return w->v + (w->sp ? 1 + w->sp : 0) + (w->tc ? 1 + w->tc : 0) +
	       (w->r ? 1 + w->r : 0);
}

static void put_cell(FILE *f, const struct parts *p, const struct widths *w)
{
	/* WRONG and - take the whole column */
	if (!p->sp[0] && !p->r[0] && !p->tc[0]) {
		pad_left(f, p->v, w->all);
		return;
	}
	for (int i = total(w); i < w->all; i++)
		fputc(' ', f);
	pad_left(f, p->v, w->v);
	if (w->sp) {
		fputc(' ', f);
		pad_right(f, p->sp, w->sp);
	}
	if (w->tc) {
		fputc(' ', f);
		pad_left(f, p->tc, w->tc);
	}
	if (w->r) {
		fputc(' ', f);
		pad_left(f, p->r, w->r);
	}
}

/* Columns of the output: the terminal's, $COLUMNS, or 160. */
static int out_width(void)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");

	if (isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	if (c && atoi(c) >= 40)
		return atoi(c);
	return 160;
}

static void emit_text(struct table *t)
{
	FILE *f = stdout;
	struct parts p;

	fprintf(f, "== %s\n", t->title);
	if (t->subtitle[0])
		fprintf(f, "   %s\n", t->subtitle);
	if (!t->by_series) {
		/* a line per point, a column per series */
		struct widths w[MAX_SERIES];
		int wx = text_width(t->xname);

		for (int x = 0; x < t->nx; x++)
			if (text_width(t->xlabel[x]) > wx)
				wx = text_width(t->xlabel[x]);
		for (int s = 0; s < t->ns; s++) {
			memset(&w[s], 0, sizeof(w[s]));
			for (int x = 0; x < t->nx; x++) {
				cell_parts(t, s, table_cell(t, s, x), &p);
				if (p.sp[0] || p.r[0])
					widen(&w[s], &p);
			}
			w[s].all = total(&w[s]);
			if (text_width(t->series[s].name) > w[s].all)
				w[s].all = text_width(t->series[s].name);
			if (w[s].all < 5)
				w[s].all = 5;
		}
		/* too wide for the screen: blocks of columns, each with the
		 * reference column repeated */
		int width = out_width(), first = 0, block = 0;

		while (first < t->ns) {
			int cols[MAX_SERIES], nc = 0, used = wx;

			if (t->ref < first) {
				cols[nc++] = t->ref;
				used += 3 + w[t->ref].all;
			}
			for (int s = first; s < t->ns; s++) {
				if (nc && used + 3 + w[s].all > width &&
				    !(nc == 1 && cols[0] == t->ref &&
				      s == first))
					break;
				cols[nc++] = s;
				used += 3 + w[s].all;
			}
			first = cols[nc - 1] + 1;
			if (block++)
				fputc('\n', f);
			pad_left(f, t->xname, wx);
			for (int c = 0; c < nc; c++) {
				fputs("   ", f);
				pad_left(f, t->series[cols[c]].name,
					 w[cols[c]].all);
			}
			fputc('\n', f);
			for (int x = 0; x < t->nx; x++) {
				pad_left(f, t->xlabel[x], wx);
				for (int c = 0; c < nc; c++) {
					fputs("   ", f);
					cell_parts(t, cols[c],
						   table_cell(t, cols[c], x),
						   &p);
					put_cell(f, &p, &w[cols[c]]);
				}
				fputc('\n', f);
			}
		}
	} else {
		/* a line per series, a column per point */
		struct widths w[MAX_POINTS];
		int wn = 0;

		for (int s = 0; s < t->ns; s++)
			if (text_width(t->series[s].name) > wn)
				wn = text_width(t->series[s].name);
		for (int x = 0; x < t->nx; x++) {
			memset(&w[x], 0, sizeof(w[x]));
			for (int s = 0; s < t->ns; s++) {
				cell_parts(t, s, table_cell(t, s, x), &p);
				if (p.sp[0] || p.r[0])
					widen(&w[x], &p);
			}
			w[x].all = total(&w[x]);
			if (text_width(t->xlabel[x]) > w[x].all)
				w[x].all = text_width(t->xlabel[x]);
			if (w[x].all < 5)
				w[x].all = 5;
		}
		pad_right(f, "", wn);
		for (int x = 0; x < t->nx; x++) {
			fputs("   ", f);
			pad_left(f, t->xlabel[x], w[x].all);
		}
		fputc('\n', f);
		for (int s = 0; s < t->ns; s++) {
			pad_right(f, t->series[s].name, wn);
			for (int x = 0; x < t->nx; x++) {
				fputs("   ", f);
				cell_parts(t, s, table_cell(t, s, x), &p);
				put_cell(f, &p, &w[x]);
			}
			fputc('\n', f);
		}
	}
	if (t->footer[0])
		fprintf(f, "%s", t->footer);
	fputc('\n', f);
	fflush(f);
}

const char *unit_name(enum unit u)
{
	return u == UNIT_GBS ? "GB/s" : "ns/op";
}

static void series_flags(const struct series *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", s->flags & S_REF ? "ref;" : "",
		 s->flags & S_DISPATCH ? "dispatched;" : "",
		 s->flags & S_SELECTED ? "selected;" : "",
		 s->flags & S_NT ? "nt;" : "",
		 s->flags & S_POLICY ? "policy;" : "");
	size_t n = strlen(buf);
	if (n)
		buf[n - 1] = 0;
}

static void emit_csv(struct table *t)
{
	FILE *f = stdout;
	char fl[64];

	if (!csv_header_done) {
		fprintf(f, "table,point,bytes,series,flags,unit,median,q1,q3,"
			   "min,max,ratio,paired_ratio,tsc_per_op,samples,"
			   "status\n");
		csv_header_done = 1;
	}
	for (int s = 0; s < t->ns; s++) {
		series_flags(&t->series[s], fl, sizeof(fl));
		for (int x = 0; x < t->nx; x++) {
			const struct cell *c = table_cell(t, s, x);

			csv_str(f, t->id);
			fputc(',', f);
			csv_str(f, t->xlabel[x]);
			fprintf(f, ",%zu,", t->xval[x]);
			csv_str(f, t->series[s].name);
			fputc(',', f);
			csv_str(f, fl);
			fprintf(f, ",%s,", unit_name(t->unit));
			if (c->state == CELL_OK)
				fprintf(f,
					"%.6g,%.6g,%.6g,%.6g,%.6g,%.4f,%.4f,%."
					"1f,"
					"%d,ok\n",
					c->v.med, c->v.q1, c->v.q3, c->v.min,
					c->v.max, c->ratio, c->pratio, c->tsc,
					c->nsamples);
			else
				fprintf(f, ",,,,,,,,0,%s\n",
					c->state == CELL_WRONG ? "wrong"
							       : "none");
		}
	}
	fflush(f);
}

void table_emit(struct table *t)
{
	if (opt.format == OUT_TEXT)
		emit_text(t);
	else if (opt.format == OUT_CSV)
		emit_csv(t);
}

static void json_table(FILE *f, const struct table *t)
{
	fprintf(f, "{\"id\":");
	json_str(f, t->id);
	fprintf(f, ",\"title\":");
	json_str(f, t->title);
	fprintf(f, ",\"subtitle\":");
	json_str(f, t->subtitle);
	fprintf(f, ",\"conclusions\":");
	json_str(f, t->footer);
	fprintf(f, ",\"unit\":\"%s\",\"reference\":", unit_name(t->unit));
	json_str(f, t->ns ? t->series[t->ref].name : "");
	fprintf(f, ",\"points\":[");
	for (int x = 0; x < t->nx; x++) {
		fprintf(f, "%s{\"label\":", x ? "," : "");
		json_str(f, t->xlabel[x]);
		fprintf(f, ",\"value\":%zu}", t->xval[x]);
	}
	fprintf(f, "],\"series\":[");
	for (int s = 0; s < t->ns; s++) {
		const struct series *se = &t->series[s];

		fprintf(f, "%s{\"name\":", s ? "," : "");
		json_str(f, se->name);
		fprintf(f,
			",\"reference\":%s,\"dispatched\":%s,\"selected\":%s,"
			"\"nontemporal\":%s,\"policy\":%s,\"cells\":[",
			se->flags & S_REF ? "true" : "false",
			se->flags & S_DISPATCH ? "true" : "false",
			se->flags & S_SELECTED ? "true" : "false",
			se->flags & S_NT ? "true" : "false",
			se->flags & S_POLICY ? "true" : "false");
		for (int x = 0; x < t->nx; x++) {
			const struct cell *c = &t->cells[s * MAX_POINTS + x];

			if (c->state != CELL_OK) {
				fprintf(f, "%s{\"status\":\"%s\"}",
					x ? "," : "",
					c->state == CELL_WRONG ? "wrong"
							       : "none");
				continue;
			}
			fprintf(f,
				"%s{\"status\":\"ok\",\"median\":%.6g,\"q1\":%."
				"6g,"
				"\"q3\":%.6g,\"min\":%.6g,\"max\":%.6g,"
				"\"ratio\":%.4f,\"paired_ratio\":%.4f,"
				"\"samples\":%d",
				x ? "," : "", c->v.med, c->v.q1, c->v.q3,
				c->v.min, c->v.max, c->ratio, c->pratio,
				c->nsamples);
			if (c->tsc > 0)
				fprintf(f, ",\"tsc_per_op\":%.1f", c->tsc);
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]}");
}

void output_finish(void)
{
	FILE *f = stdout;

	if (opt.format != OUT_JSON)
		return;
	fprintf(f, "{\"tool\":\"fastmem-bench\",\"version\":");
	json_str(f, fm_version());
	fprintf(f, ",\"subcommand\":");
	json_str(f, opt.cmd_name);
	fprintf(f, ",\"quick\":%s,", opt.quick ? "true" : "false");
	json_machine(f);
	fprintf(f,
		",\"method\":{\"reps\":%d,\"batch_ns\":%.0f,\"order\":"
		"\"balanced (each row after every other equally often), "
		"reference interleaved\","
		"\"statistic\":\"median\","
		"\"ratio\":\"speed relative to the reference: ratio of the "
		"medians; paired_ratio: median of per-run ratios\"}",
		opt.reps > 0 ? opt.reps : default_reps(), default_batch_ns());
	fprintf(f, ",\"notes\":[");
	for (int i = 0; i < nnotes; i++) {
		if (i)
			fputc(',', f);
		json_str(f, notes[i]);
	}
	fprintf(f, "]");
	if (extra_len)
		fprintf(f, ",%s", extra);
	fprintf(f, ",\"tables\":[");
	for (int i = 0; i < ntables; i++) {
		if (i)
			fputc(',', f);
		json_table(f, tables[i]);
	}
	fprintf(f, "]}\n");
	fflush(f);
}

struct ratio_span ratio_span(const struct table *t, int s)
{
	struct ratio_span r = { 0, 1e9, 0, 0, 0, 0 };
	double lg = 0;

	for (int x = 0; x < t->nx; x++) {
		const struct cell *c = &t->cells[s * MAX_POINTS + x];

		if (c->state != CELL_OK || c->ratio <= 0)
			continue;
		lg += log(c->ratio);
		r.n++;
		if (c->ratio < r.lo)
			r.lo = c->ratio, r.xlo = x;
		if (c->ratio > r.hi)
			r.hi = c->ratio, r.xhi = x;
	}
	r.gmean = r.n ? exp(lg / r.n) : 0;
	return r;
}
