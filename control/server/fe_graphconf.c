/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fe_graphconf.h"

int
fe_graph_build(const struct fe_topo *t, const struct fe_linkdef *fabric, enum fe_path path,
	       unsigned nports, struct fe_graph_build *b, char *err, size_t errlen)
{
	if (t->nports != nports) {
		snprintf(err, errlen, "topology %s has %u host ports; the dataplane has %u",
			 t->name, t->nports, nports);
		return -EINVAL;
	}
	memset(b, 0, sizeof(*b));
	fe_route_compute(t, &b->routes);
	for (unsigned s = 0; s < t->nsw; s++) {
		snprintf(b->names[s], sizeof(b->names[s]), "%s", t->sw[s].name);
		b->sw_buffer[s] = t->sw[s].buffer;
	}
	for (unsigned h = 0; h < t->nhosts; h++)
		for (unsigned p = 0; p < t->host[h].nports; p++)
			b->port_sw[t->host[h].first_port + p] = (uint8_t)t->host[h].sw[p];
	for (unsigned l = 0; l < t->nlinks; l++) {
		const struct fe_topo_link *tl = &t->link[l];
		struct fe_linkdef d;

		b->topo[l] = fe_topo_over(tl);
		fe_linkdef_apply_over(fabric, &b->topo[l], &d);
		b->ends[l][0] = (uint16_t)tl->a;
		b->ends[l][1] = (uint16_t)tl->b;
		b->def[2 * l] = b->def[2 * l + 1] = d;
	}
	fe_topo_fabric_names(t, b->dir_names, b->link_names);
	b->fab = (struct fe_fabric_links){.n = 2 * t->nlinks,
					  .def = b->def,
					  .dir = (const char(*)[80])b->dir_names,
					  .link = (const char(*)[72])b->link_names};
	for (unsigned s = 0; s < t->nsw; s++)
		for (unsigned d = 0; d < t->nsw; d++) {
			unsigned n = b->routes.nnh[s][d];

			b->nnh[s][d] = (uint8_t)(n < FE_GRAPH_WAYS ? n : FE_GRAPH_WAYS);
			for (unsigned k = 0; k < b->nnh[s][d]; k++)
				b->nh[s][d][k] = (uint16_t)(2 * b->routes.nh[s][d][k].link +
							    b->routes.nh[s][d][k].dir);
			b->tree[s][d] = s == d ? UINT16_MAX
					       : (uint16_t)(2 * b->routes.parent[s][d].link +
							    b->routes.parent[s][d].dir);
		}
	b->conf = (struct fe_graph_conf){
		.nsw = t->nsw,
		.sw_names = (const char(*)[32])b->names,
		.port_sw = b->port_sw,
		.nlinks = t->nlinks,
		.ends = (const uint16_t(*)[2])b->ends,
		.def = b->def,
		.dir_names = (const char(*)[80])b->dir_names,
		.link_names = (const char(*)[72])b->link_names,
		.topo = b->topo,
		.sw_buffer = b->sw_buffer,
		.nnh = (const uint8_t(*)[FE_GRAPH_SW])b->nnh,
		.nh = (const uint16_t(*)[FE_GRAPH_SW][FE_GRAPH_WAYS])b->nh,
		.tree = (const uint16_t(*)[FE_GRAPH_SW])b->tree,
		.path = path,
	};
	return 0;
}
