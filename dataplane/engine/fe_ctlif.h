/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_ctlif: the one door between the control thread and a running engine.
 *
 * The control side (control/: the control server, captures, reports, telemetry) writes
 * nothing in struct fe_dp. It asks through the calls below; each is a release store the
 * lcore takes at a pass start (fe_dp.c, ctl_requests) and acknowledges (with a pipeline,
 * both lcores do). What the control side reads is the counters (fe_counter.h: one writer,
 * relaxed loads) and the description (dp->desc, the fabric as the user gave it), under
 * fe_ctlif_lock() from any thread but the one that changes it.
 * tests/tools/check-handoff.sh fails the build's tests if control/ writes an engine field.
 *
 *   struct fe_ctlif *ci = fe_ctlif_open(dp);
 *   fe_ctlif_change(ci, up, down, hop, &fabric, &tm, err, len);  compile aside, publish, wait
 *   fe_ctlif_reset(dp, timeout_ns);                              zero the counters
 *   fe_ctlif_hold(dp, link, ns, timeout_ns);                     hold a link (a pause storm)
 *   fe_ctlif_tap(dp, tap); ... fe_ctlif_untap(dp, timeout_ns);   a capture
 *   fe_ctlif_close(ci);                                          once the lcore stopped
 *
 * Every call that waits returns -ETIMEDOUT when the lcore did not answer in time (it is
 * not running, or stuck); what was asked stays asked and is taken when it runs again.
 */
#ifndef FE_CTLIF_H
#define FE_CTLIF_H

#include <stddef.h>
#include <stdint.h>

#include "fe_fabric.h"
#include "fe_linkdef.h"

struct fe_dp;
struct fe_tap;
struct fe_ctlif;

/* The control thread's handle: the change the lcore took last (freed at the next). */
struct fe_ctlif *fe_ctlif_open(struct fe_dp *dp);
void fe_ctlif_close(struct fe_ctlif *ci);

/* How long a change took: from publishing to the lcore taking it, and the taking. */
struct fe_ctlif_timing {
	uint64_t effect_ns, adopt_ns;
};

/*
 * Change every link and the fabric-wide values at once: up and down [nports], hop
 * [the links between switches; NULL: as they are]. Compiled here, taken by the lcore at
 * a pass start; on success they become dp->desc. -EINVAL (a bad value, or one that is
 * fixed at start: err says which) or -ETIMEDOUT; on either nothing else changed.
 */
int fe_ctlif_change(struct fe_ctlif *ci, const struct fe_linkdef *up, const struct fe_linkdef *down,
		    const struct fe_linkdef *hop, const struct fe_fabric *fab, uint64_t timeout_ns,
		    struct fe_ctlif_timing *tm, char *err, size_t errlen);

/* Zero the counters (gauges keep their value, peaks restart): 0 or -ETIMEDOUT. */
int fe_ctlif_reset(struct fe_dp *dp, uint64_t timeout_ns);

/* Hold link n (2 x port, + 1: down) for ns: 0 or -ETIMEDOUT. */
int fe_ctlif_hold(struct fe_dp *dp, unsigned n, uint64_t ns, uint64_t timeout_ns);

/* Start copying one link's frames onto tap's ring (fe_capture.h). */
void fe_ctlif_tap(struct fe_dp *dp, struct fe_tap *tap);

/* Stop it and wait until the lcore holds no pointer to the tap: 0, or -ETIMEDOUT (an
 * lcore stuck that long may still copy into it: keep it). */
int fe_ctlif_untap(struct fe_dp *dp, uint64_t timeout_ns);

/* Readers of dp->desc on another thread than the one that calls fe_ctlif_change(). */
void fe_ctlif_lock(void);
void fe_ctlif_unlock(void);

#endif
