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
 *   fe_switch_egress_sfx(dp, in, q, m, t, lane): into the down link of port q at t, from
 *     ingress `in` (fe_graph: the last switch, and `in` its input: a port, or nports + a
 *     hop link).
 *   fe_switch_service_sfx(dp, now): time-driven work: input-queue arbitration and
 *     HOQLife (credit), XON, real PAUSE frames and the watchdog (PFC).
 */
#define FE_SWITCH_DECLARE(sfx)                                                                     \
	void fe_switch_ingress_burst_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,  \
					   unsigned n, uint64_t bytes, uint64_t now);              \
	void fe_switch_up_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t now);  \
	void fe_switch_arrive_burst_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,   \
					  const uint64_t *stamps, unsigned n);                     \
	void fe_switch_egress_##sfx(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, \
				    uint64_t t, uint8_t lane);                                     \
	unsigned fe_switch_service_##sfx(struct fe_dp *dp, uint64_t now);
FE_SWITCH_DECLARE(lossy)
FE_SWITCH_DECLARE(pfc)
FE_SWITCH_DECLARE(credit)

/*
 * Link n (l) had no room for m at t (why: the cause it counted), in the lossy regime with
 * NIC model uec (dp->trim): m is trimmed where it can be (fe_nic_trim()): its payload
 * dropped, the drop counted again as FE_LINK_DROP_TRIM, m shown to a capture and freed;
 * its header taken by the link past its buffer's limit (a switch's trimmed headers take a
 * queue of their own, of few bytes), behind what the link holds. 0 if so; -1 if m is not
 * trimmed (still the caller's, to drop).
 */
int fe_switch_trim(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *m, uint8_t why,
		   uint64_t t, uint32_t label);

/*
 * The impairments of link n (l, x: filter, exact drop, loss, ECN, jitter) on m at t, for
 * a link of the graph of switches: 0 to carry it, *extra ticks of jitter later; -1 if it
 * was dropped (counted, shown to a capture, freed).
 */
int fe_switch_impair(struct fe_dp *dp, unsigned n, struct fe_link *l, struct fe_linkx *x,
		     struct rte_mbuf *m, uint64_t t, uint8_t lane, uint64_t *extra);
/* PFC: input src decided ev for prio; a port's sender gets the real frame, if enabled. */
void fe_switch_pause(struct fe_dp *dp, unsigned src, uint8_t prio, enum fe_pfc_event ev,
		     uint64_t t);

/*
 * The edge pause of port in (fe_wire, fe_dp.h): its adapter queue has room frames of
 * room at now; pause its host with a real frame on every priority at XOFF, resume it at
 * XON (the priorities the switch itself pauses stay paused), refresh while paused.
 */
void fe_switch_edge_pause(struct fe_dp *dp, unsigned in, uint32_t room, uint64_t now);

/*
 * PFC: a frame of input src (its ingress pfc) was taken at t, and the switch now holds
 * `held` bytes of it on lane: the pause decision, and its pause or resume if there is
 * one (most frames decide nothing: no call).
 */
static inline void
fe_switch_pfc_took(struct fe_dp *dp, unsigned src, struct fe_pfc *pfc, uint8_t lane, uint64_t held,
		   uint64_t t)
{
	enum fe_pfc_event ev;

	if (!fe_pfc_may_change(pfc, lane, held)) /* most frames: no call */
		return;
	ev = fe_pfc_update(pfc, lane, held, t);
	if (ev != FE_PFC_NONE)
		fe_switch_pause(dp, src, lane, ev, t);
}

/* Pipeline, up stage: put what was handed to each egress port on its ring. */
/*
 * The host of port q pauses it (`fabemuctl hold q.down`, a pause storm) until `until`,
 * asked at now: its down link's serializer stops, and the PFC watchdog times the pause
 * from its start, however often the host refreshes it.
 */
void fe_switch_hold_down(struct fe_dp *dp, unsigned q, uint64_t now, uint64_t until);

void fe_switch_handoff_out(struct fe_dp *dp);
/* Pipeline, down stage: what the up stage handed port q, into its down link. */
unsigned fe_switch_handoff_in(struct fe_dp *dp, unsigned q, uint64_t now);
/* After the lcores stopped: free up to a burst still in q's handoff ring; how many. */
unsigned fe_switch_handoff_flush(struct fe_dp *dp, unsigned q);

#endif
