/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the campaign suites (test_verdict.c, test_campaign_output.c) start from: a campaign
 * as cg_load() would leave it, and a run as cg_run.c records it. Call cg_fixture_campaign()
 * from a suite's .init, then set what the suite needs beyond it (the third regime, steps).
 */
#ifndef FE_CG_FIXTURE_H
#define FE_CG_FIXTURE_H

#include "campaign/cg.h"

/*
 * Zero c, then: two hosts, the all-reduce over one size of 1 KiB, lateness 10 % of a hop,
 * load 50 %; three regimes: 0 "wire" and 1 "ideal", the baselines marked as cg_load()
 * marks them (the first wire, the first ideal fabric), and 2 named name, through the
 * dataplane.
 */
void cg_fixture_campaign(struct cg_campaign *c, const char *name);

/*
 * A recorded run of regime: repetition 1, its iterations ([[g, size, i, time_us,
 * start_ns], ...], the reference is taken), a window of 1 s from 0, the ping before it.
 */
json_t *cg_fixture_run(const char *regime, json_t *iterations, double ping_rtt_us);

/* Repetition rep of regime, faithful: n iterations of 1 KiB about ms, spread +-10 %
 * evenly. */
json_t *cg_fixture_rep(const char *regime, unsigned rep, unsigned n, double ms);

/*
 * A run's results directory: a new one under /tmp (named after tag) into run->out and dir,
 * and the run's unwritten, warnings and capacity documents; 0, or -1. close: both freed,
 * the directory removed (system()'s status).
 */
int cg_fixture_out_open(struct cg_run *run, char *dir, size_t len, const char *tag);
int cg_fixture_out_close(struct cg_run *run, const char *dir);

/* The text of file path (up to 128 KiB, in a buffer the next call reuses); the test
 * fails if it cannot be opened. */
char *cg_fixture_slurp(const char *path);

#endif
