/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_routing: routing and the path choice in the graph of switches (docs/topologies.md).
 * The ingress switch writes a frame's route (fe_routing_in(): its destination port, its
 * flow's hash and sequence, FE_ROUTE_*, fe_graph.h); every switch on the way takes its
 * next hop from g->go, built from the routes now (fe_routing_build(), again after a
 * failover), choosing among several ways by the path choice (fe_routing_choose(): ECMP,
 * spray, adaptive, flowlet, entropy). Internal to the engine, on its lcore.
 */
#ifndef FE_ROUTING_H
#define FE_ROUTING_H

#include <string.h>

#include <rte_byteorder.h>

#include "fe_graph.h"

/* g->go: the path choice picks among several ways; _Q: by their queues (adaptive, flowlet) */
#define FE_GOUT_CHOOSE	 (-2)
#define FE_GOUT_CHOOSE_Q (-3)

/* g->go from the routes now: a port's switch delivers, a switch with one way takes it. */
void fe_routing_build(struct fe_graph *g);

/* The next hop of frame m (route r) from switch x, among several ways, by the path choice. */
int32_t fe_routing_choose(struct fe_graph *g, unsigned x, uint64_t r, uint64_t t,
			  struct rte_mbuf *m);

/* A frame's flow hashed, for what fe_routing_hash() does not read in a few loads. */
uint32_t fe_routing_hash_slow(struct rte_mbuf *m);

/*
 * A frame's flow, hashed: its IPv4 5-tuple, else its addresses. The common frame (untagged
 * IPv4 without options, TCP or UDP, not a fragment) is read here in a few loads; any
 * other by fe_routing_hash_slow(): the same hash either way.
 */
static __rte_always_inline uint32_t
fe_routing_hash(struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t sa, da, head;
	uint16_t sp, dp, frag;

	/* bytes 12..14: EtherType 0x0800 and version 4, 20 bytes of header; 20..21: no
	 * fragment offset and not more fragments (flags' MF 0x20 and the offset's 13 bits) */
	if (likely(rte_pktmbuf_data_len(m) >= 14 + 20 + 4)) {
		memcpy(&head, f + 12, 4);
		memcpy(&frag, f + 20, 2);
		if (likely((rte_le_to_cpu_32(head) & 0xffffff) == 0x450008 &&
			   (rte_le_to_cpu_16(frag) & 0xff3f) == 0 && (f[23] == 6 || f[23] == 17))) {
			memcpy(&sa, f + 26, 4);
			memcpy(&da, f + 30, 4);
			memcpy(&sp, f + 34, 2);
			memcpy(&dp, f + 36, 2);
			return fe_nic_tuple_hash(sa, da, sp, dp, f[23]);
		}
	}
	return fe_routing_hash_slow(m);
}

/* Where a frame of route r goes from switch x: FE_GOUT_FLOOD, FE_GOUT_PORT | q, or a hop link. */
static __rte_always_inline int32_t
fe_routing_next(struct fe_dp *dp, unsigned x, uint64_t r, uint64_t t, struct rte_mbuf *m)
{
	struct fe_graph *g = dp->graph;
	int32_t out = g->go[x][FE_ROUTE_DST(r)];

	/* a flood, its port here, or no choice to make (a leaf's one uplink, a spine's one
	 * link down): no call */
	return likely(out >= FE_GOUT_FLOOD) ? out : fe_routing_choose(g, x, r, t, m);
}

/*
 * The route of frame m come in by port `in` of switch x (g->port_sw[in], which the
 * caller has: a load a frame less), out (fe_switch's lookup, a port or -1 to flood),
 * written in the frame: its flow hashed and numbered (a flood: neither). The caller
 * counts it, unicast or flooded.
 */
static __rte_always_inline uint64_t
fe_routing_in(struct fe_dp *dp, unsigned x, unsigned in, int out, struct rte_mbuf *m, uint8_t lane)
{
	struct fe_graph *g = dp->graph;
	uint32_t seq = 0, hash = 0;
	uint64_t r;

	if (out >= 0 && !dp->one_switch) { /* one switch: no path to choose, no reordering */
		hash = fe_routing_hash(m) & 0xffff;
		seq = ++g->seq_tx[in][hash % FE_GRAPH_BUCKET];
	}
	r = (uint64_t)(seq & 0xffff) << 48 | (uint64_t)hash << 32 | (uint64_t)lane << 24 |
	    (uint64_t)x << 16 | (uint64_t)in << 8 | (out >= 0 ? (unsigned)out : FE_ROUTE_FLOOD);
	*fe_graph_route(g, m) = r;
	return r;
}

#endif
