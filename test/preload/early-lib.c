/*
 * early-lib.c - a shared library whose constructor copies and sets before
 * the program's own code runs (see early.c).
 */
#include "early-check.h"

char early_lib_line[160];

__attribute__((constructor)) static void early_lib_ctor(void)
{
	early_report(early_lib_line, sizeof(early_lib_line),
		     "library constructor");
}
