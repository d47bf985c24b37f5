/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port set-up at start (fe_ports.h, docs/inline.md). A NIC left at DPDK's defaults drops
 * every frame over 1,500 bytes before the emulator sees it, and obeys or sends 802.3x
 * pauses the emulated fabric knows nothing about: so the MTU is set from --mtu, the
 * NIC's own flow control is turned off, and each port says what its PMD did.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "fe_ports.h"

/* What set-up did to each port, by port id: printed by fe_ports_print(), undone by
 * fe_ports_close(). Set-up code's only; the lcore never reads it. */
static struct {
	uint8_t promisc_set;	 /* made promiscuous here: made not so again at close */
	uint8_t mtu;		 /* enum fe_ports_mtu */
	uint8_t fc;		 /* enum fe_ports_fc */
	int fc_rc;		 /* rte_eth_dev_flow_ctrl_set()'s, when refused */
	uint16_t rxd, rxd_asked; /* its receive ring, as the PMD adjusted --rxd; and --rxd */
} state[RTE_MAX_ETHPORTS];

/* AF_PACKET and AF_XDP attach to a kernel interface whose MTU the test bed (or the lab)
 * set: the kernel, not the PMD, decides which frames pass, and fe_pool_room() in fe_pool.c
 * sizes their rings. fabemu-dp leaves such an interface as it found it. */
static int
kernel_port(const struct rte_eth_dev_info *di)
{
	return strcmp(di->driver_name, "net_af_packet") == 0 ||
	       strcmp(di->driver_name, "net_af_xdp") == 0;
}

/* A device of a bus with a wire behind it (PCI, ...), not a vdev whose link speed the
 * PMD makes up. */
static int
has_wire(const struct rte_eth_dev_info *di)
{
	const struct rte_bus *bus = di->device ? rte_dev_bus(di->device) : NULL;

	return bus != NULL && strcmp(rte_bus_name(bus), "vdev") != 0;
}

static const char *
bus_name(const struct rte_eth_dev_info *di)
{
	const struct rte_bus *bus = di->device ? rte_dev_bus(di->device) : NULL;

	return bus ? rte_bus_name(bus) : "?";
}

/* The bytes of a frame beyond its MTU, and the largest MTU the port takes: ethdev's own
 * rule (22.11 eth_dev_validate_mtu()), so the message names the limit it applies. */
static uint32_t
overhead(const struct rte_eth_dev_info *di)
{
	if (di->max_mtu != UINT16_MAX && di->max_rx_pktlen > di->max_mtu)
		return di->max_rx_pktlen - di->max_mtu;
	return RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
}

static uint32_t
mtu_limit(const struct rte_eth_dev_info *di)
{
	uint32_t o = overhead(di);

	return RTE_MIN((uint32_t)di->max_mtu, di->max_rx_pktlen > o ? di->max_rx_pktlen - o : 0);
}

/* The MTU's check before the port is configured: a refusal names the port's limit. */
static int
mtu_check(uint16_t port, const char *name, const struct rte_eth_dev_info *di, uint32_t mtu,
	  char *err, size_t len)
{
	if (mtu > mtu_limit(di)) {
		snprintf(err, len,
			 "--mtu %u: port %u (%s, driver %s) takes an MTU of at most %u (its "
			 "largest frame: %u bytes, max_mtu %u); lower --mtu to %u, or use a port "
			 "that takes jumbo frames",
			 mtu, port, name, di->driver_name, mtu_limit(di), di->max_rx_pktlen,
			 di->max_mtu, mtu_limit(di));
		return -EINVAL;
	}
	if (mtu < di->min_mtu) {
		snprintf(err, len, "--mtu %u: port %u (%s, driver %s) takes an MTU of at least %u",
			 mtu, port, name, di->driver_name, di->min_mtu);
		return -EINVAL;
	}
	return 0;
}

/* The MTU set through the PMD: a NIC applies it to its receive filter (a PMD that
 * applies dev_conf's at start has it already; one that acts in mtu_set needs the call). */
static int
mtu_set(uint16_t port, const char *name, const struct rte_eth_dev_info *di, uint32_t mtu, char *err,
	size_t len)
{
	int rc = rte_eth_dev_set_mtu(port, (uint16_t)mtu);

	if (rc == -ENOTSUP) { /* no MTU to set: pcap, null, ring take any frame */
		state[port].mtu = FE_PORTS_MTU_NOCTL;
		return 0;
	}
	if (rc < 0) {
		snprintf(err, len,
			 "--mtu %u: port %u (%s, driver %s) refused it: %s (its limit: max_mtu "
			 "%u, largest frame %u bytes)",
			 mtu, port, name, di->driver_name, rte_strerror(-rc), di->max_mtu,
			 di->max_rx_pktlen);
		return rc;
	}
	state[port].mtu = FE_PORTS_MTU_SET;
	return 0;
}

/* The NIC's own 802.3x flow control off: pauses between the box and a host are the
 * emulated fabric's (PFC frames, --pfc frames=1), never the NIC's. Autonegotiation off
 * too, or the link partner could negotiate pauses back on. */
static void
fc_off(uint16_t port, const char *name, const struct fe_ports_conf *c)
{
	struct rte_eth_fc_conf fc;
	int rc;

	if (c->keep_fc) {
		state[port].fc = FE_PORTS_FC_KEPT;
		return;
	}
	memset(&fc, 0, sizeof(fc));
	(void)rte_eth_dev_flow_ctrl_get(port, &fc); /* keep its water marks and pause time */
	fc.mode = RTE_ETH_FC_NONE;
	fc.autoneg = 0;
	rc = rte_eth_dev_flow_ctrl_set(port, &fc);
	state[port].fc_rc = rc;
	if (rc == 0) {
		state[port].fc = FE_PORTS_FC_SET;
	} else if (rc == -ENOTSUP) {
		state[port].fc = FE_PORTS_FC_NOTSUP;
	} else {
		state[port].fc = FE_PORTS_FC_REFUSED;
		fprintf(stderr,
			"fabemu-dp: port %u (%s): the PMD refused to turn 802.3x flow control "
			"off (%s): the NIC may send or obey pauses the emulated fabric does not "
			"know of\n",
			port, name, rte_strerror(-rc));
	}
}

int
fe_ports_setup(uint16_t port, struct rte_mempool *pool, const struct fe_ports_conf *c, char *err,
	       size_t len)
{
	struct rte_eth_conf conf = {0}; /* no offload: frames as on the wire, FCS stripped */
	char name[RTE_ETH_NAME_MAX_LEN] = "?";
	uint16_t rxd = c->rxd, txd = c->txd;
	struct rte_eth_dev_info di;
	int kernel, rc;

	rte_eth_dev_get_name_by_port(port, name);
	rc = rte_eth_dev_info_get(port, &di);
	if (rc < 0) {
		snprintf(err, len, "port %u (%s): no device information: %s", port, name,
			 rte_strerror(-rc));
		return rc;
	}
	kernel = kernel_port(&di);
	state[port].mtu = FE_PORTS_MTU_KERNEL;
	if (!kernel) {
		rc = mtu_check(port, name, &di, c->mtu, err, len);
		if (rc < 0)
			return rc;
		conf.rxmode.mtu = c->mtu;
	}
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0 && !kernel && mtu_set(port, name, &di, c->mtu, err, len) < 0)
		return -EINVAL;
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
	state[port].rxd = rxd;
	state[port].rxd_asked = c->rxd;
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, rxd, rte_eth_dev_socket_id(port), NULL, pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, txd, rte_eth_dev_socket_id(port), NULL);
	if (rc == 0)
		fc_off(port, name, c); /* before start: some NICs take it only stopped */
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc < 0) {
		snprintf(err, len, "port %u (%s): setup failed: %s", port, name, rte_strerror(-rc));
		return rc;
	}
	/* frames for the other hosts must reach us; PMDs without the notion say ENOTSUP */
	if (rte_eth_promiscuous_get(port) == 1)
		return 0;
	rc = rte_eth_promiscuous_enable(port);
	if (rc < 0 && rc != -ENOTSUP)
		fprintf(stderr, "fabemu-dp: port %u (%s): promiscuous mode: %s\n", port, name,
			rte_strerror(-rc));
	state[port].promisc_set = rc == 0;
	return 0;
}

/* 1 if the port's link is down; an unknown state (no link_update) counts as up. */
static int
link_down(uint16_t port)
{
	struct rte_eth_link l;

	memset(&l, 0, sizeof(l));
	if (rte_eth_link_get_nowait(port, &l) < 0)
		return 0;
	return l.link_status == RTE_ETH_LINK_DOWN;
}

unsigned
fe_ports_wait_link(const uint16_t *ports, unsigned n, const struct fe_ports_conf *c)
{
	const uint64_t step_ns = 100000000; /* 100 ms, as DPDK's examples poll */
	uint64_t waited = 0;
	unsigned down;

	for (;;) {
		down = 0;
		for (unsigned i = 0; i < n; i++)
			down += (unsigned)link_down(ports[i]);
		if (down == 0 || waited >= c->link_wait_ns)
			break;
		if (waited == 0) {
			printf("fabemu-dp: waiting up to %.1f s for the link of %u port(s)\n",
			       (double)c->link_wait_ns / 1e9, down);
			fflush(stdout);
		}
		rte_delay_us_sleep((unsigned)(step_ns / 1000));
		waited += step_ns;
	}
	for (unsigned i = 0; down && i < n; i++) {
		char name[RTE_ETH_NAME_MAX_LEN] = "?";

		if (!link_down(ports[i]))
			continue;
		rte_eth_dev_get_name_by_port(ports[i], name);
		fprintf(stderr,
			"fabemu-dp: port %u (%s): link still down after %.1f s (cable, the "
			"host's NIC down?); starting anyway\n",
			ports[i], name, (double)waited / 1e9);
	}
	return down;
}

static const char *
fc_mode_name(enum rte_eth_fc_mode m)
{
	switch (m) {
	case RTE_ETH_FC_NONE:
		return "off";
	case RTE_ETH_FC_RX_PAUSE:
		return "obeys pauses (rx)";
	case RTE_ETH_FC_TX_PAUSE:
		return "sends pauses (tx)";
	case RTE_ETH_FC_FULL:
		return "sends and obeys pauses";
	}
	return "?";
}

static void
print_fc(uint16_t port)
{
	struct rte_eth_fc_conf fc;
	int got;

	memset(&fc, 0, sizeof(fc));
	got = rte_eth_dev_flow_ctrl_get(port, &fc) == 0;
	switch ((enum fe_ports_fc)state[port].fc) {
	case FE_PORTS_FC_SET:
		printf("flow control %s (set)", got ? fc_mode_name(fc.mode) : "off");
		break;
	case FE_PORTS_FC_KEPT:
		printf("flow control %s (kept: --port-flow-control keep)",
		       got ? fc_mode_name(fc.mode) : "unknown");
		break;
	case FE_PORTS_FC_NOTSUP:
		printf("flow control: none in the PMD (not supported)");
		break;
	case FE_PORTS_FC_REFUSED:
		printf("flow control %s (REFUSED to turn off: %s)",
		       got ? fc_mode_name(fc.mode) : "unknown", rte_strerror(-state[port].fc_rc));
		break;
	}
}

void
fe_ports_print(const uint16_t *ports, unsigned n)
{
	static const char *const mtu_how[] = {
		[FE_PORTS_MTU_SET] = "set",
		[FE_PORTS_MTU_NOCTL] = "none in the PMD: any frame size",
		[FE_PORTS_MTU_KERNEL] = "the kernel interface's, left as found",
	};

	for (unsigned i = 0; i < n; i++) {
		char name[RTE_ETH_NAME_MAX_LEN] = "?", link[RTE_ETH_LINK_MAX_STR_LEN] = "?";
		struct rte_eth_dev_info di;
		struct rte_eth_link l;
		uint16_t mtu = 0;

		rte_eth_dev_get_name_by_port(ports[i], name);
		memset(&di, 0, sizeof(di));
		if (rte_eth_dev_info_get(ports[i], &di) != 0)
			di.driver_name = "?";
		memset(&l, 0, sizeof(l));
		if (rte_eth_link_get_nowait(ports[i], &l) == 0)
			rte_eth_link_to_str(link, sizeof(link), &l);
		rte_eth_dev_get_mtu(ports[i], &mtu);
		printf("  port %u: %s, driver %s (%s), %s%s, ", ports[i], name, di.driver_name,
		       bus_name(&di), link, has_wire(&di) ? "" : " (virtual: no wire)");
		if (state[ports[i]].mtu == FE_PORTS_MTU_KERNEL)
			printf("MTU %s, ", mtu_how[FE_PORTS_MTU_KERNEL]);
		else
			printf("MTU %u (%s), ", mtu, mtu_how[state[ports[i]].mtu]);
		print_fc(ports[i]);
		printf(", RX ring %u descriptors", state[ports[i]].rxd);
		if (state[ports[i]].rxd != state[ports[i]].rxd_asked)
			printf(" (--rxd %u: the PMD's limits)", state[ports[i]].rxd_asked);
		printf(", offloads none\n");
	}
	fflush(stdout);
}

uint16_t
fe_ports_rxd(uint16_t port)
{
	return state[port].rxd;
}

int
fe_ports_check_speed(const uint16_t *ports, unsigned n, const uint64_t *rate_bps, char *err,
		     size_t len)
{
	for (unsigned i = 0; i < n; i++) {
		char name[RTE_ETH_NAME_MAX_LEN] = "?";
		struct rte_eth_dev_info di;
		struct rte_eth_link l;

		memset(&l, 0, sizeof(l));
		if (rate_bps[i] == 0 || rte_eth_dev_info_get(ports[i], &di) != 0 ||
		    !has_wire(&di) || rte_eth_link_get_nowait(ports[i], &l) != 0 ||
		    l.link_status == RTE_ETH_LINK_DOWN || l.link_speed == RTE_ETH_SPEED_NUM_NONE ||
		    l.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
			continue;
		if ((uint64_t)l.link_speed * 1000000 >= rate_bps[i])
			continue;
		rte_eth_dev_get_name_by_port(ports[i], name);
		snprintf(err, len,
			 "port %u (%s) links at %u Mbit/s, below the %.3f Gbit/s its links carry "
			 "in real time: dilate the profile (--scale N), lower the links' rate, or "
			 "use a faster port",
			 ports[i], name, l.link_speed, (double)rate_bps[i] / 1e9);
		return -1;
	}
	return 0;
}

void
fe_ports_close(uint16_t port)
{
	if (state[port].promisc_set && rte_eth_promiscuous_disable(port) == 0)
		state[port].promisc_set = 0;
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
}

int
fe_ports_pause_parse(const char *v, int *mode)
{
	static const char *const names[] = {"auto", "on", "off"};

	for (int i = 0; i < 3; i++)
		if (strcmp(v, names[i]) == 0) {
			*mode = i;
			return 0;
		}
	return -1;
}

int
fe_ports_pause(uint16_t port, int mode, uint64_t *bps)
{
	struct rte_eth_dev_info di;
	struct rte_eth_link l;

	*bps = 0;
	if (rte_eth_link_get_nowait(port, &l) == 0 && l.link_status == RTE_ETH_LINK_UP &&
	    l.link_speed != RTE_ETH_SPEED_NUM_NONE && l.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		*bps = (uint64_t)l.link_speed * 1000000;
	if (mode != FE_PORTS_PAUSE_AUTO)
		return mode == FE_PORTS_PAUSE_ON;
	return rte_eth_dev_info_get(port, &di) == 0 && has_wire(&di) && !kernel_port(&di);
}
