/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemuctl campaign list|check|show|run|summary, and testbed clean: the command lines; the stages
 * live in control/campaign/.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "campaign/cg.h"
#include "fe_campaign.h"
#include "fe_help.h"
#include "fe_linkspec.h"
#include "fe_profile.h"
#include "fe_units.h"

#define RUN_ARGS "FILE|NAME [--out DIR] [--testbed NAME] [--iterations N]"

/*
 * The campaign commands: their operands (FILE|NAME), as many as min to max, and what each
 * does. The one source of their help: fabemuctl campaign --help (usage()) and the
 * campaign section of fabemuctl --help (fe_campaign_help()) are both printed from it, and
 * from the two paragraphs below. help: lines of at most 50 characters (fabemuctl --help
 * prints them from column 30).
 */
static const struct fe_help_cmd subs[] = {
	{"list", "", "the shipped campaigns and their descriptions"},
	{"check", " FILE|NAME...", "validate campaigns and the profiles they name"},
	{"show", " FILE|NAME",
	 "the campaign as it would run: job, regimes and\n"
	 "their links, timeline"},
	{"run", " " RUN_ARGS,
	 "run its job under each regime, with the timeline's\n"
	 "faults except in the baselines (the first wire\n"
	 "regime, the first with an ideal fabric: they run\n"
	 "without them); results and report in DIR (root);\n"
	 "a suite (scenes:): each scene into DIR/SCENE,\n"
	 "then their answers (DIR/answers.csv)"},
	{"summary", " DIR",
	 "the summary of a run's results (DIR/campaign.json)\n"
	 "printed again by this build; a suite's, each\n"
	 "scene's"},
	{"agree", " DIR DIR",
	 "two runs' results compared: rows whose p50\n"
	 "intervals overlap, comparison words that held\n"
	 "(exit 0 when all do, 9 when not)"},
};
#define NSUBS (sizeof(subs) / sizeof(subs[0]))
enum { SUB_LIST, SUB_CHECK, SUB_SHOW, SUB_RUN, SUB_SUMMARY, SUB_AGREE };
/* each command's operands, in subs[]'s order */
static const struct {
	const char *need;
	int min, max;
} operands[NSUBS] = {
	[SUB_LIST] = {"takes no operand", 0, 0},
	[SUB_CHECK] = {"needs at least one campaign file or name", 1, 1 << 20},
	[SUB_SHOW] = {"needs exactly one campaign file or name", 1, 1},
	[SUB_RUN] = {"needs exactly one campaign file or name", 1, 1},
	[SUB_SUMMARY] = {"needs exactly one results directory", 1, 1},
	[SUB_AGREE] = {"needs exactly two results directories", 2, 2},
};

static const char operand_help[] =
	"FILE|NAME: a file that exists is taken as given (with or without .yaml); else\n"
	"a shipped campaign, testbeds/campaigns/NAME.yaml (docs/campaigns.md)";
/* enum cg_exit */
static const char exit_help[] =
	"Exit status: 0 done (run: complete), 1 bad campaign file, 2 usage; run also\n"
	"3 setup failed, 4 the dataplane died, 5 the job failed, 6 results incomplete\n"
	"(a file not written), 7 complete but a fault step's command failed, 8 no\n"
	"faithful scale (scale: auto: calibration refused before the regimes), 130\n"
	"interrupted; agree 9 when a row or a word of the two runs disagrees";

/* fabemuctl campaign --help: the commands' usage, then what each does. */
static void
usage(FILE *f)
{
	fe_help_usage(f, "campaign", subs, NSUBS);
	fe_help_lines(f, operand_help, 0, 0);
	fe_help_lines(f, exit_help, 0, 0);
}

void
fe_campaign_help(FILE *f)
{
	fe_help_section(f, "campaign", subs, NSUBS);
	fe_help_lines(f,
		      "remove what killed campaign runners left behind:\n"
		      "processes, hosts, bridge, socket, DPDK files",
		      30, fprintf(f, "  testbed clean"));
	fe_help_lines(f, operand_help, 2, 0);
	fe_help_lines(f, exit_help, 2, 0);
}

/* 1 if s cannot name a scene's directory (DIR/NAME): letters, digits, '-', '_' and '.'
 * only, not starting with '.'. */
static int
scene_name_bad(const char *s)
{
	return s[0] == '.' || cg_name_bad(s, CG_NAME_LEN);
}

/*
 * A suite's scenes (c->nscenes): each a campaign that loads, no suite itself, its name
 * fit for its directory (DIR/NAME) and no other scene's; their names into names[] (if
 * not NULL). 0, or -1 with each bad one said.
 */
static int
scenes_check(const struct cg_campaign *c, char (*names)[CG_NAME_LEN])
{
	char seen[CG_MAX_SCENES][CG_NAME_LEN];
	struct cg_campaign *s = calloc(1, sizeof(*s));
	char err[2048];
	int rc = 0;

	if (s == NULL)
		return -1;
	for (unsigned i = 0; i < c->nscenes; i++) {
		seen[i][0] = '\0';
		if (cg_load(c->scene[i], s, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s: scenes.%u: %s\n", c->source, i, err);
			rc = -1;
		} else if (s->nscenes) {
			fprintf(stderr,
				"%s: scenes.%u: %s is a suite itself (a scene is a campaign)\n",
				c->source, i, s->source);
			rc = -1;
		} else if (scene_name_bad(s->name)) {
			fprintf(stderr,
				"%s: scenes.%u: %s: its name '%s' names the scene's directory "
				"(allowed: letters, digits, '-', '_' and '.', not first)\n",
				c->source, i, s->source, s->name);
			rc = -1;
		} else {
			snprintf(seen[i], sizeof(seen[i]), "%s", s->name);
			for (unsigned k = 0; k < i; k++)
				if (strcmp(seen[k], seen[i]) == 0) {
					fprintf(stderr,
						"%s: scenes.%u: %s: campaign %s is scenes.%u's too "
						"(each scene runs into DIR/NAME)\n",
						c->source, i, s->source, s->name, k);
					rc = -1;
				}
			if (names)
				snprintf(names[i], CG_NAME_LEN, "%s", s->name);
		}
		free(s->text);
	}
	free(s);
	return rc;
}

static int
check(int argc, char **argv)
{
	struct cg_campaign *c = calloc(1, sizeof(*c));
	char err[2048], what[128];
	int rc = 0;

	if (c == NULL)
		return CG_SETUP;
	for (int i = 0; i < argc; i++) {
		if (cg_load(argv[i], c, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			rc = CG_BAD_FILE;
		} else if (c->nscenes && scenes_check(c, NULL) < 0) {
			rc = CG_BAD_FILE;
		} else {
			printf("%s: ok (%s: %s)\n", argv[i], c->name,
			       cg_describe(c, what, sizeof(what)));
		}
		free(c->text);
	}
	free(c);
	return rc;
}

/* The shipped campaigns, one a line: name, description, file (as profile list). */
static int
list(void)
{
	char(*names)[CG_NAME_LEN] = calloc(256, sizeof(*names));
	char dir[PATH_MAX - 64], err[2048];
	struct cg_campaign *c = calloc(1, sizeof(*c));
	int n, rc = 0;

	if (names == NULL || c == NULL) {
		free(names);
		free(c);
		return CG_SETUP;
	}
	n = cg_shipped(names, 256);
	if (n < 0) {
		fprintf(stderr, "fabemuctl campaign list: %s: %s\n",
			cg_shipped_dir(dir, sizeof(dir)), strerror(-n));
		rc = CG_BAD_FILE;
	}
	cg_shipped_dir(dir, sizeof(dir));
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];

		/* by its path in the shipped directory: a file of that name here is not it */
		snprintf(path, sizeof(path), "%s/%s.yaml", dir, names[i]);
		if (cg_load(path, c, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			rc = CG_BAD_FILE;
		} else {
			printf("%-22s %s (%s)\n", names[i], c->description, c->source);
		}
		free(c->text);
	}
	free(names);
	free(c);
	return rc;
}

static void
show_edge(const char *what, const struct cg_edge *e)
{
	printf("%s %s, ring %" PRIu32 ", mtu %" PRIu32 "%s%s\n", what, e->pmd, e->ring, e->mtu,
	       e->dpargs[0] ? ", dataplane " : "", e->dpargs);
}

/*
 * A regime's ports, as cg_load() compiled them for its dataplane (profile show's lines),
 * then its links between switches, as its dataplane will run them (fabemuctl links').
 */
static void
show_links(const struct cg_campaign *c, const struct cg_regime *g)
{
	struct fe_linkdef *def = calloc(2 * FE_TOPO_LINKS, sizeof(*def));
	char(*dir)[80] = calloc(2 * FE_TOPO_LINKS, sizeof(*dir)), line[1024], err[600];
	int n;

	for (unsigned i = 0; i < c->hosts; i++) { /* each port's up link, then its down */
		printf("  %u.%-5s %s\n", i, "up",
		       fe_profile_fmt_link(&g->up[i], line, sizeof(line)));
		printf("  %u.%-5s %s\n", i, "down",
		       fe_profile_fmt_link(&g->down[i], line, sizeof(line)));
	}
	n = def && dir ? cg_regime_hops(c, g, def, dir, err, sizeof(err)) : -1;
	if (n < 0)
		printf("  links between switches: %s\n", def && dir ? err : "out of memory");
	for (int i = 0; i < n; i++)
		printf("  %-7s %s\n", dir[i], fe_profile_fmt_link(&def[i], line, sizeof(line)));
	free(def);
	free(dir);
}

/* What the projection will fit and project (cg_scale.c): set in the file, or the default. */
static void
show_projection(const struct cg_campaign *c)
{
	const struct cg_projection_cfg *p = &c->proj;

	if (!cg_projects(c))
		return;
	printf("projection to ");
	if (p->nranks == 0)
		printf("8, 64, 512, 1024, 4096, 16384");
	for (unsigned i = 0; i < p->nranks; i++)
		printf("%s%u", i ? ", " : "", p->ranks[i]);
	printf(" ranks");
	if (p->compute_ms > 0)
		printf(", %g ms of compute a step", p->compute_ms);
	if (p->nseries == 0)
		printf(", each regime but the baselines fitted to itself");
	printf("\n");
	for (unsigned k = 0; k < p->nseries; k++) {
		printf("  series %s: fitted to", p->series[k].name);
		for (unsigned i = 0; i < p->series[k].nfit; i++)
			printf("%s %s", i ? "," : "", c->reg[p->series[k].fit[i]].name);
		for (unsigned i = 0; i < p->series[k].ncheck; i++)
			printf("%s %s", i ? "," : "; checked against",
			       c->reg[p->series[k].check[i]].name);
		printf("\n");
	}
}

#define BASELINE_MARK " (baseline: runs without the timeline's faults)"

static void
show_regime(const struct cg_campaign *c, const struct cg_regime *g)
{
	char t[64], r[64];

	if (g->kind == CG_WIRE) {
		printf("regime %s: the wire (the hosts joined by a Linux bridge, no fabemu)%s\n",
		       g->name, cg_baseline(g) ? BASELINE_MARK : "");
		if (g->ranks)
			printf("  ranks %u (hosts 1..%u)\n", g->ranks, g->ranks);
		return;
	}
	printf("regime %s: profile %s (%s), scale %" PRIu32 ", regime %s%s%s\n", g->name,
	       g->profile_name, g->profile, g->scale, fe_regime_name(g->fabric.regime),
	       g->ideal ? ", ideal fabric" : "", cg_baseline(g) ? BASELINE_MARK : "");
	printf("  hop %s, offered %s\n", fe_fmt_time(g->hop_ns, t, sizeof(t)),
	       g->offered_bps ? fe_fmt_rate(g->offered_bps, r, sizeof(r)) : "unbounded");
	if (g->topology[0])
		printf("  topology %s (%s), path %s%s\n", g->topology_name, g->topology,
		       fe_path_name(g->path), g->split ? ", split across boxes" : "");
	if (g->scale_auto) {
		printf("  scale auto: chosen before the regimes (calibration), at least %" PRIu32,
		       g->scale_min ? g->scale_min : 1);
		if (g->scale_max)
			printf(", at most %" PRIu32, g->scale_max);
		printf("; shown at %" PRIu32 "\n", g->scale);
	}
	if (g->ranks)
		printf("  ranks %u (hosts 1..%u)\n", g->ranks, g->ranks);
	if (g->alike)
		printf("  alike of %s: its flow control and NICs over the alike-links\n",
		       c->reg[g->alike_of].name);
	if (g->nic[0])
		printf("  nic %s\n", g->nic);
	for (unsigned i = 0; i < g->nlinks; i++)
		printf("  links %s%s\n", g->links[i], i < g->nalike ? " (alike-links)" : "");
	if (memcmp(&g->edge, &c->edge, sizeof(g->edge)) != 0)
		show_edge("  edge", &g->edge);
	show_links(c, g);
}

/* A step's command as regime g's run would run it (cg_step_command()), as typed. */
static void
step_command(const struct cg_campaign *c, const struct cg_regime *g, const struct cg_step *s,
	     char *out, size_t len)
{
	static const char self[] = "'fabemuctl' -s @ ";
	struct cg_run *r = calloc(1, sizeof(*r));
	char *cmd = malloc(CG_STEP_CMD), err[600];
	size_t o = 0;

	out[0] = '\0';
	if (r == NULL || cmd == NULL) {
		snprintf(out, len, "(out of memory)");
		goto out;
	}
	r->c = c;
	snprintf(r->self, sizeof(r->self), "fabemuctl");
	snprintf(r->sock, sizeof(r->sock), "@");
	if (cg_step_command(r, g, s, cmd, CG_STEP_CMD, err, sizeof(err)) < 0) {
		snprintf(out, len, "(%s)", err);
		goto out;
	}
	/* the runner's own path and socket, as typed: "fabemuctl" */
	for (const char *p = cmd; *p && o + 1 < len;) {
		const char *at = strstr(p, self);
		size_t k = at ? (size_t)(at - p) : strlen(p);

		o += (size_t)snprintf(out + o, len - o, "%.*s%s", (int)k, p,
				      at ? "fabemuctl " : "");
		if (at == NULL)
			break;
		p = at + strlen(self);
	}
out:
	free(cmd);
	free(r);
}

/*
 * An end step: the link back to each regime's profile and its links: entries for it; one
 * command if every regime that runs it runs the same, else one a regime.
 */
static void
show_end(const struct cg_campaign *c, const struct cg_step *s)
{
	char *first = malloc(CG_STEP_CMD), *cmd = malloc(CG_STEP_CMD);
	int same = 1, n = 0;

	if (first == NULL || cmd == NULL) {
		printf(": end: %s (%s): (out of memory)\n", s->what, s->src);
		goto out;
	}
	for (unsigned g = 0; g < c->nreg; g++) {
		if (cg_baseline(&c->reg[g]) || c->reg[g].kind != CG_DATAPLANE)
			continue;
		step_command(c, &c->reg[g], s, n ? cmd : first, CG_STEP_CMD);
		same &= n == 0 || strcmp(cmd, first) == 0;
		n++;
	}
	if (n == 0)
		printf(": end: %s (%s): run in no regime\n", s->what, s->src);
	else if (same)
		printf(": end: %s (%s): %s\n", s->what, s->src, first);
	else
		printf(": end: %s (%s), per regime:\n", s->what, s->src);
	for (unsigned g = 0; g < c->nreg && n && !same; g++) {
		if (cg_baseline(&c->reg[g]) || c->reg[g].kind != CG_DATAPLANE)
			continue;
		step_command(c, &c->reg[g], s, cmd, CG_STEP_CMD);
		printf("    regime %s: %s\n", c->reg[g].name, cmd);
	}
out:
	free(first);
	free(cmd);
}

static int show(const char *name);

/* campaign show of a suite: its scenes, then each shown as a campaign. */
static int
show_suite(const struct cg_campaign *c)
{
	int rc = 0;

	printf("suite %s (%s)\n", c->name, c->source);
	if (c->description[0])
		printf("description %s\n", c->description);
	for (unsigned i = 0; i < c->nscenes; i++)
		printf("scene %u %s\n", i + 1, c->scene[i]);
	if (scenes_check(c, NULL) < 0)
		return CG_BAD_FILE;
	for (unsigned i = 0; i < c->nscenes && rc == 0; i++) {
		printf("\n");
		rc = show(c->scene[i]);
	}
	return rc;
}

/* campaign show: the compiled campaign, in the order of its file. */
static int
show(const char *name)
{
	struct cg_campaign *c = calloc(1, sizeof(*c));
	char err[2048], b[64];
	int rc = 0;

	if (c == NULL)
		return CG_SETUP;
	if (cg_load(name, c, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		free(c->text);
		free(c);
		return CG_BAD_FILE;
	}
	if (c->nscenes) {
		rc = show_suite(c);
		free(c->text);
		free(c);
		return rc;
	}
	printf("campaign %s (%s)\n", c->name, c->source);
	if (c->description[0])
		printf("description %s\n", c->description);
	printf("hosts %u\nrepetitions %u\nseed %" PRIu64 "\n", c->hosts, c->reps, c->seed);
	/* existing hosts: each one's prefix, address, interface and port */
	for (unsigned h = 1; c->tb == CG_TB_HOSTS && h <= c->hosts; h++)
		printf("host %u %s: prefix '%s'%s, %s on %s, port %s%s\n", h, c->host[h].name,
		       c->host[h].prefix, c->host[h].shell ? " (a shell's: quoted again)" : "",
		       c->host[h].addr, c->host[h].ifname, c->host[h].port,
		       c->host[h].pci ? " (PCI)" : "");
	if (c->allreduce) {
		printf("job %s, sizes", c->torch ? "torch" : c->perm ? "permutation" : "allreduce");
		for (unsigned i = 0; i < c->nsizes; i++)
			printf(" %s", cg_size_name(c->sizes[i], b, sizeof(b)));
		printf(", iterations %u, warmup %u\n", c->iters, c->warmup);
	} else {
		printf("job command '%s'\n", c->command);
	}
	for (unsigned i = 0; i < c->nbeside; i++)
		printf("beside host %u: %s\n", c->beside[i].host, c->beside[i].command);
	show_edge("edge", &c->edge);
	printf("fidelity lateness %g of a hop, load %g of the capacity, capacity ", c->fid.late,
	       c->fid.load);
	if (c->fid.capacity)
		printf("measured for %s\n", fe_fmt_time(c->fid.cap_ns, b, sizeof(b)));
	else
		printf("not measured\n");
	if (c->alike.set) /* the links of the alike regimes, as their dataplanes take them */
		printf("alike-links profile %s (%s), scale %" PRIu32 ": %s, %s (and %s, %s in a "
		       "regime that tail-drops), mtu %" PRIu32 "\n",
		       c->alike.profile_name, c->alike.profile, c->alike.scale, c->alike.up[0],
		       c->alike.down[0], c->alike.up[1], c->alike.down[1], c->edge.mtu);
	/* what the summary's last lines will answer */
	for (unsigned k = 0; k < c->nquestions; k++)
		printf("question %s against %s\n", c->reg[c->question[k].a].name,
		       c->reg[c->question[k].b].name);
	show_projection(c);
	for (unsigned g = 0; g < c->nreg; g++)
		show_regime(c, &c->reg[g]);
	printf("timeline%s\n", c->nsteps ? "" : " (none)");
	for (unsigned i = 0; i < c->nsteps; i++) {
		const struct cg_step *s = &c->steps[i];

		/* when, as the results, the summary and the report say it: "iteration 15",
		 * "1.5 s" */
		cg_step_at(s, b, sizeof(b));
		printf("  %s", b);
		if (s->revert)
			show_end(c, s);
		else
			printf(": %s (%s): fabemuctl %s\n", s->what, s->src, s->args);
	}
	free(c->text);
	free(c);
	return rc;
}

/*
 * fabemuctl testbed clean: what campaign runners that are gone left (their record in
 * /run/fabemu/campaign-PID.run names it): their processes, their testbed (or, lent, its
 * bridge and MTU), control socket, DPDK runtime directory. A live runner's is left alone.
 * Exit status: 0 (nothing left of a dead runner), 1 (a record that could not be read),
 * 2 usage.
 */
static int
testbed_clean(int argc, char **argv)
{
	int n;

	if (argc != 2 || strcmp(argv[1], "clean") != 0) {
		fprintf(stderr, "fabemuctl: testbed clean (see --help)\n");
		return CG_USAGE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "fabemuctl testbed clean: must run as root\n");
		return CG_USAGE;
	}
	n = cg_clean_dead(1);
	if (n == 0)
		printf("nothing left by a campaign runner that is gone\n");
	else if (n > 0)
		printf("removed what %d campaign runner(s) that are gone left\n", n);
	return n < 0 ? 1 : 0;
}

/* A bad option or argument of "campaign SUB": what was wrong is said before this. */
static int
usage_hint(unsigned sub)
{
	fe_help_hint(stderr, "campaign", &subs[sub]);
	return CG_USAGE;
}

/* A run's campaign.json, or NULL (said why); rows: it must hold the summary's rows (a
 * finished run), else only the campaign as it ran (inputs.text). */
static json_t *
results(const char *cmd, const char *dir, int rows)
{
	char path[PATH_MAX];
	json_error_t je;
	json_t *doc;

	snprintf(path, sizeof(path), "%s/campaign.json", dir);
	if ((doc = json_load_file(path, 0, &je)) == NULL) {
		fprintf(stderr, "fabemuctl campaign %s: %s: %s\n", cmd, path, je.text);
		return NULL;
	}
	if (rows && !json_is_array(json_object_get(json_object_get(doc, "summary"), "rows")))
		fprintf(stderr, "fabemuctl campaign %s: %s: no summary.rows (not a finished run)\n",
			cmd, path);
	else if (!rows && !json_is_string(json_object_get(json_object_get(doc, "inputs"), "text")))
		fprintf(stderr, "fabemuctl campaign %s: %s: no inputs.text (the campaign)\n", cmd,
			path);
	else
		return doc;
	json_decref(doc);
	return NULL;
}

/*
 * fabemuctl campaign agree A B: do two runs of one campaign agree (cg_agree.c)? 0: every
 * row's p50 intervals overlap and every word held; CG_DISAGREE: not; CG_BAD_FILE: a
 * results directory unreadable, or runs of two different campaigns.
 */
static int
agree(const char *a, const char *b)
{
	json_t *da = results("agree", a, 1), *db = da ? results("agree", b, 1) : NULL;
	const char *na, *nb;
	struct cg_agreement g;
	int rc = CG_BAD_FILE;

	if (da == NULL || db == NULL)
		goto out;
	na = json_string_value(json_object_get(json_object_get(da, "inputs"), "name")) ?: "?";
	nb = json_string_value(json_object_get(json_object_get(db, "inputs"), "name")) ?: "?";
	if (strcmp(na, nb) != 0) {
		fprintf(stderr, "fabemuctl campaign agree: %s is a run of campaign %s, %s of %s\n",
			a, na, b, nb);
		goto out;
	}
	printf("campaign %s: %s, then %s\n", na, a, b);
	cg_agree(stdout, da, db, &g);
	rc = g.rows_agree == g.rows && g.words_held == g.words && g.rows > 0 ? 0 : CG_DISAGREE;
out:
	json_decref(da);
	json_decref(db);
	return rc;
}

/*
 * The terminal's summary of a campaign's run, printed again from DIR/campaign.json by
 * this build's code: the campaign as it ran (inputs.text, loaded again), its runs[] and
 * its capacity. What docs/samples.sh makes the docs' samples from.
 */
static int
campaign_summary(const char *dir)
{
	char tmp[] = "/tmp/fabemu-summaryXXXXXX", file[sizeof(tmp) + 16];
	char err[2048];
	struct cg_campaign *c = calloc(1, sizeof(*c));
	struct cg_row *rows = calloc(CG_MAX_REGIMES * CG_MAX_SIZES, sizeof(*rows));
	json_t *doc = NULL;
	const char *text;
	int rc = CG_BAD_FILE;
	FILE *f;

	if (c == NULL || rows == NULL || (doc = results("summary", dir, 0)) == NULL)
		goto out;
	text = json_string_value(json_object_get(json_object_get(doc, "inputs"), "text"));
	if (mkdtemp(tmp) == NULL) {
		fprintf(stderr, "fabemuctl campaign summary: %s: %s\n", tmp, strerror(errno));
		goto out;
	}
	snprintf(file, sizeof(file), "%s/campaign.yaml", tmp);
	if ((f = fopen(file, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "fabemuctl campaign summary: %s: %s\n", file, strerror(errno));
	} else if (cg_load(file, c, err, sizeof(err)) < 0) {
		fprintf(stderr,
			"fabemuctl campaign summary: the campaign of %s/campaign.json: %s\n", dir,
			err);
	} else {
		size_t n = cg_summarize(c, json_object_get(doc, "runs"), rows);

		printf("campaign %s: %s\n", c->name,
		       json_string_value(json_object_get(doc, "status")) ?: "?");
		cg_print_summary(stdout, c, json_object_get(doc, "capacity"), rows, n);
		rc = 0;
	}
	free(c->text);
	unlink(file);
	rmdir(tmp);
out:
	json_decref(doc);
	free(c);
	free(rows);
	return rc;
}

/* The summary of a suite's run (DIR/suite.json, doc): each scene's, from DIR/SCENE. */
static int
suite_summary(const char *dir, json_t *doc)
{
	json_t *scenes = json_object_get(doc, "scenes"), *sc;
	int rc = 0;
	size_t i;

	printf("suite %s: %zu scene(s)\n", json_string_value(json_object_get(doc, "suite")) ?: "?",
	       json_array_size(scenes));
	json_array_foreach(scenes, i, sc)
	{
		const char *name = json_string_value(json_object_get(sc, "scene"));
		char path[PATH_MAX];

		printf("\n");
		if (name == NULL || scene_name_bad(name)) {
			fprintf(stderr,
				"fabemuctl campaign summary: %s/suite.json: scenes[%zu]: no "
				"scene name\n",
				dir, i);
			rc = CG_BAD_FILE;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (campaign_summary(path) != 0)
			rc = CG_BAD_FILE;
	}
	return rc;
}

/* fabemuctl campaign summary DIR: a campaign's run, or a suite's (each scene's). */
static int
summary(const char *dir)
{
	char path[PATH_MAX];
	json_t *doc;
	int rc;

	snprintf(path, sizeof(path), "%s/suite.json", dir);
	if ((doc = json_load_file(path, 0, NULL)) == NULL)
		return campaign_summary(dir);
	rc = suite_summary(dir, doc);
	json_decref(doc);
	return rc;
}

/* A comparison's figure (a question's) into f after a comma; nothing where none. */
static void
csv_figure(FILE *f, json_t *v)
{
	cg_csv_num(f, json_is_number(v) ? json_number_value(v) : NAN, 4);
}

/* A text field into f after a comma (cg_csv_str()). */
static void
csv_text(FILE *f, const char *t)
{
	fputc(',', f);
	cg_csv_str(f, t ?: "");
}

/*
 * What the scenes that ran (names[0..n - 1], each in DIR/NAME) answered: their questions'
 * answers printed, a scene's after its name, and written to DIR/answers.csv (scene,
 * regime, against, size, ratio, ratio_lo, ratio_hi, word, answer). 0, or -1 if the file
 * could not be written.
 */
static int
suite_answers(const struct cg_campaign *c, const char *out, char (*names)[CG_NAME_LEN], unsigned n)
{
	char path[PATH_MAX], csv[PATH_MAX];
	FILE *f;

	snprintf(csv, sizeof(csv), "%s/answers.csv", out);
	f = cg_out_open(NULL, csv);
	if (f)
		fputs("scene,regime,against,size,ratio,ratio_lo,ratio_hi,word,answer\n", f);
	printf("\nsuite %s: the questions' answers, scene by scene (each scene's summary and "
	       "report in its directory)\n",
	       c->name);
	for (unsigned i = 0; i < n; i++) {
		json_t *doc, *qs, *q;
		size_t k;

		snprintf(path, sizeof(path), "%s/%s", out, names[i]);
		if ((doc = results("run", path, 1)) == NULL) {
			printf("  %-14s no results (%s)\n", names[i], path);
			continue;
		}
		qs = json_object_get(json_object_get(doc, "summary"), "questions");
		if (json_array_size(qs) == 0)
			printf("  %-14s no question asked\n", names[i]);
		json_array_foreach(qs, k, q)
		{
			json_t *x = json_object_get(q, "comparison"),
			       *ci = json_object_get(x, "ci");
			const char *answer = json_string_value(json_object_get(q, "answer")) ?: "";

			printf("  %-14s %s\n", names[i], answer);
			if (f == NULL)
				continue;
			cg_csv_str(f, names[i]);
			csv_text(f, json_string_value(json_object_get(q, "regime")));
			csv_text(f, json_string_value(json_object_get(q, "against")));
			csv_text(f, json_string_value(json_object_get(q, "size")));
			csv_figure(f, json_object_get(x, "ratio"));
			csv_figure(f, json_array_get(ci, 0));
			csv_figure(f, json_array_get(ci, 1));
			csv_text(f, json_string_value(json_object_get(x, "word")));
			csv_text(f, answer);
			fputc('\n', f);
		}
		json_decref(doc);
	}
	return f ? cg_out_close(NULL, f, csv) : -1;
}

/* The scene running (its process), and whether the suite was asked to stop. */
static volatile pid_t scene_pid;
static volatile sig_atomic_t suite_stop;

/* SIGINT, SIGTERM to a suite: it stops after the scene that runs, which is told too. */
static void
on_suite_signal(int sig)
{
	suite_stop = 1;
	if (scene_pid > 0)
		kill(scene_pid, sig);
}

/*
 * One scene of a suite, run into dir in a process of its own, so that nothing of one
 * scene's run (its cores, its signal handling, its state) carries into the next: its
 * exit status (CG_INTERRUPTED where a signal stopped it).
 */
static int
scene_run(const char *file, const char *dir, const char *testbed, unsigned iters)
{
	int st;

	fflush(stdout);
	fflush(stderr);
	scene_pid = fork();
	if (scene_pid < 0) {
		fprintf(stderr, "fabemuctl campaign run: fork: %s\n", strerror(errno));
		return CG_SETUP;
	}
	if (scene_pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		st = suite_stop ? CG_INTERRUPTED : cg_campaign_run(file, dir, testbed, iters);
		fflush(NULL);
		_exit(st);
	}
	while (waitpid(scene_pid, &st, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "fabemuctl campaign run: waitpid: %s\n", strerror(errno));
			scene_pid = 0;
			return CG_SETUP;
		}
	scene_pid = 0;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return CG_INTERRUPTED;
}

/* DIR/suite.json: the suite, each scene that ran (its name, file, directory and exit
 * status) and the suite's status. 0, or -1 if not written. */
static int
suite_record(const struct cg_campaign *c, const char *out, char (*names)[CG_NAME_LEN],
	     const int *rc, unsigned n, int status)
{
	json_t *scenes = json_array(), *doc;
	char path[PATH_MAX];
	int r = -1;
	FILE *f;

	for (unsigned i = 0; scenes && i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", out, names[i]);
		json_array_append_new(scenes,
				      json_pack("{s:s, s:s, s:s, s:i}", "scene", names[i], "file",
						c->scene[i], "dir", path, "status", rc[i]));
	}
	doc = json_pack("{s:s, s:s, s:s, s:o*, s:i}", "suite", c->name, "source", c->source,
			"description", c->description, "scenes", scenes, "status", status);
	snprintf(path, sizeof(path), "%s/suite.json", out);
	if (doc != NULL && (f = cg_out_open(NULL, path)) != NULL) {
		if (json_dumpf(doc, f, JSON_INDENT(2)) < 0)
			cg_out_abandon(NULL, f, path, "the record could not be written");
		else
			r = cg_out_close(NULL, f, path);
	}
	json_decref(doc);
	return r;
}

/*
 * fabemuctl campaign run SUITE: each scene run as a campaign of its own (scene_run()),
 * one after the other, into DIR/SCENE (SCENE its campaign's name; DIR --out, else
 * results/SUITE-STAMP); a scene that fails does not stop the others, a signal does.
 * Then DIR/suite.json and their answers (suite_answers()). Its status: 130 if stopped by
 * a signal, else the first scene's that was not 0, else 6 if a file was not written.
 */
static int
suite_run(const struct cg_campaign *c, const char *outdir, const char *testbed, unsigned iters)
{
	static char names[CG_MAX_SCENES][CG_NAME_LEN];
	struct sigaction sa = {.sa_handler = on_suite_signal};
	char out[PATH_MAX - 2 * CG_NAME_LEN], stamp[32], dir[PATH_MAX];
	int status = CG_OK, rc[CG_MAX_SCENES];
	time_t now = time(NULL);
	unsigned n = 0;

	if (scenes_check(c, names) < 0)
		return CG_BAD_FILE;
	if (geteuid() != 0) {
		fprintf(stderr, "fabemuctl campaign run: must run as root (it builds hosts)\n");
		return CG_USAGE;
	}
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	if (outdir)
		snprintf(out, sizeof(out), "%s", outdir);
	else
		snprintf(out, sizeof(out), "results/%s-%s", c->name, stamp);
	if (cg_sh("/dev/null", "mkdir -p '%s'", out) != 0) {
		fprintf(stderr, "fabemuctl campaign run: cannot create %s\n", out);
		return CG_SETUP;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("suite %s: %u scenes, one after the other; results in %s/SCENE\n", c->name,
	       c->nscenes, out);
	for (; n < c->nscenes && !suite_stop; n++) {
		snprintf(dir, sizeof(dir), "%s/%s", out, names[n]);
		printf("\nsuite %s: scene %u of %u, %s (%s)\n", c->name, n + 1, c->nscenes,
		       names[n], c->scene[n]);
		rc[n] = scene_run(c->scene[n], dir, testbed, iters);
		if (status == CG_OK)
			status = rc[n];
	}
	if (suite_stop)
		status = CG_INTERRUPTED;
	/* both, whatever the other did */
	if ((suite_record(c, out, names, rc, n, status) < 0) +
		    (suite_answers(c, out, names, n) < 0) &&
	    status == CG_OK)
		status = CG_UNWRITTEN;
	return status;
}

/* campaign run: a campaign, or a suite's scenes (suite_run()). */
static int
run(const char *file, const char *outdir, const char *testbed, unsigned iters)
{
	struct cg_campaign *c = calloc(1, sizeof(*c));
	char err[2048];
	int rc;

	if (c == NULL)
		return CG_SETUP;
	if (cg_load(file, c, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		rc = CG_BAD_FILE;
	} else {
		rc = c->nscenes ? suite_run(c, outdir, testbed, iters)
				: cg_campaign_run(file, outdir, testbed, iters);
	}
	free(c->text);
	free(c);
	return rc;
}

/* argv[0] is "campaign" or "testbed". */
int
fe_campaign_main(int argc, char **argv)
{
	static const struct option lo[] = {{"out", required_argument, NULL, 'o'},
					   {"testbed", required_argument, NULL, 't'},
					   {"iterations", required_argument, NULL, 'i'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	const char *out = NULL, *testbed = NULL, *name;
	char prog[64], **av;
	unsigned long iters = 0;
	unsigned sub;
	int ch, n, rc;
	char *end;

	if (strcmp(argv[0], "testbed") == 0)
		return testbed_clean(argc, argv);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	name = argc >= 2 ? argv[1] : "";
	for (sub = 0; sub < NSUBS && strcmp(name, subs[sub].name) != 0; sub++)
		;
	if (sub == NSUBS) {
		if (argc < 2)
			fprintf(stderr, "fabemuctl campaign: a command is needed (allowed: list, "
					"check, show, run, summary)\n");
		else
			fprintf(stderr,
				"fabemuctl campaign: unknown command '%s' (allowed: list, check, "
				"show, run, summary)\n",
				name);
		usage(stderr);
		return CG_USAGE;
	}
	/* getopt's messages name "fabemuctl campaign SUB"; it permutes a copy */
	av = calloc((size_t)argc, sizeof(*av));
	if (av == NULL)
		return CG_SETUP;
	snprintf(prog, sizeof(prog), "fabemuctl campaign %s", name);
	av[0] = prog;
	memcpy(av + 1, argv + 2, (size_t)(argc - 2) * sizeof(*av));
	optind = 0; /* GNU getopt: reinitialise (the command line was parsed before) */
	while ((ch = getopt_long(argc - 1, av, "h", sub == SUB_RUN ? lo : lo + 3, NULL)) != -1) {
		if (ch == 'h') {
			free(av);
			usage(stdout);
			return 0;
		} else if (ch == 'o') {
			out = optarg;
		} else if (ch == 't') {
			testbed = optarg;
		} else if (ch == 'i') {
			iters = strtoul(optarg, &end, 10);
			if (*end || iters < 1 || iters > CG_MAX_ITERS) {
				fprintf(stderr,
					"fabemuctl campaign run --iterations '%s' (allowed: 1 to "
					"%d)\n",
					optarg, CG_MAX_ITERS);
				free(av);
				return CG_USAGE;
			}
		} else {
			free(av);
			return usage_hint(sub);
		}
	}
	n = argc - 1 - optind; /* the operands: FILE|NAME */
	if (n < operands[sub].min || n > operands[sub].max) {
		fprintf(stderr, "fabemuctl campaign %s: %s\n", name, operands[sub].need);
		free(av);
		return usage_hint(sub);
	}
	switch (sub) {
	case SUB_LIST:
		rc = list();
		break;
	case SUB_CHECK:
		rc = check(n, av + optind);
		break;
	case SUB_SHOW:
		rc = show(av[optind]);
		break;
	case SUB_SUMMARY:
		rc = summary(av[optind]);
		break;
	case SUB_AGREE:
		rc = agree(av[optind], av[optind + 1]);
		break;
	default:
		rc = run(av[optind], out, testbed, (unsigned)iters);
		break;
	}
	free(av);
	return rc;
}
