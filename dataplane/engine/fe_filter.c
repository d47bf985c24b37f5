/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>

#include "fe_filter.h"

int
fe_filter_dynoff(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "fabemu_filter",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};

	return rte_mbuf_dynfield_register(&desc);
}

/* FNV-1a of the expression: equal expressions share their verdicts. */
static uint64_t
expr_key(const char *expr)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (const unsigned char *c = (const unsigned char *)expr; *c; c++)
		h = (h ^ *c) * UINT64_C(1099511628211);
	h &= ~UINT64_C(1);
	return h ? h : 2;
}

/*
 * Two bugs of DPDK 22.11's BPF library that fabemu's filters meet, both found by the
 * filter and engine fuzz targets (tests/fuzz/corpus/{filter,engine}/crash-*):
 *  - rte_bpf_convert() turns a cBPF byte or word load at a variable offset (tcp[13],
 *    tcp[tcpflags], udp[8:4]: BPF_LD|BPF_IND|BPF_B or BPF_W) into an eBPF load indexed
 *    by the wrong register; only half-word loads get X (eBPF R7). Such filters matched
 *    other packets than libpcap says. Mended here: every such load is indexed by R7.
 *  - the x86 JIT encodes "A & K" (BPF_JMP|BPF_JSET|BPF_K) with K in -128..127 as a
 *    4-byte test with a 1-byte immediate, so the code after it runs misaligned and the
 *    dataplane crashes on the first packet (tcp[13] & 2 != 0). Such programs are
 *    interpreted instead. Returns whether the JIT may be used.
 */
static int
dpdk_22_11_mend(struct rte_bpf_prm *prm)
{
	int jit_ok = 1;

	for (uint32_t i = 0; i < prm->nb_ins; i++) {
		struct ebpf_insn *in = (struct ebpf_insn *)(uintptr_t)&prm->ins[i];

		if (in->code == (BPF_LD | BPF_IND | BPF_B) ||
		    in->code == (BPF_LD | BPF_IND | BPF_W))
			in->src_reg = EBPF_REG_7;
		if (in->code == (BPF_JMP | BPF_JSET | BPF_K) && in->imm >= -128 && in->imm <= 127)
			jit_ok = 0;
	}
	return jit_ok;
}

struct fe_filter *
fe_filter_create(const char *expr, char *err, size_t errlen)
{
	struct rte_bpf_prm *prm = NULL;
	struct bpf_program cbpf;
	struct fe_filter *f;
	struct rte_bpf_jit jit;
	int jit_ok;
	pcap_t *p;

	p = pcap_open_dead(DLT_EN10MB, 65535);
	if (p == NULL) {
		snprintf(err, errlen, "filter '%s': libpcap unavailable", expr);
		return NULL;
	}
	if (pcap_compile(p, &cbpf, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, errlen, "filter '%s': %s", expr, pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	pcap_close(p);
	prm = rte_bpf_convert(&cbpf);
	pcap_freecode(&cbpf);
	if (prm == NULL) {
		snprintf(err, errlen, "filter '%s': cannot convert to eBPF: %s", expr,
			 rte_strerror(rte_errno));
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		rte_free(prm);
		snprintf(err, errlen, "filter '%s': out of memory", expr);
		return NULL;
	}
	f->key = expr_key(expr);
	f->dynoff = fe_filter_dynoff();
	if (f->dynoff < 0) {
		snprintf(err, errlen, "filter '%s': no mbuf field for the verdict: %s", expr,
			 rte_strerror(rte_errno));
		free(f);
		rte_free(prm);
		return NULL;
	}
	jit_ok = dpdk_22_11_mend(prm);
	f->bpf = rte_bpf_load(prm);
	rte_free(prm);
	if (f->bpf == NULL) {
		snprintf(err, errlen, "filter '%s': cannot load: %s", expr,
			 rte_strerror(rte_errno));
		free(f);
		return NULL;
	}
	if (jit_ok && rte_bpf_get_jit(f->bpf, &jit) == 0 && jit.func != NULL)
		f->jit = jit.func;
	return f;
}

void
fe_filter_free(struct fe_filter *f)
{
	if (f == NULL)
		return;
	rte_bpf_destroy(f->bpf);
	free(f);
}
