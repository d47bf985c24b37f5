/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_nscc: NSCC, Ultra Ethernet's sender-based congestion control (UE 1.0, the transport
 * layer's congestion management), as the reference simulator runs it (ultraethernet/
 * uet-htsim, htsim/sim/uec.cpp: updateCwndOnAck_NSCC, updateCwndOnNack_NSCC and the
 * functions they call; its defaults, initNsccParams with trimming on). Pure: no DPDK,
 * time passed in (TSC ticks), so it is tested on a fake clock. docs/uec.md.
 *
 * NSCC's paper: SMaRTT (Bonato et al., "SMaRTT-REPS: Sender-based Marked Rapidly-adapting
 * Trimmed & Timed Transport with Recycled Entropies", arXiv 2404.01630; its v4 calls
 * SMaRTT the basis of the UEC NSCC specification): the four cases by delay against a
 * target and ECN, quick adapt, the window's fair and proportional increase. Where the
 * paper and the simulator differ (the paper's maximum window 1.25 BDP, a fair decrease
 * under CE below the target), the simulator is followed: the UE specification's own
 * text was not available here, and the simulator is the consortium's reference model.
 *
 * A window in bytes. Each ACK gives the bytes it newly acknowledges, an RTT sample (from
 * the send time of the frame it acknowledges, when that frame was sent once) and whether
 * the receiver saw CE (the ECN echo, "skip" in the simulator). The delay is the sample
 * less the lowest RTT seen (base_rtt); avg_delay its moving average. Against the target
 * queueing delay (target_qdelay, 3/4 of the network's RTT):
 *   no CE, delay >= target   fair increase: inc += fi x acked
 *   no CE, delay <  target   proportional increase: inc += alpha x acked x (target -
 *                            delay); below 1 us for a window's worth of bytes, fast
 *                            increase instead: cwnd += fi_scale x acked at once
 *   CE,    delay >= target   multiplicative decrease, once a base RTT at most: cwnd x=
 *                            max(1 - gamma (avg - target) / avg, 0.5), if avg > target
 *   CE,    delay <  target   nothing (the path is switched, not the window)
 * inc is folded in every adjust_bytes received or adjust_period: cwnd += inc / cwnd, plus
 * eta once a period. Quick adapt: once a base RTT + target, after a loss (a NACK) or a
 * delay above 4 x target, a flow that achieved less than maxwnd / 8 takes the window it
 * achieved, and ignores the ECN of what was in flight then. A NACK (a trimmed frame)
 * moves the average toward the network's RTT, triggers quick adapt, and else takes the
 * NACKed bytes off the window. The window stays within [MTU, 1.5 x BDP].
 */
#ifndef FE_NSCC_H
#define FE_NSCC_H

#include <stdint.h>

struct fe_nscc_cfg {
	uint64_t line_bps;
	uint64_t hz;
	uint64_t net_rtt;	  /* ticks: the network's RTT, its base BDP */
	uint64_t target;	  /* ticks: the target queueing delay */
	uint64_t qa_threshold;	  /* ticks: 4 x target */
	uint64_t adjust_period;	  /* ticks: net_rtt */
	uint64_t fast_delay;	  /* ticks: 1 us, fast increase below */
	uint64_t mtu, mss;	  /* bytes */
	uint64_t adjust_bytes;	  /* 8 MTU */
	double alpha;		  /* bytes a tick: 4 mss a b / target */
	double fi, eta, fi_scale; /* 5 mss a, 0.15 mss a, 0.25 a */
	double gamma, delay_alpha;
	uint32_t qa_gate; /* quick adapt only below maxwnd >> qa_gate */
};

struct fe_nscc {
	double cwnd;	   /* bytes */
	double inc;	   /* bytes^2 to fold in */
	double avg_delay;  /* ticks */
	uint64_t base_rtt; /* ticks: the lowest sample */
	uint64_t maxwnd;   /* bytes: 1.5 x base_rtt x line rate */
	uint64_t received; /* bytes acknowledged since the last fold */
	uint64_t achieved; /* ... since the last quick-adapt check */
	uint64_t ignored, to_ignore;
	uint64_t fi_count;
	uint64_t qa_end, last_adjust, last_dec;
	uint8_t trigger_qa, increasing;
	/* what it did, for counters and tests */
	uint64_t quick_adapts, decreases, fast_increases, nacks;
	uint64_t nack_cuts;    /* NACKs that took their bytes off the window */
	uint64_t timeout_cuts; /* timeouts that took a frame's bytes off the window */
};

/*
 * Compile for a line rate (bit/s), the network's RTT (ns) and a MTU (bytes, with
 * headers) on a clock of hz: the simulator's scaling by the BDP against 100 Gbit/s x
 * 12 us.
 */
void fe_nscc_compile(uint64_t line_bps, uint64_t net_rtt_ns, uint32_t mtu, uint64_t hz,
		     struct fe_nscc_cfg *c);
/* A flow starts: base RTT the network's, the window its maximum (1.5 BDP). */
void fe_nscc_init(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t now);
/* An ACK at now: acked bytes newly acknowledged, rtt a sample in ticks (0: none), ece
 * the receiver saw CE. */
void fe_nscc_ack(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t acked, uint64_t rtt,
		 int ece, uint64_t inflight, uint64_t now);
/* A NACK (a frame trimmed) of nacked bytes at now; keep: the window is not cut by them
 * (cc nscc+rccc, the frame trimmed at the last hop: the receiver's credit answers for
 * that congestion), though quick adapt may still run, as in uet-htsim. */
void fe_nscc_nack(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t nacked,
		  uint64_t inflight, int keep, uint64_t now);

/* The NIC's retransmission timeout fired for a frame of bytes: they come off the window,
 * down to one MTU (uet-htsim, UecSrc::rtxTimerExpired: mark_packet_for_retransmission;
 * not while SLEEK recovers a loss, which the caller knows). */
void fe_nscc_timeout(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t bytes);

/* A frame of len bytes may go with inflight bytes already out. */
static inline int
fe_nscc_may_send(const struct fe_nscc *s, uint64_t inflight, uint32_t len)
{
	return (double)(inflight + len) <= s->cwnd;
}

#endif
