/* SPDX-License-Identifier: BSD-3-Clause */
/* Link model over a fake clock: serialization, propagation, tail drop, FIFO order. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fe_credit.h"
#include "fe_link.h"
#include "fe_pfc.h"

#define GBIT 1000000000ULL

struct harness {
	struct fe_link link;
	struct fe_link_slot *slots;
};

static void
setup(struct harness *h, const struct fe_link_params *p, uint64_t hz)
{
	struct fe_link_cfg cfg;

	cr_assert_eq(fe_link_compile(p, hz, &cfg), 0);
	h->slots = calloc(cfg.nslots, sizeof(*h->slots));
	cr_assert_not_null(h->slots);
	fe_link_init(&h->link, &cfg, h->slots);
}

static void
teardown(struct harness *h)
{
	free(h->slots);
}

/* The formula, in integers: floor(wire_bytes * 8 * hz / rate). */
static uint64_t
formula_ticks(uint64_t wire_bytes, uint64_t hz, uint64_t rate)
{
	return (uint64_t)((unsigned __int128)wire_bytes * 8 * hz / rate);
}

Test(wire, sizes)
{
	/* a 64-byte frame is 60 bytes in the buffer + 4 FCS, then preamble+SFD and IFG */
	cr_assert_eq(fe_wire_bytes(60), 84);
	cr_assert_eq(fe_wire_bytes(42), 84, "runts are padded to the minimum frame");
	cr_assert_eq(fe_wire_bytes(1514), 1538);
	cr_assert_eq(fe_wire_bytes(1496), 1520);
}

struct ser_case {
	uint32_t len;  /* frame without FCS */
	uint64_t rate; /* bit/s */
	uint64_t hz;   /* fake TSC */
};

static struct ser_case ser_cases[] = {
	{60, 1 * GBIT, 1000000000},
	{60, 10 * GBIT, 1000000000},
	{1514, 1 * GBIT, 1000000000},
	{1514, 10 * GBIT, 1000000000},
	{60, 1 * GBIT, 2100000000},
	{60, 10 * GBIT, 2100000000},
	{1514, 1 * GBIT, 2100000000},
	{1514, 10 * GBIT, 2100000000},
	{60, 10 * GBIT, 2450000000},
	{1514, 10 * GBIT, 2450000000},
	/* "1500-byte frame" read literally: 1500 bytes with FCS, 1496 in the buffer */
	{1496, 1 * GBIT, 1000000000},
	{1496, 10 * GBIT, 2100000000},
};

ParameterizedTestParameters(link, serialization)
{
	return cr_make_param_array(struct ser_case, ser_cases,
				   sizeof(ser_cases) / sizeof(ser_cases[0]));
}

/* One frame on an idle link arrives after exactly its serialization time. */
ParameterizedTest(struct ser_case *c, link, serialization)
{
	struct fe_link_params p = {.rate_bps = c->rate};
	uint64_t now = 5000, stamp, want = formula_ticks(fe_wire_bytes(c->len), c->hz, c->rate);
	struct harness h;
	void *out;
	int pkt;

	setup(&h, &p, c->hz);
	cr_assert_eq(fe_link_ser_ticks(&h.link.cfg, c->len), want,
		     "len %u rate %llu hz %llu: ser %llu, formula %llu", c->len,
		     (unsigned long long)c->rate, (unsigned long long)c->hz,
		     (unsigned long long)fe_link_ser_ticks(&h.link.cfg, c->len),
		     (unsigned long long)want);
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, c->len, now), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, now + want - 1, &out, &stamp, 1), 0,
		     "len %u: delivered a tick early", c->len);
	cr_assert_eq(fe_link_dequeue(&h.link, now + want, &out, &stamp, 1), 1,
		     "len %u: not delivered on time", c->len);
	cr_assert_eq(stamp, now + want);
	teardown(&h);
}

ParameterizedTestParameters(link, back_to_back_no_drift)
{
	return cr_make_param_array(struct ser_case, ser_cases,
				   sizeof(ser_cases) / sizeof(ser_cases[0]));
}

/* Back to back, fractional ticks accumulate: the n-th frame ends at floor(n * t). */
ParameterizedTest(struct ser_case *c, link, back_to_back_no_drift)
{
	struct fe_link_params p = {.rate_bps = c->rate};
	const unsigned n = 1000;
	uint64_t stamp = 0,
		 want = formula_ticks((uint64_t)n * fe_wire_bytes(c->len), c->hz, c->rate);
	struct harness h;
	void *out;
	int pkt;

	setup(&h, &p, c->hz);
	for (unsigned i = 0; i < n; i++)
		cr_assert_eq(fe_link_enqueue(&h.link, &pkt, c->len, 0), 0);
	for (unsigned i = 0; i < n; i++)
		cr_assert_eq(fe_link_dequeue(&h.link, UINT64_MAX - 1, &out, &stamp, 1), 1);
	/* truncating ticks-per-byte to 2^-32 may lose at most one tick over 1000 frames */
	cr_assert(stamp == want || stamp + 1 == want, "len %u: last stamp %llu, formula %llu",
		  c->len, (unsigned long long)stamp, (unsigned long long)want);
	teardown(&h);
}

Test(link, propagation_delay)
{
	struct fe_link_params p = {.rate_bps = 1 * GBIT, .delay_ns = 100000};
	const uint64_t hz = 1000000000, ser = 672, prop = 100000;
	struct harness h;
	uint64_t stamp;
	void *out;
	int pkt;

	setup(&h, &p, hz);
	cr_assert_eq(h.link.cfg.prop_ticks, prop);
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 60, 10), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, 10 + ser + prop - 1, &out, &stamp, 1), 0);
	cr_assert_eq(h.link.st.wire_pkts, 1, "serialized, on the wire");
	cr_assert_eq(h.link.st.q_pkts, 0, "no longer in the buffer");
	cr_assert_eq(fe_link_dequeue(&h.link, 10 + ser + prop, &out, &stamp, 1), 1);
	cr_assert_eq(stamp, 10 + ser + prop);
	cr_assert_eq(out, &pkt);
	teardown(&h);
}

/*
 * Link-level retry: a frame sent again twice (it was hit, then its first replay was hit)
 * is on the wire three times, each replay starting a link round trip (the NACK's: prop +
 * a minimum frame + prop) after the sending before it ended; it arrives a propagation
 * delay after its last. The frame behind it waits for it: in order, nothing lost.
 */
Test(link, llr_replays_hold_the_frames_behind)
{
	struct fe_link_params p = {.rate_bps = 1 * GBIT, .delay_ns = 100000};
	const uint64_t hz = 1000000000, ser = 672, prop = 100000, nack = 672;
	const uint64_t rtt = 2 * prop + nack, end = 10 + 3 * ser + 2 * rtt;
	struct harness h;
	uint64_t stamp;
	void *out;
	int a, b;

	setup(&h, &p, hz);
	cr_assert_eq(h.link.cfg.llr_ticks, rtt);
	cr_assert_eq(fe_link_enqueue_x(&h.link, &a, 60, 10, fe_link_replays(2, 0), 0), 0);
	cr_assert_eq(fe_link_enqueue_x(&h.link, &b, 60, 10, 0, 0), 0);
	cr_assert_eq(h.link.st.llr_replays, 2);
	cr_assert_eq(fe_link_dequeue(&h.link, end + prop - 1, &out, &stamp, 1), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, end + prop, &out, &stamp, 1), 1);
	cr_assert_eq(out, &a);
	cr_assert_eq(stamp, end + prop);
	cr_assert_eq(fe_link_dequeue(&h.link, UINT64_MAX - 1, &out, &stamp, 1), 1);
	cr_assert_eq(out, &b, "in order");
	cr_assert_eq(stamp, end + ser + prop, "b serialized after a's last sending");
	/* jitter rides along: it delays the arrival, not the serializer */
	cr_assert_eq(fe_link_enqueue_x(&h.link, &a, 60, end + 10000, fe_link_replays(1, 5), 0), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, UINT64_MAX - 1, &out, &stamp, 1), 1);
	cr_assert_eq(stamp, end + 10000 + 2 * ser + rtt + prop + 5);
	cr_assert_eq(h.link.st.llr_replays, 3);
	teardown(&h);
}

Test(link, delay_without_rate)
{
	struct fe_link_params p = {.delay_ns = 1000000};
	struct harness h;
	uint64_t stamp;
	void *out;
	int pkt;

	setup(&h, &p, 3000000000ULL);
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1514, 7), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, 7 + 3000000 - 1, &out, &stamp, 1), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, 7 + 3000000, &out, &stamp, 1), 1);
	teardown(&h);
}

Test(link, tail_drop_at_packet_limit)
{
	struct fe_link_params p = {.rate_bps = 1000000, .limit_pkts = 10};
	struct harness h;
	int pkt;

	setup(&h, &p, 1000000000);
	for (unsigned i = 0; i < 10; i++)
		cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1000, 0), 0, "packet %u of 10", i);
	for (unsigned i = 0; i < 5; i++)
		cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1000, 0), -ENOBUFS);
	cr_assert_eq(h.link.st.drop_pkts[FE_LINK_DROP_TAIL], 5);
	cr_assert_eq(h.link.st.drop_bytes[FE_LINK_DROP_TAIL], 5000);
	cr_assert_eq(h.link.st.q_pkts_peak, 0, "not published by enqueues");
	fe_link_publish(&h.link);
	cr_assert_eq(h.link.st.q_pkts_peak, 10);
	/* once the first frame is serialized, exactly one more fits */
	uint64_t t1 = fe_link_ser_ticks(&h.link.cfg, 1000);
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1000, t1 - 1), -ENOBUFS);
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1000, t1), 0);
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1000, t1), -ENOBUFS);
	teardown(&h);
}

Test(link, tail_drop_at_byte_limit)
{
	struct fe_link_params p = {.rate_bps = 1000000, .limit_bytes = 3000};
	struct harness h;
	int pkt;

	setup(&h, &p, 1000000000);
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1000, 0), 0);
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1000, 0), 0);
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1000, 0), 0, "3000 bytes fit exactly");
	cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1, 0), -ENOBUFS, "one byte more does not");
	cr_assert_eq(fe_link_dequeue(&h.link, 0, NULL, NULL, 0), 0, "a poll publishes");
	cr_assert_eq(h.link.st.q_bytes, 3000);
	cr_assert_eq(h.link.st.q_bytes_peak, 3000);
	teardown(&h);
}

Test(link, fifo_order_and_conservation)
{
	struct fe_link_params p = {.rate_bps = 10 * GBIT, .delay_ns = 5000, .limit_pkts = 64};
	int tags[5000];
	uint64_t now = 0, last = 0, delivered = 0, next_tag = 0;
	struct harness h;

	srand(42);
	setup(&h, &p, 2450000000ULL);
	for (unsigned i = 0; i < 5000; i++) {
		void *out[8];
		uint64_t stamps[8];
		unsigned n;

		now += (uint64_t)(rand() % 400);
		tags[i] = (int)i;
		fe_link_enqueue(&h.link, &tags[i], 60 + (uint32_t)(rand() % 1455), now);
		n = fe_link_dequeue(&h.link, now, out, stamps, 8);
		for (unsigned k = 0; k < n; k++) {
			int tag = *(int *)out[k];

			cr_assert_geq((uint64_t)tag, next_tag, "packet %d after %llu", tag,
				      (unsigned long long)next_tag);
			next_tag = (uint64_t)tag + 1;
			cr_assert_geq(stamps[k], last, "arrival stamps went backwards");
			cr_assert_leq(stamps[k], now);
			last = stamps[k];
		}
		delivered += n;
		const struct fe_link_stats *s = &h.link.st;
		cr_assert_eq(s->in_pkts,
			     s->out_pkts + s->drop_pkts[FE_LINK_DROP_TAIL] +
				     s->drop_pkts[FE_LINK_DROP_WIRE] + s->q_pkts + s->wire_pkts,
			     "conservation: in = out + dropped + queued + on the wire");
	}
	cr_assert_gt(h.link.st.drop_pkts[FE_LINK_DROP_TAIL], 0, "the test must overload the link");
	cr_assert_gt(delivered, 300);
	teardown(&h);
}

Test(link, slots_cover_buffer_and_wire)
{
	/* 10 Gbit/s and 1 ms hold 14881 minimum frames on the wire, plus the buffer */
	struct fe_link_params p = {.rate_bps = 10 * GBIT, .delay_ns = 1000000, .limit_pkts = 1000};
	struct fe_link_cfg cfg;

	cr_assert_eq(fe_link_compile(&p, 2450000000ULL, &cfg), 0);
	cr_assert_geq(cfg.nslots, 14881 + 1000);
	cr_assert_eq(cfg.nslots & (cfg.nslots - 1), 0, "power of two");
}

Test(link, flush_returns_everything)
{
	struct fe_link_params p = {.rate_bps = 1000000, .delay_ns = 1000};
	int tags[20];
	void *out[8];
	unsigned n, total = 0;
	struct harness h;

	setup(&h, &p, 1000000000);
	for (unsigned i = 0; i < 20; i++)
		fe_link_enqueue(&h.link, &tags[i], 100, 0);
	while ((n = fe_link_flush(&h.link, out, 8)) > 0) {
		for (unsigned k = 0; k < n; k++)
			cr_assert_eq(out[k], &tags[total + k]);
		total += n;
	}
	cr_assert_eq(total, 20);
	cr_assert_eq(fe_link_count(&h.link), 0);
	cr_assert_eq(h.link.st.q_pkts, 0);
	cr_assert_eq(h.link.st.wire_pkts, 0);
	teardown(&h);
}

/* Criterion copies parameters into the test process: arrays, not pointers. */
struct bad_case {
	struct fe_link_params p;
	char what[16];
};

static struct bad_case bad_cases[] = {
	{{.rate_bps = 999}, "rate"},
	{{.rate_bps = 1000000000001ULL}, "rate"},
	{{.delay_ns = 10000000001ULL}, "delay"},
	{{.limit_bytes = (1ULL << 32) + 1}, "buffer"},
	{{.limit_pkts = (1U << 20) + 1}, "buffer-pkts"},
};

ParameterizedTestParameters(link, params_out_of_range)
{
	return cr_make_param_array(struct bad_case, bad_cases,
				   sizeof(bad_cases) / sizeof(bad_cases[0]));
}

ParameterizedTest(struct bad_case *c, link, params_out_of_range)
{
	struct fe_link_cfg cfg;
	const char *what = NULL;

	cr_assert_eq(fe_link_params_check(&c->p, &what), -EINVAL);
	cr_assert_eq(strncmp(what, c->what, strlen(c->what)), 0, "expected '%s', got '%s'", c->what,
		     what);
	cr_assert_eq(fe_link_compile(&c->p, 1000000000, &cfg), -EINVAL);
}

Test(link, histograms)
{
	/* 10 frames of 1000 bytes offered at once to a 1 Mbit/s link: the k-th sees k in
	 * the buffer and waits (k + 1) x 8192 us to be serialized */
	struct fe_link_params p = {.rate_bps = 1000000};
	const fe_counter_t *q, *s;
	struct harness h;
	int pkt;

	setup(&h, &p, 1000000000);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(fe_link_enqueue(&h.link, &pkt, 1000, 0), 0);
	q = h.link.st.qdepth_hist;
	s = h.link.st.sojourn_hist;
	cr_assert_eq(q[0], 1, "depth 0");
	cr_assert_eq(q[1], 1, "depth 1");
	cr_assert_eq(q[2], 2, "depths 2-3");
	cr_assert_eq(q[3], 4, "depths 4-7");
	cr_assert_eq(q[4], 2, "depths 8-9");
	/* k x 8.192 ms: 8.192 in [2^22, 2^23) ns, 16.384 in [2^23, 2^24), 24.576 and 32.768
	 * in [2^24, 2^25), 40.96 .. 65.536 in [2^25, 2^26), 73.728 and 81.92 above */
	cr_assert_eq(s[23], 1, "8.192 ms");
	cr_assert_eq(s[24], 1, "16.384 ms");
	cr_assert_eq(s[25], 2, "24.576 and 32.768 ms");
	cr_assert_eq(s[26], 4, "40.96 .. 65.536 ms");
	cr_assert_eq(s[27], 2, "73.728 and 81.92 ms");
	cr_assert_eq(fe_hist_bucket(0), 0);
	cr_assert_eq(fe_hist_bucket(1), 1);
	/* every bucket's edges: i for [2^(i-1), 2^i), to the last, [2^62, 2^63) */
	for (unsigned i = 1; i < FE_HIST_BUCKETS; i++) {
		cr_assert_eq(fe_hist_bucket(UINT64_C(1) << (i - 1)), i, "2^%u", i - 1);
		cr_assert_eq(fe_hist_bucket((UINT64_C(1) << i) - 1), i, "2^%u - 1", i);
	}
	cr_assert_eq(fe_hist_bucket(UINT64_C(1) << 31), 32);
	cr_assert_eq(fe_hist_bucket((UINT64_C(1) << 63) - 1), FE_HIST_BUCKETS - 1);
	teardown(&h);
}

/*
 * A PFC watchdog that ignores the pause (action forward) ends a hold: what waits behind
 * it is serialized again from then, in order; the frame on the serializer when the hold
 * began keeps its time, and held_ns loses what was not held.
 */
Test(link, release_ends_a_hold)
{
	struct fe_link_params p = {.rate_bps = 1000000000, .delay_ns = 1000};
	void *pkts[4], *a = (void *)1, *b = (void *)2, *c = (void *)3;
	uint64_t stamps[4];
	struct harness h;

	setup(&h, &p, 1000000000);
	cr_assert_eq(fe_link_enqueue(&h.link, a, 60, 0), 0);   /* 0 to 672, arrives 1672 */
	fe_link_hold(&h.link, 100, 100000);		       /* from 672 */
	cr_assert_eq(fe_link_enqueue(&h.link, b, 60, 200), 0); /* would start at 100000 */
	cr_assert_eq(fe_link_enqueue(&h.link, c, 60, 300), 0);
	cr_assert_eq(fe_link_release(&h.link, 5000), 2, "b and c serialized again");
	cr_assert_eq(h.link.st.held_ns, 5000 - 672, "held from 672 to 5000 only");
	cr_assert_eq(fe_link_dequeue(&h.link, 1672, pkts, stamps, 4), 1);
	cr_assert(pkts[0] == a && stamps[0] == 1672, "a keeps its time");
	cr_assert_eq(fe_link_dequeue(&h.link, 5000 + 672 + 999, pkts, stamps, 4), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, 5000 + 2 * 672 + 1000, pkts, stamps, 4), 2);
	cr_assert(pkts[0] == b && stamps[0] == 5000 + 672 + 1000, "b from the release");
	cr_assert(pkts[1] == c && stamps[1] == 5000 + 2 * 672 + 1000, "c behind b");
	cr_assert_eq(fe_link_release(&h.link, 9000), 0, "no hold left");
	teardown(&h);
}

/* Action drop: what has not started goes (counted), the frame on the serializer stays,
 * and the hold goes on for what comes next. */
Test(link, discard_unstarted_keeps_the_hold)
{
	struct fe_link_params p = {.rate_bps = 1000000000};
	void *pkts[4], *a = (void *)1, *b = (void *)2, *c = (void *)3, *d = (void *)4;
	uint64_t stamps[4];
	struct harness h;

	setup(&h, &p, 1000000000);
	cr_assert_eq(fe_link_enqueue(&h.link, a, 60, 0), 0);
	fe_link_hold(&h.link, 100, 100000);
	cr_assert_eq(fe_link_enqueue(&h.link, b, 60, 200), 0);
	cr_assert_eq(fe_link_enqueue(&h.link, c, 60, 300), 0);
	cr_assert_eq(fe_link_discard_unstarted(&h.link, 500, FE_LINK_DROP_WATCHDOG, pkts, 4), 2);
	cr_assert(pkts[0] == c && pkts[1] == b, "from the tail");
	cr_assert_eq(h.link.st.drop_pkts[FE_LINK_DROP_WATCHDOG], 2);
	cr_assert_eq(h.link.q_pkts, 1, "a is on the serializer");
	cr_assert_eq(fe_link_enqueue(&h.link, d, 60, 600), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, 672, pkts, stamps, 4), 1);
	cr_assert(pkts[0] == a && stamps[0] == 672, "a keeps its time");
	cr_assert_eq(fe_link_dequeue(&h.link, 100000 + 671, pkts, stamps, 4), 0, "still held");
	cr_assert_eq(fe_link_dequeue(&h.link, 100000 + 672, pkts, stamps, 4), 1);
	cr_assert(pkts[0] == d, "d after the hold");
	teardown(&h);
}

Test(link, hold_delays_the_next_packet_only)
{
	/* 1 Gbit/s, 1 tick = 1 ns: a 60-byte frame serializes in 672 ns */
	struct fe_link_params p = {.rate_bps = 1000000000};
	void *pkts[4], *a = (void *)1, *b = (void *)2;
	uint64_t stamps[4];
	struct harness h;

	setup(&h, &p, 1000000000);
	cr_assert_eq(fe_link_enqueue(&h.link, a, 60, 0), 0); /* ends at 672 */
	fe_link_hold(&h.link, 100, 5100);		     /* from 672 to 5100 */
	cr_assert_eq(h.link.st.held_ns, 5100 - 672);
	cr_assert_eq(fe_link_enqueue(&h.link, b, 60, 200), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, 672, pkts, stamps, 4), 1, "a keeps its time");
	cr_assert_eq(stamps[0], 672);
	cr_assert_eq(fe_link_dequeue(&h.link, 5100 + 671, pkts, stamps, 4), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, 5100 + 672, pkts, stamps, 4), 1, "b after the hold");
	fe_link_hold(&h.link, 9000, 8000); /* in the past: nothing */
	cr_assert_eq(h.link.st.held_ns, 5100 - 672);
	teardown(&h);
}

/* An ideal link (no rate, no delay) passes frames through, but not while held (a pause
 * storm on it): what it is offered then waits for the hold's end; once it is empty after
 * the hold it passes frames through again. */
Test(link, an_ideal_link_held_keeps_its_frames)
{
	struct fe_link_params p = {0};
	void *pkts[4], *a = (void *)1;
	uint64_t stamps[4];
	struct harness h;

	setup(&h, &p, 1000000000);
	cr_assert(fe_link_passthru(&h.link), "ideal and empty");
	fe_link_hold(&h.link, 100, 5000);
	cr_assert(!fe_link_passthru(&h.link), "held: no pass-through");
	cr_assert_eq(fe_link_enqueue(&h.link, a, 60, 200), 0);
	cr_assert_eq(fe_link_dequeue(&h.link, 4999, pkts, stamps, 4), 0, "waits for the hold");
	cr_assert_eq(fe_link_dequeue(&h.link, 5000, pkts, stamps, 4), 1);
	cr_assert_eq(stamps[0], 5000);
	cr_assert(!fe_link_passthru(&h.link), "not until a dequeue finds it empty");
	cr_assert_eq(fe_link_dequeue(&h.link, 5001, pkts, stamps, 4), 0);
	cr_assert(fe_link_passthru(&h.link), "passes through again");
	teardown(&h);
}

/*
 * A pool whose links are advanced lazily: a packet that finds it full first makes the
 * packets of the other links that had left by its tick leave it, in the order they left,
 * and only as many as it needs; the tick the last of them left is when the pool had room
 * (fe_link_has_room_at()). One that does not fit even so is dropped for the pool, all
 * that had left gone. A link that joins another pool leaves the first.
 */
Test(link, pool_seen_full_frees_what_left_first)
{
	const struct fe_link_params p = {.rate_bps = 1 * GBIT, .delay_ns = 10000};
	struct harness x, y, z;
	struct fe_link_pool pool = {.limit = 3000}, other = {0};
	uint64_t at = 0, x1, x2, y1;
	int pkt[8];

	setup(&x, &p, 1000000000);
	setup(&y, &p, 1000000000);
	setup(&z, &p, 1000000000);
	fe_link_pool_join(&x.link, &pool);
	fe_link_pool_join(&y.link, &pool);
	fe_link_pool_join(&z.link, &pool);
	cr_assert_eq(fe_link_enqueue(&x.link, &pkt[0], 1000, 1000), 0);
	cr_assert_eq(fe_link_enqueue(&x.link, &pkt[1], 1000, 1000), 0);
	cr_assert_eq(fe_link_enqueue(&y.link, &pkt[2], 800, 1000), 0);
	x1 = x.slots[0].tx_end;
	x2 = x.slots[1].tx_end;
	y1 = y.slots[0].tx_end;
	cr_assert(y1 < x1 && x1 < 10000 && x2 > 10000,
		  "y's frame leaves first, x's second after 10 us");
	cr_assert_eq(pool.used, 2800);

	/* 1000 bytes at 10 us: y's 800 are enough, x's first stays counted */
	cr_assert(fe_link_has_room_at(&z.link, 1000, 10000, &at), "room once y's frame left");
	cr_assert_eq(at, y1, "the pool had room from y's leaving");
	cr_assert_eq(pool.used, 2000);
	cr_assert(y.link.svc == 1 && x.link.svc == 0, "only y's frame left the pool");
	cr_assert_eq(y.link.last_leave, y1);
	cr_assert_eq(fe_link_enqueue(&z.link, &pkt[3], 1000, 10000), 0);

	/* 1000 more: x's first frame leaves it, at its tick */
	at = 0;
	cr_assert(fe_link_has_room_at(&z.link, 1000, 10000, &at));
	cr_assert_eq(at, x1);
	cr_assert(x.link.svc == 1 && pool.used == 2000);
	cr_assert_eq(fe_link_enqueue(&z.link, &pkt[4], 1000, 10000), 0);

	/* none of the rest had left by 10 us: dropped for the pool, nothing freed */
	at = 0;
	cr_assert_not(fe_link_has_room_at(&z.link, 60, 10000, &at));
	cr_assert(at == 0 && pool.used == 3000 && x.link.svc == 1);
	cr_assert_eq(fe_link_enqueue(&z.link, &pkt[5], 60, 10000), -ENOBUFS);
	cr_assert_eq(z.link.last_drop, FE_LINK_DROP_POOL);

	/* at x's second leaving, its 1000 bytes go: a frame of 1000 at that tick fits */
	cr_assert_eq(fe_link_enqueue(&y.link, &pkt[6], 1000, x2), 0, "room at x's second leave");
	cr_assert(x.link.svc == 2 && pool.used == 3000);

	/* a gated link's packet not yet started (its gate shut) stays, however old; started,
	 * it leaves at its tick, its bytes off its account; a free that frees some and
	 * still fails raises *at to the last it freed */
	{
		struct harness a, g, c;
		struct fe_link_pool p2 = {.limit = 2000};
		fe_counter_t acct[4] = {0};
		uint64_t a1, a2, g1;

		setup(&a, &p, 1000000000);
		setup(&g, &p, 1000000000);
		setup(&c, &p, 1000000000);
		g.link.gated = 1;
		g.link.acct = acct;
		fe_link_pool_join(&a.link, &p2);
		fe_link_pool_join(&g.link, &p2);
		fe_link_pool_join(&c.link, &p2);
		cr_assert_eq(fe_link_enqueue(&a.link, &pkt[0], 1000, 1000), 0);
		cr_assert_eq(fe_link_enqueue(&a.link, &pkt[1], 500, 1000), 0);
		cr_assert_eq(fe_link_enqueue_x(&g.link, &pkt[2], 400, 1000, 0, FE_LABEL(2, 0)), 0);
		a1 = a.slots[0].tx_end;
		a2 = a.slots[1].tx_end;
		cr_assert(p2.used == 1900 && acct[2] == 400 && a2 < 20000);
		at = 0;
		cr_assert(fe_link_has_room_at(&c.link, 900, 20000, &at));
		cr_assert(at == a1 && a.link.svc == 1 && p2.used == 900, "a's first is enough");
		at = 0;
		cr_assert_not(fe_link_has_room_at(&c.link, 1700, 20000, &at),
			      "g's frame never started: it holds its bytes");
		cr_assert(at == a2 && a.link.svc == 2 && p2.used == 400,
			  "a's second freed all the same, *at raised to it");
		cr_assert(g.link.svc == 0 && acct[2] == 400);
		cr_assert_eq(fe_link_pump(&g.link, 20000, NULL, NULL), 1, "g starts");
		g1 = g.slots[0].tx_end;
		at = 0;
		cr_assert_not(fe_link_has_room_at(&c.link, 1700, g1 - 1, &at), "not yet");
		cr_assert(fe_link_has_room_at(&c.link, 1700, g1, &at));
		cr_assert(at == g1 && g.link.svc == 1 && acct[2] == 0,
			  "g's frame left, its account follows");
		teardown(&a);
		teardown(&g);
		teardown(&c);
	}

	/* x joins another pool: this one's frees pass it by */
	fe_link_pool_join(&x.link, &other);
	cr_assert(x.link.pool == &other && other.links == &x.link && x.link.pool_next == NULL);
	for (const struct fe_link *l = pool.links; l != NULL; l = l->pool_next)
		cr_assert_neq(l, &x.link, "x left the first pool");
	teardown(&x);
	teardown(&y);
	teardown(&z);
}

/*
 * fe_link_enqueue_burst() against fe_link_enqueue_x() one packet at a time, on twin links
 * each sharing a switch's pool with a second link that takes frames of its own: every
 * counter, slot, peak, byte per account and delivery the same, through tail, pool and
 * wire drops, eager or gated (its gate opened now and then: fe_link_pump()), and the case
 * it leaves to one packet at a time (a pool over its limit).
 */
/* the twins' credit loops (credits: 24 blocks a lane, 8 lanes, 2 us back) */
#define TWIN_BLOCKS 24
#define TWIN_RING   256

struct twin {
	struct fe_link one, burst, one_other, burst_other;
	struct fe_link_pool pool_one, pool_burst;
	fe_counter_t acct_one[64], acct_burst[64];
	struct fe_credit cred_one, cred_burst;
	struct fe_credit_ret ring_one[TWIN_RING], ring_burst[TWIN_RING];
};

/* The twins' credit loops the same: what they hold, and every return pending, in order */
static void
twin_credit_same(const struct twin *t, const char *when, unsigned step)
{
	const struct fe_credit *a = &t->cred_one, *b = &t->cred_burst;

	cr_assert(!memcmp(a->avail, b->avail, sizeof(a->avail)) &&
			  !memcmp(a->avail_min, b->avail_min, sizeof(a->avail_min)) &&
			  !memcmp(a->stall_ticks, b->stall_ticks, sizeof(a->stall_ticks)) &&
			  a->last_at == b->last_at && a->tail - a->head == b->tail - b->head,
		  "%s %u: credits", when, step);
	for (uint32_t i = 0; i != a->tail - a->head; i++) {
		const struct fe_credit_ret *x = &a->ring[(a->head + i) & a->mask],
					   *y = &b->ring[(b->head + i) & b->mask];

		cr_assert(x->at == y->at && x->blocks == y->blocks && x->lane == y->lane,
			  "%s %u: return %u", when, step, i);
	}
}

static void
twin_same(const struct twin *t, const char *when, unsigned step)
{
	const struct fe_link *a = &t->one, *b = &t->burst;

	cr_assert_eq(memcmp(&a->st, &b->st, sizeof(a->st)), 0, "%s %u: counters", when, step);
	cr_assert_eq(memcmp(&t->one_other.st, &t->burst_other.st, sizeof(a->st)), 0,
		     "%s %u: the other link's counters", when, step);
	/* what the pool seen full made leave the other link (fe_link_pool_free()) */
	cr_assert(t->one_other.svc == t->burst_other.svc &&
			  t->one_other.q_bytes == t->burst_other.q_bytes &&
			  t->one_other.last_leave == t->burst_other.last_leave,
		  "%s %u: the other link's buffer", when, step);
	cr_assert(a->head == b->head && a->svc == b->svc && a->sched == b->sched &&
			  a->tail == b->tail,
		  "%s %u: ring %u %u %u %u against %u %u %u %u", when, step, a->head, a->svc,
		  a->sched, a->tail, b->head, b->svc, b->sched, b->tail);
	cr_assert(a->q_pkts == b->q_pkts && a->q_bytes == b->q_bytes, "%s %u: occupancy", when,
		  step);
	cr_assert(a->peak_pkts == b->peak_pkts && a->peak_bytes == b->peak_bytes,
		  "%s %u: peaks %u %llu against %u %llu", when, step, a->peak_pkts,
		  (unsigned long long)a->peak_bytes, b->peak_pkts,
		  (unsigned long long)b->peak_bytes);
	cr_assert(a->busy_until == b->busy_until && a->busy_frac == b->busy_frac &&
			  a->last_arrive == b->last_arrive && a->last_leave == b->last_leave,
		  "%s %u: serializer", when, step);
	cr_assert_eq(a->last_drop, b->last_drop, "%s %u: last drop", when, step);
	cr_assert(t->pool_one.used == t->pool_burst.used && t->pool_one.peak == t->pool_burst.peak,
		  "%s %u: pool %llu/%llu against %llu/%llu", when, step,
		  (unsigned long long)t->pool_one.used, (unsigned long long)t->pool_one.peak,
		  (unsigned long long)t->pool_burst.used, (unsigned long long)t->pool_burst.peak);
	cr_assert_eq(memcmp(t->acct_one, t->acct_burst, sizeof(t->acct_one)), 0, "%s %u: accounts",
		     when, step);
	for (uint32_t i = a->head; i != a->tail; i++) {
		const struct fe_link_slot *x = &a->slots[i & a->mask], *y = &b->slots[i & b->mask];

		cr_assert(x->pkt == y->pkt && x->tx_end == y->tx_end && x->arrive == y->arrive &&
				  x->len == y->len && x->label == y->label,
			  "%s %u: slot %u", when, step, i);
	}
	twin_credit_same(t, when, step);
}

/* o, not offered by the burst (o->why unwritten), offered to both twins one at a time:
 * the same taken */
static void
twin_offer(struct twin *t, const struct fe_link_offer *o, uint64_t *drops, unsigned step)
{
	int r = fe_link_enqueue_x(&t->one, o->pkt, o->len, o->at, 0, o->label);

	cr_assert_eq(o->why, 0x55, "step %u: an offer not taken written", step);
	cr_assert_eq(fe_link_enqueue_x(&t->burst, o->pkt, o->len, o->at, 0, o->label), r,
		     "step %u: the rest, one at a time", step);
	if (r < 0)
		drops[t->one.last_drop]++;
}

/* packets the twins' one-at-a-time link started at once (fe_link_start_open()); open
 * bursts with accounts whose link held only their account's packets and whose window
 * shut at none of their ticks (its copy that takes their bytes left at its end), and
 * the others */
static unsigned twin_opened, twin_one_account, twin_accounts;
/* packets a watchdog dropped while they waited (fe_link_discard_waiting()) */
static unsigned twin_discarded;
/* ticks between a burst's offers, at least (0: many at one tick) */
static uint64_t twin_gap;

/*
 * max_q 0: fe_link_enqueue_burst(); with open (a gated link), fe_link_enqueue_burst_open()
 * in a window drawn for each burst, against fe_link_start_open() after each packet taken.
 * Else fe_link_enqueue_while_room(l, o, n, max_q), on
 * a gated link, against its test (room, and fewer than max_q packets) and
 * fe_link_enqueue_x() one packet at a time: the same taken, the first without room
 * stopping it (*stops counts those offers); with open, given the twins' credit loops,
 * against fe_link_pump_inline() through them to each packet's tick
 * after it is taken, up to the first offered while one waits (the links pumped through
 * their loops, which get returns as time passes). Returns how many offers the link took
 * whole (fe_link_burst_whole(), fe_link_gated_whole()), not one at a time.
 */
static unsigned
twin_run(const struct fe_link_params *p, uint32_t nslots, uint64_t pool_limit, int acct, int gated,
	 uint32_t max_q, unsigned seed, uint64_t *drops, unsigned *stops, int open)
{
	static int tags[4096];
	struct fe_link_cfg cfg, cfg_other;
	struct twin *t = calloc(1, sizeof(*t));
	struct fe_link_slot *s[4];
	uint64_t now = 1000;
	unsigned whole = 0, account = 0;

	cr_assert_not_null(t);
	cr_assert_eq(fe_link_compile(p, 1000000000, &cfg), 0);
	cr_assert_eq(fe_link_compile(p, 1000000000, &cfg_other), 0);
	if (nslots != 0)
		cfg.nslots = nslots; /* fewer slots than the buffer: wire drops */
	for (int i = 0; i < 4; i++)
		cr_assert_not_null(s[i] = calloc(i < 2 ? cfg.nslots : cfg_other.nslots,
						 sizeof(struct fe_link_slot)));
	fe_link_init(&t->one, &cfg, s[0]);
	fe_link_init(&t->burst, &cfg, s[1]);
	fe_link_init(&t->one_other, &cfg_other, s[2]);
	fe_link_init(&t->burst_other, &cfg_other, s[3]);
	t->one.gated = t->burst.gated = (uint8_t)gated;
	t->pool_one.limit = t->pool_burst.limit = pool_limit;
	fe_link_pool_join(&t->one, &t->pool_one);
	fe_link_pool_join(&t->one_other, &t->pool_one);
	fe_link_pool_join(&t->burst, &t->pool_burst);
	fe_link_pool_join(&t->burst_other, &t->pool_burst);
	if (acct) {
		t->one.acct = t->acct_one;
		t->burst.acct = t->acct_burst;
	}
	cr_assert_geq(TWIN_RING, fe_credit_ring_size(TWIN_BLOCKS, 8));
	fe_credit_init(&t->cred_one, TWIN_BLOCKS, 0, 8, 2000, t->ring_one);
	fe_credit_init(&t->cred_burst, TWIN_BLOCKS, 0, 8, 2000, t->ring_burst);
	srand(seed);
	for (unsigned step = 0; step < 3000; step++) {
		int op = rand() % 10;

		if (gated && op == 5 && open && max_q != 0) { /* what the credits let start */
			cr_assert_eq(fe_link_pump_inline(&t->one, now, fe_credit_gate_inline,
							 &t->cred_one),
				     fe_link_pump_inline(&t->burst, now, fe_credit_gate_inline,
							 &t->cred_burst),
				     "step %u: pumped", step);
		} else if (gated && op == 5 && open && acct && rand() % 4 == 0) {
			void *pk[2][64]; /* a watchdog drops what waits (PFC's links between
					    switches) */
			unsigned a =
				fe_link_discard_waiting(&t->one, FE_LINK_DROP_WATCHDOG, pk[0], 64);

			cr_assert_eq(fe_link_discard_waiting(&t->burst, FE_LINK_DROP_WATCHDOG,
							     pk[1], 64),
				     a, "step %u: discarded", step);
			cr_assert_eq(memcmp(pk[0], pk[1], a * sizeof(void *)), 0);
			twin_discarded += a;
		} else if (gated && op == 5) { /* the gate opens: what waits starts */
			cr_assert_eq(fe_link_pump(&t->one, now, NULL, NULL),
				     fe_link_pump(&t->burst, now, NULL, NULL), "step %u: pumped",
				     step);
		} else if (op < 6) { /* a burst: one at a time on one twin, at once on the other */
			struct fe_link_offer o[32];
			unsigned n = 1 + (unsigned)(rand() % 32), nd = 0, nd_open = 0, got, k;
			uint8_t why[32];
			/* the window the gate is shut in: none, always, about the burst's ticks */
			uint64_t from = 0, until = 0;

			switch (rand() % 7) {
			case 1:
				until = UINT64_MAX;
				break;
			case 2:
				from = now + (uint64_t)(rand() % 20000);
				until = from + (uint64_t)(rand() % 20000);
				break;
			case 3:
				from = now + (uint64_t)(rand() % 20000);
				until = UINT64_MAX;
				break;
			case 4: /* ending at the first offer's tick, often: open from it */
				from = now / 2;
				until = now;
				break;
			case 5: /* beginning at it: shut from it */
				from = now;
				until = now + 1 + (uint64_t)(rand() % 20000);
				break;
			case 6: /* ending a tick after it: still shut at it */
				from = now / 2;
				until = now + 1;
				break;
			}

			/* open: the first offer often a tick before, at or after the one the
			 * serializer is free at (busy_until: it starts at once from it on) */
			if (open && rand() % 3 == 0 && t->one.busy_until > now)
				now = t->one.busy_until - 1 + (uint64_t)(rand() % 3);
			if (twin_gap != 0) { /* a link no pause reaches, its serializer free */
				from = until = 0;
				now = t->one.busy_until > now ? t->one.busy_until : now;
			}
			/* with accounts, a burst's offers share one (fe_link_enqueue_burst()):
			 * often the last burst's, else one of 4 */
			const unsigned draw = (unsigned)(rand() % 1024);

			account = draw < 192 ? draw % 4 : account;

			for (unsigned i = 0; i < n; i++) {
				now += (uint64_t)(rand() % 3 == 0 && i > 0 ? rand() % 2000 : 0) +
				       (i > 0 ? twin_gap : 0);
				o[i] = (struct fe_link_offer){
					.pkt = &tags[rand() % 4096],
					.at = now,
					.len = 60 + (uint32_t)(rand() % 1455),
					.label = FE_LABEL(acct ? account : (unsigned)(rand() % 64),
							  rand() % 8),
					.why = 0x55};
			}
			if (max_q != 0) { /* while there is room */
				for (k = 0; k < n; k++) {
					if (open && t->one.sched != t->one.tail)
						break; /* a packet waits */
					if (!fe_link_has_room(&t->one, o[k].len, o[k].at) ||
					    t->one.q_pkts >= max_q)
						break;
					cr_assert_eq(fe_link_enqueue_x(&t->one, o[k].pkt, o[k].len,
								       o[k].at, 0, o[k].label),
						     0);
					if (open)
						twin_opened += fe_link_pump_inline(
							&t->one, o[k].at, fe_credit_gate_inline,
							&t->cred_one);
				}
				*stops += k < n;
				whole += (unsigned)fe_link_gated_whole(&t->burst);
				got = fe_link_enqueue_while_room(&t->burst, o, n, max_q,
								 open ? &t->cred_burst : NULL);
				cr_assert_eq(got, k, "step %u: %u taken at once, %u one at a time",
					     step, got, k);
				for (unsigned i = 0; i < n; i++)
					cr_assert_eq(o[i].why, 0x55, "step %u: offer %u written",
						     step, i);
				goto same;
			}
			for (k = 0; k < n; k++) {
				why[k] = FE_LINK_DROP__MAX;
				if (open && t->one.sched != t->one.tail)
					break; /* a packet waits: the rest one at a time, below */
				if (fe_link_enqueue_x(&t->one, o[k].pkt, o[k].len, o[k].at, 0,
						      o[k].label) < 0) {
					drops[t->one.last_drop]++;
					why[k] = t->one.last_drop;
					nd++;
				} else if (open) {
					twin_opened +=
						(unsigned)fe_link_start_open(&t->one, from, until);
				}
			}
			whole += (unsigned)fe_link_burst_whole(&t->burst);
			if (open && acct && fe_link_burst_whole(&t->burst)) {
				const struct fe_link *b = &t->burst;

				if (b->acct_id == account && b->tail == b->acct_to &&
				    (int32_t)(b->svc - b->acct_from) >= 0 &&
				    (until <= o[0].at || from > o[n - 1].at || until <= from))
					twin_one_account++;
				else
					twin_accounts++;
			}
			if (open) {
				got = fe_link_enqueue_burst_open(&t->burst, o, n, from, until,
								 &nd_open);
				cr_assert_eq(nd_open, nd, "step %u: the same dropped", step);
				cr_assert_eq(got, k,
					     "step %u: %u offered at once, %u one at a time", step,
					     got, k);
				for (unsigned i = k; i < n; i++) { /* the same, one at a time */
					twin_offer(t, &o[i], drops, step);
					why[i] = o[i].why;
				}
				*stops += k < n;
			} else {
				got = fe_link_enqueue_burst(&t->burst, o, n);
				cr_assert_eq(got, nd,
					     "step %u: %u dropped at once, %u one at a time", step,
					     got, nd);
			}
			for (unsigned i = 0; i < n; i++) /* the same dropped, for the same cause */
				cr_assert_eq(o[i].why, why[i], "step %u: offer %u", step, i);
		} else if (op < 8) { /* the other link of the pool takes one */
			uint32_t len = 60 + (uint32_t)(rand() % 1455);
			void *pkt = &tags[rand() % 4096];

			fe_link_enqueue(&t->one_other, pkt, len, now);
			fe_link_enqueue(&t->burst_other, pkt, len, now);
		} else { /* time passes; all four deliver */
			struct fe_link *l[4] = {&t->one, &t->burst, &t->one_other, &t->burst_other};
			void *pk[2][64];
			uint64_t st[2][64];

			now += (uint64_t)(rand() % 20000);
			/* blocks back to both loops (their ring never full), from a tick up to
			 * 5 us ago: due 2 us later, some by now, some not */
			for (int r = rand() % 6;
			     r > 0 && t->cred_one.tail - t->cred_one.head < TWIN_RING / 2; r--) {
				const uint8_t lane = (uint8_t)(rand() % 8);
				const uint32_t b = 1 + (uint32_t)(rand() % 12);
				const uint64_t at = now - (uint64_t)(rand() % 5000);

				fe_credit_return(&t->cred_one, lane, b, at);
				fe_credit_return(&t->cred_burst, lane, b, at);
			}
			/* one twin's buffer advanced by fe_link_advance(), the other's by the
			 * dequeue's own */
			fe_link_advance(&t->one, now);
			for (int k = 0; k < 4; k += 2) {
				unsigned a = fe_link_dequeue(l[k], now, pk[0], st[0], 64);
				unsigned b = fe_link_dequeue(l[k + 1], now, pk[1], st[1], 64);

				cr_assert_eq(a, b, "step %u: delivered", step);
				cr_assert_eq(memcmp(pk[0], pk[1], a * sizeof(void *)), 0);
				cr_assert_eq(memcmp(st[0], st[1], a * sizeof(uint64_t)), 0);
			}
		}
	same:
		if (step == 2000 &&
		    pool_limit != 0) /* the buffer made smaller than what it holds */
			t->pool_one.limit = t->pool_burst.limit = t->pool_one.used / 2 + 1;
		twin_same(t, "step", step);
	}
	for (int i = 0; i < 4; i++)
		free(s[i]);
	free(t);
	return whole;
}

/* The twins' links: 1 Gbit/s, 10 us, a buffer of 40 frames or 30 KB (the pool 45 KB
 * shared, when there is one); and a fast one */
static const struct fe_link_params twin_p = {
	.rate_bps = 1 * GBIT, .delay_ns = 10000, .limit_pkts = 40, .limit_bytes = 30000};
static const struct fe_link_params twin_fast = {.rate_bps = 100 * GBIT, .delay_ns = 1000};

Test(link, enqueue_while_room_is_one_at_a_time)
{
	const struct fe_link_params *p = &twin_p, *fast = &twin_fast;
	uint64_t drops[FE_LINK_DROP__MAX + 1] = {0};
	unsigned stops = 0;

	cr_assert_gt(twin_run(p, 0, 45000, 0, 1, UINT32_MAX, 1, drops, &stops, 0), 1000);
	cr_assert_gt(twin_run(p, 0, 0, 0, 1, UINT32_MAX, 2, drops, &stops, 0), 1000);
	cr_assert_gt(twin_run(p, 16, 45000, 0, 1, UINT32_MAX, 3, drops, &stops, 0),
		     1000);						     /* wire */
	cr_assert_gt(twin_run(p, 0, 0, 0, 1, 4, 4, drops, &stops, 0), 1000); /* 4 frames out */
	cr_assert_gt(twin_run(fast, 0, 0, 0, 1, 32, 5, drops, &stops, 0), 1000);
	cr_assert_gt(stops, 1000, "offers must find no room");
	/* bytes per account: one at a time, always */
	cr_assert_eq(twin_run(p, 0, 45000, 1, 1, UINT32_MAX, 6, drops, &stops, 0), 0);
}

Test(link, burst_enqueue_is_one_at_a_time)
{
	const struct fe_link_params *p = &twin_p, *fast = &twin_fast;
	uint64_t drops[FE_LINK_DROP__MAX + 1] = {0};
	unsigned stops = 0;

	/* most bursts whole (the rest: after the pool was made smaller than it holds) */
	cr_assert_gt(twin_run(p, 0, 45000, 0, 0, 0, 1, drops, &stops, 0), 1000);
	cr_assert_gt(twin_run(p, 0, 0, 0, 0, 0, 2, drops, &stops, 0), 1000);
	cr_assert_gt(twin_run(p, 16, 45000, 0, 0, 0, 3, drops, &stops, 0),
		     1000); /* 16 slots: the wire */
	cr_assert_gt(twin_run(fast, 0, 0, 0, 0, 0, 4, drops, &stops, 0), 1000);
	/* bytes per account (PFC's), gated (PFC's and credits' links between switches) */
	cr_assert_gt(twin_run(p, 0, 45000, 1, 0, 0, 5, drops, &stops, 0), 1000);
	cr_assert_gt(twin_run(p, 0, 45000, 1, 1, 0, 6, drops, &stops, 0), 1000);
	cr_assert_gt(twin_run(p, 16, 0, 0, 1, 0, 7, drops, &stops, 0), 1000);
	cr_assert_gt(twin_run(fast, 0, 45000, 1, 1, 0, 8, drops, &stops, 0), 1000);
	cr_assert_gt(drops[FE_LINK_DROP_TAIL], 0, "the test must fill the buffer");
	cr_assert_gt(drops[FE_LINK_DROP_POOL], 0, "... and the pool");
	cr_assert_gt(drops[FE_LINK_DROP_WIRE], 0, "... and the wire");
}

/* A gated link's frames taken while there is room, each started at once if its credit
 * loop lets it start at its tick (credits' links between switches): the same as each
 * taken, then a pump to its tick, up to the first offered while one waits */
Test(link, enqueue_while_room_open_is_one_at_a_time)
{
	const struct fe_link_params *p = &twin_p, *fast = &twin_fast;
	uint64_t drops[FE_LINK_DROP__MAX + 1] = {0};
	unsigned stops = 0, taken = 0;

	twin_opened = 0;
	taken += twin_run(p, 0, 45000, 0, 1, UINT32_MAX, 21, drops, &stops, 1);
	taken += twin_run(p, 0, 0, 0, 1, UINT32_MAX, 22, drops, &stops, 1);
	taken += twin_run(p, 16, 45000, 0, 1, UINT32_MAX, 23, drops, &stops, 1); /* wire */
	taken += twin_run(p, 0, 0, 0, 1, 4, 24, drops, &stops, 1);		 /* 4 frames out */
	taken += twin_run(fast, 0, 0, 0, 1, 32, 25, drops, &stops, 1);
	cr_assert_gt(taken, 5000, "bursts taken whole (%u)", taken);
	cr_assert_gt(twin_opened, 1000, "packets must start at once (%u)", twin_opened);
	cr_assert_gt(stops, 1000, "offers must find no room, or one waiting (%u)", stops);
	/* the one at a time path (a pool over its limit after step 2000) is in the runs with
	 * a pool above; bytes per account: one at a time, always */
	cr_assert_eq(twin_run(p, 0, 45000, 1, 1, UINT32_MAX, 26, drops, &stops, 1), 0);
}

/* A gated link's burst whose packets start at once where they can (PFC's links between
 * switches): the same as each packet taken, then fe_link_start_open(), up to the first
 * offered while one waits */
Test(link, burst_open_is_one_at_a_time)
{
	const struct fe_link_params *p = &twin_p, *fast = &twin_fast;
	uint64_t drops[FE_LINK_DROP__MAX + 1] = {0};
	unsigned stops = 0;

	twin_opened = twin_one_account = twin_accounts = twin_discarded = 0;
	cr_assert_gt(twin_run(p, 0, 45000, 1, 1, 0, 11, drops, &stops, 1), 1000);
	cr_assert_gt(twin_run(p, 0, 0, 0, 1, 0, 12, drops, &stops, 1), 1000);
	cr_assert_gt(twin_run(p, 16, 45000, 1, 1, 0, 13, drops, &stops, 1), 1000);
	cr_assert_gt(twin_run(fast, 0, 45000, 1, 1, 0, 14, drops, &stops, 1), 1000);
	twin_gap = 13000; /* most start at once (1514 bytes take 12.3 us) */
	cr_assert_gt(twin_run(p, 0, 45000, 1, 1, 0, 15, drops, &stops, 1), 1000);
	twin_gap = 0;
	cr_assert_gt(twin_opened, 100, "packets must start at once (%u)", twin_opened);
	cr_assert_gt(stops, 100, "bursts must stop at a packet that waits (%u)", stops);
	cr_assert_gt(twin_one_account, 500, "bursts onto their own account's packets (%u of %u)",
		     twin_one_account, twin_accounts + twin_one_account);
	cr_assert_gt(twin_accounts, 500, "bursts onto another account's packets (%u)",
		     twin_accounts);
	cr_assert_gt(twin_discarded, 100, "waiting packets dropped (%u)", twin_discarded);
	cr_assert_gt(drops[FE_LINK_DROP_TAIL], 0, "the test must fill the buffer");
	cr_assert_gt(drops[FE_LINK_DROP_POOL], 0, "... and the pool");
	cr_assert_gt(drops[FE_LINK_DROP_WIRE], 0, "... and the wire");
}

/* A gated link at 1 Gbit/s with bytes per account in acct[4], all 0 */
static void
acct_setup(struct harness *h, fe_counter_t *acct)
{
	const struct fe_link_params p = {.rate_bps = 1 * GBIT, .delay_ns = 1000};

	memset(acct, 0, 4 * sizeof(*acct));
	setup(h, &p, 1000000000);
	h->link.gated = 1;
	h->link.acct = acct;
}

/* An open burst, no window, of one packet of len bytes of account a at tick at (taken) */
static void
open_one(struct harness *h, int *pkt, uint64_t at, uint32_t len, unsigned a)
{
	struct fe_link_offer o = {.pkt = pkt, .at = at, .len = len, .label = FE_LABEL(a, 0)};
	unsigned nd = 0;

	cr_assert_eq(fe_link_enqueue_burst_open(&h->link, &o, 1, 0, 0, &nd), 1);
	cr_assert_eq(nd, 0);
}

/*
 * An open burst takes from each account the bytes of its packets that left: those of
 * another account than the offers' each from its own, however the accounts alternate
 * (the copy that sums what left into the offers' account is for a buffer of theirs only).
 */
Test(link, burst_open_takes_what_left_from_each_account)
{
	fe_counter_t acct[4];
	struct harness h;
	int pkt[6];

	/* 1000 bytes take 8.2 us at 1 Gbit/s: each starts at once, on a free serializer, and
	 * each left before the next started: account 2's second is in the buffer */
	acct_setup(&h, acct);
	open_one(&h, &pkt[0], 0, 1000, 0);
	open_one(&h, &pkt[1], 10000, 1000, 0);
	open_one(&h, &pkt[2], 20000, 500, 2);
	open_one(&h, &pkt[3], 30000, 500, 2);
	cr_assert(acct[0] == 0 && acct[2] == 500 && h.link.sched == h.link.tail && h.link.svc == 3,
		  "every packet started, counted against its account");
	/* account 0 again once the four left: account 2's bytes from account 2 */
	open_one(&h, &pkt[4], 100000, 100, 0);
	cr_assert(h.link.svc == 4 && acct[0] == 100 && acct[2] == 0,
		  "accounts %llu and %llu, 100 and 0 expected", (unsigned long long)acct[0],
		  (unsigned long long)acct[2]);
	/* and again: what left is its own */
	open_one(&h, &pkt[5], 200000, 60, 0);
	cr_assert(h.link.svc == 5 && acct[0] == 60 && acct[2] == 0);
	teardown(&h);

	/* account 1's second packet still on the serializer when account 2's is offered
	 * (each waits, then is pumped): it leaves in account 2's second burst, from 1 */
	acct_setup(&h, acct);
	open_one(&h, &pkt[0], 0, 1000, 1);
	open_one(&h, &pkt[1], 1000, 1000, 1);
	cr_assert_eq(h.link.tail - h.link.sched, 1, "the second waits");
	cr_assert_eq(fe_link_pump(&h.link, 9000, NULL, NULL), 1);
	open_one(&h, &pkt[2], 10000, 60, 2);
	cr_assert_eq(fe_link_pump(&h.link, 17000, NULL, NULL), 1);
	cr_assert(acct[1] == 1000 && acct[2] == 60 && h.link.svc == 1,
		  "account 1's second in the buffer, account 2's started");
	open_one(&h, &pkt[3], 20000, 60, 2);
	cr_assert(h.link.svc == 3 && acct[1] == 0 && acct[2] == 60,
		  "accounts %llu and %llu, 0 and 60 expected", (unsigned long long)acct[1],
		  (unsigned long long)acct[2]);
	teardown(&h);

	/* account 3's packet taken one at a time between two of account 1's bursts, still
	 * on the serializer at the second (whose packet waits, then is pumped): it leaves
	 * in account 1's third burst, from 3 */
	acct_setup(&h, acct);
	open_one(&h, &pkt[0], 0, 1000, 1);
	cr_assert_eq(fe_link_enqueue_x(&h.link, &pkt[1], 1500, 100, 0, FE_LABEL(3, 0)), 0);
	cr_assert_eq(fe_link_pump(&h.link, 9000, NULL, NULL), 1); /* till about 20.5 us */
	open_one(&h, &pkt[2], 10000, 100, 1);
	cr_assert_eq(fe_link_pump(&h.link, 21000, NULL, NULL), 1);
	cr_assert(acct[1] == 100 && acct[3] == 1500 && h.link.svc == 1);
	open_one(&h, &pkt[3], 30000, 100, 1);
	cr_assert(h.link.svc == 3 && acct[1] == 100 && acct[3] == 0,
		  "accounts %llu and %llu, 100 and 0 expected", (unsigned long long)acct[1],
		  (unsigned long long)acct[3]);
	teardown(&h);

	/* account 1's waiting packet dropped (a watchdog), account 3's taken one at a time in
	 * its slot, then account 1 again: account 3's bytes leave from 3 */
	acct_setup(&h, acct);
	open_one(&h, &pkt[0], 0, 1000, 1);
	open_one(&h, &pkt[1], 100, 1000, 1);
	{
		void *gone[4];

		cr_assert_eq(fe_link_discard_waiting(&h.link, FE_LINK_DROP_WATCHDOG, gone, 4), 1);
	}
	cr_assert_eq(fe_link_enqueue_x(&h.link, &pkt[2], 500, 200, 0, FE_LABEL(3, 0)), 0);
	cr_assert_eq(fe_link_pump(&h.link, 9000, NULL, NULL), 1);
	cr_assert(h.link.tail == 2 && acct[1] == 1000 && acct[3] == 500);
	open_one(&h, &pkt[3], 20000, 100, 1);
	cr_assert(h.link.svc == 2 && acct[1] == 100 && acct[3] == 0,
		  "accounts %llu and %llu, 100 and 0 expected", (unsigned long long)acct[1],
		  (unsigned long long)acct[3]);
	teardown(&h);
}

/*
 * fe_link_start_open() decides as the pump: a link whose packets the pump starts at
 * each one's tick, through a pause window's gate (fe_pfc_gate_inline()), against its
 * twin whose packets first try fe_link_start_open() in that window, then the pump: the
 * same state after every packet, whatever the window (none, always, ahead, about now).
 */
Test(link, start_open_is_the_pump)
{
	struct fe_link_cfg cfg;
	struct fe_link a, b;
	struct fe_link_slot *sa, *sb;
	struct fe_pfc pfc = {0};
	uint64_t now = 1000;
	unsigned opened = 0, shut = 0;

	cr_assert_eq(fe_link_compile(&twin_fast, 1000000000, &cfg), 0);
	sa = calloc(cfg.nslots, sizeof(*sa));
	sb = calloc(cfg.nslots, sizeof(*sb));
	cr_assert(sa != NULL && sb != NULL);
	fe_link_init(&a, &cfg, sa);
	fe_link_init(&b, &cfg, sb);
	a.gated = b.gated = 1;
	srand(21);
	for (unsigned step = 0; step < 20000; step++) {
		struct fe_pfc_prio *q = &pfc.prio[step % 2];
		uint32_t len = 60 + (uint32_t)(rand() % 1455);
		void *pk[2][64];
		uint64_t st[2][64];
		unsigned na, nb;
		int ra, rb, started = 0;

		if (rand() % 8 == 0) { /* the pause window moves */
			switch (rand() % 4) {
			case 0:
				q->from = q->until = 0;
				break;
			case 1:
				q->from = now - (uint64_t)(rand() % 5000);
				q->until = UINT64_MAX;
				break;
			case 2:
				q->from = now + (uint64_t)(rand() % 20000);
				q->until = UINT64_MAX;
				break;
			default:
				q->from = now - (uint64_t)(rand() % 5000);
				q->until = now + (uint64_t)(rand() % 20000);
			}
		}
		now += (uint64_t)(rand() % 3 == 0 ? rand() % 30000 : rand() % 200);
		ra = fe_link_enqueue_x(&a, &pfc, len, now, 0, FE_LABEL(0, step % 2));
		rb = fe_link_enqueue_x(&b, &pfc, len, now, 0, FE_LABEL(0, step % 2));
		cr_assert_eq(ra, rb);
		if (rb == 0) {
			started = fe_link_start_open(&b, q->from, q->until);
			opened += (unsigned)started;
			shut += (unsigned)!started;
		}
		cr_assert_eq(fe_link_pump(&a, now, fe_pfc_gate_inline, &pfc),
			     fe_link_pump(&b, now, fe_pfc_gate_inline, &pfc) + (unsigned)started,
			     "step %u: started", step);
		cr_assert(a.sched == b.sched && a.busy_until == b.busy_until &&
				  a.busy_frac == b.busy_frac && a.last_arrive == b.last_arrive,
			  "step %u: serializer", step);
		cr_assert_eq(memcmp(&a.st, &b.st, sizeof(a.st)), 0, "step %u: counters", step);
		for (uint32_t i = a.head; i != a.tail; i++)
			cr_assert(sa[i & a.mask].tx_end == sb[i & b.mask].tx_end &&
					  sa[i & a.mask].arrive == sb[i & b.mask].arrive,
				  "step %u: slot %u", step, i);
		na = fe_link_dequeue(&a, now, pk[0], st[0], 64);
		nb = fe_link_dequeue(&b, now, pk[1], st[1], 64);
		cr_assert_eq(na, nb);
		cr_assert_eq(memcmp(st[0], st[1], na * sizeof(uint64_t)), 0);
	}
	cr_assert_gt(opened, 1000, "packets must start at once (%u)", opened);
	cr_assert_gt(shut, 1000, "... and wait for the pump (%u)", shut);
	free(sa);
	free(sb);
}
