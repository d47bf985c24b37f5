/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Known DPDK bugs the filter and engine targets step around while they fuzz, so that
 * fuzzing goes on past them (tests/fuzz/README.md, "Findings"). Both are in DPDK 22.11
 * (Debian 12's):
 *
 * 1. The x86-64 eBPF JIT encodes `jset rN, #imm` as TEST r/m64, imm32 (48 f7 c0) but
 *    writes a one-byte immediate when imm fits in 8 bits: the code after it is
 *    misaligned, and the filter crashes or answers at random. libpcap compiles every
 *    `EXPR & MASK != 0` with a small MASK to such a jset ("tcp[13] & 2 != 0",
 *    "ip[1] & 3 != 0"): fabemu-dp crashed on the first packet that reached one.
 * 2. rte_bpf_convert() turns classic BPF's indirect loads of a byte or a word
 *    (`ldb [x + k]`, `ld [x + k]`: tcp[13], tcp[tcpflags], udp[8:4]) into eBPF loads
 *    indexed by A (r0) instead of X (r7, as it does for half-words): such filters match
 *    the wrong packets, silently.
 *
 * The regressions in corpus/filter and corpus/engine (crash-*) are replayed with
 * FZ_REPLAY=1 (tests/fuzz/run.sh), where nothing is stepped around: they pass once
 * dataplane/engine/fe_filter.c does not run a program with (1) JIT-compiled and fixes (2) up.
 */
#ifndef FUZZ_BPF_H
#define FUZZ_BPF_H

#include <pcap/pcap.h>
#include <stdlib.h>

#include <rte_bpf.h>
#include <rte_malloc.h>

/* Which of the bugs above libpcap's program for expr, converted as fe_filter.c does, has. */
enum { FZ_JSET_IMM8 = 1, FZ_LD_IND_BW = 2 };

static inline int
fz_bpf_bugs(const char *expr)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	struct bpf_program cbpf;
	struct rte_bpf_prm *prm;
	int found = 0;

	if (p == NULL)
		return 0;
	if (pcap_compile(p, &cbpf, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		pcap_close(p);
		return 0;
	}
	pcap_close(p);
	prm = rte_bpf_convert(&cbpf);
	pcap_freecode(&cbpf);
	if (prm == NULL)
		return 0;
	for (uint32_t i = 0; i < prm->nb_ins; i++) {
		const struct ebpf_insn *in = &prm->ins[i];

		if (in->code == (BPF_JMP | BPF_JSET | BPF_K) && in->imm >= -128 && in->imm <= 127)
			found |= FZ_JSET_IMM8;
		if (in->code == (BPF_LD | BPF_IND | BPF_B) ||
		    in->code == (BPF_LD | BPF_IND | BPF_W))
			found |= FZ_LD_IND_BW;
	}
	rte_free(prm);
	return found;
}

/* Step around the bugs above: not when replaying the corpus (FZ_REPLAY=1). */
static inline int
fz_skip_bpf_bugs(const char *expr, int jitted)
{
	static int replay = -1;
	int bugs;

	if (replay < 0)
		replay = getenv("FZ_REPLAY") != NULL;
	if (replay)
		return 0;
	bugs = fz_bpf_bugs(expr);
	return (jitted && (bugs & FZ_JSET_IMM8)) || (bugs & FZ_LD_IND_BW);
}

#endif
