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

struct fe_filter *
fe_filter_create(const char *expr, char *err, size_t errlen)
{
	struct rte_bpf_prm *prm = NULL;
	struct bpf_program cbpf;
	struct fe_filter *f;
	struct rte_bpf_jit jit;
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
	f->bpf = rte_bpf_load(prm);
	rte_free(prm);
	if (f->bpf == NULL) {
		snprintf(err, errlen, "filter '%s': cannot load: %s", expr,
			 rte_strerror(rte_errno));
		free(f);
		return NULL;
	}
	if (rte_bpf_get_jit(f->bpf, &jit) == 0 && jit.func != NULL)
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
