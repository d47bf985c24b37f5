/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_egress: the last switch of a frame's way puts it on the down link of its port q
 * (docs/regimes.md), whichever switch that is and whether the graph or the one switch's
 * fast path brings it: under PFC, admitted against what the switch holds from the
 * frame's input (the headroom) and its pause decided; while the PFC watchdog looks at
 * the port, stormed; in a pipeline, handed to the down stage's lcore. And PFC's pause
 * of an input's sender: a real frame to a host, or the hop link's gate (on another box:
 * a frame over the trunk). Internal to the engine, on its lcore.
 *
 *   fe_egress_to(dp, in, q, m, t, lane, R)   inline, R a constant (fe_switch.c)
 *   fe_egress_lossy/_pfc/_credit(...)        the same out of line, once a regime: the
 *                                            graph's (fe_rg_egress(), fe_regime.h)
 *   fe_egress_flush(dp)                      lossy: the round's staged frames, offered
 *                                            (or, in a pipeline, handed to the down stage)
 *
 * Lossy: a host's down link (unless it is ideal) is offered what a round of the pass
 * brought it at the round's end, in the order of the ticks, not as the pass came to
 * them: a round takes one input's frames after another's, and a frame that crosses the
 * spines within the round comes to its last switch after the local frames of the round,
 * whatever their ticks. Offered as they came, the frames an input brought first took the
 * output's room (a local and a remote sender into one host, polled every 10 us: 983
 * frames to 655; test_graph a_local_and_a_remote_sender_share_an_output). The stage
 * holds four bursts a port; a fifth offers them at once (counted: switch.egress_early).
 * Frames of equal ticks go in the order they came (the pass draws its inputs' order,
 * fe_order_draw()). An ideal down link has no room to take: offered at once, as the burst
 * fast path does (fe_switch.c). Where the ports' down links share a switch's limited
 * memory, their stages are offered merged by their ticks (one switch:
 * test_engine two_outputs_share_the_switch_buffer_whatever_the_pass); with several
 * switches and a limited memory nothing is staged (fe_dp_stage_down()). In a pipeline (--lcores 2)
 * the stage is the up stage's handoff: sorted the same, it goes onto the port's ring to the down
 * stage, which owns the down links, ideal or not (the ring's indexes move once a stage, not once a
 * frame).
 */
#ifndef FE_EGRESS_H
#define FE_EGRESS_H

#include "fe_dp.h"
#include "fe_graph.h"
#include "fe_linkop.h"
#include "fe_regime.h"

/* Once a regime (sfx: lossy, pfc, credit): m into the down link of port q at t, from
 * ingress `in` (a port, or nports + a hop link into the last switch) on lane. */
#define FE_EGRESS_DECLARE(sfx)                                                                     \
	void fe_egress_##sfx(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m,        \
			     uint64_t t, uint8_t lane);
FE_EGRESS_DECLARE(lossy)
FE_EGRESS_DECLARE(pfc)
FE_EGRESS_DECLARE(credit)

/* PFC: input src decided ev for prio at t; a port's sender gets the real frame, if
 * enabled; a hop link's, its gate (fe_trunk_pause_out()). */
void fe_egress_pause(struct fe_dp *dp, unsigned src, uint8_t prio, enum fe_pfc_event ev,
		     uint64_t t);

/*
 * PFC: a frame of input src (its ingress pfc) was taken at t, and the switch now holds
 * `held` bytes of it on lane: the pause decision, and its pause or resume if there is
 * one (most frames decide nothing: no call).
 */
static inline void
fe_egress_pfc_took(struct fe_dp *dp, unsigned src, struct fe_pfc *pfc, uint8_t lane, uint64_t held,
		   uint64_t t)
{
	enum fe_pfc_event ev;

	if (!fe_pfc_may_change(pfc, lane, held)) /* most frames: no call */
		return;
	ev = fe_pfc_update(pfc, lane, held, t);
	if (ev != FE_PFC_NONE)
		fe_egress_pause(dp, src, lane, ev, t);
}

/* Lossy: the frames staged for each host's down link (fe_egress_stage()), offered to it
 * (a pipeline: put on its ring; what does not fit is dropped, switch.handoff_full) in the
 * order of their ticks, then stage empty; what a pass round brought goes on before its
 * TX (fe_dp.c). And port q's alone (its stage full). */
void fe_egress_flush(struct fe_dp *dp);
void fe_egress_flush_port(struct fe_dp *dp, unsigned q);

/* Lossy: m for the down link of port q at t, staged until the round's end. */
static inline void
fe_egress_stage(struct fe_dp *dp, unsigned q, struct rte_mbuf *m, uint64_t t, uint32_t label)
{
	struct fe_egress_stage *g = &dp->estage[q];
	uint32_t n = g->n;

	if (unlikely(n == FE_ESTAGE)) {
		FE_CNT_ADD(dp->sw.egress_early, n);
		fe_egress_flush_port(dp, q);
		n = 0;
	} else if (n == 0) {
		dp->estaged |= UINT64_C(1) << q;
	}
	g->h[n].pkt = m;
	g->h[n].at = t;
	g->h[n].label = label;
	g->n = n + 1;
}

/*
 * PFC: into the egress (down) link of port q, the bytes held against the ingress port
 * and priority; past XOFF + headroom they are dropped, at XOFF the ingress port pauses
 * its sender. 0 if the link took m.
 */
static __rte_always_inline int
fe_egress_admit(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, uint64_t t,
		uint8_t lane)
{
	struct fe_port *out = &dp->ports[q];
	uint32_t acct = in * FE_PFC_PRIOS + lane;
	/* several switches: `in` may be a hop link into the last one (fe_graph.h) */
	struct fe_pfc *pfc = fe_graph_input_pfc(dp, in);

	if (fe_pfc_admit(pfc, dp->held[acct], rte_pktmbuf_pkt_len(m)) < 0) {
		fe_link_drop(&out->down.l, FE_LINK_DROP_HEADROOM, rte_pktmbuf_pkt_len(m), lane);
		fe_linkop_drop_free(dp, fe_dp_link_id(dp, FE_LINK_DOWN, q), m,
				    FE_LINK_DROP_HEADROOM, t);
		return -1;
	}
	if (fe_linkop_offer(dp, fe_dp_link_id(dp, FE_LINK_DOWN, q), &out->down, m, t,
			    FE_LABEL(acct, lane), FE_REGIME_PFC) != 0)
		return -1;
	fe_egress_pfc_took(dp, in, pfc, lane, dp->held[acct], t);
	return 0;
}

/*
 * fe_egress_admit() while the watchdog looks at port q's frames (out->wd_until): stormed
 * with action drop, a frame is dropped; the first frame the host's pause holds is noted,
 * the head whose wait the watchdog times (fe_switch.c watchdog()).
 */
void fe_egress_wd(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, uint64_t t,
		  uint8_t lane);

/*
 * Into the egress (down) link of port q (PFC: fe_egress_admit(), or fe_egress_wd() while the
 * watchdog looks at the port: the same one compare as without a watchdog).
 */
static __rte_always_inline void
fe_egress_to(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, uint64_t t,
	     uint8_t lane, const enum fe_regime R)
{
	struct fe_port *out = &dp->ports[q];
	uint32_t acct = in * FE_PFC_PRIOS + lane;

	/* at the round's end (a pipeline's down stage owns the down links: all of them) */
	if (R == FE_REGIME_LOSSY && (dp->handoff || dp->stage_down >> q & 1)) {
		fe_egress_stage(dp, q, m, t, FE_LABEL(acct, lane));
		return;
	}
	if (R == FE_REGIME_LOSSY && !dp->one_switch) /* offered now: its order counted now */
		fe_graph_count_order(dp->graph, q, *fe_graph_route(dp->graph, m));
	if (R == FE_REGIME_PFC) {
		if (unlikely(out->wd_until > t))
			fe_egress_wd(dp, in, q, m, t, lane);
		else
			fe_egress_admit(dp, in, q, m, t, lane);
		return;
	}
	/* credits: every way here found room for m at t (fe_lossless.h: a frame crosses its
	 * switch only when its output has room; a flood when all of its outputs have) */
	fe_linkop_offer_x(dp, fe_dp_link_id(dp, FE_LINK_DOWN, q), &out->down, m, t,
			  FE_LABEL(acct, lane), R, R == FE_REGIME_CREDIT);
}

#endif
