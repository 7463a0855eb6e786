/* SPDX-License-Identifier: MIT */
/*
 * Copies of the vector families: included by vecops.h, which says how.
 */

/* n < VEC */
static inline void copy_lt_vec(u8 *d, const u8 *s, size_t n)
{
#if VEC > 32
	if (n >= 32) {
		fm_copy_32_64(d, s, n);
		return;
	}
#endif
#if VEC > 16
	if (n >= 16) {
		fm_copy_16_32(d, s, n);
		return;
	}
#endif
	fm_copy_lt16(d, s, n);
}

/* n < VEC bytes: one masked vector where the family has them */
static inline void copy_part(u8 *d, const u8 *s, size_t n)
{
#ifdef VMASK_COPY
	VMASK_COPY(d, s, n);
#else
	copy_lt_vec(d, s, n);
#endif
}

/* Whether the k bytes at p straddle a page boundary */
static inline int crosses_page(const u8 *p, size_t k)
{
	return ((uintptr_t)p & (FM_PAGE_SIZE - 1)) > FM_PAGE_SIZE - k;
}

/*
 * Whether a loop's last vector, at d + n - VEC, would straddle a page and
 * may be replaced by what lies either side of the boundary, read from the
 * source after the loop (so only when the buffers do not overlap).  As in
 * set_loop_body: an access that straddles a page costs far more than one
 * that straddles a line.  Hot copies of 4 and 8 KiB with source and
 * destination 13 bytes past a page start ran 1.15-1.43x glibc on the Zen 5
 * guest, 3 KiB 1.60-1.72x; split, 1.52-1.81x, and 4 KiB to dst + 13 from an
 * aligned source 1.61-1.71x -> 1.85-1.98x; the replays did not move beyond
 * their noise (docs/measurements/zen5-guest.md, "Page-straddling copies").
 */
static inline int split_tail(const u8 *d, const u8 *s, size_t n)
{
	return FM_UNLIKELY(crosses_page(d + n - VEC, VEC)) &&
	       !fm_overlaps(d, s, n);
}

/* n <= 2 VEC; below VEC falls through */
static inline void copy_le2(u8 *d, const u8 *s, size_t n)
{
	if (FM_LIKELY(n < VEC)) {
		copy_lt_vec(d, s, n);
		return;
	}
	vec_t a = VLOADU(s), b = VLOADU(s + n - VEC);

	VSTOREU(d, a);
	VSTOREU(d + n - VEC, b);
}

/* 2 VEC < n <= 8 VEC */
static inline void copy_le8(u8 *d, const u8 *s, size_t n)
{
	if (n <= 4 * VEC) {
		vec_t a = VLOADU(s), b = VLOADU(s + VEC);
		vec_t y = VLOADU(s + n - 2 * VEC), z = VLOADU(s + n - VEC);

		VSTOREU(d, a);
		VSTOREU(d + VEC, b);
		VSTOREU(d + n - 2 * VEC, y);
		VSTOREU(d + n - VEC, z);
		return;
	}
	vec_t a = VLOADU(s), b = VLOADU(s + VEC);
	vec_t c = VLOADU(s + 2 * VEC), e = VLOADU(s + 3 * VEC);
	vec_t w = VLOADU(s + n - 4 * VEC), x = VLOADU(s + n - 3 * VEC);
	vec_t y = VLOADU(s + n - 2 * VEC), z = VLOADU(s + n - VEC);

	VSTOREU(d, a);
	VSTOREU(d + VEC, b);
	VSTOREU(d + 2 * VEC, c);
	VSTOREU(d + 3 * VEC, e);
	VSTOREU(d + n - 4 * VEC, w);
	VSTOREU(d + n - 3 * VEC, x);
	VSTOREU(d + n - 2 * VEC, y);
	VSTOREU(d + n - VEC, z);
}

/* n < 2 * FM_LINE, any width: the partial lines around a streamed run */
static inline void copy_lt128(u8 *d, const u8 *s, size_t n)
{
	if (n <= 2 * VEC)
		copy_le2(d, s, n);
	else
		copy_le8(d, s, n);
}

/*
 * n > 4 VEC, forward: correct unless dst starts inside (src, src + n).  The
 * head vector and the four tail vectors are loaded first and stored last;
 * the loop stores aligned.  split (split_tail): the last tail vector is
 * read from the source after the loop instead, either side of the page
 * boundary it would straddle.
 */
static FM_ALWAYS_INLINE void copy_fwd(u8 *d, const u8 *s, size_t n, int split)
{
	vec_t h = VLOADU(s);
	vec_t t0 = VLOADU(s + n - 4 * VEC), t1 = VLOADU(s + n - 3 * VEC);
	vec_t t2 = VLOADU(s + n - 2 * VEC);
	vec_t t3 = split ? VZERO() : VLOADU(s + n - VEC);
	u8 *end = d + n - 4 * VEC;
	size_t skip = VEC - ((uintptr_t)d & (VEC - 1));
	u8 *p = d + skip;
	const u8 *q = s + skip;

	for (; p < end; p += 4 * VEC, q += 4 * VEC) {
		vec_t a = VLOADU(q), b = VLOADU(q + VEC);
		vec_t c = VLOADU(q + 2 * VEC), e = VLOADU(q + 3 * VEC);

		VSTOREA(p, a);
		VSTOREA(p + VEC, b);
		VSTOREA(p + 2 * VEC, c);
		VSTOREA(p + 3 * VEC, e);
	}
	VSTOREU(end, t0);
	VSTOREU(end + VEC, t1);
	VSTOREU(end + 2 * VEC, t2);
	if (FM_UNLIKELY(split)) {
		/* the page boundary, with at least 4 VEC below it to d */
		u8 *b = (u8 *)((uintptr_t)(d + n) &
			       ~(uintptr_t)(FM_PAGE_SIZE - 1));
		const u8 *sb = s + (b - d);

		VSTOREA(b - VEC, VLOADU(sb - VEC));
		copy_part(b, sb, (size_t)(d + n - b));
	} else {
		VSTOREU(end + 3 * VEC, t3);
	}
	VSTOREU(d, h);
}

/* n > 4 VEC, backward: correct unless src starts inside (dst, dst + n).
 * split: as in copy_fwd. */
static FM_ALWAYS_INLINE void copy_bwd(u8 *d, const u8 *s, size_t n, int split)
{
	vec_t h0 = VLOADU(s), h1 = VLOADU(s + VEC);
	vec_t h2 = VLOADU(s + 2 * VEC), h3 = VLOADU(s + 3 * VEC);
	vec_t t = split ? VZERO() : VLOADU(s + n - VEC);
	u8 *p = (u8 *)((uintptr_t)(d + n) & ~(uintptr_t)(VEC - 1));
	const u8 *q = s + (p - d);
	u8 *top = p;

	while (p > d + 4 * VEC) {
		p -= 4 * VEC;
		q -= 4 * VEC;
		vec_t a = VLOADU(q + 3 * VEC), b = VLOADU(q + 2 * VEC);
		vec_t c = VLOADU(q + VEC), e = VLOADU(q);

		VSTOREA(p + 3 * VEC, a);
		VSTOREA(p + 2 * VEC, b);
		VSTOREA(p + VEC, c);
		VSTOREA(p, e);
	}
	VSTOREU(d, h0);
	VSTOREU(d + VEC, h1);
	VSTOREU(d + 2 * VEC, h2);
	VSTOREU(d + 3 * VEC, h3);
	if (FM_UNLIKELY(split))
		/* the loop stored up to top, a page boundary or above one */
		copy_part(top, s + (top - d), (size_t)(d + n - top));
	else
		VSTOREU(d + n - VEC, t);
}

/* Whether a loop of n bytes runs backward: a forward loop's loads meet
 * its own stores only where dst is less than n ahead (vecops.h,
 * ALIAS_WINDOW) */
#define LOOP_BACKWARD(d, s, n)                                                 \
	(!fm_fwd_ok(d, s, n) ||                                                \
	 (fm_bwd_ok(d, s, n) &&                                                \
	  fm_alias_4k(d, s, (n) < ALIAS_WINDOW ? (n) : ALIAS_WINDOW)))

/*
 * n > 8 VEC, temporal, either direction as overlap and aliasing require.
 * The noinline helpers return dst so that their callers can tail-call them.
 */
static __attribute__((noinline)) void *copy_loop(u8 *d, const u8 *s, size_t n)
{
	int back = LOOP_BACKWARD(d, s, n);

	/* split a constant in each call, so that the usual path is the
	 * loops without it */
	if (split_tail(d, s, n)) {
		if (back)
			copy_bwd(d, s, n, 1);
		else
			copy_fwd(d, s, n, 1);
	} else if (back) {
		copy_bwd(d, s, n, 0);
	} else {
		copy_fwd(d, s, n, 0);
	}
	return d;
}

/* The same, inlined where COPY_LOOP_INLINE says; the loops that split
 * their last vector stay in copy_loop */
static FM_ALWAYS_INLINE void *copy_loop_inline(u8 *d, const u8 *s, size_t n)
{
	if (split_tail(d, s, n))
		return copy_loop(d, s, n);
	if (LOOP_BACKWARD(d, s, n))
		copy_bwd(d, s, n, 0);
	else
		copy_fwd(d, s, n, 0);
	return d;
}

/*
 * Streaming copy, n >= FM_LINE, buffers not overlapping.  Only whole lines
 * are streamed (a partly written write-combining buffer costs a
 * read-modify-write at the memory); the partial lines at both ends get
 * ordinary stores.  Ends with sfence.  pf: bytes of prefetcht0 ahead of the
 * loads, one per 4 VEC (0: none), the CPU class's (fm_x86_nt_prefetch).
 */
static __attribute__((noinline)) void *copy_nt(u8 *d, const u8 *s, size_t n,
					       size_t pf)
{
	size_t h = (size_t)(-(uintptr_t)d & (FM_LINE - 1));
	u8 *p = d + h;
	u8 *end = (u8 *)((uintptr_t)(d + n) & ~(uintptr_t)(FM_LINE - 1));
	const u8 *q = s + h;

	copy_lt128(d, s, h);
	for (; (size_t)(end - p) >= 4 * VEC; p += 4 * VEC, q += 4 * VEC) {
		if (pf)
			_mm_prefetch((const char *)q + pf, _MM_HINT_T0);
		vec_t a = VLOADU(q), b = VLOADU(q + VEC);
		vec_t c = VLOADU(q + 2 * VEC), e = VLOADU(q + 3 * VEC);

		VSTREAM(p, a);
		VSTREAM(p + VEC, b);
		VSTREAM(p + 2 * VEC, c);
		VSTREAM(p + 3 * VEC, e);
	}
#if 4 * VEC > FM_LINE
	for (; p < end; p += FM_LINE, q += FM_LINE)
#pragma GCC unroll 4
		for (int i = 0; i < FM_LINE; i += VEC)
			VSTREAM(p + i, VLOADU(q + i));
#endif
	copy_lt128(p, q, (size_t)(d + n - p));
	_mm_sfence();
	return d;
}

/*
 * rep movsb from a line-aligned destination (a misaligned one cost it 40%
 * from L2 on Zen 5).  Forward only: the caller has checked that dst does not
 * start inside the source and is not within a line below it.
 */
static __attribute__((noinline)) void *copy_rep(u8 *d, const u8 *s, size_t n)
{
	size_t h = (size_t)(-(uintptr_t)d & (FM_LINE - 1));

	copy_lt128(d, s, h);
	fm_rep_movsb(d + h, s + h, n - h);
	return d;
}

/*
 * Below 32 bytes: three classes, each
 * copied by overlapping accesses of one width whatever the size within it,
 * where glibc's ladder branches at 16, 8, 4 and 2.  Real programs' sizes
 * vary call to call (fastmem-bench replay), and each branch of a ladder
 * mispredicts about as often as its less likely side is taken.  Four
 * accesses of w bytes at 0, o, n - w - o and n - w, with o = w from 2w
 * bytes on, cover any n in [w, 4w]: here 8..31 in four doublewords.
 */
static inline void copy_lt32(u8 *d, const u8 *s, size_t n)
{
	if (n >= 8) {
		size_t o = (n >> 4) << 3;
		uint64_t a = fm_load64(s), b = fm_load64(s + o);
		uint64_t y = fm_load64(s + n - 8 - o), z = fm_load64(s + n - 8);

		fm_store64(d, a);
		fm_store64(d + o, b);
		fm_store64(d + n - 8 - o, y);
		fm_store64(d + n - 8, z);
	} else if (n >= 4) {
		uint32_t a = *(const fm_u32u *)s,
			 z = *(const fm_u32u *)(s + n - 4);

		*(fm_u32u *)d = a;
		*(fm_u32u *)(d + n - 4) = z;
	} else if (n) {
		/* first, middle and last byte */
		u8 a = s[0], b = s[n >> 1], z = s[n - 1];

		d[0] = a;
		d[n >> 1] = b;
		d[n - 1] = z;
	}
}

/* VEC <= n <= 8 VEC (smaller n has been copied): copies and says so */
static FM_ALWAYS_INLINE int copy_to_8vec(u8 *d, const u8 *s, size_t n)
{
	if (FM_LIKELY(n <= 2 * VEC)) {
		vec_t a = VLOADU(s), b = VLOADU(s + n - VEC);

		VSTOREU(d, a);
		VSTOREU(d + n - VEC, b);
		return 1;
	}
	if (FM_LIKELY(n <= 8 * VEC)) {
		copy_le8(d, s, n);
		return 1;
	}
	return 0;
}

#ifdef VMASK_COPY
/*
 * n <= 8 VEC: copies and says so.  Up to VEC in one masked vector, which
 * has no size branch to mispredict when the sizes vary from call to call.
 * On Zen 5 (fastmem-bench replay with 65536-call sequences, 3 interleaved
 * runs, docs/measurements/zen5-guest.md) it took the fleet distributions
 * in the L1 arena from 1.09x glibc to 2.39x, the recorded programs from
 * 1.17x to 1.66x; the memory arena moved 1.02x -> 0.95x (traces), where
 * each vector reaches a second line the bytes may not need.  The classes
 * it replaced (f850fbf) had won only on 8192-call sequences, short enough
 * for the branch predictor to learn.  64 B in the masked class too (as
 * sets): sort's moves of 32 and 64 B then take one branch, 0.90x -> 1.77x
 * glibc, recorded programs L1 1.67x -> 1.86-1.90x, fleet L1 2.38x -> 2.46x
 * (with RETURN_DST_EARLY; 3 runs, docs/measurements/zen5-guest.md).
 *
 * No check for a page's end (sets have none either): a branch-free one (six
 * instructions) or glibc's (two branches) cost 10-25% of the fleet gain.
 * The price is an assist (~700 cycles on Zen 5) on the rare call whose
 * masked-off bytes reach an unmapped or not yet faulted page.
 *
 * Not kept: 65-128 B in the same branch as 0-64, by a second masked vector
 * that is masked off below 65 B (at d + 64, or at d itself so as to touch
 * no other line).  With no branch at 64 B the L1 arena went from 2.38x to
 * 2.83x (fleet) and 1.63x to 2.07x (recorded programs), but the LLC arena
 * fell 1.82x -> 1.59x and the memory arena 1.05x -> 0.88x, and hot
 * misaligned copies of 1-63 B 1.15x -> 0.80x: the masked-off access still
 * costs a load and a store slot, and under misses those are what runs out.
 */
static FM_ALWAYS_INLINE int copy_small(u8 *d, const u8 *s, size_t n)
{
	if (FM_LIKELY(n <= VEC)) {
		VMASK_COPY(d, s, n);
		return 1;
	}
	return copy_to_8vec(d, s, n);
}
#else
#if I386_APART
/* 2 VEC < n <= 8 VEC on i386, the ymm values away from the entry points
 * (vecops.h, I386_APART) */
static __attribute__((noinline)) void copy_vec_le8(u8 *d, const u8 *s, size_t n)
{
	copy_le8(d, s, n);
}

/* 32 <= n <= 64 in four xmm, all loaded first: no call on sort's moves */
static inline void copy_32_64_xmm(u8 *d, const u8 *s, size_t n)
{
	__m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
	__m128i y =
		_mm_loadu_si128((const __m128i *)(const void *)(s + n - 32));
	__m128i z =
		_mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));

	_mm_storeu_si128((__m128i *)(void *)d, a);
	_mm_storeu_si128((__m128i *)(void *)(d + 16), b);
	_mm_storeu_si128((__m128i *)(void *)(d + n - 32), y);
	_mm_storeu_si128((__m128i *)(void *)(d + n - 16), z);
}
#endif

/*
 * n <= 8 VEC: copies and says so.  32 to 2 VEC bytes fall through (sort's
 * moves are 32 and 64 bytes, 92% of them), as in glibc.
 */
static FM_ALWAYS_INLINE int copy_small(u8 *d, const u8 *s, size_t n)
{
	if (FM_UNLIKELY(n < 32)) {
		copy_lt32(d, s, n);
		return 1;
	}
#if I386_APART
	if (FM_LIKELY(n <= 64)) {
		copy_32_64_xmm(d, s, n);
		return 1;
	}
	if (FM_LIKELY(n <= 8 * VEC)) {
		copy_vec_le8(d, s, n);
		return 1;
	}
	return 0;
#else
	return copy_to_8vec(d, s, n);
#endif
}

#endif

COPY_ENTRY void *FN(copy_, )(void *dst, const void *src, size_t n)
{
	RETURN_DST_EARLY(dst);
	if (copy_small(dst, src, n))
		return dst;
	return copy_loop(dst, src, n);
}

/* Streams whenever the buffers do not overlap and a loop would run. */
COPY_ENTRY void *FN(copy_, _nt)(void *dst, const void *src, size_t n)
{
	RETURN_DST_EARLY(dst);
	if (copy_small(dst, src, n))
		return dst;
	if (fm_overlaps(dst, src, n))
		return copy_loop(dst, src, n);
	return copy_nt(dst, src, n, fm_x86_nt_prefetch());
}

/*
 * n > 8 VEC.  op: FM_X_COPY or FM_X_MOVE for the dispatched policies, whose
 * streaming below thr depends on where the data is (probe.c); -1 for an
 * explicit threshold (the hints), which is the whole decision.  The
 * threshold is tested before the crossovers are looked up: a program that
 * only streams by hint never has them computed (nor the probe calibrated).
 * Past it the dispatched policies still keep destinations being faulted
 * in out of streaming (fm_x86_faulting).
 */
static __attribute__((noinline)) void *
copy_big_policy(u8 *d, const u8 *s, size_t n, size_t thr, int op)
{
	if (n >= thr && !fm_overlaps(d, s, n) &&
	    (op < 0 || !fm_x86_faulting(fm_x86_tune(), d, n)))
		return copy_nt(d, s, n, fm_x86_nt_prefetch());
	switch (fm_x86_copy_how(fm_x86_tune(), d, s, n, op)) {
	case FM_X_STREAM:
		return copy_nt(d, s, n, fm_x86_nt_prefetch());
	case FM_X_REP:
		return copy_rep(d, s, n);
	default:
		return copy_loop(d, s, n);
	}
}

/*
 * Below fm_x86_copy_loop_below (16 KiB, or a lower rep movsb crossover) the
 * loop, without looking the crossovers up; inline, so that these sizes
 * reach the loop without the policy's register saves (GCC did not
 * shrink-wrap them: 256 B-16 KiB paid 5 pushes and pops).  Between a lower
 * crossover and 16 KiB, the 4 KiB alias window too (fm_rep_movsb_slow): the
 * policy would send such copies back to the loop (every class with a
 * crossover that low keeps the window: check_policy's table_is_sane; only
 * a rep_from.memcpy below 16 KiB on a class without it loses rep movsb
 * there), and the way there cost hot 4 KiB
 * copies 5% on the Ice Lake guest
 * (docs/measurements/icelake-guest.md#the-alias-window-inline).
 */
static FM_ALWAYS_INLINE void *copy_big(u8 *d, const u8 *s, size_t n, size_t thr,
				       int op)
{
	size_t below =
		__atomic_load_n(&fm_x86_copy_loop_below, __ATOMIC_RELAXED);

	if (FM_LIKELY((n < below ||
		       (n < FM_X86_LOOP_BELOW && fm_rep_movsb_slow(d, s))) &&
		      n < thr))
		return COPY_LOOP_INLINE ? copy_loop_inline(d, s, n)
					: copy_loop(d, s, n);
	return copy_big_policy(d, s, n, thr, op);
}

/*
 * The policy with an explicit threshold (the hints): small sizes without a
 * loop, the vector loop while both buffers fit in L1d, rep movsb above
 * (with ERMS), and streaming stores from thr bytes on when the buffers do
 * not overlap.
 */
COPY_ENTRY void *FN(copy_, _auto)(void *dst, const void *src, size_t n,
				  size_t thr)
{
	RETURN_DST_EARLY(dst);
	if (copy_small(dst, src, n))
		return dst;
	return copy_big(dst, src, n, thr, -1);
}

/*
 * The same policy as the dispatcher installs it, in the plain signature:
 * the threshold is loaded only past the small sizes, and a small copy costs
 * no more than the plain variant.  A wrapper that loaded the threshold and
 * jumped here cost 8-128 B copies 5.25 TSC ticks against the plain
 * variant's 4.6 on Zen 5 (fastest of 300 runs of 200 calls each).
 */
static BIG_PATH void *memcpy_big(u8 *d, const u8 *s, size_t n)
{
	return copy_big(d, s, n, fm_threshold_ready(FM_OP_MEMCPY), FM_X_COPY);
}

static BIG_PATH void *memmove_big(u8 *d, const u8 *s, size_t n)
{
	return copy_big(d, s, n, fm_threshold_ready(FM_OP_MEMMOVE), FM_X_MOVE);
}

static FM_ALWAYS_INLINE void *memcpy_auto(void *dst, const void *src, size_t n)
{
	RETURN_DST_EARLY(dst);
	if (copy_small(dst, src, n))
		return dst;
	return memcpy_big(dst, src, n);
}

static FM_ALWAYS_INLINE void *memmove_auto(void *dst, const void *src, size_t n)
{
	RETURN_DST_EARLY(dst);
	if (copy_small(dst, src, n))
		return dst;
	return memmove_big(dst, src, n);
}

COPY_ENTRY void *FN(memcpy_, _auto)(void *dst, const void *src, size_t n)
{
	return memcpy_auto(dst, src, n);
}

COPY_ENTRY void *FN(memmove_, _auto)(void *dst, const void *src, size_t n)
{
	return memmove_auto(dst, src, n);
}

/*
 * Their traced twins (FASTMEM_TRACE, lib/trace.c): the count inlined at
 * the top of the policy itself, so that a traced call makes no jump more
 * than an untraced one.
 */
COPY_ENTRY void *FN(traced_memcpy_, _auto)(void *dst, const void *src, size_t n)
{
	FM_TRACE_COPY(FM_OP_MEMCPY, FN(memcpy_, _auto), dst, src, n);
	return memcpy_auto(dst, src, n);
}

COPY_ENTRY void *FN(traced_memmove_, _auto)(void *dst, const void *src,
					    size_t n)
{
	FM_TRACE_COPY(FM_OP_MEMMOVE, FN(memmove_, _auto), dst, src, n);
	return memmove_auto(dst, src, n);
}
