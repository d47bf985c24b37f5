/* SPDX-License-Identifier: BSD-3-Clause */
/* Lossless flow control over a fake clock: gated links, credits in 64-byte blocks, PFC. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fe_credit.h"
#include "fe_link.h"
#include "fe_pfc.h"

#define HZ 1000000000ULL /* 1 tick = 1 ns */

static struct fe_link *
gated_link(uint64_t rate, uint64_t delay_ns)
{
	struct fe_link_params p = {.rate_bps = rate, .delay_ns = delay_ns};
	struct fe_link_cfg cfg;
	struct fe_link *l = calloc(1, sizeof(*l));

	cr_assert_eq(fe_link_compile(&p, HZ, &cfg), 0);
	fe_link_init(l, &cfg, calloc(cfg.nslots, sizeof(struct fe_link_slot)));
	l->gated = 1;
	return l;
}

Test(credit, blocks_are_64_bytes)
{
	const struct fe_credit_unit u = fe_credit_unit_of(0);

	cr_assert_eq(u.bytes, 64);
	cr_assert_eq(fe_credit_blocks(&u, 0), 0);
	cr_assert_eq(fe_credit_blocks(&u, 1), 1);
	cr_assert_eq(fe_credit_blocks(&u, 64), 1);
	cr_assert_eq(fe_credit_blocks(&u, 65), 2);
	cr_assert_eq(fe_credit_blocks(&u, 1514), 24);
}

/* The multiply is the division, rounded up: every unit to 4 KiB and the largest ones, every
 * length to a jumbo frame's and beyond (10,000 bytes) and the largest; a unit not a power of
 * two (a switch's 254-byte cell) takes 6 of them for a 1514-byte frame. */
Test(credit, blocks_of_any_unit_are_the_division)
{
	static const uint32_t big[] = {4097, 9000, 16384, 32767, 65535, 65536};
	struct fe_credit_unit u;
	unsigned bad = 0;

	for (uint32_t b = FE_CREDIT_UNIT_MIN; b <= 4096 + sizeof(big) / sizeof(big[0]); b++) {
		const uint32_t bytes = b <= 4096 ? b : big[b - 4097];

		u = fe_credit_unit_of(bytes);
		cr_assert_eq(u.bytes, bytes);
		for (uint32_t len = 0; len <= 10000; len++)
			bad += fe_credit_blocks(&u, len) != (len + bytes - 1) / bytes;
		for (uint32_t len = 65536 - 8; len <= 65536 + 8; len++)
			bad += fe_credit_blocks(&u, len) != (len + bytes - 1) / bytes;
	}
	cr_assert_eq(bad, 0, "%u lengths off the division", bad);
	u = fe_credit_unit_of(254);
	cr_assert_eq(fe_credit_blocks(&u, 1514), 6);
	cr_assert_eq(fe_credit_blocks(&u, 64), 1);
	cr_assert_eq(fe_credit_total(64 << 10, 254), 258);
	cr_assert_eq(fe_credit_update_blocks(4096, 254), 17);
	cr_assert_eq(fe_credit_update_blocks(254, 254), 0, "one block: each frame's");
}

/* A larger unit: a small frame takes a whole block, so fewer of them fit the same buffer. */
Test(credit, a_larger_unit_fits_fewer_small_frames)
{
	struct fe_credit c64, c256;
	struct fe_credit_ret r64[256], r256[256];
	unsigned n64 = 0, n256 = 0;

	fe_credit_init(&c64, 4096 / 64, 0, 1, 1000, r64);
	fe_credit_init(&c256, 4096 / 256, 256, 1, 1000, r256);
	while (fe_credit_gate(&c64, 0, 64, 0, 0) == 0)
		n64++;
	while (fe_credit_gate(&c256, 0, 64, 0, 0) == 0)
		n256++;
	cr_assert_eq(n64, 64, "4 KiB of 64-byte credits: %u 64-byte frames", n64);
	cr_assert_eq(n256, 16, "4 KiB of 256-byte credits: %u 64-byte frames", n256);
	/* a 1514-byte frame takes 24 blocks of 64 bytes, 6 of 256: the same 1536 bytes */
	fe_credit_init(&c256, 4096 / 256, 256, 1, 1000, r256);
	cr_assert_eq(fe_credit_gate(&c256, 0, 1514, 0, 0), 0);
	cr_assert_eq(c256.avail[0], 10);
}

Test(credit, accounting_and_return)
{
	struct fe_credit c;
	struct fe_credit_ret ring[64];

	cr_assert_geq(64, fe_credit_ring_size(10, 2));
	fe_credit_init(&c, 10, 0, 2, 500, ring);
	/* 640 bytes of lane 0 take all 10 blocks; lane 1 is independent */
	cr_assert_eq(fe_credit_gate(&c, 0, 640, 100, 100), 100);
	cr_assert_eq(c.avail[0], 0);
	cr_assert_eq(fe_credit_gate(&c, 0, 1, 200, 10000), UINT64_MAX, "no credit, none coming");
	cr_assert_eq(fe_credit_gate(&c, 1, 64, 200, 200), 200);
	/* the receiver frees 3 blocks at 1000: usable at 1500, not before */
	fe_credit_return(&c, 0, 3, 1000);
	cr_assert_eq(fe_credit_gate(&c, 0, 192, 1200, 1499), UINT64_MAX);
	cr_assert_eq(fe_credit_gate(&c, 0, 192, 1200, 1600), 1500, "starts when credits arrive");
	cr_assert_eq(c.stall_ticks[0], 300, "waited from 1200 to 1500");
	cr_assert_eq(c.avail[0], 0);
	cr_assert_eq(c.avail_min[0], 0);
}

Test(credit, waits_for_enough_blocks)
{
	struct fe_credit c;
	struct fe_credit_ret ring[64];

	fe_credit_init(&c, 4, 0, 1, 0, ring);
	cr_assert_eq(fe_credit_gate(&c, 0, 256, 0, 0), 0);
	fe_credit_return(&c, 0, 1, 100);
	fe_credit_return(&c, 0, 1, 200);
	/* a 2-block packet needs both returns */
	cr_assert_eq(fe_credit_gate(&c, 0, 100, 50, 1000), 200);
}

/*
 * Credit messages (update set): a lane's freed blocks go back once update of them have
 * gathered, all in one message, at the tick of the freeing that completed it; those
 * still gathering are unsent, and the sender does not hold them. Each message counted.
 */
Test(credit, a_message_gathers_update_blocks)
{
	struct fe_credit c;
	struct fe_credit_ret ring[256];

	fe_credit_init(&c, 64, 0, 2, 100, ring);
	c.update = 24;
	cr_assert_eq(fe_credit_gate(&c, 0, 64 * 64, 0, 0), 0, "all 64 blocks of lane 0 taken");
	fe_credit_return(&c, 0, 16, 1000); /* one 1000-byte frame freed: 16 of 24 */
	cr_assert_eq(c.unsent[0], 16);
	cr_assert_eq(fe_credit_next(&c), UINT64_MAX, "no message yet");
	cr_assert_eq(fe_credit_gate(&c, 0, 64, 1000, 50000), UINT64_MAX,
		     "the sender holds none of them");
	fe_credit_return(&c, 0, 16, 2000); /* 32: a message of all 32 */
	cr_assert_eq(c.unsent[0], 0);
	cr_assert_eq(fe_credit_next(&c), 2100, "sent as the second frame was freed");
	cr_assert_eq(fe_credit_gate(&c, 0, 32 * 64, 1500, 3000), 2100, "32 blocks at once");
	cr_assert_eq(c.updates[0], 1);
	/* lanes gather apart: lane 1's 16 wait for lane 1's own */
	cr_assert_eq(fe_credit_gate(&c, 1, 64 * 64, 3000, 3000), 3000);
	fe_credit_return(&c, 1, 16, 4000);
	fe_credit_return(&c, 0, 16, 4000);
	cr_assert_eq(c.unsent[0], 16);
	cr_assert_eq(c.unsent[1], 16);
	cr_assert_eq(fe_credit_next(&c), UINT64_MAX);
	fe_credit_return(&c, 1, 8, 5000); /* exactly 24: sent */
	cr_assert_eq(c.unsent[1], 0);
	cr_assert_eq(c.updates[1], 1);
	cr_assert_eq(fe_credit_gate(&c, 1, 24 * 64, 5000, 6000), 5100);
	/* every block is the sender's, out, or gathering */
	cr_assert_eq(c.avail[0] + c.unsent[0] + 48, 64, "%u held, %u unsent", c.avail[0],
		     c.unsent[0]);
}

/* Without update, each return is its own message (the finest: as each frame leaves),
 * not counted as one: nothing gathers. */
Test(credit, each_frame_its_own_message_by_default)
{
	struct fe_credit c;
	struct fe_credit_ret ring[64];

	fe_credit_init(&c, 10, 0, 1, 0, ring);
	cr_assert_eq(fe_credit_gate(&c, 0, 640, 0, 0), 0);
	for (int k = 0; k < 5; k++)
		fe_credit_return(&c, 0, 2, 100 + k);
	cr_assert_eq(c.updates[0], 0);
	cr_assert_eq(c.unsent[0], 0);
	cr_assert_eq(fe_credit_gate(&c, 0, 640, 200, 200), 200, "all back");
}

/* A sender with too few credits waits and resumes on a gated link, timing exact. */
Test(credit, gated_link_waits_and_resumes)
{
	struct fe_link *l = gated_link(1000000000, 1000);
	struct fe_credit c;
	struct fe_credit_ret ring[64];
	int pkt[4];
	void *out[4];
	uint64_t st[4];

	fe_credit_init(&c, 24, 0, 1, 400, ring); /* one 1514-byte frame's worth */
	for (int i = 0; i < 2; i++)
		cr_assert_eq(fe_link_enqueue_x(l, &pkt[i], 1514, 0, 0, 0), 0);
	cr_assert_eq(fe_link_pump(l, 0, fe_credit_gate, &c), 1, "only one has credits");
	/* the first: 12304 ns serialization + 1000 ns wire */
	cr_assert_eq(fe_link_dequeue(l, 13304, out, st, 4), 1);
	cr_assert_eq(st[0], 13304);
	/* its credits come back at 13304 + 400 (receiver freed them at arrival) */
	/* the second waits from 12304 (the serializer free), counted while it waits (the
	 * report's stall_ns): to now, then to the return once it came, as the gate counts it */
	cr_assert_eq(fe_link_credit_waiting(l, &c, 0, 13000), 13000 - 12304);
	cr_assert_eq(fe_link_credit_waiting(l, &c, 1, 13000), 0, "not lane 1's");
	fe_credit_return(&c, 0, 24, 13304);
	cr_assert_eq(fe_link_pump(l, 13703, fe_credit_gate, &c), 0);
	cr_assert_eq(fe_link_credit_waiting(l, &c, 0, 13703), 13703 - 12304);
	cr_assert_eq(fe_link_credit_waiting(l, &c, 0, 19999), 13704 - 12304, "back at 13704");
	cr_assert_eq(fe_link_pump(l, 20000, fe_credit_gate, &c), 1, "pumped late, starts on time");
	cr_assert_eq(fe_link_credit_waiting(l, &c, 0, 20000), 0, "none waits");
	cr_assert_eq(fe_link_dequeue(l, UINT64_MAX - 1, out, st, 4), 1);
	cr_assert_eq(st[0], 13704 + 12304 + 1000);
	cr_assert_eq(c.stall_ticks[0], 13704 - 12304);
	cr_assert_eq(l->st.drop_pkts[FE_LINK_DROP_TAIL], 0);
	free(l->slots);
	free(l);
}

static struct fe_pfc
pfc(void)
{
	struct fe_pfc p;
	/* 1 Gbit/s: quantum 512 ns; 65535 quanta, refreshed every half: 16.77 ms */
	struct fe_pfc_params prm = {
		.xoff = 20000, .xon = 10000, .headroom = 5000, .delay_ns = 2000, .quanta = 65535};

	cr_assert_eq(fe_pfc_init(&p, &prm, 1000000000, HZ), 0);
	return p;
}

Test(pfc, xoff_xon_hysteresis)
{
	struct fe_pfc p = pfc();

	fe_pfc_update(&p, 3, 19999, 100);
	cr_assert_eq(fe_pfc_xoff(&p, 3), 0);
	fe_pfc_update(&p, 3, 20000, 200);
	cr_assert_eq(fe_pfc_xoff(&p, 3), 1, "XOFF at the threshold");
	cr_assert_eq(p.prio[3].pause_frames, 1);
	/* between XON and XOFF: stays paused */
	fe_pfc_update(&p, 3, 15000, 300);
	cr_assert_eq(fe_pfc_xoff(&p, 3), 1);
	fe_pfc_update(&p, 3, 10001, 400);
	cr_assert_eq(fe_pfc_xoff(&p, 3), 1);
	fe_pfc_update(&p, 3, 10000, 500);
	cr_assert_eq(fe_pfc_xoff(&p, 3), 0, "XON at the threshold");
	cr_assert_eq(p.prio[3].pause_frames, 2, "PAUSE then XON");
	cr_assert_eq(p.prio[3].paused_ticks, (500 + 2000) - (200 + 2000));
	cr_assert_eq(fe_pfc_xoff(&p, 0), 0, "other priorities untouched");
}

Test(pfc, gate_follows_reaction_delay)
{
	struct fe_pfc p = pfc();

	fe_pfc_update(&p, 0, 25000, 1000); /* XOFF decided at 1000 */
	cr_assert_eq(fe_pfc_gate(&p, 0, 1500, 2999, 2999), 2999, "still sending during the delay");
	cr_assert_eq(fe_pfc_gate(&p, 0, 1500, 3000, 50000), UINT64_MAX, "paused from 3000");
	cr_assert_eq(fe_pfc_gate(&p, 1, 1500, 3000, 3000), 3000, "only priority 0 is paused");
	fe_pfc_update(&p, 0, 9000, 40000); /* XON at 40000, effective 42000 */
	cr_assert_eq(fe_pfc_gate(&p, 0, 1500, 3000, 41999), UINT64_MAX);
	cr_assert_eq(fe_pfc_gate(&p, 0, 1500, 3000, 42000), 42000, "resumes when XON lands");
	cr_assert_eq(fe_pfc_paused(&p, 0, 100000), 42000 - 3000);
}

Test(pfc, refreshes_counted)
{
	struct fe_pfc p = pfc();

	fe_pfc_update(&p, 0, 25000, 0);
	fe_pfc_update(&p, 0, 0, 50000000); /* 50 ms paused: refreshes every 16.77 ms */
	cr_assert_eq(p.prio[0].pause_frames, 1 + 2 + 1, "PAUSE, 2 refreshes, XON: %llu",
		     (unsigned long long)p.prio[0].pause_frames);
}

Test(pfc, headroom_admission)
{
	struct fe_pfc p = pfc();

	cr_assert_eq(fe_pfc_admit(&p, 20000, 5000), 0, "XOFF + headroom is the limit");
	cr_assert_eq(fe_pfc_admit(&p, 20000, 5001), -1);
}

Test(pfc, rejects_xon_above_xoff)
{
	struct fe_pfc p;
	struct fe_pfc_params prm = {.xoff = 100, .xon = 100, .quanta = 1};

	cr_assert_lt(fe_pfc_init(&p, &prm, 0, HZ), 0);
}

Test(pfc, frame_bytes)
{
	static const uint8_t src[6] = {0x02, 0xfe, 0xfe, 0, 0, 3};
	uint8_t f[60];

	fe_pfc_frame(f, src, 5, 0xffff);
	/* 802.1Qbb: 01:80:c2:00:00:01, EtherType 0x8808, opcode 0x0101, class-enable vector,
	 * then eight 16-bit quanta, priority 0 first */
	cr_assert_eq(memcmp(f, "\x01\x80\xc2\x00\x00\x01", 6), 0);
	cr_assert_eq(memcmp(f + 6, src, 6), 0);
	cr_assert_eq(f[12], 0x88);
	cr_assert_eq(f[13], 0x08);
	cr_assert_eq(f[14], 0x01);
	cr_assert_eq(f[15], 0x01);
	cr_assert_eq(f[16], 0x00);
	cr_assert_eq(f[17], 1 << 5, "class-enable vector: priority 5 only");
	for (int p = 0; p < 8; p++) {
		uint16_t q = (uint16_t)(f[18 + 2 * p] << 8 | f[19 + 2 * p]);

		cr_assert_eq(q, p == 5 ? 0xffff : 0, "quanta of priority %d", p);
	}
}

Test(pfc, update_events)
{
	struct fe_pfc p = pfc();

	cr_assert_eq(fe_pfc_update(&p, 0, 100, 10), FE_PFC_NONE);
	cr_assert_eq(fe_pfc_update(&p, 0, 20000, 20), FE_PFC_XOFF);
	cr_assert_eq(fe_pfc_update(&p, 0, 21000, 30), FE_PFC_NONE, "already paused");
	cr_assert_eq(fe_pfc_refresh_due(&p, 0, 30), 0);
	cr_assert_eq(fe_pfc_refresh_due(&p, 0, 20 + p.cfg.refresh_ticks), 1, "refresh at quanta/2");
	cr_assert_eq(fe_pfc_update(&p, 0, 9000, 40), FE_PFC_XON);
	cr_assert_eq(fe_pfc_refresh_due(&p, 0, 1ULL << 40), 0, "no refresh once resumed");
}

/* fe_pfc_may_change() 0: fe_pfc_update() decides nothing and writes nothing (the engine
 * calls it only when it may), at every held around both thresholds, paused or not. */
Test(pfc, may_change_says_when_update_does_nothing)
{
	static const uint64_t held[] = {0, 9999, 10000, 10001, 15000, 19999, 20000, 20001, 30000};
	unsigned changed = 0;

	for (int paused = 0; paused < 2; paused++)
		for (unsigned i = 0; i < sizeof(held) / sizeof(held[0]); i++) {
			struct fe_pfc p = pfc(), before;
			enum fe_pfc_event ev;
			int may;

			if (paused)
				cr_assert_eq(fe_pfc_update(&p, 2, 20000, 100), FE_PFC_XOFF);
			memcpy(&before, &p, sizeof(p)); /* padding too */
			may = fe_pfc_may_change(&p, 2, held[i]);
			ev = fe_pfc_update(&p, 2, held[i], 200);
			if (!may) {
				cr_assert_eq(ev, FE_PFC_NONE, "held %llu, paused %d: an event",
					     (unsigned long long)held[i], paused);
				cr_assert_eq(memcmp(&before, &p, sizeof(p)), 0,
					     "held %llu, paused %d: a change",
					     (unsigned long long)held[i], paused);
			} else {
				cr_assert_neq(ev, FE_PFC_NONE, "held %llu, paused %d: no event",
					      (unsigned long long)held[i], paused);
				changed++;
			}
		}
	cr_assert_eq(changed, 3 + 3, "XOFF at 20000 and above, XON at 10000 and below");
}

/*
 * The PFC watchdog's one condition (every egress queue): stormed once the queue has been
 * paused, and its head waiting, for the watchdog time, on a fake clock. Each row: the
 * pause's start, the head's wait's start (MAX: none), and the tick it is stormed from.
 */
Test(pfc, watchdog_needs_the_pause_and_the_head_to_last)
{
	static const struct {
		uint64_t paused, waiting, due;
	} rows[] = {
		{1000, 1000, 3000},		  /* paused with a frame: 2000 later */
		{1000, 2500, 4500},		  /* a frame late to a long pause: its wait */
		{2500, 1000, 4500},		  /* a frame before the pause: the pause */
		{1000, UINT64_MAX, UINT64_MAX},	  /* nothing waits: never */
		{UINT64_MAX, 1000, UINT64_MAX},	  /* not paused: never */
		{UINT64_MAX - 10, 0, UINT64_MAX}, /* no wrap past the end of time */
	};
	const struct fe_pfc_params prm = {.watchdog_ns = 2000};
	struct fe_pfc_wd w, off;

	fe_pfc_wd_compile(&w, &prm, 1000000000ULL);
	fe_pfc_wd_compile(&off, &(struct fe_pfc_params){0}, 1000000000ULL);
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t due = fe_pfc_wd_due(&w, rows[i].paused, rows[i].waiting);

		cr_assert_eq(due, rows[i].due, "paused %lu waiting %lu: due %lu, not %lu",
			     (unsigned long)rows[i].paused, (unsigned long)rows[i].waiting,
			     (unsigned long)due, (unsigned long)rows[i].due);
		if (due != UINT64_MAX) {
			cr_assert(!fe_pfc_wd_storm(&w, rows[i].paused, rows[i].waiting, due - 1));
			cr_assert(fe_pfc_wd_storm(&w, rows[i].paused, rows[i].waiting, due));
		}
		cr_assert(!fe_pfc_wd_storm(&off, rows[i].paused, rows[i].waiting, UINT64_MAX - 1),
			  "row %u: no watchdog, no storm", i);
	}
}

/* The pause the watchdog sees: from its start until the XON takes effect. */
Test(pfc, paused_since_holds_until_the_xon_acts)
{
	const struct fe_pfc_params prm = {
		.xoff = 2000, .xon = 1000, .delay_ns = 100, .quanta = 65535};
	struct fe_pfc p;

	cr_assert_eq(fe_pfc_init(&p, &prm, 10000000000ULL, 1000000000ULL), 0);
	cr_assert_eq(fe_pfc_paused_since(&p, 0, 1000), UINT64_MAX, "not paused");
	fe_pfc_update(&p, 0, 2000, 1000); /* XOFF at 1000: the sender stops at 1100 */
	cr_assert_eq(fe_pfc_paused_since(&p, 0, 1099), UINT64_MAX, "not yet");
	cr_assert_eq(fe_pfc_paused_since(&p, 0, 1100), 1100);
	cr_assert_eq(fe_pfc_paused_since(&p, 0, 5000), 1100);
	fe_pfc_update(&p, 0, 1000, 5000); /* XON at 5000: the sender goes on at 5100 */
	cr_assert_eq(fe_pfc_paused_since(&p, 0, 5099), 1100, "the XON on its way");
	cr_assert_eq(fe_pfc_paused_since(&p, 0, 5100), UINT64_MAX);
}
