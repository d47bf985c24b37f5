/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_malloc.h>

#include "fe_dp.h"

/* Below this, sleeping costs more than it saves: spin instead. */
#define FE_SLEEP_MIN_NS 1000
/* nanosleep wakes this late at worst on an idle machine (timer slack is set to 1 ns). */
#define FE_SLEEP_MARGIN_NS 15000

static int
link_setup(struct fe_link *l, const struct fe_link_params *p, uint64_t hz, int socket, char *err,
	   size_t errlen)
{
	struct fe_link_slot *slots;
	struct fe_link_cfg cfg;
	const char *what;

	if (fe_link_params_check(p, &what) < 0 || fe_link_compile(p, hz, &cfg) < 0) {
		snprintf(err, errlen, "bad %s", what);
		return -EINVAL;
	}
	slots = rte_zmalloc_socket("fe_link", sizeof(*slots) * cfg.nslots, RTE_CACHE_LINE_SIZE,
				   socket);
	if (slots == NULL) {
		snprintf(err, errlen, "out of memory for %u link slots", cfg.nslots);
		return -ENOMEM;
	}
	fe_link_init(l, &cfg, slots);
	return 0;
}

/* Compile the impairments of one link; stream numbers the link for its PRNG. */
static int
linkx_setup(struct fe_linkx *x, const struct fe_linkdef *d, uint64_t hz, uint64_t seed,
	    unsigned stream, char *err, size_t errlen)
{
	memset(x, 0, sizeof(*x));
	fe_rng_seed(&x->rng, seed, stream);
	if (fe_loss_compile(&d->loss, &x->loss) < 0) {
		snprintf(err, errlen, "bad loss probabilities");
		return -EINVAL;
	}
	x->loss_cause = d->loss.kind == FE_LOSS_GE ? FE_LINK_DROP_BURST : FE_LINK_DROP_RANDOM;
	if (fe_ecn_compile(&d->ecn, &x->ecn) < 0) {
		snprintf(err, errlen, "bad ecn thresholds");
		return -EINVAL;
	}
	x->jitter_ticks = (uint64_t)((unsigned __int128)d->jitter_ns * hz / 1000000000);
	if (d->drop_count) {
		x->drop_first = d->drop_first;
		x->drop_last = d->drop_first + d->drop_count - 1;
	}
	if (d->match[0] != '\0') {
		x->filter = fe_filter_create(d->match, err, errlen);
		if (x->filter == NULL)
			return -EINVAL;
	}
	x->active = x->loss.ops || x->ecn.enabled || x->jitter_ticks || x->drop_last;
	return 0;
}

static int
port_setup(struct fe_dp *dp, unsigned i, uint16_t port_id, const struct fe_linkdef *up,
	   const struct fe_linkdef *down, int socket, char *err, size_t errlen)
{
	struct fe_port *p = &dp->ports[i];
	char e[300];

	p->port_id = port_id;
	if (rte_eth_dev_get_name_by_port(p->port_id, p->name) != 0)
		snprintf(p->name, sizeof(p->name), "port%u", p->port_id);
	p->up_def = *up;
	p->down_def = *down;
	if (link_setup(&p->up, &up->link, dp->hz, socket, e, sizeof(e)) < 0 ||
	    linkx_setup(&p->up_x, up, dp->hz, dp->conf.seed, 2 * i, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "link %u.up: %s", i, e);
		return -EINVAL;
	}
	if (link_setup(&p->down, &down->link, dp->hz, socket, e, sizeof(e)) < 0 ||
	    linkx_setup(&p->down_x, down, dp->hz, dp->conf.seed, 2 * i + 1, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "link %u.down: %s", i, e);
		return -EINVAL;
	}
	/* the switch's packet memory is what its egress (down) queues share */
	p->down.pool = &dp->pool_shared;
	return 0;
}

struct fe_dp *
fe_dp_create(unsigned nports, const uint16_t *port_ids, const struct fe_linkdef *up,
	     const struct fe_linkdef *down, struct rte_mempool *pool, uint64_t hz,
	     const struct fe_dp_conf *conf, char *err, size_t errlen)
{
	int socket = (int)rte_socket_id();
	struct fe_dp *dp;

	dp = rte_zmalloc_socket("fe_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE, socket);
	if (dp == NULL)
		goto nomem;
	dp->nports = nports;
	dp->pool = pool;
	dp->hz = hz;
	dp->conf = *conf;
	dp->pool_shared.limit = conf->switch_buffer;
	dp->ports = rte_zmalloc_socket("fe_ports", sizeof(*dp->ports) * nports, RTE_CACHE_LINE_SIZE,
				       socket);
	dp->mac = rte_zmalloc_socket("fe_mac", sizeof(*dp->mac), RTE_CACHE_LINE_SIZE, socket);
	if (dp->ports == NULL || dp->mac == NULL)
		goto nomem;
	fe_mac_init(dp->mac, (uint64_t)((unsigned __int128)conf->mac_age_ns * hz / 1000000000));
	for (unsigned i = 0; i < nports; i++)
		if (port_setup(dp, i, port_ids[i], &up[i], &down[i], socket, err, errlen) < 0)
			goto fail;
	dp->start_tsc = rte_rdtsc();
	return dp;
nomem:
	snprintf(err, errlen, "out of memory for %u ports", nports);
fail:
	fe_dp_free(dp);
	return NULL;
}

void
fe_dp_free(struct fe_dp *dp)
{
	if (dp == NULL)
		return;
	for (unsigned i = 0; dp->ports && i < dp->nports; i++) {
		rte_free(dp->ports[i].up.slots);
		rte_free(dp->ports[i].down.slots);
		fe_filter_free(dp->ports[i].up_x.filter);
		fe_filter_free(dp->ports[i].down_x.filter);
	}
	rte_free(dp->ports);
	rte_free(dp->mac);
	rte_free(dp);
}

/*
 * The impairments, in order: filter, exact drop, loss, ECN, jitter. Returns the drop
 * cause, or FE_LINK_DROP__MAX to carry the packet with *extra ticks of jitter.
 */
static inline enum fe_link_drop
impair(struct fe_link *l, struct fe_linkx *x, struct rte_mbuf *m, uint64_t t, uint64_t *extra)
{
	if (x->filter) {
		if (!fe_filter_match(x->filter, m))
			return FE_LINK_DROP__MAX;
		FE_CNT_ADD(x->filter_hits, 1);
	}
	x->matched++;
	if (x->drop_last && x->matched >= x->drop_first && x->matched <= x->drop_last)
		return FE_LINK_DROP_EXACT;
	if (fe_loss_lost(&x->loss, &x->rng))
		return x->loss_cause;
	if (x->ecn.enabled && fe_ecn_hit(&x->ecn, fe_link_backlog(l, t), &x->rng)) {
		enum fe_ecn_result r =
			fe_ecn_mark(rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m));

		if (r == FE_ECN_MARKED)
			FE_CNT_ADD(l->st.ecn_marked, 1);
		else if (r != FE_ECN_ALREADY_CE && x->ecn.drop_non_ect)
			return FE_LINK_DROP_AQM;
	}
	if (x->jitter_ticks)
		*extra = fe_rng_upto(&x->rng, x->jitter_ticks);
	return FE_LINK_DROP__MAX;
}

static inline void
to_link(struct fe_link *l, struct fe_linkx *x, struct rte_mbuf *m, uint64_t t)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint64_t extra = 0;

	if (x->active) {
		enum fe_link_drop why = impair(l, x, m, t, &extra);

		if (why != FE_LINK_DROP__MAX) {
			fe_link_drop(l, why, len);
			rte_pktmbuf_free(m);
			return;
		}
	}
	if (fe_link_enqueue_x(l, m, len, t, extra, 0) < 0)
		rte_pktmbuf_free(m);
}

/* Send m to every port but `in`; the last one gets m itself, the others copies. */
static void
flood(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t)
{
	int last = -1;

	for (unsigned q = 0; q < dp->nports; q++) {
		struct rte_mbuf *c;

		if (q == in)
			continue;
		if (last >= 0) {
			c = rte_pktmbuf_copy(m, dp->pool, 0, UINT32_MAX);
			if (c == NULL)
				FE_CNT_ADD(dp->sw.nombuf, 1);
			else
				to_link(&dp->ports[last].down, &dp->ports[last].down_x, c, t);
		}
		last = (int)q;
	}
	if (last >= 0)
		to_link(&dp->ports[last].down, &dp->ports[last].down_x, m, t);
	else
		rte_pktmbuf_free(m);
	FE_CNT_ADD(dp->sw.flooded, 1);
}

/* The switch: a packet that reached the end of up[in] at tick t. */
static void
switch_forward(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t t)
{
	const struct rte_ether_hdr *eh;
	int out;

	if (unlikely(rte_pktmbuf_data_len(m) < sizeof(*eh))) {
		FE_CNT_ADD(dp->sw.runts, 1);
		rte_pktmbuf_free(m);
		return;
	}
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (!rte_is_multicast_ether_addr(&eh->src_addr))
		fe_mac_learn(dp->mac, eh->src_addr.addr_bytes, (uint16_t)in, t);
	if (rte_is_multicast_ether_addr(&eh->dst_addr))
		out = -1;
	else
		out = fe_mac_lookup(dp->mac, eh->dst_addr.addr_bytes, t);
	if (out < 0) {
		flood(dp, in, m, t);
	} else if ((unsigned)out == in) {
		FE_CNT_ADD(dp->sw.filtered, 1);
		rte_pktmbuf_free(m);
	} else {
		FE_CNT_ADD(dp->sw.unicast, 1);
		to_link(&dp->ports[out].down, &dp->ports[out].down_x, m, t);
	}
}

static inline unsigned
port_rx(struct fe_port *p, uint64_t now)
{
	struct rte_mbuf *pkts[FE_BURST];
	uint64_t bytes = 0;
	uint16_t n;

	n = rte_eth_rx_burst(p->port_id, 0, pkts, FE_BURST);
	for (uint16_t i = 0; i < n; i++) {
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
		to_link(&p->up, &p->up_x, pkts[i], now);
	}
	FE_CNT_ADD(p->st.rx_pkts, n);
	FE_CNT_ADD(p->st.rx_bytes, bytes);
	return n;
}

static inline unsigned
port_switch(struct fe_dp *dp, unsigned in, uint64_t now)
{
	void *pkts[FE_BURST];
	uint64_t stamps[FE_BURST];
	unsigned n;

	n = fe_link_dequeue(&dp->ports[in].up, now, pkts, stamps, FE_BURST);
	for (unsigned i = 0; i < n; i++)
		switch_forward(dp, in, pkts[i], stamps[i]);
	return n;
}

static inline unsigned
port_tx(struct fe_port *p, uint64_t now)
{
	uint64_t bytes = 0;
	uint16_t sent;

	if (p->txq_n < FE_BURST)
		p->txq_n += fe_link_dequeue(&p->down, now, (void **)&p->txq[p->txq_n], NULL,
					    FE_BURST - p->txq_n);
	if (p->txq_n == 0)
		return 0;
	sent = rte_eth_tx_burst(p->port_id, 0, p->txq, p->txq_n);
	for (uint16_t i = 0; i < sent; i++)
		bytes += rte_pktmbuf_pkt_len(p->txq[i]);
	FE_CNT_ADD(p->st.tx_pkts, sent);
	FE_CNT_ADD(p->st.tx_bytes, bytes);
	if (sent < p->txq_n) {
		/* nothing is dropped here: the rest waits, in order, for the next pass */
		FE_CNT_ADD(p->st.tx_busy, 1);
		memmove(p->txq, p->txq + sent, (p->txq_n - sent) * sizeof(p->txq[0]));
	}
	p->txq_n -= sent;
	return sent;
}

unsigned
fe_dp_poll(struct fe_dp *dp, uint64_t now)
{
	unsigned work = 0;

	for (unsigned i = 0; i < dp->nports; i++)
		work += port_rx(&dp->ports[i], now);
	for (unsigned i = 0; i < dp->nports; i++)
		work += port_switch(dp, i, now);
	for (unsigned i = 0; i < dp->nports; i++)
		work += port_tx(&dp->ports[i], now);
	FE_CNT_ADD(dp->idle.polls, 1);
	return work;
}

uint64_t
fe_dp_next_event(const struct fe_dp *dp)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < dp->nports; i++) {
		const struct fe_port *p = &dp->ports[i];

		if (p->txq_n)
			return 0;
		next = RTE_MIN(next, fe_link_next_arrival(&p->up));
		next = RTE_MIN(next, fe_link_next_arrival(&p->down));
	}
	return next;
}

uint64_t
fe_dp_held(const struct fe_dp *dp)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < dp->nports; i++)
		n += dp->ports[i].txq_n + fe_link_count(&dp->ports[i].up) +
		     fe_link_count(&dp->ports[i].down);
	return n;
}

static inline uint64_t
ticks_to_ns(const struct fe_dp *dp, uint64_t ticks)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000000 / dp->hz);
}

/*
 * Idle policy. After idle_spin empty passes the loop sleeps, doubling the sleep up to
 * idle_sleep_ns; a packet that arrives meanwhile waits in the port's ring for at most
 * that long (the latency cost). A queued packet's due time is never overslept: the
 * sleep ends FE_SLEEP_MARGIN_NS before it and the loop spins to the exact tick.
 */
static uint64_t
idle_sleep_ns(const struct fe_dp *dp, uint64_t now, uint64_t backoff)
{
	uint64_t next = fe_dp_next_event(dp), budget;

	if (next == UINT64_MAX)
		return backoff;
	if (next <= now)
		return 0;
	budget = ticks_to_ns(dp, next - now);
	if (budget < FE_SLEEP_MARGIN_NS + FE_SLEEP_MIN_NS)
		return 0;
	return RTE_MIN(backoff, budget - FE_SLEEP_MARGIN_NS);
}

void
fe_dp_run(struct fe_dp *dp, const volatile int *stop)
{
	uint64_t exit_idle =
		(uint64_t)((unsigned __int128)dp->conf.exit_idle_ns * dp->hz / 1000000000);
	uint64_t backoff = FE_SLEEP_MIN_NS, idle_since = rte_rdtsc();
	unsigned empty = 0;

	while (!*stop) {
		uint64_t now = rte_rdtsc(), ns;

		if (fe_dp_poll(dp, now)) {
			idle_since = now;
			empty = 0;
			backoff = FE_SLEEP_MIN_NS;
			continue;
		}
		if (fe_dp_held(dp))
			idle_since = now; /* packets on their way: not idle */
		else if (exit_idle && now - idle_since > exit_idle)
			break;
		if (dp->conf.idle_sleep_ns == 0 || ++empty < dp->conf.idle_spin)
			continue;
		ns = idle_sleep_ns(dp, now, backoff);
		if (ns < FE_SLEEP_MIN_NS)
			continue;
		FE_CNT_ADD(dp->idle.sleeps, 1);
		FE_CNT_ADD(dp->idle.slept_ns, ns);
		nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = (long)ns}, NULL);
		backoff = RTE_MIN(backoff * 2, dp->conf.idle_sleep_ns);
	}
}

void
fe_dp_drain(struct fe_dp *dp)
{
	void *pkts[FE_BURST];
	unsigned n;

	for (unsigned i = 0; i < dp->nports; i++) {
		struct fe_port *p = &dp->ports[i];

		rte_pktmbuf_free_bulk(p->txq, p->txq_n);
		p->txq_n = 0;
		while ((n = fe_link_flush(&p->up, pkts, FE_BURST)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
		while ((n = fe_link_flush(&p->down, pkts, FE_BURST)) > 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
	}
}
