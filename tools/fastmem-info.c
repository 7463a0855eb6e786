/* SPDX-License-Identifier: MIT */
/*
 * fastmem-info: which variant each operation uses on this machine, and why.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastmem/fastmem.h"
#include "info.h"
#include "internal.h" /* the settings table (lib/settings-table.c) */
#include "out.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#ifdef HAVE_LIBCPUID
#include <libcpuid.h>

#include "codename.h"
#endif

struct identity {
	char vendor[32];
	char brand[80];
	char codename[64];
	char guessed[64]; /* libcpuid's name for a model it does not know */
	int family, model, stepping;
	const char *source;
};

static const char *cpuid_version_or_none(void)
{
#ifdef HAVE_LIBCPUID
	return cpuid_lib_version();
#else
	return "";
#endif
}

static void identify(struct identity *id)
{
	memset(id, 0, sizeof(*id));
	id->family = id->model = id->stepping = -1;
	id->source = "none";
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d, r[12];

	__cpuid(0, a, b, c, d);
	memcpy(id->vendor, &b, 4);
	memcpy(id->vendor + 4, &d, 4);
	memcpy(id->vendor + 8, &c, 4);
	__cpuid(1, a, b, c, d);
	id->family = (int)((a >> 8) & 0xf);
	id->model = (int)((a >> 4) & 0xf);
	if (id->family == 0xf)
		id->family += (int)((a >> 20) & 0xff);
	if (id->family >= 6)
		id->model |= (int)((a >> 12) & 0xf0);
	id->stepping = (int)(a & 0xf);
	__cpuid(0x80000000u, a, b, c, d);
	if (a >= 0x80000004u) {
		for (unsigned i = 0; i < 3; i++)
			__cpuid(0x80000002u + i, r[i * 4], r[i * 4 + 1],
				r[i * 4 + 2], r[i * 4 + 3]);
		memcpy(id->brand, r, 48);
		trim(id->brand);
	}
	id->source = "cpuid";
#endif
#ifdef HAVE_LIBCPUID
	struct cpu_raw_data_t raw;
	struct cpu_id_t data;

	if (cpuid_get_raw_data(&raw) == 0 && cpu_identify(&raw, &data) == 0) {
		int vendor = CODENAME_OTHER;

		if (data.vendor == VENDOR_INTEL)
			vendor = CODENAME_INTEL;
		else if (data.vendor == VENDOR_AMD ||
			 data.vendor == VENDOR_HYGON)
			vendor = CODENAME_AMD;
		snprintf(id->vendor, sizeof(id->vendor), "%s", data.vendor_str);
		snprintf(id->brand, sizeof(id->brand), "%s", data.brand_str);
		if (!codename_is_guess(vendor, data.ext_family, data.ext_model,
				       data.cpu_codename))
			snprintf(id->codename, sizeof(id->codename), "%s",
				 data.cpu_codename);
		else
			snprintf(id->guessed, sizeof(id->guessed), "%s",
				 data.cpu_codename);
		trim(id->brand);
		id->family = data.ext_family;
		id->model = data.ext_model;
		id->stepping = data.stepping;
		id->source = "libcpuid";
	}
#endif
}

static void flag_text(unsigned flags, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s",
		 flags & FM_VARIANT_POLICY ? "policy," : "",
		 flags & FM_VARIANT_NT ? "nt," : "",
		 flags & FM_VARIANT_AUTO ? "auto," : "", "");
	size_t n = strlen(buf);
	if (n)
		buf[n - 1] = 0;
	else
		snprintf(buf, len, "-");
}

/* A cache the library was told nothing of is unknown, not 0 B (arm64
 * kernels pass no cache sizes, nor does qemu-user; the thresholds then
 * assume a 1 MiB L2 and say so). */
static void cache_size(size_t bytes, char *buf, size_t len)
{
	if (bytes)
		fmt_size(bytes, buf, len);
	else
		snprintf(buf, len, "unknown");
}

static const char *sharing(unsigned n, char *buf, size_t len)
{
	if (!n)
		return "?";
	snprintf(buf, len, "%u", n);
	return buf;
}

/* Why a variant cannot run: the features of its ISA list that are not
 * usable here (absent, or removed by FASTMEM_DISABLE). */
static const char *missing(const char *isa, char *buf, size_t len)
{
	char want[64], *save, *tok;
	size_t n = 0;

	snprintf(want, sizeof(want), "%s", isa);
	buf[0] = 0;
	for (tok = strtok_r(want, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!list_has(fm_cpu_features(), tok))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0,
					      "%s%s", n ? "," : "", tok);
	return buf;
}

/* The parallel operations fm_parallel_auto describes */
static const enum fm_op parallel_ops[] = { FM_OP_MEMCPY, FM_OP_MEMSET,
					   FM_OP_CLEAR_PAGE };
#define NPARALLEL (sizeof(parallel_ops) / sizeof(parallel_ops[0]))

static const char *const basis_names[] = {
	[FM_AUTO_UNTIMED] = "untimed",
	[FM_AUTO_TIMING] = "timing",
	[FM_AUTO_MEASURED] = "measured",
	[FM_AUTO_SETTING] = "setting",
};

/* "1 thread (measured: split 1.02x of one thread, 6 timed calls; ...)" */
static void auto_text(const struct fm_parallel_auto *a,
		      const struct fm_parallel_info *pi, char *buf, size_t len)
{
	const char *s = a->threads == 1 ? "" : "s";

	switch (a->basis) {
	case FM_AUTO_MEASURED:
		snprintf(buf, len,
			 "%u thread%s (measured: split %.2fx of one thread, "
			 "%u timed calls; re-checked every 256 calls)",
			 a->threads, s, a->split_ratio, a->samples);
		break;
	case FM_AUTO_TIMING:
		snprintf(buf, len,
			 "%u thread%s while its first large calls are timed "
			 "(%lu so far)",
			 a->threads, s, a->calls);
		break;
	case FM_AUTO_SETTING:
		snprintf(buf, len, "%u thread%s, set by %s", a->threads, s,
			 pi->cap_source);
		break;
	default:
		snprintf(buf, len,
			 "untimed (%u thread%s until the first large call)",
			 a->threads, s);
	}
}

static void print_parallel_auto(const struct fm_parallel_info *pi)
{
	for (size_t i = 0; i < NPARALLEL; i++) {
		struct fm_parallel_auto a;
		char t[200];

		if (fm_parallel_auto(parallel_ops[i], &a))
			continue;
		auto_text(&a, pi, t, sizeof(t));
		printf("            auto %-10s %s\n",
		       fm_op_name(parallel_ops[i]), t);
	}
}

static void json_parallel_auto(void)
{
	printf(",\"auto\":{");
	for (size_t i = 0, k = 0; i < NPARALLEL; i++) {
		struct fm_parallel_auto a;

		if (fm_parallel_auto(parallel_ops[i], &a))
			continue;
		printf("%s\"%s\":{\"basis\":\"%s\",\"threads\":%u,"
		       "\"samples\":%u,\"calls\":%lu,\"split_ratio\":",
		       k++ ? "," : "", fm_op_name(parallel_ops[i]),
		       a.basis < sizeof(basis_names) / sizeof(*basis_names) &&
				       basis_names[a.basis]
			       ? basis_names[a.basis]
			       : "unknown",
		       a.threads, a.samples, a.calls);
		if (a.basis == FM_AUTO_MEASURED)
			printf("%.3f}", a.split_ratio);
		else
			printf("null}");
	}
	printf("}");
}

/*
 * The FASTMEM_* variables of this environment, each a setting or not; an
 * unknown one with the setting it most likely meant, if any (the one the
 * library's own warning names).  fn(name, name_len, value, def, nearest,
 * distance): def NULL for an unknown name.
 */
static int secure_mode; /* the settings' secure mode, for the listing */

typedef void env_fn(const char *entry, size_t name_len,
		    const struct fm_setting_def *def,
		    const struct fm_setting_def *nearest, unsigned distance);

static void each_fastmem_variable(env_fn *fn)
{
	extern char **environ;

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
		unsigned distance = 0;
		int i = -1;

		switch (fm_env_classify(*e, strlen(*e), &i, &distance)) {
		case FM_ENV_SETTING:
			fn(*e, len, fm_setting_at((size_t)i), NULL, 0);
			break;
		case FM_ENV_UNKNOWN:
			fn(*e, len, NULL,
			   i >= 0 ? fm_setting_at((size_t)i) : NULL, distance);
			break;
		default:
			break;
		}
	}
}

static void print_variable(const char *entry, size_t name_len,
			   const struct fm_setting_def *def,
			   const struct fm_setting_def *nearest,
			   unsigned distance)
{
	char buf[256];

	(void)distance;
	printable(entry, buf, sizeof(buf));
	if (def)
		printf("            %s%s\n", buf,
		       secure_mode ? " (ignored: secure mode)" : "");
	else if (nearest)
		printf("            %.*s: not a setting, ignored (nearest: "
		       "%s)\n",
		       (int)name_len, entry, nearest->env);
	else
		printf("            %.*s: not a setting, ignored\n",
		       (int)name_len, entry);
}

static int json_first_variable;

static void json_variable(const char *entry, size_t name_len,
			  const struct fm_setting_def *def,
			  const struct fm_setting_def *nearest,
			  unsigned distance)
{
	char name[64];
	const char *eq = strchr(entry, '=');

	snprintf(name, sizeof(name), "%.*s", (int)name_len, entry);
	printf("%s{\"name\":", json_first_variable ? "" : ",");
	json_first_variable = 0;
	json_str(stdout, name);
	printf(",\"value\":");
	json_str(stdout, eq ? eq + 1 : "");
	printf(",\"setting\":%s", def ? "true" : "false");
	if (!def && nearest) {
		printf(",\"nearest\":");
		json_str(stdout, nearest->env);
		printf(",\"distance\":%u", distance);
	}
	putchar('}');
}

static void print_text(const struct identity *id)
{
	struct fm_cache_info ci;
	struct fm_settings_info si;
	struct fm_parallel_info pi;
	char a[32], b[32], c[32], sa[16], sb[16], pa[1100], pb[1100];

	fm_cache_info(&ci);
	printf("libfastmem %s\n\n", fm_version());
	if (id->vendor[0] || id->brand[0])
		printf("CPU         %s %s\n", id->vendor, id->brand);
	else
		printf("CPU         unknown\n");
	if (id->family >= 0) {
		printf("            family %d, model %d, stepping %d%s%s "
		       "(identity: %s)\n",
		       id->family, id->model, id->stepping,
		       id->codename[0] ? ", codename " : "", id->codename,
		       id->source);
		if (id->guessed[0])
			printf("            libcpuid %s does not know this "
			       "model; its guess \"%s\" is not shown\n",
			       cpuid_version_or_none(), id->guessed);
	} else
		printf("            (no CPU identity on this architecture)\n");
	printf("features    %s\n", fm_cpu_features_detected());
	if (strcmp(fm_cpu_features(), fm_cpu_features_detected()))
		printf("usable      %s (FASTMEM_DISABLE)\n", fm_cpu_features());
	cache_size(ci.l1d, a, sizeof(a));
	cache_size(ci.l2, b, sizeof(b));
	cache_size(ci.l3, c, sizeof(c));
	printf("caches      line %zu B, L1d %s, L2 %s, L3 %s\n", ci.line, a, b,
	       c);
	printf("            L2 shared by %s, L3 shared by %s threads\n",
	       sharing(ci.l2_sharing, sa, sizeof(sa)),
	       sharing(ci.l3_sharing, sb, sizeof(sb)));
	/* the notes are parts separated by "; ": one line each */
	for (const char *p = fm_cpu_notes(), *e; *p; p = *e ? e + 2 : e) {
		e = strstr(p, "; ");
		if (!e)
			e = p + strlen(p);
		printf("%s%.*s\n",
		       p == fm_cpu_notes() ? "notes       " : "            ",
		       (int)(e - p), p);
	}
	printf("preloaded   %s\n",
	       fm_preloaded() ? "yes: this process's memcpy is libfastmem's"
			      : "no");
	fm_settings_info(&si);
	printf("settings    %s\n",
	       si.secure ? "secure mode: caller settings ignored (setuid, "
			   "setgid or file capabilities)"
			 : "environment (FASTMEM_*) and config files");
	printf("            system config %s: %s\n",
	       printable(si.system.path, pa, sizeof(pa)), si.system.state);
	printf("            user config   %s: %s\n",
	       printable(si.user.path, pb, sizeof(pb)), si.user.state);
	secure_mode = si.secure;
	each_fastmem_variable(print_variable);
	fm_parallel_info(&pi);
	fmt_size(pi.split_min, a, sizeof(a));
	printf("parallel    %u thread%s automatic (%u CPUs in the affinity "
	       "mask, cap %u: %s);\n            one thread below %s\n",
	       pi.threads, pi.threads == 1 ? "" : "s", pi.cpus, pi.cap,
	       pi.cap_source, a);
	print_parallel_auto(&pi);
	putchar('\n');

	for (int op = 0; op < FM_OP_COUNT; op++) {
		const struct fm_variant *list;
		size_t n = fm_variants(op, &list);
		const char *sel = fm_selected(op);

		fmt_size(fm_nt_threshold(op), a, sizeof(a));
		printf("%-11s selected %s (%s)\n", fm_op_name(op), sel,
		       fm_selected_reason(op));
		printf("            streams from %s: %s\n", a,
		       fm_nt_threshold_source(op));
		for (size_t i = 0; i < n; i++) {
			char why[64];

			flag_text(list[i].flags, b, sizeof(b));
			if (!list[i].usable)
				missing(list[i].isa, why, sizeof(why));
			printf("          %c %-17s %-11s %-16s %s%s\n",
			       strcmp(list[i].name, sel) ? ' ' : '*',
			       list[i].name, list[i].isa[0] ? list[i].isa : "-",
			       b,
			       list[i].usable ? "usable" : "not usable: needs ",
			       list[i].usable ? "" : why);
		}
		putchar('\n');
	}
}

static void print_json(const struct identity *id)
{
	struct fm_cache_info ci;
	struct fm_settings_info si;
	struct fm_parallel_info pi;

	fm_cache_info(&ci);
	printf("{\"version\":");
	json_str(stdout, fm_version());
	printf(",\"cpu\":{\"vendor\":");
	json_str(stdout, id->vendor);
	printf(",\"brand\":");
	json_str(stdout, id->brand);
	printf(",\"family\":%d,\"model\":%d,\"stepping\":%d,\"codename\":",
	       id->family, id->model, id->stepping);
	if (id->codename[0])
		json_str(stdout, id->codename);
	else
		printf("null");
	printf(",\"codename_guessed\":");
	if (id->guessed[0])
		json_str(stdout, id->guessed);
	else
		printf("null");
	printf(",\"identity_source\":");
	json_str(stdout, id->source);
	printf(",\"features\":");
	json_str(stdout, fm_cpu_features_detected());
	printf(",\"usable_features\":");
	json_str(stdout, fm_cpu_features());
	printf("},\"caches\":{\"line\":%zu,\"l1d\":%zu,\"l2\":%zu,"
	       "\"l2_sharing\":%u,\"l3\":%zu,\"l3_sharing\":%u}",
	       ci.line, ci.l1d, ci.l2, ci.l2_sharing, ci.l3, ci.l3_sharing);
	printf(",\"notes\":");
	json_str(stdout, fm_cpu_notes());
	fm_settings_info(&si);
	printf(",\"preloaded\":%s,\"settings\":{\"secure\":%s,"
	       "\"system_config\":{\"path\":",
	       fm_preloaded() ? "true" : "false", si.secure ? "true" : "false");
	json_str(stdout, si.system.path);
	printf(",\"state\":");
	json_str(stdout, si.system.state);
	printf("},\"user_config\":{\"path\":");
	json_str(stdout, si.user.path);
	printf(",\"state\":");
	json_str(stdout, si.user.state);
	printf("},\"variables\":[");
	json_first_variable = 1;
	each_fastmem_variable(json_variable);
	printf("]}");
	fm_parallel_info(&pi);
	printf(",\"parallel\":{\"threads\":%u,\"cpus\":%u,\"cap\":%u,"
	       "\"cap_source\":",
	       pi.threads, pi.cpus, pi.cap);
	json_str(stdout, pi.cap_source);
	printf(",\"split_min\":%zu", pi.split_min);
	json_parallel_auto();
	printf("}");
	printf(",\"operations\":{");
	for (int op = 0; op < FM_OP_COUNT; op++) {
		const struct fm_variant *list;
		size_t n = fm_variants(op, &list);
		size_t t = fm_nt_threshold(op);

		printf("%s\"%s\":{\"selected\":", op ? "," : "",
		       fm_op_name(op));
		json_str(stdout, fm_selected(op));
		printf(",\"reason\":");
		json_str(stdout, fm_selected_reason(op));
		if (t == (size_t)-1)
			printf(",\"nt_threshold\":null");
		else
			printf(",\"nt_threshold\":%zu", t);
		printf(",\"nt_threshold_source\":");
		json_str(stdout, fm_nt_threshold_source(op));
		printf(",\"variants\":[");
		for (size_t i = 0; i < n; i++) {
			printf("%s{\"name\":", i ? "," : "");
			json_str(stdout, list[i].name);
			printf(",\"isa\":");
			json_str(stdout, list[i].isa);
			printf(",\"usable\":%s,\"policy\":%s,\"nontemporal\":%"
			       "s}",
			       list[i].usable ? "true" : "false",
			       list[i].flags & FM_VARIANT_POLICY ? "true"
								 : "false",
			       list[i].flags & FM_VARIANT_NT ? "true"
							     : "false");
		}
		printf("]}");
	}
	printf("}}\n");
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fastmem-info [--json] [--pid PID] [--help] "
		"[--version]\n"
		"Show the CPU, its caches, every libfastmem variant, the one "
		"each operation\nuses and why, and the non-temporal "
		"thresholds.\n\n"
		"  -j, --json     print one JSON object instead of text\n"
		"  -p, --pid PID  tell about process PID instead: whether it "
		"has the preload\n"
		"                 or the library mapped, its variants where "
		"they can be known,\n"
		"                 its FASTMEM_* variables (from /proc/PID)\n"
		"  -h, --help     show this help\n"
		"  -V, --version  print the library version\n\n"
		"Environment: FASTMEM_MEMCPY, FASTMEM_MEMMOVE, "
		"FASTMEM_MEMSET,\n"
		"FASTMEM_COPY_PAGE, FASTMEM_CLEAR_PAGE, FASTMEM_DISABLE,\n"
		"FASTMEM_NT_THRESHOLD, FASTMEM_THREADS, FASTMEM_CONFIG; see "
		"fastmem(3).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, 0, 'j' },
		{ "pid", required_argument, 0, 'p' },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 },
	};
	int json = 0, c;
	const char *pid = NULL;
	struct identity id;

	while ((c = getopt_long(argc, argv, "jp:hV", opts, 0)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'p':
			pid = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s\n", fm_version());
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fastmem-info: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	if (pid) {
		c = info_pid(pid, json);
		return ferror(stdout) && !c ? 1 : c;
	}
	identify(&id);
	if (json)
		print_json(&id);
	else
		print_text(&id);
	return ferror(stdout) ? 1 : 0;
}
