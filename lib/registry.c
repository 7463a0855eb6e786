/* SPDX-License-Identifier: MIT */
/*
 * Renders the registry (variants.h) into the forms its readers need:
 *  - names, ISA strings and flags as char arrays and integers, which need no
 *    relocation and so can be read by the resolvers;
 *  - a switch from index to function address (PC-relative, also
 *    resolver-safe);
 *  - the public struct fm_variant tables, for fm_variants() and the tests;
 *  - the policy pointers that the _hint calls use.
 * and implements the choice between them (fm_choose).
 */
#include <stdint.h>

#include "internal.h"
#include "variants.h"

#define FM_ISA_MAX 32

FM_DECLARE_VARIANTS

/*
 * Page policies in the plain signature, reading the op's threshold at call
 * time.  The resolvers and fm_variants() fill fm_nt_cache before any of
 * these can be reached, so each is one load and a tail jump.  (The copy and
 * set policies come with plain entries of their own, memcpy_<id>,
 * memmove_<id> and memset_<id>, which load the threshold only past the
 * small sizes: see vecops.h.)
 */
#define WRAP_CPAGE(id, isa, fl)                                                \
	static void copy_page_auto_##id(void *d, const void *s)                \
	{                                                                      \
		copy_page_##id(d, s, fm_threshold_ready(FM_OP_COPY_PAGE));     \
	}
#define WRAP_CLEAR(id, isa, fl)                                                \
	static void clear_pages_auto_##id(void *p, size_t npages)              \
	{                                                                      \
		clear_pages_##id(p, npages,                                    \
				 fm_threshold_ready(FM_OP_CLEAR_PAGE));        \
	}
#define NONE(id, isa, fl)
FM_COPY_PAGE_VARIANTS(NONE, WRAP_CPAGE)
FM_CLEAR_PAGE_VARIANTS(NONE, WRAP_CLEAR)

/* Relocation-free descriptions, for the resolvers. */
#define NAME(id, isa, fl) #id,
#define ISA(id, isa, fl) isa,
#define FLAGS_V(id, isa, fl) (fl),
#define FLAGS_P(id, isa, fl) (fl) | FM_VARIANT_POLICY,

#define DESCRIBE(list, pfx)                                                    \
	static const char pfx##_names[][FM_NAME_MAX] = { list(NAME, NAME) };   \
	static const char pfx##_isa[][FM_ISA_MAX] = { list(ISA, ISA) };        \
	static const uint8_t pfx##_flags[] = { list(FLAGS_V, FLAGS_P) };

DESCRIBE(FM_COPY_VARIANTS, copy)
DESCRIBE(FM_SET_VARIANTS, set)
DESCRIBE(FM_COPY_PAGE_VARIANTS, cpage)
DESCRIBE(FM_CLEAR_PAGE_VARIANTS, clear)

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct op_desc {
	const char (*names)[FM_NAME_MAX];
	const char (*isa)[FM_ISA_MAX];
	const uint8_t *flags;
	int count;
};

/* Addresses computed in code, never loaded from data: resolver-safe. */
static struct op_desc describe(enum fm_op op)
{
	switch (op) {
	case FM_OP_MEMCPY:
	case FM_OP_MEMMOVE:
		return (struct op_desc){ copy_names, copy_isa, copy_flags,
					 COUNT(copy_flags) };
	case FM_OP_MEMSET:
		return (struct op_desc){ set_names, set_isa, set_flags,
					 COUNT(set_flags) };
	case FM_OP_COPY_PAGE:
		return (struct op_desc){ cpage_names, cpage_isa, cpage_flags,
					 COUNT(cpage_flags) };
	default:
		return (struct op_desc){ clear_names, clear_isa, clear_flags,
					 COUNT(clear_flags) };
	}
}

/* Index -> function, as a switch of PC-relative addresses. */
#define IDX(id, isa, fl) IDX_##id,
#define CASE_V(pfx, id)                                                        \
	case IDX_##id:                                                         \
		return (void *)pfx##_##id;
#define CASE_COPY_V(id, isa, fl) CASE_V(copy, id)
#define CASE_MEMCPY_P(id, isa, fl) CASE_V(memcpy, id)
#define CASE_MEMMOVE_P(id, isa, fl) CASE_V(memmove, id)
#define CASE_SET_V(id, isa, fl) CASE_V(set, id)
#define CASE_SET_P(id, isa, fl) CASE_V(memset, id)
#define CASE_CPAGE_V(id, isa, fl) CASE_V(copy_page, id)
#define CASE_CPAGE_P(id, isa, fl) CASE_V(copy_page_auto, id)
#define CASE_CLEAR_V(id, isa, fl) CASE_V(clear_pages, id)
#define CASE_CLEAR_P(id, isa, fl) CASE_V(clear_pages_auto, id)

static void *memcpy_fn_at(int i)
{
	enum { FM_COPY_VARIANTS(IDX, IDX) };
	switch (i) {
		FM_COPY_VARIANTS(CASE_COPY_V, CASE_MEMCPY_P)
	}
	return (void *)copy_generic;
}

static void *memmove_fn_at(int i)
{
	enum { FM_COPY_VARIANTS(IDX, IDX) };
	switch (i) {
		FM_COPY_VARIANTS(CASE_COPY_V, CASE_MEMMOVE_P)
	}
	return (void *)copy_generic;
}

static void *memset_fn_at(int i)
{
	enum { FM_SET_VARIANTS(IDX, IDX) };
	switch (i) {
		FM_SET_VARIANTS(CASE_SET_V, CASE_SET_P)
	}
	return (void *)set_generic;
}

static void *copy_page_fn_at(int i)
{
	enum { FM_COPY_PAGE_VARIANTS(IDX, IDX) };
	switch (i) {
		FM_COPY_PAGE_VARIANTS(CASE_CPAGE_V, CASE_CPAGE_P)
	}
	return (void *)copy_page_generic;
}

static void *clear_page_fn_at(int i)
{
	enum { FM_CLEAR_PAGE_VARIANTS(IDX, IDX) };
	switch (i) {
		FM_CLEAR_PAGE_VARIANTS(CASE_CLEAR_V, CASE_CLEAR_P)
	}
	return (void *)clear_pages_generic;
}

void *fm_variant_fn(enum fm_op op, int i)
{
	switch (op) {
	case FM_OP_MEMCPY:
		return memcpy_fn_at(i);
	case FM_OP_MEMMOVE:
		return memmove_fn_at(i);
	case FM_OP_MEMSET:
		return memset_fn_at(i);
	case FM_OP_COPY_PAGE:
		return copy_page_fn_at(i);
	default:
		return clear_page_fn_at(i);
	}
}

/* Policies with an explicit threshold, for the _hint calls (call time only:
 * these are relocated pointers). */
#define POL_NULL(id, isa, fl) 0,
#define POL_COPY(id, isa, fl) copy_##id,
#define POL_SET(id, isa, fl) set_##id,
static copy_policy_fn *const copy_policies[] = { FM_COPY_VARIANTS(POL_NULL,
								  POL_COPY) };
static set_policy_fn *const set_policies[] = { FM_SET_VARIANTS(POL_NULL,
							       POL_SET) };
#define POL_CLEAR(id, isa, fl) clear_pages_##id,
static clear_pages_policy_fn *const clear_policies[] = { FM_CLEAR_PAGE_VARIANTS(
	POL_NULL, POL_CLEAR) };

copy_policy_fn *fm_copy_policy(int i)
{
	return i >= 0 && i < (int)COUNT(copy_policies) ? copy_policies[i] : 0;
}

set_policy_fn *fm_set_policy(int i)
{
	return i >= 0 && i < (int)COUNT(set_policies) ? set_policies[i] : 0;
}

clear_pages_policy_fn *fm_clear_pages_policy(int i)
{
	return i >= 0 && i < (int)COUNT(clear_policies) ? clear_policies[i] : 0;
}

/* --- choosing ----------------------------------------------------------- */

static int name_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static size_t str_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

uint32_t fm_usable_features_of(const struct fm_settings *st)
{
	return fm_arch_features() & ~st->disable;
}

uint32_t fm_usable_features(void)
{
	struct fm_settings scratch;

	return fm_usable_features_of(fm_settings_get(&scratch));
}

static uint32_t needs(const char *isa)
{
	int bad = 0;

	return fm_parse_features(isa, str_len(isa), &bad);
}

int fm_variant_usable(enum fm_op op, int i, uint32_t have)
{
	struct op_desc d = describe(op);

	return i >= 0 && i < d.count && (needs(d.isa[i]) & ~have) == 0;
}

static int passed_over(enum fm_op op, const char *name)
{
#if FM_ARCH_CLASSES
	return fm_arch_passes_over(op, name);
#else
	(void)op;
	(void)name;
	return 0;
#endif
}

static int auto_choice(struct op_desc d, uint32_t have, enum fm_op op)
{
	for (int i = 0; i < d.count; i++)
		if ((d.flags[i] & FM_VARIANT_AUTO) &&
		    fm_variant_usable(op, i, have) &&
		    !passed_over(op, d.names[i]))
			return i;
	return d.count - 1; /* generic, always last */
}

static uint8_t warned[FM_OP_COUNT];

static void warn_forced(enum fm_op op, const struct fm_settings *st,
			struct op_desc d, int found, int chosen, uint32_t have)
{
	char list[FM_NAME_MAX * 24];
	size_t len = 0;

	if (__atomic_exchange_n(&warned[op], 1, __ATOMIC_RELAXED))
		return;
	if (found < 0) {
		for (int i = 0; i < d.count; i++) {
			size_t l = str_len(d.names[i]);
			if (len + l + 3 >= sizeof(list))
				break;
			if (i) {
				list[len++] = ',';
				list[len++] = ' ';
			}
			for (size_t k = 0; k < l; k++)
				list[len++] = d.names[i][k];
		}
		list[len] = 0;
	} else {
		char miss[64];
		fm_format_features(needs(d.isa[found]) & ~have, miss,
				   sizeof(miss));
		for (const char *p = "needs "; *p;)
			list[len++] = *p++;
		for (const char *p = miss; *p && len < sizeof(list) - 1;)
			list[len++] = *p++;
		list[len] = 0;
	}
	const char *tail[] = {
		found < 0 ? " is not a variant of this operation; valid: "
			  : " cannot run on this CPU (",
		list,
		found < 0 ? "; keeping the automatic choice "
			  : "); keeping the automatic choice ",
		d.names[chosen],
	};
	/* "FASTMEM_MEMCPY=..." or "config PATH:LINE: memcpy = ...", within
	 * the file's limit of warnings, never quoting what may not be shown */
	fm_forced_warn(st, op, tail, COUNT(tail));
}

struct fm_choice fm_choose(enum fm_op op)
{
	struct fm_settings scratch;
	const struct fm_settings *st = fm_settings_get(&scratch);
	struct op_desc d = describe(op);
	uint32_t have = fm_arch_features() & ~st->disable;
	int found = -1;

	if (st->forced[op][0]) {
		for (int i = 0; i < d.count; i++)
			if (name_eq(d.names[i], st->forced[op]))
				found = i;
		if (found >= 0 && fm_variant_usable(op, found, have))
			return (struct fm_choice){ found, st->forced_src[op] };
		warn_forced(op, st, d, found, auto_choice(d, have, op), have);
	}
	return (struct fm_choice){ auto_choice(d, have, op), FM_SRC_AUTO };
}

/* --- the public tables -------------------------------------------------- */

#define ROW(opname, member, fnpfx, id, isa_, fl)                               \
	{ .name = #id,                                                         \
	  .op = opname,                                                        \
	  .isa = isa_,                                                         \
	  .flags = (fl),                                                       \
	  .fn.member = fnpfx##_##id },
#define ROW_MEMCPY_V(id, isa, fl) ROW(FM_OP_MEMCPY, memcpy, copy, id, isa, fl)
#define ROW_MEMCPY_P(id, isa, fl)                                              \
	ROW(FM_OP_MEMCPY, memcpy, memcpy, id, isa, (fl) | FM_VARIANT_POLICY)
#define ROW_MEMMOVE_V(id, isa, fl)                                             \
	ROW(FM_OP_MEMMOVE, memmove, copy, id, isa, fl)
#define ROW_MEMMOVE_P(id, isa, fl)                                             \
	ROW(FM_OP_MEMMOVE, memmove, memmove, id, isa, (fl) | FM_VARIANT_POLICY)
#define ROW_SET_V(id, isa, fl) ROW(FM_OP_MEMSET, memset, set, id, isa, fl)
#define ROW_SET_P(id, isa, fl)                                                 \
	ROW(FM_OP_MEMSET, memset, memset, id, isa, (fl) | FM_VARIANT_POLICY)
#define ROW_CPAGE_V(id, isa, fl)                                               \
	ROW(FM_OP_COPY_PAGE, copy_page, copy_page, id, isa, fl)
#define ROW_CPAGE_P(id, isa, fl)                                               \
	ROW(FM_OP_COPY_PAGE, copy_page, copy_page_auto, id, isa,               \
	    (fl) | FM_VARIANT_POLICY)
#define ROW_CLEAR_V(id, isa, fl)                                               \
	ROW(FM_OP_CLEAR_PAGE, clear_pages, clear_pages, id, isa, fl)
#define ROW_CLEAR_P(id, isa, fl)                                               \
	ROW(FM_OP_CLEAR_PAGE, clear_pages, clear_pages_auto, id, isa,          \
	    (fl) | FM_VARIANT_POLICY)

static struct fm_variant memcpy_table[] = { FM_COPY_VARIANTS(ROW_MEMCPY_V,
							     ROW_MEMCPY_P) };
static struct fm_variant memmove_table[] = { FM_COPY_VARIANTS(ROW_MEMMOVE_V,
							      ROW_MEMMOVE_P) };
static struct fm_variant memset_table[] = { FM_SET_VARIANTS(ROW_SET_V,
							    ROW_SET_P) };
static struct fm_variant copy_page_table[] = { FM_COPY_PAGE_VARIANTS(
	ROW_CPAGE_V, ROW_CPAGE_P) };
static struct fm_variant clear_page_table[] = { FM_CLEAR_PAGE_VARIANTS(
	ROW_CLEAR_V, ROW_CLEAR_P) };

size_t fm_variants(enum fm_op op, const struct fm_variant **list)
{
	struct fm_variant *t;
	size_t n;
	uint32_t have;

	switch (op) {
	case FM_OP_MEMCPY:
		t = memcpy_table, n = COUNT(memcpy_table);
		break;
	case FM_OP_MEMMOVE:
		t = memmove_table, n = COUNT(memmove_table);
		break;
	case FM_OP_MEMSET:
		t = memset_table, n = COUNT(memset_table);
		break;
	case FM_OP_COPY_PAGE:
		t = copy_page_table, n = COUNT(copy_page_table);
		break;
	case FM_OP_CLEAR_PAGE:
		t = clear_page_table, n = COUNT(clear_page_table);
		break;
	default:
		if (list)
			*list = 0;
		return 0;
	}
	fm_thresholds_init();
	have = fm_usable_features();
	for (size_t i = 0; i < n; i++)
		__atomic_store_n(&t[i].usable,
				 fm_variant_usable(op, (int)i, have),
				 __ATOMIC_RELAXED);
	if (list)
		*list = t;
	return n;
}
