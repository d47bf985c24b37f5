/* SPDX-License-Identifier: BSD-3-Clause */
/* report.html: the summary, the baselines, the verdicts and the plots on one page. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg.h"

/* Text with &, < and > escaped. */
static void
esc(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else
			fputc(*s, f);
}

static void
cell(FILE *f, double v, int prec)
{
	if (isnan(v))
		fprintf(f, "<td>-</td>");
	else
		fprintf(f, "<td>%.*f</td>", prec, v);
}

static void
head(FILE *f, const struct cg_run *r, const char *status)
{
	const struct cg_campaign *c = r->c;
	double ideal = json_number_value(json_object_get(r->capacity, "ideal_bps"));
	double wire = json_number_value(json_object_get(r->capacity, "wire_bps"));

	fprintf(f, "<!doctype html><html><head><meta charset='utf-8'><title>fabemu campaign ");
	esc(f, c->name);
	/* a page that fits its window: a table wider than the page scrolls in its own box
	 * (.wide), the verdicts are sentences in a list of their own, plots shrink */
	fprintf(f, "</title><style>body{font-family:sans-serif;max-width:1300px;margin:auto;"
		   "padding:0 8px}.wide{overflow-x:auto;max-width:100%%}"
		   "table{border-collapse:collapse;font-size:90%%}td,th{border:1px solid #ccc;"
		   "padding:3px 6px;text-align:right}th{background:#eee}"
		   "td:first-child{text-align:left}img{max-width:100%%;height:auto}"
		   ".verdicts li{margin:4px 0;overflow-wrap:anywhere}"
		   ".distorted{color:#a00}.faithful{color:#070}.base{background:#f4f4ff}</style>"
		   "</head><body>\n<h1>Campaign ");
	esc(f, c->name);
	fprintf(f, "</h1>\n<p>");
	esc(f, c->description);
	fprintf(f,
		"</p>\n<p>Status: <b>%s</b>. %u hosts, %s, %s (%u-frame rings), MTU %u, %u "
		"repetition(s), seed %" PRIu64 ".",
		status, c->hosts,
		c->torch       ? "torch.distributed all-reduce (gloo)"
		: c->perm      ? "MPI permutation (each rank to rank r + n/2)"
		: c->allreduce ? "MPI all-reduce"
			       : "command job",
		c->edge.pmd, c->edge.ring, c->edge.mtu, c->reps, c->seed);
	if (ideal > 0)
		fprintf(f, " The testbed carries %.2f Gbit/s through the ideal dataplane",
			ideal / 1e9);
	if (wire > 0)
		fprintf(f, "%s %.2f Gbit/s over the wire", ideal > 0 ? "," : " It carries",
			wire / 1e9);
	if (ideal > 0 || wire > 0)
		fprintf(f, " (every host to the next, iperf3).");
	fprintf(f,
		" Data: <a href='campaign.json'>campaign.json</a>, <a "
		"href='summary.csv'>summary.csv</a>, <a href='iterations.csv'>iterations.csv</a>, "
		"<a href='comparisons.csv'>comparisons.csv</a>, <a href='links.csv'>links.csv</a>, "
		"<a href='ports.csv'>ports.csv</a>, <a "
		"href='tcp.csv'>tcp.csv</a>.</p>\n");
}

/* A figure and its interval, "-" when there is none. */
static void
cell_ci(FILE *f, double v, double lo, double hi)
{
	if (isnan(v))
		fprintf(f, "<td>-</td>");
	else if (isnan(lo))
		fprintf(f, "<td>%.3f</td>", v);
	else
		fprintf(f, "<td>%.3f [%.3f, %.3f]</td>", v, lo, hi);
}

/* A comparison: the ratio, its interval, its word. */
static void
cell_ratio(FILE *f, const struct cg_ratio *x)
{
	char buf[96];

	fprintf(f, "<td>%s</td>", cg_ratio_text(x, buf, sizeof(buf)));
}

static void
job_table(FILE *f, const struct cg_run *r, const struct cg_row *rows, size_t nrows)
{
	fprintf(f,
		"<h2>The job, beside the baselines</h2>\n<div "
		"class='wide'><table><tr><th>regime</th><th>size</th>"
		"<th>n</th><th>p50 (ms) [95 %% CI]</th><th>p99 (ms) [95 %% CI]</th>"
		"<th>repetitions: their p50s (ms)</th><th>%s</th><th>p50 / wire [95 %% CI]</th>"
		"<th>p50 / ideal [95 %% CI]</th><th>stalls (share of the iterations [95 %% "
		"CI])</th><th>stall at (ms)</th></tr>\n",
		r->c->allreduce ? "max (ms)" : "job (s)");
	for (size_t i = 0; i < nrows; i++) {
		const struct cg_row *w = &rows[i];

		fprintf(f, "<tr%s><td>", w->baseline ? " class='base'" : "");
		esc(f, w->regime);
		fprintf(f, "%s%s</td><td>%s</td><td>%zu</td>",
			w->baseline == 1   ? " (wire)"
			: w->baseline == 2 ? " (ideal)"
			: w->alike_of[0]   ? " (alike)"
					   : "",
			w->partial[0] ? " <span class='distorted'>(partial)</span>" : "",
			r->c->allreduce ? w->size : "-", w->n);
		cell_ci(f, w->p50, w->p50_lo, w->p50_hi);
		if (!isnan(w->p99) || isnan(w->max))
			cell_ci(f, w->p99, w->p99_lo, w->p99_hi);
		else /* too few iterations for a p99: the maximum, said so */
			fprintf(f, "<td>max %.3f (n=%zu)</td>", w->max, w->n);
		if (isnan(w->rep_p50_min))
			fprintf(f, "<td>%u</td>", w->nrep);
		else
			fprintf(f, "<td>%u: %.3f&ndash;%.3f</td>", w->nrep, w->rep_p50_min,
				w->rep_p50_max);
		cell(f, r->c->allreduce ? w->max : w->job_s, 3);
		cell_ratio(f, &w->vs_wire);
		cell_ratio(f, &w->vs_ideal);
		if (!w->runs) /* not run: no figure */
			fprintf(f, "<td>-</td>");
		else if (isnan(w->stall_share_lo))
			fprintf(f, "<td>%lld", w->stalls);
		else
			fprintf(f, "<td>%lld (%.1f %% [%.1f, %.1f])", w->stalls,
				w->stall_share * 100, w->stall_share_lo * 100,
				w->stall_share_hi * 100);
		/* what the stalls' windows saw (cg_stall_cause()), under them */
		for (unsigned c = 0, m = 0; w->runs && c < CG_CAUSES; c++)
			if (w->stall_cause[c])
				fprintf(f, "%s%lld %s", m++ ? ", " : "<br><small>",
					w->stall_cause[c], cg_cause_name((enum cg_cause)c));
		if (w->runs)
			fprintf(f, "%s</td>", w->stalls > 0 ? "</small>" : "");
		cell(f, w->stall_at_ms, 1);
		fprintf(f, "</tr>\n");
	}
	fprintf(f,
		"</table></div>\n<p>Iteration time is the slowest rank's. <i>wire</i>: the same "
		"hosts "
		"joined by a Linux bridge, without fabemu; <i>ideal</i>: through fabemu with a "
		"fabric that adds nothing. Their ratio is what the testbed itself costs. "
		"Intervals: "
		"%.0f %% from %u bootstrap resamples, repetitions drawn with replacement and then "
		"iterations within each (seed %llu), so that the drift between runs counts; a p99 "
		"from %u iterations, below that the maximum and n. A ratio is <i>faster</i> or "
		"<i>slower</i> where its interval keeps to one side of 1 and each side ran %u "
		"repetitions or more, else <i>no difference resolved</i>. A stall: an iteration "
		"%.0f %% of its transport's recovery time or more above the median (TCP's minimum "
		"RTO, %.0f ms, or the NICs' timeout where RoCE or InfiniBand NICs recover losses) "
		"and above p75 + %.0f &times; the interquartile range of the others (<i>stall "
		"at</i>); under the count, what the stalls' windows saw: a TCP or NIC timeout, "
		"a TCP retransmission, a drop in the fabric, or none of them.</p>\n",
		CG_CONFIDENCE * 100, CG_RESAMPLES, (unsigned long long)r->c->seed, CG_P99_MIN_N,
		CG_WORD_MIN_REPS, CG_STALL_RECOVERY * 100, CG_TCP_RTO_MIN_MS, CG_STALL_IQR);
}

/* Like for like: each alike regime beside its as-specified one (the terminal's table). */
static void
alike_table(FILE *f, const struct cg_campaign *c, const struct cg_row *rows, size_t nrows)
{
	const size_t per = c->allreduce ? c->nsizes : 1;
	int any = 0;

	for (size_t i = 0; i < nrows; i++)
		any |= rows[i].alike_of[0] != '\0';
	if (!any)
		return;
	fprintf(f, "<h2>Like for like</h2>\n<p>The alike regimes run over ");
	esc(f, c->alike.profile_name);
	fprintf(f,
		"'s links at scale %u (<code>%s</code>, <code>%s</code>; the buffer too where "
		"the regime tail-drops), at MTU %u: only their flow control and NICs differ. "
		"<i>as specified / ideal</i> = <i>(as specified / alike)</i> &times; <i>(alike / "
		"ideal)</i>: what the regime's own links cost over the alike ones, times what its "
		"flow control and NICs cost over ideal on the alike links.</p>\n<table><tr><th>as "
		"specified &rarr; alike</th><th>size</th><th>as specified / ideal</th><th>links: "
		"as specified / alike</th><th>flow control: alike / ideal</th></tr>\n",
		c->alike.scale, c->alike.up[0], c->alike.down[0], c->edge.mtu);
	for (size_t i = 0; i < nrows; i++) {
		const struct cg_row *w = &rows[i], *s;

		if (!w->alike_of[0])
			continue;
		s = &rows[c->reg[i / per].alike_of * per + i % per];
		fprintf(f, "<tr><td>");
		esc(f, s->regime);
		fprintf(f, " &rarr; ");
		esc(f, w->regime);
		fprintf(f, "</td><td>%s</td>", c->allreduce ? w->size : "-");
		cell_ratio(f, &s->vs_ideal);
		cell_ratio(f, &w->vs_spec);
		cell_ratio(f, &w->vs_ideal);
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* The campaign's questions, answered (the terminal's last lines). */
static void
answers(FILE *f, const struct cg_campaign *c, const struct cg_row *rows, size_t nrows)
{
	const size_t per = c->allreduce ? c->nsizes : 1;
	char buf[512];

	if (c->nquestions == 0)
		return;
	fprintf(f, "<h2>The question</h2>\n");
	for (unsigned k = 0; k < c->nquestions; k++) {
		fprintf(f, "<p><b>");
		esc(f, c->reg[c->question[k].a].name);
		fprintf(f, " against ");
		esc(f, c->reg[c->question[k].b].name);
		fprintf(f, "</b></p><ul>\n");
		for (size_t s = 0; s < per && c->question[k].a * per + s < nrows; s++) {
			fprintf(f, "<li>");
			esc(f,
			    cg_answer(c, k, &rows[c->question[k].a * per + s], buf, sizeof(buf)));
			fprintf(f, "</li>\n");
		}
		fprintf(f, "</ul>\n");
	}
}

static void
network_table(FILE *f, const struct cg_row *rows, size_t nrows)
{
	fprintf(f,
		"<h2>The network</h2>\n<div class='wide'><table><tr><th>regime</th><th>hop (µs, "
		"configured)</th><th>ping RTT h1-h2 (µs)</th><th>offered (Gbit/s)</th><th>fabric "
		"drops</th><th>trimmed (sent again)</th><th>ECN marks</th><th>PFC "
		"pauses</th><th>paused (ms)</th><th>credit "
		"stall (ms)</th><th>real TCP retrans.</th><th>TCP timeouts</th><th>lost at the "
		"edge</th><th>unexplained</th><th>lateness p99 (µs, worst link)</th><th>edge wait "
		"p99 "
		"(µs)</th></tr>\n");
	for (size_t i = 0; i < nrows; i++) {
		const struct cg_row *w = &rows[i];

		if (!w->first)
			continue;
		fprintf(f, "<tr><td>");
		esc(f, w->regime);
		fprintf(f, "</td>");
		cell(f, w->hop_us, 2);
		if (w->runs == 0) {
			fprintf(f, "<td colspan='14' style='text-align:left'>not run</td></tr>\n");
			continue;
		}
		cell(f, w->rtt_us, 1);
		cell(f, w->offered_gbps, 2);
		/* the wire has no fabric: "-" in its fabric columns */
		cell(f, cg_fab(w, (double)w->drops), 0);
		cell(f, cg_fab(w, (double)w->trims), 0);
		cell(f, cg_fab(w, (double)w->marks), 0);
		cell(f, cg_fab(w, (double)w->pauses), 0);
		cell(f, cg_fab(w, w->paused_ms), 1);
		cell(f, cg_fab(w, w->stall_ms), 1);
		fprintf(f, "<td>%lld</td><td>%lld</td><td>%lld</td>", w->real_retrans, w->timeouts,
			w->edge_lost);
		cell(f, cg_fab(w, (double)w->unexplained), 0);
		cell(f, w->late_worst_p99_us, 1);
		cell(f, w->wait_p99_us, 1);
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table></div>\n<p>Drops, marks, pauses and TCP counters are per run (summed "
		   "over repetitions).</p>\n");
}

/* The verdicts: the report's most important sentences, each given a line of its own. */
static void
verdicts(FILE *f, const struct cg_campaign *c, const struct cg_row *rows, size_t nrows)
{
	fprintf(f,
		"<h2 id='verdicts'>The verdicts</h2>\n<p>Whether the box running the test, not the "
		"emulated "
		"fabric, shaped the figures (lateness and edge wait at most %.0f %% of a hop, "
		"offered load at most %.0f %% of the capacity; docs/campaigns.md).</p>\n"
		"<ul class='verdicts'>\n",
		c->fid.late * 100, c->fid.load * 100);
	for (size_t i = 0; i < nrows; i++) {
		const struct cg_row *w = &rows[i];

		if (!w->first)
			continue;
		fprintf(f, "<li><b>");
		esc(f, w->regime);
		fprintf(f, "</b>: <span class='%s'>",
			strncmp(w->verdict, "faithful", 8) == 0 ? "faithful" : "distorted");
		esc(f, w->verdict);
		fprintf(f, "</span></li>\n");
	}
	fprintf(f, "</ul>\n");
}

/* The calibration (docs/campaigns.md, "Calibration"): the box's noise, each regime's
 * scale and why. Nothing without a regime at scale: auto. */
static void
calibration(FILE *f, json_t *cal)
{
	json_t *n = json_object_get(cal, "noise"), *x;
	size_t i;

	if (!json_is_object(cal))
		return;
	fprintf(f, "<h2 id='calibration'>Calibration</h2>\n<p>Before the regimes, the job "
		   "through the ideal dataplane measured the box's own timing noise: ");
	esc(f, json_string_value(json_object_get(n, "cause")) ?: "");
	fprintf(f,
		". Each regime at <code>scale: auto</code> runs at the least scale at or "
		"above its floor where that noise's p99 (lateness, edge wait) is at most "
		"1/%.0f of what the verdict allows of a hop.</p>\n<ul class='verdicts'>\n",
		json_number_value(json_object_get(cal, "margin")));
	json_array_foreach(json_object_get(cal, "regimes"), i, x)
	{
		int none =
			strcmp(json_string_value(json_object_get(x, "result")) ?: "", "none") == 0;

		fprintf(f, "<li><b>");
		esc(f, json_string_value(json_object_get(x, "regime")) ?: "");
		fprintf(f, "</b>: <span class='%s'>", none ? "distorted" : "faithful");
		if (none)
			fprintf(f, "no faithful scale up to %lld: ",
				json_integer_value(json_object_get(x, "max")));
		else
			fprintf(f, "scale %lld: ", json_integer_value(json_object_get(x, "scale")));
		esc(f, json_string_value(json_object_get(x, "why")) ?: "");
		fprintf(f, "</span></li>\n");
	}
	fprintf(f, "</ul>\n");
}

/* The emulated NICs, when a regime has one (docs/nic.md). */
static void
nic_table(FILE *f, const struct cg_row *rows, size_t nrows)
{

	if (!cg_rows_nic(rows, nrows))
		return;
	fprintf(f, "<h2>The NICs at the edge</h2>\n<div "
		   "class='wide'><table><tr><th>regime</th><th>nic</th><th>CE "
		   "consumed</th><th>CNPs</th><th>lowest rate (Mbit/s)</th><th>frames "
		   "resent</th><th>NAKs</th><th>NIC timeouts</th><th>discarded out of "
		   "sequence</th></tr>\n");
	for (size_t i = 0; i < nrows; i++) {
		const struct cg_row *w = &rows[i];

		if (!w->first || w->runs == 0)
			continue;
		fprintf(f, "<tr><td>");
		esc(f, w->regime);
		fprintf(f, "</td><td>");
		esc(f, w->nic_model);
		fprintf(f, "</td><td>%lld</td><td>%lld</td>", w->nic_ce, w->nic_cnp);
		cell(f, w->nic_rate_min_bps / 1e6, 3);
		fprintf(f, "<td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td></tr>\n",
			w->nic_resent, w->nic_naks, w->nic_timeouts, w->nic_discards);
	}
	fprintf(f, "</table></div>\n<p>A RoCE NIC consumes CE and sends CNPs (DCQCN); RoCE and "
		   "InfiniBand NICs resend what the fabric lost, so the hosts' TCP sees neither. "
		   "docs/nic.md.</p>\n");
}

/* Each topology the regimes run on, drawn by Graphviz (fabemuctl topology show --svg). */
static void
topologies(FILE *f, const struct cg_run *r)
{
	const struct cg_campaign *c = r->c;
	char p[PATH_MAX], log[PATH_MAX];

	for (unsigned g = 0; g < c->nreg; g++) {
		unsigned first = g;

		if (c->reg[g].kind == CG_WIRE || !c->reg[g].topology[0])
			continue;
		for (unsigned k = 0; k < g; k++) /* each file once */
			if (c->reg[k].kind != CG_WIRE &&
			    strcmp(c->reg[k].topology, c->reg[g].topology) == 0)
				first = k;
		if (first != g)
			continue;
		snprintf(p, sizeof(p), "%s/topology-%u.svg", r->out, g + 1);
		snprintf(log, sizeof(log), "%s/logs/topology.log", r->out);
		if (access(p, F_OK) != 0)
			cg_sh(log, "'%s/fabemuctl' topology show '%s' --svg '%s'", r->bindir,
			      c->reg[g].topology, p);
		fprintf(f, "<h2>Topology ");
		esc(f, c->reg[g].topology_name);
		if (access(p, F_OK) == 0)
			fprintf(f, "</h2>\n<img src='topology-%u.svg'>\n", g + 1);
		else
			fprintf(f, "</h2>\n<p>Not drawn (Graphviz: logs/topology.log).</p>\n");
	}
}

/* A plot, if it was made (a size that did not run, a plot not written: none). */
static void
plot(FILE *f, const struct cg_run *r, const char *name, const char *size)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s%s.svg", r->out, name, size);
	if (access(p, F_OK) == 0)
		fprintf(f, "<img src='%s%s.svg'>\n", name, size);
	else
		fprintf(f, "<p>No plot: no data, or not written (above).</p>\n");
}

/* "v [lo, hi]" in a cell, with printf's format fmt a figure; "-" for none */
static void
cell_band(FILE *f, const char *fmt, double v, double lo, double hi)
{
	char x[32], a[32], b[32];

	if (isnan(v)) {
		fprintf(f, "<td>-</td>");
		return;
	}
	snprintf(x, sizeof(x), fmt, v);
	snprintf(a, sizeof(a), fmt, lo);
	snprintf(b, sizeof(b), fmt, hi);
	fprintf(f, "<td>%s [%s, %s]</td>", x, a, b);
}

/* Predicted beside measured at a check's ranks, and whether it held. */
static void
proj_checks(FILE *f, const struct cg_campaign *c, const struct cg_proj *p)
{
	if (p->ncheck == 0)
		return;
	fprintf(f, "<div class='wide'><table><tr><th>checked against</th><th>ranks</th>"
		   "<th>figure</th><th>predicted [95 %% CI]</th><th>measured [95 %% CI]</th>"
		   "<th>inside the prediction</th></tr>\n");
	for (unsigned k = 0; k < p->ncheck; k++) {
		const struct cg_proj_check *x = &p->check[k];
		const struct cg_proj_at *a = &x->pred;

		if (!x->measured) {
			fprintf(f, "<tr><td>");
			esc(f, c->reg[x->reg].name);
			fprintf(f, "</td><td>%u</td><td colspan='4'>not measured</td></tr>\n",
				a->n);
			continue;
		}
		fprintf(f, "<tr><td>");
		esc(f, c->reg[x->reg].name);
		fprintf(f, "</td><td>%u</td><td>P(stall)</td>", a->n);
		cell_band(f, "%.3f", a->stall, a->stall_lo, a->stall_hi);
		cell_band(f, "%.3f", x->stall, x->stall_lo, x->stall_hi);
		fprintf(f, "<td>%s</td></tr>\n",
			cg_proj_inside(x->stall, a->stall_lo, a->stall_hi) ? "yes" : "<b>no</b>");
		fprintf(f, "<tr><td></td><td></td><td>p50 (ms)</td>");
		cell_band(f, "%.3f", a->base, a->base_lo, a->base_hi);
		cell_band(f, "%.3f", x->p50, x->p50_lo, x->p50_hi);
		fprintf(f, "<td>%s</td></tr>\n",
			cg_proj_inside(x->p50, a->base_lo, a->base_hi) ? "yes" : "<b>no</b>");
		fprintf(f, "<tr><td></td><td></td><td>p99 (ms)</td>");
		cell_band(f, "%.3f", a->p99, a->p99_lo, a->p99_hi);
		if (isnan(x->p99))
			fprintf(f, "<td>max %.3f (n=%zu)</td><td>-</td></tr>\n", x->max, x->n);
		else {
			cell_band(f, "%.3f", x->p99, x->p99_lo, x->p99_hi);
			fprintf(f, "<td>%s</td></tr>\n",
				cg_proj_inside(x->p99, a->p99_lo, a->p99_hi) ? "yes" : "<b>no</b>");
		}
	}
	fprintf(f, "</table></div>\n");
}

/* The all-reduce at cluster scale (cg_scale.c): each series' fit, its table, its checks,
 * what it assumes, the plots. */
static void
projection(FILE *f, const struct cg_run *r, const struct cg_row *rows, size_t nrows)
{
	const struct cg_campaign *c = r->c;
	struct cg_proj *pj = calloc(CG_MAX_REGIMES * CG_MAX_SIZES, sizeof(*pj));
	size_t np = pj ? cg_project(c, rows, nrows, pj) : 0;
	char sz[16];

	if (np == 0) {
		free(pj);
		return;
	}
	fprintf(f, "<h2 id='projection'>The all-reduce at cluster scale "
		   "(projected)</h2>\n<p>Assumed: ");
	for (unsigned k = 0; cg_proj_assumptions[k]; k++) {
		fprintf(f, "%s", k ? "; " : "");
		esc(f, cg_proj_assumptions[k]);
	}
	fprintf(f, ". docs/campaigns.md, <i>The all-reduce at cluster scale</i>; "
		   "<a href='projection.csv'>projection.csv</a>.</p>\n");
	for (size_t i = 0; i < np; i++) {
		const struct cg_proj *p = &pj[i];

		fprintf(f, "<h3>");
		esc(f, p->series);
		fprintf(f, ", %s a rank</h3>\n<p>Fitted at", p->size);
		for (unsigned k = 0; k < p->nfit; k++)
			fprintf(f, "%s %u", k ? "," : "", p->fit_ranks[k]);
		fprintf(f,
			" ranks: %zu iterations, %lld stalled, %.3g packets sent: %.3g [%.3g, "
			"%.3g] stalls a packet. A stall costs %.1f ms (%s); a ring step %.4f ms + "
			"%.3g ms a byte (%s).</p>\n",
			p->iterations, p->stalls, p->exposure, p->p, p->p_lo, p->p_hi, p->cost_ms,
			p->cost_measured ? "as measured"
					 : "none measured: the transport's recovery "
					   "time",
			p->a, p->b,
			p->base_from_ping ? "one rank count: the latency from the ping"
					  : "fitted to the p50s");
		fprintf(f,
			"<div class='wide'><table><tr><th>ranks</th><th>P(at least one stall) "
			"[95 %% CI]</th><th>expected iteration (ms)</th><th>p99 (ms)</th>"
			"<th>waiting (%% of the time)</th><th>GPU-hours waiting / 1,000 steps</th>"
			"<th>of it stalls</th></tr>\n");
		for (unsigned k = 0; k < p->nat; k++) {
			const struct cg_proj_at *a = &p->at[k];

			fprintf(f, "<tr><td>%u</td>", a->n);
			cell_band(f, "%.3g", a->stall, a->stall_lo, a->stall_hi);
			cell_band(f, "%.4g", a->mean, a->mean_lo, a->mean_hi);
			cell_band(f, "%.4g", a->p99, a->p99_lo, a->p99_hi);
			cell_band(f, "%.1f", a->wait * 100, a->wait_lo * 100, a->wait_hi * 100);
			cell_band(f, "%.3g", a->gpuh, a->gpuh_lo, a->gpuh_hi);
			fprintf(f, "<td>%.3g</td></tr>\n", a->stall_gpuh);
		}
		fprintf(f, "</table></div>\n");
		if (c->proj.compute_ms <= 0)
			fprintf(f, "<p>Waiting: set <code>projection.compute</code>, a training "
				   "step's compute.</p>\n");
		proj_checks(f, c, p);
	}
	for (unsigned s = 0; s < c->nsizes; s++) {
		cg_size_name(c->sizes[s], sz, sizeof(sz));
		plot(f, r, "projection-", sz);
		plot(f, r, "projection-stall-", sz);
	}
	free(pj);
}

/* A step of a run as the report begins it, by its outcome (the runner's, in the run). */
static const char *
step_label(int outcome)
{
	switch (outcome) {
	case CG_STEP_RAN:
		return "<li>ran ";
	case CG_STEP_FAILED:
		return "<li class='distorted'><b>FAILED</b> at ";
	case CG_STEP_NOT_REACHED:
		return "<li class='distorted'><b>not reached</b> at ";
	case CG_STEP_SKIPPED:
		return "<li>skipped at ";
	default:
		return "<li class='distorted'><b>outcome unknown</b> at ";
	}
}

/* The steps of one list (faults[], faults_missed[], faults_skipped[]) of a run. */
static void
run_steps(FILE *f, json_t *run, const char *key)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(run, key), i, m)
	{
		const char *why = json_string_value(json_object_get(m, "why"));

		fprintf(f, "%s", step_label(cg_outcome_of(m)));
		if (json_is_string(json_object_get(m, "at"))) {
			esc(f, json_string_value(json_object_get(m, "at")));
		} else if (json_integer_value(json_object_get(m, "iteration")) > 0) {
			fprintf(f, "before iteration %lld",
				json_integer_value(json_object_get(m, "iteration")));
		} else {
			json_int_t t = json_integer_value(json_object_get(m, "time_ns")),
				   t0 = json_integer_value(json_object_get(run, "start_ns"));

			fprintf(f, "at %.3f s", t > t0 ? (double)(t - t0) / 1e9 : 0.0);
		}
		fprintf(f, ": ");
		esc(f, json_string_value(json_object_get(m, "what")) ?: "");
		if (why) {
			fprintf(f, " (");
			esc(f, why);
			fprintf(f, ")");
		}
		fprintf(f, "</li>\n");
	}
}

/* The timeline as the file asks for it, then what each run did with it: the steps that
 * ran (when), that failed or did not run (why), that a baseline skipped. */
static void
faults(FILE *f, const struct cg_run *r, json_t *runs)
{
	const struct cg_campaign *c = r->c;
	json_t *run;
	size_t i;

	fprintf(f, "<h2>Faults</h2>\n");
	if (c->nsteps == 0) {
		fprintf(f, "<p>No timeline: no faults.</p>\n");
		return;
	}
	fprintf(f, "<p>The timeline (each step where the file asks for it):</p><ul>\n");
	for (unsigned k = 0; k < c->nsteps; k++) {
		const struct cg_step *s = &c->steps[k];

		char at[64];

		cg_step_at(s, at, sizeof(at));
		fprintf(f, "<li>%s%s: ", s->at_iter ? "before " : "", at);
		esc(f, s->what);
		fprintf(f, " (");
		esc(f, s->src);
		fprintf(f, ")</li>\n");
	}
	fprintf(f, "</ul>\n");
	json_array_foreach(runs, i, run)
	{
		fprintf(f, "<p>Run ");
		esc(f, json_string_value(json_object_get(run, "regime")) ?: "");
		fprintf(f, "-%lld:</p><ul>\n",
			json_integer_value(json_object_get(run, "repetition")));
		run_steps(f, run, "faults");
		run_steps(f, run, "faults_missed");
		run_steps(f, run, "faults_skipped");
		if (json_array_size(json_object_get(run, "faults")) +
			    json_array_size(json_object_get(run, "faults_missed")) +
			    json_array_size(json_object_get(run, "faults_skipped")) ==
		    0)
			fprintf(f, "<li>none (the run stopped first)</li>\n");
		fprintf(f, "</ul>\n");
	}
}

int
cg_html(const struct cg_run *r, json_t *runs, const struct cg_row *rows, size_t nrows,
	const char *status)
{
	const struct cg_campaign *c = r->c;
	char p[PATH_MAX], sz[16], note[512];
	json_t *w;
	size_t i;
	FILE *f;

	snprintf(p, sizeof(p), "%s/report.html", r->out);
	if ((f = cg_out_open(r, p)) == NULL)
		return -1;
	head(f, r, status);
	/* what the results must say: a fault that did not run, a file not written */
	json_array_foreach(r->warnings, i, w)
	{
		fprintf(f, "<p class='distorted'><b>Warning:</b> ");
		esc(f, json_string_value(w));
		fprintf(f, "</p>\n");
	}
	json_array_foreach(r->unwritten, i, w)
	{
		fprintf(f, "<p class='distorted'><b>Not written:</b> ");
		esc(f, json_string_value(w));
		fprintf(f, "</p>\n");
	}
	if (cg_baseline_note(c, note, sizeof(note))) {
		fprintf(f, "<p><b>Note:</b> ");
		esc(f, note);
		fprintf(f, ".</p>\n");
	}
	answers(f, c, rows, nrows);
	job_table(f, r, rows, nrows);
	alike_table(f, r->c, rows, nrows);
	network_table(f, rows, nrows);
	calibration(f, json_object_get(r->results, "calibration"));
	verdicts(f, c, rows, nrows);
	nic_table(f, rows, nrows);
	projection(f, r, rows, nrows);
	for (unsigned s = 0; s < c->nsizes && c->allreduce; s++) {
		cg_size_name(c->sizes[s], sz, sizeof(sz));
		fprintf(f, "<h2>CDF, %s</h2>", sz);
		plot(f, r, "cdf-", sz);
	}
	if (c->allreduce) {
		fprintf(f, "<h2>Timeline</h2>");
		plot(f, r, "timeline", "");
	}
	if (cg_has_fabric(c)) {
		fprintf(f, "<h2>Links</h2>");
		plot(f, r, "links", "");
	}
	fprintf(f, "<h2>Regimes</h2><ul>\n");
	for (unsigned g = 0; g < c->nreg; g++) {
		fprintf(f, "<li>");
		esc(f, c->reg[g].name);
		if (c->reg[g].kind == CG_WIRE)
			fprintf(f, ": the hosts joined by a Linux bridge (no fabemu)</li>\n");
		else
			fprintf(f, ": profile %s at scale %u, %s", c->reg[g].profile_name,
				c->reg[g].scale, c->reg[g].edge.pmd);
		if (c->reg[g].kind != CG_WIRE && c->reg[g].topology[0]) {
			fprintf(f, ", topology ");
			esc(f, c->reg[g].topology_name);
			fprintf(f, ", path %s", fe_path_name(c->reg[g].path));
		}
		if (c->reg[g].kind != CG_WIRE)
			fprintf(f, "</li>\n");
	}
	fprintf(f, "</ul>\n");
	topologies(f, r);
	faults(f, r, runs);
	fprintf(f, "</body></html>\n");
	return cg_out_close(r, f, p);
}
