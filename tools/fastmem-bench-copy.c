/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench copy and set: bandwidth by size, alignment and cache state,
 * after the benchmark in the 2008 Cell memcpy thread (memory-to-memory,
 * cache-to-memory, cache-to-cache; alignments 0-0, 0-4092, 7-0, 0-7, 17-11).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const size_t sizes_full[] = {
	16,	  32,	    64,	       100,	128,	 150,
	256,	  384,	    512,       1 * KIB, 2 * KIB, 4 * KIB,
	16 * KIB, 64 * KIB, 300 * KIB, 1 * MIB, 4 * MIB, 16 * MIB,
};
static const size_t sizes_quick[] = {
	16,	  64,	     256,     1 * KIB, 4 * KIB,	 16 * KIB,
	64 * KIB, 300 * KIB, 1 * MIB, 4 * MIB, 16 * MIB,
};

/* The sizes to run: --sizes, else the default list cut or extended by --max
 * (in steps of 4x past 16 MiB). */
static int pick_sizes(size_t *out)
{
	int n = 0;

	if (opt.nsizes) {
		memcpy(out, opt.sizes, sizeof(size_t) * (size_t)opt.nsizes);
		n = opt.nsizes;
	} else {
		const size_t *d = opt.quick ? sizes_quick : sizes_full;
		int nd = opt.quick ? (int)(sizeof(sizes_quick) / sizeof(*d))
				   : (int)(sizeof(sizes_full) / sizeof(*d));
		size_t max = opt.max ? opt.max : 16 * MIB;

		for (int i = 0; i < nd; i++)
			if (d[i] <= max)
				out[n++] = d[i];
		for (size_t v = 64 * MIB; v <= max && n < MAX_POINTS; v *= 4)
			out[n++] = v;
		if (n && out[n - 1] < max && n < MAX_POINTS)
			out[n++] = max;
	}
	qsort(out, (size_t)n, sizeof(*out), cmp_size);
	return n;
}

/* --- copy ---------------------------------------------------------------- */

static const size_t copy_align[][2] = {
	{ 0, 0 }, { 0, 4092 }, { 7, 0 }, { 0, 7 }, { 17, 11 },
};

/* Per side, at least 4 slots of the largest size. */
static size_t side_bytes(size_t total, size_t maxn)
{
	size_t side = total / 2;

	if (side < PAGE + 4 * sweep_stride(maxn)) {
		size_t need = PAGE + 4 * sweep_stride(maxn);
		char a[24], b[24];

		fmt_size(side * 2, a, sizeof(a));
		fmt_size(need * 2, b, sizeof(b));
		note("region raised from %s to %s so the largest size is "
		     "swept over 4 positions",
		     a, b);
		side = (need + MIB - 1) & ~(MIB - 1);
	}
	return side;
}

static size_t slots_for(size_t side, size_t n)
{
	size_t s = (side - PAGE) / sweep_stride(n);

	return s ? s : 1;
}

/* A plotted table of the ns series ser, one point per size. */
static struct table *sized_table(const char *id, const struct series *ser,
				 int ns, const size_t *sizes, int nsizes)
{
	struct table *t = table_new(id, UNIT_GBS, 0);

	t->plot = PLOT_SIZES;
	t->ns = ns;
	t->ref = 0;
	memcpy(t->series, ser, sizeof(ser[0]) * (size_t)ns);
	for (int x = 0; x < nsizes; x++)
		table_add_point(t, sizes[x], NULL);
	return t;
}

/*
 * Fill t's cells, one size after the other: every series runs as a copy of
 * proto (run, verify, src or none, dst, c) on the same slots.  MODE_COLD
 * sweeps the source and the destination over `side`, MODE_WARM the
 * destination only,
 * MODE_HOT neither; *pos carries the sweep on from table to table.
 */
static void measure_sizes(struct table *t, const struct job *proto,
			  unsigned mode, size_t side, const size_t *sizes,
			  int nsizes, size_t *pos, int *verified,
			  const char *what)
{
	for (int x = 0; x < nsizes; x++) {
		struct job jobs[MAX_SERIES];
		struct cell out[MAX_SERIES];
		size_t n = sizes[x], st = sweep_stride(n);
		size_t slots = mode == MODE_HOT ? 1 : slots_for(side, n);

		*pos %= slots;
		activity("%s %s", what, t->xlabel[x]);
		for (int s = 0; s < t->ns; s++) {
			struct job *j = &jobs[s];

			*j = *proto;
			j->s = &t->series[s];
			j->n = n;
			j->sstep = mode == MODE_COLD && proto->src ? st : 0;
			j->dstep = mode != MODE_HOT ? st : 0;
			j->slots = slots;
			j->flush = mode != MODE_HOT && sweep_flush(n, slots);
			j->pos = pos;
			j->bytes = (double)n;
			j->ops = 1;
		}
		measure_cell(jobs, t->ns, 0, UNIT_GBS, out,
			     &verified[x * MAX_SERIES]);
		for (int s = 0; s < t->ns; s++)
			*table_cell(t, s, x) = out[s];
		progress_step(activity_text());
	}
	progress_end();
	table_emit(t);
}

int cmd_copy(void)
{
	static const enum fm_op ops[] = { FM_OP_MEMCPY };
	struct series ser[MAX_SERIES];
	size_t sizes[MAX_POINTS], asrc[8], adst[8];
	int nsizes = pick_sizes(sizes), nalign, ns;
	unsigned modes =
		opt.modes ? opt.modes : MODE_COLD | MODE_WARM | MODE_HOT;
	size_t side, pos = 0;
	char *src, *dst, a[24];
	int *verified;

	check_variant_args(ops, 1);
	ns = series_for_op(FM_OP_MEMCPY, ser, MAX_SERIES, 1, 1);
	if (opt.nalign) {
		nalign = opt.nalign;
		memcpy(asrc, opt.align_src, sizeof(asrc));
		memcpy(adst, opt.align_dst, sizeof(adst));
	} else {
		nalign = 5;
		for (int i = 0; i < nalign; i++) {
			asrc[i] = copy_align[i][0];
			adst[i] = copy_align[i][1];
		}
	}
	side = side_bytes(region_total(opt.cmd), sizes[nsizes - 1]);
	fmt_size(side, a, sizeof(a));
	note("buffers: source and destination regions of %s each; sweeps "
	     "advance by the size rounded up to pages plus one page",
	     a);
	src = buf_alloc(side, 0x11);
	dst = buf_alloc(side, 0x22);
	verified = calloc((size_t)MAX_SERIES * 8 * MAX_POINTS, sizeof(int));
	if (!verified)
		return 1;

	int nmodes = !!(modes & MODE_COLD) + !!(modes & MODE_WARM) +
		     !!(modes & MODE_HOT);
	progress_begin((long)nmodes * nalign * nsizes);
	for (unsigned m = MODE_COLD; m <= MODE_HOT; m <<= 1) {
		const char *mname = m == MODE_COLD   ? "cold"
				    : m == MODE_WARM ? "warm"
						     : "hot";
		const char *mtitle = m == MODE_COLD   ? "memory to memory"
				     : m == MODE_WARM ? "cache to memory"
						      : "cache to cache";

		if (!(modes & m))
			continue;
		for (int al = 0; al < nalign; al++) {
			struct job proto = { .run = run_copy,
					     .verify = verify_copy,
					     .src = src + PAGE + asrc[al],
					     .dst = dst + PAGE + adst[al] };
			char id[96], what[96];
			struct table *t;

			snprintf(id, sizeof(id), "copy %s %zu-%zu", mname,
				 asrc[al], adst[al]);
			t = sized_table(id, ser, ns, sizes, nsizes);
			snprintf(t->title, sizeof(t->title),
				 "copy %s (%s), alignment %zu-%zu (src+%zu, "
				 "dst+%zu), GB/s",
				 mname, mtitle, asrc[al], adst[al], asrc[al],
				 adst[al]);
			snprintf(
				t->subtitle, sizeof(t->subtitle), "%s",
				m == MODE_COLD
					? "source and destination swept over "
					  "the regions (never cached)"
				: m == MODE_WARM
					? "same source every call, destination "
					  "swept"
					: "same source and destination every "
					  "call");
			snprintf(what, sizeof(what), "copy %s %zu-%zu", mname,
				 asrc[al], adst[al]);
			measure_sizes(t, &proto, m, side, sizes, nsizes, &pos,
				      &verified[al * MAX_POINTS * MAX_SERIES],
				      what);
		}
	}
	progress_end();
	free(verified);
	buf_free(src, side);
	buf_free(dst, side);
	return 0;
}

/* --- set ------------------------------------------------------------------ */

static const size_t set_align[] = { 0, 4092, 7 };

int cmd_set(void)
{
	static const enum fm_op ops[] = { FM_OP_MEMSET };
	struct series ser[MAX_SERIES];
	size_t sizes[MAX_POINTS], adst[8];
	int nsizes = pick_sizes(sizes), nalign, ns;
	unsigned modes = opt.modes ? opt.modes : MODE_COLD | MODE_HOT;
	size_t side, pos = 0;
	char *dst, a[24];
	int *verified;

	check_variant_args(ops, 1);
	ns = series_for_op(FM_OP_MEMSET, ser, MAX_SERIES, 1, 1);
	if (opt.nalign) {
		nalign = opt.nalign;
		memcpy(adst, opt.align_dst, sizeof(adst));
	} else {
		nalign = 3;
		memcpy(adst, set_align, sizeof(set_align));
	}
	/* sets sweep one region: the whole of --region */
	side = side_bytes(region_total(opt.cmd) * 2, sizes[nsizes - 1]);
	fmt_size(side, a, sizeof(a));
	note("buffers: destination region of %s; sweeps advance by the size "
	     "rounded up to pages plus one page; byte value %d",
	     a, opt.byte);
	dst = buf_alloc(side, 0x22);
	verified = calloc((size_t)MAX_SERIES * 8 * MAX_POINTS, sizeof(int));
	if (!verified)
		return 1;

	int nmodes = !!(modes & MODE_COLD) + !!(modes & MODE_HOT);
	progress_begin((long)nmodes * nalign * nsizes);
	for (unsigned m = MODE_COLD; m <= MODE_HOT; m <<= 1) {
		const char *mname = m == MODE_COLD ? "cold" : "hot";

		if (!(modes & m))
			continue;
		for (int al = 0; al < nalign; al++) {
			struct job proto = { .run = run_set,
					     .verify = verify_set,
					     .dst = dst + PAGE + adst[al],
					     .c = opt.byte };
			char id[96], what[96];
			struct table *t;

			snprintf(id, sizeof(id), "set %s %zu", mname, adst[al]);
			t = sized_table(id, ser, ns, sizes, nsizes);
			snprintf(t->title, sizeof(t->title),
				 "set %s (to %s), destination +%zu, GB/s",
				 mname, m == MODE_COLD ? "memory" : "cache",
				 adst[al]);
			snprintf(t->subtitle, sizeof(t->subtitle), "%s",
				 m == MODE_COLD
					 ? "destination swept over the "
					   "region (never cached)"
					 : "same destination every call");
			snprintf(what, sizeof(what), "set %s +%zu", mname,
				 adst[al]);
			measure_sizes(t, &proto, m, side, sizes, nsizes, &pos,
				      &verified[al * MAX_POINTS * MAX_SERIES],
				      what);
		}
	}
	progress_end();
	free(verified);
	buf_free(dst, side);
	return 0;
}
