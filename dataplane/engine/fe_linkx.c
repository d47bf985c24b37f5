/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fe_filter.h"
#include "fe_linkx.h"
#include "fe_time.h"

int
fe_linkx_compile(struct fe_linkx_cfg *c, const struct fe_linkdef *d, uint64_t hz, char *err,
		 size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (fe_loss_compile(&d->loss, &c->loss) < 0) {
		snprintf(err, errlen, "bad loss probabilities");
		return -EINVAL;
	}
	c->loss_cause = d->loss.kind == FE_LOSS_GE ? FE_LINK_DROP_BURST : FE_LINK_DROP_RANDOM;
	if (fe_ecn_compile(&d->ecn, &c->ecn) < 0) {
		snprintf(err, errlen, "bad ecn thresholds");
		return -EINVAL;
	}
	c->jitter_ticks = fe_ns_to_ticks(d->link.jitter_ns, hz);
	c->llr = d->llr != 0;
	c->drop_first = d->drop_first;
	c->drop_count = d->drop_count;
	if (d->match[0] != '\0') {
		c->filter = fe_filter_create(d->match, err, errlen);
		if (c->filter == NULL)
			return -EINVAL;
	}
	c->active = c->loss.ops || c->ecn.enabled || c->jitter_ticks || c->drop_count;
	return 0;
}

void
fe_linkx_init(struct fe_linkx *x, const struct fe_linkx_cfg *c, uint64_t seed, unsigned stream)
{
	memset(x, 0, sizeof(*x));
	x->cfg = *c;
	fe_rng_seed(&x->rng, seed, stream);
}
