/* SPDX-License-Identifier: MIT */
/*
 * The copy shape of the 16-byte vector families whose unaligned vector
 * accesses are cheap (arch/aarch64/asimd.c, arch/ppc/vsx.c): no alignment
 * work for short copies, only loads from both ends that overlap in the
 * middle, every load before any store, which makes them memmove-correct
 * without an overlap check; above 128 bytes a loop of 64 bytes per
 * iteration with the destination aligned to 16, the ends loaded first and
 * stored last, run backward when the destination starts inside the source.
 *
 * One shape, two instruction sets: the family defines its vector type and
 * its three accesses before including this file, and every function here
 * is inlined into the family's own code (compiled with its own flags):
 *
 *	typedef ... vec16;			16 bytes
 *	vec16 ld(const u8 *p);			unaligned load
 *	void st(u8 *p, vec16 v);		unaligned store
 *	void store64(u8 *p, vec16 a, vec16 b, vec16 c, vec16 d, int nt);
 *		64 bytes at p, with the family's streaming store if nt (a
 *		family without one ignores nt)
 *
 * all static FM_ALWAYS_INLINE.
 */
#ifndef FASTMEM_VEC16_COPY_H
#define FASTMEM_VEC16_COPY_H

/* 32 < n <= 128, every load before any store: overlap-safe. */
static FM_ALWAYS_INLINE void copy_33_128(u8 *d, const u8 *s, size_t n)
{
	if (n <= 64) {
		vec16 a = ld(s), b = ld(s + 16);
		vec16 c = ld(s + n - 32), e = ld(s + n - 16);
		st(d, a);
		st(d + 16, b);
		st(d + n - 32, c);
		st(d + n - 16, e);
	} else {
		vec16 a = ld(s), b = ld(s + 16), c = ld(s + 32), e = ld(s + 48);
		vec16 f = ld(s + n - 64), g = ld(s + n - 48);
		vec16 h = ld(s + n - 32), k = ld(s + n - 16);
		store64(d, a, b, c, e, 0);
		store64(d + n - 64, f, g, h, k, 0);
	}
}

/*
 * n > 128; correct unless dst starts inside (src, src + n).  A store at p
 * only overwrites source bytes below the next load (q > p), and the ends,
 * loaded first, are stored last.  nt: the loop's stores stream.
 */
static FM_ALWAYS_INLINE void copy_fwd(u8 *d, const u8 *s, size_t n, int nt)
{
	vec16 head = ld(s);
	vec16 t0 = ld(s + n - 64), t1 = ld(s + n - 48);
	vec16 t2 = ld(s + n - 32), t3 = ld(s + n - 16);
	u8 *end = d + n - 64;
	/* align the stores; the skipped 1..16 bytes are the head's */
	size_t skip = 16 - ((uintptr_t)d & 15);
	u8 *p = d + skip;
	const u8 *q = s + skip;

	for (; p < end; p += 64, q += 64) {
		vec16 a = ld(q), b = ld(q + 16), c = ld(q + 32), e = ld(q + 48);
		store64(p, a, b, c, e, nt);
	}
	store64(end, t0, t1, t2, t3, 0);
	st(d, head);
}

/* n > 128; correct unless src starts inside (dst, dst + n). */
static void copy_bwd(u8 *d, const u8 *s, size_t n)
{
	vec16 tail = ld(s + n - 16);
	vec16 h0 = ld(s), h1 = ld(s + 16), h2 = ld(s + 32), h3 = ld(s + 48);
	/* align the stores; the skipped 0..15 bytes are the tail's */
	u8 *e = fm_align_down(d + n, 16);
	const u8 *q = s + (e - d);

	for (; e > d + 64; e -= 64, q -= 64) {
		vec16 a = ld(q - 64), b = ld(q - 48), c = ld(q - 32);
		vec16 f = ld(q - 16);
		store64(e - 64, a, b, c, f, 0);
	}
	store64(d, h0, h1, h2, h3, 0);
	st(d + n - 16, tail);
}

#endif /* FASTMEM_VEC16_COPY_H */
