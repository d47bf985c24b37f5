/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "fe_adopt.h"
#include "fe_derive.h"
#include "fe_dp.h"
#include "fe_egress.h"
#include "fe_graph.h"
#include "fe_hop.h"
#include "fe_nicport.h"
#include "fe_nictag.h"
#include "fe_time.h"
#include "fe_switch.h"

/* Below this, sleeping costs more than it saves: spin instead. */
#define FE_SLEEP_MIN_NS 1000
/* nanosleep wakes this late at worst on an idle machine (timer slack is set to 1 ns). */
#define FE_SLEEP_MARGIN_NS 15000

/* Port i's row r, its link of kind k, from its definition d (fe_row_setup()). */
static int
port_row_setup(struct fe_dp *dp, struct fe_row *r, enum fe_link_kind k, unsigned i,
	       const struct fe_linkdef *d, int socket, char *err, size_t errlen)
{
	const unsigned n = fe_dp_link_id(dp, k, i);
	char name[80];

	return fe_row_setup(dp, r, n, fe_dp_link_name(dp, n, name, sizeof(name)), d, NULL, socket,
			    err, errlen);
}

static int
port_setup(struct fe_dp *dp, unsigned i, uint16_t port_id, const struct fe_linkdef *up,
	   const struct fe_linkdef *down, int socket, char *err, size_t errlen)
{
	struct fe_port *p = &dp->ports[i];

	p->port_id = port_id;
	p->mac_cache = (struct fe_mac_cache){.src = UINT64_MAX, .dst = UINT64_MAX};
	p->wait_from = UINT64_MAX;
	if (rte_eth_dev_get_name_by_port(p->port_id, p->name) != 0)
		snprintf(p->name, sizeof(p->name), "port%u", p->port_id);
	dp->desc.up[i] = *up;
	dp->desc.down[i] = *down;
	/* its rows, the up link's PFC and credits with it (the switch's input queues are
	 * its graph's, fe_graph.c, as every switch's are) */
	if (port_row_setup(dp, &p->up, FE_LINK_UP, i, up, socket, err, errlen) < 0 ||
	    port_row_setup(dp, &p->down, FE_LINK_DOWN, i, down, socket, err, errlen) < 0)
		return -EINVAL;
	/* its switch's packet memory, shared by the switch's egress queues: fe_graph.c */
	p->down.l.acct = dp->held;
	return 0;
}

/*
 * The switch of a fabric without a topology: a graph of one switch, every port on it, no
 * link between switches, its floods' tree itself (fe_graph.h); else the topology's.
 */
static int
graph_setup(struct fe_dp *dp, const struct fe_graph_conf *topo, int socket, char *err,
	    size_t errlen)
{
	static const char name[1][32] = {"switch"};
	struct fe_graph_conf *c;
	uint16_t(*tree)[FE_GRAPH_SW];
	uint8_t *port_sw;
	int rc;

	if (topo != NULL)
		return fe_graph_create(dp, topo, socket, err, errlen);
	c = calloc(1, sizeof(*c));
	tree = calloc(FE_GRAPH_SW, sizeof(*tree));
	port_sw = calloc(dp->nports + 1, 1);
	/* the routes: none to compute (nnh and nh all 0); the tree: rooted at the switch */
	c->nnh = calloc(FE_GRAPH_SW, sizeof(*c->nnh));
	c->nh = calloc(FE_GRAPH_SW, sizeof(*c->nh));
	if (c == NULL || tree == NULL || port_sw == NULL || c->nnh == NULL || c->nh == NULL) {
		snprintf(err, errlen, "out of memory for the switch");
		rc = -ENOMEM;
		goto out;
	}
	tree[0][0] = UINT16_MAX;
	c->nsw = 1;
	c->sw_names = name;
	c->port_sw = port_sw;
	c->tree = (const uint16_t(*)[FE_GRAPH_SW])tree;
	c->path = FE_PATH_ECMP;
	rc = fe_graph_create(dp, c, socket, err, errlen);
out:
	if (c != NULL) {
		free((void *)c->nnh);
		free((void *)c->nh);
	}
	free(tree);
	free(port_sw);
	free(c);
	return rc;
}

/*
 * What every link derives from its configuration (fe_derive.h), at start: from the
 * fabric-wide settings as a change gives them.
 */
static int
derive_setup(struct fe_dp *dp, char *err, size_t errlen)
{
	const struct fe_fabric fab = {.regime = dp->conf.regime,
				      .lanes = dp->conf.lanes,
				      .lane_map = dp->conf.lane_map,
				      .switch_buffer = dp->conf.switch_buffer,
				      .pfc = dp->conf.pfc,
				      .credit = dp->conf.credit,
				      .nic = dp->conf.nic};
	struct fe_fabric_derived fd;

	fe_fabric_derive(dp, NULL, NULL, NULL, &fd);
	for (unsigned n = 0; n < dp->nlinks; n++) {
		const struct fe_linkdef *d = fe_dp_link_def(dp, n);
		const struct fe_link_cfg *cfg = &fe_dp_row(dp, n)->l.cfg;
		struct fe_link_derived dv;

		if (fe_link_derive(dp, &fab, &fd, n, d, cfg, &dv, err, errlen) < 0)
			return -EINVAL;
		fe_link_derived_apply(dp, n, &dv);
	}
	return 0;
}

/* Pipeline: one ring per egress port from the up stage to the down stage. */
static int
handoff_setup(struct fe_dp *dp, int socket, char *err, size_t errlen)
{
	if (dp->conf.regime != FE_REGIME_LOSSY) {
		snprintf(err, errlen,
			 "--lcores 2: only the lossy regime runs as a pipeline (the "
			 "lossless ones are one causal loop)");
		return -EINVAL;
	}
	dp->handoff =
		rte_zmalloc_socket("fe_handoff", sizeof(*dp->handoff) * dp->nports, 0, socket);
	if (dp->handoff == NULL)
		goto nomem;
	for (unsigned i = 0; i < dp->nports; i++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "fe_handoff%u", i);
		dp->handoff[i] = rte_ring_create_elem(name, sizeof(struct fe_link_offer), 4096,
						      socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (dp->handoff[i] == NULL)
			goto nomem;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the pipeline's rings");
	return -ENOMEM;
}

static int
measure_setup(struct fe_dp *dp, uint32_t samples, int socket, char *err, size_t errlen)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "fabemu_rx_tsc",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};
	int off = rte_mbuf_dynfield_register(&desc);

	dp->meas = rte_zmalloc_socket("fe_measure", sizeof(*dp->meas), RTE_CACHE_LINE_SIZE, socket);
	if (off < 0 || dp->meas == NULL || (samples & (samples - 1)) != 0) {
		snprintf(err, errlen, "--measure: cannot set up %u samples", samples);
		return -EINVAL;
	}
	dp->meas->ticks = rte_zmalloc_socket("fe_measure", sizeof(uint32_t) * samples,
					     RTE_CACHE_LINE_SIZE, socket);
	dp->meas->call_ticks = rte_zmalloc_socket("fe_measure", sizeof(uint32_t) * samples,
						  RTE_CACHE_LINE_SIZE, socket);
	if (dp->meas->ticks == NULL || dp->meas->call_ticks == NULL) {
		snprintf(err, errlen, "--measure: out of memory for %u samples", samples);
		return -ENOMEM;
	}
	dp->meas->dynoff = off;
	dp->meas->mask = samples - 1;
	return 0;
}

/* The emulated NICs (docs/nic.md): one lcore, a field in every mbuf, one per port. */
static int
nic_setup(struct fe_dp *dp, int socket, char *err, size_t errlen)
{
	if (dp->conf.lcores > 1) {
		snprintf(err, errlen,
			 "--lcores 2: the NIC model %s runs on one lcore (its two edges meet)",
			 fe_nic_model_name(dp->conf.nic.model));
		return -EINVAL;
	}
	if (dp->nports > 255) {
		snprintf(err, errlen, "the NIC model takes at most 255 ports");
		return -EINVAL;
	}
	static unsigned pools; /* a name of its own for each engine made */
	char name[RTE_MEMPOOL_NAMESIZE];

	if (dp->conf.nic.model == FE_NIC_UEC &&
	    (dp->conf.nic.trim_bytes < 60 || dp->conf.nic.trim_bytes > 256)) {
		snprintf(err, errlen, "nic trim %u: allowed 60 to 256 bytes",
			 dp->conf.nic.trim_bytes);
		return -EINVAL;
	}

	dp->nic_dynoff = fe_nic_field();
	dp->nic_pulloff = dp->nic_dynoff < 0 ? -1 : fe_nic_pull_field();
	if (dp->nic_dynoff < 0 || dp->nic_pulloff < 0) {
		snprintf(err, errlen, "no mbuf field for the NIC: %s", rte_strerror(rte_errno));
		return -EINVAL;
	}
	/* the NICs' own frames (62 bytes) and the trimmed headers (the NIC's trim size) come
	 * from a pool of their own: frames the NICs keep for a resend and hold in their
	 * queues cannot starve the ACKs that free them */
	snprintf(name, sizeof(name), "fe_nicctl%u", pools++);
	dp->nic_pool = rte_pktmbuf_pool_create(
		name, 8191, 256, 0,
		(uint16_t)(RTE_PKTMBUF_HEADROOM + RTE_MAX(128u, dp->conf.nic.trim_bytes)), socket);
	if (dp->nic_pool == NULL) {
		snprintf(err, errlen, "no pool for the NICs' frames: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	dp->nic_ids = dp->nports;
	dp->trim = dp->conf.regime == FE_REGIME_LOSSY && dp->conf.nic.model == FE_NIC_UEC;
	dp->nic_trimmed = fe_nic_trimmed;   /* the links reach the NIC edge, above them, so */
	dp->hop_trimmed = fe_graph_trimmed; /* ... and the graph's priority queues */
	if (dp->conf.graph != NULL && dp->conf.graph->trunk != NULL &&
	    fe_nic_remote_setup(dp, dp->conf.graph->nall, socket, err, errlen) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < dp->nports; i++)
		if (fe_nic_setup(dp, i, socket, err, errlen) < 0)
			return -ENOMEM;
	return 0;
}

struct fe_dp *
fe_dp_create(unsigned nports, const uint16_t *port_ids, const struct fe_linkdef *up,
	     const struct fe_linkdef *down, struct rte_mempool *pool, uint64_t hz,
	     const struct fe_dp_conf *conf, char *err, size_t errlen)
{
	int socket = (int)rte_socket_id();
	struct fe_dp *dp;

	dp = rte_zmalloc_socket("fe_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE, socket);
	if (dp == NULL)
		goto nomem;
	dp->nports = nports;
	dp->pool = pool;
	dp->hz = hz;
	dp->conf = *conf;
	fe_rng_seed(&dp->order_rng, conf->seed, 0x0de7);
	dp->conf.wire = NULL; /* the caller's: each port keeps its own copy (port_setup()) */
	dp->rg = fe_regime_ops(conf->regime);
	if (dp->rg == NULL) {
		snprintf(err, errlen, "regime %d: unknown", (int)conf->regime);
		goto fail;
	}
	dp->hoq_ticks = fe_ns_to_ticks(conf->credit.hoq_life_ns, hz);
	if (conf->regime == FE_REGIME_PFC) /* the watchdog is PFC's (else 0: off) */
		fe_pfc_wd_compile(&dp->wd, &conf->pfc, hz);
	dp->filter_dynoff = fe_filter_dynoff();
	if (dp->filter_dynoff < 0) {
		snprintf(err, errlen, "no mbuf field for filter verdicts: %s",
			 rte_strerror(rte_errno));
		goto fail;
	}
	if (conf->lanes < 1 || conf->lanes > FE_LANES_MAX) {
		snprintf(err, errlen, "lanes %u: allowed 1 to %d", conf->lanes, FE_LANES_MAX);
		goto fail;
	}
	/* a box of a fabric split across boxes may have none (its switches' hosts elsewhere) */
	dp->ports = rte_zmalloc_socket("fe_ports", sizeof(*dp->ports) * (nports ? nports : 1),
				       RTE_CACHE_LINE_SIZE, socket);
	dp->mac = rte_zmalloc_socket("fe_mac", sizeof(*dp->mac), RTE_CACHE_LINE_SIZE, socket);
	/* as given: every port's links, and each direction of a link between switches */
	dp->desc.up = rte_zmalloc("fe_desc", sizeof(*dp->desc.up) * (nports ? nports : 1), 0);
	dp->desc.down = rte_zmalloc("fe_desc", sizeof(*dp->desc.down) * (nports ? nports : 1), 0);
	dp->desc.hop = rte_zmalloc(
		"fe_desc", sizeof(*dp->desc.hop) * (conf->graph ? 2 * conf->graph->nlinks : 1), 0);
	/* per input x priority: the ports, then (several switches) each hop link's direction */
	dp->held = rte_zmalloc_socket(
		"fe_held",
		sizeof(*dp->held) * (nports + (conf->graph ? 2 * conf->graph->nlinks : 0)) *
			FE_PFC_PRIOS,
		RTE_CACHE_LINE_SIZE, socket);
	dp->qsv = rte_zmalloc_socket("fe_qsv", rte_rcu_qsbr_get_memsize(2), RTE_CACHE_LINE_SIZE,
				     socket);
	/* lossy: a host's down link takes a round's frames in tick order (fe_egress.h) */
	if (conf->regime == FE_REGIME_LOSSY)
		dp->estage =
			rte_zmalloc_socket("fe_estage", sizeof(*dp->estage) * (nports ? nports : 1),
					   RTE_CACHE_LINE_SIZE, socket);
	if (dp->ports == NULL || dp->mac == NULL || dp->held == NULL || dp->qsv == NULL ||
	    (conf->regime == FE_REGIME_LOSSY && dp->estage == NULL) || dp->desc.up == NULL ||
	    dp->desc.down == NULL || dp->desc.hop == NULL || rte_rcu_qsbr_init(dp->qsv, 2) != 0)
		goto nomem;
	/* the ports' frames come in mbufs of this pool: none is larger than its room */
	dp->max_frame =
		RTE_MAX((uint32_t)RTE_ETHER_MAX_LEN,
			(uint32_t)(rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM));
	fe_mac_init(dp->mac, fe_ns_to_ticks(conf->mac_age_ns, hz));
	dp->mac_cache_ticks = fe_ns_to_ticks(RTE_MIN(conf->mac_age_ns, FE_MAC_CACHE_NS), hz);
	for (unsigned i = 0; i < nports; i++) {
		if (conf->wire != NULL) /* before the links derive their edge pause from it */
			dp->ports[i].wire = conf->wire[i];
		if (port_setup(dp, i, port_ids[i], &up[i], &down[i], socket, err, errlen) < 0)
			goto fail;
	}
	if (conf->nic.model != FE_NIC_TCP && nic_setup(dp, socket, err, errlen) < 0)
		goto fail;
	/* one switch is a graph of one (fe_graph.h): every switch runs the same code */
	dp->topology = conf->graph != NULL;
	if (graph_setup(dp, conf->graph, socket, err, errlen) < 0)
		goto fail;
	dp->one_switch = dp->graph->nsw == 1 && dp->graph->ntrunks == 0;
	dp->nlinks = fe_dp_link_id(dp, FE_LINK_HOP, dp->graph->nhl); /* the table's rows */
	if (conf->measure && measure_setup(dp, conf->measure, socket, err, errlen) < 0)
		goto fail;
	if (conf->lcores > 1 && handoff_setup(dp, socket, err, errlen) < 0)
		goto fail;
	if (derive_setup(dp, err, errlen) < 0)
		goto fail;
	dp->ns_fp = fe_ns_fp(hz);
	dp->step = fe_dp_causal_step(dp);
	dp->ideal_down = fe_dp_ideal_down(dp);
	dp->pooled = (uint8_t)fe_dp_pooled(dp);
	dp->stage_down = fe_dp_stage_down(dp, dp->pooled);
	if (dp->graph != NULL)
		dp->graph->stage_hops = (uint8_t)fe_dp_stage_hops(dp, dp->pooled);
	fe_nic_timeouts(dp);
	dp->start_tsc = rte_rdtsc();
	dp->horizon = dp->start_tsc;
	return dp;
nomem:
	snprintf(err, errlen, "out of memory for %u ports", nports);
fail:
	fe_dp_free(dp);
	return NULL;
}

void
fe_dp_free(struct fe_dp *dp)
{
	if (dp == NULL)
		return;
	for (unsigned i = 0; dp->ports && i < dp->nports; i++) {
		fe_row_free(&dp->ports[i].up);
		fe_row_free(&dp->ports[i].down);
		fe_nic_free(dp->ports[i].nic);
	}
	rte_free(dp->ports);
	rte_free(dp->desc.up);
	rte_free(dp->desc.down);
	rte_free(dp->desc.hop);
	fe_graph_free(dp->graph);
	fe_nic_remote_free(dp);
	rte_mempool_free(dp->nic_pool);
	rte_free(dp->mac);
	rte_free(dp->held);
	rte_free(dp->qsv);
	for (unsigned i = 0; dp->handoff && i < dp->nports; i++)
		rte_ring_free(dp->handoff[i]);
	rte_free(dp->handoff);
	rte_free(dp->estage);
	if (dp->meas) {
		rte_free(dp->meas->ticks);
		rte_free(dp->meas->call_ticks);
	}
	rte_free(dp->meas);
	rte_free(dp);
}

/*
 * The frames port `in` may be read: with an emulated NIC its send queue is the adapter's
 * queue (it feeds the up link). The edge pause (fe_wire) looks at the whole room.
 */
static __rte_always_inline uint16_t
rx_room(struct fe_dp *dp, unsigned in, uint64_t now, const enum fe_regime R)
{
	struct fe_port *p = &dp->ports[in];
	uint32_t room;

	/* lossless: the adapter queue's room too (frames the NIC passes go straight in) */
	if (p->nic != NULL && !p->nic->host)
		room = R == FE_REGIME_LOSSY
			       ? fe_nic_room(p)
			       : RTE_MIN(fe_nic_room(p), fe_dp_up_room(dp, p, now, UINT32_MAX));
	else
		room = R == FE_REGIME_LOSSY ? FE_BURST : fe_dp_up_room(dp, p, now, UINT32_MAX);
	if (unlikely(p->epause.cfg.quanta != 0)) /* the regime, fixed at start, keeps it */
		fe_switch_edge_pause(dp, in, room, now);
	return (uint16_t)RTE_MIN(room, (uint32_t)FE_BURST);
}

/*
 * A pass drains the ports' rings, up to FE_DRAIN_BURSTS bursts each: the kernel side
 * of AF_XDP/AF_PACKET drops what does not fit in its ring, so a pass that moved one
 * burst would lose TCP's line-rate bursts at the edge. Each burst goes through the
 * switch and out before the next is read, while its mbufs are still in the cache.
 */
#define FE_DRAIN_BURSTS 16

/* One RX burst of port `in` into its up link; 1 in *full if the port may have more. */
static __rte_always_inline unsigned
port_rx(struct fe_dp *dp, unsigned in, uint64_t now, int *full, const enum fe_regime R)
{
	struct fe_port *p = &dp->ports[in];
	struct rte_mbuf *pkts[FE_BURST];
	uint16_t n, room = rx_room(dp, in, now, R);
	uint64_t bytes = 0, stamp[FE_BURST];
	uint32_t slen[FE_BURST];
	unsigned ready = 0;

	if (room == 0) {
		FE_CNT_ADD(p->st.rx_held, 1);
		p->edge.held = 1;
		return 0;
	}
	if (p->edge.base != NULL) { /* the kernel's receive stamps, before the PMD reads them */
		ready = fe_edge_peek(&p->edge, room, stamp, slen);
		if (ready == 0 && !fe_edge_idle_burst(&p->edge))
			return 0; /* empty: what comes now is read at the next look, stamped */
	}
	n = rte_eth_rx_burst(p->port_id, 0, pkts, room);
	if (n == 0)
		return 0;
	/* live, the packets are offered when the burst returned, not when the pass began
	 * (the pass may have been long, or descheduled); a fake clock stays as given */
	if (dp->live) {
		now = RTE_MAX(now, rte_rdtsc());
		/* lossless: the up link takes the burst as rx_room() found room, looking at its
		 * buffer as it is now (fe_linkop_offer_x(), room): what left it by now has left */
		if (R != FE_REGIME_LOSSY)
			fe_link_advance(&p->up.l, now);
	}
	if (p->edge.base != NULL) {
		/* the kernel's clock, as the kernel stamped the frames: with the TSC as the
		 * clocksource (fe_kernel.c checks) the vDSO reads it, no system call */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		fe_edge_account(&p->edge, &p->edge_st, pkts, n, ready, stamp, slen,
				(uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec);
	}
	if (unlikely(dp->meas != NULL))
		fe_measure_rx(dp->meas, pkts, n, now);
	/* the switch reads every header: start those loads for the whole burst first */
	for (uint16_t i = 0; i < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
		fe_filter_forget(pkts[i], dp->filter_dynoff); /* a recycled mbuf's is stale */
	}
	if (p->nic != NULL && !p->nic->host)
		fe_nic_rx(dp, in, pkts, n, now);
	else
		FE_RG_CALL(R, fe_switch_ingress_burst, dp, in, pkts, n, bytes, now);
	*full |= n == room;
	FE_CNT_ADD(p->st.rx_pkts, n);
	FE_CNT_ADD(p->st.rx_bytes, bytes);
	return n;
}

/*
 * Move what the up link of `in` delivered by now across the switch, a burst at a time.
 * real: the clock as it is (the lossless regimes step `now` behind it): each frame is
 * as late as the switch takes it after its arrival.
 */
static __rte_always_inline unsigned
port_switch(struct fe_dp *dp, unsigned in, uint64_t now, uint64_t real, const enum fe_regime R)
{
	struct fe_link *up = &dp->ports[in].up.l;
	uint64_t stamps[FE_BURST];
	void *pkts[FE_BURST];
	unsigned n, total = 0;

	for (unsigned b = 0; b < FE_DRAIN_BURSTS; b++) {
		n = fe_link_dequeue(up, now, pkts, stamps, FE_BURST);
		for (unsigned k = 0; k < n; k++)
			fe_link_late(up, real - stamps[k]);
		if (n)
			fe_rg_arrive_burst(R, dp, in, (struct rte_mbuf **)pkts, stamps, n);
		total += n;
		if (n < FE_BURST)
			break;
	}
	return total;
}

/*
 * Each frame the port took left the down link this late. Frames staged together share a
 * due tick (a burst staged whole was due when it was read): one bucket for each run of
 * them.
 */
static inline void
tx_lateness(struct fe_port *p, uint16_t sent, uint64_t tx_tsc)
{
	uint64_t *d = p->txq_due, kept;

	if (sent == 0)
		return;
	/* a sentinel after the last one sent ends every run (one compare a frame); what it
	 * covers, a frame still staged, is put back */
	kept = d[sent];
	d[sent] = ~d[sent - 1];
	for (uint16_t k = 0, j; k < sent; k = j) {
		const uint64_t due = d[k];

		for (j = k + 1; d[j] == due; j++)
			;
		if (due != FE_DUE_NONE)
			fe_link_late_n(&p->down.l, tx_tsc - RTE_MIN(tx_tsc, due), j - k);
	}
	d[sent] = kept;
}

/* One TX burst: staged packets first, then what the down link delivers by now. */
static inline uint16_t
tx_burst(struct fe_dp *dp, unsigned i, uint64_t now)
{
	struct fe_tap *tap = fe_tap_on(&dp->tap, fe_dp_link_id(dp, FE_LINK_DOWN, i));
	struct fe_port *p = &dp->ports[i];
	uint64_t bytes, tx_tsc;
	uint16_t sent;

	RTE_BUILD_BUG_ON(FE_BURST > FE_MEASURE_BURST);

	if (p->nic != NULL) {
		fe_nic_release(dp, i, now);
		if (p->txq_n < FE_BURST) {
			void *in[FE_BURST];
			uint64_t due[FE_BURST];
			unsigned n = fe_link_dequeue(&p->down.l, now, in, due, FE_BURST - p->txq_n);

			for (unsigned k = 0; unlikely(tap != NULL) && k < n; k++)
				fe_tap_pkt(tap, in[k], due[k], FE_TAP_DELIVERED);
			fe_nic_deliver(dp, i, (struct rte_mbuf **)in, due, n, now);
		}
	} else if (p->txq_n < FE_BURST) {
		unsigned n = fe_link_dequeue(&p->down.l, now, (void **)&p->txq[p->txq_n],
					     &p->txq_due[p->txq_n], FE_BURST - p->txq_n);

		for (unsigned k = 0; unlikely(tap != NULL) && k < n; k++)
			fe_tap_pkt(tap, p->txq[p->txq_n + k], p->txq_due[p->txq_n + k],
				   FE_TAP_DELIVERED);
		for (unsigned k = 0; k < n; k++)
			p->txq_bytes += rte_pktmbuf_pkt_len(p->txq[p->txq_n + k]);
		p->txq_n += n;
	}
	if (p->txq_n == 0)
		return 0;
	/* nothing is read from a sent mbuf: a PMD that copies (AF_PACKET, AF_XDP, pcap)
	 * frees it inside the call, and a freed mbuf may already be another's. Timed
	 * when handed to the port: a veth's TX runs the receiving host's stack. */
	tx_tsc = dp->live ? rte_rdtsc() : now;
	if (unlikely(dp->meas != NULL))
		fe_measure_tx_pre(dp->meas, p->txq, p->txq_n);
	sent = rte_eth_tx_burst(p->port_id, 0, p->txq, p->txq_n);
	tx_lateness(p, sent, tx_tsc);
	if (unlikely(dp->meas != NULL)) {
		fe_measure_tx_call(dp->meas, rte_rdtsc() - tx_tsc);
		fe_measure_tx(dp->meas, i, sent, tx_tsc,
			      fe_link_count(&p->down.l) > fe_link_count_wire(&p->down.l));
	}
	bytes = p->txq_bytes;
	p->txq_bytes = 0;
	if (sent < p->txq_n) {
		/* nothing is dropped here: the rest waits, in order, for the next pass */
		for (uint16_t k = sent; k < p->txq_n; k++)
			p->txq_bytes += rte_pktmbuf_pkt_len(p->txq[k]);
		bytes -= p->txq_bytes;
		FE_CNT_ADD(p->st.tx_busy, 1);
		memmove(p->txq, p->txq + sent, (p->txq_n - sent) * sizeof(p->txq[0]));
		memmove(p->txq_due, p->txq_due + sent, (p->txq_n - sent) * sizeof(p->txq_due[0]));
	}
	FE_CNT_ADD(p->st.tx_pkts, sent);
	FE_CNT_ADD(p->st.tx_bytes, bytes);
	p->txq_n -= sent;
	return sent;
}

/* Send what is due, a burst at a time, until the port stops taking or nothing is due. */
static inline unsigned
port_tx(struct fe_dp *dp, unsigned i, uint64_t now)
{
	unsigned total = 0;

	for (unsigned b = 0; b < FE_DRAIN_BURSTS; b++) {
		uint16_t sent = tx_burst(dp, i, now);

		total += sent;
		if (sent < FE_BURST)
			break;
	}
	return total;
}

/*
 * Lossless regimes are causal loops: a sender may start a packet at s only if the
 * switch has seen every arrival that could have paused it (PFC) or taken back its
 * credits before s. Feedback takes at least dp->step ticks (the pause reaction, the
 * credit return), so time advances in steps no longer than that: arrivals up to h,
 * the switch, senders up to h, and what is due at the hosts. After the loop was held
 * up (preempted, asleep) it catches up the whole interval in the same order, never
 * in one burst; with nothing in flight there is nothing to catch up.
 */
static __rte_always_inline unsigned
lossless_advance(struct fe_dp *dp, uint64_t now, const enum fe_regime R)
{
	uint64_t h = dp->horizon;
	unsigned work = 0;

	if (h + dp->step < now && fe_dp_held(dp) == 0)
		h = now - dp->step;
	do {
		h = RTE_MIN(h + dp->step, now);
		for (unsigned i = 0; i < dp->nports; i++)
			work += port_switch(dp, i, h, now, R);
		if (dp->graph != NULL) /* hop by hop, before the ports' XON reads what is held */
			work += fe_rg_graph_service(R, dp, h);
		work += fe_rg_service(R, dp, h);
		for (unsigned i = 0; i < dp->nports; i++)
			if (R == FE_REGIME_CREDIT) /* gate inlined: once a packet */
				work += fe_link_pump_inline(&dp->ports[i].up.l, h,
							    fe_credit_gate_inline,
							    &dp->ports[i].up.cred);
			else
				work += fe_link_pump_inline(&dp->ports[i].up.l, h,
							    fe_pfc_gate_inline,
							    &dp->ports[i].up.pfc);
		if (h < now)
			for (unsigned i = 0; i < dp->nports; i++)
				work += port_tx(dp, i, h);
	} while (h < now);
	dp->horizon = now;
	return work;
}

/*
 * A burst boundary: take a published fabric change, a counter reset, a hold, each for
 * the part of the engine the caller's role owns, and acknowledge it.
 */
static inline void
ctl_requests(struct fe_dp *dp, uint64_t now, unsigned role)
{
	uint64_t gen = __atomic_load_n(&dp->update_gen, __ATOMIC_ACQUIRE);
	uint64_t reset = __atomic_load_n(&dp->reset_req, __ATOMIC_ACQUIRE);
	uint64_t hold = __atomic_load_n(&dp->hold_req, __ATOMIC_ACQUIRE);
	struct fe_dp_acks *ack = role == FE_ROLE_DOWN ? &dp->down_acks : NULL;
	uint64_t *adopted = ack ? &ack->adopted_gen : &dp->adopted_gen;
	uint64_t *reset_done = ack ? &ack->reset_done : &dp->reset_done;
	uint64_t *hold_done = ack ? &ack->hold_done : &dp->hold_done;

	if (unlikely(gen != *adopted)) /* the update its generation came with */
		fe_adopt(dp, __atomic_load_n(&dp->update, __ATOMIC_RELAXED), role);
	if (unlikely(reset != *reset_done)) {
		fe_adopt_reset(dp, role, now);
		__atomic_store_n(reset_done, reset, __ATOMIC_RELEASE);
	}
	if (unlikely(hold != *hold_done)) {
		unsigned q;
		const enum fe_link_kind k = fe_dp_port_link(dp->hold_link, &q);
		struct fe_port *p = &dp->ports[q];
		unsigned owner = k == FE_LINK_DOWN ? FE_ROLE_DOWN : FE_ROLE_UP;

		if (role & owner) {
			if (k == FE_LINK_DOWN) /* a host's pause: the watchdog times it */
				fe_switch_hold_down(dp, q, now, now + dp->hold_ticks);
			else
				fe_link_hold(&p->up.l, now, now + dp->hold_ticks);
		}
		__atomic_store_n(hold_done, hold, __ATOMIC_RELEASE);
	}
}

/* Lossy: what the links between switches and the hosts' down links hold staged, offered
 * (fe_hop.h, fe_egress.h): the links between switches first, as a pass does. */
static inline void
stages_flush(struct fe_dp *dp)
{
	if (dp->graph != NULL && dp->graph->nstaged > 0)
		fe_hop_stages_flush(dp);
	if (dp->estaged)
		fe_egress_flush(dp);
}

/*
 * One pass of the stages `role` owns: RX a burst a port into the up links and across
 * the switch, then (unless a down stage does it) send, repeated while ports are full.
 */
static __rte_always_inline unsigned
poll_bursts(struct fe_dp *dp, uint64_t now, unsigned role, const enum fe_regime R)
{
	unsigned work = 0;

	ctl_requests(dp, now, role);
	for (unsigned b = 0; b < FE_DRAIN_BURSTS; b++) {
		int full = 0;

		/* live, each round runs at its own time: what the last round read is due
		 * by now (a link's delay has passed) and goes on while it is in the cache */
		if (b > 0 && dp->live)
			now = rte_rdtsc();

		for (unsigned i = 0; i < dp->nports; i++)
			work += port_rx(dp, i, now, &full, R);
		if (R == FE_REGIME_LOSSY) {
			const struct fe_order o = fe_order_draw(&dp->order_rng, dp->nports);

			/* what the links between switches delivered by now goes before what the
			 * hosts' up links did in half the passes, after it in the others (then
			 * again below, for what the hosts' frames made due) */
			if (dp->graph != NULL && o.back && !dp->graph->stage_hops)
				work += fe_graph_service_lossy(dp, now);
			for (unsigned j = 0, i = o.at; j < dp->nports;
			     j++, i = fe_order_next(&o, i, dp->nports))
				work += port_switch(dp, i, now, now, R);
			if (dp->graph != NULL)
				work += fe_graph_service_lossy(dp, now);
			if (dp->estaged) /* a host's down link, a round's frames by their ticks */
				fe_egress_flush(dp);
		} else {
			work += lossless_advance(dp, now, R);
		}
		for (unsigned i = 0; (role & FE_ROLE_DOWN) && i < dp->nports; i++)
			work += port_tx(dp, i, now);
		/* the NICs last (they run on one lcore, all roles): what came due by now has
		 * reached them (an ACK, a NAK), and their timers go after it */
		if (dp->conf.nic.model != FE_NIC_TCP && dp->conf.nic.model != FE_NIC_HOST) {
			work += fe_nic_service(dp, now);
			/* what a NIC sent crossed an up link that passes it through */
			if (R == FE_REGIME_LOSSY)
				stages_flush(dp);
		}
		if (!full)
			break;
	}
	FE_CNT_ADD(dp->idle.polls, 1);
	return work;
}

/* The loop's pass, once a regime (fe_regime.h): the regime a constant in each. */
unsigned
fe_dp_pass_lossy(struct fe_dp *dp, uint64_t now, unsigned role)
{
	return poll_bursts(dp, now, role, FE_REGIME_LOSSY);
}

unsigned
fe_dp_pass_pfc(struct fe_dp *dp, uint64_t now, unsigned role)
{
	return poll_bursts(dp, now, role, FE_REGIME_PFC);
}

unsigned
fe_dp_pass_credit(struct fe_dp *dp, uint64_t now, unsigned role)
{
	return poll_bursts(dp, now, role, FE_REGIME_CREDIT);
}

unsigned
fe_dp_poll(struct fe_dp *dp, uint64_t now)
{
	return dp->rg->pass(dp, now, FE_ROLE_ALL);
}

/* The pipeline's down stage: the handoff rings into the down links, and TX. */
static unsigned
poll_down(struct fe_dp *dp, uint64_t now)
{
	unsigned work = 0;

	ctl_requests(dp, now, FE_ROLE_DOWN);
	for (unsigned i = 0; i < dp->nports; i++) {
		work += fe_switch_handoff_in(dp, i, now);
		work += port_tx(dp, i, now);
	}
	return work;
}

unsigned
fe_dp_poll_role(struct fe_dp *dp, enum fe_dp_role role, uint64_t now)
{
	return role == FE_ROLE_DOWN ? poll_down(dp, now) : dp->rg->pass(dp, now, role);
}

uint64_t
fe_dp_next_event(const struct fe_dp *dp, uint64_t now)
{
	const uint64_t after = dp->rg->due_waits ? now : 0;
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < dp->nports; i++) {
		const struct fe_port *p = &dp->ports[i];

		if (p->txq_n || (dp->handoff && rte_ring_count(dp->handoff[i])))
			return 0;
		next = fe_later(next, fe_link_next_arrival(&p->up.l), after);
		next = fe_later(next, fe_link_next_start(&p->up.l), after);
		next = fe_later(next, fe_credit_next(&p->up.cred), after); /* none: UINT64_MAX */
		next = fe_later(next, fe_link_next_arrival(&p->down.l), after);
		if (after) /* credits: a frame leaving the down link frees room for an input */
			next = fe_later(next, fe_link_next_leave(&p->down.l), after);
		if (p->nic != NULL) /* its 0 is "now": work was left (activate()) */
			next = RTE_MIN(next, RTE_MIN(p->nic->next_event, p->nic->gap_next));
		if (dp->wd.ticks == 0) /* no PFC watchdog (it is compiled under PFC only) */
			continue;
		if (p->storm_until != 0) { /* the watchdog's storm ends */
			next = fe_later(next, p->storm_until, after);
		} else { /* ... or starts: a pause not over yet, a head that waits */
			uint64_t due = fe_pfc_wd_due(&dp->wd, p->hold_from, p->wait_from);

			if (p->down.l.hold_until > RTE_MAX(dp->horizon, due))
				next = fe_later(next, due, after);
		}
	}
	return RTE_MIN(next, fe_graph_next_event(dp, after));
}

uint64_t
fe_dp_held(const struct fe_dp *dp)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < dp->nports; i++)
		n += dp->ports[i].txq_n + fe_link_count(&dp->ports[i].up.l) +
		     fe_link_count(&dp->ports[i].down.l) +
		     (dp->handoff ? rte_ring_count(dp->handoff[i]) : 0);
	return n + fe_nic_held(dp) + fe_graph_held(dp);
}

/*
 * Idle policy. After idle_spin empty passes the loop sleeps, doubling the sleep up to
 * idle_sleep_ns; a packet that arrives meanwhile waits in the port's ring for at most
 * that long (the latency cost). A queued packet's due time is never overslept: the
 * sleep ends FE_SLEEP_MARGIN_NS before it and the loop spins to the exact tick.
 */
static uint64_t
idle_sleep_ns(const struct fe_dp *dp, uint64_t now, uint64_t backoff)
{
	uint64_t next = fe_dp_next_event(dp, now), budget;

	if (next == UINT64_MAX)
		return backoff;
	if (next <= now)
		return 0;
	budget = fe_ticks_to_ns(next - now, dp->hz);
	if (budget < FE_SLEEP_MARGIN_NS + FE_SLEEP_MIN_NS)
		return 0;
	return RTE_MIN(backoff, budget - FE_SLEEP_MARGIN_NS);
}

/*
 * The loop of one lcore and role. In a pipeline each stage sleeps on its own when idle:
 * the down stage does not know when the up stage will hand it a packet, so a packet
 * may wait in the handoff ring for up to the idle sleep (use --idle-sleep 0s there).
 */
void
fe_dp_run_role(struct fe_dp *dp, enum fe_dp_role role, const volatile int *stop)
{
	uint64_t exit_idle = fe_ns_to_ticks(dp->conf.exit_idle_ns, dp->hz);
	uint64_t backoff = FE_SLEEP_MIN_NS, idle_since = rte_rdtsc(), last = 0;
	unsigned empty = 0, tid = role == FE_ROLE_DOWN;

	dp->live = 1;
	__atomic_store_n(&dp->lcore_tid[tid], rte_sys_gettid(), __ATOMIC_RELEASE);
	rte_rcu_qsbr_thread_register(dp->qsv, tid);
	rte_rcu_qsbr_thread_online(dp->qsv, tid);
	while (!*stop) {
		uint64_t now = rte_rdtsc(), ns, t;
		unsigned work;

		/* one writer: the down stage of a pipeline does not count */
		if (last && (role & FE_ROLE_UP))
			FE_CNT_ADD(
				dp->idle.pass_hist[fe_qhist_bucket(fe_dp_tsc_ns(dp, now - last))],
				1);
		last = now;
		work = fe_dp_poll_role(dp, role, now);

		/* nothing from a previous fabric update is referenced past this point */
		rte_rcu_qsbr_quiescent(dp->qsv, tid);
		if (work) {
			idle_since = now;
			empty = 0;
			backoff = FE_SLEEP_MIN_NS;
			continue;
		}
		/* only --exit-idle needs to know whether packets are on their way: counting
		 * them reads the other stage's rings and links, whose cache lines the other
		 * lcore is writing (a busy-polling stage would take them away on every pass) */
		if (exit_idle) {
			if (fe_dp_held(dp) || fe_nic_inflight(dp))
				idle_since = now; /* packets on their way: not idle */
			else if (now - idle_since > exit_idle)
				break;
		}
		if (dp->conf.idle_sleep_ns == 0 || ++empty < dp->conf.idle_spin)
			continue;
		ns = idle_sleep_ns(dp, now, backoff);
		if (ns < FE_SLEEP_MIN_NS)
			continue;
		if (role & FE_ROLE_UP) { /* one writer: the down stage does not count */
			FE_CNT_ADD(dp->idle.sleeps, 1);
			FE_CNT_ADD(dp->idle.slept_ns, ns);
		}
		t = rte_rdtsc();
		nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = (long)ns}, NULL);
		last = 0; /* the next pass follows a sleep: not a pass's length */
		if (role & FE_ROLE_UP) {
			t = fe_dp_tsc_ns(dp, rte_rdtsc() - t);
			FE_CNT_ADD(dp->idle.wake_late_hist[fe_qhist_bucket(t > ns ? t - ns : 0)],
				   1);
		}
		backoff = RTE_MIN(backoff * 2, dp->conf.idle_sleep_ns);
	}
	rte_rcu_qsbr_thread_offline(dp->qsv, tid);
	rte_rcu_qsbr_thread_unregister(dp->qsv, tid);
}

void
fe_dp_run(struct fe_dp *dp, const volatile int *stop)
{
	fe_dp_run_role(dp, FE_ROLE_ALL, stop);
}

void
fe_dp_set_edge(struct fe_dp *dp, unsigned port, const struct fe_edge_ring *ring)
{
	if (port >= dp->nports)
		return;
	if (ring)
		dp->ports[port].edge = *ring;
	else
		memset(&dp->ports[port].edge, 0, sizeof(dp->ports[port].edge));
}

void
fe_dp_drain(struct fe_dp *dp)
{
	void *pkts[FE_BURST];
	unsigned n;

	stages_flush(dp); /* a pass offers them at its rounds' ends: never left; to be sure */
	for (unsigned i = 0; i < dp->nports; i++) {
		struct fe_port *p = &dp->ports[i];

		FE_CNT_ADD(p->st.tx_stopped, p->txq_n);
		rte_pktmbuf_free_bulk(p->txq, p->txq_n);
		p->txq_n = 0;
		p->txq_bytes = 0;
		while ((n = fe_link_flush(&p->up.l, pkts, FE_BURST)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
		while ((n = fe_link_flush(&p->down.l, pkts, FE_BURST)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
		/* the egress staging: offered (a pipeline: put on the ring) after every
		 * round, and flushed above */
		RTE_ASSERT(dp->estage == NULL || dp->estage[i].n == 0);
		while (dp->handoff && (n = fe_switch_handoff_flush(dp, i)) > 0)
			FE_CNT_ADD(dp->sw.handoff_stopped, n);
	}
	fe_nic_drain(dp);
	fe_graph_drain(dp);
}
