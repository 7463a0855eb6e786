/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: every row is verified before it is timed.
 */
#include "config.h"

#include <string.h>

#include "bench.h"

/* --- verification ------------------------------------------------------------
 *
 * Before the first timed call of a cell, each row runs once on slot 0 with
 * fresh data: the bytes it must write are set to something else first, and
 * 64 guard bytes on each side must survive.  Up to 1 MiB everything is
 * checked; above, the first and last 4 KiB and 256 random 64-byte windows.
 */

#define GUARD 64
#define FULL_CHECK (1 * MIB)
#define NWIN 256
#define WIN 64

struct windows {
	size_t off[NWIN + 2], len[NWIN + 2];
	int n;
};

static void make_windows(struct windows *w, size_t n, unsigned gen)
{
	uint64_t x = 0x9E3779B97F4A7C15ull ^ ((uint64_t)gen << 32) ^ n;

	w->n = 0;
	if (n <= FULL_CHECK) {
		w->off[0] = 0;
		w->len[0] = n;
		w->n = 1;
		return;
	}
	w->off[w->n] = 0;
	w->len[w->n++] = 4096;
	w->off[w->n] = n - 4096;
	w->len[w->n++] = 4096;
	for (int i = 0; i < NWIN; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w->off[w->n] = (size_t)(x % (n - WIN));
		w->len[w->n++] = WIN;
	}
}

static inline unsigned char pat(unsigned gen, size_t i)
{
	uint32_t v = (uint32_t)(i + gen * 0x51u) * 0x9E3779B1u;

	return (unsigned char)(v >> 24);
}

static int check_guards(struct job *j, unsigned char *d, size_t n,
			unsigned char g)
{
	for (size_t i = 1; i <= GUARD; i++) {
		if (d[-(ptrdiff_t)i] != g) {
			snprintf(j->why, sizeof(j->why),
				 "wrote %zu byte(s) before the destination", i);
			return -1;
		}
	}
	for (size_t i = 0; i < GUARD; i++) {
		if (d[n + i] != g) {
			snprintf(j->why, sizeof(j->why),
				 "wrote past the end (byte n+%zu)", i);
			return -1;
		}
	}
	return 0;
}

static int copy_check(struct job *j, unsigned char *d, unsigned char *s,
		      size_t n, void *(*call)(struct job *, void *, void *))
{
	struct windows w;
	unsigned gen = ++j->gen;
	void *ret;

	make_windows(&w, n, gen);
	for (int k = 0; k < w.n; k++) {
		for (size_t i = w.off[k]; i < w.off[k] + w.len[k]; i++) {
			s[i] = pat(gen, i);
			d[i] = (unsigned char)~pat(gen, i);
		}
	}
	for (size_t i = 1; i <= GUARD; i++) {
		d[-(ptrdiff_t)i] = 0xC3;
		s[-(ptrdiff_t)i] = 0x3C;
		d[n + i - 1] = 0xC3;
		s[n + i - 1] = 0x3C;
	}
	ret = call(j, d, s);
	if (ret && ret != (void *)d) {
		snprintf(j->why, sizeof(j->why),
			 "returned %p, not the destination %p", ret, (void *)d);
		return -1;
	}
	for (int k = 0; k < w.n; k++) {
		for (size_t i = w.off[k]; i < w.off[k] + w.len[k]; i++) {
			if (d[i] != pat(gen, i)) {
				snprintf(j->why, sizeof(j->why),
					 "byte %zu of %zu is 0x%02x, expected "
					 "0x%02x",
					 i, n, d[i], pat(gen, i));
				return -1;
			}
		}
	}
	return check_guards(j, d, n, 0xC3);
}

static void *call_copy(struct job *j, void *d, void *s)
{
	return j->s->fn.copy(d, s, j->n);
}

static void *call_cpage(struct job *j, void *d, void *s)
{
	j->s->fn.cpage(d, s);
	return NULL;
}

int verify_copy(struct job *j)
{
	return copy_check(j, (unsigned char *)j->dst, (unsigned char *)j->src,
			  j->n, call_copy);
}

int verify_cpage(struct job *j)
{
	return copy_check(j, (unsigned char *)j->dst, (unsigned char *)j->src,
			  PAGE, call_cpage);
}

static int set_check(struct job *j, unsigned char *d, size_t n, int c,
		     int is_clear)
{
	struct windows w;
	unsigned gen = ++j->gen;
	unsigned char want = (unsigned char)c;
	unsigned char g = want == 0xC3 ? 0x3C : 0xC3;
	void *ret = NULL;

	make_windows(&w, n, gen);
	for (int k = 0; k < w.n; k++)
		for (size_t i = w.off[k]; i < w.off[k] + w.len[k]; i++)
			d[i] = (unsigned char)(~want ^ (pat(gen, i) & 0x0f));
	for (size_t i = 1; i <= GUARD; i++) {
		d[-(ptrdiff_t)i] = g;
		d[n + i - 1] = g;
	}
	if (is_clear)
		j->s->fn.clear(d, j->n);
	else
		ret = j->s->fn.set(d, c, n);
	if (!is_clear && ret != (void *)d) {
		snprintf(j->why, sizeof(j->why),
			 "returned %p, not the destination %p", ret, (void *)d);
		return -1;
	}
	for (int k = 0; k < w.n; k++) {
		for (size_t i = w.off[k]; i < w.off[k] + w.len[k]; i++) {
			if (d[i] != want) {
				snprintf(j->why, sizeof(j->why),
					 "byte %zu of %zu is 0x%02x, expected "
					 "0x%02x",
					 i, n, d[i], want);
				return -1;
			}
		}
	}
	return check_guards(j, d, n, g);
}

int verify_set(struct job *j)
{
	return set_check(j, (unsigned char *)j->dst, j->n, j->c, 0);
}

int verify_clear(struct job *j)
{
	return set_check(j, (unsigned char *)j->dst, j->n * PAGE, 0, 1);
}
