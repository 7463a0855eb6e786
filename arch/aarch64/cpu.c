/* SPDX-License-Identifier: MIT */
/*
 * AArch64 detection, safe inside an ifunc resolver: no libc, no getauxval,
 * no relocated pointer (and, built with RESOLVER_CFLAGS, no jump table).
 *
 *  - AT_HWCAP (HWCAP_SVE) comes from /proc/self/auxv through raw system
 *    calls, or, where that cannot be read, from the hwcap word glibc passes
 *    each resolver (lib/fastmem.c hands it over first).  Advanced SIMD is
 *    part of the AArch64 Linux ABI and needs no check.
 *  - DC ZVA is probed, not trusted (docs/design.md, the same rule as dcbz):
 *    DCZID_EL0, readable at EL0, gives the block size and whether the
 *    instruction is prohibited (DZP); one DC ZVA on a scratch area of 0xff
 *    bytes must then zero exactly that many bytes, aligned, and nothing
 *    around them.  Only then is the feature set and the size published to
 *    the zva variants.
 *  - The data cache line comes from CTR_EL0.DminLine (readable at EL0 on
 *    Linux).  The kernel passes no cache sizes in the auxiliary vector on
 *    arm64, so the thresholds are the defaults for a 1 MiB L2
 *    (FM_ASSUMED_L2; fastmem-info says "L2 unknown" and "cache sizes
 *    unknown"), to be set by FASTMEM_NT_THRESHOLD or fastmem-bench
 *    calibrate.  /sys/devices/system/cpu/cpu0/cache is not read for them:
 *    under qemu-user it is the host's (an aarch64 program under
 *    qemu-aarch64 on the x86 CI machine read its 2048K L2), cpu0 need not
 *    be the kind of core the process runs on (big.LITTLE), and containers
 *    may hide /sys.
 */
#include "aarch64.h"
#include "detect.h"

#define AT_HWCAP_ 16
#define AT_HWCAP2_ 26

#define HWCAP_SVE_ (1ull << 22)
/* glibc marks the hwcap word it passes a resolver with this bit */
#define IFUNC_ARG_HWCAP_ (1ull << 62)

#define DCZID_DZP (1u << 4)
#define DCZID_BS(v) ((v)&15u)

unsigned fm_aarch64_zva_bytes;

/* The resolver's hwcap word, and whether one was given (set once). */
static uint64_t resolver_hwcap;
static int resolver_hwcap_given;

void fm_arch_resolver_hwcap(uint64_t hwcap)
{
	if (__atomic_load_n(&resolver_hwcap_given, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&resolver_hwcap, hwcap & ~IFUNC_ARG_HWCAP_,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&resolver_hwcap_given, 1, __ATOMIC_RELEASE);
}

struct a64_info {
	uint64_t hwcap, hwcap2;
	uint64_t dczid, ctr;
	unsigned zva_reported; /* DCZID_EL0's block size, 0 if prohibited */
	unsigned zva_probe;    /* bytes one DC ZVA zeroed, 0 not probed/odd */
	unsigned zva;	       /* the verified block size, or 0 */
	uint32_t features;
	int auxv; /* /proc/self/auxv was read */
	int hwcap_from_resolver;
};

/*
 * How many bytes one DC ZVA zeroes, given the block size DCZID_EL0 reports:
 * three blocks of 0xff, the middle one aligned to the block; DC ZVA at an
 * address inside the middle block (not its start, so that an instruction
 * zeroing around the address rather than the aligned block shows); then the
 * zero bytes from the middle block's start are counted and everything else
 * must still be 0xff.  0 when the result makes no sense.
 */
static __attribute__((noinline)) unsigned zva_probe(unsigned block)
{
	uint64_t space[(4 * FM_ZVA_MAX) / 8];
	u8 *p = fm_align_up((u8 *)space + block, block);
	volatile u8 *v = p - block;
	unsigned n = 0;

	for (unsigned i = 0; i < 3 * block; i += 8)
		*(volatile uint64_t *)(v + i) = ~(uint64_t)0;
	fm_dc_zva(p + block / 2 + 1);
	for (unsigned i = 0; i < block; i++)
		if (v[i] != 0xff)
			return 0;
	while (n < 2 * block && v[block + n] == 0)
		n++;
	for (unsigned i = block + n; i < 3 * block; i++)
		if (v[i] != 0xff)
			return 0;
	return n;
}

static void probe_zva(struct a64_info *in)
{
	uint64_t v;

	__asm__ volatile("mrs %0, dczid_el0" : "=r"(v));
	in->dczid = v;
	if (v & DCZID_DZP)
		return;
	in->zva_reported = 4u << DCZID_BS(v);
	if (in->zva_reported < 16 || in->zva_reported > FM_ZVA_MAX)
		return;
	in->zva_probe = zva_probe(in->zva_reported);
	if (in->zva_probe == in->zva_reported)
		in->zva = in->zva_probe;
}

#define BIT(name) FM_FEAT(name)

static void detect(struct a64_info *in)
{
	uint64_t auxv[FM_AUXV_TYPES];
	uint32_t f = 0;
	uint64_t ctr;

	/* field by field: a struct assignment can become a memset call */
	in->dczid = 0;
	in->zva_reported = in->zva_probe = in->zva = 0;
	in->hwcap_from_resolver = 0;
	in->auxv = fm_auxv_read(auxv);
	in->hwcap = auxv[AT_HWCAP_];
	in->hwcap2 = auxv[AT_HWCAP2_];
	if (!in->auxv &&
	    __atomic_load_n(&resolver_hwcap_given, __ATOMIC_ACQUIRE)) {
		in->hwcap = __atomic_load_n(&resolver_hwcap, __ATOMIC_RELAXED);
		in->hwcap_from_resolver = 1;
	}
	if (in->hwcap & HWCAP_SVE_)
		f |= BIT(sve);
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	in->ctr = ctr;
	probe_zva(in);
	if (in->zva)
		f |= BIT(dczva);
	in->features = f;
}

/* the variants read the verified block size themselves */
static void publish_zva(const struct a64_info *in)
{
	__atomic_store_n(&fm_aarch64_zva_bytes, in->zva, __ATOMIC_RELAXED);
}

FM_DETECT_ONCE(info, struct a64_info, detect, publish_zva)

uint32_t fm_arch_features(void)
{
	struct a64_info scratch;

	return info(&scratch)->features;
}

void fm_arch_cache_info(struct fm_cache_info *ci)
{
	struct a64_info scratch;
	const struct a64_info *in = info(&scratch);

	/* CTR_EL0.DminLine: log2 of the smallest line, in 4-byte words */
	ci->line = 4u << ((in->ctr >> 16) & 15);
	ci->l1d = ci->l2 = ci->l3 = 0;
	ci->l2_sharing = ci->l3_sharing = 0;
}

/* --- notes (call time only) ----------------------------------------------- */

static void put_zva(struct fm_text *t, const struct a64_info *in)
{
	fm_text_put(t, "DC ZVA: DCZID_EL0 ");
	fm_text_put_num(t, in->dczid, 1);
	if (in->dczid & DCZID_DZP) {
		fm_text_put(t, " prohibits it: zva variants disabled");
		return;
	}
	fm_text_put(t, " says ");
	fm_text_put_num(t, in->zva_reported, 0);
	fm_text_put(t, "-byte blocks");
	if (in->zva) {
		fm_text_put(t, ", the probe zeroed ");
		fm_text_put_num(t, in->zva_probe, 0);
		fm_text_put(t, ": zva variants enabled");
	} else if (in->zva_reported > FM_ZVA_MAX || in->zva_reported < 16) {
		fm_text_put(t, ", outside the 16-");
		fm_text_put_num(t, FM_ZVA_MAX, 0);
		fm_text_put(t, " bytes handled: zva variants disabled");
	} else {
		fm_text_put(t, " but the probe zeroed ");
		fm_text_put_num(t, in->zva_probe, 0);
		fm_text_put(t, ": zva variants disabled");
	}
}

static char notes[320];

/*
 * e.g. "DC ZVA: DCZID_EL0 0x4 says 64-byte blocks, the probe zeroed 64:
 * zva variants enabled; SVE 512-bit vectors; hwcap 0x415ffb"
 */
const char *fm_arch_notes(void)
{
	struct a64_info scratch;
	const struct a64_info *in = info(&scratch);
	struct fm_text t;

	fm_text_init(&t, notes, sizeof(notes));
	put_zva(&t, in);
	if (in->features & BIT(sve)) {
		fm_text_put(&t, "; SVE ");
		fm_text_put_num(&t, 8 * (uint64_t)fm_sve_bytes(), 0);
		fm_text_put(&t, "-bit vectors");
	} else {
		fm_text_put(&t, "; no SVE");
	}
	if (in->auxv || in->hwcap_from_resolver) {
		fm_text_put(&t, in->auxv ? "; hwcap "
					 : "; hwcap (from the resolver) ");
		fm_text_put_num(&t, in->hwcap, 1);
		if (in->hwcap2) {
			fm_text_put(&t, ", hwcap2 ");
			fm_text_put_num(&t, in->hwcap2, 1);
		}
	} else {
		fm_text_put(&t, "; hwcap unknown (no /proc/self/auxv)");
	}
	/* no residency probe here: streaming is decided by size alone */
	fm_text_put(&t, "; probe: none on this architecture (sizes decide)");
	return notes;
}
