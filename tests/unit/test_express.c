/* SPDX-License-Identifier: BSD-3-Clause */
/* fe_express (dataplane/models/fe_express.h): frames due at their ticks, in order. */
#include <criterion/criterion.h>

#include "fe_express.h"

static struct fe_express_slot slots[4];
static int frame[8];

Test(express, due_in_order_on_a_fake_clock)
{
	struct fe_express q;
	uint64_t due = 0;

	fe_express_init(&q, slots, 4);
	cr_assert_eq(fe_express_next(&q), UINT64_MAX, "empty");
	cr_assert_null(fe_express_take(&q, UINT64_MAX - 1, &due));
	cr_assert_eq(fe_express_put(&q, &frame[0], 100), 0);
	/* due before the one ahead of it: it waits for it (a header never overtakes one) */
	cr_assert_eq(fe_express_put(&q, &frame[1], 50), 0);
	cr_assert_eq(fe_express_put(&q, &frame[2], 300), 0);
	cr_assert_eq(fe_express_count(&q), 3);
	cr_assert_eq(fe_express_next(&q), 100);
	cr_assert_null(fe_express_take(&q, 99, &due), "one tick early");
	cr_assert_eq(fe_express_take(&q, 100, &due), &frame[0]);
	cr_assert_eq(due, 100);
	cr_assert_eq(fe_express_take(&q, 100, &due), &frame[1], "raised to 100, due then");
	cr_assert_eq(due, 100);
	cr_assert_null(fe_express_take(&q, 299, &due));
	cr_assert_eq(fe_express_next(&q), 300);
	cr_assert_eq(fe_express_take(&q, 1000, &due), &frame[2]);
	cr_assert_eq(due, 300);
	cr_assert_eq(fe_express_count(&q), 0);
	cr_assert_eq(fe_express_next(&q), UINT64_MAX);
}

Test(express, full_refuses_and_wraps)
{
	struct fe_express q;
	uint64_t due;

	fe_express_init(&q, slots, 4);
	/* round the ring more than once: the indices run free, the slots wrap */
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++)
			cr_assert_eq(fe_express_put(&q, &frame[i], 10 * (uint64_t)i), 0);
		cr_assert_eq(fe_express_put(&q, &frame[4], 0), -1, "5th of 4: full");
		cr_assert_eq(fe_express_count(&q), 4);
		for (int i = 0; i < 4; i++) {
			cr_assert_eq(fe_express_take(&q, 1000, &due), &frame[i]);
			cr_assert_eq(due, 10 * (uint64_t)i);
		}
	}
	/* what is left when the dataplane stops, whenever due */
	cr_assert_eq(fe_express_put(&q, &frame[5], 5000), 0);
	cr_assert_eq(fe_express_put(&q, &frame[6], 6000), 0);
	cr_assert_eq(fe_express_drain(&q), &frame[5]);
	cr_assert_eq(fe_express_drain(&q), &frame[6]);
	cr_assert_null(fe_express_drain(&q));
}
