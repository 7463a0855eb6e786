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

#define SEQ 8192 /* calls in a sequence (a power of two) */
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

/* The distributions replayed when no FILE is given (docs/distributions/). */
static const char *const shipped[] = {
	"gcc-O2.trace",	   "python3-test_json.trace",
	"git-log-p.trace", "sort.trace",
	"xz.trace",
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

static const char *ref_label(void)
{
#ifdef __GLIBC__
	return "glibc";
#else
	return "libc";
#endif
}

/* libc, fm_*, then the -v variants of op. */
static int replay_series(enum fm_op op, struct series *out)
{
	int n = series_for_op(op, out, 1, 1, 0);

	snprintf(out[0].name, sizeof(out[0].name), "%s", ref_label());
	memset(&out[n], 0, sizeof(out[n]));
	snprintf(out[n].name, sizeof(out[n].name), "%s",
		 op == FM_OP_MEMCPY ? "fm_memcpy" : "fm_memset");
	out[n].flags = S_DISPATCH;
	if (op == FM_OP_MEMCPY)
		out[n].fn.copy = fm_memcpy;
	else
		out[n].fn.set = fm_memset;
	n++;
	if (opt.nvariants)
		n += series_for_op(op, out + n, MAX_SERIES - n, 0, 0);
	return n;
}

/* geometric mean and range of each non-reference series's ratios */
static void summarize(struct table *t)
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
				"over %d distributions)\n",
				t->series[s].name, t->series[t->ref].name,
				r.gmean, r.lo, r.hi, r.n);
	}
}

static int load_all(struct dist *d, int *nd)
{
	char err[512], path[1024];
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
			(*nd)++;
		}
		return 0;
	}
	/* the shipped distributions: installed, else in the source tree */
	for (size_t k = 0; k < sizeof(dirs) / sizeof(*dirs); k++) {
		if (!dirs[k][0])
			continue;
		for (size_t i = 0; i < sizeof(shipped) / sizeof(*shipped);
		     i++) {
			snprintf(path, sizeof(path), "%s/%s", dirs[k],
				 shipped[i]);
			if (dist_load(path, &d[*nd], err, sizeof(err)))
				break;
			(*nd)++;
		}
		if (*nd == (int)(sizeof(shipped) / sizeof(*shipped)))
			return 0;
		while (*nd)
			dist_free(&d[--*nd]);
	}
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
	arena[2] = sizeof(void *) < 8 ? 256 * MIB
				      : region_total(256 * MIB, 1 * GIB);
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
	static struct call *seq;
	struct job jobs[MAX_SERIES];
	size_t pos[MAX_SERIES];

	if (!seq)
		seq = malloc(SEQ * sizeof(*seq));
	if (!seq) {
		fprintf(stderr, "fastmem-bench: out of memory\n");
		exit(1);
	}
	make_seq(seq, d, op, side, a);
	cur_seq = seq;
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

int cmd_replay(void)
{
	size_t arena[3], maxn = 0, side_max;
	const char *arena_name[3] = { "L1", "LLC", "memory" };
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
	side_max = arena[2] / 2 + maxn + PAGE;
	src = buf_alloc(side_max, 0x11);
	dst = buf_alloc(side_max, 0x22);
	note("replay: %d calls drawn per distribution with a fixed seed; "
	     "offsets uniform over the arena; fastmem = fm_memcpy (%s) and "
	     "fm_memset (%s) as dispatched",
	     SEQ, fm_selected(FM_OP_MEMCPY), fm_selected(FM_OP_MEMSET));
	for (int i = 0; i < nd; i++) {
		const struct dist *x = &d[i];
		size_t mx = x->max[DIST_COPY] > x->max[DIST_SET]
				    ? x->max[DIST_COPY]
				    : x->max[DIST_SET];

		if (x->format == DIST_TRACE)
			note("%s: trace, %llu memcpy + %llu memmove calls "
			     "(%llu "
			     "overlapping), %llu memset, up to %zu bytes",
			     x->name, (unsigned long long)x->calls[0],
			     (unsigned long long)x->calls[1],
			     (unsigned long long)x->overlapping[1],
			     (unsigned long long)x->calls[2], mx);
		else
			note("%s: LLVM libc distribution, sizes 0-%zu, "
			     "replayed "
			     "as %s",
			     x->name, mx,
			     x->total[DIST_COPY] > 0 && x->total[DIST_SET] > 0
				     ? "memcpy and memset"
			     : x->total[DIST_COPY] > 0 ? "memcpy"
						       : "memset");
	}
	progress_begin(steps);
	for (int op = 0; op < DIST_OPS; op++) {
		enum fm_op fop = op == DIST_COPY ? FM_OP_MEMCPY : FM_OP_MEMSET;
		int any = 0;

		for (int i = 0; i < nd; i++)
			any |= replayable(&d[i], op);
		if (!any)
			continue;
		for (unsigned a = 0; a < 3; a++) {
			struct table *t = table_new("", UNIT_NS, 0);
			size_t side = arena[a] / 2;
			char as[24];

			fmt_size(arena[a], as, sizeof(as));
			snprintf(t->id, sizeof(t->id), "replay %s %s",
				 op == DIST_COPY ? "memcpy" : "memset",
				 arena_name[a]);
			snprintf(t->title, sizeof(t->title),
				 "%s, replayed, buffers in a %s arena (%s): "
				 "ns per call",
				 op == DIST_COPY ? "memcpy" : "memset", as,
				 arena_name[a]);
			snprintf(t->subtitle, sizeof(t->subtitle),
				 "%s; ratio: speed relative to %s",
				 op == DIST_COPY
					 ? "source and destination each half "
					   "the arena"
					 : "the destination spans half the "
					   "arena, as "
					   "a copy's does",
				 ref_label());
			t->xname = "distribution";
			t->ns = replay_series(fop, t->series);
			for (int i = 0; i < nd; i++) {
				struct cell out[MAX_SERIES];

				if (!replayable(&d[i], op))
					continue;
				table_add_point(t, (size_t)i, d[i].name);
				activity("replay %s %s %s", d[i].name,
					 op == DIST_COPY ? "memcpy" : "memset",
					 arena_name[a]);
				replay_cell(&d[i], op, a, side, t->series,
					    t->ns, t->ref, src, dst, out);
				for (int s = 0; s < t->ns; s++)
					*table_cell(t, s, t->nx - 1) = out[s];
				progress_step(activity_text());
			}
			summarize(t);
			table_emit(t);
		}
	}
	progress_end();
	buf_free(src, side_max);
	buf_free(dst, side_max);
	for (int i = 0; i < nd; i++)
		dist_free(&d[i]);
	return 0;
}
