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

/*
 * Port q's stage in the order of the ticks, equal ones as they came: runs of one input
 * each in order, a few of them; from the first frame out of order, an insertion moves
 * each frame past those it overtakes. Then the reordering on the way is counted as the
 * host will receive them (fe_hop_deliver()). How many frames it holds.
 */
static uint32_t
stage_sort(struct fe_dp *dp, unsigned q)
{
	struct fe_egress_stage *g = &dp->estage[q];
	const uint32_t n = g->n;

	FE_CNT_ADD(dp->sw.egress_reordered, fe_link_offers_sort(g->h, n));
	for (uint32_t i = 0; !dp->one_switch && i < n; i++)
		fe_graph_count_order(dp->graph, q, *fe_graph_route(dp->graph, g->h[i].pkt));
	return n;
}

/* Frame i of port q's stage, offered to its down link. */
static inline void
stage_offer(struct fe_dp *dp, unsigned q, uint32_t i)
{
	const struct fe_link_offer *x = &dp->estage[q].h[i];

	fe_linkop_offer_x(dp, fe_dp_link_id(dp, FE_LINK_DOWN, q), &dp->ports[q].down, x->pkt, x->at,
			  x->label, FE_REGIME_LOSSY, 0);
}

void
fe_egress_flush_port(struct fe_dp *dp, unsigned q)
{
	struct fe_egress_stage *g = &dp->estage[q];
	struct fe_link_offer *h = g->h;
	struct fe_row *down = &dp->ports[q].down;
	const unsigned id = fe_dp_link_id(dp, FE_LINK_DOWN, q);
	const uint32_t n = stage_sort(dp, q);

	g->n = 0;
	if (dp->handoff != NULL) { /* a pipeline: the down stage offers them */
		unsigned k =
			rte_ring_sp_enqueue_burst_elem(dp->handoff[q], h, sizeof(h[0]), n, NULL);

		if (unlikely(k < n)) {
			FE_CNT_ADD(dp->sw.handoff_full, n - k);
			for (; k < n; k++)
				rte_pktmbuf_free(h[k].pkt);
		}
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		fe_linkop_offer_x(dp, id, down, h[i].pkt, h[i].at, h[i].label, FE_REGIME_LOSSY, 0);
}

/*
 * The ports in s, whose down links share a switch's limited buffer: the room goes to the
 * frame that came first, whichever port it is for, so their stages are offered merged
 * by their ticks (equal ticks: the ports in an order drawn each time, fe_order_draw()).
 */
static void
flush_merged(struct fe_dp *dp, uint64_t s)
{
	const struct fe_order o = fe_order_draw(&dp->order_rng, dp->nports);
	unsigned q[64], k = 0;
	uint32_t at[64], n[64];

	for (unsigned j = 0, p = o.at; j < dp->nports; j++, p = fe_order_next(&o, p, dp->nports))
		if (s >> p & 1) {
			q[k] = p;
			at[k] = 0;
			n[k] = stage_sort(dp, p);
			dp->estage[p].n = 0;
			k++;
		}
	while (k > 0) {
		unsigned b = 0;

		for (unsigned j = 1; j < k; j++)
			if (dp->estage[q[j]].h[at[j]].at < dp->estage[q[b]].h[at[b]].at)
				b = j;
		stage_offer(dp, q[b], at[b]);
		if (++at[b] == n[b]) { /* that port's done: the rest move up, in their order */
			k--;
			for (unsigned j = b; j < k; j++) {
				q[j] = q[j + 1];
				at[j] = at[j + 1];
				n[j] = n[j + 1];
			}
		}
	}
}

void
fe_egress_flush(struct fe_dp *dp)
{
	uint64_t s = dp->estaged;

	dp->estaged = 0;
	/* one lcore, more than one port, their links sharing a limited switch's buffer */
	if (dp->handoff == NULL && (s & (s - 1)) != 0 && dp->pooled) {
		flush_merged(dp, s);
		return;
	}
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
