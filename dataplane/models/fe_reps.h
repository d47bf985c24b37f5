/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_reps: REPS, recycled entropy packet spraying, as Ultra Ethernet's reference simulator
 * runs it (ultraethernet/uet-htsim: uec_mp.cpp UecMpReps, buffer_reps.cpp): a sender keeps
 * the last FE_REPS_SIZE entropies whose frames came back unmarked and sends each new frame
 * with the oldest of them not used since; with none, with one never used (the switches
 * hash it with the flow to choose among their next hops). The paper: Bonato et al., "REPS:
 * Recycled Entropy Packet Spraying for Adaptive Load Balancing and Failure Mitigation",
 * arXiv 2407.21625 (entropies that came back unmarked used again, marked ones let go; a
 * failure routed around in under 100 us, its abstract says); the simulator's code is
 * followed.
 *
 * After a retransmission timeout it freezes: for freeze ticks it sends over the entropies
 * it kept, in turn, used or not (the paths known to work, where a failed link has taken
 * some of the others); the first feedback after that empties the buffer and explores:
 * FE_REPS_EXPLORE frames with entropies never used. A timeout while frozen, or while
 * exploring, does not freeze again.
 *
 * Where the simulator draws a new entropy at random, here it is the next of the 256 in
 * turn (the same spread over the paths, and a run replays). One per flow; the fast path
 * allocates nothing; time is passed in (tests/unit/test_reps.c).
 *
 *   fe_reps_init(&r);
 *   ev = fe_reps_next(&r);                           // a frame's entropy
 *   fe_reps_feedback(&r, ev, good, now);             // its ACK (good: unmarked), NAK
 *   froze = fe_reps_timeout(&r, freeze, now);        // the flow's timeout fired
 */
#ifndef FE_REPS_H
#define FE_REPS_H

#include <stdint.h>

#define FE_REPS_SIZE	8  /* entropies kept (uet-htsim: repsBufferSize) */
#define FE_REPS_EXPLORE 16 /* new entropies after a freeze (uet-htsim: explore_counter) */
_Static_assert(FE_REPS_SIZE <= 8, "fe_reps.valid holds a bit an entry");

struct fe_reps {
	uint8_t ev[FE_REPS_SIZE];
	uint8_t valid;	 /* bit i: ev[i] not used since it came back */
	uint8_t head;	 /* where the next good one is written */
	uint8_t count;	 /* entries written, at most FE_REPS_SIZE */
	uint8_t fresh;	 /* valid entries: the last `fresh` written, outside a freeze */
	uint8_t at;	 /* frozen: the entry sent next */
	uint8_t explore; /* new entropies still to send after a freeze */
	uint8_t next;	 /* the next entropy never used */
	uint8_t frozen;
	uint64_t thaw; /* frozen: the first feedback after this tick ends it */
	uint64_t freezes, recycled, fresh_sent;
};

static inline void
fe_reps_init(struct fe_reps *r)
{
	*r = (struct fe_reps){0};
}

static inline uint8_t
fe_reps_new(struct fe_reps *r)
{
	r->fresh_sent++;
	return r->next++;
}

/* The entropy the next frame takes (fe_reps_next()), left for it. */
static inline uint8_t
fe_reps_peek(const struct fe_reps *r)
{
	if (r->explore || r->count == 0 || (!r->frozen && r->fresh == 0))
		return r->next;
	if (r->frozen)
		return r->ev[r->at];
	return r->ev[(uint8_t)(r->head + FE_REPS_SIZE - r->fresh) % FE_REPS_SIZE];
}

/* A frame's entropy: a new one while exploring or with none kept; frozen, the kept ones
 * in turn; else the oldest kept one not used since it came back. */
static inline uint8_t
fe_reps_next(struct fe_reps *r)
{
	uint8_t i, ev;

	if (r->explore) {
		r->explore--;
		return fe_reps_new(r);
	}
	if (r->count == 0 || (!r->frozen && r->fresh == 0))
		return fe_reps_new(r);
	if (r->frozen) {
		i = r->at;
		r->at = (uint8_t)((r->at + 1) % r->count);
	} else {
		i = (uint8_t)((r->head + FE_REPS_SIZE - r->fresh) % FE_REPS_SIZE);
	}
	ev = r->ev[i];
	if (r->valid & (1u << i)) {
		r->valid &= (uint8_t) ~(1u << i);
		r->fresh--;
	}
	r->recycled++;
	return ev;
}

/* A freeze past its end is over (at any feedback, the timeout's too): the buffer emptied,
 * and FE_REPS_EXPLORE new entropies next. */
static inline void
fe_reps_thaw(struct fe_reps *r, uint64_t now)
{
	if (!r->frozen || now <= r->thaw)
		return;
	r->valid = r->head = r->count = r->fresh = r->at = r->frozen = 0;
	r->thaw = 0;
	r->explore = FE_REPS_EXPLORE;
}

/*
 * Feedback on a frame sent with entropy ev, at now: good, it came back unmarked (an ACK
 * without ECN, or a NAK of a frame trimmed at the last hop: its path was not the
 * congestion), and ev is kept, over the oldest kept when all FE_REPS_SIZE are; else
 * (marked, trimmed on the way) it is let go.
 */
static inline void
fe_reps_feedback(struct fe_reps *r, uint8_t ev, int good, uint64_t now)
{
	fe_reps_thaw(r, now);
	if (!good)
		return;
	if (!(r->valid & (1u << r->head)))
		r->fresh++;
	r->ev[r->head] = ev;
	r->valid |= (uint8_t)(1u << r->head);
	r->head = (uint8_t)((r->head + 1) % FE_REPS_SIZE);
	if (r->count < FE_REPS_SIZE)
		r->count++;
}

/* The flow's retransmission timeout fired at now: frozen for freeze ticks (0: never),
 * unless frozen or exploring already (then, as any feedback, it may end a freeze). 1 if
 * it froze now. */
static inline int
fe_reps_timeout(struct fe_reps *r, uint64_t freeze, uint64_t now)
{
	int froze = freeze && !r->frozen && !r->explore;

	if (froze) {
		r->frozen = 1;
		r->at = 0;
		r->thaw = now + freeze;
		r->freezes++;
	}
	fe_reps_thaw(r, now);
	return froze;
}

#endif
