/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * YAML profiles: every key of a good profile lands where it should; a table of bad
 * profiles gives the exact message (file, line, key, value, range); dilation scales
 * rates and times and keeps sizes; the shipped profiles all load.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_profile.h"
#include "fe_regimespec.h"

static struct fe_profile prof;

static int
parse(const char *y, char *err, size_t len)
{
	return fe_profile_parse(y, strlen(y), "t.yaml", &prof, err, len);
}

static const char good[] = "# every key\n"
			   "name: full\n"
			   "description: all keys\n"
			   "regime: pfc\n"
			   "lanes: 2\n"
			   "lane-map: dscp\n"
			   "switch-buffer: 4MiB\n"
			   "scale: 10\n"
			   "seed: 42\n"
			   "pfc:\n"
			   "  xoff: 128KiB\n"
			   "  xon: 100KiB\n"
			   "  headroom: 40KiB\n"
			   "  delay: 2us\n"
			   "  quanta: 1000\n"
			   "  frames: true\n"
			   "link:\n"
			   "  rate: 100Gbit\n"
			   "  delay: 500ns\n"
			   "  buffer: 512KiB\n"
			   "  buffer-pkts: 300\n"
			   "  jitter: 100ns\n"
			   "  ecn: {kmin: 20KB, kmax: 200KB, pmax: 5%, non-ect: drop}\n"
			   "links:\n"
			   "  - select: 1.down\n"
			   "    loss: 0.5%\n"
			   "    drop: {first: 3, count: 2}\n"
			   "    match: tcp and port 5201\n"
			   "  - select: up\n"
			   "    gilbert-elliott: {p: 1%, r: 25%}\n"
			   "    llr: on\n";

Test(profile, every_key)
{
	char err[512];

	cr_assert_eq(parse(good, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(prof.name, "full");
	cr_assert_str_eq(prof.description, "all keys");
	cr_assert_eq(prof.fabric.regime, FE_REGIME_PFC);
	cr_assert_eq(prof.fabric.lanes, 2);
	cr_assert_eq(prof.fabric.lane_map, FE_MAP_DSCP);
	cr_assert_eq(prof.fabric.switch_buffer, 4 << 20);
	cr_assert_eq(prof.scale, 10);
	cr_assert(prof.seed_set && prof.seed == 42);
	cr_assert_eq(prof.fabric.pfc.xoff, 128 << 10);
	cr_assert_eq(prof.fabric.pfc.xon, 100 << 10);
	cr_assert_eq(prof.fabric.pfc.headroom, 40 << 10);
	cr_assert_eq(prof.fabric.pfc.delay_ns, 2000);
	cr_assert_eq(prof.fabric.pfc.quanta, 1000);
	cr_assert_eq(prof.fabric.pfc.frames, 1);
	cr_assert_eq(prof.link.link.rate_bps, 100000000000ULL);
	cr_assert_eq(prof.link.link.delay_ns, 500);
	cr_assert_eq(prof.link.link.limit_bytes, 512 << 10);
	cr_assert_eq(prof.link.link.limit_pkts, 300);
	cr_assert_eq(prof.link.link.jitter_ns, 100);
	cr_assert_eq(prof.link.llr, 0);
	cr_assert(prof.link.ecn.enabled && prof.link.ecn.drop_non_ect);
	cr_assert_eq(prof.link.ecn.kmin, 20000);
	cr_assert_eq(prof.link.ecn.kmax, 200000);
	cr_assert_float_eq(prof.link.ecn.pmax, 0.05, 1e-12);
	cr_assert_eq(prof.noverrides, 2);
	cr_assert_str_eq(prof.over[0].select, "1.down");
	cr_assert_str_eq(prof.over[0].spec, "loss=0.5%,drop=3/2,match=tcp and port 5201");
	cr_assert_eq(prof.over[0].line, 25);
}

/*
 * Lossless regimes without a buffer given: the host adapters' queues are deep; under PFC
 * the egress queues are limited in bytes alone (its pauses count bytes: a packet limit
 * would drop small frames before XOFF); a buffer given is kept as given.
 */
Test(profile, pfc_egress_limited_in_bytes)
{
	struct fe_linkdef up[2], down[2], fabric;
	struct fe_fabric fab;
	char err[512];

	cr_assert_eq(fe_profile_load("roce-pfc-ecn", &prof, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(prof.buffer_set, 0);
	cr_assert_eq(fe_profile_expand(&prof, 1, 2, up, down, &fab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(fe_profile_fabric(&prof, 1, &fabric, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(up[0].link.limit_pkts, FE_LOSSLESS_UP_PKTS);
	cr_assert_eq(down[1].link.limit_pkts, 0, "no packet limit");
	cr_assert_eq(fabric.link.limit_pkts, 0, "nor between switches");
	cr_assert_eq(down[1].link.limit_bytes, prof.link.link.limit_bytes, "bytes as they were");
	cr_assert_eq(prof.link.link.limit_pkts, 1000, "the profile's own default");
	prof.buffer_set = 1; /* a buffer given: as given */
	cr_assert_eq(fe_profile_expand(&prof, 1, 2, up, down, &fab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(fe_profile_fabric(&prof, 1, &fabric, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(down[0].link.limit_pkts, 1000);
	cr_assert_eq(fabric.link.limit_pkts, 1000);
}

Test(profile, expand_and_dilate)
{
	struct fe_linkdef up[2], down[2];
	struct fe_fabric fab;
	char err[512];

	cr_assert_eq(parse(good, err, sizeof(err)), 0, "%s", err);
	/* scale 0: the profile's own, 10 */
	cr_assert_eq(fe_profile_expand(&prof, 0, 2, up, down, &fab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(up[0].link.rate_bps, 10000000000ULL, "rates divided by the scale");
	cr_assert_eq(down[0].link.delay_ns, 5000, "times multiplied by it");
	cr_assert_eq(down[0].link.jitter_ns, 1000);
	cr_assert_eq(fab.pfc.delay_ns, 20000);
	cr_assert_eq(down[0].link.limit_bytes, 512 << 10, "sizes unchanged");
	cr_assert_eq(fab.pfc.xoff, 128 << 10);
	cr_assert_eq(down[0].ecn.kmin, 20000);
	/* overrides: 1.down only gets the rule; every up link the GE loss */
	cr_assert_eq(down[1].drop_first, 3);
	cr_assert_eq(down[1].drop_count, 2);
	cr_assert_str_eq(down[1].match, "tcp and port 5201");
	cr_assert_eq(down[0].drop_count, 0);
	cr_assert_eq(up[0].loss.kind, FE_LOSS_GE);
	cr_assert_eq(up[1].loss.kind, FE_LOSS_GE);
	cr_assert(up[0].llr && up[1].llr && !down[0].llr && !down[1].llr, "llr: the up links");
	cr_assert_eq(down[0].loss.kind, FE_LOSS_NONE);
	cr_assert_eq(down[1].loss.kind, FE_LOSS_BERNOULLI);
	/* scale 1 leaves the profile's values */
	cr_assert_eq(fe_profile_expand(&prof, 1, 2, up, down, &fab, err, sizeof(err)), 0);
	cr_assert_eq(up[0].link.rate_bps, 100000000000ULL);
	/* an override for a port the fabric does not have */
	cr_assert_eq(fe_profile_expand(&prof, 1, 1, up, down, &fab, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "t.yaml:25: links.0: link selector '1.down': no such port "
			      "(ports 0 to 0) (the fabric has 1 ports)");
}

/* nic.timeout: path (the engine derives it from the links, fe_derive.h), or a time. */
Test(profile, nic_timeout_path)
{
	struct fe_linkdef up[2], down[2];
	struct fe_fabric fab;
	char err[512];

	cr_assert_eq(parse("name: t\nnic: {model: uec, timeout: path}\n", err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 100, 2, up, down, &fab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert(fab.nic.timeout_path);
	cr_assert_eq(parse("name: t\nnic: {model: uec, timeout: 3ms}\n", err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(fe_profile_expand(&prof, 100, 2, up, down, &fab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert(!fab.nic.timeout_path);
	cr_assert_eq(fab.nic.timeout_ns, 3000000, "not dilated");
}

/* The NIC the profile text y gives at scale (parsed and expanded on 2 ports: both must
 * pass). */
static struct fe_nic_params
nic_of(const char *y, uint32_t scale)
{
	struct fe_linkdef up[2], down[2];
	struct fe_fabric fab;
	char err[512];

	cr_assert_eq(parse(y, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, scale, 2, up, down, &fab, err, sizeof(err)), 0, "%s",
		     err);
	return fab.nic;
}

/* nic.reps-freeze: REPS's freeze after a timeout, uet-htsim's 10 ms by default, dilated
 * with the scale as the fabric's times are; 0s: never; --nic sets it too. */
Test(profile, nic_reps_freeze)
{
	struct fe_nic_params n = FE_NIC_DEFAULT;
	char err[512];

	cr_assert_eq(n.reps_freeze_ns, 10000000, "uet-htsim's exit_freeze_after");
	cr_assert_eq(nic_of("name: t\nnic: {model: uec}\n", 100).reps_freeze_ns, 1000000000,
		     "10 ms x 100");
	cr_assert_eq(nic_of("name: t\nnic: {model: uec, reps-freeze: 0s}\n", 100).reps_freeze_ns, 0,
		     "never");
	cr_assert_eq(fe_nic_spec("model=uec,reps-freeze=2ms", &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(n.reps_freeze_ns, 2000000);
}

/* nic.sleek: SLEEK's loss probes (model uec, cc nscc), on by default, as the simulator
 * runs them; off; --nic sets it too; a bad value is named with what is allowed. */
Test(profile, nic_sleek)
{
	struct fe_nic_params n = FE_NIC_DEFAULT;
	char err[512];

	cr_assert_eq(nic_of("name: t\nnic: {model: uec}\n", 1).sleek_off, 0, "on by default");
	cr_assert_eq(nic_of("name: t\nnic: {model: uec, sleek: off}\n", 1).sleek_off, 1);
	cr_assert_eq(nic_of("name: t\nnic: {model: uec, sleek: on}\n", 1).sleek_off, 0);
	cr_assert_eq(fe_nic_spec("model=uec,sleek=off", &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(n.sleek_off, 1);
	cr_assert_eq(fe_nic_spec("model=uec,sleek=maybe", &n, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--nic: sleek 'maybe' (allowed: on, off, true, false, yes, no)");
	cr_assert_eq(parse("name: t\nnic: {model: uec, sleek: 1}\n", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "nic.sleek '1' (allowed: on, off, true, false, yes, no)") != NULL,
		  "%s", err);
	/* one parser of a switch for every key (fe_parse_onoff()): YAML's words too */
	cr_assert_eq(parse("name: t\nlink: {ecn: {enabled: maybe}}\n", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "ecn.enabled 'maybe' (allowed: on, off, true, false, yes, no)") !=
			  NULL,
		  "%s", err);
	cr_assert_eq(parse("name: t\nlink: {ecn: {enabled: off}}\n", err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(prof.link.ecn.enabled, 0);
	cr_assert_eq(nic_of("name: t\nnic: {model: uec, sleek: false}\n", 1).sleek_off, 1);
	cr_assert_eq(fe_nic_spec("model=uec,sleek=no", &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(n.sleek_off, 1);
}

/* nic.oversub-cc: RCCC's pull rate cut, auto by default (on with RCCC alone on an
 * oversubscribed fabric: fe_derive.c), on or off; --nic sets it too, naming a bad value. */
Test(profile, nic_oversub_cc)
{
	struct fe_linkdef up[2], down[2];
	struct fe_fabric fab;
	struct fe_nic_params n = FE_NIC_DEFAULT;
	char err[512];

	cr_assert_eq(n.oversub_cc, FE_NIC_OCC_AUTO);
	cr_assert_eq(
		parse("name: t\nnic: {model: uec, cc: rccc, oversub-cc: off}\n", err, sizeof(err)),
		0, "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 1, 2, up, down, &fab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(fab.nic.oversub_cc, FE_NIC_OCC_OFF);
	cr_assert_eq(fe_nic_spec("model=uec,cc=rccc,oversub-cc=on", &n, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(n.oversub_cc, FE_NIC_OCC_ON);
	cr_assert_lt(fe_nic_spec("model=uec,cc=rccc,oversub-cc=yes", &n, err, sizeof(err)), 0);
	cr_assert_str_eq(err, "--nic: oversub-cc 'yes' (allowed: auto, on, off)");
}

/* nic.pcie, nic.pcie-backlog: the receiving host's PCIe (model uec, fe_pcie.h), its rate
 * dilated with the links'; --nic sets them too; another model is refused, naming it. */
Test(profile, nic_pcie)
{
	struct fe_nic_params
		n = FE_NIC_DEFAULT,
		f = nic_of("name: t\nnic: {model: uec, pcie: 64Gbit, pcie-backlog: 2MB}\n", 4);
	char err[512];

	cr_assert_eq(n.pcie_bps, 0, "not modelled by default");
	cr_assert_eq(f.pcie_bps, 16000000000ULL, "dilated: %llu", (unsigned long long)f.pcie_bps);
	cr_assert_eq(f.pcie_backlog, 2000000, "bytes are bytes");
	cr_assert_eq(fe_nic_spec("model=uec,pcie=100Mbit,pcie-backlog=16KiB", &n, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(n.pcie_bps, 100000000);
	cr_assert_eq(n.pcie_backlog, 16384);
	n = (struct fe_nic_params)FE_NIC_DEFAULT;
	cr_assert_eq(fe_nic_spec("model=roce,pcie=100Mbit", &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_lt(fe_nic_check(&n, "--nic: ", err, sizeof(err), NULL), 0,
		     "checked once combined");
	cr_assert_str_eq(err, "--nic: pcie '100Mbit' needs model uec (model 'roce')");
}

/* nic.cc: nscc+rccc, both of Ultra Ethernet's at once (model uec); --nic cc=nscc+rccc on
 * top of a profile, refused for another model as rccc is, naming the value. */
Test(profile, nic_cc_nscc_rccc)
{
	struct fe_linkdef up[2], down[2];
	struct fe_fabric fab;
	struct fe_nic_params n = FE_NIC_DEFAULT;
	char err[512];

	cr_assert_eq(parse("name: t\nnic: {model: uec, cc: nscc+rccc}\n", err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 1, 2, up, down, &fab, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(fe_nic_cc(&fab.nic), FE_CC_NSCC_RCCC);
	cr_assert(fe_nic_cc_nscc(fe_nic_cc(&fab.nic)) && fe_nic_cc_rccc(fe_nic_cc(&fab.nic)));
	cr_assert(fe_nic_cc_nscc(FE_CC_NSCC) && !fe_nic_cc_rccc(FE_CC_NSCC));
	cr_assert(!fe_nic_cc_nscc(FE_CC_RCCC) && fe_nic_cc_rccc(FE_CC_RCCC));
	cr_assert_str_eq(fe_nic_cc_name(FE_CC_NSCC_RCCC), "nscc+rccc");
	cr_assert_eq(fe_nic_spec("model=uec,cc=nscc+rccc", &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_nic_cc(&n), FE_CC_NSCC_RCCC);
	cr_assert_eq(fe_nic_check(&n, "", err, sizeof(err), NULL), 0, "%s", err);
	cr_assert_eq(fe_nic_spec("model=roce", &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_nic_check(&n, "", err, sizeof(err), NULL), -EINVAL);
	cr_assert_str_eq(err, "cc 'nscc+rccc' needs model uec (model 'roce' allowed: off, dcqcn, "
			      "ib, nscc)");
}

/* The links between switches: link:, then the entries that select all or fabric only. */
Test(profile, fabric_class)
{
	static const char y[] = "name: f\nlink: {rate: 100Gbit, delay: 1us}\nlinks:\n"
				"  - {select: 2.down, rate: 1Gbit}\n"
				"  - {select: up, ecn: {enabled: false}}\n"
				"  - {select: fabric, delay: 2us}\n"
				"  - {select: all, jitter: 1us}\n";
	struct fe_linkdef d;
	char err[512];

	cr_assert_eq(fe_profile_parse(y, strlen(y), "f.yaml", &prof, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(fe_profile_fabric(&prof, 10, &d, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(d.link.rate_bps, 10000000000ULL, "link:, at the scale");
	cr_assert_eq(d.link.delay_ns, 20000, "the fabric entry's, at the scale");
	cr_assert_eq(d.link.jitter_ns, 10000, "the all entry's");
}

Test(profile, lossless_up_links_get_room)
{
	struct fe_linkdef up[1], down[1];
	struct fe_fabric fab;
	char err[512];

	cr_assert_eq(parse("name: c\nregime: credit\n", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 1, 1, up, down, &fab, err, sizeof(err)), 0);
	cr_assert_eq(up[0].link.limit_bytes, FE_LOSSLESS_UP_BYTES);
	cr_assert_eq(down[0].link.limit_bytes, 1 << 20, "the switch side keeps the default");
}

/* credit: update, the bytes a lane's credit message gathers; 0 (each frame's) unless set. */
Test(profile, credit_update)
{
	struct fe_linkdef up[1], down[1];
	struct fe_fabric fab;
	char err[512];

	cr_assert_eq(parse("name: c\nregime: credit\n", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 1, 1, up, down, &fab, err, sizeof(err)), 0);
	cr_assert_eq(fab.credit.update, 0);
	cr_assert_eq(parse("name: c\nregime: credit\ncredit:\n  update: 4KiB\n", err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 4000, 1, up, down, &fab, err, sizeof(err)), 0);
	cr_assert_eq(fab.credit.update, 4096, "a size: not dilated by the scale");
}

/* credit: unit, the bytes a credit stands for: 64 (InfiniBand's) unless given, a size not
 * dilated, shown with the blocks the buffer and a message make of it. */
Test(profile, credit_unit)
{
	struct fe_linkdef up[1], down[1];
	struct fe_fabric fab;
	char err[512], *text = NULL;
	size_t n = 0;
	FILE *f;

	cr_assert_eq(parse("name: c\nregime: credit\n", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 1, 1, up, down, &fab, err, sizeof(err)), 0);
	cr_assert_eq(fab.credit.unit, 64);
	cr_assert_eq(parse("name: c\nregime: credit\ncredit:\n  unit: 254B\n  update: 4KiB\n", err,
			   sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 4000, 1, up, down, &fab, err, sizeof(err)), 0);
	cr_assert_eq(fab.credit.unit, 254, "a size: not dilated by the scale");
	f = open_memstream(&text, &n);
	fe_profile_print_fabric(f, &fab);
	fclose(f);
	cr_assert(strstr(text, "credit buffer 65536B (258 blocks of 254B: 65532B) ") != NULL, "%s",
		  text);
	cr_assert(strstr(text, " update 4096B (17 blocks)\n") != NULL, "%s", text);
	free(text);
}

/* nic: trim-queue, the queue a trimmed header takes: priority unless given, shown. */
Test(profile, nic_trim_queue)
{
	struct fe_linkdef up[1], down[1];
	struct fe_fabric fab;
	char err[512], *text = NULL;
	size_t n = 0;
	FILE *f;

	cr_assert_eq(parse("name: u\nnic:\n  model: uec\n", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 1, 1, up, down, &fab, err, sizeof(err)), 0);
	cr_assert_eq(fab.nic.trim_queue, FE_NIC_TRIMQ_PRIORITY);
	cr_assert_eq(parse("name: u\nnic:\n  model: uec\n  trim-queue: data\n", err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(fe_profile_expand(&prof, 1, 1, up, down, &fab, err, sizeof(err)), 0);
	cr_assert_eq(fab.nic.trim_queue, FE_NIC_TRIMQ_DATA);
	f = open_memstream(&text, &n);
	fe_profile_print_fabric(f, &fab);
	fclose(f);
	cr_assert(strstr(text, " trim 64B dscp kept queue data") != NULL, "%s", text);
	free(text);
}

struct bad {
	char yaml[160];
	char err[400];
};

static struct bad bad_profiles[] = {
	{"name: x\nlink:\n  rate: 1Gbit\n  bogus: 2\n",
	 "t.yaml:4: unknown key 'bogus' in link (known: rate, delay, buffer, buffer-pkts, loss, "
	 "gilbert-elliott, ecn, jitter, drop, llr, match)"},
	{"name: x\nspeed: 1\n",
	 "t.yaml:2: unknown key 'speed' (known: name, description, regime, lanes, lane-map, "
	 "switch-buffer, scale, seed, path, pfc, credit, nic, link, links)"},
	{"name: x\npath: shortest\n", "t.yaml:2: path 'shortest' (allowed: ecmp, polarized, spray, "
				      "spray-random, adaptive, flowlet, entropy)"},
	{"name: x\nnic:\n  model: rdma\n",
	 "t.yaml:3: nic.model 'rdma' (allowed: tcp, roce, ib, host, uec)"},
	{"name: x\nnic:\n  g: 0.004\n",
	 "t.yaml:3: nic.g '0.004' (allowed: 1/N with N from 1 to 65536, e.g. 1/256)"},
	{"name: x\nnic:\n  window: 0\n", "t.yaml:3: nic.window '0' (allowed: 1 to 4096)"},
	{"name: x\nnic:\n  qp: 3\n",
	 "t.yaml:3: unknown key 'qp' in nic (known: model, recovery, cc, g, stages, cnp-interval, "
	 "alpha-period, rate-period, rate-bytes, ai-rate, hai-rate, min-rate, timeout, window, "
	 "reorder, ccti-increase, ccti-limit, ccti-min, ccti-timer, cct-step, rtt, trim, "
	 "trim-dscp, trim-queue, reps-freeze, oversub-cc, sleek, pcie, pcie-backlog, "
	 "ack-bytes)"},
	{"name: x\nnic:\n  model: uec\n  trim-queue: low\n",
	 "t.yaml:4: nic.trim-queue 'low' (allowed: priority, data)"},
	{"name: x\nnic:\n  model: roce\n  trim-queue: data\n",
	 "t.yaml:4: nic.trim-queue 'data' needs model uec (model 'roce')"},
	{"name: x\nnic:\n  model: ib\n  trim-dscp: 46\n",
	 "t.yaml:4: nic.trim-dscp '46' needs model uec (model 'ib')"},
	{"name: x\nnic:\n  pcie: 64Gbit\n",
	 "t.yaml:3: nic.pcie '64Gbit' needs model uec (model 'tcp')"},
	{"name: x\nnic:\n  model: uec\n  pcie-backlog: 1MB\n",
	 "t.yaml:4: nic.pcie-backlog '1000000B' needs pcie (the PCIe's rate)"},
	{"name: x\nnic:\n  model: uec\n  pcie-backlog: 1KB\n",
	 "t.yaml:4: nic.pcie-backlog '1KB' (allowed: 0 (5MB, uet-htsim's) or 16KiB to 256MiB)"},
	{"name: x\nnic:\n  model: uec\n  cc: rccc\n  oversub-cc: maybe\n",
	 "t.yaml:5: nic.oversub-cc 'maybe' (allowed: auto, on, off)"},
	{"name: x\nnic:\n  reps-freeze: 11s\n",
	 "t.yaml:3: nic.reps-freeze '11s' (allowed: 0s (never frozen) to 10s)"},
	{"name: x\nnic:\n  reorder: 2s\n",
	 "t.yaml:3: nic.reorder '2s' (allowed: 0s (a gap is reported at once) to 1s)"},
	{"name: x\nnic:\n  timeout: soon\n",
	 "t.yaml:3: nic.timeout 'soon' (allowed: 1us to 60s, or path)"},
	{"name: x\nnic:\n  cc: yes\n",
	 "t.yaml:3: nic.cc 'yes' (allowed: off, dcqcn, ib, nscc, rccc, nscc+rccc)"},
	{"name: x\nnic:\n  model: uec\n  cc: rccc+nscc\n",
	 "t.yaml:4: nic.cc 'rccc+nscc' (allowed: off, dcqcn, ib, nscc, rccc, nscc+rccc)"},
	{"name: x\nnic:\n  model: roce\n  cc: rccc\n",
	 "t.yaml:4: nic.cc 'rccc' needs model uec (model 'roce' allowed: off, dcqcn, ib, nscc)"},
	{"name: x\nnic:\n  model: ib\n  cc: nscc+rccc\n",
	 "t.yaml:4: nic.cc 'nscc+rccc' needs model uec (model 'ib' allowed: off, dcqcn, ib, "
	 "nscc)"},
	{"name: x\nlink:\n  rate: 5Tbit\n",
	 "t.yaml:3: link.rate '5Tbit' (allowed: 0 for unlimited, or 1kbit to 1Tbit)"},
	{"name: x\nlinks:\n  - select: 0.up\n  - select: 1.up\n    delay: fast\n",
	 "t.yaml:5: links.1.delay: invalid time (e.g. 100us, 1.5ms, 0s; units ns, us, ms, s) "
	 "'fast'"},
	{"name: x\nlink: {rate: 1\n",
	 "t.yaml:3: not valid YAML: did not find expected ',' or '}' while parsing a flow "
	 "mapping"},
	{"name: x\nregime: magic\n", "t.yaml:2: regime 'magic' (allowed: lossy, pfc, credit)"},
	{"name: x\nregime: pfc\npfc:\n  xoff: 10KiB\n  xon: 20KiB\n",
	 "t.yaml:5: pfc.xon (20480 B) must be below xoff (10240 B)"},
	{"name: x\nlink:\n  match: tcp port\n",
	 "t.yaml:3: link.match 'tcp port': can't parse filter expression: syntax error"},
	{"name: x\nlink:\n  rate: [1, 2]\n",
	 "t.yaml:3: link.rate: expected a single value here, not a list or mapping"},
	{"regime: lossy\n", "t.yaml: the profile needs a name (name: ...)"},
	{"name: x\nlanes: 9\n", "t.yaml:2: lanes '9' (allowed: 1 to 8)"},
	{"name: x\nlinks:\n  - select: 0.sideways\n",
	 "t.yaml:3: link selector '0.sideways' (allowed: all, up, down, N, N.up, N.down, fabric)"},
	{"name: x\nlinks:\n  - rate: 1Gbit\n",
	 "t.yaml:3: links.0: 'select' is required (all, up, down, N, N.up or N.down)"},
	{"name: x\nlink:\n  ecn: {kmin: 10KB}\n",
	 "t.yaml:3: ecn: kmin and kmax are required (sizes, e.g. 20KiB)"},
	{"name: x\nlink:\n  ecn: {kmin: 10KB, kmax: 5KB}\n",
	 "t.yaml:3: link.ecn '10KB/5KB/100%': KMIN is above KMAX"},
	{"name: x\ncredit:\n  buffer: 1KiB\n",
	 "t.yaml:2: credit: section given but regime is lossy (set regime: credit)"},
	{"name: x\nregime: credit\ncredit:\n  buffer: 10\n",
	 "t.yaml:4: credit.buffer '10' (allowed: 16B to 64MiB, one credit (unit) to 1048576 of "
	 "them)"},
	{"name: x\nregime: credit\ncredit:\n  unit: 128KiB\n",
	 "t.yaml:4: credit.unit '128KiB' (allowed: 16B to 64KiB)"},
	{"name: x\nregime: credit\ncredit:\n  buffer: 128B\n  unit: 256B\n",
	 "t.yaml:4: credit.buffer (128 B) must hold 1 to 1048576 credits of unit (256 B): it holds "
	 "0"},
	{"name: x\nregime: credit\ncredit:\n  unit: 16B\n  buffer: 64MiB\n",
	 "t.yaml:5: credit.buffer (67108864 B) must hold 1 to 1048576 credits of unit (16 B): it "
	 "holds 4194304"},
	{"name: x\nregime: credit\ncredit:\n  buffer: 64KiB\n  update: 64KiB\n",
	 "t.yaml:5: credit.update (65536 B) must be below buffer (65536 B); the dataplane allows "
	 "at most the buffer less its largest frame (2048 B unless --mtu is larger) plus one "
	 "credit"},
	{"name: x\nregime: credit\ncredit:\n  update: 65MiB\n",
	 "t.yaml:4: credit.update '65MiB' (allowed: 0 (each frame's credits) to 64MiB)"},
	{"name: x\nnic:\n  model: roce\n  ack-bytes: 16KiB\n",
	 "t.yaml:4: nic.ack-bytes '16384B' needs model uec (model 'roce')"},
	{"name: x\nregime: credit\ncredit:\n  often: 1\n",
	 "t.yaml:4: unknown key 'often' in credit (known: buffer, unit, return, hoq, out, "
	 "update)"},
	{"name: x\nname: y\n", "t.yaml:2: key 'name' given twice"}, /* at the second */
	{"name: x\nlink:\n  rate: 1Gbit\n  delay: 1us\n  rate: 2Gbit\n",
	 "t.yaml:5: key 'rate' given twice"},
	{"name: x\nlink:\n  loss: 150%\n",
	 "t.yaml:3: link.loss: invalid probability '150%' (0% to 100%, or 0 to 1)"},
	{"name: x\nregime: pfc\npfc:\n  quanta: 70000\n",
	 "t.yaml:4: pfc.quanta '70000' (allowed: 1 to 65535)"},
	{"name: x\nlink: 5\n", "t.yaml:2: link: expected a mapping (key: value lines) here"},
	{"name: x\nscale: 0\n", "t.yaml:2: scale '0' (allowed: 1 to 100000)"},
	{"name: x\nlink:\n  select: 0.up\n",
	 "t.yaml:3: link: 'select' belongs in entries of links:, not in link:"},
	{"name: x\nlink:\n  drop: {count: 2}\n",
	 "t.yaml:3: drop: first is required (the k-th matching packet, from 1)"},
	{"name: x\n  bad: indent\n",
	 "t.yaml:2: not valid YAML: mapping values are not allowed in this context"},
	{"", "t.yaml: empty document"},
};

ParameterizedTestParameters(profile, bad)
{
	return cr_make_param_array(struct bad, bad_profiles,
				   sizeof(bad_profiles) / sizeof(bad_profiles[0]));
}

ParameterizedTest(struct bad *b, profile, bad)
{
	char err[512] = "";

	cr_assert_neq(parse(b->yaml, err, sizeof(err)), 0, "accepted:\n%s", b->yaml);
	cr_assert_str_eq(err, b->err, "profile:\n%s", b->yaml);
}

Test(profile, garbage_never_crashes)
{
	/* random bytes and truncations of a good profile: an error or a profile, never a crash */
	char buf[sizeof(good)], err[512];
	unsigned seed = 1;

	for (size_t cut = 0; cut < sizeof(good) - 1; cut += 7)
		(void)fe_profile_parse(good, cut, "t.yaml", &prof, err, sizeof(err));
	for (int i = 0; i < 2000; i++) {
		memcpy(buf, good, sizeof(good));
		for (int k = 0; k < 4; k++)
			buf[rand_r(&seed) % (sizeof(good) - 1)] = (char)(rand_r(&seed) % 95 + 32);
		(void)fe_profile_parse(buf, sizeof(good) - 1, "t.yaml", &prof, err, sizeof(err));
	}
	cr_assert_eq(parse(good, err, sizeof(err)), 0, "%s", err);
}

Test(profile, shipped_profiles_load)
{
	static const char *const names[] = {"ideal",	    "ib-hdr",	  "ib-ndr",
					    "roce-pfc-ecn", "roce-lossy", "ethernet-lossy",
					    "ethernet-ecn"};
	struct fe_linkdef up[4], down[4];
	struct fe_fabric fab;
	char err[512];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		cr_assert_eq(fe_profile_load(names[i], &prof, err, sizeof(err)), 0, "%s", err);
		cr_assert_str_eq(prof.name, names[i]);
		cr_assert_eq(fe_profile_expand(&prof, 1000, 4, up, down, &fab, err, sizeof(err)), 0,
			     "%s at scale 1000: %s", names[i], err);
	}
	cr_assert_eq(fe_profile_load("ib-ndr", &prof, err, sizeof(err)), 0);
	cr_assert_eq(prof.fabric.regime, FE_REGIME_CREDIT);
	cr_assert_eq(prof.link.link.rate_bps, 400000000000ULL);
	cr_assert_eq(fe_profile_load("ib-hdr", &prof, err, sizeof(err)), 0);
	cr_assert_eq(prof.link.link.rate_bps, 200000000000ULL);
}
