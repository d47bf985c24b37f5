/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What fabemu-dp says at start about the engine it built, once, before the loop runs.
 * main() calls fe_banner_print() (version, regime, topology, ports, every link) and then
 * fe_banner_warn(): the settings that are legal but defeat their purpose, each a warning
 * on stderr that says what to change. A kernel ring shorter than a lossless up link's
 * buffer; the edge pause's thresholds against the port's receive ring; and PFC's
 * headroom analysis: each egress queue against what the inputs routed to it may send
 * before their pauses act, and the shared switch buffer against every port's XOFF and
 * headroom. Set-up code only: it reads the engine before the loop starts.
 */
#ifndef FE_BANNER_H
#define FE_BANNER_H

#include "fe_dp.h"
#include "fe_opts.h"

/* The banner to stdout: the run's settings, its ports, every link's. */
void fe_banner_print(const struct fe_dp *dp, const struct fe_opts *o);

/* Settings that are legal but defeat their purpose: said once, at start. */
void fe_banner_warn(const struct fe_dp *dp);

#endif
