/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_filter: a tcpdump-syntax filter run in the fast path. libpcap compiles the
 * expression to classic BPF (pcap_compile, DLT_EN10MB); DPDK's BPF library converts
 * it to eBPF (rte_bpf_convert), loads it and JIT-compiles it where it can (x86-64,
 * arm64); otherwise rte_bpf_exec interprets it. Needs an initialised EAL.
 *
 * A packet crosses two links, and a profile mostly gives both the same expression:
 * the verdict is kept in the packet (an mbuf dynamic field, "fabemu_filter") with the
 * expression's key, and a filter with the same key takes it from there instead of
 * running the program again. Whoever receives a packet clears the field
 * (fe_filter_forget), and whoever changes its bytes too (ECN marking).
 */
#ifndef FE_FILTER_H
#define FE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <rte_bpf.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#define FE_MATCH_MAX 256

struct fe_filter {
	struct rte_bpf *bpf;
	uint64_t (*jit)(void *); /* NULL: interpreted */
	uint64_t key;		 /* of the expression (FNV-1a, bit 0 clear, never 0) */
	int dynoff;		 /* of the verdict in the mbuf: key | matched, 0: none */
};

/* Register the verdict's mbuf field (once; again returns the same); its offset or -1. */
int fe_filter_dynoff(void);

/* Compile expr; NULL with a message naming the expression in err. */
struct fe_filter *fe_filter_create(const char *expr, char *err, size_t errlen);
void fe_filter_free(struct fe_filter *f);

/* Clear what a packet remembers of filters (offset from fe_filter_dynoff()). */
static inline void
fe_filter_forget(struct rte_mbuf *m, int dynoff)
{
	*RTE_MBUF_DYNFIELD(m, dynoff, uint64_t *) = 0;
}

static inline int
fe_filter_match(const struct fe_filter *f, struct rte_mbuf *m)
{
	uint64_t *v = RTE_MBUF_DYNFIELD(m, f->dynoff, uint64_t *);
	int r;

	if ((*v & ~UINT64_C(1)) == f->key)
		return (int)(*v & 1);
	r = (f->jit ? f->jit(m) : rte_bpf_exec(f->bpf, m)) != 0;
	*v = f->key | (uint64_t)r;
	return r;
}

#endif
