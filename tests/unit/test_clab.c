/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * containerlab labs as fabemu labs (fe_clab.h, `fabemuctl topology import`): the shipped
 * examples, exactly; rails; each refusal with its file and line.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fe_clab.h"

static struct fe_clab lab;

#define EXAMPLES FE_SOURCE_DIR "/testbeds/containerlab/"

Test(clab, leaf_spine_drawn_out)
{
	char err[512], d[96];

	cr_assert_eq(fe_clab_load(EXAMPLES "leaf-spine.clab.yml", &lab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_str_eq(lab.name, "leaf-spine");
	cr_assert_eq(lab.topo.nsw, 4);
	cr_assert_eq(lab.topo.nhosts, 4);
	cr_assert_eq(lab.topo.nports, 4);
	cr_assert_eq(lab.topo.nlinks, 4);
	cr_assert_str_eq(lab.topo.sw[0].name, "leaf1");
	cr_assert_str_eq(lab.topo.sw[3].name, "spine2");
	/* hosts in the file's order, each on the switch its link ends on */
	cr_assert_str_eq(lab.topo.host[3].name, "h4");
	cr_assert_str_eq(lab.topo.sw[lab.topo.host[3].sw[0]].name, "leaf2");
	cr_assert_str_eq(lab.node[3], "h4");
	cr_assert_str_eq(lab.ifname[3], "eth1");
	/* a link's rate and delay are the topology's, its other keys --link specs; all at the
	 * lab's scale (4000): 200 Gbit/s is 50 Mbit/s, 1 us 4 ms */
	cr_assert_str_eq(lab.topo.link[0].name, "leaf1-spine1");
	cr_assert_eq(lab.topo.link[0].rate_bps, 50000000);
	cr_assert_eq(lab.topo.link[0].delay_ns, 4000000);
	cr_assert_eq(lab.topo.link[1].rate_bps, 0, "the class's");
	fe_topo_dir_name(&lab.topo, 3, 1, d, sizeof(d));
	cr_assert_str_eq(d, "spine2>leaf2");
	cr_assert_eq(lab.nspecs, 2);
	cr_assert_str_eq(lab.spec[0], "3:delay=8ms,loss=0.1%", "2 us at scale 4000");
	cr_assert_str_eq(lab.spec[1], "spine2>leaf2:ecn=20KB/80KB/10%",
			 "an end's vars: its egress");
	/* the lab's regime, from the switches' group */
	cr_assert_str_eq(lab.profile, "roce-pfc-ecn");
	cr_assert_str_eq(lab.scale, "4000");
	cr_assert_str_eq(lab.path, "ecmp");
	cr_assert_str_eq(lab.topo_ref, "", "drawn out: its own topology");
}

Test(clab, one_fabemu_node)
{
	char err[512];

	cr_assert_eq(fe_clab_load(EXAMPLES "fabric.clab.yml", &lab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_str_eq(lab.topo_ref, "leaf-spine-4");
	cr_assert_eq(lab.nports, 4);
	cr_assert_str_eq(lab.node[0], "h1");
	cr_assert_str_eq(lab.node[3], "h4");
	cr_assert_eq(lab.nspecs, 1);
	cr_assert_str_eq(lab.spec[0], "3:delay=20ms,jitter=4ms", "at the lab's scale, 4000");
	cr_assert_str_eq(lab.profile, "ib-ndr");
	cr_assert_str_eq(lab.path, "adaptive");
}

static int
parse(const char *text, char *err, size_t len)
{
	return fe_clab_parse(text, strlen(text), "t.clab.yml", &lab, err, len);
}

/* A host with links to two switches has a port on each (its rails); ports follow the
 * fabemu node's interfaces in their number's order (eth2 before eth10). */
Test(clab, rails_and_port_order)
{
	char err[512];

	cr_assert_eq(parse("name: r\n"
			   "topology:\n"
			   "  nodes:\n"
			   "    s1: {kind: bridge}\n"
			   "    s2: {kind: ovs-bridge}\n"
			   "    h1: {kind: linux}\n"
			   "    h2: {}\n"
			   "  links:\n"
			   "    - endpoints: [\"h2:eth1\", \"s2:e1\"]\n"
			   "    - endpoints: [\"h1:eth1\", \"s1:e1\"]\n"
			   "    - endpoints: [\"s1:e2\", \"h1:eth2\"]\n"
			   "    - endpoints: [\"s1:e9\", \"s2:e9\"]\n",
			   err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(lab.topo.nhosts, 2);
	cr_assert_eq(lab.topo.host[0].nports, 2, "h1: two rails");
	cr_assert_str_eq(lab.ifname[1], "eth2", "h1's second port is its eth2");
	cr_assert_str_eq(lab.node[2], "h2");
	cr_assert_str_eq(lab.profile, "");
	cr_assert_eq(parse("name: o\n"
			   "topology:\n"
			   "  nodes:\n"
			   "    fe: {labels: {fabemu.role: emulator}}\n"
			   "    a: {}\n"
			   "    b: {}\n"
			   "  links:\n"
			   "    - endpoints: [\"fe:eth10\", \"a:eth1\"]\n"
			   "    - endpoints: [\"fe:eth2\", \"b:eth1\"]\n",
			   err, sizeof(err)),
		     0, "%s", err);
	cr_assert_str_eq(lab.node[0], "b", "eth2 is port 0");
	cr_assert_str_eq(lab.node[1], "a");
	cr_assert_eq(lab.topo.nsw, 1, "no fabemu.topology: one switch");
}

/* vars.fabemu.profile: the link takes that profile's values for its class, then its own
 * keys (which win); a fabric link's rate and delay then come after the profile's too. */
Test(clab, a_profile_on_a_link)
{
	char err[512];

	cr_assert_eq(parse("name: p\n"
			   "topology:\n"
			   "  nodes:\n"
			   "    s1: {kind: bridge, labels: {fabemu.scale: \"1000\"}}\n"
			   "    s2: {kind: bridge}\n"
			   "    h1: {}\n"
			   "    h2: {}\n"
			   "  links:\n"
			   "    - endpoints: [\"h1:eth1\", \"s1:e1\"]\n"
			   "      vars: {fabemu: {profile: ib-ndr, delay: 1us}}\n"
			   "    - endpoints: [\"h2:eth1\", \"s2:e1\"]\n"
			   "    - endpoints: [\"s1:e2\", \"s2:e2\"]\n"
			   "      vars: {fabemu: {profile: roce-pfc-ecn, rate: 100Gbit}}\n",
			   err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(lab.nspecs, 5, "%u", lab.nspecs);
	cr_assert(strncmp(lab.spec[0], "0.up:rate=", 10) == 0, "%s", lab.spec[0]);
	cr_assert(strncmp(lab.spec[1], "0.down:rate=", 12) == 0, "%s", lab.spec[1]);
	cr_assert_str_eq(lab.spec[2], "0:delay=1ms", "its own delay, at scale 1000, last");
	cr_assert(strncmp(lab.spec[3], "s1-s2:rate=", 11) == 0 && strstr(lab.spec[3], "ecn="), "%s",
		  lab.spec[3]);
	cr_assert_str_eq(lab.spec[4], "s1-s2:rate=100Mbit",
			 "after the profile's, not the topology's");
	cr_assert_eq(lab.topo.link[0].rate_bps, 100000000, "the topology says so too");
	cr_assert_lt(parse("name: p\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h: {}\n"
			   "  links:\n    - endpoints: [\"h:eth1\", \"s:e1\"]\n"
			   "      vars: {fabemu: {profile: nowhere}}\n",
			   err, sizeof(err)),
		     0);
	cr_assert(strncmp(err, "t.clab.yml:8: vars.fabemu.profile: ", 35) == 0, "%s", err);
}

/* Flat labels (containerlab's link labels are strings): fabemu.KEY, the others ignored. */
Test(clab, settings_in_a_links_labels)
{
	char err[512];

	cr_assert_eq(
		parse("name: l\n"
		      "topology:\n"
		      "  nodes:\n"
		      "    s: {kind: bridge}\n"
		      "    h: {}\n"
		      "    g: {}\n"
		      "  links:\n"
		      "    - type: veth\n"
		      "      endpoints: [{node: h, interface: eth1}, {node: s, interface: e1}]\n"
		      "      labels: {owner: lab-team, fabemu.rate: 25Gbit, fabemu.loss: \"1%\"}\n"
		      "    - endpoints: [\"g:eth1\", \"s:e2\"]\n",
		      err, sizeof(err)),
		0, "%s", err);
	cr_assert_eq(lab.nspecs, 1);
	cr_assert_str_eq(lab.spec[0], "0:rate=25Gbit,loss=1%");
	cr_assert_lt(parse("name: l\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h: {}\n"
			   "  links:\n    - endpoints: [\"h:eth1\", \"s:e1\"]\n"
			   "      labels: {fabemu.speed: 1G}\n",
			   err, sizeof(err)),
		     0);
	cr_assert(strncmp(err, "t.clab.yml:8: labels: fabemu.speed: unknown link key 'speed'",
			  59) == 0,
		  "%s", err);
	cr_assert_lt(
		parse("name: l\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h: {}\n"
		      "  links:\n    - endpoints: [\"h:eth1\", \"s:e1\"]\n"
		      "      labels: {fabemu.rate: 1Gbit}\n      vars: {fabemu: {delay: 1us}}\n",
		      err, sizeof(err)),
		0);
	cr_assert(strstr(err, "both its vars and its labels") != NULL, "%s", err);
}

/* A filter's backslash stays one in the campaign (single-quoted YAML); a lab with rails gets
 * its topology only (a campaign runs one port a host). */
Test(clab, what_import_writes_quoted_and_rails)
{
	char err[512], dir[] = "/tmp/fe-clab-XXXXXX", path[600], line[512];
	int found = 0;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(parse("name: q\n"
			   "topology:\n"
			   "  nodes:\n"
			   "    s: {kind: bridge}\n"
			   "    h: {}\n"
			   "    g: {}\n"
			   "  links:\n"
			   "    - endpoints: [\"h:eth1\", \"s:e1\"]\n"
			   "      vars: {fabemu: {loss: 1%, match: \"ether proto \\\\arp\"}}\n"
			   "    - endpoints: [\"g:eth1\", \"s:e2\"]\n",
			   err, sizeof(err)),
		     0, "%s", err);
	cr_assert_str_eq(lab.spec[0], "0:loss=1%,match=ether proto \\arp");
	cr_assert_eq(fe_clab_write(&lab, dir, err, sizeof(err)), 0, "%s", err);
	snprintf(path, sizeof(path), "%s/campaign.yaml", dir);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		found += strcmp(line, "      - '0:loss=1%,match=ether proto \\arp'\n") == 0;
	fclose(f);
	cr_assert_eq(found, 1, "the filter as it was");
	cr_assert_eq(parse("name: r\n"
			   "topology:\n"
			   "  nodes:\n"
			   "    s: {kind: bridge}\n"
			   "    t: {kind: bridge}\n"
			   "    h: {}\n"
			   "  links:\n"
			   "    - endpoints: [\"h:eth1\", \"s:e1\"]\n"
			   "    - endpoints: [\"h:eth2\", \"t:e1\"]\n"
			   "    - endpoints: [\"s:e2\", \"t:e2\"]\n",
			   err, sizeof(err)),
		     0, "%s", err);
	unlink(path);
	cr_assert_eq(fe_clab_write(&lab, dir, err, sizeof(err)), 1, "rails: the topology only");
	cr_assert_neq(access(path, F_OK), 0, "no campaign");
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_assert_eq(system(path), 0);
}

Test(clab, refusals_name_file_and_line)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{"name: x\ntopology:\n  nodes:\n    h1: {}\n  links: []\n",
		 "t.clab.yml:4: no switch: mark the lab's switches"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"h1:eth1\", \"s2:eth1\"]\n",
		 "t.clab.yml:7: endpoint 's2': no node of that name"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n    h2: {}\n"
		 "  links:\n    - endpoints: [\"h1:eth1\", \"h2:eth1\"]\n",
		 "t.clab.yml:8: link h1-h2 joins two hosts"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"h1:eth1\", \"s:eth1\"]\n      vars:\n        fabemu:\n"
		 "          speed: 1Gbit\n",
		 "t.clab.yml:10: vars.fabemu.speed: unknown link key 'speed'"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"h1:eth1\", \"s:eth1\"]\n      vars: {fabemu: {rate: fast}}\n",
		 "t.clab.yml:8: vars.fabemu.rate: invalid rate"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"h1-eth1\", \"s:eth1\"]\n",
		 "t.clab.yml:7: endpoint 'h1-eth1': expected NODE:INTERFACE"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n    h2: {}\n"
		 "  links:\n    - endpoints: [\"h1:eth1\", \"s:eth1\"]\n",
		 "t.clab.yml:6: host h2 has no link to a switch"},
		{"name: x\ntopology:\n  nodes:\n    s: {labels: {fabemu.role: router}}\n",
		 "t.clab.yml:4: node s: fabemu.role 'router' (allowed: host, switch, emulator)"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge, labels: {fabemu.profile: "
		 "ib-ndr}}\n"
		 "    t: {kind: bridge, labels: {fabemu.profile: ib-hdr}}\n",
		 "t.clab.yml:5: node t: fabemu.profile 'ib-hdr', where another node says 'ib-ndr'"},
		{"name: x\ntopology:\n  nodes:\n    fe: {labels: {fabemu.role: emulator}}\n"
		 "    s: {kind: bridge}\n",
		 "t.clab.yml:4: a lab has its switches drawn out or one fabemu node"},
		{"name: x\ntopology:\n  nodes:\n    fe: {labels: {fabemu.role: emulator, "
		 "fabemu.topology: leaf-spine}}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"h1:eth1\", \"fe:eth1\"]\n",
		 "t.clab.yml:4: node fe: its topology leaf-spine has 8 host ports; the node has 1 "
		 "links"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge, labels: {fabemu.scale: "
		 "\"0\"}}\n",
		 "t.clab.yml:4: labels: fabemu.scale '0'"},
		{"name: x\ntopology:\n  nodes: [a, b\n", "t.clab.yml:4: not valid YAML: "},
		{"topology: {nodes: {}}\n", "t.clab.yml:1: name: the lab's name (1 to 63 letters, "
					    "digits, '.', '_' or '-') is required"},
		{"topology: {nodes: {}}\nname: \"bad name\"\n",
		 "t.clab.yml:2: name 'bad name' (allowed: 1 to 63 letters, digits, '.', '_' or "
		 "'-')"},
		{"name: x\ntopology:\n  nodes:\n    \"a:b\": {kind: bridge}\n",
		 "t.clab.yml:4: node 'a:b': a name of 1 to 31 letters, digits"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge, labels: {fabemu.scale: "
		 "\"1000\"}}\n"
		 "    h: {}\n  links:\n    - endpoints: [\"h:eth1\", \"s:e1\"]\n"
		 "      vars: {fabemu: {delay: 20ms}}\n",
		 "t.clab.yml:8: vars.fabemu.delay: delay or jitter at scale 1000 is above 10s"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"s:eth1\", {node: h1, interface: \"\"}]\n",
		 "t.clab.yml:7: interface '': 1 to 31 characters, none a space or a control "
		 "character, are required"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"s:eth1\", {node: h1, interface: \"eth1\\n# x\"}]\n",
		 "t.clab.yml:7: interface 'eth1\n# x': 1 to 31 characters"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"h1:eth1\", \"s:eth1\"]\n"
		 "    - endpoints: [\"h1:eth2\", \"s:eth1\"]\n",
		 "t.clab.yml:8: endpoint s:eth1 is already an end of the link at line 7"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints:\n        - {node: h1, interface: eth1}\n"
		 "        - {node: s, interface: eth1}\n"
		 "    - endpoints: [\"h1:eth2\", \"s:eth1\"]\n",
		 "t.clab.yml:10: endpoint s:eth1 is already an end of the link at line 7"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n  links:\n"
		 "    - endpoints: [\"s:eth1\", \"s:eth1\"]\n",
		 "t.clab.yml:6: endpoint s:eth1 is already an end of the link at line 6"},
		/* what the campaign import writes would refuse: refused here, at its line */
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge, labels: {fabemu.profile: "
		 "nosuch}}\n",
		 "t.clab.yml:4: node s: fabemu.profile: profile 'nosuch' not found"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge, labels: {fabemu.path: "
		 "random}}\n",
		 "t.clab.yml:4: node s: fabemu.path 'random' (allowed: ecmp, polarized, spray, "
		 "spray-random, adaptive, flowlet, entropy)"},
		{"name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"h1:eth1\", \"s:eth1\"]\n",
		 "t.clab.yml:4: topology.nodes: 1 host: the lab's campaign would have hosts '1' "
		 "(allowed: 2 to 16)"},
	};
	char err[512];

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_lt(parse(bad[i].text, err, sizeof(err)), 0, "%u accepted", i);
		cr_assert(strncmp(err, bad[i].want, strlen(bad[i].want)) == 0,
			  "%u: want '%s', got '%s'", i, bad[i].want, err);
	}
}

/* What `import` writes: a topology that loads as the lab's, and a campaign over it. */
Test(clab, writes_a_topology_and_a_campaign)
{
	char err[512], dir[] = "/tmp/fe-clab-XXXXXX", path[600], line[512];
	static struct fe_topo back;
	int links = 0, topo = 0;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(fe_clab_load(EXAMPLES "leaf-spine.clab.yml", &lab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(fe_clab_write(&lab, dir, err, sizeof(err)), 0, "%s", err);
	snprintf(path, sizeof(path), "%s/topology.yaml", dir);
	cr_assert_eq(fe_topo_load(path, &back, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(back.nsw, 4);
	cr_assert_eq(back.nports, 4);
	cr_assert_str_eq(back.link[0].name, "leaf1-spine1");
	cr_assert_eq(back.link[0].rate_bps, 50000000);
	snprintf(path, sizeof(path), "%s/campaign.yaml", dir);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		links += strstr(line, "'spine2>leaf2:ecn=20KB/80KB/10%'") != NULL;
		topo += strstr(line, "topology: /tmp/fe-clab-") != NULL;
		cr_assert(strncmp(line, "hosts:", 6) != 0 || strcmp(line, "hosts: 4\n") == 0, "%s",
			  line);
	}
	fclose(f);
	cr_assert_eq(links, 1, "the fabric link's spec");
	cr_assert_eq(topo, 1, "the topology by its full path");
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	cr_assert_eq(system(path), 0);
}
