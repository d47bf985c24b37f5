/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabric profiles (control/parse/fe_profile.c): any bytes as a YAML profile. What parses is
 * expanded for 1 and 4 ports at its own scale and at the largest, and every link is
 * compiled and printed (fz_links), as `fabemu-dp --profile` and `fabemuctl apply` would.
 * Seeds: profiles/, the profiles of tests/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fe_fabric.h"
#include "fe_profile.h"
#include "fe_topo.h"
#include "fuzz_common.h"

#define NP 4

static struct fe_profile prof;
static struct fe_linkdef up[NP], down[NP];
static FILE *null_out;

static void
expand(uint32_t scale, unsigned nports)
{
	struct fe_fabric fab;
	char err[1024];

	if (fe_profile_expand(&prof, scale, nports, up, down, &fab, err, sizeof(err)) < 0) {
		FZ_CHECK(err[0] != '\0', "expand failed without a message");
		return;
	}
	fz_links(up, down, nports);
	fe_profile_print_fabric(null_out, &fab);
}

static struct fe_topo topo;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024] = "";

	if (null_out == NULL)
		null_out = fopen("/dev/null", "w");
	/* the same text as a topology (docs/topologies.md): an error or a checked graph */
	err[0] = '\0';
	if (fe_topo_parse((const char *)data, size, "fuzz.yaml", &topo, err, sizeof(err)) < 0) {
		FZ_CHECK(err[0] != '\0', "topology refused without a message");
	} else {
		FZ_CHECK(topo.nsw >= 1 && topo.nsw <= FE_TOPO_SWITCH && topo.nhosts >= 1 &&
				 topo.nports <= FE_TOPO_PORTS && topo.nlinks <= FE_TOPO_LINKS,
			 "topology out of bounds");
		fe_topo_print(null_out, &topo);
		fe_topo_dot(null_out, &topo);
	}
	if (fe_profile_parse((const char *)data, size, "fuzz.yaml", &prof, err, sizeof(err)) < 0) {
		FZ_CHECK(err[0] != '\0', "parse failed without a message");
		return 0;
	}
	FZ_CHECK(prof.noverrides <= FE_PROFILE_OVERRIDES, "%u overrides", prof.noverrides);
	FZ_CHECK(memchr(prof.name, '\0', sizeof(prof.name)) != NULL, "name unterminated");
	expand(0, NP);
	expand(0, 1);
	expand(FE_PROFILE_SCALE_MAX, NP);
	return 0;
}
