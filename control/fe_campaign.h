/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Campaigns (docs/campaigns.md): a real job (MPI all-reduce, or any command) run on a
 * veth testbed under each fabric regime of a list, with a timeline of faults, measured
 * end to end: per-iteration times, the hosts' TCP counters, the dataplane's counters.
 * Results go to a directory as JSON, CSV, SVG plots and one HTML page, and a summary
 * table goes to the terminal.
 *
 *   fabemuctl campaign check FILE
 *   fabemuctl campaign run FILE [--out DIR] [--testbed NAME] [--iterations N]
 *   fabemuctl testbed clean     what runners killed outright left behind
 */
#ifndef FE_CAMPAIGN_H
#define FE_CAMPAIGN_H

#include <stdio.h>

/* argv[0] is "campaign" or "testbed". Returns the exit status (docs/campaigns.md). */
int fe_campaign_main(int argc, char **argv);
/* The campaign section of fabemuctl --help: the commands and what each does, FILE|NAME and
 * the exit statuses, as fabemuctl campaign --help says them, then testbed clean. */
void fe_campaign_help(FILE *f);

#endif
