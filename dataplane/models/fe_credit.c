/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "fe_credit.h"

void
fe_credit_init(struct fe_credit *c, uint32_t blocks, uint32_t unit, uint8_t lanes,
	       uint64_t return_ticks, struct fe_credit_ret *ring)
{
	memset(c, 0, sizeof(*c));
	c->unit = fe_credit_unit_of(unit);
	c->total = blocks;
	c->lanes = lanes;
	c->return_ticks = return_ticks;
	c->ring = ring;
	c->mask = fe_credit_ring_size(blocks, lanes) - 1;
	for (unsigned i = 0; i < lanes; i++) {
		c->avail[i] = blocks;
		c->avail_min[i] = blocks;
	}
}

uint64_t
fe_credit_gate(void *ctx, uint8_t lane, uint32_t len, uint64_t start, uint64_t now)
{
	return fe_credit_gate_inline(ctx, lane, len, start, now);
}

uint32_t
fe_credit_gather(struct fe_credit *c, uint8_t lane, uint32_t blocks)
{
	blocks += c->unsent[lane];
	if (blocks < c->update) {
		c->unsent[lane] = blocks;
		return 0;
	}
	c->unsent[lane] = 0;
	FE_CNT_ADD(c->updates[lane], 1);
	return blocks;
}
