/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --box: this box's part of a fabric split across boxes (docs/scale-out.md). Which of the
 * topology's switches run here, which ports are this box's hosts' and which carry a link
 * to another box (a trunk), and each trunk's one-way latency, measured at start against
 * the other box's fabemu-dp. main() calls, in order: fe_split_setup() once the ports are
 * counted and before the links are built (it says how many ports are hosts'),
 * fe_split_hash_fabric() once the links, the regime and the NIC are known, fe_links_graph()
 * (fe_links.h) then hands the split to the engine's graph, and fe_split_measure() once the ports
 * are started, before the engine is created (it fills lat_ns, which the graph reads). Set-up code
 * only: nothing here runs on the forwarding lcore.
 */
#ifndef FE_SPLIT_H
#define FE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "fe_graph.h"
#include "fe_opts.h"
#include "fe_topo.h"

struct rte_mempool;

/* One box's split (fe_graph.h's fe_graph_conf points into it: keep it for the run). */
struct fe_split {
	uint8_t here[FE_TOPO_SWITCH];
	uint16_t trunk[FE_TOPO_LINKS]; /* the port of each link between boxes ending here */
	uint64_t lat_ns[FE_TOPO_LINKS];
	uint8_t gport[FE_TOPO_PORTS];
	unsigned nlocal, ntrunks;
	unsigned link[FE_GRAPH_TRUNKS]; /* the trunks' links, in order */
	uint32_t hash;			/* the topology and its split: both boxes must agree */
};

/*
 * Which switches run here, which ports are this box's hosts' and which are links to
 * other boxes; ports[] holds every port, *nports becomes the hosts' count. The topology
 * (o->topology) is loaded into *topo. split starts zeroed. 0, or -EINVAL with a message.
 */
int fe_split_setup(struct fe_split *split, struct fe_topo *topo, const struct fe_opts *o,
		   const uint16_t *ports, unsigned *nports, char *err, size_t len);

/* The regime, its lanes and credits, and the NIC settings into the hash: pauses and
 * credits cross the trunks per lane, credits in the receiver's blocks; the trunks carry the
 * NIC's tags or not, and a receiver on one box serves a sender on another as its own were
 * (window, recovery, CC). */
void fe_split_hash_fabric(struct fe_split *split, enum fe_regime regime, uint8_t lanes,
			  enum fe_lane_map lane_map, const struct fe_credit_params *c,
			  const struct fe_nic_params *n);

/*
 * Each trunk's one-way latency into split->lat_ns, against the other box (which must run
 * the same topology, split and NICs), printed. 0, or -ETIMEDOUT/-EINVAL with a message.
 */
int fe_split_measure(struct fe_split *split, const struct fe_topo *topo, const struct fe_opts *o,
		     struct rte_mempool *pool, char *err, size_t len);

#endif
