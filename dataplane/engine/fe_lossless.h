/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_lossless: the lossless service of the graph of switches, PFC or credits on every
 * hop link. Credits: every switch ingress (an input: ports, then hop links) holds an input
 * queue per lane; a frame crosses its switch at once while none of them holds anything
 * and its output has room (fe_lossless_cross_at_once()), else waits in its queue
 * (fe_lossless_iq_push()) for the arbiter of its output (fe_lossless_iq_service(): round
 * robin over (input, lane); HOQLife and VL stall discard at the head), its credits going
 * back to its sender as it leaves. PFC: a hop link's input resumes its sender at XON, and
 * the watchdog storms a link paused too long (fe_lossless_pfc_service()). Both: the hop
 * links' gates are pumped each pass (fe_lossless_pump()), and a cycle of hop links held
 * at their gates is reported as a deadlock (fe_lossless_deadlock_check()). The helpers,
 * the pump and the part of the PFC service every round runs are inline (the regime a
 * constant), for fe_graph.c's runs and pass; the rest is out of line, fe_lossless.c.
 * Internal to the engine, on its lcore.
 */
#ifndef FE_LOSSLESS_H
#define FE_LOSSLESS_H

#include "fe_flood.h"
#include "fe_graph.h"
#include "fe_hop.h"
#include "fe_regime.h"
#include "fe_trunk.h"

/*
 * The graph's lossless part, at its creation (fe_graph_create()): the deadlock time (c),
 * and under credits every input's queues, their arbiters' state and where their senders'
 * credits are (each in the row that feeds the input, which fe_row_setup() gated and gave
 * its credits). 0, or -ENOMEM. fe_lossless_free() frees it (what it set up, or part of
 * it).
 */
int fe_lossless_setup(struct fe_dp *dp, struct fe_graph *g, const struct fe_graph_conf *c,
		      int socket);
void fe_lossless_free(struct fe_graph *g);

/* Credit regime: m waits in the input queue of src (its sender held credits for it). */
void fe_lossless_iq_push(struct fe_dp *dp, unsigned src, struct rte_mbuf *m, uint8_t lane,
			 uint64_t t, int32_t out);

/* Credits: every output's arbiter takes from the input queues while they move; how many. */
unsigned fe_lossless_iq_service(struct fe_dp *dp, uint64_t now);

/* PFC, out of line: hop links' inputs resume (XON) as their switch drains; the
 * watchdog's storms (fe_lossless_pfc_service()). */
void fe_lossless_pfc_xon(struct fe_dp *dp, uint64_t now);

/* A cycle of hop links held at their gates for the deadlock time: recorded once (g->ev). */
void fe_lossless_deadlock_check(struct fe_dp *dp, uint64_t now);

/* The row of a queued frame's next step, its output (NULL: a flood, which always moves). */
static inline struct fe_row *
fe_lossless_out_row(struct fe_dp *dp, int32_t out)
{
	if (out == FE_GOUT_FLOOD)
		return NULL;
	if (out & FE_GOUT_PORT)
		return &dp->ports[out & 0xffff].down;
	return &dp->graph->hl[out].row;
}

/* ... its link */
static inline struct fe_link *
fe_lossless_out_link(struct fe_dp *dp, int32_t out)
{
	struct fe_row *r = fe_lossless_out_row(dp, out);

	return r != NULL ? &r->l : NULL;
}

/* Credits: len bytes bound for out joined (len > 0) or left (< 0) the input queues: what
 * waits for the output, which its ECN counts (fe_row.voq_bytes); a flood: none. */
static inline void
fe_lossless_voq(struct fe_dp *dp, int32_t out, int64_t len)
{
	struct fe_row *r = fe_lossless_out_row(dp, out);

	if (r != NULL)
		r->voq_bytes += (uint64_t)len;
}

/* A queued frame's output, numbered as inputs are: ports, then hop links. */
static inline unsigned
fe_lossless_output_of(const struct fe_dp *dp, int32_t out)
{
	return out & FE_GOUT_PORT ? (unsigned)(out & 0xffff) : dp->nports + (unsigned)out;
}

/* Credits: output o's VL stall state on lane (IBTA counts it per output port and VL). */
static inline struct fe_stall *
fe_lossless_stall_of(struct fe_graph *g, unsigned o, uint8_t lane)
{
	return &g->stall[o * FE_LANES_MAX + lane];
}

/* Room at now in output l for len bytes (credits: the switch's output buffer), its
 * switch's memory too; *at: raised to the tick that memory had room from, where it took
 * a packet of another of its outputs leaving (fe_link_has_room_at()). */
static inline int
fe_lossless_out_room(struct fe_dp *dp, struct fe_link *l, uint32_t len, uint64_t now, uint64_t *at)
{
	return fe_link_has_room_at(l, len, now, at) &&
	       (dp->conf.credit.out_pkts == 0 || l->q_pkts < dp->conf.credit.out_pkts);
}

/* Credits: the credit loop of input src's sender; NULL: a sender on another box. */
static inline struct fe_credit *
fe_lossless_credit_of(struct fe_dp *dp, unsigned src)
{
	return dp->graph->cred[src];
}

/* Credits: len bytes of lane left input src's buffer at t; their blocks go to its sender
 * (c: fe_lossless_credit_of(src)). */
static inline void
fe_lossless_credit_to(struct fe_dp *dp, struct fe_credit *c, unsigned src, uint8_t lane,
		      uint32_t len, uint64_t t)
{
	struct fe_graph *g = dp->graph;

	if (likely(c != NULL))
		fe_credit_return(c, lane, fe_credit_blocks(&c->unit, len), t);
	else
		fe_trunk_credit(dp, &g->trunk[g->hl[src - dp->nports].trunk], lane,
				fe_credit_blocks(&g->cunit, len), t);
}

static inline void
fe_lossless_credit_back(struct fe_dp *dp, unsigned src, uint8_t lane, uint32_t len, uint64_t t)
{
	fe_lossless_credit_to(dp, fe_lossless_credit_of(dp, src), src, lane, len, t);
}

/* Credits: output o's arbiter moved a frame of src's queue of lane. */
static __rte_always_inline void
fe_lossless_granted(struct fe_dp *dp, unsigned src, uint8_t lane, unsigned o)
{
	struct fe_graph *g = dp->graph;

	fe_lossless_stall_of(g, o, lane)->row = 0;
	g->rr_out[o] = src * FE_LANES_MAX + lane; /* what its arbiter granted last */
}

/*
 * Credits: frame m (route r), come in by src at t, crosses switch x toward out at once
 * when no input queue of x holds anything and out has room at t (not stalled, not a
 * flood): x's arbiters would move it at once, as on one switch (fe_switch.c arrive_to()),
 * its credits back at t. 1: it crossed; 0: it waits in its input queue.
 */
static __rte_always_inline int
fe_lossless_cross_at_once(struct fe_dp *dp, unsigned x, unsigned src, struct rte_mbuf *m,
			  uint64_t r, uint64_t t, int32_t out)
{
	struct fe_graph *g = dp->graph;
	const uint32_t len = rte_pktmbuf_pkt_len(m);
	unsigned o;

	if (g->sw_iq[x] != 0 || out == FE_GOUT_FLOOD)
		return 0;
	o = fe_lossless_output_of(dp, out);
	if (fe_lossless_stall_of(g, o, FE_ROUTE_LANE(r))->until > t ||
	    !fe_lossless_out_room(dp, fe_lossless_out_link(dp, out), len, t, NULL))
		return 0;
	fe_lossless_granted(dp, src, FE_ROUTE_LANE(r), o);
	fe_lossless_credit_back(dp, src, FE_ROUTE_LANE(r), len, t);
	fe_flood_forward(dp, x, src, m, r, t, out, FE_REGIME_CREDIT);
	return 1;
}

/* PFC, each pass round: what the hop links hold falls as they drain; then XON and the
 * watchdog (fe_lossless_pfc_xon()) where a link may be paused or a watchdog runs. */
static __rte_always_inline void
fe_lossless_pfc_service(struct fe_dp *dp, uint64_t now)
{
	struct fe_graph *g = dp->graph;

	/* held bytes fall as the links drain, counted when they advance */
	for (unsigned h = 0; h < g->nhl; h++)
		fe_link_backlog(&g->hl[h].row.l, now);
	/* none paused since the last look found none, no watchdog: nothing to look at */
	if (g->pfc_busy || dp->wd.ticks != 0)
		fe_lossless_pfc_xon(dp, now);
}

/* Start what the gate of each hop link lets start by now (PFC or credits); how many. */
static __rte_always_inline unsigned
fe_lossless_pump(struct fe_dp *dp, uint64_t now, const enum fe_regime R)
{
	struct fe_graph *g = dp->graph;
	unsigned work = 0;

	for (unsigned h = 0; h < g->nhl; h++) {
		struct fe_hoplink *hl = &g->hl[h];

		if (hl->row.l.sched == hl->row.l.tail)
			continue;
		if (R == FE_REGIME_CREDIT) {
			work += fe_link_pump_inline(&hl->row.l, now, fe_credit_gate_inline,
						    &hl->row.cred);
		} else if (hl->storm_until > now && dp->wd.action == FE_PFC_WD_FORWARD) {
			unsigned n = fe_link_pump(&hl->row.l, now, NULL, NULL);

			FE_CNT_ADD(hl->wd_forwarded, n);
			work += n;
		} else if (hl->storm_until > now) { /* drop: what waits goes */
			void *pkts[FE_BURST];
			unsigned n;

			while ((n = fe_link_discard_waiting(&hl->row.l, FE_LINK_DROP_WATCHDOG, pkts,
							    FE_BURST)) > 0) {
				rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
				work += n;
			}
		} else {
			work += fe_link_pump_inline(&hl->row.l, now, fe_pfc_gate_inline,
						    &hl->row.pfc);
		}
	}
	return work;
}

#endif
