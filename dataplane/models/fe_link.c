/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "fe_credit.h"
#include "fe_link.h"

#define FE_LINK_SLOTS_MIN 256U

#define FE_LINK_SLOTS_MAX (1U << 18)

int
fe_link_params_check(const struct fe_link_params *p, const char **what)
{
	/* A rate is either unlimited (0) or between 1 kbit/s and 1 Tbit/s. */
	if (p->rate_bps != 0 &&
	    (p->rate_bps < FE_LINK_RATE_MIN || p->rate_bps > FE_LINK_RATE_MAX)) {
		*what = "rate (allowed: 0 for unlimited, or 1kbit to 1Tbit)";
		return -EINVAL;
	}
	/* Delays beyond 10 s are not a network any more. */
	if (p->delay_ns > FE_LINK_DELAY_MAX) {
		*what = "delay (allowed: 0 to 10s)";
		return -EINVAL;
	}
	if (p->jitter_ns > FE_LINK_DELAY_MAX) {
		*what = "jitter (allowed: 0 to 10s)";
		return -EINVAL;
	}
	if (p->limit_bytes > FE_LINK_BYTES_MAX) {
		*what = "buffer (allowed: 0 for unlimited, or up to 4GiB)";
		return -EINVAL;
	}
	if (p->limit_pkts > FE_LINK_PKTS_MAX) {
		*what = "buffer-pkts (allowed: 0 for unlimited, or up to 1048576)";
		return -EINVAL;
	}
	return 0;
}

static uint32_t
pow2_ceil(uint64_t v)
{
	uint32_t r = 1;

	while (r < v && r < FE_LINK_SLOTS_MAX)
		r <<= 1;
	return r;
}

/* ns in ticks of hz, to the nearest */
static uint64_t
ticks_rounded(uint64_t ns, uint64_t hz)
{
	return (uint64_t)(((unsigned __int128)ns * hz + 500000000) / 1000000000);
}

/* Slots for the buffer plus every packet that can be on the wire at once: for the
 * propagation delay and the most jitter adds (its frames arrive up to that much later). */
static uint32_t
slots_needed(const struct fe_link_cfg *cfg, uint64_t jitter_ticks)
{
	uint64_t buf, wire;

	if (cfg->limit_pkts)
		buf = cfg->limit_pkts;
	else if (cfg->limit_bytes)
		buf = cfg->limit_bytes / FE_WIRE_MIN_FRAME + 1;
	else
		buf = FE_LINK_SLOTS_MAX;
	if (cfg->tpb_fp == 0)
		wire = cfg->prop_ticks + jitter_ticks ? FE_LINK_SLOTS_MAX : 0;
	else
		wire = (cfg->prop_ticks + jitter_ticks) /
			       (fe_link_ser_ticks(cfg, FE_WIRE_MIN_FRAME) + 1) +
		       1;
	buf += wire + 64;
	return pow2_ceil(buf < FE_LINK_SLOTS_MIN ? FE_LINK_SLOTS_MIN : buf);
}

int
fe_link_compile(const struct fe_link_params *p, uint64_t hz, struct fe_link_cfg *cfg)
{
	const char *what;

	if (hz == 0 || fe_link_params_check(p, &what) < 0)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	if (p->rate_bps)
		cfg->tpb_fp = (uint64_t)((((unsigned __int128)hz * 8) << 32) / p->rate_bps);
	cfg->prop_ticks = ticks_rounded(p->delay_ns, hz);
	cfg->limit_bytes = p->limit_bytes;
	cfg->limit_pkts = p->limit_pkts;
	cfg->max_pkts = p->limit_pkts ? p->limit_pkts : UINT32_MAX;
	cfg->max_bytes = p->limit_bytes ? p->limit_bytes : UINT64_MAX / 2;
	cfg->ns_fp = fe_ns_fp(hz);
	cfg->llr_ticks = 2 * cfg->prop_ticks + fe_link_ser_ticks(cfg, FE_WIRE_MIN_FRAME);
	cfg->nslots = slots_needed(cfg, ticks_rounded(p->jitter_ns, hz));
	return 0;
}

uint64_t
fe_link_ser_ticks(const struct fe_link_cfg *cfg, uint32_t len)
{
	return fe_link_bytes_ticks(cfg, fe_wire_bytes(len));
}

void
fe_link_init(struct fe_link *l, const struct fe_link_cfg *cfg, struct fe_link_slot *slots)
{
	memset(l, 0, sizeof(*l));
	l->cfg = *cfg;
	l->mask = cfg->nslots - 1;
	l->slots = slots;
}

void
fe_link_pool_join(struct fe_link *l, struct fe_link_pool *p)
{
	if (l->pool != NULL) {
		struct fe_link **at = &l->pool->links;

		while (*at != NULL && *at != l)
			at = &(*at)->pool_next;
		if (*at == l)
			*at = l->pool_next;
	}
	l->pool = p;
	l->pool_next = NULL;
	if (p != NULL) {
		l->pool_next = p->links;
		p->links = l;
	}
}

int
fe_link_pool_free(struct fe_link_pool *p, const struct fe_link *self, uint64_t target, uint64_t now,
		  uint64_t *at)
{
	while (p->used > target) {
		struct fe_link *first = NULL;
		uint64_t when = now;

		/* the packet that left first, of those that had by now */
		for (struct fe_link *l = p->links; l != NULL; l = l->pool_next)
			if (l != self && l->svc != l->sched &&
			    l->slots[l->svc & l->mask].tx_end <= when) {
				first = l;
				when = l->slots[l->svc & l->mask].tx_end;
			}
		if (first == NULL)
			return 0;
		fe_link_leave(first, &first->slots[first->svc & first->mask]);
		first->last_leave = when;
		first->svc++;
		if (at != NULL && when > *at)
			*at = when;
	}
	return 1;
}

uint64_t
fe_link_pool_left(const struct fe_link_pool *p)
{
	uint64_t left = 0;

	for (const struct fe_link *l = p->links; l != NULL; l = l->pool_next)
		if (l->last_leave > left)
			left = l->last_leave;
	return left;
}

enum fe_link_drop
fe_link_limit_pool(struct fe_link *l, uint32_t len, uint64_t now, uint64_t *at)
{
	/* none when the packet would not fit in it without the other links' bytes */
	if (l->pool->limit < l->q_bytes + len ||
	    !fe_link_pool_free(l->pool, l, l->pool->limit - len, now, at))
		return FE_LINK_DROP_POOL;
	return fe_link_over_limit(l, len);
}

int
fe_link_enqueue_pooled(struct fe_link *l, void *pkt, uint32_t len, uint64_t now, uint64_t extra,
		       uint32_t label)
{
	enum fe_link_drop why = fe_link_limit_pool(l, len, now, NULL);

	if (why != FE_LINK_DROP__MAX)
		return fe_link_drop_cause(l, why, len, FE_LABEL_CLASS(label));
	return fe_link_take(l, pkt, len, now, extra, label);
}

/* Occupancy as readers see it. */
static inline void
publish(struct fe_link *l)
{
	FE_CNT_SET(l->st.q_pkts, l->q_pkts);
	FE_CNT_SET(l->st.q_bytes, l->q_bytes);
	FE_CNT_SET(l->st.wire_pkts, (uint64_t)(l->svc - l->head) + l->xwire);
	FE_CNT_SET(l->st.q_pkts_peak, l->peak_pkts);
	FE_CNT_SET(l->st.q_bytes_peak, l->peak_bytes);
}

void
fe_link_publish(struct fe_link *l)
{
	publish(l);
}

void
fe_link_reset_peaks(struct fe_link *l)
{
	l->peak_pkts = l->q_pkts;
	l->peak_bytes = l->q_bytes;
	publish(l);
}

int
fe_link_drop(struct fe_link *l, enum fe_link_drop why, uint32_t len, uint8_t lane)
{
	FE_CNT_ADD(l->st.in_pkts, 1);
	FE_CNT_ADD(l->st.in_bytes, len);
	return fe_link_drop_cause(l, why, len, lane);
}

void
fe_link_hold(struct fe_link *l, uint64_t now, uint64_t until)
{
	uint64_t from = l->busy_until > now ? l->busy_until : now;

	if (until <= from)
		return;
	FE_CNT_ADD(l->st.held_ns, fe_fp_to_ns(until - from, l->cfg.ns_fp));
	l->busy_until = until;
	l->busy_frac = 0;
	l->hold_until = until;
	l->hold_counted = from; /* held_ns counts from here (fe_link_release() takes back) */
}

static inline uint64_t
max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Drop up to max packets from the tail down to slot `stop` (counted as why, into pkts). */
static unsigned
drop_from_tail(struct fe_link *l, uint32_t stop, enum fe_link_drop why, void **pkts, unsigned max)
{
	unsigned n = 0;

	while (n < max && l->tail != stop) {
		const struct fe_link_slot *s = &l->slots[(l->tail - 1) & l->mask];

		fe_link_leave(l, s);
		fe_link_drop_cause(l, why, s->len, FE_LABEL_CLASS(s->label));
		pkts[n++] = s->pkt;
		l->tail--;
	}
	if (n != 0) /* the open bursts' run, if one, ends here */
		l->acct_from = l->acct_to = l->tail;
	return n;
}

uint32_t
fe_link_unstarted(struct fe_link *l, uint64_t now)
{
	uint32_t i;

	fe_link_advance(l, now);
	i = l->svc;
	if (i != l->tail) {
		const struct fe_link_slot *s = &l->slots[i & l->mask];

		if (s->tx_end - fe_link_ser_ticks(&l->cfg, s->len) < now)
			i++; /* on the serializer: it goes on */
	}
	return i;
}

/*
 * Eager links: the first packet in the buffer that has not started serializing by now;
 * the serializer is set back to the end of the packet before it, as if it and those
 * after it had not been offered yet.
 */
static uint32_t
unschedule(struct fe_link *l, uint64_t now)
{
	uint32_t i = fe_link_unstarted(l, now);

	l->busy_until = i != l->svc ? l->slots[(i - 1) & l->mask].tx_end : now;
	l->busy_frac = 0;
	l->last_arrive = i != l->head ? l->slots[(i - 1) & l->mask].arrive : 0;
	return i;
}

/* Serialize again, from start, the packets from slot i on (eager links), each with the
 * jitter it had. */
static unsigned
reserialize(struct fe_link *l, uint32_t i, uint64_t start)
{
	unsigned n = 0;

	for (; i != l->tail; i++, n++) {
		struct fe_link_slot *s = &l->slots[i & l->mask];
		uint64_t wire = s->tx_end + l->cfg.prop_ticks;

		fe_link_serialize(l, s, start, s->arrive > wire ? s->arrive - wire : 0);
	}
	return n;
}

unsigned
fe_link_pause(struct fe_link *l, uint64_t now, uint64_t until)
{
	uint32_t i = unschedule(l, now);

	fe_link_hold(l, now, until);
	return reserialize(l, i, until);
}

unsigned
fe_link_release(struct fe_link *l, uint64_t now)
{
	uint64_t cut;

	if (l->hold_until <= now)
		return 0;
	/* what held_ns counted of this hold and it did not hold */
	cut = fe_fp_to_ns(l->hold_until - max_u64(now, l->hold_counted), l->cfg.ns_fp);
	FE_CNT_SET(l->st.held_ns, l->st.held_ns > cut ? l->st.held_ns - cut : 0);
	l->hold_until = now;
	return reserialize(l, unschedule(l, now), now);
}

unsigned
fe_link_discard_unstarted(struct fe_link *l, uint64_t now, enum fe_link_drop why, void **pkts,
			  unsigned max)
{
	unsigned n = drop_from_tail(l, unschedule(l, now), why, pkts, max);

	l->sched = l->tail;
	if (l->hold_until > l->busy_until) { /* the receiver still pauses */
		l->busy_until = l->hold_until;
		l->busy_frac = 0;
	}
	publish(l);
	return n;
}

unsigned
fe_link_pump(struct fe_link *l, uint64_t now, fe_link_gate_fn gate, void *ctx)
{
	return fe_link_pump_inline(l, now, gate, ctx);
}

static inline int
unlikely_hold(const struct fe_link *l, uint64_t now)
{
	return __builtin_expect(l->hold_until != 0, 0) && l->hold_until <= now;
}

/* fe_link_advance(), the link's occupancy in locals until the end (the accounts' stores
 * could be to its fields, for the compiler) */
static inline void
advance_whole(struct fe_link *l, uint64_t now)
{
	const struct fe_link_slot *const slots = l->slots;
	const uint32_t mask = l->mask, sched = l->sched, svc0 = l->svc;
	fe_counter_t *const acct = l->acct;
	uint32_t svc = svc0;
	uint64_t bytes = 0;

	while (svc != sched && slots[svc & mask].tx_end <= now) {
		const struct fe_link_slot *s = &slots[svc & mask];

		bytes += s->len;
		if (acct != NULL)
			FE_CNT_SET(acct[FE_LABEL_ACCT(s->label)],
				   acct[FE_LABEL_ACCT(s->label)] - s->len);
		svc++;
	}
	if (svc == svc0)
		return;
	l->q_pkts -= svc - svc0;
	l->q_bytes -= bytes;
	if (l->pool != NULL)
		FE_CNT_SET(l->pool->used, l->pool->used - bytes);
	l->last_leave = slots[(svc - 1) & mask].tx_end;
	l->svc = svc;
}

unsigned
fe_link_dequeue_some(struct fe_link *l, uint64_t now, void **pkts, uint64_t *stamps, unsigned max)
{
	const struct fe_link_slot *slots = l->slots;
	uint32_t head = l->head, mask = l->mask, svc;
	uint64_t bytes = 0;
	unsigned n = 0, lim;

	if (head == l->tail) {		   /* empty: nothing to advance, count or publish */
		if (unlikely_hold(l, now)) /* a hold that is over: passes through again */
			l->hold_until = 0;
		return 0;
	}
	advance_whole(l, now);
	/* in locals: the stores to pkts[] and stamps[] could alias the link's fields; at
	 * most the packets on the wire, and max */
	svc = l->svc;
	lim = svc - head < max ? svc - head : max;
	for (; n < lim; n++) {
		const struct fe_link_slot *s = &slots[(head + n) & mask];

		if (s->arrive > now)
			break;
		pkts[n] = s->pkt;
		stamps[n] = s->arrive;
		bytes += s->len;
	}
	head += n;
	l->head = head;
	/* empty: start again at slot 0, whose lines are the ones still in the cache (a
	 * ring of thousands of slots would otherwise walk megabytes at any load) */
	if (head == l->tail)
		l->head = l->svc = l->sched = l->tail = 0;
	/* packets taken one at a time since the open bursts' run (or the ring started
	 * again): the run ends here, so the tail never comes round to where it ended */
	if (l->acct != NULL && l->tail != l->acct_to)
		l->acct_from = l->acct_to = l->tail;
	FE_CNT_ADD(l->st.out_pkts, n);
	FE_CNT_ADD(l->st.out_bytes, bytes);
	publish(l);
	return n;
}

/* Which limit a packet of len bytes broke at an eager link with q packets and bytes in its
 * buffer, and `used` bytes in its pool: fe_link_over_limit()'s, in its order, on the
 * burst's state in registers (the twins of test_link compare the causes). */
static enum fe_link_drop
burst_limit(const struct fe_link *l, uint32_t q, uint64_t q_bytes, uint64_t used, uint32_t len)
{
	if (q >= l->cfg.max_pkts || q_bytes + len > l->cfg.max_bytes)
		return FE_LINK_DROP_TAIL;
	if (l->pool != NULL && l->pool->limit && used + len > l->pool->limit)
		return FE_LINK_DROP_POOL;
	return FE_LINK_DROP_WIRE;
}

/*
 * fe_credit_gate_inline(c, lane, len, now, now) == now, the ring's indices in registers.
 * The returns due by now are applied only where the decision or the fewest blocks held
 * could depend on them: blocks held with need more and none below the fewest before pass
 * with or without them (the burst applies them at its end, *at: the tick to).
 */
static inline __attribute__((always_inline)) int
credit_now(struct fe_credit *c, const struct fe_credit_ret *ring, uint32_t mask, uint32_t tail,
	   uint32_t *head, uint8_t lane, uint32_t len, uint64_t now, uint64_t *at)
{
	const uint32_t need = fe_credit_blocks(&c->unit, len);

	*at = now;
	if (__builtin_expect(c->avail[lane] >= (uint64_t)need + FE_CNT_GET(c->avail_min[lane]),
			     1)) {
		c->avail[lane] -= need;
		return 1;
	}
	*head = fe_credit_apply(c, ring, mask, tail, *head, now);
	return fe_credit_take(c, lane, need);
}

/* credit_now() with the blocks held of lane *clane and the fewest in registers */
static inline __attribute__((always_inline)) int
credit_now_reg(struct fe_credit *c, const struct fe_credit_ret *ring, uint32_t mask, uint32_t tail,
	       uint32_t *head, uint8_t lane, uint32_t len, uint64_t now, uint64_t *at,
	       uint8_t *clane, uint32_t *cav, uint64_t *cmin)
{
	const uint32_t need = fe_credit_blocks(&c->unit, len);
	int r;

	*at = now;
	if (__builtin_expect(lane == *clane && *cav >= (uint64_t)need + *cmin, 1)) {
		*cav -= need;
		return 1;
	}
	c->avail[*clane] = *cav;
	r = credit_now(c, ring, mask, tail, head, lane, len, now, at);
	*clane = lane;
	*cav = c->avail[lane];
	*cmin = FE_CNT_GET(c->avail_min[lane]);
	return r;
}

/*
 * One packet at a time: a pool over its limit already (a buffer made smaller than it
 * holds), or the rest of a burst from the first packet that found the pool full
 * (fe_link_enqueue_x() first frees what its other links had sent). Out of line: the
 * bursts call them only then.
 */
static __attribute__((noinline)) unsigned
one_at_a_time(struct fe_link *l, struct fe_link_offer *o, unsigned n)
{
	unsigned nd = 0;

	for (unsigned k = 0; k < n; k++) {
		o[k].why = FE_LINK_DROP__MAX;
		if (fe_link_enqueue_x(l, o[k].pkt, o[k].len, o[k].at, 0, o[k].label) < 0) {
			o[k].why = l->last_drop;
			nd++;
		}
	}
	return nd;
}

/* fe_link_enqueue_burst_open()'s, up to the first offered while one waits: how many
 * were offered (*dropped: the drops added) */
static __attribute__((noinline)) unsigned
one_at_a_time_open(struct fe_link *l, struct fe_link_offer *o, unsigned n, uint64_t shut_from,
		   uint64_t shut_until, unsigned *dropped)
{
	unsigned k;

	for (k = 0; k < n && l->sched == l->tail; k++) {
		o[k].why = FE_LINK_DROP__MAX;
		if (fe_link_enqueue_x(l, o[k].pkt, o[k].len, o[k].at, 0, o[k].label) < 0) {
			o[k].why = l->last_drop;
			++*dropped;
		} else {
			fe_link_start_open(l, shut_from, shut_until);
		}
	}
	return k;
}

/* fe_link_enqueue_while_room()'s, one at a time: how many were taken */
unsigned
fe_link_while_room_each(struct fe_link *l, struct fe_link_offer *o, unsigned n, uint32_t max_q,
			struct fe_credit *open)
{
	unsigned k;

	for (k = 0; k < n && (open == NULL || l->sched == l->tail); k++) {
		if (!fe_link_has_room(l, o[k].len, o[k].at) || l->q_pkts >= max_q)
			break;
		fe_link_enqueue_x(l, o[k].pkt, o[k].len, o[k].at, 0, o[k].label);
		if (open != NULL)
			fe_link_pump_inline(l, o[k].at, fe_credit_gate_inline, open);
	}
	return k;
}

/*
 * fe_link_enqueue_burst() on a link taken whole: gated or eager, with bytes per account or
 * without (constants: a copy each; accounted 1: each packet's bytes taken from its account
 * as it leaves, 2: every packet in the buffer is of the offers' account, and what leaves
 * is taken from it at the end). stop (a constant): fe_link_enqueue_while_room()
 * instead, on a gated link without accounts: the first packet without room, or with max_q
 * packets in the buffer, ends the burst, and o[].why is not written. open (a constant):
 * fe_link_enqueue_burst_open() instead, on a gated link: a packet starts at once on a
 * serializer free at its tick outside [shut_from, shut_until), and the first offered while
 * one waits ends the burst; with a gate (a constant, open only), it starts at once if the
 * gate lets it start at its tick (a credit loop), not by the window. A packet that finds
 * the pool full (its own limits kept) ends the burst too: the caller offers it and the
 * rest one at a time (fe_link_enqueue_x() first frees what the pool's other links had
 * sent). Returns how many were dropped, or with stop or open how many were offered
 * (*dropped_out, open without stop: how many dropped).
 */
static inline __attribute__((always_inline)) unsigned
burst_whole(struct fe_link *l, struct fe_link_offer *o, unsigned n, const int gated,
	    const int accounted, const int stop, uint32_t max_q, const int open, uint64_t shut_from,
	    uint64_t shut_until, unsigned *dropped_out, struct fe_credit *cred)
{
	struct fe_link_slot *const slots = l->slots;
	struct fe_link_offer *const o0 = o;
	/* open: a packet waits (the last taken, which ended the burst, or one already):
	 * what follows it is the caller's, one at a time; none taken if one already does */
	int waits = open && l->sched != l->tail;
	const struct fe_link_offer *const end = waits ? o : o + n;
	const uint32_t mask = l->mask, wire_full = l->head + mask + 1;
	/* with stop, the packets it may hold, the caller's limit too (without, the link's
	 * own, read in the loop: a register fewer) */
	const uint32_t qmax = stop && max_q < l->cfg.max_pkts ? max_q : l->cfg.max_pkts;
	const uint64_t q_bytes0 = l->q_bytes;
	/* the pool's bytes but this link's: only this link moves in the burst, so the
	 * pool holds others + q_bytes all along, and its limit is one on q_bytes */
	const uint64_t others = l->pool != NULL ? l->pool->used - q_bytes0 : 0;
	fe_counter_t *const acct = accounted ? l->acct : NULL; /* not NULL then */
	uint64_t qlim = l->cfg.max_bytes;
	uint32_t svc = l->svc, tail = l->tail, frac = l->busy_frac, peak_pkts = l->peak_pkts;
	const uint32_t sched = l->sched, tail0 = l->tail;
	/* open: the window as its start and width, one compare a packet (none: width 0) */
	const uint64_t shut_w = open && shut_until > shut_from ? shut_until - shut_from : 0;
	uint64_t q_bytes = q_bytes0, q_max = q_bytes0, busy = l->busy_until;
	uint64_t last_arrive = l->last_arrive, left = 0, dropped = 0;
	unsigned nd = 0;
	/* a credit loop: its pending returns' ring in registers (none is added in the burst) */
	const struct fe_credit_ret *const cring = cred != NULL ? cred->ring : NULL;
	const uint32_t cmask = cred != NULL ? cred->mask : 0, ctail = cred != NULL ? cred->tail : 0;
	uint32_t chead = cred != NULL ? cred->head : 0;
	uint64_t cnow = 0; /* the tick credits were last asked at */
	/* the blocks held of one lane, and the fewest, in registers (the offers' first's) */
	uint8_t clane = cred != NULL && o != end ? FE_LABEL_CLASS(o->label) : 0;
	uint32_t cav = cred != NULL ? cred->avail[clane] : 0;
	uint64_t cmin = cred != NULL ? FE_CNT_GET(cred->avail_min[clane]) : 0;

	if (l->pool != NULL && l->pool->limit != 0 && l->pool->limit - others < qlim)
		qlim = l->pool->limit - others;
	/* open: every packet taken is scheduled till one waits, so sched is tail all along */
	for (; o < end; o++) {
		const uint32_t len = o->len;
		const uint64_t now = o->at;
		struct fe_link_slot *s;

		/* fe_link_advance(): what has been serialized by now leaves the buffer (a
		 * gated link: of what its pump scheduled) */
		while (svc != (gated && !open ? sched : tail) && slots[svc & mask].tx_end <= now) {
			const struct fe_link_slot *g = &slots[svc & mask];

			q_bytes -= g->len;
			left += g->len;
			if (accounted == 1)
				FE_CNT_SET(acct[FE_LABEL_ACCT(g->label)],
					   acct[FE_LABEL_ACCT(g->label)] - g->len);
			svc++;
		}
		/* fe_link_over_limit() (and the caller's limit): one test, the cause found
		 * apart */
		if (__builtin_expect(tail - svc >= (stop ? qmax : l->cfg.max_pkts) ||
					     q_bytes + len > qlim || tail == wire_full,
				     0)) {
			enum fe_link_drop w;

			/* the pool seen full, the buffer's own limits kept: the rest one at a
			 * time (fe_link_enqueue_x() first frees what its other links sent) */
			if (stop || (q_bytes + len > qlim && qlim < l->cfg.max_bytes &&
				     tail - svc < l->cfg.max_pkts))
				break;
			w = burst_limit(l, tail - svc, q_bytes, others + q_bytes, len);

			FE_CNT_ADD(l->st.drop_pkts[w], 1);
			FE_CNT_ADD(l->st.drop_bytes[w], len);
			FE_CNT_ADD(l->st.lane_drop_pkts[FE_LABEL_CLASS(o->label) % FE_LINK_LANES],
				   1);
			l->last_drop = (uint8_t)w;
			o->why = (uint8_t)w;
			dropped += len;
			nd++;
			continue;
		}
		if (!stop)
			o->why = FE_LINK_DROP__MAX;
		FE_CNT_ADD(l->st.qdepth_hist[fe_hist_bucket(tail - svc)], 1);
		/* open: on a serializer free at its tick, its gate open then, it starts at
		 * once (fe_link_start_open(): nothing waits ahead of it, above) */
		const int now_eager =
			!gated || (open && busy <= now &&
				   (cred != NULL ? credit_now_reg(cred, cring, cmask, ctail, &chead,
								  FE_LABEL_CLASS(o->label), len,
								  now, &cnow, &clane, &cav, &cmin)
						 : now - shut_from >= shut_w));

		if (now_eager) { /* fe_link_schedule() */
			unsigned __int128 t;
			uint64_t lo;

			if (busy < now) {
				busy = now;
				frac = 0;
			}
			/* busy.frac += wire x tpb (32.32), the fraction added in 64 bits and
			 * carried */
			t = (unsigned __int128)fe_wire_bytes(len) * l->cfg.tpb_fp;
			lo = (uint64_t)t + frac;
			busy += ((uint64_t)(t >> 64) + (lo < frac)) << 32 | lo >> 32;
			frac = (uint32_t)lo;
			if (busy + l->cfg.prop_ticks > last_arrive)
				last_arrive = busy + l->cfg.prop_ticks;
		}
		s = &slots[tail & mask];
		s->pkt = o->pkt;
		/* gated: offered at, fe_link_pump() schedules it */
		s->tx_end = now_eager ? busy : 0;
		s->arrive = now_eager ? last_arrive : now;
		s->len = len;
		s->label = o->label;
		if (now_eager)
			FE_CNT_ADD(l->st.sojourn_hist[fe_hist_bucket(
					   fe_fp_to_ns(busy - now, l->cfg.ns_fp))],
				   1);
		tail++;
		q_bytes += len;
		if (__builtin_expect(q_bytes > q_max, 0)) /* a new peak: rare once the queue */
			q_max = q_bytes;		  /* has been as long before */
		if (__builtin_expect(tail - svc > peak_pkts, 0))
			peak_pkts = tail - svc;
		if (open && !now_eager) { /* it waits: the rest are the caller's */
			waits = 1;
			o++;
			break;
		}
	}
	/* in: what was taken (the growth of the buffer and what left it) and dropped */
	FE_CNT_ADD(l->st.in_pkts, (unsigned)(o - o0)); /* (the rest are offered one at a time) */
	FE_CNT_ADD(l->st.in_bytes, q_bytes - q_bytes0 + left + dropped);
	if (accounted == 1 && o != o0) /* what was taken, to the offers' one account */
		FE_CNT_SET(acct[FE_LABEL_ACCT(o0->label)],
			   acct[FE_LABEL_ACCT(o0->label)] + (q_bytes - q_bytes0 + left));
	else if (accounted == 2) /* what was taken less what left, all of that account */
		FE_CNT_SET(acct[FE_LABEL_ACCT(o0->label)],
			   acct[FE_LABEL_ACCT(o0->label)] + (q_bytes - q_bytes0));
	if (accounted && o != o0) { /* the open bursts' run: on, or from their first */
		if (FE_LABEL_ACCT(o0->label) != l->acct_id || tail0 != l->acct_to)
			l->acct_from = tail0;
		l->acct_id = FE_LABEL_ACCT(o0->label);
		l->acct_to = tail;
	}
	if (svc != l->svc) {
		l->last_leave = slots[(svc - 1) & mask].tx_end;
		l->svc = svc;
	}
	l->q_pkts = tail - svc;
	l->tail = tail;
	if (!gated)
		l->sched = tail;
	else if (open && o != o0)
		l->sched = tail - (uint32_t)waits;
	l->q_bytes = q_bytes;
	l->peak_pkts = peak_pkts;
	if (q_max > l->peak_bytes)
		l->peak_bytes = q_max;
	l->busy_until = busy;
	l->busy_frac = frac;
	l->last_arrive = last_arrive;
	if (l->pool != NULL) {
		FE_CNT_SET(l->pool->used, others + q_bytes);
		FE_CNT_MAX(l->pool->peak, others + q_max);
	}
	if (cred != NULL) { /* none pending: the ring's first lines next (fe_credit_collect()) */
		cred->avail[clane] = cav;
		chead = fe_credit_apply(cred, cring, cmask, ctail, chead, cnow);
		cred->head = chead == ctail ? (cred->tail = 0) : chead;
	}
	/* a packet found the pool full, its buffer's own limits kept (open: not stopped by
	 * one waiting): it and the rest one at a time (with stop, the caller's) */
	if (!stop && __builtin_expect(o < end, 0) && !waits) {
		if (open) {
			const unsigned k = one_at_a_time_open(l, o, (unsigned)(end - o), shut_from,
							      shut_until, &nd);

			*dropped_out = nd;
			return (unsigned)(o - o0) + k;
		}
		nd += one_at_a_time(l, o, (unsigned)(end - o));
	}
	if (open && !stop)
		*dropped_out = nd;
	return stop || open ? (unsigned)(o - o0) : nd;
}

/* A copy each, out of line: each with its own registers */
#define BURST_WHOLE(name, gated, accounted)                                                        \
	static __attribute__((noinline)) unsigned name(struct fe_link *l, struct fe_link_offer *o, \
						       unsigned n)                                 \
	{                                                                                          \
		return burst_whole(l, o, n, gated, accounted, 0, 0, 0, 0, 0, NULL, NULL);          \
	}
BURST_WHOLE(burst_eager, 0, 0)
BURST_WHOLE(burst_eager_acct, 0, 1)
BURST_WHOLE(burst_gated, 1, 0)
BURST_WHOLE(burst_gated_acct, 1, 1)

unsigned
fe_link_enqueue_burst(struct fe_link *l, struct fe_link_offer *o, unsigned n)
{
	if (!fe_link_burst_whole(l))
		return one_at_a_time(l, o, n);
	if (l->gated)
		return l->acct ? burst_gated_acct(l, o, n) : burst_gated(l, o, n);
	return l->acct ? burst_eager_acct(l, o, n) : burst_eager(l, o, n);
}

/* Gated, each packet started at once if it can, up to the first that waits */
static __attribute__((noinline)) unsigned
burst_gated_open(struct fe_link *l, struct fe_link_offer *o, unsigned n, uint64_t from,
		 uint64_t until, unsigned *nd)
{
	return burst_whole(l, o, n, 1, 0, 0, 0, 1, from, until, nd, NULL);
}

static __attribute__((noinline)) unsigned
burst_gated_acct_open(struct fe_link *l, struct fe_link_offer *o, unsigned n, uint64_t from,
		      uint64_t until, unsigned *nd)
{
	return burst_whole(l, o, n, 1, 1, 0, 0, 1, from, until, nd, NULL);
}

/*
 * Gated and accounted, no window at any of the packets' ticks (the gate is the
 * serializer), and every packet in the buffer of the offers' account: what leaves in the
 * burst is taken from that account at its end, with what it took.
 */
static __attribute__((noinline)) unsigned
burst_gated_acct_clear(struct fe_link *l, struct fe_link_offer *o, unsigned n, unsigned *nd)
{
	return burst_whole(l, o, n, 1, 2, 0, 0, 1, 0, 0, nd, NULL);
}

unsigned
fe_link_enqueue_burst_open(struct fe_link *l, struct fe_link_offer *o, unsigned n,
			   uint64_t shut_from, uint64_t shut_until, unsigned *dropped)
{
	/* the packets' ticks do not decrease: none in [shut_from, shut_until) if it ends by
	 * the first's or starts after the last's */
	if (fe_link_burst_whole(l) && l->acct && FE_LABEL_ACCT(o[0].label) == l->acct_id &&
	    l->tail == l->acct_to && (int32_t)(l->svc - l->acct_from) >= 0 &&
	    (shut_until <= o[0].at || shut_from > o[n - 1].at || shut_until <= shut_from))
		return burst_gated_acct_clear(l, o, n, dropped);
	if (fe_link_burst_whole(l))
		return l->acct ? burst_gated_acct_open(l, o, n, shut_from, shut_until, dropped)
			       : burst_gated_open(l, o, n, shut_from, shut_until, dropped);
	*dropped = 0;
	return one_at_a_time_open(l, o, n, shut_from, shut_until, dropped);
}

static __attribute__((noinline)) unsigned
burst_gated_while_room(struct fe_link *l, struct fe_link_offer *o, unsigned n, uint32_t max_q)
{
	return burst_whole(l, o, n, 1, 0, 1, max_q, 0, 0, 0, NULL, NULL);
}

static __attribute__((noinline)) unsigned
burst_gated_while_room_open(struct fe_link *l, struct fe_link_offer *o, unsigned n, uint32_t max_q,
			    struct fe_credit *c)
{
	return burst_whole(l, o, n, 1, 0, 1, max_q, 1, 0, 0, NULL, c);
}

unsigned
fe_link_while_room_whole(struct fe_link *l, struct fe_link_offer *o, unsigned n, uint32_t max_q,
			 struct fe_credit *open)
{
	return open != NULL ? burst_gated_while_room_open(l, o, n, max_q, open)
			    : burst_gated_while_room(l, o, n, max_q);
}

unsigned
fe_link_flush(struct fe_link *l, void **pkts, unsigned max)
{
	unsigned n = 0;

	while (n < max && l->head != l->tail) {
		const struct fe_link_slot *s = &l->slots[l->head & l->mask];

		if (l->head == l->svc) { /* still in the buffer */
			fe_link_leave(l, s);
			l->svc++;
			if (l->sched == l->head)
				l->sched++;
		}
		pkts[n++] = s->pkt;
		FE_CNT_ADD(l->st.stopped_pkts, 1);
		FE_CNT_ADD(l->st.stopped_bytes, s->len);
		l->head++;
	}
	publish(l);
	return n;
}

unsigned
fe_link_discard_waiting(struct fe_link *l, enum fe_link_drop why, void **pkts, unsigned max)
{
	/* the waiting ones are the last in the ring: take them from the tail */
	unsigned n = drop_from_tail(l, l->sched, why, pkts, max);

	publish(l);
	return n;
}

unsigned __int128
fe_link_replayed(struct fe_link *l, unsigned __int128 ser, uint64_t r)
{
	FE_CNT_ADD(l->st.llr_replays, r);
	return ser + r * (ser + ((unsigned __int128)l->cfg.llr_ticks << 32));
}

uint64_t
fe_link_credit_waiting(const struct fe_link *l, const struct fe_credit *c, uint8_t lane,
		       uint64_t now)
{
	const uint32_t sched = __atomic_load_n(&l->sched, __ATOMIC_RELAXED);
	const uint32_t tail = __atomic_load_n(&l->tail, __ATOMIC_RELAXED);
	const struct fe_link_slot *s;
	uint64_t start, end;

	if (sched == tail || tail - sched > l->mask + 1)
		return 0;
	s = &l->slots[sched & l->mask];
	if (FE_LABEL_CLASS(s->label) != lane)
		return 0;
	/* as fe_link_next_start(): from when the serializer could have taken it, to when
	 * its blocks are back (what the gate will count then), or now */
	start = s->arrive > l->busy_until ? s->arrive : l->busy_until;
	end = fe_credit_enough_at(c, lane, fe_credit_blocks(&c->unit, s->len), now);
	if (end == UINT64_MAX)
		end = now;
	return end > start ? end - start : 0;
}
