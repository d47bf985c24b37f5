/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_topo: fabric topologies (docs/topologies.md): switches, hosts on them (a host's
 * ports, one a rail, are dataplane ports in order) and links between switches. Read from
 * YAML with errors at FILE:LINE, or generated from a kind and its parameters (single,
 * leaf-spine, fat-tree, rail, ring), then checked: names unique and of letters, digits,
 * '_', '-' and '.', every host on a known switch, every link between two known switches
 * and its name unique, the switches one connected graph. Pure:
 * no DPDK. fabemu-dp runs any of them (fe_graphconf.h, dataplane/engine/fe_graph.h).
 */
#ifndef FE_TOPO_H
#define FE_TOPO_H

#include <stdint.h>
#include <stdio.h>

#include "fe_linkdef.h"

#define FE_TOPO_NAME   32
#define FE_TOPO_SWITCH 64
#define FE_TOPO_HOSTS  64
#define FE_TOPO_PORTS  64 /* dataplane ports: one a host's rail */
#define FE_TOPO_LINKS  256
#define FE_TOPO_RAILS  8

struct fe_topo_switch {
	char name[FE_TOPO_NAME];
	uint64_t buffer;	/* bytes its egress queues share; 0: the profile's */
	char box[FE_TOPO_NAME]; /* the fabemu-dp that runs it (--box); "": the only one */
};

struct fe_topo_host {
	char name[FE_TOPO_NAME];
	unsigned sw[FE_TOPO_RAILS]; /* the switch of each of its ports */
	unsigned nports;
	unsigned first_port; /* its first dataplane port; the others follow */
};

/* A link between two switches, both ways. Its rate and delay are the profile's fabric
 * class unless given; a generator may set its rate as a fraction of the class's. */
struct fe_topo_link {
	char name[2 * FE_TOPO_NAME + 8]; /* "leaf1-spine2", parallel ones ".2", ".3" */
	unsigned a, b;			 /* switches */
	uint64_t rate_bps, delay_ns;	 /* 0: the class's */
	uint32_t rate_num, rate_den;	 /* the class's rate x num / den (1/1: as is) */
};

struct fe_topo {
	char name[64], description[160], source[512];
	struct fe_topo_switch sw[FE_TOPO_SWITCH];
	struct fe_topo_host host[FE_TOPO_HOSTS];
	struct fe_topo_link link[FE_TOPO_LINKS];
	unsigned nsw, nhosts, nports, nlinks;
	int cyclic; /* the switches' graph has a cycle (ring, and every multipath fabric) */
	int oneway; /* routing: one-way: unicast crosses links from a to b only (a routed
		       cycle, the deadlock case); 0: shortest paths both ways */
};

/* What link l sets over its class, as the engine takes it (fe_linkdef_apply_over()). */
static inline struct fe_linkdef_over
fe_topo_over(const struct fe_topo_link *l)
{
	return (struct fe_linkdef_over){.rate_bps = l->rate_bps,
					.delay_ns = l->delay_ns,
					.num = l->rate_num,
					.den = l->rate_den};
}

/* Building one: a host of nports ports on switches sw[] (its first port the next free
 * one), a link between switches a and b at the class's rate x num / den; -1: no room.
 * (Switches: fill sw[nsw++].) fe_topo_check() names the links and checks the whole. */
int fe_topo_add_host(struct fe_topo *t, const char *name, const unsigned *sw, unsigned nports);
int fe_topo_add_link(struct fe_topo *t, unsigned a, unsigned b, uint32_t num, uint32_t den);

/* What a generator takes (0: its default). */
struct fe_topo_gen {
	char kind[16]; /* single, leaf-spine, fat-tree, rail, ring */
	unsigned hosts, leaves, spines, hosts_per_leaf, oversub, k, rails, switches;
};

#define FE_TOPO_KINDS "single, leaf-spine, fat-tree, rail, ring"

/* Build a topology of a kind; 0, or -EINVAL with a message naming the bad value. */
int fe_topo_generate(const struct fe_topo_gen *g, struct fe_topo *t, char *err, size_t errlen);

/* The rules every topology obeys (see the top); 0, or -EINVAL naming what breaks them.
 * where (if not NULL): the switch (0..), host (FE_TOPO_SWITCH + i) or link
 * (FE_TOPO_LINK_AT + i) it is about, or -1. */
#define FE_TOPO_LINK_AT (FE_TOPO_SWITCH + FE_TOPO_HOSTS)
int fe_topo_check(struct fe_topo *t, char *err, size_t errlen, int *where);

/* Parse YAML (source names it in messages); checked. 0, or -errno. */
int fe_topo_parse(const char *text, size_t len, const char *source, struct fe_topo *t, char *err,
		  size_t errlen);

/* Where a shipped name (topologies/NAME.yaml, $FABEMU_TOPOLOGIES) or a path is. */
int fe_topo_find(const char *name, char *path, size_t len, char *err, size_t errlen);

/* A shipped name (topologies/NAME.yaml, $FABEMU_TOPOLOGIES) or a path; parsed. */
int fe_topo_load(const char *name, struct fe_topo *t, char *err, size_t errlen);

/* The name of link l crossed from its a end (dir 0) or its b end (dir 1): "leaf1>spine2",
 * a parallel link's number kept ("a-b.2" gives "a>b.2"): how the dataplane names it. */
void fe_topo_dir_name(const struct fe_topo *t, unsigned l, int dir, char *buf, size_t len);

/* Every link's names as link selectors take them (struct fe_fabric_links): dir[2 l] and
 * dir[2 l + 1] its two directions (fe_topo_dir_name), link[l] the link's own. */
void fe_topo_fabric_names(const struct fe_topo *t, char (*dir)[80], char (*link)[72]);

#define FE_TOPO_BOXES 8 /* boxes a topology may be split across (switches: box:) */

/*
 * A topology split across boxes: its boxes' names in names[] (the first host's box
 * first, then in switch order); how many, or 0 when no switch names one.
 */
unsigned fe_topo_boxes(const struct fe_topo *t, char (*names)[FE_TOPO_NAME]);

/* The box (index into fe_topo_boxes()'s names) of switch s. */
unsigned fe_topo_box_of(const struct fe_topo *t, char (*names)[FE_TOPO_NAME], unsigned n,
			unsigned s);

/* A split that can run: every switch on a box, 2 to FE_TOPO_BOXES of them; 0 or -EINVAL
 * with a message. */
int fe_topo_split_check(const struct fe_topo *t, char *err, size_t errlen);

/* What `fabemuctl topology show` prints, and the Graphviz drawing. */
void fe_topo_print(FILE *f, const struct fe_topo *t);
void fe_topo_dot(FILE *f, const struct fe_topo *t);

#endif
