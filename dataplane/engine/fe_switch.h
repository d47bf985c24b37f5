/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_switch: what happens between a port's RX and its TX, per regime
 * (docs/regimes.md). Internal to the engine; called only from fe_dp.c on the lcore.
 *
 *   fe_switch_ingress_burst()  packets read from port `in` enter its up link (host
 *                        adapter): lane, impairments, and in lossless regimes a label
 *                        for the gate
 *   fe_switch_arrive_burst()  packets reach the switch, each at its tick: output-queued
 *                        regimes forward them to the egress link (PFC: and account them
 *                        to their ingress port and priority); the credit regime queues
 *                        them at their input port and lane
 *   fe_switch_service()  time-driven work: input-queue arbitration and HOQLife
 *                        (credit), XON checks (PFC)
 */
#ifndef FE_SWITCH_H
#define FE_SWITCH_H

#include "fe_dp.h"

/*
 * A burst of n packets (bytes in all) read from port `in` at now. Where the links are
 * ideal it takes the burst at once: up link counted once, each packet looked up and
 * staged for TX, down links counted once.
 */
void fe_switch_ingress_burst(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, unsigned n,
			     uint64_t bytes, uint64_t now);
/* Into the down link of port q at t, from ingress port `in` (fe_graph: the last switch,
 * and `in` its input: a port, or nports + a hop link). */
void fe_switch_egress(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, uint64_t t,
		      uint8_t lane);
/*
 * The impairments of link n (l, x: filter, exact drop, loss, ECN, jitter) on m at t, for
 * a link of the graph of switches: 0 to carry it, *extra ticks of jitter later; -1 if it
 * was dropped (counted, shown to a capture, freed).
 */
int fe_switch_impair(struct fe_dp *dp, unsigned n, struct fe_link *l, struct fe_linkx *x,
		     struct rte_mbuf *m, uint64_t t, uint8_t lane, uint64_t *extra);
/* PFC: input src decided ev for prio; a port's sender gets the real frame, if enabled. */
void fe_switch_pause(struct fe_dp *dp, unsigned src, uint8_t prio, enum fe_pfc_event ev);
/* One packet into the up link of `in` at now (the emulated NIC sends this way). */
void fe_switch_up(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t now);
/* n packets delivered by the up link of `in`, each at its stamp (shown to a capture). */
void fe_switch_arrive_burst(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,
			    const uint64_t *stamps, unsigned n);

/* Pipeline, up stage: put what was handed to each egress port on its ring. */
void fe_switch_handoff_out(struct fe_dp *dp);
/* Pipeline, down stage: what the up stage handed port q, into its down link. */
unsigned fe_switch_handoff_in(struct fe_dp *dp, unsigned q, uint64_t now);
/* After the lcores stopped: free up to a burst still in q's handoff ring; how many. */
unsigned fe_switch_handoff_flush(struct fe_dp *dp, unsigned q);
unsigned fe_switch_service(struct fe_dp *dp, uint64_t now);

/* Packets queued at the switch inputs (credit regime). */
uint64_t fe_switch_iq_held(const struct fe_dp *dp);

/* Free every packet in the input queues. */
void fe_switch_iq_drain(struct fe_dp *dp);

#endif
