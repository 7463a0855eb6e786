/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: shared declarations.
 *
 * The benchmark reads every variant from the library's registry
 * (fm_variants()); it keeps no list of its own.  Each subcommand builds
 * "jobs" (one per series: the system routine, the dispatched fm_* call, each
 * usable variant), lets measure_cell() verify and time them interleaved, and
 * hands the resulting tables to the output layer (text, CSV, JSON, gnuplot).
 */
#ifndef FASTMEM_BENCH_H
#define FASTMEM_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fastmem/fastmem.h"
#include "out.h"

#if defined(__x86_64__) || defined(__i386__)
#define BENCH_X86 1
#else
#define BENCH_X86 0
#endif

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)
#define PAGE ((size_t)FM_PAGE_SIZE)

#define MAX_SERIES 48
#define MAX_POINTS 64
#define MAX_VARIANT_ARGS 32

/* --- subcommands and options ------------------------------------------- */

enum cmd {
	CMD_COPY,
	CMD_SET,
	CMD_PAGE,
	CMD_READBACK,
	CMD_EXTENT,
	CMD_CALIBRATE,
	CMD_VERSUS,
	CMD_RESIDENCY,
	CMD_REPLAY,
	CMD_PARALLEL,
	CMD_RUN,
	CMD_COUNT
};

enum out_format { OUT_TEXT, OUT_CSV, OUT_JSON };

/* --mode bits: one vocabulary for every subcommand (cold: swept over a
 * region far larger than the caches; warm: source cached, destination
 * swept; hot: the same buffers every call) */
#define MODE_COLD 1u
#define MODE_WARM 2u
#define MODE_HOT 4u

enum basis { BASIS_BOTH, BASIS_HOT, BASIS_COLD };

struct options {
	enum cmd cmd;
	const char *cmd_name;
	int quick;
	int reps;	 /* 0: default for the mode */
	double batch_ns; /* target duration of one timed batch */
	enum out_format format;
	const char *plot; /* --plot FILE */
	const char *variants[MAX_VARIANT_ARGS];
	int nvariants;
	size_t sizes[MAX_POINTS]; /* --sizes (bytes), or --pages (pages) */
	int nsizes;
	size_t max;    /* --max, 0 unset */
	size_t region; /* --region, 0 unset */
	int byte;      /* --byte (set), default 0 */
	size_t align_src[8], align_dst[8];
	int nalign;	/* --align, 0 unset */
	unsigned modes; /* --mode: MODE_* bits, 0 unset */
	int progress;	/* -1 auto (tty), 0 off, 1 on */
	int dry_run;
	int system; /* calibrate --system: write the system config */
	enum basis basis;
	int thp;      /* advise transparent huge pages */
	char **files; /* replay: the distributions named */
	int nfiles;
	const char *traces[32]; /* calibrate --trace FILE (repeatable) */
	int calib_parallel;	/* calibrate --parallel */
	int ntraces;
	unsigned threads[12]; /* --threads (parallel), 0 = automatic */
	int nthreads;
	int no_fixed; /* replay --no-fixed */
	/* run: --runs, --with-env VAR=VALUE, --preload LIB, the program */
	int runs;
	const char *with_env[16];
	int nwith_env;
	const char *preload;
	char **argv_run; /* PROGRAM ARGS..., NULL-terminated */
	int argc_run;
};

extern struct options opt;

/* --- series: one row/column of results ----------------------------------- */

typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);
typedef void (*cpage_fn)(void *, const void *);
typedef void (*clear_fn)(void *, size_t);

#define S_REF 0x1u	 /* the reference (system libc routine) */
#define S_DISPATCH 0x2u	 /* the dispatched fm_* entry point */
#define S_NT 0x4u	 /* streams past the cache (registry flag or hint) */
#define S_POLICY 0x8u	 /* a size policy (registry flag) */
#define S_SELECTED 0x10u /* the variant fm_* resolved to */

struct series {
	char name[40];
	unsigned flags;
	union {
		copy_fn copy;
		set_fn set;
		cpage_fn cpage;
		clear_fn clear;
	} fn;
};

/*
 * Rows for op from the registry: the reference first (system routine), then
 * the dispatched entry point, then each usable variant in registry order,
 * filtered by --variant.  Returns the count; notes about variants that are
 * not usable here go to the notes list.
 */
int series_for_op(enum fm_op op, struct series *out, int max, int with_ref,
		  int with_dispatch);
/* Is the variant fm_* resolved to for op a size policy (so the _hint calls
 * can choose streaming or not)? */
int selected_is_policy(enum fm_op op);
/* Streaming rows through the hint calls (FM_HINT_NONTEMPORAL), when the
 * selected memset/memcpy is a policy: page-sized or per-page forms. */
int hint_series(enum fm_op op, struct series *out);
/* Does --variant (if given) select this name? */
int variant_wanted(const char *name);
/* Check every --variant names something in one of ops; exit 2 otherwise. */
void check_variant_args(const enum fm_op *ops, int nops);

/* The selected policy forced temporal or streaming (the _hint calls). */
void *copy_temporal(void *d, const void *s, size_t n);
void *copy_streaming(void *d, const void *s, size_t n);
void *set_temporal(void *d, int c, size_t n);
void *set_streaming(void *d, int c, size_t n);

/*
 * Other memcpy libraries measured beside libfastmem (replay --peer
 * NAME=LIB): NAME_memcpy and NAME_memset looked up in LIB, either may be
 * missing.  peer_load returns 0, or -1 with err set.
 */
#define MAX_PEERS 4
struct peer {
	char name[24];
	copy_fn copy;
	set_fn set;
};
extern struct peer peers[MAX_PEERS];
extern int npeers;
int peer_load(const char *arg, char *err, size_t len);
/* replay's rows for op: libc, fm_*, each peer that has op, then the -v
 * variants (fastmem-bench-replay-rows.c); returns the count. */
int replay_series(enum fm_op op, struct series *out);

/* The system routines, through volatile pointers (never inlined). */
extern void *(*volatile sys_memcpy)(void *, const void *, size_t);
extern void *(*volatile sys_memset)(void *, int, size_t);
/* memset(p, 0, npages * 4096) of the system. */
void libc_clear(void *p, size_t npages);
/* The reference row's name in every table, whichever the C library (the
 * header names it, e.g. "glibc 2.36"). */
#define REF_NAME "libc"

/* --- jobs and measurement ------------------------------------------------ */

struct job {
	const struct series *s;
	/* run k calls; returns elapsed ns, sets tsc (ticks) where available */
	double (*run)(struct job *j, long k);
	/* 0 if a sample of the destination is right; else sets why */
	int (*verify)(struct job *j);
	char *src, *dst;     /* slot 0 (offsets applied) */
	size_t n;	     /* bytes per call (copy/set), pages (page ops) */
	size_t sstep, dstep; /* sweep stride per call, 0: fixed buffer */
	size_t slots;	     /* sweep positions before wrapping */
	size_t *pos;	     /* sweep position, shared by a cell's jobs */
	int c;		     /* memset byte */
	double bytes;	     /* bytes per call, for GB/s */
	double ops;	     /* operations (pages) per call, for ns/op */
	int flush;	     /* flush the swept lines after each batch */
	int fresh;	     /* drop the destination's pages before each
			      * batch: every call faults them in, as into
			      * memory never touched (a fresh mmap) */
	uint64_t tsc;	     /* ticks of the last batch */
	unsigned gen;	     /* verification generation */
	char why[160];
};

enum unit { UNIT_GBS, UNIT_NS };

#define CELL_EMPTY 0
#define CELL_OK 1
#define CELL_WRONG 2

struct stat5 {
	double med, q1, q3, min, max;
};

struct cell {
	struct stat5 v; /* in the table's unit */
	double ratio;	/* speed relative to the reference, >1 faster:
			 * ratio of the medians */
	double pratio;	/* median of the per-run (paired) ratios */
	double tsc;	/* timestamp-counter ticks per op, 0 none */
	int state;
	int nsamples;
};

/*
 * Verify and time a cell's jobs: reference interleaved with every other job
 * in each repetition (rotating order), medians and quartiles of the samples,
 * ratios as medians of the per-repetition ratios to the reference.
 * verified[] (may be NULL) caches verification: 0 unknown, CELL_OK,
 * CELL_WRONG.
 */
void measure_cell(struct job *jobs, int njobs, int ref, enum unit unit,
		  struct cell *out, int *verified);

/* Timed runners and verifiers for the plain operations. */
double run_copy(struct job *j, long k);
double run_set(struct job *j, long k);
double run_cpage(struct job *j, long k);
double run_clear(struct job *j, long k);
int verify_copy(struct job *j);
int verify_set(struct job *j);
int verify_cpage(struct job *j);
int verify_clear(struct job *j);

/* The same, then every byte of the destination read back. */
double run_copy_rb(struct job *j, long k);
double run_set_rb(struct job *j, long k);
/* Sum of every byte of [p, p+bytes) (bytes a multiple of 64), read with
 * independent vector loads; add it to read_back_sink. */
uint64_t read_back(const char *p, size_t bytes);
extern volatile uint64_t read_back_sink;

/* Page-at-a-time clear/copy of j->n pages with read-back pattern j->c. */
enum { RB_NONE, RB_ALL, RB_EACH };
double run_rb_clear(struct job *j, long k);
double run_rb_copy(struct job *j, long k);

double now_ns(void);
uint64_t ticks(void);
extern const int have_tsc;

int default_reps(void);
double default_batch_ns(void);

/* --- buffers ------------------------------------------------------------- */

/* Page-aligned (2 MiB aligned when large), pre-faulted, filled with byte. */
char *buf_alloc(size_t bytes, int fill);
void buf_free(char *p, size_t bytes);

/* Layout of a swept region: a guard page, then slots of `stride`. */
size_t sweep_stride(size_t n);
/* --region's default per subcommand (the help prints it from here) */
struct region_default {
	size_t quick, full;
};
extern const struct region_default region_defaults[CMD_COUNT];
/* --region, else subcommand c's default raised to 4x the caches (so that
 * "memory" means memory) but to no more than a quarter of the RAM. */
size_t region_total(enum cmd c);
/*
 * Should a sweep of `slots` calls of n bytes flush the lines it touched
 * after each timed batch (outside the timing)?  Yes where the lines a sweep
 * touches are too few to push each other out of the caches (small sizes):
 * then "memory" would really be the last-level cache.  x86 only (clflush).
 */
int sweep_flush(size_t n, size_t slots);

/* --- tables and output --------------------------------------------------- */

struct table {
	char id[96]; /* short key for CSV/JSON, e.g. "copy mem-mem 0-0" */
	char title[200];
	char subtitle[200];
	const char *xname; /* "size", "pages", "pattern" ... */
	enum unit unit;
	int by_series; /* text: a line per series (else per point) */
	int show_tsc;
	int plot; /* PLOT_SIZES or PLOT_LABELS: --plot draws it */
	int nx, ns, ref;
	size_t xval[MAX_POINTS];
	char xlabel[MAX_POINTS][32];
	struct series series[MAX_SERIES];
	struct cell *cells; /* [series * nx + point] */
	char footer[1024];  /* conclusions printed under the table */
};

/* How --plot draws a table: against the sizes (log scale), or one point per
 * labelled column (modes, patterns, distributions); 0: not at all. */
#define PLOT_SIZES 1
#define PLOT_LABELS 2

struct table *table_new(const char *id, enum unit unit, int by_series);
/* Every table made so far, in order. */
int table_count(void);
struct table *table_at(int i);
const char *unit_name(enum unit u); /* "GB/s", "ns/op" */
struct cell *table_cell(struct table *t, int series, int point);
void table_add_point(struct table *t, size_t value, const char *label);
/* Print (text, CSV) now; keep for JSON and --plot. */
void table_emit(struct table *t);
/* Geometric mean, lowest and highest of series s's ratios over t's points
 * (cells that ran; n of them) and the points of the extremes. */
struct ratio_span {
	double gmean, lo, hi;
	int n, xlo, xhi;
};
struct ratio_span ratio_span(const struct table *t, int s);

/* Source and destination regions (each starts with a guard page). */
struct region {
	char *src, *dst;
	size_t side;
};

enum sweep_kind {
	SWEEP_COPY,
	SWEEP_SET,
	SWEEP_CLEAR,
	SWEEP_READBACK,
	SWEEP_COPY_RB /* copies, each followed by reading the destination */
};

/*
 * Measure every series of t at each of the sizes (added as its points):
 * copies, sets of byte c, page clears (size / 4096 pages), or one page
 * cleared and read back, on r->src + 4096 + soff and r->dst + 4096 + doff;
 * cold: swept over r->side, else the same buffers every call.  The footer
 * and table_emit() are the caller's.
 */
void sweep_table(struct table *t, enum sweep_kind kind, const size_t *sizes,
		 int n, size_t soff, size_t doff, int cold,
		 const struct region *r, int c);

void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Extra JSON members for the top-level object ("key":value,...). */
void json_extra(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* No extra member yet (the next one needs no comma before it)? */
int json_extra_empty(void);

void print_header(void);
void json_machine(FILE *f);	       /* "machine":{...} */
void cpu_brand(char *buf, size_t len); /* "unknown" when none is found */
const char *libc_name(void);	       /* "glibc 2.36" */
void output_finish(void);
int plot_check(void); /* exit 2 with a message if gnuplot is missing */
int plot_write(void);

/* --- progress, failures --------------------------------------------------- */

void progress_begin(long total);
void progress_step(const char *what);
void progress_end(void);
/* What is running right now, for the crash handler. */
void activity(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *activity_text(void);
void install_crash_handler(void);
extern const char *volatile cur_series; /* the row running, NULL none */
extern int bench_failed;		/* a variant produced a wrong result */
extern double bench_start; /* now_ns() when the subcommand started */

/* --- subcommands ---------------------------------------------------------- */

int cmd_copy(void);
int cmd_set(void);
int cmd_page(void);
int cmd_readback(void);
int cmd_extent(void);
int cmd_calibrate(void);
/* before the header: the config path can be had, the --trace files read */
int calibrate_check(void);
/* calibrate --parallel: the thread count to write (0 none) and why; *effect
 * how far the best count's gain is from the 5% that decides, *noise the
 * cells' spread (both fractions) */
unsigned parallel_calibrate(char *why, size_t len, double *effect,
			    double *noise);
int cmd_versus(void);
int cmd_residency(void);
int cmd_replay(void);
int replay_prepare(void); /* read the files, before the header */
/* Replay machinery, shared with calibrate --trace (distribution.h's
 * struct dist; op is DIST_COPY or DIST_SET). */
struct dist;
int replayable(const struct dist *d, int op);
void replay_arenas(size_t arena[3]); /* L1, LLC, memory; src + dst */
size_t replay_max_call(const struct dist *d, int op);
void replay_cell(const struct dist *d, int op, unsigned arena, size_t side,
		 const struct series *ser, int ns, int ref, char *src,
		 char *dst, struct cell *out);
int cmd_parallel(void);
/* run: before the header, the program and the preload can be found */
int run_prepare(void);
int cmd_run(void);

/*
 * What a replay measured of one distribution, for its verdict: ns per call
 * of the system routine and of fm_* for each op (DIST_COPY, DIST_SET) in
 * each arena (L1, LLC, memory); measured 0 where the op was not replayed.
 */
struct replay_times {
	int measured[2][3];
	struct stat5 libc[2][3], fm[2][3];
};
/* The saving a verdict predicts, as fractions of the run time (when it is
 * known) over the arenas: lo..hi; known 0 when it could not be said. */
struct predicted {
	int known;
	double lo, hi;		   /* saving / run time */
	double share_lo, share_hi; /* libc's time in these calls / run time */
};
/*
 * Print the verdict on d, a FASTMEM_TRACE file (LLVM lists carry no call
 * counts and get none): its calls weighted by their recorded counts, the
 * time they take with libc and with fm_* in each arena, the saving in
 * seconds, and as a share of run_s seconds when that is known (else per
 * million calls).  An empty or tiny trace says so.  Text, CSV comments, or
 * a member of the JSON "verdicts" list (closed by replay_verdicts_end).
 */
struct predicted replay_verdict(const struct dist *d,
				const struct replay_times *t, double run_s);
void replay_verdicts_end(void);
/* The op's calls of d that a replay stands for (copies: memcpy + memmove). */
double trace_calls(const struct dist *d, int op);

#endif /* FASTMEM_BENCH_H */
