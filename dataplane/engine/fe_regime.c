/* SPDX-License-Identifier: BSD-3-Clause */
#include "fe_egress.h"
#include "fe_graph.h"
#include "fe_regime.h"
#include "fe_switch.h"

#define OPS(sfx, R)                                                                                \
	{                                                                                          \
		.due_waits = R == FE_REGIME_CREDIT, .enters_past = R == FE_REGIME_LOSSY, .id = R,  \
		.pass = fe_dp_pass_##sfx, .ingress_burst = fe_switch_ingress_burst_##sfx,          \
		.up = fe_switch_up_##sfx, .arrive_burst = fe_switch_arrive_burst_##sfx,            \
		.egress = fe_egress_##sfx, .service = fe_switch_service_##sfx,                     \
		.graph_ingress = fe_graph_ingress_##sfx, .graph_service = fe_graph_service_##sfx,  \
	}

static const struct fe_regime_ops ops[] = {
	[FE_REGIME_LOSSY] = OPS(lossy, FE_REGIME_LOSSY),
	[FE_REGIME_PFC] = OPS(pfc, FE_REGIME_PFC),
	[FE_REGIME_CREDIT] = OPS(credit, FE_REGIME_CREDIT),
};

const struct fe_regime_ops *
fe_regime_ops(enum fe_regime r)
{
	return (unsigned)r < RTE_DIM(ops) ? &ops[r] : NULL;
}
