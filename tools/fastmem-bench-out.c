/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: the header, result tables as text, CSV and JSON, and plots
 * through gnuplot.
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

/* --- machine description -------------------------------------------------- */

static void cpu_brand(char *buf, size_t len)
{
	buf[0] = 0;
#if BENCH_X86
	unsigned r[12], a, b, c, d;

	if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000004u) {
		for (unsigned i = 0; i < 3; i++)
			__get_cpuid(0x80000002u + i, &r[i * 4], &r[i * 4 + 1],
				    &r[i * 4 + 2], &r[i * 4 + 3]);
		char s[49];
		memcpy(s, r, 48);
		s[48] = 0;
		char *p = s;
		while (*p == ' ')
			p++;
		snprintf(buf, len, "%s", p);
	}
#endif
	if (!buf[0]) {
		FILE *f = fopen("/proc/cpuinfo", "r");
		char line[256];

		while (f && fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (!colon || (strncmp(line, "model name", 10) &&
				       strncmp(line, "cpu\t", 4)))
				continue;
			colon++;
			while (*colon == ' ')
				colon++;
			colon[strcspn(colon, "\n")] = 0;
			snprintf(buf, len, "%s", colon);
			break;
		}
		if (f)
			fclose(f);
	}
	size_t n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = 0;
	if (!buf[0])
		snprintf(buf, len, "unknown");
}

static const char *libc_name(void)
{
	static char buf[48];

#ifdef __GLIBC__
	snprintf(buf, sizeof(buf), "glibc %s", gnu_get_libc_version());
#else
	snprintf(buf, sizeof(buf), "libc");
#endif
	return buf;
}

static const char *thp_state(void)
{
	static char buf[32];
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128], *a, *b;

	snprintf(buf, sizeof(buf), "unknown");
	if (f && fgets(line, sizeof(line), f) && (a = strchr(line, '[')) &&
	    (b = strchr(a, ']'))) {
		*b = 0;
		snprintf(buf, sizeof(buf), "%s", a + 1);
	}
	if (f)
		fclose(f);
	return buf;
}

static void header_line(FILE *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void header_line(FILE *f, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%s%-11s ", opt.format == OUT_CSV ? "# " : "", key);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

void print_header(void)
{
	struct fm_cache_info ci;
	char brand[96], a[24], b[24], c[24], d[24];
	char when[32];
	time_t t = time(NULL);
	FILE *f = stdout;

	if (opt.format == OUT_JSON)
		return;
	cpu_brand(brand, sizeof(brand));
	fm_cache_info(&ci);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&t));
	header_line(f, "fastmem-bench", "%s, libfastmem %s, %s%s", opt.cmd_name,
		    fm_version(), when, opt.quick ? " (--quick)" : "");
	header_line(f, "cpu", "%s", brand);
	header_line(f, "features", "%s", fm_cpu_features_detected());
	if (strcmp(fm_cpu_features(), fm_cpu_features_detected()))
		header_line(f, "usable", "%s (FASTMEM_DISABLE)",
			    fm_cpu_features());
	fmt_size(ci.l1d, a, sizeof(a));
	fmt_size(ci.l2, b, sizeof(b));
	fmt_size(ci.l3, c, sizeof(c));
	header_line(f, "caches",
		    "line %zu B, L1d %s, L2 %s (shared by %u), L3 %s (shared "
		    "by %u)",
		    ci.line, a, b, ci.l2_sharing, c, ci.l3_sharing);
	char sel[400];
	size_t sl = 0;
	for (int op = 0; op < FM_OP_COUNT; op++)
		sl += (size_t)snprintf(
			sel + sl, sizeof(sel) - sl, "%s%s %s%s%s%s",
			op ? ", " : "", fm_op_name(op), fm_selected(op),
			strcmp(fm_selected_reason(op), "auto") ? " [" : "",
			strcmp(fm_selected_reason(op), "auto")
				? fm_selected_reason(op)
				: "",
			strcmp(fm_selected_reason(op), "auto") ? "]" : "");
	header_line(f, "selected", "%s", sel);
	/* thresholds, grouped by where they come from */
	int done[FM_OP_COUNT] = { 0 };
	const char *key = "streams from";
	for (int op = 0; op < FM_OP_COUNT; op++) {
		char line[400], src[300];
		size_t ll = 0;

		if (done[op])
			continue;
		snprintf(src, sizeof(src), "%s", fm_nt_threshold_source(op));
		for (int o = op; o < FM_OP_COUNT; o++) {
			if (done[o] || strcmp(src, fm_nt_threshold_source(o)))
				continue;
			done[o] = 1;
			size_t v = fm_nt_threshold(o);
			if (v == SIZE_MAX)
				snprintf(d, sizeof(d), "never");
			else
				fmt_size(v, d, sizeof(d));
			ll += (size_t)snprintf(line + ll, sizeof(line) - ll,
					       "%s%s %s", ll ? ", " : "",
					       fm_op_name(o), d);
		}
		header_line(f, key, "%s: %s", line, src);
		key = "";
	}
	header_line(f, "reference",
		    "%s memcpy/memset through a volatile "
		    "function pointer%s",
		    libc_name(),
		    fm_preloaded() ? " -- WARNING: libfastmem-preload.so is "
				     "loaded, so the libc rows are libfastmem"
				   : "");
	if (opt.reps > 0)
		header_line(f, "method",
			    "median of %d runs per cell; each run one batch of "
			    ">= %.2g ms;",
			    opt.reps, default_batch_ns() / 1e6);
	else
		header_line(f, "method",
			    "median of %d runs per cell (up to %d while the "
			    "spread is > 10%%); each run",
			    default_reps(), 3 * default_reps());
	if (opt.reps <= 0)
		header_line(
			f, "",
			"is one batch of calls lasting >= %.2g ms (one call "
			"when a call is longer);",
			default_batch_ns() / 1e6);
	header_line(f, "",
		    "every row of a cell runs once per run in rotating order, "
		    "so the reference");
	header_line(f, "",
		    "is interleaved with each variant (ABAB); ± is half the "
		    "interquartile range");
	header_line(f, "",
		    "in %% of the median; N.NNx is the speed relative to the "
		    "reference (ratio of");
	header_line(f, "",
		    "the medians, >1 faster); each row's result is verified "
		    "(sampled) before timing");
	if (BENCH_X86)
		header_line(f, "",
			    "swept (cold) runs of up to 64 KiB touch too few "
			    "lines to evict each other,");
	if (BENCH_X86)
		header_line(f, "",
			    "so the lines they touched are flushed after each "
			    "run, outside the timing");
	header_line(f, "buffers",
		    "mmap, pre-faulted; transparent huge pages %s (system: %s)",
		    opt.thp ? "advised" : "not advised", thp_state());
	fputc('\n', f);
	fflush(f);
}

static void json_machine(FILE *f)
{
	struct fm_cache_info ci;
	char brand[96];

	cpu_brand(brand, sizeof(brand));
	fm_cache_info(&ci);
	fprintf(f, "\"machine\":{\"cpu\":");
	json_str(f, brand);
	fprintf(f, ",\"features\":");
	json_str(f, fm_cpu_features_detected());
	fprintf(f, ",\"usable_features\":");
	json_str(f, fm_cpu_features());
	fprintf(f,
		",\"caches\":{\"line\":%zu,\"l1d\":%zu,\"l2\":%zu,"
		"\"l2_sharing\":%u,\"l3\":%zu,\"l3_sharing\":%u}",
		ci.line, ci.l1d, ci.l2, ci.l2_sharing, ci.l3, ci.l3_sharing);
	fprintf(f, ",\"libc\":");
	json_str(f, libc_name());
	fprintf(f, ",\"preloaded\":%s,\"thp\":",
		fm_preloaded() ? "true" : "false");
	json_str(f, thp_state());
	fprintf(f, ",\"operations\":{");
	for (int op = 0; op < FM_OP_COUNT; op++) {
		size_t v = fm_nt_threshold(op);

		fprintf(f, "%s\"%s\":{\"selected\":", op ? "," : "",
			fm_op_name(op));
		json_str(f, fm_selected(op));
		fprintf(f, ",\"reason\":");
		json_str(f, fm_selected_reason(op));
		if (v == SIZE_MAX)
			fprintf(f, ",\"nt_threshold\":null");
		else
			fprintf(f, ",\"nt_threshold\":%zu", v);
		fprintf(f, ",\"nt_threshold_source\":");
		json_str(f, fm_nt_threshold_source(op));
		fputc('}', f);
	}
	fprintf(f, "}}");
}

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

static const char *unit_name(enum unit u)
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
		"\"rotating, reference interleaved\",\"statistic\":\"median\","
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

/* --- plots
 * --------------------------------------------------------------------- */

static char gnuplot_path[4096];

static const char *plot_ext(void)
{
	const char *dot = strrchr(opt.plot, '.');

	if (dot && !strcmp(dot, ".svg"))
		return "svg";
	if (dot && !strcmp(dot, ".png"))
		return "png";
	return NULL;
}

int plot_check(void)
{
	if (!plot_ext()) {
		fprintf(stderr,
			"fastmem-bench: --plot %s: the file name must end in "
			".svg or .png\n",
			opt.plot);
		exit(2);
	}
	int found =
		!find_in_path("gnuplot", gnuplot_path, sizeof(gnuplot_path));

#ifdef FASTMEM_GNUPLOT
	/* where configure found it, when PATH does not have it */
	if (!found && access(FASTMEM_GNUPLOT, X_OK) == 0) {
		snprintf(gnuplot_path, sizeof(gnuplot_path), "%s",
			 FASTMEM_GNUPLOT);
		found = 1;
	}
#endif
	if (!found) {
		fprintf(stderr, "fastmem-bench: --plot needs gnuplot "
				"(apt-get install gnuplot-nox)\n");
		exit(2);
	}
	return 0;
}

static void gp_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int plot_write(void)
{
	char data[] = "/tmp/fastmem-bench-XXXXXX";
	char script[] = "/tmp/fastmem-bench-gp-XXXXXX";
	int fd1, fd2, np = 0, status;
	FILE *d, *g;
	char brand[96];
	pid_t pid;

	if (!opt.plot)
		return 0;
	for (int i = 0; i < ntables; i++)
		if (tables[i]->plot && tables[i]->nx >= 2 &&
		    tables[i]->unit == UNIT_GBS)
			np++;
	if (!np) {
		fprintf(stderr, "fastmem-bench: nothing to plot\n");
		return 1;
	}
	fd1 = mkstemp(data);
	fd2 = mkstemp(script);
	if (fd1 < 0 || fd2 < 0) {
		perror("fastmem-bench: mkstemp");
		return 1;
	}
	d = fdopen(fd1, "w");
	g = fdopen(fd2, "w");
	cpu_brand(brand, sizeof(brand));

	int cols = np == 1 ? 1 : np == 2 || np == 4 ? 2 : 3;
	int rows = (np + cols - 1) / cols;
	int w = 620 * cols, h = 430 * rows + 40;

	if (!strcmp(plot_ext(), "svg"))
		fprintf(g,
			"set terminal svg size %d,%d dynamic font 'Sans,10' "
			"background rgb 'white'\n",
			w, h);
	else
		fprintf(g,
			"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
			"  set terminal pngcairo size %d,%d font 'Sans,9'\n"
			"} else {\n  set terminal png size %d,%d\n}\n",
			w, h, w, h);
	fprintf(g, "set output ");
	gp_quote(g, opt.plot);
	fprintf(g,
		"\nset termoption noenhanced\nset multiplot layout %d,%d "
		"title ",
		rows, cols);
	char title[256];
	snprintf(title, sizeof(title), "fastmem-bench %s -- %s, %s",
		 opt.cmd_name, brand, libc_name());
	gp_quote(g, title);
	fprintf(g, "\nset logscale x 2\nset grid\nset key top left font ',8'"
		   "\nset ylabel 'GB/s'\nset yrange [0:*]\n"
		   "set style data linespoints\n");

	int index = 0;
	for (int i = 0; i < ntables; i++) {
		struct table *t = tables[i];
		int first = 1;

		if (!(t->plot && t->nx >= 2 && t->unit == UNIT_GBS))
			continue;
		fprintf(g, "set title ");
		gp_quote(g, t->title);
		fprintf(g, "\nset xlabel 'size (log scale)'\nset xtics (");
		/* at most ~12 labelled tics */
		int step = (t->nx + 11) / 12;
		for (int x = 0; x < t->nx; x += step) {
			char s[24];

			fmt_size_short(t->xval[x], s, sizeof(s));
			fprintf(g, "%s\"%s\" %zu", x ? ", " : "", s,
				t->xval[x]);
		}
		fprintf(g, ") rotate by -40\nset xrange [%g:%g]\nplot ",
			(double)t->xval[0] / 1.3,
			(double)t->xval[t->nx - 1] * 1.3);
		for (int s = 0; s < t->ns; s++) {
			int any = 0;

			for (int x = 0; x < t->nx; x++)
				any |= table_cell(t, s, x)->state == CELL_OK;
			if (!any)
				continue;
			for (int x = 0; x < t->nx; x++) {
				const struct cell *c = table_cell(t, s, x);

				if (c->state != CELL_OK)
					continue;
				fprintf(d, "%zu %.6g %.6g %.6g\n", t->xval[x],
					c->v.med, c->v.q1, c->v.q3);
			}
			fprintf(d, "\n\n");
			fprintf(g, "%s'%s' index %d using 1:2 title ",
				first ? "" : ", ", data, index++);
			gp_quote(g, t->series[s].name);
			/* gnuplot cycles 8 colours: dashes tell the rest apart
			 */
			fprintf(g, " lc %d dt %d lw %s pt 7 ps 0.4", s % 8 + 1,
				s / 8 + 1,
				t->series[s].flags & S_REF ? "2.5" : "1.3");
			first = 0;
		}
		fprintf(g, "\n");
	}
	fprintf(g, "unset multiplot\n");
	fclose(d);
	fclose(g);

	pid = fork();
	if (pid == 0) {
		execl(gnuplot_path, "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr,
			"fastmem-bench: gnuplot failed writing %s (script "
			"kept: %s, data: %s)\n",
			opt.plot, script, data);
		return 1;
	}
	unlink(data);
	unlink(script);
	if (opt.format == OUT_TEXT)
		printf("plot: %s (%d panel%s)\n", opt.plot, np,
		       np == 1 ? "" : "s");
	else
		fprintf(stderr, "fastmem-bench: plot written to %s\n",
			opt.plot);
	return 0;
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
