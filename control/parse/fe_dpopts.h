/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp's long options, one table: the dataplane's command line (dataplane/fe_opts.c,
 * which numbers them OPT_<ID> from 256 in this order) and the campaigns' check of a
 * regime's more options (control/campaign/cg_file.c). X(ID, name); each takes a value.
 */
#ifndef FE_DPOPTS_H
#define FE_DPOPTS_H

#include <string.h>

#define FE_DP_OPTIONS(X)                                                                           \
	X(RATE, "rate")                                                                            \
	X(DELAY, "delay")                                                                          \
	X(BUFFER, "buffer")                                                                        \
	X(BUFFER_PKTS, "buffer-pkts")                                                              \
	X(LINK, "link")                                                                            \
	X(PROFILE, "profile")                                                                      \
	X(MAC_AGE, "mac-age")                                                                      \
	X(IDLE_SLEEP, "idle-sleep")                                                                \
	X(REALTIME, "realtime")                                                                    \
	X(IDLE_SPIN, "idle-spin")                                                                  \
	X(RXD, "rxd")                                                                              \
	X(TXD, "txd")                                                                              \
	X(MBUFS, "mbufs")                                                                          \
	X(STATS_INTERVAL, "stats-interval")                                                        \
	X(STATS_JSON, "stats-json")                                                                \
	X(DURATION, "duration")                                                                    \
	X(EXIT_IDLE, "exit-idle")                                                                  \
	X(SEED, "seed")                                                                            \
	X(SWITCH_BUFFER, "switch-buffer")                                                          \
	X(REGIME, "regime")                                                                        \
	X(LANES, "lanes")                                                                          \
	X(LANE_MAP, "lane-map")                                                                    \
	X(PFC, "pfc")                                                                              \
	X(CREDIT, "credit")                                                                        \
	X(LINK_FILE, "link-file")                                                                  \
	X(SCALE, "scale")                                                                          \
	X(CONTROL, "control")                                                                      \
	X(CONTROL_TCP, "control-tcp")                                                              \
	X(CONTROL_TOKEN, "control-token")                                                          \
	X(CAPTURE_DIR, "capture-dir")                                                              \
	X(MEASURE, "measure")                                                                      \
	X(NIC, "nic")                                                                              \
	X(TOPOLOGY, "topology")                                                                    \
	X(BOX, "box")                                                                              \
	X(PATH, "path")                                                                            \
	X(DEADLOCK_TIME, "deadlock-time")                                                          \
	X(FLOWLET_GAP, "flowlet-gap")                                                              \
	X(FAILOVER_TIME, "failover-time")                                                          \
	X(LCORES, "lcores")                                                                        \
	X(MTU, "mtu")                                                                              \
	X(PORT_FLOW_CONTROL, "port-flow-control")                                                  \
	X(LINK_WAIT, "link-wait")                                                                  \
	X(EDGE_PAUSE, "edge-pause")

/* Whether fabemu-dp has the long option name (len bytes, without its "--"). */
static inline int
fe_dpopt_known(const char *name, size_t len)
{
#define FE_DPOPT_CASE(id, n)                                                                       \
	if (len == sizeof(n) - 1 && memcmp(name, n, len) == 0)                                     \
		return 1;
	FE_DP_OPTIONS(FE_DPOPT_CASE)
#undef FE_DPOPT_CASE
	return 0;
}

#endif
