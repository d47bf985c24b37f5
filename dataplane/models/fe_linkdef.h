/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_linkdef: everything a user sets on one link, in user units. The control side
 * fills it (command line, profile); the dataplane compiles it once into ticks, bytes
 * and fixed-point probabilities when it creates the link.
 *
 *   ctlplane: wo    dataplane: ro (at compile time only)
 */
#ifndef FE_LINKDEF_H
#define FE_LINKDEF_H

#include <stdint.h>

#include "fe_ecn.h"
#include "fe_link.h"
#include "fe_loss.h"

#define FE_MATCH_LEN 256

struct fe_linkdef {
	struct fe_link_params link; /* rate, delay, buffer */
	struct fe_loss_params loss; /* random or bursty loss */
	struct fe_ecn_params ecn;   /* RED-style marking on this link's queue */
	uint64_t drop_first;	    /* exact drops: the drop_first-th matching packet ... */
	uint64_t drop_count;	    /* ... and the drop_count - 1 after it; 0: no rule */
	uint8_t llr;		    /* link-level retry: what loss and ge hit is sent again */
	char match[FE_MATCH_LEN];   /* tcpdump filter the impairments above apply to; "": all */
};

/*
 * What a topology sets of a link between switches over its class (docs/topologies.md): its
 * own rate, or a share of the class's, and its own delay.
 */
struct fe_linkdef_over {
	uint64_t rate_bps, delay_ns; /* 0: the class's */
	uint32_t num, den;	     /* else the class's rate x num / den */
};

/* The values of a link of class `class` with what o sets over it: the dataplane's, the
 * control thread's when a profile is applied, and what `campaign show` prints. */
static inline void
fe_linkdef_apply_over(const struct fe_linkdef *class, const struct fe_linkdef_over *o,
		      struct fe_linkdef *out)
{
	*out = *class;
	if (o->rate_bps)
		out->link.rate_bps = o->rate_bps;
	else if (out->link.rate_bps)
		out->link.rate_bps = out->link.rate_bps * o->num / o->den;
	if (o->delay_ns)
		out->link.delay_ns = o->delay_ns;
}

#endif
