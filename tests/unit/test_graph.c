/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several switches in the engine (fe_graph.h): a leaf-spine of 2 leaves and 2 spines with
 * 2 hosts a leaf, and a ring of 4 switches, over in-memory ports and a fake clock. A frame
 * crosses its hops on time; ECMP puts two flows whose hashes collide on one uplink and
 * adaptive routing splits them; spraying reorders and the counter sees it; a flood on a
 * cycle reaches every host once.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "fe_dp.h"
#include "fe_graphconf.h"
#include "ring_ports.h"

#define NP 4
#define HZ 1000000000ULL

static struct rte_mempool *pool;
static struct rte_ring *rxr[NP], *txr[NP];
static uint16_t ports[NP];
static const uint8_t MAC[NP][6] = {
	{2, 0xfe, 0, 0, 0, 1}, {2, 0xfe, 0, 0, 0, 2}, {2, 0xfe, 0, 0, 0, 3}, {2, 0xfe, 0, 0, 0, 4}};
static struct fe_graph_build gb;
static struct fe_topo topo;

static void
eal_up(void)
{
	pool = ring_eal_up("fe-test-graph");
	for (int i = 0; i < NP; i++)
		ports[i] = ring_port(i, pool, &rxr[i], &txr[i]);
}

static void
eal_down(void)
{
	ring_eal_down("fe-test-graph");
}

TestSuite(graph, .init = eal_up, .fini = eal_down);

/* Every link 1 us; fabric links at rate (0: none); link `slow` (a name) at 100 Mbit/s. */
static struct fe_dp *
engine(const char *kind, enum fe_path path, uint64_t rate, const char *slow)
{
	struct fe_topo_gen g = {
		.hosts = NP, .leaves = 2, .spines = 2, .hosts_per_leaf = 2, .switches = 4};
	struct fe_link_params fabric = {.delay_ns = 1000, .rate_bps = rate};
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {
		.mac_age_ns = 300000000000ULL, .lanes = 1, .seed = 1, .nic = FE_NIC_DEFAULT};
	char err[256];
	struct fe_dp *dp;

	snprintf(g.kind, sizeof(g.kind), "%s", kind);
	cr_assert_eq(fe_topo_generate(&g, &topo, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_graph_build(&topo, &fabric, path, NP, &gb, err, sizeof(err)), 0, "%s", err);
	for (unsigned l = 0; slow && l < topo.nlinks; l++)
		if (strcmp(topo.link[l].name, slow) == 0)
			gb.link[l].rate_bps = 100000000;
	conf.graph = &gb.conf;
	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	return dp;
}

static void
inject(int port, const uint8_t *dst, uint16_t sport, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f;

	cr_assert_not_null(m);
	f = (uint8_t *)rte_pktmbuf_append(m, len);
	cr_assert_not_null(f);
	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, MAC[port], 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17; /* UDP sport -> 9 */
	f[26] = 198;
	f[27] = 18;
	f[29] = (uint8_t)(port + 1);
	f[30] = 198;
	f[31] = 18;
	f[34] = (uint8_t)(sport >> 8);
	f[35] = (uint8_t)sport;
	f[37] = 9;
	cr_assert_eq(rte_ring_enqueue(rxr[port], m), 0);
}

static unsigned
sent(int i)
{
	void *m;
	unsigned n = 0;

	while (rte_ring_dequeue(txr[i], &m) == 0) {
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

static uint64_t
hop_out(const struct fe_dp *dp, const char *name)
{
	for (unsigned i = 0; i < dp->graph->nhl; i++)
		if (strcmp(dp->graph->hl[i].name, name) == 0)
			return dp->graph->hl[i].l.st.out_pkts;
	cr_assert_fail("no hop link %s", name);
	return 0;
}

/* Every host says hello (broadcast), so that every address is known. */
static void
learn(struct fe_dp *dp, uint64_t *t)
{
	static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

	for (int p = 0; p < NP; p++)
		inject(p, bc, 1, 60);
	for (int k = 0; k < 100; k++)
		fe_dp_poll(dp, *t += 1000);
	for (int p = 0; p < NP; p++)
		cr_assert_eq(sent(p), NP - 1, "host %d hears the other %d once each", p + 1,
			     NP - 1);
	*t += 100000;
}

static void
done(struct fe_dp *dp, unsigned avail)
{
	fe_dp_drain(dp);
	fe_dp_free(dp);
	cr_assert_eq(rte_mempool_avail_count(pool), avail);
}

Test(graph, hops_on_time)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine("leaf-spine", FE_PATH_ECMP, 0, NULL);
	uint64_t t = 1000000, before;

	learn(dp, &t);
	before = hop_out(dp, "leaf1>spine1") + hop_out(dp, "leaf1>spine2");
	inject(0, MAC[2], 100, 100);
	fe_dp_poll(dp, t);
	/* up 1 us, leaf1 > spine 1 us, spine > leaf2 1 us, down 1 us */
	fe_dp_poll(dp, t + 3999);
	cr_assert_eq(sent(2), 0);
	fe_dp_poll(dp, t + 4000);
	cr_assert_eq(sent(2), 1);
	cr_assert_eq(hop_out(dp, "leaf1>spine1") + hop_out(dp, "leaf1>spine2"), before + 1,
		     "one uplink, once");
	inject(0, MAC[1], 100, 100); /* the same leaf: no fabric hop */
	fe_dp_poll(dp, t + 10000);
	fe_dp_poll(dp, t + 12000);
	cr_assert_eq(sent(1), 1);
	done(dp, avail);
}

/* The uplink a flow from port 0 to port 2 takes under ECMP. */
static int
uplink_of(struct fe_dp *dp, uint16_t sport, uint64_t *t)
{
	uint64_t a = hop_out(dp, "leaf1>spine1"), b = hop_out(dp, "leaf1>spine2");

	inject(0, MAC[2], sport, 100);
	fe_dp_poll(dp, *t += 1000);
	fe_dp_poll(dp, *t += 10000);
	cr_assert_eq(sent(2), 1);
	return hop_out(dp, "leaf1>spine1") > a ? 1 : hop_out(dp, "leaf1>spine2") > b ? 2 : 0;
}

Test(graph, ecmp_collides_and_adaptive_splits)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine("leaf-spine", FE_PATH_ECMP, 0, NULL);
	uint64_t t = 1000000, a1, a2, b1, b2;
	uint16_t s1 = 1000, s2 = 1001;
	int u1;

	learn(dp, &t);
	u1 = uplink_of(dp, s1, &t);
	while (uplink_of(dp, s2, &t) != u1) /* a second flow whose hash picks the same uplink */
		s2++;
	cr_assert_eq(uplink_of(dp, s1, &t), u1, "a flow keeps its uplink");
	done(dp, avail);

	/* the two colliding flows, 8 frames each at once: ECMP, then adaptive */
	for (int adaptive = 0; adaptive < 2; adaptive++) {
		dp = engine("leaf-spine", adaptive ? FE_PATH_ADAPTIVE : FE_PATH_ECMP, 100000000,
			    NULL);
		t = 1000000;
		learn(dp, &t);
		a1 = hop_out(dp, "leaf1>spine1");
		a2 = hop_out(dp, "leaf1>spine2");
		for (int k = 0; k < 8; k++) {
			inject(0, MAC[2], s1, 1000);
			inject(0, MAC[2], s2, 1000);
		}
		for (int k = 0; k < 400; k++)
			fe_dp_poll(dp, t += 10000);
		cr_assert_eq(sent(2), 16);
		b1 = hop_out(dp, "leaf1>spine1") - a1;
		b2 = hop_out(dp, "leaf1>spine2") - a2;
		if (!adaptive)
			cr_assert((b1 == 16 && b2 == 0) || (b1 == 0 && b2 == 16),
				  "ECMP: both flows on one uplink (%lu, %lu)", (unsigned long)b1,
				  (unsigned long)b2);
		else
			cr_assert(b1 >= 6 && b2 >= 6, "adaptive: both uplinks used (%lu, %lu)",
				  (unsigned long)b1, (unsigned long)b2);
		done(dp, avail);
	}
}

Test(graph, spray_reorders_and_it_is_counted)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine("leaf-spine", FE_PATH_SPRAY, 1000000000, "leaf1-spine2");
	uint64_t t = 1000000, before;

	learn(dp, &t);
	before = hop_out(dp, "leaf1>spine1") + hop_out(dp, "leaf1>spine2");
	for (int k = 0; k < 10; k++)
		inject(0, MAC[2], 5000, 1000);
	for (int k = 0; k < 200; k++)
		fe_dp_poll(dp, t += 10000);
	cr_assert_eq(sent(2), 10);
	cr_assert_eq(hop_out(dp, "leaf1>spine1") + hop_out(dp, "leaf1>spine2"), before + 10);
	/* every other frame through the slow uplink: it arrives after later ones */
	cr_assert_gt(dp->graph->ooo[2], 0, "reordering seen at host 3");
	done(dp, avail);

	dp = engine("leaf-spine", FE_PATH_ECMP, 1000000000, "leaf1-spine2");
	t = 1000000;
	learn(dp, &t);
	for (int k = 0; k < 10; k++)
		inject(0, MAC[2], 5000, 1000);
	for (int k = 0; k < 200; k++)
		fe_dp_poll(dp, t += 10000);
	cr_assert_eq(sent(2), 10);
	cr_assert_eq(dp->graph->ooo[2], 0, "ECMP: one path a flow, in order");
	done(dp, avail);
}

Test(graph, flood_on_a_cycle_reaches_each_host_once)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine("ring", FE_PATH_ECMP, 0, NULL);
	uint64_t t = 1000000;

	learn(dp, &t); /* each broadcast once at each other host: checked there */
	inject(1, MAC[3], 7, 100);
	for (int k = 0; k < 20; k++)
		fe_dp_poll(dp, t += 1000);
	cr_assert_eq(sent(3), 1);
	cr_assert_eq(sent(0) + sent(1) + sent(2), 0);
	cr_assert_eq(fe_dp_held(dp), 0, "nothing circles");
	done(dp, avail);
}
