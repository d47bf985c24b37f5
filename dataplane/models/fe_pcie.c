/* SPDX-License-Identifier: BSD-3-Clause */
/* The receiving host's PCIe (fe_pcie.h): uet-htsim's PCIeModel, in ticks and bytes. */
#include "fe_pcie.h"

#define FLOOR_SHARE 5	/* the full rate under limit / 5: the simulator's 1 MB of 5 */
#define NEAR_FULL   95	/* per cent of the limit above which ... */
#define LEAST16	    66u /* ... the rate is 0.001 (x 2^16) */

void
fe_pcie_compile(uint64_t bps, uint64_t limit, uint64_t hz, struct fe_pcie_cfg *c)
{
	unsigned __int128 fp;

	c->limit = fe_pcie_limit(limit);
	c->floor = c->limit / FLOOR_SHARE;
	c->fp_per_byte = 0;
	if (bps == 0)
		return;
	fp = (unsigned __int128)8 * hz * 65536 / bps;
	/* the tick a full backlog is across stays far from wrapping */
	if (fp > ((unsigned __int128)1 << 78) / c->limit)
		fp = ((unsigned __int128)1 << 78) / c->limit;
	c->fp_per_byte = fp ? (uint64_t)fp : 1;
}

uint64_t
fe_pcie_backlog(const struct fe_pcie *s, const struct fe_pcie_cfg *c, uint64_t now)
{
	unsigned __int128 fp;

	if (c->fp_per_byte == 0 || s->free < now || (s->free == now && s->frac == 0))
		return 0;
	fp = ((unsigned __int128)(s->free - now) << 16) + s->frac;
	return (uint64_t)((fp + c->fp_per_byte - 1) / c->fp_per_byte);
}

int
fe_pcie_take(struct fe_pcie *s, const struct fe_pcie_cfg *c, uint64_t now, uint32_t len,
	     uint64_t *at)
{
	unsigned __int128 fp;

	if (c->fp_per_byte == 0) { /* not modelled: across at once */
		*at = now;
		return 0;
	}
	if (fe_pcie_backlog(s, c, now) + len > c->limit)
		return -1;
	if (s->free < now) { /* idle since: it starts now */
		s->free = now;
		s->frac = 0;
	}
	fp = (unsigned __int128)len * c->fp_per_byte + s->frac;
	s->free += (uint64_t)(fp >> 16);
	s->frac = (uint32_t)(fp & 0xffff);
	*at = s->free;
	return 0;
}

uint32_t
fe_pcie_rate16(const struct fe_pcie_cfg *c, uint64_t backlog)
{
	double x;

	if (c->fp_per_byte == 0 || backlog < c->floor)
		return FE_PCIE_FULL;
	if (backlog * 100 > c->limit * NEAR_FULL)
		return LEAST16;
	/* the simulator's quadratic model: 1 at the floor, falling to 0 at the limit */
	x = (double)(c->limit - backlog) / (double)(c->limit - c->floor);
	x = x * x * FE_PCIE_FULL;
	return x < LEAST16 ? LEAST16 : x > FE_PCIE_FULL ? FE_PCIE_FULL : (uint32_t)(x + 0.5);
}
