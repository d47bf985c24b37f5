/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --box (fe_split.h): the split of a topology across boxes, and the probes that measure
 * each trunk's latency at start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fe_split.h"
#include "fe_time.h"

static uint32_t
fnv(uint32_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return (h ^ 0xff) * 16777619u;
}

/* FNV-1a of n bytes at p, after h. */
static uint32_t
fnv_mem(uint32_t h, const void *p, size_t n)
{
	for (const uint8_t *b = p; n--; b++)
		h = (h ^ *b) * 16777619u;
	return h;
}

int
fe_split_setup(struct fe_split *split, struct fe_topo *topo, const struct fe_opts *o,
	       const uint16_t *ports, unsigned *nports, char *err, size_t len)
{
	char e[400], boxes[256] = "", q[FE_TOPO_NAME + 2];
	unsigned any = 0;

	if (o->topology == NULL) {
		snprintf(err, len, "splits a topology: give --topology");
		return -EINVAL;
	}
	if (fe_topo_load(o->topology, topo, e, sizeof(e)) < 0) {
		snprintf(err, len, "--topology %s: %s", o->topology, e);
		return -EINVAL;
	}
	split->hash = 2166136261u;
	for (unsigned s = 0; s < topo->nsw; s++) {
		split->here[s] = strcmp(topo->sw[s].box, o->box) == 0;
		any += split->here[s];
		split->hash = fnv(fnv(split->hash, topo->sw[s].name), topo->sw[s].box);
		/* each box once, quoted ("" is no box: a switch of no split) */
		snprintf(q, sizeof(q), "'%s'", topo->sw[s].box);
		if (topo->sw[s].box[0] && !strstr(boxes, q) && strlen(boxes) + strlen(q) < 200)
			snprintf(boxes + strlen(boxes), sizeof(boxes) - strlen(boxes), "%s%s",
				 boxes[0] ? ", " : "", q);
	}
	if (!any && boxes[0] == '\0') {
		snprintf(err, len,
			 "topology %s names no boxes: --box runs one box of a fabric split across "
			 "boxes (a switch's box: in the topology, docs/scale-out.md)",
			 o->topology);
		return -EINVAL;
	}
	if (!any) {
		snprintf(err, len, "no switch of topology %s is on box '%s' (its boxes: %s)",
			 o->topology, o->box, boxes);
		return -EINVAL;
	}
	for (unsigned h = 0; h < topo->nhosts; h++)
		for (unsigned p = 0; p < topo->host[h].nports; p++)
			if (split->here[topo->host[h].sw[p]])
				split->gport[split->nlocal++] =
					(uint8_t)(topo->host[h].first_port + p);
	for (unsigned l = 0; l < topo->nlinks; l++) {
		split->hash = fnv(split->hash, topo->link[l].name);
		split->trunk[l] = UINT16_MAX;
		if (split->here[topo->link[l].a] == split->here[topo->link[l].b])
			continue;
		if (split->ntrunks == FE_GRAPH_TRUNKS) {
			snprintf(err, len, "more than %d links to other boxes", FE_GRAPH_TRUNKS);
			return -EINVAL;
		}
		split->link[split->ntrunks++] = l;
	}
	if (*nports != split->nlocal + split->ntrunks) {
		int n = snprintf(err, len,
				 "box '%s' has %u host ports and %u links to other boxes: give %u "
				 "ports (%u given), the hosts' first, then one a link:",
				 o->box, split->nlocal, split->ntrunks,
				 split->nlocal + split->ntrunks, *nports);

		for (unsigned t = 0; t < split->ntrunks && n > 0 && (size_t)n < len; t++)
			n += snprintf(err + n, len - (size_t)n, " %s",
				      topo->link[split->link[t]].name);
		return -EINVAL;
	}
	for (unsigned t = 0; t < split->ntrunks; t++)
		split->trunk[split->link[t]] = ports[split->nlocal + t];
	*nports = split->nlocal;
	return 0;
}

/* A probe (FE_TRUNK_PROBE) of trunk t onto its port, saying whether this box has its
 * answers (done); 0, or -1 without an mbuf. */
static int
probe_send(const struct fe_split *split, struct rte_mempool *pool, unsigned t, uint64_t tsc,
	   int done)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_addr mac;
	uint16_t port = split->trunk[split->link[t]];
	uint8_t *f;

	if (m == NULL || (f = (uint8_t *)rte_pktmbuf_append(m, 60)) == NULL) {
		rte_pktmbuf_free(m);
		return -1;
	}
	memset(f, 0, 60);
	memset(&mac, 0, sizeof(mac));
	rte_eth_macaddr_get(port, &mac);
	fe_trunk_hdr(f, mac.addr_bytes, FE_TRUNK_PROBE, split->link[t]);
	memcpy(f + 18, &tsc, 8);
	memcpy(f + 26, &split->hash, 4);
	f[30] = (uint8_t)done;
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
	return 0;
}

/*
 * Each trunk's one-way latency, half the shortest of FE_PROBES round trips to the other
 * box. Clocks are not shared: exact for a link as fast both ways. Both boxes poll without
 * sleeping and answer at once, and stay until each has its answers (its probes say so),
 * so that a round trip is the link's and not the time an engine took to wake: one that
 * answers from a running engine (the other box came first and left) is not waited for
 * longer than a second. The probes go a millisecond apart, for 0.2 s: 16 of them, over
 * 16 ms, once all came back 3 ms late on a loaded machine (the hypervisor taking the
 * cores, the hosts' frames of an earlier run arriving), and the box refused a link of
 * 400 us as shorter than that. 0, or -ETIMEDOUT/-EINVAL with a message.
 */
#define FE_PROBES 200
static int
measure_trunks(struct fe_split *split, const struct fe_topo *topo, const struct fe_opts *o,
	       struct rte_mempool *pool, char *err, size_t len)
{
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t best[FE_GRAPH_TRUNKS], deadline = rte_rdtsc() + 30 * hz, next = 0, done_at = 0;
	unsigned got[FE_GRAPH_TRUNKS] = {0}, left = split->ntrunks, dropped = 0, peers = 0;
	uint8_t peer_done[FE_GRAPH_TRUNKS] = {0};

	for (unsigned t = 0; t < split->ntrunks; t++)
		best[t] = UINT64_MAX;
	while (left > 0 || (peers < split->ntrunks && rte_rdtsc() - done_at < hz)) {
		uint64_t now = rte_rdtsc();

		if (now > deadline) {
			for (unsigned t = 0; t < split->ntrunks; t++)
				if (got[t] < FE_PROBES) {
					snprintf(err, len,
						 "no answer on port %u (link %s) in 30 s: run the "
						 "other box's fabemu-dp with --topology %s",
						 split->trunk[split->link[t]],
						 topo->link[split->link[t]].name, o->topology);
					break;
				}
			return -ETIMEDOUT;
		}
		if (now >= next) { /* a probe a millisecond, until the other box is done too */
			for (unsigned t = 0; t < split->ntrunks; t++)
				probe_send(split, pool, t, rte_rdtsc(), left == 0);
			next = now + hz / 1000;
		}
		for (unsigned t = 0; t < split->ntrunks; t++) {
			uint16_t port = split->trunk[split->link[t]];
			struct rte_mbuf *pkts[32];
			unsigned n = rte_eth_rx_burst(port, 0, pkts, 32);

			for (unsigned i = 0; i < n; i++) {
				uint8_t *f = rte_pktmbuf_mtod(pkts[i], uint8_t *);
				uint32_t h;
				uint64_t tsc;

				if (rte_pktmbuf_data_len(pkts[i]) < 31 || f[12] != 0x88 ||
				    f[13] != 0xb5 || f[14] != FE_TRUNK_VERSION ||
				    (f[15] != FE_TRUNK_PROBE && f[15] != FE_TRUNK_ECHO)) {
					dropped++; /* the fabric's, before it starts here */
					rte_pktmbuf_free(pkts[i]);
					continue;
				}
				memcpy(&h, f + 26, 4);
				if (h != split->hash) {
					/* told to the other box too, which may have taken this
					 * box's earlier probes for frames of before its start */
					probe_send(split, pool, t, rte_rdtsc(), 0);
					snprintf(err, len,
						 "port %u (link %s): the other box runs another "
						 "topology, splits it otherwise, or runs its "
						 "regime, "
						 "credits or NICs otherwise (%08x, here %08x)",
						 port, topo->link[split->link[t]].name, h,
						 split->hash);
					rte_pktmbuf_free(pkts[i]);
					return -EINVAL;
				}
				if ((unsigned)(f[16] << 8 | f[17]) != split->link[t]) {
					unsigned l = (unsigned)(f[16] << 8 | f[17]);

					snprintf(err, len,
						 "port %u should carry link %s, but the other box "
						 "sends link %s on it: wire the trunks in link "
						 "order",
						 port, topo->link[split->link[t]].name,
						 l < topo->nlinks ? topo->link[l].name : "?");
					rte_pktmbuf_free(pkts[i]);
					return -EINVAL;
				}
				if (f[15] == FE_TRUNK_PROBE) { /* answered as it came */
					struct rte_ether_addr mac = {{0}};

					if (f[30] && !peer_done[t]) {
						peer_done[t] = 1;
						peers++;
					}
					f[15] = FE_TRUNK_ECHO;
					/* from this port: a VXLAN interface drops a frame
					 * that comes back with its own source address */
					rte_eth_macaddr_get(port, &mac);
					memcpy(f + 6, mac.addr_bytes, 6);
					if (rte_eth_tx_burst(port, 0, &pkts[i], 1) != 1)
						rte_pktmbuf_free(pkts[i]);
					continue;
				}
				memcpy(&tsc, f + 18, 8);
				if (got[t] < FE_PROBES) {
					best[t] = RTE_MIN(best[t], rte_rdtsc() - tsc);
					if (++got[t] == FE_PROBES && --left == 0)
						done_at = rte_rdtsc();
				}
				rte_pktmbuf_free(pkts[i]);
			}
		}
	}
	for (unsigned t = 0; t < split->ntrunks; t++) {
		split->lat_ns[split->link[t]] = fe_ticks_to_ns(best[t] / 2, hz);
		printf("  link %s on port %u: round trip %.1f us at best of %d, %.1f us one way "
		       "subtracted from its delay\n",
		       topo->link[split->link[t]].name, split->trunk[split->link[t]],
		       (double)fe_ticks_to_ns(best[t], hz) / 1e3, FE_PROBES,
		       (double)split->lat_ns[split->link[t]] / 1e3);
	}
	if (dropped)
		printf("  %u frames of the fabric came before it started here: dropped\n", dropped);
	return 0;
}

void
fe_split_hash_fabric(struct fe_split *split, enum fe_regime regime, uint8_t lanes,
		     enum fe_lane_map lane_map, const struct fe_credit_params *c,
		     const struct fe_nic_params *n)
{
	char r[80];

	/* pauses and credits cross the trunks per lane, credits in the receiver's blocks
	 * (lossy boxes hash as before) */
	if (regime != FE_REGIME_LOSSY) {
		snprintf(r, sizeof(r), "%s %u %s %" PRIu64 " %u", fe_regime_name(regime), lanes,
			 fe_lane_map_name(lane_map),
			 regime == FE_REGIME_CREDIT ? fe_credit_total(c->buffer, c->unit) : 0,
			 regime == FE_REGIME_CREDIT ? fe_credit_unit_of(c->unit).bytes : 0);
		split->hash = fnv(split->hash, r);
	}
	/* every NIC setting: the struct has no padding (fe_update.c compares it whole) */
	split->hash = fnv_mem(split->hash, n, sizeof(*n));
}

int
fe_split_measure(struct fe_split *split, const struct fe_topo *topo, const struct fe_opts *o,
		 struct rte_mempool *pool, char *err, size_t len)
{
	printf("fabemu-dp: box %s, measuring its %u links to other boxes:", o->box, split->ntrunks);
	for (unsigned t = 0; t < split->ntrunks; t++) {
		char name[RTE_ETH_NAME_MAX_LEN] = "?";

		rte_eth_dev_get_name_by_port(split->trunk[split->link[t]], name);
		printf(" %s on port %u (%s)", topo->link[split->link[t]].name,
		       split->trunk[split->link[t]], name);
	}
	printf("\n");
	fflush(stdout);
	return measure_trunks(split, topo, o, pool, err, len);
}
