/* SPDX-License-Identifier: BSD-3-Clause */
/* The campaign suites' common fixtures (cg_fixture.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

json_t *
cg_fixture_rep(const char *regime, unsigned rep, unsigned n, double ms)
{
	json_t *it = json_array(), *r;

	for (unsigned i = 0; i < n; i++) {
		double x = ms * (0.9 + 0.2 * (double)i / (n > 1 ? n - 1 : 1));

		json_array_append_new(it, json_pack("[i, I, i, f, I]", i + 1, (json_int_t)1024,
						    i + 1, x * 1000, (json_int_t)i));
	}
	r = cg_fixture_run(regime, it, 50.0);
	json_object_set_new(r, "repetition", json_integer(rep));
	json_object_set_new(r, "verdict", json_string("faithful"));
	json_object_set_new(r, "reasons", json_array());
	json_object_set_new(r, "not_checked", json_array());
	return r;
}

int
cg_fixture_out_open(struct cg_run *run, char *dir, size_t len, const char *tag)
{
	snprintf(dir, len, "/tmp/test_cg_%sXXXXXX", tag);
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(run->out, sizeof(run->out), "%s", dir);
	run->unwritten = json_array();
	run->warnings = json_array();
	run->capacity = json_object();
	return 0;
}

int
cg_fixture_out_close(struct cg_run *run, const char *dir)
{
	char cmd[128];

	json_decref(run->unwritten);
	json_decref(run->warnings);
	json_decref(run->capacity);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

char *
cg_fixture_slurp(const char *path)
{
	static char buf[1 << 17];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}
