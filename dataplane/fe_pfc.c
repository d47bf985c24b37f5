/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "fe_pfc.h"
#include "fe_time.h"

int
fe_pfc_init(struct fe_pfc *p, const struct fe_pfc_params *prm, uint64_t rate_bps, uint64_t hz)
{
	memset(p, 0, sizeof(*p));
	/* XON below XOFF, or the port would pause and resume on the same byte */
	if (prm->xon >= prm->xoff || prm->quanta == 0 || prm->quanta > 65535)
		return -EINVAL;
	p->quanta = (uint16_t)prm->quanta;
	p->xoff = prm->xoff;
	p->xon = prm->xon;
	p->headroom = prm->headroom;
	p->delay_ticks = fe_ns_to_ticks(prm->delay_ns, hz);
	/* a quantum is 512 bit times at the link's rate; an unlimited link: 100 Gbit/s */
	p->refresh_ticks = (uint64_t)((unsigned __int128)prm->quanta * 512 * hz /
				      (rate_bps ? rate_bps : 100000000000ULL) / 2);
	if (p->refresh_ticks == 0)
		p->refresh_ticks = 1;
	for (unsigned i = 0; i < FE_PFC_PRIOS; i++)
		p->prio[i].from = p->prio[i].until = 0;
	return 0;
}

enum fe_pfc_event
fe_pfc_update(struct fe_pfc *p, uint8_t prio, uint64_t held, uint64_t t)
{
	struct fe_pfc_prio *q = &p->prio[prio];

	if (!q->xoff && held >= p->xoff) {
		q->xoff = 1;
		q->xoff_at = t;
		/* a window still closing (XON in flight) is extended, not restarted */
		if (q->until <= t + p->delay_ticks)
			q->from = t + p->delay_ticks;
		q->until = UINT64_MAX;
		FE_CNT_ADD(q->pause_frames, 1);
		FE_CNT_ADD(q->xoff_events, 1);
		q->last_frame = t;
		return FE_PFC_XOFF;
	} else if (q->xoff && held <= p->xon) {
		q->xoff = 0;
		q->until = t + p->delay_ticks;
		/* refreshes sent while paused, and the XON frame */
		FE_CNT_ADD(q->pause_frames, (t - q->xoff_at) / p->refresh_ticks + 1);
		if (q->until > q->from)
			FE_CNT_ADD(q->paused_ticks, q->until - q->from);
		return FE_PFC_XON;
	}
	return FE_PFC_NONE;
}

int
fe_pfc_refresh_due(struct fe_pfc *p, uint8_t prio, uint64_t t)
{
	struct fe_pfc_prio *q = &p->prio[prio];

	if (!q->xoff || t - q->last_frame < p->refresh_ticks)
		return 0;
	q->last_frame = t;
	return 1;
}

void
fe_pfc_frame(uint8_t f[60], const uint8_t src[6], uint8_t prio, uint16_t quanta)
{
	static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}; /* MAC control */

	memset(f, 0, 60);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88; /* MAC control EtherType 0x8808 */
	f[13] = 0x08;
	f[14] = 0x01; /* opcode 0x0101: priority-based flow control */
	f[15] = 0x01;
	f[17] = (uint8_t)(1u << prio); /* class-enable vector, low octet: priorities 0-7 */
	f[18 + 2 * prio] = (uint8_t)(quanta >> 8);
	f[19 + 2 * prio] = (uint8_t)quanta;
}

uint64_t
fe_pfc_gate(void *ctx, uint8_t prio, uint32_t len, uint64_t start, uint64_t now)
{
	const struct fe_pfc_prio *q = &((struct fe_pfc *)ctx)->prio[prio];

	(void)len;
	if (start < q->from || start >= q->until)
		return start;
	return q->until <= now ? q->until : UINT64_MAX;
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
