/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate --trace: the streaming thresholds weighed by the
 * recorded sizes.  The limits the keys would set are compared with the
 * current ones; where recorded calls lie between, the current limits and
 * the keys' are replayed through an emulation (the pair's temporal or
 * streaming call, as each limit says), and a pair whose keys do not win
 * is held.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "calibrate-trace.h"

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

long trace_weigh_thresholds(const struct pair *pairs, const int files[DIST_OPS])
{
	long steps = 0;

	for (int i = 0; i < 2; i++) {
		const struct pair *p = &pairs[i];

		if (!p->found || p->skip[0])
			continue;
		weigh_thresholds(p, &tc[i]);
		if (tc[i].checked && tc[i].touched)
			steps += (long)trace_runs() * files[trace_op(p->op)] *
				 (!!(thr_mask(p, &tc[i]) & 2) +
				  !!(thr_mask(p, &tc[i]) & 4));
	}
	return steps;
}

void trace_verify_thresholds(struct pair *pairs, char *src, char *dst)
{
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
}

void trace_report_thresholds(const struct pair *pairs)
{
	for (int i = 0; i < 2; i++) {
		if (pairs[i].skip[0])
			printf("== calibrate --trace: %s thresholds\n   -> not "
			       "measured: %s\n\n",
			       pairs[i].what, pairs[i].skip);
		else if (pairs[i].found)
			report_thresholds(&pairs[i], &tc[i]);
	}
}

void trace_json_thresholds(const struct pair *pairs)
{
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
}
