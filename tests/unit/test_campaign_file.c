/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Campaign files (control/campaign/cg_file.c, cg_load()): a key the schema does not know
 * is refused at its line, and the message lists every key that mapping takes, so that a
 * user who mistyped one finds the right one there.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/cg.h"

static struct cg_campaign camp;

/* cg_load() of text as a file named x.yaml; err gets the message. */
static int
load(const char *text, char *err, size_t len)
{
	char dir[] = "/tmp/fe-test-campaign.XXXXXX", path[64];
	FILE *f;
	int rc;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.yaml", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	rc = cg_load(path, &camp, err, len);
	free(camp.text);
	camp.text = NULL;
	unlink(path);
	rmdir(dir);
	/* the message names the file by its path: keep what follows it */
	if (strncmp(err, path, strlen(path)) == 0)
		memmove(err, err + strlen(path), strlen(err + strlen(path)) + 1);
	return rc;
}

static const struct {
	const char *text, *msg;
} unknown[] = {
	{"name: t\nhots: 4\n",
	 ":2: unknown key 'hots' (known: name, description, hosts, cores, pmd, ring, mtu, "
	 "dataplane, repetitions, seed, host-ecn, fidelity, job, regimes, timeline, beside)"},
	{"name: t\nregimes:\n  - name: a\n    profile: ideal\n    splt: true\n",
	 ":5: unknown key 'splt' in regimes (known: name, kind, profile, scale, pmd, ring, mtu, "
	 "dataplane, nic, topology, path, split, realtime, links)"},
	{"name: t\njob: {kind: allreduce, warmpu: 1}\n",
	 ":2: unknown key 'warmpu' in job (known: kind, iterations, warmup, command, sizes)"},
	{"name: t\ntimeline:\n  - action: drop\n    at: {iter: 4}\n",
	 ":4: unknown key 'iter' in at (known: iteration, time)"},
	{"name: t\nfidelity: {late: 1%}\n",
	 ":2: unknown key 'late' in fidelity (known: lateness, load, capacity, capacity-time)"},
};

Test(campaign_file, unknown_key_lists_every_known_key)
{
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		char err[1024] = "";

		cr_expect_lt(load(unknown[i].text, err, sizeof(err)), 0, "accepted: %s",
			     unknown[i].text);
		cr_expect_str_eq(err, unknown[i].msg, "input:\n%s", unknown[i].text);
	}
}
