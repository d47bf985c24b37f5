/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trunks (fe_trunk.h): a fabric split across boxes, each link between boxes a port
 * on each; what the hop links sent from here carry, and what the trunks bring back.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "fe_nictag.h"
#include "fe_time.h"
#include "fe_trunk.h"

int
fe_trunk_setup(struct fe_dp *dp, struct fe_graph *g, const struct fe_graph_conf *c, int socket,
	       char *err, size_t errlen)
{
	unsigned n = 0;

	for (unsigned l = 0; c->sw_here && l < c->nlinks; l++) {
		int a = c->sw_here[c->ends[l][0]], b = c->sw_here[c->ends[l][1]];
		int split = c->trunk && c->trunk[l] != UINT16_MAX;

		if (a != b && !split) {
			snprintf(err, errlen,
				 "link %s joins a switch here to one on another box: "
				 "it needs a port (a trunk)",
				 c->link_names[l]);
			return -EINVAL;
		}
		if (a == b && split) {
			snprintf(err, errlen, "link %s is given a trunk, but %s", c->link_names[l],
				 a ? "both its switches are here"
				   : "neither of its switches is here");
			return -EINVAL;
		}
		n += split;
		for (int d = 0; d < 2; d++)
			g->hl[2 * l + d].side = a && b		   ? FE_HL_HERE
						: !a && !b	   ? FE_HL_AWAY
						: (d == 0 ? a : b) ? FE_HL_SEND
								   : FE_HL_RECV;
	}
	if (n == 0)
		return 0;
	if (n > FE_GRAPH_TRUNKS) {
		snprintf(err, errlen, "%u links between boxes end here: at most %d", n,
			 FE_GRAPH_TRUNKS);
		return -EINVAL;
	}
	g->tagoff = fe_nic_field();
	g->pulloff = g->tagoff < 0 ? -1 : fe_nic_pull_field();
	if (g->tagoff < 0 || g->pulloff < 0) {
		snprintf(err, errlen, "no mbuf field for the NIC's tag or pull target: %s",
			 rte_strerror(rte_errno));
		return -EINVAL;
	}
	g->trunk =
		rte_zmalloc_socket("fe_graph", sizeof(*g->trunk) * n, RTE_CACHE_LINE_SIZE, socket);
	if (g->trunk == NULL)
		return -ENOMEM;
	for (unsigned l = 0; l < c->nlinks; l++) {
		struct fe_trunk *tr = &g->trunk[g->ntrunks];
		struct rte_ether_addr mac;

		if (c->trunk[l] == UINT16_MAX)
			continue;
		tr->port = c->trunk[l];
		tr->send = (uint16_t)(g->hl[2 * l].side == FE_HL_SEND ? 2 * l : 2 * l + 1);
		tr->recv = (uint16_t)(tr->send ^ 1);
		tr->lat_ticks = c->trunk_lat_ns ? fe_ns_to_ticks(c->trunk_lat_ns[l], dp->hz) : 0;
		if (rte_eth_macaddr_get(tr->port, &mac) == 0)
			memcpy(tr->mac, mac.addr_bytes, 6);
		g->hl[tr->send].trunk = g->hl[tr->recv].trunk = (uint8_t)g->ntrunks;
		g->ntrunks++;
	}
	return 0;
}

int
fe_trunk_split_delay(const struct fe_dp *dp, unsigned h, struct fe_link_cfg *cfg, char *err,
		     size_t errlen)
{
	const struct fe_graph *g = dp->graph;
	uint64_t lat;

	if (g == NULL || h >= g->nhl || g->hl[h].side != FE_HL_SEND)
		return 0;
	lat = g->trunk[g->hl[h].trunk].lat_ticks;
	if (cfg->prop_ticks < lat) {
		snprintf(err, errlen,
			 "link %s: delay %.0f ns is shorter than the real link between the boxes "
			 "(%.0f ns one way): give it at least that, or a larger scale",
			 g->hl[h].name, (double)cfg->prop_ticks * 1e9 / (double)dp->hz,
			 (double)lat * 1e9 / (double)dp->hz);
		return -EINVAL;
	}
	cfg->prop_ticks -= lat;
	return 0;
}

/*
 * When a frame leaves for the other box, or came from it: the TSC live (the loop's pass
 * may run behind it), else the fake clock's now. How late it left is taken against it.
 */
static inline uint64_t
sent_at(const struct fe_dp *dp, uint64_t now)
{
	return dp->live ? rte_rdtsc() : now;
}

/* ns from t to `at`, for a field of 4 bytes (network order). */
static inline uint32_t
age_ns(const struct fe_dp *dp, uint64_t t, uint64_t at)
{
	return rte_cpu_to_be_32(
		(uint32_t)RTE_MIN(fe_ticks_to_ns(at > t ? at - t : 0, dp->hz), UINT32_MAX));
}

/* What trunk tr staged, sent at now; what its port does not take is lost, counted. */
static void
trunk_tx(struct fe_dp *dp, struct fe_trunk *tr, uint64_t now)
{
	uint64_t at = sent_at(dp, now);
	unsigned k;

	/* a pause's decision tick, staged in its padding, becomes its age */
	for (unsigned i = 0; i < tr->ntx; i++) {
		uint8_t *f = rte_pktmbuf_mtod(tr->tx[i], uint8_t *);
		uint64_t t;
		uint32_t age;

		if (f[12] != 0x88 || f[13] != 0x08)
			continue;
		memcpy(&t, f + FE_TRUNK_PFC_AGE, 8);
		age = age_ns(dp, t, at);
		memset(f + FE_TRUNK_PFC_AGE, 0, 8);
		memcpy(f + FE_TRUNK_PFC_AGE, &age, 4);
	}
	k = rte_eth_tx_burst(tr->port, 0, tr->tx, tr->ntx);

	if (k < tr->ntx) {
		FE_CNT_ADD(tr->tx_full, tr->ntx - k);
		rte_pktmbuf_free_bulk(tr->tx + k, tr->ntx - k);
	}
	tr->ntx = 0;
}

/* Onto trunk tr's port, once a pass (fe_trunk_flush()) or a burst. */
static inline void
trunk_stage(struct fe_dp *dp, struct fe_trunk *tr, struct rte_mbuf *m, uint64_t now)
{
	if (tr->ntx == FE_BURST)
		trunk_tx(dp, tr, now);
	tr->tx[tr->ntx++] = m;
}

/*
 * A frame hop link h (sent from here) delivered at `due`, sent at now: to the other box,
 * with its route and how late it leaves (the other box takes it as due then).
 */
void
fe_trunk_send(struct fe_dp *dp, unsigned h, struct rte_mbuf *m, uint64_t due, uint64_t now)
{
	struct fe_graph *g = dp->graph;
	struct fe_trunk *tr = &g->trunk[g->hl[h].trunk];
	uint64_t r = *fe_graph_route(g, m), wire;
	/* an emulated NIC's flow and PSN: the NIC at the other end of the flow reads them */
	uint64_t tag =
		g->nic_tags ? fe_nic_tag_port(*RTE_MBUF_DYNFIELD(m, g->tagoff, uint64_t *), g->glob)
			    : 0;
	/* and a data frame's pull target (cc rccc), which its receiving NIC reads there */
	uint32_t pull = g->nic_tags ? *RTE_MBUF_DYNFIELD(m, g->pulloff, uint32_t *) : 0;
	uint64_t at = sent_at(dp, now);
	uint32_t late = age_ns(dp, due, at);
	uint8_t *f;

	/* the box's own lateness, as a host's down link counts it: the verdicts see it */
	fe_link_late(&g->hl[h].row.l, at > due ? at - due : 0);
	/* the fabric's port numbers, the same on every box */
	wire = (r & ~UINT64_C(0xffff)) | (uint64_t)g->glob[FE_ROUTE_IN(r)] << 8 |
	       (FE_ROUTE_DST(r) == FE_ROUTE_FLOOD ? FE_ROUTE_FLOOD : g->glob[FE_ROUTE_DST(r)]);
	if (unlikely(rte_mbuf_refcnt_read(m) > 1 || !RTE_MBUF_DIRECT(m))) {
		/* another holds this mbuf (an emulated NIC keeps it for a resend): its start is
		 * not this box's to move, or the resend would carry this header */
		struct rte_mbuf *c = rte_pktmbuf_copy(m, dp->pool, 0, UINT32_MAX);

		rte_pktmbuf_free(m);
		if (c == NULL) {
			FE_CNT_ADD(tr->nombuf, 1);
			return;
		}
		m = c;
	}
	f = (uint8_t *)rte_pktmbuf_prepend(m, FE_TRUNK_HDR);
	if (f == NULL) { /* no headroom: lost here, counted */
		FE_CNT_ADD(tr->tx_full, 1);
		rte_pktmbuf_free(m);
		return;
	}
	fe_trunk_hdr(f, tr->mac, FE_TRUNK_DATA, h);
	memcpy(f + 18, &late, 4);
	wire = rte_cpu_to_be_64(wire);
	memcpy(f + 22, &wire, 8);
	tag = rte_cpu_to_be_64(tag);
	memcpy(f + 30, &tag, 8);
	pull = rte_cpu_to_be_32(pull);
	memcpy(f + 38, &pull, 4);
	FE_CNT_ADD(tr->tx_frames, 1);
	trunk_stage(dp, tr, m, now);
}

/* A control frame of len bytes for trunk tr, its Ethernet header written; NULL: none. */
static uint8_t *
trunk_ctl(struct fe_dp *dp, struct fe_trunk *tr, struct rte_mbuf **mp, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp->pool);
	uint8_t *f;

	if (m == NULL || (f = (uint8_t *)rte_pktmbuf_append(m, len)) == NULL) {
		rte_pktmbuf_free(m);
		FE_CNT_ADD(tr->nombuf, 1);
		return NULL;
	}
	memset(f, 0, len);
	*mp = m;
	return f;
}

void
fe_trunk_credit_flush(struct fe_dp *dp, struct fe_trunk *tr, uint64_t now)
{
	struct rte_mbuf *m;
	uint8_t *f;

	if (tr->ncred == 0)
		return;
	f = trunk_ctl(dp, tr, &m,
		      (uint16_t)(FE_TRUNK_COMMON + 2 + tr->ncred * sizeof(struct fe_trunk_credit)));
	if (f != NULL) {
		fe_trunk_hdr(f, tr->mac, FE_TRUNK_CREDIT, tr->recv);
		f[18] = (uint8_t)tr->ncred;
		for (unsigned i = 0; i < tr->ncred; i++) {
			struct fe_trunk_credit c = {
				.lane = tr->cred[i].lane,
				.blocks = rte_cpu_to_be_16((uint16_t)tr->cred[i].blocks),
				.age_ns = age_ns(dp, tr->cred[i].t, sent_at(dp, now))};

			memcpy(f + 20 + i * sizeof(c), &c, sizeof(c));
		}
		FE_CNT_ADD(tr->tx_credit, 1);
		trunk_stage(dp, tr, m, now);
	}
	tr->ncred = 0;
}

void
fe_trunk_pause_out(struct fe_dp *dp, unsigned h, uint8_t prio, enum fe_pfc_event ev, uint64_t t)
{
	struct fe_graph *g = dp->graph;
	const struct fe_hoplink *hl = &g->hl[h];
	struct fe_trunk *tr;
	struct rte_mbuf *m;
	uint8_t *f;

	if (ev == FE_PFC_XOFF)
		g->pfc_busy = 1; /* fe_lossless_pfc_xon() looks for its XON */
	if (ev == FE_PFC_NONE || hl->side != FE_HL_RECV) /* here: the gate reads its state */
		return;
	tr = &g->trunk[hl->trunk];
	f = trunk_ctl(dp, tr, &m, 60);
	if (f == NULL)
		return;
	fe_pfc_frame(f, tr->mac, prio, ev == FE_PFC_XOFF ? hl->row.pfc.cfg.quanta : 0);
	memcpy(f + FE_TRUNK_PFC_AGE, &t, 8); /* its age once it leaves (trunk_tx()) */
	FE_CNT_ADD(tr->tx_pfc, 1);
	trunk_stage(dp, tr, m, t);
}

int
fe_trunk_in(struct fe_dp *dp, struct fe_trunk *tr, struct rte_mbuf *m, uint64_t now, uint64_t *at_p)
{
	struct fe_graph *g = dp->graph;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint16_t type = len >= 14 ? (uint16_t)(f[12] << 8 | f[13]) : 0;

	if (type == 0x8808 && len >= 34 && f[14] == 0x01 && f[15] == 0x01) {
		/* 802.1Qbb from the receiver there: its reaction delay, less the real link's */
		struct fe_hoplink *hl = &g->hl[tr->send];
		uint32_t age_be = 0;
		uint64_t back, at;

		/* decided age ago there (its padding says), and the real link took its
		 * latency: the sender stops the reaction delay after the decision */
		if (len >= FE_TRUNK_PFC_AGE + 4)
			memcpy(&age_be, f + FE_TRUNK_PFC_AGE, 4);
		back = tr->lat_ticks + fe_ns_to_ticks(rte_be_to_cpu_32(age_be), dp->hz);
		at = sent_at(dp, now) + hl->row.pfc.cfg.delay_ticks;
		at = at > back ? at - back : 0;
		for (uint8_t p = 0; p < FE_PFC_PRIOS; p++)
			if (f[17] >> p & 1)
				fe_pfc_heard(&hl->row.pfc, p, (f[18 + 2 * p] | f[19 + 2 * p]) != 0,
					     at);
		FE_CNT_ADD(tr->rx_pfc, 1);
		rte_pktmbuf_free(m);
		return 0;
	}
	if (type != FE_TRUNK_ETHERTYPE || len < FE_TRUNK_COMMON || f[14] != FE_TRUNK_VERSION) {
		FE_CNT_ADD(tr->rx_bad, 1);
		rte_pktmbuf_free(m);
		return 0;
	}
	if (f[15] == FE_TRUNK_PROBE) { /* the other box measures the link: sent back */
		uint8_t *w = rte_pktmbuf_mtod(m, uint8_t *);

		w[15] = FE_TRUNK_ECHO;
		memcpy(w + 6, tr->mac, 6);
		FE_CNT_ADD(tr->probes, 1);
		trunk_stage(dp, tr, m, now);
		return 0;
	}
	if (f[15] == FE_TRUNK_ECHO) { /* a late answer to this box's own measurement */
		FE_CNT_ADD(tr->echoes, 1);
		rte_pktmbuf_free(m);
		return 0;
	}
	if (f[15] == FE_TRUNK_CREDIT && (unsigned)(f[16] << 8 | f[17]) == tr->send && len >= 20 &&
	    len >= 20 + f[18] * sizeof(struct fe_trunk_credit)) {
		/* credits back: freed age ago there, and the real link took its latency */
		struct fe_credit *c = &g->hl[tr->send].row.cred;
		const uint64_t rx = sent_at(dp, now); /* when it came (the TSC, live) */

		for (unsigned i = 0; i < f[18] && c->ring != NULL; i++) {
			struct fe_trunk_credit e;
			uint64_t back;

			memcpy(&e, f + 20 + i * sizeof(e), sizeof(e));
			back = tr->lat_ticks + fe_ns_to_ticks(rte_be_to_cpu_32(e.age_ns), dp->hz);
			if (e.lane < dp->conf.lanes)
				fe_credit_return(c, e.lane, rte_be_to_cpu_16(e.blocks),
						 rx > back ? rx - back : 0);
		}
		FE_CNT_ADD(tr->rx_credit, 1);
		rte_pktmbuf_free(m);
		return 0;
	}
	if (f[15] == FE_TRUNK_DATA && len >= FE_TRUNK_HDR &&
	    (unsigned)(f[16] << 8 | f[17]) == tr->recv) {
		uint64_t r, late, at, tag;
		uint32_t late_ns, pull;
		unsigned in, dst;

		memcpy(&late_ns, f + 18, 4);
		memcpy(&r, f + 22, 8);
		r = rte_be_to_cpu_64(r);
		memcpy(&tag, f + 30, 8);
		memcpy(&pull, f + 38, 4);
		/* due here as late as it left there: the real link took its latency */
		late = fe_ns_to_ticks(rte_be_to_cpu_32(late_ns), dp->hz);
		at = sent_at(dp, now);
		at = at > late ? at - late : 0;
		in = g->loc[FE_ROUTE_IN(r)];
		dst = FE_ROUTE_DST(r) == FE_ROUTE_FLOOD ? FE_ROUTE_FLOOD : g->loc[FE_ROUTE_DST(r)];
		/* a route this box can take: known ports, a lane it runs, a switch it knows */
		if (in != 0xff && (dst != 0xff || FE_ROUTE_DST(r) == FE_ROUTE_FLOOD) &&
		    FE_ROUTE_LANE(r) < dp->conf.lanes && FE_ROUTE_ORIGIN(r) < g->nsw) {
			const uint8_t *src = f + FE_TRUNK_HDR + 6;

			rte_pktmbuf_adj(m, FE_TRUNK_HDR);
			fe_filter_forget(m, dp->filter_dynoff);
			/* its sender's address is known here once its frame came by */
			if (len >= FE_TRUNK_HDR + 12 && !(src[0] & 1))
				fe_mac_learn(dp->mac, src, (uint16_t)in, now);
			*fe_graph_route(g, m) = (r & ~UINT64_C(0xffff)) | (uint64_t)in << 8 | dst;
			*RTE_MBUF_DYNFIELD(m, g->tagoff, uint64_t *) =
				fe_nic_tag_port(rte_be_to_cpu_64(tag), g->loc);
			*RTE_MBUF_DYNFIELD(m, g->pulloff, uint32_t *) = rte_be_to_cpu_32(pull);
			FE_CNT_ADD(tr->rx_frames, 1);
			/* due past this pass (it runs behind the TSC), or behind one that is: it
			 * waits its tick, in order (the reader leaves room: fe_graph.c trunks_rx())
			 */
			if (at > now || tr->due_head != tr->due_tail) {
				tr->due[tr->due_tail % FE_TRUNK_DUE].m = m;
				tr->due[tr->due_tail++ % FE_TRUNK_DUE].at = at;
				return 0;
			}
			*at_p = at;
			return 1;
		}
	}
	FE_CNT_ADD(tr->rx_bad, 1);
	rte_pktmbuf_free(m);
	return 0;
}

/* What the trunks have staged, sent; what the ports do not take is lost, counted. */
void
fe_trunk_flush(struct fe_dp *dp, uint64_t now)
{
	struct fe_graph *g = dp->graph;

	for (unsigned t = 0; t < g->ntrunks; t++) {
		fe_trunk_credit_flush(dp, &g->trunk[t], now);
		if (g->trunk[t].ntx)
			trunk_tx(dp, &g->trunk[t], now);
	}
}
