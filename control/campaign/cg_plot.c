/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plots with gnuplot (SVG): CDF per size, timeline with fault marks, drops and marks.
 * gnuplot writes each plot as FILE.svg.part; a plot is kept once it is whole (gnuplot
 * says nothing of a full disk: its exit status is 0 and the file cut short). A plot
 * with nothing to draw (a size no iteration of which ran, the links without a
 * dataplane's counters) is not made: gnuplot would stop at it, and every plot after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg.h"

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The plots there is data for. */
struct wants {
	int cdf[CG_MAX_SIZES];
	int proj[CG_MAX_SIZES]; /* a projection of that size (cg_scale.c) */
	int timeline;
	int links;
};

static void
wanted(const struct cg_run *r, json_t *runs, struct wants *w)
{
	json_t *run, *x;
	size_t i, k;

	memset(w, 0, sizeof(*w));
	json_array_foreach(runs, i, run)
	{
		json_t *its = json_object_get(run, "iterations");

		w->links |= cg_has_fabric(r->c) && json_is_object(json_object_get(run, "counters"));
		w->timeline |= json_integer_value(json_object_get(run, "repetition")) == 1 &&
			       json_array_size(its) > 0;
		json_array_foreach(its, k, x)
		{
			uint64_t size = (uint64_t)json_integer_value(json_array_get(x, 1));

			for (unsigned s = 0; s < r->c->nsizes; s++)
				w->cdf[s] |= size == r->c->sizes[s] / 4 * 4;
		}
	}
	w->timeline &= r->c->allreduce;
	for (unsigned s = 0; s < r->c->nsizes; s++)
		w->cdf[s] &= r->c->allreduce;
}

/* plots/cdf-REGIME-SIZE.dat: iteration times (ms) of every repetition, and their CDF. */
static int
cdf_data(const struct cg_run *r, json_t *runs, const struct cg_regime *g, uint64_t size)
{
	char p[PATH_MAX], sz[16];
	json_t *run, *x;
	size_t i, k, n = 0, all = 1;
	double *v;
	FILE *f;
	int rc = -1;

	json_array_foreach(runs, i, run) all += json_array_size(json_object_get(run, "iterations"));
	if ((v = malloc(sizeof(double) * all)) == NULL)
		return -1;
	json_array_foreach(runs, i, run)
	{
		if (!cg_run_of(run, g))
			continue;
		json_array_foreach(json_object_get(run, "iterations"), k, x)
		{
			if (cg_iter_of_size(x, size))
				v[n++] = json_real_value(json_array_get(x, 3)) / 1000;
		}
	}
	qsort(v, n, sizeof(*v), cmp_d);
	snprintf(p, sizeof(p), "%s/plots/cdf-%s-%s.dat", r->out, g->name,
		 cg_size_name(size, sz, sizeof(sz)));
	if ((f = cg_out_open(r, p)) != NULL) {
		for (size_t j = 0; j < n; j++)
			fprintf(f, "%.4f %.5f\n", v[j], (double)(j + 1) / (double)n);
		rc = cg_out_close(r, f, p);
	}
	free(v);
	return rc;
}

/* plots/timeline-REGIME.dat: iteration number against time, first repetition. */
static int
timeline_data(const struct cg_run *r, json_t *runs, const struct cg_regime *g)
{
	char p[PATH_MAX];
	json_t *run, *x;
	size_t i, k;
	FILE *f;

	snprintf(p, sizeof(p), "%s/plots/timeline-%s.dat", r->out, g->name);
	if ((f = cg_out_open(r, p)) == NULL)
		return -1;
	json_array_foreach(runs, i, run)
	{
		if (!cg_run_of(run, g) ||
		    json_integer_value(json_object_get(run, "repetition")) != 1)
			continue;
		json_array_foreach(json_object_get(run, "iterations"), k, x)
			fprintf(f, "%lld %.4f\n", json_integer_value(json_array_get(x, 0)),
				json_real_value(json_array_get(x, 3)) / 1000);
	}
	return cg_out_close(r, f, p);
}

/* plots/projection-SERIES-SIZE.dat: ranks, then the expected iteration, its p99 and the
 * chance of a stall, each with its band (cg_scale.c). */
static int
proj_data(const struct cg_run *r, const struct cg_proj *p)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/plots/projection-%s-%s.dat", r->out, p->series, p->size);
	if ((f = cg_out_open(r, path)) == NULL)
		return -1;
	for (unsigned k = 0; k < p->nat; k++) {
		const struct cg_proj_at *a = &p->at[k];

		fprintf(f, "%u %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g\n", a->n, a->mean,
			a->mean_lo, a->mean_hi, a->p99, a->p99_lo, a->p99_hi, a->stall, a->stall_lo,
			a->stall_hi);
	}
	/* then, after two blank lines (gnuplot's index 1), what the checks measured: ranks,
	 * the stall share and its interval */
	fprintf(f, "\n\n");
	for (unsigned k = 0; k < p->ncheck; k++)
		if (p->check[k].measured && !isnan(p->check[k].stall))
			fprintf(f, "%u %.6g %.6g %.6g\n", p->check[k].pred.n, p->check[k].stall,
				p->check[k].stall_lo, p->check[k].stall_hi);
	return cg_out_close(r, f, path);
}

/* For each size projected: the iteration's time, and the chance of a stall, against the
 * ranks, each series a line and its band. */
static void
proj_script(FILE *f, const struct cg_run *r, const struct cg_proj *p, size_t np)
{
	const struct cg_campaign *c = r->c;
	char sz[16];

	/* undo what the links' histogram set */
	fprintf(f, "set datafile separator whitespace\nset style data lines\nset xtics "
		   "norotate autofreq\nset yrange [*:*]\nset key outside right\n");
	for (unsigned s = 0; s < c->nsizes; s++) {
		const char *sep = "";

		cg_size_name(c->sizes[s], sz, sizeof(sz));
		fprintf(f,
			"set output '%s/projection-%s.svg.part'\nset title 'All-reduce of %s a "
			"rank at cluster scale (projected; band: 95 %% interval; dashed: p99)'\n"
			"set xlabel 'ranks'\nset ylabel 'expected iteration time (ms)'\nset "
			"logscale xy\nset style fill transparent solid 0.2 noborder\nplot ",
			r->out, sz, sz);
		for (size_t i = 0; i < np; i++) {
			if (strcmp(p[i].size, sz) != 0)
				continue;
			fprintf(f,
				"%s'%s/plots/projection-%s-%s.dat' index 0 using 1:3:4 with "
				"filledcurves lc %zu notitle, '' index 0 using 1:2 with "
				"linespoints "
				"lw 2 lc %zu title '%s', '' index 0 using 1:5 with lines dt 2 lc "
				"%zu "
				"notitle",
				sep, r->out, p[i].series, sz, i + 1, i + 1, p[i].series, i + 1);
			sep = ", ";
		}
		fprintf(f,
			"\nset output '%s/projection-stall-%s.svg.part'\nset title 'All-reduce of "
			"%s a rank: the chance that an iteration holds a stall (projected; band: "
			"95 %% interval; points: measured)'\nset ylabel 'P(at least one "
			"stall)'\nunset logscale y\n"
			"set yrange [0:1]\nplot ",
			r->out, sz, sz);
		sep = "";
		for (size_t i = 0; i < np; i++) {
			if (strcmp(p[i].size, sz) != 0)
				continue;
			fprintf(f,
				"%s'%s/plots/projection-%s-%s.dat' index 0 using 1:9:10 with "
				"filledcurves lc %zu notitle, '' index 0 using 1:8 with "
				"linespoints lw 2 lc %zu title '%s'",
				sep, r->out, p[i].series, sz, i + 1, i + 1, p[i].series);
			if (p[i].ncheck)
				fprintf(f,
					", '' index 1 using 1:2:3:4 with yerrorbars pt 7 ps 1.2 lc "
					"%zu title '%s measured'",
					i + 1, p[i].series);
			sep = ", ";
		}
		fprintf(f, "\nunset logscale xy\nset yrange [*:*]\nset style fill solid\n");
	}
}

static void
script(FILE *f, const struct cg_run *r, const struct wants *w)
{
	const struct cg_campaign *c = r->c;
	char sz[16];

	fprintf(f, "set terminal svg size 900,500 dynamic font 'sans,11'\nset key outside right\n"
		   "set grid\nset datafile separator whitespace\n");
	for (unsigned s = 0; s < c->nsizes; s++) {
		if (!w->cdf[s])
			continue;
		cg_size_name(c->sizes[s], sz, sizeof(sz));
		fprintf(f,
			"set output '%s/cdf-%s.svg.part'\nset title 'All-reduce of %s per rank: "
			"CDF of "
			"iteration time (slowest rank)'\nset xlabel 'iteration time (ms)'\n"
			"set ylabel 'fraction of iterations'\nset logscale x\nset yrange "
			"[0:1]\nplot ",
			r->out, sz, sz);
		for (unsigned g = 0; g < c->nreg; g++)
			fprintf(f,
				"%s'%s/plots/cdf-%s-%s.dat' using 1:2 with steps lw 2 title '%s'",
				g ? ", " : "", r->out, c->reg[g].name, sz, c->reg[g].name);
		fprintf(f, "\nunset logscale x\nset yrange [*:*]\n");
	}
	if (w->timeline) {
		fprintf(f,
			"set output '%s/timeline.svg.part'\nset title 'Iteration time, first "
			"repetition "
			"(dashed lines: faults at an iteration)'\nset xlabel 'iteration'\nset "
			"ylabel 'time (ms)'\n"
			"set logscale y\n",
			r->out);
		/* faults at an iteration; one at a time falls in another iteration in each
		 * regime (report.html lists when each ran) */
		for (unsigned i = 0; i < c->nsteps; i++)
			if (c->steps[i].at_iter)
				fprintf(f,
					"set arrow from %d, graph 0 to %d, graph 1 nohead dt 2 lc "
					"'red'\nset label '%s' at %d, graph 0.95 rotate by 90 "
					"right font ',8' tc 'red'\n",
					c->steps[i].at_iter, c->steps[i].at_iter, c->steps[i].what,
					c->steps[i].at_iter);
		fprintf(f, "plot ");
		for (unsigned g = 0; g < c->nreg; g++)
			fprintf(f,
				"%s'%s/plots/timeline-%s.dat' using 1:2 with linespoints title "
				"'%s'",
				g ? ", " : "", r->out, c->reg[g].name, c->reg[g].name);
		fprintf(f, "\nunset logscale y\nunset arrow\nunset label\n");
	}
	/* summary.csv's fabric drops, trims and ECN marks (their columns by name: cg_csv.c);
	 * the wire has none */
	if (!w->links)
		return;
	fprintf(f,
		"set output '%s/links.svg.part'\nset title 'Fabric drops, trims and ECN marks, all "
		"links, per regime'\nset style data histograms\nset style histogram clustered\n"
		"set style fill solid 0.8\nset xlabel ''\nset ylabel 'packets'\nset datafile "
		"separator ','\nset yrange [0:*]\nset xtics rotate by -30\n"
		"plot '%s/summary.csv' every ::1 using %d:xtic(1) title 'drops', '' every ::1 "
		"using "
		"%d title 'trims', '' every ::1 using %d title 'ECN marks'\n",
		r->out, r->out, cg_summary_column("fabric_drops"),
		cg_summary_column("fabric_trims"), cg_summary_column("ecn_marks"));
}

/*
 * A plot gnuplot made, kept if whole (it ends its SVG document), else removed and said;
 * gnuplot_rc is gnuplot's exit status, -1 if it did not run (no script).
 */
static int
keep_svg(const struct cg_run *r, const char *name, int gnuplot_rc)
{
	char path[PATH_MAX], part[PATH_MAX + 8], tail[64] = "";
	int fd, whole = 0;
	off_t end;

	snprintf(path, sizeof(path), "%s/%s.svg", r->out, name);
	snprintf(part, sizeof(part), "%s.part", path);
	if ((fd = open(part, O_RDONLY | O_CLOEXEC)) >= 0) {
		end = lseek(fd, 0, SEEK_END);
		if (end > 0 &&
		    pread(fd, tail, sizeof(tail) - 1,
			  end > (off_t)sizeof(tail) - 1 ? end - (off_t)sizeof(tail) + 1 : 0) > 0)
			whole = strstr(tail, "</svg>") != NULL;
		close(fd);
	}
	if (whole && rename(part, path) == 0)
		return 0;
	unlink(part);
	cg_out_failed(r, path,
		      whole		? strerror(errno)
		      : gnuplot_rc < 0	? "not made: its gnuplot script could not be written"
		      : gnuplot_rc != 0 ? "gnuplot failed (logs/gnuplot.log)"
					: "gnuplot's SVG is cut short (a full disk?)");
	return -1;
}

int
cg_plots(const struct cg_run *r, json_t *runs, const struct cg_row *rows, size_t nrows)
{
	const struct cg_campaign *c = r->c;
	char p[PATH_MAX], log[PATH_MAX], sz[16], name[64];
	struct cg_proj *pj = calloc(CG_MAX_REGIMES * CG_MAX_SIZES, sizeof(*pj));
	size_t np = pj ? cg_project(c, rows, nrows, pj) : 0;
	struct wants w;
	int rc = 0, grc;
	FILE *f;

	wanted(r, runs, &w);
	if (!w.timeline && !w.links) { /* nothing ran: nothing to plot */
		free(pj);
		return 0;
	}
	for (unsigned g = 0; g < c->nreg && c->allreduce; g++) {
		for (unsigned s = 0; s < c->nsizes; s++)
			rc |= cdf_data(r, runs, &c->reg[g], c->sizes[s]);
		rc |= timeline_data(r, runs, &c->reg[g]);
	}
	for (size_t i = 0; i < np; i++) {
		rc |= proj_data(r, &pj[i]);
		for (unsigned s = 0; s < c->nsizes; s++)
			w.proj[s] |=
				strcmp(pj[i].size, cg_size_name(c->sizes[s], sz, sizeof(sz))) == 0;
	}
	snprintf(p, sizeof(p), "%s/plots/report.gp", r->out);
	snprintf(log, sizeof(log), "%s/logs/gnuplot.log", r->out);
	grc = -1; /* without a script, no plot: each is said */
	if ((f = cg_out_open(r, p)) != NULL) {
		script(f, r, &w);
		proj_script(f, r, pj, np);
		if (cg_out_close(r, f, p) == 0)
			grc = cg_sh(log, "gnuplot '%s'", p);
	}
	free(pj);
	for (unsigned s = 0; s < c->nsizes; s++) {
		snprintf(name, sizeof(name), "cdf-%s", cg_size_name(c->sizes[s], sz, sizeof(sz)));
		if (w.cdf[s])
			rc |= keep_svg(r, name, grc);
	}
	for (unsigned s = 0; s < c->nsizes; s++) {
		if (!w.proj[s])
			continue;
		cg_size_name(c->sizes[s], sz, sizeof(sz));
		snprintf(name, sizeof(name), "projection-%s", sz);
		rc |= keep_svg(r, name, grc);
		snprintf(name, sizeof(name), "projection-stall-%s", sz);
		rc |= keep_svg(r, name, grc);
	}
	if (w.timeline)
		rc |= keep_svg(r, "timeline", grc);
	if (w.links)
		rc |= keep_svg(r, "links", grc);
	return rc || grc ? -1 : 0;
}
