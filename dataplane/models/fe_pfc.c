/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fe_pfc.h"
#include "fe_time.h"

int
fe_pfc_compile(struct fe_pfc_cfg *c, const struct fe_pfc_params *prm, uint64_t rate_bps,
	       uint64_t hz)
{
	memset(c, 0, sizeof(*c));
	/* XON below XOFF, or the port would pause and resume on the same byte */
	if (prm->xon >= prm->xoff || prm->quanta == 0 || prm->quanta > 65535)
		return -EINVAL;
	c->quanta = (uint16_t)prm->quanta;
	c->xoff = prm->xoff;
	c->xon = prm->xon;
	c->headroom = prm->headroom;
	c->frames = prm->frames != 0;
	c->delay_ticks = fe_ns_to_ticks(prm->delay_ns, hz);
	/* a quantum is 512 bit times at the link's rate; an unlimited link: 100 Gbit/s */
	c->refresh_ticks = (uint64_t)((unsigned __int128)prm->quanta * 512 * hz /
				      (rate_bps ? rate_bps : 100000000000ULL) / 2);
	if (c->refresh_ticks == 0)
		c->refresh_ticks = 1;
	return 0;
}

int
fe_pfc_compile_link(struct fe_pfc_cfg *c, const struct fe_pfc_params *prm,
		    const struct fe_link_params *link, uint64_t hz, char *err, size_t errlen)
{
	uint64_t rate = link->rate_bps ? link->rate_bps : 100000000000ULL;
	struct fe_pfc_params p = *prm;

	if (p.delay_ns == 0)
		p.delay_ns = link->delay_ns + 1000;
	if (p.headroom == 0) /* in flight both ways, and a maximum frame (1518 + 24) each end */
		p.headroom = (uint64_t)((unsigned __int128)2 * p.delay_ns * rate / 8000000000ULL) +
			     2 * (1518 + 24);
	if (fe_pfc_compile(c, &p, link->rate_bps, hz) < 0) {
		snprintf(err, errlen, "PFC: XON must be below XOFF, quanta 1 to 65535");
		return -EINVAL;
	}
	return 0;
}

int
fe_pfc_init(struct fe_pfc *p, const struct fe_pfc_params *prm, uint64_t rate_bps, uint64_t hz)
{
	memset(p, 0, sizeof(*p));
	return fe_pfc_compile(&p->cfg, prm, rate_bps, hz);
}

enum fe_pfc_event
fe_pfc_update(struct fe_pfc *p, uint8_t prio, uint64_t held, uint64_t t)
{
	struct fe_pfc_prio *q = &p->prio[prio];

	if (!fe_pfc_xoff(p, prio) && held >= p->cfg.xoff) {
		p->xoff_prios |= (uint8_t)(1u << prio);
		q->xoff_at = t;
		/* a window still closing (XON in flight) is extended, not restarted */
		if (q->until <= t + p->cfg.delay_ticks)
			q->from = t + p->cfg.delay_ticks;
		q->until = UINT64_MAX;
		FE_CNT_ADD(q->pause_frames, 1);
		FE_CNT_ADD(q->xoff_events, 1);
		q->last_frame = t;
		return FE_PFC_XOFF;
	} else if (fe_pfc_xoff(p, prio) && held <= p->cfg.xon) {
		p->xoff_prios &= (uint8_t) ~(1u << prio);
		q->until = t + p->cfg.delay_ticks;
		/* refreshes sent while paused, and the XON frame */
		FE_CNT_ADD(q->pause_frames, (t - q->xoff_at) / p->cfg.refresh_ticks + 1);
		if (q->until > q->from)
			FE_CNT_ADD(q->paused_ticks, q->until - q->from);
		return FE_PFC_XON;
	}
	return FE_PFC_NONE;
}

void
fe_pfc_heard(struct fe_pfc *p, uint8_t prio, int xoff, uint64_t t)
{
	struct fe_pfc_prio *q = &p->prio[prio];

	FE_CNT_ADD(q->pause_frames, 1);
	if (xoff && !fe_pfc_xoff(p, prio)) {
		p->xoff_prios |= (uint8_t)(1u << prio);
		q->xoff_at = t;
		if (q->until <= t) /* a window still closing is extended, not restarted */
			q->from = t;
		q->until = UINT64_MAX;
		FE_CNT_ADD(q->xoff_events, 1);
	} else if (!xoff && fe_pfc_xoff(p, prio)) {
		p->xoff_prios &= (uint8_t) ~(1u << prio);
		q->until = t > q->from ? t : q->from;
		FE_CNT_ADD(q->paused_ticks, q->until - q->from);
	}
}

int
fe_pfc_refresh_due(struct fe_pfc *p, uint8_t prio, uint64_t t)
{
	struct fe_pfc_prio *q = &p->prio[prio];

	if (!fe_pfc_xoff(p, prio) || t - q->last_frame < p->cfg.refresh_ticks)
		return 0;
	q->last_frame = t;
	return 1;
}

void
fe_pfc_frame_vec(uint8_t f[60], const uint8_t src[6], uint8_t prios, uint16_t quanta)
{
	static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}; /* MAC control */

	memset(f, 0, 60);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88; /* MAC control EtherType 0x8808 */
	f[13] = 0x08;
	f[14] = 0x01; /* opcode 0x0101: priority-based flow control */
	f[15] = 0x01;
	f[17] = prios; /* class-enable vector, low octet: priorities 0-7 */
	for (unsigned p = 0; p < FE_PFC_PRIOS; p++)
		if (prios >> p & 1) {
			f[18 + 2 * p] = (uint8_t)(quanta >> 8);
			f[19 + 2 * p] = (uint8_t)quanta;
		}
}

void
fe_pfc_frame(uint8_t f[60], const uint8_t src[6], uint8_t prio, uint16_t quanta)
{
	fe_pfc_frame_vec(f, src, (uint8_t)(1u << prio), quanta);
}

uint64_t
fe_pfc_gate(void *ctx, uint8_t prio, uint32_t len, uint64_t start, uint64_t now)
{
	return fe_pfc_gate_inline(ctx, prio, len, start, now);
}

uint64_t
fe_pfc_paused(const struct fe_pfc *p, uint8_t prio, uint64_t now)
{
	const struct fe_pfc_prio *q = &p->prio[prio];
	uint64_t t = FE_CNT_GET(q->paused_ticks);

	if (q->until == UINT64_MAX && now > q->from)
		t += now - q->from;
	return t;
}

void
fe_pfc_wd_compile(struct fe_pfc_wd *w, const struct fe_pfc_params *prm, uint64_t hz)
{
	w->ticks = fe_ns_to_ticks(prm->watchdog_ns, hz);
	w->restore = prm->restore_ns ? fe_ns_to_ticks(prm->restore_ns, hz) : w->ticks;
	w->action = prm->watchdog_action;
}
