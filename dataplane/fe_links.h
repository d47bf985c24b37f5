/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp's links at start: every port's up and down link from a profile (--profile)
 * or the link options, the topology's links between switches (--topology) built into the
 * graph the engine takes, and the --link specs applied in order on top. main() calls
 * fe_links_build() once the ports are counted (after fe_split_setup() with --box), then,
 * with a topology, fe_links_graph() to set the graph's conf into o->dp. Set-up code
 * only: nothing here runs on the forwarding lcore.
 */
#ifndef FE_LINKS_H
#define FE_LINKS_H

#include <stddef.h>

#include "fe_graphconf.h"
#include "fe_linkdef.h"
#include "fe_opts.h"
#include "fe_split.h"
#include "fe_topo.h"

/*
 * Links start from a profile or the global options; specs then apply in order. With a
 * topology (loaded into *topo) the links between switches start from the profile's class
 * for them and take the specs that name them (fabric, A-B, A>B, all), in *g. A profile
 * sets the fabric-wide options in *o. 0, or a negative errno with the message in err.
 */
int fe_links_build(struct fe_opts *o, struct fe_topo *topo, struct fe_graph_build *g,
		   unsigned nports, struct fe_linkdef *up, struct fe_linkdef *down, char *err,
		   size_t len);

/*
 * --topology: the graph the engine builds (fe_graph.h), as fe_links_build() left it, in
 * o->dp.graph; with --box, this box's part of it (split). A topology of one switch is the
 * engine's own. 0, or -EINVAL with a message.
 */
int fe_links_graph(struct fe_opts *o, const struct fe_topo *topo, struct fe_graph_build *b,
		   const struct fe_split *split, char *err, size_t len);

#endif
