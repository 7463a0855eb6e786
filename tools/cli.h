/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench's command line: the subcommands, the options and which
 * subcommands take each, shared by the parser (fastmem-bench.c) and the
 * help (fastmem-bench-help.c), so that the two cannot disagree.
 */
#ifndef FASTMEM_BENCH_CLI_H
#define FASTMEM_BENCH_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "bench.h"

#define B(c) (1u << (c))
#define ALL_CMDS (B(CMD_COUNT) - 1)
/* the subcommands that measure memory routines (all but run) */
#define MEASURING (ALL_CMDS & ~B(CMD_RUN))

struct cmd_info {
	const char *name;
	int (*run)(void);
	const char *args;    /* after the options in the usage line */
	const char *summary; /* one line, for fastmem-bench --help */
	const char *text;    /* what it measures, for its --help */
};
extern const struct cmd_info cmds[CMD_COUNT];

/* Option keys beyond the short letters (v, s, r, q, h, V). */
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
	O_RUNS,
	O_WITH_ENV,
	O_PRELOAD,
};

extern const struct option long_opts[];
/* The subcommands that take option key o (a mask of B(CMD_...)). */
unsigned option_applies(int o);
/* --name of option key o. */
const char *option_name(int o);

void usage(FILE *f);
void cmd_usage(FILE *f, enum cmd c);

#endif /* FASTMEM_BENCH_CLI_H */
