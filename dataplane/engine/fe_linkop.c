/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One frame on one link (fe_linkop.h): its impairments and trimming out of line, PAUSE
 * frames to a host; and the link table's own functions that fe_dp.h declares.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "fe_linkop.h"
#include "fe_nictag.h"

/*
 * The tick a frame of len bytes that the switch put on link l at t, on its queue of
 * trimmed headers and control frames (a host's NIC's, or the link's priority queue),
 * arrives: that queue goes first, so it waits only for the frame on the wire (the
 * serializer's time it takes is not taken from the data's: a few dozen bytes a frame
 * trimmed or a control frame), then meets the link's impairments as any frame, extra:
 * its jitter and retries (fe_link_extra_ticks()).
 */
static uint64_t
express_due(struct fe_link *l, uint32_t len, uint64_t t, uint64_t extra)
{
	uint64_t start = l->svc != l->sched ? fe_link_next_leave(l) : t;

	return (start > t ? start : t) + fe_link_ser_ticks(&l->cfg, len) + l->cfg.prop_ticks +
	       fe_link_extra_ticks(l, len, extra);
}

/* A drop of len bytes counted as cause from, counted again as cause to (the lane's count
 * stays: one drop). */
static void
recount(struct fe_link *l, uint8_t from, uint8_t to, uint32_t len)
{
	FE_CNT_SET(l->st.drop_pkts[from], l->st.drop_pkts[from] - 1);
	FE_CNT_SET(l->st.drop_bytes[from], l->st.drop_bytes[from] - len);
	FE_CNT_ADD(l->st.drop_pkts[to], 1);
	FE_CNT_ADD(l->st.drop_bytes[to], len);
	l->last_drop = to;
}

/* A trimmed header (or a cut probe) h of hlen bytes, offered to l, has no room: dropped,
 * as FE_LINK_DROP_HEADER. */
static void
header_drop(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *h, uint32_t hlen,
	    uint32_t label, uint64_t t)
{
	fe_link_drop_cause(l, FE_LINK_DROP_HEADER, hlen, FE_LABEL_CLASS(label));
	fe_linkop_drop_free(dp, n, h, FE_LINK_DROP_HEADER, t);
}

int
fe_linkop_trim(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *m, uint8_t why,
	       uint64_t t, uint32_t label, uint64_t extra)
{
	unsigned i;
	const enum fe_link_kind k = fe_dp_link_kind(dp, n, &i);
	const int host = k == FE_LINK_DOWN; /* a host's down link */
	uint32_t len = rte_pktmbuf_pkt_len(m), hlen;
	const uint64_t tag = *fe_nic_tag(dp, m);
	struct rte_mbuf *h;
	int data;

	/* a header trimmed at an earlier hop (or a cut probe) came here only after
	 * fe_linkop_header() found its priority queue full (or with trim-queue=data): no room
	 * for it either, in its buffer, the pool or the wire's slots, is a header drop */
	if ((FE_TAG_KIND(tag) == FE_TAG_TRIM || (tag & FE_TAG_CUT)) &&
	    (why == FE_LINK_DROP_TAIL || why == FE_LINK_DROP_POOL || why == FE_LINK_DROP_WIRE)) {
		recount(l, why, FE_LINK_DROP_HEADER, len);
		fe_linkop_drop_free(dp, n, m, FE_LINK_DROP_HEADER, t);
		return 0;
	}
	if (why != FE_LINK_DROP_TAIL && why != FE_LINK_DROP_POOL)
		return -1;
	h = fe_nic_trim(dp, m); /* NULL: not a uec flow's data or probe, or no mbuf */
	if (h == NULL)
		return -1;
	recount(l, why, FE_LINK_DROP_TRIM, len);
	fe_linkop_drop_free(dp, n, m, FE_LINK_DROP_TRIM, t);
	hlen = rte_pktmbuf_pkt_len(h);
	/* a data frame's header (a probe cut is a control frame: ahead of the data) */
	data = FE_TAG_KIND(*fe_nic_tag(dp, h)) == FE_TAG_TRIM;
	if (data && !host) /* its NAK: not trimmed at the last hop, wherever it goes */
		*fe_nic_tag(dp, h) |= FE_TAG_EARLIER;
	if (data && dp->conf.nic.trim_queue == FE_NIC_TRIMQ_DATA && k != FE_LINK_UP) {
		/* behind the data it was cut from, where it has room (SONiC's queue_index: the
		 * data's own queue); else a header drop, and its data waits for the NIC's
		 * probe or timeout */
		if (fe_link_enqueue_x(l, h, hlen, t, extra, label) < 0) {
			recount(l, l->last_drop, FE_LINK_DROP_HEADER, hlen);
			fe_linkop_drop_free(dp, n, h, FE_LINK_DROP_HEADER, t);
		}
		return 0;
	}
	if (host) {
		if (dp->nic_trimmed(dp, i, h, express_due(l, hlen, t, extra)) == 0) {
			fe_link_count_through(l, hlen);
			return 0;
		}
		FE_CNT_ADD(l->st.in_pkts, 1);
		FE_CNT_ADD(l->st.in_bytes, hlen);
		header_drop(dp, n, l, h, hlen, label, t);
		return 0;
	}
	FE_CNT_ADD(l->st.in_pkts, 1);
	FE_CNT_ADD(l->st.in_bytes, hlen);
	/* between switches: the link's priority queue, ahead of the data it holds; a full
	 * one drops it (behind the data, headers would fill the buffer that trimmed them, and
	 * every frame sent again would be trimmed in turn) */
	if (k == FE_LINK_HOP) {
		if (dp->hop_trimmed(dp, i, h, express_due(l, hlen, t, extra)) == 0)
			return 0;
		header_drop(dp, n, l, h, hlen, label, t);
		return 0;
	}
	if (l->tail - l->head > l->mask) { /* no slot: the wire is full */
		header_drop(dp, n, l, h, hlen, label, t);
		return 0;
	}
	fe_link_take(l, h, hlen, t, extra, label);
	return 0;
}

int
fe_linkop_header(struct fe_dp *dp, unsigned n, struct fe_link *l, struct rte_mbuf *m, uint64_t t,
		 uint64_t extra)
{
	unsigned i;
	const enum fe_link_kind k = fe_dp_link_kind(dp, n, &i);
	uint64_t *tag = fe_nic_tag(dp, m);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const unsigned kind = FE_TAG_KIND(*tag);

	if (kind != FE_TAG_TRIM && kind != FE_TAG_CTL)
		return -1;
	if (kind == FE_TAG_TRIM && dp->conf.nic.trim_queue == FE_NIC_TRIMQ_DATA)
		return -1;	/* a header that goes with the data */
	if (k == FE_LINK_HOP) { /* in now, out when it arrives (as one trimmed here) */
		if (dp->hop_trimmed(dp, i, m, express_due(l, len, t, extra)) < 0)
			return -1;
		FE_CNT_ADD(l->st.in_pkts, 1);
		FE_CNT_ADD(l->st.in_bytes, len);
		return 0;
	}
	if (k != FE_LINK_DOWN)
		return -1;
	if (dp->nic_trimmed(dp, i, m, express_due(l, len, t, extra)) < 0)
		return -1;
	fe_link_count_through(l, len);
	return 0;
}

int
fe_linkop_impair(struct fe_dp *dp, unsigned n, struct fe_row *r, struct rte_mbuf *m, uint64_t t,
		 uint8_t lane, uint64_t *extra)
{
	enum fe_link_drop why;

	*extra = 0;
	if (!r->x.cfg.active ||
	    (why = fe_linkop_impair_cause(dp, r, m, t, extra, 0)) == FE_LINK_DROP__MAX)
		return 0;
	fe_link_drop(&r->l, why, rte_pktmbuf_pkt_len(m), lane);
	fe_linkop_drop_free(dp, n, m, (uint8_t)why, t);
	return -1;
}

void
fe_linkop_pause_frame(struct fe_dp *dp, unsigned in, uint8_t prios, uint16_t quanta)
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

void
fe_linkop_pfc_frame(struct fe_dp *dp, unsigned in, uint8_t prio, enum fe_pfc_event ev)
{
	struct fe_port *p = &dp->ports[in];

	if (!p->up.pfc.cfg.frames || ev == FE_PFC_NONE ||
	    (ev == FE_PFC_XON && p->epause.xoff_prios))
		return;
	fe_linkop_pause_frame(dp, in, (uint8_t)(1u << prio),
			      ev == FE_PFC_XON ? 0 : p->up.pfc.cfg.quanta);
}

/* A link's model (named name, i within its kind) from p, split (fe_row_setup()), its
 * slots on socket. */
static int
link_setup(const struct fe_dp *dp, struct fe_link *l, unsigned i, const char *name,
	   const struct fe_link_params *p, fe_row_split_fn *split, int socket, char *err,
	   size_t errlen)
{
	struct fe_link_slot *slots;
	struct fe_link_cfg cfg;
	const char *what;

	if (fe_link_params_check(p, &what) < 0 || fe_link_compile(p, dp->hz, &cfg) < 0) {
		snprintf(err, errlen, "link %s: bad %s", name, what);
		return -EINVAL;
	}
	if (split != NULL && split(dp, i, &cfg, err, errlen) < 0)
		return -EINVAL;
	slots = rte_zmalloc_socket("fe_link", sizeof(*slots) * cfg.nslots, RTE_CACHE_LINE_SIZE,
				   socket);
	if (slots == NULL) {
		snprintf(err, errlen, "link %s: out of memory for %u link slots", name, cfg.nslots);
		return -ENOMEM;
	}
	fe_link_init(l, &cfg, slots);
	return 0;
}

/* Credit regime: the credits r's sender holds for the fabric's buffer, per lane (their
 * return: derived with the rest, fe_derive.h). */
static int
cred_setup(const struct fe_dp *dp, struct fe_row *r, const char *name, int socket, char *err,
	   size_t errlen)
{
	const struct fe_credit_params *c = &dp->conf.credit;
	const uint64_t blocks = fe_credit_total(c->buffer, c->unit);
	struct fe_credit_ret *ring;
	uint32_t n;

	if (blocks == 0 || blocks > FE_CREDIT_BLOCKS_MAX) {
		snprintf(err, errlen,
			 "credit buffer %" PRIu64 " B: %" PRIu64 " blocks of %u B; allowed 1 to %u",
			 c->buffer, blocks, fe_credit_unit_of(c->unit).bytes, FE_CREDIT_BLOCKS_MAX);
		return -EINVAL;
	}
	n = fe_credit_ring_size((uint32_t)blocks, dp->conf.lanes);
	ring = rte_zmalloc_socket("fe_credit", sizeof(*ring) * n, RTE_CACHE_LINE_SIZE, socket);
	if (ring == NULL) {
		snprintf(err, errlen, "link %s: out of memory for %u credit returns", name, n);
		return -ENOMEM;
	}
	fe_credit_init(&r->cred, (uint32_t)blocks, c->unit, dp->conf.lanes, 0, ring);
	return 0;
}

int
fe_row_setup(struct fe_dp *dp, struct fe_row *r, unsigned n, const char *name,
	     const struct fe_linkdef *d, fe_row_split_fn *split, int socket, char *err,
	     size_t errlen)
{
	struct fe_linkx_cfg c;
	char e[300];
	unsigned i;
	const enum fe_link_kind k = fe_dp_link_kind(dp, n, &i);
	int rc;

	rc = link_setup(dp, &r->l, i, name, &d->link, split, socket, err, errlen);
	if (rc < 0)
		return rc;
	if (fe_linkx_compile(&c, d, dp->hz, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "link %s: %s", name, e);
		return -EINVAL;
	}
	fe_linkx_init(&r->x, &c, dp->conf.seed, n);
	/* a host's down link feeds no switch: no pause, no credits gate it */
	if (k == FE_LINK_DOWN || dp->conf.regime == FE_REGIME_LOSSY)
		return 0;
	r->l.gated = 1; /* PFC: its thresholds are derived (fe_derive.h) */
	return dp->conf.regime == FE_REGIME_CREDIT ? cred_setup(dp, r, name, socket, err, errlen)
						   : 0;
}

void
fe_row_free(struct fe_row *r)
{
	fe_filter_free(r->x.cfg.filter);
	rte_free(r->l.slots);
	rte_free(r->cred.ring);
}

/*
 * Lossless regimes never drop at the host adapter: the dataplane reads from a port
 * only as many packets as its up link (the adapter queue) has room for, and leaves
 * the rest to the port's ring, where the kernel counts what it cannot hold (imissed).
 */
uint32_t
fe_dp_up_room(const struct fe_dp *dp, struct fe_port *p, uint64_t now, uint32_t max)
{
	uint64_t room;

	fe_link_backlog(&p->up.l, now);
	room = fe_dp_queue_room(&p->up.l.cfg, p->up.l.q_pkts, p->up.l.q_bytes, dp->max_frame, max);
	room = RTE_MIN(room, (uint64_t)p->up.l.mask + 1 - (p->up.l.tail - p->up.l.head));
	return (uint32_t)room;
}
