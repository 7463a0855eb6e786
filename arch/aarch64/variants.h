/* SPDX-License-Identifier: MIT */
/*
 * AArch64 entries of the registry (see lib/variants.h).  Best first: the
 * automatic copy policies (plain stores below the non-temporal threshold,
 * non-temporal pair stores from it), then the plain variants they are built
 * from.  Advanced SIMD is part of the AArch64 Linux ABI, so the asimd family
 * needs no feature; SVE comes from HWCAP_SVE, DC ZVA from DCZID_EL0 and the
 * probe in cpu.c.  SVE goes first where it exists, as glibc's aarch64
 * dispatch does; no figure here was measured on hardware (docs/design.md,
 * "Ports").
 */

#define ARCH_COPY_VARIANTS(V, P)                                               \
	P(sve_auto, "sve", AUTO)                                               \
	P(asimd_auto, "", AUTO)                                                \
	V(sve, "sve", 0)                                                       \
	V(sve_nt, "sve", NT)                                                   \
	V(asimd, "", 0)                                                        \
	V(asimd_nt, "", NT)

/* zero with DC ZVA, other bytes (and short or unverified zeroes) with
 * Advanced SIMD stores */
#define ARCH_SET_VARIANTS(V, P)                                                \
	V(zva, "dczva", AUTO)                                                  \
	V(asimd, "", AUTO)

#define ARCH_COPY_PAGE_VARIANTS(V, P)                                          \
	V(asimd, "", AUTO)                                                     \
	V(asimd_nt, "", NT)                                                    \
	V(sve, "sve", 0)

#define ARCH_CLEAR_PAGE_VARIANTS(V, P)                                         \
	V(zva, "dczva", AUTO)                                                  \
	V(asimd, "", AUTO)
