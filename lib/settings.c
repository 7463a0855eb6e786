/* SPDX-License-Identifier: MIT */
/*
 * Settings from the environment and the config file, read once.
 *
 * This runs inside ifunc resolvers, possibly before libfastmem or libc is
 * relocated, and possibly first from a signal handler.  So: no libc, no
 * allocation, no locks.  The environment comes from /proc/self/environ and
 * the file through raw system calls, both into small stack buffers.  The
 * first caller parses into the shared copy and publishes it; anyone who
 * arrives while that is in progress (another thread, or a signal handler
 * that interrupted it) parses a private copy instead of waiting.
 */
#include "internal.h"
#include "sys.h"

#define CHUNK 256
#define LINE_MAX_ FM_PATH_MAX

/* --- small string helpers (no libc) ------------------------------------ */

static int has_prefix(const char *s, size_t len, const char *p, size_t *plen)
{
	size_t i = 0;

	for (; p[i]; i++)
		if (i >= len || s[i] != p[i])
			return 0;
	*plen = i;
	return 1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void copy_str(char *dst, size_t size, const char *s, size_t len)
{
	size_t i = 0;

	for (; i < len && i + 1 < size; i++)
		dst[i] = s[i];
	dst[i] = 0;
}

static size_t str_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* --- features ----------------------------------------------------------- */

static int feature_bit(const char *s, size_t len)
{
	size_t l;
#define MATCH(bit, name)                                                       \
	if (has_prefix(s, len, #name, &l) && l == len)                         \
		return bit;
	FM_FEATURE_LIST(MATCH)
#undef MATCH
	return -1;
}

static const char *feature_name(int bit)
{
	switch (bit) {
#define NAME(bit, name)                                                        \
	case bit:                                                              \
		return #name;
		FM_FEATURE_LIST(NAME)
#undef NAME
	}
	return "?";
}

uint32_t fm_parse_features(const char *s, size_t len, int *bad)
{
	uint32_t mask = 0;
	size_t i = 0;

	while (i < len) {
		size_t start, end;

		while (i < len && (s[i] == ',' || is_space(s[i])))
			i++;
		start = i;
		while (i < len && s[i] != ',' && !is_space(s[i]))
			i++;
		end = i;
		if (end > start) {
			int b = feature_bit(s + start, end - start);
			if (b < 0)
				*bad = 1;
			else
				mask |= 1u << b;
		}
	}
	return mask;
}

size_t fm_format_features(uint32_t mask, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return 0;
	for (int b = 0; b < FM_FEATURE_COUNT; b++) {
		if (!(mask & (1u << b)))
			continue;
		const char *n = feature_name(b);
		if (len && len + 1 < size)
			buf[len++] = ',';
		while (*n && len + 1 < size)
			buf[len++] = *n++;
	}
	buf[len] = 0;
	return len;
}

static void all_feature_names(char *buf, size_t size)
{
	fm_format_features((1u << FM_FEATURE_COUNT) - 1, buf, size);
}

/* --- sizes -------------------------------------------------------------- */

int fm_parse_size(const char *s, size_t len, size_t *out)
{
	size_t v = 0, i = 0, l, shift = 0;

	while (len && is_space(s[len - 1]))
		len--;
	while (i < len && is_space(s[i]))
		i++;
	if (has_prefix(s + i, len - i, "never", &l) && i + l == len) {
		*out = SIZE_MAX;
		return 0;
	}
	if (i == len || s[i] < '0' || s[i] > '9')
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (SIZE_MAX - 9) / 10)
			return -1;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	if (i < len) {
		switch (s[i] | 0x20) {
		case 'k':
			shift = 10;
			break;
		case 'm':
			shift = 20;
			break;
		case 'g':
			shift = 30;
			break;
		case 'b':
			break;
		default:
			return -1;
		}
		i++;
		/* accept K, KB, KiB */
		if (shift && i < len && s[i] == 'i')
			i++;
		if (shift && i < len && (s[i] | 0x20) == 'b')
			i++;
		if (i != len)
			return -1;
	}
	if (shift && v > (SIZE_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

/* --- warnings ----------------------------------------------------------- */

void fm_warn(const char *const *parts, size_t nparts)
{
	char line[640];
	size_t len = 0;
	const char *prefix = "fastmem: ";

	while (*prefix)
		line[len++] = *prefix++;
	for (size_t i = 0; i < nparts; i++)
		for (const char *p = parts[i];
		     p && *p && len < sizeof(line) - 5;)
			line[len++] = *p++;
	if (len >= sizeof(line) - 5) {
		line[len++] = '.';
		line[len++] = '.';
		line[len++] = '.';
	}
	line[len++] = '\n';
	(void)fm_write(2, line, len);
}

/* --- parsing ------------------------------------------------------------ */

struct scan {
	struct fm_settings *st;
	int warn;
	char config[FM_PATH_MAX]; /* FASTMEM_CONFIG */
	int config_set;
	char home[FM_PATH_MAX];
	char xdg[FM_PATH_MAX];
	/* line assembly across read() chunks */
	char line[LINE_MAX_];
	size_t len;
	int truncated;
	unsigned lineno;
};

static void set_all_nt(struct fm_settings *st, size_t v, enum fm_source src)
{
	for (int op = 0; op < FM_OP_COUNT; op++) {
		if (st->nt_src[op] == FM_SRC_ENV && src != FM_SRC_ENV)
			continue;
		st->nt[op] = v;
		st->nt_src[op] = (uint8_t)src;
	}
}

/* FASTMEM_THREADS / threads: a count from 1 to FM_THREADS_MAX.  0 on
 * success. */
static int parse_threads(const char *s, size_t len, unsigned *out)
{
	unsigned v = 0;
	size_t i = 0;

	while (len && is_space(s[len - 1]))
		len--;
	while (i < len && is_space(s[i]))
		i++;
	if (i == len)
		return -1;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > FM_THREADS_MAX)
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v < 1 || v > FM_THREADS_MAX)
		return -1;
	*out = v;
	return 0;
}

#define THREADS_VALID "valid: a number from 1 to 256"
_Static_assert(FM_THREADS_MAX == 256, "THREADS_VALID names FM_THREADS_MAX");

static void env_var(struct scan *sc, const char *e, size_t len)
{
	struct fm_settings *st = sc->st;
	size_t pl;

	if (has_prefix(e, len, "HOME=", &pl)) {
		copy_str(sc->home, sizeof(sc->home), e + pl, len - pl);
		return;
	}
	if (has_prefix(e, len, "XDG_CONFIG_HOME=", &pl)) {
		copy_str(sc->xdg, sizeof(sc->xdg), e + pl, len - pl);
		return;
	}
	if (!has_prefix(e, len, "FASTMEM_", &pl))
		return;
	for (int op = 0; op < FM_OP_COUNT; op++) {
		const char *name = fm_op_env_name((enum fm_op)op);
		if (has_prefix(e, len, name, &pl) && pl < len && e[pl] == '=') {
			pl++;
			copy_str(st->forced[op], FM_NAME_MAX, e + pl, len - pl);
			st->forced_src[op] = st->forced[op][0] ? FM_SRC_ENV : 0;
			return;
		}
	}
	if (has_prefix(e, len, "FASTMEM_DISABLE=", &pl)) {
		int bad = 0;
		st->disable = fm_parse_features(e + pl, len - pl, &bad);
		if (bad && sc->warn) {
			char val[FM_NAME_MAX * 4], valid[160];
			copy_str(val, sizeof(val), e + pl, len - pl);
			all_feature_names(valid, sizeof(valid));
			const char *parts[] = {
				"FASTMEM_DISABLE=\"",
				val,
				"\" names an unknown feature; valid: ",
				valid,
				"; the known names in it still apply",
			};
			fm_warn(parts, 5);
		}
		return;
	}
	if (has_prefix(e, len, "FASTMEM_NT_THRESHOLD=", &pl)) {
		size_t v;
		if (fm_parse_size(e + pl, len - pl, &v) == 0) {
			set_all_nt(st, v, FM_SRC_ENV);
		} else if (sc->warn) {
			char val[FM_NAME_MAX * 2];
			copy_str(val, sizeof(val), e + pl, len - pl);
			const char *parts[] = {
				"FASTMEM_NT_THRESHOLD=\"",
				val,
				"\" is not a size; valid: bytes with an "
				"optional "
				"K, M or G suffix (e.g. 4M), or never; keeping "
				"the automatic threshold",
			};
			fm_warn(parts, 3);
		}
		return;
	}
	if (has_prefix(e, len, "FASTMEM_THREADS=", &pl)) {
		if (parse_threads(e + pl, len - pl, &st->threads) == 0) {
			st->threads_src = FM_SRC_ENV;
		} else if (sc->warn) {
			char val[FM_NAME_MAX * 2];
			copy_str(val, sizeof(val), e + pl, len - pl);
			const char *parts[] = {
				"FASTMEM_THREADS=\"",
				val,
				"\" is not a thread count; " THREADS_VALID
				"; keeping the automatic count",
			};
			fm_warn(parts, 3);
		}
		return;
	}
	if (has_prefix(e, len, "FASTMEM_CONFIG=", &pl)) {
		copy_str(sc->config, sizeof(sc->config), e + pl, len - pl);
		sc->config_set = 1;
	}
}

static void config_warn(struct scan *sc, const char *what, const char *text)
{
	char num[12];
	size_t n = 0;
	unsigned v = sc->lineno;
	char rev[12];
	size_t r = 0;

	if (!sc->warn)
		return;
	do
		rev[r++] = (char)('0' + v % 10);
	while ((v /= 10) && r < sizeof(rev));
	while (r)
		num[n++] = rev[--r];
	num[n] = 0;
	const char *parts[] = {
		"config ", sc->st->config_path, ":", num, ": ", what, text
	};
	fm_warn(parts, 7);
}

static void config_line(struct scan *sc, char *s, size_t len)
{
	struct fm_settings *st = sc->st;
	size_t k = 0, ke, v, pl;

	while (len && is_space(s[len - 1]))
		len--;
	while (k < len && is_space(s[k]))
		k++;
	if (k == len || s[k] == '#')
		return;
	ke = k;
	while (ke < len && s[ke] != '=' && !is_space(s[ke]))
		ke++;
	v = ke;
	while (v < len && (is_space(s[v]) || s[v] == '='))
		v++;
	s[len] = 0;
	if (sc->truncated) {
		config_warn(sc, "line too long: ", "");
		return;
	}
	for (int op = 0; op < FM_OP_COUNT; op++) {
		const char *key = fm_op_key((enum fm_op)op);
		if (has_prefix(s + k, ke - k, key, &pl) && pl == ke - k) {
			if (st->forced_src[op] != FM_SRC_ENV) {
				copy_str(st->forced[op], FM_NAME_MAX, s + v,
					 len - v);
				st->forced_src[op] = FM_SRC_CONFIG;
			}
			return;
		}
	}
	if (has_prefix(s + k, ke - k, "nt_threshold", &pl)) {
		size_t val;
		int which = -1;

		if (pl < ke - k) {
			if (s[k + pl] != '.')
				goto unknown;
			for (int op = 0; op < FM_OP_COUNT; op++) {
				size_t ol;
				const char *key = fm_op_key((enum fm_op)op);
				if (has_prefix(s + k + pl + 1, ke - k - pl - 1,
					       key, &ol) &&
				    ol == ke - k - pl - 1)
					which = op;
			}
			if (which < 0)
				goto unknown;
		}
		if (fm_parse_size(s + v, len - v, &val)) {
			config_warn(sc,
				    "not a size (bytes, K, M, G or never): ",
				    s + v);
			return;
		}
		if (which < 0) {
			set_all_nt(st, val, FM_SRC_CONFIG);
		} else if (st->nt_src[which] != FM_SRC_ENV) {
			st->nt[which] = val;
			st->nt_src[which] = FM_SRC_CONFIG;
		}
		return;
	}
	if (has_prefix(s + k, ke - k, "threads", &pl) && pl == ke - k) {
		unsigned val;

		if (parse_threads(s + v, len - v, &val))
			config_warn(sc, "not a thread count (" THREADS_VALID
					"): ",
				    s + v);
		else if (st->threads_src != FM_SRC_ENV) {
			st->threads = val;
			st->threads_src = FM_SRC_CONFIG;
		}
		return;
	}
unknown:
	config_warn(sc,
		    "unknown key (valid: memcpy, memmove, memset, "
		    "copy_page, clear_page, nt_threshold, "
		    "nt_threshold.<op>, threads): ",
		    s + k);
}

/*
 * Feed a file through fn one record at a time; records end at `sep`.
 * Returns -1 if the file cannot be opened.
 */
static int read_records(struct scan *sc, const char *path, char sep,
			void (*fn)(struct scan *, char *, size_t))
{
	char buf[CHUNK];
	long got;
	int fd = fm_open(path);

	if (fd < 0)
		return -1;
	sc->len = 0;
	sc->truncated = 0;
	sc->lineno = 0;
	while ((got = fm_read(fd, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < got; i++) {
			if (buf[i] == sep) {
				sc->lineno++;
				fn(sc, sc->line, sc->len);
				sc->len = 0;
				sc->truncated = 0;
			} else if (sc->len < sizeof(sc->line) - 1) {
				sc->line[sc->len++] = buf[i];
			} else {
				sc->truncated = 1;
			}
		}
	}
	if (sc->len) {
		sc->lineno++;
		fn(sc, sc->line, sc->len);
	}
	fm_close(fd);
	return 0;
}

static void env_record(struct scan *sc, char *s, size_t len)
{
	if (!sc->truncated)
		env_var(sc, s, len);
}

static void append(char *dst, size_t size, const char *a, const char *b)
{
	size_t n = 0;

	for (; *a && n + 1 < size; a++)
		dst[n++] = *a;
	for (; *b && n + 1 < size; b++)
		dst[n++] = *b;
	dst[n] = 0;
}

/* A plain loop (the library is built with -fno-tree-loop-distribute-patterns,
 * so it stays one): the variants may be sanitizer-instrumented, this code
 * must not be. */
static void zero(void *p, size_t n)
{
	unsigned char *b = p;

	while (n--)
		*b++ = 0;
}

static void load(struct fm_settings *st, int warn)
{
	struct scan sc;

	zero(st, sizeof(*st));
	zero(&sc, sizeof(sc));
	sc.st = st;
	sc.warn = warn;
	if (!FM_HAVE_RAW_SYSCALLS)
		return;
	read_records(&sc, "/proc/self/environ", '\0', env_record);

	if (sc.config_set) {
		if (!sc.config[0])
			return; /* FASTMEM_CONFIG= : no config file at all */
		copy_str(st->config_path, FM_PATH_MAX, sc.config,
			 str_len(sc.config));
	} else if (sc.xdg[0] == '/') {
		append(st->config_path, FM_PATH_MAX, sc.xdg,
		       "/fastmem/fastmem.conf");
	} else if (sc.home[0]) {
		append(st->config_path, FM_PATH_MAX, sc.home,
		       "/.config/fastmem/fastmem.conf");
	}
	if (st->config_path[0] &&
	    read_records(&sc, st->config_path, '\n', config_line) < 0) {
		if (sc.config_set && warn) {
			const char *parts[] = {
				"FASTMEM_CONFIG=\"",
				st->config_path,
				"\" cannot be read; using no config file",
			};
			fm_warn(parts, 3);
		}
		st->config_path[0] = 0;
	}
}

static struct fm_settings shared;
static int shared_state; /* 0 unread, 1 being read, 2 ready */

const struct fm_settings *fm_settings_get(struct fm_settings *scratch)
{
	int s = __atomic_load_n(&shared_state, __ATOMIC_ACQUIRE);

	if (FM_LIKELY(s == 2))
		return &shared;
	if (s == 0 &&
	    __atomic_compare_exchange_n(&shared_state, &s, 1, 0,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		load(&shared, 1);
		__atomic_store_n(&shared_state, 2, __ATOMIC_RELEASE);
		return &shared;
	}
	load(scratch, 0);
	return scratch;
}
