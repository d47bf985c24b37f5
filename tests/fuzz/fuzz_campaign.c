/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Campaign files (control/campaign/cg_file.c, cg_load()): any bytes as a campaign, read
 * from a file as `fabemuctl campaign run FILE` reads it, and compiled: its regimes'
 * profiles (shipped ones, by name) are loaded and expanded, its link specs applied, its
 * timeline turned into steps; or a suite's scenes named. Seeds: testbeds/campaigns/,
 * tests/bench/gap-*.yaml and the campaigns of tests/e2e/campaign.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"
#include "fuzz_common.h"

static struct cg_campaign camp;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[2048] = "";
	int rc;

	rc = cg_load(fz_file(data, size), &camp, err, sizeof(err));
	free(camp.text);
	camp.text = NULL;
	if (rc < 0) {
		FZ_CHECK(err[0] != '\0', "refused without a message");
		return 0;
	}
	if (camp.nscenes) { /* a suite: its scenes, nothing else */
		FZ_CHECK(camp.nscenes <= CG_MAX_SCENES && camp.nreg == 0 && camp.nsteps == 0,
			 "a suite of %u scenes with %u regimes", camp.nscenes, camp.nreg);
		for (unsigned i = 0; i < camp.nscenes; i++)
			FZ_CHECK(camp.scene[i][0] != '\0', "scene %u empty", i);
		return 0;
	}
	FZ_CHECK(camp.nreg >= 1 && camp.nreg <= CG_MAX_REGIMES, "%u regimes", camp.nreg);
	FZ_CHECK(camp.nsteps <= CG_STEPS_MAX, "%u steps", camp.nsteps);
	FZ_CHECK(camp.hosts >= 2 && camp.hosts <= CG_MAX_HOSTS, "%u hosts", camp.hosts);
	return 0;
}
