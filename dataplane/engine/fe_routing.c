/* SPDX-License-Identifier: BSD-3-Clause */
/* Routing and the path choice (fe_routing.h): g->go, the choice among ways, the hash. */
#include <string.h>

#include <rte_mbuf.h>

#include "fe_nictag.h"
#include "fe_routing.h"

/*
 * A frame's flow, hashed: its IPv4 5-tuple, else its addresses. The common frame (untagged
 * IPv4 without options, TCP or UDP, not a fragment) is read here in a few loads; any
 * other goes through fe_nic_flow_key(): the same hash either way.
 */
uint32_t
fe_routing_hash_slow(struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct fe_nic_key k;
	uint64_t a = 0, b = 0;

	if (fe_nic_flow_key(f, rte_pktmbuf_data_len(m), &k) == 0)
		return fe_nic_key_hash(&k);
	memcpy(&a, f, 6);
	memcpy(&b, f + 6, 6);
	a = (a ^ b * 0x9e3779b97f4a7c15ULL) * 0xc2b2ae3d27d4eb4fULL;
	return (uint32_t)(a >> 32 ^ a);
}

static inline uint32_t
mix(uint32_t h, uint32_t seed)
{
	uint64_t x = ((uint64_t)h ^ seed) * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(x >> 32);
}

/* The way of ways[n] with the least queued at t; among equals, the flow's own. */
static unsigned
least_queued(struct fe_graph *g, const uint16_t *ways, unsigned n, unsigned x, uint32_t hash,
	     uint64_t t)
{
	uint64_t best = UINT64_MAX;
	unsigned k = 0;

	for (unsigned i = 0, h0 = mix(hash, g->seed[x]) % n; i < n; i++) {
		unsigned w = (h0 + i) % n;
		/* and what the pass has given it but not offered yet (lossy, fe_graph.h) */
		uint64_t q = fe_link_backlog(&g->hl[ways[w]].row.l, t) +
			     (g->stage_hops ? g->hstage[ways[w]].bytes : 0);

		if (q < best) {
			best = q;
			k = w;
		}
	}
	return k;
}

/* The most hops from switch y to switch d on the routes now (h[]: 0xff unknown yet, 0xfe
 * being found: a loop in the routes counts as 0). */
static uint8_t
height(const struct fe_graph *g, unsigned y, unsigned d, uint8_t *h)
{
	uint8_t best = 0;

	if (h[y] == 0xfe)
		return 0;
	if (h[y] != 0xff)
		return h[y];
	h[y] = 0xfe;
	for (unsigned k = 0; y != d && k < g->nnh[y][d]; k++) {
		uint8_t up = (uint8_t)(height(g, g->hl[g->nh[y][d][k]].to, d, h) + 1);

		best = RTE_MAX(best, up);
	}
	return h[y] = best;
}

/*
 * The order a lossy pass visits the links between switches in (g->visit, fe_graph.h): by
 * level, a link's the farthest it is from a route's first switch on any route (toward each
 * switch d: the switches taken from the farthest from d on, each link one past the most
 * hops any route took to its first switch), so that in a graph whose routes go up then
 * down (leaf-spine, fat-tree, rail) every link that feeds another comes before it. Links on
 * no route (flood trees alone): level 0, first.
 */
static void
levels(struct fe_graph *g)
{
	unsigned count[FE_GRAPH_SW + 2] = {0};
	uint8_t hosts[FE_GRAPH_SW] = {0};

	for (unsigned q = 0; q <= FE_GRAPH_PORTS; q++) /* frames go to a host's switch alone */
		if (g->glob[q] != 0xff)
			hosts[g->port_sw[q]] = 1;
	for (unsigned i = 0; i < g->nhl; i++)
		g->hl[i].level = 0;
	for (unsigned d = 0; d < g->nsw; d++) {
		uint8_t h[FE_GRAPH_SW], depth[FE_GRAPH_SW];

		if (!hosts[d])
			continue;
		memset(h, 0xff, sizeof(h));
		for (unsigned y = 0; y < g->nsw; y++) {
			height(g, y, d, h);
			/* a route starts at a host's switch: a switch no host's frame reaches
			 * toward d (a route failover left it) starts none */
			depth[y] = hosts[y] ? 0 : 0xff;
		}
		/* the farthest from d first: a route's switches come before those it goes to */
		for (int far = FE_GRAPH_SW; far > 0; far--)
			for (unsigned y = 0; y < g->nsw; y++)
				for (unsigned k = 0;
				     h[y] == far && depth[y] != 0xff && k < g->nnh[y][d]; k++) {
					uint16_t w = g->nh[y][d][k];
					uint8_t v = (uint8_t)RTE_MIN(depth[y] + 1, FE_GRAPH_SW);

					g->hl[w].level = RTE_MAX(g->hl[w].level, v);
					if (depth[g->hl[w].to] == 0xff || depth[g->hl[w].to] < v)
						depth[g->hl[w].to] = v;
				}
	}
	for (unsigned i = 0; i < g->nhl; i++)
		count[g->hl[i].level]++;
	g->nlvl = 0;
	for (unsigned v = 0, at = 0; v <= FE_GRAPH_SW; v++) {
		if (count[v] == 0)
			continue;
		for (unsigned i = 0; i < g->nhl; i++)
			if (g->hl[i].level == v)
				g->visit[at++] = (uint16_t)i;
		g->lvl_end[g->nlvl++] = (uint16_t)at;
	}
}

/* g->go from the routes now: a port's switch delivers, a switch with one way takes it;
 * and the order a lossy pass visits the links in. */
void
fe_routing_build(struct fe_graph *g)
{
	for (unsigned x = 0; x < g->nsw; x++)
		for (unsigned q = 0; q <= FE_GRAPH_PORTS; q++) {
			unsigned d = g->port_sw[q];

			if (q == FE_ROUTE_FLOOD)
				g->go[x][q] = FE_GOUT_FLOOD;
			else if (d == x)
				g->go[x][q] = FE_GOUT_PORT | (int32_t)q;
			else if (g->nnh[x][d] == 1)
				g->go[x][q] = g->nh[x][d][0];
			else if (g->path == FE_PATH_ADAPTIVE || g->path == FE_PATH_FLOWLET)
				g->go[x][q] = FE_GOUT_CHOOSE_Q;
			else
				g->go[x][q] = FE_GOUT_CHOOSE;
		}
	if (g->visit != NULL)
		levels(g);
}

/* The next hop from switch x toward switch d among n > 1 ways, by the path choice. */
static __rte_noinline uint16_t
choose_among(struct fe_graph *g, unsigned x, const uint16_t *ways, unsigned n, uint32_t hash,
	     uint64_t t)
{
	unsigned k;

	switch (g->path) {
	case FE_PATH_SPRAY:
		k = g->rr[x]++ % n;
		break;
	case FE_PATH_SPRAY_RANDOM:
		k = (unsigned)((fe_rng_next(&g->rng) >> 32) * n >> 32);
		break;
	case FE_PATH_ADAPTIVE:
		k = least_queued(g, ways, n, x, hash, t);
		break;
	case FE_PATH_FLOWLET: {
		struct fe_flowlet *f = &g->flowlet[x][mix(hash, g->seed[x]) % FE_GRAPH_FLOWLETS];

		/* a gap since the flow's last frame here: a new flowlet, a fresh choice */
		if (f->hash != hash || t - f->last > g->flowlet_ticks || f->way >= n) {
			if (f->hash == hash && f->last != 0)
				FE_CNT_ADD(g->flowlets, 1);
			f->hash = hash;
			f->way = (uint16_t)least_queued(g, ways, n, x, hash, t);
		}
		f->last = t;
		k = f->way;
		break;
	}
	default: /* ecmp, polarized */
		k = mix(hash, g->seed[x]) % n;
		break;
	}
	return ways[k];
}

/* The next hop of frame m (route r) from switch x, among several ways. */
int32_t
fe_routing_choose(struct fe_graph *g, unsigned x, uint64_t r, uint64_t t, struct rte_mbuf *m)
{
	unsigned d = g->port_sw[FE_ROUTE_DST(r)];
	uint32_t hash = FE_ROUTE_HASH(r);

	if (g->path == FE_PATH_ENTROPY && g->nic_tags) /* its flow and its NIC's entropy */
		hash |= fe_nic_tag_entropy(*RTE_MBUF_DYNFIELD(m, g->tagoff, uint64_t *)) << 16;
	return choose_among(g, x, g->nh[x][d], g->nnh[x][d], hash, t);
}
