/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void arena_init(struct arena *a, size_t size)
{
	size_t pages = (size + FM_PAGE_SIZE - 1) / FM_PAGE_SIZE;

	a->size = pages * FM_PAGE_SIZE;
	a->map_size = a->size + 2 * FM_PAGE_SIZE;
	a->map = mmap(NULL, a->map_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->map == MAP_FAILED) {
		perror("mmap");
		abort();
	}
	if (mprotect(a->map, FM_PAGE_SIZE, PROT_NONE) ||
	    mprotect(a->map + FM_PAGE_SIZE + a->size, FM_PAGE_SIZE,
		     PROT_NONE)) {
		perror("mprotect");
		abort();
	}
	a->base = a->map + FM_PAGE_SIZE;
	a->end = a->base + a->size;
}

void arena_free(struct arena *a)
{
	munmap(a->map, a->map_size);
}

void fill_pattern(unsigned char *p, size_t n, size_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pattern_byte(i + seed);
}

static void window(const struct arena *a, const unsigned char *p, size_t n,
		   unsigned char **lo, unsigned char **hi)
{
	*lo = (unsigned char *)(p - a->base > WINDOW ? p - WINDOW : a->base);
	*hi = (unsigned char *)((size_t)(a->end - (p + n)) > WINDOW
					? p + n + WINDOW
					: a->end);
}

void arm_canaries(const struct arena *a, unsigned char *p, size_t n)
{
	unsigned char *lo, *hi;

	window(a, p, n, &lo, &hi);
	memset(lo, CANARY, (size_t)(p - lo));
	memset(p + n, CANARY, (size_t)(hi - (p + n)));
}

long stray_write(const struct arena *a, const unsigned char *p, size_t n)
{
	unsigned char *lo, *hi;

	window(a, p, n, &lo, &hi);
	for (unsigned char *q = lo; q < p; q++)
		if (*q != CANARY)
			return q - p;
	for (const unsigned char *q = p + n; q < hi; q++)
		if (*q != CANARY)
			return q - p;
	return -1;
}

int quick_mode(void)
{
	const char *q = getenv("FMTEST_QUICK");

	return q && *q && strcmp(q, "0");
}

static size_t add_size(size_t *out, size_t n, size_t cap, size_t v, size_t max)
{
	if (v == 0 || v > max || n >= cap)
		return n;
	for (size_t i = 0; i < n; i++)
		if (out[i] == v)
			return n;
	out[n++] = v;
	return n;
}

size_t large_sizes(enum fm_op op, size_t max, size_t *out, size_t cap)
{
	size_t n = 0, t = fm_nt_threshold(op);

	for (size_t p = 2048; p <= max; p *= 2) {
		n = add_size(out, n, cap, p - 1, max);
		n = add_size(out, n, cap, p, max);
		n = add_size(out, n, cap, p + 1, max);
	}
	if (t > 1 && t != (size_t)-1) {
		n = add_size(out, n, cap, t - 1, max);
		n = add_size(out, n, cap, t, max);
		n = add_size(out, n, cap, t + 1, max);
	}
	return n;
}

int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int harness_start(const char *argv0, char *self, char *tmpdir, const char *name)
{
	const char *t = getenv("TMPDIR");

	if (!realpath(argv0, self)) {
		perror(argv0);
		return -1;
	}
	snprintf(tmpdir, PATH_MAX, "%s/%s-XXXXXX", t ? t : "/tmp", name);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

void harness_remove(const char *tmpdir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

void harness_slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;

	while ((r = read(fd, buf + len, size - 1 - len)) > 0 ||
	       (r < 0 && errno == EINTR))
		if (r > 0)
			len += (size_t)r;
	buf[len] = 0;
}
