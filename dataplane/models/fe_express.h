/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_express: frames that overtake a link's data, each due at its tick (Ultra Ethernet's
 * trimmed headers on the switches' priority queue, docs/uec.md), in order: a frame is never
 * due before the one put ahead of it. A ring of a power of two slots that its owner keeps;
 * the fast path allocates nothing.
 *
 *   fe_express_init(&q, slots, 64);
 *   fe_express_put(&q, m, due);             // 0, or -1 when full (the caller drops m)
 *   while ((m = fe_express_take(&q, now, &due)) != NULL) ...   // due by now, in order
 *   fe_express_next(&q);                    // the next one's tick; UINT64_MAX: empty
 *
 * One model for the hop links' priority queues (fe_graph_trimmed()) and an emulated NIC's
 * queue of trimmed headers (fe_nic_trimmed()); time is passed in (tests/unit/test_express.c).
 */
#ifndef FE_EXPRESS_H
#define FE_EXPRESS_H

#include <stddef.h>
#include <stdint.h>

struct fe_express_slot {
	void *m;
	uint64_t due;
};

struct fe_express {
	struct fe_express_slot *s; /* [mask + 1], the owner's */
	uint32_t mask;
	uint32_t head, tail; /* free running */
};

/* q over n slots (a power of two), empty. */
static inline void
fe_express_init(struct fe_express *q, struct fe_express_slot *s, uint32_t n)
{
	q->s = s;
	q->mask = n - 1;
	q->head = q->tail = 0;
}

static inline uint32_t
fe_express_count(const struct fe_express *q)
{
	return q->tail - q->head;
}

/* The tick the first frame is due at; UINT64_MAX if none waits. */
static inline uint64_t
fe_express_next(const struct fe_express *q)
{
	return q->head == q->tail ? UINT64_MAX : q->s[q->head & q->mask].due;
}

/* m due at due, or at the last one's tick if that is later (in order): 0, or -1 if full. */
static inline int
fe_express_put(struct fe_express *q, void *m, uint64_t due)
{
	if (q->tail - q->head > q->mask)
		return -1;
	if (q->tail != q->head && q->s[(q->tail - 1) & q->mask].due > due)
		due = q->s[(q->tail - 1) & q->mask].due;
	q->s[q->tail & q->mask] = (struct fe_express_slot){.m = m, .due = due};
	q->tail++;
	return 0;
}

/* The first frame if it is due by now (its tick in *due), taken; else NULL. */
static inline void *
fe_express_take(struct fe_express *q, uint64_t now, uint64_t *due)
{
	const struct fe_express_slot *x;

	if (q->head == q->tail || q->s[q->head & q->mask].due > now)
		return NULL;
	x = &q->s[q->head++ & q->mask];
	*due = x->due;
	return x->m;
}

/* The first frame whenever it is due (the dataplane stopping: freed); NULL if none. */
static inline void *
fe_express_drain(struct fe_express *q)
{
	return q->head == q->tail ? NULL : q->s[q->head++ & q->mask].m;
}

#endif
