/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_regime: the regime, dispatched once.
 *
 * fe_dp_create() points dp->rg at the operations of the regime the run uses; from then on
 * the loop calls them and no frame tests the regime. Each operation is compiled once a
 * regime with the regime a constant (fe_switch.c, fe_graph.c, fe_dp.c: their code takes
 * `const enum fe_regime R` down to the frame, and the compiler folds every test of it).
 * Inside one regime's code, a call into another file goes straight to that regime's
 * copy (fe_rg_*() below, with R a constant: a direct call); the loop reaches a regime's
 * entry points by dp->rg, once a pass or a burst. Configuration code (creating the
 * engine, compiling a change) may still look at conf.regime: tests/tools/check-layers.sh
 * checks that nothing else does.
 */
#ifndef FE_REGIME_H
#define FE_REGIME_H

#include <stdint.h>

#include <rte_common.h>

#include "fe_fabric.h"

struct fe_dp;
struct fe_port;
struct rte_mbuf;

struct fe_regime_ops {
	enum fe_regime id;
	/* the loop (fe_dp.c): one pass of the stages `role` owns (FE_ROLE_*, not the
	 * pipeline's down stage, which is lossy only) */
	unsigned (*pass)(struct fe_dp *dp, uint64_t now, unsigned role);
	/* the switch (fe_switch.h; egress: fe_egress.h) */
	void (*ingress_burst)(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts, unsigned n,
			      uint64_t bytes, uint64_t now);
	void (*up)(struct fe_dp *dp, unsigned in, struct rte_mbuf *m, uint64_t now);
	void (*arrive_burst)(struct fe_dp *dp, unsigned in, struct rte_mbuf **pkts,
			     const uint64_t *stamps, unsigned n);
	void (*egress)(struct fe_dp *dp, unsigned in, unsigned q, struct rte_mbuf *m, uint64_t t,
		       uint8_t lane);
	unsigned (*service)(struct fe_dp *dp, uint64_t now);
	/* several switches (fe_graph.h) */
	void (*graph_ingress)(struct fe_dp *dp, unsigned in, int out, struct rte_mbuf *m,
			      uint64_t t, uint8_t lane);
	unsigned (*graph_service)(struct fe_dp *dp, uint64_t now);
	/* the idle loop (fe_dp_next_event): what was due and did not move waits for a
	 * credit or for room, both events of their own (credits); else it is "now" */
	int due_waits;
	/* a frame may enter a link at a tick before the pass's (lossy: the link's serializer
	 * orders it), so that a pass run late still sends at the time it answers; under PFC
	 * and credits nothing starts before the horizon the switch has seen (fe_dp.c,
	 * lossless_advance()) */
	int enters_past;
};

/* The operations of regime r. */
const struct fe_regime_ops *fe_regime_ops(enum fe_regime r);

/* The loop's entry points, once a regime (fe_dp.c). */
#define FE_LOOP_DECLARE(sfx)                                                                       \
	unsigned fe_dp_pass_##sfx(struct fe_dp *dp, uint64_t now, unsigned role);
FE_LOOP_DECLARE(lossy)
FE_LOOP_DECLARE(pfc)
FE_LOOP_DECLARE(credit)

/* From code compiled for regime R (a constant): that regime's copy, called directly. */
#define FE_RG_CALL(R, fn, ...)                                                                     \
	((R) == FE_REGIME_PFC	   ? fn##_pfc(__VA_ARGS__)                                         \
	 : (R) == FE_REGIME_CREDIT ? fn##_credit(__VA_ARGS__)                                      \
				   : fn##_lossy(__VA_ARGS__))

#define fe_rg_egress(R, ...)	    FE_RG_CALL(R, fe_egress, __VA_ARGS__)
#define fe_rg_arrive_burst(R, ...)  FE_RG_CALL(R, fe_switch_arrive_burst, __VA_ARGS__)
#define fe_rg_service(R, ...)	    FE_RG_CALL(R, fe_switch_service, __VA_ARGS__)
#define fe_rg_graph_ingress(R, ...) FE_RG_CALL(R, fe_graph_ingress, __VA_ARGS__)
#define fe_rg_graph_service(R, ...) FE_RG_CALL(R, fe_graph_service, __VA_ARGS__)

#endif
