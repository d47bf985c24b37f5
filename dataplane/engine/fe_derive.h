/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_derive: what the engine derives from one link's configuration besides its compiled
 * cfg (fe_link.h) and impairments (fe_linkx.h): the credit loop's return, the receiving
 * ingress's PFC thresholds, the emulated NIC's line rate. One function computes them,
 * from the link's definition and its compiled cfg, at start (fe_dp_create()) and for
 * every change (fe_update.c, off the lcore); one assigns them, at start and when the
 * lcore adopts the change (fe_adopt.c). So no derived value keeps what its link had at
 * start: a hop link's credit loop follows its delay, a NIC its up link's rate.
 *
 *   fe_link_derive(dp, fab, n, def, cfg, &dv, err, len);   // compile: 0 or -EINVAL
 *   fe_link_derived_apply(dp, n, &dv);                       // the lcore, or at start
 *
 * Links are numbered as the link table numbers them (fe_dp_link_id(), fe_dp.h).
 */
#ifndef FE_DERIVE_H
#define FE_DERIVE_H

#include <stddef.h>
#include <stdint.h>

#include "fe_dp.h"
#include "fe_fabric.h"
#include "fe_nic.h"
#include "fe_nscc.h"
#include "fe_pcie.h"
#include "fe_rccc.h"
#include "fe_pfc.h"

struct fe_link_derived {
	/* credit: ticks a freed credit takes back to the link's sender (the receiver's
	 * delay and the propagation back; a link between boxes, the real link's too) */
	uint64_t credit_return;
	uint32_t credit_update; /* and the blocks a credit message gathers (0: each frame's) */
	/* PFC: the thresholds of the ingress the link feeds (up links, hop links) */
	struct fe_pfc_cfg pfc;
	/* an up link with an emulated NIC: its line rate (bit/s) and DCQCN at that rate */
	uint64_t line_bps;
	struct fe_dcqcn_cfg cc;
	struct fe_nscc_cfg nscc; /* and NSCC at that rate */
	/* and RCCC at that rate (its senders' credit); a down link: at its rate (the
	 * receiving NIC's pacer) */
	struct fe_rccc_cfg rccc;
	/* a down link with an emulated NIC: its host's PCIe (fe_pcie.h) */
	struct fe_pcie_cfg pcie;
	/* an up link whose port has the edge pause (fe_wire, fe_dp.h): its thresholds, in
	 * FE_EPAUSE_ROOM less the frames of room left; quanta 0: no edge pause */
	struct fe_pfc_cfg epause;
};

/* The rate a port's edge pause is timed at: its wire's speed, else its up link's rate
 * (up), else 100 Gbit/s. */
uint64_t fe_epause_bps(const struct fe_wire *w, const struct fe_link_params *up);

/* The frames a host at bps may still send once paused (at least 1). */
uint64_t fe_epause_inflight(uint64_t bps);

/* What a port of wire w holds of them when paused at xoff_room frames of room: that room
 * and three quarters of its receive ring (a quarter kept for what came since the last
 * pass). The XOFF room is what the ring does not hold, at most half the adapter queue. */
uint64_t fe_epause_holds(const struct fe_wire *w, uint64_t xoff_room);

/* What the links derive from the fabric as a whole: from every link's definition. */
struct fe_fabric_derived {
	/* the fabric's oversubscription: at each switch with hosts, their links' rate over
	 * the rate of the links that reach it from other switches; the most of any (1: none,
	 * or one switch, or a link without a rate) */
	double oversub;
	/* the fabric's longest round trip between two hosts, ns: every host pair's route
	 * (the topology's, all links up; the longest of its equal-cost ways) each way, each
	 * link its delay and a full frame's serialization (a host's link at its NIC's line
	 * rate, fe_nic.h); uet-htsim's network_max_unloaded_rtt. What NSCC and RCCC start
	 * from unless the NIC's rtt is set (docs/nic.md). */
	uint64_t rtt_ns;
};

/*
 * The fabric's derived values from its links' definitions: up[nports] and down[nports]
 * the ports' links', hop[] the links' between switches (each NULL: as the box runs them
 * now). At start and at every change, before each link's own (fe_link_derive()).
 */
void fe_fabric_derive(const struct fe_dp *dp, const struct fe_linkdef *up,
		      const struct fe_linkdef *down, const struct fe_linkdef *hop,
		      struct fe_fabric_derived *fd);

/*
 * What link n derives under fabric fab (and what fd derives from all of it) from its
 * definition d and compiled cfg (a link between boxes: as this box runs it,
 * fe_trunk_split_delay()). 0, or -EINVAL with a message naming the link and the value.
 */
int fe_link_derive(const struct fe_dp *dp, const struct fe_fabric *fab,
		   const struct fe_fabric_derived *fd, unsigned n, const struct fe_linkdef *d,
		   const struct fe_link_cfg *cfg, struct fe_link_derived *dv, char *err,
		   size_t errlen);

/* Give link n what it derives (the lcore that runs it; or at start). */
void fe_link_derived_apply(struct fe_dp *dp, unsigned n, const struct fe_link_derived *dv);

/*
 * What the loop derives from all the links at once, at start and when it adopts a change
 * (fe_adopt.c): its causal step, the shortest feedback delay of the regime (at least
 * 1 us, so the loop terminates); the ports whose down link is ideal (a bit each: the
 * burst fast path hands them frames straight).
 */
uint64_t fe_dp_causal_step(const struct fe_dp *dp);

/*
 * Every emulated NIC's retransmission timeout, in ticks: the profile's timeout; with
 * timeout: path, its base and 6 times the longest any link's full buffer takes to drain
 * at its rate (uet-htsim's RTO, its queues all one size: docs/nic.md). At start and at
 * every change (the rates and buffers it follows change).
 */
void fe_nic_timeouts(struct fe_dp *dp);
uint64_t fe_dp_ideal_down(const struct fe_dp *dp);
int fe_dp_pooled(const struct fe_dp *dp);
uint64_t fe_dp_stage_down(const struct fe_dp *dp, int pooled);
int fe_dp_stage_hops(const struct fe_dp *dp, int pooled);

#endif
