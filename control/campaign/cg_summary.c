/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One row a regime and size over every repetition: the job's time (nearest-rank p50,
 * p99, max) with their intervals and the spread of the repetitions (cg_stats.c), the same
 * beside the baselines (the wire and the ideal dataplane) and as ratios to them with a
 * word, the campaign's questions, the network's figures and the fidelity verdict.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"
#include "fe_qhist.h"
#include "fe_quantile.h"

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank (fe_quantile.h) of n values, sorted here; NAN if none. */
static double
quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_d);
	return v[fe_rank_index(n, q)];
}

static long long
geti(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* p50, p99 and max (us) of a histogram merged over the regime's runs; NAN if none. */
static void
merged_us(json_t *runs, const struct cg_regime *g, const char *key, double *p50, double *p99,
	  double *max)
{
	uint64_t h[FE_QHIST_BUCKETS] = {0}, n = 0;
	json_t *run;
	size_t i;

	json_array_foreach(runs, i, run) if (cg_run_of(run, g)) n +=
		cg_qhist_add(h, json_object_get(json_object_get(run, key), "hist_ns"));
	*p50 = n ? (double)fe_qhist_quantile(h, 0.5) / 1000 : NAN;
	*p99 = n ? (double)fe_qhist_quantile(h, 0.99) / 1000 : NAN;
	*max = n ? (double)fe_qhist_quantile(h, 1.0) / 1000 : NAN;
}

/* The distinct strings of key (an array) over the regime's runs, in order. */
static json_t *
gather(json_t *runs, const struct cg_regime *g, const char *key)
{
	json_t *run, *why, *all = json_array(), *w;
	size_t i, k, j;

	json_array_foreach(runs, i, run) if (cg_run_of(run, g))
		json_array_foreach(json_object_get(run, key), k, why)
	{
		int seen = 0;

		json_array_foreach(all, j, w) seen |= json_equal(w, why);
		if (!seen)
			json_array_append(all, why);
	}
	return all;
}

/*
 * The regime's verdict: faithful if every run was; else every distinct reason; then
 * what could not be checked, as cg_verdict words it for a run.
 */
static void
verdict(json_t *runs, const struct cg_regime *g, char *out, size_t len)
{
	json_t *why = gather(runs, g, "reasons"), *notes = gather(runs, g, "not_checked");

	cg_verdict_text(why, notes, out, len);
	json_decref(why);
	json_decref(notes);
}

/* The run-level figures of a regime, summed over its repetitions, into w. */
static void
network(json_t *runs, const struct cg_regime *g, struct cg_row *w)
{
	json_t *run, *x;
	size_t i, k;
	unsigned nr = 0;

	w->late_worst_p99_us = NAN;
	w->nic_rate_min_bps = NAN;
	snprintf(w->nic_model, sizeof(w->nic_model), "%s",
		 g->kind == CG_WIRE ? "-" : fe_nic_model_name(g->fabric.nic.model));
	json_array_foreach(runs, i, run)
	{
		json_t *nic = json_object_get(run, "nic");

		if (!cg_run_of(run, g))
			continue;
		nr++;
		w->nic_ce += geti(nic, "ce_consumed");
		w->nic_cnp += geti(nic, "cnp_sent");
		w->nic_resent += geti(nic, "resent_pkts");
		w->nic_naks += geti(nic, "naks_sent") + geti(nic, "trim_naks_sent"); /* uec's too */
		w->nic_timeouts += geti(nic, "timeouts");
		w->nic_discards += geti(nic, "oos_discards") + geti(nic, "dup_discards");
		if (json_is_integer(json_object_get(nic, "rate_min_bps")) &&
		    !((double)geti(nic, "rate_min_bps") >= w->nic_rate_min_bps))
			w->nic_rate_min_bps = (double)geti(nic, "rate_min_bps");
		w->rtt_us += json_number_value(json_object_get(run, "ping_rtt_us"));
		w->job_s += (double)(geti(run, "end_ns") - geti(run, "start_ns")) / 1e9;
		{
			long long lost = geti(run, "edge_lost") + geti(run, "box_dropped");

			json_array_foreach(json_object_get(run, "links"), k, x)
			{
				w->drops += geti(x, "drops");
				w->trims += geti(x, "trims");
				w->marks += geti(x, "ecn_marked");
				lost += geti(x, "drops");
			}
			if (geti(nic, "timeouts") > lost)
				w->nic_timeouts_unlost += geti(nic, "timeouts") - lost;
		}
		json_array_foreach(json_object_get(run, "tcp"), k, x)
		{
			w->real_retrans += geti(x, "real_retrans");
			w->timeouts += geti(x, "timeouts");
			w->probes += geti(x, "loss_probes");
		}
		w->pauses += geti(run, "pause_frames");
		w->paused_ms += (double)geti(run, "paused_ns") / 1e6;
		w->stall_ms += (double)geti(run, "credit_stall_ns") / 1e6;
		w->edge_lost += geti(run, "edge_lost") + geti(run, "box_dropped");
		x = json_object_get(run, "lateness");
		if (json_is_integer(json_object_get(x, "worst_p99_ns")) &&
		    !(geti(x, "worst_p99_ns") / 1e3 <= w->late_worst_p99_us)) {
			w->late_worst_p99_us = (double)geti(x, "worst_p99_ns") / 1e3;
			snprintf(w->late_worst_link, sizeof(w->late_worst_link), "%s",
				 json_string_value(json_object_get(x, "worst_link")) ?: "");
		}
		w->wire = json_is_null(json_object_get(run, "unexplained"));
		w->unexplained += geti(run, "unexplained");
	}
	w->runs = nr;
	w->rtt_us = nr ? w->rtt_us / nr : NAN;
	w->job_s = nr ? w->job_s / nr : NAN;
	merged_us(runs, g, "lateness", &w->late_p50_us, &w->late_p99_us, &w->late_max_us);
	merged_us(runs, g, "edge_wait", &w->wait_p50_us, &w->wait_p99_us, &w->wait_max_us);
}

/* Iteration times of size (0: every iteration) of a regime's runs, in ms, into v (room for
 * every iteration of every run), repetition after repetition: first[r] where repetition r
 * starts, first[*nrep] the end (room for every run and one; a run without iterations of
 * that size is no repetition of the sample); how many. */
static size_t
times(json_t *runs, const struct cg_regime *g, uint64_t size, double *v, size_t *first,
      unsigned *nrep)
{
	json_t *run, *it;
	size_t i, k, n = 0;

	*nrep = 0;
	first[0] = 0;
	json_array_foreach(runs, i, run)
	{
		if (!cg_run_of(run, g))
			continue;
		json_array_foreach(json_object_get(run, "iterations"), k, it)
		{
			if (!cg_iter_of_size(it, size))
				continue;
			v[n++] = json_real_value(json_array_get(it, 3)) / 1000;
		}
		if (n > first[*nrep])
			first[++*nrep] = n;
	}
	return n;
}

/* What each stall of row w (regime g, size) saw in its iteration's window: each run's
 * events (cg_events.c) from the iteration's start to its end. */
static void
stall_causes(json_t *runs, const struct cg_regime *g, uint64_t size, struct cg_row *w)
{
	json_t *run, *it;
	size_t i, k;

	memset(w->stall_cause, 0, sizeof(w->stall_cause));
	if (isnan(w->stall_at_ms))
		return;
	json_array_foreach(runs, i, run)
	{
		const json_t *ev = json_object_get(run, "events");

		if (!cg_run_of(run, g))
			continue;
		json_array_foreach(json_object_get(run, "iterations"), k, it)
		{
			double us = json_real_value(json_array_get(it, 3));
			uint64_t start = (uint64_t)json_integer_value(json_array_get(it, 4));

			if (!cg_iter_of_size(it, size) || us / 1000 < w->stall_at_ms)
				continue;
			w->stall_cause[json_is_array(ev) && start
					       ? cg_stall_cause(ev, start,
								start + (uint64_t)(us * 1000))
					       : CG_CAUSE_NONE]++;
		}
	}
}

double
cg_regime_recovery(const struct cg_regime *g, const char **what)
{
	const struct fe_nic_params *nic = &g->fabric.nic;

	/* timeout: path: the dataplane derives it from the links, unknown here */
	if (g->kind == CG_DATAPLANE && fe_nic_emulated(nic->model) && !nic->timeout_path &&
	    (double)nic->timeout_ns / 1e6 < CG_TCP_RTO_MIN_MS) {
		*what = "the NICs' timeout";
		return (double)nic->timeout_ns / 1e6;
	}
	*what = "TCP's minimum RTO";
	return CG_TCP_RTO_MIN_MS;
}

double
cg_stall_threshold(const double *v, size_t n, double p50, double recovery_ms)
{
	double at = p50 + CG_STALL_RECOVERY * recovery_ms, p25, p75;
	size_t m = 0;

	/* the fence of the ordinary iterations, those below the recovery rule's line: stalls,
	 * when a quarter of the iterations or more, would otherwise raise their own fence
	 * above themselves (v is sorted: the first m) */
	while (m < n && v[m] < at)
		m++;
	m = m ? m : n;
	p25 = v[fe_rank_index(m, 0.25)];
	p75 = v[fe_rank_index(m, 0.75)];
	return fmax(at, p75 + CG_STALL_IQR * (p75 - p25));
}

/* The row's stalls: its threshold from the sorted times sv, the count, and the share of
 * iterations with its interval from the sample smp. */
static void
stalls(const struct cg_campaign *c, uint64_t stream, const double *sv, const struct cg_sample *smp,
       struct cg_row *w)
{
	size_t n = w->n;
	double *x = malloc(sizeof(*x) * CG_RESAMPLES), excess = 0;

	w->stall_at_ms = w->stall_share = w->stall_share_lo = w->stall_share_hi = NAN;
	w->stall_excess_ms = NAN;
	if (n > 0) {
		w->stall_at_ms = cg_stall_threshold(sv, n, w->p50, w->recovery_ms);
		for (size_t k = 0; k < n; k++)
			if (sv[k] >= w->stall_at_ms) {
				w->stalls++;
				excess += sv[k] - w->p50;
			}
		w->stall_share = (double)w->stalls / (double)n;
		if (w->stalls)
			w->stall_excess_ms = excess / (double)w->stalls;
	}
	if (n > 0 && x &&
	    cg_bootstrap_share(smp, c->seed, stream, CG_RESAMPLES, w->stall_at_ms, x) == 0)
		cg_interval(x, CG_RESAMPLES, &w->stall_share_lo, &w->stall_share_hi);
	free(x);
}

/*
 * The row's uncertainty from its sample (v, first, nrep): the intervals of p50 and p99
 * (a p99 only from CG_P99_MIN_N iterations), its resampled p50s into boot50 (CG_RESAMPLES;
 * 0 returned), and the spread of the repetitions' own p50s. -1 when there is nothing to
 * resample. The sample's order is kept (each repetition's values sorted within it only).
 */
static int
uncertainty(const struct cg_campaign *c, uint64_t stream, double *v, const size_t *first,
	    unsigned nrep, struct cg_row *w, double *boot50)
{
	const struct cg_sample smp = {.v = v, .first = first, .nrep = nrep};
	double *b99 = malloc(sizeof(*b99) * CG_RESAMPLES);
	int rc = -1;

	w->p50_lo = w->p50_hi = w->p99_lo = w->p99_hi = NAN;
	w->rep_p50_min = w->rep_p50_max = NAN;
	w->nrep = nrep;
	if (b99 && nrep && cg_bootstrap(&smp, c->seed, stream, CG_RESAMPLES, boot50, b99) == 0) {
		cg_interval(b99, CG_RESAMPLES, &w->p99_lo, &w->p99_hi);
		/* boot50 is kept in resample order for the comparisons: its interval from a
		 * copy (b99, done with) */
		memcpy(b99, boot50, sizeof(*b99) * CG_RESAMPLES);
		cg_interval(b99, CG_RESAMPLES, &w->p50_lo, &w->p50_hi);
		if (first[nrep] < CG_P99_MIN_N)
			w->p99_lo = w->p99_hi = NAN;
		rc = 0;
	}
	for (unsigned r = 0; nrep >= 2 && r < nrep; r++) {
		double m = quantile(v + first[r], first[r + 1] - first[r], 0.5);

		w->rep_p50_min = r == 0 || m < w->rep_p50_min ? m : w->rep_p50_min;
		w->rep_p50_max = r == 0 || m > w->rep_p50_max ? m : w->rep_p50_max;
	}
	free(b99);
	return rc;
}

/* Row i against row j: their p50s' ratio, interval and word (boot: each row's resampled
 * p50s, NULL for a row without). */
static void
compare(const struct cg_row *rows, double *const *boot, size_t i, size_t j, struct cg_ratio *out)
{
	cg_ratio_of(rows[i].p50, rows[j].p50, boot[i], boot[j], CG_RESAMPLES, rows[i].nrep,
		    rows[j].nrep, out);
}

static void
baselines(const struct cg_campaign *c, struct cg_row *rows, double *const *boot, size_t nrows,
	  size_t per)
{
	int wire = -1, ideal = -1;

	/* the regimes cg_load() made the baselines: the ones that ran without the faults */
	for (unsigned g = 0; g < c->nreg; g++) {
		if (c->reg[g].baseline == 1)
			wire = (int)g;
		else if (c->reg[g].baseline == 2)
			ideal = (int)g;
	}
	for (size_t n = 0; n < nrows; n++) {
		size_t s = n % per, w = (size_t)wire * per + s, i = (size_t)ideal * per + s;
		struct cg_ratio none = {.v = NAN, .lo = NAN, .hi = NAN};

		rows[n].wire_p50 = wire >= 0 ? rows[w].p50 : NAN;
		rows[n].wire_p99 = wire >= 0 ? rows[w].p99 : NAN;
		rows[n].ideal_p50 = ideal >= 0 ? rows[i].p50 : NAN;
		rows[n].ideal_p99 = ideal >= 0 ? rows[i].p99 : NAN;
		rows[n].baseline = (int)(n / per) == wire ? 1 : (int)(n / per) == ideal ? 2 : 0;
		rows[n].vs_wire = rows[n].vs_ideal = none;
		if (wire >= 0 && (int)(n / per) != wire)
			compare(rows, boot, n, w, &rows[n].vs_wire);
		if (ideal >= 0 && (int)(n / per) != ideal)
			compare(rows, boot, n, i, &rows[n].vs_ideal);
	}
}

/* Like for like: each alike regime's rows, its as-specified regime's p50 over its own. */
static void
alike_pairs(const struct cg_campaign *c, struct cg_row *rows, double *const *boot, size_t per)
{
	for (unsigned g = 0; g < c->nreg; g++)
		for (size_t s = 0; s < per; s++) {
			struct cg_row *w = &rows[g * per + s];

			w->vs_spec = (struct cg_ratio){.v = NAN, .lo = NAN, .hi = NAN};
			w->alike_of[0] = '\0';
			if (!c->reg[g].alike)
				continue;
			snprintf(w->alike_of, sizeof(w->alike_of), "%s",
				 c->reg[c->reg[g].alike_of].name);
			compare(rows, boot, c->reg[g].alike_of * per + s, g * per + s, &w->vs_spec);
		}
}

/* The campaign's questions, each size: a's rows against b's. */
static void
questions(const struct cg_campaign *c, struct cg_row *rows, double *const *boot, size_t per)
{
	for (unsigned k = 0; k < c->nquestions; k++)
		for (size_t s = 0; s < per; s++)
			compare(rows, boot, c->question[k].a * per + s, c->question[k].b * per + s,
				&rows[c->question[k].a * per + s].q[k]);
}

/*
 * A regime cut short: "partial: 47 of 200 iterations (interrupted)" (a repetition's
 * "partial" from cg_run.c, with its number when there are several; the repetitions that
 * did not run), into w->partial and before its verdict. Nothing for a regime that did not
 * run at all, or ran whole.
 */
static void
partial(const struct cg_campaign *c, json_t *runs, const struct cg_regime *g, struct cg_row *w)
{
	char p[sizeof(w->partial)] = "", v[sizeof(w->verdict)];
	json_t *run;
	size_t i, n = 0;

	json_array_foreach(runs, i, run)
	{
		const char *x = json_string_value(json_object_get(run, "partial"));

		if (!cg_run_of(run, g) || x == NULL)
			continue;
		if (c->reps > 1)
			cg_addf(p, sizeof(p), &n, "%srepetition %lld: %s", n ? "; " : "",
				geti(run, "repetition"), x);
		else
			cg_addf(p, sizeof(p), &n, "%s", x);
	}
	if (w->runs > 0 && w->runs < c->reps)
		cg_addf(p, sizeof(p), &n, "%s%u of %u repetitions ran", n ? "; " : "", w->runs,
			c->reps);
	if (n == 0)
		return;
	snprintf(w->partial, sizeof(w->partial), "partial: %s", p);
	cg_verdict_partial(p, w->verdict, v, sizeof(v));
	snprintf(w->verdict, sizeof(w->verdict), "%s", v);
}

const char *
cg_baseline_note(const struct cg_campaign *c, char *buf, size_t len)
{
	size_t n = 0;

	if (c->nsteps == 0)
		return NULL;
	for (unsigned g = 0; g < c->nreg; g++)
		if (cg_baseline(&c->reg[g]))
			cg_addf(buf, len, &n, "%s%s",
				n ? ", " : "baselines run without the timeline's faults: ",
				c->reg[g].name);
	if (n == 0)
		return NULL;
	cg_addf(buf, len, &n, " (%u fault step(s) not run in each)", c->nsteps);
	return buf;
}

/* A row's times from its sample (v, first, nrep; n in w): the pooled figures from a sorted
 * copy (sv), the intervals, the stalls. 0 with its resampled p50s in boot50, or -1. */
static int
row_times(const struct cg_campaign *c, unsigned g, size_t s, double *v, double *sv,
	  const size_t *first, unsigned nrep, struct cg_row *w, double *boot50)
{
	const struct cg_sample smp = {.v = v, .first = first, .nrep = nrep};
	/* a stream a row: its figures do not depend on which other rows ran */
	uint64_t stream = (uint64_t)g * CG_MAX_SIZES + s + 1;
	int rc = uncertainty(c, stream, v, first, nrep, w, boot50);

	memcpy(sv, v, sizeof(*v) * w->n);
	w->p50 = quantile(sv, w->n, 0.5);
	w->p99 = w->n >= CG_P99_MIN_N ? quantile(sv, w->n, 0.99) : NAN;
	w->max = quantile(sv, w->n, 1.0);
	w->recovery_ms = cg_regime_recovery(&c->reg[g], &w->recovery);
	stalls(c, stream, sv, &smp, w);
	return rc;
}

size_t
cg_summarize(const struct cg_campaign *c, json_t *runs, struct cg_row *rows)
{
	const size_t per = c->allreduce ? c->nsizes : 1;
	size_t all = 1, nrows = 0;
	json_t *run;
	size_t r;
	double *v, *bootv, *boot[CG_MAX_REGIMES * CG_MAX_SIZES] = {0};
	size_t *first;
	double *sv;

	json_array_foreach(runs, r, run) all += json_array_size(json_object_get(run, "iterations"));
	v = malloc(sizeof(double) * all);
	sv = malloc(sizeof(double) * all);
	first = malloc(sizeof(*first) * (json_array_size(runs) + 1));
	bootv = malloc(sizeof(double) * CG_RESAMPLES * c->nreg * per);
	if (v == NULL || sv == NULL || first == NULL || bootv == NULL) {
		free(v);
		free(sv);
		free(first);
		free(bootv);
		return 0;
	}
	for (unsigned g = 0; g < c->nreg; g++) {
		const struct cg_regime *r = &c->reg[g];
		struct cg_row net = {0};

		network(runs, r, &net);
		verdict(runs, r, net.verdict, sizeof(net.verdict));
		partial(c, runs, r, &net);
		if (net.runs == 0)
			snprintf(net.verdict, sizeof(net.verdict),
				 "not run (the campaign stopped first)");
		for (size_t s = 0; s < per; s++) {
			struct cg_row *w = &rows[nrows];
			unsigned nrep;
			size_t n = times(runs, r, c->allreduce ? c->sizes[s] : 0, v, first, &nrep);

			*w = net;
			snprintf(w->regime, sizeof(w->regime), "%s", r->name);
			if (c->allreduce) /* a command job has no size: empty */
				cg_size_name(c->sizes[s], w->size, sizeof(w->size));
			else
				w->size[0] = '\0';
			w->hop_us = (double)r->hop_ns / 1000.0;
			w->offered_gbps = r->offered_bps ? (double)r->offered_bps / 1e9 : NAN;
			w->first = s == 0;
			w->n = n;
			if (row_times(c, g, s, v, sv, first, nrep, w,
				      bootv + nrows * CG_RESAMPLES) == 0)
				boot[nrows] = bootv + nrows * CG_RESAMPLES;
			stall_causes(runs, r, c->allreduce ? c->sizes[s] : 0, w);
			nrows++;
		}
	}
	baselines(c, rows, boot, nrows, per);
	alike_pairs(c, rows, boot, per);
	questions(c, rows, boot, per);
	free(v);
	free(sv);
	free(first);
	free(bootv);
	return nrows;
}

const char *
cg_ratio_text(const struct cg_ratio *x, char *buf, size_t len)
{
	if (isnan(x->v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f [%.2f, %.2f] %s", x->v, x->lo, x->hi,
			 cg_word_name(x->word));
	return buf;
}

const char *
cg_answer(const struct cg_campaign *c, unsigned k, const struct cg_row *w, char *buf, size_t len)
{
	const char *a = c->reg[c->question[k].a].name, *b = c->reg[c->question[k].b].name;
	const struct cg_ratio *x = &w->q[k];
	size_t n = 0;

	if (w->size[0])
		cg_addf(buf, len, &n, "%s: ", w->size);
	if (isnan(x->v)) {
		cg_addf(buf, len, &n, "%s against %s: not compared (no iterations of both)", a, b);
		return buf;
	}
	if (x->word == CG_FASTER || x->word == CG_SLOWER)
		cg_addf(buf, len, &n, "%s is %s than %s", a, cg_word_name(x->word), b);
	else
		cg_addf(buf, len, &n, "%s against %s: %s", a, b, cg_word_name(x->word));
	cg_addf(buf, len, &n, " (p50 ratio %.2f [%.2f, %.2f]", x->v, x->lo, x->hi);
	if (x->reps_a < CG_WORD_MIN_REPS || x->reps_b < CG_WORD_MIN_REPS)
		cg_addf(buf, len, &n, "; %u and %u repetition(s): a word needs %u of each",
			x->reps_a, x->reps_b, CG_WORD_MIN_REPS);
	cg_addf(buf, len, &n, ")");
	return buf;
}

/* A figure, or null where there is none (NAN). */
static json_t *
num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *
interval(double lo, double hi)
{
	return isnan(lo) || isnan(hi) ? json_null() : json_pack("[f, f]", lo, hi);
}

static json_t *
ratio_json(const struct cg_ratio *x)
{
	if (isnan(x->v))
		return json_null();
	return json_pack("{s:f, s:o, s:s, s:[i, i]}", "ratio", x->v, "ci", interval(x->lo, x->hi),
			 "word", cg_word_name(x->word), "repetitions", (int)x->reps_a,
			 (int)x->reps_b);
}

static json_t *
row_json(const struct cg_row *w)
{
	json_t *o = json_pack("{s:s, s:s, s:s?, s:I, s:i}", "regime", w->regime, "size", w->size,
			      "baseline",
			      w->baseline == 1	 ? "wire"
			      : w->baseline == 2 ? "ideal"
						 : NULL,
			      "iterations", (json_int_t)w->n, "repetitions", (int)w->nrep);

	json_object_set_new(o, "p50_ms", num(w->p50));
	json_object_set_new(o, "p50_ci_ms", interval(w->p50_lo, w->p50_hi));
	json_object_set_new(o, "p99_ms", num(w->p99));
	json_object_set_new(o, "p99_ci_ms", interval(w->p99_lo, w->p99_hi));
	json_object_set_new(o, "max_ms", num(w->max));
	json_object_set_new(o, "repetition_p50_ms", interval(w->rep_p50_min, w->rep_p50_max));
	json_object_set_new(o, "stalls", w->runs ? json_integer(w->stalls) : json_null());
	json_object_set_new(o, "stall_share", num(w->stall_share));
	json_object_set_new(o, "stall_share_ci", interval(w->stall_share_lo, w->stall_share_hi));
	json_object_set_new(o, "stall_at_ms", num(w->stall_at_ms));
	if (w->runs) { /* what the stalls' windows saw */
		json_t *sc = json_object();

		for (unsigned k = 0; k < CG_CAUSES; k++)
			json_object_set_new(sc, cg_cause_name((enum cg_cause)k),
					    json_integer(w->stall_cause[k]));
		json_object_set_new(o, "stall_causes", sc);
	} else {
		json_object_set_new(o, "stall_causes", json_null());
	}
	json_object_set_new(o, "recovery_ms", num(w->recovery_ms));
	json_object_set_new(o, "recovery", json_string(w->recovery ? w->recovery : ""));
	json_object_set_new(o, "vs_wire", ratio_json(&w->vs_wire));
	json_object_set_new(o, "vs_ideal", ratio_json(&w->vs_ideal));
	json_object_set_new(o, "alike_of", w->alike_of[0] ? json_string(w->alike_of) : json_null());
	json_object_set_new(o, "vs_as_specified", ratio_json(&w->vs_spec));
	return o;
}

json_t *
cg_summary_json(const struct cg_campaign *c, const struct cg_row *rows, size_t nrows)
{
	const size_t per = c->allreduce ? c->nsizes : 1;
	json_t *rj = json_array(), *qj = json_array(), *proj, *alike = json_null();
	struct cg_proj *pj = calloc(CG_MAX_REGIMES * CG_MAX_SIZES, sizeof(*pj));
	char buf[512];

	/* the all-reduce at cluster scale, as every output prints it (cg_scale.c) */
	proj = pj ? cg_projection_json(c, pj, cg_project(c, rows, nrows, pj)) : json_null();

	for (size_t i = 0; i < nrows; i++)
		json_array_append_new(rj, row_json(&rows[i]));
	for (unsigned k = 0; k < c->nquestions; k++)
		for (size_t s = 0; s < per && c->question[k].a * per + s < nrows; s++) {
			const struct cg_row *w = &rows[c->question[k].a * per + s];
			json_t *x = ratio_json(&w->q[k]);

			json_array_append_new(qj,
					      json_pack("{s:s, s:s, s:s, s:o, s:s}", "regime",
							c->reg[c->question[k].a].name, "against",
							c->reg[c->question[k].b].name, "size",
							w->size, "comparison", x, "answer",
							cg_answer(c, k, w, buf, sizeof(buf))));
		}
	free(pj);
	if (c->alike.set)
		alike = json_pack("{s:s, s:s, s:i, s:[s, s], s:[s, s]}", "profile",
				  c->alike.profile_name, "file", c->alike.profile, "scale",
				  (int)c->alike.scale, "links", c->alike.up[0], c->alike.down[0],
				  "links_lossy", c->alike.up[1], c->alike.down[1]);
	return json_pack(
		"{s:{s:s, s:i, s:f, s:I, s:i, s:i, s:f, s:f, s:f}, s:o, s:o, s:o, s:o}", "method",
		"bootstrap", "repetitions drawn with replacement, then iterations within each",
		"resamples", CG_RESAMPLES, "confidence", CG_CONFIDENCE, "seed", (json_int_t)c->seed,
		"p99_min_iterations", CG_P99_MIN_N, "word_min_repetitions", CG_WORD_MIN_REPS,
		"stall_recovery_share", CG_STALL_RECOVERY, "stall_iqr", CG_STALL_IQR,
		"tcp_rto_min_ms", CG_TCP_RTO_MIN_MS, "rows", rj, "questions", qj, "projection",
		proj, "alike_links", alike);
}
