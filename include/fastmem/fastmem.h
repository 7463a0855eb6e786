/* SPDX-License-Identifier: MIT */
/*
 * libfastmem: memory copy and clear, dispatched once (GNU ifunc) to the best
 * implementation for the CPU.  See fastmem(3).
 */
#ifndef FASTMEM_FASTMEM_H
#define FASTMEM_FASTMEM_H

#include <stddef.h>

#ifdef __cplusplus
#define FM_RESTRICT
extern "C" {
#else
#define FM_RESTRICT restrict
#endif

#define FM_PAGE_SIZE 4096

#if defined(__GNUC__)
#define FM_API __attribute__((visibility("default")))
#else
#define FM_API
#endif

/* Standard memcpy/memmove/memset semantics and return values. */
FM_API void *fm_memcpy(void *FM_RESTRICT dst, const void *FM_RESTRICT src, size_t n);
FM_API void *fm_memmove(void *dst, const void *src, size_t n);
FM_API void *fm_memset(void *dst, int c, size_t n);

/*
 * Page operations.  Page-aligned pointers take the page fast path; any other
 * pointer still gets the right result (through fm_memcpy/fm_memset).
 */
FM_API void fm_copy_page(void *FM_RESTRICT dst, const void *FM_RESTRICT src);
FM_API void fm_clear_page(void *page);
FM_API void fm_clear_pages(void *page, size_t npages);

/*
 * Callers who know whether the destination is read back soon can say so.
 * FM_HINT_AUTO is the size policy; FM_HINT_TEMPORAL keeps the destination in
 * the cache; FM_HINT_NONTEMPORAL streams past the cache wherever the selected
 * variant can (sizes below a few KiB ignore it).
 */
enum fm_hint { FM_HINT_AUTO, FM_HINT_TEMPORAL, FM_HINT_NONTEMPORAL };
FM_API void *fm_memcpy_hint(void *FM_RESTRICT dst, const void *FM_RESTRICT src,
		     size_t n, enum fm_hint hint);
FM_API void *fm_memset_hint(void *dst, int c, size_t n, enum fm_hint hint);

enum fm_op {
	FM_OP_MEMCPY,
	FM_OP_MEMMOVE,
	FM_OP_MEMSET,
	FM_OP_COPY_PAGE,
	FM_OP_CLEAR_PAGE,
	FM_OP_COUNT
};

/*
 * The operation's name: "memcpy", "memmove", "memset", "copy_page",
 * "clear_page" (also its key in a config file, and FASTMEM_<NAME> forces its
 * variant); NULL for anything else.
 */
FM_API const char *fm_op_name(enum fm_op op);

/* Flags of a variant. */
#define FM_VARIANT_NT 0x1u	/* always streams past the cache */
#define FM_VARIANT_POLICY 0x2u	/* chooses among other variants by size */
#define FM_VARIANT_AUTO 0x4u	/* candidate for the automatic choice */

struct fm_variant {
	const char *name;	/* e.g. "avx512_nt" */
	enum fm_op op;
	const char *isa;	/* features it needs, comma-separated; "" if none */
	int usable;		/* nonzero if it may run here (CPU, FASTMEM_DISABLE) */
	unsigned flags;		/* FM_VARIANT_* */
	union {
		void *(*memcpy)(void *FM_RESTRICT, const void *FM_RESTRICT,
				size_t);
		void *(*memmove)(void *, const void *, size_t);
		void *(*memset)(void *, int, size_t);
		/* one page, page-aligned pointers */
		void (*copy_page)(void *FM_RESTRICT, const void *FM_RESTRICT);
		/* npages pages from a page-aligned pointer */
		void (*clear_pages)(void *, size_t);
	} fn;
};

/* Name of the variant in use for op. */
FM_API const char *fm_selected(enum fm_op op);
/* Why it was chosen: "auto", "environment (FASTMEM_MEMCPY)", "config (PATH)". */
FM_API const char *fm_selected_reason(enum fm_op op);
/* Bytes from which the automatic policy streams past the cache. */
FM_API size_t fm_nt_threshold(enum fm_op op);
/* Where that threshold came from: "detected (...)", "config", "environment". */
FM_API const char *fm_nt_threshold_source(enum fm_op op);
/* Every variant compiled in for op, usable on this CPU or not. */
FM_API size_t fm_variants(enum fm_op op, const struct fm_variant **list);
/* CPU features the dispatcher sees, e.g. "sse2,avx2,avx512,erms" (after
 * FASTMEM_DISABLE), and the ones the CPU has. */
FM_API const char *fm_cpu_features(void);
FM_API const char *fm_cpu_features_detected(void);
/* Probe results worth showing (e.g. PowerPC dcbz size), "" if none. */
FM_API const char *fm_cpu_notes(void);

struct fm_cache_info {
	size_t line;		/* data cache line, bytes */
	size_t l1d, l2, l3;	/* total size of each level, bytes; 0 unknown */
	unsigned l2_sharing;	/* logical CPUs sharing one L2, L3 */
	unsigned l3_sharing;
};
FM_API void fm_cache_info(struct fm_cache_info *info);

/*
 * Where the settings came from.  In secure-execution mode (a setuid or setgid
 * program, or one with file capabilities: AT_SECURE) every FASTMEM_*
 * variable and the per-user config file are ignored; only the system config
 * is read, and only if it is a regular file that root owns and only root may
 * write.  See fastmem(3).
 */
struct fm_config_file {
	const char *path;	/* "" if there was none to consider */
	const char *state;	/* "read", "not found", "ignored: ..." */
};
struct fm_settings_info {
	int secure;			/* nonzero in secure-execution mode */
	struct fm_config_file system;	/* $(sysconfdir)/fastmem.conf */
	struct fm_config_file user;	/* FASTMEM_CONFIG or the XDG default */
};
FM_API void fm_settings_info(struct fm_settings_info *info);

/*
 * Huge copies and clears split over several threads (the caller does a
 * share).  nthreads is the most threads to use; 0 means automatic: the CPUs
 * this thread may run on, capped (FASTMEM_THREADS), and one thread below
 * a size where splitting does not pay.  Worker threads are created on the
 * first call that needs them, never by the other fm_* calls.  Not
 * async-signal-safe.  The results are those of fm_memcpy, fm_memset and
 * fm_clear_pages.  See fastmem(3).
 */
FM_API void *fm_memcpy_parallel(void *FM_RESTRICT dst,
				const void *FM_RESTRICT src, size_t n,
				unsigned nthreads);
FM_API void *fm_memset_parallel(void *dst, int c, size_t n,
				unsigned nthreads);
FM_API void fm_clear_pages_parallel(void *page, size_t npages,
				    unsigned nthreads);

struct fm_parallel_info {
	unsigned threads;	/* automatic count for a large call from this
				 * thread: min(cpus, cap) */
	unsigned cpus;		/* CPUs this thread may run on (affinity) */
	unsigned cap;		/* cap on the automatic count */
	const char *cap_source;	/* "built-in", "environment
				 * (FASTMEM_THREADS)", "config (PATH)" */
	size_t split_min;	/* below this many bytes nthreads == 0 means
				 * one thread */
	unsigned workers;	/* worker threads in the pool now */
	unsigned long create_failed; /* thread creations that failed */
};
FM_API void fm_parallel_info(struct fm_parallel_info *info);

/*
 * How the automatic thread count (nthreads == 0) of a parallel operation
 * is decided: op is FM_OP_MEMCPY (fm_memcpy_parallel), FM_OP_MEMSET
 * (fm_memset_parallel) or FM_OP_CLEAR_PAGE (fm_clear_pages_parallel).
 * Returns 0, or -1 for another op.  See fastmem(3).  (FASTMEM_3)
 */
enum fm_auto_basis {
	FM_AUTO_UNTIMED,  /* no large automatic call yet */
	FM_AUTO_TIMING,	  /* its first large calls are being timed */
	FM_AUTO_MEASURED, /* chosen from calls timed split and alone */
	FM_AUTO_SETTING,  /* FASTMEM_THREADS or threads in a config file */
};
struct fm_parallel_auto {
	enum fm_auto_basis basis;
	unsigned threads;     /* threads a large automatic call uses now */
	unsigned samples;     /* timed calls behind a measured decision */
	double split_ratio;   /* lone time / split time, best of each (> 1:
			       * splitting won); 0 if not measured */
	unsigned long calls;  /* large automatic calls so far */
};
FM_API int fm_parallel_auto(enum fm_op op, struct fm_parallel_auto *out);

/* Nonzero if this process's memcpy is libfastmem's (libfastmem-preload.so). */
FM_API int fm_preloaded(void);

/*
 * With FASTMEM_TRACE=PATH set, write this process's memcpy/memmove/memset
 * call counts by size to PATH now (they are also written at exit).  0 if
 * written, -1 if tracing is off or the file could not be written (one
 * warning on stderr).  Async-signal-safe.  See fastmem(3).
 */
FM_API int fm_trace_flush(void);

FM_API const char *fm_version(void);

#ifdef __cplusplus
}
#endif

#endif /* FASTMEM_FASTMEM_H */
