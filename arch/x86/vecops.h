/* SPDX-License-Identifier: MIT */
/*
 * The copy and set algorithms of the vector families, written once over a
 * vector of VEC bytes.  sse2.c, avx2.c and avx512.c define the vector
 * operations below and include this file, which defines their
 * copy_<family>{,_nt,_auto} (vecops-copy.h) and set_<family>{,_nt,_auto}
 * (vecops-set.h), plus static page helpers each family wraps as it needs
 * (vecops-set.h).
 *
 * Size classes, after glibc's memmove-vec-unaligned-erms: below 32 bytes a
 * few classes of overlapping word accesses (or one masked vector), up to
 * 2 VEC a head and a tail vector, up to 8 VEC four of each, all
 * loaded before anything is stored, so these need no overlap check; above
 * that a loop of 4 VEC with aligned stores, forward or backward, with the
 * head and tail vectors loaded first and stored last.  That makes every copy
 * here memmove-correct.
 *
 * The including file defines:
 *   FAMILY                 name token (sse2, avx2, avx512, avx512_zen4)
 *   VEC                    vector bytes (16, 32, 64)
 *   vec_t                  the vector type
 *   VLOADU(p) VLOADA(p)    unaligned / aligned load
 *   VSTOREU(p, v) VSTOREA(p, v) VSTREAM(p, v)
 *   VSPLAT(c)              c in every byte
 *   VZERO()                all zero
 * and, with byte-masked loads and stores (AVX-512BW), VMASK_COPY(d, s, n)
 * and VMASK_SET(d, c, n) for n <= VEC without a ladder of size branches;
 * SET_LE8_IN_ORDER gives sets of 4-8 VEC a path apart from 2-4 VEC;
 * SET_LE8_ENDS_FIRST stores their first and last two vectors first.
 */
#ifndef VEC
#error "define the vector operations before including vecops.h"
#endif

/*
 * The entry points start on a 64-byte line, as glibc's do: where the hot
 * small-size paths fall relative to the lines moved replay results by
 * several percent from one build to the next.
 */
#define ENTRY_ALIGN __attribute__((aligned(64)))

/*
 * The avx2 family's copy entry points on x86-64 have their jump targets on
 * 64 bytes, where the rest of avx2.c has them on 32 (Makefile.am): the
 * block that starts the 65-256 B class, up to its 128 B test, is 57 bytes
 * of code.  On the Zen 3 guest hot aligned copies of 96-256 B ran
 * 1.06-1.09x faster and of 1-3 B 1.10x, of 1 KiB 0.97x; the sets keep 32,
 * on 64 their hot 96-128 B lost 8-12% (docs/measurements/zen3-guest.md,
 * "Jump targets on 32 bytes").  Not measured on i386, where avx2.c keeps
 * GCC's default alignment.  GCC only: clang has no optimize attribute (nor
 * takes -falign-jumps).
 */
#if VEC == 32 && defined(__x86_64__) && !defined(__clang__)
#define COPY_ENTRY __attribute__((aligned(64), optimize("align-jumps=64")))
#else
#define COPY_ENTRY ENTRY_ALIGN
#endif

/*
 * The entry points put dst in the return register first, as glibc's do;
 * GCC then ends each size class with a ret of its own, where it otherwise
 * jumped back to one shared "mov %rdi, %rax; ret": a taken branch more on
 * every path but the first (65-128 B copies and sets).
 */
#ifdef __x86_64__
#define RETURN_DST_EARLY(p) __asm__("" : "+a"(p))
#else
#define RETURN_DST_EARLY(p) ((void)0)
#endif

/*
 * i386, the avx2 family.  GCC realigns the stack of a 32-bit function that
 * holds a ymm value and makes a call, and it sets up the PIC register that
 * the threshold loads need in the prologue, on every path.  In the entry
 * points, that took a third of the speed of small copies where the data
 * missed the caches: on the Zen 3 guest, copies of 1-31 B at the fleet's
 * sizes ran 0.57-0.73x glibc in the memory arena, through the sse2
 * family's entry points 0.83-1.05x.  So there
 * (I386_APART) the entry points hold no ymm value (copy_small) and take
 * the way past the small sizes, with the threshold loads, in a function of
 * their own (BIG_PATH): the fleet's copies 1.08-1.34x faster than before
 * in every arena, sets 1.01-1.22x, hot copies of 1-64 B 1.05-1.37x, but
 * 96 B-1 KiB 0.94-1.09x, one call more (docs/measurements/zen3-guest.md,
 * "i686 builds").  Not for the sse2 family (no realignment; the call more
 * cost hot copies of 200-512 B 2-8%, below glibc's speed) nor AVX-512 on
 * i386 (not measured).
 */
#if defined(__i386__) && !defined(VMASK_COPY) && VEC == 32
#define I386_APART 1
#define BIG_PATH __attribute__((noinline))
#else
#define I386_APART 0
#define BIG_PATH FM_ALWAYS_INLINE
#endif

/*
 * Whether the loops of more than 8 VEC below the crossovers are inlined
 * into the dispatched entry points, where they were a tail call.  On the
 * Zen 3 guest (docs/measurements/zen3-guest.md, "The loops inline"), the
 * avx2 family's hot copies of 384 and 512 B ran 1.14-1.18x faster, its hot
 * aligned sets of 384 B 1.12x, the sse2 family's hot sets of 200 B-2 KiB
 * 1.07-1.30x, and every replay table's geometric mean within 0.994-1.011
 * (avx2) and 0.995-1.032 (sse2) of before.  The sse2 family's copies are
 * not inlined: its hot copies of 384 B-2 KiB lost 3-6%.  Nor the AVX-512
 * families' loops (not measured since), nor any on i386: its sets were not
 * measured, and in the avx2 family's memcpy_big (I386_APART) the ymm
 * values of an inline copy loop realigned the stack, which cost hot copies
 * of 384 B-32 KiB 1-6% ("i686 builds").
 */
#if defined(__x86_64__) && !defined(VMASK_COPY)
#define SET_LOOP_INLINE 1
#define COPY_LOOP_INLINE (VEC == 32)
#else
#define SET_LOOP_INLINE 0
#define COPY_LOOP_INLINE 0
#endif

#define FN(pre, post) FN_(pre, FAMILY, post)
#define FN_(a, b, c) FN__(a, b, c)
#define FN__(a, b, c) a##b##c

typedef unsigned char u8;

/*
 * dst this close ahead of src (mod 4 KiB) makes a forward loop's loads look
 * dependent on its recent stores, so the loop runs backward.  glibc's window
 * is 8 VEC; on Zen 5 the zmm loop still lost 5-15% at 8 VEC to 24 VEC ahead,
 * which 32 VEC (the stores in flight) recovers.  A copy of n bytes uses no
 * more of the window than n: its loads are at most n bytes past its
 * stores.  That sends fewer copies at random addresses backward, where the
 * direction is a branch mispredicted as often as it is taken: random
 * copies of 513-1024 B in L1 0.77x -> 0.85x glibc on the Zen 5 guest, every
 * replay table within 1% (docs/measurements/zen5-guest.md, "The alias
 * window").
 */
#ifndef ALIAS_WINDOW
#define ALIAS_WINDOW (32 * VEC)
#endif

#include "trace-count.h"

#include "vecops-copy.h"
#include "vecops-set.h"
