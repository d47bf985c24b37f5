/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast path on any bytes (dataplane/engine/fe_dp.c, fe_switch.c and the models they call):
 * frames of any content and length, in one mbuf or two, enter three in-memory ports
 * (net_ring) of an engine on a fake clock, which reads their Ethernet header and 802.1Q
 * tag, maps them to lanes by PCP or DSCP, learns and floods, runs filters, marks ECN
 * (with the IPv4 checksum update), pauses (PFC, real frames) or queues them for credits.
 *
 * Input: byte 0 picks the regime, lanes and lane map; byte 1 the links' features (ECN on
 * every packet, a filter, rate and delay, jitter and loss, exact drops, small buffers,
 * the PFC watchdog's action). Then frames, each a header of 3 bytes (port and where to
 * split it; microseconds until the next; length) and the frame; an empty frame with its
 * split bit is the port's host pausing it (a hold, 20 us a step: the watchdog's case).
 *
 * Checked: no read outside a frame (the bytes of each mbuf around the frame are
 * poisoned for ASan, but for the 12 the switch reads of any frame, fe_switch.c's
 * one_flow()); every frame that leaves is one that came in (a copy for floods), byte
 * for byte, but for ECN's marking (its bits and IPv4's checksum, as fe_ecn_mark()
 * would set them); every one that came in was read; the engine drains; every mbuf comes
 * back to its pool. Seeds: tests/fuzz/corpus/engine/ (tests/fuzz/make_seeds.py).
 */
#include <sanitizer/asan_interface.h>
#include <stdint.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "fe_dp.h"
#include "fe_graphconf.h"
#include "fuzz_bpf.h"
#include "fuzz_common.h"
#include "fuzz_eal.h"
#include "fuzz_mbuf.h"

#define NP	   3
#define HZ	   1000000000ULL /* fake clock: 1 tick = 1 ns */
#define FRAMES_MAX 48
#define FRAME_MAX  1600
#define RING	   1024
#define DRAIN_MAX  20000 /* polls of 1 us after the last frame; every model drains sooner */
#define SEEN_BYTES 12	 /* mac_keys() reads the addresses of any frame, even a runt */

static struct rte_mempool *inpool, *cpool;
static struct rte_ring *rxr[NP], *txr[NP];
static uint16_t ports[NP];
static int idoff; /* the frame's number (from 1) in an mbuf field: copies carry it too */
static uint8_t sent[FRAMES_MAX][FRAME_MAX];
static uint32_t sent_len[FRAMES_MAX], sent_cut[FRAMES_MAX];
static const char *const filters[4] = {"udp", "vlan and tcp", "ip6 or arp",
				       "ether[12:2] = 0x0800 and ip[1] & 3 != 0"};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct rte_mbuf_dynfield id = {
		.name = "fuzz_frame_id", .size = sizeof(uint32_t), .align = 4};

	(void)argc;
	fz_eal((*argv)[0]);
	/* frames come from inpool (their bytes poisoned around them); the engine's own
	 * (flood copies, PFC frames) from cpool, never poisoned */
	inpool = rte_pktmbuf_pool_create("fuzz_in", 2 * FRAMES_MAX + 63, 0, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	cpool = rte_pktmbuf_pool_create("fuzz_copy", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	FZ_CHECK(inpool && cpool, "pools");
	idoff = rte_mbuf_dynfield_register(&id);
	FZ_CHECK(idoff >= 0, "dynfield");
	for (unsigned i = 0; i < NP; i++)
		ports[i] = fz_ring_port('f', i, RING, cpool, &rxr[i], &txr[i]);
	return 0;
}

static uint32_t *
frame_id(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, idoff, uint32_t *);
}

/* Frame k (its bytes in sent[k]) into port `in`'s receive ring. */
static void
inject(unsigned k, unsigned in)
{
	uint32_t len = sent_len[k], cut = sent_cut[k];
	struct rte_mbuf *m;

	if (cut == 0 || cut >= len) {
		m = fz_segment(inpool, sent[k], len, SEEN_BYTES);
	} else {
		m = fz_segment(inpool, sent[k], cut, SEEN_BYTES);
		FZ_CHECK(rte_pktmbuf_chain(m, fz_segment(inpool, sent[k] + cut, len - cut, 0)) == 0,
			 "chain");
	}
	*frame_id(m) = k + 1;
	FZ_CHECK(rte_ring_enqueue(rxr[in], m) == 0, "rx ring full");
}

static int nic_on; /* the engine has emulated NICs: CE may leave cleared */

/* Byte 0: regime, lanes and lane map (and NICs); byte 1: the links (see the top). */
static struct fe_dp *
engine(uint8_t a, uint8_t b)
{
	struct fe_fabric fab = FE_FABRIC_DEFAULT;
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .seed = 7};
	struct fe_linkdef up = {.link = {.limit_bytes = 1 << 20, .limit_pkts = 1000}}, down;
	struct fe_linkdef ups[NP], downs[NP];
	char err[512];
	struct fe_dp *dp;

	conf.regime = (enum fe_regime)(a % 3);
	conf.lanes = (uint8_t)(1 + (a / 3) % FE_LANES_MAX);
	conf.lane_map = (a / 24) & 1 ? FE_MAP_DSCP : FE_MAP_PCP;
	conf.lcores = conf.regime == FE_REGIME_LOSSY && (a / 48) & 1 ? 2 : 1;
	conf.pfc = fab.pfc;
	conf.pfc.xoff = 4000; /* a few frames pause a priority */
	conf.pfc.xon = 1000;
	conf.pfc.frames = 1;
	/* the PFC watchdog of the ports a host pauses (an empty frame with its split bit) */
	conf.pfc.watchdog_ns = 30000;
	conf.pfc.watchdog_action = b & 0x80 ? FE_PFC_WD_FORWARD : FE_PFC_WD_DROP;
	conf.credit = fab.credit;
	conf.credit.buffer = 8192;
	/* credits back in messages of 2 KiB (the watchdog's bit: under credits it runs none) */
	conf.credit.update = b & 0x80 ? 2048 : 0;
	/* credits of a switch's 254-byte cells where lanes come from DSCP, else 64 bytes */
	conf.credit.unit = conf.lane_map == FE_MAP_DSCP ? 254 : 64;
	/* an emulated NIC on one lcore (docs/nic.md), its timeout short enough for the drain */
	conf.nic = fab.nic;
	nic_on = conf.lcores == 1 && (a / 96) % 3;
	if (nic_on) {
		conf.nic.model = (a / 96) % 3 == 1 ? FE_NIC_ROCE : FE_NIC_IB;
		conf.nic.recovery = (a / 24) & 1 ? FE_NIC_SELECTIVE : FE_NIC_GBN;
		conf.nic.timeout_ns = 20000;
	}
	if (b & 0x01) /* every packet is hit: ECT marked, the others dropped or passed */
		up.ecn =
			(struct fe_ecn_params){.enabled = 1, .pmax = 1, .drop_non_ect = b >> 1 & 1};
	if (b & 0x08) {
		up.link.rate_bps = 1000000000;
		up.link.delay_ns = 2000;
	}
	if (b & 0x20) {
		up.drop_first = 2;
		up.drop_count = 3;
	}
	if (b & 0x40)
		up.link.limit_pkts = 3;
	down = up;
	if (b & 0x04)
		snprintf(down.match, sizeof(down.match), "%s", filters[b >> 6 & 3]);
	if (b & 0x10) {
		down.link.jitter_ns = 1000;
		down.loss = (struct fe_loss_params){
			.kind = FE_LOSS_GE, .p = 0.2, .r = 0.5, .loss_bad = 0.5};
	}
	for (unsigned i = 0; i < NP; i++) {
		ups[i] = up;
		downs[i] = down;
	}
	/* three switches in a cycle, a host on each (fe_graph.h): every regime, one lcore, no
	 * NIC; the path choice by the lanes' bits, routed one way round (a cyclic buffer
	 * dependency) or the short way, the links between switches as the up links */
	if (conf.lcores == 1 && !nic_on && (a / 24) & 1) {
		static struct fe_graph_build gb;
		struct fe_topo_gen g = {.kind = "ring", .switches = NP};
		static struct fe_topo t;

		FZ_CHECK(fe_topo_generate(&g, &t, err, sizeof(err)) == 0, "ring: %s", err);
		t.oneway = (a / 48) & 1;
		FZ_CHECK(fe_graph_build(&t, &up, (enum fe_path)((a / 3) % 6), NP, &gb, err,
					sizeof(err)) == 0,
			 "graph: %s", err);
		conf.graph = &gb.conf;
	}
	dp = fe_dp_create(NP, ports, ups, downs, cpool, HZ, &conf, err, sizeof(err));
	FZ_CHECK(dp != NULL, "fe_dp_create: %s", err);
	if (down.match[0] &&
	    fz_skip_bpf_bugs(down.match, dp->ports[0].down.x.cfg.filter->jit != NULL)) {
		fe_dp_free(dp); /* fuzz_bpf.h */
		return NULL;
	}
	return dp;
}

static void
poll(struct fe_dp *dp, uint64_t now)
{
	if (dp->handoff == NULL) {
		fe_dp_poll(dp, now);
		return;
	}
	fe_dp_poll_role(dp, FE_ROLE_UP, now);
	fe_dp_poll_role(dp, FE_ROLE_DOWN, now);
}

static int
is_pause(const uint8_t *f, uint32_t len)
{
	static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

	return len == 60 && memcmp(f, dst, 6) == 0 && f[12] == 0x88 && f[13] == 0x08;
}

/*
 * a and b are the same frame, but maybe for a 16-bit field that is 0x0000 in one and
 * 0xffff in the other: the two zeros of ones' complement, which an IPv4 checksum updated
 * twice (marked, then cleared by a NIC: RFC 1624) may change one for the other.
 */
static int
same_but_zero(const uint8_t *a, const uint8_t *b, uint32_t len)
{
	uint32_t i = 0;

	while (i < len && a[i] == b[i])
		i++;
	if (i + 1 >= len || !((a[i] == 0 && a[i + 1] == 0 && b[i] == 0xff && b[i + 1] == 0xff) ||
			      (a[i] == 0xff && a[i + 1] == 0xff && b[i] == 0 && b[i + 1] == 0)))
		return i == len;
	return memcmp(a + i + 2, b + i + 2, len - i - 2) == 0;
}

/* A frame that left: one that came in, unchanged but for ECN's marking. */
static void
check_out(struct rte_mbuf *m)
{
	static uint8_t lin[FRAME_MAX], want[FRAME_MAX];
	uint32_t len = rte_pktmbuf_pkt_len(m), k = *frame_id(m) - 1;
	const uint8_t *f;

	FZ_CHECK(len <= FRAME_MAX, "a frame of %u bytes left", len);
	f = rte_pktmbuf_read(m, 0, len, lin);
	FZ_CHECK(f != NULL, "unreadable frame");
	if (is_pause(f, len))
		return;
	FZ_CHECK(k < FRAMES_MAX && sent_len[k] == len, "a frame of %u bytes, number %u", len,
		 k + 1);
	if (memcmp(f, sent[k], len) == 0)
		return;
	/* marked in its first segment (as it came in) or whole (a flood copy) */
	memcpy(want, sent[k], len);
	fe_ecn_mark(want, sent_cut[k] && sent_cut[k] < len ? sent_cut[k] : len);
	if (memcmp(f, want, len) == 0)
		return;
	memcpy(want, sent[k], len);
	fe_ecn_mark(want, len);
	if (memcmp(f, want, len) == 0)
		return;
	/* a NIC consumed the mark: ECT(0) where the host sent ECT(0) or ECT(1) */
	if (nic_on && fe_nic_ecn_get(sent[k], len) > 0 && fe_nic_ecn_get(f, len) == 2) {
		memcpy(want, f, len);
		fe_nic_ecn_set(want, len, (uint8_t)fe_nic_ecn_get(sent[k], len));
		if (same_but_zero(want, sent[k], len))
			return;
	}
	FZ_CHECK(0, "frame %u (%u bytes) changed beyond ECN marking", k + 1, len);
}

static uint64_t
take_out(void)
{
	struct rte_mbuf *m;
	uint64_t n = 0;

	for (unsigned i = 0; i < NP; i++)
		while (rte_ring_dequeue(txr[i], (void **)&m) == 0) {
			check_out(m);
			rte_pktmbuf_free(m);
			n++;
		}
	return n;
}

static int
rx_pending(void)
{
	for (unsigned i = 0; i < NP; i++)
		if (rte_ring_count(rxr[i]))
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t now = 1000, out = 0, rx = 0, tx = 0;
	unsigned nframes = 0, i;
	struct fe_dp *dp;
	size_t at = 2;

	if (size < 2)
		return 0;
	dp = engine(data[0], data[1]);
	if (dp == NULL)
		return 0;
	while (at + 3 <= size && nframes < FRAMES_MAX) {
		uint8_t h = data[at];
		uint32_t len = (uint32_t)(data[at + 1] | data[at + 2] << 8) % (FRAME_MAX + 1);

		at += 3;
		len = RTE_MIN(len, (uint32_t)(size - at));
		if (len == 0 && (h & 0x80)) { /* not a frame: the host of h % NP pauses its port */
			struct fe_port *p = &dp->ports[h % NP];

			fe_link_hold(&p->down.l, now, now + (uint64_t)(h >> 2 & 0x1f) * 20000);
			p->hold_from = now; /* as fe_dp.c takes a hold */
			continue;
		}
		memcpy(sent[nframes], data + at, len);
		sent_len[nframes] = len;
		sent_cut[nframes] = h & 0x80 ? len / 2 : 0;
		at += len;
		inject(nframes++, h % NP);
		now += (uint64_t)(h >> 2 & 0x1f) * 100;
		poll(dp, now);
		out += take_out();
	}
	for (i = 0; i < DRAIN_MAX && (fe_dp_held(dp) || rx_pending()); i++) {
		now += 1000;
		poll(dp, now);
		out += take_out();
	}
	FZ_CHECK(i < DRAIN_MAX, "the engine still holds %lu packets after %u us",
		 (unsigned long)fe_dp_held(dp), DRAIN_MAX);
	for (unsigned p = 0; p < NP; p++) {
		rx += FE_CNT_GET(dp->ports[p].st.rx_pkts);
		tx += FE_CNT_GET(dp->ports[p].st.tx_pkts);
	}
	FZ_CHECK(rx == nframes, "%u frames in, %lu read", nframes, (unsigned long)rx);
	FZ_CHECK(tx == out, "%lu frames counted sent, %lu left", (unsigned long)tx,
		 (unsigned long)out);
	fe_dp_drain(dp);
	fe_dp_free(dp);
	FZ_CHECK(rte_mempool_avail_count(inpool) == inpool->size &&
			 rte_mempool_avail_count(cpool) == cpool->size,
		 "mbufs not returned: %u of %u, %u of %u", rte_mempool_avail_count(inpool),
		 inpool->size, rte_mempool_avail_count(cpool), cpool->size);
	return 0;
}
