/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_graph: the fabric as a graph of switches (a topology, docs/topologies.md) inside the
 * engine. Each port's host is on a switch; switches are joined by links, each direction
 * an emulated link of its own (a hop link). Internal to the engine, on its lcore.
 *
 *   port p RX -> up[p] -> switch S(p) -> hop links, switch by switch -> S(q) -> down[q]
 *
 * The destination port is looked up once, at the ingress switch (a host's address is
 * known fabric-wide once its edge switch learned it); every switch on the way picks one of
 * its routes' next hops (fe_route.h) by the path choice; a flood follows the breadth-first
 * tree of its ingress switch and never loops. Lossy regime only (hop-by-hop credits and
 * PFC are not built yet).
 */
#ifndef FE_GRAPH_H
#define FE_GRAPH_H

#include "fe_dp.h"

#define FE_GRAPH_SW	64
#define FE_GRAPH_WAYS	16 /* next hops kept a route (the rest unused) */
#define FE_GRAPH_BUCKET 64 /* flows told apart a pair of ports, for reordering */

enum fe_path {
	FE_PATH_ECMP,	   /* a flow's 5-tuple hash, seeded per switch */
	FE_PATH_POLARIZED, /* the same hash on every switch: the polarization case */
	FE_PATH_SPRAY,	   /* per packet, round robin */
	FE_PATH_ADAPTIVE,  /* per packet, the next hop with the least queued */
};
#define FE_PATH_ALLOWED "ecmp, polarized, spray, adaptive"

static inline const char *
fe_path_name(enum fe_path p)
{
	return p == FE_PATH_POLARIZED  ? "polarized"
	       : p == FE_PATH_SPRAY    ? "spray"
	       : p == FE_PATH_ADAPTIVE ? "adaptive"
				       : "ecmp";
}

/* One direction of a link between two switches. */
struct fe_hoplink {
	struct fe_link l;
	struct fe_link_params prm; /* as given (for reports) */
	uint16_t from, to;	   /* switches */
	char name[80];		   /* "leaf1>spine2": from > to */
};

/* What fe_dp_create takes to build the graph (conf.graph); NULL: one switch. */
struct fe_graph_conf {
	unsigned nsw;
	const char (*sw_names)[32];	   /* [nsw] */
	const uint8_t *port_sw;		   /* [nports]: the switch of each port */
	unsigned nlinks;		   /* links between switches: both directions each */
	const uint16_t (*ends)[2];	   /* [nlinks]: a, b */
	const struct fe_link_params *link; /* [nlinks]: rate, delay, buffer of each */
	const uint8_t (*nnh)[FE_GRAPH_SW]; /* [nsw][nsw] next hops from s toward d */
	/* [nsw][nsw][FE_GRAPH_WAYS]: hop link (2 x link + dir) of each next hop */
	const uint16_t (*nh)[FE_GRAPH_SW][FE_GRAPH_WAYS];
	/* [nsw][nsw]: the hop link reaching s in the tree rooted at r (UINT16_MAX: r) */
	const uint16_t (*tree)[FE_GRAPH_SW];
	enum fe_path path;
};

struct fe_graph {
	unsigned nsw, nhl;
	enum fe_path path;
	struct fe_hoplink *hl; /* [nhl] */
	uint8_t port_sw[RTE_MAX_ETHPORTS];
	uint8_t nnh[FE_GRAPH_SW][FE_GRAPH_SW];
	uint16_t nh[FE_GRAPH_SW][FE_GRAPH_SW][FE_GRAPH_WAYS];
	uint16_t tree[FE_GRAPH_SW][FE_GRAPH_SW];
	uint32_t seed[FE_GRAPH_SW];
	uint32_t rr[FE_GRAPH_SW]; /* spray: the next way, per switch */
	int dynoff;		  /* the frame's route in the mbuf: fe_graph.c */
	/* reordering: per ingress port, destination port and flow bucket */
	uint32_t (*seq_tx)[FE_GRAPH_BUCKET];		       /* [nports] x bucket */
	uint32_t (*seq_rx)[RTE_MAX_ETHPORTS][FE_GRAPH_BUCKET]; /* [nports] x in x bucket */
	fe_counter_t ooo[RTE_MAX_ETHPORTS];		       /* per destination port */
	fe_counter_t filtered;
};

int fe_graph_create(struct fe_dp *dp, const struct fe_graph_conf *c, int socket, char *err,
		    size_t errlen);
void fe_graph_free(struct fe_graph *g);

/* The ingress switch of port `in` takes m (out: fe_switch's lookup: port, -1 flood, -2). */
void fe_graph_ingress(struct fe_dp *dp, unsigned in, int out, struct rte_mbuf *m, uint64_t t,
		      uint8_t lane);

/* Frames the hop links delivered by now, each on at its switch; how many. */
unsigned fe_graph_service(struct fe_dp *dp, uint64_t now);

uint64_t fe_graph_next_event(const struct fe_dp *dp);
uint64_t fe_graph_held(const struct fe_dp *dp);
void fe_graph_drain(struct fe_dp *dp);

#endif
