/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "fe_ctlif.h"
#include "fe_dp.h"
#include "fe_graph.h"
#include "fe_time.h"
#include "fe_update.h"

struct fe_ctlif {
	struct fe_dp *dp;
	struct fe_update *last; /* the change published last (the lcore reads its generation) */
};

static pthread_mutex_t desc_lock = PTHREAD_MUTEX_INITIALIZER;

void
fe_ctlif_lock(void)
{
	pthread_mutex_lock(&desc_lock);
}

void
fe_ctlif_unlock(void)
{
	pthread_mutex_unlock(&desc_lock);
}

struct fe_ctlif *
fe_ctlif_open(struct fe_dp *dp)
{
	struct fe_ctlif *ci = calloc(1, sizeof(*ci));

	if (ci != NULL)
		ci->dp = dp;
	return ci;
}

void
fe_ctlif_close(struct fe_ctlif *ci)
{
	if (ci == NULL)
		return;
	fe_update_free(ci->last);
	free(ci);
}

int
fe_ctlif_change(struct fe_ctlif *ci, const struct fe_linkdef *up, const struct fe_linkdef *down,
		const struct fe_linkdef *hop, const struct fe_fabric *fab, uint64_t timeout_ns,
		struct fe_ctlif_timing *tm, char *err, size_t errlen)
{
	struct fe_dp *dp = ci->dp;
	struct fe_update *u = fe_update_build_fabric(dp, up, down, hop, fab, err, errlen);
	int rc;

	if (u == NULL)
		return -EINVAL;
	fe_update_publish(dp, u);
	rc = fe_update_wait(dp, u, ci->last, timeout_ns);
	ci->last = u; /* published: on a timeout the lcore takes it when it runs again */
	if (rc < 0) {
		snprintf(err, errlen,
			 "the dataplane did not take the change within %llu ms (is its lcore "
			 "running?)",
			 (unsigned long long)(timeout_ns / 1000000));
		return rc;
	}
	tm->effect_ns =
		fe_ticks_to_ns(u->adopted_tsc - RTE_MIN(u->adopted_tsc, u->published_tsc), dp->hz);
	tm->adopt_ns = fe_ticks_to_ns(u->adopt_ticks, dp->hz);
	fe_ctlif_lock();
	for (unsigned i = 0; i < dp->nports; i++) {
		dp->desc.up[i] = up[i];
		dp->desc.down[i] = down[i];
	}
	for (unsigned i = 0; hop && dp->graph && i < dp->graph->nhl; i++)
		dp->desc.hop[i] = hop[i];
	fe_ctlif_unlock();
	return 0;
}

int
fe_ctlif_reset(struct fe_dp *dp, uint64_t timeout_ns)
{
	uint64_t gen = __atomic_load_n(&dp->reset_req, __ATOMIC_RELAXED) + 1;

	__atomic_store_n(&dp->reset_req, gen, __ATOMIC_RELEASE);
	return fe_update_wait_ack(dp, &dp->reset_done, &dp->down_acks.reset_done, gen,
				  fe_mono_ns() + timeout_ns);
}

int
fe_ctlif_hold(struct fe_dp *dp, unsigned n, uint64_t ns, uint64_t timeout_ns)
{
	uint64_t gen = __atomic_load_n(&dp->hold_req, __ATOMIC_RELAXED) + 1;

	dp->hold_link = n;
	dp->hold_ticks = fe_ns_to_ticks(ns, dp->hz);
	__atomic_store_n(&dp->hold_req, gen, __ATOMIC_RELEASE);
	return fe_update_wait_ack(dp, &dp->hold_done, &dp->down_acks.hold_done, gen,
				  fe_mono_ns() + timeout_ns);
}

void
fe_ctlif_tap(struct fe_dp *dp, struct fe_tap *tap)
{
	__atomic_store_n(&dp->tap, tap, __ATOMIC_RELEASE);
}

int
fe_ctlif_untap(struct fe_dp *dp, uint64_t timeout_ns)
{
	__atomic_store_n(&dp->tap, NULL, __ATOMIC_RELEASE);
	/* after a grace period the lcore holds no pointer to the tap */
	return fe_update_wait_quiet(dp, fe_mono_ns() + timeout_ns);
}
