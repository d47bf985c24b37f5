/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_nicport: the emulated NIC (fe_nic.h) on a port of the engine. Internal to the
 * engine; called only from fe_dp.c on the lcore (one lcore: a pipeline refuses it).
 *
 *   host -> port RX -> fe_nic_rx(): each flow's frames wait in the NIC's send queue
 *        -> fe_nic_service(): paced by DCQCN, numbered (PSN), kept for a resend
 *        -> up link -> switch -> down link of the receiver
 *        -> fe_nic_deliver(): CE consumed (CNP back), order checked (NAK back, frames
 *           out of sequence discarded or held), ACKs back; CNPs, ACKs and NAKs that
 *           reach the sender's port are consumed there and never reach a host.
 *
 * The NIC's frames (CNP, ACK, NAK) are real frames in the fabric: they take the
 * reverse path's links, queues, lanes and losses.
 */
#ifndef FE_NICPORT_H
#define FE_NICPORT_H

#include "fe_dp.h"
#include "fe_express.h"
#include "fe_nscc.h"
#include "fe_pcie.h"
#include "fe_rccc.h"
#include "fe_reps.h"
#include "fe_roce.h"

#define FE_NIC_FLOWS	   64	/* flows a port's NIC tells apart; more share state (counted) */
#define FE_NIC_PENDING	   4096 /* frames a port's send queue holds (then the host waits) */
#define FE_NIC_READY	   4096 /* frames released in order, waiting for TX staging */
#define FE_NIC_READY_BYTES 512	/* ... and with the host's PCIe, a place a this many bytes */
#define FE_ROCE_QPS	   256	/* queue pairs model host tells apart a port (then counted) */
/*
 * What a NIC lets wait in its up link's buffer, bytes: a NIC arbitrates between its
 * queue pairs frame by frame, so an ACK or a CNP waits behind a few frames, not behind a
 * flow's window. The rest waits in the NIC.
 */
#define FE_NIC_TXQ_BYTES (8 * 1518)
#define FE_NIC_TRIMQ	 256 /* trimmed headers on their way down a port's link, at most */

/*
 * Trimmed header h (or a NIC's own frame) reaches port q's NIC at tick due (>= now): it
 * crossed q's down link on the switch's queue of trimmed headers and control frames,
 * which goes before the data's. 0, or -1 if that queue is full (h still the caller's).
 */
int fe_nic_trimmed(struct fe_dp *dp, unsigned q, struct rte_mbuf *h, uint64_t due);

/* Timeouts in a row with no progress before a flow gives up (IBTA's retry_cnt, max 7). */
#define FE_NIC_RETRIES 7

struct fe_nic_copy {
	struct rte_mbuf *m; /* a reference kept for a resend; NULL: none */
	uint8_t ecn;	    /* the ECN field it was sent with */
	uint8_t again;	    /* to be sent again */
	uint8_t sacked;	    /* model uec: the receiver holds it (selective ACK): not in flight */
	uint8_t ev;	    /* model uec: the entropy it was sent with (REPS) */
	uint8_t not_ect;    /* its host sent it Not-ECT: it goes ECT(0) (FE_TAG_ECT) */
	uint64_t sent;	    /* the tick it was sent, if once only (an RTT sample); else 0 */
};

struct fe_nic_flow {
	struct fe_nic_key key;
	uint8_t used, active;
	uint8_t gen; /* bumped when the slot takes another flow: in every tag */
	/* the sending edge (reaction point) */
	struct fe_dcqcn cc;
	uint64_t next_t; /* pacing: the next frame starts no earlier */
	uint32_t pend_head, pend_tail, pend_n;
	uint32_t next_psn, una, resend; /* resend: lowest PSN that may be marked again */
	uint64_t rto_at;		/* UINT64_MAX: nothing unacknowledged */
	uint32_t retries;		/* timeouts in a row with no progress */
	struct fe_nic_copy *win;	/* [window], by PSN */
	struct fe_ibcc ib;		/* cc ib */
	struct fe_nscc nscc;		/* cc nscc: its window */
	struct fe_rccc_snd rccc;	/* cc rccc: its credit */
	uint64_t flight;		/* bytes sent, neither acknowledged nor NAKed */
	/* cc rccc, its backlog: bytes on the wire queued, and marked to be sent again */
	uint64_t pend_bytes, again_bytes;
	/* model uec, cc nscc, SLEEK's loss probe: when it goes (UINT64_MAX: not armed), when
	 * the last went, its number; loss recovery (a probe found the path
	 * empty): frames up to recover_to are sent again, those below rtx_next already were */
	uint64_t probe_at, probe_sent;
	uint8_t probe_n, recovering;
	uint32_t recover_to, rtx_next;
	struct fe_reps reps; /* model uec: the entropies that came back, to be used again */
	double rate_min;     /* the lowest rate its CC set (bit/s); 0: never cut */
	/* the receiving edge (notification point); here too: one lcore runs both */
	uint32_t expect;
	uint8_t nak_sent, ack_due, release;
	uint8_t ece; /* cc nscc: CE seen since the last ACK, echoed in the next */
	/* ack-bytes (model uec): bytes come since the last ACK, and an AR frame's request
	 * still to answer once the frames held out of order have drained */
	uint8_t ack_req;
	/* the entropy the next ACK echoes, of a frame that asked for it (echo: 0 none, 1 a
	 * frame's, 2 a frame's that came marked) */
	uint8_t echo, echo_ev;
	uint32_t unacked;
	struct fe_rccc_rcv credit; /* cc rccc: what it asked for and was granted */
	uint64_t trimmed; /* model uec: bit i, PSN expect + i was NAKed trimmed (no gap NAK) */
	uint64_t last_cnp;
	struct rte_mbuf **held; /* selective repeat: frames ahead of a gap, by PSN */
	uint32_t nheld;
	uint32_t top;	 /* model uec: the newest frame held, plus one (its SACKs end there) */
	uint16_t rxq;	 /* the port whose host the held frames are for */
	uint64_t gap_at; /* reorder window: when the open gap was seen (0: none watched) */
	uint8_t hdr[40]; /* a data frame's headers, for the receiver's ACK and NAK */
};

struct fe_nic_pend {
	struct rte_mbuf *m;
	uint32_t next;
};

struct fe_nic_ready {
	struct rte_mbuf *m;
	uint64_t due;
};

struct fe_nicport {
	uint8_t host;		/* model host: only qps[] below is used */
	struct fe_roce_qp *qps; /* model host: [FE_ROCE_QPS], open addressing */
	struct fe_nic_params prm;
	struct fe_dcqcn_cfg cc;
	uint64_t timeout_ticks, cnp_ticks;
	uint32_t window;
	uint32_t cc_mode;	 /* enum fe_nic_cc: what runs */
	uint8_t probes;		 /* model uec, cc nscc (or nscc+rccc): SLEEK's probes */
	struct fe_ibcc_cfg ib;	 /* cc ib */
	uint64_t line_bps;	 /* the up link's rate (100 Gbit/s if it has none) */
	struct fe_nscc_cfg nscc; /* cc nscc (nscc+rccc), at that rate (fe_derive.h) */
	struct fe_rccc_cfg rccc; /* cc rccc (nscc+rccc), at that rate: its senders */
	/* cc rccc, the receiving side: at the down link's rate (fe_derive.h), the grants'
	 * pacer, its lists in pslots */
	struct fe_rccc_cfg rccc_rx;
	struct fe_rccc_pacer pacer;
	struct fe_rccc_slot *pslots;
	struct fe_nic_flow flows[FE_NIC_FLOWS];
	struct fe_nic_pend *pend;
	uint32_t free_head, pend_free;
	uint8_t act[FE_NIC_FLOWS];
	uint32_t nact;
	uint64_t next_event; /* the earliest tick a flow has work; UINT64_MAX: none */
	uint64_t at;	     /* the tick a frame last reached it (arrived(): never back) */
	uint64_t held;	     /* frames in the send queue and held for order */
	uint64_t inflight;   /* frames sent and not yet acknowledged */
	uint32_t rr;	     /* the active flow served first, turn by turn */
	/* receiving side: flows (sender port << 8 | slot) owing an ACK or a release */
	uint32_t *acks, nacks;	    /* [nports x FE_NIC_FLOWS] */
	uint32_t *rel, nrel;	    /* [nports x FE_NIC_FLOWS] */
	uint32_t *gaps, ngaps;	    /* reorder window: flows with a gap open, not yet NAKed */
	uint64_t reorder_ticks;	    /* 0: a gap is NAKed at once */
	uint64_t reps_freeze_ticks; /* model uec: REPS frozen after a timeout (0: never) */
	uint64_t gap_next;	    /* the earliest a watched gap's window ends (UINT64_MAX) */
	/* frames for the host, in order, each to go at its tick (FE_DUE_NONE, or a tick by
	 * now: at once; a later one: across the host's PCIe then) */
	struct fe_nic_ready *ready; /* [nready]: FE_NIC_READY, or the PCIe's backlog's */
	uint32_t rhead, rtail, nready;
	/* model uec, receiving side: the host's PCIe (fe_pcie.h; cfg from the NIC's params,
	 * fe_derive.h) */
	struct fe_pcie_cfg pcie_cfg;
	struct fe_pcie pcie;
	/* trimmed headers on their way down this port's link, ahead of its queue (model uec:
	 * fe_nic_trimmed()), each due at its tick; in order */
	struct fe_express trimq; /* over trims[] */
	struct fe_express_slot trims[FE_NIC_TRIMQ];
};

/* The rate flow fl's congestion control allows now (bit/s; the line rate if none). */
static inline double
fe_nic_flow_rate(const struct fe_nicport *n, const struct fe_nic_flow *fl)
{
	if (n->cc_mode == FE_CC_IB)
		return (double)n->line_bps * n->ib.den / (n->ib.den + fl->ib.ccti);
	if (n->cc_mode == FE_CC_DCQCN)
		return fl->cc.rc;
	return (double)n->line_bps;
}

/*
 * A fabric split across boxes: the receiving side of the flows of the fabric's nall ports
 * (those on other boxes), set up before the ports' NICs; 0, or -errno with a message.
 */
int fe_nic_remote_setup(struct fe_dp *dp, unsigned nall, int socket, char *err, size_t errlen);
void fe_nic_remote_free(struct fe_dp *dp);

/* Set up port i's NIC (conf.nic); 0, or -errno with a message. */
int fe_nic_setup(struct fe_dp *dp, unsigned i, int socket, char *err, size_t errlen);
/* A reset (fe_adopt_reset()): port p's least rate and window restart from its flows' own,
 * the least of them (its gauges are the flow that changed last). The lcore's. */
void fe_nic_reset_least(struct fe_port *p);
void fe_nic_free(struct fe_nicport *n);

/* Free slots in port i's send queue: RX takes no more than this. */
static inline uint32_t
fe_nic_room(const struct fe_port *p)
{
	return p->nic->pend_free;
}

/* A burst read from port `in`, into its NIC. */
void fe_nic_rx(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, unsigned n, uint64_t now);

/* Send what each flow of each NIC may send by now; work done. */
unsigned fe_nic_service(struct fe_dp *dp, uint64_t now);

/*
 * n frames the down link of port q delivered (in, with their due ticks) at now: what
 * goes to the host is appended to the port's TX staging (room for n is there).
 */
void fe_nic_deliver(struct fe_dp *dp, unsigned q, struct rte_mbuf **in, const uint64_t *due,
		    unsigned n, uint64_t now);

/* Frames released in order (selective repeat) into q's TX staging, as room allows. */
void fe_nic_release(struct fe_dp *dp, unsigned q, uint64_t now);

/* Frames the NICs hold (send queues, held for order); kept copies are not counted. */
uint64_t fe_nic_held(const struct fe_dp *dp);
/* Frames sent and not yet acknowledged (a NIC may still resend them). */
uint64_t fe_nic_inflight(const struct fe_dp *dp);

/* Free everything the NICs hold (after the loop has stopped). */
void fe_nic_drain(struct fe_dp *dp);

#endif
