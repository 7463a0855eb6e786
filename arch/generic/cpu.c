/* SPDX-License-Identifier: MIT */
/* CPUs without a port: no features, cache sizes unknown (defaults apply). */
#include "internal.h"

uint32_t fm_arch_features(void)
{
	return 0;
}

void fm_arch_cache_info(struct fm_cache_info *ci)
{
	*ci = (struct fm_cache_info){ .line = 64 };
}

const char *fm_arch_notes(void)
{
	/* no residency probe here: streaming is decided by size alone */
	return "probe: none on this architecture (sizes decide)";
}

#if defined(__aarch64__)
/* lib/fastmem.c hands every aarch64 resolver's hwcap word here; the
 * portable build (configure --disable-arch-variants) has no use for it. */
void fm_arch_resolver_hwcap(uint64_t hwcap)
{
	(void)hwcap;
}
#endif
