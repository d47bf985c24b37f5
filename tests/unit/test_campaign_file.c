/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Campaign files (control/campaign/cg_file.c, cg_load()): a key the schema does not know
 * is refused at its line, and the message lists every key that mapping takes, so that a
 * user who mistyped one finds the right one there; a fault is checked whole at check time
 * (its link against the hosts, its spec item by item, its end), each bad value at its own
 * key's line and named by it; what `campaign check` says of a good file.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/cg.h"
#include "fe_clab.h"

static struct cg_campaign camp;

/* cg_load() of text as a file named x.yaml; err gets the message. */
static int
load(const char *text, char *err, size_t len)
{
	char dir[] = "/tmp/fe-test-campaign.XXXXXX", path[64];
	FILE *f;
	int rc;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.yaml", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	rc = cg_load(path, &camp, err, len);
	free(camp.text);
	camp.text = NULL;
	unlink(path);
	rmdir(dir);
	/* the message names the file by its path: keep what follows it */
	if (strncmp(err, path, strlen(path)) == 0)
		memmove(err, err + strlen(path), strlen(err + strlen(path)) + 1);
	return rc;
}

static const struct {
	const char *text, *msg;
} unknown[] = {
	{"name: t\nhots: 4\n",
	 ":2: unknown key 'hots' (known: name, description, hosts, cores, pmd, ring, mtu, "
	 "dataplane, repetitions, seed, host-ecn, testbed, fidelity, alike-links, job, "
	 "regimes, timeline, beside, question, scenes, projection)"},
	{"name: t\ntestbed:\n  kind: hosts\n  hosts:\n    - {name: a, prefx: p}\n",
	 ":5: unknown key 'prefx' in hosts (known: name, prefix, shell, address, ifname, port)"},
	{"name: t\nregimes:\n  - name: a\n    profile: ideal\n    splt: true\n",
	 ":5: unknown key 'splt' in regimes (known: name, kind, profile, scale, pmd, ring, mtu, "
	 "dataplane, nic, topology, path, split, realtime, ranks, alike, scale-min, scale-max, "
	 "links)"},
	{"name: t\njob: {kind: allreduce, warmpu: 1}\n",
	 ":2: unknown key 'warmpu' in job (known: kind, iterations, warmup, command, sizes)"},
	{"name: t\ntimeline:\n  - action: drop\n    at: {iter: 4}\n",
	 ":4: unknown key 'iter' in at (known: iteration, time)"},
	{"name: t\nfidelity: {late: 1%}\n",
	 ":2: unknown key 'late' in fidelity (known: lateness, load, capacity, capacity-time, "
	 "calibrate)"},
};

Test(campaign_file, unknown_key_lists_every_known_key)
{
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		char err[1024] = "";

		cr_expect_lt(load(unknown[i].text, err, sizeof(err)), 0, "accepted: %s",
			     unknown[i].text);
		cr_expect_str_eq(err, unknown[i].msg, "input:\n%s", unknown[i].text);
	}
}

/* Two hosts, five iterations, one regime; a timeline's entries follow from line 7. */
#define HEAD                                                                                       \
	"name: t\nhosts: 2\njob: {iterations: 5}\nregimes:\n  - {name: a, profile: "               \
	"ethernet-lossy}\n"                                                                        \
	"timeline:\n"

/* Each text refused with its message (after the file's path). */
static void
refused(const char *const (*cases)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char err[1024] = "";

		cr_expect_lt(load(cases[i][0], err, sizeof(err)), 0, "accepted:\n%s", cases[i][0]);
		cr_expect_str_eq(err, cases[i][1], "input:\n%s\nsaid: %s", cases[i][0], err);
	}
}

#define REFUSED(cases) refused(cases, sizeof(cases) / sizeof(cases[0]))

/* Accepted; its message empty. */
static void
accepted(const char *text)
{
	char err[1024] = "";

	cr_assert_eq(load(text, err, sizeof(err)), 0, "refused: %s\ninput:\n%s", err, text);
}

/* Three regimes (wire, ideal, eth); a question: follows at line 8. */
#define QHEAD                                                                                      \
	"name: t\nhosts: 2\njob: {iterations: 5}\nregimes:\n  - {name: wire, kind: wire}\n"        \
	"  - {name: ideal, profile: ideal}\n  - {name: eth, profile: ethernet-lossy}\n"

/* question: pairs of the file's regimes, each two different ones, each pair once; the
 * compiled pairs are the regimes' indexes, in the file's order. */
Test(campaign_file, question_names_pairs_of_regimes)
{
	static const char *const cases[][2] = {
		{QHEAD "question: [[eth, idea]]\n",
		 ":8: question.0.1 'idea': not a regime of this campaign (regimes: wire, ideal, "
		 "eth)"},
		{QHEAD "question:\n  - [eth, wire]\n  - [Eth, ideal]\n",
		 ":10: question.1.0 'Eth': not a regime of this campaign (regimes: wire, ideal, "
		 "eth)"},
		{QHEAD "question: [[eth, eth]]\n",
		 ":8: question.0: 'eth' against itself (a question is two different regimes)"},
		{QHEAD "question: [[eth, ideal], [ideal, eth]]\n",
		 ":8: question.1: ideal against eth is asked by question.0 already"},
		/* a pair, not a name: said as a list expected, not a value */
		{QHEAD "question: [eth, ideal]\n",
		 ":8: question.0: expected a list here ([a, b], or a '- ' line an entry)"},
		{QHEAD "question: eth\n",
		 ":8: question: expected a list here ([a, b], or a '- ' line an entry)"},
		{QHEAD "question: [[eth, ideal, wire]]\n",
		 ":8: question.0.1: Excessive entries (2 max) in sequence."},
	};

	REFUSED(cases);
	accepted(QHEAD "question: [[eth, ideal], [wire, eth]]\n");
	cr_assert_eq(camp.nquestions, 2);
	cr_expect(camp.question[0].a == 2 && camp.question[0].b == 1, "%u %u", camp.question[0].a,
		  camp.question[0].b);
	cr_expect(camp.question[1].a == 0 && camp.question[1].b == 2, "%u %u", camp.question[1].a,
		  camp.question[1].b);
	accepted(QHEAD);
	cr_assert_eq(camp.nquestions, 0);
}

/* A list where a list belongs: said so, not "a single value expected" (job.sizes). */
Test(campaign_file, list_expected_said_so)
{
	static const char *const cases[][2] = {
		{"name: t\njob: {sizes: 1MiB}\nregimes:\n  - {name: a, profile: ideal}\n",
		 ":2: job.sizes: expected a list here ([a, b], or a '- ' line an entry)"},
	};

	REFUSED(cases);
}

/* A fault's link is one of the campaign's hosts' ports, as a regime's links: are. */
Test(campaign_file, fault_link_checked_against_the_hosts)
{
	static const char *const cases[][2] = {
		{HEAD "  - action: loss\n    at: {time: 1s}\n    loss: 1%\n    link: 7.up\n",
		 ":10: timeline.0.link: link selector '7.up': no such port (ports 0 to 1)"},
		{HEAD
		 "  - action: starve\n    at: {time: 1s}\n    duration: 1s\n    link: 5.down\n",
		 ":10: timeline.0.link: link selector '5.down': no such port (ports 0 to 1)"},
		{HEAD "  - {action: starve, at: {time: 1s}, duration: 1s, link: 1.up}\n",
		 ":7: timeline.0.link '1.up': starve needs N.down (the host that stops taking)"},
	};

	REFUSED(cases);
	accepted(HEAD "  - {action: loss, at: {time: 1s}, loss: 1%, link: 1.up}\n");
}

/* until: {time: T} ends a fault started at a time, at T; duration: 0s is refused. */
Test(campaign_file, until_time_ends_the_fault)
{
	static const char *const cases[][2] = {
		{HEAD
		 "  - action: loss\n    at: {time: 2s}\n    until: {time: 2s}\n    link: 0.up\n"
		 "    loss: 5%\n",
		 ":9: timeline.0.until.time '2s' is not after at: {time: 2s}"},
		{HEAD
		 "  - action: loss\n    at: {iteration: 2}\n    until: {time: 2s}\n    link: 0.up\n"
		 "    loss: 5%\n",
		 ":9: timeline.0.until.time: an action at: {iteration: 2} ends at an iteration "
		 "(until: {iteration: ...})"},
		{HEAD
		 "  - action: loss\n    at: {time: 1s}\n    until: {iteration: 3}\n    link: 0.up\n"
		 "    loss: 5%\n",
		 ":9: timeline.0.until.iteration: an action at: {time: 1s} ends at a time (until: "
		 "{time: ...})"},
		{HEAD "  - action: loss\n    at: {iteration: 3}\n    until: {iteration: 3}\n"
		      "    link: 0.up\n    loss: 5%\n",
		 ":9: timeline.0.until.iteration '3' is not after at: {iteration: 3}"},
		{HEAD "  - action: loss\n    at: {time: 1s}\n    duration: 0s\n    link: 0.up\n"
		      "    loss: 5%\n",
		 ":9: timeline.0.duration '0s' (allowed: 1us to 86400s)"},
		{HEAD
		 "  - action: loss\n    at: {time: 1s}\n    duration: 1s\n    until: {time: 3s}\n"
		 "    link: 0.up\n    loss: 5%\n",
		 ":10: timeline.0.until: give duration or until, not both"},
	};

	REFUSED(cases);
	accepted(HEAD "  - action: loss\n    at: {time: 1s}\n    until: {time: 2500ms}\n"
		      "    link: 0.up\n    loss: 5%\n");
	cr_assert_eq(camp.nsteps, 2);
	cr_expect_eq(camp.steps[0].at_ns, 1000000000ULL);
	cr_expect_eq(camp.steps[0].revert, 0);
	cr_expect_eq(camp.steps[1].at_ns, 2500000000ULL);
	cr_expect_eq(camp.steps[1].at_iter, 0);
	cr_expect_eq(camp.steps[1].revert, 1);
	cr_expect_str_eq(camp.steps[1].src, "timeline.0.until");
	cr_expect_str_eq(camp.steps[1].args, "0.up");
}

/* A fault's spec: every item key=value, a known key, a valid value, by the link-spec
 * parser; a hold (starve, pause-storm) no longer than the dataplane takes. */
Test(campaign_file, fault_spec_and_hold_checked_item_by_item)
{
	static const char *const cases[][2] = {
		{HEAD "  - action: set\n    at: {time: 1s}\n    link: 0.up\n"
		      "    spec: \"delay=1ms,garbage\"\n",
		 ":10: timeline.0.spec 'delay=1ms,garbage': expected key=value, got 'garbage'"},
		{HEAD "  - action: set\n    at: {time: 1s}\n    link: 0.up\n    spec: nonsense\n",
		 ":10: timeline.0.spec 'nonsense': expected key=value, got 'nonsense'"},
		{HEAD "  - action: set\n    at: {time: 1s}\n    link: 0.up\n"
		      "    spec: \"delay=1ms,colour=red\"\n",
		 ":10: timeline.0.spec 'delay=1ms,colour=red': unknown link key 'colour' (known: "
		 "rate, delay, buffer, buffer-pkts, loss, ge, ecn, jitter, drop, llr, match)"},
		{HEAD "  - action: set\n    at: {time: 1s}\n    link: 0.up\n"
		      "    spec: \"loss=1%,delay=5parsecs\"\n",
		 ":10: timeline.0.spec 'loss=1%,delay=5parsecs': delay: invalid time (e.g. 100us, "
		 "1.5ms, 0s; units ns, us, ms, s) '5parsecs'"},
		{HEAD "  - action: loss\n    at: {time: 1s}\n    link: 0.up\n    loss: 150%\n",
		 ":10: timeline.0.loss: invalid probability '150%' (0% to 100%, or 0 to 1)"},
		{HEAD
		 "  - action: starve\n    at: {time: 1s}\n    link: 0.down\n    duration: 100s\n",
		 ":10: timeline.0.duration '100s' (allowed: 1us to 60s)"},
		/* a hold of nothing does nothing: refused as the other actions' 0s are */
		{HEAD "  - {action: starve, at: {time: 1s}, link: 0.down, duration: 0s}\n",
		 ":7: timeline.0.duration '0s' (allowed: 1us to 60s)"},
		{HEAD "  - {action: pause-storm, at: {time: 1s}, link: 0.down, duration: 0s}\n",
		 ":7: timeline.0.duration '0s' (allowed: 1us to 60s)"},
	};

	REFUSED(cases);
	accepted(HEAD "  - action: set\n    at: {time: 1s}\n    duration: 1s\n    link: 0.up\n"
		      "    spec: \"delay=1ms,loss=1%,match=tcp and port 80\"\n");
	accepted(HEAD "  - {action: pause-storm, at: {time: 1s}, link: 1.down, duration: 60s}\n");
}

/* A regime's name names files and CSV fields: no '/', ',' or space; at its own line. */
Test(campaign_file, regime_name_letters_digits)
{
	static const char *const cases[][2] = {
		{"name: t\nregimes:\n  - profile: ideal\n    name: x/y\n",
		 ":4: regimes.0.name 'x/y': a name of letters, digits, '_', '-', '.' and '%' only, "
		 "1 to 63 characters"},
		{"name: t\nregimes:\n  - {name: a, profile: ideal}\n  - {name: \"eth, lossy\", "
		 "profile: ideal}\n",
		 ":4: regimes.1.name 'eth, lossy': a name of letters, digits, '_', '-', '.' and "
		 "'%' "
		 "only, 1 to 63 characters"},
		{"name: t\nregimes:\n  - {name: \"\", profile: ideal}\n",
		 ":3: regimes.0.name '': a name of letters, digits, '_', '-', '.' and '%' only, 1 "
		 "to "
		 "63 characters"},
	};

	REFUSED(cases);
	accepted("name: t\nregimes:\n  - {name: eth-0.1%-loss_2.b, profile: ideal}\n");
}

/* No job: the documented one, an all-reduce of 1MiB, 20 iterations after 2 warm-up. */
Test(campaign_file, job_defaults_as_documented)
{
	static const char *const cases[][2] = {
		{"name: t\njob: {sizes: [6B]}\nregimes:\n  - {name: a, profile: ideal}\n",
		 ":2: job.sizes: '6B' (allowed: 4B to 1GiB, a multiple of 4 bytes: the job sums "
		 "32-bit integers)"},
		{"name: t\njob:\n  kind: command\n  command: \"true\"\n  iterations: 3\n"
		 "regimes:\n  - {name: a, profile: ideal}\n",
		 ":5: job.iterations: an allreduce job's (a command job takes command)"},
	};

	REFUSED(cases);
	accepted("name: t\nregimes:\n  - {name: a, profile: ideal}\n");
	cr_expect(camp.allreduce);
	cr_expect_eq(camp.iters, 20);
	cr_expect_eq(camp.warmup, 2);
	cr_expect_eq(camp.nsizes, 1);
	cr_expect_eq(camp.sizes[0], 1 << 20);
	accepted("name: t\njob: {sizes: [8B, 1KiB]}\nregimes:\n  - {name: a, profile: ideal}\n");
	cr_expect_eq(camp.nsizes, 2);
	cr_expect(!camp.torch);
}

/* kind torch: the all-reduce over torch.distributed, with the allreduce kind's keys; faults
 * at its iterations; a kind that is neither refused, naming the three. */
Test(campaign_file, torch_job_is_an_allreduce)
{
	static const char *const cases[][2] = {
		{"name: t\njob: {kind: mpi}\nregimes:\n  - {name: a, profile: ideal}\n",
		 ":2: job.kind 'mpi' (allowed: allreduce, torch, permutation, command)"},
		{"name: t\njob: {kind: torch, command: \"true\"}\nregimes:\n  - {name: a, "
		 "profile: ideal}\n",
		 ":2: job.command: a command job's (kind: command); an allreduce job takes sizes, "
		 "iterations, warmup"},
	};

	REFUSED(cases);
	accepted("name: t\nhosts: 2\njob: {kind: torch, sizes: [64KiB], iterations: 4}\nregimes:\n"
		 "  - {name: a, profile: ethernet-lossy}\ntimeline:\n"
		 "  - {action: loss, at: {iteration: 3}, link: 0.up, loss: 1%}\n");
	cr_expect(camp.torch && camp.allreduce);
	cr_expect_eq(camp.iters, 4);
	cr_expect_eq(camp.sizes[0], 65536);
	cr_expect_eq(camp.steps[0].at_iter, 3);
}

/* kind permutation: the MPI job's permutation (fe-allreduce --pattern), sized as the
 * all-reduce; it projects nothing (the projection models an all-reduce): projection:
 * refused, and no default projection. */
Test(campaign_file, permutation_job_is_sized_and_projects_nothing)
{
	static const char *const cases[][2] = {
		{"name: t\njob: {kind: permutation}\nregimes:\n  - {name: a, profile: ideal}\n"
		 "projection: {ranks: [64]}\n",
		 ":5: projection: the all-reduce's (job.kind permutation has none)"},
		{"name: t\njob: {kind: permutation, command: \"true\"}\nregimes:\n  - {name: a, "
		 "profile: ideal}\n",
		 ":2: job.command: a command job's (kind: command); an allreduce job takes sizes, "
		 "iterations, warmup"},
	};

	REFUSED(cases);
	accepted("name: t\nhosts: 8\njob: {kind: permutation, sizes: [1MiB], iterations: 4}\n"
		 "regimes:\n  - {name: a, profile: ethernet-lossy}\n");
	cr_expect(camp.perm && camp.allreduce && !camp.torch);
	cr_expect(!cg_projects(&camp));
	cr_expect_eq(camp.iters, 4);
	cr_expect_eq(camp.sizes[0], 1 << 20);
	accepted("name: t\njob: {kind: allreduce}\nregimes:\n  - {name: a, profile: ideal}\n");
	cr_expect(!camp.perm && cg_projects(&camp));
}

/* A command job's iterations are its own (it runs $FE_HOOK): a fault at any of them up to
 * CG_MAX_ITERS; 0 and beyond refused. */
Test(campaign_file, command_job_takes_faults_at_its_iterations)
{
	static const char *const cases[][2] = {
		{"name: t\nhosts: 2\njob: {kind: command, command: \"true\"}\nregimes:\n  - {name: "
		 "a, profile: ethernet-lossy}\ntimeline:\n  - {action: loss, at: {iteration: "
		 "100001}, link: 0.up, loss: 1%}\n",
		 ":7: timeline.0.at.iteration '100001' (allowed: 1 to 100000)"},
	};

	REFUSED(cases);
	accepted("name: t\nhosts: 2\njob: {kind: command, command: \"true\"}\nregimes:\n"
		 "  - {name: a, profile: ethernet-lossy}\ntimeline:\n"
		 "  - {action: loss, at: {iteration: 250}, until: {iteration: 260}, link: 0.up, "
		 "loss: 1%}\n");
	cr_expect_eq(camp.steps[0].at_iter, 250);
	cr_expect_eq(camp.steps[1].at_iter, 260);
}

/* A bad key's own line and name, the user's values, and keys an action does not take. */
Test(campaign_file, errors_at_the_key_named)
{
	static const char *const cases[][2] = {
		{HEAD "  - action: loss\n    link: 0.up\n    loss: 1%\n    at: {iteration: 6}\n",
		 ":10: timeline.0.at.iteration '6' (allowed: 1 to 5)"},
		{HEAD "  - action: loss\n    link: 0.up\n    loss: 1%\n    at: {iteration: 2}\n"
		      "    until:\n      iteration: 9\n",
		 ":12: timeline.0.until.iteration '9' (allowed: 1 to 5)"},
		{HEAD
		 "  - action: delay\n    at: {time: 1s}\n    link: 0.up\n    delay: 5parsecs\n",
		 ":10: timeline.0.delay: invalid time (e.g. 100us, 1.5ms, 0s; units ns, us, ms, s) "
		 "'5parsecs'"},
		{HEAD "  - action: drop\n    at: {iteration: 2}\n    link: 0.up\n    match: tcp\n"
		      "    count: 0\n",
		 ":11: timeline.0.count '0' (allowed: 1 to 4294967295)"},
		{HEAD "  - action: loss\n    at: {time: 1s}\n    link: 0.up\n    loss: 1%\n"
		      "    delay: 5ms\n",
		 ":11: timeline.0.delay: action loss does not take delay (its keys: action, link, "
		 "at, loss, duration or until)"},
		{HEAD "  - action: starve\n    at: {time: 1s}\n    link: 0.down\n    duration: 1s\n"
		      "    until: {time: 3s}\n",
		 ":11: timeline.0.until: action starve does not take until (its keys: action, "
		 "link, at, duration)"},
		{HEAD "  - action: explode\n    at: {time: 1s}\n    link: 0.up\n",
		 ":7: timeline.0.action 'explode' (allowed: apply, set, loss, delay, drop, flap, "
		 "starve, pause-storm)"},
		{HEAD "  - action: loss\n    link: 0.up\n    loss: 1%\n",
		 ":7: timeline.0: at is required (at: {iteration: N} or {time: T})"},
	};

	REFUSED(cases);
}

/* campaign check's summary: regimes, faults, and the steps when a fault has an end. */
Test(campaign_file, describe_counts_faults_and_steps)
{
	char buf[128];

	accepted(HEAD "  - {action: loss, at: {iteration: 2}, until: {iteration: 4}, link: 0.up, "
		      "loss: 1%}\n");
	cr_expect_str_eq(cg_describe(&camp, buf, sizeof(buf)), "1 regime, 1 fault (2 steps)");
	accepted(HEAD "  - {action: flap, at: {iteration: 2}, link: 0}\n"
		      "  - {action: flap, at: {iteration: 3}, link: 1}\n");
	cr_expect_str_eq(cg_describe(&camp, buf, sizeof(buf)), "1 regime, 2 faults");
	accepted("name: t\nregimes:\n  - {name: a, profile: ideal}\n  - {name: b, kind: wire}\n");
	cr_expect_str_eq(cg_describe(&camp, buf, sizeof(buf)), "2 regimes, 0 faults");
}

/* A regime's bad value at its own line: a link of links:, kind, nic, profile, its name. */
Test(campaign_file, regime_errors_at_the_key)
{
	static const char *const cases[][2] = {
		{"name: t\nhosts: 2\nregimes:\n  - name: w\n    profile: ideal\n    links:\n"
		 "      - \"0.up:delay=1ms\"\n      - \"9.up:delay=1ms\"\n",
		 ":8: regimes.0.links.1 '9.up:delay=1ms': link selector '9.up': no such port "
		 "(ports 0 to 1)"},
		{"name: t\nregimes:\n  - name: w\n    kind: bridge\n",
		 ":4: regimes.0.kind 'bridge' (allowed: dataplane, wire)"},
		{"name: t\nregimes:\n  - name: w\n    profile: ideal\n    nic: model=fast\n",
		 ":5: regimes.0.nic 'model=fast': --nic: model 'fast' (allowed: tcp, roce, ib, "
		 "host, uec)"},
		{"name: t\nregimes:\n  - name: a\n    profile: ideal\n  - profile: ideal\n"
		 "    name: a\n",
		 ":6: regimes.1.name 'a': taken by regimes.0"},
		{"name: t\nregimes:\n  - {name: a, profile: ideal}\n  - {profile: ideal}\n",
		 ":4: regimes.1: a name is required"},
		{"name: t\nregimes:\n  - {name: a, profile: ideal}\n  - {name: b}\n",
		 ":4: regimes.1: a profile is required (regime b)"},
		{"name: t\nregimes:\n  - {name: a, profile: ideal, path: ecmp}\n",
		 ":3: regimes.0.path: without a topology"},
	};

	REFUSED(cases);
}

/* scale: auto (calibration): a range refused beside a fixed scale, each bound checked and
 * named; compiled at its floor; fidelity.calibrate makes every scale a floor. */
Test(campaign_file, scale_auto_and_its_range)
{
	static const char *const cases[][2] = {
		{"name: t\nregimes:\n  - {name: a, profile: ethernet-lossy, scale: 1000, "
		 "scale-min: 400}\n",
		 ":3: regimes.0.scale-min '400': only with scale: auto (scale 1000 is fixed)"},
		{"name: t\nregimes:\n  - {name: a, profile: ethernet-lossy, scale-max: 400}\n",
		 ":3: regimes.0.scale-max '400': only with scale: auto (scale unset: the profile's "
		 "is fixed)"},
		{"name: t\nregimes:\n  - {name: a, profile: ethernet-lossy, scale: automatic}\n",
		 ":3: regimes.0.scale 'automatic' (allowed: 1 to 100000, or auto)"},
		{"name: t\nregimes:\n  - {name: a, profile: ethernet-lossy, scale: auto, "
		 "scale-min: 0}\n",
		 ":3: regimes.0.scale-min '0' (allowed: 1 to 100000)"},
		{"name: t\nregimes:\n  - {name: a, profile: ethernet-lossy, scale: auto, "
		 "scale-min: 2000, scale-max: 1000}\n",
		 ":3: regimes.0.scale-max '1000': below scale-min 2000"},
		{"name: t\nregimes:\n  - {name: a, kind: wire, scale-min: 2}\n",
		 ":3: regimes.0: kind wire is the hosts joined by a Linux bridge, without fabemu: "
		 "profile, scale, links, nic, topology, path, split, realtime, pmd, ring and "
		 "dataplane do not apply (mtu does)"},
		{"name: t\nfidelity: {calibrate: maybe}\nregimes:\n  - {name: a, profile: ideal}\n",
		 ":2: fidelity.calibrate 'maybe' (allowed: true, false)"},
	};
	char err[1024] = "";

	REFUSED(cases);
	cr_assert_eq(load("name: t\nregimes:\n  - {name: w, kind: wire}\n"
			  "  - {name: a, profile: ethernet-lossy, scale: auto, scale-min: 200, "
			  "scale-max: 5000}\n  - {name: b, profile: ethernet-lossy, scale: 300}\n"
			  "  - {name: c, profile: ethernet-lossy, scale: auto}\n",
			  err, sizeof(err)),
		     0, "%s", err);
	cr_expect(camp.reg[1].scale_auto && camp.reg[1].scale_min == 200 &&
		  camp.reg[1].scale_max == 5000 && camp.reg[1].scale == 200);
	/* ethernet-lossy's 500 ns + 1538 B at 100 Gbit/s, at the floor */
	cr_expect_eq(camp.reg[1].hop_ns,
		     200 * 500 + 1538ULL * 8 * 1000000000 / (100000000000 / 200), "hop %llu",
		     (unsigned long long)camp.reg[1].hop_ns);
	cr_expect(!camp.reg[2].scale_auto && camp.reg[2].scale == 300);
	cr_expect(camp.reg[3].scale_auto && camp.reg[3].scale_min == 0 && camp.reg[3].scale == 1);
	/* fidelity.calibrate: the file's scale a floor, the profile's where none; not the
	 * baselines */
	cr_assert_eq(load("name: t\nfidelity: {calibrate: true}\nregimes:\n"
			  "  - {name: w, kind: wire}\n  - {name: i, profile: ideal}\n"
			  "  - {name: b, profile: ethernet-lossy, scale: 300}\n"
			  "  - {name: c, profile: ethernet-lossy}\n",
			  err, sizeof(err)),
		     0, "%s", err);
	cr_expect(!camp.reg[0].scale_auto && !camp.reg[1].scale_auto);
	cr_expect(camp.reg[2].scale_auto && camp.reg[2].scale_min == 300);
	cr_expect(camp.reg[3].scale_auto && camp.reg[3].scale_min == 1,
		  "ethernet-lossy's own scale (1): %u", camp.reg[3].scale_min);
}

/* Regime g again at another scale (the calibration's choice): the hop follows, an out-of-
 * range one refused and g kept. */
Test(campaign_file, regime_rescaled)
{
	char err[1024] = "";
	struct cg_regime before;

	cr_assert_eq(load("name: t\nhosts: 2\nregimes:\n"
			  "  - {name: a, profile: ethernet-lossy, scale: auto}\n",
			  err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(cg_regime_rescale(&camp, &camp.reg[0], 4000, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(camp.reg[0].scale, 4000);
	cr_expect_eq(camp.reg[0].hop_ns, 4000 * 500 + 1538ULL * 8 * 1000000000 / 25000000);
	cr_expect_eq(camp.reg[0].up[1].link.delay_ns, 4000 * 500);
	before = camp.reg[0];
	cr_expect_lt(cg_regime_rescale(&camp, &camp.reg[0], 100000000, err, sizeof(err)), 0);
	cr_expect(strstr(err, "regime a at scale 100000000") != NULL, "%s", err);
	cr_expect_eq(memcmp(&before, &camp.reg[0], sizeof(before)), 0);
}

/* More fabemu-dp options (dataplane:), checked against fabemu-dp's own (fe_dpopts.h), each
 * with its value as it takes one; the campaign's own refused. */
Test(campaign_file, dataplane_options_are_fabemu_dps)
{
	static const char *const cases[][2] = {
		{"name: t\ndataplane: \"--idle-sleep 20us --bogus-option\"\n",
		 ":2: dataplane: '--bogus-option' is not an option of fabemu-dp (fabemu-dp --help "
		 "lists them)"},
		{"name: t\nregimes:\n  - {name: a, profile: ideal, dataplane: \"rxd 2048\"}\n",
		 ":3: regimes.0.dataplane: 'rxd' is not an option of fabemu-dp (fabemu-dp --help "
		 "lists them)"},
		{"name: t\ndataplane: \"--rxd\"\n", ":2: dataplane: '--rxd' wants a value"},
		{"name: t\ndataplane: \"--help=1\"\n",
		 ":2: dataplane: '--help=1' is not an option "
		 "of fabemu-dp (fabemu-dp --help lists them)"},
		{"name: t\ndataplane: \"--seed=3\"\n",
		 ":2: dataplane: '--seed=3' is the campaign's to set (use profile, scale, seed)"},
	};

	REFUSED(cases);
	accepted("name: t\ndataplane: \"--idle-sleep 20us --rxd=2048 --txd 1024\"\nregimes:\n"
		 "  - {name: a, profile: ideal, dataplane: \"--mac-age 1s\"}\n");
}

/* An apply's profile is loaded at check time, as the dataplane will when it is due. */
Test(campaign_file, apply_profile_loaded_at_check)
{
	char prof[] = "/tmp/fe-test-profile.XXXXXX", text[512], err[1024] = "", want[600];
	int fd = mkstemp(prof);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "name: broken\nnothing: 1\n", 24), 24);
	close(fd);
	snprintf(text, sizeof(text),
		 HEAD "  - action: apply\n    at: {time: 1s}\n    link: 0.up\n    profile: %s\n",
		 prof);
	cr_expect_lt(load(text, err, sizeof(err)), 0, "accepted:\n%s", text);
	snprintf(want, sizeof(want), ":10: timeline.0.profile: %s:2: unknown key 'nothing'", prof);
	cr_expect(strncmp(err, want, strlen(want)) == 0, "%s\nnot: %s", err, want);
	unlink(prof);
}

/*
 * And expanded at the apply's scale, or its own, as the dataplane will: a 1 ms delay is
 * 10 s at scale 10000 and refused above it (fe_profile_dilate()), for the hosts' links and
 * those between switches alike.
 */
Test(campaign_file, apply_profile_expanded_at_its_scale)
{
	static const struct {
		const char *profile, *scale, *want; /* want NULL: accepted */
	} cases[] = {
		{"link: {rate: 0, delay: 1ms}\n", "10000", NULL},
		{"link: {rate: 0, delay: 1ms}\n", "10001",
		 ":10: timeline.0.profile: link 0.up: delay or jitter at scale 10001 is above 10s"},
		{"scale: 20000\nlink: {rate: 0, delay: 1ms}\n", NULL,
		 ":10: timeline.0.profile: link 0.up: delay or jitter at scale 20000 is above 10s"},
		{"scale: 20000\nlink: {rate: 0, delay: 1ms}\n", "2", NULL},
		{"link: {rate: 0, delay: 1us}\nlinks: [{select: 1.down, delay: 2ms}]\n", "10000",
		 ":10: timeline.0.profile: link 1.down: delay or jitter at scale 10000 is above "
		 "10s"},
		{"link: {rate: 0, delay: 1us}\nlinks: [{select: fabric, delay: 2ms}]\n", "10000",
		 ":10: timeline.0.profile: the links between switches: delay or jitter at scale "
		 "10000 is above 10s"},
		{"link: {rate: 10kbit}\n", "11",
		 ":10: timeline.0.profile: link 0.up: rate 10kbit at scale 11 is below 1kbit"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char prof[] = "/tmp/fe-test-profile.XXXXXX", body[256], text[512], err[1024] = "";
		int fd = mkstemp(prof), n;

		cr_assert_geq(fd, 0);
		n = snprintf(body, sizeof(body), "name: p\nregime: lossy\n%s", cases[i].profile);
		cr_assert_eq(write(fd, body, (size_t)n), n);
		close(fd);
		snprintf(text, sizeof(text),
			 HEAD "  - action: apply\n    at: {time: 1s}\n    link: 0.up\n    "
			      "profile: %s\n%s%s%s",
			 prof, cases[i].scale ? "    scale: " : "", cases[i].scale ?: "",
			 cases[i].scale ? "\n" : "");
		if (cases[i].want == NULL) {
			cr_expect_eq(load(text, err, sizeof(err)), 0, "%zu: %s", i, err);
		} else {
			cr_expect_lt(load(text, err, sizeof(err)), 0, "%zu accepted:\n%s", i, text);
			cr_expect(strstr(err, cases[i].want) != NULL, "%zu: %s\nnot: %s", i, err,
				  cases[i].want);
		}
		unlink(prof);
	}
}

/*
 * The baselines (cg_baseline()): the first wire regime and the first whose whole fabric is
 * ideal (an ideal profile, no topology, no links: entry); every other regime runs the
 * timeline's faults, an ideal one after the first too.
 */
Test(campaign_file, baselines_first_wire_and_first_ideal_fabric)
{
	char err[1024] = "";

	accepted("name: t\nhosts: 4\njob: {iterations: 5}\nregimes:\n"
		 "  - {name: w, kind: wire}\n"
		 "  - {name: i, profile: ideal}\n"
		 "  - {name: w2, kind: wire}\n"
		 "  - {name: i2, profile: ideal}\n"
		 "  - {name: topo, profile: ideal, topology: leaf-spine-4}\n"
		 "  - {name: sw, profile: ideal, topology: leaf-spine-4, links: "
		 "['fabric:delay=1ms']}\n"
		 "  - {name: port, profile: ideal, links: ['0.up:loss=0%']}\n");
	cr_expect_eq(camp.nreg, 7);
	cr_expect_eq(camp.reg[0].baseline, 1);
	cr_expect_eq(camp.reg[1].baseline, 2);
	for (unsigned g = 2; g < camp.nreg; g++)
		cr_expect(!cg_baseline(&camp.reg[g]), "regime %s a baseline", camp.reg[g].name);
	cr_expect(camp.reg[3].ideal && !camp.reg[4].ideal && !camp.reg[5].ideal &&
		  !camp.reg[6].ideal);
	/* one regime, ideal on the hosts' ports, its switch links delayed: not a baseline */
	accepted("name: t\nhosts: 4\njob: {iterations: 5}\nregimes:\n"
		 "  - {name: s, profile: ideal, topology: leaf-spine-4, links: "
		 "['fabric:delay=1ms']}\n"
		 "timeline:\n"
		 "  - {action: flap, at: {iteration: 2}, until: {iteration: 3}, link: "
		 "leaf1-spine1}\n");
	cr_expect(!cg_baseline(&camp.reg[0]));
	/* a timeline whose every regime is a baseline: its faults would run nowhere */
	cr_expect_lt(load("name: t\nhosts: 2\njob: {iterations: 5}\nregimes:\n"
			  "  - {name: w, kind: wire}\n  - {name: i, profile: ideal}\ntimeline:\n"
			  "  - {action: loss, at: {iteration: 2}, link: 0.up, loss: 5%}\n",
			  err, sizeof(err)),
		     0);
	cr_expect_str_eq(err, ":7: timeline: its faults would run nowhere: every regime is a "
			      "baseline, which runs without them (w (the wire), i (an ideal "
			      "fabric)); add a regime that is not: a profile that is not ideal, a "
			      "topology or a links: entry");
	/* a second wire regime is no baseline, and has no fabric to run a fault on */
	cr_expect_lt(load("name: t\nhosts: 2\njob: {iterations: 5}\nregimes:\n"
			  "  - {name: w, kind: wire}\n  - {name: e, profile: ethernet-lossy}\n"
			  "  - {name: w2, kind: wire}\ntimeline:\n"
			  "  - {action: loss, at: {iteration: 2}, link: 0.up, loss: 5%}\n",
			  err, sizeof(err)),
		     0);
	cr_expect_str_eq(err, ":7: regimes.2.kind: a second wire regime beside a timeline "
			      "(allowed: one, the baseline, which runs without the faults; the "
			      "wire has no fabric to run them on)");
}

/* Links between switches (fabric, A-B, A>B) need a topology: without one a fault's link:
 * and a regime's links: refuse them alike, as fabemu-dp's --link does, and a selector
 * refused lists them as needing a topology. */
#define ALLOWED_NOTOPO                                                                             \
	"(allowed: all, up, down, N, N.up, N.down; fabric, A-B, A>B: with a topology)"

Test(campaign_file, fabric_link_needs_a_topology)
{
	static const char *const cases[][2] = {
		{HEAD "  - {action: loss, at: {iteration: 2}, link: fabric, loss: 5%}\n",
		 ":7: timeline.0.link: link selector 'fabric': no links between switches "
		 "without a topology (docs/topologies.md)"},
		{HEAD "  - {action: loss, at: {iteration: 2}, link: s1-s2, loss: 5%}\n",
		 ":7: timeline.0.link: link selector 's1-s2': no links between switches "
		 "without a topology (docs/topologies.md)"},
		{HEAD "  - {action: loss, at: {iteration: 2}, link: 's1>s2', loss: 5%}\n",
		 ":7: timeline.0.link: link selector 's1>s2': no links between switches "
		 "without a topology (docs/topologies.md)"},
		{HEAD "  - {action: loss, at: {iteration: 2}, link: x.up, loss: 5%}\n",
		 ":7: timeline.0.link: link selector 'x.up' " ALLOWED_NOTOPO},
		{"name: t\nhosts: 2\njob: {iterations: 5}\nregimes:\n"
		 "  - {name: a, profile: ideal, links: ['fabric:loss=1%']}\n",
		 ":5: regimes.0.links.0 'fabric:loss=1%': link selector 'fabric': no links "
		 "between switches without a topology (docs/topologies.md)"},
		{"name: t\nhosts: 2\njob: {iterations: 5}\nregimes:\n"
		 "  - {name: a, profile: ideal, links: ['leaf1-spine1:loss=1%']}\n",
		 ":5: regimes.0.links.0 'leaf1-spine1:loss=1%': link selector 'leaf1-spine1': no "
		 "links between switches without a topology (docs/topologies.md)"},
		{"name: t\nhosts: 2\njob: {iterations: 5}\nregimes:\n"
		 "  - {name: a, profile: ideal, links: ['x.up:loss=1%']}\n",
		 ":5: regimes.0.links.0 'x.up:loss=1%': link selector 'x.up' " ALLOWED_NOTOPO},
	};

	REFUSED(cases);
	accepted(HEAD "  - {action: loss, at: {iteration: 2}, link: all, loss: 5%}\n");
	accepted("name: t\nhosts: 2\njob: {iterations: 5}\nregimes:\n"
		 "  - {name: a, profile: ideal, links: ['all:loss=1%']}\n");
}

/* A link between switches named the other way round (spine1-leaf1 for leaf1-spine1) is
 * refused naming it, at a fault's link: as at a regime's links: (and fabemu-dp, `set`). */
#define TOPO4                                                                                      \
	"name: t\nhosts: 4\njob: {iterations: 5}\nregimes:\n"                                      \
	"  - {name: a, profile: ideal, topology: leaf-spine-4}\n"
#define REVERSED                                                                                   \
	"link selector 'spine1-leaf1': no such link; that link is named leaf1-spine1 (its ends "   \
	"in the topology's order), its directions leaf1>spine1 and spine1>leaf1"

Test(campaign_file, reversed_link_name_told)
{
	static const char *const cases[][2] = {
		{TOPO4 "timeline:\n"
		       "  - {action: loss, at: {iteration: 2}, link: spine1-leaf1, loss: 5%}\n",
		 ":7: timeline.0.link: " REVERSED},
		{"name: t\nhosts: 4\njob: {iterations: 5}\nregimes:\n"
		 "  - {name: a, profile: ideal, topology: leaf-spine-4, links: "
		 "['spine1-leaf1:loss=1%']}\n",
		 ":5: regimes.0.links.0 'spine1-leaf1:loss=1%': " REVERSED},
		{TOPO4 "timeline:\n"
		       "  - {action: loss, at: {iteration: 2}, link: leaf9-spine1, loss: 5%}\n",
		 ":7: timeline.0.link: link selector 'leaf9-spine1' (allowed: all, up, down, N, "
		 "N.up, N.down, fabric); nor does any regime's topology have a link so named"},
	};

	REFUSED(cases);
	accepted(TOPO4 "timeline:\n"
		       "  - {action: loss, at: {iteration: 2}, link: leaf1-spine1, loss: 5%}\n");
}

/* A shipped campaign's name too long is refused with its length and the limit, never cut
 * to name another one. */
Test(campaign_file, long_name_refused_not_cut)
{
	char name[80], path[PATH_MAX], err[1024] = "", want[512];

	memset(name, 'q', 64);
	strcpy(name + 64, ".yaml");
	cr_expect_eq(cg_find(name, path, sizeof(path), err, sizeof(err)), -ENAMETOOLONG);
	snprintf(want, sizeof(want),
		 "campaign '%s' not found: no file %s in the current directory, and a shipped "
		 "campaign's name is at most 63 characters (without .yaml); this one has 64",
		 name, name);
	cr_expect_str_eq(err, want);
	name[63] = '\0'; /* 63: looked up (not shipped) */
	cr_expect_eq(cg_find(name, path, sizeof(path), err, sizeof(err)), -ENOENT);
	cr_expect(strstr(err, "no shipped campaign ") != NULL, "%s", err);
}

/*
 * What `fabemuctl topology import` writes passes `campaign check`: the shipped labs'
 * campaigns load; a lab whose campaign would not (one host, a profile that does not
 * exist, a path choice unknown) is refused at import, at its line, and writes nothing.
 */
static struct fe_clab lab;

/* Import text (or the file path if text is NULL) into a new directory; 0 and the written
 * campaign checked, or import's refusal in err. */
static int
import_and_check(const char *path, const char *text, char *err, size_t len)
{
	char dir[] = "/tmp/fe-test-import.XXXXXX", cpath[80], cmd[100];
	int rc;

	cr_assert_not_null(mkdtemp(dir));
	rc = text ? fe_clab_parse(text, strlen(text), "t.clab.yml", &lab, err, len)
		  : fe_clab_load(path, &lab, err, len);
	if (rc == 0) {
		cr_assert_eq(fe_clab_write(&lab, dir, err, len), 0, "%s", err);
		snprintf(cpath, sizeof(cpath), "%s/campaign.yaml", dir);
		cr_expect_eq(cg_load(cpath, &camp, err, len), 0,
			     "%s: check refuses what import wrote: %s", path ? path : text, err);
		free(camp.text);
		camp.text = NULL;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	return rc;
}

Test(campaign_file, what_topology_import_writes_passes_check)
{
	static const char *const labs[] = {"leaf-spine.clab.yml", "fabric.clab.yml"};
	static const char *const bad[][2] = {
		{"name: one\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n"
		 "    - endpoints: [\"h1:eth1\", \"s:e1\"]\n",
		 "t.clab.yml:4: topology.nodes: 1 host: the lab's campaign would have hosts '1' "
		 "(allowed: 2 to 16)"},
		{"name: p\ntopology:\n  nodes:\n    s: {kind: bridge, labels: {fabemu.profile: "
		 "nosuch}}\n    h1: {}\n    h2: {}\n  links:\n"
		 "    - endpoints: [\"h1:eth1\", \"s:e1\"]\n"
		 "    - endpoints: [\"h2:eth1\", \"s:e2\"]\n",
		 "t.clab.yml:4: node s: fabemu.profile: profile 'nosuch' not found"},
		{"name: q\ntopology:\n  nodes:\n    s: {kind: bridge, labels: {fabemu.path: "
		 "random}}\n    h1: {}\n    h2: {}\n  links:\n"
		 "    - endpoints: [\"h1:eth1\", \"s:e1\"]\n"
		 "    - endpoints: [\"h2:eth1\", \"s:e2\"]\n",
		 "t.clab.yml:4: node s: fabemu.path 'random' (allowed: ecmp, polarized, spray, "
		 "spray-random, adaptive, flowlet, entropy)"},
	};
	/* one switch: no links between switches */
	static const char one_switch[] = "name: two\ntopology:\n  nodes:\n    s: {kind: bridge}\n"
					 "    h1: {}\n    h2: {}\n  links:\n"
					 "    - endpoints: [\"h1:eth1\", \"s:e1\"]\n"
					 "    - endpoints: [\"h2:eth1\", \"s:e2\"]\n";
	char err[1024], path[PATH_MAX];

	cr_expect_eq(import_and_check(NULL, one_switch, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < sizeof(labs) / sizeof(labs[0]); i++) {
		snprintf(path, sizeof(path), "%s/testbeds/containerlab/%s", FE_SOURCE_DIR, labs[i]);
		cr_expect_eq(import_and_check(path, NULL, err, sizeof(err)), 0, "%s: %s", path,
			     err);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		cr_expect_lt(import_and_check(NULL, bad[i][0], err, sizeof(err)), 0,
			     "imported:\n%s", bad[i][0]);
		cr_expect(strncmp(err, bad[i][1], strlen(bad[i][1])) == 0,
			  "input:\n%s\nwant '%s', got '%s'", bad[i][0], bad[i][1], err);
	}
}

/*
 * A regime's links between switches as its dataplane will run them (cg_regime_hops(),
 * campaign show): the profile's fabric class at the regime's scale, what the topology
 * sets over it (leaf-spine-4's uplinks: half the class's rate, 2:1), then the regime's
 * links: entries on the links they name; a regime of one switch has none.
 */
Test(campaign_file, regime_hops_as_the_dataplane_runs_them)
{
	static struct fe_linkdef def[2 * FE_TOPO_LINKS];
	static char dir[2 * FE_TOPO_LINKS][80];
	char err[1024] = "";
	int n;

	cr_assert_eq(load("name: t\nhosts: 4\nregimes:\n"
			  "  - {name: ls, profile: ethernet-lossy, scale: 10, topology: "
			  "leaf-spine-4, links: ['leaf1-spine1:delay=7us', 'leaf2>spine2:loss=1%', "
			  "'0.up:rate=1Gbit']}\n"
			  "  - {name: one, profile: ethernet-lossy}\n",
			  err, sizeof(err)),
		     0, "%s", err);
	n = cg_regime_hops(&camp, &camp.reg[0], def, dir, err, sizeof(err));
	cr_assert_eq(n, 8, "%s", err);
	for (int i = 0; i < n; i++) {
		int l1s1 =
			strcmp(dir[i], "leaf1>spine1") == 0 || strcmp(dir[i], "spine1>leaf1") == 0;

		/* ethernet-lossy: 100 Gbit/s and 500 ns, at scale 10; the uplinks half that */
		cr_assert_eq(def[i].link.rate_bps, 5000000000ULL, "%s", dir[i]);
		cr_assert_eq(def[i].link.delay_ns, l1s1 ? 7000 : 5000, "%s", dir[i]);
		cr_assert_eq(def[i].loss.kind,
			     strcmp(dir[i], "leaf2>spine2") == 0 ? FE_LOSS_BERNOULLI : FE_LOSS_NONE,
			     "%s", dir[i]);
	}
	cr_assert_str_eq(dir[0], "leaf1>spine1");
	cr_assert_eq(camp.reg[0].up[0].link.rate_bps, 1000000000ULL, "a port's entry: its own");
	cr_assert_eq(cg_regime_hops(&camp, &camp.reg[1], def, dir, err, sizeof(err)), 0);
}

/*
 * testbed: {kind: hosts, hosts: [...]}: existing hosts, each reached by its prefix, with
 * its address, interface and the dataplane's port (docs/campaigns.md, "Existing hosts").
 */
#define TB                                                                                         \
	"name: t\ntestbed:\n  kind: hosts\n  hosts:\n"                                             \
	"    - {name: a, prefix: ip netns exec lab-a, address: 198.19.7.1, "                       \
	"port: \"net_af_packet0,iface=lab-a\"}\n"                                                  \
	"    - {name: b, prefix: ssh root@b, address: 198.19.7.2, ifname: ens1f0, "                \
	"port: \"net_af_packet1,iface=lab-b,framecnt=4096\"}\n"
#define ONE_REGIME "regimes:\n  - {name: a, profile: ideal}\n"

Test(campaign_file, testbed_hosts_accepted_as_given)
{
	accepted(TB ONE_REGIME);
	cr_expect_eq(camp.tb, CG_TB_HOSTS);
	cr_expect_eq(camp.hosts, 2);
	cr_expect_str_eq(camp.host[1].name, "a");
	cr_expect_str_eq(camp.host[1].prefix, "ip netns exec lab-a");
	cr_expect_eq(camp.host[1].shell, 0, "ip netns exec passes its arguments whole");
	cr_expect_str_eq(camp.host[1].addr, "198.19.7.1");
	cr_expect_str_eq(camp.host[1].ifname, "eth0", "the default interface");
	cr_expect_str_eq(camp.host[1].port_iface, "lab-a");
	cr_expect_eq(camp.host[1].pci, 0);
	cr_expect_eq(camp.host[2].shell, 1, "ssh hands a shell one string: quoted again");
	cr_expect_str_eq(camp.host[2].ifname, "ens1f0");
	cr_expect_str_eq(camp.host[2].port, "net_af_packet1,iface=lab-b,framecnt=4096");
	cr_expect_str_eq(camp.edge.pmd, "devices");
	cr_expect_eq(camp.split, 0, "nothing of this machine's cores moved");
	cr_expect_eq(camp.lcore, 0, "the dataplane on core 0 unless lcore: says");
	accepted("name: t\ntestbed:\n  kind: hosts\n  lcore: 3\n  hosts:\n"
		 "    - {name: a, prefix: p, address: 10.1.2.3, port: 0000:03:00.0}\n"
		 "    - {name: b, prefix: p, address: 10.1.2.4, port: \"03:00.1\"}\n" ONE_REGIME);
	cr_expect_eq(camp.lcore, 3, "testbed.lcore");
	/* any address: 198.18.0.0/15 is the tests', not the users' */
	accepted("name: t\ntestbed:\n  kind: hosts\n  hosts:\n"
		 "    - {name: a, prefix: p, address: 10.1.2.3, port: 0000:03:00.0, shell: true}\n"
		 "    - {name: b, prefix: p, address: 10.1.2.4, port: \"03:00.1\"}\n"
		 "    - {name: c, prefix: p, address: 10.1.2.5, port: "
		 "\"net_af_xdp0,iface=x\"}\n" ONE_REGIME);
	cr_expect_eq(camp.hosts, 3);
	cr_expect(camp.host[1].pci && camp.host[2].pci && !camp.host[3].pci);
	cr_expect_str_eq(camp.host[2].port, "0000:03:00.1", "a PCI address in full");
	cr_expect_eq(camp.host[1].shell, 1);
	/* the default kind: hosts: N, made by the campaign, at testbeds/veth.sh's addresses */
	accepted("name: t\nhosts: 3\ntestbed: {kind: veth}\n" ONE_REGIME);
	cr_expect_eq(camp.tb, CG_TB_VETH);
	cr_expect_str_eq(camp.host[3].addr, "198.18.0.3");
	accepted("name: t\n" ONE_REGIME);
	cr_expect_eq(camp.tb, CG_TB_VETH);
	cr_expect_eq(camp.hosts, 4);
}

/* Each bad value at its key's line, named; what cannot apply to existing hosts refused. */
Test(campaign_file, testbed_hosts_values_refused)
{
#define H2(x)                                                                                      \
	"name: t\ntestbed:\n  kind: hosts\n  hosts:\n    - {name: a, prefix: p, "                  \
	"address: 198.19.7.1, port: net_af_packet0}\n    - {" x "}\n" ONE_REGIME
	static const char *const cases[][2] = {
		{"name: t\ntestbed: {kind: lab}\n" ONE_REGIME,
		 ":2: testbed.kind 'lab' (allowed: veth, hosts)"},
		{"name: t\ntestbed:\n  hosts:\n    - {name: a}\n" ONE_REGIME,
		 ":3: testbed.hosts: kind hosts's (kind veth, the default, makes hosts: N)"},
		{"name: t\ntestbed: {kind: hosts}\n" ONE_REGIME,
		 ":2: testbed: kind hosts needs hosts: 2 to 16 of them"},
		{H2("name: b, prefix: p, address: 198.19.7.2"),
		 ":6: testbed.hosts.1: name, prefix, address and port are required (ifname: eth0 "
		 "and shell: the default)"},
		{H2("name: 'b c', prefix: p, address: 198.19.7.2, port: net_af_packet1"),
		 ":6: testbed.hosts.1.name 'b c': a name of letters, digits, '_', '-' and '.', 1 "
		 "to 31 characters"},
		{H2("name: a, prefix: p, address: 198.19.7.2, port: net_af_packet1"),
		 ":6: testbed.hosts.1.name 'a': taken by testbed.hosts.0"},
		{H2("name: b, prefix: '  ', address: 198.19.7.2, port: net_af_packet1"),
		 ":6: testbed.hosts.1.prefix '  ': a command (ssh HOST, ip netns exec NAME), 1 to "
		 "255 characters"},
		{H2("name: b, prefix: p, shell: yes, address: 198.19.7.2, port: net_af_packet1"),
		 ":6: testbed.hosts.1.shell 'yes' (allowed: true, false)"},
		{H2("name: b, prefix: p, address: 198.19.7, port: net_af_packet1"),
		 ":6: testbed.hosts.1.address '198.19.7': an IPv4 address (198.18.0.1)"},
		{H2("name: b, prefix: p, address: 198.19.7.1, port: net_af_packet1"),
		 ":6: testbed.hosts.1.address '198.19.7.1': host a's already"},
		{H2("name: b, prefix: p, address: 198.19.7.2, ifname: a/b, port: net_af_packet1"),
		 ":6: testbed.hosts.1.ifname 'a/b': an interface's name, 1 to 15 characters"},
		{H2("name: b, prefix: p, address: 198.19.7.2, ifname: abcdefghijklmnop, "
		    "port: net_af_packet1"),
		 ":6: testbed.hosts.1.ifname 'abcdefghijklmnop': an interface's name, 1 to 15 "
		 "characters"},
		{H2("name: b, prefix: p, address: 198.19.7.2, port: eth1"),
		 ":6: testbed.hosts.1.port 'eth1': a PCI address (0000:03:00.0) or a vdev "
		 "(net_af_packet0,iface=IF)"},
		{H2("name: b, prefix: p, address: 198.19.7.2, port: \"net_af_packet1,iface\""),
		 ":6: testbed.hosts.1.port 'net_af_packet1,iface': item 'iface' is not key=value"},
		{H2("name: b, prefix: p, address: 198.19.7.2, port: \"net_af_packet1,iface=a b\""),
		 ":6: testbed.hosts.1.port 'net_af_packet1,iface=a b': item 'iface=a b': a value "
		 "of "
		 "letters, digits and _.:/-"},
		{H2("name: b, prefix: p, address: 198.19.7.2, port: \"net_af_packet0,iface=x\""),
		 ":6: testbed.hosts.1.port 'net_af_packet0,iface=x': vdev net_af_packet0 is host "
		 "a's already"},
		{H2("name: b, prefix: p, address: 198.19.7.2, port: \"0000:03:00.0\""),
		 ":6: testbed.hosts.1.port '0000:03:00.0': a PCI port after host a's vdev: DPDK "
		 "numbers PCI ports before vdevs, and port i is the i-th host's; list the hosts on "
		 "PCI ports first"},
		{"name: t\ntestbed:\n  kind: hosts\n  hosts:\n"
		 "    - {name: a, prefix: p, address: 198.19.7.1, port: \"0000:03:00.1\"}\n"
		 "    - {name: b, prefix: p, address: 198.19.7.2, port: "
		 "\"0000:03:00.0\"}\n" ONE_REGIME,
		 ":6: testbed.hosts.1.port '0000:03:00.0': not after host a's 0000:03:00.1: DPDK "
		 "numbers PCI ports in their addresses' order, and port i is the i-th host's; list "
		 "the hosts in that order"},
		{"name: t\ntestbed:\n  kind: hosts\n  huge-dir: huge\n  hosts:\n"
		 "    - {name: a, prefix: p, address: 198.19.7.1, port: \"0000:03:00.0\"}\n"
		 "    - {name: b, prefix: p, address: 198.19.7.2, port: "
		 "\"0000:03:00.1\"}\n" ONE_REGIME,
		 ":4: testbed.huge-dir 'huge': an absolute path, without quotes"},
		/* what cannot apply to existing hosts */
		{TB "hosts: 2\n" ONE_REGIME,
		 ":7: hosts: not with testbed kind hosts (testbed.hosts lists them)"},
		{TB "cores: shared\n" ONE_REGIME,
		 ":7: cores: not with testbed kind hosts (it moves this machine's threads off the "
		 "dataplane's core for hosts it makes; give fabemu-dp's own options in "
		 "dataplane:)"},
		{TB "pmd: af_xdp\n" ONE_REGIME,
		 ":7: pmd: not with testbed kind hosts (the ports are the devices "
		 "testbed.hosts.N.port names)"},
		{TB "regimes:\n  - {name: w, kind: wire}\n",
		 ":8: regimes.0.kind: wire is the campaign's veth hosts joined by a Linux bridge: "
		 "not with testbed kind hosts (compare with an ideal regime, profile: ideal)"},
		{TB "regimes:\n  - {name: a, profile: ideal, split: true}\n",
		 ":8: regimes.0.split: the other boxes run in namespaces and veth trunks this "
		 "machine makes: not with testbed kind hosts (docs/scale-out.md: a box a "
		 "machine)"},
		{TB "regimes:\n  - {name: a, profile: ideal, pmd: af_packet}\n",
		 ":8: regimes.0.pmd: not with testbed kind hosts (the ports are the devices "
		 "testbed.hosts.N.port names)"},
		{"name: t\nhosts: 2\ntestbed: {huge-dir: /x}\n" ONE_REGIME,
		 ":3: testbed.huge-dir: kind hosts's (its PCI ports)"},
		{"name: t\nhosts: 2\ntestbed: {lcore: 1}\n" ONE_REGIME,
		 ":3: testbed.lcore: kind hosts's (kind veth keeps core 0 for the dataplane: "
		 "cores)"},
		{"name: t\ntestbed:\n  kind: hosts\n  lcore: 1024\n  hosts:\n"
		 "    - {name: a, prefix: p, address: 198.19.7.1, port: \"0000:03:00.0\"}\n"
		 "    - {name: b, prefix: p, address: 198.19.7.2, port: "
		 "\"0000:03:00.1\"}\n" ONE_REGIME,
		 ":4: testbed.lcore '1024' (allowed: 0 to 1023)"},
	};
#undef H2

	REFUSED(cases);
}

/* A suite (scenes:): its scenes named, nothing else; a scene beside the suite's file is
 * taken by its path there, one that is not stays a name (a shipped campaign's); another
 * key, or a scene twice, is refused at its line. */
Test(campaign_file, a_suite_has_only_its_scenes)
{
	static const char *const bad[][2] = {
		{"name: s\nhosts: 2\nscenes: [a]\n",
		 ":2: hosts: a suite (scenes:) has only a name, a description and its scenes; each "
		 "scene's campaign says the rest"},
		{"name: s\nscenes: [a]\nregimes:\n  - {name: a, profile: ideal}\n",
		 ":3: regimes: a suite (scenes:) has only a name, a description and its scenes; "
		 "each scene's campaign says the rest"},
		{"name: s\nscenes: [a, b, a]\n", ":2: scenes.2 'a': named twice"},
	};
	char err[1024] = "";
	char what[64];

	cr_assert_eq(
		load("name: s\ndescription: d\nscenes: [uec-loss, ./x.yaml]\n", err, sizeof(err)),
		0, "%s", err);
	cr_assert_eq(camp.nscenes, 2);
	cr_assert_eq(camp.nreg, 0);
	cr_assert_str_eq(camp.scene[0], "uec-loss", "not beside the suite: a name");
	cr_assert(strstr(camp.scene[1], "/x.yaml") != NULL && camp.scene[1][0] == '/',
		  "beside the suite: its path (%s)", camp.scene[1]);
	cr_assert_str_eq(cg_describe(&camp, what, sizeof(what)), "a suite of 2 scenes");
	refused(bad, sizeof(bad) / sizeof(bad[0]));
}
