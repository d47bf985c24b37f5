/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fidelity: does a run's result come from the emulated fabric, or did the box running it
 * shape it? "faithful", or "distorted: " and every reason found (docs/campaigns.md):
 *
 *   - frames lost at the edge (kernel rings, the hosts' queues), or unexplained;
 *   - the box's own delays above a fraction of a hop: frames leaving their links late
 *     against the model's schedule (lateness), or waiting at the edge before the
 *     dataplane read them (edge wait), at p99;
 *   - an offered load (what the fabric lets the hosts send at once) above a fraction of
 *     what the testbed was measured to carry through the ideal dataplane.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"

static double
num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

void
cg_verdict(const struct campaign *c, const struct regime *g, json_t *capacity, json_t *run)
{
	json_t *reasons = json_array(), *late = json_object_get(run, "lateness");
	json_t *wait = json_object_get(run, "edge_wait");
	double hop = (double)g->hop_ns, cap = num(capacity, "ideal_bps");
	double lost = num(run, "edge_lost"), unexpl = num(run, "unexplained");
	char why[512], v[2048] = "faithful";
	size_t i;
	json_t *x;

	if (lost > 0) {
		snprintf(why, sizeof(why),
			 "%.0f frames lost at the edge (the kernel's rings and the hosts' queues, "
			 "outside the emulated fabric)",
			 lost);
		json_array_append_new(reasons, json_string(why));
	}
	if (unexpl > 0) {
		snprintf(why, sizeof(why),
			 "%.0f frames unexplained (neither read, nor sent, nor lost where a "
			 "counter sees it)",
			 unexpl);
		json_array_append_new(reasons, json_string(why));
	}
	if (hop > 0 && num(late, "frames") > 0 && num(late, "p99_ns") > c->fid.late * hop) {
		snprintf(why, sizeof(why),
			 "frames left their links %.1f us late at p99, more than %.0f%% of a hop "
			 "(%.1f us): the box, not the fabric, set the timing",
			 num(late, "p99_ns") / 1000, c->fid.late * 100, hop / 1000);
		json_array_append_new(reasons, json_string(why));
	}
	if (hop > 0 && num(wait, "frames") > 0 && num(wait, "p99_ns") > c->fid.late * hop) {
		snprintf(why, sizeof(why),
			 "frames waited %.1f us at the edge at p99, more than %.0f%% of a hop "
			 "(%.1f us)",
			 num(wait, "p99_ns") / 1000, c->fid.late * 100, hop / 1000);
		json_array_append_new(reasons, json_string(why));
	}
	if (g->offered_bps && cap > 0 && (double)g->offered_bps > c->fid.load * cap) {
		snprintf(why, sizeof(why),
			 "offered load %.2f Gbit/s (%u hosts' links) is more than %.0f%% of what "
			 "the testbed carries through the ideal dataplane (%.2f Gbit/s)",
			 (double)g->offered_bps / 1e9, c->hosts, c->fid.load * 100, cap / 1e9);
		json_array_append_new(reasons, json_string(why));
	}
	json_array_foreach(reasons, i, x)
	{
		size_t o = strlen(v) * (i > 0); /* the first reason replaces "faithful" */

		snprintf(v + o, sizeof(v) - o, "%s%s",
			 i ? "; " : "distorted: ", json_string_value(x));
	}
	json_object_set_new(run, "verdict", json_string(v));
	json_object_set_new(run, "reasons", reasons);
}
