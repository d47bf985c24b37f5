/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The campaign's intervals and words (control/campaign/cg_stats.c) on synthetic samples:
 * the same seed gives the same intervals, repetitions that drift widen them where
 * iterations alone would not, they cover a known median as often as they say, and a
 * comparison says faster, slower or no difference resolved by its interval and the
 * repetitions behind it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "campaign/cg.h"
#include "fe_rng.h"

#define B CG_RESAMPLES

static double p50[B], p99[B], q50[B], q99[B];

/* nrep repetitions of m values each: v[r * m + i] = base[r] + spread * (i / (m - 1) - 0.5) */
static void
grid(double *v, size_t *first, unsigned nrep, size_t m, const double *base, double spread)
{
	for (unsigned r = 0; r < nrep; r++) {
		first[r] = r * m;
		for (size_t i = 0; i < m; i++)
			v[r * m + i] = base[r] + spread * ((double)i / (double)(m - 1) - 0.5);
	}
	first[nrep] = nrep * m;
}

Test(stats, same_seed_same_resamples)
{
	static double v[4 * 50];
	size_t first[5];
	const double base[] = {10, 11, 12, 13};
	const struct cg_sample s = {.v = v, .first = first, .nrep = 4};
	int same = 1;

	grid(v, first, 4, 50, base, 2);
	cr_assert_eq(cg_bootstrap(&s, 7, 3, B, p50, p99), 0);
	cr_assert_eq(cg_bootstrap(&s, 7, 3, B, q50, q99), 0);
	for (unsigned k = 0; k < B; k++)
		cr_assert(p50[k] == q50[k] && p99[k] == q99[k], "resample %u differs", k);
	/* another seed, another stream: other resamples */
	cr_assert_eq(cg_bootstrap(&s, 8, 3, B, q50, NULL), 0);
	for (unsigned k = 0; k < B; k++)
		same &= p50[k] == q50[k];
	cr_assert_not(same, "seed 8 drew what seed 7 did");
	cr_assert_eq(cg_bootstrap(&s, 7, 4, B, q50, NULL), 0);
	same = 1;
	for (unsigned k = 0; k < B; k++)
		same &= p50[k] == q50[k];
	cr_assert_not(same, "stream 4 drew what stream 3 did");
}

/* Every resample is a value of the sample; a constant sample's interval is that value. */
Test(stats, constant_sample_interval_is_its_value)
{
	double v[30], lo, hi;
	size_t first[] = {0, 30};
	const struct cg_sample s = {.v = v, .first = first, .nrep = 1};

	for (int i = 0; i < 30; i++)
		v[i] = 4.25;
	cr_assert_eq(cg_bootstrap(&s, 1, 1, B, p50, p99), 0);
	cg_interval(p50, B, &lo, &hi);
	cr_assert(lo == 4.25 && hi == 4.25, "[%g, %g]", lo, hi);
	cg_interval(p99, B, &lo, &hi);
	cr_assert(lo == 4.25 && hi == 4.25, "[%g, %g]", lo, hi);
}

/* The interval of 1..2000 (nearest rank): the 50th and the 1950th. */
Test(stats, interval_is_nearest_rank)
{
	static double x[B];
	double lo, hi;

	for (unsigned k = 0; k < B; k++)
		x[k] = (double)(B - k); /* any order: sorted there */
	cg_interval(x, B, &lo, &hi);
	cr_assert(lo == 50 && hi == 1950, "[%g, %g]", lo, hi);
}

Test(stats, empty_sample_or_repetition_refused)
{
	double v[2] = {1, 2};
	size_t none[] = {0}, empty_rep[] = {0, 2, 2};
	const struct cg_sample e = {.v = v, .first = none, .nrep = 0},
			       r = {.v = v, .first = empty_rep, .nrep = 2};

	cr_assert_eq(cg_bootstrap(&e, 1, 1, B, p50, p99), -EINVAL);
	cr_assert_eq(cg_bootstrap(&r, 1, 1, B, p50, p99), -EINVAL);
}

/*
 * Drift between runs counts: the same 200 values, as four repetitions whose medians
 * drift (10, 12, 14, 16) and as one run, where only the iterations vary. The grouped
 * sample's p50 interval is wider (it covers the runs' spread), the pooled one's is not.
 */
Test(stats, drift_between_repetitions_widens_interval)
{
	static double v[200];
	size_t first[5], pooled[2] = {0, 200};
	const double base[] = {10, 12, 14, 16};
	const struct cg_sample grouped = {.v = v, .first = first, .nrep = 4},
			       one = {.v = v, .first = pooled, .nrep = 1};
	double glo, ghi, plo, phi;

	grid(v, first, 4, 50, base, 1);
	cr_assert_eq(cg_bootstrap(&grouped, 1, 1, B, p50, NULL), 0);
	cg_interval(p50, B, &glo, &ghi);
	cr_assert_eq(cg_bootstrap(&one, 1, 1, B, p50, NULL), 0);
	cg_interval(p50, B, &plo, &phi);
	cr_assert_gt(ghi - glo, 3 * (phi - plo),
		     "grouped [%g, %g] should be much wider than pooled [%g, %g]", glo, ghi, plo,
		     phi);
	/* the runs' medians span 10..16: the grouped interval reaches well into both */
	cr_assert(glo <= 11.5 && ghi >= 14.5, "grouped [%g, %g]", glo, ghi);
}

/*
 * The 95 % interval of a median covers the true one about 95 % of the time: 400 synthetic
 * campaigns of 5 repetitions x 40 iterations, each repetition shifted by its own drift
 * (uniform +-0.5) around a median of 10, iterations uniform +-1 about it. Seeded: the
 * count is the same every time; the bound is what a sound interval passes.
 */
Test(stats, interval_covers_known_median)
{
	static double v[200];
	size_t first[6];
	const struct cg_sample s = {.v = v, .first = first, .nrep = 5};
	struct fe_rng rng;
	unsigned covered = 0, trials = 400;

	fe_rng_seed(&rng, 42, 0);
	for (unsigned t = 0; t < trials; t++) {
		double lo, hi;

		for (unsigned r = 0; r < 5; r++) {
			double drift = (double)fe_rng_upto(&rng, 1000000) / 1e6 - 0.5;

			first[r] = r * 40;
			for (unsigned i = 0; i < 40; i++)
				v[r * 40 + i] =
					10 + drift +
					2 * ((double)fe_rng_upto(&rng, 1000000) / 1e6 - 0.5);
		}
		first[5] = 200;
		cr_assert_eq(cg_bootstrap(&s, t + 1, 1, B, p50, NULL), 0);
		cg_interval(p50, B, &lo, &hi);
		covered += lo <= 10 && 10 <= hi;
	}
	/* five clusters make a percentile bootstrap somewhat narrow: 85 % is its floor
	 * here (it covers 355 of 400); the same values bootstrapped as one run, 253 */
	cr_assert_geq(covered, trials * 85 / 100, "covered %u of %u", covered, trials);
}

Test(stats, words)
{
	cr_assert_eq(cg_word_of(0.80, 0.95, 3, 3), CG_FASTER);
	cr_assert_eq(cg_word_of(1.02, 1.40, 3, 3), CG_SLOWER);
	cr_assert_eq(cg_word_of(0.90, 1.10, 3, 3), CG_UNRESOLVED);
	cr_assert_eq(cg_word_of(1.00, 1.20, 3, 3), CG_UNRESOLVED, "1 in the interval");
	/* one repetition: the drift between runs is not measured, no word */
	cr_assert_eq(cg_word_of(0.50, 0.60, 1, 3), CG_UNRESOLVED);
	cr_assert_eq(cg_word_of(0.50, 0.60, 3, 1), CG_UNRESOLVED);
	cr_assert_eq(cg_word_of(NAN, 0.60, 3, 3), CG_WORD_NONE);
	cr_assert_str_eq(cg_word_name(CG_FASTER), "faster");
	cr_assert_str_eq(cg_word_name(CG_SLOWER), "slower");
	cr_assert_str_eq(cg_word_name(CG_UNRESOLVED), "no difference resolved");
	cr_assert_str_eq(cg_word_name(CG_WORD_NONE), "");
}

/* Two regimes 2x apart, three repetitions each: a / b about 0.5, faster; b / a slower;
 * a against a copy of itself with other draws: no difference resolved. */
Test(stats, ratio_of_medians)
{
	static double va[150], vb[150];
	size_t fa[4], fb[4];
	const double ba[] = {10, 10.5, 9.5}, bb[] = {20, 21, 19};
	const struct cg_sample a = {.v = va, .first = fa, .nrep = 3},
			       b = {.v = vb, .first = fb, .nrep = 3};
	struct cg_ratio r;

	grid(va, fa, 3, 50, ba, 2);
	grid(vb, fb, 3, 50, bb, 4);
	cr_assert_eq(cg_bootstrap(&a, 1, 1, B, p50, NULL), 0);
	cr_assert_eq(cg_bootstrap(&b, 1, 2, B, q50, NULL), 0);
	cg_ratio_of(10, 20, p50, q50, B, 3, 3, &r);
	cr_assert_float_eq(r.v, 0.5, 1e-12);
	cr_assert(r.lo < 0.5 && r.hi > 0.5 && r.lo > 0.4 && r.hi < 0.6, "[%g, %g]", r.lo, r.hi);
	cr_assert_eq(r.word, CG_FASTER);
	cg_ratio_of(20, 10, q50, p50, B, 3, 3, &r);
	cr_assert_eq(r.word, CG_SLOWER, "[%g, %g]", r.lo, r.hi);
	cr_assert_eq(cg_bootstrap(&a, 1, 9, B, q50, NULL), 0);
	cg_ratio_of(10, 10, p50, q50, B, 3, 3, &r);
	cr_assert(r.lo < 1 && r.hi > 1, "[%g, %g]", r.lo, r.hi);
	cr_assert_eq(r.word, CG_UNRESOLVED);
	/* one repetition a side: the interval printed, no word */
	cg_ratio_of(10, 20, p50, q50, B, 1, 1, &r);
	cr_assert_eq(r.word, CG_UNRESOLVED);
	/* nothing to compare */
	cg_ratio_of(NAN, 20, p50, q50, B, 3, 3, &r);
	cr_assert(isnan(r.v) && r.word == CG_WORD_NONE);
	cg_ratio_of(10, 20, NULL, q50, B, 3, 3, &r);
	cr_assert(isnan(r.v) && r.word == CG_WORD_NONE);
}

/*
 * The repetitions ran side by side (interleaved), and the box's drift moved both rows
 * alike: b took twice a's time in every repetition, while the repetitions' medians
 * spread 3x. Resampled with the same repetitions drawn (paired), the ratio's interval
 * stays about 2: slower. The same values with b's repetitions out of step with a's
 * (its second run first) do not cancel, and the interval is wide.
 */
Test(stats, common_drift_cancels_in_a_ratio)
{
	static double va[150], vb[150], vc[150];
	size_t fa[4], fb[4], fc[4];
	const double ba[] = {10, 20, 30}, bb[] = {20, 40, 60}, bc[] = {40, 20, 60};
	const struct cg_sample a = {.v = va, .first = fa, .nrep = 3},
			       b = {.v = vb, .first = fb, .nrep = 3},
			       c = {.v = vc, .first = fc, .nrep = 3};
	static double pc[B];
	struct cg_ratio r;

	grid(va, fa, 3, 50, ba, 1);
	grid(vb, fb, 3, 50, bb, 2);
	grid(vc, fc, 3, 50, bc, 2);
	cr_assert_eq(cg_bootstrap(&a, 1, 1, B, p50, NULL), 0);
	cr_assert_eq(cg_bootstrap(&b, 1, 2, B, q50, NULL), 0);
	cr_assert_eq(cg_bootstrap(&c, 1, 3, B, pc, NULL), 0);
	cg_ratio_of(20, 40, q50, p50, B, 3, 3, &r);
	cr_assert(r.lo > 1.8 && r.hi < 2.2, "paired: [%g, %g]", r.lo, r.hi);
	cr_assert_eq(r.word, CG_SLOWER);
	cg_ratio_of(20, 40, pc, p50, B, 3, 3, &r);
	cr_assert(r.lo < 1.5 && r.hi > 3, "out of step: [%g, %g]", r.lo, r.hi);
}
