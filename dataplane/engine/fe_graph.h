/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_graph: the fabric as a graph of switches (a topology, docs/topologies.md) inside the
 * engine. Each port's host is on a switch; switches are joined by links, each direction
 * an emulated link of its own (a hop link). Internal to the engine, on its lcore.
 *
 *   port p RX -> up[p] -> switch S(p) -> hop links, switch by switch -> S(q) -> down[q]
 *
 * The destination port is looked up once, at the ingress switch (a host's address is
 * known fabric-wide once its edge switch learned it); every switch on the way picks one of
 * its routes' next hops (fe_route.h) by the path choice; a flood follows the breadth-first
 * tree of its ingress switch and never loops.
 *
 * Lossless hop by hop. Every switch ingress (a host's up link, or a hop link) is an
 * "input", numbered: ports 0..nports-1, then hop link h as nports + h.
 *   PFC      the bytes a switch holds from each input and priority (in its egress links)
 *            pause that input's sender at XOFF: a hop link's own gate, or the host's.
 *            A congested egress fills, its inputs pause their senders, whose egress
 *            queues fill in turn: pauses climb the fabric.
 *   credit   every hop link has its own credit loop; every switch queues what it
 *            received per input and lane, and moves a head only while its output has
 *            room (head-of-line blocking, HOQLife): a congestion tree. A frame that
 *            finds its switch's queues empty and room at its output crosses at once.
 * A cycle of hop links each held at its gate (paused, or out of credits) for the deadlock
 * time, each holding what the next one waits to send, is a deadlock: reported once as
 * an event naming the cycle. The PFC watchdog (fe_pfc_params) storms a hop link paused
 * too long: what waits on it is dropped, or sent regardless of pauses.
 */
#ifndef FE_GRAPH_H
#define FE_GRAPH_H

#include <string.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "fe_credit.h"
#include "fe_dp.h"
#include "fe_express.h"
#include "fe_path.h"
#include "fe_pfc.h"

#define FE_GRAPH_SW	  64
#define FE_GRAPH_PORTS	  255 /* a graph's port numbers: its own ports, then the fabric's */
#define FE_GRAPH_TRUNKS	  32  /* links between boxes ending here */
#define FE_GRAPH_WAYS	  16  /* next hops kept a route (the rest unused) */
#define FE_GRAPH_BUCKET	  64  /* flows told apart a pair of ports, for reordering */
#define FE_GRAPH_FLOWLETS 256 /* flows told apart a switch, for flowlets */

/*
 * Split across boxes (docs/scale-out.md): each box runs the switches assigned to it and
 * knows the whole fabric (its switches, its ports, its routes). A direction of a link
 * whose ends are on two boxes is modelled by the box of its sender (queue, serialization,
 * delay less the real link's one-way latency, impairments); the real link (a trunk: a
 * port on each box) carries what it delivers, in a fabric header that gives its route
 * (struct fe_trunk_hdr), and back the receiver's flow control: 802.1Qbb frames under PFC,
 * credit frames under credits.
 */
enum fe_hl_side {
	FE_HL_HERE, /* both switches here */
	FE_HL_SEND, /* from a switch here to one on another box: the trunk takes its frames */
	FE_HL_RECV, /* from a switch on another box: the trunk brings its frames */
	FE_HL_AWAY, /* both switches elsewhere: never used here */
};

#define FE_TRUNK_ETHERTYPE 0x88b5 /* IEEE 802 local experimental EtherType 1 */
#define FE_TRUNK_VERSION   2	  /* 2: the pull target after the tag */
#define FE_TRUNK_DATA	   1 /* its lateness (4 bytes), route (8), NIC tag (8), pull (4), the frame */
#define FE_TRUNK_CREDIT	   2 /* credits returned: n x struct fe_trunk_credit */
#define FE_TRUNK_PROBE	   3 /* the sender's clock (8 bytes), its topology's hash (4) */
#define FE_TRUNK_ECHO	   4 /* a probe sent back as it came */
/* FE_TRUNK_HDR (fe_fabric.h): Ethernet (14), version, type, link direction (2), late (4),
 * route (8), the emulated NIC's tag (8: its flow and PSN, fe_nicport.c; 0 without one),
 * its data frame's pull target (4: cc rccc, fe_nictag.h) */
#define FE_TRUNK_CREDITS 32  /* credit returns a credit frame carries */
#define FE_TRUNK_DUE	 512 /* frames a trunk holds until the pass reaches their tick */

#define FE_TRUNK_COMMON 18 /* bytes every trunk frame starts with (fe_trunk_hdr()) */

/*
 * The 18 bytes every trunk frame of fabemu's starts with: Ethernet to a multicast address
 * of its own (the link is point to point), from src; the version, the type, and the link
 * (a direction for frames and credits, a link for probes).
 */
static inline void
fe_trunk_hdr(uint8_t *f, const uint8_t src[6], uint8_t type, unsigned link)
{
	static const uint8_t dst[6] = {0x03, 0xfe, 0x00, 0x00, 0x00, 0x01};

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = FE_TRUNK_ETHERTYPE >> 8;
	f[13] = FE_TRUNK_ETHERTYPE & 0xff;
	f[14] = FE_TRUNK_VERSION;
	f[15] = type;
	f[16] = (uint8_t)(link >> 8);
	f[17] = (uint8_t)link;
}

/* A credit return in a credit frame: lane, blocks, and how long ago it was freed. */
struct fe_trunk_credit {
	uint8_t lane, pad;
	uint16_t blocks; /* network order */
	uint32_t age_ns; /* network order */
};

/* A link between boxes ending here: its port, its directions, what crossed it. */
struct fe_trunk {
	uint16_t port;	     /* the DPDK port */
	uint16_t send, recv; /* its directions: the one sent from here, the one received */
	uint8_t mac[6];	     /* the port's, the frames' source */
	uint64_t lat_ticks;  /* the real link's one-way latency, subtracted */
	uint16_t ntx;
	struct rte_mbuf *tx[FE_BURST]; /* staged, sent once a pass */
	uint16_t ncred;
	struct {
		uint64_t t;
		uint32_t blocks;
		uint8_t lane;
	} cred[FE_TRUNK_CREDITS]; /* credits freed here for the sender, not yet sent */
	/* frames of the fabric come, due at a tick the loop's pass has not reached (the pass
	 * runs behind the TSC): held in order until it does */
	uint32_t due_head, due_tail;
	struct {
		struct rte_mbuf *m;
		uint64_t at;
	} due[FE_TRUNK_DUE];
	/* counters, tx_frames to echoes in order (fe_adopt_reset() clears them as a range) */
	fe_counter_t tx_frames, rx_frames; /* frames of the fabric carried */
	fe_counter_t tx_pfc, rx_pfc;	   /* 802.1Qbb frames */
	fe_counter_t tx_credit, rx_credit; /* credit frames */
	fe_counter_t tx_full;		   /* frames the port did not take: lost, counted */
	fe_counter_t rx_bad;		   /* frames not of the fabric, or for another link */
	fe_counter_t nombuf;		   /* control frames not sent for want of an mbuf */
	fe_counter_t rx_stopped;	   /* frames of the fabric come, not yet due, then: freed */
	fe_counter_t probes;		   /* latency probes answered */
	fe_counter_t echoes;		   /* answers to this box's probes that came once it ran */
};

/* Trimmed headers on a hop link's priority queue (fe_graph_trimmed(), fe_express.h), at most */
#define FE_HL_EXPRESS 64

/* One direction of a link between two switches. */
struct fe_hoplink {
	/* its link, impairments and lossless state (fe_linkx.h): the PFC of the receiving
	 * switch's ingress, the credits the sending switch holds */
	struct fe_row row;
	uint16_t from, to;	     /* switches */
	char name[80];		     /* "leaf1>spine2": from > to */
	char lname[72];		     /* its link's, both ways: "leaf1-spine2" */
	struct fe_linkdef_over topo; /* what the topology sets over the class */
	uint64_t down_seen;	     /* loss 100 %: when a switch first found it so (0: up) */
	uint8_t routed_around;	     /* down past the failover time: routes leave it out */
	fe_counter_t failovers;	     /* times the switches routed around it (down) */
	uint64_t storm_until;	     /* PFC watchdog: stormed until this tick (0: not) */
	fe_counter_t storms;	     /* times the watchdog stormed it */
	fe_counter_t wd_forwarded;   /* frames it sent through a pause, stormed (forward) */
	/* lossy: frames it was offered at a tick before a frame offered ahead of them (a pass
	 * takes its inputs one after another: docs/architecture.md), and that latest tick */
	fe_counter_t behind;
	uint64_t last_in;
	uint8_t level; /* lossy: the pass visits the links by it (fe_routing.c levels()) */
	uint8_t side;  /* enum fe_hl_side */
	uint8_t trunk; /* SEND, RECV: its link's trunk (g->trunk[]) */
	/* its priority queue of trimmed headers: each arrives at the next switch at its tick,
	 * ahead of the data queued before it (over xs[]) */
	struct fe_express xq;
	struct fe_express_slot xs[FE_HL_EXPRESS];
};

#define FE_GRAPH_CYCLE	  16 /* hop links named in a deadlock event */
#define FE_GRAPH_VL_STALL 7  /* HOQLife discards in a row that stall an output (IBTA) */
#define FE_GRAPH_EVENTS	  8  /* deadlock events kept (the last ones) */

/* A cycle of hop links found held at their gates past the deadlock time. */
struct fe_graph_deadlock {
	uint64_t at; /* tick */
	uint16_t n;
	uint16_t hop[FE_GRAPH_CYCLE];
};

/* Credits: an output's HOQLife discards in a row, and until when it is stalled. */
struct fe_stall {
	uint64_t until;
	uint32_t row;
};

/* Where a queued frame goes next (credit regime's input queues: fe_iq_slot.out). */
#define FE_GOUT_FLOOD (-1)
#define FE_GOUT_PORT  0x10000 /* | port; below it: a hop link */

/* What fe_dp_create takes to build the graph (conf.graph); NULL: one switch. */
struct fe_graph_conf {
	unsigned nsw;
	const char (*sw_names)[32];	    /* [nsw] */
	const uint8_t *port_sw;		    /* [nports]: the switch of each port */
	unsigned nlinks;		    /* links between switches: both directions each */
	const uint16_t (*ends)[2];	    /* [nlinks]: a, b */
	const struct fe_linkdef *def;	    /* [2 x nlinks]: each direction (hop link), all of it */
	const char (*dir_names)[80];	    /* [2 x nlinks]: "leaf1>spine2" ("a>b.2": parallel) */
	const char (*link_names)[72];	    /* [nlinks]: "leaf1-spine2" */
	const struct fe_linkdef_over *topo; /* [nlinks] */
	const uint64_t *sw_buffer;	    /* [nsw]: its egress queues' memory; 0: the fabric's */
	uint64_t failover_ns;		    /* a link down this long is routed around; 0: 100 us */
	const uint8_t (*nnh)[FE_GRAPH_SW];  /* [nsw][nsw] next hops from s toward d */
	/* [nsw][nsw][FE_GRAPH_WAYS]: hop link (2 x link + dir) of each next hop */
	const uint16_t (*nh)[FE_GRAPH_SW][FE_GRAPH_WAYS];
	/* [nsw][nsw]: the hop link reaching s in the tree rooted at r (UINT16_MAX: r) */
	const uint16_t (*tree)[FE_GRAPH_SW];
	enum fe_path path;
	uint64_t deadlock_ns; /* a cycle held this long is a deadlock; 0: 10 ms */
	uint64_t flowlet_ns;  /* flowlet: the gap that starts a new one; 0: 100 us */
	/* split across boxes (NULL: every switch here, the ports the fabric's) */
	const uint8_t *sw_here;	      /* [nsw]: the switch runs here */
	const uint16_t *trunk;	      /* [nlinks]: the port of a link between boxes, else
					 UINT16_MAX */
	const uint64_t *trunk_lat_ns; /* [nlinks]: its one-way latency (NULL: 0) */
	unsigned nall;		      /* the fabric's ports, every box's */
	const uint8_t *all_sw;	      /* [nall]: the switch of each */
	const uint8_t *gport;	      /* [nports]: the fabric's number of each port here */
};

/* A flow's current flowlet at a switch (path flowlet). */
struct fe_flowlet {
	uint64_t last; /* its last frame here */
	uint32_t hash;
	uint16_t way;
};

/*
 * Lossy: what a link between switches is given while a pass goes on, offered to it in the
 * order of the ticks when the pass comes to the link (fe_graph.c arrivals()); bytes: what
 * it holds, counted as queued by a choice by the queues (fe_routing.c). FE_HSTAGE: four
 * bursts; a fifth offers them at once (switch.hop_early).
 */
#define FE_HSTAGE (4 * FE_BURST)
struct fe_hop_stage {
	uint32_t n;
	uint32_t bytes;
	struct fe_link_offer o[FE_HSTAGE];
};

struct fe_graph {
	unsigned nsw, nhl;
	enum fe_path path;
	struct fe_hoplink *hl; /* [nhl] */
	/* lossy, unless a switch's memory is limited (stage_hops, fe_dp_stage_hops()): each
	 * link's stage and how many hold frames. The pass visits the links by level (the
	 * farthest a link is from a route's first switch: a frame reaches it after it crossed
	 * the links of lower levels), in an order drawn within each (fe_routing_build()) */
	struct fe_hop_stage *hstage; /* [nhl] */
	unsigned nstaged;
	uint8_t stage_hops;
	uint16_t *visit;		   /* [nhl]: the links, by level */
	uint16_t lvl_end[FE_GRAPH_SW + 2]; /* visit[lvl_end[v - 1] .. lvl_end[v]): level v */
	unsigned nlvl;
	/* ports, numbered here: 0..nports-1 this box's, nports + G the fabric's port G on
	 * another box (split across boxes); the switch of each, and the fabric's numbers */
	uint8_t port_sw[FE_GRAPH_PORTS + 1];
	uint8_t loc[FE_GRAPH_PORTS + 1];  /* the fabric's port G: its number here */
	uint8_t glob[FE_GRAPH_PORTS + 1]; /* a number here: the fabric's port */
	unsigned ntrunks;
	struct fe_trunk *trunk; /* [ntrunks] */
	/* PFC and credits: hop links are not pumped to the tick of each frame offered
	 * (fe_graph.c pfc_at_offer(), credit_at_offer()), only by the pass's pump: the model
	 * before, which tests compare against; 0 but in tests */
	uint8_t pump_only;
	/* the NIC's field (fe_nicport.c), carried over the trunks; nic_tags: a NIC writes it
	 * here (the boxes agree on the NIC model: fabemu-dp --box checks it) */
	int tagoff, pulloff; /* and a data frame's pull target's (fe_nictag.h) */
	uint8_t nic_tags;
	uint8_t nnh[FE_GRAPH_SW][FE_GRAPH_SW]; /* the routes now (failover: round links down) */
	uint16_t nh[FE_GRAPH_SW][FE_GRAPH_SW][FE_GRAPH_WAYS];
	/* where a frame for port q goes from switch x, from port_sw, nnh and nh (fe_routing.h
	 * fe_routing_next()): FE_GOUT_PORT | q, its one hop link, or a choice among several */
	int32_t go[FE_GRAPH_SW][FE_GRAPH_PORTS + 1];
	uint8_t nnh0[FE_GRAPH_SW][FE_GRAPH_SW]; /* the topology's, all links up */
	uint16_t nh0[FE_GRAPH_SW][FE_GRAPH_SW][FE_GRAPH_WAYS];
	/* broadcast trees now (failover: round links down): [r][s] the hop link reaching s
	 * in the tree rooted at r, UINT16_MAX at r; tree0: the topology's, all links up */
	uint16_t tree[FE_GRAPH_SW][FE_GRAPH_SW];
	uint16_t tree0[FE_GRAPH_SW][FE_GRAPH_SW];
	uint32_t seed[FE_GRAPH_SW];
	uint32_t rr[FE_GRAPH_SW]; /* spray: the next way, per switch */
	struct fe_rng rng;	  /* spray-random */
	/* each switch's packet memory, shared by its egress queues (its links out: to the
	 * switches next, and to its hosts); pool_fixed[s]: set by the topology (else the
	 * fabric's switch buffer, which `set switch buffer=` changes) */
	struct fe_link_pool pool[FE_GRAPH_SW];
	uint8_t pool_fixed[FE_GRAPH_SW];
	char sw_name[FE_GRAPH_SW][32];
	struct fe_flowlet (*flowlet)[FE_GRAPH_FLOWLETS]; /* [nsw] */
	uint64_t flowlet_ticks;
	uint64_t failover_ticks;
	int any_down; /* a link between switches is down, or was routed around: failover runs */
	/* PFC: an input of a link between switches may be paused or stormed (the pass then
	 * looks at each for XON and the watchdog; not: at none) */
	int pfc_busy;
	fe_counter_t flowlets; /* new flowlets of a flow already seen (a gap moved it) */
	int dynoff;	       /* the frame's route in the mbuf: fe_graph.c */
	/* reordering: per ingress port, destination port and flow bucket */
	uint32_t (*seq_tx)[FE_GRAPH_BUCKET];			 /* [nports] x bucket */
	uint32_t (*seq_rx)[FE_GRAPH_PORTS + 1][FE_GRAPH_BUCKET]; /* [nports] x in x bucket */
	fe_counter_t ooo[RTE_MAX_ETHPORTS];			 /* per destination port */
	/* lossless */
	unsigned nin;		     /* inputs: nports + nhl */
	struct fe_iq *iq;	     /* credit: [nin x FE_LANES_MAX] input queues */
	uint64_t iq_pkts;	     /* frames in them */
	struct fe_credit_unit cunit; /* credit: the inputs' block (--credit unit) */
	uint32_t sw_iq[FE_GRAPH_SW]; /* credit: frames in each switch's input queues */
	struct fe_stall *stall;	     /* credit: [nin] each output (ports' down links, hop links) */
	fe_counter_t stalls;	     /* outputs stalled (VLStallCount HOQLife discards in a row) */
	uint32_t *rr_out; /* credit: [nin] each output's arbiter: the queue it took from last */
	uint32_t *best;	  /* credit: [nin] scratch: each output's pick this round (or none) */
	struct fe_credit **cred; /* credit: [nin] each input's sender's loop (NULL: another box) */
	/* credit: bit qi of iq_busy is set when input queue qi may hold a frame (every push
	 * sets it; a round clears it once it finds the queue empty); bit o of picked, when
	 * output o has a pick this round. A round visits those, not every queue and output. */
	uint64_t *iq_busy;	    /* [(nin x FE_LANES_MAX + 63) / 64] */
	uint64_t *picked;	    /* [(nin + 63) / 64] */
	uint64_t dl_ticks, dl_next; /* deadlock time; the next check */
	int in_deadlock;	    /* the last check found a cycle (reported once) */
	/* deadlock events: the lcore writes ev[nev % FE_GRAPH_EVENTS], then nev (release) */
	struct fe_graph_deadlock ev[FE_GRAPH_EVENTS];
	uint64_t nev;
};

/*
 * A frame's route, in its mbuf (g->dynoff): the destination port (FE_ROUTE_FLOOD: a
 * flood), the ingress port, the ingress switch (a flood's tree), its lane, its flow's hash
 * (taken once, at the ingress switch) and its sequence in its flow (reordering, modulo
 * 2^16). The ingress switch writes it (fe_routing_in()); a trunk carries it (fe_trunk.c).
 */
#define FE_ROUTE_DST(r)	   ((unsigned)((r)&0xff))
#define FE_ROUTE_IN(r)	   ((unsigned)((r) >> 8 & 0xff))
#define FE_ROUTE_ORIGIN(r) ((unsigned)((r) >> 16 & 0xff))
#define FE_ROUTE_LANE(r)   ((uint8_t)((r) >> 24 & 0xff))
#define FE_ROUTE_HASH(r)   ((uint32_t)((r) >> 32 & 0xffff))
#define FE_ROUTE_SEQ(r)	   ((uint16_t)((r) >> 48))
#define FE_ROUTE_FLOOD	   0xff

static inline uint64_t *
fe_graph_route(const struct fe_graph *g, struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, g->dynoff, uint64_t *);
}

/* A frame of route r to port q: a frame behind one of its flow that left later was
 * reordered on the way (counted per destination port, in the order the port's down link
 * is offered them). */
static __rte_always_inline void
fe_graph_count_order(struct fe_graph *g, unsigned q, uint64_t r)
{
	uint32_t *last = &g->seq_rx[q][FE_ROUTE_IN(r)][FE_ROUTE_HASH(r) % FE_GRAPH_BUCKET];

	if (FE_ROUTE_DST(r) == FE_ROUTE_FLOOD)
		return;
	if ((int16_t)(FE_ROUTE_SEQ(r) - (uint16_t)*last) < 0)
		FE_CNT_ADD(g->ooo[q], 1);
	else
		*last = FE_ROUTE_SEQ(r);
}

/*
 * A link between switches that loses everything (loss=100%: a flap, a cut) is down; one
 * that loses only what a filter matches (loss=100%,match=...) carries the rest: up.
 */
static inline int
fe_graph_link_down(const struct fe_hoplink *h)
{
	return h->row.x.cfg.loss.ops != NULL && h->row.x.cfg.loss_cause == FE_LINK_DROP_RANDOM &&
	       h->row.x.cfg.loss.p >= FE_PROB_ONE && h->row.x.cfg.filter == NULL;
}

/* After a change (fe_update.c): failover looks at the links again next pass. */
static inline void
fe_graph_links_changed(struct fe_graph *g)
{
	g->any_down = 1;
}

/* The link between switches named `name` (one direction, "leaf1>spine2"), or -1. */
static inline int
fe_graph_link_by_name(const struct fe_graph *g, const char *name)
{
	for (unsigned i = 0; g && name && i < g->nhl; i++)
		if (strcmp(name, g->hl[i].name) == 0)
			return (int)i;
	return -1;
}

/* The PFC state of input src (a port's, or a hop link's receiver). */
static inline struct fe_pfc *
fe_graph_input_pfc(struct fe_dp *dp, unsigned src)
{
	return src < dp->nports ? &dp->ports[src].up.pfc : &dp->graph->hl[src - dp->nports].row.pfc;
}

/*
 * Row n of the link table (fe_dp_link_id() numbers the rows): a port's up or down link, or
 * a link between switches, its link model and its impairments together. Here, the lowest
 * header that sees both a port and a link between switches. A const dp gives a row its
 * caller may only read (the control side: fe_ctlif.h is its way to change one).
 */
static inline struct fe_row *
fe_dp_row(const struct fe_dp *dp, unsigned n)
{
	unsigned i;

	switch (fe_dp_link_kind(dp, n, &i)) {
	case FE_LINK_UP:
		return &dp->ports[i].up;
	case FE_LINK_DOWN:
		return &dp->ports[i].down;
	default:
		return &dp->graph->hl[i].row;
	}
}

int fe_graph_create(struct fe_dp *dp, const struct fe_graph_conf *c, int socket, char *err,
		    size_t errlen);
void fe_graph_free(struct fe_graph *g);

/*
 * Once a regime (sfx: lossy, pfc, credit; the engine reaches them through dp->rg):
 *   fe_graph_ingress_sfx(dp, in, out, m, t, lane): the ingress switch of port `in` takes m
 *     (out: fe_switch's lookup: a port, -1 flood, -2 filtered);
 *   fe_graph_service_sfx(dp, now): frames the hop links delivered by now, each on at its
 *     switch, and the regime's hop-by-hop work; how many moved.
 */
#define FE_GRAPH_DECLARE(sfx)                                                                      \
	void fe_graph_ingress_##sfx(struct fe_dp *dp, unsigned in, int out, struct rte_mbuf *m,    \
				    uint64_t t, uint8_t lane);                                     \
	unsigned fe_graph_service_##sfx(struct fe_dp *dp, uint64_t now);
FE_GRAPH_DECLARE(lossy)
FE_GRAPH_DECLARE(pfc)
FE_GRAPH_DECLARE(credit)

/*
 * One lane: the ingress switch of port `in` takes n frames at once (n at most FE_BURST),
 * pkts[i] at stamps[i] with fe_switch's lookup outs[i] (a port, -1 to flood, -2 filtered:
 * the port's own); the same as n calls of fe_graph_ingress_lossy() (_pfc(), _credit()),
 * with the frames bound for the same link between switches in a row offered to it at once
 * (fe_link_enqueue_burst(); PFC, a run it decides nothing for; credits, those that cross
 * at once: fe_link_enqueue_while_room()).
 */
void fe_graph_ingress_burst_lossy(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,
				  const uint64_t *stamps, const int *outs, unsigned n);
void fe_graph_ingress_burst_pfc(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,
				const uint64_t *stamps, const int *outs, unsigned n);
void fe_graph_ingress_burst_credit(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,
				   const uint64_t *stamps, const int *outs, unsigned n);

/* Where an 802.1Qbb frame over a trunk carries its age (ns, 4 bytes): in its padding,
 * which the standard leaves unread. */
#define FE_TRUNK_PFC_AGE 40

/* The shortest feedback delay of the hop links (fe_dp_causal_step); UINT64_MAX: none. */
uint64_t fe_graph_step(const struct fe_dp *dp);

uint64_t fe_graph_next_event(const struct fe_dp *dp, uint64_t after); /* fe_dp_next_event's */
uint64_t fe_graph_held(const struct fe_dp *dp);

/*
 * Lossy, NIC model uec: a switch trimmed a frame on hop link h, and its header h goes on
 * the link's priority queue (the control class a trimming switch sends trimmed headers
 * in), to arrive at the next switch at due, ahead of the data the link holds; the link
 * counted it in, and counts it out when it arrives. 0; -1 if that queue is full (the
 * header is still the caller's). dp->hop_trimmed.
 */
int fe_graph_trimmed(struct fe_dp *dp, unsigned h, struct rte_mbuf *m, uint64_t due);
void fe_graph_drain(struct fe_dp *dp);

#endif
