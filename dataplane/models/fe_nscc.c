/* SPDX-License-Identifier: BSD-3-Clause */
/* NSCC (fe_nscc.h): the reference simulator's algorithm, in ticks and bytes. */
#include "fe_nscc.h"

/* the simulator's reference: 100 Gbit/s, a 12 us network RTT */
#define REF_BPS	   100000000000.0
#define REF_RTT_NS 12000.0

static uint64_t
ticks(uint64_t ns, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)ns * hz / 1000000000u);
}

void
fe_nscc_compile(uint64_t line_bps, uint64_t net_rtt_ns, uint32_t mtu, uint64_t hz,
		struct fe_nscc_cfg *c)
{
	double bdp = (double)net_rtt_ns * 1e-9 * (double)line_bps / 8;
	double ref_bdp = REF_RTT_NS * 1e-9 * REF_BPS / 8;
	double a, b;

	*c = (struct fe_nscc_cfg){.line_bps = line_bps, .hz = hz};
	c->net_rtt = ticks(net_rtt_ns, hz);
	c->target = ticks(net_rtt_ns * 3 / 4, hz); /* trimming on: 0.75 x the RTT */
	if (c->target == 0)
		c->target = 1;
	c->qa_threshold = 4 * c->target;
	c->adjust_period = c->net_rtt;
	c->fast_delay = ticks(1000, hz);
	c->mtu = mtu;
	c->mss = mtu > 64 ? mtu - 64 : mtu; /* the simulator's 64 bytes of headers */
	c->adjust_bytes = 8 * (uint64_t)mtu;
	a = bdp / ref_bdp;
	b = (double)net_rtt_ns * 0.75 / REF_RTT_NS;
	c->alpha = 4.0 * (double)c->mss * a * b / (double)c->target;
	c->fi = 5.0 * (double)c->mss * a;
	c->eta = 0.15 * (double)c->mss * a;
	c->fi_scale = 0.25 * a;
	c->gamma = 0.8;
	c->delay_alpha = 0.0125;
	c->qa_gate = 3;
}

static void
set_base(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t rtt)
{
	s->base_rtt = rtt;
	s->maxwnd = (uint64_t)(1.5 * (double)rtt / (double)c->hz * (double)c->line_bps / 8);
	if (s->maxwnd < c->mtu)
		s->maxwnd = c->mtu;
}

void
fe_nscc_init(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t now)
{
	*s = (struct fe_nscc){0};
	set_base(s, c, c->net_rtt ? c->net_rtt : 1);
	s->cwnd = (double)s->maxwnd;
	s->last_adjust = now;
}

static void
bounds(struct fe_nscc *s, const struct fe_nscc_cfg *c)
{
	if (s->cwnd < (double)c->mtu)
		s->cwnd = (double)c->mtu;
	if (s->cwnd > (double)s->maxwnd)
		s->cwnd = (double)s->maxwnd;
}

/* The moving average of the delay, from a sample raw (ticks). */
static void
update_delay(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t raw, int skip)
{
	double d = (double)(raw - s->base_rtt), k = c->delay_alpha;

	if (!skip && d > (double)c->target) /* high delay without CE: not queueing here */
		s->avg_delay = k * (double)s->base_rtt * 0.25 + (1 - k) * s->avg_delay;
	else if (d > 5.0 * (double)s->base_rtt)
		s->avg_delay = 0.0125 * d + (1 - 0.0125) * s->avg_delay;
	else
		s->avg_delay = k * d + (1 - k) * s->avg_delay;
}

/* 1 if quick adapt ran or the ECN is ignored (nothing else to do for this event). */
static int
quick_adapt(struct fe_nscc *s, const struct fe_nscc_cfg *c, int loss, int skip, double delay,
	    uint64_t inflight, uint64_t now)
{
	int done = 0;

	if (s->ignored < s->to_ignore && skip) {
		done = 1;
	} else if (now > s->qa_end) {
		if (s->qa_end != 0 && (s->trigger_qa || loss || delay > (double)c->qa_threshold) &&
		    s->achieved < (s->maxwnd >> c->qa_gate)) {
			s->cwnd = (double)(s->achieved > c->mtu ? s->achieved : c->mtu);
			s->to_ignore = inflight;
			s->ignored = 0;
			s->trigger_qa = 0;
			s->quick_adapts++;
			done = 1;
		}
		s->achieved = 0;
		s->qa_end = now + s->base_rtt + c->target;
	}
	if (done) {
		s->inc = 0;
		s->received = 0;
	}
	return done;
}

void
fe_nscc_ack(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t acked, uint64_t rtt, int ece,
	    uint64_t inflight, uint64_t now)
{
	double delay = s->avg_delay;

	s->achieved += acked;
	s->received += acked;
	s->ignored += acked;
	if (rtt != 0) {
		if (rtt < s->base_rtt)
			set_base(s, c, rtt);
		update_delay(s, c, rtt, ece);
		delay = (double)(rtt - s->base_rtt);
	}
	if (quick_adapt(s, c, 0, ece, delay, inflight, now))
		return;
	if (!ece && delay >= (double)c->target) {
		s->inc += c->fi * (double)acked; /* fair increase */
	} else if (!ece) {
		/* fast increase: a window's worth of bytes under 1 us of delay */
		if (delay < (double)c->fast_delay) {
			s->fi_count += acked;
			if ((double)s->fi_count > s->cwnd || s->increasing) {
				s->cwnd += (double)acked * c->fi_scale;
				s->increasing = 1;
				s->fast_increases++;
			}
		} else {
			s->fi_count = 0;
			s->increasing = 0;
		}
		if (!s->increasing) /* proportional increase */
			s->inc += c->alpha * (double)acked * ((double)c->target - delay);
	} else if (delay >= (double)c->target) {
		s->increasing = 0; /* multiplicative decrease, once a base RTT */
		s->fi_count = 0;
		if (s->avg_delay > (double)c->target && now - s->last_dec > s->base_rtt) {
			double f = 1 - c->gamma * (s->avg_delay - (double)c->target) / s->avg_delay;

			s->cwnd *= f > 0.5 ? f : 0.5;
			s->last_dec = now;
			s->decreases++;
		}
	}
	bounds(s, c);
	if (s->received > c->adjust_bytes || now - s->last_adjust > c->adjust_period) {
		s->cwnd += s->inc / s->cwnd;
		if (now - s->last_adjust >= c->adjust_period) {
			s->cwnd += c->eta;
			s->last_adjust = now;
		}
		s->inc = 0;
		s->received = 0;
	}
	bounds(s, c);
}

void
fe_nscc_nack(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t nacked, uint64_t inflight,
	     int keep, uint64_t now)
{
	s->nacks++;
	s->ignored += nacked;
	update_delay(s, c, s->base_rtt + c->net_rtt, 1);
	s->trigger_qa = 1;
	/* uet-htsim, UecSrc::updateCwndOnNack_NSCC: quick adapt either way; the cut only if
	 * not kept (with RCCC on, a trim at the last hop is the receiver's credit's) */
	if (!quick_adapt(s, c, 1, 1, 0, inflight, now) && !keep) {
		s->cwnd -= (double)nacked;
		s->nack_cuts++;
		bounds(s, c);
	}
}

void
fe_nscc_timeout(struct fe_nscc *s, const struct fe_nscc_cfg *c, uint64_t bytes)
{
	s->cwnd -= (double)bytes;
	s->timeout_cuts++;
	bounds(s, c);
}
