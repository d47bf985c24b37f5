/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_kernel: what the kernel knows of each port, so that every frame is accounted for.
 * A frame a host sends through a veth can be lost before the dataplane reads it: in the
 * AF_PACKET ring (PACKET_STATISTICS tp_drops), in the AF_XDP path (the XDP redirect into
 * a full ring, which veth counts as rx_dropped), and the PMDs of DPDK 22.11 report none
 * of it (imissed stays 0). This module reads those counters in the control thread: the
 * interface's netdev counters (/sys/class/net/IF/statistics), the AF_PACKET socket's
 * statistics (found by scanning the process's sockets for one bound to the interface;
 * reading them resets them, so they are accumulated here), the XDP sockets' statistics
 * (summed over the process: an XDP socket does not tell which interface it is bound to).
 * It also finds each AF_PACKET port's receive ring for the edge timing (fe_edge.h).
 *
 *   k = fe_kernel_open(dp, discarded, rxd);  // after the ports started, before the loop
 *   fe_kernel_poll(k);                   // control thread, every 100 ms
 *   fe_kernel_read(k, port, &c);         // any reader thread
 *   fe_kernel_reset(k);                  // with the counters' reset
 *
 * Never called on the lcore. Thread-safe (one lock, which the lcore never takes).
 */
#ifndef FE_KERNEL_H
#define FE_KERNEL_H

#include <net/if.h>
#include <stdint.h>

#include "fe_dp.h"
#include "fe_sched.h"

enum fe_kernel_kind {
	FE_KPORT_NONE,	    /* not a kernel interface (pcap, ring, a PCI NIC under DPDK) */
	FE_KPORT_AF_PACKET, /* net_af_packet */
	FE_KPORT_AF_XDP,    /* net_af_xdp */
};

/* One port's kernel side, since the last reset (or the start). */
struct fe_kernel_port {
	enum fe_kernel_kind kind;
	char iface[IF_NAMESIZE];
	uint32_t ring_frames; /* frames the kernel can hold for the dataplane; 0: unknown */
	int timed;	      /* edge waits measured from the kernel's stamps */
	const char *untimed;  /* else why not */
	/* the interface's own counters (the dataplane's side of the veth) */
	uint64_t if_rx_packets, if_rx_dropped, if_tx_packets, if_tx_dropped;
	/* AF_PACKET: PACKET_STATISTICS, accumulated */
	uint64_t sock_packets, sock_drops;
	/* frames read and discarded while the ports opened (fabemu-dp's start only) */
	uint64_t discarded;
	/* frames the kernel lost between the interface and the dataplane: AF_PACKET the
	 * socket's drops plus the interface's rx_dropped; AF_XDP the interface's rx_dropped
	 * (where veth counts an XDP redirect into a full ring) */
	uint64_t rx_lost;
	/* frames that reached the interface, dropped there or not: AF_PACKET if_rx_packets +
	 * if_rx_dropped (veth counts a frame its backlog had no room for as dropped and not
	 * received); AF_XDP if_rx_packets (its drops come after the count) */
	uint64_t if_rx_offered;
};

/* The XDP sockets of this process, summed (XDP_STATISTICS, since the last reset). */
struct fe_kernel_xsk {
	unsigned sockets;
	uint64_t rx_dropped, rx_invalid, tx_invalid, rx_ring_full, rx_fill_ring_empty_descs,
		tx_ring_empty_descs;
};

struct fe_kernel;

/*
 * Find every port's interface, socket and ring; set the ports' edge rings (dp->ports[].edge).
 * discarded[i]: frames port i's PMD returned before the engine started (they moved its ring); rxd:
 * the ports' receive descriptors. Returns NULL only when out of memory.
 */
struct fe_kernel *fe_kernel_open(struct fe_dp *dp, const uint64_t *discarded, uint32_t rxd);
void fe_kernel_close(struct fe_kernel *k);

/* Accumulate the sockets' statistics (control thread, often enough that none wraps). */
void fe_kernel_poll(struct fe_kernel *k);

/* Port i's kernel side now; NULL k: a port with none. */
void fe_kernel_read(struct fe_kernel *k, unsigned i, struct fe_kernel_port *c);
void fe_kernel_read_xsk(struct fe_kernel *k, struct fe_kernel_xsk *x);

/* What the scheduler did to the loop's threads and their cores (fe_sched.h). */
void fe_kernel_read_sched(struct fe_kernel *k, struct fe_sched *s);

/* Count from now on (the counters' reset). */
void fe_kernel_reset(struct fe_kernel *k);

/* The value of key in a port's devargs ("iface=x,framesz=2048,..."), or NULL. */
const char *fe_kernel_devarg(const char *args, const char *key);

/* The name of a kind, for reports ("af_packet", "af_xdp", "none"). */
const char *fe_kernel_kind_name(enum fe_kernel_kind kind);

#endif
