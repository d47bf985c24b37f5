/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_update: changing the fabric under a running lcore, without a lock in its loop.
 *
 *   u = fe_update_build(dp, up, down, &fabric, err, len);   // control: compile aside
 *   fe_update_publish(dp, u);                               // one release store
 *   fe_update_wait(dp, u, prev, timeout_ns);                // adopted + quiescent
 *
 * The lcore loads dp->update at the top of every pass (a burst boundary). When its
 * generation is new it copies the compiled values into its links (fe_adopt.h:
 * no allocation, no syscall), writes what it let go into u->retired, and stamps the
 * time. It reports quiescence to rte_rcu_qsbr after every pass, so once the control
 * thread has seen the adoption and a grace period, nothing on the lcore points at
 * the retired filters and slot rings or at the previous update: they are freed.
 *
 * What a run-time change keeps: packets already queued or on the wire keep the times
 * they were given (no drop, no reordering: arrivals never go backwards, fe_link.h);
 * a smaller buffer admits nothing new until the queue is below it. What it cannot
 * change: the regime, the lanes, the lane map and the credit buffer and unit, which shape the
 * switch itself (restart with another profile for those).
 *
 * Ownership:  ctlplane: builds, publishes, frees   lcore: ro, except the fields
 * marked "lcore: wo" below, written once at adoption and read after it.
 */
#ifndef FE_UPDATE_H
#define FE_UPDATE_H

#include <stdint.h>

#include "fe_derive.h"
#include "fe_dp.h"
#include "fe_fabric.h"

struct fe_update_link {
	struct fe_link_cfg cfg;
	struct fe_link_slot *slots; /* a larger ring (the buffer grew), or NULL: keep it */
	struct fe_linkx_cfg x;	    /* compiled impairments */
	uint8_t rule_changed;	    /* new match or drop rule: count matches from 0 again */
	struct fe_link_derived dv;  /* what the link derives from the rest (fe_derive.h) */
	/* lcore: wo, at adoption (by the lcore that runs this link: with a pipeline, a
	 * change may be taken by one stage and not yet by the other, so each link says) */
	uint8_t adopted;
	struct fe_filter *old_filter;
	struct fe_link_slot *old_slots;
};

struct fe_update {
	uint64_t gen;
	unsigned nports;
	unsigned nlinks;	      /* 2 x nports, then the links between switches (fe_graph.h) */
	struct fe_update_link *links; /* [nlinks], as the link table numbers them (fe_dp.h) */
	uint64_t switch_buffer, hoq_ticks;
	struct fe_pfc_wd wd; /* PFC: the watchdog */
	uint64_t published_tsc;
	struct fe_update *stale; /* ctl only: earlier updates still to free (a wait timed out) */
	/* lcore: wo, at adoption */
	uint64_t adopted_tsc;
	uint64_t adopt_ticks; /* how long the lcore spent adopting it */
};

/* The same, with the links between switches too (hop: [nhl], NULL: as they are). */
struct fe_update *fe_update_build_fabric(struct fe_dp *dp, const struct fe_linkdef *up,
					 const struct fe_linkdef *down,
					 const struct fe_linkdef *hop, const struct fe_fabric *fab,
					 char *err, size_t errlen);

/* Compile a full fabric (every link) against dp; NULL with a message in err. */
struct fe_update *fe_update_build(struct fe_dp *dp, const struct fe_linkdef *up,
				  const struct fe_linkdef *down, const struct fe_fabric *fab,
				  char *err, size_t errlen);

void fe_update_publish(struct fe_dp *dp, struct fe_update *u);

/*
 * Wait until the lcore adopted u and passed a quiescent state, then free what it let
 * go and the previous update prev (may be NULL), with any it still holds in ->stale.
 * 0, or -ETIMEDOUT: nothing freed (the lcore is not running or stuck; u stays
 * published and takes prev into u->stale, so a later wait frees it).
 */
int fe_update_wait(struct fe_dp *dp, struct fe_update *u, struct fe_update *prev,
		   uint64_t timeout_ns);

/*
 * The control thread's waits, until CLOCK_MONOTONIC passes deadline_ns (fe_mono_ns()):
 * until the lcores acknowledged generation gen or a later one in *up (and *down, the down
 * stage's, with a pipeline: dp->down_acks); until the lcore passed a quiescent state
 * (RCU: nothing it read before is still in use). 0, or -ETIMEDOUT.
 */
int fe_update_wait_ack(const struct fe_dp *dp, const uint64_t *up, const uint64_t *down,
		       uint64_t gen, uint64_t deadline_ns);
int fe_update_wait_quiet(struct fe_dp *dp, uint64_t deadline_ns);

/* Free an update that was never published, or the last one after the lcore stopped. */
void fe_update_free(struct fe_update *u);

#endif
