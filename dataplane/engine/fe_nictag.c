/* SPDX-License-Identifier: BSD-3-Clause */
/* The emulated NIC's tag on a frame: its mbuf field, and a data frame's trimmed header. */
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "fe_ecn.h"
#include "fe_nictag.h"

int
fe_nic_field(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "fabemu_nic",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};

	return rte_mbuf_dynfield_register(&desc);
}

int
fe_nic_pull_field(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "fabemu_nic_pull",
		.size = sizeof(uint32_t),
		.align = __alignof__(uint32_t),
	};

	return rte_mbuf_dynfield_register(&desc);
}

struct rte_mbuf *
fe_nic_trim(struct fe_dp *dp, struct rte_mbuf *m)
{
	uint64_t tag = *fe_nic_tag(dp, m);
	uint32_t len = RTE_MIN(rte_pktmbuf_data_len(m), dp->conf.nic.trim_bytes);
	struct rte_mbuf *h;
	uint8_t *f;

	if (FE_TAG_KIND(tag) != FE_TAG_DATA && FE_TAG_KIND(tag) != FE_TAG_PROBE)
		return NULL;
	/* the NICs' pool: a trimmed header is a frame of the NICs' size, and the frames the
	 * NICs keep cannot starve it */
	h = rte_pktmbuf_alloc(dp->nic_pool);
	f = h ? (uint8_t *)rte_pktmbuf_append(h, (uint16_t)len) : NULL;
	if (f == NULL) {
		rte_pktmbuf_free(h);
		FE_CNT_ADD(dp->sw.nombuf, 1);
		return NULL;
	}
	rte_memcpy(f, rte_pktmbuf_mtod(m, const uint8_t *), len);
	/* the frame's fields: its route through the switches (fe_graph.h) above all, without
	 * which the switches past this one sent the header the wrong way; its tag, filter
	 * mark and stamp are set below */
	memcpy(h->dynfield1, m->dynfield1, sizeof(h->dynfield1));
	if (dp->conf.nic.trim_dscp != FE_NIC_DSCP_KEEP) /* remarked: the switch's trim class */
		(void)fe_dscp_set(f, len, (uint8_t)dp->conf.nic.trim_dscp);
	*fe_nic_tag(dp, h) =
		FE_TAG_KIND(tag) == FE_TAG_PROBE /* a header already: cut */
			? (tag & ~(UINT64_C(0xff) << 40)) | FE_TAG_CUT | (uint64_t)FE_TAG_CTL << 40
			: (tag & ~(UINT64_C(0xff) << 40)) | (uint64_t)FE_TAG_TRIM << 40;
	fe_filter_forget(h, dp->filter_dynoff);
	if (dp->meas != NULL)
		*fe_measure_stamp(dp->meas, h) = 0;
	return h;
}
