/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp's command line: the options after the EAL's, their defaults, the checks
 * between them, and --help's text. main() calls fe_opts_want_help() first, before the
 * EAL sees the arguments (-h and -V need no ports), then fe_opts_parse() on what the EAL
 * left. The links the options describe are built next (fe_links.h); the fabric-wide
 * options go to and come from a struct fe_fabric, as a profile sets them. Set-up code
 * only: nothing here runs on the forwarding lcore.
 */
#ifndef FE_OPTS_H
#define FE_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fe_dp.h"
#include "fe_fabric.h"
#include "fe_linkdef.h"
#include "fe_path.h"

#define FE_OPTS_SPECS 256 /* --link and --link-file options */

struct fe_opts_spec {
	int is_file;
	const char *text;
};

struct fe_opts {
	struct fe_linkdef link; /* defaults for every link */
	struct fe_opts_spec specs[FE_OPTS_SPECS];
	unsigned nspecs;
	const char *nic[8];   /* --nic, applied in order on top of the profile's nic: */
	const char *topology; /* --topology: several switches (docs/topologies.md) */
	const char *box;      /* --box: the switches of one box of a split fabric */
	enum fe_path path;
	int path_set; /* --path given (else the profile's path:, else ecmp) */
	uint64_t deadlock_ns, flowlet_ns, failover_ns; /* --deadlock-time, --flowlet-gap, ... */
	unsigned nnic;
	struct fe_dp_conf dp;
	uint64_t rxd, txd, mbufs;
	uint64_t mtu; /* the largest IP packet the hosts send: the ports' MTU, sizes the mbufs */
	int keep_fc;  /* --port-flow-control keep: the NICs' own 802.3x left as found */
	uint64_t link_wait_ns; /* --link-wait */
	int edge_pause;	       /* --edge-pause: enum fe_ports_pause */
	uint64_t stats_interval_ns, duration_ns;
	uint64_t realtime; /* --realtime: the lcores' SCHED_FIFO priority; 0: not */
	const char *stats_json;
	int seed_set;
	int buffer_set;	     /* --buffer or --buffer-pkts given: no regime default for up links */
	const char *profile; /* YAML profile (name or path) */
	uint64_t scale;	     /* its dilation; 0: the profile's own */
	const char *fabric_opt;	 /* a fabric or link option that --profile excludes */
	int pfc_set, credit_set; /* --pfc, --credit given: their regime's keys */
	const char *control, *control_tcp;
	const char *control_token, *capture_dir;
};

/* --help's text. */
void fe_opts_usage(FILE *f);

/* 'h' if the arguments ask for --help, 'V' for --version, else 0: looked for before the
 * EAL parses them. */
int fe_opts_want_help(int argc, char **argv);

/*
 * The options (argv[0] the program, then the options after the EAL's) into *o, from the
 * defaults; the rules between them checked; the seed drawn unless given. 0, or -EINVAL
 * with the message in err.
 */
int fe_opts_parse(int argc, char **argv, struct fe_opts *o, char *err, size_t len);

/* The fabric-wide options as a struct fe_fabric (what a profile would set), and back. */
void fe_opts_to_fabric(const struct fe_opts *o, struct fe_fabric *f);
void fe_opts_from_fabric(const struct fe_fabric *f, struct fe_opts *o);

#endif
