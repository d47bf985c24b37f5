/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE /* sched_setaffinity */
/*
 * The hosts: the veth testbed up and down (or existing hosts checked), its MTU, the wire
 * (the same hosts joined by a Linux bridge, no fabemu), the hosts' counters, and the
 * testbed's capacity; the runner's record of what it makes, and removing what a dead
 * runner left. Every command run on a host goes through cg_host_sh().
 */
#include <dirent.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cg.h"

/*
 * cores: split: this runner and whatever it starts (probes, hooks, the dataplane's
 * control threads) go to the hosts' cores "A" or "A-B"; only the dataplane's lcore
 * takes core 0 (-l 0 pins it there).
 */
static void
pin_self(const char *cpus)
{
	unsigned a = 0, b = 0;
	cpu_set_t set;

	if (sscanf(cpus, "%u-%u", &a, &b) < 2)
		b = a;
	CPU_ZERO(&set);
	for (unsigned c = a; c <= b && c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		cg_say("  (could not move the campaign to cores %s: %s)\n", cpus, strerror(errno));
}

const char *
cg_host_prefix(const struct cg_run *r, unsigned h, char *buf, size_t len)
{
	if (r->c->tb == CG_TB_HOSTS)
		snprintf(buf, len, "%s", r->c->host[h].prefix);
	else
		snprintf(buf, len, "ip netns exec %s-h%u", r->testbed, h);
	return buf;
}

int
cg_host_sh(const struct cg_run *r, unsigned h, const char *cmd, char *buf, size_t len)
{
	/* cg_quote() makes a quote of 4 bytes at most a byte, and 2 more */
	size_t q1 = 4 * strlen(cmd) + 3, q2 = 4 * q1 + 3;
	char *a = malloc(q1), *b = malloc(q2), prefix[300];
	int rc = -1;

	if (a && b) {
		cg_quote(a, q1, cmd);
		if (r->c->host[h].shell) /* ssh: the remote shell takes one quote off */
			cg_quote(b, q2, a);
		rc = (size_t)snprintf(buf, len, "%s sh -c %s",
				      cg_host_prefix(r, h, prefix, sizeof(prefix)),
				      r->c->host[h].shell ? b : a) < len
			     ? 0
			     : -1;
	}
	free(a);
	free(b);
	return rc;
}

/* Run cmd on host h: its standard output (up to len - 1 bytes) into out; its exit status,
 * or -1 if it could not run. */
static int
host_out(const struct cg_run *r, unsigned h, const char *cmd, char *out, size_t len)
{
	char hc[4096];

	out[0] = '\0';
	if (cg_host_sh(r, h, cmd, hc, sizeof(hc)) < 0)
		return -1;
	return cg_sh_out(out, len, "%s", hc);
}

/*
 * What the job needs on host h that the campaign does not carry there: this tree and its
 * build (the MPI and torch jobs run them from the same paths), and on host 1 the
 * runner's files (the hook a fault at an iteration runs). 0, or -1 and said what.
 */
static int
hosts_paths(const struct cg_run *r, unsigned h)
{
	const struct cg_campaign *c = r->c;
	char path[3][PATH_MAX + 64], out[64];
	unsigned n = 0;
	int iter_steps = 0;

	for (unsigned i = 0; i < c->nsteps; i++)
		iter_steps |= c->steps[i].at_iter > 0;
	if (c->allreduce && !c->torch)
		snprintf(path[n++], sizeof(path[0]), "%s/fe-allreduce", r->bindir);
	if (c->allreduce && c->torch)
		snprintf(path[n++], sizeof(path[0]), "%s/testbeds/allreduce_torch.py", r->root);
	if (h == 1 && iter_steps)
		snprintf(path[n++], sizeof(path[0]), "%s/logs", r->out);
	for (unsigned k = 0; k < n; k++) {
		char cmd[sizeof(path[0]) * 4 + 32], q[sizeof(path[0]) * 4 + 3];

		cg_quote(q, sizeof(q), path[k]);
		snprintf(cmd, sizeof(cmd), "test -e %s", q);
		if (host_out(r, h, cmd, out, sizeof(out)) != 0) {
			cg_say("  host %s: no %s there (%s)\n", c->host[h].name, path[k],
			       k + 1 == n && h == 1 && iter_steps
				       ? "a fault at an iteration runs its hook on host 1, in the "
					 "runner's directory: give it at: {time: T}, or host 1 the "
					 "directory"
				       : "the job runs this tree's build from the same path on "
					 "every "
					 "host");
			return -1;
		}
	}
	return 0;
}

/*
 * Existing hosts (testbed kind hosts): each reached by its prefix, with its address on its
 * interface; said, with what the campaign does not set on them (their MTU, ECN, congestion
 * control), and written to the results (inputs.testbed_hosts[]). 0, or -1 and said why.
 */
static int
hosts_check(struct cg_run *r)
{
	json_t *hosts = json_array();

	for (unsigned h = 1; h <= r->c->hosts; h++) {
		const struct cg_host *x = &r->c->host[h];
		char cmd[512], out[4096], want[64], cc[64] = "?", prefix[300];
		unsigned mtu = 0, k = 0;
		int ecn = -1, rc;

		snprintf(cmd, sizeof(cmd),
			 "ip -o -4 addr show dev %s && cat /sys/class/net/%s/mtu && "
			 "sysctl -n net.ipv4.tcp_ecn net.ipv4.tcp_congestion_control",
			 x->ifname, x->ifname);
		rc = host_out(r, h, cmd, out, sizeof(out));
		cg_host_prefix(r, h, prefix, sizeof(prefix));
		snprintf(want, sizeof(want), " inet %s/", x->addr);
		if (rc != 0) {
			cg_say("  host %s: '%s' could not read its interface %s (exit status %d): "
			       "is "
			       "the prefix right, and %s its interface?\n",
			       x->name, prefix, x->ifname, rc, x->ifname);
			json_decref(hosts);
			return -1;
		}
		if (strstr(out, want) == NULL) {
			cg_say("  host %s: no address %s on %s (through '%s'): %s", x->name,
			       x->addr, x->ifname, prefix, out);
			json_decref(hosts);
			return -1;
		}
		for (char *sv, *l = strtok_r(out, "\n", &sv); l; l = strtok_r(NULL, "\n", &sv)) {
			if (strstr(l, " inet ") != NULL)
				continue;
			if (k == 0)
				sscanf(l, "%u", &mtu);
			else if (k == 1)
				sscanf(l, "%d", &ecn);
			else if (k == 2)
				snprintf(cc, sizeof(cc), "%s", l);
			k++;
		}
		cg_say("  host %s: %s on %s, MTU %u, tcp_ecn %d, %s (as it is: the campaign sets "
		       "nothing on it)\n",
		       x->name, x->addr, x->ifname, mtu, ecn, cc);
		if (hosts_paths(r, h) < 0) {
			json_decref(hosts);
			return -1;
		}
		json_array_append_new(hosts, json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:s}",
						       "name", x->name, "prefix", x->prefix,
						       "address", x->addr, "ifname", x->ifname,
						       "port", x->port, "mtu", (int)mtu, "tcp_ecn",
						       ecn, "congestion_control", cc));
	}
	json_object_set_new(json_object_get(r->results, "inputs"), "testbed_hosts", hosts);
	return 0;
}

int
cg_testbed_up(struct cg_run *r)
{
	char log[PATH_MAX];

	char cpus[64] = "";

	if (r->c->tb == CG_TB_HOSTS) { /* existing hosts: checked, nothing made or set */
		cpu_set_t may;

		r->mtu_now = 0; /* what they have: checked against each regime's */
		/* the dataplane's core, one this runner may run on (as fabemu-dp will) */
		if (sched_getaffinity(0, sizeof(may), &may) == 0 && !CPU_ISSET(r->c->lcore, &may)) {
			cg_say("  testbed.lcore %u: not a core this machine lets it run on "
			       "(%d online)\n",
			       r->c->lcore, (int)sysconf(_SC_NPROCESSORS_ONLN));
			return -1;
		}
		return hosts_check(r);
	}
	cg_logpath(r, log, sizeof(log), "testbed.log");
	/* a Ctrl-C stops it: veth.sh removes what it made so far */
	if (r->own_testbed &&
	    cg_sh_stoppable(log, "'%s/testbeds/veth.sh' up %u --name %s --cores %s", r->root,
			    r->c->hosts, r->testbed, r->c->split ? "split" : "shared") != 0)
		return -1;
	r->mtu_now = 1500;
	/* the hosts' programs on the hosts' cores (a lent testbed says which) */
	if (cg_sh_out(cpus, sizeof(cpus), "'%s/testbeds/veth.sh' cpus --name %s", r->root,
		      r->testbed) == 0)
		cpus[strcspn(cpus, "\n")] = '\0';
	if (cpus[0]) {
		snprintf(r->pin, sizeof(r->pin), "taskset -c %s", cpus);
		pin_self(cpus);
	}
	/* per namespace: whether the hosts' TCP asks for ECN (marks need ECT packets); no
	 * IPv6, whose neighbour and multicast chatter would cross the job's counters */
	for (unsigned h = 1; h <= r->c->hosts; h++) {
		char cmd[128], hc[512];

		snprintf(cmd, sizeof(cmd),
			 "sysctl -qw net.ipv4.tcp_ecn=%d net.ipv6.conf.all.disable_ipv6=1",
			 r->c->host_ecn);
		if (cg_host_sh(r, h, cmd, hc, sizeof(hc)) < 0 || cg_sh(log, "%s", hc) != 0)
			return -1;
	}
	return 0;
}

/* Whatever still runs in our hosts (ranks, iperf3). */
void
cg_kill_hosts(const struct cg_run *r)
{
	/* existing hosts: only what the runner's process groups hold (stopped with them) */
	if (r->c->tb == CG_TB_VETH)
		cg_kill_netns(r->testbed);
}

void
cg_testbed_down(struct cg_run *r)
{
	char log[PATH_MAX];

	cg_kill_hosts(r);
	if (r->c->tb == CG_TB_HOSTS) /* nothing was made, nothing set */
		return;
	cg_logpath(r, log, sizeof(log), "testbed.log");
	cg_sh(log, "'%s/testbeds/veth.sh' unbridge --name %s", r->root, r->testbed);
	if (r->own_testbed)
		cg_sh(log, "'%s/testbeds/veth.sh' down --name %s", r->root, r->testbed);
	else if (r->mtu_now != 1500) /* a testbed we were lent goes back as it was */
		cg_mtu(r, 1500);
}

/* ---- The runner's record, and what a dead runner left ---- */

int
cg_record_write(const struct cg_run *r)
{
	char part[PATH_MAX + 8];
	FILE *f;
	int bad;

	mkdir(CG_STATE_DIR, 0755);
	snprintf(part, sizeof(part), "%s.part", r->record);
	if ((f = fopen(part, "w")) == NULL)
		return -1;
	fprintf(f,
		"# fabemuctl campaign run: what this runner makes. Once it is gone, its watchdog,\n"
		"# `fabemuctl testbed clean` or the next campaign run removes it all.\n"
		"pid %d\nstart %llu\nwatchdog %d\ntestbed %s\nown %d\nsocket %s\nprefix %s\n"
		"root %s\nout %s\n",
		(int)getpid(), cg_proc_start(getpid()), (int)r->watchdog, r->testbed,
		r->own_testbed, r->sock, r->prefix, r->root, r->out);
	bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(part, r->record) != 0) {
		unlink(part);
		return -1;
	}
	return 0;
}

/* A record's names are checked before they are used in commands and paths. */
static int
record_valid(const struct cg_owner *o)
{
	size_t n = strlen(o->testbed);
	unsigned u;
	char tail;

	if (o->pid <= 0 || n == 0 || n > 6 || o->testbed[0] < 'a' || o->testbed[0] > 'z' ||
	    strspn(o->testbed, "abcdefghijklmnopqrstuvwxyz0123456789") != n)
		return 0;
	if (sscanf(o->prefix, "fe-campaign-%u%c", &u, &tail) != 1)
		return 0;
	return strncmp(o->sock, CG_STATE_DIR "/campaign-", strlen(CG_STATE_DIR "/campaign-")) ==
		       0 &&
	       strstr(o->sock, "..") == NULL && o->root[0] == '/';
}

int
cg_record_read(const char *path, struct cg_owner *o)
{
	char line[PATH_MAX + 32], key[16], val[PATH_MAX];
	FILE *f = fopen(path, "r");

	memset(o, 0, sizeof(*o));
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		val[0] = '\0';
		if (line[0] == '#' || sscanf(line, "%15s %4095[^\n]", key, val) < 1)
			continue;
		if (strcmp(key, "pid") == 0)
			o->pid = atoi(val);
		else if (strcmp(key, "start") == 0)
			o->start = strtoull(val, NULL, 10);
		else if (strcmp(key, "watchdog") == 0)
			o->watchdog = atoi(val);
		else if (strcmp(key, "testbed") == 0)
			snprintf(o->testbed, sizeof(o->testbed), "%s", val);
		else if (strcmp(key, "own") == 0)
			o->own_testbed = atoi(val);
		else if (strcmp(key, "socket") == 0)
			snprintf(o->sock, sizeof(o->sock), "%s", val);
		else if (strcmp(key, "prefix") == 0)
			snprintf(o->prefix, sizeof(o->prefix), "%s", val);
		else if (strcmp(key, "root") == 0)
			snprintf(o->root, sizeof(o->root), "%s", val);
		else if (strcmp(key, "out") == 0)
			snprintf(o->out, sizeof(o->out), "%s", val);
	}
	fclose(f);
	return record_valid(o) ? 0 : -1;
}

void
cg_record_clean(const char *path, const struct cg_owner *o, const char *who)
{
	char log[PATH_MAX + 32], tb[PATH_MAX];
	int fd = open(path, O_RDONLY | O_CLOEXEC), dp, hosts, up;
	struct stat st;

	/* one cleaner at a time (the watchdog, testbed clean, a new runner): the ones that
	 * wait find the record gone */
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0 || st.st_nlink == 0) {
		close(fd);
		return;
	}
	snprintf(log, sizeof(log), "%s/logs", o->out);
	if (stat(log, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(log, sizeof(log), "%s/logs/cleanup.log", o->out);
	else
		snprintf(log, sizeof(log), "/dev/null");
	/* first what runs: the dataplane (it holds the testbed's interfaces), the hosts' */
	dp = cg_kill_arg(o->prefix);
	hosts = cg_kill_netns(o->testbed);
	snprintf(tb, sizeof(tb), CG_STATE_DIR "/testbed-%s", o->testbed);
	up = access(tb, F_OK) == 0;
	if (up) {
		cg_sh(log, "'%s/testbeds/veth.sh' unbridge --name %s", o->root, o->testbed);
		if (o->own_testbed) /* a lent testbed stays, as the runner would leave it */
			cg_sh(log, "'%s/testbeds/veth.sh' down --name %s", o->root, o->testbed);
		else
			cg_sh(log, "'%s/testbeds/veth.sh' mtu 1500 --name %s", o->root, o->testbed);
	}
	cg_sh(log, "rm -rf '/var/run/dpdk/%s' '" CG_MPI_DIR "'", o->prefix, o->testbed);
	unlink(o->sock);
	/* a split regime's other boxes (cg_dataplane.c): their namespaces (their trunks go
	 * with them), DPDK directories and sockets */
	cg_sh(log,
	      "for ns in $(ip netns list | awk '{print $1}' | grep '^%s-b'); do ip netns del $ns; "
	      "rm -rf \"/var/run/dpdk/$ns\"; done; rm -f '%s'.b*",
	      o->prefix, o->sock);
	fprintf(stderr,
		"fabemuctl: campaign runner %d is gone; %s removed what it left:%s%s%s%s%s "
		"control socket, DPDK runtime directory, record %s\n",
		(int)o->pid, who, dp ? " its dataplane," : "",
		hosts ? " what ran in its hosts," : "",
		!up		 ? ""
		: o->own_testbed ? " testbed "
				 : " the bridge and MTU of testbed ",
		up ? o->testbed : "", up ? "," : "", path);
	unlink(path);
	close(fd);
}

int
cg_clean_dead(int verbose)
{
	DIR *d = opendir(CG_STATE_DIR);
	struct dirent *e;
	int n = 0, bad = 0;

	while (d && (e = readdir(d)) != NULL) {
		char path[PATH_MAX], tail[8];
		struct cg_owner o;
		int pid;

		if (sscanf(e->d_name, "campaign-%d.ru%7s", &pid, tail) != 2 ||
		    strcmp(tail, "n") != 0)
			continue;
		snprintf(path, sizeof(path), CG_STATE_DIR "/%s", e->d_name);
		if (cg_record_read(path, &o) < 0) {
			fprintf(stderr,
				"fabemuctl: %s is not a campaign runner's record: left alone\n",
				path);
			bad = 1;
			continue;
		}
		if (o.pid == getpid())
			continue;
		if (o.start && cg_proc_start(o.pid) == o.start) {
			if (verbose)
				printf("campaign runner %d is running (testbed %s): left alone\n",
				       (int)o.pid, o.testbed);
			continue;
		}
		cg_record_clean(path, &o,
				verbose ? "fabemuctl testbed clean" : "the next campaign run");
		n++;
	}
	if (d)
		closedir(d);
	return bad ? -1 : n;
}

/* Existing hosts keep their MTU: each one's interface must have mtu already. */
static int
hosts_mtu(struct cg_run *r, uint32_t mtu)
{
	for (unsigned h = 1; h <= r->c->hosts; h++) {
		char cmd[64], out[64];
		unsigned have = 0;

		snprintf(cmd, sizeof(cmd), "cat /sys/class/net/%s/mtu", r->c->host[h].ifname);
		if (host_out(r, h, cmd, out, sizeof(out)) != 0 || sscanf(out, "%u", &have) != 1 ||
		    have != mtu) {
			cg_say("  host %s: %s's MTU is %u, not %u: the campaign does not change an "
			       "existing host's (set it there, or mtu: %u)\n",
			       r->c->host[h].name, r->c->host[h].ifname, have, mtu, have);
			return -1;
		}
	}
	r->mtu_now = mtu;
	return 0;
}

int
cg_mtu(struct cg_run *r, uint32_t mtu)
{
	char log[PATH_MAX];

	if (mtu == r->mtu_now)
		return 0;
	if (r->c->tb == CG_TB_HOSTS)
		return hosts_mtu(r, mtu);
	cg_logpath(r, log, sizeof(log), "testbed.log");
	if (cg_sh(log, "'%s/testbeds/veth.sh' mtu %u --name %s", r->root, mtu, r->testbed) != 0)
		return -1;
	r->mtu_now = mtu;
	return 0;
}

int
cg_wire_up(struct cg_run *r)
{
	char log[PATH_MAX];

	cg_logpath(r, log, sizeof(log), "testbed.log");
	return cg_sh(log, "'%s/testbeds/veth.sh' bridge --name %s", r->root, r->testbed) == 0 ? 0
											      : -1;
}

void
cg_wire_down(struct cg_run *r)
{
	char log[PATH_MAX];

	cg_logpath(r, log, sizeof(log), "testbed.log");
	cg_sh(log, "'%s/testbeds/veth.sh' unbridge --name %s", r->root, r->testbed);
}

/*
 * A host's kernel read from here, not by a program started in it: its network namespace
 * entered (setns), read, and the runner's own entered again. `ip netns exec` of nstat
 * and cat was 7 programs a host, 175 ms on a 2-core box whose other core the dataplane
 * polls, and a window reads every host twice a try (2026-12-02).
 */
static int
own_netns(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	return fd;
}

/* Into host h's network namespace: 0, or -1 (still in the runner's). */
int
cg_host_enter(const struct cg_run *r, unsigned host)
{
	char p[PATH_MAX];
	int fd, rc;

	if (own_netns() < 0)
		return -1;
	snprintf(p, sizeof(p), "/run/netns/%s-h%u", r->testbed, host);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	rc = setns(fd, CLONE_NEWNET);
	close(fd);
	return rc;
}

/* Back in the runner's own network namespace: what it starts next must not run in a host. */
void
cg_host_leave(void)
{
	if (setns(own_netns(), CLONE_NEWNET) == 0)
		return;
	fprintf(stderr, "fabemuctl campaign run: cannot return to its network namespace: %s\n",
		strerror(errno));
	exit(CG_SETUP); /* the watchdog removes what the record lists */
}

/* What nstat calls PREFIX+FIELD, from a stream of line pairs "Prefix: names" "Prefix:
 * values" (/proc/net/snmp, /proc/net/netstat), into the keys of t that it names. */
static void
snmp_parse(FILE *f, struct cg_host_ctr *t)
{
	static const struct {
		const char *name;
		size_t off;
	} keys[] = {
		{"TcpRetransSegs", offsetof(struct cg_host_ctr, retrans)},
		{"TcpExtTCPDSACKRecvSegs", offsetof(struct cg_host_ctr, dsack)},
		{"TcpExtTCPTimeouts", offsetof(struct cg_host_ctr, timeouts)},
		{"TcpExtTCPLossProbes", offsetof(struct cg_host_ctr, probes)},
		{"IpExtInCEPkts", offsetof(struct cg_host_ctr, ce)},
	};
	char names[16384], vals[16384]; /* not static: the events' thread reads too */

	while (f && fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
		char *sn, *sv, *n = strtok_r(names, " \n", &sn), *v = strtok_r(vals, " \n", &sv);
		char prefix[64], name[192];

		if (n == NULL || v == NULL || strcmp(n, v) != 0)
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)strlen(n) - 1, n); /* "Tcp" */
		while ((n = strtok_r(NULL, " \n", &sn)) && (v = strtok_r(NULL, " \n", &sv))) {
			snprintf(name, sizeof(name), "%s%s", prefix, n);
			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				if (strcmp(name, keys[k].name) == 0)
					*(uint64_t *)((char *)t + keys[k].off) =
						strtoull(v, NULL, 10);
		}
	}
}

static void
snmp_read(const char *path, struct cg_host_ctr *t)
{
	FILE *f = fopen(path, "re");

	snmp_parse(f, t);
	if (f)
		fclose(f);
}

/* The counters of interface ifname of the current namespace, as its sysfs statistics/
 * files give them (rtnetlink's IFLA_STATS64): 0, or -1. */
static int
link_stats(const char *ifname, struct rtnl_link_stats64 *st)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attr[RTA_SPACE(IFNAMSIZ)];
	} req = {.nh = {.nlmsg_type = RTM_GETLINK, .nlmsg_flags = NLM_F_REQUEST},
		 .ifi = {.ifi_family = AF_UNSPEC}};
	struct rtattr *a = (struct rtattr *)req.attr;
	static char buf[65536];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), rc = -1;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	ssize_t n;

	if (fd < 0)
		return -1;
	a->rta_type = IFLA_IFNAME;
	a->rta_len = RTA_LENGTH(strlen(ifname) + 1);
	memcpy(RTA_DATA(a), ifname, strlen(ifname) + 1);
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi)) + RTA_ALIGN(a->rta_len);
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0 || (n = recv(fd, buf, sizeof(buf), 0)) < 0)
		goto out;
	for (; NLMSG_OK(h, (size_t)n) && rc < 0; h = NLMSG_NEXT(h, n)) {
		struct ifinfomsg *ifi = NLMSG_DATA(h);
		int len = (int)IFLA_PAYLOAD(h);

		if (h->nlmsg_type != RTM_NEWLINK)
			break;
		for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len))
			if (a->rta_type == IFLA_STATS64 && RTA_PAYLOAD(a) >= sizeof(*st)) {
				memcpy(st, RTA_DATA(a), sizeof(*st));
				rc = 0;
			}
	}
out:
	close(fd);
	return rc;
}

static uint64_t
sysfs_u64(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * An existing host's counters, read through its prefix (another machine's, for all the
 * campaign knows): its TCP counters as /proc/net/snmp and netstat give them, then its
 * interface's (the lines after "@link"); then, on this machine, the kernel's side of its
 * port when the port is an interface's (af_packet, af_xdp).
 */
static void
hosts_read(const struct cg_run *r, unsigned host, struct cg_host_ctr *t)
{
	const struct cg_host *x = &r->c->host[host];
	static char out[65536];
	struct rtnl_link_stats64 st;
	char cmd[512], *at;
	FILE *f;

	snprintf(
		cmd, sizeof(cmd),
		"cat /proc/net/snmp /proc/net/netstat; echo @link; cd /sys/class/net/%s/statistics "
		"&& cat tx_packets tx_dropped rx_packets rx_dropped",
		x->ifname);
	if (host_out(r, host, cmd, out, sizeof(out)) != 0 || (at = strstr(out, "@link\n")) == NULL)
		return;
	*at = '\0';
	if ((f = fmemopen(out, strlen(out), "r")) != NULL) {
		snmp_parse(f, t);
		fclose(f);
	}
	unsigned long long v[4] = {0};

	if (sscanf(at + 6, "%llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3]) == 4) {
		t->tx_packets = v[0];
		t->tx_dropped = v[1];
		t->rx_packets = v[2];
		t->rx_dropped = v[3];
	}
	/* by rtnetlink, not sysfs: a campaign run in another network namespace (a lab
	 * node's, entered by nsenter) sees its own interfaces there, while /sys still shows
	 * the namespace that mounted it */
	if (x->port_iface[0] == '\0' || link_stats(x->port_iface, &st) != 0)
		return;
	t->peer_tx_dropped = st.tx_dropped;
	t->peer_rx_dropped = st.rx_dropped;
}

/* One host's TCP counters (nstat's) and its interface's (eth0), then its veth's other end. */
void
cg_host_read(const struct cg_run *r, unsigned host, struct cg_host_ctr *t)
{
	struct rtnl_link_stats64 st;
	char p[PATH_MAX];

	memset(t, 0, sizeof(*t));
	if (r->c->tb == CG_TB_HOSTS) {
		hosts_read(r, host, t);
		return;
	}
	if (cg_host_enter(r, host) == 0) {
		snmp_read("/proc/thread-self/net/snmp", t);
		snmp_read("/proc/thread-self/net/netstat", t);
		if (link_stats("eth0", &st) == 0) {
			t->tx_packets = st.tx_packets;
			t->tx_dropped = st.tx_dropped;
			t->rx_packets = st.rx_packets;
			t->rx_dropped = st.rx_dropped;
		}
		cg_host_leave();
	}
	snprintf(p, sizeof(p), "/sys/class/net/%s-h%u/statistics/tx_dropped", r->testbed, host);
	t->peer_tx_dropped = sysfs_u64(p);
	snprintf(p, sizeof(p), "/sys/class/net/%s-h%u/statistics/rx_dropped", r->testbed, host);
	t->peer_rx_dropped = sysfs_u64(p);
}

/*
 * Whether a TCP connection in file (/proc/net/tcp, tcp6) still waits for its peer:
 * opening (SYN_SENT, SYN_RECV) or closing (FIN_WAIT1, FIN_WAIT2, CLOSE_WAIT, LAST_ACK,
 * CLOSING: include/net/tcp_states.h). Established, listening, TIME_WAIT: not.
 */
static int
tcp_unsettled_in(FILE *f)
{
	char line[512];
	int n = 0;

	while (f && n == 0 && fgets(line, sizeof(line), f)) {
		unsigned st;

		if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%*x %*[0-9A-Fa-f]:%*x %x", &st) == 1)
			n = (st >= 0x02 && st <= 0x05) || st == 0x08 || st == 0x09 || st == 0x0B;
	}
	return n;
}

static int
tcp_unsettled(const char *file)
{
	FILE *f = fopen(file, "re");
	int n = tcp_unsettled_in(f);

	if (f)
		fclose(f);
	return n;
}

/* The same of an existing host, its tables read through its prefix. */
static int
hosts_unsettled(const struct cg_run *r, unsigned h)
{
	static char out[262144];
	FILE *f;
	int n;

	if (host_out(r, h, "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; true", out,
		     sizeof(out)) != 0 ||
	    (f = fmemopen(out, strlen(out) + 1, "r")) == NULL)
		return 1; /* not known: as if */
	n = tcp_unsettled_in(f);
	fclose(f);
	return n;
}

int
cg_hosts_unsettled(const struct cg_run *r)
{
	int n = 0;

	for (unsigned h = 1; h <= r->c->hosts && n == 0; h++) {
		if (r->c->tb == CG_TB_HOSTS) {
			n = hosts_unsettled(r, h);
			continue;
		}
		if (cg_host_enter(r, h) < 0)
			return 1; /* not known: as if */
		n = tcp_unsettled("/proc/thread-self/net/tcp") ||
		    tcp_unsettled("/proc/thread-self/net/tcp6");
		cg_host_leave();
	}
	return n;
}

double
cg_ping_rtt_us(const struct cg_run *r)
{
	char ping[128], hc[1024], cmd[1200], line[512];
	double mn, avg = -1;
	FILE *f;

	/* host 1 to host 2 */
	snprintf(ping, sizeof(ping), "ping -q -c 20 -i 0.01 -W 1 %s", r->c->host[2].addr);
	if (cg_host_sh(r, 1, ping, hc, sizeof(hc)) < 0)
		return -1000;
	snprintf(cmd, sizeof(cmd), "%s %s", r->pin, hc);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "rtt ", 4) == 0)
			sscanf(strchr(line, '=') + 1, "%lf/%lf", &mn, &avg);
	if (f)
		pclose(f);
	return avg * 1000;
}

/*
 * The ring's shell command into *cmd (free() it): a server on every host (each gone after
 * its one test), each waited for until it listens; then every host's client to the next
 * host, each writing its JSON to OUT-I.json; then the servers left (a client that never
 * came) stopped. 0, or -1.
 */
static int
ring_command(const struct cg_run *r, const char *out, unsigned secs, char **cmd)
{
	const unsigned n = r->c->hosts;
	char c[256], hc[2048];
	size_t len;
	FILE *f = open_memstream(cmd, &len);
	int rc = 0;

	if (f == NULL)
		return -1;
	for (unsigned i = 1; i <= n && rc == 0; i++) {
		snprintf(c, sizeof(c), "exec iperf3 -s -1 -p %u", 5400 + i);
		rc = cg_host_sh(r, i, c, hc, sizeof(hc));
		fprintf(f, "%s %s >/dev/null 2>&1 & s%u=$!; ", r->pin, hc, i);
	}
	for (unsigned i = 1; i <= n && rc == 0; i++) {
		rc = cg_host_sh(r, i, "ss -ltn", hc, sizeof(hc));
		fprintf(f,
			"for t in $(seq 50); do %s | grep -q ':%u ' && break; sleep 0.05; done; ",
			hc, 5400 + i);
	}
	for (unsigned i = 1; i <= n && rc == 0; i++) {
		unsigned j = i % n + 1;

		snprintf(c, sizeof(c), "exec iperf3 -c %s -p %u -t %u -J", r->c->host[j].addr,
			 5400 + j, secs);
		rc = cg_host_sh(r, i, c, hc, sizeof(hc));
		fprintf(f, "%s %s >'%s-%u.json' & c%u=$!; ", r->pin, hc, out, i, i);
	}
	fprintf(f, "wait");
	for (unsigned i = 1; i <= n; i++)
		fprintf(f, " $c%u", i);
	fprintf(f, "; kill");
	for (unsigned i = 1; i <= n; i++)
		fprintf(f, " $s%u", i);
	fprintf(f, " 2>/dev/null; wait");
	if (fclose(f) != 0 || rc != 0) {
		free(*cmd);
		*cmd = NULL;
		return -1;
	}
	return 0;
}

/*
 * Every host sends to the next one (host N to host 1) with iperf3 at once, for ns: the
 * pattern of a ring all-reduce, every link of the testbed loaded. Returns the sum of
 * what the receivers got, in bit/s, or -1 if a stream failed.
 */
double
cg_ring_goodput(struct cg_run *r, const char *tag, uint64_t ns)
{
	const unsigned n = r->c->hosts;
	char log[PATH_MAX], out[PATH_MAX], *cmd;
	double sum = 0;
	int rc;

	cg_logpath(r, log, sizeof(log), "capacity-%s.log", tag);
	cg_logpath(r, out, sizeof(out), "capacity-%s", tag);
	if (ring_command(r, out, (unsigned)((ns + 500000000) / 1000000000), &cmd) < 0)
		return -1;
	rc = cg_sh_stoppable(log, "%s", cmd);
	free(cmd);
	if (rc != 0) {
		cg_kill_hosts(r);
		return -1;
	}
	for (unsigned i = 1; i <= n; i++) {
		char file[PATH_MAX + 16];
		json_t *d;
		double bps;

		snprintf(file, sizeof(file), "%s-%u.json", out, i);
		d = json_load_file(file, 0, NULL);
		bps = json_number_value(
			json_object_get(json_object_get(json_object_get(d, "end"), "sum_received"),
					"bits_per_second"));
		json_decref(d);
		if (bps <= 0)
			return -1;
		sum += bps;
	}
	return sum;
}
