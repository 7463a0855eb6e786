/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: the rows of a table, from the library's registry: the
 * reference (the system routine), the dispatched fm_* call, every usable
 * variant (filtered by --variant) and the streaming hint rows.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* --- rows from the registry ---------------------------------------------- */

static const char *const dispatch_names[FM_OP_COUNT] = {
	"fm_memcpy",	"fm_memmove",	  "fm_memset",
	"fm_copy_page", "fm_clear_pages",
};

static void sys_copy_page(void *d, const void *s)
{
	sys_memcpy(d, s, PAGE);
}

void libc_clear(void *p, size_t npages)
{
	sys_memset(p, 0, npages * PAGE);
}

static void *sys_memmove_fn(void *d, const void *s, size_t n)
{
	return memmove(d, s, n);
}

static void *(*volatile sys_memmove)(void *, const void *,
				     size_t) = sys_memmove_fn;

int variant_wanted(const char *name)
{
	if (!opt.nvariants)
		return 1;
	for (int i = 0; i < opt.nvariants; i++) {
		if (!strcmp(opt.variants[i], name))
			return 1;
		if (!strncmp(name, "fm_", 3) && !strcmp(opt.variants[i], "fm"))
			return 1;
	}
	return 0;
}

static int name_known(const char *v, const enum fm_op *ops, int nops)
{
	if (!strcmp(v, "libc") || !strcmp(v, "system") || !strcmp(v, "fm") ||
	    !strcmp(v, "fm_memcpy_hint") || !strcmp(v, "fm_memset_hint"))
		return 1;
	for (int k = 0; k < nops; k++) {
		const struct fm_variant *list;
		size_t n = fm_variants(ops[k], &list);

		if (!strcmp(v, dispatch_names[ops[k]]))
			return 1;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(v, list[i].name))
				return 1;
	}
	return 0;
}

void check_variant_args(const enum fm_op *ops, int nops)
{
	for (int i = 0; i < opt.nvariants; i++) {
		if (name_known(opt.variants[i], ops, nops))
			continue;
		fprintf(stderr,
			"fastmem-bench %s: --variant %s: no such variant; "
			"valid:",
			opt.cmd_name, opt.variants[i]);
		for (int k = 0; k < nops; k++) {
			const struct fm_variant *list;
			size_t n = fm_variants(ops[k], &list);

			fprintf(stderr, " %s (", fm_op_name(ops[k]));
			for (size_t j = 0; j < n; j++)
				fprintf(stderr, "%s%s", j ? ", " : "",
					list[j].name);
			fprintf(stderr, ", %s)", dispatch_names[ops[k]]);
		}
		fprintf(stderr, "; also fm (every fm_* row)\n");
		exit(2);
	}
}

int selected_is_policy(enum fm_op op)
{
	const struct fm_variant *list;
	size_t n = fm_variants(op, &list);
	const char *sel = fm_selected(op);

	for (size_t i = 0; i < n; i++)
		if (sel && !strcmp(list[i].name, sel))
			return !!(list[i].flags & FM_VARIANT_POLICY);
	return 0;
}

static void hint_copy_page_nt(void *d, const void *s)
{
	fm_memcpy_hint(d, s, PAGE, FM_HINT_NONTEMPORAL);
}

static void hint_clear_pages_nt(void *p, size_t npages)
{
	fm_memset_hint(p, 0, npages * PAGE, FM_HINT_NONTEMPORAL);
}

int hint_series(enum fm_op op, struct series *out)
{
	int copy = op == FM_OP_COPY_PAGE;
	const char *name = copy ? "fm_memcpy_hint" : "fm_memset_hint";

	if (!selected_is_policy(copy ? FM_OP_MEMCPY : FM_OP_MEMSET) ||
	    !variant_wanted(name))
		return 0;
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s nt", name);
	out->flags = S_NT | S_DISPATCH;
	if (copy)
		out->fn.cpage = hint_copy_page_nt;
	else
		out->fn.clear = hint_clear_pages_nt;
	return 1;
}

int series_for_op(enum fm_op op, struct series *out, int max, int with_ref,
		  int with_dispatch)
{
	const struct fm_variant *list;
	size_t n = fm_variants(op, &list);
	const char *sel = fm_selected(op);
	char skipped[512] = "";
	size_t sl = 0;
	int c = 0;

	if (with_ref && c < max) {
		struct series *s = &out[c++];

		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", REF_NAME);
		s->flags = S_REF;
		switch (op) {
		case FM_OP_MEMCPY:
			s->fn.copy = sys_memcpy;
			break;
		case FM_OP_MEMMOVE:
			s->fn.copy = sys_memmove;
			break;
		case FM_OP_MEMSET:
			s->fn.set = sys_memset;
			break;
		case FM_OP_COPY_PAGE:
			s->fn.cpage = sys_copy_page;
			break;
		default:
			s->fn.clear = libc_clear;
		}
	}
	if (with_dispatch && c < max && variant_wanted(dispatch_names[op])) {
		struct series *s = &out[c++];

		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", dispatch_names[op]);
		s->flags = S_DISPATCH;
		switch (op) {
		case FM_OP_MEMCPY:
			s->fn.copy = fm_memcpy;
			break;
		case FM_OP_MEMMOVE:
			s->fn.copy = fm_memmove;
			break;
		case FM_OP_MEMSET:
			s->fn.set = fm_memset;
			break;
		case FM_OP_COPY_PAGE:
			s->fn.cpage = fm_copy_page;
			break;
		default:
			s->fn.clear = fm_clear_pages;
		}
	}
	for (size_t i = 0; i < n && c < max; i++) {
		const struct fm_variant *v = &list[i];
		struct series *s;

		if (!variant_wanted(v->name))
			continue;
		if (!v->usable) {
			sl += (size_t)snprintf(
				skipped + sl,
				sl < sizeof(skipped) ? sizeof(skipped) - sl : 0,
				"%s%s (needs %s)", sl ? ", " : "", v->name,
				v->isa);
			if (sl >= sizeof(skipped))
				sl = sizeof(skipped) - 1;
			continue;
		}
		s = &out[c++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", v->name);
		if (v->flags & FM_VARIANT_NT)
			s->flags |= S_NT;
		if (v->flags & FM_VARIANT_POLICY)
			s->flags |= S_POLICY;
		if (sel && !strcmp(sel, v->name))
			s->flags |= S_SELECTED;
		switch (op) {
		case FM_OP_MEMCPY:
			s->fn.copy = (copy_fn)v->fn.memcpy;
			break;
		case FM_OP_MEMMOVE:
			s->fn.copy = v->fn.memmove;
			break;
		case FM_OP_MEMSET:
			s->fn.set = v->fn.memset;
			break;
		case FM_OP_COPY_PAGE:
			s->fn.cpage = (cpage_fn)v->fn.copy_page;
			break;
		default:
			s->fn.clear = v->fn.clear_pages;
		}
	}
	if (sl)
		note("%s variants not usable here, skipped: %s", fm_op_name(op),
		     skipped);
	return c;
}
