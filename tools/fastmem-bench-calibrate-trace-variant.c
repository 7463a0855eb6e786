/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate --trace: the memcpy and memset variant, every
 * usable policy variant replayed against the current one.
 */
#include "config.h"

#include <string.h>

#include "calibrate-trace.h"

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
/* the variant keys written ("memcpy", "memset"; NULL none) */
static const char *variant_written[2];

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

void trace_pick_variants(char *src, char *dst)
{
	vp[0].op = FM_OP_MEMCPY;
	vp[0].key = "memcpy";
	vp[1].op = FM_OP_MEMSET;
	vp[1].key = "memset";
	for (int i = 0; i < 2; i++) {
		pick_variant(&vp[i], src, dst);
		if (vp[i].chosen)
			variant_written[i] = vp[i].key;
	}
}

void trace_report_variants(void)
{
	for (int i = 0; i < 2; i++)
		if (vp[i].ns)
			report_variant(&vp[i]);
		else
			printf("== calibrate --trace: the %s variant\n   -> "
			       "keep %s: %s\n\n",
			       vp[i].key, fm_selected(vp[i].op), vp[i].why);
}

void trace_json_variants(void)
{
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
}

const char *trace_variant(int i, const char **why)
{
	const struct varpick *v = &vp[i];

	*why = v->why;
	return variant_written[i] ? v->ser[v->chosen].name : NULL;
}
