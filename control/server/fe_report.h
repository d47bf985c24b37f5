/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading the dataplane's counters for people and programs: one table of counter
 * names per object (port, link, switch, idle loop) drives the text table, the JSON
 * document and the telemetry replies alike, so they never disagree. Readers only
 * load counters (fe_counter.h); they never write the dataplane's memory.
 */
#ifndef FE_REPORT_H
#define FE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "fe_dp.h"
#include "fe_kernel.h"

struct fe_counter_desc {
	const char *name;
	size_t off; /* offset of an fe_counter_t in the object */
};

enum fe_obj {
	FE_OBJ_PORT, /* struct fe_port_stats */
	FE_OBJ_LINK, /* struct fe_link_stats */
	FE_OBJ_SW,   /* struct fe_sw_stats */
	FE_OBJ_IDLE, /* struct fe_idle_stats */
	FE_OBJ__MAX,
};

/* Counter names of one kind of object, NULL-terminated. */
const struct fe_counter_desc *fe_report_counters(enum fe_obj obj);

static inline uint64_t
fe_report_get(const void *stats, const struct fe_counter_desc *d)
{
	return FE_CNT_GET(*(const fe_counter_t *)((const char *)stats + d->off));
}

/* Port-level counters the PMD keeps (ring overflow at the edge, errors). */
struct fe_eth_counters {
	uint64_t imissed, ierrors, oerrors, rx_nombuf;
	/* the largest of the PMD's own counters of frames its NIC dropped (its extended
	 * statistics, not ethdev's generic ones): on receive, on transmit. The largest, not
	 * the sum: a PMD may count one loss under several names (a total, per priority) */
	uint64_t xdrops_rx, xdrops_tx;
};
/*
 * An extended statistic's name: one of a PMD's own counts of frames its NIC dropped, on
 * receive (1) or transmit (2, a name from "tx_"); 0: not one, or one of ethdev's generic
 * counters (rx_missed_errors, rx_q0_errors, ...), which imissed, ierrors, oerrors and
 * rx_nombuf already hold.
 */
int fe_report_xstat_drop(const char *name);
/*
 * What a port's NIC lost on receive, at least: imissed + rx_nombuf + ierrors, or its own
 * drop counters where they say more (they may count the same frames: never added).
 */
uint64_t fe_report_nic_lost_rx(const struct fe_eth_counters *e);
/* ... on transmit: oerrors, or its own drop counters where they say more */
uint64_t fe_report_nic_lost_tx(const struct fe_eth_counters *e);
void fe_report_eth(uint16_t port_id, struct fe_eth_counters *c);
/* Count the PMD's counters from now on (it keeps its own; fabemu only reads them). */
void fe_report_eth_reset(uint16_t port_id);

/* Link n of the engine (its row, fe_dp_row()), its name and its parameters as given. */
const struct fe_link *fe_report_link(const struct fe_dp *dp, unsigned n,
				     const struct fe_link_params **params, char *name, size_t len);

/* The definition of link n as the user gave it. */
const struct fe_linkdef *fe_report_linkdef(const struct fe_dp *dp, unsigned n);

/* ", loss 0.1%, ecn ..." for the impairments set in d ("" if none); returns buf. */
const char *fe_report_impairments(const struct fe_linkdef *d, char *buf, size_t len);

/* The impairment state of link n (filter hits). */
const struct fe_linkx *fe_report_linkx(const struct fe_dp *dp, unsigned n);

/* Per port and lane, for the lossless regimes (a snapshot: read with fe_report_get()). */
struct fe_lane_counters {
	uint64_t held_bytes;			       /* PFC: held from this port and priority */
	uint64_t pause_frames, xoff_events, paused_ns; /* PFC */
	uint64_t credits, credits_min, stall_ns;       /* credit: at the host adapter */
	uint64_t iq_depth, iq_peak;		       /* credit: switch input queue, packets */
	uint64_t iq_peak_blocks; /* credit: the input queue's peak in credit blocks */
	uint64_t iq_stopped;	 /* credit: frames the input queue held at exit, freed then */
	uint64_t credit_updates; /* credit, update set: messages that gave the blocks back */
	uint64_t credits_unsent; /* credit, update set: blocks freed, gathering for the next */
};

/* port: an input (fe_graph.h): a port, or past the ports a link between switches */
/* The switches' packet memory: one switch's, or with a topology every switch's summed. */
struct fe_switch_buffer {
	uint64_t limit, used, peak; /* bytes */
};
void fe_report_switch_buffer(const struct fe_dp *dp, struct fe_switch_buffer *b);

void fe_report_lane(const struct fe_dp *dp, unsigned port, unsigned lane,
		    struct fe_lane_counters *c);
/* The lane counters the running regime reports, over struct fe_lane_counters; NULL if none. */
const struct fe_counter_desc *fe_report_lane_counters(const struct fe_dp *dp);

/*
 * Upper bound of the log2 bucket holding quantile q (0..1, nearest rank: fe_quantile.h)
 * of histogram h; 0 if empty.
 */
uint64_t fe_report_hist_quantile(const fe_counter_t *h, double q);
/*
 * p50, p99 and max of a quarter-octave histogram (fe_qhist.h: within 25 % above the true
 * values), read from one snapshot of it; n: what it counts (0: nothing, no percentile
 * to report, and the three are 0).
 */
struct fe_report_q3 {
	uint64_t n, p50, p99, max;
};
void fe_report_qhist_q3(const fe_counter_t *h, struct fe_report_q3 *q);

/* The kernel side of the ports (fe_kernel.h), set once before any report; may be NULL. */
void fe_report_set_kernel(struct fe_kernel *k);
struct fe_kernel *fe_report_kernel(void);

/*
 * One port at the edge: its kernel side, how long frames waited there, and whether every
 * frame is accounted for. Signed: a frame still in the ring when the counters are read
 * makes a transient +1; at rest both are 0 unless a frame went where nothing counts it.
 *   rx: if_rx_offered = rx_pkts + rx_lost + rx_unexplained (fe_kernel.h)
 *   tx: tx_pkts = if_tx_packets + if_tx_dropped + oerrors + tx_unexplained
 */
struct fe_report_edge {
	struct fe_kernel_port k;
	uint64_t stamped, unstamped, mismatch, truncated, held;
	struct fe_report_q3 wait;		/* ns */
	int64_t rx_unexplained, tx_unexplained; /* 0 for a port with no kernel side */
};
void fe_report_edge(const struct fe_dp *dp, unsigned port, struct fe_report_edge *e);

void fe_report_table(FILE *f, const struct fe_dp *dp);

/* The counters document (docs/counters.md): a new reference, the caller's to drop. */
json_t *fe_report_doc(const struct fe_dp *dp);
/* ... of port i alone: its `ports[]` entry; without arrays, its histogram and its NIC's
 * flows left out (DPDK telemetry's /fabemu/port,N, flat, has no arrays). */
json_t *fe_report_port_doc(const struct fe_dp *dp, unsigned i, bool arrays);
/* ... of link i between switches (its `graph.fabric_links[]` entry; /fabemu/link,NAME). */
json_t *fe_report_hop_doc(const struct fe_dp *dp, unsigned i);
/* ... written to f; 0, or -1 if it could not be written whole. */
int fe_report_json(FILE *f, const struct fe_dp *dp);

#endif
