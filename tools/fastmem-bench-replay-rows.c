/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench replay: the rows it measures, libc, fm_*, the --peer
 * libraries (loaded here) and the -v variants.
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include "bench.h"

int replay_series(enum fm_op op, struct series *out)
{
	int n = series_for_op(op, out, 1, 1, 0);

	snprintf(out[0].name, sizeof(out[0].name), "%s", REF_NAME);
	memset(&out[n], 0, sizeof(out[n]));
	snprintf(out[n].name, sizeof(out[n].name), "%s",
		 op == FM_OP_MEMCPY ? "fm_memcpy" : "fm_memset");
	out[n].flags = S_DISPATCH;
	if (op == FM_OP_MEMCPY)
		out[n].fn.copy = fm_memcpy;
	else
		out[n].fn.set = fm_memset;
	n++;
	for (int p = 0; p < npeers && n < MAX_SERIES; p++) {
		if (op == FM_OP_MEMCPY ? !peers[p].copy : !peers[p].set)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		_Static_assert(sizeof(peers[p].name) <= sizeof(out[n].name),
			       "a peer's name fits a series name");
		memcpy(out[n].name, peers[p].name, sizeof(peers[p].name));
		if (op == FM_OP_MEMCPY)
			out[n].fn.copy = peers[p].copy;
		else
			out[n].fn.set = peers[p].set;
		n++;
	}
	if (opt.nvariants)
		n += series_for_op(op, out + n, MAX_SERIES - n, 0, 0);
	return n;
}

struct peer peers[MAX_PEERS];
int npeers;

/* NAME=LIB: NAME_memcpy and NAME_memset from LIB, loaded now. */
int peer_load(const char *arg, char *err, size_t len)
{
	const char *eq = strchr(arg, '=');
	struct peer *p = &peers[npeers];
	char sym[64];
	void *h;

	if (npeers >= MAX_PEERS) {
		snprintf(err, len, "at most %d peers", MAX_PEERS);
		return -1;
	}
	if (!eq || eq == arg || !eq[1] ||
	    (size_t)(eq - arg) >= sizeof(p->name)) {
		snprintf(err, len,
			 "expected NAME=LIBRARY (a name of at most "
			 "%zu characters)",
			 sizeof(p->name) - 1);
		return -1;
	}
	snprintf(p->name, sizeof(p->name), "%.*s", (int)(eq - arg), arg);
	h = dlopen(eq + 1, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, len, "%s", dlerror());
		return -1;
	}
	snprintf(sym, sizeof(sym), "%s_memcpy", p->name);
	p->copy = (copy_fn)dlsym(h, sym);
	snprintf(sym, sizeof(sym), "%s_memset", p->name);
	p->set = (set_fn)dlsym(h, sym);
	if (!p->copy && !p->set) {
		snprintf(err, len, "%s defines neither %s_memcpy nor %s_memset",
			 eq + 1, p->name, p->name);
		dlclose(h);
		return -1;
	}
	npeers++;
	return 0;
}
