/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_rccc: RCCC, Ultra Ethernet's receiver-credit congestion control (UE 1.0, the
 * transport layer's congestion management, its receiver side), as the reference simulator
 * runs it (ultraethernet/uet-htsim, htsim/sim/uec.cpp: UecPullPacer, UecSink::pull,
 * UecSink::handlePullTarget; UecSrc::computePullTarget, handlePull, stopSpeculating,
 * spendCredit, can_send_RCCC; its defaults: 4 MSS of credit a grant (UecSink::
 * _mtus_per_pull, "as per default in UEC spec"), quanta of 256 bytes (uec_base.h), the
 * pacer at 0.99 of the receiver's line rate (datacenter/main_uec.cpp), 1.5 BDP of credit at
 * most (initRccc)). Pure: no DPDK, time passed in (ticks), so it is tested on a fake clock.
 * docs/uec.md. Receiver-driven credit is NDP's pull (Handley et al., "Re-architecting
 * datacenter networks and stacks for low latency and high performance", SIGCOMM 2017)
 * and EQDS's (Olteanu et al., "An edge-queued datagram service for all datacenter
 * traffic", NSDI 2022), whose htsim code uet-htsim's UEC code shares (its UecNIC is
 * EqdsNIC's); the simulator's code is followed.
 *
 * Sender (a flow at the sending NIC): a credit in bytes on the wire. It starts
 * speculating, with maxwnd (1.5 BDP) of credit; it may send while its credit is above 0
 * (a frame may take it below 0) and each frame spends its bytes. Each frame carries a
 * pull target: the credit the flow wants, cumulative, in quanta: pull + (min(backlog,
 * maxwnd) - credit) / the NIC's active flows, at least an MTU while speculating with a
 * backlog. The first word from the receiver (an ACK, a NAK, a credit) ends speculation:
 * positive credit left is dropped. A grant carries the receiver's cumulative pull; what
 * is new adds to the credit, which stays at maxwnd at most. A flow with no credit whose
 * targets were all granted (nothing it asked for is to come: it had sent all it had when
 * it last asked) may send one frame, which asks: the simulator's sender would send an RTS
 * (a header with its target); here the frame carries the target itself.
 *
 * Receiver (a pacer a NIC): flows whose pull target is above what they were granted wait
 * in turn (the active list). The pacer grants the first at most 4 MSS, never above its
 * target, then waits the time those bytes take at 0.99 of the line rate: so what all
 * senders are granted together never outruns the receiver's link. A flow whose target is
 * met moves to the idle list; while no flow is active, idle flows get 4 MSS each of
 * speculative credit in turn, until they hold maxwnd above their target, and then leave.
 * A flow that asks for nothing more is granted nothing more.
 *
 * The pull rate (the simulator's OversubscribedCC, oversubscribed_cc.cpp, through
 * UecPullPacer::updatePullRate; main_uec.cpp turns it on for RCCC alone, without NSCC, on
 * an oversubscribed topology): on such a fabric the receiver's own link is not the
 * bottleneck, the fabric's core is, and a pacer at its link's rate lets senders fill it.
 * So the receiver slows its grants by what it sees. Every 1.5 base RTTs, drawn from 0.75
 * to 1.25 of that (no two receivers in step), from the frames that reached it since
 * (trimmed headers included):
 *   fraction = ECN-marked / (frames - trimmed headers)
 *   trimmed before the last hop (the core's, not its own link's): rate -= those / frames
 *   g = g (1 - 0.5) + 0.5 fraction
 *   g above 0.3: rate *= 1 - (g - 0.3) 0.5
 *   neither: rate += 0.01 x 2^n with no mark, else 0.01 (n: such increases in a row)
 *   rate within [min, 1], min = 0.9 / the oversubscription, at least 0.01
 * and the pacer spaces its grants by their bytes' time at 0.99 x line x rate.
 *
 * The host's PCIe (fe_pcie.h) gives a second pull rate, from its backlog: the pacer takes
 * the lesser of the two (UecPullPacer::updatePullRate), set before it grants
 * (fe_rccc_pcie()).
 *
 *   fe_rccc_compile(bps, rtt_ns, mtu, hz, min, &cfg);  // at start and at every change
 *   fe_rccc_pacer_init(&pacer, slots, cap, stream);     // slots: [2 * cap], the caller's
 *   sender:   fe_rccc_may_send(), fe_rccc_spend(), fe_rccc_target() into the frame,
 *             fe_rccc_feedback() on any word back, fe_rccc_credit() on a grant
 *   receiver: fe_rccc_request() with each frame's target; while fe_rccc_grant(): send it
 */
#ifndef FE_RCCC_H
#define FE_RCCC_H

#include <stdint.h>

#include "fe_rng.h"

#define FE_RCCC_QUANTUM 256 /* bytes: a pull counts in these (the simulator's, uec_base.h) */

struct fe_rccc_cfg {
	uint64_t hz, line_bps;
	uint64_t fp_per_quantum; /* ticks x 2^16 a quantum of credit takes at 0.99 x line */
	uint64_t lag;		 /* ticks the pacer may fall behind (a grant's): no burst */
	uint64_t maxwnd;	 /* bytes: 1.5 BDP, the credit at start and at most */
	/* the pull rate: ticks between its updates (1.5 base RTTs; 0: off, full rate), and
	 * its floor, x 2^16 */
	uint64_t occ_ticks;
	uint32_t occ_min16;
	uint32_t maxwnd_q; /* quanta: maxwnd rounded down */
	uint32_t per_pull; /* quanta a grant: 4 MSS rounded down */
	uint32_t mtu;	   /* bytes on the wire */
};

/* The sending side of a flow. */
struct fe_rccc_snd {
	int64_t credit; /* bytes; may be below 0 */
	uint32_t pull;	/* quanta, cumulative, modulo 2^32: granted so far */
	uint32_t asked; /* quanta, cumulative: the highest target its frames carried */
	uint8_t speculating;
};

/* The receiving side of a flow. */
struct fe_rccc_rcv {
	uint32_t target; /* quanta, cumulative: the highest pull target heard */
	uint32_t latest; /* quanta, cumulative: granted */
	uint32_t seq;	 /* its entry in a list (0: none; an entry of another seq is stale) */
	uint8_t idle;	 /* that entry is in the idle list */
};

struct fe_rccc_slot {
	struct fe_rccc_rcv *r;
	uint32_t id; /* the caller's name for the flow */
	uint32_t seq;
};

struct fe_rccc_ring {
	struct fe_rccc_slot *s;
	uint32_t head, n, cap;
};

/* A receiving NIC's pacer. */
struct fe_rccc_pacer {
	struct fe_rccc_ring active, idle;
	uint64_t next;	    /* tick: the next grant no earlier */
	uint32_t next_frac; /* and 2^-16 ticks */
	uint32_t seq;
	uint64_t grants, granted; /* grants made; bytes of credit they gave */
	uint64_t full;		  /* requests a full list could not take (then asked again) */
	/* the pull rate (cfg occ_ticks): x 2^16, the grants' spacing divided by it; what
	 * reached the NIC since its last update; the next update (0: at the first look) */
	double rate, g;
	uint32_t rate16, incs;
	uint32_t rx, ce, trim_last, trim_other;
	uint64_t occ_next;
	struct fe_rng rng;	/* the updates' times */
	uint64_t updates, cuts; /* updates of the rate, and those that cut it */
	/* the pull rate the host's PCIe allows (fe_pcie.h), x 2^16: the grants are spaced
	 * by the lesser of it and rate16, as the simulator's pacer takes the lesser */
	uint32_t pcie16;
	uint64_t last;	    /* tick of the last grant (its slot) */
	uint32_t last_frac; /* and 2^-16 ticks */
	uint32_t last_q;    /* quanta whose time it waited after it (0: none yet) */
};

/*
 * Compile for a receiver's line rate (bit/s), the network's RTT (ns, its BDP) and an MTU
 * (bytes on the wire) on a clock of hz.
 */
void fe_rccc_compile(uint64_t line_bps, uint64_t rtt_ns, uint32_t mtu, uint64_t hz, double occ_min,
		     struct fe_rccc_cfg *c);

/* The pull rate's floor on a fabric oversubscribed ratio:1 (0.9 / ratio, at least 0.01;
 * the simulator's setOversubscriptionRatio), or 0.01 without one (ratio 1 or less). */
double fe_rccc_occ_min(double ratio);

/* A flow starts sending: speculating, with maxwnd of credit. */
void fe_rccc_snd_init(struct fe_rccc_snd *s, const struct fe_rccc_cfg *c);

/* a - b for cumulative counts modulo 2^32 */
static inline int32_t
fe_rccc_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

/* A frame may go: with credit, or to ask, if nothing it asked for is still to come. */
static inline int
fe_rccc_may_send(const struct fe_rccc_snd *s)
{
	return s->credit > 0 || fe_rccc_diff(s->asked, s->pull) <= 0;
}

/* A frame of len bytes (on the wire) went. */
static inline void
fe_rccc_spend(struct fe_rccc_snd *s, uint32_t len)
{
	s->credit -= len;
}

/* The pull target the frame just sent carries (recorded: what the flow asked for):
 * backlog bytes wait to be sent (or sent again), active flows of the NIC have something
 * to send (0 taken as 1). */
uint32_t fe_rccc_target(struct fe_rccc_snd *s, const struct fe_rccc_cfg *c, uint64_t backlog,
			uint32_t active);

/* An ACK, a NAK or a grant reached the sender: speculation is over. */
void fe_rccc_feedback(struct fe_rccc_snd *s);

/*
 * The sender's retransmission timer fired: a flow with no credit may send one frame, which
 * carries its pull target (the simulator sends an RTS, a header with the target, then):
 * a grant or a frame lost leaves no flow waiting for ever.
 */
void fe_rccc_timeout(struct fe_rccc_snd *s);

/* A grant of cumulative pull reached the sender: the bytes of credit it adds. */
uint64_t fe_rccc_credit(struct fe_rccc_snd *s, const struct fe_rccc_cfg *c, uint32_t pull);

/* The pacer's lists take cap flows each, in slots[2 * cap]; stream: its updates' times
 * (the NIC's port). */
void fe_rccc_pacer_init(struct fe_rccc_pacer *p, struct fe_rccc_slot *slots, uint32_t cap,
			uint64_t stream);

/* For the pull rate: a data frame reached the receiver (ce: marked), or a trimmed header
 * (last: trimmed at the last hop, its own down link). */
static inline void
fe_rccc_occ_frame(struct fe_rccc_pacer *p, int ce)
{
	p->rx++;
	p->ce += ce != 0;
}

static inline void
fe_rccc_occ_trimmed(struct fe_rccc_pacer *p, int last)
{
	p->rx++;
	if (last)
		p->trim_last++;
	else
		p->trim_other++;
}

/* The pull rate's update, if one is due by now (each missed while the pacer slept: one of
 * nothing received; none while nothing comes at the full rate, where it would only stay).
 * Off (cfg occ_ticks 0): the full rate. */
void fe_rccc_occ_update(struct fe_rccc_pacer *p, const struct fe_rccc_cfg *c, uint64_t now);

/*
 * The pull rate the host's PCIe allows now, x 2^16 (fe_pcie_rate16()). A change re-times
 * the grant pending: the next comes the last one's bytes' time after it at the new rate.
 * (The simulator keeps the time it scheduled at the last grant's rate: a grant made at
 * 0.001 would then hold the pacer a thousand grants' time after the backlog had drained.)
 */
void fe_rccc_pcie(struct fe_rccc_pacer *p, const struct fe_rccc_cfg *c, uint32_t rate16);

/* A frame of flow id (its receiving side r) carried pull target at now. */
void fe_rccc_request(struct fe_rccc_pacer *p, struct fe_rccc_rcv *r, uint32_t id, uint32_t target,
		     uint64_t now);

/*
 * The grant due by now, if any: 1 with the flow's id and receiving side (its latest: the
 * pull to send), and *bytes the credit it adds; 0 if none is due.
 */
int fe_rccc_grant(struct fe_rccc_pacer *p, const struct fe_rccc_cfg *c, uint64_t now, uint32_t *id,
		  struct fe_rccc_rcv **r, uint32_t *bytes);

/* The tick of the next grant (UINT64_MAX: no flow waits). */
uint64_t fe_rccc_next(const struct fe_rccc_pacer *p);

#endif
