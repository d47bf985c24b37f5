/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe-report-fixture DIR: the results a campaign would write (report.html, its plots, the
 * CSVs, and summary.txt, the terminal's summary), from synthetic runs, for the report's
 * test in a browser (tests/report/browser.sh) and the docs' samples' (samples.sh). The
 * runs are the report's hard case: two sizes, a regime at several rank counts and its
 * projection, the wire and the ideal fabric, and an `ib` regime distorted for many long
 * reasons, as a busy box makes it (issue 35: its verdict squeezed to a word a line, the
 * page run off its right edge).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../unit/cg_fixture.h"

/* Repetition rep of regime g: n iterations of each size, about ms, every tenth stalled
 * by 210 ms when stall. */
static json_t *
a_run(const struct cg_campaign *c, unsigned g, unsigned rep, unsigned n, double ms, int stall,
      json_t *reasons)
{
	json_t *it = json_array(), *r;

	for (unsigned s = 0; s < c->nsizes; s++)
		for (unsigned i = 0; i < n; i++) {
			double x = ms * (s + 1) * (0.9 + 0.2 * (double)i / (n - 1)) +
				   (stall && i % 10 == 3 ? 210 : 0);

			json_array_append_new(it, json_pack("[i, I, i, f, I]", g,
							    (json_int_t)c->sizes[s], s * n + i + 1,
							    x * 1000, (json_int_t)(i * 1000000)));
		}
	r = cg_fixture_run(c->reg[g].name, it, 120.0 + g);
	json_object_set_new(r, "repetition", json_integer(rep));
	json_object_set_new(r, "reasons", reasons ? reasons : json_array());
	json_object_set_new(r, "not_checked", json_array());
	if (c->reg[g].kind == CG_DATAPLANE)
		json_object_set_new(r, "counters", json_object());
	return r;
}

static json_t *
distorted(void)
{
	return json_pack(
		"[s, s, s, s]",
		"frames left their links late: p99 1.3 ms on 0.up, above 10% of a hop of 523 us "
		"(the box, not the fabric: the lcore was preempted 1,218 times)",
		"frames waited at the edge: p99 1.8 ms, above 10% of a hop of 523 us",
		"the lcore's core spent 840 ms in interrupts during the run (movable interrupts "
		"and softirq work for the hosts: testbeds/veth.sh up --cores split)",
		"offered 0.40 Gbit/s, above 50% of the measured capacity of 0.61 Gbit/s");
}

int
main(int argc, char **argv)
{
	static struct cg_campaign c;
	static struct cg_row rows[CG_MAX_REGIMES * CG_MAX_SIZES];
	struct cg_run r = {.c = &c};
	json_t *runs = json_array();
	char p[PATH_MAX + 16];
	size_t n;
	int rc = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: fe-report-fixture DIR\n");
		return 2;
	}
	cg_fixture_campaign(&c, "eth-2");
	snprintf(c.name, sizeof(c.name), "report-fixture");
	snprintf(c.description, sizeof(c.description),
		 "a synthetic campaign: the report's layout in a browser (tests/report)");
	c.hosts = 8;
	c.reps = 2;
	c.iters = 40;
	c.nsizes = 2;
	c.sizes[0] = 256 << 10;
	c.sizes[1] = 1 << 20;
	c.nreg = 6;
	snprintf(c.reg[3].name, sizeof(c.reg[3].name), "eth-4");
	snprintf(c.reg[4].name, sizeof(c.reg[4].name), "eth-8");
	snprintf(c.reg[5].name, sizeof(c.reg[5].name), "ib");
	/* ib's NICs recover its losses: the NICs' table, their timeout its stalls' rule */
	c.reg[5].fabric.nic.model = FE_NIC_IB;
	c.reg[5].fabric.nic.timeout_ns = 67108864;
	c.reg[2].ranks = 2;
	c.reg[3].ranks = 4;
	c.reg[4].ranks = 8;
	c.edge = (struct cg_edge){.pmd = "af_packet", .ring = 16384, .mtu = 1500};
	for (unsigned g = 0; g < c.nreg; g++) {
		c.reg[g].edge = (struct cg_edge){.pmd = "af_packet", .ring = 16384, .mtu = 1500};
		c.reg[g].hop_ns = 523040;
	}
	c.proj.nseries = 2;
	snprintf(c.proj.series[0].name, sizeof(c.proj.series[0].name), "eth");
	c.proj.series[0].fit[0] = 2;
	c.proj.series[0].fit[1] = 3;
	c.proj.series[0].nfit = 2;
	c.proj.series[0].check[0] = 4;
	c.proj.series[0].ncheck = 1;
	snprintf(c.proj.series[1].name, sizeof(c.proj.series[1].name), "ib");
	c.proj.series[1].fit[0] = 5;
	c.proj.series[1].nfit = 1;
	c.proj.compute_ms = 100;
	c.nquestions = 1;
	c.question[0].a = 5;
	c.question[0].b = 1;
	for (unsigned rep = 1; rep <= c.reps; rep++) {
		json_array_append_new(runs, a_run(&c, 0, rep, 40, 4.1, 0, NULL));
		json_array_append_new(runs, a_run(&c, 1, rep, 40, 6.5, 0, NULL));
		json_array_append_new(runs, a_run(&c, 2, rep, 40, 30, 1, NULL));
		json_array_append_new(runs, a_run(&c, 3, rep, 40, 60, 1, NULL));
		json_array_append_new(runs, a_run(&c, 4, rep, 40, 90, 1, NULL));
		json_array_append_new(runs, a_run(&c, 5, rep, 40, 72.8, 0, distorted()));
	}
	snprintf(r.out, sizeof(r.out), "%s", argv[1]);
	snprintf(p, sizeof(p), "%s/plots", r.out);
	mkdir(r.out, 0755);
	mkdir(p, 0755);
	r.unwritten = json_array();
	r.warnings = json_array();
	r.capacity = json_pack("{s:f, s:f}", "ideal_bps", 3.07e9, "wire_bps", 5.43e9);
	n = cg_summarize(&c, runs, rows);
	rc |= cg_write_csvs(&r, runs, rows, n);
	rc |= cg_plots(&r, runs, rows, n);
	rc |= cg_html(&r, runs, rows, n, "complete");
	/* the terminal's summary, as the run prints it: the docs' samples' check reads its
	 * tables' headers (tests/report/samples.sh) */
	snprintf(p, sizeof(p), "%s/summary.txt", r.out);
	if ((f = fopen(p, "w")) == NULL) {
		rc = 1;
	} else {
		cg_print_summary(f, &c, r.capacity, rows, n);
		rc |= fclose(f) != 0;
	}
	if (rc)
		fprintf(stderr, "fe-report-fixture: a file was not written in %s\n", r.out);
	json_decref(runs);
	json_decref(r.unwritten);
	json_decref(r.warnings);
	json_decref(r.capacity);
	return rc ? 1 : 0;
}
