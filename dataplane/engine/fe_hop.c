/* SPDX-License-Identifier: BSD-3-Clause */
/* Onto a link between switches (fe_hop.h), out of line: a drop, and PFC's way. */
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
