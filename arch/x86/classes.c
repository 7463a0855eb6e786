/* SPDX-License-Identifier: MIT */
/*
 * CPU classes and their crossovers, as data: one table, each entry with the
 * measurement it came from.  A crossover fitted on one machine is wrong on
 * another (Zen 5's zmm set loop beats rep stosb up to 3/4 of L2; on an Intel
 * Xeon it loses 10-18% there), so each class keeps its own, and CPUs that no
 * entry matches get the cache-size formula measured on the first machine.
 *
 * RESOLVER-SAFE: inline cpuid, and a table of integers and char arrays that
 * needs no relocation (thresholds.c reads it from the resolvers).
 */
#include <cpuid.h>

#include "x86.h"

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
		.name = "AMD Zen 5",
		.vendor = FM_X86_AMD,
		.family = 0x1a,
		.models = { { 0, 0xff } },
		.copy_rep = L1D(1, 2),
		/* from 4 x L2, rep movsb into a cached destination read back
		 * runs 0.67-0.72x glibc, the vector loop 0.97-1.04x; at 2-3
		 * MiB rep movsb wins (1.07-1.24x): residency, 8 runs */
		.copy_rep_cold = L2(4, 1),
		/* from 16 x L2 rep movsb wins whatever the residency: cached
		 * 16-64 MiB 1.28-1.39x glibc against 1.03-1.27x for the
		 * loop or streaming, cached read back 1.05-1.24x against
		 * 1.02-1.21x, cold 1.25-1.37x against 1.00-1.25x
		 * (residency, 2 x 5 runs; copy --mode cache-cache,mem-mem,
		 * 3 runs: 12-16 MiB 1.13-1.32x against 0.87-1.00x) */
		.copy_rep_any = L2(16, 1),
		.set_rep = L2(3, 4),
		/* cold 16-512 KiB sets: the zmm loop 0.61-0.79x glibc,
		 * timed first 4 KiB then rep stosb 0.93-1.04x; cached: the
		 * timing costs 13% at 16 KiB, 3% at 64 KiB (x86.h) */
		.set_rep_cold = BYTES(64 << 10),
		/* rep movsb at 1-63 bytes' distance mod 4096 runs at glibc's
		 * speed, the vector loop 0.68-0.73x (x86.h) */
		.rep_movsb_aliasing = 0,
		/* cold copies: rep movsb and streaming stores tie (1.1-1.3x
		 * glibc), and streaming loses once read back up to 8 MiB;
		 * at 16-256 MiB streaming lost to rep movsb in every
		 * residency (1.13-1.29x against 1.18-1.45x; copy, 2 runs),
		 * so copies stream only where not measured */
		.copy_cold = NEVER,
		.copy_cached = L2(512, 1),
		/* cold sets, streamed: 1.2-1.6x alone at 1-2 MiB but
		 * 0.81-0.91x read back; from 4 MiB no loss read back */
		.set_cold = L2(4, 1),
		.set_cached = L2(32, 1),
		.set_rep_streams = NEVER,
		/* prefetcht0 2 KiB ahead made streaming copies 15-25%
		 * faster, hot or cold (1 and 4 KiB as well; nta lost 30%
		 * with the source in L2 or L3) */
		.copy_nt_prefetch = 2048,
		/* past the caches 1.5x faster than one page after the
		 * other; clzero 1.3-1.9x faster than streaming stores */
		.set_nt_pages = 8,
		.set_clzero = 1,
		.source = "development machine (Zen 5 KVM guest, 48 KiB L1d, "
			  "1 MiB L2), 2026-11-30 and 2026-12-01 (probe on): "
			  "fastmem-bench copy, set, versus, residency",
	},
	{
		.name = "AMD Zen 3/Zen 4",
		.vendor = FM_X86_AMD,
		.family = 0x19,
		.models = { { 0, 0xff } },
		.copy_rep = L1D(1, 2),
		/* from L2 on, rep movsb wins into cold destinations (1.01-
		 * 1.05x glibc at 1-8 MiB against 0.98-0.99x for the loop) and
		 * loses into cached ones read back (0.93-1.09x against
		 * 1.06-1.17x) and never-touched ones (0.88-0.94x against
		 * 0.95-1.02x): residency, 5-7 runs each; the probe decides,
		 * from 2 x L2, where its cost on a cached copy is 2% (at L2,
		 * 5%: 40600 TSC ticks against 38700 for the loop alone) */
		.copy_rep_cold = L2(2, 1),
		.copy_rep_any = NEVER,
		.set_rep = L2(3, 4),
		.set_rep_cold = NEVER,
		/* 20x slower at 1-31 bytes, 25% at 33-63 (x86.h) */
		.rep_movsb_aliasing = 1,
		/* cold 1-8 MiB copies, streamed without prefetching: 1.38-
		 * 1.48x glibc alone against 0.98-1.03x, read back 0.95x at
		 * 1-2 MiB, 1.06-1.07x at 4-8 MiB against 0.96-1.06x
		 * (residency, 3 runs; with the prefetch it had lost up to
		 * 0.5x read back) */
		.copy_cold = L2(8, 1),
		.copy_cached = L2(32, 1),
		/* cold sets, streamed one page after the other: 2.9-3.3x
		 * glibc alone from 64 KiB, read back 0.94x at 64 KiB, 0.99x
		 * at 128 KiB, 1.04-1.06x from 256 KiB (residency, 3 runs);
		 * but below 1 MiB the probe's loads cost never-touched
		 * destinations 3-11% (their pages fault twice) and found
		 * few cold buffers cold (their translations still cached);
		 * cached sets read back: streaming 0.25-0.5x up to 8 MiB */
		.set_cold = L2(2, 1),
		.set_cached = L2(64, 1),
		/* rep stosb runs 12-17 GB/s up to 28 MiB and 22-48 from 32
		 * MiB (it streams by itself there), movntdq one page after
		 * the other 40-47 GB/s from 2 MiB (zeroes; 19-21 like every
		 * other way for other bytes), against ~30 for eight pages at
		 * a time and 27-29 for clzero: set --mode memory -s
		 * 2M..256M --byte 0 and 1, 2 runs of each build */
		.set_rep_streams = NEVER,
		.set_nt_pages = 1,
		.set_clzero = 0,
		/* one prefetcht0 per 128 B, 2 KiB ahead, made cold
		 * 64-256 MiB copies 0.79-0.87x of the same loop without it
		 * (an ad hoc program against builds with and without it:
		 * 1.45x -> 1.63x and 0.87x -> 1.09x glibc; one prefetch per
		 * line 0.95-0.98x); copy --mode mem-mem -s 16M,64M, 2 runs
		 * of each build: 1.19-1.35x -> 1.58-1.74x (one cell 1.01x,
		 * +-46%) */
		.copy_nt_prefetch = 0,
		.source = "EPYC Milan KVM guest (32 KiB L1d, 512 KiB L2, "
			  "32 MiB L3), 2026-12-01: fastmem-bench residency "
			  "and set (a shared, noisy host)",
	},
	{
		/* Sapphire, Emerald and Granite Rapids */
		.name = "Intel server core, 2 MiB L2",
		.vendor = FM_X86_INTEL,
		.family = 6,
		.models = { { 0x8f, 0x8f }, { 0xad, 0xae }, { 0xcf, 0xcf } },
		.copy_rep = L1D(1, 2),
		.copy_rep_cold = NEVER,
		.copy_rep_any = NEVER,
		.set_rep = BYTES(2048),
		.set_rep_cold = NEVER,
		/* not measured: the vector loop is the safe side */
		.rep_movsb_aliasing = 1,
		.copy_cold = L2(1, 1),
		.copy_cached = L2(32, 1),
		.set_cold = L2(1, 1),
		.set_cached = L2(8, 1),
		.set_rep_streams = NEVER,
		/* the measurements were taken with these (2152f81): streamed
		 * copies won memory-to-memory from 2 MiB (copy.txt), streamed
		 * cold sets of 8-256 MiB ran 2.3-2.8x glibc (versus.txt) */
		.copy_nt_prefetch = 2048,
		.set_nt_pages = 8,
		.source = "docs/measurements/xeon-6-207 (family 6 model 207, "
			  "2 MiB L2), 2026-11-30: copy-then-read-back.txt, "
			  "set.txt, copy.txt",
	},
};

/* CPUs no entry matches: the formula of the first machine, size alone. */
static const struct fm_x86_class unknown = {
	.name = "unknown CPU",
	.copy_rep = L1D(1, 2),
	.copy_rep_cold = NEVER,
	.copy_rep_any = NEVER,
	.set_rep = L2(3, 4),
	.set_rep_cold = NEVER,
	.rep_movsb_aliasing = 1,
	.copy_cold = NEVER,
	.copy_cached = L2(32, 1),
	.set_cold = NEVER,
	.set_cached = L2(4, 1),
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
		base = ci->l1d ? ci->l1d : 32 << 10;
		break;
	case FM_X_L2:
		base = ci->l2 ? ci->l2 : 256 << 10;
		if (ci->l2_sharing > 1)
			base /= ci->l2_sharing;
		break;
	default:
		return SIZE_MAX;
	}
	return base / x.div * x.mul;
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
