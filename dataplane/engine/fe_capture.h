/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_capture: the lcore's side of a packet capture of one link. The control thread
 * creates a tap (a ring and a pool of copies, control/fe_capture.c) and publishes it
 * in dp->tap; the lcore copies each packet the link delivers, and optionally each
 * one it drops, into the pool with its time and fate, and enqueues the copy on the
 * single-producer ring. A full ring or an empty pool loses the copy, never the
 * packet, and is counted. The control thread writes the copies to a pcapng file.
 *
 *   ctlplane: creates, publishes, drains, frees after quiescence   lcore: ro + ring/counters
 */
#ifndef FE_CAPTURE_H
#define FE_CAPTURE_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "fe_counter.h"

#define FE_TAP_DELIVERED 0xff /* fate of a packet the link carried; else enum fe_link_drop */

/* Kept in the private area of every copy. */
struct fe_tap_meta {
	uint64_t tsc;	   /* when it arrived at the far end, or was dropped */
	uint32_t orig_len; /* length before the snap */
	uint8_t fate;
};

struct fe_tap {
	struct rte_ring *ring;
	struct rte_mempool *pool;
	uint32_t snaplen;
	uint32_t link; /* the link table's row (fe_dp_link_id()) */
	uint8_t drops; /* also capture what the link dropped */
	fe_counter_t captured, lost;
};

static inline void
fe_tap_pkt(struct fe_tap *t, struct rte_mbuf *m, uint64_t tsc, uint8_t fate)
{
	struct rte_mbuf *c;
	struct fe_tap_meta *meta;

	if (fate != FE_TAP_DELIVERED && !t->drops)
		return;
	c = rte_pktmbuf_copy(m, t->pool, 0, t->snaplen);
	if (c == NULL) {
		FE_CNT_ADD(t->lost, 1);
		return;
	}
	meta = rte_mbuf_to_priv(c);
	meta->tsc = tsc;
	meta->orig_len = rte_pktmbuf_pkt_len(m);
	meta->fate = fate;
	if (rte_ring_sp_enqueue(t->ring, c) != 0) {
		rte_pktmbuf_free(c);
		FE_CNT_ADD(t->lost, 1);
		return;
	}
	FE_CNT_ADD(t->captured, 1);
}

/* The tap on link n, if any (one load a burst). */
static inline struct fe_tap *
fe_tap_on(struct fe_tap *const *slot, unsigned n)
{
	struct fe_tap *t = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	return t != NULL && t->link == n ? t : NULL;
}

#endif
