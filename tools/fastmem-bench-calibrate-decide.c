/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate: the decisions.  Every key it may write belongs
 * to one; a decision is written only when its effect was measured beyond
 * the noise of its cells, and never with --quick.  The summary lists each
 * with its evidence, the block written to the config file holds the
 * written ones under a comment with theirs, and JSON has them all.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"

/* --- decisions ------------------------------------------------------------ */

#define MAX_DECISIONS 12

struct decision decisions[MAX_DECISIONS];
int ndecisions;

struct decision *decision_add(const char *what, const char *key0,
			      const char *key1)
{
	struct decision *d = &decisions[ndecisions];

	if (ndecisions < MAX_DECISIONS - 1)
		ndecisions++;
	memset(d, 0, sizeof(*d));
	snprintf(d->what, sizeof(d->what), "%s", what);
	d->keys[0] = key0;
	d->keys[1] = key1;
	return d;
}

/* FMTEST_BENCH_FORCE_SPREAD: a test hook (test/calibrate.sh), so that a
 * noisy measurement can be had on demand; -1 when unset or not a number */
static double forced_spread(void)
{
	const char *f = getenv("FMTEST_BENCH_FORCE_SPREAD");
	char *end;
	double v;

	if (!f || !*f)
		return -1;
	v = strtod(f, &end);
	return *end || !(v >= 0) ? -1 : v;
}

/* FMTEST_BENCH_FORCE_RATIO: the other test hook, so that the tests of what
 * calibrate writes do not depend on streaming winning on the machine that
 * runs them; 0 when unset or not a positive number */
static double forced_ratio(void)
{
	const char *f = getenv("FMTEST_BENCH_FORCE_RATIO");
	char *end;
	double v;

	if (!f || !*f)
		return 0;
	v = strtod(f, &end);
	return *end || !(v > 0) ? 0 : v;
}

double decision_ratio(const struct cell *c)
{
	double f = forced_ratio();

	return f > 0 ? f : c->pratio;
}

double decision_spread(const struct cell *c)
{
	double f = forced_spread();

	if (f >= 0)
		return f;
	return c->v.med > 0 ? (c->v.q3 - c->v.q1) / 2 / c->v.med : 1;
}

int beyond_noise(const struct table *t, int x, const char *who, char *why,
		 size_t len)
{
	double ratio[MAX_POINTS], noise[MAX_POINTS], r, e, z;
	int n = 0;

	for (int y = x < 0 ? 0 : x; y < t->nx; y++) {
		const struct cell *a = &t->cells[y];
		const struct cell *b = &t->cells[MAX_POINTS + y];
		double sa, sb;

		if (a->state != CELL_OK || b->state != CELL_OK)
			continue;
		ratio[n] = b->ratio;
		sa = decision_spread(a);
		sb = decision_spread(b);
		noise[n++] = sa > sb ? sa : sb;
	}
	if (!n) {
		snprintf(why, len, "no cell of %s was measured", t->id);
		return 0;
	}
	r = median_of(ratio, n);
	z = median_of(noise, n);
	/* from the crossover up row 1 should win; "never": lose */
	e = x < 0 ? 1 - r : r - 1;
	snprintf(why, len,
		 "%s: %s at %.2fx (median ratio of %d size%s %s%s), so the "
		 "effect is %.1f%% against cells spread ±%.1f%% (median%s): "
		 "%s the noise",
		 t->id, who, r, n, n == 1 ? "" : "s",
		 x < 0 ? "in the range, claimed a loss"
		       : "from the crossover up, claimed a win",
		 forced_ratio() > 0 ? ", FMTEST_BENCH_FORCE_RATIO" : "",
		 100 * e, 100 * z,
		 forced_spread() >= 0 ? ", FMTEST_BENCH_FORCE_SPREAD" : "",
		 e > z ? "beyond" : "within");
	return e > z;
}

/* d->why += text (with "; " between) */
static void why_add(struct decision *d, const char *text)
{
	size_t l = strlen(d->why);

	snprintf(d->why + l, sizeof(d->why) - l, "%s%s", l ? "; " : "", text);
}

/* The threshold keys of a pair, gated on the tables its value came from. */
static void pair_decision(const struct pair *p)
{
	int copy = p->op == FM_OP_MEMCPY;
	struct decision *d = decision_add(
		copy ? "copy threshold" : "set threshold",
		copy ? "nt_threshold.memcpy" : "nt_threshold.memset",
		copy	 ? "nt_threshold.memmove"
		: ntrace ? NULL /* no trace records page clears */
			 : "nt_threshold.clear_page");
	enum basis b = opt.basis;
	char g[300];
	int ok = 1;

	if (!p->found || p->skip[0] || p->held || !p->rec) {
		why_add(d, !p->found	? "nothing to compare: no streaming "
					  "variant usable here"
			   : p->skip[0] ? p->skip
			   : p->held	? "--trace held back what this run "
					  "measured (see above)"
					: p->why);
		return;
	}
	d->measured = 1;
	fmt_size_short(p->rec, d->value, sizeof(d->value));
	why_add(d, p->why);
	if (!p->measured[0])
		b = BASIS_COLD;
	else if (!p->measured[1])
		b = BASIS_HOT;
	for (int m = 0; m < 2; m++) {
		/* the tables the value came from: hot unless basis cold, cold
		 * unless basis hot ("never" comes from the cold one alone) */
		if ((m == 0 && (b == BASIS_COLD || p->rec == SIZE_MAX)) ||
		    (m == 1 && b == BASIS_HOT))
			continue;
		ok &= beyond_noise(p->tab[m], p->x[m], "streaming", g,
				   sizeof(g));
		why_add(d, g);
	}
	d->write = ok;
}

/* The cold crossover keys (the residency probe's limit), basis both. */
static void cold_decision(const struct pair *p)
{
	int copy = p->op == FM_OP_MEMCPY;
	struct decision *d = decision_add(
		copy ? "copy cold crossover" : "set cold crossover",
		copy ? "stream_cold.memcpy" : "stream_cold.memset",
		copy ? "stream_cold.memmove" : NULL);
	char g[300];

	if (!p->found || p->skip[0] || !writes_cold(p)) {
		why_add(d, !p->found || p->skip[0]
				   ? "not measured"
				   : "written only with --basis both, both "
				     "modes measured and nothing held back "
				     "by --trace");
		return;
	}
	d->measured = 1;
	if (p->x[1] >= 0)
		fmt_size_short(p->tab[1]->xval[p->x[1]], d->value,
			       sizeof(d->value));
	else
		snprintf(d->value, sizeof(d->value), "never");
	why_add(d, "the cold crossover: from there streaming wins on data "
		   "the residency probe finds cold");
	d->write = beyond_noise(p->tab[1], p->x[1], "streaming", g, sizeof(g));
	why_add(d, g);
}

static void rep_decision(const struct repcal *r)
{
	struct decision *d =
		decision_add(r->op == FM_OP_MEMCPY ? "rep movsb" : "rep stosb",
			     r->key, NULL);
	char g[300];

	why_add(d, r->why);
	if (!r->rec)
		return;
	d->measured = 1;
	fmt_size_short(r->rec, d->value, sizeof(d->value));
	d->write = beyond_noise(r->t, r->x, r->ser[1].name, g, sizeof(g));
	why_add(d, g);
}

static void threads_decision(void)
{
	struct decision *d = decision_add("threads", "threads", NULL);
	double effect = 0, noise = 0;
	char why[512], g[160];
	unsigned n = parallel_calibrate(why, sizeof(why), &effect, &noise);

	if (forced_spread() >= 0)
		noise = forced_spread();

	why_add(d, why);
	if (!n)
		return;
	d->measured = 1;
	snprintf(d->value, sizeof(d->value), "%u", n);
	d->write = effect > noise;
	snprintf(g, sizeof(g),
		 "the best count is %.1f%% from the 5%% line, cells spread "
		 "±%.1f%%%s: %s the noise",
		 100 * effect, 100 * noise,
		 forced_spread() >= 0 ? " (FMTEST_BENCH_FORCE_SPREAD)" : "",
		 effect > noise ? "beyond" : "within");
	why_add(d, g);
}

static void variant_decisions(void)
{
	for (int i = 0; i < 2; i++) {
		const char *why, *name = trace_variant(i, &why);
		struct decision *d =
			decision_add(i ? "memset variant (--trace)"
				       : "memcpy variant (--trace)",
				     i ? "memset" : "memcpy", NULL);

		why_add(d, why);
		if (!name)
			continue;
		d->measured = d->write = 1; /* trace's gate: runs, control */
		snprintf(d->value, sizeof(d->value), "%s", name);
	}
}

/* --quick: nothing is written, whatever was measured. */
static void quick_gate(void)
{
	for (int i = 0; i < ndecisions; i++) {
		struct decision *d = &decisions[i];
		char was[sizeof(d->why)];

		if (!opt.quick || !d->measured)
			continue;
		memcpy(was, d->why, sizeof(was));
		/* the precision only tells the compiler that it fits: the
		 * evidence is well under 1300 characters */
		snprintf(d->why, sizeof(d->why), "%s; measured: %.*s",
			 QUICK_WHY, 1300, was);
		d->write = 0;
	}
}

/* --- the summary, the file and JSON --------------------------------------- */

static void print_summary(void)
{
	printf("== calibrate: every key it can write (basis: %s)\n",
	       opt.basis == BASIS_BOTH	? "both, hot and cold"
	       : opt.basis == BASIS_HOT ? "hot"
					: "cold");
	for (int i = 0; i < ndecisions; i++) {
		const struct decision *d = &decisions[i];

		printf("   %s%s%s", d->keys[0], d->keys[1] ? ", " : "",
		       d->keys[1] ? d->keys[1] : "");
		if (d->measured)
			printf(" = %s", d->value);
		printf(": %s\n        (%s: %s)\n",
		       d->write ? "WRITTEN" : "not written", d->what, d->why);
	}
	putchar('\n');
}

/* The lines to write: a header, then each written decision's keys under a
 * comment with its evidence.  Returns the number of decisions in it. */
static int compose_block(char *block, size_t size)
{
	time_t now = time(NULL);
	char when[32];
	size_t bl;
	int n = 0;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&now));
	bl = (size_t)snprintf(block, size,
			      "# fastmem-bench calibrate, %s, libfastmem %s\n",
			      when, fm_version());
	for (int i = 0; i < ndecisions && bl < size; i++) {
		const struct decision *d = &decisions[i];

		if (!d->write)
			continue;
		bl += (size_t)snprintf(block + bl, size - bl,
				       "# fastmem-bench calibrate: %s: %s\n",
				       d->what, d->why);
		for (int k = 0; k < DECISION_KEYS && d->keys[k] && bl < size;
		     k++)
			bl += (size_t)snprintf(block + bl, size - bl,
					       "%s = %s\n", d->keys[k],
					       d->value);
		n++;
	}
	return n;
}

/* Overrides in the environment that outrank what was written. */
static void note_overrides(void)
{
	static const struct {
		const char *key, *env;
	} over[] = {
		{ "memcpy", "FASTMEM_MEMCPY" },
		{ "memset", "FASTMEM_MEMSET" },
		{ "threads", "FASTMEM_THREADS" },
		{ "nt_threshold.memcpy", "FASTMEM_NT_THRESHOLD" },
		{ "nt_threshold.memset", "FASTMEM_NT_THRESHOLD" },
	};

	for (int i = 0; i < ndecisions; i++)
		for (size_t k = 0; k < sizeof(over) / sizeof(over[0]); k++)
			if (decisions[i].write &&
			    !strcmp(decisions[i].keys[0], over[k].key) &&
			    getenv(over[k].env))
				fprintf(stderr,
					"fastmem-bench calibrate: note: %s is "
					"set and overrides the config file's "
					"%s line\n",
					over[k].env, over[k].key);
}

/* Write (or with --dry-run show) the block; 0, or 1 on failure. */
static int write_block(const char *path, const char *whence, int *written)
{
	char block[8192];
	int existed, kept;

	*written = 0;
	if (!compose_block(block, sizeof(block))) {
		if (opt.format == OUT_TEXT)
			printf("nothing to write to %s\n", path);
		return 0;
	}
	if (opt.dry_run) {
		if (opt.format == OUT_TEXT)
			printf("--dry-run: would write to %s (from %s):\n%s",
			       path, whence, block);
		return 0;
	}
	existed = access(path, F_OK) == 0;
	kept = write_config(path, block);
	if (kept < 0)
		return 1;
	*written = 1;
	if (opt.format == OUT_TEXT)
		printf("wrote %s (from %s; %d other line%s kept):\n%s\n"
		       "New processes read it at startup: fastmem-info shows "
		       "these thresholds as \"config (%s)\".\nThis process "
		       "keeps the thresholds it started with.\n",
		       path, whence, kept, kept == 1 ? "" : "s", block, path);
	if (!existed && !strcmp(whence, "FASTMEM_CONFIG"))
		fprintf(stderr,
			"fastmem-bench calibrate: note: %s did not exist when "
			"this process started (hence libfastmem's warning "
			"that it cannot be read); it does now\n",
			path);
	note_overrides();
	return 0;
}

/* The decision of key, NULL if none. */
static const struct decision *decision_of(const char *key)
{
	for (int i = 0; i < ndecisions; i++)
		if (decisions[i].keys[0] && !strcmp(decisions[i].keys[0], key))
			return &decisions[i];
	return NULL;
}

static void json_pair(const struct pair *p, int i)
{
	const struct decision *d =
		decision_of(p->op == FM_OP_MEMCPY ? "nt_threshold.memcpy"
						  : "nt_threshold.memset");
	char esc[600], r[32];

	if (!p->found) {
		json_extra("%s{\"op\":\"%s\",\"found\":false}", i ? "," : "",
			   p->what);
		return;
	}
	if (!p->rec)
		snprintf(r, sizeof(r), "null");
	else if (p->rec == SIZE_MAX)
		snprintf(r, sizeof(r), "\"never\"");
	else
		snprintf(r, sizeof(r), "%zu", p->rec);
	json_escape(p->how, esc, sizeof(esc));
	json_extra("%s{\"op\":\"%s\",\"found\":true,\"compared\":\"%s\","
		   "\"temporal\":\"%s\",\"streaming\":\"%s\","
		   "\"hot_crossover\":",
		   i ? "," : "", p->what, esc, p->ser[0].name, p->ser[1].name);
	if (p->x[0] >= 0)
		json_extra("%zu", p->tab[0]->xval[p->x[0]]);
	else
		json_extra("null");
	json_extra(",\"cold_crossover\":");
	if (p->x[1] >= 0)
		json_extra("%zu", p->tab[1]->xval[p->x[1]]);
	else
		json_extra("null");
	json_extra(",\"recommended\":%s,\"written\":%s}", r,
		   d && d->write ? "true" : "false");
}

static void json_decisions(void)
{
	char esc[2 * sizeof(decisions[0].why)];

	json_extra(",\"decisions\":[");
	for (int i = 0; i < ndecisions; i++) {
		const struct decision *d = &decisions[i];

		json_escape(d->why, esc, sizeof(esc));
		json_extra("%s{\"what\":\"%s\",\"keys\":[\"%s\"", i ? "," : "",
			   d->what, d->keys[0]);
		if (d->keys[1])
			json_extra(",\"%s\"", d->keys[1]);
		json_extra("],\"value\":");
		if (d->measured)
			json_extra("\"%s\"", d->value);
		else
			json_extra("null");
		json_extra(",\"written\":%s,\"why\":\"%s\"}",
			   d->write ? "true" : "false", esc);
	}
	json_extra("]");
}

static void calibration_json(const char *path, int written,
			     const struct pair *pairs, const struct repcal *rep)
{
	char esc[4200];

	json_escape(path, esc, sizeof(esc));
	json_extra("\"calibration\":{\"config\":\"%s\",\"written\":%s,"
		   "\"dry_run\":%s,\"quick\":%s,\"basis\":\"%s\",\"ops\":[",
		   esc, written ? "true" : "false",
		   opt.dry_run ? "true" : "false", opt.quick ? "true" : "false",
		   opt.basis == BASIS_BOTH  ? "both"
		   : opt.basis == BASIS_HOT ? "hot"
					    : "cold");
	for (int i = 0; i < 2; i++)
		json_pair(&pairs[i], i);
	json_extra("],\"rep\":[");
	for (int i = 0; i < 2; i++) {
		const struct decision *d = decision_of(rep[i].key);

		json_escape(rep[i].why, esc, sizeof(esc));
		/* from: the value written, null when none */
		json_extra("%s{\"op\":\"%s\",\"key\":\"%s\",\"measured\":%s,"
			   "\"from\":",
			   i ? "," : "", rep[i].what, rep[i].key,
			   rep[i].found ? "true" : "false");
		if (d && d->write)
			json_extra("%zu", rep[i].rec);
		else
			json_extra("null");
		json_extra(",\"crossover\":");
		if (rep[i].rec)
			json_extra("%zu", rep[i].rec);
		else
			json_extra("null");
		json_extra(",\"why\":\"%s\"}", esc);
	}
	json_extra("]");
	if (opt.calib_parallel) {
		const struct decision *d = decision_of("threads");

		json_escape(d ? d->why : "", esc, sizeof(esc));
		json_extra(",\"parallel\":{\"threads\":%s,\"measured\":%s,"
			   "\"why\":\"%s\"}",
			   d && d->write ? d->value : "0",
			   d && d->measured ? d->value : "0", esc);
	}
	json_decisions();
	if (ntrace)
		trace_json(pairs);
	json_extra("}");
}

int calibrate_decide(const struct pair pairs[2], const struct repcal rep[2],
		     const char *path, const char *whence)
{
	int rc, written;

	ndecisions = 0;
	for (int i = 0; i < 2; i++)
		pair_decision(&pairs[i]);
	for (int i = 0; i < 2; i++)
		cold_decision(&pairs[i]);
	for (int i = 0; i < 2; i++)
		rep_decision(&rep[i]);
	if (opt.calib_parallel)
		threads_decision();
	if (ntrace)
		variant_decisions();
	quick_gate();
	if (opt.format == OUT_TEXT)
		print_summary();
	rc = write_block(path, whence, &written);
	calibration_json(path, written, pairs, rep);
	return rc;
}
