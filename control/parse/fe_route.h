/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_route: routes over a topology (fe_topo.h, docs/topologies.md), computed once from
 * the graph of switches. Pure: no DPDK.
 *
 *   unicast    shortest paths in hops; from switch s toward switch d, every link to a
 *              neighbour one hop nearer d is a next hop (the ECMP group; parallel links
 *              each count). Loop-free by construction: every hop brings a frame nearer.
 *   broadcast  a tree a root switch: the links of a breadth-first search from it, so a
 *              frame flooded from its ingress switch reaches every switch once and never
 *              loops, whatever cycles the graph has.
 */
#ifndef FE_ROUTE_H
#define FE_ROUTE_H

#include <stdint.h>
#include <stdio.h>

#include "fe_topo.h"

#define FE_ROUTE_NONE 0xff

/* A hop: a link of the topology, crossed from its a end (dir 0) or its b end (dir 1). */
struct fe_hop {
	uint16_t link;
	uint8_t dir;
	uint8_t to; /* the switch it reaches */
};

struct fe_routes {
	unsigned nsw;
	uint8_t dist[FE_TOPO_SWITCH][FE_TOPO_SWITCH]; /* hops; FE_ROUTE_NONE: unreachable */
	uint8_t nnh[FE_TOPO_SWITCH][FE_TOPO_SWITCH];  /* next hops from s toward d */
	struct fe_hop nh[FE_TOPO_SWITCH][FE_TOPO_SWITCH][FE_TOPO_SWITCH];
	/* the broadcast tree rooted at r: the hop that reaches switch s (parent[r][r]: none) */
	struct fe_hop parent[FE_TOPO_SWITCH][FE_TOPO_SWITCH];
};

/* Compute every route of a checked topology. */
void fe_route_compute(const struct fe_topo *t, struct fe_routes *r);

/* 1 if switch s is reached through hop h in the broadcast tree rooted at root. */
static inline int
fe_route_tree_child(const struct fe_routes *r, unsigned root, unsigned s, const struct fe_hop *h)
{
	return s != root && r->parent[root][s].link == h->link && r->parent[root][s].dir == h->dir;
}

/* What `fabemuctl topology show --routes` prints: toward every switch with hosts. */
void fe_route_print(FILE *f, const struct fe_topo *t, const struct fe_routes *r);

#endif
