/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_pfc: priority flow control (IEEE 802.1Qbb) at one switch ingress port.
 *
 * The switch counts, per priority, the bytes it holds that came in on this port. When
 * they reach XOFF it sends a PAUSE for that priority upstream; the sender stops
 * starting frames of that priority `delay` later (pause frame on the wire, propagation,
 * the sender's reaction), so up to delay x rate more bytes still arrive: the headroom
 * above XOFF must hold them. A pause carries `quanta` units of 512 bit times; the
 * switch refreshes it every quanta/2 while the priority stays above XON, so the sender
 * stays paused until the switch drains to XON and sends a zero-quanta XON frame, which
 * takes effect `delay` later. Bytes beyond XOFF + headroom are dropped (counted: it
 * means the headroom is too small for the delay and rate).
 *
 * One struct fe_pfc per ingress port; fe_pfc_gate() is the fe_link gate of the link
 * from the upstream sender. Pure, fake-clock tested.
 */
#ifndef FE_PFC_H
#define FE_PFC_H

#include <stdint.h>

#include "fe_counter.h"
#include "fe_link.h"

#define FE_PFC_PRIOS 8

struct fe_pfc_params {
	uint64_t xoff;	   /* bytes held from this port and priority that trigger a PAUSE */
	uint64_t xon;	   /* ... at or below which the switch sends XON */
	uint64_t headroom; /* bytes above XOFF still accepted (in flight during the reaction) */
	uint64_t delay_ns; /* from the switch deciding to the sender stopping (or resuming) */
	uint32_t quanta;   /* pause time in units of 512 bit times (802.1Qbb: 0..65535) */
	uint32_t frames;   /* 1: also send real 802.1Qbb frames out of the ingress port */
	/* the PFC watchdog of every switch egress (a host's down link, a link between
	 * switches: fe_pfc_wd): a queue paused watchdog_ns or longer with frames waiting is
	 * stormed for restore_ns (0: as long): what waits is dropped (action drop) or sent,
	 * pauses ignored (action forward) */
	uint64_t watchdog_ns; /* 0: off */
	uint64_t restore_ns;
	uint32_t watchdog_action; /* enum fe_pfc_wd_action */
};

enum fe_pfc_wd_action {
	FE_PFC_WD_DROP,
	FE_PFC_WD_FORWARD,
};
#define FE_PFC_WD_ALLOWED "drop, forward"

static inline const char *
fe_pfc_wd_action_name(uint32_t a)
{
	return a == FE_PFC_WD_FORWARD ? "forward" : "drop";
}

/* The PFC watchdog, compiled into ticks once (the engine's, for every egress queue). */
struct fe_pfc_wd {
	uint64_t ticks;	  /* paused this long with frames waiting: stormed; 0: off */
	uint64_t restore; /* a storm lasts this long */
	uint32_t action;  /* enum fe_pfc_wd_action */
};

void fe_pfc_wd_compile(struct fe_pfc_wd *w, const struct fe_pfc_params *prm, uint64_t hz);

/*
 * The watchdog's one condition, for every egress queue (a host's down link, a link between
 * switches), as SONiC's pfcwd detects a storm: the queue has been paused, and the frame at
 * its head unable to start, for the watchdog time. A frame that came late to a long pause
 * has not been held that long. `paused`: the tick the queue's pause began (UINT64_MAX: not
 * paused now); `waiting`: the tick from which its head could have started, had it not been
 * paused (UINT64_MAX: nothing waits). Returns the tick from which the queue is stormed if
 * both last; UINT64_MAX: never (the watchdog is off, or nothing is paused or waits).
 */
static inline uint64_t
fe_pfc_wd_due(const struct fe_pfc_wd *w, uint64_t paused, uint64_t waiting)
{
	uint64_t since = paused > waiting ? paused : waiting;

	if (w->ticks == 0 || since > UINT64_MAX - w->ticks)
		return UINT64_MAX;
	return since + w->ticks;
}

/* 1 if the queue of fe_pfc_wd_due() is stormed at now. */
static inline int
fe_pfc_wd_storm(const struct fe_pfc_wd *w, uint64_t paused, uint64_t waiting, uint64_t now)
{
	return fe_pfc_wd_due(w, paused, waiting) <= now;
}

/* What fe_pfc_update() decided: the frame a real switch would now send upstream. */
enum fe_pfc_event {
	FE_PFC_NONE,
	FE_PFC_XOFF, /* PAUSE with the configured quanta */
	FE_PFC_XON,  /* PAUSE with quanta 0 */
};

struct fe_pfc_prio {
	uint64_t xoff_at;	   /* when it decided to */
	uint64_t from, until;	   /* the sender is stopped in [from, until) */
	fe_counter_t pause_frames; /* PAUSE (incl. refreshes) and XON frames sent */
	fe_counter_t paused_ticks; /* time the sender was stopped (closed windows) */
	fe_counter_t xoff_events;
	uint64_t last_frame; /* when the last real PAUSE of this priority went out */
};

/* The thresholds, compiled once (a run-time change replaces them whole). */
struct fe_pfc_cfg {
	uint64_t xoff, xon, headroom, delay_ticks, refresh_ticks;
	uint16_t quanta;
	uint8_t frames; /* also send real 802.1Qbb frames (a host's port) */
};

struct fe_pfc {
	struct fe_pfc_cfg cfg;
	struct fe_pfc_prio prio[FE_PFC_PRIOS]; /* the state */
	uint8_t xoff_prios; /* bit p: the switch has paused priority p (fe_pfc_xoff()) */
};

/* The switch has paused prio (XOFF, no XON since). */
static inline int
fe_pfc_xoff(const struct fe_pfc *p, uint8_t prio)
{
	return p->xoff_prios >> prio & 1;
}

/* Compile prm for a link of rate_bps (the pause quantum's length) and a TSC of hz: 0 or
 * -EINVAL (XON not below XOFF, quanta out of 1..65535). */
int fe_pfc_compile(struct fe_pfc_cfg *c, const struct fe_pfc_params *prm, uint64_t rate_bps,
		   uint64_t hz);

/*
 * The same for the ingress fed by a link of parameters `link`: what prm leaves at 0
 * takes the link's defaults (the delay: its propagation plus 1 us to react; the
 * headroom: what is in flight meanwhile, both ways, plus a maximum frame at each end).
 * 0, or -EINVAL with a message in err.
 */
int fe_pfc_compile_link(struct fe_pfc_cfg *c, const struct fe_pfc_params *prm,
			const struct fe_link_params *link, uint64_t hz, char *err, size_t errlen);

/* Compile into p and start it unpaused. */
int fe_pfc_init(struct fe_pfc *p, const struct fe_pfc_params *prm, uint64_t rate_bps, uint64_t hz);

/* 0 if a packet of len bytes may be held with `held` bytes already held; -1: drop. */
static inline int
fe_pfc_admit(const struct fe_pfc *p, uint64_t held, uint32_t len)
{
	return held + len > p->cfg.xoff + p->cfg.headroom ? -1 : 0;
}

/* The switch holds `held` bytes of priority prio from this port at tick t. */
enum fe_pfc_event fe_pfc_update(struct fe_pfc *p, uint8_t prio, uint64_t held, uint64_t t);

/* 0 if fe_pfc_update() with held would decide nothing and change nothing: below XOFF
 * while not paused, above XON while paused. */
static inline int
fe_pfc_may_change(const struct fe_pfc *p, uint8_t prio, uint64_t held)
{
	return fe_pfc_xoff(p, prio) ? held <= p->cfg.xon : held >= p->cfg.xoff;
}

/*
 * The sender's side of an ingress on another box (a link between boxes, fe_graph.h): a
 * PAUSE (xoff 1; its refreshes too) or an XON (xoff 0) for prio heard, to take effect at
 * tick t (its arrival, plus the reaction delay less what the real link took). The windows
 * are the ones fe_pfc_update() keeps on the receiver's side: paused from t until an XON.
 */
void fe_pfc_heard(struct fe_pfc *p, uint8_t prio, int xoff, uint64_t t);

/* Real frames: 1 if priority prio, still paused at t, is due for a refresh PAUSE. */
int fe_pfc_refresh_due(struct fe_pfc *p, uint8_t prio, uint64_t t);

/* Write the 60-byte 802.1Qbb frame for ev on prio, from source MAC src, into f. */
void fe_pfc_frame(uint8_t f[60], const uint8_t src[6], uint8_t prio, uint16_t quanta);

/* The same for every priority of the bit mask prios, each with the same quanta. */
void fe_pfc_frame_vec(uint8_t f[60], const uint8_t src[6], uint8_t prios, uint16_t quanta);

/* The fe_link gate of the upstream sender (ctx is the struct fe_pfc). */
uint64_t fe_pfc_gate(void *ctx, uint8_t prio, uint32_t len, uint64_t start, uint64_t now);

/* fe_pfc_gate(), for fe_link_pump_inline() with a constant gate. */
static inline uint64_t
fe_pfc_gate_inline(void *ctx, uint8_t prio, uint32_t len, uint64_t start, uint64_t now)
{
	const struct fe_pfc_prio *q = &((struct fe_pfc *)ctx)->prio[prio];

	(void)len;
	if (start < q->from || start >= q->until)
		return start;
	return q->until <= now ? q->until : UINT64_MAX;
}

/* The tick from which prio's sender has been stopped, if it is stopped at now (an XON on
 * its way stops it still); UINT64_MAX if not (fe_pfc_wd_due()'s `paused`). */
static inline uint64_t
fe_pfc_paused_since(const struct fe_pfc *p, uint8_t prio, uint64_t now)
{
	const struct fe_pfc_prio *q = &p->prio[prio];

	return q->from <= now && now < q->until ? q->from : UINT64_MAX;
}

/* Paused time of prio up to now, open window included. */
uint64_t fe_pfc_paused(const struct fe_pfc *p, uint8_t prio, uint64_t now);

#endif
