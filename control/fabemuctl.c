/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemuctl: checks and shows fabric profiles, topologies and campaigns, runs campaigns,
 * and controls a running fabemu-dp over its control socket (docs/control.md). Exit status:
 * 0 done; 1 refused (the reason is printed); 2 usage; 3 no dataplane to talk to. campaign
 * run has its own (docs/campaigns.md, enum cg_exit): 0 complete, 1 bad campaign file,
 * 2 usage, 3 setup failed, 4 the dataplane died, 5 the job failed, 6 results incomplete,
 * 7 complete but a fault step's command failed, 8 no faithful scale, 130 interrupted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "fe_campaign.h"
#include "fe_clab.h"
#include "fe_client.h"
#include "fe_help.h"
#include "fe_ctl_proto.h"
#include "fe_profile.h"
#include "fe_route.h"
#include "fe_topo.h"
#include "fe_rules.h"

extern char **environ; /* dot runs with fabemuctl's environment */

/*
 * The commands that need no dataplane, a table a group (as campaign's, fe_campaign.c): the
 * one source of fabemuctl G --help and of G's part of fabemuctl --help.
 */
struct group {
	const char *name;
	const struct fe_help_cmd *cmd;
	unsigned n;
	const char *tail; /* G --help's last lines: the operands, the exit status */
};

enum { PROFILE_CHECK, PROFILE_SHOW, PROFILE_LIST };
static const struct fe_help_cmd profile_cmds[] = {
	{"check", " P...", "validate profiles (names in profiles/ or files)"},
	{"show", " P [--scale N] [--ports N]",
	 "the values a dataplane would run: fabric, then one\n"
	 "line a link (default: 2 ports, the profile's scale)"},
	{"list", "", "the shipped profiles and their descriptions"},
};
static const struct group profile_group = {
	"profile", profile_cmds, sizeof(profile_cmds) / sizeof(profile_cmds[0]),
	"P: a name (letters, digits, '-', '_'): NAME.yaml in $FABEMU_PROFILES, ./profiles or\n"
	"the shipped profiles/ (profile list); anything else is a file (docs/profiles.md)\n"
	"Exit status: 0 done, 1 refused (reason printed), 2 usage"};

enum { TOPOLOGY_CHECK, TOPOLOGY_SHOW, TOPOLOGY_IMPORT };
static const struct fe_help_cmd topology_cmds[] = {
	{"check", " T...", "validate topologies (names in topologies/ or files)"},
	{"show", " T [--dot | --svg FILE | --routes]",
	 "switches, hosts and their dataplane ports, links;\n"
	 "a Graphviz drawing (--svg runs dot); or the routes\n"
	 "(shortest paths, every equal-cost next hop)"},
	{"import", " LAB.clab.yml [--out DIR]",
	 "a containerlab lab as a fabemu topology and a\n"
	 "campaign over its hosts, in DIR (default: the\n"
	 "lab's name; docs/containerlab.md)"},
};
static const struct group topology_group = {
	"topology", topology_cmds, sizeof(topology_cmds) / sizeof(topology_cmds[0]),
	"T: a name (letters, digits, '-', '_'): NAME.yaml in $FABEMU_TOPOLOGIES, ./topologies\n"
	"or the shipped topologies/; anything else is a file (docs/topologies.md)\n"
	"Exit status: 0 done, 1 refused (reason printed), 2 usage"};

/* fabemuctl G --help */
static void
group_usage(FILE *f, const struct group *g)
{
	fe_help_usage(f, g->name, g->cmd, g->n);
	fe_help_lines(f, g->tail, 0, 0);
}

/*
 * What getopt_long returned for a command of group g other than its own options: --help
 * (its usage on stdout, exit status 0), or a bad option that getopt named (then the
 * command's usage line).
 */
static int
group_opt(const struct group *g, unsigned cmd, int c)
{
	if (c == 'h') {
		group_usage(stdout, g);
		return 0;
	}
	fe_help_hint(stderr, g->name, &g->cmd[cmd]);
	return FE_EXIT_USAGE;
}

/* the options of a command that has none but --help */
static const struct option help_only[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

static void
usage(FILE *f)
{
	fprintf(f, "Usage: fabemuctl [-s SOCKET | -t [IP:]PORT [--token-file F]] [-j] COMMAND "
		   "[ARGS]\n"
		   "\n"
		   "Profiles (no dataplane needed):\n");
	fe_help_section(f, profile_group.name, profile_group.cmd, profile_group.n);
	fprintf(f, "Topologies (docs/topologies.md; no dataplane needed):\n");
	fe_help_section(f, topology_group.name, topology_group.cmd, topology_group.n);
	fprintf(f, "Campaigns (docs/campaigns.md):\n");
	fe_campaign_help(f);
	fprintf(f,
		"A running fabemu-dp:\n"
		"  status                      version, profile, topology and path, regime, last\n"
		"                              change and its timing\n"
		"  ports                       port numbers and devices\n"
		"  links                       every link's values, in the format of profile show\n"
		"                              (--topology: the links between switches too, A>B)\n"
		"  apply P [--link SEL] [--scale N]\n"
		"                              apply profile P to the fabric, or to the links SEL\n"
		"                              picks only (SEL: below)\n"
		"  set SEL KEY=VALUE[,...]     change the parameters of the links SEL picks (keys\n"
		"                              as in --link: rate, delay, buffer, buffer-pkts,\n"
		"                              loss, ge, ecn, jitter, drop, llr, match), or SEL\n"
		"                              pfc / credit / switch with their keys (pfc: xoff=,\n"
		"                              xon=, ...; credit: return=, hoq=, update=, the\n"
		"                              buffer, unit and out fixed at start; switch:\n"
		"                              buffer=; pfc, credit: under their regime only)\n"
		"  hold N.up|N.down TIME       hold a host's link's serializer for TIME\n"
		"                              (N.down: a pause storm from host N, or credits it\n"
		"                              does not return); links between switches: no hold\n"
		"  counters                    the counter table (-j: the JSON document)\n"
		"  reset                       zero the counters (gauges keep their value)\n"
		"  prometheus                  every counter in Prometheus text format\n"
		"  capture start LINK FILE [--drops] [--snaplen N]\n"
		"                              write what LINK (N.up, N.down, A>B) carries to "
		"FILE\n"
		"                              (pcapng); --drops adds what it dropped, marked.\n"
		"                              A plain name goes in the dataplane's capture\n"
		"                              directory; a path needs root on the UNIX socket;\n"
		"                              the file must not exist\n"
		"  capture stop\n"
		"Link selectors (SEL): all, up, down, N (both links of port N), N.up (host N\n"
		"to the switch), N.down (the switch to host N); with several switches\n"
		"(fabemu-dp --topology) also fabric (every link between switches), A-B (the\n"
		"link between switches A and B, both directions) and A>B (one direction);\n"
		"all picks the links between switches too\n"
		"\n"
		"Options:\n"
		"  -s, --socket PATH   control socket (default: $" FE_CTL_ENV_SOCKET
		" or " FE_CTL_SOCKET ")\n"
		"  -t, --tcp [IP:]PORT talk TCP instead (fabemu-dp --control-tcp)\n"
		"      --token-file F  TCP: the dataplane's token (default: $" FE_CTL_ENV_TOKEN
		",\n"
		"                      else " FE_CTL_TOKEN_DIR "/token-PORT)\n"
		"  -j, --json          print the reply's data as JSON\n"
		"  -h, --help\n"
		"Exit status: 0 done, 1 refused (reason printed), 2 usage, 3 no dataplane to talk\n"
		"to; campaign: its own (above).\n");
}

/* ---- Offline profile commands ---- */

/* The commands below: argv[0] is "fabemuctl G CMD" (getopt's messages name it). */

/*
 * A check command's operands, from optind: -1 with *rc its exit status if --help or a bad
 * option ends it, or it has none ("needs at least one WHAT").
 */
static int
check_operands(const struct group *g, unsigned cmd, const char *what, int argc, char **argv,
	       int *rc)
{
	int c;

	optind = 0; /* GNU getopt: reinitialise (the command line was parsed before) */
	if ((c = getopt_long(argc, argv, "h", help_only, NULL)) != -1) {
		*rc = group_opt(g, cmd, c);
		return -1;
	}
	if (optind == argc) {
		fprintf(stderr, "fabemuctl %s %s: needs at least one %s\n", g->name,
			g->cmd[cmd].name, what);
		*rc = group_opt(g, cmd, '?');
		return -1;
	}
	return 0;
}

static int
profile_check(int argc, char **argv)
{
	int rc, bad = 0;

	if (check_operands(&profile_group, PROFILE_CHECK, "profile", argc, argv, &rc) < 0)
		return rc;
	for (int i = optind; i < argc; i++) {
		struct fe_profile *p = malloc(sizeof(*p));
		char err[1024];

		if (p == NULL || fe_profile_load(argv[i], p, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", p ? err : "out of memory");
			bad = 1;
		} else {
			printf("%s: ok (%s)\n", p->source, p->name);
		}
		free(p);
	}
	return bad ? FE_EXIT_REFUSED : 0;
}

static int
topology_check(int argc, char **argv)
{
	int rc, bad = 0;

	if (check_operands(&topology_group, TOPOLOGY_CHECK, "topology", argc, argv, &rc) < 0)
		return rc;
	for (int i = optind; i < argc; i++) {
		struct fe_topo *t = malloc(sizeof(*t));
		char err[1024];

		if (t == NULL || fe_topo_load(argv[i], t, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", t ? err : "out of memory");
			bad = 1;
		} else {
			printf("%s: ok (%s: switches %u, hosts %u, ports %u, links %u)\n",
			       t->source, t->name, t->nsw, t->nhosts, t->nports, t->nlinks);
		}
		free(t);
	}
	return bad ? FE_EXIT_REFUSED : 0;
}

/* path for dot's output, 1 in *created if it did not exist (removed if dot fails); -1 */
static int
svg_open(const char *path, int *created)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		fprintf(stderr, "fabemuctl: topology show: cannot write %s: %s\n", path,
			strerror(errno));
	return fd;
}

/* dot -Tsvg reading in, writing out, its SIGPIPE as usual; 0, or an errno */
static int
dot_spawn(pid_t *pid, int in, int out)
{
	static char *const argv[] = {"dot", "-Tsvg", NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def;
	int rc;

	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
	rc = posix_spawnp(pid, "dot", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return rc;
}

/*
 * The drawing through Graphviz's dot into path; 0, or an exit status. The file is opened
 * here and dot runs without a shell, so that each failure is told apart: a path that
 * cannot be written, no dot, dot failing. SIGPIPE is ignored: a dot that exits before
 * reading the drawing must not kill fabemuctl (its exit status says what happened).
 */
static int
topology_svg(const struct fe_topo *t, const char *path)
{
	int fds[2] = {-1, -1}, out, created, rc, werr = 0, st = 0;
	pid_t pid;
	FILE *p;

	if ((out = svg_open(path, &created)) < 0)
		return FE_EXIT_REFUSED;
	if (pipe(fds) < 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(fds[1], F_SETFD, FD_CLOEXEC) < 0)
		rc = errno;
	else
		rc = dot_spawn(&pid, fds[0], out);
	close(out);
	close(fds[0]);
	if (rc != 0) {
		close(fds[1]);
		if (rc == ENOENT)
			fprintf(stderr, "fabemuctl: topology show: dot not found in PATH (it is "
					"Graphviz's: apt-get install graphviz)\n");
		else
			fprintf(stderr, "fabemuctl: topology show: cannot run dot: %s\n",
				strerror(rc));
		goto fail;
	}
	signal(SIGPIPE, SIG_IGN);
	p = fdopen(fds[1], "w");
	if (p == NULL) {
		werr = errno;
		close(fds[1]);
	} else {
		fe_topo_dot(p, t);
		if (fclose(p) != 0)
			werr = errno;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && werr == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		fprintf(stderr,
			"fabemuctl: topology show: dot exited with status %d; %s not "
			"written\n",
			WEXITSTATUS(st), path);
	else if (WIFSIGNALED(st))
		fprintf(stderr,
			"fabemuctl: topology show: dot killed by signal %d (%s); %s not "
			"written\n",
			WTERMSIG(st), strsignal(WTERMSIG(st)), path);
	else
		fprintf(stderr,
			"fabemuctl: topology show: writing the drawing to dot: %s; %s "
			"not written\n",
			strerror(werr), path);
fail:
	if (created)
		unlink(path);
	return FE_EXIT_REFUSED;
}

/* topology import LAB.clab.yml [--out DIR]: the lab as DIR/topology.yaml and campaign.yaml. */
static int
topology_import(int argc, char **argv)
{
	static const struct option lo[] = {{"out", required_argument, NULL, 'o'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	const char *out = NULL;
	struct fe_clab *lab;
	char err[1024];
	int c, w, rc = FE_EXIT_REFUSED;

	optind = 0; /* GNU getopt: reinitialise (the command line was parsed before) */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'o')
			out = optarg;
		else
			return group_opt(&topology_group, TOPOLOGY_IMPORT, c);
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fabemuctl topology import: needs exactly one lab file\n");
		return group_opt(&topology_group, TOPOLOGY_IMPORT, '?');
	}
	lab = malloc(sizeof(*lab));
	if (lab == NULL || fe_clab_load(argv[optind], lab, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", lab ? err : "out of memory");
	} else if ((w = fe_clab_write(lab, out ? out : lab->name, err, sizeof(err))) < 0) {
		fprintf(stderr, "fabemuctl: topology import: %s\n", err);
	} else {
		out = out ? out : lab->name;
		printf("lab %s: %u host%s, %u host port%s, %u switch%s, %u link%s between "
		       "switches\n",
		       lab->name, lab->topo.nhosts, lab->topo.nhosts == 1 ? "" : "s",
		       lab->topo.nports, lab->topo.nports == 1 ? "" : "s", lab->topo.nsw,
		       lab->topo.nsw == 1 ? "" : "es", lab->topo.nlinks,
		       lab->topo.nlinks == 1 ? "" : "s");
		for (unsigned p = 0; p < lab->nports; p++)
			printf("  port %u: %s %s\n", p, lab->node[p], lab->ifname[p]);
		for (unsigned i = 0; i < lab->nspecs; i++)
			printf("  --link %s\n", lab->spec[i]);
		if (w == 1)
			printf("wrote %s/topology.yaml; no campaign: a host has several ports "
			       "(rails), "
			       "and a campaign runs one port a host (fabemu-dp --topology runs "
			       "it)\n",
			       out);
		else if (lab->topo_ref[0])
			printf("topology %s; wrote %s/campaign.yaml\n", lab->topo_ref, out);
		else
			printf("wrote %s/topology.yaml and %s/campaign.yaml\n", out, out);
		rc = 0;
	}
	free(lab);
	return rc;
}

static int
topology_show(int argc, char **argv)
{
	static const struct option lo[] = {{"dot", no_argument, NULL, 'd'},
					   {"svg", required_argument, NULL, 's'},
					   {"routes", no_argument, NULL, 'r'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	const char *svg = NULL, *form = NULL, *name;
	struct fe_topo *t;
	char err[1024];
	int c, dot = 0, routes = 0, rc = FE_EXIT_REFUSED;

	optind = 0; /* GNU getopt: reinitialise (the command line was parsed before) */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c != 'd' && c != 's' && c != 'r')
			return group_opt(&topology_group, TOPOLOGY_SHOW, c);
		dot |= c == 'd';
		routes |= c == 'r';
		svg = c == 's' ? optarg : svg;
		name = c == 'd' ? "--dot" : c == 's' ? "--svg" : "--routes";
		/* one form of output a command */
		if (form && strcmp(form, name) != 0) {
			fprintf(stderr, "fabemuctl topology show: %s and %s are one or the other\n",
				form, name);
			return group_opt(&topology_group, TOPOLOGY_SHOW, '?');
		}
		form = name;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fabemuctl topology show: needs exactly one topology\n");
		return group_opt(&topology_group, TOPOLOGY_SHOW, '?');
	}
	t = malloc(sizeof(*t));
	if (t == NULL || fe_topo_load(argv[optind], t, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", t ? err : "out of memory");
	} else if (svg) {
		rc = topology_svg(t, svg);
	} else if (routes) {
		struct fe_routes *r = malloc(sizeof(*r));

		if (r != NULL) {
			fe_route_compute(t, r);
			fe_route_print(stdout, t, r);
			rc = 0;
		}
		free(r);
	} else {
		if (dot)
			fe_topo_dot(stdout, t);
		else
			fe_topo_print(stdout, t);
		rc = 0;
	}
	free(t);
	return rc;
}

static int
profile_show(int argc, char **argv)
{
	static const struct option lo[] = {{"scale", required_argument, NULL, 's'},
					   {"ports", required_argument, NULL, 'p'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	unsigned long nports = 2;
	uint64_t scale = 0;
	struct fe_linkdef *up, *down;
	struct fe_profile *p;
	struct fe_fabric fab;
	char err[1024], line[1024], *end;
	int c, rc = FE_EXIT_REFUSED;

	optind = 0; /* GNU getopt: reinitialise (the command line was parsed before) */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 's') {
			if (fe_rule_parse(&fe_rule_scale, "--", optarg, &scale, err, sizeof(err)) <
			    0) {
				fprintf(stderr, "fabemuctl profile show: %s\n", err);
				return FE_EXIT_USAGE;
			}
			continue;
		} else if (c == 'p')
			nports = strtoul(optarg, &end, 10);
		else
			return group_opt(&profile_group, PROFILE_SHOW, c);
		/* as many ports as a dataplane can have (a topology's host ports, the counters) */
		if (*end != '\0' || end == optarg || nports < 1 || nports > FE_TOPO_PORTS) {
			fprintf(stderr, "fabemuctl profile show: --ports '%s' (allowed: 1 to %d)\n",
				optarg, FE_TOPO_PORTS);
			return group_opt(&profile_group, PROFILE_SHOW, '?');
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fabemuctl profile show: needs exactly one profile\n");
		return group_opt(&profile_group, PROFILE_SHOW, '?');
	}
	p = malloc(sizeof(*p));
	up = calloc(nports, sizeof(*up));
	down = calloc(nports, sizeof(*down));
	if (p && up && down && fe_profile_load(argv[optind], p, err, sizeof(err)) == 0 &&
	    fe_profile_expand(p, (uint32_t)scale, (unsigned)nports, up, down, &fab, err,
			      sizeof(err)) == 0) {
		printf("profile %s (%s)\n", p->name, p->source);
		if (p->description[0])
			printf("description %s\n", p->description);
		printf("scale %" PRIu64 "\n", scale ? scale : (uint64_t)p->scale);
		if (p->path_set) /* several switches' path choice (--topology) */
			printf("path %s\n", fe_path_name(p->path));
		fe_profile_print_fabric(stdout, &fab);
		for (unsigned i = 0; i < nports; i++) { /* each port's up link, then its down */
			printf("%u.%-5s %s\n", i, "up",
			       fe_profile_fmt_link(&up[i], line, sizeof(line)));
			printf("%u.%-5s %s\n", i, "down",
			       fe_profile_fmt_link(&down[i], line, sizeof(line)));
		}
		rc = 0;
	} else {
		fprintf(stderr, "%s\n", p && up && down ? err : "out of memory");
	}
	free(p);
	free(up);
	free(down);
	return rc;
}

static int
profile_list(int argc, char **argv)
{
	static const char *const names[] = {
		"ideal",      "ib-hdr",		"ib-ndr",	"roce-pfc-ecn", "roce-lossy",
		"spectrum-x", "ethernet-lossy", "ethernet-ecn", "uec",		"uec-lossless"};
	int c, rc = 0;

	optind = 0; /* GNU getopt: reinitialise (the command line was parsed before) */
	while ((c = getopt_long(argc, argv, "h", help_only, NULL)) != -1)
		return group_opt(&profile_group, PROFILE_LIST, c);
	if (optind != argc) {
		fprintf(stderr, "fabemuctl profile list: takes no operand\n");
		return group_opt(&profile_group, PROFILE_LIST, '?');
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct fe_profile *p = malloc(sizeof(*p));
		char err[1024];

		if (p && fe_profile_load(names[i], p, err, sizeof(err)) == 0) {
			printf("%-15s %s (%s)\n", p->name, p->description, p->source);
		} else {
			fprintf(stderr, "%s\n", p ? err : "out of memory");
			rc = FE_EXIT_REFUSED;
		}
		free(p);
	}
	return rc;
}

static int
cmd_apply(const struct fe_client *o, int argc, char **argv)
{
	static const struct option lo[] = {{"link", required_argument, NULL, 'l'},
					   {"scale", required_argument, NULL, 's'},
					   {NULL, 0, NULL, 0}};
	const char *link = NULL;
	uint64_t scale = 0;
	struct fe_profile *p;
	char path[512], err[1024], *text;
	size_t len;
	json_t *req;
	int c;

	optind = 0; /* GNU getopt: reinitialise (the command line was parsed before) */
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'l') {
			link = optarg;
		} else if (c == 's') {
			if (fe_rule_parse(&fe_rule_scale, "--", optarg, &scale, err, sizeof(err)) <
			    0) {
				fprintf(stderr, "fabemuctl: %s\n", err);
				return FE_EXIT_USAGE;
			}
		} else {
			return FE_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fabemuctl: apply needs one profile\n");
		return FE_EXIT_USAGE;
	}
	if (fe_profile_find(argv[optind], path, sizeof(path), err, sizeof(err)) < 0 ||
	    (text = fe_profile_read(path, &len, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return FE_EXIT_REFUSED;
	}
	/* checked here, where the user is; the dataplane checks it again */
	p = malloc(sizeof(*p));
	if (p == NULL || fe_profile_parse(text, len, path, p, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", p ? err : "out of memory");
		free(p);
		free(text);
		return FE_EXIT_REFUSED;
	}
	free(p);
	req = fe_client_request("apply");
	json_object_set_new(req, "profile", json_string(text));
	json_object_set_new(req, "source", json_string(path));
	json_object_set_new(req, "scale", json_integer((json_int_t)scale));
	if (link)
		json_object_set_new(req, "link", json_string(link));
	free(text);
	return fe_client_run(o, req);
}

static int
cmd_capture(const struct fe_client *o, int argc, char **argv)
{
	static const struct option lo[] = {{"drops", no_argument, NULL, 'd'},
					   {"snaplen", required_argument, NULL, 'n'},
					   {NULL, 0, NULL, 0}};
	json_t *req = fe_client_request("capture");
	char abs[4096];
	int c, drops = 0;
	long snap = 0;

	if (argc == 2 && strcmp(argv[1], "stop") == 0) {
		json_object_set_new(req, "action", json_string("stop"));
		return fe_client_run(o, req);
	}
	optind = 0; /* GNU getopt: reinitialise (the command line was parsed before) */
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'd')
			drops = 1;
		else if (c == 'n')
			snap = atol(optarg);
		else
			goto bad;
	}
	if (argc - optind != 3 || strcmp(argv[optind], "start") != 0)
		goto bad;
	/*
	 * The dataplane opens the file: a plain name is for its capture directory; give it
	 * a path that does not depend on its cwd.
	 */
	if (argv[optind + 2][0] != '/' && strchr(argv[optind + 2], '/') &&
	    getcwd(abs, sizeof(abs) / 2))
		snprintf(abs + strlen(abs), sizeof(abs) - strlen(abs), "/%s", argv[optind + 2]);
	else
		snprintf(abs, sizeof(abs), "%s", argv[optind + 2]);
	json_object_set_new(req, "action", json_string("start"));
	json_object_set_new(req, "link", json_string(argv[optind + 1]));
	json_object_set_new(req, "file", json_string(abs));
	json_object_set_new(req, "drops", json_boolean(drops));
	json_object_set_new(req, "snaplen", json_integer(snap));
	return fe_client_run(o, req);
bad:
	json_decref(req);
	fprintf(stderr, "fabemuctl: capture start LINK FILE [--drops] [--snaplen N] | capture "
			"stop\n");
	return FE_EXIT_USAGE;
}

typedef int group_cmd(int argc, char **argv);
/* in the order of the groups' tables (profile_cmds, topology_cmds) */
static group_cmd *const profile_run[] = {profile_check, profile_show, profile_list};
static group_cmd *const topology_run[] = {topology_check, topology_show, topology_import};

/*
 * fabemuctl G --help, or G CMD [ARGS]: CMD runs with argv[0] "fabemuctl G CMD", so that
 * getopt's messages name the command as the others' do (fe_campaign.c).
 */
static int
group_main(const struct group *g, group_cmd *const *run, int argc, char **argv)
{
	const char *name = argc >= 2 ? argv[1] : "";
	char prog[64], **av;
	unsigned i;
	int rc;

	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		group_usage(stdout, g);
		return 0;
	}
	for (i = 0; i < g->n && strcmp(name, g->cmd[i].name) != 0; i++)
		;
	if (i == g->n) {
		fprintf(stderr, "fabemuctl %s: ", g->name);
		if (argc < 2)
			fprintf(stderr, "a command is needed (allowed:");
		else
			fprintf(stderr, "unknown command '%s' (allowed:", name);
		for (unsigned k = 0; k < g->n; k++)
			fprintf(stderr, "%s %s", k ? "," : "", g->cmd[k].name);
		fprintf(stderr, ")\n");
		group_usage(stderr, g);
		return FE_EXIT_USAGE;
	}
	av = calloc((size_t)argc, sizeof(*av)); /* getopt permutes it */
	if (av == NULL) {
		fprintf(stderr, "fabemuctl: out of memory\n");
		return FE_EXIT_REFUSED;
	}
	snprintf(prog, sizeof(prog), "fabemuctl %s %s", g->name, name);
	av[0] = prog;
	memcpy(av + 1, argv + 2, (size_t)(argc - 2) * sizeof(*av));
	rc = run[i](argc - 1, av);
	free(av);
	return rc;
}

static int
dispatch(const struct fe_client *o, int argc, char **argv)
{
	const char *cmd = argv[0];
	json_t *req;

	if (strcmp(cmd, "profile") == 0)
		return group_main(&profile_group, profile_run, argc, argv);
	if (strcmp(cmd, "topology") == 0)
		return group_main(&topology_group, topology_run, argc, argv);
	if (strcmp(cmd, "campaign") == 0 || strcmp(cmd, "testbed") == 0)
		return fe_campaign_main(argc, argv);
	if (strcmp(cmd, "apply") == 0)
		return cmd_apply(o, argc, argv);
	if (strcmp(cmd, "capture") == 0)
		return cmd_capture(o, argc, argv);
	if (strcmp(cmd, "hold") == 0 && argc == 3) {
		req = fe_client_request("hold");
		json_object_set_new(req, "link", json_string(argv[1]));
		json_object_set_new(req, "duration", json_string(argv[2]));
		return fe_client_run(o, req);
	}
	if (strcmp(cmd, "set") == 0 && argc == 3) {
		req = fe_client_request("set");
		json_object_set_new(req, "link", json_string(argv[1]));
		json_object_set_new(req, "spec", json_string(argv[2]));
		return fe_client_run(o, req);
	}
	if (argc == 1 && (strcmp(cmd, "status") == 0 || strcmp(cmd, "ports") == 0 ||
			  strcmp(cmd, "links") == 0 || strcmp(cmd, "counters") == 0 ||
			  strcmp(cmd, "reset") == 0 || strcmp(cmd, "prometheus") == 0)) {
		req = fe_client_request(cmd);
		if (o->json)
			json_object_set_new(req, "json", json_true());
		return fe_client_run(o, req);
	}
	fprintf(stderr, "fabemuctl: unknown command or wrong arguments: '%s' (see --help)\n", cmd);
	return FE_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {{"socket", required_argument, NULL, 's'},
					   {"tcp", required_argument, NULL, 't'},
					   {"json", no_argument, NULL, 'j'},
					   {"token-file", required_argument, NULL, 'T'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	struct fe_client o = {.socket = getenv(FE_CTL_ENV_SOCKET)};
	const char *token_file = NULL;
	int c;

	if (o.socket == NULL)
		o.socket = FE_CTL_SOCKET;
	/* options before the command only: the command's own options follow it */
	while ((c = getopt_long(argc, argv, "+s:t:jh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			o.socket = optarg;
			break;
		case 't':
			o.tcp = optarg;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'T':
			token_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return FE_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return FE_EXIT_USAGE;
	}
	if (token_file && !o.tcp) {
		fprintf(stderr, "fabemuctl: --token-file needs -t (TCP)\n");
		return FE_EXIT_USAGE;
	}
	if (o.tcp) /* without one, the dataplane's refusal says what is missing */
		o.token = fe_client_token(o.tcp, token_file);
	return dispatch(&o, argc - optind, argv + optind);
}
