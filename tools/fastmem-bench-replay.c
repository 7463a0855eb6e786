/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench replay FILE...: a program's own sizes as a benchmark.
 *
 * Each FILE is a size distribution (a FASTMEM_TRACE file, or LLVM libc's
 * one line of probabilities; distribution.c reads both).  From it a
 * fixed-seed sequence of SEQ calls is drawn (size, source and destination
 * offsets), and the sequence is run, whole passes of it so that every run
 * does the same work, through the system memcpy/memset, the
 * dispatched fm_memcpy/fm_memset and any -v variant, interleaved, with the
 * buffers in three arenas: the L1 data cache, half the last-level cache,
 * and memory.  Varying sizes are what real programs do, and what a loop of
 * one size never shows: the cost of the size branches.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "distribution.h"

#define SEQ 65536 /* calls in a sequence (a power of two) */
#define SEED 1
#define MAX_CALL (64 * MIB) /* larger recorded sizes are replayed as this */
#define MAX_DISTS 32
#define MIN_CALLS 100 /* an op recorded fewer times is not replayed */

#ifndef FM_DISTDIR
#define FM_DISTDIR ""
#endif
#ifndef FM_SRC_DISTDIR
#define FM_SRC_DISTDIR ""
#endif

/*
 * The corpora replayed when no FILE is given (docs/distributions/), each in
 * tables of its own: a change to a small-size path is judged on all of
 * them, since one fitted to a corpus alone can lose on another.
 */
static const char *const traces[] = {
	"gcc-O2.trace",	   "python3-test_json.trace",
	"git-log-p.trace", "sort.trace",
	"xz.trace",
};

static const char *const fleet[] = {
	"fleet/MemcpyGoogleA.csv", "fleet/MemcpyGoogleB.csv",
	"fleet/MemcpyGoogleD.csv", "fleet/MemcpyGoogleL.csv",
	"fleet/MemcpyGoogleM.csv", "fleet/MemcpyGoogleQ.csv",
	"fleet/MemcpyGoogleS.csv", "fleet/MemcpyGoogleU.csv",
	"fleet/MemcpyGoogleW.csv", "fleet/MemsetGoogleA.csv",
	"fleet/MemsetGoogleB.csv", "fleet/MemsetGoogleD.csv",
	"fleet/MemsetGoogleL.csv", "fleet/MemsetGoogleM.csv",
	"fleet/MemsetGoogleQ.csv", "fleet/MemsetGoogleS.csv",
	"fleet/MemsetGoogleU.csv", "fleet/MemsetGoogleW.csv",
};

static const struct corpus {
	const char *name; /* in table titles */
	const char *const *files;
	int nfiles;
} corpora[] = {
	{ "recorded programs", traces, sizeof(traces) / sizeof(*traces) },
	{ "fleet distributions", fleet, sizeof(fleet) / sizeof(*fleet) },
};

#define NCORPORA ((int)(sizeof(corpora) / sizeof(*corpora)))

/* Hot fixed sizes: the same buffers every call */
static const size_t fixed_sizes[] = {
	1,   2,	  3,	4,    7,    8,	  12,	 16,	24,
	31,  32,  48,	63,   64,   96,	  128,	 200,	256,
	384, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
};

struct call {
	uint32_t n, soff, doff;
};

static const struct call *cur_seq;

static double run_replay_copy(struct job *j, long k)
{
	copy_fn f = j->s->fn.copy;
	const struct call *seq = cur_seq;
	char *dst = j->dst, *src = j->src;
	uint64_t t0 = ticks();
	double a = now_ns(), b;

	for (long i = 0; i < k; i++)
		for (size_t p = 0; p < SEQ; p++) {
			const struct call *c = &seq[p];
			f(dst + c->doff, src + c->soff, c->n);
		}
	b = now_ns();
	j->tsc = ticks() - t0;
	return b - a;
}

static double run_replay_set(struct job *j, long k)
{
	set_fn f = j->s->fn.set;
	const struct call *seq = cur_seq;
	char *dst = j->dst;
	int c0 = j->c;
	uint64_t t0 = ticks();
	double a = now_ns(), b;

	for (long i = 0; i < k; i++)
		for (size_t p = 0; p < SEQ; p++) {
			const struct call *c = &seq[p];
			f(dst + c->doff, c0, c->n);
		}
	b = now_ns();
	j->tsc = ticks() - t0;
	return b - a;
}

/* The first calls of the sequence (up to 1 MiB each), each checked
 * against the bytes it must write and 64 bytes either side it must not. */
#define VERIFY_CALLS 64

static int verify_replay(struct job *j, int copy)
{
	for (int i = 0; i < VERIFY_CALLS; i++) {
		const struct call *c = &cur_seq[i];
		unsigned char *d = (unsigned char *)j->dst + c->doff;
		unsigned char *s = (unsigned char *)j->src + c->soff;
		size_t n = c->n, lo = c->doff < 64 ? c->doff : 64;
		unsigned char want = (unsigned char)(0x40 + i);

		if (n > MIB)
			continue;
		for (size_t x = 0; x < n; x++)
			s[x] = (unsigned char)(x * 7 + (size_t)i);
		memset(d - lo, 0xEE, n + lo + 64);
		if (copy)
			j->s->fn.copy(d, s, n);
		else
			j->s->fn.set(d, want, n);
		for (size_t x = 0; x < n; x++)
			if (d[x] != (copy ? s[x] : want)) {
				snprintf(j->why, sizeof(j->why),
					 "call %d (%zu bytes): byte %zu wrong",
					 i, n, x);
				return 1;
			}
		for (size_t x = 1; x <= lo; x++)
			if (d[-(long)x] != 0xEE)
				goto stray;
		for (size_t x = 0; x < 64; x++)
			if (d[n + x] != 0xEE)
				goto stray;
		continue;
	stray:
		snprintf(j->why, sizeof(j->why),
			 "call %d (%zu bytes) wrote outside its buffer", i, n);
		return 1;
	}
	return 0;
}

static int verify_replay_copy(struct job *j)
{
	return verify_replay(j, 1);
}

static int verify_replay_set(struct job *j)
{
	return verify_replay(j, 0);
}

/*
 * The sequence of d's op with the buffers in an arena of `side` bytes per
 * buffer: offsets uniform over the arena (64-byte aligned for the share
 * of calls the trace recorded aligned), sizes that do not fit it at 0.
 */
static void make_seq(struct call *seq, const struct dist *d, int op,
		     size_t side, unsigned arena)
{
	uint64_t st = SEED;

	for (const char *p = d->name; *p; p++)
		st = st * 131 + (unsigned char)*p;
	st ^= (uint64_t)op << 40 ^ (uint64_t)arena << 48;
	for (int i = 0; i < SEQ; i++) {
		size_t n = dist_draw(d, op, &st), room;
		int al = (double)(dist_rand(&st) >> 11) * 0x1.0p-53 <
			 d->aligned[op];

		if (n > MAX_CALL)
			n = MAX_CALL;
		room = n < side ? side - n : 0;
		seq[i].n = (uint32_t)n;
		seq[i].soff =
			(uint32_t)(room ? dist_rand(&st) % (room + 1) : 0);
		seq[i].doff =
			(uint32_t)(room ? dist_rand(&st) % (room + 1) : 0);
		if (al) {
			seq[i].soff &= ~63u;
			seq[i].doff &= ~63u;
		}
	}
}

/* Enough calls of op to replay (an LLVM list holds probabilities). */
int replayable(const struct dist *x, int op)
{
	return x->format == DIST_LLVM ? x->total[op] > 0
				      : x->total[op] >= MIN_CALLS;
}

/* geometric mean and range of each non-reference series's ratios */
static void summarize(struct table *t, const char *what)
{
	size_t len = 0;

	for (int s = 0; s < t->ns; s++) {
		struct ratio_span r;

		if (s == t->ref)
			continue;
		r = ratio_span(t, s);
		if (r.n > 1 && len < sizeof(t->footer))
			len += (size_t)snprintf(
				t->footer + len, sizeof(t->footer) - len,
				"   %s/%s: geometric mean %.2fx (%.2f-%.2fx "
				"over %d %s)\n",
				t->series[s].name, t->series[t->ref].name,
				r.gmean, r.lo, r.hi, r.n, what);
	}
}

static int corpus_of[MAX_DISTS]; /* -1: a file named on the command line */
static struct replay_times times[MAX_DISTS]; /* for the verdicts */

/* Every file of every corpus from dir; 0, or -1 with d emptied. */
static int load_corpora(const char *dir, struct dist *d, int *nd)
{
	char err[512], path[1024];

	for (int c = 0; c < NCORPORA; c++)
		for (int i = 0; i < corpora[c].nfiles; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 corpora[c].files[i]);
			if (dist_load(path, &d[*nd], err, sizeof(err))) {
				while (*nd)
					dist_free(&d[--*nd]);
				return -1;
			}
			dist_print_warning(&d[*nd], "fastmem-bench replay",
					   path);
			corpus_of[(*nd)++] = c;
		}
	return 0;
}

static int load_all(struct dist *d, int *nd)
{
	char err[512];
	const char *dirs[] = { FM_DISTDIR, FM_SRC_DISTDIR };

	*nd = 0;
	if (opt.nfiles) {
		if (opt.nfiles > MAX_DISTS) {
			fprintf(stderr,
				"fastmem-bench replay: at most %d files\n",
				MAX_DISTS);
			return 2;
		}
		for (int i = 0; i < opt.nfiles; i++) {
			if (dist_load(opt.files[i], &d[*nd], err,
				      sizeof(err))) {
				fprintf(stderr, "fastmem-bench replay: %s\n",
					err);
				return 2;
			}
			dist_print_warning(&d[*nd], "fastmem-bench replay",
					   opt.files[i]);
			corpus_of[(*nd)++] = -1;
		}
		return 0;
	}
	/* the shipped distributions: installed, else in the source tree */
	for (size_t k = 0; k < sizeof(dirs) / sizeof(*dirs); k++)
		if (dirs[k][0] && !load_corpora(dirs[k], d, nd))
			return 0;
	fprintf(stderr,
		"fastmem-bench replay: the shipped distributions are not in "
		"%s; name trace files to replay\n",
		FM_DISTDIR);
	return 2;
}

static struct dist d[MAX_DISTS];
static int nd;

/* Before the header: a file that cannot be replayed is a usage error. */
int replay_prepare(void)
{
	static const enum fm_op ops[] = { FM_OP_MEMCPY, FM_OP_MEMSET };

	check_variant_args(ops, 2);
	return load_all(d, &nd);
}

/* The arenas, source and destination together: L1, LLC, memory. */
void replay_arenas(size_t arena[3])
{
	struct fm_cache_info ci;

	fm_cache_info(&ci);
	arena[0] = ci.l1d ? ci.l1d : 32 * KIB;
	arena[1] = ci.l3 ? ci.l3 / 2 : ci.l2 ? ci.l2 : 4 * MIB;
	/* an L3 whose sharing CPUID does not say can be the whole socket's
	 * (the Zen 5 KVM guest reports 508 MiB): half of one CCD's 32 MiB */
	if (ci.l3 && !ci.l3_sharing && arena[1] > 16 * MIB)
		arena[1] = 16 * MIB;
	if (arena[1] < 4 * arena[0])
		arena[1] = 4 * arena[0];
	arena[2] = sizeof(void *) < 8 ? 256 * MIB : region_total(CMD_REPLAY);
	/* the buffers are sized for the memory arena: the others fit in it
	 * (--region may make it small) */
	if (arena[1] > arena[2] / 4)
		arena[1] = arena[2] / 4;
	if (arena[0] > arena[1])
		arena[0] = arena[1];
}

/* The largest call of op that d replays. */
size_t replay_max_call(const struct dist *d, int op)
{
	return d->max[op] < MAX_CALL ? d->max[op] : MAX_CALL;
}

/* One cell: cur_seq run through the ns series, interleaved */
static void seq_cell(int op, const struct series *ser, int ns, int ref,
		     char *src, char *dst, struct cell *out)
{
	struct job jobs[MAX_SERIES];
	size_t pos[MAX_SERIES];

	for (int s = 0; s < ns; s++) {
		struct job *j = &jobs[s];

		memset(j, 0, sizeof(*j));
		j->s = &ser[s];
		j->src = src;
		j->dst = dst;
		pos[s] = 0;
		j->pos = &pos[s];
		j->slots = SEQ;
		j->ops = SEQ; /* a run: k passes */
		j->c = opt.byte;
		if (op == DIST_COPY) {
			j->run = run_replay_copy;
			j->verify = verify_replay_copy;
		} else {
			j->run = run_replay_set;
			j->verify = verify_replay_set;
		}
	}
	measure_cell(jobs, ns, ref, UNIT_NS, out, NULL);
}

static struct call *seq_buffer(void)
{
	static struct call *seq;

	if (!seq)
		seq = malloc(SEQ * sizeof(*seq));
	if (!seq) {
		fprintf(stderr, "fastmem-bench: out of memory\n");
		exit(1);
	}
	return seq;
}

/*
 * One cell: d's op replayed through the ns series, interleaved
 * (measure_cell), with the buffers (src and dst, each at least
 * side + the largest call + a page) in arena a of `side` bytes per buffer.
 * ratios in out[] are to series ref.
 */
void replay_cell(const struct dist *d, int op, unsigned a, size_t side,
		 const struct series *ser, int ns, int ref, char *src,
		 char *dst, struct cell *out)
{
	struct call *seq = seq_buffer();

	make_seq(seq, d, op, side, a);
	cur_seq = seq;
	seq_cell(op, ser, ns, ref, src, dst, out);
}

/* Every call n bytes, at src + soff and dst + doff: hot buffers */
static void fixed_cell(int op, size_t n, uint32_t soff, uint32_t doff,
		       const struct series *ser, int ns, int ref, char *src,
		       char *dst, struct cell *out)
{
	struct call *seq = seq_buffer();

	for (int i = 0; i < SEQ; i++)
		seq[i] = (struct call){ (uint32_t)n, soff, doff };
	cur_seq = seq;
	seq_cell(op, ser, ns, ref, src, dst, out);
}

static const char *op_label(int op)
{
	return op == DIST_COPY ? "memcpy" : "memset";
}

/* The hot fixed sizes, aligned (mis = 0) or at src + 7, dst + 13. */
static void fixed_table(int op, int mis, char *src, char *dst)
{
	struct table *t = table_new("", UNIT_NS, 0);
	enum fm_op fop = op == DIST_COPY ? FM_OP_MEMCPY : FM_OP_MEMSET;
	uint32_t soff = mis ? 7 : 0, doff = mis ? 13 : 0;

	snprintf(t->id, sizeof(t->id), "replay %s fixed %s", op_label(op),
		 mis ? "misaligned" : "aligned");
	snprintf(t->title, sizeof(t->title),
		 "%s, one size every call, the same buffers (hot)%s: ns "
		 "per call",
		 op_label(op),
		 mis ? (op == DIST_COPY ? ", source + 7, destination + 13"
					: ", destination + 13")
		     : ", 64-byte aligned");
	snprintf(t->subtitle, sizeof(t->subtitle),
		 "ratio: speed relative to %s", REF_NAME);
	t->xname = "size";
	t->plot = PLOT_SIZES;
	t->ns = replay_series(fop, t->series);
	for (size_t i = 0; i < sizeof(fixed_sizes) / sizeof(*fixed_sizes);
	     i++) {
		struct cell out[MAX_SERIES];
		char lab[32];

		fmt_size_short(fixed_sizes[i], lab, sizeof(lab));
		table_add_point(t, fixed_sizes[i], lab);
		activity("replay %s fixed %zu", op_label(op), fixed_sizes[i]);
		fixed_cell(op, fixed_sizes[i], soff, doff, t->series, t->ns,
			   t->ref, src, dst, out);
		for (int s = 0; s < t->ns; s++)
			*table_cell(t, s, t->nx - 1) = out[s];
		progress_step(activity_text());
	}
	summarize(t, "sizes");
	table_emit(t);
}

static int corpus_wants(int c, int i, int op)
{
	return corpus_of[i] == c && replayable(&d[i], op);
}

/* The distributions of corpus c (-1: the files named) replaying op in
 * arena a, one table */
static void corpus_table(int c, int op, unsigned a, size_t arena, char *src,
			 char *dst)
{
	static const char *const arena_name[3] = { "L1", "LLC", "memory" };
	enum fm_op fop = op == DIST_COPY ? FM_OP_MEMCPY : FM_OP_MEMSET;
	struct table *t = table_new("", UNIT_NS, 0);
	char as[24];

	fmt_size(arena, as, sizeof(as));
	snprintf(t->id, sizeof(t->id), "replay %s %s%s%s", op_label(op),
		 arena_name[a], c < 0 ? "" : " ",
		 c < 0 ? ""
		 : c   ? "fleet"
		       : "traces");
	snprintf(t->title, sizeof(t->title),
		 "%s, replayed%s%s, buffers in a %s arena (%s): ns per call",
		 op_label(op), c < 0 ? "" : ", ", c < 0 ? "" : corpora[c].name,
		 as, arena_name[a]);
	snprintf(t->subtitle, sizeof(t->subtitle),
		 "%s; ratio: speed relative to %s",
		 op == DIST_COPY ? "source and destination each half the arena"
				 : "the destination spans half the arena, as "
				   "a copy's does",
		 REF_NAME);
	t->xname = "distribution";
	t->plot = PLOT_LABELS;
	t->ns = replay_series(fop, t->series);
	for (int i = 0; i < nd; i++) {
		struct cell out[MAX_SERIES];

		if (!corpus_wants(c, i, op))
			continue;
		table_add_point(t, (size_t)i, d[i].name);
		activity("replay %s %s %s", d[i].name, op_label(op),
			 arena_name[a]);
		replay_cell(&d[i], op, a, arena / 2, t->series, t->ns, t->ref,
			    src, dst, out);
		for (int s = 0; s < t->ns; s++) {
			*table_cell(t, s, t->nx - 1) = out[s];
			if (!(t->series[s].flags & S_DISPATCH) ||
			    out[s].state != CELL_OK ||
			    out[t->ref].state != CELL_OK)
				continue;
			times[i].measured[op][a] = 1;
			times[i].libc[op][a] = out[t->ref].v;
			times[i].fm[op][a] = out[s].v;
		}
		progress_step(activity_text());
	}
	summarize(t, "distributions");
	table_emit(t);
}

static void describe(const struct dist *x)
{
	size_t mx = x->max[DIST_COPY] > x->max[DIST_SET] ? x->max[DIST_COPY]
							 : x->max[DIST_SET];

	if (x->format == DIST_TRACE)
		note("%s: trace, %llu memcpy + %llu memmove calls (%llu "
		     "overlapping), %llu memset, up to %zu bytes",
		     x->name, (unsigned long long)x->calls[0],
		     (unsigned long long)x->calls[1],
		     (unsigned long long)x->overlapping[1],
		     (unsigned long long)x->calls[2], mx);
	else
		note("%s: LLVM libc distribution, sizes 0-%zu, replayed as %s",
		     x->name, mx,
		     x->total[DIST_COPY] > 0 && x->total[DIST_SET] > 0
			     ? "memcpy and memset"
		     : x->total[DIST_COPY] > 0 ? "memcpy"
					       : "memset");
}

int cmd_replay(void)
{
	size_t arena[3], maxn = 64 * KIB, side_max;
	int nfixed =
		opt.nfiles || opt.no_fixed
			? 0
			: (int)(sizeof(fixed_sizes) / sizeof(*fixed_sizes));
	char *src, *dst;
	long steps = 0;

	replay_arenas(arena);
	for (int i = 0; i < nd; i++)
		for (int op = 0; op < DIST_OPS; op++) {
			size_t m = replay_max_call(&d[i], op);
			maxn = m > maxn ? m : maxn;
			if (replayable(&d[i], op))
				steps += 3;
		}
	steps += 4 * nfixed;
	side_max = arena[2] / 2 + maxn + PAGE;
	src = buf_alloc(side_max, 0x11);
	dst = buf_alloc(side_max, 0x22);
	note("replay: %d calls drawn per distribution with a fixed seed; "
	     "offsets uniform over the arena; fastmem = fm_memcpy (%s) and "
	     "fm_memset (%s) as dispatched",
	     SEQ, fm_selected(FM_OP_MEMCPY), fm_selected(FM_OP_MEMSET));
	for (int i = 0; i < nd; i++)
		describe(&d[i]);
	progress_begin(steps);
	for (int op = 0; op < DIST_OPS; op++)
		for (unsigned a = 0; a < 3; a++)
			for (int c = opt.nfiles ? -1 : 0;
			     c < (opt.nfiles ? 0 : NCORPORA); c++) {
				int any = 0;

				for (int i = 0; i < nd; i++)
					any |= corpus_wants(c, i, op);
				if (any)
					corpus_table(c, op, a, arena[a], src,
						     dst);
			}
	for (int op = 0; nfixed && op < DIST_OPS; op++)
		for (int mis = 0; mis < 2; mis++)
			fixed_table(op, mis, src + PAGE, dst + PAGE);
	progress_end();
	/* is it faster for the programs the traces recorded? */
	for (int i = 0; i < nd; i++)
		replay_verdict(&d[i], &times[i], 0);
	replay_verdicts_end();
	buf_free(src, side_max);
	buf_free(dst, side_max);
	for (int i = 0; i < nd; i++)
		dist_free(&d[i]);
	return 0;
}
