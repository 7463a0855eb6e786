/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the settings parsers (lib/settings.c): the
 * environment block, the config file, sizes and feature lists, as the
 * library reads them from /proc/self/environ and a file.
 *
 * Input: an optional leading '!' (secure-execution mode), then the
 * environment, one variable a line, then a line "%%", then the config file.
 * The seeds in corpus/ are readable in that form.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char separator[] = "\n%%\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fm_settings st;
	const char *in = (const char *)data;
	const char *cfg = in + size;
	size_t envlen = size, cfglen = 0;
	int secure = 0;
	char *env;

	if (size && in[0] == '!') {
		secure = 1;
		in++;
		size--;
		envlen = size;
		cfg = in + size;
	}
	for (size_t i = 0; i + sizeof(separator) - 1 <= size; i++)
		if (!memcmp(in + i, separator, sizeof(separator) - 1)) {
			envlen = i;
			cfg = in + i + sizeof(separator) - 1;
			cfglen = size - i - (sizeof(separator) - 1);
			break;
		}
	/* an exact-size copy, so ASan sees any read past the end */
	env = malloc(envlen ? envlen : 1);
	if (!env)
		return 0;
	for (size_t i = 0; i < envlen; i++)
		env[i] = in[i] == '\n' ? '\0' : in[i];
	fm_settings_parse(&st, env, envlen, cfg, cfglen, secure);

	/* what was parsed must be well formed */
	for (int op = 0; op < FM_OP_COUNT; op++) {
		if (strnlen(st.forced[op], FM_NAME_MAX) == FM_NAME_MAX)
			abort();
		if (st.forced_src[op] > FM_SRC_ENV ||
		    st.nt_src[op] > FM_SRC_ENV)
			abort();
		if (secure && (st.forced_src[op] == FM_SRC_ENV ||
			       st.nt_src[op] == FM_SRC_ENV))
			abort();
	}
	if (secure &&
	    (st.disable || st.trace[0] || st.config_src || st.system_src ||
	     st.probe_src == FM_SRC_ENV || st.threads_src == FM_SRC_ENV))
		abort();
	/* a privileged process quotes no file */
	if (secure && st.quotable)
		abort();
	for (int op = 0; op < FM_OP_COUNT; op++)
		if (st.cold_src[op] > FM_SRC_ENV ||
		    st.rep_src[op] > FM_SRC_ENV ||
		    (secure && st.cold_src[op] == FM_SRC_ENV))
			abort();
	if (st.probe > FM_PROBE_OFF ||
	    (st.threads_src && (st.threads < 1 || st.threads > FM_THREADS_MAX)))
		abort();
	/* the table's lookups agree with it for every name it has */
	for (size_t i = 0; i < fm_setting_count(); i++) {
		const struct fm_setting_def *d = fm_setting_at(i);
		int k;

		if (d->env[0] && fm_env_classify(d->env, strlen(d->env), &k,
						 0) != FM_ENV_SETTING)
			abort();
		if (d->env[0] && k != (int)i)
			abort();
		if (d->key[0] &&
		    fm_setting_by_key(d->key, strlen(d->key)) != (int)i)
			abort();
	}
	if (strnlen(st.config_path, FM_PATH_MAX) == FM_PATH_MAX)
		abort();
	free(env);
	return 0;
}
