/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate: find, on this machine, the size from which
 * streaming stores beat ordinary ones, for copies and for sets, hot and
 * cold; recommend nt_threshold.<op> values and write them to the config
 * file that libfastmem reads at startup (lib/settings.c).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"

const struct fm_variant *find_variant(enum fm_op op, const char *name)
{
	const struct fm_variant *list;
	size_t n = fm_variants(op, &list);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].name, name))
			return &list[i];
	return NULL;
}

void assign_fn(struct series *s, enum fm_op op, const struct fm_variant *v)
{
	if (op == FM_OP_MEMCPY)
		s->fn.copy = (copy_fn)v->fn.memcpy;
	else
		s->fn.set = v->fn.memset;
}

/* Pick what to compare: the selected policy with the two hints, or the
 * selected variant against the _nt variant of its family. */
static void choose_pair(struct pair *p)
{
	const char *sel = fm_selected(p->op);
	const struct fm_variant *list, *sv = find_variant(p->op, sel);
	const struct fm_variant *t = NULL, *s = NULL;
	size_t n = fm_variants(p->op, &list);
	char want[64], fam[32];

	memset(p->ser, 0, sizeof(p->ser));
	p->ser[0].flags = S_REF;
	p->ser[1].flags = S_NT;
	if (sv && (sv->flags & FM_VARIANT_POLICY)) {
		snprintf(p->ser[0].name, sizeof(p->ser[0].name), "temporal");
		snprintf(p->ser[1].name, sizeof(p->ser[1].name), "streaming");
		snprintf(p->hint, sizeof(p->hint), "fm_%s_hint",
			 p->op == FM_OP_MEMCPY ? "memcpy" : "memset");
		if (p->op == FM_OP_MEMCPY) {
			p->ser[0].fn.copy = copy_temporal;
			p->ser[1].fn.copy = copy_streaming;
		} else {
			p->ser[0].fn.set = set_temporal;
			p->ser[1].fn.set = set_streaming;
		}
		snprintf(p->how, sizeof(p->how),
			 "the selected policy %s: fm_%s_hint(..., "
			 "FM_HINT_TEMPORAL) vs FM_HINT_NONTEMPORAL",
			 sel, p->op == FM_OP_MEMCPY ? "memcpy" : "memset");
		p->found = 1;
		return;
	}
	if (!sv)
		return;
	snprintf(fam, sizeof(fam), "%.*s", (int)strcspn(sel, "_"), sel);
	if (sv->flags & FM_VARIANT_NT) {
		/* forced to a streaming variant: find its temporal sibling */
		s = sv;
		snprintf(want, sizeof(want), "%.*s", (int)(strlen(sel) - 3),
			 sel);
		t = find_variant(p->op, want);
		for (size_t i = 0; !t && i < n; i++)
			if (list[i].usable &&
			    !(list[i].flags & FM_VARIANT_NT) &&
			    !strncmp(list[i].name, fam, strlen(fam)))
				t = &list[i];
	} else {
		t = sv;
		snprintf(want, sizeof(want), "%s_nt", sel);
		s = find_variant(p->op, want);
		if (s && !s->usable)
			s = NULL;
		for (size_t i = 0; !s && i < n; i++)
			if (list[i].usable && (list[i].flags & FM_VARIANT_NT) &&
			    !strncmp(list[i].name, fam, strlen(fam)))
				s = &list[i];
		for (size_t i = 0; !s && i < n; i++)
			if (list[i].usable && (list[i].flags & FM_VARIANT_NT))
				s = &list[i];
	}
	if (!t || !s || !t->usable || !s->usable)
		return;
	snprintf(p->ser[0].name, sizeof(p->ser[0].name), "%s", t->name);
	snprintf(p->ser[1].name, sizeof(p->ser[1].name), "%s", s->name);
	assign_fn(&p->ser[0], p->op, t);
	assign_fn(&p->ser[1], p->op, s);
	snprintf(p->how, sizeof(p->how),
		 "the selected %s variant %s is not a policy: %s (temporal) vs "
		 "%s (streaming)",
		 p->op == FM_OP_MEMCPY ? "memcpy" : "memset", sel, t->name,
		 s->name);
	p->found = 1;
}

/*
 * The crossover: the point x that best splits the sizes into "streaming
 * does not win" below and "streaming wins" from x up, counting the sizes
 * each split gets wrong (ratios within 2% of 1 count for neither side; ties
 * go to the larger x).  -1 if the best split is "never", or if streaming
 * does not win by WIN in the median above the split.  A change point, not
 * the first win, so that one noisy size cannot move it.
 */
double median_of(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double tmp = v[j];
			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int crossover(struct table *t, int *wrong_above, int *wrong_below)
{
	int best = t->nx, best_cost = 1 << 30;

	for (int x = t->nx; x >= 0; x--) {
		int cost = 0;

		for (int y = 0; y < t->nx; y++) {
			const struct cell *c = table_cell(t, 1, y);
			double r = c->state == CELL_OK ? c->ratio : 0;

			if (y < x && r >= WIN)
				cost++;
			else if (y >= x && r < 2 - WIN)
				cost++;
		}
		if (cost < best_cost) {
			best_cost = cost;
			best = x;
		}
	}
	*wrong_above = *wrong_below = 0;
	if (best >= t->nx)
		return -1;
	double above[MAX_POINTS];
	int na = 0;
	for (int y = 0; y < t->nx; y++) {
		double r = table_cell(t, 1, y)->ratio;

		if (y >= best) {
			above[na++] = r;
			*wrong_above += r < 2 - WIN;
		} else {
			*wrong_below += r >= WIN;
		}
	}
	/* the median of the ratios from the crossover up */
	return median_of(above, na) >= WIN ? best : -1;
}

static int pick_sizes(size_t *out)
{
	int n = 0;
	size_t max = opt.max ? opt.max : opt.quick ? 64 * MIB : 256 * MIB;

	if (opt.nsizes) {
		memcpy(out, opt.sizes, sizeof(size_t) * (size_t)opt.nsizes);
		n = opt.nsizes;
	} else {
		/* 4 KiB (below it the hints are ignored) up: octaves, or half
		 * octaves without --quick */
		for (size_t v = 4 * KIB; v <= max && n < MAX_POINTS - 1;
		     v *= 2) {
			out[n++] = v;
			if (!opt.quick && v + v / 2 <= max)
				out[n++] = v + v / 2;
		}
	}
	qsort(out, (size_t)n, sizeof(*out), cmp_size);
	return n;
}

/* --- the measurement
 * ------------------------------------------------------------ */

static void measure_pair(struct pair *p, const size_t *sizes, int nsizes,
			 unsigned modes, char *src, char *dst, size_t side)
{
	size_t pos = 0;
	int verified[MAX_POINTS][2]; /* by size: the same in both modes */

	memset(verified, 0, sizeof(verified));
	for (int mi = 0; mi < 2; mi++) {
		unsigned m = mi == 0 ? MODE_HOT : MODE_COLD;
		struct table *t;
		char id[64];

		p->x[mi] = -1;
		if (!(modes & m))
			continue;
		p->measured[mi] = 1;
		snprintf(id, sizeof(id), "calibrate %s %s", p->what,
			 mi == 0 ? "hot" : "cold");
		t = p->tab[mi] = table_new(id, UNIT_GBS, 0);
		snprintf(t->title, sizeof(t->title),
			 "calibrate %s, %s: GB/s, streaming vs temporal",
			 p->what, mi == 0 ? "hot" : "cold");
		snprintf(t->subtitle, sizeof(t->subtitle),
			 "%s; ratio: median of the per-run ratios",
			 mi == 0 ? "the same buffers every call"
			 : p->op == FM_OP_MEMCPY
				 ? "source and destination swept over "
				   "the regions"
				 : "destination swept over the region");
		t->plot = PLOT_SIZES;
		t->ns = 2;
		memcpy(t->series, p->ser, sizeof(p->ser));
		for (int x = 0; x < nsizes; x++)
			table_add_point(t, sizes[x], NULL);
		for (int x = 0; x < nsizes; x++) {
			struct job jobs[2];
			struct cell out[2];
			size_t n = sizes[x], st = sweep_stride(n);
			size_t slots = (side - PAGE) / st;

			if (!slots || mi == 0)
				slots = 1;
			pos %= slots;
			activity("calibrate %s %s %s", p->what,
				 mi == 0 ? "hot" : "cold", t->xlabel[x]);
			for (int s = 0; s < 2; s++) {
				struct job *j = &jobs[s];

				memset(j, 0, sizeof(*j));
				j->s = &t->series[s];
				j->src = src + PAGE;
				j->dst = dst + PAGE;
				j->n = n;
				j->slots = slots;
				j->flush = mi && sweep_flush(n, slots);
				j->pos = &pos;
				j->bytes = (double)n;
				j->ops = 1;
				if (p->op == FM_OP_MEMCPY) {
					j->run = run_copy;
					j->verify = verify_copy;
					j->sstep = j->dstep = mi ? st : 0;
				} else {
					j->run = run_set;
					j->verify = verify_set;
					j->dstep = mi ? st : 0;
				}
			}
			measure_cell(jobs, 2, 0, UNIT_GBS, out, verified[x]);
			/* the two rows run back to back in every run: decide on
			 * the paired ratios, which drifting load cancels out of
			 */
			out[1].ratio = decision_ratio(&out[1]);
			for (int s = 0; s < 2; s++)
				*table_cell(t, s, x) = out[s];
			progress_step(activity_text());
		}
		progress_end();
		int wa, wb;
		p->x[mi] = crossover(t, &wa, &wb);
		if (p->x[mi] >= 0)
			snprintf(t->footer, sizeof(t->footer),
				 "   streaming wins from %s: from there up it "
				 "loses at %d of %d sizes, below it wins at %d "
				 "of %d\n",
				 t->xlabel[p->x[mi]], wa, t->nx - p->x[mi], wb,
				 p->x[mi]);
		else
			snprintf(
				t->footer, sizeof(t->footer),
				"   streaming does not win (by >= %.0f%%) from "
				"any size up in this range\n",
				(WIN - 1) * 100);
		table_emit(t);
	}
}

static void recommend(struct pair *p, size_t maxsize)
{
	int h = p->x[0], c = p->x[1];
	struct table *th = p->tab[0], *tc = p->tab[1];
	enum basis b = opt.basis;
	char a[24];

	if (!p->measured[0])
		b = BASIS_COLD;
	else if (!p->measured[1])
		b = BASIS_HOT;
	fmt_size(maxsize, a, sizeof(a));
	p->rec = 0;
	if (b == BASIS_COLD || b == BASIS_HOT) {
		int x = b == BASIS_COLD ? c : h;
		struct table *t = b == BASIS_COLD ? tc : th;

		if (x >= 0) {
			p->rec = t->xval[x];
			snprintf(p->why, sizeof(p->why),
				 "basis %s: the %s crossover",
				 b == BASIS_COLD ? "cold" : "hot",
				 b == BASIS_COLD ? "cold" : "hot");
		} else if (b == BASIS_COLD) {
			p->rec = SIZE_MAX;
			snprintf(p->why, sizeof(p->why),
				 "streaming never wins cold up to %s", a);
		} else {
			snprintf(p->why, sizeof(p->why),
				 "streaming never wins hot up to %s: no "
				 "evidence, threshold left alone (try --max "
				 "larger)",
				 a);
		}
		return;
	}
	if (c < 0) {
		p->rec = SIZE_MAX;
		snprintf(p->why, sizeof(p->why),
			 "streaming never wins even cold, up to %s", a);
	} else if (h < 0) {
		snprintf(p->why, sizeof(p->why),
			 "streaming wins cold from %s but never hot up to %s: "
			 "threshold left alone (try --max larger, or --basis "
			 "cold)",
			 tc->xlabel[c], a);
	} else {
		size_t hv = th->xval[h], cv = tc->xval[c];

		p->rec = hv > cv ? hv : cv;
		snprintf(p->why, sizeof(p->why),
			 "the larger of the hot (%s) and cold (%s) crossovers: "
			 "streaming wins whether or not the data was cached",
			 th->xlabel[h], tc->xlabel[c]);
	}
}

/* Does this pair write its cold crossover too?  With both bases measured:
 * the threshold then says where streaming wins whatever the residency. */
int writes_cold(const struct pair *p)
{
	return opt.basis == BASIS_BOTH && p->measured[0] && p->measured[1] &&
	       !p->held;
}

/* --- the command -----------------------------------------------------------
 */

int calibrate_check(void)
{
	char path[4096];
	const char *whence;

	if (config_path(path, sizeof(path), &whence))
		return 1;
	return trace_load();
}

static void setup_pairs(struct pair pairs[2])
{
	memset(pairs, 0, 2 * sizeof(pairs[0]));
	pairs[0].op = FM_OP_MEMCPY;
	pairs[0].what = "copy";
	pairs[1].op = FM_OP_MEMSET;
	pairs[1].what = "set";
	for (int i = 0; i < 2; i++) {
		pairs[i].x[0] = pairs[i].x[1] = -1;
		choose_pair(&pairs[i]);
		if (pairs[i].found)
			note("%s: %s", pairs[i].what, pairs[i].how);
		else
			note("%s: no streaming variant to compare with the "
			     "selected %s (%s), and it is not a policy: "
			     "nothing to calibrate",
			     pairs[i].what,
			     pairs[i].op == FM_OP_MEMCPY ? "memcpy" : "memset",
			     fm_selected(pairs[i].op));
	}
}

/* Both pairs, hot and cold as --mode says, with their recommendations. */
static void measure_pairs(struct pair pairs[2], unsigned modes)
{
	size_t sizes[MAX_POINTS];
	int nsizes = pick_sizes(sizes), nfound = 0;
	size_t side, maxn = sizes[nsizes - 1];
	char *src, *dst, a[24];

	if (ntrace)
		trace_skip(pairs, sizes[0]);
	for (int i = 0; i < 2; i++)
		nfound += pairs[i].found && !pairs[i].skip[0];
	if (!nfound)
		return;
	side = region_total(CMD_CALIBRATE) / 2;
	if (side < PAGE + 4 * sweep_stride(maxn))
		side = (PAGE + 4 * sweep_stride(maxn) + MIB - 1) & ~(MIB - 1);
	fmt_size(side, a, sizeof(a));
	note("buffers: source and destination regions of %s each", a);
	src = buf_alloc(side, 0x11);
	dst = buf_alloc(side, 0x22);
	progress_begin((long)nfound * nsizes *
		       (!!(modes & MODE_HOT) + !!(modes & MODE_COLD)));
	for (int i = 0; i < 2; i++) {
		if (!pairs[i].found || pairs[i].skip[0])
			continue;
		measure_pair(&pairs[i], sizes, nsizes, modes, src, dst, side);
		recommend(&pairs[i], maxn);
	}
	progress_end();
	buf_free(src, side);
	buf_free(dst, side);
}

int cmd_calibrate(void)
{
	struct pair pairs[2];
	struct repcal rep[2];
	unsigned modes = opt.modes ? opt.modes : MODE_HOT | MODE_COLD;
	char path[4096];
	const char *whence = "";

	if (config_path(path, sizeof(path), &whence))
		return 1;
	setup_pairs(pairs);
	measure_pairs(pairs, modes);
	if (ntrace)
		trace_decide(pairs);
	rep_calibrate(rep, modes);
	return calibrate_decide(pairs, rep, path, whence);
}
