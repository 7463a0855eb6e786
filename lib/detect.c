/* SPDX-License-Identifier: MIT */
/*
 * The auxiliary vector reader, and the notes writer of arch/aarch64 and
 * arch/ppc (lib/detect.h).  Built with the library's RESOLVER_CFLAGS: no
 * jump tables, no vectoriser, never instrumented.
 */
#include "detect.h"
#include "sys.h"

#define AT_NULL_ 0

typedef unsigned char u8;

int fm_auxv_read(uint64_t val[FM_AUXV_TYPES])
{
	/* entries of two machine words: 32-bit ones on i686 */
	unsigned long buf[64];
	const size_t entry = 2 * sizeof(buf[0]);
	size_t have = 0;
	long r;
	int fd;

	/* a loop, not a call: the compiler must not make it a memset here */
	for (unsigned i = 0; i < FM_AUXV_TYPES; i++)
		val[i] = 0;
	fd = fm_open("/proc/self/auxv");
	if (fd < 0)
		return 0;
	while ((r = fm_read(fd, (u8 *)buf + have, sizeof(buf) - have)) > 0) {
		size_t i, pairs;

		have += (size_t)r;
		pairs = have / entry;
		for (i = 0; i < pairs; i++) {
			unsigned long type = buf[2 * i];

			if (type == AT_NULL_) {
				fm_close(fd);
				return 1;
			}
			if (type < FM_AUXV_TYPES)
				val[type] = buf[2 * i + 1];
		}
		/* keep a partial pair for the next read */
		for (i = 0; i < have - pairs * entry; i++)
			((u8 *)buf)[i] = ((u8 *)buf)[pairs * entry + i];
		have -= pairs * entry;
	}
	/* an error, or the end of the file before AT_NULL */
	fm_close(fd);
	return 0;
}

void fm_text_init(struct fm_text *t, char *buf, size_t size)
{
	t->buf = buf;
	t->len = 0;
	t->size = size;
	buf[0] = 0;
}

void fm_text_put(struct fm_text *t, const char *s)
{
	while (*s && t->len + 1 < t->size)
		t->buf[t->len++] = *s++;
	t->buf[t->len] = 0;
}

void fm_text_put_num(struct fm_text *t, uint64_t v, int hex)
{
	char tmp[24];
	int i = 0;
	unsigned base = hex ? 16 : 10;

	if (hex)
		fm_text_put(t, "0x");
	do {
		tmp[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (i--) {
		char c[2] = { tmp[i], 0 };
		fm_text_put(t, c);
	}
}
