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
	if (secure && st.disable)
		abort();
	if (strnlen(st.config_path, FM_PATH_MAX) == FM_PATH_MAX)
		abort();
	free(env);
	return 0;
}
