/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "fe_capfile.h"
#include "fe_ctlif.h"
#include "fe_graph.h"
#include "fe_linkspec.h"
#include "fe_time.h"

#define CAP_RING   8192
#define CAP_COPIES (CAP_RING - 1 + 512)

/*
 * pcapng (draft-ietf-opsawg-pcapng): a section header, one interface (Ethernet,
 * nanosecond timestamps), one enhanced packet block a packet, and at the end an
 * interface statistics block with the copies the capture itself lost. libpcap 1.10
 * reads pcapng but writes only pcap, which has no place for a comment, so the few
 * block types used here are written directly.
 */
enum {
	PCAPNG_SHB = 0x0A0D0D0A,
	PCAPNG_IDB = 1,
	PCAPNG_ISB = 5,
	PCAPNG_EPB = 6,
	OPT_END = 0,
	OPT_COMMENT = 1,
	OPT_IF_NAME = 2,
	OPT_IF_TSRESOL = 9,
	OPT_EPB_FLAGS = 2,
	OPT_ISB_IFDROP = 5,
	LINKTYPE_ETHERNET = 1,
};

/* The largest block: a 64 KiB packet with its flags and a comment. */
#define CAP_BLOCK_MAX (28 + 65536 + 8 + 68 + 8)
/* Blocks are gathered here and written together, each whole. */
#define CAP_BUF (1U << 20)
/* Copies written in one fe_capture_drain() at most: the control thread serves clients
 * between drains, whatever rate the lcore captures at (the ring counts what it loses). */
#define CAP_DRAIN_MAX 4096

struct blk {
	size_t n;
	uint64_t pkts, drops; /* packet blocks in b, and those of dropped packets */
	uint8_t b[CAP_BUF];
};

struct fe_capture {
	struct fe_tap tap;
	int fd;
	char path[256], desc[480], link[80];
	uint64_t tsc0, wall0, hz;
	uint64_t written, dropped_written;
	uint64_t unwritten; /* copies taken off the ring after writing failed */
	off_t good;	    /* the file's length after the last block written whole */
	int werr;	    /* errno of the first failed write: the file stops at `good` */
	int drops;
	struct blk blk;
};

static const char *const drop_names[] = {"tail",  "wire", "pool",     "random", "burst",
					 "exact", "aqm",  "headroom", "hoq",	"watchdog",
					 "llr",	  "trim", "header"};
_Static_assert(sizeof(drop_names) / sizeof(drop_names[0]) == FE_LINK_DROP__MAX,
	       "name every drop cause in drop_names");

static void
put(struct blk *b, const void *p, size_t n)
{
	static const uint8_t zero[4];

	if (b->n + n + 3 > sizeof(b->b))
		return; /* cannot happen: callers size their blocks */
	memcpy(b->b + b->n, p, n);
	b->n += n;
	if (n % 4) {
		memcpy(b->b + b->n, zero, 4 - n % 4);
		b->n += 4 - n % 4;
	}
}

static void
put32(struct blk *b, uint32_t v)
{
	put(b, &v, 4);
}

static void
put16(struct blk *b, uint16_t x, uint16_t y)
{
	uint16_t v[2] = {x, y}; /* the host's byte order, as the section header says */

	put(b, v, 4);
}

static void
opt(struct blk *b, uint16_t code, const void *v, uint16_t len)
{
	put16(b, code, len);
	put(b, v, len);
}

/* opt_endofopt: a code and a length of 0, no value */
static void
opt_end(struct blk *b)
{
	put32(b, OPT_END);
}

static uint32_t
pad4(size_t n)
{
	return (uint32_t)((n + 3) & ~(size_t)3);
}

/*
 * Write the gathered blocks whole, or none of them: after a failed or short write the
 * file is cut back to where they began (the end of a block), so that it stays readable
 * and holds exactly the packets counted as written; nothing more is written after.
 */
static int
flush_blk(struct fe_capture *c)
{
	size_t off = 0;

	while (!c->werr && off < c->blk.n) {
		ssize_t n = write(c->fd, c->blk.b + off, c->blk.n - off);

		if (n > 0)
			off += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else
			c->werr = n < 0 ? errno : EIO;
	}
	if (c->werr) {
		if (ftruncate(c->fd, c->good) < 0) { /* a FIFO or device: nothing to cut */
		}
		c->unwritten += c->blk.pkts;
	} else {
		c->written += c->blk.pkts;
		c->dropped_written += c->blk.drops;
	}
	c->blk.n = 0;
	c->blk.pkts = c->blk.drops = 0;
	if (c->werr)
		return -1;
	c->good += (off_t)off;
	return 0;
}

static int
write_headers(struct fe_capture *c, uint32_t snaplen)
{
	struct blk *b = &c->blk;
	uint32_t hlen = 28, ilen;
	int64_t section = -1;
	uint8_t tsresol = 9; /* 10^-9 s */
	char name[100];

	put32(b, PCAPNG_SHB);
	put32(b, hlen);
	put32(b, 0x1A2B3C4D);
	put16(b, 1, 0); /* version 1.0 */
	put(b, &section, 8);
	put32(b, hlen);
	snprintf(name, sizeof(name), "fabemu link %s", c->link);
	ilen = 20 + 4 + pad4(strlen(name)) + 4 + 4 + 4;
	put32(b, PCAPNG_IDB);
	put32(b, ilen);
	put16(b, LINKTYPE_ETHERNET, 0);
	put32(b, snaplen);
	opt(b, OPT_IF_NAME, name, (uint16_t)strlen(name));
	opt(b, OPT_IF_TSRESOL, &tsresol, 1);
	opt_end(b);
	put32(b, ilen);
	return flush_blk(c);
}

static uint64_t
wall_ns(const struct fe_capture *c, uint64_t tsc)
{
	return tsc >= c->tsc0 ? c->wall0 + fe_ticks_to_ns(tsc - c->tsc0, c->hz)
			      : c->wall0 - fe_ticks_to_ns(c->tsc0 - tsc, c->hz);
}

static void
write_packet(struct fe_capture *c, struct rte_mbuf *m)
{
	const struct fe_tap_meta *meta = rte_mbuf_to_priv(m);
	uint32_t caplen = RTE_MIN(rte_pktmbuf_pkt_len(m), 65535u), blen, flags = 1;
	uint64_t ts = wall_ns(c, meta->tsc);
	struct blk *b = &c->blk;
	uint8_t buf[65535];
	const void *data = rte_pktmbuf_read(m, 0, caplen, buf);
	char comment[64] = "";

	if (c->werr || data == NULL) {
		c->unwritten++;
		return;
	}
	if (b->n + CAP_BLOCK_MAX > sizeof(b->b) && flush_blk(c) < 0) {
		c->unwritten++;
		return;
	}
	if (meta->fate != FE_TAP_DELIVERED)
		snprintf(comment, sizeof(comment), "fabemu-drop: %s",
			 meta->fate < RTE_DIM(drop_names) ? drop_names[meta->fate] : "?");
	blen = 28 + pad4(caplen) + 4 + 4 + (comment[0] ? 4 + pad4(strlen(comment)) : 0) + 4 + 4;
	put32(b, PCAPNG_EPB);
	put32(b, blen);
	put32(b, 0);
	put32(b, (uint32_t)(ts >> 32));
	put32(b, (uint32_t)ts);
	put32(b, caplen);
	put32(b, meta->orig_len);
	put(b, data, caplen);
	opt(b, OPT_EPB_FLAGS, &flags, 4);
	if (comment[0])
		opt(b, OPT_COMMENT, comment, (uint16_t)strlen(comment));
	opt_end(b);
	put32(b, blen);
	b->pkts++;
	b->drops += meta->fate != FE_TAP_DELIVERED;
}

static void
drain(struct fe_capture *c, unsigned max)
{
	struct rte_mbuf *m[64];
	unsigned n, done = 0;

	while (done < max && (n = rte_ring_sc_dequeue_burst(c->tap.ring, (void **)m,
							    RTE_MIN(64u, max - done), NULL)) > 0) {
		for (unsigned i = 0; i < n; i++)
			write_packet(c, m[i]);
		rte_pktmbuf_free_bulk(m, n);
		done += n;
	}
	if (c->blk.n)
		flush_blk(c);
}

void
fe_capture_drain(struct fe_capture *c)
{
	drain(c, CAP_DRAIN_MAX);
}

static void
free_capture(struct fe_capture *c)
{
	if (c->fd >= 0)
		close(c->fd);
	rte_ring_free(c->tap.ring);
	rte_mempool_free(c->tap.pool);
	free(c);
}

struct fe_capture *
fe_capture_start(struct fe_dp *dp, const char *link, int fd, const char *path, int drops,
		 uint32_t snaplen, char *err, size_t errlen)
{
	struct fe_capture *c = calloc(1, sizeof(*c));
	struct timespec ts;
	long port;
	int dirs, hop;

	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return NULL;
	}
	c->fd = fd;
	/* several switches: a link between them, one direction ("leaf1>spine2") */
	if ((hop = fe_graph_link_by_name(dp->graph, link)) >= 0) {
		c->tap.link = fe_dp_link_id(dp, FE_LINK_HOP, (unsigned)hop);
		goto found;
	}
	if (fe_linkspec_select(link, dp->nports, &port, &dirs, err, errlen) < 0 || port < 0 ||
	    dirs == (FE_SEL_UP | FE_SEL_DOWN)) {
		if (port < 0 || dirs == (FE_SEL_UP | FE_SEL_DOWN))
			snprintf(err, errlen, "capture: link '%s': give one link, N.up or N.down%s",
				 link, dp->topology ? ", or A>B between switches" : "");
		goto fail;
	}
	c->tap.link =
		fe_dp_link_id(dp, dirs == FE_SEL_DOWN ? FE_LINK_DOWN : FE_LINK_UP, (unsigned)port);
found:
	if (snaplen == 0 || snaplen > 65535)
		snaplen = 65535;
	snprintf(c->link, sizeof(c->link), "%s", link);
	c->tap.snaplen = snaplen;
	c->tap.drops = (uint8_t)(drops != 0);
	c->drops = drops;
	c->hz = dp->hz;
	c->tap.ring =
		rte_ring_create("fe_cap", CAP_RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	c->tap.pool = rte_pktmbuf_pool_create("fe_cap", CAP_COPIES, 0,
					      RTE_ALIGN(sizeof(struct fe_tap_meta), 8),
					      RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (c->tap.ring == NULL || c->tap.pool == NULL) {
		snprintf(err, errlen, "capture: no memory for its ring and copies: %s",
			 rte_strerror(rte_errno));
		goto fail;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	if (write_headers(c, snaplen) < 0) {
		snprintf(err, errlen, "capture: %s: %s", path, strerror(c->werr));
		goto fail;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	c->tsc0 = rte_rdtsc();
	c->wall0 = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	fe_ctlif_tap(dp, &c->tap);
	return c;
fail:
	free_capture(c);
	return NULL;
}

static void
write_stats(struct fe_capture *c)
{
	uint64_t ts = wall_ns(c, rte_rdtsc()), lost = FE_CNT_GET(c->tap.lost);
	uint32_t len = 24 + 12 + 4;
	struct blk *b = &c->blk;

	if (c->werr)
		return;
	put32(b, PCAPNG_ISB);
	put32(b, len);
	put32(b, 0);
	put32(b, (uint32_t)(ts >> 32));
	put32(b, (uint32_t)ts);
	opt(b, OPT_ISB_IFDROP, &lost, 8);
	opt_end(b);
	put32(b, len);
	flush_blk(c);
}

int
fe_capture_stop(struct fe_dp *dp, struct fe_capture *c, char *msg, size_t len)
{
	int quiet;

	if (c == NULL)
		return 0;
	/* after a grace period the lcore holds no pointer to the tap: drain and free */
	quiet = fe_ctlif_untap(dp, 1000000000ULL) == 0;
	drain(c, UINT32_MAX); /* the ring no longer fills: all of it */
	write_stats(c);
	if (!quiet) { /* an lcore stuck for a second may still copy into it: keep it */
		if (msg)
			snprintf(msg, len,
				 "capture of %s stopped, but the lcore did not pass a "
				 "quiescent state within 1 s: its ring and pool are kept\n",
				 c->link);
		return c->werr ? -1 : 0;
	}
	if (close(c->fd) < 0 && !c->werr)
		c->werr = errno;
	c->fd = -1;
	if (c->werr && msg)
		snprintf(msg, len,
			 "capture of %s stopped: PARTIAL: writing %s failed (%s); it holds the "
			 "first %" PRIu64 " packets whole (%" PRIu64
			 " dropped by the emulator, marked) and ends there; %" PRIu64
			 " packets were not written, %" PRIu64 " lost by the capture (ring full)\n",
			 c->link, c->path, strerror(c->werr), c->written, c->dropped_written,
			 c->unwritten, FE_CNT_GET(c->tap.lost));
	else if (msg)
		snprintf(msg, len,
			 "capture of %s stopped: %" PRIu64 " packets written to %s (%" PRIu64
			 " dropped by the emulator, marked), %" PRIu64
			 " lost by the capture (ring full)\n",
			 c->link, c->written, c->path, c->dropped_written, FE_CNT_GET(c->tap.lost));
	quiet = c->werr ? -1 : 0;
	free_capture(c);
	return quiet;
}

const char *
fe_capture_describe(struct fe_capture *c)
{
	if (c->werr)
		snprintf(c->desc, sizeof(c->desc),
			 "%s to %s%s, PARTIAL: writing failed (%s) after %" PRIu64
			 " packets, %" PRIu64 " not written since",
			 c->link, c->path, c->drops ? " (drops too)" : "", strerror(c->werr),
			 c->written, c->unwritten);
	else
		snprintf(c->desc, sizeof(c->desc), "%s to %s%s, %" PRIu64 " packets so far",
			 c->link, c->path, c->drops ? " (drops too)" : "", c->written);
	return c->desc;
}
