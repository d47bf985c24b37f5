/* SPDX-License-Identifier: BSD-3-Clause */
/* The one percentile rule (nearest rank), as every report and summary uses it. */
#include <criterion/criterion.h>

#include "fe_qhist.h"
#include "fe_quantile.h"

/* {n, q, rank}: the rank is ceil(q n), at least 1 */
static const struct {
	uint64_t n;
	double q;
	uint64_t rank;
} cases[] = {
	{0, 0.5, 0},
	{1, 0.0, 1},
	{1, 0.5, 1},
	{1, 1.0, 1},
	{2, 0.5, 1},
	{2, 0.99, 2},
	{10, 0.5, 5},
	{10, 0.99, 10},
	{20, 0.5, 10},
	{20, 0.99, 20},
	{100, 0.99, 99},
	{100, 0.5, 50},
	{101, 0.5, 51},
	{1000, 0.99, 990},
	{1000, 0.999, 999},
	{7, 0.0, 1},
	{7, 1.0, 7},
	{3, 1.0 / 3, 1},
	{1000000, 0.99, 990000},
};

Test(quantile, nearest_rank)
{
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_eq(fe_rank(cases[i].n, cases[i].q), cases[i].rank,
			     "n %lu q %g: rank %lu, expected %lu", (unsigned long)cases[i].n,
			     cases[i].q, (unsigned long)fe_rank(cases[i].n, cases[i].q),
			     (unsigned long)cases[i].rank);
}

/* The quantile is always one of the values, and no value is interpolated. */
Test(quantile, a_value_of_the_set)
{
	const double v[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

	cr_assert_eq(v[fe_rank_index(10, 0.5)], 5);
	cr_assert_eq(v[fe_rank_index(10, 0.55)], 6);
	cr_assert_eq(v[fe_rank_index(10, 0.99)], 10);
	cr_assert_eq(v[fe_rank_index(10, 0)], 1);
}

/* Quarter-octave buckets: contiguous, each value in its own, bounds within 25 %. */
Test(quantile, quarter_octave_buckets)
{
	for (unsigned i = 0; i < FE_QHIST_BUCKETS; i++) {
		uint64_t lo = fe_qhist_lower(i), hi = fe_qhist_upper(i);

		cr_assert_eq(fe_qhist_bucket(lo), i, "bucket %u: its least value %lu", i,
			     (unsigned long)lo);
		cr_assert_eq(fe_qhist_bucket(hi - 1), i, "bucket %u: its greatest %lu", i,
			     (unsigned long)(hi - 1));
		if (i + 1 < FE_QHIST_BUCKETS)
			cr_assert_eq(fe_qhist_lower(i + 1), hi, "bucket %u ends where %u starts", i,
				     i + 1);
		if (lo >= 8)
			cr_assert_leq(hi - lo, lo / 4, "bucket %u: at most a quarter wide", i);
	}
	cr_assert_eq(fe_qhist_bucket(UINT64_MAX), FE_QHIST_BUCKETS - 1);
}

/* The quantile of a histogram is the upper bound of the bucket of the nearest rank. */
Test(quantile, of_a_histogram)
{
	uint64_t h[FE_QHIST_BUCKETS] = {0};

	cr_assert_eq(fe_qhist_quantile(h, 0.99), 0, "empty");
	h[fe_qhist_bucket(1000)] = 98; /* 98 frames about 1 us late, 2 about 40 us */
	h[fe_qhist_bucket(40000)] = 2;
	cr_assert_eq(fe_qhist_quantile(h, 0.5), fe_qhist_upper(fe_qhist_bucket(1000)));
	cr_assert_eq(fe_qhist_quantile(h, 0.98), fe_qhist_upper(fe_qhist_bucket(1000)));
	cr_assert_eq(fe_qhist_quantile(h, 0.99), fe_qhist_upper(fe_qhist_bucket(40000)));
	cr_assert(fe_qhist_quantile(h, 0.99) > 40000 && fe_qhist_quantile(h, 0.99) <= 50000);
}
