/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_loss: random packet loss, one decision per packet. Two models, each an ops
 * struct chosen once when the link is compiled:
 *   bernoulli  every packet is lost with probability p;
 *   gilbert-elliott  a two-state Markov chain (as netem's "gemodel"): from Good to Bad
 *              with probability p, back with r; a packet is lost with probability
 *              loss_bad in Bad and loss_good in Good. With loss_bad = 1, loss_good = 0
 *              the mean loss is p / (p + r) and the mean burst 1 / r packets.
 * Pure: the caller passes the link's PRNG.
 */
#ifndef FE_LOSS_H
#define FE_LOSS_H

#include <stdint.h>

#include "fe_rng.h"

enum fe_loss_kind {
	FE_LOSS_NONE,
	FE_LOSS_BERNOULLI,
	FE_LOSS_GE,
};

/* User units: fractions in [0, 1]. */
struct fe_loss_params {
	enum fe_loss_kind kind;
	double p;	  /* bernoulli: loss probability; GE: P(Good -> Bad) */
	double r;	  /* GE: P(Bad -> Good) */
	double loss_bad;  /* GE: loss probability in Bad (netem 1-h) */
	double loss_good; /* GE: loss probability in Good (netem 1-k) */
};

struct fe_loss;

/* The chain's state, apart from its compiled configuration: a change of the link that
 * leaves its loss model as it was keeps it. */
struct fe_loss_state {
	uint8_t bad; /* GE: in Bad */
};

struct fe_loss_ops {
	const char *name;
	/* 1 if this packet is lost */
	int (*lost)(const struct fe_loss *l, struct fe_loss_state *s, struct fe_rng *r);
};

/* Compiled configuration: never written once compiled. */
struct fe_loss {
	const struct fe_loss_ops *ops;	    /* NULL: no loss */
	uint64_t p, r, loss_bad, loss_good; /* 0.32 fixed point */
};

/* Compile params; returns 0 or -EINVAL (a probability outside [0, 1]). */
int fe_loss_compile(const struct fe_loss_params *p, struct fe_loss *l);

/* a and b are the same loss model (a change from one to the other keeps the state). */
static inline int
fe_loss_same(const struct fe_loss *a, const struct fe_loss *b)
{
	return a->ops == b->ops && a->p == b->p && a->r == b->r && a->loss_bad == b->loss_bad &&
	       a->loss_good == b->loss_good;
}

static inline int
fe_loss_lost(const struct fe_loss *l, struct fe_loss_state *s, struct fe_rng *r)
{
	return l->ops != NULL && l->ops->lost(l, s, r);
}

/*
 * Link-level retry (fe_link.h) of a frame the model just hit: each sending again is drawn
 * as a frame of its own. How many sendings again it took to get through, 1 to max, or
 * max + 1 if every one was hit.
 */
static inline unsigned
fe_loss_replays(const struct fe_loss *l, struct fe_loss_state *s, struct fe_rng *r, unsigned max)
{
	unsigned k = 1;

	while (k <= max && fe_loss_lost(l, s, r))
		k++;
	return k;
}

#endif
