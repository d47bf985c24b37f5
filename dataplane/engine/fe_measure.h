/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_measure: what the box itself adds, for benchmarks (fabemu-dp --measure N). Each
 * packet is stamped with the TSC when its RX burst returns (an mbuf dynamic field); at
 * TX, once the burst is sent, the time since is written into a ring of N samples, and
 * each port counts the wire bytes it sent between its first and its last measured
 * burst. The time each TX call took (rte_eth_tx_burst: on a veth it carries the frames
 * into the receiving host) goes into a second ring of N samples. The control thread
 * reads them after the run (fe_report_json: "measure").
 * Off (dp->meas NULL) it costs one predictable branch per burst.
 *
 *   lcore: wo (samples, n, ports)   control: ro, after the lcore stopped or racy reads
 */
#ifndef FE_MEASURE_H
#define FE_MEASURE_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "fe_link.h"

#define FE_MEASURE_PORTS 64

/*
 * A port's TX rate is measured only while its down link is backlogged: over a gap
 * between two TX bursts after each of which the link still had packets queued, the
 * serializer was busy throughout, and the second burst's bytes are what it sent in
 * that time. A gap that ends with the queue empty is left out too: the link went idle
 * somewhere in it (the end of a busy period), and would dilute the figure.
 */
struct fe_measure_port {
	uint64_t pkts, wire_bytes;
	uint64_t last;	     /* TSC of the last TX burst */
	uint8_t backlogged;  /* the link had packets queued after that burst */
	uint64_t busy_ticks; /* sum of the gaps backlogged at both ends */
	uint64_t busy_bytes; /* wire bytes sent at the end of those gaps */
};

#define FE_MEASURE_BURST 32 /* at least the engine's TX burst */

struct fe_measure {
	int dynoff;	      /* of the uint64_t RX stamp; 0 in it: not stamped (our own frames) */
	uint32_t mask;	      /* samples - 1 */
	uint64_t n;	      /* samples written */
	uint32_t *ticks;      /* RX to TX, saturated at 2^32 - 1 */
	uint64_t calls;	      /* TX calls timed */
	uint32_t *call_ticks; /* how long each took, saturated */
	struct fe_measure_port port[FE_MEASURE_PORTS];
	/* the burst being sent, read before the port has it (fe_measure_tx_pre) */
	uint64_t pre_stamp[FE_MEASURE_BURST];
	uint32_t pre_wire[FE_MEASURE_BURST];
};

static inline uint64_t *
fe_measure_stamp(const struct fe_measure *m, struct rte_mbuf *b)
{
	return RTE_MBUF_DYNFIELD(b, m->dynoff, uint64_t *);
}

static inline void
fe_measure_rx(const struct fe_measure *m, struct rte_mbuf **pkts, uint16_t n, uint64_t tsc)
{
	for (uint16_t i = 0; i < n; i++)
		*fe_measure_stamp(m, pkts[i]) = tsc;
}

/*
 * Before a TX burst of n packets: their stamps and wire sizes. A PMD that copies
 * (AF_PACKET, AF_XDP, pcap) frees the mbufs inside the TX call, so nothing is read
 * from them after it.
 */
static inline void
fe_measure_tx_pre(struct fe_measure *m, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n && i < FE_MEASURE_BURST; i++) {
		m->pre_stamp[i] = *fe_measure_stamp(m, pkts[i]);
		m->pre_wire[i] = fe_wire_bytes(rte_pktmbuf_pkt_len(pkts[i]));
	}
}

/* After it: the first `sent` went out at tsc. */
static inline void
fe_measure_tx(struct fe_measure *m, unsigned port, uint16_t sent, uint64_t tsc, int backlogged)
{
	struct fe_measure_port *p = &m->port[port % FE_MEASURE_PORTS];
	uint64_t wire = 0;

	for (uint16_t i = 0; i < sent && i < FE_MEASURE_BURST; i++) {
		uint64_t s = m->pre_stamp[i], d = tsc - s;

		wire += m->pre_wire[i];
		if (s == 0)
			continue;
		m->ticks[m->n++ & m->mask] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
	}
	if (sent == 0)
		return;
	if (p->backlogged && backlogged) {
		p->busy_ticks += tsc - p->last;
		p->busy_bytes += wire;
	}
	p->last = tsc;
	p->backlogged = (uint8_t)backlogged;
	p->pkts += sent;
	p->wire_bytes += wire;
}

/* A TX call that returned `ticks` after it was made. */
static inline void
fe_measure_tx_call(struct fe_measure *m, uint64_t ticks)
{
	m->call_ticks[m->calls++ & m->mask] = ticks > UINT32_MAX ? UINT32_MAX : (uint32_t)ticks;
}

#endif
