/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: the header (the machine, the library's choices, the
 * method) as text, and the machine as JSON.
 */
#include "config.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#if BENCH_X86
#include <cpuid.h>
#endif
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

/* --- machine description -------------------------------------------------- */

void cpu_brand(char *buf, size_t len)
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

const char *libc_name(void)
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
	/* run times a program, not cells: what follows is about cells (its
	 * --trace replay has some) */
	if (opt.cmd == CMD_RUN && !opt.ntraces) {
		fputc('\n', f);
		return;
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
		    "every row of a cell runs once per run, in an order that "
		    "changes every run");
	header_line(f, "",
		    "so that each row follows every other equally often; "
		    "the reference is");
	header_line(f, "", "interleaved with each variant (ABAB);");
	header_line(f, "",
		    "± is half the interquartile range in %% of the median; "
		    "N.NNx is the speed");
	header_line(f, "",
		    "relative to the reference (ratio of the medians, >1 "
		    "faster); each row's");
	header_line(f, "", "result is verified (sampled) before timing");
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

void json_machine(FILE *f)
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
