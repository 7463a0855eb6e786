/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate: find, on this machine, the size from which
 * streaming stores beat ordinary ones, for copies and for sets, hot and
 * cold; recommend nt_threshold.<op> values and write them to the config
 * file that libfastmem reads at startup (lib/settings.c).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define MODE_COLD 1u
#define MODE_HOT 4u

/* "wins": faster by at least 2% (and "loses": slower by 2%) */
#define WIN 1.02

struct pair {
	enum fm_op op;	  /* FM_OP_MEMCPY or FM_OP_MEMSET */
	const char *what; /* "copy", "set" */
	int found;
	char how[240];
	char hint[24];	      /* "fm_memcpy_hint" when comparing the hints */
	struct series ser[2]; /* temporal (reference), streaming */
	struct table *tab[2]; /* hot, cold */
	int x[2];	      /* crossover point per table, -1 none */
	int measured[2];
	size_t rec; /* recommendation; 0 none, SIZE_MAX never */
	char why[300];
};

static const struct fm_variant *find_variant(enum fm_op op, const char *name)
{
	const struct fm_variant *list;
	size_t n = fm_variants(op, &list);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].name, name))
			return &list[i];
	return NULL;
}

static void assign_fn(struct series *s, enum fm_op op,
		      const struct fm_variant *v)
{
	if (op == FM_OP_MEMCPY)
		s->fn.copy = (copy_fn)v->fn.memcpy;
	else
		s->fn.set = v->fn.memset;
}

/* Pick what to compare: the selected policy with the two hints, or the
 * selected variant against the _nt variant of its family. */
static void choose_pair(struct pair *p)
{
	const char *sel = fm_selected(p->op);
	const struct fm_variant *list, *sv = find_variant(p->op, sel);
	const struct fm_variant *t = NULL, *s = NULL;
	size_t n = fm_variants(p->op, &list);
	char want[64], fam[32];

	memset(p->ser, 0, sizeof(p->ser));
	p->ser[0].flags = S_REF;
	p->ser[1].flags = S_NT;
	if (sv && (sv->flags & FM_VARIANT_POLICY)) {
		snprintf(p->ser[0].name, sizeof(p->ser[0].name), "temporal");
		snprintf(p->ser[1].name, sizeof(p->ser[1].name), "streaming");
		snprintf(p->hint, sizeof(p->hint), "fm_%s_hint",
			 p->op == FM_OP_MEMCPY ? "memcpy" : "memset");
		if (p->op == FM_OP_MEMCPY) {
			p->ser[0].fn.copy = copy_temporal;
			p->ser[1].fn.copy = copy_streaming;
		} else {
			p->ser[0].fn.set = set_temporal;
			p->ser[1].fn.set = set_streaming;
		}
		snprintf(p->how, sizeof(p->how),
			 "the selected policy %s: fm_%s_hint(..., "
			 "FM_HINT_TEMPORAL) vs FM_HINT_NONTEMPORAL",
			 sel, p->op == FM_OP_MEMCPY ? "memcpy" : "memset");
		p->found = 1;
		return;
	}
	if (!sv)
		return;
	snprintf(fam, sizeof(fam), "%.*s", (int)strcspn(sel, "_"), sel);
	if (sv->flags & FM_VARIANT_NT) {
		/* forced to a streaming variant: find its temporal sibling */
		s = sv;
		snprintf(want, sizeof(want), "%.*s", (int)(strlen(sel) - 3),
			 sel);
		t = find_variant(p->op, want);
		for (size_t i = 0; !t && i < n; i++)
			if (list[i].usable &&
			    !(list[i].flags & FM_VARIANT_NT) &&
			    !strncmp(list[i].name, fam, strlen(fam)))
				t = &list[i];
	} else {
		t = sv;
		snprintf(want, sizeof(want), "%s_nt", sel);
		s = find_variant(p->op, want);
		if (s && !s->usable)
			s = NULL;
		for (size_t i = 0; !s && i < n; i++)
			if (list[i].usable && (list[i].flags & FM_VARIANT_NT) &&
			    !strncmp(list[i].name, fam, strlen(fam)))
				s = &list[i];
		for (size_t i = 0; !s && i < n; i++)
			if (list[i].usable && (list[i].flags & FM_VARIANT_NT))
				s = &list[i];
	}
	if (!t || !s || !t->usable || !s->usable)
		return;
	snprintf(p->ser[0].name, sizeof(p->ser[0].name), "%s", t->name);
	snprintf(p->ser[1].name, sizeof(p->ser[1].name), "%s", s->name);
	assign_fn(&p->ser[0], p->op, t);
	assign_fn(&p->ser[1], p->op, s);
	snprintf(p->how, sizeof(p->how),
		 "the selected %s variant %s is not a policy: %s (temporal) vs "
		 "%s (streaming)",
		 p->op == FM_OP_MEMCPY ? "memcpy" : "memset", sel, t->name,
		 s->name);
	p->found = 1;
}

/*
 * The crossover: the point x that best splits the sizes into "streaming
 * does not win" below and "streaming wins" from x up, counting the sizes
 * each split gets wrong (ratios within 2% of 1 count for neither side; ties
 * go to the larger x).  -1 if the best split is "never", or if streaming
 * does not win by WIN in the median above the split.  A change point, not
 * the first win, so that one noisy size cannot move it.
 */
static int crossover(struct table *t, int *wrong_above, int *wrong_below)
{
	int best = t->nx, best_cost = 1 << 30;

	for (int x = t->nx; x >= 0; x--) {
		int cost = 0;

		for (int y = 0; y < t->nx; y++) {
			const struct cell *c = table_cell(t, 1, y);
			double r = c->state == CELL_OK ? c->ratio : 0;

			if (y < x && r >= WIN)
				cost++;
			else if (y >= x && r < 2 - WIN)
				cost++;
		}
		if (cost < best_cost) {
			best_cost = cost;
			best = x;
		}
	}
	*wrong_above = *wrong_below = 0;
	if (best >= t->nx)
		return -1;
	double above[MAX_POINTS];
	int na = 0;
	for (int y = 0; y < t->nx; y++) {
		double r = table_cell(t, 1, y)->ratio;

		if (y >= best) {
			above[na++] = r;
			*wrong_above += r < 2 - WIN;
		} else {
			*wrong_below += r >= WIN;
		}
	}
	/* median of the ratios from the crossover up */
	for (int i = 1; i < na; i++)
		for (int j = i; j > 0 && above[j - 1] > above[j]; j--) {
			double tmp = above[j];
			above[j] = above[j - 1];
			above[j - 1] = tmp;
		}
	double med = na % 2 ? above[na / 2]
			    : (above[na / 2 - 1] + above[na / 2]) / 2;
	return med >= WIN ? best : -1;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int pick_sizes(size_t *out)
{
	int n = 0;
	size_t max = opt.max ? opt.max : opt.quick ? 64 * MIB : 256 * MIB;

	if (opt.nsizes) {
		memcpy(out, opt.sizes, sizeof(size_t) * (size_t)opt.nsizes);
		n = opt.nsizes;
	} else {
		/* 4 KiB (below it the hints are ignored) up: octaves, or half
		 * octaves without --quick */
		for (size_t v = 4 * KIB; v <= max && n < MAX_POINTS - 1;
		     v *= 2) {
			out[n++] = v;
			if (!opt.quick && v + v / 2 <= max)
				out[n++] = v + v / 2;
		}
	}
	qsort(out, (size_t)n, sizeof(*out), cmp_size);
	return n;
}

/* --- the config file
 * ---------------------------------------------------------- */

static int config_path(char *buf, size_t len, const char **whence)
{
	const char *e = getenv("FASTMEM_CONFIG");
	const char *x = getenv("XDG_CONFIG_HOME");
	const char *h = getenv("HOME");

	if (opt.system) {
		struct fm_settings_info si;

		fm_settings_info(&si);
		snprintf(buf, len, "%s", si.system.path);
		*whence = "--system";
		if (!buf[0]) {
			fprintf(stderr, "fastmem-bench calibrate: "
					"FASTMEM_SYSTEM_CONFIG is empty: no "
					"system config to write\n");
			return -1;
		}
		if (geteuid() != 0 && !opt.dry_run) {
			fprintf(stderr,
				"fastmem-bench calibrate: --system writes %s, "
				"which only root may do: run it as root "
				"(sudo fastmem-bench calibrate --system), or "
				"add --dry-run to see what it would write\n",
				buf);
			return -1;
		}
	} else if (e) {
		if (!*e) {
			fprintf(stderr,
				"fastmem-bench calibrate: FASTMEM_CONFIG is "
				"set "
				"but empty, which tells libfastmem to read no "
				"config file; set it to a path or unset it\n");
			return -1;
		}
		snprintf(buf, len, "%s", e);
		*whence = "FASTMEM_CONFIG";
	} else if (x && x[0] == '/') {
		snprintf(buf, len, "%s/fastmem/fastmem.conf", x);
		*whence = "$XDG_CONFIG_HOME";
	} else if (h && *h) {
		snprintf(buf, len, "%s/.config/fastmem/fastmem.conf", h);
		*whence = "$HOME";
	} else {
		fprintf(stderr, "fastmem-bench calibrate: neither "
				"FASTMEM_CONFIG, XDG_CONFIG_HOME nor HOME is "
				"set: nowhere to write the config file\n");
		return -1;
	}
	if (strlen(buf) >= 255)
		fprintf(stderr,
			"fastmem-bench calibrate: warning: %s is longer than "
			"libfastmem reads (255 bytes)\n",
			buf);
	return 0;
}

static int mkdirs(const char *path)
{
	char d[4096];
	char *slash;

	snprintf(d, sizeof(d), "%s", path);
	slash = strrchr(d, '/');
	if (!slash || slash == d)
		return 0;
	*slash = 0;
	for (char *p = d + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(d, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(d, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

static const char *const copy_keys[] = { "nt_threshold.memcpy",
					 "nt_threshold.memmove" };
static const char *const set_keys[] = { "nt_threshold.memset",
					"nt_threshold.clear_page" };
/* the cold crossover, from which data the residency probe finds cold
 * streams (x86; the page calls do not probe) */
static const char *const copy_cold_keys[] = { "stream_cold.memcpy",
					      "stream_cold.memmove" };
static const char *const set_cold_keys[] = { "stream_cold.memset", NULL };

/* Does this pair write its cold crossover too?  With both bases measured:
 * the threshold then says where streaming wins whatever the residency. */
static int writes_cold(const struct pair *p)
{
	return opt.basis == BASIS_BOTH && p->measured[0] && p->measured[1];
}

/* Is this line one we write (our key, or our comment)? */
static int ours(const char *line, const struct pair *pairs, int np)
{
	const char *p = line;
	size_t kl;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncmp(p, "# fastmem-bench calibrate", 25))
		return 1;
	kl = strcspn(p, " \t=\n");
	for (int i = 0; i < np; i++) {
		const char *const *keys =
			pairs[i].op == FM_OP_MEMCPY ? copy_keys : set_keys;

		const char *const *cold = pairs[i].op == FM_OP_MEMCPY
						  ? copy_cold_keys
						  : set_cold_keys;

		/* always ours: an old one beside a new threshold would
		 * change what the threshold means */
		for (int k = 0; k < 2; k++)
			if (cold[k] && strlen(cold[k]) == kl &&
			    !strncmp(p, cold[k], kl))
				return 1;
		if (!pairs[i].rec)
			continue;
		for (int k = 0; k < 2; k++)
			if (strlen(keys[k]) == kl && !strncmp(p, keys[k], kl))
				return 1;
	}
	return 0;
}

static int write_config(const char *path, const char *block,
			const struct pair *pairs, int np)
{
	char tmp[4200], line[1024];
	FILE *in, *out;
	int kept = 0;

	if (mkdirs(path)) {
		fprintf(stderr,
			"fastmem-bench calibrate: cannot create the directory "
			"of %s: %s\n",
			path, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr,
			"fastmem-bench calibrate: cannot write %s: %s\n", tmp,
			strerror(errno));
		return -1;
	}
	/* libfastmem ignores a system config that others may write: make it
	 * 0644 whatever the umask */
	if (opt.system && fchmod(fileno(out), 0644)) {
		fprintf(stderr,
			"fastmem-bench calibrate: cannot chmod %s: %s\n", tmp,
			strerror(errno));
		fclose(out);
		unlink(tmp);
		return -1;
	}
	in = fopen(path, "r");
	while (in && fgets(line, sizeof(line), in)) {
		if (ours(line, pairs, np))
			continue;
		fputs(line, out);
		if (!strchr(line, '\n'))
			fputc('\n', out);
		kept++;
	}
	if (in)
		fclose(in);
	fputs(block, out);
	if (fclose(out) || rename(tmp, path)) {
		fprintf(stderr,
			"fastmem-bench calibrate: cannot write %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	return kept;
}

/* JSON string contents (json_extra takes printf text) */
static void json_escape(const char *s, char *out, size_t len)
{
	size_t e = 0;

	for (; *s && e + 3 < len; s++) {
		if (*s == '"' || *s == '\\')
			out[e++] = '\\';
		out[e++] = *s;
	}
	out[e] = 0;
}

int calibrate_check(void)
{
	char path[4096];
	const char *whence;

	return config_path(path, sizeof(path), &whence);
}

/* --- the measurement
 * ------------------------------------------------------------ */

static void measure_pair(struct pair *p, const size_t *sizes, int nsizes,
			 unsigned modes, char *src, char *dst, size_t side)
{
	size_t pos = 0;
	int verified[MAX_POINTS][2]; /* by size: the same in both modes */

	memset(verified, 0, sizeof(verified));
	for (int mi = 0; mi < 2; mi++) {
		unsigned m = mi == 0 ? MODE_HOT : MODE_COLD;
		struct table *t;
		char id[64];

		p->x[mi] = -1;
		if (!(modes & m))
			continue;
		p->measured[mi] = 1;
		snprintf(id, sizeof(id), "calibrate %s %s", p->what,
			 mi == 0 ? "hot" : "cold");
		t = p->tab[mi] = table_new(id, UNIT_GBS, 0);
		snprintf(t->title, sizeof(t->title),
			 "calibrate %s, %s: GB/s, streaming vs temporal",
			 p->what, mi == 0 ? "hot" : "cold");
		snprintf(t->subtitle, sizeof(t->subtitle),
			 "%s; ratio: median of the per-run ratios",
			 mi == 0 ? "the same buffers every call"
			 : p->op == FM_OP_MEMCPY
				 ? "source and destination swept over "
				   "the regions"
				 : "destination swept over the region");
		t->plot = 1;
		t->ns = 2;
		memcpy(t->series, p->ser, sizeof(p->ser));
		for (int x = 0; x < nsizes; x++)
			table_add_point(t, sizes[x], NULL);
		for (int x = 0; x < nsizes; x++) {
			struct job jobs[2];
			struct cell out[2];
			size_t n = sizes[x], st = sweep_stride(n);
			size_t slots = (side - PAGE) / st;

			if (!slots || mi == 0)
				slots = 1;
			pos %= slots;
			activity("calibrate %s %s %s", p->what,
				 mi == 0 ? "hot" : "cold", t->xlabel[x]);
			for (int s = 0; s < 2; s++) {
				struct job *j = &jobs[s];

				memset(j, 0, sizeof(*j));
				j->s = &t->series[s];
				j->src = src + PAGE;
				j->dst = dst + PAGE;
				j->n = n;
				j->slots = slots;
				j->flush = mi && sweep_flush(n, slots);
				j->pos = &pos;
				j->bytes = (double)n;
				j->ops = 1;
				if (p->op == FM_OP_MEMCPY) {
					j->run = run_copy;
					j->verify = verify_copy;
					j->sstep = j->dstep = mi ? st : 0;
				} else {
					j->run = run_set;
					j->verify = verify_set;
					j->dstep = mi ? st : 0;
				}
			}
			measure_cell(jobs, 2, 0, UNIT_GBS, out, verified[x]);
			/* the two rows run back to back in every run: decide on
			 * the paired ratios, which drifting load cancels out of
			 */
			out[1].ratio = out[1].pratio;
			for (int s = 0; s < 2; s++)
				*table_cell(t, s, x) = out[s];
			progress_step(activity_text());
		}
		progress_end();
		int wa, wb;
		p->x[mi] = crossover(t, &wa, &wb);
		if (p->x[mi] >= 0)
			snprintf(t->footer, sizeof(t->footer),
				 "   streaming wins from %s: from there up it "
				 "loses at %d of %d sizes, below it wins at %d "
				 "of %d\n",
				 t->xlabel[p->x[mi]], wa, t->nx - p->x[mi], wb,
				 p->x[mi]);
		else
			snprintf(
				t->footer, sizeof(t->footer),
				"   streaming does not win (by >= %.0f%%) from "
				"any size up in this range\n",
				(WIN - 1) * 100);
		table_emit(t);
	}
}

static void recommend(struct pair *p, size_t maxsize)
{
	int h = p->x[0], c = p->x[1];
	struct table *th = p->tab[0], *tc = p->tab[1];
	enum basis b = opt.basis;
	char a[24];

	if (!p->measured[0])
		b = BASIS_COLD;
	else if (!p->measured[1])
		b = BASIS_HOT;
	fmt_size(maxsize, a, sizeof(a));
	p->rec = 0;
	if (b == BASIS_COLD || b == BASIS_HOT) {
		int x = b == BASIS_COLD ? c : h;
		struct table *t = b == BASIS_COLD ? tc : th;

		if (x >= 0) {
			p->rec = t->xval[x];
			snprintf(p->why, sizeof(p->why),
				 "basis %s: the %s crossover",
				 b == BASIS_COLD ? "cold" : "hot",
				 b == BASIS_COLD ? "cold" : "hot");
		} else if (b == BASIS_COLD) {
			p->rec = SIZE_MAX;
			snprintf(p->why, sizeof(p->why),
				 "streaming never wins cold up to %s", a);
		} else {
			snprintf(p->why, sizeof(p->why),
				 "streaming never wins hot up to %s: no "
				 "evidence, threshold left alone (try --max "
				 "larger)",
				 a);
		}
		return;
	}
	if (c < 0) {
		p->rec = SIZE_MAX;
		snprintf(p->why, sizeof(p->why),
			 "streaming never wins even cold, up to %s", a);
	} else if (h < 0) {
		snprintf(p->why, sizeof(p->why),
			 "streaming wins cold from %s but never hot up to %s: "
			 "threshold left alone (try --max larger, or --basis "
			 "cold)",
			 tc->xlabel[c], a);
	} else {
		size_t hv = th->xval[h], cv = tc->xval[c];

		p->rec = hv > cv ? hv : cv;
		snprintf(p->why, sizeof(p->why),
			 "the larger of the hot (%s) and cold (%s) crossovers: "
			 "streaming wins whether or not the data was cached",
			 th->xlabel[h], tc->xlabel[c]);
	}
}

int cmd_calibrate(void)
{
	struct pair pairs[2];
	size_t sizes[MAX_POINTS];
	int nsizes = pick_sizes(sizes), nfound = 0;
	unsigned modes = opt.modes ? opt.modes : MODE_HOT | MODE_COLD;
	size_t side, maxn = sizes[nsizes - 1];
	char path[4096], block[2048], a[24];
	const char *whence = "";
	size_t bl = 0;
	char *src, *dst;
	int rc = 0;

	memset(pairs, 0, sizeof(pairs));
	pairs[0].op = FM_OP_MEMCPY;
	pairs[0].what = "copy";
	pairs[1].op = FM_OP_MEMSET;
	pairs[1].what = "set";
	if (config_path(path, sizeof(path), &whence))
		return 1;
	for (int i = 0; i < 2; i++) {
		choose_pair(&pairs[i]);
		if (pairs[i].found) {
			note("%s: %s", pairs[i].what, pairs[i].how);
			nfound++;
		} else {
			note("%s: no streaming variant to compare with the "
			     "selected %s (%s), and it is not a policy: "
			     "nothing to calibrate",
			     pairs[i].what,
			     pairs[i].op == FM_OP_MEMCPY ? "memcpy" : "memset",
			     fm_selected(pairs[i].op));
		}
	}
	side = region_total(512 * MIB, 1 * GIB) / 2;
	if (side < PAGE + 4 * sweep_stride(maxn))
		side = (PAGE + 4 * sweep_stride(maxn) + MIB - 1) & ~(MIB - 1);
	if (nfound) {
		fmt_size(side, a, sizeof(a));
		note("buffers: source and destination regions of %s each", a);
		src = buf_alloc(side, 0x11);
		dst = buf_alloc(side, 0x22);
		progress_begin((long)nfound * nsizes *
			       (!!(modes & MODE_HOT) + !!(modes & MODE_COLD)));
		for (int i = 0; i < 2; i++) {
			if (!pairs[i].found)
				continue;
			measure_pair(&pairs[i], sizes, nsizes, modes, src, dst,
				     side);
			recommend(&pairs[i], maxn);
		}
		progress_end();
		buf_free(src, side);
		buf_free(dst, side);
	}

	/* the block to write */
	time_t now = time(NULL);
	char when[32];
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&now));
	bl += (size_t)snprintf(block + bl, sizeof(block) - bl,
			       "# fastmem-bench calibrate, %s, libfastmem %s\n",
			       when, fm_version());
	int nrec = 0;
	for (int i = 0; i < 2; i++) {
		const struct pair *p = &pairs[i];
		const char *const *keys =
			p->op == FM_OP_MEMCPY ? copy_keys : set_keys;

		if (!p->found)
			continue;
		char h[24] = "(not measured)", c[24] = "(not measured)";

		if (p->measured[0])
			snprintf(h, sizeof(h), "%s",
				 p->x[0] >= 0 ? p->tab[0]->xlabel[p->x[0]]
					      : "never");
		if (p->measured[1])
			snprintf(c, sizeof(c), "%s",
				 p->x[1] >= 0 ? p->tab[1]->xlabel[p->x[1]]
					      : "never");
		bl += (size_t)snprintf(
			block + bl, sizeof(block) - bl,
			"# fastmem-bench calibrate: %s, %s "
			"against %s: streaming wins from: hot "
			"%s, cold %s; %s\n",
			p->what,
			p->hint[0] ? "FM_HINT_NONTEMPORAL" : p->ser[1].name,
			p->hint[0] ? "FM_HINT_TEMPORAL" : p->ser[0].name, h, c,
			p->why);
		if (writes_cold(p)) {
			const char *const *cold = p->op == FM_OP_MEMCPY
							  ? copy_cold_keys
							  : set_cold_keys;

			if (p->x[1] >= 0)
				fmt_size_short(p->tab[1]->xval[p->x[1]], a,
					       sizeof(a));
			else
				snprintf(a, sizeof(a), "never");
			for (int k = 0; k < 2 && cold[k]; k++)
				bl += (size_t)snprintf(block + bl,
						       sizeof(block) - bl,
						       "%s = %s\n", cold[k], a);
			nrec++;
		}
		if (!p->rec)
			continue;
		fmt_size_short(p->rec, a, sizeof(a));
		for (int k = 0; k < 2; k++)
			bl += (size_t)snprintf(block + bl, sizeof(block) - bl,
					       "%s = %s\n", keys[k], a);
		nrec++;
	}

	if (opt.format == OUT_TEXT) {
		printf("== recommendation (basis: %s)\n",
		       opt.basis == BASIS_BOTH	? "both, hot and cold"
		       : opt.basis == BASIS_HOT ? "hot"
						: "cold");
		for (int i = 0; i < 2; i++) {
			const struct pair *p = &pairs[i];
			char h[24] = "none", c[24] = "none";

			if (!p->found) {
				printf("   %-4s nothing to compare: no "
				       "streaming "
				       "%s variant usable here\n",
				       p->what,
				       p->op == FM_OP_MEMCPY ? "memcpy"
							     : "memset");
				continue;
			}
			if (p->x[0] >= 0)
				snprintf(h, sizeof(h), "%s",
					 p->tab[0]->xlabel[p->x[0]]);
			if (p->x[1] >= 0)
				snprintf(c, sizeof(c), "%s",
					 p->tab[1]->xlabel[p->x[1]]);
			fmt_size_short(p->rec, a, sizeof(a));
			printf("   %-4s streaming wins from: hot %s, cold %s "
			       "-> "
			       "%s\n        (%s)\n",
			       p->what, p->measured[0] ? h : "not measured",
			       p->measured[1] ? c : "not measured",
			       p->rec ? a : "no change", p->why);
		}
		putchar('\n');
	}

	int written = 0;
	if (!nrec) {
		if (opt.format == OUT_TEXT)
			printf("nothing to write to %s\n", path);
	} else if (opt.dry_run) {
		if (opt.format == OUT_TEXT)
			printf("--dry-run: would write to %s (from %s):\n%s",
			       path, whence, block);
	} else {
		int existed = access(path, F_OK) == 0;
		int kept = write_config(path, block, pairs, 2);

		if (kept < 0) {
			rc = 1;
		} else {
			written = 1;
			if (opt.format == OUT_TEXT)
				printf("wrote %s (from %s; %d other line%s "
				       "kept):\n%s\n"
				       "New processes read it at startup: "
				       "fastmem-info shows these thresholds as "
				       "\"config (%s)\".\nThis process keeps "
				       "the thresholds it started with.\n",
				       path, whence, kept, kept == 1 ? "" : "s",
				       block, path);
		}
		if (written && !existed && !strcmp(whence, "FASTMEM_CONFIG"))
			fprintf(stderr,
				"fastmem-bench calibrate: note: %s did not "
				"exist when this process started (hence "
				"libfastmem's warning that it cannot be "
				"read); it does now\n",
				path);
		if (getenv("FASTMEM_NT_THRESHOLD"))
			fprintf(stderr,
				"fastmem-bench calibrate: note: "
				"FASTMEM_NT_THRESHOLD is set and overrides the "
				"config file\n");
	}

	/* JSON */
	char esc[4200];
	json_escape(path, esc, sizeof(esc));
	json_extra("\"calibration\":{\"config\":\"%s\",\"written\":%s,"
		   "\"dry_run\":%s,\"basis\":\"%s\",\"ops\":[",
		   esc, written ? "true" : "false",
		   opt.dry_run ? "true" : "false",
		   opt.basis == BASIS_BOTH  ? "both"
		   : opt.basis == BASIS_HOT ? "hot"
					    : "cold");
	for (int i = 0; i < 2; i++) {
		const struct pair *p = &pairs[i];
		char r[32];

		if (!p->found) {
			json_extra("%s{\"op\":\"%s\",\"found\":false}",
				   i ? "," : "", p->what);
			continue;
		}
		if (!p->rec)
			snprintf(r, sizeof(r), "null");
		else if (p->rec == SIZE_MAX)
			snprintf(r, sizeof(r), "\"never\"");
		else
			snprintf(r, sizeof(r), "%zu", p->rec);
		json_escape(p->how, esc, sizeof(esc));
		json_extra("%s{\"op\":\"%s\",\"found\":true,\"compared\":"
			   "\"%s\",\"temporal\":\"%s\",\"streaming\":\"%s\","
			   "\"hot_crossover\":",
			   i ? "," : "", p->what, esc, p->ser[0].name,
			   p->ser[1].name);
		if (p->x[0] >= 0)
			json_extra("%zu", p->tab[0]->xval[p->x[0]]);
		else
			json_extra("null");
		json_extra(",\"cold_crossover\":");
		if (p->x[1] >= 0)
			json_extra("%zu", p->tab[1]->xval[p->x[1]]);
		else
			json_extra("null");
		json_extra(",\"recommended\":%s,\"keys\":[\"%s\",\"%s\"]}", r,
			   (p->op == FM_OP_MEMCPY ? copy_keys : set_keys)[0],
			   (p->op == FM_OP_MEMCPY ? copy_keys : set_keys)[1]);
	}
	json_extra("]}");
	return rc;
}
