/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_dp: the forwarding engine. N ports meet at one emulated switch; each port has
 * two emulated links, up (host to switch) and down (switch to host):
 *
 *   port p RX -> up[p] -> switch (MAC learning / flooding) -> down[q] -> port q TX
 *
 * One lcore runs fe_dp_run(), which calls fe_dp_poll() with the TSC read at the start
 * of a pass (and, live, again at each round of it: fe_dp.c). Everything here is written
 * by that lcore only; the control thread and
 * telemetry read the counters (fe_counter.h) and nothing else.
 *
 * Ownership of fields:  lcore: rw   control/telemetry: ro (counters), - (the rest)
 */
#ifndef FE_DP_H
#define FE_DP_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "fe_capture.h"
#include "fe_counter.h"
#include "fe_credit.h"
#include "fe_edge.h"
#include "fe_fabric.h"
#include "fe_filter.h"
#include "fe_link.h"
#include "fe_linkdef.h"
#include "fe_linkx.h"
#include "fe_mac.h"
#include "fe_measure.h"
#include "fe_nic.h"
#include "fe_pfc.h"
#include "fe_rng.h"
#include "fe_rsvd.h"

#define FE_BURST	 32
#define FE_PORT_NAME_LEN 64

/* A packet waiting in a switch input queue (credit regime). */
struct fe_iq_slot {
	struct rte_mbuf *m;
	uint64_t t;  /* reached the switch */
	int32_t out; /* egress port, -1: flood */
	uint32_t len;
};

struct fe_iq {
	struct fe_iq_slot *s;
	uint32_t head, tail, mask;
	uint64_t head_since; /* when the head packet became the head */
	uint64_t room_at;    /* the tick its switch's memory had room for the head from, found
				by the head's own check (fe_link_has_room_at()); 0: none */
	uint8_t pool_wait;   /* the head was seen blocked by its switch's memory */
	uint32_t blocks;     /* credit blocks held: never above the credits given */
	fe_counter_t depth, peak;
	fe_counter_t peak_blocks;
	fe_counter_t stopped; /* frames it held when the engine stopped, freed then */
};

/*
 * The head of q checked for room at output l (len bytes): found (at: the tick its switch's
 * memory had room from, where its check made the memory's other links give it; 0: none),
 * or not (seen blocked by the memory, if that was it).
 */
static inline void
fe_iq_checked(struct fe_iq *q, const struct fe_link *l, uint32_t len, int room, uint64_t at)
{
	if (room) {
		if (at != 0)
			q->room_at = at;
		return;
	}
	q->room_at = 0; /* what a check that failed freed: in its links' last leaves */
	if (l->pool != NULL && l->pool->limit != 0 && l->pool->used + len > l->pool->limit)
		q->pool_wait = 1;
}

/*
 * The tick the head of q, bound for output l, had room in its switch's memory from: that
 * its own check found; else, if it was seen blocked by the memory, the last leave of the
 * memory's links (room another check, or a delivery, made: no earlier than that); else 0.
 */
static inline uint64_t
fe_iq_room_at(const struct fe_iq *q, const struct fe_link *l)
{
	if (q->room_at != 0)
		return q->room_at;
	return q->pool_wait ? fe_link_pool_left(l->pool) : 0;
}

/*
 * The tick the head s of q moves at to output l (NULL: none to wait for): when it got
 * there, or when l freed room, or its switch's memory (fe_iq_room_at()), whichever is
 * later. The graph's input queues (fe_lossless.c), one switch's too.
 */
static inline uint64_t
fe_iq_move_at(const struct fe_iq *q, const struct fe_iq_slot *s, const struct fe_link *l)
{
	uint64_t t = s->t > q->head_since ? s->t : q->head_since;

	if (l != NULL) {
		const uint64_t room = fe_iq_room_at(q, l);

		if (l->last_leave > t)
			t = l->last_leave;
		if (room > t)
			t = room;
	}
	return t;
}

/*
 * The tick HOQLife hoq discards the head of input queue q, the first past its limit (as
 * fe_lossless.c tests it: now - head_since > hoq); UINT64_MAX if q is empty.
 */
static inline uint64_t
fe_iq_hoq_next(const struct fe_iq *q, uint64_t hoq)
{
	return q->head == q->tail ? UINT64_MAX : q->head_since + hoq + 1;
}

/* A new head of input queue q from tick t: nothing checked for it yet. */
static inline void
fe_iq_head_new(struct fe_iq *q, uint64_t t)
{
	q->head_since = t;
	q->room_at = 0;
	q->pool_wait = 0;
}

/*
 * Credit regime: m waits at the tail of input queue q (its sender held credits for it,
 * so there is room: credits bound the queue), bound for out; *count counts every
 * queue's frames. The graph's queues (fe_lossless.c), one switch's too.
 */
static inline void
fe_iq_push(struct fe_iq *q, const struct fe_credit_unit *u, struct rte_mbuf *m, uint64_t t,
	   int32_t out, uint64_t *count)
{
	struct fe_iq_slot *s = &q->s[q->tail & q->mask];

	s->m = m;
	s->t = t;
	s->out = out;
	s->len = rte_pktmbuf_pkt_len(m);
	if (q->head == q->tail)
		fe_iq_head_new(q, t);
	q->tail++;
	(*count)++;
	q->blocks += fe_credit_blocks(u, s->len);
	FE_CNT_SET(q->depth, q->tail - q->head);
	FE_CNT_MAX(q->peak, q->depth);
	FE_CNT_MAX(q->peak_blocks, q->blocks);
}

/* Pop the head of input queue q at tick t (its blocks: the caller returns them to its
 * sender first); *count counts every queue's frames, as fe_iq_push(). */
static inline void
fe_iq_pop(struct fe_iq *q, const struct fe_credit_unit *u, uint64_t t, uint64_t *count)
{
	q->blocks -= fe_credit_blocks(u, q->s[q->head & q->mask].len);
	q->head++;
	(*count)--;
	fe_iq_head_new(q, t);
	FE_CNT_SET(q->depth, q->tail - q->head);
}

struct fe_port_stats {
	fe_counter_t rx_pkts, rx_bytes; /* read from the port */
	fe_counter_t tx_pkts, tx_bytes; /* accepted by the port's TX queue */
	fe_counter_t tx_busy;		/* TX bursts the port did not take whole (retried) */
	fe_counter_t tx_stopped;	/* staged for the port when the engine stopped: freed */
	fe_counter_t rx_held;		/* lossless: polls that left packets in the port because the
					   host adapter queue was full (backpressure to the host) */
	fe_counter_t pfc_frames_out;	/* real 802.1Qbb frames sent toward the host */
	fe_counter_t pfc_frames_lost;	/* ... that found the TX staging area full */
	fe_counter_t edge_xoff;		/* edge pause: times the adapter queue's room fell to
					   its XOFF and the host was paused (fe_wire) */
	fe_counter_t pfc_wd_storms;	/* the PFC watchdog stormed the down link (host paused) */
	fe_counter_t host_pfc_xoff;	/* pfc: the host's own PFC frames with a pause, obeyed on
					   its down link (fe_switch.c) */
	fe_counter_t host_pfc_xon;	/* ... and those that ended its pause (all quanta 0) */
	fe_counter_t pfc_wd_forwarded;	/* ... and sent what waited through the pause (forward) */
	/* the emulated NIC (fe_nicport.h; model roce or ib), docs/counters.md */
	fe_counter_t nic_flows;	       /* flows seen (a TCP or UDP 5-tuple each) */
	fe_counter_t nic_passed;       /* flow frames passed as they are: to a group address or a
					  destination not learned yet, or the flow table full */
	fe_counter_t nic_cnp_sent;     /* CNPs this port's NIC sent (it received CE) */
	fe_counter_t nic_cnp_recv;     /* CNPs that reached this port's NIC (its flows) */
	fe_counter_t nic_ce_consumed;  /* CE marks cleared before the host saw them */
	fe_counter_t nic_rate_bps;     /* the DCQCN rate of the flow that last changed */
	fe_counter_t nic_rate_min_bps; /* the lowest rate any flow of the port reached */
	fe_counter_t nic_resent_pkts;  /* frames sent again (go-back-N, selective) */
	fe_counter_t nic_resent_bytes;
	fe_counter_t nic_naks_sent, nic_naks_recv;
	fe_counter_t nic_trims_recv; /* trimmed headers that reached this port's NIC (uec) */
	fe_counter_t nic_trim_naks_sent, nic_trim_naks_recv; /* their NAKs, each a frame */
	fe_counter_t nic_trim_naks_last_hop; /* ... of those received, trimmed at the last hop */
	fe_counter_t nic_reps_freezes;	     /* model uec: timeouts that froze a flow's REPS */
	fe_counter_t nic_stopped_trims;	     /* trimmed headers on their way when it stopped */
	fe_counter_t nic_cwnd_bytes, nic_cwnd_min_bytes; /* cc nscc: a window, the least */
	fe_counter_t nic_credit_sent, nic_credit_recv;	 /* cc rccc: grants (ACK frames too) */
	fe_counter_t nic_credit_bytes;			 /* ... the credit this port granted */
	fe_counter_t nic_pull_updates, nic_pull_cuts;	 /* its pull rate's updates, cuts */
	fe_counter_t nic_pull_permille, nic_pull_min_permille; /* ... the rate, the least */
	fe_counter_t nic_credit_blocked;		       /* passes a flow waited for credit */
	/* model uec with pcie: frames its PCIe had no room for (trimmed, in nic_trims_recv),
	 * the most it held (bytes), the least pull rate it allowed (cc rccc, per mille) */
	fe_counter_t nic_pcie_trims, nic_pcie_peak, nic_pcie_min_permille;
	fe_counter_t nic_acks_sent, nic_acks_recv;
	fe_counter_t nic_timeouts;     /* retransmission timeouts (a lost tail) */
	fe_counter_t nic_oos_discards; /* frames after a gap, discarded (go-back-N) */
	fe_counter_t nic_dup_discards; /* frames already delivered, discarded */
	fe_counter_t nic_held_pkts;    /* frames after a gap, held for order (selective) */
	fe_counter_t nic_stray;	       /* not this port's, or of a flow gone (docs/counters.md) */
	fe_counter_t nic_stopped_send; /* in the send queue when the engine stopped: never sent */
	fe_counter_t nic_stopped_recv; /* held for order, or released, not yet to the host */
	fe_counter_t nic_window_full;  /* passes a flow waited for its window */
	fe_counter_t nic_copies;       /* frames in flight, each kept for a resend (gauge) */
	fe_counter_t nic_copies_peak;
	fe_counter_t nic_edge_drops;   /* not a flow's, freed: the ready ring was full */
	fe_counter_t nic_abandoned;    /* frames given up after FE_NIC_RETRIES timeouts */
	fe_counter_t nic_reorder_naks; /* gaps still open after the reorder window: a NAK */
	/* model uec, cc nscc: SLEEK's loss probes sent (sender), received (receiver), and
	 * answers that found the path empty: its unacknowledged frames sent again; probes a
	 * full output trimmed, received and not answered */
	fe_counter_t nic_probes_sent, nic_probes_recv, nic_probe_recoveries, nic_probes_cut;
	/* model host: RoCEv2 reaching this port's host, from real NICs (fe_roce.h) */
	fe_counter_t roce_pkts;	   /* RoCEv2 packets */
	fe_counter_t roce_qps;	   /* queue pairs seen */
	fe_counter_t roce_gaps;	   /* PSN gaps (the fabric lost what was missing) */
	fe_counter_t roce_missing; /* PSNs missing in those gaps */
	fe_counter_t roce_resent;  /* packets at or below the highest PSN seen */
	fe_counter_t roce_rewinds; /* go-back-N episodes: a resend that restarts the sequence */
	fe_counter_t roce_naks, roce_rnr_naks, roce_cnps;
	fe_counter_t roce_untracked; /* packets of queue pairs past the table's size */
};

/*
 * The last source learned and destination looked up on a port's ingress: a burst
 * mostly carries one flow, so most packets skip the table. Valid while the table's
 * generation is unchanged and for at most FE_MAC_CACHE_NS (far below any ageing time).
 */
#define FE_MAC_CACHE_NS 1000000

struct fe_mac_cache {
	uint64_t src, dst; /* 48-bit addresses; UINT64_MAX: none */
	int32_t out;	   /* what fe_mac_lookup() said for dst */
	uint64_t gen;	   /* of the table when filled */
	uint64_t until;	   /* tick after which both are looked up again */
};

struct fe_nicport;
struct fe_graph;
struct fe_nic_flow;
struct fe_regime_ops;
struct fe_graph_conf;

/*
 * A port's wire, as port set-up found it (fe_ports.h), given at start: facts, not a
 * setting. With pause 1 (a NIC's ring, which loses what it cannot hold, under credits or
 * PFC) the engine holds the host back with real 802.1Qbb frames as the adapter queue
 * fills, on every priority (the edge pause, docs/inline.md): a kernel interface or a pcap
 * keeps what the engine leaves unread, a NIC's ring overflows in microseconds.
 */
/*
 * The host's NIC stops FE_EPAUSE_REACT_NS after the box decides to pause it: the frame's
 * own time out, the cable both ways, the NIC's response (802.3 Annex 31B allows 2 to
 * 3 us at 10 to 100 Gbit/s) and the lcore's pass. What it sends meanwhile (frames of 64
 * bytes, the worst case for a ring of descriptors) must fit in three quarters of the
 * port's receive ring (a quarter is left for what came in since the last pass) and the
 * adapter queue's room left at XOFF (fe_epause_holds(), fe_derive.h). The edge pause's
 * "bytes held" are FE_EPAUSE_ROOM less that room, so that fe_pfc's thresholds apply as
 * they are.
 */
#define FE_EPAUSE_REACT_NS 10000
#define FE_EPAUSE_ROOM	   (UINT64_C(1) << 32)

struct fe_wire {
	uint64_t bps;  /* the port's link speed; 0: unknown (then the up link's rate) */
	uint32_t rxd;  /* its receive ring's descriptors */
	uint8_t pause; /* 1: the edge pause */
};

struct fe_port {
	/* host -> switch: its link, impairments and lossless state (fe_linkx.h): the PFC of
	 * this port's ingress into the switch, the host adapter's credits (the switch's
	 * input queues: its graph's, fe_graph.h) */
	struct fe_row up;
	struct fe_row down; /* switch -> host */
	/* the edge pause (fe_wire): priority 0's state is the host's, every priority paused
	 * together; its "bytes held" are FE_EPAUSE_ROOM - the room left (fe_derive.h). It
	 * stays beside the wire, not in the up row: it is the edge's, derived from the
	 * port's speed and receive ring (fe_wire), which neither a down link nor a link
	 * between switches has, and fe_link_derived_apply() sets it for an up link only */
	struct fe_pfc epause;
	struct fe_wire wire;
	struct fe_port_stats st;
	struct fe_mac_cache mac_cache;
	uint16_t port_id;
	uint16_t txq_n;
	uint64_t txq_bytes;  /* bytes in txq */
	uint32_t fast_n;     /* the burst fast path's count for the down link, not yet added */
	uint64_t fast_bytes; /* ... and its bytes (fe_switch_ingress_burst) */
	struct rte_mbuf *txq[FE_BURST]; /* dequeued from down, waiting for TX room */
	/* the tick each staged frame was due to leave its down link (its lateness is taken
	 * when the port takes it); FE_DUE_NONE: the engine's own frame (a PFC pause) */
	uint64_t txq_due[FE_BURST + 1]; /* one past: tx_lateness()'s sentinel */
	struct fe_edge_ring edge;	/* kernel receive stamps (fe_edge.h); base NULL: none */
	struct fe_edge_stats edge_st;	/* how long frames waited at the edge */
	struct fe_nicport *nic;		/* the emulated NIC (fe_nicport.h); NULL: model tcp */
	/* the host's pause (a hold of the down link) and the PFC watchdog (fe_switch.c) */
	uint64_t hold_from;   /* the down link's serializer is held since this tick */
	uint64_t storm_until; /* stormed until this tick; 0: not */
	uint64_t storm_hold;  /* forward: the host's pause ends here (held again after) */
	/* the frames offered before this tick go the watchdog's way (fe_egress_to()): while
	 * stormed, and while the host's pause holds the port under a watchdog; 0: none */
	uint64_t wd_until;
	uint64_t wait_from; /* the first frame the pause held was offered then; MAX: none */
	uint32_t wait_slot; /* ... and is in this slot of the down link */
	char name[FE_PORT_NAME_LEN];
} __rte_cache_aligned;

#define FE_DUE_NONE UINT64_MAX

struct fe_sw_stats {
	fe_counter_t unicast;	      /* forwarded to the one learned port */
	fe_counter_t flooded;	      /* broadcast, multicast or unknown destination */
	fe_counter_t filtered;	      /* destination learned on the ingress port: not sent back */
	fe_counter_t runts;	      /* shorter than an Ethernet header */
	fe_counter_t nombuf;	      /* a flood copy could not be allocated */
	fe_counter_t flood_ends;      /* a flood (copy) with no port or link left to go to: freed */
	fe_counter_t handoff_full;    /* pipeline: the down stage's ring was full (dropped) */
	fe_counter_t handoff_stopped; /* pipeline: between the stages when it stopped: freed */
	/* lossy: frames a host's down link was offered (handed on) before the round's end, the
	 * port's egress staging full (fe_egress.h): out of the merge by ticks */
	fe_counter_t egress_early;
	/* lossy: frames a host's down link was offered ahead of frames the round had staged
	 * before them (fe_egress.h): what offering them as they came would have got wrong */
	fe_counter_t egress_reordered;
	/* lossy: the same on the links between switches (fe_graph.c: a link's stage full; frames
	 * put ahead of frames staged before them) */
	fe_counter_t hop_early;
	fe_counter_t hop_reordered;
	/* to 01:80:C2:00:00:00-0F: stopped at the switch they entered, by cause (fe_rsvd.h) */
	fe_counter_t reserved[FE_RSVD__MAX];
};

/* The loop's own (with --lcores 2, the up stage's): one writer, read by snapshots. */
struct fe_idle_stats {
	fe_counter_t polls;    /* passes of the loop */
	fe_counter_t sleeps;   /* times the loop slept */
	fe_counter_t slept_ns; /* requested sleep, total */
	/* ns from a pass's start to the next one's, when it did not sleep in between: how
	 * long the loop takes to come back to a port (the core taken away included) */
	fe_counter_t pass_hist[FE_QHIST_BUCKETS];
	/* ns the loop woke after the end of the sleep it asked for */
	fe_counter_t wake_late_hist[FE_QHIST_BUCKETS];
};

struct fe_dp_conf {
	enum fe_regime regime;
	uint8_t lanes; /* lanes (VLs, priorities) used, 1..8 */
	enum fe_lane_map lane_map;
	struct fe_pfc_params pfc;
	struct fe_credit_params credit;
	uint64_t seed;		/* PRNG seed of the run (reported, for replay) */
	uint64_t switch_buffer; /* bytes shared by all down links; 0: no shared limit */
	uint64_t mac_age_ns;	/* MAC entries expire after this */
	uint64_t idle_sleep_ns; /* longest idle sleep; 0: busy-poll, never sleep */
	uint32_t idle_spin;	/* empty passes before the first sleep */
	uint64_t exit_idle_ns;	/* stop after this long with no traffic and empty links; 0: never */
	uint32_t measure;	/* --measure: samples of RX-to-TX time kept (power of 2); 0: off */
	uint8_t lcores;		/* 1, or 2: a pipeline (lossy regime only, docs/performance.md) */
	struct fe_nic_params nic;	   /* the hosts' adapters (docs/nic.md) */
	const struct fe_graph_conf *graph; /* several switches (fe_graph.h); NULL: one */
	const struct fe_wire *wire;	   /* each port's wire, copied at start; NULL: none known */
};

/*
 * Two lcores (conf.lcores = 2): a pipeline. The "up" lcore reads the ports, runs the
 * up links and the switch; the "down" lcore runs the down links and sends. Between
 * them, one single-producer/single-consumer ring per egress port carries each packet
 * with its switch stamp and label. Every link, counter and table keeps one writer.
 */
enum fe_dp_role {
	FE_ROLE_ALL = 3,  /* one lcore does everything */
	FE_ROLE_UP = 1,	  /* RX, up links, switch */
	FE_ROLE_DOWN = 2, /* down links, TX */
};

/*
 * Lossy: what a round of the pass brought to one host's down link, offered to it (a
 * pipeline: handed to the down stage) at the round's end in the order of the ticks
 * (fe_egress.h). FE_ESTAGE: four bursts.
 */
#define FE_ESTAGE (4 * FE_BURST)
struct fe_egress_stage {
	uint32_t n;
	struct fe_link_offer h[FE_ESTAGE]; /* .at: reached the switch; .label: FE_LABEL() */
} __rte_cache_aligned;

/* What the down lcore has acknowledged (the up lcore uses the fields of struct fe_dp). */
struct fe_dp_acks {
	uint64_t adopted_gen, reset_done, hold_done;
};

/*
 * The fabric as the user gave it, for reports and for the next change to start from:
 * written when the engine is created and then only by fe_ctlif_change() (fe_ctlif.h),
 * under fe_ctlif_lock(), which its readers on other threads hold. The lcore never reads it.
 */
struct fe_dp_desc {
	struct fe_linkdef *up, *down; /* [nports]: each port's links */
	struct fe_linkdef *hop; /* [graph->nhl]: the links between switches, a direction each */
};

/*
 * A pass takes the links that deliver into the switches one after another, and what one
 * delivers takes an output's room before what the next does: frames that reach one
 * output in the same pass from several links (each link's due by now, in its own time
 * order) would take its room by link number, not in turn, and the lower-numbered link
 * would win every tie and every overlap (two senders, each 0.9 of the line into one
 * port, polled every 10 us: 1,209 frames against 429; test_engine
 * two_inputs_share_an_output_whatever_the_pass). So each pass takes them from a random
 * start, one way or the other: of any two, each goes first in half the passes. A host's
 * down link is then offered what a round brought it in the order of the ticks, equal
 * ticks in this order (fe_egress.h), and a link between switches what the pass gave it
 * (fe_hop_stage(); the links visited by level, each level in this order); where nothing
 * is staged (a limited switch memory), as the pass comes to them, in this order only.
 */
struct fe_order {
	unsigned at, back;
};

static inline struct fe_order
fe_order_draw(struct fe_rng *r, unsigned n)
{
	uint64_t x = fe_rng_next(r);

	return (struct fe_order){.at = n ? (unsigned)((x & 0xffffffffu) % n) : 0,
				 .back = (unsigned)(x >> 63)};
}

/* The next link of the order, of n. */
static inline unsigned
fe_order_next(const struct fe_order *o, unsigned i, unsigned n)
{
	return o->back ? (i ? i - 1 : n - 1) : (i + 1 < n ? i + 1 : 0);
}

struct fe_dp {
	unsigned nports;
	unsigned nlinks; /* the link table's rows: the ports' two each, then the links between
			    switches (fe_dp_link_id()) */
	struct fe_port *ports;
	struct fe_mac_table *mac;
	struct rte_mempool *pool; /* for flood copies */
	uint64_t hz;
	struct fe_dp_conf conf;
	uint64_t start_tsc;
	struct fe_sw_stats sw;
	struct fe_idle_stats idle;
	fe_counter_t *held;	  /* PFC: bytes held per ingress port x priority */
	uint64_t hoq_ticks;	  /* credit: HOQLife; 0: off */
	uint64_t mac_cache_ticks; /* FE_MAC_CACHE_NS, or the ageing time if shorter */
	uint64_t step;		  /* lossless: feedback delay, the loop's time step */
	struct fe_pfc_wd wd;	  /* PFC: the watchdog of every egress queue */
	uint64_t horizon;	  /* lossless: the switch has seen everything up to here */
	/* What the control thread asks, through fe_ctlif.h only (the one writer on its side),
	 * and what the lcore acknowledges; the lcore takes them at a pass start. */
	/* run-time changes (fe_update.h): ctl publishes, the lcore adopts at a pass start */
	struct fe_update *update; /* ctl: wo, then update_gen (release); lcore: ro */
	uint64_t update_gen;	  /* ctl: wo (release), lcore: ro (acquire) */
	uint64_t adopted_gen;	  /* lcore: wo (release), ctl: ro */
	struct rte_rcu_qsbr *qsv; /* the lcore reports quiescence after every pass */
	uint64_t reset_req;	  /* ctl: wo; the lcore zeroes the counters when it changes */
	uint64_t reset_done;	  /* lcore: wo */
	struct fe_tap *tap;	  /* capture of one link (fe_capture.h); ctl: wo, lcore: ro */
	struct fe_measure *meas;  /* --measure: RX-to-TX times (fe_measure.h); NULL: off */
	int filter_dynoff;  /* the filters' verdict in the mbuf, cleared at RX (fe_filter.h) */
	uint8_t live;	    /* run by fe_dp_run(): the TSC is the clock (not a fake one) */
	uint8_t topology;   /* a topology was given (conf.graph); else one switch, which the
			       engine runs as a graph of one all the same */
	uint8_t one_switch; /* the graph has one switch, and no trunk: no route to choose */
	uint8_t trim;	    /* lossy, NIC model uec: what an output has no room for is trimmed
			       (fe_linkop_trim()) */
	/* a trimmed header (or a NIC's own frame) for port q's NIC (fe_nic_trimmed()): the
	 * links below reach the NIC edge above them by this */
	int (*nic_trimmed)(struct fe_dp *dp, unsigned q, struct rte_mbuf *h, uint64_t due);
	/* ... and for hop link h's priority queue (fe_graph_trimmed()), in the graph above */
	int (*hop_trimmed)(struct fe_dp *dp, unsigned h, struct rte_mbuf *m, uint64_t due);
	int lcore_tid[2]; /* the loop's threads (the up or only one, the down one), once they
			     run: for the control thread's look at the scheduler (fe_sched.h) */
	/* hold one link's serializer for a while (a pause storm, credit starvation):
	 * ctl writes link and ticks, then hold_req (release); the lcore answers in hold_done */
	uint32_t hold_link;
	uint64_t hold_ticks;
	uint64_t hold_req, hold_done;
	uint64_t ideal_down;		/* bit q: port q's down link has no rate, delay, gate or
					   impairment (fe_dp_ideal_down(); the burst fast path) */
	struct rte_ring **handoff;	/* pipeline: per egress port, up lcore -> down lcore */
	struct fe_egress_stage *estage; /* lossy: per port, the round's (fe_egress.h) */
	uint64_t estaged;		/* bit q: port q's estage holds frames */
	uint64_t stage_down; /* lossy, bit q: port q's down link is staged (fe_dp_stage_down()) */
	uint8_t pooled;	     /* some switch's memory is limited (fe_dp_pooled(): a merged flush) */
	struct fe_dp_acks down_acks;  /* pipeline: the down lcore's side */
	uint64_t ns_fp;		      /* ns a tick, 32.32 fixed point */
	uint32_t max_frame;	      /* the largest frame a port brings: its mbufs' room */
	int nic_dynoff;		      /* the NIC's field in the mbuf (fe_nicport.c) */
	int nic_pulloff;	      /* ... and its pull target's (fe_nictag.h) */
	struct rte_mempool *nic_pool; /* the NICs' CNPs, ACKs and NAKs: their own */
	uint64_t nic_seen; /* the NICs' last service pass: a NIC timer up to it may fire */
	/* the order a pass takes the ports' up links and the hop links in (fe_order_draw()) */
	struct fe_rng order_rng;
	/* split across boxes: the receiving side of flows whose sender is on another box,
	 * [(port - nports) x FE_NIC_FLOWS] by the sender's port as numbered here (fe_graph.h);
	 * nic_ids: the ports a flow's sender may have here (nports, or nports + nall) */
	struct fe_nic_flow *nic_remote;
	unsigned nic_ids;
	struct fe_graph *graph;		/* the switches (fe_graph.h): one, or a topology's */
	const struct fe_regime_ops *rg; /* the regime's operations, chosen once (fe_regime.h) */
	struct fe_dp_desc desc;		/* as given (above); lcore: - */
};

/*
 * The link table's numbering, the one function that gives it: link n is port i's up link
 * (n = 2 i), its down link (2 i + 1), or link between switches h, one direction
 * (2 nports + h), as changes, reports, captures and PRNG streams number them.
 */
enum fe_link_kind {
	FE_LINK_UP,   /* a host's adapter to its switch */
	FE_LINK_DOWN, /* a switch to a host */
	FE_LINK_HOP,  /* one switch to another (fe_graph.h) */
};

static inline unsigned
fe_dp_link_id(const struct fe_dp *dp, enum fe_link_kind k, unsigned i)
{
	return k == FE_LINK_HOP ? 2 * dp->nports + i : 2 * i + (k == FE_LINK_DOWN);
}

/* A port's link n (below the links between switches): up or down, of port *i. */
static inline enum fe_link_kind
fe_dp_port_link(unsigned n, unsigned *i)
{
	*i = n / 2;
	return n % 2 ? FE_LINK_DOWN : FE_LINK_UP;
}

static inline enum fe_link_kind
fe_dp_link_kind(const struct fe_dp *dp, unsigned n, unsigned *i)
{
	if (n >= 2 * dp->nports) {
		*i = n - 2 * dp->nports;
		return FE_LINK_HOP;
	}
	return fe_dp_port_link(n, i);
}

/* The rows of the table that are the ports' links: 0 to this, less one. */
static inline unsigned
fe_dp_port_links(const struct fe_dp *dp)
{
	return fe_dp_link_id(dp, FE_LINK_HOP, 0);
}

/*
 * Link n's definition as the user gave it (dp->desc, below: the control side's; the row,
 * fe_dp_row(), holds what the engine compiled from it).
 */
static inline struct fe_linkdef *
fe_dp_link_def(const struct fe_dp *dp, unsigned n)
{
	unsigned i;

	switch (fe_dp_link_kind(dp, n, &i)) {
	case FE_LINK_UP:
		return &dp->desc.up[i];
	case FE_LINK_DOWN:
		return &dp->desc.down[i];
	default:
		return &dp->desc.hop[i];
	}
}

/* Link n's name as users write it ("0.up", "leaf1>spine2"), into buf (fe_graph.c). */
const char *fe_dp_link_name(const struct fe_dp *dp, unsigned n, char *buf, size_t len);

/*
 * fe_dp_next_event's step: the earlier of next and t, if t is after `after` (what was
 * due by then and did not move waits for something else); after 0: any t.
 */
static inline uint64_t
fe_later(uint64_t next, uint64_t t, uint64_t after)
{
	return t < next && (after == 0 || t > after) ? t : next;
}

/* Ticks of the TSC in ns (fe_time.h). */
static inline uint64_t
fe_dp_tsc_ns(const struct fe_dp *dp, uint64_t tsc)
{
	return fe_fp_to_ns(tsc, dp->ns_fp);
}

/*
 * Create the engine for nports ethdev ports (already started), with link definitions
 * up[i] and down[i], compiled here for a TSC of hz. Returns NULL with a message in err.
 */
struct fe_dp *fe_dp_create(unsigned nports, const uint16_t *port_ids, const struct fe_linkdef *up,
			   const struct fe_linkdef *down, struct rte_mempool *pool, uint64_t hz,
			   const struct fe_dp_conf *conf, char *err, size_t errlen);

/* One pass: RX every port, move due packets across the switch, TX. Returns work done. */
unsigned fe_dp_poll(struct fe_dp *dp, uint64_t now);

/*
 * Earliest tick at which something queued becomes due (a frame, a credit, a pause's end,
 * a NIC's timer); 0 if a frame waits for the TX ring, UINT64_MAX if nothing will. Called
 * after a pass at `now` that did no work. Under credits, what was due by then waits
 * for something else (a credit back, room in a buffer: a frame leaving it, a HOQLife),
 * and only the events after it count, so an idle loop sleeps until the first; in the
 * other regimes, and for the NICs, a time due already is "now", as it always was.
 */
uint64_t fe_dp_next_event(const struct fe_dp *dp, uint64_t now);

/* Packets held inside the engine (links and TX staging). */
uint64_t fe_dp_held(const struct fe_dp *dp);

/* The lcore loop: poll until *stop becomes non-zero (or exit_idle_ns passes idle). */
void fe_dp_run(struct fe_dp *dp, const volatile int *stop);

/* Pipeline (conf.lcores = 2): one pass of each stage, and each stage's loop. */
unsigned fe_dp_poll_role(struct fe_dp *dp, enum fe_dp_role role, uint64_t now);
void fe_dp_run_role(struct fe_dp *dp, enum fe_dp_role role, const volatile int *stop);

/* The oldest of what the lcores acknowledged: an update generation, a reset, a hold. */
static inline uint64_t
fe_dp_ack(const struct fe_dp *dp, const uint64_t *up_field, const uint64_t *down_field)
{
	uint64_t a = __atomic_load_n(up_field, __ATOMIC_ACQUIRE), b;

	if (dp->handoff == NULL)
		return a;
	b = __atomic_load_n(down_field, __ATOMIC_ACQUIRE);
	return a < b ? a : b;
}

/*
 * Time the frames a port receives by the kernel's stamps in its AF_PACKET ring
 * (fe_edge.h); before the loop starts. ring NULL: untimed.
 */
void fe_dp_set_edge(struct fe_dp *dp, unsigned port, const struct fe_edge_ring *ring);

/* Free every packet the engine holds (after the loop has stopped). */
void fe_dp_drain(struct fe_dp *dp);

void fe_dp_free(struct fe_dp *dp);

/*
 * Another box's share of link i (of its kind)'s compiled configuration, taken off cfg
 * before the link starts: a hop link's trunk (fe_trunk_split_delay()). 0, or -EINVAL
 * with a message in err.
 */
typedef int fe_row_split_fn(const struct fe_dp *dp, unsigned i, struct fe_link_cfg *cfg, char *err,
			    size_t errlen);

/*
 * Start row r, link n of the table (name: its name in err's messages), from its definition
 * d, whatever its kind: its link (split, if not NULL, takes its share off first; its slots
 * on socket), its impairments (PRNG stream n), and, for a link that feeds a switch, its
 * lossless state: gated in a lossless regime, its sender's credits (the fabric's buffer,
 * per lane) in the credit regime. Its PFC thresholds and credit return are derived with
 * the rest (fe_derive.h). 0, or -EINVAL or -ENOMEM with a message in err; what it took,
 * fe_row_free() frees, whether it started or not (fe_linkop.c).
 */
int fe_row_setup(struct fe_dp *dp, struct fe_row *r, unsigned n, const char *name,
		 const struct fe_linkdef *d, fe_row_split_fn *split, int socket, char *err,
		 size_t errlen);
/* Free what fe_row_setup() took for r (a row all zeros: nothing). */
void fe_row_free(struct fe_row *r);
/* Frames port p's up link (the host adapter's queue) has room for now, at most max, each
 * counted as the largest frame a port brings (dp->max_frame; fe_linkop.c). */
uint32_t fe_dp_up_room(const struct fe_dp *dp, struct fe_port *p, uint64_t now, uint32_t max);

/*
 * The frames a queue of cfg c still takes, at most room, with pkts and bytes in it: each
 * counted as the largest frame, so that no byte limit is ever crossed; a change may have
 * cut the buffer below what waits in it: no room then, not a wrap.
 */
static inline uint64_t
fe_dp_queue_room(const struct fe_link_cfg *c, uint64_t pkts, uint64_t bytes, uint32_t max_frame,
		 uint64_t room)
{
	if (c->limit_pkts)
		room = RTE_MIN(room, c->limit_pkts - RTE_MIN((uint64_t)c->limit_pkts, pkts));
	if (c->limit_bytes)
		room = RTE_MIN(room, (c->limit_bytes - RTE_MIN(c->limit_bytes, bytes)) / max_frame);
	return room;
}

#endif
