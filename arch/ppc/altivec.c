/* SPDX-License-Identifier: MIT */
/*
 * The AltiVec (VMX) family (copy_altivec, copy_page_altivec), compiled with
 * -maltivec and nothing else in it, so no vector instruction can run before
 * the CPU has been checked for AltiVec.
 *
 * VMX loads and stores only aligned quadwords.  A copy whose source and
 * destination are misaligned to each other stores aligned quadwords built
 * with vperm from the two aligned source quadwords each one straddles, the
 * permute control coming from lvsl.  That technique usually reads the
 * aligned quadwords around the ends of the source, bytes outside it; here
 * the vector loop covers only the interior, where every aligned quadword it
 * loads lies inside the source, and the up to 31 bytes at either end go
 * through general registers, loaded before anything is stored and stored
 * last.  The loop runs forward or backward as overlap requires, and never
 * overwrites a source byte it has still to load, so every copy here is
 * memmove-correct.
 */
#include <altivec.h>

#include "ppc.h"

typedef __vector unsigned char vu8;

#define VLD(off, p) vec_ld((off), (const unsigned char *)(p))
#define VST(v, off, p) vec_st((v), (off), (unsigned char *)(p))

/* 32 bytes from each end, through general registers. */
struct ends {
	uint64_t h[4], t[4];
};

static inline struct ends load_ends(const u8 *s, size_t n)
{
	struct ends x;

	fm_load_words(x.h, s, 4);
	fm_load_words(x.t, s + n - 32, 4);
	return x;
}

static inline void store_ends(u8 *d, size_t n, struct ends x)
{
	fm_store_words(d + n - 32, x.t, 4);
	fm_store_words(d, x.h, 4);
}

/*
 * The vector part covers the aligned destination quadwords [p, e) with
 * p = d + 16 rounded up and e = d + n - 16 rounded down: their source
 * q = s + (p - d) is at least 16 bytes past s, so the aligned quadword
 * around q starts inside the source, and the last one loaded ends at most
 * 31 bytes past q_e - 16 <= s + n - 32, inside it too.  The head [d, p) and
 * tail [e, d + n) are under 32 bytes each.
 */

/* n > 64; correct unless dst starts inside (src, src + n). */
static void copy_fwd(u8 *d, const u8 *s, size_t n)
{
	struct ends x = load_ends(s, n);
	u8 *p = fm_align_up(d + 16, 16);
	u8 *e = fm_align_down(d + n - 16, 16);
	const u8 *q = s + (p - d);

	if (!((uintptr_t)q & 15)) {
		for (; e - p >= 64; p += 64, q += 64) {
			vu8 a = VLD(0, q), b = VLD(16, q);
			vu8 c = VLD(32, q), f = VLD(48, q);

			VST(a, 0, p);
			VST(b, 16, p);
			VST(c, 32, p);
			VST(f, 48, p);
		}
		for (; p < e; p += 16, q += 16)
			VST(VLD(0, q), 0, p);
	} else if (p < e) {
		vu8 perm = vec_lvsl(0, q);
		vu8 a = VLD(0, q);

		/* all of a group's loads come before its stores: a store at p
		 * only overwrites source bytes below q, already loaded */
		for (; e - p >= 64; p += 64, q += 64) {
			vu8 b = VLD(16, q), c = VLD(32, q);
			vu8 f = VLD(48, q), g = VLD(64, q);

			VST(vec_perm(a, b, perm), 0, p);
			VST(vec_perm(b, c, perm), 16, p);
			VST(vec_perm(c, f, perm), 32, p);
			VST(vec_perm(f, g, perm), 48, p);
			a = g;
		}
		for (; p < e; p += 16, q += 16) {
			vu8 b = VLD(16, q);

			VST(vec_perm(a, b, perm), 0, p);
			a = b;
		}
	}
	store_ends(d, n, x);
}

/* n > 64; correct unless src starts inside (dst, dst + n). */
static void copy_bwd(u8 *d, const u8 *s, size_t n)
{
	struct ends x = load_ends(s, n);
	u8 *p = fm_align_up(d + 16, 16);
	u8 *e = fm_align_down(d + n - 16, 16);
	const u8 *q = s + (e - d); /* source of e */

	if (!((uintptr_t)q & 15)) {
		for (; e - p >= 64; e -= 64, q -= 64) {
			vu8 a = VLD(-16, q), b = VLD(-32, q);
			vu8 c = VLD(-48, q), f = VLD(-64, q);

			VST(a, -16, e);
			VST(b, -32, e);
			VST(c, -48, e);
			VST(f, -64, e);
		}
		for (; e > p; e -= 16, q -= 16)
			VST(VLD(-16, q), -16, e);
	} else if (p < e) {
		vu8 perm = vec_lvsl(0, q);
		/* the upper quadword of the one ending at e */
		vu8 b = VLD(0, q);

		for (; e - p >= 64; e -= 64, q -= 64) {
			vu8 a = VLD(-16, q), c = VLD(-32, q);
			vu8 f = VLD(-48, q), g = VLD(-64, q);

			VST(vec_perm(a, b, perm), -16, e);
			VST(vec_perm(c, a, perm), -32, e);
			VST(vec_perm(f, c, perm), -48, e);
			VST(vec_perm(g, f, perm), -64, e);
			b = g;
		}
		for (; e > p; e -= 16, q -= 16) {
			vu8 a = VLD(-16, q);

			VST(vec_perm(a, b, perm), -16, e);
			b = a;
		}
	}
	store_ends(d, n, x);
}

void *copy_altivec(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (n <= 64)
		return fm_ppc64_copy(d, s, n);
	if (fm_fwd_ok(d, s, n))
		copy_fwd(d, s, n);
	else
		copy_bwd(d, s, n);
	return dst;
}

/* Page-aligned: touch the source page, then a line per iteration. */
void copy_page_altivec(void *dst, const void *src)
{
	u8 *d = dst;
	const u8 *s = src;

	for (size_t i = 0; i < FM_PAGE_SIZE; i += FM_PPC_LINE)
		fm_dcbt(s + i);
	for (size_t i = 0; i < FM_PAGE_SIZE; i += FM_PPC_LINE) {
		vu8 a = VLD(i, s), b = VLD(i + 16, s);
		vu8 c = VLD(i + 32, s), e = VLD(i + 48, s);
		vu8 f = VLD(i + 64, s), g = VLD(i + 80, s);
		vu8 h = VLD(i + 96, s), k = VLD(i + 112, s);

		VST(a, i, d);
		VST(b, i + 16, d);
		VST(c, i + 32, d);
		VST(e, i + 48, d);
		VST(f, i + 64, d);
		VST(g, i + 80, d);
		VST(h, i + 96, d);
		VST(k, i + 112, d);
	}
}
