/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_switch: what happens between a port's RX and its TX, per regime
 * (docs/regimes.md). Internal to the engine; called only from the engine on the lcore.
 * Each entry point that depends on the regime comes once a regime (_lossy, _pfc,
 * _credit: the regime a constant in it), and the engine reaches them through dp->rg
 * (fe_regime.h), chosen when it is created.
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
#include "fe_regime.h"

/*
 * Once a regime (sfx: lossy, pfc, credit):
 *   fe_switch_ingress_burst_sfx(dp, in, pkts, n, bytes, now): a burst of n packets (bytes
 *     in all) read from port `in` at now. Where the links are ideal it takes the burst at
 *     once: up link counted once, each packet looked up and staged for TX, down links
 *     counted once.
 *   fe_switch_up_sfx(dp, in, m, now): one packet into the up link of `in` (the emulated
 *     NIC sends this way).
 *   fe_switch_arrive_burst_sfx(dp, in, pkts, stamps, n): n packets the up link of `in`
 *     delivered, each at its stamp (shown to a capture).
 *   fe_switch_service_sfx(dp, now): time-driven work: input-queue arbitration and
 *     HOQLife (credit), XON, real PAUSE frames and the watchdog (PFC).
 */
#define FE_SWITCH_DECLARE(sfx)                                                                     \
	void fe_switch_ingress_burst_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,  \
					   unsigned n, uint64_t bytes, uint64_t now);              \
	void fe_switch_up_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t now);  \
	void fe_switch_arrive_burst_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,   \
					  const uint64_t *stamps, unsigned n);                     \
	unsigned fe_switch_service_##sfx(struct fe_dp *dp, uint64_t now);
FE_SWITCH_DECLARE(lossy)
FE_SWITCH_DECLARE(pfc)
FE_SWITCH_DECLARE(credit)

/*
 * The edge pause of port in (fe_wire, fe_dp.h): its adapter queue has room frames of
 * room at now; pause its host with a real frame on every priority at XOFF, resume it at
 * XON (the priorities the switch itself pauses stay paused), refresh while paused.
 */
void fe_switch_edge_pause(struct fe_dp *dp, unsigned in, uint32_t room, uint64_t now);

/*
 * The host of port q pauses it (`fabemuctl hold q.down`, a pause storm) until `until`,
 * asked at now: its down link's serializer stops, and the PFC watchdog times the pause
 * from its start, however often the host refreshes it.
 */
void fe_switch_hold_down(struct fe_dp *dp, unsigned q, uint64_t now, uint64_t until);

/* Pipeline, down stage: what the up stage handed port q, into its down link. */
unsigned fe_switch_handoff_in(struct fe_dp *dp, unsigned q, uint64_t now);
/* After the lcores stopped: free up to a burst still in q's handoff ring; how many. */
unsigned fe_switch_handoff_flush(struct fe_dp *dp, unsigned q);

#endif
