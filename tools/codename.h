/* SPDX-License-Identifier: MIT */
/*
 * Whether libcpuid's codename for this CPU can be believed.
 *
 * libcpuid names a CPU by the best-scoring row of its table.  The rows of
 * Intel's family 6 CPUs up to 2007 (Pentium Pro to Core 2, models 0x0-0xf)
 * match the model's low four bits, and for them alone, so a model newer
 * than libcpuid's database scores best on one of them: 0.6.2 calls family
 * 6 model 207 (0xcf, a 2024 Xeon) "Xeon (Conroe/2M)", the row of model 15,
 * and a Xeon Silver 4114's CPUID with its model set to 207 "Xeon
 * (Woodcrest)".  Those names are certain to be wrong for a model from 0x17
 * (Penryn, 2008) on; newer rows name their model by its whole number.
 * (Re-identifying with the model changed does not tell: the same row still
 * scores best on the brand and caches of a Skylake Xeon or a Kaby Lake.)
 * Atoms, whose rows also match the low nibble only, are named right by
 * them and are not listed.
 */
#ifndef FASTMEM_TOOLS_CODENAME_H
#define FASTMEM_TOOLS_CODENAME_H

#include <string.h>

/* 1: the name is one of libcpuid's rows for family 6 models 0x0-0xf, given
 * to a CPU that is not one of them. */
static inline int codename_is_guess(int intel, int family, int model,
				    const char *name)
{
	static const char *const old_rows[] = {
		"Unknown P6",  "Pentium Pro",	 "Pentium II", "P-II",
		"Pentium III", "P-III",		 "Pentium M",  "Celeron M",
		"Yonah",       "Unknown Core 2", "Conroe",     "Kentsfield",
		"Allendale",   "Merom",		 "Xeon LV",    "Woodcrest",
		"Clovertown",  "Banias",	 "Dothan",
	};

	if (!intel || family != 6 || model < 0x17)
		return 0;
	for (size_t i = 0; i < sizeof(old_rows) / sizeof(old_rows[0]); i++)
		if (strstr(name, old_rows[i]))
			return 1;
	return 0;
}

#endif
