/* SPDX-License-Identifier: MIT */
/*
 * The public entry points.  fm_memcpy & co. are GNU ifuncs: their resolvers
 * run once, pick an index in the registry (fm_choose) and return the
 * variant's address.  Everything a resolver touches is RESOLVER-SAFE (see
 * internal.h).
 */
#include "config.h"

#include <dlfcn.h>

#include "internal.h"

/* A static program runs the resolvers before it has TLS, where the stack
 * protector's canary lives (configure keeps such flags for the tools) */
#if defined(__SSP__) || defined(__SSP_STRONG__) || defined(__SSP_ALL__) ||     \
	defined(__SSP_EXPLICIT__)
#error "libfastmem must be built without a stack protector"
#endif

#if defined(__powerpc64__)
#define RESOLVER_ARGS unsigned long hwcap
#define RESOLVER_USE (void)hwcap
#elif defined(__aarch64__)
/* glibc passes AT_HWCAP (and a pointer to both hwcap words, unused) */
#define RESOLVER_ARGS uint64_t hwcap, const void *hwcap_words
#define RESOLVER_USE (void)hwcap_words, fm_arch_resolver_hwcap(hwcap)
#else
#define RESOLVER_ARGS void
#define RESOLVER_USE
#endif

typedef void *memcpy_type(void *restrict, const void *restrict, size_t);
typedef void copy_page_type(void *restrict, const void *restrict);

/* used: referred to only by name, in the ifunc attributes (clang warned) */
#define RESOLVER(name, type, op)                                               \
	__attribute__((used)) static type *resolve_##name(RESOLVER_ARGS)       \
	{                                                                      \
		RESOLVER_USE;                                                  \
		fm_thresholds_init();                                          \
		return (type *)fm_trace_resolve(op, fm_choose(op).index);      \
	}

RESOLVER(memcpy, memcpy_type, FM_OP_MEMCPY)
RESOLVER(memmove, copy_fn, FM_OP_MEMMOVE)
RESOLVER(memset, set_fn, FM_OP_MEMSET)
RESOLVER(copy_page, copy_page_type, FM_OP_COPY_PAGE)
RESOLVER(clear_pages, clear_pages_fn, FM_OP_CLEAR_PAGE)

void *fm_memcpy(void *restrict dst, const void *restrict src, size_t n)
	__attribute__((ifunc("resolve_memcpy")));
void *fm_memmove(void *dst, const void *src, size_t n)
	__attribute__((ifunc("resolve_memmove")));
void *fm_memset(void *dst, int c, size_t n)
	__attribute__((ifunc("resolve_memset")));
/* Page-aligned only: the public page calls check alignment first. */
static void copy_page_aligned(void *restrict dst, const void *restrict src)
	__attribute__((ifunc("resolve_copy_page")));
static void clear_pages_aligned(void *page, size_t npages)
	__attribute__((ifunc("resolve_clear_pages")));

#define PAGE_MASK ((uintptr_t)FM_PAGE_SIZE - 1)

void fm_copy_page(void *restrict dst, const void *restrict src)
{
	if (FM_UNLIKELY(((uintptr_t)dst | (uintptr_t)src) & PAGE_MASK))
		fm_memcpy(dst, src, FM_PAGE_SIZE);
	else
		copy_page_aligned(dst, src);
}

void fm_clear_page(void *page)
{
	fm_clear_pages(page, 1);
}

void fm_clear_pages(void *page, size_t npages)
{
	if (FM_UNLIKELY((uintptr_t)page & PAGE_MASK))
		fm_memset(page, 0, npages * FM_PAGE_SIZE);
	else if (npages)
		clear_pages_aligned(page, npages);
}

/* --- hints -------------------------------------------------------------- */

/* Selected index + 1 per op, cached for the hint calls. */
static int selected_cache[FM_OP_COUNT];

static int selected_index(enum fm_op op)
{
	int i = __atomic_load_n(&selected_cache[op], __ATOMIC_RELAXED);

	if (FM_UNLIKELY(!i)) {
		i = fm_choose(op).index + 1;
		__atomic_store_n(&selected_cache[op], i, __ATOMIC_RELAXED);
	}
	return i - 1;
}

static size_t hint_threshold(enum fm_hint hint)
{
	return hint == FM_HINT_NONTEMPORAL ? FM_NT_MIN : SIZE_MAX;
}

/* The hints' work without counting it (tracing counts each public call
 * once: the parallel calls' chunks come here).  A variant that is not a
 * policy runs as it is. */
void *fm_memcpy_hint_uncounted(void *restrict dst, const void *restrict src,
			       size_t n, enum fm_hint hint)
{
	int index = selected_index(FM_OP_MEMCPY);
	copy_policy_fn *policy = fm_copy_policy(index);

	if (hint != FM_HINT_AUTO && policy)
		return policy(dst, src, n, hint_threshold(hint));
	return ((copy_fn *)fm_variant_fn(FM_OP_MEMCPY, index))(dst, src, n);
}

void *fm_memset_hint_uncounted(void *dst, int c, size_t n, enum fm_hint hint)
{
	int index = selected_index(FM_OP_MEMSET);
	set_policy_fn *policy = fm_set_policy(index);

	if (hint != FM_HINT_AUTO && policy)
		return policy(dst, c, n, hint_threshold(hint));
	return ((set_fn *)fm_variant_fn(FM_OP_MEMSET, index))(dst, c, n);
}

void *fm_memcpy_hint(void *restrict dst, const void *restrict src, size_t n,
		     enum fm_hint hint)
{
	if (hint == FM_HINT_AUTO)
		return fm_memcpy(dst, src, n); /* counted by its traced twin */
	fm_trace_count(FM_OP_MEMCPY, dst, src, n);
	return fm_memcpy_hint_uncounted(dst, src, n, hint);
}

void *fm_memset_hint(void *dst, int c, size_t n, enum fm_hint hint)
{
	if (hint == FM_HINT_AUTO)
		return fm_memset(dst, c, n);
	fm_trace_count(FM_OP_MEMSET, dst, NULL, n);
	return fm_memset_hint_uncounted(dst, c, n, hint);
}

void fm_clear_pages_hint(void *page, size_t npages, enum fm_hint hint)
{
	clear_pages_policy_fn *policy;

	if (hint != FM_HINT_AUTO && !((uintptr_t)page & PAGE_MASK)) {
		policy =
			fm_clear_pages_policy(selected_index(FM_OP_CLEAR_PAGE));
		if (policy) {
			if (npages)
				policy(page, npages, hint_threshold(hint));
			return;
		}
	}
	fm_clear_pages(page, npages);
}

/* --- introspection ------------------------------------------------------ */

const char *fm_selected(enum fm_op op)
{
	const struct fm_variant *list;

	if ((unsigned)op >= FM_OP_COUNT)
		return 0;
	fm_variants(op, &list);
	return list[fm_choose(op).index].name;
}

static char reason_text[FM_OP_COUNT][FM_PATH_MAX + 32];

const char *fm_selected_reason(enum fm_op op)
{
	struct fm_settings scratch;
	const struct fm_settings *st;
	char *buf;
	size_t len = 0;
	const char *parts[3] = { "auto", "", "" };

	if ((unsigned)op >= FM_OP_COUNT)
		return 0;
	switch (fm_choose(op).src) {
	case FM_SRC_ENV:
		parts[0] = "environment (";
		parts[1] = fm_op_env_name(op);
		parts[2] = ")";
		break;
	case FM_SRC_CONFIG:
	case FM_SRC_SYSTEM:
		st = fm_settings_get(&scratch);
		parts[0] = "config (";
		parts[1] = fm_source_path(st, fm_choose(op).src);
		parts[2] = ")";
		break;
	default:
		break;
	}
	buf = reason_text[op];
	for (int i = 0; i < 3; i++)
		for (const char *p = parts[i];
		     *p && len + 1 < sizeof(reason_text[op]);)
			buf[len++] = *p++;
	buf[len] = 0;
	return buf;
}

static char features_text[2][160];

const char *fm_cpu_features(void)
{
	fm_format_features(fm_usable_features(), features_text[0],
			   sizeof(features_text[0]));
	return features_text[0];
}

const char *fm_cpu_features_detected(void)
{
	fm_format_features(fm_arch_features(), features_text[1],
			   sizeof(features_text[1]));
	return features_text[1];
}

const char *fm_cpu_notes(void)
{
	return fm_arch_notes();
}

/*
 * libfastmem-preload.so defines fm_preload_memcpy and makes memcpy an alias
 * of it; if the memcpy this process resolves is that one, memcpy is ours.
 * (dlsym rather than &memcpy: the library must not reference memcpy.)
 */
int fm_preloaded(void)
{
	void *ours = dlsym(RTLD_DEFAULT, "fm_preload_memcpy");

	return ours && ours == dlsym(RTLD_DEFAULT, "memcpy");
}

const char *fm_version(void)
{
	return PACKAGE_VERSION;
}
