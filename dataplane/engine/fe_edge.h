/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_edge: how long frames waited at the edge, in the kernel's receive ring, before the
 * dataplane read them. The lcore's side; the control side (control/server/fe_kernel.c) finds
 * the ring and keeps the kernel's loss counters.
 *
 * DPDK 22.11's AF_PACKET PMD reads a TPACKET_V2 ring whose every frame carries the
 * kernel's receive time (tp_sec, tp_nsec: CLOCK_REALTIME when the frame entered the
 * ring), but it does not pass that time on (no timestamp offload). A frame the kernel
 * has handed to user space (TP_STATUS_USER) stays untouched until the PMD reads it, and
 * the PMD reads the ring in order, one slot a frame. So before each RX burst the lcore
 * reads the headers of the frames the PMD is about to return, and after it checks
 * every one against the mbuf the PMD made of it (its length): any mismatch means the
 * ring is not read as assumed, and the port stops being timed (counted, never a wrong
 * figure). A frame that arrived between the look and the burst is counted unstamped; so
 * that it is rare, a look that finds the ring empty is not followed by a burst (the
 * frame is read, stamped, at the next look), but for every FE_EDGE_IDLE_BURST-th one in
 * a row (should the ring ever be read from elsewhere than the look assumes, frames
 * still flow, counted unstamped).
 *
 *   n = fe_edge_peek(&ring, room, stamps, lens);      // before rte_eth_rx_burst
 *   if (n == 0 && !fe_edge_idle_burst(&ring)) return;  // nothing there yet
 *   got = rte_eth_rx_burst(...);
 *   fe_edge_account(&ring, &st, pkts, got, n, stamps, lens, now_realtime_ns);
 *
 * Ownership:  control: wo before the lcore starts (ring), ro (stats)   lcore: rw
 */
#ifndef FE_EDGE_H
#define FE_EDGE_H

#include <linux/if_packet.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "fe_counter.h"
#include "fe_link.h"
#include "fe_qhist.h"

/* The PMD's receive ring, as the lcore reads it; base NULL: not timed. */
struct fe_edge_ring {
	uint8_t *base;	     /* frame 0 of the RX ring */
	uint32_t frame_size; /* bytes a slot */
	uint32_t frames;     /* slots */
	uint32_t next;	     /* the slot the PMD reads next (its own frame number) */
	uint8_t held;	     /* the engine left frames in the ring since the last burst */
	uint8_t idle;	     /* looks in a row that found the ring empty */
};

#define FE_EDGE_IDLE_BURST 16

/* A look found the ring empty: burst anyway (1), every FE_EDGE_IDLE_BURST-th time. */
static inline int
fe_edge_idle_burst(struct fe_edge_ring *r)
{
	if (++r->idle < FE_EDGE_IDLE_BURST)
		return 0;
	r->idle = 0;
	return 1;
}

/* In a peeked length: the kernel cut the frame to fit its ring slot. */
#define FE_EDGE_TRUNCATED 0x80000000u

struct fe_edge_stats {
	fe_counter_t stamped;	/* frames whose wait was measured */
	fe_counter_t truncated; /* frames the kernel cut to fit a ring slot (corrupted) */
	fe_counter_t unstamped; /* frames read with no stamp (they came after the look) */
	fe_counter_t held;	/* frames a lossless fabric held in the ring: not timed */
	fe_counter_t mismatch;	/* a frame was not the one looked at: timing stopped */
	fe_counter_t wait_hist[FE_QHIST_BUCKETS]; /* ns from the kernel's stamp to the read */
};

static inline const struct tpacket2_hdr *
fe_edge_slot(const struct fe_edge_ring *r, uint32_t i)
{
	return (const struct tpacket2_hdr *)(r->base + (size_t)i * r->frame_size);
}

/*
 * The kernel's stamps (ns, CLOCK_REALTIME) and lengths of the next frames the PMD will
 * return, at most max; returns how many are ready in the ring.
 */
static inline unsigned
fe_edge_peek(const struct fe_edge_ring *r, unsigned max, uint64_t *stamp, uint32_t *len)
{
	uint32_t i = r->next;
	unsigned n = 0;

	for (; n < max; n++) {
		const struct tpacket2_hdr *h = fe_edge_slot(r, i);

		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
			break;
		stamp[n] = (uint64_t)h->tp_sec * 1000000000 + h->tp_nsec;
		/* the PMD puts a stripped VLAN tag back into the frame */
		len[n] = h->tp_snaplen + (h->tp_status & TP_STATUS_VLAN_VALID ? 4 : 0);
		if (h->tp_len != h->tp_snaplen)
			len[n] |= FE_EDGE_TRUNCATED;
		if (++i == r->frames)
			i = 0;
	}
	return n;
}

/*
 * After the burst: got frames came back, the first `ready` of them looked at. Each
 * one's wait is now_rt - its stamp. The ring's position moves past all of them.
 */
static inline void
fe_edge_account(struct fe_edge_ring *r, struct fe_edge_stats *st, struct rte_mbuf **pkts,
		unsigned got, unsigned ready, const uint64_t *stamp, const uint32_t *len,
		uint64_t now_rt)
{
	unsigned k, timed = got < ready ? got : ready;

	r->idle = 0;
	r->next = (uint32_t)(((uint64_t)r->next + got) % r->frames);
	/* every frame checked before any is counted: one that is not the frame looked at
	 * means the ring is not what we think, and none of the burst's waits is trusted */
	for (k = 0; k < timed; k++)
		if (unlikely(rte_pktmbuf_pkt_len(pkts[k]) != (len[k] & ~FE_EDGE_TRUNCATED))) {
			FE_CNT_ADD(st->mismatch, 1);
			FE_CNT_ADD(st->unstamped, got);
			__atomic_store_n(&r->base, NULL, __ATOMIC_RELAXED);
			return;
		}
	for (k = 0; k < timed; k++)
		if (unlikely(len[k] & FE_EDGE_TRUNCATED))
			FE_CNT_ADD(st->truncated, 1);
	/* a lossless fabric held these frames in the ring (its host adapter queue was
	 * full): their wait is the fabric's backpressure, not the box's */
	if (r->held) {
		r->held = 0;
		FE_CNT_ADD(st->held, got);
		return;
	}
	for (k = 0; k < timed; k++)
		FE_CNT_ADD(
			st->wait_hist[fe_qhist_bucket(now_rt > stamp[k] ? now_rt - stamp[k] : 0)],
			1);
	FE_CNT_ADD(st->stamped, timed);
	FE_CNT_ADD(st->unstamped, got - timed);
}

#endif
