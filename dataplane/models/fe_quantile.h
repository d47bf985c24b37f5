/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One percentile rule for every figure fabemu prints (the counters, fabemuctl status,
 * the campaigns' summaries): nearest rank. The q-quantile of n values is the value of
 * rank ceil(q * n) in ascending order (ranks from 1; at least rank 1): the smallest
 * value with at least a fraction q of the values at or below it. It is always one of
 * the values, never an interpolation, so a p99 of 20 iterations is the slowest one and
 * a p50 of 2 is the faster one.
 *
 *   qsort(v, n, ...); p99 = v[fe_rank_index(n, 0.99)];
 *   for a histogram: the bucket holding the value of rank fe_rank(total, q)
 */
#ifndef FE_QUANTILE_H
#define FE_QUANTILE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* The rank (1..n) of the q-quantile of n values; 0 when n is 0. */
static inline uint64_t
fe_rank(uint64_t n, double q)
{
	/* 1e-9: 0.99 * 100 is 99.00000000000001 in binary, and its rank is 99, not 100 */
	double r = ceil(q * (double)n - 1e-9);

	if (n == 0)
		return 0;
	if (r < 1)
		return 1;
	return r > (double)n ? n : (uint64_t)r;
}

/* The index (from 0) of the q-quantile in n sorted values (n > 0). */
static inline size_t
fe_rank_index(size_t n, double q)
{
	return (size_t)fe_rank(n, q) - 1;
}

#endif
