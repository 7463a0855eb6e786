/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: measure libfastmem's variants against the system libc.
 * See fastmem-bench(1).  This file: the command line and the dispatch; the
 * subcommands, options and help are the tables of fastmem-bench-help.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct options opt;

/* A usage error: one line, naming the subcommand, pointing at its help. */
static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "fastmem-bench%s%s: ", opt.cmd_name[0] ? " " : "",
		opt.cmd_name);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see fastmem-bench %s%s--help)\n", opt.cmd_name,
		opt.cmd_name[0] ? " " : "");
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

/* One --align element: SRC-DST, or one number (the destination offset). */
static void parse_one_align(const char *tok, size_t *src, size_t *dst)
{
	char *end, *e2;
	unsigned long a = strtoul(tok, &end, 10), b = a;

	if (end == tok)
		bad("bad alignment '%s' (SRC-DST offsets, e.g. 7-0)", tok);
	if (*end == '-') {
		b = strtoul(end + 1, &e2, 10);
		if (e2 == end + 1 || *e2)
			bad("bad alignment '%s' (SRC-DST offsets, e.g. 7-0)",
			    tok);
	} else if (*end) {
		bad("bad alignment '%s' (SRC-DST offsets, e.g. 7-0)", tok);
	} else if (opt.cmd == CMD_COPY) {
		a = 0;
	}
	if (a >= PAGE || b >= PAGE)
		bad("alignment offsets must be below 4096: '%s'", tok);
	*src = a;
	*dst = b;
}

static void parse_align(const char *arg)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	opt.nalign = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (opt.nalign >= 8)
			bad("at most 8 alignments: '%s'", arg);
		parse_one_align(tok, &opt.align_src[opt.nalign],
				&opt.align_dst[opt.nalign]);
		opt.nalign++;
	}
	if (!opt.nalign)
		bad("empty alignment list '%s'", arg);
}

/* The one --mode vocabulary, and the old spellings kept as aliases (copy's
 * mem-mem, cache-mem, cache-cache; set's memory, cache). */
static const struct {
	const char *name;
	unsigned mode;
} mode_names[] = {
	{ "cold", MODE_COLD },	    { "warm", MODE_WARM },
	{ "hot", MODE_HOT },	    { "mem-mem", MODE_COLD },
	{ "cache-mem", MODE_WARM }, { "cache-cache", MODE_HOT },
	{ "memory", MODE_COLD },    { "cache", MODE_HOT },
};

static void parse_modes(const char *arg)
{
	char buf[256], *save = NULL, *tok;
	unsigned valid = opt.cmd == CMD_COPY ? MODE_COLD | MODE_WARM | MODE_HOT
					     : MODE_COLD | MODE_HOT;

	snprintf(buf, sizeof(buf), "%s", arg);
	opt.modes = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned m = 0;

		for (size_t i = 0; i < sizeof(mode_names) / sizeof(*mode_names);
		     i++)
			if (!strcmp(tok, mode_names[i].name))
				m = mode_names[i].mode;
		if (!(m & valid))
			bad(opt.cmd == CMD_COPY
				    ? "--mode: bad mode '%s' (cold, warm, hot)"
				    : "--mode: bad mode '%s' (cold, hot)",
			    tok);
		opt.modes |= m;
	}
	if (!opt.modes)
		bad("--mode: empty list '%s'", arg);
}

static size_t parse_size_arg(const char *name, const char *arg, size_t min)
{
	size_t v;
	char msg[160];

	if (parse_size(arg, &v) || v < min) {
		char m[24];

		fmt_size_short(min, m, sizeof(m));
		snprintf(msg, sizeof(msg), "%s '%%s': a size of at least %s",
			 name, m);
		bad(msg, arg);
	}
	return v;
}

static long parse_number(const char *name, const char *arg, long lo, long hi)
{
	char *end, msg[160];
	long v = strtol(arg, &end, 0);

	if (end == arg || *end || v < lo || v > hi) {
		snprintf(msg, sizeof(msg), "%s '%%s': a number from %ld to %ld",
			 name, lo, hi);
		bad(msg, arg);
	}
	return v;
}

static void set_basis(const char *arg)
{
	if (!strcmp(arg, "both"))
		opt.basis = BASIS_BOTH;
	else if (!strcmp(arg, "hot"))
		opt.basis = BASIS_HOT;
	else if (!strcmp(arg, "cold"))
		opt.basis = BASIS_COLD;
	else
		bad("--basis '%s': both, hot or cold", arg);
}

static void set_peer(const char *arg)
{
	char err[512], msg[1200];

	if (peer_load(arg, err, sizeof(err))) {
		snprintf(msg, sizeof(msg), "--peer '%%s': %s", err);
		bad(msg, arg);
	}
}

static void set_format(enum out_format f)
{
	if (opt.format != OUT_TEXT && opt.format != f)
		bad("%s: --csv and --json are exclusive, give one",
		    "--csv --json");
	opt.format = f;
}

/* Options that take no value or a list: the rest of set_option. */
static void set_flag_or_list(int c, const char *arg)
{
	switch (c) {
	case 'v':
		if (opt.nvariants >= MAX_VARIANT_ARGS)
			bad("too many --variant options%s", "");
		opt.variants[opt.nvariants++] = arg;
		break;
	case 's':
	case O_PAGES:
		parse_sizes(arg, opt.sizes, &opt.nsizes, MAX_POINTS);
		break;
	case O_ALIGN:
		parse_align(arg);
		break;
	case O_MODE:
		parse_modes(arg);
		break;
	case O_THREADS:
		parse_threads(arg);
		break;
	case O_TRACE:
		if (opt.cmd == CMD_RUN && opt.ntraces)
			bad("run takes one --trace FILE%s", "");
		if (opt.ntraces >= 32)
			bad("at most 32 --trace files%s", "");
		opt.traces[opt.ntraces++] = arg;
		break;
	case O_PEER:
		set_peer(arg);
		break;
	case O_BASIS:
		set_basis(arg);
		break;
	case O_WITH_ENV:
		if (!strchr(arg, '=') || arg[0] == '=')
			bad("--with-env '%s': VAR=VALUE", arg);
		if (opt.nwith_env >= 16)
			bad("at most 16 --with-env variables%s", "");
		opt.with_env[opt.nwith_env++] = arg;
		break;
	case O_PRELOAD:
		opt.preload = arg;
		break;
	default:
		/* flags */
		opt.quick |= c == 'q';
		opt.dry_run |= c == O_DRY_RUN;
		opt.system |= c == O_SYSTEM;
		opt.calib_parallel |= c == O_PARALLEL;
		opt.no_fixed |= c == O_FIXED;
		if (c == O_NO_THP)
			opt.thp = 0;
		if (c == O_PROGRESS || c == O_NO_PROGRESS)
			opt.progress = c == O_PROGRESS;
	}
}

static void set_option(int c, const char *arg)
{
	char *end;

	switch (c) {
	case 'r':
		opt.reps = (int)parse_number("--reps", arg, 1, 10000);
		break;
	case O_BATCH:
		opt.batch_ns = strtod(arg, &end) * 1e3;
		if (end == arg || *end || !(opt.batch_ns >= 10e3) ||
		    opt.batch_ns > 10e9)
			bad("--batch '%s': microseconds, 10 to 10000000", arg);
		break;
	case O_REGION:
		opt.region = parse_size_arg("--region", arg, 16 * MIB);
		break;
	case O_MAX:
		opt.max = parse_size_arg("--max", arg, 16);
		break;
	case O_BYTE:
		opt.byte = (int)parse_number("--byte", arg, 0, 255);
		break;
	case O_RUNS:
		opt.runs = (int)parse_number("--runs", arg, 1, 1000);
		break;
	case O_CSV:
	case O_JSON:
		set_format(c == O_CSV ? OUT_CSV : OUT_JSON);
		break;
	case O_PLOT:
		opt.plot = arg;
		break;
	default:
		set_flag_or_list(c, arg);
	}
}

static void print_version(void)
{
	printf("fastmem-bench %s (libfastmem %s)\n", PACKAGE_VERSION,
	       fm_version());
}

/* The option getopt could not take, as the user spelled it. */
static void bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];
	char o[64];

	if (optopt && optopt < 256 && arg[0] == '-' && arg[1] != '-')
		snprintf(o, sizeof(o), "-%c", optopt);
	else
		snprintf(o, sizeof(o), "%.*s", (int)strcspn(arg, "="), arg);
	bad(c == ':' ? "option %s needs an argument" : "unknown option %s", o);
}

/* Parse the options after the subcommand; returns 0, or an exit status
 * for --help and --version (done). */
static int parse_options(int argc, char **argv)
{
	int c;

	/* run: the options end at PROGRAM (or --), whose own options
	 * follow it */
	const char *optstring =
		opt.cmd == CMD_RUN ? "+:v:s:r:qhV" : ":v:s:r:qhV";

	opterr = 0;
	while ((c = getopt_long(argc, argv, optstring, long_opts, 0)) != -1) {
		if (c == '?' || c == ':')
			bad_option(c, argv);
		if (!(option_applies(c) & B(opt.cmd))) {
			char o[64];

			snprintf(o, sizeof(o), "--%s", option_name(c));
			bad("option %s does not apply to this subcommand", o);
		}
		if (c == 'h') {
			cmd_usage(stdout, opt.cmd);
			return 1;
		}
		if (c == 'V') {
			print_version();
			return 1;
		}
		set_option(c, optarg);
	}
	if (opt.cmd == CMD_REPLAY) {
		opt.files = argv + optind;
		opt.nfiles = argc - optind;
	} else if (opt.cmd == CMD_RUN) {
		if (optind >= argc)
			bad("no PROGRAM to run%s", "");
		opt.argv_run = argv + optind;
		opt.argc_run = argc - optind;
	} else if (optind < argc) {
		bad("unexpected argument '%s'", argv[optind]);
	}
	return 0;
}

static int find_cmd(const char *name)
{
	for (int i = 0; i < CMD_COUNT; i++)
		if (!strcmp(name, cmds[i].name))
			return i;
	return -1;
}

/* fastmem-bench with no subcommand: --help, --version, help [CMD]. */
static int top_level(int argc, char **argv)
{
	if (argc < 2)
		bad("no subcommand given%s", "");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version();
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		int c = find_cmd(argv[2]);

		if (c < 0 || argc > 3)
			bad("no subcommand '%s'", argv[2]);
		cmd_usage(stdout, c);
		return 0;
	}
	bad("no subcommand '%s'", argv[1]);
	return 2;
}

/* Run the subcommand parsed into opt; its exit status. */
static int run(void)
{
	int rc;

	if (opt.plot)
		plot_check();
	if (opt.cmd == CMD_CALIBRATE && (rc = calibrate_check()))
		return rc;
	if (opt.cmd == CMD_REPLAY && replay_prepare())
		return 2;
	if (opt.cmd == CMD_RUN && run_prepare())
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

int main(int argc, char **argv)
{
	int c;

	opt.progress = -1;
	opt.thp = 1;
	opt.cmd_name = "";
	c = argc > 1 ? find_cmd(argv[1]) : -1;
	if (c < 0)
		return top_level(argc, argv);
	opt.cmd = c;
	opt.cmd_name = cmds[c].name;
	if (parse_options(argc - 1, argv + 1))
		return 0;
	return run();
}
