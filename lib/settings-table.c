/* SPDX-License-Identifier: MIT */
/*
 * The table of settings: each environment variable and config key once.
 * The environment and config parsers (settings.c), their warnings, the list
 * of valid keys, the search for a misspelt name, the test that fastmem(3)
 * documents every setting, and the tools all read this table; adding a
 * setting means a row here, its field in struct fm_settings, and its use.
 *
 * Resolvers read it before libfastmem is relocated: no pointer in it (the
 * names and texts are inline arrays, the fields offsets), and nothing here
 * calls anything.  It depends on nothing but internal.h, so a tool may link
 * this file on its own to list the settings.
 */
#include <stddef.h>

#include "settings.h"

#define OP(op) (1u << (op))
#define ALL_OPS ((1u << FM_OP_COUNT) - 1)
#define FIELD(f) offsetof(struct fm_settings, f)

#define VARIANT(OPNAME, ENV, KEY)                                              \
	{                                                                      \
		.env = ENV, .key = KEY, .what = "a variant name",              \
		.keeps = "keeping the automatic choice",                       \
		.help = "the " KEY                                             \
			" variant to use (fastmem-info lists them); "          \
			"one this CPU cannot run is refused",                  \
		.type = FM_SETTING_VARIANT, .secure = FM_SECURE_SYSTEM_FILE,   \
		.ops = OP(OPNAME), .value = FIELD(forced),                     \
		.source = FIELD(forced_src)                                    \
	}

static const struct fm_setting_def table[] = {
	/* the variants first, in enum fm_op's order (fm_op_env_name) */
	VARIANT(FM_OP_MEMCPY, "FASTMEM_MEMCPY", "memcpy"),
	VARIANT(FM_OP_MEMMOVE, "FASTMEM_MEMMOVE", "memmove"),
	VARIANT(FM_OP_MEMSET, "FASTMEM_MEMSET", "memset"),
	VARIANT(FM_OP_COPY_PAGE, "FASTMEM_COPY_PAGE", "copy_page"),
	VARIANT(FM_OP_CLEAR_PAGE, "FASTMEM_CLEAR_PAGE", "clear_page"),
	{ .env = "FASTMEM_DISABLE",
	  .what = "a feature list",
	  .keeps = "the known names in it still apply",
	  .help = "CPU features to treat as absent, comma-separated "
		  "(avx512,avx2,erms,...)",
	  .type = FM_SETTING_FEATURES,
	  .secure = FM_SECURE_IGNORED,
	  .value = FIELD(disable),
	  .source = FM_SETTING_NO_SOURCE },
	{ .env = "FASTMEM_NT_THRESHOLD",
	  .key = "nt_threshold",
	  .what = "a size",
	  .keeps = "keeping the automatic threshold",
	  .help = "bytes from which copies and sets stream past the cache, "
		  "or never",
	  .type = FM_SETTING_SIZE,
	  .secure = FM_SECURE_SYSTEM_FILE,
	  .ops = ALL_OPS,
	  .value = FIELD(nt),
	  .source = FIELD(nt_src) },
	{ .env = "FASTMEM_STREAM_COLD",
	  .key = "stream_cold",
	  .what = "a size",
	  .keeps = "keeping this CPU's crossover",
	  .help = "bytes from which data the probe finds cold streams, "
		  "or never",
	  .type = FM_SETTING_SIZE,
	  .secure = FM_SECURE_SYSTEM_FILE,
	  .ops = ALL_OPS,
	  .value = FIELD(cold),
	  .source = FIELD(cold_src) },
	{ .key = "rep_from",
	  .what = "a size",
	  .keeps = "keeping the CPU class's crossover",
	  .help = "x86: bytes from which temporal copies use rep movsb and "
		  "sets rep stosb",
	  .type = FM_SETTING_SIZE,
	  .secure = FM_SECURE_SYSTEM_FILE,
	  .ops = OP(FM_OP_MEMCPY) | OP(FM_OP_MEMSET),
	  .value = FIELD(rep),
	  .source = FIELD(rep_src) },
	{ .env = "FASTMEM_PROBE",
	  .key = "probe",
	  .what = "on or off",
	  .keeps = "keeping the probe as it is (on where this CPU's "
		   "streaming wins cold)",
	  .help = "on or off: the residency probe, which streams data it "
		  "finds cold",
	  .type = FM_SETTING_ON_OFF,
	  .secure = FM_SECURE_SYSTEM_FILE,
	  .value = FIELD(probe),
	  .source = FIELD(probe_src) },
	{ .env = "FASTMEM_THREADS",
	  .key = "threads",
	  .what = "a thread count",
	  .keeps = "keeping the automatic count",
	  .help = "cap on the automatic thread count of the parallel calls",
	  .type = FM_SETTING_COUNT,
	  .secure = FM_SECURE_SYSTEM_FILE,
	  .value = FIELD(threads),
	  .source = FIELD(threads_src),
	  .min = 1,
	  .max = FM_THREADS_MAX },
	{ .env = "FASTMEM_TRACE",
	  .what = "a path",
	  .keeps = "tracing stays off",
	  .help = "count calls by size and write them to this file at exit "
		  "(%p: the pid)",
	  .type = FM_SETTING_PATH,
	  .secure = FM_SECURE_IGNORED,
	  .value = FIELD(trace),
	  .source = FIELD(trace_src) },
	{ .env = "FASTMEM_CONFIG",
	  .what = "a path",
	  .keeps = "using no config file",
	  .help = "the per-user config file; empty: none",
	  .type = FM_SETTING_PATH,
	  .secure = FM_SECURE_IGNORED,
	  .value = FIELD(config_path),
	  .source = FIELD(config_src) },
	{ .env = "FASTMEM_SYSTEM_CONFIG",
	  .what = "a path",
	  .keeps = "using no system config",
	  .help = "the system config file instead of the built-in one; "
		  "empty: none",
	  .type = FM_SETTING_PATH,
	  .secure = FM_SECURE_IGNORED,
	  .value = FIELD(system_path),
	  .source = FIELD(system_src) },
};

#define COUNT (sizeof(table) / sizeof(table[0]))
_Static_assert(
	FM_OP_MEMCPY == 0 && FM_OP_CLEAR_PAGE == 4 && FM_OP_COUNT == 5,
	"the table's first rows are the variants, in enum fm_op's order");

/* --- features (FASTMEM_DISABLE, and the registry's ISA strings) --------- */

static int feature_bit(const char *s, size_t len)
{
#define MATCH(bit, name)                                                       \
	if (fm_str_is(s, len, #name, 1))                                       \
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

		while (i < len && (s[i] == ',' || fm_is_space(s[i])))
			i++;
		start = i;
		while (i < len && s[i] != ',' && !fm_is_space(s[i]))
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
	buf[0] = 0;
	for (int b = 0; b < FM_FEATURE_COUNT; b++) {
		if (!(mask & (1u << b)))
			continue;
		if (len)
			fm_put(buf, size, &len, ",");
		fm_put(buf, size, &len, feature_name(b));
	}
	return len;
}

/* --- the table ---------------------------------------------------------- */

size_t fm_setting_count(void)
{
	return COUNT;
}

const struct fm_setting_def *fm_setting_at(size_t i)
{
	return i < COUNT ? &table[i] : 0;
}

/* fm_op_name() as the library calls it: hidden, so never through the PLT */
const char *fm_op_key(enum fm_op op)
{
	return (unsigned)op < FM_OP_COUNT ? table[op].key : 0;
}

const char *fm_op_env_name(enum fm_op op)
{
	return (unsigned)op < FM_OP_COUNT ? table[op].env
					  : table[FM_OP_CLEAR_PAGE].env;
}

int fm_setting_by_env(const char *name, size_t len)
{
	for (size_t i = 0; i < COUNT; i++)
		if (table[i].env[0] && fm_str_is(name, len, table[i].env, 0))
			return (int)i;
	return -1;
}

int fm_setting_by_key(const char *key, size_t len)
{
	for (size_t i = 0; i < COUNT; i++)
		if (table[i].key[0] && fm_str_is(key, len, table[i].key, 0))
			return (int)i;
	return -1;
}

/* Names are compared up to this many bytes: longer ones are no misspelling
 * of a setting (the longest is 21 bytes). */
#define NAME_CMP_MAX 40

/* Levenshtein distance of a and b, letters of either case alike. */
static unsigned distance(const char *a, size_t la, const char *b, size_t lb)
{
	uint8_t row[NAME_CMP_MAX + 1];

	if (la > NAME_CMP_MAX)
		la = NAME_CMP_MAX;
	if (lb > NAME_CMP_MAX)
		lb = NAME_CMP_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (uint8_t)j;
	for (size_t i = 1; i <= la; i++) {
		uint8_t diag = row[0];

		row[0] = (uint8_t)i;
		for (size_t j = 1; j <= lb; j++) {
			uint8_t up = row[j];
			unsigned best = diag + (fm_lower(a[i - 1]) !=
						fm_lower(b[j - 1]));

			if (up + 1u < best)
				best = up + 1u;
			if (row[j - 1] + 1u < best)
				best = row[j - 1] + 1u;
			diag = up;
			row[j] = (uint8_t)best;
		}
	}
	return row[lb];
}

int fm_setting_nearest(const char *name, size_t len, int env, unsigned *dist)
{
	unsigned best = ~0u;
	int found = -1;

	for (size_t i = 0; i < COUNT; i++) {
		const char *other = env ? table[i].env : table[i].key;
		unsigned d;

		if (!other[0])
			continue;
		d = distance(name, len, other, fm_str_len(other));
		if (d < best) {
			best = d;
			found = (int)i;
		}
	}
	if (dist)
		*dist = best;
	return found;
}

/* Names of this many bytes or more take a third edit: a third of the
 * letters after FASTMEM_ or more. */
#define LONG_NAME 17

int fm_setting_suggest(const char *name, size_t len, unsigned *dist)
{
	unsigned d;
	int near = fm_setting_nearest(name, len, 1, &d);

	if (near >= 0 &&
	    (d <= 2 || (d == 3 && fm_str_len(table[near].env) >= LONG_NAME))) {
		*dist = d;
		return near;
	}
	/* FASTMEM_NT_THRESHOLD_MEMSET: a setting's name with more after it
	 * (the longest such name, should one setting's name start another's) */
	near = -1;
	for (size_t i = 0; i < COUNT; i++) {
		size_t n = fm_str_len(table[i].env);

		if (n && n < len && name[n] == '_' &&
		    fm_str_is(name, n, table[i].env, 0) &&
		    (near < 0 || n > fm_str_len(table[near].env)))
			near = (int)i;
	}
	*dist = near < 0 ? d : 1;
	return near;
}

enum fm_env_kind fm_env_classify(const char *entry, size_t len, int *setting,
				 unsigned *dist)
{
	size_t name = 0, pl;
	unsigned d = 0;
	int i;

	if (setting)
		*setting = -1;
	if (dist)
		*dist = 0;
	if (!fm_has_prefix(entry, len, "FASTMEM_", &pl))
		return FM_ENV_OTHER;
	while (name < len && entry[name] != '=')
		name++;
	i = fm_setting_by_env(entry, name);
	if (i >= 0) {
		if (setting)
			*setting = i;
		return FM_ENV_SETTING;
	}
	i = fm_setting_suggest(entry, name, &d);
	if (setting)
		*setting = i;
	if (dist)
		*dist = d;
	return FM_ENV_UNKNOWN;
}

static int one_op(unsigned ops)
{
	return ops && !(ops & (ops - 1));
}

size_t fm_setting_keys(char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < COUNT; i++) {
		const struct fm_setting_def *d = &table[i];

		if (!d->key[0])
			continue;
		if (len)
			fm_put(buf, size, &len, ", ");
		fm_put(buf, size, &len, d->key);
		if (!d->ops || one_op(d->ops))
			continue;
		if (d->ops == ALL_OPS) {
			fm_put(buf, size, &len, ", ");
			fm_put(buf, size, &len, d->key);
			fm_put(buf, size, &len, ".<op>");
			continue;
		}
		for (int op = 0; op < FM_OP_COUNT; op++) {
			if (!(d->ops & OP(op)))
				continue;
			fm_put(buf, size, &len, ", ");
			fm_put(buf, size, &len, d->key);
			fm_put(buf, size, &len, ".");
			fm_put(buf, size, &len, table[op].key);
		}
	}
	return len;
}

size_t fm_setting_valid(const struct fm_setting_def *d, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = 0;
	switch (d->type) {
	case FM_SETTING_SIZE:
		fm_put(buf, size, &len,
		       "bytes with an optional K, M or G suffix (e.g. 4M), "
		       "or never");
		break;
	case FM_SETTING_COUNT:
		fm_put(buf, size, &len, "a number from ");
		fm_put_uint(buf, size, &len, d->min);
		fm_put(buf, size, &len, " to ");
		fm_put_uint(buf, size, &len, d->max);
		break;
	case FM_SETTING_FEATURES:
		len = fm_format_features((1u << FM_FEATURE_COUNT) - 1, buf,
					 size);
		break;
	default: /* on or off, a variant (the registry's list), a path */
		break;
	}
	return len;
}
