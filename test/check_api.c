/* SPDX-License-Identifier: MIT */
/*
 * The public API through the dispatcher: entry points, hints, page calls with
 * misaligned pointers, introspection, and our CPU detection against
 * libcpuid's.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codename.h"
#include "harness.h"

#ifdef HAVE_LIBCPUID
#include <libcpuid.h>
#endif

static struct arena A;

static void setup(void)
{
	arena_init(&A, 8u << 20);
}

static void teardown(void)
{
	arena_free(&A);
}

START_TEST(zero_length_is_a_noop)
{
	/* n == 0 with any pointers, even NULL, touches nothing */
	ck_assert_ptr_eq(fm_memcpy(NULL, NULL, 0), NULL);
	ck_assert_ptr_eq(fm_memmove(NULL, NULL, 0), NULL);
	ck_assert_ptr_eq(fm_memset(NULL, 0x5a, 0), NULL);
	ck_assert_ptr_eq(fm_memcpy_hint(NULL, NULL, 0, FM_HINT_NONTEMPORAL),
			 NULL);
	ck_assert_ptr_eq(fm_memset_hint(NULL, 1, 0, FM_HINT_TEMPORAL), NULL);
	fm_clear_pages(NULL, 0);
}
END_TEST

static void copy_and_check(void *(*fn)(void *, const void *, size_t), size_t n,
			   size_t sa, size_t da, const char *what)
{
	unsigned char *src = A.base + sa;
	unsigned char *dst = A.end - n - da;

	fill_pattern(src, n, n);
	memset(dst, 0, n);
	ck_assert_ptr_eq(fn(dst, src, n), dst);
	ck_assert_msg(!memcmp(dst, src, n), "%s n=%zu differs", what, n);
}

static void *memcpy_nt(void *d, const void *s, size_t n)
{
	return fm_memcpy_hint(d, s, n, FM_HINT_NONTEMPORAL);
}

static void *memcpy_t(void *d, const void *s, size_t n)
{
	return fm_memcpy_hint(d, s, n, FM_HINT_TEMPORAL);
}

static void *memcpy_auto(void *d, const void *s, size_t n)
{
	return fm_memcpy_hint(d, s, n, FM_HINT_AUTO);
}

static void *memcpy_plain(void *d, const void *s, size_t n)
{
	return fm_memcpy(d, s, n);
}

START_TEST(dispatched_copies)
{
	static const size_t sizes[] = {
		1, 15, 64, 255, 4096, 65537, (3u << 20) + 7
	};
	void *(*fns[])(void *, const void *,
		       size_t) = { memcpy_plain, fm_memmove, memcpy_nt,
				   memcpy_t, memcpy_auto };

	for (size_t f = 0; f < 5; f++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (size_t a = 0; a < 3; a++)
				copy_and_check(fns[f], sizes[i], a * 7, a * 13,
					       "dispatched copy");
}
END_TEST

START_TEST(dispatched_sets)
{
	static const size_t sizes[] = {
		1, 15, 64, 255, 4096, 65537, (5u << 20) + 3
	};
	enum fm_hint hints[] = { FM_HINT_AUTO, FM_HINT_TEMPORAL,
				 FM_HINT_NONTEMPORAL };

	for (size_t h = 0; h < 4; h++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = sizes[i];
			unsigned char *d = A.end - n - (i & 3);
			memset(d, 0, n);
			void *r = h == 3 ? fm_memset(d, 0xc3, n)
					 : fm_memset_hint(d, 0xc3, n, hints[h]);
			ck_assert_ptr_eq(r, d);
			for (size_t k = 0; k < n; k++)
				if (d[k] != 0xc3)
					ck_abort_msg("byte %zu of %zu", k, n);
		}
}
END_TEST

START_TEST(pages_any_alignment)
{
	static const size_t offs[] = { 0, 1, 8, 64, 2048, 4095 };
	static const unsigned char zero[FM_PAGE_SIZE * 3];

	for (size_t i = 0; i < 6; i++)
		for (size_t j = 0; j < 6; j++) {
			unsigned char *src = A.base + offs[i];
			unsigned char *dst = A.end - 2 * FM_PAGE_SIZE +
					     offs[j] -
					     (offs[j] ? FM_PAGE_SIZE : 0);
			fill_pattern(src, FM_PAGE_SIZE, i * 7 + j);
			arm_canaries(&A, dst, FM_PAGE_SIZE);
			fm_copy_page(dst, src);
			ck_assert(!memcmp(dst, src, FM_PAGE_SIZE));
			ck_assert(stray_write(&A, dst, FM_PAGE_SIZE) < 0);
		}
	for (size_t j = 0; j < 6; j++) {
		for (size_t np = 1; np <= 3; np++) {
			unsigned char *p = A.end - 4 * FM_PAGE_SIZE + offs[j];
			arm_canaries(&A, p, np * FM_PAGE_SIZE);
			memset(p, 0xee, np * FM_PAGE_SIZE);
			if (np == 1)
				fm_clear_page(p);
			else
				fm_clear_pages(p, np);
			ck_assert(!memcmp(p, zero, np * FM_PAGE_SIZE));
			ck_assert(stray_write(&A, p, np * FM_PAGE_SIZE) < 0);
		}
	}
}
END_TEST

START_TEST(introspection)
{
	for (int op = 0; op < FM_OP_COUNT; op++) {
		const struct fm_variant *list;
		size_t n = fm_variants(op, &list), found = 0;
		const char *sel = fm_selected(op);

		ck_assert_uint_gt(n, 0);
		ck_assert_ptr_nonnull(sel);
		/* the portable variant is always there, last, and usable */
		ck_assert_str_eq(list[n - 1].name, "generic");
		ck_assert(list[n - 1].usable);
		for (size_t i = 0; i < n; i++) {
			ck_assert_int_eq(list[i].op, op);
			ck_assert_ptr_nonnull(list[i].fn.memcpy);
			if (!strcmp(list[i].name, sel)) {
				found++;
				ck_assert(list[i].usable);
			}
		}
		ck_assert_uint_eq(found, 1);
		/* "auto", unless this run forces the op's variant (as
		 * test/cross/run.sh does) and the CPU can run it */
		static const char *const env[FM_OP_COUNT] = {
			"FASTMEM_MEMCPY",     "FASTMEM_MEMMOVE",
			"FASTMEM_MEMSET",     "FASTMEM_COPY_PAGE",
			"FASTMEM_CLEAR_PAGE",
		};
		const char *forced = getenv(env[op]);
		char why[64] = "auto";
		if (forced && !strcmp(forced, sel))
			snprintf(why, sizeof(why), "environment (%s)", env[op]);
		ck_assert_str_eq(fm_selected_reason(op), why);
		ck_assert_uint_gt(fm_nt_threshold(op), 0);
		ck_assert_ptr_nonnull(fm_nt_threshold_source(op));
	}
	ck_assert_ptr_null(fm_selected(FM_OP_COUNT));
	ck_assert_uint_eq(fm_variants(FM_OP_COUNT, NULL), 0);
	ck_assert_uint_eq(fm_nt_threshold((enum fm_op)99), 0);
	ck_assert_ptr_nonnull(fm_version());
	ck_assert_str_eq(fm_version(), PACKAGE_VERSION);
	ck_assert_int_eq(fm_preloaded(), 0);
}
END_TEST

/*
 * One name per operation, the same everywhere: the config key and the
 * FASTMEM_<NAME> variable are built from it, and every variant of the op
 * says which op it belongs to.
 */
START_TEST(op_names)
{
	static const char *const want[FM_OP_COUNT] = {
		"memcpy", "memmove", "memset", "copy_page", "clear_page",
	};

	for (int op = 0; op < FM_OP_COUNT; op++) {
		const struct fm_variant *list;
		size_t n = fm_variants((enum fm_op)op, &list);

		ck_assert_ptr_nonnull(fm_op_name((enum fm_op)op));
		ck_assert_str_eq(fm_op_name((enum fm_op)op), want[op]);
		ck_assert_uint_gt(n, 0);
		for (size_t i = 0; i < n; i++)
			ck_assert_int_eq(list[i].op, op);
	}
	ck_assert_ptr_null(fm_op_name(FM_OP_COUNT));
	ck_assert_ptr_null(fm_op_name((enum fm_op)(FM_OP_COUNT + 1)));
	ck_assert_ptr_null(fm_op_name((enum fm_op)99));
}
END_TEST

static int has_feature(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

START_TEST(detection_matches_libcpuid)
{
#ifdef HAVE_LIBCPUID
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;
	const char *ours = fm_cpu_features_detected();

	ck_assert_int_eq(cpuid_get_raw_data(&raw), 0);
	ck_assert_int_eq(cpu_identify(&raw, &id), 0);
	ck_assert_int_eq(has_feature(ours, "sse2"),
			 !!id.flags[CPU_FEATURE_SSE2]);
	ck_assert_int_eq(has_feature(ours, "mmx"), !!id.flags[CPU_FEATURE_MMX]);
	ck_assert_int_eq(has_feature(ours, "avx2"),
			 !!id.flags[CPU_FEATURE_AVX2]);
	/* libcpuid 0.6 has no ERMS flag: read the bit from its raw leaf 7 */
	ck_assert_int_eq(has_feature(ours, "erms"),
			 !!(raw.basic_cpuid[7][1] & (1u << 9)));
	/*
	 * Ours means F+BW+VL+BMI2 with the OS saving zmm state.  libcpuid 0.6
	 * sets its AVX-512 flags on Intel only, so on other vendors compare
	 * with the bits of its raw leaf 7 (EBX 8, 16, 30, 31).
	 */
	int lib512 = id.flags[CPU_FEATURE_AVX512F] &&
		     id.flags[CPU_FEATURE_AVX512BW] &&
		     id.flags[CPU_FEATURE_AVX512VL] &&
		     id.flags[CPU_FEATURE_BMI2];
	if (id.vendor != VENDOR_INTEL)
		lib512 = (raw.basic_cpuid[7][1] & 0xc0010100u) == 0xc0010100u;
	ck_assert_int_eq(has_feature(ours, "avx512"), lib512);
	/* our cache sizes agree with libcpuid's where both know them */
	struct fm_cache_info ci;
	fm_cache_info(&ci);
	if (id.l1_data_cache > 0)
		ck_assert_uint_eq(ci.l1d, (size_t)id.l1_data_cache << 10);
	if (id.l2_cache > 0)
		ck_assert_uint_eq(ci.l2, (size_t)id.l2_cache << 10);
#else
	ck_assert(has_feature("a,b", "b") && !has_feature("ab", "b"));
#endif
}
END_TEST

/*
 * The names libcpuid 0.6.2 gives (from real CPUID dumps, from the Xeon of
 * docs/measurements/xeon-6-207 and from the Zen 5 EPYC guest, family
 * 0x1a model 2, it calls "Abu Dhabi"): its rows for Intel family 6 models up
 * to 0xf named a newer model are guesses, and its AMD rows named a CPU of
 * another family; everything else stands.
 */
START_TEST(codename_guesses)
{
	static const struct {
		int vendor, family, model;
		const char *name;
		int guess;
	} cases[] = {
		{ CODENAME_INTEL, 6, 207, "Xeon (Conroe/2M)", 1 },
		{ CODENAME_INTEL, 6, 207, "Xeon (Woodcrest)", 1 },
		{ CODENAME_INTEL, 6, 207, "P-II Xeon (Klamath)", 1 },
		{ CODENAME_INTEL, 6, 0x8f, "Pentium III (Coppermine)", 1 },
		{ CODENAME_INTEL, 6, 85, "Skylake (Xeon Scalable)", 0 },
		{ CODENAME_INTEL, 6, 142, "Kaby Lake-U (Core i7)", 0 },
		{ CODENAME_INTEL, 6, 60, "Haswell (Core i7)", 0 },
		{ CODENAME_INTEL, 6, 15, "Xeon (Conroe/2M)", 0 },
		{ CODENAME_INTEL, 6, 0x16, "Conroe-L (Celeron)", 0 },
		{ CODENAME_INTEL, 6, 0x1c, "Atom (Diamondville)", 0 },
		{ CODENAME_OTHER, 25, 1, "EPYC (Milan)", 0 },
		{ CODENAME_OTHER, 6, 207, "Pentium Pro", 0 },
		{ CODENAME_AMD, 0x1a, 2, "Abu Dhabi", 1 },
		{ CODENAME_AMD, 0x1a, 0x11, "K5", 1 },
		{ CODENAME_AMD, 0x1a, 0x44, "Ryzen 9 (Rembrandt)", 1 },
		{ CODENAME_AMD, 0x1a, 0x24, "Turion 64 (Lancaster/512K)", 1 },
		{ CODENAME_AMD, 0x19, 0x11, "Magny-Cours Opteron", 1 },
		{ CODENAME_AMD, 0x15, 2, "Abu Dhabi", 0 },
		{ CODENAME_AMD, 0x15, 2, "Opteron (Abu Dhabi)", 0 },
		{ CODENAME_AMD, 0x19, 1, "EPYC (Milan)", 0 },
		{ CODENAME_AMD, 0x19, 0x21, "Ryzen 9 (Vermeer)", 0 },
		{ CODENAME_AMD, 0x17, 0x31, "EPYC (Rome)", 0 },
		{ CODENAME_AMD, 0x10, 9, "Magny-Cours Opteron", 0 },
		{ CODENAME_AMD, 0x11, 3, "Turion X2 (Griffin/512K)", 0 },
		{ CODENAME_AMD, 0xf, 0x6b, "Athlon 64 X2 (Brisbane/512K)", 0 },
		{ CODENAME_AMD, 0x18, 0, "C86 7 (Dhyana)", 0 },
		{ CODENAME_AMD, 0x1a, 2, "EPYC (Turin)", 0 },
		{ CODENAME_AMD, 0x1a, 0x44, "Ryzen 9 (Granite Ridge)", 0 },
		{ CODENAME_INTEL, 0x1a, 2, "Abu Dhabi", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(codename_is_guess(cases[i].vendor,
						cases[i].family, cases[i].model,
						cases[i].name) ==
				      cases[i].guess,
			      "family %d model %d \"%s\"", cases[i].family,
			      cases[i].model, cases[i].name);
}
END_TEST

#ifdef HAVE_LIBCPUID
/* CPUID leaves of an Intel family 6 CPU of the given model with a Xeon
 * brand string: enough for libcpuid to name it. */
static void synthetic_xeon(struct cpu_raw_data_t *raw, unsigned model)
{
	static const char brand[49] =
		"Intel(R) Xeon(R) Processor                      ";

	memset(raw, 0, sizeof(*raw));
	raw->basic_cpuid[0][0] = 0x1f;
	memcpy(&raw->basic_cpuid[0][1], "Genu", 4);
	memcpy(&raw->basic_cpuid[0][3], "ineI", 4);
	memcpy(&raw->basic_cpuid[0][2], "ntel", 4);
	raw->basic_cpuid[1][0] =
		0x600 | (model & 0xf) << 4 | (model >> 4 & 0xf) << 16;
	raw->ext_cpuid[0][0] = 0x80000008;
	for (int l = 0; l < 3; l++)
		for (int r = 0; r < 4; r++)
			memcpy(&raw->ext_cpuid[2 + l][r],
			       brand + 16 * l + 4 * r, 4);
}

/* The same for an AMD CPU of the given display family and model. */
static void synthetic_amd(struct cpu_raw_data_t *raw, unsigned family,
			  unsigned model, const char *name)
{
	char brand[49];

	snprintf(brand, sizeof(brand), "%-48s", name);
	memset(raw, 0, sizeof(*raw));
	raw->basic_cpuid[0][0] = 0x10;
	memcpy(&raw->basic_cpuid[0][1], "Auth", 4);
	memcpy(&raw->basic_cpuid[0][3], "enti", 4);
	memcpy(&raw->basic_cpuid[0][2], "cAMD", 4);
	raw->basic_cpuid[1][0] = 0xf00 | (family - 0xf) << 20 |
				 (model & 0xf) << 4 | (model >> 4 & 0xf) << 16;
	raw->ext_cpuid[0][0] = 0x80000008;
	for (int l = 0; l < 3; l++)
		for (int r = 0; r < 4; r++)
			memcpy(&raw->ext_cpuid[2 + l][r],
			       brand + 16 * l + 4 * r, 4);
}

static int libcpuid_at_most(int major, int minor, int patch)
{
	int a = 0, b = 0, c = 0;

	sscanf(cpuid_lib_version(), "%d.%d.%d", &a, &b, &c);
	return a != major ? a < major : b != minor ? b < minor : c <= patch;
}
#endif

/*
 * The same through libcpuid itself: model 207 gets an old row's name from
 * libcpuid 0.6.2 (one that knows the model names it otherwise, and only
 * the second half applies), model 0x3c "Haswell (Xeon)", its own.
 */
START_TEST(codename_through_libcpuid)
{
#ifdef HAVE_LIBCPUID
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;

	synthetic_xeon(&raw, 207);
	ck_assert_int_eq(cpu_identify(&raw, &id), 0);
	ck_assert_int_eq(id.ext_model, 207);
	if (libcpuid_at_most(0, 6, 2))
		ck_assert_msg(codename_is_guess(CODENAME_INTEL, id.ext_family,
						id.ext_model, id.cpu_codename),
			      "libcpuid %s cannot know model 207, yet its "
			      "guess \"%s\" was believed",
			      cpuid_lib_version(), id.cpu_codename);
	synthetic_xeon(&raw, 0x3c);
	ck_assert_int_eq(cpu_identify(&raw, &id), 0);
	ck_assert_msg(strstr(id.cpu_codename, "Haswell"), "libcpuid said %s",
		      id.cpu_codename);
	ck_assert(!codename_is_guess(CODENAME_INTEL, id.ext_family,
				     id.ext_model, id.cpu_codename));
#endif
}
END_TEST

/*
 * And for AMD: 0.6.2, which has no rows above family 0x19, names the Zen 5
 * EPYC of family 0x1a model 2 after an older family's row ("Abu Dhabi");
 * a Zen 3 EPYC it names "EPYC (Milan)", its own family's.
 */
START_TEST(codename_amd_through_libcpuid)
{
#ifdef HAVE_LIBCPUID
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;

	synthetic_amd(&raw, 0x1a, 2, "AMD EPYC 9555 64-Core Processor");
	ck_assert_int_eq(cpu_identify(&raw, &id), 0);
	ck_assert_int_eq(id.ext_family, 0x1a);
	ck_assert_int_eq(id.ext_model, 2);
	if (libcpuid_at_most(0, 6, 2))
		ck_assert_msg(codename_is_guess(CODENAME_AMD, id.ext_family,
						id.ext_model, id.cpu_codename),
			      "libcpuid %s cannot know family 0x1a, yet its "
			      "guess \"%s\" was believed",
			      cpuid_lib_version(), id.cpu_codename);
	synthetic_amd(&raw, 0x19, 1, "AMD EPYC 7763 64-Core Processor");
	ck_assert_int_eq(cpu_identify(&raw, &id), 0);
	ck_assert_msg(strstr(id.cpu_codename, "Milan"), "libcpuid said %s",
		      id.cpu_codename);
	ck_assert(!codename_is_guess(CODENAME_AMD, id.ext_family, id.ext_model,
				     id.cpu_codename));
#endif
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("api");

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, zero_length_is_a_noop);
	tcase_add_test(tc, dispatched_copies);
	tcase_add_test(tc, dispatched_sets);
	tcase_add_test(tc, pages_any_alignment);
	tcase_add_test(tc, introspection);
	tcase_add_test(tc, op_names);
	tcase_add_test(tc, detection_matches_libcpuid);
	tcase_add_test(tc, codename_guesses);
	tcase_add_test(tc, codename_through_libcpuid);
	tcase_add_test(tc, codename_amd_through_libcpuid);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
