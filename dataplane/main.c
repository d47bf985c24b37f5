/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp: forwards real traffic between DPDK ports through emulated links and
 * one emulated switch. main() starts it, in this order, each step in its own file:
 * the EAL; the options (fe_opts.h); with --box, the split of the topology across boxes
 * (fe_split.h); the links and the topology's graph (fe_links.h); the mbuf pool and the
 * ports (fe_pool.h, fe_ports.h); the trunks' latency (fe_split.h); the engine
 * (fe_dp.h), the ports' kernel side, telemetry and the control server; then the threads
 * (here), the banner and the warnings (fe_banner.h). The forwarding loop is fe_dp_run()
 * on the main lcore; a control thread serves requests and prints counters. Shutdown
 * lives here too.
 */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_version.h>

#include "fe_banner.h"
#include "fe_ctl.h"
#include "fe_ctl_proto.h"
#include "fe_dp.h"
#include "fe_kernel.h"
#include "fe_links.h"
#include "fe_opts.h"
#include "fe_pool.h"
#include "fe_ports.h"
#include "fe_report.h"
#include "fe_split.h"
#include "fe_telemetry.h"
#include "fe_time.h"

static volatile int stop_flag;
static volatile int dump_flag;
static int dump_failed; /* a SIGUSR1 dump was not written whole: the exit status says so */

/* Several switches (--topology): the topology, and the graph the engine builds from it;
 * --box: this box's part of it. The engine's graph conf points into them. */
static struct fe_topo topo;
static struct fe_graph_build gbuild;
static struct fe_split split;

static int rt_prio; /* --realtime */

/*
 * --realtime: the calling lcore's thread runs SCHED_FIFO at rt_prio. Then a wake-up
 * on the loop's tick is not queued behind the hosts' processes on the same core (with
 * a core of its own it changes nothing). The control thread, started before, keeps the
 * default policy.
 */
static int
go_realtime(char *err, size_t len)
{
	struct sched_param sp = {.sched_priority = rt_prio};
	int rc;

	if (rt_prio == 0)
		return 0;
	rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (rc != 0)
		snprintf(err, len, "--realtime %d: SCHED_FIFO refused: %s (needs CAP_SYS_NICE)",
			 rt_prio, strerror(rc));
	return rc ? -1 : 0;
}

/* The pipeline's down stage, on its worker lcore. */
static int
run_down(void *arg)
{
	char err[160];

	if (go_realtime(err, sizeof(err)) < 0) /* the main lcore's call did not fail */
		fprintf(stderr, "fabemu-dp: %s: the down stage runs without it\n", err);
	fe_dp_run_role(arg, FE_ROLE_DOWN, &stop_flag);
	return 0;
}

/*
 * SIGINT/SIGTERM: stop cleanly. One that comes 2 s or more after the first (someone
 * who sees it hang) stops the process at once; one sooner is the same stop delivered
 * twice (a terminal's Ctrl-C reaches a wrapper too, and wrappers pass it on).
 */
static void
signal_handler(int sig)
{
	static struct timespec first;
	struct timespec now;

	if (sig == SIGUSR1) {
		dump_flag = 1;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (first.tv_sec == 0) {
		first = now;
		stop_flag = 1;
	} else if (now.tv_sec - first.tv_sec >= 2) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

struct ctl_arg {
	const struct fe_dp *dp;
	const struct fe_opts *o;
	struct fe_ctl *server; /* NULL: no control socket */
};

/* The table to stdout, the JSON document to --stats-json. -1 if either is not whole. */
static int
dump(const struct ctl_arg *a)
{
	int rc = 0;

	fe_report_table(stdout, a->dp);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "fabemu-dp: the counter table was not written whole: %s\n",
			strerror(errno));
		clearerr(stdout);
		rc = -1;
	}
	if (a->o->stats_json) {
		FILE *f = fopen(a->o->stats_json, "w");
		int bad;

		if (f == NULL) {
			fprintf(stderr, "fabemu-dp: --stats-json %s: %s\n", a->o->stats_json,
				strerror(errno));
			return -1;
		}
		bad = fe_report_json(f, a->dp) < 0;
		if (fclose(f) != 0 || bad) {
			fprintf(stderr, "fabemu-dp: --stats-json %s: not written whole: %s\n",
				a->o->stats_json, strerror(errno));
			rc = -1;
		}
	}
	return rc;
}

/*
 * Control thread: serves fabemuctl (fe_ctl.h), SIGUSR1, the stats interval and the
 * duration; never the lcore. Every report and every fabric change runs here.
 */
static void *
ctl_thread(void *arg)
{
	const struct ctl_arg *a = arg;
	uint64_t start = fe_mono_ns(), last_dump = start, last_kernel = start;

	while (!stop_flag) {
		uint64_t now;

		if (a->server)
			fe_ctl_poll(a->server, 10);
		else
			usleep(10000);
		now = fe_mono_ns();
		/* AF_PACKET's statistics reset when read: take them before they could wrap */
		if (now - last_kernel >= 100000000) {
			last_kernel = now;
			fe_kernel_poll(fe_report_kernel());
		}
		if (dump_flag) {
			dump_flag = 0;
			if (dump(a) < 0)
				dump_failed = 1;
		}
		if (a->o->stats_interval_ns && now - last_dump >= a->o->stats_interval_ns) {
			last_dump = now;
			fe_report_table(stdout, a->dp);
		}
		if (a->o->duration_ns && now - start >= a->o->duration_ns)
			stop_flag = 1;
	}
	return NULL;
}

/* --stats-json's file if this process created it: removed at exit unless the run started */
static const char *stats_created;

static void
remove_unused_stats(void)
{
	if (stats_created)
		unlink(stats_created);
}

/*
 * A file the process could write at exit: refused at start if not (0 or -1, err says).
 * *created: 1 if it was not there (so that a refused start can remove it again: an
 * empty file would look like a run's counters), 0 if it was.
 */
static int
writable(const char *path, int *created, char *err, size_t len)
{
	/* O_NONBLOCK: a FIFO nobody reads is refused (ENXIO) instead of hanging here */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0644);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * The EAL's runtime directory (/var/run/dpdk/PREFIX/): its config, memory maps and
 * sockets stay after rte_eal_cleanup(). Ours, since our EAL took its lock: removed at
 * exit, clean or not. Registered only after rte_eal_init() succeeded, so that a start
 * refused because another process holds the prefix leaves that process's files alone.
 */
static void
remove_runtime_dir(void)
{
	const char *dir = rte_eal_get_runtime_dir();
	struct dirent *e;
	DIR *d;

	if (dir == NULL || dir[0] == '\0' || (d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

/*
 * Every device named on the EAL command line (--vdev NAME,..., -a/--allow NAME,...)
 * must have become a port: the EAL goes on without one that failed to probe, and the
 * ports after it would be renumbered (0.up meaning another host). NULL, or the first
 * missing device's argument.
 */
static const char *
missing_device(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char name[RTE_ETH_NAME_MAX_LEN];
		uint16_t pid;

		if (strcmp(a, "--") == 0)
			break;
		if (strncmp(a, "--vdev=", 7) == 0 || strncmp(a, "--allow=", 8) == 0)
			v = strchr(a, '=') + 1;
		else if (strncmp(a, "-a", 2) == 0 && a[2] != '\0')
			v = a + 2;
		else if ((!strcmp(a, "--vdev") || !strcmp(a, "--allow") || !strcmp(a, "-a")) &&
			 i + 1 < argc)
			v = argv[++i];
		if (v == NULL)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(v, ","), v);
		if (rte_eth_dev_get_port_by_name(name, &pid) != 0)
			return v;
	}
	return NULL;
}

/*
 * The options after the EAL's ("--" and what follows), parsed into *o before the EAL
 * starts: a bad one is refused before the EAL maps hugepages and probes the devices (an
 * AF_XDP or PCI port taken and given back), and leaves nothing behind. main() parses
 * them again from the EAL's argv; a copy here, since getopt permutes what it reads.
 * 0, or -1 with the message in err.
 */
static int
early_opts(int argc, char **argv, struct fe_opts *o, char *err, size_t len)
{
	char **v;
	int i, rc;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		;
	if (i == argc)
		return 0; /* no options of ours: the defaults */
	v = calloc((size_t)(argc - i) + 1, sizeof(*v));
	if (v == NULL) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	memcpy(v, argv + i, (size_t)(argc - i) * sizeof(*v));
	v[0] = argv[0];
	rc = fe_opts_parse(argc - i, v, o, err, len);
	free(v);
	return rc < 0 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct fe_linkdef *up, *down;
	struct fe_kernel *kernel;
	uint64_t *discarded;
	struct rte_mempool *pool;
	struct ctl_arg ctl = {0};
	uint16_t *ports, pid, room;
	unsigned nmbufs;
	static struct fe_opts o;
	unsigned nports = 0, nall;
	char err[512];
	pthread_t ctl_tid;
	struct fe_dp *dp;
	struct fe_wire *wire;
	int rc, ret, eal_argc;
	char **eal_argv;
	const char *missing;
	struct timespec ctl_deadline;

	switch (fe_opts_want_help(argc, argv)) {
	case 'h':
		fe_opts_usage(stdout);
		return 0;
	case 'V':
		printf("fabemu-dp %s (%s)\n", FE_VERSION, rte_version()); /* "DPDK 22.11.1" */
		return 0;
	}
	if (early_opts(argc, argv, &o, err, sizeof(err)) < 0) {
		fprintf(stderr, "fabemu-dp: %s\n", err);
		return 2;
	}
	/* nanosleep's default 50 us timer slack would make every idle wake-up late */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	/* the EAL permutes argv: keep its device arguments for missing_device() */
	eal_argv = calloc((size_t)argc + 1, sizeof(*eal_argv));
	if (eal_argv == NULL)
		return EXIT_FAILURE;
	memcpy(eal_argv, argv, (size_t)argc * sizeof(*argv));
	eal_argc = argc;
	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed: %s\n",
			 rte_errno ? rte_strerror(rte_errno)
				   : "see the EAL's message above (another DPDK process using "
				     "the same --file-prefix?)");
	atexit(remove_runtime_dir);
	missing = missing_device(eal_argc, eal_argv);
	free(eal_argv);
	if (missing)
		rte_exit(2,
			 "device '%s' did not become a port (see the EAL's message above); "
			 "refusing to start with the ports after it renumbered\n",
			 missing);
	argc -= ret;
	argv += ret;
	argv[0] = "fabemu-dp";
	if (fe_opts_parse(argc, argv, &o, err, sizeof(err)) < 0)
		rte_exit(2, "%s\n", err);
	if (o.stats_json) {
		int created;

		if (writable(o.stats_json, &created, err, sizeof(err)) < 0)
			rte_exit(2, "--stats-json %s\n", err);
		if (created) { /* until the run starts: a refused start leaves no file */
			stats_created = o.stats_json;
			atexit(remove_unused_stats);
		}
	}

	nports = rte_eth_dev_count_avail();
	if (nports == 0)
		rte_exit(2, "no ports: give EAL options such as --vdev=net_af_packet0,iface=IF "
			    "(see --help)\n");
	ports = calloc(nports, sizeof(*ports));
	up = calloc(nports, sizeof(*up));
	down = calloc(nports, sizeof(*down));
	if (!ports || !up || !down)
		rte_exit(EXIT_FAILURE, "out of memory\n");
	nports = 0;
	RTE_ETH_FOREACH_DEV(pid)
	ports[nports++] = pid;
	nall = nports;
	if (o.box && fe_split_setup(&split, &topo, &o, ports, &nports, err, sizeof(err)) < 0)
		rte_exit(2, "--box %s: %s\n", o.box, err);
	if (fe_links_build(&o, &topo, &gbuild, nports, up, down, err, sizeof(err)) < 0)
		rte_exit(2, "%s\n", err);
	if (o.box) /* the boxes run their regime and NICs alike (fe_split_hash_fabric()) */
		fe_split_hash_fabric(&split, o.dp.regime, o.dp.lanes, o.dp.lane_map, &o.dp.credit,
				     &o.dp.nic);
	if (o.topology && fe_links_graph(&o, &topo, &gbuild, &split, err, sizeof(err)) < 0)
		rte_exit(2, "--topology %s: %s\n", o.topology, err);
	if (o.dp.lcores > 1 && o.dp.regime != FE_REGIME_LOSSY)
		rte_exit(2, "--lcores 2: only the lossy regime runs as a pipeline (the lossless "
			    "ones are one causal loop)\n");

	if (fe_pool_room(&o, ports, nall, &room, err, sizeof(err)) < 0)
		rte_exit(2, "%s\n", err);
	nmbufs = o.mbufs ? (unsigned)o.mbufs
			 : fe_pool_size(&o, nports, nall, up, down, gbuild.def, 2 * topo.nlinks,
					rte_get_tsc_hz());
	pool = rte_pktmbuf_pool_create("fe_mbufs", nmbufs, 256, 0, room, rte_socket_id());
	if (pool == NULL)
		rte_exit(EXIT_FAILURE,
			 "mbuf pool of %u mbufs (%u MiB): %s; give EAL more memory (-m MB, e.g. "
			 "--no-huge -m 2048, or hugepages), or fewer with --mbufs\n",
			 nmbufs,
			 (unsigned)(((uint64_t)nmbufs * (room + 192) + (1 << 20) - 1) >> 20),
			 rte_strerror(rte_errno));
	if (fe_pool_ports_start(&o, ports, nports, nall, pool, up, down, err, sizeof(err)) < 0)
		rte_exit(2, "%s\n", err);
	discarded = calloc(nall, sizeof(*discarded));
	if (discarded == NULL)
		rte_exit(EXIT_FAILURE, "out of memory\n");
	if (o.box && split.ntrunks) {
		/* what the trunks' sockets caught before their bind: any interface's frames */
		fe_pool_discard(ports + nports, split.ntrunks, discarded + nports);
		if (fe_split_measure(&split, &topo, &o, pool, err, sizeof(err)) < 0)
			rte_exit(2, "--box %s: %s\n", o.box, err);
	}
	fe_pool_discard(ports, nports, discarded);

	wire = calloc(nports ? nports : 1, sizeof(*wire));
	if (wire == NULL)
		rte_exit(EXIT_FAILURE, "out of memory\n");
	for (unsigned i = 0; i < nports; i++) {
		wire[i].pause = (uint8_t)fe_ports_pause(ports[i], o.edge_pause, &wire[i].bps);
		wire[i].rxd = fe_ports_rxd(ports[i]); /* as the PMD adjusted --rxd */
	}
	o.dp.wire = wire;
	dp = fe_dp_create(nports, ports, up, down, pool, rte_get_tsc_hz(), &o.dp, err, sizeof(err));
	o.dp.wire = NULL;
	free(wire);
	if (dp == NULL)
		rte_exit(EXIT_FAILURE, "%s\n", err);
	/* the kernel side of the ports: counted from here, before the loop reads a frame */
	kernel = fe_kernel_open(dp, discarded, (uint32_t)o.rxd);
	if (kernel == NULL)
		rte_exit(EXIT_FAILURE, "out of memory\n");
	fe_report_set_kernel(kernel);
	rc = fe_telemetry_init(dp);
	if (rc < 0)
		fprintf(stderr, "fabemu-dp: telemetry: %s\n", rte_strerror(-rc));
	if (o.control || o.control_tcp) {
		struct fe_ctl_conf cc = {.socket_path = o.control,
					 .tcp = o.control_tcp,
					 .profile = o.profile,
					 .topology = o.topology,
					 .scale = (uint32_t)o.scale,
					 .version = FE_VERSION,
					 .token_file = o.control_token,
					 .capture_dir = o.capture_dir};

		fe_opts_to_fabric(&o, &cc.fabric);
		ctl.server = fe_ctl_create(dp, &cc, err, sizeof(err));
		if (ctl.server == NULL)
			rte_exit(2, "%s\n", err);
	}

	signal(SIGINT, signal_handler);
	signal(SIGTERM, signal_handler);
	signal(SIGUSR1, signal_handler);
	ctl.dp = dp;
	ctl.o = &o;
	if (rte_ctrl_thread_create(&ctl_tid, "fe-ctl", NULL, ctl_thread, &ctl) != 0)
		rte_exit(EXIT_FAILURE, "cannot start the control thread\n");
	rt_prio = (int)o.realtime;
	if (go_realtime(err, sizeof(err)) < 0)
		rte_exit(2, "%s\n", err);
	if (o.dp.lcores > 1) {
		unsigned worker = rte_get_next_lcore(rte_lcore_id(), 1, 0);

		if (worker >= RTE_MAX_LCORE)
			rte_exit(2, "--lcores 2 needs two EAL lcores (e.g. -l 0,1)\n");
		if (rte_eal_remote_launch(run_down, dp, worker) != 0)
			rte_exit(EXIT_FAILURE, "cannot start the down stage on lcore %u\n", worker);
		printf("pipeline: RX, up links and switch on lcore %u; down links and TX on lcore "
		       "%u\n",
		       rte_lcore_id(), worker);
	}
	fe_banner_print(dp, &o);
	fe_banner_warn(dp);
	stats_created = NULL; /* started: its counters go to --stats-json at exit */

	if (o.dp.lcores > 1)
		fe_dp_run_role(dp, FE_ROLE_UP, &stop_flag);
	else
		fe_dp_run(dp, &stop_flag);

	stop_flag = 1;
	rte_eal_mp_wait_lcore();
	/* a control request stuck in a system call must not keep the process alive */
	clock_gettime(CLOCK_REALTIME, &ctl_deadline);
	ctl_deadline.tv_sec += 5;
	if (pthread_timedjoin_np(ctl_tid, NULL, &ctl_deadline) == 0)
		fe_ctl_free(ctl.server);
	else
		fprintf(stderr, "fabemu-dp: the control thread did not stop within 5 s (a "
				"request stuck?): exiting without it\n");
	fe_telemetry_stop();
	fe_dp_drain(dp);
	ret = dump(&ctl) < 0 || dump_failed ? 4 : 0;
	if (fe_pool_shutdown(dp, ports, nports, pool) < 0)
		ret = 3;
	fe_report_set_kernel(NULL);
	fe_kernel_close(kernel);
	fe_dp_free(dp);
	free(discarded);
	rte_mempool_free(pool);
	free(ports);
	free(up);
	free(down);
	rte_eal_cleanup();
	return ret;
}
