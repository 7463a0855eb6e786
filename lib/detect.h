/* SPDX-License-Identifier: MIT */
/*
 * Reading the auxiliary vector (every arch: the settings' secure mode, the
 * CPU detection of arch/aarch64 and arch/ppc), and what those two
 * detections have in common besides: running once for every caller, and
 * writing the notes fastmem-info shows.  Everything here is hidden.
 */
#ifndef FASTMEM_DETECT_H
#define FASTMEM_DETECT_H

#include "internal.h"

/*
 * The auxiliary vector's entries by type (AT_HWCAP is 16, AT_SECURE 23,
 * AT_HWCAP2 26, the cache sizes 40-47): types from this on are not kept.
 */
#define FM_AUXV_TYPES 48
#define FM_AT_SECURE 23

/*
 * Read /proc/self/auxv through raw system calls into val[type]; a type the
 * kernel does not give stays 0.  Returns whether the file was read to its
 * end (if not, what was read is kept).  RESOLVER-SAFE: no libc, no
 * relocated pointer.
 */
FM_HIDDEN int fm_auxv_read(uint64_t val[FM_AUXV_TYPES]);

/*
 * FM_DETECT_ONCE(name, type, detect, publish) defines
 *	static const type *name(type *scratch);
 * which returns detect()'s results, detecting once: the first caller fills
 * a shared copy, hands it to publish() (to store what the variants read
 * themselves) and then publishes it; anyone arriving meanwhile (another
 * thread, a signal handler) detects into scratch instead of waiting.
 * Direct calls only: a function pointer is not resolver-safe everywhere
 * (on big-endian ppc64 it points at a descriptor that needs relocating).
 * RESOLVER-SAFE when detect() and publish() are.
 */
#define FM_DETECT_ONCE(name, type, detect, publish)                            \
	static type name##_shared;                                             \
	/* 0 none, 1 filling, 2 ready */                                       \
	static int name##_state;                                               \
                                                                               \
	static const type *name(type *scratch)                                 \
	{                                                                      \
		int expect = 0;                                                \
                                                                               \
		if (__atomic_load_n(&name##_state, __ATOMIC_ACQUIRE) == 2)     \
			return &name##_shared;                                 \
		if (!__atomic_compare_exchange_n(&name##_state, &expect, 1, 0, \
						 __ATOMIC_ACQUIRE,             \
						 __ATOMIC_RELAXED)) {          \
			detect(scratch);                                       \
			return scratch;                                        \
		}                                                              \
		detect(&name##_shared);                                        \
		publish(&name##_shared);                                       \
		__atomic_store_n(&name##_state, 2, __ATOMIC_RELEASE);          \
		return &name##_shared;                                         \
	}

/* A note being written into a fixed buffer, cut to fit (call time only). */
struct fm_text {
	char *buf;
	size_t len, size;
};

FM_HIDDEN void fm_text_init(struct fm_text *t, char *buf, size_t size);
FM_HIDDEN void fm_text_put(struct fm_text *t, const char *s);
/* v in decimal, or in hex with "0x" */
FM_HIDDEN void fm_text_put_num(struct fm_text *t, uint64_t v, int hex);

#endif /* FASTMEM_DETECT_H */
