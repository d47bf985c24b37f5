/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-memory ports for the engine's tests: port i is a net_ring device over two rings, rx
 * (what its host sends: the test enqueues) and tx (what the engine sends it: the test
 * dequeues), started with queues of 1024 descriptors from pool.
 */
#ifndef FE_TEST_RING_PORTS_H
#define FE_TEST_RING_PORTS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "../huge_free.h"

/*
 * EAL for a test program, with no files (--no-shconf), and a pool of 4095 mbufs; and its
 * end, which removes the runtime directory EAL makes even so. Its memory, 256 MiB at
 * most (split's a_link_out_of_memory_is_named runs out of it), on hugepages where the
 * machine has them (--in-memory: taken as it is used, gone with the process), else on
 * 4 KiB pages (--no-huge): DPDK zeroes what it frees, and a test's
 * links (8 MiB of slots each, unlimited) then cost 2,048 page faults each at its end
 * (test_graph: 37 s on 4 KiB pages, 13 s on hugepages).
 */
static inline struct rte_mempool *
ring_eal_up(const char *prefix)
{
	char *huge[] = {"fe-test",  "--in-memory",    "--socket-limit", "256",
			"--no-pci", "--file-prefix",  (char *)prefix,	"-l",
			"0",	    "--no-telemetry", "--log-level",	"error"};
	char *small[] = {
		"fe-test",	  "--no-huge",	 "--no-pci", "--no-shconf", "--file-prefix",
		(char *)prefix,	  "-m",		 "256",	     "-l",	    "0",
		"--no-telemetry", "--log-level", "error"};
	struct rte_mempool *pool;

	if (fe_test_huge_free_mib() >= 512) /* the end-to-end tests' rule */
		cr_assert_geq(rte_eal_init(sizeof(huge) / sizeof(huge[0]), huge), 0);
	else
		cr_assert_geq(rte_eal_init(sizeof(small) / sizeof(small[0]), small), 0);
	pool = rte_pktmbuf_pool_create("pool", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	cr_assert_not_null(pool);
	return pool;
}

static inline void
ring_eal_down(const char *prefix)
{
	char dir[128];

	rte_eal_cleanup();
	snprintf(dir, sizeof(dir), "/var/run/dpdk/%s", prefix);
	rmdir(dir);
}

static inline uint16_t
ring_port(int i, struct rte_mempool *pool, struct rte_ring **rx, struct rte_ring **tx)
{
	struct rte_eth_conf conf = {0};
	char name[32];
	uint16_t port;
	int rc;

	snprintf(name, sizeof(name), "rx%d", i);
	*rx = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "tx%d", i);
	*tx = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	cr_assert(*rx != NULL && *tx != NULL, "rings of port %d", i);
	snprintf(name, sizeof(name), "ring%d", i);
	rc = rte_eth_from_rings(name, rx, 1, tx, 1, 0);
	cr_assert_geq(rc, 0, "rte_eth_from_rings: %d", rc);
	port = (uint16_t)rc;
	cr_assert_eq(rte_eth_dev_configure(port, 1, 1, &conf), 0);
	cr_assert_eq(rte_eth_rx_queue_setup(port, 0, 1024, 0, NULL, pool), 0);
	cr_assert_eq(rte_eth_tx_queue_setup(port, 0, 1024, 0, NULL), 0);
	cr_assert_eq(rte_eth_dev_start(port), 0);
	return port;
}

/* The frames in ring r (what the engine sent a port), freed: how many. */
static inline unsigned
ring_drain(struct rte_ring *r)
{
	void *m;
	unsigned n = 0;

	while (rte_ring_dequeue(r, &m) == 0) {
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

/* The frame f of len bytes onto ring r, as its host sends it. */
static inline void
ring_frame(struct rte_mempool *pool, struct rte_ring *r, const uint8_t *f, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *p;

	cr_assert_not_null(m);
	p = rte_pktmbuf_append(m, len);
	cr_assert_not_null(p);
	memcpy(p, f, len);
	cr_assert_eq(rte_ring_enqueue(r, m), 0);
}

/*
 * A UDP frame of len bytes (at least 52) from host `host` (MAC src, 198.18.0.host+1, its
 * port sport) to 198.18.0.X port 9 at MAC dst, its byte 51 numbered seq: its order at
 * the far end. Onto ring r, as that host sends it.
 */
static inline void
ring_udp(struct rte_mempool *pool, struct rte_ring *r, const uint8_t *dst, const uint8_t *src,
	 int host, uint16_t sport, uint16_t len, uint8_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f;

	cr_assert_not_null(m);
	f = (uint8_t *)rte_pktmbuf_append(m, len);
	cr_assert_not_null(f);
	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17; /* UDP sport -> 9 */
	f[26] = 198;
	f[27] = 18;
	f[29] = (uint8_t)(host + 1);
	f[30] = 198;
	f[31] = 18;
	f[34] = (uint8_t)(sport >> 8);
	f[35] = (uint8_t)sport;
	f[37] = 9;
	if (len > 51)
		f[51] = seq;
	cr_assert_eq(rte_ring_enqueue(r, m), 0);
}

/*
 * Two senders into one output: each took 44 to 56 % of what both got (the share tests of
 * test_engine and test_graph); else the test fails, naming the senders (a "%s %u, %s %u"
 * label: who's first and second) and the poll period.
 */
static inline void
ring_shares_even(const unsigned got[2], const char *first, const char *second, uint64_t poll_ns)
{
	for (int s = 0; s < 2; s++)
		cr_assert(got[s] * 100 >= (got[0] + got[1]) * 44 &&
				  got[s] * 100 <= (got[0] + got[1]) * 56,
			  "polled every %lu us: %s %u, %s %u", (unsigned long)poll_ns / 1000, first,
			  got[0], second, got[1]);
}

#endif
