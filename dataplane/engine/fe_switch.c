/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "fe_graph.h"
#include "fe_nicport.h"
#include "fe_nictag.h"
#include "fe_switch.h"

static void arrive_call(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t,
			const enum fe_regime R);

/*
 * The impairments, in order: filter, exact drop, loss (sent again under link-level
 * retry), ECN, jitter. Returns the drop cause, or FE_LINK_DROP__MAX to carry the packet
 * with *extra: its ticks of jitter, and the times it is sent again (fe_link_replays()).
 */
static __rte_always_inline enum fe_link_drop
impair(const struct fe_dp *dp, struct fe_link *l, struct fe_linkx *x, struct rte_mbuf *m,
       uint64_t t, uint64_t *extra)
{
	unsigned replays = 0;

	if (x->cfg.filter) {
		if (!fe_filter_match(x->cfg.filter, m))
			return FE_LINK_DROP__MAX;
		FE_CNT_ADD(x->filter_hits, 1);
	}
	x->matched++;
	if (x->cfg.drop_last && x->matched >= x->cfg.drop_first && x->matched <= x->cfg.drop_last)
		return FE_LINK_DROP_EXACT;
	if (fe_loss_lost(&x->cfg.loss, &x->loss_st, &x->rng)) {
		if (!x->cfg.llr)
			return x->cfg.loss_cause;
		replays = fe_loss_replays(&x->cfg.loss, &x->loss_st, &x->rng, FE_LLR_REPLAYS_MAX);
		if (replays > FE_LLR_REPLAYS_MAX)
			return FE_LINK_DROP_LLR;
	}
	if (x->cfg.ecn.enabled && fe_ecn_hit(&x->cfg.ecn, fe_link_backlog(l, t), &x->rng)) {
		enum fe_ecn_result r =
			fe_ecn_mark(rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m));

		if (r == FE_ECN_MARKED) {
			FE_CNT_ADD(l->st.ecn_marked, 1);
			fe_filter_forget(m, dp->filter_dynoff); /* its bytes changed */
		} else if (r != FE_ECN_ALREADY_CE && x->cfg.ecn.drop_non_ect)
			return FE_LINK_DROP_AQM;
	}
	if (x->cfg.jitter_ticks)
		*extra = fe_rng_upto(&x->rng, x->cfg.jitter_ticks);
	if (unlikely(replays))
		*extra = fe_link_replays(replays, *extra);
	return FE_LINK_DROP__MAX;
}

/* Free a packet link n dropped at t, showing it to a capture of that link first. */
static inline void
drop_free(struct fe_dp *dp, unsigned n, struct rte_mbuf *m, uint8_t why, uint64_t t)
{
	struct fe_tap *tap = fe_tap_on(&dp->tap, n);

	if (unlikely(tap != NULL))
		fe_tap_pkt(tap, m, t, why);
	rte_pktmbuf_free(m);
}

/*
 * The tick a frame of len bytes that the switch put on a host's down link at t, on its
 * queue of trimmed headers and control frames, reaches the host's NIC: that queue goes
 * first, so it waits only for the frame on the wire (the serializer's time it takes is
 * not taken from the data's: a few dozen bytes a frame trimmed or a control frame).
 */
static uint64_t
express_due(const struct fe_link *l, uint32_t len, uint64_t t)
{
	uint64_t start = l->svc != l->sched ? fe_link_next_leave(l) : t;

	return (start > t ? start : t) + fe_link_ser_ticks(&l->cfg, len) + l->cfg.prop_ticks;
}

int
fe_switch_trim(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *m, uint8_t why,
	       uint64_t t, uint32_t label)
{
	const int host = n % 2 && n < 2 * dp->nports; /* a host's down link */
	uint32_t len = rte_pktmbuf_pkt_len(m), hlen;
	struct rte_mbuf *h;

	if (why != FE_LINK_DROP_TAIL && why != FE_LINK_DROP_POOL)
		return -1;
	if (host && fe_nic_own(dp, m)) {
		/* a NIC's own frame (an ACK, a NAK) takes the queue of trimmed headers too:
		 * the switch's control class, ahead of the data (not dropped: the drop the
		 * link counted is taken back) */
		if (fe_nic_trimmed(dp, n / 2, m, express_due(l, len, t)) < 0)
			return -1;
		FE_CNT_SET(l->st.drop_pkts[why], l->st.drop_pkts[why] - 1);
		FE_CNT_SET(l->st.drop_bytes[why], l->st.drop_bytes[why] - len);
		FE_CNT_SET(l->st.lane_drop_pkts[FE_LABEL_CLASS(label) % FE_LINK_LANES],
			   l->st.lane_drop_pkts[FE_LABEL_CLASS(label) % FE_LINK_LANES] - 1);
		FE_CNT_ADD(l->st.out_pkts, 1);
		FE_CNT_ADD(l->st.out_bytes, len);
		return 0;
	}
	h = fe_nic_trim(dp, m);
	if (h == NULL)
		return -1;
	FE_CNT_SET(l->st.drop_pkts[why], l->st.drop_pkts[why] - 1);
	FE_CNT_SET(l->st.drop_bytes[why], l->st.drop_bytes[why] - len);
	FE_CNT_ADD(l->st.drop_pkts[FE_LINK_DROP_TRIM], 1);
	FE_CNT_ADD(l->st.drop_bytes[FE_LINK_DROP_TRIM], len);
	l->last_drop = FE_LINK_DROP_TRIM;
	drop_free(dp, n, m, FE_LINK_DROP_TRIM, t);
	hlen = rte_pktmbuf_pkt_len(h);
	if (host) {
		if (fe_nic_trimmed(dp, n / 2, h, express_due(l, hlen, t)) == 0) {
			fe_link_count_through(l, hlen);
			return 0;
		}
		FE_CNT_ADD(l->st.in_pkts, 1);
		FE_CNT_ADD(l->st.in_bytes, hlen);
		fe_link_drop_cause(l, FE_LINK_DROP_WIRE, hlen, FE_LABEL_CLASS(label));
		drop_free(dp, n, h, FE_LINK_DROP_WIRE, t);
		return 0;
	}
	FE_CNT_ADD(l->st.in_pkts, 1);
	FE_CNT_ADD(l->st.in_bytes, hlen);
	if (l->tail - l->head > l->mask) { /* no slot: the wire is full */
		fe_link_drop_cause(l, FE_LINK_DROP_WIRE, hlen, FE_LABEL_CLASS(label));
		drop_free(dp, n, h, FE_LINK_DROP_WIRE, t);
		return 0;
	}
	fe_link_take(l, h, hlen, t, 0, label);
	return 0;
}

int
fe_switch_impair(struct fe_dp *dp, unsigned n, struct fe_link *l, struct fe_linkx *x,
		 struct rte_mbuf *m, uint64_t t, uint8_t lane, uint64_t *extra)
{
	enum fe_link_drop why;

	*extra = 0;
	if (!x->cfg.active || (why = impair(dp, l, x, m, t, extra)) == FE_LINK_DROP__MAX)
		return 0;
	fe_link_drop(l, why, rte_pktmbuf_pkt_len(m), lane);
	drop_free(dp, n, m, (uint8_t)why, t);
	return -1;
}

/*
 * A pass-through link (fe_link_passthru) hands m on at once: an up link to the
 * switch, a down link to its port's TX staging. -1 when the staging is full (then the
 * link's ring takes it, and everything after it, in order).
 */
static inline int
pass_through(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *m, uint32_t len,
	     uint64_t t, const enum fe_regime R)
{
	struct fe_port *p = &dp->ports[n / 2];
	struct fe_tap *tap;

	if (n % 2 && (p->txq_n == FE_BURST || p->nic != NULL)) /* a NIC takes it at TX */
		return -1;
	fe_link_count_through(l, len);
	tap = fe_tap_on(&dp->tap, n);
	if (unlikely(tap != NULL))
		fe_tap_pkt(tap, m, t, FE_TAP_DELIVERED);
	if (n % 2) {
		p->txq_due[p->txq_n] = t;
		p->txq[p->txq_n++] = m;
		p->txq_bytes += len;
	} else {
		fe_link_late_none(l, 1); /* the switch takes it at once */
		arrive_call(dp, n / 2, m, t, R);
	}
	return 0;
}

/*
 * Offer m to link n (l, x) at t; on any drop it is counted and freed. 0, or -1 if
 * dropped.
 */
static __rte_always_inline int
to_link(struct fe_dp *dp, unsigned n, struct fe_link *l, struct fe_linkx *x, struct rte_mbuf *m,
	uint64_t t, uint32_t label, const enum fe_regime R)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint64_t extra = 0;

	if (x->cfg.active) {
		enum fe_link_drop why = impair(dp, l, x, m, t, &extra);

		if (why != FE_LINK_DROP__MAX) {
			fe_link_drop(l, why, len, FE_LABEL_CLASS(label));
			drop_free(dp, n, m, (uint8_t)why, t);
			return -1;
		}
	}
	if (extra == 0 && fe_link_passthru(l) && pass_through(dp, n, l, m, len, t, R) == 0)
		return 0;
	if (fe_link_enqueue_x(l, m, len, t, extra, label) < 0) {
		if (R == FE_REGIME_LOSSY && unlikely(dp->trim) &&
		    fe_switch_trim(dp, n, l, m, l->last_drop, t, label) == 0)
			return -1;
		drop_free(dp, n, m, l->last_drop, t);
		return -1;
	}
	return 0;
}

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

static __rte_always_inline void
ingress(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t now, const enum fe_regime R)
{
	struct fe_port *p = &dp->ports[in];

	to_link(dp, 2 * in, &p->up, &p->up_x, m, now, FE_LABEL(0, lane_of(dp, m)), R);
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

/*
 * A real 802.1Qbb frame out of port `in` toward its host, for the priorities of prios
 * (quanta 0: XON), ahead of the data waiting there (MAC control frames are not queued
 * behind data). If the TX staging area is full it is not sent, and counted.
 */
static void
pause_frame_out(struct fe_dp *dp, unsigned in, uint8_t prios, uint16_t quanta)
{
	struct fe_port *p = &dp->ports[in];
	const uint8_t src[6] = {0x02, 0xfe, 0xfe, 0x00, 0x00, (uint8_t)in};
	struct rte_mbuf *m;
	uint8_t *f;

	m = p->txq_n < FE_BURST ? rte_pktmbuf_alloc(dp->pool) : NULL;
	if (m != NULL && dp->meas != NULL) /* our own frame: no RX time to measure from */
		*fe_measure_stamp(dp->meas, m) = 0;
	f = m ? (uint8_t *)rte_pktmbuf_append(m, 60) : NULL;
	if (f == NULL) {
		rte_pktmbuf_free(m);
		FE_CNT_ADD(p->st.pfc_frames_lost, 1);
		return;
	}
	fe_pfc_frame_vec(f, src, prios, quanta);
	p->txq_due[p->txq_n] = FE_DUE_NONE;
	p->txq[p->txq_n++] = m;
	p->txq_bytes += rte_pktmbuf_pkt_len(m);
	FE_CNT_ADD(p->st.pfc_frames_out, 1);
}

/*
 * PFC with real frames: the switch's pause or resume of prio goes out of port `in`. An
 * XON waits while the edge pause holds the host (fe_switch_edge_pause() resumes it).
 */
static void
pfc_frame_out(struct fe_dp *dp, unsigned in, uint8_t prio, enum fe_pfc_event ev)
{
	struct fe_port *p = &dp->ports[in];

	if (!p->pfc.cfg.frames || ev == FE_PFC_NONE || (ev == FE_PFC_XON && p->epause.xoff_prios))
		return;
	pause_frame_out(dp, in, (uint8_t)(1u << prio), ev == FE_PFC_XON ? 0 : p->pfc.cfg.quanta);
}

void
fe_switch_edge_pause(struct fe_dp *dp, unsigned in, uint32_t room, uint64_t now)
{
	struct fe_port *p = &dp->ports[in];
	struct fe_pfc *e = &p->epause;
	/* the switch's own pauses of this port's priorities (PFC; else none), which an edge
	 * XON leaves on: with the edge pause they go to the host as frames (fe_derive.c) */
	const uint8_t sw = p->pfc.xoff_prios;

	switch (fe_pfc_update(e, 0, FE_EPAUSE_ROOM - RTE_MIN((uint64_t)room, FE_EPAUSE_ROOM),
			      now)) {
	case FE_PFC_XOFF:
		FE_CNT_ADD(p->st.edge_xoff, 1);
		pause_frame_out(dp, in, 0xff, e->cfg.quanta);
		break;
	case FE_PFC_XON:
		pause_frame_out(dp, in, (uint8_t)~sw, 0);
		break;
	default:
		if (fe_pfc_refresh_due(e, 0, now))
			pause_frame_out(dp, in, 0xff, e->cfg.quanta);
	}
}

void
fe_switch_pause(struct fe_dp *dp, unsigned src, uint8_t prio, enum fe_pfc_event ev, uint64_t t)
{
	if (src < dp->nports)
		pfc_frame_out(dp, src, prio, ev);
	else /* a hop link's sender: an emulated switch here (no frame), or on another box */
		fe_graph_pause_out(dp, src - dp->nports, prio, ev, t);
}

/* Pipeline: the staged handoffs of port q onto its ring; what does not fit is dropped. */
static void
handoff_out(struct fe_dp *dp, unsigned q)
{
	struct fe_handoff_stage *g = &dp->hstage[q];
	unsigned k =
		rte_ring_sp_enqueue_burst_elem(dp->handoff[q], g->h, sizeof(g->h[0]), g->n, NULL);

	if (unlikely(k < g->n)) {
		FE_CNT_ADD(dp->sw.handoff_full, g->n - k);
		for (; k < g->n; k++)
			rte_pktmbuf_free(g->h[k].m);
	}
	g->n = 0;
}

void
fe_switch_handoff_out(struct fe_dp *dp)
{
	for (unsigned q = 0; q < dp->nports; q++)
		if (dp->hstage[q].n)
			handoff_out(dp, q);
}

/*
 * Pipeline: hand m to the down stage of port q. Staged, so that the ring's indexes,
 * which both lcores touch, move once a burst rather than once a packet.
 */
static inline void
handoff_put(struct fe_dp *dp, unsigned q, struct rte_mbuf *m, uint64_t t, uint32_t label)
{
	struct fe_handoff_stage *g = &dp->hstage[q];

	if (g->n == FE_BURST)
		handoff_out(dp, q);
	g->h[g->n++] = (struct fe_handoff){.m = m, .t = t, .label = label};
}

/*
 * PFC: into the egress (down) link of port q, the bytes held against the ingress port
 * and priority; past XOFF + headroom they are dropped, at XOFF the ingress port pauses
 * its sender. 0 if the link took m.
 */
static __rte_always_inline int
pfc_egress(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, uint64_t t, uint8_t lane)
{
	struct fe_port *out = &dp->ports[q];
	uint32_t acct = in * FE_PFC_PRIOS + lane;
	/* several switches: `in` may be a hop link into the last one (fe_graph.h) */
	struct fe_pfc *pfc = fe_graph_input_pfc(dp, in);

	if (fe_pfc_admit(pfc, dp->held[acct], rte_pktmbuf_pkt_len(m)) < 0) {
		fe_link_drop(&out->down, FE_LINK_DROP_HEADROOM, rte_pktmbuf_pkt_len(m), lane);
		drop_free(dp, 2 * q + 1, m, FE_LINK_DROP_HEADROOM, t);
		return -1;
	}
	if (to_link(dp, 2 * q + 1, &out->down, &out->down_x, m, t, FE_LABEL(acct, lane),
		    FE_REGIME_PFC) != 0)
		return -1;
	fe_switch_pfc_took(dp, in, pfc, lane, dp->held[acct], t);
	return 0;
}

/*
 * pfc_egress() while the watchdog looks at port q's frames (out->wd_until): stormed with
 * action drop, a frame is dropped; the first frame the host's pause holds is noted, the
 * head whose wait the watchdog times (watchdog()).
 */
static __rte_noinline void
wd_egress(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, uint64_t t, uint8_t lane)
{
	struct fe_port *out = &dp->ports[q];

	if (out->storm_until > t && dp->wd.action == FE_PFC_WD_DROP) {
		FE_CNT_ADD(out->down.st.in_pkts, 1);
		FE_CNT_ADD(out->down.st.in_bytes, rte_pktmbuf_pkt_len(m));
		fe_link_drop_cause(&out->down, FE_LINK_DROP_WATCHDOG, rte_pktmbuf_pkt_len(m), lane);
		drop_free(dp, 2 * q + 1, m, FE_LINK_DROP_WATCHDOG, t);
		return;
	}
	if (pfc_egress(dp, in, q, m, t, lane) == 0 && out->down.hold_until > t &&
	    out->wait_from == UINT64_MAX) {
		out->wait_from = t;
		out->wait_slot = out->down.tail - 1;
	}
}

/*
 * Into the egress (down) link of port q (PFC: pfc_egress(), or wd_egress() while the
 * watchdog looks at the port: the same one compare as without a watchdog).
 */
static __rte_always_inline void
to_egress(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, uint64_t t, uint8_t lane,
	  const enum fe_regime R)
{
	struct fe_port *out = &dp->ports[q];
	uint32_t acct = in * FE_PFC_PRIOS + lane;

	if (R == FE_REGIME_LOSSY && dp->handoff) { /* pipeline: the down stage owns them */
		handoff_put(dp, q, m, t, FE_LABEL(acct, lane));
		return;
	}
	if (R == FE_REGIME_PFC) {
		if (unlikely(out->wd_until > t))
			wd_egress(dp, in, q, m, t, lane);
		else
			pfc_egress(dp, in, q, m, t, lane);
		return;
	}
	to_link(dp, 2 * q + 1, &out->down, &out->down_x, m, t, FE_LABEL(acct, lane), R);
}

/*
 * A frame to a reserved group address stops at the switch it entered, counted by cause:
 * a bridge never forwards them (IEEE 802.1Q), and no regime here takes a host's pause
 * or PFC frame (docs/counters.md). Its credits go back here, as a filtered frame's do.
 */
static __rte_noinline void
rsvd_stop(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t, uint8_t lane,
	  const enum fe_regime R)
{
	enum fe_rsvd why =
		fe_rsvd_class(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m));

	FE_CNT_ADD(dp->sw.reserved[why], 1);
	if (R == FE_REGIME_CREDIT)
		fe_credit_return(&dp->ports[in].credit, lane,
				 fe_credit_blocks(rte_pktmbuf_pkt_len(m)), t);
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
	return R == FE_REGIME_LOSSY && !p->up_x.cfg.active && fe_link_passthru(&p->up) &&
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
	if (!fe_link_passthru(&q->down)) /* it holds frames, or it is held */
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

	if (!(dp->ideal_down >> out & 1) || !fe_link_passthru(&q->down) || q->txq_n + n > FE_BURST)
		return 0;
	memcpy(&q->txq[q->txq_n], pkts, n * sizeof(pkts[0]));
	for (unsigned k = 0; k < n; k++)
		q->txq_due[q->txq_n + k] = now;
	q->txq_n = (uint16_t)(q->txq_n + n);
	q->txq_bytes += bytes;
	fe_link_count_through_n(&q->down, n, bytes);
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

		if (dp->conf.lanes <= 1) /* one lane: no header to read for it */
			for (unsigned i = 0; i < n; i++)
				to_link(dp, 2 * in, &p->up, &p->up_x, pkts[i], now, FE_LABEL(0, 0),
					R);
		else
			for (unsigned i = 0; i < n; i++)
				ingress(dp, in, pkts[i], now, R);
		return;
	}
	fe_link_count_through_n(&dp->ports[in].up, n, bytes);
	fe_link_late_none(&dp->ports[in].up, n);
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
		fe_link_count_through_n(&q->down, q->fast_n, q->fast_bytes);
		q->fast_n = 0;
		q->fast_bytes = 0;
		touched &= touched - 1;
	}
	FE_CNT_ADD(dp->sw.unicast, staged);
}

/* Into the switch from `in` at t, bound for out (lookup()) in lane `lane`: its input
 * queues, arbiters and floods are the graph's (fe_graph.c), every switch's. */
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
			fe_credit_return(&dp->ports[in].credit, lane, fe_credit_blocks(len), t);
		return;
	}
	arrive_to(dp, in, m, t, lookup(dp, in, m, t), lane, R);
}

/* arrive(), out of line: the pass-through of an up link reaches it from inside to_link()
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
 * goes straight into that port's down link (to_egress(): PFC's admission and pauses, their
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
			to_egress(dp, in, (unsigned)out, m, stamps[i], 0, R);
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
	struct fe_tap *tap = fe_tap_on(&dp->tap, 2 * in);

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
 * (wd_egress); action forward: the pause is ignored, what waits goes at once, and after
 * the storm the host's pause, if it still lasts, holds the link again.
 */
/* Drop what waits on port q's stormed down link (action drop); how many. */
static unsigned
storm_drop(struct fe_dp *dp, unsigned q, uint64_t now)
{
	void *pkts[FE_BURST];
	unsigned n, work = 0;

	while ((n = fe_link_discard_unstarted(&dp->ports[q].down, now, FE_LINK_DROP_WATCHDOG, pkts,
					      FE_BURST)) > 0) {
		for (unsigned i = 0; i < n; i++)
			drop_free(dp, 2 * q + 1, pkts[i], FE_LINK_DROP_WATCHDOG, now);
		work += n;
	}
	return work;
}

/* The pause p's down link is in: its start (fe_pfc_wd_due()'s `paused`). */
static inline uint64_t
port_paused(const struct fe_port *p, uint64_t now)
{
	return p->down.hold_until > now ? p->hold_from : UINT64_MAX;
}

/*
 * The tick from which the head of p's down link could have started (fe_pfc_wd_due()'s
 * `waiting`): the first frame the pause held, as wd_egress() noted its offer, while it
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
	head = fe_link_unstarted(&p->down, now);
	if (head == p->down.tail)
		p->wait_from = UINT64_MAX;
	else if (p->wait_from == UINT64_MAX || p->wait_slot != head) {
		p->wait_from = now;
		p->wait_slot = head;
	}
	return p->wait_from;
}

void
fe_switch_hold_down(struct fe_dp *dp, unsigned q, uint64_t now, uint64_t until)
{
	struct fe_port *p = &dp->ports[q];
	/* the watchdog times a pause from its start, however often the host refreshes it */
	int fresh = p->down.hold_until <= now;

	fe_link_hold(&p->down, now, until);
	if (p->down.hold_until <= now)
		return; /* what the link had to send lasts longer: nothing held */
	if (fresh) {
		p->hold_from = p->down.hold_counted; /* its serializer stops there */
		p->wait_from = UINT64_MAX;
	}
	if (dp->wd.ticks != 0)
		p->wd_until = RTE_MAX(p->wd_until, p->down.hold_until);
}

static unsigned
storm(struct fe_dp *dp, unsigned q, uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	unsigned n;

	p->storm_until = now + dp->wd.restore;
	p->wd_until = RTE_MAX(p->storm_until, p->down.hold_until);
	p->wait_from = UINT64_MAX; /* what waits goes, or is dropped */
	FE_CNT_ADD(p->st.pfc_wd_storms, 1);
	if (dp->wd.action != FE_PFC_WD_FORWARD)
		return storm_drop(dp, q, now);
	p->storm_hold = p->down.hold_until;
	n = fe_link_release(&p->down, now);
	FE_CNT_ADD(p->st.pfc_wd_forwarded, n);
	return n;
}

static unsigned
watchdog(struct fe_dp *dp, uint64_t now)
{
	unsigned work = 0;

	for (unsigned q = 0; q < dp->nports; q++) {
		struct fe_port *p = &dp->ports[q];
		struct fe_link *l = &p->down;
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
 * them all every step, paused or not: XOFF in to_egress() reads held[] summed over every
 * egress link, and stale bytes would pause early. Then XON where they fell, real frames,
 * and the watchdog.
 */
static unsigned
pfc_service(struct fe_dp *dp, uint64_t now)
{
	for (unsigned q = 0; q < dp->nports; q++)
		fe_link_backlog(&dp->ports[q].down, now);
	for (unsigned in = 0; in < dp->nports; in++) {
		struct fe_pfc *pfc = &dp->ports[in].pfc;

		/* none paused (most ports, most passes): nothing to look at */
		for (uint8_t pr = 0; pfc->xoff_prios != 0 && pr < dp->conf.lanes; pr++) {
			uint64_t held = dp->held[in * FE_PFC_PRIOS + pr];

			if (!fe_pfc_xoff(pfc, pr))
				continue;
			pfc_frame_out(dp, in, pr, fe_pfc_update(pfc, pr, held, now));
			if (pfc->cfg.frames && fe_pfc_refresh_due(pfc, pr, now))
				pfc_frame_out(dp, in, pr, FE_PFC_XOFF);
		}
	}
	return unlikely(dp->wd.ticks != 0) ? watchdog(dp, now) : 0;
}

unsigned
fe_switch_handoff_in(struct fe_dp *dp, unsigned q, uint64_t now)
{
	struct fe_port *out = &dp->ports[q];
	struct fe_handoff h[FE_BURST];
	unsigned n, total = 0;

	(void)now;
	do {
		n = rte_ring_sc_dequeue_burst_elem(dp->handoff[q], h, sizeof(h[0]), FE_BURST, NULL);
		/* the mbufs were last written on the other lcore: fetch them all at once */
		for (unsigned i = 0; i < n; i++)
			rte_prefetch0(h[i].m);
		for (unsigned i = 0; i < n; i++)
			to_link(dp, 2 * q + 1, &out->down, &out->down_x, h[i].m, h[i].t, h[i].label,
				FE_REGIME_LOSSY); /* a pipeline: lossy only */
		total += n;
	} while (n == FE_BURST && total < FE_BURST * 16);
	return total;
}

unsigned
fe_switch_handoff_flush(struct fe_dp *dp, unsigned q)
{
	struct fe_handoff h[FE_BURST];
	unsigned n =
		rte_ring_sc_dequeue_burst_elem(dp->handoff[q], h, sizeof(h[0]), FE_BURST, NULL);

	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(h[i].m);
	return n;
}

/*
 * The switch's entry points, one set a regime (fe_regime.h), each with the regime a
 * constant: no frame tests it.
 */
#define SWITCH_REGIME(sfx, R)                                                                      \
	void fe_switch_up_##sfx(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t now)   \
	{                                                                                          \
		ingress(dp, in, m, now, R);                                                        \
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
	}                                                                                          \
	void fe_switch_egress_##sfx(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, \
				    uint64_t t, uint8_t lane)                                      \
	{                                                                                          \
		to_egress(dp, in, q, m, t, lane, R);                                               \
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
	(void)dp; /* the input queues: every switch's, the graph's (fe_graph.c) */
	(void)now;
	return 0;
}
