/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_rng: the dataplane's PRNG (splitmix64). Every link owns one, seeded from the run's
 * seed and the link's index, so a run with the same seed and the same packets makes
 * the same decisions on every link, whatever the polling order. Probabilities are
 * 0.32 fixed point: FE_PROB_ONE is certainty.
 */
#ifndef FE_RNG_H
#define FE_RNG_H

#include <stdint.h>

#define FE_PROB_ONE (1ULL << 32)

struct fe_rng {
	uint64_t s;
};

static inline void
fe_rng_seed(struct fe_rng *r, uint64_t seed, uint64_t stream)
{
	r->s = seed ^ (stream * 0xd1342543de82ef95ULL);
}

static inline uint64_t
fe_rng_next(struct fe_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* True with probability p / FE_PROB_ONE. */
static inline int
fe_rng_chance(struct fe_rng *r, uint64_t p)
{
	return (fe_rng_next(r) >> 32) < p;
}

/* Uniform in [0, n]. */
static inline uint64_t
fe_rng_upto(struct fe_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)fe_rng_next(r) * (n + 1)) >> 64);
}

/* A fraction in [0, 1] as 0.32 fixed point, rounded. */
static inline uint64_t
fe_prob(double f)
{
	return f <= 0 ? 0 : f >= 1 ? FE_PROB_ONE : (uint64_t)(f * (double)FE_PROB_ONE + 0.5);
}

#endif
