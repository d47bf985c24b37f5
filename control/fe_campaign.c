/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemuctl campaign check|run, and testbed clean: the command lines; the stages live in
 * control/campaign/.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/cg.h"
#include "fe_campaign.h"

static int
check(int argc, char **argv)
{
	struct cg_campaign *c = calloc(1, sizeof(*c));
	char err[2048], what[128];
	int rc = 0;

	if (c == NULL)
		return CG_SETUP;
	for (int i = 2; i < argc; i++) {
		if (cg_load(argv[i], c, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			rc = CG_BAD_FILE;
		} else {
			printf("%s: ok (%s: %s)\n", argv[i], c->name,
			       cg_describe(c, what, sizeof(what)));
		}
		free(c->text);
	}
	free(c);
	return rc;
}

/*
 * fabemuctl testbed clean: what campaign runners that are gone left (their record in
 * /run/fabemu/campaign-PID.run names it): their processes, their testbed (or, lent, its
 * bridge and MTU), control socket, DPDK runtime directory. A live runner's is left alone.
 * Exit status: 0 (nothing left of a dead runner), 1 (a record that could not be read),
 * 2 usage.
 */
static int
testbed_clean(int argc, char **argv)
{
	int n;

	if (argc != 2 || strcmp(argv[1], "clean") != 0) {
		fprintf(stderr, "fabemuctl: testbed clean (see --help)\n");
		return CG_USAGE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "fabemuctl testbed clean: must run as root\n");
		return CG_USAGE;
	}
	n = cg_clean_dead(1);
	if (n == 0)
		printf("nothing left by a campaign runner that is gone\n");
	else if (n > 0)
		printf("removed what %d campaign runner(s) that are gone left\n", n);
	return n < 0 ? 1 : 0;
}

/* argv[0] is "campaign" or "testbed". */
int
fe_campaign_main(int argc, char **argv)
{
	static const struct option lo[] = {{"out", required_argument, NULL, 'o'},
					   {"testbed", required_argument, NULL, 't'},
					   {"iterations", required_argument, NULL, 'i'},
					   {NULL, 0, NULL, 0}};
	const char *out = NULL, *testbed = NULL;
	unsigned long iters = 0;
	char *end;
	int ch;

	if (strcmp(argv[0], "testbed") == 0)
		return testbed_clean(argc, argv);
	if (argc >= 3 && strcmp(argv[1], "check") == 0)
		return check(argc, argv);
	if (argc < 3 || strcmp(argv[1], "run") != 0) {
		fprintf(stderr, "fabemuctl: campaign check FILE... | campaign run FILE [--out DIR] "
				"[--testbed NAME] [--iterations N]\n");
		return CG_USAGE;
	}
	optind = 0;
	while ((ch = getopt_long(argc - 1, argv + 1, "", lo, NULL)) != -1) {
		if (ch == 'o') {
			out = optarg;
		} else if (ch == 't') {
			testbed = optarg;
		} else if (ch == 'i') {
			iters = strtoul(optarg, &end, 10);
			if (*end || iters < 1 || iters > CG_MAX_ITERS) {
				fprintf(stderr,
					"fabemuctl: campaign run --iterations '%s' (allowed: 1 to "
					"%d)\n",
					optarg, CG_MAX_ITERS);
				return CG_USAGE;
			}
		} else {
			return CG_USAGE;
		}
	}
	if (optind != argc - 2) {
		fprintf(stderr, "fabemuctl: campaign run needs one campaign file\n");
		return CG_USAGE;
	}
	return cg_campaign_run(argv[optind + 1], out, testbed, (unsigned)iters);
}
