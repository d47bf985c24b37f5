/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "fe_graph.h"
#include "fe_ctlif.h"
#include "fe_report.h"
#include "fe_telemetry.h"

/* Written once before registration, cleared at shutdown; the telemetry thread reads it. */
static const struct fe_dp *tel_dp;

static const struct fe_dp *
dp_get(void)
{
	return __atomic_load_n(&tel_dp, __ATOMIC_ACQUIRE);
}

static void
add_counters(struct rte_tel_data *d, const void *stats, const struct fe_counter_desc *c)
{
	for (; c->name; c++)
		rte_tel_data_add_dict_u64(d, c->name, fe_report_get(stats, c));
}

static int
tel_info(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	const struct fe_dp *dp = dp_get();
	struct fe_switch_buffer buf;

	if (dp == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "ports", dp->nports);
	rte_tel_data_add_dict_u64(d, "tsc_hz", dp->hz);
	rte_tel_data_add_dict_u64(d, "uptime_ns",
				  (rte_rdtsc() - dp->start_tsc) * (1000000000.0 / (double)dp->hz));
	rte_tel_data_add_dict_u64(d, "idle_sleep_ns", dp->conf.idle_sleep_ns);
	rte_tel_data_add_dict_u64(d, "seed", dp->conf.seed);
	fe_report_switch_buffer(dp, &buf);
	rte_tel_data_add_dict_u64(d, "switch_buffer_limit", buf.limit);
	rte_tel_data_add_dict_u64(d, "switch_buffer_used", buf.used);
	rte_tel_data_add_dict_u64(d, "switch_buffer_peak", buf.peak);
	return 0;
}

static int
tel_ports(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	const struct fe_dp *dp = dp_get();

	if (dp == NULL)
		return -ENODEV;
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	for (unsigned i = 0; i < dp->nports; i++)
		rte_tel_data_add_array_int(d, (int)i);
	return 0;
}

/* Parse "N" into a port index, or -EINVAL. */
static int
port_param(const struct fe_dp *dp, const char *params, const char **rest)
{
	char *end;
	long n;

	if (params == NULL || *params < '0' || *params > '9')
		return -EINVAL;
	n = strtol(params, &end, 10);
	if (n < 0 || n >= (long)dp->nports)
		return -EINVAL;
	*rest = end;
	return (int)n;
}

/* DPDK 22.11's telemetry has no signed 64-bit value: an int, saturated. */
static int
clamp_int(int64_t v)
{
	return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/* The entries of JSON object o into d, flat: an object's keys joined to its own by "_"
 * (edge_wait.p99_ns is edge_wait_p99_ns); arrays (histograms, flows) are the document's. */
static void
add_flat(struct rte_tel_data *d, const char *pre, json_t *o)
{
	const char *k;
	json_t *v;
	char key[RTE_TEL_MAX_STRING_LEN];

	json_object_foreach(o, k, v)
	{
		snprintf(key, sizeof(key), "%s%s", pre, k);
		if (json_is_object(v)) {
			char sub[sizeof(key) + 1];

			snprintf(sub, sizeof(sub), "%s_", key);
			add_flat(d, sub, v);
		} else if (json_is_string(v)) {
			rte_tel_data_add_dict_string(d, key, json_string_value(v));
		} else if (json_is_boolean(v)) {
			rte_tel_data_add_dict_u64(d, key, json_is_true(v));
		} else if (json_is_integer(v)) {
			json_int_t n = json_integer_value(v);

			if (n >= 0)
				rte_tel_data_add_dict_u64(d, key, (uint64_t)n);
			else
				rte_tel_data_add_dict_int(d, key, clamp_int(n));
		}
	}
}

/* /fabemu/port,N: the document's port N (fe_report_port_doc()), flat. */
static int
tel_port(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct fe_dp *dp = dp_get();
	const char *rest;
	json_t *o;
	int n;

	if (dp == NULL)
		return -ENODEV;
	n = port_param(dp, params, &rest);
	if (n < 0 || *rest != '\0')
		return -EINVAL;
	o = fe_report_port_doc(dp, (unsigned)n, false);
	if (o == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	add_flat(d, "", o);
	json_decref(o);
	return 0;
}

static int
tel_links(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	const struct fe_dp *dp = dp_get();
	const struct fe_link_params *lp;
	char name[32];

	if (dp == NULL)
		return -ENODEV;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (unsigned n = 0; n < fe_dp_port_links(dp); n++) {
		fe_report_link(dp, n, &lp, name, sizeof(name));
		rte_tel_data_add_array_string(d, name);
	}
	/* several switches: the links between them, each direction ("leaf1>spine2") */
	for (unsigned i = 0; dp->graph && i < dp->graph->nhl; i++)
		rte_tel_data_add_array_string(d, dp->graph->hl[i].name);
	return 0;
}

/* Input i's (a port, or nports + a link between switches) lane counters into d, each key
 * prefix then l<lane>_<counter>; 0, or -ENOSPC if d has no room for them all. */
static int
add_lanes(struct rte_tel_data *d, const struct fe_dp *dp, unsigned i, const char *prefix)
{
	const struct fe_counter_desc *names = fe_report_lane_counters(dp);
	char key[RTE_TEL_MAX_STRING_LEN];

	for (unsigned l = 0; names && l < dp->conf.lanes; l++) {
		struct fe_lane_counters c;

		fe_report_lane(dp, i, l, &c);
		for (const struct fe_counter_desc *n = names; n->name; n++) {
			snprintf(key, sizeof(key), "%sl%u_%s", prefix, l, n->name);
			if (rte_tel_data_add_dict_u64(d, key, fe_report_get(&c, n)) < 0)
				return -ENOSPC;
		}
	}
	return 0;
}

/* /fabemu/link for a link between switches, by its name ("leaf1>spine2"). */
static int
tel_hop(const struct fe_dp *dp, const char *params, struct rte_tel_data *d)
{
	int i = fe_graph_link_by_name(dp->graph, params);

	if (i >= 0) {
		json_t *o;

		o = fe_report_hop_doc(dp, (unsigned)i); /* it locks the link's parameters */
		if (o == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(d);
		add_flat(d, "", o);
		json_decref(o);
		/* its lanes (the document's lanes[]): what its far switch holds from it */
		return add_lanes(d, dp, dp->nports + (unsigned)i, "");
	}
	return -EINVAL;
}

static int
tel_link(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct fe_dp *dp = dp_get();
	const struct fe_link_params *lp;
	struct fe_report_q3 late;
	const struct fe_link *l;
	const char *rest;
	char name[32];
	unsigned idx;
	int n;

	if (dp == NULL)
		return -ENODEV;
	if (params && !isdigit((unsigned char)params[0])) /* a link between switches */
		return tel_hop(dp, params, d);
	n = port_param(dp, params, &rest);
	if (n < 0)
		return -EINVAL;
	if (strcmp(rest, ".up") == 0)
		idx = fe_dp_link_id(dp, FE_LINK_UP, (unsigned)n);
	else if (strcmp(rest, ".down") == 0)
		idx = fe_dp_link_id(dp, FE_LINK_DOWN, (unsigned)n);
	else
		return -EINVAL;
	l = fe_report_link(dp, idx, &lp, name, sizeof(name));
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "link", name);
	fe_ctlif_lock();
	rte_tel_data_add_dict_u64(d, "rate_bps", lp->rate_bps);
	rte_tel_data_add_dict_u64(d, "delay_ns", lp->delay_ns);
	rte_tel_data_add_dict_u64(d, "buffer_bytes", lp->limit_bytes);
	rte_tel_data_add_dict_u64(d, "buffer_pkts", lp->limit_pkts);
	fe_ctlif_unlock();
	add_counters(d, &l->st, fe_report_counters(FE_OBJ_LINK));
	fe_report_qhist_q3(l->st.late_hist, &late);
	if (late.n) { /* no percentile of nothing */
		rte_tel_data_add_dict_u64(d, "late_p50_ns", late.p50);
		rte_tel_data_add_dict_u64(d, "late_p99_ns", late.p99);
		rte_tel_data_add_dict_u64(d, "late_max_ns", late.max);
	}
	rte_tel_data_add_dict_u64(d, "filter_hits",
				  FE_CNT_GET(fe_report_linkx(dp, idx)->filter_hits));
	return 0;
}

static int
tel_switch(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	const struct fe_dp *dp = dp_get();
	struct fe_sched sc;

	if (dp == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "mac_learned", FE_CNT_GET(dp->mac->learned));
	rte_tel_data_add_dict_u64(d, "mac_moves", FE_CNT_GET(dp->mac->moves));
	rte_tel_data_add_dict_u64(d, "mac_table_full", FE_CNT_GET(dp->mac->full));
	add_counters(d, &dp->sw, fe_report_counters(FE_OBJ_SW));
	add_counters(d, &dp->idle, fe_report_counters(FE_OBJ_IDLE));
	fe_kernel_read_sched(fe_report_kernel(), &sc);
	rte_tel_data_add_dict_u64(d, "lcore_threads", sc.threads);
	rte_tel_data_add_dict_u64(d, "lcore_preempted", sc.preempted);
	rte_tel_data_add_dict_u64(d, "lcore_yielded", sc.yielded);
	rte_tel_data_add_dict_u64(d, "lcore_runq_wait_ns", sc.runq_wait_ns);
	rte_tel_data_add_dict_u64(d, "lcore_run_ns", sc.run_ns);
	rte_tel_data_add_dict_u64(d, "lcore_cpu_steal_ns", sc.cpu_steal_ns);
	rte_tel_data_add_dict_u64(d, "lcore_cpu_irq_ns", sc.cpu_irq_ns);
	rte_tel_data_add_dict_u64(d, "lcore_cpu_softirq_ns", sc.cpu_softirq_ns);
	return 0;
}

/*
 * /fabemu/regime: the regime, its lanes and the ports' lane counters, flat keys
 * p<port>_l<lane>_<counter> (telemetry dicts cannot nest in 22.11) for as many ports as a
 * dictionary holds (256 entries; ports_shown says how many); /fabemu/regime,N: port N's
 * alone. A link between switches has its own in /fabemu/link,NAME.
 */
static int
tel_regime(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct fe_dp *dp = dp_get();
	const struct fe_counter_desc *names;
	unsigned per_port = 0, from = 0, to, fit;
	char prefix[32];

	if (dp == NULL)
		return -ENODEV;
	to = dp->nports;
	if (params != NULL && *params != '\0') {
		const char *rest;
		int n = port_param(dp, params, &rest);

		if (n < 0 || *rest != '\0')
			return -EINVAL;
		from = (unsigned)n;
		to = from + 1;
	}
	names = fe_report_lane_counters(dp);
	for (const struct fe_counter_desc *n = names; n && n->name; n++)
		per_port += dp->conf.lanes;
	/* regime, lanes and ports_shown, then the ports that fit whole */
	fit = per_port ? (RTE_TEL_MAX_DICT_ENTRIES - 3) / per_port : to - from;
	if (to - from > fit)
		to = from + fit;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "regime", fe_regime_name(dp->conf.regime));
	rte_tel_data_add_dict_u64(d, "lanes", dp->conf.lanes);
	rte_tel_data_add_dict_u64(d, "ports_shown", to - from);
	for (unsigned i = from; i < to; i++) {
		snprintf(prefix, sizeof(prefix), "p%u_", i);
		if (add_lanes(d, dp, i, prefix) < 0)
			return -ENOSPC;
	}
	return 0;
}

int
fe_telemetry_init(const struct fe_dp *dp)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{"/fabemu/info", tel_info, "Dataplane summary. No parameters."},
		{"/fabemu/ports", tel_ports, "List of port numbers. No parameters."},
		{"/fabemu/port", tel_port, "Counters of one port. Parameter: port number."},
		{"/fabemu/links", tel_links, "List of link names. No parameters."},
		{"/fabemu/link", tel_link,
		 "Parameters and counters of a link. Parameter: N.up, N.down, or a link between "
		 "switches (A>B)."},
		{"/fabemu/regime", tel_regime,
		 "Regime, per port/lane PFC or credit counters (p<port>_l<lane>_<name>, "
		 "ports_shown). Parameter: none or a port."},
		{"/fabemu/switch", tel_switch,
		 "Switch, MAC table, idle-loop and lcore scheduling counters. No parameters."},
	};
	int rc;

	__atomic_store_n(&tel_dp, dp, __ATOMIC_RELEASE);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		rc = rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn, cmds[i].help);
		if (rc < 0) { /* a help longer than RTE_TEL_MAX_STRING_LEN is refused too */
			fprintf(stderr, "fabemu-dp: telemetry: %s not registered: %s\n",
				cmds[i].cmd, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

void
fe_telemetry_stop(void)
{
	__atomic_store_n(&tel_dp, NULL, __ATOMIC_RELEASE);
}
