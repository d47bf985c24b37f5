/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding engine over in-memory net_ring ports with a fake clock: switch
 * learning and flooding, end-to-end timing to the tick, tail drop with exact counts,
 * and a drain that returns every mbuf. Needs EAL (--no-huge --no-shconf: no files).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "fe_dp.h"
#include "fe_graph.h"
#include "ring_ports.h"
#include "fe_adopt.h"
#include "fe_update.h"

#define NP 3
#define HZ 1000000000ULL /* fake TSC: 1 tick = 1 ns */

static struct rte_mempool *pool;
static struct rte_ring *rxr[NP], *txr[NP];
static uint16_t ports[NP];
static const uint8_t MAC[NP][6] = {
	{0x02, 0xfe, 0, 0, 0, 0xa}, {0x02, 0xfe, 0, 0, 0, 0xb}, {0x02, 0xfe, 0, 0, 0, 0xc}};
static const uint8_t BCAST[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static void
eal_up(void)
{
	pool = ring_eal_up("fe-test-engine");
	for (int i = 0; i < NP; i++)
		ports[i] = ring_port(i, pool, &rxr[i], &txr[i]);
}

static void
eal_down(void)
{
	ring_eal_down("fe-test-engine");
}

TestSuite(engine, .init = eal_up, .fini = eal_down);

static struct fe_dp *
engine_x(const struct fe_linkdef *up_all, const struct fe_linkdef *down_all, uint64_t shared)
{
	struct fe_linkdef up[NP], down[NP];
	struct fe_dp_conf conf = {
		.mac_age_ns = 300000000000ULL, .seed = 11, .switch_buffer = shared, .lanes = 1};
	char err[256];
	struct fe_dp *dp;

	for (int i = 0; i < NP; i++) {
		up[i] = *up_all;
		down[i] = *down_all;
	}
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	return dp;
}

static struct fe_dp *
engine(const struct fe_link_params *lp)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .lanes = 1};
	char err[128];
	struct fe_dp *dp;

	for (int i = 0; i < NP; i++)
		up[i].link = down[i].link = *lp;
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	return dp;
}

/* A frame with source src and destination dst arrives at port `port`. */
static void
inject_as(int port, const uint8_t *src, const uint8_t *dst, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t frame[1514] = {0};
	char *p;

	cr_assert_not_null(m);
	cr_assert_leq(len, sizeof(frame));
	memcpy(frame, dst, 6);
	memcpy(frame + 6, src, 6);
	frame[12] = 0x88;
	frame[13] = 0xb5;
	p = rte_pktmbuf_append(m, len);
	cr_assert_not_null(p, "no room for %u bytes", len);
	rte_memcpy(p, frame, len);
	cr_assert_eq(rte_ring_enqueue(rxr[port], m), 0);
}

/* A frame from MAC[src] to dst arrives at port `src`. */
static void
inject(int src, const uint8_t *dst, uint16_t len)
{
	inject_as(src, MAC[src], dst, len);
}

/* An IPv4 frame of 100 bytes from MAC[src] to dst, protocol proto (17 UDP, 6 TCP), TOS tos. */
static void
inject_ip_to(int src, const uint8_t *dst, uint8_t proto, uint8_t tos, uint16_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t f[100] = {0};
	char *p;

	cr_assert_not_null(m);
	memcpy(f, dst, 6);
	memcpy(f + 6, MAC[src], 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = tos;
	f[17] = 86;		     /* total length */
	f[18] = (uint8_t)(seq >> 8); /* IP id carries a sequence number */
	f[19] = (uint8_t)seq;
	f[22] = 64;
	f[23] = proto;
	p = rte_pktmbuf_append(m, sizeof(f));
	cr_assert_not_null(p);
	rte_memcpy(p, f, sizeof(f));
	cr_assert_eq(rte_ring_enqueue(rxr[src], m), 0);
}

/* The same, broadcast. */
static void
inject_ip(int src, uint8_t proto, uint8_t tos, uint16_t seq)
{
	inject_ip_to(src, BCAST, proto, tos, seq);
}

/* Take the frames sent out of port i into out[] (the caller frees them). */
static unsigned
take(int i, struct rte_mbuf **out, unsigned max)
{
	return rte_ring_dequeue_burst(txr[i], (void **)out, max, NULL);
}

/* Frames sent out of port i since the last call (freed). */
static unsigned
sent(int i)
{
	return ring_drain(txr[i]);
}

Test(engine, learning_and_flooding)
{
	struct fe_link_params lp = {0};
	struct fe_dp *dp = engine(&lp);

	inject(0, MAC[1], 100); /* B unknown: flooded to ports 1 and 2 */
	fe_dp_poll(dp, 10);
	cr_assert_eq(sent(0), 0);
	cr_assert_eq(sent(1), 1);
	cr_assert_eq(sent(2), 1);
	cr_assert_eq(dp->sw.flooded, 1);

	inject(1, MAC[0], 100); /* A was learned on port 0: unicast */
	fe_dp_poll(dp, 20);
	cr_assert_eq(sent(0), 1);
	cr_assert_eq(sent(2), 0);
	cr_assert_eq(dp->sw.unicast, 1);

	inject(0, MAC[1], 100); /* now B is known too */
	fe_dp_poll(dp, 30);
	cr_assert_eq(sent(1), 1);
	cr_assert_eq(sent(2), 0);

	inject(2, BCAST, 60); /* broadcast: everyone but the sender */
	fe_dp_poll(dp, 40);
	cr_assert_eq(sent(0), 1);
	cr_assert_eq(sent(1), 1);
	cr_assert_eq(sent(2), 0);

	inject(1, MAC[1], 100); /* destination is on the ingress port: filtered */
	fe_dp_poll(dp, 50);
	cr_assert_eq(sent(0) + sent(1) + sent(2), 0);
	cr_assert_eq(dp->sw.filtered, 1);
	cr_assert_eq(dp->mac->learned, 3);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size, "every mbuf back in the pool");
}

Test(engine, timing_to_the_tick)
{
	/* 1 Gbit/s, 10 us: a 60-byte frame takes 672 ns per link plus 10000 ns of wire */
	struct fe_link_params lp = {.rate_bps = 1000000000, .delay_ns = 10000};
	const uint64_t t0 = 1000, hop = 672 + 10000;
	struct fe_dp *dp = engine(&lp);

	inject(0, BCAST, 60);
	fe_dp_poll(dp, t0);	      /* read at t0, into link 0.up */
	fe_dp_poll(dp, t0 + hop - 1); /* not yet at the switch */
	cr_assert_eq(dp->sw.flooded, 0);
	fe_dp_poll(dp, t0 + hop); /* at the switch, into 1.down and 2.down */
	cr_assert_eq(dp->sw.flooded, 1);
	fe_dp_poll(dp, t0 + 2 * hop - 1); /* one tick early */
	cr_assert_eq(sent(1) + sent(2), 0);
	/* polled late: the down links started at the switch arrival stamp, not at the poll */
	fe_dp_poll(dp, t0 + 2 * hop + 5000);
	cr_assert_eq(sent(1), 1);
	cr_assert_eq(sent(2), 1);
	cr_assert_eq(fe_dp_next_event(dp, t0 + 2 * hop + 5000), UINT64_MAX);
}

/*
 * Lateness: how long after the model's tick a frame really left its link. The up link
 * counts it when the switch takes the frame, the down link when the port takes it.
 */
Test(engine, lateness_is_the_poll_after_the_schedule)
{
	struct fe_link_params lp = {.rate_bps = 1000000000, .delay_ns = 10000};
	const uint64_t t0 = 1000, hop = 672 + 10000;
	struct fe_dp *dp = engine(&lp);

	inject(0, BCAST, 60);
	fe_dp_poll(dp, t0);
	fe_dp_poll(dp, t0 + hop + 300);	     /* the switch takes it 300 ns after its arrival */
	fe_dp_poll(dp, t0 + 2 * hop + 5000); /* the ports, 5 us after theirs */
	cr_assert_eq(sent(1) + sent(2), 2);
	cr_assert_eq(dp->ports[0].up.l.st.late_hist[fe_qhist_bucket(300)], 1);
	for (int q = 1; q <= 2; q++) {
		cr_assert_eq(dp->ports[q].down.l.st.late_hist[fe_qhist_bucket(5000)], 1,
			     "%d.down: 5 us late", q);
		for (unsigned b = 0; b < FE_QHIST_BUCKETS; b++)
			cr_assert_eq(dp->ports[q].down.l.st.late_hist[b],
				     b == fe_qhist_bucket(5000), "%d.down bucket %u", q, b);
	}
}

/* A port that does not take a frame (its ring is full) makes it late by the wait. */
Test(engine, lateness_counts_a_busy_port)
{
	struct fe_link_params lp = {0};
	struct fe_dp *dp = engine(&lp);
	void *dummy[1023];
	unsigned n;

	inject(1, MAC[0], 100); /* learn B on port 1 */
	fe_dp_poll(dp, 10);
	sent(0), sent(2);
	for (n = 0; n < 1023; n++) /* port 2's TX ring full: nothing more goes out */
		dummy[n] = (void *)(uintptr_t)(n + 1);
	cr_assert_eq(rte_ring_enqueue_bulk(txr[2], dummy, 1023, NULL), 1023);
	inject(0, MAC[2], 100); /* C unknown: flooded to 1 and 2 */
	fe_dp_poll(dp, 100);
	cr_assert_eq(sent(1), 1);
	cr_assert_eq(dp->ports[1].down.l.st.late_hist[0], 1, "port 1 took it at once");
	cr_assert_geq(dp->ports[2].st.tx_busy, 1);
	cr_assert_eq(rte_ring_dequeue_bulk(txr[2], dummy, 1023, NULL), 1023);
	fe_dp_poll(dp, 100 + 40000); /* port 2 takes it 40 us later */
	cr_assert_eq(sent(2), 1);
	cr_assert_eq(dp->ports[2].down.l.st.late_hist[fe_qhist_bucket(40000)], 1);
	cr_assert_eq(dp->ports[0].up.l.st.late_hist[0] + dp->ports[1].up.l.st.late_hist[0], 2,
		     "ideal up links: never late");
	/* stopped while port 2 takes nothing: what waits for it is freed and counted */
	cr_assert_eq(rte_ring_enqueue_bulk(txr[2], dummy, 1023, NULL), 1023);
	inject(0, MAC[2], 100); /* flooded again: port 1 takes its copy */
	fe_dp_poll(dp, 100 + 50000);
	cr_assert_eq(sent(1), 1);
	cr_assert_eq(dp->ports[2].txq_n, 1);
	fe_dp_drain(dp);
	cr_assert_eq(dp->ports[2].st.tx_stopped, 1);
	cr_assert_eq(rte_ring_dequeue_bulk(txr[2], dummy, 1023, NULL), 1023);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size);
}

Test(engine, tail_drop_counts_and_drain)
{
	/* 1 Mbit/s, 8 packets of buffer on every link; 40 frames in one burst */
	struct fe_link_params lp = {.rate_bps = 1000000, .limit_pkts = 8};
	struct fe_dp *dp = engine(&lp);

	for (int i = 0; i < 40; i++)
		inject(0, BCAST, 1000);
	fe_dp_poll(dp, 0);
	fe_dp_poll(dp, 0);
	const struct fe_link_stats *s = &dp->ports[0].up.l.st;
	cr_assert_eq(dp->ports[0].st.rx_pkts, 40);
	cr_assert_eq(s->in_pkts, 40);
	cr_assert_eq(s->drop_pkts[FE_LINK_DROP_TAIL], 32);
	cr_assert_eq(s->q_pkts, 8);
	cr_assert_eq(fe_dp_held(dp), 8);
	fe_dp_drain(dp);
	cr_assert_eq(fe_dp_held(dp), 0);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size, "drain returned every mbuf");
}

Test(engine, filter_and_exact_drops)
{
	/* on 0.up: drop the 3rd and 4th UDP packets; TCP packets are not counted or touched */
	struct fe_linkdef up = {.drop_first = 3, .drop_count = 2, .match = "udp"}, down = {0};
	struct fe_dp *dp = engine_x(&up, &down, 0);
	struct rte_mbuf *out[32];
	unsigned n;

	for (uint16_t i = 1; i <= 6; i++) {
		inject_ip(0, 17, 0, i);	     /* UDP i */
		inject_ip(0, 6, 0, 100 + i); /* TCP */
	}
	fe_dp_poll(dp, 10);
	n = take(1, out, 32);
	cr_assert_eq(n, 10, "12 sent, 2 dropped: got %u", n);
	for (unsigned i = 0, udp = 0; i < n; i++) {
		uint8_t *f = rte_pktmbuf_mtod(out[i], uint8_t *);
		uint16_t seq = (uint16_t)(f[18] << 8 | f[19]);

		if (f[23] == 17) {
			udp++;
			cr_assert(seq != 3 && seq != 4, "UDP %u should have been dropped", seq);
		}
		rte_pktmbuf_free(out[i]);
	}
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_EXACT], 2);
	cr_assert_eq(dp->ports[0].up.x.filter_hits, 6);
	cr_assert_eq(sent(2), 10);
	cr_assert_eq(sent(0), 0);
	fe_dp_free(dp);
}

/*
 * A filter's verdict is kept in the packet for the next link with the same expression
 * (fe_filter.h). It must never outlive the bytes it was computed from: not across an
 * ECN mark, not in a recycled mbuf.
 */
Test(engine, filter_verdicts_follow_the_bytes)
{
	/* both links: "not CE". The up link marks every ECT packet it matches (K = 0); the
	 * down link drops what it matches. A marked packet no longer matches: delivered. */
	struct fe_linkdef up = {.match = "ip[1] & 3 != 3",
				.ecn = {.enabled = 1, .kmin = 0, .kmax = 0}},
			  down = {.match = "ip[1] & 3 != 3", .drop_first = 1, .drop_count = 1000};
	struct fe_dp *dp = engine_x(&up, &down, 0);
	struct rte_mbuf *out[8];
	char err[128];
	struct fe_filter *f = fe_filter_create("udp", err, sizeof(err));

	inject_ip(0, 17, 0x02, 1); /* ECT(0): matched and marked on the way up */
	inject_ip(0, 17, 0x00, 2); /* not ECT: matched, not marked, dropped on the way down */
	fe_dp_poll(dp, 10);
	cr_assert_eq(take(1, out, 8), 1);
	cr_assert_eq(rte_pktmbuf_mtod(out[0], uint8_t *)[15] & 3, 3, "the marked one got through");
	rte_pktmbuf_free(out[0]);
	cr_assert_eq(dp->ports[0].up.l.st.ecn_marked, 1);
	cr_assert_eq(dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_EXACT], 1);
	cr_assert_eq(sent(2), 1);
	fe_dp_free(dp);

	/* an mbuf that arrives with a verdict for "udp" left in it from an earlier life:
	 * a TCP packet must not match "udp" on the down link because of it */
	cr_assert_not_null(f, "%s", err);
	up = (struct fe_linkdef){0};
	down = (struct fe_linkdef){.match = "udp", .drop_first = 1, .drop_count = 1000};
	dp = engine_x(&up, &down, 0);
	inject_ip(0, 6, 0, 3);
	cr_assert_eq(rte_ring_count(rxr[0]), 1);
	{
		struct rte_mbuf *m;

		cr_assert_eq(rte_ring_dequeue(rxr[0], (void **)&m), 0);
		*RTE_MBUF_DYNFIELD(m, f->dynoff, uint64_t *) = f->key | 1; /* "matched udp" */
		cr_assert_eq(rte_ring_enqueue(rxr[0], m), 0);
	}
	inject_ip(0, 17, 0, 4); /* UDP: dropped, on the verdict its own bytes give */
	fe_dp_poll(dp, 10);
	cr_assert_eq(take(1, out, 8), 1, "the TCP packet is carried");
	cr_assert_eq(rte_pktmbuf_mtod(out[0], uint8_t *)[23], 6);
	rte_pktmbuf_free(out[0]);
	cr_assert_eq(dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_EXACT], 1);
	cr_assert_eq(sent(2), 1);
	fe_filter_free(f);
	fe_dp_free(dp);
}

Test(engine, ecn_marks_through_the_engine)
{
	/* K = 0 on the down links: every ECT packet is marked, non-ECT dropped (drop policy) */
	struct fe_linkdef up = {0},
			  down = {.ecn = {.enabled = 1, .kmin = 0, .kmax = 0, .drop_non_ect = 1}};
	struct fe_dp *dp = engine_x(&up, &down, 0);
	struct rte_mbuf *out[8];
	uint8_t *f;

	inject_ip(0, 6, 0x02, 1); /* ECT(0) */
	inject_ip(0, 6, 0x00, 2); /* not ECT */
	fe_dp_poll(dp, 10);
	cr_assert_eq(take(1, out, 8), 1);
	f = rte_pktmbuf_mtod(out[0], uint8_t *);
	cr_assert_eq(f[15] & 3, 3, "CE expected");
	rte_pktmbuf_free(out[0]);
	cr_assert_eq(dp->ports[1].down.l.st.ecn_marked, 1);
	cr_assert_eq(dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_AQM], 1);
	cr_assert_eq(sent(2), 1, "port 2 got its own copy");
}

Test(engine, shared_buffer_drops)
{
	/* 1 Mbit/s down links sharing 3000 bytes: of 5 broadcast 1000-byte frames flooded to
	 * two ports (10 copies), 3 fit in the shared memory */
	struct fe_linkdef up = {0}, down = {.link = {.rate_bps = 1000000}};
	struct fe_dp *dp = engine_x(&up, &down, 3000);
	uint64_t pool_drops = 0;

	for (int i = 0; i < 5; i++)
		inject(0, BCAST, 1000);
	fe_dp_poll(dp, 10);
	for (int i = 1; i < NP; i++)
		pool_drops += dp->ports[i].down.l.st.drop_pkts[FE_LINK_DROP_POOL];
	cr_assert_eq(pool_drops, 7);
	cr_assert_eq(dp->graph->pool[0].used, 3000);
	cr_assert_eq(dp->graph->pool[0].peak, 3000);
	fe_dp_drain(dp);
	cr_assert_eq(dp->graph->pool[0].used, 0);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size);
}

Test(engine, jitter_never_reorders)
{
	struct fe_linkdef up = {.link.jitter_ns = 50000}, down = {0};
	struct fe_dp *dp = engine_x(&up, &down, 0);
	struct rte_mbuf *out[64];
	uint16_t last = 0;
	unsigned got = 0;

	for (uint16_t i = 1; i <= 60; i++) {
		inject_ip(0, 17, 0, i);
		fe_dp_poll(dp, (uint64_t)i * 1000);
	}
	for (uint64_t t = 60000; t < 200000; t += 1000) {
		unsigned n;

		fe_dp_poll(dp, t);
		n = take(1, out, 64);
		for (unsigned i = 0; i < n; i++) {
			uint8_t *f = rte_pktmbuf_mtod(out[i], uint8_t *);
			uint16_t seq = (uint16_t)(f[18] << 8 | f[19]);

			cr_assert_gt(seq, last, "packet %u after %u", seq, last);
			last = seq;
			rte_pktmbuf_free(out[i]);
		}
		got += n;
	}
	cr_assert_eq(got, 60);
	sent(2);
}

/* An engine with a given regime: every link as `all`, port 1's down link as `slow`. */
static struct fe_dp *
engine_regime(struct fe_dp_conf *conf, const struct fe_linkdef *all, const struct fe_linkdef *slow)
{
	struct fe_linkdef up[NP], down[NP];
	char err[256];
	struct fe_dp *dp;

	for (int i = 0; i < NP; i++)
		up[i] = down[i] = *all;
	down[1] = *slow;
	conf->mac_age_ns = 300000000000ULL;
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	return dp;
}

/* B and C announce themselves (C's broadcast crosses B's slow link by T0). */
#define T0 1000000ULL

static void
announce(struct fe_dp *dp)
{
	inject(1, BCAST, 60);
	inject(2, BCAST, 60);
	for (uint64_t t = 1; t <= T0; t += 1000)
		fe_dp_poll(dp, t);
	sent(0), sent(1), sent(2);
}

/* Then, at T0 + 100, port 0 sends to B (port 1, slow), B again, then C (port 2, idle). */
static void
hol_traffic(struct fe_dp *dp)
{
	announce(dp);
	inject(0, MAC[1], 1000);
	inject(0, MAC[1], 1000);
	inject(0, MAC[2], 1000);
	fe_dp_poll(dp, T0 + 100);
	fe_dp_poll(dp, T0 + 200);
}

/*
 * Credits, 1 Mbit/s to B: a 1000-byte frame takes 8.192 ms; the output buffer holds 1.
 * Polled to `until`: B's second frame and C's wait at port 0.
 */
static struct fe_dp *
credit_hol(uint64_t until)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 1,
				  .credit = {.buffer = 64 << 10, .out_pkts = 1}};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);

	hol_traffic(dp);
	for (uint64_t t = T0 + 1000; t <= until; t += 1000)
		fe_dp_poll(dp, t);
	cr_assert_eq(dp->graph->iq[0].depth, 2, "B's second frame and C's wait at port 0");
	return dp;
}

/*
 * Under credits a frame crosses the switch once its output has room, and its ECN reads the
 * backlog as that look at the output left it (fe_linkop_offer_x(), room): the bytes in the
 * buffer at that tick, what was serialized by then gone. Port 1's down link: 1 Mbit/s,
 * marking from 150 bytes (two 100-byte frames); to B (unicast, crossing at once) and
 * broadcast (held until every output has room).
 */
Test(engine, credit_ecn_reads_the_backlog_at_its_tick)
{
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_CREDIT, .lanes = 1, .credit = {.buffer = 64 << 10}};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000},
					     .ecn = {.enabled = 1, .kmin = 150, .kmax = 150}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);
	const struct fe_link *b = &dp->ports[1].down.l;
	const uint64_t ser = fe_link_ser_ticks(&b->cfg, 100);
	const uint8_t *to[2] = {MAC[1], BCAST};
	uint64_t t = T0;

	announce(dp);
	for (int w = 0; w < 2; w++) {
		uint64_t marked = b->st.ecn_marked;

		const uint64_t in = b->st.in_pkts;

		/* a pass takes them into the up link, the next across the switch */
		for (uint16_t i = 1; i <= 3; i++)
			inject_ip_to(0, to[w], 17, 0x02, i);
		fe_dp_poll(dp, t += 100);
		fe_dp_poll(dp, t += 100);
		cr_assert_eq(b->st.in_pkts, in + 3);
		cr_assert_eq(b->st.ecn_marked, marked + 1, "%s: the third saw two ahead",
			     w ? "broadcast" : "to B");
		/* the fourth: read in a pass before the second frame is serialized (the link
		 * last looked at then), and across in the pass after (the first two gone by
		 * then, the third in the serializer) */
		inject_ip_to(0, to[w], 17, 0x02, 4);
		fe_dp_poll(dp, t + 2 * ser - 50);
		fe_dp_poll(dp, t += 2 * ser + 50);
		cr_assert_eq(b->st.in_pkts, in + 4);
		cr_assert_eq(b->st.ecn_marked, marked + 1,
			     "%s: the fourth saw one ahead (what left by then is gone)",
			     w ? "broadcast" : "to B");
		cr_assert_eq(b->q_pkts, 2);
		fe_dp_poll(dp, t += 3 * ser);
		cr_assert_eq(sent(1), 4);
		sent(2);
	}
	fe_dp_free(dp);
}

/*
 * Under credits the frames bound for an output wait in the switch's input queues (its
 * virtual output queue) while the output itself holds few (credit out: 1 here), and a
 * switch marks by what waits for the output, there and in it, as a shared-buffer switch
 * counts an egress queue; read as a frame crosses to the output. Port 1's down link at
 * 1 Mbit/s marks from 250 bytes; 6 ECT frames of 100 bytes from port 0 to B. The first
 * crosses at once, nothing behind it yet; the second and third cross with 400 and 300
 * bytes still waiting, marked; the rest with 200, 100, 0. Reading the output alone (one
 * frame) none would be.
 */
Test(engine, credit_ecn_counts_what_waits_for_the_output)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 1,
				  .credit = {.buffer = 64 << 10, .out_pkts = 1}};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000},
					     .ecn = {.enabled = 1, .kmin = 250, .kmax = 250}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);
	const struct fe_link *b = &dp->ports[1].down.l;
	const uint64_t ser = fe_link_ser_ticks(&b->cfg, 100);
	uint64_t t = T0;

	announce(dp);
	for (uint16_t i = 1; i <= 6; i++)
		inject_ip_to(0, MAC[1], 17, 0x02, i);
	fe_dp_poll(dp, t += 100);
	fe_dp_poll(dp, t += 100);
	cr_assert_eq(dp->graph->iq[0].depth, 5, "5 wait at port 0: %lu",
		     (unsigned long)dp->graph->iq[0].depth);
	for (int k = 0; k < 8; k++)
		fe_dp_poll(dp, t += ser);
	cr_assert_eq(sent(1), 6);
	cr_assert_eq(b->st.ecn_marked, 2, "marked %llu of 6", (unsigned long long)b->st.ecn_marked);
	cr_assert_eq(dp->ports[1].down.voq_bytes, 0, "nothing waits for it");
	fe_dp_free(dp);
}

Test(engine, credit_head_of_line_blocking)
{
	struct fe_dp *dp = credit_hol(T0 + 8000000);

	cr_assert_eq(sent(2), 0, "C's frame is stuck behind B's second frame (HOL)");
	/* B's first frame, moved at T0 + 100, is serialized 8.192 ms later: then both move */
	fe_dp_poll(dp, T0 + 100 + 8192000 - 1);
	cr_assert_eq(sent(2), 0, "one tick early");
	fe_dp_poll(dp, T0 + 100 + 8192000);
	cr_assert_eq(sent(2), 1, "C's frame moved as soon as the head did");
	cr_assert_eq(dp->graph->iq[0].depth, 0);
	cr_assert_eq(sent(1), 1, "B's first frame delivered (no delay on the link)");
	cr_assert_eq(fe_link_count(&dp->ports[1].down.l), 1, "B's second frame serializing");
}

/* What an input queue holds when the engine stops is freed and counted (iq_stopped). */
Test(engine, credit_queued_at_stop_is_counted)
{
	struct fe_dp *dp = credit_hol(T0 + 1000000);

	fe_dp_drain(dp);
	cr_assert_eq(dp->graph->iq[0].stopped, 2, "both counted as they are freed");
	cr_assert_eq(dp->graph->iq[0].depth, 0);
	cr_assert_eq(dp->ports[1].down.l.st.stopped_pkts, 1, "B's first frame, serializing");
}

/*
 * Credit, uncongested: with every input queue empty and room at the output, a frame
 * crosses the switch when it reaches it (no wait in the input queue), and its
 * credits go back from then, one return delay later.
 */
Test(engine, credit_uncongested_crosses_at_once)
{
	/* 1 Gbit/s everywhere: a 1000-byte frame serializes in 8192 ns per link */
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 1,
				  .credit = {.buffer = 64 << 10, .return_ns = 500}};
	struct fe_linkdef all = {.link = {.rate_bps = 1000000000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &all);
	const uint64_t t1 = T0 + 100 + 8192; /* at the switch */

	hol_traffic(dp); /* B, B, C from port 0 at T0 + 100: B's back to back */
	fe_dp_poll(dp, t1 + 8192 - 1);
	cr_assert_eq(sent(1), 0, "one tick early");
	fe_dp_poll(dp, t1 + 8192);
	cr_assert_eq(sent(1), 1, "B's first frame: two links, no wait at the switch");
	cr_assert_eq(dp->graph->iq[0].peak, 0, "nothing waited in an input queue");
	cr_assert_eq(dp->graph->iq_pkts, 0);
	cr_assert_lt(dp->ports[0].up.cred.avail[0], dp->ports[0].up.cred.total);
	for (uint64_t t = t1 + 8192; t <= T0 + 200000; t += 1000)
		fe_dp_poll(dp, t);
	cr_assert_eq(sent(1), 1);
	cr_assert_eq(sent(2), 1);
	/* returns are collected when the sender next needs credits: count what is due */
	const struct fe_credit *c = &dp->ports[0].up.cred;
	uint32_t back = c->avail[0];
	for (uint32_t k = c->head; k != c->tail; k++) {
		cr_assert_leq(c->ring[k & c->mask].at, t1 + 3 * 8192 + 500, "returned late");
		back += c->ring[k & c->mask].blocks;
	}
	cr_assert_eq(back, c->total, "every credit came back");
	cr_assert_eq(dp->graph->iq[0].peak, 0);
}

/*
 * Credit messages: host 0 sends host 1 40 frames of 1514, 64, 1000 and 300 bytes over
 * 1 Gbit/s links (1 us each) with 4 KiB of credits a lane, its credits given back each
 * frame's at once (update 0) or gathered into messages of update bytes. Returns the
 * engine, drained of frames; *got: frames host 1 received.
 */
static struct fe_dp *
credit_messages(uint64_t update, unsigned *got)
{
	static const uint16_t len[] = {1514, 64, 1000, 300};
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_CREDIT,
		.lanes = 1,
		.credit = {.buffer = 4096, .return_ns = 500, .out_pkts = 1, .update = update}};
	struct fe_linkdef all = {.link = {.rate_bps = 1000000000, .delay_ns = 1000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &all);

	announce(dp);
	*got = 0;
	for (unsigned k = 0; k < 40; k++)
		inject(0, MAC[1], len[k % 4]);
	for (uint64_t t = T0 + 100; t <= T0 + 2000000; t += 500) {
		fe_dp_poll(dp, t);
		*got += sent(1);
	}
	return dp;
}

/*
 * A lane's credits gathered into messages of update bytes (2112 B: the most 4 KiB allows
 * with frames of up to 2048 B) reach the sender in fewer messages, later: it waits longer
 * for them, and nothing waits for ever (every frame delivered). Every block is the
 * sender's again, or gathering at the receiver; a reset keeps those. One byte more is
 * refused, named.
 */
Test(engine, credit_messages_gather_update_bytes)
{
	unsigned got[2];
	struct fe_dp *each = credit_messages(0, &got[0]),
		     *gathered = credit_messages(2112, &got[1]);
	const struct fe_credit *ce = &each->ports[0].up.cred, *cg = &gathered->ports[0].up.cred;
	struct fe_credit sum = *cg;
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_CREDIT, .lanes = 1, .credit = {.buffer = 4096, .update = 2113}};
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	char err[256];

	cr_assert_eq(got[0], 40, "each frame's credits at once: %u of 40 delivered", got[0]);
	cr_assert_eq(got[1], 40, "gathered: %u of 40 delivered", got[1]);
	cr_assert_eq(ce->updates[0], 0, "each frame's its own, uncounted: %lu",
		     (unsigned long)ce->updates[0]);
	cr_assert_eq(cg->update, 33, "2112 B: 33 blocks");
	/* 40 frames of 24, 1, 16 and 5 blocks: 460 blocks, in messages of 33 to 56: 10 of
	 * them (455 blocks), 5 gathering */
	cr_assert_eq(cg->updates[0], 10, "gathered: %lu messages", (unsigned long)cg->updates[0]);
	cr_assert_eq(cg->unsent[0], 5);
	fe_credit_collect(&sum, UINT64_MAX);
	cr_assert_eq(sum.avail[0] + cg->unsent[0], cg->total, "held %u, gathering %u, of %u",
		     sum.avail[0], cg->unsent[0], cg->total);
	cr_assert_gt(cg->unsent[0], 0, "460 is no multiple of the messages: some gather");
	cr_assert_gt(cg->stall_ticks[0], ce->stall_ticks[0],
		     "the sender waits longer for gathered credits: %lu ns, at once %lu ns",
		     (unsigned long)cg->stall_ticks[0], (unsigned long)ce->stall_ticks[0]);
	/* a reset restarts the messages' count and keeps the gauge of what gathers */
	sum.unsent[0] = cg->unsent[0];
	fe_adopt_reset(gathered, FE_ROLE_ALL, T0 + 2000000);
	cr_assert_eq(cg->updates[0], 0);
	cr_assert_eq(cg->unsent[0], sum.unsent[0]);
	fe_dp_free(each);
	fe_dp_free(gathered);
	conf.mac_age_ns = 300000000000ULL;
	cr_assert_null(fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err)));
	cr_assert_not_null(strstr(err, "credit update 2113 B: at most 2112 B"), "%s", err);
}

/*
 * The credit unit (--credit unit): host 0 sends host 1 40 frames of len bytes over 1 Gbit/s
 * links (host 1's down link at down bit/s) with 4 KiB of credits a lane that come back
 * 20 us after a frame leaves the switch's input. Returns the engine, drained; *got: frames
 * delivered.
 */
static struct fe_dp *
credit_units(uint32_t unit, uint16_t len, uint64_t down, unsigned *got)
{
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_CREDIT,
		.lanes = 1,
		.credit = {.buffer = 4096, .unit = unit, .return_ns = 20000, .out_pkts = 1}};
	struct fe_linkdef all = {.link = {.rate_bps = 1000000000, .delay_ns = 1000}},
			  slow = {.link = {.rate_bps = down, .delay_ns = 1000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);

	announce(dp);
	*got = 0;
	for (unsigned k = 0; k < 40; k++)
		inject(0, MAC[1], len);
	for (uint64_t t = T0 + 100; t <= T0 + 5000000; t += 500) {
		fe_dp_poll(dp, t);
		*got += sent(1);
	}
	return dp;
}

/*
 * 64-byte frames: in 64-byte credits the buffer holds all 40 and the sender never waits;
 * in 512-byte ones (a switch whose buffer cells are 512 bytes), 8 blocks, one a frame,
 * and it waits for their return. 300-byte frames into a 100 Mbit/s host: the switch's
 * input fills to what its sender was given, counted in the same unit: 12 frames of 5
 * blocks (60 of 64) in 64-byte credits, 8 frames of 1 in 512-byte ones.
 */
Test(engine, credit_unit_is_the_receivers_block)
{
	unsigned got[4];
	struct fe_dp *fine = credit_units(64, 64, 1000000000, &got[0]),
		     *coarse = credit_units(512, 64, 1000000000, &got[1]);
	const struct fe_credit *cf = &fine->ports[0].up.cred, *cc = &coarse->ports[0].up.cred;
	struct fe_credit sum = *cc;

	cr_assert_eq(got[0], 40, "64-byte credits: %u of 40 delivered", got[0]);
	cr_assert_eq(got[1], 40, "512-byte credits: %u of 40 delivered", got[1]);
	cr_assert_eq(cf->total, 64);
	cr_assert_eq(cc->total, 8, "4 KiB in 512-byte blocks");
	cr_assert_eq(cf->stall_ticks[0], 0, "40 frames fit 64 credits: waited %lu ns",
		     (unsigned long)cf->stall_ticks[0]);
	cr_assert_gt(cc->stall_ticks[0], 0, "a 64-byte frame takes a 512-byte block: 8 fit");
	cr_assert_eq(cc->avail_min[0], 0, "it ran out");
	cr_assert_gt(cf->avail_min[0], 0, "64-byte credits never ran out");
	fe_credit_collect(&sum, UINT64_MAX);
	cr_assert_eq(sum.avail[0], cc->total, "every block came back: %u of %u", sum.avail[0],
		     cc->total);
	fe_dp_free(fine);
	fe_dp_free(coarse);
	fine = credit_units(64, 300, 100000000, &got[2]);
	coarse = credit_units(512, 300, 100000000, &got[3]);
	cr_assert_eq(got[2], 40, "%u of 40", got[2]);
	cr_assert_eq(got[3], 40, "%u of 40", got[3]);
	cr_assert_eq(fine->graph->cunit.bytes, 64);
	cr_assert_eq(coarse->graph->cunit.bytes, 512, "the switch counts its input in them");
	cr_assert_eq(fine->graph->iq[0].peak_blocks, 60, "12 frames of 5 blocks: %lu",
		     (unsigned long)fine->graph->iq[0].peak_blocks);
	cr_assert_eq(coarse->graph->iq[0].peak_blocks, 8, "8 frames of 1 block: %lu",
		     (unsigned long)coarse->graph->iq[0].peak_blocks);
	cr_assert_eq(fine->graph->iq[0].peak, 12);
	cr_assert_eq(coarse->graph->iq[0].peak, 8);
	fe_dp_free(fine);
	fe_dp_free(coarse);
}

/*
 * A counter reset changes no timing: the same 40 frames of 64 bytes through 512-byte
 * credits (8, their sender waiting on each return), without resets and with one every
 * 5 us, reach host 1 at the same polls. (The reset reads a sender's returns due to restart
 * credits_min, and does not take them: taken there, a head that waited for them could be
 * timed from before they came. This run did not show it either way.)
 */
static unsigned
reset_run(int resets, uint8_t *at, unsigned n)
{
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_CREDIT,
		.lanes = 1,
		.credit = {.buffer = 4096, .unit = 512, .return_ns = 20000, .out_pkts = 1}};
	struct fe_linkdef all = {.link = {.rate_bps = 1000000000, .delay_ns = 1000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &all);
	unsigned got = 0;

	announce(dp);
	for (unsigned f = 0; f < 40; f++)
		inject(0, MAC[1], 64);
	for (unsigned k = 0; k < n; k++) {
		if (resets && k % 10 == 9)
			__atomic_add_fetch(&dp->reset_req, 1, __ATOMIC_RELEASE);
		fe_dp_poll(dp, T0 + 100 + 500 * (uint64_t)k);
		at[k] = (uint8_t)sent(1);
		got += at[k];
	}
	fe_dp_free(dp);
	return got;
}

Test(engine, a_reset_changes_no_timing)
{
	static uint8_t plain[800], reset[800];
	unsigned differ = 0;

	cr_assert_eq(reset_run(0, plain, 800), 40);
	cr_assert_eq(reset_run(1, reset, 800), 40);
	for (unsigned k = 0; k < 800; k++)
		differ += plain[k] != reset[k];
	cr_assert_eq(differ, 0, "deliveries at %u polls differ", differ);
}

/*
 * A credit stall counts while it lasts (fe_link_credit_waiting(), which the report adds to
 * stall_ns): host 0's 1,000-byte frame through 1 KiB of 300-byte credits (3 blocks; it
 * takes 4) waits for good; 1 ms after it was offered the wait reads 1 ms, 1 ms later 2 ms,
 * and none on another lane or at another sender. Before, nothing counted it until it ended,
 * and it never ends.
 */
Test(engine, a_credit_stall_counts_while_it_lasts)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 2,
				  .credit = {.buffer = 1024, .unit = 300, .out_pkts = 1}};
	struct fe_linkdef all = {.link = {.rate_bps = 1000000000, .delay_ns = 1000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &all);
	const struct fe_link *l = &dp->ports[0].up.l;
	const struct fe_credit *c = &dp->ports[0].up.cred;
	uint64_t t, w1, w2;

	announce(dp);
	fe_dp_poll(dp, T0);
	inject(0, MAC[1], 1000);
	for (t = T0; t <= T0 + 1000000; t += 1000)
		fe_dp_poll(dp, t);
	t -= 1000;
	w1 = fe_link_credit_waiting(l, c, 0, t);
	cr_assert(w1 >= 990000 && w1 <= 1000000, "waited %lu ns of 1 ms", (unsigned long)w1);
	for (; t <= T0 + 2000000; t += 1000)
		fe_dp_poll(dp, t);
	t -= 1000;
	w2 = fe_link_credit_waiting(l, c, 0, t);
	cr_assert_eq(w2, w1 + 1000000, "1 ms on: %lu ns", (unsigned long)w2);
	cr_assert_eq(fe_link_credit_waiting(l, c, 1, t), 0, "lane 1 waits for nothing");
	cr_assert_eq(fe_link_credit_waiting(&dp->ports[1].up.l, &dp->ports[1].up.cred, 0, t), 0);
	cr_assert_eq(c->stall_ticks[0], 0, "the counter takes it when it ends");
	cr_assert_eq(sent(1), 0);
	fe_dp_free(dp);
}

/* The unit sizes the rings and what every sender was given: fixed at start, a change
 * refused naming both (as a change of the buffer is), even one that gives as many
 * blocks. */
Test(engine, credit_unit_is_fixed_at_start)
{
	unsigned got;
	struct fe_dp *dp = credit_units(512, 64, 1000000000, &got);
	struct fe_linkdef up[NP], down[NP];
	struct fe_fabric fab = FE_FABRIC_DEFAULT;
	char err[256] = "";

	for (int i = 0; i < NP; i++)
		up[i] = down[i] =
			(struct fe_linkdef){.link = {.rate_bps = 1000000000, .delay_ns = 1000}};
	fab.regime = FE_REGIME_CREDIT;
	fab.lanes = 1;
	fab.credit = (struct fe_credit_params){
		.buffer = 4096, .unit = 512, .return_ns = 5000, .out_pkts = 1};
	struct fe_update *u = fe_update_build(dp, up, down, &fab, err, sizeof(err));
	cr_assert_not_null(u, "the same unit, another return: taken (%s)", err);
	fe_update_free(u);
	fab.credit.unit = 510; /* 8 blocks too: the unit itself differs */
	cr_assert_null(fe_update_build(dp, up, down, &fab, err, sizeof(err)));
	cr_assert_not_null(strstr(err, "credit buffer 4096 B / unit 510 B / out 1: the dataplane "
				       "runs 4096 B / unit 512 B / out 1"),
			   "%s", err);
	fab.credit.unit = 0; /* 64: 64 blocks */
	cr_assert_null(fe_update_build(dp, up, down, &fab, err, sizeof(err)));
	cr_assert_not_null(strstr(err, "/ unit 64 B / out 1: the dataplane"), "%s", err);
	fe_dp_free(dp);
}

/*
 * Credit messages set back to each frame's at run time (`set credit update=0`): what
 * gathered goes back at the change. It stayed gathering for ever (found in review): the
 * sender short of those blocks for good, on every lane of every link.
 */
Test(engine, credit_messages_set_off_give_back_what_gathered)
{
	unsigned got;
	struct fe_dp *dp = credit_messages(2112, &got);
	struct fe_credit *c = &dp->ports[0].up.cred;
	struct fe_linkdef up[NP], down[NP];
	struct fe_fabric fab = FE_FABRIC_DEFAULT;
	struct fe_update *u;
	char err[256];

	cr_assert_eq(got, 40);
	cr_assert_gt(c->unsent[0], 0, "some gathered");
	for (int i = 0; i < NP; i++)
		up[i] = down[i] =
			(struct fe_linkdef){.link = {.rate_bps = 1000000000, .delay_ns = 1000}};
	fab.regime = FE_REGIME_CREDIT;
	fab.lanes = 1;
	fab.credit = (struct fe_credit_params){.buffer = 4096, .return_ns = 500, .out_pkts = 1};
	u = fe_update_build(dp, up, down, &fab, err, sizeof(err));
	cr_assert_not_null(u, "%s", err);
	fe_update_publish(dp, u);
	fe_dp_poll(dp, T0 + 3000000);
	cr_assert_eq(fe_update_wait(dp, u, NULL, 1000000000ULL), 0);
	cr_assert_eq(c->update, 0);
	cr_assert_eq(c->unsent[0], 0, "nothing left gathering");
	fe_credit_collect(c, UINT64_MAX);
	cr_assert_eq(c->avail[0], c->total, "every block the sender's: %u of %u", c->avail[0],
		     c->total);
	fe_dp_free(dp);
	fe_update_free(u);
}

Test(engine, lossy_has_no_head_of_line_blocking)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_LOSSY, .lanes = 1};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);

	hol_traffic(dp);
	cr_assert_eq(sent(2), 1, "output-queued: C's frame goes at once");
}

/*
 * A loop that sleeps when idle wakes when the output's buffer has room again: when B's
 * first frame has left it (8.192 ms after T0 + 100), not when it arrives (5 ms later).
 * Polled only at its events, C's frame behind B's second leaves then, as polled every
 * microsecond it does (credit_head_of_line_blocking).
 */
Test(engine, credit_wakes_when_a_buffer_frees_room)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 1,
				  .credit = {.buffer = 64 << 10, .out_pkts = 1}};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000, .delay_ns = 5000000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);
	uint64_t t = T0 + 200;

	hol_traffic(dp);
	for (unsigned k = 0; k < 100 && sent(2) == 0; k++) {
		uint64_t next = fe_dp_next_event(dp, t);

		cr_assert(next > t && next != UINT64_MAX, "an event after %lu: %lu",
			  (unsigned long)t, (unsigned long)next);
		fe_dp_poll(dp, t = next);
	}
	cr_assert_eq(t, T0 + 100 + 8192000, "C's frame left at T0 + %lu ns",
		     (unsigned long)(t - T0));
}

Test(engine, hoq_lifetime_discards_the_head)
{
	/* HOQLife 2 ms: B's second frame is discarded at the head, C's then moves */
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_CREDIT,
		.lanes = 1,
		.credit = {.buffer = 64 << 10, .out_pkts = 1, .hoq_life_ns = 2000000}};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);

	hol_traffic(dp);
	/* a loop that sleeps when idle wakes for it: the head's HOQLife is the next event */
	cr_assert_eq(fe_dp_next_event(dp, T0 + 1000), T0 + 100 + 2000001);
	/* B's second frame is the head from T0 + 100 (when the first moved) */
	fe_dp_poll(dp, T0 + 100 + 2000000);
	cr_assert_eq(sent(2), 0, "not yet past HOQLife");
	fe_dp_poll(dp, T0 + 100 + 2000001);
	cr_assert_eq(sent(2), 1);
	cr_assert_eq(dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_HOQ], 1);
	cr_assert_eq(dp->graph->iq[0].depth, 0, "the queue emptied");
}

/*
 * Credits, the switch's memory (2400 bytes) smaller than its input queues hold: X (1500
 * bytes, port 0 to port 1's slow link, 12.192 ms) fills it, and F (port 2 to port 0) and
 * G (port 1 to port 2), 1000 bytes each, wait in their input queues; both move at the
 * tick X left the memory, not at the tick they came: each reaches its port its link's
 * 1 us after X left. The first served frees X by its own check (fe_link_pool_free());
 * the second finds the room that check made (fe_iq_room_at(): the memory's last leave).
 * Before, both were 12 ms early. The polls are 10 us apart, X's leave between two.
 */
Test(engine, credit_head_moves_when_the_switch_memory_frees)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 1,
				  .switch_buffer = 2400,
				  .credit = {.buffer = 64 << 10}};
	struct fe_linkdef all = {.link = {.delay_ns = 1000}},
			  slow = {.link = {.rate_bps = 1000000, .delay_ns = 1000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);
	const struct fe_link *down0 = &dp->ports[0].down.l, *down2 = &dp->ports[2].down.l;
	uint64_t t = 1, x_end, f_at = 0, g_at = 0;
	unsigned waited = 0;

	for (int p = 0; p < NP; p++) /* every address known; the slow link idle again */
		inject(p, BCAST, 60);
	for (; t <= 3000000; t += 1000)
		fe_dp_poll(dp, t);
	sent(0), sent(1), sent(2);
	inject(0, MAC[1], 1500); /* X */
	inject(2, MAC[0], 1000); /* F */
	inject(1, MAC[2], 1000); /* G */
	fe_dp_poll(dp, t);
	fe_dp_poll(dp, t += 1000); /* all at the switch after their up links' 1 us */
	cr_assert_eq(dp->ports[1].down.l.q_pkts, 1, "X in port 1's buffer");
	cr_assert_eq(dp->graph->iq_pkts, 2, "F and G in their input queues");
	x_end = dp->ports[1]
			.down.l.slots[dp->ports[1].down.l.svc & dp->ports[1].down.l.mask]
			.tx_end;
	cr_assert_eq(x_end, t + 12192000, "X serialized in 12.192 ms from its arrival");
	while ((f_at == 0 || g_at == 0) && t < x_end + 100000) {
		const uint64_t in0 = down0->st.in_pkts, in2 = down2->st.in_pkts;

		fe_dp_poll(dp, t += 10000);
		waited += dp->graph->iq_pkts == 2;
		if (down0->st.in_pkts != in0)
			f_at = down0->last_arrive;
		if (down2->st.in_pkts != in2)
			g_at = down2->last_arrive;
	}
	cr_assert_gt(waited, 1000, "F and G waited in their input queues (%u polls)", waited);
	cr_assert_eq(f_at, x_end + 1000, "F reaches port 0 %lld ns after X left the memory",
		     (long long)(f_at - x_end));
	cr_assert_eq(g_at, x_end + 1000, "G reaches port 2 %lld ns after X left the memory",
		     (long long)(g_at - x_end));
	fe_dp_poll(dp, t += 10000);
	cr_assert_eq(sent(0), 1, "F delivered");
	cr_assert_eq(sent(2), 1, "G delivered");
	fe_dp_drain(dp);
}

/* A frame from port 0 to port 1 with a VLAN PCP and an IPv4 TOS. */
static void
inject_pcp_tos(uint8_t pcp, uint8_t tos)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t f[100] = {0};
	char *p;

	memcpy(f, MAC[1], 6);
	memcpy(f + 6, MAC[0], 6);
	f[12] = 0x81, f[13] = 0x00, f[14] = (uint8_t)(pcp << 5);
	f[16] = 0x08, f[17] = 0x00;
	f[18] = 0x45, f[19] = tos;
	p = rte_pktmbuf_append(m, sizeof(f));
	cr_assert_not_null(p);
	rte_memcpy(p, f, sizeof(f));
	cr_assert_eq(rte_ring_enqueue(rxr[0], m), 0);
}

Test(engine, lanes_from_pcp_and_dscp)
{
	/* PFC with 8 priorities; the slow link to B keeps the bytes held, per priority */
	struct fe_dp_conf conf = {.regime = FE_REGIME_PFC,
				  .lanes = 8,
				  .lane_map = FE_MAP_PCP,
				  .pfc = {.xoff = 1 << 20, .xon = 1 << 19, .quanta = 65535}};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);

	inject(1, BCAST, 60); /* learn B */
	fe_dp_poll(dp, 1);
	inject_pcp_tos(5, 0xb8); /* PCP 5, DSCP 46 (class 5) */
	inject_pcp_tos(2, 0x00);
	inject_pcp_tos(2, 0x00);
	fe_dp_poll(dp, 1000); /* into the host adapter, then the switch */
	fe_dp_poll(dp, 2000);
	cr_assert_eq(dp->held[0 * FE_PFC_PRIOS + 5], 100, "one frame on priority 5");
	cr_assert_eq(dp->held[0 * FE_PFC_PRIOS + 2], 200, "two on priority 2");

	/* drops are counted per lane: a 2-frame egress buffer, a third frame on priority 2 */
	slow.link.limit_pkts = 2;
	dp = engine_regime(&conf, &all, &slow);
	inject(1, BCAST, 60);
	fe_dp_poll(dp, 1);
	inject_pcp_tos(5, 0);
	inject_pcp_tos(2, 0);
	inject_pcp_tos(2, 0);
	fe_dp_poll(dp, 1000);
	fe_dp_poll(dp, 2000);
	cr_assert_eq(dp->ports[1].down.l.st.lane_drop_pkts[2], 1);
	cr_assert_eq(dp->ports[1].down.l.st.lane_drop_pkts[5], 0);
	cr_assert_eq(dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_TAIL], 1);
	sent(0), sent(1), sent(2);

	conf.lane_map = FE_MAP_DSCP;
	slow.link.limit_pkts = 0;
	dp = engine_regime(&conf, &all, &slow);
	inject(1, BCAST, 60);
	fe_dp_poll(dp, 1);
	inject_pcp_tos(1, 0xb8); /* DSCP 46 >> 3 = 5, whatever the PCP */
	fe_dp_poll(dp, 1000);
	fe_dp_poll(dp, 2000);
	cr_assert_eq(dp->held[0 * FE_PFC_PRIOS + 5], 100);
	sent(0), sent(1), sent(2);
}

/*
 * PFC on one switch: port 0 sends 5 frames of 100 bytes to B, whose down link runs at
 * 1 Mbit/s; at 300 bytes held from port 0 the switch pauses it (XOFF), and once they
 * drained to 100 it lets it go (XON), the sender stopped in between.
 */
Test(engine, pfc_pauses_a_host_and_lets_it_go)
{
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_PFC,
		.lanes = 1,
		.pfc = {.xoff = 300, .xon = 100, .headroom = 10000, .quanta = 65535}};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);
	const struct fe_pfc *pfc = &dp->ports[0].up.pfc;
	uint64_t t = 2000;

	inject(1, BCAST, 60); /* learn B */
	fe_dp_poll(dp, 1);
	for (int i = 0; i < 5; i++)
		inject(0, MAC[1], 100);
	fe_dp_poll(dp, 1000);
	fe_dp_poll(dp, t);
	cr_assert(fe_pfc_xoff(pfc, 0) && pfc->prio[0].xoff_events == 1 && pfc->xoff_prios == 1,
		  "XOFF at 300 bytes held (%llu held)", (unsigned long long)dp->held[0]);
	while (t < 20000000 && fe_pfc_xoff(pfc, 0))
		fe_dp_poll(dp, t += 100000);
	cr_assert(!fe_pfc_xoff(pfc, 0) && pfc->xoff_prios == 0, "XON once they drained (%llu held)",
		  (unsigned long long)dp->held[0]);
	cr_assert_leq(dp->held[0], 100);
	cr_assert_gt(pfc->prio[0].paused_ticks, 0, "the sender was stopped");
	cr_assert_eq(pfc->prio[0].xoff_events, 1);
	sent(0), sent(1), sent(2);
	fe_dp_free(dp);
}

/*
 * Jitter holds frames on the wire longer than the propagation delay: a link's slots must
 * hold them all. Under PFC, 1,000 frames of 60 bytes into a 1 Gbit/s link with a buffer
 * of 64 frames and 1 ms of jitter: about 1,500 frames' serialization in a jitter, so up
 * to 1,000 on the wire at once, none of them lost (the slots were sized for the buffer
 * and the propagation delay alone: 256, and the rest dropped as "wire").
 */
Test(engine, jitter_keeps_what_is_on_the_wire)
{
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_PFC,
		.lanes = 1,
		.pfc = {.xoff = 1200, .xon = 600, .headroom = 1200, .quanta = 65535}};
	struct fe_linkdef all = {.link = {.rate_bps = 1000000000}},
			  slow = {.link = {.rate_bps = 1000000000,
					   .limit_pkts = 64,
					   .jitter_ns = 1000000}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);
	uint64_t t = 1, drops = 0;
	unsigned got = 0, in = 0;

	inject(1, BCAST, 60); /* learn B */
	fe_dp_poll(dp, t);
	sent(0), sent(2);
	while (t < 20000000 && got < 1000) {
		for (int k = 0; k < 50 && in < 1000; k++, in++)
			inject(0, MAC[1], 60);
		fe_dp_poll(dp, t += 10000);
		got += sent(1);
	}
	for (int c = 0; c < FE_LINK_DROP__MAX; c++) {
		drops += dp->ports[1].down.l.st.drop_pkts[c] + dp->ports[0].up.l.st.drop_pkts[c];
		if (dp->ports[1].down.l.st.drop_pkts[c] + dp->ports[0].up.l.st.drop_pkts[c])
			cr_log_error("cause %d: %llu", c,
				     (unsigned long long)(dp->ports[1].down.l.st.drop_pkts[c] +
							  dp->ports[0].up.l.st.drop_pkts[c]));
	}
	cr_assert_eq(drops, 0, "dropped %llu (wire: %llu)", (unsigned long long)drops,
		     (unsigned long long)dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_WIRE]);
	cr_assert_eq(got, 1000, "delivered %u of 1000", got);
	sent(0), sent(2);
	fe_dp_free(dp);
}

/* Publish a fabric update and let the (fake) lcore take it at its next pass. */
static struct fe_update *
swap(struct fe_dp *dp, const struct fe_linkdef *all, struct fe_update *prev, uint64_t now)
{
	struct fe_linkdef up[NP], down[NP];
	struct fe_fabric fab = FE_FABRIC_DEFAULT;
	char err[256];
	struct fe_update *u;

	for (int i = 0; i < NP; i++)
		up[i] = down[i] = *all;
	u = fe_update_build(dp, up, down, &fab, err, sizeof(err));
	cr_assert_not_null(u, "%s", err);
	fe_update_publish(dp, u);
	cr_assert_lt(dp->adopted_gen, u->gen, "not taken before a burst boundary");
	fe_dp_poll(dp, now);
	cr_assert_eq(dp->adopted_gen, u->gen, "taken at the next pass");
	cr_assert_eq(fe_update_wait(dp, u, prev, 1000000000ULL), 0);
	for (int i = 0; i < NP; i++) { /* what reports read, as the control thread does */
		dp->desc.up[i] = up[i];
		dp->desc.down[i] = down[i];
	}
	return u;
}

/* Take what port i sent; fail unless the IP ids run on from *next. Returns how many. */
static unsigned
take_in_order(int i, uint16_t *next)
{
	struct rte_mbuf *out[64];
	unsigned n = take(i, out, 64);

	for (unsigned k = 0; k < n; k++) {
		uint8_t *f = rte_pktmbuf_mtod(out[k], uint8_t *);
		uint16_t seq = (uint16_t)(f[18] << 8 | f[19]);

		cr_assert_eq(seq, *next, "packet %u where %u was next", seq, *next);
		(*next)++;
		rte_pktmbuf_free(out[k]);
	}
	return n;
}

/*
 * Fabric changes under traffic: rate, delay, buffer (its ring grows while packets wait
 * in it), filters. Nothing is dropped or reordered by a change, and every mbuf and
 * every retired ring and filter is accounted for.
 */
Test(engine, runtime_changes_keep_every_packet_in_order)
{
	struct fe_linkdef a = {
		.link = {.rate_bps = 100000000, .delay_ns = 20000, .limit_pkts = 100}};
	struct fe_linkdef b = {
		.link = {.rate_bps = 1000000000, .delay_ns = 1000, .limit_pkts = 5000},
		.match = "tcp"};
	struct fe_dp *dp = engine_x(&a, &a, 0);
	struct fe_update *last = NULL;
	unsigned held_at_change = 0;
	uint16_t next = 1;
	uint64_t t = 0;
	unsigned got = 0;

	/* bursts of 5 every 60 us: a queue builds (and the wire holds packets) on a, but
	 * stays within both buffers, so any drop or reordering would be the change's */
	for (uint16_t i = 1; i <= 600; i++) {
		inject_ip(0, 17, 0, i);
		if (i % 5)
			continue;
		t += 60000;
		fe_dp_poll(dp, t);
		fe_dp_poll(dp, t + 30000); /* the change lands with packets queued */
		if (i % 50 == 0) {
			held_at_change += fe_link_count(&dp->ports[0].up.l);
			last = swap(dp, i % 100 ? &b : &a, last, t + 30000);
		}
		got += take_in_order(1, &next);
	}
	for (; fe_dp_held(dp); t += 1000) {
		fe_dp_poll(dp, t);
		got += take_in_order(1, &next);
	}
	cr_assert_eq(got, 600, "every packet delivered (got %u)", got);
	cr_assert_gt(held_at_change, 0, "changes landed while packets were queued");
	for (unsigned n = 0; n < NP; n++) {
		cr_assert_eq(dp->ports[n].up.l.st.drop_pkts[FE_LINK_DROP_TAIL], 0);
		cr_assert_eq(dp->ports[n].down.l.st.drop_pkts[FE_LINK_DROP_TAIL], 0);
	}
	cr_assert_gt(dp->ports[0].up.l.mask + 1, 256, "the ring grew with the buffer");
	sent(2);
	fe_update_free(last);
	fe_dp_drain(dp);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size, "every mbuf back in the pool");
	fe_dp_free(dp);
}

Test(engine, runtime_rule_counts_from_the_change)
{
	/* drop the 2nd UDP packet from the moment the rule is applied, not from the start */
	struct fe_linkdef none = {0}, rule = {.drop_first = 2, .drop_count = 1, .match = "udp"};
	struct fe_dp *dp = engine_x(&none, &none, 0);
	struct fe_update *u;

	for (uint16_t i = 1; i <= 5; i++)
		inject_ip(0, 17, 0, i);
	fe_dp_poll(dp, 10);
	u = swap(dp, &rule, NULL, 20);
	for (uint16_t i = 6; i <= 10; i++)
		inject_ip(0, 17, 0, i);
	fe_dp_poll(dp, 30);
	fe_dp_poll(dp, 40);
	/* every link counts from the change: 0.up drops UDP 7, 1.down (which never sees 7)
	 * drops 8 */
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_EXACT], 1);
	cr_assert_eq(dp->ports[1].down.l.st.drop_pkts[FE_LINK_DROP_EXACT], 1);
	cr_assert_eq(sent(1), 8);
	sent(2);
	fe_update_free(u);
	fe_dp_free(dp);
}

Test(engine, runtime_change_refuses_another_regime)
{
	struct fe_linkdef none = {0}, up[NP] = {0}, down[NP] = {0};
	struct fe_fabric fab = FE_FABRIC_DEFAULT;
	struct fe_dp *dp = engine_x(&none, &none, 0);
	char err[256];

	fab.regime = FE_REGIME_CREDIT;
	cr_assert_null(fe_update_build(dp, up, down, &fab, err, sizeof(err)));
	cr_assert_str_eq(err, "regime credit: the dataplane runs lossy; the regime is fixed at "
			      "start (restart fabemu-dp with --profile)");
	fab = (struct fe_fabric)FE_FABRIC_DEFAULT;
	up[1].link.rate_bps = 1; /* below 1 kbit/s */
	cr_assert_null(fe_update_build(dp, up, down, &fab, err, sizeof(err)));
	cr_assert_str_eq(err, "link 1.up: bad rate (allowed: 0 for unlimited, or 1kbit to 1Tbit)");
	fe_dp_free(dp);
}

/* A 64-byte frame from MAC[src] to dst whose bytes 14..15 carry seq. */
static void
inject_seq(int src, const uint8_t *dst, uint16_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	cr_assert_not_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, 64);
	cr_assert_not_null(p);
	memset(p, 0, 64);
	memcpy(p, dst, 6);
	memcpy(p + 6, MAC[src], 6);
	p[12] = 0x88;
	p[13] = 0xb5;
	p[14] = (uint8_t)(seq >> 8);
	p[15] = (uint8_t)seq;
	cr_assert_eq(rte_ring_enqueue(rxr[src], m), 0);
}

/* Frames out of port i: each source's sequence numbers rising by one from `first`. */
static unsigned
sent_in_order(int i, unsigned first)
{
	struct rte_mbuf *out[256];
	unsigned n = take(i, out, 256), next[NP] = {first, first, first};

	for (unsigned k = 0; k < n; k++) {
		const uint8_t *f = rte_pktmbuf_mtod(out[k], const uint8_t *);
		int src = f[11] - 0xa;

		cr_assert(src >= 0 && src < NP);
		cr_assert_eq((unsigned)(f[14] << 8 | f[15]), next[src],
			     "port %d, frame %u from %d: seq %u, not %u", i, k, src,
			     f[14] << 8 | f[15], next[src]);
		next[src]++;
		rte_pktmbuf_free(out[k]);
	}
	return n;
}

/*
 * Lossy, every link ideal but port 1's down link (1 us), every address learned and the
 * counters reset: what the burst path's tests start from.
 */
static struct fe_dp *
learned_engine(void)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .lanes = 1};
	char err[128];
	struct fe_dp *dp;

	down[1].link.delay_ns = 1000; /* port 1's down link is not ideal */
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	cr_assert_eq(dp->ideal_down, 1 << 0 | 1 << 2);
	for (int i = 0; i < NP; i++) /* learn every address */
		inject_seq(i, BCAST, 0);
	fe_dp_poll(dp, 10);
	fe_dp_poll(dp, 1010);
	for (int i = 0; i < NP; i++)
		cr_assert_eq(sent(i), 2);
	fe_adopt_reset(dp, FE_ROLE_ALL, 1010);
	return dp;
}

/*
 * A host pauses its port (`fabemuctl hold 2.down`) on an ideal link, the burst fast path's
 * case: frames for it wait for the hold's end, in order, the other port's do not; once
 * the link is empty after the hold, bursts pass straight through again.
 */
Test(engine, a_held_ideal_link_keeps_its_frames)
{
	struct fe_dp *dp = learned_engine();

	fe_link_hold(&dp->ports[2].down.l, 2000, 50000);
	for (unsigned k = 1; k <= 8; k++)
		inject_seq(0, MAC[2], (uint16_t)k);
	inject_seq(1, MAC[0], 1);
	fe_dp_poll(dp, 2000);
	cr_assert_eq(sent(0), 1, "port 0's link is not held");
	cr_assert_eq(sent(2), 0, "held until 50 us");
	fe_dp_poll(dp, 49999);
	cr_assert_eq(sent(2), 0);
	fe_dp_poll(dp, 50000);
	cr_assert_eq(sent_in_order(2, 1), 8, "all 8, in order, at the hold's end");
	fe_dp_poll(dp, 50001);
	for (unsigned k = 9; k <= 12; k++)
		inject_seq(0, MAC[2], (uint16_t)k);
	fe_dp_poll(dp, 60000);
	cr_assert_eq(sent_in_order(2, 9), 4, "straight through again");
	cr_assert_eq(dp->ports[2].down.l.hold_until, 0, "the hold is over");
	fe_dp_free(dp);
}

/*
 * The burst fast path (ideal links, lossy): bursts mixing unicast, broadcast, a runt
 * and a frame for the ingress port; two inputs filling one output's TX staging in
 * the same pass (the rest waits in the link, in order); a delayed down link beside
 * ideal ones. Every frame arrives once, in order, counted as the general path would.
 */
Test(engine, burst_fast_path_keeps_order_and_counts)
{
	struct rte_mbuf *runt = rte_pktmbuf_alloc(pool);
	struct fe_dp *dp = learned_engine();

	/* 0 -> 1 (delayed) and 0 -> 2 (fast) interleaved, a broadcast, a runt, a frame
	 * for port 0 itself; 2 -> 0 at the same time */
	for (unsigned k = 1; k <= 24; k++) {
		inject_seq(0, MAC[k % 2 ? 1 : 2], (uint16_t)(k / 2 + k % 2));
		inject_seq(2, MAC[0], (uint16_t)k);
	}
	inject_seq(0, BCAST, 13);
	cr_assert_not_null(runt);
	cr_assert_not_null(rte_pktmbuf_append(runt, 10));
	cr_assert_eq(rte_ring_enqueue(rxr[0], runt), 0);
	inject_seq(0, MAC[0], 99);
	fe_dp_poll(dp, 2000);
	cr_assert_eq(sent_in_order(2, 1), 13, "12 unicast and the broadcast, at once");
	cr_assert_eq(sent_in_order(0, 1), 24);
	cr_assert_eq(sent(1), 0, "delayed by 1 us");
	fe_dp_poll(dp, 3000);
	cr_assert_eq(sent_in_order(1, 1), 13);
	cr_assert_eq(dp->sw.unicast, 48);
	cr_assert_eq(dp->sw.flooded, 1);
	cr_assert_eq(dp->sw.runts, 1);
	cr_assert_eq(dp->sw.filtered, 1);
	cr_assert_eq(dp->ports[0].up.l.st.in_pkts, 27);
	cr_assert_eq(dp->ports[0].up.l.st.out_pkts, 27);
	cr_assert_eq(dp->ports[0].up.l.st.in_bytes, 26 * 64 + 10);
	cr_assert_eq(dp->ports[0].up.l.st.qdepth_hist[0], 27);
	cr_assert_eq(dp->ports[2].down.l.st.in_pkts, 13);
	cr_assert_eq(dp->ports[2].down.l.st.out_bytes, 13 * 64);
	cr_assert_eq(dp->ports[2].down.l.st.sojourn_hist[0], 13);
	cr_assert_eq(dp->ports[1].down.l.st.out_pkts, 13);
	cr_assert_eq(dp->ports[0].st.tx_pkts, 24);
	cr_assert_eq(dp->ports[0].st.tx_bytes, 24 * 64);

	/* 0 -> 2 and 1 -> 2, 40 each, while port 2's TX takes 23 at first: the first
	 * burst fills port 2's TX staging, the second waits in link 2.down, and what
	 * comes next must queue behind it, not go to the staging as room frees up */
	void *dummy[1000];
	for (unsigned k = 0; k < 1000; k++)
		dummy[k] = (void *)(uintptr_t)(k + 1);
	cr_assert_eq(rte_ring_enqueue_bulk(txr[2], dummy, 1000, NULL), 1000);
	for (unsigned k = 1; k <= 40; k++) {
		inject_seq(0, MAC[2], (uint16_t)k);
		inject_seq(1, MAC[2], (uint16_t)k);
	}
	fe_dp_poll(dp, 4000);
	cr_assert_eq(rte_ring_dequeue_bulk(txr[2], dummy, 1000, NULL), 1000);
	cr_assert_gt(dp->ports[2].st.tx_busy, 0, "port 2 did not take the whole burst");
	fe_dp_poll(dp, 4001);
	fe_dp_poll(dp, 4002);
	cr_assert_eq(sent_in_order(2, 1), 80, "each source in order");
	cr_assert_eq(dp->ports[2].st.tx_pkts, 13 + 80);
	cr_assert_eq(dp->ports[2].st.tx_bytes, (13 + 80) * 64, "bytes of what the port took");
	cr_assert_eq(dp->ports[2].down.l.st.in_pkts, 13 + 80);
	cr_assert_eq(dp->ports[2].down.l.st.out_pkts, 13 + 80);
	cr_assert_eq(fe_dp_held(dp), 0);
	fe_dp_free(dp);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size, "every mbuf back in the pool");
}

/*
 * A burst of one known flow to an ideal output is staged whole, with no loop over its
 * packets (fe_switch_ingress_burst). Three bursts from 2 to 0, a pass each, while port
 * 0's TX takes only 23 at first: the first burst looks the flow up, the second is
 * staged whole, the third does not fit beside what waits in the staging and takes the
 * packet path (the rest queues in the link, in order). 0 to 1 beside it goes through
 * a delayed down link. Counters come out as the packet path's would.
 */
Test(engine, one_flow_bursts_staged_whole)
{
	struct fe_dp *dp = learned_engine();
	void *dummy[1000];

	for (unsigned k = 0; k < 1000; k++)
		dummy[k] = (void *)(uintptr_t)(k + 1);
	cr_assert_eq(rte_ring_enqueue_bulk(txr[0], dummy, 1000, NULL), 1000);
	for (unsigned b = 0; b < 3; b++) {
		for (unsigned k = 1; k <= 20; k++) {
			inject_seq(2, MAC[0], (uint16_t)(20 * b + k));
			inject_seq(0, MAC[1], (uint16_t)(20 * b + k));
		}
		fe_dp_poll(dp, 2000 + b);
	}
	cr_assert_eq(dp->ports[0].st.tx_pkts, 23, "port 0 took what its ring had room for");
	cr_assert_gt(dp->ports[0].down.l.st.in_pkts, dp->ports[0].down.l.st.out_pkts,
		     "the third burst queued in the link");
	cr_assert_eq(rte_ring_dequeue_bulk(txr[0], dummy, 1000, NULL), 1000);
	fe_dp_poll(dp, 4000);
	fe_dp_poll(dp, 4001);
	cr_assert_eq(sent_in_order(0, 1), 60, "from 2, in order");
	cr_assert_eq(sent_in_order(1, 1), 60, "from 0, in order, delayed");
	cr_assert_eq(dp->sw.unicast, 120);
	cr_assert_eq(dp->sw.flooded, 0);
	cr_assert_eq(dp->ports[2].up.l.st.in_pkts, 60);
	cr_assert_eq(dp->ports[2].up.l.st.out_bytes, 60 * 64);
	cr_assert_eq(dp->ports[0].down.l.st.in_pkts, 60);
	cr_assert_eq(dp->ports[0].down.l.st.out_pkts, 60);
	cr_assert_eq(dp->ports[0].down.l.st.in_bytes, 60 * 64);
	cr_assert_eq(dp->ports[0].down.l.st.out_bytes, 60 * 64);
	cr_assert_eq(dp->ports[0].st.tx_pkts, 60);
	cr_assert_eq(dp->ports[0].st.tx_bytes, 60 * 64);
	cr_assert_eq(dp->ports[1].down.l.st.out_pkts, 60);
	cr_assert_eq(dp->ports[1].st.tx_pkts, 60);
	cr_assert_eq(fe_dp_held(dp), 0);
	fe_dp_free(dp);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size, "every mbuf back in the pool");
}

/*
 * Credit regime, one lane: the switch takes a burst of arrivals with the port's MAC
 * cache in registers. A frame in the middle of the burst moves B to the input port,
 * so the next frame for B is filtered, not sent on by the stale cache; a runt is
 * counted and its credits go back. Every credit comes back.
 */
Test(engine, credit_arrivals_follow_the_table)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 1,
				  .credit = {.buffer = 64 << 10, .return_ns = 500}};
	struct fe_linkdef all = {.link = {.delay_ns = 5000}}; /* all arrive at once */
	struct fe_dp *dp = engine_regime(&conf, &all, &all);
	const struct fe_credit *c = &dp->ports[0].up.cred;
	uint64_t t = T0;

	hol_traffic(dp); /* B on port 1 and C on port 2 are known, A on port 0 */
	for (; t <= 2 * T0; t += 1000)
		fe_dp_poll(dp, t);
	inject_as(0, MAC[0], MAC[1], 100); /* the port's cache now holds A to B */
	for (; t <= 2 * T0 + 100000; t += 1000)
		fe_dp_poll(dp, t);
	sent(0), sent(1), sent(2);
	fe_adopt_reset(dp, FE_ROLE_ALL, t);

	inject_as(0, MAC[0], MAC[1], 100); /* A to B: port 1 */
	inject_as(0, MAC[0], MAC[1], 100);
	inject_as(0, MAC[1], MAC[2], 100); /* B has moved to port 0; to C: port 2 */
	inject_as(0, MAC[0], MAC[1], 100); /* A to B: B is on the input port now */
	inject_as(0, MAC[0], MAC[1], 10);  /* a runt */
	fe_dp_poll(dp, t);
	cr_assert_eq(fe_link_count(&dp->ports[0].up.l), 5, "all five on the wire together");
	fe_dp_poll(dp, t + 5000);
	cr_assert_eq(fe_link_count(&dp->ports[0].up.l), 0, "one burst of arrivals");
	for (uint64_t u = t + 5000; u <= t + 100000; u += 1000)
		fe_dp_poll(dp, u);
	cr_assert_eq(sent(1), 2, "the two frames before the move");
	cr_assert_eq(sent(2), 1, "B's frame to C");
	cr_assert_eq(sent(0), 0, "the frame for B after the move is filtered");
	cr_assert_eq(dp->sw.filtered, 1);
	cr_assert_eq(dp->sw.unicast, 3);
	cr_assert_eq(dp->sw.runts, 1);
	cr_assert_eq(dp->mac->moves, 1);
	/* returns are collected when the sender next needs credits: count what is due */
	uint32_t back = c->avail[0];
	for (uint32_t k = c->head; k != c->tail; k++) {
		cr_assert_leq(c->ring[k & c->mask].at, t + 100000);
		back += c->ring[k & c->mask].blocks;
	}
	cr_assert_eq(back, c->total, "every credit came back");
	fe_dp_free(dp);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size, "every mbuf back in the pool");
}

/*
 * The pipeline (--lcores 2), its stages polled apart: what the up stage hands an egress
 * port is what the down stage took, what the port's ring had no room for (handoff_full)
 * and what was still in the ring when the dataplane stopped (handoff_stopped, freed
 * then). 5000 frames from a pool larger than the ring (4095 frames) with no down stage to
 * take them: 4095 wait in the ring at the stop, 905 found it full.
 */
Test(engine, pipeline_frames_between_the_stages_at_stop_are_counted)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .lanes = 1, .lcores = 2};
	struct rte_mempool *big =
		rte_pktmbuf_pool_create("big", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	uint64_t handed, took = 0, t = 10;
	char err[256];
	struct fe_dp *dp;

	cr_assert_not_null(big);
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	cr_assert_not_null(dp->handoff, "two lcores: a pipeline");
	inject(1, MAC[0], 100); /* B learned on port 1; A unknown: flooded to 0 and 2 */
	fe_dp_poll_role(dp, FE_ROLE_UP, t);
	fe_dp_poll_role(dp, FE_ROLE_DOWN, t);
	cr_assert_eq(sent(0) + sent(2), 2);
	for (unsigned k = 0; k < 100; k++) /* both stages: the down stage takes them all */
		inject(0, MAC[1], 100);
	fe_dp_poll_role(dp, FE_ROLE_UP, t += 10);
	fe_dp_poll_role(dp, FE_ROLE_DOWN, t);
	cr_assert_eq(sent(1), 100);
	for (unsigned r = 0; r < 5; r++) { /* the up stage alone: 1000 at a time */
		for (unsigned k = 0; k < 1000; k++)
			ring_udp(big, rxr[0], MAC[1], MAC[0], 0, 0, 64, (uint8_t)k);
		while (rte_ring_count(rxr[0]) > 0)
			fe_dp_poll_role(dp, FE_ROLE_UP, t += 10);
	}
	cr_assert_eq(sent(1), 0, "no down stage ran");
	cr_assert_eq(dp->sw.unicast, 100 + 5000);
	cr_assert_eq(dp->sw.flooded, 1);
	cr_assert_eq(dp->sw.handoff_full, 5000 - 4095);
	cr_assert_eq(rte_ring_count(dp->handoff[1]), 4095, "the ring full");
	cr_assert_eq(dp->sw.handoff_stopped, 0, "0 while it runs");
	fe_dp_drain(dp);
	cr_assert_eq(dp->sw.handoff_stopped, 4095, "what waited in the ring: %lu",
		     (unsigned long)dp->sw.handoff_stopped);
	/* handed on: each unicast once, the flood to the 2 other ports */
	handed = dp->sw.unicast + (NP - 1) * dp->sw.flooded;
	for (int i = 0; i < NP; i++)
		took += dp->ports[i].down.l.st.in_pkts;
	cr_assert_eq(took, 2 + 100);
	cr_assert_eq(handed, took + dp->sw.handoff_full + dp->sw.handoff_stopped,
		     "handed on %lu, the down stage took %lu, full %lu, stopped %lu",
		     (unsigned long)handed, (unsigned long)took, (unsigned long)dp->sw.handoff_full,
		     (unsigned long)dp->sw.handoff_stopped);
	cr_assert_eq(rte_mempool_avail_count(big), big->size, "every mbuf back in its pool");
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size);
	fe_dp_free(dp);
	rte_mempool_free(big);
}

/*
 * Hosts A and B each offer 0.9 of the line (1 Gbit/s: a 1,500-byte frame every 13.5 us on
 * average, each gap drawn from 7.5 to 19.5 us), A to port dst[0], B to port dst[1], for
 * 20 ms, the engine polled every `poll` ns; got[s]: what reached its host of sender s's.
 */
static void
two_senders(struct fe_dp *dp, uint64_t poll, const int dst[2], unsigned got[2])
{
	uint64_t t = 1000000, next[2], end;
	unsigned seed = 7;
	void *v;

	got[0] = got[1] = 0;
	for (int p = 0; p < NP; p++)
		inject(p, BCAST, 60);
	fe_dp_poll(dp, t);
	fe_dp_poll(dp, t += 100000);
	for (int p = 0; p < NP; p++)
		ring_drain(txr[p]);
	next[0] = next[1] = t + 1000;
	for (end = t + 20000000; t < end;) {
		t += poll;
		for (int s = 0; s < 2; s++)
			for (; next[s] <= t; next[s] += 7500 + rand_r(&seed) % 12000)
				inject(s, MAC[dst[s]], 1500);
		fe_dp_poll(dp, t);
		for (int s = 0; s < 2 && (s == 0 || dst[1] != dst[0]); s++)
			while (rte_ring_dequeue(txr[dst[s]], &v) == 0) {
				struct rte_mbuf *m = v;

				got[rte_pktmbuf_mtod(m, const uint8_t *)[11] == MAC[0][5] ? 0
											  : 1]++;
				rte_pktmbuf_free(m);
			}
	}
}

/*
 * Two outputs that share the switch's buffer share it by when their frames come: host A
 * sends to C and host B to A, each at 0.9 of the line (1 Gbit/s, gaps drawn from 7.5 to
 * 19.5 us) into down links of 500 Mbit/s, the switch's memory 5 frames (7,500 bytes),
 * each down link's own buffer unlimited; polled
 * every 10, 30 and 60 us. A host's down link is offered a round's frames at its end
 * (fe_egress.h): one port after another, the lower-numbered port's frames took the
 * memory first (A's down link, B's frames). Now the ports' staged frames are offered
 * merged by their ticks where their links share a limited buffer: 44 to 56 % each.
 */
Test(engine, two_outputs_share_the_switch_buffer_whatever_the_pass)
{
	static const uint64_t polls[] = {10000, 30000, 60000};
	static const int dst[2] = {2, 0};
	struct fe_linkdef a = {.link = {.rate_bps = 1000000000ULL, .delay_ns = 1000}}, d;

	a.link.limit_pkts = 4096;
	d = a;
	d.link.rate_bps = 500000000ULL;
	for (int i = 0; i < 3; i++) {
		unsigned avail = rte_mempool_avail_count(pool), got[2];
		struct fe_dp *dp = engine_x(&a, &d, 7500);

		two_senders(dp, polls[i], dst, got);
		cr_log_info("polled every %lu us: A to C %u, B to A %u",
			    (unsigned long)polls[i] / 1000, got[0], got[1]);
		/* at most 1,666 in 20 ms (two links at 500 Mbit/s) */
		cr_assert_gt(got[0] + got[1], 1000, "the links were kept busy: %u",
			     got[0] + got[1]);
		ring_shares_even(got, "A to C", "B to A", polls[i]);
		fe_dp_drain(dp);
		fe_dp_free(dp);
		cr_assert_eq(rte_mempool_avail_count(pool), avail);
	}
}

/*
 * The pipeline hands a round's frames for a port on in the order of their ticks, as one
 * lcore offers them (fe_egress.h): ports 0 and 1 (up links at 1 Gbit/s) each bring port 2
 * ten frames, 1,000 and 100 bytes, read in one pass and switched in the next, one port's
 * after the other's. The up stage put them on port 2's ring as the pass came to them.
 */
Test(engine, pipeline_hands_a_round_on_in_tick_order)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .lanes = 1, .lcores = 2};
	struct fe_link_offer h;
	uint64_t t = 10, last = 0;
	unsigned n = 0, before = 0;
	char err[256];
	struct fe_dp *dp;

	for (int i = 0; i < NP; i++)
		up[i].link = (struct fe_link_params){.rate_bps = 1000000000ULL, .delay_ns = 1000};
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	for (int p = 0; p < NP; p++)
		inject(p, BCAST, 60);
	for (int k = 0; k < 10; k++) {
		fe_dp_poll_role(dp, FE_ROLE_UP, t += 100000);
		fe_dp_poll_role(dp, FE_ROLE_DOWN, t);
	}
	for (int p = 0; p < NP; p++)
		cr_assert_eq(ring_drain(txr[p]), NP - 1, "port %d hears the others", p);
	for (int k = 0; k < 10; k++) {
		inject(0, MAC[2], 1000);
		inject(1, MAC[2], 100);
	}
	fe_dp_poll_role(dp, FE_ROLE_UP, t += 1000);
	fe_dp_poll_role(dp, FE_ROLE_UP, t += 1000000);
	while (rte_ring_dequeue_elem(dp->handoff[2], &h, sizeof(h)) == 0) {
		before += h.at < last;
		last = h.at;
		n++;
		rte_pktmbuf_free(h.pkt);
	}
	cr_assert_eq(n, 20);
	cr_assert_eq(before, 0, "%u frames handed on after a later one", before);
	fe_dp_drain(dp);
	fe_dp_free(dp);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size);
}

#define RING  (sizeof(struct fe_link_slot) * 8192) /* a ring of 8000 frames' buffer */
#define AGAIN 64

static int
overlap(const void *a, const void *b)
{
	const char *x = a, *y = b;

	return x < y + RING && y < x + RING;
}

/*
 * The pipeline: a change that the down stage took and the up stage did not (its wait timed
 * out), freed later as the previous change of the next one. The ring the down stage took
 * from it is live: freeing the change frees only what each link let go (each link says
 * whether its lcore took it), not the rings the down links now run on.
 */
Test(engine, pipeline_change_taken_by_one_stage_keeps_its_rings)
{
	struct fe_linkdef up[NP] = {0}, down[NP] = {0}, big = {0};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .lanes = 1, .lcores = 2};
	struct fe_fabric fab = FE_FABRIC_DEFAULT;
	struct fe_update *u, *u2;
	void *again[AGAIN];
	char err[256];
	struct fe_dp *dp;

	for (int i = 0; i < NP; i++)
		up[i].link.limit_pkts = down[i].link.limit_pkts = 16;
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	big.link.limit_pkts = 8000; /* every ring grows */
	for (int i = 0; i < NP; i++)
		up[i] = down[i] = big;
	u = fe_update_build(dp, up, down, &fab, err, sizeof(err));
	cr_assert_not_null(u, "%s", err);
	fe_update_publish(dp, u);
	fe_dp_poll_role(dp, FE_ROLE_DOWN, 10); /* the down stage alone takes it */
	cr_assert_eq(dp->down_acks.adopted_gen, u->gen);
	cr_assert_neq(dp->adopted_gen, u->gen);
	cr_assert_eq(fe_update_wait(dp, u, NULL, 1000000), -ETIMEDOUT);
	cr_assert_eq(dp->ports[1].down.l.slots, u->links[3].slots, "the down link runs u's ring");
	/* the next change: both stages take it, and u goes */
	u2 = fe_update_build(dp, up, down, &fab, err, sizeof(err));
	cr_assert_not_null(u2, "%s", err);
	fe_update_publish(dp, u2);
	fe_dp_poll_role(dp, FE_ROLE_UP, 20);
	fe_dp_poll_role(dp, FE_ROLE_DOWN, 20);
	cr_assert_eq(fe_update_wait(dp, u2, u, 1000000000ULL), 0);
	/* memory freed is given out again: none of it may be in a ring a link runs on */
	for (int k = 0; k < AGAIN; k++) {
		again[k] = rte_malloc("again", RING, 0);
		cr_assert_not_null(again[k]);
		for (int i = 0; i < NP; i++) {
			cr_assert(!overlap(again[k], dp->ports[i].down.l.slots),
				  "port %d: its down link's ring was freed under it", i);
			cr_assert(!overlap(again[k], dp->ports[i].up.l.slots),
				  "port %d: its up link's ring was freed under it", i);
		}
	}
	for (int k = 0; k < AGAIN; k++)
		rte_free(again[k]);
	inject(0, MAC[1], 100);
	fe_dp_poll_role(dp, FE_ROLE_UP, 30);
	fe_dp_poll_role(dp, FE_ROLE_DOWN, 30);
	cr_assert_eq(sent(1) + sent(2), 2, "the flood crossed the rings");
	fe_dp_drain(dp);
	fe_dp_free(dp);
	fe_update_free(u2);
}

/* The fabric of conf with every port's up link up_all and down link down_all. */
static struct fe_update *
change_to(struct fe_dp *dp, const struct fe_dp_conf *conf, const struct fe_linkdef *up_all,
	  const struct fe_linkdef *down_all, uint64_t now)
{
	struct fe_linkdef up[NP], down[NP];
	struct fe_fabric fab = FE_FABRIC_DEFAULT;
	char err[256];
	struct fe_update *u;

	fab.regime = conf->regime;
	fab.lanes = conf->lanes;
	fab.lane_map = conf->lane_map;
	fab.pfc = conf->pfc;
	fab.credit = conf->credit;
	fab.switch_buffer = conf->switch_buffer;
	for (int i = 0; i < NP; i++) {
		up[i] = *up_all;
		down[i] = *down_all;
	}
	u = fe_update_build(dp, up, down, &fab, err, sizeof(err));
	cr_assert_not_null(u, "%s", err);
	fe_update_publish(dp, u);
	fe_dp_poll(dp, now);
	cr_assert_eq(fe_update_wait(dp, u, NULL, 1000000000ULL), 0);
	for (int i = 0; i < NP; i++) {
		dp->desc.up[i] = up[i];
		dp->desc.down[i] = down[i];
	}
	return u;
}

/*
 * Lossless: the host adapter's queue (the up link) is the edge, and it takes from the
 * port only what it has room for, so it never drops. A change that cuts its buffer
 * below what waits in it leaves no room (not the room of an unsigned wrap): the port
 * keeps what comes next, and the up link drops nothing.
 */
Test(engine, lossless_edge_holds_after_a_buffer_cut)
{
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_PFC,
		.lanes = 1,
		.pfc = {.xoff = 1 << 20, .xon = 1 << 19, .headroom = 10000, .quanta = 65535}};
	struct fe_linkdef slow = {.link = {.rate_bps = 1000000, .limit_pkts = 800}}, all = {0};
	struct fe_dp *dp;
	struct fe_update *u;
	uint64_t t = 1000;

	conf.mac_age_ns = 300000000000ULL;
	{
		struct fe_linkdef up[NP], down[NP];
		char err[256];

		for (int i = 0; i < NP; i++) {
			up[i] = slow;
			down[i] = all;
		}
		dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
		cr_assert_not_null(dp, "%s", err);
	}
	inject(1, BCAST, 60); /* learn B */
	fe_dp_poll(dp, t);
	for (int i = 0; i < 100; i++)
		inject(0, MAC[1], 1000);
	fe_dp_poll(dp, t += 10);
	cr_assert_geq(dp->ports[0].up.l.q_pkts, 90, "the host's frames wait in its adapter");
	slow.link.limit_pkts = 8;
	u = change_to(dp, &conf, &slow, &all, t += 10);
	cr_assert_eq(fe_dp_up_room(dp, &dp->ports[0], t, FE_BURST), 0,
		     "%u frames wait, 8 fit: no room", dp->ports[0].up.l.q_pkts);
	uint32_t waiting = dp->ports[0].up.l.q_pkts;

	for (int i = 0; i < 32; i++)
		inject(0, MAC[1], 1000);
	fe_dp_poll(dp, t += 10);
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_TAIL], 0,
		     "the lossless edge dropped %lu",
		     (unsigned long)dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_TAIL]);
	/* nor took any (the link takes what the edge read without looking at its limits
	 * again: fe_link_enqueue_room()) */
	cr_assert_leq(dp->ports[0].up.l.q_pkts, waiting, "%u waited, %u after", waiting,
		      dp->ports[0].up.l.q_pkts);
	cr_assert_geq(rte_ring_count(rxr[0]), 32, "the port keeps them");
	ring_drain(rxr[0]);
	fe_dp_drain(dp);
	sent(0), sent(1), sent(2);
	fe_dp_free(dp);
	fe_update_free(u);
}

/*
 * Jumbo frames under a byte buffer: the room the lossless edge takes is counted in the
 * largest frame a port can bring (its mbufs' room), not a standard frame's 1518 bytes.
 */
Test(engine, lossless_edge_counts_jumbo_frames)
{
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_PFC,
		.lanes = 1,
		.mac_age_ns = 300000000000ULL,
		.pfc = {.xoff = 1 << 20, .xon = 1 << 19, .headroom = 10000, .quanta = 65535}};
	struct rte_mempool *jumbo =
		rte_pktmbuf_pool_create("jumbo", 255, 0, 0, 9216 + RTE_PKTMBUF_HEADROOM, 0);
	struct fe_linkdef up[NP], down[NP] = {0};
	char err[256];
	struct fe_dp *dp;
	uint64_t t = 1000;

	cr_assert_not_null(jumbo);
	for (int i = 0; i < NP; i++)
		up[i] = (struct fe_linkdef){.link = {.rate_bps = 1000000000, .limit_bytes = 30000}};
	dp = fe_dp_create(NP, ports, up, down, jumbo, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	ring_udp(jumbo, rxr[1], BCAST, MAC[1], 1, 1, 60, 0); /* learn B */
	fe_dp_poll(dp, t);
	for (int i = 0; i < 10; i++)
		ring_udp(jumbo, rxr[0], MAC[1], MAC[0], 0, 1, 9000, (uint8_t)i);
	fe_dp_poll(dp, t += 1);
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_TAIL], 0,
		     "10 frames of 9000 bytes against 30000 bytes of buffer: %lu dropped",
		     (unsigned long)dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_TAIL]);
	for (int k = 0; k < 200 && rte_ring_count(rxr[0]) > 0; k++)
		fe_dp_poll(dp, t += 100000);
	for (int k = 0; k < 10; k++)
		fe_dp_poll(dp, t += 100000);
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_TAIL], 0);
	cr_assert_leq(dp->ports[0].up.l.peak_bytes, 30000, "the adapter held %lu bytes of 30000",
		      (unsigned long)dp->ports[0].up.l.peak_bytes);
	cr_assert_eq(sent(1), 10, "all ten crossed");
	sent(0), sent(2);
	fe_dp_drain(dp);
	fe_dp_free(dp);
	cr_assert_eq(rte_mempool_avail_count(jumbo), jumbo->size, "every mbuf back");
	rte_mempool_free(jumbo);
}

/*
 * A Gilbert-Elliott chain is state, not configuration: a change of the link that leaves
 * its loss model as it was (here its rate) keeps the chain where it is. In Bad it stays
 * (r = 0.001) and loses everything, in Good it loses nothing: after each of 20 changes,
 * a frame sent in Bad is lost. A chain restarted Good by the change would lose about
 * half of them (p = 0.5).
 */
Test(engine, a_change_keeps_the_loss_chain)
{
	struct fe_linkdef ge = {.loss = {.kind = FE_LOSS_GE, .p = 0.5, .r = 0.001, .loss_bad = 1}},
			  all = {0};
	struct fe_dp_conf conf = {.lanes = 1, .mac_age_ns = 300000000000ULL};
	struct fe_update *u = NULL, *prev;
	uint64_t t = 1000, lost = 0;
	struct fe_dp *dp;

	dp = engine_x(&ge, &all, 0);
	for (int k = 0; k < 100 && dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_BURST] == 0; k++) {
		inject(0, MAC[1], 100);
		fe_dp_poll(dp, t += 1000);
		sent(1), sent(2);
	}
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_BURST], 1, "in Bad");
	for (int k = 0; k < 20; k++) {
		prev = u;
		ge.link.rate_bps = 1000000000ULL + (uint64_t)k * 1000000; /* another rate */
		u = change_to(dp, &conf, &ge, &all, t += 1000);
		fe_update_free(prev);
		lost = dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_BURST];
		inject(0, MAC[1], 100);
		fe_dp_poll(dp, t += 1000);
		sent(1), sent(2);
		cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_BURST], lost + 1,
			     "change %d: the frame after it crossed (the chain restarted Good)", k);
	}
	sent(0), sent(1), sent(2);
	fe_dp_drain(dp);
	fe_dp_free(dp);
	fe_update_free(u);
}

/*
 * Credits on one switch: a flood is held in its input queue until every output it goes to
 * has room, as on every switch of a graph (it crossed at once, and the copy for a full
 * output was dropped: a loss in a lossless regime). B's down link holds 4 frames; A sends
 * B 5, then C broadcasts: nothing is dropped anywhere, and everything arrives.
 */
Test(engine, credit_flood_waits_for_room)
{
	struct fe_dp_conf conf = {
		.regime = FE_REGIME_CREDIT, .lanes = 1, .credit = {.buffer = 64 << 10}};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000, .limit_pkts = 4}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);
	uint64_t t = 1000, drops = 0;
	unsigned got[NP] = {0};

	inject(1, BCAST, 60); /* learn B and C */
	inject(2, BCAST, 60);
	for (int k = 0; k < 20; k++) /* their floods drain */
		fe_dp_poll(dp, t += 1000000);
	sent(0), sent(1), sent(2);
	for (int i = 0; i < 5; i++)
		inject(0, MAC[1], 100);
	fe_dp_poll(dp, t += 1000);
	inject(2, BCAST, 100);
	for (int k = 0; k < 200; k++) {
		fe_dp_poll(dp, t += 100000);
		for (int i = 0; i < NP; i++)
			got[i] += sent(i);
	}
	for (int i = 0; i < NP; i++)
		for (int c = 0; c < FE_LINK_DROP__MAX; c++)
			drops += dp->ports[i].down.l.st.drop_pkts[c] +
				 dp->ports[i].up.l.st.drop_pkts[c];
	cr_assert_eq(drops, 0, "a lossless switch dropped %lu", (unsigned long)drops);
	/* and overfilled none: every frame it moved found room (the output's buffer is not
	 * looked at again when it takes one: fe_link_enqueue_room()) */
	for (int i = 0; i < NP; i++)
		cr_assert_leq(dp->ports[i].down.l.peak_pkts, 4, "port %d's down link held %u of 4",
			      i, dp->ports[i].down.l.peak_pkts);
	cr_assert_eq(dp->ports[1].down.l.peak_pkts, 4,
		     "B's link was full: the gates held the rest");
	cr_assert_eq(got[1], 6, "B got %u: A's 5 and C's flood", got[1]);
	cr_assert_eq(got[0], 1, "A got C's flood");
	fe_dp_drain(dp);
	fe_dp_free(dp);
}

/*
 * Credits on one switch: each output's arbiter serves its (input, lane) queues in turn,
 * so a lane has no priority over another: A sends B 10 frames on lane 0, then 10 on lane
 * 1, through B's slow link; of the first 10 that reach B, both lanes have their share
 * (lane 0 first, as a fixed order served them, gave lane 1 none).
 */
Test(engine, credit_lanes_share_an_output)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 2,
				  .lane_map = FE_MAP_PCP,
				  .credit = {.buffer = 64 << 10}};
	struct fe_linkdef all = {0}, slow = {.link = {.rate_bps = 1000000, .limit_pkts = 2}};
	struct fe_dp *dp = engine_regime(&conf, &all, &slow);
	struct rte_mbuf *out[64];
	unsigned lane1 = 0, seen = 0;
	uint64_t t = 1000;

	inject(1, BCAST, 60); /* learn B */
	for (int k = 0; k < 10; k++)
		fe_dp_poll(dp, t += 1000000);
	sent(0), sent(1), sent(2);
	for (int i = 0; i < 10; i++)
		inject_pcp_tos(0, 0);
	for (int i = 0; i < 10; i++)
		inject_pcp_tos(1, 0);
	for (int k = 0; k < 400 && seen < 10; k++) {
		unsigned n;

		fe_dp_poll(dp, t += 100000);
		n = take(1, out, 64);
		for (unsigned i = 0; i < n; i++) {
			const uint8_t *f = rte_pktmbuf_mtod(out[i], const uint8_t *);

			if (seen++ < 10)
				lane1 += (f[14] >> 5) == 1;
			rte_pktmbuf_free(out[i]);
		}
	}
	cr_assert_geq(seen, 10);
	cr_assert_geq(lane1, 3, "lane 1 got %u of the first 10 frames to B", lane1);
	sent(0), sent(1), sent(2);
	fe_dp_drain(dp);
	fe_dp_free(dp);
}

/* A frame from port src (MAC[src]) to dst with a VLAN PCP. */
static void
inject_vlan(int src, const uint8_t *dst, uint8_t pcp)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t f[100] = {0};
	char *p;

	cr_assert_not_null(m);
	memcpy(f, dst, 6);
	memcpy(f + 6, MAC[src], 6);
	f[12] = 0x81, f[13] = 0x00, f[14] = (uint8_t)(pcp << 5);
	f[16] = 0x08, f[17] = 0x00, f[18] = 0x45;
	p = rte_pktmbuf_append(m, sizeof(f));
	cr_assert_not_null(p);
	rte_memcpy(p, f, sizeof(f));
	cr_assert_eq(rte_ring_enqueue(rxr[src], m), 0);
}

/*
 * VL stall is per output port and VL (IBTA 18.2.5.5.3): B's port is held 50 ms (a full
 * one-frame buffer), so A's frames to B on VL 0 are discarded at HOQLife (5 ms), seven
 * in a row: B's VL 0 stalls for 40 ms. At 52 ms, C sends B a frame on VL 1: not stalled,
 * it is delivered (a stall per output discarded it).
 */
Test(engine, vl_stall_is_per_output_and_vl)
{
	struct fe_dp_conf conf = {.regime = FE_REGIME_CREDIT,
				  .lanes = 2,
				  .lane_map = FE_MAP_PCP,
				  .credit = {.buffer = 64 << 10, .hoq_life_ns = 5000000}};
	struct fe_linkdef all = {0}, one = {.link = {.limit_pkts = 1}};
	struct fe_dp *dp = engine_regime(&conf, &all, &one);
	uint64_t t = 1000, t0;

	inject(1, BCAST, 60); /* learn B and C */
	inject(2, BCAST, 60);
	fe_dp_poll(dp, t += 1000);
	sent(0), sent(1), sent(2);
	t0 = t;
	fe_link_hold(&dp->ports[1].down.l, t0, t0 + 50000000);
	for (int i = 0; i < 20; i++)
		inject_vlan(0, MAC[1], 0);
	while (t < t0 + 52000000)
		fe_dp_poll(dp, t += 100000);
	cr_assert_geq(dp->graph->stalls, 1, "B's VL 0 stalled");
	cr_assert_eq(sent(1), 1, "the held frame left when the hold ended");
	inject_vlan(2, MAC[1], 1);
	fe_dp_poll(dp, t += 100000);
	fe_dp_poll(dp, t += 100000);
	cr_assert_eq(sent(1), 1, "C's frame on VL 1 was delivered during VL 0's stall");
	sent(0), sent(2);
	fe_dp_drain(dp);
	fe_dp_free(dp);
}

/* A frame of len bytes, f its first n bytes (the rest zero), arrives at port `port`. */
static void
inject_raw(int port, const uint8_t *f, unsigned n, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *p;

	cr_assert_not_null(m);
	p = rte_pktmbuf_append(m, len);
	cr_assert_not_null(p);
	memset(p, 0, len);
	rte_memcpy(p, f, n);
	cr_assert_eq(rte_ring_enqueue(rxr[port], m), 0);
}

/*
 * Frames to IEEE 802.1Q's reserved group addresses stop at the switch, counted by cause,
 * in every regime and on each of its paths (the lossy burst path, the general path, PFC's
 * and the credit arbiter's); a broadcast beside them is flooded as ever. Under credits
 * their credits come back; every mbuf goes back to the pool.
 */
static void
reserved_stop(struct fe_dp_conf *conf, const struct fe_linkdef *all, const char *what)
{
	static const struct {
		uint8_t dst5;
		uint16_t type;
		uint8_t p0, p1;
		enum fe_rsvd cause;
	} t[] = {
		{0x01, 0x8808, 0x00, 0x01, FE_RSVD_PAUSE},
		{0x01, 0x8808, 0x01, 0x01, FE_RSVD_PFC},
		{0x0e, 0x88cc, 0x02, 0x07, FE_RSVD_LLDP},
		{0x00, 38, 0x42, 0x42, FE_RSVD_STP},
		{0x02, 0x8809, 0x01, 0x01, FE_RSVD_SLOW},
		{0x03, 0x888e, 0x01, 0x00, FE_RSVD_OTHER},
	};
	struct fe_dp *dp = engine_regime(conf, all, all);
	uint64_t now = 1;

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (int p = 0; p < 2; p++) { /* from two ports: each is counted */
			uint8_t f[16] = {0x01, 0x80, 0xc2, 0, 0, t[i].dst5};

			memcpy(f + 6, MAC[p], 6);
			f[12] = (uint8_t)(t[i].type >> 8);
			f[13] = (uint8_t)t[i].type;
			f[14] = t[i].p0;
			f[15] = t[i].p1;
			inject_raw(p, f, sizeof(f), 60);
		}
	inject(0, BCAST, 60);
	for (; now <= 1000000; now += 1000)
		fe_dp_poll(dp, now);
	cr_assert_eq(sent(0), 0, "%s: nothing to port 0", what);
	cr_assert_eq(sent(1), 1, "%s: only the broadcast to port 1", what);
	cr_assert_eq(sent(2), 1, "%s: only the broadcast to port 2", what);
	cr_assert_eq(dp->sw.flooded, 1, "%s", what);
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_assert_eq(dp->sw.reserved[t[i].cause], 2, "%s: reserved_%s", what,
			     fe_rsvd_name(t[i].cause));
	cr_assert_eq(dp->mac->learned, 2, "%s: their sources are learned as a bridge does", what);
	for (int p = 0; conf->regime == FE_REGIME_CREDIT && p < 2; p++) {
		const struct fe_credit *c = &dp->ports[p].up.cred;
		uint32_t back = c->avail[0];

		for (uint32_t k = c->head; k != c->tail; k++)
			back += c->ring[k & c->mask].blocks;
		cr_assert_eq(back, c->total, "%s: every credit of port %d came back", what, p);
	}
	fe_dp_free(dp);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size, "%s: every mbuf back", what);
}

Test(engine, reserved_addresses_stop_at_the_switch)
{
	struct fe_linkdef ideal = {0}, slow = {.link = {.rate_bps = 100000000, .delay_ns = 2000}};
	struct fe_dp_conf lossy = {.regime = FE_REGIME_LOSSY, .lanes = 1};
	struct fe_dp_conf lossy2 = {.regime = FE_REGIME_LOSSY, .lanes = 1};
	struct fe_dp_conf pfc = {.regime = FE_REGIME_PFC,
				 .lanes = 1,
				 .pfc = {.xoff = 64 << 10, .xon = 32 << 10, .quanta = 65535}};
	struct fe_dp_conf credit = {
		.regime = FE_REGIME_CREDIT, .lanes = 1, .credit = {.buffer = 64 << 10}};
	struct fe_dp_conf credit4 = {
		.regime = FE_REGIME_CREDIT, .lanes = 4, .credit = {.buffer = 64 << 10}};

	reserved_stop(&lossy, &ideal, "lossy, burst path");
	reserved_stop(&lossy2, &slow, "lossy, general path");
	reserved_stop(&pfc, &slow, "pfc");
	reserved_stop(&credit, &slow, "credit");
	reserved_stop(&credit4, &ideal, "credit, 4 lanes");
}

/* An 802.1Qbb frame from host `port`: priority 3 enabled, its quanta q (0: XON). */
static void
inject_pfc(int port, uint16_t q)
{
	uint8_t f[34] = {0x01, 0x80, 0xc2, 0, 0, 0x01};

	memcpy(f + 6, MAC[port], 6);
	f[12] = 0x88;
	f[13] = 0x08;
	f[14] = 0x01; /* opcode 0x0101 */
	f[15] = 0x01;
	f[17] = 1 << 3; /* class-enable vector: priority 3 */
	f[18 + 2 * 3] = (uint8_t)(q >> 8);
	f[19 + 2 * 3] = (uint8_t)q;
	inject_raw(port, f, sizeof(f), 60);
}

/* Poll dp every us from *t to until; the frames out of port 1 meanwhile. */
static unsigned
poll_until(struct fe_dp *dp, uint64_t *t, uint64_t until)
{
	unsigned n = 0;

	for (; *t < until; *t += 1000) {
		fe_dp_poll(dp, *t);
		n += sent(1);
	}
	return n;
}

/*
 * Under PFC a host's own PFC frame pauses the switch's egress toward it, as 802.1Qbb has
 * a port obey its link partner. Host 1 (its down link 100 Mbit/s) pauses priority 3 for
 * 1000 quanta (512,000 bit times: 5.12 ms there); 10 frames from host 0 wait all of it,
 * then go; a pause ended early by an XON lets them go at once. Lossy, the switch runs no
 * PFC: the same frames pause nothing. Each PFC frame stops at the switch either way.
 */
static void
host_pfc_run(enum fe_regime regime)
{
	struct fe_linkdef ideal = {0}, slow = {.link = {.rate_bps = 100000000, .delay_ns = 2000}};
	struct fe_dp_conf conf = {.regime = regime,
				  .lanes = 1,
				  .pfc = {.xoff = 64 << 10, .xon = 32 << 10, .quanta = 65535}};
	struct fe_dp *dp = engine_regime(&conf, &ideal, &slow);
	const int pfc = regime == FE_REGIME_PFC;
	uint64_t t = 1000;
	unsigned n;

	inject(1, BCAST, 60); /* host 1's address learned */
	poll_until(dp, &t, 100000);
	sent(0);
	sent(2);
	inject_pfc(1, 1000); /* at the switch now: its up link is ideal */
	for (int k = 0; k < 10; k++)
		inject(0, MAC[1], 1000);
	n = poll_until(dp, &t, 100000 + 5000000);
	cr_assert_eq(n, pfc ? 0 : 10, "regime %d: %u frames through a 5.12 ms pause by 5 ms",
		     regime, n);
	n += poll_until(dp, &t, 100000 + 7000000);
	cr_assert_eq(n, 10, "every frame by 7 ms: %u", n);
	if (pfc)
		cr_assert_geq(dp->ports[1].down.l.st.held_ns, 5000000, "held %lu ns",
			      (unsigned long)dp->ports[1].down.l.st.held_ns);
	/* paused again, then an XON 1 ms later: the frames go at once */
	inject_pfc(1, 1000);
	for (int k = 0; k < 10; k++)
		inject(0, MAC[1], 1000);
	n = poll_until(dp, &t, t + 1000000);
	cr_assert_eq(n, pfc ? 0 : 10, "%u frames in the pause's first 1 ms", n);
	inject_pfc(1, 0);
	n += poll_until(dp, &t, t + 1000000); /* 10 x 1,038 bytes at 100 Mbit/s: 0.83 ms */
	cr_assert_eq(n, 10, "every frame 1 ms after the XON: %u", n);
	cr_assert_eq(dp->ports[1].st.host_pfc_xoff, pfc ? 2 : 0);
	cr_assert_eq(dp->ports[1].st.host_pfc_xon, pfc ? 1 : 0);
	cr_assert_eq(dp->sw.reserved[FE_RSVD_PFC], 3, "every PFC frame stopped at the switch");
	cr_assert_eq(sent(0) + sent(2), 0, "none reached another host");
	fe_dp_free(dp);
	cr_assert_eq(rte_mempool_avail_count(pool), pool->size, "every mbuf back");
}

Test(engine, a_hosts_pfc_pauses_its_port_under_pfc)
{
	host_pfc_run(FE_REGIME_PFC);
}

Test(engine, a_hosts_pfc_pauses_nothing_lossy)
{
	host_pfc_run(FE_REGIME_LOSSY);
}

/*
 * Link-level retry on the hosts' links: 20 % random loss on every up link. With llr=on,
 * 300 frames from A all reach B, in the order sent, none dropped, and A's up link counts
 * the sendings again; with llr=off the same seed loses frames (random drops), and only
 * those.
 */
Test(engine, llr_delivers_what_loss_hits_in_order)
{
	struct fe_linkdef up = {.link = {.rate_bps = 1000000000ULL, .delay_ns = 10000},
				.loss = {.kind = FE_LOSS_BERNOULLI, .p = 0.2}},
			  down = {0};

	for (int llr = 1; llr >= 0; llr--) {
		struct rte_mbuf *out[64];
		unsigned got = 0, n;
		uint64_t t = 1000;
		struct fe_dp *dp;

		up.llr = (uint8_t)llr;
		dp = engine_x(&up, &down, 0);
		for (unsigned i = 0; i < 300; i++) {
			inject_seq(0, MAC[1], (uint16_t)i);
			fe_dp_poll(dp, t += 2000);
		}
		for (int k = 0; k < 100; k++)
			fe_dp_poll(dp, t += 100000);
		while ((n = take(1, out, 64)) > 0)
			for (unsigned i = 0; i < n; i++) {
				const uint8_t *b = rte_pktmbuf_mtod(out[i], const uint8_t *);
				unsigned seq = (unsigned)b[14] << 8 | b[15];

				if (llr)
					cr_assert_eq(seq, got, "llr: frame %u arrived as the %u-th",
						     seq, got);
				got++;
				rte_pktmbuf_free(out[i]);
			}
		sent(0), sent(2);
		const struct fe_link_stats *st = &dp->ports[0].up.l.st;
		if (llr) {
			cr_assert_eq(got, 300);
			cr_assert_eq(st->drop_pkts[FE_LINK_DROP_RANDOM], 0);
			cr_assert_eq(st->drop_pkts[FE_LINK_DROP_LLR], 0);
			cr_assert_gt(st->llr_replays, 30, "about 20 %% of 300 sent again: %llu",
				     (unsigned long long)st->llr_replays);
			cr_assert_lt(st->llr_replays, 120);
		} else {
			cr_assert_gt(st->drop_pkts[FE_LINK_DROP_RANDOM], 30);
			cr_assert_eq(got + st->drop_pkts[FE_LINK_DROP_RANDOM], 300);
			cr_assert_eq(st->llr_replays, 0);
		}
		fe_dp_drain(dp);
		fe_dp_free(dp);
	}
}

/* A link whose every sending is hit: link-level retry gives up after FE_LLR_REPLAYS_MAX
 * replays, and the frame is dropped with its own cause, counted. */
Test(engine, llr_gives_up_after_its_replays)
{
	struct fe_linkdef up = {.loss = {.kind = FE_LOSS_BERNOULLI, .p = 1}, .llr = 1}, down = {0};
	struct fe_dp *dp = engine_x(&up, &down, 0);
	uint64_t t = 1000;

	for (unsigned i = 0; i < 10; i++) {
		inject_seq(0, MAC[1], (uint16_t)i);
		fe_dp_poll(dp, t += 2000);
	}
	fe_dp_poll(dp, t += 1000000);
	cr_assert_eq(sent(1) + sent(2), 0);
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_LLR], 10);
	cr_assert_eq(dp->ports[0].up.l.st.drop_pkts[FE_LINK_DROP_RANDOM], 0);
	cr_assert_eq(dp->ports[0].up.l.st.llr_replays, 0);
	fe_dp_drain(dp);
	fe_dp_free(dp);
}

/*
 * Two senders share an output's room by when their frames come, whatever the loop's
 * pass: hosts A and B each offer 0.9 of the line (1 Gbit/s; a 1,500-byte frame every
 * 13.5 us on average, each gap drawn from 7.5 to 19.5 us) to host C, whose down link
 * holds 5 frames; for 20 ms, polled every 2, 10, 30 and 60 us. A pass took the ports'
 * up links by number, and what port 0 delivered took the room before what port 1 did in
 * the same pass: polled every 10 us, A got 1,209 frames to B's 429.
 * Then each pass took them in an order drawn anew (fe_order_draw()); now the down link is
 * also offered what a round brought it in the order of the ticks (fe_egress.h): each
 * gets 44 to 56 % (819 and 819 at 10 us).
 */
Test(engine, two_inputs_share_an_output_whatever_the_pass)
{
	static const uint64_t polls[] = {2000, 10000, 30000, 60000};
	static const int dst[2] = {2, 2};
	struct fe_linkdef a = {.link = {.rate_bps = 1000000000ULL, .delay_ns = 1000}}, d;

	a.link.limit_pkts = 4096;
	d = a;
	d.link.limit_pkts = 5;
	for (int i = 0; i < 4; i++) {
		unsigned avail = rte_mempool_avail_count(pool), got[2];
		struct fe_dp *dp = engine_x(&a, &d, 0);

		two_senders(dp, polls[i], dst, got);
		cr_log_info("polled every %lu us: %u and %u", (unsigned long)polls[i] / 1000,
			    got[0], got[1]);
		cr_assert_gt(got[0] + got[1], 1500, "the down link was kept busy: %u",
			     got[0] + got[1]);
		ring_shares_even(got, "A", "B", polls[i]);
		fe_dp_drain(dp);
		fe_dp_free(dp);
		cr_assert_eq(rte_mempool_avail_count(pool), avail);
	}
}
