/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The all-reduce at cluster scale (control/campaign/cg_scale.c) on synthetic data with
 * known answers: a ring's packet count, the exact Poisson interval, a binomial's
 * quantile, the fit of stalls a packet and of the ring's time to rows measured at 2 and 4
 * ranks, the prediction at 8 beside a row measured there, and every output (terminal,
 * campaign.json, projection.csv, report.html) printing it; the file's projection: and
 * ranks:.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_fixture.h"

static struct cg_campaign camp;
static struct cg_row rows[CG_MAX_REGIMES * CG_MAX_SIZES];
static struct cg_proj pj[CG_MAX_REGIMES * CG_MAX_SIZES];
static struct cg_run run;
static char dir[64];

/* the ring's time without a stall: a step 0.5 ms + 1e-4 ms a byte, 1 KiB a rank */
#define A_MS	 0.5
#define B_MS	 1e-4
#define STALL_MS 300.0

static double
ring_ms(unsigned n)
{
	return 2.0 * (n - 1) * A_MS + 2.0 * (n - 1) / n * 1024 * B_MS;
}

static void
setup(void)
{
	cg_fixture_campaign(&camp, "lossy-2");
	camp.hosts = 8;
	camp.iters = 1000;
	camp.reps = 1;
	camp.seed = 1;
	camp.nreg = 5;
	snprintf(camp.reg[3].name, sizeof(camp.reg[3].name), "lossy-4");
	snprintf(camp.reg[4].name, sizeof(camp.reg[4].name), "lossy-8");
	for (unsigned g = 0; g < camp.nreg; g++)
		camp.reg[g].edge.mtu = 1500;
	camp.reg[2].ranks = 2;
	camp.reg[3].ranks = 4;
	camp.reg[4].ranks = 8;
	memset(rows, 0, sizeof(rows));
	memset(&run, 0, sizeof(run));
	run.c = &camp;
	cr_assert_eq(cg_fixture_out_open(&run, dir, sizeof(dir), "scale"), 0);
}

static void
teardown(void)
{
	cr_assert_eq(cg_fixture_out_close(&run, dir), 0);
}

TestSuite(scale, .init = setup, .fini = teardown);

/* m iterations of 1 KiB of regime g, each ms, but the first k STALL_MS longer. */
static json_t *
a_run(unsigned g, unsigned m, unsigned k, double ms, double ping_us)
{
	json_t *it = json_array(), *r;

	for (unsigned i = 0; i < m; i++)
		json_array_append_new(it, json_pack("[i, I, i, f, I]", g, (json_int_t)1024, i + 1,
						    (ms + (i < k ? STALL_MS : 0)) * 1000,
						    (json_int_t)i));
	r = cg_fixture_run(camp.reg[g].name, it, ping_us);
	json_object_set_new(r, "reasons", json_array());
	json_object_set_new(r, "not_checked", json_array());
	return r;
}

/* the stalled iterations m runs at n ranks would expect, at p stalls a packet */
static double
expect(double p, unsigned n, unsigned m)
{
	return m * -expm1(cg_ring_packets(n, 1024, 1448) * log1p(-p));
}

Test(scale, ring_packets)
{
	/* 1 MiB over 4: chunks of 256 KiB, 182 packets of 1448 B; 4 ranks; 6 steps */
	cr_assert_eq(cg_proj_mss(1500), 1448);
	cr_assert_float_eq(cg_ring_step_packets(4, 1 << 20, 1448), 4 * 182.0, 1e-9);
	cr_assert_float_eq(cg_ring_packets(4, 1 << 20, 1448), 6 * 4 * 182.0, 1e-9);
	/* 64 KiB over 16384: 4-byte chunks, still a packet each */
	cr_assert_float_eq(cg_ring_packets(16384, 64 << 10, 1448), 2.0 * 16383 * 16384, 1e-3);
	cr_assert_float_eq(cg_ring_packets(1, 1024, 1448), 0, 1e-12, "one rank sends nothing");
}

/* Garwood's exact interval of a Poisson count, 95 %: the tables' values. */
Test(scale, poisson_interval)
{
	static const struct {
		long long k;
		double lo, hi;
	} t[] = {
		{0, 0, 3.6889}, {1, 0.0253, 5.5716}, {10, 4.7954, 18.3904}, {28, 18.6058, 40.4678}};
	double lo, hi;

	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		cg_poisson_interval(t[i].k, 0.95, &lo, &hi);
		cr_assert_float_eq(lo, t[i].lo, 2e-4, "k %lld: lo %f", t[i].k, lo);
		cr_assert_float_eq(hi, t[i].hi, 2e-4, "k %lld: hi %f", t[i].k, hi);
	}
}

Test(scale, binomial_quantile)
{
	/* Bin(100, 0.5): P(X <= 61) = 0.9895, P(X <= 62) = 0.9940 */
	cr_assert_eq(cg_binom_quantile(100, 0.5, 0.99), 62);
	cr_assert_eq(cg_binom_quantile(100, 0, 0.99), 0);
	cr_assert_eq(cg_binom_quantile(100, 1, 0.99), 100);
	/* Bin(10, 0.01): P(X = 0) = 0.904, P(X <= 1) = 0.9957 */
	cr_assert_eq(cg_binom_quantile(10, 0.01, 0.99), 1);
	/* large: the 12-sd start, no underflow */
	cr_assert_eq(cg_binom_quantile(32766, 0.5, 0.5), 16383);
}

/* From one rank count: p solves k of m exactly; the step's latency from the ping. */
Test(scale, one_rank_count_from_the_ping)
{
	json_t *runs = json_array();
	size_t n, np;

	camp.nreg = 3;
	json_array_append_new(runs, a_run(0, 100, 0, 1, 100));
	json_array_append_new(runs, a_run(1, 100, 0, 1, 100));
	json_array_append_new(runs, a_run(2, 1000, 100, ring_ms(2), 2 * A_MS * 1000));
	n = cg_summarize(&camp, runs, rows);
	np = cg_project(&camp, rows, n, pj);
	/* every regime a series of its own but the baselines (wire, ideal) */
	cr_assert_eq(np, 1);
	cr_assert_str_eq(pj[0].series, "lossy-2");
	cr_assert_eq(pj[0].stalls, 100);
	/* 2 ranks, 4 packets an iteration: 1 - (1 - p)^4 = 0.1 */
	cr_assert_float_eq(pj[0].p, 1 - pow(0.9, 0.25), 1e-9, "p %g", pj[0].p);
	cr_assert(pj[0].p_lo < pj[0].p && pj[0].p < pj[0].p_hi);
	cr_assert(pj[0].base_from_ping);
	cr_assert_float_eq(pj[0].a, A_MS, 1e-9);
	cr_assert_float_eq(pj[0].b, B_MS, 1e-12, "b %g", pj[0].b);
	cr_assert(pj[0].cost_measured);
	cr_assert_float_eq(pj[0].cost_ms, STALL_MS, 1e-6);
	/* the defaults: 8 ... 16384 ranks */
	cr_assert_eq(pj[0].nat, 6);
	cr_assert_eq(pj[0].at[0].n, 8);
	cr_assert_eq(pj[0].at[5].n, 16384);
	json_decref(runs);
}

/* Fitted at 2 and 4, predicted at 8, beside the row measured there. */
static size_t
fit_2_4_check_8(json_t *runs, double *p_true)
{
	double p = 0.001;
	size_t n;

	camp.proj.nseries = 1;
	snprintf(camp.proj.series[0].name, sizeof(camp.proj.series[0].name), "lossy");
	camp.proj.series[0].fit[0] = 2;
	camp.proj.series[0].fit[1] = 3;
	camp.proj.series[0].nfit = 2;
	camp.proj.series[0].check[0] = 4;
	camp.proj.series[0].ncheck = 1;
	camp.proj.compute_ms = 100;
	camp.proj.ranks[0] = 8;
	camp.proj.ranks[1] = 1024;
	camp.proj.nranks = 2;
	/* the stalls p would give: 4.0 of 1000 at 2 ranks, 23.7 at 4, 106 at 8 */
	json_array_append_new(runs, a_run(2, 1000, 4, ring_ms(2), 50));
	json_array_append_new(runs, a_run(3, 1000, 24, ring_ms(4), 50));
	json_array_append_new(runs,
			      a_run(4, 1000, (unsigned)lround(expect(p, 8, 1000)), ring_ms(8), 50));
	n = cg_summarize(&camp, runs, rows);
	*p_true = p;
	return cg_project(&camp, rows, n, pj);
}

Test(scale, fit_at_2_and_4_predicts_8)
{
	json_t *runs = json_array();
	double p, lo, hi, q, mean;
	const struct cg_proj_at *at;
	const struct cg_proj_check *x;

	cr_assert_eq(fit_2_4_check_8(runs, &p), 1);
	cr_assert_str_eq(pj[0].series, "lossy");
	cr_assert_eq(pj[0].nfit, 2);
	cr_assert_eq(pj[0].stalls, 28);
	/* p solves mu(p) = 28; its interval maps Garwood's [18.61, 40.47] */
	cr_assert_float_eq(expect(pj[0].p, 2, 1000) + expect(pj[0].p, 4, 1000), 28, 1e-6);
	cr_assert_float_eq(pj[0].p, p, p * 0.02, "p %g, made with %g", pj[0].p, p);
	cg_poisson_interval(28, CG_CONFIDENCE, &lo, &hi);
	cr_assert_float_eq(expect(pj[0].p_lo, 2, 1000) + expect(pj[0].p_lo, 4, 1000), lo, 1e-6);
	cr_assert_float_eq(expect(pj[0].p_hi, 2, 1000) + expect(pj[0].p_hi, 4, 1000), hi, 1e-6);
	/* the ring's time: two rank counts, fitted to the p50s */
	cr_assert(!pj[0].base_from_ping);
	cr_assert_float_eq(pj[0].a, A_MS, 1e-9, "a %g", pj[0].a);
	cr_assert_float_eq(pj[0].b, B_MS, 1e-12, "b %g", pj[0].b);
	/* at 8 ranks: 14 steps of 8 packets, 112 an iteration */
	at = &pj[0].at[0];
	cr_assert_eq(at->n, 8);
	cr_assert_float_eq(at->packets, 112, 1e-9);
	cr_assert_float_eq(at->stall, -expm1(112 * log1p(-pj[0].p)), 1e-12);
	cr_assert_float_eq(at->base, ring_ms(8), 1e-9);
	q = -expm1(8 * log1p(-pj[0].p));
	mean = ring_ms(8) + STALL_MS * 14 * q;
	cr_assert_float_eq(at->mean, mean, 1e-9);
	cr_assert_float_eq(at->p99, ring_ms(8) + STALL_MS * cg_binom_quantile(14, q, 0.99), 1e-9);
	cr_assert_float_eq(at->wait, mean / (100 + mean), 1e-12);
	cr_assert_float_eq(at->gpuh, 8 * 1000 * mean / 3.6e6, 1e-12);
	cr_assert(at->stall_lo <= at->stall && at->stall <= at->stall_hi);
	cr_assert(at->mean_lo <= at->mean && at->mean <= at->mean_hi);
	/* at 1024 nearly every iteration stalls, many steps each */
	cr_assert(pj[0].at[1].stall > 0.999, "%g", pj[0].at[1].stall);
	cr_assert(pj[0].at[1].p99 > pj[0].at[1].mean);
	/* the check: predicted at 8 beside what 8 measured, inside */
	cr_assert_eq(pj[0].ncheck, 1);
	x = &pj[0].check[0];
	cr_assert_eq(x->reg, 4);
	cr_assert_eq(x->pred.n, 8);
	cr_assert_float_eq(x->p50, ring_ms(8), 1e-9);
	cr_assert(cg_proj_inside(x->p50, x->pred.base_lo, x->pred.base_hi));
	cr_assert(cg_proj_inside(x->stall, x->pred.stall_lo, x->pred.stall_hi), "%g [%g, %g]",
		  x->stall, x->pred.stall_lo, x->pred.stall_hi);
	json_decref(runs);
}

/* A lossless fabric: no stall anywhere; p 0, and only its upper bound grows with N. */
Test(scale, no_stall_measured)
{
	json_t *runs = json_array();
	size_t n;

	camp.nreg = 3;
	json_array_append_new(runs, a_run(2, 200, 0, ring_ms(2), 1000));
	n = cg_summarize(&camp, runs, rows);
	cr_assert_eq(cg_project(&camp, rows, n, pj), 1);
	cr_assert_float_eq(pj[0].p, 0, 1e-15);
	cr_assert(pj[0].p_hi > 0);
	cr_assert(!pj[0].cost_measured, "no stall: the transport's recovery time");
	cr_assert_float_eq(pj[0].cost_ms, CG_TCP_RTO_MIN_MS, 1e-9);
	cr_assert_float_eq(pj[0].at[0].stall, 0, 1e-15);
	cr_assert_float_eq(pj[0].at[0].mean, pj[0].at[0].base, 1e-12);
	cr_assert(pj[0].at[5].stall_hi > pj[0].at[0].stall_hi);
	json_decref(runs);
}

/* A command job has no size, no packets: no projection. */
Test(scale, command_job_not_projected)
{
	camp.allreduce = 0;
	cr_assert_eq(cg_project(&camp, rows, 5, pj), 0);
}

Test(scale, every_output_prints_it)
{
	json_t *runs = json_array(), *sj, *s0, *chk;
	char *term = NULL, p[160], *csv, *html, buf[128];
	size_t len, n;
	double ptrue;
	FILE *f;

	cr_assert_eq(fit_2_4_check_8(runs, &ptrue), 1);
	n = 5;
	f = open_memstream(&term, &len);
	cg_print_summary(f, &camp, run.capacity, rows, n);
	fclose(f);
	cr_assert(strstr(term, "the all-reduce at cluster scale"), "%s", term);
	cr_assert(strstr(term, "lossy, 1KiB a rank: fitted at 2, 4 ranks"), "%s", term);
	cr_assert(strstr(term, "check at 8 ranks (lossy-8"), "%s", term);
	cr_assert(strstr(term, "assumed: every packet starts a stall"), "%s", term);
	cr_assert(!strstr(term, "OUTSIDE"), "%s", term);
	free(term);

	sj = cg_summary_json(&camp, rows, n);
	s0 = json_array_get(json_object_get(json_object_get(sj, "projection"), "series"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(s0, "series")), "lossy");
	cr_assert_float_eq(
		json_real_value(json_object_get(json_object_get(s0, "stalls_per_packet"), "v")),
		pj[0].p, 1e-15);
	chk = json_array_get(json_object_get(s0, "checks"), 0);
	cr_assert(json_is_true(json_object_get(json_object_get(chk, "inside"), "p50")));
	cr_assert(json_is_true(json_object_get(json_object_get(chk, "inside"), "p_stall")));
	cr_assert(json_array_size(
			  json_object_get(json_object_get(sj, "projection"), "assumptions")) >= 4);
	json_decref(sj);

	cr_assert_eq(cg_write_csvs(&run, runs, rows, n), 0);
	snprintf(p, sizeof(p), "%s/projection.csv", dir);
	csv = cg_fixture_slurp(p);
	cr_assert(strstr(csv, "series,size,kind,regime,ranks,packets,p_stall,"), "%s", csv);
	cr_assert(strstr(csv, "lossy,1KiB,projected,,8,112,"), "%s", csv);
	cr_assert(strstr(csv, "lossy,1KiB,predicted,lossy-8,8,112,"), "%s", csv);
	cr_assert(strstr(csv, "lossy,1KiB,measured,lossy-8,8,112,"), "%s", csv);
	for (char *l = csv; *l; l = strchr(l, '\n') + 1) {
		unsigned commas = 0;

		for (char *c = l; *c && *c != '\n'; c++)
			commas += *c == ',';
		cr_assert_eq(commas, 28, "a line of %u columns: %.80s", commas + 1, l);
	}

	cr_assert_eq(cg_html(&run, runs, rows, n, "complete"), 0);
	snprintf(p, sizeof(p), "%s/report.html", dir);
	html = cg_fixture_slurp(p);
	cr_assert(strstr(html, "The all-reduce at cluster scale"), "no projection in the report");
	cr_assert(strstr(html, "<h2 id='verdicts'>The verdicts</h2>"), "no verdicts of their own");
	snprintf(buf, sizeof(buf), "<td>%.4g [", pj[0].at[0].mean);
	cr_assert(strstr(html, buf), "%s not in the report", buf);
	cr_assert(strstr(html, "checked against"), "no check in the report");
	json_decref(runs);
}

/* The file: projection: and a regime's ranks:, and what they refuse. */
static int
load(const char *text, char *err, size_t elen)
{
	char path[] = "/tmp/test_cg_scale_XXXXXX.yaml";
	int fd = mkstemps(path, 5), rc;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = cg_load(path, &camp, err, elen);
	unlink(path);
	return rc;
}

#define HEAD                                                                                       \
	"name: t\nhosts: 8\nregimes:\n  - {name: a2, profile: ideal, ranks: 2}\n"                  \
	"  - {name: a4, profile: ideal, ranks: 4}\n  - {name: a8, profile: ideal}\n"

Test(scale, file_projection)
{
	char err[512];

	cr_assert_eq(load(HEAD "projection:\n  ranks: [16, 4096]\n  compute: 250ms\n"
			       "  series:\n    - {name: a, fit: [a2, a4], check: [a8]}\n",
			  err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(camp.reg[0].ranks, 2);
	cr_assert_eq(cg_regime_ranks(&camp, &camp.reg[2]), 8);
	cr_assert_eq(camp.proj.nranks, 2);
	cr_assert_eq(camp.proj.ranks[1], 4096);
	cr_assert_float_eq(camp.proj.compute_ms, 250, 1e-9);
	cr_assert_eq(camp.proj.nseries, 1);
	cr_assert_eq(camp.proj.series[0].nfit, 2);
	cr_assert_eq(camp.proj.series[0].fit[1], 1);
	cr_assert_eq(camp.proj.series[0].check[0], 2);
	free(camp.text);

	cr_assert_neq(
		load(HEAD "projection:\n  series:\n    - {name: a, fit: [a3]}\n", err, sizeof(err)),
		0);
	cr_assert(strstr(err, "projection.series.0.fit.0 'a3': not a regime"), "%s", err);
	free(camp.text);
	cr_assert_neq(load(HEAD "projection:\n  compute: 2h\n", err, sizeof(err)), 0);
	cr_assert(strstr(err, "projection.compute '2h'"), "%s", err);
	free(camp.text);
	cr_assert_neq(load(HEAD "projection:\n  ranks: [8, 8]\n", err, sizeof(err)), 0);
	cr_assert(strstr(err, "given twice"), "%s", err);
	free(camp.text);
	cr_assert_neq(load("name: t\nhosts: 4\nregimes:\n  - {name: a, profile: ideal, ranks: 8}\n",
			   err, sizeof(err)),
		      0);
	cr_assert(strstr(err, "regimes.0.ranks '8'"), "%s", err);
	free(camp.text);
}

/* The shipped check: one lossy and one lossless fabric at 2, 4 and 8 ranks, fitted at 2
 * and 4, checked at 8. */
Test(scale, shipped_scale_check)
{
	char err[512];

	cr_assert_eq(cg_load("scale-check", &camp, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(camp.hosts, 8);
	cr_assert_eq(camp.proj.nseries, 2);
	for (unsigned k = 0; k < 2; k++) {
		cr_assert_eq(camp.proj.series[k].nfit, 2);
		cr_assert_eq(camp.proj.series[k].ncheck, 1);
		cr_assert_eq(cg_regime_ranks(&camp, &camp.reg[camp.proj.series[k].fit[0]]), 2);
		cr_assert_eq(cg_regime_ranks(&camp, &camp.reg[camp.proj.series[k].fit[1]]), 4);
		cr_assert_eq(cg_regime_ranks(&camp, &camp.reg[camp.proj.series[k].check[0]]), 8);
	}
	cr_assert_eq(camp.reg[0].fabric.regime, FE_REGIME_LOSSY);
	cr_assert_neq(camp.reg[3].fabric.regime, FE_REGIME_LOSSY, "the second: lossless");
	free(camp.text);
}
