/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench --plot: every plottable table as a panel of one gnuplot
 * figure: tables by size against the size (log scale), tables by mode,
 * pattern or distribution with one point per column; GB/s or ns per
 * operation as the table measures.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static char gnuplot_path[4096];

static const char *plot_ext(void)
{
	const char *dot = strrchr(opt.plot, '.');

	if (dot && !strcmp(dot, ".svg"))
		return "svg";
	if (dot && !strcmp(dot, ".png"))
		return "png";
	return NULL;
}

int plot_check(void)
{
	if (!plot_ext()) {
		fprintf(stderr,
			"fastmem-bench: --plot %s: the file name must end in "
			".svg or .png (see fastmem-bench --help)\n",
			opt.plot);
		exit(2);
	}
	int found =
		!find_in_path("gnuplot", gnuplot_path, sizeof(gnuplot_path));

#ifdef FASTMEM_GNUPLOT
	/* where configure found it, when PATH does not have it */
	if (!found && access(FASTMEM_GNUPLOT, X_OK) == 0) {
		snprintf(gnuplot_path, sizeof(gnuplot_path), "%s",
			 FASTMEM_GNUPLOT);
		found = 1;
	}
#endif
	if (!found) {
		fprintf(stderr, "fastmem-bench: --plot needs gnuplot "
				"(apt-get install gnuplot-nox)\n");
		exit(2);
	}
	return 0;
}

static void gp_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int plottable(const struct table *t)
{
	return (t->plot == PLOT_SIZES && t->nx >= 2) ||
	       (t->plot == PLOT_LABELS && t->nx >= 1);
}

/* The terminal, the layout of np panels and the figure's title. */
static void plot_begin(FILE *g, int np)
{
	int cols = np == 1 ? 1 : np == 2 || np == 4 ? 2 : 3;
	int rows = (np + cols - 1) / cols;
	int w = 620 * cols, h = 430 * rows + 40;
	char brand[96], title[256];

	if (!strcmp(plot_ext(), "svg"))
		fprintf(g,
			"set terminal svg size %d,%d dynamic font 'Sans,10' "
			"background rgb 'white'\n",
			w, h);
	else
		fprintf(g,
			"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
			"  set terminal pngcairo size %d,%d font 'Sans,9'\n"
			"} else {\n  set terminal png size %d,%d\n}\n",
			w, h, w, h);
	fprintf(g, "set output ");
	gp_quote(g, opt.plot);
	fprintf(g,
		"\nset termoption noenhanced\nset multiplot layout %d,%d "
		"title ",
		rows, cols);
	cpu_brand(brand, sizeof(brand));
	snprintf(title, sizeof(title), "fastmem-bench %s -- %s, %s",
		 opt.cmd_name, brand, libc_name());
	gp_quote(g, title);
	fprintf(g, "\nset grid\nset key top left font ',8'\n"
		   "set yrange [0:*]\nset style data linespoints\n");
}

/* The x axis of t: sizes on a log scale, or one tic per labelled column
 * (at most ~12 labelled tics either way). */
static void plot_axis(FILE *g, const struct table *t)
{
	int step = (t->nx + 11) / 12;

	fprintf(g, "set ylabel '%s'\n", unit_name(t->unit));
	if (t->plot == PLOT_SIZES) {
		fprintf(g, "set logscale x 2\nset xlabel 'size (log scale)'\n"
			   "set xtics (");
		for (int x = 0; x < t->nx; x += step) {
			char s[24];

			fmt_size_short(t->xval[x], s, sizeof(s));
			fprintf(g, "%s\"%s\" %zu", x ? ", " : "", s,
				t->xval[x]);
		}
		fprintf(g, ") rotate by -40\nset xrange [%g:%g]\n",
			(double)t->xval[0] / 1.3,
			(double)t->xval[t->nx - 1] * 1.3);
		return;
	}
	fprintf(g, "unset logscale x\nset xlabel '%s'\nset xtics (", t->xname);
	for (int x = 0; x < t->nx; x += step) {
		fprintf(g, "%s", x ? ", " : "");
		gp_quote(g, t->xlabel[x]);
		fprintf(g, " %d", x);
	}
	fprintf(g, ") rotate by -40\nset xrange [-0.5:%g]\n", t->nx - 0.5);
}

/* One panel: t's rows that ran, as data blocks of d from *index on. */
static void plot_panel(FILE *g, FILE *d, const char *data,
		       const struct table *t, int *index)
{
	int first = 1;

	fprintf(g, "set title ");
	gp_quote(g, t->title);
	fputc('\n', g);
	plot_axis(g, t);
	fprintf(g, "plot ");
	for (int s = 0; s < t->ns; s++) {
		int any = 0;

		for (int x = 0; x < t->nx; x++) {
			const struct cell *c = &t->cells[s * MAX_POINTS + x];

			if (c->state != CELL_OK)
				continue;
			fprintf(d, "%.6g %.6g %.6g %.6g\n",
				t->plot == PLOT_SIZES ? (double)t->xval[x]
						      : (double)x,
				c->v.med, c->v.q1, c->v.q3);
			any = 1;
		}
		if (!any)
			continue;
		fprintf(d, "\n\n");
		fprintf(g, "%s'%s' index %d using 1:2 title ",
			first ? "" : ", ", data, (*index)++);
		gp_quote(g, t->series[s].name);
		/* gnuplot cycles 8 colours: dashes tell the rest apart */
		fprintf(g, " lc %d dt %d lw %s pt 7 ps 0.4", s % 8 + 1,
			s / 8 + 1, t->series[s].flags & S_REF ? "2.5" : "1.3");
		first = 0;
	}
	if (first) /* nothing ran: an empty panel, not a syntax error */
		fprintf(g, "NaN notitle");
	fprintf(g, "\n");
}

static int run_gnuplot(const char *script)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl(gnuplot_path, "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	return pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	       WEXITSTATUS(status);
}

int plot_write(void)
{
	char data[] = "/tmp/fastmem-bench-XXXXXX";
	char script[] = "/tmp/fastmem-bench-gp-XXXXXX";
	int fd1, fd2, np = 0, index = 0;
	FILE *d, *g;

	if (!opt.plot)
		return 0;
	for (int i = 0; i < table_count(); i++)
		np += plottable(table_at(i));
	if (!np) {
		fprintf(stderr, "fastmem-bench: --plot: nothing to plot (no "
				"table measured two sizes or more)\n");
		return 1;
	}
	fd1 = mkstemp(data);
	fd2 = mkstemp(script);
	if (fd1 < 0 || fd2 < 0 || !(d = fdopen(fd1, "w")) ||
	    !(g = fdopen(fd2, "w"))) {
		perror("fastmem-bench: --plot: temporary file");
		return 1;
	}
	plot_begin(g, np);
	for (int i = 0; i < table_count(); i++)
		if (plottable(table_at(i)))
			plot_panel(g, d, data, table_at(i), &index);
	fprintf(g, "unset multiplot\n");
	fclose(d);
	fclose(g);
	if (run_gnuplot(script)) {
		fprintf(stderr,
			"fastmem-bench: gnuplot failed writing %s (script "
			"kept: %s, data: %s)\n",
			opt.plot, script, data);
		return 1;
	}
	unlink(data);
	unlink(script);
	if (opt.format == OUT_TEXT)
		printf("plot: %s (%d panel%s)\n", opt.plot, np,
		       np == 1 ? "" : "s");
	else
		fprintf(stderr, "fastmem-bench: plot written to %s\n",
			opt.plot);
	return 0;
}
