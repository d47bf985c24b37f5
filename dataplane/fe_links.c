/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp's links at start (fe_links.h): a profile's or the options', the topology's,
 * the specs'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_links.h"
#include "fe_linkspec.h"
#include "fe_profile.h"
#include "fe_regimespec.h"

/* Links from a YAML profile at its scale; its seed unless --seed was given; fabric: the
 * class of the links between switches. */
static int
links_from_profile(struct fe_opts *o, unsigned nports, struct fe_linkdef *up,
		   struct fe_linkdef *down, struct fe_linkdef *fabric, char *err, size_t len)
{
	struct fe_profile *p = malloc(sizeof(*p));
	struct fe_fabric fab;
	int rc = -ENOMEM;

	if (p == NULL) {
		snprintf(err, len, "out of memory");
		return rc;
	}
	rc = fe_profile_load(o->profile, p, err, len);
	if (rc == 0)
		rc = fe_profile_expand(p, (uint32_t)o->scale, nports, up, down, &fab, err, len);
	if (rc == 0 && o->topology) /* several switches: their links' class */
		rc = fe_profile_fabric(p, (uint32_t)o->scale, fabric, err, len);
	if (rc == 0) {
		fe_opts_from_fabric(&fab, o);
		if (p->seed_set && !o->seed_set)
			o->dp.seed = p->seed;
		if (p->path_set && !o->path_set) /* --path wins over the profile's path: */
			o->path = p->path;
		o->scale = o->scale ? o->scale : p->scale;
		o->profile = strdup(p->name);
	}
	free(p);
	return rc;
}

int
fe_links_build(struct fe_opts *o, struct fe_topo *topo, struct fe_graph_build *g, unsigned nports,
	       struct fe_linkdef *up, struct fe_linkdef *down, char *err, size_t len)
{
	struct fe_linkdef fabric = o->link;
	struct fe_fabric_links one_switch = {0}; /* fabric, A-B, A>B: refused */
	struct fe_fabric_links *fab = &one_switch;

	if (o->profile) {
		if (links_from_profile(o, nports, up, down, &fabric, err, len) < 0)
			return -EINVAL;
	} else {
		for (unsigned i = 0; i < nports; i++) {
			up[i] = down[i] = o->link;
			if (!o->buffer_set) {
				fe_regime_up_buffer(o->dp.regime, &up[i].link);
				fe_regime_egress_buffer(o->dp.regime, &down[i].link);
			}
		}
		if (!o->buffer_set)
			fe_regime_egress_buffer(o->dp.regime, &fabric.link);
	}
	if (o->topology) {
		char e[400];

		if (fe_topo_load(o->topology, topo, e, sizeof(e)) < 0 ||
		    fe_graph_build(topo, &fabric, o->path, o->box ? topo->nports : nports, g, e,
				   sizeof(e)) < 0) {
			snprintf(err, len, "--topology %s: %s", o->topology, e);
			return -EINVAL;
		}
		fab = &g->fab;
	}
	for (unsigned i = 0; i < o->nnic; i++)
		if (fe_nic_spec(o->nic[i], &o->dp.nic, err, len) < 0)
			return -EINVAL;
	if (fe_nic_check(&o->dp.nic, "--nic: ", err, len, NULL) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < o->nspecs; i++) {
		const struct fe_opts_spec *s = &o->specs[i];
		int rc;

		if (s->is_file) {
			rc = fe_linkspec_file(s->text, up, down, nports, fab, err, len);
		} else {
			char e[400];

			rc = fe_linkspec_apply_fabric(s->text, up, down, nports, fab, e, sizeof(e));
			if (rc < 0)
				snprintf(err, len, "--link '%s': %s", s->text, e);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
fe_links_graph(struct fe_opts *o, const struct fe_topo *topo, struct fe_graph_build *b,
	       const struct fe_split *split, char *err, size_t len)
{
	if (topo->nsw > 1 && o->dp.lcores > 1) {
		snprintf(err, len, "%u switches run on one lcore (--lcores 1)", topo->nsw);
		return -EINVAL;
	}
	b->conf.path = o->path; /* the profile's path: is known once the profile is read */
	b->conf.deadlock_ns = o->deadlock_ns;
	/* the flowlet gap is a switch's time: dilated with the profile, unless given */
	b->conf.flowlet_ns = o->flowlet_ns ? o->flowlet_ns : 100000 * (o->scale ? o->scale : 1);
	b->conf.failover_ns = o->failover_ns ? o->failover_ns : 100000 * (o->scale ? o->scale : 1);
	if (topo->nsw > 1)
		o->dp.graph = &b->conf;
	if (o->box) {
		b->conf.sw_here = split->here;
		b->conf.trunk = split->trunk;
		b->conf.trunk_lat_ns = split->lat_ns;
		b->conf.nall = topo->nports;
		b->conf.all_sw = b->port_sw;
		b->conf.gport = split->gport;
	}
	return 0;
}
