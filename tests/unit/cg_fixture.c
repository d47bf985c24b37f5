/* SPDX-License-Identifier: BSD-3-Clause */
/* The campaign suites' common fixtures (cg_fixture.h). */
#include "cg_fixture.h"

void
cg_fixture_campaign(struct cg_campaign *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->hosts = 2;
	c->fid = (struct cg_fidelity){.late = 0.10, .load = 0.5};
	c->allreduce = 1;
	c->nsizes = 1;
	c->sizes[0] = 1024;
	c->nreg = 3;
	snprintf(c->reg[0].name, sizeof(c->reg[0].name), "wire");
	c->reg[0].kind = CG_WIRE;
	c->reg[0].baseline = 1;
	snprintf(c->reg[1].name, sizeof(c->reg[1].name), "ideal");
	c->reg[1].ideal = 1;
	c->reg[1].baseline = 2;
	snprintf(c->reg[2].name, sizeof(c->reg[2].name), "%s", name);
}

json_t *
cg_fixture_run(const char *regime, json_t *iterations, double ping_rtt_us)
{
	return json_pack("{s:s, s:i, s:o, s:I, s:I, s:f}", "regime", regime, "repetition", 1,
			 "iterations", iterations, "start_ns", (json_int_t)0, "end_ns",
			 (json_int_t)1000000000, "ping_rtt_us", ping_rtt_us);
}
