/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_adopt: the lcore takes what the control thread asked (fe_ctlif.h), at a burst
 * boundary: a change compiled aside (fe_update.h), or a counter reset. The engine
 * (fe_dp.c) calls these and nothing of fe_update.c; fe_update.c calls nothing of the
 * engine: the change path is one way (tests/tools/check-layers.sh).
 */
#ifndef FE_ADOPT_H
#define FE_ADOPT_H

struct fe_dp;
struct fe_update;

/* Take u, the parts the caller's role owns (FE_ROLE_*), and acknowledge it. */
void fe_adopt(struct fe_dp *dp, struct fe_update *u, unsigned role);

/* Zero the counters the role writes (gauges keep their value, peaks restart). */
void fe_adopt_reset(struct fe_dp *dp, unsigned role);

#endif
