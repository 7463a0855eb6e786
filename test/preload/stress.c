/*
 * stress.c - multi-threaded stress test for memcpy-family replacements.
 *
 * This program deliberately knows nothing about libfastmem: it calls the
 * ordinary C library entry points (memcpy, memmove, memset, mempcpy, bcopy,
 * bzero, explicit_bzero and the __*_chk fortify variants), so when it is run
 * with LD_PRELOAD=libfastmem-preload.so it exercises the replacements, and
 * when run plainly it exercises glibc.
 *
 * Every operation is checked against a simple byte-loop reference.  Buffers
 * live in mmap()ed regions surrounded by PROT_NONE guard pages and some
 * operations are placed flush against the guards, so out-of-bounds reads or
 * writes crash instead of going unnoticed.  A SIGALRM handler (setitimer,
 * every ~1 ms) also copies and sets its own per-thread buffers and checks
 * them, interrupting whatever the worker threads are doing.
 *
 * Overlapping memcpy is undefined behaviour and is NOT tested; overlapping
 * moves use memmove/bcopy/__memmove_chk only.
 *
 * Usage: stress [SECONDS [THREADS]]   (defaults: 2 seconds, 4 threads)
 * Exit status: 0 success, 1 mismatch (message names the first one), 2 usage
 * or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Fortify entry points exported by glibc (not declared by its headers). */
extern void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
extern void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
extern void *__memset_chk(void *dst, int c, size_t n, size_t dstlen);
extern void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);

/*
 * Calls go through volatile function pointers so that the compiler can neither
 * inline them nor rewrite them (GCC turns bzero into memset, bcopy into
 * memmove and sometimes mempcpy into memcpy).  The pointers are initialised
 * at run time from the dynamic symbols, i.e. from the preloaded library when
 * there is one.  Direct calls are also made for the three main functions.
 */
typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);
typedef void (*bcopy_fn)(const void *, void *, size_t);
typedef void (*bzero_fn)(void *, size_t);
typedef void *(*copy_chk_fn)(void *, const void *, size_t, size_t);
typedef void *(*set_chk_fn)(void *, int, size_t, size_t);

static copy_fn volatile p_memcpy = memcpy;
static copy_fn volatile p_memmove = memmove;
static set_fn volatile p_memset = memset;
static copy_fn volatile p_mempcpy = mempcpy;
static bcopy_fn volatile p_bcopy = bcopy;
static bzero_fn volatile p_bzero = bzero;
static bzero_fn volatile p_explicit_bzero = explicit_bzero;
static copy_chk_fn volatile p_memcpy_chk = __memcpy_chk;
static copy_chk_fn volatile p_memmove_chk = __memmove_chk;
static set_chk_fn volatile p_memset_chk = __memset_chk;
static copy_chk_fn volatile p_mempcpy_chk = __mempcpy_chk;

/* ------------------------------------------------------------------------ */
/* Reference implementations.  The volatile destination keeps GCC from
 * recognising the loops and turning them back into library calls. */

static void ref_copy(unsigned char *dst, const unsigned char *src, size_t n)
{
	volatile unsigned char *d = dst;
	if (dst <= src) {
		for (size_t i = 0; i < n; i++)
			d[i] = src[i];
	} else {
		for (size_t i = n; i > 0; i--)
			d[i - 1] = src[i - 1];
	}
}

static void ref_set(unsigned char *dst, unsigned char c, size_t n)
{
	volatile unsigned char *d = dst;
	for (size_t i = 0; i < n; i++)
		d[i] = c;
}

/* Index of first difference in [0, n), or n if equal. */
static size_t ref_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
	const volatile unsigned char *x = a;
	for (size_t i = 0; i < n; i++)
		if (x[i] != b[i])
			return i;
	return n;
}

/* ------------------------------------------------------------------------ */

#define MAXN ((size_t)1 << 20)      /* largest operation: 1 MiB */
#define SLACK ((size_t)8192)        /* room for random offsets */
#define BUFSZ (MAXN + SLACK)
#define CHECK_MARGIN ((size_t)256)  /* bytes checked either side of an op */
#define FULL_CHECK_EVERY 64

static long page_size;

static unsigned char *alloc_guarded(size_t size)
{
	size_t body = (size + (size_t)page_size - 1) & ~((size_t)page_size - 1);
	size_t total = body + 2 * (size_t)page_size;
	unsigned char *p = mmap(NULL, total, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + page_size, body, PROT_READ | PROT_WRITE) != 0)
		return NULL;
	/* End the buffer exactly at the trailing guard page (BUFSZ is a
	 * multiple of the page size, so it also starts right after the leading
	 * guard page). */
	return p + page_size + (body - size);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static size_t rng_below(uint64_t *s, size_t n)
{
	return n ? (size_t)(rng_next(s) % n) : 0;
}

/* ------------------------------------------------------------------------ */
/* Failure reporting (worker threads). */

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static char fail_msg[512];
static volatile int stop_all;

static void report_failure(const char *fmt, ...)
{
	pthread_mutex_lock(&fail_lock);
	if (!fail_msg[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(fail_msg, sizeof fail_msg, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&fail_lock);
	__atomic_store_n(&stop_all, 1, __ATOMIC_SEQ_CST);
}

/* ------------------------------------------------------------------------ */
/* Signal handler: works on per-thread buffers so concurrent deliveries to
 * different threads never share state; SIGALRM is blocked while the handler
 * runs, so it never nests within one thread. */

#define SIG_BUF 4096
#define SIG_PAD 64

static volatile sig_atomic_t sig_fail;      /* 0 = ok, else an op code */
static volatile sig_atomic_t sig_fail_n;    /* size of the failing op */
static volatile sig_atomic_t sig_fail_at;   /* first bad byte index */
static unsigned long sig_count;             /* updated atomically */

static __thread unsigned char sig_src[SIG_BUF];
static __thread unsigned char sig_dst[SIG_BUF + 2 * SIG_PAD];
static __thread unsigned char sig_exp[SIG_BUF + 2 * SIG_PAD];
static __thread unsigned sig_iter;

static void sig_check(int op, size_t n)
{
	size_t at = ref_diff(sig_dst, sig_exp, sizeof sig_dst);
	if (at != sizeof sig_dst && !sig_fail) {
		sig_fail_n = (sig_atomic_t)n;
		sig_fail_at = (sig_atomic_t)at;
		sig_fail = op;
	}
}

static void on_alarm(int sig)
{
	int saved_errno = errno;
	unsigned it = ++sig_iter;
	size_t n = (it * 2654435761u) % (SIG_BUF - 16);
	size_t so = it % 7, doff = SIG_PAD + (it * 13u) % 9;
	unsigned char v = (unsigned char)(it * 31u + 7u);

	(void)sig;
	if (n + doff > sizeof sig_dst - SIG_PAD)
		n = sizeof sig_dst - SIG_PAD - doff;

	for (size_t i = 0; i < sizeof sig_src; i++)
		sig_src[i] = (unsigned char)(i * 7u + it);
	ref_set(sig_dst, 0xA5, sizeof sig_dst);
	ref_set(sig_exp, 0xA5, sizeof sig_exp);

	/* memcpy */
	if (p_memcpy(sig_dst + doff, sig_src + so, n) != sig_dst + doff && !sig_fail)
		sig_fail = 10;
	ref_copy(sig_exp + doff, sig_src + so, n);
	sig_check(1, n);

	/* memset */
	if (p_memset(sig_dst + doff + 3, v, n / 2) != sig_dst + doff + 3 && !sig_fail)
		sig_fail = 20;
	ref_set(sig_exp + doff + 3, v, n / 2);
	sig_check(2, n / 2);

	/* memmove, overlapping in both directions */
	size_t m = n / 2, d = 1 + it % 40;
	p_memmove(sig_dst + doff + d, sig_dst + doff, m);
	ref_copy(sig_exp + doff + d, sig_exp + doff, m);
	sig_check(3, m);
	p_memmove(sig_dst + doff, sig_dst + doff + d, m);
	ref_copy(sig_exp + doff, sig_exp + doff + d, m);
	sig_check(4, m);

	__atomic_add_fetch(&sig_count, 1, __ATOMIC_RELAXED);
	errno = saved_errno;
}

static const char *sig_op_name(int op)
{
	switch (op) {
	case 1: return "memcpy";
	case 2: return "memset";
	case 3: return "memmove (dst > src, overlapping)";
	case 4: return "memmove (dst < src, overlapping)";
	case 10: return "memcpy return value";
	case 20: return "memset return value";
	default: return "?";
	}
}

/* ------------------------------------------------------------------------ */
/* Worker threads. */

enum op {
	OP_MEMCPY, OP_MEMCPY_PTR, OP_MEMPCPY, OP_MEMCPY_CHK, OP_MEMPCPY_CHK,
	OP_MEMMOVE, OP_MEMMOVE_PTR, OP_BCOPY, OP_MEMMOVE_CHK,
	OP_MEMSET, OP_MEMSET_PTR, OP_MEMSET_CHK, OP_BZERO, OP_EXPLICIT_BZERO,
	OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"memcpy", "memcpy(ptr)", "mempcpy", "__memcpy_chk", "__mempcpy_chk",
	"memmove", "memmove(ptr)", "bcopy", "__memmove_chk",
	"memset", "memset(ptr)", "__memset_chk", "bzero", "explicit_bzero",
};

struct worker {
	pthread_t tid;
	int index;
	double deadline;
	unsigned long ops[OP_COUNT];
	unsigned char *a, *b, *r;   /* source, target, reference mirror of b */
};

static size_t pick_size(uint64_t *s)
{
	switch (rng_below(s, 20)) {
	case 0: case 1: case 2: case 3:
		return rng_below(s, 17);                 /* 0..16 */
	case 4: case 5: case 6: case 7: case 8:
		return rng_below(s, 257);                /* 0..256 */
	case 9: case 10: case 11: case 12: case 13:
		return rng_below(s, 4097);               /* 0..4 KiB */
	case 14: case 15: case 16: case 17:
		return rng_below(s, 65537);              /* 0..64 KiB */
	default:
		return rng_below(s, MAXN + 1);           /* 0..1 MiB */
	}
}

/* Pick an offset for a region of n bytes inside a BUFSZ buffer, sometimes
 * flush against either guard page. */
static size_t pick_off(uint64_t *s, size_t n)
{
	switch (rng_below(s, 10)) {
	case 0: return 0;
	case 1: return BUFSZ - n;
	case 2: return rng_below(s, 64);
	case 3: return BUFSZ - n - rng_below(s, 64);  /* BUFSZ - n >= SLACK */
	default: return rng_below(s, BUFSZ - n + 1);
	}
}

static void fill_random(uint64_t *s, unsigned char *p, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t v = rng_next(s);
		for (int k = 0; k < 8; k++)
			p[i + (size_t)k] = (unsigned char)(v >> (8 * k));
	}
	for (; i < n; i++)
		p[i] = (unsigned char)rng_next(s);
}

static int verify(struct worker *w, enum op op, size_t lo, size_t hi,
		  size_t doff, size_t soff, size_t n, unsigned long opno)
{
	lo = lo > CHECK_MARGIN ? lo - CHECK_MARGIN : 0;
	hi = hi + CHECK_MARGIN < BUFSZ ? hi + CHECK_MARGIN : BUFSZ;
	size_t at = ref_diff(w->b + lo, w->r + lo, hi - lo);
	if (at == hi - lo)
		return 0;
	at += lo;
	report_failure("%s mismatch (thread %d, op #%lu, dst offset %zu, "
		       "src offset %zu, size %zu): byte %zd relative to dst "
		       "is 0x%02x, expected 0x%02x",
		       op_names[op], w->index, opno, doff, soff, n,
		       (ssize_t)at - (ssize_t)doff, w->b[at], w->r[at]);
	return 1;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t seed = 0x9E3779B97F4A7C15ULL * (uint64_t)(w->index + 1);
	unsigned long opno = 0;

	fill_random(&seed, w->a, BUFSZ);
	fill_random(&seed, w->b, BUFSZ);
	ref_copy(w->r, w->b, BUFSZ);

	while (!__atomic_load_n(&stop_all, __ATOMIC_RELAXED)) {
		if ((opno & 15) == 0 && now() >= w->deadline)
			break;
		opno++;

		enum op op = (enum op)rng_below(&seed, OP_COUNT);
		size_t n = pick_size(&seed);
		size_t doff = pick_off(&seed, n), soff = 0;
		unsigned char *d = w->b + doff;
		void *ret = NULL, *want = d;
		size_t room = BUFSZ - doff;
		unsigned char c = (unsigned char)rng_next(&seed);

		w->ops[op]++;
		switch (op) {
		case OP_MEMCPY: case OP_MEMCPY_PTR: case OP_MEMPCPY:
		case OP_MEMCPY_CHK: case OP_MEMPCPY_CHK:
			/* source is a different buffer: never overlaps */
			soff = pick_off(&seed, n);
			if (op == OP_MEMCPY)
				ret = memcpy(d, w->a + soff, n);
			else if (op == OP_MEMCPY_PTR)
				ret = p_memcpy(d, w->a + soff, n);
			else if (op == OP_MEMPCPY)
				ret = p_mempcpy(d, w->a + soff, n), want = d + n;
			else if (op == OP_MEMCPY_CHK)
				ret = p_memcpy_chk(d, w->a + soff, n, room);
			else
				ret = p_mempcpy_chk(d, w->a + soff, n, room), want = d + n;
			ref_copy(w->r + doff, w->a + soff, n);
			break;
		case OP_MEMMOVE: case OP_MEMMOVE_PTR: case OP_BCOPY:
		case OP_MEMMOVE_CHK:
			/* source inside the same buffer, usually overlapping */
			if (rng_below(&seed, 4) != 0 && n > 0) {
				size_t delta = rng_below(&seed, 4) == 0
					? 1 + rng_below(&seed, 64 < n ? 64 : n)
					: 1 + rng_below(&seed, n);
				if (rng_below(&seed, 2) && doff >= delta)
					soff = doff - delta;
				else if (doff + delta + n <= BUFSZ)
					soff = doff + delta;
				else if (doff >= delta)
					soff = doff - delta;
				else
					soff = doff;
			} else {
				soff = pick_off(&seed, n);
			}
			if (op == OP_MEMMOVE)
				ret = memmove(d, w->b + soff, n);
			else if (op == OP_MEMMOVE_PTR)
				ret = p_memmove(d, w->b + soff, n);
			else if (op == OP_BCOPY)
				p_bcopy(w->b + soff, d, n), ret = want;
			else
				ret = p_memmove_chk(d, w->b + soff, n, room);
			ref_copy(w->r + doff, w->r + soff, n);
			break;
		case OP_MEMSET: case OP_MEMSET_PTR: case OP_MEMSET_CHK:
		case OP_BZERO: case OP_EXPLICIT_BZERO:
			if (op == OP_BZERO || op == OP_EXPLICIT_BZERO)
				c = 0;
			else if (rng_below(&seed, 4) == 0)
				c = rng_below(&seed, 2) ? 0 : 0xFF;
			if (op == OP_MEMSET)
				ret = memset(d, c, n);
			else if (op == OP_MEMSET_PTR)
				ret = p_memset(d, c, n);
			else if (op == OP_MEMSET_CHK)
				ret = p_memset_chk(d, c, n, room);
			else if (op == OP_BZERO)
				p_bzero(d, n), ret = want;
			else
				p_explicit_bzero(d, n), ret = want;
			ref_set(w->r + doff, c, n);
			break;
		case OP_COUNT:
			break;
		}

		if (ret != want) {
			report_failure("%s returned %p, expected %p (thread %d, "
				       "op #%lu, dst offset %zu, size %zu)",
				       op_names[op], ret, want, w->index, opno,
				       doff, n);
			break;
		}
		if (verify(w, op, doff, doff + n, doff, soff, n, opno))
			break;
		if (opno % FULL_CHECK_EVERY == 0) {
			if (verify(w, op, 0, BUFSZ,
				   doff, soff, n, opno))
				break;
			/* fresh source data now and then */
			fill_random(&seed, w->a + rng_below(&seed, BUFSZ - 4096), 4096);
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	double seconds = 2.0;
	int nthreads = 4;

	if (argc > 3) {
		fprintf(stderr, "usage: %s [SECONDS [THREADS]]\n", argv[0]);
		return 2;
	}
	if (argc > 1) {
		char *end;
		seconds = strtod(argv[1], &end);
		if (*end || seconds < 0 || seconds > 86400) {
			fprintf(stderr, "stress: bad duration '%s'\n", argv[1]);
			return 2;
		}
	}
	if (argc > 2) {
		char *end;
		long t = strtol(argv[2], &end, 10);
		if (*end || t < 1 || t > 256) {
			fprintf(stderr, "stress: bad thread count '%s'\n", argv[2]);
			return 2;
		}
		nthreads = (int)t;
	}

	page_size = sysconf(_SC_PAGESIZE);
	if (page_size <= 0)
		page_size = 4096;

	struct worker *ws = calloc((size_t)nthreads, sizeof *ws);
	if (!ws) {
		perror("stress: calloc");
		return 2;
	}
	for (int i = 0; i < nthreads; i++) {
		ws[i].index = i;
		ws[i].a = alloc_guarded(BUFSZ);
		ws[i].b = alloc_guarded(BUFSZ);
		ws[i].r = alloc_guarded(BUFSZ);
		if (!ws[i].a || !ws[i].b || !ws[i].r) {
			perror("stress: mmap");
			return 2;
		}
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) != 0) {
		perror("stress: sigaction");
		return 2;
	}
	struct itimerval itv = { { 0, 1000 }, { 0, 1000 } };
	if (setitimer(ITIMER_REAL, &itv, NULL) != 0) {
		perror("stress: setitimer");
		return 2;
	}

	double start = now();
	for (int i = 0; i < nthreads; i++) {
		ws[i].deadline = start + seconds;
		int e = pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]);
		if (e) {
			fprintf(stderr, "stress: pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(ws[i].tid, NULL);

	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	double elapsed = now() - start;

	/* The handler also gets a go in the main thread, to be sure it runs at
	 * least once even if the timer never fired during the run. */
	raise(SIGALRM);

	unsigned long total = 0, per_op[OP_COUNT] = { 0 };
	for (int i = 0; i < nthreads; i++)
		for (int k = 0; k < OP_COUNT; k++) {
			per_op[k] += ws[i].ops[k];
			total += ws[i].ops[k];
		}

	int rc = 0;
	if (fail_msg[0]) {
		fprintf(stderr, "stress: FAIL: %s\n", fail_msg);
		rc = 1;
	}
	if (sig_fail) {
		fprintf(stderr, "stress: FAIL: in SIGALRM handler: %s mismatch "
			"(size %d) at byte %d\n", sig_op_name(sig_fail),
			(int)sig_fail_n, (int)sig_fail_at);
		rc = 1;
	}
	if (rc == 0) {
		printf("stress: ok: %d threads, %.2f s, %lu operations, "
		       "%lu signal-handler checks\n", nthreads, elapsed, total,
		       __atomic_load_n(&sig_count, __ATOMIC_RELAXED));
		for (int k = 0; k < OP_COUNT; k++)
			printf("  %-16s %lu\n", op_names[k], per_op[k]);
	}
	free(ws);
	return rc;
}
