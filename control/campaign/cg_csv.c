/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CSV files of a campaign's results (columns: docs/campaigns.md), and how every file
 * of the results is written: whole or not at all.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg.h"

void
cg_out_failed(const struct cg_run *r, const char *path, const char *why)
{
	char line[PATH_MAX + 256];

	fprintf(stderr, "fabemuctl campaign run: could not write %s: %s (not kept)\n", path, why);
	snprintf(line, sizeof(line), "%s: %s", path, why);
	if (r != NULL)
		json_array_append_new(r->unwritten, json_string(line));
}

FILE *
cg_out_open(const struct cg_run *r, const char *path)
{
	char part[PATH_MAX + 8];
	FILE *f;

	snprintf(part, sizeof(part), "%s.part", path);
	errno = 0;
	if ((f = fopen(part, "w")) == NULL)
		cg_out_failed(r, path, strerror(errno));
	return f;
}

void
cg_out_abandon(const struct cg_run *r, FILE *f, const char *path, const char *why)
{
	char part[PATH_MAX + 8];

	snprintf(part, sizeof(part), "%s.part", path);
	fclose(f);
	unlink(part);
	cg_out_failed(r, path, why);
}

/* Every write (the stream's error flag), the flush, the disk's (fsync: a disk that fails
 * late) and the close; then the name. */
int
cg_out_close(const struct cg_run *r, FILE *f, const char *path)
{
	char part[PATH_MAX + 8];
	int err = 0;

	snprintf(part, sizeof(part), "%s.part", path);
	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	if (!err && fsync(fileno(f)) != 0 && errno != EINVAL) /* EINVAL: no disk (a pipe) */
		err = errno;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (!err && rename(part, path) != 0)
		err = errno;
	if (err == 0)
		return 0;
	unlink(part);
	cg_out_failed(r, path, strerror(err));
	return -1;
}

void
cg_csv_num(FILE *f, double v, int prec)
{
	if (isnan(v))
		fputc(',', f);
	else
		fprintf(f, ",%.*f", prec, v);
}

/* "..." with its quotes doubled (RFC 4180). */
static void
quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void
cg_csv_str(FILE *f, const char *s)
{
	size_t n = strlen(s);

	if (strpbrk(s, ",\"\r\n") == NULL && (n == 0 || (s[0] != ' ' && s[n - 1] != ' ')))
		fputs(s, f);
	else
		quoted(f, s);
}

/* A count of a regime's runs, or nothing for a regime that did not run. */
static void
put_n(FILE *f, const struct cg_row *w, double v)
{
	cg_csv_num(f, w->runs ? v : NAN, 0);
}

/* ,"..." always quoted (a verdict: free text) */
static void
put_str(FILE *f, const char *s)
{
	fputc(',', f);
	quoted(f, s);
}

/* A comparison's interval and word: ,lo,hi,word (empty when not compared). */
static void
put_ratio(FILE *f, const struct cg_ratio *x)
{
	cg_csv_num(f, x->lo, 3);
	cg_csv_num(f, x->hi, 3);
	fprintf(f, ",%s", cg_word_name(x->word));
}

/* One comparison of comparisons.csv: regime, against, size, kind, the ratio. */
static void
comparison(FILE *f, const char *regime, const struct cg_row *w, const char *against,
	   const char *kind, const struct cg_ratio *x)
{
	if (isnan(x->v))
		return;
	cg_csv_str(f, regime);
	fputc(',', f);
	cg_csv_str(f, against);
	fputc(',', f);
	cg_csv_str(f, w->size);
	fprintf(f, ",%s", kind);
	cg_csv_num(f, x->v, 3);
	put_ratio(f, x);
	fprintf(f, ",%u,%u\n", x->reps_a, x->reps_b);
}

/* Every comparison the summary makes: each regime against each baseline, each alike
 * regime's as-specified regime against it (kind alike), then the campaign's questions. */
static int
comparisons_csv(const struct cg_run *r, const struct cg_row *rows, size_t nrows)
{
	const struct cg_campaign *c = r->c;
	const size_t per = c->allreduce ? c->nsizes : 1;
	const char *wire = NULL, *ideal = NULL;
	char p[PATH_MAX];
	FILE *f;

	for (unsigned g = 0; g < c->nreg; g++) {
		if (c->reg[g].baseline == 1)
			wire = c->reg[g].name;
		else if (c->reg[g].baseline == 2)
			ideal = c->reg[g].name;
	}
	snprintf(p, sizeof(p), "%s/comparisons.csv", r->out);
	if ((f = cg_out_open(r, p)) == NULL)
		return -1;
	fprintf(f, "regime,against,size,kind,ratio,ratio_lo,ratio_hi,word,repetitions,"
		   "against_repetitions\n");
	for (size_t n = 0; n < nrows; n++) {
		if (wire)
			comparison(f, rows[n].regime, &rows[n], wire, "wire", &rows[n].vs_wire);
		if (ideal)
			comparison(f, rows[n].regime, &rows[n], ideal, "ideal", &rows[n].vs_ideal);
	}
	for (size_t n = 0; n < nrows; n++)
		if (rows[n].alike_of[0])
			comparison(f, rows[n].alike_of, &rows[n], rows[n].regime, "alike",
				   &rows[n].vs_spec);
	for (unsigned k = 0; k < c->nquestions; k++)
		for (size_t s = 0; s < per && c->question[k].a * per + s < nrows; s++) {
			const struct cg_row *w = &rows[c->question[k].a * per + s];

			comparison(f, w->regime, w, c->reg[c->question[k].b].name, "question",
				   &w->q[k]);
		}
	return cg_out_close(r, f, p);
}

/* FILE: regime, repetition, then keys of each object in every run's array. */
static int
run_csv(const struct cg_run *r, json_t *runs, const char *file, const char *array,
	const char *const *keys)
{
	char p[PATH_MAX];
	json_t *run, *x;
	size_t i, k;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", r->out, file);
	if ((f = cg_out_open(r, p)) == NULL)
		return -1;
	fprintf(f, "regime,repetition");
	for (const char *const *key = keys; *key; key++)
		fprintf(f, ",%s", *key);
	fputc('\n', f);
	json_array_foreach(runs, i, run) json_array_foreach(json_object_get(run, array), k, x)
	{
		cg_csv_str(f, json_string_value(json_object_get(run, "regime")) ?: "");
		fprintf(f, ",%lld", json_integer_value(json_object_get(run, "repetition")));
		for (const char *const *key = keys; *key; key++) {
			json_t *v = json_object_get(x, *key);

			if (json_is_string(v)) {
				fputc(',', f);
				cg_csv_str(f, json_string_value(v));
			} else if (json_is_integer(v))
				fprintf(f, ",%lld", json_integer_value(v));
			else
				fputc(',', f); /* no such figure */
		}
		fputc('\n', f);
	}
	return cg_out_close(r, f, p);
}

static int
iterations_csv(const struct cg_run *r, json_t *runs)
{
	char p[PATH_MAX];
	json_t *run, *x;
	size_t i, k;
	FILE *f;

	snprintf(p, sizeof(p), "%s/iterations.csv", r->out);
	if ((f = cg_out_open(r, p)) == NULL)
		return -1;
	fprintf(f, "regime,repetition,iteration,size_bytes,index,time_us,start_ns\n");
	json_array_foreach(runs, i, run)
		json_array_foreach(json_object_get(run, "iterations"), k, x)
	{
		cg_csv_str(f, json_string_value(json_object_get(run, "regime")) ?: "");
		fprintf(f, ",%lld,%lld,%lld,%lld,%.3f,%lld\n",
			json_integer_value(json_object_get(run, "repetition")),
			json_integer_value(json_array_get(x, 0)),
			json_integer_value(json_array_get(x, 1)),
			json_integer_value(json_array_get(x, 2)),
			json_real_value(json_array_get(x, 3)),
			json_integer_value(json_array_get(x, 4)));
	}
	return cg_out_close(r, f, p);
}

/* summary.csv's header: its columns, in order (cg_summary_column() finds one). */
static const char summary_header[] =
	"regime,size,baseline,hop_us,ping_rtt_us,offered_gbps,fabric_drops,fabric_trims,"
	"ecn_marks,"
	"pause_frames,paused_ms,credit_stall_ms,p50_ms,p99_ms,max_ms,job_s,"
	"p50_over_wire,p99_over_wire,p50_over_ideal,p99_over_ideal,p50_lo_ms,p50_hi_ms,"
	"p99_lo_ms,p99_hi_ms,repetitions,rep_p50_min_ms,rep_p50_max_ms,"
	"p50_over_wire_lo,p50_over_wire_hi,vs_wire,p50_over_ideal_lo,p50_over_ideal_hi,"
	"vs_ideal,real_retrans,"
	"timeouts,loss_probes,stalls,stall_share,stall_share_lo,stall_share_hi,stall_at_ms,"
	"recovery_ms,stalls_timeout,stalls_retrans,stalls_drop,stalls_none,edge_lost,"
	"unexplained,late_p50_us,late_p99_us,"
	"late_max_us,late_worst_p99_us,late_worst_link,edge_wait_p50_us,edge_wait_p99_"
	"us,edge_wait_max_us,iterations,nic,nic_ce_consumed,nic_cnps,nic_rate_min_bps,"
	"nic_resent,nic_naks,nic_timeouts,nic_discarded,verdict,partial\n";

int
cg_summary_column(const char *name)
{
	size_t n = strlen(name);
	int col = 1;

	for (const char *p = summary_header; *p; col++) {
		const char *e = p + strcspn(p, ",\n");

		if ((size_t)(e - p) == n && strncmp(p, name, n) == 0)
			return col;
		p = *e ? e + 1 : e;
	}
	return -1;
}

static int
summary_csv(const struct cg_run *r, const struct cg_row *rows, size_t nrows)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/summary.csv", r->out);
	if ((f = cg_out_open(r, p)) == NULL)
		return -1;
	fputs(summary_header, f);
	for (size_t n = 0; n < nrows; n++) {
		const struct cg_row *w = &rows[n];

		/* a regime that did not run: its figures empty, its configuration kept */
		cg_csv_str(f, w->regime);
		fputc(',', f);
		cg_csv_str(f, w->size);
		fprintf(f, ",%s", w->baseline == 1 ? "wire" : w->baseline == 2 ? "ideal" : "");
		cg_csv_num(f, w->hop_us, 3);
		cg_csv_num(f, w->rtt_us, 1);
		cg_csv_num(f, w->offered_gbps, 3);
		/* the wire has no fabric: its fabric columns are empty */
		put_n(f, w, cg_fab(w, (double)w->drops));
		put_n(f, w, cg_fab(w, (double)w->trims));
		put_n(f, w, cg_fab(w, (double)w->marks));
		put_n(f, w, cg_fab(w, (double)w->pauses));
		cg_csv_num(f, w->runs ? cg_fab(w, w->paused_ms) : NAN, 3);
		cg_csv_num(f, w->runs ? cg_fab(w, w->stall_ms) : NAN, 3);
		cg_csv_num(f, w->p50, 3);
		cg_csv_num(f, w->p99, 3);
		cg_csv_num(f, w->max, 3);
		cg_csv_num(f, w->job_s, 3);
		cg_csv_num(f, w->p50 / w->wire_p50, 3);
		cg_csv_num(f, w->p99 / w->wire_p99, 3);
		cg_csv_num(f, w->p50 / w->ideal_p50, 3);
		cg_csv_num(f, w->p99 / w->ideal_p99, 3);
		cg_csv_num(f, w->p50_lo, 3);
		cg_csv_num(f, w->p50_hi, 3);
		cg_csv_num(f, w->p99_lo, 3);
		cg_csv_num(f, w->p99_hi, 3);
		put_n(f, w, (double)w->nrep);
		cg_csv_num(f, w->rep_p50_min, 3);
		cg_csv_num(f, w->rep_p50_max, 3);
		put_ratio(f, &w->vs_wire);
		put_ratio(f, &w->vs_ideal);
		put_n(f, w, (double)w->real_retrans);
		put_n(f, w, (double)w->timeouts);
		put_n(f, w, (double)w->probes);
		put_n(f, w, (double)w->stalls);
		cg_csv_num(f, w->stall_share, 4);
		cg_csv_num(f, w->stall_share_lo, 4);
		cg_csv_num(f, w->stall_share_hi, 4);
		cg_csv_num(f, w->stall_at_ms, 3);
		cg_csv_num(f, w->runs ? w->recovery_ms : NAN, 3);
		for (unsigned k = 0; k < CG_CAUSES; k++)
			put_n(f, w, (double)w->stall_cause[k]);
		put_n(f, w, (double)w->edge_lost);
		put_n(f, w, cg_fab(w, (double)w->unexplained));
		cg_csv_num(f, w->late_p50_us, 3);
		cg_csv_num(f, w->late_p99_us, 3);
		cg_csv_num(f, w->late_max_us, 3);
		cg_csv_num(f, w->late_worst_p99_us, 3);
		fputc(',', f);
		cg_csv_str(f, w->late_worst_link);
		cg_csv_num(f, w->wait_p50_us, 3);
		cg_csv_num(f, w->wait_p99_us, 3);
		cg_csv_num(f, w->wait_max_us, 3);
		put_n(f, w, (double)w->n);
		fputc(',', f);
		cg_csv_str(f, w->nic_model);
		put_n(f, w, cg_fab(w, (double)w->nic_ce));
		put_n(f, w, cg_fab(w, (double)w->nic_cnp));
		cg_csv_num(f, w->nic_rate_min_bps, 0);
		put_n(f, w, cg_fab(w, (double)w->nic_resent));
		put_n(f, w, cg_fab(w, (double)w->nic_naks));
		put_n(f, w, cg_fab(w, (double)w->nic_timeouts));
		put_n(f, w, cg_fab(w, (double)w->nic_discards));
		put_str(f, w->verdict);
		fputc(',', f);
		cg_csv_str(f, w->partial);
		fputc('\n', f);
	}
	return cg_out_close(r, f, p);
}

/* A projected figure and its interval: three columns. */
static void
put3(FILE *f, double v, double lo, double hi)
{
	cg_csv_num(f, v, 6);
	cg_csv_num(f, lo, 6);
	cg_csv_num(f, hi, 6);
}

/*
 * projection.csv: the all-reduce at cluster scale (cg_scale.c), a row a series, size and
 * rank count: projected (kind "projected"), then each check, predicted at its ranks
 * (kind "predicted", the regime measured there) beside what was measured there (kind
 * "measured"; its p_stall is the stall share, its mean_ms empty).
 */
static int
projection_csv(const struct cg_run *r, const struct cg_row *rows, size_t nrows)
{
	struct cg_proj *pj = calloc(CG_MAX_REGIMES * CG_MAX_SIZES, sizeof(*pj));
	size_t np = pj ? cg_project(r->c, rows, nrows, pj) : 0;
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/projection.csv", r->out);
	if (pj == NULL || (f = cg_out_open(r, p)) == NULL) {
		free(pj);
		return -1;
	}
	fprintf(f, "series,size,kind,regime,ranks,packets,p_stall,p_stall_lo,p_stall_hi,"
		   "no_stall_ms,no_stall_lo,no_stall_hi,mean_ms,mean_lo,mean_hi,p99_ms,p99_lo,"
		   "p99_hi,waiting_share,waiting_lo,waiting_hi,gpu_hours,gpu_hours_lo,"
		   "gpu_hours_hi,stall_gpu_hours,stalls_per_packet,stalls_per_packet_lo,"
		   "stalls_per_packet_hi,stall_cost_ms\n");
	for (size_t i = 0; i < np; i++)
		for (unsigned k = 0; k < pj[i].nat + 2 * pj[i].ncheck; k++) {
			const struct cg_proj_check *x =
				k >= pj[i].nat ? &pj[i].check[(k - pj[i].nat) / 2] : NULL;
			const struct cg_proj_at *a = x ? &x->pred : &pj[i].at[k];
			int measured = x && (k - pj[i].nat) % 2;

			cg_csv_str(f, pj[i].series);
			fprintf(f, ",%s,%s,", pj[i].size,
				!x	   ? "projected"
				: measured ? "measured"
					   : "predicted");
			cg_csv_str(f, x ? r->c->reg[x->reg].name : "");
			fprintf(f, ",%u,%.0f", a->n, a->packets);
			if (measured) {
				put3(f, x->stall, x->stall_lo, x->stall_hi);
				put3(f, x->p50, x->p50_lo, x->p50_hi);
				put3(f, NAN, NAN, NAN);
				put3(f, x->p99, x->p99_lo, x->p99_hi);
				fprintf(f, ",,,,,,,,,,,");
			} else {
				put3(f, a->stall, a->stall_lo, a->stall_hi);
				put3(f, a->base, a->base_lo, a->base_hi);
				put3(f, a->mean, a->mean_lo, a->mean_hi);
				put3(f, a->p99, a->p99_lo, a->p99_hi);
				put3(f, a->wait, a->wait_lo, a->wait_hi);
				put3(f, a->gpuh, a->gpuh_lo, a->gpuh_hi);
				cg_csv_num(f, a->stall_gpuh, 6);
				fprintf(f, ",%.6g,%.6g,%.6g", pj[i].p, pj[i].p_lo, pj[i].p_hi);
				cg_csv_num(f, pj[i].cost_ms, 3);
			}
			fputc('\n', f);
		}
	free(pj);
	return cg_out_close(r, f, p);
}

int
cg_write_csvs(const struct cg_run *r, json_t *runs, const struct cg_row *rows, size_t nrows)
{
	int rc = iterations_csv(r, runs);

	rc |= run_csv(r, runs, "links.csv", "links",
		      (const char *const[]){"link", "drops", "trims", "drop_tail_pkts",
					    "ecn_marked", "q_bytes_peak", "held_ns", "late_p99_ns",
					    NULL});
	rc |= run_csv(r, runs, "tcp.csv", "tcp",
		      (const char *const[]){"host", "retrans", "real_retrans", "timeouts",
					    "loss_probes", "ce_received", NULL});
	rc |= run_csv(r, runs, "ports.csv", "ports",
		      (const char *const[]){"port", "host", "host_tx", "host_tx_dropped", "rx_pkts",
					    "rx_lost", "in_unexplained", "tx_pkts", "host_rx",
					    "host_rx_dropped", "tx_lost", "out_unexplained",
					    "edge_wait_p99_ns", NULL});
	rc |= summary_csv(r, rows, nrows);
	rc |= comparisons_csv(r, rows, nrows);
	if (r->c->allreduce)
		rc |= projection_csv(r, rows, nrows);
	return rc ? -1 : 0;
}
