/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "fe_graph.h"
#include "fe_switch.h"
#include "fe_time.h"

/*
 * A frame's route, in its mbuf: the destination port (0xff: a flood), the ingress port,
 * the ingress switch (a flood's tree), its lane, its flow's hash (taken once, at the
 * ingress switch) and its sequence in its flow (reordering, modulo 2^16).
 */
#define R_DST(r)    ((unsigned)((r)&0xff))
#define R_IN(r)	    ((unsigned)((r) >> 8 & 0xff))
#define R_ORIGIN(r) ((unsigned)((r) >> 16 & 0xff))
#define R_LANE(r)   ((uint8_t)((r) >> 24 & 0xff))
#define R_HASH(r)   ((uint32_t)((r) >> 32 & 0xffff))
#define R_SEQ(r)    ((uint16_t)((r) >> 48))
#define R_FLOOD	    0xff

static inline uint64_t *
route_of(const struct fe_graph *g, struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, g->dynoff, uint64_t *);
}

int
fe_graph_create(struct fe_dp *dp, const struct fe_graph_conf *c, int socket, char *err,
		size_t errlen)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "fabemu_route", .size = sizeof(uint64_t), .align = __alignof__(uint64_t)};
	struct fe_graph *g;

	if (c->nsw > FE_GRAPH_SW || dp->nports > 255) {
		snprintf(err, errlen, "a topology of at most %d switches and 255 ports",
			 FE_GRAPH_SW);
		return -EINVAL;
	}
	if (dp->conf.regime != FE_REGIME_LOSSY || dp->conf.lcores > 1) {
		snprintf(err, errlen,
			 "a topology of several switches runs the lossy regime on one lcore "
			 "(hop-by-hop credits and PFC are not built yet)");
		return -EINVAL;
	}
	g = rte_zmalloc_socket("fe_graph", sizeof(*g), RTE_CACHE_LINE_SIZE, socket);
	if (g == NULL)
		goto nomem;
	dp->graph = g;
	g->nsw = c->nsw;
	g->nhl = 2 * c->nlinks;
	g->path = c->path;
	g->dynoff = rte_mbuf_dynfield_register(&desc);
	if (g->dynoff < 0) {
		snprintf(err, errlen, "no mbuf field for routes: %s", rte_strerror(rte_errno));
		return -EINVAL;
	}
	memcpy(g->port_sw, c->port_sw, dp->nports);
	memcpy(g->nnh, c->nnh, sizeof(g->nnh));
	memcpy(g->nh, c->nh, sizeof(g->nh));
	memcpy(g->tree, c->tree, sizeof(g->tree));
	for (unsigned s = 0; s < g->nsw; s++)
		g->seed[s] = c->path == FE_PATH_POLARIZED ? 0x9e3779b9u : 0x9e3779b9u * (s + 1);
	g->hl = rte_zmalloc_socket("fe_graph", sizeof(*g->hl) * (g->nhl ? g->nhl : 1),
				   RTE_CACHE_LINE_SIZE, socket);
	g->seq_tx = rte_zmalloc_socket("fe_graph", sizeof(*g->seq_tx) * dp->nports, 0, socket);
	g->seq_rx = rte_zmalloc_socket("fe_graph", sizeof(*g->seq_rx) * dp->nports, 0, socket);
	if (g->hl == NULL || g->seq_tx == NULL || g->seq_rx == NULL)
		goto nomem;
	for (unsigned i = 0; i < g->nhl; i++) {
		struct fe_hoplink *h = &g->hl[i];
		const struct fe_link_params *p = &c->link[i / 2];
		struct fe_link_slot *slots;
		struct fe_link_cfg cfg;
		const char *what;

		h->prm = *p;
		h->from = c->ends[i / 2][i % 2];
		h->to = c->ends[i / 2][1 - i % 2];
		snprintf(h->name, sizeof(h->name), "%s>%s", c->sw_names[h->from],
			 c->sw_names[h->to]);
		if (fe_link_params_check(p, &what) < 0 || fe_link_compile(p, dp->hz, &cfg) < 0) {
			snprintf(err, errlen, "link %s: bad %s", h->name, what);
			return -EINVAL;
		}
		slots = rte_zmalloc_socket("fe_graph", sizeof(*slots) * cfg.nslots,
					   RTE_CACHE_LINE_SIZE, socket);
		if (slots == NULL)
			goto nomem;
		fe_link_init(&h->l, &cfg, slots);
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the topology");
	return -ENOMEM;
}

void
fe_graph_free(struct fe_graph *g)
{
	if (g == NULL)
		return;
	for (unsigned i = 0; g->hl && i < g->nhl; i++)
		rte_free(g->hl[i].l.slots);
	rte_free(g->hl);
	rte_free(g->seq_tx);
	rte_free(g->seq_rx);
	rte_free(g);
}

/* A frame's flow, hashed: its IPv4 5-tuple, else its addresses. */
static uint32_t
flow_hash(struct rte_mbuf *m)
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

/* The next hop from switch x toward switch d, by the path choice. */
static const struct fe_hoplink *
choose(struct fe_graph *g, unsigned x, unsigned d, uint32_t hash, uint64_t t, uint16_t *hop)
{
	unsigned n = g->nnh[x][d], k = 0;

	switch (g->path) {
	case FE_PATH_SPRAY:
		k = g->rr[x]++ % n;
		break;
	case FE_PATH_ADAPTIVE: {
		uint64_t best = UINT64_MAX;

		/* the least queued; among equals, the flow's own (no needless reordering) */
		for (unsigned i = 0, h0 = mix(hash, g->seed[x]) % n; i < n; i++) {
			unsigned w = (h0 + i) % n;
			uint64_t q = fe_link_backlog(&g->hl[g->nh[x][d][w]].l, t);

			if (q < best) {
				best = q;
				k = w;
			}
		}
		break;
	}
	default: /* ecmp, polarized */
		k = mix(hash, g->seed[x]) % n;
		break;
	}
	*hop = g->nh[x][d][k];
	return &g->hl[*hop];
}

/* Into hop link h at t; a drop (its buffer full) is counted by the link and freed. */
static void
hop(struct fe_graph *g, uint16_t h, struct rte_mbuf *m, uint64_t t, uint8_t lane)
{
	(void)g;
	if (fe_link_enqueue_x(&g->hl[h].l, m, rte_pktmbuf_pkt_len(m), t, 0, FE_LABEL(0, lane)) < 0)
		rte_pktmbuf_free(m);
}

/* To the host of port q: its down link, as one switch would; reordering counted here. */
static void
deliver(struct fe_dp *dp, struct rte_mbuf *m, unsigned q, uint64_t t)
{
	struct fe_graph *g = dp->graph;
	uint64_t r = *route_of(g, m);
	unsigned in = R_IN(r);
	uint32_t *last = &g->seq_rx[q][in][R_HASH(r) % FE_GRAPH_BUCKET];

	if (R_DST(r) != R_FLOOD) {
		/* a frame behind one of its flow that left later: reordered on the way */
		if ((int16_t)(R_SEQ(r) - (uint16_t)*last) < 0)
			FE_CNT_ADD(g->ooo[q], 1);
		else
			*last = R_SEQ(r);
	}
	fe_switch_egress(dp, in, q, m, t, R_LANE(r));
}

/* A flood at switch x: its hosts (but the sender), and its children in the origin's tree. */
static void
flood_at(struct fe_dp *dp, unsigned x, struct rte_mbuf *m, uint64_t t)
{
	struct fe_graph *g = dp->graph;
	uint64_t r = *route_of(g, m);
	unsigned origin = R_ORIGIN(r), n = 0;
	struct {
		unsigned port; /* a host port, or UINT32_MAX: a hop link */
		uint16_t hop;
	} to[RTE_MAX_ETHPORTS + FE_GRAPH_SW * 4];

	for (unsigned p = 0; p < dp->nports; p++)
		if (g->port_sw[p] == x && p != R_IN(r))
			to[n++].port = p;
	for (unsigned h = 0; h < g->nhl && n < RTE_DIM(to); h++)
		if (g->hl[h].from == x && g->tree[origin][g->hl[h].to] == h)
			to[n++] = (typeof(to[0])){.port = UINT32_MAX, .hop = (uint16_t)h};
	if (n == 0) {
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
			deliver(dp, c, to[i].port, t);
		else
			hop(g, to[i].hop, c, t, R_LANE(r));
	}
}

/* Frame m is at switch x at t: to its host, or on toward it. */
static void
at_switch(struct fe_dp *dp, unsigned x, struct rte_mbuf *m, uint64_t t)
{
	struct fe_graph *g = dp->graph;
	uint64_t r = *route_of(g, m);
	unsigned q = R_DST(r);
	uint16_t h;

	if (q == R_FLOOD) {
		flood_at(dp, x, m, t);
		return;
	}
	if (g->port_sw[q] == x) {
		deliver(dp, m, q, t);
		return;
	}
	choose(g, x, g->port_sw[q], R_HASH(r), t, &h);
	hop(g, h, m, t, R_LANE(r));
}

void
fe_graph_ingress(struct fe_dp *dp, unsigned in, int out, struct rte_mbuf *m, uint64_t t,
		 uint8_t lane)
{
	struct fe_graph *g = dp->graph;
	unsigned x = g->port_sw[in];
	uint32_t seq = 0, hash = 0;

	if (out == -2) { /* the destination is on the ingress port itself */
		FE_CNT_ADD(dp->sw.filtered, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (out >= 0) {
		hash = flow_hash(m) & 0xffff;
		seq = ++g->seq_tx[in][hash % FE_GRAPH_BUCKET];
		FE_CNT_ADD(dp->sw.unicast, 1);
	} else {
		FE_CNT_ADD(dp->sw.flooded, 1);
	}
	*route_of(g, m) = (uint64_t)(seq & 0xffff) << 48 | (uint64_t)hash << 32 |
			  (uint64_t)lane << 24 | (uint64_t)x << 16 | (uint64_t)in << 8 |
			  (out >= 0 ? (unsigned)out : R_FLOOD);
	at_switch(dp, x, m, t);
}

unsigned
fe_graph_service(struct fe_dp *dp, uint64_t now)
{
	struct fe_graph *g = dp->graph;
	unsigned total = 0, n;

	/* hop by hop: what one link delivers may cross the next in the same pass */
	do {
		n = 0;
		for (unsigned i = 0; i < g->nhl; i++) {
			void *pkts[FE_BURST];
			uint64_t stamps[FE_BURST];
			unsigned k;

			/* most links, most passes: nothing due (one load, no call) */
			if (fe_link_next_arrival(&g->hl[i].l) > now)
				continue;
			k = fe_link_dequeue(&g->hl[i].l, now, pkts, stamps, FE_BURST);

			for (unsigned j = 0; j < k; j++)
				at_switch(dp, g->hl[i].to, pkts[j], stamps[j]);
			n += k;
		}
		total += n;
	} while (n && total < 64 * FE_BURST);
	return total;
}

uint64_t
fe_graph_next_event(const struct fe_dp *dp)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; dp->graph && i < dp->graph->nhl; i++)
		next = RTE_MIN(next, fe_link_next_arrival(&dp->graph->hl[i].l));
	return next;
}

uint64_t
fe_graph_held(const struct fe_dp *dp)
{
	uint64_t n = 0;

	for (unsigned i = 0; dp->graph && i < dp->graph->nhl; i++)
		n += fe_link_count(&dp->graph->hl[i].l);
	return n;
}

void
fe_graph_drain(struct fe_dp *dp)
{
	void *pkts[FE_BURST];
	unsigned n;

	for (unsigned i = 0; dp->graph && i < dp->graph->nhl; i++)
		while ((n = fe_link_flush(&dp->graph->hl[i].l, pkts, FE_BURST)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
}
