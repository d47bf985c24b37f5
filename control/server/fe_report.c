/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "fe_graph.h"
#include "fe_kernel.h"
#include "fe_nicport.h"
#include "fe_qhist.h"
#include "fe_quantile.h"
#include "fe_ctlif.h"
#include "fe_report.h"
#include "fe_time.h"
#include "fe_units.h"

#define C(type, field)                                                                             \
	{                                                                                          \
#field, offsetof(struct type, field)                                               \
	}

static void graph_table(FILE *f, const struct fe_dp *dp);
static void ecmp_table(FILE *f, const struct fe_graph *g);

/* clang-format off */
static const struct fe_counter_desc port_counters[] = {
	C(fe_port_stats, rx_pkts),
	C(fe_port_stats, rx_bytes),
	C(fe_port_stats, tx_pkts),
	C(fe_port_stats, tx_bytes),
	C(fe_port_stats, tx_busy),
	C(fe_port_stats, tx_stopped),
	C(fe_port_stats, rx_held),
	C(fe_port_stats, edge_xoff),
	C(fe_port_stats, pfc_frames_out),
	C(fe_port_stats, pfc_frames_lost),
	C(fe_port_stats, pfc_wd_storms),
	C(fe_port_stats, host_pfc_xoff),
	C(fe_port_stats, host_pfc_xon),
	C(fe_port_stats, pfc_wd_forwarded),
	C(fe_port_stats, nic_flows),
	C(fe_port_stats, nic_passed),
	C(fe_port_stats, nic_cnp_sent),
	C(fe_port_stats, nic_cnp_recv),
	C(fe_port_stats, nic_ce_consumed),
	C(fe_port_stats, nic_rate_bps),
	C(fe_port_stats, nic_rate_min_bps),
	C(fe_port_stats, nic_resent_pkts),
	C(fe_port_stats, nic_resent_bytes),
	C(fe_port_stats, nic_naks_sent),
	C(fe_port_stats, nic_naks_recv),
	C(fe_port_stats, nic_trims_recv),
	C(fe_port_stats, nic_trim_naks_sent),
	C(fe_port_stats, nic_trim_naks_recv),
	C(fe_port_stats, nic_trim_naks_last_hop),
	C(fe_port_stats, nic_reps_freezes),
	C(fe_port_stats, nic_stopped_trims),
	C(fe_port_stats, nic_cwnd_bytes),
	C(fe_port_stats, nic_cwnd_min_bytes),
	C(fe_port_stats, nic_credit_sent),
	C(fe_port_stats, nic_credit_recv),
	C(fe_port_stats, nic_credit_bytes),
	C(fe_port_stats, nic_pull_updates),
	C(fe_port_stats, nic_pull_cuts),
	C(fe_port_stats, nic_pull_permille),
	C(fe_port_stats, nic_pull_min_permille),
	C(fe_port_stats, nic_credit_blocked),
	C(fe_port_stats, nic_pcie_trims),
	C(fe_port_stats, nic_pcie_peak),
	C(fe_port_stats, nic_pcie_min_permille),
	C(fe_port_stats, nic_acks_sent),
	C(fe_port_stats, nic_acks_recv),
	C(fe_port_stats, nic_timeouts),
	C(fe_port_stats, nic_oos_discards),
	C(fe_port_stats, nic_dup_discards),
	C(fe_port_stats, nic_held_pkts),
	C(fe_port_stats, nic_stray),
	C(fe_port_stats, nic_stopped_send),
	C(fe_port_stats, nic_stopped_recv),
	C(fe_port_stats, nic_window_full),
	C(fe_port_stats, nic_copies),
	C(fe_port_stats, nic_copies_peak),
	C(fe_port_stats, nic_edge_drops),
	C(fe_port_stats, nic_abandoned),
	C(fe_port_stats, nic_reorder_naks),
	C(fe_port_stats, nic_probes_sent),
	C(fe_port_stats, nic_probes_recv),
	C(fe_port_stats, nic_probe_recoveries),
	C(fe_port_stats, nic_probes_cut),
	C(fe_port_stats, roce_pkts),
	C(fe_port_stats, roce_qps),
	C(fe_port_stats, roce_gaps),
	C(fe_port_stats, roce_missing),
	C(fe_port_stats, roce_resent),
	C(fe_port_stats, roce_rewinds),
	C(fe_port_stats, roce_naks),
	C(fe_port_stats, roce_rnr_naks),
	C(fe_port_stats, roce_cnps),
	C(fe_port_stats, roce_untracked),
	{NULL, 0},
};
/* clang-format on */

#define DROP(cause, name)                                                                          \
	{"drop_" name "_pkts", offsetof(struct fe_link_stats, drop_pkts[cause])},                  \
	{                                                                                          \
		"drop_" name "_bytes", offsetof(struct fe_link_stats, drop_bytes[cause])           \
	}

_Static_assert(FE_LINK_DROP__MAX == 13, "list every drop cause in link_counters");

static const struct fe_counter_desc link_counters[] = {
	C(fe_link_stats, in_pkts),
	C(fe_link_stats, in_bytes),
	C(fe_link_stats, out_pkts),
	C(fe_link_stats, out_bytes),
	DROP(FE_LINK_DROP_TAIL, "tail"),
	DROP(FE_LINK_DROP_WIRE, "wire"),
	DROP(FE_LINK_DROP_POOL, "pool"),
	DROP(FE_LINK_DROP_RANDOM, "random"),
	DROP(FE_LINK_DROP_BURST, "burst"),
	DROP(FE_LINK_DROP_EXACT, "exact"),
	DROP(FE_LINK_DROP_AQM, "aqm"),
	DROP(FE_LINK_DROP_HEADROOM, "headroom"),
	DROP(FE_LINK_DROP_HOQ, "hoq"),
	DROP(FE_LINK_DROP_WATCHDOG, "watchdog"),
	DROP(FE_LINK_DROP_LLR, "llr"),
	DROP(FE_LINK_DROP_TRIM, "trim"),
	DROP(FE_LINK_DROP_HEADER, "header"),
	C(fe_link_stats, llr_replays),
	C(fe_link_stats, ecn_marked),
	C(fe_link_stats, held_ns),
	C(fe_link_stats, stopped_pkts),
	C(fe_link_stats, stopped_bytes),
	C(fe_link_stats, q_pkts),
	C(fe_link_stats, q_bytes),
	C(fe_link_stats, q_pkts_peak),
	C(fe_link_stats, q_bytes_peak),
	C(fe_link_stats, wire_pkts),
	{NULL, 0},
};

#define RSVD(cause, name)                                                                          \
	{                                                                                          \
		"reserved_" name, offsetof(struct fe_sw_stats, reserved[cause])                    \
	}

_Static_assert(FE_RSVD__MAX == 6, "list every reserved address's cause in sw_counters");

static const struct fe_counter_desc sw_counters[] = {
	C(fe_sw_stats, unicast),
	C(fe_sw_stats, flooded),
	C(fe_sw_stats, filtered),
	C(fe_sw_stats, runts),
	C(fe_sw_stats, nombuf),
	C(fe_sw_stats, flood_ends),
	C(fe_sw_stats, handoff_full),
	C(fe_sw_stats, handoff_stopped),
	C(fe_sw_stats, egress_early),
	C(fe_sw_stats, egress_reordered),
	C(fe_sw_stats, hop_early),
	C(fe_sw_stats, hop_reordered),
	RSVD(FE_RSVD_PAUSE, "pause"),
	RSVD(FE_RSVD_PFC, "pfc"),
	RSVD(FE_RSVD_LLDP, "lldp"),
	RSVD(FE_RSVD_STP, "stp"),
	RSVD(FE_RSVD_SLOW, "slow"),
	RSVD(FE_RSVD_OTHER, "other"),
	{NULL, 0},
};

static const struct fe_counter_desc idle_counters[] = {
	C(fe_idle_stats, polls),
	C(fe_idle_stats, sleeps),
	C(fe_idle_stats, slept_ns),
	{NULL, 0},
};

const struct fe_counter_desc *
fe_report_counters(enum fe_obj obj)
{
	static const struct fe_counter_desc *const all[FE_OBJ__MAX] = {
		[FE_OBJ_PORT] = port_counters,
		[FE_OBJ_LINK] = link_counters,
		[FE_OBJ_SW] = sw_counters,
		[FE_OBJ_IDLE] = idle_counters,
	};
	return all[obj];
}

/* What the PMD counted before the last reset: its counters are read, never written. */
static struct fe_eth_counters eth_base[RTE_MAX_ETHPORTS];

/* ... and each extended statistic then, by its id, up to FE_XSTATS_BASE of them (those
 * above have none: counted from the start). Written in place by the reset, read by the
 * telemetry thread and the scrapes meanwhile: a value may be torn, never freed. */
#define FE_XSTATS_BASE 1024
static uint64_t xstat_base[RTE_MAX_ETHPORTS][FE_XSTATS_BASE];

uint64_t
fe_report_nic_lost_rx(const struct fe_eth_counters *e)
{
	return RTE_MAX(e->imissed + e->rx_nombuf + e->ierrors, e->xdrops_rx);
}

uint64_t
fe_report_nic_lost_tx(const struct fe_eth_counters *e)
{
	return RTE_MAX(e->oerrors, e->xdrops_tx);
}

int
fe_report_xstat_drop(const char *name)
{
	static const char *const generic[] = {
		"rx_good_packets",  "tx_good_packets", "rx_good_bytes", "tx_good_bytes",
		"rx_missed_errors", "rx_errors",       "tx_errors",	"rx_mbuf_allocation_errors",
	};
	static const char *const words[] = {"drop",	     "discard", "miss",
					    "out_of_buffer", "no_buf",	"nobuf",
					    "no_mbuf",	     "overrun", "overflow"};
	unsigned q;
	int at = 0;

	for (size_t i = 0; i < RTE_DIM(generic); i++)
		if (strcmp(name, generic[i]) == 0)
			return 0;
	/* frames, not their bytes (rx_discards_bytes_phy, rx_drop_octets) */
	if (strstr(name, "byte") != NULL || strstr(name, "octet") != NULL)
		return 0;
	/* ethdev's per queue ones: rx_q0_packets, tx_q3_errors, ... */
	if ((sscanf(name, "rx_q%u_%n", &q, &at) == 1 || sscanf(name, "tx_q%u_%n", &q, &at) == 1) &&
	    at > 0 &&
	    (strcmp(name + at, "packets") == 0 || strcmp(name + at, "bytes") == 0 ||
	     strcmp(name + at, "errors") == 0))
		return 0;
	for (size_t i = 0; i < RTE_DIM(words); i++)
		if (strstr(name, words[i]) != NULL)
			return strncmp(name, "tx_", 3) == 0 ? 2 : 1;
	return 0;
}

/*
 * The port's extended statistics: each value less base (by id), the largest drop counter
 * of each side into c; with keep, the values are written into base first (the reset).
 */
static void
xstats_drops(uint16_t port_id, uint64_t *base, struct fe_eth_counters *c, int keep)
{
	int n = rte_eth_xstats_get_names(port_id, NULL, 0);
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *v;

	if (n <= 0)
		return;
	names = calloc((size_t)n, sizeof(*names));
	v = calloc((size_t)n, sizeof(*v));
	if (names != NULL && v != NULL && rte_eth_xstats_get_names(port_id, names, n) == n &&
	    rte_eth_xstats_get(port_id, v, (unsigned)n) == n) {
		for (int i = 0; i < n; i++) {
			uint64_t val = v[i].value, b = 0;
			int side;

			if (v[i].id >= (uint64_t)n)
				continue;
			if (v[i].id < FE_XSTATS_BASE) {
				if (keep)
					base[v[i].id] = val;
				b = base[v[i].id];
			}
			val -= RTE_MIN(val, b);
			side = fe_report_xstat_drop(names[v[i].id].name);
			if (side == 1)
				c->xdrops_rx = RTE_MAX(c->xdrops_rx, val);
			else if (side == 2)
				c->xdrops_tx = RTE_MAX(c->xdrops_tx, val);
		}
	}
	free(names);
	free(v);
}

static void
eth_raw(uint16_t port_id, struct fe_eth_counters *c)
{
	struct rte_eth_stats s;

	memset(c, 0, sizeof(*c));
	if (rte_eth_stats_get(port_id, &s) != 0)
		return;
	c->imissed = s.imissed;
	c->ierrors = s.ierrors;
	c->oerrors = s.oerrors;
	c->rx_nombuf = s.rx_nombuf;
}

void
fe_report_eth(uint16_t port_id, struct fe_eth_counters *c)
{
	const unsigned k = port_id % RTE_MAX_ETHPORTS;
	const struct fe_eth_counters *b = &eth_base[k];

	eth_raw(port_id, c);
	c->imissed -= RTE_MIN(c->imissed, b->imissed);
	c->ierrors -= RTE_MIN(c->ierrors, b->ierrors);
	c->oerrors -= RTE_MIN(c->oerrors, b->oerrors);
	c->rx_nombuf -= RTE_MIN(c->rx_nombuf, b->rx_nombuf);
	xstats_drops(port_id, xstat_base[k], c, 0);
}

void
fe_report_eth_reset(uint16_t port_id)
{
	const unsigned k = port_id % RTE_MAX_ETHPORTS;
	struct fe_eth_counters unused = {0};

	eth_raw(port_id, &eth_base[k]);
	xstats_drops(port_id, xstat_base[k], &unused, 1);
}

const struct fe_link *
fe_report_link(const struct fe_dp *dp, unsigned n, const struct fe_link_params **params, char *name,
	       size_t len)
{
	fe_dp_link_name(dp, n, name, len);
	*params = &fe_dp_link_def(dp, n)->link;
	return &fe_dp_row(dp, n)->l;
}

const struct fe_linkdef *
fe_report_linkdef(const struct fe_dp *dp, unsigned n)
{
	return fe_dp_link_def(dp, n);
}

const struct fe_linkx *
fe_report_linkx(const struct fe_dp *dp, unsigned n)
{
	return &fe_dp_row(dp, n)->x;
}

const char *
fe_report_impairments(const struct fe_linkdef *d, char *buf, size_t len)
{
	size_t o = 0;
	char t[32];

#define ADD(...) (o += (size_t)snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__))
	buf[0] = '\0';
	if (d->loss.kind == FE_LOSS_BERNOULLI)
		ADD(", loss %g%%", d->loss.p * 100);
	if (d->loss.kind == FE_LOSS_GE)
		ADD(", ge p %g%% r %g%% bad %g%% good %g%%", d->loss.p * 100, d->loss.r * 100,
		    d->loss.loss_bad * 100, d->loss.loss_good * 100);
	if (d->ecn.enabled)
		ADD(", ecn %" PRIu64 "/%" PRIu64 " B pmax %g%%%s", d->ecn.kmin, d->ecn.kmax,
		    d->ecn.pmax * 100, d->ecn.drop_non_ect ? " drop-non-ect" : "");
	if (d->link.jitter_ns)
		ADD(", jitter %s", fe_fmt_time(d->link.jitter_ns, t, sizeof(t)));
	if (d->drop_count)
		ADD(", drop %" PRIu64 "/%" PRIu64, d->drop_first, d->drop_count);
	if (d->llr)
		ADD(", llr");
	if (d->match[0])
		ADD(", match '%s'", d->match);
#undef ADD
	return buf;
}

void
fe_report_switch_buffer(const struct fe_dp *dp, struct fe_switch_buffer *b)
{
	const struct fe_graph *g = dp->graph;

	memset(b, 0, sizeof(*b));
	for (unsigned s = 0; s < g->nsw; s++) {
		b->limit += g->pool[s].limit;
		b->used += FE_CNT_GET(g->pool[s].used);
		b->peak += FE_CNT_GET(g->pool[s].peak);
	}
}

void
fe_report_lane(const struct fe_dp *dp, unsigned port, unsigned lane, struct fe_lane_counters *c)
{
	/* an input: a port, or past the ports a link between switches (fe_graph.h) */
	const struct fe_hoplink *h = port < dp->nports ? NULL : &dp->graph->hl[port - dp->nports];
	const struct fe_pfc *pfc = h ? &h->row.pfc : &dp->ports[port].up.pfc;
	const struct fe_credit *cr = h ? &h->row.cred : &dp->ports[port].up.cred;
	const struct fe_link *cl = h ? &h->row.l : &dp->ports[port].up.l; /* cr's link */
	/* every switch's input queues are the graph's (credits; else none) */
	const struct fe_iq *iq = dp->graph->iq ? &dp->graph->iq[port * FE_LANES_MAX + lane] : NULL;

	const uint64_t now = rte_rdtsc(); /* the gauges' tick, one for all */

	memset(c, 0, sizeof(*c));
	c->held_bytes = FE_CNT_GET(dp->held[port * FE_PFC_PRIOS + lane]);
	if (dp->conf.regime == FE_REGIME_PFC) {
		c->pause_frames = FE_CNT_GET(pfc->prio[lane].pause_frames);
		c->xoff_events = FE_CNT_GET(pfc->prio[lane].xoff_events);
		c->paused_ns = fe_ticks_to_ns(fe_pfc_paused(pfc, (uint8_t)lane, now), dp->hz);
	} else if (dp->conf.regime == FE_REGIME_CREDIT && iq != NULL) {
		c->credits = fe_credit_held(cr, (uint8_t)lane, now);
		c->credits_min = FE_CNT_GET(cr->avail_min[lane]);
		/* a wait that goes on counts too, as a pause's time does */
		c->stall_ns =
			fe_ticks_to_ns(FE_CNT_GET(cr->stall_ticks[lane]) +
					       fe_link_credit_waiting(cl, cr, (uint8_t)lane, now),
				       dp->hz);
		c->iq_depth = FE_CNT_GET(iq->depth);
		c->iq_peak = FE_CNT_GET(iq->peak);
		c->iq_peak_blocks = FE_CNT_GET(iq->peak_blocks);
		c->iq_stopped = FE_CNT_GET(iq->stopped);
		c->credit_updates = FE_CNT_GET(cr->updates[lane]);
		c->credits_unsent = cr->unsent[lane];
	}
}

#define L(field)                                                                                   \
	{                                                                                          \
#field, offsetof(struct fe_lane_counters, field)                                   \
	}

static const struct fe_counter_desc lane_counters_pfc[] = {
	L(held_bytes), L(pause_frames), L(xoff_events), L(paused_ns), {NULL, 0},
};

static const struct fe_counter_desc lane_counters_credit[] = {
	L(credits), L(credits_min),    L(stall_ns),   L(iq_depth),
	L(iq_peak), L(iq_peak_blocks), L(iq_stopped), {NULL, 0},
};

/* ... and with credit messages (--credit update), what they gather and how many went */
static const struct fe_counter_desc lane_counters_credit_msgs[] = {
	L(credits),	   L(credits_min), L(stall_ns),	      L(iq_depth),	 L(iq_peak),
	L(iq_peak_blocks), L(iq_stopped),  L(credit_updates), L(credits_unsent), {NULL, 0},
};

const struct fe_counter_desc *
fe_report_lane_counters(const struct fe_dp *dp)
{
	/* every link's sender gathers alike (the fabric's update, derived for each) */
	const int msgs = dp->nports > 0 && dp->ports[0].up.cred.update > 1;

	return dp->conf.regime == FE_REGIME_PFC		     ? lane_counters_pfc
	       : dp->conf.regime == FE_REGIME_CREDIT && msgs ? lane_counters_credit_msgs
	       : dp->conf.regime == FE_REGIME_CREDIT	     ? lane_counters_credit
							     : NULL;
}

/* The kernel side of the ports (fe_kernel.h): set once at start, read by every report. */
static struct fe_kernel *report_kernel;

void
fe_report_set_kernel(struct fe_kernel *k)
{
	__atomic_store_n(&report_kernel, k, __ATOMIC_RELEASE);
}

struct fe_kernel *
fe_report_kernel(void)
{
	return __atomic_load_n(&report_kernel, __ATOMIC_ACQUIRE);
}

void
fe_report_edge(const struct fe_dp *dp, unsigned i, struct fe_report_edge *e)
{
	const struct fe_port *p = &dp->ports[i];
	struct fe_eth_counters eth;
	uint64_t rx = FE_CNT_GET(p->st.rx_pkts), tx = FE_CNT_GET(p->st.tx_pkts);

	memset(e, 0, sizeof(*e));
	fe_kernel_read(fe_report_kernel(), i, &e->k);
	e->stamped = FE_CNT_GET(p->edge_st.stamped);
	e->unstamped = FE_CNT_GET(p->edge_st.unstamped);
	e->mismatch = FE_CNT_GET(p->edge_st.mismatch);
	e->truncated = FE_CNT_GET(p->edge_st.truncated);
	e->held = FE_CNT_GET(p->edge_st.held);
	fe_report_qhist_q3(p->edge_st.wait_hist, &e->wait);
	if (e->k.kind == FE_KPORT_NONE)
		return;
	fe_report_eth(p->port_id, &eth);
	/* what reached the interface was read, or lost at the edge; what was sent reached
	 * the interface, or was dropped there or by the PMD */
	e->rx_unexplained = (int64_t)e->k.if_rx_offered - (int64_t)rx - (int64_t)e->k.rx_lost;
	e->tx_unexplained = (int64_t)tx - (int64_t)e->k.if_tx_packets -
			    (int64_t)e->k.if_tx_dropped - (int64_t)eth.oerrors;
}

static void
table_row(FILE *f, const char *label, const void *stats, const struct fe_counter_desc *d)
{
	fprintf(f, "%-8s", label);
	for (; d->name; d++)
		fprintf(f, " %*" PRIu64, (int)strlen(d->name), fe_report_get(stats, d));
	fputc('\n', f);
}

static void
table_head(FILE *f, const char *label, const struct fe_counter_desc *d)
{
	fprintf(f, "%-8s", label);
	for (; d->name; d++)
		fprintf(f, " %s", d->name);
	fputc('\n', f);
}

static void
table_regime(FILE *f, const struct fe_dp *dp)
{
	const struct fe_counter_desc *names = fe_report_lane_counters(dp);

	fprintf(f, "regime %s, %u lane%s\n", fe_regime_name(dp->conf.regime), dp->conf.lanes,
		dp->conf.lanes > 1 ? "s" : "");
	if (names == NULL)
		return;
	for (unsigned i = 0; i < dp->nports && dp->conf.regime == FE_REGIME_PFC; i++) {
		const struct fe_pfc *p = &dp->ports[i].up.pfc;

		fprintf(f,
			"pfc port %u: xoff %" PRIu64 " B, xon %" PRIu64 " B, headroom %" PRIu64
			" B, delay %" PRIu64 " ns\n",
			i, p->cfg.xoff, p->cfg.xon, p->cfg.headroom,
			fe_ticks_to_ns(p->cfg.delay_ticks, dp->hz));
	}
	if (dp->conf.regime == FE_REGIME_CREDIT)
		fprintf(f,
			"credit: %u blocks of %u B per lane, return after %" PRIu64
			" ns (0.up's), HOQLife %" PRIu64
			" ns, output buffer %u pkts, messages of %u blocks (0: each frame's)\n",
			dp->ports[0].up.cred.total, dp->ports[0].up.cred.unit.bytes,
			fe_ticks_to_ns(dp->ports[0].up.cred.return_ticks, dp->hz),
			fe_ticks_to_ns(dp->hoq_ticks, dp->hz), dp->conf.credit.out_pkts,
			dp->ports[0].up.cred.update);
	table_head(f, "port     lane", names);
	for (unsigned i = 0; i < dp->nports; i++)
		for (unsigned l = 0; l < dp->conf.lanes; l++) {
			struct fe_lane_counters c;
			char label[16];

			fe_report_lane(dp, i, l, &c);
			snprintf(label, sizeof(label), "%-8u %4u", i, l);
			table_row(f, label, &c, names);
		}
}

static double
uptime(const struct fe_dp *dp)
{
	return (double)(rte_rdtsc() - dp->start_tsc) / (double)dp->hz;
}

/* Every frame at the edge: the interface's counters against the dataplane's. */
static void
table_edge(FILE *f, const struct fe_dp *dp)
{
	struct fe_report_edge *e = calloc(dp->nports, sizeof(*e));

	if (e == NULL)
		return;
	/* read once a port: both tables below show the same moment */
	for (unsigned i = 0; i < dp->nports; i++)
		fe_report_edge(dp, i, &e[i]);
	fprintf(f, "%-5s %-9s %-12s %6s %9s %7s %7s %7s %9s %9s %7s %7s\n", "port", "kernel",
		"iface", "ring", "if_rx", "rx_lost", "unexpl", "if_rx_dr", "tx_pkts", "if_tx",
		"if_tx_dr", "unexpl");
	for (unsigned i = 0; i < dp->nports; i++) {
		if (e[i].k.kind == FE_KPORT_NONE) { /* a NIC's own: what it could not take */
			struct fe_eth_counters eth;

			fe_report_eth(dp->ports[i].port_id, &eth);
			fprintf(f,
				"%-5u %-9s no kernel interface; lost at its NIC: %" PRIu64
				" (imissed %" PRIu64 ", rx_nombuf %" PRIu64 ", ierrors %" PRIu64
				"; its own drop counters, the largest: %" PRIu64
				"); on transmit %" PRIu64 " (oerrors %" PRIu64 ", its own %" PRIu64
				")\n",
				i, "none", fe_report_nic_lost_rx(&eth), eth.imissed, eth.rx_nombuf,
				eth.ierrors, eth.xdrops_rx, fe_report_nic_lost_tx(&eth),
				eth.oerrors, eth.xdrops_tx);
			continue;
		}
		fprintf(f,
			"%-5u %-9s %-12s %6u %9" PRIu64 " %7" PRIu64 " %7" PRId64 " %7" PRIu64
			" %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %7" PRId64 "\n",
			i, fe_kernel_kind_name(e[i].k.kind), e[i].k.iface, e[i].k.ring_frames,
			e[i].k.if_rx_packets, e[i].k.rx_lost, e[i].rx_unexplained,
			e[i].k.if_rx_dropped, FE_CNT_GET(dp->ports[i].st.tx_pkts),
			e[i].k.if_tx_packets, e[i].k.if_tx_dropped, e[i].tx_unexplained);
	}
	fprintf(f, "%-5s %-12s %10s %10s %10s %10s %10s (ns, <= quarter-octave bounds)\n", "port",
		"edge wait", "stamped", "unstamped", "p50", "p99", "max");
	for (unsigned i = 0; i < dp->nports; i++) {
		if (!e[i].k.timed) {
			fprintf(f, "%-5u %-12s (%s)\n", i, "not timed", e[i].k.untimed);
			continue;
		}
		fprintf(f,
			"%-5u %-12s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
			" %10" PRIu64 "\n",
			i, "kernel", e[i].stamped, e[i].unstamped, e[i].wait.p50, e[i].wait.p99,
			e[i].wait.max);
	}
	free(e);
}

/* What took the loop's core away (fe_sched.h), once the loop runs. */
static void
table_lcores(FILE *f)
{
	struct fe_sched sc;

	fe_kernel_read_sched(fe_report_kernel(), &sc);
	if (sc.threads == 0)
		return;
	fprintf(f, "lcores: %u thread(s) on core(s)", sc.threads);
	for (unsigned i = 0; i < sc.ncpus; i++)
		fprintf(f, "%s%d", i ? "," : " ", sc.cpus[i]);
	fprintf(f,
		"; ran %" PRIu64 " ns, preempted %" PRIu64 " times, %" PRIu64 " ns waiting for "
		"the core; the core(s): steal %" PRIu64 " ns, irq %" PRIu64 " ns, softirq %" PRIu64
		" ns\n",
		sc.run_ns, sc.preempted, sc.runq_wait_ns, sc.cpu_steal_ns, sc.cpu_irq_ns,
		sc.cpu_softirq_ns);
}

/*
 * The port counters whose names start with prefix (NULL: those of neither NIC group),
 * into out (as long as port_counters), for a table of their own.
 */
static const struct fe_counter_desc *
port_group(const char *prefix, struct fe_counter_desc *out)
{
	unsigned n = 0;

	for (const struct fe_counter_desc *d = port_counters; d->name; d++) {
		int nic = strncmp(d->name, "nic_", 4) == 0 || strncmp(d->name, "roce_", 5) == 0;

		if (prefix ? strncmp(d->name, prefix, strlen(prefix)) == 0 : !nic)
			out[n++] = *d;
	}
	out[n] = (struct fe_counter_desc){NULL, 0};
	return out;
}

/* One table of port counters, a row a port. */
static void
port_table(FILE *f, const struct fe_dp *dp, const struct fe_counter_desc *cols)
{
	char name[32];

	table_head(f, "port", cols);
	for (unsigned i = 0; i < dp->nports; i++) {
		snprintf(name, sizeof(name), "%u", i);
		table_row(f, name, &dp->ports[i].st, cols);
	}
}

void
fe_report_table(FILE *f, const struct fe_dp *dp)
{
	struct fe_counter_desc cols[RTE_DIM(port_counters)];
	char name[32], r[32], t[32];
	struct fe_report_q3 pass, wake;
	const struct fe_link_params *lp;

	fprintf(f, "fabemu-dp counters after %.3f s (seed %" PRIu64 ")\n", uptime(dp),
		dp->conf.seed);
	/* the NICs' counters in tables of their own, when there are NICs (docs/nic.md) */
	port_table(f, dp, port_group(NULL, cols));
	if (fe_nic_emulated(dp->conf.nic.model))
		port_table(f, dp, port_group("nic_", cols));
	if (dp->conf.nic.model == FE_NIC_HOST)
		port_table(f, dp, port_group("roce_", cols));
	fprintf(f, "%-8s %-24s %s\n", "port", "device",
		"imissed ierrors oerrors rx_nombuf xdrops_rx xdrops_tx");
	for (unsigned i = 0; i < dp->nports; i++) {
		struct fe_eth_counters e;

		fe_report_eth(dp->ports[i].port_id, &e);
		fprintf(f,
			"%-8u %-24s %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %9" PRIu64 " %9" PRIu64
			" %9" PRIu64 "\n",
			i, dp->ports[i].name, e.imissed, e.ierrors, e.oerrors, e.rx_nombuf,
			e.xdrops_rx, e.xdrops_tx);
	}
	table_edge(f, dp);
	fprintf(f, "%-8s %-10s %-8s %-12s %s\n", "link", "rate", "delay", "buffer", "buffer-pkts");
	for (unsigned n = 0; n < fe_dp_port_links(dp); n++) {
		fe_report_link(dp, n, &lp, name, sizeof(name));
		fprintf(f, "%-8s %-10s %-8s %-12" PRIu64 " %u\n", name,
			fe_fmt_rate(lp->rate_bps, r, sizeof(r)),
			fe_fmt_time(lp->delay_ns, t, sizeof(t)), lp->limit_bytes, lp->limit_pkts);
	}
	table_head(f, "link", link_counters);
	for (unsigned n = 0; n < fe_dp_port_links(dp); n++) {
		const struct fe_link *l = fe_report_link(dp, n, &lp, name, sizeof(name));

		table_row(f, name, &l->st, link_counters);
	}
	/* several switches: the links between them, each direction (fe_graph.h) */
	for (unsigned i = 0; dp->topology && i < dp->graph->nhl; i++)
		table_row(f, dp->graph->hl[i].name, &dp->graph->hl[i].row.l.st, link_counters);
	if (dp->topology) {
		fprintf(f, "%-8s %s:", "graph", "out of order at port");
		for (unsigned p = 0; p < dp->nports; p++)
			fprintf(f, " %u:%" PRIu64, p, FE_CNT_GET(dp->graph->ooo[p]));
		fprintf(f, " (path %s)\n", fe_path_name(dp->graph->path));
		ecmp_table(f, dp->graph);
		graph_table(f, dp);
	}
	fprintf(f, "%-8s %s\n", "link",
		"qdepth_p50 qdepth_p99 sojourn_p50_ns sojourn_p99_ns sojourn_max_ns late_p50_ns "
		"late_p99_ns late_max_ns (qdepth, sojourn: <= log2 bucket bounds; late: <= "
		"quarter-octave bounds)");
	for (unsigned n = 0; n < fe_dp_port_links(dp); n++) {
		const struct fe_link *l = fe_report_link(dp, n, &lp, name, sizeof(name));
		struct fe_report_q3 late;

		fe_report_qhist_q3(l->st.late_hist, &late);
		fprintf(f,
			"%-8s %10" PRIu64 " %10" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64
			" %11" PRIu64 " %11" PRIu64 " %11" PRIu64 "\n",
			name, fe_report_hist_quantile(l->st.qdepth_hist, 0.5),
			fe_report_hist_quantile(l->st.qdepth_hist, 0.99),
			fe_report_hist_quantile(l->st.sojourn_hist, 0.5),
			fe_report_hist_quantile(l->st.sojourn_hist, 0.99),
			fe_report_hist_quantile(l->st.sojourn_hist, 1.0), late.p50, late.p99,
			late.max);
	}
	table_head(f, "switch", sw_counters);
	table_row(f, "", &dp->sw, sw_counters);
	fprintf(f, "mac: learned %" PRIu64 " moves %" PRIu64 " table-full %" PRIu64 "\n",
		FE_CNT_GET(dp->mac->learned), FE_CNT_GET(dp->mac->moves),
		FE_CNT_GET(dp->mac->full));
	table_regime(f, dp);
	table_head(f, "idle", idle_counters);
	table_row(f, "", &dp->idle, idle_counters);
	fe_report_qhist_q3(dp->idle.pass_hist, &pass);
	fe_report_qhist_q3(dp->idle.wake_late_hist, &wake);
	fprintf(f,
		"loop: a pass p50 %" PRIu64 " ns, p99 %" PRIu64 " ns, max %" PRIu64
		" ns; woke late p50 %" PRIu64 " ns, p99 %" PRIu64 " ns, max %" PRIu64 " ns\n",
		pass.p50, pass.p99, pass.max, wake.p50, wake.p99, wake.max);
	table_lcores(f);
	fflush(f);
}

/* Upper bound of the log2 bucket holding the q-quantile (nearest rank); 0 if empty. */
uint64_t
fe_report_hist_quantile(const fe_counter_t *h, double q)
{
	uint64_t total = 0, seen = 0, rank;

	for (unsigned i = 0; i < FE_HIST_BUCKETS; i++)
		total += FE_CNT_GET(h[i]);
	if (total == 0)
		return 0;
	rank = fe_rank(total, q);
	for (unsigned i = 0; i < FE_HIST_BUCKETS; i++) {
		seen += FE_CNT_GET(h[i]);
		if (seen >= rank)
			return i == 0 ? 0 : 1ULL << i;
	}
	return 1ULL << (FE_HIST_BUCKETS - 1);
}

void
fe_report_qhist_q3(const fe_counter_t *h, struct fe_report_q3 *q)
{
	uint64_t snap[FE_QHIST_BUCKETS];

	q->n = 0;
	for (unsigned i = 0; i < FE_QHIST_BUCKETS; i++)
		q->n += snap[i] = FE_CNT_GET(h[i]);
	q->p50 = fe_qhist_quantile(snap, 0.5);
	q->p99 = fe_qhist_quantile(snap, 0.99);
	q->max = fe_qhist_quantile(snap, 1.0);
}

/* ---- The counters document (docs/counters.md lists every field) ---- */

static json_t *
u64(uint64_t v)
{
	/* counters stay far below 2^63; clamp rather than wrap to a negative number */
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static void
put_fields(json_t *o, const void *stats, const struct fe_counter_desc *d)
{
	for (; d->name; d++)
		json_object_set_new(o, d->name, u64(fe_report_get(stats, d)));
}

static json_t *
hist_json(const fe_counter_t *h, unsigned buckets)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < buckets; i++)
		json_array_append_new(a, u64(FE_CNT_GET(h[i])));
	return a;
}

/*
 * NAME_p50_ns, NAME_p99_ns, NAME_max_ns (p50_ns, ... for an empty NAME) of a
 * quarter-octave histogram in ns; nothing when it is empty: no percentile of nothing.
 */
static void
put_quantiles(json_t *o, const char *name, const fe_counter_t *h)
{
	static const char *const suffix[] = {"p50_ns", "p99_ns", "max_ns"};
	struct fe_report_q3 q;
	char key[64];

	fe_report_qhist_q3(h, &q);
	for (unsigned i = 0; q.n && i < RTE_DIM(suffix); i++) {
		snprintf(key, sizeof(key), "%s%s%s", name, *name ? "_" : "", suffix[i]);
		json_object_set_new(o, key, u64(i == 0 ? q.p50 : i == 1 ? q.p99 : q.max));
	}
}

static json_t *
ip_json(uint32_t addr) /* network order */
{
	const uint8_t *b = (const uint8_t *)&addr;
	char s[16];

	snprintf(s, sizeof(s), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	return json_string(s);
}

/*
 * The emulated NIC's flows (models roce, ib, uec) or the queue pairs it saw (model host),
 * docs/nic.md. Read while the lcore runs: each field is one load, a flow's fields may be
 * from two moments.
 */
static json_t *
nic_json(const struct fe_nicport *n)
{
	json_t *a = json_array();

	for (unsigned f = 0; n->host && f < FE_ROCE_QPS; f++) {
		const struct fe_roce_qp *q = &n->qps[f];

		if (q->used)
			json_array_append_new(
				a, json_pack("{s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
					     "dst", ip_json(q->daddr), "qpn", (json_int_t)q->qpn,
					     "pkts", u64(q->pkts), "gaps", u64(q->gaps), "missing",
					     u64(q->missing), "resent", u64(q->resent), "rewinds",
					     u64(q->rewinds), "naks", u64(q->naks), "rnr_naks",
					     u64(q->rnr_naks), "cnps", u64(q->cnps)));
	}
	for (unsigned f = 0; !n->host && f < FE_NIC_FLOWS; f++) {
		const struct fe_nic_flow *fl = &n->flows[f];
		json_t *o;

		if (!fl->used)
			continue;
		o = json_pack("{s:i, s:o, s:o, s:i, s:i, s:s, s:o, s:o, s:o, s:o}", "slot", (int)f,
			      "src", ip_json(fl->key.saddr), "dst", ip_json(fl->key.daddr), "sport",
			      (int)rte_be_to_cpu_16(fl->key.sport), "dport",
			      (int)rte_be_to_cpu_16(fl->key.dport), "proto",
			      fl->key.proto == 6 ? "tcp" : "udp", "rate_bps",
			      u64((uint64_t)fe_nic_flow_rate(n, fl)), "rate_min_bps",
			      u64((uint64_t)fl->rate_min), "sent", u64(fl->next_psn), "unacked",
			      u64(fl->next_psn - fl->una));
		if (fe_nic_cc_nscc(n->cc_mode)) /* NSCC's window (its rate is the line's) */
			json_object_set_new(o, "cwnd_bytes", u64((uint64_t)fl->nscc.cwnd));
		json_array_append_new(a, o);
	}
	return a;
}

/* What port_id's NIC counted and lost since the last reset (fe_report_eth()), into o: a
 * host port's and a trunk's alike. */
static void
eth_json(json_t *o, uint16_t port_id)
{
	struct fe_eth_counters e;

	fe_report_eth(port_id, &e);
	json_object_set_new(o, "imissed", u64(e.imissed));
	json_object_set_new(o, "ierrors", u64(e.ierrors));
	json_object_set_new(o, "oerrors", u64(e.oerrors));
	json_object_set_new(o, "rx_nombuf", u64(e.rx_nombuf));
	json_object_set_new(o, "xdrops_rx", u64(e.xdrops_rx));
	json_object_set_new(o, "xdrops_tx", u64(e.xdrops_tx));
	json_object_set_new(o, "nic_lost_rx", u64(fe_report_nic_lost_rx(&e)));
	json_object_set_new(o, "nic_lost_tx", u64(fe_report_nic_lost_tx(&e)));
}

json_t *
fe_report_port_doc(const struct fe_dp *dp, unsigned i, bool arrays)
{
	const struct fe_port *p = &dp->ports[i];
	struct fe_report_edge ed;
	json_t *o = json_pack("{s:i, s:s}", "port", i, "device", p->name), *k, *w;

	put_fields(o, &p->st, port_counters);
	eth_json(o, p->port_id);
	fe_report_edge(dp, i, &ed);
	k = json_pack("{s:s}", "kind", fe_kernel_kind_name(ed.k.kind));
	if (ed.k.kind != FE_KPORT_NONE) {
		json_object_set_new(k, "iface", json_string(ed.k.iface));
		json_object_set_new(k, "ring_frames", u64(ed.k.ring_frames));
		json_object_set_new(k, "if_rx_packets", u64(ed.k.if_rx_packets));
		json_object_set_new(k, "if_rx_dropped", u64(ed.k.if_rx_dropped));
		json_object_set_new(k, "if_tx_packets", u64(ed.k.if_tx_packets));
		json_object_set_new(k, "if_tx_dropped", u64(ed.k.if_tx_dropped));
		if (ed.k.kind == FE_KPORT_AF_PACKET) {
			json_object_set_new(k, "socket_packets", u64(ed.k.sock_packets));
			json_object_set_new(k, "socket_drops", u64(ed.k.sock_drops));
		}
		json_object_set_new(k, "discarded_at_start", u64(ed.k.discarded));
		/* seen only on a timed port (the ring's headers are read there) */
		json_object_set_new(k, "truncated", u64(ed.truncated));
		json_object_set_new(k, "rx_lost", u64(ed.k.rx_lost));
		json_object_set_new(k, "rx_unexplained", json_integer(ed.rx_unexplained));
		json_object_set_new(k, "tx_unexplained", json_integer(ed.tx_unexplained));
	}
	json_object_set_new(o, "kernel", k);
	/* source kernel: the port is (or was, until a mismatch stopped it) timed */
	w = json_pack("{s:s, s:b}", "source", ed.k.timed || ed.mismatch ? "kernel" : "none",
		      "timed", ed.k.timed);
	if (ed.k.timed || ed.mismatch) {
		json_object_set_new(w, "stamped", u64(ed.stamped));
		json_object_set_new(w, "unstamped", u64(ed.unstamped));
		json_object_set_new(w, "held", u64(ed.held));
		json_object_set_new(w, "mismatch", u64(ed.mismatch));
		put_quantiles(w, "", p->edge_st.wait_hist);
		if (arrays)
			json_object_set_new(w, "hist_ns",
					    hist_json(p->edge_st.wait_hist, FE_QHIST_BUCKETS));
	}
	if (!ed.k.timed)
		json_object_set_new(w, "why", json_string(ed.k.untimed));
	json_object_set_new(o, "edge_wait", w);
	if (p->nic != NULL && arrays)
		json_object_set_new(o, p->nic->host ? "qps" : "flows", nic_json(p->nic));
	return o;
}

/*
 * A link named name, its values lp and its counters: a port's (links[]) and a link
 * between switches' (graph.fabric_links[]) alike.
 */
static json_t *
link_fields_json(const char *name, const struct fe_link_params *lp, const struct fe_link *l,
		 const struct fe_linkx *x)
{
	json_t *o, *lanes = json_array();

	fe_ctlif_lock();
	o = json_pack("{s:s, s:o, s:o, s:o, s:o}", "link", name, "rate_bps", u64(lp->rate_bps),
		      "delay_ns", u64(lp->delay_ns), "buffer_bytes", u64(lp->limit_bytes),
		      "buffer_pkts", u64(lp->limit_pkts));
	fe_ctlif_unlock();
	put_fields(o, &l->st, link_counters);
	for (unsigned k = 0; k < FE_LINK_LANES; k++)
		json_array_append_new(lanes, u64(FE_CNT_GET(l->st.lane_drop_pkts[k])));
	json_object_set_new(o, "lane_drop_pkts", lanes);
	json_object_set_new(o, "qdepth_hist_pkts", hist_json(l->st.qdepth_hist, FE_HIST_BUCKETS));
	json_object_set_new(o, "sojourn_hist_ns", hist_json(l->st.sojourn_hist, FE_HIST_BUCKETS));
	/* split across boxes, or late against the model: how late its frames left */
	json_object_set_new(o, "late_hist_ns", hist_json(l->st.late_hist, FE_QHIST_BUCKETS));
	put_quantiles(o, "late", l->st.late_hist);
	json_object_set_new(o, "filter_hits", u64(FE_CNT_GET(x->filter_hits)));
	return o;
}

static json_t *
link_json(const struct fe_dp *dp, unsigned n)
{
	const struct fe_link_params *lp;
	const struct fe_link *l;
	char name[32];

	l = fe_report_link(dp, n, &lp, name, sizeof(name));
	return link_fields_json(name, lp, l, fe_report_linkx(dp, n));
}

/* The valid MAC table entries. Read while the lcore may write: a report, not a snapshot. */
static json_t *
mac_table_json(const struct fe_dp *dp)
{
	uint64_t now = rte_rdtsc();
	json_t *a = json_array();
	char mac[32];
	uint8_t m[6];
	uint16_t port;

	for (unsigned i = 0; i < FE_MAC_SLOTS; i++) {
		if (!fe_mac_entry(dp->mac, i, now, m, &port))
			continue;
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3],
			 m[4], m[5]);
		json_array_append_new(a, json_pack("{s:s, s:i}", "mac", mac, "port", port));
	}
	return a;
}

static json_t *
switch_json(const struct fe_dp *dp)
{
	json_t *o =
		json_pack("{s:o, s:o, s:o, s:o}", "mac_learned", u64(FE_CNT_GET(dp->mac->learned)),
			  "mac_moves", u64(FE_CNT_GET(dp->mac->moves)), "mac_table_full",
			  u64(FE_CNT_GET(dp->mac->full)), "mac_table", mac_table_json(dp));

	put_fields(o, &dp->sw, sw_counters);
	return o;
}

static json_t *
lanes_json(const struct fe_dp *dp)
{
	const struct fe_counter_desc *names = fe_report_lane_counters(dp);
	json_t *a = json_array();

	for (unsigned i = 0; names && i < dp->nports; i++)
		for (unsigned l = 0; l < dp->conf.lanes; l++) {
			struct fe_lane_counters c;
			json_t *o = json_pack("{s:i, s:i}", "port", i, "lane", l);

			fe_report_lane(dp, i, l, &c);
			put_fields(o, &c, names);
			json_array_append_new(a, o);
		}
	return a;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* {"min": ..., "p50": ..., "max": ...}: nearest-rank quantiles in ns of n tick samples */
static json_t *
quantiles_json(const uint32_t *samples, uint64_t n, uint64_t hz)
{
	static const double q[] = {0, 0.5, 0.9, 0.99, 0.999, 1};
	static const char *const qn[] = {"min", "p50", "p90", "p99", "p999", "max"};
	uint32_t *v = n ? malloc(n * sizeof(*v)) : NULL;
	json_t *o = json_object();

	if (v == NULL)
		return o;
	memcpy(v, samples, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u32);
	for (unsigned i = 0; i < RTE_DIM(q); i++)
		json_object_set_new(o, qn[i], u64(fe_ticks_to_ns(v[fe_rank_index(n, q[i])], hz)));
	free(v);
	return o;
}

/*
 * --measure: the distribution of RX-to-TX times (ns) of the last samples, of the TX
 * calls' durations, and each port's TX rate on the wire between its first and last
 * measured burst.
 */
static json_t *
measure_json(const struct fe_dp *dp)
{
	const struct fe_measure *m = dp->meas;
	uint64_t n = RTE_MIN(m->n, (uint64_t)m->mask + 1);
	json_t *o = json_pack("{s:o, s:o}", "samples", u64(m->n), "kept", u64(n)), *ports;

	if (n)
		json_object_set_new(o, "rx_to_tx_ns", quantiles_json(m->ticks, n, dp->hz));
	json_object_set_new(o, "tx_calls", u64(m->calls));
	if (m->calls)
		json_object_set_new(o, "tx_call_ns",
				    quantiles_json(m->call_ticks,
						   RTE_MIN(m->calls, (uint64_t)m->mask + 1),
						   dp->hz));
	ports = json_array();
	for (unsigned i = 0; i < dp->nports && i < FE_MEASURE_PORTS; i++) {
		const struct fe_measure_port *p = &m->port[i];
		double secs = (double)p->busy_ticks / (double)dp->hz;

		json_array_append_new(ports,
				      json_pack("{s:i, s:o, s:o, s:f, s:f}", "port", i, "tx_pkts",
						u64(p->pkts), "tx_wire_bytes", u64(p->wire_bytes),
						"busy_s", secs, "tx_wire_bps",
						secs > 0 ? (double)p->busy_bytes * 8 / secs : 0.0));
	}
	json_object_set_new(o, "ports", ports);
	return o;
}

static json_t *
xsk_json(void)
{
	struct fe_kernel_xsk x;

	fe_kernel_read_xsk(fe_report_kernel(), &x);
	if (x.sockets == 0)
		return NULL;
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "sockets", x.sockets, "rx_dropped",
			 u64(x.rx_dropped), "rx_invalid", u64(x.rx_invalid), "rx_ring_full",
			 u64(x.rx_ring_full), "rx_fill_ring_empty_descs",
			 u64(x.rx_fill_ring_empty_descs), "tx_invalid", u64(x.tx_invalid),
			 "tx_ring_empty_descs", u64(x.tx_ring_empty_descs));
}

/* What the scheduler did to the loop's threads and their cores (fe_sched.h). */
static json_t *
lcores_json(void)
{
	struct fe_sched s;
	json_t *cpus = json_array();

	fe_kernel_read_sched(fe_report_kernel(), &s);
	for (unsigned i = 0; i < s.ncpus; i++)
		json_array_append_new(cpus, json_integer(s.cpus[i]));
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "threads", s.threads,
			 "cpus", cpus, "run_ns", u64(s.run_ns), "preempted", u64(s.preempted),
			 "yielded", u64(s.yielded), "runq_wait_ns", u64(s.runq_wait_ns),
			 "cpu_steal_ns", u64(s.cpu_steal_ns), "cpu_irq_ns", u64(s.cpu_irq_ns),
			 "cpu_softirq_ns", u64(s.cpu_softirq_ns));
}

/*
 * The ECMP groups of the topology: from each switch, each set of equal-cost next hops
 * (toward one destination switch or more), once; its imbalance is the most bytes one of
 * its links carried over the mean of them (1: even; 0: none carried).
 */
static unsigned
ecmp_groups(const struct fe_graph *g, uint16_t (*sets)[FE_GRAPH_WAYS], uint8_t *nset, unsigned max)
{
	unsigned n = 0;

	for (unsigned x = 0; x < g->nsw; x++)
		for (unsigned d = 0; d < g->nsw; d++) {
			unsigned k = g->nnh0[x][d], seen = 0;

			if (k < 2)
				continue;
			for (unsigned i = 0; i < n && !seen; i++)
				seen = nset[i] == k &&
				       !memcmp(sets[i], g->nh0[x][d], k * sizeof(uint16_t));
			if (seen || n == max)
				continue;
			memcpy(sets[n], g->nh0[x][d], k * sizeof(uint16_t));
			nset[n++] = (uint8_t)k;
		}
	return n;
}

static double
imbalance(const struct fe_graph *g, const uint16_t *set, unsigned k)
{
	uint64_t sum = 0, most = 0;

	for (unsigned i = 0; i < k; i++) {
		uint64_t b = FE_CNT_GET(g->hl[set[i]].row.l.st.out_bytes);

		sum += b;
		most = b > most ? b : most;
	}
	return sum ? (double)most * k / (double)sum : 0;
}

#define ECMP_GROUPS 256

/* The table's line a group: its links' bytes, and its imbalance. */
static void
ecmp_table(FILE *f, const struct fe_graph *g)
{
	uint16_t sets[ECMP_GROUPS][FE_GRAPH_WAYS];
	uint8_t nset[ECMP_GROUPS];
	unsigned n = ecmp_groups(g, sets, nset, ECMP_GROUPS);

	for (unsigned i = 0; i < n; i++) {
		fprintf(f, "%-8s", "ecmp");
		for (unsigned k = 0; k < nset[i]; k++)
			fprintf(f, " %s %" PRIu64 " B", g->hl[sets[i][k]].name,
				FE_CNT_GET(g->hl[sets[i][k]].row.l.st.out_bytes));
		fprintf(f, ", imbalance %.2f\n", imbalance(g, sets[i], nset[i]));
	}
}

static json_t *
ecmp_json(const struct fe_graph *g)
{
	uint16_t sets[ECMP_GROUPS][FE_GRAPH_WAYS];
	uint8_t nset[ECMP_GROUPS];
	unsigned n = ecmp_groups(g, sets, nset, ECMP_GROUPS);
	json_t *a = json_array();

	for (unsigned i = 0; i < n; i++) {
		json_t *links = json_array(), *bytes = json_array();
		char sw[80];

		snprintf(sw, sizeof(sw), "%s", g->hl[sets[i][0]].name);
		sw[strcspn(sw, ">")] = '\0';
		for (unsigned k = 0; k < nset[i]; k++) {
			json_array_append_new(links, json_string(g->hl[sets[i][k]].name));
			json_array_append_new(
				bytes, u64(FE_CNT_GET(g->hl[sets[i][k]].row.l.st.out_bytes)));
		}
		json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:f}", "switch", sw, "links",
						   links, "out_bytes", bytes, "imbalance",
						   imbalance(g, sets[i], nset[i])));
	}
	return a;
}

/* Several switches, lossless: each hop link's pauses or credits, and the deadlocks. */
static void
graph_table(FILE *f, const struct fe_dp *dp)
{
	const struct fe_graph *g = dp->graph;
	const struct fe_counter_desc *names = fe_report_lane_counters(dp);
	uint64_t nev = __atomic_load_n(&g->nev, __ATOMIC_ACQUIRE);

	if (names == NULL)
		return;
	fprintf(f, "%-14s %-4s", "fabric input", "lane");
	for (const struct fe_counter_desc *d = names; d->name; d++)
		fprintf(f, " %14s", d->name);
	fprintf(f, dp->conf.regime == FE_REGIME_PFC ? " %14s\n" : "\n", "wd_storms");
	for (unsigned i = 0; i < g->nhl; i++)
		for (unsigned l = 0; l < dp->conf.lanes; l++) {
			struct fe_lane_counters c;

			fe_report_lane(dp, dp->nports + i, l, &c);
			fprintf(f, "%-14s %-4u", g->hl[i].name, l);
			for (const struct fe_counter_desc *d = names; d->name; d++)
				fprintf(f, " %14" PRIu64,
					*(const uint64_t *)((const char *)&c + d->off));
			if (dp->conf.regime == FE_REGIME_PFC)
				fprintf(f, " %14" PRIu64, FE_CNT_GET(g->hl[i].storms));
			fputc('\n', f);
		}
	fprintf(f, "%-8s %" PRIu64 " deadlock%s", "graph", nev, nev == 1 ? "" : "s");
	if (nev) {
		const struct fe_graph_deadlock *e = &g->ev[(nev - 1) % FE_GRAPH_EVENTS];

		fprintf(f, ", the last a cycle of");
		for (unsigned i = 0; i < e->n && i < FE_GRAPH_CYCLE; i++)
			fprintf(f, " %s", g->hl[e->hop[i] % g->nhl].name);
	}
	if (dp->conf.regime == FE_REGIME_CREDIT)
		fprintf(f, "; %" PRIu64 " output stalls (HOQLife)", FE_CNT_GET(g->stalls));
	fputc('\n', f);
}

/* A link between switches, i (its `graph.fabric_links[]` entry; telemetry's /fabemu/link). */
json_t *
fe_report_hop_doc(const struct fe_dp *dp, unsigned i)
{
	const struct fe_graph *g = dp->graph;
	const struct fe_counter_desc *names = fe_report_lane_counters(dp);
	const struct fe_hoplink *h = &g->hl[i];
	json_t *o = link_fields_json(h->name, &dp->desc.hop[i].link, &h->row.l, &h->row.x);
	json_t *lanes = json_array();

	/* its receiving switch's input: what it holds from it, pauses, credits */
	for (unsigned l = 0; names && l < dp->conf.lanes; l++) {
		struct fe_lane_counters c;
		json_t *x = json_pack("{s:i}", "lane", l);

		fe_report_lane(dp, dp->nports + i, l, &c);
		put_fields(x, &c, names);
		json_array_append_new(lanes, x);
	}
	json_object_set_new(o, "lanes", lanes);
	/* a link that loses everything is down; routes go round it after the
	 * failover time (docs/topologies.md) */
	json_object_set_new(o, "down", json_boolean(fe_graph_link_down(h)));
	json_object_set_new(o, "failovers", u64(FE_CNT_GET(h->failovers)));
	if (dp->conf.regime == FE_REGIME_LOSSY) /* taken behind a later offer */
		json_object_set_new(o, "behind_pkts", u64(FE_CNT_GET(h->behind)));
	if (g->ntrunks) /* split across boxes: does this box model it (send it)? */
		json_object_set_new(o, "sent_here",
				    json_boolean(h->side == FE_HL_HERE || h->side == FE_HL_SEND));
	if (dp->conf.regime == FE_REGIME_PFC) {
		json_object_set_new(o, "watchdog_storms", u64(FE_CNT_GET(h->storms)));
		json_object_set_new(o, "watchdog_forwarded", u64(FE_CNT_GET(h->wd_forwarded)));
	}
	return o;
}

/* Several switches (fe_graph.h): the links between them, and the path choice. */
static json_t *
graph_json(const struct fe_dp *dp)
{
	const struct fe_graph *g = dp->graph;
	json_t *links = json_array(), *ooo = json_array(), *dl = json_array(), *doc;
	uint64_t nev = __atomic_load_n(&g->nev, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < g->nhl; i++)
		json_array_append_new(links, fe_report_hop_doc(dp, i));
	for (unsigned p = 0; p < dp->nports; p++)
		json_array_append_new(ooo, u64(FE_CNT_GET(g->ooo[p])));
	/* the last FE_GRAPH_EVENTS deadlocks, oldest first */
	for (uint64_t k = nev > FE_GRAPH_EVENTS ? nev - FE_GRAPH_EVENTS : 0; k < nev; k++) {
		const struct fe_graph_deadlock *e = &g->ev[k % FE_GRAPH_EVENTS];
		json_t *cyc = json_array();

		for (unsigned i = 0; i < e->n && i < FE_GRAPH_CYCLE; i++)
			json_array_append_new(cyc, json_string(g->hl[e->hop[i] % g->nhl].name));
		json_array_append_new(dl,
				      json_pack("{s:f, s:o}", "at_s",
						e->at > dp->start_tsc
							? (double)(e->at - dp->start_tsc) / dp->hz
							: 0.0,
						"cycle", cyc));
	}
	doc = json_pack("{s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "switches", g->nsw, "path",
			fe_path_name(g->path), "fabric_links", links, "out_of_order", ooo,
			"flowlets", u64(FE_CNT_GET(g->flowlets)), "deadlock_count", u64(nev),
			"deadlocks", dl, "ecmp_groups", ecmp_json(g));
	if (dp->conf.regime == FE_REGIME_CREDIT)
		json_object_set_new(doc, "vl_stalls", u64(FE_CNT_GET(g->stalls)));
	/* each switch's packet memory (its egress queues'): the top level's switch_buffer is
	 * their sum */
	{
		json_t *pools = json_array();

		for (unsigned s = 0; s < g->nsw; s++)
			json_array_append_new(
				pools, json_pack("{s:s, s:o, s:o, s:o}", "switch", g->sw_name[s],
						 "limit_bytes", u64(g->pool[s].limit), "used_bytes",
						 u64(FE_CNT_GET(g->pool[s].used)), "peak_bytes",
						 u64(FE_CNT_GET(g->pool[s].peak))));
		json_object_set_new(doc, "switch_buffers", pools);
	}
	/* split across boxes (docs/scale-out.md): the links to other boxes ending here */
	if (g->ntrunks) {
		json_t *tr = json_array();

		for (unsigned t = 0; t < g->ntrunks; t++) {
			const struct fe_trunk *x = &g->trunk[t];
			json_t *o = json_pack(
				"{s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				"link", g->hl[x->send].lname, "port", x->port, "latency_ns",
				u64(fe_ticks_to_ns(x->lat_ticks, dp->hz)), "tx_frames",
				u64(FE_CNT_GET(x->tx_frames)), "rx_frames",
				u64(FE_CNT_GET(x->rx_frames)), "tx_pfc", u64(FE_CNT_GET(x->tx_pfc)),
				"rx_pfc", u64(FE_CNT_GET(x->rx_pfc)), "tx_credit",
				u64(FE_CNT_GET(x->tx_credit)), "rx_credit",
				u64(FE_CNT_GET(x->rx_credit)), "tx_full",
				u64(FE_CNT_GET(x->tx_full)), "rx_bad", u64(FE_CNT_GET(x->rx_bad)),
				"nombuf", u64(FE_CNT_GET(x->nombuf)), "probes",
				u64(FE_CNT_GET(x->probes)));

			json_object_set_new(o, "echoes", u64(FE_CNT_GET(x->echoes)));
			json_object_set_new(o, "rx_stopped", u64(FE_CNT_GET(x->rx_stopped)));

			/* the port's own losses: what its ring or the pool could not take, since
			 * the last reset, as a host port's */
			eth_json(o, x->port);
			json_array_append_new(tr, o);
		}
		json_object_set_new(doc, "trunks", tr);
	}
	return doc;
}

json_t *
fe_report_doc(const struct fe_dp *dp)
{
	json_t *doc, *ports = json_array(), *links = json_array(), *idle, *xsk;
	struct fe_switch_buffer buf;

	for (unsigned i = 0; i < dp->nports; i++)
		json_array_append_new(ports, fe_report_port_doc(dp, i, true));
	for (unsigned n = 0; n < fe_dp_port_links(dp); n++)
		json_array_append_new(links, link_json(dp, n));
	idle = json_pack("{s:o}", "idle_sleep_ns", u64(dp->conf.idle_sleep_ns));
	put_fields(idle, &dp->idle, idle_counters);
	put_quantiles(idle, "pass", dp->idle.pass_hist);
	json_object_set_new(idle, "pass_hist_ns", hist_json(dp->idle.pass_hist, FE_QHIST_BUCKETS));
	put_quantiles(idle, "wake_late", dp->idle.wake_late_hist);
	json_object_set_new(idle, "wake_late_hist_ns",
			    hist_json(dp->idle.wake_late_hist, FE_QHIST_BUCKETS));
	fe_report_switch_buffer(dp, &buf);
	doc = json_pack("{s:f, s:o, s:o, s:{s:o, s:o, s:o}, s:o, s:o, s:o, s:s, s:i, s:o, s:o}",
			"uptime_s", uptime(dp), "tsc_hz", u64(dp->hz), "seed", u64(dp->conf.seed),
			"switch_buffer", "limit_bytes", u64(buf.limit), "used_bytes", u64(buf.used),
			"peak_bytes", u64(buf.peak), "ports", ports, "links", links, "switch",
			switch_json(dp), "regime", fe_regime_name(dp->conf.regime), "lanes",
			dp->conf.lanes, "lane_counters", lanes_json(dp), "idle", idle);
	json_object_set_new(doc, "lcores", lcores_json());
	if (dp->topology)
		json_object_set_new(doc, "graph", graph_json(dp));
	/* a gauge read while the lcore runs: the mbufs in its cache count as in use */
	json_object_set_new(doc, "mbufs",
			    json_pack("{s:i, s:i}", "pool", dp->pool->size, "in_use",
				      rte_mempool_in_use_count(dp->pool)));
	if ((xsk = xsk_json()) != NULL)
		json_object_set_new(doc, "xsk", xsk);
	if (dp->meas != NULL)
		json_object_set_new(doc, "measure", measure_json(dp));
	return doc;
}

int
fe_report_json(FILE *f, const struct fe_dp *dp)
{
	json_t *doc = fe_report_doc(dp);
	int rc = json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);

	json_decref(doc);
	if (rc == 0 && fputc('\n', f) == EOF)
		rc = -1;
	return rc == 0 && fflush(f) == 0 ? 0 : -1;
}
