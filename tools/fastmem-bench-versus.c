/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench versus: the x86 issue's measurement in one interleaved run,
 * fm_memcpy/fm_memset against glibc, compact enough for a README.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const size_t hot_sizes[] = {
	8,	  32,	     128,	512,	 2 * KIB, 8 * KIB,
	32 * KIB, 128 * KIB, 512 * KIB, 2 * MIB, 8 * MIB, 32 * MIB,
};
static const size_t cold_sizes[] = {
	1 * MIB,  2 * MIB,  4 * MIB,   8 * MIB,	  16 * MIB,
	32 * MIB, 64 * MIB, 128 * MIB, 256 * MIB,
};
static const size_t clear_sizes[] = { 64 * MIB, 128 * MIB, 256 * MIB };
/* where the streaming decision matters: read back at once, cold or cached */
static const size_t rb_sizes[] = { 1 * MIB, 4 * MIB, 16 * MIB, 64 * MIB };

static void fm_clear_one(void *p, size_t npages)
{
	for (size_t i = 0; i < npages; i++)
		fm_clear_page((char *)p + i * PAGE);
}

#if BENCH_X86
static void rep_stosb(void *p, size_t npages)
{
	void *d = p;
	size_t n = npages * PAGE;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
}
#endif

/* geometric mean, min and max of the ratios, under the table */
static void summarize(struct table *t, int s)
{
	struct ratio_span r = ratio_span(t, s);

	if (r.n > 1)
		snprintf(t->footer, sizeof(t->footer),
			 "   %s/%s: geometric mean %.2fx, lowest %.2fx (%s), "
			 "highest %.2fx (%s)\n",
			 t->series[s].name, t->series[t->ref].name, r.gmean,
			 r.lo, t->xlabel[r.xlo], r.hi, t->xlabel[r.xhi]);
}

static void run_table(struct table *t, enum sweep_kind kind,
		      const size_t *sizes, int n, size_t soff, size_t doff,
		      int cold, const struct region *r)
{
	sweep_table(t, kind, sizes, n, soff, doff, cold, r, 0);
	summarize(t, t->ns - 1);
	table_emit(t);
}

static struct table *two(const char *id, const char *title,
			 const char *subtitle, enum unit unit)
{
	struct table *t = table_new(id, unit, 0);

	snprintf(t->title, sizeof(t->title), "%s", title);
	snprintf(t->subtitle, sizeof(t->subtitle), "%s", subtitle);
	t->plot = PLOT_SIZES;
	t->ns = 2;
	memset(t->series, 0, 2 * sizeof(t->series[0]));
	snprintf(t->series[0].name, sizeof(t->series[0].name), "%s", REF_NAME);
	t->series[0].flags = S_REF;
	snprintf(t->series[1].name, sizeof(t->series[1].name), "fastmem");
	t->series[1].flags = S_DISPATCH;
	return t;
}

int cmd_versus(void)
{
	const size_t *hs = opt.nsizes ? opt.sizes : hot_sizes;
	int nh = opt.nsizes ? opt.nsizes
			    : (int)(sizeof(hot_sizes) / sizeof(*hot_sizes));
	int nc = (int)(sizeof(cold_sizes) / sizeof(*cold_sizes));
	int nx = (int)(sizeof(clear_sizes) / sizeof(*clear_sizes));
	size_t maxh = 0;
	struct region hot, cold, mid;
	struct table *t;
	char a[24], sub[200];

	for (int i = 0; i < nh; i++)
		if (hs[i] > maxh)
			maxh = hs[i];
	/* per side: half the region, >= 1 GiB, and 4 positions of 256 MiB */
	if (sizeof(void *) < 8) {
		/* a 32-bit address space: 256 MiB a side, sizes that fit */
		cold.side = opt.region ? opt.region / 2 : 256 * MIB;
	} else {
		cold.side = region_total(CMD_VERSUS) / 2;
		if (cold.side < 1 * GIB)
			cold.side = 1 * GIB;
		if (cold.side < PAGE + 4 * sweep_stride(256 * MIB))
			cold.side =
				(PAGE + 4 * sweep_stride(256 * MIB) + MIB - 1) &
				~(MIB - 1);
	}
	while (nc > 1 &&
	       PAGE + 4 * sweep_stride(cold_sizes[nc - 1]) > cold.side)
		nc--;
	while (nx > 1 &&
	       PAGE + 4 * sweep_stride(clear_sizes[nx - 1]) > cold.side)
		nx--;
	hot.side = PAGE + sweep_stride(maxh) + PAGE;
	fmt_size(cold.side, a, sizeof(a));
	note("fastmem = fm_memcpy / fm_memset / fm_clear_pages / "
	     "fm_clear_page, as dispatched (memcpy %s, memset %s, "
	     "clear_page %s)",
	     fm_selected(FM_OP_MEMCPY), fm_selected(FM_OP_MEMSET),
	     fm_selected(FM_OP_CLEAR_PAGE));
	cold.src = buf_alloc(cold.side, 0x11);
	cold.dst = buf_alloc(cold.side, 0x22);
	hot.src = buf_alloc(hot.side, 0x11);
	hot.dst = buf_alloc(hot.side, 0x22);
	mid.side = PAGE + sweep_stride(rb_sizes[3]) + PAGE;
	mid.src = buf_alloc(mid.side, 0x11);
	mid.dst = buf_alloc(mid.side, 0x22);
	progress_begin(2L * nh + 2L * nc + nx + 1 + 2L * 4 + 1);

	t = two("versus memcpy hot aligned", "memcpy, hot, aligned: GB/s",
		"the same buffers every call", UNIT_GBS);
	t->series[0].fn.copy = sys_memcpy;
	t->series[1].fn.copy = fm_memcpy;
	run_table(t, SWEEP_COPY, hs, nh, 0, 0, 0, &hot);

	t = two("versus memcpy hot misaligned",
		"memcpy, hot, misaligned (src+7, dst+13): GB/s",
		"the same buffers every call", UNIT_GBS);
	t->series[0].fn.copy = sys_memcpy;
	t->series[1].fn.copy = fm_memcpy;
	run_table(t, SWEEP_COPY, hs, nh, 7, 13, 0, &hot);

	snprintf(sub, sizeof(sub),
		 "source and destination swept over 2 x %s (never cached)", a);
	t = two("versus memcpy cold", "memcpy, cold: GB/s", sub, UNIT_GBS);
	t->series[0].fn.copy = sys_memcpy;
	t->series[1].fn.copy = fm_memcpy;
	run_table(t, SWEEP_COPY, cold_sizes, nc, 0, 0, 1, &cold);

	snprintf(sub, sizeof(sub), "destination swept over %s (never cached)",
		 a);
	t = two("versus memset cold", "memset, cold: GB/s", sub, UNIT_GBS);
	t->series[0].fn.set = sys_memset;
	t->series[1].fn.set = fm_memset;
	run_table(t, SWEEP_SET, cold_sizes, nc, 0, 0, 1, &cold);

	/* the cases the residency probe decides: copies read back at once,
	 * cold and cached, and a memset repeated on the same 16 MiB (perf
	 * bench mem memset -s 16MB) */
	t = two("versus memcpy cold readback",
		"memcpy, cold, then the destination read back: GB/s", sub,
		UNIT_GBS);
	t->series[0].fn.copy = sys_memcpy;
	t->series[1].fn.copy = fm_memcpy;
	run_table(t, SWEEP_COPY_RB, rb_sizes, 4, 0, 0, 1, &cold);
	t = two("versus memcpy cached readback",
		"memcpy, cached, then the destination read back: GB/s",
		"the same buffers every call", UNIT_GBS);
	t->series[0].fn.copy = sys_memcpy;
	t->series[1].fn.copy = fm_memcpy;
	run_table(t, SWEEP_COPY_RB, rb_sizes, 4, 0, 0, 0, &mid);
	t = two("versus memset hot 16M", "memset, hot, 16 MiB: GB/s",
		"the same buffer every call", UNIT_GBS);
	t->series[0].fn.set = sys_memset;
	t->series[1].fn.set = fm_memset;
	run_table(t, SWEEP_SET, rb_sizes + 2, 1, 0, 0, 0, &mid);

	t = two("versus clear_pages cold",
		"clearing extents, cold: fm_clear_pages vs memset, GB/s", sub,
		UNIT_GBS);
	snprintf(t->series[1].name, sizeof(t->series[1].name),
		 "fm_clear_pages");
	t->series[0].fn.clear = libc_clear;
	t->series[1].fn.clear = fm_clear_pages;
	run_table(t, SWEEP_CLEAR, clear_sizes, nx, 0, 0, 1, &cold);

	/* one page cleared, then read back at once (the 2005 lesson) */
	t = table_new("versus clear_page readback", UNIT_NS, 0);
	snprintf(t->title, sizeof(t->title),
		 "one page cleared, then read back at once: ns per page");
	snprintf(t->subtitle, sizeof(t->subtitle),
		 "the same page every time; speed relative to %s",
		 BENCH_X86 ? "rep stosb" : "memset");
	t->xname = "size";
	memset(t->series, 0, 3 * sizeof(t->series[0]));
#if BENCH_X86
	snprintf(t->series[t->ns].name, sizeof(t->series[0].name), "rep stosb");
	t->series[t->ns].flags = S_REF;
	t->series[t->ns++].fn.clear = rep_stosb;
#endif
	snprintf(t->series[t->ns].name, sizeof(t->series[0].name), "%s",
		 REF_NAME);
	t->series[t->ns].flags = BENCH_X86 ? 0 : S_REF;
	t->series[t->ns++].fn.clear = libc_clear;
	snprintf(t->series[t->ns].name, sizeof(t->series[0].name),
		 "fm_clear_page");
	t->series[t->ns].flags = S_DISPATCH;
	t->series[t->ns++].fn.clear = fm_clear_one;
	static const size_t one[] = { PAGE };
	run_table(t, SWEEP_READBACK, one, 1, 0, 0, 0, &hot);

	buf_free(cold.src, cold.side);
	buf_free(cold.dst, cold.side);
	buf_free(hot.src, hot.side);
	buf_free(hot.dst, hot.side);
	buf_free(mid.src, mid.side);
	buf_free(mid.dst, mid.side);
	return 0;
}
