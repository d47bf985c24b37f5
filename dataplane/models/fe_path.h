/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_path: the path choice of a switch among equal-cost next hops (fe_graph.h,
 * docs/topologies.md). Pure: the engine, the command line and campaigns share it.
 */
#ifndef FE_PATH_H
#define FE_PATH_H

#include <string.h>

enum fe_path {
	FE_PATH_ECMP,	      /* a flow's 5-tuple hash, seeded per switch */
	FE_PATH_POLARIZED,    /* the same hash on every switch: the polarization case */
	FE_PATH_SPRAY,	      /* per packet, round robin */
	FE_PATH_ADAPTIVE,     /* per packet, the next hop with the least queued */
	FE_PATH_FLOWLET,      /* per flowlet: the least queued after the flow paused a gap */
	FE_PATH_SPRAY_RANDOM, /* per packet, at random (seeded: a run replays) */
	FE_PATH_ENTROPY,      /* per packet, the hash of its flow and the entropy its NIC chose
				 (REPS, NIC model uec); a frame without one: ecmp */
};
#define FE_PATH_ALLOWED "ecmp, polarized, spray, spray-random, adaptive, flowlet, entropy"

static inline const char *
fe_path_name(enum fe_path p)
{
	return p == FE_PATH_POLARIZED	   ? "polarized"
	       : p == FE_PATH_SPRAY	   ? "spray"
	       : p == FE_PATH_ADAPTIVE	   ? "adaptive"
	       : p == FE_PATH_FLOWLET	   ? "flowlet"
	       : p == FE_PATH_SPRAY_RANDOM ? "spray-random"
	       : p == FE_PATH_ENTROPY	   ? "entropy"
					   : "ecmp";
}

/* A name as --path and campaigns take it; 0, or -1 if unknown. */
static inline int
fe_path_parse(const char *s, enum fe_path *out)
{
	for (int p = FE_PATH_ECMP; p <= FE_PATH_ENTROPY; p++)
		if (strcmp(s, fe_path_name((enum fe_path)p)) == 0) {
			*out = (enum fe_path)p;
			return 0;
		}
	return -1;
}

#endif
