/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_nictag: the emulated NIC's tag on a frame (docs/nic.md), and what the switches read
 * of it or do to a NIC's frame. The NIC edge (fe_nicport.c) writes the tag when its frame
 * enters the fabric; the switches and the links below it read it here without knowing
 * the NIC: a flood makes a data frame plain, path entropy hashes its entropy, a trunk
 * renumbers its port, a full output trims it (fe_linkop.c).
 *
 *   tag: gen (8 bits) << 48 | flags (bits 44 to 47) | kind (4 bits) << 40 | port << 32 |
 *        slot << 24 | PSN (24 bits),
 *        the entropy a data frame was sent with (model uec) in its top byte
 *   pull: a field of its own (4 bytes: the mbuf's dynamic area has four 8-byte slots, all
 *        taken, and one of 4), a data frame's pull target (cc rccc: quanta, cumulative),
 *        a field of its header as UET's: the receiving NIC hears it from the frame, on
 *        this box or another (a trunk carries it with the tag)
 *
 * data: its flow's sender port and slot, its PSN; a NIC's own frame (CNP, ACK, NAK): the
 * port it goes back to; a trimmed header: its data frame's, of kind FE_TAG_TRIM.
 */
#ifndef FE_NICTAG_H
#define FE_NICTAG_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "fe_dp.h"
#include "fe_roce.h"

enum {
	FE_TAG_NONE = 0,
	FE_TAG_DATA = 1,
	FE_TAG_PROBE = 2, /* model uec, SLEEK's loss probe: a NIC's frame that goes the data's
			     way and in its queue, as uet-htsim's DATA_PROBE (a data packet) */
	FE_TAG_CTL = 3,
	FE_TAG_TRIM = 4 /* a data frame's header; CTL and TRIM last: kind >= FE_TAG_CTL is
			   both (the frames that go ahead of the data, fe_linkop_header()) */
};

#define FE_TAG_GEN(t)  ((unsigned)((t) >> 48 & 0xff))
#define FE_TAG_KIND(t) ((unsigned)((t) >> 40 & 0xf))
/* model uec with ack-bytes: a data frame its sender asks an ACK for at once (uet-htsim's
 * AR: its last queued, its window or credit spent after it, every resend); on an ACK, it
 * echoes one entropy, in its top byte: the frame's that asked for it (uet-htsim's ACK
 * carries that frame's path_id), which alone goes back to REPS */
#define FE_TAG_AR (UINT64_C(1) << 44)
/* a data frame its host sent Not-ECT (its TCP did not ask for ECN): the sending NIC made it
 * ECT(0), as an RDMA or UET NIC's packets are ECN-capable, so that a switch can mark it;
 * the receiving NIC gives it to its host Not-ECT, as sent (docs/nic.md) */
#define FE_TAG_ECT (UINT64_C(1) << 45)
/* a probe that a full output trimmed (fe_nic_trim()): it goes on ahead of the data as a
 * header, tagged FE_TAG_CTL, and its receiver does not answer it (uet-htsim's sink takes a
 * stripped probe for a trimmed frame, never for a probe) */
#define FE_TAG_CUT (UINT64_C(1) << 46)
/* a data frame's trimmed header (FE_TAG_TRIM) cut on a link other than a host's down link
 * (fe_linkop_trim()): its NAK is not the last hop's; carried with the tag, across trunks
 * too */
#define FE_TAG_EARLIER (UINT64_C(1) << 47)
#define FE_TAG_PORT(t) ((unsigned)((t) >> 32 & 0xff))
#define FE_TAG_SLOT(t) ((unsigned)((t) >> 24 & 0xff))
#define FE_TAG_PSN(t)  ((uint32_t)(t)&FE_PSN_MASK)

/* The tag of m (dp->nic_dynoff). */
static inline uint64_t *
fe_nic_tag(const struct fe_dp *dp, struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, dp->nic_dynoff, uint64_t *);
}

/* The pull target data frame m carries (cc rccc; dp->nic_pulloff). */
static inline uint32_t *
fe_nic_pull(const struct fe_dp *dp, struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, dp->nic_pulloff, uint32_t *);
}

static inline uint64_t
fe_nic_tag_make(unsigned kind, unsigned port, unsigned slot, unsigned gen, uint32_t psn)
{
	return (uint64_t)(gen & 0xff) << 48 | (uint64_t)kind << 40 | (uint64_t)(port & 0xff) << 32 |
	       (uint64_t)(slot & 0xff) << 24 | (psn & FE_PSN_MASK);
}

/*
 * The NIC's field in the mbuf (its tag): its offset, or -1 (rte_errno). A split fabric's
 * trunks carry it whether or not a NIC is here (fe_trunk.c).
 */
int fe_nic_field(void);

/* The NIC's second field (a data frame's pull target): its offset, or -1 (rte_errno). The
 * trunks carry it too. */
int fe_nic_pull_field(void);

/*
 * A tag with its port renumbered by map[] (a split fabric's trunks: this box's numbers to
 * the fabric's, and back); a tag of no NIC's as it is.
 */
static inline uint64_t
fe_nic_tag_port(uint64_t tag, const uint8_t *map)
{
	if (FE_TAG_KIND(tag) == FE_TAG_NONE)
		return tag;
	return (tag & ~(UINT64_C(0xff) << 32)) | (uint64_t)map[FE_TAG_PORT(tag)] << 32;
}

/* The entropy a NIC chose for a frame (model uec, REPS: the top byte of its tag); 0: none.
 * An ACK's top byte is the entropy it echoes (FE_TAG_AR), not its own: it goes by its flow. */
static inline uint32_t
fe_nic_tag_entropy(uint64_t tag)
{
	return FE_TAG_KIND(tag) == FE_TAG_CTL ? 0 : (uint32_t)(tag >> 56);
}

/* A flow's data frame that the switch floods goes on as a plain frame (no PSN), with the
 * ECN field its host gave it. */
static inline void
fe_nic_flooded(const struct fe_dp *dp, struct rte_mbuf *m)
{
	uint64_t *tag = fe_nic_tag(dp, m);

	if (FE_TAG_KIND(*tag) != FE_TAG_DATA)
		return;
	if (*tag & FE_TAG_ECT)
		fe_nic_ecn_set(rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m), 0);
	*tag = 0;
}

/*
 * Lossy, model uec: the header of data frame m, trimmed (a new frame of the NIC's
 * trim_bytes at most, its DSCP remarked if trim_dscp says, tagged trimmed; m is untouched: the
 * sender's NIC keeps it for the resend), or NULL if m is no NIC's data frame (it is dropped as any
 * frame is) or no mbuf was left. A probe is trimmed too: cut (FE_TAG_CUT), a control frame.
 */
struct rte_mbuf *fe_nic_trim(struct fe_dp *dp, struct rte_mbuf *m);

#endif
