/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_adopt: the lcore takes what the control thread asked (fe_ctlif.h), at a burst
 * boundary: a change compiled aside (fe_update.h), or a counter reset. The engine
 * (fe_dp.c) calls these and nothing of fe_update.c; fe_update.c calls nothing of the
 * engine: the change path is one way (tests/tools/check-layers.sh).
 */
#ifndef FE_ADOPT_H
#define FE_ADOPT_H

#include <stdint.h>

struct fe_dp;
struct fe_update;

/* Take u, the parts the caller's role owns (FE_ROLE_*), and acknowledge it. */
void fe_adopt(struct fe_dp *dp, struct fe_update *u, unsigned role);

/* Zero the counters the role writes at tick now (gauges keep their value, peaks and
 * leasts restart from them). */
void fe_adopt_reset(struct fe_dp *dp, unsigned role, uint64_t now);

#endif
