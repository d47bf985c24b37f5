/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "fe_loss.h"

static int
bernoulli_lost(const struct fe_loss *l, struct fe_loss_state *s, struct fe_rng *r)
{
	(void)s;
	return fe_rng_chance(r, l->p);
}

/* Change state first, then decide in the new state (netem's order). */
static int
ge_lost(const struct fe_loss *l, struct fe_loss_state *s, struct fe_rng *r)
{
	if (s->bad) {
		if (fe_rng_chance(r, l->r))
			s->bad = 0;
	} else if (fe_rng_chance(r, l->p)) {
		s->bad = 1;
	}
	return fe_rng_chance(r, s->bad ? l->loss_bad : l->loss_good);
}

static const struct fe_loss_ops bernoulli_ops = {"bernoulli", bernoulli_lost};
static const struct fe_loss_ops ge_ops = {"gilbert-elliott", ge_lost};

static int
valid(double f)
{
	return f >= 0 && f <= 1;
}

int
fe_loss_compile(const struct fe_loss_params *p, struct fe_loss *l)
{
	memset(l, 0, sizeof(*l));
	if (!valid(p->p) || !valid(p->r) || !valid(p->loss_bad) || !valid(p->loss_good))
		return -EINVAL;
	l->p = fe_prob(p->p);
	l->r = fe_prob(p->r);
	l->loss_bad = fe_prob(p->loss_bad);
	l->loss_good = fe_prob(p->loss_good);
	switch (p->kind) {
	case FE_LOSS_NONE:
		break;
	case FE_LOSS_BERNOULLI:
		l->ops = p->p > 0 ? &bernoulli_ops : NULL;
		break;
	case FE_LOSS_GE:
		l->ops = &ge_ops;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}
