/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_flood: floods and failover in the graph of switches. A flood follows the
 * breadth-first tree of its ingress switch (g->tree): at each switch, a copy to each of
 * its hosts but the sender and to each child in the tree, never a loop. A link between
 * switches that loses everything for the failover time is routed around: the routes and
 * the trees are computed again over the links up (fe_flood_failover()), and again once
 * it is back. Internal to the engine, on its lcore.
 */
#ifndef FE_FLOOD_H
#define FE_FLOOD_H

#include "fe_graph.h"
#include "fe_hop.h"
#include "fe_regime.h"

/* Once a regime (sfx: lossy, pfc, credit): a flood at switch x from input src at t. */
#define FE_FLOOD_DECLARE(sfx)                                                                      \
	void fe_flood_##sfx(struct fe_dp *dp, unsigned x, unsigned src, struct rte_mbuf *m,        \
			    uint64_t t);
FE_FLOOD_DECLARE(lossy)
FE_FLOOD_DECLARE(pfc)
FE_FLOOD_DECLARE(credit)

/*
 * Links that lose everything (a flap, a cut): once seen so for the failover time they
 * are routed around; once back, routed over again. Run when any link is down.
 */
void fe_flood_failover(struct fe_graph *g, uint64_t now);

/* Frame m (route r) leaves switch x, from input src, toward out (fe_routing_next()). */
static __rte_always_inline void
fe_flood_forward(struct fe_dp *dp, unsigned x, unsigned src, struct rte_mbuf *m, uint64_t r,
		 uint64_t t, int32_t out, const enum fe_regime R)
{
	if (out == FE_GOUT_FLOOD)
		FE_RG_CALL(R, fe_flood, dp, x, src, m, t);
	else if (out & FE_GOUT_PORT)
		fe_hop_deliver(dp, src, m, r, (unsigned)(out & 0xffff), t, R);
	else
		fe_hop_to(dp, src, (uint16_t)out, m, t, FE_ROUTE_LANE(r), R);
}

#endif
