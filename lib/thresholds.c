/* SPDX-License-Identifier: MIT */
/*
 * Non-temporal thresholds: the size from which the automatic policies stream
 * past the cache.  Precedence: environment > config file > detected cache
 * topology > built-in default.  Computed on first use, lock-free: every
 * thread computes the same value, so a race only repeats the work.
 */
#include "internal.h"

size_t fm_nt_cache[FM_OP_COUNT];

#define DEFAULT_COPY_THRESHOLD (1u << 20)

static size_t per_thread(size_t size, unsigned sharing)
{
	return sharing > 1 ? size / sharing : size;
}

/*
 * The formula (see fastmem(3) and README "Thresholds"): streaming pays once
 * the destination would not stay in the cache this thread can count on,
 * its private L2.  Copies pass a source and a destination through it, so
 * they stream from one L2's worth; sets and clears only the destination, so
 * they stream from twice that.
 */
static size_t detected(enum fm_op op, struct fm_cache_info *ci)
{
	size_t l2 = per_thread(ci->l2, ci->l2_sharing);

	if (!l2)
		return 0;
	switch (op) {
	case FM_OP_MEMSET:
	case FM_OP_CLEAR_PAGE:
		return 2 * l2;
	default:
		return l2;
	}
}

static size_t compute(enum fm_op op, enum fm_source *src)
{
	struct fm_settings scratch;
	const struct fm_settings *st = fm_settings_get(&scratch);
	struct fm_cache_info ci;
	size_t t;

	if (st->nt_src[op]) {
		*src = st->nt_src[op];
		return st->nt[op];
	}
	fm_arch_cache_info(&ci);
	t = detected(op, &ci);
	if (t) {
		*src = FM_SRC_DETECTED;
		return t;
	}
	*src = FM_SRC_DEFAULT;
	return op == FM_OP_MEMSET || op == FM_OP_CLEAR_PAGE
		       ? 2 * DEFAULT_COPY_THRESHOLD
		       : DEFAULT_COPY_THRESHOLD;
}

size_t fm_threshold_slow(enum fm_op op)
{
	enum fm_source src;
	size_t t = compute(op, &src);

	/* 0 marks "not computed yet"; a threshold of 0 and of 1 act alike */
	if (!t)
		t = 1;
	__atomic_store_n(&fm_nt_cache[op], t, __ATOMIC_RELAXED);
	return t;
}

size_t fm_nt_threshold(enum fm_op op)
{
	if ((unsigned)op >= FM_OP_COUNT)
		return 0;
	return fm_threshold(op);
}

static char source_text[FM_OP_COUNT][FM_PATH_MAX + 64];

static void put(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s && *len + 1 < size)
		buf[(*len)++] = *s++;
	buf[*len] = 0;
}

const char *fm_nt_threshold_source(enum fm_op op)
{
	struct fm_settings scratch;
	const struct fm_settings *st;
	enum fm_source src;
	char *buf;
	size_t len = 0;

	if ((unsigned)op >= FM_OP_COUNT)
		return 0;
	st = fm_settings_get(&scratch);
	compute(op, &src);
	buf = source_text[op];
	switch (src) {
	case FM_SRC_ENV:
		put(buf, sizeof(source_text[op]), &len,
		    "environment (FASTMEM_NT_THRESHOLD)");
		break;
	case FM_SRC_CONFIG:
		put(buf, sizeof(source_text[op]), &len, "config (");
		put(buf, sizeof(source_text[op]), &len, st->config_path);
		put(buf, sizeof(source_text[op]), &len, ")");
		break;
	case FM_SRC_DETECTED:
		put(buf, sizeof(source_text[op]), &len,
		    op == FM_OP_MEMSET || op == FM_OP_CLEAR_PAGE
			    ? "detected (2 x L2 per thread)"
			    : "detected (L2 per thread)");
		break;
	default:
		put(buf, sizeof(source_text[op]), &len,
		    "default (cache sizes unknown)");
	}
	return buf;
}

void fm_cache_info(struct fm_cache_info *info)
{
	if (info)
		fm_arch_cache_info(info);
}
