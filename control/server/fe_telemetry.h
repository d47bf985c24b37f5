/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry commands under /fabemu/, readable with dpdk-telemetry.py or any
 * client of the telemetry socket (/var/run/dpdk/<file-prefix>/dpdk_telemetry.v2):
 *   /fabemu/info          ports, uptime, TSC rate, idle policy
 *   /fabemu/ports         list of port numbers
 *   /fabemu/port,N        counters of port N
 *   /fabemu/links         list of link names ("0.up", "0.down", ...)
 *   /fabemu/link,N.DIR    parameters and counters of one link
 *   /fabemu/switch        switch and MAC-table counters
 */
#ifndef FE_TELEMETRY_H
#define FE_TELEMETRY_H

#include "fe_dp.h"

/* Register the commands; they read dp's counters until fe_telemetry_stop(). */
int fe_telemetry_init(const struct fe_dp *dp);
void fe_telemetry_stop(void);

#endif
