/* SPDX-License-Identifier: MIT */
/*
 * Crossovers of the automatic x86 policies, computed on first use from the
 * usable features (so FASTMEM_DISABLE=erms,clzero is honoured) and the cache
 * sizes, then cached.  Call time only, never from a resolver.  Lock-free: every
 * thread computes the same values, so a race only repeats the work.
 *
 * Measured on an AMD Zen 5 (48 KiB L1d, 1 MiB L2), hot buffers:
 *  - copies: the zmm loop runs 1.5-1.8x faster than rep movsb while source
 *    and destination together fit in L1d (n <= L1d / 2: 24 KiB ran at 1.55x,
 *    28 KiB at 0.57x), and rep movsb 1.4-2x faster than the loop above that,
 *    out to 32 MiB (it fills whole destination lines without reading them);
 *  - sets: the zmm loop runs 1.3-1.5x faster than rep stosb up to 3/4 of L2
 *    (768 KiB), rep stosb 1.1-1.3x faster from L2 on;
 *  - zero fills past the caches: clzero 2-2.5x glibc's memset, streaming
 *    stores 1.5-1.8x.
 */
#include "x86.h"

struct fm_x86_tune fm_x86_tune_cache;

static size_t or_default(size_t v, size_t def)
{
	return v ? v : def;
}

void fm_x86_tune_init(void)
{
	struct fm_cache_info ci;
	uint32_t f = fm_usable_features();
	size_t l1d, l2;

	fm_arch_cache_info(&ci);
	l1d = or_default(ci.l1d, 32 << 10);
	l2 = or_default(ci.l2_sharing > 1 ? ci.l2 / ci.l2_sharing : ci.l2,
			256 << 10);
	__atomic_store_n(&fm_x86_tune_cache.copy_rep_min,
			 (f & FM_FEAT(erms)) ? l1d / 2 + 1 : SIZE_MAX,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&fm_x86_tune_cache.set_rep_min,
			 (f & FM_FEAT(erms)) ? l2 / 4 * 3 : SIZE_MAX,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&fm_x86_tune_cache.clzero, (f & FM_FEAT(clzero)) != 0,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&fm_x86_tune_cache.ready, 1, __ATOMIC_RELEASE);
}

static void put(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s && *len + 1 < size)
		buf[(*len)++] = *s++;
	buf[*len] = 0;
}

static void put_size(char *buf, size_t size, size_t *len, size_t v)
{
	const char *unit = " B";
	char digits[24];
	int i = 0;

	if (v >= (1 << 20) && !(v & ((1 << 20) - 1))) {
		v >>= 20;
		unit = " MiB";
	} else if (v >= 1024 && !(v & 1023)) {
		v >>= 10;
		unit = " KiB";
	}
	do {
		digits[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (i && *len + 1 < size)
		buf[(*len)++] = digits[--i];
	buf[*len] = 0;
	put(buf, size, len, unit);
}

static char notes[160];

/* The crossovers, for fastmem-info's notes line. */
const char *fm_x86_tune_notes(void)
{
	const struct fm_x86_tune *t = fm_x86_tune();
	size_t len = 0;

	put(notes, sizeof(notes), &len, "policies: copies ");
	if (t->copy_rep_min == SIZE_MAX) {
		put(notes, sizeof(notes), &len, "vector loop only");
	} else {
		put(notes, sizeof(notes), &len, "rep movsb above ");
		put_size(notes, sizeof(notes), &len, t->copy_rep_min - 1);
	}
	put(notes, sizeof(notes), &len, ", sets ");
	if (t->set_rep_min == SIZE_MAX) {
		put(notes, sizeof(notes), &len, "vector loop only");
	} else {
		put(notes, sizeof(notes), &len, "rep stosb from ");
		put_size(notes, sizeof(notes), &len, t->set_rep_min);
	}
	put(notes, sizeof(notes), &len,
	    t->clzero ? "; streamed zeroes use clzero" : "");
	return notes;
}
