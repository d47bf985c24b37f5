/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lcore's side of what the control thread asks (fe_ctlif.h): it takes a published
 * change (struct fe_update, compiled aside by fe_update.c) at a pass start, each part by
 * an assignment of its compiled configuration (a link's cfg, its impairments' cfg, an
 * ingress's PFC cfg), and zeroes the counters on a reset. No allocation, no syscall.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "fe_adopt.h"
#include "fe_graph.h"
#include "fe_nicport.h"
#include "fe_update.h"

/* Move the packets of l into a larger ring; sequence numbers stay, only the mask grows. */
static void
migrate(struct fe_link *l, struct fe_link_slot *slots, uint32_t nslots)
{
	uint32_t mask = nslots - 1;

	for (uint32_t s = l->head; s != l->tail; s++)
		slots[s & mask] = l->slots[s & l->mask];
	l->slots = slots;
	l->mask = mask;
}

/* Row n takes its part ul of a change: its link's cfg (into a larger ring), its impairments'. */
static void
adopt_link(struct fe_dp *dp, unsigned n, struct fe_update_link *ul)
{
	struct fe_row *r = fe_dp_row(dp, n);
	struct fe_link *l = &r->l;
	struct fe_linkx *x = &r->x;
	uint32_t nslots;

	ul->old_slots = NULL;
	if (ul->slots) {
		ul->old_slots = l->slots;
		migrate(l, ul->slots, ul->cfg.nslots);
	}
	nslots = l->mask + 1;
	l->cfg = ul->cfg;
	l->cfg.nslots = nslots;
	ul->old_filter = x->cfg.filter;
	if (!fe_loss_same(&x->cfg.loss, &ul->x.loss)) /* another chain starts (good) */
		x->loss_st = (struct fe_loss_state){0};
	x->cfg = ul->x;
	if (ul->rule_changed)
		x->matched = 0;
	fe_link_derived_apply(dp, n, &ul->dv);
	__atomic_store_n(&ul->adopted, 1, __ATOMIC_RELEASE);
}

void
fe_adopt(struct fe_dp *dp, struct fe_update *u, unsigned role)
{
	uint64_t t0 = rte_rdtsc();

	for (unsigned i = 0; i < dp->nports; i++) {
		const unsigned nu = fe_dp_link_id(dp, FE_LINK_UP, i);
		const unsigned nd = fe_dp_link_id(dp, FE_LINK_DOWN, i);

		if (role & FE_ROLE_UP)
			adopt_link(dp, nu, &u->links[nu]);
		if (role & FE_ROLE_DOWN)
			adopt_link(dp, nd, &u->links[nd]);
	}
	if (role & FE_ROLE_DOWN) {
		for (unsigned s = 0; s < dp->graph->nsw; s++)
			if (!dp->graph->pool_fixed[s])
				dp->graph->pool[s].limit = u->switch_buffer;
		dp->ideal_down = fe_dp_ideal_down(dp);
		dp->pooled = (uint8_t)fe_dp_pooled(dp);
		dp->stage_down = fe_dp_stage_down(dp, dp->pooled);
		/* (a pass's boundary: the stages are empty; written when it changes: the up
		 * lcore of a pipeline reads it) */
		if (dp->graph->stage_hops != fe_dp_stage_hops(dp, dp->pooled))
			dp->graph->stage_hops = (uint8_t)fe_dp_stage_hops(dp, dp->pooled);
	}
	if (role & FE_ROLE_UP) {
		dp->hoq_ticks = u->hoq_ticks;
		for (unsigned h = 0; dp->graph && h < dp->graph->nhl; h++) {
			const unsigned n = fe_dp_link_id(dp, FE_LINK_HOP, h);

			adopt_link(dp, n, &u->links[n]);
		}
		if (dp->graph != NULL)
			fe_graph_links_changed(dp->graph);
		dp->wd = u->wd;
		dp->step = fe_dp_causal_step(dp);
		fe_nic_timeouts(dp); /* the NICs are on this lcore: no pipeline with a NIC */
		u->adopted_tsc = t0;
		u->adopt_ticks = rte_rdtsc() - t0;
	}
	__atomic_store_n(role == FE_ROLE_DOWN ? &dp->down_acks.adopted_gen : &dp->adopted_gen,
			 u->gen, __ATOMIC_RELEASE);
}

/* Zero the counters; the occupancy gauges keep their value and the peaks restart there. */
static void
reset_link(struct fe_link *l)
{
	memset(&l->st, 0, sizeof(l->st));
	fe_link_reset_peaks(l);
}

/* An input's pause counters and its sender's credit counters (the gauges stay; the fewest
 * credits held restarts from what the sender holds at now, the returns due by then
 * counted, as the credits gauge counts them). */
static void
reset_flow_control(struct fe_pfc *pfc, struct fe_credit *cred, uint64_t now)
{
	for (unsigned l = 0; l < FE_PFC_PRIOS; l++) {
		FE_CNT_SET(pfc->prio[l].pause_frames, 0);
		FE_CNT_SET(pfc->prio[l].paused_ticks, 0);
		FE_CNT_SET(pfc->prio[l].xoff_events, 0);
	}
	for (unsigned l = 0; l < FE_LANES_MAX; l++) {
		FE_CNT_SET(cred->stall_ticks[l], 0);
		/* read, not taken: the sender takes its returns in its gate, which times a
		 * head that waited for them by them */
		FE_CNT_SET(cred->avail_min[l],
			   cred->ring ? fe_credit_held(cred, (uint8_t)l, now) : cred->avail[l]);
		FE_CNT_SET(cred->updates[l], 0);
	}
}

void
fe_adopt_reset(struct fe_dp *dp, unsigned role, uint64_t now)
{
	/* several switches (one lcore): the links between them, and the reordering seen */
	for (unsigned i = 0; dp->graph && i < dp->graph->nhl; i++) {
		struct fe_hoplink *h = &dp->graph->hl[i];

		reset_link(&h->row.l);
		FE_CNT_SET(h->storms, 0);
		FE_CNT_SET(h->failovers, 0);
		FE_CNT_SET(h->wd_forwarded, 0);
		FE_CNT_SET(h->behind, 0);
		reset_flow_control(&h->row.pfc, &h->row.cred, now);
	}
	for (unsigned i = 0; dp->graph && i < dp->nports; i++)
		FE_CNT_SET(dp->graph->ooo[i], 0);
	/* the input queues of every switch; deadlock events are a log, not reset */
	for (unsigned i = 0; dp->graph && dp->graph->iq && i < dp->graph->nin * FE_LANES_MAX; i++) {
		struct fe_iq *q = &dp->graph->iq[i];

		FE_CNT_SET(q->peak, q->depth);
		FE_CNT_SET(q->peak_blocks, q->blocks);
	}
	if (dp->graph != NULL) {
		FE_CNT_SET(dp->graph->flowlets, 0);
		FE_CNT_SET(dp->graph->stalls, 0);
	}
	/* split across boxes: what crossed the trunks (their frames in flight stay) */
	for (unsigned t = 0; dp->graph && t < dp->graph->ntrunks; t++) {
		struct fe_trunk *x = &dp->graph->trunk[t];

		for (fe_counter_t *c = &x->tx_frames; c <= &x->echoes; c++)
			FE_CNT_SET(*c, 0);
	}
	for (unsigned i = 0; i < dp->nports; i++) {
		struct fe_port *p = &dp->ports[i];

		if (role & FE_ROLE_DOWN) {
			reset_link(&p->down.l);
			FE_CNT_SET(p->down.x.filter_hits, 0);
			FE_CNT_SET(p->st.tx_pkts, 0);
			FE_CNT_SET(p->st.tx_bytes, 0);
			FE_CNT_SET(p->st.tx_busy, 0);
			FE_CNT_SET(p->st.pfc_frames_out, 0);
			FE_CNT_SET(p->st.pfc_frames_lost, 0);
			FE_CNT_SET(p->st.pfc_wd_storms, 0);
			FE_CNT_SET(p->st.pfc_wd_forwarded, 0);
		}
		if (!(role & FE_ROLE_UP))
			continue;
		reset_link(&p->up.l);
		memset(&p->edge_st, 0, sizeof(p->edge_st));
		FE_CNT_SET(p->up.x.filter_hits, 0);
		FE_CNT_SET(p->st.rx_pkts, 0);
		FE_CNT_SET(p->st.rx_bytes, 0);
		FE_CNT_SET(p->st.rx_held, 0);
		FE_CNT_SET(p->st.edge_xoff, 0);
		FE_CNT_SET(p->st.host_pfc_xoff, 0);
		FE_CNT_SET(p->st.host_pfc_xon, 0);
		/* the NIC's counters (one lcore runs it); its gauges (a rate, a window, a pull
		 * rate, the frames in flight) stay, and the least and the most restart from
		 * them (the PCIe's from the next frame to cross, its least at the next pass) */
		for (fe_counter_t *c = &p->st.nic_flows; c <= &p->st.roce_untracked; c++)
			if (c != &p->st.nic_copies && c != &p->st.nic_rate_bps &&
			    c != &p->st.nic_cwnd_bytes && c != &p->st.nic_pull_permille)
				FE_CNT_SET(*c, 0);
		FE_CNT_SET(p->st.nic_copies_peak, p->st.nic_copies);
		fe_nic_reset_least(p); /* the least rate and window, from every flow's */
		FE_CNT_SET(p->st.nic_pull_min_permille, p->st.nic_pull_permille);
		reset_flow_control(&p->up.pfc, &p->up.cred, now);
	}
	for (unsigned s = 0; (role & FE_ROLE_DOWN) && dp->graph && s < dp->graph->nsw; s++)
		FE_CNT_SET(dp->graph->pool[s].peak, dp->graph->pool[s].used);
	if (!(role & FE_ROLE_UP))
		return;
	memset(&dp->sw, 0, sizeof(dp->sw));
	memset(&dp->idle, 0, sizeof(dp->idle));
	/* the MAC table's (learnt on this lcore: fe_switch.c, fe_trunk.c) */
	FE_CNT_SET(dp->mac->learned, 0);
	FE_CNT_SET(dp->mac->moves, 0);
	FE_CNT_SET(dp->mac->full, 0);
}
