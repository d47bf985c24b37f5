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

struct fe_loss_ops {
	const char *name;
	/* 1 if this packet is lost */
	int (*lost)(struct fe_loss *l, struct fe_rng *r);
};

struct fe_loss {
	const struct fe_loss_ops *ops;	    /* NULL: no loss */
	uint64_t p, r, loss_bad, loss_good; /* 0.32 fixed point */
	uint8_t bad;			    /* GE state */
};

/* Compile params; returns 0 or -EINVAL (a probability outside [0, 1]). */
int fe_loss_compile(const struct fe_loss_params *p, struct fe_loss *l);

static inline int
fe_loss_lost(struct fe_loss *l, struct fe_rng *r)
{
	return l->ops != NULL && l->ops->lost(l, r);
}

#endif
