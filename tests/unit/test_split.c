/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One fabric split across two engines (fe_graph.h, docs/scale-out.md): a leaf-spine of 2
 * leaves, 1 spine and 2 hosts a leaf, the leaves and their hosts on box A, the spine on
 * box B, over in-memory ports and one fake clock. The two links between the boxes are
 * trunks: the test carries what one box's trunk port sends to the other's, `lat` later
 * (the real link's one-way latency, which each box subtracts). The same fabric in one
 * engine is the reference: frames arrive at the same ticks; addresses are learned across
 * the boxes (unicast is not flooded); under PFC the spine's pauses cross as 802.1Qbb
 * frames and stop the leaf's uplink, under credits the credit frames pace it; nothing is
 * dropped and every frame is accounted for. A delay shorter than the real link is refused.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "fe_adopt.h"
#include "fe_dp.h"
#include "fe_graph.h"
#include "fe_graphconf.h"
#include "ring_ports.h"

#define NH   4 /* hosts */
#define NT   2 /* links between the boxes */
#define HZ   1000000000ULL
#define STEP 100 /* ns: the test's poll interval */

static struct rte_mempool *pool;
static struct rte_ring *rxr[NH + 2 * NT], *txr[NH + 2 * NT];
static uint16_t ports[NH + 2 * NT]; /* hosts, A's trunks, B's trunks */
static const uint8_t MAC[NH][6] = {
	{2, 0xfe, 0, 0, 0, 1}, {2, 0xfe, 0, 0, 0, 2}, {2, 0xfe, 0, 0, 0, 3}, {2, 0xfe, 0, 0, 0, 4}};

static void
eal_up(void)
{
	pool = ring_eal_up("fe-test-split");
	for (int i = 0; i < NH + 2 * NT; i++)
		ports[i] = ring_port(i, pool, &rxr[i], &txr[i]);
}

static void
eal_down(void)
{
	ring_eal_down("fe-test-split");
}

TestSuite(split, .init = eal_up, .fini = eal_down);

struct opt {
	enum fe_regime regime;
	uint64_t lat_ns;       /* the real link between the boxes, one way */
	uint64_t fabric_delay; /* the links between switches (0: 1 us) */
	uint64_t slow_down;    /* spine1 > leaf2 at this rate (0: 100 Gbit/s) */
	struct fe_pfc_params pfc;
	struct fe_credit_params credit;
	const struct fe_nic_params *nic; /* NULL: the hosts' TCP */
	uint32_t slow_pkts;		 /* spine1 > leaf2's buffer, in frames (0: none set) */
	int hosts_split; /* box A leaf1 and hosts 1, 2; B the spine, leaf2 and hosts 3, 4 */
};

static struct fe_topo topo;
static struct fe_graph_build gb[3]; /* one box, A, B */
static uint8_t here[2][FE_TOPO_SWITCH];
static uint16_t trunk[2][FE_TOPO_LINKS];
static uint64_t lat[FE_TOPO_LINKS];
static uint8_t gport[2][NH];

/* box: 0 the whole fabric, 1 A (leaves, hosts), 2 B (the spine); NULL and err if refused. */
static struct fe_dp *
engine(int box, const struct opt *o, char *err, size_t errlen)
{
	struct fe_topo_gen g = {
		.kind = "leaf-spine", .leaves = 2, .spines = 1, .hosts_per_leaf = 2};
	struct fe_linkdef fabric = {.link = {.delay_ns = o->fabric_delay ? o->fabric_delay : 1000,
					     .rate_bps = 100000000000ULL}};
	struct fe_linkdef up[NH] = {0}, down[NH] = {0};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL,
				  .lanes = 1,
				  .seed = 1,
				  .nic = FE_NIC_DEFAULT,
				  .regime = o->regime,
				  .pfc = o->pfc,
				  .credit = o->credit};
	struct fe_graph_build *b = &gb[box];
	uint16_t ids[NH + NT];
	unsigned n = 0;

	cr_assert_eq(fe_topo_generate(&g, &topo, err, errlen), 0, "%s", err);
	cr_assert_eq(fe_topo_check(&topo, err, errlen, NULL), 0, "%s", err);
	cr_assert_eq(fe_graph_build(&topo, &fabric, FE_PATH_ECMP, topo.nports, b, err, errlen), 0,
		     "%s", err);
	for (unsigned l = 0; o->slow_down && l < topo.nlinks; l++)
		if (strcmp(topo.link[l].name, "leaf2-spine1") == 0) {
			b->def[2 * l + 1].link.rate_bps = o->slow_down; /* spine1 > leaf2 */
			b->def[2 * l + 1].link.limit_pkts = o->slow_pkts;
		}
	if (o->nic != NULL)
		conf.nic = *o->nic;
	conf.graph = &b->conf;
	for (int i = 0; i < NH; i++) {
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
		up[i].link.rate_bps = down[i].link.rate_bps = 100000000000ULL;
	}
	if (box == 0) {
		for (int i = 0; i < NH; i++)
			ids[i] = ports[i];
		return fe_dp_create(NH, ids, up, down, pool, HZ, &conf, err, errlen);
	}
	for (unsigned s = 0; s < topo.nsw; s++)
		here[box - 1][s] =
			o->hosts_split ? (strcmp(topo.sw[s].name, "leaf1") == 0) == (box == 1)
				       : (strncmp(topo.sw[s].name, "leaf", 4) == 0) == (box == 1);
	for (unsigned l = 0; l < topo.nlinks; l++) {
		/* a trunk for a link between the boxes: with hosts_split, leaf1-spine1 only */
		int cross = !o->hosts_split || strcmp(topo.link[l].name, "leaf1-spine1") == 0;

		trunk[box - 1][l] = cross ? ports[NH + (box - 1) * NT + l] : UINT16_MAX;
		lat[l] = o->lat_ns;
	}
	cr_assert_eq(topo.nlinks, NT);
	b->conf.sw_here = here[box - 1];
	b->conf.trunk = trunk[box - 1];
	b->conf.trunk_lat_ns = lat;
	b->conf.nall = topo.nports;
	b->conf.all_sw = b->port_sw;
	for (int i = 0; i < NH; i++) /* hosts 1, 2 on leaf1, 3, 4 on leaf2 */
		if (here[box - 1][topo.host[i].sw[0]]) {
			gport[box - 1][n] = (uint8_t)i;
			ids[n++] = ports[i];
		}
	b->conf.gport = gport[box - 1];
	return fe_dp_create(n, ids, up, down, pool, HZ, &conf, err, errlen);
}

/* What one trunk end sent, in flight to the other end until `at`. */
struct wire {
	struct rte_mbuf *m[4096];
	uint64_t at[4096];
	unsigned head, tail;
};
static struct wire wires[2 * NT]; /* A's trunk l to B's, then B's to A's */

/*
 * Both boxes polled at t (b NULL: one box); what each trunk port sent reaches the other
 * end lat later, taken at the first poll from then.
 */
static void
poll2(struct fe_dp *a, struct fe_dp *b, uint64_t t, uint64_t lat_ns)
{
	for (int w = 0; b && w < 2 * NT; w++) {
		struct wire *x = &wires[w];
		int to = w < NT ? NH + NT + w : NH + w - NT;

		while (x->head != x->tail && x->at[x->head % 4096] <= t)
			cr_assert_eq(rte_ring_enqueue(rxr[to], x->m[x->head++ % 4096]), 0);
	}
	fe_dp_poll(a, t);
	if (b == NULL)
		return;
	fe_dp_poll(b, t);
	for (int w = 0; w < 2 * NT; w++) {
		struct wire *x = &wires[w];
		int from = w < NT ? NH + w : NH + NT + (w - NT);
		void *m;

		while (rte_ring_dequeue(txr[from], &m) == 0) {
			/* a real port sends a copy of the bytes and frees the mbuf: what the box
			 * did to it (a header put in front) stays with whoever else holds it */
			struct rte_mbuf *c = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);

			cr_assert_not_null(c);
			rte_pktmbuf_free(m);
			cr_assert_lt(x->tail - x->head, 4096u);
			x->m[x->tail % 4096] = c;
			x->at[x->tail++ % 4096] = t + lat_ns;
		}
	}
}

static uint8_t inject_seq;

static void
inject(int port, const uint8_t *dst, uint16_t len)
{
	ring_udp(pool, rxr[port], dst, MAC[port], port, 0, len, inject_seq++);
}

/* Frames host i received, freed. */
static unsigned
sent(int i)
{
	return ring_drain(txr[i]);
}

/* Every host says hello (broadcast) at t: every address known, on both boxes. */
static void
learn(struct fe_dp *a, struct fe_dp *b, uint64_t *t, uint64_t lat_ns)
{
	static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

	for (int p = 0; p < NH; p++)
		inject(p, bc, 60);
	for (int k = 0; k < 300; k++)
		poll2(a, b, *t += STEP, lat_ns);
	for (int p = 0; p < NH; p++) {
		unsigned n = sent(p);

		cr_assert_eq(n, NH - 1, "host %d hears the other %d once each: %u (%s)", p + 1,
			     NH - 1, n, b ? "two boxes" : "one box");
	}
	*t += 100000;
}

/* The engines drained, what they sent freed, then the engines: as fabemu-dp stops (its
 * ports closed before fe_dp_free()), since a frame a NIC made (an ACK to the other box)
 * is of the engine's own pool, which fe_dp_free() frees (a use after free here, seen
 * once the tests' memory was on hugepages, whose freed pages go back to the kernel) */
static void
done(struct fe_dp *a, struct fe_dp *b, unsigned avail)
{
	fe_dp_drain(a);
	if (b != NULL)
		fe_dp_drain(b);
	for (int w = 0; w < 2 * NT; w++)
		for (; wires[w].head != wires[w].tail; wires[w].head++)
			rte_pktmbuf_free(wires[w].m[wires[w].head % 4096]);
	for (int i = 0; i < NH + 2 * NT; i++) {
		void *m;

		while (rte_ring_dequeue(rxr[i], &m) == 0 || rte_ring_dequeue(txr[i], &m) == 0)
			rte_pktmbuf_free(m);
	}
	fe_dp_free(a);
	if (b != NULL)
		fe_dp_free(b);
	cr_assert_eq(rte_mempool_avail_count(pool), avail, "every mbuf back");
}

static const struct fe_trunk *
trunk_of(const struct fe_dp *dp, const char *link)
{
	const struct fe_graph *g = dp->graph;

	for (unsigned t = 0; t < g->ntrunks; t++)
		if (strcmp(g->hl[g->trunk[t].send].lname, link) == 0)
			return &g->trunk[t];
	cr_assert_fail("no trunk for %s", link);
	return NULL;
}

static const struct fe_hoplink *
hop(const struct fe_dp *dp, const char *name)
{
	int h = fe_graph_link_by_name(dp->graph, name);

	cr_assert_geq(h, 0, "no link %s", name);
	return &dp->graph->hl[h];
}

/* The tick (from t0, polled every STEP) host `to` gets a frame host 0 sent at t0. */
static uint64_t
one_way(struct fe_dp *a, struct fe_dp *b, int to, uint64_t *t, uint64_t lat_ns)
{
	uint64_t t0 = *t;

	inject(0, MAC[to], 100);
	for (int k = 0; k < 200; k++) {
		poll2(a, b, *t, lat_ns);
		if (sent(to) == 1) {
			for (int p = 1; p < NH; p++)
				cr_assert_eq(sent(p), 0, "host %d: a unicast, not a flood", p + 1);
			return *t - t0;
		}
		*t += STEP;
	}
	cr_assert_fail("host %d never got it", to + 1);
	return 0;
}

Test(split, a_frame_crosses_the_boxes_on_time_and_addresses_are_learned)
{
	unsigned avail = rte_mempool_avail_count(pool);
	const struct opt o = {.regime = FE_REGIME_LOSSY, .lat_ns = 300};
	char err[256];
	struct fe_dp *one = engine(0, &o, err, sizeof(err)), *a, *b;
	uint64_t t = 1000000, ref, split;

	cr_assert_not_null(one, "%s", err);
	learn(one, NULL, &t, 0);
	ref = one_way(one, NULL, 2, &t, 0);
	done(one, NULL, avail);
	/* up, leaf1>spine1, spine1>leaf2, down: 1 us each, and 4 x 9.6 ns serializing */
	cr_assert(ref > 4000 && ref <= 4000 + STEP, "%lu ns", ref);

	a = engine(1, &o, err, sizeof(err));
	cr_assert_not_null(a, "%s", err);
	b = engine(2, &o, err, sizeof(err));
	cr_assert_not_null(b, "%s", err);
	cr_assert_eq(b->nports, 0, "the spine's box has no host");
	t = 1000000;
	learn(a, b, &t, o.lat_ns);
	split = one_way(a, b, 2, &t, o.lat_ns);
	cr_assert_eq(split, ref, "the real link's 300 ns subtracted: %lu ns, one box %lu ns", split,
		     ref);
	cr_assert_eq(hop(a, "leaf1>spine1")->side, FE_HL_SEND);
	cr_assert_eq(hop(b, "leaf1>spine1")->side, FE_HL_RECV);
	/* the broadcasts (4, each over both trunks at most) and the one frame */
	cr_assert_eq(trunk_of(a, "leaf1-spine1")->tx_frames, 2 + 1,
		     "leaf1's 2 hellos and the frame");
	cr_assert_eq(trunk_of(b, "leaf1-spine1")->rx_frames, 3);
	{ /* each frame that left for box B counted its lateness there (the verdicts') */
		uint64_t n = 0;

		for (unsigned k = 0; k < FE_QHIST_BUCKETS; k++)
			n += hop(a, "leaf1>spine1")->row.l.st.late_hist[k];
		cr_assert_eq(n, 3, "lateness of %lu frames counted, 3 sent", n);
	}
	cr_assert_eq(trunk_of(b, "leaf2-spine1")->tx_frames, 2 + 1, "leaf1's hellos and the frame");
	cr_assert_eq(trunk_of(b, "leaf1-spine1")->rx_bad + trunk_of(a, "leaf2-spine1")->rx_bad, 0);
	/* a counter reset (fabemuctl reset) restarts the trunks' counters with the rest */
	fe_adopt_reset(a, FE_ROLE_ALL, 0);
	fe_adopt_reset(b, FE_ROLE_ALL, 0);
	cr_assert_eq(trunk_of(a, "leaf1-spine1")->tx_frames, 0, "reset: %lu",
		     trunk_of(a, "leaf1-spine1")->tx_frames);
	cr_assert_eq(trunk_of(b, "leaf1-spine1")->rx_frames, 0);
	cr_assert_eq(trunk_of(b, "leaf2-spine1")->tx_frames, 0);
	done(a, b, avail);
}

Test(split, a_delay_shorter_than_the_real_link_is_refused)
{
	const struct opt o = {.regime = FE_REGIME_LOSSY, .lat_ns = 2000};
	char err[256];
	struct fe_dp *a = engine(1, &o, err, sizeof(err));

	cr_assert_null(a);
	cr_assert(strstr(err, "leaf1>spine1") && strstr(err, "shorter than the real link") &&
			  strstr(err, "1000 ns") && strstr(err, "2000 ns"),
		  "%s", err);
}

/* A link that memory cannot hold is refused by its name and what it could not hold
 * (before: "out of memory for credits", or for a link between switches "out of memory
 * for the topology"): under credits with a 64 MiB buffer, each row that holds credits
 * (the hosts' up links, the links between switches) keeps 2^21 returns, 32 MiB, and the
 * 8 of them do not fit in the test's 256 MiB (here a link between switches ran out:
 * "link spine1>leaf1: out of memory for 262144 link slots"). */
Test(split, a_link_out_of_memory_is_named)
{
	const struct opt o = {.regime = FE_REGIME_CREDIT, .credit = {.buffer = 64 << 20}};
	char err[256];

	cr_assert_null(engine(0, &o, err, sizeof(err)));
	cr_assert(strncmp(err, "link ", 5) == 0 && strstr(err, ": out of memory for "), "%s", err);
}

/* RCCC, alone or with NSCC, is refused on a fabric split across boxes (a receiver on
 * another box does not see the pull target kept with the sender's copy), naming the cc. */
/* A burst from hosts 1 and 2 (leaf1) to host 3 (leaf2) over the slow spine1 > leaf2: when
 * the last frame arrives, one box or two, and every frame accounted for. */
static uint64_t
incast(struct fe_dp *a, struct fe_dp *b, const struct opt *o, unsigned frames, uint64_t *t)
{
	uint64_t t0 = *t, last = 0;
	unsigned got = 0;

	for (unsigned i = 0; i < frames; i++)
		inject((int)(i % 2), MAC[2], 1000);
	for (int k = 0; k < 400000 && got < frames; k++) {
		unsigned n;

		poll2(a, b, *t, o->lat_ns);
		n = sent(2);
		if (n) {
			got += n;
			last = *t;
		}
		*t += STEP;
	}
	cr_assert_eq(got, frames, "every frame delivered: %u of %u", got, frames);
	return last - t0;
}

static void
lossless(enum fe_regime regime)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct opt o = {.regime = regime, .lat_ns = 300, .slow_down = 1000000000ULL};
	char err[256];
	struct fe_dp *one, *a, *b;
	uint64_t t = 1000000, ref, split, ref_pauses, ref_stall;
	const unsigned frames = 400;

	o.pfc = (struct fe_pfc_params){.xoff = 20000, .xon = 10000, .quanta = 65535};
	o.credit = (struct fe_credit_params){.buffer = 16384};
	one = engine(0, &o, err, sizeof(err));
	cr_assert_not_null(one, "%s", err);
	learn(one, NULL, &t, 0);
	ref = incast(one, NULL, &o, frames, &t);
	ref_pauses = hop(one, "leaf1>spine1")->row.pfc.prio[0].xoff_events;
	ref_stall = hop(one, "leaf1>spine1")->row.cred.stall_ticks[0];
	done(one, NULL, avail);

	a = engine(1, &o, err, sizeof(err));
	cr_assert_not_null(a, "%s", err);
	b = engine(2, &o, err, sizeof(err));
	cr_assert_not_null(b, "%s", err);
	t = 1000000;
	learn(a, b, &t, o.lat_ns);
	split = incast(a, b, &o, frames, &t);
	/* 400 frames at 1 Gbit/s: 3.4 ms; the boxes agree to within a few polls */
	cr_assert(split + 10 * STEP >= ref && split <= ref + 10 * STEP,
		  "the last frame: %lu ns split, %lu ns on one box", split, ref);
	for (unsigned h = 0; h < a->graph->nhl; h++)
		for (int w = 0; w < FE_LINK_DROP__MAX; w++)
			cr_assert_eq(a->graph->hl[h].row.l.st.drop_pkts[w] +
					     b->graph->hl[h].row.l.st.drop_pkts[w],
				     0, "nothing dropped: %s", a->graph->hl[h].name);
	if (regime == FE_REGIME_PFC) {
		const struct fe_hoplink *up = hop(a, "leaf1>spine1");

		cr_assert_gt(trunk_of(b, "leaf1-spine1")->tx_pfc, 0, "the spine pauses leaf1");
		cr_assert_eq(trunk_of(a, "leaf1-spine1")->rx_pfc,
			     trunk_of(b, "leaf1-spine1")->tx_pfc, "every pause heard");
		cr_assert_gt(up->row.pfc.prio[0].xoff_events, 0, "leaf1's uplink was paused");
		cr_assert_gt(up->row.pfc.prio[0].paused_ticks, 0);
		cr_assert_eq(hop(b, "leaf1>spine1")->row.pfc.prio[0].xoff_events,
			     up->row.pfc.prio[0].xoff_events, "as often as the spine decided");
		cr_assert_eq(up->row.pfc.prio[0].xoff_events, ref_pauses,
			     "paused %lu times, on one box %lu", up->row.pfc.prio[0].xoff_events,
			     ref_pauses);
	} else {
		const struct fe_hoplink *up = hop(a, "leaf1>spine1");

		cr_assert_gt(trunk_of(b, "leaf1-spine1")->tx_credit, 0,
			     "the spine returns credits");
		cr_assert_eq(trunk_of(a, "leaf1-spine1")->rx_credit,
			     trunk_of(b, "leaf1-spine1")->tx_credit);
		cr_assert_eq(up->row.cred.avail_min[0], 0, "leaf1's uplink ran out of credits");
		cr_assert(up->row.cred.stall_ticks[0] * 100 >= ref_stall * 99 &&
				  up->row.cred.stall_ticks[0] * 100 <= ref_stall * 101,
			  "waited for credits %lu ns, on one box %lu ns",
			  up->row.cred.stall_ticks[0], ref_stall);
		cr_assert_gt(ref_stall, 0);
	}
	done(a, b, avail);
}

/*
 * The emulated RDMA NICs across the boxes: their hosts on box A, their flow's frames and
 * its ACKs and NAKs cross the spine's box, each with the NIC's tag (its flow and PSN) in
 * the trunk header. Under credits (ib) nothing is lost; lossy (roce, go-back-N) with a
 * spine1 > leaf2 of 8 frames, the drops there are resent. Each box gets what one box
 * gets: every frame once and in order, every one acknowledged, the same resends, nothing
 * stray, and the last frame at the same tick within a few polls.
 */
static unsigned
rx_bad(const struct fe_dp *dp)
{
	unsigned n = 0;

	for (unsigned t = 0; t < dp->graph->ntrunks; t++)
		n += (unsigned)dp->graph->trunk[t].rx_bad;
	return n;
}

static void
nic_split_cc(enum fe_regime regime, enum fe_nic_model model, uint32_t cc, int hosts_split)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_nic_params nic = FE_NIC_DEFAULT;
	struct opt o = {.regime = regime,
			.lat_ns = 300,
			.slow_down = 1000000000ULL,
			.nic = &nic,
			.slow_pkts = regime == FE_REGIME_LOSSY ? 8 : 0,
			.credit = {.buffer = 16384},
			.hosts_split = hosts_split};
	uint64_t last[2] = {0}, resent[2] = {0}, acks[2] = {0}, timeouts[2] = {0}, grants[2] = {0};
	const unsigned frames = 60;

	nic.model = model;
	if (cc) {
		nic.cc = cc;
		nic.cc_set = 1;
	}
	nic.timeout_ns = 500000; /* a lost tail: resent after 0.5 ms, not 67 */
	for (int split = 0; split < 2; split++) {
		char err[256];
		struct fe_dp *a = engine(split ? 1 : 0, &o, err, sizeof(err)), *b = NULL, *rx;
		unsigned rxp; /* host 3's port, on its box */
		uint64_t t = 1000000, t0;
		uint8_t ids[frames];
		unsigned n = 0;
		void *m;

		cr_assert_not_null(a, "%s", err);
		if (split) {
			b = engine(2, &o, err, sizeof(err));
			cr_assert_not_null(b, "%s", err);
		}
		rx = split && hosts_split ? b : a;
		rxp = split && hosts_split ? 0 : 2;
		learn(a, b, &t, o.lat_ns);
		t0 = t;
		for (unsigned i = 0; i < frames; i++) {
			inject_seq = (uint8_t)i;
			inject(0, MAC[2], 1000);
		}
		for (int k = 0; k < 200000 && (n < frames || a->ports[0].st.nic_copies); k++) {
			poll2(a, b, t, o.lat_ns);
			while (rte_ring_dequeue(txr[2], &m) == 0) {
				const uint8_t *f =
					rte_pktmbuf_mtod((struct rte_mbuf *)m, const uint8_t *);

				cr_assert_lt(n, frames, "frame %u: more than were sent", n);
				ids[n++] = f[51];
				last[split] = t - t0;
				rte_pktmbuf_free(m);
			}
			t += STEP;
		}
		/* the receiver then grants idle flows speculative credit, up to RCCC's maxwnd
		 * (fe_rccc.h): 2 ms for those grants to be sent and heard */
		for (int k = 0; k < 20000; k++, t += STEP)
			poll2(a, b, t, o.lat_ns);
		cr_assert_eq(n, frames, "%s: %u of %u delivered", split ? "split" : "one box", n,
			     frames);
		for (unsigned i = 0; i < n; i++)
			cr_assert_eq(ids[i], i, "in order: frame %u is %u", i, ids[i]);
		cr_assert_eq(a->ports[0].st.nic_copies, 0, "every frame acknowledged");
		cr_assert_eq(rx->ports[rxp].st.nic_stray, 0, "no frame lost its flow");
		cr_assert_gt(rx->ports[rxp].st.nic_acks_sent, 0, "host 3's NIC acknowledged");
		resent[split] = a->ports[0].st.nic_resent_pkts;
		timeouts[split] = a->ports[0].st.nic_timeouts;
		acks[split] = a->ports[0].st.nic_acks_recv;
		cr_assert_gt(acks[split], 0);
		grants[split] = a->ports[0].st.nic_credit_recv;
		if (fe_nic_cc_rccc(cc)) { /* every grant host 3's NIC made reached host 1's */
			cr_assert_gt(grants[split], 0, "%s: no grant heard",
				     split ? "split" : "one box");
			cr_assert_eq(grants[split], rx->ports[rxp].st.nic_credit_sent,
				     "grants heard %lu, sent %lu", grants[split],
				     rx->ports[rxp].st.nic_credit_sent);
		}
		if (split) {
			cr_assert_gt(trunk_of(a, "leaf1-spine1")->rx_frames, 0, "the ACKs crossed");
			cr_assert_eq(rx_bad(a) + rx_bad(b), 0);
		}
		done(a, b, avail);
	}
	if (regime == FE_REGIME_LOSSY)
		cr_assert_gt(resent[0], 0, "spine1 > leaf2 dropped, the NIC resent");
	else
		cr_assert_eq(resent[0], 0, "lossless: nothing resent");
	cr_assert_eq(resent[1], resent[0], "resent %lu split, %lu on one box", resent[1],
		     resent[0]);
	cr_assert_eq(timeouts[1], timeouts[0], "timeouts: %lu split, %lu on one box", timeouts[1],
		     timeouts[0]);
	cr_assert_eq(grants[1], grants[0], "grants: %lu split, %lu on one box", grants[1],
		     grants[0]);
	cr_assert(last[1] + 10 * STEP >= last[0] && last[1] <= last[0] + 10 * STEP,
		  "the last frame: %lu ns split, %lu ns on one box", last[1], last[0]);
}

static void
nic_split(enum fe_regime regime, enum fe_nic_model model, int hosts_split)
{
	nic_split_cc(regime, model, 0, hosts_split);
}

Test(split, an_ib_nic_flow_crosses_the_boxes)
{
	nic_split(FE_REGIME_CREDIT, FE_NIC_IB, 0);
}

Test(split, a_roce_nic_resends_across_the_boxes)
{
	nic_split(FE_REGIME_LOSSY, FE_NIC_ROCE, 0);
}

/* The same with the receiving host on the other box: its NIC keeps the flow's receiving
 * side there (the sender's is on box A), the tag's port numbered fabric-wide. */
Test(split, an_ib_nic_flow_to_a_host_on_the_other_box)
{
	nic_split(FE_REGIME_CREDIT, FE_NIC_IB, 1);
}

Test(split, a_roce_nic_resends_to_a_host_on_the_other_box)
{
	nic_split(FE_REGIME_LOSSY, FE_NIC_ROCE, 1);
}

/*
 * RCCC across the boxes (uec, lossy, trimming on spine1 > leaf2): each data frame carries
 * its pull target in its header's field (the trunk header's too), and the receiving NIC,
 * on box A or on box B, grants from it. Before, the receiver read the target from the
 * sender's copy of the frame, which a receiver on another box does not have, and RCCC was
 * refused on a split fabric. Each box gets what one box gets, grants included.
 */
/*
 * A uec NIC (selective repeat, NSCC) on a split fabric whose spine's box has no host: its
 * flows from other boxes' hosts hold a buffer for what arrives out of order. Stopping
 * that box read the window of a NIC it does not have (port 0's): a crash at exit.
 */
Test(split, a_uec_nic_crosses_a_box_without_hosts)
{
	nic_split_cc(FE_REGIME_LOSSY, FE_NIC_UEC, 0, 0);
}

Test(split, rccc_grants_across_the_boxes)
{
	nic_split_cc(FE_REGIME_LOSSY, FE_NIC_UEC, FE_CC_RCCC, 0);
}

Test(split, rccc_grants_to_a_host_on_the_other_box)
{
	nic_split_cc(FE_REGIME_LOSSY, FE_NIC_UEC, FE_CC_RCCC, 1);
}

Test(split, nscc_and_rccc_to_a_host_on_the_other_box)
{
	nic_split_cc(FE_REGIME_LOSSY, FE_NIC_UEC, FE_CC_NSCC_RCCC, 1);
}

/*
 * The receiving side of a flow from another box, by generation: frames of host 1's flow
 * (box A, its NIC's slot 5) reach host 3's NIC on box B as the trunk brings them, each
 * with its tag (sender port 0 fabric-wide, slot, generation, PSN). Generation 1, PSN 0
 * and 1: delivered. Generation 2 (the slot's new flow, or its sender started anew after
 * giving up) from PSN 0: a new flow, delivered. A late frame of generation 1: stray. A
 * tag naming a slot beyond the NICs' (from the wire, any byte), the sender's port here or
 * elsewhere: stray (the fuzzer found the one here read past the flows).
 */
Test(split, a_flow_from_another_box_follows_its_generations)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_nic_params nic = FE_NIC_DEFAULT;
	const struct opt o = {
		.regime = FE_REGIME_LOSSY, .lat_ns = 300, .nic = &nic, .hosts_split = 1};
	static const struct {
		unsigned gen, psn, port, slot, delivered, stray;
	} steps[] = {{1, 0, 0, 5, 1, 0}, {1, 1, 0, 5, 2, 0}, {2, 0, 0, 5, 3, 0},
		     {1, 2, 0, 5, 3, 1}, {2, 1, 0, 5, 4, 1}, {1, 0, 2, 200, 4, 2},
		     {1, 0, 0, 99, 4, 3}};
	struct rte_ring *scratch = rte_ring_create("fe-split-scratch", 16, 0, 0);
	unsigned leaf1 = 0, delivered = 0;
	const struct fe_trunk *tr;
	char err[256];
	struct fe_dp *b;
	uint64_t t = 1000000;

	nic.model = FE_NIC_ROCE;
	b = engine(2, &o, err, sizeof(err));
	cr_assert_not_null(b, "%s", err);
	cr_assert_not_null(scratch);
	while (strcmp(topo.sw[leaf1].name, "leaf1") != 0)
		leaf1++;
	tr = trunk_of(b, "leaf1-spine1");
	for (unsigned i = 0; i < RTE_DIM(steps); i++) {
		/* host 1 > host 3, lane 0, in by port 0 at leaf1 */
		uint64_t r = rte_cpu_to_be_64((uint64_t)(i + 1) << 48 | (uint64_t)leaf1 << 16 |
					      0 << 8 | 2);
		uint64_t tag = rte_cpu_to_be_64((uint64_t)steps[i].gen << 48 | 1ULL << 40 |
						(uint64_t)steps[i].port << 32 |
						(uint64_t)steps[i].slot << 24 | steps[i].psn);
		uint32_t late = 0;
		void *v;
		struct rte_mbuf *m;
		uint8_t *f;

		ring_udp(pool, scratch, MAC[2], MAC[0], 0, 7, 200, (uint8_t)i);
		cr_assert_eq(rte_ring_dequeue(scratch, &v), 0);
		m = v;
		f = (uint8_t *)rte_pktmbuf_prepend(m, FE_TRUNK_HDR);
		cr_assert_not_null(f);
		fe_trunk_hdr(f, MAC[0], FE_TRUNK_DATA, tr->recv);
		memcpy(f + 18, &late, 4);
		memcpy(f + 22, &r, 8);
		memcpy(f + 30, &tag, 8);
		memset(f + 38, 0, 4); /* no pull target (cc rccc's) */
		cr_assert_eq(rte_ring_enqueue(rxr[NH + NT + 0], m), 0);
		for (int k = 0; k < 100; k++)
			fe_dp_poll(b, t += STEP);
		delivered += sent(2);
		cr_assert_eq(delivered, steps[i].delivered,
			     "step %u (gen %u, PSN %u): %u delivered", i, steps[i].gen,
			     steps[i].psn, delivered);
		cr_assert_eq(b->ports[0].st.nic_stray, steps[i].stray, "step %u: %lu stray", i,
			     b->ports[0].st.nic_stray);
	}
	cr_assert_eq(tr->rx_bad, 0);
	cr_assert_gt(b->ports[0].st.nic_acks_sent, 0, "host 3's NIC acknowledged them");
	rte_ring_free(scratch);
	done(b, NULL, avail);
}

Test(split, pfc_pauses_cross_the_boxes)
{
	lossless(FE_REGIME_PFC);
}

/*
 * An incast across the boxes under o's regime, both boxes' hop links pumped at their
 * offers or not (pump_only): their counters in st[box][link], and leaf1's uplink on box a
 * (its pauses, its credit loop) in *up.
 */
static void
incast_pumped(const struct opt *o, int pump_only, struct fe_link_stats st[2][16],
	      struct fe_hoplink *up)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *a, *b;
	uint64_t t = 1000000;
	char err[256];

	a = engine(1, o, err, sizeof(err));
	cr_assert_not_null(a, "%s", err);
	b = engine(2, o, err, sizeof(err));
	cr_assert_not_null(b, "%s", err);
	a->graph->pump_only = b->graph->pump_only = (uint8_t)pump_only;
	learn(a, b, &t, o->lat_ns);
	incast(a, b, o, 400, &t);
	cr_assert_leq(a->graph->nhl, 16);
	for (unsigned h = 0; h < a->graph->nhl; h++) {
		st[0][h] = a->graph->hl[h].row.l.st;
		st[1][h] = b->graph->hl[h].row.l.st;
	}
	*up = *hop(a, "leaf1>spine1");
	done(a, b, avail);
}

/*
 * PFC on a link to another box: its pauses come when a trunk brings them, which can be
 * later in a pass than a frame offered to it, so its frames wait for the pass's pump
 * (fe_graph.c pfc_at_offer()), on both boxes: the same links as with pump_only.
 */
Test(split, pfc_frames_to_another_box_wait_for_the_pump)
{
	struct opt o = {.regime = FE_REGIME_PFC, .lat_ns = 300, .slow_down = 1000000000ULL};
	static struct fe_link_stats st[2][2][16];
	static struct fe_hoplink up[2];

	o.pfc = (struct fe_pfc_params){.xoff = 20000, .xon = 10000, .quanta = 65535};
	for (int p = 0; p < 2; p++)
		incast_pumped(&o, p, st[p], &up[p]);
	cr_assert_gt(up[0].row.pfc.prio[0].xoff_events, 0, "the spine pauses leaf1");
	cr_assert_eq(up[0].row.pfc.prio[0].xoff_events, up[1].row.pfc.prio[0].xoff_events,
		     "the same pauses");
	cr_assert_eq(memcmp(st[0], st[1], sizeof(st[0])), 0, "the links the same");
}

/*
 * Credits on a link to another box: its returns come when a trunk brings them, which can
 * be later in a pass than a frame offered to it, so its frames wait for the pass's pump
 * (fe_graph.c credit_at_offer()), on both boxes: the same links and credit waits as with
 * pump_only.
 */
Test(split, credit_frames_to_another_box_wait_for_the_pump)
{
	struct opt o = {.regime = FE_REGIME_CREDIT, .lat_ns = 300, .slow_down = 1000000000ULL};
	static struct fe_link_stats st[2][2][16];
	static struct fe_hoplink up[2];

	o.credit = (struct fe_credit_params){.buffer = 16384};
	for (int p = 0; p < 2; p++)
		incast_pumped(&o, p, st[p], &up[p]);
	cr_assert_gt(up[0].row.cred.stall_ticks[0], 0, "leaf1's uplink waits for credits");
	cr_assert_eq(up[0].row.cred.stall_ticks[0], up[1].row.cred.stall_ticks[0],
		     "the same credit waits");
	cr_assert_eq(memcmp(st[0], st[1], sizeof(st[0])), 0, "the links the same");
}

Test(split, credits_cross_the_boxes)
{
	lossless(FE_REGIME_CREDIT);
}

/* A frame over a trunk whose route names what this box cannot take (a lane it does not
 * run, a switch or a port the fabric has not) is refused and counted, not queued. */
Test(split, a_trunk_refuses_a_route_it_cannot_take)
{
	unsigned avail = rte_mempool_avail_count(pool);
	/* the credit buffer checked by every row that holds credits, a hop link's too */
	const struct opt o = {
		.regime = FE_REGIME_CREDIT, .lat_ns = 300, .credit = {.buffer = 16384}};
	/* lane 7 (1 runs), origin switch 200, ingress port 99 (4 in the fabric) */
	static const uint64_t routes[3] = {7ULL << 24 | 0 << 8 | 1, 200ULL << 16 | 0 << 8 | 1,
					   99ULL << 8 | 1};
	char err[256];
	struct fe_dp *b = engine(2, &o, err, sizeof(err));
	const struct fe_trunk *tr;

	cr_assert_not_null(b, "%s", err);
	tr = trunk_of(b, "leaf1-spine1");
	for (int i = 0; i < 3; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, FE_TRUNK_HDR + 60);
		uint64_t r = rte_cpu_to_be_64(routes[i]);

		memset(f, 0, FE_TRUNK_HDR + 60);
		fe_trunk_hdr(f, MAC[0], FE_TRUNK_DATA, tr->recv);
		memcpy(f + 22, &r, 8);
		memcpy(f + FE_TRUNK_HDR, MAC[1], 6);
		memcpy(f + FE_TRUNK_HDR + 6, MAC[0], 6);
		cr_assert_eq(rte_ring_enqueue(rxr[NH + NT + 0], m), 0);
	}
	fe_dp_poll(b, 1000000);
	cr_assert_eq(tr->rx_bad, 3, "refused: %lu", tr->rx_bad);
	cr_assert_eq(tr->rx_frames, 0);
	cr_assert_eq(b->graph->iq_pkts, 0, "nothing queued");
	done(b, NULL, avail);
}

/*
 * A frame a trunk brings is due when it left the other box, less how late it left, on
 * the receiving box's clock: live, the TSC, which runs ahead of the pass's tick, so that
 * it waits in the trunk's due queue for a pass at or past it (on a fake clock it is due
 * at once). Box B live with its passes at the fake clock's ticks, far behind the TSC:
 * the 5 frames host 1 sends host 3 then wait there, and stopped they are freed and
 * counted (rx_stopped). Every frame the trunk brought is one its switch took or one of
 * these; every frame box A sent over it, one it brought.
 */
Test(split, frames_not_yet_due_at_stop_are_counted)
{
	unsigned avail = rte_mempool_avail_count(pool);
	const struct opt o = {.regime = FE_REGIME_LOSSY, .lat_ns = 300};
	const struct fe_trunk *tx, *rx;
	const struct fe_hoplink *on;
	char err[256];
	struct fe_dp *a = engine(1, &o, err, sizeof(err)), *b;
	uint64_t t = 1000000;

	cr_assert_not_null(a, "%s", err);
	b = engine(2, &o, err, sizeof(err));
	cr_assert_not_null(b, "%s", err);
	learn(a, b, &t, o.lat_ns);
	tx = trunk_of(a, "leaf1-spine1");
	rx = trunk_of(b, "leaf1-spine1");
	on = hop(b, "spine1>leaf2");
	for (int i = 0; i < 3; i++) /* on the fake clock: due as they come */
		inject(0, MAC[2], 100);
	for (int k = 0; k < 100; k++)
		poll2(a, b, t += STEP, o.lat_ns);
	cr_assert_eq(sent(2), 3);
	cr_assert_eq(rx->due_tail - rx->due_head, 0, "none waited");
	b->live = 1; /* B's passes now run behind the TSC */
	for (int i = 0; i < 5; i++)
		inject(0, MAC[2], 100);
	for (int k = 0; k < 100; k++)
		poll2(a, b, t += STEP, o.lat_ns);
	cr_assert_eq(sent(2), 0, "not yet due on box B");
	cr_assert_eq(rx->due_tail - rx->due_head, 5, "the 5 wait for their tick");
	for (int w = 0; w < 2 * NT; w++)
		cr_assert_eq(wires[w].head, wires[w].tail, "every frame crossed");
	cr_assert_eq(rx->rx_stopped, 0, "0 while it runs");
	fe_dp_drain(b);
	cr_assert_eq(rx->rx_stopped, 5, "the 5 not yet due when it stopped: %lu",
		     (unsigned long)rx->rx_stopped);
	cr_assert_eq(rx->due_tail - rx->due_head, 0);
	/* leaf1's 2 hellos and the 8 frames; the spine sent the hellos and 3 on to leaf2 */
	cr_assert_eq(tx->tx_frames, 2 + 8);
	cr_assert_eq(rx->rx_frames, tx->tx_frames, "every frame box A sent, brought");
	cr_assert_eq(on->row.l.st.in_pkts, 2 + 3);
	cr_assert_eq(rx->rx_frames, on->row.l.st.in_pkts + rx->rx_stopped,
		     "brought %lu: %lu to the spine's switch, %lu stopped",
		     (unsigned long)rx->rx_frames, (unsigned long)on->row.l.st.in_pkts,
		     (unsigned long)rx->rx_stopped);
	cr_assert_eq(rx->rx_bad, 0);
	done(a, b, avail);
}
