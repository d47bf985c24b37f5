/* SPDX-License-Identifier: BSD-3-Clause */
/* fabemu-dp for one run: started on the testbed's ports, reset, read, stopped. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg.h"
#include "fe_client.h"

void
cg_dp_stop(struct cg_run *r, int *rc_out)
{
	int rc = cg_stop_group(&r->dp, SIGINT, 10000);

	if (rc_out)
		*rc_out = rc;
	cg_sh("/dev/null", "rm -rf /var/run/dpdk/%s", r->prefix);
	unlink(r->sock);
}

/*
 * Start fabemu-dp with the profile at path (a regime's, or the ideal one for the
 * capacity) on the regime's edge; its output goes to logs/dp-TAG.log and its final
 * counters to logs/dp-TAG.json. Returns once it answers on its control socket.
 */
int
cg_dp_start(struct cg_run *r, const struct cg_regime *g, const char *profile, unsigned rep,
	    const char *tag, char *err, size_t errlen)
{
	char log[PATH_MAX], stats[PATH_MAX], vdevs[4096] = "", seed[32], cmd[8192];
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	size_t n;

	if (cg_sh_out(vdevs, sizeof(vdevs),
		      "'%s/testbeds/veth.sh' vdevs --name %s --pmd %s --ring %u", r->root,
		      r->testbed, g->edge.pmd, g->edge.ring) != 0 ||
	    vdevs[0] == '\0') {
		snprintf(err, errlen, "cannot list the testbed's ports (veth.sh vdevs --name %s)",
			 r->testbed);
		return -1;
	}
	vdevs[strcspn(vdevs, "\n")] = '\0';
	snprintf(seed, sizeof(seed), "%" PRIu64, r->c->seed + rep);
	cg_logpath(r, log, sizeof(log), "dp-%s.log", tag);
	cg_logpath(r, stats, sizeof(stats), "dp-%s.json", tag);
	/* the dataplane is the network: the hosts beside it must not starve it. With a core
	 * of its own (cores: split) it busy-polls: sleeping would only make frames wait at
	 * the edge, and the hosts lose nothing by it (the regime's options come after) */
	n = (size_t)snprintf(
		cmd, sizeof(cmd),
		"exec nice -n -10 '%s/fabemu-dp' --no-huge -m 2048 --no-pci -l 0 --file-prefix %s "
		"--log-level=pmd.net.af_xdp:error %s -- --profile '%s' --scale %u --seed %s "
		"--control %s --stats-json '%s' --mtu %u%s%s",
		r->bindir, r->prefix, vdevs, profile, g->scale, seed, r->sock, stats, g->edge.mtu,
		r->pin[0] ? " --idle-sleep 0s" : "", g->edge.dpargs);
	for (unsigned i = 0; i < g->nlinks && profile == g->profile && n < sizeof(cmd); i++) {
		char q[700];

		cg_quote(q, sizeof(q), g->links[i]);
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " --link %s", q);
	}
	if (g->topology[0] && n < sizeof(cmd)) { /* the capacity runs on it too */
		char q[700];

		cg_quote(q, sizeof(q), g->topology);
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " --topology %s", q);
		if (g->path_set) /* else the profile's path:, else ecmp */
			n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " --path %s",
					      fe_path_name(g->path));
	}
	if (g->nic[0] && profile == g->profile && n < sizeof(cmd)) {
		char q[700];

		cg_quote(q, sizeof(q), g->nic);
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " --nic %s", q);
	}
	if (n >= sizeof(cmd)) {
		snprintf(err, errlen, "fabemu-dp's command line would be over %zu bytes",
			 sizeof(cmd) - 1);
		return -1;
	}
	unlink(r->sock);
	r->dp = cg_spawn(argv, log, NULL);
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
	cg_stop_group(&r->dp, SIGKILL, 100);
	return -1;
}

/* Zero the dataplane's counters (and take the kernel's baselines): the job's window. */
int
cg_dp_reset(const struct cg_run *r)
{
	struct fe_client cl = {.socket = r->sock, .quiet = 1};

	return fe_client_run(&cl, fe_client_request("reset"));
}

/* The dataplane's counters document (docs/counters.md), or NULL. */
json_t *
cg_dp_counters(const struct cg_run *r)
{
	struct fe_client cl = {.socket = r->sock};
	json_t *reply, *doc;

	reply = fe_client_roundtrip(
		&cl, json_pack("{s:i, s:s, s:b}", "fabemu", 1, "cmd", "counters", "json", 1));
	doc = reply ? json_incref(json_object_get(reply, "data")) : NULL;
	json_decref(reply);
	return doc;
}
