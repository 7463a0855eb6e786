/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: measure libfastmem's variants against the system libc.
 * See fastmem-bench(1).  This file: options, help and dispatch.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct options opt;

#define B(c) (1u << (c))
#define ALL_CMDS (B(CMD_COUNT) - 1)
#define SIZED                                                                  \
	(B(CMD_COPY) | B(CMD_SET) | B(CMD_EXTENT) | B(CMD_CALIBRATE) |         \
	 B(CMD_VERSUS) | B(CMD_RESIDENCY) | B(CMD_PARALLEL))

static const struct {
	const char *name;
	int (*run)(void);
	const char *summary;
} cmds[CMD_COUNT] = {
	[CMD_COPY] = { "copy", cmd_copy,
		       "memcpy bandwidth by size, alignment and cache state" },
	[CMD_SET] = { "set", cmd_set,
		      "memset bandwidth by size, alignment and cache state" },
	[CMD_PAGE] = { "page", cmd_page,
		       "ns per page of each copy_page/clear_page variant" },
	[CMD_READBACK] = { "readback", cmd_readback,
			   "clear/copy pages, then read them back (2005)" },
	[CMD_EXTENT] = { "extent", cmd_extent,
			 "clear 2 MiB..1 GiB extents (2021 MOVNTI table)" },
	[CMD_CALIBRATE] = { "calibrate", cmd_calibrate,
			    "measure where streaming wins, write thresholds" },
	[CMD_VERSUS] = { "versus", cmd_versus,
			 "fm_memcpy/fm_memset vs glibc, one compact table" },
	[CMD_RESIDENCY] = { "residency", cmd_residency,
			    "1-64 MiB copies/sets, data cached or cold, "
			    "read back" },
	[CMD_REPLAY] = { "replay", cmd_replay,
			 "replay recorded call sizes (FASTMEM_TRACE files)" },
	[CMD_PARALLEL] = { "parallel", cmd_parallel,
			   "the *_parallel calls by thread count vs glibc" },
};

enum {
	O_CSV = 256,
	O_JSON,
	O_PLOT,
	O_PROGRESS,
	O_NO_PROGRESS,
	O_REGION,
	O_BATCH,
	O_NO_THP,
	O_MAX,
	O_ALIGN,
	O_MODE,
	O_PAGES,
	O_DRY_RUN,
	O_SYSTEM,
	O_BASIS,
	O_BYTE,
	O_THREADS,
	O_TRACE,
	O_PARALLEL,
	O_PEER,
	O_FIXED,
};

static const struct option long_opts[] = {
	{ "variant", required_argument, 0, 'v' },
	{ "sizes", required_argument, 0, 's' },
	{ "reps", required_argument, 0, 'r' },
	{ "quick", no_argument, 0, 'q' },
	{ "csv", no_argument, 0, O_CSV },
	{ "json", no_argument, 0, O_JSON },
	{ "plot", required_argument, 0, O_PLOT },
	{ "progress", no_argument, 0, O_PROGRESS },
	{ "no-progress", no_argument, 0, O_NO_PROGRESS },
	{ "region", required_argument, 0, O_REGION },
	{ "batch", required_argument, 0, O_BATCH },
	{ "no-thp", no_argument, 0, O_NO_THP },
	{ "max", required_argument, 0, O_MAX },
	{ "align", required_argument, 0, O_ALIGN },
	{ "mode", required_argument, 0, O_MODE },
	{ "pages", required_argument, 0, O_PAGES },
	{ "dry-run", no_argument, 0, O_DRY_RUN },
	{ "system", no_argument, 0, O_SYSTEM },
	{ "basis", required_argument, 0, O_BASIS },
	{ "byte", required_argument, 0, O_BYTE },
	{ "threads", required_argument, 0, O_THREADS },
	{ "trace", required_argument, 0, O_TRACE },
	{ "parallel", no_argument, 0, O_PARALLEL },
	{ "peer", required_argument, 0, O_PEER },
	{ "no-fixed", no_argument, 0, O_FIXED },
	{ "help", no_argument, 0, 'h' },
	{ "version", no_argument, 0, 'V' },
	{ 0, 0, 0, 0 },
};

/* Which subcommands take each option (by option value). */
static unsigned applies(int o)
{
	switch (o) {
	case 'v':
		return B(CMD_COPY) | B(CMD_SET) | B(CMD_PAGE) |
		       B(CMD_READBACK) | B(CMD_EXTENT) | B(CMD_REPLAY);
	case 's':
	case O_MAX:
		return SIZED &
		       ~(o == O_MAX ? B(CMD_VERSUS) | B(CMD_RESIDENCY) : 0);
	case O_PLOT:
		return SIZED;
	case O_REGION:
		return B(CMD_COPY) | B(CMD_SET) | B(CMD_PAGE) |
		       B(CMD_CALIBRATE) | B(CMD_VERSUS) | B(CMD_RESIDENCY) |
		       B(CMD_REPLAY) | B(CMD_PARALLEL);
	case O_ALIGN:
		return B(CMD_COPY) | B(CMD_SET);
	case O_MODE:
		return B(CMD_COPY) | B(CMD_SET) | B(CMD_PAGE) |
		       B(CMD_CALIBRATE) | B(CMD_PARALLEL);
	case O_THREADS:
		return B(CMD_PARALLEL);
	case O_PAGES:
		return B(CMD_READBACK);
	case O_BYTE:
		return B(CMD_SET) | B(CMD_REPLAY);
	case O_PEER:
	case O_FIXED:
		return B(CMD_REPLAY);
	case O_DRY_RUN:
	case O_SYSTEM:
	case O_BASIS:
	case O_TRACE:
	case O_PARALLEL:
		return B(CMD_CALIBRATE);
	default:
		return ALL_CMDS;
	}
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: fastmem-bench SUBCOMMAND [OPTIONS]\n"
		   "       fastmem-bench SUBCOMMAND --help | help SUBCOMMAND\n"
		   "       fastmem-bench --help | --version\n\n"
		   "Measure libfastmem's variants (every one in the library's "
		   "registry that this\nCPU can run) against the system libc, "
		   "with medians of interleaved runs.\n\nSubcommands:\n");
	for (int i = 0; i < CMD_COUNT; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f,
		"\nCommon options:\n"
		"  -q, --quick          fewer sizes and runs: each subcommand "
		"in under a minute\n"
		"  -r, --reps N         timed runs per cell (default 11, "
		"--quick 5)\n"
		"      --batch USEC     length of one timed run (default 1000, "
		"--quick 200)\n"
		"      --csv, --json    machine-readable output instead of "
		"tables\n"
		"      --progress       progress on stderr even when it is not "
		"a terminal\n"
		"      --no-progress    never show progress\n"
		"      --no-thp         do not advise transparent huge pages "
		"for the buffers\n"
		"  -h, --help           help (for a subcommand: its options)\n"
		"  -V, --version        print the version\n\n"
		"Configuration written by calibrate: $FASTMEM_CONFIG, else\n"
		"$XDG_CONFIG_HOME/fastmem/fastmem.conf, else "
		"$HOME/.config/fastmem/fastmem.conf.\n"
		"Exit status: 0 ok, 1 a variant gave a wrong result or an "
		"error, 2 bad usage.\nSee fastmem-bench(1).\n");
}

static void help_variant(FILE *f)
{
	fprintf(f, "  -v, --variant NAME   only this row (repeatable): a "
		   "registry variant, fm_* for\n"
		   "                       the dispatched call, or fm for "
		   "every fm_* row; libc\n"
		   "                       (the reference) is always "
		   "measured\n");
}

static void help_out(FILE *f, int plot)
{
	if (plot)
		fprintf(f, "      --plot FILE      also draw GB/s against size "
			   "(FILE.svg or FILE.png; needs\n"
			   "                       gnuplot)\n");
	fprintf(f, "  -q, --quick          -r, --reps N   --batch USEC   --csv "
		   "  --json   --progress\n"
		   "      --no-progress    --no-thp   -h, --help   (see "
		   "fastmem-bench --help)\n");
}

static void cmd_usage(FILE *f, enum cmd c)
{
	switch (c) {
	case CMD_COPY:
		fprintf(f,
			"Usage: fastmem-bench copy [OPTIONS]\n\n"
			"memcpy bandwidth (GB/s) by size and "
			"source-destination "
			"alignment in three\nmodes (the 2008 Cell thread's "
			"benchmark): memory-to-memory (source and\n"
			"destination swept over a region far larger than the "
			"caches), cache-to-memory\n(source fixed, destination "
			"swept) and cache-to-cache (the same buffers every\n"
			"call).  Rows: the system memcpy, fm_memcpy and every "
			"usable memcpy variant.\n\n");
		help_variant(f);
		fprintf(f,
			"  -s, --sizes LIST     sizes, e.g. 16,64,4K,1M "
			"(default "
			"16 B .. 16 MiB as in the\n"
			"                       seed; --quick fewer)\n"
			"      --max SIZE       extend (or cut) the default "
			"sizes "
			"up to SIZE, e.g. 256M\n"
			"      --align LIST     src-dst offset pairs (default "
			"0-0,0-4092,7-0,0-7,17-11)\n"
			"      --mode LIST      mem-mem,cache-mem,cache-cache "
			"(default all three)\n"
			"      --region SIZE    memory swept in "
			"mem-mem/cache-mem "
			"mode, source plus\n"
			"                       destination (default 1G, "
			"--quick "
			"256M)\n");
		help_out(f, 1);
		break;
	case CMD_SET:
		fprintf(f,
			"Usage: fastmem-bench set [OPTIONS]\n\n"
			"memset bandwidth (GB/s) by size and destination "
			"alignment, to memory (the\ndestination swept over a "
			"large region) and to cache (the same buffer every\n"
			"call).  Rows: the system memset, fm_memset and every "
			"usable memset variant.\n\n");
		help_variant(f);
		fprintf(f,
			"  -s, --sizes LIST     sizes (default 16 B .. 16 "
			"MiB)\n"
			"      --max SIZE       extend (or cut) the default "
			"sizes "
			"up to SIZE\n"
			"      --align LIST     destination offsets (default "
			"0,4092,7)\n"
			"      --mode LIST      memory,cache (default both)\n"
			"      --region SIZE    memory swept in memory mode "
			"(default 1G, --quick 256M)\n"
			"      --byte N         the byte to set, 0..255 "
			"(default "
			"0; some memory\n"
			"                       systems write zeroes "
			"faster)\n");
		help_out(f, 1);
		break;
	case CMD_PAGE:
		fprintf(f,
			"Usage: fastmem-bench page [OPTIONS]\n\n"
			"ns (and timestamp-counter ticks on x86) per 4 KiB "
			"page "
			"for every copy_page\nand clear_page variant and "
			"fm_copy_page/fm_clear_page, against the system\n"
			"memcpy/memset of 4096 bytes; hot (the same page every "
			"call) and cold (pages\nswept over a large region), as "
			"in the 2005 x86-64 SSE page thread.\n\n");
		help_variant(f);
		fprintf(f, "      --mode LIST      hot,cold (default both)\n"
			   "      --region SIZE    memory swept when cold "
			   "(default "
			   "1G, --quick 256M)\n");
		help_out(f, 0);
		break;
	case CMD_READBACK:
		fprintf(f,
			"Usage: fastmem-bench readback [OPTIONS]\n\n"
			"The 2005 read-back experiments: clear N pages and "
			"read "
			"them all back\nafterwards, or clear and read back "
			"page "
			"by page; the same for copies.\nStreaming stores win "
			"when the pages are not read back soon and lose when\n"
			"they are.  ns per page, read-back included, for every "
			"clear_page and\ncopy_page variant, the fm_* calls and "
			"the system memset/memcpy.\n\n");
		help_variant(f);
		fprintf(f, "      --pages LIST     page counts N (default "
			   "1,100,4096; the seed used 100)\n");
		help_out(f, 0);
		break;
	case CMD_EXTENT:
		fprintf(f,
			"Usage: fastmem-bench extent [OPTIONS]\n\n"
			"Clear extents of 2 MiB to 1 GiB (the 2021 MOVNTI "
			"clear_page patch's table):\nevery clear_page variant "
			"(called on the whole extent), fm_clear_pages and\n"
			"the system memset, in GB/s.  The same extent is "
			"cleared in every run, so\nsmall extents stay in the "
			"caches and large ones do not.\n\n");
		help_variant(f);
		fprintf(f,
			"  -s, --sizes LIST     extents (default "
			"2M,16M,128M,1G)\n"
			"      --max SIZE       largest extent (default 1G)\n");
		help_out(f, 1);
		break;
	case CMD_CALIBRATE:
		fprintf(f,
			"Usage: fastmem-bench calibrate [OPTIONS]\n\n"
			"Find the size from which streaming stores beat "
			"ordinary ones on this\nmachine, for copies and for "
			"sets, hot (the same buffers every call) and\ncold "
			"(buffers swept over a large region).  Streaming is "
			"the selected policy\nwith FM_HINT_NONTEMPORAL against "
			"FM_HINT_TEMPORAL, or else the _nt variant\nof the "
			"selected family against the selected variant.  "
			"Prints the evidence and\nthe thresholds it "
			"recommends and writes them to the config file:\n"
			"  nt_threshold.memcpy, nt_threshold.memmove "
			"(copies),\n"
			"  nt_threshold.memset, nt_threshold.clear_page "
			"(sets).\n"
			"The file is $FASTMEM_CONFIG, else "
			"$XDG_CONFIG_HOME/fastmem/fastmem.conf,\nelse "
			"$HOME/.config/fastmem/fastmem.conf (the directory is "
			"created); other\nlines in it are kept.  New processes "
			"read it at startup (fastmem-info shows\n\"config "
			"(PATH)\"); this one keeps the thresholds it started "
			"with.\n\n"
			"      --dry-run        print, do not write the file\n"
			"      --system         write the system config "
			"instead (root only;\n"
			"                       fastmem-info shows its path), "
			"for every user and\n"
			"                       for privileged programs\n"
			"      --trace FILE     weigh the decisions by a "
			"program's recorded sizes\n"
			"                       (FASTMEM_TRACE or LLVM libc "
			"file; repeatable): also\n"
			"                       replay every memcpy/memset "
			"variant against the\n"
			"                       current one, and write a key "
			"only where the replay\n"
			"                       gains more than 2%%, the runs' "
			"range and an A/A\n"
			"                       control's noise, and loses in "
			"no file and arena\n"
			"      --parallel       also measure the *_parallel "
			"calls, cold, on 2..CPUs\n"
			"                       threads and write threads = N, "
			"the fewest threads\n"
			"                       within 3%% of the best (1 "
			"where "
			"none gains 5%%;\n"
			"                       nothing with one CPU)\n"
			"      --basis WHICH    both (default: streaming must "
			"win "
			"hot and cold), cold,\n"
			"                       or hot\n"
			"  -s, --sizes LIST     sizes to try (default "
			"4K..256M, "
			"--quick 4K..64M)\n"
			"      --max SIZE       largest size to try\n"
			"      --mode LIST      hot,cold (default both)\n"
			"      --region SIZE    memory swept when cold "
			"(default "
			"1G, --quick 512M)\n");
		help_out(f, 1);
		break;
	case CMD_VERSUS:
		fprintf(f,
			"Usage: fastmem-bench versus [OPTIONS]\n\n"
			"fm_memcpy/fm_memset against glibc in one interleaved "
			"run, compact enough\nfor a README: hot copies 8 B..32 "
			"MiB aligned and misaligned (src+7, dst+13);\ncold "
			"copies and sets of 1..256 MiB swept over 2 x 1 GiB; "
			"fm_clear_pages over\n64 MiB and more against memset "
			"(cold); one page cleared and read back at\nonce, "
			"fm_clear_page against rep stosb (x86) and memset.\n\n"
			"  -s, --sizes LIST     hot copy sizes (default 8 B .. "
			"32 MiB by 4x)\n"
			"      --region SIZE    memory swept when cold, source "
			"plus destination\n"
			"                       (default 2G, at least 1G per "
			"side)\n");
		help_out(f, 1);
		break;
	case CMD_RESIDENCY:
		fprintf(f,
			"Usage: fastmem-bench residency [OPTIONS]\n\n"
			"Copies and sets by where the data is: source and "
			"destination each cached\n(the same buffer every "
			"call) or cold (swept over a region far larger than\n"
			"the caches), alone or followed by reading the whole "
			"destination back.\nRows: the system routine, "
			"fm_memcpy/fm_memset as dispatched, and the policy\n"
			"forced temporal and forced streaming "
			"(fm_*_hint), interleaved; GB/s with\nthe read-back "
			"included.  Streaming should win cold and lose when "
			"the data\nis in use; the dispatched call should "
			"match the better of the two.\n\n"
			"  -s, --sizes LIST     sizes (default 1M..64M by 2x, "
			"--quick 1M,4M,16M,64M)\n"
			"      --region SIZE    memory swept per buffer when "
			"cold (default 1G,\n"
			"                       --quick 512M)\n");
		help_out(f, 1);
		break;
	case CMD_REPLAY:
		fprintf(f,
			"Usage: fastmem-bench replay [OPTIONS] [FILE...]\n\n"
			"Replay the call sizes of a real program: each FILE is "
			"a FASTMEM_TRACE file\n(FASTMEM_TRACE=/tmp/t.%%p "
			"LD_PRELOAD=libfastmem-preload.so PROGRAM) or\nLLVM "
			"libc's format (one line of comma-separated "
			"probabilities for sizes\n0, 1, 2, ...).  A fixed-seed "
			"sequence of sizes and offsets runs through\nthe "
			"system memcpy/memset, fm_memcpy/fm_memset and any -v "
			"variant,\ninterleaved, with the buffers in an "
			"L1-sized "
			"arena, one of half the last-\nlevel cache and one in "
			"memory: ns per call and the ratio to the system\n"
			"routine.  Without FILE: the distributions shipped in "
			"%s,\ntwo corpora, each in its own tables: five "
			"recorded programs (traces) and\nthe nine memcpy and "
			"nine memset size distributions Google published from "
			"its\nfleet (fleet/, LLVM libc's benchmark corpus); "
			"then hot fixed sizes 1 B-64 KiB,\naligned and "
			"misaligned.\n\n",
			FM_DISTDIR);
		help_variant(f);
		fprintf(f,
			"      --region SIZE    the memory arena (default "
			"1G, --quick 256M)\n"
			"      --byte N         the byte memset writes "
			"(default 0)\n"
			"      --peer NAME=LIB  also measure NAME_memcpy and "
			"NAME_memset from the shared\n"
			"                       library LIB (repeatable, at "
			"most %d): another memcpy\n"
			"                       library, in the same "
			"interleaved run\n"
			"      --no-fixed       leave out the fixed-size "
			"tables\n",
			MAX_PEERS);
		help_out(f, 0);
		break;
	case CMD_PARALLEL:
		fprintf(f,
			"Usage: fastmem-bench parallel [OPTIONS]\n\n"
			"fm_memcpy_parallel, fm_memset_parallel and "
			"fm_clear_pages_parallel against\nthe thread count, "
			"interleaved in one run with the system libc's "
			"memcpy/memset\nand the single-threaded fm_memcpy, "
			"fm_memset and fm_clear_pages: GB/s\n(median) and "
			"the ratios of the automatic count (auto) to libc "
			"and to the\nsingle-threaded call.\n\n"
			"  -s, --sizes LIST     sizes (default 64M,256M,512M,"
			"1G; --quick 64M,256M)\n"
			"      --max SIZE       largest default size\n"
			"      --threads LIST   thread counts, 0 for automatic "
			"(default 2..CPUs,\n"
			"                       2 x CPUs when that is at most "
			"8, "
			"and 0)\n"
			"      --mode LIST      cold (default: buffers swept "
			"over the region), hot\n"
			"      --region SIZE    memory swept when cold, source "
			"plus destination\n"
			"                       (default 4G, and 4 x the "
			"largest size)\n");
		help_out(f, 1);
		break;
	default:
		usage(f);
	}
}

static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "fastmem-bench %s: ", opt.cmd_name);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	cmd_usage(stderr, opt.cmd);
	exit(2);
}

static void parse_sizes(const char *arg, size_t *out, int *n, int max)
{
	char buf[1024], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t v;

		if (parse_size(tok, &v) || !v)
			bad("bad size '%s' (bytes with an optional K, M or G "
			    "suffix, e.g. 4K)",
			    tok);
		if (*n >= max)
			bad("too many sizes in '%s'", arg);
		out[(*n)++] = v;
	}
	if (!*n)
		bad("empty list '%s'", arg);
}

static void parse_threads(const char *arg)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	opt.nthreads = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (end == tok || *end || v < 0 || v > 256)
			bad("--threads: bad count '%s' (0 for automatic, or "
			    "1 to 256)",
			    tok);
		if (opt.nthreads >= 12)
			bad("--threads: at most 12 counts in '%s'", arg);
		opt.threads[opt.nthreads++] = (unsigned)v;
	}
	if (!opt.nthreads)
		bad("--threads: empty list '%s'", arg);
}

static void parse_align(const char *arg)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	opt.nalign = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long a = strtoul(tok, &end, 10), b = a;

		if (end == tok)
			bad("bad alignment '%s' (SRC-DST offsets, e.g. 7-0)",
			    tok);
		if (*end == '-') {
			char *e2;
			b = strtoul(end + 1, &e2, 10);
			if (e2 == end + 1 || *e2)
				bad("bad alignment '%s' (SRC-DST offsets, e.g. "
				    "7-0)",
				    tok);
		} else if (*end) {
			bad("bad alignment '%s' (SRC-DST offsets, e.g. 7-0)",
			    tok);
		} else if (opt.cmd == CMD_COPY) {
			a = 0; /* one number: the destination offset */
		}
		if (a >= PAGE || b >= PAGE)
			bad("alignment offsets must be below 4096: '%s'", tok);
		if (opt.nalign >= 8)
			bad("at most 8 alignments: '%s'", arg);
		opt.align_src[opt.nalign] = a;
		opt.align_dst[opt.nalign] = b;
		opt.nalign++;
	}
	if (!opt.nalign)
		bad("empty alignment list '%s'", arg);
}

static void parse_modes(const char *arg)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	opt.modes = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned m = 0;

		if (!strcmp(tok, "cold") ||
		    (opt.cmd == CMD_COPY && !strcmp(tok, "mem-mem")) ||
		    (opt.cmd == CMD_SET && !strcmp(tok, "memory")))
			m = 1;
		else if (opt.cmd == CMD_COPY &&
			 (!strcmp(tok, "cache-mem") || !strcmp(tok, "warm")))
			m = 2;
		else if (!strcmp(tok, "hot") ||
			 (opt.cmd == CMD_COPY && !strcmp(tok, "cache-cache")) ||
			 (opt.cmd == CMD_SET && !strcmp(tok, "cache")))
			m = 4;
		if (!m)
			bad(opt.cmd == CMD_COPY
				    ? "bad mode '%s' (mem-mem, cache-mem, "
				      "cache-cache)"
			    : opt.cmd == CMD_SET
				    ? "bad mode '%s' (memory, cache)"
				    : "bad mode '%s' (hot, cold)",
			    tok);
		opt.modes |= m;
	}
}

static int find_cmd(const char *name)
{
	for (int i = 0; i < CMD_COUNT; i++)
		if (!strcmp(name, cmds[i].name))
			return i;
	return -1;
}

static const char *opt_name(int o)
{
	for (const struct option *p = long_opts; p->name; p++)
		if (p->val == o)
			return p->name;
	return "?";
}

int main(int argc, char **argv)
{
	int c, rc;

	opt.progress = -1;
	opt.thp = 1;
	opt.cmd_name = "";
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("fastmem-bench %s (libfastmem %s)\n", PACKAGE_VERSION,
		       fm_version());
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc == 2) {
			usage(stdout);
			return 0;
		}
		c = find_cmd(argv[2]);
		if (c < 0 || argc > 3) {
			fprintf(stderr, "fastmem-bench: no subcommand '%s'\n",
				argv[2]);
			usage(stderr);
			return 2;
		}
		cmd_usage(stdout, c);
		return 0;
	}
	c = find_cmd(argv[1]);
	if (c < 0) {
		fprintf(stderr, "fastmem-bench: no subcommand '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	opt.cmd = c;
	opt.cmd_name = cmds[c].name;

	argv++;
	argc--;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":v:s:r:qhV", long_opts, 0)) !=
	       -1) {
		char *end;
		size_t v;

		if (c == '?' || c == ':') {
			char o[64];
			const char *arg = argv[optind - 1];

			if (optopt && optopt < 256 && arg[0] == '-' &&
			    arg[1] != '-')
				snprintf(o, sizeof(o), "-%c", optopt);
			else
				snprintf(o, sizeof(o), "%.*s",
					 (int)strcspn(arg, "="), arg);
			bad(c == ':' ? "option %s needs an argument"
				     : "unknown option %s",
			    o);
		}
		if (!(applies(c) & B(opt.cmd))) {
			char o[64];
			snprintf(o, sizeof(o), "--%s", opt_name(c));
			bad("option %s does not apply to this subcommand", o);
		}
		switch (c) {
		case 'v':
			if (opt.nvariants >= MAX_VARIANT_ARGS)
				bad("too many --variant options%s", "");
			opt.variants[opt.nvariants++] = optarg;
			break;
		case 's':
			parse_sizes(optarg, opt.sizes, &opt.nsizes, MAX_POINTS);
			break;
		case 'r':
			opt.reps = (int)strtol(optarg, &end, 10);
			if (*end || opt.reps < 1 || opt.reps > 10000)
				bad("--reps '%s': a number from 1 to 10000",
				    optarg);
			break;
		case 'q':
			opt.quick = 1;
			break;
		case O_CSV:
			opt.format = OUT_CSV;
			break;
		case O_JSON:
			opt.format = OUT_JSON;
			break;
		case O_PLOT:
			opt.plot = optarg;
			break;
		case O_PROGRESS:
			opt.progress = 1;
			break;
		case O_NO_PROGRESS:
			opt.progress = 0;
			break;
		case O_REGION:
			if (parse_size(optarg, &v) || v < 16 * MIB)
				bad("--region '%s': a size of at least 16M",
				    optarg);
			opt.region = v;
			break;
		case O_BATCH:
			opt.batch_ns = strtod(optarg, &end) * 1e3;
			if (*end || opt.batch_ns < 10e3 || opt.batch_ns > 10e9)
				bad("--batch '%s': microseconds, 10 to "
				    "10000000",
				    optarg);
			break;
		case O_NO_THP:
			opt.thp = 0;
			break;
		case O_MAX:
			if (parse_size(optarg, &v) || v < 16)
				bad("--max '%s': a size such as 256M", optarg);
			opt.max = v;
			break;
		case O_ALIGN:
			parse_align(optarg);
			break;
		case O_MODE:
			parse_modes(optarg);
			break;
		case O_PAGES:
			parse_sizes(optarg, opt.sizes, &opt.nsizes, MAX_POINTS);
			break;
		case O_DRY_RUN:
			opt.dry_run = 1;
			break;
		case O_SYSTEM:
			opt.system = 1;
			break;
		case O_BYTE:
			v = strtoul(optarg, &end, 0);
			if (*end || !*optarg || v > 255)
				bad("--byte '%s': a number from 0 to 255",
				    optarg);
			opt.byte = (int)v;
			break;
		case O_THREADS:
			parse_threads(optarg);
			break;
		case O_TRACE:
			if (opt.ntraces >= 32)
				bad("at most 32 --trace files%s", "");
			opt.traces[opt.ntraces++] = optarg;
			break;
		case O_PARALLEL:
			opt.calib_parallel = 1;
			break;
		case O_PEER: {
			char err[512], msg[1200];

			if (peer_load(optarg, err, sizeof(err))) {
				snprintf(msg, sizeof(msg), "--peer '%s': %s",
					 optarg, err);
				bad("%s", msg);
			}
			break;
		}
		case O_FIXED:
			opt.no_fixed = 1;
			break;
		case O_BASIS:
			if (!strcmp(optarg, "both"))
				opt.basis = BASIS_BOTH;
			else if (!strcmp(optarg, "hot"))
				opt.basis = BASIS_HOT;
			else if (!strcmp(optarg, "cold"))
				opt.basis = BASIS_COLD;
			else
				bad("--basis '%s': both, hot or cold", optarg);
			break;
		case 'h':
			cmd_usage(stdout, opt.cmd);
			return 0;
		case 'V':
			printf("fastmem-bench %s (libfastmem %s)\n",
			       PACKAGE_VERSION, fm_version());
			return 0;
		}
	}
	if (opt.cmd == CMD_REPLAY) {
		opt.files = argv + optind;
		opt.nfiles = argc - optind;
	} else if (optind < argc) {
		bad("unexpected argument '%s'", argv[optind]);
	}
	if (opt.plot)
		plot_check();

	if (opt.cmd == CMD_CALIBRATE && (rc = calibrate_check()))
		return rc;
	if (opt.cmd == CMD_REPLAY && replay_prepare())
		return 2;
	install_crash_handler();
	bench_start = now_ns();
	print_header();
	rc = cmds[opt.cmd].run();
	output_finish();
	if (opt.plot && plot_write() && !rc)
		rc = 1;
	if (bench_failed) {
		fprintf(stderr, "fastmem-bench: some variants gave WRONG "
				"results (see above)\n");
		if (!rc)
			rc = 1;
	}
	if (fflush(stdout) || ferror(stdout))
		rc = 1;
	return rc;
}
