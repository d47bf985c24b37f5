/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "fe_egress.h"
#include "fe_graph.h"
#include "fe_linkop.h"
#include "fe_switch.h"

static void arrive_call(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t,
			const enum fe_regime R);

/* The packet's lane (virtual lane or priority), from its PCP or DSCP. */
static inline uint8_t
lane_of(const struct fe_dp *dp, const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), off = 14;
	uint16_t type;
	uint8_t v = 0;

	if (dp->conf.lanes <= 1 || len < 14)
		return 0;
	type = (uint16_t)(f[12] << 8 | f[13]);
	if (type == RTE_ETHER_TYPE_VLAN && len >= 18) {
		if (dp->conf.lane_map == FE_MAP_PCP)
			return (uint8_t)((f[14] >> 5) % dp->conf.lanes);
		type = (uint16_t)(f[16] << 8 | f[17]);
		off = 18;
	}
	if (dp->conf.lane_map == FE_MAP_DSCP && len >= off + 2) {
		if (type == RTE_ETHER_TYPE_IPV4)
			v = f[off + 1] >> 5; /* DSCP >> 3: the class selector */
		else if (type == RTE_ETHER_TYPE_IPV6)
			v = (uint8_t)(((f[off] & 0x0f) << 4 | f[off + 1] >> 4) >> 5);
	}
	return (uint8_t)(v % dp->conf.lanes);
}

/* m into port in's up link at now (room: its room was counted when the port was read,
 * rx_room(), a constant) */
static __rte_always_inline void
ingress(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t now, const enum fe_regime R,
	const int room)
{
	struct fe_port *p = &dp->ports[in];

	if (fe_linkop_offer_x(dp, fe_dp_link_id(dp, FE_LINK_UP, in), &p->up, m, now,
			      FE_LABEL(0, lane_of(dp, m)), R, room) == FE_LINKOP_ARRIVE)
		arrive_call(dp, in, m, now, R);
}

/*
 * The destination and source addresses of a frame as 48-bit keys, from two 8-byte
 * loads (the frame has its 14-byte header): six-byte copies into a stack word would
 * cost a failed store-to-load forward per packet.
 */
static inline void
mac_keys(const struct rte_mbuf *m, uint64_t *dst, uint64_t *src)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint64_t d, s;

	memcpy(&d, f, 8);
	memcpy(&s, f + 4, 8);
	*dst = rte_le_to_cpu_64(d) & UINT64_C(0xffffffffffff); /* bytes 0..5 */
	*src = rte_le_to_cpu_64(s) >> 16;		       /* bytes 6..11 */
}

/* lookup()'s answer for a frame to a reserved group address (fe_rsvd.h): it stops here */
#define FE_OUT_RSVD (-4)

/* Egress port of m from `in`, learning its source; -1: flood, -2: filter (drop),
 * FE_OUT_RSVD: stop (forward()). */
static inline int
lookup(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	struct fe_mac_cache *c = &dp->ports[in].mac_cache;
	uint64_t dst, src;
	int fresh;

	mac_keys(m, &dst, &src);
	fresh = c->gen == dp->mac->gen && t < c->until;
	if (!rte_is_multicast_ether_addr(&eh->src_addr) && !(fresh && src == c->src)) {
		fe_mac_learn(dp->mac, eh->src_addr.addr_bytes, (uint16_t)in, t);
		c->src = src; /* only ever a unicast address (or UINT64_MAX) */
		fresh = 0;
	}
	if (rte_is_multicast_ether_addr(&eh->dst_addr))
		return unlikely(fe_rsvd_addr(eh->dst_addr.addr_bytes)) ? FE_OUT_RSVD : -1;
	if (!fresh || dst != c->dst) {
		c->out = fe_mac_lookup(dp->mac, eh->dst_addr.addr_bytes, t);
		c->dst = dst; /* only ever a unicast address (or UINT64_MAX) */
		c->gen = dp->mac->gen;
		c->until = t + dp->mac_cache_ticks;
	}
	return c->out == (int)in ? -2 : c->out;
}

/*
 * The port's MAC cache in registers, for a burst (RX or arrivals): a frame whose two
 * addresses are the cached flow's goes to `out` with no table work while the cache is
 * fresh, i.e. before `until`, which is 0 when the table changed since (a learned or
 * moved address). Loaded again after every lookup(), so a change the burst itself made
 * is seen by the next frame.
 */
struct mac_regs {
	uint64_t src, dst; /* only ever unicast addresses (or UINT64_MAX) */
	uint64_t until;	   /* fresh before this tick; 0: stale */
	int out;	   /* -2: the ingress port (filtered) */
};

static inline void
mac_regs_load(const struct fe_dp *dp, unsigned in, struct mac_regs *r)
{
	const struct fe_mac_cache *c = &dp->ports[in].mac_cache;

	r->src = c->src;
	r->dst = c->dst;
	r->until = c->gen == dp->mac->gen ? c->until : 0;
	r->out = c->out == (int)in ? -2 : c->out;
}

/* Egress port of m (a full Ethernet header) at t, as lookup() gives it. */
static inline int
mac_regs_out(struct fe_dp *dp, unsigned in, struct mac_regs *r, struct rte_mbuf *m, uint64_t t)
{
	uint64_t dst, src;
	int out;

	mac_keys(m, &dst, &src);
	if (likely(t < r->until && src == r->src && dst == r->dst))
		return r->out;
	out = lookup(dp, in, m, t);
	mac_regs_load(dp, in, r);
	return out;
}

void
fe_switch_edge_pause(struct fe_dp *dp, unsigned in, uint32_t room, uint64_t now)
{
	struct fe_port *p = &dp->ports[in];
	struct fe_pfc *e = &p->epause;
	/* the switch's own pauses of this port's priorities (PFC; else none), which an edge
	 * XON leaves on: with the edge pause they go to the host as frames (fe_derive.c) */
	const uint8_t sw = p->up.pfc.xoff_prios;

	switch (fe_pfc_update(e, 0, FE_EPAUSE_ROOM - RTE_MIN((uint64_t)room, FE_EPAUSE_ROOM),
			      now)) {
	case FE_PFC_XOFF:
		FE_CNT_ADD(p->st.edge_xoff, 1);
		fe_linkop_pause_frame(dp, in, 0xff, e->cfg.quanta);
		break;
	case FE_PFC_XON:
		fe_linkop_pause_frame(dp, in, (uint8_t)~sw, 0);
		break;
	default:
		if (fe_pfc_refresh_due(e, 0, now))
			fe_linkop_pause_frame(dp, in, 0xff, e->cfg.quanta);
	}
}

static void hold_down(struct fe_dp *dp, unsigned q, uint64_t now, uint64_t until, int queued);

/*
 * pfc: a PFC frame from the host of port `in` (its adapter's receive buffer filling, or
 * drained) pauses the switch's egress toward it, as 802.1Qbb has a port obey its link
 * partner: the port's down link starts no frame for the longest quanta among the
 * priorities the frame enables (512 bit times each at the link's rate; none on a link
 * without a rate), from the frame's arrival. A later frame's quanta replace the time left
 * (a refresh extends it, the watchdog timing the pause from its start); all quanta 0 (an
 * XON) resume the link at once. The down link is one queue: a pause of any priority
 * holds every frame behind its head, as the switches' pauses of their links between
 * switches do; what it queued and had not started waits too. The watchdog storms it as
 * any host's pause (hold_down()).
 */
static void
host_pfc(struct fe_dp *dp, unsigned in, const struct rte_mbuf *m, uint64_t t)
{
	struct fe_port *p = &dp->ports[in];
	uint16_t quanta[8];
	int ev = fe_rsvd_pfc(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), quanta);
	uint64_t q = 0, until;

	if (ev <= 0) /* no priority enabled: nothing to obey */
		return;
	for (unsigned k = 0; k < 8; k++)
		if (ev >> k & 1)
			q = RTE_MAX(q, (uint64_t)quanta[k]);
	if (q == 0) { /* XON */
		FE_CNT_ADD(p->st.host_pfc_xon, 1);
		fe_link_release(&p->down.l, t);
		return;
	}
	FE_CNT_ADD(p->st.host_pfc_xoff, 1);
	until = t + fe_link_bytes_ticks(&p->down.l.cfg, q * 64); /* 512 bit times a quantum */
	if (until < p->down.l.hold_until) { /* shorter than what was left: its time, the start
					       the watchdog counts from kept */
		uint64_t from = p->hold_from;

		fe_link_release(&p->down.l, t);
		hold_down(dp, in, t, until, 1);
		p->hold_from = from;
		return;
	}
	hold_down(dp, in, t, until, 1);
}

/*
 * A frame to a reserved group address stops at the switch it entered, counted by cause:
 * a bridge never forwards them (IEEE 802.1Q). Under PFC a host's PFC frame pauses the
 * egress toward it (host_pfc()); no regime takes a host's 802.3x PAUSE, and PFC frames
 * do nothing under credits or lossy, where the switch runs no PFC (docs/counters.md). Its
 * credits go back here, as a filtered frame's do.
 */
static __rte_noinline void
rsvd_stop(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t, uint8_t lane,
	  const enum fe_regime R)
{
	enum fe_rsvd why =
		fe_rsvd_class(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m));

	FE_CNT_ADD(dp->sw.reserved[why], 1);
	if (R == FE_REGIME_PFC && why == FE_RSVD_PFC)
		host_pfc(dp, in, m, t);
	if (R == FE_REGIME_CREDIT)
		fe_credit_return(
			&dp->ports[in].up.cred, lane,
			fe_credit_blocks(&dp->ports[in].up.cred.unit, rte_pktmbuf_pkt_len(m)), t);
	rte_pktmbuf_free(m);
}

/* Into the switch of port `in` (one switch is a graph of one: fe_graph.h). */
static __rte_always_inline void
forward(struct fe_dp *dp, unsigned in, int out, struct rte_mbuf *m, uint64_t t, uint8_t lane,
	const enum fe_regime R)
{
	if (unlikely(out == FE_OUT_RSVD)) {
		rsvd_stop(dp, in, m, t, lane, R);
		return;
	}
	fe_rg_graph_ingress(R, dp, in, out, m, t, lane);
}

/*
 * The general path from the switch on, out of line: inlined into the burst loop below,
 * its registers would push the loop's own state onto the stack.
 */
static __rte_noinline void
forward_general(struct fe_dp *dp, unsigned in, int out, struct rte_mbuf *m, uint64_t t,
		const enum fe_regime R)
{
	forward(dp, in, out, m, t, lane_of(dp, m), R);
}

/*
 * The burst fast path. A lossy fabric with no capture, whose up link of `in` passes
 * packets through (no rate, no delay, nothing queued) and impairs none: the whole
 * burst crosses it at now, counted once, and each packet is looked up against the
 * port's MAC cache held in registers. On one lcore, a packet whose down link is ideal
 * (dp->ideal_down) and empty goes straight to that port's TX staging, and that link is
 * counted once at the end. Every other packet (and in a pipeline, every packet) takes
 * the general path from the switch on, in order: once a down link holds a packet it is
 * no longer empty, so no packet behind overtakes it. Counters come out as the
 * per-packet path's would.
 */
static inline int
burst_fast(struct fe_dp *dp, const struct fe_port *p, const enum fe_regime R)
{
	return R == FE_REGIME_LOSSY && !p->up.x.cfg.active && fe_link_passthru(&p->up.l) &&
	       __atomic_load_n(&dp->tap, __ATOMIC_ACQUIRE) == NULL;
}

/*
 * The output the burst is staging into, kept in registers: a burst mostly carries one
 * flow. Written back before anything else may touch that port's staging.
 */
struct stage {
	struct fe_port *q; /* NULL: none */
	int out;	   /* its index; -3: none */
	uint16_t n;	   /* q->txq_n */
	uint32_t pkts;	   /* staged by this burst, not yet in q->fast_n */
	uint64_t bytes;
};

static inline void
stage_put(struct stage *g)
{
	if (g->q == NULL)
		return;
	g->q->txq_n = g->n;
	g->q->txq_bytes += g->bytes;
	g->q->fast_n += g->pkts;
	g->q->fast_bytes += g->bytes;
	g->q = NULL;
	g->out = -3;
}

/* Stage for output `out` if its down link passes packets through now; 1 if so. */
static inline int
stage_get(struct fe_dp *dp, struct stage *g, int out, uint64_t *touched)
{
	struct fe_port *q;

	if (out == g->out)
		return g->q != NULL;
	stage_put(g);
	if (out < 0 || !(dp->ideal_down >> out & 1))
		return 0;
	q = &dp->ports[out];
	if (!fe_link_passthru(&q->down.l)) /* it holds frames, or it is held */
		return 0;
	*g = (struct stage){.q = q, .out = out, .n = q->txq_n};
	*touched |= UINT64_C(1) << out;
	return 1;
}

/* Every frame of the burst is a full Ethernet header from src to dst (48-bit keys). */
static inline int
one_flow(struct rte_mbuf **pkts, unsigned n, uint64_t src, uint64_t dst)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t d, s;

		mac_keys(pkts[i], &d, &s); /* reads 12 bytes: inside the buffer even for a runt */
		if (((d ^ dst) | (s ^ src)) != 0 ||
		    rte_pktmbuf_data_len(pkts[i]) < sizeof(struct rte_ether_hdr))
			return 0;
	}
	return 1;
}

/*
 * A burst of one flow whose output's down link passes packets through now, and whose
 * TX staging has room for all of it: staged whole, counted once. 1 if so; otherwise
 * nothing is done and the loop takes the burst packet by packet.
 */
static inline int
whole_burst(struct fe_dp *dp, int out, struct rte_mbuf **pkts, unsigned n, uint64_t bytes,
	    uint64_t now)
{
	struct fe_port *q = &dp->ports[out];

	if (!(dp->ideal_down >> out & 1) || !fe_link_passthru(&q->down.l) ||
	    q->txq_n + n > FE_BURST)
		return 0;
	memcpy(&q->txq[q->txq_n], pkts, n * sizeof(pkts[0]));
	for (unsigned k = 0; k < n; k++)
		q->txq_due[q->txq_n + k] = now;
	q->txq_n = (uint16_t)(q->txq_n + n);
	q->txq_bytes += bytes;
	fe_link_count_through_n(&q->down.l, n, bytes);
	FE_CNT_ADD(dp->sw.unicast, n);
	return 1;
}

static __rte_always_inline void
ingress_burst(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, unsigned n, uint64_t bytes,
	      uint64_t now, const enum fe_regime R)
{
	struct stage g = {.q = NULL, .out = -3};
	uint64_t touched = 0, staged = 0;
	const int pipeline = dp->handoff != NULL;
	struct mac_regs r;

	RTE_BUILD_BUG_ON(RTE_MAX_ETHPORTS > 64);
	if (!burst_fast(dp, &dp->ports[in], R)) {
		struct fe_port *p = &dp->ports[in];

		/* lossless: no more was read from the port than its up link has room for
		 * (rx_room(): every frame as large as the largest), so the link takes each
		 * without looking at its limits again */
		const int room = R != FE_REGIME_LOSSY;

		if (dp->conf.lanes <= 1) { /* one lane: no header to read for it */
			for (unsigned i = 0; i < n; i++)
				if (fe_linkop_offer_x(dp, fe_dp_link_id(dp, FE_LINK_UP, in), &p->up,
						      pkts[i], now, FE_LABEL(0, 0), R,
						      room) == FE_LINKOP_ARRIVE)
					arrive_call(dp, in, pkts[i], now, R);
		} else {
			for (unsigned i = 0; i < n; i++)
				ingress(dp, in, pkts[i], now, R, room);
		}
		return;
	}
	fe_link_count_through_n(&dp->ports[in].up.l, n, bytes);
	fe_link_late_none(&dp->ports[in].up.l, n);
	mac_regs_load(dp, in, &r);
	/* the common case, a whole burst of one known flow to an ideal output: no loop */
	if (now < r.until && r.out >= 0 && !pipeline && one_flow(pkts, n, r.src, r.dst) &&
	    whole_burst(dp, r.out, pkts, n, bytes, now))
		return;
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		int out;

		if (unlikely(rte_pktmbuf_data_len(m) < sizeof(struct rte_ether_hdr))) {
			stage_put(&g);
			arrive_call(dp, in, m, now, R);
			continue;
		}
		out = mac_regs_out(dp, in, &r, m, now);
		/* a pipeline's down stage owns the down links and TX: hand every packet over */
		if (pipeline || unlikely(!stage_get(dp, &g, out, &touched) || g.n == FE_BURST)) {
			stage_put(&g);
			forward_general(dp, in, out, m, now, R);
			continue;
		}
		g.q->txq_due[g.n] = now;
		g.q->txq[g.n++] = m;
		g.pkts++;
		g.bytes += rte_pktmbuf_pkt_len(m);
	}
	stage_put(&g);
	while (touched) {
		struct fe_port *q = &dp->ports[__builtin_ctzll(touched)];

		staged += q->fast_n;
		fe_link_count_through_n(&q->down.l, q->fast_n, q->fast_bytes);
		q->fast_n = 0;
		q->fast_bytes = 0;
		touched &= touched - 1;
	}
	FE_CNT_ADD(dp->sw.unicast, staged);
}

/* Into the switch from `in` at t, bound for out (lookup()) in lane `lane`: its input
 * queues, arbiters and floods are the graph's (fe_lossless.c, fe_flood.c), every switch's. */
static __rte_always_inline void
arrive_to(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t, int out, uint8_t lane,
	  const enum fe_regime R)
{
	forward(dp, in, out, m, t, lane, R);
}

static __rte_always_inline void
arrive(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t, const enum fe_regime R)
{
	uint8_t lane = lane_of(dp, m);

	if (unlikely(rte_pktmbuf_data_len(m) < sizeof(struct rte_ether_hdr))) {
		uint32_t len = rte_pktmbuf_pkt_len(m);

		FE_CNT_ADD(dp->sw.runts, 1);
		rte_pktmbuf_free(m);
		if (R == FE_REGIME_CREDIT)
			fe_credit_return(&dp->ports[in].up.cred, lane,
					 fe_credit_blocks(&dp->ports[in].up.cred.unit, len), t);
		return;
	}
	arrive_to(dp, in, m, t, lookup(dp, in, m, t), lane, R);
}

/* arrive(), out of line: an up link that passes a frame through (fe_linkop_offer()) hands it here
 * (called with the regime a constant: the compiler makes one copy a regime) */
static __rte_noinline void
arrive_call(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t, const enum fe_regime R)
{
	arrive(dp, in, m, t, R);
}

/* Several switches: n frames of port `in` into its switch, looked up. */
static __rte_always_inline void
graph_burst(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, const uint64_t *stamps,
	    const int *outs, unsigned n, const enum fe_regime R)
{
	if (n == 0)
		return;
	if (R == FE_REGIME_CREDIT)
		fe_graph_ingress_burst_credit(dp, in, pkts, stamps, outs, n);
	else if (R == FE_REGIME_PFC)
		fe_graph_ingress_burst_pfc(dp, in, pkts, stamps, outs, n);
	else
		fe_graph_ingress_burst_lossy(dp, in, pkts, stamps, outs, n);
}

/*
 * Several switches, one lane, no capture: the ingress switch takes the burst whole (the
 * lookups first, the port's MAC cache in registers: learning a source touches no link,
 * queue, pause or credit, so they see the same). Out of line: the one switch's loop keeps
 * its registers.
 */
static __rte_noinline void
arrive_burst_graph(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, const uint64_t *stamps,
		   unsigned n, const enum fe_regime R)
{
	int outs[FE_BURST];
	struct mac_regs r;
	unsigned i;

	mac_regs_load(dp, in, &r);
	for (i = 0; i < n; i++) {
		if (unlikely(rte_pktmbuf_data_len(pkts[i]) < sizeof(struct rte_ether_hdr)))
			break;
		outs[i] = mac_regs_out(dp, in, &r, pkts[i], stamps[i]);
		if (unlikely(outs[i] == FE_OUT_RSVD))
			break;
	}
	graph_burst(dp, in, pkts, stamps, outs, i, R);
	/* from a runt or a reserved address on (counted and freed; under credits its credits
	 * go back after the frames before it): one frame at a time */
	for (; i < n; i++)
		arrive_call(dp, in, pkts[i], stamps[i], R);
}

/*
 * One switch, output-queued (lossy, PFC), one lane, no capture: a frame for a learned port
 * goes straight into that port's down link (fe_egress_to(): PFC's admission and pauses, their
 * one copy), as the graph would deliver it (a graph of one has no route to choose and no
 * way to reorder); floods and filtered frames take the graph's way.
 */
static __rte_noinline void
arrive_burst_one(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, const uint64_t *stamps,
		 unsigned n, const enum fe_regime R)
{
	unsigned unicast = 0;
	struct mac_regs r;

	mac_regs_load(dp, in, &r);
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		int out;

		if (unlikely(rte_pktmbuf_data_len(m) < sizeof(struct rte_ether_hdr))) {
			arrive_call(dp, in, m, stamps[i], R);
			continue;
		}
		out = mac_regs_out(dp, in, &r, m, stamps[i]);
		if (likely(out >= 0)) {
			unicast++;
			fe_egress_to(dp, in, (unsigned)out, m, stamps[i], 0, R);
		} else { /* a flood, filtered, a reserved address */
			forward(dp, in, out, m, stamps[i], 0, R);
		}
	}
	FE_CNT_ADD(dp->sw.unicast, unicast);
}

static __rte_always_inline void
arrive_burst(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, const uint64_t *stamps,
	     unsigned n, const enum fe_regime R)
{
	struct fe_tap *tap = fe_tap_on(&dp->tap, fe_dp_link_id(dp, FE_LINK_UP, in));

	if (unlikely(tap != NULL) || dp->conf.lanes > 1) {
		for (unsigned i = 0; i < n; i++) {
			if (unlikely(tap != NULL))
				fe_tap_pkt(tap, pkts[i], stamps[i], FE_TAP_DELIVERED);
			arrive(dp, in, pkts[i], stamps[i], R);
		}
		return;
	}
	if (R != FE_REGIME_CREDIT && dp->one_switch)
		arrive_burst_one(dp, in, pkts, stamps, n, R);
	else
		arrive_burst_graph(dp, in, pkts, stamps, n, R);
}

/*
 * The PFC watchdog on the hosts' down links: a host that has paused its port (a hold:
 * `fabemuctl hold N.down`, a pause storm) while a frame waited at its head, both for the
 * watchdog time (fe_pfc_wd_storm(), as on a link between switches), is stormed for the
 * restore time. Action drop: what waits is dropped, and what comes while stormed
 * (fe_egress_wd()); action forward: the pause is ignored, what waits goes at once, and after
 * the storm the host's pause, if it still lasts, holds the link again.
 */
/* Drop what waits on port q's stormed down link (action drop); how many. */
static unsigned
storm_drop(struct fe_dp *dp, unsigned q, uint64_t now)
{
	void *pkts[FE_BURST];
	unsigned n, work = 0;

	while ((n = fe_link_discard_unstarted(&dp->ports[q].down.l, now, FE_LINK_DROP_WATCHDOG,
					      pkts, FE_BURST)) > 0) {
		for (unsigned i = 0; i < n; i++)
			fe_linkop_drop_free(dp, fe_dp_link_id(dp, FE_LINK_DOWN, q), pkts[i],
					    FE_LINK_DROP_WATCHDOG, now);
		work += n;
	}
	return work;
}

/* The pause p's down link is in: its start (fe_pfc_wd_due()'s `paused`). */
static inline uint64_t
port_paused(const struct fe_port *p, uint64_t now)
{
	return p->down.l.hold_until > now ? p->hold_from : UINT64_MAX;
}

/*
 * The tick from which the head of p's down link could have started (fe_pfc_wd_due()'s
 * `waiting`): the first frame the pause held, as fe_egress_wd() noted its offer, while it
 * is still the first not started. A head it did not note (the watchdog turned on while
 * it waited, or the frame before it started at the end of an earlier pause) is timed
 * from now, the first look at it.
 */
static uint64_t
port_waiting(struct fe_port *p, uint64_t now)
{
	uint32_t head;

	if (now < p->hold_from) /* what it had to send before the pause still goes */
		return p->wait_from;
	head = fe_link_unstarted(&p->down.l, now);
	if (head == p->down.l.tail)
		p->wait_from = UINT64_MAX;
	else if (p->wait_from == UINT64_MAX || p->wait_slot != head) {
		p->wait_from = now;
		p->wait_slot = head;
	}
	return p->wait_from;
}

/* Port q's down link held until `until`: what it queued before now still goes (a control
 * hold, fe_link_hold()), or waits too (queued: a host's PFC frame, fe_link_pause()). */
static void
hold_down(struct fe_dp *dp, unsigned q, uint64_t now, uint64_t until, int queued)
{
	struct fe_port *p = &dp->ports[q];
	/* the watchdog times a pause from its start, however often the host refreshes it */
	int fresh = p->down.l.hold_until <= now;

	if (queued)
		fe_link_pause(&p->down.l, now, until);
	else
		fe_link_hold(&p->down.l, now, until);
	if (p->down.l.hold_until <= now)
		return; /* what the link had to send lasts longer: nothing held */
	if (fresh) {
		p->hold_from = p->down.l.hold_counted; /* its serializer stops there */
		p->wait_from = UINT64_MAX;
	}
	if (dp->wd.ticks != 0)
		p->wd_until = RTE_MAX(p->wd_until, p->down.l.hold_until);
}

void
fe_switch_hold_down(struct fe_dp *dp, unsigned q, uint64_t now, uint64_t until)
{
	hold_down(dp, q, now, until, 0);
}

static unsigned
storm(struct fe_dp *dp, unsigned q, uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	unsigned n;

	p->storm_until = now + dp->wd.restore;
	p->wd_until = RTE_MAX(p->storm_until, p->down.l.hold_until);
	p->wait_from = UINT64_MAX; /* what waits goes, or is dropped */
	FE_CNT_ADD(p->st.pfc_wd_storms, 1);
	if (dp->wd.action != FE_PFC_WD_FORWARD)
		return storm_drop(dp, q, now);
	p->storm_hold = p->down.l.hold_until;
	n = fe_link_release(&p->down.l, now);
	FE_CNT_ADD(p->st.pfc_wd_forwarded, n);
	return n;
}

static unsigned
watchdog(struct fe_dp *dp, uint64_t now)
{
	unsigned work = 0;

	for (unsigned q = 0; q < dp->nports; q++) {
		struct fe_port *p = &dp->ports[q];
		struct fe_link *l = &p->down.l;
		unsigned n;

		if (p->storm_until > now) {
			if (dp->wd.action == FE_PFC_WD_DROP) {
				work += storm_drop(dp, q, now);
			} else if (l->hold_until > now) { /* a pause while stormed: ignored too */
				p->storm_hold = RTE_MAX(p->storm_hold, l->hold_until);
				n = fe_link_release(l, now);
				FE_CNT_ADD(p->st.pfc_wd_forwarded, n);
				work += n;
			}
			continue;
		}
		if (p->storm_until != 0) { /* restored: a pause that lasts is watched anew */
			p->storm_until = 0;
			if (p->storm_hold > now) /* forward: the host still pauses */
				fe_switch_hold_down(dp, q, now, p->storm_hold);
			p->storm_hold = 0;
		}
		if (l->hold_until <= now) { /* not paused */
			p->wait_from = UINT64_MAX;
			continue;
		}
		/* held the engine's way or any other (a test's fe_link_hold): watched */
		p->wd_until = RTE_MAX(p->wd_until, l->hold_until);
		if (fe_pfc_wd_storm(&dp->wd, port_paused(p, now), port_waiting(p, now), now))
			work += storm(dp, q, now);
	}
	return work;
}

/*
 * PFC: held bytes fall as the egress links drain, counted when they advance. Advance
 * them all every step, paused or not: XOFF in fe_egress_to() reads held[] summed over every
 * egress link, and stale bytes would pause early. Then XON where they fell, real frames,
 * and the watchdog.
 */
static unsigned
pfc_service(struct fe_dp *dp, uint64_t now)
{
	for (unsigned q = 0; q < dp->nports; q++)
		fe_link_backlog(&dp->ports[q].down.l, now);
	for (unsigned in = 0; in < dp->nports; in++) {
		struct fe_pfc *pfc = &dp->ports[in].up.pfc;

		/* none paused (most ports, most passes): nothing to look at */
		for (uint8_t pr = 0; pfc->xoff_prios != 0 && pr < dp->conf.lanes; pr++) {
			uint64_t held = dp->held[in * FE_PFC_PRIOS + pr];

			if (!fe_pfc_xoff(pfc, pr))
				continue;
			fe_linkop_pfc_frame(dp, in, pr, fe_pfc_update(pfc, pr, held, now));
			if (pfc->cfg.frames && fe_pfc_refresh_due(pfc, pr, now))
				fe_linkop_pfc_frame(dp, in, pr, FE_PFC_XOFF);
		}
	}
	return unlikely(dp->wd.ticks != 0) ? watchdog(dp, now) : 0;
}

unsigned
fe_switch_handoff_in(struct fe_dp *dp, unsigned q, uint64_t now)
{
	struct fe_port *out = &dp->ports[q];
	struct fe_link_offer h[FE_BURST];
	unsigned n, total = 0;

	(void)now;
	do {
		n = rte_ring_sc_dequeue_burst_elem(dp->handoff[q], h, sizeof(h[0]), FE_BURST, NULL);
		/* the mbufs were last written on the other lcore: fetch them all at once */
		for (unsigned i = 0; i < n; i++)
			rte_prefetch0(h[i].pkt);
		for (unsigned i = 0; i < n; i++)
			fe_linkop_offer(dp, fe_dp_link_id(dp, FE_LINK_DOWN, q), &out->down,
					h[i].pkt, h[i].at, h[i].label,
					FE_REGIME_LOSSY); /* a pipeline: lossy only */
		total += n;
	} while (n == FE_BURST && total < FE_BURST * 16);
	return total;
}

unsigned
fe_switch_handoff_flush(struct fe_dp *dp, unsigned q)
{
	struct fe_link_offer h[FE_BURST];
	unsigned n =
		rte_ring_sc_dequeue_burst_elem(dp->handoff[q], h, sizeof(h[0]), FE_BURST, NULL);

	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(h[i].pkt);
	return n;
}

/*
 * The switch's entry points, one set a regime (fe_regime.h), each with the regime a
 * constant: no frame tests it.
 */
#define SWITCH_REGIME(sfx, R)                                                                      \
	void fe_switch_up_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t now)   \
	{                                                                                          \
		ingress(dp, in, m, now, R, 0);                                                     \
	}                                                                                          \
	void fe_switch_ingress_burst_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,  \
					   unsigned n, uint64_t bytes, uint64_t now)               \
	{                                                                                          \
		ingress_burst(dp, in, pkts, n, bytes, now, R);                                     \
	}                                                                                          \
	void fe_switch_arrive_burst_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,   \
					  const uint64_t *stamps, unsigned n)                      \
	{                                                                                          \
		arrive_burst(dp, in, pkts, stamps, n, R);                                          \
	}

SWITCH_REGIME(lossy, FE_REGIME_LOSSY)
SWITCH_REGIME(pfc, FE_REGIME_PFC)
SWITCH_REGIME(credit, FE_REGIME_CREDIT)

unsigned
fe_switch_service_lossy(struct fe_dp *dp, uint64_t now)
{
	(void)dp;
	(void)now;
	return 0;
}

unsigned
fe_switch_service_pfc(struct fe_dp *dp, uint64_t now)
{
	return pfc_service(dp, now);
}

unsigned
fe_switch_service_credit(struct fe_dp *dp, uint64_t now)
{
	(void)dp; /* the input queues: every switch's, the graph's (fe_lossless.c) */
	(void)now;
	return 0;
}
