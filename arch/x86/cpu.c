/* SPDX-License-Identifier: MIT */
/*
 * x86 feature and cache detection with inline cpuid/xgetbv only, so it is
 * safe inside an ifunc resolver (no PLT, no libc, no relocated data).
 * AVX2 and AVX-512 count only when the OS saves their register state.
 */
#include <cpuid.h>

#include "internal.h"

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

#define BIT(name) FM_FEAT(name)

static uint32_t detect(void)
{
	unsigned r[4], max, maxext;
	uint32_t f = 0;
	uint64_t xcr0 = 0;

	cpuid(0, 0, r);
	max = r[0];
	cpuid(0x80000000u, 0, r);
	maxext = r[0];
	if (max < 1)
		return 0;
	cpuid(1, 0, r);
	if (r[3] & (1u << 23))
		f |= BIT(mmx);
	if (r[3] & (1u << 25))
		f |= BIT(sse);
	if (r[3] & (1u << 26))
		f |= BIT(sse2);
	/* OSXSAVE: the OS manages extended state and xgetbv is allowed */
	int avx = (r[2] & (1u << 28)) != 0;
	if (r[2] & (1u << 27))
		xcr0 = xgetbv0();
	if (max >= 7) {
		cpuid(7, 0, r);
		int ymm_ok = avx && (xcr0 & 0x6) == 0x6;
		int zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0;
		if (ymm_ok && (r[1] & (1u << 5)))
			f |= BIT(avx2);
		/*
		 * F, BW and VL: byte-granular masks and ymm forms; and BMI2,
		 * whose bzhi makes the masks (every AVX-512 CPU has it)
		 */
		if (zmm_ok && (r[1] & (1u << 16)) && (r[1] & (1u << 30)) &&
		    (r[1] & (1u << 31)) && (r[1] & (1u << 8)))
			f |= BIT(avx512);
		if (r[1] & (1u << 9))
			f |= BIT(erms);
		if (r[3] & (1u << 4))
			f |= BIT(fsrm);
	}
	if (maxext >= 0x80000008u) {
		cpuid(0x80000008u, 0, r);
		if (r[1] & 1u)
			f |= BIT(clzero);
	}
	return f;
}

/* bit 31 marks the cache as filled; the value is the same for every thread,
 * so a race only repeats the work. */
static uint32_t cached_features;

uint32_t fm_arch_features(void)
{
	uint32_t f = __atomic_load_n(&cached_features, __ATOMIC_RELAXED);

	if (FM_LIKELY(f))
		return f & 0x7fffffffu;
	f = detect();
	__atomic_store_n(&cached_features, f | 0x80000000u, __ATOMIC_RELAXED);
	return f;
}

/* Deterministic cache parameters: Intel leaf 4, AMD leaf 0x8000001D (same
 * layout). */
static int cache_leaf(unsigned leaf, struct fm_cache_info *ci)
{
	unsigned r[4];
	int found = 0;

	for (unsigned i = 0; i < 16; i++) {
		cpuid(leaf, i, r);
		unsigned type = r[0] & 0x1f;
		if (type == 0)
			break;
		if (type == 2) /* instruction cache */
			continue;
		unsigned level = (r[0] >> 5) & 7;
		unsigned sharing = ((r[0] >> 14) & 0xfff) + 1;
		size_t line = (r[1] & 0xfff) + 1;
		size_t parts = ((r[1] >> 12) & 0x3ff) + 1;
		size_t ways = ((r[1] >> 22) & 0x3ff) + 1;
		size_t sets = (size_t)r[2] + 1;
		size_t size = line * parts * ways * sets;
		found = 1;
		if (level == 1) {
			ci->l1d = size;
			ci->line = line;
		} else if (level == 2) {
			ci->l2 = size;
			ci->l2_sharing = sharing;
		} else if (level == 3) {
			ci->l3 = size;
			ci->l3_sharing = sharing;
		}
	}
	return found;
}

void fm_arch_cache_info(struct fm_cache_info *ci)
{
	unsigned r[4], maxext;
	char vendor_is_amd;

	*ci = (struct fm_cache_info){ 0 };
	cpuid(0, 0, r);
	unsigned max = r[0];
	/* "AuthenticAMD" / "HygonGenuine" use the extended leaves */
	vendor_is_amd = (r[1] == 0x68747541u || r[1] == 0x6f677948u);
	cpuid(0x80000000u, 0, r);
	maxext = r[0];

	if (vendor_is_amd) {
		if (maxext >= 0x8000001du) {
			cpuid(0x80000001u, 0, r);
			if ((r[2] & (1u << 22)) && cache_leaf(0x8000001du, ci))
				goto done;
		}
		if (maxext >= 0x80000006u) {
			cpuid(0x80000005u, 0, r);
			ci->l1d = (size_t)(r[2] >> 24) << 10;
			ci->line = r[2] & 0xff;
			cpuid(0x80000006u, 0, r);
			ci->l2 = (size_t)(r[2] >> 16) << 10;
			ci->l3 = (size_t)(r[3] >> 18) << 19;
			ci->l2_sharing = 1;
			ci->l3_sharing = 0;
		}
	} else if (max >= 4) {
		cache_leaf(4, ci);
	}
done:
	if (!ci->line)
		ci->line = 64;
}

/* The automatic policies' crossovers (tune.c; call time only). */
FM_HIDDEN const char *fm_x86_tune_notes(void);

const char *fm_arch_notes(void)
{
	return fm_x86_tune_notes();
}
