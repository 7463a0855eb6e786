/* SPDX-License-Identifier: MIT */
/*
 * CPU classes and their crossovers, as data: one table, each number with one
 * line of reason and a pointer to its evidence in docs/measurements/ (the
 * figures live there, with their commands and commits; make check runs
 * test/measurement-refs.sh, which fails on a pointer to a missing file or
 * heading).  A crossover fitted on one machine is wrong on another, so each
 * class keeps its own; CPUs that no entry matches get the size formula
 * (lib/internal.h), which is what the "unknown CPU" entry states.  Adding a
 * class: an entry here and a heading per measured field on the page of the
 * machine it was measured on.
 *
 * RESOLVER-SAFE: inline cpuid, and a table of integers and char arrays that
 * needs no relocation (thresholds.c reads it from the resolvers).
 */
#include <cpuid.h>

#include "x86.h"

/* The L1d assumed where the CPU reports none (the L2: FM_ASSUMED_L2). */
#define ASSUMED_L1D ((size_t)32 << 10)

#define NEVER                                                                  \
	{                                                                      \
		FM_X_NEVER, 0, 0                                               \
	}
#define BYTES(n)                                                               \
	{                                                                      \
		FM_X_BYTES, (n), 1                                             \
	}
#define L1D(m, d)                                                              \
	{                                                                      \
		FM_X_L1D, (m), (d)                                             \
	}
#define L2(m, d)                                                               \
	{                                                                      \
		FM_X_L2, (m), (d)                                              \
	}

static const struct fm_x86_class classes[] = {
	{
		/* docs/measurements/zen5-guest.md#the-zen-5-class */
		.name = "AMD Zen 5",
		.vendor = FM_X86_AMD,
		.family = 0x1a,
		.models = { { 0, 0xff } },
		.copy_rep = L1D(1, 2),
		/* rep movsb into cached data read back loses from 4 x L2:
		 * docs/measurements/zen5-guest.md#copy_rep_cold */
		.copy_rep_cold = L2(4, 1),
		/* from 16 x L2 rep movsb wins in every residency:
		 * docs/measurements/zen5-guest.md#copy_rep_any */
		.copy_rep_any = L2(16, 1),
		.set_rep = L2(3, 4),
		/* cold, the zmm loop loses; the timing pays from 64 KiB:
		 * docs/measurements/zen5-guest.md#set_rep_cold */
		.set_rep_cold = BYTES(64 << 10),
		/* no slow window for rep movsb here:
		 * docs/measurements/zen5-guest.md#rep_movsb_aliasing */
		.rep_movsb_aliasing = 0,
		/* streaming never beat rep movsb where measured:
		 * docs/measurements/zen5-guest.md#copy_cold */
		.copy_cold = NEVER,
		.copy_cached = L2(512, 1),
		/* streamed, no loss read back from 4 x L2:
		 * docs/measurements/zen5-guest.md#set_cold */
		.set_cold = L2(4, 1),
		.set_cached = L2(32, 1),
		.set_rep_streams = NEVER,
		/* the prefetch made streamed copies faster:
		 * docs/measurements/zen5-guest.md#copy_nt_prefetch */
		.copy_nt_prefetch = 2048,
		/* eight pages at a time faster past the caches:
		 * docs/measurements/zen5-guest.md#set_nt_pages */
		.set_nt_pages = 8,
		/* clzero faster than streaming stores:
		 * docs/measurements/zen5-guest.md#set_clzero */
		.set_clzero = 1,
		.source = "development machine (Zen 5 KVM guest, 48 KiB L1d, "
			  "1 MiB L2), 2026-11-30 and 2026-12-01 (probe on): "
			  "fastmem-bench copy, set, versus, residency",
	},
	{
		/* docs/measurements/zen3-guest.md#the-zen-3zen-4-class */
		.name = "AMD Zen 3/Zen 4",
		.vendor = FM_X86_AMD,
		.family = 0x19,
		.models = { { 0, 0xff } },
		.copy_rep = L1D(1, 2),
		/* rep movsb wins only into cold destinations; the probe
		 * costs little enough from 2 x L2:
		 * docs/measurements/zen3-guest.md#copy_rep_cold */
		.copy_rep_cold = L2(2, 1),
		.copy_rep_any = NEVER,
		.set_rep = L2(3, 4),
		.set_rep_cold = NEVER,
		/* rep movsb far slower at 1-63 bytes' distance:
		 * docs/measurements/zen3-guest.md#rep_movsb_aliasing */
		.rep_movsb_aliasing = 1,
		/* streamed cold copies win even read back from 8 x L2:
		 * docs/measurements/zen3-guest.md#copy_cold */
		.copy_cold = L2(8, 1),
		.copy_cached = L2(32, 1),
		/* below 2 x L2 the probe costs more than it finds:
		 * docs/measurements/zen3-guest.md#set_cold */
		.set_cold = L2(2, 1),
		.set_cached = L2(64, 1),
		/* movntdq one page after the other beats rep stosb, eight
		 * pages at a time and clzero at every size:
		 * docs/measurements/zen3-guest.md#set_rep_streams */
		.set_rep_streams = NEVER,
		.set_nt_pages = 1,
		.set_clzero = 0,
		/* the prefetch made cold streamed copies slower:
		 * docs/measurements/zen3-guest.md#copy_nt_prefetch */
		.copy_nt_prefetch = 0,
		/* the avx512 family as the Zen 4 guest's measurements chose
		 * (Zen 3 has no AVX-512):
		 * docs/measurements/zen4-guest.md#avx512_zen4 */
		.avx512_zen4 = 1,
		.source = "EPYC Milan KVM guest (32 KiB L1d, 512 KiB L2, "
			  "32 MiB L3), 2026-12-01: fastmem-bench residency "
			  "and set, avx512_zen4 from a Genoa guest, 2026-12-05 "
			  "(replay)",
	},
	{
		/* Sapphire, Emerald and Granite Rapids:
		 * docs/measurements/xeon-6-207/README.md#the-intel-class */
		.name = "Intel server core, 2 MiB L2",
		.vendor = FM_X86_INTEL,
		.family = 6,
		.models = { { 0x8f, 0x8f }, { 0xad, 0xae }, { 0xcf, 0xcf } },
		.copy_rep = L1D(1, 2),
		.copy_rep_cold = NEVER,
		.copy_rep_any = NEVER,
		/* the zmm set loop loses to rep stosb from ~2 KiB:
		 * docs/measurements/xeon-6-207/README.md#set_rep */
		.set_rep = BYTES(2048),
		.set_rep_cold = NEVER,
		/* not measured: the vector loop is the safe side:
		 * docs/measurements/xeon-6-207/README.md#rep_movsb_aliasing */
		.rep_movsb_aliasing = 1,
		/* streaming cold data wins even read back:
		 * docs/measurements/xeon-6-207/README.md#cold-crossovers */
		.copy_cold = L2(1, 1),
		.copy_cached = L2(32, 1),
		.set_cold = L2(1, 1),
		.set_cached = L2(8, 1),
		.set_rep_streams = NEVER,
		/* as the measurements were taken:
		 * docs/measurements/xeon-6-207/README.md#streaming-shape */
		.copy_nt_prefetch = 2048,
		.set_nt_pages = 8,
		.source = "docs/measurements/xeon-6-207 (family 6 model 207, "
			  "2 MiB L2), 2026-11-30: copy-then-read-back.txt, "
			  "set.txt, copy.txt",
	},
	{
		/* Ice Lake server (Sunny Cove): only model 106 (0x6a)
		 * measured; 0x6c is the same core (Ice Lake-D):
		 * docs/measurements/icelake-guest.md#the-ice-lake-class */
		.name = "Intel Ice Lake server",
		.vendor = FM_X86_INTEL,
		.family = 6,
		.models = { { 0x6a, 0x6a }, { 0x6c, 0x6c } },
		/* rep movsb from 4 KiB: 1.26-1.65x the zmm loop at 4-16 KiB
		 * in L1; from 2 KiB it lost 15% on the fleet's random
		 * 2-4 KiB copies: docs/measurements/icelake-guest.md#copy_rep
		 */
		.copy_rep = BYTES(4095),
		.copy_rep_cold = NEVER,
		.copy_rep_any = NEVER,
		/* rep stosb from the L1d size: 1.00-1.36x the zmm loop at
		 * 48 KiB-1 MiB, hot and cold; from 16 KiB it cost the
		 * replay's hot 16 and 32 KiB sets 6% and 3%:
		 * docs/measurements/icelake-guest.md#set_rep */
		.set_rep = L1D(1, 1),
		.set_rep_cold = NEVER,
		/* at 2 KiB the loop beat rep movsb 1-63 bytes ahead:
		 * docs/measurements/icelake-guest.md#rep_movsb_aliasing */
		.rep_movsb_aliasing = 1,
		/* streaming into cold destinations won read back from 1 MiB;
		 * into cached ones lost at 8 MiB and won from 16 MiB:
		 * docs/measurements/icelake-guest.md#copy_cold */
		.copy_cold = L2(1, 1),
		.copy_cached = L2(12, 1),
		/* cold sets won streamed from 2 MiB; cached ones lost up to
		 * 16 MiB and won from 32 MiB:
		 * docs/measurements/icelake-guest.md#set_cold */
		.set_cold = L2(2, 1),
		.set_cached = L2(16, 1),
		.set_rep_streams = NEVER,
		/* as the measurements were taken (the formula's shape):
		 * docs/measurements/icelake-guest.md#streaming-shape */
		.copy_nt_prefetch = 2048,
		.set_nt_pages = 8,
		.source = "Ice Lake server KVM guest (family 6 model 106, "
			  "48 KiB L1d, 1.25 MiB L2), 2026-12-06: "
			  "fastmem-bench copy, set, calibrate, residency",
	},
};

/*
 * CPUs no entry matches: the size formula (lib/internal.h), which
 * tune.c's size policy also reads from here; the loops' shape as Zen 5's.
 * docs/measurements/zen5-guest.md#the-size-formula
 */
static const struct fm_x86_class unknown = {
	.name = "unknown CPU",
	.copy_rep = L1D(1, 2),
	.copy_rep_cold = NEVER,
	.copy_rep_any = NEVER,
	.set_rep = L2(3, 4),
	.set_rep_cold = NEVER,
	.rep_movsb_aliasing = 1,
	.copy_cold = NEVER,
	.copy_cached = L2(FM_NT_COPY_L2, 1),
	.set_cold = NEVER,
	.set_cached = L2(FM_NT_SET_L2, 1),
	.set_rep_streams = NEVER,
	.copy_nt_prefetch = 2048,
	.set_nt_pages = 8,
	.set_clzero = 1,
	.source = "the Zen 5 development machine's formula "
		  "(docs/policy.md)",
};

void fm_x86_cpu_id(struct fm_x86_id *id)
{
	unsigned a, b, c, d;

	id->vendor = 0;
	id->family = id->model = 0;
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	if (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163)
		id->vendor = FM_X86_AMD; /* AuthenticAMD */
	else if (b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e)
		id->vendor = FM_X86_INTEL; /* GenuineIntel */
	if (a < 1)
		return;
	__cpuid(1, a, b, c, d);
	id->family = (a >> 8) & 0xf;
	id->model = (a >> 4) & 0xf;
	if (id->family == 0xf)
		id->family += (a >> 20) & 0xff;
	if (id->family == 0xf || id->family >= 6)
		id->model |= ((a >> 16) & 0xf) << 4;
}

int fm_x86_class_matches(const struct fm_x86_class *k,
			 const struct fm_x86_id *id)
{
	if (k->vendor != id->vendor || k->family != id->family)
		return 0;
	for (int r = 0; r < FM_X86_MODEL_RANGES; r++)
		if (k->models[r][1] && id->model >= k->models[r][0] &&
		    id->model <= k->models[r][1])
			return 1;
	return 0;
}

const struct fm_x86_class *fm_x86_classes(size_t *n,
					  const struct fm_x86_class **other)
{
	*n = sizeof(classes) / sizeof(classes[0]);
	*other = &unknown;
	return classes;
}

const struct fm_x86_class *fm_x86_class(void)
{
	struct fm_x86_id id;

	fm_x86_cpu_id(&id);
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		const struct fm_x86_class *k = &classes[i];

		if (fm_x86_class_matches(k, &id))
			return k;
	}
	return &unknown;
}

size_t fm_x86_crossover(struct fm_crossover x, const struct fm_cache_info *ci)
{
	size_t base;

	switch (x.base) {
	case FM_X_BYTES:
		base = 1;
		break;
	case FM_X_L1D:
		base = ci->l1d ? ci->l1d : ASSUMED_L1D;
		break;
	case FM_X_L2:
		/* per thread; unknown: the one L2 thresholds.c assumes too */
		if (!ci->l2)
			base = FM_ASSUMED_L2;
		else if (ci->l2_sharing > 1)
			base = ci->l2 / ci->l2_sharing;
		else
			base = ci->l2;
		break;
	default:
		return SIZE_MAX;
	}
	return base / x.div * x.mul;
}

size_t fm_x86_copy_rep_min(const struct fm_x86_class *k,
			   const struct fm_cache_info *ci, int erms,
			   const struct fm_settings *st)
{
	if (!erms)
		return SIZE_MAX;
	if (st && st->rep_src[FM_OP_MEMCPY])
		return st->rep[FM_OP_MEMCPY];
	return fm_x86_crossover(k->copy_rep, ci) + 1;
}

size_t fm_x86_copy_loop_below = FM_X86_LOOP_BELOW;

/* The copies' loop floor (x86.h), the same copy_rep_min the crossovers
 * will have.  RESOLVER-SAFE. */
void fm_arch_thresholds_init(const struct fm_cache_info *ci,
			     const struct fm_settings *st)
{
	int erms = (fm_usable_features_of(st) & FM_FEAT(erms)) != 0;
	size_t rep = fm_x86_copy_rep_min(fm_x86_class(), ci, erms, st);

	__atomic_store_n(&fm_x86_copy_loop_below,
			 rep < FM_X86_LOOP_BELOW ? rep : FM_X86_LOOP_BELOW,
			 __ATOMIC_RELAXED);
}

/* Streaming from this size whatever the residency (fm_nt_threshold's
 * detected default).  RESOLVER-SAFE. */
size_t fm_arch_nt_default(enum fm_op op, const struct fm_cache_info *ci)
{
	const struct fm_x86_class *k = fm_x86_class();

	/* the page calls never probe: they keep the size formula */
	if (op == FM_OP_COPY_PAGE || op == FM_OP_CLEAR_PAGE)
		return 0;
	return fm_x86_crossover(
		op == FM_OP_MEMSET ? k->set_cached : k->copy_cached, ci);
}

const char *fm_arch_class_name(void)
{
	return fm_x86_class()->name;
}

/* The avx512_zen4 policy is first among the automatic copies and sets
 * (variants.h), taken where the class asks for it.  RESOLVER-SAFE. */
int fm_arch_passes_over(enum fm_op op, const char *name)
{
	static const char zen4[] = "avx512_zen4_auto";
	size_t i = 0;

	if (op != FM_OP_MEMCPY && op != FM_OP_MEMMOVE && op != FM_OP_MEMSET)
		return 0;
	while (zen4[i] && name[i] == zen4[i])
		i++;
	return name[i] == zen4[i] && !fm_x86_class()->avx512_zen4;
}
