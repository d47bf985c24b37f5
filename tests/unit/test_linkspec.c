/* SPDX-License-Identifier: BSD-3-Clause */
/* Link specs (--link, --profile): selectors, keys, and the exact errors for bad input. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fe_linkspec.h"

#define NP 3
static struct fe_linkdef up[NP], down[NP];

static void
reset(void)
{
	memset(up, 0, sizeof(up));
	memset(down, 0, sizeof(down));
}

TestSuite(linkspec, .init = reset);

Test(linkspec, all_links)
{
	char err[256];

	cr_assert_eq(fe_linkspec_apply("rate=1Gbit,delay=100us", up, down, NP, err, sizeof(err)), 0,
		     "%s", err);
	for (int i = 0; i < NP; i++) {
		cr_assert_eq(up[i].link.rate_bps, 1000000000);
		cr_assert_eq(down[i].link.delay_ns, 100000);
	}
}

Test(linkspec, selectors)
{
	char err[256];

	cr_assert_eq(fe_linkspec_apply("1.down:rate=200Mbit", up, down, NP, err, sizeof(err)), 0);
	cr_assert_eq(down[1].link.rate_bps, 200000000);
	cr_assert_eq(up[1].link.rate_bps, 0);
	cr_assert_eq(down[0].link.rate_bps, 0);
	cr_assert_eq(fe_linkspec_apply("2:buffer=64KiB", up, down, NP, err, sizeof(err)), 0);
	cr_assert_eq(up[2].link.limit_bytes, 65536);
	cr_assert_eq(down[2].link.limit_bytes, 65536);
	cr_assert_eq(up[1].link.limit_bytes, 0);
	cr_assert_eq(fe_linkspec_apply("up: buffer-pkts = 7", up, down, NP, err, sizeof(err)), 0,
		     "%s", err);
	for (int i = 0; i < NP; i++) {
		cr_assert_eq(up[i].link.limit_pkts, 7);
		cr_assert_eq(down[i].link.limit_pkts, 0);
	}
}

/* Criterion copies parameters into the test process: arrays, not pointers. */
struct bad {
	char spec[48];
	char err[128];
};

static struct bad bads[] = {
	{"rate=fast", "rate: invalid rate (e.g. 1Gbit, 200Mbit, 10000000) 'fast'"},
	{"rate=500", "rate '500' (allowed: 0 for unlimited, or 1kbit to 1Tbit)"},
	{"delay=11s", "delay '11s' (allowed: 0 to 10s)"},
	{"speed=1G", "unknown link key 'speed' (known: rate, delay, buffer, buffer-pkts, loss, ge, "
		     "ecn, jitter, drop, llr, match)"},
	{"3:rate=1G", "link selector '3': no such port (ports 0 to 2)"},
	{"llr=1", "llr '1' (allowed: on, off, true, false, yes, no)"},
	{"1.sideways:rate=1G",
	 "link selector '1.sideways' (allowed: all, up, down, N, N.up, N.down, fabric)"},
	{"x.up:rate=1G", "link selector 'x.up' (allowed: all, up, down, N, N.up, N.down, fabric)"},
	{"rate", "expected key=value, got 'rate'"},
	{"all:", "link spec 'all:' sets nothing"},
	{"buffer-pkts=2000000", "buffer-pkts '2000000' (allowed: 0 to 1048576)"},
	{"loss=2", "loss: invalid probability '2' (0% to 100%, or 0 to 1)"},
	{"ecn=20KB/10KB", "ecn '20KB/10KB': KMIN is above KMAX"},
};

ParameterizedTestParameters(linkspec, bad)
{
	return cr_make_param_array(struct bad, bads, sizeof(bads) / sizeof(bads[0]));
}

ParameterizedTest(struct bad *b, linkspec, bad)
{
	char err[256] = "";

	cr_assert_eq(fe_linkspec_apply(b->spec, up, down, NP, err, sizeof(err)), -EINVAL,
		     "'%s' was accepted", b->spec);
	cr_assert_str_eq(err, b->err, "spec '%s'", b->spec);
}

Test(linkspec, file_with_comments_and_error_line)
{
	char path[] = "/tmp/fe-linkspec-XXXXXX", err[256];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	cr_assert_not_null(f);
	fputs("# a profile\n\nrate=1Gbit   # every link\n0.up:delay=1ms\nbogus=1\n", f);
	fclose(f);
	cr_assert_eq(fe_linkspec_file(path, up, down, NP, NULL, err, sizeof(err)), -EINVAL);
	cr_assert_eq(up[0].link.delay_ns, 1000000);
	cr_assert_eq(down[2].link.rate_bps, 1000000000);
	char want[256];
	snprintf(want, sizeof(want),
		 "%s:5: unknown link key 'bogus' (known: rate, delay, buffer, buffer-pkts, loss, "
		 "ge, ecn, jitter, drop, llr, match)",
		 path);
	cr_assert_str_eq(err, want);
	unlink(path);
}

/* A file's lines name the links between switches as --link does: taken with a topology,
 * refused without one. */
Test(linkspec, file_names_links_between_switches)
{
	static const char dir[2][80] = {"a>b", "b>a"}, link[1][72] = {"a-b"};
	struct fe_linkdef u[2] = {0}, d[2] = {0}, def[2] = {0};
	struct fe_fabric_links fab = {.n = 2, .def = def, .dir = dir, .link = link}, none = {0};
	char path[] = "/tmp/fe-linkspec-XXXXXX", err[400], want[500];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	cr_assert_not_null(f);
	fputs("0.up:delay=1ms\na-b:rate=1Gbit\nfabric:loss=1%\n", f);
	fclose(f);
	cr_assert_eq(fe_linkspec_file(path, u, d, 2, &fab, err, sizeof(err)), 0, "%s", err);
	cr_assert(def[0].link.rate_bps == 1000000000 && def[1].link.rate_bps == 1000000000);
	cr_assert(def[0].loss.kind == FE_LOSS_BERNOULLI && def[1].loss.kind == FE_LOSS_BERNOULLI);
	cr_assert_eq(u[0].link.delay_ns, 1000000);
	cr_assert_eq(fe_linkspec_file(path, u, d, 2, &none, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:2: link selector 'a-b': no links between switches without a topology "
		 "(docs/topologies.md)",
		 path);
	cr_assert_str_eq(err, want);
	unlink(path);
}

Test(linkspec, missing_file)
{
	char err[256];

	cr_assert_lt(fe_linkspec_file("/nonexistent/p", up, down, NP, NULL, err, sizeof(err)), 0);
	cr_assert_str_eq(err, "/nonexistent/p: No such file or directory");
}

/* With several switches: fabric, A-B (both directions), A>B (one), all (ports too). */
Test(linkspec, links_between_switches_by_name)
{
	static const char dir[4][80] = {"a>b", "b>a", "a>c", "c>a"};
	static const char link[2][72] = {"a-b", "a-c"};
	struct fe_linkdef u[2] = {0}, d[2] = {0}, def[4] = {0};
	struct fe_fabric_links fab = {.n = 4, .def = def, .dir = dir, .link = link};
	char err[400];

	cr_assert_eq(fe_linkspec_apply_fabric("a-b:rate=1Gbit", u, d, 2, &fab, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert(def[0].link.rate_bps == 1000000000 && def[1].link.rate_bps == 1000000000);
	cr_assert(def[2].link.rate_bps == 0 && u[0].link.rate_bps == 0 && d[1].link.rate_bps == 0,
		  "that link alone");
	cr_assert_eq(fe_linkspec_apply_fabric("c>a:delay=5us", u, d, 2, &fab, err, sizeof(err)), 0);
	cr_assert(def[3].link.delay_ns == 5000 && def[2].link.delay_ns == 0, "that direction");
	cr_assert_eq(fe_linkspec_apply_fabric("fabric:loss=1%", u, d, 2, &fab, err, sizeof(err)),
		     0);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(def[i].loss.kind, FE_LOSS_BERNOULLI);
	cr_assert_eq(u[0].loss.kind, FE_LOSS_NONE, "fabric: not the hosts' links");
	cr_assert_eq(fe_linkspec_apply_fabric("up:jitter=1us", u, d, 2, &fab, err, sizeof(err)), 0);
	cr_assert(u[1].link.jitter_ns == 1000 && def[0].link.jitter_ns == 0,
		  "up: the hosts' links alone");
	cr_assert_eq(fe_linkspec_apply_fabric("buffer=1KiB", u, d, 2, &fab, err, sizeof(err)), 0);
	cr_assert(def[3].link.limit_bytes == 1024 && d[0].link.limit_bytes == 1024, "all: both");
	cr_assert_eq(fe_linkspec_apply_fabric("a-d:rate=1G", u, d, 2, &fab, err, sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "link selector 'a-d': no such link (allowed: all, up, down, N, N.up, "
			      "N.down, fabric, or a link between switches such as a-b or a>b)");
	/* a link's ends the other way round: its name told */
	cr_assert_eq(fe_linkspec_apply_fabric("c-a:rate=1G", u, d, 2, &fab, err, sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "link selector 'c-a': no such link; that link is named a-c (its "
			      "ends in the topology's order), its directions a>c and c>a");
	/* one switch: fabric names nothing, and is no error */
	cr_assert_eq(fe_linkspec_apply("fabric:rate=1G", u, d, 2, err, sizeof(err)), 0);
	cr_assert_eq(u[0].link.rate_bps, 0);
}

/* One switch (no topology): fabric, A-B and A>B name no link, and are refused saying so,
 * not accepted doing nothing; the list of what is allowed says they need a topology. */
Test(linkspec, links_between_switches_without_a_topology)
{
	static const char *const cases[][2] = {
		{"fabric:loss=1%", "link selector 'fabric': no links between switches without a "
				   "topology (docs/topologies.md)"},
		{"leaf1-spine1:rate=1G", "link selector 'leaf1-spine1': no links between switches "
					 "without a topology (docs/topologies.md)"},
		{"leaf1>spine1:rate=1G", "link selector 'leaf1>spine1': no links between switches "
					 "without a topology (docs/topologies.md)"},
		{"x.up:rate=1G", "link selector 'x.up' (allowed: all, up, down, N, N.up, N.down; "
				 "fabric, A-B, A>B: with a topology)"},
		{"5:rate=1G", "link selector '5': no such port (ports 0 to 1)"},
	};
	struct fe_fabric_links none = {0};
	struct fe_linkdef u[2] = {0}, d[2] = {0};
	char err[400];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		cr_expect_eq(
			fe_linkspec_apply_fabric(cases[i][0], u, d, 2, &none, err, sizeof(err)),
			-EINVAL, "accepted: %s", cases[i][0]);
		cr_expect_str_eq(err, cases[i][1], "spec: %s", cases[i][0]);
	}
	cr_assert_eq(fe_linkspec_apply_fabric("all:loss=1%", u, d, 2, &none, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(u[1].loss.kind, FE_LOSS_BERNOULLI, "all: the ports' links");
}

/* A link as a spec and back (fe_linkdef_spec: what `topology import` writes of a
 * profile): every shipped profile's links, at scale 1 and 4000, read back as they were. */
#include "fe_profile.h"

static void
same_def(const struct fe_linkdef *a, const struct fe_linkdef *b, const char *what)
{
	cr_assert_eq(a->link.rate_bps, b->link.rate_bps, "%s: rate", what);
	cr_assert_eq(a->link.delay_ns, b->link.delay_ns, "%s: delay", what);
	cr_assert_eq(a->link.limit_bytes, b->link.limit_bytes, "%s: buffer", what);
	cr_assert_eq(a->link.limit_pkts, b->link.limit_pkts, "%s: buffer-pkts", what);
	cr_assert_eq(a->loss.kind, b->loss.kind, "%s: loss kind", what);
	cr_assert_float_eq(a->loss.p, b->loss.p, 1e-12, "%s: loss", what);
	cr_assert_float_eq(a->loss.r, b->loss.r, 1e-12, "%s: ge r", what);
	cr_assert_eq(a->ecn.enabled, b->ecn.enabled, "%s: ecn", what);
	cr_assert_eq(a->ecn.kmin, b->ecn.kmin, "%s: kmin", what);
	cr_assert_eq(a->ecn.kmax, b->ecn.kmax, "%s: kmax", what);
	cr_assert_float_eq(a->ecn.pmax, b->ecn.pmax, 1e-12, "%s: pmax", what);
	cr_assert_eq(a->ecn.drop_non_ect, b->ecn.drop_non_ect, "%s: /drop", what);
	cr_assert_eq(a->link.jitter_ns, b->link.jitter_ns, "%s: jitter", what);
	cr_assert_eq(a->drop_count, b->drop_count, "%s: drop", what);
	cr_assert_eq(a->llr, b->llr, "%s: llr", what);
	cr_assert_str_eq(a->match, b->match, "%s: match", what);
}

Test(linkspec, a_link_as_a_spec_reads_back)
{
	static const char *const names[] = {"ideal",	  "ethernet-lossy", "ethernet-ecn",
					    "roce-lossy", "roce-pfc-ecn",   "ib-ndr",
					    "ib-hdr",	  "spectrum-x",	    "uec"};
	static struct fe_profile p;
	struct fe_linkdef pu[2], pd[2], fab, back;
	struct fe_fabric f;
	char err[512], spec[300], what[64];
	static const uint32_t scales[] = {1, 4000};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		cr_assert_eq(fe_profile_load(names[i], &p, err, sizeof(err)), 0, "%s", err);
		for (unsigned s = 0; s < 2; s++) {
			const struct fe_linkdef *d[3] = {&pu[0], &pd[0], &fab};

			cr_assert_eq(
				fe_profile_expand(&p, scales[s], 2, pu, pd, &f, err, sizeof(err)),
				0, "%s", err);
			cr_assert_eq(fe_profile_fabric(&p, scales[s], &fab, err, sizeof(err)), 0,
				     "%s", err);
			for (unsigned k = 0; k < 3; k++) {
				struct fe_linkdef one[1], other[1];

				memset(one, 0, sizeof(one));
				memset(other, 0, sizeof(other));

				snprintf(what, sizeof(what), "%s x%u %s", names[i], scales[s],
					 k == 0	  ? "up"
					 : k == 1 ? "down"
						  : "fabric");
				strcpy(spec, "0.up:");
				cr_assert_eq(fe_linkdef_spec(d[k], spec + 5, sizeof(spec) - 5), 0);
				cr_assert_eq(
					fe_linkspec_apply(spec, one, other, 1, err, sizeof(err)), 0,
					"%s: '%s': %s", what, spec, err);
				back = one[0];
				same_def(d[k], &back, what);
			}
		}
	}
	/* and a link with every key set, GE loss and a filter among them */
	cr_assert_eq(fe_linkspec_apply("0.up:rate=25Gbit,delay=3us,buffer=64KiB,buffer-pkts=100,"
				       "ge=1%/30%/90%/0.5%,ecn=10KB/40KB/5%/drop,jitter=7us,"
				       "drop=3/2,llr=on,match=udp port 9",
				       up, down, NP, err, sizeof(err)),
		     0, "%s", err);
	strcpy(spec, "1.up:");
	cr_assert_eq(fe_linkdef_spec(&up[0], spec + 5, sizeof(spec) - 5), 0);
	cr_assert_eq(fe_linkspec_apply(spec, up, down, NP, err, sizeof(err)), 0, "%s: %s", spec,
		     err);
	same_def(&up[0], &up[1], spec);
	cr_assert_eq(up[1].llr, 1);
	cr_assert_eq(fe_linkdef_spec(&up[0], spec, 20), -ENOSPC, "too small a buffer says so");
	/* a switch takes YAML's words too (fe_parse_onoff(), every key's one parser) */
	cr_assert_eq(fe_linkspec_apply("2.up:llr=yes", up, down, NP, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(up[2].llr, 1);
	cr_assert_eq(fe_linkspec_apply("2.up:llr=false", up, down, NP, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(up[2].llr, 0);
}
