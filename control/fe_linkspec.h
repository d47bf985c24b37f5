/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link parameters from the command line and from a small profile file.
 *
 * A spec is "[SELECTOR:]key=value[,key=value...]". The selector picks links:
 * "all" (the default), "up" or "down" (that direction of every port), "N" (both
 * directions of port N) or "N.up" / "N.down". "up" is host-to-switch, "down" is
 * switch-to-host. Keys: rate (bit/s, e.g. 1Gbit), delay (e.g. 100us), buffer
 * (bytes, e.g. 512KiB; 0 = no limit), buffer-pkts (packets; 0 = no limit).
 * A profile file holds one spec per line; '#' starts a comment.
 *
 * Specs are applied in order, so later ones override earlier ones. Each function
 * returns 0 or -EINVAL with a message naming the bad selector, key or value.
 */
#ifndef FE_LINKSPEC_H
#define FE_LINKSPEC_H

#include <stddef.h>

#include "fe_link.h"

/* Set one key of one link's parameters. */
int fe_link_param_set(struct fe_link_params *p, const char *key, const char *val, char *err,
		      size_t errlen);

/* Apply one spec to the up[] and down[] parameters of nports ports. */
int fe_linkspec_apply(const char *spec, struct fe_link_params *up, struct fe_link_params *down,
		      unsigned nports, char *err, size_t errlen);

/* Apply every spec in a file; errors start with "FILE:LINE: ". */
int fe_linkspec_file(const char *path, struct fe_link_params *up, struct fe_link_params *down,
		     unsigned nports, char *err, size_t errlen);

#endif
