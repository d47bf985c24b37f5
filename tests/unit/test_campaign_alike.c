/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Like for like (control/campaign/cg_file.c, cg_summary.c, cg_text.c, cg_csv.c, cg_html.c):
 * alike-links names one profile's links, and a regime with alike: REGIME runs that regime's
 * flow control and NICs over them: the same rate and delay on every port as every other
 * alike regime, the buffer too where it tail-drops, the campaign's MTU; the regime's own
 * links: entries over them. Every bad value is refused at its key, naming it. The summary
 * splits each as-specified regime's gap to the ideal fabric into the links' factor (as
 * specified / alike) and the flow control's (alike / ideal), each with its interval and
 * word, in every output.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_fixture.h"

static struct cg_campaign camp;

/* cg_load() of text as a file named x.yaml; err gets the message after the file's path. */
static int
load(const char *text, char *err, size_t len)
{
	char d[] = "/tmp/fe-test-alike.XXXXXX", path[64];
	FILE *f;
	int rc;

	cr_assert_not_null(mkdtemp(d));
	snprintf(path, sizeof(path), "%s/x.yaml", d);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	err[0] = '\0';
	rc = cg_load(path, &camp, err, len);
	free(camp.text);
	camp.text = NULL;
	unlink(path);
	rmdir(d);
	if (strncmp(err, path, strlen(path)) == 0)
		memmove(err, err + strlen(path), strlen(err + strlen(path)) + 1);
	return rc;
}

/* Four hosts; alike-links at line 4; regimes from line 6 to 10: wire, ideal, ib (credit), roce
 * (pfc, with an mtu and a links: entry of its own), eth (lossy, a shallow buffer). */
#define HEAD                                                                                       \
	"name: t\nhosts: 4\njob: {iterations: 5}\n"                                                \
	"alike-links: {profile: ethernet-lossy, scale: 1000}\n"                                    \
	"regimes:\n"                                                                               \
	"  - {name: wire, kind: wire}\n"                                                           \
	"  - {name: ideal, profile: ideal}\n"                                                      \
	"  - {name: ib, profile: ib-ndr, scale: 4000}\n"                                           \
	"  - {name: roce, profile: roce-pfc-ecn, scale: 4000, mtu: 1400, links: "                  \
	"[\"0.up:jitter=10us\"]}\n"                                                                \
	"  - {name: eth, profile: ethernet-lossy, scale: 100, links: [\"down:buffer=64KiB\"]}\n"

static void
accepted(const char *text)
{
	char err[1024];

	cr_assert_eq(load(text, err, sizeof(err)), 0, "refused: %s\ninput:\n%s", err, text);
}

/* Every port of regime g: rate, delay as the alike links (100 Mbit/s, 500 us). */
static void
alike_ports(const struct cg_regime *g)
{
	for (unsigned i = 0; i < camp.hosts; i++)
		for (unsigned d = 0; d < 2; d++) {
			const struct fe_link_params *l = d ? &g->down[i].link : &g->up[i].link;

			cr_expect_eq(l->rate_bps, 100000000ULL, "%s %u.%s rate %llu", g->name, i,
				     d ? "down" : "up", (unsigned long long)l->rate_bps);
			cr_expect_eq(l->delay_ns, 500000ULL, "%s %u.%s delay %llu", g->name, i,
				     d ? "down" : "up", (unsigned long long)l->delay_ns);
		}
}

Test(alike, regimes_run_over_the_same_links)
{
	accepted(HEAD "  - {name: ib-a, alike: ib}\n  - {name: roce-a, alike: roce}\n"
		      "  - {name: eth-a, alike: eth}\n  - {name: ideal-a, alike: ideal}\n");
	cr_assert_eq(camp.nreg, 9);
	cr_assert(camp.alike.set);
	cr_expect_eq(camp.alike.scale, 1000);
	cr_expect_str_eq(camp.alike.profile_name, "ethernet-lossy");
	cr_expect_str_eq(camp.alike.up[0], "up:rate=100Mbit,delay=500us");
	cr_expect_str_eq(camp.alike.down[1],
			 "down:rate=100Mbit,delay=500us,buffer=524288,buffer-pkts=1000");
	for (unsigned g = 5; g < 9; g++) {
		static const unsigned of[] = {2, 3, 4, 1};
		const struct cg_regime *r = &camp.reg[g], *s = &camp.reg[r->alike_of];

		cr_expect(r->alike, "%s", r->name);
		cr_expect_eq(r->alike_of, of[g - 5], "%s", r->name);
		alike_ports(r);
		/* one hop for all: what the links are, not the profile's */
		cr_expect_eq(r->hop_ns, camp.reg[5].hop_ns, "%s", r->name);
		/* its flow control, NICs and profile are its as-specified regime's */
		cr_expect_eq(r->fabric.regime, s->fabric.regime, "%s", r->name);
		cr_expect_eq(r->fabric.nic.model, s->fabric.nic.model, "%s", r->name);
		cr_expect_str_eq(r->profile, s->profile, "%s: %s", r->name, r->profile);
		cr_expect_eq(r->scale, s->scale, "%s", r->name);
		/* the campaign's MTU: the links are alike in it too */
		cr_expect_eq(r->edge.mtu, 1500, "%s", r->name);
		cr_expect_eq(r->nalike, 2, "%s", r->name);
		cr_expect(!r->ideal && !r->baseline, "%s is no baseline (%d %d)", r->name, r->ideal,
			  r->baseline);
	}
	/* the as-specified ones keep their own hops */
	cr_expect_eq(camp.reg[2].down[0].link.delay_ns, 400000ULL);
	cr_expect_eq(camp.reg[3].down[0].link.delay_ns, 1600000ULL);
	cr_expect_eq(camp.reg[3].edge.mtu, 1400);
	/* a lossless regime keeps the buffers its flow control is sized to (PFC: the egress
	 * queue in bytes alone, the adapter queue that never drops) */
	cr_expect_eq(camp.reg[6].down[0].link.limit_bytes, camp.reg[3].down[0].link.limit_bytes);
	cr_expect_eq(camp.reg[6].down[0].link.limit_pkts, 0);
	cr_expect_eq(camp.reg[6].up[0].link.limit_pkts, camp.reg[3].up[0].link.limit_pkts);
	cr_expect_eq(camp.reg[5].up[0].link.limit_bytes, camp.reg[2].up[0].link.limit_bytes);
	/* a tail-dropping one gets the alike buffer: ideal's 16384 packets become 1000 */
	cr_expect_eq(camp.reg[8].down[0].link.limit_bytes, 524288ULL);
	cr_expect_eq(camp.reg[8].down[0].link.limit_pkts, 1000);
	cr_expect_str_eq(camp.reg[8].links[1],
			 "down:rate=100Mbit,delay=500us,buffer=524288,buffer-pkts=1000");
	/* the regime's own links: entries over the alike links, in its as-specified order */
	cr_expect_str_eq(camp.reg[6].links[2], "0.up:jitter=10us");
	cr_expect_eq(camp.reg[6].up[0].link.jitter_ns, 10000ULL);
	cr_expect_eq(camp.reg[6].nlinks, 3);
	cr_expect_eq(camp.reg[7].down[1].link.limit_bytes, 65536ULL, "eth's shallow buffer kept");
	cr_expect_eq(camp.reg[7].up[1].link.limit_bytes, 524288ULL);
}

Test(alike, refused_at_the_key_named)
{
	static const char *const cases[][2] = {
		{HEAD "  - {name: x, alike: ibb}\n",
		 ":11: regimes.5.alike 'ibb': not a regime above this one (above: wire, ideal, ib, "
		 "roce, eth)"},
		{HEAD "  - {name: x, alike: wire}\n",
		 ":11: regimes.5.alike 'wire': the wire has no links to make alike"},
		{HEAD "  - {name: x, alike: ib}\n  - {name: y, alike: x}\n",
		 ":12: regimes.6.alike 'x': an alike regime itself (name the regime it is alike "
		 "of, ib)"},
		{HEAD "  - {name: x, alike: ib, scale: 100}\n",
		 ":11: regimes.5: alike takes the regime it names whole (name and alike only): "
		 "give what else differs to a regime of its own"},
		{HEAD "  - {name: x, alike: x}\n",
		 ":11: regimes.5.alike 'x': not a regime above this one (above: wire, ideal, ib, "
		 "roce, eth)"},
		{"name: t\nregimes:\n  - {name: ib, profile: ib-ndr}\n  - {name: x, alike: ib}\n",
		 ":4: regimes.1.alike: needs alike-links: {profile: P, scale: S}, the links it "
		 "runs "
		 "over"},
		{"name: t\nalike-links: {scale: 10}\nregimes:\n  - {name: a, profile: ideal}\n",
		 ":2: alike-links: a profile is required (its links are the alike regimes')"},
		{"name: t\nalike-links: {profile: ideal, scale: 0}\nregimes:\n  - {name: a, "
		 "profile: ideal}\n",
		 ":2: alike-links.scale '0' (allowed: 1 to 100000)"},
		{"name: t\nalike-links: {profile: etherne}\nregimes:\n  - {name: a, profile: "
		 "ideal}\n",
		 NULL},
		{"name: t\nalike-links: {profile: ideal, rate: 1Gbit}\nregimes:\n  - {name: a, "
		 "profile: ideal}\n",
		 ":2: unknown key 'rate' in alike-links (known: profile, scale)"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[1024];

		cr_expect_lt(load(cases[i][0], err, sizeof(err)), 0, "accepted:\n%s", cases[i][0]);
		if (cases[i][1])
			cr_expect_str_eq(err, cases[i][1], "input:\n%s\ngot: %s", cases[i][0], err);
		else /* the profile's own message, after the key */
			cr_expect(strncmp(err, ":2: alike-links.profile: ", 25) == 0 &&
					  strstr(err, "etherne"),
				  "%s", err);
	}
}

/*
 * On a topology: the alike regime's links between switches are the alike link too (the
 * profile's egress link, its buffer where the regime tail-drops), as its hosts' ports
 * are; what the regime's own links: entries say of them still applies over it.
 */
Test(alike, links_between_switches_too)
{
	accepted("name: t\nhosts: 4\njob: {iterations: 5}\n"
		 "alike-links: {profile: ethernet-lossy, scale: 1000}\n"
		 "regimes:\n"
		 "  - {name: ib, profile: ib-ndr, scale: 4000, topology: two-leaves}\n"
		 "  - {name: eth, profile: ethernet-lossy, scale: 100, topology: two-leaves, "
		 "links: [\"leaf1-spine1:loss=1%\"]}\n"
		 "  - {name: ib-a, alike: ib}\n  - {name: eth-a, alike: eth}\n");
	cr_assert_eq(camp.nreg, 4);
	for (unsigned g = 2; g < 4; g++) {
		const struct cg_regime *r = &camp.reg[g];

		alike_ports(r);
		cr_expect_str_eq(r->topology, camp.reg[g - 2].topology, "%s", r->name);
		cr_expect_eq(r->nalike, 3, "%s: %u alike entries", r->name, r->nalike);
	}
	cr_expect_str_eq(camp.reg[2].links[2], "fabric:rate=100Mbit,delay=500us");
	cr_expect_str_eq(camp.reg[3].links[2],
			 "fabric:rate=100Mbit,delay=500us,buffer=524288,buffer-pkts=1000");
	cr_expect_str_eq(camp.reg[3].links[3], "leaf1-spine1:loss=1%");
	cr_expect_eq(camp.reg[3].nlinks, 4);
	/* both run on the same hops: the alike links' */
	cr_expect_eq(camp.reg[2].hop_ns, camp.reg[3].hop_ns);
}

/* A profile whose ports differ (a links: entry for one port) gives no one alike link. */
Test(alike, links_of_one_link_for_every_port)
{
	char d[] = "/tmp/fe-test-alike-p.XXXXXX", prof[96], text[512], err[1024];
	FILE *f;

	cr_assert_not_null(mkdtemp(d));
	snprintf(prof, sizeof(prof), "%s/uneven.yaml", d);
	f = fopen(prof, "w");
	cr_assert_not_null(f);
	fputs("name: uneven\nregime: lossy\nlink: {rate: 1Gbit, delay: 10us}\n"
	      "links:\n  - {select: 1.down, delay: 20us}\n",
	      f);
	fclose(f);
	snprintf(text, sizeof(text),
		 "name: t\nhosts: 2\nalike-links: {profile: %s}\nregimes:\n  - {name: a, "
		 "profile: ideal}\n",
		 prof);
	cr_expect_lt(load(text, err, sizeof(err)), 0);
	snprintf(text, sizeof(text),
		 ":3: alike-links.profile '%s': port 1's links differ from port 0's; the alike "
		 "links are one link for every port",
		 prof);
	cr_expect_str_eq(err, text);
	unlink(prof);
	rmdir(d);
}

/* ---- The summary ---- */

static struct cg_row rows[CG_MAX_REGIMES * CG_MAX_SIZES];
static struct cg_run run;
static char dir[64];

static void
setup(void)
{
	/* wire, ideal, roce (as specified), roce-a (alike of roce) */
	cg_fixture_campaign(&camp, "roce");
	camp.nreg = 4;
	snprintf(camp.reg[3].name, sizeof(camp.reg[3].name), "roce-a");
	camp.reg[3].alike = 1;
	camp.reg[3].alike_of = 2;
	camp.alike.set = 1;
	camp.alike.scale = 1000;
	snprintf(camp.alike.profile_name, sizeof(camp.alike.profile_name), "ethernet-lossy");
	snprintf(camp.alike.up[0], sizeof(camp.alike.up[0]), "up:rate=100Mbit,delay=500us");
	snprintf(camp.alike.down[0], sizeof(camp.alike.down[0]), "down:rate=100Mbit,delay=500us");
	camp.edge.mtu = 1500;
	camp.reps = 3;
	camp.iters = 40;
	camp.seed = 1;
	memset(rows, 0, sizeof(rows));
	memset(&run, 0, sizeof(run));
	run.c = &camp;
	cr_assert_eq(cg_fixture_out_open(&run, dir, sizeof(dir), "alike"), 0);
}

static void
teardown(void)
{
	cr_assert_eq(cg_fixture_out_close(&run, dir), 0);
}

/* Three repetitions, interleaved: wire and ideal about 10 ms, roce 30 (its links 1.5x,
 * its flow control 2x), roce-a 20, each drifting a little from one repetition to the next. */
static json_t *
three_reps(void)
{
	json_t *runs = json_array();

	for (unsigned rep = 1; rep <= 3; rep++) {
		json_array_append_new(runs, cg_fixture_rep("wire", rep, 40, 10 + 0.1 * rep));
		json_array_append_new(runs, cg_fixture_rep("ideal", rep, 40, 10.2 - 0.1 * rep));
		json_array_append_new(runs, cg_fixture_rep("roce", rep, 40, 29 + rep * 0.5));
		json_array_append_new(runs, cg_fixture_rep("roce-a", rep, 40, 19.5 + rep * 0.25));
	}
	return runs;
}

TestSuite(alike_summary, .init = setup, .fini = teardown);

Test(alike_summary, gap_split_into_links_and_flow_control)
{
	json_t *runs = three_reps();
	size_t n = cg_summarize(&camp, runs, rows), len;
	char *out = NULL, want[256];
	FILE *f;

	cr_assert_eq(n, 4);
	/* the alike row: its as-specified regime's p50 over its own, about 1.5, slower */
	cr_assert_str_eq(rows[3].alike_of, "roce");
	cr_assert_float_eq(rows[3].vs_spec.v, rows[2].p50 / rows[3].p50, 1e-12);
	cr_assert(rows[3].vs_spec.lo > 1.3 && rows[3].vs_spec.hi < 1.7, "[%g, %g]",
		  rows[3].vs_spec.lo, rows[3].vs_spec.hi);
	cr_assert_eq(rows[3].vs_spec.word, CG_SLOWER);
	/* the factors multiply to the as-specified regime's gap to ideal */
	cr_assert_float_eq(rows[3].vs_spec.v * rows[3].vs_ideal.v, rows[2].vs_ideal.v, 1e-9);
	/* no other row has one */
	for (size_t i = 0; i < 3; i++)
		cr_assert(isnan(rows[i].vs_spec.v) && rows[i].alike_of[0] == '\0', "%zu", i);

	f = open_memstream(&out, &len);
	cg_print_summary(f, &camp, run.capacity, rows, n);
	fclose(f);
	/* which rows are which: the alike regime's marked in the job's table */
	cr_assert(strstr(out, "\nroce-a (alike)  "), "%s", out);
	cr_assert_null(strstr(out, "\nroce (alike)"), "%s", out);
	cr_assert(strstr(out, "\nlike for like: the alike regimes run over ethernet-lossy's links "
			      "at scale 1000 (up:rate=100Mbit,delay=500us, "
			      "down:rate=100Mbit,delay=500us;"),
		  "%s", out);
	snprintf(want, sizeof(want),
		 "roce -> roce-a                        1KiB %.2f [%.2f, %.2f] slower",
		 rows[2].vs_ideal.v, rows[2].vs_ideal.lo, rows[2].vs_ideal.hi);
	cr_assert(strstr(out, want), "%s not in\n%s", want, out);
	snprintf(want, sizeof(want), "%.2f [%.2f, %.2f] slower", rows[3].vs_spec.v,
		 rows[3].vs_spec.lo, rows[3].vs_spec.hi);
	cr_assert(strstr(out, want), "%s not in\n%s", want, out);
	free(out);
	json_decref(runs);
}

Test(alike_summary, in_every_output)
{
	json_t *runs = three_reps(), *sj, *row;
	size_t n = cg_summarize(&camp, runs, rows);
	char p[160], buf[256], *csv, *html;

	sj = cg_summary_json(&camp, rows, n);
	row = json_array_get(json_object_get(sj, "rows"), 3);
	cr_assert_str_eq(json_string_value(json_object_get(row, "alike_of")), "roce");
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(row, "vs_as_specified"), "word")),
		"slower");
	cr_assert(json_is_null(
		json_object_get(json_array_get(json_object_get(sj, "rows"), 2), "alike_of")));
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(sj, "alike_links"), "profile")),
		"ethernet-lossy");
	json_decref(sj);

	cr_assert_eq(cg_write_csvs(&run, runs, rows, n), 0);
	snprintf(p, sizeof(p), "%s/comparisons.csv", dir);
	csv = cg_fixture_slurp(p);
	snprintf(buf, sizeof(buf), "roce,roce-a,1KiB,alike,%.3f,%.3f,%.3f,slower,3,3\n",
		 rows[3].vs_spec.v, rows[3].vs_spec.lo, rows[3].vs_spec.hi);
	cr_assert(strstr(csv, buf), "%s not in %s", buf, csv);

	cr_assert_eq(cg_html(&run, runs, rows, n, "complete"), 0);
	snprintf(p, sizeof(p), "%s/report.html", dir);
	html = cg_fixture_slurp(p);
	cr_assert(strstr(html, "<h2>Like for like</h2>"), "no like-for-like table");
	cr_assert(strstr(html, "roce &rarr; roce-a"), "no alike row");
	cg_ratio_text(&rows[3].vs_spec, buf, sizeof(buf));
	cr_assert(strstr(html, buf), "%s not in the report", buf);
	json_decref(runs);
}
