/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "fe_campaign.h"
#include "fe_client.h"
#include "fe_linkspec.h"
#include "fe_profile.h"
#include "fe_units.h"
#include "fe_yaml.h"

#ifndef FE_SOURCE_DIR
#define FE_SOURCE_DIR "."
#endif

#define CG_MAX_BYTES   (64U << 10)
#define CG_MAX_REGIMES 16
#define CG_MAX_ACTIONS 64
#define CG_MAX_SIZES   8
#define CG_MAX_BESIDE  16
#define CG_MAX_ITERS   100000
#define CG_RTO_MIN_NS  200000000ULL /* Linux TCP_RTO_MIN */
#define CG_STEPS_MAX   (2 * CG_MAX_ACTIONS)
#define CG_STALL_MS    150.0 /* an iteration this much above the median: an RTO-sized stall */

enum cg_exit {
	CG_OK = 0,
	CG_BAD_FILE = 1,
	CG_USAGE = 2,
	CG_SETUP = 3,	   /* testbed or dataplane could not start */
	CG_DP_DIED = 4,	   /* the dataplane died during a run */
	CG_JOB_FAILED = 5, /* the job failed (a wrong all-reduce result, a crash) */
	CG_INTERRUPTED = 130,
};

/* ---- The file, as libcyaml reads it ---- */

struct y_at {
	char *iteration, *time;
};

struct y_action {
	char *action, *link, *duration, *profile, *scale, *loss, *delay, *match, *count, *first,
		*spec;
	struct y_at *at, *until;
};

struct y_regime {
	char *name, *profile, *scale;
	char **links;
	unsigned links_count;
};

struct y_job {
	char *kind, *iterations, *warmup, *command;
	char **sizes;
	unsigned sizes_count;
};

struct y_beside {
	char *host, *command;
};

struct y_campaign {
	char *name, *description, *hosts, *pmd, *repetitions, *seed, *host_ecn;
	struct y_job *job;
	struct y_regime *regimes;
	unsigned regimes_count;
	struct y_action *timeline;
	unsigned timeline_count;
	struct y_beside *beside;
	unsigned beside_count;
};

#define STR(key, type, member)                                                                     \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_OPTIONAL, type, member, 0, 1023)

static const cyaml_schema_value_t str_entry = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, 1023),
};

static const cyaml_schema_field_t at_fields[] = {
	STR("iteration", struct y_at, iteration),
	STR("time", struct y_at, time),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t action_fields[] = {
	STR("action", struct y_action, action),
	STR("link", struct y_action, link),
	STR("duration", struct y_action, duration),
	STR("profile", struct y_action, profile),
	STR("scale", struct y_action, scale),
	STR("loss", struct y_action, loss),
	STR("delay", struct y_action, delay),
	STR("match", struct y_action, match),
	STR("count", struct y_action, count),
	STR("first", struct y_action, first),
	STR("spec", struct y_action, spec),
	CYAML_FIELD_MAPPING_PTR("at", CYAML_FLAG_OPTIONAL, struct y_action, at, at_fields),
	CYAML_FIELD_MAPPING_PTR("until", CYAML_FLAG_OPTIONAL, struct y_action, until, at_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t action_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_action, action_fields),
};

static const cyaml_schema_field_t regime_fields[] = {
	STR("name", struct y_regime, name),
	STR("profile", struct y_regime, profile),
	STR("scale", struct y_regime, scale),
	CYAML_FIELD_SEQUENCE("links", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_regime,
			     links, &str_entry, 0, 16),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t regime_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_regime, regime_fields),
};

static const cyaml_schema_field_t job_fields[] = {
	STR("kind", struct y_job, kind),
	STR("iterations", struct y_job, iterations),
	STR("warmup", struct y_job, warmup),
	STR("command", struct y_job, command),
	CYAML_FIELD_SEQUENCE("sizes", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_job, sizes,
			     &str_entry, 0, CG_MAX_SIZES),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t beside_fields[] = {
	STR("host", struct y_beside, host),
	STR("command", struct y_beside, command),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t beside_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_beside, beside_fields),
};

static const cyaml_schema_field_t campaign_fields[] = {
	STR("name", struct y_campaign, name),
	STR("description", struct y_campaign, description),
	STR("hosts", struct y_campaign, hosts),
	STR("pmd", struct y_campaign, pmd),
	STR("repetitions", struct y_campaign, repetitions),
	STR("seed", struct y_campaign, seed),
	STR("host-ecn", struct y_campaign, host_ecn),
	CYAML_FIELD_MAPPING_PTR("job", CYAML_FLAG_OPTIONAL, struct y_campaign, job, job_fields),
	CYAML_FIELD_SEQUENCE("regimes", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_campaign,
			     regimes, &regime_entry, 0, CG_MAX_REGIMES),
	CYAML_FIELD_SEQUENCE("timeline", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct y_campaign, timeline, &action_entry, 0, CG_MAX_ACTIONS),
	CYAML_FIELD_SEQUENCE("beside", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_campaign,
			     beside, &beside_entry, 0, CG_MAX_BESIDE),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t campaign_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct y_campaign, campaign_fields),
};

static const struct fe_yaml_known known_keys[] = {
	{"", "name, description, hosts, pmd, repetitions, seed, host-ecn, job, regimes, timeline, "
	     "beside"},
	{"job", "kind, sizes, iterations, warmup, command"},
	{"regimes", "name, profile, scale, links"},
	{"timeline", "action, at, until, link, duration, profile, scale, loss, delay, match, "
		     "count, first, spec"},
	{"at", "iteration, time"},
	{"until", "iteration, time"},
	{"beside", "host, command"},
	{NULL, NULL},
};

/* ---- The campaign, compiled ---- */

/* One fabemuctl command line, run at an iteration (by the job's hook) or a time. */
struct step {
	int at_iter;	 /* > 0: before this iteration */
	uint64_t at_ns;	 /* else: this long after the job started */
	char args[1200]; /* fabemuctl arguments, shell-quoted */
	char what[200];	 /* for the progress line, the results and the plots */
	int revert;
};

struct regime {
	char name[64];
	char profile[512]; /* path */
	char profile_name[64];
	uint32_t scale;
	char links[16][300];
	unsigned nlinks;
	struct fe_fabric fabric;
	uint64_t hop_ns; /* configured: delay of one link + a 1500-byte frame at its rate */
};

struct campaign {
	char name[64], description[256], source[512];
	char *text; /* the file */
	unsigned hosts;
	char pmd[16];
	unsigned reps;
	uint64_t seed;
	int host_ecn;  /* the hosts ask for ECN (net.ipv4.tcp_ecn=1) */
	int allreduce; /* else: a command */
	char command[1024];
	uint64_t sizes[CG_MAX_SIZES];
	unsigned nsizes, iters, warmup;
	struct {
		unsigned host;
		char command[1024];
	} beside[CG_MAX_BESIDE];
	unsigned nbeside;
	struct regime reg[CG_MAX_REGIMES];
	unsigned nreg;
	struct step steps[CG_STEPS_MAX];
	unsigned nsteps;
};

static int
uint_val(struct fe_yaml *y, const char *path, const char *v, uint64_t lo, uint64_t hi,
	 uint64_t *out)
{
	char e[200];

	if (fe_parse_uint(v, hi, out, e, sizeof(e)) < 0 || *out < lo)
		return fe_yaml_fail(y, path, "%s '%s' (allowed: %" PRIu64 " to %" PRIu64 ")", path,
				    v, lo, hi);
	return 0;
}

/* Shell-quote s into out ('...' with ' as '\''). */
static void
quote(char *out, size_t len, const char *s)
{
	size_t o = 0;

	if (len < 3)
		return;
	out[o++] = '\'';
	for (; *s && o + 5 < len; s++) {
		if (*s == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *s;
		}
	}
	out[o++] = '\'';
	out[o] = '\0';
}

static int
compile_job(struct fe_yaml *y, const struct y_campaign *d, struct campaign *c)
{
	const struct y_job *j = d->job;
	uint64_t x;

	if (j == NULL)
		return fe_yaml_fail(y, "",
				    "the campaign needs a job: (kind: allreduce or command)");
	c->allreduce = j->kind == NULL || strcmp(j->kind, "allreduce") == 0;
	if (!c->allreduce && strcmp(j->kind, "command") != 0)
		return fe_yaml_fail(y, "job.kind", "job.kind '%s' (allowed: allreduce, command)",
				    j->kind);
	if (!c->allreduce) {
		if (j->command == NULL)
			return fe_yaml_fail(y, "job", "job: kind command needs a command");
		snprintf(c->command, sizeof(c->command), "%s", j->command);
		return 0;
	}
	c->iters = 20;
	c->warmup = 2;
	if (j->iterations && uint_val(y, "job.iterations", j->iterations, 1, CG_MAX_ITERS, &x) < 0)
		return -EINVAL;
	c->iters = j->iterations ? (unsigned)x : c->iters;
	if (j->warmup && uint_val(y, "job.warmup", j->warmup, 0, 1000, &x) < 0)
		return -EINVAL;
	c->warmup = j->warmup ? (unsigned)x : c->warmup;
	for (unsigned i = 0; i < j->sizes_count; i++) {
		char e[200], path[32];

		snprintf(path, sizeof(path), "job.sizes.%u", i);
		if (fe_parse_size(j->sizes[i], &c->sizes[i], e, sizeof(e)) < 0 || c->sizes[i] < 4 ||
		    c->sizes[i] > (1ULL << 30))
			return fe_yaml_fail(y, path, "job.sizes: '%s' (allowed: 4B to 1GiB)",
					    j->sizes[i]);
		c->nsizes++;
	}
	if (c->nsizes == 0) {
		c->sizes[0] = 1 << 20;
		c->nsizes = 1;
	}
	return 0;
}

static int
compile_regime(struct fe_yaml *y, const struct y_regime *r, unsigned i, struct campaign *c)
{
	struct regime *g = &c->reg[i];
	struct fe_linkdef up[64], down[64];
	struct fe_profile *p;
	char path[64], err[1024];
	uint64_t x = 0;
	int rc = 0;

	snprintf(path, sizeof(path), "regimes.%u", i);
	if (r->name == NULL || r->profile == NULL)
		return fe_yaml_fail(y, path, "regimes entry %u: name and profile are required",
				    i + 1);
	snprintf(g->name, sizeof(g->name), "%s", r->name);
	if (r->scale &&
	    uint_val(y, strcat(path, ".scale"), r->scale, 1, FE_PROFILE_SCALE_MAX, &x) < 0)
		return -EINVAL;
	g->scale = (uint32_t)x;
	if (fe_profile_find(r->profile, g->profile, sizeof(g->profile), err, sizeof(err)) < 0)
		return fe_yaml_fail(y, path, "%s", err);
	p = malloc(sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	if (fe_profile_load(g->profile, p, err, sizeof(err)) < 0 ||
	    fe_profile_expand(p, g->scale, c->hosts, up, down, &g->fabric, err, sizeof(err)) < 0) {
		rc = fe_yaml_fail(y, path, "regime %s: %s", g->name, err);
		goto out;
	}
	g->scale = g->scale ? g->scale : p->scale;
	snprintf(g->profile_name, sizeof(g->profile_name), "%s", p->name);
	for (unsigned k = 0; k < r->links_count && rc == 0; k++) {
		snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "%s", r->links[k]);
		if (fe_linkspec_apply(r->links[k], up, down, c->hosts, err, sizeof(err)) < 0)
			rc = fe_yaml_fail(y, path, "regime %s: links: '%s': %s", g->name,
					  r->links[k], err);
	}
	g->hop_ns = down[0].link.delay_ns +
		    (down[0].link.rate_bps ? 1538ULL * 8 * 1000000000 / down[0].link.rate_bps : 0);
out:
	free(p);
	return rc;
}

/* When an action runs: an iteration (the job's hook) or a time after the job started. */
static int
when(struct fe_yaml *y, const char *path, const struct y_at *at, const struct campaign *c,
     int *iter, uint64_t *ns)
{
	uint64_t x;
	char e[200];

	*iter = 0;
	*ns = 0;
	if (at == NULL || (at->iteration == NULL) == (at->time == NULL))
		return fe_yaml_fail(y, path, "%s: give iteration: N or time: T", path);
	if (at->iteration) {
		if (!c->allreduce)
			return fe_yaml_fail(y, path, "%s: iteration needs an allreduce job", path);
		if (uint_val(y, path, at->iteration, 1, (uint64_t)c->iters * c->nsizes, &x) < 0)
			return -EINVAL;
		*iter = (int)x;
		return 0;
	}
	if (fe_parse_time(at->time, ns, e, sizeof(e)) < 0)
		return fe_yaml_fail(y, path, "%s: %s", path, e);
	return 0;
}

static int
add_step(struct campaign *c, int iter, uint64_t ns, int revert, const char *what, const char *fmt,
	 ...)
{
	struct step *s;
	va_list ap;

	if (c->nsteps == CG_STEPS_MAX)
		return -E2BIG;
	s = &c->steps[c->nsteps++];
	s->at_iter = iter;
	s->at_ns = ns;
	s->revert = revert;
	snprintf(s->what, sizeof(s->what), "%s", what);
	va_start(ap, fmt);
	vsnprintf(s->args, sizeof(s->args), fmt, ap);
	va_end(ap);
	return 0;
}

/* The command an action starts with, shell-quoted fabemuctl arguments, and a label. */
static int
action_cmd(struct fe_yaml *y, const char *path, const struct y_action *a, char *args, size_t len,
	   char *what, size_t wlen, int *has_revert)
{
	char q[600], spec[700], e[400], p[600];
	long port;
	int dirs;

	if (a->action == NULL)
		return fe_yaml_fail(y, path,
				    "%s: action is required (apply, set, loss, delay, drop, "
				    "flap, starve, pause-storm)",
				    path);
	if (a->link == NULL)
		return fe_yaml_fail(y, path, "%s: link is required (N.up, N.down, N, ...)", path);
	if (fe_linkspec_select(a->link, 4096, &port, &dirs, e, sizeof(e)) < 0)
		return fe_yaml_fail(y, path, "%s: %s", path, e);
	*has_revert = 1;
	if (!strcmp(a->action, "loss") && a->loss)
		snprintf(spec, sizeof(spec), "loss=%s", a->loss);
	else if (!strcmp(a->action, "delay") && a->delay)
		snprintf(spec, sizeof(spec), "delay=%s", a->delay);
	else if (!strcmp(a->action, "set") && a->spec)
		snprintf(spec, sizeof(spec), "%s", a->spec);
	else if (!strcmp(a->action, "flap"))
		snprintf(spec, sizeof(spec), "loss=100%%");
	else if (!strcmp(a->action, "drop") && a->match)
		snprintf(spec, sizeof(spec), "drop=%s/%s,match=%s", a->first ? a->first : "1",
			 a->count ? a->count : "1", a->match);
	else if (!strcmp(a->action, "apply") && a->profile) {
		char path2[512];

		if (fe_profile_find(a->profile, path2, sizeof(path2), e, sizeof(e)) < 0)
			return fe_yaml_fail(y, path, "%s: %s", path, e);
		quote(p, sizeof(p), path2);
		quote(q, sizeof(q), a->link);
		snprintf(args, len, "apply %s --link %s%s%s", p, q, a->scale ? " --scale " : "",
			 a->scale ? a->scale : "");
		snprintf(what, wlen, "apply %s to %s", a->profile, a->link);
		return 0;
	} else if (!strcmp(a->action, "starve") || !strcmp(a->action, "pause-storm")) {
		if (a->duration == NULL || port < 0 || dirs != FE_SEL_DOWN)
			return fe_yaml_fail(
				y, path,
				"%s: %s needs link: N.down (the host that stops taking) "
				"and a duration",
				path, a->action);
		quote(q, sizeof(q), a->duration);
		snprintf(args, len, "hold %s %s", a->link, q);
		snprintf(what, wlen, "%s %s %s", a->action, a->link, a->duration);
		*has_revert = 0;
		return 0;
	} else
		return fe_yaml_fail(y, path,
				    "%s: action '%s' with these keys (apply: profile; set: spec; "
				    "loss: loss; delay: delay; drop: match [first, count]; flap; "
				    "starve, pause-storm: duration)",
				    path, a->action);
	/* check the spec now, not when the fault is due */
	{
		struct fe_linkdef scratch = {0};
		char *s2 = strdup(spec), *save = NULL;

		for (char *kv = strtok_r(s2, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(kv, '=');

			if (eq == NULL)
				break;
			*eq = '\0';
			if (strcmp(kv, "match") == 0) {
				/* the rest of the spec is the filter */
				eq[strlen(eq + 1) + 1] = '\0';
				break;
			}
			if (fe_link_param_set(&scratch, kv, eq + 1, e, sizeof(e)) < 0) {
				free(s2);
				return fe_yaml_fail(y, path, "%s: %s", path, e);
			}
		}
		free(s2);
		if (a->match && fe_link_param_set(&scratch, "match", a->match, e, sizeof(e)) < 0)
			return fe_yaml_fail(y, path, "%s: %s", path, e);
	}
	quote(q, sizeof(q), spec);
	snprintf(args, len, "set %s %s", a->link, q);
	snprintf(what, wlen, "%s %s %s", a->action, a->link,
		 !strcmp(a->action, "flap") ? "down" : spec);
	return 0;
}

static int
compile_timeline(struct fe_yaml *y, const struct y_campaign *d, struct campaign *c)
{
	for (unsigned i = 0; i < d->timeline_count; i++) {
		const struct y_action *a = &d->timeline[i];
		char path[32], args[1200], what[200], rw[240], e[200];
		int it, uit = 0, revert = 0;
		uint64_t ns, uns = 0, dur = 0;

		snprintf(path, sizeof(path), "timeline.%u", i);
		if (action_cmd(y, path, a, args, sizeof(args), what, sizeof(what), &revert) < 0 ||
		    when(y, path, a->at, c, &it, &ns) < 0)
			return -EINVAL;
		if (a->duration && fe_parse_time(a->duration, &dur, e, sizeof(e)) < 0)
			return fe_yaml_fail(y, path, "%s.duration: %s", path, e);
		if (a->until && when(y, path, a->until, c, &uit, &uns) < 0)
			return -EINVAL;
		/* a revert by time needs a start in time; by iteration, a start by iteration */
		if (revert && dur && it)
			return fe_yaml_fail(y, path,
					    "%s: an action at an iteration ends at one: use "
					    "until: {iteration: N}, not duration",
					    path);
		if (revert && uit && !it)
			return fe_yaml_fail(y, path, "%s: until an iteration needs at: {iteration}",
					    path);
		if (uit && uit <= it)
			return fe_yaml_fail(y, path, "%s: until iteration %d is not after %d", path,
					    uit, it);
		add_step(c, it, ns, 0, what, "%s", args);
		if (!revert || (!dur && !uit))
			continue;
		snprintf(rw, sizeof(rw), "end of %s", what);
		/* the link goes back to the regime's profile (filled in per regime) */
		add_step(c, uit, uit ? 0 : ns + dur, 1, rw, "%s", a->link);
	}
	return 0;
}

static int
compile(struct fe_yaml *y, const struct y_campaign *d, struct campaign *c)
{
	uint64_t x;

	if (d->name == NULL)
		return fe_yaml_fail(y, "", "the campaign needs a name (name: ...)");
	snprintf(c->name, sizeof(c->name), "%s", d->name);
	if (d->description)
		snprintf(c->description, sizeof(c->description), "%s", d->description);
	c->hosts = 4;
	if (d->hosts && uint_val(y, "hosts", d->hosts, 2, 16, &x) < 0)
		return -EINVAL;
	c->hosts = d->hosts ? (unsigned)x : c->hosts;
	snprintf(c->pmd, sizeof(c->pmd), "%s", d->pmd ? d->pmd : "af_packet");
	if (strcmp(c->pmd, "af_packet") && strcmp(c->pmd, "af_xdp"))
		return fe_yaml_fail(y, "pmd", "pmd '%s' (allowed: af_packet, af_xdp)", c->pmd);
	c->reps = 1;
	if (d->repetitions && uint_val(y, "repetitions", d->repetitions, 1, 100, &x) < 0)
		return -EINVAL;
	c->reps = d->repetitions ? (unsigned)x : 1;
	c->seed = 1;
	if (d->seed && uint_val(y, "seed", d->seed, 0, FE_SEED_MAX, &c->seed) < 0)
		return -EINVAL;
	c->host_ecn = 1;
	if (d->host_ecn && strcmp(d->host_ecn, "true") && strcmp(d->host_ecn, "false"))
		return fe_yaml_fail(y, "host-ecn", "host-ecn '%s' (allowed: true, false)",
				    d->host_ecn);
	c->host_ecn = d->host_ecn == NULL || strcmp(d->host_ecn, "true") == 0;
	if (compile_job(y, d, c) < 0)
		return -EINVAL;
	if (d->regimes_count == 0)
		return fe_yaml_fail(y, "", "the campaign needs regimes: (name, profile, scale)");
	for (unsigned i = 0; i < d->regimes_count; i++, c->nreg++)
		if (compile_regime(y, &d->regimes[i], i, c) < 0)
			return -EINVAL;
	for (unsigned i = 0; i < d->beside_count; i++, c->nbeside++) {
		char path[32];

		snprintf(path, sizeof(path), "beside.%u", i);
		if (d->beside[i].host == NULL || d->beside[i].command == NULL)
			return fe_yaml_fail(
				y, path, "beside entry %u: host and command are required", i + 1);
		if (uint_val(y, path, d->beside[i].host, 1, c->hosts, &x) < 0)
			return -EINVAL;
		c->beside[i].host = (unsigned)x;
		snprintf(c->beside[i].command, sizeof(c->beside[i].command), "%s",
			 d->beside[i].command);
	}
	return compile_timeline(y, d, c);
}

static int
campaign_load(const char *path, struct campaign *c, char *err, size_t errlen)
{
	struct y_campaign *d = NULL;
	struct fe_yaml y = {.source = path, .err = err, .errlen = errlen, .known = known_keys};
	size_t len;
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(c->source, sizeof(c->source), "%s", path);
	/* a bare name is a shipped campaign */
	if (strchr(path, '/') == NULL && strchr(path, '.') == NULL)
		snprintf(c->source, sizeof(c->source), "%s/testbeds/campaigns/%s.yaml",
			 getenv("FABEMU_ROOT") ? getenv("FABEMU_ROOT") : FE_SOURCE_DIR, path);
	y.source = c->source;
	c->text = fe_profile_read(c->source, &len, err, errlen);
	if (c->text == NULL)
		return -EIO;
	y.text = c->text;
	y.len = len;
	if (fe_yaml_load(&y, &campaign_schema, CG_MAX_BYTES, (void **)&d) < 0)
		return -EINVAL;
	rc = compile(&y, d, c);
	fe_yaml_free(&campaign_schema, d);
	return rc;
}

/* ---- Running ---- */

static const char *
size_name(uint64_t s, char *buf, size_t len)
{
	if (s >= (1 << 20) && s % (1 << 20) == 0)
		snprintf(buf, len, "%" PRIu64 "MiB", s >> 20);
	else if (s >= 1024 && s % 1024 == 0)
		snprintf(buf, len, "%" PRIu64 "KiB", s >> 10);
	else
		snprintf(buf, len, "%" PRIu64 "B", s);
	return buf;
}

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct run_ctx {
	const struct campaign *c;
	char out[PATH_MAX];
	char self[PATH_MAX], bindir[PATH_MAX], root[PATH_MAX];
	char testbed[32];
	int own_testbed;
	char sock[128], prefix[64];
	pid_t dp, job, beside[CG_MAX_BESIDE];
	unsigned iters_override;
	json_t *results; /* the whole document */
};

static uint64_t
now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* Start argv[0] in its own session (so that we signal the whole group); output to log. */
static pid_t
spawn(char *const argv[], const char *log, int *out_fd)
{
	int p[2] = {-1, -1};
	pid_t pid;

	if (out_fd)
		*out_fd = -1;
	if (out_fd && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		setsid();
		if (out_fd) /* the caller reads stdout, even if the log cannot be opened */
			dup2(p[1], STDOUT_FILENO);
		if (fd >= 0) {
			if (!out_fd)
				dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out_fd) {
		close(p[1]);
		*out_fd = pid > 0 ? p[0] : -1;
		if (pid < 0)
			close(p[0]);
	}
	return pid;
}

/* Run a shell command to completion; its output into log. Returns its exit status. */
static int
sh(const char *log, const char *fmt, ...)
{
	char cmd[4096];
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	int st;
	pid_t pid;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	pid = spawn(argv, log, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Stop a process group: sig, then KILL after wait_ms. */
static int
stop_group(pid_t *pid, int sig, int wait_ms)
{
	int st = 0;

	if (*pid <= 0)
		return 0;
	kill(-*pid, sig);
	for (int i = 0; i < wait_ms / 10; i++) {
		if (waitpid(*pid, &st, WNOHANG) == *pid) {
			*pid = 0;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		usleep(10000);
	}
	kill(-*pid, SIGKILL);
	waitpid(*pid, &st, 0);
	*pid = 0;
	return 128 + SIGKILL;
}

static void
logpath(const struct run_ctx *r, char *buf, size_t len, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(buf, len, "%s/logs/%s", r->out, name);
}

static int
testbed_up(struct run_ctx *r)
{
	char log[PATH_MAX];

	logpath(r, log, sizeof(log), "testbed.log");
	if (r->own_testbed &&
	    sh(log, "'%s/testbeds/veth.sh' up %u --name %s", r->root, r->c->hosts, r->testbed) != 0)
		return -1;
	/* per namespace: whether the hosts' TCP asks for ECN (marks need ECT packets) */
	return sh(log,
		  "for i in $(seq %u); do ip netns exec %s-h$i sysctl -qw net.ipv4.tcp_ecn=%d; "
		  "done",
		  r->c->hosts, r->testbed, r->c->host_ecn) == 0
		       ? 0
		       : -1;
}

static void
testbed_down(struct run_ctx *r)
{
	char log[PATH_MAX];

	logpath(r, log, sizeof(log), "testbed.log");
	/* whatever still runs in our hosts (ranks, iperf3) goes first */
	sh(log,
	   "for ns in $(ip netns list | awk '{print $1}' | grep '^%s-h'); do "
	   "p=$(ip netns pids $ns); [ -n \"$p\" ] && kill -KILL $p; done; true",
	   r->testbed);
	if (r->own_testbed)
		sh(log, "'%s/testbeds/veth.sh' down --name %s", r->root, r->testbed);
}

static void
dp_stop(struct run_ctx *r, int *rc_out)
{
	char dir[128];
	int rc = stop_group(&r->dp, SIGINT, 10000);

	if (rc_out)
		*rc_out = rc;
	snprintf(dir, sizeof(dir), "rm -rf /var/run/dpdk/%s", r->prefix);
	sh("/dev/null", "%s", dir);
	unlink(r->sock);
}

static int
dp_start(struct run_ctx *r, const struct regime *g, unsigned rep, char *err, size_t errlen)
{
	char log[PATH_MAX], vdevs[2048] = "", scale[16], seed[32], cmd[8192];
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	FILE *f;

	snprintf(cmd, sizeof(cmd), "'%s/testbeds/veth.sh' vdevs --name %s --pmd %s", r->root,
		 r->testbed, r->c->pmd);
	f = popen(cmd, "r");
	if (f == NULL || fgets(vdevs, sizeof(vdevs), f) == NULL) {
		if (f)
			pclose(f);
		snprintf(err, errlen, "cannot list the testbed's ports (%s)", cmd);
		return -1;
	}
	pclose(f);
	vdevs[strcspn(vdevs, "\n")] = '\0';
	snprintf(scale, sizeof(scale), "%u", g->scale);
	snprintf(seed, sizeof(seed), "%" PRIu64, r->c->seed + rep);
	snprintf(cmd, sizeof(cmd),
		 "exec nice -n -10 '%s/fabemu-dp' --no-huge -m 2048 --no-pci -l 0 --file-prefix %s "
		 "--log-level=pmd.net.af_xdp:error %s -- --profile '%s' --scale %s --seed %s "
		 "--control %s",
		 r->bindir, r->prefix, vdevs, g->profile, scale, seed, r->sock);
	for (unsigned i = 0; i < g->nlinks; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " --link '%s'", g->links[i]);
	logpath(r, log, sizeof(log), "dp-%s-%u.log", g->name, rep + 1);
	unlink(r->sock);
	r->dp = spawn(argv, log, NULL);
	for (int i = 0; i < 200 && r->dp > 0; i++) {
		struct fe_client cl = {.socket = r->sock, .quiet = 1};
		int st;

		if (access(r->sock, F_OK) == 0 &&
		    fe_client_run(&cl, fe_client_request("status")) == 0)
			return 0;
		if (waitpid(r->dp, &st, WNOHANG) == r->dp) {
			r->dp = 0;
			break;
		}
		usleep(50000);
	}
	snprintf(err, errlen, "fabemu-dp did not start (log: %s)", log);
	stop_group(&r->dp, SIGKILL, 100);
	return -1;
}

/* TCP counters of one host: retrans, dsack, timeouts, probes, CE received. */
struct tcp_ctr {
	uint64_t retrans, dsack, timeouts, probes, ce;
};

static void
tcp_read(const struct run_ctx *r, unsigned host, struct tcp_ctr *t)
{
	char cmd[512], line[256], name[64];
	unsigned long long v;
	FILE *f;

	memset(t, 0, sizeof(*t));
	snprintf(cmd, sizeof(cmd),
		 "ip netns exec %s-h%u nstat -asz TcpRetransSegs TcpExtTCPDSACKRecvSegs "
		 "TcpExtTCPTimeouts TcpExtTCPLossProbes IpExtInCEPkts 2>/dev/null",
		 r->testbed, host);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", name, &v) == 2) {
			if (!strcmp(name, "TcpRetransSegs"))
				t->retrans = v;
			else if (!strcmp(name, "TcpExtTCPDSACKRecvSegs"))
				t->dsack = v;
			else if (!strcmp(name, "TcpExtTCPTimeouts"))
				t->timeouts = v;
			else if (!strcmp(name, "TcpExtTCPLossProbes"))
				t->probes = v;
			else if (!strcmp(name, "IpExtInCEPkts"))
				t->ce = v;
		}
	if (f)
		pclose(f);
}

static double
ping_rtt_us(const struct run_ctx *r)
{
	char cmd[256], line[512];
	double mn, avg = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip netns exec %s-h1 ping -q -c 20 -i 0.01 -W 1 198.18.0.2",
		 r->testbed);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "rtt ", 4) == 0)
			sscanf(strchr(line, '=') + 1, "%lf/%lf", &mn, &avg);
	if (f)
		pclose(f);
	return avg * 1000;
}

/* The hook the job runs before an iteration: the steps due then, then a mark. */
static int
write_hook(const struct run_ctx *r, const struct regime *g, const char *path, const char *marks,
	   char *iters, size_t ilen)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	iters[0] = '\0';
	fprintf(f, "#!/bin/sh\n# generated by fabemuctl campaign: faults before iteration $1\n"
		   "case \"$1\" in\n");
	for (unsigned i = 0; i < r->c->nsteps; i++) {
		const struct step *s = &r->c->steps[i];

		if (s->at_iter == 0)
			continue;
		snprintf(iters + strlen(iters), ilen - strlen(iters), "%s%d", iters[0] ? "," : "",
			 s->at_iter);
		fprintf(f, "%d)\n", s->at_iter);
		if (s->revert)
			fprintf(f, "  '%s' -s %s apply '%s' --scale %u --link %s >/dev/null\n",
				r->self, r->sock, g->profile, g->scale, s->args);
		else
			fprintf(f, "  '%s' -s %s %s >/dev/null\n", r->self, r->sock, s->args);
		fprintf(f, "  echo \"$1 $(date +%%s%%N) %s\" >>'%s'\n  ;;\n", s->what, marks);
	}
	fprintf(f, "esac\nexit 0\n");
	fclose(f);
	chmod(path, 0755);
	return 0;
}

static int
run_step_now(const struct run_ctx *r, const struct regime *g, const struct step *s,
	     const char *marks, uint64_t job_start)
{
	char log[PATH_MAX];
	FILE *f;
	int rc;

	logpath(r, log, sizeof(log), "faults.log");
	if (s->revert)
		rc = sh(log, "'%s' -s %s apply '%s' --scale %u --link %s", r->self, r->sock,
			g->profile, g->scale, s->args);
	else
		rc = sh(log, "'%s' -s %s %s", r->self, r->sock, s->args);
	f = fopen(marks, "a");
	if (f) {
		fprintf(f, "t %" PRIu64 " %s\n", now_ns(CLOCK_REALTIME), s->what);
		fclose(f);
	}
	(void)job_start;
	return rc;
}

/* The job's command line (a shell command run in host 1's namespace). */
static void
job_command(const struct run_ctx *r, const char *hook, const char *hook_iters, char *cmd,
	    size_t len)
{
	const struct campaign *c = r->c;
	char hosts[512] = "", sizes[256] = "";
	unsigned iters = r->iters_override ? r->iters_override : c->iters;

	for (unsigned i = 1; i <= c->hosts; i++)
		snprintf(hosts + strlen(hosts), sizeof(hosts) - strlen(hosts), "%s%s-h%u",
			 i > 1 ? "," : "", r->testbed, i);
	for (unsigned i = 0; i < c->nsizes; i++)
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%" PRIu64,
			 i ? "," : "", c->sizes[i]);
	if (!c->allreduce) {
		snprintf(cmd, len,
			 "exec ip netns exec %s-h1 env FE_HOSTS='%s' FABEMU_SOCKET=%s sh -c %s",
			 r->testbed, hosts, r->sock, "\"$FE_JOB\"");
		return;
	}
	snprintf(cmd, len,
		 "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; "
		 "exec ip netns exec %s-h1 unshare --uts sh -c 'hostname %s-h1 && exec mpirun "
		 "--host %s -np %u --mca plm_rsh_agent %s/testbeds/mpi-agent.sh "
		 "--mca btl tcp,self --mca btl_tcp_if_include 198.18.0.0/24 "
		 "--mca oob_tcp_if_include 198.18.0.0/24 --mca mpi_yield_when_idle 1 "
		 "%s/fe-allreduce --sizes %s --iters %u --warmup %u%s%s%s%s'",
		 r->testbed, r->testbed, hosts, c->hosts, r->root, r->bindir, sizes, iters,
		 c->warmup, hook_iters[0] ? " --hook " : "", hook_iters[0] ? hook : "",
		 hook_iters[0] ? " --hook-iters " : "", hook_iters);
}

static void
start_beside(struct run_ctx *r, const char *tag)
{
	for (unsigned i = 0; i < r->c->nbeside; i++) {
		char cmd[1400], log[PATH_MAX];
		char *argv[] = {"/bin/sh", "-c", cmd, NULL};

		snprintf(cmd, sizeof(cmd), "exec ip netns exec %s-h%u sh -c \"$FE_BESIDE%u\"",
			 r->testbed, r->c->beside[i].host, i);
		{
			char var[32];

			snprintf(var, sizeof(var), "FE_BESIDE%u", i);
			setenv(var, r->c->beside[i].command, 1);
		}
		logpath(r, log, sizeof(log), "beside-%s-%u.log", tag, i + 1);
		r->beside[i] = spawn(argv, log, NULL);
		usleep(200000); /* servers first, in file order */
	}
}

static void
stop_beside(struct run_ctx *r)
{
	for (unsigned i = 0; i < r->c->nbeside; i++)
		stop_group(&r->beside[i], SIGTERM, 2000);
}

struct job_result {
	json_t *iters; /* [[g, size, i, time_us, start_ns], ...] */
	uint64_t start_ns, end_ns;
	int status;
	int dp_died;
};

/* Run the job; follow its output; fire timed steps; stop on Ctrl-C or a dead dataplane. */
static void
run_job(struct run_ctx *r, const struct regime *g, unsigned rep, const char *marks,
	struct job_result *jr)
{
	char hook[PATH_MAX], hook_iters[512], cmd[8192], log[PATH_MAX], buf[65536];
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	uint64_t t0;
	size_t blen = 0;
	int fd = -1, done = 0, fired[CG_STEPS_MAX] = {0};
	unsigned total = (r->iters_override ? r->iters_override : r->c->iters) * r->c->nsizes;

	snprintf(hook, sizeof(hook), "%s/logs/hook-%s-%u.sh", r->out, g->name, rep + 1);
	write_hook(r, g, hook, marks, hook_iters, sizeof(hook_iters));
	job_command(r, hook, hook_iters, cmd, sizeof(cmd));
	setenv("FE_JOB", r->c->command, 1);
	logpath(r, log, sizeof(log), "job-%s-%u.log", g->name, rep + 1);
	jr->iters = json_array();
	start_beside(r, g->name);
	t0 = now_ns(CLOCK_MONOTONIC);
	jr->start_ns = now_ns(CLOCK_REALTIME);
	r->job = spawn(argv, log, &fd);
	while (!done && r->job > 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		uint64_t el = now_ns(CLOCK_MONOTONIC) - t0;
		int st;

		for (unsigned i = 0; i < r->c->nsteps; i++) {
			const struct step *s = &r->c->steps[i];

			if (s->at_iter == 0 && !fired[i] && el >= s->at_ns) {
				fired[i] = 1;
				say("    fault at %.3f s: %s\n", (double)el / 1e9, s->what);
				run_step_now(r, g, s, marks, t0);
			}
		}
		if (interrupted)
			break;
		if (r->dp > 0 && waitpid(r->dp, &st, WNOHANG) == r->dp) {
			r->dp = 0;
			jr->dp_died = 1;
			break;
		}
		if (poll(&p, 1, 20) <= 0)
			continue;
		ssize_t n = read(fd, buf + blen, sizeof(buf) - 1 - blen);

		if (n <= 0) {
			done = 1;
			break;
		}
		blen += (size_t)n;
		buf[blen] = '\0';
		for (char *nl; (nl = strchr(buf, '\n')) != NULL;) {
			unsigned gi, i;
			unsigned long long size, start;
			double t;

			*nl = '\0';
			if (sscanf(buf, "iter %u %llu %u %lf %llu", &gi, &size, &i, &t, &start) ==
			    5) {
				json_array_append_new(jr->iters, json_pack("[i, I, i, f, I]", gi,
									   (json_int_t)size, i, t,
									   (json_int_t)start));
				char sz[16];

				say("    [%s %u/%u] iteration %3u/%u  %7s  %10.3f ms\n", g->name,
				    rep + 1, r->c->reps, gi, total, size_name(size, sz, sizeof(sz)),
				    t / 1000.0);
			}
			{
				FILE *lf = fopen(log, "a");

				if (lf) {
					fprintf(lf, "%s\n", buf);
					fclose(lf);
				}
			}
			memmove(buf, nl + 1, blen - (size_t)(nl + 1 - buf) + 1);
			blen -= (size_t)(nl + 1 - buf);
		}
	}
	if (fd >= 0)
		close(fd);
	/* a job that finished exits by itself; one we stop gets SIGTERM, then SIGKILL */
	if (interrupted || jr->dp_died)
		jr->status = stop_group(&r->job, SIGTERM, 3000);
	else
		jr->status = stop_group(&r->job, 0, 60000);
	if (interrupted || jr->dp_died)
		jr->status = -1;
	jr->end_ns = now_ns(CLOCK_REALTIME);
	stop_beside(r);
}

/* Per-link figures from the dataplane's counters document. */
static json_t *
link_figures(json_t *counters)
{
	json_t *out = json_array(), *l;
	size_t i;

	json_array_foreach(json_object_get(counters, "links"), i, l)
	{
		json_int_t drops = 0;
		const char *k;
		json_t *v;

		json_object_foreach(l, k, v) if (!strncmp(k, "drop_", 5) && strstr(k, "_pkts") &&
						 strcmp(k, "drop_pkts")) drops +=
			json_integer_value(v);
		json_array_append_new(
			out, json_pack("{s:O, s:I, s:O, s:O, s:O, s:O}", "link",
				       json_object_get(l, "link"), "drops", drops, "ecn_marked",
				       json_object_get(l, "ecn_marked"), "q_bytes_peak",
				       json_object_get(l, "q_bytes_peak"), "held_ns",
				       json_object_get(l, "held_ns"), "drop_tail_pkts",
				       json_object_get(l, "drop_tail_pkts")));
	}
	return out;
}

/* Sum of one lane counter over ports and lanes (pause frames, stall time). */
static json_int_t
lane_sum(json_t *counters, const char *key)
{
	json_t *regime = json_object_get(counters, "regime"), *p, *lane;
	json_int_t s = 0;
	size_t i, k;

	json_array_foreach(json_object_get(regime, "ports"), i, p)
		json_array_foreach(json_object_get(p, "lanes"), k, lane) s +=
		json_integer_value(json_object_get(lane, key));
	return s;
}

static json_t *
one_run(struct run_ctx *r, const struct regime *g, unsigned rep, int *status)
{
	struct tcp_ctr before[17], after[17];
	struct fe_client cl = {.socket = r->sock};
	struct job_result jr = {0};
	char err[1024], marks[PATH_MAX];
	json_t *run, *counters = NULL, *reply, *tcp, *mk = json_array();
	double rtt;
	int dprc = 0;
	FILE *f;
	char line[512];

	say("  regime %s (profile %s, scale %u), repetition %u/%u\n", g->name, g->profile_name,
	    g->scale, rep + 1, r->c->reps);
	if (dp_start(r, g, rep, err, sizeof(err)) < 0) {
		say("  %s\n", err);
		*status = CG_SETUP;
		return NULL;
	}
	rtt = ping_rtt_us(r);
	for (unsigned h = 1; h <= r->c->hosts; h++)
		tcp_read(r, h, &before[h]);
	snprintf(marks, sizeof(marks), "%s/logs/marks-%s-%u.txt", r->out, g->name, rep + 1);
	unlink(marks);
	run_job(r, g, rep, marks, &jr);
	for (unsigned h = 1; h <= r->c->hosts; h++)
		tcp_read(r, h, &after[h]);
	if (r->dp > 0) {
		reply = fe_client_roundtrip(&cl, json_pack("{s:i, s:s, s:b}", "fabemu", 1, "cmd",
							   "counters", "json", 1));
		counters = reply ? json_incref(json_object_get(reply, "data")) : NULL;
		json_decref(reply);
	}
	dp_stop(r, &dprc);
	tcp = json_array();
	for (unsigned h = 1; h <= r->c->hosts; h++)
		json_array_append_new(
			tcp,
			json_pack("{s:i, s:I, s:I, s:I, s:I, s:I}", "host", h, "retrans",
				  (json_int_t)(after[h].retrans - before[h].retrans),
				  "real_retrans",
				  (json_int_t)(after[h].retrans - before[h].retrans) -
					  (json_int_t)(after[h].dsack - before[h].dsack),
				  "timeouts", (json_int_t)(after[h].timeouts - before[h].timeouts),
				  "loss_probes", (json_int_t)(after[h].probes - before[h].probes),
				  "ce_received", (json_int_t)(after[h].ce - before[h].ce)));
	f = fopen(marks, "r");
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
	run = json_pack("{s:s, s:i, s:o, s:I, s:I, s:i, s:i, s:f, s:o, s:o, s:o, s:o}", "regime",
			g->name, "repetition", rep + 1, "iterations", jr.iters, "start_ns",
			(json_int_t)jr.start_ns, "end_ns", (json_int_t)jr.end_ns, "job_status",
			jr.status, "dataplane_status", dprc, "ping_rtt_us", rtt, "tcp", tcp,
			"faults", mk, "links", counters ? link_figures(counters) : json_array(),
			"counters", counters ? counters : json_null());
	json_object_set_new(run, "pause_frames",
			    json_integer(counters ? lane_sum(counters, "pause_frames") : 0));
	json_object_set_new(run, "paused_ns",
			    json_integer(counters ? lane_sum(counters, "paused_ns") : 0));
	json_object_set_new(run, "credit_stall_ns",
			    json_integer(counters ? lane_sum(counters, "stall_ns") : 0));
	if (interrupted)
		*status = CG_INTERRUPTED;
	else if (jr.dp_died) {
		say("  the dataplane died during the run (log: %s/logs/dp-%s-%u.log)\n", r->out,
		    g->name, rep + 1);
		*status = CG_DP_DIED;
	} else if (jr.status != 0) {
		say("  the job failed with status %d (log: %s/logs/job-%s-%u.log)\n", jr.status,
		    r->out, g->name, rep + 1);
		*status = CG_JOB_FAILED;
	} else if (dprc != 0) {
		say("  fabemu-dp exited with status %d (3: an mbuf leak)\n", dprc);
		*status = CG_JOB_FAILED;
	}
	return run;
}

/* ---- Results ---- */

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_d);
	return v[(size_t)ceil(q * (double)n) - (q > 0)];
}

struct row {
	char regime[64], size[16];
	double hop_us, rtt_us, p50, p99, max, job_s;
	long long drops, marks, real_retrans, timeouts, probes, pauses, stalls;
	int first; /* the first row of its regime: the run's network figures go here */
	size_t n;
};

/* One row a regime and size over every repetition. */
static void
summarize(const struct campaign *c, json_t *runs, struct row *rows, size_t *nrows)
{
	json_t *run;
	size_t i;

	*nrows = 0;
	for (unsigned g = 0; g < c->nreg; g++)
		for (unsigned s = 0; s < (c->allreduce ? c->nsizes : 1); s++) {
			struct row *w = &rows[(*nrows)++];
			double *v = malloc(sizeof(double) * CG_MAX_ITERS), rtt = 0;
			unsigned nr = 0;

			memset(w, 0, sizeof(*w));
			snprintf(w->regime, sizeof(w->regime), "%s", c->reg[g].name);
			size_name(c->allreduce ? c->sizes[s] : 0, w->size, sizeof(w->size));
			w->hop_us = (double)c->reg[g].hop_ns / 1000.0;
			json_array_foreach(runs, i, run)
			{
				json_t *it, *x;
				size_t k;

				if (strcmp(json_string_value(json_object_get(run, "regime")),
					   c->reg[g].name))
					continue;
				nr++;
				rtt += json_real_value(json_object_get(run, "ping_rtt_us"));
				w->job_s += (double)(json_integer_value(
							     json_object_get(run, "end_ns")) -
						     json_integer_value(
							     json_object_get(run, "start_ns"))) /
					    1e9;
				json_array_foreach(json_object_get(run, "iterations"), k, it)
				{
					double t = json_real_value(json_array_get(it, 3));

					if (c->allreduce &&
					    (uint64_t)json_integer_value(json_array_get(it, 1)) !=
						    c->sizes[s] / 4 * 4)
						continue;
					if (v && w->n < CG_MAX_ITERS)
						v[w->n++] = t;
				}
				if (s > 0) /* the network figures are per run: once a regime */
					continue;
				json_array_foreach(json_object_get(run, "links"), k, x)
				{
					w->drops += json_integer_value(json_object_get(x, "drops"));
					w->marks += json_integer_value(
						json_object_get(x, "ecn_marked"));
				}
				json_array_foreach(json_object_get(run, "tcp"), k, x)
				{
					w->real_retrans += json_integer_value(
						json_object_get(x, "real_retrans"));
					w->timeouts +=
						json_integer_value(json_object_get(x, "timeouts"));
					w->probes += json_integer_value(
						json_object_get(x, "loss_probes"));
				}
				w->pauses +=
					json_integer_value(json_object_get(run, "pause_frames"));
			}
			w->rtt_us = nr ? rtt / nr : 0;
			w->job_s = nr ? w->job_s / nr : 0;
			w->first = s == 0;
			w->p50 = quantile(v, w->n, 0.5) / 1000;
			/* a stall the size of a retransmission timeout: 150 ms above the median
			 * (Linux's minimum RTO and a lone segment's loss probe are 200 ms) */
			for (size_t k2 = 0; k2 < w->n; k2++)
				w->stalls += v[k2] / 1000 >= w->p50 + CG_STALL_MS;
			w->p99 = quantile(v, w->n, 0.99) / 1000;
			w->max = quantile(v, w->n, 1.0) / 1000;
			free(v);
		}
}

static void
print_summary(FILE *f, const struct row *rows, size_t n, int allreduce)
{
	fprintf(f, "%-18s %7s %7s %8s %7s %6s %6s %10s %10s %10s %7s %5s %6s %6s\n", "regime",
		"size", "hop us", "ping us", "drops", "marks", "pauses", allreduce ? "p50 ms" : "-",
		allreduce ? "p99 ms" : "-", allreduce ? "max ms" : "job s", "retrans", "RTOs",
		"probes", "stalls");
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		char net[128] = "";

		if (w->first)
			snprintf(net, sizeof(net), "%7lld %6lld %6lld", w->drops, w->marks,
				 w->pauses);
		else
			snprintf(net, sizeof(net), "%7s %6s %6s", "", "", "");
		fprintf(f, "%-18s %7s %7.2f %8.1f %s %10.3f %10.3f %10.3f", w->regime,
			allreduce ? w->size : "-", w->hop_us, w->rtt_us, net, w->p50, w->p99,
			allreduce ? w->max : w->job_s);
		if (w->first)
			fprintf(f, " %7lld %5lld %6lld", w->real_retrans, w->timeouts, w->probes);
		else
			fprintf(f, " %7s %5s %6s", "", "", "");
		fprintf(f, " %6lld\n", w->stalls);
	}
}

/* FILE: regime, repetition, then keys of each object in every run's array. */
static void
run_csv(const struct run_ctx *r, json_t *runs, const char *file, const char *array,
	const char *const *keys)
{
	char p[PATH_MAX];
	json_t *run, *x;
	size_t i, k;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", r->out, file);
	if ((f = fopen(p, "w")) == NULL)
		return;
	fprintf(f, "regime,repetition");
	for (const char *const *key = keys; *key; key++)
		fprintf(f, ",%s", *key);
	fputc('\n', f);
	json_array_foreach(runs, i, run) json_array_foreach(json_object_get(run, array), k, x)
	{
		fprintf(f, "%s,%lld", json_string_value(json_object_get(run, "regime")),
			json_integer_value(json_object_get(run, "repetition")));
		for (const char *const *key = keys; *key; key++) {
			json_t *v = json_object_get(x, *key);

			if (json_is_string(v))
				fprintf(f, ",%s", json_string_value(v));
			else
				fprintf(f, ",%lld", json_integer_value(v));
		}
		fputc('\n', f);
	}
	fclose(f);
}

static void
write_csvs(const struct run_ctx *r, json_t *runs, const struct row *rows, size_t nrows)
{
	char p[PATH_MAX];
	json_t *run, *x;
	size_t i, k;
	FILE *f;

	snprintf(p, sizeof(p), "%s/iterations.csv", r->out);
	if ((f = fopen(p, "w")) != NULL) {
		fprintf(f, "regime,repetition,iteration,size_bytes,index,time_us,start_ns\n");
		json_array_foreach(runs, i, run)
			json_array_foreach(json_object_get(run, "iterations"), k, x)
				fprintf(f, "%s,%lld,%lld,%lld,%lld,%.3f,%lld\n",
					json_string_value(json_object_get(run, "regime")),
					json_integer_value(json_object_get(run, "repetition")),
					json_integer_value(json_array_get(x, 0)),
					json_integer_value(json_array_get(x, 1)),
					json_integer_value(json_array_get(x, 2)),
					json_real_value(json_array_get(x, 3)),
					json_integer_value(json_array_get(x, 4)));
		fclose(f);
	}
	run_csv(r, runs, "links.csv", "links",
		(const char *const[]){"link", "drops", "drop_tail_pkts", "ecn_marked",
				      "q_bytes_peak", "held_ns", NULL});
	run_csv(r, runs, "tcp.csv", "tcp",
		(const char *const[]){"host", "retrans", "real_retrans", "timeouts", "loss_probes",
				      "ce_received", NULL});
	snprintf(p, sizeof(p), "%s/summary.csv", r->out);
	if ((f = fopen(p, "w")) != NULL) {
		fprintf(f, "regime,size,hop_us,ping_rtt_us,fabric_drops,ecn_marks,p50_ms,p99_ms,"
			   "max_ms,job_s,real_retrans,timeouts,loss_probes,pause_frames,"
			   "stalls,iterations\n");
		for (size_t n = 0; n < nrows; n++)
			fprintf(f,
				"%s,%s,%.3f,%.1f,%lld,%lld,%.3f,%.3f,%.3f,%.3f,%lld,%lld,%lld,%lld,"
				"%lld,%zu\n",
				rows[n].regime, rows[n].size, rows[n].hop_us, rows[n].rtt_us,
				rows[n].drops, rows[n].marks, rows[n].p50, rows[n].p99, rows[n].max,
				rows[n].job_s, rows[n].real_retrans, rows[n].timeouts,
				rows[n].probes, rows[n].pauses, rows[n].stalls, rows[n].n);
		fclose(f);
	}
}

/* Plots with gnuplot (SVG): CDF per size, timeline with fault marks, drops and marks. */
static int
plots(const struct run_ctx *r, json_t *runs)
{
	const struct campaign *c = r->c;
	char p[PATH_MAX], log[PATH_MAX], sz[16];
	json_t *run, *x;
	size_t i, k;
	FILE *f;
	int rc;

	for (unsigned g = 0; g < c->nreg; g++)
		for (unsigned s = 0; s < c->nsizes && c->allreduce; s++) {
			double *v = malloc(sizeof(double) * CG_MAX_ITERS);
			size_t n = 0;

			json_array_foreach(runs, i, run)
			{
				if (strcmp(json_string_value(json_object_get(run, "regime")),
					   c->reg[g].name))
					continue;
				json_array_foreach(
					json_object_get(run, "iterations"), k,
					x) if ((uint64_t)json_integer_value(json_array_get(x, 1)) ==
						       c->sizes[s] / 4 * 4 &&
					       n < CG_MAX_ITERS) v[n++] =
					json_real_value(json_array_get(x, 3)) / 1000;
			}
			qsort(v, n, sizeof(*v), cmp_d);
			snprintf(p, sizeof(p), "%s/plots/cdf-%s-%s.dat", r->out, c->reg[g].name,
				 size_name(c->sizes[s], sz, sizeof(sz)));
			if ((f = fopen(p, "w")) != NULL) {
				for (size_t j = 0; j < n; j++)
					fprintf(f, "%.4f %.5f\n", v[j],
						(double)(j + 1) / (double)n);
				fclose(f);
			}
			free(v);
		}
	/* timeline: iteration number against time, first repetition of each regime */
	for (unsigned g = 0; g < c->nreg && c->allreduce; g++) {
		snprintf(p, sizeof(p), "%s/plots/timeline-%s.dat", r->out, c->reg[g].name);
		if ((f = fopen(p, "w")) == NULL)
			continue;
		json_array_foreach(runs, i, run)
		{
			if (strcmp(json_string_value(json_object_get(run, "regime")),
				   c->reg[g].name) ||
			    json_integer_value(json_object_get(run, "repetition")) != 1)
				continue;
			json_array_foreach(json_object_get(run, "iterations"), k, x)
				fprintf(f, "%lld %.4f\n", json_integer_value(json_array_get(x, 0)),
					json_real_value(json_array_get(x, 3)) / 1000);
		}
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/plots/report.gp", r->out);
	if ((f = fopen(p, "w")) == NULL)
		return -1;
	fprintf(f, "set terminal svg size 900,500 dynamic font 'sans,11'\nset key outside right\n"
		   "set grid\nset datafile separator whitespace\n");
	for (unsigned s = 0; s < c->nsizes && c->allreduce; s++) {
		size_name(c->sizes[s], sz, sizeof(sz));
		fprintf(f,
			"set output '%s/cdf-%s.svg'\nset title 'All-reduce of %s per rank: CDF of "
			"iteration time (slowest rank)'\nset xlabel 'iteration time (ms)'\n"
			"set ylabel 'fraction of iterations'\nset logscale x\nset yrange "
			"[0:1]\nplot ",
			r->out, sz, sz);
		for (unsigned g = 0; g < c->nreg; g++)
			fprintf(f,
				"%s'%s/plots/cdf-%s-%s.dat' using 1:2 with steps lw 2 title '%s'",
				g ? ", " : "", r->out, c->reg[g].name, sz, c->reg[g].name);
		fprintf(f, "\nunset logscale x\nset yrange [*:*]\n");
	}
	if (c->allreduce) {
		fprintf(f,
			"set output '%s/timeline.svg'\nset title 'Iteration time, first repetition "
			"(dashed lines: faults)'\nset xlabel 'iteration'\nset ylabel 'time (ms)'\n"
			"set logscale y\n",
			r->out);
		for (unsigned i2 = 0; i2 < c->nsteps; i2++)
			if (c->steps[i2].at_iter)
				fprintf(f,
					"set arrow from %d, graph 0 to %d, graph 1 nohead dt 2 lc "
					"'red'\nset label '%s' at %d, graph 0.95 rotate by 90 "
					"right "
					"font ',8' tc 'red'\n",
					c->steps[i2].at_iter, c->steps[i2].at_iter,
					c->steps[i2].what, c->steps[i2].at_iter);
		fprintf(f, "plot ");
		for (unsigned g = 0; g < c->nreg; g++)
			fprintf(f,
				"%s'%s/plots/timeline-%s.dat' using 1:2 with linespoints title "
				"'%s'",
				g ? ", " : "", r->out, c->reg[g].name, c->reg[g].name);
		fprintf(f, "\nunset logscale y\nunset arrow\nunset label\n");
	}
	fprintf(f,
		"set output '%s/links.svg'\nset title 'Fabric drops and ECN marks, all links, per "
		"regime'\nset style data histograms\nset style histogram clustered\n"
		"set style fill solid 0.8\nset xlabel ''\nset ylabel 'packets'\nset datafile "
		"separator ','\nset yrange [0:*]\nset xtics rotate by -30\n"
		"plot '%s/summary.csv' every ::1 using 5:xtic(1) title 'drops', '' every ::1 using "
		"6 title 'ECN marks'\n",
		r->out, r->out);
	fclose(f);
	snprintf(log, sizeof(log), "%s/logs/gnuplot.log", r->out);
	rc = sh(log, "gnuplot '%s'", p);
	return rc == 0 ? 0 : -1;
}

static void
html(const struct run_ctx *r, const struct row *rows, size_t nrows, const char *status)
{
	const struct campaign *c = r->c;
	char p[PATH_MAX], sz[16];
	FILE *f;

	snprintf(p, sizeof(p), "%s/report.html", r->out);
	if ((f = fopen(p, "w")) == NULL)
		return;
	fprintf(f,
		"<!doctype html><html><head><meta charset='utf-8'><title>fabemu campaign %s"
		"</title><style>body{font-family:sans-serif;max-width:1000px;margin:auto}"
		"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 6px;"
		"text-align:right}th{background:#eee}td:first-child{text-align:left}</style>"
		"</head><body>\n<h1>Campaign %s</h1>\n<p>%s</p>\n<p>Status: <b>%s</b>. %u hosts, "
		"%s, %u repetition(s), seed %" PRIu64 ". Data: <a href='campaign.json'>"
		"campaign.json</a>, <a href='summary.csv'>summary.csv</a>, "
		"<a href='iterations.csv'>iterations.csv</a>, <a href='links.csv'>links.csv</a>, "
		"<a href='tcp.csv'>tcp.csv</a>.</p>\n",
		c->name, c->name, c->description, status, c->hosts,
		c->allreduce ? "MPI all-reduce" : "command job", c->reps, c->seed);
	fprintf(f,
		"<h2>Summary</h2>\n<table><tr><th>regime</th><th>size</th><th>hop delay (µs, "
		"configured)</th><th>ping RTT h1-h2 (µs)</th><th>fabric drops</th><th>ECN "
		"marks</th><th>p50 (ms)</th><th>p99 (ms)</th><th>max (ms)</th><th>real TCP "
		"retrans.</th><th>TCP timeouts</th><th>stalls (&ge; median + 150 ms)</th></tr>\n");
	for (size_t i = 0; i < nrows; i++)
		fprintf(f,
			"<tr><td>%s</td><td>%s</td><td>%.2f</td><td>%.1f</td><td>%lld</td><td>"
			"%lld</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%lld</td><td>%lld"
			"</td><td>%lld</td></tr>\n",
			rows[i].regime, rows[i].size, rows[i].hop_us, rows[i].rtt_us, rows[i].drops,
			rows[i].marks, rows[i].p50, rows[i].p99, rows[i].max, rows[i].real_retrans,
			rows[i].timeouts, rows[i].stalls);
	fprintf(f, "</table>\n<p>Iteration time is the slowest rank's. Drops, marks and TCP "
		   "counters are per run (summed over repetitions), on the first size's row. "
		   "How to read this page: docs/campaigns.md.</p>\n");
	for (unsigned s = 0; s < c->nsizes && c->allreduce; s++)
		fprintf(f, "<h2>CDF, %s</h2><img src='cdf-%s.svg'>\n",
			size_name(c->sizes[s], sz, sizeof(sz)), sz);
	if (c->allreduce)
		fprintf(f, "<h2>Timeline</h2><img src='timeline.svg'>\n");
	fprintf(f, "<h2>Links</h2><img src='links.svg'>\n<h2>Regimes</h2><ul>\n");
	for (unsigned g = 0; g < c->nreg; g++)
		fprintf(f, "<li>%s: profile %s at scale %u</li>\n", c->reg[g].name,
			c->reg[g].profile_name, c->reg[g].scale);
	fprintf(f, "</ul>\n<h2>Faults</h2><ul>\n");
	for (unsigned i = 0; i < c->nsteps; i++)
		fprintf(f, "<li>%s %d: %s</li>\n", c->steps[i].at_iter ? "iteration" : "ms",
			c->steps[i].at_iter ? c->steps[i].at_iter
					    : (int)(c->steps[i].at_ns / 1000000),
			c->steps[i].what);
	fprintf(f, "</ul></body></html>\n");
	fclose(f);
}

static json_t *
inputs(const struct run_ctx *r)
{
	const struct campaign *c = r->c;
	json_t *regs = json_array(), *in;
	struct utsname u;
	char v[256] = "?";
	FILE *f = popen("mpirun --version 2>/dev/null | head -1", "r");

	if (f && fgets(v, sizeof(v), f))
		v[strcspn(v, "\n")] = '\0';
	if (f)
		pclose(f);
	uname(&u);
	for (unsigned g = 0; g < c->nreg; g++) {
		struct fe_profile *p = malloc(sizeof(*p));
		struct fe_linkdef up[16], down[16];
		struct fe_fabric fab;
		json_t *links = json_array();
		char err[512], line[1024];

		if (p && fe_profile_load(c->reg[g].profile, p, err, sizeof(err)) == 0 &&
		    fe_profile_expand(p, c->reg[g].scale, c->hosts, up, down, &fab, err,
				      sizeof(err)) == 0) {
			for (unsigned i = 0; i < c->reg[g].nlinks; i++)
				fe_linkspec_apply(c->reg[g].links[i], up, down, c->hosts, err,
						  sizeof(err));
			for (unsigned n = 0; n < 2 * c->hosts; n++) {
				char name[16];

				snprintf(name, sizeof(name), "%u.%s", n / 2, n % 2 ? "down" : "up");
				json_array_append_new(
					links, json_pack("{s:s, s:s}", "link", name, "compiled",
							 fe_profile_fmt_link(n % 2 ? &down[n / 2]
										   : &up[n / 2],
									     line, sizeof(line))));
			}
		}
		free(p);
		json_array_append_new(
			regs, json_pack("{s:s, s:s, s:s, s:i, s:s, s:o}", "name", c->reg[g].name,
					"profile", c->reg[g].profile_name, "profile_file",
					c->reg[g].profile, "scale", c->reg[g].scale, "regime",
					fe_regime_name(c->reg[g].fabric.regime), "links", links));
	}
	in = json_pack("{s:s, s:s, s:s, s:I, s:i, s:o, s:{s:s, s:s, s:s}}", "file", c->source,
		       "text", c->text, "name", c->name, "seed", (json_int_t)c->seed, "hosts",
		       c->hosts, "regimes", regs, "versions", "fabemu", "0.3.0", "kernel",
		       u.release, "mpi", v);
	return in;
}

static int
finish(struct run_ctx *r, json_t *runs, int status)
{
	static const char *const names[] = {
		[CG_OK] = "complete",
		[CG_SETUP] = "setup failed",
		[CG_DP_DIED] = "dataplane died",
		[CG_JOB_FAILED] = "job failed",
	};
	const char *st = status == CG_INTERRUPTED      ? "interrupted (partial results)"
			 : status < 6 && names[status] ? names[status]
						       : "failed";
	struct row *rows = calloc(CG_MAX_REGIMES * CG_MAX_SIZES, sizeof(*rows));
	size_t nrows = 0;
	char p[PATH_MAX];

	if (rows == NULL)
		return status;
	summarize(r->c, runs, rows, &nrows);
	json_object_set_new(r->results, "status", json_string(st));
	json_object_set_new(r->results, "runs", json_incref(runs));
	snprintf(p, sizeof(p), "%s/campaign.json", r->out);
	json_dump_file(r->results, p, JSON_INDENT(1));
	write_csvs(r, runs, rows, nrows);
	if (plots(r, runs) < 0)
		say("  (gnuplot failed: see %s/logs/gnuplot.log; the data is complete)\n", r->out);
	html(r, rows, nrows, st);
	say("\ncampaign %s: %s\n", r->c->name, st);
	print_summary(stdout, rows, nrows, r->c->allreduce);
	say("hop us: configured one-way delay of one link plus a 1500-byte frame at its rate; "
	    "ping: h1-h2 RTT before the job;\ndrops, marks, pauses (fabric) and retrans (real: "
	    "D-SACKed ones excluded), RTOs, probes (TCP, all hosts) are per run, on a regime's "
	    "first row;\nstalls: iterations %.0f ms or more above the median (an RTO-sized "
	    "stall). results: %s/report.html\n",
	    CG_STALL_MS, r->out);
	free(rows);
	return status;
}

static int
campaign_run(const char *file, const char *outdir, const char *testbed, unsigned iters)
{
	struct campaign *c = calloc(1, sizeof(*c));
	struct run_ctx *r = calloc(1, sizeof(*r));
	struct sigaction sa = {.sa_handler = on_signal};
	char err[2048], stamp[32], *slash;
	json_t *runs = json_array();
	int status = CG_OK;
	ssize_t n;
	time_t t = time(NULL);

	if (c == NULL || r == NULL)
		return CG_SETUP;
	if (campaign_load(file, c, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return CG_BAD_FILE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "fabemuctl campaign run: must run as root (it builds hosts)\n");
		return CG_USAGE;
	}
	r->c = c;
	r->iters_override = iters;
	n = readlink("/proc/self/exe", r->self, sizeof(r->self) - 1);
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
		snprintf(r->out, sizeof(r->out), "results/%s-%s", c->name, stamp);
	snprintf(err, sizeof(err), "mkdir -p '%s/logs' '%s/plots'", r->out, r->out);
	if (system(err) != 0 || realpath(r->out, err) == NULL) {
		fprintf(stderr, "fabemuctl campaign run: cannot create %s\n", r->out);
		return CG_SETUP;
	}
	snprintf(r->out, sizeof(r->out), "%s", err);
	r->own_testbed = testbed == NULL;
	snprintf(r->testbed, sizeof(r->testbed), "%s", testbed ? testbed : "fc");
	if (r->own_testbed)
		snprintf(r->testbed, sizeof(r->testbed), "fc%u", (unsigned)getpid() % 10000);
	snprintf(r->prefix, sizeof(r->prefix), "fe-campaign-%u", (unsigned)getpid());
	snprintf(r->sock, sizeof(r->sock), "/run/fabemu/campaign-%u.sock", (unsigned)getpid());
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	r->results = json_pack("{s:o}", "inputs", inputs(r));
	say("campaign %s: %u regime(s) x %u repetition(s), %u hosts; results in %s\n", c->name,
	    c->nreg, c->reps, c->hosts, r->out);
	if (testbed_up(r) < 0) {
		say("  the testbed did not come up (log: %s/logs/testbed.log)\n", r->out);
		status = CG_SETUP;
	}
	for (unsigned g = 0; g < c->nreg && status == CG_OK; g++)
		for (unsigned rep = 0; rep < c->reps && status == CG_OK; rep++) {
			json_t *run = one_run(r, &c->reg[g], rep, &status);

			if (run)
				json_array_append_new(runs, run);
			if (interrupted)
				status = CG_INTERRUPTED;
		}
	stop_beside(r);
	stop_group(&r->job, SIGTERM, 5000);
	dp_stop(r, NULL);
	testbed_down(r);
	status = finish(r, runs, status);
	json_decref(runs);
	json_decref(r->results);
	free(c->text);
	free(c);
	free(r);
	return status;
}

int
fe_campaign_main(int argc, char **argv)
{
	static const struct option lo[] = {{"out", required_argument, NULL, 'o'},
					   {"testbed", required_argument, NULL, 't'},
					   {"iterations", required_argument, NULL, 'i'},
					   {NULL, 0, NULL, 0}};
	const char *out = NULL, *testbed = NULL;
	unsigned long iters = 0;
	int ch;

	if (argc >= 3 && strcmp(argv[1], "check") == 0) {
		struct campaign *c = calloc(1, sizeof(*c));
		char err[2048];
		int rc = 0;

		for (int i = 2; i < argc && c; i++) {
			if (campaign_load(argv[i], c, err, sizeof(err)) < 0) {
				fprintf(stderr, "%s\n", err);
				rc = CG_BAD_FILE;
			} else {
				printf("%s: ok (%s: %u regimes, %u fault steps)\n", argv[i],
				       c->name, c->nreg, c->nsteps);
			}
			free(c->text);
		}
		free(c);
		return rc;
	}
	if (argc < 3 || strcmp(argv[1], "run") != 0) {
		fprintf(stderr, "fabemuctl: campaign check FILE... | campaign run FILE [--out DIR] "
				"[--testbed NAME] [--iterations N]\n");
		return CG_USAGE;
	}
	optind = 0;
	while ((ch = getopt_long(argc - 1, argv + 1, "", lo, NULL)) != -1) {
		if (ch == 'o')
			out = optarg;
		else if (ch == 't')
			testbed = optarg;
		else if (ch == 'i' && (iters = strtoul(optarg, NULL, 10)) >= 1 &&
			 iters <= CG_MAX_ITERS)
			continue;
		else
			return CG_USAGE;
	}
	if (optind != argc - 2) {
		fprintf(stderr, "fabemuctl: campaign run needs one campaign file\n");
		return CG_USAGE;
	}
	return campaign_run(argv[optind + 1], out, testbed, (unsigned)iters);
}
