/* SPDX-License-Identifier: MIT */
/*
 * 64-bit PowerPC entries of the registry (see lib/variants.h).  Best first.
 *
 * The Cell and 970 families come twice: as policies that need the CPU model
 * (cell_auto, ppc970_auto: the automatic choice takes them only on a
 * detected Cell or 970), and as variants that need only a verified dcbz
 * (cell, ppc970), so FASTMEM_MEMCPY=cell can force the family where the
 * model cannot be detected (qemu has no Cell and passes no AT_PLATFORM).
 * Everything with dcbz in its ISA needs the probe in cpu.c to agree with
 * AT_DCACHEBSIZE.  PowerPC has no cache-bypassing store, so the policies
 * choose by size only and ignore the non-temporal threshold.
 *
 * vsx needs POWER8 (ISA 2.07 and VSX: the "power8" feature) and runs in
 * both byte orders.  altivec builds its misaligned copies with lvsl/vperm,
 * which assume big-endian element order, so little-endian builds (ppc64le,
 * where every CPU has VSX anyway) leave it out.
 */

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PPC_ALTIVEC(V) V(altivec, "altivec", AUTO)
#else
#define PPC_ALTIVEC(V)
#endif

/* copies and page copies come in the same families, as do sets and clears */
#define PPC_COPY_FAMILIES(V, P)                                                \
	P(cell_auto, "cell,dcbz", AUTO)                                        \
	P(ppc970_auto, "ppc970,dcbz", AUTO)                                    \
	V(vsx, "power8", AUTO)                                                 \
	PPC_ALTIVEC(V)                                                         \
	V(cell, "dcbz", 0)                                                     \
	V(ppc970, "dcbz", 0)                                                   \
	V(ppc64, "", AUTO)
#define PPC_SET_FAMILIES(V, P) V(dcbz, "dcbz", AUTO)

#define ARCH_COPY_VARIANTS(V, P) PPC_COPY_FAMILIES(V, P)
#define ARCH_COPY_PAGE_VARIANTS(V, P) PPC_COPY_FAMILIES(V, P)
#define ARCH_SET_VARIANTS(V, P) PPC_SET_FAMILIES(V, P)
#define ARCH_CLEAR_PAGE_VARIANTS(V, P) PPC_SET_FAMILIES(V, P)
