/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lateness of a deadline at a uniformly random instant, from the gaps in which a
 * core was taken away (fe-cpufloor). A deadline inside a gap of g is met late by the
 * rest of the gap, so P(late > x) = sum over gaps of max(0, g - x) / total.
 */
#ifndef FE_LATENESS_H
#define FE_LATENESS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The lateness exceeded with probability q, given the gaps (ns) longer than min_gap in
 * descending order over a run of total ns. 0 when even min_gap is exceeded less often
 * than that: the answer lies below what was recorded.
 */
static inline uint64_t
fe_late_quantile(const uint64_t *g, size_t n, uint64_t total, double q, uint64_t min_gap)
{
	double want = q * (double)total, sum = 0;

	for (size_t k = 0; k < n; k++) {
		/* with the k + 1 largest gaps above x: sum(g_0..g_k) - (k + 1) x = want */
		double x;

		sum += (double)g[k];
		x = (sum - want) / (double)(k + 1);
		if (k + 1 < n && x < (double)g[k + 1])
			continue; /* the next gap lies above x as well */
		return x < (double)min_gap ? 0 : (uint64_t)x;
	}
	return 0;
}

#endif
