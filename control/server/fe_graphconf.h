/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A topology and its routes (fe_topo.h, fe_route.h) as what the engine takes to build its
 * graph of switches (struct fe_graph_conf, fe_graph.h), with the arrays it points into.
 */
#ifndef FE_GRAPHCONF_H
#define FE_GRAPHCONF_H

#include "fe_graph.h"
#include "fe_linkspec.h"
#include "fe_route.h"
#include "fe_topo.h"

struct fe_graph_build {
	struct fe_graph_conf conf;
	char names[FE_TOPO_SWITCH][32];
	uint8_t port_sw[FE_TOPO_PORTS];
	uint16_t ends[FE_TOPO_LINKS][2];
	struct fe_linkdef def[2 * FE_TOPO_LINKS];   /* each direction: a>b, then b>a */
	char dir_names[2 * FE_TOPO_LINKS][80];	    /* "leaf1>spine2" */
	char link_names[FE_TOPO_LINKS][72];	    /* "leaf1-spine2" */
	struct fe_linkdef_over topo[FE_TOPO_LINKS]; /* what the topology sets over the class */
	uint64_t sw_buffer[FE_TOPO_SWITCH];	    /* switches: buffer: (0: the fabric's) */
	struct fe_fabric_links fab;		    /* the three above, for link selectors */
	uint8_t nnh[FE_GRAPH_SW][FE_GRAPH_SW];
	uint16_t nh[FE_GRAPH_SW][FE_GRAPH_SW][FE_GRAPH_WAYS];
	uint16_t tree[FE_GRAPH_SW][FE_GRAPH_SW];
	struct fe_routes routes;
};

/*
 * For a dataplane of nports ports: the links between switches take the fabric class's
 * values (fabric: the profile's link: and its entries for all or fabric), their rate
 * scaled or set and their delay set as the topology says; link selectors that name them
 * (fe_linkspec.h) then apply to b->fab. 0, or -EINVAL with a message.
 */

int fe_graph_build(const struct fe_topo *t, const struct fe_linkdef *fabric, enum fe_path path,
		   unsigned nports, struct fe_graph_build *b, char *err, size_t errlen);

#endif
