/* SPDX-License-Identifier: BSD-3-Clause */
/* The lossless service (fe_lossless.h), out of line: its set-up, the input queues'
 * arbiters with HOQLife and VL stall, PFC's XON and watchdog on hop links, deadlock
 * detection. */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "fe_lossless.h"

/* Free a frame output l discarded at t (counted already), shown to a capture of l. */
static void
out_drop(struct fe_dp *dp, const struct fe_link *l, struct rte_mbuf *m, uint64_t t, uint8_t why)
{
	struct fe_tap *tap = __atomic_load_n(&dp->tap, __ATOMIC_ACQUIRE);

	/* the captured row is l's: no search of the table for l's number */
	if (unlikely(tap != NULL) && tap->link < dp->nlinks && &fe_dp_row(dp, tap->link)->l == l)
		fe_tap_pkt(tap, m, t, why);
	rte_pktmbuf_free(m);
}

/* ---- Set-up ---- */

/* Credit regime: an input's queues iq[lanes], each room for the fabric's buffer. */
static int
iq_alloc(const struct fe_dp *dp, struct fe_iq *iq, int socket)
{
	uint32_t blocks = (uint32_t)fe_credit_total(dp->conf.credit.buffer, dp->conf.credit.unit),
		 iq_size = 1;

	while (iq_size < blocks + 1) /* every packet holds at least one block */
		iq_size <<= 1;
	for (unsigned l = 0; l < dp->conf.lanes; l++) {
		iq[l].s = rte_zmalloc_socket("fe_iq", sizeof(struct fe_iq_slot) * iq_size,
					     RTE_CACHE_LINE_SIZE, socket);
		if (iq[l].s == NULL)
			return -ENOMEM;
		iq[l].mask = iq_size - 1;
	}
	return 0;
}

int
fe_lossless_setup(struct fe_dp *dp, struct fe_graph *g, const struct fe_graph_conf *c, int socket)
{
	g->dl_ticks = fe_ns_to_ticks(c->deadlock_ns ? c->deadlock_ns : 10000000, dp->hz);
	g->dl_next = 0;
	if (dp->conf.regime != FE_REGIME_CREDIT)
		return 0;
	g->iq = rte_zmalloc_socket("fe_graph", sizeof(*g->iq) * g->nin * FE_LANES_MAX,
				   RTE_CACHE_LINE_SIZE, socket);
	g->stall = rte_zmalloc_socket("fe_graph", sizeof(*g->stall) * g->nin * FE_LANES_MAX, 0,
				      socket);
	g->rr_out = rte_zmalloc_socket("fe_graph", sizeof(*g->rr_out) * g->nin, 0, socket);
	g->best = rte_zmalloc_socket("fe_graph", sizeof(*g->best) * g->nin, 0, socket);
	g->iq_busy = rte_zmalloc_socket(
		"fe_graph", sizeof(uint64_t) * ((g->nin * FE_LANES_MAX + 63) / 64), 0, socket);
	g->picked =
		rte_zmalloc_socket("fe_graph", sizeof(uint64_t) * ((g->nin + 63) / 64), 0, socket);
	g->cred = rte_zmalloc_socket("fe_graph", sizeof(*g->cred) * g->nin, 0, socket);
	if (g->iq == NULL || g->stall == NULL || g->rr_out == NULL || g->best == NULL ||
	    g->iq_busy == NULL || g->picked == NULL || g->cred == NULL)
		return -ENOMEM;
	for (unsigned o = 0; o < g->nin; o++)
		g->best[o] = UINT32_MAX;
	g->cunit = fe_credit_unit_of(dp->conf.credit.unit);
	/* every input's queues; the credits for them are in the row that feeds it, its
	 * sender's (fe_row_setup()) */
	for (unsigned i = 0; i < g->nin; i++) {
		struct fe_hoplink *h = i < dp->nports ? NULL : &g->hl[i - dp->nports];

		if (iq_alloc(dp, &g->iq[i * FE_LANES_MAX], socket) < 0)
			return -ENOMEM;
		/* its sender's loop: a port's host adapter, a hop link's switch; none here for
		 * a sender on another box (a trunk takes its credits back) */
		g->cred[i] = h == NULL		     ? &dp->ports[i].up.cred
			     : h->side != FE_HL_RECV ? &h->row.cred
						     : NULL;
	}
	return 0;
}

void
fe_lossless_free(struct fe_graph *g)
{
	for (unsigned i = 0; g->iq && i < g->nin * FE_LANES_MAX; i++)
		rte_free(g->iq[i].s);
	rte_free(g->iq);
	rte_free(g->stall);
	rte_free(g->rr_out);
	rte_free(g->best);
	rte_free(g->cred);
	rte_free(g->iq_busy);
	rte_free(g->picked);
}

/* ---- Credits: the input queues of every switch ---- */

void
fe_lossless_iq_push(struct fe_dp *dp, unsigned src, struct rte_mbuf *m, uint8_t lane, uint64_t t,
		    int32_t out)
{
	struct fe_graph *g = dp->graph;
	unsigned qi = src * FE_LANES_MAX + lane;

	fe_iq_push(&g->iq[qi], &g->cunit, m, t, out, &g->iq_pkts);
	fe_lossless_voq(dp, out, rte_pktmbuf_pkt_len(m));
	g->sw_iq[fe_hop_switch(dp, src)]++;
	g->iq_busy[qi / 64] |= UINT64_C(1) << (qi % 64);
}

/*
 * A flood moves only when every output it copies to has room (as a multicast in an
 * input-queued switch): the first without, or NULL; *leave: the latest an output of it
 * freed room.
 */
static struct fe_link *
flood_blocked(struct fe_dp *dp, unsigned src, struct rte_mbuf *m, uint32_t len, uint64_t now,
	      uint64_t *leave)
{
	struct fe_graph *g = dp->graph;
	uint64_t r = *fe_graph_route(g, m);
	unsigned x = fe_hop_switch(dp, src);

	for (unsigned p = 0; p < dp->nports; p++) {
		struct fe_link *l = &dp->ports[p].down.l;

		if (g->port_sw[p] != x || p == FE_ROUTE_IN(r))
			continue;
		if (!fe_lossless_out_room(dp, l, len, now, leave))
			return l;
		*leave = RTE_MAX(*leave, l->last_leave);
	}
	for (unsigned h = 0; h < g->nhl; h++) {
		struct fe_link *l = &g->hl[h].row.l;

		if (g->hl[h].from != x || g->tree[FE_ROUTE_ORIGIN(r)][g->hl[h].to] != h)
			continue;
		if (!fe_lossless_out_room(dp, l, len, now, leave))
			return l;
		*leave = RTE_MAX(*leave, l->last_leave);
	}
	return NULL;
}

/* Pop the head of src's queue of lane at t: its blocks go back to src's sender. */
static inline void
iq_pop(struct fe_dp *dp, unsigned src, uint8_t lane, uint64_t t)
{
	struct fe_graph *g = dp->graph;
	struct fe_iq *q = &g->iq[src * FE_LANES_MAX + lane];
	const struct fe_iq_slot *s = &q->s[q->head & q->mask];

	fe_lossless_credit_back(dp, src, lane, s->len, t);
	fe_lossless_voq(dp, s->out, -(int64_t)s->len);
	fe_iq_pop(q, &g->cunit, t, &g->iq_pkts);
	g->sw_iq[fe_hop_switch(dp, src)]--;
}

/* fe_lossless_out_room() for the head of input queue q (not a flood), what it found kept
 * (fe_iq_checked()) */
static inline int
room_checked(struct fe_dp *dp, struct fe_iq *q, struct fe_link *l, uint32_t len, uint64_t now)
{
	uint64_t at = 0;
	const int room = fe_lossless_out_room(dp, l, len, now, &at);

	fe_iq_checked(q, l, len, room, at);
	return room;
}

/* Move src's head of lane on, if its output has room; HOQLife discards a head too old. */
static unsigned
iq_serve(struct fe_dp *dp, unsigned src, uint8_t lane, uint64_t now)
{
	struct fe_graph *g = dp->graph;
	struct fe_iq *q = &g->iq[src * FE_LANES_MAX + lane];
	struct fe_stall *stall;
	struct fe_iq_slot *s;
	struct fe_link *ol;
	struct rte_mbuf *m;
	uint64_t t, leave = 0;
	int32_t out;
	int room;

	if (q->head == q->tail)
		return 0;
	s = &q->s[q->head & q->mask];
	ol = s->out == FE_GOUT_FLOOD ? flood_blocked(dp, src, s->m, s->len, now, &leave)
				     : fe_lossless_out_link(dp, s->out);
	stall = s->out == FE_GOUT_FLOOD
			? NULL
			: fe_lossless_stall_of(g, fe_lossless_output_of(dp, s->out), lane);
	if (stall != NULL && stall->until > now) {
		/* its output's VL is stalled: discarded at once, its credits returned */
		fe_link_drop(ol, FE_LINK_DROP_HOQ, s->len, lane);
		out_drop(dp, ol, s->m, now, FE_LINK_DROP_HOQ);
		iq_pop(dp, src, lane, RTE_MAX(s->t, q->head_since));
		return 1;
	}
	room = ol == NULL ||
	       (s->out == FE_GOUT_FLOOD ? fe_lossless_out_room(dp, ol, s->len, now, NULL)
					: room_checked(dp, q, ol, s->len, now));
	if (!room) {
		if (dp->hoq_ticks == 0 || now - q->head_since <= dp->hoq_ticks)
			return 0;
		/* HOQLife (IBTA 18.2.5.5.4): discarded at the head, its credits returned;
		 * VLStallCount (7) such discards in a row stall the output's VL for 8 x
		 * HOQLife, when everything bound for it on that VL is discarded (IBTA
		 * 18.2.5.5.3: the count is per output port and VL) */
		fe_link_drop(ol, FE_LINK_DROP_HOQ, s->len, lane);
		out_drop(dp, ol, s->m, q->head_since + dp->hoq_ticks, FE_LINK_DROP_HOQ);
		iq_pop(dp, src, lane, q->head_since + dp->hoq_ticks);
		if (stall != NULL && ++stall->row >= FE_GRAPH_VL_STALL) {
			stall->row = 0;
			stall->until = now + 8 * dp->hoq_ticks;
			FE_CNT_ADD(g->stalls, 1);
		}
		return 1;
	}
	if (stall != NULL)
		stall->row = 0;
	t = fe_iq_move_at(q, s, ol);		  /* a flood: then the last of its outputs, below */
	if (s->out == FE_GOUT_FLOOD && leave > t) /* the last of its outputs to make room */
		t = leave;
	if (t > now)
		t = now;
	m = s->m;
	out = s->out;
	iq_pop(dp, src, lane, t); /* s is free for reuse from here */
	fe_flood_forward(dp, fe_hop_switch(dp, src), src, m, *fe_graph_route(g, m), t, out,
			 FE_REGIME_CREDIT);
	return 1;
}

/*
 * One round of every output's arbiter: each output with room takes one frame, from the
 * queue (input and lane) next after the one it took from last, round robin among those
 * whose head is bound for it. Heads that need no arbitration (a flood, a discard) go
 * first. An arbiter per output, as a switch has: one shared pointer let one switch's
 * moves decide another's order.
 */
static unsigned
iq_round(struct fe_dp *dp, uint64_t now)
{
	struct fe_graph *g = dp->graph;
	const uint32_t nq = g->nin * FE_LANES_MAX;
	unsigned moved = 0;

	/* the queues in order, those that may hold a frame */
	for (uint32_t w = 0; w < (nq + 63) / 64; w++)
		for (uint64_t bits = g->iq_busy[w]; bits != 0; bits &= bits - 1) {
			const uint32_t qi = w * 64 + (uint32_t)__builtin_ctzll(bits);
			struct fe_iq *q = &g->iq[qi];
			const struct fe_iq_slot *s;
			unsigned o;

			if (q->head == q->tail) {
				g->iq_busy[w] &= ~(UINT64_C(1) << (qi % 64));
				continue;
			}
			s = &q->s[q->head & q->mask];
			o = s->out == FE_GOUT_FLOOD ? 0 : fe_lossless_output_of(dp, s->out);
			if (s->out == FE_GOUT_FLOOD ||
			    fe_lossless_stall_of(g, o, (uint8_t)(qi % FE_LANES_MAX))->until > now ||
			    !room_checked(dp, q, fe_lossless_out_link(dp, s->out), s->len, now)) {
				/* a flood, an output stalled, a head past HOQLife: no arbiter */
				moved += iq_serve(dp, qi / FE_LANES_MAX,
						  (uint8_t)(qi % FE_LANES_MAX), now);
				continue;
			}
			if (g->best[o] == UINT32_MAX)
				g->picked[o / 64] |= UINT64_C(1) << (o % 64);
			if (g->best[o] == UINT32_MAX ||
			    (qi + nq - g->rr_out[o] - 1) % nq <
				    (g->best[o] + nq - g->rr_out[o] - 1) % nq)
				g->best[o] = qi;
		}
	/* each output with a pick, in order, takes it */
	for (uint32_t w = 0; w < (g->nin + 63) / 64; w++) {
		uint64_t bits = g->picked[w];

		g->picked[w] = 0;
		for (; bits != 0; bits &= bits - 1) {
			const unsigned o = w * 64 + (unsigned)__builtin_ctzll(bits);
			const uint32_t qi = g->best[o];

			g->best[o] = UINT32_MAX;
			if (iq_serve(dp, qi / FE_LANES_MAX, (uint8_t)(qi % FE_LANES_MAX), now)) {
				g->rr_out[o] = qi;
				moved++;
			}
		}
	}
	return moved;
}

unsigned
fe_lossless_iq_service(struct fe_dp *dp, uint64_t now)
{
	unsigned work = 0, moved;

	do {
		moved = iq_round(dp, now);
		work += moved;
	} while (moved && dp->graph->iq_pkts);
	return work;
}

/* ---- PFC: resuming, the watchdog ---- */

/* Hop links' inputs: XON once what their switch holds from them drains to XON. */
void
fe_lossless_pfc_xon(struct fe_dp *dp, uint64_t now)
{
	struct fe_graph *g = dp->graph;
	int busy = 0;

	for (unsigned h = 0; h < g->nhl; h++) {
		struct fe_hoplink *hl = &g->hl[h];

		/* none paused (most links, most passes), or sent from here (the receiver
		 * there decides): nothing to look at */
		for (uint8_t pr = 0;
		     hl->row.pfc.xoff_prios != 0 && hl->side != FE_HL_SEND && pr < dp->conf.lanes;
		     pr++) {
			if (!fe_pfc_xoff(&hl->row.pfc, pr))
				continue;
			fe_trunk_pause_out(
				dp, h, pr,
				fe_pfc_update(&hl->row.pfc, pr,
					      dp->held[fe_hop_input(dp, h) * FE_PFC_PRIOS + pr],
					      now),
				now);
			if (hl->side == FE_HL_RECV && fe_pfc_xoff(&hl->row.pfc, pr) &&
			    fe_pfc_refresh_due(&hl->row.pfc, pr, now))
				fe_trunk_pause_out(dp, h, pr, FE_PFC_XOFF, now); /* refresh */
		}
		if (hl->storm_until && hl->storm_until <= now)
			hl->storm_until = 0; /* restored; stormed again at once if still stuck */
		if (dp->wd.ticks != 0 && hl->storm_until == 0 &&
		    hl->row.l.sched != hl->row.l.tail) {
			const struct fe_link_slot *s =
				&hl->row.l.slots[hl->row.l.sched & hl->row.l.mask];

			/* its head's priority paused, and its head waiting, for the watchdog
			 * time (as a host's port: fe_switch.c) */
			if (fe_pfc_wd_storm(&dp->wd,
					    fe_pfc_paused_since(&hl->row.pfc,
								FE_LABEL_CLASS(s->label), now),
					    fe_link_next_start(&hl->row.l), now)) {
				hl->storm_until = now + dp->wd.restore;
				FE_CNT_ADD(hl->storms, 1);
			}
		}
		busy |= (hl->side != FE_HL_SEND && hl->row.pfc.xoff_prios != 0) ||
			hl->storm_until != 0;
	}
	g->pfc_busy = busy;
}

/* ---- Deadlock: a cycle of hop links held at their gates ---- */

/* Hop link h has waited at its gate for the deadlock time or longer. */
static inline int
stuck(const struct fe_graph *g, unsigned h, uint64_t now)
{
	const struct fe_link *l = &g->hl[h].row.l;

	return l->sched != l->tail && fe_link_next_start(l) + g->dl_ticks <= now;
}

/* What waits on hop link b came in by hop link a (so a waits for b). */
static int
waits_for(const struct fe_dp *dp, unsigned a, unsigned b)
{
	const struct fe_graph *g = dp->graph;
	const struct fe_link *l = &g->hl[b].row.l;
	unsigned src = fe_hop_input(dp, a);

	if (g->hl[b].from != g->hl[a].to)
		return 0;
	if (g->iq != NULL) { /* credits: the switches' input queues */
		/* a's frames wait in their switch's input queue for b */
		for (uint8_t lane = 0; lane < dp->conf.lanes; lane++) {
			const struct fe_iq *q = &g->iq[src * FE_LANES_MAX + lane];

			if (q->head != q->tail && q->s[q->head & q->mask].out == (int32_t)b)
				return 1;
		}
		return 0;
	}
	for (uint32_t i = l->svc; i != l->tail; i++) /* PFC: a's bytes wait in b */
		if (FE_LABEL_ACCT(l->slots[i & l->mask].label) / FE_PFC_PRIOS == src)
			return 1;
	return 0;
}

/* Depth-first from h over stuck links: 1 and the cycle in path[] if one closes. */
static int
cycle_from(const struct fe_dp *dp, unsigned h, uint8_t *color, uint16_t *path, unsigned depth,
	   unsigned *n, const uint8_t *is_stuck)
{
	const struct fe_graph *g = dp->graph;

	color[h] = 1; /* on the path */
	path[depth] = (uint16_t)h;
	for (unsigned b = 0; b < g->nhl; b++) {
		if (!is_stuck[b] || !waits_for(dp, h, b))
			continue;
		if (color[b] == 1) { /* closed: the cycle is path[from b .. depth] */
			unsigned k = 0, i = 0;

			while (path[i] != b)
				i++;
			for (; i <= depth && k < FE_GRAPH_CYCLE; i++)
				path[k++] = path[i];
			*n = k;
			return 1;
		}
		if (color[b] == 0 && depth + 1 < FE_GRAPH_SW * 4 &&
		    cycle_from(dp, b, color, path, depth + 1, n, is_stuck))
			return 1;
	}
	color[h] = 2; /* done: no cycle through it */
	return 0;
}

void
fe_lossless_deadlock_check(struct fe_dp *dp, uint64_t now)
{
	struct fe_graph *g = dp->graph;
	uint8_t is_stuck[FE_GRAPH_SW * 4 * 2] = {0}, color[FE_GRAPH_SW * 4 * 2] = {0};
	uint16_t path[FE_GRAPH_SW * 4];
	unsigned any = 0, n = 0;
	int found = 0;

	g->dl_next = now + RTE_MAX(g->dl_ticks / 8, (uint64_t)1);
	for (unsigned h = 0; h < g->nhl && h < RTE_DIM(is_stuck); h++)
		any += is_stuck[h] = (uint8_t)stuck(g, h, now);
	for (unsigned h = 0; any >= 2 && !found && h < g->nhl && h < RTE_DIM(is_stuck); h++)
		if (is_stuck[h] && color[h] == 0)
			found = cycle_from(dp, h, color, path, 0, &n, is_stuck);
	if (found && !g->in_deadlock) {
		struct fe_graph_deadlock *e = &g->ev[g->nev % FE_GRAPH_EVENTS];

		e->at = now;
		e->n = (uint16_t)n;
		memcpy(e->hop, path, sizeof(*path) * n);
		__atomic_store_n(&g->nev, g->nev + 1, __ATOMIC_RELEASE);
	}
	g->in_deadlock = found;
}
