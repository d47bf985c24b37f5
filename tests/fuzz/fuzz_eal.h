/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An EAL for the fuzz targets that need DPDK (the engine, the filters): no hugepages,
 * no PCI, no shared config, no telemetry, one lcore; its runtime directory is removed at
 * exit (a crash may leave /var/run/dpdk/fe-fuzz-PID behind).
 */
#ifndef FUZZ_EAL_H
#define FUZZ_EAL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>

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

	snprintf(prefix, sizeof(prefix), "fe-fuzz-%d", (int)getpid());
	snprintf(fz_eal_dir, sizeof(fz_eal_dir), "/var/run/dpdk/%s", prefix);
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed\n", prog);
		exit(1);
	}
	atexit(fz_eal_down);
}

#endif
