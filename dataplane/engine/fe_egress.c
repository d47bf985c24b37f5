/* SPDX-License-Identifier: BSD-3-Clause */
/* Into a port's down link from the last switch (fe_egress.h), and PFC's pauses. */
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "fe_egress.h"
#include "fe_trunk.h"

void
fe_egress_pause(struct fe_dp *dp, unsigned src, uint8_t prio, enum fe_pfc_event ev, uint64_t t)
{
	if (src < dp->nports)
		fe_linkop_pfc_frame(dp, src, prio, ev);
	else /* a hop link's sender: an emulated switch here (no frame), or on another box */
		fe_trunk_pause_out(dp, src - dp->nports, prio, ev, t);
}

void
fe_egress_flush_port(struct fe_dp *dp, unsigned q)
{
	struct fe_egress_stage *g = &dp->estage[q];
	struct fe_handoff *h = g->h;
	struct fe_row *down = &dp->ports[q].down;
	const unsigned id = fe_dp_link_id(dp, FE_LINK_DOWN, q);
	const uint32_t n = g->n;
	uint32_t i = 1;

	/* in the order of the ticks, equal ones as they came: runs of one input each in order,
	 * a few of them; from the first frame out of order, an insertion moves each frame past
	 * those it overtakes */
	while (i < n && h[i].t >= h[i - 1].t)
		i++;
	if (i < n) {
		uint32_t moved = 0;

		for (; i < n; i++) {
			struct fe_handoff x = h[i];
			uint32_t j = i;

			for (; j > 0 && h[j - 1].t > x.t; j--)
				h[j] = h[j - 1];
			h[j] = x;
			moved += j != i;
		}
		FE_CNT_ADD(dp->sw.egress_reordered, moved);
	}
	g->n = 0;
	/* reordering on the way, as the host will receive them (fe_hop_deliver()) */
	for (i = 0; !dp->one_switch && i < n; i++)
		fe_graph_count_order(dp->graph, q, *fe_graph_route(dp->graph, h[i].m));
	if (dp->handoff != NULL) { /* a pipeline: the down stage offers them */
		unsigned k =
			rte_ring_sp_enqueue_burst_elem(dp->handoff[q], h, sizeof(h[0]), n, NULL);

		if (unlikely(k < n)) {
			FE_CNT_ADD(dp->sw.handoff_full, n - k);
			for (; k < n; k++)
				rte_pktmbuf_free(h[k].m);
		}
		return;
	}
	for (i = 0; i < n; i++)
		fe_linkop_offer_x(dp, id, down, h[i].m, h[i].t, h[i].label, FE_REGIME_LOSSY, 0);
}

void
fe_egress_flush(struct fe_dp *dp)
{
	uint64_t s = dp->estaged;

	dp->estaged = 0;
	for (; s; s &= s - 1)
		fe_egress_flush_port(dp, (unsigned)__builtin_ctzll(s));
}

void
fe_egress_wd(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, uint64_t t,
	     uint8_t lane)
{
	struct fe_port *out = &dp->ports[q];

	if (out->storm_until > t && dp->wd.action == FE_PFC_WD_DROP) {
		FE_CNT_ADD(out->down.l.st.in_pkts, 1);
		FE_CNT_ADD(out->down.l.st.in_bytes, rte_pktmbuf_pkt_len(m));
		fe_link_drop_cause(&out->down.l, FE_LINK_DROP_WATCHDOG, rte_pktmbuf_pkt_len(m),
				   lane);
		fe_linkop_drop_free(dp, fe_dp_link_id(dp, FE_LINK_DOWN, q), m,
				    FE_LINK_DROP_WATCHDOG, t);
		return;
	}
	if (fe_egress_admit(dp, in, q, m, t, lane) == 0 && out->down.l.hold_until > t &&
	    out->wait_from == UINT64_MAX) {
		out->wait_from = t;
		out->wait_slot = out->down.l.tail - 1;
	}
}

/* The egress, one copy a regime (fe_regime.h): the regime a constant. */
#define EGRESS_REGIME(sfx, R)                                                                      \
	void fe_egress_##sfx(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m,        \
			     uint64_t t, uint8_t lane)                                             \
	{                                                                                          \
		fe_egress_to(dp, in, q, m, t, lane, R);                                            \
	}

EGRESS_REGIME(lossy, FE_REGIME_LOSSY)
EGRESS_REGIME(pfc, FE_REGIME_PFC)
EGRESS_REGIME(credit, FE_REGIME_CREDIT)
