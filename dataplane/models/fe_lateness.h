/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lateness of a deadline at a uniformly random instant, from the gaps in which a
 * core was taken away (fe-cpufloor). A deadline inside a gap of g is met late by the
 * rest of the gap, so P(late > x) = sum over gaps of max(0, g - x) / total. The same
 * holds for a frame that reaches a port's ring at a random instant and waits for a
 * busy-polling loop to come back to it: from the loop's passes (fe_dp's pass_hist), how
 * long such a frame waits (the campaign's edge wait of a port with no receive time).
 */
#ifndef FE_LATENESS_H
#define FE_LATENESS_H

#include <stddef.h>
#include <stdint.h>

#include "fe_qhist.h"

/*
 * The lateness exceeded with probability q, given the gaps (ns) longer than min_gap in
 * descending order, gap g[k] c[k] times (c NULL: once each), over a run of total ns. 0
 * when even min_gap is exceeded less often than that: the answer lies below what was
 * recorded.
 */
static inline uint64_t
fe_late_quantile_n(const uint64_t *g, const uint64_t *c, size_t n, uint64_t total, double q,
		   uint64_t min_gap)
{
	double want = q * (double)total, sum = 0, count = 0;

	for (size_t k = 0; k < n; k++) {
		/* with the gaps g_0..g_k above x: sum(c_i g_i) - sum(c_i) x = want */
		double x, w = c != NULL ? (double)c[k] : 1;
		size_t next = k + 1;

		if (w == 0)
			continue;
		sum += w * (double)g[k];
		count += w;
		x = (sum - want) / count;
		while (c != NULL && next < n && c[next] == 0)
			next++;
		if (next < n && x < (double)g[next])
			continue; /* the next gap lies above x as well */
		return x < (double)min_gap ? 0 : (uint64_t)x;
	}
	return 0;
}

/* Each gap once. */
static inline uint64_t
fe_late_quantile(const uint64_t *g, size_t n, uint64_t total, double q, uint64_t min_gap)
{
	return fe_late_quantile_n(g, NULL, n, total, q, min_gap);
}

/*
 * From a histogram of a loop's passes (fe_qhist.h, ns from one pass's start to the next):
 * how long a frame that reaches a port's ring at a random instant waits for the loop to
 * come back to it, exceeded with probability q. Each bucket at its reported value (at most
 * 25 % above its passes'), so that the wait is not understated. 0: no pass recorded.
 */
static inline uint64_t
fe_qhist_wait_quantile(const uint64_t *h, double q)
{
	uint64_t g[FE_QHIST_BUCKETS], c[FE_QHIST_BUCKETS], total = 0;
	size_t n = 0;

	for (unsigned i = FE_QHIST_BUCKETS; i-- > 0;)
		if (h[i] != 0) {
			g[n] = fe_qhist_report(i);
			c[n] = h[i];
			total += g[n] * c[n];
			n++;
		}
	return fe_late_quantile_n(g, c, n, total, q, 0);
}

#endif
