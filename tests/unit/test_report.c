/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every counter the report writes, read back through its writers: the counters JSON
 * (fe_report_doc(): `fabemuctl counters`, --stats-json) and the Prometheus text
 * (fe_prom_write()). Each scenario drives the engine over in-memory ports and a fake clock
 * into the state some counters count, then finds each of them nonzero in both. A counter
 * that can only be 0 is a bug; the last test walks the report's own tables, so that a
 * counter added to them with no scenario here fails it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "fe_ctl.h"
#include "fe_dp.h"
#include "fe_graphconf.h"
#include "fe_nic.h"
#include "fe_nicport.h"
#include "fe_report.h"
#include "fe_topo.h"
#include "nic_frames.h"
#include "ring_ports.h"

#define NP   3
#define HZ   1000000000ULL /* fake TSC: 1 tick = 1 ns */
#define AGE  300000000000ULL
#define TOUT 67108864ULL /* the NIC's default retransmission timeout (ns) */

static struct rte_mempool *pool;
static struct rte_ring *rxr[NP], *txr[NP];
static uint16_t ports[NP];
static const uint8_t MAC[NP][6] = {
	{0x02, 0xfe, 0, 0, 0, 0xa}, {0x02, 0xfe, 0, 0, 0, 0xb}, {0x02, 0xfe, 0, 0, 0, 0xc}};
static const uint8_t BCAST[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static void
eal_up(void)
{
	pool = ring_eal_up("fe-test-report");
	for (int i = 0; i < NP; i++)
		ports[i] = ring_port(i, pool, &rxr[i], &txr[i]);
}

static void
eal_down(void)
{
	ring_eal_down("fe-test-report");
}

TestSuite(report, .init = eal_up, .fini = eal_down);

/* ---- reading a counter back through the report ---- */

/*
 * A counter as the report names it: "OBJ.NAME", OBJ one of port, link, switch, idle,
 * lane (the objects of fe_report.h's tables, and the lanes of the lossless regimes).
 */
static void
split(const char *want, char *obj, size_t olen, const char **name)
{
	const char *dot = strchr(want, '.');

	cr_assert_not_null(dot, "%s: OBJ.NAME", want);
	cr_assert_lt((size_t)(dot - want), olen);
	memcpy(obj, want, (size_t)(dot - want));
	obj[dot - want] = '\0';
	*name = dot + 1;
}

/* 1 if some object of array a (a JSON array; NULL: none) has name > 0. */
static int
any_nonzero(const json_t *a, const char *name)
{
	size_t i;
	json_t *o;

	json_array_foreach(a, i, o) if (json_integer_value(json_object_get(o, name)) > 0) return 1;
	return 0;
}

/* The counters JSON: obj.name nonzero on some port, link, lane, or the switch. */
static int
json_nonzero(const json_t *doc, const char *obj, const char *name)
{
	const json_t *g = json_object_get(doc, "graph");
	const json_t *fab = json_object_get(g, "fabric_links");
	size_t i;
	json_t *l;

	if (strcmp(obj, "port") == 0)
		return any_nonzero(json_object_get(doc, "ports"), name);
	if (strcmp(obj, "link") == 0)
		return any_nonzero(json_object_get(doc, "links"), name) || any_nonzero(fab, name);
	if (strcmp(obj, "switch") == 0 || strcmp(obj, "idle") == 0)
		return json_integer_value(json_object_get(json_object_get(doc, obj), name)) > 0;
	cr_assert_str_eq(obj, "lane");
	if (any_nonzero(json_object_get(doc, "lane_counters"), name))
		return 1;
	json_array_foreach(fab, i, l) if (any_nonzero(json_object_get(l, "lanes"), name)) return 1;
	return 0;
}

/* The Prometheus text: a sample of fabemu_OBJ_NAME above 0. */
static int
prom_nonzero(const char *text, const char *obj, const char *name)
{
	char family[128];
	size_t n;

	snprintf(family, sizeof(family), "fabemu_%s_%s", obj, name);
	n = strlen(family);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n'), *v;

		if (strncmp(l, family, n) != 0 || (l[n] != '{' && l[n] != ' '))
			continue;
		v = l + n;
		if (*v == '{')
			v = strchr(v, '}') + 1;
		if (strtod(v, NULL) > 0 && (end == NULL || v < end))
			return 1;
	}
	return 0;
}

/* Each of want (NULL-terminated "OBJ.NAME") is nonzero in the JSON and in Prometheus. */
static void
expect(const struct fe_dp *dp, const char *what, const char *const *want)
{
	json_t *doc = fe_report_doc(dp);
	char *prom = NULL, obj[16];
	size_t len = 0;
	FILE *f = open_memstream(&prom, &len);

	cr_assert_not_null(doc);
	cr_assert_not_null(f);
	fe_prom_write(f, dp);
	cr_assert_eq(fclose(f), 0);
	for (; *want; want++) {
		const char *name;

		split(*want, obj, sizeof(obj), &name);
		cr_expect(json_nonzero(doc, obj, name),
			  "%s: %s is 0 or absent in the counters JSON", what, *want);
		cr_expect(prom_nonzero(prom, obj, name), "%s: %s is 0 or absent in Prometheus",
			  what, *want);
	}
	if (getenv("FE_REPORT_DUMP") != NULL) /* the document, to see what a scenario made */
		json_dumpf(doc, stderr, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	free(prom);
	json_decref(doc);
}

/* ---- engines and traffic ---- */

static struct fe_dp *
engine(struct fe_dp_conf *conf, const struct fe_linkdef *up, const struct fe_linkdef *down)
{
	char err[256];
	struct fe_dp *dp;

	conf->mac_age_ns = conf->mac_age_ns ? conf->mac_age_ns : AGE;
	conf->lanes = conf->lanes ? conf->lanes : 1;
	conf->seed = conf->seed ? conf->seed : 7;
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	return dp;
}

static void
inject_raw(int port, const uint8_t *f, uint16_t len)
{
	ring_frame(pool, rxr[port], f, len);
}

/* A TCP frame of len bytes from host src to MAC dst, ECN bits ecn, IP id id. */
static void
inject_tcp(int src, const uint8_t *dst, uint16_t len, uint8_t ecn, uint16_t id)
{
	uint8_t f[1514];

	cr_assert_leq(len, sizeof(f));
	tcp_frame(f, len, MAC[src], dst, ecn, id);
	inject_raw(src, f, len);
}

/* Every host announces itself (a broadcast each), delivered by tick t; all taken. */
static void
learn(struct fe_dp *dp, uint64_t t)
{
	uint8_t f[60] = {0};

	for (int i = 0; i < NP; i++) {
		memcpy(f, BCAST, 6);
		memcpy(f + 6, MAC[i], 6);
		f[12] = 0x88;
		f[13] = 0xb5;
		inject_raw(i, f, sizeof(f));
		fe_dp_poll(dp, 1 + (uint64_t)i);
	}
	fe_dp_poll(dp, t);
	for (int i = 0; i < NP; i++)
		ring_drain(txr[i]);
}

/* Poll from *t in steps of step to *t + span; what the hosts got is taken. */
static void
run(struct fe_dp *dp, uint64_t *t, uint64_t span, uint64_t step)
{
	for (uint64_t end = *t + span; *t < end;) {
		*t += step;
		fe_dp_poll(dp, *t);
		fe_dp_poll(dp, *t); /* what a pass consumed at its end acts at once */
		for (int i = 0; i < NP; i++)
			ring_drain(txr[i]);
	}
}

static void
done(struct fe_dp *dp)
{
	fe_dp_drain(dp);
	fe_dp_free(dp);
	for (int i = 0; i < NP; i++) {
		ring_drain(txr[i]);
		ring_drain(rxr[i]);
	}
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size, "every mbuf back in the pool");
}

/* ---- the scenarios: what each shows nonzero ---- */

/*
 * Lossy, an incast: hosts 0 and 1 send host 2 (its down link 10 Mbit/s, 100 us, 8 frames
 * of buffer, ECN-marking) more than it holds; host 0 sends itself a frame and a runt.
 */
static const char *const incast_busy[] = {
	"link.q_pkts",
	"link.q_bytes",
	"link.wire_pkts",
	NULL,
};
static const char *const incast_after[] = {
	"port.rx_pkts",
	"port.rx_bytes",
	"port.tx_pkts",
	"port.tx_bytes",
	"link.in_pkts",
	"link.in_bytes",
	"link.out_pkts",
	"link.out_bytes",
	"link.drop_tail_pkts",
	"link.drop_tail_bytes",
	"link.ecn_marked",
	"link.q_pkts_peak",
	"link.q_bytes_peak",
	"switch.unicast",
	"switch.flooded",
	"switch.filtered",
	"switch.runts",
	"idle.polls",
	NULL,
};
static const char *const incast_stopped[] = {
	"link.stopped_pkts",
	"link.stopped_bytes",
	NULL,
};

/*
 * Which extended statistics are a PMD's own drop counters: the names of real PMDs' (mlx5,
 * ice, ixgbe, i40e) against ethdev's generic ones, which imissed and the others hold.
 */
Test(report, xstats_that_count_drops)
{
	static const struct {
		const char *name;
		int side;
	} cases[] = {
		{"rx_discards_phy", 1},
		{"rx_out_of_buffer", 1},
		{"rx_dropped_packets", 1},
		{"rx_priority0_dropped", 1},
		{"rx_prio3_buf_discard", 1},
		{"rx_mbuf_alloc_no_buf", 1},
		{"rx_fifo_overflow", 1},
		{"tx_discards_phy", 2},
		{"tx_dropped_packets", 2},
		{"rx_missed_errors", 0},
		{"rx_errors", 0},
		{"rx_mbuf_allocation_errors", 0},
		{"rx_q0_errors", 0},
		{"tx_q12_errors", 0},
		{"rx_q1_packets", 0},
		{"rx_good_packets", 0},
		{"rx_crc_errors", 0},
		{"tx_good_bytes", 0},
		{"rx_discards_bytes_phy", 0}, /* bytes, not frames */
		{"rx_drop_octets", 0},
		{"tx_dropped_bytes", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(fe_report_xstat_drop(cases[i].name), cases[i].side, "%s",
			     cases[i].name);
}

/*
 * What the box's NIC lost: its own drop counters where they say more than the generic
 * ones, else those; never both added (they may count the same frames).
 */
Test(report, the_nic_lost_the_more_of_its_counters)
{
	struct fe_eth_counters e = {.imissed = 3, .rx_nombuf = 1, .ierrors = 1, .oerrors = 2};

	e.xdrops_rx = 10;
	cr_expect_eq(fe_report_nic_lost_rx(&e), 10);
	e.xdrops_rx = 4;
	cr_expect_eq(fe_report_nic_lost_rx(&e), 5, "3 + 1 + 1, not 9");
	e.xdrops_tx = 1;
	cr_expect_eq(fe_report_nic_lost_tx(&e), 2);
	e.xdrops_tx = 6;
	cr_expect_eq(fe_report_nic_lost_tx(&e), 6);
}

Test(report, lossy_incast)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY};
	struct fe_dp *dp;
	uint64_t t = 100000;
	uint8_t runt[10] = {0};

	down[2].link =
		(struct fe_link_params){.rate_bps = 10000000, .delay_ns = 100000, .limit_pkts = 8};
	down[2].ecn = (struct fe_ecn_params){.enabled = 1, .kmin = 1000, .kmax = 4000, .pmax = 1};
	dp = engine(&conf, up, down);
	learn(dp, 10000);
	for (uint16_t k = 0; k < 20; k++) {
		inject_tcp(0, MAC[2], 1000, 2, k);
		inject_tcp(1, MAC[2], 1000, 2, k);
	}
	inject_tcp(0, MAC[0], 100, 0, 0); /* to itself: filtered */
	inject_raw(0, runt, sizeof(runt));
	fe_dp_poll(dp, t += 1000);
	fe_dp_poll(dp, t += 870000); /* the first frame on the wire (819 us + 100 us) */
	expect(dp, "incast, busy", incast_busy);
	run(dp, &t, 50000000, 100000);
	expect(dp, "incast, after", incast_after);
	for (uint16_t k = 0; k < 4; k++)
		inject_tcp(0, MAC[2], 1000, 2, k);
	fe_dp_poll(dp, t += 1000);
	fe_dp_drain(dp);
	expect(dp, "incast, stopped", incast_stopped);
	done(dp);
}

/*
 * Lossy: port 0's up link (1 Gbit/s) holds 200 frames for port 2 when a pass comes 10 ms
 * late and takes them all in one round: port 2's egress staging holds four bursts
 * (fe_egress.h), the first four are offered at once.
 */
static const char *const egress_want[] = {
	"switch.egress_early",
	NULL,
};

/* Lossy: ports 0 .. senders - 1 with up links of 1 Gbit/s and 1 us, port 2's down link
 * of 1 Gbit/s and 1,000 frames; learned. */
static struct fe_dp *
staged_engine(int senders)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY};
	struct fe_dp *dp;

	for (int i = 0; i < senders; i++)
		up[i].link = (struct fe_link_params){.rate_bps = 1000000000ULL, .delay_ns = 1000};
	down[2].link = (struct fe_link_params){.rate_bps = 1000000000ULL, .limit_pkts = 1000};
	dp = engine(&conf, up, down);
	learn(dp, 10000);
	return dp;
}

Test(report, egress_stage_full)
{
	struct fe_dp *dp = staged_engine(1);
	uint64_t t = 100000;

	for (uint16_t k = 0; k < 200; k++)
		inject_tcp(0, MAC[2], 100, 0, k);
	fe_dp_poll(dp, t += 1000);
	fe_dp_poll(dp, t += 10000000);
	expect(dp, "egress staging full", egress_want);
	cr_assert_eq(dp->sw.egress_early, FE_ESTAGE);
	run(dp, &t, 1000000, 10000);
	cr_assert_eq(dp->ports[2].down.l.st.out_pkts, 200 + NP - 1, "the hellos and the 200: %lu",
		     (unsigned long)dp->ports[2].down.l.st.out_pkts);
	done(dp);
}

/*
 * Lossy: ports 0 and 1 (up links at 1 Gbit/s) each bring port 2 ten frames, 1,000 and
 * 100 bytes, read in one pass and switched in the next: one port's frames are switched
 * before the other's, and the down link is offered them merged by their ticks.
 */
static const char *const reordered_want[] = {
	"switch.egress_reordered",
	NULL,
};

Test(report, egress_reordered)
{
	struct fe_dp *dp = staged_engine(2);
	uint64_t t = 100000;

	for (uint16_t k = 0; k < 10; k++) {
		inject_tcp(0, MAC[2], 1000, 0, k);
		inject_tcp(1, MAC[2], 100, 0, k);
	}
	fe_dp_poll(dp, t += 1000);
	fe_dp_poll(dp, t += 1000000);
	expect(dp, "frames merged by their ticks", reordered_want);
	cr_assert_eq(dp->sw.egress_early, 0);
	run(dp, &t, 1000000, 10000);
	cr_assert_eq(dp->ports[2].down.l.st.out_pkts, 20 + NP - 1, "the hellos and the 20: %lu",
		     (unsigned long)dp->ports[2].down.l.st.out_pkts);
	done(dp);
}

/*
 * The impairments, a link each: random loss on 0.up, bursty on 1.up, an exact rule on
 * 2.up; 0.down drops what ECN hits and cannot mark.
 */
static const char *const impair_want[] = {
	"link.drop_random_pkts", "link.drop_random_bytes", "link.drop_burst_pkts",
	"link.drop_burst_bytes", "link.drop_exact_pkts",   "link.drop_exact_bytes",
	"link.drop_aqm_pkts",	 "link.drop_aqm_bytes",	   NULL,
};

Test(report, impairments)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY};
	struct fe_dp *dp;
	uint64_t t = 100000;

	up[0].loss = (struct fe_loss_params){.kind = FE_LOSS_BERNOULLI, .p = 0.5};
	up[1].loss = (struct fe_loss_params){
		.kind = FE_LOSS_GE, .p = 0.5, .r = 0.5, .loss_bad = 1, .loss_good = 0};
	up[2].drop_first = 2;
	up[2].drop_count = 3;
	down[0].link = (struct fe_link_params){.rate_bps = 10000000};
	down[0].ecn = (struct fe_ecn_params){
		.enabled = 1, .kmin = 100, .kmax = 200, .pmax = 1, .drop_non_ect = 1};
	down[2].link = (struct fe_link_params){.rate_bps = 10000000};
	dp = engine(&conf, up, down);
	learn(dp, 10000);
	for (uint16_t k = 0; k < 40; k++) {
		inject_tcp(1, MAC[0], 500, 0, k); /* not ECN-capable, into 0.down's ECN */
		inject_tcp(0, MAC[2], 1000, 0, k);
		inject_tcp(2, MAC[1], 60, 0, k);
	}
	run(dp, &t, 2000000, 10000);
	expect(dp, "impairments", impair_want);
	done(dp);
}

/*
 * Link-level retry: 0.up loses everything (given up: drop_llr), 1.up a fifth (replays);
 * what it delivers fills a shared switch buffer of 3000 bytes before 2.down (10 Mbit/s).
 */
static const char *const llr_want[] = {
	"link.llr_replays",    "link.drop_llr_pkts",   "link.drop_llr_bytes",
	"link.drop_pool_pkts", "link.drop_pool_bytes", NULL,
};

Test(report, llr)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY, .switch_buffer = 3000};
	struct fe_dp *dp;
	uint64_t t = 100000;

	down[2].link.rate_bps = 10000000;
	up[0].loss = (struct fe_loss_params){.kind = FE_LOSS_BERNOULLI, .p = 1};
	up[0].llr = 1;
	up[1].loss = (struct fe_loss_params){.kind = FE_LOSS_BERNOULLI, .p = 0.2};
	up[1].llr = 1;
	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = 1000;
	dp = engine(&conf, up, down);
	learn(dp, 10000);
	for (uint16_t k = 0; k < 50; k++) {
		inject_tcp(0, MAC[2], 200, 0, k);
		inject_tcp(1, MAC[2], 200, 0, k);
	}
	run(dp, &t, 5000000, 2000);
	expect(dp, "llr", llr_want);
	done(dp);
}

/*
 * PFC, real pause frames: host 0 sends host 1 (1 Mbit/s) 40 frames of 100 bytes at once
 * over an up link of 100 Mbit/s and 100 us; XOFF at 300 bytes, 200 bytes of headroom:
 * what was on its way past that is dropped, and host 0's adapter queue (4 frames) fills
 * while paused; host 2 does the same. Host 0's port takes nothing (its TX ring full): host 1's
 * frames for it fill its TX staging, where its pause frames then find no room (lost); the staged
 * frames are freed at the stop.
 */
static const char *const pfc_busy[] = {
	"lane.held_bytes",
	"lane.pause_frames",
	"lane.xoff_events",
	"lane.paused_ns",
	"port.pfc_frames_out",
	"port.pfc_frames_lost",
	"port.rx_held",
	"port.tx_busy",
	"link.drop_headroom_pkts",
	"link.drop_headroom_bytes",
	NULL,
};
static const char *const pfc_stopped[] = {
	"port.tx_stopped",
	NULL,
};

/* Fill ring r (a port's TX ring): its PMD takes nothing more. */
static void
ring_fill(struct rte_ring *r)
{
	for (;;) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		cr_assert_not_null(m);
		if (rte_ring_enqueue(r, m) != 0) {
			rte_pktmbuf_free(m);
			return;
		}
	}
}

Test(report, pfc)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_PFC,
		.pfc = {.xoff = 300, .xon = 100, .headroom = 200, .quanta = 65535, .frames = 1}};
	struct fe_dp *dp;
	uint64_t t = 100000;

	up[0].link = up[2].link =
		(struct fe_link_params){.rate_bps = 100000000, .delay_ns = 100000, .limit_pkts = 4};
	down[1].link = (struct fe_link_params){.rate_bps = 1000000};
	dp = engine(&conf, up, down);
	learn(dp, 10000);
	ring_fill(txr[0]);
	for (uint16_t k = 0; k < 60; k++) /* host 1 sends host 0, whose port takes nothing */
		inject_tcp(1, MAC[0], 100, 0, k);
	for (int k = 0; k < 10; k++)
		fe_dp_poll(dp, t += 10000);
	for (uint16_t k = 0; k < 40; k++) {
		inject_tcp(0, MAC[1], 100, 0, k);
		inject_tcp(2, MAC[1], 100, 0, k);
	}
	for (int k = 0; k < 50; k++) {
		fe_dp_poll(dp, t += 10000);
		ring_drain(txr[1]);
		ring_drain(txr[2]);
	}
	expect(dp, "pfc, paused", pfc_busy);
	fe_dp_drain(dp);
	expect(dp, "pfc, stopped", pfc_stopped);
	done(dp);
}

/*
 * The PFC watchdog (2 ms) on host 1's port, host 1 pausing it (a pause storm) while host
 * 0 sends it: action drop drops what waits, action forward sends it through the pause.
 */
static const char *const wd_drop[] = {
	"port.pfc_wd_storms",
	"link.drop_watchdog_pkts",
	"link.drop_watchdog_bytes",
	"link.held_ns",
	NULL,
};
static const char *const wd_forward[] = {
	"port.pfc_wd_forwarded",
	NULL,
};

static void
storm(enum fe_pfc_wd_action action, const char *const *want)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_PFC,
				  .pfc = {.xoff = 20000,
					  .xon = 10000,
					  .quanta = 65535,
					  .watchdog_ns = 2000000,
					  .watchdog_action = action}};
	struct fe_dp *dp;
	uint64_t t = 100000;

	for (int i = 0; i < NP; i++)
		up[i].link = down[i].link = (struct fe_link_params){.rate_bps = 1000000000};
	dp = engine(&conf, up, down);
	learn(dp, 10000);
	fe_link_hold(&dp->ports[1].down.l, t, t + 1000000000ULL);
	dp->ports[1].hold_from = t;
	for (uint16_t k = 0; k < 20; k++)
		inject_tcp(0, MAC[1], 1000, 0, k);
	run(dp, &t, 20000000, 1000);
	expect(dp, action == FE_PFC_WD_DROP ? "watchdog, drop" : "watchdog, forward", want);
	done(dp);
}

Test(report, pfc_watchdog)
{
	storm(FE_PFC_WD_DROP, wd_drop);
	storm(FE_PFC_WD_FORWARD, wd_forward);
}

/*
 * Credits, InfiniBand's input-queued switch: 4 KiB of credits a lane, an output buffer
 * of one frame; host 1's down link 1 Mbit/s, HOQLife 2 ms. Hosts 0 and 2 send host 1
 * more than it takes: their input queues fill, their senders stall for credits, heads
 * past HOQLife are discarded; what waits at the stop is freed and counted.
 */
static const char *const credit_busy[] = {
	"lane.credits",	      "lane.credits_min",    "lane.stall_ns",
	"lane.iq_depth",      "lane.iq_peak",	     "lane.iq_peak_blocks",
	"link.drop_hoq_pkts", "link.drop_hoq_bytes", NULL,
};
static const char *const credit_stopped[] = {
	"lane.iq_stopped",
	NULL,
};

Test(report, credit)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_CREDIT,
		.credit = {.buffer = 4096, .out_pkts = 1, .hoq_life_ns = 2000000}};
	struct fe_dp *dp;
	uint64_t t = 100000;

	down[1].link = (struct fe_link_params){.rate_bps = 1000000};
	dp = engine(&conf, up, down);
	learn(dp, 20000000);
	t = 20000000;
	for (uint16_t k = 0; k < 30; k++) {
		inject_tcp(0, MAC[1], 1000, 0, k);
		inject_tcp(2, MAC[1], 1000, 0, k);
	}
	for (int k = 0; k < 500; k++) { /* 5 ms */
		fe_dp_poll(dp, t += 10000);
		ring_drain(txr[1]);
	}
	expect(dp, "credit, busy", credit_busy);
	fe_dp_drain(dp);
	expect(dp, "credit, stopped", credit_stopped);
	done(dp);
}

/*
 * Credits given back in messages of 1500 bytes (24 blocks; credit: update): host 0 sends
 * host 1 eleven frames of 1000 bytes (16 blocks each), whose credits go back two frames
 * a message: five messages, and the eleventh frame's 16 blocks gathering.
 */
static const char *const credit_msgs_want[] = {
	"lane.credit_updates",
	"lane.credits_unsent",
	NULL,
};

Test(report, credit_messages)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .credit = {.buffer = 4096, .out_pkts = 1, .update = 1500}};
	struct fe_lane_counters lc;
	struct fe_dp *dp;
	uint64_t t = 20000000;

	dp = engine(&conf, up, down);
	learn(dp, t);
	for (uint16_t k = 0; k < 11; k++)
		inject_tcp(0, MAC[1], 1000, 0, k);
	for (int k = 0; k < 100; k++) {
		fe_dp_poll(dp, t += 10000);
		ring_drain(txr[1]);
	}
	expect(dp, "credit, messages", credit_msgs_want);
	cr_assert_eq(dp->ports[0].up.cred.updates[0], 5);
	cr_assert_eq(dp->ports[0].up.cred.unsent[0], 16);
	/* the credits gauge: every block back that is not gathering, though the sender has
	 * not needed them since (returns are taken as it next needs them) */
	fe_report_lane(dp, 0, 0, &lc);
	cr_assert_eq(lc.credits, 64 - 16, "credits %lu", (unsigned long)lc.credits);
	cr_assert_eq(lc.credits_unsent, 16);
	cr_assert_eq(lc.credit_updates, 5);
	done(dp);
}

/*
 * The edge pause (host 0's frames in a NIC's ring): its adapter queue of 4 frames fills
 * behind the credits, and the host is paused with a real frame.
 */
static const char *const epause_want[] = {
	"port.edge_xoff",
	NULL,
};

Test(report, edge_pause)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	const struct fe_wire wire[NP] = {{.bps = 10000000000ULL, .rxd = 1023, .pause = 1}};
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .credit = {.buffer = 4096, .out_pkts = 1},
				  .wire = wire};
	struct fe_dp *dp;
	uint64_t t = 20000000;

	up[0].link.limit_pkts = 4;
	down[1].link = (struct fe_link_params){.rate_bps = 1000000};
	dp = engine(&conf, up, down);
	learn(dp, t);
	for (uint16_t k = 0; k < 30; k++)
		inject_tcp(0, MAC[1], 1000, 0, k);
	for (int k = 0; k < 100; k++) {
		fe_dp_poll(dp, t += 10000);
		ring_drain(txr[1]);
	}
	expect(dp, "edge pause", epause_want);
	cr_assert_gt(FE_CNT_GET(dp->ports[0].st.pfc_frames_out), 0, "no pause frame sent");
	fe_dp_drain(dp);
	done(dp);
}

/*
 * The reserved group addresses (IEEE 802.1Q): one frame of each cause from host 0; they
 * stop at the switch, counted by cause.
 */
static const char *const reserved_want[] = {
	"switch.reserved_pause",
	"switch.reserved_pfc",
	"switch.reserved_lldp",
	"switch.reserved_stp",
	"switch.reserved_slow",
	"switch.reserved_other",
	NULL,
};

Test(report, reserved_addresses)
{
	static const struct {
		uint8_t dst5;
		uint16_t type;
		uint8_t p0, p1;
	} r[] = {
		{0x01, 0x8808, 0x00, 0x01}, /* PAUSE */
		{0x01, 0x8808, 0x01, 0x01}, /* PFC */
		{0x0e, 0x88cc, 0x02, 0x07}, /* LLDP */
		{0x00, 38, 0x42, 0x42},	    /* STP */
		{0x02, 0x8809, 0x01, 0x01}, /* slow protocols */
		{0x03, 0x888e, 0x01, 0x00}, /* another (EAPOL) */
	};
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY};
	struct fe_dp *dp = engine(&conf, up, down);
	uint64_t t = 1000;

	for (unsigned i = 0; i < RTE_DIM(r); i++) {
		uint8_t f[60] = {0x01, 0x80, 0xc2, 0, 0, r[i].dst5};

		memcpy(f + 6, MAC[0], 6);
		f[12] = (uint8_t)(r[i].type >> 8);
		f[13] = (uint8_t)r[i].type;
		f[14] = r[i].p0;
		f[15] = r[i].p1;
		inject_raw(0, f, sizeof(f));
	}
	run(dp, &t, 100000, 1000);
	expect(dp, "reserved", reserved_want);
	done(dp);
}

/*
 * Under PFC a host's own PFC frames (802.1Qbb): host 1 pauses its port (XOFF), then
 * resumes it (XON); both obeyed on its down link, counted on its port.
 */
static const char *const host_pfc_want[] = {
	"port.host_pfc_xoff",
	"port.host_pfc_xon",
	NULL,
};

Test(report, host_pfc)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_PFC,
				  .pfc = {.xoff = 64 << 10, .xon = 32 << 10, .quanta = 65535}};
	struct fe_dp *dp;
	uint64_t t = 1000;
	uint8_t f[60] = {0};

	down[1].link = (struct fe_link_params){.rate_bps = 100000000};
	dp = engine(&conf, up, down);
	fe_pfc_frame(f, MAC[1], 3, 1000);
	inject_raw(1, f, sizeof(f));
	run(dp, &t, 100000, 1000);
	fe_pfc_frame(f, MAC[1], 3, 0);
	inject_raw(1, f, sizeof(f));
	run(dp, &t, 100000, 1000);
	expect(dp, "host pfc", host_pfc_want);
	done(dp);
}

/*
 * Flood copies with no mbuf: the switch's pool for copies (dp->pool) holds 8 mbufs and
 * the hosts take nothing, so the copies of 40 broadcasts soon find it empty.
 */
static const char *const nombuf_want[] = {
	"switch.nombuf",
	NULL,
};

Test(report, flood_copies_without_mbufs)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY, .mac_age_ns = AGE, .lanes = 1};
	struct rte_mempool *tiny =
		rte_pktmbuf_pool_create("tiny", 8, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	char err[256];
	struct fe_dp *dp;
	uint64_t t = 1000;

	cr_assert_not_null(tiny);
	for (int i = 0; i < NP; i++)
		down[i].link.delay_ns = 1000000; /* the copies stay on the links */
	dp = fe_dp_create(NP, ports, up, down, tiny, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	for (uint16_t k = 0; k < 40; k++)
		inject_tcp(0, BCAST, 100, 0, k);
	fe_dp_poll(dp, t += 1000);
	fe_dp_poll(dp, t += 1000);
	expect(dp, "flood copies", nombuf_want);
	done(dp);
	rte_mempool_free(tiny);
}

/*
 * The pipeline (two lcores), its stages polled apart: the up stage alone hands port 1
 * more than its handoff ring holds (full), and what waits there at the stop is freed.
 */
static const char *const pipeline_want[] = {
	"switch.handoff_full",
	"switch.handoff_stopped",
	NULL,
};

Test(report, pipeline)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY, .lcores = 2};
	struct rte_mempool *big =
		rte_pktmbuf_pool_create("big", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	struct fe_dp *dp;
	uint64_t t = 10;

	cr_assert_not_null(big);
	dp = engine(&conf, up, down);
	cr_assert_not_null(dp->handoff, "two lcores: a pipeline");
	inject_tcp(1, BCAST, 100, 0, 0); /* host 1 learned */
	fe_dp_poll_role(dp, FE_ROLE_UP, t);
	fe_dp_poll_role(dp, FE_ROLE_DOWN, t);
	for (unsigned r = 0; r < 5; r++) { /* the up stage alone: 1000 at a time */
		for (unsigned k = 0; k < 1000; k++)
			ring_udp(big, rxr[0], MAC[1], MAC[0], 0, 0, 64, (uint8_t)k);
		while (rte_ring_count(rxr[0]) > 0)
			fe_dp_poll_role(dp, FE_ROLE_UP, t += 10);
	}
	fe_dp_drain(dp);
	expect(dp, "pipeline", pipeline_want);
	done(dp);
	cr_assert_eq(rte_mempool_avail_count(big), big->size, "every mbuf back in its pool");
	rte_mempool_free(big);
}

/*
 * The loop itself (fe_dp_run()), idle: it sleeps (1 ms at most, after one empty pass)
 * until --exit-idle's 20 ms with no traffic end it.
 */
static const char *const idle_want[] = {
	"idle.polls",
	"idle.sleeps",
	"idle.slept_ns",
	NULL,
};

Test(report, idle_loop)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY,
				  .idle_sleep_ns = 1000000,
				  .idle_spin = 1,
				  .exit_idle_ns = 20000000};
	struct fe_dp *dp = engine(&conf, up, down);
	const volatile int stop = 0;

	dp->hz = rte_get_tsc_hz(); /* the loop's clock is the TSC */
	fe_dp_run(dp, &stop);
	expect(dp, "idle", idle_want);
	done(dp);
}

/*
 * Several switches: a leaf-spine of two leaves and two spines, host 2 alone on leaf2.
 * Each host's broadcast crosses its leaf, both spines and the other leaf; the spine that
 * is no branch of its tree ends it. The links between switches are the report's too.
 */
static const char *const graph_want[] = {
	"switch.flood_ends",
	NULL,
};

/* A leaf-spine of two leaves and two spines, a host's links and the fabric's 1 us each,
 * under conf (its graph set here). */
static struct fe_dp *
leaf_spine(struct fe_dp_conf *conf)
{
	static struct fe_topo topo;
	static struct fe_graph_build gb;
	struct fe_topo_gen g = {
		.kind = "leaf-spine", .hosts = NP, .leaves = 2, .spines = 2, .hosts_per_leaf = 2};
	struct fe_linkdef fabric = {.link = {.delay_ns = 1000}}, up[NP] = {0}, down[NP] = {0};
	char err[256];
	struct fe_dp *dp;

	cr_assert_eq(fe_topo_generate(&g, &topo, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_topo_check(&topo, err, sizeof(err), NULL), 0, "%s", err);
	cr_assert_eq(
		fe_graph_build(&topo, &fabric, FE_PATH_ECMP, topo.nports, &gb, err, sizeof(err)), 0,
		"%s", err);
	conf->graph = &gb.conf;
	dp = engine(conf, up, down);
	cr_assert(dp->topology, "several switches");
	return dp;
}

Test(report, leaf_spine_flood)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY};
	struct fe_dp *dp = leaf_spine(&conf);
	uint64_t t = 100000;

	learn(dp, 50000);
	run(dp, &t, 100000, 1000);
	expect(dp, "leaf-spine", graph_want);
	done(dp);
}

/* A credit leaf-spine (4 KiB a lane) after 20 frames from host 0 to host 2, across the
 * spines, and 2 ms: its tick in *t. */
static struct fe_dp *
credit_across(uint64_t *t)
{
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_CREDIT, .lanes = 1, .credit = {.buffer = 4096, .out_pkts = 1}};
	struct fe_dp *dp = leaf_spine(&conf);

	*t = 100000;
	learn(dp, 50000);
	run(dp, t, 100000, 1000);
	for (uint16_t k = 0; k < 20; k++)
		inject_tcp(0, MAC[2], 1000, 0, k);
	run(dp, t, 2000000, 1000);
	return dp;
}

/*
 * The credits gauge is what a sender holds and what has come back to it, though it has
 * not needed them since (it takes its returns as it next needs credits): once the
 * traffic is over, every input's sender, a port's or a switch's, has all its blocks
 * back. Found with credit messages (topology.sh): a link between switches read 0 after
 * its last frame.
 */
Test(report, credits_back_are_held)
{
	uint64_t t;
	struct fe_dp *dp = credit_across(&t);
	unsigned crossed = 0;
	for (unsigned in = 0; in < dp->nports + dp->graph->nhl; in++) {
		struct fe_lane_counters c;

		fe_report_lane(dp, in, 0, &c);
		cr_expect_eq(c.credits, 64, "input %u: %lu of 64 credits (the fewest %lu)", in,
			     (unsigned long)c.credits, (unsigned long)c.credits_min);
		crossed += in >= dp->nports && c.credits_min < 64;
	}
	cr_assert_geq(crossed, 2, "frames crossed links between switches (%u)", crossed);
	done(dp);
}

/*
 * A reset (`fabemuctl reset`) restarts the fewest credits held from what each sender holds
 * then, its returns due by then counted, as the credits gauge counts them: once the
 * traffic is over, every input's sender read the fewest below its credits before (the
 * blocks it held but for the returns it had not taken yet: 16 of 64 at a port).
 */
Test(report, credits_min_restarts_from_the_held)
{
	uint64_t t;
	struct fe_dp *dp = credit_across(&t);
	unsigned shy = 0;
	__atomic_add_fetch(&dp->reset_req, 1, __ATOMIC_RELEASE);
	run(dp, &t, 1000, 1000);
	for (unsigned in = 0; in < dp->nports + dp->graph->nhl; in++) {
		struct fe_lane_counters c;

		fe_report_lane(dp, in, 0, &c);
		cr_expect_eq(c.credits_min, c.credits, "input %u: the fewest %lu, held %lu", in,
			     (unsigned long)c.credits_min, (unsigned long)c.credits);
		shy += c.credits_min != c.credits;
	}
	cr_assert_eq(shy, 0, "%u inputs read the fewest below what they hold", shy);
	done(dp);
}

/*
 * A sender's credit stall counts while it lasts, as a pause's time does: a frame larger
 * than the receiver's whole buffer (1 KiB of 300-byte credits, 3 blocks; the frame takes
 * 4) waits for good, and stall_ns read 0 for the whole run (found by a new user: 10 frames
 * stopped at exit, 1 s of stall read as none). Now the wait so far is counted, by the
 * head's lane only (its figure on a fake clock: test_engine a_credit_stall_*; the report
 * reads the TSC, far past this test's ticks, so here only that it counts).
 */
Test(report, a_credit_stall_counts_while_it_lasts)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 1,
				  .credit = {.buffer = 1024, .unit = 300, .out_pkts = 1}};
	struct fe_dp *dp = leaf_spine(&conf);
	struct fe_lane_counters c, later;
	uint64_t t = 100000;

	learn(dp, 50000);
	run(dp, &t, 100000, 1000);
	inject_tcp(0, MAC[2], 1000, 0, 1);
	run(dp, &t, 1000000, 1000); /* 1 ms */
	fe_report_lane(dp, 0, 0, &c);
	cr_assert_gt(c.stall_ns, 0, "host 1's adapter waits for credits: %lu ns",
		     (unsigned long)c.stall_ns);
	fe_report_lane(dp, 0, 0, &later);
	cr_assert_geq(later.stall_ns, c.stall_ns, "it goes on: %lu ns",
		      (unsigned long)later.stall_ns);
	fe_report_lane(dp, 1, 0, &c);
	cr_assert_eq(c.stall_ns, 0, "host 2's adapter sent nothing, waited for nothing");
	done(dp);
}

/*
 * The PFC watchdog's storms on the links between switches are the PFC regime's: under
 * credits nothing writes them, and Prometheus had them for any lossless regime (a family
 * that could only be 0 under credits); the JSON has them under PFC only.
 */
Test(report, watchdog_storms_are_pfcs_alone)
{
	static const uint8_t regimes[] = {FE_REGIME_PFC, FE_REGIME_CREDIT, FE_REGIME_LOSSY};

	for (unsigned k = 0; k < 3; k++) {
		static struct fe_topo topo;
		static struct fe_graph_build gb;
		struct fe_topo_gen g = {.kind = "leaf-spine",
					.hosts = NP,
					.leaves = 2,
					.spines = 2,
					.hosts_per_leaf = 2};
		struct fe_linkdef fabric = {.link = {.delay_ns = 1000}}, up[NP] = {0},
				  down[NP] = {0};
		struct fe_dp_conf conf = {.regime = regimes[k],
					  .lanes = 1,
					  .graph = &gb.conf,
					  .pfc = {.xoff = 300,
						  .xon = 100,
						  .headroom = 200,
						  .quanta = 65535,
						  .frames = 1},
					  .credit = {.buffer = 4096, .out_pkts = 1}};
		char err[256], *prom = NULL;
		size_t len = 0;
		FILE *f;
		struct fe_dp *dp;

		cr_assert_eq(fe_topo_generate(&g, &topo, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(fe_graph_build(&topo, &fabric, FE_PATH_ECMP, topo.nports, &gb, err,
					    sizeof(err)),
			     0, "%s", err);
		dp = engine(&conf, up, down);
		f = open_memstream(&prom, &len);
		cr_assert_not_null(f);
		fe_prom_write(f, dp);
		cr_assert_eq(fclose(f), 0);
		cr_expect_eq(strstr(prom, "fabemu_graph_watchdog_storms_total") != NULL,
			     regimes[k] == FE_REGIME_PFC, "%s: the storms in Prometheus",
			     fe_regime_name(regimes[k]));
		free(prom);
		done(dp);
	}
}

/* ---- the emulated NICs (docs/nic.md) ---- */

static struct fe_dp_conf
nic_conf(uint32_t model, uint32_t recovery)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY, .nic = FE_NIC_DEFAULT};

	conf.nic.model = model;
	conf.nic.recovery = recovery;
	return conf;
}

/*
 * An engine of conf whose links each take 1 us, where port `at`'s up link loses the
 * frames that match, from the first, count of them; learned, at t = 10000.
 */
static struct fe_dp *
nic_lossy(struct fe_dp_conf *conf, unsigned at, const char *match, uint32_t count)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp *dp;

	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	snprintf(up[at].match, sizeof(up[at].match), "%s", match);
	up[at].drop_first = 1;
	up[at].drop_count = count;
	dp = engine(conf, up, down);
	learn(dp, 5000);
	return dp;
}

/*
 * Model roce, go-back-N, a window of 4 frames: host 0 sends host 1 a flow the fabric
 * marked CE (consumed, a CNP back, DCQCN slows it); 0.up drops its 3rd frame (a NAK, the
 * rest sent again); a broadcast before it passes as it is; frames in the send queue at
 * the stop.
 */
static const char *const roce_busy[] = {
	"port.nic_copies",
	NULL,
};
static const char *const roce_after[] = {
	"port.nic_flows",
	"port.nic_passed",
	"port.nic_cnp_sent",
	"port.nic_cnp_recv",
	"port.nic_ce_consumed",
	"port.nic_rate_bps",
	"port.nic_rate_min_bps",
	"port.nic_resent_pkts",
	"port.nic_resent_bytes",
	"port.nic_naks_sent",
	"port.nic_naks_recv",
	"port.nic_acks_sent",
	"port.nic_acks_recv",
	"port.nic_oos_discards",
	"port.nic_window_full",
	"port.nic_copies_peak",
	NULL,
};
static const char *const roce_stopped[] = {
	"port.nic_stopped_send",
	NULL,
};

Test(report, nic_roce)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = nic_conf(FE_NIC_ROCE, FE_NIC_GBN);
	struct fe_dp *dp;
	uint64_t t = 10000;

	conf.nic.window = 4;
	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	snprintf(up[0].match, sizeof(up[0].match), "tcp");
	up[0].drop_first = 3;
	up[0].drop_count = 1;
	dp = engine(&conf, up, down);
	learn(dp, 5000);
	inject_tcp(0, BCAST, 1000, 2, 99);
	run(dp, &t, 100000, 1000);
	for (uint16_t k = 1; k <= 12; k++)
		inject_tcp(0, MAC[1], 1000, 3, k);
	fe_dp_poll(dp, t += 500);
	expect(dp, "roce, in flight", roce_busy);
	run(dp, &t, 1000000, 1000);
	expect(dp, "roce, after", roce_after);
	for (uint16_t k = 13; k <= 30; k++)
		inject_tcp(0, MAC[1], 1000, 2, k);
	fe_dp_poll(dp, t += 100);
	fe_dp_drain(dp);
	expect(dp, "roce, stopped", roce_stopped);
	done(dp);
}

/*
 * Model roce, selective repeat, a reorder window of 5 us: 0.up loses every sending of
 * frame 2 (IP id 2). Host 1's NIC holds the frames after the gap, NAKs it once the window
 * ends, host 0's NIC resends it until its timeouts give the flow up; held frames are let
 * go. Then the same again, stopped while frames are held.
 */
static const char *const selective_after[] = {
	"port.nic_held_pkts", "port.nic_reorder_naks", "port.nic_timeouts",
	"port.nic_abandoned", "port.nic_oos_discards", NULL,
};
static const char *const selective_stopped[] = {
	"port.nic_stopped_recv",
	NULL,
};

Test(report, nic_selective)
{
	struct fe_dp_conf conf = nic_conf(FE_NIC_ROCE, FE_NIC_SELECTIVE);
	struct fe_dp *dp;
	uint64_t t = 10000;

	conf.nic.reorder_ns = 5000;
	dp = nic_lossy(&conf, 0, "ip[4:2] = 2", 1000000);
	for (uint16_t k = 1; k <= 6; k++)
		inject_tcp(0, MAC[1], 1000, 2, k);
	run(dp, &t, 100000, 1000);
	run(dp, &t, 10 * TOUT, 1000000);
	expect(dp, "selective, given up", selective_after);
	for (uint16_t k = 1; k <= 6; k++)
		inject_tcp(0, MAC[1], 1000, 2, k);
	run(dp, &t, 4000, 1000);
	fe_dp_drain(dp);
	expect(dp, "selective, stopped", selective_stopped);
	done(dp);
}

/*
 * Model uec (NSCC, SLEEK's probes): 0.up loses every sending of frame 2 (IP id 2); the
 * probes cannot recover it, the NIC's timeout fires and freezes the flow's REPS.
 */
static const char *const reps_after[] = {
	"port.nic_reps_freezes",
	NULL,
};

Test(report, nic_uec_timeout)
{
	struct fe_dp_conf conf = nic_conf(FE_NIC_UEC, FE_NIC_SELECTIVE);
	struct fe_dp *dp = nic_lossy(&conf, 0, "ip[4:2] = 2", 1000000);
	uint64_t t = 10000;

	for (uint16_t k = 1; k <= 6; k++)
		inject_tcp(0, MAC[1], 1000, 2, k);
	run(dp, &t, 100000, 1000);
	run(dp, &t, 2 * TOUT, 1000000);
	cr_assert_geq(dp->ports[0].st.nic_timeouts, 1);
	expect(dp, "uec, timed out", reps_after);
	done(dp);
}

/*
 * Model roce, go-back-N: 1.up loses host 1's first NIC frame (the ACK of host 0's two):
 * host 0's NIC times out and sends both again, which host 1's NIC had delivered.
 */
static const char *const dup_want[] = {
	"port.nic_dup_discards",
	NULL,
};

Test(report, nic_lost_ack)
{
	struct fe_dp_conf conf = nic_conf(FE_NIC_ROCE, FE_NIC_GBN);
	struct fe_dp *dp = nic_lossy(&conf, 1, "udp", 1);
	uint64_t t = 10000;

	for (uint16_t k = 1; k <= 2; k++)
		inject_tcp(0, MAC[1], 1000, 2, k);
	run(dp, &t, 2 * TOUT, 100000);
	expect(dp, "lost ack", dup_want);
	done(dp);
}

/*
 * Model roce: host 0 sends host 1 one frame, which takes 100 us on 1.down; the switch
 * forgets host 0 meanwhile (MAC age 50 us), so host 1's ACK is flooded: host 0's NIC
 * consumes its copy, host 2's NIC finds one for another port (stray).
 */
static const char *const stray_want[] = {
	"port.nic_stray",
	NULL,
};

Test(report, nic_flooded_ack)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = nic_conf(FE_NIC_ROCE, FE_NIC_GBN);
	struct fe_dp *dp;
	uint64_t t = 5000;

	conf.mac_age_ns = 50000;
	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	down[1].link.delay_ns = 100000;
	dp = engine(&conf, up, down);
	learn(dp, t);
	inject_tcp(0, MAC[1], 1000, 0, 1);
	run(dp, &t, 300000, 1000);
	cr_assert_eq(dp->ports[0].st.nic_acks_recv, 1, "host 0's NIC took its copy of the ACK");
	cr_assert_eq(dp->ports[2].st.nic_stray, 1, "host 2's NIC did not");
	expect(dp, "flooded ack", stray_want);
	done(dp);
}

/*
 * Model roce, selective repeat, a reorder window of 5 ms: hosts 0 and 2 send host 1 2100
 * frames each, their up links losing the first (PSN 0); host 1's NIC holds the 2099 after
 * each gap. Host 1's port then takes nothing (its TX ring full, 32 frames of no flow in
 * its staging) while the window ends: the NAKs go, both PSN 0 come again and wait on
 * 1.down, a frame of no flow from host 0 behind them. Once the port takes again, one
 * pass delivers the three: the two gaps fill and release 4200 frames, more than the
 * staging (32) and the ready ring (4096) hold, so the frame of no flow is dropped.
 */
static const char *const edge_want[] = {
	"port.nic_edge_drops",
	NULL,
};

/* A frame of no flow (not IP) from host src to host dst. */
static void
inject_plain(int src, int dst)
{
	uint8_t f[60] = {0};

	memcpy(f, MAC[dst], 6);
	memcpy(f + 6, MAC[src], 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	inject_raw(src, f, sizeof(f));
}

Test(report, nic_ready_ring_full)
{
	enum { N = 2100 };
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = nic_conf(FE_NIC_ROCE, FE_NIC_SELECTIVE);
	struct rte_mempool *big =
		rte_pktmbuf_pool_create("held", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	struct fe_dp *dp;
	uint64_t t = 10000;

	cr_assert_not_null(big);
	conf.nic.window = 4096;
	conf.nic.reorder_ns = 5000000;
	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	for (int i = 0; i < NP; i += 2) {
		snprintf(up[i].match, sizeof(up[i].match), "udp");
		up[i].drop_first = 1;
		up[i].drop_count = 1;
	}
	dp = engine(&conf, up, down);
	learn(dp, 5000);
	for (unsigned k = 0; k < N; k++) {
		ring_udp(big, rxr[0], MAC[1], MAC[0], 0, 1, 64, (uint8_t)k);
		ring_udp(big, rxr[2], MAC[1], MAC[2], 2, 2, 64, (uint8_t)k);
		if (k % 500 == 499 || k == N - 1)
			while (rte_ring_count(rxr[0]) + rte_ring_count(rxr[2]) > 0)
				fe_dp_poll(dp, t += 1000);
	}
	run(dp, &t, 1000000, 1000);
	cr_assert_eq(dp->ports[1].st.nic_held_pkts, 2 * (N - 1), "both gaps open, %lu held",
		     dp->ports[1].st.nic_held_pkts);
	ring_fill(txr[1]);
	for (int k = 0; k < FE_BURST; k++)
		inject_plain(2, 1);
	for (int k = 0; k < 6000; k++) /* past the reorder window: the NAKs, PSN 0 again */
		fe_dp_poll(dp, t += 1000);
	cr_assert_eq(dp->ports[1].txq_n, FE_BURST, "host 1's staging full");
	cr_assert_eq(dp->ports[1].st.nic_reorder_naks, 2);
	cr_assert_eq(dp->ports[0].st.nic_resent_pkts + dp->ports[2].st.nic_resent_pkts, 2);
	inject_plain(0, 1);
	for (int k = 0; k < 10; k++)
		fe_dp_poll(dp, t += 1000);
	cr_assert_eq(dp->ports[1].st.nic_edge_drops, 0, "nothing delivered while blocked");
	ring_drain(txr[1]);
	fe_dp_poll(dp, t += 1000);
	cr_assert_eq(dp->ports[1].st.nic_edge_drops, 1, "the frame of no flow, in that pass");
	expect(dp, "ready ring full", edge_want);
	done(dp);
	cr_assert_eq(rte_mempool_avail_count(big), big->size, "every mbuf back in its pool");
	rte_mempool_free(big);
}

/*
 * Model uec (NSCC), trimming: host 0 sends host 1 (100 Mbit/s, 4 frames of buffer) 30
 * frames at once; what finds no room is trimmed, its header NAKed, the frame resent, and
 * NSCC cuts the window. Then again, stopped while trimmed headers are on their way.
 */
static const char *const uec_after[] = {
	"link.drop_trim_pkts",	   "link.drop_trim_bytes",    "port.nic_trims_recv",
	"port.nic_trim_naks_sent", "port.nic_trim_naks_recv", "port.nic_trim_naks_last_hop",
	"port.nic_cwnd_bytes",	   "port.nic_cwnd_min_bytes", NULL,
};
static const char *const uec_stopped[] = {
	"port.nic_stopped_trims",
	NULL,
};
/* ... with trim-queue=data: the headers wait behind the data, and some find no room */
static const char *const uec_headers[] = {
	"link.drop_header_pkts",
	"link.drop_header_bytes",
	NULL,
};

static struct fe_dp *
uec_engine(enum fe_nic_trimq q)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = nic_conf(FE_NIC_UEC, FE_NIC_SELECTIVE);

	conf.nic.trim_queue = (uint8_t)q;

	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	down[1].link.rate_bps = 100000000;
	down[1].link.limit_pkts = 4;
	return engine(&conf, up, down);
}

Test(report, nic_uec_trimming)
{
	struct fe_dp *dp = uec_engine(FE_NIC_TRIMQ_PRIORITY);
	uint64_t t = 50000;

	learn(dp, t);
	for (uint16_t k = 1; k <= 30; k++)
		inject_tcp(0, MAC[1], 1000, 0, k);
	run(dp, &t, 20000000, 10000);
	expect(dp, "uec", uec_after);
	{ /* the flow's own window in flows[] (NSCC's; its rate_bps is the line's) */
		json_t *doc = fe_report_doc(dp);
		json_t *fl = json_array_get(
			json_object_get(json_array_get(json_object_get(doc, "ports"), 0), "flows"),
			0);
		const struct fe_nic_flow *f =
			&dp->ports[0].nic->flows[json_integer_value(json_object_get(fl, "slot"))];

		cr_assert(f->used, "flows[0] names its slot");
		cr_assert_eq(json_integer_value(json_object_get(fl, "cwnd_bytes")),
			     (json_int_t)f->nscc.cwnd, "cwnd_bytes %lld, the flow's %g",
			     (long long)json_integer_value(json_object_get(fl, "cwnd_bytes")),
			     f->nscc.cwnd);
		cr_assert_gt(f->nscc.cwnd, 0);
		json_decref(doc);
	}
	cr_assert_eq(dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_HEADER], 0,
		     "headers on the priority queue: none dropped");
	done(dp);
	dp = uec_engine(FE_NIC_TRIMQ_PRIORITY);
	t = 50000;
	learn(dp, t);
	for (uint16_t k = 1; k <= 30; k++)
		inject_tcp(0, MAC[1], 1000, 0, k);
	for (int k = 0; k < 4; k++)
		fe_dp_poll(dp, t += 1000);
	fe_dp_drain(dp);
	expect(dp, "uec, stopped", uec_stopped);
	done(dp);
	dp = uec_engine(FE_NIC_TRIMQ_DATA);
	t = 50000;
	learn(dp, t);
	for (uint16_t k = 1; k <= 30; k++)
		inject_tcp(0, MAC[1], 1000, 0, k);
	run(dp, &t, 20000000, 10000);
	expect(dp, "uec, headers behind the data", uec_headers);
	cr_assert_eq(dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_HEADER],
		     dp->ports[1].down.l.st.drop_bytes[FE_LINK_DROP_HEADER] / 64,
		     "each a header of 64 bytes");
	done(dp);
}

/*
 * Model uec (NSCC), SLEEK's loss probes: host 0 sends host 1 12 frames, the last two lost
 * on 0.up (a tail: no gap, no NAK). The ACK of the first ten arms the probe timer; the
 * probe, answered at once, finds the path empty, and the two are sent again: all 12
 * delivered with no timeout.
 */
static const char *const probe_after[] = {
	"port.nic_probes_sent",
	"port.nic_probes_recv",
	"port.nic_probe_recoveries",
	NULL,
};

Test(report, nic_uec_probe)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = nic_conf(FE_NIC_UEC, FE_NIC_SELECTIVE);
	struct fe_dp *dp;
	uint64_t t = 50000, tx;

	conf.nic.rtt_ns = 4000; /* the path's: 1 us links, no rate */
	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	snprintf(up[0].match, sizeof(up[0].match), "tcp");
	up[0].drop_first = 11;
	up[0].drop_count = 2;
	dp = engine(&conf, up, down);
	learn(dp, t);
	tx = dp->ports[1].st.tx_pkts;
	for (uint16_t k = 1; k <= 12; k++)
		inject_tcp(0, MAC[1], 1000, 0, k);
	run(dp, &t, 1000000, 1000);
	expect(dp, "uec, probe", probe_after);
	cr_assert_eq(dp->ports[1].st.tx_pkts - tx, 12, "all delivered: %llu",
		     (unsigned long long)(dp->ports[1].st.tx_pkts - tx));
	cr_assert_eq(dp->ports[0].st.nic_timeouts, 0);
	cr_assert_eq(dp->ports[0].st.nic_resent_pkts, 2);
	done(dp);
}

/*
 * Model uec with RCCC: hosts 0 and 2 send host 1 (every link 100 Mbit/s) 40 frames each at
 * once. Each sends its speculative credit (1.5 BDP, some 9 kB), then waits for host 1's
 * NIC's grants, ACK frames that share its link between them: all delivered, nothing
 * trimmed, no timeout.
 */
static const char *const rccc_after[] = {
	"port.nic_credit_sent",
	"port.nic_credit_recv",
	"port.nic_credit_bytes",
	"port.nic_credit_blocked",
	NULL,
};

/*
 * Hosts 0 and 2 send host 1 40 frames each at once through the uec NIC with RCCC (every
 * link 100 Mbit/s, host 1's down link 64 frames); pull: its pull rate on, the frames
 * ECN-capable and that down link marking above 1,000 bytes. Run; *tx: what host 1 had got
 * before.
 */
static struct fe_dp *
rccc_incast(int pull, int pcie, uint64_t *tx)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = nic_conf(FE_NIC_UEC, FE_NIC_SELECTIVE);
	struct fe_dp *dp;
	uint64_t t = 50000;

	conf.nic.cc = FE_CC_RCCC;
	conf.nic.cc_set = 1;
	conf.nic.oversub_cc = pull ? FE_NIC_OCC_ON : FE_NIC_OCC_AUTO;
	if (pcie) { /* host 1's PCIe: half its link, 16 KiB */
		conf.nic.pcie_bps = 50000000;
		conf.nic.pcie_backlog = 16384;
	}
	for (int i = 0; i < NP; i++) {
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
		up[i].link.rate_bps = down[i].link.rate_bps = 100000000;
	}
	down[1].link.limit_pkts = 64;
	if (pull)
		down[1].ecn =
			(struct fe_ecn_params){.enabled = 1, .kmin = 1000, .kmax = 1000, .pmax = 1};
	dp = engine(&conf, up, down);
	learn(dp, t);
	*tx = dp->ports[1].st.tx_pkts;
	for (uint16_t k = 1; k <= 40; k++) {
		inject_tcp(0, MAC[1], 1000, pull ? 2 : 0, k);
		inject_tcp(2, MAC[1], 1000, pull ? 2 : 0, k);
	}
	run(dp, &t, 20000000, 10000);
	return dp;
}

Test(report, nic_uec_rccc)
{
	uint64_t tx;
	struct fe_dp *dp = rccc_incast(0, 0, &tx);

	expect(dp, "uec, rccc", rccc_after);
	cr_assert_eq(dp->ports[1].st.tx_pkts - tx, 80, "all delivered: %llu",
		     (unsigned long long)(dp->ports[1].st.tx_pkts - tx));
	cr_assert_eq(dp->ports[0].st.nic_timeouts + dp->ports[2].st.nic_timeouts, 0);
	cr_assert_eq(dp->ports[1].st.nic_trims_recv, 0, "nothing trimmed");
	cr_assert_eq(dp->ports[1].st.nic_credit_sent,
		     dp->ports[0].st.nic_credit_recv + dp->ports[2].st.nic_credit_recv,
		     "every grant heard");
	done(dp);
}

/*
 * Model uec with RCCC and its pull rate on (oversub-cc on; one switch is not
 * oversubscribed, so auto would leave it off): the same incast, its frames ECN-capable,
 * host 1's down link marking above 1,000 bytes queued. The speculative start queues and
 * is marked; the receiver's NIC cuts its pull rate, and every frame is still delivered.
 */
static const char *const pull_after[] = {
	"port.nic_pull_updates",
	"port.nic_pull_cuts",
	"port.nic_pull_permille",
	"port.nic_pull_min_permille",
	NULL,
};

Test(report, nic_uec_rccc_pull_rate)
{
	uint64_t tx;
	struct fe_dp *dp = rccc_incast(1, 0, &tx);

	expect(dp, "uec, rccc, pull rate", pull_after);
	cr_assert_lt(dp->ports[1].st.nic_pull_min_permille, 1000, "cut: %llu",
		     (unsigned long long)dp->ports[1].st.nic_pull_min_permille);
	cr_assert_eq(dp->ports[1].st.tx_pkts - tx, 80, "all delivered: %llu",
		     (unsigned long long)(dp->ports[1].st.tx_pkts - tx));
	cr_assert_eq(dp->ports[0].st.nic_timeouts + dp->ports[2].st.nic_timeouts, 0);
	cr_assert_eq(dp->ports[0].st.nic_pull_updates + dp->ports[2].st.nic_pull_updates, 0,
		     "the senders' NICs received nothing to pace");
	{ /* Prometheus: the rate a gauge (it goes down), the updates a counter */
		char *prom = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&prom, &len);

		cr_assert_not_null(f);
		fe_prom_write(f, dp);
		cr_assert_eq(fclose(f), 0);
		cr_expect_not_null(strstr(prom, "# TYPE fabemu_port_nic_pull_permille gauge\n"));
		cr_expect_not_null(
			strstr(prom, "# TYPE fabemu_port_nic_pull_min_permille gauge\n"));
		cr_expect_not_null(strstr(prom, "# TYPE fabemu_port_nic_pull_updates counter\n"));
		cr_expect_not_null(strstr(prom, "# TYPE fabemu_port_nic_cwnd_bytes gauge\n"));
		/* a rate, its least and the copies held go down too (docs/counters.md) */
		cr_expect_not_null(strstr(prom, "# TYPE fabemu_port_nic_rate_bps gauge\n"));
		cr_expect_not_null(strstr(prom, "# TYPE fabemu_port_nic_rate_min_bps gauge\n"));
		cr_expect_not_null(strstr(prom, "# TYPE fabemu_port_nic_copies gauge\n"));
		free(prom);
	}
	done(dp);
}

/*
 * Model host: real NICs' RoCEv2 reaching host 1, decoded as it passes. One queue pair
 * loses PSN 2 and goes back to 3 (go-back-N); a NAK, an RNR NAK and a CNP; then more
 * queue pairs than the table tells apart.
 */
static const char *const host_want[] = {
	"port.roce_pkts",
	"port.roce_qps",
	"port.roce_gaps",
	"port.roce_missing",
	"port.roce_resent",
	"port.roce_rewinds",
	"port.roce_naks",
	"port.roce_rnr_naks",
	"port.roce_cnps",
	"port.roce_untracked",
	NULL,
};

static void
inject_roce(uint8_t op, uint32_t qpn, uint32_t psn, int aeth, uint8_t syn)
{
	uint8_t f[128];
	uint32_t len = roce_frame(f, op, qpn, psn, aeth, syn);

	memcpy(f, MAC[1], 6);
	memcpy(f + 6, MAC[0], 6);
	inject_raw(0, f, (uint16_t)(len < 60 ? 60 : len));
}

Test(report, nic_host_roce)
{
	static const uint32_t psn[] = {0, 1, 3, 4, 5, 6, 3, 4, 5, 6, 7};
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = nic_conf(FE_NIC_HOST, FE_NIC_GBN);
	struct fe_dp *dp = engine(&conf, up, down);
	uint64_t t = 10000;

	learn(dp, 5000);
	for (unsigned i = 0; i < RTE_DIM(psn); i++)
		inject_roce(0x04, 7, psn[i], 0, 0);
	inject_roce(0x11, 7, 8, 1, 0x60); /* NAK */
	inject_roce(0x11, 7, 8, 1, 0x2e); /* RNR NAK */
	inject_roce(0x81, 7, 0, 0, 0);	  /* CNP */
	run(dp, &t, 10000, 1000);
	for (uint32_t q = 0; q < FE_ROCE_QPS + 8; q++) {
		inject_roce(0x04, 100 + q, 0, 0, 0);
		if (q % 256 == 255)
			run(dp, &t, 10000, 1000);
	}
	run(dp, &t, 10000, 1000);
	expect(dp, "model host", host_want);
	done(dp);
}

/* ---- every counter of the report's tables has a scenario ---- */

/*
 * Counters with no scenario yet, and why; the list is to shrink.
 */
static const struct {
	const char *name, *why;
} elsewhere[] = {
	{"link.drop_wire_pkts", "a link's slots hold its buffer and what its delay and jitter "
				"keep on the wire, up to 2^18: a wire drop needs more in flight "
				"on one link than the engine's tests put there (test_engine: "
				"jitter_keeps_what_is_on_the_wire asserts none; the link model's "
				"test_link: burst_enqueue_is_one_at_a_time drives it above 0)"},
	{"link.drop_wire_bytes", "as drop_wire_pkts"},
	{"switch.hop_reordered", "a graph's: a line of three switches, two senders into b>c "
				 "(test_graph: a_hop_link_is_offered_a_pass_in_the_order_of_the_"
				 "ticks, 8, read back through the report)"},
	{"switch.hop_early", "a graph's: 200 frames into leaf1>spine in one round "
			     "(test_graph: a_full_egress_stage_offers_its_frames_at_once, 128)"},
	{"port.nic_probes_cut", "NSCC's probes that meet a full queue under trimming: a queue "
				"that fills at once and a probe timer that fires while it does "
				"(test_nic: uec_a_probe_into_a_full_queue_is_cut, 86 of 119)"},
};

/*
 * Model uec with RCCC, host 1's PCIe at half its link and 16 KiB (fe_pcie.h): the
 * same incast. The backlog cuts the pull rate; what the speculative start sends finds it
 * full and is trimmed by the NIC, and asked for again. Every frame is delivered.
 */
static const char *const pcie_after[] = {
	"port.nic_pcie_trims",
	"port.nic_pcie_peak",
	"port.nic_pcie_min_permille",
	NULL,
};

Test(report, nic_uec_pcie)
{
	uint64_t tx;
	struct fe_dp *dp = rccc_incast(0, 1, &tx);
	const struct fe_port_stats *s = &dp->ports[1].st;

	expect(dp, "uec, rccc, pcie", pcie_after);
	cr_assert_eq(s->tx_pkts - tx, 80, "all delivered: %llu",
		     (unsigned long long)(s->tx_pkts - tx));
	cr_assert_leq(s->nic_pcie_peak, 16384);
	cr_assert_lt(s->nic_pcie_min_permille, 1000);
	cr_assert_geq(s->nic_trims_recv, s->nic_pcie_trims, "among the trimmed");
	cr_assert_eq(dp->ports[0].st.nic_timeouts + dp->ports[2].st.nic_timeouts, 0);
	done(dp);
}

static const char *const *const scenarios[] = {
	incast_busy,	incast_after,	incast_stopped,	  impair_want,	   llr_want,
	pfc_busy,	pfc_stopped,	wd_drop,	  wd_forward,	   credit_busy,
	credit_stopped, reserved_want,	nombuf_want,	  pipeline_want,   idle_want,
	roce_busy,	roce_after,	roce_stopped,	  selective_after, selective_stopped,
	dup_want,	uec_after,	uec_stopped,	  uec_headers,	   host_want,
	graph_want,	stray_want,	edge_want,	  epause_want,	   rccc_after,
	probe_after,	reps_after,	host_pfc_want,	  pull_after,	   pcie_after,
	egress_want,	reordered_want, credit_msgs_want,
};

/* 1 if some scenario shows OBJ.NAME nonzero, or it is listed with its reason. */
static int
covered(const char *obj, const char *name)
{
	char want[128];

	snprintf(want, sizeof(want), "%s.%s", obj, name);
	for (unsigned s = 0; s < RTE_DIM(scenarios); s++)
		for (const char *const *w = scenarios[s]; *w; w++)
			if (strcmp(*w, want) == 0)
				return 1;
	for (unsigned i = 0; i < RTE_DIM(elsewhere); i++)
		if (strcmp(elsewhere[i].name, want) == 0)
			return 1;
	return 0;
}

Test(report, every_counter_has_a_scenario)
{
	static const char *const obj[FE_OBJ__MAX] = {[FE_OBJ_PORT] = "port",
						     [FE_OBJ_LINK] = "link",
						     [FE_OBJ_SW] = "switch",
						     [FE_OBJ_IDLE] = "idle"};
	static struct fe_port gathering = {.up.cred.update = 2};
	static struct fe_dp pfc = {.conf.regime = FE_REGIME_PFC},
			    credit = {.conf.regime = FE_REGIME_CREDIT},
			    msgs = {.conf.regime = FE_REGIME_CREDIT,
				    .nports = 1,
				    .ports = &gathering};
	const struct fe_counter_desc *lanes[] = {fe_report_lane_counters(&pfc),
						 fe_report_lane_counters(&credit),
						 fe_report_lane_counters(&msgs)};
	unsigned n = 0, missing = 0;

	for (unsigned o = 0; o < FE_OBJ__MAX; o++)
		for (const struct fe_counter_desc *d = fe_report_counters(o); d->name; d++, n++)
			if (!covered(obj[o], d->name)) {
				cr_log_error("%s.%s: no scenario makes it nonzero", obj[o],
					     d->name);
				missing++;
			}
	for (unsigned k = 0; k < RTE_DIM(lanes); k++)
		for (const struct fe_counter_desc *d = lanes[k]; d->name; d++, n++)
			if (!covered("lane", d->name)) {
				cr_log_error("lane.%s: no scenario makes it nonzero", d->name);
				missing++;
			}
	cr_assert_gt(n, 100, "the tables are read (%u counters)", n);
	cr_assert_eq(missing, 0, "%u of %u counters with no scenario", missing, n);
	/* and each listed apart is a counter of the tables, not a name left behind */
	for (unsigned i = 0; i < RTE_DIM(elsewhere); i++) {
		int found = 0;

		for (unsigned o = 0; o < FE_OBJ__MAX; o++)
			for (const struct fe_counter_desc *d = fe_report_counters(o); d->name;
			     d++) {
				char want[128];

				snprintf(want, sizeof(want), "%s.%s", obj[o], d->name);
				found |= strcmp(want, elsewhere[i].name) == 0;
			}
		cr_assert(found, "%s (listed apart: %s) is no counter of the report",
			  elsewhere[i].name, elsewhere[i].why);
	}
}

/*
 * Found building nic_flooded_ack: a NIC's data frame flooded (its host forgotten by the
 * time it reaches the switch) goes to every other host as a plain copy, untagged; no NIC
 * takes a copy for its flow. Host 1's copy arrives after host 2's: before, host 2's NIC
 * took its copy as the flow's PSN 0 and acknowledged it, host 1's NIC discarded its own
 * as a duplicate, and the sender, acknowledged, never sent it again.
 */
static unsigned
ip_drain(struct rte_ring *r)
{
	void *m;
	unsigned n = 0;

	while (rte_ring_dequeue(r, &m) == 0) {
		n += rte_pktmbuf_mtod((struct rte_mbuf *)m, uint8_t *)[12] == 0x08;
		rte_pktmbuf_free(m);
	}
	return n;
}

Test(report, a_flooded_nic_frame_is_no_other_hosts)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = nic_conf(FE_NIC_ROCE, FE_NIC_GBN);
	struct fe_dp *dp;
	uint64_t t = 5000;
	unsigned got[NP] = {0};

	conf.mac_age_ns = 50000;
	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	up[0].link.delay_ns = 100000; /* host 1 forgotten when host 0's frame reaches the switch */
	down[1].link.delay_ns = 5000; /* host 2's copy first */
	dp = engine(&conf, up, down);
	learn(dp, t);
	inject_tcp(0, MAC[1], 1000, 0, 1);
	for (uint64_t end = t + 300000; t < end;) {
		t += 1000;
		fe_dp_poll(dp, t);
		fe_dp_poll(dp, t);
		for (int i = 0; i < NP; i++)
			got[i] += ip_drain(txr[i]);
	}
	cr_assert_geq(dp->sw.flooded, 1, "the frame was flooded");
	cr_assert_eq(got[1], 1, "host 1 gets the frame for it");
	cr_assert_eq(got[2], 1, "host 2 a plain copy, as a flood gives");
	cr_assert_eq(dp->ports[2].st.nic_acks_sent, 0, "host 2's NIC acknowledges nothing");
	cr_assert_eq(dp->ports[1].st.nic_dup_discards, 0, "host 1's NIC discards nothing");
	done(dp);
}
