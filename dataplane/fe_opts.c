/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp's command line (fe_opts.h): one small function an option, each checked and
 * quoting a bad value; the rules between options in fe_opts_parse().
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "fe_ctl_proto.h"
#include "fe_dpopts.h"
#include "fe_linkspec.h"
#include "fe_opts.h"
#include "fe_ports.h"
#include "fe_profile.h"
#include "fe_regimespec.h"
#include "fe_rules.h"

void
fe_opts_usage(FILE *f)
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
		"                       ethernet-lossy, ethernet-ecn, uec, uec-lossless)\n"
		"                       or a file. It sets the regime and every link; --link\n"
		"                       and --seed still apply on top, the other fabric and\n"
		"                       link options are refused with it.\n"
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
		"  --credit SPEC        buffer=SIZE (per lane, in blocks of unit),unit=SIZE (the\n"
		"                       bytes a credit stands for, 16B to 64KiB: a frame takes\n"
		"                       its length in them, rounded up),return=TIME,\n"
		"                       hoq=TIME (HOQLife, 0s = off),out=N (output buffer, "
		"packets),\n"
		"                       update=SIZE (credits go back in messages of SIZE a lane;\n"
		"                       0 = each frame's as it leaves)\n"
		"                       (default: buffer=64KiB,unit=64B (InfiniBand's),return=0s,\n"
		"                       hoq=0s,out=2,update=0)\n"
		"                       Lossless regimes give the up links (host adapter queues)\n"
		"                       32MiB / 16384 packets unless --buffer/--buffer-pkts say.\n"
		"  --nic SPEC           the hosts' adapters (docs/nic.md): "
		"model=tcp|roce|ib|host|uec,\n"
		"                       recovery=go-back-n|selective, window=N, "
		"timeout=TIME|path,\n"
		"                       cc=off|dcqcn|ib|nscc|rccc|nscc+rccc (rccc: model uec\n"
		"                       only), reorder=TIME, DCQCN's g=1/N, cnp-interval,\n"
		"                       alpha-period, rate-period, rate-bytes, stages, ai-rate,\n"
		"                       hai-rate, min-rate, InfiniBand CC's ccti-increase,\n"
		"                       ccti-limit, ccti-min, ccti-timer, cct-step=1/N, Ultra\n"
		"                       Ethernet's (model uec) rtt=TIME, trim=SIZE,\n"
		"                       trim-dscp=N|keep, trim-queue=priority|data (the\n"
		"                       switches' queue a trimmed header takes),\n"
		"                       reps-freeze=TIME, NSCC's sleek=on|off (its loss probes),\n"
		"                       RCCC's oversub-cc=auto|on|off (the receiver's pull rate\n"
		"                       cut on an oversubscribed fabric), the receiving host's\n"
		"                       pcie=RATE (0: not modelled) and pcie-backlog=SIZE\n"
		"                       (5MB), the receiver's ack-bytes=SIZE (an ACK each SIZE\n"
		"                       and at once on CE, duplicates, the first frame and the\n"
		"                       sender's requests; 0: each batch delivered).\n"
		"                       On top of a profile's nic: (not scaled).\n"
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
		"                       flowlet (least queued after a gap in the flow),\n"
		"                       entropy (the flow's hash and the entropy its NIC chose:\n"
		"                       REPS, --nic model=uec; else as ecmp)\n"
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
add_spec(struct fe_opts *o, int is_file, const char *text, char *err, size_t len)
{
	if (o->nspecs == FE_OPTS_SPECS) {
		snprintf(err, len, "more than %d --link/--profile options", FE_OPTS_SPECS);
		return -E2BIG;
	}
	o->specs[o->nspecs].is_file = is_file;
	o->specs[o->nspecs++].text = text;
	return 0;
}

static int
parse_opt(struct fe_opts *o, int c, const char *v, char *err, size_t len)
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
		o->pfc_set = 1;
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
		o->credit_set = 1;
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

int
fe_opts_parse(int argc, char **argv, struct fe_opts *o, char *err, size_t len)
{
	int c;

	*o = (struct fe_opts){
		.link = {.link = {.limit_bytes = 1 << 20, .limit_pkts = 1000}},
		.dp = {.mac_age_ns = 300ULL * 1000000000,
		       .idle_sleep_ns = 100000,
		       .idle_spin = 64,
		       .lanes = 1,
		       /* docs/regimes.md gives the sources of these defaults */
		       .pfc = {.xoff = 64 << 10, .xon = (64 << 10) - 2 * 1514, .quanta = 65535},
		       .credit = {.buffer = 64 << 10, .unit = FE_CREDIT_UNIT, .out_pkts = 2},
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
	/* a regime's keys under another regime would change nothing: a mistake, as a profile's
	 * pfc: or credit: section under another regime is */
	if ((o->pfc_set && o->dp.regime != FE_REGIME_PFC) ||
	    (o->credit_set && o->dp.regime != FE_REGIME_CREDIT)) {
		const enum fe_regime need = o->pfc_set && o->dp.regime != FE_REGIME_PFC
						    ? FE_REGIME_PFC
						    : FE_REGIME_CREDIT;

		snprintf(err, len,
			 "--%s: given but the regime is %s; its keys act under --regime %s only",
			 fe_regime_name(need), fe_regime_name(o->dp.regime), fe_regime_name(need));
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

void
fe_opts_to_fabric(const struct fe_opts *o, struct fe_fabric *f)
{
	f->regime = o->dp.regime;
	f->lanes = o->dp.lanes;
	f->lane_map = o->dp.lane_map;
	f->switch_buffer = o->dp.switch_buffer;
	f->pfc = o->dp.pfc;
	f->credit = o->dp.credit;
	f->nic = o->dp.nic;
}

void
fe_opts_from_fabric(const struct fe_fabric *f, struct fe_opts *o)
{
	o->dp.regime = f->regime;
	o->dp.lanes = f->lanes;
	o->dp.lane_map = f->lane_map;
	o->dp.switch_buffer = f->switch_buffer;
	o->dp.pfc = f->pfc;
	o->dp.credit = f->credit;
	o->dp.nic = f->nic;
}

int
fe_opts_want_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 'h';
		if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0)
			return 'V';
	}
	return 0;
}
