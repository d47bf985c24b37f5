/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Commands on a campaign's hosts (control/campaign/cg_testbed.c, cg_host_sh()): a command
 * run through a host's prefix reaches the host as it was written, whether the prefix
 * passes its arguments on whole (ip netns exec, env) or hands them to a shell that parses
 * them again (ssh; here eval, which joins them and parses them as ssh's remote shell
 * does); the veth kind's prefix.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/cg.h"

static struct cg_campaign camp;
static struct cg_run run = {.c = &camp, .testbed = "fe"};

/* What cmd prints, run on host h through its prefix by /bin/sh, as the runner runs it. */
static const char *
through(unsigned h, const char *cmd)
{
	static char out[4096];
	char hc[8192];
	FILE *f;
	size_t n;

	cr_assert_eq(cg_host_sh(&run, h, cmd, hc, sizeof(hc)), 0, "%s", cmd);
	f = popen(hc, "r");
	cr_assert_not_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	cr_expect_eq(pclose(f), 0, "%s", hc);
	return out;
}

static const char *const commands[] = {
	"echo plain",
	"printf '%s|' \"a b\" 'it'\\''s' \"$((1 + 2))\"",
	"x='$HOME'; echo \"$x\" \\\\ \"`echo back`\"",
	"for i in 1 2; do echo \"line $i\"; done | tr '\\n' ,",
};
static const char *const printed[] = {
	"plain\n",
	"a b|it's|3|",
	"$HOME \\ back\n",
	"line 1,line 2,",
};

Test(campaign_hosts, a_command_reaches_the_host_as_written)
{
	camp.tb = CG_TB_HOSTS;
	camp.hosts = 2;
	snprintf(camp.host[1].prefix, sizeof(camp.host[1].prefix), "env FE_T=1");
	camp.host[1].shell = 0; /* as ip netns exec: its arguments whole */
	snprintf(camp.host[2].prefix, sizeof(camp.host[2].prefix), "eval");
	camp.host[2].shell = 1; /* as ssh: its arguments joined, parsed again */
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		for (unsigned h = 1; h <= 2; h++)
			cr_expect_str_eq(through(h, commands[i]), printed[i], "host %u: %s", h,
					 commands[i]);
}

Test(campaign_hosts, prefixes_of_each_kind)
{
	char buf[300], hc[512];

	camp.tb = CG_TB_VETH;
	camp.host[3].shell = 0;
	cr_expect_str_eq(cg_host_prefix(&run, 3, buf, sizeof(buf)), "ip netns exec fe-h3");
	cr_expect_eq(cg_host_sh(&run, 3, "echo 'x'", hc, sizeof(hc)), 0);
	cr_expect_str_eq(hc, "ip netns exec fe-h3 sh -c 'echo '\\''x'\\'''");
	camp.tb = CG_TB_HOSTS;
	snprintf(camp.host[3].prefix, sizeof(camp.host[3].prefix), "ssh root@lab-c");
	cr_expect_str_eq(cg_host_prefix(&run, 3, buf, sizeof(buf)), "ssh root@lab-c");
	/* a command that does not fit is refused, never cut */
	cr_expect_eq(cg_host_sh(&run, 3, "echo a-long-command", hc, 20), -1);
}
