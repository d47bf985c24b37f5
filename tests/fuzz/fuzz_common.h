/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fuzz targets share (tests/fuzz/README.md):
 *
 *   fz_file(data, size)       the input as a file, for parsers that take a path
 *   fz_links(up, down, n)     compile and print every link, as the dataplane and the
 *                             reports would, to reach the code behind a parser
 *   fz_eal()                  an EAL without hugepages, files or PCI, for the engine
 *                             and the filters; cleaned up at exit
 *
 * A target aborts (libFuzzer: a crash) when a property it checks fails: FZ_CHECK.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fe_ecn.h"
#include "fe_link.h"
#include "fe_linkdef.h"
#include "fe_loss.h"
#include "fe_profile.h"

#define FZ_CHECK(cond, ...)                                                                        \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz check failed: %s: ", #cond);                         \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The input in a memory file; its path (/proc/self/fd/N) opens it from the start. */
static inline const char *
fz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz-input", 0);
		FZ_CHECK(fd >= 0, "memfd_create");
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	FZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate");
	FZ_CHECK(size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size, "pwrite");
	return path;
}

/*
 * Each link as the dataplane compiles it (rate, delay, buffer into ticks; loss and ECN
 * into fixed point) and as `fabemuctl links` prints it. A link a parser accepted must
 * compile: the parser range-checks what the dataplane would refuse.
 */
static inline void
fz_links(const struct fe_linkdef *up, const struct fe_linkdef *down, unsigned n)
{
	for (unsigned i = 0; i < 2 * n; i++) {
		const struct fe_linkdef *d = i % 2 ? &down[i / 2] : &up[i / 2];
		struct fe_link_cfg cfg;
		struct fe_loss loss;
		struct fe_ecn ecn;
		char line[1024];

		FZ_CHECK(fe_link_compile(&d->link, 1000000000ULL, &cfg) == 0 &&
				 fe_link_compile(&d->link, 4000000000ULL, &cfg) == 0,
			 "link %u.%s accepted but does not compile", i / 2, i % 2 ? "down" : "up");
		FZ_CHECK(fe_loss_compile(&d->loss, &loss) == 0, "loss accepted, not compiled");
		FZ_CHECK(fe_ecn_compile(&d->ecn, &ecn) == 0, "ecn accepted, not compiled");
		fe_profile_fmt_link(d, line, sizeof(line));
	}
}

#endif
