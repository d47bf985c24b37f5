/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>

#include "fe_derive.h"
#include "fe_graph.h"
#include "fe_nicport.h"
#include "fe_time.h"

/* A NIC's line without a rate on its up link: 100 Gbit/s (docs/nic.md). */
#define FE_NIC_LINE_DEFAULT 100000000000ULL

/* The real link's one-way latency a link between boxes sent from here adds (else 0). */
static uint64_t
trunk_ticks(const struct fe_dp *dp, unsigned h)
{
	const struct fe_hoplink *hl = &dp->graph->hl[h];

	return hl->side == FE_HL_SEND ? dp->graph->trunk[hl->trunk].lat_ticks : 0;
}

uint64_t
fe_epause_bps(const struct fe_wire *w, const struct fe_link_params *up)
{
	return w->bps ? w->bps : up->rate_bps ? up->rate_bps : 100000000000ULL;
}

uint64_t
fe_epause_inflight(uint64_t bps)
{
	/* 64-byte frames, 84 bytes on the wire with their preamble and gap */
	return (uint64_t)((unsigned __int128)bps * FE_EPAUSE_REACT_NS / 1000000000ULL / (84 * 8)) +
	       1;
}

uint64_t
fe_epause_holds(const struct fe_wire *w, uint64_t xoff_room)
{
	return xoff_room + (uint64_t)w->rxd * 3 / 4;
}

/* The room at which the host is paused: what the ring does not hold, at most half the
 * queue's cap. */
static uint64_t
epause_room(const struct fe_wire *w, uint64_t bps, uint64_t cap)
{
	uint64_t need = fe_epause_inflight(bps), ring = fe_epause_holds(w, 0);

	return RTE_MIN(need > ring ? need - ring : 0, cap / 2);
}

/* The adapter queue's room, in frames, when empty: as fe_dp_up_room() counts it. */
static uint64_t
up_cap(const struct fe_dp *dp, const struct fe_link_cfg *cfg)
{
	uint64_t cap = fe_dp_queue_room(cfg, 0, 0, dp->max_frame, FE_EPAUSE_ROOM - 1);

	if (dp->conf.nic.model != FE_NIC_TCP && dp->conf.nic.model != FE_NIC_HOST)
		cap = RTE_MIN(cap, (uint64_t)FE_NIC_PENDING); /* the NIC's send queue */
	return cap;
}

/*
 * The edge pause of port i's up link (fe_wire): XOFF at the room epause_room() gives,
 * XON once half of what is above it is free again; the pause's quanta as PFC's, timed
 * at the port's own speed (the host's NIC counts them so), refreshed at half of it.
 */
static void
edge_derive(const struct fe_dp *dp, const struct fe_fabric *fab, unsigned i,
	    const struct fe_linkdef *d, const struct fe_link_cfg *cfg, struct fe_pfc_cfg *c)
{
	const struct fe_wire *w = &dp->ports[i].wire;
	uint64_t bps = fe_epause_bps(w, &d->link), cap = up_cap(dp, cfg), xoff_room, xon_room;
	struct fe_pfc_params prm = {.quanta = fab->pfc.quanta ? fab->pfc.quanta : 65535,
				    .frames = 1};

	memset(c, 0, sizeof(*c));
	if (!w->pause || fab->regime == FE_REGIME_LOSSY || cap == 0)
		return;
	xoff_room = epause_room(w, bps, cap);
	xon_room = RTE_MIN(cap, xoff_room + RTE_MAX((uint64_t)1, (cap - xoff_room) / 2));
	prm.xoff = FE_EPAUSE_ROOM - xoff_room;
	prm.xon = FE_EPAUSE_ROOM - xon_room;
	if (prm.xon >= prm.xoff) /* a queue of one frame: pause when full, resume when empty */
		prm.xon = prm.xoff - 1;
	(void)fe_pfc_compile(c, &prm, bps, dp->hz);
}

/* An emulated NIC's line rate on link d: its rate, 100 Gbit/s if it has none. */
static uint64_t
nic_rate(const struct fe_linkdef *d)
{
	return d->link.rate_bps ? d->link.rate_bps : FE_NIC_LINE_DEFAULT;
}

/* The network RTT NSCC and RCCC start from: as given, else the fabric's longest round
 * trip (fe_fabric_derived.rtt_ns). */
static uint64_t
nic_rtt(const struct fe_fabric *fab, const struct fe_fabric_derived *fd)
{
	return fab->nic.rtt_ns ? fab->nic.rtt_ns : fd->rtt_ns;
}

/* RCCC counts bytes on the wire, a full frame's 1538: its grants, paced at 0.99 of the
 * rate, never outrun the link, whatever the frames. */
static uint32_t
nic_mtu(void)
{
	return fe_wire_bytes(RTE_ETHER_MAX_LEN - 4);
}

/* A link's part of a round trip, ns: its delay and a full frame's serialization at bps
 * (0: none). */
static uint64_t
frame_ns(const struct fe_linkdef *d, uint64_t bps)
{
	return d->link.delay_ns + (bps ? (uint64_t)nic_mtu() * 8 * 1000000000ULL / bps : 0);
}

/* Link i of kind k: as given (given[i], a change's), else as the box runs it (given NULL). */
static const struct fe_linkdef *
def_of(const struct fe_dp *dp, const struct fe_linkdef *given, enum fe_link_kind k, unsigned i)
{
	return given ? &given[i] : fe_dp_link_def(dp, fe_dp_link_id(dp, k, i));
}

/* The longest of the topology's routes (all links up) from switch x to y, ns; memo[x][y]
 * UINT64_MAX until known. */
static uint64_t
route_ns(const struct fe_dp *dp, const struct fe_linkdef *hop, uint64_t (*memo)[FE_GRAPH_SW],
	 unsigned x, unsigned y)
{
	const struct fe_graph *g = dp->graph;
	uint64_t most = 0;

	if (x == y)
		return 0;
	if (memo[x][y] != UINT64_MAX)
		return memo[x][y];
	for (unsigned k = 0; k < g->nnh0[x][y]; k++) {
		const unsigned h = g->nh0[x][y][k];
		const struct fe_linkdef *d = def_of(dp, hop, FE_LINK_HOP, h);

		most = RTE_MAX(most, frame_ns(d, d->link.rate_bps) +
					     route_ns(dp, hop, memo, g->hl[h].to, y));
	}
	memo[x][y] = most;
	return most;
}

/* fe_fabric_derived.rtt_ns. A port on another box (split across boxes) counts as the
 * most any port here takes each way (the boxes run one profile). */
static uint64_t
fabric_rtt(const struct fe_dp *dp, const struct fe_linkdef *up, const struct fe_linkdef *down,
	   const struct fe_linkdef *hop)
{
	const struct fe_graph *g = dp->graph;
	const unsigned nq = g ? FE_GRAPH_PORTS : dp->nports;
	uint64_t tx[FE_GRAPH_PORTS], rx[FE_GRAPH_PORTS], most_tx = 0, most_rx = 0, rtt = 0;
	uint64_t memo[FE_GRAPH_SW][FE_GRAPH_SW];
	unsigned nall = 0, all[FE_GRAPH_PORTS];

	for (unsigned p = 0; p < dp->nports; p++) {
		const struct fe_linkdef *u = def_of(dp, up, FE_LINK_UP, p);
		const struct fe_linkdef *d = def_of(dp, down, FE_LINK_DOWN, p);

		tx[p] = frame_ns(u, nic_rate(u));
		rx[p] = frame_ns(d, nic_rate(d));
		most_tx = RTE_MAX(most_tx, tx[p]);
		most_rx = RTE_MAX(most_rx, rx[p]);
	}
	for (unsigned q = 0; q < nq; q++) {
		if (q >= dp->nports && g->glob[q] == 0xff)
			continue; /* no port */
		if (q >= dp->nports) {
			tx[q] = most_tx;
			rx[q] = most_rx;
		}
		all[nall++] = q;
	}
	memset(memo, 0xff, sizeof(memo));
	for (unsigned i = 0; i < nall; i++)
		for (unsigned j = 0; j < nall; j++) {
			const unsigned p = all[i], q = all[j];
			uint64_t r = tx[p] + rx[q] + tx[q] + rx[p];

			if (p == q && nall > 1)
				continue; /* a port alone: its own loop through its switch */
			if (g != NULL)
				r += route_ns(dp, hop, memo, g->port_sw[p], g->port_sw[q]) +
				     route_ns(dp, hop, memo, g->port_sw[q], g->port_sw[p]);
			rtt = RTE_MAX(rtt, r);
		}
	return rtt;
}

void
fe_fabric_derive(const struct fe_dp *dp, const struct fe_linkdef *up, const struct fe_linkdef *down,
		 const struct fe_linkdef *hop, struct fe_fabric_derived *fd)
{
	const struct fe_graph *g = dp->graph;
	uint64_t hosts[FE_GRAPH_SW] = {0}, in[FE_GRAPH_SW] = {0};
	uint8_t open[FE_GRAPH_SW] = {0}; /* a link without a rate: not oversubscribed */

	fd->oversub = 1;
	fd->rtt_ns = fabric_rtt(dp, up, down, hop);
	if (g == NULL)
		return;
	for (unsigned p = 0; p < dp->nports; p++) {
		const struct fe_linkdef *d = def_of(dp, down, FE_LINK_DOWN, p);

		hosts[g->port_sw[p]] += d->link.rate_bps;
		open[g->port_sw[p]] |= d->link.rate_bps == 0;
	}
	for (unsigned h = 0; h < g->nhl; h++) {
		const struct fe_linkdef *d = def_of(dp, hop, FE_LINK_HOP, h);

		in[g->hl[h].to] += d->link.rate_bps;
		open[g->hl[h].to] |= d->link.rate_bps == 0;
	}
	for (unsigned s = 0; s < g->nsw; s++)
		if (!open[s] && hosts[s] && in[s] && (double)hosts[s] / (double)in[s] > fd->oversub)
			fd->oversub = (double)hosts[s] / (double)in[s];
}

/*
 * Credits: the blocks a lane's credit message gathers (fe_credit.h), 0 for each frame's.
 * Its sender, waiting for the largest frame's blocks, holds fewer than them with the rest
 * out; a message that needs more than that rest could wait for blocks never freed.
 */
static int
credit_update(const struct fe_dp *dp, const struct fe_credit_params *c, uint32_t *blocks, char *err,
	      size_t errlen)
{
	const struct fe_credit_unit u = fe_credit_unit_of(c->unit);
	const uint64_t total = fe_credit_total(c->buffer, c->unit);
	const uint64_t need = fe_credit_blocks(&u, dp->max_frame);
	const uint64_t update = fe_credit_update_blocks(c->update, c->unit);

	if (update != 0 && (total < need || update > total - need + 1)) {
		snprintf(err, errlen,
			 "credit update %" PRIu64 " B: at most %" PRIu64 " B with buffer %" PRIu64
			 " B and frames of up to %u B; else a sender could wait for credits "
			 "never sent",
			 c->update, total >= need ? (total - need + 1) * u.bytes : 0, c->buffer,
			 dp->max_frame);
		return -EINVAL;
	}
	*blocks = (uint32_t)update;
	return 0;
}

/* cc rccc, the receiving NIC: the floor of its pull rate (fe_rccc.h), or 0: none. As the
 * simulator (main_uec.cpp): with RCCC alone on an oversubscribed fabric, unless the NIC's
 * oversub-cc says on or off. */
static double
occ_min(const struct fe_fabric *fab, const struct fe_fabric_derived *fd)
{
	switch (fab->nic.oversub_cc) {
	case FE_NIC_OCC_OFF:
		return 0;
	case FE_NIC_OCC_ON:
		return fe_rccc_occ_min(fd->oversub);
	default:
		return fe_nic_cc(&fab->nic) == FE_CC_RCCC && fd->oversub > 1
			       ? fe_rccc_occ_min(fd->oversub)
			       : 0;
	}
}

int
fe_link_derive(const struct fe_dp *dp, const struct fe_fabric *fab,
	       const struct fe_fabric_derived *fd, unsigned n, const struct fe_linkdef *d,
	       const struct fe_link_cfg *cfg, struct fe_link_derived *dv, char *err, size_t errlen)
{
	unsigned i;
	const enum fe_link_kind k = fe_dp_link_kind(dp, n, &i);
	char e[200];

	memset(dv, 0, sizeof(*dv));
	/* a host's receiver: no credits, no pauses; an emulated NIC's receiving rate, which
	 * its RCCC pacer grants at (a NIC's link has one rate each way, but fabemu's may
	 * differ: the grants share what reaches the host) */
	if (k == FE_LINK_DOWN) {
		if (fe_nic_emulated(fab->nic.model))
			fe_rccc_compile(nic_rate(d), nic_rtt(fab, fd), nic_mtu(), dp->hz,
					occ_min(fab, fd), &dv->rccc);
		if (fab->nic.model == FE_NIC_UEC)
			fe_pcie_compile(fab->nic.pcie_bps, fab->nic.pcie_backlog, dp->hz,
					&dv->pcie);
		return 0;
	}
	if (fab->regime == FE_REGIME_CREDIT) {
		dv->credit_return = fe_ns_to_ticks(fab->credit.return_ns, dp->hz) +
				    cfg->prop_ticks + (k == FE_LINK_HOP ? trunk_ticks(dp, i) : 0);
		if (credit_update(dp, &fab->credit, &dv->credit_update, err, errlen) < 0)
			return -EINVAL;
	}
	if (fab->regime == FE_REGIME_PFC &&
	    fe_pfc_compile_link(&dv->pfc, &fab->pfc, &d->link, dp->hz, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "link %s: %s", fe_dp_link_name(dp, n, (char[80]){0}, 80), e);
		return -EINVAL;
	}
	if (k == FE_LINK_UP) {
		edge_derive(dp, fab, i, d, cfg, &dv->epause);
		/* the edge pause sends the switch's pauses to its host as frames too */
		dv->pfc.frames |= dv->epause.quanta != 0;
	}
	if (k == FE_LINK_UP && fab->nic.model != FE_NIC_TCP && fab->nic.model != FE_NIC_HOST) {
		dv->line_bps = nic_rate(d);
		fe_dcqcn_compile(&fab->nic, dv->line_bps, dp->hz, &dv->cc);
		/* NSCC's MTU: the hosts' frames (their MTU of 1500) */
		fe_nscc_compile(dv->line_bps, nic_rtt(fab, fd), RTE_ETHER_MAX_LEN, dp->hz,
				&dv->nscc);
		fe_rccc_compile(dv->line_bps, nic_rtt(fab, fd), nic_mtu(), dp->hz, 0, &dv->rccc);
	}
	return 0;
}

void
fe_link_derived_apply(struct fe_dp *dp, unsigned n, const struct fe_link_derived *dv)
{
	struct fe_row *r = fe_dp_row(dp, n);
	unsigned i;
	const enum fe_link_kind k = fe_dp_link_kind(dp, n, &i);
	struct fe_nicport *nic = k != FE_LINK_HOP ? dp->ports[i].nic : NULL;

	/* the lossless state of the ingress the link feeds, whatever its kind (a down link's:
	 * none, derived as zeros) */
	r->pfc.cfg = dv->pfc;
	r->cred.return_ticks = dv->credit_return;
	fe_credit_set_update(&r->cred, dv->credit_update);
	if (k == FE_LINK_UP)
		dp->ports[i].epause.cfg = dv->epause;
	if (nic == NULL || nic->host)
		return;
	if (k == FE_LINK_UP) {
		nic->line_bps = dv->line_bps;
		nic->cc = dv->cc;
		nic->nscc = dv->nscc;
		nic->rccc = dv->rccc;
	} else {
		nic->rccc_rx = dv->rccc;
		nic->pcie_cfg = dv->pcie;
	}
}

/* Ticks link l's full buffer takes to drain at its rate; 0 with no rate or no limit. */
static uint64_t
drain_ticks(const struct fe_link *l)
{
	uint64_t bytes = l->cfg.max_bytes;

	if (l->cfg.max_pkts != UINT32_MAX)
		bytes = RTE_MIN(bytes, (uint64_t)l->cfg.max_pkts * nic_mtu());
	if (bytes >= UINT64_MAX / 2 || l->cfg.tpb_fp == 0)
		return 0;
	return fe_link_bytes_ticks(&l->cfg, bytes);
}

void
fe_nic_timeouts(struct fe_dp *dp)
{
	const struct fe_nic_params *prm = &dp->conf.nic;
	uint64_t drain = 0;

	for (unsigned n = 0; prm->timeout_path && n < dp->nlinks; n++) {
		drain = RTE_MAX(drain, drain_ticks(&fe_dp_row(dp, n)->l));
	}
	for (unsigned i = 0; i < dp->nports; i++) {
		struct fe_nicport *n = dp->ports[i].nic;

		if (n == NULL || n->host)
			continue;
		/* path: the round trip NSCC starts from (nic_rtt(), derived with the up link) */
		n->timeout_ticks = prm->timeout_path
					   ? n->nscc.net_rtt + FE_NIC_TIMEOUT_PATH_QUEUES * drain
					   : fe_ns_to_ticks(prm->timeout_ns, dp->hz);
	}
}

/* The shortest feedback delay of the regime (at least 1 us, so the loop terminates). */
uint64_t
fe_dp_causal_step(const struct fe_dp *dp)
{
	uint64_t step = UINT64_MAX, floor = dp->hz / 1000000;

	for (unsigned i = 0; i < dp->nports; i++) {
		const struct fe_port *p = &dp->ports[i];

		if (dp->conf.regime == FE_REGIME_PFC)
			step = RTE_MIN(step, p->up.pfc.cfg.delay_ticks);
		else if (dp->conf.regime == FE_REGIME_CREDIT)
			step = RTE_MIN(step, p->up.cred.return_ticks);
	}
	step = RTE_MIN(step, fe_graph_step(dp)); /* the links between switches */
	return RTE_MAX(step == UINT64_MAX ? floor : step, floor);
}

/*
 * The ports whose down link is offered a round's frames at its end, in the order of their
 * ticks (fe_egress.h): every port whose down link is not ideal. Not where a switch of
 * several has a limited memory: its links to other switches, offered as the pass comes to
 * them, would claim that memory ahead of its hosts' frames in every round. And whether
 * some switch's memory is limited: the ports' stages are then offered merged by their
 * ticks (fe_egress.c).
 */
uint64_t
fe_dp_stage_down(const struct fe_dp *dp, int pooled)
{
	const uint64_t all = dp->nports >= 64 ? UINT64_MAX : (UINT64_C(1) << dp->nports) - 1;

	return pooled && !dp->one_switch ? 0 : all & ~dp->ideal_down;
}

/*
 * Whether the links between switches are offered what a pass gives them in the order of
 * the ticks (fe_graph.h): lossy, unless a switch's memory is limited (the links' stages,
 * offered as the pass comes to each, would claim it ahead of the hosts' frames). None
 * without such links (one switch: a pipeline's, whose down lcore adopts a change while
 * the up lcore passes, never writes it).
 */
int
fe_dp_stage_hops(const struct fe_dp *dp, int pooled)
{
	return dp->graph != NULL && dp->graph->hstage != NULL && dp->graph->nhl > 0 && !pooled;
}

int
fe_dp_pooled(const struct fe_dp *dp)
{
	for (unsigned s = 0; s < dp->graph->nsw; s++)
		if (dp->graph->pool[s].limit != 0)
			return 1;
	return 0;
}

/*
 * The ports whose down link is ideal: it passes each packet through while it is empty,
 * and the burst fast path hands it frames straight from the ports. None under several
 * switches: a frame's way to its host's down link crosses the fabric (fe_graph.c).
 */
uint64_t
fe_dp_ideal_down(const struct fe_dp *dp)
{
	uint64_t mask = 0;

	if (!dp->one_switch)
		return 0;
	for (unsigned i = 0; i < dp->nports; i++)
		if (fe_link_ideal(&dp->ports[i].down.l) && !dp->ports[i].down.x.cfg.active &&
		    dp->ports[i].nic == NULL)
			mask |= UINT64_C(1) << i;
	return mask;
}
