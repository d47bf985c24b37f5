/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_trunk: a fabric split across boxes (docs/scale-out.md). Each link whose switches are
 * on two boxes is a trunk, a port on each (struct fe_trunk, fe_graph.h): the box of a
 * direction's sender models it and sends what it delivers over the trunk with its route
 * (fe_trunk_send()); the receiver's flow control comes back over it (fe_trunk_credit(),
 * fe_trunk_pause_out()), staged and sent once a pass (fe_trunk_flush()). What a trunk
 * brings is read by the graph's pass (fe_graph.c), each frame through fe_trunk_in().
 * Internal to the engine, on its lcore; below the switches that use it.
 */
#ifndef FE_TRUNK_H
#define FE_TRUNK_H

#include "fe_graph.h"

/* Each hop link's side, and a trunk for each link between boxes (fe_graph_create()). */
int fe_trunk_setup(struct fe_dp *dp, struct fe_graph *g, const struct fe_graph_conf *c, int socket,
		   char *err, size_t errlen);

/*
 * Hop link h's compiled link as this box runs it: sent to another box, its delay less the
 * real link's latency, which the trunk adds; -EINVAL, naming both, if shorter than that.
 */
int fe_trunk_split_delay(const struct fe_dp *dp, unsigned h, struct fe_link_cfg *cfg, char *err,
			 size_t errlen);

/*
 * A frame hop link h (sent from here) delivered at `due`, sent at now: to the other box,
 * with its route and how late it leaves (the other box takes it as due then).
 */
void fe_trunk_send(struct fe_dp *dp, unsigned h, struct rte_mbuf *m, uint64_t due, uint64_t now);

/* The credits freed here for trunk tr's sender, in one frame (the oldest first). */
void fe_trunk_credit_flush(struct fe_dp *dp, struct fe_trunk *tr, uint64_t now);

/* Credits: the receiver here freed blocks of lane at t, for a sender on another box. */
static inline void
fe_trunk_credit(struct fe_dp *dp, struct fe_trunk *tr, uint8_t lane, uint32_t blocks, uint64_t t)
{
	if (tr->ncred == FE_TRUNK_CREDITS)
		fe_trunk_credit_flush(dp, tr, t);
	tr->cred[tr->ncred].t = t;
	tr->cred[tr->ncred].blocks = blocks;
	tr->cred[tr->ncred].lane = lane;
	tr->ncred++;
}

/*
 * A hop link's receiving switch (input nports + h) paused or resumed its sender at tick t
 * (fe_egress_pause()): the pass then looks for its XON (g->pfc_busy); a sender on another
 * box gets an 802.1Qbb frame onto the trunk, which carries in its padding how long after
 * t it left (FE_TRUNK_PFC_AGE).
 */
void fe_trunk_pause_out(struct fe_dp *dp, unsigned h, uint8_t prio, enum fe_pfc_event ev,
			uint64_t t);

/*
 * A frame from trunk tr at now: its flow control to the sender here, a probe answered, a
 * frame of the fabric held until its tick comes; 1 if it is a frame of the fabric for the
 * switch its hop link reaches, at *at, now (the caller takes it there); else 0 (taken).
 */
int fe_trunk_in(struct fe_dp *dp, struct fe_trunk *tr, struct rte_mbuf *m, uint64_t now,
		uint64_t *at);

/* What the trunks have staged, sent; what the ports do not take is lost, counted. */
void fe_trunk_flush(struct fe_dp *dp, uint64_t now);

#endif
