/* SPDX-License-Identifier: MIT */
/*
 * Where settings come from, read once: the environment, the system config
 * file and the per-user config file (parsed by settings.c).
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

#include "detect.h"
#include "settings.h"
#include "sys.h"

#define CHUNK 256

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
static enum fm_file_state read_config(struct fm_scan *sc, const char *path,
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
	fm_scan_begin(sc, src);
	sc->quote = !sc->st->secure && (sx.stx_mode & S_IROTH);
	if (sc->quote)
		sc->st->quotable |= (uint8_t)(1u << src);
	if (sx.stx_size > FM_CONFIG_MAX) {
		state = FM_FILE_TRUNCATED;
		if (sc->warn) {
			const char *parts[] = {
				fm_file_label(src), path,
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
		fm_scan_feed(sc, buf, (size_t)got, FM_SCAN_CONFIG);
		total += (size_t)got;
	}
	/* a line cut at the limit is not a line; one that ends the file
	 * exactly there is */
	if (total < FM_CONFIG_MAX || fm_read(fd, buf, 1) == 0)
		fm_scan_finish(sc, FM_SCAN_CONFIG);
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
static void state_warn(struct fm_scan *sc, const char *label, const char *path,
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

/*
 * Secure-execution mode, as the kernel decided it for this exec: AT_SECURE
 * from /proc/self/auxv (the resolvers may not call getauxval), or real and
 * effective ids that differ.  If the auxiliary vector cannot be read to its
 * end the answer is yes: without /proc the environment cannot be read
 * either, so nothing is lost, and a privileged process is never guessed
 * otherwise.
 */
static int secure_mode(void)
{
	uint64_t aux[FM_AUXV_TYPES];

	return !fm_auxv_read(aux) || aux[FM_AT_SECURE] != 0 ||
	       fm_id(FM_SYS_GETUID) != fm_id(FM_SYS_GETEUID) ||
	       fm_id(FM_SYS_GETGID) != fm_id(FM_SYS_GETEGID);
}

/* The environment, from /proc/self/environ (getenv may not be usable). */
static void read_environment(struct fm_scan *sc)
{
	int fd = fm_open("/proc/self/environ");
	char buf[CHUNK];
	long got;

	if (fd < 0)
		return;
	fm_scan_begin(sc, FM_SRC_ENV);
	while ((got = fm_read(fd, buf, sizeof(buf))) > 0)
		fm_scan_feed(sc, buf, (size_t)got, FM_SCAN_ENV);
	fm_scan_finish(sc, FM_SCAN_ENV);
	fm_close(fd);
}

/* Is rdtsc disabled for this process (prctl PR_TSC_SIGSEGV)? */
static int tsc_disabled(void)
{
#if defined(__x86_64__) || defined(__i386__)
	/* asked here, at the first resolution, and not on a copy's path,
	 * which must make no system call (a sandbox installed later may
	 * forbid prctl) */
	int tsc = 0;

	if (fm_syscall5(SYS_prctl, 25 /* PR_GET_TSC */, (long)&tsc, 0, 0, 0) ==
	    0)
		return tsc == 2; /* PR_TSC_SIGSEGV */
#endif
	return 0;
}

/* The per-user file: FASTMEM_CONFIG if the environment named (or emptied)
 * it, else under XDG_CONFIG_HOME, else under HOME; "" for none. */
static void user_config_path(struct fm_scan *sc)
{
	struct fm_settings *st = sc->st;

	if (st->config_src)
		return;
	if (sc->xdg[0] == '/')
		append(st->config_path, FM_PATH_MAX, sc->xdg,
		       "/fastmem/fastmem.conf");
	else if (sc->home[0] == '/' && !sc->home_long)
		/* a relative HOME, like a relative XDG_CONFIG_HOME, names no
		 * file: from the working directory it is whatever lies there */
		append(st->config_path, FM_PATH_MAX, sc->home,
		       "/.config/fastmem/fastmem.conf");
}

static void load(struct fm_settings *st, int warn)
{
	struct fm_scan sc;
	enum fm_file_state state;

	fm_zero(st, sizeof(*st));
	fm_zero(&sc, sizeof(sc));
	sc.st = st;
	sc.warn = warn;
	if (!FM_HAVE_RAW_SYSCALLS)
		return;
	st->secure = (uint8_t)secure_mode();
	st->tsc_disabled = (uint8_t)tsc_disabled();
	if (!st->secure)
		read_environment(&sc);

	/* the system file first: what the per-user file sets outranks it */
	if (!st->system_src)
		fm_copy_str(st->system_path, FM_PATH_MAX, FM_SYSTEM_CONFIG,
			    fm_str_len(FM_SYSTEM_CONFIG));
	if (st->system_path[0]) {
		state = read_config(&sc, st->system_path, FM_SRC_SYSTEM);
		st->system_state = (uint8_t)state;
		sc.src = FM_SRC_SYSTEM;
		state_warn(&sc, "system config \"", st->system_path, state,
			   st->system_src != 0);
	}

	if (st->secure) {
		st->user_state = FM_FILE_SECURE;
		return;
	}
	user_config_path(&sc);
	if (!st->config_path[0])
		return;
	state = read_config(&sc, st->config_path, FM_SRC_CONFIG);
	st->user_state = (uint8_t)state;
	sc.src = FM_SRC_CONFIG;
	state_warn(&sc, st->config_src ? "FASTMEM_CONFIG=\"" : "config \"",
		   st->config_path, state, st->config_src != 0);
}

void fm_settings_parse(struct fm_settings *st, const char *env, size_t envlen,
		       const char *config, size_t configlen, int secure)
{
	struct fm_scan sc;
	enum fm_source src = secure ? FM_SRC_SYSTEM : FM_SRC_CONFIG;
	char *path = secure ? st->system_path : st->config_path;

	fm_zero(st, sizeof(*st));
	fm_zero(&sc, sizeof(sc));
	fm_scan_reset_warnings();
	sc.st = st;
	sc.warn = 1;
	st->secure = (uint8_t)(secure != 0);
	if (!secure) {
		fm_scan_begin(&sc, FM_SRC_ENV);
		fm_scan_feed(&sc, env, envlen, FM_SCAN_ENV);
		fm_scan_finish(&sc, FM_SCAN_ENV);
	}
	append(path, FM_PATH_MAX, "(memory)", "");
	fm_scan_begin(&sc, src);
	sc.quote = !secure;
	if (sc.quote)
		st->quotable |= (uint8_t)(1u << src);
	fm_scan_feed(&sc, config,
		     configlen < FM_CONFIG_MAX ? configlen : FM_CONFIG_MAX,
		     FM_SCAN_CONFIG);
	fm_scan_finish(&sc, FM_SCAN_CONFIG);
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
