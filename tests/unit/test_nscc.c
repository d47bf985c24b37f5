/* SPDX-License-Identifier: BSD-3-Clause */
/* NSCC (fe_nscc.h) on a fake clock of 1 GHz: a tick is a nanosecond. */
#include <criterion/criterion.h>

#include "fe_nscc.h"

#define HZ  1000000000ULL
#define MTU 4160 /* the simulator's: 4096 bytes of payload and 64 of headers */

static struct fe_nscc_cfg c;
static struct fe_nscc s;

/* 100 Gbit/s and 12 us: the simulator's reference, every scaling factor a = 1 */
static void
ref(void)
{
	fe_nscc_compile(100000000000ULL, 12000, MTU, HZ, &c);
	fe_nscc_init(&s, &c, 0);
}

Test(nscc, compiled_as_the_reference_scales_it)
{
	ref();
	cr_assert_eq(c.target, 9000, "3/4 of the RTT with trimming");
	cr_assert_eq(c.qa_threshold, 36000);
	cr_assert_eq(c.adjust_bytes, 8 * MTU);
	cr_assert_float_eq(c.fi, 5.0 * 4096, 1e-9);
	cr_assert_float_eq(c.eta, 0.15 * 4096, 1e-9);
	cr_assert_float_eq(c.fi_scale, 0.25, 1e-12);
	cr_assert_float_eq(c.alpha, 4.0 * 4096 * 0.75 / 9000, 1e-12);
	cr_assert_eq(s.maxwnd, 225000, "1.5 x 12 us x 100 Gbit/s");
	cr_assert_float_eq(s.cwnd, 225000, 1e-9, "it starts at its maximum");
	/* a tenth of the rate and twice the RTT: a = 0.2, b = 1.5 */
	fe_nscc_compile(10000000000ULL, 24000, MTU, HZ, &c);
	cr_assert_float_eq(c.fi, 5.0 * 4096 * 0.2, 1e-9);
	cr_assert_float_eq(c.alpha, 4.0 * 4096 * 0.2 * 1.5 / 18000, 1e-12);
}

/* CE with the delay above target: the window shrinks, once a base RTT at most, never by
 * more than half. */
Test(nscc, ce_above_target_decreases_once_a_base_rtt)
{
	uint64_t t = 100000;
	double w;

	ref();
	/* the average above target first: samples of 12 us base + 30 us, with CE */
	for (int i = 0; i < 400; i++)
		fe_nscc_ack(&s, &c, 0, 12000 + 30000, 1, 0, t += 10);
	cr_assert_gt(s.avg_delay, c.target);
	cr_assert_gt(s.decreases, 0);
	w = s.cwnd;
	fe_nscc_ack(&s, &c, MTU, 12000 + 30000, 1, 0, t += 10);
	cr_assert_float_eq(s.cwnd, w, 1e-9, "not again within a base RTT");
	fe_nscc_ack(&s, &c, MTU, 12000 + 30000, 1, 0, t += 13000);
	cr_assert_lt(s.cwnd, w);
	cr_assert_geq(s.cwnd, w * 0.5 - 1e-9);
	for (int i = 0; i < 200; i++) {
		fe_nscc_ack(&s, &c, MTU, 12000 + 300000, 1, 0, t += 13000);
		cr_assert_geq(s.cwnd, MTU, "never below a MTU");
	}
	cr_assert_lt(s.cwnd, 2 * MTU, "down to a MTU (and its period's eta)");
}

/* No CE and no queue: after a window's worth of bytes under 1 us, fast increase. */
Test(nscc, fast_increase_without_delay)
{
	uint64_t t = 0;
	double w;
	int k = 0;

	ref();
	s.cwnd = 20 * MTU;
	w = s.cwnd;
	for (int i = 0; i < 19; i++)
		fe_nscc_ack(&s, &c, MTU, 12000 + 500, 0, 0, t += 100);
	cr_assert_eq(s.fast_increases, 0, "not before a window's worth (%u MTU)", 20);
	while (s.fast_increases == 0 && k++ < 20)
		fe_nscc_ack(&s, &c, MTU, 12000 + 500, 0, 0, t += 100);
	cr_assert_eq(s.fast_increases, 1, "once more than the window was acknowledged");
	w = s.cwnd;
	fe_nscc_ack(&s, &c, MTU, 12000 + 500, 0, 0, t += 100);
	cr_assert_float_eq(s.cwnd, w + 0.25 * MTU, 1e-6, "then each ACK: fi_scale x acked");
	for (int i = 0; i < 2000; i++)
		fe_nscc_ack(&s, &c, MTU, 12000 + 500, 0, 0, t += 100);
	cr_assert_float_eq(s.cwnd, s.maxwnd, 1e-9, "never above 1.5 BDP");
}

/* No CE, delay between 1 us and the target: proportional increase, folded in every
 * 8 MTUs acknowledged. */
Test(nscc, proportional_increase_below_target)
{
	uint64_t t = 0;
	double w;

	ref();
	s.cwnd = 20 * MTU;
	w = s.cwnd;
	for (int i = 0; i < 8; i++)
		fe_nscc_ack(&s, &c, MTU, 12000 + 3000, 0, 0, t += 100);
	cr_assert_float_eq(s.cwnd, w, 1e-9, "folded after 8 MTUs only");
	fe_nscc_ack(&s, &c, MTU, 12000 + 3000, 0, 0, t += 100);
	/* inc = alpha x 9 MTU x (9000 - 3000): the window grows by inc / cwnd */
	cr_assert_float_eq(s.cwnd, w + c.alpha * 9 * MTU * 6000 / w, 1e-6);
	cr_assert_eq(s.fast_increases, 0);
}

/* A NACK: quick adapt takes the window a flow achieved (once its period has passed);
 * within the period, the NACKed bytes come off the window. */
Test(nscc, nack_quick_adapts_then_takes_the_bytes_off)
{
	uint64_t t = 100000;

	ref();
	fe_nscc_ack(&s, &c, MTU, 12000, 0, 0, t += 10); /* starts the period */
	fe_nscc_ack(&s, &c, 3 * MTU, 12000, 0, 0, t += 10);
	t += 12000 + 9000 + 1;
	fe_nscc_nack(&s, &c, MTU, 5 * MTU, 0, t);
	cr_assert_eq(s.quick_adapts, 1);
	cr_assert_float_eq(s.cwnd, 3 * MTU, 1e-9, "the bytes achieved in the period");
	/* what was in flight then (5 MTU) is ignored: its NACKs change nothing ... */
	for (int i = 0; i < 4; i++)
		fe_nscc_nack(&s, &c, MTU, 5 * MTU, 0, t += 10);
	cr_assert_float_eq(s.cwnd, 3 * MTU, 1e-9);
	/* ... and once it is, a NACK takes its bytes off */
	fe_nscc_nack(&s, &c, MTU, 5 * MTU, 0, t += 10);
	cr_assert_float_eq(s.cwnd, 2 * MTU, 1e-9);
	cr_assert_eq(s.quick_adapts, 1);
	cr_assert(s.avg_delay > 0, "toward the network's RTT");
	cr_assert(fe_nscc_may_send(&s, MTU, MTU));
	cr_assert(!fe_nscc_may_send(&s, 2 * MTU, 1));
}

/* A NACK kept (cc nscc+rccc, a trim at the last hop: uet-htsim's updateCwndOnNack_NSCC
 * with _receiver_based_cc and last_hop): the bytes stay on the window; the delay moves,
 * and quick adapt may still run. */
Test(nscc, nack_kept_leaves_the_window)
{
	uint64_t t = 100000;
	double w;

	ref();
	fe_nscc_ack(&s, &c, MTU, 12000, 0, 0, t += 10); /* starts the period */
	w = s.cwnd;
	fe_nscc_nack(&s, &c, MTU, 5 * MTU, 1, t += 10);
	cr_assert_float_eq(s.cwnd, w, 1e-9, "kept");
	cr_assert_eq(s.nacks, 1);
	cr_assert_eq(s.nack_cuts, 0);
	cr_assert(s.avg_delay > 0, "toward the network's RTT");
	fe_nscc_nack(&s, &c, MTU, 5 * MTU, 0, t += 10);
	cr_assert_float_eq(s.cwnd, w - MTU, 1e-9, "not kept: the bytes off");
	cr_assert_eq(s.nack_cuts, 1);
	t += 12000 + 9000 + 1; /* the period over: quick adapt runs, kept or not */
	fe_nscc_nack(&s, &c, MTU, 5 * MTU, 1, t);
	cr_assert_eq(s.quick_adapts, 1);
	cr_assert_float_eq(s.cwnd, MTU, 1e-9, "the bytes achieved in the period");
}

/* A timeout (uet-htsim's rtxTimerExpired, mark_packet_for_retransmission): the frame's
 * bytes off the window, never below one MTU. */
Test(nscc, a_timeout_takes_its_frame_off_the_window)
{
	double w;

	ref();
	w = s.cwnd;
	cr_assert(w > 3 * MTU, "starts at 1.5 BDP");
	fe_nscc_timeout(&s, &c, MTU);
	cr_assert_float_eq(s.cwnd, w - MTU, 1e-9);
	cr_assert_eq(s.timeout_cuts, 1);
	for (int i = 0; i < 1000 && s.cwnd > MTU; i++)
		fe_nscc_timeout(&s, &c, MTU);
	cr_assert_float_eq(s.cwnd, MTU, 1e-9, "one MTU at least");
	fe_nscc_timeout(&s, &c, MTU);
	cr_assert_float_eq(s.cwnd, MTU, 1e-9);
}

/* No CE, delay at or above the target: fair increase, fi x acked whatever the delay (the
 * queue is not this flow's), folded in every 8 MTUs acknowledged. */
Test(nscc, fair_increase_above_target_without_ce)
{
	const uint64_t delays[] = {9000, 20000, 30000};
	uint64_t t = 0;
	double w = 20 * MTU;

	for (unsigned d = 0; d < 3; d++) {
		ref();
		t = 0;
		s.cwnd = w;
		for (int i = 0; i < 8; i++)
			fe_nscc_ack(&s, &c, MTU, 12000 + delays[d], 0, 0, t += 100);
		cr_assert_float_eq(s.cwnd, w, 1e-9, "folded after 8 MTUs only");
		fe_nscc_ack(&s, &c, MTU, 12000 + delays[d], 0, 0, t += 100);
		cr_assert_float_eq(s.cwnd, w + c.fi * 9 * MTU / w, 1e-6,
				   "delay %llu: inc = fi x 9 MTU, whatever the delay",
				   (unsigned long long)delays[d]);
		cr_assert_eq(s.quick_adapts + s.decreases + s.fast_increases, 0);
	}
}

/* CE with the delay below the target: the window is left as it is (the path is changed,
 * REPS's part, not the window), even with the average delay above the target, where CE
 * with this delay above it would cut; the same ACKs without CE increase it. */
Test(nscc, ce_below_target_leaves_the_window)
{
	double w = 20 * MTU;

	for (int ce = 1; ce >= 0; ce--) {
		uint64_t t = 100000, dec;

		ref();
		for (int i = 0; i < 400; i++) /* the average above target first */
			fe_nscc_ack(&s, &c, 0, 12000 + 30000, 1, 0, t += 10);
		dec = s.decreases;
		s.cwnd = w;
		t += 13000; /* a base RTT since the last cut */
		for (int i = 0; i < 20; i++)
			fe_nscc_ack(&s, &c, MTU, 12000 + 3000, ce, 0, t += 100);
		cr_assert_gt(s.avg_delay, c.target, "the average still above target");
		if (ce) {
			cr_assert_float_eq(s.cwnd, w + c.eta, 1e-9,
					   "CE below target: no change but the period's eta");
			cr_assert_eq(s.decreases, dec);
		} else {
			cr_assert_gt(s.cwnd, w + c.eta,
				     "no CE below target: proportional increase");
		}
	}
}

/* Quick adapt on delay: once its period (a base RTT and the target) has passed, a delay
 * above 4 x target takes the window the flow achieved in it, if below maxwnd / 8; at 3 x
 * target it does not (fair increase instead). */
Test(nscc, quick_adapt_on_a_delay_above_four_targets)
{
	const uint64_t delays[] = {27000, 40000}; /* target 9 us: 3 and 4.4 targets */

	for (unsigned d = 0; d < 2; d++) {
		uint64_t t = 100000;
		double w;

		ref();
		cr_assert_eq(c.qa_threshold, 36000, "4 targets");
		fe_nscc_ack(&s, &c, MTU, 12000, 0, 0, t += 10); /* starts the period */
		fe_nscc_ack(&s, &c, 3 * MTU, 12000, 0, 0, t += 10);
		t += 12000 + 9000 + 1;
		cr_assert_lt(4 * MTU, s.maxwnd >> c.qa_gate, "achieved below maxwnd / 8");
		w = s.cwnd;
		fe_nscc_ack(&s, &c, MTU, 12000 + delays[d], 0, 0, t);
		if (d == 1) {
			cr_assert_eq(s.quick_adapts, 1);
			cr_assert_float_eq(s.cwnd, 4 * MTU, 1e-9,
					   "the bytes achieved in the period, this ACK's too");
		} else {
			cr_assert_eq(s.quick_adapts, 0);
			cr_assert_geq(s.cwnd, w - 1e-9, "3 targets: no quick adapt, no cut");
		}
	}
}
