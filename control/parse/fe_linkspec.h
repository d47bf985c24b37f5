/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link parameters from the command line and from a small profile file.
 *
 * A spec is "[SELECTOR:]key=value[,key=value...]". The selector picks links:
 * "all" (the default), "up" or "down" (that direction of every port), "N" (both
 * directions of port N) or "N.up" / "N.down". "up" is host-to-switch, "down" is
 * switch-to-host. With several switches (docs/topologies.md) "fabric" picks every link
 * between switches, "A-B" both directions of the link so named, "A>B" one; "all" picks
 * them too. Keys (docs/regimes.md has units and ranges):
 *   rate, delay, buffer, buffer-pkts        the link itself
 *   loss=P%                                 Bernoulli loss
 *   ge=P%/R%[/LOSS_BAD%[/LOSS_GOOD%]]       Gilbert-Elliott loss
 *   ecn=KMIN/KMAX[/PMAX%][/drop] or off     RED-style CE marking (sizes in bytes)
 *   jitter=TIME                             uniform extra delay, no reordering
 *   drop=K[/N]                              drop matching packets K .. K+N-1
 *   llr=on|off                              link-level retry: what loss and ge hit is
 *                                           sent again a link round trip later
 *   match=EXPR                              tcpdump filter for the impairments above;
 *                                           it is last: the rest of the spec is EXPR
 * A profile file holds one spec per line; '#' starts a comment.
 *
 * Specs are applied in order, so later ones override earlier ones. Each function
 * returns 0 or -EINVAL with a message naming the bad selector, key or value.
 */
#ifndef FE_LINKSPEC_H
#define FE_LINKSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "fe_linkdef.h"

/* Set one key of one link's parameters; a message starts with the key (rules: fe_rules.h). */
int fe_link_param_set(struct fe_linkdef *p, const char *key, const char *val, char *err,
		      size_t errlen);

/* Key i of those a link takes (NULL past the last), and in *example a value of it. */
const char *fe_link_param_key(unsigned i, const char **example);

enum { FE_SEL_UP = 1, FE_SEL_DOWN = 2, FE_SEL_FABRIC = 4 };

/* The links between switches, for selectors that name them: n directions, def[i] each,
 * dir[i] its name ("leaf1>spine2"), link[i / 2] its link's ("leaf1-spine2"). */
struct fe_fabric_links {
	unsigned n;
	struct fe_linkdef *def;
	const char (*dir)[80];
	const char (*link)[72];
};

/* Parse a selector: *port is the port or -1 for every port, *dirs has FE_SEL_* bits. */
int fe_linkspec_select(const char *sel, unsigned nports, long *port, int *dirs, char *err,
		       size_t errlen);

/*
 * A selector over the ports' links and fab's: *port and *dirs as fe_linkspec_select()
 * (dirs FE_SEL_FABRIC: all of fab's), or pick[i] set for each of fab's directions it
 * names (dirs 0). pick has fab->n entries, zeroed by the caller. fab NULL: the ports'
 * links alone, "fabric" accepted and picking none (a profile's entries, which a topology
 * may take later); fab with n 0: a fabric of one switch (no topology), where "fabric",
 * A-B and A>B are refused, naming none.
 */
int fe_linkspec_pick(const char *sel, unsigned nports, const struct fe_fabric_links *fab,
		     long *port, int *dirs, uint8_t *pick, char *err, size_t len);

/* sel is a link of fab named the other way round (B-A for A-B): -EINVAL and a message
 * naming it and its directions; else 0. */
int fe_linkspec_misnamed(const char *sel, const struct fe_fabric_links *fab, char *err, size_t len);

/* Apply one spec to the up[] and down[] parameters of nports ports ("fabric": none). */
int fe_linkspec_apply(const char *spec, struct fe_linkdef *up, struct fe_linkdef *down,
		      unsigned nports, char *err, size_t errlen);

/* The same, and to the links between switches of fab (NULL, n 0: fe_linkspec_pick()). */
int fe_linkspec_apply_fabric(const char *spec, struct fe_linkdef *up, struct fe_linkdef *down,
			     unsigned nports, struct fe_fabric_links *fab, char *err,
			     size_t errlen);

/*
 * The whole of d as the keys of a spec (no selector), so that it sets a link as d is:
 * rate (0: unlimited), delay, buffer, buffer-pkts, loss or ge (loss=0%: none), ecn
 * (off: none), jitter; drop and match only when d has them (match last). It reads back
 * as d (fe_link_param_set). 0, or -ENOSPC.
 */
int fe_linkdef_spec(const struct fe_linkdef *d, char *buf, size_t len);

/*
 * Apply every spec in a file, as fe_linkspec_apply_fabric() (fab: the links between
 * switches, with none for one switch; NULL: not known here); errors start with
 * "FILE:LINE: ".
 */
int fe_linkspec_file(const char *path, struct fe_linkdef *up, struct fe_linkdef *down,
		     unsigned nports, struct fe_fabric_links *fab, char *err, size_t errlen);

#endif
