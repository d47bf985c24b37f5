/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_pcie: the receiving host's PCIe, as Ultra Ethernet's reference simulator models it
 * for a UET receiver (ultraethernet/uet-htsim: htsim/sim/pciemodel.cpp PCIeModel, run by
 * main_uec.cpp's -pcie; uec.cpp UecSink::processData). Pure: no DPDK, time passed in
 * (ticks), so it is tested on a fake clock (tests/unit/test_pcie.c). docs/uec.md.
 *
 * Every data frame that reaches the NIC crosses the host's PCIe, which moves bytes at its
 * rate, in order: a frame is in the host's memory once those before it and its own bytes
 * are across. What waits is the backlog. A frame that would take the backlog above its
 * limit (the simulator's 5 MB) is not taken: the NIC trims it, and the sender is asked
 * for it again at once, as for a header trimmed at the last hop.
 *
 * The backlog sets RCCC's pull rate (UecPullPacer::updatePullRate, reason PCIE; the pacer
 * takes the lesser of it and the oversubscribed fabric's): the full rate while the backlog
 * is under a fifth of the limit (the simulator's 1 MB of 5), 0.001 of it above 95 % of the
 * limit, and between them the simulator's quadratic ((limit - backlog) / (limit - fifth))^2.
 *
 *   fe_pcie_compile(bps, limit, hz, &cfg);        // at start and at every change
 *   if (fe_pcie_take(&s, &cfg, now, len, &at) < 0) // the frame: trimmed
 *   ...                                            // else: to the host at tick `at`
 *   fe_rccc_pcie(&pacer, &rccc_cfg, fe_pcie_rate16(&cfg, fe_pcie_backlog(&s, &cfg, now)));
 */
#ifndef FE_PCIE_H
#define FE_PCIE_H

#include <stdint.h>

#define FE_PCIE_LIMIT 5000000 /* bytes: uet-htsim's PCIeModel::_max_pcie_backlog */
#define FE_PCIE_FULL  65536u  /* the full pull rate, x 2^16 */

struct fe_pcie_cfg {
	uint64_t fp_per_byte; /* ticks x 2^16 a byte takes across; 0: not modelled */
	uint64_t limit;	      /* bytes the backlog holds at most */
	uint64_t floor;	      /* bytes of backlog under which the pull rate is full */
};

/* The state: when the last byte taken is across. */
struct fe_pcie {
	uint64_t free; /* tick */
	uint32_t frac; /* and 2^-16 ticks */
};

/* The backlog's limit (bytes) for pcie-backlog's value (0: FE_PCIE_LIMIT). */
static inline uint64_t
fe_pcie_limit(uint64_t limit)
{
	return limit ? limit : FE_PCIE_LIMIT;
}

/* Compile for a rate (bit/s; 0: not modelled) and a limit (bytes; 0: FE_PCIE_LIMIT) on a
 * clock of hz. A rate so low that its full backlog would take longer than 2^62 ticks to
 * cross is taken as that slowest one. */
void fe_pcie_compile(uint64_t bps, uint64_t limit, uint64_t hz, struct fe_pcie_cfg *c);

/* Bytes still to cross at now. */
uint64_t fe_pcie_backlog(const struct fe_pcie *s, const struct fe_pcie_cfg *c, uint64_t now);

/*
 * A frame of len bytes reached the NIC at now: 0, with *at the tick it is across (now at
 * the earliest), or -1 if the backlog has no room for it (nothing taken).
 */
int fe_pcie_take(struct fe_pcie *s, const struct fe_pcie_cfg *c, uint64_t now, uint32_t len,
		 uint64_t *at);

/* The pull rate a backlog allows, x 2^16 (FE_PCIE_FULL: the full rate). */
uint32_t fe_pcie_rate16(const struct fe_pcie_cfg *c, uint64_t backlog);

#endif
