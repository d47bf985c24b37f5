/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_linkx: what happens to a packet before it is offered to a link: per-flow
 * selection, exact drops, random or bursty loss, ECN marking, jitter. Compiled once from
 * struct fe_linkdef (fe_linkx_compile, outside the lcore) into struct fe_linkx_cfg; a
 * run-time change replaces the cfg whole (fe_adopt.c), the state stays.
 */
#ifndef FE_LINKX_H
#define FE_LINKX_H

#include <stddef.h>
#include <stdint.h>

#include "fe_counter.h"
#include "fe_credit.h"
#include "fe_ecn.h"
#include "fe_link.h"
#include "fe_linkdef.h"
#include "fe_loss.h"
#include "fe_pfc.h"
#include "fe_rng.h"

struct fe_filter;

struct fe_linkx_cfg {
	struct fe_filter *filter; /* NULL: the impairments apply to every packet */
	struct fe_loss loss;
	enum fe_link_drop loss_cause;
	struct fe_ecn ecn;
	uint64_t jitter_ticks;
	/* exact drops: matching packets drop_first to drop_first + drop_count - 1 (numbered
	 * from 1; one unsigned compare a packet); count 0: none */
	uint64_t drop_first, drop_count;
	uint8_t active; /* any impairment at all */
	uint8_t llr;	/* link-level retry: the loss model's frames are sent again (fe_link.h) */
};

struct fe_linkx {
	struct fe_linkx_cfg cfg;
	struct fe_rng rng;	      /* seeded from the run's seed and the link's index */
	struct fe_loss_state loss_st; /* a Gilbert-Elliott chain's state: it restarts (good)
					 only when a change gives the link another loss model */
	uint64_t matched;	      /* packets that passed the filter */
	fe_counter_t filter_hits;
};

/*
 * A row of the link table (fe_dp.h numbers the rows, fe_dp_row() in fe_graph.h finds one):
 * the link model's configuration, derived values and state (queue, serializer, counters),
 * its impairments' (filter, loss model and chain, PRNG), then its lossless state: the PFC
 * of the switch input it feeds and the credits of its sender (their thresholds and
 * return derived from the link, fe_derive.h; a host's down link feeds no switch and
 * leaves both unused). A port holds two (up, down), a link between switches one
 * (fe_graph.h); the row's id is its number, its name fe_dp_link_name()'s. Every row is
 * set up and freed by fe_row_setup() and fe_row_free() (fe_dp.h).
 */
struct fe_row {
	struct fe_link l;
	struct fe_linkx x;
	struct fe_pfc pfc;     /* PFC at the ingress this link feeds (and the link's gate) */
	struct fe_credit cred; /* credits its sender holds for that ingress's buffer */
	/* credits: the bytes waiting for this link in its switch's input queues (its
	 * virtual output queue, fe_lossless.h), which its ECN counts with its own queue */
	uint64_t voq_bytes;
};

/* Compile d for a TSC of hz; 0, or -EINVAL with a message in err (nothing to free). */
int fe_linkx_compile(struct fe_linkx_cfg *c, const struct fe_linkdef *d, uint64_t hz, char *err,
		     size_t errlen);

/* Start x with c; stream numbers the link for its PRNG (the run replays from seed). */
void fe_linkx_init(struct fe_linkx *x, const struct fe_linkx_cfg *c, uint64_t seed,
		   unsigned stream);

#endif
