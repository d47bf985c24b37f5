/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "fe_route.h"

/* The switch at the far end of link l from switch s; -1 if l does not touch s. */
static int
far_end(const struct fe_topo *t, unsigned l, unsigned s, uint8_t *dir)
{
	if (t->link[l].a == s) {
		*dir = 0;
		return (int)t->link[l].b;
	}
	if (t->link[l].b == s) {
		*dir = 1;
		return (int)t->link[l].a;
	}
	return -1;
}

/*
 * Hops from every switch to `from` (the graph is undirected: the same both ways). One-way
 * routing (to_from: 1): hops from every switch to `from` along links crossed a to b only.
 */
static void
bfs(const struct fe_topo *t, unsigned from, uint8_t *dist, struct fe_hop *parent, int to_from)
{
	unsigned queue[FE_TOPO_SWITCH], head = 0, tail = 0;

	memset(dist, FE_ROUTE_NONE, FE_TOPO_SWITCH);
	dist[from] = 0;
	queue[tail++] = from;
	if (parent)
		parent[from] = (struct fe_hop){.link = UINT16_MAX, .to = (uint8_t)from};
	while (head != tail) {
		unsigned s = queue[head++];

		for (unsigned l = 0; l < t->nlinks; l++) {
			uint8_t dir;
			int o = far_end(t, l, s, &dir);

			/* toward `from` one-way: o -> s crosses l from a (o) to b (s) */
			if (o < 0 || dist[o] != FE_ROUTE_NONE || (to_from && dir != 1))
				continue;
			dist[o] = (uint8_t)(dist[s] + 1);
			if (parent)
				parent[o] = (struct fe_hop){
					.link = (uint16_t)l, .dir = dir, .to = (uint8_t)o};
			queue[tail++] = (unsigned)o;
		}
	}
}

void
fe_route_compute(const struct fe_topo *t, struct fe_routes *r)
{
	uint8_t d[FE_TOPO_SWITCH];

	memset(r, 0, sizeof(*r));
	r->nsw = t->nsw;
	for (unsigned dst = 0; dst < t->nsw; dst++) {
		bfs(t, dst, d, NULL, t->oneway);
		for (unsigned s = 0; s < t->nsw; s++)
			r->dist[s][dst] = d[s];
	}
	for (unsigned root = 0; root < t->nsw; root++)
		bfs(t, root, d, r->parent[root], 0); /* broadcast: a tree, both ways */
	for (unsigned s = 0; s < t->nsw; s++)
		for (unsigned dst = 0; dst < t->nsw; dst++) {
			if (s == dst || r->dist[s][dst] == FE_ROUTE_NONE)
				continue;
			for (unsigned l = 0; l < t->nlinks; l++) {
				uint8_t dir;
				int o = far_end(t, l, s, &dir);

				/* at most FE_TOPO_SWITCH ways (parallel links beyond are not used)
				 */
				if (o >= 0 && (!t->oneway || dir == 0) &&
				    r->dist[o][dst] + 1 == r->dist[s][dst] &&
				    r->nnh[s][dst] < FE_TOPO_SWITCH)
					r->nh[s][dst][r->nnh[s][dst]++] = (struct fe_hop){
						.link = (uint16_t)l, .dir = dir, .to = (uint8_t)o};
			}
		}
}

void
fe_route_print(FILE *f, const struct fe_topo *t, const struct fe_routes *r)
{
	int has_hosts[FE_TOPO_SWITCH] = {0};

	for (unsigned h = 0; h < t->nhosts; h++)
		for (unsigned p = 0; p < t->host[h].nports; p++)
			has_hosts[t->host[h].sw[p]] = 1;
	if (t->oneway)
		fprintf(f, "routes (one-way: links crossed from a to b only; a cycle of links "
			   "can hold a cyclic buffer dependency)\n");
	else
		fprintf(f, "routes (shortest paths; every next hop one hop nearer: loop-free)\n");
	for (unsigned dst = 0; dst < t->nsw; dst++) {
		if (!has_hosts[dst])
			continue;
		for (unsigned s = 0; s < t->nsw; s++) {
			if (s == dst)
				continue;
			fprintf(f, "%-10s -> %-10s %u hop%s, %u way%s:", t->sw[s].name,
				t->sw[dst].name, r->dist[s][dst], r->dist[s][dst] == 1 ? "" : "s",
				r->nnh[s][dst], r->nnh[s][dst] == 1 ? "" : "s");
			for (unsigned k = 0; k < r->nnh[s][dst]; k++)
				fprintf(f, " %s", t->link[r->nh[s][dst][k].link].name);
			fputc('\n', f);
		}
	}
}
