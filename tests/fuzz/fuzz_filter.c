/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Filters (dataplane/engine/fe_filter.c): the input up to its first NUL byte is a tcpdump
 * expression, compiled as a link's match= is (libpcap, then DPDK's eBPF: converted,
 * loaded, JIT-compiled); the rest is a frame it is run on, in one mbuf and split over
 * two. The verdict must be libpcap's own for the same bytes (pcap_offline_filter), in
 * both forms. Seeds: the match= expressions of docs/, profiles/ and tests/.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fe_filter.h"
#include "fuzz_bpf.h"
#include "fuzz_common.h"
#include "fuzz_eal.h"

#define FRAME_MAX 1600

static struct rte_mempool *pool;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	fz_eal((*argv)[0]);
	pool = rte_pktmbuf_pool_create("fuzz_filter", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	FZ_CHECK(pool != NULL, "mbuf pool");
	return 0;
}

/* The frame in one mbuf, or split at `cut` over two; NULL if the pool is empty. */
static struct rte_mbuf *
frame(const uint8_t *f, size_t len, size_t cut)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *t;

	if (m == NULL)
		return NULL;
	if (cut == 0 || cut >= len) {
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
		return m;
	}
	memcpy(rte_pktmbuf_append(m, (uint16_t)cut), f, cut);
	t = rte_pktmbuf_alloc(pool);
	FZ_CHECK(t != NULL, "mbuf");
	memcpy(rte_pktmbuf_append(t, (uint16_t)(len - cut)), f + cut, len - cut);
	FZ_CHECK(rte_pktmbuf_chain(m, t) == 0, "chain");
	return m;
}

/* libpcap's verdict on the frame: the reference. */
static int
reference(const char *expr, const uint8_t *f, size_t len)
{
	struct pcap_pkthdr h = {.caplen = (bpf_u_int32)len, .len = (bpf_u_int32)len};
	struct bpf_program prog;
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	int r;

	FZ_CHECK(p != NULL, "pcap_open_dead");
	FZ_CHECK(pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) == 0,
		 "'%s' compiled for the dataplane, not for libpcap: %s", expr, pcap_geterr(p));
	r = pcap_offline_filter(&prog, &h, f) != 0;
	pcap_freecode(&prog);
	pcap_close(p);
	return r;
}

static void
run(struct fe_filter *flt, const char *expr, const uint8_t *f, size_t len)
{
	int want = reference(expr, f, len);

	for (size_t cut = 0; cut < 2; cut++) {
		struct rte_mbuf *m = frame(f, len, cut ? len / 2 : 0);
		int got;

		FZ_CHECK(m != NULL, "mbuf");
		fe_filter_forget(m, flt->dynoff);
		got = fe_filter_match(flt, m);
		FZ_CHECK(got == want, "'%s' on %zu bytes (%s): %d, libpcap says %d", expr, len,
			 cut ? "two segments" : "one segment", got, want);
		FZ_CHECK(fe_filter_match(flt, m) == got, "the remembered verdict differs");
		rte_pktmbuf_free(m);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t elen = nul ? (size_t)(nul - data) : size;
	char expr[FE_MATCH_MAX], err[512] = "";
	const uint8_t *f = nul ? nul + 1 : data + size;
	size_t flen = size - elen - (nul ? 1 : 0);
	struct fe_filter *flt;

	if (elen >= sizeof(expr))
		return 0;
	memcpy(expr, data, elen);
	expr[elen] = '\0';
	flt = fe_filter_create(expr, err, sizeof(err));
	if (flt == NULL) {
		FZ_CHECK(err[0] != '\0', "'%s' refused without a message", expr);
		return 0;
	}
	if (flen > FRAME_MAX)
		flen = FRAME_MAX;
	if (!fz_skip_bpf_bugs(expr, flt->jit != NULL))
		run(flt, expr, f, flen);
	fe_filter_free(flt);
	return 0;
}
