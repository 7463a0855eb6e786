/*
 * early.c - memcpy and friends called at every stage of start-up: from the
 * program's .preinit_array (before any library constructor), from a shared
 * library's constructor (early-lib.c), from the program's own constructor,
 * and from main.  Prints one line per stage; exits 1 if any check failed.
 * The output is the same whether the functions are glibc's or
 * libfastmem-preload.so's, which test/preload/programs.sh compares.
 */
#include "early-check.h"

extern char early_lib_line[160];
static char preinit_line[160], ctor_line[160], main_line[160];

static void early_preinit(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	early_report(preinit_line, sizeof(preinit_line), "preinit_array");
}

typedef void preinit_fn(int, char **, char **);
__attribute__((section(".preinit_array"),
	       used)) static preinit_fn *const early_preinit_entry =
	early_preinit;

__attribute__((constructor(101))) static void early_ctor(void)
{
	early_report(ctor_line, sizeof(ctor_line), "program constructor");
}

int main(void)
{
	const char *lines[] = { preinit_line, early_lib_line, ctor_line,
				main_line };
	int bad = 0;

	early_report(main_line, sizeof(main_line), "main");
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		puts(lines[i][0] ? lines[i] : "(a stage did not run)");
		bad |= !lines[i][0] || strstr(lines[i], "FAILED") != NULL;
	}
	return bad;
}
