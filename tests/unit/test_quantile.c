/* SPDX-License-Identifier: BSD-3-Clause */
/* The one percentile rule (nearest rank), as every report and summary uses it. */
#include <criterion/criterion.h>

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
