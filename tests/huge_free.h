/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the test programs that start EAL (the unit tests' ring_ports.h, the fuzz targets'
 * fuzz_eal.h): how many MiB of hugepages the machine has free, to take EAL's memory from
 * them where there are enough, as the end-to-end tests do (testbeds/lib.sh, fe_eal_mem).
 */
#ifndef FE_TEST_HUGE_FREE_H
#define FE_TEST_HUGE_FREE_H

#include <stdio.h>

static inline unsigned long
fe_test_huge_free_mib(void)
{
	unsigned long n = 0, kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "HugePages_Free: %lu", &n);
		sscanf(line, "Hugepagesize: %lu kB", &kb);
	}
	if (f != NULL)
		fclose(f);
	return n * kb / 1024;
}

#endif
