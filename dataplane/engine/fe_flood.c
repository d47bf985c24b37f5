/* SPDX-License-Identifier: BSD-3-Clause */
/* Floods and failover (fe_flood.h). */
#include <string.h>

#include <rte_mbuf.h>

#include "fe_flood.h"
#include "fe_nictag.h"
#include "fe_routing.h"

/* A flood at switch x: its hosts (but the sender), and its children in the origin's tree. */
static __rte_always_inline void
fe_flood_at(struct fe_dp *dp, unsigned x, unsigned src, struct rte_mbuf *m, uint64_t t,
	    const enum fe_regime R)
{
	struct fe_graph *g = dp->graph;
	uint64_t r = *fe_graph_route(g, m);
	unsigned origin = FE_ROUTE_ORIGIN(r), n = 0;
	struct {
		unsigned port; /* a host port, or UINT32_MAX: a hop link */
		uint16_t hop;
	} to[RTE_MAX_ETHPORTS + FE_GRAPH_SW * 4];

	/* a queue pair's frame flooded (its destination forgotten since it was sent): every
	 * host gets a plain copy, and the sender's NIC recovers the one its peer missed */
	if (dp->nic_pool != NULL)
		fe_nic_flooded(dp, m);
	for (unsigned p = 0; p < dp->nports; p++)
		if (g->port_sw[p] == x && p != FE_ROUTE_IN(r))
			to[n++].port = p;
	for (unsigned h = 0; h < g->nhl && n < RTE_DIM(to); h++)
		if (g->hl[h].from == x && g->tree[origin][g->hl[h].to] == h)
			to[n++] = (typeof(to[0])){.port = UINT32_MAX, .hop = (uint16_t)h};
	if (n == 0) { /* a switch of the flood's tree with no host and no further branch */
		FE_CNT_ADD(dp->sw.flood_ends, 1);
		rte_pktmbuf_free(m);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *c = i + 1 == n ? m : rte_pktmbuf_copy(m, dp->pool, 0, UINT32_MAX);

		if (c == NULL) {
			FE_CNT_ADD(dp->sw.nombuf, 1);
			continue;
		}
		if (to[i].port != UINT32_MAX)
			fe_hop_deliver(dp, src, c, r, to[i].port, t, R);
		else
			fe_hop_to(dp, src, to[i].hop, c, t, FE_ROUTE_LANE(r), R);
	}
}

/* The floods, one copy a regime (fe_regime.h): the regime a constant. */
#define FLOOD_REGIME(sfx, R)                                                                       \
	void fe_flood_##sfx(struct fe_dp *dp, unsigned x, unsigned src, struct rte_mbuf *m,        \
			    uint64_t t)                                                            \
	{                                                                                          \
		fe_flood_at(dp, x, src, m, t, R);                                                  \
	}

FLOOD_REGIME(lossy, FE_REGIME_LOSSY)
FLOOD_REGIME(pfc, FE_REGIME_PFC)
FLOOD_REGIME(credit, FE_REGIME_CREDIT)

/*
 * Breadth-first from switch root over the directions not routed around, in the links'
 * order: along each link's direction, or (reverse) against it. dist[s]: hops from root
 * (0xff: not reached); via[s] (via: may be NULL): the link the search reached s by.
 */
static void
reach(const struct fe_graph *g, unsigned root, int reverse, uint8_t *dist, uint16_t *via)
{
	unsigned queue[FE_GRAPH_SW], head = 0, tail = 0;

	memset(dist, 0xff, FE_GRAPH_SW);
	dist[root] = 0;
	queue[tail++] = root;
	while (head != tail) {
		unsigned u = queue[head++];

		for (unsigned h = 0; h < g->nhl; h++) {
			const struct fe_hoplink *l = &g->hl[h];
			unsigned from = reverse ? l->to : l->from, to = reverse ? l->from : l->to;

			if (from != u || l->routed_around || dist[to] != 0xff)
				continue;
			dist[to] = (uint8_t)(dist[u] + 1);
			if (via != NULL)
				via[to] = (uint16_t)h;
			queue[tail++] = to;
		}
	}
}

/*
 * The broadcast trees over the links that are up: breadth-first from each root (reach()),
 * as fe_route_compute() builds the topology's (all links up: the same trees). A switch no
 * such tree reaches keeps its hop of the topology's tree (a link down: its copies are
 * lost there).
 */
static void
retree(struct fe_graph *g)
{
	uint8_t dist[FE_GRAPH_SW];
	uint16_t via[FE_GRAPH_SW];

	memcpy(g->tree, g->tree0, sizeof(g->tree));
	for (unsigned r = 0; r < g->nsw; r++) {
		reach(g, r, 0, dist, via);
		for (unsigned s = 0; s < g->nsw; s++)
			if (s != r && dist[s] != 0xff)
				g->tree[r][s] = via[s];
	}
}

/*
 * Routes over the links that are up (failover): shortest paths from every switch toward
 * every other over the directions not routed around (reach() from the destination,
 * against the links), as routing converges once a link is withdrawn; a pair that has no
 * such path keeps its routes (its frames are lost). The broadcast trees too (retree()).
 */
static void
reroute(struct fe_graph *g)
{
	uint8_t dist[FE_GRAPH_SW];

	memcpy(g->nnh, g->nnh0, sizeof(g->nnh));
	memcpy(g->nh, g->nh0, sizeof(g->nh));
	retree(g);
	for (unsigned d = 0; d < g->nsw; d++) {
		reach(g, d, 1, dist, NULL);
		for (unsigned s = 0; s < g->nsw; s++) {
			unsigned n = 0;

			if (s == d || dist[s] == 0xff)
				continue;
			for (unsigned h = 0; h < g->nhl && n < FE_GRAPH_WAYS; h++)
				if (g->hl[h].from == s && !g->hl[h].routed_around &&
				    dist[g->hl[h].to] + 1 == dist[s])
					g->nh[s][d][n++] = (uint16_t)h;
			if (n)
				g->nnh[s][d] = (uint8_t)n;
		}
	}
	fe_routing_build(g);
}

void
fe_flood_failover(struct fe_graph *g, uint64_t now)
{
	int changed = 0, down = 0;

	for (unsigned i = 0; i < g->nhl; i++) {
		struct fe_hoplink *h = &g->hl[i];

		if (!fe_graph_link_down(h)) {
			changed |= h->routed_around;
			h->routed_around = 0;
			h->down_seen = 0;
			continue;
		}
		down = 1;
		if (h->down_seen == 0)
			h->down_seen = now ? now : 1;
		if (!h->routed_around && now - h->down_seen >= g->failover_ticks) {
			h->routed_around = 1;
			FE_CNT_ADD(h->failovers, 1);
			changed = 1;
		}
	}
	if (changed)
		reroute(g);
	g->any_down = down || changed; /* checked again next pass until all are back */
}
