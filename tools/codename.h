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
 *
 * AMD's rows score on the base family (0xf for every CPU since the K8),
 * the base model, the extended family and model, cores, caches and brand,
 * so a family libcpuid has no rows for scores best on some older family's
 * row: 0.6.2 has none above family 0x19 (Zen 3/4) and calls a family 0x1a
 * (Zen 5) model 2, the EPYC "Turin" this was written on, "Abu Dhabi", the
 * family 0x15 Opteron 6300 row whose base family (0xf), model (2) and
 * extended model (2) it matches; a Zen 5 EPYC of model 0x11 it calls "K5".
 * Each of libcpuid 0.6.2's AMD names belongs to one family, listed below;
 * a name given to a CPU of another family is a guess.  Names not listed
 * (those of a newer libcpuid, Zen 5's among them) are believed.
 */
#ifndef FASTMEM_TOOLS_CODENAME_H
#define FASTMEM_TOOLS_CODENAME_H

#include <string.h>

/* Whose rows named the CPU (Hygon's are AMD's). */
enum codename_vendor { CODENAME_OTHER, CODENAME_INTEL, CODENAME_AMD };

/* The (display) family of libcpuid 0.6.2's AMD name, -1 for one not listed.
 * Newest family first, so "Magny-Cours Opteron" and "Turion X2 (Griffin)"
 * are found before the K8's "Opteron" and "Turion". */
static inline int codename_amd_family(const char *name)
{
	static const struct {
		int family;
		const char *names[17]; /* up to 16, then NULL */
	} rows[] = {
		{ 0x19,
		  { "Milan", "Chagall", "Vermeer", "Cezanne", "Rembrandt",
		    "Raphael" } },
		{ 0x18, { "Dhyana" } },
		{ 0x17,
		  { "Naples", "Whitehaven", "Summit Ridge", "Raven Ridge",
		    "Dali", "Colfax", "Pinnacle Ridge", "Picasso", "Rome",
		    "Castle Peak", "Matisse", "Renoir", "Lucienne", "Zen 2",
		    "Van Gogh", "Mendocino" } },
		{ 0x16, { "Kabini", "Mullins", "Beema", "Steppe Eagle" } },
		{ 0x15,
		  { "Bulldozer", "Zambezi", "Interlagos", "Vishera", "Trinity",
		    "Richland", "Abu Dhabi", "Kaveri", "Godavari", "Bald Eagle",
		    "Carrizo", "Bristol Ridge", "Stoney Ridge" } },
		{ 0x14, { "Brazos" } },
		{ 0x12, { "Llano" } },
		{ 0x11, { "Griffin" } },
		{ 0x10,
		  { "K9", "Phenom", "Kuma", "Sargas", "Athlon II",
		    "Magny-Cours" } },
		{ 0xf,
		  { "K8", "A64", "Athlon 64", "Athlon FX", "Opteron",
		    "Sempron 64", "Sempron Dual", "Turion" } },
		{ 6,
		  { "Unknown Athlon", "Slot-A", "Spitfire", "ThunderBird",
		    "Palomino", "Athlon XP", "Morgan", "Thoroughbred",
		    "Applebred", "T-Bred", "Barton", "Thorton" } },
		{ 5, { "K5", "K6", "586" } },
		{ 4, { "486" } },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		for (size_t j = 0; rows[i].names[j]; j++)
			if (strstr(name, rows[i].names[j]))
				return rows[i].family;
	return -1;
}

/* 1: the name is one of libcpuid's rows for Intel family 6 models 0x0-0xf,
 * given to a CPU that is not one of them, or one of its AMD rows, given to
 * a CPU of another family. */
static inline int codename_is_guess(int vendor, int family, int model,
				    const char *name)
{
	static const char *const old_rows[] = {
		"Unknown P6",  "Pentium Pro",	 "Pentium II", "P-II",
		"Pentium III", "P-III",		 "Pentium M",  "Celeron M",
		"Yonah",       "Unknown Core 2", "Conroe",     "Kentsfield",
		"Allendale",   "Merom",		 "Xeon LV",    "Woodcrest",
		"Clovertown",  "Banias",	 "Dothan",
	};

	if (vendor == CODENAME_AMD) {
		int own = codename_amd_family(name);

		return own >= 0 && own != family;
	}
	if (vendor != CODENAME_INTEL || family != 6 || model < 0x17)
		return 0;
	for (size_t i = 0; i < sizeof(old_rows) / sizeof(old_rows[0]); i++)
		if (strstr(name, old_rows[i]))
			return 1;
	return 0;
}

#endif
