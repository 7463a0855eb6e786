/* SPDX-License-Identifier: MIT */
/*
 * Parsing settings: environment entries and config lines, both driven by
 * the table of settings (settings-table.c), and the warnings about them.
 * Where the settings come from (the environment, the files, secure-execution
 * mode) is settings-load.c.
 *
 * This runs inside ifunc resolvers, possibly before libfastmem or libc is
 * relocated, and possibly first from a signal handler: no libc, no
 * allocation, no locks, nothing but small stack buffers.
 */
#include "settings.h"

/* --- warnings ----------------------------------------------------------- */

/* Warnings printed so far about the system file [0] and the per-user file
 * [1]: the registry's warnings about their variant names count too. */
static unsigned file_warnings[2];

void fm_scan_reset_warnings(void)
{
	__atomic_store_n(&file_warnings[0], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&file_warnings[1], 0, __ATOMIC_RELAXED);
}

/* May one more warning about src's file print?  After FM_CONFIG_WARN_MAX,
 * one line says the rest are suppressed. */
static int file_warning_allowed(const struct fm_settings *st,
				enum fm_source src)
{
	unsigned n = __atomic_add_fetch(&file_warnings[src != FM_SRC_SYSTEM], 1,
					__ATOMIC_RELAXED);

	if (n == FM_CONFIG_WARN_MAX + 1) {
		const char *parts[] = {
			fm_file_label(src), fm_source_path(st, src),
			": further warnings about this file suppressed"
		};
		fm_warn(parts, 3);
	}
	return n <= FM_CONFIG_WARN_MAX;
}

/* What stands for a file's bytes that a warning may not show: a privileged
 * process never shows what a file holds, nor does any process show what
 * not everyone may read (a user's config that is a symbolic link to
 * /etc/shadow, read by root with the user's HOME). */
static const char *masked(const struct fm_settings *st)
{
	return st->secure ? "[not shown in secure-execution mode]"
			  : "[not shown: the file is not world-readable]";
}

/* "config PATH:LINE: " */
static void file_warn_begin(struct fm_warn_line *w,
			    const struct fm_settings *st, enum fm_source src,
			    unsigned line)
{
	char num[16];
	size_t n = 0;

	fm_put_uint(num, sizeof(num), &n, line);
	const char *parts[] = { fm_file_label(src), fm_source_path(st, src),
				":", num, ": " };
	fm_warn_begin(w);
	fm_warn_add(w, parts, 5);
}

/* A warning about the current line of the file being read: what, then the
 * file's text (masked where it may not be shown), then after (shown only
 * with the text: it may tell what the text is). */
static void file_warn(struct fm_scan *sc, const char *what, const char *text,
		      const char *after)
{
	struct fm_warn_line w;

	if (!sc->warn || !file_warning_allowed(sc->st, sc->src))
		return;
	file_warn_begin(&w, sc->st, sc->src, sc->lineno);
	const char *parts[] = { what, sc->quote ? text : masked(sc->st),
				sc->quote ? after : "" };
	fm_warn_add(&w, parts, text[0] ? 3 : 1);
	fm_warn_end(&w);
}

void fm_forced_warn(const struct fm_settings *st, enum fm_op op,
		    const char *const *tail, size_t ntail)
{
	enum fm_source src = (enum fm_source)st->forced_src[op];
	const char *value = st->forced[op];
	struct fm_warn_line w;

	if (src == FM_SRC_ENV) {
		const char *parts[] = { fm_op_env_name(op), "=\"", value,
					"\"" };
		fm_warn_begin(&w);
		fm_warn_add(&w, parts, 4);
	} else {
		if (!file_warning_allowed(st, src))
			return;
		if (!(st->quotable & (1u << src)))
			value = masked(st);
		file_warn_begin(&w, st, src, st->forced_line[op]);
		const char *parts[] = { fm_op_key(op), " = ", value };
		fm_warn_add(&w, parts, 3);
	}
	fm_warn_add(&w, tail, ntail);
	fm_warn_end(&w);
}

/* A bad value of d: the environment's line names the variable, the value,
 * the valid ones and what stands instead; a file's names its line. */
static void bad_value(struct fm_scan *sc, const struct fm_setting_def *d,
		      const char *value, const char *problem)
{
	char valid[200], what[280];
	size_t vlen = fm_setting_valid(d, valid, sizeof(valid)), n = 0;

	if (!sc->warn)
		return;
	if (sc->src == FM_SRC_ENV) {
		const char *parts[] = { d->env,	 "=\"",
					value,	 "\" ",
					problem, vlen ? "; valid: " : "",
					valid,	 "; ",
					d->keeps };
		fm_warn(parts, 9);
		return;
	}
	fm_put(what, sizeof(what), &n, problem);
	if (vlen) {
		fm_put(what, sizeof(what), &n, " (valid: ");
		fm_put(what, sizeof(what), &n, valid);
		fm_put(what, sizeof(what), &n, ")");
	}
	fm_put(what, sizeof(what), &n, ": ");
	file_warn(sc, what, value, "");
}

/* "is not a size", or for a file "not a size" */
static const char *is_not(const struct fm_scan *sc,
			  const struct fm_setting_def *d, char *buf,
			  size_t size)
{
	size_t n = 0;

	fm_put(buf, size, &n, sc->src == FM_SRC_ENV ? "is not " : "not ");
	fm_put(buf, size, &n, d->what);
	return buf;
}

/* --- values ------------------------------------------------------------- */

/* environment > per-user config > system config > anything detected */
static int outranks(enum fm_source src, uint8_t current)
{
	static const uint8_t rank[] = {
		[FM_SRC_SYSTEM] = 1, [FM_SRC_CONFIG] = 2, [FM_SRC_ENV] = 3
	};

	return current >= sizeof(rank) || rank[src] >= rank[current];
}

static void *value_at(struct fm_settings *st, const struct fm_setting_def *d,
		      size_t elem, int op)
{
	return (char *)st + d->value + elem * (size_t)(op > 0 ? op : 0);
}

static uint8_t *source_at(struct fm_settings *st,
			  const struct fm_setting_def *d, int op)
{
	return (uint8_t *)st + d->source + (op > 0 ? op : 0);
}

/* May sc's source set d for op (-1: d has no operations)?  Then it is
 * recorded as the source. */
static int claim(struct fm_scan *sc, const struct fm_setting_def *d, int op)
{
	uint8_t *src;

	if (d->source == FM_SETTING_NO_SOURCE)
		return 1;
	src = source_at(sc->st, d, op);
	if (!outranks(sc->src, *src))
		return 0;
	*src = (uint8_t)sc->src;
	return 1;
}

/* A size for op, or for each operation of d (op -1). */
static void set_size(struct fm_scan *sc, const struct fm_setting_def *d, int op,
		     size_t v)
{
	for (int o = 0; o < FM_OP_COUNT; o++) {
		if (!(d->ops & (1u << o)) || (op >= 0 && o != op))
			continue;
		if (claim(sc, d, o))
			*(size_t *)value_at(sc->st, d, sizeof(size_t), o) = v;
	}
}

static int op_of(const struct fm_setting_def *d)
{
	for (int op = 0; op < FM_OP_COUNT; op++)
		if (d->ops & (1u << op))
			return op;
	return 0;
}

static void set_variant(struct fm_scan *sc, const struct fm_setting_def *d,
			const char *s, size_t len)
{
	int op = op_of(d);
	char *name = value_at(sc->st, d, FM_NAME_MAX, op);
	char buf[48];
	size_t n;

	if (len >= FM_NAME_MAX) {
		/* no variant name is this long: say so with all of it, rather
		 * than let the registry quote the part that was kept */
		is_not(sc, d, buf, sizeof(buf));
		n = fm_str_len(buf);
		fm_put(buf, sizeof(buf), &n, " (too long)");
		bad_value(sc, d, s, buf);
		return;
	}
	if (!claim(sc, d, op))
		return;
	fm_copy_str(name, FM_NAME_MAX, s, len);
	sc->st->forced_line[op] = sc->lineno;
	/* FASTMEM_MEMCPY= : nothing forced */
	if (!len && sc->src == FM_SRC_ENV)
		*source_at(sc->st, d, op) = 0;
}

/* Value s[0, len) (NUL-terminated there) of d, for op (-1: every one). */
static void apply(struct fm_scan *sc, const struct fm_setting_def *d, int op,
		  const char *s, size_t len)
{
	char buf[40];
	size_t size;
	unsigned count;
	int v, bad = 0;

	if (sc->st->secure && d->secure == FM_SECURE_IGNORED)
		return;
	switch (d->type) {
	case FM_SETTING_VARIANT:
		set_variant(sc, d, s, len);
		return;
	case FM_SETTING_SIZE:
		if (fm_parse_size(s, len, &size) == 0)
			set_size(sc, d, op, size);
		else
			bad_value(sc, d, s, is_not(sc, d, buf, sizeof(buf)));
		return;
	case FM_SETTING_ON_OFF:
		v = fm_parse_on_off(s, len);
		if (v < 0)
			bad_value(sc, d, s, is_not(sc, d, buf, sizeof(buf)));
		else if (claim(sc, d, -1))
			*(uint8_t *)value_at(sc->st, d, 0, 0) = (uint8_t)v;
		return;
	case FM_SETTING_COUNT:
		if (fm_parse_count(s, len, d->min, d->max, &count))
			bad_value(sc, d, s, is_not(sc, d, buf, sizeof(buf)));
		else if (claim(sc, d, -1))
			*(unsigned *)value_at(sc->st, d, 0, 0) = count;
		return;
	case FM_SETTING_FEATURES:
		/* the names it knows apply even if some are unknown */
		*(uint32_t *)value_at(sc->st, d, 0, 0) =
			fm_parse_features(s, len, &bad);
		if (bad)
			bad_value(sc, d, s, "names an unknown feature");
		return;
	case FM_SETTING_PATH:
		if (claim(sc, d, -1))
			fm_copy_str(value_at(sc->st, d, 0, 0), FM_PATH_MAX, s,
				    len);
		return;
	}
}

/* --- the environment ---------------------------------------------------- */

/*
 * A FASTMEM_* variable the table does not have: one line each, from the
 * first (shared) reading of the environment only, which makes it once per
 * process.  Every such name is reported, near a setting or not: a
 * misspelt setting would otherwise change nothing and say nothing, and
 * nobody else's variables are meant to share the prefix (the test suite's
 * own are FMTEST_*).  A name near a setting (fm_setting_suggest) names it.
 */
static void unknown_variable(struct fm_scan *sc, const char *name, size_t len)
{
	char shown[64];
	const char *ask = "", *meant = "", *hint = "";
	unsigned dist;
	int near, cut;

	if (!sc->warn)
		return;
	near = fm_setting_suggest(name, len, &dist);
	if (near >= 0) {
		ask = " (did you mean ";
		meant = fm_setting_at((size_t)near)->env;
		hint = dist ? "?)" : "? Names are case-sensitive)";
	}
	cut = fm_copy_str(shown, sizeof(shown), name, len);
	const char *parts[] = { shown,
				cut ? "..." : "",
				" is not a libfastmem setting; ignored",
				ask,
				meant,
				hint };
	fm_warn(parts, 6);
}

static void env_var(struct fm_scan *sc, char *e, size_t len)
{
	size_t pl, name = 0;
	int i;

	if (fm_has_prefix(e, len, "HOME=", &pl)) {
		sc->home_long = fm_copy_str(sc->home, sizeof(sc->home), e + pl,
					    len - pl);
		return;
	}
	if (fm_has_prefix(e, len, "XDG_CONFIG_HOME=", &pl)) {
		/* too long: as if unset (a relative one is ignored too) */
		if (fm_copy_str(sc->xdg, sizeof(sc->xdg), e + pl, len - pl))
			sc->xdg[0] = 0;
		return;
	}
	if (!fm_has_prefix(e, len, "FASTMEM_", &pl))
		return;
	while (name < len && e[name] != '=')
		name++;
	if (name == len)
		return; /* no '=': no variable getenv() would find */
	i = fm_setting_by_env(e, name);
	if (i < 0) {
		unknown_variable(sc, e, name);
		return;
	}
	e[len] = 0;
	apply(sc, fm_setting_at((size_t)i), -1, e + name + 1, len - name - 1);
}

/* A variable longer than the record buffer (s holds its start): what it
 * was still matters. */
static void env_too_long(struct fm_scan *sc, const char *s, size_t len)
{
	const struct fm_setting_def *d;
	size_t pl, name = 0;
	int i;

	if (fm_has_prefix(s, len, "HOME=", &pl)) {
		sc->home_long = 1;
		return;
	}
	if (fm_has_prefix(s, len, "XDG_CONFIG_HOME=", &pl)) {
		sc->xdg[0] = 0;
		return;
	}
	if (!fm_has_prefix(s, len, "FASTMEM_", &pl))
		return;
	while (name < len && s[name] != '=')
		name++;
	i = fm_setting_by_env(s, name);
	if (i < 0) {
		unknown_variable(sc, s, name);
		return;
	}
	d = fm_setting_at((size_t)i);
	/* a path named but unusable: none (not the default file) */
	if (d->type == FM_SETTING_PATH)
		apply(sc, d, -1, "", 0);
	if (sc->warn) {
		const char *parts[] = { d->env, " is longer than 255 bytes; ",
					d->keeps };
		fm_warn(parts, 3);
	}
}

/* --- config files ------------------------------------------------------- */

/* "nt_threshold.memset": the setting, and the operation (-1 for all);
 * -1 if there is no such key. */
static int find_key(const char *key, size_t len, int *op)
{
	const struct fm_setting_def *d;
	size_t base = 0;
	int i;

	while (base < len && key[base] != '.')
		base++;
	i = fm_setting_by_key(key, base);
	*op = -1;
	if (i < 0 || base == len)
		return i;
	d = fm_setting_at((size_t)i);
	if (!d->ops || !(d->ops & (d->ops - 1)))
		return -1; /* one value, or one operation: no ".op" */
	for (int o = 0; o < FM_OP_COUNT; o++)
		if ((d->ops & (1u << o)) &&
		    fm_str_is(key + base + 1, len - base - 1,
			      fm_op_key((enum fm_op)o), 0))
			*op = o;
	return *op < 0 ? -1 : i;
}

static void unknown_key(struct fm_scan *sc, const char *key, size_t klen,
			const char *text)
{
	char valid[300], what[340], after[48];
	size_t n = 0, base = 0;
	unsigned dist;
	int near;

	if (!sc->warn ||
	    __atomic_load_n(&file_warnings[sc->src != FM_SRC_SYSTEM],
			    __ATOMIC_RELAXED) >= FM_CONFIG_WARN_MAX) {
		/* not shown: spare the search (a 64 KiB file of junk lines
		 * would run it thousands of times inside a resolver) */
		file_warn(sc, "unknown key: ", text, "");
		return;
	}
	while (base < klen && key[base] != '.')
		base++;
	fm_setting_keys(valid, sizeof(valid));
	fm_put(what, sizeof(what), &n, "unknown key (valid: ");
	fm_put(what, sizeof(what), &n, valid);
	fm_put(what, sizeof(what), &n, "): ");
	n = 0;
	after[0] = 0;
	near = fm_setting_nearest(key, base, 0, &dist);
	if (near >= 0 && dist <= 2) {
		fm_put(after, sizeof(after), &n, " (did you mean ");
		fm_put(after, sizeof(after), &n,
		       fm_setting_at((size_t)near)->key);
		fm_put(after, sizeof(after), &n, "?)");
	}
	file_warn(sc, what, text, after);
}

/* key = value, key value, or key=value; # starts a comment anywhere. */
static void config_line(struct fm_scan *sc, char *s, size_t len)
{
	size_t k, ke, v;
	int i, op, comment = 0;

	for (size_t j = 0; j < len; j++)
		if (!s[j]) {
			file_warn(sc, "line holds a NUL byte; ignored", "", "");
			return;
		}
	for (size_t j = 0; j < len; j++)
		if (s[j] == '#') {
			len = j;
			comment = 1;
			break;
		}
	k = 0;
	while (len && fm_is_space(s[len - 1]))
		len--;
	while (k < len && fm_is_space(s[k]))
		k++;
	if (k == len)
		return;
	/* cut before its comment: all that matters of it was read */
	if (sc->truncated && !comment) {
		file_warn(sc, "line too long; ignored", "", "");
		return;
	}
	ke = k;
	while (ke < len && s[ke] != '=' && !fm_is_space(s[ke]))
		ke++;
	v = ke;
	while (v < len && (fm_is_space(s[v]) || s[v] == '='))
		v++;
	s[len] = 0;
	i = find_key(s + k, ke - k, &op);
	if (i < 0)
		unknown_key(sc, s + k, ke - k, s + k);
	else
		apply(sc, fm_setting_at((size_t)i), op, s + v, len - v);
}

/* --- records ------------------------------------------------------------ */

void fm_scan_begin(struct fm_scan *sc, enum fm_source src)
{
	sc->src = src;
	sc->len = 0;
	sc->truncated = 0;
	sc->skip = 0;
	sc->lineno = 0;
}

static void record(struct fm_scan *sc, enum fm_scan_kind kind)
{
	sc->lineno++;
	if (kind == FM_SCAN_CONFIG)
		config_line(sc, sc->line, sc->len);
	else if (sc->truncated)
		env_too_long(sc, sc->line, sc->len);
	else
		env_var(sc, sc->line, sc->len);
}

/* Is s[0, len) p so far (or all of p and more)? */
static int starts_as(const char *s, size_t len, const char *p)
{
	for (size_t i = 0; i < len && p[i]; i++)
		if (s[i] != p[i])
			return 0;
	return 1;
}

/*
 * Could the environment entry that starts with s[0, len) be one env_var()
 * reads?  Most are not (PATH, LANG, ...), and they are skipped without a
 * byte copied: this runs at the start of every program that loads
 * libfastmem, under /etc/ld.so.preload of every program on the machine.
 */
static int env_wanted(const char *s, size_t len)
{
	return starts_as(s, len, "FASTMEM_") || starts_as(s, len, "HOME=") ||
	       starts_as(s, len, "XDG_CONFIG_HOME=");
}

/* The longest prefix env_wanted() compares. */
#define ENV_PREFIX_MAX 16

/* Index of the first NUL in buf[i, n), or n: a word at a time (the
 * environment is mostly entries nobody here reads). */
static size_t find_nul(const char *buf, size_t i, size_t n)
{
	typedef unsigned long __attribute__((may_alias, aligned(1))) fm_uword;
	const unsigned long ones = ~0ul / 0xff, highs = ones << 7;

	for (; i + sizeof(fm_uword) <= n; i += sizeof(fm_uword)) {
		unsigned long v = *(const fm_uword *)(const void *)(buf + i);

		if ((v - ones) & ~v & highs)
			break; /* a zero byte in this word */
	}
	while (i < n && buf[i])
		i++;
	return i;
}

void fm_scan_feed(struct fm_scan *sc, const char *buf, size_t n,
		  enum fm_scan_kind kind)
{
	char sep = kind == FM_SCAN_CONFIG ? '\n' : '\0';

	for (size_t i = 0; i < n; i++) {
		if (sc->skip) {
			/* only environment entries are skipped */
			i = find_nul(buf, i, n);
			if (i == n)
				return;
			/* its separator ends the entry nobody reads */
			sc->lineno++;
			sc->len = 0;
			sc->skip = 0;
			continue;
		}
		if (buf[i] == sep) {
			record(sc, kind);
			sc->len = 0;
			sc->truncated = 0;
		} else if (sc->len < sizeof(sc->line) - 1) {
			sc->line[sc->len++] = buf[i];
			if (kind == FM_SCAN_ENV && sc->len <= ENV_PREFIX_MAX &&
			    !env_wanted(sc->line, sc->len))
				sc->skip = 1;
		} else {
			sc->truncated = 1;
		}
	}
}

void fm_scan_finish(struct fm_scan *sc, enum fm_scan_kind kind)
{
	if (sc->len && !sc->skip)
		record(sc, kind);
}
