/* SPDX-License-Identifier: BSD-3-Clause */
#include "fe_rsvd.h"

enum fe_rsvd
fe_rsvd_class(const uint8_t *f, uint32_t len)
{
	uint32_t off = 12;
	uint16_t type;

	if (len < 14)
		return FE_RSVD_OTHER;
	type = (uint16_t)(f[off] << 8 | f[off + 1]);
	if ((type == 0x8100 || type == 0x88a8) && len >= 18) { /* one tag: what it carries */
		off = 16;
		type = (uint16_t)(f[off] << 8 | f[off + 1]);
	}
	off += 2; /* the payload */
	if (type == 0x8808 && len >= off + 2) {
		uint16_t op = (uint16_t)(f[off] << 8 | f[off + 1]);

		return op == 0x0001 ? FE_RSVD_PAUSE : op == 0x0101 ? FE_RSVD_PFC : FE_RSVD_OTHER;
	}
	if (type == 0x88cc)
		return FE_RSVD_LLDP;
	if (type == 0x8809)
		return FE_RSVD_SLOW;
	/* a length, not a type: 802.2 LLC, and BPDUs are DSAP 0x42, SSAP 0x42 */
	if (type <= 1500 && len >= off + 2 && f[off] == 0x42 && f[off + 1] == 0x42)
		return FE_RSVD_STP;
	return FE_RSVD_OTHER;
}

int
fe_rsvd_pfc(const uint8_t *f, uint32_t len, uint16_t quanta[8])
{
	uint32_t off = 12;

	if (fe_rsvd_class(f, len) != FE_RSVD_PFC)
		return -1;
	if ((f[12] == 0x81 && f[13] == 0x00) || (f[12] == 0x88 && f[13] == 0xa8))
		off = 16;
	off += 4; /* the type, the opcode: the class-enable vector, then 8 quanta */
	if (len < off + 2 + 16)
		return -1;
	for (unsigned p = 0; p < 8; p++)
		quanta[p] = (uint16_t)(f[off + 2 + 2 * p] << 8 | f[off + 3 + 2 * p]);
	return f[off + 1];
}

const char *
fe_rsvd_name(enum fe_rsvd c)
{
	static const char *const names[FE_RSVD__MAX] = {
		[FE_RSVD_PAUSE] = "pause", [FE_RSVD_PFC] = "pfc",   [FE_RSVD_LLDP] = "lldp",
		[FE_RSVD_STP] = "stp",	   [FE_RSVD_SLOW] = "slow", [FE_RSVD_OTHER] = "other",
	};

	return (unsigned)c < FE_RSVD__MAX ? names[c] : "?";
}
