/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Quarter-octave histograms of times in ns (how late frames left their links, how long
 * they waited at the edge): fine enough that a p99 read from the buckets is within 25 %
 * of the true one, where a log2 bucket could be off by 2x, and a verdict compares it
 * with a fraction of a hop's delay. Values 0 to 7 have a bucket each; above, every
 * octave [2^e, 2^(e+1)) has four: [2^e (1 + m/4), 2^e (1 + (m+1)/4)), m = 0..3. The last
 * bucket takes everything from 3.7 s up.
 *
 *   h[fe_qhist_bucket(ns)]++;                  // the lcore
 *   p99 = fe_qhist_quantile(snapshot, 0.99);   // the readers: fe_qhist_report(bucket)
 */
#ifndef FE_QHIST_H
#define FE_QHIST_H

#include <stdint.h>

#include "fe_quantile.h"

#define FE_QHIST_BUCKETS 124

static inline unsigned
fe_qhist_bucket(uint64_t v)
{
	unsigned e, i;

	if (v < 8)
		return (unsigned)v;
	e = 63 ^ (unsigned)__builtin_clzll(v); /* 3 and up (63 - clz: one instruction) */
	i = 4 * (e - 1) + (unsigned)((v >> (e - 2)) & 3);
	return i < FE_QHIST_BUCKETS ? i : FE_QHIST_BUCKETS - 1;
}

/* The least value of bucket i. */
static inline uint64_t
fe_qhist_lower(unsigned i)
{
	if (i < 8)
		return i;
	return (uint64_t)(4 + i % 4) << (i / 4 - 1);
}

/* The first value above bucket i (for the last one, what it would hold if it ended). */
static inline uint64_t
fe_qhist_upper(unsigned i)
{
	if (i < 8)
		return i + 1;
	return (uint64_t)(5 + i % 4) << (i / 4 - 1);
}

/*
 * The value a quantile falling in bucket i reports: the bucket's value for 0..7 (exact),
 * above that its upper bound (within 25 % above the true value, up to the last bucket,
 * whose values from 3.7 s up read as 4.3 s).
 */
static inline uint64_t
fe_qhist_report(unsigned i)
{
	return i < 8 ? i : fe_qhist_upper(i);
}

/* The q-quantile (nearest rank) of a histogram; 0 when it is empty. h: a snapshot. */
static inline uint64_t
fe_qhist_quantile(const uint64_t *h, double q)
{
	uint64_t total = 0, seen = 0, rank;

	for (unsigned i = 0; i < FE_QHIST_BUCKETS; i++)
		total += h[i];
	if (total == 0)
		return 0;
	rank = fe_rank(total, q);
	for (unsigned i = 0; i < FE_QHIST_BUCKETS; i++) {
		seen += h[i];
		if (seen >= rank)
			return fe_qhist_report(i);
	}
	return fe_qhist_report(FE_QHIST_BUCKETS - 1);
}

#endif
