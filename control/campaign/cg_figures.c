/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A run's figures, from what it recorded: the dataplane's counters document (its fields:
 * docs/counters.md) and the hosts' own counters. Every key read here is one the
 * dataplane writes (tests/e2e/counters.sh checks the pair against each other).
 */
#include <stdlib.h>
#include <string.h>

#include "cg.h"
#include "fe_lateness.h"
#include "fe_qhist.h"

json_int_t
cg_lane_sum(json_t *counters, const char *key)
{
	json_t *lane;
	json_int_t s = 0;
	size_t i;

	json_t *l;

	json_array_foreach(json_object_get(counters, "lane_counters"), i, lane) s +=
		json_integer_value(json_object_get(lane, key));
	/* several switches: each link between them is an input of its far switch too */
	json_array_foreach(json_object_get(json_object_get(counters, "graph"), "fabric_links"), i,
			   l)
	{
		size_t k;

		json_array_foreach(json_object_get(l, "lanes"), k, lane) s +=
			json_integer_value(json_object_get(lane, key));
	}
	return s;
}

static json_int_t
geti(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static json_t *
hist_array(const uint64_t *h)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < FE_QHIST_BUCKETS; i++)
		json_array_append_new(a, json_integer((json_int_t)h[i]));
	return a;
}

uint64_t
cg_qhist_add(uint64_t *sum, json_t *h)
{
	uint64_t n = 0;

	for (size_t i = 0; i < json_array_size(h) && i < FE_QHIST_BUCKETS; i++) {
		uint64_t v = (uint64_t)json_integer_value(json_array_get(h, i));

		sum[i] += v;
		n += v;
	}
	return n;
}

/* Nearest-rank quantiles of a merged histogram (bucket bounds: fe_qhist.h). */
static json_t *
qhist_figures(const uint64_t *h, uint64_t frames)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:o}", "frames", (json_int_t)frames, "p50_ns",
			 (json_int_t)fe_qhist_quantile(h, 0.5), "p99_ns",
			 (json_int_t)fe_qhist_quantile(h, 0.99), "max_ns",
			 (json_int_t)fe_qhist_quantile(h, 1.0), "hist_ns", hist_array(h));
}

/* A value of o, or null when o has none (a percentile of nothing). */
static json_t *
maybe(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return v ? json_incref(v) : json_null();
}

/* A link's drops of every cause but `wire` (the box's) and `trim` (not lost: the header
 * goes on, its receiver NAKs it, its sender sends it again). */
static json_int_t
link_drops(json_t *l)
{
	json_int_t drops = 0;
	const char *k;
	json_t *v;

	json_object_foreach(l, k, v) if (!strncmp(k, "drop_", 5) && strstr(k, "_pkts") &&
					 strcmp(k, "drop_wire_pkts") && strcmp(k, "drop_trim_pkts"))
		drops += json_integer_value(v);
	return drops;
}

/* Every link of a counters document: the hosts' links, then (several switches) the links
 * between switches. */
static json_t *
all_links(json_t *counters)
{
	json_t *all = json_array();

	json_array_extend(all, json_object_get(counters, "links"));
	json_array_extend(all, json_object_get(json_object_get(counters, "graph"), "fabric_links"));
	return all;
}

json_int_t
cg_fabric_drops(json_t *counters)
{
	json_t *all = all_links(counters), *l;
	json_int_t drops = 0;
	size_t i;

	json_array_foreach(all, i, l) drops += link_drops(l);
	json_decref(all);
	return drops;
}

/*
 * Per link: drops of every cause but `wire` (the fabric's), marks, peak, time held,
 * lateness. A `wire` drop (more frames in flight than the link has slots) is the
 * dataplane's own limit, not the fabric's: it goes to *box.
 */
static json_t *
link_figures(json_t *counters, json_int_t *box)
{
	json_t *out = json_array(), *l, *all = all_links(counters);
	size_t i;

	json_array_foreach(all, i, l)
	{
		json_int_t drops = link_drops(l);

		*box += geti(l, "drop_wire_pkts");
		json_array_append_new(
			out,
			json_pack("{s:O, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "link",
				  json_object_get(l, "link"), "drops", drops, "trims",
				  geti(l, "drop_trim_pkts"), "ecn_marked", geti(l, "ecn_marked"),
				  "q_bytes_peak", geti(l, "q_bytes_peak"), "held_ns",
				  geti(l, "held_ns"), "drop_tail_pkts", geti(l, "drop_tail_pkts"),
				  "drop_wire_pkts", geti(l, "drop_wire_pkts"), "late_p99_ns",
				  maybe(l, "late_p99_ns")));
	}
	json_decref(all);
	return out;
}

/*
 * The run's lateness: every link's histogram merged, and the worst link's p99 among
 * those that carried enough frames for a p99 to mean something (100; with fewer, one late frame
 * would be its p99). Merged over links, the pass-through up links (never late) would hide a bad
 * one; with no link carrying enough, the merged p99 stands for it.
 */
static json_t *
lateness(json_t *counters)
{
	uint64_t merged[FE_QHIST_BUCKETS] = {0}, frames = 0;
	json_int_t worst = -1;
	const char *name = NULL;
	json_t *l, *late, *all = json_array();
	size_t i;

	/* the hosts' links, and (split across boxes) the links that leave for another box:
	 * how late each box let its frames go */
	json_array_extend(all, json_object_get(counters, "links"));
	json_array_extend(all, json_object_get(json_object_get(counters, "graph"), "fabric_links"));
	json_array_foreach(all, i, l)
	{
		uint64_t h[FE_QHIST_BUCKETS] = {0},
			 n = cg_qhist_add(h, json_object_get(l, "late_hist_ns"));
		json_int_t p99 = (json_int_t)fe_qhist_quantile(h, 0.99);

		for (unsigned k = 0; k < FE_QHIST_BUCKETS; k++)
			merged[k] += h[k];
		frames += n;
		if (n >= 100 && p99 > worst) {
			worst = p99;
			name = json_string_value(json_object_get(l, "link"));
		}
	}
	json_decref(all);
	late = qhist_figures(merged, frames);
	if (name == NULL) {
		json_object_set(late, "worst_p99_ns", json_object_get(late, "p99_ns"));
	} else {
		json_object_set_new(late, "worst_p99_ns", json_integer(worst));
		json_object_set_new(late, "worst_link", json_string(name));
	}
	return late;
}

/*
 * Every frame of port p accounted for, from both ends of its veth: what host p + 1 sent
 * was read by the dataplane or lost at the edge; what the dataplane sent reached the
 * host or was dropped on the way. What is neither is unexplained.
 *
 * A veth counts a frame it could not pass on at both ends (the sender's tx_dropped and
 * the receiver's rx_dropped), so each loss is taken once, where it happened. In: what
 * the host could not send (its tx_dropped), and what the socket did not take (AF_PACKET:
 * its ring; AF_XDP: the redirect, which veth counts after the frame was received). Out:
 * what the dataplane's side could not send (its tx_dropped) or the PMD refused. A port
 * without a kernel interface (a PCI NIC) loses what its PMD counts (imissed, ...).
 */
static json_t *
port_line(json_t *port, json_t *host, unsigned p, json_int_t *lost, json_int_t *unexpl)
{
	json_t *k = json_object_get(port, "kernel"), *w = json_object_get(port, "edge_wait");
	int xdp = strcmp(json_string_value(json_object_get(k, "kind")) ?: "", "af_xdp") == 0;
	json_int_t host_tx = geti(host, "tx_packets"), host_tx_dropped = geti(host, "tx_dropped");
	json_int_t host_rx = geti(host, "rx_packets"), host_rx_dropped = geti(host, "rx_dropped");
	json_int_t rx = geti(port, "rx_pkts"), tx = geti(port, "tx_pkts");
	/* and what the PMD counts, the box's NIC on a port without a kernel interface, as
	 * the dataplane sums it (fe_report_nic_lost_rx(), _tx()): its ring full (imissed),
	 * no mbuf (rx_nombuf), bad frames (ierrors), or its own drop counters where they
	 * say more; on transmit oerrors, or its own */
	json_int_t in_lost = host_tx_dropped + geti(port, "nic_lost_rx") +
			     (xdp ? geti(k, "if_rx_dropped") : geti(k, "socket_drops"));
	json_int_t tx_lost = geti(k, "if_tx_dropped") + geti(port, "nic_lost_tx");
	json_int_t in_unexpl = host_tx + host_tx_dropped - rx - in_lost;
	json_int_t out_unexpl = tx - host_rx - tx_lost;

	/* a frame the kernel cut to fit its ring is as good as lost (its checksum fails) */
	*lost += in_lost + tx_lost + geti(k, "truncated");
	*unexpl += llabs(in_unexpl) + llabs(out_unexpl);
	return json_pack("{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:O}",
			 "port", p, "host", p + 1, "host_tx", host_tx, "host_tx_dropped",
			 host_tx_dropped, "rx_pkts", rx, "rx_lost", in_lost, "in_unexplained",
			 in_unexpl, "tx_pkts", tx, "host_rx", host_rx, "host_rx_dropped",
			 host_rx_dropped, "tx_lost", tx_lost, "out_unexplained", out_unexpl,
			 "edge_wait_p99_ns",
			 json_object_get(w, "p99_ns") ? json_object_get(w, "p99_ns") : json_null());
}

/*
 * The wire (or a dataplane run without counters): what either end of every veth could not
 * send on (a veth counts each such frame again as the other end's rx_dropped: taken
 * once, by the senders' tx_dropped).
 */
static void
wire_figures(json_t *run)
{
	json_int_t lost = 0;
	json_t *h;
	size_t i;

	json_array_foreach(json_object_get(run, "hosts"), i, h) lost +=
		geti(h, "tx_dropped") + geti(h, "peer_tx_dropped");
	json_object_set_new(run, "links", json_array());
	json_object_set_new(run, "ports", json_array());
	json_object_set_new(run, "edge_lost", json_integer(lost));
	json_object_set_new(run, "box_dropped", json_null());
	json_object_set_new(run, "nic", json_null());
	json_object_set_new(run, "unexplained", json_null());
	json_object_set_new(run, "lateness", json_null());
	json_object_set_new(run, "edge_wait", json_null());
	json_object_set_new(run, "edge_wait_untimed", json_null());
}

/* Dropped by the dataplane outside its model: a flood copy with no mbuf, a full pipeline
 * ring (the links' slots are counted in link_figures) */
static json_int_t
switch_box(json_t *counters)
{
	json_t *sw = json_object_get(counters, "switch");

	return geti(sw, "nombuf") + geti(sw, "handoff_full");
}

json_int_t
cg_edge_in_flight(json_t *counters)
{
	json_int_t n = 0;
	json_t *p, *k;
	size_t i;

	json_array_foreach(json_object_get(counters, "ports"), i, p)
	{
		json_int_t rx, tx;

		k = json_object_get(p, "kernel");
		rx = geti(k, "rx_unexplained");
		tx = geti(k, "tx_unexplained");
		/* in flight: +1 while it lasts; a frame caught across the reset leaves a -1
		 * for good (docs/counters.md), which no wait settles */
		n += (rx > 0 ? rx : 0) + (tx > 0 ? tx : 0);
	}
	return n;
}

/*
 * A port with no receive time (a PCI NIC, AF_XDP): its frames wait in its ring for the
 * loop to come back to it. From the loop's passes over the window (counters.idle), how
 * long a frame arriving at a random instant waits (fe_lateness.h): not the ring's backlog
 * behind other frames, so at least that. null: every port timed, no pass recorded, or a
 * loop that slept (the histogram leaves out a sleep and the pass after it: the passes are
 * then not the loop's whole time).
 */
static void
loop_wait(json_t *run, json_t *counters, int untimed)
{
	json_t *idle = json_object_get(counters, "idle");
	uint64_t h[FE_QHIST_BUCKETS] = {0};

	if (!untimed || geti(idle, "sleeps") > 0 ||
	    cg_qhist_add(h, json_object_get(idle, "pass_hist_ns")) == 0) {
		json_object_set_new(run, "edge_wait_loop", json_null());
		return;
	}
	/* fe_qhist_wait_quantile(h, q): the wait exceeded with probability q */
	json_object_set_new(run, "edge_wait_loop",
			    json_pack("{s:I, s:I, s:I}", "p50_ns",
				      (json_int_t)fe_qhist_wait_quantile(h, 0.5), "p99_ns",
				      (json_int_t)fe_qhist_wait_quantile(h, 0.01), "max_ns",
				      (json_int_t)fe_qhist_quantile(h, 1.0)));
}

/* Ports whose waits were measured (or were, until a mismatch stopped it), merged. */
static void
edge_waits(json_t *run, json_t *counters)
{
	uint64_t wait[FE_QHIST_BUCKETS] = {0}, n = 0;
	char untimed[256] = "";
	unsigned timed = 0;
	json_t *p, *w;
	size_t i;

	json_array_foreach(json_object_get(counters, "ports"), i, p)
	{
		w = json_object_get(p, "edge_wait");
		if (strcmp(json_string_value(json_object_get(w, "source")) ?: "", "kernel") == 0) {
			n += cg_qhist_add(wait, json_object_get(w, "hist_ns"));
			timed++;
		}
		/* say which ports were not timed, and why (the first reason) */
		if (!json_is_true(json_object_get(w, "timed")) && untimed[0] == '\0')
			snprintf(untimed, sizeof(untimed), "port %zu: %s", i,
				 json_string_value(json_object_get(w, "why")) ?: "not timed");
	}
	if (timed) {
		w = qhist_figures(wait, n);
		json_object_set_new(w, "ports_timed", json_integer(timed));
		json_object_set_new(run, "edge_wait", w);
	} else {
		json_object_set_new(run, "edge_wait", json_null());
	}
	json_object_set_new(run, "edge_wait_untimed",
			    untimed[0] ? json_string(untimed) : json_null());
	loop_wait(run, counters, untimed[0] != '\0');
}

/*
 * The emulated NICs (docs/nic.md), summed over the ports: CE they consumed, CNPs, the
 * lowest rate DCQCN set, frames sent again, NAKs, their timeouts, frames discarded or
 * held out of sequence. model tcp has none of these: all 0.
 */
static json_t *
nic_figures(json_t *counters, const struct cg_regime *g)
{
	static const char *const sums[] = {
		"nic_ce_consumed", "nic_cnp_sent",  "nic_cnp_recv",	"nic_resent_pkts",
		"nic_naks_sent",   "nic_timeouts",  "nic_oos_discards", "nic_dup_discards",
		"nic_held_pkts",   "nic_acks_sent", "nic_stray",	"nic_trim_naks_sent",
		"nic_probes_sent",
	};
	json_t *out = json_pack("{s:s, s:s, s:s}", "model", fe_nic_model_name(g->fabric.nic.model),
				"recovery", fe_nic_recovery_name(fe_nic_recovery(&g->fabric.nic)),
				"cc", fe_nic_cc_name(fe_nic_cc(&g->fabric.nic)));
	json_int_t rate_min = 0;
	json_t *p;
	size_t i;

	for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++) {
		json_int_t v = 0;

		json_array_foreach(json_object_get(counters, "ports"), i, p) v += geti(p, sums[k]);
		json_object_set_new(out, sums[k] + 4, json_integer(v));
	}
	json_array_foreach(json_object_get(counters, "ports"), i, p)
	{
		json_int_t r = geti(p, "nic_rate_min_bps");

		if (r > 0 && (rate_min == 0 || r < rate_min))
			rate_min = r;
	}
	json_object_set_new(out, "rate_min_bps", rate_min ? json_integer(rate_min) : json_null());
	return out;
}

void
cg_figures(const struct cg_campaign *c, const struct cg_regime *g, json_t *run)
{
	json_t *counters = json_object_get(run, "counters"), *ports = json_array(), *p;
	json_int_t lost = 0, unexpl = 0, box = 0;
	size_t i;

	json_object_set_new(run, "pause_frames",
			    json_integer(cg_lane_sum(counters, "pause_frames")));
	json_object_set_new(run, "paused_ns", json_integer(cg_lane_sum(counters, "paused_ns")));
	json_object_set_new(run, "credit_stall_ns",
			    json_integer(cg_lane_sum(counters, "stall_ns")));
	json_object_set_new(run, "hop_ns", json_integer((json_int_t)g->hop_ns));
	json_object_set_new(run, "offered_bps",
			    g->offered_bps ? json_integer((json_int_t)g->offered_bps)
					   : json_null());
	if (g->kind == CG_WIRE || !json_is_object(counters)) {
		wire_figures(run);
		json_decref(ports);
		return;
	}
	json_object_set_new(run, "links", link_figures(counters, &box));
	json_array_foreach(json_object_get(counters, "ports"), i, p) if (i < c->hosts)
		json_array_append_new(ports,
				      port_line(p, json_array_get(json_object_get(run, "hosts"), i),
						(unsigned)i, &lost, &unexpl));
	json_object_set_new(run, "ports", ports);
	json_object_set_new(run, "nic", nic_figures(counters, g));
	json_object_set_new(run, "edge_lost", json_integer(lost));
	json_object_set_new(run, "box_dropped", json_integer(box + switch_box(counters)));
	json_object_set_new(run, "unexplained", json_integer(unexpl));
	json_object_set_new(run, "lateness", lateness(counters));
	edge_waits(run, counters);
	/* what took the lcore's core away: the scheduler, the hypervisor, interrupts */
	if (json_is_object(json_object_get(counters, "lcores")))
		json_object_set(run, "lcores", json_object_get(counters, "lcores"));
	/* split: the CPU the other boxes' lcores ran, on the hosts' cores (cg_dataplane.c) */
	if (json_is_array(json_object_get(counters, "boxes"))) {
		json_int_t ran = 0;

		json_array_foreach(json_object_get(counters, "boxes"), i, p) ran +=
			geti(json_object_get(p, "lcores"), "run_ns");
		json_object_set_new(run, "boxes_run_ns", json_integer(ran));
		json_object_set(run, "window_ns", json_object_get(counters, "window_ns"));
	}
}
