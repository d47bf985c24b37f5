/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp: forwards real traffic between DPDK ports through emulated links and
 * one emulated switch. Start-up and shutdown live here; the forwarding loop is
 * fe_dp_run() on the main lcore; a control thread prints counters on request.
 */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_version.h>

#include "fe_ctl.h"
#include "fe_ctl_proto.h"
#include "fe_derive.h"
#include "fe_dp.h"
#include "fe_dpopts.h"
#include "fe_graphconf.h"
#include "fe_kernel.h"
#include "fe_linkspec.h"
#include "fe_nicport.h"
#include "fe_ports.h"
#include "fe_profile.h"
#include "fe_regimespec.h"
#include "fe_report.h"
#include "fe_rules.h"
#include "fe_telemetry.h"
#include "fe_units.h"

#define MAX_SPECS 256

struct spec {
	int is_file;
	const char *text;
};

struct opts {
	struct fe_linkdef link; /* defaults for every link */
	struct spec specs[MAX_SPECS];
	unsigned nspecs;
	const char *nic[8];   /* --nic, applied in order on top of the profile's nic: */
	const char *topology; /* --topology: several switches (docs/topologies.md) */
	const char *box;      /* --box: the switches of one box of a split fabric */
	enum fe_path path;
	int path_set; /* --path given (else the profile's path:, else ecmp) */
	uint64_t deadlock_ns, flowlet_ns, failover_ns; /* --deadlock-time, --flowlet-gap, ... */
	unsigned nnic;
	struct fe_dp_conf dp;
	uint64_t rxd, txd, mbufs;
	uint64_t mtu; /* the largest IP packet the hosts send: the ports' MTU, sizes the mbufs */
	int keep_fc;  /* --port-flow-control keep: the NICs' own 802.3x left as found */
	uint64_t link_wait_ns; /* --link-wait */
	int edge_pause;	       /* --edge-pause: enum fe_ports_pause */
	uint64_t stats_interval_ns, duration_ns;
	uint64_t realtime; /* --realtime: the lcores' SCHED_FIFO priority; 0: not */
	const char *stats_json;
	int seed_set;
	int buffer_set;	     /* --buffer or --buffer-pkts given: no regime default for up links */
	const char *profile; /* YAML profile (name or path) */
	uint64_t scale;	     /* its dilation; 0: the profile's own */
	const char *fabric_opt; /* a fabric or link option that --profile excludes */
	const char *control, *control_tcp;
	const char *control_token, *capture_dir;
};

static volatile int stop_flag;
static volatile int dump_flag;
static int dump_failed; /* a SIGUSR1 dump was not written whole: the exit status says so */

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: fabemu-dp [EAL options] -- [options]\n"
		"\n"
		"Forwards traffic between all DPDK ports through one emulated switch. Each port\n"
		"has two emulated links: N.up (host to switch) and N.down (switch to host).\n"
		"Ports come from EAL options, e.g. --vdev=net_af_xdp0,iface=veth0,\n"
		"--vdev=net_af_packet0,iface=veth0, "
		"--vdev=net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap,\n"
		"or PCI devices bound to a DPDK driver (-a 0000:01:00.0).\n"
		"\n"
		"Link options (every link; --link and --profile override per link):\n"
		"  --rate RATE          line rate, e.g. 1Gbit, 200Mbit (default: 0 = unlimited)\n"
		"  --delay TIME         one-way propagation delay, e.g. 100us (default: 0s)\n"
		"  --buffer SIZE        buffer limit in bytes, e.g. 512KiB (default: 1MiB; 0 = "
		"none)\n"
		"  --buffer-pkts N      buffer limit in packets (default: 1000, lossless up links\n"
		"                       16384, PFC egress links none; 0 = none)\n"
		"  --link SPEC          '[SEL:]key=value[,key=value...]', SEL one of all, up, "
		"down,\n"
		"                       N, N.up, N.down (with --topology also fabric, A-B, A>B);\n"
		"                       keys rate, delay, buffer, buffer-pkts, and the\n"
		"                       impairments loss=P%%, ge=P%%/R%%[/BAD%%[/GOOD%%]],\n"
		"                       ecn=KMIN/KMAX[/PMAX%%][/drop], jitter=TIME, drop=K[/N],\n"
		"                       llr=on|off (link-level retry: what loss and ge hit is\n"
		"                       sent again a link round trip later, in order),\n"
		"                       match=TCPDUMP-FILTER (last; limits the impairments to the\n"
		"                       packets it matches). Repeatable; applied in order after\n"
		"                       the options above. See docs/regimes.md.\n"
		"  --link-file FILE     link specs from FILE, one per line, '#' comments\n"
		"Profiles (docs/profiles.md):\n"
		"  --profile P          a YAML fabric profile: a name from profiles/ (ideal, "
		"ib-hdr,\n"
		"                       ib-ndr, roce-pfc-ecn, roce-lossy, spectrum-x,\n"
		"                       ethernet-lossy, ethernet-ecn, uec, uec-lossless) or a\n"
		"                       file. It sets the regime and every link; --link and\n"
		"                       --seed still apply on top, the other fabric and link\n"
		"                       options are refused with it.\n"
		"  --scale N            apply the profile N times slower (rates / N, times x N),\n"
		"                       keeping bandwidth x delay against buffers and credits\n"
		"                       (default: the profile's scale, normally 1)\n"
		"Fabric regime (docs/regimes.md):\n"
		"  --regime R           lossy (default): output-queued, tail drop, loss, ECN;\n"
		"                       pfc: output-queued, PFC pauses the sender per priority;\n"
		"                       credit: input-queued per lane, credit-based (InfiniBand)\n"
		"  --lanes N            virtual lanes / priorities, 1 to 8 (default: 1)\n"
		"  --lane-map M         lane from the 802.1Q PCP (pcp, default) or IP DSCP >> 3 "
		"(dscp)\n"
		"  --pfc SPEC           xoff=SIZE,xon=SIZE,headroom=SIZE,delay=TIME,quanta=N,\n"
		"                       frames=0|1 (1: real 802.1Qbb frames to the hosts),\n"
		"                       watchdog=TIME,watchdog-action=drop|forward,restore=TIME\n"
		"                       (the PFC watchdog of links between switches; off)\n"
		"                       (default: xoff=64KiB, xon=xoff-2x1514, quanta=65535;\n"
		"                       delay: link delay + 1us; headroom: 2 x delay x rate\n"
		"                       + 2 x (1518 + 24) B)\n"
		"  --credit SPEC        buffer=SIZE (per lane, in 64-byte blocks),return=TIME,\n"
		"                       hoq=TIME (HOQLife, 0s = off),out=N (output buffer, "
		"packets)\n"
		"                       (default: buffer=64KiB,return=0s,hoq=0s,out=2)\n"
		"                       Lossless regimes give the up links (host adapter queues)\n"
		"                       32MiB / 16384 packets unless --buffer/--buffer-pkts say.\n"
		"  --nic SPEC           the hosts' adapters (docs/nic.md): "
		"model=tcp|roce|ib|host|uec,\n"
		"                       recovery=go-back-n|selective, window=N, timeout=TIME,\n"
		"                       cc=off|dcqcn|ib, DCQCN's g=1/N, cnp-interval, "
		"alpha-period,\n"
		"                       rate-period, rate-bytes, stages, ai-rate, hai-rate,\n"
		"                       min-rate, InfiniBand CC's ccti-increase, ccti-limit,\n"
		"                       ccti-min, ccti-timer, cct-step=1/N. On top of a profile's\n"
		"                       nic: (not scaled).\n"
		"                       (default: model=tcp: the hosts' TCP meets the fabric)\n"
		"  --topology T         several switches (docs/topologies.md): a shipped topology\n"
		"                       or a file; its host ports are the ports, in order. Links\n"
		"                       between switches take the profile's link: (and its\n"
		"                       links: entries for all or fabric), scaled or set by the\n"
		"                       topology, then --link specs naming them: fabric, A-B,\n"
		"                       A>B. Every regime: PFC and credits hop by hop (default:\n"
		"                       single)\n"
		"  --box NAME           run the switches of one box of a fabric split across\n"
		"                       boxes (docs/scale-out.md: the topology's switches: box:).\n"
		"                       Ports: this box's hosts' first, in the topology's order,\n"
		"                       then one a link to another box (a trunk), in link\n"
		"                       order. Each trunk's one-way latency is measured at start\n"
		"                       (the other box's fabemu-dp must run, 30 s at most) and\n"
		"                       subtracted from the link's delay. Every box runs the\n"
		"                       same topology and --nic (both checked)\n"
		"  --path P             next hop among equal-cost ones: ecmp (5-tuple hash, a\n"
		"                       seed a switch), polarized (one hash everywhere), spray\n"
		"                       (round robin a packet), spray-random (at random),\n"
		"                       adaptive (least queued),\n"
		"                       flowlet (least queued after a gap in the flow)\n"
		"                       (default: the profile's path:, else ecmp)\n"
		"  --flowlet-gap TIME   the gap that starts a new flowlet (default: 100us, times\n"
		"                       the profile's scale)\n"
		"  --failover-time TIME a link between switches that loses everything "
		"(loss=100%%:\n"
		"                       a flap) this long is routed around (default: 100us, times\n"
		"                       the profile's scale)\n"
		"  --deadlock-time TIME a cycle of links between switches, each paused or out of\n"
		"                       credits this long, is reported as a deadlock (default:\n"
		"                       10ms)\n"
		"  --switch-buffer SIZE packet memory shared by the switch's egress queues (the\n"
		"                       N.down links), e.g. 1MiB (default: 0 = not shared). With\n"
		"                       --topology each switch has one of its own, for its links\n"
		"                       to hosts and to switches (a switch's buffer: in the\n"
		"                       topology overrides it)\n"
		"  --seed N             PRNG seed of loss, ECN and jitter (default: random; "
		"printed\n"
		"                       at start and in the counters, so a run can be replayed)\n"
		"Switch and loop:\n"
		"  --mac-age TIME       MAC table ageing time (default: 300s)\n"
		"  --idle-sleep TIME    longest sleep when idle (default: 100us; 0s = busy-poll).\n"
		"                       A packet arriving while the loop sleeps waits up to this\n"
		"                       long; packets already inside are never delayed by it.\n"
		"  --idle-spin N        empty polls before the first sleep (default: 64)\n"
		"  --realtime PRIO      run the forwarding lcores SCHED_FIFO at PRIO (1 to 99;\n"
		"                       default: 0, not). With --idle-sleep it wakes on its tick\n"
		"                       however busy the hosts on its core are; it keeps the core\n"
		"                       while it busy-polls (docs/scale-out.md)\n"
		"  --lcores N           forwarding lcores, 1 (default) or 2: a pipeline, RX + up\n"
		"                       links + switch on the first EAL lcore, down links + TX on\n"
		"                       the next (lossy regime; give -l with two cores, and\n"
		"                       --idle-sleep 0s: a packet handed over waits for the down\n"
		"                       lcore's wake-up otherwise). It pays when the two cores\n"
		"                       share a cache and the hosts are elsewhere: on a small\n"
		"                       VM one lcore is faster (docs/performance.md)\n"
		"  --rxd N, --txd N     descriptors per port queue (default: 1024)\n"
		"  --mbufs N            mbuf pool size (default: sized from the links)\n"
		"  --mtu N              the hosts' MTU, 576 to 9216 (default 1500): set on every\n"
		"                       port (a PMD that refuses it stops the start, naming the\n"
		"                       port's limit; AF_PACKET and AF_XDP ports keep their\n"
		"                       kernel interface's), and sizes the mbufs (AF_PACKET\n"
		"                       ports get mbufs as large as their ring slots)\n"
		"  --port-flow-control off|keep  the ports' own 802.3x flow control: turned off\n"
		"                       (default), or kept as the NIC has it (docs/inline.md)\n"
		"  --edge-pause auto|on|off  under credits and PFC, hold each host back with\n"
		"                       real 802.1Qbb frames, every priority, as its adapter\n"
		"                       queue fills (a NIC's receive ring loses what the box\n"
		"                       leaves in it): auto (default) on ports with a wire\n"
		"                       (PCI), on for every port, off; the switch's own pauses\n"
		"                       then go to the host as frames too (docs/inline.md)\n"
		"  --link-wait TIME     the longest wait for the ports' links at start (default:\n"
		"                       9s); a port still down is named and the run starts\n"
		"Control (docs/control.md):\n"
		"  --control PATH       UNIX socket for fabemuctl (default: $" FE_CTL_ENV_SOCKET
		",\n"
		"                       else " FE_CTL_SOCKET "; mode 0600: root only;\n"
		"                       'none' to disable)\n"
		"  --control-tcp [IP:]PORT  also listen on TCP, 127.0.0.1 unless IP is given;\n"
		"                       every request must carry the token written, root-only,\n"
		"                       to " FE_CTL_TOKEN_DIR
		"/token-PORT (fabemuctl -t reads it)\n"
		"  --control-token FILE write the TCP token to FILE instead\n"
		"  --capture-dir DIR    where captures named without a path go (default:\n"
		"                       " FE_CTL_CAPTURE_DIR "); a path is taken only from\n"
		"                       root on the UNIX socket; a capture never overwrites\n"
		"                       a file\n"
		"Counters and run time:\n"
		"  --stats-interval TIME  print counters every TIME (default: only on "
		"exit/SIGUSR1)\n"
		"  --stats-json FILE    also write counters as JSON to FILE (exit and SIGUSR1)\n"
		"  --duration TIME      stop after TIME\n"
		"  --exit-idle TIME     stop once no packet moved for TIME (replaying pcap files)\n"
		"  --measure N          benchmarks: keep the last N RX-to-TX times (TSC when\n"
		"                       the RX burst returns and when the TX burst is handed to\n"
		"                       the port), the last N TX calls' durations, and each\n"
		"                       port's TX wire rate; in the JSON counters as \"measure\"\n"
		"                       (docs/performance.md)\n"
		"  -h, --help           this text;   -V, --version   the version\n"
		"\n"
		"Signals: SIGINT/SIGTERM stop cleanly (all mbufs are returned and checked; a\n"
		"second one 2 s later stops at once);\n"
		"SIGUSR1 prints the counters. Telemetry: /fabemu/* on the DPDK telemetry "
		"socket.\n");
}

/* OPT_<ID> from 256, in the table's order (fe_dpopts.h) */
enum {
	OPT__BEFORE = 255,
#define X(id, name) OPT_##id,
	FE_DP_OPTIONS(X)
#undef X
};

#define X(id, name) {name, required_argument, NULL, OPT_##id},
static const struct option long_opts[] = {
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	FE_DP_OPTIONS(X) /* the rest: fe_dpopts.h */
	{NULL, 0, NULL, 0},
};
#undef X

/* Options of the command line alone: a rule made on the spot, the same message. */
static int
opt_time(const char *name, const char *v, uint64_t max_ns, uint64_t *out, char *err, size_t len)
{
	const struct fe_rule r = {.name = name, .kind = FE_RULE_TIME, .max = max_ns};

	return fe_rule_parse(&r, "--", v, out, err, len);
}

static int
opt_uint(const char *name, const char *v, uint64_t min, uint64_t max, uint64_t *out, char *err,
	 size_t len)
{
	const struct fe_rule r = {.name = name, .kind = FE_RULE_COUNT, .min = min, .max = max};

	return fe_rule_parse(&r, "--", v, out, err, len);
}

static int
add_spec(struct opts *o, int is_file, const char *text, char *err, size_t len)
{
	if (o->nspecs == MAX_SPECS) {
		snprintf(err, len, "more than %d --link/--profile options", MAX_SPECS);
		return -E2BIG;
	}
	o->specs[o->nspecs].is_file = is_file;
	o->specs[o->nspecs++].text = text;
	return 0;
}

static int
parse_opt(struct opts *o, int c, const char *v, char *err, size_t len)
{
	uint64_t x;

	switch (c) {
	case OPT_RATE:
		return fe_link_param_set(&o->link, "rate", v, err, len);
	case OPT_DELAY:
		return fe_link_param_set(&o->link, "delay", v, err, len);
	case OPT_BUFFER:
		o->buffer_set = 1;
		return fe_link_param_set(&o->link, "buffer", v, err, len);
	case OPT_BUFFER_PKTS:
		o->buffer_set = 1;
		return fe_link_param_set(&o->link, "buffer-pkts", v, err, len);
	case OPT_LINK:
		return add_spec(o, 0, v, err, len);
	case OPT_LINK_FILE:
		return add_spec(o, 1, v, err, len);
	case OPT_PROFILE:
		o->profile = v;
		return 0;
	case OPT_SCALE:
		return fe_rule_parse(&fe_rule_scale, "--", v, &o->scale, err, len);
	case OPT_CONTROL:
		o->control = strcmp(v, "none") == 0 ? NULL : v;
		return 0;
	case OPT_CONTROL_TCP:
		o->control_tcp = v;
		return 0;
	case OPT_CONTROL_TOKEN:
		o->control_token = v;
		return 0;
	case OPT_CAPTURE_DIR:
		if (v[0] != '/' || strlen(v) > 200) {
			snprintf(err, len,
				 "--capture-dir '%s': give an absolute path (at most 200 "
				 "characters)",
				 v);
			return -EINVAL;
		}
		o->capture_dir = v;
		return 0;
	case OPT_MTU:
		return opt_uint("mtu", v, 576, FE_PORTS_MTU_MAX, &o->mtu, err, len);
	case OPT_PORT_FLOW_CONTROL:
		if (strcmp(v, "off") != 0 && strcmp(v, "keep") != 0) {
			snprintf(err, len, "--port-flow-control: '%s' (allowed: off, keep)", v);
			return -EINVAL;
		}
		o->keep_fc = strcmp(v, "keep") == 0;
		return 0;
	case OPT_EDGE_PAUSE:
		if (fe_ports_pause_parse(v, &o->edge_pause) < 0) {
			snprintf(err, len, "--edge-pause: '%s' (allowed: auto, on, off)", v);
			return -EINVAL;
		}
		return 0;
	case OPT_LINK_WAIT:
		return opt_time("link-wait", v, 60ULL * 1000000000, &o->link_wait_ns, err, len);
	case OPT_LCORES:
		if (opt_uint("lcores", v, 1, 2, &x, err, len) < 0)
			return -EINVAL;
		o->dp.lcores = (uint8_t)x;
		return 0;
	case OPT_MEASURE:
		if (opt_uint("measure", v, 1, 1U << 24, &x, err, len) < 0)
			return -EINVAL;
		for (o->dp.measure = 1; o->dp.measure < x; o->dp.measure <<= 1)
			;
		return 0;
	case OPT_MAC_AGE:
		return opt_time("mac-age", v, 1000000ULL * 1000000000, &o->dp.mac_age_ns, err, len);
	case OPT_IDLE_SLEEP:
		return opt_time("idle-sleep", v, 100000000, &o->dp.idle_sleep_ns, err, len);
	case OPT_REALTIME:
		return opt_uint("realtime", v, 0, 99, &o->realtime, err, len);
	case OPT_IDLE_SPIN:
		if (opt_uint("idle-spin", v, 1, 1000000000, &x, err, len) < 0)
			return -EINVAL;
		o->dp.idle_spin = (uint32_t)x;
		return 0;
	case OPT_RXD:
		return opt_uint("rxd", v, 64, 16384, &o->rxd, err, len);
	case OPT_TXD:
		return opt_uint("txd", v, 64, 16384, &o->txd, err, len);
	case OPT_MBUFS:
		return opt_uint("mbufs", v, 1024, 16777216, &o->mbufs, err, len);
	case OPT_STATS_INTERVAL:
		return opt_time("stats-interval", v, 3600ULL * 1000000000, &o->stats_interval_ns,
				err, len);
	case OPT_STATS_JSON:
		o->stats_json = v;
		return 0;
	case OPT_DURATION:
		return opt_time("duration", v, 365ULL * 86400 * 1000000000, &o->duration_ns, err,
				len);
	case OPT_EXIT_IDLE:
		return opt_time("exit-idle", v, 3600ULL * 1000000000, &o->dp.exit_idle_ns, err,
				len);
	case OPT_REGIME:
		if (fe_regime_parse(v, &o->dp.regime) < 0) {
			snprintf(err, len, "--regime: '%s' (allowed: " FE_REGIME_ALLOWED ")", v);
			return -EINVAL;
		}
		return 0;
	case OPT_LANES:
		if (fe_rule_parse(&fe_rule_lanes, "--", v, &x, err, len) < 0)
			return -EINVAL;
		o->dp.lanes = (uint8_t)x;
		return 0;
	case OPT_LANE_MAP:
		if (fe_lane_map_parse(v, &o->dp.lane_map) < 0) {
			snprintf(err, len, "--lane-map: '%s' (allowed: " FE_LANE_MAP_ALLOWED ")",
				 v);
			return -EINVAL;
		}
		return 0;
	case OPT_PFC:
		return fe_pfc_spec(v, &o->dp.pfc, err, len);
	case OPT_TOPOLOGY:
		o->topology = v;
		return 0;
	case OPT_BOX:
		o->box = v;
		return 0;
	case OPT_PATH:
		if (fe_path_parse(v, &o->path) < 0) {
			snprintf(err, len, "--path: '%s' (allowed: " FE_PATH_ALLOWED ")", v);
			return -EINVAL;
		}
		o->path_set = 1;
		return 0;
	case OPT_DEADLOCK_TIME: {
		const struct fe_rule r = {.name = "deadlock-time",
					  .kind = FE_RULE_TIME,
					  .min = 1,
					  .max = 60000000000ULL};

		return fe_rule_parse(&r, "--", v, &o->deadlock_ns, err, len);
	}
	case OPT_FAILOVER_TIME: {
		const struct fe_rule r = {.name = "failover-time",
					  .kind = FE_RULE_TIME,
					  .min = 1,
					  .max = 10000000000ULL};

		return fe_rule_parse(&r, "--", v, &o->failover_ns, err, len);
	}
	case OPT_FLOWLET_GAP: {
		const struct fe_rule r = {.name = "flowlet-gap",
					  .kind = FE_RULE_TIME,
					  .min = 1,
					  .max = 1000000000ULL};

		return fe_rule_parse(&r, "--", v, &o->flowlet_ns, err, len);
	}
	case OPT_NIC: {
		struct fe_nic_params scratch = FE_NIC_DEFAULT; /* checked now, applied later */

		if (o->nnic == sizeof(o->nic) / sizeof(o->nic[0])) {
			snprintf(err, len, "--nic: at most %zu",
				 sizeof(o->nic) / sizeof(o->nic[0]));
			return -EINVAL;
		}
		o->nic[o->nnic++] = v;
		return fe_nic_spec(v, &scratch, err, len);
	}
	case OPT_CREDIT:
		return fe_credit_spec(v, &o->dp.credit, err, len);
	case OPT_SEED:
		o->seed_set = 1;
		return fe_rule_parse(&fe_rule_seed, "--", v, &o->dp.seed, err, len);
	case OPT_SWITCH_BUFFER:
		return fe_rule_parse(&fe_rule_switch_buffer, "--", v, &o->dp.switch_buffer, err,
				     len);
	default:
		snprintf(err, len, "unknown option (see --help)");
		return -EINVAL;
	}
}

static int
parse_args(int argc, char **argv, struct opts *o, char *err, size_t len)
{
	int c;

	*o = (struct opts){
		.link = {.link = {.limit_bytes = 1 << 20, .limit_pkts = 1000}},
		.dp = {.mac_age_ns = 300ULL * 1000000000,
		       .idle_sleep_ns = 100000,
		       .idle_spin = 64,
		       .lanes = 1,
		       /* docs/regimes.md gives the sources of these defaults */
		       .pfc = {.xoff = 64 << 10, .xon = (64 << 10) - 2 * 1514, .quanta = 65535},
		       .credit = {.buffer = 64 << 10, .out_pkts = 2},
		       .nic = FE_NIC_DEFAULT},
		.rxd = 1024,
		.txd = 1024,
		.mtu = 1500,
		.link_wait_ns = 9ULL * 1000000000, /* DPDK's examples wait 9 s */
		.control = FE_CTL_SOCKET,
	};
	o->dp.lcores = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", long_opts, NULL)) != -1) {
		if (c == '?') {
			snprintf(err, len, "unknown option '%s' (see --help)", argv[optind - 1]);
			return -EINVAL;
		}
		if (c == ':') {
			snprintf(err, len, "option '%s' needs a value", argv[optind - 1]);
			return -EINVAL;
		}
		if (parse_opt(o, c, optarg, err, len) < 0)
			return -EINVAL;
		if ((c >= OPT_RATE && c <= OPT_BUFFER_PKTS) || c == OPT_SWITCH_BUFFER ||
		    (c >= OPT_REGIME && c <= OPT_CREDIT))
			o->fabric_opt = argv[optind - 1 - (optarg && argv[optind - 1] == optarg)];
	}
	if (o->profile && o->fabric_opt) {
		snprintf(err, len,
			 "%s cannot be combined with --profile: set it in the profile, or "
			 "override links with --link",
			 o->fabric_opt);
		return -EINVAL;
	}
	if (o->dp.lcores > 1 && o->dp.exit_idle_ns) {
		snprintf(err, len, "--exit-idle needs one lcore (--lcores 1)");
		return -EINVAL;
	}
	/* a path choice is among a switch's next hops to another: it needs several switches
	 * (a campaign's path: without a topology is refused alike); the default says nothing */
	if (o->path_set && o->path != FE_PATH_ECMP && !o->topology) {
		snprintf(err, len,
			 "--path %s: without a topology (a path choice needs several switches: "
			 "give --topology)",
			 fe_path_name(o->path));
		return -EINVAL;
	}
	if (o->scale && !o->profile) {
		snprintf(err, len, "--scale needs --profile");
		return -EINVAL;
	}
	if (o->control_token && !o->control_tcp) {
		snprintf(err, len, "--control-token needs --control-tcp");
		return -EINVAL;
	}
	if (optind < argc) {
		snprintf(err, len, "unexpected argument '%s' (see --help)", argv[optind]);
		return -EINVAL;
	}
	if (getenv(FE_CTL_ENV_SOCKET) && o->control && strcmp(o->control, FE_CTL_SOCKET) == 0)
		o->control = getenv(FE_CTL_ENV_SOCKET);
	if (!o->seed_set) /* reported in the banner and the counters, so the run can be replayed */
		o->dp.seed = (rte_rdtsc() ^ ((uint64_t)getpid() << 32)) & FE_SEED_MAX;
	return 0;
}

/* The fabric-wide options as a struct fe_fabric (what a profile would set). */
static void
fabric_from_opts(const struct opts *o, struct fe_fabric *f)
{
	f->regime = o->dp.regime;
	f->lanes = o->dp.lanes;
	f->lane_map = o->dp.lane_map;
	f->switch_buffer = o->dp.switch_buffer;
	f->pfc = o->dp.pfc;
	f->credit = o->dp.credit;
	f->nic = o->dp.nic;
}

static void
fabric_to_opts(const struct fe_fabric *f, struct opts *o)
{
	o->dp.regime = f->regime;
	o->dp.lanes = f->lanes;
	o->dp.lane_map = f->lane_map;
	o->dp.switch_buffer = f->switch_buffer;
	o->dp.pfc = f->pfc;
	o->dp.credit = f->credit;
	o->dp.nic = f->nic;
}

/* Several switches (--topology): the topology, and the graph the engine builds from it. */
static struct fe_topo topo;
static struct fe_graph_build gbuild;

/* Links from a YAML profile at its scale; its seed unless --seed was given; fabric: the
 * class of the links between switches. */
static int
links_from_profile(struct opts *o, unsigned nports, struct fe_linkdef *up, struct fe_linkdef *down,
		   struct fe_linkdef *fabric, char *err, size_t len)
{
	struct fe_profile *p = malloc(sizeof(*p));
	struct fe_fabric fab;
	int rc = -ENOMEM;

	if (p == NULL) {
		snprintf(err, len, "out of memory");
		return rc;
	}
	rc = fe_profile_load(o->profile, p, err, len);
	if (rc == 0)
		rc = fe_profile_expand(p, (uint32_t)o->scale, nports, up, down, &fab, err, len);
	if (rc == 0 && o->topology) /* several switches: their links' class */
		rc = fe_profile_fabric(p, (uint32_t)o->scale, fabric, err, len);
	if (rc == 0) {
		fabric_to_opts(&fab, o);
		if (p->seed_set && !o->seed_set)
			o->dp.seed = p->seed;
		if (p->path_set && !o->path_set) /* --path wins over the profile's path: */
			o->path = p->path;
		o->scale = o->scale ? o->scale : p->scale;
		o->profile = strdup(p->name);
	}
	free(p);
	return rc;
}

/*
 * Links start from a profile or the global options; specs then apply in order. With a
 * topology the links between switches start from the profile's class for them and take
 * the specs that name them (fabric, A-B, A>B, all).
 */
static int
build_links(struct opts *o, unsigned nports, struct fe_linkdef *up, struct fe_linkdef *down,
	    char *err, size_t len)
{
	struct fe_linkdef fabric = o->link;
	struct fe_fabric_links one_switch = {0}; /* fabric, A-B, A>B: refused */
	struct fe_fabric_links *fab = &one_switch;

	if (o->profile) {
		if (links_from_profile(o, nports, up, down, &fabric, err, len) < 0)
			return -EINVAL;
	} else {
		for (unsigned i = 0; i < nports; i++) {
			up[i] = down[i] = o->link;
			if (!o->buffer_set) {
				fe_regime_up_buffer(o->dp.regime, &up[i].link);
				fe_regime_egress_buffer(o->dp.regime, &down[i].link);
			}
		}
		if (!o->buffer_set)
			fe_regime_egress_buffer(o->dp.regime, &fabric.link);
	}
	if (o->topology) {
		char e[400];

		if (fe_topo_load(o->topology, &topo, e, sizeof(e)) < 0 ||
		    fe_graph_build(&topo, &fabric, o->path, o->box ? topo.nports : nports, &gbuild,
				   e, sizeof(e)) < 0) {
			snprintf(err, len, "--topology %s: %s", o->topology, e);
			return -EINVAL;
		}
		fab = &gbuild.fab;
	}
	for (unsigned i = 0; i < o->nnic; i++)
		if (fe_nic_spec(o->nic[i], &o->dp.nic, err, len) < 0)
			return -EINVAL;
	for (unsigned i = 0; i < o->nspecs; i++) {
		const struct spec *s = &o->specs[i];
		int rc;

		if (s->is_file) {
			rc = fe_linkspec_file(s->text, up, down, nports, fab, err, len);
		} else {
			char e[400];

			rc = fe_linkspec_apply_fabric(s->text, up, down, nports, fab, e, sizeof(e));
			if (rc < 0)
				snprintf(err, len, "--link '%s': %s", s->text, e);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Frames queued while the ports were being opened are not forwarded. An AF_PACKET
 * socket receives from every interface between its creation and its bind, so its ring
 * can hold another host's frames: forwarded, they would teach the switch a host on the
 * wrong port (a MAC "move" at start). They are counted and reported instead.
 */
static void
discard_startup_frames(const uint16_t *ports, unsigned nports, uint64_t *discarded)
{
	struct rte_mbuf *pkts[FE_BURST];
	uint64_t total = 0;
	uint16_t n;

	for (unsigned i = 0; i < nports; i++) {
		struct rte_eth_dev_info info;

		/* only AF_PACKET: a pcap port's queue is the file being replayed */
		if (rte_eth_dev_info_get(ports[i], &info) != 0 ||
		    strcmp(info.driver_name, "net_af_packet") != 0)
			continue;
		while ((n = rte_eth_rx_burst(ports[i], 0, pkts, FE_BURST)) > 0) {
			rte_pktmbuf_free_bulk(pkts, n);
			discarded[i] += n;
			total += n;
		}
	}
	if (total)
		printf("fabemu-dp: discarded %" PRIu64 " frame(s) queued while the ports were "
		       "opened\n",
		       total);
}

/*
 * Mbufs for every descriptor plus what the links can hold, capped: a link with a
 * delay and no rate limit could hold any number, and the mbufs the links really hold
 * are bounded by what the hosts send in one delay. --mbufs overrides. When the pool
 * runs dry the PMD counts rx_nombuf: an edge drop, reported, never silent.
 */
#define FE_POOL_DEFAULT_MAX 65536

static unsigned
pool_size(const struct opts *o, unsigned nports, unsigned nall, const struct fe_linkdef *up,
	  const struct fe_linkdef *down, uint64_t hz)
{
	uint64_t links = 0, rings = 4096;

	for (unsigned i = 0; i < nports; i++) {
		struct fe_link_cfg cu, cd;

		if (fe_link_compile(&up[i].link, hz, &cu) == 0 &&
		    fe_link_compile(&down[i].link, hz, &cd) == 0)
			links += cu.nslots + cd.nslots;
	}
	/* several switches: the links between them hold frames too */
	for (unsigned i = 0; o->dp.graph && i < 2 * topo.nlinks; i++) {
		struct fe_link_cfg c;

		if (fe_link_compile(&gbuild.def[i].link, hz, &c) == 0)
			links += c.nslots;
	}
	for (unsigned i = 0; i < nall; i++) { /* every port: the hosts', the trunks (--box) */
		rings += o->rxd + o->txd + 2048 + FE_BURST; /* 2048: an AF_XDP fill ring */
		/* an emulated NIC's send queue and ready ring, and a flow's worth of kept
		 * copies (docs/nic.md); its CNPs, ACKs and NAKs have a pool of their own */
		if (i < nports && fe_nic_emulated(o->dp.nic.model))
			rings += FE_NIC_PENDING + FE_NIC_READY + o->dp.nic.window;
	}
	return (unsigned)(rings + RTE_MIN(links, FE_POOL_DEFAULT_MAX));
}

/*
 * Bytes of frame an mbuf must hold: a frame of the hosts' MTU (with an 802.1Q tag), and
 * for an AF_PACKET port a whole slot of its ring less the kernel's header: DPDK 22.11's
 * PMD copies what the slot holds into one mbuf, unchecked.
 */
static int
data_room(const struct opts *o, const uint16_t *ports, unsigned nports, uint16_t *room, char *err,
	  size_t len)
{
	/* --box: a frame crosses a trunk behind the fabric's header */
	uint32_t need = RTE_MAX(
		(uint32_t)o->mtu + RTE_ETHER_HDR_LEN + 4 + (o->box ? FE_TRUNK_HDR : 0), 2048U);

	for (unsigned i = 0; i < nports; i++) {
		struct rte_eth_dev_info info;
		const struct rte_devargs *da;
		unsigned long v;
		const char *fs;
		char *end;

		if (rte_eth_dev_info_get(ports[i], &info) != 0)
			continue;
		/* AF_XDP: a frame must fit one UMEM chunk (no multi-buffer in 22.11) */
		if (strcmp(info.driver_name, "net_af_xdp") == 0 && o->mtu > info.max_mtu) {
			snprintf(err, len,
				 "--mtu %" PRIu64 ": port %u (AF_XDP) carries frames of at most "
				 "%u bytes of IP; use --mtu %u or less, or net_af_packet",
				 o->mtu, ports[i], info.max_mtu, info.max_mtu);
			return -1;
		}
		if (strcmp(info.driver_name, "net_af_packet") != 0)
			continue;
		da = rte_dev_devargs(info.device);
		fs = da && da->args ? fe_kernel_devarg(da->args, "framesz") : NULL;
		if (fs == NULL)
			continue;
		errno = 0;
		v = strtoul(fs, &end, 10);
		if (errno || (*end && *end != ',') || v + RTE_PKTMBUF_HEADROOM + 63 > UINT16_MAX) {
			snprintf(err, len,
				 "port %u: framesz=%.*s: an mbuf holds at most %u bytes of frame",
				 ports[i], (int)RTE_MIN(strcspn(fs, ","), 20), fs,
				 UINT16_MAX - RTE_PKTMBUF_HEADROOM - 63);
			return -1;
		}
		need = RTE_MAX(need, (uint32_t)v);
	}
	*room = (uint16_t)(RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(need, 64));
	return 0;
}

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
	const struct opts *o;
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

/* --box: this box's part of a split fabric (fe_graph.h), and its trunks' latency. */
static struct {
	uint8_t here[FE_TOPO_SWITCH];
	uint16_t trunk[FE_TOPO_LINKS]; /* the port of each link between boxes ending here */
	uint64_t lat_ns[FE_TOPO_LINKS];
	uint8_t gport[FE_TOPO_PORTS];
	unsigned nlocal, ntrunks;
	unsigned link[FE_GRAPH_TRUNKS]; /* the trunks' links, in order */
	uint32_t hash;			/* the topology and its split: both boxes must agree */
} split;

static uint32_t
fnv(uint32_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return (h ^ 0xff) * 16777619u;
}

/* The NIC settings every box of a split fabric must share, as text (for the hash). */
static const char *
nic_summary(const struct fe_nic_params *n)
{
	static char s[400];

	snprintf(s, sizeof(s),
		 "%s %u %u %u %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %u %u %u %u %" PRIu64,
		 fe_nic_model_name(n->model), n->recovery, n->cc, n->cc_set, n->g_den, n->stages,
		 n->cnp_interval_ns, n->alpha_ns, n->timer_ns, n->bytes, n->ai_bps, n->hai_bps,
		 n->min_bps, n->timeout_ns, n->window, n->reorder_ns, n->ccti_increase,
		 n->ccti_limit, n->ccti_min, n->cct_den, n->ccti_timer_ns);
	return s;
}

/*
 * --box: which switches run here, which ports are this box's hosts' and which are links
 * to other boxes; ports[] holds every port, *nports becomes the hosts' count.
 */
static int
split_setup(struct opts *o, const uint16_t *ports, unsigned *nports, char *err, size_t len)
{
	char e[400], boxes[256] = "", q[FE_TOPO_NAME + 2];
	unsigned any = 0;

	if (o->topology == NULL) {
		snprintf(err, len, "splits a topology: give --topology");
		return -EINVAL;
	}
	if (fe_topo_load(o->topology, &topo, e, sizeof(e)) < 0) {
		snprintf(err, len, "--topology %s: %s", o->topology, e);
		return -EINVAL;
	}
	split.hash = 2166136261u;
	for (unsigned s = 0; s < topo.nsw; s++) {
		split.here[s] = strcmp(topo.sw[s].box, o->box) == 0;
		any += split.here[s];
		split.hash = fnv(fnv(split.hash, topo.sw[s].name), topo.sw[s].box);
		/* each box once, quoted ("" is no box: a switch of no split) */
		snprintf(q, sizeof(q), "'%s'", topo.sw[s].box);
		if (topo.sw[s].box[0] && !strstr(boxes, q) && strlen(boxes) + strlen(q) < 200)
			snprintf(boxes + strlen(boxes), sizeof(boxes) - strlen(boxes), "%s%s",
				 boxes[0] ? ", " : "", q);
	}
	if (!any && boxes[0] == '\0') {
		snprintf(err, len,
			 "topology %s names no boxes: --box runs one box of a fabric split across "
			 "boxes (a switch's box: in the topology, docs/scale-out.md)",
			 o->topology);
		return -EINVAL;
	}
	if (!any) {
		snprintf(err, len, "no switch of topology %s is on box '%s' (its boxes: %s)",
			 o->topology, o->box, boxes);
		return -EINVAL;
	}
	for (unsigned h = 0; h < topo.nhosts; h++)
		for (unsigned p = 0; p < topo.host[h].nports; p++)
			if (split.here[topo.host[h].sw[p]])
				split.gport[split.nlocal++] =
					(uint8_t)(topo.host[h].first_port + p);
	for (unsigned l = 0; l < topo.nlinks; l++) {
		split.hash = fnv(split.hash, topo.link[l].name);
		split.trunk[l] = UINT16_MAX;
		if (split.here[topo.link[l].a] == split.here[topo.link[l].b])
			continue;
		if (split.ntrunks == FE_GRAPH_TRUNKS) {
			snprintf(err, len, "more than %d links to other boxes", FE_GRAPH_TRUNKS);
			return -EINVAL;
		}
		split.link[split.ntrunks++] = l;
	}
	if (*nports != split.nlocal + split.ntrunks) {
		int n = snprintf(err, len,
				 "box '%s' has %u host ports and %u links to other boxes: give %u "
				 "ports (%u given), the hosts' first, then one a link:",
				 o->box, split.nlocal, split.ntrunks, split.nlocal + split.ntrunks,
				 *nports);

		for (unsigned t = 0; t < split.ntrunks && n > 0 && (size_t)n < len; t++)
			n += snprintf(err + n, len - (size_t)n, " %s",
				      topo.link[split.link[t]].name);
		return -EINVAL;
	}
	for (unsigned t = 0; t < split.ntrunks; t++)
		split.trunk[split.link[t]] = ports[split.nlocal + t];
	*nports = split.nlocal;
	return 0;
}

/* A probe (FE_TRUNK_PROBE) of trunk t onto its port, saying whether this box has its
 * answers (done); 0, or -1 without an mbuf. */
static int
probe_send(struct rte_mempool *pool, unsigned t, uint64_t tsc, int done)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_addr mac;
	uint16_t port = split.trunk[split.link[t]];
	uint8_t *f;

	if (m == NULL || (f = (uint8_t *)rte_pktmbuf_append(m, 60)) == NULL) {
		rte_pktmbuf_free(m);
		return -1;
	}
	memset(f, 0, 60);
	memset(&mac, 0, sizeof(mac));
	rte_eth_macaddr_get(port, &mac);
	fe_trunk_hdr(f, mac.addr_bytes, FE_TRUNK_PROBE, split.link[t]);
	memcpy(f + 18, &tsc, 8);
	memcpy(f + 26, &split.hash, 4);
	f[30] = (uint8_t)done;
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
	return 0;
}

/*
 * Each trunk's one-way latency, half the shortest of FE_PROBES round trips to the other
 * box. Clocks are not shared: exact for a link as fast both ways. Both boxes poll without
 * sleeping and answer at once, and stay until each has its answers (its probes say so),
 * so that a round trip is the link's and not the time an engine took to wake: one that
 * answers from a running engine (the other box came first and left) is not waited for
 * longer than a second. The probes go a millisecond apart, for 0.2 s: 16 of them, over
 * 16 ms, once all came back 3 ms late on a loaded machine (the hypervisor taking the
 * cores, the hosts' frames of an earlier run arriving), and the box refused a link of
 * 400 us as shorter than that. 0, or -ETIMEDOUT/-EINVAL with a message.
 */
#define FE_PROBES 200
static int
measure_trunks(struct opts *o, struct rte_mempool *pool, char *err, size_t len)
{
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t best[FE_GRAPH_TRUNKS], deadline = rte_rdtsc() + 30 * hz, next = 0, done_at = 0;
	unsigned got[FE_GRAPH_TRUNKS] = {0}, left = split.ntrunks, dropped = 0, peers = 0;
	uint8_t peer_done[FE_GRAPH_TRUNKS] = {0};

	for (unsigned t = 0; t < split.ntrunks; t++)
		best[t] = UINT64_MAX;
	while (left > 0 || (peers < split.ntrunks && rte_rdtsc() - done_at < hz)) {
		uint64_t now = rte_rdtsc();

		if (now > deadline) {
			for (unsigned t = 0; t < split.ntrunks; t++)
				if (got[t] < FE_PROBES) {
					snprintf(err, len,
						 "no answer on port %u (link %s) in 30 s: run the "
						 "other box's fabemu-dp with --topology %s",
						 split.trunk[split.link[t]],
						 topo.link[split.link[t]].name, o->topology);
					break;
				}
			return -ETIMEDOUT;
		}
		if (now >= next) { /* a probe a millisecond, until the other box is done too */
			for (unsigned t = 0; t < split.ntrunks; t++)
				probe_send(pool, t, rte_rdtsc(), left == 0);
			next = now + hz / 1000;
		}
		for (unsigned t = 0; t < split.ntrunks; t++) {
			uint16_t port = split.trunk[split.link[t]];
			struct rte_mbuf *pkts[32];
			unsigned n = rte_eth_rx_burst(port, 0, pkts, 32);

			for (unsigned i = 0; i < n; i++) {
				uint8_t *f = rte_pktmbuf_mtod(pkts[i], uint8_t *);
				uint32_t h;
				uint64_t tsc;

				if (rte_pktmbuf_data_len(pkts[i]) < 31 || f[12] != 0x88 ||
				    f[13] != 0xb5 || f[14] != FE_TRUNK_VERSION ||
				    (f[15] != FE_TRUNK_PROBE && f[15] != FE_TRUNK_ECHO)) {
					dropped++; /* the fabric's, before it starts here */
					rte_pktmbuf_free(pkts[i]);
					continue;
				}
				memcpy(&h, f + 26, 4);
				if (h != split.hash) {
					/* told to the other box too, which may have taken this
					 * box's earlier probes for frames of before its start */
					probe_send(pool, t, rte_rdtsc(), 0);
					snprintf(err, len,
						 "port %u (link %s): the other box runs another "
						 "topology, splits it otherwise, or runs its NICs "
						 "otherwise (%08x, here %08x)",
						 port, topo.link[split.link[t]].name, h,
						 split.hash);
					rte_pktmbuf_free(pkts[i]);
					return -EINVAL;
				}
				if ((unsigned)(f[16] << 8 | f[17]) != split.link[t]) {
					unsigned l = (unsigned)(f[16] << 8 | f[17]);

					snprintf(err, len,
						 "port %u should carry link %s, but the other box "
						 "sends link %s on it: wire the trunks in link "
						 "order",
						 port, topo.link[split.link[t]].name,
						 l < topo.nlinks ? topo.link[l].name : "?");
					rte_pktmbuf_free(pkts[i]);
					return -EINVAL;
				}
				if (f[15] == FE_TRUNK_PROBE) { /* answered as it came */
					struct rte_ether_addr mac = {{0}};

					if (f[30] && !peer_done[t]) {
						peer_done[t] = 1;
						peers++;
					}
					f[15] = FE_TRUNK_ECHO;
					/* from this port: a VXLAN interface drops a frame
					 * that comes back with its own source address */
					rte_eth_macaddr_get(port, &mac);
					memcpy(f + 6, mac.addr_bytes, 6);
					if (rte_eth_tx_burst(port, 0, &pkts[i], 1) != 1)
						rte_pktmbuf_free(pkts[i]);
					continue;
				}
				memcpy(&tsc, f + 18, 8);
				if (got[t] < FE_PROBES) {
					best[t] = RTE_MIN(best[t], rte_rdtsc() - tsc);
					if (++got[t] == FE_PROBES && --left == 0)
						done_at = rte_rdtsc();
				}
				rte_pktmbuf_free(pkts[i]);
			}
		}
	}
	for (unsigned t = 0; t < split.ntrunks; t++) {
		split.lat_ns[split.link[t]] = fe_ticks_to_ns(best[t] / 2, hz);
		printf("  link %s on port %u: round trip %.1f us at best of %d, %.1f us one way "
		       "subtracted from its delay\n",
		       topo.link[split.link[t]].name, split.trunk[split.link[t]],
		       (double)fe_ticks_to_ns(best[t], hz) / 1e3, FE_PROBES,
		       (double)split.lat_ns[split.link[t]] / 1e3);
	}
	if (dropped)
		printf("  %u frames of the fabric came before it started here: dropped\n", dropped);
	return 0;
}

/*
 * --topology: the graph the engine builds (fe_graph.h), as build_links() left it. A
 * topology of one switch is the engine's own.
 */
static int
topology_setup(struct opts *o, char *err, size_t len)
{
	struct fe_graph_build *b = &gbuild;

	if (topo.nsw > 1 && o->dp.lcores > 1) {
		snprintf(err, len, "%u switches run on one lcore (--lcores 1)", topo.nsw);
		return -EINVAL;
	}
	b->conf.path = o->path; /* the profile's path: is known once the profile is read */
	b->conf.deadlock_ns = o->deadlock_ns;
	/* the flowlet gap is a switch's time: dilated with the profile, unless given */
	b->conf.flowlet_ns = o->flowlet_ns ? o->flowlet_ns : 100000 * (o->scale ? o->scale : 1);
	b->conf.failover_ns = o->failover_ns ? o->failover_ns : 100000 * (o->scale ? o->scale : 1);
	if (topo.nsw > 1)
		o->dp.graph = &b->conf;
	if (o->box) {
		b->conf.sw_here = split.here;
		b->conf.trunk = split.trunk;
		b->conf.trunk_lat_ns = split.lat_ns;
		b->conf.nall = topo.nports;
		b->conf.all_sw = b->port_sw;
		b->conf.gport = split.gport;
	}
	return 0;
}

static void
print_banner(const struct fe_dp *dp, const struct opts *o)
{
	const struct fe_link_params *lp;
	char name[32], r[32], t[32], imp[512];

	printf("fabemu-dp %s: %u ports, TSC %.3f GHz, lcore %u, idle sleep up to %" PRIu64
	       " ns, seed %" PRIu64 ", switch buffer %" PRIu64 " B\n",
	       FE_VERSION, dp->nports, (double)dp->hz / 1e9, rte_lcore_id(), dp->conf.idle_sleep_ns,
	       dp->conf.seed, dp->conf.switch_buffer);
	printf("  regime %s, %u lane%s, nic %s", fe_regime_name(dp->conf.regime), dp->conf.lanes,
	       dp->conf.lanes > 1 ? "s" : "", fe_nic_model_name(dp->conf.nic.model));
	if (dp->topology)
		printf(", topology %s: %u switches, %u links between them, path %s", o->topology,
		       dp->graph->nsw, dp->graph->nhl / 2, fe_path_name(dp->graph->path));
	if (dp->conf.nic.model != FE_NIC_TCP)
		printf(" (%s, congestion control %s)",
		       fe_nic_recovery_name(fe_nic_recovery(&dp->conf.nic)),
		       fe_nic_cc_name(fe_nic_cc(&dp->conf.nic)));
	printf("\n");
	if (o->profile)
		printf("  profile %s, scale %" PRIu64 "\n", o->profile, o->scale);
	if (rt_prio)
		printf("  lcore SCHED_FIFO, priority %d (--realtime)\n", rt_prio);
	if (o->control || o->control_tcp)
		printf("  control %s%s%s\n", o->control ? o->control : "",
		       o->control_tcp ? " tcp " : "", o->control_tcp ? o->control_tcp : "");
	for (unsigned i = 0; i < dp->nports; i++)
		printf("  port %u: %s\n", i, dp->ports[i].name);
	for (unsigned n = 0; n < 2 * dp->nports; n++) {
		fe_report_link(dp, n, &lp, name, sizeof(name));
		printf("  link %-7s rate %-10s delay %-8s buffer %" PRIu64 " B / %u pkts%s\n", name,
		       fe_fmt_rate(lp->rate_bps, r, sizeof(r)),
		       fe_fmt_time(lp->delay_ns, t, sizeof(t)), lp->limit_bytes, lp->limit_pkts,
		       fe_report_impairments(fe_report_linkdef(dp, n), imp, sizeof(imp)));
	}
	for (unsigned h = 0; dp->graph != NULL && h < dp->graph->nhl; h++) {
		const struct fe_linkdef *d = &dp->desc.hop[h]; /* a link between switches */

		printf("  link %-7s rate %-10s delay %-8s buffer %" PRIu64 " B / %u pkts%s\n",
		       dp->graph->hl[h].name, fe_fmt_rate(d->link.rate_bps, r, sizeof(r)),
		       fe_fmt_time(d->link.delay_ns, t, sizeof(t)), d->link.limit_bytes,
		       d->link.limit_pkts, fe_report_impairments(d, imp, sizeof(imp)));
	}
	fflush(stdout);
}

/*
 * The kernel's ring in front of a port holds what a host sends while the dataplane has
 * not read it yet: in a lossless regime, everything the host adapter queue (the up link)
 * is full for. A ring shorter than the up link's buffer loses at the edge what the
 * emulated buffer would have held: say so, and what to pass.
 */
static void
warn_rings(const struct fe_dp *dp)
{
	for (unsigned i = 0; i < dp->nports; i++) {
		const struct fe_link_params *l = &dp->desc.up[i].link;
		uint64_t frames = l->limit_pkts ? l->limit_pkts : UINT64_MAX;
		struct fe_kernel_port k;

		if (l->limit_bytes)
			frames = RTE_MIN(frames, (l->limit_bytes + 1513) / 1514);
		fe_kernel_read(fe_report_kernel(), i, &k);
		if (k.ring_frames == 0 || frames == UINT64_MAX || k.ring_frames >= frames)
			continue;
		if (k.kind == FE_KPORT_AF_PACKET)
			fprintf(stderr,
				"fabemu-dp: warning: port %u (%s): its AF_PACKET ring holds %u "
				"frames, less than link %u.up's buffer (%" PRIu64
				" full-sized frames): bursts the emulated buffer would hold are "
				"lost at the edge. Pass framecnt=%" PRIu64
				" in its --vdev (testbeds/veth.sh vdevs --ring N does).\n",
				i, k.iface, k.ring_frames, i, frames,
				RTE_MIN(RTE_MAX(frames, (uint64_t)16384), (uint64_t)262144));
		else
			fprintf(stderr,
				"fabemu-dp: warning: port %u (%s): its AF_XDP ring holds %u "
				"frames, "
				"less than link %u.up's buffer (%" PRIu64
				" full-sized frames): bursts the emulated buffer would hold are "
				"lost at the edge. Pass --rxd 2048 (this PMD's fill ring holds "
				"2048 at most), or use AF_PACKET with framecnt=16384.\n",
				i, k.iface, k.ring_frames, i, frames);
	}
}

/*
 * PFC is lossless only if each egress queue can take what the inputs routed to it may
 * send it before their pauses act: each input's XOFF + headroom, in bytes, and in
 * frames of the smallest size. What input i (a port, or past the ports a link between
 * switches: fe_graph.h) may hold, all lanes:
 */
static uint64_t
pfc_may_hold(const struct fe_dp *dp, unsigned i)
{
	const struct fe_pfc *p =
		i < dp->nports ? &dp->ports[i].pfc : &dp->graph->hl[i - dp->nports].pfc;

	return (uint64_t)dp->conf.lanes * (p->cfg.xoff + p->cfg.headroom);
}

/* The switch input i enters. */
static unsigned
input_switch(const struct fe_dp *dp, unsigned i)
{
	return i < dp->nports ? dp->graph->port_sw[i] : dp->graph->hl[i - dp->nports].to;
}

/* Link h between switches is a next hop from switch s toward switch d (the routes). */
static int
next_hop(const struct fe_graph *g, unsigned s, unsigned d, unsigned h)
{
	for (unsigned k = 0; k < g->nnh[s][d]; k++)
		if (g->nh[s][d][k] == h)
			return 1;
	return 0;
}

/*
 * Frames that come in by input i may leave by egress e (a port's down link, e < nports,
 * or link between switches e - nports), both of one switch: on one switch, any input but
 * the port's own; on several, those the routes send that way for some switch's hosts
 * (hosts: bit d set for switch d with a host).
 */
static int
feeds(const struct fe_dp *dp, uint64_t hosts, unsigned i, unsigned e)
{
	const struct fe_graph *g = dp->graph;
	const unsigned x = input_switch(dp, i);

	if (i == e)
		return 0;
	for (unsigned d = 0; d < g->nsw; d++) {
		if (!(hosts >> d & 1))
			continue;
		/* frames for d's hosts come in by i ... */
		if (i >= dp->nports && !next_hop(g, g->hl[i - dp->nports].from, d, i - dp->nports))
			continue;
		/* ... and leave by e: to a host here, or on toward d */
		if (e < dp->nports ? d == x : d != x && next_hop(g, x, d, e - dp->nports))
			return 1;
	}
	return 0;
}

static void
warn_pfc_egress(const struct fe_dp *dp)
{
	const unsigned nin = dp->nports + dp->graph->nhl;
	unsigned nshort = 0;
	char first[200] = "", name[96];
	uint64_t hosts = 0; /* the switches with a host */

	RTE_BUILD_BUG_ON(FE_TOPO_SWITCH > 64);
	for (unsigned p = 0; p < dp->nports; p++)
		hosts |= UINT64_C(1) << dp->graph->port_sw[p];

	/* egress e: a port's down link (e < nports), or link between switches e - nports
	 * from its switch; the inputs of that switch that may send to it */
	for (unsigned e = 0; e < nin; e++) {
		const struct fe_link *l =
			e < dp->nports ? &dp->ports[e].down : &dp->graph->hl[e - dp->nports].l;
		const unsigned x =
			e < dp->nports ? input_switch(dp, e) : dp->graph->hl[e - dp->nports].from;
		uint64_t need = 0;

		for (unsigned i = 0; i < nin; i++)
			if (input_switch(dp, i) == x && feeds(dp, hosts, i, e))
				need += pfc_may_hold(dp, i);
		if (l->cfg.max_bytes >= need &&
		    (uint64_t)l->cfg.max_pkts * FE_WIRE_MIN_FRAME >= need)
			continue;
		if (nshort++ > 0)
			continue;
		if (e < dp->nports)
			snprintf(name, sizeof(name), "%u.down", e);
		else
			snprintf(name, sizeof(name), "%s", dp->graph->hl[e - dp->nports].name);
		if (l->cfg.max_bytes < need)
			snprintf(first, sizeof(first), "%s, %" PRIu64 " B against %" PRIu64 " B",
				 name, l->cfg.max_bytes, need);
		else
			snprintf(first, sizeof(first),
				 "%s, %" PRIu32 " packets against %" PRIu64 " of %u B", name,
				 l->cfg.max_pkts, need / FE_WIRE_MIN_FRAME, FE_WIRE_MIN_FRAME);
	}
	if (nshort)
		fprintf(stderr,
			"fabemu-dp: warning: PFC: %u egress link(s) hold less than the inputs "
			"routed "
			"to them may send before their pauses act (xoff + headroom each, lanes "
			"times): the first, %s; tail drops remain possible there "
			"(docs/regimes.md)\n",
			nshort, first);
}

/*
 * The edge pause of each port that has it (fe_wire, docs/inline.md): its thresholds, and
 * a warning where the receive ring and the adapter queue cannot hold what a host at the
 * port's speed sends before its pause acts.
 */
static void
print_edge_pause(const struct fe_dp *dp)
{
	for (unsigned i = 0; i < dp->nports; i++) {
		const struct fe_port *p = &dp->ports[i];
		const struct fe_pfc_cfg *c = &p->epause.cfg;
		uint64_t bps, need, xoff_room;

		if (c->quanta == 0)
			continue;
		/* the rate the pause's quanta were timed at (fe_derive.c): the port's speed,
		 * else its up link's */
		bps = p->wire.bps		     ? p->wire.bps
		      : dp->desc.up[i].link.rate_bps ? dp->desc.up[i].link.rate_bps
						     : 100000000000ULL;
		need = fe_epause_inflight(bps);
		xoff_room = FE_EPAUSE_ROOM - c->xoff;
		printf("fabemu-dp: port %u: edge pause: XOFF at %" PRIu64
		       " frames of room in its adapter queue, XON at %" PRIu64
		       "; %u quanta (%.1f us at %.0f Gbit/s), refreshed every %.1f us\n",
		       i, xoff_room, FE_EPAUSE_ROOM - c->xon, c->quanta,
		       (double)c->quanta * 512 * 1e6 / (double)bps, (double)bps / 1e9,
		       (double)c->refresh_ticks * 1e6 / (double)dp->hz);
		if (xoff_room + (uint64_t)p->wire.rxd * 3 / 4 < need)
			fprintf(stderr,
				"fabemu-dp: warning: port %u: a host at %.0f Gbit/s sends up to "
				"%" PRIu64 " frames of 64 B in the %u us its pause takes to act; "
				"three quarters of the receive ring (%u descriptors) and the "
				"%" PRIu64 " frames of room left at XOFF hold %" PRIu64
				": frames may be lost at the box's NIC (counted: imissed). Raise "
				"--rxd, or link %u.up's buffer-pkts\n",
				i, (double)bps / 1e9, need, FE_EPAUSE_REACT_NS / 1000, p->wire.rxd,
				xoff_room, xoff_room + (uint64_t)p->wire.rxd * 3 / 4, i);
	}
	fflush(stdout);
}

/* Settings that are legal but defeat their purpose: say so once, at start. */
static void
warn_config(const struct fe_dp *dp)
{
	uint64_t need = 0;

	warn_rings(dp);
	print_edge_pause(dp);
	if (dp->conf.regime == FE_REGIME_PFC)
		warn_pfc_egress(dp);
	if (dp->conf.regime != FE_REGIME_PFC || dp->conf.switch_buffer == 0)
		return;
	for (unsigned i = 0; i < dp->nports; i++)
		need += dp->conf.lanes *
			(dp->ports[i].pfc.cfg.xoff + dp->ports[i].pfc.cfg.headroom);
	if (dp->conf.switch_buffer < need)
		fprintf(stderr,
			"fabemu-dp: warning: switch buffer %" PRIu64 " B < ports x lanes x (xoff + "
			"headroom) = %" PRIu64 " B: PFC cannot prevent shared-buffer drops\n",
			dp->conf.switch_buffer, need);
}

/*
 * Stop and close every port, then check that every mbuf came back. The engine must
 * hold none (it was drained). The 22.11 AF_XDP PMD does not return the mbufs of its
 * fill ring (2048 per queue) on close; that shortfall is reported as the PMD's, and
 * is a leak only if some port is not AF_XDP or it exceeds what those rings hold.
 * Returns 0, or -1 on a leak.
 */
static int
shutdown_ports(const struct fe_dp *dp, const uint16_t *ports, unsigned nports,
	       struct rte_mempool *pool)
{
	unsigned avail, size = pool->size, xdp_ports = 0, missing;
	uint64_t held = fe_dp_held(dp);

	for (unsigned i = 0; i < nports; i++) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(ports[i], &info) == 0 &&
		    strcmp(info.driver_name, "net_af_xdp") == 0)
			xdp_ports++;
		fe_ports_close(ports[i]);
	}
	avail = rte_mempool_avail_count(pool);
	missing = size - avail;
	printf("mbufs: engine holds %" PRIu64 " after drain; pool %u of %u returned", held, avail,
	       size);
	if (missing && xdp_ports && missing <= xdp_ports * (2048 + 2 * (unsigned)FE_BURST)) {
		printf(", %u kept by the af_xdp PMD's fill rings after close\n", missing);
		missing = 0;
	} else {
		printf(missing ? " (LEAK: %u missing)\n" : "\n", missing);
	}
	return held || missing ? -1 : 0;
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

static int
want_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 'h';
		if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0)
			return 'V';
	}
	return 0;
}

/*
 * Every port set up as a real NIC needs (fe_ports.h): the hosts' MTU (a trunk's with the
 * fabric's header), the NIC's own pauses off, the links waited for and printed, and no
 * port slower than the rate its links carry in real time (the profile's, once dilated).
 */
static int
ports_start(const struct opts *o, const uint16_t *ports, unsigned nports, unsigned nall,
	    struct rte_mempool *pool, const struct fe_linkdef *up, const struct fe_linkdef *down,
	    char *err, size_t len)
{
	struct fe_ports_conf c = {.rxd = (uint16_t)o->rxd,
				  .txd = (uint16_t)o->txd,
				  .keep_fc = o->keep_fc,
				  .link_wait_ns = o->link_wait_ns};
	uint64_t *rate = calloc(nports ? nports : 1, sizeof(*rate));
	int rc = 0;

	if (rate == NULL) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i < nall && rc == 0; i++) { /* the trunks too (--box) */
		c.mtu = (uint32_t)o->mtu + (i >= nports ? FE_TRUNK_HDR : 0);
		rc = fe_ports_setup(ports[i], pool, &c, err, len);
	}
	if (rc == 0) {
		fe_ports_wait_link(ports, nall, &c);
		printf("fabemu-dp: ports\n");
		fe_ports_print(ports, nall);
		for (unsigned i = 0; i < nports; i++)
			rate[i] = RTE_MAX(up[i].link.rate_bps, down[i].link.rate_bps);
		rc = fe_ports_check_speed(ports, nports, rate, err, len);
	}
	free(rate);
	return rc;
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
	static struct opts o;
	unsigned nports = 0, nall;
	char err[512];
	pthread_t ctl_tid;
	struct fe_dp *dp;
	struct fe_wire *wire;
	int rc, ret, eal_argc;
	char **eal_argv;
	const char *missing;
	struct timespec ctl_deadline;

	switch (want_help(argc, argv)) {
	case 'h':
		usage(stdout);
		return 0;
	case 'V':
		printf("fabemu-dp %s (%s)\n", FE_VERSION, rte_version()); /* "DPDK 22.11.1" */
		return 0;
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
	if (parse_args(argc, argv, &o, err, sizeof(err)) < 0)
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
	if (o.box && split_setup(&o, ports, &nports, err, sizeof(err)) < 0)
		rte_exit(2, "--box %s: %s\n", o.box, err);
	if (build_links(&o, nports, up, down, err, sizeof(err)) < 0)
		rte_exit(2, "%s\n", err);
	if (o.box) /* the NICs: the trunks carry their tags or not, and a receiver on one box
		    * serves a sender on another as its own were (window, recovery, CC) */
		split.hash = fnv(split.hash, nic_summary(&o.dp.nic));
	if (o.topology && topology_setup(&o, err, sizeof(err)) < 0)
		rte_exit(2, "--topology %s: %s\n", o.topology, err);
	if (o.dp.lcores > 1 && o.dp.regime != FE_REGIME_LOSSY)
		rte_exit(2, "--lcores 2: only the lossy regime runs as a pipeline (the lossless "
			    "ones are one causal loop)\n");

	if (data_room(&o, ports, nall, &room, err, sizeof(err)) < 0)
		rte_exit(2, "%s\n", err);
	nmbufs = o.mbufs ? (unsigned)o.mbufs
			 : pool_size(&o, nports, nall, up, down, rte_get_tsc_hz());
	pool = rte_pktmbuf_pool_create("fe_mbufs", nmbufs, 256, 0, room, rte_socket_id());
	if (pool == NULL)
		rte_exit(EXIT_FAILURE,
			 "mbuf pool of %u mbufs (%u MiB): %s; give EAL more memory (-m MB, e.g. "
			 "--no-huge -m 2048, or hugepages), or fewer with --mbufs\n",
			 nmbufs,
			 (unsigned)(((uint64_t)nmbufs * (room + 192) + (1 << 20) - 1) >> 20),
			 rte_strerror(rte_errno));
	if (ports_start(&o, ports, nports, nall, pool, up, down, err, sizeof(err)) < 0)
		rte_exit(2, "%s\n", err);
	discarded = calloc(nall, sizeof(*discarded));
	if (discarded == NULL)
		rte_exit(EXIT_FAILURE, "out of memory\n");
	if (o.box && split.ntrunks) {
		/* what the trunks' sockets caught before their bind: any interface's frames */
		discard_startup_frames(ports + nports, split.ntrunks, discarded + nports);
		printf("fabemu-dp: box %s, measuring its %u links to other boxes:", o.box,
		       split.ntrunks);
		for (unsigned t = 0; t < split.ntrunks; t++) {
			char name[RTE_ETH_NAME_MAX_LEN] = "?";

			rte_eth_dev_get_name_by_port(split.trunk[split.link[t]], name);
			printf(" %s on port %u (%s)", topo.link[split.link[t]].name,
			       split.trunk[split.link[t]], name);
		}
		printf("\n");
		fflush(stdout);
		if (measure_trunks(&o, pool, err, sizeof(err)) < 0)
			rte_exit(2, "--box %s: %s\n", o.box, err);
	}
	discard_startup_frames(ports, nports, discarded);

	wire = calloc(nports ? nports : 1, sizeof(*wire));
	if (wire == NULL)
		rte_exit(EXIT_FAILURE, "out of memory\n");
	for (unsigned i = 0; i < nports; i++) {
		wire[i].pause = (uint8_t)fe_ports_pause(ports[i], o.edge_pause, &wire[i].bps);
		wire[i].rxd = (uint32_t)o.rxd;
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

		fabric_from_opts(&o, &cc.fabric);
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
	print_banner(dp, &o);
	warn_config(dp);
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
	if (shutdown_ports(dp, ports, nports, pool) < 0)
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
