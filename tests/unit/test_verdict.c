/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A campaign's figures, verdicts and summary from recorded runs (control/campaign/):
 * the lane sums and the ports' conservation read from a counters document as the
 * dataplane writes it, each fidelity rule on its own, and the baselines and ratios.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "cg_fixture.h"
#include "fe_qhist.h"

static struct cg_campaign camp;

static void
setup(void)
{
	cg_fixture_campaign(&camp, "fab");
	camp.reg[2].hop_ns = 500000;	     /* 500 us: 10 % is 50 us */
	camp.reg[2].offered_bps = 200000000; /* 2 hosts x 100 Mbit/s */
}

TestSuite(verdict, .init = setup);

/* A histogram (as the counters document has it) with every frame late by ns. */
static json_t *
hist(uint64_t frames, uint64_t ns)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < FE_QHIST_BUCKETS; i++)
		json_array_append_new(
			a, json_integer(i == fe_qhist_bucket(ns) ? (json_int_t)frames : 0));
	return a;
}

/*
 * A run of regime g: two hosts sent 100 frames each, which the dataplane read and sent
 * on (less `lost` at the edge of port 0); frames late by late_ns, waiting wait_ns.
 */
static json_t *
run_of(const char *regime, uint64_t late_ns, uint64_t wait_ns, int lost, double it_ms)
{
	json_t *ports = json_array(), *links = json_array(), *hosts = json_array(), *c, *r;

	for (int p = 0; p < 2; p++) {
		json_array_append_new(
			ports,
			json_pack("{s:i, s:i, s:i, s:i, s:{s:s, s:i, s:i}, s:{s:s, s:b, s:o}}",
				  "port", p, "rx_pkts", 100 - (p ? 0 : lost), "tx_pkts", 100,
				  "oerrors", 0, "kernel", "kind", "af_packet", "socket_drops",
				  p ? 0 : lost, "if_tx_dropped", 0, "edge_wait", "source", "kernel",
				  "timed", 1, "hist_ns", hist(100, wait_ns)));
		json_array_append_new(links, json_pack("{s:s, s:i, s:i, s:o}", "link",
						       p ? "0.down" : "0.up", "drop_tail_pkts", 1,
						       "ecn_marked", 2, "late_hist_ns",
						       hist(100, late_ns)));
		json_array_append_new(hosts, json_pack("{s:i, s:i, s:i, s:i, s:i}", "host", p + 1,
						       "tx_packets", 100, "tx_dropped", 0,
						       "rx_packets", 100, "rx_dropped", 0));
	}
	c = json_pack("{s:o, s:o, s:s, s:[{s:i, s:i, s:i, s:i}, {s:i, s:i, s:i, s:i}]}", "ports",
		      ports, "links", links, "regime", "pfc", "lane_counters", "port", 0, "lane", 0,
		      "pause_frames", 7, "paused_ns", 3000000, "port", 1, "lane", 0, "pause_frames",
		      5, "paused_ns", 1000000);
	r = cg_fixture_run(regime, json_pack("[[i, i, i, f, i]]", 1, 1024, 1, it_ms * 1000, 0),
			   100.0);
	json_object_set_new(r, "hosts", hosts);
	json_object_set_new(r, "counters", c);
	return r;
}

static const char *
verdict_of(json_t *run, const struct cg_regime *g, double capacity_bps)
{
	json_t *cap = json_pack("{s:f}", "ideal_bps", capacity_bps);

	cg_figures(&camp, g, run);
	cg_verdict(&camp, g, cap, run);
	json_decref(cap);
	return json_string_value(json_object_get(run, "verdict"));
}

Test(verdict, figures_from_the_counters_document)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);

	verdict_of(run, &camp.reg[2], 1e9);
	cr_assert_eq(json_integer_value(json_object_get(run, "pause_frames")), 12);
	cr_assert_eq(json_integer_value(json_object_get(run, "paused_ns")), 4000000);
	cr_assert_eq(json_integer_value(json_object_get(run, "edge_lost")), 0);
	cr_assert_eq(json_integer_value(json_object_get(run, "unexplained")), 0);
	cr_assert_eq(
		json_integer_value(json_object_get(json_object_get(run, "lateness"), "frames")),
		200);
	cr_assert_eq(
		json_integer_value(json_object_get(json_object_get(run, "lateness"), "p99_ns")),
		(json_int_t)fe_qhist_upper(fe_qhist_bucket(1000)));
	json_decref(run);
}

Test(verdict, faithful_when_the_box_stays_small)
{
	json_t *run = run_of("fab", 20000, 10000, 0, 1.0); /* 20 us and 10 us of a 500 us hop */

	cr_assert_str_eq(verdict_of(run, &camp.reg[2], 1e9), "faithful");
	json_decref(run);
}

Test(verdict, each_rule_on_its_own)
{
	static const struct {
		uint64_t late, wait;
		int lost;
		double cap;
		const char *why;
	} cases[] = {
		{80000, 1000, 0, 1e9, "late at p99, more than 10% of a hop (500.0 us)"},
		{1000, 80000, 0, 1e9, "waited"},
		{1000, 1000, 3, 1e9, "3 frames lost at the edge"},
		{1000, 1000, 0, 3e8, "offered load 0.20 Gbit/s"},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *run = run_of("fab", cases[i].late, cases[i].wait, cases[i].lost, 1.0);
		const char *v = verdict_of(run, &camp.reg[2], cases[i].cap);

		cr_assert(strncmp(v, "distorted: ", 11) == 0 && strstr(v, cases[i].why),
			  "case %u: '%s' should say '%s'", i, v, cases[i].why);
		cr_assert_eq(json_array_size(json_object_get(run, "reasons")), 1, "case %u: %s", i,
			     v);
		json_decref(run);
	}
}

/*
 * A veth counts a frame its backlog had no room for at both ends: the host's tx_dropped
 * and the dataplane side's rx_dropped. It is one frame lost at the edge, not two.
 */
Test(verdict, a_loss_counted_at_both_ends_of_a_veth)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);
	json_t *h = json_array_get(json_object_get(run, "hosts"), 1);
	json_t *k = json_object_get(
		json_array_get(json_object_get(json_object_get(run, "counters"), "ports"), 1),
		"kernel");

	json_object_set_new(h, "tx_dropped", json_integer(2));
	json_object_set_new(k, "if_rx_dropped", json_integer(2));
	cr_assert(
		strstr(verdict_of(run, &camp.reg[2], 1e9), "distorted: 2 frames lost at the edge"));
	cr_assert_eq(json_integer_value(json_object_get(run, "unexplained")), 0);
	json_decref(run);
}

/*
 * A port on a NIC (no kernel interface: a PCI port, a lab's host behind it): what the
 * box's NIC could not take (imissed: its ring full; rx_nombuf: no mbuf; ierrors) is lost
 * at the edge, and the run is distorted. The host sent 100, the dataplane read 93.
 */
Test(verdict, the_box_nic_lost_frames)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);
	json_t *p = json_array_get(json_object_get(json_object_get(run, "counters"), "ports"), 0);
	const char *v;

	json_object_set_new(p, "kernel", json_pack("{s:s}", "kind", "none"));
	json_object_set_new(p, "rx_pkts", json_integer(93));
	json_object_set_new(p, "imissed", json_integer(4));
	json_object_set_new(p, "rx_nombuf", json_integer(2));
	json_object_set_new(p, "ierrors", json_integer(1));
	json_object_set_new(p, "nic_lost_rx", json_integer(7)); /* as the dataplane sums them */
	v = verdict_of(run, &camp.reg[2], 1e9);
	cr_assert_eq(json_integer_value(json_object_get(run, "edge_lost")), 7, "%s", v);
	cr_assert_eq(json_integer_value(json_object_get(run, "unexplained")), 0, "%s", v);
	cr_assert(strstr(v, "distorted: 7 frames lost at the edge") && strstr(v, "the box's NIC"),
		  "%s", v);
	json_decref(run);
}

/* A frame the dataplane read that no host sent is unexplained: flagged, never silent. */
Test(verdict, unexplained_frames)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);

	json_object_set_new(json_array_get(json_object_get(run, "hosts"), 1), "tx_packets",
			    json_integer(98));
	cr_assert(strstr(verdict_of(run, &camp.reg[2], 1e9), "2 frames unexplained") != NULL);
	json_decref(run);
}

/*
 * The edge is at rest when nothing is in flight by the dataplane's own kernel view of any
 * port: a frame a host sent that it has not read (rx_unexplained above 0), one it sent
 * that the kernel has not passed on (tx_unexplained above 0). A negative one is a frame
 * caught across the counters' reset, for good: not in flight. A campaign reads its window
 * only at rest (cg_run.c); a run whose edge never came to rest says so beside its
 * unexplained frames.
 */
Test(verdict, edge_in_flight)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);
	json_t *ports = json_object_get(json_object_get(run, "counters"), "ports");
	json_t *k0 = json_object_get(json_array_get(ports, 0), "kernel");
	json_t *k1 = json_object_get(json_array_get(ports, 1), "kernel");

	cr_assert_eq(cg_edge_in_flight(json_object_get(run, "counters")), 0);
	json_object_set_new(k0, "rx_unexplained", json_integer(3));
	json_object_set_new(k0, "tx_unexplained", json_integer(-1)); /* across the reset */
	json_object_set_new(k1, "tx_unexplained", json_integer(1));
	json_object_set_new(k1, "rx_unexplained", json_integer(-2));
	json_array_append_new(ports,
			      json_pack("{s:i, s:{s:s}}", "port", 2, "kernel", "kind", "none"));
	cr_assert_eq(cg_edge_in_flight(json_object_get(run, "counters")), 4);
	cr_assert_eq(cg_edge_in_flight(NULL), 0);
	json_array_remove(ports, 2);
	/* host 2 sent 2 frames the dataplane has not read: unexplained, and still in flight */
	json_object_set_new(json_array_get(json_object_get(run, "hosts"), 1), "tx_packets",
			    json_integer(102));
	json_object_set_new(run, "edge_in_flight", json_integer(4));
	json_object_set_new(run, "window_reads", json_integer(20));
	cr_assert(strstr(verdict_of(run, &camp.reg[2], 1e9),
			 "2 frames unexplained (neither read, nor sent, nor lost where a counter "
			 "sees it; the dataplane's edge still had 4 in flight after 20 reads)") !=
			  NULL,
		  "%s", json_string_value(json_object_get(run, "verdict")));
	json_decref(run);
}

/* Rules that need a hop or a load do not apply to the ideal baseline: it says so. */
Test(verdict, baselines)
{
	json_t *run = run_of("ideal", 900000, 900000, 0, 1.0);

	cr_assert_str_eq(verdict_of(run, &camp.reg[1], 1e6),
			 "faithful (not checked: lateness and edge wait (no hop to measure them "
			 "against))");
	json_decref(run);
}

/* A dataplane run whose counters are missing is never faithful: nothing was checked. */
Test(verdict, no_counters)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);

	json_object_set_new(run, "counters", json_null());
	cr_assert(strstr(verdict_of(run, &camp.reg[2], 1e9), "distorted: no counters") != NULL);
	json_decref(run);
}

/* Frames the dataplane dropped outside its model: a link out of slots, no mbuf. */
Test(verdict, dropped_by_the_box)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);
	json_t *c = json_object_get(run, "counters");

	json_object_set_new(json_array_get(json_object_get(c, "links"), 0), "drop_wire_pkts",
			    json_integer(2));
	json_object_set_new(c, "switch", json_pack("{s:i, s:i}", "nombuf", 1, "handoff_full", 0));
	cr_assert(strstr(verdict_of(run, &camp.reg[2], 1e9), "3 frames dropped by the dataplane"));
	cr_assert_eq(json_integer_value(json_object_get(
			     json_array_get(json_object_get(run, "links"), 0), "drops")),
		     1, "a wire drop is not a fabric drop");
	json_decref(run);
}

/*
 * A frame a switch trimmed is not lost: its header goes on, its receiver NAKs it and its
 * sender sends it again (docs/uec.md). The figures counted it a fabric drop, so a UEC row
 * showed thousands of "drops" and its stalls a drop's cause; they are its trims.
 */
Test(verdict, a_trim_is_not_a_drop)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);
	json_t *c = json_object_get(run, "counters"), *runs = json_array();
	struct cg_row rows[CG_MAX_REGIMES];

	json_object_set_new(json_array_get(json_object_get(c, "links"), 1), "drop_trim_pkts",
			    json_integer(40));
	verdict_of(run, &camp.reg[2], 1e9);
	cr_assert_eq(json_integer_value(json_object_get(
			     json_array_get(json_object_get(run, "links"), 1), "drops")),
		     1, "the tail drop alone");
	cr_assert_eq(json_integer_value(json_object_get(
			     json_array_get(json_object_get(run, "links"), 1), "trims")),
		     40);
	cr_assert_eq(cg_fabric_drops(c), 2, "the two tail drops, not the trims");
	json_array_append_new(runs, run);
	cr_assert_eq(cg_summarize(&camp, runs, rows), 3);
	cr_assert_eq(rows[2].drops, 2);
	cr_assert_eq(rows[2].trims, 40);
	json_decref(runs);
}

/*
 * A uec NIC's NAKs are mostly its trimmed frames' (nic_trim_naks_sent): the NICs' figures
 * summed only the gap NAKs, so a uec row showed "NAKs 0" with thousands of frames asked
 * for again. Both are in the row's NAKs, and the run's nic has each.
 */
Test(verdict, a_trims_nak_is_a_nak)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0), *runs = json_array();
	json_t *ports = json_object_get(json_object_get(run, "counters"), "ports");
	struct cg_row rows[CG_MAX_REGIMES];

	json_object_set_new(json_array_get(ports, 0), "nic_naks_sent", json_integer(2));
	json_object_set_new(json_array_get(ports, 1), "nic_trim_naks_sent", json_integer(40));
	json_object_set_new(json_array_get(ports, 1), "nic_probes_sent", json_integer(7));
	verdict_of(run, &camp.reg[2], 1e9);
	cr_assert_eq(
		json_integer_value(json_object_get(json_object_get(run, "nic"), "trim_naks_sent")),
		40);
	cr_assert_eq(
		json_integer_value(json_object_get(json_object_get(run, "nic"), "probes_sent")), 7);
	json_array_append_new(runs, run);
	cr_assert_eq(cg_summarize(&camp, runs, rows), 3);
	cr_assert_eq(rows[2].nic_naks, 42, "the gap NAKs and the trims': %lld", rows[2].nic_naks);
	json_decref(runs);
}

/*
 * A NIC's timeout that fired where the fabric lost nothing sent again frames that were only
 * queued: a fixed timeout (67.1 ms, not dilated) under a dilated fabric's queues (docs/nic.md).
 * ib-ndr's NICs in uec-incast: 64 and 63 a run, every frame sent again a duplicate. The row
 * counts them (at least the timeouts less the frames lost) and the summary says so.
 */
Test(verdict, a_timeout_with_nothing_lost_is_said)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0), *runs = json_array();
	json_t *ports = json_object_get(json_object_get(run, "counters"), "ports");
	struct cg_row rows[CG_MAX_REGIMES];
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	camp.reg[2].fabric.nic.model = FE_NIC_IB; /* (each test runs in a process of its own) */
	json_object_set_new(json_array_get(ports, 0), "nic_timeouts", json_integer(9));
	verdict_of(run, &camp.reg[2], 1e9); /* its links dropped 2 frames (tail) */
	json_array_append_new(runs, run);
	cr_assert_eq(cg_summarize(&camp, runs, rows), 3);
	cr_assert_eq(rows[2].nic_timeouts, 9);
	cr_assert_eq(rows[2].nic_timeouts_unlost, 7, "9 timeouts, 2 frames lost: %lld",
		     rows[2].nic_timeouts_unlost);
	f = open_memstream(&out, &len);
	cr_assert_not_null(f);
	cg_print_summary(f, &camp, NULL, rows, 3);
	cr_assert_eq(fclose(f), 0);
	cr_assert_not_null(
		strstr(out, "fab: 7 of its 9 NIC timeouts at least fired with nothing lost"), "%s",
		out);
	free(out);
	json_decref(runs);
}

/* The worst link decides the lateness, not every link merged. */
Test(verdict, the_worst_link)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);
	json_t *l = json_array_get(json_object_get(json_object_get(run, "counters"), "links"), 1);

	json_t *runs = json_array();
	struct cg_row rows[CG_MAX_REGIMES];

	json_object_set_new(l, "late_hist_ns", hist(100, 80000)); /* 0.down: 80 us late */
	cr_assert(strstr(verdict_of(run, &camp.reg[2], 1e9), "frames left 0.down 81.9 us") != NULL);
	/* the summary's late p99 is the verdict's: the worst link's, named */
	json_array_append_new(runs, run);
	cr_assert_eq(cg_summarize(&camp, runs, rows), 3);
	cr_assert_float_eq(rows[2].late_worst_p99_us, 81.92, 1e-9);
	cr_assert_str_eq(rows[2].late_worst_link, "0.down");
	cr_assert(isnan(rows[0].late_worst_p99_us), "the wire did not run");
	json_decref(runs);
}

/* A fabric regime whose links have no rate: the load rule cannot apply, and says so. */
Test(verdict, load_unbounded)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);

	camp.reg[2].offered_bps = 0;
	cr_assert_str_eq(verdict_of(run, &camp.reg[2], 1e9),
			 "faithful (not checked: offered load (a host's link has no rate: what "
			 "the hosts may send is unbounded))");
	json_decref(run);
}

/* A late run says what the kernel saw take the dataplane's core away. */
Test(verdict, what_took_the_core)
{
	json_t *run = run_of("fab", 80000, 1000, 0, 1.0), *c = json_object_get(run, "counters");
	const char *v;

	json_object_set_new(c, "lcores",
			    json_pack("{s:i, s:[i], s:i, s:i, s:I, s:I, s:i, s:I}", "threads", 1,
				      "cpus", 0, "preempted", 3, "yielded", 0, "runq_wait_ns",
				      (json_int_t)5200000, "cpu_steal_ns", (json_int_t)20000000,
				      "cpu_irq_ns", 0, "cpu_softirq_ns", (json_int_t)10000000));
	v = verdict_of(run, &camp.reg[2], 1e9);
	cr_assert(strstr(v, "set the timing; its lcore was preempted 3 times (5.2 ms waiting for "
			    "its core); its core spent 10 ms in interrupts (0 hard, 10 soft); the "
			    "hypervisor took its core 20 ms") != NULL,
		  "%s", v);
	cr_assert(json_is_object(json_object_get(run, "lcores")), "the run keeps the figures");
	json_decref(run);

	run = run_of("fab", 80000, 1000, 0, 1.0);
	c = json_object_get(run, "counters");
	json_object_set_new(c, "lcores",
			    json_pack("{s:i, s:[i], s:i, s:i, s:i, s:i, s:i, s:i}", "threads", 1,
				      "cpus", 0, "preempted", 0, "yielded", 0, "runq_wait_ns", 0,
				      "cpu_steal_ns", 0, "cpu_irq_ns", 0, "cpu_softirq_ns", 0));
	v = verdict_of(run, &camp.reg[2], 1e9);
	cr_assert(strstr(v, "; the kernel counted no preemption, interrupt or steal time on its "
			    "core") != NULL,
		  "%s", v);
	json_decref(run);
}

/*
 * The loop's passes (counters.idle): those longer than the verdict's bound are what kept
 * every port waiting, whether or not the kernel saw anything take the core (a hypervisor
 * that reports no steal); the shorter ones are not counted.
 */
Test(verdict, the_loops_long_passes)
{
	json_t *run = run_of("fab", 80000, 1000, 0, 1.0), *c = json_object_get(run, "counters");
	json_t *h = hist(500, 1000);
	const char *v;

	json_array_set_new(h, fe_qhist_bucket(2000000), json_integer(40)); /* 2 ms: over */
	json_object_set_new(c, "idle", json_pack("{s:o}", "pass_hist_ns", h));
	json_object_set_new(c, "lcores",
			    json_pack("{s:i, s:[i], s:i, s:i, s:I, s:i, s:i, s:i}", "threads", 1,
				      "cpus", 0, "preempted", 3, "yielded", 0, "runq_wait_ns",
				      (json_int_t)5200000, "cpu_steal_ns", 0, "cpu_irq_ns", 0,
				      "cpu_softirq_ns", 0));
	v = verdict_of(run, &camp.reg[2], 1e9);
	/* 40 passes in the bucket from 1.835 ms: at least 73 ms */
	cr_assert(strstr(v, "set the timing; its loop came back to its ports more than ") != NULL,
		  "%s", v);
	cr_assert(strstr(v, " after it left them 40 times (at least 73 ms in all); its lcore was "
			    "preempted 3 times (5.2 ms waiting for its core)") != NULL,
		  "%s", v);
	json_decref(run);
}

/*
 * Split: the other boxes' lcores (the counters' boxes[], as cg_dp_counters merges them)
 * ran on the hosts' cores; above 10 % of the job's time the hosts had that much less CPU
 * than beside one box, and the run is distorted though no frame left late.
 */
Test(verdict, other_boxes_took_the_hosts_cores)
{
	static const struct {
		json_int_t ran_a, ran_b;
		const char *want;
	} cases[] = {
		{200000000, 100000000,
		 "distorted: the other boxes' lcores ran on the hosts' cores 15% of the time (300 "
		 "ms of 2000, more than 10%): the hosts had that much less CPU than beside one "
		 "box"},
		{100000000, 90000000, "faithful"},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *run = run_of("fab", 1000, 1000, 0, 1.0);

		json_object_set_new(json_object_get(run, "counters"), "boxes",
				    json_pack("[{s:i, s:{s:I}}, {s:i, s:{s:I}}]", "box", 1,
					      "lcores", "run_ns", cases[i].ran_a, "box", 2,
					      "lcores", "run_ns", cases[i].ran_b));
		json_object_set_new(json_object_get(run, "counters"), "window_ns",
				    json_integer(2000000000));
		cr_assert_str_eq(verdict_of(run, &camp.reg[2], 1e9), cases[i].want);
		cr_assert_eq(json_integer_value(json_object_get(run, "boxes_run_ns")),
			     cases[i].ran_a + cases[i].ran_b);
		cr_assert_eq(json_integer_value(json_object_get(run, "window_ns")), 2000000000);
		json_decref(run);
	}
	/* one box: no such figure, nothing to say */
	{
		json_t *run = run_of("fab", 1000, 1000, 0, 1.0);

		cr_assert_str_eq(verdict_of(run, &camp.reg[2], 1e9), "faithful");
		cr_assert_null(json_object_get(run, "boxes_run_ns"));
		json_decref(run);
	}
}

/* A rule that cannot be applied is said, never silently passed. */
Test(verdict, what_was_not_checked)
{
	json_t *run = run_of("fab", 1000, 1000, 0, 1.0);
	json_t *w = json_object_get(
		json_array_get(json_object_get(json_object_get(run, "counters"), "ports"), 1),
		"edge_wait");

	json_object_set_new(w, "timed", json_false());
	json_object_set_new(w, "source", json_string("none"));
	json_object_set_new(w, "why", json_string("the AF_XDP path carries no receive time"));
	cr_assert_str_eq(verdict_of(run, &camp.reg[2], 0),
			 "faithful (not checked: edge wait (port 1: the AF_XDP path carries no "
			 "receive time); offered load (the capacity was not measured))");
	json_decref(run);
}

/*
 * A port with no receive time (a PCI NIC, AF_XDP): its frames wait in its ring for the
 * loop to come back, and the loop's passes (counters.idle) say how long that can be. Long
 * passes make the run distorted; short ones leave nothing unchecked.
 */
Test(verdict, a_ring_with_no_receive_time_waits_for_the_loop)
{
	/* 0: short passes; 1: and long ones; 2: the same, from a loop that slept (its
	 * passes are not its whole time: not estimated, said unchecked) */
	for (int k = 0; k < 3; k++) {
		json_t *run = run_of("fab", 1000, 1000, 0, 1.0);
		json_t *c = json_object_get(run, "counters");
		json_t *w = json_object_get(json_array_get(json_object_get(c, "ports"), 0),
					    "edge_wait");
		json_t *h = hist(100000, 200); /* 100,000 passes of 200 ns: 20 ms */
		json_t *loop;
		const char *v;

		json_object_set_new(w, "timed", json_false());
		json_object_set_new(w, "source", json_string("none"));
		json_object_set_new(w, "why", json_string("not a kernel interface"));
		if (k > 0) /* and 10 of 4 ms: 40 ms, two thirds of the time */
			json_array_set_new(h, fe_qhist_bucket(4000000), json_integer(10));
		json_object_set_new(
			c, "idle",
			json_pack("{s:o, s:i}", "pass_hist_ns", h, "sleeps", k == 2 ? 5 : 0));
		v = verdict_of(run, &camp.reg[2], 1e9);
		loop = json_object_get(run, "edge_wait_loop");
		if (k == 0) {
			cr_assert_str_eq(v, "faithful");
			cr_assert_lt(json_integer_value(json_object_get(loop, "p99_ns")), 1000);
		} else if (k == 1) {
			cr_assert(strncmp(v, "distorted: frames could wait ", 29) == 0, "%s", v);
			cr_assert(
				strstr(v,
				       " us at p99 in a ring with no receive time for the loop to "
				       "come back to it (port 0: not a kernel interface: "
				       "estimated from the loop's passes)") != NULL,
				"%s", v);
			cr_assert_gt(json_integer_value(json_object_get(loop, "p99_ns")), 3000000);
		} else {
			cr_assert_str_eq(v,
					 "faithful (not checked: edge wait (port 0: not a kernel "
					 "interface))");
			cr_assert(json_is_null(loop));
		}
		json_decref(run);
	}
}

Test(verdict, summary_beside_the_baselines)
{
	json_t *runs = json_array(), *w = run_of("wire", 0, 0, 0, 2.0);
	struct cg_row rows[CG_MAX_REGIMES];
	size_t n;

	json_object_set_new(w, "counters", json_null());
	verdict_of(w, &camp.reg[0], 1e9);
	json_array_append_new(runs, w);
	json_array_append_new(runs, run_of("ideal", 0, 0, 0, 3.0));
	verdict_of(json_array_get(runs, 1), &camp.reg[1], 1e9);
	n = cg_summarize(&camp, runs, rows);
	cr_assert_eq(n, 3);
	cr_assert_eq(rows[0].baseline, 1);
	cr_assert_eq(rows[1].baseline, 2);
	cr_assert_float_eq(rows[1].p50 / rows[1].wire_p50, 1.5, 1e-9);
	cr_assert_float_eq(rows[1].p50 / rows[1].ideal_p50, 1.0, 1e-9);
	cr_assert_eq(rows[1].pauses, 12);
	cr_assert_eq(rows[2].runs, 0, "fab did not run");
	cr_assert(isnan(rows[2].p50));
	cr_assert(strncmp(rows[2].verdict, "not run", 7) == 0, "%s", rows[2].verdict);
	json_decref(runs);
}
