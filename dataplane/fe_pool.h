/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp's mbuf pool and the ports it feeds, at start and at exit. main() calls, in
 * order: fe_pool_room() (the bytes of frame an mbuf holds) and fe_pool_size() (how many
 * mbufs, unless --mbufs) before it creates the pool; fe_pool_ports_start() to set up
 * every port on it (fe_ports.h); fe_pool_discard() on the ports (with --box the trunks
 * first, before they are probed) before the engine reads a frame; at exit,
 * fe_pool_shutdown() closes the ports and checks that every mbuf came back. Set-up code
 * only: nothing here runs on the forwarding lcore.
 */
#ifndef FE_POOL_H
#define FE_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "fe_dp.h"
#include "fe_linkdef.h"
#include "fe_opts.h"

struct rte_mempool;

/*
 * Bytes of frame an mbuf must hold, with its headroom, into *room: a frame of the hosts'
 * MTU (with an 802.1Q tag), and for an AF_PACKET port a whole slot of its ring less the
 * kernel's header: DPDK 22.11's PMD copies what the slot holds into one mbuf, unchecked.
 * 0, or -1 with the message in err (an MTU an AF_XDP port cannot carry, a slot too large).
 */
int fe_pool_room(const struct fe_opts *o, const uint16_t *ports, unsigned nports, uint16_t *room,
		 char *err, size_t len);

/*
 * Mbufs for every descriptor of every port (nall: the hosts' nports and the trunks) plus
 * what the links can hold, capped: up and down links, and the nhop links between switches
 * (hop, when o->dp.graph is set).
 */
unsigned fe_pool_size(const struct fe_opts *o, unsigned nports, unsigned nall,
		      const struct fe_linkdef *up, const struct fe_linkdef *down,
		      const struct fe_linkdef *hop, unsigned nhop, uint64_t hz);

/*
 * Every port set up as a real NIC needs (fe_ports.h): the hosts' MTU (a trunk's, past
 * nports, with the fabric's header), the NIC's own pauses off, the links waited for and
 * printed, and no host's port slower than the rate its links carry in real time. 0, or
 * -1 with the message in err.
 */
int fe_pool_ports_start(const struct fe_opts *o, const uint16_t *ports, unsigned nports,
			unsigned nall, struct rte_mempool *pool, const struct fe_linkdef *up,
			const struct fe_linkdef *down, char *err, size_t len);

/* Frames queued while the AF_PACKET ports were opened: freed, counted a port in
 * discarded[], their total printed. */
void fe_pool_discard(const uint16_t *ports, unsigned nports, uint64_t *discarded);

/*
 * Stop and close every port, then check that every mbuf came back (the engine, drained,
 * must hold none; an AF_XDP PMD's fill rings are its own). 0, or -1 on a leak.
 */
int fe_pool_shutdown(const struct fe_dp *dp, const uint16_t *ports, unsigned nports,
		     struct rte_mempool *pool);

#endif
