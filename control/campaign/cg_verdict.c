/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fidelity: does a run's result come from the emulated fabric, or did the box running it
 * shape it? "faithful", or "distorted: " and every reason found (docs/campaigns.md):
 *
 *   - frames lost at the edge (kernel rings, the hosts' queues), dropped by the
 *     dataplane itself outside its model, or unexplained;
 *   - the box's own delays above a fraction of a hop: frames leaving their links late
 *     against the model's schedule (lateness, the worst link), or waiting at the edge
 *     before the dataplane read them (edge wait), at p99;
 *   - an offered load (what the fabric lets the hosts send at once) above a fraction of
 *     what the testbed was measured to carry through the ideal dataplane;
 *   - no counters at all from a dataplane run: nothing could be checked.
 *
 * A rule that cannot be applied is said, after the verdict: "(not checked: ...)". A run
 * is never called faithful for want of a figure without saying which.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"

static double
num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static void add(json_t *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
add(json_t *list, const char *fmt, ...)
{
	char s[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	json_array_append_new(list, json_string(s));
}

/*
 * What kept the dataplane's loop from its ports during the run: its passes longer than
 * over_ns, and what the kernel saw take its core (counters.lcores, docs/counters.md).
 */
static const char *
why_late(json_t *run, double over_ns)
{
	static char buf[1024];
	char cause[1000];
	struct cg_noise n;

	cg_noise_of(run, &n);
	cg_noise_cause(&n, over_ns, cause, sizeof(cause));
	snprintf(buf, sizeof(buf), "%s%s", cause[0] ? "; " : "", cause);
	return buf;
}

/* The box's lateness and edge waits, against a fraction of the hop. */
static void
delays(const struct cg_campaign *c, const struct cg_regime *g, json_t *run, json_t *reasons,
       json_t *notes)
{
	json_t *late = json_object_get(run, "lateness"), *wait = json_object_get(run, "edge_wait");
	json_t *loop;
	double hop = (double)g->hop_ns, lim = c->fid.late * hop;
	double lp99 = num(late, "worst_p99_ns");

	if (hop <= 0) {
		add(notes, "lateness and edge wait (no hop to measure them against)");
		return;
	}
	if (num(late, "frames") > 0 && lp99 > lim)
		add(reasons,
		    "frames left %s %.1f us late at p99, more than %.0f%% of a hop (%.1f us): the "
		    "box, not the fabric, set the timing%s",
		    json_string_value(json_object_get(late, "worst_link")) ?: "their links",
		    lp99 / 1000, c->fid.late * 100, hop / 1000, why_late(run, lim));
	if (num(wait, "frames") > 0 && num(wait, "p99_ns") > lim)
		add(reasons,
		    "frames waited %.1f us at the edge at p99, more than %.0f%% of a hop "
		    "(%.1f us)",
		    num(wait, "p99_ns") / 1000, c->fid.late * 100, hop / 1000);
	if (!json_is_string(json_object_get(run, "edge_wait_untimed")))
		return;
	/* a port with no receive time: how long the loop's passes let a frame wait in its ring */
	loop = json_object_get(run, "edge_wait_loop");
	if (!json_is_object(loop)) {
		add(notes, "edge wait (%s)",
		    json_string_value(json_object_get(run, "edge_wait_untimed")));
		return;
	}
	if (num(loop, "p99_ns") > lim)
		add(reasons,
		    "frames could wait %.1f us at p99 in a ring with no receive time for the loop "
		    "to come back to it (%s: estimated from the loop's passes), more than %.0f%% "
		    "of a hop (%.1f us)",
		    num(loop, "p99_ns") / 1000,
		    json_string_value(json_object_get(run, "edge_wait_untimed")), c->fid.late * 100,
		    hop / 1000);
}

/*
 * Split: the other boxes run on the hosts' cores (cg_dataplane.c), and what their lcores
 * ran there the hosts did not have, as they had it beside one box. Over the counters'
 * window (their reset to their read, the job and its settle), more than the lateness
 * fraction of it distorts the run, though no frame left late.
 */
static void
boxes_cpu(const struct cg_campaign *c, json_t *run, json_t *reasons)
{
	double ran = num(run, "boxes_run_ns"), win = num(run, "window_ns");

	if (!json_is_integer(json_object_get(run, "boxes_run_ns")) || win <= 0 ||
	    ran <= c->fid.late * win)
		return;
	add(reasons,
	    "the other boxes' lcores ran on the hosts' cores %.0f%% of the time (%.0f ms of "
	    "%.0f, more than %.0f%%): the hosts had that much less CPU than beside one box",
	    100 * ran / win, ran / 1e6, win / 1e6, c->fid.late * 100);
}

/* The hosts' up links against what the testbed was measured to carry. */
static void
load(const struct cg_campaign *c, const struct cg_regime *g, json_t *capacity, json_t *reasons,
     json_t *notes)
{
	double cap = num(capacity, "ideal_bps");

	if (g->kind == CG_WIRE || g->ideal)
		return; /* the baselines: the box itself, whatever the job sends */
	if (g->offered_bps == 0) {
		add(notes, "offered load (a host's link has no rate: what the hosts may send is "
			   "unbounded)");
		return;
	}
	if (cap <= 0) {
		add(notes, "offered load (the capacity was not measured)");
		return;
	}
	if (strcmp(g->edge.pmd, c->edge.pmd) || g->edge.mtu != c->edge.mtu) {
		add(notes, "offered load (the capacity was measured on another edge: %s, MTU %u)",
		    c->edge.pmd, c->edge.mtu);
		return;
	}
	if ((double)g->offered_bps > c->fid.load * cap)
		add(reasons,
		    "offered load %.2f Gbit/s (%u hosts' links) is more than %.0f%% of what the "
		    "testbed carries through the ideal dataplane (%.2f Gbit/s)",
		    (double)g->offered_bps / 1e9, c->hosts, c->fid.load * 100, cap / 1e9);
}

/* "faithful" or "distorted: a; b", then " (not checked: c; d)". */
void
cg_verdict_text(json_t *reasons, json_t *notes, char *v, size_t len)
{
	size_t i;
	json_t *x;

	snprintf(v, len, "%s", json_array_size(reasons) ? "distorted: " : "faithful");
	json_array_foreach(reasons, i, x) snprintf(v + strlen(v), len - strlen(v), "%s%s",
						   i ? "; " : "", json_string_value(x));
	json_array_foreach(notes, i, x)
		snprintf(v + strlen(v), len - strlen(v), "%s%s",
			 i ? "; " : " (not checked: ", json_string_value(x));
	if (json_array_size(notes))
		snprintf(v + strlen(v), len - strlen(v), ")");
}

void
cg_verdict(const struct cg_campaign *c, const struct cg_regime *g, json_t *capacity, json_t *run)
{
	json_t *reasons = json_array(), *notes = json_array();
	double lost = num(run, "edge_lost"), box = num(run, "box_dropped");
	char v[2048];

	if (g->kind == CG_DATAPLANE && !json_is_object(json_object_get(run, "counters")))
		add(reasons, "no counters from the dataplane: nothing at the edge was checked");
	if (lost > 0)
		add(reasons,
		    "%.0f frames lost at the edge (the kernel's rings, the hosts' queues and "
		    "the box's NICs, outside the emulated fabric)",
		    lost);
	if (box > 0)
		add(reasons,
		    "%.0f frames dropped by the dataplane outside its model (no mbuf for a "
		    "copy, a full pipeline ring, a link out of slots)",
		    box);
	if (num(run, "unexplained") > 0) {
		char rest[128] = "";

		if (num(run, "edge_in_flight") > 0)
			snprintf(rest, sizeof(rest),
				 "; the dataplane's edge still had %.0f in flight after %.0f reads",
				 num(run, "edge_in_flight"), num(run, "window_reads"));
		add(reasons,
		    "%.0f frames unexplained (neither read, nor sent, nor lost where a counter "
		    "sees it%s)",
		    num(run, "unexplained"), rest);
	}
	if (g->kind == CG_DATAPLANE) {
		delays(c, g, run, reasons, notes);
		boxes_cpu(c, run, reasons);
		load(c, g, capacity, reasons, notes);
	}
	cg_verdict_text(reasons, notes, v, sizeof(v));
	json_object_set_new(run, "verdict", json_string(v));
	json_object_set_new(run, "reasons", reasons);
	json_object_set_new(run, "not_checked", notes);
}

void
cg_verdict_partial(const char *partial, const char *verdict, char *v, size_t len)
{
	if (verdict && verdict[0])
		snprintf(v, len, "partial: %s; %s", partial, verdict);
	else
		snprintf(v, len, "partial: %s", partial);
}
