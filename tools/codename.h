/* SPDX-License-Identifier: MIT */
/*
 * Whether libcpuid's codename for this CPU can be believed.
 *
 * libcpuid names a CPU by the best-scoring row of its table.  Its rows for
 * Intel family 6 CPUs before 2008 give only the low four bits of the model,
 * so a model newer than its database scores best on one of them: 0.6.2
 * calls family 6 model 207 (0xcf, a 2024 Xeon) "Xeon (Conroe/2M)", the row
 * of model 15.  A row that knows the model by its whole number stops
 * matching when the model's high nibble changes, so: identify again with
 * that nibble set to 0xf (no such model exists yet) and believe the name
 * only if it changes.  AMD rows name a family (ext_family) and a model
 * range, and an unknown model falls back to its family's name, which is
 * not wrong in the same way, so they are taken as they are.
 */
#ifndef FASTMEM_TOOLS_CODENAME_H
#define FASTMEM_TOOLS_CODENAME_H

#include <libcpuid.h>
#include <string.h>

static inline void codename_set_model(struct cpu_raw_data_t *raw,
				      unsigned model)
{
	uint32_t *eax = &raw->basic_cpuid[1][0];

	*eax = (*eax & ~0xf00f0u) | (model & 0xfu) << 4 |
	       (model >> 4 & 0xfu) << 16;
}

/* 1: libcpuid knows this model by its number; 0: its codename is a guess
 * from an older model's row. */
static inline int codename_known(const struct cpu_raw_data_t *raw,
				 const struct cpu_id_t *id)
{
	struct cpu_raw_data_t other;
	struct cpu_id_t again;
	unsigned model = (unsigned)id->ext_model & 0xff;

	if (!id->cpu_codename[0] || !strncmp(id->cpu_codename, "Unknown", 7))
		return 0;
	if (id->vendor != VENDOR_INTEL || id->family != 6 || model < 16)
		return 1;
	other = *raw;
	codename_set_model(&other, (model >> 4) == 0xf ? 0xe0 | (model & 0xf)
						       : 0xf0 | (model & 0xf));
	if (cpu_identify(&other, &again))
		return 1;
	return strcmp(again.cpu_codename, id->cpu_codename) != 0;
}

#endif
