/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>

#include "fe_lateness.h"

/* One gap of 100 us in 1 s: late by more than x with probability (100 us - x) / 1 s. */
Test(lateness, one_gap)
{
	const uint64_t g[] = {100000};

	/* P = 1 %: 100 us - x = 10 ms has no solution above 0: below what was recorded */
	cr_assert_eq(fe_late_quantile(g, 1, 1000000000, 0.01, 1000), 0);
	/* P = 0.001 %: 100 us - x = 10 us */
	cr_assert_eq(fe_late_quantile(g, 1, 1000000000, 0.00001, 1000), 90000);
}

/*
 * Gaps of 50, 30 and 20 us in 1 ms; every quantile checked against the definition
 * (x is rounded down to the ns: P may exceed q by up to 3 ns / 1 ms).
 */
Test(lateness, against_the_definition)
{
	const uint64_t g[] = {50000, 30000, 20000};
	const double qs[] = {0.001, 0.01, 0.02, 0.03, 0.04, 0.06};

	for (unsigned i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t x = fe_late_quantile(g, 3, 1000000, qs[i], 1000);
		double p = 0;

		for (unsigned k = 0; k < 3; k++)
			p += g[k] > x ? (double)(g[k] - x) : 0;
		p /= 1000000;
		cr_assert(p >= qs[i] - 1e-9 && p < qs[i] + 4e-6, "q %g: x %lu gives %g", qs[i],
			  (unsigned long)x, p);
	}
	/* 2 %: only the 50 us gap lies above x, 50 - x = 20 us */
	cr_assert_eq(fe_late_quantile(g, 3, 1000000, 0.02, 1000), 30000);
	/* 6 %: all three lie above x, 100 - 3 x = 60 us */
	cr_assert_eq(fe_late_quantile(g, 3, 1000000, 0.06, 1000), 13333);
}

Test(lateness, nothing_recorded)
{
	cr_assert_eq(fe_late_quantile(NULL, 0, 1000000, 0.01, 1000), 0);
}

/* Gaps counted: the same answer as each gap written out. */
Test(lateness, counted_gaps)
{
	const uint64_t g[] = {50000, 30000, 20000}, c[] = {2, 0, 3};
	const uint64_t flat[] = {50000, 50000, 20000, 20000, 20000};

	for (double q = 0.001; q < 0.2; q *= 1.7)
		cr_assert_eq(fe_late_quantile_n(g, c, 3, 1000000, q, 0),
			     fe_late_quantile(flat, 5, 1000000, q, 0), "q %g", q);
}

/*
 * A loop's passes: 10,000 of about 100 ns and 5 of 2 ms. A frame arriving at a random
 * instant lands in a long pass with probability 5 x 2 ms / (1 ms + 10 ms), and waits its
 * rest: at p99 most of one (2 ms x (1 - 0.01 / (10/11) ...)), at p50 nothing worth saying.
 */
Test(lateness, a_frame_waits_for_the_loop)
{
	uint64_t h[FE_QHIST_BUCKETS] = {0}, x, g2;
	double p;

	h[fe_qhist_bucket(100)] = 10000;
	h[fe_qhist_bucket(2000000)] = 5;
	g2 = fe_qhist_report(fe_qhist_bucket(2000000)); /* 2,097,152: the bucket's top */
	x = fe_qhist_wait_quantile(h, 0.01);
	/* against the definition: P(wait > x) = 5 (g2 - x) / total */
	p = 5.0 * (double)(g2 - x) /
	    (5.0 * (double)g2 + 10000.0 * (double)fe_qhist_report(fe_qhist_bucket(100)));
	cr_assert(p > 0.01 - 1e-6 && p < 0.01 + 1e-6, "p99 %lu: P %g", (unsigned long)x, p);
	cr_assert_gt(x, 1900000, "p99 %lu", (unsigned long)x);
	cr_assert_lt(fe_qhist_wait_quantile(h, 0.5), 2000000);
	cr_assert_eq(fe_qhist_wait_quantile((uint64_t[FE_QHIST_BUCKETS]){0}, 0.01), 0);
}
