/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench run --trace FILE: one more run with the preload records
 * the program's calls (FASTMEM_TRACE, one file per process, gathered into
 * FILE), and replays them, libc against fm_* in the three arenas: the
 * share of the run those calls take and the saving the replay predicts,
 * beside the one measured.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "distribution.h"
#include "run.h"

/* Every trace file in dir appended to path, then removed with dir: how
 * many there were, or -1. */
static int gather_traces(const char *dir, const char *path)
{
	DIR *d = opendir(dir);
	FILE *out = fopen(path, "w");
	struct dirent *e;
	char p[4200], buf[65536];
	int n = 0;

	if (!d || !out) {
		run_fail("cannot write the trace: %s", strerror(errno));
		if (d)
			closedir(d);
		if (out)
			fclose(out);
		return -1;
	}
	while ((e = readdir(d))) {
		FILE *in;
		size_t k;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		in = fopen(p, "r");
		while (in && (k = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, k, out);
		if (in)
			fclose(in);
		unlink(p);
		n++;
	}
	closedir(d);
	rmdir(dir);
	if (fclose(out)) {
		run_fail("cannot write the trace: %s", strerror(errno));
		return -1;
	}
	return n;
}

/* The program's calls, recorded in one more run with the preload. */
static int record_trace(const char *path)
{
	char dir[] = "/tmp/fastmem-trace.XXXXXX", var[4200];

	if (!mkdtemp(dir)) {
		run_fail("cannot create a directory in /tmp: %s",
			 strerror(errno));
		return -1;
	}
	snprintf(var, sizeof(var), "FASTMEM_TRACE=%s/t.%%p", dir);
	activity("run with FASTMEM_TRACE");
	if (run_with_var(var))
		return -1;
	return gather_traces(dir, path);
}

int run_record_and_replay(double run_s, double saved, double saved_err)
{
	struct replay_times t;
	struct predicted p;
	struct dist d;
	char err[600];
	size_t arena[3], maxn = 64 * KIB, side;
	char *src, *dst;
	int files = record_trace(opt.traces[0]);

	if (files < 0)
		return 1;
	if (files == 0) {
		note("run --trace: no trace was written: no call went through "
		     "libfastmem (a static or setuid program ignores "
		     "LD_PRELOAD)");
		return 0;
	}
	if (dist_load(opt.traces[0], &d, err, sizeof(err))) {
		/* the reader refuses a trace of no call: here that is an
		 * answer, not an error */
		if (!strstr(err, "records no calls")) {
			run_fail("%s", err);
			return 1;
		}
		note("run --trace: %d process%s wrote a trace, of no call: "
		     "nothing for libfastmem to speed up",
		     files, files == 1 ? "" : "es");
		return 0;
	}
	note("run --trace: %d process%s recorded into %s", files,
	     files == 1 ? "" : "es", opt.traces[0]);
	memset(&t, 0, sizeof(t));
	replay_arenas(arena);
	for (int op = 0; op < DIST_OPS; op++)
		if (replay_max_call(&d, op) > maxn)
			maxn = replay_max_call(&d, op);
	side = arena[2] / 2 + maxn + PAGE;
	src = buf_alloc(side, 0x11);
	dst = buf_alloc(side, 0x22);
	for (int op = 0; op < DIST_OPS; op++) {
		struct series ser[2];
		struct cell out[2];

		if (!replayable(&d, op) ||
		    series_for_op(op == DIST_COPY ? FM_OP_MEMCPY : FM_OP_MEMSET,
				  ser, 2, 1, 1) != 2)
			continue;
		for (unsigned a = 0; a < 3; a++) {
			activity("replay %s arena %u", d.name, a);
			replay_cell(&d, op, a, arena[a] / 2, ser, 2, 0, src,
				    dst, out);
			t.measured[op][a] = out[0].state == CELL_OK &&
					    out[1].state == CELL_OK;
			t.libc[op][a] = out[0].v;
			t.fm[op][a] = out[1].v;
		}
	}
	buf_free(src, side);
	buf_free(dst, side);
	if (opt.format == OUT_TEXT)
		putchar('\n');
	p = replay_verdict(&d, &t, run_s);
	replay_verdicts_end();
	if (p.known && opt.format != OUT_JSON)
		printf("%sreplay predicts a saving of %.3g%% to %.3g%% of the "
		       "run (by arena); run measured %+.1f%% \302\261 %.1f%%\n",
		       opt.format == OUT_CSV ? "# " : "", 100 * p.lo,
		       100 * p.hi, 100 * saved, 100 * saved_err);
	json_extra(",\"predicted\":{\"known\":%s,\"saving_low\":%.6g,"
		   "\"saving_high\":%.6g,\"share_low\":%.6g,"
		   "\"share_high\":%.6g}",
		   p.known ? "true" : "false", p.lo, p.hi, p.share_lo,
		   p.share_hi);
	dist_free(&d);
	return 0;
}
