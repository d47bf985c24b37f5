/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_filter: a tcpdump-syntax filter run in the fast path. libpcap compiles the
 * expression to classic BPF (pcap_compile, DLT_EN10MB); DPDK's BPF library converts
 * it to eBPF (rte_bpf_convert), loads it and JIT-compiles it where it can (x86-64,
 * arm64); otherwise rte_bpf_exec interprets it. Needs an initialised EAL.
 */
#ifndef FE_FILTER_H
#define FE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <rte_bpf.h>
#include <rte_mbuf.h>

#define FE_MATCH_MAX 256

struct fe_filter {
	struct rte_bpf *bpf;
	uint64_t (*jit)(void *); /* NULL: interpreted */
};

/* Compile expr; NULL with a message naming the expression in err. */
struct fe_filter *fe_filter_create(const char *expr, char *err, size_t errlen);
void fe_filter_free(struct fe_filter *f);

static inline int
fe_filter_match(const struct fe_filter *f, struct rte_mbuf *m)
{
	return (f->jit ? f->jit(m) : rte_bpf_exec(f->bpf, m)) != 0;
}

#endif
