/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench page, readback and extent: the page-clearing and
 * page-copying experiments of the 2005 x86-64 SSE thread (cycles per page),
 * its read-back results (streaming stores lose when the pages are read back
 * at once), and the 2021 MOVNTI clear_page patch's extent table.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Rows for a page op: the reference, fm_*, the variants, the hint row. */
static int page_series(enum fm_op op, struct series *ser)
{
	int ns = series_for_op(op, ser, MAX_SERIES - 1, 1, 1);

	ns += hint_series(op, &ser[ns]);
	return ns;
}

/* --- page ------------------------------------------------------------------
 */

int cmd_page(void)
{
	static const enum fm_op ops[] = { FM_OP_COPY_PAGE, FM_OP_CLEAR_PAGE };
	unsigned modes = opt.modes ? opt.modes : MODE_HOT | MODE_COLD;
	size_t side = region_total(CMD_PAGE) / 2;
	size_t slots = (side - 2 * PAGE) / PAGE, pos = 0;
	char *src, *dst, a[24];

	check_variant_args(ops, 2);
	fmt_size(side, a, sizeof(a));
	note("buffers: source and destination regions of %s each; cold runs "
	     "take the next page of each every call",
	     a);
	src = buf_alloc(side, 0x11);
	dst = buf_alloc(side, 0x22);
	progress_begin(2L * (!!(modes & MODE_HOT) + !!(modes & MODE_COLD)));
	for (int k = 0; k < 2; k++) {
		enum fm_op op = ops[k];
		struct series ser[MAX_SERIES];
		int ns = page_series(op, ser);
		struct table *t;
		int verified[MAX_SERIES] = { 0 };

		for (int s = 0; s < ns; s++)
			if (ser[s].flags & S_DISPATCH &&
			    op == FM_OP_CLEAR_PAGE &&
			    !strcmp(ser[s].name, "fm_clear_pages"))
				snprintf(ser[s].name, sizeof(ser[s].name),
					 "fm_clear_page");
		t = table_new(op == FM_OP_COPY_PAGE ? "page copy_page"
						    : "page clear_page",
			      UNIT_NS, 1);
		snprintf(t->title, sizeof(t->title),
			 "%s: ns per 4 KiB page%s, median ±half-IQR, speed vs "
			 "%s %s",
			 op == FM_OP_COPY_PAGE ? "copy_page" : "clear_page",
			 have_tsc ? " and timestamp-counter ticks" : "",
			 ser[0].name,
			 op == FM_OP_COPY_PAGE ? "memcpy" : "memset");
		snprintf(t->subtitle, sizeof(t->subtitle),
			 "hot: the same page every call; cold: pages swept "
			 "over %s",
			 a);
		t->xname = "mode";
		t->plot = PLOT_LABELS;
		t->show_tsc = have_tsc;
		t->ns = ns;
		memcpy(t->series, ser, sizeof(ser[0]) * (size_t)ns);
		if (modes & MODE_HOT)
			table_add_point(t, 0, "hot");
		if (modes & MODE_COLD)
			table_add_point(t, 0, "cold");
		for (int x = 0; x < t->nx; x++) {
			int hot = !strcmp(t->xlabel[x], "hot");
			struct job jobs[MAX_SERIES];
			struct cell out[MAX_SERIES];

			activity("page %s %s",
				 op == FM_OP_COPY_PAGE ? "copy_page"
						       : "clear_page",
				 t->xlabel[x]);
			for (int s = 0; s < ns; s++) {
				struct job *j = &jobs[s];

				memset(j, 0, sizeof(*j));
				j->s = &t->series[s];
				j->run = op == FM_OP_COPY_PAGE ? run_cpage
							       : run_clear;
				j->verify = op == FM_OP_COPY_PAGE
						    ? verify_cpage
						    : verify_clear;
				j->src = src + PAGE;
				j->dst = dst + PAGE;
				j->n = 1;
				j->sstep = j->dstep = hot ? 0 : PAGE;
				j->slots = hot ? 1 : slots;
				j->flush = !hot && sweep_flush(PAGE, slots);
				j->pos = &pos;
				j->bytes = (double)PAGE;
				j->ops = 1;
			}
			measure_cell(jobs, ns, 0, UNIT_NS, out, verified);
			for (int s = 0; s < ns; s++)
				*table_cell(t, s, x) = out[s];
			progress_step(activity_text());
		}
		progress_end();
		table_emit(t);
	}
	buf_free(src, side);
	buf_free(dst, side);
	return 0;
}

/* --- readback ----------------------------------------------------------------
 */

/*
 * j->n pages per call, one page at a time; j->c is the read-back pattern.
 * CALL(i) clears or copies page i.
 */
#define RB_RUNNER(name, fn_type, field, CALL)                                  \
	double name(struct job *j, long k)                                     \
	{                                                                      \
		fn_type f = j->s->fn.field;                                    \
		char *d = j->dst, *src = j->src;                               \
		size_t np = j->n;                                              \
		uint64_t s = 0, t0 = ticks();                                  \
		double a = now_ns(), b;                                        \
                                                                               \
		(void)src;                                                     \
		for (long it = 0; it < k; it++) {                              \
			for (size_t i = 0; i < np; i++) {                      \
				CALL;                                          \
				if (j->c == RB_EACH)                           \
					s += read_back(d + i * PAGE, PAGE);    \
			}                                                      \
			if (j->c == RB_ALL)                                    \
				s += read_back(d, np * PAGE);                  \
		}                                                              \
		b = now_ns();                                                  \
		j->tsc = ticks() - t0;                                         \
		read_back_sink = s;                                            \
		return b - a;                                                  \
	}

RB_RUNNER(run_rb_clear, clear_fn, clear, f(d + i * PAGE, 1))
RB_RUNNER(run_rb_copy, cpage_fn, cpage, f(d + i * PAGE, src + i * PAGE))

static const char *verdict(double r)
{
	return r >= 1.0 ? "wins" : "loses";
}

/* One line per streaming row: how it fares in each pattern. */
static void conclude(struct table *t)
{
	size_t len = 0;
	int any = 0;

	for (int s = 0; s < t->ns; s++) {
		if (!(t->series[s].flags & S_NT))
			continue;
		any = 1;
		len += (size_t)snprintf(t->footer + len,
					sizeof(t->footer) - len,
					"   %s streams:", t->series[s].name);
		for (int x = 0; x < t->nx && len < sizeof(t->footer); x++) {
			const struct cell *c = table_cell(t, s, x);

			if (c->state != CELL_OK)
				continue;
			len += (size_t)snprintf(
				t->footer + len, sizeof(t->footer) - len,
				"%s %s %.2fx (%s)", x ? "," : "", t->xlabel[x],
				c->ratio, verdict(c->ratio));
		}
		if (len < sizeof(t->footer))
			len += (size_t)snprintf(t->footer + len,
						sizeof(t->footer) - len, "\n");
		if (len >= sizeof(t->footer))
			len = sizeof(t->footer) - 1;
	}
	if (!any)
		snprintf(t->footer, sizeof(t->footer),
			 "   (no streaming variant of this operation is usable "
			 "here, so the table cannot show\n    where streaming "
			 "loses; the seed's result: it loses when the pages "
			 "are read back at once)\n");
}

int cmd_readback(void)
{
	static const enum fm_op ops[] = { FM_OP_CLEAR_PAGE, FM_OP_COPY_PAGE };
	static const size_t def_pages[] = { 1, 100, 4096 };
	size_t pages[MAX_POINTS];
	int npages = 0;
	size_t maxp = 0;
	char *src, *dst;

	check_variant_args(ops, 2);
	if (opt.nsizes) {
		for (int i = 0; i < opt.nsizes; i++)
			pages[npages++] = opt.sizes[i];
	} else {
		for (size_t i = 0; i < sizeof(def_pages) / sizeof(*def_pages);
		     i++)
			pages[npages++] = def_pages[i];
	}
	for (int i = 0; i < npages; i++) {
		if (pages[i] > (1u << 18)) {
			fprintf(stderr,
				"fastmem-bench readback: --pages %zu: at "
				"most 262144 (1 GiB)\n",
				pages[i]);
			return 2;
		}
		if (pages[i] > maxp)
			maxp = pages[i];
	}
	note("the same N pages are cleared/copied in every run, as a kernel "
	     "reuses freed pages; read-back sums every 8-byte word");
	src = buf_alloc((maxp + 2) * PAGE, 0x11);
	dst = buf_alloc((maxp + 2) * PAGE, 0x22);
	progress_begin(2L * npages * 3);
	for (int k = 0; k < 2; k++) {
		enum fm_op op = ops[k];
		int copy = op == FM_OP_COPY_PAGE;
		struct series ser[MAX_SERIES];
		int ns = page_series(op, ser);

		for (int pi = 0; pi < npages; pi++) {
			size_t np = pages[pi];
			int verified[MAX_SERIES] = { 0 };
			char id[64], a[24];
			struct table *t;

			fmt_size(np * PAGE, a, sizeof(a));
			snprintf(id, sizeof(id), "readback %s %zu",
				 copy ? "copy_page" : "clear_page", np);
			t = table_new(id, UNIT_NS, 1);
			snprintf(t->title, sizeof(t->title),
				 "readback: %s %zu page%s (%s), ns per page "
				 "including the read-back, speed vs %s",
				 copy ? "copy" : "clear", np,
				 np == 1 ? "" : "s", a, ser[0].name);
			snprintf(
				t->subtitle, sizeof(t->subtitle),
				"%s only | %s all, then read all back%s",
				copy ? "copy" : "clear",
				copy ? "copy" : "clear",
				np == 1 ? ""
				: copy	? " | copy and read back page by page"
				       : " | clear and read back page by page");
			t->xname = "pattern";
			t->plot = PLOT_LABELS;
			t->ns = ns;
			memcpy(t->series, ser, sizeof(ser[0]) * (size_t)ns);
			table_add_point(t, np,
					copy ? "copy only" : "clear only");
			table_add_point(t, np, "all, then read");
			if (np > 1)
				table_add_point(t, np, "page by page");
			for (int x = 0; x < t->nx; x++) {
				struct job jobs[MAX_SERIES];
				struct cell out[MAX_SERIES];
				size_t pos = 0;

				activity("readback %s %zu pages, %s",
					 copy ? "copy_page" : "clear_page", np,
					 t->xlabel[x]);
				for (int s = 0; s < ns; s++) {
					struct job *j = &jobs[s];

					memset(j, 0, sizeof(*j));
					j->s = &t->series[s];
					j->run = copy ? run_rb_copy
						      : run_rb_clear;
					j->verify = copy ? verify_cpage
							 : verify_clear;
					j->src = src + PAGE;
					j->dst = dst + PAGE;
					j->n = np;
					j->c = x == 0	? RB_NONE
					       : x == 1 ? RB_ALL
							: RB_EACH;
					j->slots = 1;
					j->pos = &pos;
					j->bytes = (double)(np * PAGE);
					j->ops = (double)np;
				}
				measure_cell(jobs, ns, 0, UNIT_NS, out,
					     verified);
				for (int s = 0; s < ns; s++)
					*table_cell(t, s, x) = out[s];
				progress_step(activity_text());
			}
			progress_end();
			conclude(t);
			table_emit(t);
		}
	}
	if (npages * 3 > 0)
		progress_end();
	buf_free(src, (maxp + 2) * PAGE);
	buf_free(dst, (maxp + 2) * PAGE);
	return 0;
}

/* --- extent
 * ---------------------------------------------------------------------- */

int cmd_extent(void)
{
	static const enum fm_op ops[] = { FM_OP_CLEAR_PAGE };
	static const size_t def[] = { 2 * MIB, 16 * MIB, 128 * MIB, 1 * GIB };
	size_t ext[MAX_POINTS], maxe = 0, pos = 0;
	int ne = 0;
	struct series ser[MAX_SERIES];
	int ns, verified[MAX_POINTS][MAX_SERIES];
	struct table *t;
	char *dst;

	check_variant_args(ops, 1);
	if (opt.nsizes) {
		for (int i = 0; i < opt.nsizes; i++)
			ext[ne++] = (opt.sizes[i] + PAGE - 1) & ~(PAGE - 1);
	} else {
		size_t max = opt.max ? opt.max : 1 * GIB;

		for (size_t i = 0; i < sizeof(def) / sizeof(*def); i++)
			if (def[i] <= max)
				ext[ne++] = def[i];
		for (unsigned long long v = 8ull * GIB;
		     v <= max && ne < MAX_POINTS; v *= 8)
			ext[ne++] = (size_t)v;
		if (!ne || (ext[ne - 1] < max && ne < MAX_POINTS))
			ext[ne++] = (max + PAGE - 1) & ~(PAGE - 1);
	}
	for (int i = 0; i < ne; i++)
		if (ext[i] > maxe)
			maxe = ext[i];
	memset(verified, 0, sizeof(verified));
	ns = page_series(FM_OP_CLEAR_PAGE, ser);
	for (int s = 0; s < ns; s++)
		if (ser[s].flags & S_REF)
			snprintf(ser[s].name, sizeof(ser[s].name), "%s",
				 REF_NAME);
	dst = buf_alloc(maxe + 2 * PAGE, 0x22);

	t = table_new("extent", UNIT_GBS, 0);
	snprintf(t->title, sizeof(t->title),
		 "extent: clearing extents, GB/s (clear_page variants called "
		 "on the whole extent)");
	snprintf(t->subtitle, sizeof(t->subtitle),
		 "the same extent in every run, so small extents stay cached; "
		 "libc is memset(p, 0, size)");
	t->xname = "extent";
	t->plot = PLOT_SIZES;
	t->ns = ns;
	memcpy(t->series, ser, sizeof(ser[0]) * (size_t)ns);
	for (int x = 0; x < ne; x++)
		table_add_point(t, ext[x], NULL);
	progress_begin(ne);
	for (int x = 0; x < ne; x++) {
		struct job jobs[MAX_SERIES];
		struct cell out[MAX_SERIES];

		activity("extent %s", t->xlabel[x]);
		for (int s = 0; s < ns; s++) {
			struct job *j = &jobs[s];

			memset(j, 0, sizeof(*j));
			j->s = &t->series[s];
			j->run = run_clear;
			j->verify = verify_clear;
			j->dst = dst + PAGE;
			j->n = ext[x] / PAGE;
			j->slots = 1;
			j->pos = &pos;
			j->bytes = (double)ext[x];
			j->ops = 1;
		}
		measure_cell(jobs, ns, 0, UNIT_GBS, out, verified[x]);
		for (int s = 0; s < ns; s++)
			*table_cell(t, s, x) = out[s];
		progress_step(activity_text());
	}
	progress_end();
	table_emit(t);
	buf_free(dst, maxe + 2 * PAGE);
	return 0;
}
