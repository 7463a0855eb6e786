/* SPDX-License-Identifier: MIT */
/*
 * Every variant in the registry, called directly, usable ones only, against
 * guard pages: any read or write outside the buffers faults (source and
 * destination are flush against PROT_NONE pages at either end, and the
 * source is read-only), bytes around the destination must keep their
 * canaries, and the return value must be right.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"

/* ck_assert records a mark point (a write to a pipe) on every call; in
 * loops that run millions of times only failures may cost anything. */
#define require(cond, ...)                                                     \
	do {                                                                   \
		if (!(cond))                                                   \
			ck_abort_msg(__VA_ARGS__);                             \
	} while (0)

#define MAX_LARGE ((size_t)32 << 20)

static struct arena src_arena, dst_arena;

static void setup(void)
{
	size_t size = quick_mode() ? (2u << 20) : MAX_LARGE + 2 * FM_PAGE_SIZE;

	arena_init(&src_arena, size);
	arena_init(&dst_arena, size);
	fill_pattern(src_arena.base, src_arena.size, 0);
	mprotect(src_arena.base, src_arena.size, PROT_READ);
}

static void teardown(void)
{
	arena_free(&src_arena);
	arena_free(&dst_arena);
}

static const struct fm_variant *variant(enum fm_op op, int i)
{
	const struct fm_variant *list;
	size_t n = fm_variants(op, &list);

	ck_assert_int_lt(i, (int)n);
	return &list[i];
}

static size_t max_large(void)
{
	return quick_mode() ? (1u << 20) : MAX_LARGE;
}

/*
 * FMTEST_MIN_SIZE=N: only the calls of N bytes or more.  For the runs of
 * test/small-threshold.sh, whose settings change nothing below their
 * threshold: the smaller sizes are the main run's, and under qemu they
 * made that script the longest test of each CPU model's quick run.
 */
static size_t min_size(void)
{
	static size_t min = (size_t)-1;

	if (min == (size_t)-1) {
		const char *s = getenv("FMTEST_MIN_SIZE");
		char *end;

		min = s && *s ? strtoull(s, &end, 10) : 0;
		ck_assert_msg(!s || !*s || !*end, "FMTEST_MIN_SIZE=%s", s);
	}
	return min;
}

/* --- copy (memcpy and memmove tables) ----------------------------------- */

static void check_copy(const struct fm_variant *v, size_t n, size_t sa,
		       size_t da, int back)
{
	const unsigned char *src =
		back ? src_arena.end - n - sa : src_arena.base + sa;
	unsigned char *dst =
		back ? dst_arena.end - n - da : dst_arena.base + da;
	void *ret;
	long off;

	if (n < min_size())
		return;
	arm_canaries(&dst_arena, dst, n);
	for (size_t i = 0; i < n; i++)
		dst[i] = (unsigned char)~src[i];
	ret = v->fn.memmove(dst, src, n);
	require(ret == dst, "%s: returned %p, not dst %p (n=%zu)", v->name, ret,
		(void *)dst, n);
	if (memcmp(dst, src, n)) {
		size_t i = 0;
		while (dst[i] == src[i])
			i++;
		ck_abort_msg("%s: n=%zu src+%zu dst+%zu %s: byte %zu is %#x, "
			     "want %#x",
			     v->name, n, sa, da, back ? "(at end)" : "", i,
			     dst[i], src[i]);
	}
	off = stray_write(&dst_arena, dst, n);
	require(off < 0, "%s: n=%zu src+%zu dst+%zu: wrote outside at %ld",
		v->name, n, sa, da, off);
}

static const size_t sampled_align[] = { 0, 1, 7, 15, 31, 33, 63 };
#define NSAMPLED (sizeof(sampled_align) / sizeof(sampled_align[0]))

/*
 * Every size up to 4 KiB (1 KiB quick), where the small-size classes and
 * the masked vectors live; up to 256 B (48 quick) every pair of source and
 * destination alignments, above that the sampled pairs and 16 more that
 * move with n, so that consecutive sizes cover every alignment of each.
 */
static void copy_sizes(const struct fm_variant *v)
{
	size_t all_upto = quick_mode() ? 48 : 256;
	size_t every_size_upto = quick_mode() ? 1024 : 4096;
	size_t large[128], nlarge;

	for (size_t n = 0; n <= every_size_upto; n++) {
		if (n > all_upto && n > 1024) {
			for (size_t k = 0; k < 16; k++)
				for (int back = 0; back < 2; back++)
					check_copy(v, n, (n + 4 * k) & 63,
						   (3 * n + 9 * k) & 63, back);
		} else if (n <= all_upto) {
			for (size_t sa = 0; sa < 64; sa++)
				for (size_t da = 0; da < 64; da++)
					for (int back = 0; back < 2; back++)
						check_copy(v, n, sa, da, back);
		} else {
			for (size_t i = 0; i < NSAMPLED; i++)
				for (size_t j = 0; j < NSAMPLED; j++)
					for (int back = 0; back < 2; back++)
						check_copy(
							v, n, sampled_align[i],
							sampled_align[j], back);
		}
	}
	nlarge = large_sizes(v->op, max_large(), large, 128);
	for (size_t k = 0; k < nlarge; k++) {
		static const size_t pairs[][2] = {
			{ 0, 0 }, { 7, 13 }, { 63, 1 }, { 4092, 0 }
		};
		for (size_t p = 0; p < 4; p++)
			for (int back = 0; back < 2; back++)
				if (large[k] + pairs[p][0] + pairs[p][1] <=
				    dst_arena.size)
					check_copy(v, large[k], pairs[p][0],
						   pairs[p][1], back);
	}
}

/*
 * Overlap: every copy variant is memmove-correct (the preload's memcpy
 * relies on it).  The region ends flush against the guard page.
 */
static void check_overlap(const struct fm_variant *v, size_t n, size_t dist,
			  int dst_above, unsigned char *expect)
{
	unsigned char *base = dst_arena.end - n - dist;
	unsigned char *src = dst_above ? base : base + dist;
	unsigned char *dst = dst_above ? base + dist : base;
	void *ret;

	if (n < min_size())
		return;
	fill_pattern(base, n + dist, n + dist);
	memcpy(expect, src, n);
	ret = v->fn.memmove(dst, src, n);
	require(ret == dst, "%s: overlap returned %p, not dst", v->name, ret);
	if (memcmp(dst, expect, n)) {
		size_t i = 0;
		while (dst[i] == expect[i])
			i++;
		ck_abort_msg("%s: overlap n=%zu dist=%zu dst %s src: byte %zu "
			     "is %#x, want %#x",
			     v->name, n, dist, dst_above ? "above" : "below", i,
			     dst[i], expect[i]);
	}
}

static void copy_overlaps(const struct fm_variant *v)
{
	static const size_t sizes[] = {
		0,   1,	  2,   3,   4,	  7,	8,    9,    15,	 16,
		17,  31,  32,  33,  63,	  64,	65,   127,  128, 129,
		255, 256, 257, 511, 1000, 4095, 4096, 10007
	};
	static const size_t big[] = { (1u << 20) + 5, (3u << 20) + 1 };
	static const size_t big_dist[] = { 1, 64, 4096, 65539 };
	unsigned char *expect = malloc(4u << 20);
	size_t step = quick_mode() ? 17 : 1;

	for (size_t dist = 0; dist <= 256; dist += step)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (int up = 0; up < 2; up++)
				check_overlap(v, sizes[i], dist, up, expect);
	for (size_t i = 0; i < 2; i++)
		for (size_t j = 0; j < 4; j++)
			for (int up = 0; up < 2; up++)
				if (big[i] + big_dist[j] <= dst_arena.size)
					check_overlap(v, big[i], big_dist[j],
						      up, expect);
	free(expect);
}

/*
 * Destinations that start, or end, within 320 bytes of a page boundary:
 * the vector loops store their last vector differently where it would
 * straddle the page.  straddles() calls check(v, n, dst offset, k) for
 * each (k counts the calls, for the caller's source offsets and values).
 */
static void straddles(const struct fm_variant *v,
		      void (*check)(const struct fm_variant *v, size_t n,
				    size_t a, size_t k))
{
	static const size_t sizes[] = { 520, 1000, 1029, 4096, 4159, 8192 };
	size_t step = quick_mode() ? 5 : 1, k = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], nmod = n % FM_PAGE_SIZE;

		for (size_t o = 1; o <= 320; o += step) {
			/* starts o bytes before a page boundary */
			check(v, n, FM_PAGE_SIZE - o, k++);
			/* ends o bytes after one */
			check(v, n, (FM_PAGE_SIZE + o - nmod) % FM_PAGE_SIZE,
			      k++);
		}
	}
}

/* The non-overlapping copies only (copy_overlaps has the others), from
 * sources whose offsets put dst both less and more than 2 KiB ahead of
 * src modulo 4 KiB, so that both loop directions run. */
static void copy_straddle(const struct fm_variant *v, size_t n, size_t a,
			  size_t k)
{
	static const size_t src_off[] = { 0, 7, 13, 64 };

	check_copy(v, n, src_off[k / 2 % 4], a, 0);
}

static void run_copy(enum fm_op op, int i)
{
	const struct fm_variant *v = variant(op, i);

	if (!v->usable) {
		printf("skipped %s (not usable here)\n", v->name);
		return;
	}
	copy_sizes(v);
	copy_overlaps(v);
	straddles(v, copy_straddle);
}

START_TEST(memcpy_variant)
{
	run_copy(FM_OP_MEMCPY, _i);
}
END_TEST

START_TEST(memmove_variant)
{
	run_copy(FM_OP_MEMMOVE, _i);
}
END_TEST

/* --- memset ------------------------------------------------------------- */

static void check_set(const struct fm_variant *v, size_t n, size_t a, int c,
		      int back)
{
	unsigned char *dst = back ? dst_arena.end - n - a : dst_arena.base + a;
	unsigned char want = (unsigned char)c;
	void *ret;
	long off;

	if (n < min_size())
		return;
	arm_canaries(&dst_arena, dst, n);
	for (size_t i = 0; i < n; i++)
		dst[i] = (unsigned char)~want;
	ret = v->fn.memset(dst, c, n);
	require(ret == dst, "%s: returned %p, not dst", v->name, ret);
	for (size_t i = 0; i < n; i++)
		if (dst[i] != want)
			ck_abort_msg("%s: n=%zu dst+%zu c=%#x: byte %zu is %#x",
				     v->name, n, a, c, i, dst[i]);
	off = stray_write(&dst_arena, dst, n);
	require(off < 0, "%s: n=%zu dst+%zu: wrote outside at %ld", v->name, n,
		a, off);
}

/* straddles()' sets (the starts cover the other end of the same loops) */
static void set_straddle(const struct fm_variant *v, size_t n, size_t a,
			 size_t k)
{
	check_set(v, n, a, (int)k, 0);
}

START_TEST(memset_variant)
{
	static const int values[] = { 0, 0x5a, 0x80, 0xff, 0x1a5, -1 };
	const struct fm_variant *v = variant(FM_OP_MEMSET, _i);
	size_t large[128], nlarge;

	if (!v->usable)
		return;
	for (size_t n = 0; n <= 1024; n++)
		for (size_t a = 0; a < 64; a += n <= 256 ? 1 : 7)
			for (size_t c = 0; c < 6; c++)
				for (int back = 0; back < 2; back++)
					check_set(v, n, a, values[c], back);
	/* every size to 4 KiB, alignments moving with n (as copy_sizes) */
	for (size_t n = 1025; !quick_mode() && n <= 4096; n++)
		for (size_t k = 0; k < 8; k++)
			for (int back = 0; back < 2; back++)
				check_set(v, n, (n + 8 * k) & 63,
					  values[(n + k) % 6], back);
	nlarge = large_sizes(FM_OP_MEMSET, max_large(), large, 128);
	for (size_t k = 0; k < nlarge; k++)
		for (size_t a = 0; a < 64; a += 29)
			for (int back = 0; back < 2; back++)
				if (large[k] + a <= dst_arena.size)
					check_set(v, large[k], a, values[k % 6],
						  back);
	straddles(v, set_straddle);
}
END_TEST

/* --- pages -------------------------------------------------------------- */

START_TEST(copy_page_variant)
{
	const struct fm_variant *v = variant(FM_OP_COPY_PAGE, _i);

	if (!v->usable || FM_PAGE_SIZE < min_size())
		return;
	for (int back = 0; back < 2; back++) {
		for (size_t k = 0; k < 8; k++) {
			const unsigned char *src =
				back ? src_arena.end - (k + 1) * FM_PAGE_SIZE
				     : src_arena.base + k * FM_PAGE_SIZE;
			unsigned char *dst =
				back ? dst_arena.end - (k + 1) * FM_PAGE_SIZE
				     : dst_arena.base + k * FM_PAGE_SIZE;
			arm_canaries(&dst_arena, dst, FM_PAGE_SIZE);
			memset(dst, 0, FM_PAGE_SIZE);
			v->fn.copy_page(dst, src);
			require(!memcmp(dst, src, FM_PAGE_SIZE),
				"%s: page %zu differs", v->name, k);
			require(stray_write(&dst_arena, dst, FM_PAGE_SIZE) < 0,
				"%s: wrote outside the page", v->name);
		}
	}
}
END_TEST

static void check_clear(const struct fm_variant *v, size_t npages, int back)
{
	size_t n = npages * FM_PAGE_SIZE;
	unsigned char *dst = back ? dst_arena.end - n : dst_arena.base;
	static const unsigned char zero[FM_PAGE_SIZE];

	if (n > dst_arena.size || n < min_size())
		return;
	arm_canaries(&dst_arena, dst, n);
	memset(dst, 0xff, n);
	v->fn.clear_pages(dst, npages);
	for (size_t p = 0; p < npages; p++)
		require(!memcmp(dst + p * FM_PAGE_SIZE, zero, FM_PAGE_SIZE),
			"%s: npages=%zu: page %zu not cleared", v->name, npages,
			p);
	require(stray_write(&dst_arena, dst, n) < 0,
		"%s: npages=%zu wrote outside", v->name, npages);
}

START_TEST(clear_page_variant)
{
	const struct fm_variant *v = variant(FM_OP_CLEAR_PAGE, _i);
	size_t t = fm_nt_threshold(FM_OP_CLEAR_PAGE) / FM_PAGE_SIZE;
	const size_t counts[] = { 0,   1,   2,	   3, 16,    17,
				  255, 513, t - 1, t, t + 1, 4097 };

	if (!v->usable)
		return;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		for (int back = 0; back < 2; back++)
			if (counts[i] < (1u << 20))
				check_clear(v, counts[i], back);
}
END_TEST

static Suite *variants_suite(void)
{
	Suite *s = suite_create("variants");
	struct {
		const char *name;
		enum fm_op op;
		const TTest *test;
	} ops[] = {
		{ "memcpy", FM_OP_MEMCPY, memcpy_variant },
		{ "memmove", FM_OP_MEMMOVE, memmove_variant },
		{ "memset", FM_OP_MEMSET, memset_variant },
		{ "copy_page", FM_OP_COPY_PAGE, copy_page_variant },
		{ "clear_page", FM_OP_CLEAR_PAGE, clear_page_variant },
	};

	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		TCase *tc = tcase_create(ops[k].name);
		int n = (int)fm_variants(ops[k].op, NULL);
		tcase_add_unchecked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 1200);
		tcase_add_loop_test(tc, ops[k].test, 0, n);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	/* name every variant so a failure report can be read */
	for (int op = 0; op < FM_OP_COUNT; op++) {
		const struct fm_variant *list;
		size_t n = fm_variants(op, &list);
		printf("op %d:", op);
		for (size_t i = 0; i < n; i++)
			printf(" [%zu]%s%s", i, list[i].name,
			       list[i].usable ? "" : "(not usable)");
		printf("\n");
	}
	return run_suite(variants_suite());
}
