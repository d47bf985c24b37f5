/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The edge timing (dataplane/engine/fe_edge.h) over a ring in memory laid out as the kernel lays
 * out a TPACKET_V2 ring: stamps read before the burst, checked against what came back,
 * the ring's position wrapping, frames that came after the look, a mismatch stopping it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "fe_edge.h"

#define FRAMES 4
#define FSZ    256

static uint8_t ring[FRAMES * FSZ];
static struct rte_mbuf mb[8];
static struct rte_mbuf *pkts[8];

static void
frame(unsigned slot, uint32_t len, uint64_t t_ns)
{
	struct tpacket2_hdr *h = (struct tpacket2_hdr *)(ring + slot * FSZ);

	h->tp_status = TP_STATUS_USER;
	h->tp_snaplen = len;
	h->tp_len = len;
	h->tp_sec = (uint32_t)(t_ns / 1000000000);
	h->tp_nsec = (uint32_t)(t_ns % 1000000000);
}

/* The PMD returned frames of these lengths; their slots go back to the kernel. */
static void
returned(struct fe_edge_ring *r, const uint32_t *len, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		mb[k].pkt_len = len[k];
		pkts[k] = &mb[k];
		((struct tpacket2_hdr *)(ring + ((r->next + k) % FRAMES) * FSZ))->tp_status =
			TP_STATUS_KERNEL;
	}
}

Test(edge, waits_from_the_kernel_stamps)
{
	struct fe_edge_ring r = {.base = ring, .frame_size = FSZ, .frames = FRAMES, .next = 2};
	struct fe_edge_stats st = {0};
	uint64_t stamp[8], now = 5000000000ULL; /* 5 s */
	uint32_t len[8], got[] = {60, 1514, 100};
	unsigned ready;

	memset(ring, 0, sizeof(ring));
	/* slots 2, 3 and then 0 (the ring wraps): waited 300 ns, 5 us, 1 ms */
	frame(2, 60, now - 300);
	frame(3, 1514, now - 5000);
	frame(0, 100, now - 1000000);
	ready = fe_edge_peek(&r, 8, stamp, len);
	cr_assert_eq(ready, 3, "three frames ready, the fourth slot is the kernel's");
	returned(&r, got, 3);
	fe_edge_account(&r, &st, pkts, 3, ready, stamp, len, now);
	cr_assert_eq(st.stamped, 3);
	cr_assert_eq(st.unstamped, 0);
	cr_assert_eq(st.wait_hist[fe_qhist_bucket(300)], 1);
	cr_assert_eq(st.wait_hist[fe_qhist_bucket(5000)], 1);
	cr_assert_eq(st.wait_hist[fe_qhist_bucket(1000000)], 1);
	cr_assert_eq(r.next, 1, "past slot 0 after the wrap");
	cr_assert_not_null(r.base);
}

Test(edge, frames_after_the_look_are_unstamped)
{
	struct fe_edge_ring r = {.base = ring, .frame_size = FSZ, .frames = FRAMES, .next = 0};
	struct fe_edge_stats st = {0};
	uint64_t stamp[8];
	uint32_t len[8], got[] = {60, 60};
	unsigned ready;

	memset(ring, 0, sizeof(ring));
	frame(0, 60, 1000);
	ready = fe_edge_peek(&r, 8, stamp, len);
	frame(1, 60, 2000); /* arrived between the look and the burst */
	returned(&r, got, 2);
	fe_edge_account(&r, &st, pkts, 2, ready, stamp, len, 3000);
	cr_assert_eq(st.stamped, 1);
	cr_assert_eq(st.unstamped, 1);
	cr_assert_eq(r.next, 2);
}

/* A mismatch anywhere in a burst: none of its waits is kept (it may not be the first). */
Test(edge, a_late_mismatch_keeps_no_wait_of_the_burst)
{
	struct fe_edge_ring r = {.base = ring, .frame_size = FSZ, .frames = FRAMES, .next = 0};
	struct fe_edge_stats st = {0};
	uint64_t stamp[8];
	uint32_t len[8], got[] = {60, 60, 61};
	unsigned ready;

	memset(ring, 0, sizeof(ring));
	frame(0, 60, 1000);
	frame(1, 60, 1000);
	frame(2, 60, 1000);
	ready = fe_edge_peek(&r, 8, stamp, len);
	returned(&r, got, 3);
	fe_edge_account(&r, &st, pkts, 3, ready, stamp, len, 3000);
	cr_assert_eq(st.mismatch, 1);
	cr_assert_eq(st.stamped, 0);
	cr_assert_eq(st.unstamped, 3, "every frame of the burst counted, none timed");
	for (unsigned i = 0; i < FE_QHIST_BUCKETS; i++)
		cr_assert_eq(st.wait_hist[i], 0, "bucket %u", i);
	cr_assert_null(r.base);
}

/* Frames a lossless fabric held in the ring waited for the fabric: counted, not timed. */
Test(edge, frames_held_by_the_fabric)
{
	struct fe_edge_ring r = {.base = ring, .frame_size = FSZ, .frames = FRAMES, .next = 0};
	struct fe_edge_stats st = {0};
	uint64_t stamp[8];
	uint32_t len[8], got[] = {60, 60};
	unsigned ready;

	memset(ring, 0, sizeof(ring));
	frame(0, 60, 1000);
	frame(1, 60, 1000);
	r.held = 1; /* the engine read nothing last time: the up link was full */
	ready = fe_edge_peek(&r, 8, stamp, len);
	returned(&r, got, 2);
	fe_edge_account(&r, &st, pkts, 2, ready, stamp, len, 900000);
	cr_assert_eq(st.held, 2);
	cr_assert_eq(st.stamped, 0);
	cr_assert_eq(r.held, 0);
	cr_assert_eq(r.next, 2);
}

Test(edge, a_mismatch_stops_the_timing)
{
	struct fe_edge_ring r = {.base = ring, .frame_size = FSZ, .frames = FRAMES, .next = 0};
	struct fe_edge_stats st = {0};
	uint64_t stamp[8];
	uint32_t len[8], got[] = {61};
	unsigned ready;

	memset(ring, 0, sizeof(ring));
	frame(0, 60, 1000);
	ready = fe_edge_peek(&r, 8, stamp, len);
	returned(&r, got, 1); /* the PMD returned another frame than the one looked at */
	fe_edge_account(&r, &st, pkts, 1, ready, stamp, len, 3000);
	cr_assert_eq(st.mismatch, 1);
	cr_assert_eq(st.stamped, 0, "no wait recorded from a frame that may not be the one");
	cr_assert_null(r.base, "the port is not timed any more");
}

/* A frame the kernel cut to fit its slot is counted: it reaches the host corrupted. */
Test(edge, truncated_frames)
{
	struct fe_edge_ring r = {.base = ring, .frame_size = FSZ, .frames = FRAMES, .next = 0};
	struct fe_edge_stats st = {0};
	uint64_t stamp[8];
	uint32_t len[8], got[] = {190};
	unsigned ready;

	memset(ring, 0, sizeof(ring));
	frame(0, 190, 1000);
	((struct tpacket2_hdr *)ring)->tp_len = 1514; /* the frame was 1514 bytes */
	ready = fe_edge_peek(&r, 8, stamp, len);
	returned(&r, got, 1);
	fe_edge_account(&r, &st, pkts, 1, ready, stamp, len, 3000);
	cr_assert_eq(st.truncated, 1);
	cr_assert_eq(st.stamped, 1);
	cr_assert_not_null(r.base, "a truncated frame is still the frame looked at");
}

Test(edge, a_stamp_after_now_counts_as_no_wait)
{
	struct fe_edge_ring r = {.base = ring, .frame_size = FSZ, .frames = FRAMES, .next = 0};
	struct fe_edge_stats st = {0};
	uint64_t stamp[8];
	uint32_t len[8], got[] = {60};
	unsigned ready;

	memset(ring, 0, sizeof(ring));
	frame(0, 60, 5000); /* the clocks' offset is known to within a few us */
	ready = fe_edge_peek(&r, 8, stamp, len);
	returned(&r, got, 1);
	fe_edge_account(&r, &st, pkts, 1, ready, stamp, len, 4000);
	cr_assert_eq(st.wait_hist[0], 1);
}

/*
 * A look that finds the ring empty is not followed by a burst, so that a frame coming
 * just then is read at the next look, stamped; but every FE_EDGE_IDLE_BURST-th empty
 * look in a row is (frames flow even if the ring were not read as the look assumes),
 * and a burst starts the count again.
 */
Test(edge, an_empty_look_skips_the_burst)
{
	struct fe_edge_ring r = {.base = ring, .frame_size = FSZ, .frames = FRAMES};
	struct fe_edge_stats st = {0};
	uint64_t stamp[8];
	uint32_t len[8], got[] = {60};
	unsigned bursts = 0;

	memset(ring, 0, sizeof(ring));
	for (int look = 0; look < 4 * FE_EDGE_IDLE_BURST; look++) {
		cr_assert_eq(fe_edge_peek(&r, 8, stamp, len), 0);
		bursts += (unsigned)fe_edge_idle_burst(&r);
	}
	cr_assert_eq(bursts, 4, "one burst in %d empty looks", FE_EDGE_IDLE_BURST);
	for (int look = 0; look < FE_EDGE_IDLE_BURST - 2; look++)
		cr_assert_eq(fe_edge_idle_burst(&r), 0);
	/* a frame: looked at, read, stamped; the empty looks count from 0 again */
	frame(0, 60, 1000);
	cr_assert_eq(fe_edge_peek(&r, 8, stamp, len), 1);
	returned(&r, got, 1);
	fe_edge_account(&r, &st, pkts, 1, 1, stamp, len, 3000);
	cr_assert_eq(st.stamped, 1);
	cr_assert_eq(st.unstamped, 0);
	for (int look = 0; look < FE_EDGE_IDLE_BURST - 1; look++)
		cr_assert_eq(fe_edge_idle_burst(&r), 0, "look %d after the burst", look);
	cr_assert_eq(fe_edge_idle_burst(&r), 1);
}
