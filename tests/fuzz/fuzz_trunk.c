/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A box of a fabric split across boxes reading its trunks (fe_trunk.c fe_trunk_in()): frames
 * of any content and length come from the other box. The box runs the spine of a
 * leaf-spine (2 leaves of 1 host, 1 spine), its two links to the leaves trunks over
 * in-memory ports, on a fake clock; every regime.
 *
 * Input: byte 0 picks the regime, the lanes, an emulated NIC (ib: the trunks carry its
 * tags, fe_nicport.c) and the box: the spine alone (it only carries the tags), or the
 * spine, leaf2 and its host (one trunk, to leaf1; the host's NIC keeps the receiving side
 * of flows from the other box by their tags). Then frames, each a header of 3 bytes (the
 * trunk, and microseconds until the next; length) and the frame.
 *
 * Checked: no read outside a frame (its mbuf poisoned around it, fuzz_mbuf.h); every
 * frame a trunk brought is counted once: a frame of the fabric, a PFC or credit frame, a
 * probe answered or a late answer, or refused (rx_bad); the box drains what it took, but
 * what waits for the other box (a pause no XON ended, credits that did not come back);
 * every mbuf comes back. Seeds: tests/fuzz/corpus/trunk/ (make_seeds.py).
 */
#include <stdint.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "fe_dp.h"
#include "fe_graph.h"
#include "fe_graphconf.h"
#include "fuzz_common.h"
#include "fuzz_eal.h"
#include "fuzz_mbuf.h"

#define NT	   2 /* trunks */
#define HZ	   1000000000ULL
#define FRAMES_MAX 64
#define FRAME_MAX  1600
#define RING	   1024
#define DRAIN_MAX  20000

static struct rte_mempool *inpool, *cpool;
static struct rte_ring *rxr[NT + 1], *txr[NT + 1]; /* the trunks, then the host */
static uint16_t ports[NT + 1];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	fz_eal((*argv)[0]);
	inpool = rte_pktmbuf_pool_create("fuzz_in", FRAMES_MAX + 63, 0, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	cpool = rte_pktmbuf_pool_create("fuzz_copy", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	FZ_CHECK(inpool && cpool, "pools");
	for (unsigned i = 0; i < NT + 1; i++)
		ports[i] = fz_ring_port('t', i, RING, cpool, &rxr[i], &txr[i]);
	return 0;
}

/* A box of a leaf-spine split: the spine's (no host; the leaves and hosts elsewhere), or
 * the spine's and leaf2's with its host (leaf1 and its host elsewhere). */
static struct fe_dp *
engine(uint8_t a)
{
	static struct fe_graph_build gb;
	static struct fe_topo t;
	static uint8_t here[FE_TOPO_SWITCH];
	static uint16_t trunk[FE_TOPO_LINKS];
	static uint8_t gport[2];
	static const uint64_t lat[NT] = {300, 300};
	struct fe_topo_gen g = {
		.kind = "leaf-spine", .leaves = 2, .spines = 1, .hosts_per_leaf = 1};
	struct fe_linkdef fabric = {.link = {.rate_bps = 1000000000, .delay_ns = 2000}};
	struct fe_fabric fab = FE_FABRIC_DEFAULT;
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .seed = 7, .lanes = 1};
	struct fe_linkdef none;
	char err[512];
	struct fe_dp *dp;
	int with_host = a / 24 % 2;
	unsigned n = 0;

	conf.regime = (enum fe_regime)(a % 3);
	conf.lanes = (uint8_t)(1 + (a / 3) % 4);
	conf.pfc = fab.pfc;
	conf.pfc.xoff = 4000; /* a few frames pause a priority */
	conf.pfc.xon = 1000;
	conf.credit = fab.credit;
	conf.credit.buffer = 8192;
	conf.nic = fab.nic;
	if (a / 12 % 2)
		conf.nic.model = FE_NIC_IB;
	FZ_CHECK(fe_topo_generate(&g, &t, err, sizeof(err)) == 0, "topology: %s", err);
	FZ_CHECK(fe_graph_build(&t, &fabric, FE_PATH_ECMP, t.nports, &gb, err, sizeof(err)) == 0,
		 "graph: %s", err);
	FZ_CHECK(t.nlinks == NT, "%u links", t.nlinks);
	for (unsigned s = 0; s < t.nsw; s++)
		here[s] = with_host ? strcmp(t.sw[s].name, "leaf1") != 0
				    : strncmp(t.sw[s].name, "spine", 5) == 0;
	for (unsigned l = 0; l < NT; l++) /* a trunk each link to the other box, in order */
		trunk[l] = here[t.link[l].a] != here[t.link[l].b] ? ports[n++] : UINT16_MAX;
	n = 0;
	for (unsigned h = 0; h < t.nhosts; h++)
		if (here[t.host[h].sw[0]])
			gport[n++] = (uint8_t)t.host[h].first_port;
	gb.conf.sw_here = here;
	gb.conf.trunk = trunk;
	gb.conf.trunk_lat_ns = lat;
	gb.conf.nall = t.nports;
	gb.conf.all_sw = gb.port_sw;
	gb.conf.gport = gport;
	conf.graph = &gb.conf;
	memset(&none, 0, sizeof(none));
	dp = fe_dp_create(n, &ports[NT], &none, &none, cpool, HZ, &conf, err, sizeof(err));
	FZ_CHECK(dp != NULL, "fe_dp_create: %s", err);
	return dp;
}

/* What the box sent back over its trunks: freed (the other box's to read). */
static void
take_out(void)
{
	void *m;

	for (unsigned i = 0; i < NT + 1; i++) /* and what reached the host */
		while (rte_ring_dequeue(txr[i], &m) == 0)
			rte_pktmbuf_free(m);
}

/*
 * What the box still holds waits for the other box (lossless): its links there stopped
 * by a pause that no XON ended, or out of credits that never came back, and what its
 * switch queued behind them. The fuzzer plays the other box, and need not answer.
 */
static int
waits_for_other_box(const struct fe_dp *dp)
{
	const struct fe_graph *g = dp->graph;
	uint64_t behind = g->iq_pkts;

	for (unsigned h = 0; h < g->nhl; h++) {
		const struct fe_hoplink *hl = &g->hl[h];
		const struct fe_link *l = &hl->row.l;
		const struct fe_link_slot *s;
		uint8_t lane;

		if (l->head == l->tail)
			continue;
		if (hl->side != FE_HL_SEND || l->sched == l->tail)
			return 0; /* frames on the wire, or a link that is not waiting */
		s = &l->slots[l->sched & l->mask];
		lane = FE_LABEL_CLASS(s->label);
		if (dp->conf.regime == FE_REGIME_PFC
			    ? hl->row.pfc.prio[lane].until != UINT64_MAX
			    : hl->row.cred.avail[lane] >=
				      fe_credit_blocks(&hl->row.cred.unit, s->len))
			return 0;
		behind += fe_link_count(l);
	}
	return dp->conf.regime != FE_REGIME_LOSSY && behind == fe_dp_held(dp);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t now = 1000, in[NT] = {0};
	struct fe_dp *dp;
	unsigned nframes = 0, i;
	size_t at = 1;

	if (size < 1)
		return 0;
	dp = engine(data[0]);
	while (at + 3 <= size && nframes < FRAMES_MAX) {
		uint8_t h = data[at];
		uint32_t len = (uint32_t)(data[at + 1] | data[at + 2] << 8) % (FRAME_MAX + 1);
		struct rte_mbuf *m;

		at += 3;
		len = RTE_MIN(len, (uint32_t)(size - at));
		m = fz_segment(inpool, data + at, len, 0);
		at += len;
		/* onto one of the box's trunks (ports[0], ports[1] in order) */
		FZ_CHECK(rte_ring_enqueue(rxr[h % dp->graph->ntrunks], m) == 0, "rx ring full");
		in[h % dp->graph->ntrunks]++;
		nframes++;
		now += (uint64_t)(h >> 1 & 0x3f) * 100;
		fe_dp_poll(dp, now);
		take_out();
	}
	for (i = 0;
	     i < DRAIN_MAX && (fe_dp_held(dp) || rte_ring_count(rxr[0]) || rte_ring_count(rxr[1]));
	     i++) {
		now += 1000;
		fe_dp_poll(dp, now);
		take_out();
	}
	FZ_CHECK(i < DRAIN_MAX || waits_for_other_box(dp),
		 "the box still holds %lu frames after %u us, not for the other box",
		 (unsigned long)fe_dp_held(dp), DRAIN_MAX);
	for (unsigned t = 0; t < dp->graph->ntrunks; t++) {
		const struct fe_trunk *tr = &dp->graph->trunk[t];
		uint64_t seen = tr->rx_frames + tr->rx_pfc + tr->rx_credit + tr->probes +
				tr->echoes + tr->rx_bad;
		unsigned p = tr->port == ports[0] ? 0 : 1;

		FZ_CHECK(seen == in[p], "trunk %u: %lu frames in, %lu counted", t,
			 (unsigned long)in[p], (unsigned long)seen);
	}
	fe_dp_drain(dp);
	fe_dp_free(dp);
	take_out();
	FZ_CHECK(rte_mempool_avail_count(inpool) == inpool->size &&
			 rte_mempool_avail_count(cpool) == cpool->size,
		 "mbufs not returned: %u of %u, %u of %u", rte_mempool_avail_count(inpool),
		 inpool->size, rte_mempool_avail_count(cpool), cpool->size);
	return 0;
}
