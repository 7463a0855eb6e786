/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench: progress on stderr, and the report of a crash inside a
 * variant (which row, which cell).
 */
#include "config.h"

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* --- progress
 * ------------------------------------------------------------------- */

static struct {
	long total, done;
	double start, last;
	int shown, tty;
} prog;

void progress_begin(long total)
{
	prog.total = total > 0 ? total : 1;
	prog.done = 0;
	prog.start = prog.last = now_ns();
	prog.shown = 0;
	prog.tty = isatty(2);
}

void progress_step(const char *what)
{
	double t = now_ns();
	int on = opt.progress < 0 ? prog.tty : opt.progress;

	prog.done++;
	if (!on || t - prog.start < 2e9)
		return;
	if (t - prog.last < (prog.tty ? 2e8 : 2e9) && prog.done < prog.total)
		return;
	prog.last = t;
	double el = (t - prog.start) / 1e9;
	double left = el * (double)(prog.total - prog.done) / (double)prog.done;
	fprintf(stderr,
		"%sfastmem-bench %s: %3ld%% (%ld/%ld) %s, ~%.0f s left%s",
		prog.tty ? "\r\033[K" : "", opt.cmd_name,
		prog.done * 100 / prog.total, prog.done, prog.total, what, left,
		prog.tty ? "" : "\n");
	prog.shown = 1;
}

void progress_end(void)
{
	if (prog.shown && prog.tty)
		fprintf(stderr, "\r\033[K");
	prog.shown = 0;
}

/* --- crash reports
 * ----------------------------------------------------------------- */

static char activity_buf[200];

void activity(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(activity_buf, sizeof(activity_buf), fmt, ap);
	va_end(ap);
}

const char *activity_text(void)
{
	return activity_buf;
}

static void put(const char *s)
{
	if (s)
		(void)!write(2, s, strlen(s));
}

static void crash(int sig)
{
	put(prog.tty && prog.shown ? "\r\033[K" : "");
	put("fastmem-bench: ");
	put(sig == SIGSEGV  ? "segmentation fault"
	    : sig == SIGBUS ? "bus error"
	    : sig == SIGILL ? "illegal instruction"
			    : "fatal signal");
	put(" in ");
	put(cur_series ? cur_series : "the benchmark itself");
	put(" (");
	put(activity_buf);
	put(")\n");
	raise(sig);
}

void install_crash_handler(void)
{
	struct sigaction sa;
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crash;
	sa.sa_flags = (int)SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}
