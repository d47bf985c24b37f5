/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running a campaign: the testbed, the capacity it carries, every regime and repetition
 * (one run each: the network up, the job, the counters of both ends, the figures and the
 * verdict), then the results. Ctrl-C or a dead dataplane stop it, with partial results.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cg.h"
#include "fe_linkspec.h"
#include "fe_profile.h"

#ifndef FE_SOURCE_DIR
#define FE_SOURCE_DIR "."
#endif
#ifndef FE_VERSION
#define FE_VERSION "?"
#endif

/* How long the network has to settle after the job (FINs, the last ACKs) before counting. */
#define CG_SETTLE_US 300000

/* What the testbed carries, every host sending to the next: through fabemu, and bridged. */
static void
capacity(struct cg_run *r)
{
	const struct cg_campaign *c = r->c;
	int dataplane = 0, wire = 0;
	char err[1024];
	double bps;

	r->capacity = json_object();
	for (unsigned g = 0; g < c->nreg; g++) {
		dataplane |= c->reg[g].kind == CG_DATAPLANE;
		wire |= c->reg[g].kind == CG_WIRE;
	}
	if (!c->fid.capacity) {
		json_object_set_new(r->capacity, "note",
				    json_string("not measured (fidelity: capacity: false)"));
		return;
	}
	if (cg_mtu(r, c->edge.mtu) < 0)
		return;
	if (dataplane) {
		struct cg_regime ideal = {.kind = CG_DATAPLANE, .scale = 1, .edge = c->edge};

		cg_say("  capacity through the ideal dataplane (%s, every host to the next, %.0f "
		       "s)\n",
		       c->edge.pmd, (double)c->fid.cap_ns / 1e9);
		if (fe_profile_find("ideal", ideal.profile, sizeof(ideal.profile), err,
				    sizeof(err)) < 0 ||
		    cg_dp_start(r, &ideal, ideal.profile, 0, "capacity", err, sizeof(err)) < 0) {
			cg_say("  %s\n", err);
		} else {
			bps = cg_ring_goodput(r, "ideal", c->fid.cap_ns);
			cg_dp_stop(r, NULL);
			if (bps > 0)
				json_object_set_new(r->capacity, "ideal_bps", json_real(bps));
			cg_say("    %.2f Gbit/s\n", bps / 1e9);
		}
	}
	if (wire && !cg_interrupted) {
		cg_say("  capacity over the wire (a Linux bridge)\n");
		if (cg_wire_up(r) == 0) {
			bps = cg_ring_goodput(r, "wire", c->fid.cap_ns);
			if (bps > 0)
				json_object_set_new(r->capacity, "wire_bps", json_real(bps));
			cg_say("    %.2f Gbit/s\n", bps / 1e9);
		}
		cg_wire_down(r);
	}
}

static json_t *
host_json(unsigned h, const struct cg_host_ctr *a, const struct cg_host_ctr *b)
{
	return json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:I}", "host", h, "tx_packets",
			 (json_int_t)(b->tx_packets - a->tx_packets), "tx_dropped",
			 (json_int_t)(b->tx_dropped - a->tx_dropped), "rx_packets",
			 (json_int_t)(b->rx_packets - a->rx_packets), "rx_dropped",
			 (json_int_t)(b->rx_dropped - a->rx_dropped), "peer_tx_dropped",
			 (json_int_t)(b->peer_tx_dropped - a->peer_tx_dropped), "peer_rx_dropped",
			 (json_int_t)(b->peer_rx_dropped - a->peer_rx_dropped));
}

static json_t *
tcp_json(unsigned h, const struct cg_host_ctr *a, const struct cg_host_ctr *b)
{
	json_int_t retrans = (json_int_t)(b->retrans - a->retrans);

	return json_pack("{s:i, s:I, s:I, s:I, s:I, s:I}", "host", h, "retrans", retrans,
			 "real_retrans", retrans - (json_int_t)(b->dsack - a->dsack), "timeouts",
			 (json_int_t)(b->timeouts - a->timeouts), "loss_probes",
			 (json_int_t)(b->probes - a->probes), "ce_received",
			 (json_int_t)(b->ce - a->ce));
}

/* The faults as they ran, from the marks the hook and the runner wrote. */
static json_t *
marks_json(const char *marks)
{
	json_t *mk = json_array();
	FILE *f = fopen(marks, "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		char what[400] = "";
		unsigned long long t;
		int it = 0, n = 0;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 't' && sscanf(line, "t %llu %n", &t, &n) >= 1)
			snprintf(what, sizeof(what), "%s", line + n);
		else if (sscanf(line, "%d %llu %n", &it, &t, &n) >= 2)
			snprintf(what, sizeof(what), "%s", line + n);
		else
			continue;
		json_array_append_new(mk, json_pack("{s:i, s:I, s:s}", "iteration", it, "time_ns",
						    (json_int_t)t, "what", what));
	}
	if (f)
		fclose(f);
	return mk;
}

/* The network of a run up: fabemu-dp with the regime's profile, or the bridge. */
static int
network_up(struct cg_run *r, const struct cg_regime *g, unsigned rep, const char *tag)
{
	char err[1024];

	if (cg_mtu(r, g->edge.mtu) < 0) {
		cg_say("  the testbed's MTU could not be set to %u (log: %s/logs/testbed.log)\n",
		       g->edge.mtu, r->out);
		return -1;
	}
	if (g->kind == CG_WIRE) {
		if (cg_wire_up(r) == 0)
			return 0;
		cg_say("  the bridge did not come up (log: %s/logs/testbed.log)\n", r->out);
		return -1;
	}
	if (cg_dp_start(r, g, g->profile, rep, tag, err, sizeof(err)) == 0)
		return 0;
	cg_say("  %s\n", err);
	return -1;
}

static void
run_status(const struct cg_run *r, const struct cg_regime *g, unsigned rep,
	   const struct cg_job_result *jr, int dprc, int *status)
{
	if (cg_interrupted) {
		*status = CG_INTERRUPTED;
	} else if (jr->dp_died) {
		cg_say("  the dataplane died during the run (log: %s/logs/dp-%s-%u.log)\n", r->out,
		       g->name, rep + 1);
		*status = CG_DP_DIED;
	} else if (jr->status != 0) {
		cg_say("  the job failed with status %d (log: %s/logs/job-%s-%u.log)\n", jr->status,
		       r->out, g->name, rep + 1);
		*status = CG_JOB_FAILED;
	} else if (dprc != 0) {
		cg_say("  fabemu-dp exited with status %d (3: an mbuf leak)\n", dprc);
		*status = CG_JOB_FAILED;
	}
}

static json_t *
one_run(struct cg_run *r, const struct cg_regime *g, unsigned rep, int *status)
{
	struct cg_host_ctr before[CG_MAX_HOSTS + 1], after[CG_MAX_HOSTS + 1];
	struct cg_job_result jr = {0};
	char marks[PATH_MAX], tag[96];
	json_t *run, *counters = NULL, *tcp, *hosts;
	double rtt;
	int dprc = 0;

	snprintf(tag, sizeof(tag), "%s-%u", g->name, rep + 1);
	if (g->kind == CG_WIRE)
		cg_say("  regime %s (the hosts over a Linux bridge), repetition %u/%u\n", g->name,
		       rep + 1, r->c->reps);
	else
		cg_say("  regime %s (profile %s, scale %u), repetition %u/%u\n", g->name,
		       g->profile_name, g->scale, rep + 1, r->c->reps);
	if (network_up(r, g, rep, tag) < 0) {
		*status = CG_SETUP;
		return NULL;
	}
	rtt = cg_ping_rtt_us(r);
	/* the job's window: both ends counted from here (the hosts are idle) */
	if (g->kind == CG_DATAPLANE && cg_dp_reset(r) != 0) {
		cg_say("  fabemu-dp did not reset its counters: the run's would not be the job's "
		       "(log: %s/logs/dp-%s.log)\n",
		       r->out, tag);
		cg_dp_stop(r, &dprc);
		*status = CG_SETUP;
		return NULL;
	}
	for (unsigned h = 1; h <= r->c->hosts; h++)
		cg_host_read(r, h, &before[h]);
	snprintf(marks, sizeof(marks), "%s/logs/marks-%s.txt", r->out, tag);
	unlink(marks);
	cg_run_job(r, g, rep, marks, &jr);
	if (!cg_interrupted && !jr.dp_died)
		usleep(CG_SETTLE_US);
	tcp = json_array();
	hosts = json_array();
	for (unsigned h = 1; h <= r->c->hosts; h++) {
		cg_host_read(r, h, &after[h]);
		json_array_append_new(tcp, tcp_json(h, &before[h], &after[h]));
		json_array_append_new(hosts, host_json(h, &before[h], &after[h]));
	}
	if (g->kind == CG_DATAPLANE) {
		if (r->dp > 0)
			counters = cg_dp_counters(r);
		cg_dp_stop(r, &dprc);
	} else {
		cg_wire_down(r);
	}
	run = json_pack("{s:s, s:s, s:i, s:s, s:i, s:i, s:o, s:I, s:I, s:i, s:i, s:f, s:o, s:o, "
			"s:o, s:o}",
			"regime", g->name, "kind", g->kind == CG_WIRE ? "wire" : "dataplane",
			"repetition", rep + 1, "pmd", g->edge.pmd, "ring", (int)g->edge.ring, "mtu",
			(int)g->edge.mtu, "iterations", jr.iters, "start_ns",
			(json_int_t)jr.start_ns, "end_ns", (json_int_t)jr.end_ns, "job_status",
			jr.status, "dataplane_status", dprc, "ping_rtt_us", rtt, "tcp", tcp,
			"hosts", hosts, "faults", marks_json(marks), "counters",
			counters ? counters : json_null());
	cg_figures(r->c, g, run);
	cg_verdict(r->c, g, r->capacity, run);
	run_status(r, g, rep, &jr, dprc, status);
	return run;
}

/* The compiled links of a dataplane regime, as the dataplane will run them. */
static json_t *
regime_links(const struct cg_campaign *c, const struct cg_regime *g)
{
	struct fe_profile *p = malloc(sizeof(*p));
	struct fe_linkdef up[CG_MAX_HOSTS], down[CG_MAX_HOSTS];
	struct fe_fabric fab;
	json_t *links = json_array();
	char err[512], line[1024];

	if (p && g->kind == CG_DATAPLANE && fe_profile_load(g->profile, p, err, sizeof(err)) == 0 &&
	    fe_profile_expand(p, g->scale, c->hosts, up, down, &fab, err, sizeof(err)) == 0) {
		for (unsigned i = 0; i < g->nlinks; i++)
			fe_linkspec_apply(g->links[i], up, down, c->hosts, err, sizeof(err));
		for (unsigned n = 0; n < 2 * c->hosts; n++) {
			char name[16];

			snprintf(name, sizeof(name), "%u.%s", n / 2, n % 2 ? "down" : "up");
			json_array_append_new(
				links,
				json_pack("{s:s, s:s}", "link", name, "compiled",
					  fe_profile_fmt_link(n % 2 ? &down[n / 2] : &up[n / 2],
							      line, sizeof(line))));
		}
	}
	free(p);
	return links;
}

static json_t *
inputs(const struct cg_run *r)
{
	const struct cg_campaign *c = r->c;
	json_t *regs = json_array();
	struct utsname u;
	char v[256] = "?";

	if (cg_sh_out(v, sizeof(v), "mpirun --version 2>/dev/null | head -1") != 0 || !v[0])
		snprintf(v, sizeof(v), "?");
	v[strcspn(v, "\n")] = '\0';
	uname(&u);
	for (unsigned g = 0; g < c->nreg; g++) {
		const struct cg_regime *x = &c->reg[g];

		json_array_append_new(
			regs,
			json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:b, s:I, s:o, s:{s:s, s:i, s:i, "
				  "s:s}, s:o}",
				  "name", x->name, "kind",
				  x->kind == CG_WIRE ? "wire" : "dataplane", "profile",
				  x->profile_name, "profile_file", x->profile, "scale",
				  (int)x->scale, "regime",
				  x->kind == CG_WIRE ? "-" : fe_regime_name(x->fabric.regime),
				  "ideal", x->kind == CG_DATAPLANE && x->ideal, "hop_ns",
				  (json_int_t)x->hop_ns, "offered_bps",
				  x->offered_bps ? json_integer((json_int_t)x->offered_bps)
						 : json_null(),
				  "edge", "pmd", x->edge.pmd, "ring", (int)x->edge.ring, "mtu",
				  (int)x->edge.mtu, "dataplane", x->edge.dpargs, "links",
				  regime_links(c, x)));
	}
	return json_pack("{s:s, s:s, s:s, s:I, s:i, s:{s:f, s:f, s:b, s:I}, s:o, s:{s:s, s:s, "
			 "s:s}}",
			 "file", c->source, "text", c->text, "name", c->name, "seed",
			 (json_int_t)c->seed, "hosts", c->hosts, "fidelity", "lateness",
			 c->fid.late, "load", c->fid.load, "capacity", c->fid.capacity,
			 "capacity_ns", (json_int_t)c->fid.cap_ns, "regimes", regs, "versions",
			 "fabemu", FE_VERSION, "kernel", u.release, "mpi", v);
}

static const char *
status_name(int status)
{
	static const char *const names[] = {
		[CG_OK] = "complete",
		[CG_SETUP] = "setup failed",
		[CG_DP_DIED] = "dataplane died",
		[CG_JOB_FAILED] = "job failed",
	};

	if (status == CG_INTERRUPTED)
		return "interrupted (partial results)";
	return status >= 0 && status < 6 && names[status] ? names[status] : "failed";
}

static int
finish(struct cg_run *r, json_t *runs, int status)
{
	const char *st = status_name(status);
	struct cg_row *rows = calloc(CG_MAX_REGIMES * CG_MAX_SIZES, sizeof(*rows));
	size_t nrows;
	char p[PATH_MAX];

	if (rows == NULL)
		return status;
	nrows = cg_summarize(r->c, runs, rows);
	json_object_set_new(r->results, "status", json_string(st));
	json_object_set_new(r->results, "capacity", json_incref(r->capacity));
	json_object_set_new(r->results, "runs", json_incref(runs));
	snprintf(p, sizeof(p), "%s/campaign.json", r->out);
	if (json_dump_file(r->results, p, JSON_INDENT(1)) != 0)
		cg_say("  (could not write %s)\n", p);
	if (cg_write_csvs(r, runs, rows, nrows) < 0)
		cg_say("  (could not write every CSV file in %s)\n", r->out);
	if (cg_plots(r, runs) < 0)
		cg_say("  (gnuplot failed: see %s/logs/gnuplot.log; the data is complete)\n",
		       r->out);
	if (cg_html(r, rows, nrows, st) < 0)
		cg_say("  (could not write %s/report.html)\n", r->out);
	cg_say("\ncampaign %s: %s\n", r->c->name, st);
	cg_print_summary(stdout, r->c, r->capacity, rows, nrows);
	cg_say("results: %s/report.html\n", r->out);
	free(rows);
	return status;
}

/* Where we are and what we run: our binary, the source tree, the results directory. */
static int
run_setup(struct cg_run *r, const char *outdir, const char *testbed)
{
	char buf[PATH_MAX], stamp[32], *slash;
	time_t t = time(NULL);
	ssize_t n = readlink("/proc/self/exe", r->self, sizeof(r->self) - 1);

	r->self[n > 0 ? n : 0] = '\0';
	snprintf(r->bindir, sizeof(r->bindir), "%s", r->self);
	if ((slash = strrchr(r->bindir, '/')) != NULL)
		*slash = '\0';
	snprintf(r->root, sizeof(r->root), "%s",
		 getenv("FABEMU_ROOT") ? getenv("FABEMU_ROOT") : FE_SOURCE_DIR);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
	if (outdir)
		snprintf(r->out, sizeof(r->out), "%s", outdir);
	else
		snprintf(r->out, sizeof(r->out), "results/%s-%s", r->c->name, stamp);
	if (cg_sh("/dev/null", "mkdir -p '%s/logs' '%s/plots'", r->out, r->out) != 0 ||
	    realpath(r->out, buf) == NULL) {
		fprintf(stderr, "fabemuctl campaign run: cannot create %s\n", r->out);
		return -1;
	}
	snprintf(r->out, sizeof(r->out), "%s", buf);
	r->own_testbed = testbed == NULL;
	snprintf(r->testbed, sizeof(r->testbed), "%s", testbed ? testbed : "fc");
	if (r->own_testbed)
		snprintf(r->testbed, sizeof(r->testbed), "fc%u", (unsigned)getpid() % 10000);
	snprintf(r->prefix, sizeof(r->prefix), "fe-campaign-%u", (unsigned)getpid());
	snprintf(r->sock, sizeof(r->sock), "/run/fabemu/campaign-%u.sock", (unsigned)getpid());
	return 0;
}

int
cg_campaign_run(const char *file, const char *outdir, const char *testbed, unsigned iters)
{
	struct cg_campaign *c = calloc(1, sizeof(*c));
	struct cg_run *r = calloc(1, sizeof(*r));
	struct sigaction sa = {.sa_handler = cg_on_signal};
	char err[2048];
	json_t *runs = json_array();
	int status = CG_OK;

	if (c == NULL || r == NULL)
		return CG_SETUP;
	if (cg_load(file, c, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return CG_BAD_FILE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "fabemuctl campaign run: must run as root (it builds hosts)\n");
		return CG_USAGE;
	}
	r->c = c;
	r->iters_override = iters;
	if (run_setup(r, outdir, testbed) < 0)
		return CG_SETUP;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	r->results = json_pack("{s:o}", "inputs", inputs(r));
	cg_say("campaign %s: %u regime(s) x %u repetition(s), %u hosts; results in %s\n", c->name,
	       c->nreg, c->reps, c->hosts, r->out);
	if (cg_testbed_up(r) < 0) {
		cg_say("  the testbed did not come up (log: %s/logs/testbed.log)\n", r->out);
		status = CG_SETUP;
	}
	if (status == CG_OK)
		capacity(r);
	else
		r->capacity = json_object();
	for (unsigned g = 0; g < c->nreg && status == CG_OK && !cg_interrupted; g++)
		for (unsigned rep = 0; rep < c->reps && status == CG_OK; rep++) {
			json_t *run = one_run(r, &c->reg[g], rep, &status);

			if (run)
				json_array_append_new(runs, run);
			if (cg_interrupted)
				status = CG_INTERRUPTED;
		}
	if (cg_interrupted)
		status = CG_INTERRUPTED;
	cg_stop_beside(r);
	cg_stop_group(&r->job, SIGTERM, 5000);
	cg_dp_stop(r, NULL);
	cg_testbed_down(r);
	status = finish(r, runs, status);
	json_decref(runs);
	json_decref(r->results);
	json_decref(r->capacity);
	free(c->text);
	free(c);
	free(r);
	return status;
}
