/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a campaign reports once it ran (control/campaign/): a fault's end puts back the
 * regime's own links: overrides, the status says the fault steps that failed, a regime
 * cut short says so on its row, one that never ran has empty figures, not zeros, CSV
 * fields are quoted when they need it, the baselines' skipped faults are said, and each
 * step of a run carries its outcome, which the report reads.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_fixture.h"

static struct cg_campaign camp;
static struct cg_run run;
static char dir[64];

static void
setup(void)
{
	cg_fixture_campaign(&camp, "eth, lossy");
	memset(&run, 0, sizeof(run));
	camp.reps = 1;
	camp.iters = 200;
	camp.reg[2].scale = 100;
	snprintf(camp.reg[2].profile, sizeof(camp.reg[2].profile), "/p/ethernet-lossy.yaml");
	camp.nsteps = 2;
	camp.steps[0] = (struct cg_step){.at_ns = 1000000000};
	snprintf(camp.steps[0].args, sizeof(camp.steps[0].args), "set 0.up 'delay=20ms'");
	snprintf(camp.steps[0].what, sizeof(camp.steps[0].what), "delay 0.up delay=20ms");
	snprintf(camp.steps[0].src, sizeof(camp.steps[0].src), "timeline.0.at");
	snprintf(camp.steps[0].link, sizeof(camp.steps[0].link), "0.up");
	camp.steps[1] = (struct cg_step){.at_ns = 2000000000, .revert = 1};
	snprintf(camp.steps[1].args, sizeof(camp.steps[1].args), "0.up");
	snprintf(camp.steps[1].what, sizeof(camp.steps[1].what), "end of delay 0.up delay=20ms");
	snprintf(camp.steps[1].src, sizeof(camp.steps[1].src), "timeline.0.duration");
	snprintf(camp.steps[1].link, sizeof(camp.steps[1].link), "0.up");
	run.c = &camp;
	snprintf(run.self, sizeof(run.self), "/bin/fabemuctl");
	snprintf(run.sock, sizeof(run.sock), "/run/s.sock");
	cr_assert_eq(cg_fixture_out_open(&run, dir, sizeof(dir), "out"), 0);
}

static void
teardown(void)
{
	cr_assert_eq(cg_fixture_out_close(&run, dir), 0);
}

TestSuite(output, .init = setup, .fini = teardown);

/* A fault's end: the profile, then the regime's override of that link (and only it). */
Test(output, fault_end_keeps_links_overrides)
{
	struct cg_regime *g = &camp.reg[2];
	char cmd[8192], err[256];

	snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "0.up:delay=5ms");
	snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "1.down:loss=1%%");
	snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "up:rate=1Gbit");
	cg_step_command(&run, g, &camp.steps[1], cmd, sizeof(cmd), err, sizeof(err));
	cr_assert(strstr(cmd, "apply '/p/ethernet-lossy.yaml' --scale 100 --link 0.up"), "%s", cmd);
	cr_assert(strstr(cmd, "&& '/bin/fabemuctl' -s /run/s.sock set '0.up' 'delay=5ms'"), "%s",
		  cmd);
	cr_assert(strstr(cmd, "set '0.up' 'rate=1Gbit'"), "%s", cmd);
	cr_assert_null(strstr(cmd, "loss=1%"), "another link's override: %s", cmd);
	/* a port's both links, an override of every up link: the port's up link only */
	snprintf(camp.steps[1].args, sizeof(camp.steps[1].args), "1");
	cg_step_command(&run, g, &camp.steps[1], cmd, sizeof(cmd), err, sizeof(err));
	cr_assert(strstr(cmd, "set '1.down' 'loss=1%'"), "%s", cmd);
	cr_assert(strstr(cmd, "set '1.up' 'rate=1Gbit'"), "%s", cmd);
	cr_assert_null(strstr(cmd, "delay=5ms"), "%s", cmd);
	/* a link between switches: its override, in either direction's name */
	snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "s1-s2:delay=1ms");
	snprintf(camp.steps[1].args, sizeof(camp.steps[1].args), "s1>s2");
	cg_step_command(&run, g, &camp.steps[1], cmd, sizeof(cmd), err, sizeof(err));
	cr_assert(strstr(cmd, "set 's1>s2' 'delay=1ms'"), "%s", cmd);
	cr_assert_null(strstr(cmd, "rate=1Gbit"), "%s", cmd);
	/* a fault (not an end) is its own command */
	cg_step_command(&run, g, &camp.steps[0], cmd, sizeof(cmd), err, sizeof(err));
	cr_assert_str_eq(cmd, "'/bin/fabemuctl' -s /run/s.sock set 0.up 'delay=20ms'");
}

Test(output, status_says_failed_fault_steps)
{
	char b[256];

	cr_assert_str_eq(cg_status_text(CG_OK, 0, 0, b, sizeof(b)), "complete");
	cr_assert_str_eq(cg_status_text(CG_OK, 2, 0, b, sizeof(b)),
			 "complete, 2 fault step(s) failed");
	cr_assert_str_eq(cg_status_text(CG_OK, 1, 3, b, sizeof(b)),
			 "results incomplete, 1 fault step(s) failed; 3 file(s) of the results "
			 "not written");
	cr_assert_str_eq(cg_status_text(CG_INTERRUPTED, 0, 0, b, sizeof(b)),
			 "interrupted (partial results)");
	cr_assert_eq(CG_FAULTS_FAILED, 7);
}

/* A recorded run of regime name: n iterations of 1 KiB, partial if p. */
static json_t *
a_run(const char *name, unsigned n, const char *p)
{
	json_t *it = json_array(), *r;

	for (unsigned i = 0; i < n; i++)
		json_array_append_new(it, json_pack("[i, I, i, f, I]", i + 1, (json_int_t)1024,
						    i + 1, 500.0 + i, (json_int_t)i));
	r = cg_fixture_run(name, it, 50.0);
	json_object_set_new(r, "verdict", json_string("faithful"));
	json_object_set_new(r, "reasons", json_array());
	json_object_set_new(r, "not_checked", json_array());
	json_object_set_new(r, "unexplained", json_null());
	if (p)
		json_object_set_new(r, "partial", json_string(p));
	return r;
}

/* report.html of runs, the campaign's status given: its text. */
static char *
report_of(json_t *runs, const char *status)
{
	static struct cg_row rows[CG_MAX_REGIMES * CG_MAX_SIZES];
	char p[160];
	size_t n;

	json_decref(run.capacity); /* the fixture's, freed at teardown */
	run.capacity = json_object();
	memset(rows, 0, sizeof(rows));
	n = cg_summarize(&camp, runs, rows);
	cr_assert_eq(cg_html(&run, runs, rows, n, status), 0);
	snprintf(p, sizeof(p), "%s/report.html", dir);
	return cg_fixture_slurp(p);
}

/* Fields of a CSV line as RFC 4180 reads it: how many. */
static unsigned
csv_fields(const char *l)
{
	unsigned n = 1;
	int q = 0;

	for (; *l && *l != '\n'; l++)
		if (*l == '"')
			q = !q;
		else if (*l == ',' && !q)
			n++;
	return n;
}

/* The fields of a CSV line as RFC 4180 reads them, unquoted, into f[] (each cut at 255);
 * how many. */
static unsigned
csv_split(const char *l, char f[][256], unsigned max)
{
	unsigned n = 0, k = 0;
	int q = 0;

	for (; n < max; l++) {
		if (*l == '"' && q && l[1] == '"') {
			l++;
		} else if (*l == '"') {
			q = !q;
			continue;
		} else if ((*l == ',' && !q) || *l == '\n' || *l == '\0') {
			f[n++][k < 255 ? k : 255] = '\0';
			k = 0;
			if (*l != ',')
				break;
			continue;
		}
		if (k < 255)
			f[n][k] = *l;
		k++;
	}
	return n;
}

/* The columns of summary.csv that a regime not run still fills: what it is, not what it
 * measured. */
static int
unmeasured(const char *col)
{
	static const char *const cols[] = {"regime",	   "size", "baseline", "hop_us",
					   "offered_gbps", "nic",  "verdict",  "partial"};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (strcmp(col, cols[i]) == 0)
			return 1;
	return 0;
}

/* wire ran, ideal never ran, "eth, lossy" was interrupted after 47 of 200 iterations */
Test(output, partial_not_run_and_quoting)
{
	json_t *runs = json_array();
	struct cg_row rows[CG_MAX_REGIMES * CG_MAX_SIZES];
	char p[160], *csv, *line, *hdr;
	unsigned nh;
	size_t n;

	json_array_append_new(runs, a_run("wire", 200, NULL));
	json_array_append_new(runs, a_run("eth, lossy", 47, "47 of 200 iterations (interrupted)"));
	memset(rows, 0, sizeof(rows));
	n = cg_summarize(&camp, runs, rows);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(rows[2].partial, "partial: 47 of 200 iterations (interrupted)");
	cr_assert(strncmp(rows[2].verdict, "partial: 47 of 200 iterations (interrupted); ", 45) ==
			  0,
		  "%s", rows[2].verdict);
	cr_assert_str_eq(rows[0].partial, "");
	cr_assert_eq(cg_write_csvs(&run, runs, rows, n), 0);
	snprintf(p, sizeof(p), "%s/summary.csv", dir);
	csv = cg_fixture_slurp(p);
	hdr = csv;
	nh = csv_fields(hdr);
	for (line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n'))
		cr_assert_eq(csv_fields(line + 1), nh, "a row's columns shifted: %.200s", line + 1);
	cr_assert(strstr(csv, "\n\"eth, lossy\",1KiB,"), "%s", csv);
	/* ideal never ran: every figure of its row empty, none 0 */
	line = strstr(csv, "\nideal,");
	cr_assert_not_null(line);
	{
		static char hf[128][256], rf[128][256];
		unsigned nr = csv_split(line + 1, rf, 128), nc = csv_split(hdr, hf, 128);

		cr_assert_lt(nc, 128, "every column split: %u", nc);
		/* links.svg plots these columns by the numbers cg_summary_column() finds (it
		 * plotted column 8 as the ECN marks when fabric_trims took that place) */
		for (unsigned k = 0; k < 3; k++) {
			static const char *const plotted[] = {"fabric_drops", "fabric_trims",
							      "ecn_marks"};
			int c = cg_summary_column(plotted[k]);

			cr_assert_gt(c, 0, "%s", plotted[k]);
			cr_assert_str_eq(hf[c - 1], plotted[k]);
		}

		cr_assert_eq(nr, nc, "%.300s", line + 1);
		cr_assert_str_eq(rf[0], "ideal");
		/* every measured column empty: not 0, 0.000, nor a 0 in the last column */
		for (unsigned k = 0; k < nc; k++)
			if (!unmeasured(hf[k]))
				cr_assert_str_empty(rf[k], "column %s of a regime not run: '%s'",
						    hf[k], rf[k]);
		cr_assert(strstr(line, "not run"), "%.300s", line + 1);
	}
	cr_assert(strstr(csv, ",partial: 47 of 200 iterations (interrupted)\n"), "%s", csv);
	snprintf(p, sizeof(p), "%s/iterations.csv", dir);
	csv = cg_fixture_slurp(p);
	cr_assert(strstr(csv, "\n\"eth, lossy\",1,"), "%s", csv);
	json_decref(runs);
}

/* The terminal: the partial row marked, "-" for a regime not run, the baselines' note. */
Test(output, terminal)
{
	json_t *runs = json_array(), *cap = json_object();
	struct cg_row rows[CG_MAX_REGIMES * CG_MAX_SIZES];
	char *out = NULL;
	size_t len = 0, n;
	FILE *f = open_memstream(&out, &len);

	json_array_append_new(runs, a_run("wire", 200, NULL));
	json_array_append_new(runs, a_run("eth, lossy", 47, "47 of 200 iterations (interrupted)"));
	memset(rows, 0, sizeof(rows));
	n = cg_summarize(&camp, runs, rows);
	cg_print_summary(f, &camp, cap, rows, n);
	fclose(f);
	cr_assert(strstr(out, "eth, lossy (partial)"), "%s", out);
	cr_assert(strstr(out, "partial: 47 of 200 iterations (interrupted)"), "%s", out);
	cr_assert(strstr(out, "note: baselines run without the timeline's faults: wire, ideal "
			      "(2 fault step(s) not run in each)"),
		  "%s", out);
	{
		const char *l = strstr(out, "\nideal (baseline)");
		size_t k;

		cr_assert_not_null(l, "%s", out);
		k = strcspn(l + 1, "\n");
		cr_assert(k > 0 && l[k] == '-', "stalls of a regime not run: %.*s", (int)k, l + 1);
	}
	free(out);
	json_decref(runs);
	json_decref(cap);
}

/* report.html: the partial row, "-" for what a regime not run lacks, the baselines' note,
 * times as a person writes them, and the steps each run ran, failed or skipped. */
Test(output, html)
{
	json_t *runs = json_array(), *r;
	char *html;

	camp.steps[0].at_ns = 1500000000;
	r = a_run("wire", 200, NULL);
	json_object_set_new(r, "faults_skipped",
			    json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "step", "timeline.0.at",
				      "what", "delay 0.up delay=20ms", "at", "1.5 s", "outcome",
				      "skipped", "why",
				      "a baseline runs without the timeline's faults"));
	json_array_append_new(runs, r);
	r = a_run("eth, lossy", 47, "47 of 200 iterations (interrupted)");
	json_object_set_new(r, "faults",
			    json_pack("[{s:i, s:I, s:s, s:s}]", "iteration", 0, "time_ns",
				      (json_int_t)1501000000, "what", "delay 0.up delay=20ms",
				      "outcome", "ran"));
	json_object_set_new(r, "faults_missed",
			    json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "step", "timeline.0.duration",
				      "what", "end of delay 0.up delay=20ms", "at", "2 s",
				      "outcome", "failed", "why",
				      "its fabemuctl command failed (logs/faults.log)"));
	json_array_append_new(runs, r);
	html = report_of(runs, "interrupted (partial results)");
	cr_assert(strstr(html, "eth, lossy <span class='distorted'>(partial)</span>"), "%s", html);
	cr_assert(strstr(html, "partial: 47 of 200 iterations (interrupted); "), "%s", html);
	cr_assert(strstr(html, "<b>Note:</b> baselines run without the timeline's faults: wire, "
			       "ideal"),
		  "%s", html);
	cr_assert(strstr(html, "<li>1.5 s: delay 0.up delay=20ms (timeline.0.at)</li>"), "%s",
		  html);
	cr_assert(strstr(html, "ran at 1.501 s: delay 0.up delay=20ms"), "%s", html);
	cr_assert(strstr(html, "<b>FAILED</b> at 2 s: end of delay 0.up delay=20ms"), "%s", html);
	cr_assert(strstr(html, "skipped at 1.5 s: delay 0.up delay=20ms"), "%s", html);
	cr_assert_null(strstr(html, "ms 1500:"), "%s", html);
	json_decref(runs);
}

/* A fault on every link (all, fabric) ends on every links: entry of a link it changed,
 * between switches too (both directions, or one). */
Test(output, fault_end_on_all_restores_switch_links)
{
	struct cg_regime *g = &camp.reg[2];
	char cmd[8192], err[256];

	snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "s1-s2:delay=1ms");
	snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "spine2>leaf2:ecn=1");
	snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "1.down:loss=1%%");
	snprintf(camp.steps[1].args, sizeof(camp.steps[1].args), "all");
	cr_assert_eq(cg_step_command(&run, g, &camp.steps[1], cmd, sizeof(cmd), err, sizeof(err)),
		     0, "%s", err);
	cr_assert(strstr(cmd, "--link all && "), "%s", cmd);
	cr_assert(strstr(cmd, "set 's1-s2' 'delay=1ms'"), "%s", cmd);
	cr_assert(strstr(cmd, "set 'spine2>leaf2' 'ecn=1'"), "%s", cmd);
	cr_assert(strstr(cmd, "set '1.down' 'loss=1%'"), "%s", cmd);
	snprintf(camp.steps[1].args, sizeof(camp.steps[1].args), "fabric");
	cr_assert_eq(cg_step_command(&run, g, &camp.steps[1], cmd, sizeof(cmd), err, sizeof(err)),
		     0, "%s", err);
	cr_assert(strstr(cmd, "set 's1-s2' 'delay=1ms'"), "%s", cmd);
	cr_assert(strstr(cmd, "set 'spine2>leaf2' 'ecn=1'"), "%s", cmd);
	cr_assert_null(strstr(cmd, "loss=1%"), "a host's link is not the fabric's: %s", cmd);
}

/* A link between switches with the longest names a topology allows: never cut. */
Test(output, long_link_names_kept_whole)
{
	struct cg_regime *g = &camp.reg[2];
	char cmd[8192], err[256], a[FE_TOPO_NAME], b[FE_TOPO_NAME], link[CG_LINK_NAME], want[200];

	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memset(b, 'b', sizeof(b) - 1);
	b[sizeof(b) - 1] = '\0';
	snprintf(link, sizeof(link), "%s-%s.2", a, b); /* a parallel link's number too */
	cr_assert_gt(strlen(link), 64);
	snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "%s:delay=1ms", link);
	snprintf(camp.steps[1].args, sizeof(camp.steps[1].args), "%s", link);
	cr_assert_eq(cg_step_command(&run, g, &camp.steps[1], cmd, sizeof(cmd), err, sizeof(err)),
		     0, "%s", err);
	snprintf(want, sizeof(want), "set '%s' 'delay=1ms'", link);
	cr_assert(strstr(cmd, want), "%s", cmd);
	/* one direction of it, a fault on all */
	snprintf(camp.steps[1].args, sizeof(camp.steps[1].args), "all");
	snprintf(g->links[0], sizeof(g->links[0]), "%s>%s.2:delay=1ms", b, a);
	cr_assert_eq(cg_step_command(&run, g, &camp.steps[1], cmd, sizeof(cmd), err, sizeof(err)),
		     0, "%s", err);
	snprintf(want, sizeof(want), "set '%s>%s.2' 'delay=1ms'", b, a);
	cr_assert(strstr(cmd, want), "%s", cmd);
}

/* A command that does not fit is an error naming the step, never run cut short. */
Test(output, step_command_too_long_refused)
{
	struct cg_regime *g = &camp.reg[2];
	char cmd[512], err[256];

	for (unsigned i = 0; i < 4; i++) {
		snprintf(g->links[g->nlinks], sizeof(g->links[0]), "0.up:delay=%ums,", i + 1);
		memset(g->links[g->nlinks] + strlen(g->links[g->nlinks]), 'x', 200);
		g->nlinks++;
	}
	cr_assert_eq(cg_step_command(&run, g, &camp.steps[1], cmd, sizeof(cmd), err, sizeof(err)),
		     -1, "ran cut: %s", cmd);
	cr_assert(strstr(err, "end of delay 0.up delay=20ms: its command would be longer than"),
		  "%s", err);
	/* the room the runner gives it is enough */
	{
		static char big[CG_STEP_CMD];

		cr_assert_eq(cg_step_command(&run, g, &camp.steps[1], big, sizeof(big), err,
					     sizeof(err)),
			     0, "%s", err);
		cr_assert_gt(strlen(big), sizeof(cmd));
	}
}

/* The shell helper runs a command whole, however long. */
Test(output, shell_command_not_cut)
{
	static char x[10000];
	char log[PATH_MAX];

	memset(x, 'x', sizeof(x) - 1);
	snprintf(log, sizeof(log), "%s/sh.log", dir);
	/* cut, the quote is left open: sh refuses it */
	cr_assert_eq(cg_sh(log, "[ %zu -eq $(printf %%s '%s' | wc -c) ]", strlen(x), x), 0,
		     "a command of %zu bytes was cut", strlen(x));
}

/* A timed step the job ended before is not a failed one: "not reached", and not counted;
 * the job's end is its output's end, not when it was waited for. */
Test(output, step_not_reached_is_not_failed)
{
	struct cg_regime *g = &camp.reg[2];
	struct cg_job_result jr = {.start_ns = 0, .eof_ns = 1500000000, .end_ns = 61500000000};
	json_t *ran = json_pack("[{s:i, s:I, s:s}]", "iteration", 0, "time_ns",
				(json_int_t)1000000000, "what", "delay 0.up delay=20ms"),
	       *failed = json_array(), *missed;
	const char *why;

	missed = cg_faults_missed(&run, g, "eth-1", ran, failed, &jr, 1);
	cr_assert_eq(run.steps_failed, 0);
	cr_assert_eq(json_array_size(missed), 1);
	cr_assert_eq(cg_outcome_of(json_array_get(missed, 0)), CG_STEP_NOT_REACHED);
	why = json_string_value(json_object_get(json_array_get(missed, 0), "why"));
	cr_assert_str_eq(why, "not reached: the job ended (1.500 s after it started)");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(missed, 0), "at")),
			 "2 s");
	json_decref(missed);
	/* one whose command failed (its `x` mark): counted */
	json_array_append_new(failed, json_pack("{s:i, s:I, s:s}", "iteration", 0, "time_ns",
						(json_int_t)1400000000, "what",
						"end of delay 0.up delay=20ms"));
	missed = cg_faults_missed(&run, g, "eth-1", ran, failed, &jr, 1);
	cr_assert_eq(run.steps_failed, 1);
	cr_assert_eq(cg_outcome_of(json_array_get(missed, 0)), CG_STEP_FAILED);
	why = json_string_value(json_object_get(json_array_get(missed, 0), "why"));
	cr_assert_str_eq(why, "its fabemuctl command failed (logs/faults.log)");
	json_decref(missed);
	json_decref(ran);
	json_decref(failed);
}

/* report.html labels a step of a run by the outcome the runner gave it, as campaign.json
 * keeps it, not by the words of its reason: a failed step whose reason does not say
 * "failed", and one not reached whose reason does. */
Test(output, html_reads_step_outcome_not_reason)
{
	struct cg_job_result jr = {.start_ns = 0, .eof_ns = 1500000000, .end_ns = 1500000000};
	struct cg_regime *g = &camp.reg[2];
	json_t *none = json_array(), *failed, *missed, *r, *runs = json_array(), *back;
	char *html, *text;

	/* the fault at 1 s: its command failed; its end at 2 s: after the job's end */
	failed = json_pack("[{s:i, s:I, s:s}]", "iteration", 0, "time_ns", (json_int_t)1000000000,
			   "what", "delay 0.up delay=20ms");
	missed = cg_faults_missed(&run, g, "eth-1", none, failed, &jr, 1);
	cr_assert_eq(json_array_size(missed), 2);
	cr_assert_eq(cg_outcome_of(json_array_get(missed, 0)), CG_STEP_FAILED);
	cr_assert_eq(cg_outcome_of(json_array_get(missed, 1)), CG_STEP_NOT_REACHED);
	json_object_set_new(json_array_get(missed, 0), "why",
			    json_string("the dataplane refused it"));
	json_object_set_new(json_array_get(missed, 1), "why",
			    json_string("not reached: the job failed first"));
	r = a_run("eth, lossy", 200, NULL);
	json_object_set_new(r, "faults_missed", missed);
	json_array_append_new(runs, r);
	/* through campaign.json's text, as a later reader gets it */
	text = json_dumps(runs, 0);
	back = json_loads(text, 0, NULL);
	cr_assert_not_null(back);
	html = report_of(back, "complete, 1 fault step(s) failed");
	cr_assert(strstr(html, "<b>FAILED</b> at 1 s: delay 0.up delay=20ms (the dataplane "
			       "refused it)"),
		  "%s", html);
	cr_assert(strstr(html, "<b>not reached</b> at 2 s: end of delay 0.up delay=20ms (not "
			       "reached: the job failed first)"),
		  "%s", html);
	cr_assert_null(strstr(html, "<b>FAILED</b> at 2 s"), "%s", html);
	free(text);
	json_decref(back);
	json_decref(runs);
	json_decref(failed);
	json_decref(none);
}

/* A fault on a link a regime's fabric lacks is skipped there, said before the job, not a
 * failure; it runs in a regime whose topology has it. */
Test(output, link_not_in_regime_fabric_skipped)
{
	struct cg_regime *g = &camp.reg[2];
	struct cg_job_result jr = {.start_ns = 0, .eof_ns = 5000000000, .end_ns = 5000000000};
	json_t *sk, *missed, *none = json_array();

	snprintf(camp.steps[0].link, sizeof(camp.steps[0].link), "leaf1-spine1");
	snprintf(camp.steps[1].link, sizeof(camp.steps[1].link), "leaf1-spine1");
	cr_assert_not(cg_step_runs(&run, g, &camp.steps[0]));
	sk = cg_faults_skipped(&run, g);
	cr_assert_eq(json_array_size(sk), 2);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(sk, 0), "outcome")),
			 "skipped");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(sk, 0), "why")),
			 "not in this regime's fabric");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(sk, 0), "at")), "1 s");
	missed = cg_faults_missed(&run, g, "eth-1", none, none, &jr, 1);
	cr_assert_eq(json_array_size(missed), 0);
	cr_assert_eq(run.steps_failed, 0);
	json_decref(sk);
	json_decref(missed);
	/* a regime on a topology with that link runs it; a baseline does not */
	snprintf(g->topology, sizeof(g->topology), "%s/topologies/two-leaves.yaml", FE_SOURCE_DIR);
	cr_assert(cg_step_runs(&run, g, &camp.steps[0]));
	sk = cg_faults_skipped(&run, g);
	cr_assert_eq(json_array_size(sk), 0);
	json_decref(sk);
	cr_assert_not(cg_step_runs(&run, &camp.reg[1], &camp.steps[0]));
	/* fabric: every link between switches, so with a topology only (the dataplane of
	 * one switch refuses it) */
	snprintf(camp.steps[0].link, sizeof(camp.steps[0].link), "fabric");
	cr_assert(cg_step_runs(&run, g, &camp.steps[0]));
	g->topology[0] = '\0';
	cr_assert_not(cg_step_runs(&run, g, &camp.steps[0]));
	json_decref(none);
}

/* A run cut short with no verdict of its own: "partial: ...", no dangling "; ". */
Test(output, partial_verdict_no_dangling_separator)
{
	char v[256];

	cg_verdict_partial("47 of 200 iterations (interrupted)", "", v, sizeof(v));
	cr_assert_str_eq(v, "partial: 47 of 200 iterations (interrupted)");
	cg_verdict_partial("47 of 200 iterations (interrupted)", NULL, v, sizeof(v));
	cr_assert_str_eq(v, "partial: 47 of 200 iterations (interrupted)");
	cg_verdict_partial("the job was stopped (interrupted)", "faithful", v, sizeof(v));
	cr_assert_str_eq(v, "partial: the job was stopped (interrupted); faithful");
}
