/* SPDX-License-Identifier: BSD-3-Clause */
/* RCCC (fe_rccc.h): the reference simulator's receiver credit, in ticks and bytes. */
#include "fe_rccc.h"

#define Q	  FE_RCCC_QUANTUM
#define PULL_RATE 0.99 /* the simulator's pacer: just below the line rate */
#define PULL_MTUS 4    /* MSS a grant: "as per default in UEC spec" (uec.cpp) */
#define HDR_BYTES 64   /* the simulator's headers: MSS = MTU - 64 (as fe_nscc.c) */
#define FP_MAX	  (UINT64_C(1) << 50)
/* the pull rate (oversubscribed_cc.cpp's defaults) */
#define OCC_TARGET 0.3	/* the marked share above which it is cut */
#define OCC_AI	   0.01 /* its increase */
#define OCC_MD	   0.5	/* its cut, by the marked share above the target */
#define OCC_ALPHA  0.5	/* the marked share's average: the new share's weight */
#define OCC_FLOOR  0.01
#define ONE16	   65536u

double
fe_rccc_occ_min(double ratio)
{
	return ratio > 1 && 0.9 / ratio > OCC_FLOOR ? 0.9 / ratio : OCC_FLOOR;
}

void
fe_rccc_compile(uint64_t line_bps, uint64_t rtt_ns, uint32_t mtu, uint64_t hz, double occ_min,
		struct fe_rccc_cfg *c)
{
	uint32_t mss = mtu > HDR_BYTES ? mtu - HDR_BYTES : mtu;
	double bdp = (double)rtt_ns * 1e-9 * (double)line_bps / 8;
	double fp = (double)Q * 8 * (double)hz * 65536 /
		    (PULL_RATE * (double)(line_bps ? line_bps : 1));

	*c = (struct fe_rccc_cfg){.hz = hz, .line_bps = line_bps, .mtu = mtu};
	c->fp_per_quantum = fp >= (double)FP_MAX ? FP_MAX : fp < 1 ? 1 : (uint64_t)fp;
	c->per_pull = PULL_MTUS * mss / Q; /* rounded down, as the simulator's */
	if (c->per_pull == 0)
		c->per_pull = 1;
	c->maxwnd = (uint64_t)(1.5 * bdp);
	if (c->maxwnd < mtu)
		c->maxwnd = mtu;
	c->maxwnd_q = (uint32_t)(c->maxwnd / Q);
	c->lag = (uint64_t)c->per_pull * c->fp_per_quantum >> 16;
	if (occ_min > 0) { /* every 1.5 base RTTs (nextInterval()), at least a tick */
		c->occ_ticks = (uint64_t)(1.5 * (double)rtt_ns * 1e-9 * (double)hz);
		if (c->occ_ticks == 0)
			c->occ_ticks = 1;
		c->occ_min16 = occ_min >= 1 ? ONE16 : (uint32_t)(occ_min * ONE16 + 0.5);
		if (c->occ_min16 == 0)
			c->occ_min16 = 1;
	}
}

void
fe_rccc_snd_init(struct fe_rccc_snd *s, const struct fe_rccc_cfg *c)
{
	*s = (struct fe_rccc_snd){.credit = (int64_t)c->maxwnd, .speculating = 1};
}

/* What a flow wants: its target, cumulative. */
static uint32_t
want_of(const struct fe_rccc_snd *s, const struct fe_rccc_cfg *c, uint64_t backlog, uint32_t active)
{
	int64_t want = (int64_t)(backlog < c->maxwnd ? backlog : c->maxwnd) - s->credit;

	/* always at least an MTU while speculating with something to send: "saves our bacon
	 * for short transfers" (computePullTarget) */
	if (s->speculating && want < (int64_t)c->mtu && backlog > 0)
		want = c->mtu;
	if (active > 1) /* the NIC's link is shared by its flows: each asks for its share */
		want /= active;
	if (want <= 0)
		return s->pull;
	return s->pull + (uint32_t)((want + Q - 1) / Q);
}

uint32_t
fe_rccc_target(struct fe_rccc_snd *s, const struct fe_rccc_cfg *c, uint64_t backlog,
	       uint32_t active)
{
	uint32_t t = want_of(s, c, backlog, active);

	if (fe_rccc_diff(t, s->asked) > 0)
		s->asked = t;
	return t;
}

void
fe_rccc_feedback(struct fe_rccc_snd *s)
{
	if (s->speculating) {
		s->speculating = 0;
		if (s->credit > 0)
			s->credit = 0;
	}
}

void
fe_rccc_timeout(struct fe_rccc_snd *s)
{
	if (s->credit <= 0)
		s->credit = 1;
}

uint64_t
fe_rccc_credit(struct fe_rccc_snd *s, const struct fe_rccc_cfg *c, uint32_t pull)
{
	int32_t d;
	int64_t before;

	fe_rccc_feedback(s);
	d = fe_rccc_diff(pull, s->pull);
	if (d <= 0)
		return 0;
	before = s->credit;
	s->credit += (int64_t)d * Q;
	if (s->credit > (int64_t)c->maxwnd)
		s->credit = (int64_t)c->maxwnd;
	s->pull = pull;
	return s->credit > before ? (uint64_t)(s->credit - before) : 0;
}

void
fe_rccc_pacer_init(struct fe_rccc_pacer *p, struct fe_rccc_slot *slots, uint32_t cap,
		   uint64_t stream)
{
	*p = (struct fe_rccc_pacer){.rate = 1, .rate16 = ONE16, .pcie16 = ONE16};
	p->active = (struct fe_rccc_ring){.s = slots, .cap = cap};
	p->idle = (struct fe_rccc_ring){.s = slots + cap, .cap = cap};
	fe_rng_seed(&p->rng, 0x0cc, stream);
}

/* The time to the next update: 0.75 to 1.25 of the mean (nextInterval()). */
static uint64_t
occ_interval(struct fe_rccc_pacer *p, const struct fe_rccc_cfg *c)
{
	uint64_t t = c->occ_ticks * 3 / 4 + fe_rng_upto(&p->rng, c->occ_ticks / 2);

	return t ? t : 1;
}

/* One update from rx frames, ce of them marked, tl and to trimmed at the last hop and
 * before it (doCongestionControl()). */
static void
occ_step(struct fe_rccc_pacer *p, const struct fe_rccc_cfg *c, uint32_t rx, uint32_t ce,
	 uint32_t tl, uint32_t to)
{
	uint32_t data = rx > tl + to ? rx - tl - to : 0;
	double fraction = data ? (double)ce / data : 0, min = (double)c->occ_min16 / ONE16;
	int cut = 0;

	if (to > 0) {
		p->rate -= (double)to / rx;
		cut = 1;
	}
	p->g = p->g * (1 - OCC_ALPHA) + OCC_ALPHA * fraction;
	if (p->g > OCC_TARGET) {
		p->rate *= 1 - (p->g - OCC_TARGET) * OCC_MD;
		cut = 1;
	}
	if (!cut) {
		p->rate += ce == 0 ? OCC_AI * (double)(UINT64_C(1) << (p->incs < 40 ? p->incs : 40))
				   : OCC_AI;
		p->incs++;
	} else {
		p->incs = 0;
		p->cuts++;
	}
	p->rate = p->rate < min ? min : p->rate > 1 ? 1 : p->rate;
	p->rate16 = (uint32_t)(p->rate * ONE16 + 0.5);
	if (p->rate16 == 0)
		p->rate16 = 1;
	p->updates++;
}

void
fe_rccc_occ_update(struct fe_rccc_pacer *p, const struct fe_rccc_cfg *c, uint64_t now)
{
	if (c->occ_ticks == 0) { /* off, or turned off by a change: the full rate, anew */
		p->rate = 1;
		p->rate16 = ONE16;
		p->g = 0;
		p->incs = 0;
		p->occ_next = 0;
		p->rx = p->ce = p->trim_last = p->trim_other = 0;
		return;
	}
	if (p->occ_next == 0) { /* the first look: the first update an interval on */
		p->occ_next = now + occ_interval(p, c);
		return;
	}
	if (now < p->occ_next)
		return;
	if (p->rx == 0 && p->rate16 == ONE16) { /* nothing came, at the full rate: it stays */
		p->occ_next = now + occ_interval(p, c);
		return;
	}
	/* the updates the simulator's timer would have made before, while the loop was away,
	 * each of nothing (the rate climbs back: a few do it, the increase doubles each
	 * time); then this one, of what came since (taken as just come: a cut it makes is
	 * not undone at once) */
	for (uint64_t t = p->occ_next + c->occ_ticks; t <= now && p->rate16 < ONE16;
	     t += c->occ_ticks)
		occ_step(p, c, 0, 0, 0, 0);
	occ_step(p, c, p->rx, p->ce, p->trim_last, p->trim_other);
	p->rx = p->ce = p->trim_last = p->trim_other = 0;
	p->occ_next = now + occ_interval(p, c);
}

static inline int
live(const struct fe_rccc_slot *e)
{
	return e->r->seq == e->seq;
}

/* Drop the stale entries of q (their flows moved or were reset), keeping the order. */
static void
compact(struct fe_rccc_ring *q)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < q->n; i++) {
		struct fe_rccc_slot e = q->s[(q->head + i) % q->cap];

		if (live(&e))
			q->s[(q->head + k++) % q->cap] = e;
	}
	q->n = k;
}

/* Entry e at q's tail: 0, or -1 if q is full of live entries (more flows than cap). */
static int
push(struct fe_rccc_ring *q, struct fe_rccc_slot e)
{
	if (q->n == q->cap)
		compact(q);
	if (q->n == q->cap)
		return -1;
	q->s[(q->head + q->n++) % q->cap] = e;
	return 0;
}

/* The first live entry of q, taken off: 1, or 0 if none (q is empty then). */
static int
pop(struct fe_rccc_ring *q, struct fe_rccc_slot *e)
{
	while (q->n) {
		*e = q->s[q->head];
		q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
		q->n--;
		if (live(e))
			return 1;
	}
	return 0;
}

/* Flow e to list q (idle: the idle one); out of every list if it is full (counted). */
static void
enlist(struct fe_rccc_pacer *p, struct fe_rccc_ring *q, struct fe_rccc_slot e, int idle)
{
	e.r->idle = (uint8_t)idle;
	if (push(q, e) < 0) {
		e.r->seq = 0; /* its next frame asks again */
		e.r->idle = 0;
		p->full++;
	}
}

void
fe_rccc_request(struct fe_rccc_pacer *p, struct fe_rccc_rcv *r, uint32_t id, uint32_t target,
		uint64_t now)
{
	if (fe_rccc_diff(target, r->target) > 0)
		r->target = target;
	/* nothing wanted beyond what it was granted, or it waits its turn already */
	if (fe_rccc_diff(r->target, r->latest) <= 0 || (r->seq != 0 && !r->idle))
		return;
	if (p->active.n == 0 && p->idle.n == 0 && p->next < now) { /* the pacer wakes now */
		p->next = now;
		p->next_frac = 0;
	}
	if (++p->seq == 0)
		p->seq = 1;
	r->seq = p->seq; /* an idle entry it had is stale from now */
	enlist(p, &p->active, (struct fe_rccc_slot){.r = r, .id = id, .seq = p->seq}, 0);
}

/* The pacer waits the time q quanta take at its rate. */
static void
advance(struct fe_rccc_pacer *p, const struct fe_rccc_cfg *c, uint32_t q)
{
	uint64_t fp = (uint64_t)q * c->fp_per_quantum;
	uint32_t rate16 = p->rate16 < p->pcie16 ? p->rate16 : p->pcie16;

	if (rate16 < ONE16) { /* the pull rate below the line's: longer apart */
		unsigned __int128 x = (unsigned __int128)fp * ONE16 / rate16;

		fp = x > FP_MAX * 1024 ? FP_MAX * 1024 : (uint64_t)x;
	}
	fp += p->next_frac;

	p->next += fp >> 16;
	p->next_frac = (uint32_t)(fp & 0xffff);
}

int
fe_rccc_grant(struct fe_rccc_pacer *p, const struct fe_rccc_cfg *c, uint64_t now, uint32_t *id,
	      struct fe_rccc_rcv **rr, uint32_t *bytes)
{
	struct fe_rccc_slot e;
	struct fe_rccc_rcv *r;
	uint32_t g;

	if (now < p->next)
		return 0;
	if (now - p->next > c->lag) { /* late (the loop was away): no burst to catch up */
		p->next = now - c->lag;
		p->next_frac = 0;
	}
	if (pop(&p->active, &e)) {
		int32_t want;

		r = e.r;
		want = fe_rccc_diff(r->target, r->latest);
		g = want <= 0 ? 0 : (uint32_t)want < c->per_pull ? (uint32_t)want : c->per_pull;
		r->latest += g;
		/* still short of its target: its turn again; else it moves to the idle list */
		if (fe_rccc_diff(r->target, r->latest) > 0)
			enlist(p, &p->active, e, 0);
		else
			enlist(p, &p->idle, e, 1);
	} else if (pop(&p->idle, &e)) {
		/* no flow active: speculative credit, until maxwnd above what it asked for */
		r = e.r;
		g = c->per_pull;
		r->latest += g;
		if (fe_rccc_diff(r->latest, r->target) < (int32_t)c->maxwnd_q)
			enlist(p, &p->idle, e, 1);
		else
			r->seq = r->idle = 0;
	} else {
		return 0;
	}
	/* a grant of nothing (none is made: a flow enters the active list short of its
	 * target) would still take 1024 bytes' time, as the simulator's */
	p->last = p->next;
	p->last_frac = p->next_frac;
	p->last_q = g ? g : 1024 / Q;
	advance(p, c, p->last_q);
	if (g == 0)
		return 0;
	p->grants++;
	p->granted += (uint64_t)g * Q;
	*id = e.id;
	*rr = r;
	*bytes = g * Q;
	return 1;
}

void
fe_rccc_pcie(struct fe_rccc_pacer *p, const struct fe_rccc_cfg *c, uint32_t rate16)
{
	if (rate16 == 0)
		rate16 = 1;
	if (rate16 == p->pcie16)
		return;
	p->pcie16 = rate16;
	if (p->last_q == 0) /* no grant yet: nothing pending */
		return;
	p->next = p->last;
	p->next_frac = p->last_frac;
	advance(p, c, p->last_q);
}

uint64_t
fe_rccc_next(const struct fe_rccc_pacer *p)
{
	return p->active.n || p->idle.n ? p->next : UINT64_MAX;
}
