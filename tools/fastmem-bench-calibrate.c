/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench calibrate: find, on this machine, the size from which
 * streaming stores beat ordinary ones, for copies and for sets, hot and
 * cold; recommend nt_threshold.<op> values and write them to the config
 * file that libfastmem reads at startup (lib/settings.c).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "distribution.h"

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
	char skip[200]; /* --trace: why the pair was not measured */
	int held;	/* --trace: the recorded calls do not want the keys */
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
static double median(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double tmp = v[j];
			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

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
	/* the median of the ratios from the crossover up */
	return median(above, na) >= WIN ? best : -1;
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
	return opt.basis == BASIS_BOTH && p->measured[0] && p->measured[1] &&
	       !p->held;
}

/* the rep crossovers (rep_choose, rep_measure) */
struct repcal {
	enum fm_op op;
	const char *what, *key;
	int found;
	struct series ser[2]; /* vector loop (reference), rep */
	struct table *t;
	size_t rec; /* 0: no change */
	char why[200];
};

static struct repcal rep[2];

/* --parallel: the thread cap measured (0 none) and why */
static unsigned threads_written;
static char threads_why[512];

/* --trace: the variant keys written ("memcpy", "memset"; NULL none) */
static const char *variant_written[2];
static int ntrace; /* --trace files */

/* A comment we wrote: a block's header, or the why of the keys below it */
static int our_comment(const char *line)
{
	line += strspn(line, " \t");
	return !strncmp(line, "# fastmem-bench calibrate", 25);
}

/* Neither blank nor a comment: a key = value line (lib/settings.c) */
static int key_line(const char *line)
{
	line += strspn(line, " \t\r\n\v\f");
	return *line && *line != '#';
}

/* Is this key line one we write anew (so that the old one goes)? */
static int ours(const char *line, const struct pair *pairs, int np)
{
	const char *p = line;
	size_t kl;

	while (*p == ' ' || *p == '\t')
		p++;
	kl = strcspn(p, " \t=\n");
	if (threads_written && kl == 7 && !strncmp(p, "threads", 7))
		return 1;
	for (int i = 0; i < 2; i++)
		if (rep[i].rec && strlen(rep[i].key) == kl &&
		    !strncmp(p, rep[i].key, kl))
			return 1;
	for (int i = 0; i < 2; i++)
		if (variant_written[i] && strlen(variant_written[i]) == kl &&
		    !strncmp(p, variant_written[i], kl))
			return 1;
	for (int i = 0; i < np; i++) {
		const char *const *keys =
			pairs[i].op == FM_OP_MEMCPY ? copy_keys : set_keys;

		/* a pair not measured (nothing to compare, or --trace found
		 * no call it could change) leaves its lines alone */
		if (!pairs[i].found || pairs[i].skip[0])
			continue;

		const char *const *cold = pairs[i].op == FM_OP_MEMCPY
						  ? copy_cold_keys
						  : set_cold_keys;

		/* always ours: an old one beside a new threshold would
		 * change what the threshold means (but not when --trace held
		 * the pair's keys back: its lines then stay as they are) */
		for (int k = 0; k < 2 && !pairs[i].held; k++)
			if (cold[k] && strlen(cold[k]) == kl &&
			    !strncmp(p, cold[k], kl))
				return 1;
		if (!pairs[i].rec || pairs[i].held)
			continue;
		for (int k = 0; k < 2; k++)
			if (strlen(keys[k]) == kl && !strncmp(p, keys[k], kl) &&
			    !(ntrace &&
			      !strcmp(keys[k], "nt_threshold.clear_page")))
				return 1;
	}
	return 0;
}

/*
 * Our comments directly above a key line, held back until that line shows
 * whether it stays: they describe the keys below them, and go with them.
 */
struct above {
	char *buf;
	size_t len, cap;
	int lines;
	int keys; /* key lines read below them */
};

static int above_add(struct above *a, const char *line, size_t n)
{
	if (a->len + n > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 1024;
		char *b;

		while (cap < a->len + n)
			cap *= 2;
		b = realloc(a->buf, cap);
		if (!b)
			return -1;
		a->buf = b;
		a->cap = cap;
	}
	memcpy(a->buf + a->len, line, n);
	a->len += n;
	a->lines++;
	return 0;
}

static void above_drop(struct above *a)
{
	a->len = 0;
	a->lines = 0;
	a->keys = 0;
}

/*
 * Copy the old file's lines except the keys we write anew and our comments
 * above only such keys (a comment above a key that stays stays with it),
 * then append block.  Returns the number of lines kept, or -1.
 */
static int write_config(const char *path, const char *block,
			const struct pair *pairs, int np)
{
	struct above above = { NULL, 0, 0, 0, 0 };
	char tmp[4200], *line = NULL;
	size_t lsize = 0;
	ssize_t n;
	FILE *in, *out;
	int kept = 0, err = 0;

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
	while (in && !err && (n = getline(&line, &lsize, in)) > 0) {
		if (our_comment(line)) {
			/* any still held were above keys that all went */
			if (above.keys)
				above_drop(&above);
			err = above_add(&above, line, (size_t)n);
			continue;
		}
		if (key_line(line)) {
			above.keys++;
			if (ours(line, pairs, np))
				continue;
			if (above.len)
				fwrite(above.buf, 1, above.len, out);
			kept += above.lines;
			above.len = 0;
			above.lines = 0;
		} else {
			/* a blank line or another comment: ours above it
			 * belong to nothing below */
			above_drop(&above);
		}
		fwrite(line, 1, (size_t)n, out);
		if (line[n - 1] != '\n')
			fputc('\n', out);
		kept++;
	}
	free(line);
	free(above.buf);
	if (in)
		fclose(in);
	if (err) {
		fprintf(stderr,
			"fastmem-bench calibrate: out of memory reading %s\n",
			path);
		fclose(out);
		unlink(tmp);
		return -1;
	}
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

static int trace_load(void);

int calibrate_check(void)
{
	char path[4096];
	const char *whence;

	if (config_path(path, sizeof(path), &whence))
		return 1;
	return trace_load();
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

/* --- calibrate --trace: decisions weighed by recorded sizes
 * ------------------------------------------------------------ */

/*
 * Every decision --trace adds is a comparison of two ways to run the
 * recorded calls: the current one (what this process runs) and a
 * candidate, replayed (replay's sequences: fixed seed, offsets over the
 * arena) interleaved in TRACE_RUNS separate runs.  Per run, the score is
 * the geometric mean of the candidate's speed ratios over every file and
 * arena; the candidate is written only if the median score beats 1 by
 * more than both WIN and the range of the runs' scores, and its median
 * ratio loses (below 2 - WIN) in no file and arena.
 */
#define TRACE_RUNS 5
#define TRACE_RUNS_QUICK 3
#define MAX_TRACES 32
#define ARENAS 3

static struct dist trace[MAX_TRACES];
static const char *const arena_names[ARENAS] = { "L1", "LLC", "memory" };

struct verdict {
	/* per file and arena: median and range of the runs' ratios */
	double med[MAX_TRACES][ARENAS], lo[MAX_TRACES][ARENAS],
		hi[MAX_TRACES][ARENAS];
	double score, slo, shi; /* the score over the runs */
	int measured, wins;
};

static int trace_runs(void)
{
	return opt.quick ? TRACE_RUNS_QUICK : TRACE_RUNS;
}

/* Share of d's op calls of sizes in [lo, hi) (a range counts pro rata). */
static double share_between(const struct dist *d, int op, size_t lo, size_t hi)
{
	double w = 0;

	if (d->total[op] <= 0 || lo >= hi)
		return 0;
	for (size_t i = 0; i < d->nr[op]; i++) {
		const struct dist_range *r = &d->r[op][i];
		size_t a = r->lo > lo ? r->lo : lo;
		size_t b = r->hi < hi - 1 ? r->hi : hi - 1;

		if (a <= b)
			w += r->w * (double)(b - a + 1) /
			     (double)(r->hi - r->lo + 1);
	}
	return w / d->total[op];
}

static int trace_op(enum fm_op op)
{
	return op == FM_OP_MEMSET ? DIST_SET : DIST_COPY;
}

static int any_replayable(int dop)
{
	for (int f = 0; f < ntrace; f++)
		if (replayable(&trace[f], dop))
			return 1;
	return 0;
}

/*
 * Measure series ser[0] (the current way) against ser[1..ns) on every
 * file's dop calls in the arenas of mask (bit a: arena a); fill v[s].
 * ser[1] is the control (the current way again); v[0].score is the
 * noise it shows, which a winner's gain must exceed.
 */
static void trace_measure(int dop, unsigned mask, const struct series *ser,
			  int ns, struct verdict *v, char *src, char *dst,
			  void (*before)(unsigned arena))
{
	size_t arena[ARENAS];
	int runs = trace_runs();
	/* [run][file][arena][series] */
	static double r[TRACE_RUNS][MAX_TRACES][ARENAS][MAX_SERIES];

	replay_arenas(arena);
	memset(v, 0, sizeof(*v) * (size_t)ns);
	for (int run = 0; run < runs; run++)
		for (int f = 0; f < ntrace; f++) {
			if (!replayable(&trace[f], dop))
				continue;
			for (unsigned a = 0; a < ARENAS; a++) {
				struct cell out[MAX_SERIES];

				if (!(mask & (1u << a)))
					continue;
				if (before)
					before(a);
				activity("calibrate --trace %s %s %s run %d",
					 trace[f].name,
					 dop == DIST_COPY ? "copies" : "sets",
					 arena_names[a], run + 1);
				/* each candidate in a cell of its own with
				 * the current way: with more rows, the
				 * rotation runs each row after the same
				 * neighbour every time, and a row run after
				 * an identical one gains up to 30% here
				 * (branch history of the same sequence) */
				for (int s = 1; s < ns; s++) {
					struct series two[2] = { ser[0],
								 ser[s] };

					replay_cell(&trace[f], dop, a,
						    arena[a] / 2, two, 2, 0,
						    src, dst, out);
					r[run][f][a][s] =
						out[0].state == CELL_OK &&
								out[1].state ==
									CELL_OK
							? out[1].pratio
							: 0;
				}
				progress_step(activity_text());
			}
		}
	for (int s = 1; s < ns; s++) {
		struct verdict *x = &v[s];
		double sc[TRACE_RUNS], tmp[TRACE_RUNS];
		int loses = 0, bad = 0;

		for (int run = 0; run < runs; run++) {
			double lg = 0;
			int n = 0;

			for (int f = 0; f < ntrace; f++)
				for (unsigned a = 0; a < ARENAS; a++) {
					double q = r[run][f][a][s];

					if (!replayable(&trace[f], dop) ||
					    !(mask & (1u << a)))
						continue;
					if (q <= 0)
						bad = 1;
					else
						lg += log(q);
					n++;
				}
			sc[run] = n ? exp(lg / n) : 0;
		}
		for (int f = 0; f < ntrace; f++)
			for (unsigned a = 0; a < ARENAS; a++) {
				if (!replayable(&trace[f], dop) ||
				    !(mask & (1u << a)))
					continue;
				for (int run = 0; run < runs; run++)
					tmp[run] = r[run][f][a][s];
				x->med[f][a] = median(tmp, runs);
				x->lo[f][a] = tmp[0];
				x->hi[f][a] = tmp[runs - 1];
				loses |= x->med[f][a] < 2 - WIN;
			}
		x->score = median(sc, runs);
		x->slo = sc[0];
		x->shi = sc[runs - 1];
		x->measured = !bad;
		x->wins = !bad && !loses && x->score - 1 > (WIN - 1) &&
			  x->score - 1 > x->shi - x->slo;
	}
	/* series 1 is the control: the current way again, as a row of its
	 * own; how far it strays from 1 is bias that no real difference
	 * explains, and a candidate must beat that too */
	v[1].wins = 0;
	v[0].score = fabs(v[1].score - 1) + (v[1].shi - v[1].slo);
	for (int s = 2; s < ns; s++)
		v[s].wins &= v[s].score - 1 > v[0].score;
}

/* One candidate's figures, for the report. */
static void print_verdict(const char *name, const struct verdict *x, int dop,
			  unsigned mask, const struct verdict *ctl,
			  double noise)
{
	printf("   %-14s", name);
	if (!x->measured) {
		printf(" WRONG RESULT or not measured: never chosen\n");
		return;
	}
	for (int f = 0; f < ntrace; f++) {
		if (!replayable(&trace[f], dop))
			continue;
		printf("%s%s:", f ? "\n                  " : " ",
		       trace[f].name);
		for (unsigned a = 0; a < ARENAS; a++)
			if (mask & (1u << a))
				printf(" %s %.2fx (%.2f-%.2f)", arena_names[a],
				       x->med[f][a], x->lo[f][a], x->hi[f][a]);
	}
	printf("\n                  score %.2fx (runs %.2f-%.2f): %s\n",
	       x->score, x->slo, x->shi,
	       x->wins	  ? "wins"
	       : x == ctl ? "the control: its distance from 1 is noise"
	       : x->score - 1 <= (WIN - 1) ? "does not win by 2%"
	       : x->score - 1 <= x->shi - x->slo
		       ? "its gain is within the runs' range"
	       : x->score - 1 <= noise
		       ? "its gain is within the control's noise"
		       : "loses somewhere (below 0.98x in a file and arena)");
}

/* --- the per-op variant */

struct varpick {
	enum fm_op op;
	const char *key; /* "memcpy", "memset" */
	const char *current;
	int ns;
	struct series ser[MAX_SERIES];
	struct verdict v[MAX_SERIES];
	int chosen; /* series index, 0: keep the current one */
	char why[300];
};

static struct varpick vp[2];

static void pick_variant(struct varpick *p, char *src, char *dst)
{
	const struct fm_variant *list, *cur;
	size_t n = fm_variants(p->op, &list);
	int dop = trace_op(p->op);
	const unsigned mask = 1u << 0 | 1u << 1; /* L1, LLC */

	p->current = fm_selected(p->op);
	p->ns = 0;
	p->chosen = 0;
	cur = find_variant(p->op, p->current);
	if (!any_replayable(dop)) {
		snprintf(p->why, sizeof(p->why),
			 "no file has %s calls to replay (100 or more in a "
			 "FASTMEM_TRACE file): left alone",
			 p->op == FM_OP_MEMSET ? "memset" : "copy");
		return;
	}
	if (!cur || !cur->usable) {
		snprintf(p->why, sizeof(p->why),
			 "the current %s (%s) is not in the registry: left "
			 "alone",
			 p->key, p->current);
		return;
	}
	/*
	 * The current choice first (the reference), then every other usable
	 * policy variant.  A replay has no read-back and no large calls to
	 * speak of, and the key applies to every call of every program
	 * reading the config: a variant that always streams (or never does)
	 * would be chosen for the small calls and then decide the large ones
	 * unseen.  Policy variants keep the streaming decision.
	 */
	for (size_t i = 0; i <= n && p->ns < MAX_SERIES; i++) {
		const struct fm_variant *x = i ? &list[i - 1] : cur;

		if (i &&
		    (x == cur || !x->usable || !(x->flags & FM_VARIANT_POLICY)))
			continue;
		memset(&p->ser[p->ns], 0, sizeof(p->ser[0]));
		snprintf(p->ser[p->ns].name, sizeof(p->ser[0].name), "%s",
			 x->name);
		assign_fn(&p->ser[p->ns], p->op, x);
		p->ns++;
		if (!i) { /* the control */
			p->ser[p->ns] = p->ser[0];
			snprintf(p->ser[p->ns].name, sizeof(p->ser[0].name),
				 "%s again", x->name);
			p->ns++;
		}
	}
	trace_measure(dop, mask, p->ser, p->ns, p->v, src, dst, NULL);
	for (int s = 2; s < p->ns; s++)
		if (p->v[s].wins &&
		    (!p->chosen || p->v[s].score > p->v[p->chosen].score))
			p->chosen = s;
	if (p->chosen) {
		/* a copy: GCC's -Wrestrict cannot tell the name from why */
		char name[sizeof(p->ser[0].name)];

		memcpy(name, p->ser[p->chosen].name, sizeof(name));
		snprintf(p->why, sizeof(p->why),
			 "%s beats %s by %.0f%% (runs %.2f-%.2fx), more than "
			 "2%%, the runs' range and the control's noise "
			 "(%.0f%%), and loses nowhere",
			 name, p->current, (p->v[p->chosen].score - 1) * 100,
			 p->v[p->chosen].slo, p->v[p->chosen].shi,
			 p->v[0].score * 100);
	} else {
		snprintf(p->why, sizeof(p->why),
			 "no variant beats %s by more than 2%%, the runs' "
			 "range and the control's noise (%.0f%%) without "
			 "losing somewhere: left alone",
			 p->current, p->v[0].score * 100);
	}
}

static void report_variant(const struct varpick *p)
{
	const unsigned mask = 1u << 0 | 1u << 1;

	printf("== calibrate --trace: the %s variant, replayed in the L1 "
	       "and LLC arenas, %d runs\n   ratio: speed relative to %s "
	       "(the current choice), median of the runs (their range)\n",
	       p->key, trace_runs(), p->current);
	for (int s = 1; s < p->ns; s++)
		print_verdict(p->ser[s].name, &p->v[s], trace_op(p->op), mask,
			      &p->v[1], p->v[0].score);
	printf("   -> %s%s%s: %s\n\n", p->chosen ? p->key : "keep ",
	       p->chosen ? " = " : "",
	       p->chosen ? p->ser[p->chosen].name : p->current, p->why);
}

/* --- the thresholds */

/* From which size data found cold streams now, below the threshold
 * (fastmem-info's notes, x86); SIZE_MAX for never or unknown.  *probe: 0
 * when it streams by size whatever the residency. */
static size_t cold_now(enum fm_op op, int *probe)
{
	const char *n = fm_cpu_notes(), *p;
	char key[64];
	unsigned long long v;
	char unit[8] = "";

	*probe = 1;
	snprintf(key, sizeof(key), "below its threshold %s ",
		 op == FM_OP_MEMSET ? "memset" : "memcpy");
	p = strstr(n, key);
	if (!p)
		return SIZE_MAX;
	p += strlen(key);
	if (!strncmp(p, "streams by size from ", 21)) {
		*probe = 0;
		p += 21;
	} else if (!strncmp(p, "streams data found cold from ", 29)) {
		p += 29;
	} else {
		return SIZE_MAX;
	}
	if (sscanf(p, "%llu %7[A-Za-z]", &v, unit) < 1)
		return SIZE_MAX;
	if (!strcmp(unit, "KiB"))
		v <<= 10;
	else if (!strcmp(unit, "MiB"))
		v <<= 20;
	else if (!strcmp(unit, "GiB"))
		v <<= 30;
	return (size_t)v;
}

struct thrcheck {
	int checked;	  /* a decision to weigh (the pair recommends) */
	size_t lim[2][2]; /* [current, candidate][cached, cold arena] */
	double share[MAX_TRACES];
	int touched; /* some file has calls where the two differ */
	double ashare[MAX_TRACES][2]; /* by residency: cached, cold */
	int ns;
	struct series ser[3]; /* current, control, candidate */
	struct verdict v[3];
	int keep; /* 1: write the pair's keys */
	char why[400];
};

static struct thrcheck tc[2];
static const struct pair *emu;
static size_t emu_lim[3]; /* current, control (the same), candidate */

/* the pair's temporal or streaming call, as the limit says */
/* emu_lim[k]: the limit from which the k-th emulation streams */
#define EMU(k)                                                                 \
	static void *copy_emu##k(void *d, const void *s, size_t n)             \
	{                                                                      \
		return (n >= emu_lim[k] ? emu->ser[1].fn.copy                  \
					: emu->ser[0].fn.copy)(d, s, n);       \
	}                                                                      \
	static void *set_emu##k(void *d, int c, size_t n)                      \
	{                                                                      \
		return (n >= emu_lim[k] ? emu->ser[1].fn.set                   \
					: emu->ser[0].fn.set)(d, c, n);        \
	}
EMU(0)
EMU(1)
EMU(2)
#undef EMU

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The limits the pair's keys would set, and do the recorded calls reach
 * where they differ from the current ones? */
static void weigh_thresholds(const struct pair *p, struct thrcheck *t)
{
	int probe, dop = trace_op(p->op);
	size_t nt0 = fm_nt_threshold(p->op), c0 = cold_now(p->op, &probe);
	size_t nt1 = p->rec ? p->rec : nt0, c1 = c0;
	char a[24], b[24], c[24], d[24];
	size_t len;

	memset(t, 0, sizeof(*t));
	if (!nt0)
		nt0 = SIZE_MAX;
	if (writes_cold(p))
		c1 = p->x[1] >= 0 ? p->tab[1]->xval[p->x[1]] : SIZE_MAX;
	/* cached arena: the threshold (the probe finds the data cached);
	 * cold arena: the lower of the two */
	t->lim[0][0] = probe ? nt0 : min_size(nt0, c0);
	t->lim[0][1] = min_size(nt0, c0);
	t->lim[1][0] = probe ? nt1 : min_size(nt1, c1);
	t->lim[1][1] = min_size(nt1, c1);
	if (!p->rec && !writes_cold(p))
		return;
	t->checked = 1;
	for (int f = 0; f < ntrace; f++) {
		for (int k = 0; k < 2; k++) {
			size_t x = t->lim[0][k], y = t->lim[1][k];

			t->ashare[f][k] = share_between(
				&trace[f], dop, min_size(x, y), x > y ? x : y);
			if (t->ashare[f][k] > t->share[f])
				t->share[f] = t->ashare[f][k];
		}
		t->touched |= t->share[f] > 0;
	}
	fmt_size(t->lim[0][0], a, sizeof(a));
	fmt_size(t->lim[0][1], b, sizeof(b));
	fmt_size(t->lim[1][0], c, sizeof(c));
	fmt_size(t->lim[1][1], d, sizeof(d));
	len = (size_t)snprintf(t->why, sizeof(t->why),
			       "streams from %s cached, %s cold now; from %s "
			       "cached, %s cold with the keys",
			       a, b, c, d);
	if (!t->touched)
		snprintf(t->why + len, sizeof(t->why) - len,
			 ": no recorded call lies between: left alone");
}

static struct thrcheck *emu_tc;

/* LLC arena: the cached limits; memory arena: the cold ones */
static void emu_arena(unsigned a)
{
	emu_lim[0] = emu_lim[1] = emu_tc->lim[0][a == 1 ? 0 : 1];
	emu_lim[2] = emu_tc->lim[1][a == 1 ? 0 : 1];
}

/* The arenas to replay: LLC (cached) and memory (cold), as the basis
 * says, each only where the limits differ at some recorded size. */
static unsigned thr_mask(const struct pair *p, const struct thrcheck *t)
{
	unsigned mask = 0;

	for (int f = 0; f < ntrace; f++) {
		if (opt.basis != BASIS_COLD && p->measured[0] &&
		    t->ashare[f][0] > 0)
			mask |= 1u << 1;
		if (opt.basis != BASIS_HOT && p->measured[1] &&
		    t->ashare[f][1] > 0)
			mask |= 1u << 2;
	}
	return mask;
}

static void verify_thresholds(const struct pair *p, struct thrcheck *t,
			      char *src, char *dst)
{
	if (!t->checked || !t->touched)
		return;
	memset(t->ser, 0, sizeof(t->ser));
	snprintf(t->ser[0].name, sizeof(t->ser[0].name), "current");
	snprintf(t->ser[1].name, sizeof(t->ser[1].name), "current again");
	snprintf(t->ser[2].name, sizeof(t->ser[2].name), "with the keys");
	if (p->op == FM_OP_MEMCPY) {
		t->ser[0].fn.copy = copy_emu0;
		t->ser[1].fn.copy = copy_emu1;
		t->ser[2].fn.copy = copy_emu2;
	} else {
		t->ser[0].fn.set = set_emu0;
		t->ser[1].fn.set = set_emu1;
		t->ser[2].fn.set = set_emu2;
	}
	t->ns = 3;
	emu = p;
	emu_tc = t;
	if (!thr_mask(p, t)) {
		t->touched = 0; /* none in the arenas the basis wants */
		return;
	}
	trace_measure(trace_op(p->op), thr_mask(p, t), t->ser, 3, t->v, src,
		      dst, emu_arena);
	t->keep = t->v[2].wins;
}

static void report_thresholds(const struct pair *p, const struct thrcheck *t)
{
	unsigned mask = 0;

	printf("== calibrate --trace: %s thresholds, weighed by the "
	       "recorded %s sizes\n",
	       p->what, p->op == FM_OP_MEMSET ? "memset" : "memcpy+memmove");
	if (!t->checked) {
		printf("   -> nothing to weigh: this run recommends no "
		       "change\n\n");
		return;
	}
	printf("   %s\n", t->why);
	for (int f = 0; f < ntrace; f++)
		if (replayable(&trace[f], trace_op(p->op)))
			printf("   %s: %.4f%% of its calls lie between\n",
			       trace[f].name, t->share[f] * 100);
	if (!t->touched) {
		printf("\n");
		return;
	}
	mask = thr_mask(p, t);
	printf("   replayed with the current limits and with the keys' "
	       "(LLC arena: the cached\n   limit; memory arena: the cold "
	       "one), %d runs; ratio: speed with the keys\n",
	       trace_runs());
	for (int s = 1; s < 3; s++)
		print_verdict(t->ser[s].name, &t->v[s], trace_op(p->op), mask,
			      &t->v[1], t->v[0].score);
	printf("   -> %s (control's noise %.0f%%)\n\n",
	       t->keep ? "write them: they win by more than 2%, the runs' "
			 "range and the control's noise, and lose nowhere"
		       : "left alone: they do not win by more than 2%, the "
			 "runs' range and the control's noise without losing "
			 "somewhere",
	       t->v[0].score * 100);
}

/* Before measuring: a pair no recorded call can reach is not measured. */
static void trace_skip(struct pair *pairs, size_t smallest)
{
	for (int i = 0; i < 2; i++) {
		struct pair *p = &pairs[i];
		int probe, dop = trace_op(p->op);
		size_t lo = smallest, mx = 0, nt = fm_nt_threshold(p->op);
		size_t c = cold_now(p->op, &probe);
		char a[24], b[24];

		if (!p->found)
			continue;
		p->x[0] = p->x[1] = -1; /* until measured */
		if (!any_replayable(dop)) {
			snprintf(p->skip, sizeof(p->skip),
				 "no --trace file has %s to replay (100 or "
				 "more in a FASTMEM_TRACE file)",
				 dop == DIST_COPY ? "copies" : "sets");
			continue;
		}
		lo = nt && nt < lo ? nt : lo;
		lo = c < lo ? c : lo;
		for (int f = 0; f < ntrace; f++)
			if (replayable(&trace[f], dop) &&
			    trace[f].max[dop] > mx)
				mx = trace[f].max[dop];
		if (mx >= lo)
			continue;
		fmt_size(mx, a, sizeof(a));
		fmt_size(lo, b, sizeof(b));
		snprintf(p->skip, sizeof(p->skip),
			 "the largest recorded %s, %s, is below %s, the "
			 "smallest size a threshold could move to or from",
			 dop == DIST_COPY ? "copy" : "set", a, b);
	}
}

/* After measuring: the variants, then the pairs' thresholds, replayed. */
static void trace_decide(struct pair *pairs)
{
	size_t arena[ARENAS], maxc = 0, side;
	int runs = trace_runs(), files[DIST_OPS] = { 0, 0 };
	long steps = 0;
	char *src, *dst;

	replay_arenas(arena);
	for (int f = 0; f < ntrace; f++)
		for (int op = 0; op < DIST_OPS; op++) {
			size_t m = replay_max_call(&trace[f], op);

			maxc = m > maxc ? m : maxc;
			files[op] += replayable(&trace[f], op);
		}
	vp[0].op = FM_OP_MEMCPY;
	vp[0].key = "memcpy";
	vp[1].op = FM_OP_MEMSET;
	vp[1].key = "memset";
	for (int i = 0; i < 2; i++) {
		struct pair *p = &pairs[i];

		steps += (long)runs * files[trace_op(vp[i].op)] * 2;
		if (!p->found || p->skip[0])
			continue;
		weigh_thresholds(p, &tc[i]);
		if (tc[i].checked && tc[i].touched)
			steps += (long)runs * files[trace_op(p->op)] *
				 (!!(thr_mask(p, &tc[i]) & 2) +
				  !!(thr_mask(p, &tc[i]) & 4));
	}
	side = arena[2] / 2;
	src = buf_alloc(side + maxc + PAGE, 0x11);
	dst = buf_alloc(side + maxc + PAGE, 0x22);
	note("--trace: %d file%s; each decision replayed in %d separate "
	     "runs, interleaved within each",
	     ntrace, ntrace == 1 ? "" : "s", runs);
	for (int f = 0; f < ntrace; f++) {
		const struct dist *x = &trace[f];
		char a[24], b[24];

		fmt_size(x->max[DIST_COPY], a, sizeof(a));
		fmt_size(x->max[DIST_SET], b, sizeof(b));
		if (x->format == DIST_TRACE)
			note("--trace %s: %llu memcpy + %llu memmove calls up "
			     "to %s, %llu memset up to %s",
			     x->name, (unsigned long long)x->calls[0],
			     (unsigned long long)x->calls[1], a,
			     (unsigned long long)x->calls[2], b);
		else
			note("--trace %s: LLVM libc distribution, sizes up "
			     "to %s",
			     x->name, x->total[DIST_COPY] > 0 ? a : b);
	}
	progress_begin(steps);
	for (int i = 0; i < 2; i++) {
		pick_variant(&vp[i], src, dst);
		if (vp[i].chosen)
			variant_written[i] = vp[i].key;
	}
	for (int i = 0; i < 2; i++) {
		struct pair *p = &pairs[i];

		if (!p->found || p->skip[0] || !tc[i].checked)
			continue;
		verify_thresholds(p, &tc[i], src, dst);
		if (!tc[i].keep) {
			p->held = 1;
			p->rec = 0;
		}
	}
	progress_end();
	buf_free(src, side + maxc + PAGE);
	buf_free(dst, side + maxc + PAGE);
	if (opt.format != OUT_TEXT)
		return;
	for (int i = 0; i < 2; i++)
		if (vp[i].ns)
			report_variant(&vp[i]);
		else
			printf("== calibrate --trace: the %s variant\n   -> "
			       "keep %s: %s\n\n",
			       vp[i].key, fm_selected(vp[i].op), vp[i].why);
	for (int i = 0; i < 2; i++) {
		if (pairs[i].skip[0])
			printf("== calibrate --trace: %s thresholds\n   -> not "
			       "measured: %s\n\n",
			       pairs[i].what, pairs[i].skip);
		else if (pairs[i].found)
			report_thresholds(&pairs[i], &tc[i]);
	}
}

static void trace_json(const struct pair *pairs)
{
	char esc[200];

	json_extra(",\"trace\":{\"runs\":%d,\"files\":[", trace_runs());
	for (int f = 0; f < ntrace; f++) {
		json_escape(opt.traces[f], esc, sizeof(esc));
		json_extra("%s\"%s\"", f ? "," : "", esc);
	}
	json_extra("],\"variants\":[");
	for (int i = 0; i < 2; i++) {
		const struct varpick *v = &vp[i];

		json_extra("%s{\"op\":\"%s\",\"current\":\"%s\","
			   "\"chosen\":",
			   i ? "," : "", v->key, fm_selected(v->op));
		if (v->chosen)
			json_extra("\"%s\"", v->ser[v->chosen].name);
		else
			json_extra("null");
		json_extra(",\"noise\":%.4f,\"candidates\":[", v->v[0].score);
		for (int s = 1; s < v->ns; s++)
			json_extra("%s{\"name\":\"%s\",\"score\":%.4f,"
				   "\"lo\":%.4f,\"hi\":%.4f,\"wins\":%s}",
				   s > 1 ? "," : "", v->ser[s].name,
				   v->v[s].score, v->v[s].slo, v->v[s].shi,
				   v->v[s].wins ? "true" : "false");
		json_extra("]}");
	}
	json_extra("],\"thresholds\":[");
	for (int i = 0; i < 2; i++) {
		const struct thrcheck *t = &tc[i];

		json_extra("%s{\"op\":\"%s\",\"weighed\":%s,"
			   "\"share_between\":[",
			   i ? "," : "", pairs[i].what,
			   t->checked ? "true" : "false");
		for (int f = 0; f < ntrace; f++)
			json_extra("%s%.6g", f ? "," : "", t->share[f]);
		json_extra("],\"replayed\":%s",
			   t->checked && t->touched ? "true" : "false");
		if (t->checked && t->touched)
			json_extra(",\"score\":%.4f,\"lo\":%.4f,\"hi\":%.4f,"
				   "\"noise\":%.4f",
				   t->v[2].score, t->v[2].slo, t->v[2].shi,
				   t->v[0].score);
		json_extra(",\"written\":%s}", t->keep ? "true" : "false");
	}
	json_extra("]}");
}

/* Load the --trace files (before the header): 0, or 2 with a message. */
static int trace_load(void)
{
	char err[512];

	for (int i = 0; i < opt.ntraces; i++) {
		if (dist_load(opt.traces[i], &trace[ntrace], err,
			      sizeof(err))) {
			fprintf(stderr, "fastmem-bench calibrate: --trace %s\n",
				err);
			return 2;
		}
		ntrace++;
	}
	if (ntrace && !any_replayable(DIST_COPY) && !any_replayable(DIST_SET)) {
		fprintf(stderr,
			"fastmem-bench calibrate: --trace: no file has "
			"copies or sets to replay (a FASTMEM_TRACE file needs "
			"100 or more of one): nothing to weigh\n");
		return 2;
	}
	return 0;
}

/*
 * Where rep movsb / rep stosb take over from the vector loop (x86 with
 * ERMS): the selected family's plain vector variant against erms, hot (the
 * same buffers every call), sizes 512 B .. 1 MiB.  Written as
 * rep_from.memcpy / rep_from.memset, which override the CPU class's
 * crossover; nothing is written where rep never wins in the range (the
 * class's crossover stays).
 */

/* The selected policy's own vector loop: the registry's variant of the
 * same ISA that neither chooses nor streams. */
static const struct fm_variant *plain_of(enum fm_op op, const char *sel)
{
	const struct fm_variant *list, *cur = find_variant(op, sel);
	size_t n = fm_variants(op, &list);

	if (!cur || !(cur->flags & FM_VARIANT_POLICY) || !cur->isa[0])
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].isa, cur->isa) &&
		    !(list[i].flags & (FM_VARIANT_POLICY | FM_VARIANT_NT)))
			return &list[i];
	return NULL;
}

static void rep_choose(struct repcal *r)
{
	const struct fm_variant *v = plain_of(r->op, fm_selected(r->op));
	const struct fm_variant *e = find_variant(r->op, "erms");

	if (!v || !v->usable || !e || !e->usable) {
		snprintf(r->why, sizeof(r->why), "not measured: %s",
			 !e || !e->usable ? "no usable erms variant"
					  : "the selected variant is not a "
					    "vector family's policy");
		return;
	}
	r->found = 1;
	memset(r->ser, 0, sizeof(r->ser));
	snprintf(r->ser[0].name, sizeof(r->ser[0].name), "%s", v->name);
	snprintf(r->ser[1].name, sizeof(r->ser[1].name), "%s", e->name);
	r->ser[0].flags = S_REF;
	assign_fn(&r->ser[0], r->op, v);
	assign_fn(&r->ser[1], r->op, e);
}

static void rep_measure(struct repcal *r, char *src, char *dst)
{
	static const size_t sizes[] = { 512,	   KIB,	      2 * KIB,
					4 * KIB,   8 * KIB,   16 * KIB,
					32 * KIB,  64 * KIB,  128 * KIB,
					256 * KIB, 512 * KIB, MIB };
	const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
	int verified[sizeof(sizes) / sizeof(sizes[0])][2];
	char id[64];
	size_t pos = 0;
	struct table *t;
	int wa, wb, x;

	memset(verified, 0, sizeof(verified));
	snprintf(id, sizeof(id), "calibrate %s rep", r->what);
	t = r->t = table_new(id, UNIT_GBS, 0);
	snprintf(t->title, sizeof(t->title),
		 "calibrate %s, hot: GB/s, %s against the vector loop", r->what,
		 r->op == FM_OP_MEMCPY ? "rep movsb" : "rep stosb");
	snprintf(t->subtitle, sizeof(t->subtitle),
		 "the same buffers every call; ratio: median of the per-run "
		 "ratios");
	t->ns = 2;
	memcpy(t->series, r->ser, sizeof(r->ser));
	for (int i = 0; i < nsizes; i++)
		table_add_point(t, sizes[i], NULL);
	for (int i = 0; i < nsizes; i++) {
		struct job jobs[2];
		struct cell out[2];

		activity("calibrate %s rep %s", r->what, t->xlabel[i]);
		for (int k = 0; k < 2; k++) {
			struct job *j = &jobs[k];

			memset(j, 0, sizeof(*j));
			j->s = &t->series[k];
			j->src = src + PAGE;
			j->dst = dst + PAGE;
			j->n = sizes[i];
			j->slots = 1;
			j->pos = &pos;
			j->bytes = (double)sizes[i];
			j->ops = 1;
			j->run = r->op == FM_OP_MEMCPY ? run_copy : run_set;
			j->verify = r->op == FM_OP_MEMCPY ? verify_copy
							  : verify_set;
		}
		measure_cell(jobs, 2, 0, UNIT_GBS, out, verified[i]);
		out[1].ratio = out[1].pratio;
		for (int k = 0; k < 2; k++)
			*table_cell(t, k, i) = out[k];
		progress_step(activity_text());
	}
	/* not r->ser[1].name: GCC's -Wrestrict cannot tell it from r->why */
	const char *rep_insn =
		r->op == FM_OP_MEMCPY ? "rep movsb" : "rep stosb";

	x = crossover(t, &wa, &wb);
	/* one size alone at the top of the range is no crossover */
	if (x >= 0 && x > t->nx - 2)
		x = -1;
	if (x >= 0) {
		r->rec = t->xval[x];
		snprintf(r->why, sizeof(r->why),
			 "%s wins hot from %s (from there up it loses at %d "
			 "of %d sizes, below it wins at %d of %d)",
			 rep_insn, t->xlabel[x], wa, t->nx - x, wb, x);
	} else {
		snprintf(r->why, sizeof(r->why),
			 "%s does not win hot (by >= %.0f%%) from any size up "
			 "to %s (at two sizes or more): the CPU class's "
			 "crossover stays",
			 rep_insn, (WIN - 1) * 100, t->xlabel[t->nx - 1]);
	}
	snprintf(t->footer, sizeof(t->footer), "   %s\n", r->why);
	table_emit(t);
}

int cmd_calibrate(void)
{
	struct pair pairs[2];
	size_t sizes[MAX_POINTS];
	int nsizes = pick_sizes(sizes), nfound = 0;
	unsigned modes = opt.modes ? opt.modes : MODE_HOT | MODE_COLD;
	size_t side, maxn = sizes[nsizes - 1];
	char path[4096], block[4096], a[24];
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
	if (ntrace)
		trace_skip(pairs, sizes[0]);
	nfound = 0;
	for (int i = 0; i < 2; i++)
		nfound += pairs[i].found && !pairs[i].skip[0];
	side = region_total(CMD_CALIBRATE) / 2;
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
			if (!pairs[i].found || pairs[i].skip[0])
				continue;
			measure_pair(&pairs[i], sizes, nsizes, modes, src, dst,
				     side);
			recommend(&pairs[i], maxn);
		}
		progress_end();
		buf_free(src, side);
		buf_free(dst, side);
	}
	if (ntrace)
		trace_decide(pairs);
	rep[0] = (struct repcal){ .op = FM_OP_MEMCPY,
				  .what = "copy",
				  .key = "rep_from.memcpy" };
	rep[1] = (struct repcal){ .op = FM_OP_MEMSET,
				  .what = "set",
				  .key = "rep_from.memset" };
	for (int i = 0; i < 2; i++) {
		if (ntrace) {
			snprintf(rep[i].why, sizeof(rep[i].why),
				 "not measured with --trace");
			continue;
		}
		if (!(modes & MODE_HOT)) {
			snprintf(rep[i].why, sizeof(rep[i].why),
				 "not measured: it is measured hot (--mode "
				 "hot)");
			continue;
		}
		rep_choose(&rep[i]);
	}
	if (rep[0].found || rep[1].found) {
		size_t rside = MIB + 2 * PAGE;
		char *rsrc = buf_alloc(rside, 0x33),
		     *rdst = buf_alloc(rside, 0x44);

		progress_begin(24);
		for (int i = 0; i < 2; i++)
			if (rep[i].found)
				rep_measure(&rep[i], rsrc, rdst);
		progress_end();
		buf_free(rsrc, rside);
		buf_free(rdst, rside);
	}
	if (opt.calib_parallel)
		threads_written =
			parallel_calibrate(threads_why, sizeof(threads_why));

	/* the block to write */
	time_t now = time(NULL);
	char when[32];
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&now));
	bl += (size_t)snprintf(block + bl, sizeof(block) - bl,
			       "# fastmem-bench calibrate, %s, libfastmem %s\n",
			       when, fm_version());
	int nrec = 0;
	for (int i = 0; i < 2 && ntrace; i++) {
		const struct varpick *v = &vp[i];

		if (!variant_written[i])
			continue;
		bl += (size_t)snprintf(
			block + bl, sizeof(block) - bl,
			"# fastmem-bench calibrate --trace: %s\n%s = %s\n",
			v->why, v->key, v->ser[v->chosen].name);
		nrec++;
	}
	for (int i = 0; i < 2; i++) {
		if (!rep[i].rec)
			continue;
		fmt_size_short(rep[i].rec, a, sizeof(a));
		bl += (size_t)snprintf(block + bl, sizeof(block) - bl,
				       "# fastmem-bench calibrate: %s, %s "
				       "against %s: %s\n%s = %s\n",
				       rep[i].what, rep[i].ser[1].name,
				       rep[i].ser[0].name, rep[i].why,
				       rep[i].key, a);
		nrec++;
	}
	if (threads_written) {
		bl += (size_t)snprintf(block + bl, sizeof(block) - bl,
				       "# fastmem-bench calibrate --parallel: "
				       "%s\nthreads = %u\n",
				       threads_why, threads_written);
		nrec++;
	}
	for (int i = 0; i < 2; i++) {
		const struct pair *p = &pairs[i];
		const char *const *keys =
			p->op == FM_OP_MEMCPY ? copy_keys : set_keys;

		if (!p->found || p->skip[0] || p->held)
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
		for (int k = 0; k < 2; k++) {
			/* no trace records page clears */
			if (ntrace &&
			    !strcmp(keys[k], "nt_threshold.clear_page"))
				continue;
			bl += (size_t)snprintf(block + bl, sizeof(block) - bl,
					       "%s = %s\n", keys[k], a);
		}
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

			if (p->skip[0]) {
				printf("   %-4s not measured: %s\n", p->what,
				       p->skip);
				continue;
			}
			if (p->held) {
				printf("   %-4s no change: --trace held back "
				       "what this run measured (see above)\n",
				       p->what);
				continue;
			}
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
		for (int i = 0; i < 2; i++) {
			if (!rep[i].rec) {
				printf("   %-4s rep: no change (%s)\n",
				       rep[i].what, rep[i].why);
				continue;
			}
			fmt_size_short(rep[i].rec, a, sizeof(a));
			printf("   %-4s rep -> %s = %s\n        (%s)\n",
			       rep[i].what, rep[i].key, a, rep[i].why);
		}
		if (threads_written)
			printf("   threads -> %u\n        (%s)\n",
			       threads_written, threads_why);
		else if (opt.calib_parallel)
			printf("   threads not measured: %s\n", threads_why);
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
		for (int i = 0; i < 2; i++)
			if (written && variant_written[i] &&
			    getenv(i ? "FASTMEM_MEMSET" : "FASTMEM_MEMCPY"))
				fprintf(stderr,
					"fastmem-bench calibrate: note: %s is "
					"set and overrides the config file's "
					"%s line\n",
					i ? "FASTMEM_MEMSET" : "FASTMEM_MEMCPY",
					variant_written[i]);
		if (written && threads_written && getenv("FASTMEM_THREADS"))
			fprintf(stderr, "fastmem-bench calibrate: note: "
					"FASTMEM_THREADS "
					"is set and overrides the config "
					"file's threads "
					"line\n");
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
	json_extra("],\"rep\":[");
	for (int i = 0; i < 2; i++) {
		json_escape(rep[i].why, esc, sizeof(esc));
		json_extra("%s{\"op\":\"%s\",\"key\":\"%s\",\"measured\":%s,"
			   "\"from\":",
			   i ? "," : "", rep[i].what, rep[i].key,
			   rep[i].found ? "true" : "false");
		if (rep[i].rec)
			json_extra("%zu", rep[i].rec);
		else
			json_extra("null");
		json_extra(",\"why\":\"%s\"}", esc);
	}
	json_extra("]");
	if (opt.calib_parallel) {
		json_escape(threads_why, esc, sizeof(esc));
		json_extra(",\"parallel\":{\"threads\":%u,\"why\":\"%s\"}",
			   threads_written, esc);
	}
	if (ntrace)
		trace_json(pairs);
	json_extra("}");
	return rc;
}
