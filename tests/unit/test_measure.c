/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TX rate measurement (fabemu-dp --measure): a port's rate is taken only over gaps
 * between TX bursts with the down link backlogged at both ends, so the end of a busy
 * period (the link went idle inside the gap) does not dilute it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "fe_measure.h"

/* A TX burst of n frames of wire bytes each at tsc; backlogged after it or not. */
static void
burst(struct fe_measure *m, unsigned n, uint32_t wire, uint64_t tsc, int backlogged)
{
	for (unsigned i = 0; i < n; i++) {
		m->pre_stamp[i] = 0; /* not stamped: no latency sample */
		m->pre_wire[i] = wire;
	}
	fe_measure_tx(m, 0, (uint16_t)n, tsc, backlogged);
}

Test(measure, rate_over_backlogged_gaps_only)
{
	static struct fe_measure m;
	const struct fe_measure_port *p = &m.port[0];

	memset(&m, 0, sizeof(m));
	/* a busy period at 1 wire byte a tick: 100 bytes every 100 ticks, queue never empty */
	burst(&m, 1, 100, 1000, 1);
	burst(&m, 1, 100, 1100, 1);
	burst(&m, 1, 100, 1200, 1);
	cr_assert_eq(p->busy_ticks, 200);
	cr_assert_eq(p->busy_bytes, 200);
	/* the last frame of the period: it went at 1300, then the link idled till 5000,
	 * when the TX burst that found it empty ran: not counted */
	burst(&m, 1, 100, 5000, 0);
	cr_assert_eq(p->busy_ticks, 200, "the gap in which the link went idle is left out");
	cr_assert_eq(p->busy_bytes, 200);
	/* the next period: its first gap starts from a burst that found the queue empty */
	burst(&m, 2, 100, 9000, 1);
	burst(&m, 2, 100, 9200, 1);
	cr_assert_eq(p->busy_ticks, 400);
	cr_assert_eq(p->busy_bytes, 400);
	/* an empty TX call counts nothing and does not end the gap */
	burst(&m, 0, 100, 9300, 0);
	burst(&m, 2, 100, 9400, 1);
	cr_assert_eq(p->busy_ticks, 600);
	cr_assert_eq(p->busy_bytes, 600);
	cr_assert_eq(p->pkts, 10);
	cr_assert_eq(p->wire_bytes, 1000, "every byte sent, busy or not");
}
