/* SPDX-License-Identifier: MIT */
/*
 * 64-bit PowerPC detection, safe inside an ifunc resolver: no libc, no
 * getauxval, no relocated pointer (and, built with -fno-jump-tables, no
 * jump table, whose address the code would load from the TOC).
 *
 *  - The auxiliary vector comes from /proc/self/auxv through raw system
 *    calls (the resolver's hwcap argument is not passed down here):
 *    AT_HWCAP (AltiVec, VSX), AT_HWCAP2 (ISA 2.07: POWER8), AT_DCACHEBSIZE,
 *    AT_PLATFORM and, where the kernel gives them, the cache sizes.
 *    Without /proc, they come from __builtin_cpu_supports, which reads the
 *    copy glibc keeps in the TCB.
 *  - The 970 and the Cell come from __builtin_cpu_is (the TCB again) or the
 *    AT_PLATFORM string.  qemu-user passes no AT_PLATFORM, so under qemu
 *    neither is ever detected; FASTMEM_MEMCPY=cell still forces the family.
 *  - dcbz is probed, not trusted (docs/design.md): one dcbz on a
 *    scratch line of 0xff bytes, and the zeroed bytes counted.  The feature
 *    is set, and the size published to the dcbz variants, only when that
 *    count equals AT_DCACHEBSIZE and divides the variants' 128-byte stride.
 *    A 970 with HID5 set (and qemu's 970) clears 32 bytes of a 128-byte
 *    line; glibc's memset trusts AT_DCACHEBSIZE there and leaves 3/4 of a
 *    buffer unzeroed.
 */
#include "detect.h"
#include "ppc.h"

#define AT_PLATFORM_ 15
#define AT_HWCAP_ 16
#define AT_DCACHEBSIZE_ 19
#define AT_HWCAP2_ 26
#define AT_L1D_CACHESIZE_ 42
#define AT_L2_CACHESIZE_ 44
#define AT_L3_CACHESIZE_ 46

#define PPC_FEATURE_HAS_ALTIVEC 0x10000000ul
#define PPC_FEATURE_HAS_VSX 0x00000080ul
#define PPC_FEATURE2_ARCH_2_07 0x80000000ul

#define PLATFORM_MAX 24

unsigned fm_ppc_dcbz_bytes;

struct ppc_info {
	uint64_t hwcap, hwcap2;
	uint64_t dline;	      /* AT_DCACHEBSIZE, 0 if not given */
	uint64_t l1d, l2, l3; /* AT_L*_CACHESIZE, 0 if not given */
	unsigned probe;	      /* bytes one dcbz cleared, 0 inconclusive */
	unsigned dcbz;	      /* the verified dcbz size, or 0 */
	uint32_t features;
	int auxv; /* /proc/self/auxv was read */
	int model_970, model_cell;
	char platform[PLATFORM_MAX]; /* "" if not given */
};

static int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* AT_PLATFORM: the address of a string on this process's initial stack */
static void copy_platform(struct ppc_info *in, uint64_t val)
{
	const char *p = (const char *)val;
	size_t k = 0;

	for (; p && p[k] && k < PLATFORM_MAX - 1; k++)
		in->platform[k] = p[k];
	in->platform[k] = 0;
}

/*
 * How many bytes one dcbz clears: the scratch area is 256-byte aligned, 512
 * bytes of 0xff, with room to spare on both sides on the stack; dcbz at its
 * start, then the leading zero bytes are counted and everything after them
 * must still be 0xff.  0 when the result makes no sense.
 */
static __attribute__((noinline)) unsigned dcbz_probe(void)
{
	uint64_t space[(512 + 256 + 256) / 8];
	u8 *p = fm_align_up((u8 *)space + 128, 256);
	volatile u8 *v = p;
	unsigned n = 0;

	for (unsigned i = 0; i < 512; i += 8)
		*(volatile uint64_t *)(p + i) = ~(uint64_t)0;
	__asm__ volatile("dcbz 0,%0" : : "r"(p) : "memory");
	while (n < 512 && v[n] == 0)
		n++;
	for (unsigned i = n; i < 512; i++)
		if (v[i] != 0xff)
			return 0;
	return n < 512 ? n : 0;
}

static int sane_dcbz(unsigned size)
{
	/* a power of two that divides the variants' stride */
	return size >= 16 && size <= FM_PPC_LINE && !(size & (size - 1));
}

#define BIT(name) FM_FEAT(name)

static void detect(struct ppc_info *in)
{
	uint64_t auxv[FM_AUXV_TYPES];
	uint32_t f = 0;

	/* field by field: a struct assignment can become a memset call */
	in->probe = in->dcbz = 0;
	in->model_970 = in->model_cell = 0;
	in->auxv = fm_auxv_read(auxv);
	in->hwcap = auxv[AT_HWCAP_];
	in->hwcap2 = auxv[AT_HWCAP2_];
	in->dline = auxv[AT_DCACHEBSIZE_];
	in->l1d = auxv[AT_L1D_CACHESIZE_];
	in->l2 = auxv[AT_L2_CACHESIZE_];
	in->l3 = auxv[AT_L3_CACHESIZE_];
	copy_platform(in, auxv[AT_PLATFORM_]);
	if (in->auxv ? (in->hwcap & PPC_FEATURE_HAS_ALTIVEC)
		     : __builtin_cpu_supports("altivec"))
		f |= BIT(altivec);
	/* the vsx family: POWER8's ISA 2.07 and VSX */
	if (in->auxv ? (in->hwcap & PPC_FEATURE_HAS_VSX) &&
			       (in->hwcap2 & PPC_FEATURE2_ARCH_2_07)
		     : __builtin_cpu_supports("vsx") &&
			       __builtin_cpu_supports("arch_2_07"))
		f |= BIT(power8);
	in->model_970 =
		__builtin_cpu_is("ppc970") || str_eq(in->platform, "ppc970");
	in->model_cell = __builtin_cpu_is("ppc-cell-be") ||
			 str_eq(in->platform, "ppc-cell-be");
	if (in->model_970)
		f |= BIT(ppc970);
	if (in->model_cell)
		f |= BIT(cell);
	in->probe = dcbz_probe();
	if (in->probe && in->probe == in->dline && sane_dcbz(in->probe)) {
		in->dcbz = in->probe;
		f |= BIT(dcbz);
	}
	in->features = f;
}

/* the variants read the verified dcbz size themselves */
static void publish_dcbz(const struct ppc_info *in)
{
	__atomic_store_n(&fm_ppc_dcbz_bytes, in->dcbz, __ATOMIC_RELAXED);
}

FM_DETECT_ONCE(info, struct ppc_info, detect, publish_dcbz)

uint32_t fm_arch_features(void)
{
	struct ppc_info scratch;

	return info(&scratch)->features;
}

void fm_arch_cache_info(struct fm_cache_info *ci)
{
	struct ppc_info scratch;
	const struct ppc_info *in = info(&scratch);

	ci->line = in->dline ? in->dline : in->probe ? in->probe : FM_PPC_LINE;
	ci->l1d = in->l1d;
	ci->l2 = in->l2;
	ci->l3 = in->l3;
	ci->l2_sharing = ci->l3_sharing = 0;
	if (in->l2)
		return;
	/* kernels before 4.19 pass no sizes: the two models we know */
	if (in->model_cell) {
		/* the PPE's two threads share its 32 KiB L1d and 512 KiB L2 */
		ci->l1d = 32 << 10;
		ci->l2 = 512 << 10;
		ci->l2_sharing = 2;
	} else if (in->model_970) {
		ci->l1d = 32 << 10;
		ci->l2 = 512 << 10;
		ci->l2_sharing = 1;
	}
}

/* --- notes -------------------------------------------------------------- */

static char notes[320];

/*
 * e.g. "dcbz clears 128 bytes = cache line: dcbz variants enabled; platform
 * ppc970; hwcap 0x58000580"
 */
const char *fm_arch_notes(void)
{
	struct ppc_info scratch;
	const struct ppc_info *in = info(&scratch);
	struct fm_text t;

	fm_text_init(&t, notes, sizeof(notes));

	if (!in->probe) {
		fm_text_put(&t, "dcbz probe inconclusive");
	} else {
		fm_text_put(&t, "dcbz clears ");
		fm_text_put_num(&t, in->probe, 0);
		fm_text_put(&t, " bytes");
	}
	if (in->dcbz) {
		fm_text_put(&t, " = cache line: dcbz variants enabled");
	} else if (in->probe && in->probe == in->dline) {
		fm_text_put(
			&t,
			" = cache line, but the variants need a power of two"
			" from 16 to 128: dcbz variants disabled");
	} else if (!in->dline) {
		fm_text_put(&t, in->auxv
					? " but AT_DCACHEBSIZE is not given"
					: " but /proc/self/auxv is unreadable");
		fm_text_put(&t, ": dcbz variants disabled");
	} else {
		fm_text_put(&t, in->probe ? " but the cache line is "
					  : ", cache line ");
		fm_text_put_num(&t, in->dline, 0);
		fm_text_put(&t, ": dcbz variants disabled");
	}
	fm_text_put(&t, "; platform ");
	fm_text_put(&t, in->platform[0] ? in->platform
					: "unknown (no AT_PLATFORM)");
	if (in->auxv) {
		fm_text_put(&t, "; hwcap ");
		fm_text_put_num(&t, in->hwcap, 1);
		if (in->hwcap2) {
			fm_text_put(&t, ", hwcap2 ");
			fm_text_put_num(&t, in->hwcap2, 1);
		}
	}
	/* no residency probe here: streaming is decided by size alone */
	fm_text_put(&t, "; probe: none on this architecture (sizes decide)");
	return notes;
}
