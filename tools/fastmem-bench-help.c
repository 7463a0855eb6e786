/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: the subcommands, the options, which subcommands take each
 * and their help, all in the tables below.  The parser (fastmem-bench.c)
 * refuses an option for a subcommand whose help does not list it, and
 * test/bench-help.sh checks that fastmem-bench(1) documents every option
 * and subcommand the help lists, and no other.
 */
#include "config.h"

#include <string.h>

#include "cli.h"

#define SIZED                                                                  \
	(B(CMD_COPY) | B(CMD_SET) | B(CMD_EXTENT) | B(CMD_CALIBRATE) |         \
	 B(CMD_VERSUS) | B(CMD_RESIDENCY) | B(CMD_PARALLEL))
#define SWEPT                                                                  \
	(B(CMD_COPY) | B(CMD_SET) | B(CMD_PAGE) | B(CMD_CALIBRATE) |           \
	 B(CMD_VERSUS) | B(CMD_RESIDENCY) | B(CMD_REPLAY) | B(CMD_PARALLEL))

const struct cmd_info cmds[CMD_COUNT] = {
	[CMD_COPY] = { "copy", cmd_copy, "",
		       "memcpy bandwidth by size, alignment and cache state",
		       "memcpy bandwidth (GB/s) by size and source-destination "
		       "alignment in three\nmodes (the 2008 Cell thread's "
		       "benchmark): cold (memory to memory: source\nand "
		       "destination swept over a region far larger than the "
		       "caches), warm\n(cache to memory: source fixed, "
		       "destination swept) and hot (cache to\ncache: the same "
		       "buffers every call).  Rows: the system memcpy (libc),\n"
		       "fm_memcpy and every usable memcpy variant." },
	[CMD_SET] = { "set", cmd_set, "",
		      "memset bandwidth by size, alignment and cache state",
		      "memset bandwidth (GB/s) by size and destination "
		      "alignment, cold (the\ndestination swept over a large "
		      "region) and hot (the same buffer every call).\nRows: "
		      "the system memset (libc), fm_memset and every usable "
		      "memset variant." },
	[CMD_PAGE] = { "page", cmd_page, "",
		       "ns per page of each copy_page/clear_page variant",
		       "ns (and timestamp-counter ticks on x86) per 4 KiB page "
		       "for every copy_page\nand clear_page variant and "
		       "fm_copy_page/fm_clear_page, against the system\n"
		       "memcpy/memset of 4096 bytes (libc); hot (the same page "
		       "every call) and cold\n(pages swept over a large "
		       "region), as in the 2005 x86-64 SSE page thread." },
	[CMD_READBACK] = { "readback", cmd_readback, "",
			   "clear/copy pages, then read them back (2005)",
			   "The 2005 read-back experiments: clear N pages and "
			   "read them all back\nafterwards, or clear and read "
			   "back page by page; the same for copies.\n"
			   "Streaming stores win when the pages are not read "
			   "back soon and lose when\nthey are.  ns per page, "
			   "read-back included, for every clear_page and\n"
			   "copy_page variant, the fm_* calls and the system "
			   "memset/memcpy (libc)." },
	[CMD_EXTENT] = { "extent", cmd_extent, "",
			 "clear 2 MiB..1 GiB extents (2021 MOVNTI table)",
			 "Clear extents of 2 MiB to 1 GiB (the 2021 MOVNTI "
			 "clear_page patch's table):\nevery clear_page variant "
			 "(called on the whole extent), fm_clear_pages and\n"
			 "the system memset (libc), in GB/s.  The same extent "
			 "is cleared in every\nrun, so small extents stay in "
			 "the caches and large ones do not." },
	[CMD_CALIBRATE] = { "calibrate", cmd_calibrate, "",
			    "measure where streaming wins, write thresholds",
			    NULL /* calibrate_help() */ },
	[CMD_VERSUS] = { "versus", cmd_versus, "",
			 "fm_memcpy/fm_memset vs libc, one compact table",
			 "fm_memcpy/fm_memset against the system libc in one "
			 "interleaved run,\ncompact enough for a README: hot "
			 "copies 8 B..32 MiB aligned and misaligned\n(src+7, "
			 "dst+13); cold copies and sets of 1..256 MiB swept "
			 "over 2 x 1 GiB;\nfm_clear_pages over 64 MiB and more "
			 "against memset (cold); one page cleared\nand read "
			 "back at once, fm_clear_page against rep stosb (x86) "
			 "and memset." },
	[CMD_RESIDENCY] = { "residency", cmd_residency, "",
			    "1-64 MiB copies/sets, data cached or cold, "
			    "read back",
			    "Copies and sets by where the data is: source and "
			    "destination each cached\n(the same buffer every "
			    "call) or cold (swept over a region far larger "
			    "than\nthe caches), alone or followed by reading "
			    "the whole destination back.\nRows: the system "
			    "routine (libc), fm_memcpy/fm_memset as "
			    "dispatched, and the\npolicy forced temporal and "
			    "forced streaming (fm_*_hint), interleaved; GB/s\n"
			    "with the read-back included.  Streaming should "
			    "win cold and lose when the\ndata is in use; the "
			    "dispatched call should match the better of the "
			    "two." },
	[CMD_REPLAY] = { "replay", cmd_replay, " [FILE...]",
			 "replay recorded call sizes (FASTMEM_TRACE files)",
			 NULL /* replay_help() */ },
	[CMD_PARALLEL] = { "parallel", cmd_parallel, "",
			   "the *_parallel calls by thread count vs libc",
			   "fm_memcpy_parallel, fm_memset_parallel and "
			   "fm_clear_pages_parallel against\nthe thread count, "
			   "interleaved in one run with the system libc's "
			   "memcpy/memset\nand the single-threaded fm_memcpy, "
			   "fm_memset and fm_clear_pages: GB/s\n(median) and "
			   "the ratios of the automatic count (auto) to libc "
			   "and to the\nsingle-threaded call." },
	[CMD_RUN] = { "run", cmd_run, " [--] PROGRAM [ARGS...]",
		      "run a program with and without the preload: a verdict",
		      NULL /* run_help() */ },
};

const struct option long_opts[] = {
	{ "variant", required_argument, 0, 'v' },
	{ "sizes", required_argument, 0, 's' },
	{ "max", required_argument, 0, O_MAX },
	{ "align", required_argument, 0, O_ALIGN },
	{ "mode", required_argument, 0, O_MODE },
	{ "region", required_argument, 0, O_REGION },
	{ "pages", required_argument, 0, O_PAGES },
	{ "threads", required_argument, 0, O_THREADS },
	{ "byte", required_argument, 0, O_BYTE },
	{ "peer", required_argument, 0, O_PEER },
	{ "no-fixed", no_argument, 0, O_FIXED },
	{ "runs", required_argument, 0, O_RUNS },
	{ "with-env", required_argument, 0, O_WITH_ENV },
	{ "preload", required_argument, 0, O_PRELOAD },
	{ "dry-run", no_argument, 0, O_DRY_RUN },
	{ "system", no_argument, 0, O_SYSTEM },
	{ "trace", required_argument, 0, O_TRACE },
	{ "parallel", no_argument, 0, O_PARALLEL },
	{ "basis", required_argument, 0, O_BASIS },
	{ "quick", no_argument, 0, 'q' },
	{ "reps", required_argument, 0, 'r' },
	{ "batch", required_argument, 0, O_BATCH },
	{ "csv", no_argument, 0, O_CSV },
	{ "json", no_argument, 0, O_JSON },
	{ "plot", required_argument, 0, O_PLOT },
	{ "progress", no_argument, 0, O_PROGRESS },
	{ "no-progress", no_argument, 0, O_NO_PROGRESS },
	{ "no-thp", no_argument, 0, O_NO_THP },
	{ "help", no_argument, 0, 'h' },
	{ "version", no_argument, 0, 'V' },
	{ 0, 0, 0, 0 },
};

/*
 * Every option row once, in one table; each subcommand names the rows it
 * takes (own_rows) and then takes the common rows its mask marks.  An
 * option whose meaning or default differs between subcommands has a row
 * for each meaning.  Continuation lines start with \n; the printer indents
 * them.
 */
enum row {
	ROW_NONE, /* ends a subcommand's list */
	ROW_VARIANT,
	ROW_SIZES,
	ROW_SIZES_EXTENT,
	ROW_SIZES_CALIBRATE,
	ROW_SIZES_VERSUS,
	ROW_SIZES_RESIDENCY,
	ROW_SIZES_PARALLEL,
	ROW_MAX,
	ROW_MAX_EXTENT,
	ROW_MAX_CALIBRATE,
	ROW_MAX_PARALLEL,
	ROW_ALIGN_PAIRS,
	ROW_ALIGN_DST,
	ROW_MODE_COPY,
	ROW_MODE_COLD_HOT,
	ROW_MODE_PARALLEL,
	ROW_REGION_BOTH,
	ROW_REGION_DST,
	ROW_REGION_VERSUS,
	ROW_REGION_PER_BUFFER,
	ROW_REGION_ARENA,
	ROW_REGION_PARALLEL,
	ROW_PAGES,
	ROW_THREADS,
	ROW_BYTE,
	ROW_PEER,
	ROW_FIXED,
	ROW_DRY_RUN,
	ROW_SYSTEM,
	ROW_TRACE_CALIBRATE,
	ROW_PARALLEL,
	ROW_BASIS,
	ROW_TRACE_RUN,
	ROW_RUNS,
	ROW_WITH_ENV,
	ROW_PRELOAD,
	/* the common rows, in the order every help lists them */
	ROW_QUICK,
	ROW_REPS,
	ROW_BATCH,
	ROW_CSV,
	ROW_JSON,
	ROW_PLOT,
	ROW_PROGRESS,
	ROW_NO_PROGRESS,
	ROW_NO_THP,
	ROW_HELP,
	ROW_VERSION,
	ROW_COUNT
};

struct opt_row {
	int key;
	unsigned common; /* the subcommands taking it besides own_rows */
	const char *arg;
	const char *text;
};

#define SWEPT_BOTH "memory swept when cold, source plus destination"

static const struct opt_row rows[ROW_COUNT] = {
	[ROW_VARIANT] = { 'v', 0, "NAME",
			  "only this row (repeatable): a registry variant, "
			  "fm_* for\nthe dispatched call, or fm for every fm_* "
			  "row; libc (the\nreference) is always measured" },
	[ROW_SIZES] = { 's', 0, "LIST",
			"sizes, e.g. 16,64,4K,1M (default 16 B .. 16 MiB as in "
			"the\nseed; --quick fewer)" },
	[ROW_SIZES_EXTENT] = { 's', 0, "LIST",
			       "extents (default 2M,16M,128M,1G)" },
	[ROW_SIZES_CALIBRATE] = { 's', 0, "LIST",
				  "sizes to try (default 4K..256M, --quick "
				  "4K..64M)" },
	[ROW_SIZES_VERSUS] = { 's', 0, "LIST",
			       "hot copy sizes (default 8 B .. 32 MiB by "
			       "4x)" },
	[ROW_SIZES_RESIDENCY] = { 's', 0, "LIST",
				  "sizes (default 1M..64M by 2x, --quick "
				  "1M,4M,16M,64M)" },
	[ROW_SIZES_PARALLEL] = { 's', 0, "LIST",
				 "sizes (default 64M,256M,512M,1G; --quick "
				 "64M,256M)" },
	[ROW_MAX] = { O_MAX, 0, "SIZE",
		      "extend (or cut) the default sizes up to SIZE, e.g. "
		      "256M" },
	[ROW_MAX_EXTENT] = { O_MAX, 0, "SIZE", "largest extent (default 1G)" },
	[ROW_MAX_CALIBRATE] = { O_MAX, 0, "SIZE", "largest size to try" },
	[ROW_MAX_PARALLEL] = { O_MAX, 0, "SIZE", "largest default size" },
	[ROW_ALIGN_PAIRS] = { O_ALIGN, 0, "LIST",
			      "src-dst offset pairs (default "
			      "0-0,0-4092,7-0,0-7,17-11)" },
	[ROW_ALIGN_DST] = { O_ALIGN, 0, "LIST",
			    "destination offsets (default 0,4092,7)" },
	[ROW_MODE_COPY] = { O_MODE, 0, "LIST",
			    "cold,warm,hot (default all three; mem-mem, "
			    "cache-mem\nand cache-cache are the same)" },
	[ROW_MODE_COLD_HOT] = { O_MODE, 0, "LIST",
				"cold,hot (default both; memory and cache are "
				"the same)" },
	[ROW_MODE_PARALLEL] = { O_MODE, 0, "LIST", "cold,hot (default cold)" },
	[ROW_REGION_BOTH] = { O_REGION, 0, "SIZE", SWEPT_BOTH },
	[ROW_REGION_DST] = { O_REGION, 0, "SIZE",
			     "memory swept when cold (destination)" },
	[ROW_REGION_VERSUS] = { O_REGION, 0, "SIZE",
				SWEPT_BOTH "\n(at least 1G per side)" },
	[ROW_REGION_PER_BUFFER] = { O_REGION, 0, "SIZE",
				    "memory swept per buffer when cold" },
	[ROW_REGION_ARENA] = { O_REGION, 0, "SIZE", "the memory arena" },
	[ROW_REGION_PARALLEL] = { O_REGION, 0, "SIZE",
				  SWEPT_BOTH "\n(and 4 x the largest size)" },
	[ROW_PAGES] = { O_PAGES, 0, "LIST",
			"page counts N (default 1,100,4096; the seed used "
			"100)" },
	[ROW_THREADS] = { O_THREADS, 0, "LIST",
			  "thread counts, 0 for automatic (default "
			  "2..CPUs,\n2 x CPUs when that is at most 8, and 0)" },
	[ROW_BYTE] = { O_BYTE, 0, "N",
		       "the byte to set, 0..255 (default 0; some memory\n"
		       "systems write zeroes faster)" },
	[ROW_PEER] = { O_PEER, 0, "NAME=LIB",
		       "also measure NAME_memcpy and NAME_memset from the "
		       "shared\nlibrary LIB (repeatable, at most 4): another "
		       "memcpy\nlibrary, in the same interleaved run" },
	[ROW_FIXED] = { O_FIXED, 0, NULL, "leave out the fixed-size tables" },
	[ROW_DRY_RUN] = { O_DRY_RUN, 0, NULL, "print, do not write the file" },
	[ROW_SYSTEM] = { O_SYSTEM, 0, NULL,
			 "write the system config instead (root "
			 "only;\nfastmem-info shows its path), for every user "
			 "and\nfor privileged programs" },
	[ROW_TRACE_CALIBRATE] = { O_TRACE, 0, "FILE",
				  "weigh the decisions by a program's recorded "
				  "sizes\n(FASTMEM_TRACE or LLVM libc file; "
				  "repeatable): also\nreplay every "
				  "memcpy/memset variant against the\ncurrent "
				  "one, and write a key only where the "
				  "replay\ngains more than 2%, the runs' range "
				  "and an A/A\ncontrol's noise, and loses in "
				  "no file and arena" },
	[ROW_PARALLEL] = { O_PARALLEL, 0, NULL,
			   "also measure the *_parallel calls, cold, on "
			   "2..CPUs\nthreads and write threads = N, the fewest "
			   "threads\nwithin 3% of the best (1 where none gains "
			   "5%;\nnothing with one CPU)" },
	[ROW_BASIS] = { O_BASIS, 0, "WHICH",
			"both (default: streaming must win hot and cold), "
			"cold,\nor hot" },
	[ROW_TRACE_RUN] = { O_TRACE, 0, "FILE",
			    "also record the program's calls into FILE (one "
			    "more\nrun, with the preload and FASTMEM_TRACE) "
			    "and replay\nthem: the share of the run spent in "
			    "memcpy/memset\nand the saving the replay "
			    "predicts" },
	[ROW_RUNS] = { O_RUNS, 0, "N",
		       "timed runs each way, interleaved (default 5; a "
		       "verdict\nneeds at least 3)" },
	[ROW_WITH_ENV] = { O_WITH_ENV, 0, "VAR=VALUE",
			   "set VAR in the runs with the preload only "
			   "(repeatable),\ne.g. FASTMEM_MEMCPY=generic" },
	[ROW_PRELOAD] = { O_PRELOAD, 0, "LIB",
			  "the preload library (default: "
			  "libfastmem-preload.so\nin the directory of the "
			  "libfastmem this program uses)" },
	[ROW_QUICK] = { 'q', MEASURING, NULL,
			"fewer sizes and runs: each subcommand in under a "
			"minute" },
	[ROW_REPS] = { 'r', MEASURING, "N",
		       "timed runs per cell (default 11, --quick 5)" },
	[ROW_BATCH] = { O_BATCH, MEASURING, "USEC",
			"length of one timed run (default 1000, --quick "
			"200)" },
	[ROW_CSV] = { O_CSV, ALL_CMDS, NULL,
		      "one CSV line per cell instead of tables" },
	[ROW_JSON] = { O_JSON, ALL_CMDS, NULL,
		       "one JSON object instead of tables" },
	[ROW_PLOT] = { O_PLOT, MEASURING, "FILE",
		       "also draw the tables with gnuplot (FILE.svg or "
		       "FILE.png)" },
	[ROW_PROGRESS] = { O_PROGRESS, ALL_CMDS, NULL,
			   "progress on stderr even when it is not a "
			   "terminal" },
	[ROW_NO_PROGRESS] = { O_NO_PROGRESS, ALL_CMDS, NULL,
			      "never show progress" },
	[ROW_NO_THP] = { O_NO_THP, MEASURING, NULL,
			 "do not advise transparent huge pages for the "
			 "buffers" },
	[ROW_HELP] = { 'h', ALL_CMDS, NULL, "this help" },
	[ROW_VERSION] = { 'V', ALL_CMDS, NULL, "print the version" },
};

/* The rows each subcommand takes before the common ones, in help order. */
#define OWN_ROWS_MAX 10
static const unsigned char own_rows[CMD_COUNT][OWN_ROWS_MAX] = {
	[CMD_COPY] = { ROW_VARIANT, ROW_SIZES, ROW_MAX, ROW_ALIGN_PAIRS,
		       ROW_MODE_COPY, ROW_REGION_BOTH },
	[CMD_SET] = { ROW_VARIANT, ROW_SIZES, ROW_MAX, ROW_ALIGN_DST,
		      ROW_MODE_COLD_HOT, ROW_REGION_DST, ROW_BYTE },
	[CMD_PAGE] = { ROW_VARIANT, ROW_MODE_COLD_HOT, ROW_REGION_BOTH },
	[CMD_READBACK] = { ROW_VARIANT, ROW_PAGES },
	[CMD_EXTENT] = { ROW_VARIANT, ROW_SIZES_EXTENT, ROW_MAX_EXTENT },
	[CMD_CALIBRATE] = { ROW_SIZES_CALIBRATE, ROW_MAX_CALIBRATE,
			    ROW_MODE_COLD_HOT, ROW_REGION_BOTH, ROW_DRY_RUN,
			    ROW_SYSTEM, ROW_TRACE_CALIBRATE, ROW_PARALLEL,
			    ROW_BASIS },
	[CMD_VERSUS] = { ROW_SIZES_VERSUS, ROW_REGION_VERSUS },
	[CMD_RESIDENCY] = { ROW_SIZES_RESIDENCY, ROW_REGION_PER_BUFFER },
	[CMD_REPLAY] = { ROW_VARIANT, ROW_REGION_ARENA, ROW_BYTE, ROW_PEER,
			 ROW_FIXED },
	[CMD_PARALLEL] = { ROW_SIZES_PARALLEL, ROW_MAX_PARALLEL,
			   ROW_MODE_PARALLEL, ROW_REGION_PARALLEL,
			   ROW_THREADS },
	[CMD_RUN] = { ROW_TRACE_RUN, ROW_RUNS, ROW_WITH_ENV, ROW_PRELOAD },
};

/* Does subcommand c take row r? */
static int takes_row(enum cmd c, enum row r)
{
	if (rows[r].common & B(c))
		return 1;
	for (int i = 0; i < OWN_ROWS_MAX && own_rows[c][i] != ROW_NONE; i++)
		if (own_rows[c][i] == r)
			return 1;
	return 0;
}

unsigned option_applies(int o)
{
	unsigned m = 0;

	for (int c = 0; c < CMD_COUNT; c++)
		for (int r = ROW_NONE + 1; r < ROW_COUNT; r++)
			if (rows[r].key == o && takes_row(c, r))
				m |= B(c);
	return m;
}

const char *option_name(int o)
{
	for (const struct option *p = long_opts; p->name; p++)
		if (p->val == o)
			return p->name;
	return "?";
}

/* "  -v, --variant NAME   text", continuation lines indented to the text */
static void print_row(FILE *f, const struct opt_row *r, enum cmd c)
{
	char head[48];
	const char *t = r->text;

	snprintf(head, sizeof(head), "%c%c%s --%s%s%s",
		 r->key < 256 ? '-' : ' ', r->key < 256 ? r->key : ' ',
		 r->key < 256 ? "," : " ", option_name(r->key),
		 r->arg ? " " : "", r->arg ? r->arg : "");
	fprintf(f, "  %-20s", head);
	if (strlen(head) > 20)
		fprintf(f, "\n  %-20s", "");
	while (*t) {
		size_t n = strcspn(t, "\n");

		fprintf(f, " %.*s", (int)n, t);
		t += n;
		if (*t) {
			fprintf(f, "\n  %-20s", "");
			t++;
		}
	}
	if (r->key == O_REGION) {
		char q[24], d[24];

		fmt_size_short(region_defaults[c].quick, q, sizeof(q));
		fmt_size_short(region_defaults[c].full, d, sizeof(d));
		if (region_defaults[c].quick == region_defaults[c].full)
			fprintf(f, "\n  %-20s (default %s)", "", d);
		else
			fprintf(f, "\n  %-20s (default %s, --quick %s)", "", d,
				q);
	}
	fputc('\n', f);
}

static void calibrate_help(FILE *f)
{
	fprintf(f,
		"Find the size from which streaming stores beat ordinary "
		"ones on this\nmachine, for copies and for sets, hot (the "
		"same buffers every call) and\ncold (buffers swept over a "
		"large region).  Streaming is the selected policy\nwith "
		"FM_HINT_NONTEMPORAL against FM_HINT_TEMPORAL, or else the "
		"_nt variant\nof the selected family against the selected "
		"variant.  Prints the evidence,\nthen a summary of every "
		"decision, and writes to the config file only the\nkeys "
		"whose effect it measured beyond the cells' noise (never "
		"with --quick):\n"
		"  nt_threshold.memcpy, nt_threshold.memmove (copies),\n"
		"  nt_threshold.memset, nt_threshold.clear_page (sets),\n"
		"  stream_cold.memcpy, stream_cold.memmove, "
		"stream_cold.memset\n"
		"    (the cold crossovers, with --basis both),\n"
		"  rep_from.memcpy, rep_from.memset (x86 with ERMS, hot "
		"mode),\n"
		"  threads (--parallel), memcpy, memset (--trace).\n"
		"The file is $FASTMEM_CONFIG, else "
		"$XDG_CONFIG_HOME/fastmem/fastmem.conf,\nelse "
		"$HOME/.config/fastmem/fastmem.conf (the directory is "
		"created); other\nlines in it are kept.  New processes read "
		"it at startup (fastmem-info shows\n\"config (PATH)\"); this "
		"one keeps the thresholds it started with.\n");
}

static void run_help(FILE *f)
{
	fputs("Is libfastmem faster for this program?  Runs PROGRAM ARGS "
	      "without and with\n"
	      "LD_PRELOAD=libfastmem-preload.so, interleaved (without, with, "
	      "without, ...),\n"
	      "--runs times each, after two untimed runs without and one with; "
	      "checks that\n"
	      "every run writes the same standard output and exits the same "
	      "way (exit\n"
	      "status 1 where they differ); and prints the medians of the wall "
	      "and CPU\n"
	      "time (user + system, the program's children included) of each "
	      "side, the\n"
	      "time saved as the median of the paired runs with their range, "
	      "and a\n"
	      "verdict on the wall time: 'faster by G% \302\261 U%', 'slower "
	      "by ...', or 'no\n"
	      "difference measurable at this noise' (U: the standard error of "
	      "that median\n"
	      "from the pairs' spread; a difference counts beyond 2 U).  "
	      "Standard input\n"
	      "is the same file for every run when it is a regular file, else "
	      "/dev/null;\n"
	      "the program's standard output and error are kept from the "
	      "terminal.\n"
	      "FASTMEM_TRACE is removed from both sides (tracing slows every "
	      "call).\n",
	      f);
}

static void replay_help(FILE *f)
{
	fprintf(f,
		"Replay the call sizes of a real program: each FILE is a "
		"FASTMEM_TRACE file\n(FASTMEM_TRACE=/tmp/t.%%p "
		"LD_PRELOAD=libfastmem-preload.so PROGRAM) or\nLLVM libc's "
		"format (one line of comma-separated probabilities for "
		"sizes\n0, 1, 2, ...).  A fixed-seed sequence of sizes and "
		"offsets runs through\nthe system memcpy/memset (libc), "
		"fm_memcpy/fm_memset and any -v variant,\ninterleaved, with "
		"the buffers in an L1-sized arena, one of half the last-\n"
		"level cache and one in memory: ns per call and the ratio to "
		"the system\nroutine.  Without FILE: the distributions "
		"shipped in %s,\ntwo corpora, each in its own tables: five "
		"recorded programs (traces) and\nthe nine memcpy and nine "
		"memset size distributions Google published from its\nfleet "
		"(fleet/, LLVM libc's benchmark corpus); then hot fixed sizes "
		"1 B-64 KiB,\naligned and misaligned.\n"
		"A FASTMEM_TRACE file then gets a verdict: its calls weighted "
		"by the counts\nit recorded, the time they take with libc and "
		"with fm_* in each arena, and\nthe saving (per million calls: "
		"a trace records no run time; fastmem-bench\nrun --trace gives "
		"it as a share of the run).  A trace with too few calls\nto "
		"replay says so.\n",
		FM_DISTDIR);
}

void usage(FILE *f)
{
	fprintf(f, "Usage: fastmem-bench SUBCOMMAND [OPTIONS]\n"
		   "       fastmem-bench SUBCOMMAND --help | help SUBCOMMAND\n"
		   "       fastmem-bench --help | --version\n\n"
		   "Measure libfastmem's variants (every one in the library's "
		   "registry that this\nCPU can run) against the system libc, "
		   "with medians of interleaved runs; or a program with and "
		   "without it (run).\n\nSubcommands:\n");
	for (int i = 0; i < CMD_COUNT; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nOptions of every subcommand (run takes only --csv, "
		   "--json, --progress,\n--no-progress, -h and -V of them):\n");
	for (int r = ROW_NONE + 1; r < ROW_COUNT; r++)
		if ((rows[r].common & MEASURING) == MEASURING)
			print_row(f, &rows[r], CMD_COPY);
	fprintf(f,
		"\nSee fastmem-bench SUBCOMMAND --help for its own options.\n"
		"Configuration written by calibrate: $FASTMEM_CONFIG, else\n"
		"$XDG_CONFIG_HOME/fastmem/fastmem.conf, else "
		"$HOME/.config/fastmem/fastmem.conf.\n"
		"Exit status: 0 ok, 1 a variant gave a wrong result or an "
		"error, 2 bad usage.\nSee fastmem-bench(1).\n");
}

void cmd_usage(FILE *f, enum cmd c)
{
	fprintf(f, "Usage: fastmem-bench %s [OPTIONS]%s\n\n", cmds[c].name,
		cmds[c].args);
	if (c == CMD_CALIBRATE)
		calibrate_help(f);
	else if (c == CMD_REPLAY)
		replay_help(f);
	else if (c == CMD_RUN)
		run_help(f);
	else
		fprintf(f, "%s\n", cmds[c].text);
	fputc('\n', f);
	for (int i = 0; i < OWN_ROWS_MAX && own_rows[c][i] != ROW_NONE; i++)
		print_row(f, &rows[own_rows[c][i]], c);
	for (int r = ROW_NONE + 1; r < ROW_COUNT; r++)
		if (rows[r].common & B(c))
			print_row(f, &rows[r], c);
}
