/* SPDX-License-Identifier: MIT */
/*
 * Settings from the environment and the config files, read once.
 *
 * This runs inside ifunc resolvers, possibly before libfastmem or libc is
 * relocated, and possibly first from a signal handler.  So: no libc, no
 * allocation, no locks.  The environment comes from /proc/self/environ and
 * the files through raw system calls, both into small stack buffers.  The
 * first caller parses into the shared copy and publishes it; anyone who
 * arrives while that is in progress (another thread, or a signal handler
 * that interrupted it) parses a private copy instead of waiting.
 *
 * Precedence: environment > per-user config > system config.  A privileged
 * process (AT_SECURE: setuid, setgid, file capabilities) reads neither the
 * environment nor a per-user file, and never echoes a file's contents: the
 * caller of a setuid program must not steer it, nor read files through its
 * warnings (glibc ignores its tunables there for the same reason).
 */
#include <errno.h>
#include <sys/stat.h>

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

/* Returns nonzero if s did not fit (dst then holds a prefix). */
static int copy_str(char *dst, size_t size, const char *s, size_t len)
{
	size_t i = 0;

	for (; i < len && i + 1 < size; i++)
		dst[i] = s[i];
	dst[i] = 0;
	return i < len;
}

static size_t str_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* --- names of the settings (resolver-safe: code, not pointer tables) ---- */

const char *fm_op_env_name(enum fm_op op)
{
	switch (op) {
	case FM_OP_MEMCPY:
		return "FASTMEM_MEMCPY";
	case FM_OP_MEMMOVE:
		return "FASTMEM_MEMMOVE";
	case FM_OP_MEMSET:
		return "FASTMEM_MEMSET";
	case FM_OP_COPY_PAGE:
		return "FASTMEM_COPY_PAGE";
	default:
		return "FASTMEM_CLEAR_PAGE";
	}
}

/* fm_op_name() as the library calls it: hidden, so never through the PLT */
const char *fm_op_key(enum fm_op op)
{
	switch (op) {
	case FM_OP_MEMCPY:
		return "memcpy";
	case FM_OP_MEMMOVE:
		return "memmove";
	case FM_OP_MEMSET:
		return "memset";
	case FM_OP_COPY_PAGE:
		return "copy_page";
	case FM_OP_CLEAR_PAGE:
		return "clear_page";
	default:
		return 0;
	}
}

const char *fm_op_name(enum fm_op op)
{
	return fm_op_key(op);
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

/*
 * One line on stderr.  Bytes that are not printable ASCII (terminal control
 * sequences, anything an environment variable or a file may hold) and the
 * backslash are shown as \xNN, so a warning can neither drive the terminal
 * nor hide its text.
 */
void fm_warn(const char *const *parts, size_t nparts)
{
	static const char hex[] = "0123456789abcdef";
	char line[640];
	const size_t room = sizeof(line) - 4; /* "...\n" */
	size_t len = 0;
	int cut = 0;

	for (const char *p = "fastmem: "; *p;)
		line[len++] = *p++;
	for (size_t i = 0; i < nparts && !cut; i++) {
		for (const char *p = parts[i]; p && *p; p++) {
			unsigned char c = (unsigned char)*p;
			int plain = c >= 0x20 && c < 0x7f && c != '\\';

			if (len + (plain ? 1 : 4) > room) {
				cut = 1;
				break;
			}
			if (plain) {
				line[len++] = (char)c;
				continue;
			}
			line[len++] = '\\';
			line[len++] = 'x';
			line[len++] = hex[c >> 4];
			line[len++] = hex[c & 15];
		}
	}
	if (cut) {
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
	/* the file being read: where its settings rank, and for warnings */
	enum fm_source src;
	const char *path;
	unsigned warnings;
	int quote; /* may warnings show the file's bytes? */
	/* from the environment; FASTMEM_CONFIG and FASTMEM_SYSTEM_CONFIG go
	 * straight to st->config_path and st->system_path */
	int config_set, system_set;
	int config_long, system_long, home_long; /* longer than FM_PATH_MAX */
	char home[FM_PATH_MAX];
	char xdg[FM_PATH_MAX];
	/* line assembly across read() chunks */
	char line[LINE_MAX_];
	size_t len;
	int truncated;
	unsigned lineno;
};

/* environment > per-user config > system config > anything detected */
static int outranks(enum fm_source src, uint8_t current)
{
	static const uint8_t rank[] = {
		[FM_SRC_SYSTEM] = 1, [FM_SRC_CONFIG] = 2, [FM_SRC_ENV] = 3
	};

	return current >= sizeof(rank) || rank[src] >= rank[current];
}

/* Set every op's value in v[]/vsrc[] (thresholds, cold crossovers). */
static void set_all(size_t *v, uint8_t *vsrc, size_t val, enum fm_source src)
{
	for (int op = 0; op < FM_OP_COUNT; op++) {
		if (!outranks(src, vsrc[op]))
			continue;
		v[op] = val;
		vsrc[op] = (uint8_t)src;
	}
}

/* "on" or "off" (surrounding blanks allowed): FM_PROBE_ON/OFF, else -1 */
static int parse_on_off(const char *s, size_t len)
{
	size_t l;

	while (len && is_space(s[len - 1]))
		len--;
	while (len && is_space(*s))
		s++, len--;
	if (has_prefix(s, len, "on", &l) && l == len)
		return FM_PROBE_ON;
	if (has_prefix(s, len, "off", &l) && l == len)
		return FM_PROBE_OFF;
	return -1;
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
		sc->home_long =
			copy_str(sc->home, sizeof(sc->home), e + pl, len - pl);
		return;
	}
	if (has_prefix(e, len, "XDG_CONFIG_HOME=", &pl)) {
		/* too long: as if unset (a relative one is ignored too) */
		if (copy_str(sc->xdg, sizeof(sc->xdg), e + pl, len - pl))
			sc->xdg[0] = 0;
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
			set_all(st->nt, st->nt_src, v, FM_SRC_ENV);
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
	if (has_prefix(e, len, "FASTMEM_STREAM_COLD=", &pl)) {
		size_t v;
		if (fm_parse_size(e + pl, len - pl, &v) == 0) {
			set_all(st->cold, st->cold_src, v, FM_SRC_ENV);
		} else if (sc->warn) {
			char val[FM_NAME_MAX * 2];
			copy_str(val, sizeof(val), e + pl, len - pl);
			const char *parts[] = {
				"FASTMEM_STREAM_COLD=\"", val,
				"\" is not a size; valid: bytes with an "
				"optional K, M or G suffix (e.g. 2M), or "
				"never; "
				"keeping this CPU's crossover"
			};
			fm_warn(parts, 3);
		}
		return;
	}
	if (has_prefix(e, len, "FASTMEM_PROBE=", &pl)) {
		int v = parse_on_off(e + pl, len - pl);

		if (v >= 0) {
			st->probe = (uint8_t)v;
			st->probe_src = FM_SRC_ENV;
		} else if (sc->warn) {
			char val[FM_NAME_MAX];
			copy_str(val, sizeof(val), e + pl, len - pl);
			const char *parts[] = {
				"FASTMEM_PROBE=\"", val,
				"\" is not on or off; keeping the probe as it "
				"is (on where this CPU's streaming wins cold)"
			};
			fm_warn(parts, 3);
		}
		return;
	}
	if (has_prefix(e, len, "FASTMEM_TRACE=", &pl)) {
		copy_str(st->trace, sizeof(st->trace), e + pl, len - pl);
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
		sc->config_long = copy_str(st->config_path, FM_PATH_MAX, e + pl,
					   len - pl);
		sc->config_set = 1;
		return;
	}
	if (has_prefix(e, len, "FASTMEM_SYSTEM_CONFIG=", &pl)) {
		sc->system_long = copy_str(st->system_path, FM_PATH_MAX, e + pl,
					   len - pl);
		sc->system_set = 1;
	}
}

static const char *file_label(const struct scan *sc)
{
	return sc->src == FM_SRC_SYSTEM ? "system config " : "config ";
}

/* A warning about the current file, at most FM_CONFIG_WARN_MAX of them. */
static void file_warn(struct scan *sc, const char *what, const char *text)
{
	char num[12];
	size_t n = 0;
	unsigned v = sc->lineno;
	char rev[12];
	size_t r = 0;

	if (!sc->warn)
		return;
	if (++sc->warnings > FM_CONFIG_WARN_MAX) {
		if (sc->warnings == FM_CONFIG_WARN_MAX + 1) {
			const char *parts[] = {
				file_label(sc), sc->path,
				": further warnings about this file suppressed"
			};
			fm_warn(parts, 3);
		}
		return;
	}
	/* a privileged process never shows what a file holds, nor does any
	 * process show what not everyone may read (a user's config that is a
	 * symbolic link to /etc/shadow, read by root with the user's HOME) */
	if (!sc->quote && text[0])
		text = sc->st->secure ? "[not shown in secure-execution mode]"
				      : "[not shown: the file is not "
					"world-readable]";
	do
		rev[r++] = (char)('0' + v % 10);
	while ((v /= 10) && r < sizeof(rev));
	while (r)
		num[n++] = rev[--r];
	num[n] = 0;
	const char *parts[] = { file_label(sc), sc->path, ":", num,
				": ",		what,	  text };
	fm_warn(parts, 7);
}

static void config_line(struct scan *sc, char *s, size_t len)
{
	struct fm_settings *st = sc->st;
	size_t k = 0, ke, v, pl;

	for (size_t i = 0; i < len; i++)
		if (!s[i]) {
			file_warn(sc, "line holds a NUL byte; ignored", "");
			return;
		}
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
		file_warn(sc, "line too long; ignored", "");
		return;
	}
	for (int op = 0; op < FM_OP_COUNT; op++) {
		const char *key = fm_op_key((enum fm_op)op);
		if (has_prefix(s + k, ke - k, key, &pl) && pl == ke - k) {
			if (outranks(sc->src, st->forced_src[op])) {
				copy_str(st->forced[op], FM_NAME_MAX, s + v,
					 len - v);
				st->forced_src[op] = (uint8_t)sc->src;
			}
			return;
		}
	}
	if (has_prefix(s + k, ke - k, "probe", &pl) && pl == ke - k) {
		int val = parse_on_off(s + v, len - v);

		if (val < 0)
			file_warn(sc, "not on or off: ", s + v);
		else if (outranks(sc->src, st->probe_src)) {
			st->probe = (uint8_t)val;
			st->probe_src = (uint8_t)sc->src;
		}
		return;
	}
	for (int cold = 0; cold < 2; cold++) {
		const char *key = cold ? "stream_cold" : "nt_threshold";
		size_t *vals = cold ? st->cold : st->nt;
		uint8_t *srcs = cold ? st->cold_src : st->nt_src;
		size_t val;
		int which = -1;

		if (!has_prefix(s + k, ke - k, key, &pl))
			continue;
		if (pl < ke - k) {
			if (s[k + pl] != '.')
				goto unknown;
			for (int op = 0; op < FM_OP_COUNT; op++) {
				size_t ol;
				const char *ok = fm_op_key((enum fm_op)op);
				if (has_prefix(s + k + pl + 1, ke - k - pl - 1,
					       ok, &ol) &&
				    ol == ke - k - pl - 1)
					which = op;
			}
			if (which < 0)
				goto unknown;
		}
		if (fm_parse_size(s + v, len - v, &val)) {
			file_warn(sc, "not a size (bytes, K, M, G or never): ",
				  s + v);
			return;
		}
		if (which < 0) {
			set_all(vals, srcs, val, sc->src);
		} else if (outranks(sc->src, srcs[which])) {
			vals[which] = val;
			srcs[which] = (uint8_t)sc->src;
		}
		return;
	}
	if (has_prefix(s + k, ke - k, "rep_from", &pl)) {
		size_t val;
		int which = -1; /* both */

		if (pl < ke - k) {
			size_t ol;

			if (s[k + pl] != '.')
				goto unknown;
			if (has_prefix(s + k + pl + 1, ke - k - pl - 1,
				       "memcpy", &ol) &&
			    ol == ke - k - pl - 1)
				which = FM_OP_MEMCPY;
			else if (has_prefix(s + k + pl + 1, ke - k - pl - 1,
					    "memset", &ol) &&
				 ol == ke - k - pl - 1)
				which = FM_OP_MEMSET;
			else
				goto unknown;
		}
		if (fm_parse_size(s + v, len - v, &val)) {
			file_warn(sc, "not a size (bytes, K, M, G or never): ",
				  s + v);
			return;
		}
		for (int op = FM_OP_MEMCPY; op <= FM_OP_MEMSET; op++) {
			if (op == FM_OP_MEMMOVE ||
			    (which >= 0 && op != which) ||
			    !outranks(sc->src, st->rep_src[op]))
				continue;
			st->rep[op] = val;
			st->rep_src[op] = (uint8_t)sc->src;
		}
		return;
	}
	if (has_prefix(s + k, ke - k, "threads", &pl) && pl == ke - k) {
		unsigned val;

		if (parse_threads(s + v, len - v, &val))
			file_warn(sc,
				  "not a thread count (" THREADS_VALID "): ",
				  s + v);
		else if (outranks(sc->src, st->threads_src)) {
			st->threads = val;
			st->threads_src = (uint8_t)sc->src;
		}
		return;
	}
unknown:
	file_warn(sc,
		  "unknown key (valid: memcpy, memmove, memset, "
		  "copy_page, clear_page, nt_threshold, "
		  "nt_threshold.<op>, stream_cold, stream_cold.<op>, "
		  "rep_from, rep_from.memcpy, rep_from.memset, probe, "
		  "threads): ",
		  s + k);
}

/* Records of a stream end at `sep`; feed() takes it in pieces, finish()
 * passes on the last record if it had no separator. */
static void begin(struct scan *sc, const char *path, enum fm_source src)
{
	sc->path = path;
	sc->src = src;
	sc->warnings = 0;
	sc->len = 0;
	sc->truncated = 0;
	sc->lineno = 0;
}

static void feed(struct scan *sc, const char *buf, size_t n, char sep,
		 void (*fn)(struct scan *, char *, size_t))
{
	for (size_t i = 0; i < n; i++) {
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

static void finish(struct scan *sc, void (*fn)(struct scan *, char *, size_t))
{
	if (sc->len) {
		sc->lineno++;
		fn(sc, sc->line, sc->len);
	}
}

/* A variable longer than the line buffer: what it was still matters. */
static void env_too_long(struct scan *sc, const char *s, size_t len)
{
	size_t pl;

	if (has_prefix(s, len, "HOME=", &pl)) {
		sc->home_long = 1;
	} else if (has_prefix(s, len, "XDG_CONFIG_HOME=", &pl)) {
		sc->xdg[0] = 0;
	} else if (has_prefix(s, len, "FASTMEM_CONFIG=", &pl)) {
		sc->config_set = sc->config_long = 1;
	} else if (has_prefix(s, len, "FASTMEM_SYSTEM_CONFIG=", &pl)) {
		sc->system_set = sc->system_long = 1;
	} else if (has_prefix(s, len, "FASTMEM_", &pl) && sc->warn) {
		char name[40];
		size_t n = 0;

		while (n < len && n + 1 < sizeof(name) && s[n] != '=')
			n++;
		copy_str(name, sizeof(name), s, n);
		const char *parts[] = { name, " is too long; ignored" };
		fm_warn(parts, 2);
	}
}

static void env_record(struct scan *sc, char *s, size_t len)
{
	if (sc->truncated)
		env_too_long(sc, s, len);
	else
		env_var(sc, s, len);
}

/* Root's alone: owned by root, and only root may write it. */
static int root_only(const struct statx *sx)
{
	return sx->stx_uid == 0 && !(sx->stx_mode & (S_IWGRP | S_IWOTH));
}

/*
 * Could someone other than root have put the system file where it is?  Every
 * directory above it must be root's, or sticky (a user may add a file to
 * /tmp, but it is then the user's, and a link is not followed).
 */
static int dirs_root_only(const char *path)
{
	char dir[FM_PATH_MAX];
	size_t len = 0;

	for (size_t i = 0; path[i] && len + 1 < sizeof(dir); i++) {
		struct statx sx;

		dir[len++] = path[i];
		if (path[i] != '/' || !path[i + 1])
			continue;
		dir[len] = 0;
		sx.stx_mask = 0;
		if (fm_statx_path(dir, &sx) < 0 ||
		    (sx.stx_mask & FM_STATX_NEEDED) != FM_STATX_NEEDED)
			return 0;
		if (!root_only(&sx) &&
		    !(sx.stx_uid == 0 && (sx.stx_mode & S_ISVTX)))
			return 0;
	}
	return 1;
}

/*
 * A config file: only a regular file (a device, FIFO or directory is never
 * read: /dev/zero would never end, a FIFO would block), only its first
 * FM_CONFIG_MAX bytes, and the system file only if nobody but root can have
 * written it: not through a symbolic link, owned by root, writable by root
 * alone, in directories only root may change.
 */
static enum fm_file_state read_config(struct scan *sc, const char *path,
				      enum fm_source src)
{
	struct statx sx;
	char buf[CHUNK];
	size_t total = 0;
	long got;
	enum fm_file_state state = FM_FILE_READ;
	int system = src == FM_SRC_SYSTEM;
	int fd = fm_open_nonblock(path, system);

	if (fd == -ELOOP && system)
		return FM_FILE_BAD_OWNER; /* a link: whose, does not matter */
	if (fd < 0)
		return fd == -ENOENT || fd == -ENOTDIR ? FM_FILE_MISSING
						       : FM_FILE_UNREADABLE;
	sx.stx_mask = 0;
	if (fm_fstatx(fd, &sx) < 0 ||
	    (sx.stx_mask & FM_STATX_NEEDED) != FM_STATX_NEEDED)
		state = FM_FILE_UNEXAMINED;
	else if (!S_ISREG(sx.stx_mode))
		state = FM_FILE_NOT_REGULAR;
	else if (system && sx.stx_uid != 0)
		state = FM_FILE_BAD_OWNER;
	else if (system && !root_only(&sx))
		state = FM_FILE_BAD_MODE;
	else if (system && !dirs_root_only(path))
		state = FM_FILE_BAD_DIR;
	if (state != FM_FILE_READ) {
		fm_close(fd);
		return state;
	}
	begin(sc, path, src);
	sc->quote = !sc->st->secure && (sx.stx_mode & S_IROTH);
	if (sx.stx_size > FM_CONFIG_MAX) {
		state = FM_FILE_TRUNCATED;
		if (sc->warn) {
			const char *parts[] = {
				file_label(sc), path,
				" is larger than 64 KiB; only its first 64 KiB "
				"are read"
			};
			fm_warn(parts, 3);
		}
	}
	while (total < FM_CONFIG_MAX &&
	       (got = fm_read(fd, buf,
			      FM_CONFIG_MAX - total < sizeof(buf)
				      ? FM_CONFIG_MAX - total
				      : sizeof(buf))) > 0) {
		feed(sc, buf, (size_t)got, '\n', config_line);
		total += (size_t)got;
	}
	/* a line cut at the limit is not a line; one that ends the file
	 * exactly there is */
	if (total < FM_CONFIG_MAX || fm_read(fd, buf, 1) == 0)
		finish(sc, config_line);
	fm_close(fd);
	return state;
}

static const char *state_text(enum fm_file_state state)
{
	switch (state) {
	case FM_FILE_READ:
		return "read";
	case FM_FILE_TRUNCATED:
		return "read (its first 64 KiB)";
	case FM_FILE_MISSING:
		return "not found";
	case FM_FILE_UNREADABLE:
		return "ignored: cannot be opened";
	case FM_FILE_UNEXAMINED:
		return "ignored: cannot be examined (statx failed)";
	case FM_FILE_NOT_REGULAR:
		return "ignored: not a regular file";
	case FM_FILE_BAD_OWNER:
		return "ignored: not owned by root, or a symbolic link";
	case FM_FILE_BAD_MODE:
		return "ignored: writable by group or others";
	case FM_FILE_BAD_DIR:
		return "ignored: a directory above it is not root's alone";
	case FM_FILE_SECURE:
		return "ignored: secure-execution mode";
	default:
		return "none";
	}
}

/* One line for a file that was not read, when that is worth saying: a file
 * the user named explicitly, or one that exists but is unusable. */
static void state_warn(struct scan *sc, const char *label, const char *path,
		       enum fm_file_state state, int named)
{
	const char *why;

	if (!sc->warn || state == FM_FILE_READ || state == FM_FILE_TRUNCATED)
		return;
	switch (state) {
	case FM_FILE_MISSING:
		if (!named)
			return;
		why = "\" cannot be read (no such file)";
		break;
	case FM_FILE_UNREADABLE:
		/* a default file this user may not read (a system file kept
		 * private, or HOME=/root inherited by a process that dropped
		 * privileges): every process would say so, under
		 * /etc/ld.so.preload every process on the machine;
		 * fastmem-info shows it */
		if (!named)
			return;
		why = "\" cannot be read";
		break;
	case FM_FILE_UNEXAMINED:
		why = "\" cannot be examined (statx failed)";
		break;
	case FM_FILE_NOT_REGULAR:
		why = "\" is not a regular file";
		break;
	case FM_FILE_BAD_OWNER:
		why = "\" is not owned by root (or is a symbolic link)";
		break;
	case FM_FILE_BAD_MODE:
		why = "\" is writable by group or others";
		break;
	case FM_FILE_BAD_DIR:
		why = "\" is in a directory that others than root may change";
		break;
	default:
		return;
	}
	const char *parts[] = { label, path, why,
				named && sc->src == FM_SRC_CONFIG
					? "; using no config file"
					: "; ignored" };
	fm_warn(parts, 4);
}

/* dst = a b; returns nonzero (and dst = "") if that does not fit */
static int append(char *dst, size_t size, const char *a, const char *b)
{
	size_t n = 0;

	for (; *a && n + 1 < size; a++)
		dst[n++] = *a;
	for (; *b && n + 1 < size; b++)
		dst[n++] = *b;
	dst[n] = 0;
	if (!*a && !*b)
		return 0;
	dst[0] = 0;
	return 1;
}

static void too_long(struct scan *sc, const char *var, const char *what)
{
	if (sc->warn) {
		const char *parts[] = { var, " is longer than 255 bytes; ",
					what };
		fm_warn(parts, 3);
	}
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

#define FM_AT_NULL 0
#define FM_AT_SECURE 23

/*
 * Secure-execution mode, as the kernel decided it for this exec: AT_SECURE
 * from /proc/self/auxv (the resolvers may not call getauxval), or real and
 * effective ids that differ.  If the auxiliary vector cannot be read at all
 * the answer is yes: without /proc the environment cannot be read either,
 * so nothing is lost, and a privileged process is never guessed otherwise.
 */
static int secure_mode(void)
{
	unsigned long entry[2];
	char buf[CHUNK];
	size_t have = 0;
	long got;
	int secure = 0, done = 0;
	int fd = fm_open("/proc/self/auxv");

	if (fd < 0)
		return 1;
	while (!done && (got = fm_read(fd, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < got && !done; i++) {
			((char *)entry)[have++] = buf[i];
			if (have < sizeof(entry))
				continue;
			have = 0;
			if (entry[0] == FM_AT_SECURE)
				secure = entry[1] != 0;
			done = entry[0] == FM_AT_NULL ||
			       entry[0] == FM_AT_SECURE;
		}
	}
	fm_close(fd);
	return secure || fm_id(FM_SYS_GETUID) != fm_id(FM_SYS_GETEUID) ||
	       fm_id(FM_SYS_GETGID) != fm_id(FM_SYS_GETEGID);
}

static void load(struct fm_settings *st, int warn)
{
	struct scan sc;
	enum fm_file_state state;

	zero(st, sizeof(*st));
	zero(&sc, sizeof(sc));
	sc.st = st;
	sc.warn = warn;
	if (!FM_HAVE_RAW_SYSCALLS)
		return;
	st->secure = (uint8_t)secure_mode();
#if defined(__x86_64__) || defined(__i386__)
	{
		/* asked here, at the first resolution, and not on a copy's
		 * path, which must make no system call (a sandbox installed
		 * later may forbid prctl) */
		int tsc = 0;

		if (fm_syscall5(SYS_prctl, 25 /* PR_GET_TSC */, (long)&tsc, 0,
				0, 0) == 0)
			st->tsc_disabled = tsc == 2; /* PR_TSC_SIGSEGV */
	}
#endif

	if (!st->secure) {
		int fd = fm_open("/proc/self/environ");
		char buf[CHUNK];
		long got;

		if (fd >= 0) {
			begin(&sc, "/proc/self/environ", FM_SRC_ENV);
			while ((got = fm_read(fd, buf, sizeof(buf))) > 0)
				feed(&sc, buf, (size_t)got, '\0', env_record);
			finish(&sc, env_record);
			fm_close(fd);
		}
	}

	/* the system file first: what the per-user file sets outranks it */
	if (sc.system_long) {
		too_long(&sc, "FASTMEM_SYSTEM_CONFIG",
			 "using no system config");
		st->system_path[0] = 0;
	} else if (!sc.system_set) {
		copy_str(st->system_path, FM_PATH_MAX, FM_SYSTEM_CONFIG,
			 str_len(FM_SYSTEM_CONFIG));
	}
	if (st->system_path[0]) {
		state = read_config(&sc, st->system_path, FM_SRC_SYSTEM);
		st->system_state = (uint8_t)state;
		sc.src = FM_SRC_SYSTEM;
		state_warn(&sc, "system config \"", st->system_path, state,
			   sc.system_set);
	}

	if (st->secure) {
		st->user_state = FM_FILE_SECURE;
		return;
	}
	if (sc.config_set) {
		if (sc.config_long) {
			too_long(&sc, "FASTMEM_CONFIG", "using no config file");
			st->config_path[0] = 0;
		}
		/* FASTMEM_CONFIG= : no per-user file at all */
	} else if (sc.xdg[0] == '/') {
		append(st->config_path, FM_PATH_MAX, sc.xdg,
		       "/fastmem/fastmem.conf");
	} else if (sc.home[0] == '/' && !sc.home_long) {
		/* a relative HOME, like a relative XDG_CONFIG_HOME, names no
		 * file: from the working directory it is whatever lies there */
		append(st->config_path, FM_PATH_MAX, sc.home,
		       "/.config/fastmem/fastmem.conf");
	}
	if (!st->config_path[0])
		return;
	state = read_config(&sc, st->config_path, FM_SRC_CONFIG);
	st->user_state = (uint8_t)state;
	sc.src = FM_SRC_CONFIG;
	state_warn(&sc, sc.config_set ? "FASTMEM_CONFIG=\"" : "config \"",
		   st->config_path, state, sc.config_set);
}

void fm_settings_parse(struct fm_settings *st, const char *env, size_t envlen,
		       const char *config, size_t configlen, int secure)
{
	struct scan sc;

	zero(st, sizeof(*st));
	zero(&sc, sizeof(sc));
	sc.st = st;
	sc.warn = 1;
	st->secure = (uint8_t)(secure != 0);
	if (!secure) {
		begin(&sc, "environment", FM_SRC_ENV);
		feed(&sc, env, envlen, '\0', env_record);
		finish(&sc, env_record);
	}
	append(st->config_path, FM_PATH_MAX, "(memory)", "");
	begin(&sc, st->config_path, secure ? FM_SRC_SYSTEM : FM_SRC_CONFIG);
	sc.quote = !secure;
	feed(&sc, config, configlen < FM_CONFIG_MAX ? configlen : FM_CONFIG_MAX,
	     '\n', config_line);
	finish(&sc, config_line);
}

const char *fm_source_path(const struct fm_settings *st, enum fm_source src)
{
	if (src == FM_SRC_SYSTEM)
		return st->system_path;
	return src == FM_SRC_CONFIG ? st->config_path : "";
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

/*
 * Call time only (fastmem-info).  If the shared copy is being read right now
 * (by another thread, or by the code this signal handler interrupted), a
 * private copy is read instead; only one caller at a time may use it.
 */
void fm_settings_info(struct fm_settings_info *info)
{
	static struct fm_settings own;
	static int own_busy;
	struct fm_settings scratch;
	const struct fm_settings *st;
	int idle = 0;

	if (!info)
		return;
	st = fm_settings_get(&scratch);
	if (st == &scratch) {
		if (!__atomic_compare_exchange_n(&own_busy, &idle, 1, 0,
						 __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED)) {
			info->secure = 0;
			info->system.path = info->user.path = "";
			info->system.state = info->user.state =
				"being read by another thread";
			return;
		}
		load(&own, 0); /* stays in use: own_busy is never released */
		st = &own;
	}
	info->secure = st->secure;
	info->system.path = st->system_path;
	info->system.state = state_text(st->system_state);
	info->user.path = st->config_path;
	info->user.state = st->config_path[0] || st->user_state
				   ? state_text(st->user_state)
				   : "none";
}
