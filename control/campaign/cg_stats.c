/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The uncertainty of a row and the words of a comparison (docs/campaigns.md, "Intervals
 * and comparisons"): a two-level bootstrap, repetitions drawn with replacement and then
 * iterations within each drawn one, so that the drift between runs is in the interval as
 * well as the spread of iterations within one. Seeded (fe_rng.h): a summary recomputed
 * from campaign.json prints the same intervals. The repetitions' draws are common to
 * every row, so that a ratio of two rows' k-th resamples compares the same repetitions,
 * which ran side by side (interleaved): a drift of the box common to both cancels.
 *
 * A resample draws values of the sample itself, so it is counted over the sample's sorted
 * positions and its quantiles read by one pass over the counts: no sort a resample.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"
#include "fe_quantile.h"
#include "fe_rng.h"

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
cmp_i(const void *a, const void *b, void *v)
{
	return cmp_d(&((const double *)v)[*(const size_t *)a],
		     &((const double *)v)[*(const size_t *)b]);
}

/* Positions of the sample's values in ascending order: sorted[rank[i]] == v[i]. */
static int
ranks(const struct cg_sample *s, size_t n, double *sorted, size_t *rank)
{
	size_t *by = malloc(sizeof(*by) * n);

	if (by == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		by[i] = i;
	qsort_r(by, n, sizeof(*by), cmp_i, (void *)s->v);
	for (size_t k = 0; k < n; k++) {
		sorted[k] = s->v[by[k]];
		rank[by[k]] = k;
	}
	free(by);
	return 0;
}

/* The value of rank r (1..total) of the counts over sorted positions. */
static double
at_rank(const uint32_t *count, const double *sorted, size_t n, uint64_t r)
{
	uint64_t cum = 0;

	for (size_t k = 0; k < n; k++)
		if ((cum += count[k]) >= r)
			return sorted[k];
	return sorted[n - 1];
}

/* One resample: nrep repetitions drawn with replacement (from reps, the stream every row
 * shares), then each one's iterations drawn with replacement within it (from its); its
 * p50 and p99 (nearest rank). */
static void
resample(const struct cg_sample *s, struct fe_rng *reps, struct fe_rng *its, const size_t *rank,
	 const double *sorted, uint32_t *count, double *p50, double *p99)
{
	size_t n = s->first[s->nrep];
	uint64_t total = 0;

	memset(count, 0, sizeof(*count) * n);
	for (unsigned j = 0; j < s->nrep; j++) {
		unsigned r = (unsigned)fe_rng_upto(reps, s->nrep - 1);
		size_t a = s->first[r], m = s->first[r + 1] - a;

		for (size_t t = 0; t < m; t++)
			count[rank[a + fe_rng_upto(its, m - 1)]]++;
		total += m;
	}
	*p50 = at_rank(count, sorted, n, fe_rank(total, 0.5));
	*p99 = at_rank(count, sorted, n, fe_rank(total, 0.99));
}

int
cg_bootstrap(const struct cg_sample *s, uint64_t seed, uint64_t stream, unsigned b, double *p50,
	     double *p99)
{
	size_t n = s->nrep ? s->first[s->nrep] : 0;
	double *sorted, x50, x99;
	size_t *rank;
	uint32_t *count;
	struct fe_rng reps, its;
	int rc = -ENOMEM;

	if (n == 0)
		return -EINVAL;
	for (unsigned r = 0; r < s->nrep; r++)
		if (s->first[r + 1] <= s->first[r])
			return -EINVAL; /* a repetition without iterations: not one of the sample */
	sorted = malloc(sizeof(*sorted) * n);
	rank = malloc(sizeof(*rank) * n);
	count = malloc(sizeof(*count) * n);
	if (sorted && rank && count && ranks(s, n, sorted, rank) == 0) {
		/* the repetitions from stream 0, which every row shares: the k-th resamples
		 * of two rows of as many repetitions draw the same ones (paired) */
		fe_rng_seed(&reps, seed, 0);
		fe_rng_seed(&its, seed, stream);
		for (unsigned k = 0; k < b; k++) {
			resample(s, &reps, &its, rank, sorted, count, &x50, &x99);
			if (p50)
				p50[k] = x50;
			if (p99)
				p99[k] = x99;
		}
		rc = 0;
	}
	free(sorted);
	free(rank);
	free(count);
	return rc;
}

int
cg_bootstrap_share(const struct cg_sample *s, uint64_t seed, uint64_t stream, unsigned b, double at,
		   double *share)
{
	struct fe_rng rng;

	if (s->nrep == 0 || s->first[s->nrep] == 0)
		return -EINVAL;
	for (unsigned r = 0; r < s->nrep; r++)
		if (s->first[r + 1] <= s->first[r])
			return -EINVAL;
	/* another stream than the row's p50s and p99s: the two sets do not share draws */
	fe_rng_seed(&rng, seed, stream | 1ULL << 63);
	for (unsigned k = 0; k < b; k++) {
		uint64_t total = 0, above = 0;

		for (unsigned j = 0; j < s->nrep; j++) {
			unsigned r = (unsigned)fe_rng_upto(&rng, s->nrep - 1);
			size_t a = s->first[r], m = s->first[r + 1] - a;

			for (size_t t = 0; t < m; t++)
				above += s->v[a + fe_rng_upto(&rng, m - 1)] >= at;
			total += m;
		}
		share[k] = (double)above / (double)total;
	}
	return 0;
}

void
cg_interval(double *x, unsigned b, double *lo, double *hi)
{
	if (b == 0) {
		*lo = *hi = NAN;
		return;
	}
	qsort(x, b, sizeof(*x), cmp_d);
	*lo = x[fe_rank_index(b, (1 - CG_CONFIDENCE) / 2)];
	*hi = x[fe_rank_index(b, 1 - (1 - CG_CONFIDENCE) / 2)];
}

static const char *const word_names[] = {
	[CG_WORD_NONE] = "",
	[CG_FASTER] = "faster",
	[CG_SLOWER] = "slower",
	[CG_UNRESOLVED] = "no difference resolved",
};

const char *
cg_word_name(enum cg_word w)
{
	return w <= CG_UNRESOLVED ? word_names[w] : "";
}

/* A ratio of times: below 1 the first is faster. A word only where the interval keeps
 * to one side of 1, and both sides had the repetitions to measure their drift. */
enum cg_word
cg_word_of(double lo, double hi, unsigned reps_a, unsigned reps_b)
{
	if (isnan(lo) || isnan(hi))
		return CG_WORD_NONE;
	if (reps_a < CG_WORD_MIN_REPS || reps_b < CG_WORD_MIN_REPS)
		return CG_UNRESOLVED;
	if (hi < 1)
		return CG_FASTER;
	if (lo > 1)
		return CG_SLOWER;
	return CG_UNRESOLVED;
}

void
cg_ratio_of(double a50, double b50, const double *ba, const double *bb, unsigned b, unsigned reps_a,
	    unsigned reps_b, struct cg_ratio *out)
{
	double *x;

	*out = (struct cg_ratio){.v = NAN, .lo = NAN, .hi = NAN, .word = CG_WORD_NONE};
	if (isnan(a50) || isnan(b50) || b50 <= 0 || ba == NULL || bb == NULL ||
	    (x = malloc(sizeof(*x) * b)) == NULL)
		return;
	/* the k-th of each: the same repetitions drawn (cg_bootstrap) */
	for (unsigned k = 0; k < b; k++)
		x[k] = bb[k] > 0 ? ba[k] / bb[k] : INFINITY;
	out->v = a50 / b50;
	cg_interval(x, b, &out->lo, &out->hi);
	out->reps_a = reps_a;
	out->reps_b = reps_b;
	out->word = cg_word_of(out->lo, out->hi, reps_a, reps_b);
	free(x);
}
