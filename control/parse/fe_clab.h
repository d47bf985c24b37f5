/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_clab: a containerlab lab (LAB.clab.yml) as a fabemu lab, for `fabemuctl topology
 * import` (docs/containerlab.md).
 *
 * Two ways to draw it, both valid containerlab files:
 *  - the fabric drawn out: nodes marked switches (labels: {fabemu.role: switch}, or kind
 *    bridge / ovs-bridge) are emulated switches; the other nodes (kind linux) are hosts;
 *    a link between a host and a switch is a port of the host on that switch (a host's
 *    ports, its rails, in the order of the file), a link between two switches a link of
 *    the fabric;
 *  - one fabemu node (labels: {fabemu.role: emulator}) that every host's link ends on: the
 *    fabric is a topology of fabemu's (its label fabemu.topology: a shipped name or a
 *    file; default single), its ports the node's interfaces in their order (eth1 first).
 * Settings ride where containerlab keeps free-form data: a link's `vars: {fabemu: {KEY:
 * VALUE}}` (both directions) or an endpoint's (that end's egress), KEY any `--link` key
 * (rate, delay, buffer, loss, ecn, ...); the lab's regime in a switch's or the fabemu
 * node's labels: fabemu.profile, fabemu.scale, fabemu.path. Errors name FILE:LINE.
 * Pure: no DPDK.
 */
#ifndef FE_CLAB_H
#define FE_CLAB_H

#include <stddef.h>

#include "fe_topo.h"

#define FE_CLAB_SPECS 512
/* A campaign's hosts at most (control/campaign/cg.h's CG_MAX_HOSTS, which checks it): a
 * lab of one port a host has 2 to this many, so that the campaign import writes passes
 * `campaign check`. */
#define FE_CLAB_CAMPAIGN_HOSTS 16

struct fe_clab {
	char name[64];
	char source[512];
	struct fe_topo topo; /* drawn out: the lab's; one fabemu node: as loaded */
	char topo_ref[512];  /* one fabemu node: its fabemu.topology ("" when drawn out) */
	char profile[64];    /* labels: fabemu.profile ("" : ideal) */
	char scale[16], path[32];
	char node[FE_TOPO_PORTS][64]; /* the lab's node behind each dataplane port */
	char ifname[FE_TOPO_PORTS][32];
	unsigned nports;
	char spec[FE_CLAB_SPECS][256]; /* --link specs: "0:rate=25Gbit", "leaf1>spine1:loss=1%" */
	unsigned nspecs;
};

/* Parse the lab (source names it in messages); 0, or -EINVAL with "FILE:LINE: ..." in err. */
int fe_clab_parse(const char *text, size_t len, const char *source, struct fe_clab *lab, char *err,
		  size_t errlen);

/* fe_profile_read + fe_clab_parse. */
int fe_clab_load(const char *path, struct fe_clab *lab, char *err, size_t errlen);

/* Write DIR/topology.yaml (drawn out) and DIR/campaign.yaml: the lab as a campaign over
 * its hosts (198.18.0.N), a wire baseline and the lab's regime. 0; 1 when a host has
 * several ports (rails): the topology only, as campaigns run one port a host; or -errno. */
int fe_clab_write(const struct fe_clab *lab, const char *dir, char *err, size_t errlen);

#endif
