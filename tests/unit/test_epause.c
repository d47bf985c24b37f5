/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The edge pause (fe_wire, fe_dp.h; docs/inline.md): a port whose frames wait in a NIC's
 * receive ring, which loses what it cannot hold, holds its host back with real 802.1Qbb
 * frames as its adapter queue fills. Over in-memory ports whose receive ring is as small
 * as a NIC's can be, with a host on a fake clock that obeys the frames it gets as a NIC
 * does (from FE_EPAUSE_REACT_NS / 2 later; the pause's quanta timed at its line rate):
 *  - the host at 10 Gbit/s into an adapter queue drained at 1 Gbit/s loses nothing at the
 *    ring, where without the edge pause the ring overflows;
 *  - the frames: XOFF on every priority with the configured quanta, refreshed at half of
 *    it while held, XON once drained; the switch's own pauses (PFC) go out too, and its
 *    XON never while the edge holds the host.
 * Its thresholds follow a change of the adapter queue: test_derive.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "fe_derive.h"
#include "fe_dp.h"
#include "fe_update.h"
#include "nic_frames.h"
#include "ring_ports.h"

#define HZ   1000000000ULL /* fake TSC: 1 tick = 1 ns */
#define RING 64		   /* the receive ring of port 0: 63 frames */
#define LINE 10000000000ULL
#define LEN  100 /* the host's frames: 100 bytes, 124 on the wire: 99.2 ns at 10 Gbit/s */

static struct rte_mempool *pool;
static struct rte_ring *rxr[2], *txr[2];
static uint16_t ports[2];
static const uint8_t MAC[2][6] = {{0x02, 0xfe, 0, 0, 0, 0xa}, {0x02, 0xfe, 0, 0, 0, 0xb}};

static void
eal_up(void)
{
	struct rte_eth_conf conf = {0};
	int rc;

	pool = ring_eal_up("fe-test-epause");
	ports[1] = ring_port(1, pool, &rxr[1], &txr[1]);
	/* port 0: a receive ring of a NIC's size, which refuses what does not fit */
	rxr[0] = rte_ring_create("rx0", RING, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	txr[0] = rte_ring_create("tx0", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	cr_assert(rxr[0] != NULL && txr[0] != NULL);
	rc = rte_eth_from_rings("ring0", &rxr[0], 1, &txr[0], 1, 0);
	cr_assert_geq(rc, 0);
	ports[0] = (uint16_t)rc;
	cr_assert_eq(rte_eth_dev_configure(ports[0], 1, 1, &conf), 0);
	cr_assert_eq(rte_eth_rx_queue_setup(ports[0], 0, 1024, 0, NULL, pool), 0);
	cr_assert_eq(rte_eth_tx_queue_setup(ports[0], 0, 1024, 0, NULL), 0);
	cr_assert_eq(rte_eth_dev_start(ports[0]), 0);
}

static void
eal_down(void)
{
	ring_eal_down("fe-test-epause");
}

TestSuite(epause, .init = eal_up, .fini = eal_down);

/* The host of port 0, as its NIC obeys 802.1Qbb on priority 0 (its untagged frames). */
struct host {
	uint64_t paused_until; /* it starts no frame before this */
	uint64_t next;	       /* when its next frame would start at line rate */
	uint64_t sent, refused;
	/* the frames it got, in order: their class-enable vectors and priority 0's quanta */
	uint8_t vec[4096];
	uint16_t quanta[4096];
	unsigned nframes;
};

static uint64_t
quanta_ns(uint16_t q)
{
	return (uint64_t)q * 512 * 1000000000ULL / LINE;
}

/* The frames the engine sent host 0 by now: pauses obeyed from now + react. */
static void
host_hears(struct host *h, uint64_t now)
{
	const uint64_t react = FE_EPAUSE_REACT_NS / 2;
	void *v;

	while (rte_ring_dequeue(txr[0], &v) == 0) {
		struct rte_mbuf *m = v;
		const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

		cr_assert_eq(rte_pktmbuf_pkt_len(m), 60, "host 0 got a frame that is no pause");
		cr_assert(f[0] == 0x01 && f[1] == 0x80 && f[2] == 0xc2 && f[5] == 0x01 &&
				  f[12] == 0x88 && f[13] == 0x08 && f[14] == 0x01 && f[15] == 0x01,
			  "host 0 got a frame that is no 802.1Qbb frame");
		cr_assert_lt(h->nframes, 4096);
		h->vec[h->nframes] = f[17];
		h->quanta[h->nframes] = (uint16_t)(f[18] << 8 | f[19]);
		if (f[17] & 1) /* priority 0: paused for its quanta, or resumed (0) */
			h->paused_until = now + react + quanta_ns(h->quanta[h->nframes]);
		h->nframes++;
		rte_pktmbuf_free(m);
	}
}

/* The host sends its frames to host 1 due by now, `left` of them, unless paused. */
static void
host_sends(struct host *h, uint64_t now, uint64_t *left)
{
	const uint64_t gap = (uint64_t)(LEN + 24) * 8 * 1000000000ULL / LINE;
	uint8_t f[LEN];

	if (h->next < h->paused_until)
		h->next = h->paused_until;
	for (; *left > 0 && h->next <= now && h->next >= h->paused_until; h->next += gap) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		cr_assert_not_null(m);
		tcp_frame(f, LEN, MAC[0], MAC[1], 0, (uint16_t)h->sent);
		memcpy(rte_pktmbuf_append(m, LEN), f, LEN);
		if (rte_ring_enqueue(rxr[0], m) != 0) { /* the ring is full: lost at the NIC */
			rte_pktmbuf_free(m);
			h->refused++;
		}
		h->sent++;
		(*left)--;
	}
}

/* Port 0's links: an adapter queue of 300 frames drained at 1 Gbit/s; port 1's at 1. */
static void
links(struct fe_linkdef up[2], struct fe_linkdef down[2])
{
	memset(up, 0, 2 * sizeof(*up));
	memset(down, 0, 2 * sizeof(*down));
	up[0].link = (struct fe_link_params){.rate_bps = 1000000000, .limit_pkts = 300};
	up[1].link = (struct fe_link_params){.rate_bps = 1000000000, .limit_pkts = 300};
	down[0].link = down[1].link = (struct fe_link_params){.rate_bps = 1000000000};
}

static struct fe_dp *
engine(enum fe_regime r, int pause, const struct fe_linkdef *up, const struct fe_linkdef *down)
{
	const struct fe_wire wire[2] = {{.bps = LINE, .rxd = RING - 1, .pause = (uint8_t)pause},
					{.bps = LINE, .rxd = 1023}};
	struct fe_dp_conf conf = {
		.regime = r,
		.lanes = 1,
		.mac_age_ns = 300000000000ULL,
		.seed = 1,
		.credit = {.buffer = 64 << 10, .return_ns = 1000, .hoq_life_ns = 0, .out_pkts = 4},
		/* the switch's own pauses: only past 200 KB held */
		.pfc = {.xoff = 200000, .xon = 100000, .quanta = 65535},
		.wire = wire};
	char err[256];
	struct fe_dp *dp = fe_dp_create(2, ports, up, down, pool, HZ, &conf, err, sizeof(err));

	cr_assert_not_null(dp, "%s", err);
	return dp;
}

/* Host 1 announces itself, so host 0's frames go to its port alone. */
static void
learn(struct fe_dp *dp, uint64_t *t)
{
	uint8_t f[60] = {0};

	memset(f, 0xff, 6);
	memcpy(f + 6, MAC[1], 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	ring_frame(pool, rxr[1], f, sizeof(f));
	for (int k = 0; k < 10; k++)
		fe_dp_poll(dp, *t += 1000);
	ring_drain(txr[0]);
	ring_drain(txr[1]);
}

/*
 * n frames from host 0 to host 1, a pass of the engine every us, until all are
 * delivered or 100 ms: what host 1 got.
 */
static uint64_t
run(struct fe_dp *dp, struct host *h, uint64_t n, uint64_t *t)
{
	uint64_t left = n, got = 0, end = *t + 100000000ULL;

	memset(h, 0, sizeof(*h));
	h->next = *t;
	while (got < n - h->refused && *t < end) {
		*t += 1000;
		host_sends(h, *t, &left);
		fe_dp_poll(dp, *t);
		host_hears(h, *t);
		got += ring_drain(txr[1]);
	}
	return got;
}

Test(epause, a_host_that_obeys_loses_nothing_at_the_ring)
{
	static const enum fe_regime regimes[] = {FE_REGIME_CREDIT, FE_REGIME_PFC};
	struct fe_linkdef up[2], down[2];

	links(up, down);
	for (unsigned r = 0; r < 2; r++) {
		const char *name = fe_regime_name(regimes[r]);
		struct host h;
		uint64_t t = 0, got;
		struct fe_dp *dp = engine(regimes[r], 0, up, down);

		/* without the edge pause: the ring overflows (what a NIC counts as imissed) */
		learn(dp, &t);
		got = run(dp, &h, 3000, &t);
		cr_assert_gt(h.refused, 0, "%s, no edge pause: the ring of %d never overflowed",
			     name, RING);
		cr_assert_eq(got + h.refused, 3000, "%s, no edge pause: %lu delivered, %lu refused",
			     name, (unsigned long)got, (unsigned long)h.refused);
		cr_assert_eq(h.nframes, 0, "%s, no edge pause: %u pause frames", name, h.nframes);
		fe_dp_drain(dp);
		fe_dp_free(dp);

		dp = engine(regimes[r], 1, up, down);
		learn(dp, &t);
		got = run(dp, &h, 3000, &t);
		cr_assert_eq(h.refused, 0, "%s, edge pause: %lu frames refused at the ring", name,
			     (unsigned long)h.refused);
		cr_assert_eq(got, 3000, "%s, edge pause: %lu of 3000 delivered", name,
			     (unsigned long)got);
		cr_assert_gt(FE_CNT_GET(dp->ports[0].st.edge_xoff), 0);
		cr_assert_eq(FE_CNT_GET(dp->ports[0].st.pfc_frames_out), h.nframes);
		/* XOFF on every priority, with the quanta; the last frame an XON, all of them */
		cr_assert_eq(h.vec[0], 0xff, "%s: the first pause's vector 0x%02x", name, h.vec[0]);
		cr_assert_eq(h.quanta[0], 65535);
		cr_assert_eq(h.vec[h.nframes - 1], 0xff);
		cr_assert_eq(h.quanta[h.nframes - 1], 0, "%s: the last frame is no XON", name);
		cr_assert_eq(FE_CNT_GET(dp->ports[0].st.pfc_frames_lost), 0);
		fe_dp_drain(dp);
		fe_dp_free(dp);
	}
}

/*
 * Paused longer than half its quanta, the host is paused again before they run out: a
 * 1 Gbit/s host (quanta of 33.6 ms, refreshed every 16.8 ms) into a queue that does not
 * drain: host 1's down link carries 1 kbit/s.
 */
Test(epause, refreshed_while_held)
{
	struct fe_linkdef up[2], down[2];
	const struct fe_wire wire[2] = {{.bps = 1000000000, .rxd = RING - 1, .pause = 1},
					{.bps = 1000000000, .rxd = 1023}};
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 1,
				  .mac_age_ns = 300000000000ULL,
				  .seed = 1,
				  /* 1 KiB of credits: 8 frames in the switch, and no more */
				  .credit = {.buffer = 1024, .return_ns = 1000, .out_pkts = 4},
				  .wire = wire};
	char err[256];
	struct fe_dp *dp;
	uint64_t t = 0;
	unsigned xoff = 0;
	struct host h = {0};

	links(up, down);
	up[0].link.limit_pkts = 8; /* XOFF at 4 frames of room: the queue is short */
	down[1].link.rate_bps = 1000;
	dp = fe_dp_create(2, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	learn(dp, &t);
	for (int k = 0; k < 200; k++) {
		uint8_t f[LEN];

		tcp_frame(f, LEN, MAC[0], MAC[1], 0, (uint16_t)k);
		if (rte_ring_free_count(rxr[0]) > 0)
			ring_frame(pool, rxr[0], f, LEN);
	}
	for (int k = 0; k < 40; k++) { /* 40 ms */
		fe_dp_poll(dp, t += 1000000);
		host_hears(&h, t);
	}
	/* the pauses since the last XON (the queue's first frames went on into the switch
	 * while it had credits: paused, resumed, paused for good) */
	for (unsigned i = 0; i < h.nframes; i++)
		xoff = h.quanta[i] == 0 ? 0 : xoff + (h.vec[i] == 0xff && h.quanta[i] == 65535);
	cr_assert_geq(FE_CNT_GET(dp->ports[0].st.edge_xoff), 1);
	cr_assert_geq(xoff, 3, "40 ms held, refreshed every 16.8 ms: %u pauses", xoff);
	cr_assert_eq(h.quanta[h.nframes - 1], 65535, "held: no XON yet");
	fe_dp_drain(dp);
	fe_dp_free(dp);
	ring_drain(rxr[0]);
}

/*
 * PFC: the switch's own pauses reach the host as frames (the edge pause sends them,
 * whatever --pfc frames says), and its XON for a priority waits while the edge holds the
 * host: after an XOFF on every priority, nothing resumes priority 0 but the edge's XON.
 */
Test(epause, the_switch_resumes_no_priority_the_edge_holds)
{
	struct fe_linkdef up[2], down[2];
	const struct fe_wire wire[2] = {{.bps = LINE, .rxd = RING - 1, .pause = 1},
					{.bps = LINE, .rxd = 1023}};
	struct fe_dp_conf conf = {.regime = FE_REGIME_PFC,
				  .lanes = 1,
				  .mac_age_ns = 300000000000ULL,
				  .seed = 1,
				  .pfc = {.xoff = 6000, .xon = 3000, .quanta = 65535},
				  .wire = wire};
	char err[256];
	struct fe_dp *dp;
	uint64_t t = 0, got;
	unsigned sw_xoff = 0, held = 0;
	struct host h;

	links(up, down);
	down[1].link.rate_bps = 100000000; /* the switch holds host 0's bytes: it pauses */
	dp = fe_dp_create(2, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	cr_assert_eq(dp->ports[0].up.pfc.cfg.frames, 1, "the switch's pauses: no frames");
	learn(dp, &t);
	got = run(dp, &h, 3000, &t);
	cr_assert_eq(h.refused, 0);
	cr_assert_eq(got, 3000);
	for (unsigned i = 0; i < h.nframes; i++) {
		if (h.vec[i] == 0xff && h.quanta[i] != 0)
			held = 1; /* the edge's XOFF */
		else if (h.vec[i] == 0x01 && h.quanta[i] != 0)
			sw_xoff++;
		else if (h.vec[i] == 0x01 && h.quanta[i] == 0)
			cr_assert(!held,
				  "frame %u: the switch resumed priority 0 while the edge "
				  "held the host",
				  i);
		else if (h.quanta[i] == 0 && (h.vec[i] | 0x01) == 0xff)
			held = 0; /* the edge's XON, priority 0 in it unless the switch holds it */
	}
	cr_assert_gt(sw_xoff, 0, "the switch never paused priority 0 with a frame");
	cr_assert_gt(FE_CNT_GET(dp->ports[0].st.edge_xoff), 0);
	cr_assert_eq(h.paused_until <= t, 1, "the host is left paused");
	fe_dp_drain(dp);
	fe_dp_free(dp);
}
