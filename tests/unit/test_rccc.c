/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RCCC (fe_rccc.h) on a fake clock of 1 GHz: a tick is a nanosecond. The incast tests run
 * a small fabric around the model: N senders, each at the receiver's line rate, a switch
 * whose egress to the receiver drains at that rate (its queue measured by the wait of
 * each frame), one-way delays of D; frames carry their pull target to the receiver, its
 * grants (and ACKs) come back after D.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "fe_rccc.h"

#define HZ   1000000000ULL
#define MTU  4160 /* the simulator's: 4096 bytes of payload and 64 of headers */
#define GBPS 1000000000ULL
#define D    3000 /* ns, one way */
#define NMAX 16
#define QLEN (1u << 20)

static struct fe_rccc_cfg c;

Test(rccc, compiled_as_the_reference_has_it)
{
	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	cr_assert_eq(c.per_pull, 64, "4 MSS of 4096 bytes, in quanta of 256");
	cr_assert_eq(c.maxwnd, 225000, "1.5 x 12 us x 100 Gbit/s");
	cr_assert_eq(c.maxwnd_q, 878);
	/* a quantum at 0.99 x 100 Gbit/s: 20.69 ns */
	cr_assert_eq(c.fp_per_quantum, (uint64_t)(256.0 * 8 * 65536 / 99.0), "%llu",
		     (unsigned long long)c.fp_per_quantum);
	cr_assert_eq(c.lag, 64 * c.fp_per_quantum >> 16);
}

/* The sender: speculation, its credit capped, its target. */
Test(rccc, sender_speculates_then_lives_on_grants)
{
	struct fe_rccc_snd s;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	fe_rccc_snd_init(&s, &c);
	cr_assert(s.speculating);
	cr_assert_eq(s.credit, 225000, "starts with maxwnd");
	/* it holds maxwnd, all it may hold: still an MTU more while speculating */
	cr_assert_eq(fe_rccc_target(&s, &c, 1000000, 1), (MTU + 255) / 256);
	cr_assert_eq(fe_rccc_target(&s, &c, 100, 1), (MTU + 255) / 256,
		     "an MTU at least while speculating with a backlog");
	cr_assert_eq(fe_rccc_target(&s, &c, 0, 1), 0, "nothing to send: nothing asked");
	cr_assert_eq(s.asked, (MTU + 255) / 256, "the most it asked for");
	for (int i = 0; i < 54; i++)
		fe_rccc_spend(&s, MTU);
	cr_assert_eq(s.credit, 225000 - 54 * MTU);
	cr_assert(fe_rccc_may_send(&s));
	fe_rccc_spend(&s, MTU);
	cr_assert(!fe_rccc_may_send(&s), "credit %lld, a target to come", (long long)s.credit);
	/* the first word from the receiver: positive credit dropped, negative kept */
	fe_rccc_snd_init(&s, &c);
	fe_rccc_spend(&s, MTU);
	fe_rccc_feedback(&s);
	cr_assert_eq(s.credit, 0);
	cr_assert(!s.speculating);
	fe_rccc_snd_init(&s, &c);
	fe_rccc_spend(&s, 225000 + MTU);
	fe_rccc_feedback(&s);
	cr_assert_eq(s.credit, -MTU);
	/* wants min(backlog, maxwnd) - credit, its share of the NIC's flows, rounded up */
	s.credit = 0;
	cr_assert_eq(fe_rccc_target(&s, &c, 10000, 1), 40);
	cr_assert_eq(fe_rccc_target(&s, &c, 10000, 4), 10);
	cr_assert_eq(fe_rccc_target(&s, &c, 1000000, 1), 225000 / 256 + 1);
	cr_assert(!fe_rccc_may_send(&s), "no credit, and a grant to come");
	/* a grant adds what is new, up to maxwnd; an old one adds nothing */
	cr_assert_eq(fe_rccc_credit(&s, &c, 64), 64 * 256);
	cr_assert_eq(fe_rccc_credit(&s, &c, 60), 0);
	cr_assert_eq(fe_rccc_credit(&s, &c, 64 + 10000), 225000 - 64 * 256);
	cr_assert_eq(s.credit, 225000);
	cr_assert_eq(fe_rccc_target(&s, &c, 10000, 1), 64 + 10000, "credit enough: pull as is");
	/* a timeout: a flow with no credit and a target to come sends one frame (its target
	 * in it); with credit, nothing changes */
	fe_rccc_timeout(&s);
	cr_assert_eq(s.credit, 225000);
	fe_rccc_spend(&s, 225000 + MTU);
	fe_rccc_target(&s, &c, 1000000, 1);
	cr_assert(!fe_rccc_may_send(&s));
	fe_rccc_timeout(&s);
	cr_assert(fe_rccc_may_send(&s));
	fe_rccc_spend(&s, MTU);
	cr_assert(!fe_rccc_may_send(&s), "one frame");
}

/*
 * A flow with no credit whose every target was granted (it had sent all it had): nothing
 * is to come, so its next frame goes, and asks (an RTS's part). Without it, a TCP flow
 * whose first frame (a SYN) went speculatively, asking for nothing, would wait for ever.
 */
Test(rccc, a_flow_with_nothing_to_come_asks_with_a_frame)
{
	struct fe_rccc_snd s;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	fe_rccc_snd_init(&s, &c);
	fe_rccc_spend(&s, 84);
	cr_assert_eq(fe_rccc_target(&s, &c, 0, 1), 0, "all sent: asks for nothing");
	fe_rccc_feedback(&s); /* its ACK */
	cr_assert_eq(s.credit, 0);
	cr_assert(fe_rccc_may_send(&s), "nothing to come: it may ask");
	fe_rccc_spend(&s, MTU);
	cr_assert_eq(fe_rccc_target(&s, &c, 3 * MTU, 1), (4 * MTU + 255) / 256,
		     "what it owes and what waits");
	cr_assert(!fe_rccc_may_send(&s), "asked: it waits for the grant");
	fe_rccc_credit(&s, &c, (4 * MTU + 255) / 256);
	cr_assert(fe_rccc_may_send(&s));
}

/* Counts modulo 2^32: a flow whose pull wraps is granted as any other. */
Test(rccc, counts_wrap)
{
	struct fe_rccc_slot slots[8];
	struct fe_rccc_pacer p;
	struct fe_rccc_rcv r = {.target = UINT32_MAX - 10, .latest = UINT32_MAX - 10}, *got;
	uint32_t id, bytes;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	fe_rccc_pacer_init(&p, slots, 4, 0);
	fe_rccc_request(&p, &r, 7, UINT32_MAX - 10 + 100, 1000);
	cr_assert(fe_rccc_grant(&p, &c, 1000, &id, &got, &bytes));
	cr_assert_eq(id, 7);
	cr_assert_eq(got, &r);
	cr_assert_eq(bytes, 64 * 256);
	cr_assert_eq(r.latest, (uint32_t)(UINT32_MAX - 10 + 64));
	cr_assert(!fe_rccc_grant(&p, &c, 1001, &id, &got, &bytes), "paced");
	cr_assert(fe_rccc_grant(&p, &c, 1000 + 64 * 21, &id, &got, &bytes));
	cr_assert_eq(bytes, 36 * 256, "up to its target, no more");
}

/* ---- a small fabric around the model ---- */

struct ev {
	uint64_t at;
	uint32_t who, val; /* sender; the frame's target, or the grant's pull (0: an ACK) */
	uint32_t len;
	uint8_t ce, trimmed; /* a frame marked; trimmed (its header: its len is sent again) */
};

struct fifo {
	struct ev *e;
	uint32_t head, tail;
};

struct sim {
	uint32_t n;
	uint64_t backlog[NMAX], free_at[NMAX], sent[NMAX], got[NMAX];
	struct fe_rccc_snd snd[NMAX];
	struct fe_rccc_rcv rcv[NMAX];
	struct fe_rccc_pacer pacer;
	struct fe_rccc_slot slots[2 * NMAX];
	struct fifo to_rcv, to_snd;
	uint64_t last_dep; /* the switch egress: when its last frame is out */
	uint64_t qmax;	   /* the most bytes queued at the switch egress */
	uint64_t q_late;   /* ... when the first frame at `late` or after came */
	uint64_t q_last;   /* ... when the last frame came */
	uint64_t late;
	uint64_t granted, t0; /* bytes granted; the first request */
	uint64_t over;	      /* the most granted beyond 0.99 x rate x time */
	uint64_t last_grant;
	/* an oversubscribed core (core_bps, 0: none): the egress drains at core_bps, not
	 * the line's; a frame that finds more than buf bytes queued is trimmed there (not
	 * the last hop), one that finds more than kmin is marked */
	uint64_t core_bps, buf, kmin, trims, marks;
};

static struct sim *
sim_new(uint32_t n, uint64_t backlog)
{
	struct sim *s = calloc(1, sizeof(*s));

	cr_assert_not_null(s);
	s->n = n;
	s->to_rcv.e = calloc(QLEN, sizeof(struct ev));
	s->to_snd.e = calloc(QLEN, sizeof(struct ev));
	cr_assert(s->to_rcv.e && s->to_snd.e);
	fe_rccc_pacer_init(&s->pacer, s->slots, NMAX, 0);
	for (uint32_t i = 0; i < n; i++) {
		s->backlog[i] = backlog;
		fe_rccc_snd_init(&s->snd[i], &c);
	}
	s->t0 = UINT64_MAX;
	return s;
}

static void
sim_free(struct sim *s)
{
	free(s->to_rcv.e);
	free(s->to_snd.e);
	free(s);
}

static void
put(struct fifo *f, struct ev e)
{
	cr_assert_lt(f->tail - f->head, QLEN);
	f->e[f->tail++ % QLEN] = e;
}

static uint64_t
ser(uint32_t len)
{
	return (uint64_t)len * 8 * HZ / c.line_bps;
}

/* One nanosecond of the fabric at t. */
static void
sim_step(struct sim *s, uint64_t t)
{
	uint32_t id, bytes;
	struct fe_rccc_rcv *r;

	/* grants and ACKs reach the senders */
	while (s->to_snd.head != s->to_snd.tail && s->to_snd.e[s->to_snd.head % QLEN].at <= t) {
		struct ev e = s->to_snd.e[s->to_snd.head++ % QLEN];

		if (e.val)
			fe_rccc_credit(&s->snd[e.who], &c, e.val);
		else
			fe_rccc_feedback(&s->snd[e.who]);
	}
	/* frames reach the receiver: their targets heard, each ACKed */
	while (s->to_rcv.head != s->to_rcv.tail && s->to_rcv.e[s->to_rcv.head % QLEN].at <= t) {
		struct ev e = s->to_rcv.e[s->to_rcv.head++ % QLEN];

		if (e.trimmed) { /* the sender sends it again (a NAK back, here at once) */
			fe_rccc_occ_trimmed(&s->pacer, 0);
			s->backlog[e.who] += e.len;
		} else {
			fe_rccc_occ_frame(&s->pacer, e.ce);
			s->got[e.who] += e.len;
		}
		if (s->t0 == UINT64_MAX)
			s->t0 = t;
		fe_rccc_request(&s->pacer, &s->rcv[e.who], e.who, e.val, t);
		put(&s->to_snd, (struct ev){.at = t + D, .who = e.who});
	}
	/* the pacer */
	fe_rccc_occ_update(&s->pacer, &c, t);
	while (fe_rccc_grant(&s->pacer, &c, t, &id, &r, &bytes)) {
		uint64_t bound = (uint64_t)((double)(t - s->t0) * 0.99 * (double)c.line_bps / 8e9);

		cr_assert_eq(r, &s->rcv[id]);
		s->granted += bytes;
		s->last_grant = t;
		if (s->granted > bound && s->granted - bound > s->over)
			s->over = s->granted - bound;
		put(&s->to_snd, (struct ev){.at = t + D, .who = id, .val = r->latest});
	}
	/* the senders, each at the line rate, as credit allows */
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t len;
		uint64_t arr, dep, q;

		if (t < s->free_at[i] || s->backlog[i] == 0 || !fe_rccc_may_send(&s->snd[i]))
			continue;
		len = s->backlog[i] < MTU ? (uint32_t)s->backlog[i] : MTU;
		s->backlog[i] -= len;
		s->sent[i] += len;
		fe_rccc_spend(&s->snd[i], len);
		s->free_at[i] = t + ser(len);
		/* the switch egress: a FIFO at the line rate (or the core's) */
		arr = t + D / 2;
		if (s->core_bps) {
			uint64_t ahead = s->last_dep > arr ? s->last_dep - arr : 0;
			uint64_t queued = ahead * s->core_bps / 8 / HZ;
			uint32_t v = fe_rccc_target(&s->snd[i], &c, s->backlog[i], 1);

			if (queued > s->buf) { /* trimmed: its header goes on at once */
				s->trims++;
				put(&s->to_rcv, (struct ev){.at = arr + D / 2,
							    .who = i,
							    .val = v,
							    .len = len,
							    .trimmed = 1});
				continue;
			}
			s->marks += queued > s->kmin;
			s->last_dep = (arr > s->last_dep ? arr : s->last_dep) +
				      (uint64_t)len * 8 * HZ / s->core_bps;
			put(&s->to_rcv, (struct ev){.at = s->last_dep + D / 2,
						    .who = i,
						    .val = v,
						    .len = len,
						    .ce = queued > s->kmin});
			continue;
		}
		dep = (arr > s->last_dep ? arr : s->last_dep) + ser(len);
		q = (dep - arr) * c.line_bps / 8 / HZ;
		s->qmax = q > s->qmax ? q : s->qmax;
		if (t >= s->late && s->q_late == 0)
			s->q_late = q;
		s->q_last = q;
		s->last_dep = dep;
		put(&s->to_rcv, (struct ev){.at = dep + D / 2,
					    .who = i,
					    .val = fe_rccc_target(&s->snd[i], &c, s->backlog[i], 1),
					    .len = len});
	}
}

static void
sim_run(struct sim *s, uint64_t *t, uint64_t until)
{
	for (; *t < until; (*t)++)
		sim_step(s, *t);
}

/* One sender, more than it can send: it gets the receiver's rate (0.99 of it). */
Test(rccc, lone_sender_gets_the_full_rate)
{
	struct sim *s;
	uint64_t t = 0, a;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	s = sim_new(1, UINT64_MAX / 2);
	sim_run(s, &t, 200000);
	a = s->got[0];
	sim_run(s, &t, 1200000);
	/* 1 ms at 0.99 x 100 Gbit/s: 12.375 MB */
	cr_assert_geq(s->got[0] - a, 12200000, "got %llu bytes in 1 ms",
		      (unsigned long long)(s->got[0] - a));
	cr_assert_leq(s->got[0] - a, 12500000);
	cr_assert_leq(s->over, 65 * 256, "granted %llu bytes beyond the rate",
		      (unsigned long long)s->over);
	sim_free(s);
}

/*
 * Incast: 8 senders, each at the receiver's line rate, into it. The speculative start
 * queues what each sent before the first word back (at most maxwnd each); from then on
 * the grants hold the sum to 0.99 of the receiver's rate: the queue never grows again and
 * drains by the 1 % left, the link stays full, each sender gets its eighth, and what was granted
 * never outruns 0.99 x rate x time by more than a grant (and a quantum: the pacer's fraction of a
 * tick, dropped when it wakes).
 */
Test(rccc, incast_converges_to_the_receivers_rate)
{
	struct sim *s;
	uint64_t t = 0, a[NMAX], tot = 0, lo = UINT64_MAX, hi = 0;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	s = sim_new(8, UINT64_MAX / 2);
	s->late = 1200000;
	sim_run(s, &t, 1000000);
	for (uint32_t i = 0; i < 8; i++)
		a[i] = s->got[i];
	sim_run(s, &t, 3000000);
	for (uint32_t i = 0; i < 8; i++) {
		uint64_t g = s->got[i] - a[i];

		tot += g;
		lo = g < lo ? g : lo;
		hi = g > hi ? g : hi;
	}
	/* each sent what it could (at most maxwnd) before the first word back: 6 us at
	 * 100 Gbit/s, some 90 kB */
	cr_assert_geq(s->qmax, 8 * 60000, "the speculative start queues: %llu",
		      (unsigned long long)s->qmax);
	cr_assert_leq(s->qmax, 8 * c.maxwnd, "queued %llu bytes", (unsigned long long)s->qmax);
	/* 1.8 ms at 1 % of 100 Gbit/s: 225 kB drained; 0.8 % at least */
	cr_assert_lt(s->q_last + 180000, s->q_late, "queue at 1.2 ms %llu bytes, at 3 ms %llu",
		     (unsigned long long)s->q_late, (unsigned long long)s->q_last);
	cr_assert_geq(tot, 24400000, "2 ms at 0.99 x 100 Gbit/s: %llu", (unsigned long long)tot);
	/* the fabric's link: a frame each ser(MTU), 332 ns rounded down */
	cr_assert_leq(tot, (2000000 / ser(MTU) + 1) * MTU, "no more than the link: %llu",
		      (unsigned long long)tot);
	cr_assert_geq(lo * 100, hi * 95, "each its share: %llu .. %llu", (unsigned long long)lo,
		      (unsigned long long)hi);
	cr_assert_leq(s->over, 65 * 256, "granted %llu bytes beyond the rate",
		      (unsigned long long)s->over);
	sim_free(s);
}

/* A sender that has sent all it had stops asking: after at most maxwnd of speculative
 * credit beyond its target, the receiver grants it nothing more. */
Test(rccc, a_sender_that_stops_asking_stops_getting)
{
	struct sim *s;
	uint64_t t = 0, g;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	s = sim_new(1, 2000000);
	sim_run(s, &t, 400000);
	cr_assert_eq(s->got[0], 2000000, "all delivered");
	g = s->granted;
	cr_assert_leq(g, 2000000 + c.maxwnd + 64 * 256, "granted %llu", (unsigned long long)g);
	sim_run(s, &t, 1400000);
	cr_assert_eq(s->granted, g, "nothing granted once it stopped asking");
	cr_assert_lt(s->last_grant, 400000);
	cr_assert_eq(fe_rccc_next(&s->pacer), UINT64_MAX, "the pacer sleeps");
	sim_free(s);
}

/* The receiver's rate changes (its link's): the grants follow, from the next one. */
Test(rccc, a_rate_change_takes_effect)
{
	struct sim *s;
	uint64_t t = 0, a;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	s = sim_new(4, UINT64_MAX / 2);
	sim_run(s, &t, 1000000);
	fe_rccc_compile(25 * GBPS, 12000, MTU, HZ, 0, &c); /* compiled again, as at a change */
	sim_run(s, &t, 1500000);
	a = s->granted;
	sim_run(s, &t, 2500000);
	/* 1 ms at 0.99 x 25 Gbit/s: 3.09 MB */
	cr_assert_geq(s->granted - a, 3000000, "granted %llu in 1 ms",
		      (unsigned long long)(s->granted - a));
	cr_assert_leq(s->granted - a, 3100000, "granted %llu in 1 ms",
		      (unsigned long long)(s->granted - a));
	sim_free(s);
}

/* Late (the loop was away for a while): one grant's catching up, not a burst. */
Test(rccc, a_late_pacer_does_not_burst)
{
	struct fe_rccc_slot slots[8];
	struct fe_rccc_pacer p;
	struct fe_rccc_rcv r[2] = {0}, *got;
	uint32_t id, bytes, n = 0;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	fe_rccc_pacer_init(&p, slots, 4, 0);
	fe_rccc_request(&p, &r[0], 0, 100000, 1000);
	fe_rccc_request(&p, &r[1], 1, 100000, 1000);
	while (fe_rccc_grant(&p, &c, 1000, &id, &got, &bytes))
		n++;
	cr_assert_eq(n, 1, "one grant at once");
	while (fe_rccc_grant(&p, &c, 1000000, &id, &got, &bytes))
		n++;
	cr_assert_eq(n, 3, "after 1 ms away: two more, not 74");
}

/* ---- the pull rate (the simulator's OversubscribedCC) ---- */

Test(rccc, pull_rate_compiled_as_the_reference_has_it)
{
	cr_assert_float_eq(fe_rccc_occ_min(4), 0.225, 1e-9, "0.9 / 4");
	cr_assert_float_eq(fe_rccc_occ_min(1), 0.01, 1e-9, "not oversubscribed: the floor");
	cr_assert_float_eq(fe_rccc_occ_min(200), 0.01, 1e-9, "never below 0.01");
	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, fe_rccc_occ_min(4), &c);
	cr_assert_eq(c.occ_ticks, 18000, "1.5 x 12 us");
	cr_assert_eq(c.occ_min16, (uint32_t)(0.225 * 65536 + 0.5));
	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	cr_assert_eq(c.occ_ticks, 0, "off");
}

/* An update every 0.75 to 1.25 of 1.5 base RTTs, each receiver on its own draw. */
Test(rccc, pull_rate_updates_at_random_about_every_one_and_a_half_rtts)
{
	struct fe_rccc_slot slots[8];
	struct fe_rccc_pacer p;
	uint64_t now = 1000, lo = UINT64_MAX, hi = 0;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, fe_rccc_occ_min(4), &c);
	fe_rccc_pacer_init(&p, slots, 4, 3);
	fe_rccc_occ_update(&p, &c, now); /* the first look */
	for (int i = 0; i < 2000; i++) {
		uint64_t gap = p.occ_next - now;

		lo = gap < lo ? gap : lo;
		hi = gap > hi ? gap : hi;
		now = p.occ_next;
		fe_rccc_occ_frame(&p, 0);
		fe_rccc_occ_update(&p, &c, now);
	}
	cr_assert_eq(p.updates, 2000);
	/* nothing received at the full rate: nothing to update, only the next time drawn */
	now = p.occ_next;
	fe_rccc_occ_update(&p, &c, now);
	cr_assert_eq(p.updates, 2000);
	cr_assert_gt(p.occ_next, now);
	cr_assert_geq(lo, 13500, "%llu", (unsigned long long)lo);
	cr_assert_lt(lo, 13700, "the draw reaches near 0.75: %llu", (unsigned long long)lo);
	cr_assert_leq(hi, 22500, "%llu", (unsigned long long)hi);
	cr_assert_gt(hi, 22300, "the draw reaches near 1.25: %llu", (unsigned long long)hi);
}

/* An update: marks cut the rate by their average above 0.3; trims before the last hop by
 * their share; trims at the last hop do not; no mark and no cut raise it, doubling. */
Test(rccc, pull_rate_follows_marks_and_trims_as_the_reference)
{
	struct fe_rccc_slot slots[8];
	struct fe_rccc_pacer p;
	uint64_t now = 0;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, fe_rccc_occ_min(4), &c);
	fe_rccc_pacer_init(&p, slots, 4, 0);
	fe_rccc_occ_update(&p, &c, now);
#define UPDATE()                                                                                   \
	do {                                                                                       \
		now = p.occ_next;                                                                  \
		fe_rccc_occ_update(&p, &c, now);                                                   \
	} while (0)
	for (int i = 0; i < 100; i++) /* 80 of 100 marked: g 0.4, the rate x (1 - 0.05) */
		fe_rccc_occ_frame(&p, i < 80);
	UPDATE();
	cr_assert_float_eq(p.g, 0.4, 1e-9);
	cr_assert_float_eq(p.rate, 0.95, 1e-9);
	cr_assert_eq(p.rate16, (uint32_t)(0.95 * 65536 + 0.5));
	cr_assert_eq(p.cuts, 1);
	for (int i = 0; i < 100; i++) /* again: g 0.6, x (1 - 0.15) */
		fe_rccc_occ_frame(&p, i < 80);
	UPDATE();
	cr_assert_float_eq(p.rate, 0.95 * 0.85, 1e-9);
	/* none marked: g 0.3, not above; 10 of 100 trimmed before the last hop: - 0.1 */
	for (int i = 0; i < 90; i++)
		fe_rccc_occ_frame(&p, 0);
	for (int i = 0; i < 10; i++)
		fe_rccc_occ_trimmed(&p, 0);
	UPDATE();
	cr_assert_float_eq(p.g, 0.3, 1e-9);
	cr_assert_float_eq(p.rate, 0.95 * 0.85 - 0.1, 1e-9);
	cr_assert_eq(p.cuts, 3);
	/* trimmed at the last hop only, nothing marked: g 0.15, + 0.01, then + 0.02, + 0.04 */
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 10; i++)
			fe_rccc_occ_trimmed(&p, 1);
		fe_rccc_occ_frame(&p, 0);
		UPDATE();
	}
	cr_assert_float_eq(p.rate, 0.95 * 0.85 - 0.1 + 0.07, 1e-9);
	cr_assert_eq(p.cuts, 3, "no cut");
	/* a mark, but g below 0.3: + 0.01, and the doubling starts over */
	fe_rccc_occ_frame(&p, 1);
	for (int i = 0; i < 99; i++)
		fe_rccc_occ_frame(&p, 0);
	UPDATE();
	cr_assert_float_eq(p.rate, 0.95 * 0.85 - 0.1 + 0.08, 1e-9);
	cr_assert_eq(p.incs, 4);
	/* all marked, for long: the floor, 0.9 / 4 */
	for (int k = 0; k < 40; k++) {
		for (int i = 0; i < 10; i++)
			fe_rccc_occ_frame(&p, 1);
		UPDATE();
	}
	cr_assert_eq(p.rate16, c.occ_min16, "at the floor: %u", p.rate16);
	/* then quiet for 10 intervals while the pacer slept: the rate climbs back (0.01 x
	 * (2^7 - 1) from 0.225), as the simulator's timer would have made it */
	now = p.occ_next + 10 * c.occ_ticks;
	fe_rccc_occ_update(&p, &c, now);
	cr_assert_eq(p.rate16, 65536, "back to the full rate: %u", p.rate16);
	/* turned off (a change compiled it so): the full rate, at once */
	for (int i = 0; i < 10; i++)
		fe_rccc_occ_frame(&p, 1);
	UPDATE();
	cr_assert_lt(p.rate16, 65536);
	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, 0, &c);
	fe_rccc_occ_update(&p, &c, now + 1);
	cr_assert_eq(p.rate16, 65536);
#undef UPDATE
}

/* The pacer's grants are spaced by their bytes' time at the rate: half the rate, twice
 * as far apart. */
Test(rccc, pull_rate_spaces_the_grants)
{
	struct fe_rccc_slot slots[8];
	struct fe_rccc_pacer p;
	struct fe_rccc_rcv r = {0}, *got;
	uint32_t id, bytes;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, fe_rccc_occ_min(4), &c);
	fe_rccc_pacer_init(&p, slots, 4, 0);
	p.rate = 0.5;
	p.rate16 = 32768;
	fe_rccc_request(&p, &r, 0, 100000, 1000);
	cr_assert(fe_rccc_grant(&p, &c, 1000, &id, &got, &bytes));
	/* 64 quanta at 0.99 x 100 Gbit/s: 1324 ns; at half of it, 2648 */
	cr_assert_eq(fe_rccc_next(&p), 1000 + (64 * c.fp_per_quantum * 2 >> 16), "%llu",
		     (unsigned long long)fe_rccc_next(&p));
	cr_assert(!fe_rccc_grant(&p, &c, 1000 + 2600, &id, &got, &bytes));
	cr_assert(fe_rccc_grant(&p, &c, 1000 + 2648, &id, &got, &bytes));
}

/*
 * Oversubscribed 2:1: 8 senders into one receiver through a core at half its line rate
 * (a 100 kB buffer, marking above 20 kB, trimming above the buffer). The pacer alone
 * grants at the receiver's line rate, twice what the core carries, and the core trims the
 * rest; with the pull rate, the marks cut the grants to about the core's rate, and the
 * core trims a small part of that, while the core stays busy.
 */
static void
oversubscribed(double occ_min, uint64_t *trims, uint64_t *got, uint32_t *rate16)
{
	struct sim *s;
	uint64_t t = 0, a = 0;

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, occ_min, &c);
	s = sim_new(8, UINT64_MAX / 2);
	s->core_bps = 50 * GBPS;
	s->buf = 100000;
	s->kmin = 20000;
	sim_run(s, &t, 1000000);
	*trims = s->trims;
	for (uint32_t i = 0; i < 8; i++)
		a += s->got[i];
	sim_run(s, &t, 3000000);
	*trims = s->trims - *trims;
	*got = 0;
	for (uint32_t i = 0; i < 8; i++)
		*got += s->got[i];
	*got -= a;
	*rate16 = s->pacer.rate16;
	sim_free(s);
}

Test(rccc, pull_rate_keeps_an_oversubscribed_core_from_trimming)
{
	uint64_t trims_off, trims_on, got_off, got_on;
	uint32_t r_off, r_on;

	oversubscribed(0, &trims_off, &got_off, &r_off);
	oversubscribed(fe_rccc_occ_min(2), &trims_on, &got_on, &r_on);
	cr_assert_eq(r_off, 65536);
	/* 2 ms at the core's 50 Gbit/s: 12.5 MB, all of it either way */
	cr_assert_geq(got_off, 12000000, "without: %llu", (unsigned long long)got_off);
	cr_assert_geq(got_on, 12000000, "with: %llu", (unsigned long long)got_on);
	/* without, the core trims about as many as it carries (2,939 against 3,007 frames
	 * delivered here); with the pull rate, 141 */
	cr_assert_geq(trims_off, 2000, "without: %llu trimmed", (unsigned long long)trims_off);
	cr_assert_leq(trims_on * 10, trims_off, "with the pull rate: %llu trimmed, %llu without",
		      (unsigned long long)trims_on, (unsigned long long)trims_off);
	/* about the core's share, 0.5 / 0.99 (0.55 here) */
	cr_assert_lt(r_on, 65536 * 3 / 4, "the rate cut: %u", r_on);
	cr_assert_geq(r_on, (uint32_t)(0.45 * 65536 + 0.5), "not below 0.9 / 2: %u", r_on);
}
