/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every counter as Prometheus text (exposition format 0.0.4): one family a counter
 * name, one sample a port, link or lane, labelled. The same counter tables drive the
 * table, the JSON and telemetry (fe_report.h), so the names agree everywhere.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fe_ctl.h"
#include "fe_graph.h"
#include "fe_report.h"

/* Occupancy now and peaks go up and down (or restart at a reset): gauges. */
static int
is_gauge(const char *name)
{
	return strcmp(name, "q_pkts") == 0 || strcmp(name, "q_bytes") == 0 ||
	       strcmp(name, "wire_pkts") == 0 || strstr(name, "peak") != NULL ||
	       strcmp(name, "held_bytes") == 0 || strcmp(name, "credits") == 0 ||
	       strcmp(name, "credits_min") == 0 || strcmp(name, "credits_unsent") == 0 ||
	       strcmp(name, "iq_depth") == 0 || strcmp(name, "nic_cwnd_bytes") == 0 ||
	       strcmp(name, "nic_cwnd_min_bytes") == 0 || strcmp(name, "nic_rate_bps") == 0 ||
	       strcmp(name, "nic_rate_min_bps") == 0 || strcmp(name, "nic_copies") == 0 ||
	       strstr(name, "permille") != NULL;
}

static void
family(FILE *f, const char *obj, const char *name, const char *help)
{
	fprintf(f, "# HELP fabemu_%s_%s %s\n# TYPE fabemu_%s_%s %s\n", obj, name, help, obj, name,
		is_gauge(name) ? "gauge" : "counter");
}

enum graph_link_figure { GL_FAILOVERS, GL_BEHIND, GL_STORMS, GL_WD_FORWARDED };

/* A family of one figure of every link between switches, labelled by link. */
static void
graph_links(FILE *f, const struct fe_dp *dp, const char *name, const char *help,
	    enum graph_link_figure what)
{
	fprintf(f, "# HELP fabemu_graph_%s %s\n# TYPE fabemu_graph_%s counter\n", name, help, name);
	for (unsigned i = 0; i < dp->graph->nhl; i++) {
		const struct fe_hoplink *h = &dp->graph->hl[i];
		const fe_counter_t *c = what == GL_FAILOVERS ? &h->failovers
					: what == GL_BEHIND  ? &h->behind
					: what == GL_STORMS  ? &h->storms
							     : &h->wd_forwarded;

		fprintf(f, "fabemu_graph_%s{link=\"%s\"} %" PRIu64 "\n", name, h->name,
			FE_CNT_GET(*c));
	}
}

static void
ports(FILE *f, const struct fe_dp *dp)
{
	static const char *const eth[] = {"imissed",   "ierrors",   "oerrors",
					  "rx_nombuf", "xdrops_rx", "xdrops_tx"};

	for (const struct fe_counter_desc *d = fe_report_counters(FE_OBJ_PORT); d->name; d++) {
		family(f, "port", d->name, "fabemu port counter (docs/control.md)");
		for (unsigned i = 0; i < dp->nports; i++)
			fprintf(f, "fabemu_port_%s{port=\"%u\",device=\"%s\"} %" PRIu64 "\n",
				d->name, i, dp->ports[i].name, fe_report_get(&dp->ports[i].st, d));
	}
	for (unsigned k = 0; k < RTE_DIM(eth); k++) {
		family(f, "port", eth[k], "counted by the PMD (edge drops and errors)");
		for (unsigned i = 0; i < dp->nports; i++) {
			struct fe_eth_counters e;
			fe_report_eth(dp->ports[i].port_id, &e);
			fprintf(f, "fabemu_port_%s{port=\"%u\",device=\"%s\"} %" PRIu64 "\n",
				eth[k], i, dp->ports[i].name,
				k == 0	 ? e.imissed
				: k == 1 ? e.ierrors
				: k == 2 ? e.oerrors
				: k == 3 ? e.rx_nombuf
				: k == 4 ? e.xdrops_rx
					 : e.xdrops_tx);
		}
	}
}

/* The kernel side of each port, and how long frames waited there (fe_report_edge). */
static void
edges(FILE *f, const struct fe_dp *dp)
{
	static const struct {
		const char *name, *help;
	} fam[] = {
		{"if_rx_packets", "frames the port's interface received (the hosts sent)"},
		{"if_rx_dropped", "frames the port's interface dropped on receive"},
		{"if_tx_packets", "frames the port's interface sent (toward the host)"},
		{"if_tx_dropped", "frames the port's interface dropped on transmit"},
		{"rx_lost", "frames lost at the edge before the dataplane read them"},
		{"rx_unexplained", "what reached the interface - rx_pkts - rx_lost: 0 at rest"},
		{"tx_unexplained", "tx_pkts - if_tx_packets - if_tx_dropped - oerrors"},
		{"edge_wait_p50_ns",
		 "median ns a frame waited in the kernel's ring (quarter-octave)"},
		{"edge_wait_p99_ns", "p99 ns a frame waited in the kernel's ring (quarter-octave)"},
		{"edge_wait_max_ns", "longest wait in the kernel's ring (quarter-octave)"},
	};
	struct fe_report_edge *e = calloc(dp->nports, sizeof(*e));

	if (e == NULL)
		return;
	for (unsigned i = 0; i < dp->nports; i++)
		fe_report_edge(dp, i, &e[i]);
	for (unsigned k = 0; k < RTE_DIM(fam); k++) {
		fprintf(f, "# HELP fabemu_port_%s %s\n# TYPE fabemu_port_%s %s\n", fam[k].name,
			fam[k].help, fam[k].name, k < 5 ? "counter" : "gauge");
		for (unsigned i = 0; i < dp->nports; i++) {
			int64_t v[] = {(int64_t)e[i].k.if_rx_packets, (int64_t)e[i].k.if_rx_dropped,
				       (int64_t)e[i].k.if_tx_packets, (int64_t)e[i].k.if_tx_dropped,
				       (int64_t)e[i].k.rx_lost,	      e[i].rx_unexplained,
				       e[i].tx_unexplained,	      (int64_t)e[i].wait.p50,
				       (int64_t)e[i].wait.p99,	      (int64_t)e[i].wait.max};

			if ((k < 7 && e[i].k.kind == FE_KPORT_NONE) || (k >= 7 && e[i].wait.n == 0))
				continue; /* no such figure for this port */
			fprintf(f, "fabemu_port_%s{port=\"%u\",device=\"%s\"} %" PRId64 "\n",
				fam[k].name, i, dp->ports[i].name, v[k]);
		}
	}
	free(e);
}

static void
links(FILE *f, const struct fe_dp *dp)
{
	const struct fe_link_params *lp;
	char name[32];

	for (const struct fe_counter_desc *d = fe_report_counters(FE_OBJ_LINK); d->name; d++) {
		family(f, "link", d->name, "fabemu link counter (docs/control.md)");
		for (unsigned n = 0; n < fe_dp_port_links(dp); n++) {
			const struct fe_link *l = fe_report_link(dp, n, &lp, name, sizeof(name));

			fprintf(f, "fabemu_link_%s{link=\"%s\"} %" PRIu64 "\n", d->name, name,
				fe_report_get(&l->st, d));
		}
		/* several switches: the links between them, each direction ("leaf1>spine2") */
		for (unsigned i = 0; dp->graph && i < dp->graph->nhl; i++)
			fprintf(f, "fabemu_link_%s{link=\"%s\"} %" PRIu64 "\n", d->name,
				dp->graph->hl[i].name,
				fe_report_get(&dp->graph->hl[i].row.l.st, d));
	}
	for (unsigned k = 0; k < 3; k++) {
		static const char *const nm[] = {"late_p50_ns", "late_p99_ns", "late_max_ns"};

		fprintf(f,
			"# HELP fabemu_link_%s ns a frame left the link after the model's tick "
			"(quarter-octave bound)\n# TYPE fabemu_link_%s gauge\n",
			nm[k], nm[k]);
		for (unsigned n = 0; n < fe_dp_port_links(dp); n++) {
			const struct fe_link *l = fe_report_link(dp, n, &lp, name, sizeof(name));
			struct fe_report_q3 q;

			fe_report_qhist_q3(l->st.late_hist, &q);
			if (q.n == 0)
				continue; /* no frame yet: no percentile */
			fprintf(f, "fabemu_link_%s{link=\"%s\"} %" PRIu64 "\n", nm[k], name,
				k == 0	 ? q.p50
				: k == 1 ? q.p99
					 : q.max);
		}
	}
	family(f, "link", "filter_hits", "packets that matched the link's match filter");
	for (unsigned n = 0; n < fe_dp_port_links(dp); n++) {
		fe_report_link(dp, n, &lp, name, sizeof(name));
		fprintf(f, "fabemu_link_filter_hits{link=\"%s\"} %" PRIu64 "\n", name,
			FE_CNT_GET(fe_report_linkx(dp, n)->filter_hits));
	}
}

static void
singles(FILE *f, const char *obj, const void *stats, const struct fe_counter_desc *d)
{
	for (; d->name; d++) {
		family(f, obj, d->name, "fabemu counter (docs/control.md)");
		fprintf(f, "fabemu_%s_%s %" PRIu64 "\n", obj, d->name, fe_report_get(stats, d));
	}
}

static void
lanes(FILE *f, const struct fe_dp *dp)
{
	const struct fe_counter_desc *names = fe_report_lane_counters(dp);

	for (const struct fe_counter_desc *d = names; d && d->name; d++) {
		family(f, "lane", d->name, "per port and lane, lossless regimes");
		for (unsigned i = 0; i < dp->nports; i++)
			for (unsigned l = 0; l < dp->conf.lanes; l++) {
				struct fe_lane_counters c;

				fe_report_lane(dp, i, l, &c);
				fprintf(f, "fabemu_lane_%s{port=\"%u\",lane=\"%u\"} %" PRIu64 "\n",
					d->name, i, l, fe_report_get(&c, d));
			}
		/* several switches: each link between them is an input of its far switch */
		for (unsigned i = 0; dp->graph && i < dp->graph->nhl; i++)
			for (unsigned l = 0; l < dp->conf.lanes; l++) {
				struct fe_lane_counters c;

				fe_report_lane(dp, dp->nports + i, l, &c);
				fprintf(f, "fabemu_lane_%s{link=\"%s\",lane=\"%u\"} %" PRIu64 "\n",
					d->name, dp->graph->hl[i].name, l, fe_report_get(&c, d));
			}
	}
	if (dp->topology && names != NULL) {
		fprintf(f,
			"# HELP fabemu_graph_deadlocks_total cycles of links between switches "
			"held past the deadlock time\n# TYPE fabemu_graph_deadlocks_total "
			"counter\nfabemu_graph_deadlocks_total %" PRIu64 "\n",
			__atomic_load_n(&dp->graph->nev, __ATOMIC_ACQUIRE));
	}
	if (dp->topology && dp->conf.regime == FE_REGIME_PFC) { /* the PFC watchdog's alone */
		graph_links(f, dp, "watchdog_storms_total",
			    "times the PFC watchdog stormed the link", GL_STORMS);
		graph_links(f, dp, "watchdog_forwarded_total",
			    "frames the PFC watchdog sent through the pauses", GL_WD_FORWARDED);
	}
	if (!dp->topology)
		return;
	/* the rest of the document's graph (docs/counters.md), as it has them */
	graph_links(f, dp, "failovers_total", "times the routes went round the link, or back",
		    GL_FAILOVERS);
	if (dp->conf.regime == FE_REGIME_LOSSY)
		graph_links(
			f, dp, "behind_pkts_total",
			"frames offered to the link behind a later one (the engine's order error)",
			GL_BEHIND);
	fprintf(f, "# HELP fabemu_graph_out_of_order_total frames that reached the port after "
		   "a later one of their flow\n# TYPE fabemu_graph_out_of_order_total counter\n");
	for (unsigned p = 0; p < dp->nports; p++)
		fprintf(f, "fabemu_graph_out_of_order_total{port=\"%u\"} %" PRIu64 "\n", p,
			FE_CNT_GET(dp->graph->ooo[p]));
	fprintf(f,
		"# HELP fabemu_graph_flowlets_total new flowlets (path: flowlet)\n# TYPE "
		"fabemu_graph_flowlets_total counter\nfabemu_graph_flowlets_total %" PRIu64 "\n",
		FE_CNT_GET(dp->graph->flowlets));
	if (dp->conf.regime == FE_REGIME_CREDIT)
		fprintf(f,
			"# HELP fabemu_graph_vl_stalls_total outputs stalled past the "
			"head-of-queue "
			"lifetime\n# TYPE fabemu_graph_vl_stalls_total counter\n"
			"fabemu_graph_vl_stalls_total %" PRIu64 "\n",
			FE_CNT_GET(dp->graph->stalls));
}

/* What the scheduler did to the loop's threads and their cores (fe_sched.h). */
static void
lcores(FILE *f)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} m[] = {
		{"preempted_total", "times another task took an lcore's core",
		 offsetof(struct fe_sched, preempted)},
		{"yielded_total", "times an lcore gave its core up (idle sleep)",
		 offsetof(struct fe_sched, yielded)},
		{"runq_wait_ns_total", "ns the lcores were runnable, waiting for their core",
		 offsetof(struct fe_sched, runq_wait_ns)},
		{"run_ns_total", "ns the lcores ran on their cores",
		 offsetof(struct fe_sched, run_ns)},
		{"cpu_steal_ns_total", "ns the lcores' cores were taken by the hypervisor",
		 offsetof(struct fe_sched, cpu_steal_ns)},
		{"cpu_irq_ns_total", "ns the lcores' cores spent in hard interrupts",
		 offsetof(struct fe_sched, cpu_irq_ns)},
		{"cpu_softirq_ns_total", "ns the lcores' cores spent in softirqs",
		 offsetof(struct fe_sched, cpu_softirq_ns)},
	};
	struct fe_sched sc;

	fe_kernel_read_sched(fe_report_kernel(), &sc);
	if (sc.threads == 0)
		return;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		fprintf(f,
			"# HELP fabemu_lcore_%s %s\n# TYPE fabemu_lcore_%s counter\n"
			"fabemu_lcore_%s %" PRIu64 "\n",
			m[i].name, m[i].help, m[i].name, m[i].name,
			*(const uint64_t *)((const char *)&sc + m[i].off));
}

void
fe_prom_write(FILE *f, const struct fe_dp *dp)
{
	ports(f, dp);
	edges(f, dp);
	links(f, dp);
	singles(f, "switch", &dp->sw, fe_report_counters(FE_OBJ_SW));
	singles(f, "idle", &dp->idle, fe_report_counters(FE_OBJ_IDLE));
	lcores(f);
	fprintf(f,
		"# HELP fabemu_switch_mac_learned MAC addresses learned\n"
		"# TYPE fabemu_switch_mac_learned counter\nfabemu_switch_mac_learned %" PRIu64 "\n",
		FE_CNT_GET(dp->mac->learned));
	lanes(f, dp);
}
