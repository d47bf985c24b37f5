/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_link: one emulated point-to-point link, one direction.
 *
 * A link is a serializer followed by a wire. A packet offered at time t starts
 * serializing at max(t, end of the previous packet), takes wire_bytes * 8 / rate
 * seconds to serialize and then propagation-delay seconds to arrive. Packets
 * waiting for or being serialized occupy the link's buffer; a packet that would
 * exceed the buffer's byte or packet limit is tail-dropped. Arrival times are
 * non-decreasing, so a link never reorders.
 *
 * The model is pure: it stores opaque packet pointers, never touches an mbuf and
 * never reads a clock. Every call takes `now` in TSC ticks; the caller reads the
 * TSC once per burst. Users fill struct fe_link_params (bit/s, ns, bytes) and
 * compile it once with fe_link_compile() into ticks and fixed-point ticks/byte.
 *
 * Usage:
 *	fe_link_compile(&params, tsc_hz, &cfg);
 *	slots = calloc(fe_link_slots_needed(&cfg), sizeof(*slots));
 *	fe_link_init(&link, &cfg, slots, n);
 *	if (fe_link_enqueue(&link, pkt, len, now) < 0) free_it(pkt);
 *	n = fe_link_dequeue(&link, now, pkts, stamps, max);
 */
#ifndef FE_LINK_H
#define FE_LINK_H

#include <errno.h>
#include <stdint.h>

#include "fe_counter.h"
#include "fe_qhist.h"
#include "fe_time.h"

/* Ethernet overhead not present in a frame buffer: FCS, preamble + SFD, inter-frame gap. */
enum {
	FE_WIRE_FCS = 4,
	FE_WIRE_PREAMBLE = 8,
	FE_WIRE_IFG = 12,
	FE_WIRE_MIN_FRAME = 60, /* minimum frame without FCS; shorter ones are padded */
	FE_WIRE_OVERHEAD = FE_WIRE_FCS + FE_WIRE_PREAMBLE + FE_WIRE_IFG,
};

/* Bytes a frame of `len` bytes (as received, without FCS) occupies on the wire. */
static inline uint32_t
fe_wire_bytes(uint32_t len)
{
	return (len < FE_WIRE_MIN_FRAME ? FE_WIRE_MIN_FRAME : len) + FE_WIRE_OVERHEAD;
}

/* What the user asked for, in user units. Zero means "no limit" for every field. */
struct fe_link_params {
	uint64_t rate_bps;    /* line rate in bit/s; 0: infinitely fast */
	uint64_t delay_ns;    /* one-way propagation delay */
	uint64_t limit_bytes; /* buffer limit in frame bytes (as received, without FCS) */
	uint32_t limit_pkts;  /* buffer limit in packets */
	/* extra delay, uniform in [0, jitter], never reordering: drawn by the caller a frame
	 * (fe_link_enqueue_x's extra), counted here in the slots for what is on the wire */
	uint64_t jitter_ns;
};

/* Ranges checked by fe_link_params_check(). */
#define FE_LINK_RATE_MIN  1000ULL	   /* 1 kbit/s */
#define FE_LINK_RATE_MAX  1000000000000ULL /* 1 Tbit/s */
#define FE_LINK_DELAY_MAX 10000000000ULL   /* 10 s */
#define FE_LINK_BYTES_MAX (1ULL << 32)	   /* 4 GiB */
#define FE_LINK_PKTS_MAX  (1U << 20)

/* Compiled form: only ticks and bytes, what the fast path adds and compares. */
struct fe_link_cfg {
	uint64_t tpb_fp;     /* TSC ticks per wire byte, 32.32 fixed point; 0: no serialization */
	uint64_t prop_ticks; /* propagation delay */
	uint64_t limit_bytes;
	uint32_t limit_pkts;
	uint32_t nslots;    /* power of two: buffer plus what can be in flight on the wire */
	uint64_t ns_fp;	    /* ns per tick, 32.32 fixed point (for the sojourn histogram) */
	uint32_t max_pkts;  /* limit_pkts, or UINT32_MAX without one: one compare a packet */
	uint64_t max_bytes; /* limit_bytes, or UINT64_MAX / 2 without one */
	/* link-level retry: a replay starts this long after the frame it repeats ended, the
	 * round trip of the receiver's NACK (prop + a minimum frame + prop) */
	uint64_t llr_ticks;
};

/* log2 buckets: every value below 2^63 (a queue's packets, ns of a sojourn) has its own */
#define FE_HIST_BUCKETS 64
#define FE_LINK_LANES	8 /* lanes (virtual lanes, priorities) counted per link */

/*
 * log2 bucket of v: 0 for 0, i for [2^(i-1), 2^i), for any v below 2^63 (2v + 1 is in
 * [2^i, 2^(i+1)) exactly when v is in bucket i, and is never 0: its top bit, 63 - clz =
 * 63 ^ clz (clz is 0..63), is one instruction; no clamp: there are buckets to 63).
 */
static inline unsigned
fe_hist_bucket(uint64_t v)
{
	return 63 ^ (unsigned)__builtin_clzll(2 * v + 1);
}

/* Why a packet offered to a link was not carried (names: control/server/fe_report.c). */
enum fe_link_drop {
	FE_LINK_DROP_TAIL,     /* the link's buffer limit (bytes or packets) reached */
	FE_LINK_DROP_WIRE,     /* more packets in flight than the link has slots for */
	FE_LINK_DROP_POOL,     /* the switch's shared buffer is full */
	FE_LINK_DROP_RANDOM,   /* Bernoulli loss */
	FE_LINK_DROP_BURST,    /* Gilbert-Elliott loss */
	FE_LINK_DROP_EXACT,    /* the k-th packet of a flow, by rule */
	FE_LINK_DROP_AQM,      /* congestion-hit by ECN/RED and not ECN-capable */
	FE_LINK_DROP_HEADROOM, /* PFC: more than XOFF + headroom arrived (headroom too small) */
	FE_LINK_DROP_HOQ,      /* credit: waited at the head of an input queue past HOQLife */
	FE_LINK_DROP_WATCHDOG, /* PFC watchdog: the queue stayed paused past its time (fe_pfc.h) */
	FE_LINK_DROP_LLR,      /* link-level retry: lost on every replay it was allowed */
	FE_LINK_DROP_TRIM,     /* no room (lossy, NIC uec): its payload dropped, its header sent
				  on, trimmed (a frame of its own: in_pkts counts it too) */
	FE_LINK_DROP_HEADER,   /* a trimmed header (or cut probe) found no room either: the
				  priority queue full, or with trim-queue=data the data's */
	FE_LINK_DROP__MAX,
};

/*
 * Link-level retry (LLR, Ultra Ethernet's link layer; the shape of PCI Express' data link
 * retry): the sender numbers its frames and keeps them until the receiver has them; the
 * receiver NACKs a frame that arrived corrupt, and the sender goes back to it and sends
 * it and everything after it again. A frame the loss model hits is so sent again once a
 * link round trip after its first end (cfg.llr_ticks), and again for every replay that is
 * hit too, up to FE_LLR_REPLAYS_MAX; the frames behind it wait (they are sent again after
 * it: the wire time they had was wasted), so the link delivers in order. The caller draws
 * the replays and hands their number to the link in the top bits of `extra`
 * (fe_link_replays()).
 */
#define FE_LLR_REPLAYS_MAX   4	/* then the frame is dropped (FE_LINK_DROP_LLR) */
#define FE_LINK_REPLAY_SHIFT 56 /* extra: replays << FE_LINK_REPLAY_SHIFT | jitter ticks */
#define FE_LINK_JITTER_MASK  ((UINT64_C(1) << FE_LINK_REPLAY_SHIFT) - 1)

/* extra for a frame sent again `replays` times, with jitter ticks of jitter */
static inline uint64_t
fe_link_replays(unsigned replays, uint64_t jitter)
{
	return (uint64_t)replays << FE_LINK_REPLAY_SHIFT | (jitter & FE_LINK_JITTER_MASK);
}

/*
 * A buffer shared by several links (a switch's packet memory). Links that point to
 * the same pool admit a packet only while the pool has room, in addition to their
 * own limits. Written by the one lcore that owns the links. A link's packets leave the
 * pool when that link is advanced (lazily): a packet that finds it full first makes
 * the packets of its other links that had left by its tick leave it, in the order they
 * left (fe_link_pool_free()), so that it is judged on what the memory held then.
 */
struct fe_link_pool {
	uint64_t limit; /* bytes; 0: no shared limit */
	fe_counter_t used, peak;
	struct fe_link *links; /* the links that share it, through their pool_next */
};

struct fe_link_stats {
	fe_counter_t in_pkts, in_bytes;	  /* offered to the link */
	fe_counter_t out_pkts, out_bytes; /* delivered at the far end */
	fe_counter_t drop_pkts[FE_LINK_DROP__MAX];
	fe_counter_t drop_bytes[FE_LINK_DROP__MAX];
	fe_counter_t q_pkts, q_bytes;		  /* buffer occupancy now */
	fe_counter_t q_pkts_peak, q_bytes_peak;	  /* highest occupancy seen */
	fe_counter_t wire_pkts;			  /* packets serialized, not yet delivered */
	fe_counter_t ecn_marked;		  /* packets this link set CE on */
	fe_counter_t held_ns;			  /* time the serializer was held (fe_link_hold) */
	fe_counter_t llr_replays;		  /* frames sent again by link-level retry */
	fe_counter_t stopped_pkts, stopped_bytes; /* inside when the dataplane stopped: freed */
	fe_counter_t lane_drop_pkts[FE_LINK_LANES]; /* drops of every cause, by lane */
	/* log2 histograms: bucket 0 counts 0, bucket i counts [2^(i-1), 2^i) */
	fe_counter_t qdepth_hist[FE_HIST_BUCKETS];  /* packets in the buffer, seen on arrival */
	fe_counter_t sojourn_hist[FE_HIST_BUCKETS]; /* ns from offered to serialized */
	/* ns a frame left the link after the tick the model scheduled: the box's own delay
	 * (a late poll, a descheduled lcore, a busy port), never the fabric's (fe_qhist.h) */
	fe_counter_t late_hist[FE_QHIST_BUCKETS];
};

struct fe_link_slot {
	void *pkt;
	uint64_t tx_end; /* serialization ends: the packet leaves the buffer (gated and not
			    yet scheduled: the extra delay it was offered with) */
	uint64_t arrive; /* reaches the far end (not yet scheduled: when it was offered) */
	uint32_t len;
	uint32_t label; /* FE_LABEL(account, class): whose bytes these are, and its lane */
};

/* A packet's label: an index into the link's accounting array, and its class or lane. */
#define FE_LABEL(acct, cls) ((uint32_t)(acct) << 8 | (uint8_t)(cls))
#define FE_LABEL_ACCT(l)    ((l) >> 8)
#define FE_LABEL_CLASS(l)   ((uint8_t)(l))

/*
 * A gate decides when the head packet of a gated link may start serializing: given
 * the earliest tick it could start (the serializer is free and the packet is there),
 * it returns the tick it may start, or UINT64_MAX if that is not known by now. When
 * it returns a tick <= now the packet starts then, and the gate must account for it
 * (take its credits). Credits and PFC pauses are gates.
 */
typedef uint64_t (*fe_link_gate_fn)(void *ctx, uint8_t cls, uint32_t len, uint64_t start,
				    uint64_t now);

struct fe_link {
	struct fe_link_cfg cfg;
	uint64_t busy_until; /* serializer is busy until this tick ... */
	uint32_t busy_frac;  /* ... plus this fraction of a tick (2^-32) */
	uint32_t mask;
	uint32_t head;	       /* oldest packet not delivered */
	uint32_t svc;	       /* oldest packet still in the buffer */
	uint32_t sched;	       /* gated: oldest packet not yet scheduled (eager: always tail) */
	uint32_t tail;	       /* next free slot */
	uint8_t gated;	       /* serialization waits for fe_link_pump() and its gate */
	uint8_t last_drop;     /* enum fe_link_drop of the last drop (for captures) */
	uint64_t last_leave;   /* when the last packet left the buffer */
	uint64_t hold_until;   /* fe_link_hold(): held until this tick (0: not, or over) */
	uint64_t hold_counted; /* ... and counted in held_ns from this tick */
	fe_counter_t *acct;    /* bytes in the buffer per label account (may be NULL) */
	/* with acct: the packets from slot acct_from to acct_to are all of account acct_id
	 * (the open bursts' run; acct_to is not the tail once another packet was taken) */
	uint32_t acct_from, acct_to, acct_id;
	uint32_t q_pkts;
	uint32_t peak_pkts; /* highest q_pkts since the last reset (st has it once published) */
	uint64_t q_bytes;
	uint64_t peak_bytes;
	uint64_t last_arrive; /* arrivals never go backwards, even with jitter */
	struct fe_link_pool *pool;
	struct fe_link *pool_next; /* the next link sharing the pool (fe_link_pool_join()) */
	struct fe_link_slot *slots;
	/* frames the link carries outside its slots, on a priority queue its owner keeps
	 * (a switch's trimmed headers: fe_graph_trimmed()); counted on the wire */
	uint32_t xwire;
	struct fe_link_stats st;
};

/* 0 if params are in range; otherwise -EINVAL and *what names the bad field. */
int fe_link_params_check(const struct fe_link_params *p, const char **what);

/* l shares pool p from now on (NULL: none), leaving the pool it shared before. */
void fe_link_pool_join(struct fe_link *l, struct fe_link_pool *p);

/*
 * p is seen to hold more than `target` bytes: the packets of its links but self (whose
 * state the caller may hold in registers) that had left their buffer by now leave it, in
 * the order they left, until it holds no more. 1: it holds no more, and *at (at: may be
 * NULL) is raised to
 * the tick the last of them left (untouched if none had to); 0: not by now (all those
 * that had left, gone, and *at raised to the last of them: not a tick it had room).
 */
int fe_link_pool_free(struct fe_link_pool *p, const struct fe_link *self, uint64_t target,
		      uint64_t now, uint64_t *at);

/* The last tick a packet left p's memory, of those its links have seen leave. */
uint64_t fe_link_pool_left(const struct fe_link_pool *p);

/* fe_link_limit_at() where the pool is seen full (at: may be NULL), out of line */
enum fe_link_drop fe_link_limit_pool(struct fe_link *l, uint32_t len, uint64_t now, uint64_t *at);

/* Compile params for a TSC of hz ticks per second. Returns 0 or -EINVAL. */
int fe_link_compile(const struct fe_link_params *p, uint64_t hz, struct fe_link_cfg *cfg);

/* Ticks `bytes` take at the link's rate, as they are (no wire overhead), rounded down; 0
 * on a link without a rate. */
static inline uint64_t
fe_link_bytes_ticks(const struct fe_link_cfg *cfg, uint64_t bytes)
{
	return (uint64_t)(((unsigned __int128)bytes * cfg->tpb_fp) >> 32);
}

/* Serialization time of a frame of len bytes in ticks, rounded down (for reports and tests). */
uint64_t fe_link_ser_ticks(const struct fe_link_cfg *cfg, uint32_t len);

void fe_link_init(struct fe_link *l, const struct fe_link_cfg *cfg, struct fe_link_slot *slots);

/*
 * Gated links: start serializing waiting packets, in order, as far as gate allows by
 * now. Returns how many started. A packet's start is exact: max(serializer free,
 * offered, what the gate says), however late the call.
 */
unsigned fe_link_pump(struct fe_link *l, uint64_t now, fe_link_gate_fn gate, void *ctx);

/* Gated links: the tick the next waiting packet could start if its gate were open. */
static inline uint64_t
fe_link_next_start(const struct fe_link *l)
{
	const struct fe_link_slot *s;

	if (l->sched == l->tail)
		return UINT64_MAX;
	s = &l->slots[l->sched & l->mask];
	return s->arrive > l->busy_until ? s->arrive : l->busy_until;
}

/* The tick the packet being serialized leaves the buffer (its room freed); none: MAX. */
static inline uint64_t
fe_link_next_leave(const struct fe_link *l)
{
	return l->svc == l->sched ? UINT64_MAX : l->slots[l->svc & l->mask].tx_end;
}

/* A frame of ser (32.32 ticks) sent again r times under link-level retry: its serializer
 * time in all, counted (out of line: the fast path only tests for it). */
unsigned __int128 fe_link_replayed(struct fe_link *l, unsigned __int128 ser, uint64_t r);

/*
 * The ticks extra (fe_link_replays()) adds to a frame of len bytes that goes ahead of the
 * link's queue (a header, a control frame on its priority queue): its jitter, and the
 * time its replays take under link-level retry (counted, as fe_link_serialize() counts
 * a queued frame's).
 */
static inline uint64_t
fe_link_extra_ticks(struct fe_link *l, uint32_t len, uint64_t extra)
{
	uint64_t t = extra & FE_LINK_JITTER_MASK;

	if (__builtin_expect(extra >> FE_LINK_REPLAY_SHIFT, 0)) {
		unsigned __int128 ser = (unsigned __int128)fe_wire_bytes(len) * l->cfg.tpb_fp;

		t += (uint64_t)((fe_link_replayed(l, ser, extra >> FE_LINK_REPLAY_SHIFT) - ser) >>
				32);
	}
	return t;
}

/* Serialize the packet in slot s, starting no earlier than start (internal to fe_link). */
static inline __attribute__((always_inline)) void
fe_link_serialize(struct fe_link *l, struct fe_link_slot *s, uint64_t start, uint64_t extra)
{
	unsigned __int128 t;

	if (l->busy_until < start) { /* idle: it starts at start (at start itself it is as is) */
		l->busy_until = start;
		l->busy_frac = 0;
	}
	t = (unsigned __int128)fe_wire_bytes(s->len) * l->cfg.tpb_fp;
	if (__builtin_expect(extra >> FE_LINK_REPLAY_SHIFT, 0)) { /* LLR: sent 1 + r times */
		t = fe_link_replayed(l, t, extra >> FE_LINK_REPLAY_SHIFT);
		extra &= FE_LINK_JITTER_MASK;
	}
	t += l->busy_frac;
	l->busy_until += (uint64_t)(t >> 32);
	l->busy_frac = (uint32_t)t;
	s->tx_end = l->busy_until;
	s->arrive = l->busy_until + l->cfg.prop_ticks + extra;
	if (s->arrive < l->last_arrive)
		s->arrive = l->last_arrive; /* jitter never reorders */
	l->last_arrive = s->arrive;
}

/* The same, for a packet offered at `offered`, its time in the buffer counted
 * (internal to fe_link: its enqueue and pump). */
static inline __attribute__((always_inline)) void
fe_link_schedule(struct fe_link *l, struct fe_link_slot *s, uint64_t offered, uint64_t start,
		 uint64_t extra)
{
	uint64_t ns;

	fe_link_serialize(l, s, start, extra);
	ns = fe_fp_to_ns(s->tx_end - offered, l->cfg.ns_fp);
	FE_CNT_ADD(l->st.sojourn_hist[fe_hist_bucket(ns)], 1);
}

/*
 * fe_link_pump() for a caller that names its gate: called with a constant gate, the
 * compiler inlines the gate too (the engine's credit loop, once a packet).
 */
static inline unsigned
fe_link_pump_inline(struct fe_link *l, uint64_t now, fe_link_gate_fn gate, void *ctx)
{
	unsigned n = 0;

	while (l->sched != l->tail) {
		struct fe_link_slot *s = &l->slots[l->sched & l->mask];
		uint64_t start = fe_link_next_start(l), at;

		if (start > now)
			break;
		at = gate ? gate(ctx, FE_LABEL_CLASS(s->label), s->len, start, now) : start;
		if (at > now)
			break;
		fe_link_schedule(l, s, s->arrive, at, s->tx_end);
		l->sched++;
		n++;
	}
	return n;
}

/*
 * A gated link's last packet, just offered (fe_link_enqueue_x()), waits alone (nothing
 * ahead of it waits), the serializer is free at the tick it was offered, and its gate is
 * open then (the tick is outside [shut_from, shut_until)): it starts at that tick, as
 * fe_link_pump() would start it. For a caller whose gate is a window (a PFC pause) that
 * nothing decided after now can move to or before now: the packet is then scheduled
 * while its slot is in the cache, and the pump has nothing to do for it. Returns 1 if it
 * started.
 */
static inline int
fe_link_start_open(struct fe_link *l, uint64_t shut_from, uint64_t shut_until)
{
	struct fe_link_slot *s = &l->slots[l->sched & l->mask];

	if (l->sched + 1 != l->tail || l->busy_until > s->arrive ||
	    (s->arrive >= shut_from && s->arrive < shut_until))
		return 0;
	fe_link_schedule(l, s, s->arrive, s->arrive, s->tx_end);
	l->sched++;
	return 1;
}

/*
 * The per-packet operations below are inline: the engine calls several a packet, and
 * a call's set-up cost as much as some of them.
 */

/* A packet leaves (or is removed from) the buffer. */
static inline void
fe_link_leave(struct fe_link *l, const struct fe_link_slot *s)
{
	l->q_pkts--;
	l->q_bytes -= s->len;
	if (l->pool)
		FE_CNT_SET(l->pool->used, l->pool->used - s->len);
	if (l->acct)
		FE_CNT_SET(l->acct[FE_LABEL_ACCT(s->label)],
			   l->acct[FE_LABEL_ACCT(s->label)] - s->len);
}

/* Packets whose serialization has ended by now leave the buffer (they stay on the wire). */
static inline void
fe_link_advance(struct fe_link *l, uint64_t now)
{
	while (l->svc != l->sched) {
		const struct fe_link_slot *s = &l->slots[l->svc & l->mask];

		if (s->tx_end > now)
			break;
		fe_link_leave(l, s);
		l->last_leave = s->tx_end;
		l->svc++;
	}
}

/* Bytes in the buffer at time now (what AQM and ECN look at). */
static inline uint64_t
fe_link_backlog(struct fe_link *l, uint64_t now)
{
	fe_link_advance(l, now);
	return l->q_bytes;
}

/* Which limit, if any, a packet of len bytes would break; FE_LINK_DROP__MAX if none. */
static inline enum fe_link_drop
fe_link_over_limit(const struct fe_link *l, uint32_t len)
{
	if (l->q_pkts >= l->cfg.max_pkts || l->q_bytes + len > l->cfg.max_bytes)
		return FE_LINK_DROP_TAIL;
	if (l->pool && l->pool->limit && l->pool->used + len > l->pool->limit)
		return FE_LINK_DROP_POOL;
	if (l->tail - l->head > l->mask)
		return FE_LINK_DROP_WIRE;
	return FE_LINK_DROP__MAX;
}

/*
 * fe_link_over_limit() at now, l advanced to now: a pool seen full first frees what its
 * other links had sent by now (fe_link_pool_free(); *at: raised to the tick it had room
 * from, if that took a packet's leaving).
 */
static inline enum fe_link_drop
fe_link_limit_at(struct fe_link *l, uint32_t len, uint64_t now, uint64_t *at)
{
	enum fe_link_drop why = fe_link_over_limit(l, len);

	if (__builtin_expect(why == FE_LINK_DROP_POOL, 0))
		why = fe_link_limit_pool(l, len, now, at);
	return why;
}

/*
 * Would a packet of len bytes fit in the buffer at now (all limits, shared pool too)?
 * *at (at: may be NULL): raised to the tick the pool had room from, where it took a
 * packet's leaving.
 */
static inline int
fe_link_has_room_at(struct fe_link *l, uint32_t len, uint64_t now, uint64_t *at)
{
	fe_link_advance(l, now);
	return fe_link_limit_at(l, len, now, at) == FE_LINK_DROP__MAX;
}

static inline int
fe_link_has_room(struct fe_link *l, uint32_t len, uint64_t now)
{
	return fe_link_has_room_at(l, len, now, NULL);
}

/* Count a drop of an offered packet (its `in` is counted by the caller). */
static inline int
fe_link_drop_cause(struct fe_link *l, enum fe_link_drop why, uint32_t len, uint8_t lane)
{
	FE_CNT_ADD(l->st.drop_pkts[why], 1);
	FE_CNT_ADD(l->st.drop_bytes[why], len);
	FE_CNT_ADD(l->st.lane_drop_pkts[lane % FE_LINK_LANES], 1);
	l->last_drop = (uint8_t)why;
	return -ENOBUFS;
}

/* fe_link_enqueue_x() once the packet has room: it takes its slot. */
static inline __attribute__((always_inline)) int
fe_link_take(struct fe_link *l, void *pkt, uint32_t len, uint64_t now, uint64_t extra,
	     uint32_t label)
{
	struct fe_link_slot *s = &l->slots[l->tail & l->mask];

	s->pkt = pkt;
	s->len = len;
	s->label = label;
	FE_CNT_ADD(l->st.qdepth_hist[fe_hist_bucket(l->q_pkts)], 1);
	if (l->gated) {
		s->arrive = now; /* offered at; fe_link_pump() schedules it */
		s->tx_end = extra;
	} else {
		fe_link_schedule(l, s, now, now, extra);
	}
	l->tail++;
	if (!l->gated)
		l->sched = l->tail;
	l->q_pkts++;
	l->q_bytes += len;
	if (l->pool) {
		FE_CNT_SET(l->pool->used, l->pool->used + len);
		FE_CNT_MAX(l->pool->peak, l->pool->used);
	}
	if (l->acct)
		FE_CNT_SET(l->acct[FE_LABEL_ACCT(label)], l->acct[FE_LABEL_ACCT(label)] + len);
	if (l->q_pkts > l->peak_pkts)
		l->peak_pkts = l->q_pkts;
	if (l->q_bytes > l->peak_bytes)
		l->peak_bytes = l->q_bytes;
	return 0;
}

/* fe_link_enqueue_x() where the pool is seen full, out of line (a call in the fast path
 * would make every caller save registers for it; this one is a jump) */
int fe_link_enqueue_pooled(struct fe_link *l, void *pkt, uint32_t len, uint64_t now, uint64_t extra,
			   uint32_t label);

/*
 * Offer a packet at time now; it arrives `extra` ticks later than the link alone would
 * make it (jitter), but never before the packet ahead of it. 0: accepted; -ENOBUFS:
 * dropped and counted (the caller frees it; l->last_drop says why).
 */
static inline __attribute__((always_inline)) int
fe_link_enqueue_x(struct fe_link *l, void *pkt, uint32_t len, uint64_t now, uint64_t extra,
		  uint32_t label)
{
	enum fe_link_drop why;

	FE_CNT_ADD(l->st.in_pkts, 1);
	FE_CNT_ADD(l->st.in_bytes, len);
	fe_link_advance(l, now);
	why = fe_link_over_limit(l, len);
	if (why != FE_LINK_DROP__MAX)
		return why == FE_LINK_DROP_POOL
			       ? fe_link_enqueue_pooled(l, pkt, len, now, extra, label)
			       : fe_link_drop_cause(l, why, len, FE_LABEL_CLASS(label));
	return fe_link_take(l, pkt, len, now, extra, label);
}

/*
 * fe_link_enqueue_x() for a packet its caller found room for at now (fe_link_has_room_at()
 * at this tick, nothing taken since): the buffer's and the pool's limits, and the
 * packets that left by now, are not looked at again; the slots still are.
 */
static inline __attribute__((always_inline)) int
fe_link_enqueue_room(struct fe_link *l, void *pkt, uint32_t len, uint64_t now, uint64_t extra,
		     uint32_t label)
{
	FE_CNT_ADD(l->st.in_pkts, 1);
	FE_CNT_ADD(l->st.in_bytes, len);
	if (l->tail - l->head > l->mask)
		return fe_link_drop_cause(l, FE_LINK_DROP_WIRE, len, FE_LABEL_CLASS(label));
	return fe_link_take(l, pkt, len, now, extra, label);
}

static inline int
fe_link_enqueue(struct fe_link *l, void *pkt, uint32_t len, uint64_t now)
{
	return fe_link_enqueue_x(l, pkt, len, now, 0, 0);
}

/*
 * fe_link_enqueue_burst() keeps l's state in registers when its pool (if any) holds at
 * least its bytes and is not over its limit (a buffer made smaller than it holds); any
 * other takes a burst one packet at a time, as it does the rest of a burst from the first
 * packet that finds the pool full.
 */
static inline int
fe_link_burst_whole(const struct fe_link *l)
{
	const struct fe_link_pool *p = l->pool;

	return p == NULL || (p->used >= l->q_bytes && (p->limit == 0 || p->limit >= p->used));
}

/* A packet offered with others (fe_link_enqueue_burst()). */
struct fe_link_offer {
	void *pkt;
	uint64_t at;	/* the tick it is offered */
	uint32_t len;	/* bytes */
	uint32_t label; /* FE_LABEL() */
	uint8_t why;	/* out: enum fe_link_drop, or FE_LINK_DROP__MAX if accepted */
};

/*
 * Offers o[0 .. n) put in the order of their ticks, those of equal ticks in the order
 * they came (an insertion sort from the first out of order: what a switch stages is runs
 * of one input each, each in order). Returns how many it put ahead of one before them.
 */
static inline uint32_t
fe_link_offers_sort(struct fe_link_offer *o, uint32_t n)
{
	uint32_t i = 1, moved = 0;

	while (i < n && o[i].at >= o[i - 1].at)
		i++;
	for (; i < n; i++) {
		struct fe_link_offer x = o[i];
		uint32_t j = i;

		for (; j > 0 && o[j - 1].at > x.at; j--)
			o[j] = o[j - 1];
		o[j] = x;
		moved += j != i;
	}
	return moved;
}

/*
 * Offer n packets at once, in order, at ticks o[i].at that do not decrease, without
 * jitter: the same, to the counter and the tick, as n calls of
 * fe_link_enqueue_x(l, o[i].pkt, o[i].len, o[i].at, 0, o[i].label) (test_link checks
 * it), with the link's state kept in registers from one packet to the next. It is what
 * a switch calls for the frames of one input bound for the same output: with bytes per
 * account (l->acct), the offers share one account (FE_LABEL_ACCT(), the input's), whose
 * bytes taken are added at the burst's end. Returns how many were dropped: each has its
 * cause in o[i].why and is the caller's to free. A gated link's packets wait for its
 * pump, as they would. Readers on another thread see the drops and the bytes left per
 * account as they happen, but in_pkts, in_bytes, the bytes taken per account and the
 * pool's use and peak once the burst is in (the same values, at its end).
 */
unsigned fe_link_enqueue_burst(struct fe_link *l, struct fe_link_offer *o, unsigned n);

/*
 * fe_link_enqueue_burst() on a gated link, each packet taken, then started at once if it
 * can (fe_link_start_open(l, shut_from, shut_until)), up to the first offered while a
 * packet waits: that one and those after it are not offered (o[i].why not written), for
 * the caller to offer as it offers one. Returns how many were offered (taken or
 * dropped, each with its cause in o[i].why), *dropped how many of them were dropped: the
 * same, to the counter and the tick, as fe_link_enqueue_x() and fe_link_start_open() for
 * each (test_link checks it). With bytes per account, while every packet in the buffer
 * is of the offers' account (the open bursts keep where their account's run starts, and
 * a packet taken another way ends it) and the window is shut at none of the offers'
 * ticks, the bytes that leave in the burst are taken from that account at its end, with
 * those it took: one sum, not one a packet.
 */
unsigned fe_link_enqueue_burst_open(struct fe_link *l, struct fe_link_offer *o, unsigned n,
				    uint64_t shut_from, uint64_t shut_until, unsigned *dropped);

/*
 * fe_link_enqueue_while_room() keeps l's state in registers: a gated link without bytes
 * per account, whose pool (if any) holds at least its bytes and is not over its limit;
 * any other takes the packets one at a time.
 */
static inline int
fe_link_gated_whole(const struct fe_link *l)
{
	return l->gated && l->acct == NULL && fe_link_burst_whole(l);
}

/*
 * Offer n packets, in order, at ticks o[i].at that do not decrease, each only if it finds
 * room: fe_link_has_room(l, o[i].len, o[i].at), and fewer than max_q packets in the
 * buffer. The first that finds none and those after it are not offered (o[i].why is not
 * written). Returns how many were taken: the same, to the counter and the tick, as that
 * test and then fe_link_enqueue_x(l, o[i].pkt, o[i].len, o[i].at, 0, o[i].label) for
 * each (test_link checks it). What an input-queued switch's output takes from an input
 * whose frames cross at once (credits); nothing offered is dropped.
 *
 * open (or NULL): the credit loop that is the link's gate (fe_credit_gate_inline()); each
 * packet taken is then started at once if it can (nothing waits ahead of it, the
 * serializer is free at its tick and open holds its blocks then, which are taken), and
 * the first offered while one waits is not offered either: the same, the credit too, as
 * each taken followed by fe_link_pump_inline(l, o[i].at, fe_credit_gate_inline, open).
 */
struct fe_credit;

/*
 * Credits: the ticks the head of gated link l has waited by now for the credits of its
 * lane (c: the link's sender's), which c's stall_ticks counts only once the gate takes
 * them: to the return that brought them if it came by now (what the gate will add), else
 * to now; 0 if the head is not of that lane or did not wait. Read off the lcore too: the
 * indices read once, a torn pair ignored (test_engine a_credit_stall_*).
 */
uint64_t fe_link_credit_waiting(const struct fe_link *l, const struct fe_credit *c, uint8_t lane,
				uint64_t now);

/* its parts: the burst whole (a link fe_link_gated_whole()), and one at a time */
unsigned fe_link_while_room_whole(struct fe_link *l, struct fe_link_offer *o, unsigned n,
				  uint32_t max_q, struct fe_credit *open);
unsigned fe_link_while_room_each(struct fe_link *l, struct fe_link_offer *o, unsigned n,
				 uint32_t max_q, struct fe_credit *open);

static inline unsigned
fe_link_enqueue_while_room(struct fe_link *l, struct fe_link_offer *o, unsigned n, uint32_t max_q,
			   struct fe_credit *open)
{
	unsigned k = 0;

	if (fe_link_gated_whole(l)) {
		k = fe_link_while_room_whole(l, o, n, max_q, open);
		/* from the first without room, if one: the pool may only look full */
		if (k == n || (open != NULL && l->sched != l->tail))
			return k;
	}
	return k + fe_link_while_room_each(l, o + k, n - k, max_q, open);
}

/*
 * At now, hold the serializer until tick `until` (the receiver stopped taking: a pause
 * storm, credits not returned). Packets already serialized keep their times; the next
 * starts no earlier than `until`. The time held is counted in held_ns.
 */
void fe_link_hold(struct fe_link *l, uint64_t now, uint64_t until);

/*
 * Eager links: a pause from now to `until` that holds what waits too (an 802.1Qbb pause
 * the receiver sent): the packets that have not started serializing by now start again
 * from `until`, in order, with the jitter they had; the serializer is held as
 * fe_link_hold() holds it (held_ns). Returns how many were moved.
 */
unsigned fe_link_pause(struct fe_link *l, uint64_t now, uint64_t until);

/*
 * Eager links: end a hold at now, as a PFC watchdog that ignores the receiver's pauses
 * does. The packets waiting behind it that have not started serializing are serialized
 * again from now, in order, with the jitter they had; held_ns loses what was not held.
 * Returns how many were moved. (The sojourn histogram keeps each packet's first count.)
 */
unsigned fe_link_release(struct fe_link *l, uint64_t now);

/*
 * Eager links: the slot of the first packet in the buffer that has not started
 * serializing by now (l advanced to now); l->tail if every one has.
 */
uint32_t fe_link_unstarted(struct fe_link *l, uint64_t now);

/*
 * Eager links: drop, from the tail, up to max of the packets that have not started
 * serializing by now (counted as why, returned in pkts for the caller to free); a hold
 * stays. Returns how many.
 */
unsigned fe_link_discard_unstarted(struct fe_link *l, uint64_t now, enum fe_link_drop why,
				   void **pkts, unsigned max);

/*
 * A link with no rate, no delay and no gate delivers a packet the instant it is
 * offered: when it holds nothing (so that nothing is overtaken), the caller may hand
 * the packet on at once and count it here, in and out, as the ring would have.
 */
static inline int
fe_link_ideal(const struct fe_link *l)
{
	return l->cfg.tpb_fp == 0 && l->cfg.prop_ticks == 0 && !l->gated;
}

static inline int
fe_link_passthru(const struct fe_link *l)
{
	/* held (a pause storm), an ideal link keeps what it is offered until the hold ends
	 * (hold_until is cleared when the link is empty again after it: fe_link_dequeue) */
	return fe_link_ideal(l) && l->head == l->tail && l->hold_until == 0;
}

/*
 * n frames left link l `late` ticks after the tick the model scheduled (the up link:
 * when the switch took them; the down link: when they were handed to the port).
 */
static inline void
fe_link_late_n(struct fe_link *l, uint64_t late, uint32_t n)
{
	FE_CNT_ADD(l->st.late_hist[fe_qhist_bucket(fe_fp_to_ns(late, l->cfg.ns_fp))], n);
}

static inline void
fe_link_late(struct fe_link *l, uint64_t late)
{
	fe_link_late_n(l, late, 1);
}

/* n frames left link l exactly when the model said (a pass-through up link). */
static inline void
fe_link_late_none(struct fe_link *l, uint32_t n)
{
	FE_CNT_ADD(l->st.late_hist[0], n);
}

/* n packets of `bytes` in all went through a pass-through link (counted once a burst). */
static inline void
fe_link_count_through_n(struct fe_link *l, uint32_t n, uint64_t bytes)
{
	FE_CNT_ADD(l->st.in_pkts, n);
	FE_CNT_ADD(l->st.in_bytes, bytes);
	FE_CNT_ADD(l->st.out_pkts, n);
	FE_CNT_ADD(l->st.out_bytes, bytes);
	FE_CNT_ADD(l->st.qdepth_hist[0], n);
	FE_CNT_ADD(l->st.sojourn_hist[0], n);
}

static inline void
fe_link_count_through(struct fe_link *l, uint32_t len)
{
	fe_link_count_through_n(l, 1, len);
}

/* Count a packet the caller dropped before offering it (loss models, rules, AQM). */
int fe_link_drop(struct fe_link *l, enum fe_link_drop why, uint32_t len, uint8_t lane);

/*
 * Take up to max packets that have arrived by now, in order. stamps[i] gets each packet's
 * exact arrival tick, so the next hop can start from it.
 */
unsigned fe_link_dequeue_some(struct fe_link *l, uint64_t now, void **pkts, uint64_t *stamps,
			      unsigned max);

static inline unsigned
fe_link_dequeue(struct fe_link *l, uint64_t now, void **pkts, uint64_t *stamps, unsigned max)
{
	/* empty, and no hold to end: nothing to advance, count or publish, and no call (an
	 * ideal down link's every TX burst) */
	if (l->head == l->tail && l->hold_until == 0)
		return 0;
	return fe_link_dequeue_some(l, now, pkts, stamps, max);
}

/* Arrival tick of the next packet to deliver, or UINT64_MAX when the link is empty. */
static inline uint64_t
fe_link_next_arrival(const struct fe_link *l)
{
	return l->head == l->tail ? UINT64_MAX : l->slots[l->head & l->mask].arrive;
}

/* The tick the oldest packet not delivered reaches the far end, once it is scheduled
 * (UINT64_MAX: none, or not yet scheduled). */
static inline uint64_t
fe_link_next_due(const struct fe_link *l)
{
	return l->head == l->sched ? UINT64_MAX : l->slots[l->head & l->mask].arrive;
}

static inline uint32_t
fe_link_count(const struct fe_link *l)
{
	return l->tail - l->head;
}

/* Packets serialized and on the wire (no longer in the buffer). */
static inline uint32_t
fe_link_count_wire(const struct fe_link *l)
{
	return l->svc - l->head;
}

/*
 * Copy the occupancy (q_pkts, q_bytes, wire_pkts) and its peaks into st, where readers
 * see them. fe_link_dequeue() and fe_link_flush() do it on every call that finds the
 * link non-empty, so readers are at most one poll behind; an enqueue does not, which
 * keeps its stores on the link's own cache lines.
 */
void fe_link_publish(struct fe_link *l);

/* Restart the peaks from the occupancy now (a counter reset, by the owner). */
void fe_link_reset_peaks(struct fe_link *l);

/*
 * Remove every packet (at shutdown); returns how many were put in pkts (up to max).
 * They are counted as stopped_pkts, so that in = out + drops + queued + on the wire +
 * stopped still holds once the link is empty.
 */
unsigned fe_link_flush(struct fe_link *l, void **pkts, unsigned max);

/*
 * Gated links: drop every packet still waiting for its gate (none has started), with
 * cause why; returns how many were put in pkts (up to max: call again while it fills).
 * Dropped, so in = out + drops + queued + on the wire still holds.
 */
unsigned fe_link_discard_waiting(struct fe_link *l, enum fe_link_drop why, void **pkts,
				 unsigned max);

#endif
