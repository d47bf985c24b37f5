/* SPDX-License-Identifier: BSD-3-Clause */
/* fabemu-dp for one run: started on the testbed's ports, reset, read, stopped. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg.h"
#include "fe_client.h"

/* EAL's memory, into mem: hugepages where the machine has 512 MiB of them free
 * (--in-memory: no DPDK files, the memory gone with the process), else 4 KiB pages
 * (--no-huge -m MB), whose every page of the mbuf pool faults in at start: 1 to 3 s a
 * start on a VM, against 0.4 on hugepages (tests/e2e: fe_eal does the same). */
static void
eal_mem(unsigned mb, char *mem, size_t len)
{
	unsigned long free_pages = 0, page_kb = 0, v;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "HugePages_Free: %lu", &v) == 1)
			free_pages = v;
		else if (sscanf(line, "Hugepagesize: %lu kB", &v) == 1)
			page_kb = v;
	}
	if (f)
		fclose(f);
	if (free_pages * page_kb >= 512UL * 1024)
		snprintf(mem, len, "--in-memory");
	else
		snprintf(mem, len, "--no-huge -m %u", mb);
}

/* A split regime's box k (1..): its network namespace, DPDK prefix, control socket. */
static void
box_names(const struct cg_run *r, unsigned k, char *ns, char *sock)
{
	snprintf(ns, 80, "%s-b%u", r->prefix, k);
	snprintf(sock, 160, "%s.b%u", r->sock, k);
}

/* Every box's fabemu-dp stopped together (each writes its counters and checks its mbufs
 * as it goes), then what a split regime's boxes had. */
void
cg_dp_stop(struct cg_run *r, int *rc_out)
{
	pid_t *all[FE_TOPO_BOXES] = {&r->dp};
	int brc[FE_TOPO_BOXES], rc;
	unsigned n = 1;

	for (unsigned k = 1; k < r->nboxes && n < FE_TOPO_BOXES; k++)
		all[n++] = &r->box[k];
	cg_stop_groups(all, n, SIGINT, 10000, brc);
	rc = brc[0];
	for (unsigned k = 1; k < r->nboxes; k++) {
		char ns[80], sock[160];

		rc = rc ? rc : brc[k];
		box_names(r, k, ns, sock);
		unlink(sock);
		/* its end of every trunk goes with it, and the other end with that */
		cg_sh("/dev/null", "ip netns del %s; rm -rf /var/run/dpdk/%s", ns, ns);
	}
	r->nboxes = 0;
	if (rc_out)
		*rc_out = rc;
	cg_sh("/dev/null", "rm -rf /var/run/dpdk/%s", r->prefix);
	unlink(r->sock);
}

/* Until the dataplane at sock answers (or pid exits), asked every 10 ms for up to 40 s:
 * 0, or -1. */
static int
dp_wait(const char *sock, pid_t *pid)
{
	for (int i = 0; i < 4000 && *pid > 0; i++) {
		struct fe_client cl = {.socket = sock, .quiet = 1};
		int st;

		if (access(sock, F_OK) == 0 && fe_client_run(&cl, fe_client_request("status")) == 0)
			return 0;
		if (waitpid(*pid, &st, WNOHANG) == *pid) {
			*pid = 0;
			break;
		}
		usleep(10000);
	}
	return -1;
}

/*
 * Existing hosts' ports (testbed kind hosts), as the file names them: a PCI address as
 * -a ADDR, a vdev as --vdev=ARGS; an af_packet one given no ring of its own gets the
 * regime's (ring, in frames, its slots sized to the MTU, as veth.sh gives the veth kind's)
 * and one queue pair. 0, or -1 if they do not fit in len.
 */
static int
hosts_ports(const struct cg_run *r, const struct cg_regime *g, char *buf, size_t len)
{
	unsigned fsz = 2048;
	size_t n = 0;

	while (fsz - 128 < g->edge.mtu)
		fsz *= 2;
	for (unsigned h = 1; h <= r->c->hosts; h++) {
		const char *p = r->c->host[h].port;

		if (r->c->host[h].pci) {
			if (cg_addf(buf, len, &n, "-a %s ", p) < 0)
				return -1;
			continue;
		}
		int af_packet = strncmp(p, "net_af_packet", 13) == 0;

		if (cg_addf(buf, len, &n, "--vdev=%s", p) < 0 ||
		    (af_packet && !strstr(p, ",qpairs=") && cg_addf(buf, len, &n, ",qpairs=1") < 0))
			return -1;
		if (af_packet && !strstr(p, ",framecnt=") && !strstr(p, ",framesz=") &&
		    !strstr(p, ",blocksz=") &&
		    cg_addf(buf, len, &n, ",framecnt=%u,framesz=%u,blocksz=%u",
			    g->edge.ring * 2048 / fsz, fsz, fsz > 4096 ? fsz : 4096) < 0)
			return -1;
		if (cg_addf(buf, len, &n, " ") < 0)
			return -1;
	}
	return 0;
}

/* Whether a port of the testbed is a PCI device: EAL then scans the PCI bus, and the
 * devices want hugepages. */
static int
has_pci(const struct cg_campaign *c)
{
	for (unsigned h = 1; c->tb == CG_TB_HOSTS && h <= c->hosts; h++)
		if (c->host[h].pci)
			return 1;
	return 0;
}

/* The testbed's ports as EAL --vdev options, into vdevs: veth.sh asked once for each edge
 * (PMD, ring) and MTU; the ports do not change under a campaign. 0, or -1. */
static int
testbed_vdevs(struct cg_run *r, const struct cg_regime *g, char *vdevs, size_t len)
{
	char key[sizeof(r->vdevs_for)];

	if (r->c->tb == CG_TB_HOSTS)
		return hosts_ports(r, g, vdevs, len);

	snprintf(key, sizeof(key), "%s %u %u", g->edge.pmd, g->edge.ring, r->mtu_now);
	if (strcmp(key, r->vdevs_for) != 0) {
		r->vdevs_for[0] = '\0';
		if (cg_sh_out(r->vdevs, sizeof(r->vdevs),
			      "'%s/testbeds/veth.sh' vdevs --name %s --pmd %s --ring %u", r->root,
			      r->testbed, g->edge.pmd, g->edge.ring) != 0 ||
		    r->vdevs[0] == '\0')
			return -1;
		r->vdevs[strcspn(r->vdevs, "\n")] = '\0';
		snprintf(r->vdevs_for, sizeof(r->vdevs_for), "%s", key);
	}
	snprintf(vdevs, len, "%s", r->vdevs);
	return 0;
}

/* AF_PACKET options of a trunk of MTU mtu (a ring slot holds a frame after its header). */
static void
trunk_vdev(char *buf, size_t len, unsigned n, const char *ifc, unsigned mtu)
{
	unsigned fsz = 2048;

	while (fsz - 128 < mtu)
		fsz *= 2;
	snprintf(buf, len,
		 " --vdev=net_af_packet%u,iface=%s,qpairs=1,framecnt=%u,framesz=%u,blocksz=%u", n,
		 ifc, 16384 * 2048 / fsz, fsz, fsz > 4096 ? fsz : 4096);
}

/*
 * A split regime (docs/scale-out.md): each box but the first runs its fabemu-dp in a
 * network namespace of its own, as on another machine; each link between boxes is a veth
 * pair (a trunk) of the hosts' MTU plus the fabric header, without IPv6. vdevs0: the
 * first box's trunks, after its hosts' ports, and box0 its name; the others are started
 * here with `args`.
 */
static int
boxes_start(struct cg_run *r, const struct cg_regime *g, const char *args, const char *run_tag,
	    unsigned nhosts, char *vdevs0, size_t len0, char *box0, char *err, size_t errlen)
{
	char names[FE_TOPO_BOXES][FE_TOPO_NAME], vd[FE_TOPO_BOXES][2048] = {{0}};
	/* the hosts' frames behind the fabric header */
	unsigned n[FE_TOPO_BOXES] = {0}, mtu = g->edge.mtu + FE_TRUNK_HDR;
	struct fe_topo *t = malloc(sizeof(*t));
	int rc = -1;

	if (t == NULL || fe_topo_load(g->topology, t, err, errlen) < 0)
		goto out;
	r->nboxes = fe_topo_boxes(t, names);
	n[0] = nhosts;
	for (unsigned k = 1; k < r->nboxes; k++) {
		char ns[80], sock[160];

		box_names(r, k, ns, sock);
		cg_sh("/dev/null", "ip netns del %s 2>/dev/null", ns);
		if (cg_sh("/dev/null", "ip netns add %s", ns) != 0) {
			snprintf(err, errlen, "cannot make network namespace %s for box %s", ns,
				 names[k]);
			goto out;
		}
	}
	for (unsigned l = 0; l < t->nlinks; l++) {
		unsigned a = fe_topo_box_of(t, names, r->nboxes, t->link[l].a),
			 b = fe_topo_box_of(t, names, r->nboxes, t->link[l].b);
		char ifa[16], ifb[16], nsa[80], nsb[80], sock[160];
		char in_a[100] = "", in_b[100] = "";

		if (a == b)
			continue;
		snprintf(ifa, sizeof(ifa), "fe%05ut%ua", (unsigned)getpid() % 100000, l);
		snprintf(ifb, sizeof(ifb), "fe%05ut%ub", (unsigned)getpid() % 100000, l);
		box_names(r, a, nsa, sock);
		box_names(r, b, nsb, sock);
		if (a)
			snprintf(in_a, sizeof(in_a), "ip netns exec %s ", nsa);
		if (b)
			snprintf(in_b, sizeof(in_b), "ip netns exec %s ", nsb);
		if (cg_sh("/dev/null",
			  "ip link add %s mtu %u type veth peer name %s mtu %u && "
			  "ip link set %s netns %s && ip link set %s netns %s",
			  ifa, mtu, ifb, mtu, ifb, b ? nsb : "1", ifa, a ? nsa : "1") != 0 ||
		    cg_sh("/dev/null",
			  "%ssysctl -qw net.ipv6.conf.%s.disable_ipv6=1 && %sip link set %s up && "
			  "%ssysctl -qw net.ipv6.conf.%s.disable_ipv6=1 && %sip link set %s up",
			  in_a, ifa, in_a, ifa, in_b, ifb, in_b, ifb) != 0) {
			snprintf(err, errlen, "cannot make the trunk of link %s (veth %s, %s)",
				 t->link[l].name, ifa, ifb);
			goto out;
		}
		trunk_vdev(vd[a] + strlen(vd[a]), sizeof(vd[a]) - strlen(vd[a]), n[a]++, ifa, mtu);
		trunk_vdev(vd[b] + strlen(vd[b]), sizeof(vd[b]) - strlen(vd[b]), n[b]++, ifb, mtu);
	}
	snprintf(vdevs0 + strlen(vdevs0), len0 - strlen(vdevs0), "%s", vd[0]);
	for (unsigned k = 1; k < r->nboxes; k++) {
		char ns[80], sock[160], log[PATH_MAX], stats[PATH_MAX], cmd[8192], tag[192],
			mem[32];
		char *argv[] = {"/bin/sh", "-c", cmd, NULL};

		box_names(r, k, ns, sock);
		snprintf(tag, sizeof(tag), "%s-box-%s", run_tag, names[k]); /* dp-RUN-box-NAME */
		cg_logpath(r, log, sizeof(log), "dp-%s.log", tag);
		cg_logpath(r, stats, sizeof(stats), "dp-%s.json", tag);
		unlink(sock);
		eal_mem(1024, mem, sizeof(mem));
		if ((size_t)snprintf(
			    cmd, sizeof(cmd),
			    "exec ip netns exec %s nice -n -10 '%s/fabemu-dp' %s --no-pci -l %u "
			    "--file-prefix %s%s -- %s --box %s --control %s --stats-json '%s'",
			    ns, r->bindir, mem, sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0, ns,
			    vd[k], args, names[k], sock, stats) >= sizeof(cmd)) {
			snprintf(err, errlen, "fabemu-dp's command line would be over %zu bytes",
				 sizeof(cmd) - 1);
			goto out;
		}
		r->box[k] = cg_spawn(argv, log, NULL);
	}
	snprintf(box0, FE_TOPO_NAME, "%s", names[0]);
	rc = 0;
out:
	free(t);
	return rc;
}

/*
 * The lcore's weight against the machine's other tasks. The kernel schedules each session
 * as one group (autogroup: kernel.sched_autogroup_enabled) and a task's nice only counts
 * within its own; the dataplane, in a session of its own (cg_spawn()), had an even share
 * of core 0 with every other session there, its nice -10 notwithstanding: another user's
 * compiler or test took 0.3 to 7 s of a run's core (docs/campaigns.md, "Calibration").
 * With cores: split core 0 is the network's, so its session gets the highest weight
 * (CG_DP_AUTOGROUP_NICE; written once it listens: after its setsid()). The group goes with
 * the session: nothing to restore. A kernel without autogroup: nothing to do, nice holds.
 */
#define CG_DP_AUTOGROUP_NICE (-20)
static void
dp_weight(const struct cg_run *r)
{
	char path[64];
	FILE *f;

	if (!r->c->split || r->dp <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)r->dp);
	if ((f = fopen(path, "w")) == NULL)
		return;
	fprintf(f, "%d\n", CG_DP_AUTOGROUP_NICE);
	if (fclose(f) != 0)
		cg_say("  (the dataplane's scheduling group kept its weight: %s: %s)\n", path,
		       strerror(errno));
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
	char log[PATH_MAX], stats[PATH_MAX], vdevs[8192] = "", seed[32], cmd[8192], args[8192];
	char first[8192];	/* the first box's options */
	char eal[300], mem[32]; /* EAL's options: memory, the PCI bus */
	char box0[FE_TOPO_NAME] = "";
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	size_t n;

	if (testbed_vdevs(r, g, vdevs, sizeof(vdevs)) < 0) {
		if (r->c->tb == CG_TB_HOSTS)
			snprintf(err, errlen, "the testbed's ports would be over %zu bytes",
				 sizeof(vdevs) - 1);
		else
			snprintf(err, errlen,
				 "cannot list the testbed's ports (veth.sh vdevs --name %s)",
				 r->testbed);
		return -1;
	}
	snprintf(seed, sizeof(seed), "%" PRIu64, r->c->seed + rep);
	cg_logpath(r, log, sizeof(log), "dp-%s.log", tag);
	cg_logpath(r, stats, sizeof(stats), "dp-%s.json", tag);
	/* the dataplane is the network: the hosts beside it must not starve it. With a core
	 * of its own (cores: split) it busy-polls: sleeping would only make frames wait at
	 * the edge, and the hosts lose nothing by it (the regime's options come after). These
	 * are every box's options; each its own ports, --box, socket and log. */
	n = (size_t)snprintf(cmd, sizeof(cmd), "--profile '%s' --scale %u --seed %s --mtu %u%s%s",
			     profile, g->scale, seed, g->edge.mtu,
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
	/* split: the other boxes run on the hosts' core and sleep when idle, not to keep it
	 * from the hosts. With realtime: true they run SCHED_FIFO, so that a wake-up on a
	 * frame's tick is not queued behind the hosts' processes (docs/scale-out.md: when
	 * it helps and when it hurts). The first box has its own core when the cores are
	 * split, and busy-polls as one box does; else it shares too. A late option wins. */
	snprintf(args, sizeof(args), "%s --idle-sleep 50us%s", cmd,
		 g->realtime ? " --realtime 10" : "");
	snprintf(first, sizeof(first), "%s", g->split && !r->pin[0] ? args : cmd);
	if (g->split && profile == g->profile &&
	    boxes_start(r, g, args, tag, r->c->hosts, vdevs, sizeof(vdevs), box0, err, errlen) <
		    0) {
		cg_dp_stop(r, NULL);
		return -1;
	}
	/* PCI ports (testbed kind hosts): the bus scanned, hugepages (unlinked: none left);
	 * else no bus, and hugepages where there are enough (eal_mem()) */
	eal_mem(2048, mem, sizeof(mem));
	snprintf(eal, sizeof(eal), "%s --no-pci", mem);
	if (has_pci(r->c))
		snprintf(eal, sizeof(eal), "--huge-unlink -m 1024%s%s",
			 r->c->huge_dir[0] ? " --huge-dir " : "", r->c->huge_dir);
	if ((size_t)snprintf(cmd, sizeof(cmd),
			     "exec nice -n -10 '%s/fabemu-dp' %s -l %u "
			     "--file-prefix %s --log-level=pmd.net.af_xdp:error %s -- %s --control "
			     "%s --stats-json '%s'%s%s",
			     r->bindir, eal, r->c->lcore, r->prefix, vdevs, first, r->sock, stats,
			     box0[0] ? " --box " : "", box0) >= sizeof(cmd)) {
		snprintf(err, errlen, "fabemu-dp's command line would be over %zu bytes",
			 sizeof(cmd) - 1);
		cg_dp_stop(r, NULL);
		return -1;
	}
	unlink(r->sock);
	r->dp = cg_spawn(argv, log, NULL);
	if (dp_wait(r->sock, &r->dp) == 0) {
		unsigned k = 1;

		dp_weight(r);

		for (; k < r->nboxes; k++) {
			char ns[80], sock[160];

			box_names(r, k, ns, sock);
			if (dp_wait(sock, &r->box[k]) < 0)
				break;
		}
		if (k >= r->nboxes)
			return 0;
		snprintf(err, errlen,
			 "box %u of the split fabric did not start (log: %s/logs/dp-%s-box-*.log)",
			 k, r->out, tag);
	} else {
		snprintf(err, errlen, "fabemu-dp did not start (log: %s)", log);
	}
	cg_stop_group(&r->dp, SIGKILL, 100);
	cg_dp_stop(r, NULL);
	return -1;
}

/* Zero the dataplane's counters (and take the kernel's baselines): the job's window. */
int
cg_dp_reset(const struct cg_run *r)
{
	struct fe_client cl = {.socket = r->sock, .quiet = 1};
	int rc = fe_client_run(&cl, fe_client_request("reset"));

	for (unsigned k = 1; k < r->nboxes && rc == 0; k++) { /* every box's window */
		char ns[80], sock[160];
		struct fe_client b = {.socket = sock, .quiet = 1};

		box_names(r, k, ns, sock);
		rc = fe_client_run(&b, fe_client_request("reset"));
	}
	return rc;
}

static json_t *
counters_at(const char *sock)
{
	struct fe_client cl = {.socket = sock};
	json_t *reply, *doc;

	reply = fe_client_roundtrip(
		&cl, json_pack("{s:i, s:s, s:b}", "fabemu", 1, "cmd", "counters", "json", 1));
	doc = reply ? json_incref(json_object_get(reply, "data")) : NULL;
	json_decref(reply);
	return doc;
}

/*
 * The dataplane's counters document (docs/counters.md), or NULL. Split across boxes: the
 * first box's, each link between switches as the box that sends it counted it (its
 * queue, drops, marks, pauses heard and credits waited for), every box's trunks, and
 * the other boxes' lcores (boxes[]: what they took from the cores they share).
 */
json_t *
cg_dp_counters(const struct cg_run *r)
{
	json_t *doc = counters_at(r->sock), *links, *trunks, *boxes = json_array();

	links = json_object_get(json_object_get(doc, "graph"), "fabric_links");
	trunks = json_object_get(json_object_get(doc, "graph"), "trunks");
	if (doc && r->nboxes > 1)
		json_object_set(doc, "boxes", boxes);
	json_decref(boxes);
	for (unsigned k = 1; doc && k < r->nboxes; k++) {
		char ns[80], sock[160];
		json_t *b, *bl, *l;
		size_t i;

		box_names(r, k, ns, sock);
		b = counters_at(sock);
		if (b == NULL) {
			json_decref(doc);
			return NULL;
		}
		bl = json_object_get(json_object_get(b, "graph"), "fabric_links");
		json_array_foreach(bl, i, l) if (json_is_true(json_object_get(l, "sent_here")))
			json_array_set(links, i, l);
		json_array_extend(trunks, json_object_get(json_object_get(b, "graph"), "trunks"));
		json_array_append_new(boxes, json_pack("{s:i, s:O?}", "box", (int)k, "lcores",
						       json_object_get(b, "lcores")));
		json_decref(b);
	}
	return doc;
}
