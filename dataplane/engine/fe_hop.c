/* SPDX-License-Identifier: BSD-3-Clause */
/* Onto a link between switches (fe_hop.h), out of line: a drop, PFC's way, a run of frames
 * and a lossy link's stage. */
#include "fe_hop.h"

/* Free a frame link h dropped at t (counted already), shown to a capture of it first. */
void
fe_hop_drop(struct fe_dp *dp, uint16_t h, struct rte_mbuf *m, uint64_t t, uint8_t why)
{
	struct fe_tap *tap = fe_tap_on(&dp->tap, fe_dp_link_id(dp, FE_LINK_HOP, h));

	if (unlikely(tap != NULL))
		fe_tap_pkt(tap, m, t, why);
	rte_pktmbuf_free(m);
}

void
fe_hop_pfc(struct fe_dp *dp, unsigned src, uint16_t h, struct rte_mbuf *m, uint64_t t, uint8_t lane,
	   uint64_t extra)
{
	struct fe_graph *g = dp->graph;
	struct fe_hoplink *hl = &g->hl[h];
	uint32_t len = rte_pktmbuf_pkt_len(m), acct = src * FE_PFC_PRIOS + lane;
	struct fe_pfc *pfc = fe_graph_input_pfc(dp, src);
	const int at_offer = fe_hop_pfc_at_offer(dp, hl);

	if (hl->storm_until > t && dp->wd.action == FE_PFC_WD_DROP) {
		FE_CNT_ADD(hl->row.l.st.in_pkts, 1);
		FE_CNT_ADD(hl->row.l.st.in_bytes, len);
		fe_link_drop_cause(&hl->row.l, FE_LINK_DROP_WATCHDOG, len, lane);
		fe_hop_drop(dp, h, m, t, FE_LINK_DROP_WATCHDOG);
		return;
	}
	if (fe_pfc_admit(pfc, dp->held[acct], len) < 0) {
		fe_link_drop(&hl->row.l, FE_LINK_DROP_HEADROOM, len, lane);
		fe_hop_drop(dp, h, m, t, FE_LINK_DROP_HEADROOM);
		return;
	}
	if (at_offer)
		fe_link_pump_inline(&hl->row.l, t, fe_pfc_gate_inline, &hl->row.pfc);
	if (fe_link_enqueue_x(&hl->row.l, m, len, t, extra, FE_LABEL(acct, lane)) < 0) {
		fe_hop_drop(dp, h, m, t, hl->row.l.last_drop);
		return;
	}
	if (at_offer)
		fe_link_pump_inline(&hl->row.l, t, fe_pfc_gate_inline, &hl->row.pfc);
	fe_egress_pfc_took(dp, src, pfc, lane, dp->held[acct], t);
}

/*
 * Runs: frames of one input bound for the same hop link, in a row, offered to it at once.
 * Any other frame's move flushes the run first, so every link, every switch's shared
 * buffer, input queue, pause and credit loop sees the same offers in the same order as
 * one frame at a time.
 *
 * PFC: fe_hop_pfc() decides nothing for a run whose frames all count against one input and
 * priority, not paused (XOFF), that no watchdog drops and that cannot bring what the
 * switch holds from that input to XOFF: no headroom drop, no pause. 1: such a run.
 */
static inline int
pfc_run_quiet(struct fe_dp *dp, unsigned src, const struct fe_hoplink *hl,
	      const struct fe_link_offer *o, unsigned n)
{
	const struct fe_pfc *pfc = fe_graph_input_pfc(dp, src);
	const uint32_t label = o[0].label;
	uint64_t held = dp->held[FE_LABEL_ACCT(label)];

	/* a run's ticks do not decrease (a link's arrivals, a port's burst): o[0]'s holds */
	if ((hl->storm_until > o[0].at && dp->wd.action == FE_PFC_WD_DROP) ||
	    fe_pfc_xoff(pfc, FE_LABEL_CLASS(label)))
		return 0;
	/* one input's frames of one lane share a label: with one lane, every run's */
	for (unsigned i = 1; dp->conf.lanes > 1 && i < n; i++)
		if (o[i].label != label)
			return 0;
	for (unsigned i = 0; i < n; i++)
		held += o[i].len; /* the most it can hold: frames only leave in between */
	return held < pfc->cfg.xoff;
}

/*
 * Lossy, and PFC's quiet runs: the link takes the run whole (fe_link_enqueue_burst()),
 * dropping what it has no room for; under PFC, pumped at each offer (fe_hop_pfc_at_offer()), its
 * frames start as they come while none waits (a pump to each one's tick has nothing to
 * start: one lane, pfc_run_quiet()), and from the first that waits go one at a time. A
 * link with impairments, or a run PFC may decide something for: one frame at a time.
 */
static __rte_always_inline void
run_flush(struct fe_dp *dp, unsigned src, uint16_t h, struct fe_link_offer *o, unsigned n,
	  const enum fe_regime R)
{
	struct fe_hoplink *hl = &dp->graph->hl[h];
	unsigned k = 0, nd = 0; /* o[0 .. k) offered together, nd of them dropped */

	/* (trimming: one frame at a time, each header behind the frames before it) */
	if (likely(!hl->row.x.cfg.active) && (R != FE_REGIME_LOSSY || likely(!dp->trim)) &&
	    (R != FE_REGIME_PFC || pfc_run_quiet(dp, src, hl, o, n))) {
		if (R == FE_REGIME_PFC && fe_hop_pfc_at_offer(dp, hl)) {
			const struct fe_pfc_prio *q = &hl->row.pfc.prio[FE_LABEL_CLASS(o[0].label)];

			k = fe_link_enqueue_burst_open(&hl->row.l, o, n, q->from, q->until, &nd);
		} else {
			k = n;
			nd = fe_link_enqueue_burst(&hl->row.l, o, n);
		}
	}
	/* a run's ticks do not decrease: those behind an earlier offer are at its start */
	if (R == FE_REGIME_LOSSY && k != 0 && unlikely(o[0].at < hl->last_in))
		for (unsigned i = 0; i < k; i++)
			fe_hop_offered(hl, o[i].at);
	else if (R == FE_REGIME_LOSSY && k != 0)
		hl->last_in = o[k - 1].at;
	for (unsigned i = 0; nd > 0 && i < k; i++)
		if (o[i].why != FE_LINK_DROP__MAX) {
			fe_hop_drop(dp, h, o[i].pkt, o[i].at, o[i].why);
			nd--;
		}
	/* (a stage's frames come from several inputs: each its own, from its label) */
	for (unsigned i = k; i < n; i++)
		fe_hop(dp, FE_LABEL_ACCT(o[i].label) / FE_PFC_PRIOS, h, o[i].pkt, o[i].at,
		       FE_LABEL_CLASS(o[i].label), R);
}

void
fe_hop_run_lossy(struct fe_dp *dp, unsigned src, uint16_t h, struct fe_link_offer *o, unsigned n)
{
	run_flush(dp, src, h, o, n, FE_REGIME_LOSSY);
}

void
fe_hop_stage_flush(struct fe_dp *dp, uint16_t h)
{
	struct fe_graph *g = dp->graph;
	struct fe_hop_stage *s = &g->hstage[h];
	const uint32_t n = s->n;

	s->n = 0;
	s->bytes = 0;
	g->nstaged--;
	FE_CNT_ADD(dp->sw.hop_reordered, fe_link_offers_sort(s->o, n));
	run_flush(dp, FE_LABEL_ACCT(s->o[0].label) / FE_PFC_PRIOS, h, s->o, n, FE_REGIME_LOSSY);
}

void
fe_hop_stages_flush(struct fe_dp *dp)
{
	struct fe_graph *g = dp->graph;

	for (unsigned h = 0; g->nstaged > 0 && h < g->nhl; h++)
		if (g->hstage[h].n > 0)
			fe_hop_stage_flush(dp, (uint16_t)h);
}

void
fe_hop_run_pfc(struct fe_dp *dp, unsigned src, uint16_t h, struct fe_link_offer *o, unsigned n)
{
	run_flush(dp, src, h, o, n, FE_REGIME_PFC);
}
