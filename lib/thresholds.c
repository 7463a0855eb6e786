/* SPDX-License-Identifier: MIT */
/*
 * Non-temporal thresholds: the size from which the automatic policies stream
 * past the cache.  Precedence: environment > config file > detected cache
 * topology > built-in default.  Computed on first use, lock-free: every
 * thread computes the same value, so a race only repeats the work.
 *
 * The detected threshold is the CPU class's where the arch has a table of
 * classes (the per-arch hook fm_arch_nt_default), else the size formula
 * (FM_NT_COPY_L2, FM_NT_SET_L2 in internal.h); the streaming decision below
 * the threshold is the arch's (fm_arch_streams_below).
 */
#include "internal.h"

size_t fm_nt_cache[FM_OP_COUNT];

static size_t per_thread(size_t size, unsigned sharing)
{
	return sharing > 1 ? size / sharing : size;
}

/* The size formula's multiple of the L2 for op. */
static unsigned formula_l2_multiple(enum fm_op op)
{
	return op == FM_OP_MEMSET || op == FM_OP_CLEAR_PAGE ? FM_NT_SET_L2
							    : FM_NT_COPY_L2;
}

static size_t detected(enum fm_op op, const struct fm_cache_info *ci)
{
	size_t l2 = per_thread(ci->l2, ci->l2_sharing);

	if (!l2)
		return 0;
#if FM_ARCH_CLASSES
	/* the CPU class's "streams even when cached" crossover (0: the
	 * formula, for the page calls, which never probe) */
	size_t t = fm_arch_nt_default(op, ci);

	if (t)
		return t;
#endif
	return formula_l2_multiple(op) * l2;
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
	ci.l2 = FM_ASSUMED_L2;
	ci.l2_sharing = 1;
	return detected(op, &ci);
}

int fm_streams(enum fm_op op, const void *d, const void *s, size_t n)
{
	if (n >= fm_threshold(op))
		return 1;
#if FM_ARCH_CLASSES
	return fm_arch_streams_below(op, d, s, n);
#else
	(void)d, (void)s;
	return 0;
#endif
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

#if FM_ARCH_CLASSES
static int arch_ready;
#endif

void fm_thresholds_init(void)
{
	for (int op = 0; op < FM_OP_COUNT; op++)
		if (!__atomic_load_n(&fm_nt_cache[op], __ATOMIC_RELAXED))
			fm_threshold_slow((enum fm_op)op);
#if FM_ARCH_CLASSES
	if (!__atomic_load_n(&arch_ready, __ATOMIC_RELAXED)) {
		struct fm_settings scratch;
		struct fm_cache_info ci;

		fm_arch_cache_info(&ci);
		fm_arch_thresholds_init(&ci, fm_settings_get(&scratch));
		__atomic_store_n(&arch_ready, 1, __ATOMIC_RELAXED);
	}
#endif
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

static void put_num(char *buf, size_t size, size_t *len, size_t v)
{
	char digits[24];
	int i = 0;

	do {
		digits[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (i && *len + 1 < size)
		buf[(*len)++] = digits[--i];
	buf[*len] = 0;
}

/* "detected (N x L2 per thread)": the size formula for op */
static void put_formula(char *buf, size_t size, size_t *len, enum fm_op op)
{
	put(buf, size, len, "detected (");
	put_num(buf, size, len, formula_l2_multiple(op));
	put(buf, size, len, " x L2 per thread)");
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
	case FM_SRC_SYSTEM:
		put(buf, sizeof(source_text[op]), &len, "config (");
		put(buf, sizeof(source_text[op]), &len,
		    fm_source_path(st, src));
		put(buf, sizeof(source_text[op]), &len, ")");
		break;
	case FM_SRC_DETECTED:
#if FM_ARCH_CLASSES
		if (op != FM_OP_COPY_PAGE && op != FM_OP_CLEAR_PAGE) {
			put(buf, sizeof(source_text[op]), &len,
			    "detected (class ");
			put(buf, sizeof(source_text[op]), &len,
			    fm_arch_class_name());
			put(buf, sizeof(source_text[op]), &len,
			    ": streams from here even when cached)");
			break;
		}
#endif
		put_formula(buf, sizeof(source_text[op]), &len, op);
		break;
	default:
		put(buf, sizeof(source_text[op]), &len,
		    "default (cache sizes unknown: as for a ");
		put_num(buf, sizeof(source_text[op]), &len,
			FM_ASSUMED_L2 >> 20);
		put(buf, sizeof(source_text[op]), &len, " MiB L2)");
	}
	return buf;
}

void fm_cache_info(struct fm_cache_info *info)
{
	if (info)
		fm_arch_cache_info(info);
}
