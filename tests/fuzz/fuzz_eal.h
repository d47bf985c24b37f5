/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An EAL for the fuzz targets that need DPDK (the engine, the filters): hugepages where
 * 1 GiB is free (fz_eal()), else none,
 * no PCI, no shared config, no telemetry, one lcore; its runtime directory is removed at
 * exit (a crash may leave /var/run/dpdk/fe-fuzz-PID behind). And the targets' ports: a
 * pair of rings each (fz_ring_port()).
 */
#ifndef FUZZ_EAL_H
#define FUZZ_EAL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "../huge_free.h"
#include "fuzz_common.h"

static char fz_eal_dir[64];

static void
fz_eal_down(void)
{
	rte_eal_cleanup();
	rmdir(fz_eal_dir);
}

static inline void
fz_eal(const char *prog)
{
	char prefix[32];
	/* clang-format off */
	char *argv[] = {(char *)prog, "--no-huge", "--no-pci", "--no-shconf", "--no-telemetry",
	                "-m", "512", "-l", "0", "--log-level", "*:error",
	                "--file-prefix", prefix};
	/* clang-format on */

	/* on hugepages where 1 GiB is free (two targets at once: ctest -j2), 512 MiB at most:
	 * a freed page goes back to the kernel, so that a use after free of DPDK's memory
	 * crashes (on 4 KiB pages it reads zeroes) */
	if (fe_test_huge_free_mib() >= 1024) {
		argv[1] = "--in-memory";
		argv[5] = "--socket-limit";
	}
	snprintf(prefix, sizeof(prefix), "fe-fuzz-%d", (int)getpid());
	snprintf(fz_eal_dir, sizeof(fz_eal_dir), "/var/run/dpdk/%s", prefix);
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed\n", prog);
		exit(1);
	}
	atexit(fz_eal_down);
}

/*
 * Port i of a target: what the engine reads from *rx and sends to *tx, rings of size
 * frames (their names tagged tag, one letter), its RX taking mbufs from pool; its id.
 */
static inline uint16_t
fz_ring_port(char tag, unsigned i, unsigned size, struct rte_mempool *pool, struct rte_ring **rx,
	     struct rte_ring **tx)
{
	struct rte_eth_conf conf = {0};
	char name[32];
	uint16_t port;
	int rc;

	snprintf(name, sizeof(name), "%crx%u", tag, i);
	*rx = rte_ring_create(name, size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "%ctx%u", tag, i);
	*tx = rte_ring_create(name, size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	FZ_CHECK(*rx && *tx, "rings");
	snprintf(name, sizeof(name), "%cring%u", tag, i);
	rc = rte_eth_from_rings(name, rx, 1, tx, 1, 0);
	FZ_CHECK(rc >= 0, "rte_eth_from_rings");
	port = (uint16_t)rc;
	FZ_CHECK(rte_eth_dev_configure(port, 1, 1, &conf) == 0 &&
			 rte_eth_rx_queue_setup(port, 0, size, 0, NULL, pool) == 0 &&
			 rte_eth_tx_queue_setup(port, 0, size, 0, NULL) == 0 &&
			 rte_eth_dev_start(port) == 0,
		 "port %u", i);
	return port;
}

#endif
