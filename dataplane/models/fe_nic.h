/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_nic: an emulated RDMA NIC at a host port's edge (docs/nic.md). Pure: no DPDK, time
 * passed in, so the models are tested with a fake clock.
 *
 *   model tcp    the host's transport meets the fabric directly (the default)
 *   model roce   the receiving edge consumes CE and sends CNPs back through the fabric;
 *                the sending edge runs DCQCN per flow and paces it; frames lost in the
 *                fabric are recovered by the NICs (go-back-N or selective repeat)
 *   model ib     the same reliable delivery; congestion control off by default (it is
 *                off on many InfiniBand fabrics), or InfiniBand's (cc ib: FECN/BECN with
 *                a congestion control table, IBTA Annex A10), or DCQCN
 *   model uec    Ultra Ethernet's transport as far as it is built (docs/uec.md): selective
 *                repeat, and a header trimmed by a congested switch (the lossy regime)
 *                NACKed at once, its frame sent again from the NIC's copy; NSCC, a
 *                window a flow (fe_nscc.h), the receiver echoing CE in its ACKs; or
 *                RCCC (cc rccc, fe_rccc.h, uec only): the receiving NIC grants credit,
 *                paced at its line rate, and a flow sends only against it; or both
 *                (cc nscc+rccc, uec only): a frame goes when both allow it, and a NACK
 *                of a frame trimmed at the last hop leaves NSCC's window alone
 *   model host   real RDMA NICs at the hosts (an inline box): the transport is theirs;
 *                RoCEv2 is decoded as it reaches a host and counted per QP (fe_roce.h)
 *
 * A flow is a host's IPv4 TCP or UDP 5-tuple: our hosts speak TCP, and each
 * connection plays the part of a queue pair.
 *
 * DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM
 * 2015, section 3.1), at the reaction point, per flow, in bit/s:
 *   on a CNP:        RT = RC; RC = max(Rmin, RC (1 - a/2)); a = (1 - g) a + g;
 *                    the alpha timer, the rate timer and the byte counter restart
 *   every K without a CNP:  a = (1 - g) a
 *   a rate increase event (every T of the rate timer, every B bytes sent), with T_n
 *   and B_n the events of each kind before this one since the last CNP:
 *     max(T_n, B_n) < F          fast recovery:  RC = (RT + RC) / 2
 *     min(T_n, B_n) >= F         hyper increase: RT += i RHAI, i = min(T_n, B_n) - F + 1;
 *                                                RC = (RT + RC) / 2
 *     otherwise                  additive:       RT += RAI; RC = (RT + RC) / 2
 *   RT and RC never exceed the line rate; at the line rate the flow is not paced.
 */
#ifndef FE_NIC_H
#define FE_NIC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum fe_nic_model { FE_NIC_TCP, FE_NIC_ROCE, FE_NIC_IB, FE_NIC_HOST, FE_NIC_UEC };
enum fe_nic_recovery { FE_NIC_GBN, FE_NIC_SELECTIVE };
/* FE_CC_NSCC_RCCC: both of Ultra Ethernet's at once, as uet-htsim runs them by default
 * (a frame goes when NSCC's window and RCCC's credit both allow it: fe_nic_cc_nscc(),
 * fe_nic_cc_rccc()) */
enum fe_nic_cc { FE_CC_OFF, FE_CC_DCQCN, FE_CC_IB, FE_CC_NSCC, FE_CC_RCCC, FE_CC_NSCC_RCCC };

#define FE_NIC_MODEL_ALLOWED	"tcp, roce, ib, host, uec"
#define FE_NIC_RECOVERY_ALLOWED "go-back-n, selective"
#define FE_NIC_CC_ALLOWED	"off, dcqcn, ib, nscc, rccc, nscc+rccc"

struct fe_nic_params {
	uint32_t model;		  /* enum fe_nic_model */
	uint32_t recovery;	  /* enum fe_nic_recovery */
	uint32_t cc;		  /* enum fe_nic_cc, if cc_set */
	uint32_t cc_set;	  /* cc was given (else the model's: roce dcqcn, ib off) */
	uint32_t g_den;		  /* g = 1 / g_den */
	uint32_t stages;	  /* F */
	uint64_t cnp_interval_ns; /* N: at most one CNP a flow this often (receiver) */
	uint64_t alpha_ns;	  /* K */
	uint64_t timer_ns;	  /* T */
	uint64_t bytes;		  /* B */
	uint64_t ai_bps, hai_bps, min_bps;
	uint64_t timeout_ns; /* the NIC's retransmission timeout (unless timeout_path) */
	uint32_t window;     /* frames a flow has in flight, each kept for a resend */
	/* timeout: path: the timeout follows the fabric's queues, as uet-htsim's RTO does:
	 * the NIC's round trip (rtt, else its link's: fe_derive.h) and 6 times the longest
	 * any link's full buffer takes to drain at its rate (fe_nic_timeouts()) */
	uint32_t timeout_path;
	/* the receiving NIC's reorder window (nic-reorder): frames after a gap are held, and
	 * the gap is reported (a NAK) only if it is still open this long after; 0: at once */
	uint64_t reorder_ns;
	/* InfiniBand CC (cc ib): the index into the congestion control table rises by
	 * ccti_increase on each BECN, up to ccti_limit, and falls by 1 every ccti_timer down
	 * to ccti_min; the table is linear: an index i adds i / cct_den packet times between
	 * packets (the inter-packet delay) */
	uint32_t ccti_increase, ccti_limit, ccti_min, cct_den;
	uint64_t ccti_timer_ns;
	/* NSCC (cc nscc, fe_nscc.h): the network's RTT its target delay (3/4 of it) and
	 * window (1.5 BDP, until a lower RTT is seen) start from; RCCC (cc rccc, fe_rccc.h):
	 * its credit's 1.5 BDP; 0: the port's (fe_derive.h) */
	uint64_t rtt_ns;
	/* model uec, in the lossy regime: the bytes of a frame the switch keeps when it
	 * trims it (its headers), and the DSCP it gives the trimmed header (FE_NIC_DSCP_KEEP:
	 * as the frame had it) */
	uint32_t trim_bytes, trim_dscp;
	/* model uec, REPS (fe_reps.h): after a timeout, how long a flow sends only over the
	 * entropies it kept (uet-htsim: exit_freeze_after); 0: never frozen */
	uint64_t reps_freeze_ns;
	/* cc rccc: the receiver's pull rate cut on an oversubscribed fabric (fe_rccc.h), enum
	 * fe_nic_occ: auto, as the simulator (with RCCC alone, where the fabric is
	 * oversubscribed), on or off */
	uint32_t oversub_cc;
	/* model uec, cc nscc: SLEEK's loss probes off (sleek: off; 0: on, as the simulator
	 * runs them with sender CC). Also keeps the struct free of padding (compared whole) */
	uint32_t sleek_off;
	/* model uec: the receiving host's PCIe (fe_pcie.h): its rate (bit/s; 0: not
	 * modelled) and the backlog it holds at most (bytes; 0: uet-htsim's 5 MB) */
	uint64_t pcie_bps, pcie_backlog;
	/* model uec: the receiver's ACK policy (uet-htsim's sink, UecSink::processData): an
	 * ACK once ack_bytes have come since the last, and at once for a frame marked CE, a
	 * duplicate, the flow's first frame and one its sender flagged (AR: its last queued,
	 * its window or credit spent, every resend), and when the frames held out of order
	 * after an AR have drained; 0: every batch of frames delivered is acknowledged */
	uint64_t ack_bytes;
	/* model uec, in the lossy regime: the queue a trimmed header takes (enum
	 * fe_nic_trimq): the switches' priority queue, ahead of the data, or the queue of the
	 * data it was cut from, behind it (SONiC's queue_index) */
	uint32_t trim_queue;
	uint32_t reserved; /* zero: the struct, compared whole, has no padding */
};
/* compared whole (fe_update.c) and hashed (fe_split.c): nothing after its last field */
_Static_assert(offsetof(struct fe_nic_params, reserved) + sizeof(uint32_t) ==
		       sizeof(struct fe_nic_params),
	       "struct fe_nic_params has padding at its end");

enum fe_nic_occ { FE_NIC_OCC_AUTO, FE_NIC_OCC_ON, FE_NIC_OCC_OFF };
#define FE_NIC_OCC_ALLOWED "auto, on, off"

enum fe_nic_trimq { FE_NIC_TRIMQ_PRIORITY, FE_NIC_TRIMQ_DATA };
#define FE_NIC_TRIMQ_ALLOWED "priority, data"

#define FE_NIC_DSCP_KEEP 64

/* timeout: path: the queues' drain it waits (uet-htsim, main_uec.cpp: 15 us and 6) */
#define FE_NIC_TIMEOUT_PATH_QUEUES 6

/* model uec, SLEEK's loss probes: the first goes this many base RTTs after the last ACK
 * while frames wait to be sent, each next this many after the last probe (uet-htsim,
 * uec.cpp: probe_first_trial_time, probe_retry_time) */
#define FE_NIC_PROBE_FIRST 3
#define FE_NIC_PROBE_RETRY 5

/* Defaults: docs/nic.md gives the source of each. */
#define FE_NIC_DEFAULT                                                                             \
	{                                                                                          \
		.model = FE_NIC_TCP, .recovery = FE_NIC_GBN, .cc = 1, .g_den = 256, .stages = 5,   \
		.cnp_interval_ns = 50000, .alpha_ns = 55000, .timer_ns = 55000, .bytes = 10000000, \
		.ai_bps = 5000000, .hai_bps = 50000000, .min_bps = 1000000,                        \
		.timeout_ns = 67108864, .window = 512, .ccti_increase = 1, .ccti_limit = 127,      \
		.ccti_min = 0, .cct_den = 16, .ccti_timer_ns = 51200, .rtt_ns = 0,                 \
		.trim_bytes = 64, .trim_dscp = FE_NIC_DSCP_KEEP, .reps_freeze_ns = 10000000,       \
	}

/* The value from lo to hi whose name(value) is s: 0, or -1 if none. */
static inline int
fe_nic_name_parse(const char *s, const char *(*name)(uint32_t), uint32_t lo, uint32_t hi,
		  uint32_t *out)
{
	for (uint32_t v = lo; v <= hi; v++)
		if (strcmp(s, name(v)) == 0) {
			*out = v;
			return 0;
		}
	return -1;
}

static inline const char *
fe_nic_occ_name(uint32_t m)
{
	return m == FE_NIC_OCC_ON ? "on" : m == FE_NIC_OCC_OFF ? "off" : "auto";
}

static inline int
fe_nic_occ_parse(const char *s, uint32_t *out)
{
	return fe_nic_name_parse(s, fe_nic_occ_name, FE_NIC_OCC_AUTO, FE_NIC_OCC_OFF, out);
}

static inline const char *
fe_nic_trimq_name(uint32_t q)
{
	return q == FE_NIC_TRIMQ_DATA ? "data" : "priority";
}

static inline int
fe_nic_trimq_parse(const char *s, uint32_t *out)
{
	return fe_nic_name_parse(s, fe_nic_trimq_name, FE_NIC_TRIMQ_PRIORITY, FE_NIC_TRIMQ_DATA,
				 out);
}

static inline const char *
fe_nic_model_name(uint32_t m)
{
	return m == FE_NIC_ROCE	  ? "roce"
	       : m == FE_NIC_IB	  ? "ib"
	       : m == FE_NIC_HOST ? "host"
	       : m == FE_NIC_UEC  ? "uec"
				  : "tcp";
}

/* The model is one fabemu emulates (its NICs number, keep and resend the hosts' frames). */
static inline int
fe_nic_emulated(uint32_t m)
{
	return m == FE_NIC_ROCE || m == FE_NIC_IB || m == FE_NIC_UEC;
}

static inline const char *
fe_nic_recovery_name(uint32_t r)
{
	return r == FE_NIC_SELECTIVE ? "selective" : "go-back-n";
}

static inline int
fe_nic_model_parse(const char *s, uint32_t *out)
{
	return fe_nic_name_parse(s, fe_nic_model_name, FE_NIC_TCP, FE_NIC_UEC, out);
}

static inline const char *
fe_nic_cc_name(uint32_t c)
{
	return c == FE_CC_DCQCN	      ? "dcqcn"
	       : c == FE_CC_IB	      ? "ib"
	       : c == FE_CC_NSCC      ? "nscc"
	       : c == FE_CC_RCCC      ? "rccc"
	       : c == FE_CC_NSCC_RCCC ? "nscc+rccc"
				      : "off";
}

static inline int
fe_nic_cc_parse(const char *s, uint32_t *out)
{
	return fe_nic_name_parse(s, fe_nic_cc_name, FE_CC_OFF, FE_CC_NSCC_RCCC, out);
}

static inline int
fe_nic_recovery_parse(const char *s, uint32_t *out)
{
	return fe_nic_name_parse(s, fe_nic_recovery_name, FE_NIC_GBN, FE_NIC_SELECTIVE, out);
}

/*
 * Model uec, no reorder window: how many frames held past a gap make it a loss (a NAK),
 * as uet-htsim's SLEEK has it (UecSrc::runSleek: loss_retx_factor 1.5, min_retx_config
 * 5): 1.5 congestion windows of frames, at most the window, at least 5; cwnd_frames 0:
 * no congestion window (the window itself). Below it the gap may be spraying's reordering;
 * a loss then costs the timeout.
 */
#define FE_NIC_SLEEK_MIN 5
static inline uint32_t
fe_nic_sleek_frames(uint32_t cwnd_frames, uint32_t window)
{
	uint32_t t = cwnd_frames ? cwnd_frames + cwnd_frames / 2 : window;

	t = t < window ? t : window;
	return t > FE_NIC_SLEEK_MIN ? t : FE_NIC_SLEEK_MIN;
}

/* The congestion control that runs: as given, else roce DCQCN, ib off, uec NSCC. */
static inline uint32_t
fe_nic_cc(const struct fe_nic_params *p)
{
	if (!fe_nic_emulated(p->model))
		return FE_CC_OFF;
	if (p->cc_set)
		return p->cc;
	return p->model == FE_NIC_ROCE	? FE_CC_DCQCN
	       : p->model == FE_NIC_UEC ? FE_CC_NSCC
					: FE_CC_OFF;
}

/* The recovery that runs: as given; uec selective repeat (UET acknowledges selectively). */
static inline uint32_t
fe_nic_recovery(const struct fe_nic_params *p)
{
	return p->model == FE_NIC_UEC ? FE_NIC_SELECTIVE : p->recovery;
}

/* Congestion control c runs NSCC, the sender's window (cc nscc, nscc+rccc). */
static inline int
fe_nic_cc_nscc(uint32_t c)
{
	return c == FE_CC_NSCC || c == FE_CC_NSCC_RCCC;
}

/* Congestion control c runs RCCC, the receiver's credit (cc rccc, nscc+rccc). */
static inline int
fe_nic_cc_rccc(uint32_t c)
{
	return c == FE_CC_RCCC || c == FE_CC_NSCC_RCCC;
}

static inline int
fe_nic_cc_on(const struct fe_nic_params *p)
{
	return fe_nic_cc(p) != FE_CC_OFF;
}

/* DCQCN, compiled for a clock of hz ticks a second at a line rate (bit/s). */
struct fe_dcqcn_cfg {
	double g, ai, hai, min, line; /* bit/s */
	uint64_t k, t;		      /* ticks */
	uint64_t b;		      /* bytes */
	uint32_t f;
};

struct fe_dcqcn {
	double rc, rt, alpha;	  /* current and target rate (bit/s), alpha */
	uint64_t alpha_next;	  /* tick of the next alpha decay */
	uint64_t timer_next;	  /* tick of the next rate-timer event; UINT64_MAX: none */
	uint64_t bytes;		  /* sent since the byte counter's last event */
	uint32_t t_n, b_n;	  /* rate-timer and byte-counter events since the last CNP */
	uint8_t limited;	  /* below the line rate: paced */
	uint64_t cnps, increases; /* reacted to, for tests and reports */
};

void fe_dcqcn_compile(const struct fe_nic_params *p, uint64_t line_bps, uint64_t hz,
		      struct fe_dcqcn_cfg *c);
void fe_dcqcn_init(struct fe_dcqcn *s, const struct fe_dcqcn_cfg *c);
/* Run the alpha and rate timers up to now. */
void fe_dcqcn_advance(struct fe_dcqcn *s, const struct fe_dcqcn_cfg *c, uint64_t now);
/* A CNP reached the sender at now. */
void fe_dcqcn_cnp(struct fe_dcqcn *s, const struct fe_dcqcn_cfg *c, uint64_t now);
/* len bytes of the flow were sent at now (the byte counter). */
void fe_dcqcn_sent(struct fe_dcqcn *s, const struct fe_dcqcn_cfg *c, uint32_t len, uint64_t now);
/* Ticks len bytes take at the flow's current rate (0 at the line rate). */
uint64_t fe_dcqcn_gap(const struct fe_dcqcn *s, uint32_t len, uint64_t hz);

/* InfiniBand CC (IBTA Annex A10) at the sending HCA, compiled for a clock of hz. */
struct fe_ibcc_cfg {
	uint32_t increase, limit, min, den;
	uint64_t timer; /* ticks */
};

struct fe_ibcc {
	uint32_t ccti;
	uint64_t timer_next; /* UINT64_MAX: at ccti_min, stopped */
	uint64_t becns;
};

void fe_ibcc_compile(const struct fe_nic_params *p, uint64_t hz, struct fe_ibcc_cfg *c);
/* Run the CCTI timer up to now. */
void fe_ibcc_advance(struct fe_ibcc *s, const struct fe_ibcc_cfg *c, uint64_t now);
/* A BECN (the receiver saw FECN) reached the sender at now. */
void fe_ibcc_becn(struct fe_ibcc *s, const struct fe_ibcc_cfg *c, uint64_t now);
/* Ticks between the starts of two packets of len bytes at line_bps: the packet's own
 * time plus the table's inter-packet delay; 0 at ccti 0 (the link paces). */
uint64_t fe_ibcc_gap(const struct fe_ibcc *s, const struct fe_ibcc_cfg *c, uint32_t len,
		     uint64_t line_bps, uint64_t hz);

/*
 * Frames. A flow's key from an IPv4 TCP or UDP frame (one 802.1Q tag allowed): 0, or -1
 * for anything else (ARP, IPv6, fragments), which passes the NIC untouched. A queue pair
 * has one peer: the key holds the destination MAC beside the 5-tuple, so that one 5-tuple
 * sent to two hosts is two flows (one would share a receiving side between them, and each
 * receiver's ACKs would be made from the other's headers). Hashed by its 5-tuple alone.
 */
struct fe_nic_key {
	uint32_t saddr, daddr; /* network order */
	uint16_t sport, dport; /* network order */
	uint8_t proto;
	uint8_t dmac[6];
};
int fe_nic_flow_key(const uint8_t *f, uint32_t len, struct fe_nic_key *k);
/* A flow's hash (the NICs' flow table, the fabric's ECMP): its 5-tuple, mixed. */
static inline uint32_t
fe_nic_tuple_hash(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport, uint8_t proto)
{
	uint64_t h = ((uint64_t)saddr << 32 | daddr) * 0x9e3779b97f4a7c15ULL;

	h ^= ((uint64_t)sport << 24 | (uint64_t)dport << 8 | proto) * 0xc2b2ae3d27d4eb4fULL;
	return (uint32_t)(h >> 32 ^ h);
}

static inline uint32_t
fe_nic_key_hash(const struct fe_nic_key *k)
{
	return fe_nic_tuple_hash(k->saddr, k->daddr, k->sport, k->dport, k->proto);
}

/* The IPv4 ECN field of the frame: its value (0..3), or -1 if not IPv4. */
int fe_nic_ecn_get(const uint8_t *f, uint32_t len);
/* Set the IPv4 ECN field to v, the header checksum updated (RFC 1624); -1: not IPv4. */
int fe_nic_ecn_set(uint8_t *f, uint32_t len, uint8_t v);

/*
 * The NIC's own frames, RoCEv2 as on the wire (UDP 4791, BTH; the ICRC is not computed):
 * a CNP (BTH opcode 0x81), an ACK or a NAK (opcode 0x11 with an AETH: syndrome 0 for
 * an ACK, 0x60 for a PSN sequence error NAK). They go from the receiving edge back to
 * the sender's: Ethernet and IP addresses swapped from the data frame (data). qpn names
 * the sender's flow, psn what the receiver expects next. DSCP 48, the usual CNP class
 * (NVIDIA's cnp_dscp default), so each takes its own lane where lanes come from DSCP.
 */
enum fe_nic_ctl {
	FE_NIC_CNP = 1,
	FE_NIC_ACK = 2,
	FE_NIC_NAK = 3,
	FE_NIC_TRIM_NAK = 4,
	FE_NIC_ACK_ECE = 5,   /* an ACK with the ECN echo (cc nscc): CE seen since the last */
	FE_NIC_CREDIT = 6,    /* cc rccc: a grant, its cumulative pull where a SACK goes */
	FE_NIC_PROBE = 7,     /* model uec, cc nscc: SLEEK's loss probe, sender to receiver */
	FE_NIC_PROBE_ACK = 8, /* its answer: an ACK with the receiver's SACK, at once */
};
/* FE_NIC_TRIM_NAK (model uec): the frame of PSN psn reached the receiver trimmed; send it
 * again, that one only. A NAK with a syndrome RoCE leaves reserved (0x70): fabemu's; the
 * next (0x71) if the frame was trimmed at the last hop, the receiver's own down link
 * (fe_nic_ctl_trim_last_set(): cc nscc+rccc leaves NSCC's window alone for it).
 * FE_NIC_CREDIT (cc rccc): the receiver's grant, an ACK whose AETH credit count is 0x1d
 * (fabemu's; IB's end-to-end credits take that field too), acknowledging nothing: the
 * flow's cumulative pull, in quanta of 256 bytes (fe_rccc.h), in the SACK's 4 bytes.
 * FE_NIC_PROBE (model uec, cc nscc: SLEEK's loss probe, uet-htsim's DATA_PROBE): an ACK
 * frame whose AETH credit count is 0x1c (fabemu's), the only one of the NIC's frames that
 * goes the data's way (its addresses the data frame's, not swapped); qpn the sender's
 * flow, psn the probe's number. FE_NIC_PROBE_ACK: the receiver's answer, an ACK whose
 * credit count is 0x1b, with its SACK as any ACK's, the probe's number in the BTH's
 * 7 reserved bits after AckReq (fe_nic_ctl_probe_set()). */
#define FE_NIC_CTL_LEN 62 /* 14 + 20 + 8 + 12 (BTH) + 4 (AETH) + 4 (ICRC) */
void fe_nic_ctl_frame(uint8_t *out, const uint8_t *data, enum fe_nic_ctl kind, uint32_t qpn,
		      uint32_t psn);
/*
 * Model uec's selective acknowledgement, in an ACK's last 4 bytes (where RoCE has its
 * ICRC, which fabemu does not compute) and its AETH's MSN (24 bits, which fabemu's NICs
 * do not count): bit i says PSN psn + 1 + off + i is held by the receiver (psn: what it
 * expects next; off: how far past it the bitmap starts, so that it can follow the newest
 * frames however far a gap held them apart). 0 in every other frame.
 */
void fe_nic_ctl_sack_set(uint8_t *f, uint32_t sack, uint32_t off);
uint32_t fe_nic_ctl_sack(const uint8_t *f, uint32_t *off);
/* FE_NIC_PROBE_ACK: the number (7 bits) of the probe it answers, in the BTH's reserved
 * bits after AckReq (0 in every other frame). */
void fe_nic_ctl_probe_set(uint8_t *f, uint8_t probe);
uint8_t fe_nic_ctl_probe(const uint8_t *f);
/* FE_NIC_TRIM_NAK: its frame was trimmed at the last hop (the NAK's syndrome 0x71; a
 * frame of another kind is left as it is). */
void fe_nic_ctl_trim_last_set(uint8_t *f);
int fe_nic_ctl_trim_last(const uint8_t *f);

/* Read one back: 0 with kind, qpn and psn, or -1 if it is not one. */
int fe_nic_ctl_parse(const uint8_t *f, uint32_t len, enum fe_nic_ctl *kind, uint32_t *qpn,
		     uint32_t *psn);

/* RoCEv2: its UDP port and the BTH opcodes the NICs use and count (IBTA annex A17). */
enum { FE_ROCE_UDP = 4791, FE_BTH_ACK = 0x11, FE_BTH_ATOMIC_ACK = 0x12, FE_BTH_CNP = 0x81 };

/* Offset of the IPv4 header of an Ethernet frame (one 802.1Q tag allowed), or 0. */
uint32_t fe_nic_ipv4_off(const uint8_t *f, uint32_t len);

/* PSNs are 24 bits, compared modulo 2^24 (IBTA 9.7.1). */
#define FE_PSN_MASK 0xffffffu
static inline int32_t
fe_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif
