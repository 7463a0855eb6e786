/* SPDX-License-Identifier: MIT */
/*
 * FASTMEM_TRACE without %p, written by several processes (a pipeline, a
 * program and the programs it starts, a forking server): each process's
 * counts are one section of the file (from its "fastmem-trace 1" line to
 * the next), and a process that writes keeps the sections of the other
 * processes of its run and replaces the rest, under an flock(2) of the
 * file.  Replay adds the sections up, as it adds up concatenated files.
 *
 * Each section names its process, process group and the time its counting
 * began and was written (lines "# pid N" and "# run group G from S to E",
 * comments to older readers).  Another process's section is of the same
 * run when it has the same process group (the commands of one shell job or
 * script), or when it was written after this process began counting (a
 * daemon's children in groups of their own): it is kept.  A section of
 * this process (an earlier fm_trace_flush) or of a process that ended
 * before this one began in another group (an earlier run of the command)
 * is dropped, as is anything that is not a section.  A process that keeps
 * other sections says so in its own: "# warning: ...".
 *
 * Raw system calls and stack buffers only, like the rest of the writer.
 */
#include "config.h"

#include <errno.h>

#include "internal.h"
#include "sys.h"

#ifndef LOCK_EX
#define LOCK_EX 2
#define LOCK_NB 4
#endif

static struct fm_trace_time began; /* this process began counting */

static struct fm_trace_time now(void)
{
	struct {
		long sec, nsec;
	} ts = { 0, 0 };
	struct fm_trace_time t;

	fm_syscall3(SYS_clock_gettime, 0 /* CLOCK_REALTIME */, (long)&ts, 0);
	t.sec = ts.sec;
	t.nsec = ts.nsec;
	return t;
}

void fm_trace_began(void)
{
	began = now();
}

void fm_trace_run(struct fm_trace_run *run)
{
	run->group = fm_syscall3(SYS_getpgid, 0, 0, 0);
	run->from = began;
	run->to = now();
}

int fm_trace_path_per_process(const char *trace)
{
	for (const char *p = trace; *p; p++)
		if (p[0] == '%' && p[1])
			if (*++p == 'p')
				return 1;
	return 0;
}

static long seek_to(int fd, long off)
{
	return fm_syscall3(SYS_lseek, fd, off, 0 /* SEEK_SET */);
}

static long read_at(int fd, long off, char *buf, size_t n)
{
	long r = seek_to(fd, off);

	if (r < 0)
		return r;
	do
		r = fm_read(fd, buf, n);
	while (r == -EINTR);
	return r;
}

static long write_at(int fd, long off, const char *buf, size_t n)
{
	long r = seek_to(fd, off);

	while (r >= 0 && n) {
		r = fm_write(fd, buf, n);
		if (r == -EINTR) {
			r = 0;
			continue;
		}
		if (r == 0)
			r = -EIO;
		if (r > 0)
			buf += r, n -= (size_t)r;
	}
	return r < 0 ? r : 0;
}

static int starts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

/* The digits at *s as a number; *s moves past them.  -1 if none. */
static long number(const char **s)
{
	long v = -1;

	for (; **s >= '0' && **s <= '9'; (*s)++)
		v = (v < 0 ? 0 : v * 10) + (**s - '0');
	return v;
}

/* The file read forward a line at a time (from offset 0). */
struct reader {
	int fd;
	long base, len, i; /* buf holds the bytes from base, len of them */
	char buf[2048];
};

/* The offset of the next line (its first cap-1 bytes into line), past
 * it; -1 at the end of the file or on an error. */
static long read_line(struct reader *r, char *line, size_t cap)
{
	long start = r->base + r->i;
	size_t n = 0;
	int any = 0;

	for (;;) {
		if (r->i == r->len) {
			r->base += r->len;
			r->i = 0;
			r->len =
				read_at(r->fd, r->base, r->buf, sizeof(r->buf));
			if (r->len <= 0) {
				r->len = 0;
				break;
			}
		}
		any = 1;
		if (r->buf[r->i++] == '\n')
			break;
		if (n + 1 < cap)
			line[n++] = r->buf[r->i - 1];
	}
	line[n] = 0;
	return any ? start : -1;
}

/* One process's section: where it starts, and its header's comments. */
struct section {
	long start, pid, group;
	struct fm_trace_time to;
	int has_run;
};

static void parse_header_line(struct section *sec, const char *line)
{
	const char *p = line;

	if (starts_with(p, "# pid ")) {
		p += 6;
		sec->pid = number(&p);
	} else if (starts_with(p, "# run group ")) {
		p += 12;
		sec->group = number(&p);
		while (*p && !starts_with(p, " to "))
			p++;
		if (!*p)
			return;
		p += 4;
		sec->to.sec = number(&p);
		if (*p++ != '.')
			return;
		sec->to.nsec = number(&p);
		sec->has_run = sec->group >= 0 && sec->to.sec >= 0 &&
			       sec->to.nsec >= 0;
	}
}

/* Another process's counts from this run (see the top of the file)? */
static int of_this_run(const struct section *sec, long pid,
		       const struct fm_trace_run *run)
{
	if (sec->start < 0 || !sec->has_run || sec->pid == pid)
		return 0;
	return sec->group == run->group || sec->to.sec > run->from.sec ||
	       (sec->to.sec == run->from.sec && sec->to.nsec >= run->from.nsec);
}

/* Bytes [from, to) of the file moved down to at (at <= from). */
static long move_down(int fd, long from, long to, long at)
{
	char buf[2048];

	while (from < to) {
		long n = to - from < (long)sizeof(buf) ? to - from
						       : (long)sizeof(buf);
		long r = at == from ? n : read_at(fd, from, buf, (size_t)n);

		if (r <= 0)
			return r < 0 ? r : -EIO;
		if (at != from && (r = write_at(fd, at, buf, (size_t)r)) < 0)
			return r;
		from += n, at += n;
	}
	return 0;
}

/* flock(2) the file, waiting at most about a second for another process
 * that is writing it (then writing anyway: a stopped process must not
 * keep this one from exiting). */
static void lock_file(int fd)
{
	for (int i = 0; i < 100; i++) {
		struct {
			long sec, nsec;
		} pause = { 0, 10000000 };

		if (fm_syscall3(SYS_flock, fd, LOCK_EX | LOCK_NB, 0) !=
		    -EWOULDBLOCK)
			return;
		fm_syscall3(SYS_nanosleep, (long)&pause, 0, 0);
	}
}

long fm_trace_shared_prepare(int fd, long pid, const struct fm_trace_run *run,
			     struct fm_trace_kept *kept)
{
	struct reader rd; /* not zeroed: its buffer is read into */
	struct section sec = { .start = -1 };
	char line[96];
	long end = 0, r;

	rd.fd = fd;
	rd.base = rd.len = rd.i = 0;
	kept->n = 0;
	lock_file(fd);
	for (;;) {
		long at = read_line(&rd, line, sizeof(line));

		if (at >= 0 && !starts_with(line, "fastmem-trace ")) {
			parse_header_line(&sec, line);
			continue;
		}
		/* the section before this line (or the file's end) is
		 * complete: keep it or drop it */
		if (of_this_run(&sec, pid, run)) {
			long stop = at >= 0 ? at : rd.base + rd.i;

			if ((r = move_down(fd, sec.start, stop, end)) < 0)
				return r;
			end += stop - sec.start;
			if (kept->n < FM_TRACE_KEPT_PIDS)
				kept->pid[kept->n] = sec.pid;
			kept->n++;
		}
		if (at < 0)
			break;
		sec = (struct section){ .start = at, .pid = -1, .group = -1 };
	}
	/* a kept section cut short (a writer that died) ends its line */
	if (end > 0 && read_at(fd, end - 1, line, 1) == 1 && line[0] != '\n' &&
	    write_at(fd, end++, "\n", 1) < 0)
		return -EIO;
	if ((r = fm_syscall3(SYS_ftruncate, fd, end, 0)) < 0)
		return r;
	return seek_to(fd, end) < 0 ? -EIO : 0;
}
