/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_roce: RoCEv2 as it passes, for NIC model `host` (docs/nic.md): an inline box between
 * real RDMA NICs leaves the transport to them and counts, per queue pair, what their
 * transport did. Pure: no DPDK.
 *
 * A queue pair is the destination IP and destination QP of a packet's BTH (IPv4, UDP
 * 4791; one 802.1Q tag allowed). What is counted where the receiving NIC would see it:
 *   - packets that carry a PSN in sequence (requests, read responses): a PSN past the
 *     highest seen + 1 is a gap (PSNs missing: the fabric lost them); a PSN at or below
 *     the highest seen is a resent packet, and one that does not follow the previous
 *     packet starts a go-back-N episode (a rewind);
 *   - ACKs (opcode 0x11) whose AETH is a NAK (syndrome 011x xxxx; 0x60: PSN sequence
 *     error), and RNR NAKs (001x xxxx);
 *   - CNPs (opcode 0x81).
 */
#ifndef FE_ROCE_H
#define FE_ROCE_H

#include <stdint.h>

struct fe_roce_pkt {
	uint32_t daddr; /* network order */
	uint32_t qpn, psn;
	uint8_t opcode;
	uint8_t syndrome; /* the AETH's, for opcodes that carry one; else 0 */
};

/* 0 and the packet's fields if f is a RoCEv2 packet (BTH after UDP 4791), else -1. */
int fe_roce_parse(const uint8_t *f, uint32_t len, struct fe_roce_pkt *p);

struct fe_roce_qp {
	uint32_t daddr, qpn;
	uint32_t high; /* the highest PSN seen + 1 (24 bits) */
	uint32_t next; /* the PSN after the previous packet's */
	uint8_t used, started;
	uint64_t pkts, gaps, missing, resent, rewinds, naks, rnr_naks, cnps;
};

enum fe_roce_event {
	FE_ROCE_IN_ORDER,
	FE_ROCE_GAP,	/* PSNs missing before this one */
	FE_ROCE_RESENT, /* at or below the highest seen */
	FE_ROCE_NAK,
	FE_ROCE_RNR_NAK,
	FE_ROCE_CNP,
	FE_ROCE_OTHER, /* an ACK, an atomic ACK: no PSN of their own to follow */
};

/* Count p against its queue pair's state q (q->used set by the caller's table). */
enum fe_roce_event fe_roce_track(struct fe_roce_qp *q, const struct fe_roce_pkt *p);

#endif
