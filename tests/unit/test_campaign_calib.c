/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibration (control/campaign/cg_calib.c): the scale a regime runs at, from the box's
 * noise through the ideal dataplane. A quiet box keeps the floor; a noisy one raises it
 * to the least scale at which the verdict (cg_verdict(), run here on the same figures)
 * still calls a run faithful with twice the noise; a load too high for the capacity
 * raises it too; where no scale in range holds, the choice is refused and says what took
 * the lcore's core.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cg_fixture.h"

static struct cg_campaign camp;

static void
setup(void)
{
	cg_fixture_campaign(&camp, "eth");
}

TestSuite(calib, .init = setup);

/* ethernet-lossy's link at scale 1: 500 ns and 100 Gbit/s, a 1538-byte frame 123 ns */
#define HOP1 623.04

static struct cg_calib_want
want(uint32_t floor, uint32_t max)
{
	return (struct cg_calib_want){.hop_ns = HOP1,
				      .floor = floor,
				      .max = max,
				      .late = camp.fid.late,
				      .load = camp.fid.load};
}

static struct cg_noise
noise(double late_p99_ns, double wait_p99_ns)
{
	struct cg_noise n;

	memset(&n, 0, sizeof(n));
	n.late_p99_ns = late_p99_ns;
	n.late_max_ns = 4 * late_p99_ns;
	n.wait_p99_ns = wait_p99_ns;
	n.wait_max_ns = 4 * wait_p99_ns;
	n.window_s = 10;
	return n;
}

/* The verdict of a dataplane run (regime eth, hop hop_ns) whose worst link left frames
 * late_ns late at p99 and whose edge held them wait_ns: faithful or not. */
static int
faithful_at(double hop_ns, double late_ns, double wait_ns)
{
	struct cg_regime *g = &camp.reg[2];
	json_t *run =
		json_pack("{s:s, s:{}, s:{s:i, s:f, s:s}, s:{s:i, s:f}}", "regime", "eth",
			  "counters", "lateness", "frames", 1000, "worst_p99_ns", late_ns,
			  "worst_link", "0.down", "edge_wait", "frames", 1000, "p99_ns", wait_ns);
	json_t *cap = json_object();
	int ok;

	g->kind = CG_DATAPLANE;
	g->hop_ns = (uint64_t)ceil(hop_ns);
	cg_verdict(&camp, g, cap, run);
	ok = strncmp(json_string_value(json_object_get(run, "verdict")), "faithful", 8) == 0;
	json_decref(run);
	json_decref(cap);
	return ok;
}

Test(calib, quiet_box_keeps_the_floor)
{
	struct cg_noise n = noise(10000, 5000); /* 10 us: needs a hop of 200 us */
	struct cg_calib_want w = want(1000, 100000);
	struct cg_calib_choice ch;

	cg_calib_choose(&n, &w, &ch);
	cr_expect_eq(ch.result, CG_CAL_CHOSEN, "result %d: %s", ch.result, ch.why);
	cr_expect_eq(ch.scale, 1000, "scale %u: %s", ch.scale, ch.why);
	cr_expect_float_eq(ch.need_hop_ns, 200000, 1e-6, "needs %f", ch.need_hop_ns);
	cr_expect(strstr(ch.why, "floor 1000 already gives a hop of 623.0 us") != NULL, "%s",
		  ch.why);
	cr_expect(faithful_at(ch.hop_ns, 2 * n.late_p99_ns, 2 * n.wait_p99_ns));
}

/* Each noise: the chosen scale is the least at which the verdict holds twice the noise. */
static const struct {
	double late, wait;
	uint32_t floor, scale;
} noisy[] = {
	{200000, 5000, 1000, 6421},  /* 200 us: a hop of 4 ms, 4e6 / 623.04 rounded up */
	{50000, 120000, 1000, 3853}, /* the edge wait the larger: a hop of 2.4 ms */
	{2600000, 0, 1000, 83462},   /* this box's worst, 2.6 ms: a hop of 52 ms */
	{200000, 5000, 7000, 7000},  /* a floor above what the noise needs stays */
};

Test(calib, noisy_box_raises_the_scale)
{
	for (size_t i = 0; i < sizeof(noisy) / sizeof(noisy[0]); i++) {
		struct cg_noise n = noise(noisy[i].late, noisy[i].wait);
		struct cg_calib_want w = want(noisy[i].floor, 100000);
		struct cg_calib_choice ch;
		double twice_late = 2 * noisy[i].late, twice_wait = 2 * noisy[i].wait;

		cg_calib_choose(&n, &w, &ch);
		cr_expect_eq(ch.result, CG_CAL_CHOSEN, "noise %g/%g: result %d: %s", noisy[i].late,
			     noisy[i].wait, ch.result, ch.why);
		cr_expect_eq(ch.scale, noisy[i].scale,
			     "noise %g/%g floor %u: scale %u, want %u: %s", noisy[i].late,
			     noisy[i].wait, noisy[i].floor, ch.scale, noisy[i].scale, ch.why);
		cr_expect_float_eq(ch.hop_ns, HOP1 * ch.scale, 1e-6);
		/* the verdict: faithful at the chosen hop with twice the noise ... */
		cr_expect(faithful_at(HOP1 * ch.scale, twice_late, twice_wait),
			  "noise %g/%g: distorted at scale %u with twice the noise", noisy[i].late,
			  noisy[i].wait, ch.scale);
		/* ... and, unless the floor held it, not one scale below */
		if (ch.scale > noisy[i].floor)
			cr_expect(!faithful_at(HOP1 * (ch.scale - 1), twice_late, twice_wait),
				  "noise %g/%g: scale %u - 1 would do", noisy[i].late,
				  noisy[i].wait, ch.scale);
		if (ch.scale > noisy[i].floor)
			cr_expect(strstr(ch.why, "above the floor") != NULL, "%s", ch.why);
	}
}

Test(calib, the_margin_is_the_verdicts_fraction)
{
	struct cg_noise n = noise(200000, 0);
	struct cg_calib_want w = want(1, 100000);
	struct cg_calib_choice ch;

	camp.fid.late = 0.25; /* fidelity.lateness: 25 %: a hop of 1.6 ms does */
	w.late = camp.fid.late;
	cg_calib_choose(&n, &w, &ch);
	cr_expect_eq(ch.scale, 2569, "scale %u: %s", ch.scale, ch.why);
	cr_expect(faithful_at(ch.hop_ns, 2 * n.late_p99_ns, 0));
	cr_expect(!faithful_at(HOP1 * (ch.scale - 1), 2 * n.late_p99_ns, 0));
}

Test(calib, no_scale_in_range_is_refused_naming_the_cause)
{
	struct cg_noise n = noise(2600000, 400000);
	struct cg_calib_want w = want(1000, 8000);
	struct cg_calib_choice ch;

	n.preempted = 1200;
	n.runq_wait_ns = 45e6;
	n.irq_ns = 300e6;
	n.softirq_ns = 750e6;
	snprintf(n.takes, sizeof(n.takes), "on CPU0: NET_RX softirqs 118000/s");
	cg_calib_choose(&n, &w, &ch);
	cr_expect_eq(ch.result, CG_CAL_NONE, "result %d: %s", ch.result, ch.why);
	cr_expect_eq(ch.scale, 8000);
	cr_expect(strstr(ch.why, "needs a hop of 52000.0 us") != NULL, "%s", ch.why);
	cr_expect(strstr(ch.why, "at scale 8000, the most in range, the hop is 4984.3 us") != NULL,
		  "%s", ch.why);
	cr_expect(strstr(ch.why, "preempted 1200 times (45.0 ms waiting for its core)") != NULL,
		  "%s", ch.why);
	cr_expect(strstr(ch.why, "1050 ms in interrupts (300 hard, 750 soft; 10.5% of 10.0 s)") !=
			  NULL,
		  "%s", ch.why);
	cr_expect(strstr(ch.why, "NET_RX softirqs 118000/s") != NULL, "%s", ch.why);
}

Test(calib, a_hop_that_does_not_scale_is_refused)
{
	struct cg_noise n = noise(200000, 0);
	struct cg_calib_want w = want(1, 100000);
	struct cg_calib_choice ch;

	w.hop_ns = 0; /* links: ["all:rate=1Gbit,delay=50us"]: 62.3 us whatever the scale */
	w.hop_fixed_ns = 62304;
	cg_calib_choose(&n, &w, &ch);
	cr_expect_eq(ch.result, CG_CAL_NONE, "result %d: %s", ch.result, ch.why);
	cr_expect(strstr(ch.why, "does not grow with scale") != NULL, "%s", ch.why);
	cr_expect(strstr(ch.why, "the kernel counted no preemption") != NULL, "%s", ch.why);
}

Test(calib, the_load_raises_the_scale_too)
{
	struct cg_noise n = noise(1000, 1000);
	struct cg_calib_want w = want(1, 100000);
	struct cg_calib_choice ch;

	/* ib-ndr: 4 hosts at 400 Gbit/s, against a capacity of 3.5 Gbit/s */
	w.offered_bps = 4 * 400e9;
	w.capacity_bps = 3.5e9;
	cg_calib_choose(&n, &w, &ch);
	cr_expect_eq(ch.result, CG_CAL_CHOSEN, "%s", ch.why);
	cr_expect_eq(ch.scale, 915, "scale %u: %s", ch.scale, ch.why); /* 1600 / 1.75 up */
	cr_expect(strstr(ch.why, "offered load") != NULL, "%s", ch.why);
	w.max = 900;
	cg_calib_choose(&n, &w, &ch);
	cr_expect_eq(ch.result, CG_CAL_NONE, "%s", ch.why);
	cr_expect(strstr(ch.why, "offered load at scale 900, 1.778 Gbit/s") != NULL, "%s", ch.why);
}

Test(calib, no_hop_or_no_noise_keeps_the_floor)
{
	struct cg_noise n = noise(2600000, 0), none = noise(NAN, NAN);
	struct cg_calib_want w = want(1, 100000);
	struct cg_calib_choice ch;

	w.hop_ns = 0; /* ideal: the verdict checks no lateness */
	cg_calib_choose(&n, &w, &ch);
	cr_expect_eq(ch.result, CG_CAL_CHOSEN, "%s", ch.why);
	cr_expect_eq(ch.scale, 1);
	w = want(400, 100000);
	cg_calib_choose(&none, &w, &ch);
	cr_expect_eq(ch.result, CG_CAL_UNMEASURED, "%s", ch.why);
	cr_expect_eq(ch.scale, 400);
	cr_expect(strstr(ch.why, "no frame's lateness") != NULL, "%s", ch.why);
}

Test(calib, noise_of_a_run)
{
	json_t *run = json_pack(
		"{s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}, s:{s:I}, s:{s:i, s:I, s:I, s:I, s:I}}",
		"lateness", "frames", 500, "worst_p99_ns", 48000, "max_ns", 900000, "edge_wait",
		"frames", 400, "p99_ns", 12000, "max_ns", 80000, "counters", "window_ns",
		(json_int_t)8000000000, "lcores", "preempted", 1100, "runq_wait_ns",
		(json_int_t)30000000, "cpu_irq_ns", (json_int_t)200000000, "cpu_softirq_ns",
		(json_int_t)400000000, "cpu_steal_ns", (json_int_t)0);
	struct cg_noise n;

	cg_noise_of(run, &n);
	cr_expect_float_eq(n.late_p99_ns, 48000, 1e-9);
	cr_expect_float_eq(n.late_max_ns, 900000, 1e-9);
	cr_expect_float_eq(n.wait_p99_ns, 12000, 1e-9);
	cr_expect_float_eq(n.window_s, 8, 1e-9);
	cr_expect_float_eq(n.preempted, 1100, 1e-9);
	cr_expect_float_eq(n.softirq_ns, 400e6, 1e-9);
	/* no frame through a link: no lateness, not a lateness of 0 */
	json_object_set_new(json_object_get(run, "lateness"), "frames", json_integer(0));
	json_object_set_new(run, "edge_wait", json_null());
	cg_noise_of(run, &n);
	cr_expect(isnan(n.late_p99_ns) && isnan(n.wait_p99_ns));
	/* a port with no receive time: the wait the loop's passes allow stands for it */
	json_object_set_new(
		run, "edge_wait_loop",
		json_pack("{s:i, s:i, s:i}", "p50_ns", 100, "p99_ns", 30000, "max_ns", 2000000));
	cg_noise_of(run, &n);
	cr_expect_float_eq(n.wait_p99_ns, 30000, 1e-9);
	cr_expect_float_eq(n.wait_max_ns, 2000000, 1e-9);
	json_decref(run);
}

/* What grew on the lcore's core, from two reads of /proc/interrupts and /proc/softirqs. */
Test(calib, core_takers_from_two_reads)
{
	static const char irq0[] = "           CPU0       CPU1       \n"
				   " 41:       2456      14049 PCI-MSIX-0000:00:04.0   1-edge      "
				   "virtio3-rx\n"
				   "LOC:   69489701   73077734   Local timer interrupts\n"
				   "RES:    1894387    5857609   Rescheduling interrupts\n"
				   "ERR:          0\n";
	static const char irq1[] = "           CPU0       CPU1       \n"
				   " 41:       2466      15049 PCI-MSIX-0000:00:04.0   1-edge      "
				   "virtio3-rx\n"
				   "LOC:   69499701   73087734   Local timer interrupts\n"
				   "RES:    1894587    5857609   Rescheduling interrupts\n"
				   "ERR:          0\n";
	static const char soft0[] = "                    CPU0       CPU1       \n"
				    "          HI:          0          0\n"
				    "      NET_RX:  188873728  109209925\n"
				    "       TIMER:    1572745    2734667\n";
	static const char soft1[] = "                    CPU0       CPU1       \n"
				    "          HI:          0          0\n"
				    "      NET_RX:  189873728  109209925\n"
				    "       TIMER:    1572755    2734667\n";
	char out[512];

	cg_core_takers(irq0, irq1, soft0, soft1, 0, 10, out, sizeof(out));
	cr_expect_str_eq(out,
			 "on CPU0: interrupt LOC 1000/s (Local timer interrupts), interrupt RES "
			 "20/s (Rescheduling interrupts), interrupt 41 1/s (PCI-MSIX-0000:00:04.0 "
			 "1-edge virtio3-rx), softirq NET_RX 100000/s, softirq TIMER 1/s");
	cg_core_takers(irq0, irq1, soft0, soft1, 1, 10, out, sizeof(out));
	cr_expect_str_eq(out, "on CPU1: interrupt LOC 1000/s (Local timer interrupts), interrupt "
			      "41 100/s (PCI-MSIX-0000:00:04.0 1-edge virtio3-rx)");
	cg_core_takers(irq0, irq0, soft0, soft0, 0, 10, out, sizeof(out));
	cr_expect_str_eq(out, "");
}

/* The tasks that took the core, from two reads of every task's run time and last core. */
Test(calib, tasks_on_the_core_named)
{
	static const struct cg_task a[] = {
		{.pid = 10, .tid = 10, .cpu = 0, .run_ns = 5000000, .comm = "cc1"},
		{.pid = 20, .tid = 21, .cpu = 0, .run_ns = 1000000000, .comm = "fabemu-dp"},
		{.pid = 30, .tid = 30, .cpu = 1, .run_ns = 0, .comm = "mpirun"},
		{.pid = 40, .tid = 40, .cpu = 0, .run_ns = 100, .comm = "kworker/0:1"},
	};
	static const struct cg_task b[] = {
		/* read back in another order, and a task that is new since (not counted) */
		{.pid = 20, .tid = 21, .cpu = 0, .run_ns = 3400000000, .comm = "fabemu-dp"},
		{.pid = 10, .tid = 10, .cpu = 0, .run_ns = 305000000, .comm = "cc1"},
		{.pid = 30, .tid = 30, .cpu = 1, .run_ns = 9000000000, .comm = "mpirun"},
		{.pid = 40, .tid = 40, .cpu = 0, .run_ns = 200100, .comm = "kworker/0:1"},
		{.pid = 50, .tid = 50, .cpu = 0, .run_ns = 700000000, .comm = "ld"},
	};
	char out[400];

	cg_tasks_on(a, 4, b, 5, 0, out, sizeof(out));
	cr_expect_str_eq(out, "tasks last seen on CPU0: fabemu-dp (pid 20) ran 2400 ms, cc1 (pid "
			      "10) ran 300 ms");
	cg_tasks_on(a, 4, b, 5, 1, out, sizeof(out));
	cr_expect_str_eq(out, "tasks last seen on CPU1: mpirun (pid 30) ran 9000 ms");
	cg_tasks_on(a, 4, a, 4, 0, out, sizeof(out));
	cr_expect_str_eq(out, "");
}
