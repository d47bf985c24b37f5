/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>

#include "fe_kernel.h"

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

#define FE_KSOCKS 4 /* AF_PACKET sockets a port may have (one a queue pair) */

/* The AF_PACKET PMD's defaults (drivers/net/af_packet, DPDK 22.11). */
#define AFP_FRAMESZ  2048
#define AFP_FRAMECNT 512
/* The AF_XDP PMD fills its fill ring with this many buffers (ETH_AF_XDP_DFLT_NUM_DESCS). */
#define AFX_FILL 2048

struct netdev_ctr {
	uint64_t rx_packets, rx_dropped, tx_packets, tx_dropped;
};

struct kport {
	enum fe_kernel_kind kind;
	char iface[IF_NAMESIZE];
	uint32_t ring_frames;
	const char *untimed;
	int fds[FE_KSOCKS]; /* AF_PACKET sockets bound to the interface (the PMD's) */
	unsigned nfds;
	struct netdev_ctr base;		   /* at the last reset */
	uint64_t sock_packets, sock_drops; /* accumulated since the last reset */
	uint64_t discarded;
	const char *args; /* AF_PACKET: the port's devargs (framecnt=, framesz=, ...) */
	uint8_t unseen;	  /* said once: its interface's counters were not found */
};

struct fe_kernel {
	struct fe_dp *dp;
	pthread_mutex_t lock;
	struct kport *ports;
	int xsk_fds[64];
	unsigned nxsk;
	struct fe_kernel_xsk xsk_base;
	struct fe_sched sched_base; /* threads 0: the loop had not started at the reset */
};

/* The loop's threads and their cores now (under the lock). */
static void
sched_now(const struct fe_kernel *k, struct fe_sched *s)
{
	int tids[2] = {__atomic_load_n(&k->dp->lcore_tid[0], __ATOMIC_ACQUIRE),
		       __atomic_load_n(&k->dp->lcore_tid[1], __ATOMIC_ACQUIRE)};

	fe_sched_read(tids, 2, s);
}

/*
 * A reset before the loop started counts its threads from their start and their cores
 * from the first look after it (under the lock).
 */
static void
sched_base(struct fe_kernel *k)
{
	if (k->sched_base.threads != 0)
		return;
	sched_now(k, &k->sched_base);
	k->sched_base.preempted = k->sched_base.yielded = k->sched_base.runq_wait_ns = 0;
	k->sched_base.run_ns = 0;
}

const char *
fe_kernel_kind_name(enum fe_kernel_kind kind)
{
	return kind == FE_KPORT_AF_PACKET ? "af_packet"
	       : kind == FE_KPORT_AF_XDP  ? "af_xdp"
					  : "none";
}

/*
 * Interface iface's counters, as /proc/self/net/dev has them: the network namespace this
 * process runs in. /sys/class/net is the namespace sysfs was mounted in, which differs
 * under `nsenter -n` (a campaign run in a container's namespace: every counter read 0
 * there, and the edge never looked at rest). Its rx drop column is rx_dropped plus
 * rx_missed_errors (none on veth). 0, or -1 (all 0) if iface is not there.
 */
static int
netdev_read(const char *iface, struct netdev_ctr *c)
{
	size_t n = strlen(iface);
	char line[512];
	FILE *f;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	f = fopen("/proc/self/net/dev", "r");
	if (f == NULL)
		return -1;
	while (rc < 0 && fgets(line, sizeof(line), f) != NULL) {
		unsigned long long v[12];
		const char *p = line + strspn(line, " ");

		if (strncmp(p, iface, n) != 0 || p[n] != ':' ||
		    sscanf(p + n + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
			   &v[10], &v[11]) != 12)
			continue;
		c->rx_packets = v[1]; /* bytes, packets, errs, drop, fifo, frame, compressed, */
		c->rx_dropped = v[3]; /* multicast; then tx: bytes, packets, errs, drop, ... */
		c->tx_packets = v[9];
		c->tx_dropped = v[11];
		rc = 0;
	}
	fclose(f);
	return rc;
}

const char *
fe_kernel_devarg(const char *args, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = args; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, key, klen) == 0 && p[klen] == '=')
			return p + klen + 1;
	return NULL;
}

/* "key=value" of a devargs string, as an unsigned; def if absent. */
static uint32_t
devarg_u32(const char *args, const char *key, uint32_t def)
{
	const char *v = fe_kernel_devarg(args, key);

	return v ? (uint32_t)strtoul(v, NULL, 10) : def;
}

/*
 * DPDK 22.11's AF_PACKET PMD counts every frame of a TX burst as sent when sendto()
 * fails with ENOBUFS, and leaves the rest in its TX ring until the next burst to that
 * port: with the socket's send buffer full (the frames the receiving host has not read
 * yet are charged to it), the last frames of a TCP window waited there until the sender's
 * retransmission timer fired, 200 ms and more. A send buffer the size of the whole ring,
 * twice over, is never full.
 */
static void
afp_sndbuf(int fd, uint32_t frames, uint32_t framesz)
{
	uint64_t want = 2ULL * frames * framesz;
	int sb = want > INT32_MAX / 2 ? INT32_MAX / 2 : (int)want; /* the kernel doubles it */

	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sb, sizeof(sb));
}

/* The sockets of this process: AF_PACKET ones bound to a port's interface, XDP ones. */
static void
find_sockets(struct fe_kernel *k, const int *ifindex)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		struct sockaddr_ll sll;
		struct xdp_statistics xs;
		socklen_t len = sizeof(sll), xlen = sizeof(xs);
		struct stat st;

		if (e->d_name[0] == '.' || fd == dirfd(d) || fstat(fd, &st) < 0 ||
		    !S_ISSOCK(st.st_mode))
			continue;
		if (getsockname(fd, (struct sockaddr *)&sll, &len) == 0 &&
		    sll.sll_family == AF_PACKET) {
			for (unsigned i = 0; i < k->dp->nports; i++) {
				struct kport *p = &k->ports[i];

				if (p->kind == FE_KPORT_AF_PACKET &&
				    ifindex[i] == sll.sll_ifindex && p->nfds < FE_KSOCKS)
					p->fds[p->nfds++] = fd;
			}
			continue;
		}
		if (getsockopt(fd, SOL_XDP, XDP_STATISTICS, &xs, &xlen) == 0 &&
		    k->nxsk < RTE_DIM(k->xsk_fds))
			k->xsk_fds[k->nxsk++] = fd;
	}
	if (d)
		closedir(d);
}

/* Where the socket fd's memory is mapped (its TPACKET rings), and how long; NULL: not. */
static uint8_t *
socket_map(int fd, size_t *len)
{
	char line[512], want[64];
	struct stat st;
	uint8_t *at = NULL;
	FILE *f;

	if (fstat(fd, &st) < 0 || (f = fopen("/proc/self/maps", "r")) == NULL)
		return NULL;
	snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)st.st_ino);
	while (at == NULL && fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;

		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, want) == NULL || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		at = (uint8_t *)lo;
		*len = hi - lo;
	}
	fclose(f);
	return at;
}

/*
 * The AF_PACKET port's receive ring (fe_edge.h): the first half of its socket's mapping
 * (receive ring, then transmit ring, each framecnt frames of framesz bytes).
 */
static int
find_ring(struct kport *kp, const char *args, uint32_t fsz, struct fe_edge_ring *ring)
{
	uint32_t frames = kp->ring_frames;
	uint32_t bsz = devarg_u32(args, "blocksz", (uint32_t)getpagesize());
	size_t len = 0;
	uint8_t *at;

	if (kp->nfds != 1) {
		kp->untimed = kp->nfds ? "several queues" : "its socket was not found";
		return -1;
	}
	at = socket_map(kp->fds[0], &len);
	/* the PMD numbers the frames framesz apart: true when blocks hold whole frames */
	if (at == NULL || fsz == 0 || bsz % fsz != 0 || len != 2 * (size_t)frames * fsz) {
		kp->untimed = "its ring is not laid out as expected";
		return -1;
	}
	kp->untimed = "the PMD returned frames other than the ones looked at: timing stopped";
	*ring = (struct fe_edge_ring){.base = at,
				      .frame_size = fsz,
				      .frames = frames,
				      .next = (uint32_t)(kp->discarded % frames)};
	return 0;
}

static void
xsk_read(const struct fe_kernel *k, struct fe_kernel_xsk *x)
{
	memset(x, 0, sizeof(*x));
	for (unsigned i = 0; i < k->nxsk; i++) {
		struct xdp_statistics s;
		socklen_t len = sizeof(s);

		if (getsockopt(k->xsk_fds[i], SOL_XDP, XDP_STATISTICS, &s, &len) != 0)
			continue;
		x->sockets++;
		x->rx_dropped += s.rx_dropped;
		x->rx_invalid += s.rx_invalid_descs;
		x->tx_invalid += s.tx_invalid_descs;
		x->rx_ring_full += s.rx_ring_full;
		x->rx_fill_ring_empty_descs += s.rx_fill_ring_empty_descs;
		x->tx_ring_empty_descs += s.tx_ring_empty_descs;
	}
}

/*
 * The lcore reads CLOCK_REALTIME once a timed RX burst (the kernel's stamps are in it):
 * a vDSO read without a system call, when the clocksource is one the vDSO can read.
 */
static int
clock_readable(void)
{
	char cs[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (f) {
		if (fgets(cs, sizeof(cs), f) == NULL)
			cs[0] = '\0';
		fclose(f);
	}
	cs[strcspn(cs, "\n")] = '\0';
	return !strcmp(cs, "tsc") || !strcmp(cs, "kvm-clock") ||
	       !strcmp(cs, "hyperv_clocksource_tsc_page");
}

/* Accumulate the AF_PACKET sockets' statistics (reading them resets them). */
static void
sock_poll(struct kport *kp)
{
	for (unsigned s = 0; s < kp->nfds; s++) {
		struct tpacket_stats ts;
		socklen_t len = sizeof(ts);

		if (getsockopt(kp->fds[s], SOL_PACKET, PACKET_STATISTICS, &ts, &len) == 0) {
			kp->sock_packets += ts.tp_packets;
			kp->sock_drops += ts.tp_drops;
		}
	}
}

static void
port_open(struct fe_kernel *k, unsigned i, int *ifindex, uint64_t discarded, uint32_t rxd)
{
	struct fe_port *p = &k->dp->ports[i];
	struct kport *kp = &k->ports[i];
	struct rte_eth_dev_info info;

	kp->untimed = "not a kernel interface";
	kp->discarded = discarded;
	if (rte_eth_dev_info_get(p->port_id, &info) != 0 || info.if_index == 0 ||
	    if_indextoname(info.if_index, kp->iface) == NULL)
		return;
	ifindex[i] = (int)info.if_index;
	if (strcmp(info.driver_name, "net_af_packet") == 0) {
		const struct rte_devargs *da = rte_dev_devargs(info.device);

		kp->kind = FE_KPORT_AF_PACKET;
		kp->args = da && da->args ? da->args : "";
		kp->ring_frames = devarg_u32(kp->args, "framecnt", AFP_FRAMECNT);
	} else if (strcmp(info.driver_name, "net_af_xdp") == 0) {
		/* the socket's receive ring is the queue's descriptors; the kernel also needs
		 * a buffer from the fill ring for each frame */
		kp->kind = FE_KPORT_AF_XDP;
		kp->untimed = "the AF_XDP path carries no receive time";
		kp->ring_frames = RTE_MIN(rxd, AFX_FILL);
	}
}

struct fe_kernel *
fe_kernel_open(struct fe_dp *dp, const uint64_t *discarded, uint32_t rxd)
{
	struct fe_kernel *k = calloc(1, sizeof(*k));
	int *ifindex = calloc(dp->nports, sizeof(*ifindex));
	int readable;

	if (k == NULL || ifindex == NULL ||
	    (k->ports = calloc(dp->nports, sizeof(*k->ports))) == NULL) {
		free(k);
		free(ifindex);
		return NULL;
	}
	k->dp = dp;
	pthread_mutex_init(&k->lock, NULL);
	for (unsigned i = 0; i < dp->nports; i++)
		port_open(k, i, ifindex, discarded ? discarded[i] : 0, rxd);
	find_sockets(k, ifindex);
	readable = clock_readable();
	for (unsigned i = 0; i < dp->nports; i++) {
		struct kport *kp = &k->ports[i];
		struct fe_edge_ring ring;
		uint32_t fsz;

		if (kp->kind != FE_KPORT_AF_PACKET)
			continue;
		fsz = devarg_u32(kp->args, "framesz", AFP_FRAMESZ);
		/* a send buffer the size of the ring (afp_sndbuf) */
		for (unsigned s = 0; s < kp->nfds; s++)
			afp_sndbuf(kp->fds[s], kp->ring_frames, fsz);
		if (find_ring(kp, kp->args, fsz, &ring) < 0)
			continue;
		if (!readable)
			kp->untimed = "the clocksource is not one the vDSO reads (a system call "
				      "a burst)";
		else
			fe_dp_set_edge(dp, i, &ring);
	}
	free(ifindex);
	fe_kernel_reset(k);
	return k;
}

void
fe_kernel_close(struct fe_kernel *k)
{
	if (k == NULL)
		return;
	pthread_mutex_destroy(&k->lock);
	free(k->ports);
	free(k);
}

void
fe_kernel_poll(struct fe_kernel *k)
{
	if (k == NULL)
		return;
	pthread_mutex_lock(&k->lock);
	for (unsigned i = 0; i < k->dp->nports; i++)
		sock_poll(&k->ports[i]);
	sched_base(k);
	pthread_mutex_unlock(&k->lock);
}

void
fe_kernel_reset(struct fe_kernel *k)
{
	if (k == NULL)
		return;
	pthread_mutex_lock(&k->lock);
	for (unsigned i = 0; i < k->dp->nports; i++) {
		struct kport *kp = &k->ports[i];

		if (kp->kind == FE_KPORT_NONE)
			continue;
		if (netdev_read(kp->iface, &kp->base) < 0 && !kp->unseen) {
			kp->unseen = 1;
			fprintf(stderr,
				"fabemu-dp: port %u: interface %s is not in this network "
				"namespace's /proc/self/net/dev: its kernel counters read 0\n",
				i, kp->iface);
		}
		sock_poll(kp);
		kp->sock_packets = kp->sock_drops = 0;
	}
	xsk_read(k, &k->xsk_base);
	sched_now(k, &k->sched_base);
	pthread_mutex_unlock(&k->lock);
}

static uint64_t
delta(uint64_t now, uint64_t base)
{
	return now >= base ? now - base : 0; /* an interface's counters never go back */
}

void
fe_kernel_read(struct fe_kernel *k, unsigned i, struct fe_kernel_port *c)
{
	struct netdev_ctr now;
	struct kport *kp;

	memset(c, 0, sizeof(*c));
	c->untimed = "not a kernel interface";
	if (k == NULL || i >= k->dp->nports)
		return;
	kp = &k->ports[i];
	c->kind = kp->kind;
	c->ring_frames = kp->ring_frames;
	c->timed = __atomic_load_n(&k->dp->ports[i].edge.base, __ATOMIC_RELAXED) != NULL;
	c->untimed = c->timed ? NULL : kp->untimed;
	c->discarded = kp->discarded;
	snprintf(c->iface, sizeof(c->iface), "%s", kp->iface);
	if (kp->kind == FE_KPORT_NONE)
		return;
	pthread_mutex_lock(&k->lock);
	sock_poll(kp);
	netdev_read(kp->iface, &now);
	c->if_rx_packets = delta(now.rx_packets, kp->base.rx_packets);
	c->if_rx_dropped = delta(now.rx_dropped, kp->base.rx_dropped);
	c->if_tx_packets = delta(now.tx_packets, kp->base.tx_packets);
	c->if_tx_dropped = delta(now.tx_dropped, kp->base.tx_dropped);
	c->sock_packets = kp->sock_packets;
	c->sock_drops = kp->sock_drops;
	pthread_mutex_unlock(&k->lock);
	c->rx_lost = c->if_rx_dropped + (kp->kind == FE_KPORT_AF_PACKET ? c->sock_drops : 0);
	/* what reached the interface: a frame veth could not queue for the stack (its
	 * backlog full) is counted dropped and not received; AF_XDP's drops come after
	 * the count (the XDP redirect into a full ring) */
	c->if_rx_offered =
		c->if_rx_packets + (kp->kind == FE_KPORT_AF_PACKET ? c->if_rx_dropped : 0);
}

void
fe_kernel_read_xsk(struct fe_kernel *k, struct fe_kernel_xsk *x)
{
	struct fe_kernel_xsk now;

	memset(x, 0, sizeof(*x));
	if (k == NULL)
		return;
	pthread_mutex_lock(&k->lock);
	xsk_read(k, &now);
	x->sockets = now.sockets;
	x->rx_dropped = delta(now.rx_dropped, k->xsk_base.rx_dropped);
	x->rx_invalid = delta(now.rx_invalid, k->xsk_base.rx_invalid);
	x->tx_invalid = delta(now.tx_invalid, k->xsk_base.tx_invalid);
	x->rx_ring_full = delta(now.rx_ring_full, k->xsk_base.rx_ring_full);
	x->rx_fill_ring_empty_descs =
		delta(now.rx_fill_ring_empty_descs, k->xsk_base.rx_fill_ring_empty_descs);
	x->tx_ring_empty_descs = delta(now.tx_ring_empty_descs, k->xsk_base.tx_ring_empty_descs);
	pthread_mutex_unlock(&k->lock);
}

void
fe_kernel_read_sched(struct fe_kernel *k, struct fe_sched *s)
{
	struct fe_sched now;

	memset(s, 0, sizeof(*s));
	if (k == NULL)
		return;
	pthread_mutex_lock(&k->lock);
	sched_base(k);
	sched_now(k, &now);
	fe_sched_delta(&now, &k->sched_base, s);
	pthread_mutex_unlock(&k->lock);
}
