/* SPDX-License-Identifier: MIT */
/*
 * THE REGISTRY: every variant of every operation, one line each.  The
 * resolvers, fm_variants(), fastmem-info, the tests and the benchmark all
 * read what registry.c renders from these lists; nothing keeps another.
 *
 *   V(id, "isa", flags)  a variant; its function is <prefix>_<id> with the
 *                        op's plain signature
 *   P(id, "isa", flags)  a policy: <prefix>_<id> takes one more argument,
 *                        the non-temporal threshold in bytes, and picks
 *                        among variants by size; a copy policy also defines
 *                        memcpy_<id> and memmove_<id>, a set policy
 *                        memset_<id>, in the plain signature, reading the
 *                        op's threshold themselves (fm_threshold_ready())
 *
 * Prefixes: copy_ (memcpy and memmove: every copy variant is overlap-safe),
 * set_ (memset), copy_page_, clear_pages_.  "isa" is a comma list of
 * FM_FEATURE_LIST names.  The automatic choice is the first usable entry
 * flagged FM_VARIANT_AUTO that the CPU class does not pass over
 * (fm_arch_passes_over), so each list runs from best to most portable.
 */
#ifndef FASTMEM_VARIANTS_H
#define FASTMEM_VARIANTS_H

#include "internal.h"

#define AUTO FM_VARIANT_AUTO
#define NT FM_VARIANT_NT

/* FM_GENERIC_ONLY: configure --disable-arch-variants, the portable C alone
 * as on a CPU with no arch/ directory, whatever this one is */
#if defined(FM_GENERIC_ONLY)
#elif defined(__x86_64__) || defined(__i386__)
#include "x86/variants.h"
#elif defined(__powerpc64__)
#include "ppc/variants.h"
#elif defined(__aarch64__)
#include "aarch64/variants.h"
#endif
#ifndef ARCH_COPY_VARIANTS
#define ARCH_COPY_VARIANTS(V, P)
#define ARCH_SET_VARIANTS(V, P)
#define ARCH_COPY_PAGE_VARIANTS(V, P)
#define ARCH_CLEAR_PAGE_VARIANTS(V, P)
#endif

#define FM_COPY_VARIANTS(V, P)                                                 \
	ARCH_COPY_VARIANTS(V, P)                                               \
	V(generic, "", AUTO)
#define FM_SET_VARIANTS(V, P)                                                  \
	ARCH_SET_VARIANTS(V, P)                                                \
	V(generic, "", AUTO)
#define FM_COPY_PAGE_VARIANTS(V, P)                                            \
	ARCH_COPY_PAGE_VARIANTS(V, P)                                          \
	V(generic, "", AUTO)
#define FM_CLEAR_PAGE_VARIANTS(V, P)                                           \
	ARCH_CLEAR_PAGE_VARIANTS(V, P)                                         \
	V(generic, "", AUTO)

/* Declarations of every variant function (FM_DECLARE_VARIANTS, once per
 * file that refers to them: registry.c, trace.c) */
#define DECL_COPY_V(id, isa, fl) copy_fn copy_##id;
#define DECL_COPY_P(id, isa, fl)                                               \
	copy_policy_fn copy_##id;                                              \
	copy_fn memcpy_##id, memmove_##id;
#define DECL_SET_V(id, isa, fl) set_fn set_##id;
#define DECL_SET_P(id, isa, fl)                                                \
	set_policy_fn set_##id;                                                \
	set_fn memset_##id;
#define DECL_CPAGE_V(id, isa, fl) copy_page_fn copy_page_##id;
#define DECL_CPAGE_P(id, isa, fl)                                              \
	void copy_page_##id(void *, const void *, size_t);
#define DECL_CLEAR_V(id, isa, fl) clear_pages_fn clear_pages_##id;
#define DECL_CLEAR_P(id, isa, fl) void clear_pages_##id(void *, size_t, size_t);
#define FM_DECLARE_VARIANTS                                                    \
	FM_COPY_VARIANTS(DECL_COPY_V, DECL_COPY_P)                             \
	FM_SET_VARIANTS(DECL_SET_V, DECL_SET_P)                                \
	FM_COPY_PAGE_VARIANTS(DECL_CPAGE_V, DECL_CPAGE_P)                      \
	FM_CLEAR_PAGE_VARIANTS(DECL_CLEAR_V, DECL_CLEAR_P)

#endif /* FASTMEM_VARIANTS_H */
