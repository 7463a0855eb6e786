/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate: where rep movsb / rep stosb take over from the
 * vector loop (x86 with ERMS): the selected family's plain vector variant
 * against erms, hot (the same buffers every call), sizes 512 B .. 1 MiB.
 * Written as rep_from.memcpy / rep_from.memset, which override the CPU class's
 * crossover; nothing is written where rep never wins in the range (the
 * class's crossover stays).
 */
#include "config.h"

#include <string.h>

#include "calibrate.h"

/* The selected policy's own vector loop: the registry's variant named as
 * the policy without "_auto", which neither chooses nor streams. */
static const struct fm_variant *plain_of(enum fm_op op, const char *sel)
{
	const struct fm_variant *cur = find_variant(op, sel), *v;
	size_t len = strlen(sel);
	char name[64];

	if (!cur || !(cur->flags & FM_VARIANT_POLICY) || !cur->isa[0] ||
	    len < 6 || len >= sizeof(name) || strcmp(sel + len - 5, "_auto"))
		return NULL;
	memcpy(name, sel, len - 5);
	name[len - 5] = 0;
	v = find_variant(op, name);
	if (!v || (v->flags & (FM_VARIANT_POLICY | FM_VARIANT_NT)))
		return NULL;
	return v;
}

static void rep_choose(struct repcal *r)
{
	const struct fm_variant *v = plain_of(r->op, fm_selected(r->op));
	const struct fm_variant *e = find_variant(r->op, "erms");

	if (!v || !v->usable || !e || !e->usable) {
		snprintf(r->why, sizeof(r->why), "not measured: %s",
			 !e || !e->usable ? "no usable erms variant"
					  : "the selected variant is not a "
					    "vector family's policy");
		return;
	}
	r->found = 1;
	memset(r->ser, 0, sizeof(r->ser));
	snprintf(r->ser[0].name, sizeof(r->ser[0].name), "%s", v->name);
	snprintf(r->ser[1].name, sizeof(r->ser[1].name), "%s", e->name);
	r->ser[0].flags = S_REF;
	assign_fn(&r->ser[0], r->op, v);
	assign_fn(&r->ser[1], r->op, e);
}

static void rep_measure(struct repcal *r, char *src, char *dst)
{
	static const size_t sizes[] = { 512,	   KIB,	      2 * KIB,
					4 * KIB,   8 * KIB,   16 * KIB,
					32 * KIB,  64 * KIB,  128 * KIB,
					256 * KIB, 512 * KIB, MIB };
	const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
	int verified[sizeof(sizes) / sizeof(sizes[0])][2];
	char id[64];
	size_t pos = 0;
	struct table *t;
	int wa, wb, x;

	memset(verified, 0, sizeof(verified));
	snprintf(id, sizeof(id), "calibrate %s rep", r->what);
	t = r->t = table_new(id, UNIT_GBS, 0);
	snprintf(t->title, sizeof(t->title),
		 "calibrate %s, hot: GB/s, %s against the vector loop", r->what,
		 r->op == FM_OP_MEMCPY ? "rep movsb" : "rep stosb");
	snprintf(t->subtitle, sizeof(t->subtitle),
		 "the same buffers every call; ratio: median of the per-run "
		 "ratios");
	t->ns = 2;
	memcpy(t->series, r->ser, sizeof(r->ser));
	for (int i = 0; i < nsizes; i++)
		table_add_point(t, sizes[i], NULL);
	for (int i = 0; i < nsizes; i++) {
		struct job jobs[2];
		struct cell out[2];

		activity("calibrate %s rep %s", r->what, t->xlabel[i]);
		for (int k = 0; k < 2; k++) {
			struct job *j = &jobs[k];

			memset(j, 0, sizeof(*j));
			j->s = &t->series[k];
			j->src = src + PAGE;
			j->dst = dst + PAGE;
			j->n = sizes[i];
			j->slots = 1;
			j->pos = &pos;
			j->bytes = (double)sizes[i];
			j->ops = 1;
			j->run = r->op == FM_OP_MEMCPY ? run_copy : run_set;
			j->verify = r->op == FM_OP_MEMCPY ? verify_copy
							  : verify_set;
		}
		measure_cell(jobs, 2, 0, UNIT_GBS, out, verified[i]);
		out[1].ratio = decision_ratio(&out[1]);
		for (int k = 0; k < 2; k++)
			*table_cell(t, k, i) = out[k];
		progress_step(activity_text());
	}
	/* not r->ser[1].name: GCC's -Wrestrict cannot tell it from r->why */
	const char *rep_insn =
		r->op == FM_OP_MEMCPY ? "rep movsb" : "rep stosb";

	x = crossover(t, &wa, &wb);
	/* one size alone at the top of the range is no crossover */
	if (x >= 0 && x > t->nx - 2)
		x = -1;
	r->x = x;
	if (x >= 0) {
		r->rec = t->xval[x];
		snprintf(r->why, sizeof(r->why),
			 "%s wins hot from %s (from there up it loses at %d "
			 "of %d sizes, below it wins at %d of %d)",
			 rep_insn, t->xlabel[x], wa, t->nx - x, wb, x);
	} else {
		snprintf(r->why, sizeof(r->why),
			 "%s does not win hot (by >= %.0f%%) from any size up "
			 "to %s (at two sizes or more): the CPU class's "
			 "crossover stays",
			 rep_insn, (WIN - 1) * 100, t->xlabel[t->nx - 1]);
	}
	snprintf(t->footer, sizeof(t->footer), "   %s\n", r->why);
	table_emit(t);
}

/* Measure both crossovers where they can be (hot mode, no --trace). */
void rep_calibrate(struct repcal rep[2], unsigned modes)
{
	rep[0] = (struct repcal){ .op = FM_OP_MEMCPY,
				  .what = "copy",
				  .key = "rep_from.memcpy",
				  .x = -1 };
	rep[1] = (struct repcal){ .op = FM_OP_MEMSET,
				  .what = "set",
				  .key = "rep_from.memset",
				  .x = -1 };
	for (int i = 0; i < 2; i++) {
		if (ntrace)
			snprintf(rep[i].why, sizeof(rep[i].why),
				 "not measured with --trace");
		else if (!(modes & MODE_HOT))
			snprintf(rep[i].why, sizeof(rep[i].why),
				 "not measured: it is measured hot (--mode "
				 "hot)");
		else
			rep_choose(&rep[i]);
	}
	if (!rep[0].found && !rep[1].found)
		return;

	size_t rside = MIB + 2 * PAGE;
	char *rsrc = buf_alloc(rside, 0x33), *rdst = buf_alloc(rside, 0x44);

	progress_begin(24);
	for (int i = 0; i < 2; i++)
		if (rep[i].found)
			rep_measure(&rep[i], rsrc, rdst);
	progress_end();
	buf_free(rsrc, rside);
	buf_free(rdst, rside);
}
