/* SPDX-License-Identifier: MIT */
/*
 * The x86 policy's decisions, with the residency probe's answer forced:
 * for every CPU class in the table (and the one for unknown CPUs), the
 * crossovers in force when the probe is usable, unusable or off, when the
 * user set a threshold or a cold crossover, and whether a call streams for
 * data found cached or cold.  Linked statically against libfastmem.a: these
 * are the library's hidden functions.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "x86/x86.h"

static const struct fm_cache_info caches[] = {
	{ 64, 32 << 10, 512 << 10, 32 << 20, 1, 2 },  /* Zen 3 guest */
	{ 64, 48 << 10, 2 << 20, 260 << 20, 1, 2 },   /* the Intel Xeon */
	{ 64, 48 << 10, 1 << 20, 32 << 20, 2, 16 },   /* L2 shared by 2 */
	{ 64, 48 << 10, 1 << 20, 508 << 20, 1, 0 },   /* the Zen 5 guest */
	{ 64, 48 << 10, 1280 << 10, 48 << 20, 1, 2 }, /* the Ice Lake guest */
};
#define NCACHES (sizeof(caches) / sizeof(caches[0]))

static const struct fm_x86_class *class_at(int i)
{
	const struct fm_x86_class *other;
	size_t n;
	const struct fm_x86_class *t = fm_x86_classes(&n, &other);

	return (size_t)i < n ? &t[i] : other;
}

static int nclasses(void)
{
	const struct fm_x86_class *other;
	size_t n;

	fm_x86_classes(&n, &other);
	return (int)n + 1;
}

/* Every entry is sane: named, sourced (a terminated string: C accepts an
 * initializer that fills the array without its NUL), cold before cached. */
START_TEST(table_is_sane)
{
	for (int i = 0; i < nclasses(); i++) {
		const struct fm_x86_class *k = class_at(i);

		ck_assert_msg(k->name[0] && k->source[0], "entry %d", i);
		ck_assert_msg(memchr(k->source, 0, sizeof(k->source)),
			      "entry %d: source not terminated", i);
		ck_assert_msg(memchr(k->name, 0, sizeof(k->name)),
			      "entry %d: name not terminated", i);
		for (size_t c = 0; c < NCACHES; c++) {
			size_t cc = fm_x86_crossover(k->copy_cold, &caches[c]);
			size_t ch =
				fm_x86_crossover(k->copy_cached, &caches[c]);
			size_t sc = fm_x86_crossover(k->set_cold, &caches[c]);
			size_t sh = fm_x86_crossover(k->set_cached, &caches[c]);

			ck_assert_msg(k->copy_cold.base == FM_X_NEVER ||
					      cc < ch,
				      "%s: copies stream cold from %zu, cached "
				      "from %zu",
				      k->name, cc, ch);
			ck_assert_msg(k->set_cold.base == FM_X_NEVER || sc < sh,
				      "%s: sets", k->name);
			ck_assert(ch != SIZE_MAX && sh != SIZE_MAX);
			/* copy_big sends the alias window to the loop inline
			 * below 16 KiB: only a class that keeps it may
			 * take rep movsb there */
			ck_assert_msg(k->rep_movsb_aliasing ||
					      fm_x86_crossover(k->copy_rep,
							       &caches[c]) +
							      1 >=
						      FM_X86_LOOP_BELOW,
				      "%s: rep movsb below 16 KiB without "
				      "the alias window",
				      k->name);
		}
	}
}
END_TEST

/* The CPU this runs on matches at most one entry. */
START_TEST(one_class_per_cpu)
{
	const struct fm_x86_class *other, *t, *match = NULL;
	struct fm_x86_id id;
	size_t n;
	int hits = 0;

	t = fm_x86_classes(&n, &other);
	fm_x86_cpu_id(&id);
	for (size_t i = 0; i < n; i++)
		if (fm_x86_class_matches(&t[i], &id)) {
			hits++;
			match = &t[i];
		}
	ck_assert_int_le(hits, 1);
	ck_assert_ptr_eq(fm_x86_class(), hits ? match : other);
	/* the streaming loops' shape is this class's */
	t = fm_x86_class();
	ck_assert_uint_eq(fm_x86_nt_prefetch(), t->copy_nt_prefetch);
	ck_assert_uint_eq(fm_x86_nt_pages(),
			  t->set_nt_pages ? t->set_nt_pages : 1);
}
END_TEST

static const struct fm_x86_class *class_named(const char *name)
{
	for (int i = 0; i < nclasses(); i++)
		if (!strcmp(class_at(i)->name, name))
			return class_at(i);
	ck_abort_msg("no class %s", name);
	return NULL;
}

/*
 * The crossovers each measured class must give on the machine it was
 * measured on (the table's entries restated, so that an edit of the table
 * that changes them is seen): sizes in bytes, SIZE_MAX for never.
 */
START_TEST(golden_crossovers)
{
	static const struct {
		const char *cls;
		int cache; /* index into caches[] */
		size_t copy_rep, copy_rep_cold, copy_rep_any, set_rep,
			copy_cold, set_cold, copy_thr, set_thr, set_rep_streams,
			set_rep_timed, copy_nt_prefetch, set_nt_pages;
		int clzero; /* on a CPU with CLZERO */
		int zen4;
	} want[] = {
		{ "AMD Zen 5", 3, (24 << 10) + 1, 4 << 20, 16 << 20, 768 << 10,
		  SIZE_MAX, 4 << 20, (size_t)512 << 20, 32 << 20, SIZE_MAX,
		  64 << 10, 2048, 8, 1, 0 },
		{ "AMD Zen 3/Zen 4", 0, (16 << 10) + 1, 1 << 20, SIZE_MAX,
		  384 << 10, 4 << 20, 1 << 20, 16 << 20, 32 << 20, SIZE_MAX,
		  SIZE_MAX, 0, 1, 0, 1 },
		{ "Intel server core, 2 MiB L2", 1, (24 << 10) + 1, SIZE_MAX,
		  SIZE_MAX, 2048, 2 << 20, 2 << 20, (size_t)64 << 20, 16 << 20,
		  SIZE_MAX, SIZE_MAX, 2048, 8, 0, 0 },
		{ "Intel Ice Lake server", 4, 4096, SIZE_MAX, SIZE_MAX,
		  48 << 10, 1280 << 10, 2560 << 10, 15 << 20, 20 << 20,
		  SIZE_MAX, SIZE_MAX, 2048, 8, 0, 0 },
	};
	struct fm_x86_probe_cal cal = { 40, 400, 800, 6400, "" };
	int expl[FM_X_OPS] = { 0, 0, 0 };

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct fm_x86_class *k = class_named(want[i].cls);
		const struct fm_cache_info *ci = &caches[want[i].cache];
		struct fm_x86_tune t;

		memset(&t, 0, sizeof(t));
		fm_x86_tune_compute(&t, k, ci, FM_FEAT(erms) | FM_FEAT(clzero),
				    &cal, 1, expl, NULL);
		ck_assert_uint_eq(t.copy_rep_min, want[i].copy_rep);
		ck_assert_uint_eq(t.copy_rep_cold, want[i].copy_rep_cold);
		ck_assert_uint_eq(t.copy_rep_any, want[i].copy_rep_any);
		ck_assert_uint_eq(t.set_rep_min, want[i].set_rep);
		ck_assert_uint_eq(t.stream_min[FM_X_COPY], want[i].copy_cold);
		ck_assert_uint_eq(t.stream_min[FM_X_SET], want[i].set_cold);
		ck_assert_uint_eq(fm_x86_crossover(k->copy_cached, ci),
				  want[i].copy_thr);
		ck_assert_uint_eq(fm_x86_crossover(k->set_cached, ci),
				  want[i].set_thr);
		ck_assert_uint_eq(t.set_rep_streams, want[i].set_rep_streams);
		ck_assert_uint_eq(t.set_rep_timed, want[i].set_rep_timed);
		ck_assert_uint_eq(t.set_cold_ticks, cal.memory / 4);
		ck_assert_uint_eq(k->copy_nt_prefetch,
				  want[i].copy_nt_prefetch);
		ck_assert_uint_eq(k->set_nt_pages, want[i].set_nt_pages);
		ck_assert_int_eq(t.clzero, want[i].clzero);
		ck_assert_int_eq(k->avx512_zen4, want[i].zen4);
	}
}
END_TEST

/*
 * The automatic copy and set of an AVX-512 CPU are avx512_zen4_auto where
 * its class asks for it, avx512_auto elsewhere; no other op or variant is
 * passed over, and the name the hook knows is the registry's.
 */
START_TEST(zen4_by_class)
{
	int zen4 = fm_x86_class()->avx512_zen4;
	static const enum fm_op ops[] = { FM_OP_MEMCPY, FM_OP_MEMMOVE,
					  FM_OP_MEMSET };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const struct fm_variant *list;
		size_t nv = fm_variants(ops[i], &list);
		int listed = 0;

		for (size_t j = 0; j < nv; j++)
			listed += !strcmp(list[j].name, "avx512_zen4_auto") &&
				  (list[j].flags & FM_VARIANT_AUTO);
		ck_assert_int_eq(listed, 1);
		ck_assert_int_eq(
			fm_arch_passes_over(ops[i], "avx512_zen4_auto"), !zen4);
	}
	ck_assert_int_eq(
		fm_arch_passes_over(FM_OP_CLEAR_PAGE, "avx512_zen4_auto"), 0);
	ck_assert_int_eq(fm_arch_passes_over(FM_OP_MEMCPY, "avx512_auto"), 0);
	ck_assert_int_eq(fm_arch_passes_over(FM_OP_MEMSET, "avx512_zen4"), 0);
	ck_assert_int_eq(fm_arch_passes_over(FM_OP_MEMCPY, "avx512_zen4_"), 0);
	ck_assert_int_eq(fm_arch_passes_over(FM_OP_MEMSET, "avx512_zen4_nt"),
			 0);
	ck_assert_int_eq(fm_arch_passes_over(FM_OP_MEMCPY, "avx512_zen4_autox"),
			 0);
	ck_assert_int_eq(
		fm_arch_passes_over(FM_OP_COPY_PAGE, "avx512_zen4_auto"), 0);
	if (!(fm_usable_features() & FM_FEAT(avx512))) {
		printf("zen4_by_class: no usable AVX-512\n");
		return;
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(fm_selected_reason(ops[i]), "auto")) {
			printf("zen4_by_class: %s forced\n",
			       fm_op_name(ops[i]));
			continue;
		}
		ck_assert_str_eq(fm_selected(ops[i]),
				 zen4 ? "avx512_zen4_auto" : "avx512_auto");
	}
}
END_TEST

/*
 * The size formula is stated once (lib/internal.h) and the entry for
 * unknown CPUs is made of it: its "streams even when cached" crossovers are
 * the formula's multiples of the per-thread L2, and without a usable probe
 * every class streams by that formula (tune.c reads it from the entry).
 */
START_TEST(size_formula_in_one_place)
{
	const struct fm_x86_class *unknown = class_at(nclasses() - 1);
	struct fm_x86_probe_cal cal = { 40, 400, 800, 6400, "" };
	int expl[FM_X_OPS] = { 0, 0, 0 };

	ck_assert_str_eq(unknown->name, "unknown CPU");
	for (size_t c = 0; c < NCACHES; c++) {
		const struct fm_cache_info *ci = &caches[c];
		size_t l2 =
			ci->l2_sharing > 1 ? ci->l2 / ci->l2_sharing : ci->l2;

		ck_assert_uint_eq(fm_x86_crossover(unknown->copy_cached, ci),
				  FM_NT_COPY_L2 * l2);
		ck_assert_uint_eq(fm_x86_crossover(unknown->set_cached, ci),
				  FM_NT_SET_L2 * l2);
		for (int i = 0; i < nclasses(); i++) {
			struct fm_x86_tune t;

			memset(&t, 0, sizeof(t));
			fm_x86_tune_compute(&t, class_at(i), ci, FM_FEAT(erms),
					    &cal, 0, expl, NULL);
			ck_assert_uint_eq(t.size_min[FM_X_COPY],
					  FM_NT_COPY_L2 * l2);
			ck_assert_uint_eq(t.size_min[FM_X_MOVE],
					  FM_NT_COPY_L2 * l2);
			ck_assert_uint_eq(t.size_min[FM_X_SET],
					  FM_NT_SET_L2 * l2);
		}
	}
}
END_TEST

/*
 * A CPU that reports no L2 (or no L1d): every crossover assumes the one L2
 * the thresholds assume too (FM_ASSUMED_L2, whatever the sharing), and a
 * nonzero L1d.
 */
START_TEST(unknown_cache_sizes)
{
	const struct fm_cache_info none = { 64, 0, 0, 0, 2, 2 };
	const struct fm_cache_info assumed = { 64, 0, FM_ASSUMED_L2, 0, 1, 2 };

	for (int i = 0; i < nclasses(); i++) {
		const struct fm_x86_class *k = class_at(i);
		const struct fm_crossover xs[] = {
			k->copy_rep_cold, k->copy_rep_any,   k->set_rep,
			k->copy_cold,	  k->copy_cached,    k->set_cold,
			k->set_cached,	  k->set_rep_streams
		};

		for (size_t x = 0; x < sizeof(xs) / sizeof(xs[0]); x++)
			ck_assert_uint_eq(fm_x86_crossover(xs[x], &none),
					  fm_x86_crossover(xs[x], &assumed));
		ck_assert_uint_gt(fm_x86_crossover(k->copy_rep, &none), 0);
		ck_assert_uint_lt(fm_x86_crossover(k->copy_rep, &none),
				  SIZE_MAX);
	}
}
END_TEST

enum probe_state { USABLE, UNUSABLE };

static void check_class(int i, const struct fm_cache_info *ci,
			enum probe_state ps, int explicit_thr, size_t override)
{
	static const int ops[FM_X_OPS] = { FM_X_COPY, FM_X_MOVE, FM_X_SET };
	const struct fm_x86_class *k = class_at(i);
	struct fm_x86_probe_cal cal = { 40, 400, 220, 6400, "" };
	struct fm_x86_tune t;
	int expl[FM_X_OPS];
	size_t cold[FM_X_OPS];

	for (int op = 0; op < FM_X_OPS; op++) {
		expl[op] = explicit_thr;
		cold[op] = override;
	}
	memset(&t, 0, sizeof(t));
	fm_x86_tune_compute(&t, k, ci, FM_FEAT(erms) | FM_FEAT(sse2), &cal,
			    ps == USABLE, expl, cold);
	ck_assert_int_eq(t.probe, ps == USABLE);
	ck_assert_uint_eq(t.copy_rep_min,
			  fm_x86_crossover(k->copy_rep, ci) + 1);
	ck_assert_uint_eq(t.copy_rep_cold,
			  fm_x86_crossover(k->copy_rep_cold, ci));
	ck_assert_uint_gt(t.copy_rep_cold, t.copy_rep_min);
	ck_assert_uint_eq(t.copy_rep_any,
			  fm_x86_crossover(k->copy_rep_any, ci));
	ck_assert(t.copy_rep_any == SIZE_MAX ||
		  t.copy_rep_any > t.copy_rep_cold);
	ck_assert_uint_eq(t.set_rep_min, fm_x86_crossover(k->set_rep, ci));
	ck_assert_int_eq(t.rep_movsb_aliasing, k->rep_movsb_aliasing);
	ck_assert_int_eq(t.clzero, 0); /* the CPU has no CLZERO here */
	/* sets time their first bytes only with the probe usable */
	ck_assert_uint_eq(t.set_rep_timed,
			  ps == USABLE ? fm_x86_crossover(k->set_rep_cold, ci)
				       : SIZE_MAX);
	ck_assert_uint_eq(t.set_cold_ticks, ps == USABLE ? cal.memory / 4 : 0);
	ck_assert(t.set_rep_timed == SIZE_MAX ||
		  (t.set_rep_timed > FM_SET_TIMED &&
		   t.set_rep_timed < t.set_rep_min));
	for (int j = 0; j < FM_X_OPS; j++) {
		int op = ops[j];
		struct fm_crossover x =
			op == FM_X_SET ? k->set_cold : k->copy_cold;
		size_t by_size = fm_x86_crossover(
			(struct fm_crossover){ FM_X_L2, op == FM_X_SET ? 4 : 32,
					       1 },
			ci);
		size_t want;

		if (explicit_thr)
			want = SIZE_MAX;
		else if (ps == USABLE && override)
			want = override;
		else if (ps == USABLE)
			want = fm_x86_crossover(x, ci); /* SIZE_MAX: never */
		else
			want = by_size;
		ck_assert_msg(t.stream_min[op] == want,
			      "%s op %d probe %d explicit %d: from %zu, want "
			      "%zu",
			      k->name, op, ps, explicit_thr, t.stream_min[op],
			      want);
		if (want == SIZE_MAX)
			continue;
		/* just below: never; at and above: as the probe finds, or by
		 * size when it cannot tell */
		for (int cold_data = 0; cold_data < 2; cold_data++) {
			ck_assert(!fm_x86_stream_decide(&t, op, want - 1,
							cold_data));
			ck_assert_int_eq(
				fm_x86_stream_decide(&t, op, want, cold_data),
				ps == USABLE ? cold_data : want >= by_size);
			ck_assert_int_eq(fm_x86_stream_decide(&t, op, 2 * want,
							      cold_data),
					 ps == USABLE ? cold_data : 1);
		}
	}
}

START_TEST(decisions)
{
	int i = _i / (int)NCACHES;
	const struct fm_cache_info *ci = &caches[_i % (int)NCACHES];

	check_class(i, ci, USABLE, 0, 0);
	check_class(i, ci, UNUSABLE, 0, 0);
	check_class(i, ci, USABLE, 1, 0);
	check_class(i, ci, UNUSABLE, 1, 0);
	check_class(i, ci, USABLE, 0, 300000);
	check_class(i, ci, UNUSABLE, 0, 300000);
}
END_TEST

/*
 * The calibration's answer is consistent (whether the probe then tells
 * cached from cold data is a matter of timing on a shared host: that is
 * measured, not tested; docs/policy.md), and buffers too
 * small to spread eight loads over are never called cold.
 */
START_TEST(probe_calibration)
{
	static unsigned char small[8 * 64 - 1], big[64 * 1024];
	struct fm_x86_probe_cal cal;
	struct fm_settings scratch;
	int tsc_off = fm_settings_get(&scratch)->tsc_disabled;

	if (fm_x86_probe_calibrate(&cal, tsc_off)) {
		ck_assert_uint_lt(cal.cached, cal.memory);
		ck_assert_uint_gt(cal.limit, cal.memory);
		ck_assert_uint_gt(cal.fault, cal.limit);
		ck_assert(cal.why[0] == 0);
	} else {
		ck_assert(cal.why[0] != 0);
		fprintf(stderr, "probe unusable here: %s\n", cal.why);
	}
	ck_assert(!fm_x86_cold(small, sizeof(small), 0, UINT32_MAX));
	if (tsc_off)
		return;
	/* whatever the timing: every load is slower than a limit of 0, so
	 * cold with no fault limit, and never cold when all are page faults */
	ck_assert(fm_x86_cold(big, sizeof(big), 0, UINT32_MAX));
	ck_assert(!fm_x86_cold(big, sizeof(big), 0, 0));
	/* past the threshold: a fault limit of 0 makes any load a fault,
	 * none without a usable probe or for a buffer too small to probe */
	struct fm_x86_tune t;

	memset(&t, 0, sizeof(t));
	t.probe = 1;
	t.probe_fault = 0;
	ck_assert(fm_x86_faulting(&t, big, sizeof(big)));
	ck_assert(!fm_x86_faulting(&t, small, sizeof(small)));
	t.probe_fault = UINT32_MAX;
	ck_assert(!fm_x86_faulting(&t, big, sizeof(big)));
	t.probe = 0;
	t.probe_fault = 0;
	ck_assert(!fm_x86_faulting(&t, big, sizeof(big)));
}
END_TEST

/*
 * A destination the policy streamed and finds cold again gets ordinary
 * stores once; cold after that too, it streams from then on; found cached,
 * it is forgotten.  A source the policy streamed into counts as well.  The
 * probe's verdict is forced with its limits: a cold limit of 0 makes any
 * data cold, one of UINT32_MAX any data cached.
 */
START_TEST(streamed_destination_retried)
{
	enum { REGION = 8192, REGIONS = 13 };
	static unsigned char buf[REGIONS][REGION];
	struct fm_settings scratch;
	struct fm_x86_tune t;
	unsigned char *a = buf[0], *b = buf[1], *c = buf[2];

	if (fm_settings_get(&scratch)->tsc_disabled)
		return; /* the probe would read the time stamp counter */
	memset(&t, 0, sizeof(t));
	for (int op = 0; op < FM_X_OPS; op++) {
		t.stream_min[op] = 4096;
		t.size_min[op] = SIZE_MAX;
	}
	t.probe = 1;
	t.probe_fault = UINT32_MAX;
	t.probe_limit = 0;
	/* a set: streams, then is retried, then streams for good */
	ck_assert(fm_x86_stream(&t, FM_X_SET, a, NULL, REGION));
	ck_assert(!fm_x86_stream(&t, FM_X_SET, a, NULL, REGION));
	ck_assert(fm_x86_stream(&t, FM_X_SET, a, NULL, REGION));
	ck_assert(fm_x86_stream(&t, FM_X_SET, a + 100, NULL, 4096));
	/* a copy from a buffer streamed into, to one never seen: a retry */
	ck_assert(fm_x86_stream(&t, FM_X_SET, b, NULL, REGION));
	ck_assert(!fm_x86_stream(&t, FM_X_COPY, c, b, REGION));
	ck_assert(fm_x86_stream(&t, FM_X_COPY, c, b, REGION));
	/* cached: forgotten, so the next cold call starts over */
	t.probe_limit = UINT32_MAX;
	ck_assert(!fm_x86_stream(&t, FM_X_SET, a, NULL, REGION));
	t.probe_limit = 0;
	ck_assert(fm_x86_stream(&t, FM_X_MOVE, a, c + REGION, REGION));
	ck_assert(!fm_x86_stream(&t, FM_X_MOVE, a, c + REGION, REGION));
	/* below stream_min the probe is not asked and nothing is kept */
	ck_assert(!fm_x86_stream(&t, FM_X_SET, buf[4], NULL, 4095));
	ck_assert(fm_x86_stream(&t, FM_X_SET, buf[4], NULL, REGION));
	/* the oldest of more destinations than are kept is forgotten: it
	 * streams again where a kept one would be retried */
	for (int i = 5; i < REGIONS; i++)
		ck_assert(fm_x86_stream(&t, FM_X_SET, buf[i], NULL, REGION));
	ck_assert(!fm_x86_stream(&t, FM_X_SET, buf[REGIONS - 1], NULL, REGION));
	ck_assert(fm_x86_stream(&t, FM_X_SET, buf[4], NULL, REGION));
}
END_TEST

/* rep movsb is avoided exactly where the destination is 1-63 bytes ahead
 * of the source modulo 4096, whatever the pages */
START_TEST(rep_movsb_aliasing)
{
	static unsigned char buf[3 * 4096];

	for (long dist = -130; dist <= 4096 + 130; dist++) {
		long mod = ((dist % 4096) + 4096) % 4096;
		const unsigned char *s = buf + 4096;

		ck_assert_msg(fm_rep_movsb_slow(s + dist, s) ==
				      (mod >= 1 && mod <= 63),
			      "distance %ld", dist);
	}
}
END_TEST

/*
 * What the copy policy must choose for n bytes from src to src + dist +
 * j * far (j = -1, 0, 1; far: whole pages, more than n) at crossovers that
 * would pick rep movsb everywhere: the loop where the destination is 1-63
 * bytes ahead of the source modulo 4096, and at dist itself, where rep
 * movsb may run forward only from a line or more below the source; rep movsb
 * anywhere else.
 */
static void check_rep_distances(const struct fm_x86_tune *t, size_t n,
				uintptr_t src, int op)
{
	uintptr_t far = ((n + 4095) & ~(uintptr_t)4095) + 3 * 4096;

	for (long dist = -130; dist <= 4096 + 130; dist++) {
		long mod = ((dist % 4096) + 4096) % 4096;
		int slow = t->rep_movsb_aliasing && mod >= 1 && mod <= 63;

		for (int j = -1; j <= 1; j++) {
			uintptr_t dst =
				src + (uintptr_t)dist + (uintptr_t)j * far;
			int want = slow ? FM_X_LOOP : FM_X_REP;
			int got = fm_x86_copy_how(t, (void *)dst, (void *)src,
						  n, op);

			if (!j && dist > -FM_LINE)
				want = FM_X_LOOP;
			ck_assert_msg(got == want,
				      "n %zu, src at page offset %lu, dst "
				      "%+ld + %d x %lu, op %d: %d, want %d",
				      n, (unsigned long)(src & 4095), dist, j,
				      (unsigned long)far, op, got, want);
		}
	}
}

/* The policy, not just the predicate, avoids that window where the class
 * says so, and only there.  Addresses only: nothing is copied. */
START_TEST(rep_movsb_aliasing_policy)
{
	static const size_t sizes[] = { 16384, (1 << 20) + 4095 };
	static const uintptr_t offsets[] = { 0, 17, 4032, 4095 };
	struct fm_x86_tune t;

	memset(&t, 0, sizeof(t));
	t.copy_rep_min = 16384;
	t.copy_rep_cold = t.copy_rep_any = SIZE_MAX;
	t.set_rep_min = t.set_rep_streams = SIZE_MAX;
	for (int op = 0; op < FM_X_OPS; op++)
		t.stream_min[op] = t.size_min[op] = SIZE_MAX;
	t.ready = 1;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]);
		     o++) {
			uintptr_t src = ((uintptr_t)1 << 30) + offsets[o];

			/* the hints and the dispatched memcpy, in a class
			 * that avoids the window and in one that does not */
			for (int a = 1; a >= 0; a--) {
				t.rep_movsb_aliasing = a;
				check_rep_distances(&t, sizes[i], src, -1);
				check_rep_distances(&t, sizes[i], src,
						    FM_X_COPY);
			}
		}
	}
	t.rep_movsb_aliasing = 1;
	/* from copy_rep_cold on, rep movsb only into a destination found
	 * cold: a fault limit of 0 makes any load a fault, a cold limit of
	 * UINT32_MAX any data cached */
	static unsigned char from[(1 << 20) + 4096], to[(1 << 20) + 4096];

	t.copy_rep_cold = 1 << 20;
	t.probe = 1;
	for (int op = -1; op <= FM_X_COPY; op++) {
		int want = op < 0 ? FM_X_REP : FM_X_LOOP;

		t.probe_fault = 0;
		ck_assert_int_eq(fm_x86_copy_how(&t, to, from, 1 << 20, op),
				 want);
		ck_assert_int_eq(
			fm_x86_copy_how(&t, to, from, (1 << 20) - 1, op),
			FM_X_REP);
		t.probe_fault = UINT32_MAX;
		ck_assert_int_eq(fm_x86_copy_how(&t, to, from, 1 << 20, op),
				 FM_X_REP);
		t.probe_limit = UINT32_MAX;
		ck_assert_int_eq(fm_x86_copy_how(&t, to, from, 1 << 20, op),
				 want);
		t.probe_limit = 0;
	}
	/* from copy_rep_any on, rep movsb again whatever the probe finds */
	t.copy_rep_any = 1 << 20;
	for (int op = -1; op <= FM_X_COPY; op++) {
		t.probe_fault = 0;
		ck_assert_int_eq(fm_x86_copy_how(&t, to, from, 1 << 20, op),
				 FM_X_REP);
		t.probe_fault = t.probe_limit = UINT32_MAX;
		ck_assert_int_eq(fm_x86_copy_how(&t, to, from, 1 << 20, op),
				 FM_X_REP);
		t.probe_limit = 0;
	}
}
END_TEST

/*
 * The set policy's order, with made-up crossovers and the probe off (its
 * answers are then the size crossovers'): rep stosb where it streams by
 * itself, else streaming from the threshold or from size_min below it (the
 * dispatched memset only), else rep stosb, else the timed start (dispatched
 * only), else the loop.  Addresses only: nothing is set.
 */
START_TEST(set_how_decision)
{
	struct fm_x86_tune t;
	const void *d = (const void *)((uintptr_t)1 << 30);

	memset(&t, 0, sizeof(t));
	t.set_rep_timed = 64 << 10;
	t.set_rep_min = 1 << 20;
	t.set_rep_streams = 64 << 20;
	for (int op = 0; op < FM_X_OPS; op++)
		t.stream_min[op] = t.size_min[op] = SIZE_MAX;
	t.ready = 1;
	for (int probe = 0; probe < 2; probe++) {
		size_t thr = 16 << 20;

		ck_assert_int_eq(fm_x86_set_how(&t, d, 32 << 10, thr, probe),
				 FM_X_LOOP);
		ck_assert_int_eq(fm_x86_set_how(&t, d, 64 << 10, thr, probe),
				 probe ? FM_X_TIMED : FM_X_LOOP);
		ck_assert_int_eq(fm_x86_set_how(&t, d, 1 << 20, thr, probe),
				 FM_X_REP);
		ck_assert_int_eq(fm_x86_set_how(&t, d, thr - 1, thr, probe),
				 FM_X_REP);
		ck_assert_int_eq(fm_x86_set_how(&t, d, thr, thr, probe),
				 FM_X_STREAM);
		ck_assert_int_eq(fm_x86_set_how(&t, d, 64 << 20, thr, probe),
				 FM_X_REP);
		/* a threshold above rep stosb's own streaming never decides */
		ck_assert_int_eq(
			fm_x86_set_how(&t, d, 64 << 20, SIZE_MAX, probe),
			FM_X_REP);
		/* below the threshold, by size alone (the probe is off) */
		t.stream_min[FM_X_SET] = t.size_min[FM_X_SET] = 512 << 10;
		ck_assert_int_eq(fm_x86_set_how(&t, d, 512 << 10, thr, probe),
				 probe ? FM_X_STREAM : FM_X_LOOP);
		ck_assert_int_eq(
			fm_x86_set_how(&t, d, (512 << 10) - 1, thr, probe),
			probe ? FM_X_TIMED : FM_X_LOOP);
		t.stream_min[FM_X_SET] = t.size_min[FM_X_SET] = SIZE_MAX;
	}
	/* no timed start where the class has none */
	t.set_rep_timed = SIZE_MAX;
	ck_assert_int_eq(fm_x86_set_how(&t, d, 64 << 10, 16 << 20, 1),
			 FM_X_LOOP);
}
END_TEST

/*
 * A set's first FM_SET_TIMED bytes took dt ticks: the rest by rep stosb
 * when dt is above set_cold_ticks and not a page fault; and never without
 * rep stosb (no ERMS) or the probe.
 */
START_TEST(set_timed_decision)
{
	const struct fm_x86_class *k = class_named("AMD Zen 5");
	struct fm_x86_probe_cal cal = { 40, 400, 800, 6400, "" };
	int expl[FM_X_OPS] = { 0, 0, 0 };
	struct fm_x86_tune t;

	memset(&t, 0, sizeof(t));
	fm_x86_tune_compute(&t, k, &caches[3], FM_FEAT(erms), &cal, 1, expl,
			    NULL);
	ck_assert_uint_eq(t.set_cold_ticks, 100);
	ck_assert(!fm_x86_set_rest_rep(&t, 0));
	ck_assert(!fm_x86_set_rest_rep(&t, 100));
	ck_assert(fm_x86_set_rest_rep(&t, 101));
	ck_assert(fm_x86_set_rest_rep(&t, 6400));
	ck_assert(!fm_x86_set_rest_rep(&t, 6401));
	ck_assert(!fm_x86_set_rest_rep(&t, UINT64_MAX));
	fm_x86_tune_compute(&t, k, &caches[3], 0, &cal, 1, expl, NULL);
	ck_assert_uint_eq(t.set_rep_timed, SIZE_MAX);
	fm_x86_tune_compute(&t, k, &caches[3], FM_FEAT(erms), &cal, 0, expl,
			    NULL);
	ck_assert_uint_eq(t.set_rep_timed, SIZE_MAX);
}
END_TEST

/* A memset, against guard pages: sizes at offsets 0, 1, 63 and 4095, from
 * both ends of the arena, every byte and the windows around checked. */
static void check_sets(set_fn *set, const size_t *sizes, size_t nsizes)
{
	static const size_t offsets[] = { 0, 1, 63, 4095 };
	struct arena a;

	arena_init(&a, (512 << 10) + 2 * FM_PAGE_SIZE);
	for (size_t i = 0; i < nsizes; i++) {
		for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]);
		     o++) {
			size_t n = sizes[i];
			unsigned char *at[2] = { a.base + offsets[o],
						 a.end - n - offsets[o] };

			for (int e = 0; e < 2; e++) {
				unsigned char *p = at[e];
				int c = 0x5a + (int)(i + o + e);
				size_t bad = 0;

				memset(p, 0, n);
				arm_canaries(&a, p, n);
				ck_assert_ptr_eq(set(p, c, n), p);
				while (bad < n && p[bad] == (unsigned char)c)
					bad++;
				ck_assert_msg(bad == n,
					      "n %zu at +%zu: byte %zu not set",
					      n, offsets[o], bad);
				ck_assert_msg(stray_write(&a, p, n) < 0,
					      "n %zu at +%zu: stray write", n,
					      offsets[o]);
			}
		}
	}
	arena_free(&a);
}

/* The dispatched zmm memset with the timed first bytes forced to either
 * answer (set_timed in vecops.h). */
static void check_timed_sets(set_fn *set)
{
	static const size_t sizes[] = { 64 << 10, (64 << 10) + 1,
					(64 << 10) + 4095, 300001 };

	check_sets(set, sizes, sizeof(sizes) / sizeof(sizes[0]));
}

/*
 * Streamed sets and clears go through the class's number of pages at a
 * time (stream_lines in vecops.h): every streaming memset and clear_pages
 * variant usable here, with 1, 3 and 8 pages forced, over runs shorter
 * than, equal to and past whole groups.
 */
START_TEST(streamed_sets_any_pages)
{
	static const size_t sizes[] = { 256,
					2 * FM_PAGE_SIZE - 1,
					2 * FM_PAGE_SIZE + 1,
					9 * FM_PAGE_SIZE + 100,
					25 * FM_PAGE_SIZE + 4095,
					300001 };
	static const size_t pages[] = { 1, 3, 8 };
	static const size_t npages[] = { 1, 2, 3, 8, 9, 17, 100 };
	const struct fm_variant *sets, *clears;
	size_t ns = fm_variants(FM_OP_MEMSET, &sets);
	size_t nc = fm_variants(FM_OP_CLEAR_PAGE, &clears);
	unsigned saved = fm_x86_nt_shape();
	struct arena a;
	int ran = 0;

	arena_init(&a, 101 * FM_PAGE_SIZE);
	for (size_t g = 0; g < sizeof(pages) / sizeof(pages[0]); g++) {
		fm_x86_nt_shape_cache =
			(unsigned)pages[g] << 16 | (saved & 0xffff);
		ck_assert_uint_eq(fm_x86_nt_pages(), pages[g]);
		for (size_t i = 0; i < ns; i++)
			if (sets[i].usable && (sets[i].flags & FM_VARIANT_NT)) {
				check_sets(sets[i].fn.memset, sizes,
					   sizeof(sizes) / sizeof(sizes[0]));
				ran++;
			}
		for (size_t i = 0; i < nc; i++) {
			if (!clears[i].usable ||
			    !(clears[i].flags & FM_VARIANT_NT))
				continue;
			for (size_t j = 0; j < sizeof(npages) / sizeof(*npages);
			     j++) {
				size_t n = npages[j] * FM_PAGE_SIZE;
				unsigned char *p = a.end - n;
				size_t bad = 0;

				memset(p, 0xee, n);
				arm_canaries(&a, p, n);
				clears[i].fn.clear_pages(p, npages[j]);
				while (bad < n && !p[bad])
					bad++;
				ck_assert_msg(bad == n,
					      "%s, %zu pages, groups of %zu: "
					      "byte %zu not zero",
					      clears[i].name, npages[j],
					      pages[g], bad);
				ck_assert_msg(stray_write(&a, p, n) < 0,
					      "%s, %zu pages: stray write",
					      clears[i].name, npages[j]);
			}
			ran++;
		}
	}
	fm_x86_nt_shape_cache = saved;
	arena_free(&a);
	ck_assert_int_gt(ran, 0);
}
END_TEST

START_TEST(set_timed_both_ways)
{
	const struct fm_variant *list;
	size_t nv = fm_variants(FM_OP_MEMSET, &list);
	const struct fm_x86_tune *cur = fm_x86_tune();
	struct fm_x86_tune saved = *cur;
	set_fn *set = NULL;

	for (size_t i = 0; i < nv; i++)
		if (!strcmp(list[i].name, "avx512_auto") && list[i].usable)
			set = list[i].fn.memset;
	if (!set || cur->set_rep_min == SIZE_MAX) {
		printf("set_timed_both_ways: no AVX-512 with ERMS here\n");
		return;
	}
	fm_x86_tune_cache.set_rep_timed = 64 << 10;
	fm_x86_tune_cache.set_rep_min = SIZE_MAX;
	fm_x86_tune_cache.set_rep_streams = SIZE_MAX;
	fm_x86_tune_cache.stream_min[FM_X_SET] = SIZE_MAX;
	/* every first 4 KiB "waited on memory": rep stosb for the rest */
	fm_x86_tune_cache.set_cold_ticks = 0;
	fm_x86_tune_cache.probe_fault = UINT32_MAX;
	check_timed_sets(set);
	/* none did: the loop */
	fm_x86_tune_cache.set_cold_ticks = UINT32_MAX;
	check_timed_sets(set);
	fm_x86_tune_cache = saved;
}
END_TEST

/*
 * Copies take the vector loop without looking the crossovers up only below
 * the rep movsb crossover the crossovers have (or 16 KiB), set before the
 * first call: a class's crossover or a rep_from setting below 16 KiB is
 * honoured from the first copy on.
 */
START_TEST(copy_loop_below_rep)
{
	const struct fm_x86_tune *t = fm_x86_tune();
	size_t want = t->copy_rep_min < FM_X86_LOOP_BELOW ? t->copy_rep_min
							  : FM_X86_LOOP_BELOW;

	ck_assert_uint_eq(fm_x86_copy_loop_below, want);
}
END_TEST

/* The floor as the resolvers set it, on the Ice Lake guest's caches: the
 * class's crossover, a rep_from either side of 16 KiB, no ERMS. */
START_TEST(copy_loop_below_settings)
{
	const struct fm_cache_info *ci = &caches[4];
	size_t saved = fm_x86_copy_loop_below;
	size_t rep = fm_x86_crossover(fm_x86_class()->copy_rep, ci) + 1;
	struct fm_settings st;

	memset(&st, 0, sizeof(st));
	if (!(fm_usable_features_of(&st) & FM_FEAT(erms)))
		rep = SIZE_MAX;
	fm_arch_thresholds_init(ci, &st);
	ck_assert_uint_eq(fm_x86_copy_loop_below,
			  rep < FM_X86_LOOP_BELOW ? rep : FM_X86_LOOP_BELOW);
	st.rep_src[FM_OP_MEMCPY] = FM_SRC_CONFIG;
	st.rep[FM_OP_MEMCPY] = 4096;
	fm_arch_thresholds_init(ci, &st);
	if (fm_usable_features_of(&st) & FM_FEAT(erms))
		ck_assert_uint_eq(fm_x86_copy_loop_below, 4096);
	st.rep[FM_OP_MEMCPY] = 1 << 20;
	fm_arch_thresholds_init(ci, &st);
	ck_assert_uint_eq(fm_x86_copy_loop_below, FM_X86_LOOP_BELOW);
	/* FASTMEM_DISABLE=erms: no rep movsb, whatever rep_from says */
	st.rep[FM_OP_MEMCPY] = 4096;
	st.disable = FM_FEAT(erms);
	fm_arch_thresholds_init(ci, &st);
	ck_assert_uint_eq(fm_x86_copy_loop_below, FM_X86_LOOP_BELOW);
	fm_x86_copy_loop_below = saved;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("x86");

	tcase_add_test(tc, table_is_sane);
	tcase_add_test(tc, one_class_per_cpu);
	tcase_add_test(tc, golden_crossovers);
	tcase_add_test(tc, copy_loop_below_rep);
	tcase_add_test(tc, copy_loop_below_settings);
	tcase_add_test(tc, zen4_by_class);
	tcase_add_test(tc, size_formula_in_one_place);
	tcase_add_test(tc, unknown_cache_sizes);
	tcase_add_loop_test(tc, decisions, 0, nclasses() * (int)NCACHES);
	tcase_add_test(tc, probe_calibration);
	tcase_add_test(tc, streamed_destination_retried);
	tcase_add_test(tc, rep_movsb_aliasing);
	tcase_add_test(tc, rep_movsb_aliasing_policy);
	tcase_add_test(tc, set_timed_decision);
	tcase_add_test(tc, set_how_decision);
	tcase_add_test(tc, set_timed_both_ways);
	tcase_add_test(tc, streamed_sets_any_pages);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
