/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench residency: copies and sets of 1-64 MiB by where the data is.
 *
 * Streaming stores win when the data is not in the cache and is not read
 * soon, and lose when it is (the 2005 read-back seed; the Intel
 * measurements in docs/measurements/xeon-6-207).  Size alone cannot tell
 * the two apart, so each table fixes where the source and the destination
 * are (cached: the same buffer every call; cold: swept over a region far
 * larger than the caches; fresh: never touched, its pages faulted in by the
 * call) and whether the destination is read back at
 * once, and compares the system routine with fm_* as dispatched and with
 * the policy forced temporal and forced streaming, interleaved, in one run.
 */
#include "config.h"

#include <string.h>

#include "bench.h"

static void *copy_dispatched(void *d, const void *s, size_t n)
{
	return fm_memcpy(d, s, n);
}

static void *set_dispatched(void *d, int c, size_t n)
{
	return fm_memset(d, c, n);
}

static int make_series(int copy, struct series *ser)
{
	static const char *const names[2][4] = {
		{ "libc", "fm_memset", "fm temporal", "fm streaming" },
		{ "libc", "fm_memcpy", "fm temporal", "fm streaming" },
	};
	static const unsigned flags[4] = { S_REF, S_DISPATCH, S_DISPATCH,
					   S_DISPATCH | S_NT };

	for (int i = 0; i < 4; i++) {
		memset(&ser[i], 0, sizeof(ser[i]));
		snprintf(ser[i].name, sizeof(ser[i].name), "%s",
			 names[copy][i]);
		ser[i].flags = flags[i];
		if (copy)
			ser[i].fn.copy = i == 0	  ? sys_memcpy
					 : i == 1 ? copy_dispatched
					 : i == 2 ? copy_temporal
						  : copy_streaming;
		else
			ser[i].fn.set = i == 0	 ? sys_memset
					: i == 1 ? set_dispatched
					: i == 2 ? set_temporal
						 : set_streaming;
	}
	return 4;
}

/* The footer: where fm_* as dispatched stands, and what it chose. */
static void conclude(struct table *t)
{
	size_t len = 0;

	for (int s = 1; s < t->ns && s < 2; s++) {
		len += (size_t)snprintf(t->footer + len,
					sizeof(t->footer) - len,
					"   %s:", t->series[s].name);
		for (int x = 0; x < t->nx && len < sizeof(t->footer); x++) {
			const struct cell *c = table_cell(t, s, x);

			if (c->state == CELL_OK)
				len += (size_t)snprintf(
					t->footer + len,
					sizeof(t->footer) - len, "%s %s %.2fx",
					x ? "," : "", t->xlabel[x], c->ratio);
		}
		if (len + 12 < sizeof(t->footer))
			snprintf(t->footer + len, sizeof(t->footer) - len,
				 " of libc\n");
	}
}

/* fresh: the destination never touched (its pages dropped before each
 * batch, so each call faults them in, zeroed by the kernel through the
 * caches), as a buffer just allocated with mmap or a large malloc */
struct layout {
	const char *key, *title;
	int src_cold, dst_cold, read, fresh;
};

static const struct layout copy_layouts[] = {
	{ "cold-cold", "source and destination cold", 1, 1, 0, 0 },
	{ "cold-cold rb", "source and destination cold, then read back", 1, 1,
	  1, 0 },
	{ "hot-cold rb", "source cached, destination cold, then read back", 0,
	  1, 1, 0 },
	{ "cold-hot rb", "source cold, destination cached, then read back", 1,
	  0, 1, 0 },
	{ "hot-hot rb", "source and destination cached, then read back", 0, 0,
	  1, 0 },
	{ "hot-hot", "source and destination cached", 0, 0, 0, 0 },
	{ "hot-fresh rb",
	  "source cached, destination never touched, then read back", 0, 1, 1,
	  1 },
};

static const struct layout set_layouts[] = {
	{ "cold", "destination cold", 0, 1, 0, 0 },
	{ "cold rb", "destination cold, then read back", 0, 1, 1, 0 },
	{ "hot rb", "destination cached, then read back", 0, 0, 1, 0 },
	{ "hot", "destination cached (the same buffer every call)", 0, 0, 0,
	  0 },
	{ "fresh", "destination never touched (a fresh mapping)", 0, 1, 0, 1 },
	{ "fresh rb", "destination never touched, then read back", 0, 1, 1, 1 },
};

int cmd_residency(void)
{
	static const size_t full[] = { 1 * MIB,	 2 * MIB,  4 * MIB, 8 * MIB,
				       16 * MIB, 32 * MIB, 64 * MIB };
	static const size_t quick[] = { 1 * MIB, 4 * MIB, 16 * MIB, 64 * MIB };
	size_t sizes[MAX_POINTS], region, maxn = 0;
	int nsizes = 0, ntables;
	char *src, *dst;

	if (opt.nsizes) {
		for (int i = 0; i < opt.nsizes; i++)
			sizes[nsizes++] = opt.sizes[i];
	} else if (opt.quick) {
		for (size_t i = 0; i < sizeof(quick) / sizeof(*quick); i++)
			sizes[nsizes++] = quick[i];
	} else {
		for (size_t i = 0; i < sizeof(full) / sizeof(*full); i++)
			sizes[nsizes++] = full[i];
	}
	for (int i = 0; i < nsizes; i++)
		if (sizes[i] > maxn)
			maxn = sizes[i];
	region = region_total(CMD_RESIDENCY);
	if (region < 4 * sweep_stride(maxn))
		region = 4 * sweep_stride(maxn);
	note("cold: swept over %zu MiB per buffer; cached: the same buffer "
	     "every call; fresh: swept, its pages given back to the kernel "
	     "(MADV_DONTNEED) before each batch, so the call faults them in; "
	     "read back: every byte of the destination summed right after "
	     "each call; GB/s of bytes copied or set, the read-back included",
	     region >> 20);
	note("fm temporal / fm streaming: fm_memcpy_hint/fm_memset_hint with "
	     "FM_HINT_TEMPORAL / FM_HINT_NONTEMPORAL; fm_memcpy/fm_memset "
	     "decide for themselves (fastmem-info shows how)");
	src = buf_alloc(region + PAGE, 0x11);
	dst = buf_alloc(region + PAGE, 0x22);
	ntables = (int)(sizeof(copy_layouts) / sizeof(*copy_layouts) +
			sizeof(set_layouts) / sizeof(*set_layouts));
	progress_begin((long)ntables * nsizes);
	for (int copy = 1; copy >= 0; copy--) {
		const struct layout *lay = copy ? copy_layouts : set_layouts;
		int nlay = copy ? (int)(sizeof(copy_layouts) /
					sizeof(*copy_layouts))
				: (int)(sizeof(set_layouts) /
					sizeof(*set_layouts));
		struct series ser[4];
		int ns = make_series(copy, ser);

		for (int l = 0; l < nlay; l++) {
			char id[64];
			struct table *t;
			int verified[4] = { 0 };

			snprintf(id, sizeof(id), "residency %s %s",
				 copy ? "copy" : "set", lay[l].key);
			t = table_new(id, UNIT_GBS, 0);
			snprintf(t->title, sizeof(t->title), "%s, %s, GB/s",
				 copy ? "copy" : "set", lay[l].title);
			t->xname = "size";
			t->plot = PLOT_SIZES;
			t->ns = ns;
			memcpy(t->series, ser, sizeof(ser[0]) * (size_t)ns);
			for (int i = 0; i < nsizes; i++) {
				char a[24];

				fmt_size(sizes[i], a, sizeof(a));
				table_add_point(t, sizes[i], a);
			}
			for (int x = 0; x < t->nx; x++) {
				size_t n = sizes[x], stride = sweep_stride(n);
				struct job jobs[4];
				struct cell out[4];
				size_t pos = 0;

				activity("residency %s %s %zu",
					 copy ? "copy" : "set", lay[l].key, n);
				for (int s = 0; s < ns; s++) {
					struct job *j = &jobs[s];

					memset(j, 0, sizeof(*j));
					j->s = &t->series[s];
					j->run =
						copy ? (lay[l].read
								? run_copy_rb
								: run_copy)
						     : (lay[l].read ? run_set_rb
								    : run_set);
					j->verify =
						copy ? verify_copy : verify_set;
					j->src = src + PAGE;
					j->dst = dst + PAGE;
					j->n = n;
					j->sstep = lay[l].src_cold ? stride : 0;
					j->dstep = lay[l].dst_cold ? stride : 0;
					j->fresh = lay[l].fresh;
					j->slots =
						lay[l].src_cold ||
								lay[l].dst_cold
							? region / stride
							: 1;
					j->pos = &pos;
					j->c = 0;
					j->bytes = (double)n;
				}
				measure_cell(jobs, ns, 0, UNIT_GBS, out,
					     verified);
				for (int s = 0; s < ns; s++)
					*table_cell(t, s, x) = out[s];
				progress_step(activity_text());
			}
			conclude(t);
			table_emit(t);
		}
	}
	progress_end();
	buf_free(src, region + PAGE);
	buf_free(dst, region + PAGE);
	return bench_failed ? 1 : 0;
}
