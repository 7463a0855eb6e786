/* SPDX-License-Identifier: MIT */
/*
 * Sets and page helpers of the vector families: included by vecops.h,
 * after vecops-copy.h.
 */

/* n < VEC */
static inline void set_lt_vec(u8 *d, int c, size_t n)
{
#if VEC > 32
	if (n >= 32) {
		fm_set_32_64(d, _mm256_set1_epi8((char)c), n);
		return;
	}
#endif
#if VEC > 16
	if (n >= 16) {
		fm_set_16_32(d, _mm_set1_epi8((char)c), n);
		return;
	}
#endif
	fm_set_lt16(d, fm_splat8(c), n);
}

/* n < VEC bytes: one masked store where the family has them (no ladder of
 * size branches, and no byte outside [d, d + n) touched) */
static inline void set_part(u8 *d, int c, size_t n)
{
#ifdef VMASK_SET
	VMASK_SET(d, c, n);
#else
	set_lt_vec(d, c, n);
#endif
}

/* n <= 2 VEC; below VEC falls through, as in copy_le2 */
static inline void set_le2(u8 *d, int c, size_t n)
{
	if (FM_LIKELY(n < VEC)) {
		set_part(d, c, n);
		return;
	}
	vec_t v = VSPLAT(c);

	VSTOREU(d, v);
	VSTOREU(d + n - VEC, v);
}

/*
 * 2 VEC < n <= 8 VEC, in address order, the middle four skipped below
 * 4 VEC.  On the Zen 3 guest the avx2 family's hot sets of 200 and 256 B
 * to dst + 13 ran 1.11x and 1.19x faster than with the order before (the
 * first two and last two vectors, then the middle four), every replay
 * table within 0.998-1.010 of it (4 rounds of ab.sh); the sse2 family's
 * hot 80-128 B sets to dst + 13 gained too, and aligned sets of either did
 * not move (docs/measurements/zen3-guest.md, "Sets of 4-8 VEC in address
 * order").
 */
#ifndef SET_LE8_IN_ORDER
static inline void set_le8(u8 *d, vec_t v, size_t n)
{
	VSTOREU(d, v);
	VSTOREU(d + VEC, v);
#ifdef SET_LE8_ENDS_FIRST
	/* the last two before the middle four, as the order was before */
	VSTOREU(d + n - 2 * VEC, v);
	VSTOREU(d + n - VEC, v);
#endif
	if (n > 4 * VEC) {
		VSTOREU(d + 2 * VEC, v);
		VSTOREU(d + 3 * VEC, v);
		VSTOREU(d + n - 4 * VEC, v);
		VSTOREU(d + n - 3 * VEC, v);
	}
#ifndef SET_LE8_ENDS_FIRST
	VSTOREU(d + n - 2 * VEC, v);
	VSTOREU(d + n - VEC, v);
#endif
}
#else
/*
 * In address order too, but as two paths: the empty asm keeps GCC from
 * ending the 8 VEC path with a jump into the 4 VEC path's last two stores
 * (which it shares), which cost hot 200-256 B sets 7-9% on the Zen 4
 * guest.
 */
static inline void set_le8(u8 *d, vec_t v, size_t n)
{
	if (FM_LIKELY(n <= 4 * VEC)) {
		VSTOREU(d, v);
		VSTOREU(d + VEC, v);
		VSTOREU(d + n - 2 * VEC, v);
		VSTOREU(d + n - VEC, v);
		return;
	}
	VSTOREU(d, v);
	VSTOREU(d + VEC, v);
	VSTOREU(d + 2 * VEC, v);
	VSTOREU(d + 3 * VEC, v);
	VSTOREU(d + n - 4 * VEC, v);
	VSTOREU(d + n - 3 * VEC, v);
	VSTOREU(d + n - 2 * VEC, v);
	VSTOREU(d + n - VEC, v);
	__asm__("");
}
#endif

static inline void set_lt128(u8 *d, vec_t v, int c, size_t n)
{
	if (n <= 2 * VEC)
		set_le2(d, c, n);
	else
		set_le8(d, v, n);
}

/* One line of v, streamed */
static inline void stream_line(u8 *p, vec_t v)
{
#pragma GCC unroll 4
	for (int i = 0; i < FM_LINE; i += VEC)
		VSTREAM(p + i, v);
}

/* Whole groups of pages from p, a line from each page in turn; returns
 * where the groups end.  Inlined with pages constant, the loop unrolls. */
static FM_ALWAYS_INLINE u8 *stream_groups(u8 *p, u8 *end, vec_t v, size_t pages)
{
	for (; (size_t)(end - p) >= pages * FM_PAGE_SIZE;
	     p += pages * FM_PAGE_SIZE)
		for (size_t o = 0; o < FM_PAGE_SIZE; o += FM_LINE)
#pragma GCC unroll 8
			for (size_t k = 0; k < pages; k++)
				stream_line(p + k * FM_PAGE_SIZE + o, v);
	return p;
}

/*
 * Stream v over [p, end), whole lines, as many pages at a time as the CPU
 * class says (fm_x86_nt_pages: 8 on Zen 5, as it was measured, unrolled;
 * 1 on Zen 3/4).
 */
static inline void stream_lines(u8 *p, u8 *end, vec_t v)
{
	size_t pages = fm_x86_nt_pages();

	if (pages == 8)
		p = stream_groups(p, end, v, 8);
	else if (pages > 1)
		p = stream_groups(p, end, v, pages);
	for (; p < end; p += FM_LINE)
		stream_line(p, v);
}

/*
 * n > 8 VEC.  The loop and the noinline helpers below take the byte, not a
 * vector: GCC leaves out the vzeroupper at the end of a function that gets
 * a vector argument.
 *
 * An unaligned vector that straddles a page boundary costs far more than
 * one that straddles a line: hot 4 and 8 KiB sets at page offset 13 ran
 * 0.85-0.90x glibc on the Intel Xeon guest, 1.13-1.34x at 3 and 6 KiB,
 * and 1.32-1.46x on the Zen 5 guest (1.67-1.81x with the split).  So
 * where the last vector would straddle one, it is stored as an aligned
 * vector and the bytes past the boundary.  Only the last: checking the
 * first and the three before the last as well cost 7% on hot 1 KiB sets
 * and 3% on the fleet's sets in L1 (docs/measurements/xeon-guest.md,
 * "Page-straddling stores").
 */
static FM_ALWAYS_INLINE void *set_loop_body(u8 *d, int c, size_t n, int inlined)
{
	vec_t v = VSPLAT(c);
	u8 *end = d + n - 4 * VEC;
	u8 *p = (u8 *)(((uintptr_t)d + VEC) & ~(uintptr_t)(VEC - 1));

	/* inlined (SET_LOOP_INLINE): a splat of its own, where GCC otherwise
	 * copied the entry point's into a second register on every path from
	 * 32 B on (hot sets of 63-64 B 3.5% slower) */
	if (inlined)
		__asm__("" : "+v"(v));

	VSTOREU(d, v);
	for (; p < end; p += 4 * VEC) {
		VSTOREA(p, v);
		VSTOREA(p + VEC, v);
		VSTOREA(p + 2 * VEC, v);
		VSTOREA(p + 3 * VEC, v);
	}
	VSTOREU(end, v);
	VSTOREU(end + VEC, v);
	VSTOREU(end + 2 * VEC, v);
	if (FM_UNLIKELY(crosses_page(end + 3 * VEC, VEC))) {
		/* the page boundary, with at least 4 VEC below it to d */
		u8 *b = (u8 *)((uintptr_t)(d + n) &
			       ~(uintptr_t)(FM_PAGE_SIZE - 1));

		VSTOREA(b - VEC, v);
		set_part(b, c, (size_t)(d + n - b));
	} else {
		VSTOREU(end + 3 * VEC, v);
	}
	return d;
}

/* The loop as a function, where it is not inlined (SET_LOOP_INLINE) */
static __attribute__((noinline)) void *set_loop(u8 *d, int c, size_t n)
{
	return set_loop_body(d, c, n, 0);
}

/*
 * n >= FM_LINE; whole lines streamed (or, for zeroes, cleared with clzero
 * when use_clzero), the partial lines at the ends stored.  Ends with sfence.
 */
static __attribute__((noinline)) void *set_nt(u8 *d, int c, size_t n,
					      int use_clzero)
{
	vec_t v = VSPLAT(c);
	size_t h = (size_t)(-(uintptr_t)d & (FM_LINE - 1));
	u8 *p = d + h;
	u8 *end = (u8 *)((uintptr_t)(d + n) & ~(uintptr_t)(FM_LINE - 1));

	set_lt128(d, v, c, h);
	set_lt128(end, v, c, (size_t)(d + n - end));
	if (use_clzero) {
		fm_clzero_range(p, end);
		return d;
	}
	stream_lines(p, end, v);
	_mm_sfence();
	return d;
}

/* rep stosb from a line-aligned destination */
static __attribute__((noinline)) void *set_rep(u8 *d, int c, size_t n)
{
	size_t h = (size_t)(-(uintptr_t)d & (FM_LINE - 1));

	set_lt128(d, VSPLAT(c), c, h);
	fm_rep_stosb(d + h, c, n - h);
	return d;
}

#ifndef VMASK_SET
/*
 * n < 32: the same idea as copy_lt32, with the classes 4..16 (four words)
 * and 17..31 (two xmm): recorded sets mix 8 and 16 bytes (python3) or 4 and
 * 12 (git), which one class takes without a branch between them.
 */
static inline void set_lt32(u8 *d, int c, size_t n)
{
	if (n > 16) {
		__m128i v = _mm_set1_epi8((char)c);

		_mm_storeu_si128((__m128i *)(void *)d, v);
		_mm_storeu_si128((__m128i *)(void *)(d + n - 16), v);
	} else if (n >= 4) {
		size_t o = (n >> 3) << 2;
		uint32_t v = (uint32_t)(unsigned char)c * 0x01010101u;

		*(fm_u32u *)d = v;
		*(fm_u32u *)(d + o) = v;
		*(fm_u32u *)(d + n - 4 - o) = v;
		*(fm_u32u *)(d + n - 4) = v;
	} else if (n) {
		d[0] = (u8)c;
		d[n >> 1] = (u8)c;
		d[n - 1] = (u8)c;
	}
}

/*
 * n <= 8 VEC: sets and says so.  Below 32 bytes falls through, unlike
 * copies: the recorded programs' sets are mostly that small, and in an A/B
 * of the two layouts (`fastmem-bench replay`, 2 x 4 runs) the replays of
 * git's and python3's sets gained 3-30% in every arena, and hot sets of
 * 8-24 B went from 0.84-0.98x glibc to 1.10-1.12x, while 32 and 128 B
 * went from 0.98-1.00x to 0.79-0.90x.
 */
static FM_ALWAYS_INLINE int set_small(u8 *d, int c, size_t n)
{
	if (FM_LIKELY(n < 32)) {
		set_lt32(d, c, n);
		return 1;
	}
	vec_t v = VSPLAT(c);

	if (FM_LIKELY(n <= 2 * VEC)) {
		VSTOREU(d, v);
		VSTOREU(d + n - VEC, v);
		return 1;
	}
	if (FM_LIKELY(n <= 8 * VEC)) {
		set_le8(d, v, n);
		return 1;
	}
	return 0;
}
#else
/*
 * n <= 8 VEC: sets and says so.  Up to VEC first, in one masked store:
 * the recorded programs' sets are mostly that small, and on Zen 5 the
 * replays went from 0.90-0.95x glibc to 0.99-1.04x in the L1 arena,
 * 0.89-0.90x to 0.98-1.13x in the LLC one (4 interleaved runs each) where
 * the 2 VEC check came first.  64 B in the masked class too: hot 64 B sets
 * 0.97x -> 1.12x, 88-256 B 0.85-0.95x -> 0.94-1.01x, replays unchanged.
 *
 * No check for a page's end, as for copies: without it the fleet
 * distributions' sets went from 1.02x glibc to 1.10x in the L1 and LLC
 * arenas, the recorded programs' from 1.08-1.10x to 1.20-1.21x, the memory
 * arena unchanged at 1.02-1.03x (3 interleaved runs, AOCL-LibMem 1.05x in
 * the same runs; docs/measurements/zen5-guest.md, 2026-12-02 second part).
 */
static FM_ALWAYS_INLINE int set_small(u8 *d, int c, size_t n)
{
	if (FM_LIKELY(n <= VEC)) {
		VMASK_SET(d, c, n);
		return 1;
	}
	if (FM_LIKELY(n <= 2 * VEC)) {
		set_le2(d, c, n);
		return 1;
	}
	if (FM_LIKELY(n <= 8 * VEC)) {
		set_le8(d, VSPLAT(c), n);
		return 1;
	}
	return 0;
}
#endif

ENTRY_ALIGN void *FN(set_, )(void *dst, int c, size_t n)
{
	RETURN_DST_EARLY(dst);
	if (set_small(dst, c, n))
		return dst;
	return set_loop(dst, c, n);
}

ENTRY_ALIGN void *FN(set_, _nt)(void *dst, int c, size_t n)
{
	RETURN_DST_EARLY(dst);
	if (set_small(dst, c, n))
		return dst;
	return set_nt(dst, c, n, 0);
}

#if VEC > 32
/*
 * n > FM_SET_TIMED: the first FM_SET_TIMED bytes by the loop, timed, and the
 * rest by rep stosb if those stores waited on memory (x86.h).  zmm only: a
 * narrower loop takes longer on cached lines than the limit assumes.
 */
static __attribute__((noinline)) void *set_timed(u8 *d, int c, size_t n,
						 const struct fm_x86_tune *t)
{
	uint64_t t0 = __builtin_ia32_rdtsc();

	set_loop(d, c, FM_SET_TIMED);
	if (fm_x86_set_rest_rep(t, __builtin_ia32_rdtsc() - t0))
		set_rep(d + FM_SET_TIMED, c, n - FM_SET_TIMED);
	else
		set_loop(d + FM_SET_TIMED, c, n - FM_SET_TIMED);
	return d;
}
#endif

/* n > 8 VEC; probe: whether streaming below thr depends on where the data
 * is (the dispatched policy) or not (the hints) */
static __attribute__((noinline)) void *set_big_policy(u8 *d, int c, size_t n,
						      size_t thr, int probe)
{
	const struct fm_x86_tune *t = fm_x86_tune();

	switch (fm_x86_set_how(t, d, n, thr, probe)) {
	case FM_X_STREAM:
		return set_nt(d, c, n, t->clzero && !(unsigned char)c);
	case FM_X_REP:
		return set_rep(d, c, n);
#if VEC > 32
	case FM_X_TIMED:
		return set_timed(d, c, n, t);
#endif
	default:
		return set_loop(d, c, n);
	}
}

/*
 * As copy_big, but the floor stays 16 KiB: lowered like the copies', it
 * would turn on the Intel class's rep stosb from 2 KiB below 16 KiB, where
 * every replay of that class (and of any other) ran the loop.
 */
static FM_ALWAYS_INLINE void *set_big(u8 *d, int c, size_t n, size_t thr,
				      int probe)
{
	if (FM_LIKELY(n < FM_X86_LOOP_BELOW && n < thr))
		return SET_LOOP_INLINE ? set_loop_body(d, c, n, 1)
				       : set_loop(d, c, n);
	return set_big_policy(d, c, n, thr, probe);
}

/*
 * The automatic policy: small sizes without a loop, the vector loop while
 * the destination fits in L2, rep stosb above (with ERMS), and from thr on
 * streaming stores, or clzero for zeroes where the CPU has it.
 */
ENTRY_ALIGN void *FN(set_, _auto)(void *dst, int c, size_t n, size_t thr)
{
	RETURN_DST_EARLY(dst);
	if (set_small(dst, c, n))
		return dst;
	return set_big(dst, c, n, thr, 0);
}

static BIG_PATH void *memset_big(u8 *d, int c, size_t n)
{
	return set_big(d, c, n, fm_threshold_ready(FM_OP_MEMSET), 1);
}

static FM_ALWAYS_INLINE void *memset_auto(void *dst, int c, size_t n)
{
	RETURN_DST_EARLY(dst);
	if (set_small(dst, c, n))
		return dst;
	return memset_big(dst, c, n);
}

/* As dispatched: see memcpy_<family>_auto */
ENTRY_ALIGN void *FN(memset_, _auto)(void *dst, int c, size_t n)
{
	return memset_auto(dst, c, n);
}

/* Its traced twin: see traced_memcpy_<family>_auto */
ENTRY_ALIGN void *FN(traced_memset_, _auto)(void *dst, int c, size_t n)
{
	FM_TRACE_SET(FN(memset_, _auto), dst, c, n);
	return memset_auto(dst, c, n);
}

/* --- pages (page-aligned pointers) --------------------------------------- */

static inline void page_copy(u8 *d, const u8 *s)
{
	for (size_t i = 0; i < FM_PAGE_SIZE; i += 4 * VEC) {
		vec_t a = VLOADA(s + i), b = VLOADA(s + i + VEC);
		vec_t c = VLOADA(s + i + 2 * VEC), e = VLOADA(s + i + 3 * VEC);

		VSTOREA(d + i, a);
		VSTOREA(d + i + VEC, b);
		VSTOREA(d + i + 2 * VEC, c);
		VSTOREA(d + i + 3 * VEC, e);
	}
}

/* Streams; the caller fences.  pf: bytes of prefetchnta ahead (0: none) */
static inline void page_copy_nt(u8 *d, const u8 *s, size_t pf)
{
	for (size_t i = 0; i < FM_PAGE_SIZE; i += 4 * VEC) {
		if (pf)
			_mm_prefetch((const char *)s + i + pf, _MM_HINT_NTA);
		vec_t a = VLOADA(s + i), b = VLOADA(s + i + VEC);
		vec_t c = VLOADA(s + i + 2 * VEC), e = VLOADA(s + i + 3 * VEC);

		VSTREAM(d + i, a);
		VSTREAM(d + i + VEC, b);
		VSTREAM(d + i + 2 * VEC, c);
		VSTREAM(d + i + 3 * VEC, e);
	}
}

static inline void pages_clear(u8 *p, size_t npages)
{
	vec_t z = VZERO();
	u8 *end = p + npages * FM_PAGE_SIZE;

	for (; p < end; p += 4 * VEC) {
		VSTOREA(p, z);
		VSTOREA(p + VEC, z);
		VSTOREA(p + 2 * VEC, z);
		VSTOREA(p + 3 * VEC, z);
	}
}

/* Streams and fences. */
static inline void pages_clear_nt(u8 *p, size_t npages)
{
	stream_lines(p, p + npages * FM_PAGE_SIZE, VZERO());
	_mm_sfence();
}

/*
 * The automatic page-clearing policy: below thr bytes the vector stores (or
 * rep stosb past 3/4 of L2), from thr on clzero where the CPU has it, else
 * streaming stores.
 */
static inline void pages_clear_auto(u8 *p, size_t npages, size_t thr)
{
	const struct fm_x86_tune *t = fm_x86_tune();
	size_t n = npages * FM_PAGE_SIZE;

	switch (fm_x86_set_how(t, p, n, thr, 0)) {
	case FM_X_STREAM:
		if (t->clzero)
			fm_clzero_range(p, p + n);
		else
			pages_clear_nt(p, npages);
		break;
	case FM_X_REP:
		fm_rep_stosb(p, 0, n);
		break;
	default:
		pages_clear(p, npages);
	}
}
