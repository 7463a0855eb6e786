/* SPDX-License-Identifier: MIT */
/* x86 entries of the registry (see lib/variants.h).  Best first. */

#ifdef __x86_64__
#define X86_REP_MOVS_PAGE(V) V(rep_movsq, "", AUTO)
#define X86_REP_STOS_PAGE(V) V(rep_stosq, "", 0)
#else
#define X86_REP_MOVS_PAGE(V) V(rep_movsd, "", AUTO)
#define X86_REP_STOS_PAGE(V) V(rep_stosd, "", 0)
#endif

#define ARCH_COPY_VARIANTS(V, P) V(erms, "erms", AUTO)

#define ARCH_SET_VARIANTS(V, P) V(erms, "erms", AUTO)

#define ARCH_COPY_PAGE_VARIANTS(V, P) X86_REP_MOVS_PAGE(V)

#define ARCH_CLEAR_PAGE_VARIANTS(V, P)                                         \
	V(rep_stosb, "erms", AUTO)                                             \
	X86_REP_STOS_PAGE(V)
