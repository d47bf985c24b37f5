/* SPDX-License-Identifier: BSD-3-Clause */
/* The graph of switches (fe_graph.h): its set-up, a frame into its ingress switch and on,
 * switch by switch, in runs to a link between switches, and the pass; the lossless
 * service it calls is fe_lossless.[ch], floods and failover fe_flood.[ch]. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "fe_egress.h"
#include "fe_flood.h"
#include "fe_graph.h"
#include "fe_linkop.h"
#include "fe_lossless.h"
#include "fe_nictag.h"
#include "fe_routing.h"
#include "fe_time.h"
#include "fe_trunk.h"

/*
 * Ports as the graph numbers them: this box's 0..nports-1; split across boxes, the
 * fabric's port G on another box is nports + G. Not split: the fabric's are this box's.
 */
static void
ports_setup(struct fe_dp *dp, struct fe_graph *g, const struct fe_graph_conf *c)
{
	memset(g->loc, 0xff, sizeof(g->loc));
	memset(g->glob, 0xff, sizeof(g->glob));
	if (c->gport == NULL) {
		for (unsigned p = 0; p < dp->nports; p++) {
			g->port_sw[p] = c->port_sw[p];
			g->loc[p] = g->glob[p] = (uint8_t)p;
		}
		return;
	}
	for (unsigned q = 0; q < c->nall; q++) {
		g->loc[q] = (uint8_t)(dp->nports + q);
		g->glob[dp->nports + q] = (uint8_t)q;
		g->port_sw[dp->nports + q] = c->all_sw[q];
	}
	for (unsigned p = 0; p < dp->nports; p++) {
		g->port_sw[p] = c->all_sw[c->gport[p]];
		g->loc[c->gport[p]] = (uint8_t)p;
		g->glob[p] = c->gport[p];
	}
}

int
fe_graph_create(struct fe_dp *dp, const struct fe_graph_conf *c, int socket, char *err,
		size_t errlen)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "fabemu_route", .size = sizeof(uint64_t), .align = __alignof__(uint64_t)};
	struct fe_graph *g;
	int rc;

	if (c->nsw > FE_GRAPH_SW || dp->nports + (c->gport ? c->nall : 0) > FE_GRAPH_PORTS) {
		snprintf(err, errlen, "a topology of at most %d switches and %d ports", FE_GRAPH_SW,
			 c->gport ? FE_GRAPH_PORTS / 2 : FE_GRAPH_PORTS);
		return -EINVAL;
	}
	if (dp->conf.lcores > 1 && (c->nsw > 1 || c->nlinks > 0)) {
		snprintf(err, errlen, "a topology of several switches runs on one lcore");
		return -EINVAL;
	}
	g = rte_zmalloc_socket("fe_graph", sizeof(*g), RTE_CACHE_LINE_SIZE, socket);
	if (g == NULL)
		goto nomem;
	dp->graph = g;
	g->nsw = c->nsw;
	g->nhl = 2 * c->nlinks;
	g->nin = dp->nports + g->nhl;
	g->path = c->path;
	g->dynoff = rte_mbuf_dynfield_register(&desc);
	if (g->dynoff < 0) {
		snprintf(err, errlen, "no mbuf field for routes: %s", rte_strerror(rte_errno));
		return -EINVAL;
	}
	/* an emulated NIC tags every frame (the field is its: no room taken): path entropy
	 * reads the entropy in its data frames' tags (without one, it is ecmp) */
	g->nic_tags = fe_nic_emulated(dp->conf.nic.model);
	if (g->nic_tags) {
		g->tagoff = fe_nic_field();
		if (g->tagoff < 0) {
			snprintf(err, errlen, "no mbuf field for the NIC's tag: %s",
				 rte_strerror(rte_errno));
			return -EINVAL;
		}
	}
	ports_setup(dp, g, c);
	memcpy(g->nnh, c->nnh, sizeof(g->nnh));
	memcpy(g->nh, c->nh, sizeof(g->nh));
	memcpy(g->nnh0, c->nnh, sizeof(g->nnh0));
	memcpy(g->nh0, c->nh, sizeof(g->nh0));
	memcpy(g->tree0, c->tree, sizeof(g->tree0));
	memcpy(g->tree, c->tree, sizeof(g->tree));
	for (unsigned s = 0; s < g->nsw; s++)
		g->seed[s] = c->path == FE_PATH_POLARIZED ? 0x9e3779b9u : 0x9e3779b9u * (s + 1);
	/* spray-random: the run's seed, a stream past every link's (fe_rng.h) */
	fe_rng_seed(&g->rng, dp->conf.seed, 0xf00d);
	/* each switch's memory: its egress queues, the hosts' down links among them */
	for (unsigned s = 0; s < g->nsw; s++) {
		snprintf(g->sw_name[s], sizeof(g->sw_name[s]), "%s", c->sw_names[s]);
		g->pool_fixed[s] = c->sw_buffer && c->sw_buffer[s];
		g->pool[s].limit = g->pool_fixed[s] ? c->sw_buffer[s] : dp->conf.switch_buffer;
	}
	for (unsigned p = 0; p < dp->nports; p++)
		fe_link_pool_join(&dp->ports[p].down.l, &g->pool[g->port_sw[p]]);
	g->hl = rte_zmalloc_socket("fe_graph", sizeof(*g->hl) * (g->nhl ? g->nhl : 1),
				   RTE_CACHE_LINE_SIZE, socket);
	g->seq_tx =
		rte_zmalloc_socket("fe_graph", sizeof(*g->seq_tx) * (dp->nports + 1), 0, socket);
	g->seq_rx =
		rte_zmalloc_socket("fe_graph", sizeof(*g->seq_rx) * (dp->nports + 1), 0, socket);
	g->flowlet = rte_zmalloc_socket("fe_graph", sizeof(*g->flowlet) * g->nsw, 0, socket);
	if (dp->conf.regime == FE_REGIME_LOSSY) { /* each link's stage, the pass's order */
		g->hstage =
			rte_zmalloc_socket("fe_graph", sizeof(*g->hstage) * (g->nhl ? g->nhl : 1),
					   RTE_CACHE_LINE_SIZE, socket);
		g->visit = rte_zmalloc_socket("fe_graph", sizeof(*g->visit) * (g->nhl ? g->nhl : 1),
					      0, socket);
		if (g->hstage == NULL || g->visit == NULL)
			goto nomem;
	}
	if (g->hl == NULL || g->seq_tx == NULL || g->seq_rx == NULL || g->flowlet == NULL)
		goto nomem;
	rc = fe_trunk_setup(dp, g, c, socket, err, errlen);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc < 0)
		return rc;
	g->flowlet_ticks = fe_ns_to_ticks(c->flowlet_ns ? c->flowlet_ns : 100000, dp->hz);
	g->failover_ticks = fe_ns_to_ticks(c->failover_ns ? c->failover_ns : 100000, dp->hz);
	for (unsigned i = 0; i < g->nhl; i++) {
		struct fe_hoplink *h = &g->hl[i];

		dp->desc.hop[i] = c->def[i];
		h->from = c->ends[i / 2][i % 2];
		h->to = c->ends[i / 2][1 - i % 2];
		snprintf(h->name, sizeof(h->name), "%s", c->dir_names[i]);
		snprintf(h->lname, sizeof(h->lname), "%s", c->link_names[i / 2]);
		h->topo = c->topo[i / 2];
		/* numbered after the ports' links (2 x nports): its RNG stream, its captures;
		 * a trunk's share of its delay is the other box's */
		rc = fe_row_setup(dp, &h->row, fe_dp_link_id(dp, FE_LINK_HOP, i), h->name,
				  &c->def[i], fe_trunk_split_delay, socket, err, errlen);
		if (rc < 0) /* its message names the link, out of memory too */
			return rc;
		fe_express_init(&h->xq, h->xs, FE_HL_EXPRESS);
		fe_link_pool_join(&h->row.l, &g->pool[h->from]);
		/* PFC: the bytes a switch holds, per input and lane (the others count none) */
		h->row.l.acct = dp->conf.regime == FE_REGIME_PFC ? dp->held : NULL;
	}
	fe_routing_build(g); /* the links' ends known: the order a pass visits them in too */
	/* a link given down (loss 100 %) from the start fails over as one cut later does:
	 * the first pass looks at the links, as after a change */
	fe_graph_links_changed(g);
	if (dp->conf.regime != FE_REGIME_LOSSY) {
		rc = fe_lossless_setup(dp, g, c, socket);
		if (rc == -ENOMEM)
			goto nomem;
		if (rc < 0)
			return rc;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the topology");
	return -ENOMEM;
}

void
fe_graph_free(struct fe_graph *g)
{
	if (g == NULL)
		return;
	for (unsigned i = 0; g->hl && i < g->nhl; i++)
		fe_row_free(&g->hl[i].row);
	fe_lossless_free(g);
	rte_free(g->hl);
	rte_free(g->hstage);
	rte_free(g->visit);
	rte_free(g->seq_tx);
	rte_free(g->seq_rx);
	rte_free(g->flowlet);
	rte_free(g->trunk);
	rte_free(g);
}

/* Frame m (route r) at switch x at t, come in by input src, bound for out: queued (credits),
 * to its host, or on. */
static __rte_always_inline void
at_switch_to(struct fe_dp *dp, unsigned x, unsigned src, struct rte_mbuf *m, uint64_t r, uint64_t t,
	     int32_t out, const enum fe_regime R)
{
	if (R != FE_REGIME_CREDIT)
		fe_flood_forward(dp, x, src, m, r, t, out, R);
	else if (!fe_lossless_cross_at_once(dp, x, src, m, r, t, out))
		fe_lossless_iq_push(dp, src, m, FE_ROUTE_LANE(r), t, out);
}

static __rte_always_inline void
at_switch_r(struct fe_dp *dp, unsigned x, unsigned src, struct rte_mbuf *m, uint64_t r, uint64_t t,
	    const enum fe_regime R)
{
	at_switch_to(dp, x, src, m, r, t, fe_routing_next(dp, x, r, t, m), R);
}

static __rte_always_inline void
at_switch(struct fe_dp *dp, unsigned x, unsigned src, struct rte_mbuf *m, uint64_t t,
	  const enum fe_regime R)
{
	at_switch_r(dp, x, src, m, *fe_graph_route(dp->graph, m), t, R);
}

/* The destination is on the ingress port itself: counted and freed. */
static __rte_always_inline void
ingress_filtered(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t, uint8_t lane,
		 const enum fe_regime R)
{
	FE_CNT_ADD(dp->sw.filtered, 1);
	if (R == FE_REGIME_CREDIT)
		fe_credit_return(
			&dp->ports[in].up.cred, lane,
			fe_credit_blocks(&dp->ports[in].up.cred.unit, rte_pktmbuf_pkt_len(m)), t);
	rte_pktmbuf_free(m);
}

static __rte_always_inline void
graph_ingress(struct fe_dp *dp, unsigned in, int out, struct rte_mbuf *m, uint64_t t, uint8_t lane,
	      const enum fe_regime R)
{
	const unsigned x = dp->graph->port_sw[in];

	if (out == -2) {
		ingress_filtered(dp, in, m, t, lane, R);
		return;
	}
	if (out >= 0)
		FE_CNT_ADD(dp->sw.unicast, 1);
	else
		FE_CNT_ADD(dp->sw.flooded, 1);
	at_switch_r(dp, x, in, m, fe_routing_in(dp, x, in, out, m, lane), t, R);
}

/* Credits: the blocks of the run's first k frames back to their sender, each frame's in a
 * message of its own, or (update set) in the message it completes (fe_credit_gather());
 * in_order: due no sooner than the last one put. */
static __rte_always_inline void
credit_run_put(struct fe_credit *c, struct fe_credit_run *w, const struct fe_link_offer *o,
	       unsigned k, const int in_order)
{
	const int gather = c->update > 1;

	for (unsigned i = 0; i < k; i++) {
		const uint8_t lane = FE_LABEL_CLASS(o[i].label);
		uint32_t b = fe_credit_blocks(&c->unit, o[i].len);

		if (unlikely(gather) && (b = fe_credit_gather(c, lane, b)) == 0)
			continue;
		if (in_order)
			fe_credit_put_after(w, lane, b, o[i].at);
		else
			fe_credit_put(w, lane, b, o[i].at);
	}
}

/*
 * Credits: the run crosses its switch at once (fe_lossless_cross_at_once()) while the switch's
 * input queues hold nothing and the link has room: the link takes it up to the first frame it has
 * no room for (fe_link_enqueue_while_room()), whose credits go back from their ticks; that frame
 * and those after it wait in their input queue. A link with impairments, an output stalled or
 * queues that hold a frame: one frame at a time.
 */
static __rte_noinline void
credit_run_flush(struct fe_dp *dp, unsigned src, uint16_t h, struct fe_link_offer *o, unsigned n)
{
	struct fe_graph *g = dp->graph;
	const unsigned x = fe_hop_switch(dp, src), oi = dp->nports + h;
	unsigned k = 0;

	/* a run's ticks do not decrease: not stalled at o[0]'s, not at any */
	if (likely(!g->hl[h].row.x.cfg.active && g->sw_iq[x] == 0 &&
		   fe_lossless_stall_of(g, oi, FE_LABEL_CLASS(o[0].label))->until <= o[0].at)) {
		const uint32_t max_q =
			dp->conf.credit.out_pkts ? dp->conf.credit.out_pkts : UINT32_MAX;

		k = fe_link_enqueue_while_room(&g->hl[h].row.l, o, n, max_q,
					       fe_hop_credit_at_offer(dp, h) ? &g->hl[h].row.cred
									     : NULL);
		if (k != 0) { /* as fe_lossless_cross_at_once() for each: the last one granted */
			struct fe_credit *c = fe_lossless_credit_of(dp, src);

			fe_lossless_granted(dp, src, FE_LABEL_CLASS(o[k - 1].label), oi);
			if (likely(c != NULL)) {
				struct fe_credit_run w = fe_credit_open(c);

				/* a run's ticks do not decrease: in order if its first is */
				if (w.last_at <= o[0].at + w.ticks)
					credit_run_put(c, &w, o, k, 1);
				else
					credit_run_put(c, &w, o, k, 0);
				fe_credit_close(c, &w);
			} else {
				for (unsigned i = 0; i < k; i++)
					fe_lossless_credit_to(dp, c, src,
							      FE_LABEL_CLASS(o[i].label), o[i].len,
							      o[i].at);
			}
		}
	}
	for (unsigned i = k; i < n; i++)
		at_switch_to(dp, x, src, o[i].pkt, *fe_graph_route(g, o[i].pkt), o[i].at, h,
			     FE_REGIME_CREDIT);
}

/* A run being gathered: offers o[0 .. end) bound for hop link h, from input src. */
struct hop_run {
	struct fe_link_offer *o, *end;
	int32_t h;
	unsigned src;
};

static __rte_always_inline void
run_end(struct fe_dp *dp, struct hop_run *run, const enum fe_regime R)
{
	if (run->end != run->o) {
		const unsigned n = (unsigned)(run->end - run->o);

		if (R == FE_REGIME_CREDIT)
			credit_run_flush(dp, run->src, (uint16_t)run->h, run->o, n);
		else if (R == FE_REGIME_PFC)
			fe_hop_run_pfc(dp, run->src, (uint16_t)run->h, run->o, n);
		else
			fe_hop_run_lossy(dp, run->src, (uint16_t)run->h, run->o, n);
	}
	run->end = run->o;
	run->h = -1;
}

/*
 * Frame m (route r) at switch x at t, on toward its output: to the run when that is a hop
 * link, else at once (or to its input queue), the run first. A choice by the queues
 * (adaptive, a new flowlet) is made once the run is in them.
 */
static __rte_always_inline void
run_or_forward(struct fe_dp *dp, struct hop_run *run, unsigned x, struct rte_mbuf *m, uint64_t r,
	       uint64_t t, const enum fe_regime R)
{
	struct fe_link_offer *o;
	int32_t out = dp->graph->go[x][FE_ROUTE_DST(r)];

	/* fe_routing_next(), with a choice by the queues made once the run is in them */
	if (unlikely(out < FE_GOUT_FLOOD)) {
		if (out == FE_GOUT_CHOOSE_Q)
			run_end(dp, run, R);
		out = fe_routing_choose(dp->graph, x, r, t, m);
	}

	if (out >= 0 && !(out & FE_GOUT_PORT)) {
		if (R == FE_REGIME_LOSSY && dp->graph->stage_hops) { /* no runs: the stage */
			fe_hop_stage(dp, (uint16_t)out, m, t,
				     FE_LABEL(run->src * FE_PFC_PRIOS + FE_ROUTE_LANE(r),
					      FE_ROUTE_LANE(r)));
			return;
		}
		if (run->h != out) {
			run_end(dp, run, R);
			run->h = out;
		}
		o = run->end++;
		o->pkt = m;
		o->at = t;
		o->len = rte_pktmbuf_pkt_len(m);
		o->label = FE_LABEL(run->src * FE_PFC_PRIOS + FE_ROUTE_LANE(r), FE_ROUTE_LANE(r));
		return;
	}
	run_end(dp, run, R);
	at_switch_to(dp, x, run->src, m, r, t, out, R);
}

/* The frames link i delivered, each on from its switch: runs to a hop link. */
static __rte_always_inline void
arrivals_runs(struct fe_dp *dp, unsigned i, void **pkts, const uint64_t *stamps, unsigned k,
	      const enum fe_regime R)
{
	struct fe_graph *g = dp->graph;
	struct fe_link_offer o[FE_BURST];
	struct hop_run run = {.o = o, .end = o, .h = -1, .src = fe_hop_input(dp, i)};
	unsigned x = g->hl[i].to;
	const int off = g->dynoff;

	for (unsigned j = 0; j < k; j++)
		run_or_forward(dp, &run, x, pkts[j],
			       *RTE_MBUF_DYNFIELD((struct rte_mbuf *)pkts[j], off, uint64_t *),
			       stamps[j], R);
	run_end(dp, &run, R);
}

static __rte_always_inline void
ingress_burst(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, const uint64_t *stamps,
	      const int *outs, unsigned n, const enum fe_regime R)
{
	struct fe_link_offer o[FE_BURST];
	struct hop_run run = {.o = o, .end = o, .h = -1, .src = in};
	unsigned x = dp->graph->port_sw[in], unicast = 0, flooded = 0;

	for (unsigned i = 0; i < n; i++) {
		if (unlikely(outs[i] < -1)) {	   /* -2, filtered: counted and freed */
			if (R == FE_REGIME_CREDIT) /* its credits go back after the run's */
				run_end(dp, &run, R);
			ingress_filtered(dp, in, pkts[i], stamps[i], 0, R);
			continue;
		}
		if (outs[i] >= 0)
			unicast++;
		else
			flooded++;
		run_or_forward(dp, &run, x, pkts[i], fe_routing_in(dp, x, in, outs[i], pkts[i], 0),
			       stamps[i], R);
	}
	run_end(dp, &run, R);
	FE_CNT_ADD(dp->sw.unicast, unicast);
	FE_CNT_ADD(dp->sw.flooded, flooded);
}

void
fe_graph_ingress_burst_lossy(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,
			     const uint64_t *stamps, const int *outs, unsigned n)
{
	ingress_burst(dp, in, pkts, stamps, outs, n, FE_REGIME_LOSSY);
}

void
fe_graph_ingress_burst_pfc(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,
			   const uint64_t *stamps, const int *outs, unsigned n)
{
	ingress_burst(dp, in, pkts, stamps, outs, n, FE_REGIME_PFC);
}

void
fe_graph_ingress_burst_credit(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,
			      const uint64_t *stamps, const int *outs, unsigned n)
{
	ingress_burst(dp, in, pkts, stamps, outs, n, FE_REGIME_CREDIT);
}

/* What the trunks brought by now; how many. */
static __rte_always_inline unsigned
trunks_rx(struct fe_dp *dp, uint64_t now, const enum fe_regime R)
{
	struct fe_graph *g = dp->graph;
	unsigned n = 0;

	for (unsigned t = 0; t < g->ntrunks; t++) {
		struct fe_trunk *tr = &g->trunk[t];
		struct rte_mbuf *pkts[FE_BURST];
		unsigned k;

		/* what was due by now, to its switch at its tick */
		for (;
		     tr->due_head != tr->due_tail && tr->due[tr->due_head % FE_TRUNK_DUE].at <= now;
		     tr->due_head++, n++)
			at_switch(dp, g->hl[tr->recv].to, fe_hop_input(dp, tr->recv),
				  tr->due[tr->due_head % FE_TRUNK_DUE].m,
				  tr->due[tr->due_head % FE_TRUNK_DUE].at, R);
		/* no more than the frames can wait for: the rest stays in the port's ring */
		k = rte_eth_rx_burst(
			tr->port, 0, pkts,
			(uint16_t)RTE_MIN(FE_BURST, FE_TRUNK_DUE - (tr->due_tail - tr->due_head)));
		for (unsigned j = 0; j < k; j++) {
			uint64_t at;

			if (fe_trunk_in(dp, tr, pkts[j], now, &at))
				at_switch(dp, g->hl[tr->recv].to, fe_hop_input(dp, tr->recv),
					  pkts[j], at, R);
		}
		n += k;
	}
	return n;
}

/* ---- The loop's work ---- */

int
fe_graph_trimmed(struct fe_dp *dp, unsigned h, struct rte_mbuf *m, uint64_t due)
{
	struct fe_hoplink *hl = &dp->graph->hl[h];

	/* in order: a header never overtakes the one before */
	if (fe_express_put(&hl->xq, m, due) < 0)
		return -1;
	hl->row.l.xwire++;
	fe_link_publish(&hl->row.l);
	return 0;
}

/* The frames hop link i delivered (k of them), each to its switch at its tick. */
static __rte_always_inline void
arrivals_of(struct fe_dp *dp, unsigned i, void **pkts, const uint64_t *stamps, unsigned k,
	    uint64_t now, const enum fe_regime R)
{
	struct fe_tap *tap =
		fe_tap_on(&dp->tap, fe_dp_link_id(dp, FE_LINK_HOP, i)); /* a capture of it */

	for (unsigned j = 0; unlikely(tap != NULL) && j < k; j++)
		fe_tap_pkt(tap, pkts[j], stamps[j], FE_TAP_DELIVERED);
	if (unlikely(dp->graph->hl[i].side == FE_HL_SEND)) /* to the other box */
		for (unsigned j = 0; j < k; j++)
			fe_trunk_send(dp, i, pkts[j], stamps[j], now);
	else
		arrivals_runs(dp, i, pkts, stamps, k, R);
}

/* The trimmed headers hop link i's priority queue delivered by now; how many. */
static unsigned
express_arrivals(struct fe_dp *dp, unsigned i, uint64_t now, const enum fe_regime R)
{
	struct fe_hoplink *hl = &dp->graph->hl[i];
	void *pkts[FE_BURST];
	uint64_t stamps[FE_BURST];
	unsigned k = 0;

	while (k < FE_BURST && (pkts[k] = fe_express_take(&hl->xq, now, &stamps[k])) != NULL) {
		FE_CNT_ADD(hl->row.l.st.out_pkts, 1);
		FE_CNT_ADD(hl->row.l.st.out_bytes, rte_pktmbuf_pkt_len((struct rte_mbuf *)pkts[k]));
		hl->row.l.xwire--;
		k++;
	}
	fe_link_publish(&hl->row.l);
	arrivals_of(dp, i, pkts, stamps, k, now, R);
	return k;
}

/* What hop link i delivered by now, each to its switch at its tick; how many. Lossy: its
 * stage offered to it first (what the pass gave it by now). */
static __rte_always_inline unsigned
arrivals_at(struct fe_dp *dp, unsigned i, uint64_t now, const enum fe_regime R)
{
	struct fe_graph *g = dp->graph;
	void *pkts[FE_BURST];
	uint64_t stamps[FE_BURST];
	unsigned n = 0, k;

	if (R == FE_REGIME_LOSSY && g->nstaged > 0 && g->stage_hops && g->hstage[i].n > 0)
		fe_hop_stage_flush(dp, (uint16_t)i);
	/* trimmed headers first: they overtook what the link holds */
	if (unlikely(fe_express_count(&g->hl[i].xq)))
		n += express_arrivals(dp, i, now, R);
	/* most links, most passes: nothing due (one load, no call) */
	if (fe_link_next_arrival(&g->hl[i].row.l) > now)
		return n;
	k = fe_link_dequeue(&g->hl[i].row.l, now, pkts, stamps, FE_BURST);
	arrivals_of(dp, i, pkts, stamps, k, now, R);
	return n + k;
}

/*
 * What the hop links delivered by now, each to its switch at its tick; how many. Lossy, in
 * an order drawn each time (fe_order_draw()), not by link number, as what arrives takes an
 * output's room; with the links' stages (g->stage_hops), by level, drawn within each: a
 * link is visited after those that feed it, its stage then holds what they brought, and
 * the order of the ticks decides, not the pass's. Lossless, each input has its own queue
 * and the outputs' arbiters serve them in turn: by number, the same every pass.
 */
static __rte_always_inline unsigned
arrivals(struct fe_dp *dp, uint64_t now, const enum fe_regime R)
{
	struct fe_graph *g = dp->graph;
	unsigned n = 0;

	struct fe_order o = {0, 0};

	if (R == FE_REGIME_LOSSY && g->stage_hops) {
		for (unsigned v = 0, lo = 0; v < g->nlvl; lo = g->lvl_end[v++]) {
			const unsigned m = g->lvl_end[v] - lo;

			o = fe_order_draw(&dp->order_rng, m);
			for (unsigned j = 0, i = o.at; j < m; j++, i = fe_order_next(&o, i, m))
				n += arrivals_at(dp, g->visit[lo + i], now, R);
		}
		return n;
	}
	if (R == FE_REGIME_LOSSY)
		o = fe_order_draw(&dp->order_rng, g->nhl);
	for (unsigned j = 0, i = o.at; j < g->nhl; j++, i = fe_order_next(&o, i, g->nhl))
		n += arrivals_at(dp, i, now, R);
	return n;
}

static __rte_always_inline unsigned
graph_service(struct fe_dp *dp, uint64_t now, const enum fe_regime R)
{
	struct fe_graph *g = dp->graph;
	unsigned total = 0, n;

	if (unlikely(g->any_down))
		fe_flood_failover(g, now);
	if (unlikely(g->ntrunks)) /* split across boxes: what the other boxes sent */
		total += trunks_rx(dp, now, R);
	/* hop by hop: what one link delivers may cross the next in the same pass */
	do {
		n = arrivals(dp, now, R);
		if (R == FE_REGIME_CREDIT && g->iq_pkts)
			n += fe_lossless_iq_service(dp, now);
		else if (R == FE_REGIME_PFC)
			fe_lossless_pfc_service(dp, now);
		if (R != FE_REGIME_LOSSY)
			n += fe_lossless_pump(dp, now, R);
		total += n;
	} while (n && total < 64 * FE_BURST);
	if (R == FE_REGIME_LOSSY && g->nstaged > 0) /* given after the pass came to them */
		fe_hop_stages_flush(dp);
	if (R != FE_REGIME_LOSSY && now >= g->dl_next)
		fe_lossless_deadlock_check(dp, now);
	if (unlikely(g->ntrunks))
		fe_trunk_flush(dp, now);
	return total;
}

/* The graph's entry points, one set a regime (fe_regime.h): the regime a constant. */
#define GRAPH_REGIME(sfx, R)                                                                       \
	void fe_graph_ingress_##sfx(struct fe_dp *dp, unsigned in, int out, struct rte_mbuf *m,    \
				    uint64_t t, uint8_t lane)                                      \
	{                                                                                          \
		graph_ingress(dp, in, out, m, t, lane, R);                                         \
	}                                                                                          \
	unsigned fe_graph_service_##sfx(struct fe_dp *dp, uint64_t now)                            \
	{                                                                                          \
		return graph_service(dp, now, R);                                                  \
	}

GRAPH_REGIME(lossy, FE_REGIME_LOSSY)
GRAPH_REGIME(pfc, FE_REGIME_PFC)
GRAPH_REGIME(credit, FE_REGIME_CREDIT)

uint64_t
fe_graph_step(const struct fe_dp *dp)
{
	uint64_t step = UINT64_MAX;

	for (unsigned h = 0; dp->graph && h < dp->graph->nhl; h++)
		if (dp->conf.regime == FE_REGIME_PFC)
			step = RTE_MIN(step, dp->graph->hl[h].row.pfc.cfg.delay_ticks);
		else if (dp->conf.regime == FE_REGIME_CREDIT)
			step = RTE_MIN(step, dp->graph->hl[h].row.cred.return_ticks);
	return step;
}

uint64_t
fe_graph_next_event(const struct fe_dp *dp, uint64_t after)
{
	const struct fe_graph *g = dp->graph;
	uint64_t next = UINT64_MAX;

	if (g == NULL)
		return next;
	/* Credits (after != 0): a frame in an input queue waits for its output's room (a
	 * credit back: the links' credits below, the ports' in fe_dp_next_event, a trunk's
	 * credit frame read on waking; a frame leaving a buffer), or its HOQLife. It used to
	 * be "now" whenever the queues held a frame: a box behind a congested output never
	 * slept. */
	for (uint32_t qi = 0; g->iq_pkts && dp->hoq_ticks && qi < g->nin * FE_LANES_MAX; qi++)
		next = fe_later(next, fe_iq_hoq_next(&g->iq[qi], dp->hoq_ticks), after);
	for (unsigned i = 0; i < g->nhl; i++) {
		const struct fe_hoplink *h = &g->hl[i];

		next = fe_later(next, fe_link_next_arrival(&h->row.l), after);
		next = fe_later(next, fe_link_next_start(&h->row.l), after);
		next = fe_later(next, fe_credit_next(&h->row.cred), after); /* none: UINT64_MAX */
		/* a trimmed header on its priority queue (none: UINT64_MAX) */
		next = fe_later(next, fe_express_next(&h->xq), after);
		if (after) /* credits: a frame leaving frees room for an input queue's head */
			next = fe_later(next, fe_link_next_leave(&h->row.l), after);
	}
	for (unsigned t = 0; t < g->ntrunks; t++) {
		const struct fe_trunk *tr = &g->trunk[t];

		if (tr->due_head != tr->due_tail)
			next = fe_later(next, tr->due[tr->due_head % FE_TRUNK_DUE].at, after);
	}
	return next;
}

uint64_t
fe_graph_held(const struct fe_dp *dp)
{
	uint64_t n = 0;

	for (unsigned i = 0; dp->graph && i < dp->graph->nhl; i++)
		n += fe_link_count(&dp->graph->hl[i].row.l) + dp->graph->hl[i].row.l.xwire;
	for (unsigned t = 0; dp->graph && t < dp->graph->ntrunks; t++)
		n += dp->graph->trunk[t].due_tail - dp->graph->trunk[t].due_head;
	return n + (dp->graph ? dp->graph->iq_pkts : 0);
}

void
fe_graph_drain(struct fe_dp *dp)
{
	struct fe_graph *g = dp->graph;
	void *pkts[FE_BURST];
	unsigned n;

	for (unsigned i = 0; g && i < g->nhl; i++) {
		struct fe_hoplink *hl = &g->hl[i];
		struct rte_mbuf *m;

		/* the stages: offered at each pass's end and by fe_dp_drain(), before this */
		RTE_ASSERT(g->hstage == NULL || g->hstage[i].n == 0);
		while ((n = fe_link_flush(&hl->row.l, pkts, FE_BURST)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
		while ((m = fe_express_drain(&hl->xq)) != NULL) { /* its trimmed headers: stopped */
			FE_CNT_ADD(hl->row.l.st.stopped_pkts, 1);
			FE_CNT_ADD(hl->row.l.st.stopped_bytes, rte_pktmbuf_pkt_len(m));
			rte_pktmbuf_free(m);
		}
		hl->row.l.xwire = 0;
		fe_link_publish(&hl->row.l);
	}
	for (unsigned t = 0; g && t < g->ntrunks; t++) {
		struct fe_trunk *tr = &g->trunk[t];

		/* nothing staged to send: every pass sends it before it ends (fe_trunk_flush(),
		 * what the port refuses is tx_full), and the engine stops between passes */
		RTE_ASSERT(tr->ntx == 0);
		FE_CNT_ADD(tr->rx_stopped, tr->due_tail - tr->due_head);
		tr->ncred = 0;
		for (; tr->due_head != tr->due_tail; tr->due_head++)
			rte_pktmbuf_free(tr->due[tr->due_head % FE_TRUNK_DUE].m);
	}
	for (unsigned i = 0; g && g->iq && i < g->nin * FE_LANES_MAX; i++) {
		struct fe_iq *q = &g->iq[i];

		FE_CNT_ADD(q->stopped, q->tail - q->head);
		for (; q->head != q->tail; q->head++, g->iq_pkts--) {
			const struct fe_iq_slot *sl = &q->s[q->head & q->mask];

			fe_lossless_voq(dp, sl->out, -(int64_t)sl->len);
			rte_pktmbuf_free(sl->m);
			g->sw_iq[fe_hop_switch(dp, i / FE_LANES_MAX)]--;
		}
		FE_CNT_SET(q->depth, 0);
	}
}

const char *
fe_dp_link_name(const struct fe_dp *dp, unsigned n, char *buf, size_t len)
{
	unsigned i;
	const enum fe_link_kind k = fe_dp_link_kind(dp, n, &i);

	if (k == FE_LINK_HOP)
		snprintf(buf, len, "%s", dp->graph->hl[i].name);
	else
		snprintf(buf, len, "%u.%s", i, k == FE_LINK_DOWN ? "down" : "up");
	return buf;
}
