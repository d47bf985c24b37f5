/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_hop: a frame leaves a switch of the graph for its next link, one at a time: onto a
 * link between switches (fe_hop(): its impairments, the offer, PFC's headroom and pause
 * or the credit loop's pump), or to a host (fe_hop_deliver(): reordering counted, the
 * egress, fe_egress.h). Inline, with the regime a constant: the graph's files above
 * (fe_flood.c, fe_graph.c) each take their copy. Internal to the engine, on its lcore.
 */
#ifndef FE_HOP_H
#define FE_HOP_H

#include "fe_egress.h"
#include "fe_graph.h"
#include "fe_linkop.h"

/* Free a frame link h dropped at t (counted already), shown to a capture of it first. */
void fe_hop_drop(struct fe_dp *dp, uint16_t h, struct rte_mbuf *m, uint64_t t, uint8_t why);

/* fe_hop() under PFC: the watchdog, the headroom, and the pause of src's sender. */
void fe_hop_pfc(struct fe_dp *dp, unsigned src, uint16_t h, struct rte_mbuf *m, uint64_t t,
		uint8_t lane, uint64_t extra);

/* The input a frame from hop link h enters its switch by. */
static inline unsigned
fe_hop_input(const struct fe_dp *dp, unsigned h)
{
	return dp->nports + h;
}

/* The switch an input belongs to. */
static inline unsigned
fe_hop_switch(const struct fe_dp *dp, unsigned src)
{
	return src < dp->nports ? dp->graph->port_sw[src] : dp->graph->hl[src - dp->nports].to;
}

/*
 * PFC: hop link hl is pumped to the tick of each frame offered to it, before and after
 * the offer (fe_hop_pfc(); a run: fe_link_enqueue_burst_open()), so that a frame the gate
 * lets start by then has started, and has left the buffer by the tick it ends, whatever
 * the frames a pass takes: the frames offered after it do not see it, nor does what the
 * switch holds (so its pauses can come and go otherwise than before). Given the pauses,
 * the same starts as the pass's pump would give: no pause decided later in the pass
 * reaches back to a tick of it (a pause decided at t stops the sender from t + delay,
 * and a pass is a step no longer than that delay past the last one, whose arrivals it
 * has all taken unless it stopped at its bound, the box behind its schedule). Not so,
 * and left to the pump: a delay shorter than the step; a link to another box, whose
 * pauses a trunk brings when they come; a link the watchdog storms, whose pump ignores
 * the pauses or drops what waits, or a watchdog that could storm it within a step (it
 * would drop a frame started here); a test's pump_only.
 */
static inline int
fe_hop_pfc_at_offer(const struct fe_dp *dp, const struct fe_hoplink *hl)
{
	return hl->side == FE_HL_HERE && hl->storm_until == 0 &&
	       hl->row.pfc.cfg.delay_ticks >= dp->step &&
	       (dp->wd.ticks == 0 || dp->wd.ticks >= dp->step) && !dp->graph->pump_only;
}

/*
 * Credits: hop link h is pumped to the tick of each frame offered to it, before and after
 * the offer (fe_hop(); a run: fe_link_enqueue_while_room() with its credit loop), as under
 * PFC. The starts
 * are the pass's pump's whatever comes later in the pass: a credit only opens the gate,
 * and a return added later is due no sooner than those already on the loop
 * (fe_credit_return() keeps them in order), so it cannot start a frame sooner. What it
 * can change is the fewest blocks the sender held (avail_min, credits_min): blocks taken
 * before a return due by then was on the loop read lower. So a link is pumped so only
 * where every return due by an offer's tick is on the loop when it is offered: a return
 * is due a return delay after its frame left the receiver's input buffer, at its arrival
 * (after the last pass's end, so due after this one's with a delay no shorter than the
 * step) or, from an input queue, at a tick that can be before (a head moved when its
 * switch's memory was seen to free room, or discarded by a stall): so while the
 * receiver's input queues hold nothing from it. Not so, and left to the pump: a return
 * delay shorter than the step; a link to another box, whose credits a trunk brings when
 * they come; a test's pump_only. Left as they are: a pass that stopped at its bound (the
 * box behind its schedule) leaves arrivals, their returns due by the next pass's offers;
 * and a frame the sender's own input queue moved on at such an old tick can bring one.
 */
static inline int
fe_hop_credit_at_offer(const struct fe_dp *dp, unsigned h)
{
	const struct fe_graph *g = dp->graph;
	const unsigned q0 = fe_hop_input(dp, h) * FE_LANES_MAX;

	RTE_BUILD_BUG_ON(64 % FE_LANES_MAX != 0); /* an input's lanes: bits of one word */
	if (g->hl[h].side != FE_HL_HERE || g->hl[h].row.cred.return_ticks < dp->step ||
	    g->pump_only)
		return 0;
	if (((g->iq_busy[q0 / 64] >> (q0 % 64)) & ((UINT64_C(1) << FE_LANES_MAX) - 1)) == 0)
		return 1; /* none of its queues may hold a frame */
	for (unsigned lane = 0; lane < FE_LANES_MAX; lane++)
		if (g->iq[q0 + lane].head != g->iq[q0 + lane].tail)
			return 0;
	return 1;
}

/* Lossy: hop link hl is offered a frame of tick t; one before a frame it was offered
 * earlier came behind it (counted: the pass's order, docs/architecture.md). */
static __rte_always_inline void
fe_hop_offered(struct fe_hoplink *hl, uint64_t t)
{
	if (unlikely(t < hl->last_in))
		FE_CNT_ADD(hl->behind, 1);
	else
		hl->last_in = t;
}

/*
 * Into hop link h at t from input src. A drop (its buffer full; under PFC, headroom
 * exceeded or the link stormed by the watchdog) is counted by the link and freed. PFC:
 * the bytes are held against src, which pauses its sender at XOFF.
 */
static __rte_always_inline void
fe_hop(struct fe_dp *dp, unsigned src, uint16_t h, struct rte_mbuf *m, uint64_t t, uint8_t lane,
       const enum fe_regime R)
{
	struct fe_hoplink *hl = &dp->graph->hl[h];
	uint64_t extra = 0;

	/* the link's impairments first, as on a host's link (fe_linkop_offer()) */
	if (unlikely(hl->row.x.cfg.active) &&
	    fe_linkop_impair(dp, fe_dp_link_id(dp, FE_LINK_HOP, h), &hl->row, m, t, lane, &extra) <
		    0)
		return;
	if (R == FE_REGIME_PFC) {
		fe_hop_pfc(dp, src, h, m, t, lane, extra);
		return;
	}
	if (R == FE_REGIME_CREDIT && fe_hop_credit_at_offer(dp, h)) {
		fe_link_pump_inline(&hl->row.l, t, fe_credit_gate_inline, &hl->row.cred);
		if (fe_link_enqueue_x(&hl->row.l, m, rte_pktmbuf_pkt_len(m), t, extra,
				      FE_LABEL(src * FE_PFC_PRIOS + lane, lane)) < 0)
			fe_hop_drop(dp, h, m, t, hl->row.l.last_drop);
		else
			fe_link_pump_inline(&hl->row.l, t, fe_credit_gate_inline, &hl->row.cred);
		return;
	}
	if (R == FE_REGIME_LOSSY) /* after one offered later: the pass's order, counted */
		fe_hop_offered(hl, t);
	/* lossy, model uec: a header trimmed before, a NIC's own frame: ahead of the data */
	if (fe_linkop_ahead(dp, fe_dp_link_id(dp, FE_LINK_HOP, h), &hl->row.l, m, t, extra, R) == 0)
		return;
	if (fe_link_enqueue_x(&hl->row.l, m, rte_pktmbuf_pkt_len(m), t, extra,
			      FE_LABEL(src * FE_PFC_PRIOS + lane, lane)) < 0 &&
	    (R != FE_REGIME_LOSSY || likely(!dp->trim) ||
	     fe_linkop_trim(dp, fe_dp_link_id(dp, FE_LINK_HOP, h), &hl->row.l, m,
			    hl->row.l.last_drop, t, FE_LABEL(src * FE_PFC_PRIOS + lane, lane),
			    extra) < 0))
		fe_hop_drop(dp, h, m, t, hl->row.l.last_drop);
}

/*
 * Offers o[0 .. n) into hop link h, their ticks not decreasing: a run of one input's
 * frames (PFC), a link's stage (lossy, any inputs: each frame's from its label), as one
 * burst where nothing is decided a frame at a time (fe_hop.c run_flush()).
 */
void fe_hop_run_lossy(struct fe_dp *dp, unsigned src, uint16_t h, struct fe_link_offer *o,
		      unsigned n);
void fe_hop_run_pfc(struct fe_dp *dp, unsigned src, uint16_t h, struct fe_link_offer *o,
		    unsigned n);

/* Lossy: hop link h's stage offered to it in the order of the ticks, then empty; every
 * link's (the pass's end, what the NICs sent, fe_dp_drain()). */
void fe_hop_stage_flush(struct fe_dp *dp, uint16_t h);
void fe_hop_stages_flush(struct fe_dp *dp);

/* Lossy (g->stage_hops): m for hop link h at t, staged until the pass comes to h. */
static __rte_always_inline void
fe_hop_stage(struct fe_dp *dp, uint16_t h, struct rte_mbuf *m, uint64_t t, uint32_t label)
{
	struct fe_graph *g = dp->graph;
	struct fe_hop_stage *s = &g->hstage[h];
	struct fe_link_offer *o;

	if (unlikely(s->n == FE_HSTAGE)) {
		FE_CNT_ADD(dp->sw.hop_early, FE_HSTAGE);
		fe_hop_stage_flush(dp, h);
	}
	if (s->n == 0)
		g->nstaged++;
	o = &s->o[s->n++];
	o->pkt = m;
	o->at = t;
	o->len = rte_pktmbuf_pkt_len(m);
	o->label = label;
	s->bytes += o->len;
}

/* Into hop link h at t from input src: staged (lossy, g->stage_hops), else fe_hop(). */
static __rte_always_inline void
fe_hop_to(struct fe_dp *dp, unsigned src, uint16_t h, struct rte_mbuf *m, uint64_t t, uint8_t lane,
	  const enum fe_regime R)
{
	if (R == FE_REGIME_LOSSY && dp->graph->stage_hops)
		fe_hop_stage(dp, h, m, t, FE_LABEL(src * FE_PFC_PRIOS + lane, lane));
	else
		fe_hop(dp, src, h, m, t, lane, R);
}

/* To the host of port q, from input src: its down link; reordering counted here (lossy:
 * as its down link is offered them, fe_egress.h). */
static __rte_always_inline void
fe_hop_deliver(struct fe_dp *dp, unsigned src, struct rte_mbuf *m, uint64_t r, unsigned q,
	       uint64_t t, const enum fe_regime R)
{
	if (R != FE_REGIME_LOSSY && !dp->one_switch) /* one switch: nothing to reorder */
		fe_graph_count_order(dp->graph, q, r);
	if (R == FE_REGIME_PFC) /* its admission and pause: out of line */
		fe_rg_egress(R, dp, src, q, m, t, FE_ROUTE_LANE(r));
	else /* the offer alone, inline */
		fe_egress_to(dp, src, q, m, t, FE_ROUTE_LANE(r), R);
}

#endif
