/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "fe_ecn.h"
#include "fe_graph.h"
#include "fe_nicport.h"
#include "fe_nictag.h"
#include "fe_regime.h"
#include "fe_time.h"

/* A 24-bit PSN as the 32-bit count nearest to ref. */
static inline uint32_t
psn_full(uint32_t psn24, uint32_t ref)
{
	return ref + (uint32_t)fe_psn_diff(psn24, ref & FE_PSN_MASK);
}

static void trimmed_due(struct fe_dp *dp, unsigned q, uint64_t now);

/* The ready ring's entry i (a count, modulo its power-of-two size). */
static inline struct fe_nic_ready *
ready_slot(const struct fe_nicport *n, uint32_t i)
{
	return &n->ready[i & (n->nready - 1)];
}

/* A frame for the host due at tick due waits for it (across the host's PCIe then). */
static inline int
later(uint64_t due, uint64_t now)
{
	return due != FE_DUE_NONE && due > now;
}

/*
 * The tick a frame due at `due` reached port n's NIC: due, but never before a frame it
 * took earlier (the trimmed headers' queue and the down link are two ways in) nor before
 * the NICs' last pass, which ran its flows (their rates, windows, timers) up to that
 * pass's tick. A round trip is measured to `due` itself.
 */
static inline uint64_t
arrived(const struct fe_dp *dp, struct fe_nicport *n, uint64_t due)
{
	n->at = RTE_MAX(n->at, RTE_MAX(due, dp->nic_seen));
	return n->at;
}

/*
 * Port p's NIC has not yet taken a frame that came due by now (its host's TX staging
 * full, a pass's caps reached): the tick before the oldest, up to which its timers may
 * fire (that frame may be the ACK that stops them); else UINT64_MAX.
 */
static inline uint64_t
unread(const struct fe_port *p, uint64_t now)
{
	uint64_t due = RTE_MIN(fe_link_next_due(&p->down.l), fe_express_next(&p->nic->trimq));

	return due <= now ? due - RTE_MIN(due, 1) : UINT64_MAX;
}

/*
 * A frame due at `due` reached port n's NIC (arrived()), in the pass at now: the tick the
 * NIC's answer to it (an ACK, NAK, CNP, grant) enters the fabric. The arrival's tick where
 * the regime lets a frame enter in the past (lossy), so that a pass run late (the loop
 * away) still answers at the frame's time; else now (fe_regime.h, enters_past).
 */
static inline uint64_t
ctl_at(const struct fe_dp *dp, struct fe_nicport *n, uint64_t due, uint64_t now)
{
	const uint64_t at = arrived(dp, n, due);

	return dp->rg->enters_past ? at : now;
}

/* The tick after now the ready ring's head waits for, if it waits (else UINT64_MAX). */
static inline uint64_t
ready_next(const struct fe_nicport *n, uint64_t now)
{
	uint64_t due;

	if (n->rhead == n->rtail)
		return UINT64_MAX;
	due = ready_slot(n, n->rhead)->due;
	return later(due, now) ? due : UINT64_MAX;
}

/* Bytes frame m takes on the wire: what RCCC's credit counts (fe_rccc.h). */
static inline uint32_t
wire(const struct rte_mbuf *m)
{
	return fe_wire_bytes(rte_pktmbuf_pkt_len(m));
}

/* A flow's window, in frames: the configured one rounded up to a power of two, the same
 * on every port and box (a flow from another box's receiving side holds as many). */
static uint32_t
nic_window(const struct fe_nic_params *prm)
{
	uint32_t w = 1;

	while (w < prm->window)
		w <<= 1;
	return w;
}

int
fe_nic_setup(struct fe_dp *dp, unsigned i, int socket, char *err, size_t errlen)
{
	struct fe_port *p = &dp->ports[i];
	const struct fe_nic_params *prm = &dp->conf.nic;
	struct fe_nicport *n;
	uint32_t w = nic_window(prm);
	n = rte_zmalloc_socket("fe_nic", sizeof(*n), RTE_CACHE_LINE_SIZE, socket);
	if (n == NULL)
		goto nomem;
	p->nic = n;
	n->prm = *prm;
	n->next_event = UINT64_MAX;
	n->gap_next = UINT64_MAX;
	if (prm->model == FE_NIC_HOST) { /* the hosts' NICs are real: count, do not act */
		n->host = 1;
		n->qps = rte_zmalloc_socket("fe_nic", sizeof(*n->qps) * FE_ROCE_QPS, 0, socket);
		if (n->qps == NULL)
			goto nomem;
		return 0;
	}
	n->window = w;
	n->cc_mode = fe_nic_cc(prm);
	/* SLEEK: with NSCC, as the simulator runs it, unless the profile turned it off */
	n->probes = prm->model == FE_NIC_UEC && fe_nic_cc_nscc(n->cc_mode) && !prm->sleek_off;
	/* line_bps and cc: derived from the up link's rate (fe_derive.h) */
	fe_ibcc_compile(prm, dp->hz, &n->ib);
	/* timeout_ticks: derived from the fabric's queues with timeout: path (fe_derive.h) */
	n->cnp_ticks = fe_ns_to_ticks(prm->cnp_interval_ns, dp->hz);
	n->next_event = UINT64_MAX;
	fe_express_init(&n->trimq, n->trims, FE_NIC_TRIMQ);
	n->pend = rte_zmalloc_socket("fe_nic", sizeof(*n->pend) * FE_NIC_PENDING, 0, socket);
	/* the flows this NIC may receive: one a slot of every sender's, here or elsewhere */
	n->rel = rte_zmalloc_socket("fe_nic", sizeof(*n->rel) * dp->nic_ids * FE_NIC_FLOWS, 0,
				    socket);
	n->acks = rte_zmalloc_socket("fe_nic", sizeof(*n->acks) * dp->nic_ids * FE_NIC_FLOWS, 0,
				     socket);
	n->gaps = rte_zmalloc_socket("fe_nic", sizeof(*n->gaps) * dp->nic_ids * FE_NIC_FLOWS, 0,
				     socket);
	/* the ready ring: with the host's PCIe, room for its backlog in frames of
	 * FE_NIC_READY_BYTES (fe_pcie.h: a smaller frame's fill the ring first) */
	n->nready = FE_NIC_READY;
	while (prm->pcie_bps &&
	       (uint64_t)n->nready * FE_NIC_READY_BYTES < fe_pcie_limit(prm->pcie_backlog))
		n->nready <<= 1;
	n->ready = rte_zmalloc_socket("fe_nic", sizeof(*n->ready) * n->nready, 0, socket);
	if (n->pend == NULL || n->rel == NULL || n->acks == NULL || n->ready == NULL ||
	    n->gaps == NULL)
		goto nomem;
	n->reorder_ticks = fe_ns_to_ticks(prm->reorder_ns, dp->hz);
	n->reps_freeze_ticks = fe_ns_to_ticks(prm->reps_freeze_ns, dp->hz);
	n->gap_next = UINT64_MAX;
	if (fe_nic_cc_rccc(n->cc_mode)) { /* the flows it may receive, each in one list */
		uint32_t cap = dp->nic_ids * FE_NIC_FLOWS;

		n->pslots = rte_zmalloc_socket("fe_nic", sizeof(*n->pslots) * 2 * cap, 0, socket);
		if (n->pslots == NULL)
			goto nomem;
		/* its pull rate's times drawn by the fabric's number of the port: the same
		 * on one box or split */
		fe_rccc_pacer_init(
			&n->pacer, n->pslots, cap,
			dp->conf.graph && dp->conf.graph->gport ? dp->conf.graph->gport[i] : i);
	}
	for (uint32_t k = 0; k < FE_NIC_PENDING; k++)
		n->pend[k].next = k + 1;
	n->pend_free = FE_NIC_PENDING;
	for (unsigned f = 0; f < FE_NIC_FLOWS; f++) {
		struct fe_nic_flow *fl = &n->flows[f];

		fl->win = rte_zmalloc_socket("fe_nic", sizeof(*fl->win) * w, 0, socket);
		if (fl->win == NULL)
			goto nomem;
		/* selective repeat, or a reorder window: frames after a gap are held */
		if (fe_nic_recovery(prm) == FE_NIC_SELECTIVE || prm->reorder_ns) {
			fl->held = rte_zmalloc_socket("fe_nic", sizeof(*fl->held) * w, 0, socket);
			if (fl->held == NULL)
				goto nomem;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the NIC of port %u (window %u)", i, w);
	return -ENOMEM;
}

int
fe_nic_remote_setup(struct fe_dp *dp, unsigned nall, int socket, char *err, size_t errlen)
{
	const struct fe_nic_params *prm = &dp->conf.nic;
	uint32_t w = nic_window(prm);

	dp->nic_ids = dp->nports + nall;
	if (dp->nic_ids > 255) {
		snprintf(err, errlen, "the NIC model takes at most 255 ports, here and elsewhere");
		return -EINVAL;
	}
	dp->nic_remote = rte_zmalloc_socket("fe_nic", sizeof(*dp->nic_remote) * nall * FE_NIC_FLOWS,
					    RTE_CACHE_LINE_SIZE, socket);
	if (dp->nic_remote == NULL)
		goto nomem;
	for (unsigned f = 0; f < nall * FE_NIC_FLOWS; f++)
		if (fe_nic_recovery(prm) == FE_NIC_SELECTIVE || prm->reorder_ns) {
			dp->nic_remote[f].held = rte_zmalloc_socket(
				"fe_nic", sizeof(struct rte_mbuf *) * w, 0, socket);
			if (dp->nic_remote[f].held == NULL)
				goto nomem;
		}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the NICs' flows from other boxes (%u ports)",
		 nall);
	return -ENOMEM;
}

void
fe_nic_remote_free(struct fe_dp *dp)
{
	for (unsigned f = 0; dp->nic_remote && f < (dp->nic_ids - dp->nports) * FE_NIC_FLOWS; f++)
		rte_free(dp->nic_remote[f].held);
	rte_free(dp->nic_remote);
	dp->nic_remote = NULL;
}

void
fe_nic_free(struct fe_nicport *n)
{
	if (n == NULL)
		return;
	for (unsigned f = 0; f < FE_NIC_FLOWS; f++) {
		rte_free(n->flows[f].win);
		rte_free(n->flows[f].held);
	}
	rte_free(n->pend);
	rte_free(n->rel);
	rte_free(n->gaps);
	rte_free(n->acks);
	rte_free(n->ready);
	rte_free(n->qps);
	rte_free(n->pslots);
	rte_free(n);
}

static inline void
activate(struct fe_nicport *n, struct fe_nic_flow *fl)
{
	if (!fl->active) {
		fl->active = 1;
		n->act[n->nact++] = (uint8_t)(fl - n->flows);
	}
	n->next_event = 0; /* it has work: the loop must not sleep past it */
}

/* Nothing of the flow is anywhere: queued, in flight, held, owed an ACK. */
static inline int
flow_idle(const struct fe_nic_flow *fl)
{
	return !fl->active && fl->pend_n == 0 && fl->una == fl->next_psn && fl->nheld == 0 &&
	       !fl->release && !fl->ack_due;
}

/* Slot fl takes flow k: a new generation, so that frames of the last one are told apart. */
static void
flow_init(struct fe_nicport *n, struct fe_nic_flow *fl, const struct fe_nic_key *k)
{
	struct fe_nic_copy *win = fl->win;
	struct rte_mbuf **held = fl->held;
	uint8_t gen = (uint8_t)(fl->gen + 1);

	memset(fl, 0, sizeof(*fl));
	fl->win = win;
	fl->held = held;
	fl->gen = gen;
	fl->key = *k;
	fl->used = 1;
	fe_dcqcn_init(&fl->cc, &n->cc);
	fl->ib = (struct fe_ibcc){.ccti = n->ib.min, .timer_next = UINT64_MAX};
	fe_nscc_init(&fl->nscc, &n->nscc, 0);
	fe_rccc_snd_init(&fl->rccc, &n->rccc);
	fl->rto_at = UINT64_MAX;
	fl->probe_at = UINT64_MAX;
}

/* The slot flow k has, among the few it may have; NULL if none. */
static struct fe_nic_flow *
flow_find(struct fe_nicport *n, const struct fe_nic_key *k)
{
	uint32_t h = fe_nic_key_hash(k);

	for (unsigned i = 0; i < 4; i++) {
		struct fe_nic_flow *fl = &n->flows[(h + i) & (FE_NIC_FLOWS - 1)];

		if (fl->used && memcmp(&fl->key, k, sizeof(*k)) == 0)
			return fl;
	}
	return NULL;
}

/*
 * The slot of flow k: its own among a few probes, else a free one, else an idle one taken
 * over; NULL if none (the frame passes as it is, counted).
 */
static struct fe_nic_flow *
flow_get(struct fe_nicport *n, struct fe_port *p, const struct fe_nic_key *k)
{
	uint32_t h = fe_nic_key_hash(k);
	struct fe_nic_flow *take = NULL;

	for (unsigned i = 0; i < 4; i++) {
		struct fe_nic_flow *fl = &n->flows[(h + i) & (FE_NIC_FLOWS - 1)];

		if (fl->used && memcmp(&fl->key, k, sizeof(*k)) == 0)
			return fl;
		if (!fl->used && (take == NULL || take->used))
			take = fl;
		else if (fl->used && take == NULL && flow_idle(fl))
			take = fl;
	}
	if (take != NULL) {
		flow_init(n, take, k);
		FE_CNT_ADD(p->st.nic_flows, 1);
	}
	return take;
}

void
fe_nic_rx(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, unsigned n, uint64_t now)
{
	struct fe_port *p = &dp->ports[in];
	struct fe_nicport *nic = p->nic;

	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct fe_nic_key k;
		struct fe_nic_flow *fl;
		uint32_t idx;

		const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

		*fe_nic_tag(dp, m) = FE_TAG_NONE;
		if (fe_nic_flow_key(f, rte_pktmbuf_data_len(m), &k) < 0) {
			dp->rg->up(dp, in, m, now); /* not a flow (ARP, IPv6): as it is */
			continue;
		}
		/* a queue pair has one peer: a group address, or one the switch does not know
		 * yet (flooded) or knows on this very port (filtered), passes as it is, unless
		 * its flow is under way (its frames keep their order) */
		fl = flow_find(nic, &k);
		if (fl == NULL && !(f[0] & 1)) {
			int out = fe_mac_lookup(dp->mac, f, now);

			fl = out >= 0 && out != (int)in ? flow_get(nic, p, &k) : NULL;
		}
		if (fl == NULL) {
			FE_CNT_ADD(p->st.nic_passed, 1);
			dp->rg->up(dp, in, m, now);
			continue;
		}
		idx = nic->free_head;
		nic->free_head = nic->pend[idx].next;
		nic->pend_free--;
		nic->pend[idx] = (struct fe_nic_pend){.m = m, .next = UINT32_MAX};
		if (fl->pend_n++ == 0)
			fl->pend_head = idx;
		else
			nic->pend[fl->pend_tail].next = idx;
		fl->pend_tail = idx;
		fl->pend_bytes += wire(m);
		nic->held++;
		activate(nic, fl);
	}
}

/* Mark PSNs [from, to) of fl to be sent again. */
static void
mark_again(struct fe_nicport *n, struct fe_nic_flow *fl, uint32_t from, uint32_t to)
{
	for (uint32_t s = from; s != to; s++) {
		struct fe_nic_copy *c = &fl->win[s & (n->window - 1)];

		if (c->m != NULL && !c->again && !c->sacked) {
			c->again = 1;
			fl->flight -= rte_pktmbuf_pkt_len(c->m);
			fl->again_bytes += wire(c->m);
		}
	}
	if ((int32_t)(from - fl->resend) < 0)
		fl->resend = from;
}

/*
 * Release the kept copies below psn (acknowledged) at now: the bytes they had in flight,
 * and in *rtt (rtt: may be NULL) the round trip of the last of them to `came` (the ACK's
 * own tick) if it was sent once and is just come (else 0): one acknowledged selectively
 * before came long ago, and its round trip would count the repair of the gap before it
 * as queueing (uet-htsim samples the frame that asked for the ACK).
 */
static uint64_t
ack_to(struct fe_nicport *n, struct fe_port *p, struct fe_nic_flow *fl, uint32_t psn, uint64_t now,
       uint64_t came, uint64_t *rtt)
{
	const struct fe_nic_copy *last = &fl->win[(psn - 1) & (n->window - 1)];
	uint64_t bytes = 0;

	if (rtt != NULL)
		*rtt = 0;
	if ((int32_t)(psn - fl->una) <= 0 || (int32_t)(psn - fl->next_psn) > 0)
		return 0;
	fl->retries = 0;
	if (rtt != NULL && last->sent != 0 && !last->sacked)
		*rtt = came - RTE_MIN(came, last->sent);
	for (; fl->una != psn; fl->una++) {
		struct fe_nic_copy *c = &fl->win[fl->una & (n->window - 1)];

		if (!c->again && !c->sacked) {
			bytes += rte_pktmbuf_pkt_len(c->m);
			fl->flight -= rte_pktmbuf_pkt_len(c->m);
		} else if (c->again) {
			fl->again_bytes -= wire(c->m);
		}
		c->sacked = 0;
		rte_pktmbuf_free(c->m);
		c->m = NULL;
		c->again = 0;
		n->inflight--;
	}
	FE_CNT_SET(p->st.nic_copies, n->inflight);
	if ((int32_t)(fl->resend - fl->una) < 0)
		fl->resend = fl->una;
	fl->rto_at = fl->una == fl->next_psn ? UINT64_MAX : now + n->timeout_ticks;
	return bytes;
}

/*
 * One more holder of m: every segment's count, as rte_pktmbuf_free() takes one from
 * each (a chained frame kept by its head alone would lose its tail at the first free).
 */
static inline void
hold(struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		rte_mbuf_refcnt_update(m, 1);
}

/* A kept copy, to be sent again: the same mbuf if nobody else holds it, else a copy. */
static struct rte_mbuf *
resend_copy(struct fe_dp *dp, const struct fe_nic_copy *c)
{
	struct rte_mbuf *m;

	if (rte_mbuf_refcnt_read(c->m) == 1) {
		hold(c->m);
		m = c->m;
	} else {
		m = rte_pktmbuf_copy(c->m, dp->pool, 0, UINT32_MAX);
		if (m == NULL) {
			FE_CNT_ADD(dp->sw.nombuf, 1);
			return NULL;
		}
	}
	/* as it was sent: marks the fabric or the receiver left are not the sender's */
	fe_nic_ecn_set(rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m), c->ecn);
	fe_filter_forget(m, dp->filter_dynoff);
	if (dp->meas != NULL)
		*fe_measure_stamp(dp->meas, m) = 0;
	return m;
}

static inline void
rate_counters(struct fe_port *p, struct fe_nic_flow *fl)
{
	double rate = fe_nic_flow_rate(p->nic, fl);
	uint64_t r = (uint64_t)rate;

	if (fl->rate_min == 0 || rate < fl->rate_min)
		fl->rate_min = rate;

	FE_CNT_SET(p->st.nic_rate_bps, r);
	FE_CNT_LEAST(p->st.nic_rate_min_bps, r);
}

/*
 * Model uec: the receiver holds PSN psn + 1 + i for every bit i of sack: those copies
 * are out of flight and not to be sent again (kept until the cumulative ACK), and, if
 * reps, their entropies came back (REPS), with CE if ece. The bytes newly so
 * acknowledged; in *rtt the round trip to `came` of the last of them sent once (else 0):
 * a frame just come.
 */
static uint64_t
sacked(struct fe_nicport *n, struct fe_nic_flow *fl, uint32_t psn, uint32_t sack, int ece, int reps,
       uint64_t now, uint64_t came, uint64_t *rtt)
{
	uint64_t bytes = 0;

	*rtt = 0;
	for (uint32_t k = 0; sack != 0; k++, sack >>= 1) {
		struct fe_nic_copy *c = &fl->win[(psn + 1 + k) & (n->window - 1)];

		if (!(sack & 1) || (int32_t)(psn + 1 + k - fl->next_psn) >= 0 || c->m == NULL ||
		    c->sacked)
			continue;
		c->sacked = 1;
		if (c->sent != 0)
			*rtt = came - RTE_MIN(came, c->sent);
		if (reps)
			fe_reps_feedback(&fl->reps, c->ev, !ece, now);
		if (!c->again) {
			bytes += rte_pktmbuf_pkt_len(c->m);
			fl->flight -= rte_pktmbuf_pkt_len(c->m);
		} else {
			fl->again_bytes -= wire(c->m);
		}
		c->again = 0;
	}
	return bytes;
}

void
fe_nic_reset_least(struct fe_port *p)
{
	const struct fe_nicport *n = p->nic;
	uint64_t rate = UINT64_MAX, cwnd = UINT64_MAX;

	for (unsigned k = 0; n != NULL && !n->host && k < FE_NIC_FLOWS; k++) {
		const struct fe_nic_flow *fl = &n->flows[k];

		if (!fl->used)
			continue;
		rate = RTE_MIN(rate, (uint64_t)fe_nic_flow_rate(n, fl));
		if (fe_nic_cc_nscc(n->cc_mode))
			cwnd = RTE_MIN(cwnd, (uint64_t)fl->nscc.cwnd);
	}
	/* no flow (or none with a window): from the gauges, the flow that changed last */
	FE_CNT_SET(p->st.nic_rate_min_bps, rate != UINT64_MAX ? rate : p->st.nic_rate_bps);
	FE_CNT_SET(p->st.nic_cwnd_min_bytes, cwnd != UINT64_MAX ? cwnd : p->st.nic_cwnd_bytes);
}

/* cc nscc: the window of the flow that last changed, and the least any reached. */
static inline void
nscc_counters(struct fe_port *p, const struct fe_nic_flow *fl)
{
	uint64_t w = (uint64_t)fl->nscc.cwnd;

	FE_CNT_SET(p->st.nic_cwnd_bytes, w);
	FE_CNT_LEAST(p->st.nic_cwnd_min_bytes, w);
}

/*
 * The flow gave up: its receiver does too. What a selective receiver held ahead of the
 * gap will never be completed: discarded, counted as out of sequence at its port, and
 * the receiver expects what the sender sends next.
 */
static void
abandon_held(struct fe_dp *dp, struct fe_nicport *sn, struct fe_nic_flow *fl)
{
	for (uint32_t i = 0; fl->nheld && i < sn->window; i++)
		if (fl->held[i] != NULL) {
			rte_pktmbuf_free(fl->held[i]);
			fl->held[i] = NULL;
			fl->nheld--;
			sn->held--;
			FE_CNT_ADD(dp->ports[fl->rxq].st.nic_oos_discards, 1);
		}
	fl->expect = fl->next_psn;
	fl->trimmed = 0;
	fl->nak_sent = 0;
	fl->gap_at = 0;
}

/* A flow's receiving side from PSN 0, as a new flow's: what it expects, the trims it
 * saw, its ACK policy (ack-bytes), and RCCC's credit (cc rccc). Where its sender gave up
 * (the same slot here), or a new generation came from another box (remote_flow()). */
static inline void
rcv_anew(struct fe_nic_flow *fl)
{
	fl->expect = 0;
	fl->trimmed = 0;
	fl->ack_req = fl->echo = 0;
	fl->unacked = 0;
	fl->credit = (struct fe_rccc_rcv){0};
}

/* cc rccc: flow fl has no credit left; it waits for a grant (counted). */
static inline int
credit_wait(struct fe_port *p, const struct fe_nic_flow *fl)
{
	if (!fe_nic_cc_rccc(p->nic->cc_mode) || fe_rccc_may_send(&fl->rccc))
		return 0;
	FE_CNT_ADD(p->st.nic_credit_blocked, 1);
	return 1;
}

static struct rte_mbuf *ctl_make(struct fe_dp *dp, const uint8_t *hdr, enum fe_nic_ctl kind,
				 unsigned to, uint32_t qpn, uint32_t psn, uint64_t sack);
static void ctl_up(struct fe_dp *dp, unsigned at, struct rte_mbuf *m, enum fe_nic_ctl kind,
		   uint64_t now);

/*
 * Model uec, cc nscc: SLEEK's loss probes, as uet-htsim's sender runs them (UecSrc::
 * processAck, sendProbe, runSleek; FE_NIC_PROBE_FIRST and _RETRY, fe_nic.h). Every
 * ACK re-arms the timer while anything is unacknowledged or waits to be sent: a base RTT
 * and the target delay on when all was sent, 3 base RTTs while some waits; when it
 * fires a probe goes (a control frame, on the entropy the next frame would take), and
 * the timer again 5 base RTTs on. The receiver answers at once with its SACK state; an answer whose
 * delay is below the target finds the network empty: what is unacknowledged is lost, not queued,
 * and is sent again (sleek_resend()), a tail loss costing a round trip or so instead of the
 * timeout.
 */
static inline void
probe_arm(struct fe_nicport *n, struct fe_nic_flow *fl, uint64_t now)
{
	if (fl->una == fl->next_psn && fl->pend_n == 0) {
		fl->probe_at = UINT64_MAX;
		return;
	}
	fl->probe_at = now + (fl->pend_n ? FE_NIC_PROBE_FIRST * fl->nscc.base_rtt
					 : fl->nscc.base_rtt + n->nscc.target);
}

/* Flow fl of port `in` sends a probe (its timer fired): toward its receiver, the way
 * the flow's data goes, headed as its oldest frame unacknowledged or waiting. */
static void
send_probe(struct fe_dp *dp, unsigned in, struct fe_nic_flow *fl, uint64_t now)
{
	struct fe_nicport *n = dp->ports[in].nic;
	const struct rte_mbuf *d = fl->una != fl->next_psn ? fl->win[fl->una & (n->window - 1)].m
				   : fl->pend_n		   ? n->pend[fl->pend_head].m
							   : NULL;
	uint32_t qpn = (uint32_t)(fl - n->flows) | (uint32_t)fl->gen << 8;
	struct rte_mbuf *m;

	fl->probe_at = d ? now + FE_NIC_PROBE_RETRY * fl->nscc.base_rtt : UINT64_MAX;
	if (d == NULL)
		return;
	fl->probe_n = (uint8_t)((fl->probe_n + 1) & 0x7f);
	m = ctl_make(dp, rte_pktmbuf_mtod(d, const uint8_t *), FE_NIC_PROBE, in, qpn, fl->probe_n,
		     0);
	if (m == NULL)
		return;
	/* REPS: the entropy the next frame would take, left to it: a probe's answer says
	 * nothing of the data's fate on that path (a loss may spare the small frames) */
	*fe_nic_tag(dp, m) |= (uint64_t)fe_reps_peek(&fl->reps) << 56;
	fl->probe_sent = now ? now : 1;
	ctl_up(dp, in, m, FE_NIC_PROBE, now);
}

/*
 * The answer to flow fl's probe number `probe` reached its sender at tick `came` (its SACK
 * taken already): the last probe's, with a delay below NSCC's target, the flow enters loss
 * recovery up to what it has sent. An older probe's answer says nothing of the delay.
 */
static void
probe_answered(struct fe_port *p, struct fe_nic_flow *fl, uint32_t probe, uint64_t came)
{
	struct fe_nicport *n = p->nic;
	uint64_t rtt, delay;

	if (fl->probe_sent == 0 || probe != fl->probe_n)
		return;
	rtt = came - RTE_MIN(came, fl->probe_sent);
	delay = rtt > fl->nscc.base_rtt ? rtt - fl->nscc.base_rtt : 0;
	fl->probe_sent = 0;
	if (delay >= n->nscc.target || fl->una == fl->next_psn)
		return; /* queued, not lost (or nothing left) */
	fl->recovering = 1;
	fl->recover_to = fl->next_psn;
	fl->rtx_next = fl->una;
	FE_CNT_ADD(p->st.nic_probe_recoveries, 1);
}

/*
 * Loss recovery (runSleek's): every frame from the cumulative ACK up to the recovery
 * point, within a congestion window of it, not acknowledged selectively, is sent again,
 * once; recovery ends when the cumulative ACK reaches the point.
 */
static void
sleek_resend(struct fe_nicport *n, struct fe_nic_flow *fl)
{
	uint32_t cwnd = (uint32_t)(fl->nscc.cwnd / (double)(n->nscc.mss ? n->nscc.mss : 1));
	uint32_t lim = fl->una + RTE_MAX(cwnd, 1u), from;

	if (!fl->recovering)
		return;
	if ((int32_t)(fl->una - fl->recover_to) >= 0) {
		fl->recovering = 0;
		return;
	}
	if ((int32_t)(lim - fl->recover_to) > 0)
		lim = fl->recover_to;
	from = (int32_t)(fl->rtx_next - fl->una) > 0 ? fl->rtx_next : fl->una;
	if ((int32_t)(lim - from) <= 0)
		return;
	mark_again(n, fl, from, lim);
	fl->rtx_next = lim;
}

/* One flow of port `in`: resends first, then new frames, as pacing, the window and the
 * credit let; its timers (the timeout, a probe's) fire up to seen (fe_nic_service()). */
static unsigned
service_flow(struct fe_dp *dp, unsigned in, struct fe_nic_flow *fl, uint64_t now, uint64_t seen,
	     uint32_t *budget, uint64_t drain, uint64_t *next)
{
	struct fe_port *p = &dp->ports[in];
	struct fe_nicport *n = p->nic;
	const uint32_t mask = n->window - 1;
	unsigned work = 0;
	int waits = 0; /* for a grant: its arrival wakes the flow (consume_ctl) */

	if (n->cc_mode == FE_CC_DCQCN && fl->cc.limited)
		fe_dcqcn_advance(&fl->cc, &n->cc, now);
	else if (n->cc_mode == FE_CC_IB && fl->ib.ccti)
		fe_ibcc_advance(&fl->ib, &n->ib, now);
	if (fl->una != fl->next_psn && seen >= fl->rto_at) {
		FE_CNT_ADD(p->st.nic_timeouts, 1);
		if (n->prm.model == FE_NIC_UEC) /* REPS: the paths it kept, for a while */
			FE_CNT_ADD(p->st.nic_reps_freezes,
				   fe_reps_timeout(&fl->reps, n->reps_freeze_ticks, now));
		if (++fl->retries > FE_NIC_RETRIES) {
			/* as an RC queue pair after retry_cnt timeouts with no progress: it
			 * gives up; what it kept is let go, counted, and the host's own
			 * transport recovers (or not) */
			FE_CNT_ADD(p->st.nic_abandoned, fl->next_psn - fl->una);
			fl->retries = 0;
			ack_to(n, p, fl, fl->next_psn, now, now, NULL);
			abandon_held(dp, n, fl);
			/* and starts anew: a new generation from PSN 0, which a receiver on
			 * another box (its state its own) takes as a new flow */
			fl->gen++;
			fl->next_psn = fl->una = fl->resend = 0;
			/* RCCC both sides from nothing, as a new flow's: the receiver's side, on
			 * another box, starts anew with the generation (remote_flow()) */
			fe_rccc_snd_init(&fl->rccc, &n->rccc);
			rcv_anew(fl);
			fl->recovering = 0;
			fl->probe_at = UINT64_MAX;
			fl->probe_sent = 0;
		} else {
			/* the sender has lost track: every unacknowledged frame again, whatever
			 * the recovery (a selective receiver discards what it holds already) */
			const struct fe_nic_copy *c = &fl->win[fl->una & mask];

			/* NSCC: the frame whose timer fired comes off the window, unless SLEEK
			 * is recovering a loss (uet-htsim: rtxTimerExpired) */
			if (fe_nic_cc_nscc(n->cc_mode) && !fl->recovering && c->m != NULL) {
				fe_nscc_timeout(&fl->nscc, &n->nscc, rte_pktmbuf_pkt_len(c->m));
				nscc_counters(p, fl);
			}
			mark_again(n, fl, fl->una, fl->next_psn);
			fl->rto_at = now + n->timeout_ticks;
			if (fe_nic_cc_rccc(n->cc_mode)) /* one frame at least: it asks again */
				fe_rccc_timeout(&fl->rccc);
		}
	}
	if (n->probes && seen >= fl->probe_at)
		send_probe(dp, in, fl, now);
	while (*budget > 0 && fl->next_t <= now) {
		struct rte_mbuf *m = NULL;
		uint32_t psn, len;
		uint64_t ect; /* FE_TAG_ECT if the host sent it Not-ECT */
		int ar = 0;   /* a resend: its ACK asked for at once (ack-bytes) */

		while (fl->resend != fl->next_psn && !fl->win[fl->resend & mask].again)
			fl->resend++;
		if (fl->resend != fl->next_psn) {
			struct fe_nic_copy *c = &fl->win[fl->resend & mask];

			if (fe_nic_cc_nscc(n->cc_mode) &&
			    !fe_nscc_may_send(&fl->nscc, fl->flight, rte_pktmbuf_pkt_len(c->m))) {
				FE_CNT_ADD(p->st.nic_window_full, 1);
				break;
			}
			if ((waits = credit_wait(p, fl)))
				break;
			m = resend_copy(dp, c);
			if (m == NULL)
				break;
			ect = c->not_ect ? FE_TAG_ECT : 0;
			c->again = 0;
			fl->again_bytes -= wire(c->m);
			c->sent = 0; /* sent twice: its ACK's round trip is no sample */
			fl->flight += rte_pktmbuf_pkt_len(m);
			psn = fl->resend++;
			ar = 1; /* every resend asks for its ACK */
			FE_CNT_ADD(p->st.nic_resent_pkts, 1);
			FE_CNT_ADD(p->st.nic_resent_bytes, rte_pktmbuf_pkt_len(m));
		} else if (fl->pend_n && fl->next_psn - fl->una < n->window) {
			struct fe_nic_pend *e = &n->pend[fl->pend_head];
			struct fe_nic_copy *c;
			int ecn;

			uint32_t idx = fl->pend_head;

			if (fe_nic_cc_nscc(n->cc_mode) &&
			    !fe_nscc_may_send(&fl->nscc, fl->flight, rte_pktmbuf_pkt_len(e->m))) {
				FE_CNT_ADD(p->st.nic_window_full, 1);
				break;
			}
			if ((waits = credit_wait(p, fl)))
				break;
			m = e->m;
			fl->pend_head = e->next;
			e->next = n->free_head; /* the slot back on the free list */
			n->free_head = idx;
			n->pend_free++;
			fl->pend_n--;
			fl->pend_bytes -= wire(m);
			n->held--;
			psn = fl->next_psn++;
			fl->resend = fl->next_psn;
			c = &fl->win[psn & mask];
			ecn = fe_nic_ecn_get(rte_pktmbuf_mtod(m, const uint8_t *),
					     rte_pktmbuf_data_len(m));
			/* ECN-capable whatever the host's TCP asked for, as an RDMA or UET NIC's
			 * packets are: the receiving NIC gives it back Not-ECT */
			ect = ecn == 0 ? FE_TAG_ECT : 0;
			if (ect)
				ecn = fe_nic_ecn_set(rte_pktmbuf_mtod(m, uint8_t *),
						     rte_pktmbuf_data_len(m), 2) == 0
					      ? 2
					      : 0;
			*c = (struct fe_nic_copy){.m = m,
						  .ecn = (uint8_t)(ecn < 0 ? 0 : ecn),
						  .not_ect = ect != 0,
						  .sent = now ? now : 1};
			fl->flight += rte_pktmbuf_pkt_len(m);
			hold(m);
			n->inflight++;
			FE_CNT_SET(p->st.nic_copies, n->inflight);
			FE_CNT_MAX(p->st.nic_copies_peak, n->inflight);
			if (fl->rto_at == UINT64_MAX)
				fl->rto_at = now + n->timeout_ticks;
			/* SLEEK: an ACK arms the probe timer; frames sent after the flow was idle
			 * arm it too (with ack-bytes no ACK may come of them) */
			if (n->probes && fl->probe_at == UINT64_MAX)
				probe_arm(n, fl, now);
		} else {
			if (fl->pend_n)
				FE_CNT_ADD(p->st.nic_window_full, 1);
			break;
		}
		len = rte_pktmbuf_pkt_len(m);
		if (fe_nic_cc_rccc(n->cc_mode)) { /* spent; and it carries what the flow wants */
			fe_rccc_spend(&fl->rccc, fe_wire_bytes(len));
			*fe_nic_pull(dp, m) = fe_rccc_target(
				&fl->rccc, &n->rccc, fl->pend_bytes + fl->again_bytes, n->nact);
		}
		*fe_nic_tag(dp, m) =
			fe_nic_tag_make(FE_TAG_DATA, in, (unsigned)(fl - n->flows), fl->gen, psn) |
			ect;
		/* an ACK asked for at once (ack-bytes): a resend, the last queued, NSCC's
		 * window (for the next frame, a full one at least: a host's frame can be
		 * larger than NSCC's mss), the credit or the NIC's window spent (uet-htsim's
		 * sender, UecSrc::sendNewPacket; its window of frames is this NIC's own) */
		if (unlikely(n->prm.ack_bytes) &&
		    (ar || fl->pend_n == 0 || fl->next_psn - fl->una >= n->window ||
		     (fe_nic_cc_nscc(n->cc_mode) &&
		      !fe_nscc_may_send(&fl->nscc, fl->flight,
					RTE_MAX(n->nscc.mss,
						rte_pktmbuf_pkt_len(n->pend[fl->pend_head].m)))) ||
		     (fe_nic_cc_rccc(n->cc_mode) && !fe_rccc_may_send(&fl->rccc))))
			*fe_nic_tag(dp, m) |= FE_TAG_AR;
		if (n->prm.model == FE_NIC_UEC) { /* REPS: every sending its own entropy */
			uint8_t ev = fe_reps_next(&fl->reps);

			fl->win[psn & mask].ev = ev;
			*fe_nic_tag(dp, m) |= (uint64_t)ev << 56;
		}
		dp->rg->up(dp, in, m, now);
		if (n->cc_mode == FE_CC_DCQCN) {
			fe_dcqcn_sent(&fl->cc, &n->cc, len, now);
			fl->next_t = RTE_MAX(fl->next_t, now) + fe_dcqcn_gap(&fl->cc, len, dp->hz);
		} else if (n->cc_mode == FE_CC_IB) {
			fl->next_t = RTE_MAX(fl->next_t, now) +
				     fe_ibcc_gap(&fl->ib, &n->ib, len, n->line_bps, dp->hz);
		}
		(*budget)--;
		work++;
	}
	if (!waits &&
	    (fl->resend != fl->next_psn || (fl->pend_n && fl->next_psn - fl->una < n->window)))
		*next = RTE_MIN(*next, *budget ? fl->next_t : drain);
	if (fl->una != fl->next_psn)
		*next = RTE_MIN(*next, fl->rto_at);
	if (n->probes)
		*next = RTE_MIN(*next, fl->probe_at);
	if ((n->cc_mode == FE_CC_DCQCN && fl->cc.limited) ||
	    (n->cc_mode == FE_CC_IB && fl->ib.becns))
		rate_counters(p, fl);
	return work;
}

static unsigned credit_grants(struct fe_dp *dp, unsigned q, uint64_t now);

unsigned
fe_nic_service(struct fe_dp *dp, uint64_t now)
{
	/* a timer fires once a whole pass has run past it: what was due before it (an ACK
	 * the loop, away, has not yet carried) reaches the NIC first, and stops it */
	const uint64_t seen = dp->nic_seen;
	unsigned work = 0;

	dp->nic_seen = now;

	for (unsigned i = 0; i < dp->nports; i++) {
		struct fe_port *p = &dp->ports[i];
		struct fe_nicport *n = p->nic;
		uint64_t next = UINT64_MAX;
		uint32_t budget, k = 0, start;
		uint64_t drain, upto;

		if (n == NULL || n->host)
			continue;
		/* the NIC sends as its link takes: what does not fit waits in the NIC (a NIC
		 * does not drop its own frames), room kept for its CNPs, ACKs and NAKs; and it
		 * keeps a few frames queued on the link, no more (FE_NIC_TXQ_BYTES) */
		budget = fe_dp_up_room(dp, p, now, UINT32_MAX);
		if (budget == 0 && p->up.l.q_pkts == 0) /* a buffer below a full frame */
			budget = 1;
		budget -= RTE_MIN(budget / 2, 4u * FE_BURST);
		budget = p->up.l.q_bytes >= FE_NIC_TXQ_BYTES
				 ? 0
				 : RTE_MIN(budget, (uint32_t)((FE_NIC_TXQ_BYTES - p->up.l.q_bytes +
							       RTE_ETHER_MAX_LEN - 1) /
							      RTE_ETHER_MAX_LEN));
		/* with no budget left, the NIC goes on when the link's head frame is out (a
		 * gated link's gate wakes the loop itself) */
		drain = p->up.l.svc != p->up.l.sched
				? p->up.l.slots[p->up.l.svc & p->up.l.mask].tx_end
				: UINT64_MAX;
		/* the flows take turns at being first: none starves the others of the link; their
		 * timers up to the last pass, and before a frame due that is still unread */
		start = n->nact ? n->rr++ % n->nact : 0;
		upto = RTE_MIN(seen, unread(p, now));
		for (uint32_t j = 0; j < n->nact; j++)
			work += service_flow(dp, i, &n->flows[n->act[(start + j) % n->nact]], now,
					     upto, &budget, drain, &next);
		for (uint32_t a = 0; a < n->nact; a++) {
			struct fe_nic_flow *fl = &n->flows[n->act[a]];

			if (fl->pend_n || fl->una != fl->next_psn)
				n->act[k++] = n->act[a];
			else
				fl->active = 0;
		}
		n->nact = k;
		/* a trimmed header's arrival (fe_nic_trimmed()); a frame across the PCIe */
		next = RTE_MIN(next, fe_express_next(&n->trimq));
		next = RTE_MIN(next, ready_next(n, now));
		if (fe_nic_cc_rccc(n->cc_mode)) { /* the receiving side's grants */
			work += credit_grants(dp, i, now);
			next = RTE_MIN(next, fe_rccc_next(&n->pacer));
		}
		/* the NIC's wake-up, written here (activate() only zeroes it): the NICs run last
		 * in a pass (fe_dp.c), after all that the pass put in the ready ring, the
		 * trimmed headers' queue or a flow's timers */
		n->next_event = next;
	}
	return work;
}

/*
 * The NIC of port `at` sends one of its frames back toward sender port `to`; sack: model
 * uec's selective acknowledgement, its bitmap in the low 32 bits and how far past psn + 1
 * it starts in the high ones (fe_nic_ctl_sack_set()).
 */
static struct rte_mbuf *
ctl_make(struct fe_dp *dp, const uint8_t *hdr, enum fe_nic_ctl kind, unsigned to, uint32_t qpn,
	 uint32_t psn, uint64_t sack)
{
	/* a pool of their own: kept copies and queued frames cannot starve the ACKs that
	 * free them */
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp->nic_pool);
	uint8_t *f = m ? (uint8_t *)rte_pktmbuf_append(m, FE_NIC_CTL_LEN) : NULL;

	if (f == NULL) {
		rte_pktmbuf_free(m);
		FE_CNT_ADD(dp->sw.nombuf, 1);
		return NULL;
	}
	fe_nic_ctl_frame(f, hdr, kind, qpn, psn & FE_PSN_MASK);
	if (sack)
		fe_nic_ctl_sack_set(f, (uint32_t)sack, (uint32_t)(sack >> 32));
	*fe_nic_tag(dp, m) = fe_nic_tag_make(kind == FE_NIC_PROBE ? FE_TAG_PROBE : FE_TAG_CTL, to,
					     qpn & 0xff, qpn >> 8, psn);
	fe_filter_forget(m, dp->filter_dynoff);
	if (dp->meas != NULL)
		*fe_measure_stamp(dp->meas, m) = 0;
	return m;
}

/* Control frame m (ctl_make()) of kind goes into the fabric at port `at`, counted. */
static void
ctl_up(struct fe_dp *dp, unsigned at, struct rte_mbuf *m, enum fe_nic_ctl kind, uint64_t now)
{
	struct fe_port *p = &dp->ports[at];

	if (kind == FE_NIC_PROBE)
		FE_CNT_ADD(p->st.nic_probes_sent, 1);
	else if (kind == FE_NIC_CNP)
		FE_CNT_ADD(p->st.nic_cnp_sent, 1);
	else if (kind == FE_NIC_TRIM_NAK)
		FE_CNT_ADD(p->st.nic_trim_naks_sent, 1);
	else if (kind == FE_NIC_NAK)
		FE_CNT_ADD(p->st.nic_naks_sent, 1);
	else
		FE_CNT_ADD(p->st.nic_acks_sent, 1); /* a grant among them: an ACK frame */
	if (kind == FE_NIC_CREDIT)
		FE_CNT_ADD(p->st.nic_credit_sent, 1);
	dp->rg->up(dp, at, m, now);
}

static void
send_ctl(struct fe_dp *dp, unsigned at, const uint8_t *hdr, enum fe_nic_ctl kind, unsigned to,
	 uint32_t qpn, uint32_t psn, uint64_t sack, uint64_t now)
{
	struct rte_mbuf *m = ctl_make(dp, hdr, kind, to, qpn, psn, sack);

	if (m != NULL)
		ctl_up(dp, at, m, kind, now);
}

static void probe_answer(struct fe_dp *dp, unsigned q, struct rte_mbuf *m, uint64_t tag,
			 uint32_t probe, uint64_t now);

/*
 * A CNP, ACK or NAK due at `due` reached the sender's port q (taken at arrived()); or a
 * probe, its receiver's, answered at ctl_at() (the pass runs at now).
 */
static void
consume_ctl(struct fe_dp *dp, unsigned q, struct rte_mbuf *m, uint64_t tag, uint64_t due,
	    uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_nicport *n = p->nic;
	const uint64_t at = arrived(dp, n, due);
	struct fe_nic_flow *fl;
	enum fe_nic_ctl kind;
	uint32_t qpn, psn, sack, sack_off, probe;
	int last;
	int ok = fe_nic_ctl_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
				  &kind, &qpn, &psn) == 0;

	if (ok && kind == FE_NIC_PROBE && (tag & FE_TAG_CUT)) { /* trimmed: not answered */
		FE_CNT_ADD(p->st.nic_probes_recv, 1);
		FE_CNT_ADD(p->st.nic_probes_cut, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (ok && kind == FE_NIC_PROBE) { /* at the receiver: the data's way */
		probe_answer(dp, q, m, tag, psn, ctl_at(dp, n, due, now));
		return;
	}
	/* the QPN names the flow's slot and generation (a flow since gone: stray too) */
	if (FE_TAG_PORT(tag) != q || !ok || (qpn & 0xff) >= FE_NIC_FLOWS ||
	    n->flows[qpn & 0xff].gen != (qpn >> 8 & 0xff)) {
		FE_CNT_ADD(p->st.nic_stray, 1); /* a flooded copy, at a port it was not for */
		rte_pktmbuf_free(m);
		return;
	}
	sack = fe_nic_ctl_sack(rte_pktmbuf_mtod(m, const uint8_t *), &sack_off);
	probe = fe_nic_ctl_probe(rte_pktmbuf_mtod(m, const uint8_t *));
	last = fe_nic_ctl_trim_last(rte_pktmbuf_mtod(m, const uint8_t *));
	rte_pktmbuf_free(m);
	fl = &n->flows[qpn & 0xff];
	if (fe_nic_cc_rccc(n->cc_mode) && kind != FE_NIC_CNP) /* the receiver has spoken */
		fe_rccc_feedback(&fl->rccc);
	switch (kind) {
	case FE_NIC_CREDIT: /* acknowledges nothing: its SACK field is the cumulative pull */
		FE_CNT_ADD(p->st.nic_acks_recv, 1);
		FE_CNT_ADD(p->st.nic_credit_recv, 1);
		if (fe_nic_cc_rccc(n->cc_mode) && fe_rccc_credit(&fl->rccc, &n->rccc, sack) &&
		    (fl->pend_n || fl->resend != fl->next_psn))
			activate(n, fl);
		break;
	case FE_NIC_CNP:
		FE_CNT_ADD(p->st.nic_cnp_recv, 1);
		if (n->cc_mode == FE_CC_DCQCN || n->cc_mode == FE_CC_IB) { /* under IB CC, a BECN */
			if (n->cc_mode == FE_CC_DCQCN)
				fe_dcqcn_cnp(&fl->cc, &n->cc, at);
			else
				fe_ibcc_becn(&fl->ib, &n->ib, at);
			rate_counters(p, fl);
			activate(n, fl);
		}
		break;
	case FE_NIC_ACK:
	case FE_NIC_ACK_ECE:
	case FE_NIC_PROBE_ACK: { /* a probe's answer: an ACK, its round trip the probe's */
		uint64_t rtt, acked;

		FE_CNT_ADD(p->st.nic_acks_recv, 1);
		psn = psn_full(psn, fl->una);
		/* REPS: the one entropy it echoes (ack-bytes: the asking frame's) came back,
		 * unmarked or not; else each frame it acknowledges came back by its own */
		if (tag & FE_TAG_AR)
			fe_reps_feedback(&fl->reps, (uint8_t)(tag >> 56), kind != FE_NIC_ACK_ECE,
					 at);
		else if (n->prm.model == FE_NIC_UEC && (int32_t)(psn - fl->una) > 0 &&
			 (int32_t)(psn - fl->next_psn) <= 0)
			for (uint32_t s = fl->una; s != psn; s++)
				if (!fl->win[s & (n->window - 1)].sacked)
					fe_reps_feedback(&fl->reps, fl->win[s & (n->window - 1)].ev,
							 kind != FE_NIC_ACK_ECE, at);
		acked = ack_to(n, p, fl, psn, at, due, &rtt);
		if (sack) { /* the frames it holds past a gap: one just come, if no other is */
			uint64_t srtt;

			acked += sacked(n, fl, psn + sack_off, sack, kind == FE_NIC_ACK_ECE,
					!(tag & FE_TAG_AR), at, due, &srtt);
			if (rtt == 0)
				rtt = srtt;
		}
		if (kind == FE_NIC_PROBE_ACK)
			rtt = 0; /* not the acknowledged frame's */
		if (fe_nic_cc_nscc(n->cc_mode)) {
			fe_nscc_ack(&fl->nscc, &n->nscc, acked, rtt, kind == FE_NIC_ACK_ECE,
				    fl->flight, at);
			nscc_counters(p, fl);
		}
		if (n->probes) { /* SLEEK: the probe timer again, a probe's verdict, resends */
			probe_arm(n, fl, at);
			if (kind == FE_NIC_PROBE_ACK)
				probe_answered(p, fl, probe, due);
			sleek_resend(n, fl);
		}
		if (fl->pend_n || fl->resend != fl->next_psn) /* a window reopened */
			activate(n, fl);
		break;
	}
	case FE_NIC_NAK:
		FE_CNT_ADD(p->st.nic_naks_recv, 1);
		psn = psn_full(psn, fl->una);
		ack_to(n, p, fl, psn, at, due, NULL);
		if ((int32_t)(psn - fl->una) >= 0 && (int32_t)(psn - fl->next_psn) < 0) {
			mark_again(n, fl, psn,
				   fe_nic_recovery(&n->prm) == FE_NIC_GBN ? fl->next_psn : psn + 1);
			fl->rto_at = at + n->timeout_ticks;
			activate(n, fl);
		}
		break;
	case FE_NIC_PROBE: /* answered above, at the receiver */
		break;
	case FE_NIC_TRIM_NAK: /* that frame only: nothing before it is acknowledged */
		FE_CNT_ADD(p->st.nic_trim_naks_recv, 1);
		if (last)
			FE_CNT_ADD(p->st.nic_trim_naks_last_hop, 1);
		psn = psn_full(psn, fl->una);
		if ((int32_t)(psn - fl->una) >= 0 && (int32_t)(psn - fl->next_psn) < 0) {
			const struct fe_nic_copy *c = &fl->win[psn & (n->window - 1)];
			uint64_t len = c->m != NULL && !c->again ? rte_pktmbuf_pkt_len(c->m) : 0;

			/* REPS: trimmed at the last hop, its path was not where the congestion was
			 * (uet-htsim: PATH_GOOD), and its entropy is kept; else let go */
			if (c->m != NULL)
				fe_reps_feedback(&fl->reps, c->ev, last, at);
			mark_again(n, fl, psn, psn + 1);
			/* with RCCC on too, a trim at the last hop (incast) is the receiver's
			 * credit's to answer: the window is not cut (uet-htsim, uec.cpp:
			 * updateCwndOnNack_NSCC, !_receiver_based_cc || !last_hop) */
			if (fe_nic_cc_nscc(n->cc_mode) && len) {
				fe_nscc_nack(&fl->nscc, &n->nscc, len, fl->flight,
					     last && fe_nic_cc_rccc(n->cc_mode), at);
				nscc_counters(p, fl);
			}
			activate(n, fl);
		}
		break;
	}
}

static inline void
stage(struct fe_port *p, struct rte_mbuf *m, uint64_t due)
{
	p->txq_due[p->txq_n] = due;
	p->txq[p->txq_n++] = m;
	p->txq_bytes += rte_pktmbuf_pkt_len(m);
}

/*
 * To the host, in order, at tick due: straight to the TX staging while nothing waits in
 * the ready ring (frames released from the selective-repeat hold, or still crossing the
 * host's PCIe), else behind what waits; wait: due is still to come (the PCIe's), the
 * frame waits for it in the ring. 0, or -1 if the ring is full.
 */
static inline int
to_host(struct fe_port *p, struct rte_mbuf *m, uint64_t due, int wait)
{
	struct fe_nicport *n = p->nic;

	if (n->rhead == n->rtail && p->txq_n < FE_BURST && !wait) {
		stage(p, m, due);
		return 0;
	}
	if (n->rtail - n->rhead == n->nready)
		return -1;
	*ready_slot(n, n->rtail) = (struct fe_nic_ready){.m = m, .due = due};
	n->rtail++;
	return 0;
}

static inline uint32_t
flow_id(unsigned port, unsigned slot)
{
	return (uint32_t)port << 8 | slot;
}

/* Flow id (its sender's port as numbered here, its slot): a sender here, or elsewhere. */
static inline struct fe_nic_flow *
flow_of(struct fe_dp *dp, uint32_t id)
{
	if ((id >> 8) < dp->nports)
		return &dp->ports[id >> 8].nic->flows[id & 0xff];
	return &dp->nic_remote[((id >> 8) - dp->nports) * FE_NIC_FLOWS + (id & 0xff)];
}

/* The NIC whose count holds what flow id's receiver at port q holds for order: the
 * sender's here (as it lets go of them: abandon_held()), else the receiver's. */
static inline struct fe_nicport *
holder(struct fe_dp *dp, unsigned q, uint32_t id)
{
	return (id >> 8) < dp->nports ? dp->ports[id >> 8].nic : dp->ports[q].nic;
}

static inline uint32_t
qpn_of(const struct fe_nic_flow *fl, uint32_t id)
{
	return (id & 0xff) | (uint32_t)fl->gen << 8;
}

/* A pull rate x 2^16, per mille. */
static inline uint64_t
permille(uint32_t rate16)
{
	return ((uint64_t)rate16 * 1000 + 32768) >> 16;
}

/* cc rccc: the grants port q's pacer owes by now, each a frame back to its sender. */
static unsigned
credit_grants(struct fe_dp *dp, unsigned q, uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_nicport *n = p->nic;
	struct fe_rccc_rcv *r;
	uint32_t id, bytes;
	unsigned work = 0;

	uint64_t updates = n->pacer.updates, cuts = n->pacer.cuts;

	/* the pull rate, when it is due (on an oversubscribed fabric, fe_rccc.h) */
	fe_rccc_occ_update(&n->pacer, &n->rccc_rx, now);
	if (n->pacer.updates != updates) { /* the rate now, and the least, per mille */
		uint64_t pm = permille(n->pacer.rate16);

		FE_CNT_ADD(p->st.nic_pull_updates, n->pacer.updates - updates);
		FE_CNT_ADD(p->st.nic_pull_cuts, n->pacer.cuts - cuts);
		FE_CNT_SET(p->st.nic_pull_permille, pm);
		FE_CNT_LEAST(p->st.nic_pull_min_permille, pm);
	} else if (unlikely(n->rccc_rx.occ_ticks == 0 && p->st.nic_pull_permille != 0 &&
			    p->st.nic_pull_permille != 1000)) {
		FE_CNT_SET(p->st.nic_pull_permille, 1000); /* turned off: the full rate */
	}
	/* the pull rate its host's PCIe allows now (modelled or not for the whole run: the
	 * NIC's parameters take no run-time change) */
	if (n->pcie_cfg.fp_per_byte != 0) {
		fe_rccc_pcie(
			&n->pacer, &n->rccc_rx,
			fe_pcie_rate16(&n->pcie_cfg, fe_pcie_backlog(&n->pcie, &n->pcie_cfg, now)));
		FE_CNT_LEAST(p->st.nic_pcie_min_permille, permille(n->pacer.pcie16));
	}
	while (fe_rccc_grant(&n->pacer, &n->rccc_rx, now, &id, &r, &bytes)) {
		struct fe_nic_flow *fl = flow_of(dp, id);

		send_ctl(dp, q, fl->hdr, FE_NIC_CREDIT, id >> 8, qpn_of(fl, id), fl->expect,
			 r->latest, now);
		FE_CNT_ADD(p->st.nic_credit_bytes, bytes);
		work++;
	}
	return work;
}

/* Flow id owes the sender an ACK, sent once the batch is over (acks_flush). */
static inline void
ack_owed(struct fe_nicport *rn, struct fe_nic_flow *fl, uint32_t id)
{
	if (!fl->ack_due) {
		fl->ack_due = 1;
		rn->acks[rn->nacks++] = id;
	}
}

/*
 * A data frame of flow id came, len bytes (tag its tag, ce: marked; dup: a duplicate;
 * in_order: the one expected, delivered). Without ack-bytes every batch of frames is
 * acknowledged; with it, as uet-htsim's sink (UecSink::processData): an ACK once
 * ack-bytes have come since the last, and at once for CE, a duplicate, the flow's first
 * frame (PSN 0), a frame its sender flagged (AR), and when the frames held out of order
 * after an AR have drained.
 */
static inline void
data_acked(struct fe_nicport *rn, struct fe_nic_flow *fl, uint32_t id, uint64_t tag, int ce,
	   uint32_t len, int dup, int in_order)
{
	int now;

	if (likely(!rn->prm.ack_bytes)) {
		ack_owed(rn, fl, id);
		return;
	}
	now = ce || dup || FE_TAG_PSN(tag) == 0;
	if (!dup) {
		if (tag & FE_TAG_AR) {
			now = 1;
			fl->ack_req = 1;
		}
		if (in_order && fl->nheld == 0 && fl->ack_req) {
			now = 1;
			fl->ack_req = 0;
		}
		fl->unacked += len;
		now |= fl->unacked >= rn->prm.ack_bytes;
		/* the ACK echoes the entropy of a frame that asked for it (REPS): in a batch
		 * of several, the first that came marked, else the first */
		if (now && (!fl->echo || (ce && fl->echo == 1))) {
			fl->echo = ce ? 2 : 1;
			fl->echo_ev = (uint8_t)(tag >> 56);
		}
	}
	if (now)
		ack_owed(rn, fl, id);
}

/*
 * Model uec: what receiving NIC rn holds of flow fl after its gap, acknowledged
 * selectively: the 32 frames up to the newest held (fl->top), so that frames far past a
 * gap that SLEEK has not yet taken for a loss come back too (send_ctl()'s sack); 0: none.
 */
static uint64_t
sack_of(const struct fe_nicport *rn, const struct fe_nic_flow *fl)
{
	uint64_t sack = 0;
	uint32_t off = 0;

	if (rn->prm.model != FE_NIC_UEC || fl->nheld == 0)
		return 0;
	if ((int32_t)(fl->top - (fl->expect + 1 + 32)) > 0)
		off = fl->top - (fl->expect + 1 + 32);
	for (uint32_t k = 0; k < 32; k++)
		if (fl->held[(fl->expect + 1 + off + k) & (rn->window - 1)] != NULL)
			sack |= UINT64_C(1) << k;
	return sack ? sack | (uint64_t)off << 32 : 0;
}

/* One cumulative ACK a flow that took frames: up to what went to the host. */
static void
acks_flush(struct fe_dp *dp, unsigned q, uint64_t now)
{
	struct fe_nicport *rn = dp->ports[q].nic;

	for (uint32_t i = 0; i < rn->nacks; i++) {
		struct fe_nic_flow *fl = flow_of(dp, rn->acks[i]);
		uint64_t sack = sack_of(rn, fl);

		const enum fe_nic_ctl kind = fl->ece ? FE_NIC_ACK_ECE : FE_NIC_ACK;
		struct rte_mbuf *m = ctl_make(dp, fl->hdr, kind, rn->acks[i] >> 8,
					      qpn_of(fl, rn->acks[i]), fl->expect, sack);

		fl->ack_due = 0;
		if (unlikely(rn->prm.ack_bytes)) {
			fl->unacked = 0;
			if (m != NULL && fl->echo) /* one entropy, the asking frame's */
				*fe_nic_tag(dp, m) |= FE_TAG_AR | (uint64_t)fl->echo_ev << 56;
			fl->echo = 0;
		}
		if (m != NULL)
			ctl_up(dp, q, m, kind, now);
		fl->ece = 0;
	}
	rn->nacks = 0;
}

/*
 * Model uec: SLEEK's threshold for flow id (fe_nic_sleek_frames()), from its sender's
 * congestion window where the sender is here and runs NSCC, else from the window.
 */
static uint32_t
sleek_frames(struct fe_dp *dp, unsigned q, const struct fe_nic_flow *fl, uint32_t id)
{
	const struct fe_nicport *sn = holder(dp, q, id);
	uint32_t cwnd = 0;

	if ((id >> 8) < dp->nports && fe_nic_cc_nscc(sn->cc_mode) && sn->nscc.mss)
		cwnd = RTE_MAX((uint32_t)(fl->nscc.cwnd / (double)sn->nscc.mss), 1u);
	return fe_nic_sleek_frames(cwnd, sn->window);
}

/*
 * A gap in flow id at receiving port q: a NAK now; with a reorder window, once the window
 * has passed with the gap still open (the frames it missed may only be late: reordered
 * by the fabric's paths, as adaptive routing and spraying do); model uec without one,
 * once SLEEK's threshold of frames is held past it (called again at each).
 */
static void
gap_open(struct fe_dp *dp, unsigned q, struct fe_nic_flow *fl, uint32_t id, uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_nicport *rn = p->nic;

	if (fl->nak_sent || (fl->trimmed & 1)) /* (a trimmed frame's NAK asked for it) */
		return;
	if (rn->reorder_ticks == 0) {
		if (rn->prm.model == FE_NIC_UEC) {
			if (fl->nheld < sleek_frames(dp, q, fl, id))
				return; /* a later frame, SLEEK's threshold, or the timeout */
			FE_CNT_ADD(p->st.nic_reorder_naks, 1);
		}
		fl->nak_sent = 1;
		send_ctl(dp, q, fl->hdr, FE_NIC_NAK, id >> 8, qpn_of(fl, id), fl->expect, 0, now);
		return;
	}
	if (fl->gap_at == 0) { /* watched from now */
		fl->gap_at = now ? now : 1;
		rn->gaps[rn->ngaps++] = id;
		rn->gap_next = RTE_MIN(rn->gap_next, fl->gap_at + rn->reorder_ticks);
	}
}

/* Reorder window: the gaps still open after it are NAKed; those that closed, forgotten. */
static void
gaps_check(struct fe_dp *dp, unsigned q, uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_nicport *rn = p->nic;
	const uint64_t seen = dp->nic_seen; /* a timer: as fe_nic_service()'s */
	uint32_t k = 0;

	if (rn->gap_next > seen)
		return;
	rn->gap_next = UINT64_MAX;
	for (uint32_t i = 0; i < rn->ngaps; i++) {
		struct fe_nic_flow *fl = flow_of(dp, rn->gaps[i]);

		if (fl->gap_at == 0 || fl->nheld == 0) { /* closed (or let go) meanwhile */
			fl->gap_at = 0;
			continue;
		}
		if (fl->gap_at + rn->reorder_ticks > seen) {
			rn->gap_next = RTE_MIN(rn->gap_next, fl->gap_at + rn->reorder_ticks);
			rn->gaps[k++] = rn->gaps[i];
			continue;
		}
		fl->gap_at = 0;
		if (!fl->nak_sent && !(fl->trimmed & 1)) {
			fl->nak_sent = 1;
			FE_CNT_ADD(p->st.nic_reorder_naks, 1);
			send_ctl(dp, q, fl->hdr, FE_NIC_NAK, rn->gaps[i] >> 8,
				 qpn_of(fl, rn->gaps[i]), fl->expect, 0, now);
		}
	}
	rn->ngaps = k;
}

/*
 * Selective repeat: the frames held ahead of a gap that has filled go to the host in
 * order. If the ready ring is full the flow waits for the next pass (and asks for
 * nothing meanwhile); at the next gap it asks for the missing frame. What went is
 * acknowledged, unless the frame that filled the gap has just come under ack-bytes
 * (arrival: its policy answers for it, data_acked()).
 */
static void
release_flow(struct fe_dp *dp, unsigned q, uint32_t id, uint64_t now, int arrival)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_nic_flow *fl = flow_of(dp, id);
	struct fe_nicport *sn = holder(dp, q, id);
	const uint32_t mask = sn->window - 1;
	uint32_t from = fl->expect;

	while (fl->nheld && fl->held[fl->expect & mask] != NULL) {
		if (to_host(p, fl->held[fl->expect & mask], FE_DUE_NONE, 0) < 0) {
			if (!fl->release) {
				fl->release = 1;
				fl->nak_sent = 1;
				p->nic->rel[p->nic->nrel++] = id;
			}
			break;
		}
		fl->held[fl->expect & mask] = NULL;
		fl->nheld--;
		sn->held--;
		fl->expect++;
		fl->trimmed >>= 1;
	}
	if (fl->expect != from) {
		if (!arrival || !p->nic->prm.ack_bytes)
			ack_owed(p->nic, fl, id);
		fl->gap_at = 0; /* that gap closed: a next one is watched anew */
	}
	if (fl->nheld) /* another gap */
		gap_open(dp, q, fl, id, now);
}

void
fe_nic_release(struct fe_dp *dp, unsigned q, uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_nicport *n = p->nic;
	uint32_t k = n->nrel;

	while (n->rhead != n->rtail && p->txq_n < FE_BURST) {
		struct fe_nic_ready *r = ready_slot(n, n->rhead);

		if (later(r->due, now)) /* still crossing the host's PCIe: on time, then */
			break;
		stage(p, r->m, r->due);
		n->rhead++;
	}
	n->nrel = 0;
	if (fe_express_count(&n->trimq))
		trimmed_due(dp, q, now);
	for (uint32_t i = 0; i < k; i++) {
		struct fe_nic_flow *fl = flow_of(dp, n->rel[i]);

		fl->release = 0;
		fl->nak_sent = 0;
		release_flow(dp, q, n->rel[i], now, 0);
	}
	if (n->reorder_ticks)
		gaps_check(dp, q, now);
	acks_flush(dp, q, now);
}

/*
 * The receiving side of a flow from port s (on another box) and slot, generation gen: a
 * newer generation is a new flow from PSN 0 (its slot taken over, or its sender gave up
 * and started anew: what was held for it is let go, counted out of sequence); an older
 * one is a late frame of a flow gone (NULL).
 */
static struct fe_nic_flow *
remote_flow(struct fe_dp *dp, unsigned s, unsigned slot, unsigned gen)
{
	struct fe_nic_flow *fl = &dp->nic_remote[(s - dp->nports) * FE_NIC_FLOWS + slot];

	if (fl->used && fl->gen == gen)
		return fl;
	if (fl->used && (int8_t)(gen - fl->gen) < 0)
		return NULL;
	/* what it held for the old one, let go as a receiver here does when its sender gives
	 * up (counted by the NIC of the port it was held for: holder()); it expects PSN 0 */
	if (fl->nheld)
		abandon_held(dp, dp->ports[fl->rxq].nic, fl);
	fl->used = 1;
	fl->gen = (uint8_t)gen;
	fl->nak_sent = fl->release = 0;
	fl->last_cnp = fl->gap_at = 0;
	/* cc rccc: its credit from nothing, as its sender's (flow_init(), or anew when it gave
	 * up); an entry the pacer holds for the old one is stale from now (its seq) */
	rcv_anew(fl);
	return fl;
}

/*
 * The flow a data frame's tag names, at receiving port q, and in *sn the NIC whose model,
 * window and CC it runs; NULL for a frame of a flow whose slot has been taken over since
 * (another generation), or a tag from another box's trunk naming a slot there is none of.
 * (A flooded data frame has lost its tag (fe_nic_flooded): this one is for q.)
 */
static struct fe_nic_flow *
data_flow(struct fe_dp *dp, unsigned q, uint64_t tag, struct fe_nicport **sn)
{
	unsigned s = FE_TAG_PORT(tag), slot = FE_TAG_SLOT(tag);
	struct fe_nic_flow *fl;

	if (slot >= FE_NIC_FLOWS)
		return NULL;
	if (s < dp->nports) {
		*sn = dp->ports[s].nic;
		if (*sn == NULL || (*sn)->host || (*sn)->flows[slot].gen != FE_TAG_GEN(tag))
			return NULL;
		return &(*sn)->flows[slot];
	}
	/* its sender on another box: its receiving side is kept here */
	if (s >= dp->nic_ids || (fl = remote_flow(dp, s, slot, FE_TAG_GEN(tag))) == NULL)
		return NULL;
	*sn = dp->ports[q].nic; /* the same model, window and CC on every port and box */
	return fl;
}

/*
 * cc rccc: a frame of flow id (d after what the receiver expects) reached the receiving
 * NIC rn with the pull target it carried (its header's field, fe_nic_pull(): on this box or
 * from another's trunk). A duplicate's is heard too, as the simulator's
 * (UecSink::processData: handlePullTarget before the duplicate test): a frame sent again
 * that arrives as a duplicate (SLEEK's, its first sending queued, not lost) carries what
 * its sender asked for last (the NIC sends its kept copy again, the target written anew);
 * unheard, the sender, its targets not all granted, would wait for credit for ever.
 */
static void
credit_request(struct fe_nicport *rn, struct fe_nic_flow *fl, uint32_t id, int32_t d,
	       uint32_t target, uint64_t now)
{
	if (!fe_nic_cc_rccc(rn->cc_mode) || (d >= 0 && (uint32_t)d >= rn->window))
		return;
	fe_rccc_request(&rn->pacer, &fl->credit, id, target, now);
}

/*
 * A data frame's header, trimmed by a switch that had no room for the frame, reached the
 * receiving port q (model uec): the sender is asked for that frame at once (a NAK of it
 * alone), unless it was delivered already. Never to the host. last: it was trimmed at the
 * last hop, q's own down link (its tag has no FE_TAG_EARLIER, which a cut on any other
 * link sets, whichever queue carried it: fe_linkop_trim()); the NAK says so (uet-htsim's
 * UecSink: is_last_hop).
 */
static void
trimmed_data(struct fe_dp *dp, unsigned q, struct rte_mbuf *m, uint64_t tag, int last, uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	unsigned s = FE_TAG_PORT(tag);
	uint32_t id = flow_id(s, FE_TAG_SLOT(tag)), psn;
	struct fe_nicport *sn;
	struct fe_nic_flow *fl = data_flow(dp, q, tag, &sn);

	if (fl == NULL) {
		FE_CNT_ADD(p->st.nic_stray, 1);
		rte_pktmbuf_free(m);
		return;
	}
	FE_CNT_ADD(p->st.nic_trims_recv, 1);
	psn = psn_full(FE_TAG_PSN(tag), fl->expect);
	if (fe_nic_cc_rccc(p->nic->cc_mode)) { /* its pull target heard, as the simulator's */
		fe_rccc_occ_trimmed(&p->nic->pacer, last);
		if (!fl->ack_due) /* the headers a grant is made from, if no frame came yet */
			memcpy(fl->hdr, rte_pktmbuf_mtod(m, const uint8_t *),
			       RTE_MIN(rte_pktmbuf_data_len(m), sizeof(fl->hdr)));
		credit_request(p->nic, fl, id, (int32_t)(psn - fl->expect), *fe_nic_pull(dp, m),
			       now);
	}
	if ((int32_t)(psn - fl->expect) >= 0) {
		struct rte_mbuf *a = ctl_make(dp, rte_pktmbuf_mtod(m, const uint8_t *),
					      FE_NIC_TRIM_NAK, s, qpn_of(fl, id), psn, 0);

		if (a != NULL && last)
			fe_nic_ctl_trim_last_set(rte_pktmbuf_mtod(a, uint8_t *));
		if (a != NULL)
			ctl_up(dp, q, a, FE_NIC_TRIM_NAK, now);
		/* asked for already: the gap it leaves is not NAKed again */
		if (psn - fl->expect < 64)
			fl->trimmed |= UINT64_C(1) << (psn - fl->expect);
		if (psn == fl->expect)
			fl->nak_sent = 1;
	}
	rte_pktmbuf_free(m);
}

/*
 * A probe of flow tag names (model uec, cc nscc) reached the receiving port q: answered
 * at once with the flow's cumulative and selective ACK, flagged the probe's answer (its
 * number); made from the probe's own headers, sent back as the probe came.
 */
static void
probe_answer(struct fe_dp *dp, unsigned q, struct rte_mbuf *m, uint64_t tag, uint32_t probe,
	     uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	unsigned s = FE_TAG_PORT(tag);
	uint32_t id = flow_id(s, FE_TAG_SLOT(tag));
	struct fe_nicport *sn;
	struct fe_nic_flow *fl = data_flow(dp, q, tag, &sn);
	struct rte_mbuf *a = NULL;

	if (fl == NULL) {
		FE_CNT_ADD(p->st.nic_stray, 1);
		rte_pktmbuf_free(m);
		return;
	}
	FE_CNT_ADD(p->st.nic_probes_recv, 1);
	a = ctl_make(dp, rte_pktmbuf_mtod(m, const uint8_t *), FE_NIC_PROBE_ACK, s, qpn_of(fl, id),
		     fl->expect, sack_of(p->nic, fl));
	rte_pktmbuf_free(m);
	if (a == NULL)
		return;
	fe_nic_ctl_probe_set(rte_pktmbuf_mtod(a, uint8_t *), (uint8_t)probe);
	ctl_up(dp, q, a, FE_NIC_PROBE_ACK, now);
}

int
fe_nic_trimmed(struct fe_dp *dp, unsigned q, struct rte_mbuf *h, uint64_t due)
{
	struct fe_nicport *n = dp->ports[q].nic;

	/* in order: a header never overtakes the one before */
	if (fe_express_put(&n->trimq, h, due) < 0)
		return -1;
	return 0;
}

/* The trimmed headers due at port q by now. */
static void
trimmed_due(struct fe_dp *dp, unsigned q, uint64_t now)
{
	struct fe_nicport *n = dp->ports[q].nic;
	struct rte_mbuf *h;
	uint64_t due;

	while ((h = fe_express_take(&n->trimq, now, &due)) != NULL) {
		uint64_t tag = *fe_nic_tag(dp, h);

		if (FE_TAG_KIND(tag) == FE_TAG_CTL)
			consume_ctl(dp, q, h, tag, due, now);
		else /* trimmed here, the last hop, or before (fe_linkop.c) */
			trimmed_data(dp, q, h, tag, !(tag & FE_TAG_EARLIER),
				     ctl_at(dp, n, due, now));
	}
}

/*
 * A data frame m (flow tag) reached port q, whose host's PCIe is modelled: it crosses
 * the PCIe, and reaches the host once across: the tick it is (now at the earliest). With
 * no room left it is trimmed, its NAK asks for it again: 0, m consumed.
 */
static __rte_noinline uint64_t
pcie_cross(struct fe_dp *dp, unsigned q, struct rte_mbuf *m, uint64_t tag, uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_nicport *rn = p->nic;
	uint64_t at;

	if (rn->rtail - rn->rhead == rn->nready ||
	    fe_pcie_take(&rn->pcie, &rn->pcie_cfg, now, rte_pktmbuf_pkt_len(m), &at) < 0) {
		FE_CNT_ADD(p->st.nic_pcie_trims, 1);
		/* as the simulator's: trimmed at no hop of the path, not the last (its
		 * strip_payload() sets the trim hop past it): REPS, NSCC and the pull rate
		 * take it as a trim in the fabric */
		trimmed_data(dp, q, m, tag, 0, now);
		return 0;
	}
	FE_CNT_MAX(p->st.nic_pcie_peak, fe_pcie_backlog(&rn->pcie, &rn->pcie_cfg, now));
	return at ? at : 1;
}

/*
 * A data frame of flow id, due at `due`, reached the receiving port q: taken at t (its
 * ACK, NAK, CNP and credit made then: ctl_at()), in the pass at now.
 */
static void
deliver_data(struct fe_dp *dp, unsigned q, struct rte_mbuf *m, uint64_t tag, uint64_t due,
	     uint64_t t, uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_nicport *rn = p->nic;
	unsigned s = FE_TAG_PORT(tag);
	uint32_t id = flow_id(s, FE_TAG_SLOT(tag));
	struct fe_nicport *sn;
	struct fe_nic_flow *fl = data_flow(dp, q, tag, &sn);
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), psn;
	int32_t d;
	int ce, wait = 0; /* wait: the PCIe's tick still to come */

	if (fl == NULL) {
		FE_CNT_ADD(p->st.nic_stray, 1);
		rte_pktmbuf_free(m);
		return;
	}
	/* the host's PCIe (model uec, fe_pcie.h), as uet-htsim's UecSink, before it looks
	 * at the frame */
	if (unlikely(rn->pcie_cfg.fp_per_byte != 0)) {
		due = pcie_cross(dp, q, m, tag, t);
		if (due == 0) /* trimmed */
			return;
		wait = due > now;
	}
	/* the headers the ACK and NAKs are made from, once a batch */
	if (!fl->ack_due)
		memcpy(fl->hdr, f, RTE_MIN(len, sizeof(fl->hdr)));
	ce = fe_nic_ecn_get(f, len) == 3;
	/* the pull rate counts every data frame, and those marked (fe_rccc.h) */
	if (fe_nic_cc_rccc(rn->cc_mode))
		fe_rccc_occ_frame(&rn->pacer, ce);
	/* the notification point: CE ends here, and asks the sender to slow down */
	if (ce) { /* ECT(0), or Not-ECT if the host sent it so (FE_TAG_ECT) */
		fe_nic_ecn_set(f, len, tag & FE_TAG_ECT ? 0 : 2);
		fe_filter_forget(m, dp->filter_dynoff);
		FE_CNT_ADD(p->st.nic_ce_consumed, 1);
		if (fe_nic_cc_nscc(sn->cc_mode)) /* echoed in the next ACK */
			fl->ece = 1;
		/* DCQCN: a CNP a flow per interval at most; InfiniBand: a BECN for every FECN */
		else if (sn->cc_mode == FE_CC_IB ||
			 (sn->cc_mode == FE_CC_DCQCN &&
			  (fl->last_cnp == 0 || t - fl->last_cnp >= rn->cnp_ticks))) {
			fl->last_cnp = t ? t : 1;
			send_ctl(dp, q, f, FE_NIC_CNP, s, qpn_of(fl, id), 0, 0, t);
		}
	} else if (tag & FE_TAG_ECT) { /* the host sent it Not-ECT: it gets it so */
		fe_nic_ecn_set(f, len, 0);
		fe_filter_forget(m, dp->filter_dynoff);
	}
	psn = psn_full(FE_TAG_PSN(tag), fl->expect);
	d = (int32_t)(psn - fl->expect);
	credit_request(rn, fl, id, d, *fe_nic_pull(dp, m), t);
	if (d == 0 && !fl->release) {
		if (to_host(p, m, due, wait) < 0) {
			if (fl->held == NULL) { /* go-back-N: as if lost; the NAK resends it */
				FE_CNT_ADD(p->st.nic_oos_discards, 1);
				rte_pktmbuf_free(m);
				if (!fl->nak_sent) {
					fl->nak_sent = 1;
					send_ctl(dp, q, fl->hdr, FE_NIC_NAK, s, qpn_of(fl, id),
						 fl->expect, 0, t);
				}
				return;
			}
			/* selective repeat: held, in order, released on a later pass (and
			 * nothing asked for meanwhile: it is here) */
			fl->held[psn & (sn->window - 1)] = m;
			fl->nheld++;
			sn->held++;
			fl->rxq = (uint16_t)q;
			fl->release = 1;
			fl->nak_sent = 1;
			rn->rel[rn->nrel++] = id;
			return;
		}
		fl->expect++;
		fl->trimmed >>= 1;
		fl->nak_sent = 0;
		if (fl->nheld)
			release_flow(dp, q, id, t, 1);
	} else if (d > 0) {
		if (fl->held != NULL && (uint32_t)d < sn->window &&
		    fl->held[psn & (sn->window - 1)] == NULL) {
			fl->held[psn & (sn->window - 1)] = m;
			fl->nheld++;
			sn->held++;
			fl->rxq = (uint16_t)q;
			if ((int32_t)(psn + 1 - fl->top) > 0 || fl->nheld == 1)
				fl->top = psn + 1;
			FE_CNT_ADD(p->st.nic_held_pkts, 1);
			if (rn->prm.model == FE_NIC_UEC) /* acknowledged selectively */
				data_acked(rn, fl, id, tag, ce, len, 0, 0);
		} else if (fl->held != NULL && (uint32_t)d < sn->window) {
			FE_CNT_ADD(p->st.nic_dup_discards, 1); /* held already */
			rte_pktmbuf_free(m);
			if (rn->prm.ack_bytes) /* a duplicate: answered at once */
				ack_owed(rn, fl, id);
		} else {
			FE_CNT_ADD(p->st.nic_oos_discards, 1);
			rte_pktmbuf_free(m);
		}
		gap_open(dp, q, fl, id, t);
		return;
	} else {
		FE_CNT_ADD(p->st.nic_dup_discards, 1);
		rte_pktmbuf_free(m);
		data_acked(rn, fl, id, tag, ce, len, 1, 0);
		return;
	}
	data_acked(rn, fl, id, tag, ce, len, 0, 1);
}

/* Model host: a RoCEv2 packet reaching port q's host, counted against its queue pair. */
static void
observe(struct fe_dp *dp, unsigned q, struct rte_mbuf *m)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_roce_qp *qp = NULL;
	struct fe_roce_pkt k;
	uint64_t missing, rewinds;
	uint32_t h;

	if (fe_roce_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &k) < 0)
		return;
	FE_CNT_ADD(p->st.roce_pkts, 1);
	h = (uint32_t)(((uint64_t)k.daddr << 24 ^ k.qpn) * 0x9e3779b97f4a7c15ULL >> 40);
	for (unsigned i = 0; i < 8; i++) { /* a few probes, then the packet is untracked */
		struct fe_roce_qp *c = &p->nic->qps[(h + i) & (FE_ROCE_QPS - 1)];

		if (!c->used) {
			*c = (struct fe_roce_qp){.used = 1, .daddr = k.daddr, .qpn = k.qpn};
			FE_CNT_ADD(p->st.roce_qps, 1);
		}
		if (c->daddr == k.daddr && c->qpn == k.qpn) {
			qp = c;
			break;
		}
	}
	if (qp == NULL) {
		FE_CNT_ADD(p->st.roce_untracked, 1);
		return;
	}
	missing = qp->missing;
	rewinds = qp->rewinds;
	switch (fe_roce_track(qp, &k)) {
	case FE_ROCE_GAP:
		FE_CNT_ADD(p->st.roce_gaps, 1);
		FE_CNT_ADD(p->st.roce_missing, qp->missing - missing);
		break;
	case FE_ROCE_RESENT:
		FE_CNT_ADD(p->st.roce_resent, 1);
		FE_CNT_ADD(p->st.roce_rewinds, qp->rewinds - rewinds);
		break;
	case FE_ROCE_NAK:
		FE_CNT_ADD(p->st.roce_naks, 1);
		break;
	case FE_ROCE_RNR_NAK:
		FE_CNT_ADD(p->st.roce_rnr_naks, 1);
		break;
	case FE_ROCE_CNP:
		FE_CNT_ADD(p->st.roce_cnps, 1);
		break;
	default:
		break;
	}
}

void
fe_nic_deliver(struct fe_dp *dp, unsigned q, struct rte_mbuf **in, const uint64_t *due, unsigned n,
	       uint64_t now)
{
	struct fe_port *p = &dp->ports[q];
	struct fe_nicport *rn = p->nic;

	if (rn->host) {
		for (unsigned i = 0; i < n; i++) {
			observe(dp, q, in[i]);
			stage(p, in[i], due[i]); /* room for n: the caller's */
		}
		return;
	}

	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = in[i];
		uint64_t tag = *fe_nic_tag(dp, m);

		if (FE_TAG_KIND(tag) == FE_TAG_DATA) /* the most, first */
			deliver_data(dp, q, m, tag, due[i], ctl_at(dp, rn, due[i], now), now);
		else if (FE_TAG_KIND(tag) == FE_TAG_CTL || FE_TAG_KIND(tag) == FE_TAG_PROBE)
			consume_ctl(dp, q, m, tag, due[i], now);
		else if (FE_TAG_KIND(tag) == FE_TAG_TRIM) /* behind the data (fe_linkop.c) */
			trimmed_data(dp, q, m, tag, !(tag & FE_TAG_EARLIER),
				     ctl_at(dp, rn, due[i], now));
		else if (to_host(p, m, due[i], 0) < 0) {
			FE_CNT_ADD(p->st.nic_edge_drops, 1); /* not a flow's: nobody resends it */
			rte_pktmbuf_free(m);
		}
	}
	/* the ACKs: as the last frame arrived */
	acks_flush(dp, q, n ? ctl_at(dp, rn, rn->at, now) : now);
}

uint64_t
fe_nic_held(const struct fe_dp *dp)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < dp->nports; i++)
		if (dp->ports[i].nic)
			n += dp->ports[i].nic->held + dp->ports[i].nic->rtail -
			     dp->ports[i].nic->rhead;
	return n;
}

uint64_t
fe_nic_inflight(const struct fe_dp *dp)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < dp->nports; i++)
		if (dp->ports[i].nic)
			n += dp->ports[i].nic->inflight;
	return n;
}

/* What flow fl held for order at its receiving host's port when the engine stopped
 * (held[0 .. window)): counted there, freed. */
static void
held_stopped(struct fe_dp *dp, struct fe_nic_flow *fl, uint32_t window)
{
	if (fl->held == NULL)
		return;
	if (fl->nheld) /* (a box with no host holds none) */
		FE_CNT_ADD(dp->ports[fl->rxq].st.nic_stopped_recv, fl->nheld);
	for (uint32_t k = 0; k < window; k++) {
		rte_pktmbuf_free(fl->held[k]);
		fl->held[k] = NULL;
	}
	fl->nheld = 0;
}

void
fe_nic_drain(struct fe_dp *dp)
{
	for (unsigned i = 0; i < dp->nports; i++) {
		struct fe_nicport *n = dp->ports[i].nic;
		struct rte_mbuf *m;

		if (n == NULL || n->host)
			continue;
		for (unsigned f = 0; f < FE_NIC_FLOWS; f++) {
			struct fe_nic_flow *fl = &n->flows[f];

			/* the send queue, this port's; frames held for order, their host's */
			FE_CNT_ADD(dp->ports[i].st.nic_stopped_send, fl->pend_n);
			for (; fl->pend_n; fl->pend_n--) {
				rte_pktmbuf_free(n->pend[fl->pend_head].m);
				fl->pend_head = n->pend[fl->pend_head].next;
			}
			for (uint32_t k = 0; k < n->window; k++) {
				rte_pktmbuf_free(fl->win[k].m);
				fl->win[k].m = NULL;
			}
			held_stopped(dp, fl, n->window);
			fl->una = fl->next_psn;
		}
		FE_CNT_ADD(dp->ports[i].st.nic_stopped_recv, n->rtail - n->rhead); /* released */
		for (; n->rhead != n->rtail; n->rhead++)
			rte_pktmbuf_free(ready_slot(n, n->rhead)->m);
		FE_CNT_ADD(dp->ports[i].st.nic_stopped_trims, fe_express_count(&n->trimq));
		while ((m = fe_express_drain(&n->trimq)) != NULL)
			rte_pktmbuf_free(m);
		n->held = n->inflight = 0;
		n->nact = 0;
	}
	for (unsigned f = 0; dp->nic_remote && f < (dp->nic_ids - dp->nports) * FE_NIC_FLOWS; f++) {
		struct fe_nic_flow *fl = &dp->nic_remote[f];

		/* (the window its buffer holds: this box may have no NIC of its own) */
		if (fl->held != NULL)
			held_stopped(dp, fl, nic_window(&dp->conf.nic));
	}
}
