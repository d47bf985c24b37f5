/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * containerlab labs (control/parse/fe_clab.c, `fabemuctl topology import`): any bytes as a
 * lab file. A refusal says why, at a line; a lab it takes is a checked topology within its
 * limits, a host port for each lab node behind one, and --link specs that --link takes
 * again on that topology's ports. Seeds: testbeds/containerlab/, written by hand.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_clab.h"
#include "fe_linkspec.h"
#include "fuzz_common.h"

static struct fe_clab lab;
static struct fe_linkdef up[FE_TOPO_PORTS], down[FE_TOPO_PORTS], def[2 * FE_TOPO_LINKS];
static char dir[2 * FE_TOPO_LINKS][80], lname[FE_TOPO_LINKS][72];
static struct fe_fabric_links fab = {
	.def = def, .dir = (const char (*)[80])dir, .link = (const char (*)[72])lname};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024] = "";

	if (fe_clab_parse((const char *)data, size, "fuzz.clab.yml", &lab, err, sizeof(err)) < 0) {
		FZ_CHECK(strncmp(err, "fuzz.clab.yml:", 14) == 0, "refused without FILE:LINE");
		return 0;
	}
	FZ_CHECK(lab.topo.nsw >= 1 && lab.topo.nsw <= FE_TOPO_SWITCH && lab.topo.nhosts >= 1 &&
			 lab.topo.nports <= FE_TOPO_PORTS && lab.topo.nlinks <= FE_TOPO_LINKS,
		 "topology out of bounds");
	FZ_CHECK(lab.nports == lab.topo.nports, "a port without its lab node, or the reverse");
	FZ_CHECK(lab.nspecs <= FE_CLAB_SPECS, "too many specs");
	for (unsigned p = 0; p < lab.nports; p++)
		FZ_CHECK(lab.node[p][0] != '\0' && lab.ifname[p][0] != '\0', "a port of no node");
	/* every spec, as fabemu-dp takes it on that topology (its fabric links by name) */
	memset(up, 0, sizeof(up));
	memset(down, 0, sizeof(down));
	memset(def, 0, sizeof(def));
	fe_topo_fabric_names(&lab.topo, dir, lname);
	fab.n = 2 * lab.topo.nlinks;
	for (unsigned i = 0; i < lab.nspecs; i++)
		FZ_CHECK(fe_linkspec_apply_fabric(lab.spec[i], up, down, lab.nports, &fab, err,
						  sizeof(err)) == 0,
			 "an imported spec --link refuses");
	return 0;
}
