/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_credit: credit-based link flow control, as InfiniBand does it (IBTA spec vol. 1,
 * 7.9): the receiver advertises its buffer per virtual lane in blocks (credits) of unit
 * bytes, 64 by default (InfiniBand's); a frame takes its length in them, rounded up; the
 * sender starts a packet only while it holds enough blocks for it, and takes them;
 * the receiver gives them back when the packet leaves its buffer, and they reach the
 * sender return_delay later. Nothing is ever dropped for want of buffer.
 *
 * Credit messages: by default each frame's blocks go back on their own, as the frame
 * leaves (the finest a receiver can return them). With update set, a lane's receiver
 * sends its freed blocks in one message once update of them have gathered (an
 * InfiniBand flow control packet or a UEC CBFC update carries a lane's freed credits;
 * how often a vendor sends them is its own): those gathered and not sent yet are
 * unsent[], which the sender does not hold. A sender that waits has more than total -
 * need blocks out, so as long as update <= total - need + 1 some of them are still to be
 * freed and the message is sent (fe_link_derive() checks it with the largest frame), as
 * long as the receiver's frames leave its buffer in the end (no credit loop).
 *
 * One struct fe_credit is the sender's side of one link. fe_credit_gate() is its
 * fe_link gate; fe_credit_return() is called by the receiver. Pure, fake-clock tested.
 */
#ifndef FE_CREDIT_H
#define FE_CREDIT_H

#include <stdint.h>

#include "fe_counter.h"

#define FE_CREDIT_UNIT	     64 /* InfiniBand's credit: 64 bytes (IBTA vol. 1, 7.9.4) */
#define FE_CREDIT_UNIT_MIN   16
#define FE_CREDIT_UNIT_MAX   65536
#define FE_CREDIT_BLOCKS_MAX (1U << 20) /* a lane's credits at most (the rings' size) */
#define FE_LANES_MAX	     8

struct fe_credit_params {
	uint64_t buffer;      /* receiver buffer per lane, bytes (rounded down to blocks) */
	uint32_t unit;	      /* bytes a credit (block) stands for; 0: FE_CREDIT_UNIT */
	uint64_t return_ns;   /* from leaving the receiver buffer to usable at the sender */
	uint64_t hoq_life_ns; /* head-of-queue lifetime at the receiver; 0: off */
	uint32_t out_pkts;    /* switch output buffer, packets (input-queued switch) */
	uint64_t update;      /* bytes a lane frees between credit messages; 0: each frame's */
};

struct fe_credit_ret {
	uint64_t at;
	uint32_t blocks;
	uint8_t lane;
};

/* A credit's size, compiled (fe_credit_unit_of()): a length's blocks by one multiply. */
struct fe_credit_unit {
	uint64_t recip; /* ceil(2^40 / bytes) */
	uint32_t bytes;
};

struct fe_credit {
	uint32_t avail[FE_LANES_MAX]; /* blocks the sender holds */
	struct fe_credit_unit unit;   /* the receiver's block */
	uint32_t total;		      /* blocks advertised per lane */
	uint8_t lanes;
	uint64_t return_ticks;
	uint32_t update; /* blocks a credit message gathers first; 0 or 1: each frame's */
	uint32_t unsent[FE_LANES_MAX]; /* blocks freed, gathering for the next message */
	uint64_t last_at;	       /* returns are kept in time order */
	struct fe_credit_ret *ring;    /* pending returns */
	uint32_t head, tail, mask;
	fe_counter_t stall_ticks[FE_LANES_MAX]; /* time a head packet waited for credits */
	fe_counter_t avail_min[FE_LANES_MAX];	/* fewest blocks held (0: ran out) */
	fe_counter_t updates[FE_LANES_MAX];	/* update set: credit messages sent back */
};

/* The unit of bytes a block, compiled; 0 bytes: FE_CREDIT_UNIT. */
static inline struct fe_credit_unit
fe_credit_unit_of(uint32_t bytes)
{
	const uint64_t b = bytes ? bytes : FE_CREDIT_UNIT;

	return (struct fe_credit_unit){.recip = ((1ULL << 40) + b - 1) / b, .bytes = (uint32_t)b};
}

/*
 * The blocks a frame of len bytes takes, ceil(len / bytes): n = len + bytes - 1 times
 * recip, shifted by 40, is n / bytes exactly while n times recip's excess over 2^40 / bytes
 * (below 1, in units of 1 / bytes) stays below 2^40: n < 2^24 with bytes <= 2^16
 * (test_lossless checks every unit up to 4 KiB against the division).
 */
static inline uint32_t
fe_credit_blocks(const struct fe_credit_unit *u, uint32_t len)
{
	return (uint32_t)(((uint64_t)len + u->bytes - 1) * u->recip >> 40);
}

/* The blocks a lane's buffer of buffer bytes holds (rounded down), unit bytes each. */
static inline uint64_t
fe_credit_total(uint64_t buffer, uint32_t unit)
{
	return buffer / (unit ? unit : FE_CREDIT_UNIT);
}

/* The blocks a credit message of update bytes gathers (--credit update, rounded up to
 * whole blocks of unit bytes); 0: each frame's on its own (0 bytes, or one block or less). */
static inline uint32_t
fe_credit_update_blocks(uint64_t update, uint32_t unit)
{
	const uint64_t u = unit ? unit : FE_CREDIT_UNIT, b = (update + u - 1) / u;

	return b > 1 ? (uint32_t)b : 0;
}

/* Slots for pending returns: every block of every lane may be out at once. */
static inline uint32_t
fe_credit_ring_size(uint32_t blocks, uint8_t lanes)
{
	uint32_t n = 1;

	while (n < blocks * lanes + 1)
		n <<= 1;
	return n;
}

/* blocks per lane of unit bytes (0: FE_CREDIT_UNIT), lanes, return delay; ring has
 * fe_credit_ring_size() entries. */
void fe_credit_init(struct fe_credit *c, uint32_t blocks, uint32_t unit, uint8_t lanes,
		    uint64_t return_ticks, struct fe_credit_ret *ring);

/*
 * Returns put in a row, the loop's ring indices in the caller's registers (a store to the
 * ring could be to c's fields, for the compiler): fe_credit_open(), fe_credit_put() for
 * each, fe_credit_close().
 */
struct fe_credit_run {
	struct fe_credit_ret *ring;
	uint64_t ticks, last_at;
	uint32_t mask, tail;
};

static inline struct fe_credit_run
fe_credit_open(const struct fe_credit *c)
{
	return (struct fe_credit_run){.ring = c->ring,
				      .ticks = c->return_ticks,
				      .last_at = c->last_at,
				      .mask = c->mask,
				      .tail = c->tail};
}

/* fe_credit_put() for a return due no sooner than the last one put (in order already) */
static inline void
fe_credit_put_after(struct fe_credit_run *w, uint8_t lane, uint32_t blocks, uint64_t t)
{
	struct fe_credit_ret *r = &w->ring[w->tail & w->mask];

	w->last_at = t + w->ticks;
	r->at = w->last_at;
	r->blocks = blocks;
	r->lane = lane;
	w->tail++;
}

/* The receiver freed blocks of lane at tick t; the sender has them at t + return delay. */
static inline void
fe_credit_put(struct fe_credit_run *w, uint8_t lane, uint32_t blocks, uint64_t t)
{
	/* kept in time order (due no sooner than the last one put); the ring holds at most
	 * every block once, so it cannot overflow */
	fe_credit_put_after(w, lane, blocks, t + w->ticks > w->last_at ? t : w->last_at - w->ticks);
}

static inline void
fe_credit_close(struct fe_credit *c, const struct fe_credit_run *w)
{
	c->last_at = w->last_at;
	c->tail = w->tail;
}

/*
 * The receiver freed blocks of lane, update set (> 1): the blocks its next credit message
 * carries, 0 while they gather (they are unsent[lane] until then); each message counted
 * (updates[]). Out of line: by default each frame's blocks go back as a message of its
 * own, uncounted (the frames are).
 */
uint32_t fe_credit_gather(struct fe_credit *c, uint8_t lane, uint32_t blocks);

/*
 * The receiver freed blocks of lane at tick t; the sender has them at t + return delay
 * (with update set, in the message they complete). Inline: the switch returns credits
 * once a packet.
 */
static inline void
fe_credit_return(struct fe_credit *c, uint8_t lane, uint32_t blocks, uint64_t t)
{
	struct fe_credit_run w;

	if (__builtin_expect(c->update > 1, 0) && (blocks = fe_credit_gather(c, lane, blocks)) == 0)
		return;
	w = fe_credit_open(c);
	fe_credit_put(&w, lane, blocks, t);
	fe_credit_close(c, &w);
}

/*
 * The blocks a credit message gathers (0 or 1: each frame's): at start, and at a change,
 * on the sender's thread. What gathered and would no longer make a message alone goes
 * back at once (it would gather for ever under each frame's).
 */
static inline void
fe_credit_set_update(struct fe_credit *c, uint32_t update)
{
	c->update = update;
	for (unsigned l = 0; l < c->lanes; l++)
		if (c->unsent[l] && (update <= 1 || c->unsent[l] >= update)) {
			c->avail[l] += c->unsent[l];
			c->unsent[l] = 0;
		}
}

/* The fe_link gate (ctx is the struct fe_credit). */
uint64_t fe_credit_gate(void *ctx, uint8_t lane, uint32_t len, uint64_t start, uint64_t now);

/*
 * Apply the returns due by t from the ring's head on, its indices in the caller's
 * registers (a store to avail[] could be to c's, for the compiler); the new head.
 */
static inline uint32_t
fe_credit_apply(struct fe_credit *c, const struct fe_credit_ret *ring, uint32_t mask, uint32_t tail,
		uint32_t head, uint64_t t)
{
	while (head != tail && ring[head & mask].at <= t) {
		c->avail[ring[head & mask].lane] += ring[head & mask].blocks;
		head++;
	}
	return head;
}

/* Apply every return due by t. */
static inline void
fe_credit_collect(struct fe_credit *c, uint64_t t)
{
	uint32_t head = c->head;

	if (head == c->tail) { /* none pending: the ring's first lines, still cached, next */
		c->head = c->tail = 0;
		return;
	}
	head = fe_credit_apply(c, c->ring, c->mask, c->tail, head, t);
	if (head == c->tail) /* none pending: reuse the ring's first lines, still cached */
		head = c->tail = 0;
	c->head = head;
}

/* Take need blocks of lane if the sender holds them (the fewest held counted): 1, else 0. */
static inline int
fe_credit_take(struct fe_credit *c, uint8_t lane, uint32_t need)
{
	if (c->avail[lane] < need)
		return 0;
	c->avail[lane] -= need;
	if (c->avail[lane] < c->avail_min[lane])
		FE_CNT_SET(c->avail_min[lane], c->avail[lane]);
	return 1;
}

/* fe_credit_gate(), for fe_link_pump_inline() with a constant gate. */
static inline uint64_t
fe_credit_gate_inline(void *ctx, uint8_t lane, uint32_t len, uint64_t start, uint64_t now)
{
	struct fe_credit *c = ctx;
	uint32_t need = fe_credit_blocks(&c->unit, len);
	uint64_t t = start;

	for (;;) {
		fe_credit_collect(c, t);
		if (fe_credit_take(c, lane, need)) {
			if (t != start) /* it waited for a return */
				FE_CNT_ADD(c->stall_ticks[lane], t - start);
			return t;
		}
		/* wait for the next return, if it comes by now */
		if (c->head == c->tail || c->ring[c->head & c->mask].at > now)
			return UINT64_MAX;
		t = c->ring[c->head & c->mask].at;
	}
}

/*
 * The blocks of lane the sender of c holds at t, those come back by t counted in their
 * order as fe_credit_gate() takes them, into *held, stopping where they reach need: the
 * tick of the return that made need (0: held already), UINT64_MAX if not by t. Read off
 * the sender's thread, it may count a return as it is taken (the ring's indices read
 * once, a torn pair ignored).
 */
static inline uint64_t
fe_credit_due(const struct fe_credit *c, uint8_t lane, uint64_t need, uint64_t t, uint64_t *held)
{
	const uint32_t head = __atomic_load_n(&c->head, __ATOMIC_RELAXED);
	const uint32_t n = __atomic_load_n(&c->tail, __ATOMIC_RELAXED) - head;

	*held = c->avail[lane];
	if (*held >= need)
		return 0;
	for (uint32_t k = 0; n <= c->mask + 1 && k < n; k++) {
		const struct fe_credit_ret *r = &c->ring[(head + k) & c->mask];

		if (r->at > t)
			break;
		if (r->lane == lane && (*held += r->blocks) >= need)
			return r->at;
	}
	return UINT64_MAX;
}

/* The blocks of lane the sender holds at t (fe_credit_due(), all of them), the credits
 * gauge: it takes them only as it next needs credits; never more than the lane's. */
static inline uint32_t
fe_credit_held(const struct fe_credit *c, uint8_t lane, uint64_t t)
{
	uint64_t held;

	fe_credit_due(c, lane, UINT64_MAX, t, &held);
	return held < c->total ? (uint32_t)held : c->total;
}

/* The tick by which the sender of c holds need blocks of lane (fe_credit_due()): 0 if it
 * holds them already, UINT64_MAX if not by now. */
static inline uint64_t
fe_credit_enough_at(const struct fe_credit *c, uint8_t lane, uint32_t need, uint64_t now)
{
	uint64_t held;

	return fe_credit_due(c, lane, need, now, &held);
}

/* Earliest pending return, UINT64_MAX if none (for the loop's sleep). */
static inline uint64_t
fe_credit_next(const struct fe_credit *c)
{
	return c->head == c->tail ? UINT64_MAX : c->ring[c->head & c->mask].at;
}

#endif
