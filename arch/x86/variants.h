/* SPDX-License-Identifier: MIT */
/*
 * x86 entries of the registry (see lib/variants.h).  Best first: the
 * automatic policies, then the plain variants they are built from.
 */

#ifdef __x86_64__
#define X86_REP_MOVS_PAGE(V) V(rep_movsq, "", AUTO)
#define X86_REP_STOS_PAGE(V) V(rep_stosq, "", 0)
#else
#define X86_REP_MOVS_PAGE(V) V(rep_movsd, "", AUTO)
#define X86_REP_STOS_PAGE(V) V(rep_stosd, "", 0)
#endif

/* MMX copies only where SSE2 may be missing: i686 builds */
#ifdef __i386__
#define X86_MMX_COPY(V)                                                        \
	V(mmx, "mmx", 0)                                                       \
	V(mmx_movntq, "mmx,sse", NT)
#else
#define X86_MMX_COPY(V)
#endif

/*
 * memcpy/memmove and memset come in the same families, in the same order.
 * avx512_zen4 (avx512.c: two choices of the Zen 4 guest's) first, passed
 * over as the automatic choice unless the CPU class asks for it
 * (avx512_zen4, classes.c); its plain variants after the other families'.
 */
#define X86_VECTOR_FAMILIES(V, P)                                              \
	P(avx512_zen4_auto, "avx512", AUTO)                                    \
	P(avx512_auto, "avx512", AUTO)                                         \
	P(avx2_auto, "avx2", AUTO)                                             \
	P(sse2_auto, "sse2", AUTO)                                             \
	V(erms, "erms", AUTO)                                                  \
	V(avx512, "avx512", 0)                                                 \
	V(avx512_nt, "avx512", NT)                                             \
	V(avx2, "avx2", 0)                                                     \
	V(avx2_nt, "avx2", NT)                                                 \
	V(sse2, "sse2", 0)                                                     \
	V(sse2_nt, "sse2", NT)                                                 \
	V(avx512_zen4, "avx512", 0)                                            \
	V(avx512_zen4_nt, "avx512", NT)

/*
 * The policies (P) of memcpy, memmove and memset define their traced twins
 * themselves, with the count inlined (traced_memcpy_<id>, traced_memmove_<id>,
 * traced_memset_<id> in vecops.h); lib/trace.c makes the other twins.
 */
#define ARCH_TRACED_POLICIES 1

#define ARCH_COPY_VARIANTS(V, P)                                               \
	X86_VECTOR_FAMILIES(V, P)                                              \
	X86_MMX_COPY(V)

#define ARCH_SET_VARIANTS(V, P) X86_VECTOR_FAMILIES(V, P)

#define ARCH_COPY_PAGE_VARIANTS(V, P)                                          \
	P(avx512_auto, "avx512", AUTO)                                         \
	P(sse2_auto, "sse2", AUTO)                                             \
	X86_REP_MOVS_PAGE(V)                                                   \
	V(avx512, "avx512", 0)                                                 \
	V(avx512_nt, "avx512", NT)                                             \
	V(sse2, "sse2", 0)                                                     \
	V(sse2_nt, "sse2", NT)                                                 \
	V(movnti, "sse2", NT)

#define ARCH_CLEAR_PAGE_VARIANTS(V, P)                                         \
	P(avx512_auto, "avx512", AUTO)                                         \
	P(avx2_auto, "avx2", AUTO)                                             \
	P(sse2_auto, "sse2", AUTO)                                             \
	V(rep_stosb, "erms", AUTO)                                             \
	X86_REP_STOS_PAGE(V)                                                   \
	V(avx512, "avx512", 0)                                                 \
	V(avx512_nt, "avx512", NT)                                             \
	V(avx2, "avx2", 0)                                                     \
	V(sse2_nt, "sse2", NT)                                                 \
	V(movnti, "sse2", NT)                                                  \
	V(clzero, "clzero", NT)
