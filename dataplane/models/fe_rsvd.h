/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IEEE 802.1Q's reserved group addresses, 01:80:C2:00:00:00 to 0F: a bridge never
 * forwards a frame to one of them (pause, PFC, STP, LACP, LLDP, 802.1X stop at the
 * switch port they reach). The switch asks fe_rsvd_addr() of every multicast
 * destination, and fe_rsvd_class() of the frames it stops, to count them by cause
 * (docs/counters.md). Pure C: no DPDK, unit-tested without EAL.
 */
#ifndef FE_RSVD_H
#define FE_RSVD_H

#include <stdint.h>

/* Why a frame to a reserved address stopped, by what it carries. */
enum fe_rsvd {
	FE_RSVD_PAUSE, /* 802.3x PAUSE: MAC control (0x8808), opcode 0x0001 */
	FE_RSVD_PFC,   /* 802.1Qbb priority flow control: MAC control, opcode 0x0101 */
	FE_RSVD_LLDP,  /* 802.1AB LLDP (0x88cc) */
	FE_RSVD_STP,   /* spanning tree BPDUs: LLC, DSAP and SSAP 0x42 */
	FE_RSVD_SLOW,  /* slow protocols (0x8809): LACP, marker, OAM */
	FE_RSVD_OTHER, /* anything else to such an address: 802.1X, other MAC control, MRP... */
	FE_RSVD__MAX
};

/* 1 if dst (six bytes) is a reserved group address, 01:80:C2:00:00:00 to 0F. */
static inline int
fe_rsvd_addr(const uint8_t *dst)
{
	return dst[0] == 0x01 && dst[1] == 0x80 && dst[2] == 0xc2 && dst[3] == 0 && dst[4] == 0 &&
	       (dst[5] & 0xf0) == 0;
}

/* The cause of frame f (len bytes, its 14-byte header at least; one 802.1Q tag is looked
 * through), a frame to a reserved address. */
enum fe_rsvd fe_rsvd_class(const uint8_t *f, uint32_t len);

/*
 * An 802.1Qbb PFC frame's class-enable vector (bit p: priority p), its eight quanta in
 * quanta[] (units of 512 bit times; 0: XON), or -1 if f (len bytes) is no whole PFC frame
 * (one 802.1Q tag looked through, as fe_rsvd_class() does).
 */
int fe_rsvd_pfc(const uint8_t *f, uint32_t len, uint16_t quanta[8]);

/* "pause", "pfc", "lldp", "stp", "slow", "other": the counters' suffixes. */
const char *fe_rsvd_name(enum fe_rsvd c);

#endif
