/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemu-dp's ports at start, as a real NIC needs them (docs/inline.md): one RX and one
 * TX queue, the hosts' MTU, the NIC's own 802.3x flow control off, promiscuous, the link
 * waited for, and a line a port saying what the PMD did. Called from main() in order:
 * fe_ports_setup() for every port, fe_ports_wait_link() once, fe_ports_print(), then
 * fe_ports_check_speed() with the rates the links ask of each port; fe_ports_close()
 * at exit. Set-up code only: nothing here runs on the forwarding lcore.
 */
#ifndef FE_PORTS_H
#define FE_PORTS_H

#include <stddef.h>
#include <stdint.h>

struct rte_mempool;

/* The largest MTU fabemu-dp asks of a port (--mtu): 9,216, the jumbo size of most
 * switches and NICs' largest. */
#define FE_PORTS_MTU_MAX 9216

struct fe_ports_conf {
	uint16_t rxd, txd;
	uint32_t mtu;	       /* the MTU each port must carry (the hosts' IP packets) */
	int keep_fc;	       /* --port-flow-control keep: the NIC's 802.3x left as found */
	uint64_t link_wait_ns; /* the longest wait for the links at start (--link-wait) */
};

/* What port set-up found and did, printed by fe_ports_print(). */
enum fe_ports_mtu {
	FE_PORTS_MTU_SET,    /* rte_eth_dev_set_mtu() took it */
	FE_PORTS_MTU_NOCTL,  /* the PMD has no MTU (-ENOTSUP): it takes frames of any size */
	FE_PORTS_MTU_KERNEL, /* a kernel interface's (AF_PACKET, AF_XDP): left as found */
};

enum fe_ports_fc {
	FE_PORTS_FC_SET,     /* turned off, the PMD took it */
	FE_PORTS_FC_KEPT,    /* --port-flow-control keep */
	FE_PORTS_FC_NOTSUP,  /* the PMD has no flow control to set (-ENOTSUP) */
	FE_PORTS_FC_REFUSED, /* the PMD refused: the NIC may still send or obey pauses */
};

/* Set up and start one port. 0, or a negative errno with the reason in err (a refused
 * MTU names the port's own limit). */
int fe_ports_setup(uint16_t port, struct rte_mempool *pool, const struct fe_ports_conf *c,
		   char *err, size_t len);

/* Wait until every port's link is up, polling, at most c->link_wait_ns. Returns how
 * many are still down (each named on stderr). */
unsigned fe_ports_wait_link(const uint16_t *ports, unsigned n, const struct fe_ports_conf *c);

/* Port's receive ring after fe_ports_setup(): --rxd as the PMD adjusted it to its limits
 * (rte_eth_dev_adjust_nb_rx_tx_desc()), what the edge pause's sizing counts on. */
uint16_t fe_ports_rxd(uint16_t port);

/* A line a port: name, driver, bus, link (speed), MTU, flow control, RX ring, offloads. */
void fe_ports_print(const uint16_t *ports, unsigned n);

/*
 * Each port's link speed against the highest rate its links carry in real time
 * (rate_bps[i], already divided by the profile's scale; 0: unlimited). Only a port on a
 * bus with a real wire (not a vdev, whose speed the PMD makes up) can fail. 0, or -1
 * with the first short port, its speed and the rate, in err.
 */
int fe_ports_check_speed(const uint16_t *ports, unsigned n, const uint64_t *rate_bps, char *err,
			 size_t len);

/* --edge-pause (docs/inline.md): the edge pause on ports with a wire, on all, on none. */
enum fe_ports_pause {
	FE_PORTS_PAUSE_AUTO,
	FE_PORTS_PAUSE_ON,
	FE_PORTS_PAUSE_OFF,
};

/* "auto", "on" or "off" into *mode: 0, or -1. */
int fe_ports_pause_parse(const char *v, int *mode);

/* Whether a started port has the edge pause under mode, and its link speed in bit/s
 * (*bps 0: unknown, the link down). */
int fe_ports_pause(uint16_t port, int mode, uint64_t *bps);

/* Stop and close a port, its promiscuous mode restored if set-up changed it. */
void fe_ports_close(uint16_t port);

#endif
