/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE /* asprintf */
/*
 * The job and its faults: the all-reduce (or a command) on the hosts, each command through
 * its host's prefix (cg_host_sh()), followed live; the faults at iterations through the
 * job's hook, the faults in time from here; the commands beside it. The baselines (the
 * first wire regime, the first whose whole fabric is ideal: cg_regime.baseline, cg_file.c)
 * run without the timeline's faults: they are what the ratios divide by.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cg.h"
#include "fe_linkspec.h"

/* Whether dir ("A>B") is a direction of the link between switches link ("A-B"). */
static int
one_way(const char *dir, const char *link)
{
	const char *gt = strchr(dir, '>');
	char ab[2 * CG_LINK_NAME], ba[2 * CG_LINK_NAME];

	if (gt == NULL || strchr(link, '-') == NULL)
		return 0;
	snprintf(ab, sizeof(ab), "%.*s-%s", (int)(gt - dir), dir, gt + 1);
	snprintf(ba, sizeof(ba), "%s-%.*s", gt + 1, (int)(gt - dir), dir);
	return strcmp(ab, link) == 0 || strcmp(ba, link) == 0;
}

/* Whether sel names every link ("all") or every link between switches ("fabric"). */
static int
every_link(const char *sel)
{
	return strcmp(sel, "all") == 0 || strcmp(sel, "fabric") == 0;
}

/*
 * The selectors of the links both sel and link pick (up to 3; how many), for a regime's
 * links: override (sel) on the link a fault ends on (link). Ports' links as
 * fe_linkspec_select() reads them; a link between switches by its own name, "fabric" or
 * "all". -1 if a name does not fit (never cut).
 */
static int
common_links(const char *sel, const char *link, unsigned hosts, char out[3][CG_LINK_NAME])
{
	long ps, pl, p;
	int ds, dl, d, sw_sel, sw_link;
	unsigned n = 0;
	char e[200];
	const char *name = NULL;

	if (strlen(sel) >= CG_LINK_NAME || strlen(link) >= CG_LINK_NAME)
		return -1;
	sw_link = fe_linkspec_select(link, hosts, &pl, &dl, e, sizeof(e)) < 0;
	sw_sel = fe_linkspec_select(sel, hosts, &ps, &ds, e, sizeof(e)) < 0;
	if (strcmp(sel, link) == 0)
		name = link;
	else if (sw_link && (every_link(sel) || one_way(link, sel)))
		name = link; /* a link between switches: A-B picks both directions, A>B one */
	else if (sw_link && one_way(sel, link))
		name = sel;
	else if (sw_sel && every_link(link))
		name = sel; /* a fault on every link ends on the switch link's entry too */
	if (name != NULL || sw_link || sw_sel) {
		if (name != NULL)
			snprintf(out[n++], CG_LINK_NAME, "%s", name);
		return (int)n;
	}
	if (ps >= 0 && pl >= 0 && ps != pl)
		return 0;
	p = ps >= 0 ? ps : pl;
	d = ds & dl & (FE_SEL_UP | FE_SEL_DOWN);
	if (p >= 0 && d == (FE_SEL_UP | FE_SEL_DOWN))
		snprintf(out[n++], CG_LINK_NAME, "%ld", p);
	else if (p >= 0 && d)
		snprintf(out[n++], CG_LINK_NAME, "%ld.%s", p, d == FE_SEL_UP ? "up" : "down");
	if (p < 0 && d & FE_SEL_UP)
		snprintf(out[n++], CG_LINK_NAME, "up");
	if (p < 0 && d & FE_SEL_DOWN)
		snprintf(out[n++], CG_LINK_NAME, "down");
	if (ds & dl & FE_SEL_FABRIC)
		snprintf(out[n++], CG_LINK_NAME, "fabric");
	return (int)n;
}

/*
 * The fabemuctl command line of a step: a fault, or its end, which puts the link back as
 * the regime set it: the profile, then each of the regime's links: overrides that picks
 * it, on the links it shares with the fault's (docs/campaigns.md). -1 (and err says why)
 * if it does not fit in len: a command cut short is never run.
 */
int
cg_step_command(const struct cg_run *r, const struct cg_regime *g, const struct cg_step *s,
		char *cmd, size_t len, char *err, size_t elen)
{
	size_t n = 0;

	if (!s->revert) {
		if (cg_addf(cmd, len, &n, "'%s' -s %s %s", r->self, r->sock, s->args) < 0)
			goto long_cmd;
		return 0;
	}
	if (cg_addf(cmd, len, &n, "'%s' -s %s apply '%s' --scale %u --link %s", r->self, r->sock,
		    g->profile, g->scale, s->args) < 0)
		goto long_cmd;
	for (unsigned i = 0; i < g->nlinks; i++) {
		const char *spec = g->links[i], *colon = strchr(spec, ':'), *eq = strchr(spec, '=');
		char sel[sizeof(g->links[0])] = "all", both[3][CG_LINK_NAME];
		char q[4 * sizeof(g->links[0]) + 3], qs[4 * CG_LINK_NAME + 3];
		int nb;

		if (colon && (!eq || colon < eq)) {
			snprintf(sel, sizeof(sel), "%.*s", (int)(colon - spec), spec);
			spec = colon + 1;
		}
		nb = common_links(sel, s->args, r->c->hosts, both);
		if (nb < 0) {
			snprintf(err, elen, "links entry '%s' or link '%s': a name longer than %d",
				 g->links[i], s->args, CG_LINK_NAME - 1);
			return -1;
		}
		cg_quote(q, sizeof(q), spec);
		for (int k = 0; k < nb; k++) {
			cg_quote(qs, sizeof(qs), both[k]);
			if (cg_addf(cmd, len, &n, " && '%s' -s %s set %s %s", r->self, r->sock, qs,
				    q) < 0)
				goto long_cmd;
		}
	}
	return 0;
long_cmd:
	snprintf(err, elen, "%s: its command would be longer than %zu bytes", s->what, len - 1);
	return -1;
}

void
cg_step_at(const struct cg_step *s, char *at, size_t len)
{
	char b[32];
	size_t n;

	if (s->at_iter) {
		snprintf(at, len, "iteration %d", s->at_iter);
		return;
	}
	/* a time as a person writes it: "1.5 s", "0.25 s", "2 s" */
	n = (size_t)snprintf(b, sizeof(b), "%.9f", (double)s->at_ns / 1e9);
	while (n > 1 && b[n - 1] == '0')
		b[--n] = '\0';
	if (n > 1 && b[n - 1] == '.')
		b[--n] = '\0';
	snprintf(at, len, "%s s", b);
}

int
cg_step_runs(const struct cg_run *r, const struct cg_regime *g, const struct cg_step *s)
{
	/* a step on no link (a command's) runs everywhere but in a baseline */
	return !cg_baseline(g) && (s->link[0] == '\0' || cg_regime_has_link(r->c, g, s->link));
}

/*
 * The hook the job runs before an iteration: the steps due then, each followed by its
 * mark: "ITER NS WHAT" if it took, "x ITER NS WHAT" if its command failed (one branch an
 * iteration: sh runs only the first branch that matches, so two steps at one iteration
 * share it). A baseline runs none.
 */
static int
write_hook(const struct cg_run *r, const struct cg_regime *g, const char *path, const char *marks,
	   char *iters, size_t ilen)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	iters[0] = '\0';
	fprintf(f, "#!/bin/sh\n# generated by fabemuctl campaign: faults before iteration $1\n"
		   "case \"$1\" in\n");
	for (unsigned i = 0; i < r->c->nsteps && !cg_baseline(g); i++) {
		const struct cg_step *s = &r->c->steps[i];
		int first = 1;

		for (unsigned k = 0; k < i && first; k++)
			first = r->c->steps[k].at_iter != s->at_iter;
		if (s->at_iter == 0 || !first)
			continue;
		snprintf(iters + strlen(iters), ilen - strlen(iters), "%s%d", iters[0] ? "," : "",
			 s->at_iter);
		fprintf(f, "%d)\n", s->at_iter);
		for (unsigned k = i; k < r->c->nsteps; k++) {
			const struct cg_step *t = &r->c->steps[k];
			char cmd[CG_STEP_CMD], qw[420], qm[2 * PATH_MAX + 8], err[600];

			if (t->at_iter != s->at_iter || !cg_step_runs(r, g, t))
				continue;
			cg_quote(qw, sizeof(qw), t->what);
			cg_quote(qm, sizeof(qm), marks);
			if (cg_step_command(r, g, t, cmd, sizeof(cmd), err, sizeof(err)) < 0) {
				/* never run cut short: the step fails, and says why */
				cg_say("    %s\n", err);
				fprintf(f, "  ok='x '\n");
			} else {
				fprintf(f,
					"  if { %s; } >/dev/null; then ok=''; else ok='x '; fi\n",
					cmd);
			}
			fprintf(f,
				"  printf '%%s%%s %%s %%s\\n' \"$ok\" \"$1\" \"$(date +%%s%%N)\" "
				"%s >>%s\n",
				qw, qm);
		}
		fprintf(f, "  ;;\n");
	}
	fprintf(f, "esac\nexit 0\n");
	if (fclose(f) != 0)
		return -1;
	chmod(path, 0755);
	return 0;
}

static int
run_step_now(const struct cg_run *r, const struct cg_regime *g, const struct cg_step *s,
	     const char *marks)
{
	char log[PATH_MAX], cmd[CG_STEP_CMD], err[600];
	FILE *f;
	int rc;

	cg_logpath(r, log, sizeof(log), "faults.log");
	if (cg_step_command(r, g, s, cmd, sizeof(cmd), err, sizeof(err)) < 0) {
		cg_say("    %s\n", err); /* never run cut short */
		rc = -1;
	} else {
		rc = cg_sh(log, "%s", cmd);
	}
	f = fopen(marks, "a"); /* a step that failed: "x t NS WHAT" */
	if (f) {
		fprintf(f, "%st %" PRIu64 " %s\n", rc ? "x " : "", cg_now_ns(CLOCK_REALTIME),
			s->what);
		fclose(f);
	}
	return rc;
}

/* The gloo rendezvous: rank 0's host (host 1) listens there. */
#define CG_TORCH_PORT 29500

/* Host h's name as the job knows it: the veth kind's namespace (NAME-hH), else the
 * file's. */
static const char *
host_name(const struct cg_run *r, unsigned h, char *buf, size_t len)
{
	if (r->c->tb == CG_TB_HOSTS)
		snprintf(buf, len, "%s", r->c->host[h].name);
	else
		snprintf(buf, len, "%s-h%u", r->testbed, h);
	return buf;
}

/* cmd run on host h, after pin, appended to the job's command (f). -1 if it does not
 * fit a host's command (never cut). */
static int
on_host(FILE *f, const struct cg_run *r, unsigned h, const char *cmd)
{
	size_t len = 2 * PATH_MAX + 16 * strlen(cmd) + 64;
	char *hc = malloc(len);
	int rc = hc ? cg_host_sh(r, h, cmd, hc, len) : -1;

	if (rc == 0)
		fprintf(f, "%s", hc);
	free(hc);
	return rc;
}

/*
 * The torch job (testbeds/allreduce_torch.py): a rank a host, each through its prefix,
 * over its interface (GLOO_SOCKET_IFNAME), rank 0 on host 1 holding the rendezvous; rank
 * 0's output is the iter lines. It exits with the first failed rank's status (a wrong
 * sum: 3).
 */
static int
torch_command(FILE *f, const struct cg_run *r, unsigned ranks, const char *hook,
	      const char *hook_iters, const char *sizes, unsigned iters)
{
	const struct cg_campaign *c = r->c;
	char rank[6 * PATH_MAX + 1024], qh[4 * PATH_MAX + 3];
	int rc = 0;

	cg_quote(qh, sizeof(qh), hook);
	for (unsigned i = 1; i <= ranks && rc == 0; i++) {
		if ((size_t)snprintf(
			    rank, sizeof(rank),
			    "exec env GLOO_SOCKET_IFNAME=%s /usr/bin/python3 "
			    "%s/testbeds/allreduce_torch.py --rank %u --world %u --master %s "
			    "--port %u --sizes %s --iters %u --warmup %u%s%s%s%s",
			    c->host[i].ifname, r->root, i - 1, ranks, c->host[1].addr,
			    CG_TORCH_PORT, sizes, iters, c->warmup, hook_iters[0] ? " --hook " : "",
			    hook_iters[0] ? qh : "", hook_iters[0] ? " --hook-iters " : "",
			    hook_iters) >= sizeof(rank))
			return -1; /* never cut */
		rc = on_host(f, r, i, rank);
		fprintf(f, " & p%u=$!; ", i);
	}
	fprintf(f, "rc=0; for p in");
	for (unsigned i = 1; i <= ranks; i++)
		fprintf(f, " $p%u", i);
	fprintf(f, "; do wait $p; s=$?; [ $rc = 0 ] && rc=$s; done; exit $rc");
	return rc;
}

/*
 * The smallest subnet that holds the addresses of hosts 1..n, "198.18.0.0/29": what the
 * MPI job may use (a list of each host's /32 instead made OpenMPI 4.1's TCP BTL hang,
 * each rank refusing its peers' connections: "cannot find guid", 2026-12-05).
 */
static void
hosts_subnet(const struct cg_campaign *c, unsigned n, char *buf, size_t len)
{
	uint32_t first = 0, diff = 0;
	unsigned bits = 32;

	for (unsigned i = 1; i <= n; i++) {
		struct in_addr a = {0};

		inet_pton(AF_INET, c->host[i].addr, &a);
		if (i == 1)
			first = ntohl(a.s_addr);
		diff |= first ^ ntohl(a.s_addr);
	}
	while (bits > 0 && diff >> (32 - bits) != 0)
		bits--;
	first &= bits ? ~0u << (32 - bits) : 0;
	snprintf(buf, len, "%u.%u.%u.%u/%u", first >> 24, (first >> 16) & 255, (first >> 8) & 255,
		 first & 255, bits);
}

/*
 * The MPI job: mpirun on host 1 (its own host name, in a UTS namespace of its own), the
 * other ranks started by testbeds/mpi-agent.sh, each on its host through its prefix
 * (FE_AGENT_HOSTS: "NAME<TAB>SHELL<TAB>PREFIX" lines; the veth kind's need none), over
 * the hosts' subnet only.
 */
static int
mpi_command(FILE *f, const struct cg_run *r, unsigned ranks, const char *hook,
	    const char *hook_iters, const char *sizes, unsigned iters)
{
	const struct cg_campaign *c = r->c;
	char hosts[CG_MAX_HOSTS * (CG_HOST_NAME + 1)] = "", nets[32];
	char agent[CG_MAX_HOSTS * 300] = "", name[CG_HOST_NAME], run[4 * PATH_MAX + 2048];
	char tmp[sizeof(CG_MPI_DIR) + sizeof(r->testbed)] = "";
	char qa[4 * sizeof(agent) + 3], *inner, *mid;
	size_t nh = 0, na = 0;
	int rc = -1;

	for (unsigned i = 1; i <= ranks; i++) {
		cg_addf(hosts, sizeof(hosts), &nh, "%s%s", i > 1 ? "," : "",
			host_name(r, i, name, sizeof(name)));
		if (c->tb == CG_TB_HOSTS)
			cg_addf(agent, sizeof(agent), &na, "%s\t%d\t%s\n", c->host[i].name,
				c->host[i].shell, c->host[i].prefix);
	}
	hosts_subnet(c, ranks, nets, sizeof(nets));
	cg_quote(qa, sizeof(qa), agent);
	/* the session directories in one of the runner's own, on a veth testbed (the hosts
	 * share this file system), which goes when the job ends (cg_run_job) */
	if (c->tb != CG_TB_HOSTS)
		snprintf(tmp, sizeof(tmp), CG_MPI_DIR, r->testbed);
	if ((size_t)snprintf(
		    run, sizeof(run),
		    "hostname %s && exec mpirun --host %s -np %u --mca plm_rsh_agent "
		    "%s/testbeds/mpi-agent.sh --mca btl tcp,self --mca btl_tcp_if_include %s "
		    "--mca oob_tcp_if_include %s --mca mpi_yield_when_idle 1 --bind-to none "
		    "%s/fe-allreduce --sizes %s --iters %u --warmup %u%s%s%s%s%s",
		    host_name(r, 1, name, sizeof(name)), hosts, ranks, r->root, nets, nets,
		    r->bindir, sizes, iters, c->warmup, c->perm ? " --pattern permutation" : "",
		    hook_iters[0] ? " --hook " : "", hook_iters[0] ? hook : "",
		    hook_iters[0] ? " --hook-iters " : "", hook_iters) >= sizeof(run))
		return -1; /* never cut */
	inner = malloc(4 * sizeof(run) + 3);
	mid = malloc(4 * sizeof(run) + sizeof(qa) + 256);
	if (inner && mid) {
		cg_quote(inner, 4 * sizeof(run) + 3, run);
		snprintf(mid, 4 * sizeof(run) + sizeof(qa) + 256,
			 "%s%s%sexec env%s%s OMPI_ALLOW_RUN_AS_ROOT=1 "
			 "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1%s%s unshare --uts sh -c %s",
			 tmp[0] ? "mkdir -p " : "", tmp, tmp[0] ? " && " : "",
			 tmp[0] ? " TMPDIR=" : "", tmp, agent[0] ? " FE_AGENT_HOSTS=" : "",
			 agent[0] ? qa : "", inner);
		rc = on_host(f, r, 1, mid);
	}
	free(inner);
	free(mid);
	return rc;
}

/* The torch job's command: its ranks in a shell of their own, quoted whole. */
static int
torch_job(const struct cg_run *r, unsigned ranks, const char *hook, const char *hook_iters,
	  const char *sizes, unsigned iters, char **cmd)
{
	char *in = NULL, *q = NULL;
	size_t ilen;
	FILE *t = open_memstream(&in, &ilen);
	int rc;

	if (t == NULL)
		return -1;
	rc = torch_command(t, r, ranks, hook, hook_iters, sizes, iters);
	if (fclose(t) != 0 || (q = malloc(4 * ilen + 3)) == NULL)
		rc = -1;
	if (rc == 0) {
		cg_quote(q, 4 * ilen + 3, in);
		rc = asprintf(cmd, "exec %s sh -c %s", r->pin, q) < 0 ? -1 : 0;
	}
	free(in);
	free(q);
	return rc;
}

/* A command job: on host 1, with the hosts' names and addresses, the dataplane's socket
 * and its hook in its environment. */
static int
command_job(FILE *f, const struct cg_run *r, const char *hosts, const char *addrs, const char *hook,
	    const char *hook_iters)
{
	const struct cg_campaign *c = r->c;
	size_t lq = 4 * sizeof(c->command) + 3, le = lq + 6 * PATH_MAX + 1024;
	char *qj = malloc(lq), *env = malloc(le), qh[4 * PATH_MAX + 3];
	int rc = -1;

	if (qj && env) {
		cg_quote(qj, lq, c->command);
		cg_quote(qh, sizeof(qh), hook);
		snprintf(env, le,
			 "exec env FE_HOSTS='%s' FE_ADDRS='%s' FABEMU_SOCKET=%s FE_HOOK=%s "
			 "FE_HOOK_ITERS='%s' sh -c %s",
			 hosts, addrs, r->sock, qh, hook_iters, qj);
		rc = on_host(f, r, 1, env);
	}
	free(qj);
	free(env);
	return rc;
}

/* The job's command line (a shell command run here, which runs the job on the hosts
 * through their prefixes), on regime g's ranks: hosts 1..ranks, into *cmd (free() it).
 * -1 if it could not be made whole (never cut). */
static int
job_command(const struct cg_run *r, const struct cg_regime *g, const char *hook,
	    const char *hook_iters, char **cmd)
{
	const struct cg_campaign *c = r->c;
	char hosts[CG_MAX_HOSTS * (CG_HOST_NAME + 1)] = "", addrs[CG_MAX_HOSTS * 20] = "";
	char sizes[256] = "", name[CG_HOST_NAME];
	unsigned iters = r->iters_override ? r->iters_override : c->iters;
	unsigned ranks = cg_regime_ranks(c, g);
	size_t nh = 0, na = 0, len;
	FILE *f;
	int rc;

	*cmd = NULL;
	for (unsigned i = 1; i <= ranks; i++) {
		cg_addf(hosts, sizeof(hosts), &nh, "%s%s", i > 1 ? "," : "",
			host_name(r, i, name, sizeof(name)));
		cg_addf(addrs, sizeof(addrs), &na, "%s%s", i > 1 ? "," : "", c->host[i].addr);
	}
	for (unsigned i = 0; i < c->nsizes; i++)
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%" PRIu64,
			 i ? "," : "", c->sizes[i]);
	if (c->allreduce && c->torch)
		return torch_job(r, ranks, hook, hook_iters, sizes, iters, cmd);
	if ((f = open_memstream(cmd, &len)) == NULL)
		return -1;
	fprintf(f, "exec %s ", r->pin);
	if (!c->allreduce) /* it runs "$FE_HOOK G" before each iteration G of FE_HOOK_ITERS */
		rc = command_job(f, r, hosts, addrs, hook, hook_iters);
	else
		rc = mpi_command(f, r, ranks, hook, hook_iters, sizes, iters);
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* How long a command beside the job is given before the next one starts (a server: until
 * it listens, if sooner). */
#define CG_BESIDE_UP_NS 200000000ull

static void
start_beside(struct cg_run *r, const char *tag)
{
	for (unsigned i = 0; i < r->c->nbeside; i++) {
		char cmd[16 * sizeof(r->c->beside[0].command) + 1024], hc[sizeof(cmd) - 64];
		char log[PATH_MAX];
		char *argv[] = {"/bin/sh", "-c", cmd, NULL};

		if (cg_host_sh(r, r->c->beside[i].host, r->c->beside[i].command, hc, sizeof(hc)) <
		    0) {
			cg_say("    beside.%u: its command on host %u would be over %zu bytes: not "
			       "run\n",
			       i, r->c->beside[i].host, sizeof(hc) - 1);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "exec %s %s", r->pin, hc);
		cg_logpath(r, log, sizeof(log), "beside-%s-%u.log", tag, i + 1);
		r->beside[i] = cg_spawn(argv, log, NULL);
		/* servers first, in file order: a TCP server is given until it listens, up
		 * to CG_BESIDE_UP_NS; any other command all of it, so that a client's traffic
		 * is under way before the next one and the job (an incast the job meets at
		 * its start, not after it, slowed the congestion tree's ib-nic victim from
		 * 2.0-2.2 s to 3.3-3.5 s, 2026-12-05) */
		for (uint64_t t0 = cg_now_ns(CLOCK_MONOTONIC);
		     r->beside[i] > 0 && !cg_group_listens(r->beside[i]) &&
		     cg_now_ns(CLOCK_MONOTONIC) - t0 < CG_BESIDE_UP_NS;)
			usleep(10000);
	}
}

/* All at once: each has the same 2 s to go. */
void
cg_stop_beside(struct cg_run *r)
{
	pid_t *all[CG_MAX_BESIDE];
	int rc[CG_MAX_BESIDE];

	for (unsigned i = 0; i < r->c->nbeside; i++)
		all[i] = &r->beside[i];
	cg_stop_groups(all, r->c->nbeside, SIGTERM, 2000, rc);
}

/* One line of the job's output: an iteration, recorded and shown. */
static void
job_line(const struct cg_run *r, const struct cg_regime *g, unsigned rep, const char *line,
	 const char *log, struct cg_job_result *jr)
{
	unsigned gi, i,
		total = (r->iters_override ? r->iters_override : r->c->iters) * r->c->nsizes;
	unsigned long long size, start;
	char sz[16];
	double t;
	FILE *lf;

	if (sscanf(line, "iter %u %llu %u %lf %llu", &gi, &size, &i, &t, &start) == 5) {
		json_array_append_new(jr->iters, json_pack("[i, I, i, f, I]", gi, (json_int_t)size,
							   i, t, (json_int_t)start));
		cg_say("    [%s %u/%u] iteration %3u/%u  %7s  %10.3f ms\n", g->name, rep + 1,
		       r->c->reps, gi, total, cg_size_name(size, sz, sizeof(sz)), t / 1000.0);
	}
	lf = fopen(log, "a");
	if (lf) {
		fprintf(lf, "%s\n", line);
		fclose(lf);
	}
}

/* Say one mark the job's hook wrote (a fault at an iteration), as the faults in time are. */
static void
say_mark(const char *line, const char *regime, FILE *out)
{
	int it, n = 0, failed = strncmp(line, "x ", 2) == 0;
	unsigned long long t;

	if (sscanf(line + (failed ? 2 : 0), "%d %llu %n", &it, &t, &n) < 2 || n == 0)
		return; /* a fault in time ("t ..."): already said */
	if (failed)
		fprintf(out,
			"    fault before iteration %d FAILED: %s (its fabemuctl command "
			"failed: logs/job-%s-*.log)\n",
			it, line + 2 + n, regime);
	else
		fprintf(out, "    fault before iteration %d: %s\n", it, line + n);
	fflush(out);
}

void
cg_marks_poll(struct cg_marks *m, const char *regime, FILE *out)
{
	char line[512];

	if (m->f == NULL) {
		m->at = 0;
		m->f = fopen(m->path, "re"); /* close-on-exec: the steps' commands never hold it */
		if (m->f == NULL)
			return; /* no mark written yet */
	}
	/* from the end of the last whole line: a line the hook is still writing is read again
	 * (the seek also clears the stream's end of file, so what was appended since is read) */
	if (fseek(m->f, m->at, SEEK_SET) != 0)
		return;
	while (fgets(line, sizeof(line), m->f) && strchr(line, '\n')) {
		m->at = ftell(m->f);
		line[strcspn(line, "\n")] = '\0';
		say_mark(line, regime, out);
	}
}

void
cg_marks_close(struct cg_marks *m)
{
	if (m->f)
		fclose(m->f);
	m->f = NULL;
}

/* Run the job; follow its output; fire timed steps; stop on Ctrl-C or a dead dataplane. */
void
cg_run_job(struct cg_run *r, const struct cg_regime *g, unsigned rep, const char *marks,
	   struct cg_job_result *jr)
{
	char hook[PATH_MAX], hook_iters[512], log[PATH_MAX], buf[65536], *cmd = NULL;
	char *argv[] = {"/bin/sh", "-c", NULL, NULL};
	uint64_t t0, t;
	size_t blen = 0;
	int fd = -1, done = 0, fired[CG_STEPS_MAX] = {0}, runs[CG_STEPS_MAX];
	struct cg_marks mk = {.path = marks};

	snprintf(hook, sizeof(hook), "%s/logs/hook-%s-%u.sh", r->out, g->name, rep + 1);
	write_hook(r, g, hook, marks, hook_iters, sizeof(hook_iters));
	cg_logpath(r, log, sizeof(log), "job-%s-%u.log", g->name, rep + 1);
	jr->iters = json_array();
	if (job_command(r, g, hook, hook_iters, &cmd) < 0) {
		cg_say("    the job's command could not be made whole (out of memory, or a host's "
		       "command over its room): not run\n");
		free(cmd);
		jr->status = -1;
		return;
	}
	argv[2] = cmd;
	t = cg_now_ns(CLOCK_MONOTONIC);
	start_beside(r, g->name);
	jr->beside_ns = cg_now_ns(CLOCK_MONOTONIC) - t;
	if (cg_baseline(g) && r->c->nsteps)
		cg_say("    (a baseline: the timeline's %u fault step(s) are not run)\n",
		       r->c->nsteps);
	for (unsigned i = 0; i < r->c->nsteps; i++) {
		const struct cg_step *s = &r->c->steps[i];

		runs[i] = cg_step_runs(r, g, s);
		if (!runs[i] && !cg_baseline(g))
			cg_say("    (%s: %s is not in this regime's fabric: not run)\n", s->src,
			       s->what);
	}
	t0 = cg_now_ns(CLOCK_MONOTONIC);
	jr->start_ns = cg_now_ns(CLOCK_REALTIME);
	r->job = cg_spawn(argv, log, &fd);
	free(cmd);
	while (!done && r->job > 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		uint64_t el = cg_now_ns(CLOCK_MONOTONIC) - t0;
		int st;

		for (unsigned i = 0; i < r->c->nsteps; i++) {
			const struct cg_step *s = &r->c->steps[i];

			if (runs[i] && s->at_iter == 0 && !fired[i] && el >= s->at_ns) {
				fired[i] = 1;
				if (run_step_now(r, g, s, marks) == 0)
					cg_say("    fault at %.3f s: %s\n", (double)el / 1e9,
					       s->what);
				else
					cg_say("    fault at %.3f s FAILED: %s (its fabemuctl "
					       "command "
					       "failed: logs/faults.log)\n",
					       (double)el / 1e9, s->what);
			}
		}
		cg_marks_poll(&mk, g->name, stdout);
		if (cg_interrupted)
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
			*nl = '\0';
			job_line(r, g, rep, buf, log, jr);
			memmove(buf, nl + 1, blen - (size_t)(nl + 1 - buf) + 1);
			blen -= (size_t)(nl + 1 - buf);
		}
	}
	if (fd >= 0)
		close(fd);
	/* the job's end: its output's (EOF), not after it is waited for below */
	jr->eof_ns = cg_now_ns(CLOCK_REALTIME);
	t = cg_now_ns(CLOCK_MONOTONIC);
	cg_marks_poll(&mk, g->name, stdout);
	cg_marks_close(&mk);
	/* a job that finished exits by itself; one we stop gets SIGTERM, then SIGKILL */
	if (cg_interrupted || jr->dp_died)
		jr->status = cg_stop_group(&r->job, SIGTERM, 3000);
	else
		jr->status = cg_stop_group(&r->job, 0, 60000);
	if (cg_interrupted || jr->dp_died)
		jr->status = -1;
	/* a job that ended: at its EOF (job_s), not when it was waited for (up to 60 s); one
	 * stopped: once it stopped */
	jr->end_ns = done ? jr->eof_ns : cg_now_ns(CLOCK_REALTIME);
	cg_stop_beside(r);
	/* what the MPI job's daemons left, once none runs (mpi_command) */
	if (r->c->allreduce && !r->c->torch && r->c->tb != CG_TB_HOSTS)
		cg_sh("/dev/null", "rm -rf '" CG_MPI_DIR "'", r->testbed);
	jr->stop_ns = cg_now_ns(CLOCK_MONOTONIC) - t;
}
