/* SPDX-License-Identifier: MIT */
/*
 * FASTMEM_TRACE's file (lib/trace.c counts): opening it safely, writing the
 * counts in the text format of fastmem(3), and the one warning when it
 * cannot be written.
 *
 * The file is written with raw system calls into a stack buffer, not with
 * stdio: under libfastmem-preload.so stdio's memcpy is ours and counted, so
 * a writer that copied through it would change the counts it is writing,
 * and a writer that may run in a signal handler (fm_trace_flush) or in a
 * child after fork must be async-signal-safe anyway.
 */
#include "config.h"

#include <errno.h>
#include <sys/stat.h>

#include "internal.h"
#include "sys.h"

static int warned; /* the one warning about an unwritable file is out */

/* open_trace's own failure: the path names something other than a regular
 * file (a FIFO, a device, a socket); the directory case keeps EISDIR. */
#define NOT_REGULAR 4096

enum open_how { OPEN_PROBE, OPEN_EMPTY, OPEN_SHARED };

struct out {
	int fd;
	int err; /* first error, -errno */
	size_t len;
	char buf[2048];
};

static void out_flush(struct out *o)
{
	size_t done = 0;

	while (done < o->len && !o->err) {
		long w = fm_write(o->fd, o->buf + done, o->len - done);

		if (w == -EINTR)
			continue;
		if (w <= 0)
			o->err = w < 0 ? (int)w : -EIO;
		else
			done += (size_t)w;
	}
	o->len = 0;
}

static void out_str(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (o->len == sizeof(o->buf))
			out_flush(o);
		o->buf[o->len++] = *s;
	}
}

static void fmt_u64(char *buf, uint64_t v)
{
	char rev[24];
	size_t r = 0, n = 0;

	do
		rev[r++] = (char)('0' + v % 10);
	while (v /= 10);
	while (r)
		buf[n++] = rev[--r];
	buf[n] = 0;
}

static void out_u64(struct out *o, uint64_t v)
{
	char num[24];

	fmt_u64(num, v);
	out_str(o, num);
}

/* PATH with %p replaced by the process id and %% by %; 0 if too long. */
static int expand(const char *path, char *out, size_t size, long pid)
{
	size_t n = 0;

	for (const char *p = path; *p; p++) {
		char num[24];
		const char *ins = num;

		if (p[0] == '%' && p[1] == 'p') {
			fmt_u64(num, (uint64_t)pid);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			num[0] = '%', num[1] = 0;
			p++;
		} else {
			num[0] = *p, num[1] = 0;
		}
		for (; *ins; ins++) {
			if (n + 1 >= size)
				return 0;
			out[n++] = *ins;
		}
	}
	out[n] = 0;
	return 1;
}

/* The program's command line, NULs as spaces, at most one line. */
static void out_cmdline(struct out *o)
{
	char buf[160];
	long got = 0, r;
	int fd = fm_open("/proc/self/cmdline");

	if (fd < 0)
		return;
	while (got < (long)sizeof(buf) &&
	       ((r = fm_read(fd, buf + got, sizeof(buf) - (size_t)got)) > 0 ||
		r == -EINTR))
		if (r > 0)
			got += r;
	fm_close(fd);
	while (got > 0 && !buf[got - 1])
		got--;
	if (got <= 0)
		return;
	for (long i = 0; i < got; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (!c)
			buf[i] = ' ';
		else if (c < 0x20 || c >= 0x7f)
			buf[i] = '?';
	}
	buf[got < (long)sizeof(buf) ? got : (long)sizeof(buf) - 1] = 0;
	out_str(o, "# program: ");
	out_str(o, buf);
	out_str(o, "\n");
}

static void out_time(struct out *o, struct fm_trace_time t)
{
	char num[24];
	int i = 0;

	out_u64(o, (uint64_t)t.sec);
	fmt_u64(num, (uint64_t)t.nsec + 1000000000u); /* 1 and 9 digits */
	num[0] = '.';
	while (num[i])
		i++;
	out_str(o, num);
}

/* Why this process's section is not the file's only one. */
static void out_warning(struct out *o, const struct fm_trace_kept *kept)
{
	out_str(o, "# warning: FASTMEM_TRACE has no %p and other processes "
		   "of this run write here too (pid");
	for (int i = 0; i < kept->n && i < FM_TRACE_KEPT_PIDS; i++) {
		out_str(o, " ");
		out_u64(o, (uint64_t)kept->pid[i]);
	}
	if (kept->n > FM_TRACE_KEPT_PIDS) {
		out_str(o, " and ");
		out_u64(o, (uint64_t)(kept->n - FM_TRACE_KEPT_PIDS));
		out_str(o, " more");
	}
	out_str(o, "): each \"fastmem-trace 1\" section is one process; "
		   "replay adds them up\n");
}

static void write_counts(struct out *o, long pid,
			 const struct fm_trace_kept *kept)
{
	struct fm_trace_run run;

	fm_trace_run(&run);
	out_str(o, "fastmem-trace 1\n# pid ");
	out_u64(o, (uint64_t)pid);
	out_str(o, "\n# run group ");
	out_u64(o, (uint64_t)run.group);
	out_str(o, " from ");
	out_time(o, run.from);
	out_str(o, " to ");
	out_time(o, run.to);
	out_str(o, "\n");
	if (kept->n)
		out_warning(o, kept);
	out_cmdline(o);
	out_str(o, "# written by libfastmem " PACKAGE_VERSION
		   " (FASTMEM_TRACE); see fastmem(3)\n"
		   "# calls OP N | aligned64 OP N (dst and src 64-byte "
		   "aligned) |\n"
		   "# overlapping OP N | OP SIZE COUNT | OP LO-HI COUNT\n");
	for (int op = 0; op <= FM_OP_MEMSET; op++) {
		uint64_t total = 0;

		for (unsigned i = 0; i < FM_TRACE_BUCKETS; i++)
			total += fm_trace_counter((enum fm_op)op, i);
		out_str(o, "calls ");
		out_str(o, fm_op_key((enum fm_op)op));
		out_str(o, " ");
		out_u64(o, total);
		out_str(o, "\naligned64 ");
		out_str(o, fm_op_key((enum fm_op)op));
		out_str(o, " ");
		out_u64(o,
			fm_trace_counter((enum fm_op)op, FM_TRACE_ALIGNED64));
		out_str(o, "\n");
		if (op != FM_OP_MEMSET) {
			out_str(o, "overlapping ");
			out_str(o, fm_op_key((enum fm_op)op));
			out_str(o, " ");
			out_u64(o, fm_trace_counter((enum fm_op)op,
						    FM_TRACE_OVERLAPPING));
			out_str(o, "\n");
		}
	}
	for (int op = 0; op <= FM_OP_MEMSET; op++) {
		for (unsigned i = 0; i < FM_TRACE_BUCKETS; i++) {
			uint64_t c = fm_trace_counter((enum fm_op)op, i);
			if (!c)
				continue;
			out_str(o, fm_op_key((enum fm_op)op));
			out_str(o, " ");
			if (i <= FM_TRACE_EXACT_MAX) {
				out_u64(o, (uint64_t)i);
			} else {
				uint64_t lo =
					(uint64_t)1
					<< (i - FM_TRACE_EXACT_MAX - 1 + 12);
				out_u64(o, lo == 4096 ? 4097 : lo);
				out_str(o, "-");
				out_u64(o, 2 * lo - 1);
			}
			out_str(o, " ");
			out_u64(o, c);
			out_str(o, "\n");
		}
	}
	out_flush(o);
}

static void copy_path(char *dst, size_t size, const char *s)
{
	size_t n = 0;

	for (; s[n] && n + 1 < size; n++)
		dst[n] = s[n];
	dst[n] = 0;
}

static const char *errno_text(int e)
{
	switch (e) {
	case ENOENT:
		return "no such file or directory";
	case EACCES:
		return "permission denied";
	case EROFS:
		return "read-only file system";
	case ENOSPC:
		return "no space left on device";
	case EISDIR:
		return "a directory, not a regular file";
	case ENOTDIR:
		return "a component of the path is not a directory";
	case EDQUOT:
		return "disk quota exceeded";
	case ENAMETOOLONG:
		return "name too long";
	case ELOOP:
		return "a symbolic link, which is not followed";
	case NOT_REGULAR:
		return "not a regular file: a FIFO, device or socket";
	default:
		return "error";
	}
}

/* Is the file of this statx type one the counts may go to? 0, or a
 * negative reason. */
static long regular_or_why(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return 0;
	case S_IFDIR:
		return -EISDIR;
	case S_IFLNK:
		return -ELOOP;
	default:
		return -NOT_REGULAR;
	}
}

/*
 * Open the trace file of process pid: for writing (OPEN_PROBE), emptied
 * (OPEN_EMPTY), or for reading and writing (OPEN_SHARED, a path without
 * %p: trace-shared.c keeps the other processes' sections):
 * a regular file, or a new one; never a FIFO, device or directory (opening
 * one could block or have effects of its own, and writing to a pipe whose
 * reader left kills the writer with SIGPIPE), and never through a final
 * symbolic link (it could point at any file the user may write).  Opening
 * never blocks.  The fd, or -errno (-NOT_REGULAR).  *path gets the name
 * (PATH expanded), or the unexpanded PATH when that is too long.
 */
static long open_trace(const char *trace, char *path, size_t size, long pid,
		       enum open_how how)
{
	struct statx stx;
	long fd, why;

	if (!expand(trace, path, size, pid)) {
		copy_path(path, size, trace);
		return -ENAMETOOLONG;
	}
	/* look before opening: opening a device or a FIFO is an act */
	if (fm_syscall5(SYS_statx, AT_FDCWD, (long)path, AT_SYMLINK_NOFOLLOW,
			STATX_TYPE, (long)&stx) == 0 &&
	    (stx.stx_mask & STATX_TYPE) && (why = regular_or_why(stx.stx_mode)))
		return why;
	do
		fd = fm_syscall5(SYS_openat, AT_FDCWD, (long)path,
				 (how == OPEN_SHARED ? O_RDWR : O_WRONLY) |
					 O_CREAT | O_CLOEXEC | O_NOCTTY |
					 O_NONBLOCK | O_NOFOLLOW,
				 0644, 0);
	while (fd == -EINTR);
	if (fd == -ENXIO) /* a FIFO (made since the look) without reader */
		return -NOT_REGULAR;
	if (fd < 0)
		return fd;
	/* and check what was opened: the path may have changed meanwhile */
	why = fm_fstatx((int)fd, &stx);
	if (!why && !(stx.stx_mask & STATX_TYPE))
		why = -EIO;
	if (!why)
		why = regular_or_why(stx.stx_mode);
	if (!why && how == OPEN_EMPTY)
		why = fm_syscall3(SYS_ftruncate, fd, 0, 0);
	if (why) {
		fm_close((int)fd);
		return why;
	}
	return fd;
}

/* One warning per process, however often the file cannot be written; an
 * errno number only where the reason is one. */
static void warn_once(const char *path, long err)
{
	char num[24];
	int own = err == -NOT_REGULAR || err == -ELOOP || err == -EISDIR;

	if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		return;
	fmt_u64(num, (uint64_t)-err);
	const char *parts[] = {
		"FASTMEM_TRACE: cannot write \"",
		path,
		"\" (",
		errno_text((int)-err),
		own ? "" : ", errno ",
		own ? "" : num,
		"); the memory call counts of this process will be lost",
	};
	fm_warn(parts, 7);
}

int fm_trace_write(const char *trace, long pid)
{
	struct fm_trace_kept kept; /* not zeroed whole: that is a memset */
	struct fm_trace_run run;
	struct out o;
	char path[FM_PATH_MAX + 24];
	int shared = !fm_trace_path_per_process(trace);
	long fd;

	kept.n = 0;
	o.err = 0;
	o.len = 0;
	fd = open_trace(trace, path, sizeof(path), pid,
			shared ? OPEN_SHARED : OPEN_EMPTY);
	if (fd >= 0 && shared) {
		fm_trace_run(&run);
		o.err = (int)fm_trace_shared_prepare((int)fd, pid, &run, &kept);
	}
	if (fd >= 0) {
		o.fd = (int)fd;
		if (!o.err)
			write_counts(&o, pid, &kept);
		fm_close((int)fd);
	} else {
		o.err = (int)fd;
	}
	if (o.err)
		warn_once(path, o.err);
	return o.err;
}

void fm_trace_probe_file(const char *trace, long pid)
{
	char path[FM_PATH_MAX + 24];
	long fd = open_trace(trace, path, sizeof(path), pid, OPEN_PROBE);

	if (fd >= 0)
		fm_close((int)fd);
	else
		warn_once(path, fd);
}
