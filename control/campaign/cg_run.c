/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running a campaign: the testbed, the capacity it carries, every regime and repetition
 * (one run each: the network up, the job, the counters of both ends, the figures and the
 * verdict), then the results. Ctrl-C or a dead dataplane stop it, with partial results.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cg.h"
#include "fe_linkspec.h"
#include "fe_profile.h"

#ifndef FE_VERSION
#define FE_VERSION "?"
#endif

/* How long the network has at most to settle after the job (FINs, the last ACKs) before
 * counting. */
#define CG_SETTLE_NS 300000000ull

static void
capacity_say(double bps)
{
	if (bps > 0)
		cg_say("    %.2f Gbit/s\n", bps / 1e9);
	else
		cg_say("    not measured (%s)\n",
		       cg_interrupted ? "interrupted" : "a stream failed: see logs/capacity-*.log");
}

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
	if (dataplane && !cg_interrupted) {
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
			capacity_say(bps);
		}
	}
	if (wire && !cg_interrupted) {
		cg_say("  capacity over the wire (a Linux bridge)\n");
		if (cg_wire_up(r) == 0) {
			bps = cg_ring_goodput(r, "wire", c->fid.cap_ns);
			if (bps > 0)
				json_object_set_new(r->capacity, "wire_bps", json_real(bps));
			capacity_say(bps);
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

static const char *const outcome_names[CG_STEP_OUTCOMES] = {
	[CG_STEP_RAN] = "ran",
	[CG_STEP_FAILED] = "failed",
	[CG_STEP_NOT_REACHED] = "not_reached",
	[CG_STEP_SKIPPED] = "skipped",
};

const char *
cg_outcome_name(enum cg_outcome o)
{
	return o >= 0 && o < CG_STEP_OUTCOMES ? outcome_names[o] : "unknown";
}

int
cg_outcome_of(json_t *step)
{
	const char *name = json_string_value(json_object_get(step, "outcome"));

	for (int o = 0; name && o < CG_STEP_OUTCOMES; o++)
		if (strcmp(name, outcome_names[o]) == 0)
			return o;
	return -1;
}

/* The faults as they ran (failed 0), or the steps whose command failed (failed 1), from
 * the marks the hook and the runner wrote ("x " before a failed one's). */
static json_t *
marks_json(const char *marks, int failed)
{
	json_t *mk = json_array();
	FILE *f = fopen(marks, "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		char what[400] = "", *l = line;
		unsigned long long t;
		int it = 0, n = 0;

		line[strcspn(line, "\n")] = '\0';
		if ((strncmp(l, "x ", 2) == 0) != failed)
			continue;
		l += failed ? 2 : 0;
		if (l[0] == 't' && sscanf(l, "t %llu %n", &t, &n) >= 1)
			snprintf(what, sizeof(what), "%s", l + n);
		else if (sscanf(l, "%d %llu %n", &it, &t, &n) >= 2)
			snprintf(what, sizeof(what), "%s", l + n);
		else
			continue;
		json_array_append_new(
			mk, json_pack("{s:i, s:I, s:s, s:s}", "iteration", it, "time_ns",
				      (json_int_t)t, "what", what, "outcome",
				      cg_outcome_name(failed ? CG_STEP_FAILED : CG_STEP_RAN)));
	}
	if (f)
		fclose(f);
	return mk;
}

/* Whether step s has a mark in faults not yet taken by another step (then taken). */
static int
step_ran(const struct cg_step *s, json_t *faults, char *taken)
{
	json_t *m;
	size_t i;

	json_array_foreach(faults, i, m)
	{
		if (taken[i] ||
		    json_integer_value(json_object_get(m, "iteration")) != (json_int_t)s->at_iter ||
		    strcmp(json_string_value(json_object_get(m, "what")) ?: "", s->what) != 0)
			continue;
		taken[i] = 1;
		return 1;
	}
	return 0;
}

/* Why a step runs in no run of regime g (NULL: it runs): a baseline's, or one on a link
 * g's fabric lacks (known before the job). */
static const char *
step_skipped(const struct cg_run *r, const struct cg_regime *g, const struct cg_step *s)
{
	if (cg_baseline(g))
		return "a baseline runs without the timeline's faults";
	if (!cg_step_runs(r, g, s))
		return "not in this regime's fabric";
	return NULL;
}

/* A step that did not run, as a run's faults_missed[] and faults_skipped[] list it. */
static json_t *
step_json(const struct cg_step *s, enum cg_outcome o, const char *why)
{
	char at[64];

	cg_step_at(s, at, sizeof(at));
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "step", s->src, "what", s->what, "at", at,
			 "outcome", cg_outcome_name(o), "why", why);
}

/* A run's steps that do not run in its regime: listed, never silent. */
json_t *
cg_faults_skipped(const struct cg_run *r, const struct cg_regime *g)
{
	json_t *sk = json_array();

	for (unsigned i = 0; i < r->c->nsteps; i++) {
		const struct cg_step *s = &r->c->steps[i];
		const char *why = step_skipped(r, g, s);

		if (why != NULL)
			json_array_append_new(sk, step_json(s, CG_STEP_SKIPPED, why));
	}
	return sk;
}

/*
 * The steps of the timeline that did not run: those whose fabemuctl command failed (an
 * `x` mark: logs/faults.log, or the job's log for the hook; counted in r->steps_failed:
 * the campaign's status says it), and in a run that went to its end (whole), those the
 * job ended before ("not reached"). Never silent: each is a warning, printed and kept in
 * the results. Those skipped in this regime are faults_skipped's.
 */
json_t *
cg_faults_missed(struct cg_run *r, const struct cg_regime *g, const char *tag, json_t *faults,
		 json_t *failed, const struct cg_job_result *jr, int whole)
{
	json_t *missed = json_array();
	char *taken = calloc(json_array_size(faults) + 1, 1);
	char *taken_f = calloc(json_array_size(failed) + 1, 1);
	uint64_t end = jr->eof_ns ? jr->eof_ns : jr->end_ns;
	double job_s = end > jr->start_ns ? (double)(end - jr->start_ns) / 1e9 : 0;

	for (unsigned i = 0; i < r->c->nsteps && taken && taken_f; i++) {
		const struct cg_step *s = &r->c->steps[i];
		char why[160], w[512];
		enum cg_outcome o;
		json_t *j;

		if (step_skipped(r, g, s) || step_ran(s, faults, taken))
			continue;
		o = step_ran(s, failed, taken_f) ? CG_STEP_FAILED : CG_STEP_NOT_REACHED;
		/* a run cut short: only what failed is known not to run */
		if (!whole && o == CG_STEP_NOT_REACHED)
			continue;
		if (o == CG_STEP_FAILED) {
			snprintf(why, sizeof(why), "its fabemuctl command failed (logs/%s)",
				 s->at_iter ? "job-*.log" : "faults.log");
			r->steps_failed++;
		} else {
			snprintf(why, sizeof(why),
				 "not reached: the job ended (%.3f s after it started)", job_s);
		}
		j = step_json(s, o, why); /* its time written once, for the JSON and the warning */
		snprintf(w, sizeof(w), "run %s: %s (%s) at %s did not run: %s", tag, s->src,
			 s->what, json_string_value(json_object_get(j, "at")) ?: "?", why);
		cg_say("  WARNING: %s\n", w);
		json_array_append_new(r->warnings, json_string(w));
		json_array_append_new(missed, j);
	}
	free(taken);
	free(taken_f);
	return missed;
}

/* The network of a run up: fabemu-dp with the regime's profile, or the bridge. */
static int
network_up(struct cg_run *r, const struct cg_regime *g, unsigned rep, const char *tag)
{
	char err[1024];

	if (cg_mtu(r, g->edge.mtu) < 0) {
		if (r->c->tb == CG_TB_VETH) /* existing hosts: cg_mtu() said which one */
			cg_say("  the testbed's MTU could not be set to %u (log: "
			       "%s/logs/testbed.log)\n",
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

/* A host's frames as its veth counts them, both ends. */
static int
same_frames(const struct cg_host_ctr *a, const struct cg_host_ctr *b)
{
	return a->tx_packets == b->tx_packets && a->rx_packets == b->rx_packets &&
	       a->tx_dropped == b->tx_dropped && a->rx_dropped == b->rx_dropped &&
	       a->peer_tx_dropped == b->peer_tx_dropped && a->peer_rx_dropped == b->peer_rx_dropped;
}

/*
 * One quiet moment of the dataplane and the hosts: the hosts' counters read into a[], the
 * dataplane's read (into *counters, when counters is not NULL) and its edge's frames in
 * flight (cg_edge_in_flight()), then, with reset, its counters reset, and the hosts' read
 * into b[]. A frame moving meanwhile would be counted by one side only, and the run would
 * have frames unexplained that are only the reads' timing, so the moment is quiet when
 * a[] and b[] agree and nothing was in flight: tried up to CG_READS times, 100 ms apart
 * (a SCHED_FIFO task leaves others 50 ms a second), and no try begun after CG_READS_NS
 * (hosts read through `podman exec` take a second a try: 20 tries were 22 s a run where
 * none was quiet, which was the edge's counters read in the wrong namespace, fe_kernel.c;
 * the budget bounds slow reads); the last try's if none was. Returns
 * the tries taken, or -1 if the dataplane did not reset.
 */
#define CG_READS    20
#define CG_READS_NS 5000000000ULL
static int
quiet_moment(struct cg_run *r, const struct cg_regime *g, struct cg_host_ctr *a,
	     struct cg_host_ctr *b, int reset, json_t **counters, json_int_t *in_flight)
{
	const uint64_t t0 = cg_now_ns(CLOCK_MONOTONIC);
	int k;

	for (k = 1; k <= CG_READS; k++) {
		int same = 1;

		if (k > 1 && cg_now_ns(CLOCK_MONOTONIC) - t0 >= CG_READS_NS)
			return k - 1;
		if (k > 1)
			usleep(100000);
		*in_flight = 0;
		for (unsigned h = 1; h <= r->c->hosts; h++)
			cg_host_read(r, h, &a[h]);
		if (g->kind == CG_DATAPLANE && (reset || r->dp > 0)) {
			json_t *c = cg_dp_counters(r);

			*in_flight = cg_edge_in_flight(c);
			if (counters != NULL) {
				json_decref(*counters);
				*counters = c;
			} else {
				json_decref(c);
			}
			if (reset && cg_dp_reset(r) != 0)
				return -1;
		}
		for (unsigned h = 1; h <= r->c->hosts; h++) {
			cg_host_read(r, h, &b[h]);
			same &= same_frames(&a[h], &b[h]);
		}
		if (same && *in_flight == 0)
			return k;
	}
	return CG_READS;
}

/*
 * The start of the job's window: the dataplane's counters reset between two reads of the
 * hosts' that agree (the second into before[]), its edge at rest just before. Else a
 * frame a host sent before the window that the dataplane read in it (in a ring, or the
 * ping's last one still crossing a slow fabric), or one the dataplane sent in it that the
 * host had received before it, is counted by one side only (a split PFC run of the suite
 * had one of each on two ports, 2026-12-01). Returns the tries, or -1 if the dataplane
 * did not reset.
 */
static int
open_window(struct cg_run *r, const struct cg_regime *g, struct cg_host_ctr *before)
{
	struct cg_host_ctr first[CG_MAX_HOSTS + 1];
	json_int_t in_flight;

	return quiet_moment(r, g, first, before, 1, NULL, &in_flight);
}

/*
 * The end of the job's window: the hosts' counters (into after[]) and the dataplane's
 * (returned; NULL without one), the dataplane's read between two reads of the hosts' that
 * agree and with its edge at rest. Else a frame that moved meanwhile (a FIN sent again
 * after the settle, a late box's last frames), one a host sent that the dataplane has not
 * read yet (in its ring, or in the backlog of a core whose softirqs a SCHED_FIFO box holds
 * off), or one the dataplane handed its PMD that the kernel has not passed on, is counted
 * by one side only. *reads: the tries taken; *in_flight: the edge's frames in flight at
 * the one kept.
 */
static json_t *
read_window(struct cg_run *r, const struct cg_regime *g, struct cg_host_ctr *after, int *reads,
	    json_int_t *in_flight)
{
	struct cg_host_ctr again[CG_MAX_HOSTS + 1];
	json_t *counters = NULL;

	*reads = quiet_moment(r, g, after, again, 0, &counters, in_flight);
	return counters;
}

/*
 * A run cut short (Ctrl-C, the dataplane died, the job failed): "partial" says how much
 * of it ran, "47 of 200 iterations (interrupted)", on its row and in its verdict.
 */
static void
partial(const struct cg_run *r, const struct cg_job_result *jr, int status, json_t *run)
{
	const struct cg_campaign *c = r->c;
	unsigned want = (r->iters_override ? r->iters_override : c->iters) * c->nsizes;
	size_t got = json_array_size(jr->iters);
	const char *why = status == CG_INTERRUPTED ? "interrupted"
			  : status == CG_DP_DIED   ? "the dataplane died"
			  : status != CG_OK	   ? "the job failed"
						   : NULL;
	char p[160], v[2400];

	if (c->allreduce && got < want)
		snprintf(p, sizeof(p), "%zu of %u iterations (%s)", got, want,
			 why ? why : "the job ended early");
	else if (!c->allreduce && why && jr->status == -1)
		snprintf(p, sizeof(p), "the job was stopped (%s)", why);
	else
		return;
	json_object_set_new(run, "partial", json_string(p));
	cg_verdict_partial(p, json_string_value(json_object_get(run, "verdict")), v, sizeof(v));
	json_object_set_new(run, "verdict", json_string(v));
}

/* After the job: until no connection of the hosts is still closing (its FINs and their
 * last ACKs through the fabric), checked every 10 ms, up to CG_SETTLE_NS. */
static void
settle(const struct cg_run *r)
{
	uint64_t t0 = cg_now_ns(CLOCK_MONOTONIC);

	while (!cg_interrupted && cg_hosts_unsettled(r) &&
	       cg_now_ns(CLOCK_MONOTONIC) - t0 < CG_SETTLE_NS)
		usleep(10000);
}

/* Where a run's time went: the moments its phases ended (CLOCK_MONOTONIC, ns). */
struct run_times {
	uint64_t start, up, ping, opened, job, settled, read, down;
};

static double
secs(uint64_t from, uint64_t to)
{
	return to > from ? (double)(to - from) / 1e9 : 0;
}

/* The progress says where a run's time went, before the job and after it. */
static void
say_times(const struct run_times *t, const struct cg_job_result *jr, int opened, int reads)
{
	double job = secs(t->opened, t->job) - (double)(jr->beside_ns + jr->stop_ns) / 1e9;

	cg_say("    run took %.2f s: set-up %.2f (network %.2f, ping %.2f, window %.2f in %d "
	       "read(s), beside %.2f), job %.2f, after it %.2f (stopping %.2f, settle %.2f, "
	       "window %.2f in %d read(s), network down %.2f)\n",
	       secs(t->start, t->down), secs(t->start, t->opened) + (double)jr->beside_ns / 1e9,
	       secs(t->start, t->up), secs(t->up, t->ping), secs(t->ping, t->opened), opened,
	       (double)jr->beside_ns / 1e9, job > 0 ? job : 0,
	       (double)jr->stop_ns / 1e9 + secs(t->job, t->down), (double)jr->stop_ns / 1e9,
	       secs(t->job, t->settled), secs(t->settled, t->read), reads, secs(t->read, t->down));
}

static json_t *
one_run(struct cg_run *r, const struct cg_regime *g, unsigned rep, int *status)
{
	struct run_times t = {.start = cg_now_ns(CLOCK_MONOTONIC)};
	struct cg_host_ctr before[CG_MAX_HOSTS + 1], after[CG_MAX_HOSTS + 1];
	struct cg_job_result jr = {0};
	char marks[PATH_MAX], tag[96];
	json_t *run, *counters = NULL, *tcp, *hosts, *failed, *events;
	struct cg_sampler *sampler;
	uint64_t reset_at;
	json_int_t in_flight;
	double rtt;
	int dprc = 0, reads, opened;

	snprintf(tag, sizeof(tag), "%s-%u", g->name, rep + 1);
	if (g->kind == CG_WIRE)
		cg_say("  regime %s (the hosts over a Linux bridge), repetition %u/%u\n", g->name,
		       rep + 1, r->c->reps);
	else
		cg_say("  regime %s (profile %s, scale %u), repetition %u/%u\n", g->name,
		       g->profile_name, g->scale, rep + 1, r->c->reps);
	if (network_up(r, g, rep, tag) < 0) {
		*status = cg_interrupted ? CG_INTERRUPTED : CG_SETUP;
		return NULL;
	}
	t.up = cg_now_ns(CLOCK_MONOTONIC);
	rtt = cg_ping_rtt_us(r);
	t.ping = cg_now_ns(CLOCK_MONOTONIC);
	/* the job's window: both ends counted from here (the hosts are idle) */
	if ((opened = open_window(r, g, before)) < 0) {
		cg_say("  fabemu-dp did not reset its counters: the run's would not be the job's "
		       "(log: %s/logs/dp-%s.log)\n",
		       r->out, tag);
		cg_dp_stop(r, &dprc);
		*status = CG_SETUP;
		return NULL;
	}
	reset_at = t.opened = cg_now_ns(CLOCK_MONOTONIC);
	snprintf(marks, sizeof(marks), "%s/logs/marks-%s.txt", r->out, tag);
	unlink(marks);
	sampler = cg_sampler_start(r, g); /* beside the job: what a stall saw (cg_events.c) */
	cg_run_job(r, g, rep, marks, &jr);
	events = cg_sampler_stop(sampler);
	t.job = cg_now_ns(CLOCK_MONOTONIC);
	if (!cg_interrupted && !jr.dp_died)
		settle(r);
	t.settled = cg_now_ns(CLOCK_MONOTONIC);
	tcp = json_array();
	hosts = json_array();
	counters = read_window(r, g, after, &reads, &in_flight);
	t.read = cg_now_ns(CLOCK_MONOTONIC);
	if (counters) /* the window the counters cover: from their reset to their read */
		json_object_set_new(
			counters, "window_ns",
			json_integer((json_int_t)(cg_now_ns(CLOCK_MONOTONIC) - reset_at)));
	for (unsigned h = 1; h <= r->c->hosts; h++) {
		json_array_append_new(tcp, tcp_json(h, &before[h], &after[h]));
		json_array_append_new(hosts, host_json(h, &before[h], &after[h]));
	}
	if (g->kind == CG_DATAPLANE) {
		cg_dp_stop(r, &dprc);
	} else {
		cg_wire_down(r);
	}
	t.down = cg_now_ns(CLOCK_MONOTONIC);
	say_times(&t, &jr, opened, reads);
	run = json_pack("{s:s, s:s, s:i, s:s, s:i, s:i, s:o, s:I, s:I, s:i, s:i, s:f, s:o, s:o, "
			"s:o, s:o}",
			"regime", g->name, "kind", g->kind == CG_WIRE ? "wire" : "dataplane",
			"repetition", rep + 1, "pmd", g->edge.pmd, "ring", (int)g->edge.ring, "mtu",
			(int)g->edge.mtu, "iterations", jr.iters, "start_ns",
			(json_int_t)jr.start_ns, "end_ns", (json_int_t)jr.end_ns, "job_status",
			jr.status, "dataplane_status", dprc, "ping_rtt_us", rtt, "tcp", tcp,
			"hosts", hosts, "faults", marks_json(marks, 0), "counters",
			counters ? counters : json_null());
	/* how the window opened and closed: the reads each took, what the edge still held at
	 * its close (0: quiet) */
	json_object_set_new(run, "window_open_reads", json_integer(opened));
	json_object_set_new(run, "window_reads", json_integer(reads));
	json_object_set_new(run, "edge_in_flight",
			    counters ? json_integer(in_flight) : json_null());
	json_object_set_new(run, "events", events);
	cg_figures(r->c, g, run);
	cg_verdict(r->c, g, r->capacity, run);
	run_status(r, g, rep, &jr, dprc, status);
	partial(r, &jr, *status, run);
	failed = marks_json(marks, 1);
	json_object_set_new(run, "faults_missed",
			    cg_faults_missed(r, g, tag, json_object_get(run, "faults"), failed, &jr,
					     *status == CG_OK));
	json_decref(failed);
	json_object_set_new(run, "faults_skipped", cg_faults_skipped(r, g));
	return run;
}

static json_t *inputs(const struct cg_run *r);

/* ---- Calibration (docs/campaigns.md, "Calibration"; the rule: cg_calib.c) ---- */

/* The calibration's job: at most this many iterations a size (a command job runs whole). */
#define CG_CALIB_ITERS 10
/* The tasks read before and after it, to name those that took the lcore's core */
#define CG_CALIB_TASKS 8192

/* A file of /proc, whole (malloc'd; "" if unreadable). */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);
	size_t n = 0;

	if (buf && f)
		n = fread(buf, 1, 65535, f);
	if (buf)
		buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* The box's noise: the job through the ideal dataplane, on the campaign's edge, as the
 * ideal baseline runs (one_run()); what grew on the lcore's core meanwhile in takes. */
static json_t *
calib_run(struct cg_run *r, struct cg_noise *n, int *status)
{
	const struct cg_campaign *c = r->c;
	struct cg_regime *ideal = calloc(1, sizeof(*ideal));
	unsigned iters = r->iters_override ? r->iters_override : c->iters, cpu = 0;
	char *irq0 = slurp("/proc/interrupts"), *soft0 = slurp("/proc/softirqs"), *irq1, *soft1;
	struct cg_task *tasks[2] = {calloc(CG_CALIB_TASKS, sizeof(struct cg_task)),
				    calloc(CG_CALIB_TASKS, sizeof(struct cg_task))};
	size_t na = 0, nb = 0;
	char err[1024], who[400];
	json_t *run = NULL, *cpus;

	memset(n, 0, sizeof(*n));
	n->late_p99_ns = n->wait_p99_ns = NAN;
	if (ideal == NULL || irq0 == NULL || soft0 == NULL)
		goto out;
	*ideal = (struct cg_regime){
		.kind = CG_DATAPLANE, .scale = 1, .edge = c->edge, .baseline = 2, .ideal = 1};
	snprintf(ideal->name, sizeof(ideal->name), "calibration");
	snprintf(ideal->profile_name, sizeof(ideal->profile_name), "ideal");
	if (fe_profile_find("ideal", ideal->profile, sizeof(ideal->profile), err, sizeof(err)) <
		    0 ||
	    cg_regime_rescale(c, ideal, 1, err, sizeof(err)) < 0) {
		cg_say("  calibration: %s\n", err);
		*status = CG_SETUP;
		goto out;
	}
	r->iters_override = c->allreduce && iters > CG_CALIB_ITERS ? CG_CALIB_ITERS : iters;
	cg_say("  calibration: the box's timing noise, the job (%s) through the ideal "
	       "dataplane\n",
	       c->allreduce ? "its first iterations" : "whole");
	na = tasks[0] ? cg_tasks_read(tasks[0], CG_CALIB_TASKS) : 0;
	run = one_run(r, ideal, 0, status);
	nb = tasks[1] ? cg_tasks_read(tasks[1], CG_CALIB_TASKS) : 0;
	r->iters_override = iters == c->iters ? 0 : iters;
	irq1 = slurp("/proc/interrupts");
	soft1 = slurp("/proc/softirqs");
	if (run != NULL) {
		cg_noise_of(run, n);
		cpus = json_object_get(json_object_get(run, "lcores"), "cpus");
		if (json_is_array(cpus) && json_array_size(cpus) > 0)
			cpu = (unsigned)json_integer_value(json_array_get(cpus, 0));
		if (irq1 && soft1)
			cg_core_takers(irq0, irq1, soft0, soft1, cpu, n->window_s, n->takes,
				       sizeof(n->takes));
		cg_tasks_on(tasks[0], na, tasks[1], nb, cpu, who, sizeof(who));
		if (who[0])
			snprintf(n->takes + strlen(n->takes), sizeof(n->takes) - strlen(n->takes),
				 "%s%s", n->takes[0] ? "; " : "", who);
	}
	free(irq1);
	free(soft1);
out:
	free(tasks[0]);
	free(tasks[1]);
	free(irq0);
	free(soft0);
	free(ideal);
	return run;
}

/* The most regime g compiles at, from lo to hi (its profile's delays at most 10 s, its
 * rates at least 1 kbit: fe_profile_expand()), on a copy. */
static uint32_t
calib_most(const struct cg_campaign *c, const struct cg_regime *g, uint32_t lo, uint32_t hi)
{
	struct cg_regime *t = malloc(sizeof(*t));
	char err[1024];

	while (t && lo < hi) {
		uint32_t mid = hi - (hi - lo) / 2;

		*t = *g;
		if (cg_regime_rescale(c, t, mid, err, sizeof(err)) == 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	free(t);
	return lo;
}

/* What calibration needs of regime g: its hop and load as functions of its scale, from
 * the regime compiled at two scales (its links: entries are not dilated), its range. */
static int
calib_want(const struct cg_run *r, const struct cg_regime *g, struct cg_calib_want *w)
{
	const struct cg_campaign *c = r->c;
	struct cg_regime *t = malloc(sizeof(*t));
	uint32_t s1 = g->scale_min ? g->scale_min : 1, s2;
	double h1, h2, o1, o2, cap = json_number_value(json_object_get(r->capacity, "ideal_bps"));
	char err[1024];
	int rc = -1;

	memset(w, 0, sizeof(*w));
	w->floor = s1;
	w->max = calib_most(c, g, s1, g->scale_max ? g->scale_max : FE_PROFILE_SCALE_MAX);
	s2 = w->max > s1 ? (w->max < 2 * s1 ? w->max : 2 * s1) : s1;
	w->late = c->fid.late;
	w->load = c->fid.load;
	/* the capacity applies as the verdict applies it: measured on the regime's edge */
	if (strcmp(g->edge.pmd, c->edge.pmd) == 0 && g->edge.mtu == c->edge.mtu)
		w->capacity_bps = cap;
	if (t == NULL)
		goto out;
	*t = *g;
	if (cg_regime_rescale(c, t, s1, err, sizeof(err)) < 0)
		goto out;
	h1 = (double)t->hop_ns;
	o1 = (double)t->offered_bps;
	if (cg_regime_rescale(c, t, s2, err, sizeof(err)) < 0)
		goto out;
	h2 = (double)t->hop_ns;
	o2 = (double)t->offered_bps;
	w->hop_ns = s2 > s1 ? (h2 - h1) / (s2 - s1) : h1 / s1;
	w->hop_fixed_ns = s2 > s1 ? h1 - w->hop_ns * s1 : 0;
	if (o1 > 0 && o2 > 0) { /* offered(s) = a / s + b */
		w->offered_bps = s2 > s1 ? (o1 - o2) / (1.0 / s1 - 1.0 / s2) : o1 * s1;
		w->offered_fixed_bps = s2 > s1 ? o1 - w->offered_bps / s1 : 0;
	}
	rc = 0;
out:
	if (rc < 0)
		cg_say("  calibration: %s\n", err);
	free(t);
	return rc;
}

static const char *
calib_result_name(enum cg_calib_result x)
{
	return x == CG_CAL_CHOSEN ? "chosen" : x == CG_CAL_UNMEASURED ? "unmeasured" : "none";
}

static json_t *
noise_json(const struct cg_noise *n)
{
	char cause[1024];

	return json_pack(
		"{s:o, s:o, s:o, s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:s}", "late_p99_ns",
		isnan(n->late_p99_ns) ? json_null() : json_real(n->late_p99_ns), "late_max_ns",
		isnan(n->late_max_ns) ? json_null() : json_real(n->late_max_ns), "wait_p99_ns",
		isnan(n->wait_p99_ns) ? json_null() : json_real(n->wait_p99_ns), "wait_max_ns",
		isnan(n->wait_max_ns) ? json_null() : json_real(n->wait_max_ns), "window_s",
		n->window_s, "preempted", n->preempted, "runq_wait_ns", n->runq_wait_ns,
		"cpu_irq_ns", n->irq_ns, "cpu_softirq_ns", n->softirq_ns, "cpu_steal_ns",
		n->steal_ns, "takes", n->takes, "cause",
		cg_noise_cause(n, 0, cause, sizeof(cause)));
}

/* One regime's choice: said, kept in out[], applied (CG_CAL_NONE: refused after all). */
static int
calib_regime(struct cg_run *r, struct cg_campaign *c, struct cg_regime *g, const struct cg_noise *n,
	     json_t *out)
{
	struct cg_calib_want w;
	struct cg_calib_choice ch;
	char err[1024];

	if (calib_want(r, g, &w) < 0)
		return -1;
	cg_calib_choose(n, &w, &ch);
	/* the regime at its scale: its hop as compiled (the rule's is affine: rates truncated
	 * at a scale make it a few ns longer, never shorter) */
	if (ch.result != CG_CAL_NONE && cg_regime_rescale(c, g, ch.scale, err, sizeof(err)) < 0) {
		cg_say("  calibration: %s\n", err);
		return -1;
	}
	if (ch.result != CG_CAL_NONE)
		ch.hop_ns = (double)g->hop_ns;
	if (ch.result == CG_CAL_NONE)
		cg_say("  calibration: no scale from %u to %u is faithful for regime %s: %s\n",
		       w.floor, w.max, g->name, ch.why);
	else
		cg_say("  calibration: chose scale %u for regime %s because %s\n", ch.scale,
		       g->name, ch.why);
	json_array_append_new(
		out, json_pack("{s:s, s:s, s:i, s:i, s:i, s:f, s:f, s:o, s:s}", "regime", g->name,
			       "result", calib_result_name(ch.result), "scale", (int)ch.scale,
			       "floor", (int)w.floor, "max", (int)w.max, "hop_ns", ch.hop_ns,
			       "hop_per_scale_ns", w.hop_ns, "need_hop_ns",
			       isnan(ch.need_hop_ns) ? json_null() : json_real(ch.need_hop_ns),
			       "why", ch.why));
	return ch.result == CG_CAL_NONE;
}

/*
 * Before the regimes: with any at scale: auto, the box's noise under the campaign's job
 * through the ideal dataplane, then each such regime's scale (an alike regime at its
 * twin's). results.calibration keeps the noise and every choice. Returns CG_OK, or
 * CG_UNFAITHFUL when a regime has no faithful scale in range (nothing else runs), or
 * the run's failure.
 */
static int
calibrate(struct cg_run *r, struct cg_campaign *c)
{
	json_t *run, *choices = json_array();
	struct cg_noise n;
	int status = CG_OK, none = 0, any = 0;
	char err[1024];

	for (unsigned g = 0; g < c->nreg; g++)
		any |= c->reg[g].scale_auto && c->reg[g].kind == CG_DATAPLANE;
	if (!any) {
		json_decref(choices);
		return CG_OK;
	}
	run = calib_run(r, &n, &status);
	for (unsigned g = 0; g < c->nreg && status == CG_OK && !cg_interrupted; g++) {
		struct cg_regime *x = &c->reg[g];
		int rc;

		if (!x->scale_auto || x->alike || x->kind != CG_DATAPLANE)
			continue;
		if ((rc = calib_regime(r, c, x, &n, choices)) < 0)
			status = CG_SETUP;
		none |= rc > 0;
	}
	for (unsigned g = 0; g < c->nreg && status == CG_OK; g++) {
		struct cg_regime *x = &c->reg[g];

		if (!x->alike || !x->scale_auto || x->scale == c->reg[x->alike_of].scale)
			continue;
		if (cg_regime_rescale(c, x, c->reg[x->alike_of].scale, err, sizeof(err)) < 0) {
			cg_say("  calibration: %s\n", err);
			status = CG_SETUP;
		} else {
			cg_say("  calibration: regime %s runs at its twin %s's scale, %u\n",
			       x->name, c->reg[x->alike_of].name, x->scale);
		}
	}
	json_object_set_new(r->results, "calibration",
			    json_pack("{s:o, s:f, s:o, s:o}", "noise", noise_json(&n), "margin",
				      CG_CALIB_MARGIN, "regimes", choices, "run",
				      run ? run : json_null()));
	/* the regimes as they will run: their scale, hop and links */
	json_object_set_new(r->results, "inputs", inputs(r));
	if (status == CG_OK && cg_interrupted)
		status = CG_INTERRUPTED;
	if (status == CG_OK && none) {
		cg_say("  calibration: refused before the regimes ran: on this box, with this "
		       "load, a regime above would be distorted at every scale in its range "
		       "(raise its scale-max, or move what takes the lcore's core: "
		       "docs/campaigns.md, \"Calibration\")\n");
		status = CG_UNFAITHFUL;
	}
	return status;
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
		for (unsigned i = 0; i < c->hosts; i++) /* each port's up link, then its down */
			for (int down_link = 0; down_link < 2; down_link++) {
				char name[16];

				snprintf(name, sizeof(name), "%u.%s", i, down_link ? "down" : "up");
				json_array_append_new(
					links,
					json_pack("{s:s, s:s}", "link", name, "compiled",
						  fe_profile_fmt_link(down_link ? &down[i] : &up[i],
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
		if (x->alike) /* like for like: its as-specified regime, over the alike-links */
			json_object_set_new(json_array_get(regs, json_array_size(regs) - 1),
					    "alike_of", json_string(c->reg[x->alike_of].name));
		if (x->kind != CG_WIRE && x->topology[0]) { /* several switches */
			json_t *o = json_array_get(regs, json_array_size(regs) - 1);

			json_object_set_new(o, "topology", json_string(x->topology_name));
			json_object_set_new(o, "topology_file", json_string(x->topology));
			json_object_set_new(o, "path", json_string(fe_path_name(x->path)));
		}
	}
	return json_pack("{s:s, s:s, s:s, s:I, s:i, s:s, s:{s:f, s:f, s:b, s:I}, s:o, s:{s:s, "
			 "s:s, s:s}}",
			 "file", c->source, "text", c->text, "name", c->name, "seed",
			 (json_int_t)c->seed, "hosts", c->hosts, "testbed",
			 c->tb == CG_TB_HOSTS ? "hosts" : "veth", "fidelity", "lateness",
			 c->fid.late, "load", c->fid.load, "capacity", c->fid.capacity,
			 "capacity_ns", (json_int_t)c->fid.cap_ns, "regimes", regs, "versions",
			 "fabemu", FE_VERSION, "kernel", u.release, "mpi", v);
}

/* Repetitions interleaved, A B C A B C, not A A B B C C: a drift of the box over the
 * campaign (another load, the caches, the clock) spreads over every regime alike instead
 * of landing on the ones that ran last. */
void
cg_run_order(const struct cg_campaign *c, unsigned k, unsigned *g, unsigned *rep)
{
	*g = k % c->nreg;
	*rep = k / c->nreg;
}

static const char *
status_name(int status)
{
	static const char *const names[] = {
		[CG_OK] = "complete",
		[CG_SETUP] = "setup failed",
		[CG_DP_DIED] = "dataplane died",
		[CG_JOB_FAILED] = "job failed",
		[CG_UNWRITTEN] = "results incomplete",
		[CG_FAULTS_FAILED] = "complete",
		[CG_UNFAITHFUL] = "refused: no faithful scale (calibration)",
	};

	if (status == CG_INTERRUPTED)
		return "interrupted (partial results)";
	return status >= 0 && status <= CG_UNFAITHFUL && names[status] ? names[status] : "failed";
}

const char *
cg_status_text(int status, unsigned steps_failed, size_t unwritten, char *buf, size_t len)
{
	size_t n = 0;

	if (status == CG_OK && unwritten)
		status = CG_UNWRITTEN;
	cg_addf(buf, len, &n, "%s", status_name(status));
	if (steps_failed)
		cg_addf(buf, len, &n, ", %u fault step(s) failed", steps_failed);
	if (unwritten)
		cg_addf(buf, len, &n, "; %zu file(s) of the results not written", unwritten);
	return buf;
}

/* The status as the results say it: with the fault steps that failed and the files that
 * could not be written, if any. */
static const char *
status_text(const struct cg_run *r, int status, char *buf, size_t len)
{
	return cg_status_text(status, r->steps_failed, json_array_size(r->unwritten), buf, len);
}

/* Standard output may be a file on a full disk too: said once, and listed as unwritten. */
static void
stdout_checked(struct cg_run *r)
{
	static int said;
	int err;

	if (said || (fflush(stdout) == 0 && !ferror(stdout)))
		return;
	said = 1;
	/* the error flag keeps no reason: one more byte asks for it again */
	clearerr(stdout);
	errno = 0;
	err = fputc('\n', stdout) == EOF || fflush(stdout) != 0 ? errno : 0;
	fprintf(stderr,
		"fabemuctl campaign run: could not write the summary to standard output: %s\n",
		strerror(err ? err : EIO));
	json_array_append_new(r->unwritten,
			      json_string("standard output: the progress and the summary"));
}

/* The terminal's summary, checked: standard output may be a file on a full disk too. */
static void
print_summary(struct cg_run *r, const char *st, const struct cg_row *rows, size_t nrows)
{
	char p[PATH_MAX];
	size_t i;
	json_t *w;

	cg_say("\ncampaign %s: %s\n", r->c->name, st);
	/* what the calibration chose, beside the verdicts it was for */
	json_array_foreach(json_object_get(json_object_get(r->results, "calibration"), "regimes"),
			   i, w)
	{
		int none =
			strcmp(json_string_value(json_object_get(w, "result")) ?: "", "none") == 0;

		cg_say("calibration: regime %s: %s %lld: %s\n",
		       json_string_value(json_object_get(w, "regime")),
		       none ? "no faithful scale up to" : "scale",
		       json_integer_value(json_object_get(w, none ? "max" : "scale")),
		       json_string_value(json_object_get(w, "why")));
	}
	cg_print_summary(stdout, r->c, r->capacity, rows, nrows);
	json_array_foreach(r->warnings, i, w) cg_say("WARNING: %s\n", json_string_value(w));
	json_array_foreach(r->unwritten, i, w) cg_say("NOT WRITTEN: %s\n", json_string_value(w));
	snprintf(p, sizeof(p), "%s/report.html", r->out);
	if (access(p, F_OK) == 0)
		cg_say("results: %s\n", p);
	stdout_checked(r);
}

/* What the results say of the campaign as a whole (campaign.json's notes[]). */
static json_t *
notes(const struct cg_campaign *c)
{
	json_t *n = json_array();
	char buf[512];

	if (cg_baseline_note(c, buf, sizeof(buf)))
		json_array_append_new(n, json_string(buf));
	return n;
}

/*
 * The results: the CSVs and the plots, then the report and campaign.json, which say
 * which files could not be written; a file is whole or absent (cg_out_open). Any file
 * not written makes a complete campaign's status "results incomplete" (exit 6); else a
 * fault step whose command failed makes it "complete, N fault step(s) failed" (exit 7).
 */
static int
finish(struct cg_run *r, json_t *runs, int status)
{
	struct cg_row *rows = calloc(CG_MAX_REGIMES * CG_MAX_SIZES, sizeof(*rows));
	size_t nrows;
	char p[PATH_MAX], buf[256];
	const char *st;
	FILE *f;

	if (rows == NULL)
		return status;
	nrows = cg_summarize(r->c, runs, rows);
	stdout_checked(r); /* the progress lines: already lost? */
	cg_write_csvs(r, runs, rows, nrows);
	if (cg_plots(r, runs, rows, nrows) < 0)
		cg_say("  (gnuplot failed: see %s/logs/gnuplot.log)\n", r->out);
	cg_html(r, runs, rows, nrows, status_text(r, status, buf, sizeof(buf)));
	st = status_text(r, status, buf, sizeof(buf));
	json_object_set_new(r->results, "status", json_string(st));
	json_object_set_new(r->results, "notes", notes(r->c));
	json_object_set_new(r->results, "capacity", json_incref(r->capacity));
	json_object_set_new(r->results, "runs", json_incref(runs));
	json_object_set_new(r->results, "summary", cg_summary_json(r->c, rows, nrows));
	json_object_set_new(r->results, "warnings", json_incref(r->warnings));
	json_object_set_new(r->results, "unwritten", json_incref(r->unwritten));
	snprintf(p, sizeof(p), "%s/campaign.json", r->out);
	if ((f = cg_out_open(r, p)) != NULL) {
		if (json_dumpf(r->results, f, JSON_INDENT(1)) != 0)
			cg_out_abandon(r, f, p, strerror(errno ? errno : EIO));
		else
			cg_out_close(r, f, p);
	}
	print_summary(r, status_text(r, status, buf, sizeof(buf)), rows, nrows);
	free(rows);
	if (status == CG_OK && json_array_size(r->unwritten))
		return CG_UNWRITTEN;
	return status == CG_OK && r->steps_failed ? CG_FAULTS_FAILED : status;
}

/*
 * A results directory that cannot be written is refused before anything starts, not
 * found out at the end (a file written, flushed to the disk and removed); one with
 * little room left is said.
 */
static int
out_writable(const char *dir)
{
	char p[PATH_MAX + 32];
	struct statvfs vfs;
	int fd, err = 0;

	snprintf(p, sizeof(p), "%s/.fabemu-write-test", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "fabemu\n", 7) != 7 || fsync(fd) != 0)
		err = errno ? errno : EIO;
	if (fd >= 0 && close(fd) != 0 && !err)
		err = errno;
	unlink(p);
	if (err) {
		fprintf(stderr, "fabemuctl campaign run: cannot write the results in %s: %s\n", dir,
			strerror(err));
		return -1;
	}
	if (statvfs(dir, &vfs) == 0 && (double)vfs.f_bavail * vfs.f_frsize < 16.0 * (1 << 20))
		cg_say("  (only %.0f KiB free in %s: the results may not fit)\n",
		       (double)vfs.f_bavail * vfs.f_frsize / 1024, dir);
	return 0;
}

/*
 * --iterations N: a fault at an iteration the job no longer has would never run: refused,
 * naming the step, before anything starts.
 */
static int
check_iterations(const struct cg_campaign *c, unsigned iters)
{
	unsigned total = iters * c->nsizes;

	for (unsigned i = 0; i < c->nsteps && iters && c->allreduce; i++) {
		const struct cg_step *s = &c->steps[i];

		if (s->at_iter <= 0 || (unsigned)s->at_iter <= total)
			continue;
		fprintf(stderr,
			"fabemuctl campaign run: %s: %s: iteration %d (%s) is beyond the job's %u "
			"iteration(s) with --iterations %u%s: it would never run\n",
			c->source, s->src, s->at_iter, s->what, total, iters,
			c->nsizes > 1 ? " (over all sizes)" : "");
		return -1;
	}
	return 0;
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
	snprintf(r->root, sizeof(r->root), "%s", cg_root());
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
	if (out_writable(r->out) < 0)
		return -1;
	/* existing hosts: nothing to own; the name only stands for the runner in its record */
	r->own_testbed = testbed == NULL && r->c->tb == CG_TB_VETH;
	snprintf(r->testbed, sizeof(r->testbed), "%s", testbed ? testbed : "fc");
	if (testbed == NULL) { /* "f" and the PID in 5 base-36 digits: one a live runner, in
				* the 6 characters a testbed's name has (testbeds/veth.sh) */
		static const char digit[] = "0123456789abcdefghijklmnopqrstuvwxyz";
		unsigned pid = (unsigned)getpid();

		_Static_assert(sizeof(r->testbed) >= 7, "a testbed name of 6");
		r->testbed[0] = 'f';
		for (int k = 5; k >= 1; k--, pid /= 36)
			r->testbed[k] = digit[pid % 36];
		r->testbed[6] = '\0';
	}
	snprintf(r->prefix, sizeof(r->prefix), "fe-campaign-%u", (unsigned)getpid());
	snprintf(r->sock, sizeof(r->sock), CG_STATE_DIR "/campaign-%u.sock", (unsigned)getpid());
	snprintf(r->record, sizeof(r->record), CG_STATE_DIR "/campaign-%u.run", (unsigned)getpid());
	return 0;
}

int
cg_campaign_run(const char *file, const char *outdir, const char *testbed, unsigned iters)
{
	struct cg_campaign *c = calloc(1, sizeof(*c));
	struct cg_run *r = calloc(1, sizeof(*r));
	/* SA_RESTART: an interrupted read of a command's output is not a short one; the job's
	 * loop polls and sees the flag */
	struct sigaction sa = {.sa_handler = cg_on_signal, .sa_flags = SA_RESTART};
	char err[2048];
	json_t *runs = json_array();
	int status = CG_OK;

	if (c == NULL || r == NULL)
		return CG_SETUP;
	if (cg_load(file, c, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return CG_BAD_FILE;
	}
	if (check_iterations(c, iters) < 0)
		return CG_USAGE;
	if (testbed && c->tb == CG_TB_HOSTS) {
		fprintf(stderr,
			"fabemuctl campaign run: --testbed %s: %s's hosts are its testbed's (kind "
			"hosts), not a veth testbed's\n",
			testbed, c->source);
		return CG_USAGE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "fabemuctl campaign run: must run as root (it builds hosts)\n");
		return CG_USAGE;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	r->c = c;
	r->iters_override = iters;
	r->warnings = json_array();
	r->unwritten = json_array();
	if (run_setup(r, outdir, testbed) < 0)
		return CG_SETUP;
	/* what runners killed outright left (their watchdog killed too) goes first; then
	 * our record and our watchdog, before anything is made */
	cg_clean_dead(0);
	if (cg_watchdog_start(r) < 0 || cg_record_write(r) < 0) {
		fprintf(stderr, "fabemuctl campaign run: cannot write %s: %s\n", r->record,
			strerror(errno));
		cg_watchdog_stop(r);
		return CG_SETUP;
	}
	r->results = json_pack("{s:o}", "inputs", inputs(r));
	cg_say("campaign %s: %u regime(s) x %u repetition(s)%s, %u hosts; results in %s\n", c->name,
	       c->nreg, c->reps, c->reps > 1 ? " (interleaved)" : "", c->hosts, r->out);
	if (!cg_interrupted && cg_testbed_up(r) < 0 && !cg_interrupted) {
		if (c->tb == CG_TB_VETH)
			cg_say("  the testbed did not come up (log: %s/logs/testbed.log)\n",
			       r->out);
		else
			cg_say("  the hosts are not as the file says (above)\n");
		status = CG_SETUP;
	}
	if (status == CG_OK && !cg_interrupted)
		capacity(r);
	else
		r->capacity = json_object();
	if (status == CG_OK && !cg_interrupted)
		status = calibrate(r, c);
	for (unsigned k = 0; k < c->nreg * c->reps && status == CG_OK && !cg_interrupted; k++) {
		unsigned g, rep;
		json_t *run;

		cg_run_order(c, k, &g, &rep);
		if ((run = one_run(r, &c->reg[g], rep, &status)) != NULL)
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
	/* everything the record lists is gone: the watchdog has nothing left to do */
	unlink(r->record);
	cg_watchdog_stop(r);
	status = finish(r, runs, status);
	json_decref(runs);
	json_decref(r->results);
	json_decref(r->capacity);
	json_decref(r->warnings);
	json_decref(r->unwritten);
	free(c->text);
	free(c);
	free(r);
	return status;
}
