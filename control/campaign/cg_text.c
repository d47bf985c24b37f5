/* SPDX-License-Identifier: BSD-3-Clause */
/* The terminal's summary: the testbed and its capacity, the job, the network, verdicts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"

/* "%W.Pf" of v, or "-" when there is no such figure (NAN). */
static const char *
fig(char *buf, size_t len, int width, int prec, double v)
{
	if (isnan(v))
		snprintf(buf, len, "%*s", width, "-");
	else
		snprintf(buf, len, "%*.*f", width, prec, v);
	return buf;
}

static void
testbed_line(FILE *f, const struct cg_campaign *c, json_t *capacity)
{
	double ideal = json_number_value(json_object_get(capacity, "ideal_bps"));
	double wire = json_number_value(json_object_get(capacity, "wire_bps"));

	if (c->tb == CG_TB_HOSTS) /* theirs, as the file names them */
		fprintf(f, "testbed: %u existing hosts on the file's ports, MTU %u", c->hosts,
			c->edge.mtu);
	else
		fprintf(f, "testbed: %u hosts, %s (%u-frame rings), MTU %u", c->hosts, c->edge.pmd,
			c->edge.ring, c->edge.mtu);
	if (ideal > 0 || wire > 0) {
		fprintf(f, "; it carries");
		if (ideal > 0)
			fprintf(f, " %.2f Gbit/s through the ideal dataplane", ideal / 1e9);
		if (wire > 0)
			fprintf(f, "%s %.2f Gbit/s over the wire", ideal > 0 ? "," : "",
				wire / 1e9);
		fprintf(f, " (every host to the next, iperf3)");
	} else if (json_is_string(json_object_get(capacity, "note"))) {
		fprintf(f, "; capacity: %s", json_string_value(json_object_get(capacity, "note")));
	}
	fputc('\n', f);
}

/* "p50 [lo, hi]" of a row's figure, "-" when there is none. */
static const char *
with_ci(char *buf, size_t len, double v, double lo, double hi)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isnan(lo))
		snprintf(buf, len, "%.3f", v);
	else
		snprintf(buf, len, "%.3f [%.3f, %.3f]", v, lo, hi);
	return buf;
}

/* The p99 with its interval from CG_P99_MIN_N iterations; below, the maximum, said so. */
static const char *
tail(char *buf, size_t len, const struct cg_row *w)
{
	if (!isnan(w->p99))
		return with_ci(buf, len, w->p99, w->p99_lo, w->p99_hi);
	if (isnan(w->max))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "max %.3f (n=%zu)", w->max, w->n);
	return buf;
}

/* "2 (1.7% [0.0, 4.2])": the stalls, their share of the iterations and its interval; "-"
 * for a regime that did not run, "0" for one with no iterations */
static const char *
stall_cell(char *buf, size_t len, const struct cg_row *w)
{
	if (!w->runs)
		snprintf(buf, len, "%6s", "-");
	else if (isnan(w->stall_share_lo))
		snprintf(buf, len, "%6lld", w->stalls);
	else
		snprintf(buf, len, "%6lld (%.1f%% [%.1f, %.1f])", w->stalls, w->stall_share * 100,
			 w->stall_share_lo * 100, w->stall_share_hi * 100);
	return buf;
}

static void
job_table(FILE *f, const struct cg_campaign *c, const struct cg_row *rows, size_t n)
{
	char a[5][64], label[128];

	fprintf(f, "\n%-28s %7s %6s %-30s %-30s %4s %-19s %s%6s\n",
		c->perm	       ? "permutation, slowest rank"
		: c->allreduce ? "all-reduce, slowest rank"
			       : "job",
		c->allreduce ? "size" : "", "n", "p50 ms [95% CI]", "p99 ms [95% CI]", "reps",
		"p50 of each rep, ms", c->allreduce ? "" : "     job s ", "stalls");
	for (size_t i = 0; i < n; i++) {
		const struct cg_row *w = &rows[i];

		/* which rows are which: the baselines, the alike regimes (like for like) */
		snprintf(label, sizeof(label), "%s%s%s", w->regime,
			 w->baseline	  ? " (baseline)"
			 : w->alike_of[0] ? " (alike)"
					  : "",
			 w->partial[0] ? " (partial)" : "");
		if (isnan(w->rep_p50_min))
			snprintf(a[2], sizeof(a[2]), "-");
		else
			snprintf(a[2], sizeof(a[2]), "%.3f-%.3f", w->rep_p50_min, w->rep_p50_max);
		/* a command job's own time (its iterations, if it reports any, above) */
		if (c->allreduce)
			a[4][0] = '\0';
		else
			snprintf(a[4], sizeof(a[4]), "%10s ",
				 fig(a[3], sizeof(a[3]), 10, 3, w->job_s));
		/* a regime that did not run has no figures: "-", not 0 */
		fprintf(f, "%-28s %7s %6zu %-30s %-30s %4u %-19s %s%s\n", label,
			c->allreduce ? w->size : "", w->n,
			with_ci(a[0], sizeof(a[0]), w->p50, w->p50_lo, w->p50_hi),
			tail(a[1], sizeof(a[1]), w), w->nrep, a[2], a[4],
			stall_cell(a[3], sizeof(a[3]), w));
	}
}

/* Whether a row of the table was compared with a baseline. */
static int
compared(const struct cg_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isnan(rows[i].vs_wire.v) || !isnan(rows[i].vs_ideal.v))
			return 1;
	return 0;
}

/* Each regime's p50 over each baseline's: the ratio, its interval, a word. */
static void
baseline_table(FILE *f, const struct cg_campaign *c, const struct cg_row *rows, size_t n)
{
	char a[2][96];
	int few = 0;

	if (!compared(rows, n))
		return;
	fprintf(f, "\n%-28s %7s %-38s %s\n", "p50 over the baseline's", c->allreduce ? "size" : "",
		"/ wire [95% CI]", "/ ideal [95% CI]");
	for (size_t i = 0; i < n; i++) {
		const struct cg_row *w = &rows[i];

		fprintf(f, "%-28s %7s %-38s %s\n", w->regime, c->allreduce ? w->size : "",
			cg_ratio_text(&w->vs_wire, a[0], sizeof(a[0])),
			cg_ratio_text(&w->vs_ideal, a[1], sizeof(a[1])));
		few |= w->n && w->nrep < CG_WORD_MIN_REPS;
	}
	if (few)
		fprintf(f,
			"(a word needs %u repetitions of each side: with fewer, the interval holds "
			"the iterations' spread only,\nnot the runs' drift, and the word is 'no "
			"difference resolved')\n",
			CG_WORD_MIN_REPS);
}

/* Like for like: each alike regime beside its as-specified one, the gap to ideal in two
 * factors, a / i = (a / l) x (l / i): the links' part and the flow control's. */
static void
alike_table(FILE *f, const struct cg_campaign *c, const struct cg_row *rows, size_t n)
{
	const size_t per = c->allreduce ? c->nsizes : 1;
	char a[3][96], label[160];
	int any = 0;

	for (size_t i = 0; i < n; i++)
		any |= rows[i].alike_of[0] != '\0';
	if (!any)
		return;
	fprintf(f,
		"\nlike for like: the alike regimes run over %s's links at scale %u (%s, %s; the "
		"buffer\ntoo where the regime tail-drops), at MTU %u; only their flow control and "
		"NICs differ\n",
		c->alike.profile_name, c->alike.scale, c->alike.up[0], c->alike.down[0],
		c->edge.mtu);
	fprintf(f, "%-34s %7s %-33s %-33s %s\n", "as specified -> alike",
		c->allreduce ? "size" : "", "as specified / ideal", "links: as specified / alike",
		"flow control: alike / ideal");
	for (size_t i = 0; i < n; i++) {
		const struct cg_row *w = &rows[i];
		const struct cg_row *s;

		if (!w->alike_of[0])
			continue;
		s = &rows[c->reg[i / per].alike_of * per + i % per];
		snprintf(label, sizeof(label), "%s -> %s", s->regime, w->regime);
		fprintf(f, "%-34s %7s %-33s %-33s %s\n", label, c->allreduce ? w->size : "",
			cg_ratio_text(&s->vs_ideal, a[0], sizeof(a[0])),
			cg_ratio_text(&w->vs_spec, a[1], sizeof(a[1])),
			cg_ratio_text(&w->vs_ideal, a[2], sizeof(a[2])));
	}
	fprintf(f, "as specified / ideal = (as specified / alike) x (alike / ideal): what its own "
		   "links cost over the alike ones,\ntimes what its flow control and NICs cost "
		   "over ideal on the alike links.\n");
}

/* "recovery: TCP's minimum RTO 200 ms (wire, eth); the NICs' timeout 67.1 ms (ib)": the
 * recovery time behind each regime's stalls, regimes of one time together. */
static void
recovery_line(FILE *f, const struct cg_row *rows, size_t n)
{
	int done[CG_MAX_REGIMES * CG_MAX_SIZES] = {0};
	size_t k = 0;

	fprintf(f, "recovery:");
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].first || done[i])
			continue;
		fprintf(f, "%s %s %.1f ms (", k++ ? ";" : "", rows[i].recovery,
			rows[i].recovery_ms);
		for (size_t j = i, m = 0; j < n; j++)
			if (rows[j].first && rows[j].recovery_ms == rows[i].recovery_ms &&
			    strcmp(rows[j].recovery, rows[i].recovery) == 0) {
				fprintf(f, "%s%s", m++ ? ", " : "", rows[j].regime);
				done[j] = 1;
			}
		fprintf(f, ")");
	}
	fprintf(f, "\n");
}

/* "stalls seen with: eth 1 MiB: 2 (1 timeout, 1 drop)": what each row's stalls' windows
 * saw (cg_stall_cause()), the rows with stalls. */
static void
causes_line(FILE *f, const struct cg_row *rows, size_t n)
{
	size_t k = 0;

	fprintf(f, "stalls seen with:");
	for (size_t i = 0; i < n; i++) {
		if (rows[i].stalls <= 0)
			continue;
		fprintf(f, "%s %s%s%s: %lld (", k++ ? ";" : "", rows[i].regime,
			rows[i].size[0] ? " " : "", rows[i].size, rows[i].stalls);
		for (unsigned c = 0, m = 0; c < CG_CAUSES; c++)
			if (rows[i].stall_cause[c])
				fprintf(f, "%s%lld %s", m++ ? ", " : "", rows[i].stall_cause[c],
					cg_cause_name((enum cg_cause)c));
		fprintf(f, ")");
	}
	fprintf(f, "%s\n", k ? "" : " no row stalled");
}

/* The campaign's questions, answered: the summary's last lines. */
static void
answers(FILE *f, const struct cg_campaign *c, const struct cg_row *rows, size_t n)
{
	const size_t per = c->allreduce ? c->nsizes : 1;
	char buf[512];

	for (unsigned k = 0; k < c->nquestions; k++) {
		fprintf(f, "%squestion %u: %s against %s\n", k ? "" : "\n", k + 1,
			c->reg[c->question[k].a].name, c->reg[c->question[k].b].name);
		for (size_t s = 0; s < per && c->question[k].a * per + s < n; s++)
			fprintf(f, "  %s\n",
				cg_answer(c, k, &rows[c->question[k].a * per + s], buf,
					  sizeof(buf)));
	}
}

static void
network_table(FILE *f, const struct cg_row *rows, size_t n)
{
	char a[10][32];

	fprintf(f, "\n%-20s %7s %8s %7s %7s %7s %6s %6s %9s %8s %7s %5s %6s %6s %6s %8s %8s\n",
		"network, per run", "hop us", "ping us", "offered", "drops", "trims", "marks",
		"pauses", "paused ms", "stall ms", "retrans", "RTOs", "probes", "lost", "unexpl",
		"late p99", "wait p99");
	for (size_t i = 0; i < n; i++) {
		const struct cg_row *w = &rows[i];

		if (!w->first)
			continue;
		if (w->runs == 0) {
			fprintf(f, "%-20s %7.1f %8s (not run)\n", w->regime, w->hop_us, "-");
			continue;
		}
		/* the wire has no fabric: no fabric drops, marks, pauses, nothing unexplained */
		fprintf(f,
			"%-20s %7.1f %8.1f %s %s %s %s %s %s %s %7lld %5lld %6lld %6lld %s %s %s\n",
			w->regime, w->hop_us, w->rtt_us, fig(a[0], 32, 7, 2, w->offered_gbps),
			fig(a[1], 32, 7, 0, cg_fab(w, (double)w->drops)),
			fig(a[9], 32, 7, 0, cg_fab(w, (double)w->trims)),
			fig(a[2], 32, 6, 0, cg_fab(w, (double)w->marks)),
			fig(a[3], 32, 6, 0, cg_fab(w, (double)w->pauses)),
			fig(a[4], 32, 9, 1, cg_fab(w, w->paused_ms)),
			fig(a[5], 32, 8, 1, cg_fab(w, w->stall_ms)), w->real_retrans, w->timeouts,
			w->probes, w->edge_lost,
			fig(a[6], 32, 6, 0, cg_fab(w, (double)w->unexplained)),
			fig(a[7], 32, 8, 1, w->late_worst_p99_us),
			fig(a[8], 32, 8, 1, w->wait_p99_us));
	}
}

/* The emulated NICs, when a regime has one (docs/nic.md). */
static void
nic_table(FILE *f, const struct cg_row *rows, size_t n)
{
	char a[32];

	if (!cg_rows_nic(rows, n))
		return;
	fprintf(f, "\n%-20s %5s %8s %7s %12s %7s %6s %8s %9s\n", "NICs, per run", "nic", "CE eaten",
		"CNPs", "min Mbit/s", "resent", "NAKs", "NIC RTOs", "discarded");
	for (size_t i = 0; i < n; i++) {
		const struct cg_row *w = &rows[i];

		if (!w->first || w->runs == 0)
			continue;
		fprintf(f, "%-20s %5s %8lld %7lld %s %7lld %6lld %8lld %9lld\n", w->regime,
			w->nic_model, w->nic_ce, w->nic_cnp,
			fig(a, 32, 12, 3, w->nic_rate_min_bps / 1e6), w->nic_resent, w->nic_naks,
			w->nic_timeouts, w->nic_discards);
	}
	fprintf(f,
		"CE eaten: marks the receiving NICs cleared (the hosts never saw them); min: "
		"the lowest rate DCQCN\nset (- none); resent, NAKs (a gap's, and under uec a "
		"trimmed frame's), NIC RTOs, discarded:\nthe NICs' loss recovery. docs/nic.md.\n");
	for (size_t i = 0; i < n; i++) {
		const struct cg_row *w = &rows[i];

		if (w->first && w->nic_timeouts_unlost > 0)
			fprintf(f,
				"%s: %lld of its %lld NIC timeouts at least fired with nothing "
				"lost: "
				"frames that waited\nlonger than the NICs' timeout (not dilated) "
				"were "
				"sent again; `timeout: path` makes it follow the\nfabric's queues "
				"(docs/nic.md).\n",
				w->regime, w->nic_timeouts_unlost, w->nic_timeouts);
	}
}

/* "0.123 [0.100, 0.150]" with a format a figure, or "-" */
static const char *
band(char *buf, size_t len, const char *fmt, double v, double lo, double hi)
{
	char a[32], b[32], x[32];

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(x, sizeof(x), fmt, v);
	snprintf(a, sizeof(a), fmt, lo);
	snprintf(b, sizeof(b), fmt, hi);
	snprintf(buf, len, "%s [%s, %s]", x, a, b);
	return buf;
}

/* A series' fit, one line: where it was fitted, p, the cost, the base time. */
static void
proj_fit(FILE *f, const struct cg_proj *p)
{
	char b[96];

	fprintf(f, "%s, %s a rank: fitted at", p->series, p->size);
	for (unsigned i = 0; i < p->nfit; i++)
		fprintf(f, "%s %u", i ? "," : "", p->fit_ranks[i]);
	fprintf(f,
		" ranks (%zu iterations, %lld stalled, %.3g packets): %s stalls a packet;\n"
		"  a stall costs %.1f ms (%s); a ring step %.4f ms + %.3g ms a byte (%s)\n",
		p->iterations, p->stalls, p->exposure,
		band(b, sizeof(b), "%.3g", p->p, p->p_lo, p->p_hi), p->cost_ms,
		p->cost_measured ? "as measured" : "none measured: the transport's recovery time",
		p->a, p->b,
		p->base_from_ping ? "one rank count: the latency from the ping"
				  : "fitted to the p50s");
}

static void
proj_row(FILE *f, const struct cg_proj_at *at)
{
	char s[64], m[64], q[64], w[64], g[64];

	fprintf(f, "%8u %-30s %-32s %-32s %-22s %-30s %10.3g\n", at->n,
		band(s, sizeof(s), "%.3g", at->stall, at->stall_lo, at->stall_hi),
		band(m, sizeof(m), "%.4g", at->mean, at->mean_lo, at->mean_hi),
		band(q, sizeof(q), "%.4g", at->p99, at->p99_lo, at->p99_hi),
		band(w, sizeof(w), "%.1f", at->wait * 100, at->wait_lo * 100, at->wait_hi * 100),
		band(g, sizeof(g), "%.3g", at->gpuh, at->gpuh_lo, at->gpuh_hi), at->stall_gpuh);
}

/* Predicted beside measured, and whether the measurement fell inside the prediction. */
static void
proj_check(FILE *f, const struct cg_campaign *c, const struct cg_proj_check *x)
{
	const struct cg_proj_at *p = &x->pred;
	char a[96], b[96];

	fprintf(f,
		"  check at %u ranks (%s, %zu iterations): predicted [95%% CI], then measured "
		"[95%% CI]\n",
		p->n, c->reg[x->reg].name, x->n);
	if (!x->measured) {
		fprintf(f, "    not measured (no iterations)\n");
		return;
	}
	fprintf(f, "    P(stall)  %-34s %-34s %s\n",
		band(a, sizeof(a), "%.3f", p->stall, p->stall_lo, p->stall_hi),
		band(b, sizeof(b), "%.3f", x->stall, x->stall_lo, x->stall_hi),
		cg_proj_inside(x->stall, p->stall_lo, p->stall_hi) ? "inside" : "OUTSIDE");
	fprintf(f, "    p50 ms    %-34s %-34s %s\n",
		band(a, sizeof(a), "%.3f", p->base, p->base_lo, p->base_hi),
		band(b, sizeof(b), "%.3f", x->p50, x->p50_lo, x->p50_hi),
		cg_proj_inside(x->p50, p->base_lo, p->base_hi) ? "inside" : "OUTSIDE");
	if (!isnan(x->p99))
		fprintf(f, "    p99 ms    %-34s %-34s %s\n",
			band(a, sizeof(a), "%.3f", p->p99, p->p99_lo, p->p99_hi),
			band(b, sizeof(b), "%.3f", x->p99, x->p99_lo, x->p99_hi),
			cg_proj_inside(x->p99, p->p99_lo, p->p99_hi) ? "inside" : "OUTSIDE");
	else
		fprintf(f, "    p99 ms    %-34s max %.3f (n=%zu)\n",
			band(a, sizeof(a), "%.3f", p->p99, p->p99_lo, p->p99_hi), x->max, x->n);
}

void
cg_print_projection(FILE *f, const struct cg_campaign *c, const struct cg_proj *p, size_t n)
{
	if (n == 0)
		return;
	fprintf(f, "\nthe all-reduce at cluster scale (a projection, docs/campaigns.md)");
	if (c->proj.compute_ms > 0)
		fprintf(f, ", %.1f ms of compute a step", c->proj.compute_ms);
	fprintf(f, ":\n");
	for (size_t i = 0; i < n; i++) {
		fputc('\n', f);
		proj_fit(f, &p[i]);
		fprintf(f, "%8s %-30s %-32s %-32s %-22s %-30s %10s\n", "ranks",
			"P(>=1 stall) [95% CI]", "E[iteration] ms [95% CI]", "p99 ms [95% CI]",
			"waiting % [95% CI]", "GPU-h / 1000 steps [95% CI]", "of it stalls");
		for (unsigned k = 0; k < p[i].nat; k++)
			proj_row(f, &p[i].at[k]);
		for (unsigned k = 0; k < p[i].ncheck; k++)
			proj_check(f, c, &p[i].check[k]);
	}
	fprintf(f, "assumed:");
	for (unsigned k = 0; cg_proj_assumptions[k]; k++)
		fprintf(f, "%s %s", k ? ";\n " : "", cg_proj_assumptions[k]);
	fprintf(f, ".%s\n",
		c->proj.compute_ms > 0
			? ""
			: " waiting %: - (set projection.compute, a training step's compute)");
}

/* The projection of the rows (cg_scale.c). */
static void
projection(FILE *f, const struct cg_campaign *c, const struct cg_row *rows, size_t n)
{
	struct cg_proj *p = calloc(CG_MAX_REGIMES * CG_MAX_SIZES, sizeof(*p));

	if (p)
		cg_print_projection(f, c, p, cg_project(c, rows, n, p));
	free(p);
}

void
cg_print_summary(FILE *f, const struct cg_campaign *c, json_t *capacity, const struct cg_row *rows,
		 size_t n)
{
	char note[512];

	testbed_line(f, c, capacity);
	job_table(f, c, rows, n);
	baseline_table(f, c, rows, n);
	alike_table(f, c, rows, n);
	network_table(f, rows, n);
	nic_table(f, rows, n);
	fprintf(f,
		"\nverdicts (lateness and edge wait at most %.0f%% of a hop, offered load at most "
		"%.0f%% of the capacity):\n",
		c->fid.late * 100, c->fid.load * 100);
	for (size_t i = 0; i < n; i++)
		if (rows[i].first)
			fprintf(f, "  %-20s %s\n", rows[i].regime, rows[i].verdict);
	if (cg_baseline_note(c, note, sizeof(note)))
		fprintf(f, "\nnote: %s.\n", note);
	fprintf(f,
		"\nn: iterations; p50, p99: nearest rank over every repetition, with a %.0f%% "
		"interval "
		"from %u bootstrap\nresamples (repetitions drawn with replacement, then iterations "
		"within each; seed %llu); a p99 from %u\niterations, below that the maximum and n; "
		"reps: repetitions, and the spread of their own p50s.\n/ wire, / ideal: the p50 "
		"over the baseline's (the same hosts over a bridge; through fabemu with an\nideal "
		"fabric), its interval, and faster or slower where the interval keeps to one side "
		"of "
		"1.\n",
		CG_CONFIDENCE * 100, CG_RESAMPLES, (unsigned long long)c->seed, CG_P99_MIN_N);
	fprintf(f,
		"hop: one link's delay plus a "
		"full-sized frame at its rate (MTU + 38 bytes on the wire); offered: Gbit/s the\n"
		"hosts' links allow at once; ping: h1-h2 before the job. drops, trims, marks, "
		"pauses: the fabric's (- for the wire;\ntrims: frames a switch cut to their "
		"header, sent again at once, not lost);\nretrans (real: D-SACKed ones excluded), "
		"RTOs, "
		"probes: TCP's, all hosts; lost: frames lost at the edge or by the box;\nunexpl: "
		"frames no counter accounts for; late p99: us frames left the worst link after the "
		"model's tick;\nwait p99: us they waited at the edge. stalls: iterations %.0f%% of "
		"their transport's recovery time or more\nabove the median, and above p75 + %.0f x "
		"the interquartile range of the others; their share of the iterations [95%% "
		"CI].\n",
		CG_STALL_RECOVERY * 100, CG_STALL_IQR);
	recovery_line(f, rows, n);
	causes_line(f, rows, n);
	fprintf(f, "How to read it: docs/campaigns.md.\n");
	projection(f, c, rows, n);
	answers(f, c, rows, n);
}
