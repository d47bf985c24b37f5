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
	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, &c);
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

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, &c);
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

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, &c);
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

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, &c);
	fe_rccc_pacer_init(&p, slots, 4);
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
	fe_rccc_pacer_init(&s->pacer, s->slots, NMAX);
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

		s->got[e.who] += e.len;
		if (s->t0 == UINT64_MAX)
			s->t0 = t;
		fe_rccc_request(&s->pacer, &s->rcv[e.who], e.who, e.val, t);
		put(&s->to_snd, (struct ev){.at = t + D, .who = e.who});
	}
	/* the pacer */
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
		/* the switch egress: a FIFO at the line rate */
		arr = t + D / 2;
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

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, &c);
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

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, &c);
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

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, &c);
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

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, &c);
	s = sim_new(4, UINT64_MAX / 2);
	sim_run(s, &t, 1000000);
	fe_rccc_compile(25 * GBPS, 12000, MTU, HZ, &c); /* compiled again, as at a change */
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

	fe_rccc_compile(100 * GBPS, 12000, MTU, HZ, &c);
	fe_rccc_pacer_init(&p, slots, 4);
	fe_rccc_request(&p, &r[0], 0, 100000, 1000);
	fe_rccc_request(&p, &r[1], 1, 100000, 1000);
	while (fe_rccc_grant(&p, &c, 1000, &id, &got, &bytes))
		n++;
	cr_assert_eq(n, 1, "one grant at once");
	while (fe_rccc_grant(&p, &c, 1000000, &id, &got, &bytes))
		n++;
	cr_assert_eq(n, 3, "after 1 ms away: two more, not 74");
}
