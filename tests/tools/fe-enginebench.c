/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe-enginebench: the forwarding engine alone, without a PMD's cost and without the
 * machine's noise in the model. Two in-memory net_ring ports carry 60-byte frames
 * a -> b and b -> a; what the engine sends out of one port is put back into the other
 * port's receive ring, at most a burst a port per pass, and a fake clock advances a
 * fixed time per pass, so every run offers the same packets at the same emulated
 * times and takes the same path through the models (the link, credit and ECN state
 * the real benchmark meets at that load). It prints the packets forwarded and the
 * wall-clock ns per packet; under `valgrind --tool=callgrind` the instructions per
 * packet are exact and repeat to the instruction, which is what an optimization of
 * the fast path is judged by on a machine whose speed drifts (docs/performance.md).
 *
 *   fe-enginebench [--profile P] [--packets N] [--offered MPPS]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "fe_dp.h"
#include "fe_graphconf.h"
#include "fe_profile.h"

#define NP   2
#define HZ   1000000000ULL /* fake clock: 1 tick = 1 ns */
#define RING 4096
#define POPULATION                                                                                 \
	256 /* frames circulating, per port: few, as in a real run where the                       \
	     * PMD reuses the mbufs freed last */
#define FRAME 60

static const uint8_t MAC[NP][6] = {{0x02, 0xfe, 0, 0, 0, 0xa}, {0x02, 0xfe, 0, 0, 0, 0xb}};

static void
usage(FILE *f)
{
	fprintf(f, "usage: fe-enginebench [--profile P] [--packets N] [--offered MPPS]\n"
		   "  The engine over two in-memory ports and a fake clock: every run takes\n"
		   "  the same path; prints packets forwarded and wall-clock ns per packet.\n"
		   "  --profile P     fabric profile, a name or a file (default: ideal)\n"
		   "  --packets N     packets to forward in all (default: 2000000)\n"
		   "  --offered MPPS  emulated load, both ports together (default: 15)\n"
		   "  --topology T    several switches (2 host ports; docs/topologies.md)\n");
}

static int
parse_u64(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (*v == '\0' || *v == '-' || *end != '\0' || errno || x < min || x > max) {
		fprintf(stderr, "fe-enginebench: %s '%s': allowed %" PRIu64 " to %" PRIu64 "\n",
			opt, v, min, max);
		return -1;
	}
	*out = x;
	return 0;
}

static int
port_up(unsigned i, struct rte_mempool *pool, struct rte_ring **rx, struct rte_ring **tx,
	uint16_t *id)
{
	struct rte_eth_conf conf = {0};
	char name[32];
	int rc;

	snprintf(name, sizeof(name), "rx%u", i);
	*rx = rte_ring_create(name, RING, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "tx%u", i);
	*tx = rte_ring_create(name, RING, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (*rx == NULL || *tx == NULL)
		return -1;
	snprintf(name, sizeof(name), "ring%u", i);
	rc = rte_eth_from_rings(name, rx, 1, tx, 1, 0);
	if (rc < 0)
		return -1;
	*id = (uint16_t)rc;
	if (rte_eth_dev_configure(*id, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(*id, 0, RING, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(*id, 0, RING, 0, NULL) != 0 || rte_eth_dev_start(*id) != 0)
		return -1;
	return 0;
}

/* POPULATION frames from port i's host to the other's, queued for the engine to read. */
static int
fill(struct rte_mempool *pool, struct rte_ring *rx, unsigned i)
{
	for (unsigned k = 0; k < POPULATION; k++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint8_t *f = m ? (uint8_t *)rte_pktmbuf_append(m, FRAME) : NULL;

		if (f == NULL)
			return -1;
		memset(f, 0, FRAME);
		memcpy(f, MAC[1 - i], 6);
		memcpy(f + 6, MAC[i], 6);
		/* IPv4, UDP 9 -> 9, ECN-capable: fe-pcapgen --udp's frames, which the
		 * benchmark's full profile filters and marks */
		f[12] = 0x08;
		f[14] = 0x45;
		f[15] = 0x02;
		f[17] = FRAME - 14;
		f[22] = 64;
		f[23] = 17;
		f[35] = 9;
		f[37] = 9;
		if (rte_ring_enqueue(rx, m) != 0)
			return -1;
	}
	return 0;
}

static struct fe_dp *
engine(const char *profile, const char *topology, struct rte_mempool *pool, const uint16_t *ports)
{
	static struct fe_graph_build gb;
	static struct fe_topo t;
	struct fe_linkdef fabric;
	struct fe_linkdef up[NP], down[NP];
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL, .seed = 1, .lanes = 1};
	struct fe_profile *p = calloc(1, sizeof(*p));
	struct fe_fabric fab;
	struct fe_dp *dp = NULL;
	char err[512];

	if (p == NULL)
		return NULL;
	if (fe_profile_load(profile, p, err, sizeof(err)) < 0 ||
	    fe_profile_expand(p, 0, NP, up, down, &fab, err, sizeof(err)) < 0) {
		fprintf(stderr, "fe-enginebench: %s\n", err);
		goto out;
	}
	conf.regime = fab.regime;
	conf.lanes = fab.lanes;
	conf.lane_map = fab.lane_map;
	conf.switch_buffer = fab.switch_buffer;
	conf.pfc = fab.pfc;
	conf.credit = fab.credit;
	conf.nic = fab.nic;
	/* several switches: the links between them take the profile's class for them */
	if (topology &&
	    (fe_topo_load(topology, &t, err, sizeof(err)) < 0 ||
	     fe_profile_fabric(p, 0, &fabric, err, sizeof(err)) < 0 ||
	     fe_graph_build(&t, &fabric, FE_PATH_ECMP, NP, &gb, err, sizeof(err)) < 0)) {
		fprintf(stderr, "fe-enginebench: %s\n", err);
		goto out;
	}
	if (topology && t.nsw > 1)
		conf.graph = &gb.conf;
	if (p->seed_set)
		conf.seed = p->seed;
	dp = fe_dp_create(NP, ports, up, down, pool, HZ, &conf, err, sizeof(err));
	if (dp == NULL)
		fprintf(stderr, "fe-enginebench: %s\n", err);
out:
	free(p);
	return dp;
}

int
main(int argc, char **argv)
{
	/* clang-format off */
	char *eal[] = {"fe-enginebench", "--no-huge", "--no-pci", "--no-shconf",
	               "--file-prefix", "fe-enginebench", "-m", "512", "-l", "0",
	               "--no-telemetry", "--log-level", "error"};
	/* clang-format on */
	static const struct option lo[] = {{"profile", required_argument, NULL, 'p'},
					   {"packets", required_argument, NULL, 'n'},
					   {"offered", required_argument, NULL, 'o'},
					   {"topology", required_argument, NULL, 't'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	const char *profile = "ideal", *topology = NULL;
	uint64_t total = 2000000, offered = 15, sent = 0, now = HZ, dt, t0, t1, passes = 0;
	uint64_t quiet = 0;
	struct rte_ring *rx[NP], *tx[NP];
	struct rte_mempool *pool;
	uint16_t ports[NP];
	struct fe_dp *dp;
	int c, rc = 1;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'p') {
			profile = optarg;
		} else if (c == 't') {
			topology = optarg;
		} else if (c == 'n') {
			if (parse_u64("--packets", optarg, 1, UINT64_MAX / 2, &total) < 0)
				return 2;
		} else if (c == 'o') {
			if (parse_u64("--offered", optarg, 1, 1000, &offered) < 0)
				return 2;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fe-enginebench: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (rte_eal_init(sizeof(eal) / sizeof(eal[0]), eal) < 0) {
		fprintf(stderr, "fe-enginebench: EAL init failed\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("pool", 4 * POPULATION * NP, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	for (unsigned i = 0; pool && i < NP; i++)
		if (port_up(i, pool, &rx[i], &tx[i], &ports[i]) < 0 || fill(pool, rx[i], i) < 0)
			pool = NULL;
	if (pool == NULL) {
		fprintf(stderr, "fe-enginebench: cannot set up the ports\n");
		goto out;
	}
	dp = engine(profile, topology, pool, ports);
	if (dp == NULL)
		goto out;
	/* a pass puts back one burst a port: the clock moves what that load takes */
	dt = FE_BURST * NP * 1000 / offered;
	t0 = rte_rdtsc();
	while (sent < total) {
		uint64_t before = sent;

		for (unsigned i = 0; i < NP; i++) {
			void *m[FE_BURST];
			unsigned n = rte_ring_dequeue_burst(tx[i], m, FE_BURST, NULL);

			sent += n;
			/* frames out of port i came from the other host: send them again */
			if (rte_ring_enqueue_bulk(rx[1 - i], m, n, NULL) != n)
				rte_pktmbuf_free_bulk((struct rte_mbuf **)m, n);
		}
		fe_dp_poll(dp, now);
		now += dt;
		passes++;
		quiet = sent == before ? quiet + 1 : 0;
		if (quiet > 1000000) /* an emulated second with nothing out: it is stuck */
			break;
	}
	t1 = rte_rdtsc();
	printf("profile %s, offered %" PRIu64 " Mpps (emulated): %" PRIu64 " packets in %" PRIu64
	       " passes, %.1f ns per packet (wall clock)\n",
	       profile, offered, sent, passes,
	       (double)(t1 - t0) * 1e9 / (double)rte_get_tsc_hz() / (double)(sent ? sent : 1));
	rc = sent >= total ? 0 : 1;
	if (rc)
		fprintf(stderr, "fe-enginebench: the engine stopped forwarding\n");
	fe_dp_drain(dp);
	fe_dp_free(dp);
out:
	rte_eal_cleanup();
	rmdir("/var/run/dpdk/fe-enginebench");
	return rc;
}
