/* SPDX-License-Identifier: MIT */
/*
 * The verdict on a trace: "is it faster for my program?" in seconds.
 *
 * A replay gives ns per call of libc and of fm_* for a sequence drawn from
 * the trace's sizes; the trace also holds how many calls the program made.
 * Their product is the time the program's calls take with each, and the
 * difference the saving.  Where the data of those calls was (L1, LLC,
 * memory) the trace does not say, so every arena is shown, and the saving
 * counts as measured only where the quartiles of the two do not overlap.
 */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "bench.h"
#include "distribution.h"

#define TINY_CALLS                                                             \
	100 /* replay's MIN_CALLS: an op below it is not replayed              \
	     */

static const char *const arena_names[3] = { "L1", "LLC", "memory" };
static int nverdicts; /* JSON members written so far */

/* Before a JSON verdict: the list opened, or a comma. */
static const char *verdicts_sep(void)
{
	if (nverdicts++)
		return ",";
	return json_extra_empty() ? "\"verdicts\":[" : ",\"verdicts\":[";
}

double trace_calls(const struct dist *d, int op)
{
	if (op == DIST_COPY)
		return (double)d->calls[0] + (double)d->calls[1];
	return (double)d->calls[2];
}

/* "17.4 M", "97", "12.3 k": a count in three digits */
static void fmt_count(double n, char *buf, size_t len)
{
	if (n >= 1e6)
		snprintf(buf, len, "%.1f M", n / 1e6);
	else if (n >= 1e4)
		snprintf(buf, len, "%.1f k", n / 1e3);
	else
		snprintf(buf, len, "%.0f", n);
}

/* seconds in a unit that keeps three digits: "0.152 s", "41.2 ms" */
static void fmt_seconds(double s, char *buf, size_t len)
{
	double a = s < 0 ? -s : s;

	if (a >= 1)
		snprintf(buf, len, "%.3g s", s);
	else if (a >= 1e-3)
		snprintf(buf, len, "%.3g ms", s * 1e3);
	else if (a >= 1e-6)
		snprintf(buf, len, "%.3g us", s * 1e6);
	else
		snprintf(buf, len, "%.3g ns", s * 1e9);
}

/* One line of the verdict: text, or a CSV comment (JSON has members). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	if (opt.format == OUT_JSON)
		return;
	if (opt.format == OUT_CSV)
		fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The saving of one arena: median, and the bounds the quartiles allow. */
struct arena_saving {
	int measured;
	double libc, fm;    /* seconds of the program's calls */
	double mid, lo, hi; /* libc - fm: median, worst, best */
};

static struct arena_saving
arena_saving(const struct dist *d, const struct replay_times *t, unsigned a)
{
	struct arena_saving s = { 0 };

	for (int op = 0; op < DIST_OPS; op++) {
		double n = trace_calls(d, op) * 1e-9; /* ns to s */

		if (!t->measured[op][a])
			continue;
		s.measured = 1;
		s.libc += n * t->libc[op][a].med;
		s.fm += n * t->fm[op][a].med;
		s.lo += n * (t->libc[op][a].q1 - t->fm[op][a].q3);
		s.hi += n * (t->libc[op][a].q3 - t->fm[op][a].q1);
	}
	s.mid = s.libc - s.fm;
	return s;
}

/* "the trace holds no call" or "too few calls": 1 if d is such a trace */
static int tiny_trace(const struct dist *d)
{
	double copies = trace_calls(d, DIST_COPY),
	       sets = trace_calls(d, DIST_SET);
	const char *why;

	if (copies >= TINY_CALLS || sets >= TINY_CALLS)
		return 0;
	if (copies + sets == 0)
		why = "no call recorded: nothing went through libfastmem (was "
		      "libfastmem-preload.so loaded? a static or setuid "
		      "program ignores LD_PRELOAD)";
	else
		why = "too few calls to replay or to matter (an operation "
		      "needs 100): libfastmem cannot change this program's "
		      "run time measurably";
	say("verdict %s: %.0f memcpy + %.0f memmove + %.0f memset calls: %s",
	    d->name, (double)d->calls[0], (double)d->calls[1],
	    (double)d->calls[2], why);
	if (opt.format == OUT_JSON) {
		char esc[256];

		json_escape(d->name, esc, sizeof(esc));
		json_extra("%s{\"name\":", verdicts_sep());
		json_extra(
			"\"%s\",\"calls\":{\"memcpy\":%.0f,\"memmove\":%.0f,"
			"\"memset\":%.0f},\"verdict\":\"%s\",\"text\":\"%s\"}",
			esc, (double)d->calls[0], (double)d->calls[1],
			(double)d->calls[2], copies + sets ? "tiny" : "empty",
			why);
	}
	return 1;
}

static void json_verdict(const struct dist *d, const struct arena_saving *s,
			 double run_s, const char *kind, const char *text)
{
	char esc[512];

	json_escape(d->name, esc, sizeof(esc));
	json_extra("%s{\"name\":\"%s\",\"calls\":{\"memcpy\":%.0f,"
		   "\"memmove\":%.0f,\"memset\":%.0f},\"run_seconds\":",
		   verdicts_sep(), esc, (double)d->calls[0],
		   (double)d->calls[1], (double)d->calls[2]);
	if (run_s > 0)
		json_extra("%.6g", run_s);
	else
		json_extra("null");
	json_extra(",\"arenas\":[");
	for (unsigned a = 0, k = 0; a < 3; a++) {
		if (!s[a].measured)
			continue;
		json_extra("%s{\"arena\":\"%s\",\"libc_seconds\":%.6g,"
			   "\"fastmem_seconds\":%.6g,\"saving_seconds\":%.6g,"
			   "\"saving_low\":%.6g,\"saving_high\":%.6g}",
			   k++ ? "," : "", arena_names[a], s[a].libc, s[a].fm,
			   s[a].mid, s[a].lo, s[a].hi);
	}
	json_escape(text, esc, sizeof(esc));
	json_extra("],\"verdict\":\"%s\",\"text\":\"%s\"}", kind, esc);
}

/* The verdict line from the arenas' bounds: faster, slower, neither, or
 * different by arena. */
static const char *verdict_text(const struct arena_saving *s, double per,
				const char *unit, char *buf, size_t len)
{
	int faster = 0, slower = 0, same = 0, n = 0;
	double lo = 0, hi = 0;
	char a[32], b[32];
	size_t k;

	for (unsigned i = 0; i < 3; i++) {
		if (!s[i].measured)
			continue;
		faster += s[i].lo > 0;
		slower += s[i].hi < 0;
		same += s[i].lo <= 0 && s[i].hi >= 0;
		lo = n ? (s[i].mid < lo ? s[i].mid : lo) : s[i].mid;
		hi = n ? (s[i].mid > hi ? s[i].mid : hi) : s[i].mid;
		n++;
	}
	if (faster == n || slower == n) {
		fmt_seconds((faster ? lo : -hi) * per, a, sizeof(a));
		fmt_seconds((faster ? hi : -lo) * per, b, sizeof(b));
		snprintf(buf, len, "%s: %s %s to %s%s in every arena",
			 faster ? "faster" : "slower",
			 faster ? "saves" : "costs", a, b, unit);
		return faster ? "faster" : "slower";
	}
	if (same == n) {
		snprintf(buf, len,
			 "no difference measurable at this noise (the "
			 "quartiles of libc and fastmem overlap in every "
			 "arena)");
		return "none";
	}
	k = (size_t)snprintf(buf, len, "depends on where the data is:");
	for (unsigned i = 0; i < 3 && k < len; i++) {
		if (!s[i].measured)
			continue;
		fmt_seconds(s[i].mid * per, a, sizeof(a));
		k += (size_t)snprintf(buf + k, len - k, "%s %s %s",
				      k > 29 ? "," : "", arena_names[i],
				      s[i].lo > 0 ? "faster"
				      : s[i].hi < 0
					      ? "slower"
					      : "no measurable difference");
		if (k < len && (s[i].lo > 0 || s[i].hi < 0))
			k += (size_t)snprintf(buf + k, len - k, " (%s%s%s)",
					      s[i].lo > 0 ? "saves " : "costs ",
					      a[0] == '-' ? a + 1 : a, unit);
	}
	return "mixed";
}

struct predicted replay_verdict(const struct dist *d,
				const struct replay_times *t, double run_s)
{
	struct predicted p = { 0 };
	struct arena_saving s[3];
	char c1[24], c2[24], line[512], unit[48];
	double calls = trace_calls(d, 0) + trace_calls(d, 1), per = 1;
	const char *kind;

	if (d->format != DIST_TRACE || tiny_trace(d))
		return p;
	fmt_count(trace_calls(d, DIST_COPY), c1, sizeof(c1));
	fmt_count(trace_calls(d, DIST_SET), c2, sizeof(c2));
	say("verdict %s: %s memcpy/memmove and %s memset calls recorded; "
	    "each replayed op weighted by its count:",
	    d->name, c1, c2);
	for (int op = 0; op < DIST_OPS; op++)
		if (!t->measured[op][0] && trace_calls(d, op) > 0)
			say("  %s: %.0f call%s, too few to replay: left out",
			    op ? "memset" : "memcpy/memmove",
			    trace_calls(d, op),
			    trace_calls(d, op) == 1 ? "" : "s");
	say("  %-8s %10s %10s %10s  %-26s %s", "arena", "libc", "fastmem",
	    "saving", "(quartiles)", run_s > 0 ? "of the run" : "per M calls");
	for (unsigned a = 0; a < 3; a++) {
		char x[24], y[24], z[24], lo[24], hi[24], range[56], rel[32];

		s[a] = arena_saving(d, t, a);
		if (!s[a].measured)
			continue;
		fmt_seconds(s[a].libc, x, sizeof(x));
		fmt_seconds(s[a].fm, y, sizeof(y));
		fmt_seconds(s[a].mid, z, sizeof(z));
		fmt_seconds(s[a].lo, lo, sizeof(lo));
		fmt_seconds(s[a].hi, hi, sizeof(hi));
		snprintf(range, sizeof(range), "(%s .. %s)", lo, hi);
		if (run_s > 0)
			snprintf(rel, sizeof(rel), "%+.2g%%",
				 100 * s[a].mid / run_s);
		else
			fmt_seconds(s[a].mid * 1e6 / calls, rel, sizeof(rel));
		say("  %-8s %10s %10s %10s  %-26s %s", arena_names[a], x, y, z,
		    range, rel);
		if (!p.known++) {
			p.lo = p.hi = s[a].mid;
			p.share_lo = p.share_hi = s[a].libc;
			continue;
		}
		p.lo = s[a].mid < p.lo ? s[a].mid : p.lo;
		p.hi = s[a].mid > p.hi ? s[a].mid : p.hi;
		p.share_lo = s[a].libc < p.share_lo ? s[a].libc : p.share_lo;
		p.share_hi = s[a].libc > p.share_hi ? s[a].libc : p.share_hi;
	}
	if (!p.known) {
		say("verdict %s: nothing replayed", d->name);
		return p;
	}
	if (run_s > 0) {
		p.lo /= run_s;
		p.hi /= run_s;
		p.share_lo /= run_s;
		p.share_hi /= run_s;
		snprintf(unit, sizeof(unit), " of a %.3g s run", run_s);
		say("  share of the run in these calls with libc: %.2g%% to "
		    "%.2g%%; saving: %.2g%% to %.2g%% of the run",
		    100 * p.share_lo, 100 * p.share_hi, 100 * p.lo, 100 * p.hi);
	} else {
		per = 1e6 / calls;
		snprintf(unit, sizeof(unit), " per million calls");
		say("  the trace records no run time: the saving is given per "
		    "million calls, not as a share of the program's time");
		p.known = 0;
	}
	kind = verdict_text(s, per, unit, line, sizeof(line));
	say("verdict %s: %s", d->name, line);
	if (opt.format == OUT_JSON)
		json_verdict(d, s, run_s, kind, line);
	return p;
}

void replay_verdicts_end(void)
{
	if (nverdicts)
		json_extra("]");
	nverdicts = 0;
}
