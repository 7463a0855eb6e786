/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the AArch64 variant families: the DC ZVA block size the
 * probe in cpu.c verified, the instruction itself, and the helpers the
 * families share.  Everything here is static inline or hidden.
 */
#ifndef FASTMEM_AARCH64_H
#define FASTMEM_AARCH64_H

#include "internal.h"
#include "small.h"

typedef unsigned char u8;

/*
 * The largest DC ZVA block the library uses.  The architecture allows up to
 * 2 KiB (DCZID_EL0.BS = 9); cores report 64 bytes (Cortex-A, Neoverse,
 * Graviton, Ampere) or 256 (A64FX), and qemu's "max" CPU 512.  The probe
 * needs three blocks of stack, so larger blocks are left unused (and said
 * so by fastmem-info).
 */
#define FM_ZVA_MAX 512

/*
 * Bytes one DC ZVA zeroes, as the probe measured it, and only when that
 * equals what DCZID_EL0 reports and the instruction is not prohibited
 * (DCZID_EL0.DZP); 0 otherwise.  A zva variant that finds 0 here never
 * issues DC ZVA, so even one called directly, unchecked, cannot zero bytes
 * it was not asked to.
 */
extern FM_HIDDEN unsigned fm_aarch64_zva_bytes;

static inline unsigned fm_zva_size(void)
{
	return __atomic_load_n(&fm_aarch64_zva_bytes, __ATOMIC_RELAXED);
}

/* Zero the DC ZVA block containing p, without reading it from memory. */
static inline void fm_dc_zva(void *p)
{
	__asm__ volatile("dc zva, %0" : : "r"(p) : "memory");
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

/* asimd.c: the Advanced SIMD copy and set, which the zva and SVE families
 * fall back on. */
FM_HIDDEN void *fm_asimd_copy(void *dst, const void *src, size_t n);
FM_HIDDEN void *fm_asimd_set(void *dst, int c, size_t n);
/* sve.c: the SVE vector length in bytes (call only where SVE is usable). */
FM_HIDDEN unsigned fm_sve_bytes(void);

#endif /* FASTMEM_AARCH64_H */
