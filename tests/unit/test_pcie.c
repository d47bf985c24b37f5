/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receiving host's PCIe (fe_pcie.h) on a fake clock of 1 GHz: a tick is a nanosecond.
 * At 8 Gbit/s a byte takes 1 ns.
 */
#include <criterion/criterion.h>

#include "fe_pcie.h"
#include "fe_rccc.h"

#define HZ 1000000000ULL

static struct fe_pcie_cfg c;

Test(pcie, compiled)
{
	fe_pcie_compile(8000000000ULL, 0, HZ, &c);
	cr_assert_eq(c.fp_per_byte, 65536, "a byte a ns at 8 Gbit/s");
	cr_assert_eq(c.limit, 5000000, "uet-htsim's 5 MB");
	cr_assert_eq(c.floor, 1000000, "and its 1 MB");
	fe_pcie_compile(0, 0, HZ, &c);
	cr_assert_eq(c.fp_per_byte, 0, "no rate: not modelled");
	fe_pcie_compile(8000000000ULL, 100000, HZ, &c);
	cr_assert_eq(c.limit, 100000);
	cr_assert_eq(c.floor, 20000, "a fifth of the limit");
}

/* Frames cross in order at the rate; the backlog is what is still to cross. */
Test(pcie, frames_cross_in_order_at_its_rate)
{
	struct fe_pcie s = {0};
	uint64_t at;

	fe_pcie_compile(8000000000ULL, 0, HZ, &c);
	cr_assert_eq(fe_pcie_take(&s, &c, 1000, 1500, &at), 0);
	cr_assert_eq(at, 2500, "1500 bytes, 1500 ns");
	cr_assert_eq(fe_pcie_take(&s, &c, 1000, 1000, &at), 0);
	cr_assert_eq(at, 3500, "behind the first");
	cr_assert_eq(fe_pcie_backlog(&s, &c, 1000), 2500);
	cr_assert_eq(fe_pcie_backlog(&s, &c, 3000), 500);
	cr_assert_eq(fe_pcie_backlog(&s, &c, 3500), 0);
	cr_assert_eq(fe_pcie_backlog(&s, &c, 9000), 0);
	/* idle since: the next starts when it comes */
	cr_assert_eq(fe_pcie_take(&s, &c, 10000, 100, &at), 0);
	cr_assert_eq(at, 10100);
	/* not modelled: across at once */
	fe_pcie_compile(0, 0, HZ, &c);
	cr_assert_eq(fe_pcie_take(&s, &c, 20000, 1500, &at), 0);
	cr_assert_eq(at, 20000);
	cr_assert_eq(fe_pcie_backlog(&s, &c, 20000), 0);
}

/* A rate that is not a whole number of ticks a byte keeps its fraction: 3 Gbit/s, 8/3 ns. */
Test(pcie, fractions_of_a_tick_add_up)
{
	struct fe_pcie s = {0};
	uint64_t at = 0;

	fe_pcie_compile(3000000000ULL, 0, HZ, &c);
	for (int i = 0; i < 3000; i++)
		cr_assert_eq(fe_pcie_take(&s, &c, 0, 1, &at), 0);
	cr_assert(at >= 7999 && at <= 8000, "3000 bytes at 3 Gbit/s: 8 us, not %llu ns",
		  (unsigned long long)at);
}

/* A frame that would take the backlog above the limit is refused, and nothing taken. */
Test(pcie, no_room_above_the_limit)
{
	struct fe_pcie s = {0};
	uint64_t at;
	int n = 0;

	fe_pcie_compile(8000000000ULL, 0, HZ, &c);
	while (fe_pcie_take(&s, &c, 0, 4000, &at) == 0)
		n++;
	cr_assert_eq(n, 1250, "5 MB of 4000-byte frames: %d", n);
	cr_assert_eq(fe_pcie_backlog(&s, &c, 0), 5000000, "the one refused took nothing");
	cr_assert_eq(fe_pcie_take(&s, &c, 0, 1, &at), -1, "not a byte more");
	/* once 4000 bytes are across, the next frame fits */
	cr_assert_eq(fe_pcie_take(&s, &c, 4000, 4000, &at), 0);
	cr_assert_eq(at, 5004000 - 4000 + 4000);
}

/* The pull rate from the backlog: full under the floor, the simulator's quadratic up to
 * 95 % of the limit, 0.001 above. */
Test(pcie, pull_rate_from_the_backlog)
{
	fe_pcie_compile(8000000000ULL, 0, HZ, &c);
	cr_assert_eq(fe_pcie_rate16(&c, 0), FE_PCIE_FULL);
	cr_assert_eq(fe_pcie_rate16(&c, 999999), FE_PCIE_FULL);
	cr_assert_eq(fe_pcie_rate16(&c, 1000000), FE_PCIE_FULL, "(5 - 1) / 4, squared");
	cr_assert_eq(fe_pcie_rate16(&c, 3000000), FE_PCIE_FULL / 4, "(5 - 3) / 4, squared");
	cr_assert_eq(fe_pcie_rate16(&c, 4000000), FE_PCIE_FULL / 16, "(5 - 4) / 4, squared");
	cr_assert_eq(fe_pcie_rate16(&c, 4750000), 256, "(5 - 4.75) / 4, squared: 1/256");
	cr_assert_eq(fe_pcie_rate16(&c, 4750001), 66, "above 95 %%: 0.001");
	cr_assert_eq(fe_pcie_rate16(&c, 5000000), 66);
	fe_pcie_compile(0, 0, HZ, &c);
	cr_assert_eq(fe_pcie_rate16(&c, 4000000), FE_PCIE_FULL, "not modelled: full");
}

/* RCCC's pacer spaces its grants by the lesser of its pull rate and the PCIe's. */
Test(pcie, the_pacer_takes_the_lesser_rate)
{
	struct fe_rccc_cfg rc;
	struct fe_rccc_slot slots[8];
	struct fe_rccc_pacer p;
	struct fe_rccc_rcv r = {0};
	struct fe_rccc_rcv *rr;
	uint64_t t[4];
	uint32_t id, bytes;

	fe_rccc_compile(100000000000ULL, 12000, 4160, HZ, 0, &rc);
	for (int k = 0; k < 4; k++) {
		uint64_t now = 0;

		fe_rccc_pacer_init(&p, slots, 4, 0);
		r = (struct fe_rccc_rcv){0};
		fe_rccc_pcie(&p, &rc, k == 0 ? FE_PCIE_FULL : k == 2 ? 66 : FE_PCIE_FULL / 4);
		if (k == 3) /* the oversubscribed fabric's below the PCIe's: an eighth */
			p.rate16 = FE_PCIE_FULL / 8;
		fe_rccc_request(&p, &r, 1, 100000, 0);
		cr_assert(fe_rccc_grant(&p, &rc, now, &id, &rr, &bytes));
		t[k] = fe_rccc_next(&p);
	}
	/* 4 MSS (64 quanta) at 0.99 x 100 Gbit/s: 1324 ns; a quarter of the rate: 4 times */
	cr_assert(t[0] >= 1320 && t[0] <= 1330, "full: %llu", (unsigned long long)t[0]);
	cr_assert(t[1] >= 4 * t[0] - 4 && t[1] <= 4 * t[0] + 4, "a quarter: %llu",
		  (unsigned long long)t[1]);
	cr_assert(t[2] >= 990 * t[0], "0.001: %llu", (unsigned long long)t[2]);
	cr_assert(t[3] >= 8 * t[0] - 8 && t[3] <= 8 * t[0] + 8, "the fabric's eighth: %llu",
		  (unsigned long long)t[3]);
}

/* A change of the PCIe's rate re-times the grant pending: granted at 0.001, the pacer
 * comes back a full rate's grant time after it once the backlog has drained (not a
 * thousand of them). */
Test(pcie, a_change_retimes_the_pending_grant)
{
	struct fe_rccc_cfg rc;
	struct fe_rccc_slot slots[8];
	struct fe_rccc_pacer p;
	struct fe_rccc_rcv r = {0};
	struct fe_rccc_rcv *rr;
	uint32_t id, bytes;
	uint64_t slow, full;

	fe_rccc_compile(100000000000ULL, 12000, 4160, HZ, 0, &rc);
	fe_rccc_pacer_init(&p, slots, 4, 0);
	fe_rccc_pcie(&p, &rc, FE_PCIE_FULL);
	fe_rccc_request(&p, &r, 1, 100000, 0);
	fe_rccc_pcie(&p, &rc, 66); /* before any grant: nothing pending to re-time */
	cr_assert_eq(fe_rccc_next(&p), 0);
	cr_assert(fe_rccc_grant(&p, &rc, 0, &id, &rr, &bytes));
	slow = fe_rccc_next(&p);
	cr_assert_gt(slow, 1000000, "at 0.001: %llu ns", (unsigned long long)slow);
	fe_rccc_pcie(&p, &rc, FE_PCIE_FULL);
	full = fe_rccc_next(&p);
	cr_assert(full >= 1320 && full <= 1330, "re-timed at the full rate: %llu",
		  (unsigned long long)full);
	fe_rccc_pcie(&p, &rc, FE_PCIE_FULL / 2);
	cr_assert(fe_rccc_next(&p) >= 2 * full - 2 && fe_rccc_next(&p) <= 2 * full + 2,
		  "at half: %llu", (unsigned long long)fe_rccc_next(&p));
	cr_assert(!fe_rccc_grant(&p, &rc, full, &id, &rr, &bytes), "not yet at half the rate");
	cr_assert(fe_rccc_grant(&p, &rc, 2 * full + 2, &id, &rr, &bytes));
}
