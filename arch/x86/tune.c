/* SPDX-License-Identifier: MIT */
/*
 * The x86 streaming policy: the crossovers of the automatic x86 policies in
 * force, and the decisions made with them (whether a copy or set below its
 * threshold streams, whether pages past it are being faulted in; the
 * vector families' fm_x86_copy_how and fm_x86_set_how in x86.h are pure
 * functions of the same crossovers).  The crossovers are computed on first
 * use from the CPU's class (classes.c), the usable features (so
 * FASTMEM_DISABLE=erms,clzero is honoured), the cache sizes, the settings
 * and the residency probe's calibration (probe.c), then cached.  Call time
 * only, never from a resolver.  Lock-free: every thread computes the same
 * values, so a race only repeats the work.
 */
#include "x86.h"

struct fm_x86_tune fm_x86_tune_cache;
unsigned fm_x86_nt_shape_cache;

unsigned fm_x86_nt_shape_init(void)
{
	const struct fm_x86_class *k = fm_x86_class();
	unsigned pages = k->set_nt_pages ? k->set_nt_pages : 1;
	unsigned v = pages << 16 | k->copy_nt_prefetch;

	__atomic_store_n(&fm_x86_nt_shape_cache, v, __ATOMIC_RELAXED);
	return v;
}

static struct fm_x86_probe_cal probe_cal;
static int probe_wanted; /* the class has a cold crossover and it is on */

/* The size policy, for when the probe is off or unusable: the size formula,
 * as the class table's entry for unknown CPUs states it. */
static size_t by_size(int op, const struct fm_cache_info *ci)
{
	const struct fm_x86_class *formula;
	size_t n;

	fm_x86_classes(&n, &formula);
	return fm_x86_crossover(op == FM_X_SET ? formula->set_cached
					       : formula->copy_cached,
				ci);
}

void fm_x86_tune_compute(struct fm_x86_tune *t, const struct fm_x86_class *k,
			 const struct fm_cache_info *ci, uint32_t features,
			 const struct fm_x86_probe_cal *cal, int probe_usable,
			 const int explicit_thr[FM_X_OPS],
			 const size_t *cold_override)
{
	int erms = (features & FM_FEAT(erms)) != 0;

	t->copy_rep_min = fm_x86_copy_rep_min(k, ci, erms, NULL);
	t->copy_rep_cold = fm_x86_crossover(k->copy_rep_cold, ci);
	t->copy_rep_any = fm_x86_crossover(k->copy_rep_any, ci);
	t->set_rep_min = erms ? fm_x86_crossover(k->set_rep, ci) : SIZE_MAX;
	t->set_rep_timed = erms && probe_usable
				   ? fm_x86_crossover(k->set_rep_cold, ci)
				   : SIZE_MAX;
	t->set_cold_ticks = probe_usable ? cal->memory / 4 : 0;
	t->rep_movsb_aliasing = k->rep_movsb_aliasing;
	t->set_rep_streams =
		erms ? fm_x86_crossover(k->set_rep_streams, ci) : SIZE_MAX;
	t->clzero = k->set_clzero && (features & FM_FEAT(clzero)) != 0;
	t->probe = probe_usable;
	t->probe_limit = probe_usable ? cal->limit : 0;
	t->probe_fault = probe_usable ? cal->fault : 0;
	for (int op = 0; op < FM_X_OPS; op++) {
		struct fm_crossover cold =
			op == FM_X_SET ? k->set_cold : k->copy_cold;
		size_t smin = by_size(op, ci);

		/* the user's or the class's cold crossover (never: only
		 * from the threshold), or without the probe the size policy */
		if (probe_usable && cold_override && cold_override[op])
			t->stream_min[op] = cold_override[op];
		else if (probe_usable)
			t->stream_min[op] = fm_x86_crossover(cold, ci);
		else
			t->stream_min[op] = smin;
		t->size_min[op] = smin;
		/* a threshold the user set alone is the whole policy */
		if (explicit_thr[op])
			t->stream_min[op] = SIZE_MAX;
	}
}

/* Store t into *c field by field (the same values from every writer),
 * then mark it ready. */
static void publish(struct fm_x86_tune *c, const struct fm_x86_tune *t)
{
	__atomic_store_n(&c->copy_rep_min, t->copy_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(&c->copy_rep_cold, t->copy_rep_cold, __ATOMIC_RELAXED);
	__atomic_store_n(&c->copy_rep_any, t->copy_rep_any, __ATOMIC_RELAXED);
	__atomic_store_n(&c->set_rep_min, t->set_rep_min, __ATOMIC_RELAXED);
	__atomic_store_n(&c->set_rep_timed, t->set_rep_timed, __ATOMIC_RELAXED);
	__atomic_store_n(&c->set_cold_ticks, t->set_cold_ticks,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&c->rep_movsb_aliasing, t->rep_movsb_aliasing,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&c->set_rep_streams, t->set_rep_streams,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&c->clzero, t->clzero, __ATOMIC_RELAXED);
	for (int op = 0; op < FM_X_OPS; op++) {
		__atomic_store_n(&c->stream_min[op], t->stream_min[op],
				 __ATOMIC_RELAXED);
		__atomic_store_n(&c->size_min[op], t->size_min[op],
				 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&c->probe_limit, t->probe_limit, __ATOMIC_RELAXED);
	__atomic_store_n(&c->probe_fault, t->probe_fault, __ATOMIC_RELAXED);
	__atomic_store_n(&c->probe, t->probe, __ATOMIC_RELAXED);
	__atomic_store_n(&c->ready, 1, __ATOMIC_RELEASE);
}

/* The crossovers without the probe: deterministic, so any number of
 * writers store the same values. */
static struct fm_x86_tune without_probe;
/* 0: not calibrated, 1: being calibrated, 2: done (the cache is ready) */
static int cal_state;

/* rep_from[.memcpy|.memset] in a config file: where rep movsb / rep stosb
 * take over from the vector loop (fastmem-bench calibrate measures it) */
static void rep_overrides(struct fm_x86_tune *t, const struct fm_x86_class *k,
			  const struct fm_cache_info *ci,
			  const struct fm_settings *st)
{
	t->copy_rep_min =
		fm_x86_copy_rep_min(k, ci, t->copy_rep_min != SIZE_MAX, st);
	if (t->set_rep_min != SIZE_MAX && st->rep_src[FM_OP_MEMSET]) {
		t->set_rep_min = st->rep[FM_OP_MEMSET];
		/* never: not even where it would stream by itself, nor
		 * into destinations found cold */
		if (t->set_rep_min == SIZE_MAX)
			t->set_rep_streams = t->set_rep_timed = SIZE_MAX;
	}
}

/*
 * The probe's calibration is a measurement, so exactly one caller makes it
 * (claimed with a compare-and-swap) and publishes the result; a caller that
 * finds it in progress (another thread, or a signal handler that
 * interrupted it) uses the crossovers without the probe meanwhile.
 */
static const struct fm_x86_tune *tune_init(void)
{
	const struct fm_x86_class *k = fm_x86_class();
	struct fm_settings scratch;
	const struct fm_settings *st = fm_settings_get(&scratch);
	struct fm_cache_info ci;
	struct fm_x86_probe_cal cal = { 0, 0, 0, 0, "" };
	struct fm_x86_tune t;
	int explicit_thr[FM_X_OPS], probe = 0, want, cold_set = 0, idle = 0;
	size_t cold[FM_X_OPS];

	fm_arch_cache_info(&ci);
	for (int op = 0; op < FM_X_OPS; op++) {
		uint8_t csrc = st->cold_src[op];

		/* a set cold crossover counts unless a threshold set with more
		 * weight (the environment over a config file) came alone; 0
		 * (unset) is "the class's", so a set 0 is 1 byte */
		if (csrc && csrc < st->nt_src[op])
			csrc = 0;
		cold[op] = csrc ? (st->cold[op] ? st->cold[op] : 1) : 0;
		cold_set |= cold[op] != 0;
		explicit_thr[op] = st->nt_src[op] != 0;
	}
	want = st->probe != FM_PROBE_OFF &&
	       (k->copy_cold.base != FM_X_NEVER ||
		k->set_cold.base != FM_X_NEVER || cold_set);
	if (want &&
	    !__atomic_compare_exchange_n(&cal_state, &idle, 1, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		if (__atomic_load_n(&fm_x86_tune_cache.ready, __ATOMIC_ACQUIRE))
			return &fm_x86_tune_cache;
		want = 0; /* being calibrated elsewhere: without, for now */
		fm_x86_tune_compute(&t, k, &ci, fm_usable_features_of(st), &cal,
				    0, explicit_thr, cold);
		rep_overrides(&t, k, &ci, st);
		publish(&without_probe, &t);
		return &without_probe;
	}
	if (want)
		probe = fm_x86_probe_calibrate(&cal, st->tsc_disabled);
	/* a threshold set alone, or with a cold crossover but no probe to
	 * use it, is the whole policy */
	for (int op = 0; op < FM_X_OPS; op++)
		explicit_thr[op] = explicit_thr[op] && !(cold[op] && probe);
	fm_x86_tune_compute(&t, k, &ci, fm_usable_features_of(st), &cal, probe,
			    explicit_thr, cold);
	rep_overrides(&t, k, &ci, st);
	/* read only after the release below (the notes) */
	probe_wanted = want;
	probe_cal = cal;
	publish(&fm_x86_tune_cache, &t);
	if (want)
		__atomic_store_n(&cal_state, 2, __ATOMIC_RELEASE);
	return &fm_x86_tune_cache;
}

const struct fm_x86_tune *fm_x86_tune_init(void)
{
	/*
	 * Being calibrated elsewhere, and the crossovers without the probe
	 * already computed: those, not computed again.  A child forked while
	 * another thread calibrated stays in this state for good, and
	 * recomputing on every call (cpuid leaves, each a VM exit in a guest)
	 * made its 20 KB copies 150 times slower.
	 */
	if (__atomic_load_n(&cal_state, __ATOMIC_ACQUIRE) == 1 &&
	    __atomic_load_n(&without_probe.ready, __ATOMIC_ACQUIRE))
		return &without_probe;
	return tune_init();
}

/* --- the decisions ------------------------------------------------------- */

int fm_x86_stream_decide(const struct fm_x86_tune *t, int op, size_t n,
			 int cold)
{
	if (n < t->stream_min[op])
		return 0;
	if (!t->probe)
		return n >= t->size_min[op];
	return cold;
}

int fm_x86_faulting(const struct fm_x86_tune *t, const void *p, size_t n)
{
	return t->probe && fm_x86_faults(p, n, t->probe_fault);
}

/*
 * The destinations this library streamed because the probe found them cold.
 * The probe cannot tell data long unused from data it streamed itself, so a
 * program that rewrites the same buffer in a loop had its destination found
 * cold each time because the last call streamed it, where ordinary stores
 * would have kept it cached: 10% slower over a whole python3 loop of 16 MiB
 * copies on the Intel Xeon guest (docs/policy.md#a-loop-the-probe-feeds).
 * So a buffer found cold that overlaps one of these is copied with ordinary
 * stores once (a retry); if the probe then finds it cached, it stays so;
 * if it is cold again, it did not fit, and it streams from then on.
 * Relaxed atomics only, no lock: a race loses or repeats an entry, which
 * changes how a call is stored, never what it stores.
 */
#define STREAMED_SLOTS 8

static struct {
	uintptr_t lo, hi; /* [lo, hi); hi == 0: a free slot */
	int retried;
} streamed[STREAMED_SLOTS];
static unsigned streamed_next;

static int streamed_slot(const void *p, size_t n)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + n;

	for (int i = 0; i < STREAMED_SLOTS; i++)
		if (lo < __atomic_load_n(&streamed[i].hi, __ATOMIC_RELAXED) &&
		    __atomic_load_n(&streamed[i].lo, __ATOMIC_RELAXED) < hi)
			return i;
	return -1;
}

/* Whether to stream, given the probe's verdict on d and s (cold: nonzero)
 * and what this library's own streaming left there. */
static int streamed_again(const void *d, const void *s, size_t n, int cold)
{
	int i = streamed_slot(d, n);

	if (i < 0 && s)
		i = streamed_slot(s, n);
	if (!cold) {
		/* cached again: whatever streamed there is forgotten */
		if (i >= 0)
			__atomic_store_n(&streamed[i].hi, 0, __ATOMIC_RELAXED);
		return 0;
	}
	if (i < 0) {
		i = __atomic_fetch_add(&streamed_next, 1, __ATOMIC_RELAXED) %
		    STREAMED_SLOTS;
		__atomic_store_n(&streamed[i].retried, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&streamed[i].lo, (uintptr_t)d,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&streamed[i].hi, (uintptr_t)d + n,
				 __ATOMIC_RELAXED);
		return 1;
	}
	if (!__atomic_load_n(&streamed[i].retried, __ATOMIC_RELAXED)) {
		__atomic_store_n(&streamed[i].retried, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return 1;
}

int fm_x86_stream(const struct fm_x86_tune *t, int op, const void *d,
		  const void *s, size_t n)
{
	if (!t->probe || n < t->stream_min[op])
		return fm_x86_stream_decide(t, op, n, 0);
	/* a copy streams only if neither end is in use */
	int cold = (!s || fm_x86_cold(s, n, t->probe_limit, t->probe_fault)) &&
		   fm_x86_cold(d, n, t->probe_limit, t->probe_fault);

	return streamed_again(d, s, n, cold);
}

/* The per-arch hook behind fm_streams (lib/thresholds.c), below the
 * threshold. */
int fm_arch_streams_below(enum fm_op op, const void *d, const void *s, size_t n)
{
	const struct fm_x86_tune *t = fm_x86_tune();

	/* the page calls never probe */
	return (int)op < FM_X_OPS && n >= t->stream_min[op] &&
	       fm_x86_stream(t, op, d, op == FM_OP_MEMSET ? 0 : s, n);
}

/* --- fastmem-info's notes ------------------------------------------------ */

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

static void put_size(char *buf, size_t size, size_t *len, size_t v)
{
	const char *unit = " B";

	if (v >= (1 << 20) && !(v & ((1 << 20) - 1))) {
		v >>= 20;
		unit = " MiB";
	} else if (v >= 1024 && !(v & 1023)) {
		v >>= 10;
		unit = " KiB";
	}
	put_num(buf, size, len, v);
	put(buf, size, len, unit);
}

static char notes[1024];

/* The class, the crossovers and the probe, for fastmem-info: parts separated
 * by "; ", each "name: text". */
const char *fm_x86_tune_notes(void)
{
	const struct fm_x86_tune *t = fm_x86_tune();
	const struct fm_x86_class *k = fm_x86_class();
	struct fm_settings scratch;
	const struct fm_settings *st = fm_settings_get(&scratch);
	size_t len = 0;

	put(notes, sizeof(notes), &len, "class: ");
	put(notes, sizeof(notes), &len, k->name);
	put(notes, sizeof(notes), &len, " (crossovers from ");
	put(notes, sizeof(notes), &len, k->source);
	put(notes, sizeof(notes), &len, "); policies: copies ");
	if (t->copy_rep_min == SIZE_MAX) {
		put(notes, sizeof(notes), &len, "vector loop only");
	} else if (st->rep_src[FM_OP_MEMCPY]) {
		put(notes, sizeof(notes), &len, "rep movsb from ");
		put_size(notes, sizeof(notes), &len, t->copy_rep_min);
		put(notes, sizeof(notes), &len, " (config)");
	} else {
		put(notes, sizeof(notes), &len, "rep movsb above ");
		put_size(notes, sizeof(notes), &len, t->copy_rep_min - 1);
	}
	if (t->copy_rep_min != SIZE_MAX && t->copy_rep_cold != SIZE_MAX &&
	    t->probe) {
		put(notes, sizeof(notes), &len, " (from ");
		put_size(notes, sizeof(notes), &len, t->copy_rep_cold);
		put(notes, sizeof(notes), &len,
		    " only into destinations found cold");
		if (t->copy_rep_any != SIZE_MAX) {
			put(notes, sizeof(notes), &len, ", from ");
			put_size(notes, sizeof(notes), &len, t->copy_rep_any);
			put(notes, sizeof(notes), &len, " into any");
		}
		put(notes, sizeof(notes), &len, ")");
	}
	put(notes, sizeof(notes), &len, ", sets ");
	if (t->set_rep_min == SIZE_MAX) {
		put(notes, sizeof(notes), &len, "vector loop only");
	} else {
		put(notes, sizeof(notes), &len, "rep stosb from ");
		put_size(notes, sizeof(notes), &len, t->set_rep_min);
		if (st->rep_src[FM_OP_MEMSET])
			put(notes, sizeof(notes), &len, " (config)");
		if (t->set_rep_timed < t->set_rep_min) {
			put(notes, sizeof(notes), &len, " (from ");
			put_size(notes, sizeof(notes), &len, t->set_rep_timed);
			put(notes, sizeof(notes), &len,
			    " into destinations whose first 4 KiB took "
			    "more than ");
			put_num(notes, sizeof(notes), &len, t->set_cold_ticks);
			put(notes, sizeof(notes), &len, " ticks)");
		}
		if (t->set_rep_streams != SIZE_MAX) {
			put(notes, sizeof(notes), &len,
			    " and, whatever the residency, from ");
			put_size(notes, sizeof(notes), &len,
				 t->set_rep_streams);
			put(notes, sizeof(notes), &len,
			    " (it streams by itself there)");
		}
	}
	put(notes, sizeof(notes), &len,
	    t->clzero ? "; streamed zeroes use clzero" : "");
	if (fm_x86_nt_pages() > 1) {
		put(notes, sizeof(notes), &len, "; streamed sets go through ");
		put_num(notes, sizeof(notes), &len, fm_x86_nt_pages());
		put(notes, sizeof(notes), &len, " pages at a time");
	}
	if (fm_x86_nt_prefetch()) {
		put(notes, sizeof(notes), &len, "; streamed copies prefetch ");
		put_size(notes, sizeof(notes), &len, fm_x86_nt_prefetch());
		put(notes, sizeof(notes), &len, " ahead");
	} else {
		put(notes, sizeof(notes), &len,
		    "; streamed copies do not prefetch");
	}
	if (k->avx512_zen4 && (fm_usable_features_of(st) & FM_FEAT(avx512)))
		put(notes, sizeof(notes), &len,
		    "; automatic copies and sets are avx512_zen4's (copies "
		    "load up to 64 B as two ymm halves, sets of 257-512 B "
		    "store in address order)");
	put(notes, sizeof(notes), &len, "; probe: ");
	if (t->probe) {
		put(notes, sizeof(notes), &len, "on (8 loads: cached ");
		put_num(notes, sizeof(notes), &len, probe_cal.cached);
		put(notes, sizeof(notes), &len, ", memory ");
		put_num(notes, sizeof(notes), &len, probe_cal.memory);
		put(notes, sizeof(notes), &len, " ticks, cold above ");
		put_num(notes, sizeof(notes), &len, probe_cal.limit);
		put(notes, sizeof(notes), &len, ", page faults above ");
		put_num(notes, sizeof(notes), &len, probe_cal.fault);
		put(notes, sizeof(notes), &len, ")");
	} else if (st->probe == FM_PROBE_OFF) {
		put(notes, sizeof(notes), &len,
		    st->probe_src == FM_SRC_ENV ? "off (FASTMEM_PROBE=off)"
						: "off (config: probe = off)");
	} else if (!probe_wanted) {
		put(notes, sizeof(notes), &len,
		    "not used (this class has no cold crossover)");
	} else {
		put(notes, sizeof(notes), &len, "unusable (");
		put(notes, sizeof(notes), &len, probe_cal.why);
		put(notes, sizeof(notes), &len, ")");
	}
	for (int op = 0; op < FM_X_OPS; op++) {
		size_t m = t->stream_min[op];

		put(notes, sizeof(notes), &len, "; below its threshold ");
		put(notes, sizeof(notes), &len, fm_op_key((enum fm_op)op));
		if (m == SIZE_MAX || m >= fm_threshold((enum fm_op)op)) {
			put(notes, sizeof(notes), &len, " never streams");
			continue;
		}
		put(notes, sizeof(notes), &len,
		    t->probe ? " streams data found cold from "
			     : " streams by size from ");
		put_size(notes, sizeof(notes), &len, m);
	}
	return notes;
}
