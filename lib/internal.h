/* SPDX-License-Identifier: MIT */
/*
 * Internal interfaces of libfastmem.  Everything here is hidden.
 *
 * Code reachable from an ifunc resolver (marked RESOLVER-SAFE) may run before
 * libfastmem is relocated: it must not call through the PLT, must not read
 * pointers from data (they may not be relocated yet) and must not call
 * memcpy/memset.  Integers and char arrays in .rodata/.bss are fine.
 */
#ifndef FASTMEM_INTERNAL_H
#define FASTMEM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fastmem/fastmem.h"

#define FM_HIDDEN __attribute__((visibility("hidden")))
#define FM_LIKELY(x) __builtin_expect(!!(x), 1)
#define FM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define FM_ALWAYS_INLINE inline __attribute__((always_inline))

/*
 * CPU features the dispatcher knows, as (bit, name).  The names are what the
 * registry's ISA strings and FASTMEM_DISABLE use.
 */
#define FM_FEATURE_LIST(F)                                                     \
	F(0, mmx)                                                              \
	F(1, sse)                                                              \
	F(2, sse2)                                                             \
	F(3, avx2)                                                             \
	F(4, avx512)                                                           \
	F(5, erms)                                                             \
	F(6, fsrm)                                                             \
	F(7, clzero)                                                           \
	F(8, altivec)                                                          \
	F(9, dcbz)                                                             \
	F(10, ppc970)                                                          \
	F(11, cell)                                                            \
	F(12, sve)                                                             \
	F(13, dczva)                                                           \
	F(14, power8)

#define FM_FEATURE_COUNT 15

#define FM_FEATURE_ENUM(bit, name) FM_FEATURE_BIT_##name = bit,
enum { FM_FEATURE_LIST(FM_FEATURE_ENUM) };
#undef FM_FEATURE_ENUM
#define FM_FEAT(name) (1u << FM_FEATURE_BIT_##name)

/* Parse a comma-separated feature list; unknown names set *bad.
 * RESOLVER-SAFE. */
FM_HIDDEN uint32_t fm_parse_features(const char *s, size_t len, int *bad);
/* Write the names in mask, comma-separated, to buf.  Returns length. */
FM_HIDDEN size_t fm_format_features(uint32_t mask, char *buf, size_t size);

/*
 * The per-arch hooks: the only calls from lib/ into arch/ (lib/ includes
 * nothing from arch/ but the registry's lists, arch/<arch>/variants.h).
 * Every arch defines the first three; an arch with a table of CPU classes
 * (FM_ARCH_CLASSES: x86) also the streaming hooks below, and owns its whole
 * streaming policy (arch/x86/x86.h).  arch/ may call lib/'s services (the
 * settings, the thresholds), never the other way round.
 */
/* Features of this CPU, from the arch's detection.  RESOLVER-SAFE. */
FM_HIDDEN uint32_t fm_arch_features(void);
/* Cache topology.  RESOLVER-SAFE. */
FM_HIDDEN void fm_arch_cache_info(struct fm_cache_info *info);
/* One line about the probe results the arch wants to show ("" if none). */
FM_HIDDEN const char *fm_arch_notes(void);
/* Architectures with a table of CPU classes (arch/x86/classes.c): the
 * class's threshold for op, 0 for the size formula (RESOLVER-SAFE), and its
 * name (call time); whether op streams n bytes below its threshold
 * (fm_streams; call time). */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(FM_GENERIC_ONLY)
#define FM_ARCH_CLASSES 1
FM_HIDDEN size_t fm_arch_nt_default(enum fm_op op,
				    const struct fm_cache_info *ci);
FM_HIDDEN const char *fm_arch_class_name(void);
FM_HIDDEN int fm_arch_streams_below(enum fm_op op, const void *d, const void *s,
				    size_t n);
/* Whether the class's data passes over the automatic candidate name for op
 * (for another of the same ISA further down the registry).  RESOLVER-SAFE. */
FM_HIDDEN int fm_arch_passes_over(enum fm_op op, const char *name);
/* What the class decides once from the caches and the settings, before the
 * first call (fm_thresholds_init; x86: where copies stop taking the vector
 * loop without a look at the crossovers).  RESOLVER-SAFE. */
struct fm_settings;
FM_HIDDEN void fm_arch_thresholds_init(const struct fm_cache_info *ci,
				       const struct fm_settings *st);
#else
#define FM_ARCH_CLASSES 0
#endif
#if defined(__aarch64__)
/* The hwcap word glibc passes every aarch64 ifunc resolver; arch/aarch64
 * falls back on it when /proc/self/auxv cannot be read.  RESOLVER-SAFE. */
FM_HIDDEN void fm_arch_resolver_hwcap(uint64_t hwcap);
#endif

/* Settings from the environment and the config file (read once, lock-free,
 * without allocation).  RESOLVER-SAFE. */
enum fm_source {
	FM_SRC_AUTO,
	FM_SRC_DETECTED,
	FM_SRC_DEFAULT,
	FM_SRC_SYSTEM, /* the system config file */
	FM_SRC_CONFIG, /* the per-user config file */
	FM_SRC_ENV
};

/* What became of a config file (struct fm_settings_info's state). */
enum fm_file_state {
	FM_FILE_NONE, /* nothing to consider */
	FM_FILE_READ,
	FM_FILE_TRUNCATED,   /* read up to FM_CONFIG_MAX */
	FM_FILE_MISSING,     /* ENOENT */
	FM_FILE_UNREADABLE,  /* any other open error */
	FM_FILE_UNEXAMINED,  /* open, but statx failed */
	FM_FILE_NOT_REGULAR, /* a device, FIFO, directory, ... */
	FM_FILE_BAD_OWNER,   /* system config not owned by root */
	FM_FILE_BAD_MODE,    /* system config writable by group or others */
	FM_FILE_BAD_DIR,     /* ... or in a directory others may change */
	FM_FILE_SECURE,	     /* per-user config in secure-execution mode */
};

/* Past this many bytes the rest of a config file is ignored. */
#define FM_CONFIG_MAX (64 * 1024)
/* Warnings printed about one file before the rest are suppressed. */
#define FM_CONFIG_WARN_MAX 5

#ifndef FM_SYSTEM_CONFIG
#define FM_SYSTEM_CONFIG "/etc/fastmem.conf"
#endif

#define FM_NAME_MAX 24
#define FM_PATH_MAX 256

struct fm_settings {
	/* forced variant name per op ("" none), where it came from, and the
	 * line of the file that set it (for the registry's warning) */
	char forced[FM_OP_COUNT][FM_NAME_MAX];
	uint8_t forced_src[FM_OP_COUNT];
	unsigned forced_line[FM_OP_COUNT];
	uint32_t disable;	/* FASTMEM_DISABLE */
	size_t nt[FM_OP_COUNT]; /* threshold override, if nt_src set */
	uint8_t nt_src[FM_OP_COUNT];
	/* the per-user config file considered, "" if none; config_src and
	 * system_src say the environment named (or emptied) them */
	char config_path[FM_PATH_MAX];
	char system_path[FM_PATH_MAX];	  /* the system config considered */
	uint8_t config_src, system_src;	  /* FM_SRC_ENV, or 0 */
	uint8_t user_state, system_state; /* enum fm_file_state */
	uint8_t secure;			  /* AT_SECURE: caller ignored */
	/* bit (1 << enum fm_source) per file whose text warnings may quote:
	 * world-readable, and not in secure-execution mode */
	uint8_t quotable;
	uint8_t probe, probe_src; /* FASTMEM_PROBE / probe: FM_PROBE_* */
	uint8_t tsc_disabled;	  /* prctl(PR_GET_TSC) said SIGSEGV */
	/* FASTMEM_STREAM_COLD / stream_cold[.op]: from this size data the
	 * probe finds cold streams (the CPU class's crossover otherwise) */
	size_t cold[FM_OP_COUNT];
	uint8_t cold_src[FM_OP_COUNT];
	/* rep_from[.memcpy|.memset] (x86, config files only): temporal copies
	 * (memcpy and memmove) and sets use rep movsb / rep stosb from this
	 * size, where the CPU class has its own crossover; only the memcpy
	 * and memset slots are used */
	size_t rep[FM_OP_COUNT];
	uint8_t rep_src[FM_OP_COUNT];
	char trace[FM_PATH_MAX]; /* FASTMEM_TRACE, "" off */
	uint8_t trace_src;
	unsigned threads; /* FASTMEM_THREADS / threads, if threads_src */
	uint8_t threads_src;
};

/* The residency probe: on unless the environment or a config says off. */
enum { FM_PROBE_AUTO, FM_PROBE_ON, FM_PROBE_OFF };

/* Largest thread count FASTMEM_THREADS and the parallel calls accept. */
#define FM_THREADS_MAX 256

/*
 * The table of settings (lib/settings-table.c): every environment variable
 * and config key once, with everything the parsers, the warnings, the
 * manual's test and the tools need to know about it.  Resolvers read it
 * before libfastmem is relocated, so it holds no pointer: names and texts
 * are inline arrays, fields of struct fm_settings are offsets.
 */
enum fm_setting_type {
	FM_SETTING_VARIANT,  /* a variant name of its one operation */
	FM_SETTING_FEATURES, /* comma-separated feature names */
	FM_SETTING_SIZE,     /* bytes with K, M or G (KiB, MB...), or never */
	FM_SETTING_ON_OFF,   /* on or off */
	FM_SETTING_COUNT,    /* a whole number from min to max */
	FM_SETTING_PATH,     /* a file name; empty: none */
};

/* What secure-execution mode (AT_SECURE) does with a setting. */
enum fm_setting_secure {
	FM_SECURE_IGNORED,     /* environment only: never read then */
	FM_SECURE_SYSTEM_FILE, /* then only the system config file sets it */
};

struct fm_setting_def {
	char env[24];	/* "FASTMEM_NT_THRESHOLD"; "" if no variable */
	char key[16];	/* "nt_threshold"; "" if no config key */
	char what[16];	/* a bad value "is not" this: "a size" */
	char keeps[72]; /* what stands instead of a bad value */
	char help[100]; /* one line for tools and manuals */
	uint8_t type;	/* enum fm_setting_type */
	uint8_t secure; /* enum fm_setting_secure */
	/* the operations it sets, a bit per enum fm_op: 0 one value for
	 * all; with more than one bit "key.<op>" sets one of them */
	uint8_t ops;
	uint16_t value;	 /* offsetof(struct fm_settings, its value) */
	uint16_t source; /* offsetof its enum fm_source byte (per op), or: */
#define FM_SETTING_NO_SOURCE 0xffff
	uint16_t min, max; /* FM_SETTING_COUNT */
};

/* The settings in the table's order (RESOLVER-SAFE, both). */
FM_HIDDEN size_t fm_setting_count(void);
FM_HIDDEN const struct fm_setting_def *fm_setting_at(size_t i);
/* Index of the setting with this variable or key name (exact), or -1. */
FM_HIDDEN int fm_setting_by_env(const char *name, size_t len);
FM_HIDDEN int fm_setting_by_key(const char *key, size_t len);
/* The setting whose variable (env != 0) or key name is nearest to name
 * (edit distance, letters of either case alike), and that distance. */
FM_HIDDEN int fm_setting_nearest(const char *name, size_t len, int env,
				 unsigned *distance);

/* The setting an unknown FASTMEM_* name most likely meant, or -1 if it is
 * near none: the same name in another case, up to two edits (three for
 * names of 17 bytes or more), or a setting's name followed by "_..."
 * (*distance then 1; 0 means only the case differs).  The library's
 * warning and fastmem-info's listing both ask this.  RESOLVER-SAFE. */
FM_HIDDEN int fm_setting_suggest(const char *name, size_t len,
				 unsigned *distance);

/* An environment entry ("NAME=value" or "NAME"), for tools: not ours, a
 * setting (*setting its index), or a FASTMEM_* name the library does not
 * know (*setting the one it most likely meant, fm_setting_suggest(), or -1,
 * *distance how far).  RESOLVER-SAFE. */
enum fm_env_kind { FM_ENV_OTHER, FM_ENV_SETTING, FM_ENV_UNKNOWN };
FM_HIDDEN enum fm_env_kind fm_env_classify(const char *entry, size_t len,
					   int *setting, unsigned *distance);

/* Text for warnings: the valid values of setting d ("" if it says so
 * itself), and every config key ("memcpy, ..., nt_threshold.<op>, ...").
 * Both return the length written to buf (NUL-terminated, cut to fit). */
FM_HIDDEN size_t fm_setting_valid(const struct fm_setting_def *d, char *buf,
				  size_t size);
FM_HIDDEN size_t fm_setting_keys(char *buf, size_t size);

/* The settings, read once.  If another thread or an interrupted caller is
 * reading them right now, they are read privately into *scratch instead. */
FM_HIDDEN const struct fm_settings *
fm_settings_get(struct fm_settings *scratch);

/* The file a setting from src came from (for "config (PATH)"), or "". */
FM_HIDDEN const char *fm_source_path(const struct fm_settings *st,
				     enum fm_source src);

/* Warn that op's forced variant (st->forced[op]) cannot be used: one line,
 * "FASTMEM_MEMCPY=\"x\"" or "config PATH:LINE: memcpy = x" followed by the
 * parts of tail.  A file's warning counts towards its limit and never shows
 * what the caller may not read.  RESOLVER-SAFE. */
FM_HIDDEN void fm_forced_warn(const struct fm_settings *st, enum fm_op op,
			      const char *const *tail, size_t ntail);

/* Parse an environment block (NUL-separated) and a per-user config file held
 * in memory, as the library would read them; for the fuzzer.  Warnings go to
 * stderr as usual (their count per file starts again here). */
FM_HIDDEN void fm_settings_parse(struct fm_settings *st, const char *env,
				 size_t envlen, const char *config,
				 size_t configlen, int secure);

/* Parse "4096", "64K", "2MiB", "1g", "never" (letters of either case),
 * up to SIZE_MAX.  0 on success. */
FM_HIDDEN int fm_parse_size(const char *s, size_t len, size_t *out);

/* Selection: index into the op's registry, and why.  RESOLVER-SAFE. */
struct fm_choice {
	int index;
	enum fm_source src;
};
FM_HIDDEN struct fm_choice fm_choose(enum fm_op op);
FM_HIDDEN uint32_t fm_usable_features(void);
/* The same with the settings at hand (no second settings-sized frame on a
 * stack that may be a signal handler's). */
FM_HIDDEN uint32_t fm_usable_features_of(const struct fm_settings *st);
FM_HIDDEN int fm_variant_usable(enum fm_op op, int index, uint32_t have);
/* Function of variant index of op (policies wrapped with op's threshold). */
FM_HIDDEN void *fm_variant_fn(enum fm_op op, int index);
/* "memcpy", ... (config keys) and "FASTMEM_MEMCPY", ...  RESOLVER-SAFE. */
FM_HIDDEN const char *fm_op_key(enum fm_op op);
FM_HIDDEN const char *fm_op_env_name(enum fm_op op);

/* Would the automatic policy of op stream these n bytes at d (from s)?
 * The threshold, and below it where the CPU has one, the residency probe
 * (it reads a few bytes of both).  Call time only. */
FM_HIDDEN int fm_streams(enum fm_op op, const void *d, const void *s, size_t n);

/*
 * The size formula: from these multiples of the per-thread L2, copies
 * (memcpy, memmove, copy_page) and sets (memset, clear_page) stream on CPUs
 * without measured crossovers, and wherever the probe is off or unusable.
 * Stated here alone: x86's class for unknown CPUs is made of it
 * (arch/x86/classes.c); docs/measurements/zen5-guest.md#the-size-formula.
 * Where the CPU reports no L2, every crossover assumes FM_ASSUMED_L2.
 */
#define FM_NT_COPY_L2 32
#define FM_NT_SET_L2 4
#define FM_ASSUMED_L2 ((size_t)1 << 20)

/* Threshold of op (lazy, lock-free). */
FM_HIDDEN size_t fm_threshold_slow(enum fm_op op);
extern FM_HIDDEN size_t fm_nt_cache[FM_OP_COUNT];

static inline size_t fm_threshold(enum fm_op op)
{
	size_t t = __atomic_load_n(&fm_nt_cache[op], __ATOMIC_RELAXED);
	return FM_LIKELY(t) ? t : fm_threshold_slow(op);
}

/* Fill fm_nt_cache for every op.  RESOLVER-SAFE; the resolvers call it, so
 * code reached only through them may use fm_threshold_ready(). */
FM_HIDDEN void fm_thresholds_init(void);

static inline size_t fm_threshold_ready(enum fm_op op)
{
	return __atomic_load_n(&fm_nt_cache[op], __ATOMIC_RELAXED);
}

/* Below this many bytes a non-temporal hint is ignored: the fence and the
 * partial lines cost more than streaming saves. */
#define FM_NT_MIN 4096

/* Raw output for warnings (write(2) by syscall).  RESOLVER-SAFE. */
FM_HIDDEN void fm_warn(const char *const *parts, size_t nparts);

/* FASTMEM_TRACE (lib/trace.c counts, lib/trace-file.c writes): sizes up
 * to this are counted one by one, larger ones in power-of-two ranges. */
#define FM_TRACE_EXACT_MAX 4096
/* A counter's slot: the size buckets 0..FM_TRACE_BUCKETS-1 (0..4096, then
 * [4097, 8191], [8192, 16383], ...), then the 64-byte-aligned calls and
 * the overlapping copies. */
#define FM_TRACE_BUCKETS                                                       \
	(FM_TRACE_EXACT_MAX + 1 + (int)(8 * sizeof(size_t)) - 12)
#define FM_TRACE_ALIGNED64 FM_TRACE_BUCKETS
#define FM_TRACE_OVERLAPPING (FM_TRACE_BUCKETS + 1)
#define FM_TRACE_SLOTS (FM_TRACE_BUCKETS + 2)
/* What a resolver returns for op having chosen registry entry index: the
 * variant itself, or with tracing on its traced twin (lib/trace.c), which
 * counts and jumps to it.  RESOLVER-SAFE. */
FM_HIDDEN void *fm_trace_resolve(enum fm_op op, int index);
/* The traced twin of entry index of op (memcpy, memmove, memset), NULL for
 * other ops.  RESOLVER-SAFE. */
FM_HIDDEN void *fm_trace_twin(enum fm_op op, int index);

/* Count one call of op (memcpy, memmove or memset) if tracing is on: for
 * the calls that do not go through the resolved fm_memcpy/fm_memmove/
 * fm_memset (hints, parallel calls).  Call time only. */
FM_HIDDEN void fm_trace_count(enum fm_op op, const void *d, const void *s,
			      size_t n);
/* The calls counted so far in slot of op (memcpy, memmove or memset), all
 * threads added up.  Async-signal-safe. */
FM_HIDDEN uint64_t fm_trace_counter(enum fm_op op, unsigned slot);
/* Write the counts to the file FASTMEM_TRACE names (trace, %p expanded
 * with pid): 0, or -errno after the one warning.  Async-signal-safe. */
FM_HIDDEN int fm_trace_write(const char *trace, long pid);
/* Create the file if it is not there, or warn now that it cannot be. */
FM_HIDDEN void fm_trace_probe_file(const char *trace, long pid);

/* A path without %p shared by several processes (lib/trace-shared.c). */
struct fm_trace_time {
	long sec, nsec; /* CLOCK_REALTIME */
};
/* What a section of the file says of its process's run: the process group,
 * when counting began and when the section was written. */
struct fm_trace_run {
	long group;
	struct fm_trace_time from, to;
};
#define FM_TRACE_KEPT_PIDS 8
/* The other processes' sections kept in the file (their first pids). */
struct fm_trace_kept {
	int n;
	long pid[FM_TRACE_KEPT_PIDS];
};
/* Counting begins now (at load, and in a forked child). */
FM_HIDDEN void fm_trace_began(void);
FM_HIDDEN void fm_trace_run(struct fm_trace_run *run);
/* Does the path have %p (one file per process)? */
FM_HIDDEN int fm_trace_path_per_process(const char *trace);
/* Lock the shared file fd, keep the sections of the other processes of this
 * run (moved to its start), drop the rest, and leave fd at the end for this
 * process's section.  0 or -errno. */
FM_HIDDEN long fm_trace_shared_prepare(int fd, long pid,
				       const struct fm_trace_run *run,
				       struct fm_trace_kept *kept);

/* Variant function types. */
typedef void *copy_fn(void *, const void *, size_t);
typedef void *set_fn(void *, int, size_t);
typedef void copy_page_fn(void *, const void *);
typedef void clear_pages_fn(void *, size_t);
/* Policies also come in a form with an explicit threshold, for the hints. */
typedef void *copy_policy_fn(void *, const void *, size_t, size_t);
typedef void *set_policy_fn(void *, int, size_t, size_t);
typedef void clear_pages_policy_fn(void *, size_t, size_t);
/* The threshold-taking form of copy/set variant i, or NULL if it is not a
 * policy.  Call time only. */
FM_HIDDEN copy_policy_fn *fm_copy_policy(int index);
FM_HIDDEN set_policy_fn *fm_set_policy(int index);
FM_HIDDEN clear_pages_policy_fn *fm_clear_pages_policy(int index);

/* fm_clear_pages with the streaming decision of a hint (as the _hint calls
 * make it), for the chunks of fm_clear_pages_parallel.  Call time only. */
FM_HIDDEN void fm_clear_pages_hint(void *page, size_t npages,
				   enum fm_hint hint);

/* fm_memcpy_hint and fm_memset_hint without counting the call (tracing),
 * for the chunks of the parallel calls.  Call time only. */
FM_HIDDEN void *fm_memcpy_hint_uncounted(void *restrict dst,
					 const void *restrict src, size_t n,
					 enum fm_hint hint);
FM_HIDDEN void *fm_memset_hint_uncounted(void *dst, int c, size_t n,
					 enum fm_hint hint);

/* The automatic thread count, timed (lib/autothreads.c), per kind of
 * parallel call (0 copy, 1 set, 2 clear).  fm_auto_begin: split this large
 * automatic call?  It may make the call a timed trial; fm_auto_end then
 * records it (did_split: whether the pool took it).  Call time only. */
#define FM_PAR_KINDS 3
struct fm_auto_trial {
	int timed, split;
	uint64_t t0;
};
FM_HIDDEN int fm_auto_begin(int kind, struct fm_auto_trial *tr);
FM_HIDDEN void fm_auto_end(int kind, const struct fm_auto_trial *tr, size_t n,
			   int did_split);
/* The decision so far; threads: the count a split call would use. */
FM_HIDDEN int fm_auto_state(int kind, struct fm_parallel_auto *out,
			    unsigned threads);

/* Does [d, d+n) overlap [s, s+n)? */
static inline int fm_overlaps(const void *d, const void *s, size_t n)
{
	uintptr_t a = (uintptr_t)d, b = (uintptr_t)s;
	return (a > b ? a - b : b - a) < n;
}

#endif /* FASTMEM_INTERNAL_H */
