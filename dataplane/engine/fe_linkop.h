/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_linkop: what the engine does to one frame on one link of the link table (fe_dp.h:
 * a port's up or down link, or a link between switches), whichever switch or regime
 * offers it: the link's impairments (fe_linkx.h), the offer itself (fe_link.h), a drop
 * shown to a capture, a data frame trimmed where the link has no room (lossy, NIC model
 * uec), and a PAUSE frame out of a port to its host. Internal to the engine, on its
 * lcore; below the switches (fe_graph.h, fe_egress.h), which call it.
 *
 *   r = fe_linkop_offer(dp, n, row, m, t, label, R);  // 0 taken, -1 dropped (freed),
 *                                                       // FE_LINKOP_ARRIVE: an up link
 *                                                       // passed it through to its switch
 *
 * The table functions fe_dp.h declares for every layer (fe_row_setup(), fe_row_free(),
 * fe_dp_up_room()) are here too.
 */
#ifndef FE_LINKOP_H
#define FE_LINKOP_H

#include <rte_mbuf.h>

#include "fe_dp.h"
#include "fe_nictag.h"
#include "fe_regime.h"

/*
 * fe_linkop_offer()'s answer for an up link that passes m through at once: the caller's
 * switch takes it now, at t (the link counted it, showed it to a capture).
 */
#define FE_LINKOP_ARRIVE 1

/*
 * The impairments of link n (its row r: filter, exact drop, loss, ECN, jitter) on m at t,
 * for a link of the graph of switches: 0 to carry it, *extra ticks of jitter later; -1 if
 * it was dropped (counted, shown to a capture, freed).
 */
int fe_linkop_impair(struct fe_dp *dp, unsigned n, struct fe_row *r, struct rte_mbuf *m, uint64_t t,
		     uint8_t lane, uint64_t *extra);

/*
 * Link n (l) had no room for m at t (why: the cause it counted), in the lossy regime with
 * NIC model uec (dp->trim): m is trimmed where it can be (fe_nic_trim()): its payload
 * dropped, the drop counted again as FE_LINK_DROP_TRIM, m shown to a capture and freed.
 * Its header, a frame of few bytes with m's route: on a host's down link, handed to its
 * NIC (dp->nic_trimmed); between switches, on the link's priority queue
 * (dp->hop_trimmed); on a host's up link, taken behind what the link holds, past its
 * buffer's limit. With the NIC's trim-queue data, on a host's down link or between
 * switches it is offered to the data queue instead, behind the data. A header that finds
 * no room (that queue full, the data's, the wire's slots), and m itself if it is a header
 * already (trimmed at an earlier hop, or a cut probe, which fe_linkop_header() could not
 * queue ahead) with no room for it either, is dropped as FE_LINK_DROP_HEADER. Cut anywhere
 * but on a host's down link, it is tagged FE_TAG_EARLIER (its NAK not the last hop's). A
 * NIC's own frame (an ACK, a NAK, a grant) is not trimmed: it is dropped as any frame.
 * extra: m's impairments on the link (its jitter and retries), which its header meets.
 * 0 if m was trimmed or dropped as a header; -1 if not (m still the caller's, to drop).
 */
int fe_linkop_trim(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *m, uint8_t why,
		   uint64_t t, uint32_t label, uint64_t extra);

/*
 * Lossy, NIC model uec (dp->trim): m offered to link n (l) at t, if it is a header trimmed
 * at an earlier hop or a NIC's own frame (an ACK, a NAK, a grant), goes ahead of the data,
 * as the simulator's switches queue every header and control packet at high priority
 * (a header not with the NIC's trim-queue data: it goes as any frame):
 * between switches on the link's priority queue (counted in now, out when it arrives), to
 * a host on its NIC's queue of trimmed headers and control frames (counted through; a
 * header's NAK then not the last hop's). 0 if so; -1 if m is neither, or that queue is
 * full (m is still the caller's, to offer as any frame). A host's up link is the NIC's
 * own queue: not here. extra: the link's impairments' (fe_linkop_impair_cause()), its
 * jitter and retries, which it meets there as any frame (fe_link_extra_ticks()).
 */
int fe_linkop_header(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *m,
		     uint64_t t, uint64_t extra);

/* The same, inline where the fabric does not trim or m is neither (one compare each): 0
 * if m went ahead of the data, -1 if it is still the caller's. */
static __rte_always_inline int
fe_linkop_ahead(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *m, uint64_t t,
		uint64_t extra, const enum fe_regime R)
{
	if (R != FE_REGIME_LOSSY || likely(!dp->trim) ||
	    likely(FE_TAG_KIND(*fe_nic_tag(dp, m)) < FE_TAG_CTL))
		return -1;
	return fe_linkop_header(dp, n, l, m, t, extra);
}

/*
 * A real 802.1Qbb frame out of port `in` toward its host, for the priorities of prios
 * (quanta 0: XON), ahead of the data waiting there (MAC control frames are not queued
 * behind data). If the TX staging area is full it is not sent, and counted.
 */
void fe_linkop_pause_frame(struct fe_dp *dp, unsigned in, uint8_t prios, uint16_t quanta);

/*
 * PFC with real frames: the switch's pause or resume (ev) of prio goes out of port `in`.
 * An XON waits while the edge pause holds the host (fe_switch_edge_pause() resumes it).
 */
void fe_linkop_pfc_frame(struct fe_dp *dp, unsigned in, uint8_t prio, enum fe_pfc_event ev);

/*
 * The impairments of row r on m at t, in order: filter, exact drop, loss (sent again under
 * link-level retry), ECN, jitter. Returns the drop cause, or FE_LINK_DROP__MAX to carry the packet
 * with *extra: its ticks of jitter, and the times it is sent again (fe_link_replays()).
 * advanced: r's link has been advanced to t already (a caller that found room at t), a constant.
 */
static __rte_always_inline enum fe_link_drop
fe_linkop_impair_cause(const struct fe_dp *dp, struct fe_row *r, struct rte_mbuf *m, uint64_t t,
		       uint64_t *extra, const int advanced)
{
	struct fe_link *l = &r->l;
	struct fe_linkx *x = &r->x;
	unsigned replays = 0;

	if (x->cfg.filter) {
		if (!fe_filter_match(x->cfg.filter, m))
			return FE_LINK_DROP__MAX;
		FE_CNT_ADD(x->filter_hits, 1);
	}
	x->matched++;
	if (x->matched - x->cfg.drop_first < x->cfg.drop_count)
		return FE_LINK_DROP_EXACT;
	if (fe_loss_lost(&x->cfg.loss, &x->loss_st, &x->rng)) {
		if (!x->cfg.llr)
			return x->cfg.loss_cause;
		replays = fe_loss_replays(&x->cfg.loss, &x->loss_st, &x->rng, FE_LLR_REPLAYS_MAX);
		if (replays > FE_LLR_REPLAYS_MAX)
			return FE_LINK_DROP_LLR;
	}
	if (x->cfg.ecn.enabled &&
	    fe_ecn_hit(&x->cfg.ecn, (advanced ? l->q_bytes : fe_link_backlog(l, t)) + r->voq_bytes,
		       &x->rng)) {
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
fe_linkop_drop_free(struct fe_dp *dp, unsigned n, struct rte_mbuf *m, uint8_t why, uint64_t t)
{
	struct fe_tap *tap = fe_tap_on(&dp->tap, n);

	if (unlikely(tap != NULL))
		fe_tap_pkt(tap, m, t, why);
	rte_pktmbuf_free(m);
}

/*
 * A pass-through link (fe_link_passthru) hands m on at once: an up link to the
 * switch, a down link to its port's TX staging. -1 when the staging is full (then the
 * link's ring takes it, and everything after it, in order); FE_LINKOP_ARRIVE: an up
 * link's, for its switch to take now.
 */
static inline int
fe_linkop_pass_through(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *m,
		       uint32_t len, uint64_t t)
{
	unsigned q;
	const int down = fe_dp_port_link(n, &q) == FE_LINK_DOWN;
	struct fe_port *p = &dp->ports[q];
	struct fe_tap *tap;

	if (down && (p->txq_n == FE_BURST || p->nic != NULL)) /* a NIC takes it at TX */
		return -1;
	fe_link_count_through(l, len);
	tap = fe_tap_on(&dp->tap, n);
	if (unlikely(tap != NULL))
		fe_tap_pkt(tap, m, t, FE_TAP_DELIVERED);
	if (down) {
		p->txq_due[p->txq_n] = t;
		p->txq[p->txq_n++] = m;
		p->txq_bytes += len;
	} else {
		fe_link_late_none(l, 1); /* the switch takes it at once */
		return FE_LINKOP_ARRIVE;
	}
	return 0;
}

/*
 * Offer m to link n (its row r) at t, with label (FE_LABEL()); on any drop it is counted and
 * freed. 0, FE_LINKOP_ARRIVE (an up link passed it through: the caller's switch takes it
 * now), or -1 if dropped. room: the caller found room for it at t (the lossless
 * regimes' gates: fe_link_enqueue_room()), a constant.
 */
static __rte_always_inline int
fe_linkop_offer_x(struct fe_dp *dp, unsigned n, struct fe_row *r, struct rte_mbuf *m, uint64_t t,
		  uint32_t label, const enum fe_regime R, const int room)
{
	struct fe_link *l = &r->l;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint64_t extra = 0;

	if (r->x.cfg.active) {
		enum fe_link_drop why = fe_linkop_impair_cause(dp, r, m, t, &extra, room);

		if (why != FE_LINK_DROP__MAX) {
			fe_link_drop(l, why, len, FE_LABEL_CLASS(label));
			fe_linkop_drop_free(dp, n, m, (uint8_t)why, t);
			return -1;
		}
	}
	/* a header trimmed before, a NIC's own frame: ahead of the data */
	if (fe_linkop_ahead(dp, n, l, m, t, extra, R) == 0)
		return -1;
	if (extra == 0 && fe_link_passthru(l)) {
		int r = fe_linkop_pass_through(dp, n, l, m, len, t);

		if (r >= 0)
			return r;
	}
	if ((room ? fe_link_enqueue_room(l, m, len, t, extra, label)
		  : fe_link_enqueue_x(l, m, len, t, extra, label)) < 0) {
		if (R == FE_REGIME_LOSSY && unlikely(dp->trim) &&
		    fe_linkop_trim(dp, n, l, m, l->last_drop, t, label, extra) == 0)
			return -1;
		fe_linkop_drop_free(dp, n, m, l->last_drop, t);
		return -1;
	}
	return 0;
}

static __rte_always_inline int
fe_linkop_offer(struct fe_dp *dp, unsigned n, struct fe_row *r, struct rte_mbuf *m, uint64_t t,
		uint32_t label, const enum fe_regime R)
{
	return fe_linkop_offer_x(dp, n, r, m, t, label, R, 0);
}

#endif
