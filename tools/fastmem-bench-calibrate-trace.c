/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate --trace: the decisions weighed by the call sizes
 * a program recorded.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "distribution.h"

/*
 * Every decision --trace adds is a comparison of two ways to run the
 * recorded calls: the current one (what this process runs) and a
 * candidate, replayed (replay's sequences: fixed seed, offsets over the
 * arena) interleaved in TRACE_RUNS separate runs.  Per run, the score is
 * the geometric mean of the candidate's speed ratios over every file and
 * arena; the candidate is written only if the median score beats 1 by
 * more than both WIN and the range of the runs' scores, and its median
 * ratio loses (below 2 - WIN) in no file and arena.
 */
#define TRACE_RUNS 5
#define TRACE_RUNS_QUICK 3
#define MAX_TRACES 32
#define ARENAS 3

static struct dist trace[MAX_TRACES];
int ntrace;
/* the variant keys written ("memcpy", "memset"; NULL none) */
static const char *variant_written[2];
static const char *const arena_names[ARENAS] = { "L1", "LLC", "memory" };

struct verdict {
	/* per file and arena: median and range of the runs' ratios */
	double med[MAX_TRACES][ARENAS], lo[MAX_TRACES][ARENAS],
		hi[MAX_TRACES][ARENAS];
	double score, slo, shi; /* the score over the runs */
	int measured, wins;
};

static int trace_runs(void)
{
	return opt.quick ? TRACE_RUNS_QUICK : TRACE_RUNS;
}

/* Share of d's op calls of sizes in [lo, hi) (a range counts pro rata). */
static double share_between(const struct dist *d, int op, size_t lo, size_t hi)
{
	double w = 0;

	if (d->total[op] <= 0 || lo >= hi)
		return 0;
	for (size_t i = 0; i < d->nr[op]; i++) {
		const struct dist_range *r = &d->r[op][i];
		size_t a = r->lo > lo ? r->lo : lo;
		size_t b = r->hi < hi - 1 ? r->hi : hi - 1;

		if (a <= b)
			w += r->w * (double)(b - a + 1) /
			     (double)(r->hi - r->lo + 1);
	}
	return w / d->total[op];
}

static int trace_op(enum fm_op op)
{
	return op == FM_OP_MEMSET ? DIST_SET : DIST_COPY;
}

static int any_replayable(int dop)
{
	for (int f = 0; f < ntrace; f++)
		if (replayable(&trace[f], dop))
			return 1;
	return 0;
}

/*
 * Measure series ser[0] (the current way) against ser[1..ns) on every
 * file's dop calls in the arenas of mask (bit a: arena a); fill v[s].
 * ser[1] is the control (the current way again); v[0].score is the
 * noise it shows, which a winner's gain must exceed.
 */
static void trace_measure(int dop, unsigned mask, const struct series *ser,
			  int ns, struct verdict *v, char *src, char *dst,
			  void (*before)(unsigned arena))
{
	size_t arena[ARENAS];
	int runs = trace_runs();
	/* [run][file][arena][series] */
	static double r[TRACE_RUNS][MAX_TRACES][ARENAS][MAX_SERIES];

	replay_arenas(arena);
	memset(v, 0, sizeof(*v) * (size_t)ns);
	for (int run = 0; run < runs; run++)
		for (int f = 0; f < ntrace; f++) {
			if (!replayable(&trace[f], dop))
				continue;
			for (unsigned a = 0; a < ARENAS; a++) {
				struct cell out[MAX_SERIES];

				if (!(mask & (1u << a)))
					continue;
				if (before)
					before(a);
				activity("calibrate --trace %s %s %s run %d",
					 trace[f].name,
					 dop == DIST_COPY ? "copies" : "sets",
					 arena_names[a], run + 1);
				/* each candidate in a cell of its own with
				 * the current way: with more rows, the
				 * rotation runs each row after the same
				 * neighbour every time, and a row run after
				 * an identical one gains up to 30% here
				 * (branch history of the same sequence) */
				for (int s = 1; s < ns; s++) {
					struct series two[2] = { ser[0],
								 ser[s] };

					replay_cell(&trace[f], dop, a,
						    arena[a] / 2, two, 2, 0,
						    src, dst, out);
					r[run][f][a][s] =
						out[0].state == CELL_OK &&
								out[1].state ==
									CELL_OK
							? out[1].pratio
							: 0;
				}
				progress_step(activity_text());
			}
		}
	for (int s = 1; s < ns; s++) {
		struct verdict *x = &v[s];
		double sc[TRACE_RUNS], tmp[TRACE_RUNS];
		int loses = 0, bad = 0;

		for (int run = 0; run < runs; run++) {
			double lg = 0;
			int n = 0;

			for (int f = 0; f < ntrace; f++)
				for (unsigned a = 0; a < ARENAS; a++) {
					double q = r[run][f][a][s];

					if (!replayable(&trace[f], dop) ||
					    !(mask & (1u << a)))
						continue;
					if (q <= 0)
						bad = 1;
					else
						lg += log(q);
					n++;
				}
			sc[run] = n ? exp(lg / n) : 0;
		}
		for (int f = 0; f < ntrace; f++)
			for (unsigned a = 0; a < ARENAS; a++) {
				if (!replayable(&trace[f], dop) ||
				    !(mask & (1u << a)))
					continue;
				for (int run = 0; run < runs; run++)
					tmp[run] = r[run][f][a][s];
				x->med[f][a] = median_of(tmp, runs);
				x->lo[f][a] = tmp[0];
				x->hi[f][a] = tmp[runs - 1];
				loses |= x->med[f][a] < 2 - WIN;
			}
		x->score = median_of(sc, runs);
		x->slo = sc[0];
		x->shi = sc[runs - 1];
		x->measured = !bad;
		x->wins = !bad && !loses && x->score - 1 > (WIN - 1) &&
			  x->score - 1 > x->shi - x->slo;
	}
	/* series 1 is the control: the current way again, as a row of its
	 * own; how far it strays from 1 is bias that no real difference
	 * explains, and a candidate must beat that too */
	v[1].wins = 0;
	v[0].score = fabs(v[1].score - 1) + (v[1].shi - v[1].slo);
	for (int s = 2; s < ns; s++)
		v[s].wins &= v[s].score - 1 > v[0].score;
}

/* One candidate's figures, for the report. */
static void print_verdict(const char *name, const struct verdict *x, int dop,
			  unsigned mask, const struct verdict *ctl,
			  double noise)
{
	printf("   %-14s", name);
	if (!x->measured) {
		printf(" WRONG RESULT or not measured: never chosen\n");
		return;
	}
	for (int f = 0; f < ntrace; f++) {
		if (!replayable(&trace[f], dop))
			continue;
		printf("%s%s:", f ? "\n                  " : " ",
		       trace[f].name);
		for (unsigned a = 0; a < ARENAS; a++)
			if (mask & (1u << a))
				printf(" %s %.2fx (%.2f-%.2f)", arena_names[a],
				       x->med[f][a], x->lo[f][a], x->hi[f][a]);
	}
	printf("\n                  score %.2fx (runs %.2f-%.2f): %s\n",
	       x->score, x->slo, x->shi,
	       x->wins	  ? "wins"
	       : x == ctl ? "the control: its distance from 1 is noise"
	       : x->score - 1 <= (WIN - 1) ? "does not win by 2%"
	       : x->score - 1 <= x->shi - x->slo
		       ? "its gain is within the runs' range"
	       : x->score - 1 <= noise
		       ? "its gain is within the control's noise"
		       : "loses somewhere (below 0.98x in a file and arena)");
}

/* --- the per-op variant */

struct varpick {
	enum fm_op op;
	const char *key; /* "memcpy", "memset" */
	const char *current;
	int ns;
	struct series ser[MAX_SERIES];
	struct verdict v[MAX_SERIES];
	int chosen; /* series index, 0: keep the current one */
	char why[300];
};

static struct varpick vp[2];

static void pick_variant(struct varpick *p, char *src, char *dst)
{
	const struct fm_variant *list, *cur;
	size_t n = fm_variants(p->op, &list);
	int dop = trace_op(p->op);
	const unsigned mask = 1u << 0 | 1u << 1; /* L1, LLC */

	p->current = fm_selected(p->op);
	p->ns = 0;
	p->chosen = 0;
	cur = find_variant(p->op, p->current);
	if (!any_replayable(dop)) {
		snprintf(p->why, sizeof(p->why),
			 "no file has %s calls to replay (100 or more in a "
			 "FASTMEM_TRACE file): left alone",
			 p->op == FM_OP_MEMSET ? "memset" : "copy");
		return;
	}
	if (!cur || !cur->usable) {
		snprintf(p->why, sizeof(p->why),
			 "the current %s (%s) is not in the registry: left "
			 "alone",
			 p->key, p->current);
		return;
	}
	/*
	 * The current choice first (the reference), then every other usable
	 * policy variant.  A replay has no read-back and no large calls to
	 * speak of, and the key applies to every call of every program
	 * reading the config: a variant that always streams (or never does)
	 * would be chosen for the small calls and then decide the large ones
	 * unseen.  Policy variants keep the streaming decision.
	 */
	for (size_t i = 0; i <= n && p->ns < MAX_SERIES; i++) {
		const struct fm_variant *x = i ? &list[i - 1] : cur;

		if (i &&
		    (x == cur || !x->usable || !(x->flags & FM_VARIANT_POLICY)))
			continue;
		memset(&p->ser[p->ns], 0, sizeof(p->ser[0]));
		snprintf(p->ser[p->ns].name, sizeof(p->ser[0].name), "%s",
			 x->name);
		assign_fn(&p->ser[p->ns], p->op, x);
		p->ns++;
		if (!i) { /* the control */
			p->ser[p->ns] = p->ser[0];
			snprintf(p->ser[p->ns].name, sizeof(p->ser[0].name),
				 "%s again", x->name);
			p->ns++;
		}
	}
	trace_measure(dop, mask, p->ser, p->ns, p->v, src, dst, NULL);
	for (int s = 2; s < p->ns; s++)
		if (p->v[s].wins &&
		    (!p->chosen || p->v[s].score > p->v[p->chosen].score))
			p->chosen = s;
	if (p->chosen) {
		/* a copy: GCC's -Wrestrict cannot tell the name from why */
		char name[sizeof(p->ser[0].name)];

		memcpy(name, p->ser[p->chosen].name, sizeof(name));
		snprintf(p->why, sizeof(p->why),
			 "%s beats %s by %.0f%% (runs %.2f-%.2fx), more than "
			 "2%%, the runs' range and the control's noise "
			 "(%.0f%%), and loses nowhere",
			 name, p->current, (p->v[p->chosen].score - 1) * 100,
			 p->v[p->chosen].slo, p->v[p->chosen].shi,
			 p->v[0].score * 100);
	} else {
		snprintf(p->why, sizeof(p->why),
			 "no variant beats %s by more than 2%%, the runs' "
			 "range and the control's noise (%.0f%%) without "
			 "losing somewhere: left alone",
			 p->current, p->v[0].score * 100);
	}
}

static void report_variant(const struct varpick *p)
{
	const unsigned mask = 1u << 0 | 1u << 1;

	printf("== calibrate --trace: the %s variant, replayed in the L1 "
	       "and LLC arenas, %d runs\n   ratio: speed relative to %s "
	       "(the current choice), median of the runs (their range)\n",
	       p->key, trace_runs(), p->current);
	for (int s = 1; s < p->ns; s++)
		print_verdict(p->ser[s].name, &p->v[s], trace_op(p->op), mask,
			      &p->v[1], p->v[0].score);
	printf("   -> %s%s%s: %s\n\n", p->chosen ? p->key : "keep ",
	       p->chosen ? " = " : "",
	       p->chosen ? p->ser[p->chosen].name : p->current, p->why);
}

/* --- the thresholds */

/* From which size data found cold streams now, below the threshold
 * (fastmem-info's notes, x86); SIZE_MAX for never or unknown.  *probe: 0
 * when it streams by size whatever the residency. */
static size_t cold_now(enum fm_op op, int *probe)
{
	const char *n = fm_cpu_notes(), *p;
	char key[64];
	unsigned long long v;
	char unit[8] = "";

	*probe = 1;
	snprintf(key, sizeof(key), "below its threshold %s ",
		 op == FM_OP_MEMSET ? "memset" : "memcpy");
	p = strstr(n, key);
	if (!p)
		return SIZE_MAX;
	p += strlen(key);
	if (!strncmp(p, "streams by size from ", 21)) {
		*probe = 0;
		p += 21;
	} else if (!strncmp(p, "streams data found cold from ", 29)) {
		p += 29;
	} else {
		return SIZE_MAX;
	}
	if (sscanf(p, "%llu %7[A-Za-z]", &v, unit) < 1)
		return SIZE_MAX;
	if (!strcmp(unit, "KiB"))
		v <<= 10;
	else if (!strcmp(unit, "MiB"))
		v <<= 20;
	else if (!strcmp(unit, "GiB"))
		v <<= 30;
	return (size_t)v;
}

struct thrcheck {
	int checked;	  /* a decision to weigh (the pair recommends) */
	size_t lim[2][2]; /* [current, candidate][cached, cold arena] */
	double share[MAX_TRACES];
	int touched; /* some file has calls where the two differ */
	double ashare[MAX_TRACES][2]; /* by residency: cached, cold */
	int ns;
	struct series ser[3]; /* current, control, candidate */
	struct verdict v[3];
	int keep; /* 1: write the pair's keys */
	char why[400];
};

static struct thrcheck tc[2];
static const struct pair *emu;
static size_t emu_lim[3]; /* current, control (the same), candidate */

/* the pair's temporal or streaming call, as the limit says */
/* emu_lim[k]: the limit from which the k-th emulation streams */
#define EMU(k)                                                                 \
	static void *copy_emu##k(void *d, const void *s, size_t n)             \
	{                                                                      \
		return (n >= emu_lim[k] ? emu->ser[1].fn.copy                  \
					: emu->ser[0].fn.copy)(d, s, n);       \
	}                                                                      \
	static void *set_emu##k(void *d, int c, size_t n)                      \
	{                                                                      \
		return (n >= emu_lim[k] ? emu->ser[1].fn.set                   \
					: emu->ser[0].fn.set)(d, c, n);        \
	}
EMU(0)
EMU(1)
EMU(2)
#undef EMU

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The limits the pair's keys would set, and do the recorded calls reach
 * where they differ from the current ones? */
static void weigh_thresholds(const struct pair *p, struct thrcheck *t)
{
	int probe, dop = trace_op(p->op);
	size_t nt0 = fm_nt_threshold(p->op), c0 = cold_now(p->op, &probe);
	size_t nt1 = p->rec ? p->rec : nt0, c1 = c0;
	char a[24], b[24], c[24], d[24];
	size_t len;

	memset(t, 0, sizeof(*t));
	if (!nt0)
		nt0 = SIZE_MAX;
	if (writes_cold(p))
		c1 = p->x[1] >= 0 ? p->tab[1]->xval[p->x[1]] : SIZE_MAX;
	/* cached arena: the threshold (the probe finds the data cached);
	 * cold arena: the lower of the two */
	t->lim[0][0] = probe ? nt0 : min_size(nt0, c0);
	t->lim[0][1] = min_size(nt0, c0);
	t->lim[1][0] = probe ? nt1 : min_size(nt1, c1);
	t->lim[1][1] = min_size(nt1, c1);
	if (!p->rec && !writes_cold(p))
		return;
	t->checked = 1;
	for (int f = 0; f < ntrace; f++) {
		for (int k = 0; k < 2; k++) {
			size_t x = t->lim[0][k], y = t->lim[1][k];

			t->ashare[f][k] = share_between(
				&trace[f], dop, min_size(x, y), x > y ? x : y);
			if (t->ashare[f][k] > t->share[f])
				t->share[f] = t->ashare[f][k];
		}
		t->touched |= t->share[f] > 0;
	}
	fmt_size(t->lim[0][0], a, sizeof(a));
	fmt_size(t->lim[0][1], b, sizeof(b));
	fmt_size(t->lim[1][0], c, sizeof(c));
	fmt_size(t->lim[1][1], d, sizeof(d));
	len = (size_t)snprintf(t->why, sizeof(t->why),
			       "streams from %s cached, %s cold now; from %s "
			       "cached, %s cold with the keys",
			       a, b, c, d);
	if (!t->touched)
		snprintf(t->why + len, sizeof(t->why) - len,
			 ": no recorded call lies between: left alone");
}

static struct thrcheck *emu_tc;

/* LLC arena: the cached limits; memory arena: the cold ones */
static void emu_arena(unsigned a)
{
	emu_lim[0] = emu_lim[1] = emu_tc->lim[0][a == 1 ? 0 : 1];
	emu_lim[2] = emu_tc->lim[1][a == 1 ? 0 : 1];
}

/* The arenas to replay: LLC (cached) and memory (cold), as the basis
 * says, each only where the limits differ at some recorded size. */
static unsigned thr_mask(const struct pair *p, const struct thrcheck *t)
{
	unsigned mask = 0;

	for (int f = 0; f < ntrace; f++) {
		if (opt.basis != BASIS_COLD && p->measured[0] &&
		    t->ashare[f][0] > 0)
			mask |= 1u << 1;
		if (opt.basis != BASIS_HOT && p->measured[1] &&
		    t->ashare[f][1] > 0)
			mask |= 1u << 2;
	}
	return mask;
}

static void verify_thresholds(const struct pair *p, struct thrcheck *t,
			      char *src, char *dst)
{
	if (!t->checked || !t->touched)
		return;
	memset(t->ser, 0, sizeof(t->ser));
	snprintf(t->ser[0].name, sizeof(t->ser[0].name), "current");
	snprintf(t->ser[1].name, sizeof(t->ser[1].name), "current again");
	snprintf(t->ser[2].name, sizeof(t->ser[2].name), "with the keys");
	if (p->op == FM_OP_MEMCPY) {
		t->ser[0].fn.copy = copy_emu0;
		t->ser[1].fn.copy = copy_emu1;
		t->ser[2].fn.copy = copy_emu2;
	} else {
		t->ser[0].fn.set = set_emu0;
		t->ser[1].fn.set = set_emu1;
		t->ser[2].fn.set = set_emu2;
	}
	t->ns = 3;
	emu = p;
	emu_tc = t;
	if (!thr_mask(p, t)) {
		t->touched = 0; /* none in the arenas the basis wants */
		return;
	}
	trace_measure(trace_op(p->op), thr_mask(p, t), t->ser, 3, t->v, src,
		      dst, emu_arena);
	t->keep = t->v[2].wins;
}

static void report_thresholds(const struct pair *p, const struct thrcheck *t)
{
	unsigned mask = 0;

	printf("== calibrate --trace: %s thresholds, weighed by the "
	       "recorded %s sizes\n",
	       p->what, p->op == FM_OP_MEMSET ? "memset" : "memcpy+memmove");
	if (!t->checked) {
		printf("   -> nothing to weigh: this run recommends no "
		       "change\n\n");
		return;
	}
	printf("   %s\n", t->why);
	for (int f = 0; f < ntrace; f++)
		if (replayable(&trace[f], trace_op(p->op)))
			printf("   %s: %.4f%% of its calls lie between\n",
			       trace[f].name, t->share[f] * 100);
	if (!t->touched) {
		printf("\n");
		return;
	}
	mask = thr_mask(p, t);
	printf("   replayed with the current limits and with the keys' "
	       "(LLC arena: the cached\n   limit; memory arena: the cold "
	       "one), %d runs; ratio: speed with the keys\n",
	       trace_runs());
	for (int s = 1; s < 3; s++)
		print_verdict(t->ser[s].name, &t->v[s], trace_op(p->op), mask,
			      &t->v[1], t->v[0].score);
	printf("   -> %s (control's noise %.0f%%)\n\n",
	       t->keep ? "write them: they win by more than 2%, the runs' "
			 "range and the control's noise, and lose nowhere"
		       : "left alone: they do not win by more than 2%, the "
			 "runs' range and the control's noise without losing "
			 "somewhere",
	       t->v[0].score * 100);
}

/* Before measuring: a pair no recorded call can reach is not measured. */
void trace_skip(struct pair *pairs, size_t smallest)
{
	for (int i = 0; i < 2; i++) {
		struct pair *p = &pairs[i];
		int probe, dop = trace_op(p->op);
		size_t lo = smallest, mx = 0, nt = fm_nt_threshold(p->op);
		size_t c = cold_now(p->op, &probe);
		char a[24], b[24];

		if (!p->found)
			continue;
		p->x[0] = p->x[1] = -1; /* until measured */
		if (!any_replayable(dop)) {
			snprintf(p->skip, sizeof(p->skip),
				 "no --trace file has %s to replay (100 or "
				 "more in a FASTMEM_TRACE file)",
				 dop == DIST_COPY ? "copies" : "sets");
			continue;
		}
		lo = nt && nt < lo ? nt : lo;
		lo = c < lo ? c : lo;
		for (int f = 0; f < ntrace; f++)
			if (replayable(&trace[f], dop) &&
			    trace[f].max[dop] > mx)
				mx = trace[f].max[dop];
		if (mx >= lo)
			continue;
		fmt_size(mx, a, sizeof(a));
		fmt_size(lo, b, sizeof(b));
		snprintf(p->skip, sizeof(p->skip),
			 "the largest recorded %s, %s, is below %s, the "
			 "smallest size a threshold could move to or from",
			 dop == DIST_COPY ? "copy" : "set", a, b);
	}
}

/* After measuring: the variants, then the pairs' thresholds, replayed. */
void trace_decide(struct pair *pairs)
{
	size_t arena[ARENAS], maxc = 0, side;
	int runs = trace_runs(), files[DIST_OPS] = { 0, 0 };
	long steps = 0;
	char *src, *dst;

	replay_arenas(arena);
	for (int f = 0; f < ntrace; f++)
		for (int op = 0; op < DIST_OPS; op++) {
			size_t m = replay_max_call(&trace[f], op);

			maxc = m > maxc ? m : maxc;
			files[op] += replayable(&trace[f], op);
		}
	vp[0].op = FM_OP_MEMCPY;
	vp[0].key = "memcpy";
	vp[1].op = FM_OP_MEMSET;
	vp[1].key = "memset";
	for (int i = 0; i < 2; i++) {
		struct pair *p = &pairs[i];

		steps += (long)runs * files[trace_op(vp[i].op)] * 2;
		if (!p->found || p->skip[0])
			continue;
		weigh_thresholds(p, &tc[i]);
		if (tc[i].checked && tc[i].touched)
			steps += (long)runs * files[trace_op(p->op)] *
				 (!!(thr_mask(p, &tc[i]) & 2) +
				  !!(thr_mask(p, &tc[i]) & 4));
	}
	side = arena[2] / 2;
	src = buf_alloc(side + maxc + PAGE, 0x11);
	dst = buf_alloc(side + maxc + PAGE, 0x22);
	note("--trace: %d file%s; each decision replayed in %d separate "
	     "runs, interleaved within each",
	     ntrace, ntrace == 1 ? "" : "s", runs);
	for (int f = 0; f < ntrace; f++) {
		const struct dist *x = &trace[f];
		char a[24], b[24];

		fmt_size(x->max[DIST_COPY], a, sizeof(a));
		fmt_size(x->max[DIST_SET], b, sizeof(b));
		if (x->format == DIST_TRACE)
			note("--trace %s: %llu memcpy + %llu memmove calls up "
			     "to %s, %llu memset up to %s",
			     x->name, (unsigned long long)x->calls[0],
			     (unsigned long long)x->calls[1], a,
			     (unsigned long long)x->calls[2], b);
		else
			note("--trace %s: LLVM libc distribution, sizes up "
			     "to %s",
			     x->name, x->total[DIST_COPY] > 0 ? a : b);
	}
	progress_begin(steps);
	for (int i = 0; i < 2; i++) {
		pick_variant(&vp[i], src, dst);
		if (vp[i].chosen)
			variant_written[i] = vp[i].key;
	}
	for (int i = 0; i < 2; i++) {
		struct pair *p = &pairs[i];

		if (!p->found || p->skip[0] || !tc[i].checked)
			continue;
		verify_thresholds(p, &tc[i], src, dst);
		if (!tc[i].keep) {
			p->held = 1;
			p->rec = 0;
		}
	}
	progress_end();
	buf_free(src, side + maxc + PAGE);
	buf_free(dst, side + maxc + PAGE);
	if (opt.format != OUT_TEXT)
		return;
	for (int i = 0; i < 2; i++)
		if (vp[i].ns)
			report_variant(&vp[i]);
		else
			printf("== calibrate --trace: the %s variant\n   -> "
			       "keep %s: %s\n\n",
			       vp[i].key, fm_selected(vp[i].op), vp[i].why);
	for (int i = 0; i < 2; i++) {
		if (pairs[i].skip[0])
			printf("== calibrate --trace: %s thresholds\n   -> not "
			       "measured: %s\n\n",
			       pairs[i].what, pairs[i].skip);
		else if (pairs[i].found)
			report_thresholds(&pairs[i], &tc[i]);
	}
}

void trace_json(const struct pair *pairs)
{
	char esc[200];

	json_extra(",\"trace\":{\"runs\":%d,\"files\":[", trace_runs());
	for (int f = 0; f < ntrace; f++) {
		json_escape(opt.traces[f], esc, sizeof(esc));
		json_extra("%s\"%s\"", f ? "," : "", esc);
	}
	json_extra("],\"variants\":[");
	for (int i = 0; i < 2; i++) {
		const struct varpick *v = &vp[i];

		json_extra("%s{\"op\":\"%s\",\"current\":\"%s\","
			   "\"chosen\":",
			   i ? "," : "", v->key, fm_selected(v->op));
		if (v->chosen)
			json_extra("\"%s\"", v->ser[v->chosen].name);
		else
			json_extra("null");
		json_extra(",\"noise\":%.4f,\"candidates\":[", v->v[0].score);
		for (int s = 1; s < v->ns; s++)
			json_extra("%s{\"name\":\"%s\",\"score\":%.4f,"
				   "\"lo\":%.4f,\"hi\":%.4f,\"wins\":%s}",
				   s > 1 ? "," : "", v->ser[s].name,
				   v->v[s].score, v->v[s].slo, v->v[s].shi,
				   v->v[s].wins ? "true" : "false");
		json_extra("]}");
	}
	json_extra("],\"thresholds\":[");
	for (int i = 0; i < 2; i++) {
		const struct thrcheck *t = &tc[i];

		json_extra("%s{\"op\":\"%s\",\"weighed\":%s,"
			   "\"share_between\":[",
			   i ? "," : "", pairs[i].what,
			   t->checked ? "true" : "false");
		for (int f = 0; f < ntrace; f++)
			json_extra("%s%.6g", f ? "," : "", t->share[f]);
		json_extra("],\"replayed\":%s",
			   t->checked && t->touched ? "true" : "false");
		if (t->checked && t->touched)
			json_extra(",\"score\":%.4f,\"lo\":%.4f,\"hi\":%.4f,"
				   "\"noise\":%.4f",
				   t->v[2].score, t->v[2].slo, t->v[2].shi,
				   t->v[0].score);
		json_extra(",\"written\":%s}", t->keep ? "true" : "false");
	}
	json_extra("]}");
}

/* Load the --trace files (before the header): 0, or 2 with a message. */
int trace_load(void)
{
	char err[512];

	for (int i = 0; i < opt.ntraces; i++) {
		if (dist_load(opt.traces[i], &trace[ntrace], err,
			      sizeof(err))) {
			fprintf(stderr, "fastmem-bench calibrate: --trace %s\n",
				err);
			return 2;
		}
		ntrace++;
	}
	if (ntrace && !any_replayable(DIST_COPY) && !any_replayable(DIST_SET)) {
		fprintf(stderr,
			"fastmem-bench calibrate: --trace: no file has "
			"copies or sets to replay (a FASTMEM_TRACE file needs "
			"100 or more of one): nothing to weigh\n");
		return 2;
	}
	return 0;
}

const char *trace_variant(int i, const char **why)
{
	const struct varpick *v = &vp[i];

	*why = v->why;
	return variant_written[i] ? v->ser[v->chosen].name : NULL;
}
