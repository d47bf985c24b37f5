/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_ecn: RED-style ECN marking on an egress queue.
 *
 * At enqueue the link's instantaneous backlog q (bytes, before this packet) decides:
 * below kmin nothing happens; from kmin to kmax the packet is "congestion-hit" with
 * probability pmax * (q - kmin) / (kmax - kmin); at kmax and above, always. A hit
 * packet that is ECT(0) or ECT(1) gets CE (IPv4 with its header checksum updated
 * incrementally, RFC 1624; IPv6; one 802.1Q tag allowed); a CE packet stays CE; a hit
 * packet that is not ECT passes or is dropped, as the profile says. kmin = kmax = K is
 * DCTCP's step marking (Alizadeh et al., SIGCOMM 2010). The same header's DSCP is set
 * by fe_dscp_set() (a trimmed header's remark, docs/uec.md).
 */
#ifndef FE_ECN_H
#define FE_ECN_H

#include <stdint.h>

#include "fe_rng.h"

struct fe_ecn_params {
	int enabled;
	uint64_t kmin, kmax; /* bytes */
	double pmax;	     /* marking probability reached just below kmax */
	int drop_non_ect;    /* hit packets that cannot be marked: 1 drop, 0 pass */
};

struct fe_ecn {
	uint8_t enabled, drop_non_ect;
	uint64_t kmin, kmax;
	uint64_t slope; /* probability per byte above kmin, 0.32 fixed point << 16 */
};

enum fe_ecn_result {
	FE_ECN_NOT_IP,	   /* neither IPv4 nor IPv6 */
	FE_ECN_NOT_ECT,	   /* IP, but the sender did not negotiate ECN */
	FE_ECN_MARKED,	   /* was ECT(0)/ECT(1), is CE now */
	FE_ECN_ALREADY_CE, /* was CE */
};

/* 0, or -EINVAL if kmin > kmax or pmax is outside [0, 1]. */
int fe_ecn_compile(const struct fe_ecn_params *p, struct fe_ecn *e);

/* 1 if a packet arriving at a backlog of q bytes is hit. */
static inline int
fe_ecn_hit(const struct fe_ecn *e, uint64_t q, struct fe_rng *r)
{
	if (q < e->kmin)
		return 0;
	if (q >= e->kmax)
		return 1;
	return fe_rng_chance(r, (uint64_t)(((unsigned __int128)(q - e->kmin) * e->slope) >> 16));
}

/* Set CE on the Ethernet frame (len bytes) if it is ECT; see enum fe_ecn_result. */
enum fe_ecn_result fe_ecn_mark(uint8_t *frame, uint32_t len);

/* Set the DSCP (0 to 63) of the Ethernet frame's IP header, its ECN bits kept (IPv4 with
 * its checksum updated): 0, or -1 if it is no IP frame or too short. */
int fe_dscp_set(uint8_t *frame, uint32_t len, uint8_t dscp);

#endif
