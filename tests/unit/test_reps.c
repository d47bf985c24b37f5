/* SPDX-License-Identifier: BSD-3-Clause */
/* fe_reps (dataplane/models/fe_reps.h): REPS as uet-htsim runs it, on a fake clock. */
#include <criterion/criterion.h>

#include "fe_reps.h"

/* next, checked against what peek said it would be */
static uint8_t
next(struct fe_reps *r)
{
	uint8_t p = fe_reps_peek(r), ev = fe_reps_next(r);

	cr_assert_eq(ev, p, "peek said %u, next gave %u", p, ev);
	return ev;
}

Test(reps, new_entropies_in_turn_then_the_good_ones_oldest_first_once_each)
{
	struct fe_reps r;

	fe_reps_init(&r);
	for (unsigned i = 0; i < 5; i++)
		cr_assert_eq(next(&r), i, "nothing came back: a new one each");
	fe_reps_feedback(&r, 1, 1, 10);
	fe_reps_feedback(&r, 3, 0, 10); /* marked: let go */
	fe_reps_feedback(&r, 4, 1, 10);
	cr_assert_eq(next(&r), 1, "the oldest good one");
	cr_assert_eq(next(&r), 4);
	cr_assert_eq(next(&r), 5, "each once: then a new one");
	cr_assert_eq(r.recycled, 2);
	cr_assert_eq(r.fresh_sent, 6);
}

Test(reps, eight_kept_a_ninth_over_the_oldest)
{
	struct fe_reps r;

	fe_reps_init(&r);
	for (unsigned i = 0; i < 9; i++)
		fe_reps_feedback(&r, (uint8_t)(100 + i), 1, 0);
	cr_assert_eq(r.count, FE_REPS_SIZE);
	cr_assert_eq(r.fresh, FE_REPS_SIZE);
	for (unsigned i = 1; i < 9; i++)
		cr_assert_eq(next(&r), 100 + i, "100 was written over");
	cr_assert_eq(next(&r), 0, "all used: a new one");
}

Test(reps, a_timeout_freezes_on_the_kept_paths_then_explores)
{
	struct fe_reps r;

	fe_reps_init(&r);
	fe_reps_feedback(&r, 7, 1, 0);
	fe_reps_feedback(&r, 9, 1, 0);
	fe_reps_feedback(&r, 11, 1, 0);
	cr_assert_eq(next(&r), 7); /* used: outside a freeze, not again */
	cr_assert(fe_reps_timeout(&r, 1000, 50), "froze");
	cr_assert(r.frozen);
	cr_assert_eq(r.freezes, 1);
	/* frozen: the kept ones in turn, used or not, over and over */
	for (unsigned k = 0; k < 3; k++) {
		cr_assert_eq(next(&r), 7);
		cr_assert_eq(next(&r), 9);
		cr_assert_eq(next(&r), 11);
	}
	cr_assert_not(fe_reps_timeout(&r, 1000, 500), "frozen already: not again, not longer");
	cr_assert_eq(r.freezes, 1);
	cr_assert_eq(r.thaw, 1050);
	fe_reps_feedback(&r, 13, 1, 1050); /* not past its end: kept, still frozen */
	cr_assert(r.frozen);
	cr_assert_eq(r.count, 4);
	cr_assert_eq(next(&r), 7);
	cr_assert_eq(next(&r), 9);
	cr_assert_eq(next(&r), 11);
	cr_assert_eq(next(&r), 13);
	/* the first feedback past the end: emptied, then 16 new ones, a timeout among them
	 * not freezing again */
	fe_reps_feedback(&r, 15, 1, 1051);
	cr_assert_not(r.frozen);
	cr_assert_eq(r.explore, FE_REPS_EXPLORE);
	cr_assert_eq(r.count, 1, "only what came back after");
	uint8_t first = fe_reps_peek(&r);
	for (unsigned i = 0; i < FE_REPS_EXPLORE; i++) {
		fe_reps_timeout(&r, 1000, 1100);
		cr_assert_eq(next(&r), (uint8_t)(first + i), "exploring: new ones in turn");
	}
	cr_assert_eq(r.freezes, 1);
	cr_assert_eq(next(&r), 15, "then what came back");
	fe_reps_timeout(&r, 1000, 2000);
	cr_assert_eq(r.freezes, 2, "explored: a timeout freezes again");
}

Test(reps, a_freeze_of_zero_never_freezes)
{
	struct fe_reps r;

	fe_reps_init(&r);
	fe_reps_feedback(&r, 5, 1, 0);
	fe_reps_timeout(&r, 0, 10);
	cr_assert_not(r.frozen);
	cr_assert_eq(r.freezes, 0);
	cr_assert_eq(next(&r), 5);
	cr_assert_eq(next(&r), 0);
}

Test(reps, frozen_with_nothing_kept_takes_new_ones)
{
	struct fe_reps r;

	fe_reps_init(&r);
	fe_reps_timeout(&r, 100, 0);
	cr_assert(r.frozen);
	cr_assert_eq(next(&r), 0);
	cr_assert_eq(next(&r), 1);
	fe_reps_feedback(&r, 1, 1, 50); /* while frozen, kept and sent in turn */
	cr_assert_eq(next(&r), 1);
	cr_assert_eq(next(&r), 1);
}
