/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_fabric: the fabric-wide part of a profile, in user units (the per-link part is
 * struct fe_linkdef). Pure: the control program and the profile parser use it without
 * DPDK. The dataplane compiles it when it starts, and again on every run-time change.
 *
 *   ctlplane: wo    dataplane: ro (at compile time only)
 */
#ifndef FE_FABRIC_H
#define FE_FABRIC_H

#include <stdint.h>
#include <string.h>

#include "fe_credit.h"
#include "fe_link.h"
#include "fe_nic.h"
#include "fe_pfc.h"

/*
 * A fabric split across boxes (docs/scale-out.md): the header each frame of the fabric
 * carries over a link between boxes, in bytes: a trunk's MTU is its hosts' plus this.
 */
#define FE_TRUNK_HDR 42

/* How the fabric handles congestion (docs/regimes.md). */
enum fe_regime {
	FE_REGIME_LOSSY,  /* output-queued; tail drop, loss models, ECN */
	FE_REGIME_PFC,	  /* output-queued; PFC pauses the sender per priority */
	FE_REGIME_CREDIT, /* input-queued per lane; credit-based, never drops in the fabric */
};

/* Where a packet's lane (virtual lane, PFC priority) comes from. */
enum fe_lane_map {
	FE_MAP_PCP,  /* 802.1Q priority code point; untagged frames: 0 */
	FE_MAP_DSCP, /* IP DSCP class selector (DSCP >> 3); non-IP: 0 */
};

static inline const char *
fe_regime_name(enum fe_regime r)
{
	return r == FE_REGIME_PFC ? "pfc" : r == FE_REGIME_CREDIT ? "credit" : "lossy";
}

static inline const char *
fe_lane_map_name(enum fe_lane_map m)
{
	return m == FE_MAP_DSCP ? "dscp" : "pcp";
}

/* The names users write, for the command line and profiles; 0, or -1 if none fits. */
#define FE_REGIME_ALLOWED   "lossy, pfc, credit"
#define FE_LANE_MAP_ALLOWED "pcp, dscp"

static inline int
fe_regime_parse(const char *s, enum fe_regime *out)
{
	for (int r = FE_REGIME_LOSSY; r <= FE_REGIME_CREDIT; r++)
		if (strcmp(s, fe_regime_name((enum fe_regime)r)) == 0) {
			*out = (enum fe_regime)r;
			return 0;
		}
	return -1;
}

static inline int
fe_lane_map_parse(const char *s, enum fe_lane_map *out)
{
	for (int m = FE_MAP_PCP; m <= FE_MAP_DSCP; m++)
		if (strcmp(s, fe_lane_map_name((enum fe_lane_map)m)) == 0) {
			*out = (enum fe_lane_map)m;
			return 0;
		}
	return -1;
}

/*
 * Lossless regimes give the up links (the host adapters' queues) room for what the
 * hosts' TCP windows put in flight, so backpressure shows as delay, not edge drops.
 */
#define FE_LOSSLESS_UP_BYTES (32ULL << 20)
#define FE_LOSSLESS_UP_PKTS  16384
/*
 * PFC counts what an ingress holds in bytes, so the egress queues (N.down, the links
 * between switches) are limited in bytes alone unless a buffer is given: a limit in
 * packets would tail-drop small frames (ACKs, CNPs) long before XOFF, which a lossless
 * priority must not (a switch's buffer is bytes, its cells).
 */
#define FE_PFC_EGRESS_PKTS 0

/* Regime r's buffer for a host's up link where none is given (a profile's link:, the
 * command line, a run-time change). */
static inline void
fe_regime_up_buffer(enum fe_regime r, struct fe_link_params *l)
{
	if (r != FE_REGIME_LOSSY) {
		l->limit_bytes = FE_LOSSLESS_UP_BYTES;
		l->limit_pkts = FE_LOSSLESS_UP_PKTS;
	}
}

/* ... and for an egress queue: a port's down link, a link between switches. */
static inline void
fe_regime_egress_buffer(enum fe_regime r, struct fe_link_params *l)
{
	if (r == FE_REGIME_PFC)
		l->limit_pkts = FE_PFC_EGRESS_PKTS;
}

struct fe_fabric {
	enum fe_regime regime;
	uint8_t lanes; /* lanes (VLs, priorities) used, 1..8 */
	enum fe_lane_map lane_map;
	uint64_t switch_buffer; /* bytes shared by all down links; 0: no shared limit */
	struct fe_pfc_params pfc;
	struct fe_credit_params credit;
	struct fe_nic_params nic; /* the hosts' adapters (docs/nic.md) */
};

/* Defaults (docs/regimes.md gives their sources). */
#define FE_FABRIC_DEFAULT                                                                          \
	{                                                                                          \
		.regime = FE_REGIME_LOSSY, .lanes = 1, .lane_map = FE_MAP_PCP,                     \
		.pfc = {.xoff = 64 << 10, .xon = (64 << 10) - 2 * 1514, .quanta = 65535},          \
		.credit = {.buffer = 64 << 10, .unit = FE_CREDIT_UNIT, .out_pkts = 2},             \
		.nic = FE_NIC_DEFAULT,                                                             \
	}

#endif
