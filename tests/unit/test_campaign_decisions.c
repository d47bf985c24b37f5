/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a campaign's summary decides (control/campaign/cg_summary.c, cg_text.c, cg_csv.c,
 * cg_html.c) on synthetic runs: every row has its intervals, a p99 only from enough
 * iterations (else the maximum with n), the spread of its repetitions; each regime's p50
 * over each baseline's ends in a word; the campaign's question is answered in the
 * summary's last lines; and every figure is in campaign.json's summary, summary.csv,
 * comparisons.csv and report.html.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_fixture.h"

static struct cg_campaign camp;
static struct cg_row rows[CG_MAX_REGIMES * CG_MAX_SIZES];
static struct cg_run run;
static char dir[64];

static void
setup(void)
{
	cg_fixture_campaign(&camp, "eth");
	camp.reps = 3;
	camp.iters = 40;
	camp.seed = 1;
	memset(rows, 0, sizeof(rows));
	memset(&run, 0, sizeof(run));
	run.c = &camp;
	cr_assert_eq(cg_fixture_out_open(&run, dir, sizeof(dir), "dec"), 0);
}

static void
teardown(void)
{
	cr_assert_eq(cg_fixture_out_close(&run, dir), 0);
}

TestSuite(decisions, .init = setup, .fini = teardown);

/* Three repetitions of each regime, interleaved as the runner runs them: wire and
 * ideal about 10 ms, eth about 20 (its repetitions 19, 20, 21). */
static json_t *
three_reps(unsigned n)
{
	json_t *runs = json_array();

	for (unsigned rep = 1; rep <= 3; rep++) {
		json_array_append_new(runs, cg_fixture_rep("wire", rep, n, 10 + 0.1 * rep));
		json_array_append_new(runs, cg_fixture_rep("ideal", rep, n, 10.2 - 0.1 * rep));
		json_array_append_new(runs, cg_fixture_rep("eth", rep, n, 18 + rep));
	}
	return runs;
}

static char *term;
static size_t term_len;

/* The terminal's summary of rows (n of them), in a buffer the caller frees. */
static char *
terminal(size_t n)
{
	FILE *f = open_memstream(&term, &term_len);

	cg_print_summary(f, &camp, run.capacity, rows, n);
	fclose(f);
	return term;
}

Test(decisions, intervals_and_spread_of_repetitions)
{
	json_t *runs = three_reps(40);
	struct cg_row again[CG_MAX_REGIMES * CG_MAX_SIZES];
	size_t n = cg_summarize(&camp, runs, rows);
	const struct cg_row *e = &rows[2];

	cr_assert_eq(n, 3);
	cr_assert_eq(e->n, 120);
	cr_assert_eq(e->nrep, 3);
	/* each repetition's own p50 (nearest rank of 40 evenly spread values about 19, 20,
	 * 21: the 20th, just under each) */
	cr_assert(e->rep_p50_min > 18.9 && e->rep_p50_min < 19 && e->rep_p50_max > 20.9 &&
			  e->rep_p50_max < 21,
		  "%g-%g", e->rep_p50_min, e->rep_p50_max);
	cr_assert(e->p50_lo <= e->p50 && e->p50 <= e->p50_hi, "%g [%g, %g]", e->p50, e->p50_lo,
		  e->p50_hi);
	/* the runs drift by 1 ms each: the interval spans most of it */
	cr_assert(e->p50_hi - e->p50_lo > 1, "[%g, %g]", e->p50_lo, e->p50_hi);
	/* deterministic: the same runs, the same figures */
	memset(again, 0, sizeof(again));
	cg_summarize(&camp, runs, again);
	cr_assert(again[2].p50_lo == e->p50_lo && again[2].p50_hi == e->p50_hi &&
			  again[2].vs_wire.lo == e->vs_wire.lo,
		  "a second summary differs");
	/* another seed, other resamples: the interval moves a little, not the point */
	camp.seed = 2;
	cg_summarize(&camp, runs, again);
	cr_assert(again[2].p50 == e->p50);
	json_decref(runs);
}

/* Below CG_P99_MIN_N iterations no p99: the maximum, said so, with n; from it, the p99
 * and its interval. */
Test(decisions, p99_only_from_enough_iterations)
{
	json_t *runs = json_array();
	char *out;
	size_t n;

	json_array_append_new(runs, cg_fixture_rep("wire", 1, CG_P99_MIN_N - 1, 10));
	json_array_append_new(runs, cg_fixture_rep("ideal", 1, CG_P99_MIN_N, 10));
	n = cg_summarize(&camp, runs, rows);
	cr_assert(isnan(rows[0].p99) && isnan(rows[0].p99_lo), "%g", rows[0].p99);
	cr_assert_float_eq(rows[0].max, 11, 1e-9);
	cr_assert_not(isnan(rows[1].p99));
	cr_assert(rows[1].p99_lo <= rows[1].p99 && rows[1].p99 <= rows[1].p99_hi);
	out = terminal(n);
	cr_assert(strstr(out, "max 11.000 (n=99)"), "%s", out);
	{
		const char *l = strstr(out, "\nideal (baseline)");

		cr_assert_not_null(l, "%s", out);
		cr_assert_null(strstr(l, "max "), "%.200s", l);
	}
	free(out);
	json_decref(runs);
}

Test(decisions, words_against_the_baselines)
{
	json_t *runs = three_reps(40);
	char *out;
	size_t n = cg_summarize(&camp, runs, rows);

	/* eth about 2x the wire and the ideal: slower, the interval about 2 */
	cr_assert_eq(rows[2].vs_wire.word, CG_SLOWER, "[%g, %g]", rows[2].vs_wire.lo,
		     rows[2].vs_wire.hi);
	cr_assert(rows[2].vs_wire.lo > 1.6 && rows[2].vs_wire.hi < 2.4, "[%g, %g]",
		  rows[2].vs_wire.lo, rows[2].vs_wire.hi);
	cr_assert_eq(rows[2].vs_ideal.word, CG_SLOWER);
	/* wire and ideal, about the same: no difference resolved, both ways */
	cr_assert_eq(rows[1].vs_wire.word, CG_UNRESOLVED, "[%g, %g]", rows[1].vs_wire.lo,
		     rows[1].vs_wire.hi);
	cr_assert_eq(rows[0].vs_ideal.word, CG_UNRESOLVED);
	/* a baseline against itself: nothing */
	cr_assert(isnan(rows[0].vs_wire.v) && rows[0].vs_wire.word == CG_WORD_NONE);
	cr_assert(isnan(rows[1].vs_ideal.v));
	out = terminal(n);
	cr_assert(strstr(out, "] slower"), "%s", out);
	cr_assert(strstr(out, "] no difference resolved"), "%s", out);
	cr_assert_null(strstr(out, "a word needs"), "three repetitions: %s", out);
	free(out);
	json_decref(runs);
}

/* One repetition: the interval holds the iterations' spread only; no word, and the
 * summary says why. */
Test(decisions, one_repetition_gives_no_word)
{
	json_t *runs = json_array();
	char *out;
	size_t n;

	camp.reps = 1;
	json_array_append_new(runs, cg_fixture_rep("wire", 1, 40, 10));
	json_array_append_new(runs, cg_fixture_rep("ideal", 1, 40, 10));
	json_array_append_new(runs, cg_fixture_rep("eth", 1, 40, 20));
	n = cg_summarize(&camp, runs, rows);
	cr_assert(rows[2].vs_wire.hi < 2.2 && rows[2].vs_wire.lo > 1.8, "[%g, %g]",
		  rows[2].vs_wire.lo, rows[2].vs_wire.hi);
	cr_assert_eq(rows[2].vs_wire.word, CG_UNRESOLVED);
	out = terminal(n);
	cr_assert(strstr(out, "a word needs 2 repetitions of each side"), "%s", out);
	free(out);
	json_decref(runs);
}

/* question: the summary's last lines answer it, a sentence a size. */
Test(decisions, question_answered_in_the_last_lines)
{
	json_t *runs = three_reps(40);
	char *out, *last;
	size_t n;

	camp.nquestions = 2;
	camp.question[0].a = 2; /* eth against ideal */
	camp.question[0].b = 1;
	camp.question[1].a = 1; /* ideal against eth */
	camp.question[1].b = 2;
	n = cg_summarize(&camp, runs, rows);
	cr_assert_eq(rows[2].q[0].word, CG_SLOWER);
	cr_assert_eq(rows[1].q[1].word, CG_FASTER);
	cr_assert_float_eq(rows[1].q[1].v, 1 / rows[2].q[0].v, 1e-9);
	out = terminal(n);
	last = strstr(out, "\nquestion 1: eth against ideal\n");
	cr_assert_not_null(last, "%s", out);
	{
		static const char want[] = "\nquestion 1: eth against ideal\n  1KiB: eth is slower "
					   "than ideal (p50 ratio 2.00 [";

		cr_assert(strncmp(last, want, strlen(want)) == 0, "%s", last);
	}
	cr_assert(strstr(last, "\nquestion 2: ideal against eth\n  1KiB: ideal is faster than eth "
			       "(p50 ratio 0."),
		  "%s", last);
	/* nothing after the answers */
	cr_assert_eq(strchr(strstr(last, "ideal is faster than eth"), '\n')[1], '\0', "%s", last);
	free(out);
	json_decref(runs);
}

/* Every figure in campaign.json's summary, summary.csv, comparisons.csv, report.html. */
Test(decisions, every_figure_in_every_output)
{
	json_t *runs = three_reps(30), *sj, *row;
	char p[160], *csv, *html, buf[512];
	size_t n;

	camp.nquestions = 1;
	camp.question[0].a = 2;
	camp.question[0].b = 1;
	n = cg_summarize(&camp, runs, rows);
	sj = cg_summary_json(&camp, rows, n);
	cr_assert_eq(
		json_integer_value(json_object_get(json_object_get(sj, "method"), "resamples")),
		CG_RESAMPLES);
	row = json_array_get(json_object_get(sj, "rows"), 2);
	cr_assert_str_eq(json_string_value(json_object_get(row, "regime")), "eth");
	cr_assert_float_eq(json_real_value(json_array_get(json_object_get(row, "p50_ci_ms"), 0)),
			   rows[2].p50_lo, 1e-12);
	cr_assert(json_is_null(json_object_get(row, "p99_ms")), "90 iterations: no p99");
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(row, "vs_wire"), "word")),
		"slower");
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(sj, "questions"), 0), "answer")),
			 cg_answer(&camp, 0, &rows[2], buf, sizeof(buf)));
	json_decref(sj);

	cr_assert_eq(cg_write_csvs(&run, runs, rows, n), 0);
	snprintf(p, sizeof(p), "%s/summary.csv", dir);
	csv = cg_fixture_slurp(p);
	cr_assert(strstr(csv, "p50_lo_ms,p50_hi_ms"), "%.400s", csv);
	cr_assert(strstr(csv, ",vs_wire,"), "%.400s", csv);
	snprintf(buf, sizeof(buf), ",%.3f,%.3f,", rows[2].p50_lo, rows[2].p50_hi);
	cr_assert(strstr(csv, buf), "%s not in %s", buf, csv);
	cr_assert(strstr(csv, ",slower,"), "%s", csv);
	snprintf(p, sizeof(p), "%s/comparisons.csv", dir);
	csv = cg_fixture_slurp(p);
	cr_assert(strstr(csv, "regime,against,size,kind,ratio,ratio_lo,ratio_hi,word,"
			      "repetitions,against_repetitions\n"),
		  "%s", csv);
	snprintf(buf, sizeof(buf), "eth,ideal,1KiB,question,%.3f,%.3f,%.3f,slower,3,3\n",
		 rows[2].q[0].v, rows[2].q[0].lo, rows[2].q[0].hi);
	cr_assert(strstr(csv, buf), "%s not in %s", buf, csv);
	cr_assert(strstr(csv, "eth,wire,1KiB,wire,"), "%s", csv);
	cr_assert(strstr(csv, "ideal,wire,1KiB,wire,"), "%s", csv);

	cr_assert_eq(cg_html(&run, runs, rows, n, "complete"), 0);
	snprintf(p, sizeof(p), "%s/report.html", dir);
	html = cg_fixture_slurp(p);
	snprintf(buf, sizeof(buf), "%.3f [%.3f, %.3f]", rows[2].p50, rows[2].p50_lo,
		 rows[2].p50_hi);
	cr_assert(strstr(html, buf), "%s not in the report", buf);
	cr_assert(strstr(html, "max "), "below 100 iterations the maximum, said so");
	cr_assert(strstr(html, "eth is slower than ideal"), "no answer in the report");
	json_decref(runs);
}

/* The runs interleave the repetitions: A B C A B C, never A A B B C C. */
Test(decisions, repetitions_interleaved)
{
	static const unsigned want[][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1},
					   {2, 1}, {0, 2}, {1, 2}, {2, 2}};

	for (unsigned k = 0; k < camp.nreg * camp.reps; k++) {
		unsigned g, rep;

		cg_run_order(&camp, k, &g, &rep);
		cr_assert(g == want[k][0] && rep == want[k][1], "run %u: regime %u, repetition %u",
			  k, g, rep);
	}
	/* one regime: its repetitions in order */
	camp.nreg = 1;
	for (unsigned k = 0; k < camp.reps; k++) {
		unsigned g, rep;

		cg_run_order(&camp, k, &g, &rep);
		cr_assert(g == 0 && rep == k);
	}
}

/* A stall is the transport's and the regime's own: 3/4 of TCP's 200 ms minimum RTO above
 * the median of a tight distribution; far out of a wide one (p75 + 3 x IQR), where 150 ms
 * above the median is the regime's ordinary spread. */
Test(decisions, stall_threshold_from_recovery_and_distribution)
{
	static double v[100];
	double at;

	for (int i = 0; i < 100; i++)
		v[i] = 10 + 0.01 * i; /* sorted, p50 10.49, IQR 0.5 */
	at = cg_stall_threshold(v, 100, v[49], CG_TCP_RTO_MIN_MS);
	cr_assert_float_eq(at, 10.49 + 150, 1e-9, "%g", at);
	/* credit under an incast: 4 to 5 s an iteration; the old 150 ms above the median
	 * called 36 of these 100 stalls */
	for (int i = 0; i < 100; i++)
		v[i] = 4000 + 10.0 * i; /* p50 4490 */
	at = cg_stall_threshold(v, 100, v[49], CG_TCP_RTO_MIN_MS);
	/* the fence of the 64 ordinary iterations, below 4490 + 150 ms: p25 4150, p75 4470 */
	cr_assert_float_eq(at, 4470 + 3 * 320, 1e-9, "%g", at);
	cr_assert_gt(at, v[99], "no iteration of an even spread is a stall");
}

/* Frequent stalls do not raise their own fence: a lossy row in which a quarter of the
 * iterations waited out an RTO (scale-check's eth-8 at 1 % loss, as it ran, ms, sorted:
 * p50 71 ms, 24 iterations at 237-339 ms; its quartiles 58 and 144 ms put Tukey's fence
 * at 399 ms, above them all, and no stall was counted). The fence is the ordinary
 * iterations' (those below p50 + 3/4 R). */
Test(decisions, frequent_stalls_do_not_hide_behind_their_fence)
{
	static const double v[100] = {
		37.3,  39.0,  40.8,  41.7,  45.5,  46.5,  48.5,	 48.8,	49.2,  49.7,  50.1,  52.3,
		53.7,  54.3,  54.4,  54.6,  55.7,  55.9,  56.0,	 56.0,	56.8,  57.5,  57.7,  57.9,
		58.0,  58.3,  58.4,  58.8,  59.3,  59.9,  60.5,	 60.6,	62.8,  62.8,  63.0,  63.3,
		63.6,  64.2,  64.6,  64.6,  65.1,  65.4,  67.1,	 67.5,	67.8,  68.6,  69.0,  70.3,
		70.3,  70.3,  71.0,  71.4,  71.4,  73.3,  75.0,	 75.6,	79.6,  80.0,  80.5,  80.9,
		82.9,  83.1,  84.3,  84.6,  84.7,  87.9,  88.3,	 94.4,	101.7, 104.0, 110.0, 116.4,
		117.1, 121.0, 143.4, 143.5, 236.8, 243.3, 243.7, 248.7, 250.6, 251.3, 253.3, 255.8,
		256.1, 258.3, 260.3, 261.1, 261.5, 262.8, 263.5, 270.2, 277.3, 282.5, 299.4, 302.5,
		308.5, 322.9, 325.1, 338.6};
	double at = cg_stall_threshold(v, 100, v[49], CG_TCP_RTO_MIN_MS);
	int stalls = 0;

	for (int i = 0; i < 100; i++)
		stalls += v[i] >= at;
	cr_assert_eq(stalls, 24, "threshold %g ms: %d stalls", at, stalls);
}

Test(decisions, recovery_time_of_the_transport)
{
	struct cg_regime g = {.kind = CG_WIRE};
	const char *what;

	cr_assert_float_eq(cg_regime_recovery(&g, &what), 200, 1e-9);
	cr_assert_str_eq(what, "TCP's minimum RTO");
	g = (struct cg_regime){.kind = CG_DATAPLANE, .fabric = FE_FABRIC_DEFAULT};
	cr_assert_float_eq(cg_regime_recovery(&g, &what), 200, 1e-9, "model tcp: the hosts'");
	g.fabric.nic.model = FE_NIC_ROCE;
	cr_assert_float_eq(cg_regime_recovery(&g, &what), 67.108864, 1e-9);
	cr_assert_str_eq(what, "the NICs' timeout");
	/* a NIC slower than TCP: TCP's RTO fires first */
	g.fabric.nic.model = FE_NIC_IB;
	g.fabric.nic.timeout_ns = 500000000;
	cr_assert_float_eq(cg_regime_recovery(&g, &what), 200, 1e-9);
	cr_assert_str_eq(what, "TCP's minimum RTO");
	g.fabric.nic.model = FE_NIC_HOST;
	g.fabric.nic.timeout_ns = 1000000;
	cr_assert_float_eq(cg_regime_recovery(&g, &what), 200, 1e-9, "host: the hosts' own");
}

/* One iteration of 100 waits out an RTO: one stall, 1 % of the iterations, its interval
 * about it; every output says it, with the threshold and the recovery time. */
Test(decisions, stalls_counted_with_their_share)
{
	json_t *runs = json_array(), *r, *sj, *row;
	char *out, p[160], *csv;
	size_t n;

	camp.reps = 2;
	for (unsigned rep = 1; rep <= 2; rep++) {
		json_array_append_new(runs, cg_fixture_rep("wire", rep, 50, 10));
		json_array_append_new(runs, cg_fixture_rep("ideal", rep, 50, 10));
		r = cg_fixture_rep("eth", rep, 50, 10);
		if (rep == 2) /* its 7th iteration: 210 ms more */
			json_array_set_new(json_object_get(r, "iterations"), 6,
					   json_pack("[i, I, i, f, I]", 7, (json_int_t)1024, 7,
						     220000.0, (json_int_t)6));
		json_array_append_new(runs, r);
	}
	n = cg_summarize(&camp, runs, rows);
	cr_assert_eq(rows[2].stalls, 1);
	cr_assert_float_eq(rows[2].stall_share, 0.01, 1e-12);
	cr_assert(rows[2].stall_share_lo <= 0.01 && rows[2].stall_share_hi >= 0.01 &&
			  rows[2].stall_share_hi <= 0.05,
		  "[%g, %g]", rows[2].stall_share_lo, rows[2].stall_share_hi);
	cr_assert_eq(rows[0].stalls, 0);
	cr_assert(rows[0].stall_share_lo == 0 && rows[0].stall_share_hi == 0);
	out = terminal(n);
	cr_assert(strstr(out, "     1 (1.0% ["), "%s", out);
	cr_assert(strstr(out, "recovery: TCP's minimum RTO 200.0 ms (wire, ideal, eth)"), "%s",
		  out);
	free(out);
	sj = cg_summary_json(&camp, rows, n);
	row = json_array_get(json_object_get(sj, "rows"), 2);
	cr_assert_float_eq(json_real_value(json_object_get(row, "stall_share")), 0.01, 1e-12);
	cr_assert_float_eq(json_real_value(json_object_get(row, "recovery_ms")), 200, 1e-12);
	cr_assert_float_eq(json_real_value(json_object_get(row, "stall_at_ms")),
			   rows[2].stall_at_ms, 1e-12);
	json_decref(sj);
	cr_assert_eq(cg_write_csvs(&run, runs, rows, n), 0);
	snprintf(p, sizeof(p), "%s/summary.csv", dir);
	csv = cg_fixture_slurp(p);
	cr_assert(strstr(csv, ",stalls,stall_share,stall_share_lo,stall_share_hi,stall_at_ms,"
			      "recovery_ms,"),
		  "%.500s", csv);
	cr_assert(strstr(csv, ",1,0.0100,"), "%s", csv);
	json_decref(runs);
}

/*
 * What a stall is put down to: the events a run read beside its job (cg_events.c), in the
 * stalled iteration's window. Three stalls in eth's runs, 1 s apart: in the first's window
 * a drop then a TCP timeout (timeout, the first cause in order), in the second's a drop
 * alone, in the third's nothing (the drop before its start is the second's); the
 * ordinary iterations are not looked at. Every output says it.
 */
Test(decisions, stall_causes_from_the_events)
{
	const json_int_t s0 = 10000000000LL, sec = 1000000000LL, ms = 1000000;
	json_t *runs = json_array(), *r, *it, *ev, *sj, *row;
	char *out, p[160], *csv;
	size_t n;

	camp.reps = 1;
	json_array_append_new(runs, cg_fixture_rep("wire", 1, 50, 10));
	json_array_append_new(runs, cg_fixture_rep("ideal", 1, 50, 10));
	r = cg_fixture_rep("eth", 1, 50, 10);
	it = json_object_get(r, "iterations");
	for (unsigned k = 0; k < 3; k++) /* iterations 11, 21, 31: 220 ms, at s0 + k s */
		json_array_set_new(it, 10 + 10 * k,
				   json_pack("[i, I, i, f, I]", 11 + 10 * k, (json_int_t)1024,
					     11 + 10 * k, 220000.0, s0 + k * sec));
	/* [t_ns, drops, retrans, timeouts, nic_timeouts], counted from the first row */
	ev = json_pack("[[I, i, i, i, i], [I, i, i, i, i], [I, i, i, i, i], [I, i, i, i, i], "
		       "[I, i, i, i, i]]",
		       s0 - sec, 0, 0, 0, 0, s0 + 50 * ms, 1, 0, 0, 0, s0 + 150 * ms, 1, 1, 1, 0,
		       s0 + sec + 100 * ms, 2, 1, 1, 0, s0 + 2 * sec - 500 * ms, 3, 1, 1, 0);
	json_object_set_new(r, "events", ev);
	json_array_append_new(runs, r);
	n = cg_summarize(&camp, runs, rows);
	cr_assert_eq(rows[2].stalls, 3);
	cr_assert_eq(rows[2].stall_cause[CG_CAUSE_TIMEOUT], 1);
	cr_assert_eq(rows[2].stall_cause[CG_CAUSE_RETRANS], 0);
	cr_assert_eq(rows[2].stall_cause[CG_CAUSE_DROP], 1);
	cr_assert_eq(rows[2].stall_cause[CG_CAUSE_NONE], 1);
	cr_assert_eq(rows[1].stalls, 0);
	out = terminal(n);
	cr_assert(strstr(out, "stalls seen with: eth 1KiB: 3 (1 timeout, 1 drop, 1 none seen)"),
		  "%s", out);
	free(out);
	sj = cg_summary_json(&camp, rows, n);
	row = json_array_get(json_object_get(sj, "rows"), 2);
	cr_assert_eq(json_integer_value(
			     json_object_get(json_object_get(row, "stall_causes"), "timeout")),
		     1);
	cr_assert_eq(json_integer_value(
			     json_object_get(json_object_get(row, "stall_causes"), "none seen")),
		     1);
	json_decref(sj);
	cr_assert_eq(cg_write_csvs(&run, runs, rows, n), 0);
	snprintf(p, sizeof(p), "%s/summary.csv", dir);
	csv = cg_fixture_slurp(p);
	cr_assert(strstr(csv, ",recovery_ms,stalls_timeout,stalls_retrans,stalls_drop,"
			      "stalls_none,"),
		  "%.500s", csv);
	cr_assert(strstr(csv, ",200.000,1,0,1,1,"), "%s", csv);
	json_decref(runs);
}

/* The events rows alone: from the last read at or before the window's start to the first
 * at or after its end. Reads at 1000, 2000, 3000 and 4000 ns: a drop read at 2000, a
 * retransmission at 4000. */
Test(decisions, stall_cause_window)
{
	json_t *ev =
		json_pack("[[i, i, i, i, i], [i, i, i, i, i], [i, i, i, i, i], "
			  "[i, i, i, i, i]]",
			  1000, 0, 0, 0, 0, 2000, 1, 0, 0, 0, 3000, 1, 0, 0, 0, 4000, 1, 2, 0, 0);

	cr_assert_eq(cg_stall_cause(ev, 1500, 1900), CG_CAUSE_DROP, "read at the window's end");
	cr_assert_eq(cg_stall_cause(ev, 1000, 2000), CG_CAUSE_DROP);
	cr_assert_eq(cg_stall_cause(ev, 2000, 3000), CG_CAUSE_NONE, "the drop was before");
	cr_assert_eq(cg_stall_cause(ev, 2500, 3500), CG_CAUSE_RETRANS, "read after the end");
	cr_assert_eq(cg_stall_cause(ev, 2000, 2900), CG_CAUSE_NONE);
	cr_assert_eq(cg_stall_cause(ev, 0, 500), CG_CAUSE_NONE, "before the first read");
	cr_assert_eq(cg_stall_cause(ev, 3500, 9000), CG_CAUSE_RETRANS, "past the last read");
	json_decref(ev);
	ev = json_array();
	cr_assert_eq(cg_stall_cause(ev, 0, 500), CG_CAUSE_NONE, "no rows");
	json_decref(ev);
}

/* A run's summary as campaign.json has it: one row, one question. */
static json_t *
agree_doc(double p50, double lo, double hi, const char *wire_word, const char *q_word)
{
	return json_pack("{s:{s:[{s:s, s:s, s:f, s:[f, f], s:{s:f, s:[f, f], s:s}, s:n}], "
			 "s:[{s:s, s:s, s:s, s:{s:f, s:[f, f], s:s}}]}}",
			 "summary", "rows", "regime", "eth", "size", "1MiB", "p50_ms", p50,
			 "p50_ci_ms", lo, hi, "vs_wire", "ratio", 2.0, "ci", 1.5, 2.5, "word",
			 wire_word, "vs_ideal", "questions", "regime", "eth", "against", "ib",
			 "size", "1MiB", "comparison", "ratio", 1.1, "ci", 0.9, 1.3, "word",
			 q_word);
}

/*
 * Two runs agree where a row's p50 intervals overlap and a comparison word is the same
 * (fabemuctl campaign agree): touching intervals overlap, disjoint ones do not; a word
 * that changed is counted and said.
 */
Test(decisions, two_runs_agree_or_not)
{
	static const struct {
		double lo, hi;
		const char *q;
		unsigned rows_agree, words_held;
		const char *said;
	} cases[] = {
		{9.5, 10.5, "slower", 1, 2, NULL},
		{11.0, 12.0, "slower", 1, 2, NULL}, /* [9, 11] and [11, 12]: they touch */
		{11.5, 12.0, "slower", 0, 2, "no: the intervals do not overlap"},
		{9.5, 10.5, "no difference resolved", 1, 1,
		 "changed: question eth against ib, 1MiB: slower (1.10 [0.90, 1.30]), then no "
		 "difference resolved"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *a = agree_doc(10, 9, 11, "slower", "slower");
		json_t *b = agree_doc((cases[i].lo + cases[i].hi) / 2, cases[i].lo, cases[i].hi,
				      "slower", cases[i].q);
		struct cg_agreement g;
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		cr_assert_not_null(f);
		cg_agree(f, a, b, &g);
		fclose(f);
		cr_expect_eq(g.rows, 1, "case %zu", i);
		cr_expect_eq(g.rows_agree, cases[i].rows_agree, "case %zu: %s", i, out);
		cr_expect_eq(g.words, 2, "case %zu: %s", i, out);
		cr_expect_eq(g.words_held, cases[i].words_held, "case %zu: %s", i, out);
		if (cases[i].said)
			cr_expect(strstr(out, cases[i].said) != NULL, "case %zu: %s", i, out);
		free(out);
		json_decref(a);
		json_decref(b);
	}
}
