/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated NIC (docs/nic.md). DCQCN's equations step by step over a fake clock;
 * then the engine over in-memory net_ring ports: CE consumed and a CNP back through
 * the fabric, go-back-N and selective repeat after one exact drop, a lost tail that
 * costs the NIC's timeout, and every mbuf back in the pool.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "fe_adopt.h"
#include "fe_dp.h"
#include "ring_ports.h"
#include "nic_frames.h"
#include "fe_nic.h"
#include "fe_nicport.h"
#include "fe_roce.h"

#define HZ	    1000000000ULL /* fake TSC: 1 tick = 1 ns */
#define LINE	    1000000000ULL /* 1 Gbit/s */
#define CLOSE(a, b) (fabs((a) - (b)) <= 1e-6 * fabs(b) + 1e-9)

static struct fe_dcqcn_cfg
cfg(void)
{
	struct fe_nic_params p = FE_NIC_DEFAULT;
	struct fe_dcqcn_cfg c;

	p.bytes = 10000; /* a byte counter event every 10 kB */
	fe_dcqcn_compile(&p, LINE, HZ, &c);
	return c;
}

Test(dcqcn, first_cnp_halves_the_rate)
{
	struct fe_dcqcn_cfg c = cfg();
	struct fe_dcqcn s;

	fe_dcqcn_init(&s, &c);
	cr_assert_eq(s.limited, 0);
	cr_assert_eq(fe_dcqcn_gap(&s, 1500, HZ), 0, "at the line rate the link paces");
	fe_dcqcn_cnp(&s, &c, 1000);
	/* alpha starts at 1: RC = RC (1 - 1/2); RT = the rate before */
	cr_assert(CLOSE(s.rc, LINE / 2.0), "rc %f", s.rc);
	cr_assert(CLOSE(s.rt, (double)LINE));
	cr_assert(CLOSE(s.alpha, 1.0), "a = (1 - g) 1 + g = 1");
	/* 1500 bytes at 0.5 Gbit/s: 24 us */
	cr_assert_eq(fe_dcqcn_gap(&s, 1500, HZ), 24000);
}

Test(dcqcn, alpha_decays_each_period_without_cnp)
{
	struct fe_dcqcn_cfg c = cfg();
	struct fe_dcqcn s;
	double g = 1.0 / 256;

	fe_dcqcn_init(&s, &c);
	fe_dcqcn_cnp(&s, &c, 0);
	fe_dcqcn_advance(&s, &c, 54999);
	cr_assert(CLOSE(s.alpha, 1.0), "not before K");
	fe_dcqcn_advance(&s, &c, 55000);
	cr_assert(CLOSE(s.alpha, 1 - g), "alpha %f", s.alpha);
	fe_dcqcn_advance(&s, &c, 3 * 55000 + 10);
	cr_assert(CLOSE(s.alpha, pow(1 - g, 3)), "alpha %f", s.alpha);
	/* a second CNP: RC = RC (1 - a/2) with the decayed alpha, then a grows by g */
	{
		double a = pow(1 - g, 3), rc = s.rc;

		/* the rate timer ran 3 fast recovery steps toward RT = LINE meanwhile */
		cr_assert(CLOSE(rc, LINE - LINE / 2.0 / 8), "rc %f", rc);
		fe_dcqcn_cnp(&s, &c, 3 * 55000 + 10);
		cr_assert(CLOSE(s.rt, rc));
		cr_assert(CLOSE(s.rc, rc * (1 - a / 2)), "rc %f", s.rc);
		cr_assert(CLOSE(s.alpha, (1 - g) * a + g), "alpha %f", s.alpha);
	}
}

Test(dcqcn, fast_recovery_then_additive_increase)
{
	struct fe_dcqcn_cfg c = cfg();
	struct fe_dcqcn s;
	double rt, rc;

	fe_dcqcn_init(&s, &c);
	fe_dcqcn_cnp(&s, &c, 0); /* RT = 1G, RC = 0.5G */
	fe_dcqcn_cnp(&s, &c, 1); /* RT = 0.5G, RC = 0.25G (alpha still 1) */
	cr_assert(CLOSE(s.rc, LINE / 4.0), "rc %f", s.rc);
	rt = s.rt;
	rc = s.rc;
	/* F = 5 timer events of fast recovery: RC = (RT + RC) / 2, RT unchanged */
	for (int k = 1; k <= 5; k++) {
		fe_dcqcn_advance(&s, &c, 1 + (uint64_t)k * 55000);
		rc = (rt + rc) / 2;
		cr_assert(CLOSE(s.rt, rt), "event %d: rt %f", k, s.rt);
		cr_assert(CLOSE(s.rc, rc), "event %d: rc %f, expected %f", k, s.rc, rc);
	}
	/* the 6th: additive increase, RT += RAI (5 Mbit/s) */
	fe_dcqcn_advance(&s, &c, 1 + 6 * 55000);
	rt += 5e6;
	rc = (rt + rc) / 2;
	cr_assert(CLOSE(s.rt, rt), "rt %f", s.rt);
	cr_assert(CLOSE(s.rc, rc), "rc %f", s.rc);
	cr_assert_eq(s.increases, 6);
}

Test(dcqcn, byte_counter_and_hyper_increase)
{
	struct fe_dcqcn_cfg c = cfg();
	struct fe_dcqcn s;
	double rt, rc;

	fe_dcqcn_init(&s, &c);
	fe_dcqcn_cnp(&s, &c, 0);
	fe_dcqcn_cnp(&s, &c, 1); /* RT 0.5G, RC 0.25G */
	/* 5 byte-counter events (10 kB each) and 5 timer events: fast recovery, 10 steps */
	rt = s.rt;
	rc = s.rc;
	fe_dcqcn_sent(&s, &c, 50000, 2);
	for (int k = 0; k < 5; k++)
		rc = (rt + rc) / 2;
	cr_assert(CLOSE(s.rc, rc), "after 5 byte events rc %f, expected %f", s.rc, rc);
	cr_assert_eq(s.b_n, 5);
	fe_dcqcn_advance(&s, &c, 1 + 5 * 55000);
	/* timer events 1..5 had max(T_n, B_n) = 5 >= F: additive, RT += RAI each */
	for (int k = 0; k < 5; k++) {
		rt += 5e6;
		rc = (rt + rc) / 2;
	}
	cr_assert(CLOSE(s.rt, rt), "rt %f expected %f", s.rt, rt);
	cr_assert(CLOSE(s.rc, rc), "rc %f expected %f", s.rc, rc);
	/* both counters at F: the next byte event is hyper, RT += (min - F + 1) RHAI */
	fe_dcqcn_sent(&s, &c, 10000, 1 + 5 * 55000 + 1);
	rt += 1 * 50e6;
	rc = (rt + rc) / 2;
	cr_assert(CLOSE(s.rt, rt), "rt %f expected %f", s.rt, rt);
	cr_assert(CLOSE(s.rc, rc), "rc %f expected %f", s.rc, rc);
}

Test(dcqcn, recovers_to_the_line_rate_and_stops_pacing)
{
	struct fe_dcqcn_cfg c = cfg();
	struct fe_dcqcn s;

	fe_dcqcn_init(&s, &c);
	fe_dcqcn_cnp(&s, &c, 0);
	fe_dcqcn_advance(&s, &c, 100 * 55000);
	cr_assert_eq(s.limited, 0);
	cr_assert(CLOSE(s.rc, (double)LINE));
	cr_assert_eq(fe_dcqcn_gap(&s, 1500, HZ), 0);
}

Test(dcqcn, never_below_the_minimum_rate)
{
	struct fe_dcqcn_cfg c = cfg();
	struct fe_dcqcn s;

	fe_dcqcn_init(&s, &c);
	for (uint64_t t = 0; t < 40; t++)
		fe_dcqcn_cnp(&s, &c, t);
	cr_assert(CLOSE(s.rc, 1e6), "rc %f: min-rate 1 Mbit/s", s.rc);
}

Test(ibcc, becn_raises_the_index_and_the_timer_lowers_it)
{
	struct fe_nic_params p = FE_NIC_DEFAULT;
	struct fe_ibcc_cfg c;
	struct fe_ibcc s = {.timer_next = UINT64_MAX};

	p.ccti_increase = 2;
	p.ccti_limit = 5;
	p.ccti_timer_ns = 1000;
	fe_ibcc_compile(&p, HZ, &c);
	cr_assert_eq(fe_ibcc_gap(&s, &c, 1500, LINE, HZ), 0, "index 0: the link paces");
	fe_ibcc_becn(&s, &c, 100);
	cr_assert_eq(s.ccti, 2, "CCTI += ccti_increase");
	/* 1500 bytes at 1 Gbit/s: 12 us, plus 2/16 of it */
	cr_assert_eq(fe_ibcc_gap(&s, &c, 1500, LINE, HZ), 12000 + 1500);
	fe_ibcc_becn(&s, &c, 200);
	fe_ibcc_becn(&s, &c, 300);
	cr_assert_eq(s.ccti, 5, "up to ccti_limit");
	/* the timer started with the first BECN: one step down every 1 us from 1100 */
	fe_ibcc_advance(&s, &c, 1099);
	cr_assert_eq(s.ccti, 5);
	fe_ibcc_advance(&s, &c, 1100);
	cr_assert_eq(s.ccti, 4);
	fe_ibcc_advance(&s, &c, 3100);
	cr_assert_eq(s.ccti, 2);
	fe_ibcc_advance(&s, &c, 100000);
	cr_assert_eq(s.ccti, 0, "down to ccti_min, and the timer stops");
	cr_assert_eq(s.timer_next, UINT64_MAX);
	cr_assert_eq(s.becns, 3);
}

/* ---- frames (tcp_frame(), csum_ok(): nic_frames.h) ---- */

/* SLEEK's threshold (uet-htsim UecSrc::runSleek): 1.5 windows, at most the window, at
 * least 5; no congestion window: the window. */
Test(nicframe, sleek_threshold)
{
	cr_assert_eq(fe_nic_sleek_frames(0, 512), 512);
	cr_assert_eq(fe_nic_sleek_frames(100, 512), 150);
	cr_assert_eq(fe_nic_sleek_frames(400, 512), 512);
	cr_assert_eq(fe_nic_sleek_frames(2, 512), 5);
	cr_assert_eq(fe_nic_sleek_frames(0, 4), 5);
}

Test(nicframe, ecn_cleared_with_checksum)
{
	static const uint8_t a[6] = {2, 0, 0, 0, 0, 1}, b[6] = {2, 0, 0, 0, 0, 2};
	uint8_t f[100];

	tcp_frame(f, sizeof(f), a, b, 3, 7);
	cr_assert(csum_ok(f));
	cr_assert_eq(fe_nic_ecn_get(f, sizeof(f)), 3);
	cr_assert_eq(fe_nic_ecn_set(f, sizeof(f), 2), 0);
	cr_assert_eq(fe_nic_ecn_get(f, sizeof(f)), 2);
	cr_assert(csum_ok(f), "RFC 1624 update");
}

Test(nicframe, control_frames_round_trip)
{
	static const uint8_t a[6] = {2, 0, 0, 0, 0, 1}, b[6] = {2, 0, 0, 0, 0, 2};
	uint8_t f[100], c[FE_NIC_CTL_LEN];
	enum fe_nic_ctl kinds[] = {FE_NIC_CNP,	   FE_NIC_ACK,	  FE_NIC_NAK,	   FE_NIC_TRIM_NAK,
				   FE_NIC_ACK_ECE, FE_NIC_CREDIT, FE_NIC_PROBE_ACK},
			k;
	uint32_t qpn, psn, off;
	struct fe_nic_key key;

	tcp_frame(f, sizeof(f), a, b, 2, 1);
	cr_assert_eq(fe_nic_flow_key(f, sizeof(f), &key), 0);
	for (int i = 0; i < 7; i++) {
		fe_nic_ctl_frame(c, f, kinds[i], 17, 0xabcdef);
		cr_assert_eq(memcmp(c, b, 6) == 0 ? -1 : memcmp(c, a, 6), 0, "back to the sender");
		cr_assert(csum_ok(c));
		cr_assert_eq(c[15] >> 2, 48, "DSCP 48");
		cr_assert_eq(fe_nic_ctl_parse(c, sizeof(c), &k, &qpn, &psn), 0);
		cr_assert_eq(k, kinds[i]);
		cr_assert_eq(qpn, 17);
		cr_assert_eq(psn, 0xabcdef);
	}
	/* a grant's cumulative pull: 32 bits where a SACK goes; a SACK's start in the MSN */
	fe_nic_ctl_frame(c, f, FE_NIC_CREDIT, 17, 5);
	fe_nic_ctl_sack_set(c, 0xfedcba98, 0);
	cr_assert_eq(fe_nic_ctl_parse(c, sizeof(c), &k, &qpn, &psn), 0);
	cr_assert_eq(k, FE_NIC_CREDIT);
	cr_assert_eq(fe_nic_ctl_sack(c, &off), 0xfedcba98);
	cr_assert_eq(off, 0);
	fe_nic_ctl_frame(c, f, FE_NIC_ACK, 17, 5);
	fe_nic_ctl_sack_set(c, 0x80000001, 0x123456);
	cr_assert_eq(fe_nic_ctl_parse(c, sizeof(c), &k, &qpn, &psn), 0);
	cr_assert_eq(k, FE_NIC_ACK, "the MSN is not the syndrome");
	cr_assert_eq(psn, 5);
	cr_assert_eq(fe_nic_ctl_sack(c, &off), 0x80000001);
	cr_assert_eq(off, 0x123456);
	/* SLEEK's probe goes the data's way (its addresses not swapped); its answer back,
	 * an ACK with a SACK and the probe's number */
	fe_nic_ctl_frame(c, f, FE_NIC_PROBE, 17, 0x7f);
	cr_assert_eq(memcmp(c, b, 6), 0, "to the data's destination");
	cr_assert_eq(memcmp(c + 6, a, 6), 0, "from its source");
	cr_assert_eq(memcmp(c + 26, f + 26, 8), 0, "the data's IPv4 addresses, in order");
	cr_assert(csum_ok(c));
	cr_assert_eq(fe_nic_ctl_parse(c, sizeof(c), &k, &qpn, &psn), 0);
	cr_assert_eq(k, FE_NIC_PROBE);
	cr_assert_eq(qpn, 17);
	cr_assert_eq(psn, 0x7f);
	cr_assert_eq(fe_nic_ctl_probe(c), 0, "a number in the answer only");
	fe_nic_ctl_frame(c, f, FE_NIC_PROBE_ACK, 17, 0xabcdef);
	cr_assert_eq(memcmp(c, a, 6), 0, "the answer back to the sender");
	fe_nic_ctl_sack_set(c, 0x80000003, 0x10);
	fe_nic_ctl_probe_set(c, 0x55);
	cr_assert_eq(fe_nic_ctl_parse(c, sizeof(c), &k, &qpn, &psn), 0);
	cr_assert_eq(k, FE_NIC_PROBE_ACK);
	cr_assert_eq(psn, 0xabcdef, "the probe's number is not the PSN");
	cr_assert_eq(fe_nic_ctl_probe(c), 0x55);
	cr_assert_eq(fe_nic_ctl_sack(c, &off), 0x80000003);
	cr_assert_eq(off, 0x10);
	fe_nic_ctl_frame(c, f, FE_NIC_ACK, 17, 5);
	fe_nic_ctl_probe_set(c, 0x55);
	cr_assert_eq(fe_nic_ctl_parse(c, sizeof(c), &k, &qpn, &psn), 0);
	cr_assert_eq(k, FE_NIC_ACK, "the probe's number is not the syndrome");
	cr_assert_eq(psn, 5);
	/* a trim NAK says whether the frame was trimmed at the last hop; no other frame */
	fe_nic_ctl_frame(c, f, FE_NIC_TRIM_NAK, 17, 9);
	cr_assert(!fe_nic_ctl_trim_last(c));
	fe_nic_ctl_trim_last_set(c);
	cr_assert(fe_nic_ctl_trim_last(c));
	cr_assert_eq(fe_nic_ctl_parse(c, sizeof(c), &k, &qpn, &psn), 0);
	cr_assert_eq(k, FE_NIC_TRIM_NAK, "a trim NAK still");
	cr_assert_eq(psn, 9);
	fe_nic_ctl_frame(c, f, FE_NIC_NAK, 17, 9);
	fe_nic_ctl_trim_last_set(c);
	cr_assert(!fe_nic_ctl_trim_last(c));
	cr_assert_eq(fe_nic_ctl_parse(c, sizeof(c), &k, &qpn, &psn), 0);
	cr_assert_eq(k, FE_NIC_NAK, "a sequence NAK untouched");
	cr_assert_eq(fe_nic_ctl_parse(f, sizeof(f), &k, &qpn, &psn), -1, "TCP is not one");
	cr_assert_eq(fe_psn_diff(2, 0xfffffe), 4, "PSNs wrap at 2^24");
}

/* ---- the engine ---- */

#define NP 2
static struct rte_mempool *pool;
static struct rte_ring *rxr[NP], *txr[NP];
static uint16_t ports[NP];
static const uint8_t MAC[NP][6] = {{0x02, 0xfe, 0, 0, 0, 0xa}, {0x02, 0xfe, 0, 0, 0, 0xb}};

static void
eal_up(void)
{
	pool = ring_eal_up("fe-test-nic");
	for (int i = 0; i < NP; i++)
		ports[i] = ring_port(i, pool, &rxr[i], &txr[i]);
}

static void
eal_down(void)
{
	ring_eal_down("fe-test-nic");
}

TestSuite(nic, .init = eal_up, .fini = eal_down);

static struct fe_dp *engine_x(const struct fe_nic_params *nic, uint64_t drop, uint64_t count,
			      uint32_t up_pkts);

/* NIC parameters: the defaults, of a model and a recovery. */
static struct fe_nic_params
nic(uint32_t model, uint32_t recovery)
{
	struct fe_nic_params p = FE_NIC_DEFAULT;

	p.model = model;
	p.recovery = recovery;
	return p;
}

/* Links of 1 us each way and no rate; port 0's up link drops data frame `drop` (0: none). */
static struct fe_dp *
engine(uint32_t model, uint32_t recovery, uint64_t drop)
{
	struct fe_nic_params p = nic(model, recovery);

	return engine_x(&p, drop, 1, 0);
}

/* ... count frames from the drop-th, and port 0's up link holds up_pkts (0: no limit). */
static const char *drop_match = "tcp"; /* what the drop rule counts (a test may narrow it) */
static uint64_t down1_bps;	       /* host 1's down link's rate (a test may set it; 0: none) */
static int down1_marks;		       /* host 1's down link marks every frame it can (CE) */

static struct fe_dp *
engine_x(const struct fe_nic_params *nic, uint64_t drop, uint64_t count, uint32_t up_pkts)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {
		.mac_age_ns = 300000000000ULL, .lanes = 1, .seed = 1, .nic = *nic};
	char err[256];
	struct fe_dp *dp;

	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	if (drop) { /* only TCP data counts: the learning frames are not TCP */
		snprintf(up[0].match, sizeof(up[0].match), "%s", drop_match);
		up[0].drop_first = drop;
		up[0].drop_count = count;
	}
	up[0].link.limit_pkts = up_pkts;
	down[1].link.rate_bps = down1_bps;
	if (down1_marks)
		down[1].ecn = (struct fe_ecn_params){.enabled = 1, .kmin = 0, .kmax = 0, .pmax = 1};
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	return dp;
}

static void
inject_raw(int port, const uint8_t *f, uint16_t len)
{
	ring_frame(pool, rxr[port], f, len);
}

/* Frames out of port i: their IP ids into ids[] (if not NULL), all freed. */
static unsigned
collect(int i, uint16_t *ids, uint8_t *ecn)
{
	void *m;
	unsigned n = 0;

	while (rte_ring_dequeue(txr[i], &m) == 0) {
		const uint8_t *f = rte_pktmbuf_mtod((struct rte_mbuf *)m, const uint8_t *);

		if (ids)
			ids[n] = (uint16_t)(f[18] << 8 | f[19]);
		if (ecn)
			ecn[n] = f[15] & 3;
		cr_assert(f[12] != 0x08 || csum_ok(f), "a valid IPv4 header reaches the host");
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

static void learn_by(struct fe_dp *dp, uint64_t t);

/* Each host sends a non-IP frame so that the switch knows both. */
static void
learn(struct fe_dp *dp)
{
	learn_by(dp, 5000);
}

/* ... both frames delivered by tick t. */
static void
learn_by(struct fe_dp *dp, uint64_t t)
{
	uint8_t f[60] = {0};

	memcpy(f, MAC[1], 6);
	memcpy(f + 6, MAC[0], 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	inject_raw(0, f, sizeof(f));
	memcpy(f, MAC[0], 6);
	memcpy(f + 6, MAC[1], 6);
	inject_raw(1, f, sizeof(f));
	fe_dp_poll(dp, 1);
	fe_dp_poll(dp, t);
	cr_assert_eq(collect(0, NULL, NULL), 1);
	cr_assert_eq(collect(1, NULL, NULL), 1);
}

static void
send_flow(int n, uint8_t ecn)
{
	uint8_t f[1000];

	for (int i = 1; i <= n; i++) {
		tcp_frame(f, sizeof(f), MAC[0], MAC[1], ecn, (uint16_t)i);
		inject_raw(0, f, sizeof(f));
	}
}

/* Poll at t twice: a NIC timer due by t fires in the second pass (once a whole pass has
 * run past it: fe_nic_service()). */
static void
poll2(struct fe_dp *dp, uint64_t t)
{
	fe_dp_poll(dp, t);
	fe_dp_poll(dp, t);
}

static void
done(struct fe_dp *dp, unsigned avail)
{
	fe_dp_drain(dp);
	fe_dp_free(dp);
	cr_assert_eq(rte_mempool_avail_count(pool), avail, "every mbuf back in the pool");
}

Test(nic, roce_consumes_ce_and_cnp_slows_the_sender)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine(FE_NIC_ROCE, FE_NIC_GBN, 0);
	const struct fe_port_stats *s0 = &dp->ports[0].st, *s1 = &dp->ports[1].st;
	uint8_t ecn[8];
	uint16_t ids[8];

	learn(dp);
	send_flow(2, 3); /* as if the fabric had marked both */
	poll2(dp, 10000);
	fe_dp_poll(dp, 12000); /* at the receiver: CE cleared, one CNP (interval 50 us) */
	cr_assert_eq(collect(1, ids, ecn), 2);
	cr_assert_eq(ecn[0], 2, "the host sees ECT(0), not CE");
	cr_assert_eq(ecn[1], 2);
	cr_assert_eq(s1->nic_ce_consumed, 2);
	cr_assert_eq(s1->nic_cnp_sent, 1, "one CNP a flow per interval");
	cr_assert_eq(s0->nic_cnp_recv, 0, "the CNP is on its way back");
	poll2(dp, 13999);
	cr_assert_eq(s0->nic_cnp_recv, 0);
	poll2(dp, 14000); /* two links back: 2 us */
	cr_assert_eq(s0->nic_cnp_recv, 1);
	cr_assert_eq(s0->nic_rate_bps, 50000000000ULL, "100G default line rate halved");
	cr_assert_eq(collect(0, NULL, NULL), 0, "CNPs and ACKs never reach a host");
	cr_assert_eq(s0->nic_acks_recv, 1);
	cr_assert_eq(s0->nic_copies, 0, "acknowledged copies released");
	done(dp, avail);
}

/*
 * An RDMA or UET NIC's frames are ECN-capable whatever the host's TCP asked for (a RoCEv2
 * NIC sets ECT on its packets, UET's are ECN-capable, an InfiniBand switch may set FECN on
 * any packet): a host that did not ask for ECN (Linux's tcp_ecn=2, a container's default)
 * sends Not-ECT, the switch could not mark it, and the NIC's congestion control never
 * heard of the queue. The NIC makes it ECT(0) for the fabric and the receiving NIC gives
 * it to the host as it was sent, Not-ECT: a resent copy too.
 */
Test(nic, a_nics_frames_are_ecn_capable_whatever_the_host_asked)
{
	static const uint32_t models[] = {FE_NIC_ROCE, FE_NIC_UEC};

	down1_marks = 1;
	for (unsigned k = 0; k < 2; k++) {
		unsigned avail = rte_mempool_avail_count(pool);
		struct fe_nic_params p = nic(models[k], FE_NIC_SELECTIVE);
		struct fe_dp *dp = engine_x(&p, 1, 1, 0); /* the first TCP frame lost once */
		const struct fe_port_stats *s0 = &dp->ports[0].st, *s1 = &dp->ports[1].st;
		uint8_t ecn[8];
		uint16_t ids[8];
		unsigned n;

		learn(dp);
		send_flow(3, 0); /* Not-ECT, as a host's TCP that did not ask for ECN */
		for (uint64_t t = 10000; t <= 200000; t += 1000)
			poll2(dp, t);
		n = collect(1, ids, ecn);
		cr_assert_eq(n, 3, "model %u: %u frames reached host 1", models[k], n);
		for (unsigned i = 0; i < n; i++)
			cr_assert_eq(ecn[i], 0,
				     "model %u: frame %u reaches its host Not-ECT, as sent: %u",
				     models[k], ids[i], ecn[i]);
		cr_assert_geq(s0->nic_resent_pkts, 1, "model %u: the lost frame sent again",
			      models[k]);
		cr_assert_eq(dp->ports[1].down.l.st.ecn_marked, 3 + s0->nic_resent_pkts - 1,
			     "model %u: the switch marked every data frame that came: %lu",
			     models[k], (unsigned long)dp->ports[1].down.l.st.ecn_marked);
		cr_assert_eq(s1->nic_ce_consumed, dp->ports[1].down.l.st.ecn_marked,
			     "model %u: the receiving NIC took every mark", models[k]);
		if (models[k] == FE_NIC_ROCE)
			cr_assert_geq(s0->nic_cnp_recv, 1, "DCQCN heard of the queue");
		done(dp, avail);
	}
	down1_marks = 0;
}

/* ... and one the switch floods (its flow under way, its destination aged out of the MAC
 * table) goes on as a plain frame, Not-ECT as its host sent it. */
Test(nic, a_flooded_frame_reaches_the_hosts_as_sent)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine(FE_NIC_ROCE, FE_NIC_GBN, 0);
	const uint64_t aged = 300000000000ULL + 100000; /* the MAC table's 300 s, and more */
	uint8_t f[1000], ecn[8];
	uint64_t t, fl0;
	unsigned n;

	learn(dp);
	send_flow(1, 0);
	for (t = 10000; t <= 20000; t += 1000)
		poll2(dp, t);
	cr_assert_eq(collect(1, NULL, ecn), 1);
	cr_assert_eq(ecn[0], 0, "Not-ECT, as sent: %u", ecn[0]);
	fl0 = dp->sw.flooded;
	tcp_frame(f, sizeof(f), MAC[0], MAC[1], 0, 2);
	inject_raw(0, f, sizeof(f));
	for (t = aged; t <= aged + 10000; t += 1000)
		poll2(dp, t);
	cr_assert_eq(dp->sw.flooded, fl0 + 1, "the flow's next frame flooded");
	n = collect(1, NULL, ecn);
	cr_assert_eq(n, 1, "%u frames", n);
	cr_assert_eq(ecn[0], 0, "flooded, Not-ECT as sent: %u", ecn[0]);
	done(dp, avail);
}

/*
 * A reset (fabemuctl reset, docs/control.md) zeroes the counters; gauges keep their value
 * and the least and the most restart from it. The NIC's rate and window were zeroed, which
 * reads "never cut" (docs/counters.md), and the MAC table's counters were never reset.
 */
Test(nic, a_reset_keeps_the_gauges)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine(FE_NIC_ROCE, FE_NIC_GBN, 0);
	const struct fe_port_stats *s0 = &dp->ports[0].st;

	learn(dp);
	send_flow(2, 3); /* marked: a CNP halves the sender's rate */
	for (uint64_t t = 10000; t <= 20000; t += 1000)
		poll2(dp, t);
	cr_assert_eq(collect(1, NULL, NULL), 2);
	cr_assert_eq(s0->nic_rate_bps, 50000000000ULL);
	cr_assert_eq(s0->nic_cnp_recv, 1);
	cr_assert_geq(dp->mac->learned, 2);
	fe_adopt_reset(dp, FE_ROLE_ALL, 20000);
	cr_expect_eq(s0->nic_cnp_recv, 0, "a counter: zero");
	cr_expect_eq(s0->nic_rate_bps, 50000000000ULL, "a gauge kept: %lu",
		     (unsigned long)s0->nic_rate_bps);
	cr_expect_eq(s0->nic_rate_min_bps, 50000000000ULL, "the least from the gauge: %lu",
		     (unsigned long)s0->nic_rate_min_bps);
	cr_expect_eq(dp->mac->learned, 0, "the MAC table's: %lu", (unsigned long)dp->mac->learned);
	done(dp, avail);
}

/*
 * After a reset the least rate restarts from the flows' own rates, the least of them: it
 * restarted from the rate of the flow served last (nic_rate_bps), and read the line rate
 * while a flow cut to half went on at half until it next changed.
 */
Test(nic, a_reset_restarts_the_least_rate_from_every_flow)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine(FE_NIC_ROCE, FE_NIC_GBN, 0);
	const struct fe_port_stats *s0 = &dp->ports[0].st;
	const struct fe_nicport *n = dp->ports[0].nic;
	double least = 0;
	uint8_t f[1000];

	learn(dp);
	/* flow A marked twice, a CNP interval (50 us) apart: cut twice */
	for (uint64_t at = 10000; at <= 80000; at += 70000) {
		send_flow(1, 3);
		for (uint64_t t = at; t <= at + 10000; t += 1000)
			poll2(dp, t);
	}
	/* then flow B (sport + 1), marked once: cut once, the flow that changed last */
	tcp_frame(f, sizeof(f), MAC[0], MAC[1], 3, 1);
	f[35]++;
	inject_raw(0, f, sizeof(f));
	for (uint64_t t = 91000; t <= 100000; t += 1000)
		poll2(dp, t);
	cr_assert_eq(collect(1, NULL, NULL), 3);
	cr_assert_eq(s0->nic_flows, 2);
	for (unsigned k = 0; k < FE_NIC_FLOWS; k++)
		if (n->flows[k].used && (least == 0 || fe_nic_flow_rate(n, &n->flows[k]) < least))
			least = fe_nic_flow_rate(n, &n->flows[k]);
	cr_assert_lt(least, (double)s0->nic_rate_bps, "flow A below the last changed: %.0f, %lu",
		     least, (unsigned long)s0->nic_rate_bps);
	fe_adopt_reset(dp, FE_ROLE_ALL, 100000);
	cr_expect_eq(s0->nic_rate_min_bps, (uint64_t)least,
		     "the least of the flows' rates, %.0f: %lu", least,
		     (unsigned long)s0->nic_rate_min_bps);
	done(dp, avail);
}

Test(nic, ib_cc_returns_a_becn_for_every_fecn)
{
	unsigned avail = rte_mempool_avail_count(pool);
	/* model ib with InfiniBand CC: each FECN (a CE mark here) comes back as a BECN */
	struct fe_nic_params p = nic(FE_NIC_IB, FE_NIC_GBN);
	struct fe_dp *dp;
	const struct fe_port_stats *s0, *s1;

	p.cc = FE_CC_IB;
	p.cc_set = 1;
	dp = engine_x(&p, 0, 0, 0);
	s0 = &dp->ports[0].st;
	s1 = &dp->ports[1].st;
	learn(dp);
	send_flow(3, 3);
	poll2(dp, 10000);
	poll2(dp, 12000);
	cr_assert_eq(collect(1, NULL, NULL), 3);
	cr_assert_eq(s1->nic_ce_consumed, 3);
	cr_assert_eq(s1->nic_cnp_sent, 3, "no interval: a BECN for every FECN");
	poll2(dp, 14000);
	cr_assert_eq(s0->nic_cnp_recv, 3);
	/* CCTI 3 of a linear table, 1/16 of a packet time each: 100 Gbit/s x 16 / 19 */
	cr_assert_eq(s0->nic_rate_bps, 84210526315ULL, "rate %lu", (unsigned long)s0->nic_rate_bps);
	done(dp, avail);
}

Test(nic, go_back_n_resends_what_followed_the_drop)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine(FE_NIC_ROCE, FE_NIC_GBN, 3);
	const struct fe_port_stats *s0 = &dp->ports[0].st, *s1 = &dp->ports[1].st;
	uint16_t ids[16];

	learn(dp);
	send_flow(6, 2);
	poll2(dp, 10000); /* sent at 10 us; the 3rd is dropped on port 0's up link */
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_EXACT], 1);
	poll2(dp, 12000); /* 1, 2 delivered; 4, 5, 6 discarded; one NAK */
	cr_assert_eq(collect(1, ids, NULL), 2);
	cr_assert_eq(s1->nic_oos_discards, 3);
	cr_assert_eq(s1->nic_naks_sent, 1);
	poll2(dp, 13999);
	cr_assert_eq(s0->nic_resent_pkts, 0, "not before the NAK's way back");
	poll2(dp, 14000); /* the NAK is back: 3..6 sent again */
	cr_assert_eq(s0->nic_naks_recv, 1);
	cr_assert_eq(s0->nic_resent_pkts, 4, "the dropped frame and the three after it");
	poll2(dp, 15999);
	cr_assert_eq(collect(1, NULL, NULL), 0);
	poll2(dp, 16000);
	cr_assert_eq(collect(1, ids + 2, NULL), 4);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(ids[i], i + 1, "in order: frame %d is %u", i, ids[i]);
	poll2(dp, 20000);
	cr_assert_eq(s0->nic_copies, 0);
	cr_assert_eq(s0->nic_timeouts, 0);
	cr_assert_eq(s1->nic_dup_discards, 0);
	cr_assert_eq(collect(0, NULL, NULL), 0);
	done(dp, avail);
}

/* A frame in two segments (as a PMD chains a large one): the NIC keeps all of it. */
static void
inject_chained(int port, const uint8_t *f, uint16_t len, uint16_t cut)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *t = rte_pktmbuf_alloc(pool);

	cr_assert(m != NULL && t != NULL);
	memcpy(rte_pktmbuf_append(m, cut), f, cut);
	memcpy(rte_pktmbuf_append(t, (uint16_t)(len - cut)), f + cut, len - cut);
	cr_assert_eq(rte_pktmbuf_chain(m, t), 0);
	cr_assert_eq(rte_ring_enqueue(rxr[port], m), 0);
}

/*
 * Go-back-N over chained frames: the kept copies hold every segment, so a frame sent
 * twice (its copy freed once by the link, once at the ACK) returns each segment once.
 * (The fuzzer found a copy held by its first segment alone: the tail was freed twice.)
 */
Test(nic, chained_frames_kept_and_resent_whole)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine(FE_NIC_ROCE, FE_NIC_GBN, 3);
	struct rte_mbuf *all[4096];
	uint16_t ids[16];
	uint8_t f[1000];
	unsigned n = 0, k;
	void *m;

	learn(dp);
	for (int i = 1; i <= 6; i++) {
		tcp_frame(f, sizeof(f), MAC[0], MAC[1], 2, (uint16_t)i);
		memset(f + 600, 0xa0 + i, 400); /* the tail segment's bytes, by frame */
		inject_chained(0, f, sizeof(f), 500);
	}
	poll2(dp, 10000); /* sent; the 3rd dropped: its kept copy must still hold its tail */
	/* whatever the pool has free is overwritten: a segment freed too early shows */
	for (k = 0; k < RTE_DIM(all) && (all[k] = rte_pktmbuf_alloc(pool)) != NULL; k++)
		memset(all[k]->buf_addr, 0x55, all[k]->buf_len);
	rte_pktmbuf_free_bulk(all, k);
	for (uint64_t t = 11000; t <= 30000; t += 1000) {
		poll2(dp, t);
		while (rte_ring_dequeue(txr[1], &m) == 0) {
			const uint8_t *p = rte_pktmbuf_read(m, 900, 1, f);

			cr_assert_lt(n, 6);
			ids[n] = (uint16_t)(rte_pktmbuf_mtod((struct rte_mbuf *)m, uint8_t *)[18]
						    << 8 |
					    rte_pktmbuf_mtod((struct rte_mbuf *)m, uint8_t *)[19]);
			cr_assert_eq(*p, 0xa0 + ids[n], "frame %u's tail intact (%#x)", ids[n], *p);
			rte_pktmbuf_free(m);
			n++;
		}
	}
	cr_assert_eq(n, 6);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(ids[i], i + 1, "in order: frame %d is %u", i, ids[i]);
	cr_assert_eq(dp->ports[0].st.nic_resent_pkts, 4);
	cr_assert_eq(dp->ports[0].st.nic_copies, 0);
	collect(0, NULL, NULL);
	done(dp, avail);
}

/*
 * A reorder window of 100 us and a real loss (the 3rd frame): the receiver holds 4, 5
 * and 6 and waits; the gap is still open when the window ends, so it NAKs then (not
 * 2 us after the gap, as without a window), and go-back-N sends 3..6 again; the held
 * ones come back as duplicates. All 6 in order.
 */
Test(nic, reorder_window_naks_a_real_loss_when_it_ends)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_nic_params p = nic(FE_NIC_ROCE, FE_NIC_GBN);
	struct fe_dp *dp;
	const struct fe_port_stats *s0, *s1;
	uint16_t ids[16];
	unsigned n = 0;

	p.reorder_ns = 100000;
	dp = engine_x(&p, 3, 1, 0);
	s0 = &dp->ports[0].st;
	s1 = &dp->ports[1].st;
	learn(dp);
	send_flow(6, 2);
	poll2(dp, 10000);
	poll2(dp, 12000); /* 1, 2 delivered; 4, 5, 6 held */
	n += collect(1, ids, NULL);
	cr_assert_eq(n, 2);
	cr_assert_eq(s1->nic_held_pkts, 3);
	cr_assert_eq(s1->nic_naks_sent, 0, "the window is open: no NAK yet");
	poll2(dp, 111000);
	cr_assert_eq(s1->nic_naks_sent, 0);
	poll2(dp, 112000); /* the window (100 us from 12 us) ends with the gap open */
	cr_assert_eq(s1->nic_naks_sent, 1);
	cr_assert_eq(s1->nic_reorder_naks, 1);
	for (uint64_t t = 113000; t <= 130000; t += 1000) {
		poll2(dp, t);
		n += collect(1, ids + n, NULL);
	}
	cr_assert_eq(n, 6);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(ids[i], i + 1, "in order: frame %d is %u", i, ids[i]);
	cr_assert_eq(s0->nic_resent_pkts, 4, "go-back-N: 3..6");
	cr_assert_eq(s1->nic_dup_discards, 3, "4..6 were held already");
	cr_assert_eq(s1->nic_oos_discards, 0);
	poll2(dp, 200000);
	cr_assert_eq(s0->nic_copies, 0);
	done(dp, avail);
}

/* Selective repeat, frame 3 of 6 dropped: 1, 2 delivered (in ids), 4, 5, 6 held. */
static struct fe_dp *
selective_held(uint16_t *ids)
{
	struct fe_dp *dp = engine(FE_NIC_ROCE, FE_NIC_SELECTIVE, 3);

	learn(dp);
	send_flow(6, 2);
	poll2(dp, 10000);
	poll2(dp, 12000);
	cr_assert_eq(collect(1, ids, NULL), 2);
	cr_assert_eq(dp->ports[1].st.nic_held_pkts, 3, "4, 5, 6 held for order");
	return dp;
}

Test(nic, selective_repeat_resends_one_frame)
{
	unsigned avail = rte_mempool_avail_count(pool);
	uint16_t ids[16];
	struct fe_dp *dp = selective_held(ids);
	const struct fe_port_stats *s0 = &dp->ports[0].st, *s1 = &dp->ports[1].st;

	cr_assert_eq(s1->nic_oos_discards, 0);
	poll2(dp, 14000);
	cr_assert_eq(s0->nic_resent_pkts, 1, "only the dropped frame");
	poll2(dp, 16000);
	cr_assert_eq(collect(1, ids + 2, NULL), 4);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(ids[i], i + 1, "in order: frame %d is %u", i, ids[i]);
	poll2(dp, 20000);
	cr_assert_eq(s0->nic_copies, 0);
	done(dp, avail);
}

/* Stopped with 4, 5, 6 held for order: freed and counted at their host's port. */
Test(nic, held_at_stop_is_counted)
{
	unsigned avail = rte_mempool_avail_count(pool);
	uint16_t ids[16];
	struct fe_dp *dp = selective_held(ids);
	const struct fe_port_stats *s0 = &dp->ports[0].st, *s1 = &dp->ports[1].st;

	fe_dp_drain(dp);
	cr_assert_eq(s1->nic_stopped_recv, 3, "the three held, at their host's port");
	cr_assert_eq(s0->nic_stopped_recv + s0->nic_stopped_send + s1->nic_stopped_send, 0);
	done(dp, avail);
}

Test(nic, lost_tail_costs_the_timeout)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine(FE_NIC_IB, FE_NIC_GBN, 6);
	const struct fe_port_stats *s0 = &dp->ports[0].st;
	uint64_t t;

	learn(dp);
	send_flow(6, 0);
	poll2(dp, 10000);
	poll2(dp, 12000); /* 1..5 delivered, ACKed */
	cr_assert_eq(collect(1, NULL, NULL), 5);
	poll2(dp, 14000); /* the ACK is back: the timer restarts from here */
	cr_assert_eq(s0->nic_acks_recv, 1);
	t = 14000 + 67108864; /* the default timeout */
	poll2(dp, t - 1);
	cr_assert_eq(s0->nic_timeouts, 0);
	poll2(dp, t);
	cr_assert_eq(s0->nic_timeouts, 1);
	cr_assert_eq(s0->nic_resent_pkts, 1);
	cr_assert_eq(s0->nic_cnp_recv, 0, "ib: no congestion control by default");
	poll2(dp, t + 1999);
	cr_assert_eq(collect(1, NULL, NULL), 0);
	poll2(dp, t + 2000);
	cr_assert_eq(collect(1, NULL, NULL), 1);
	done(dp, avail);
}

Test(nic, selective_lost_tail_costs_one_timeout)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_nic_params p = nic(FE_NIC_ROCE, FE_NIC_SELECTIVE);
	struct fe_dp *dp = engine_x(&p, 5, 2, 0);
	const struct fe_port_stats *s0 = &dp->ports[0].st;
	uint16_t ids[8];
	uint64_t t;

	learn(dp);
	send_flow(6, 2); /* 5 and 6 are lost: nothing after them, no NAK */
	poll2(dp, 10000);
	poll2(dp, 12000);
	cr_assert_eq(collect(1, ids, NULL), 4);
	poll2(dp, 14000); /* ACK 4 back: the timer restarts */
	t = 14000 + 67108864;
	poll2(dp, t - 1);
	cr_assert_eq(s0->nic_timeouts, 0);
	poll2(dp, t);
	cr_assert_eq(s0->nic_timeouts, 1);
	cr_assert_eq(s0->nic_resent_pkts, 2, "the timeout resends every unacknowledged frame");
	poll2(dp, t + 1999);
	cr_assert_eq(collect(1, NULL, NULL), 0);
	poll2(dp, t + 2000);
	cr_assert_eq(collect(1, ids + 4, NULL), 2);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(ids[i], i + 1, "in order: frame %d is %u", i, ids[i]);
	poll2(dp, t + 8000);
	cr_assert_eq(s0->nic_timeouts, 1, "one timeout for a tail of two");
	cr_assert_eq(s0->nic_copies, 0);
	done(dp, avail);
}

/*
 * The loop away (preempted, asleep, a hypervisor's steal) past a NIC's timer, while the
 * ACK that stops the timer was due before it: the first pass back runs what came due in
 * time's order, and the timer does not fire. A timeout (model roce, 67 ms): 6 frames
 * sent, the loop back 70 ms later. A loss probe (model uec, NSCC's RTT 4 us: a probe
 * 7 us after the last ACK while anything is unacknowledged): the first ACK heard, the
 * loop back 40 us later. Each: every frame delivered once, no timeout, no probe, nothing
 * sent again; and NSCC's window not cut (the ACKs' round trips are their own, 4 us, not
 * the 40 us the loop was away). Host 1's down link of 10 Gbit/s spaces the frames (0.8 us each).
 */
Test(nic, a_late_pass_keeps_the_timers_in_order)
{
	for (unsigned k = 0; k < 2; k++) {
		unsigned avail = rte_mempool_avail_count(pool), n = 0;
		struct fe_nic_params p = nic(k ? FE_NIC_UEC : FE_NIC_ROCE, FE_NIC_SELECTIVE);
		const struct fe_port_stats *s0, *s1;
		uint64_t t = 10000, cwnd = 0;
		struct fe_dp *dp;

		if (k)
			p.rtt_ns = 4000;
		down1_bps = 10000000000ULL; /* 10 Gbit/s: 0.8 us a frame */
		dp = engine_x(&p, 0, 0, 0);
		down1_bps = 0;
		s0 = &dp->ports[0].st;
		s1 = &dp->ports[1].st;
		learn(dp);
		send_flow(6, 2);
		poll2(dp, t);
		if (k) { /* the first ACK heard: the probe timer runs */
			while (s0->nic_acks_recv == 0 && t < 100000)
				poll2(dp, t += 500);
			cr_assert_eq(s0->nic_acks_recv, 1, "k %u: one ACK by %llu ns", k,
				     (unsigned long long)t);
			n += collect(1, NULL, NULL);
			cr_assert_lt(n, 6, "k %u: frames still to come when the loop goes away", k);
			cwnd = s0->nic_cwnd_min_bytes;
			cr_assert_gt(cwnd, 0, "NSCC's window seen");
		}
		t += k ? 40000 : 70000000;	 /* the loop away */
		for (unsigned i = 0; i < 4; i++) /* and back: passes one after another */
			fe_dp_poll(dp, t + i);
		n += collect(1, NULL, NULL);
		cr_assert_eq(n, 6, "k %u: %u of 6", k, n);
		cr_assert_eq(s0->nic_timeouts, 0, "k %u: no timeout", k);
		cr_assert_eq(s0->nic_probes_sent, 0, "k %u: no probe", k);
		cr_assert_eq(s0->nic_resent_pkts, 0, "k %u: nothing sent again", k);
		cr_assert_eq(s0->nic_copies, 0, "k %u: every frame acknowledged", k);
		cr_assert_eq(s1->nic_dup_discards, 0, "k %u", k);
		/* the round trips an ACK measured are its own, not the loop's absence */
		cr_assert_eq(s0->nic_cwnd_min_bytes, cwnd,
			     "k %u: NSCC's window %llu, not cut to %llu", k,
			     (unsigned long long)cwnd, (unsigned long long)s0->nic_cwnd_min_bytes);
		done(dp, avail);
	}
}

/*
 * Model uec takes a gap for a loss as uet-htsim's SLEEK does (UecSrc::runSleek): once
 * frames past it reach 1.5 congestion windows (at most the window, at least 5 frames),
 * not at once, since spraying reorders what it sends. With no congestion window the
 * threshold is the whole window (64 here): frame 3 of 40 lost, 4..40 held, no NAK, and
 * the timeout resends it alone: 4..40 were acknowledged selectively, each ACK's bitmap
 * the 32 frames up to the newest (with it from the gap only, 36..40 were resent too).
 * With NSCC's window of a few
 * frames (an RTT of 200 ns at 100 Gbit/s: 1.5 BDP is 3,750 bytes) the threshold is 5: 5
 * frames held past the gap, a NAK, and the frame back well before the timeout.
 */
Test(nic, uec_sleek_naks_a_gap_only_past_its_threshold)
{
	for (int nscc = 0; nscc <= 1; nscc++) {
		unsigned avail = rte_mempool_avail_count(pool), n = 0;
		struct fe_nic_params p = nic(FE_NIC_UEC, FE_NIC_SELECTIVE);
		const struct fe_port_stats *s0, *s1;
		uint16_t ids[48];
		struct fe_dp *dp;
		uint64_t t = 10000;

		p.window = 64;
		p.cc = nscc ? FE_CC_NSCC : FE_CC_OFF;
		p.cc_set = 1;
		p.rtt_ns = 200;
		dp = engine_x(&p, 3, 1, 0);
		s0 = &dp->ports[0].st;
		s1 = &dp->ports[1].st;
		learn(dp);
		send_flow(nscc ? 12 : 40, 2);
		for (; t <= 200000; t += 2000) {
			poll2(dp, t);
			n += collect(1, ids + n, NULL);
		}
		if (nscc) /* the NAK at the fifth, the resend filling the gap soon after */
			cr_assert_geq(s1->nic_held_pkts, FE_NIC_SLEEK_MIN, "held %llu",
				      (unsigned long long)s1->nic_held_pkts);
		else
			cr_assert_eq(s1->nic_held_pkts, 37, "4..40 held past the gap");
		if (!nscc) {
			cr_assert_eq(n, 2, "1, 2 delivered, 4..40 held");
			cr_assert_eq(s1->nic_naks_sent, 0, "37 frames past the gap, below 64");
			cr_assert_eq(s0->nic_resent_pkts, 0);
			for (t = 200000 + 67108864; t <= 200000 + 67108864 + 40000; t += 2000) {
				poll2(dp, t);
				n += collect(1, ids + n, NULL);
			}
			cr_assert_eq(s0->nic_timeouts, 1);
			cr_assert_eq(s0->nic_resent_pkts, 1,
				     "3 alone: 4..40 acknowledged selectively (%llu)",
				     (unsigned long long)s0->nic_resent_pkts);
		} else {
			cr_assert_eq(s1->nic_naks_sent, 1, "5 frames past the gap: a NAK");
			cr_assert_eq(s1->nic_reorder_naks, 1);
			cr_assert_eq(s0->nic_resent_pkts, 1);
			cr_assert_eq(s0->nic_timeouts, 0);
		}
		cr_assert_eq(n, nscc ? 12 : 40);
		for (unsigned i = 0; i < n; i++)
			cr_assert_eq(ids[i], i + 1, "in order: frame %u is %u", i, ids[i]);
		done(dp, avail);
	}
}

Test(nic, group_addresses_and_small_adapter_queues)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_nic_params p = nic(FE_NIC_ROCE, FE_NIC_GBN);
	struct fe_dp *dp = engine_x(&p, 0, 0, 8);
	const struct fe_port_stats *s0 = &dp->ports[0].st;
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	uint8_t f[1000];
	unsigned got = 0;

	learn(dp);
	/* a broadcast has no one peer to acknowledge it: it passes as it is */
	tcp_frame(f, sizeof(f), MAC[0], bcast, 2, 99);
	inject_raw(0, f, sizeof(f));
	poll2(dp, 10000);
	poll2(dp, 12000);
	cr_assert_eq(collect(1, NULL, NULL), 1);
	cr_assert_eq(s0->nic_passed, 1);
	cr_assert_eq(s0->nic_flows, 0);
	/* an adapter queue of 8 frames: the NIC sends as it drains, drops none of its own */
	send_flow(40, 2);
	for (uint64_t t = 20000; t < 60000; t += 1000) {
		poll2(dp, t);
		got += collect(1, NULL, NULL);
	}
	cr_assert_eq(got, 40);
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_TAIL], 0);
	cr_assert_eq(s0->nic_resent_pkts, 0);
	done(dp, avail);
}

Test(nic, gives_up_after_seven_retries)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_nic_params p = nic(FE_NIC_ROCE, FE_NIC_GBN);
	struct fe_dp *dp = engine_x(&p, 1, 1000, 0); /* all lost */
	const struct fe_port_stats *s0 = &dp->ports[0].st;
	const uint64_t T = 67108864;

	learn(dp);
	send_flow(2, 2);
	poll2(dp, 10000);
	for (uint64_t k = 1; k <= 7; k++) {
		poll2(dp, 10000 + k * T);
		cr_assert_eq(s0->nic_timeouts, k);
		cr_assert_eq(s0->nic_resent_pkts, 2 * k, "both sent again");
	}
	cr_assert_eq(s0->nic_abandoned, 0);
	poll2(dp, 10000 + 8 * T);
	cr_assert_eq(s0->nic_timeouts, 8);
	cr_assert_eq(s0->nic_abandoned, 2, "the 8th timeout in a row: given up, counted");
	cr_assert_eq(s0->nic_copies, 0, "and let go");
	cr_assert_eq(fe_nic_inflight(dp), 0);
	cr_assert_eq(collect(1, NULL, NULL), 0);
	done(dp, avail);
}

/*
 * Selective repeat, frame 2 lost every time it is sent (its IP id is 2): the receiver
 * holds frame 3 ahead of the gap. When the sender gives up, the receiver does too: frame
 * 3 is discarded (counted out of sequence), and a new frame of the flow reaches the host.
 * (The fuzzer found the held frame kept for ever: the engine never drained.)
 */
Test(nic, receiver_lets_go_when_the_sender_gives_up)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_nic_params p = nic(FE_NIC_ROCE, FE_NIC_SELECTIVE);
	struct fe_dp *dp;
	const struct fe_port_stats *s0, *s1;
	const uint64_t T = 67108864;
	uint8_t f[1000];
	uint16_t id;

	drop_match = "ip[4:2] = 2";
	dp = engine_x(&p, 1, 1000, 0);
	drop_match = "tcp";
	s0 = &dp->ports[0].st;
	s1 = &dp->ports[1].st;
	learn(dp);
	send_flow(3, 2);
	poll2(dp, 10000);
	poll2(dp, 20000);
	cr_assert_eq(collect(1, NULL, NULL), 1, "frame 1");
	cr_assert_eq(s1->nic_held_pkts, 1, "frame 3 held ahead of the gap");
	cr_assert_eq(dp->ports[0].nic->held, 1);
	for (uint64_t k = 1; k <= 10 && s0->nic_abandoned == 0; k++)
		poll2(dp, 20000 + k * T);
	cr_assert_eq(s0->nic_abandoned, 2, "frames 2 and 3 given up");
	cr_assert_eq(s1->nic_oos_discards, 1, "the held frame 3 let go");
	cr_assert_eq(dp->ports[0].nic->held, 0, "nothing held for ever");
	tcp_frame(f, sizeof(f), MAC[0], MAC[1], 2, 4);
	inject_raw(0, f, sizeof(f));
	poll2(dp, 20000 + 11 * T);
	poll2(dp, 20000 + 11 * T + 10000);
	cr_assert_eq(collect(1, &id, NULL), 1, "the flow goes on");
	cr_assert_eq(id, 4);
	poll2(dp, 20000 + 12 * T);
	cr_assert_eq(s0->nic_copies, 0, "frame 4 acknowledged");
	done(dp, avail);
}

Test(nic, tcp_model_leaves_frames_alone)
{
	unsigned avail = rte_mempool_avail_count(pool);
	struct fe_dp *dp = engine(FE_NIC_TCP, FE_NIC_GBN, 3);
	uint8_t ecn[8];

	learn(dp);
	send_flow(4, 3);
	poll2(dp, 10000);
	poll2(dp, 12000);
	cr_assert_eq(collect(1, NULL, ecn), 3, "the drop reaches the host's TCP");
	cr_assert_eq(ecn[0], 3, "and so does CE");
	cr_assert_eq(dp->ports[1].st.nic_ce_consumed, 0);
	cr_assert_null(dp->ports[0].nic);
	done(dp, avail);
}

/* ---- model host: RoCEv2 decoded as it passes (fe_roce.h) ---- */

Test(roce, parse)
{
	uint8_t f[128], tcp[100];
	struct fe_roce_pkt p;
	uint32_t len = roce_frame(f, 0x11, 0xabcdef, 0x123456, 1, 0x60);
	static const uint8_t a[6] = {2, 0, 0, 0, 0, 1}, b[6] = {2, 0, 0, 0, 0, 2};

	cr_assert_eq(fe_roce_parse(f, len, &p), 0);
	cr_assert_eq(p.opcode, 0x11);
	cr_assert_eq(p.qpn, 0xabcdef);
	cr_assert_eq(p.psn, 0x123456);
	cr_assert_eq(p.syndrome, 0x60);
	cr_assert_eq(fe_roce_parse(f, 40, &p), -1, "too short");
	tcp_frame(tcp, sizeof(tcp), a, b, 0, 1);
	cr_assert_eq(fe_roce_parse(tcp, sizeof(tcp), &p), -1, "TCP is not RoCEv2");
	/* the emulated NIC's own CNP is a RoCEv2 CNP */
	fe_nic_ctl_frame(f, tcp, FE_NIC_CNP, 5, 0);
	cr_assert_eq(fe_roce_parse(f, FE_NIC_CTL_LEN, &p), 0);
	cr_assert_eq(p.opcode, 0x81);
}

Test(roce, gaps_resends_and_rewinds)
{
	struct fe_roce_qp q = {.used = 1};
	struct fe_roce_pkt p = {.opcode = 0x04};
	uint32_t seq[] = {0, 1, 3, 4, 5, 6, 3, 4, 5, 6, 7, 0xfffffe};

	for (unsigned i = 0; i < 11; i++) {
		p.psn = seq[i];
		fe_roce_track(&q, &p);
	}
	cr_assert_eq(q.pkts, 11);
	cr_assert_eq(q.gaps, 1, "2 never came");
	cr_assert_eq(q.missing, 1);
	cr_assert_eq(q.resent, 4, "3..6 again");
	cr_assert_eq(q.rewinds, 1, "one go-back-N episode");
	/* across the 24-bit wrap */
	q = (struct fe_roce_qp){.used = 1};
	p.psn = 0xfffffe;
	fe_roce_track(&q, &p);
	p.psn = 0xffffff;
	cr_assert_eq(fe_roce_track(&q, &p), FE_ROCE_IN_ORDER);
	p.psn = 1;
	cr_assert_eq(fe_roce_track(&q, &p), FE_ROCE_GAP, "0 is missing after the wrap");
	cr_assert_eq(q.missing, 1);
}

Test(roce, naks_and_cnps)
{
	struct fe_roce_qp q = {.used = 1};
	struct fe_roce_pkt p = {.opcode = 0x11, .syndrome = 0x60};

	cr_assert_eq(fe_roce_track(&q, &p), FE_ROCE_NAK);
	p.syndrome = 0x2e;
	cr_assert_eq(fe_roce_track(&q, &p), FE_ROCE_RNR_NAK);
	p.syndrome = 0x1f;
	cr_assert_eq(fe_roce_track(&q, &p), FE_ROCE_OTHER, "an ACK");
	p.opcode = 0x81;
	cr_assert_eq(fe_roce_track(&q, &p), FE_ROCE_CNP);
	cr_assert_eq(q.naks, 1);
	cr_assert_eq(q.rnr_naks, 1);
	cr_assert_eq(q.cnps, 1);
	cr_assert_eq(q.started, 0, "none of them has a PSN of the sequence");
}

/*
 * The trimming incast of the uec tests: host 0 sends host 1 30 frames of 1,000 bytes at
 * once, into host 1's down link of 100 Mbit/s that holds 4 (1 us links), on an engine
 * with NICs conf; passes every 10 us for 20 ms (well inside the NICs' 67 ms timeout).
 * Returns the engine (to free with done()), the frames host 1 got in *got (their IP ids
 * in ids, if not NULL) and its down link's counters before the frames in *before.
 * uec_incast_of(): frames of ethertype type (0x0800: TCP over IPv4, a flow's).
 */
static struct fe_dp *
uec_incast_of(const struct fe_nic_params *nicp, uint16_t type, unsigned *got, uint16_t *ids,
	      struct fe_link_stats *before)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {
		.mac_age_ns = 300000000000ULL, .lanes = 1, .seed = 1, .nic = *nicp};
	uint64_t t = 10000;
	char err[256];
	struct fe_dp *dp;
	uint8_t f[1000];

	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	down[1].link.rate_bps = 100000000;
	down[1].link.limit_pkts = 4;
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	learn_by(dp, 50000); /* 100 Mbit/s: a frame takes 7 us */
	*before = dp->ports[1].down.l.st;
	for (int i = 1; i <= 30; i++) {
		tcp_frame(f, sizeof(f), MAC[0], MAC[1], 0, (uint16_t)i);
		f[12] = (uint8_t)(type >> 8);
		f[13] = (uint8_t)type;
		inject_raw(0, f, sizeof(f));
	}
	*got = 0;
	for (int k = 0; k < 2000; k++) {
		poll2(dp, t += 10000);
		*got += collect(1, ids ? ids + *got : NULL, NULL);
		cr_assert_leq(*got, 30);
	}
	collect(0, NULL, NULL);
	return dp;
}

static struct fe_dp *
uec_incast(const struct fe_nic_params *nicp, unsigned *got, uint16_t *ids,
	   struct fe_link_stats *before)
{
	return uec_incast_of(nicp, 0x0800, got, ids, before);
}

/*
 * Trimming is for the uec NICs' flows: the same incast of IPv6 frames, which the NIC lets
 * pass as they are (not a flow: nobody keeps a copy to send again), is tail-dropped where
 * it has no room, nothing trimmed, nothing NAKed.
 */
Test(nic, uec_trims_only_its_flows)
{
	unsigned avail = rte_mempool_avail_count(pool), got;
	struct fe_nic_params p = nic(FE_NIC_UEC, FE_NIC_SELECTIVE);
	struct fe_link_stats before;
	struct fe_dp *dp = uec_incast_of(&p, 0x86dd, &got, NULL, &before);
	const struct fe_link_stats *d1 = &dp->ports[1].down.l.st;
	const uint64_t tail =
		d1->drop_pkts[FE_LINK_DROP_TAIL] - before.drop_pkts[FE_LINK_DROP_TAIL];

	cr_assert_gt(tail, 10, "tail drops: %llu", (unsigned long long)tail);
	cr_assert_eq(d1->drop_pkts[FE_LINK_DROP_TRIM], 0, "nothing trimmed");
	cr_assert_eq(dp->ports[1].st.nic_trims_recv + dp->ports[1].st.nic_trim_naks_sent, 0);
	cr_assert_eq(got + tail, 30, "host 1 got %u, %llu dropped", got, (unsigned long long)tail);
	done(dp, avail);
}

/*
 * Trimming (lossy, model uec): host 0 sends host 1 30 frames at once; host 1's down link
 * (100 Mbit/s) holds 4. Every frame it has no room for is trimmed: its header goes on,
 * host 1's NIC NAKs that frame alone, and host 0's NIC sends it again from its copy. All
 * 30 reach host 1, in order, with no timeout and no drop but the trimmed payloads. The
 * same with model roce drops them (tail) and trims nothing: the NIC must wait for its
 * timeout.
 */
Test(nic, uec_trimmed_frames_are_resent_at_once)
{
	/* uec with its NSCC, uec with no congestion control, roce */
	static const uint32_t models[] = {FE_NIC_UEC, FE_NIC_UEC, FE_NIC_ROCE};
	uint64_t trims[3] = {0};

	for (unsigned k = 0; k < 3; k++) {
		const uint32_t model = models[k];
		unsigned avail = rte_mempool_avail_count(pool), got;
		struct fe_nic_params p = nic(model, FE_NIC_SELECTIVE);
		const struct fe_link_stats *d1;
		const struct fe_port_stats *s0, *s1;
		struct fe_link_stats before;
		uint16_t ids[64];
		struct fe_dp *dp;

		if (k == 1) {
			p.cc = FE_CC_OFF;
			p.cc_set = 1;
		}
		dp = uec_incast(&p, &got, ids, &before);
		d1 = &dp->ports[1].down.l.st;
		s0 = &dp->ports[0].st;
		s1 = &dp->ports[1].st;
		if (model == FE_NIC_UEC) {
			cr_assert_eq(got, 30, "uec: %u of 30 reached host 1", got);
			for (unsigned i = 0; i < got; i++)
				cr_assert_eq(ids[i], i + 1, "in order: frame %u is %u", i, ids[i]);
			cr_assert_gt(d1->drop_pkts[FE_LINK_DROP_TRIM], 10);
			cr_assert_eq(d1->drop_pkts[FE_LINK_DROP_TAIL], 0);
			/* what the link trimmed: data frames (their NAKs) and probes (cut) */
			cr_assert_eq(s1->nic_trims_recv + s1->nic_probes_cut,
				     d1->drop_pkts[FE_LINK_DROP_TRIM]);
			cr_assert_gt(s1->nic_trim_naks_sent, 0);
			cr_assert_eq(s0->nic_trim_naks_recv, s1->nic_trim_naks_sent);
			cr_assert_geq(s0->nic_resent_pkts, s1->nic_trim_naks_sent);
			cr_assert_eq(s0->nic_timeouts, 0);
			/* the link's books: in = out + drops (the trimmed payloads) */
			cr_assert_eq(d1->in_pkts, d1->out_pkts + d1->drop_pkts[FE_LINK_DROP_TRIM]);
			trims[k] = d1->drop_pkts[FE_LINK_DROP_TRIM];
		} else {
			cr_assert_lt(got, 30, "roce: the tail-dropped frames wait for the timeout");
			cr_assert_gt(d1->drop_pkts[FE_LINK_DROP_TAIL], 10);
			cr_assert_eq(d1->drop_pkts[FE_LINK_DROP_TRIM], 0);
			cr_assert_eq(s1->nic_trims_recv, 0);
		}
		done(dp, avail);
	}
	/* NSCC takes each NACKed frame off its window: fewer frames sent again into the
	 * full queue than without congestion control, which sends them again at once */
	cr_assert_lt(trims[0], trims[1], "trims: nscc %llu, none %llu",
		     (unsigned long long)trims[0], (unsigned long long)trims[1]);
}

/*
 * The receiver's ACK policy (ack-bytes, uet-htsim's sink): host 0 sends host 1 64 frames
 * of 1,000 bytes, which reach host 1 one at a time (its down link at 1 Gbit/s: 8 us a
 * frame, passes every microsecond); model uec, no congestion control (so no window asks
 * for an ACK). Returns host 1's ACKs; every frame delivered, no timeout.
 */
static uint32_t acks_window; /* the NIC's window for uec_acks() (0: the default) */

static uint64_t
uec_acks(uint64_t ack_bytes, int marks, unsigned *kept)
{
	unsigned avail = rte_mempool_avail_count(pool), got = 0;
	struct fe_nic_params p = nic(FE_NIC_UEC, FE_NIC_SELECTIVE);
	struct fe_dp *dp;
	uint64_t acks;
	uint8_t f[1000];

	p.cc = FE_CC_OFF;
	p.cc_set = 1;
	p.ack_bytes = ack_bytes;
	if (acks_window)
		p.window = acks_window;
	down1_bps = 1000000000;
	down1_marks = marks;
	dp = engine_x(&p, 0, 0, 0);
	down1_bps = 0;
	down1_marks = 0;
	learn(dp);
	for (int i = 1; i <= 64; i++) {
		tcp_frame(f, sizeof(f), MAC[0], MAC[1], 0, (uint16_t)i);
		inject_raw(0, f, sizeof(f));
	}
	for (uint64_t t = 10000; t <= 2000000; t += 1000) {
		poll2(dp, t);
		got += collect(1, NULL, NULL);
	}
	collect(0, NULL, NULL);
	cr_assert_eq(got, 64, "ack-bytes %lu: %u of 64 delivered", (unsigned long)ack_bytes, got);
	cr_assert_eq(dp->ports[0].st.nic_timeouts, 0);
	for (unsigned k = 0; k < FE_NIC_FLOWS; k++)
		if (dp->ports[0].nic->flows[k].used) {
			cr_assert_eq(dp->ports[0].nic->flows[k].una, 64, "all acknowledged: %u",
				     dp->ports[0].nic->flows[k].una);
			*kept = dp->ports[0].nic->flows[k].reps.count;
		}
	acks = dp->ports[1].st.nic_acks_sent;
	done(dp, avail);
	return acks;
}

/*
 * Without ack-bytes a frame that comes alone is acknowledged alone (64 ACKs). With 16 KiB:
 * PSN 0 at once, then every 17th frame (17,000 bytes since the last ACK), and the 64th
 * at once (its sender's last queued: AR): 5. Every frame marked CE: each at once again.
 * REPS: each ACK gives back the entropy of the frame that asked for it, as the simulator's
 * (its path_id): the sender kept 5 entropies from 5 ACKs (8, every frame's, before), and
 * without ack-bytes the 8 most recent of its 64 frames'.
 */
Test(nic, uec_acks_every_ack_bytes)
{
	unsigned kept;

	cr_assert_eq(uec_acks(0, 0, &kept), 64);
	cr_assert_eq(kept, FE_REPS_SIZE);
	cr_assert_eq(uec_acks(16384, 0, &kept), 5);
	cr_assert_eq(kept, 5, "one entropy an ACK: %u kept", kept);
	cr_assert_eq(uec_acks(16384, 1, &kept), 64, "CE: each at once");
}

/*
 * A window of 8 frames holds 8,000 bytes, less than 16 KiB: the frame that fills it asks
 * for its ACK (AR), else no ACK came until the NIC's timeout (found in review: every
 * flow of a small window waited 67 ms a window).
 */
Test(nic, uec_acks_a_full_window_asks)
{
	unsigned kept;
	uint64_t acks;

	acks_window = 8;
	acks = uec_acks(16384, 0, &kept);
	acks_window = 0;
	cr_assert_geq(acks, 64 / 8, "an ACK a window at least: %lu", (unsigned long)acks);
}

/*
 * NSCC's window, ack-bytes 16 KiB: the frame after which the window has no room for the
 * next asks for its ACK. The test was for room for NSCC's mss (1,454 bytes), and a host's
 * frame is 1,514: with the window 1,480 bytes past six frames in flight (9,084 bytes,
 * below 16 KiB), the sixth asked nothing, the seventh could not go, the receiver waited
 * for 16 KiB and every flow so placed waited for the NIC's timeout (67 ms; found under CPU
 * contention in tests/e2e/uec.sh's acks case, 1 to 4 timeouts a run).
 */
Test(nic, uec_acks_a_full_nscc_window_asks)
{
	unsigned avail = rte_mempool_avail_count(pool), got = 0;
	struct fe_nic_params p = nic(FE_NIC_UEC, FE_NIC_SELECTIVE);
	struct fe_nic_flow *fl = NULL;
	struct fe_dp *dp;
	uint8_t f[1514];
	uint64_t t;

	p.cc = FE_CC_NSCC;
	p.cc_set = 1;
	p.ack_bytes = 16384;
	down1_bps = 1000000000;
	dp = engine_x(&p, 0, 0, 0);
	down1_bps = 0;
	learn(dp);
	tcp_frame(f, sizeof(f), MAC[0], MAC[1], 0, 1);
	inject_raw(0, f, sizeof(f));
	for (t = 10000; t <= 200000; t += 1000) {
		poll2(dp, t);
		got += collect(1, NULL, NULL);
	}
	for (unsigned k = 0; k < FE_NIC_FLOWS; k++)
		if (dp->ports[0].nic->flows[k].used)
			fl = &dp->ports[0].nic->flows[k];
	cr_assert_not_null(fl);
	cr_assert_eq(fl->una, 1, "the first frame acknowledged");
	cr_assert_eq(fl->probe_at, UINT64_MAX, "nothing unacknowledged: no probe timer");
	fl->nscc.cwnd = 6 * 1514 + 1480; /* room for an mss past six frames, not a frame */
	for (int i = 2; i <= 40; i++) {
		tcp_frame(f, sizeof(f), MAC[0], MAC[1], 0, (uint16_t)i);
		inject_raw(0, f, sizeof(f));
	}
	poll2(dp, t += 1000);
	got += collect(1, NULL, NULL);
	/* SLEEK's timer, armed by the frames sent after the flow was idle: an ACK arms it,
	 * and with ack-bytes none may come (it stayed unarmed, found with the window's AR
	 * under contention: a NAK that cut the window left frames no ACK was asked for) */
	cr_assert_neq(fl->una, fl->next_psn);
	cr_assert_neq(fl->probe_at, UINT64_MAX, "frames sent after an idle flow: a probe timer");
	for (; t <= 100000000; t += 1000) { /* 100 ms: past the NIC's timeout */
		poll2(dp, t);
		got += collect(1, NULL, NULL);
		if (fl->nscc.cwnd > 6 * 1514 + 1480) /* kept there: ACKs would grow it */
			fl->nscc.cwnd = 6 * 1514 + 1480;
	}
	collect(0, NULL, NULL);
	cr_assert_eq(got, 40, "%u of 40 delivered", got);
	cr_assert_eq(dp->ports[0].st.nic_timeouts, 0, "the sender waited for its timeout %lu times",
		     (unsigned long)dp->ports[0].st.nic_timeouts);
	done(dp, avail);
}

/*
 * The trim size is the NIC profile's (trim, 64 bytes by default): host 1's down link
 * carries each trimmed header at that size, in its books (out_bytes: the data frames'
 * 1,000 bytes each, and the headers'), the rest of the frame dropped (drop_bytes).
 */
Test(nic, uec_trim_size)
{
	static const uint32_t sizes[] = {64, 128, 256};

	for (unsigned k = 0; k < 3; k++) {
		unsigned avail = rte_mempool_avail_count(pool), got;
		struct fe_nic_params p = nic(FE_NIC_UEC, FE_NIC_SELECTIVE);
		const struct fe_link_stats *d1;
		struct fe_link_stats b;
		uint64_t trims, hdr, probes, cut;
		struct fe_dp *dp;

		if (k > 0) /* the default is 64 */
			p.trim_bytes = sizes[k];
		p.trim_dscp = 46;
		dp = uec_incast(&p, &got, NULL, &b);
		d1 = &dp->ports[1].down.l.st;
		cr_assert_eq(got, 30, "trim %u: %u of 30 reached host 1", sizes[k], got);
		trims = d1->drop_pkts[FE_LINK_DROP_TRIM];
		cr_assert_gt(trims, 0);
		probes = dp->ports[1].st.nic_probes_recv; /* NSCC's loss probes */
		/* those the full queue trimmed: whole (a probe is a header's size already),
		 * among the link's trims, not answered */
		cut = dp->ports[1].st.nic_probes_cut;
		cr_log_info("trim %u: %llu trimmed, %llu of them probes; %llu probes", sizes[k],
			    (unsigned long long)trims, (unsigned long long)cut,
			    (unsigned long long)probes);
		cr_assert_eq(d1->out_pkts - b.out_pkts, 30 + trims + probes - cut,
			     "the data frames once, the headers, the probes");
		hdr = d1->out_bytes - b.out_bytes - 30 * 1000 - probes * FE_NIC_CTL_LEN;
		cr_assert_eq(hdr, (trims - cut) * sizes[k],
			     "trim %u: %llu trimmed headers took %llu bytes", sizes[k],
			     (unsigned long long)(trims - cut), (unsigned long long)hdr);
		cr_assert_eq(d1->drop_bytes[FE_LINK_DROP_TRIM],
			     (trims - cut) * 1000 + cut * FE_NIC_CTL_LEN);
		done(dp, avail);
	}
}

/*
 * SLEEK's probe waits in the data's queue; one that meets it full is trimmed as the data
 * is, cut, and not answered (nic_probes_cut). The same incast with NSCC's round trip set
 * to 4 us (its target 3 us): the ACKs come a frame apart (80 us at 100 Mbit/s), the probe
 * timer fires between them, and the probes meet host 1's 4-frame queue full.
 */
Test(nic, uec_a_probe_into_a_full_queue_is_cut)
{
	unsigned avail = rte_mempool_avail_count(pool), got;
	struct fe_nic_params p = nic(FE_NIC_UEC, FE_NIC_SELECTIVE);
	const struct fe_link_stats *d1;
	struct fe_link_stats b;
	struct fe_dp *dp;
	uint64_t probes, cut, trims;

	p.rtt_ns = 4000;
	dp = uec_incast(&p, &got, NULL, &b);
	d1 = &dp->ports[1].down.l.st;
	probes = dp->ports[1].st.nic_probes_recv;
	cut = dp->ports[1].st.nic_probes_cut;
	trims = d1->drop_pkts[FE_LINK_DROP_TRIM] - b.drop_pkts[FE_LINK_DROP_TRIM];
	cr_log_info("%llu probes sent, %llu came, %llu of them cut; %llu trims",
		    (unsigned long long)dp->ports[0].st.nic_probes_sent, (unsigned long long)probes,
		    (unsigned long long)cut, (unsigned long long)trims);
	cr_assert_eq(got, 30, "%u of 30 reached host 1", got);
	cr_assert_gt(cut, 0, "a probe met the full queue");
	cr_assert_lt(cut, probes, "and others did not");
	cr_assert_eq(dp->ports[1].st.nic_trims_recv + cut, trims, "the cut probes among the trims");
	cr_assert_eq(dp->ports[0].st.nic_probes_sent, probes, "every probe came, whole or cut");
	done(dp, avail);
}

/*
 * NSCC's round-trip samples are of frames that just reached the receiver, as uet-htsim
 * samples the frame that asked for the ACK (UecSrc::processAck: acked_psn's send time):
 * frame 3 of 12 is lost, 4 to 12 are acknowledged selectively as they come (past SLEEK's
 * threshold a NAK asks for 3), and the resend of 3 fills the gap; the cumulative ACK
 * that follows covers 12, which came long before. Taken as 12's round trip, that ACK
 * counted the gap's repair as queueing: a flow that lost a frame measured a delay the
 * others did not. On 1 us links of no rate every frame's round trip is the network's RTT
 * (4 us): NSCC's average delay stays 0.
 */
Test(nic, uec_rtt_samples_are_of_frames_just_come)
{
	unsigned avail = rte_mempool_avail_count(pool), n = 0;
	struct fe_nic_params p = nic(FE_NIC_UEC, FE_NIC_SELECTIVE);
	const struct fe_nic_flow *fl = NULL;
	uint16_t ids[16];
	struct fe_dp *dp;

	p.rtt_ns = 4000;
	dp = engine_x(&p, 3, 1, 0);
	learn(dp);
	send_flow(12, 2);
	for (uint64_t t = 10000; t <= 200000 && n < 12; t += 1000) {
		poll2(dp, t);
		n += collect(1, ids + n, NULL);
	}
	cr_assert_eq(n, 12, "%u of 12", n);
	poll2(dp, 300000);
	cr_assert_eq(dp->ports[0].st.nic_resent_pkts, 1, "3, once");
	cr_assert_eq(dp->ports[0].st.nic_timeouts, 0);
	for (unsigned f = 0; f < FE_NIC_FLOWS; f++)
		if (dp->ports[0].nic->flows[f].next_psn == 12)
			fl = &dp->ports[0].nic->flows[f];
	cr_assert_not_null(fl);
	cr_assert_eq(fl->nscc.base_rtt, 4000, "every sample the network's RTT: %llu",
		     (unsigned long long)fl->nscc.base_rtt);
	cr_assert(fl->nscc.avg_delay == 0, "NSCC measured %.0f ns of delay", fl->nscc.avg_delay);
	done(dp, avail);
}

/*
 * SLEEK's loss probes (uet-htsim: UecSrc::processAck, sendProbe, runSleek): frames 11 and
 * 12, the last of a flow of 12, are lost; nothing follows them to open a gap, so no NAK.
 * Under uec with NSCC (the network's RTT 4 us, as the path's: 1 us links, no rate) the
 * ACK of 1..10 arms the probe timer (a base RTT and the target delay: 7 us), the probe's
 * answer comes back a round trip later with no delay, and the flow sends 11 and 12 again:
 * all 12 in order some 17 us after the first was sent, no timeout. Without probes (uec
 * without congestion control, roce, uec with NSCC and sleek: off) the same tail waits for
 * the NIC's timeout (67 ms).
 */
Test(nic, uec_probe_recovers_a_lost_tail)
{
	static const uint32_t models[] = {FE_NIC_UEC, FE_NIC_UEC, FE_NIC_ROCE, FE_NIC_UEC};

	for (unsigned k = 0; k < 4; k++) {
		unsigned avail = rte_mempool_avail_count(pool), n = 0;
		struct fe_nic_params p = nic(models[k], FE_NIC_SELECTIVE);
		const struct fe_port_stats *s0, *s1;
		uint64_t t = 10000, end = 10000 + 67108864 + 1000000, at = 0;
		uint16_t ids[16];
		struct fe_dp *dp;

		if (k == 1) {
			p.cc = FE_CC_OFF;
			p.cc_set = 1;
		}
		p.sleek_off = k == 3;
		p.rtt_ns = 4000;
		dp = engine_x(&p, 11, 2, 0);
		cr_assert_eq(dp->ports[0].nic->cc_mode, k == 0 || k == 3 ? FE_CC_NSCC
							: k == 1	 ? FE_CC_OFF
									 : FE_CC_DCQCN);
		s0 = &dp->ports[0].st;
		s1 = &dp->ports[1].st;
		learn(dp);
		send_flow(12, 2);
		for (; t <= end && n < 12; t += t < 1000000 ? 1000 : 100000) {
			poll2(dp, t);
			n += collect(1, ids + n, NULL);
			if (n == 12)
				at = t;
		}
		cr_assert_eq(n, 12, "k %u: %u of 12", k, n);
		for (unsigned i = 0; i < n; i++)
			cr_assert_eq(ids[i], i + 1, "in order: frame %u is %u", i, ids[i]);
		cr_assert_eq(s1->nic_naks_sent, 0, "nothing after the tail: no gap, no NAK");
		cr_assert_eq(s0->nic_resent_pkts, 2, "11 and 12, once");
		if (k == 0) {
			cr_log_info(
				"uec, nscc: the lost tail recovered %llu ns after the first send, "
				"%llu probes sent",
				(unsigned long long)(at - 10000),
				(unsigned long long)s0->nic_probes_sent);
			cr_assert_leq(at - 10000, 5 * 4000, "recovered at %llu ns: a few RTTs",
				      (unsigned long long)(at - 10000));
			cr_assert_eq(s0->nic_timeouts, 0);
			cr_assert_eq(s0->nic_probes_sent, 1);
			cr_assert_eq(s1->nic_probes_recv, 1, "answered at the receiver");
			cr_assert_eq(s0->nic_probe_recoveries, 1);
		} else {
			cr_assert_geq(at - 10000, 67108864, "k %u: the timeout's, at %llu ns", k,
				      (unsigned long long)(at - 10000));
			cr_assert_eq(s0->nic_timeouts, 1);
			cr_assert_eq(s0->nic_probes_sent + s1->nic_probes_recv, 0, "no probes");
			cr_assert_eq(s0->nic_probe_recoveries, 0);
		}
		poll2(dp, t + 100000);
		cr_assert_eq(s0->nic_copies, 0);
		cr_assert_eq(s0->nic_acks_recv, s1->nic_acks_sent, "the answer is an ACK too");
		done(dp, avail);
	}
}

/*
 * A probe answered while the path is still queued says nothing is lost: 40 frames at
 * once into host 1's down link of 100 Mbit/s (some 81 us a frame: 38 take 3.1 ms), the
 * last two lost on host 0's up link. NSCC's RTT is 20 us (its target delay 15 us).
 * Every ACK re-arms the probe timer (35 us) and the probes go (37 while the queue
 * drains), but each waits behind the queue: the answers come after frame 38, their
 * delay far above the target, and nothing is sent again. Once they are in, the next
 * probe finds the path empty: 39 and 40 are sent again, under 0.5 ms after frame 38
 * (the 37 probes' own time on the link, 250 us, and the timer), with no timeout.
 */
Test(nic, uec_probe_through_a_queue_resends_nothing)
{
	unsigned avail = rte_mempool_avail_count(pool), n = 0;
	struct fe_nic_params p = nic(FE_NIC_UEC, FE_NIC_SELECTIVE);
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .lanes = 1, .seed = 1};
	const struct fe_port_stats *s0, *s1;
	uint64_t t = 50000, at38 = 0, at40 = 0, ans = 0, probes38 = 0, recv_ans = 0;
	unsigned first = 0; /* frames host 1 had when the first probe reached its NIC */
	uint16_t ids[48];
	char err[256];
	struct fe_dp *dp;

	p.rtt_ns = 20000;
	conf.nic = p;
	for (int i = 0; i < NP; i++)
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
	down[1].link.rate_bps = 100000000;
	snprintf(up[0].match, sizeof(up[0].match), "tcp");
	up[0].drop_first = 39;
	up[0].drop_count = 2;
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	s0 = &dp->ports[0].st;
	s1 = &dp->ports[1].st;
	learn_by(dp, 50000);
	send_flow(40, 2);
	for (; t <= 10000000 && n < 40; t += 1000) {
		poll2(dp, t);
		n += collect(1, ids + n, NULL);
		if (first == 0 && s1->nic_probes_recv > 0)
			first = n ? n : 1;
		if (n >= 38 && at38 == 0) { /* the queue drained: the probes sent meanwhile */
			at38 = t;
			probes38 = s0->nic_probes_sent;
			cr_assert_eq(s0->nic_resent_pkts, 0,
				     "nothing sent again through the queue");
		}
		if (at38 && ans == 0 && s1->nic_probes_recv >= probes38)
			ans = t;	      /* the last of them answered */
		if (ans && t == ans + 3000) { /* and its answer heard: the queue's delay */
			recv_ans = s0->nic_acks_recv;
			cr_assert_eq(s0->nic_resent_pkts, 0, "the queued probes' answers");
			cr_assert_eq(s0->nic_probe_recoveries, 0);
		}
		if (n == 40)
			at40 = t;
	}
	cr_log_info("queued: frame 38 at %llu ns, %llu probes sent by then, the first reaching "
		    "host 1 after %u frames, all answered by %llu ns; 39 and 40 at %llu ns, %llu "
		    "probes in all",
		    (unsigned long long)(at38 - 50000), (unsigned long long)probes38, first,
		    (unsigned long long)(ans - 50000), (unsigned long long)(at40 - 50000),
		    (unsigned long long)s0->nic_probes_sent);
	cr_assert_eq(n, 40, "%u of 40", n);
	for (unsigned i = 0; i < n; i++)
		cr_assert_eq(ids[i], i + 1, "in order: frame %u is %u", i, ids[i]);
	cr_assert_geq(at38 - 50000, 3000000, "38 frames queued: %llu ns",
		      (unsigned long long)(at38 - 50000));
	cr_assert_geq(probes38, 10, "probes went while the queue drained: %llu",
		      (unsigned long long)probes38);
	/* a probe goes the data's way, in its queue (uet-htsim's DATA_PROBE is a data packet,
	 * low priority at every switch): the first, sent with the 38 frames queued, reaches
	 * host 1 behind them, not ahead */
	cr_assert_geq(first, 37, "the first probe reached host 1 after %u frames", first);
	cr_assert_neq(recv_ans, 0, "their answers checked");
	cr_assert_leq(at40 - at38, 500000, "the tail %llu ns after the queue",
		      (unsigned long long)(at40 - at38));
	cr_assert_eq(s0->nic_resent_pkts, 2, "39 and 40, once");
	cr_assert_eq(s0->nic_probe_recoveries, 1);
	cr_assert_eq(s0->nic_timeouts, 0);
	done(dp, avail);
}

/*
 * The receiving host's PCIe (model uec, fe_pcie.h): host 0 sends host 1 60 frames of
 * 1,000 bytes at once over 1 Gbit/s links; host 1's PCIe moves 100 Mbit/s (80 us a frame)
 * and holds 16 KiB. All 60 reach host 1, in order; what it returns: the ticks from the
 * first sent to the last received, and the stats.
 */
static uint64_t
pcie_run(uint32_t cc, uint64_t pcie_bps, struct fe_port_stats *s0, struct fe_port_stats *s1)
{
	struct fe_nic_params p = nic(FE_NIC_UEC, FE_NIC_SELECTIVE);
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .lanes = 1, .seed = 1};
	unsigned avail = rte_mempool_avail_count(pool);
	uint64_t t = 50000, last = 0, start, nx;
	uint16_t ids[512];
	unsigned got = 0;
	char err[256];
	struct fe_dp *dp;
	uint8_t f[1000];

	p.cc = cc;
	p.cc_set = 1;
	p.pcie_bps = pcie_bps;
	p.pcie_backlog = pcie_bps ? 16384 : 0;
	conf.nic = p;
	for (int i = 0; i < NP; i++) {
		up[i].link.delay_ns = down[i].link.delay_ns = 1000;
		up[i].link.rate_bps = down[i].link.rate_bps = 1000000000;
	}
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	learn_by(dp, t);
	start = t;
	for (int i = 1; i <= 60; i++) {
		tcp_frame(f, sizeof(f), MAC[0], MAC[1], 0, (uint16_t)i);
		inject_raw(0, f, sizeof(f));
	}
	/* polled as a loop that sleeps does: at the engine's next event, never between (a
	 * frame waiting for its PCIe tick must wake it), for 20 ms */
	for (int k = 0; k < 1000000; k++) {
		unsigned n;

		poll2(dp, t);
		n = collect(1, ids + got, NULL);
		if (n)
			last = t;
		got += n;
		cr_assert_leq(got, 60, "pcie %llu, cc %u: %u frames", (unsigned long long)pcie_bps,
			      cc, got);
		collect(0, NULL, NULL);
		nx = fe_dp_next_event(dp, t);
		if (nx == UINT64_MAX || nx > start + 20000000)
			break;
		t = nx > t ? nx : t + 1;
	}
	cr_assert_eq(got, 60, "pcie %llu, cc %u: %u of 60", (unsigned long long)pcie_bps, cc, got);
	for (unsigned i = 0; i < got; i++)
		cr_assert_eq(ids[i], i + 1, "in order: frame %u is %u", i, ids[i]);
	/* every frame down a port's link accounted for (docs/counters.md), trims among them */
	for (int i = 0; i < NP; i++) {
		const struct fe_port_stats *st = &dp->ports[i].st;

		cr_assert_eq(dp->ports[i].down.l.st.out_pkts,
			     st->tx_pkts + st->nic_oos_discards + st->nic_dup_discards +
				     st->nic_stray + st->nic_edge_drops + st->nic_cnp_recv +
				     st->nic_acks_recv + st->nic_naks_recv + st->nic_trims_recv +
				     st->nic_trim_naks_recv + st->nic_probes_recv,
			     "port %d's down link", i);
	}
	*s0 = dp->ports[0].st;
	*s1 = dp->ports[1].st;
	cr_assert_eq(dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_TAIL], 0);
	done(dp, avail);
	return last - start;
}

/*
 * Without a PCIe model the 60 frames reach host 1 at the links' rate (8 us each); at
 * 100 Mbit/s they cross at 80 us each, in order. Its 16 KiB fill: with no congestion
 * control the NIC trims what does not fit (nic_pcie_trims, among nic_trims_recv), and
 * their NAKs bring them again at once, no timeout. Under RCCC the backlog cuts the pull
 * rate (the simulator's quadratic): the grants slow to what the PCIe moves, and fewer
 * frames are trimmed.
 */
Test(nic, uec_pcie_slower_than_the_link)
{
	struct fe_port_stats s0, s1, r0, r1, n0, n1;
	uint64_t plain, off, rccc;

	plain = pcie_run(FE_CC_OFF, 0, &n0, &n1);
	cr_assert_eq(n1.nic_pcie_trims, 0);
	cr_assert_eq(n1.nic_pcie_peak, 0, "no PCIe: nothing held");
	off = pcie_run(FE_CC_OFF, 100000000, &s0, &s1);
	cr_assert_gt(s1.nic_pcie_trims, 0, "its backlog filled");
	cr_assert_geq(s1.nic_trims_recv, s1.nic_pcie_trims);
	cr_assert_gt(s1.nic_trim_naks_sent, 0);
	cr_assert_leq(s1.nic_pcie_peak, 16384);
	cr_assert_geq(s1.nic_pcie_peak, 16384 - 1000, "full: %llu",
		      (unsigned long long)s1.nic_pcie_peak);
	cr_assert_eq(s0.nic_timeouts, 0);
	cr_assert_eq(s1.nic_pcie_min_permille, 0, "no RCCC: no pull rate");
	rccc = pcie_run(FE_CC_RCCC, 100000000, &r0, &r1);
	cr_assert_eq(r0.nic_timeouts, 0);
	cr_assert_gt(r1.nic_pcie_min_permille, 0);
	cr_assert_lt(r1.nic_pcie_min_permille, 1000, "the PCIe cut the pull rate");
	cr_assert_lt(r1.nic_pcie_trims, s1.nic_pcie_trims, "trims: rccc %llu, off %llu",
		     (unsigned long long)r1.nic_pcie_trims, (unsigned long long)s1.nic_pcie_trims);
	cr_log_info("60 frames: %llu us at the links' rate; with a 100 Mbit/s PCIe %llu us "
		    "(%llu trimmed) with no cc, %llu us (%llu trimmed, the pull rate down to "
		    "%llu per mille) with rccc",
		    (unsigned long long)plain / 1000, (unsigned long long)off / 1000,
		    (unsigned long long)s1.nic_pcie_trims, (unsigned long long)rccc / 1000,
		    (unsigned long long)r1.nic_pcie_trims,
		    (unsigned long long)r1.nic_pcie_min_permille);
	cr_assert_lt(plain, 1000000, "at the links' rate: %llu ns", (unsigned long long)plain);
	cr_assert_geq(off, 59 * 80000, "at the PCIe's: %llu ns", (unsigned long long)off);
	cr_assert_geq(rccc, 59 * 80000, "at the PCIe's: %llu ns", (unsigned long long)rccc);
}
