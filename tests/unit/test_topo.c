/* SPDX-License-Identifier: BSD-3-Clause */
/* Topologies (docs/topologies.md): the shipped ones, the generators' shapes, the rules. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <string.h>

#include "fe_topo.h"

static struct fe_topo t;

Test(topo, shipped)
{
	static const struct {
		const char *name;
		unsigned nsw, nhosts, nports, nlinks;
		int cyclic;
	} want[] = {
		{"single", 1, 4, 4, 0, 0},	 {"leaf-spine", 4, 8, 8, 4, 1},
		{"fat-tree", 20, 16, 16, 32, 1}, {"rail", 3, 4, 8, 2, 0},
		{"ring3", 3, 3, 3, 3, 1},
	};
	char err[512];

	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert_eq(fe_topo_load(want[i].name, &t, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(t.nsw, want[i].nsw, "%s", want[i].name);
		cr_assert_eq(t.nhosts, want[i].nhosts, "%s", want[i].name);
		cr_assert_eq(t.nports, want[i].nports, "%s", want[i].name);
		cr_assert_eq(t.nlinks, want[i].nlinks, "%s", want[i].name);
		cr_assert_eq(t.cyclic, want[i].cyclic, "%s", want[i].name);
	}
}

Test(topo, fat_tree_wiring)
{
	struct fe_topo_gen g = {.kind = "fat-tree", .k = 4};
	unsigned deg[FE_TOPO_SWITCH] = {0};
	char err[256];

	cr_assert_eq(fe_topo_generate(&g, &t, err, sizeof(err)), 0, "%s", err);
	for (unsigned i = 0; i < t.nlinks; i++) {
		deg[t.link[i].a]++;
		deg[t.link[i].b]++;
	}
	for (unsigned i = 0; i < t.nhosts; i++)
		deg[t.host[i].sw[0]]++;
	/* k-port switches: every port of every switch used, hosts included */
	for (unsigned s = 0; s < t.nsw; s++)
		cr_assert_eq(deg[s], 4, "%s has %u ports in use", t.sw[s].name, deg[s]);
	cr_assert_str_eq(t.link[0].name, "edge1-1-agg1-1");
	g.k = 6;
	cr_assert_eq(fe_topo_generate(&g, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.nsw, 45);
	cr_assert_eq(t.nhosts, 54);
	cr_assert_eq(t.nlinks, 108);
	g.k = 5;
	cr_assert_eq(fe_topo_generate(&g, &t, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "fat-tree: k 5 (allowed: an even number, 2 or more)");
}

Test(topo, leaf_spine_oversubscription)
{
	struct fe_topo_gen g = {
		.kind = "leaf-spine", .leaves = 3, .spines = 4, .hosts_per_leaf = 8, .oversub = 1};
	char err[256];

	cr_assert_eq(fe_topo_generate(&g, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.nlinks, 12);
	/* 8 hosts' worth over 4 uplinks at 1:1: each uplink twice a host link */
	cr_assert_eq(t.link[0].rate_num, 2);
	cr_assert_eq(t.link[0].rate_den, 1);
	g.oversub = 3;
	cr_assert_eq(fe_topo_generate(&g, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.link[0].rate_num, 2);
	cr_assert_eq(t.link[0].rate_den, 3);
	cr_assert_eq(t.host[8].sw[0], 5, "hosts 9..16 on leaf2 (switches: spines first)");
	g.hosts_per_leaf = 40; /* 120 hosts */
	cr_assert_eq(fe_topo_generate(&g, &t, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "leaf-spine: 120 hosts (at most 64)");
}

Test(topo, rails_and_parallel_links)
{
	static const char y[] = "name: r\nswitches: [{name: a}, {name: b}]\n"
				"hosts:\n  - {name: h1, rails: [a, b]}\n  - {name: h2, switch: b}\n"
				"links:\n  - {a: a, b: b, count: 2, rate: 800Gbit}\n"
				"  - {a: a, b: b, rate: 1/4}\n"
				"  - {a: a, b: b, rate: 4/2}\n";
	char err[256], *out = NULL;
	size_t n = 0;
	FILE *f;

	cr_assert_eq(fe_topo_parse(y, strlen(y), "t.yaml", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.nports, 3);
	cr_assert_eq(t.host[0].nports, 2);
	cr_assert_eq(t.host[1].first_port, 2);
	cr_assert_str_eq(t.link[0].name, "a-b");
	cr_assert_str_eq(t.link[1].name, "a-b.2");
	cr_assert_eq(t.link[1].rate_bps, 800000000000ULL);
	/* a share of the class's rate: as a generated leaf-spine's uplinks */
	cr_assert_str_eq(t.link[2].name, "a-b.3");
	cr_assert_eq(t.link[2].rate_bps, 0);
	cr_assert(t.link[2].rate_num == 1 && t.link[2].rate_den == 4, "%u/%u", t.link[2].rate_num,
		  t.link[2].rate_den);
	cr_assert_eq(t.cyclic, 1, "two parallel links are a cycle");
	/* shares printed in lowest terms, a whole multiple as one number */
	f = open_memstream(&out, &n);
	fe_topo_print(f, &t);
	fclose(f);
	cr_assert(strstr(out, "link a-b.3                rate the class's x 1/4,") != NULL, "%s",
		  out);
	cr_assert(strstr(out, "link a-b.4                rate the class's x 2,") != NULL, "%s",
		  out);
	free(out);
}

struct bad {
	char yaml[200];
	char err[240];
};

static struct bad bad_topos[] = {
	{"name: x\nswitches: [{name: a}, {name: b}]\nhosts: [{name: h, switch: a}]\n",
	 "t.yaml:2: disconnected: no path of links joins switch 'b' to switch 'a'"},
	{"name: x\nswitches: [{name: a}]\nhosts:\n  - {name: h}\n",
	 "t.yaml:4: host 'h': on no switch (give switch: NAME, or rails: [NAME, ...] for a "
	 "port on each)"},
	{"name: x\nswitches: [{name: a}]\nhosts:\n  - {name: h, switch: z}\n",
	 "t.yaml:4: host 'h': no switch 'z'"},
	{"name: x\nswitches:\n  - {name: a}\n  - {name: a}\nhosts: [{name: h, switch: a}]\n",
	 "t.yaml:4: the name 'a' is taken twice (switches and hosts share one name space)"},
	{"name: x\nswitches: [{name: a}]\nhosts:\n  - {name: a, switch: a}\n",
	 "t.yaml:4: the name 'a' is taken twice (switches and hosts share one name space)"},
	{"name: x\nswitches: [{name: a}]\nhosts: [{name: h, switch: a}]\nlinks:\n  - {a: a, b: "
	 "h}\n",
	 "t.yaml:5: links.0: no switch 'h' (a host: hosts are on switches, by switch: or "
	 "rails:)"},
	{"name: x\nswitches: [{name: a}]\nhosts: [{name: h, switch: a}]\nlinks:\n  - {a: a, b: "
	 "a}\n",
	 "t.yaml:5: links.0: joins 'a' to itself"},
	{"name: x\nswitches: [{name: a}, {name: b}]\nhosts: [{name: h, switch: a}]\nlinks:\n  - "
	 "{a: a, b: b, rate: 0/2}\n",
	 "t.yaml:5: rate '0/2': a share of the class's rate is N/M, each 1 to 1000"},
	{"name: x\ngenerate: {kind: torus}\n",
	 "t.yaml:2: generate: kind 'torus' (allowed: single, leaf-spine, fat-tree, rail, ring)"},
	{"name: x\ngenerate: {kind: ring, switches: 2}\n",
	 "t.yaml:2: generate: ring: switches 2 (allowed: 3 or more)"},
	{"name: x\ngenerate: {kind: single}\nswitches: [{name: a}]\n",
	 "t.yaml:2: generate: or switches:, hosts: and links:, not both"},
	{"name: x\ngenerate:\n  kind: single\n  hosts: 0\n",
	 "t.yaml:4: generate.hosts '0' (allowed: 1 to 64)"},
	{"switches: [{name: a}]\n", "t.yaml: the topology needs a name (name: ...)"},
	/* link names: made of their switches' (a-b and c, a and b-c: both a-b-c) */
	{"name: x\nswitches:\n  - {name: a-b}\n  - {name: c}\n  - {name: a}\n  - {name: "
	 "b-c}\nhosts: [{name: h, switch: a}]\nlinks:\n  - {a: a-b, b: c}\n  - {a: a, b: b-c}\n",
	 "t.yaml:10: links a-b to c and a to b-c are both named 'a-b-c': rename a switch"},
	{"name: x\nswitches: [{name: a}, {name: b}, {name: b.2}]\nhosts: [{name: h, switch: "
	 "a}]\nlinks:\n  - {a: a, b: b, count: 2}\n  - {a: a, b: b.2}\n",
	 "t.yaml:6: links a to b and a to b.2 are both named 'a-b.2': rename a switch"},
	{"name: x\nswitches: [{name: a}, {name: b}, {name: a.2}]\nhosts: [{name: h, switch: "
	 "a}]\nlinks:\n  - {a: a, b: b, count: 2}\n  - {a: b, b: a.2}\n",
	 "t.yaml:6: links a to b and b to a.2 are both named 'b>a.2': rename a switch"},
	{"name: x\ngenerate: {kind: fat-tree, k: 7}\n",
	 "t.yaml:2: generate: fat-tree: k 7 (allowed: an even number, 2 or more)"},
	{"name: x\nswitches:\n  - {name: a}\n  - {name: 's:t'}\nhosts: [{name: h, switch: a}]\n",
	 "t.yaml:4: switch 's:t': a name of letters, digits, '_', '-' and '.' only (it names "
	 "links: A-B, A>B)"},
	{"name: x\nswitches: [{name: a}]\nhosts:\n  - {name: 'h>1', switch: a}\n",
	 "t.yaml:4: host 'h>1': a name of letters, digits, '_', '-' and '.' only (it names "
	 "links: A-B, A>B)"},
	{"name: x\nswitches:\n  - {name: ''}\nhosts: [{name: h, switch: ''}]\n",
	 "t.yaml:3: switch '': an empty name (it names links: A-B, A>B)"},
	{"name: x\nswitches:\n  - {name: a, box: 'b 1'}\nhosts: [{name: h, switch: a}]\n",
	 "t.yaml:3: switch 'a': box 'b 1': a name of letters, digits, '_', '-' and '.' only"},
	{"name: x\nswitches: [{name: a}]\nhosts:\n  - {name: h, switch: a, rails: [a]}\n",
	 "t.yaml:4: host 'h': switch: or rails:, not both"},
	/* a generator: a key of another kind, its size */
	{"name: x\ngenerate:\n  kind: leaf-spine\n  leaves: 4\n  hosts: 16\n",
	 "t.yaml:5: generate: kind leaf-spine takes no hosts (its keys: leaves, spines, "
	 "hosts-per-leaf, oversubscription)"},
	{"name: x\ngenerate: {kind: ring, k: 4}\n",
	 "t.yaml:2: generate: kind ring takes no k (its keys: switches)"},
	{"name: x\ngenerate: {kind: leaf-spine, leaves: 40, spines: 30}\n",
	 "t.yaml:2: generate: leaf-spine: 70 switches (at most 64)"},
	{"name: x\ngenerate: {kind: fat-tree, k: 8}\n",
	 "t.yaml:2: generate: fat-tree: 80 switches (at most 64)"},
	{"name: x\nrouting: clockwise\ngenerate: {kind: ring}\n",
	 "t.yaml:2: routing 'clockwise' (allowed: shortest, one-way)"},
	{"name: x\nrouting: one-way\nswitches: [{name: a}, {name: b}]\nhosts: [{name: h, "
	 "switch: a}]\nlinks:\n  - {a: a, b: b}\n",
	 "t.yaml:3: routing one-way: no path from switch 'b' to switch 'a' along the links' "
	 "a-to-b direction"},
};

ParameterizedTestParameters(topo, bad)
{
	return cr_make_param_array(struct bad, bad_topos, sizeof(bad_topos) / sizeof(bad_topos[0]));
}

ParameterizedTest(struct bad *b, topo, bad)
{
	char err[512] = "";

	cr_assert_neq(fe_topo_parse(b->yaml, strlen(b->yaml), "t.yaml", &t, err, sizeof(err)), 0,
		      "accepted:\n%s", b->yaml);
	cr_assert_str_eq(err, b->err, "topology:\n%s", b->yaml);
}

/* 65 switches: refused at the 65th's line */
Test(topo, too_many_switches_at_the_line)
{
	char y[4096], err[512];
	int n = snprintf(y, sizeof(y), "name: x\nswitches:\n");

	for (unsigned i = 0; i < FE_TOPO_SWITCH + 1; i++)
		n += snprintf(y + n, sizeof(y) - (size_t)n, "  - {name: s%u}\n", i + 1);
	snprintf(y + n, sizeof(y) - (size_t)n, "hosts: [{name: h, switch: s1}]\n");
	cr_assert_eq(fe_topo_parse(y, strlen(y), "t.yaml", &t, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "t.yaml:67: more than 64 switches");
}

Test(topo, dot_names_every_port_and_link)
{
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(fe_topo_load("rail", &t, err, sizeof(err)), 0, "%s", err);
	fe_topo_dot(f, &t);
	fclose(f);
	cr_assert(strstr(buf, "\"h1\" -- \"rail1\" [label=\"port 0\"]") != NULL, "%s", buf);
	cr_assert(strstr(buf, "\"h1\" -- \"rail2\" [label=\"port 1\"]") != NULL, "%s", buf);
	cr_assert(strstr(buf, "\"rail2\" -- \"spine1\"") != NULL, "%s", buf);
	free(buf);
	/* the topology's own name, any text: escaped */
	snprintf(t.name, sizeof(t.name), "a \"b\" \\c");
	f = open_memstream(&buf, &len);
	fe_topo_dot(f, &t);
	fclose(f);
	cr_assert(strstr(buf, "graph \"a \\\"b\\\" \\\\c\" {\n") != NULL, "%s", buf);
	cr_assert(strstr(buf, "label=\"a \\\"b\\\" \\\\c\"];") != NULL, "%s", buf);
	free(buf);
}

#include "fe_route.h"

static struct fe_routes routes;

static int
sw(const char *name)
{
	for (unsigned i = 0; i < t.nsw; i++)
		if (strcmp(t.sw[i].name, name) == 0)
			return (int)i;
	cr_assert_fail("no switch %s", name);
	return -1;
}

/* Every next hop brings a frame one hop nearer; every tree reaches every switch once. */
static void
loop_free(void)
{
	for (unsigned s = 0; s < t.nsw; s++) {
		unsigned tree = 0;

		for (unsigned d = 0; d < t.nsw; d++) {
			cr_assert_neq(routes.dist[s][d], FE_ROUTE_NONE);
			cr_assert_eq(routes.nnh[s][d] == 0, s == d, "%u -> %u", s, d);
			for (unsigned k = 0; k < routes.nnh[s][d]; k++)
				cr_assert_eq(routes.dist[routes.nh[s][d][k].to][d] + 1,
					     routes.dist[s][d]);
			/* one-way unicast distances are not the tree's (it goes both ways) */
			tree += d != s && routes.parent[s][d].to == d &&
				(t.oneway ||
				 routes.dist[s][d] ==
					 routes.dist[s]
						    [t.link[routes.parent[s][d].link].a == d
							     ? t.link[routes.parent[s][d].link].b
							     : t.link[routes.parent[s][d].link].a] +
						 1);
		}
		cr_assert_eq(tree, t.nsw - 1, "the tree rooted at %s spans the switches",
			     t.sw[s].name);
	}
}

Test(route, leaf_spine_ecmp)
{
	char err[256];

	cr_assert_eq(fe_topo_load("leaf-spine", &t, err, sizeof(err)), 0, "%s", err);
	fe_route_compute(&t, &routes);
	loop_free();
	cr_assert_eq(routes.dist[sw("leaf1")][sw("leaf2")], 2);
	cr_assert_eq(routes.nnh[sw("leaf1")][sw("leaf2")], 2, "both spines");
	cr_assert_eq(routes.nnh[sw("spine1")][sw("leaf2")], 1);
	cr_assert_str_eq(t.link[routes.nh[sw("spine1")][sw("leaf2")][0].link].name, "leaf2-spine1");
	cr_assert_eq(routes.nh[sw("spine1")][sw("leaf2")][0].dir, 1, "crossed from its b end");
}

Test(route, fat_tree_paths)
{
	char err[256];

	cr_assert_eq(fe_topo_load("fat-tree", &t, err, sizeof(err)), 0, "%s", err);
	fe_route_compute(&t, &routes);
	loop_free();
	/* another pod: edge, aggregation, core, aggregation, edge — 2 ways up, 2 ways on */
	cr_assert_eq(routes.dist[sw("edge1-1")][sw("edge2-1")], 4);
	cr_assert_eq(routes.nnh[sw("edge1-1")][sw("edge2-1")], 2);
	cr_assert_eq(routes.nnh[sw("agg1-1")][sw("edge2-1")], 2);
	cr_assert_eq(routes.nnh[sw("core1")][sw("edge2-1")], 1, "down: one way");
	/* the same pod: through either aggregation switch */
	cr_assert_eq(routes.dist[sw("edge1-1")][sw("edge1-2")], 2);
	cr_assert_eq(routes.nnh[sw("edge1-1")][sw("edge1-2")], 2);
}

Test(route, ring_and_parallel_links)
{
	static const char y[] = "name: p\nswitches: [{name: a}, {name: b}]\n"
				"hosts: [{name: h1, switch: a}, {name: h2, switch: b}]\n"
				"links: [{a: a, b: b, count: 3}]\n";
	char err[256];

	struct fe_topo_gen g = {.kind = "ring", .switches = 3};

	cr_assert_eq(fe_topo_generate(&g, &t, err, sizeof(err)), 0, "%s", err);
	fe_route_compute(&t, &routes);
	loop_free();
	cr_assert_eq(routes.dist[sw("s1")][sw("s3")], 1, "the short way round");
	cr_assert_eq(routes.nnh[sw("s1")][sw("s3")], 1);
	/* the shipped ring3 routes one way round: s1 -> s3 crosses s2, s3 -> s1 is direct */
	cr_assert_eq(fe_topo_load("ring3", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.oneway, 1);
	fe_route_compute(&t, &routes);
	loop_free();
	cr_assert_eq(routes.dist[sw("s1")][sw("s3")], 2, "one way round");
	cr_assert_eq(routes.nnh[sw("s1")][sw("s3")], 1);
	cr_assert_eq(routes.nh[sw("s1")][sw("s3")][0].to, sw("s2"));
	cr_assert_eq(routes.dist[sw("s3")][sw("s1")], 1);
	cr_assert_eq(fe_topo_parse(y, strlen(y), "p.yaml", &t, err, sizeof(err)), 0, "%s", err);
	fe_route_compute(&t, &routes);
	cr_assert_eq(routes.nnh[0][1], 3, "parallel links: three ways");
	/* each direction's name, as the dataplane, link selectors and campaigns take it */
	fe_topo_dir_name(&t, 0, 0, err, sizeof(err));
	cr_assert_str_eq(err, "a>b");
	fe_topo_dir_name(&t, 1, 1, err, sizeof(err));
	cr_assert_str_eq(err, "b>a.2", "a parallel link keeps its number");
	fe_topo_dir_name(&t, 2, 0, err, sizeof(err));
	cr_assert_str_eq(err, "a>b.3");
}

/* A topology split across boxes names each switch's box; `show` prints it; a box's name
 * is 1 to 31 characters, refused at its line otherwise. */
Test(topo, switches_name_their_box)
{
	static const char *y = "name: split\n"
			       "switches:\n"
			       "  - {name: leaf1, box: a}\n"
			       "  - {name: spine1, box: b}\n"
			       "hosts:\n"
			       "  - {name: h1, switch: leaf1}\n"
			       "links:\n"
			       "  - {a: leaf1, b: spine1}\n";
	static const char *bad = "name: split\n"
				 "switches:\n"
				 "  - {name: leaf1, box: ''}\n"
				 "hosts:\n"
				 "  - {name: h1, switch: leaf1}\n";
	char err[512], *out = NULL;
	size_t n = 0;
	FILE *f;

	cr_assert_eq(fe_topo_parse(y, strlen(y), "s.yaml", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(t.sw[0].box, "a");
	cr_assert_str_eq(t.sw[1].box, "b");
	f = open_memstream(&out, &n);
	fe_topo_print(f, &t);
	fclose(f);
	cr_assert(strstr(out, "spine1       on box b") != NULL, "%s", out);
	free(out);
	cr_assert_neq(fe_topo_parse(bad, strlen(bad), "s.yaml", &t, err, sizeof(err)), 0);
	cr_assert(strstr(err, "s.yaml:3") && strstr(err, "box ''"), "%s", err);
	cr_assert_eq(fe_topo_load("leaf-spine", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(t.sw[0].box, "", "generated switches: no box");
}
