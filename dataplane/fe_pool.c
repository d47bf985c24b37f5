/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp's mbuf pool and its ports (fe_pool.h): sized at start, checked at exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fe_kernel.h"
#include "fe_nicport.h"
#include "fe_pool.h"
#include "fe_ports.h"

int
fe_pool_room(const struct fe_opts *o, const uint16_t *ports, unsigned nports, uint16_t *room,
	     char *err, size_t len)
{
	/* --box: a frame crosses a trunk behind the fabric's header */
	uint32_t need = RTE_MAX(
		(uint32_t)o->mtu + RTE_ETHER_HDR_LEN + 4 + (o->box ? FE_TRUNK_HDR : 0), 2048U);

	for (unsigned i = 0; i < nports; i++) {
		struct rte_eth_dev_info info;
		const struct rte_devargs *da;
		unsigned long v;
		const char *fs;
		char *end;

		if (rte_eth_dev_info_get(ports[i], &info) != 0)
			continue;
		/* AF_XDP: a frame must fit one UMEM chunk (no multi-buffer in 22.11) */
		if (strcmp(info.driver_name, "net_af_xdp") == 0 && o->mtu > info.max_mtu) {
			snprintf(err, len,
				 "--mtu %" PRIu64 ": port %u (AF_XDP) carries frames of at most "
				 "%u bytes of IP; use --mtu %u or less, or net_af_packet",
				 o->mtu, ports[i], info.max_mtu, info.max_mtu);
			return -1;
		}
		if (strcmp(info.driver_name, "net_af_packet") != 0)
			continue;
		da = rte_dev_devargs(info.device);
		fs = da && da->args ? fe_kernel_devarg(da->args, "framesz") : NULL;
		if (fs == NULL)
			continue;
		errno = 0;
		v = strtoul(fs, &end, 10);
		if (errno || (*end && *end != ',') || v + RTE_PKTMBUF_HEADROOM + 63 > UINT16_MAX) {
			snprintf(err, len,
				 "port %u: framesz=%.*s: an mbuf holds at most %u bytes of frame",
				 ports[i], (int)RTE_MIN(strcspn(fs, ","), 20), fs,
				 UINT16_MAX - RTE_PKTMBUF_HEADROOM - 63);
			return -1;
		}
		need = RTE_MAX(need, (uint32_t)v);
	}
	*room = (uint16_t)(RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(need, 64));
	return 0;
}

/*
 * Mbufs for every descriptor plus what the links can hold, capped: a link with a
 * delay and no rate limit could hold any number, and the mbufs the links really hold
 * are bounded by what the hosts send in one delay. --mbufs overrides. When the pool
 * runs dry the PMD counts rx_nombuf: an edge drop, reported, never silent.
 */
#define FE_POOL_DEFAULT_MAX 65536

unsigned
fe_pool_size(const struct fe_opts *o, unsigned nports, unsigned nall, const struct fe_linkdef *up,
	     const struct fe_linkdef *down, const struct fe_linkdef *hop, unsigned nhop,
	     uint64_t hz)
{
	uint64_t links = 0, rings = 4096;

	for (unsigned i = 0; i < nports; i++) {
		struct fe_link_cfg cu, cd;

		if (fe_link_compile(&up[i].link, hz, &cu) == 0 &&
		    fe_link_compile(&down[i].link, hz, &cd) == 0)
			links += cu.nslots + cd.nslots;
	}
	/* several switches: the links between them hold frames too */
	for (unsigned i = 0; o->dp.graph && i < nhop; i++) {
		struct fe_link_cfg c;

		if (fe_link_compile(&hop[i].link, hz, &c) == 0)
			links += c.nslots;
	}
	for (unsigned i = 0; i < nall; i++) { /* every port: the hosts', the trunks (--box) */
		rings += o->rxd + o->txd + 2048 + FE_BURST; /* 2048: an AF_XDP fill ring */
		/* an emulated NIC's send queue and ready ring, and a flow's worth of kept
		 * copies (docs/nic.md); its CNPs, ACKs and NAKs have a pool of their own */
		if (i < nports && fe_nic_emulated(o->dp.nic.model))
			rings += FE_NIC_PENDING + FE_NIC_READY + o->dp.nic.window;
	}
	return (unsigned)(rings + RTE_MIN(links, FE_POOL_DEFAULT_MAX));
}

int
fe_pool_ports_start(const struct fe_opts *o, const uint16_t *ports, unsigned nports, unsigned nall,
		    struct rte_mempool *pool, const struct fe_linkdef *up,
		    const struct fe_linkdef *down, char *err, size_t len)
{
	struct fe_ports_conf c = {.rxd = (uint16_t)o->rxd,
				  .txd = (uint16_t)o->txd,
				  .keep_fc = o->keep_fc,
				  .link_wait_ns = o->link_wait_ns};
	uint64_t *rate = calloc(nports ? nports : 1, sizeof(*rate));
	int rc = 0;

	if (rate == NULL) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i < nall && rc == 0; i++) { /* the trunks too (--box) */
		c.mtu = (uint32_t)o->mtu + (i >= nports ? FE_TRUNK_HDR : 0);
		rc = fe_ports_setup(ports[i], pool, &c, err, len);
	}
	if (rc == 0) {
		fe_ports_wait_link(ports, nall, &c);
		printf("fabemu-dp: ports\n");
		fe_ports_print(ports, nall);
		for (unsigned i = 0; i < nports; i++)
			rate[i] = RTE_MAX(up[i].link.rate_bps, down[i].link.rate_bps);
		rc = fe_ports_check_speed(ports, nports, rate, err, len);
	}
	free(rate);
	return rc;
}

/*
 * Frames queued while the ports were being opened are not forwarded. An AF_PACKET
 * socket receives from every interface between its creation and its bind, so its ring
 * can hold another host's frames: forwarded, they would teach the switch a host on the
 * wrong port (a MAC "move" at start). They are counted and reported instead.
 */
void
fe_pool_discard(const uint16_t *ports, unsigned nports, uint64_t *discarded)
{
	struct rte_mbuf *pkts[FE_BURST];
	uint64_t total = 0;
	uint16_t n;

	for (unsigned i = 0; i < nports; i++) {
		struct rte_eth_dev_info info;

		/* only AF_PACKET: a pcap port's queue is the file being replayed */
		if (rte_eth_dev_info_get(ports[i], &info) != 0 ||
		    strcmp(info.driver_name, "net_af_packet") != 0)
			continue;
		while ((n = rte_eth_rx_burst(ports[i], 0, pkts, FE_BURST)) > 0) {
			rte_pktmbuf_free_bulk(pkts, n);
			discarded[i] += n;
			total += n;
		}
	}
	if (total)
		printf("fabemu-dp: discarded %" PRIu64 " frame(s) queued while the ports were "
		       "opened\n",
		       total);
}

/*
 * Stop and close every port, then check that every mbuf came back. The engine must
 * hold none (it was drained). The 22.11 AF_XDP PMD does not return the mbufs of its
 * fill ring (2048 per queue) on close; that shortfall is reported as the PMD's, and
 * is a leak only if some port is not AF_XDP or it exceeds what those rings hold.
 * Returns 0, or -1 on a leak.
 */
int
fe_pool_shutdown(const struct fe_dp *dp, const uint16_t *ports, unsigned nports,
		 struct rte_mempool *pool)
{
	unsigned avail, size = pool->size, xdp_ports = 0, missing;
	uint64_t held = fe_dp_held(dp);

	for (unsigned i = 0; i < nports; i++) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(ports[i], &info) == 0 &&
		    strcmp(info.driver_name, "net_af_xdp") == 0)
			xdp_ports++;
		fe_ports_close(ports[i]);
	}
	avail = rte_mempool_avail_count(pool);
	missing = size - avail;
	printf("mbufs: engine holds %" PRIu64 " after drain; pool %u of %u returned", held, avail,
	       size);
	if (missing && xdp_ports && missing <= xdp_ports * (2048 + 2 * (unsigned)FE_BURST)) {
		printf(", %u kept by the af_xdp PMD's fill rings after close\n", missing);
		missing = 0;
	} else {
		printf(missing ? " (LEAK: %u missing)\n" : "\n", missing);
	}
	return held || missing ? -1 : 0;
}
