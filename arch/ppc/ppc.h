/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the PowerPC variant families: the cache-control
 * instructions (dcbt, dcbz) as inline asm, the dcbz block size the probe in
 * cpu.c verified, and the plain ld/std copy that every family falls back
 * on for short and overlapping copies.  Everything here is static inline
 * or hidden.
 */
#ifndef FASTMEM_PPC_H
#define FASTMEM_PPC_H

#include "internal.h"
#include "small.h"

typedef unsigned char u8;
/* an aligned doubleword that may alias anything */
typedef uint64_t __attribute__((may_alias)) fm_u64a;

/*
 * The stride of the dcbz families: the data cache line of the 970, the
 * Cell PPE and every POWER server CPU.  dcbz is issued per verified block
 * (fm_ppc_dcbz_size(), which divides this) inside each stride.
 */
#define FM_PPC_LINE 128

/*
 * Bytes one dcbz clears, as the probe measured it, and only when that equals
 * the cache line the kernel reports (AT_DCACHEBSIZE) and divides
 * FM_PPC_LINE; 0 when the probe has not run or disagreed.  A dcbz variant
 * that finds 0 here never issues dcbz (it copies or sets with plain stores
 * instead), so even a variant called directly, unchecked, cannot clear
 * bytes it was not asked to.
 */
extern FM_HIDDEN unsigned fm_ppc_dcbz_bytes;

static inline unsigned fm_ppc_dcbz_size(void)
{
	return __atomic_load_n(&fm_ppc_dcbz_bytes, __ATOMIC_RELAXED);
}

/* Touch the line at p for reading (a hint: never faults). */
static inline void fm_dcbt(const void *p)
{
	__asm__ volatile("dcbt 0,%0" : : "r"(p));
}

/* Zero the dcbz block containing p, without reading it from memory. */
static inline void fm_dcbz(void *p)
{
	__asm__ volatile("dcbz 0,%0" : : "r"(p) : "memory");
}

/* Zero the FM_PPC_LINE bytes at p (aligned) in dcbz blocks of g bytes. */
static inline void fm_dcbz_line(u8 *p, unsigned g)
{
	if (FM_LIKELY(g == FM_PPC_LINE)) {
		fm_dcbz(p);
		return;
	}
	for (unsigned o = 0; o < FM_PPC_LINE; o += g)
		fm_dcbz(p + o);
}

/*
 * A forward copy is correct unless dst starts inside (src, src + n); a
 * backward one unless src starts inside (dst, dst + n).
 */
static inline int fm_fwd_ok(const void *d, const void *s, size_t n)
{
	return (uintptr_t)d - (uintptr_t)s >= n;
}

static inline u8 *fm_align_up(const u8 *p, size_t a)
{
	return (u8 *)(((uintptr_t)p + a - 1) & ~(uintptr_t)(a - 1));
}

static inline u8 *fm_align_down(const u8 *p, size_t a)
{
	return (u8 *)((uintptr_t)p & ~(uintptr_t)(a - 1));
}

/* ppc64.c: plain ld/std, any alignment, overlap-safe in both directions. */
FM_HIDDEN void *fm_ppc64_copy(void *dst, const void *src, size_t n);
/* The page copy of ppc64.c (page-aligned pointers). */
FM_HIDDEN void fm_ppc64_copy_page(void *dst, const void *src);

#endif /* FASTMEM_PPC_H */
