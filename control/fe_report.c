/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "fe_report.h"
#include "fe_time.h"
#include "fe_units.h"

#define C(type, field)                                                                             \
	{                                                                                          \
#field, offsetof(struct type, field)                                               \
	}

static const struct fe_counter_desc port_counters[] = {
	C(fe_port_stats, rx_pkts),
	C(fe_port_stats, rx_bytes),
	C(fe_port_stats, tx_pkts),
	C(fe_port_stats, tx_bytes),
	C(fe_port_stats, tx_busy),
	C(fe_port_stats, rx_held),
	C(fe_port_stats, pfc_frames_out),
	C(fe_port_stats, pfc_frames_lost),
	{NULL, 0},
};

#define DROP(cause, name)                                                                          \
	{"drop_" name "_pkts", offsetof(struct fe_link_stats, drop_pkts[cause])},                  \
	{                                                                                          \
		"drop_" name "_bytes", offsetof(struct fe_link_stats, drop_bytes[cause])           \
	}

_Static_assert(FE_LINK_DROP__MAX == 9, "list every drop cause in link_counters");

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
	C(fe_link_stats, ecn_marked),
	C(fe_link_stats, held_ns),
	C(fe_link_stats, q_pkts),
	C(fe_link_stats, q_bytes),
	C(fe_link_stats, q_pkts_peak),
	C(fe_link_stats, q_bytes_peak),
	C(fe_link_stats, wire_pkts),
	{NULL, 0},
};

static const struct fe_counter_desc sw_counters[] = {
	C(fe_sw_stats, unicast),
	C(fe_sw_stats, flooded),
	C(fe_sw_stats, filtered),
	C(fe_sw_stats, runts),
	C(fe_sw_stats, nombuf),
	C(fe_sw_stats, handoff_full),
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
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

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
	const struct fe_eth_counters *b = &eth_base[port_id % RTE_MAX_ETHPORTS];

	eth_raw(port_id, c);
	c->imissed -= RTE_MIN(c->imissed, b->imissed);
	c->ierrors -= RTE_MIN(c->ierrors, b->ierrors);
	c->oerrors -= RTE_MIN(c->oerrors, b->oerrors);
	c->rx_nombuf -= RTE_MIN(c->rx_nombuf, b->rx_nombuf);
}

void
fe_report_eth_reset(uint16_t port_id)
{
	eth_raw(port_id, &eth_base[port_id % RTE_MAX_ETHPORTS]);
}

void
fe_report_lock(void)
{
	pthread_mutex_lock(&report_lock);
}

void
fe_report_unlock(void)
{
	pthread_mutex_unlock(&report_lock);
}

const struct fe_link *
fe_report_link(const struct fe_dp *dp, unsigned n, const struct fe_link_params **params, char *name,
	       size_t len)
{
	const struct fe_port *p = &dp->ports[n / 2];
	int up = (n % 2) == 0;

	snprintf(name, len, "%u.%s", n / 2, up ? "up" : "down");
	*params = up ? &p->up_def.link : &p->down_def.link;
	return up ? &p->up : &p->down;
}

const struct fe_linkdef *
fe_report_linkdef(const struct fe_dp *dp, unsigned n)
{
	const struct fe_port *p = &dp->ports[n / 2];

	return n % 2 == 0 ? &p->up_def : &p->down_def;
}

const struct fe_linkx *
fe_report_linkx(const struct fe_dp *dp, unsigned n)
{
	const struct fe_port *p = &dp->ports[n / 2];

	return n % 2 == 0 ? &p->up_x : &p->down_x;
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
	if (d->jitter_ns)
		ADD(", jitter %s", fe_fmt_time(d->jitter_ns, t, sizeof(t)));
	if (d->drop_count)
		ADD(", drop %" PRIu64 "/%" PRIu64, d->drop_first, d->drop_count);
	if (d->match[0])
		ADD(", match '%s'", d->match);
#undef ADD
	return buf;
}

void
fe_report_lane(const struct fe_dp *dp, unsigned port, unsigned lane, struct fe_lane_counters *c)
{
	const struct fe_port *p = &dp->ports[port];

	memset(c, 0, sizeof(*c));
	c->held_bytes = FE_CNT_GET(dp->held[port * FE_PFC_PRIOS + lane]);
	if (dp->conf.regime == FE_REGIME_PFC) {
		c->pause_frames = FE_CNT_GET(p->pfc.prio[lane].pause_frames);
		c->xoff_events = FE_CNT_GET(p->pfc.prio[lane].xoff_events);
		c->paused_ns =
			fe_ticks_to_ns(fe_pfc_paused(&p->pfc, (uint8_t)lane, rte_rdtsc()), dp->hz);
	} else if (dp->conf.regime == FE_REGIME_CREDIT) {
		c->credits = p->credit.avail[lane];
		c->credits_min = FE_CNT_GET(p->credit.avail_min[lane]);
		c->stall_ns = fe_ticks_to_ns(FE_CNT_GET(p->credit.stall_ticks[lane]), dp->hz);
		c->iq_depth = FE_CNT_GET(p->iq[lane].depth);
		c->iq_peak = FE_CNT_GET(p->iq[lane].peak);
		c->iq_peak_blocks = FE_CNT_GET(p->iq[lane].peak_blocks);
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
	L(credits), L(credits_min),    L(stall_ns), L(iq_depth),
	L(iq_peak), L(iq_peak_blocks), {NULL, 0},
};

const struct fe_counter_desc *
fe_report_lane_counters(const struct fe_dp *dp)
{
	return dp->conf.regime == FE_REGIME_PFC	     ? lane_counters_pfc
	       : dp->conf.regime == FE_REGIME_CREDIT ? lane_counters_credit
						     : NULL;
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

/* The valid MAC table entries. Read while the lcore may write: a report, not a snapshot. */
static void
json_mac_table(FILE *f, const struct fe_dp *dp)
{
	uint64_t now = rte_rdtsc();
	uint8_t a[6];
	uint16_t port;
	int first = 1;

	fprintf(f, ", \"mac_table\": [");
	for (unsigned i = 0; i < FE_MAC_SLOTS; i++) {
		if (!fe_mac_entry(dp->mac, i, now, a, &port))
			continue;
		fprintf(f, "%s{\"mac\": \"%02x:%02x:%02x:%02x:%02x:%02x\", \"port\": %u}",
			first ? "" : ", ", a[0], a[1], a[2], a[3], a[4], a[5], port);
		first = 0;
	}
	fputc(']', f);
}

static void
json_fields(FILE *f, const void *stats, const struct fe_counter_desc *d)
{
	for (; d->name; d++)
		fprintf(f, ", \"%s\": %" PRIu64, d->name, fe_report_get(stats, d));
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
		const struct fe_pfc *p = &dp->ports[i].pfc;

		fprintf(f,
			"pfc port %u: xoff %" PRIu64 " B, xon %" PRIu64 " B, headroom %" PRIu64
			" B, delay %" PRIu64 " ns\n",
			i, p->xoff, p->xon, p->headroom, fe_ticks_to_ns(p->delay_ticks, dp->hz));
	}
	if (dp->conf.regime == FE_REGIME_CREDIT)
		fprintf(f,
			"credit: %u blocks of 64 B per lane, return after %" PRIu64
			" ns (0.up's), HOQLife %" PRIu64 " ns, output buffer %u pkts\n",
			dp->ports[0].credit.total,
			fe_ticks_to_ns(dp->ports[0].credit.return_ticks, dp->hz),
			fe_ticks_to_ns(dp->hoq_ticks, dp->hz), dp->conf.credit.out_pkts);
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

static void
json_regime(FILE *f, const struct fe_dp *dp)
{
	const struct fe_counter_desc *names = fe_report_lane_counters(dp);
	int first = 1;

	fprintf(f, ", \"regime\": \"%s\", \"lanes\": %u, \"lane_counters\": [",
		fe_regime_name(dp->conf.regime), dp->conf.lanes);
	for (unsigned i = 0; names && i < dp->nports; i++)
		for (unsigned l = 0; l < dp->conf.lanes; l++) {
			struct fe_lane_counters c;

			fe_report_lane(dp, i, l, &c);
			fprintf(f, "%s{\"port\": %u, \"lane\": %u", first ? "" : ", ", i, l);
			json_fields(f, &c, names);
			fputc('}', f);
			first = 0;
		}
	fputc(']', f);
}

static double
uptime(const struct fe_dp *dp)
{
	return (double)(rte_rdtsc() - dp->start_tsc) / (double)dp->hz;
}

void
fe_report_table(FILE *f, const struct fe_dp *dp)
{
	char name[32], r[32], t[32];
	const struct fe_link_params *lp;

	fprintf(f, "fabemu-dp counters after %.3f s (seed %" PRIu64 ")\n", uptime(dp),
		dp->conf.seed);
	table_head(f, "port", port_counters);
	for (unsigned i = 0; i < dp->nports; i++) {
		snprintf(name, sizeof(name), "%u", i);
		table_row(f, name, &dp->ports[i].st, port_counters);
	}
	fprintf(f, "%-8s %-24s %s\n", "port", "device", "imissed ierrors oerrors rx_nombuf");
	for (unsigned i = 0; i < dp->nports; i++) {
		struct fe_eth_counters e;

		fe_report_eth(dp->ports[i].port_id, &e);
		fprintf(f, "%-8u %-24s %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %9" PRIu64 "\n", i,
			dp->ports[i].name, e.imissed, e.ierrors, e.oerrors, e.rx_nombuf);
	}
	fprintf(f, "%-8s %-10s %-8s %-12s %s\n", "link", "rate", "delay", "buffer", "buffer-pkts");
	for (unsigned n = 0; n < 2 * dp->nports; n++) {
		fe_report_link(dp, n, &lp, name, sizeof(name));
		fprintf(f, "%-8s %-10s %-8s %-12" PRIu64 " %u\n", name,
			fe_fmt_rate(lp->rate_bps, r, sizeof(r)),
			fe_fmt_time(lp->delay_ns, t, sizeof(t)), lp->limit_bytes, lp->limit_pkts);
	}
	table_head(f, "link", link_counters);
	for (unsigned n = 0; n < 2 * dp->nports; n++) {
		const struct fe_link *l = fe_report_link(dp, n, &lp, name, sizeof(name));

		table_row(f, name, &l->st, link_counters);
	}
	fprintf(f, "%-8s %s\n", "link",
		"qdepth_p50 qdepth_p99 sojourn_p50_ns sojourn_p99_ns sojourn_max_ns (<= log2 "
		"bucket "
		"bounds)");
	for (unsigned n = 0; n < 2 * dp->nports; n++) {
		const struct fe_link *l = fe_report_link(dp, n, &lp, name, sizeof(name));

		fprintf(f,
			"%-8s %10" PRIu64 " %10" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64
			"\n",
			name, fe_report_hist_quantile(l->st.qdepth_hist, 0.5),
			fe_report_hist_quantile(l->st.qdepth_hist, 0.99),
			fe_report_hist_quantile(l->st.sojourn_hist, 0.5),
			fe_report_hist_quantile(l->st.sojourn_hist, 0.99),
			fe_report_hist_quantile(l->st.sojourn_hist, 1.0));
	}
	table_head(f, "switch", sw_counters);
	table_row(f, "", &dp->sw, sw_counters);
	fprintf(f, "mac: learned %" PRIu64 " moves %" PRIu64 " table-full %" PRIu64 "\n",
		FE_CNT_GET(dp->mac->learned), FE_CNT_GET(dp->mac->moves),
		FE_CNT_GET(dp->mac->full));
	table_regime(f, dp);
	table_head(f, "idle", idle_counters);
	table_row(f, "", &dp->idle, idle_counters);
	fflush(f);
}

static void
json_hist(FILE *f, const char *name, const fe_counter_t *h)
{
	fprintf(f, ", \"%s\": [", name);
	for (unsigned i = 0; i < FE_HIST_BUCKETS; i++)
		fprintf(f, "%s%" PRIu64, i ? ", " : "", FE_CNT_GET(h[i]));
	fputc(']', f);
}

uint64_t
fe_report_hist_quantile(const fe_counter_t *h, double q)
{
	uint64_t total = 0, seen = 0;

	for (unsigned i = 0; i < FE_HIST_BUCKETS; i++)
		total += FE_CNT_GET(h[i]);
	if (total == 0)
		return 0;
	for (unsigned i = 0; i < FE_HIST_BUCKETS; i++) {
		seen += FE_CNT_GET(h[i]);
		if ((double)seen >= q * (double)total)
			return i == 0 ? 0 : 1ULL << i; /* the bucket's upper bound */
	}
	return 1ULL << (FE_HIST_BUCKETS - 1);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* ", "NAME": {"min": ..., "max": ...}: quantiles in ns of n tick samples (none: nothing) */
static void
json_quantiles(FILE *f, const char *name, const uint32_t *samples, uint64_t n, uint64_t hz)
{
	static const double q[] = {0, 0.5, 0.9, 0.99, 0.999, 1};
	static const char *const qn[] = {"min", "p50", "p90", "p99", "p999", "max"};
	uint32_t *v = n ? malloc(n * sizeof(*v)) : NULL;

	if (v == NULL)
		return;
	memcpy(v, samples, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u32);
	fprintf(f, ", \"%s\": {", name);
	for (unsigned i = 0; i < RTE_DIM(q); i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", qn[i],
			fe_ticks_to_ns(v[(size_t)(q[i] * (double)(n - 1))], hz));
	fputc('}', f);
	free(v);
}

/*
 * --measure: the distribution of RX-to-TX times (ns) of the last samples, of the TX
 * calls' durations, and each port's TX rate on the wire between its first and last
 * measured burst.
 */
static void
json_measure(FILE *f, const struct fe_dp *dp)
{
	const struct fe_measure *m = dp->meas;
	uint64_t n;

	if (m == NULL)
		return;
	n = RTE_MIN(m->n, (uint64_t)m->mask + 1);
	fprintf(f, ", \"measure\": {\"samples\": %" PRIu64 ", \"kept\": %" PRIu64, m->n, n);
	json_quantiles(f, "rx_to_tx_ns", m->ticks, n, dp->hz);
	fprintf(f, ", \"tx_calls\": %" PRIu64, m->calls);
	json_quantiles(f, "tx_call_ns", m->call_ticks, RTE_MIN(m->calls, (uint64_t)m->mask + 1),
		       dp->hz);
	fprintf(f, ", \"ports\": [");
	for (unsigned i = 0; i < dp->nports && i < FE_MEASURE_PORTS; i++) {
		const struct fe_measure_port *p = &m->port[i];
		double secs = (double)p->busy_ticks / (double)dp->hz;

		fprintf(f,
			"%s{\"port\": %u, \"tx_pkts\": %" PRIu64 ", \"tx_wire_bytes\": %" PRIu64
			", \"busy_s\": %.6f, \"tx_wire_bps\": %.0f}",
			i ? ", " : "", i, p->pkts, p->wire_bytes, secs,
			secs > 0 ? (double)p->busy_bytes * 8 / secs : 0.0);
	}
	fprintf(f, "]}");
}

void
fe_report_json(FILE *f, const struct fe_dp *dp)
{
	const struct fe_link_params *lp;
	char name[32];

	fprintf(f,
		"{\"uptime_s\": %.6f, \"tsc_hz\": %" PRIu64 ", \"seed\": %" PRIu64
		", \"switch_buffer\": {\"limit_bytes\": %" PRIu64 ", \"used_bytes\": %" PRIu64
		", \"peak_bytes\": %" PRIu64 "}, \"ports\": [",
		uptime(dp), dp->hz, dp->conf.seed, dp->pool_shared.limit,
		FE_CNT_GET(dp->pool_shared.used), FE_CNT_GET(dp->pool_shared.peak));
	for (unsigned i = 0; i < dp->nports; i++) {
		struct fe_eth_counters e;

		fe_report_eth(dp->ports[i].port_id, &e);
		fprintf(f, "%s{\"port\": %u, \"device\": \"%s\"", i ? ", " : "", i,
			dp->ports[i].name);
		json_fields(f, &dp->ports[i].st, port_counters);
		fprintf(f,
			", \"imissed\": %" PRIu64 ", \"ierrors\": %" PRIu64
			", \"oerrors\": %" PRIu64 ", \"rx_nombuf\": %" PRIu64 "}",
			e.imissed, e.ierrors, e.oerrors, e.rx_nombuf);
	}
	fprintf(f, "], \"links\": [");
	for (unsigned n = 0; n < 2 * dp->nports; n++) {
		const struct fe_link *l = fe_report_link(dp, n, &lp, name, sizeof(name));

		fprintf(f,
			"%s{\"link\": \"%s\", \"rate_bps\": %" PRIu64 ", \"delay_ns\": %" PRIu64
			", \"buffer_bytes\": %" PRIu64 ", \"buffer_pkts\": %u",
			n ? ", " : "", name, lp->rate_bps, lp->delay_ns, lp->limit_bytes,
			lp->limit_pkts);
		json_fields(f, &l->st, link_counters);
		fprintf(f, ", \"lane_drop_pkts\": [");
		for (unsigned k = 0; k < FE_LINK_LANES; k++)
			fprintf(f, "%s%" PRIu64, k ? ", " : "",
				FE_CNT_GET(l->st.lane_drop_pkts[k]));
		fputc(']', f);
		json_hist(f, "qdepth_hist_pkts", l->st.qdepth_hist);
		json_hist(f, "sojourn_hist_ns", l->st.sojourn_hist);
		fprintf(f, ", \"filter_hits\": %" PRIu64 "}",
			FE_CNT_GET(fe_report_linkx(dp, n)->filter_hits));
	}
	fprintf(f,
		"], \"switch\": {\"mac_learned\": %" PRIu64 ", \"mac_moves\": %" PRIu64
		", \"mac_table_full\": %" PRIu64,
		FE_CNT_GET(dp->mac->learned), FE_CNT_GET(dp->mac->moves),
		FE_CNT_GET(dp->mac->full));
	json_mac_table(f, dp);
	json_fields(f, &dp->sw, sw_counters);
	fputc('}', f);
	json_regime(f, dp);
	fprintf(f, ", \"idle\": {\"idle_sleep_ns\": %" PRIu64, dp->conf.idle_sleep_ns);
	json_fields(f, &dp->idle, idle_counters);
	fputc('}', f);
	json_measure(f, dp);
	fprintf(f, "}\n");
	fflush(f);
}
