/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "fe_bytes.h"
#include "fe_ecn.h"

enum {
	ECN_MASK = 0x03,
	ECN_CE = 0x03,
	ETH_HLEN = 14,
	VLAN_HLEN = 4,
	ETYPE_VLAN = 0x8100,
	ETYPE_IPV4 = 0x0800,
	ETYPE_IPV6 = 0x86dd,
};

int
fe_ecn_compile(const struct fe_ecn_params *p, struct fe_ecn *e)
{
	memset(e, 0, sizeof(*e));
	if (!p->enabled)
		return 0;
	if (p->kmin > p->kmax || !(p->pmax >= 0 && p->pmax <= 1))
		return -EINVAL;
	e->enabled = 1;
	e->drop_non_ect = (uint8_t) !!p->drop_non_ect;
	e->kmin = p->kmin;
	e->kmax = p->kmax;
	if (p->kmax > p->kmin)
		e->slope = (uint64_t)(((unsigned __int128)fe_prob(p->pmax) << 16) /
				      (p->kmax - p->kmin));
	return 0;
}

static enum fe_ecn_result
mark_ipv4(uint8_t *ip, uint32_t len)
{
	uint16_t old, new;

	if (len < 20 || (ip[0] >> 4) != 4)
		return FE_ECN_NOT_IP;
	if ((ip[1] & ECN_MASK) == 0)
		return FE_ECN_NOT_ECT;
	if ((ip[1] & ECN_MASK) == ECN_CE)
		return FE_ECN_ALREADY_CE;
	old = fe_get16(ip);
	ip[1] |= ECN_CE;
	new = fe_get16(ip);
	fe_csum_replace16(ip + 10, old, new);
	return FE_ECN_MARKED;
}

static enum fe_ecn_result
mark_ipv6(uint8_t *ip, uint32_t len)
{
	/* traffic class = low nibble of byte 0 and high nibble of byte 1; ECN is its low 2 bits */
	uint8_t ecn;

	if (len < 40 || (ip[0] >> 4) != 6)
		return FE_ECN_NOT_IP;
	ecn = (ip[1] >> 4) & ECN_MASK;
	if (ecn == 0)
		return FE_ECN_NOT_ECT;
	if (ecn == ECN_CE)
		return FE_ECN_ALREADY_CE;
	ip[1] |= ECN_CE << 4;
	return FE_ECN_MARKED;
}

/* The IP header of an Ethernet frame (one 802.1Q tag looked through): its offset, and
 * its EtherType (IPv4, IPv6; else 0). */
static uint16_t
ip_of(const uint8_t *frame, uint32_t len, uint32_t *off)
{
	uint16_t type;

	*off = ETH_HLEN;
	if (len < ETH_HLEN)
		return 0;
	type = fe_get16(frame + 12);
	if (type == ETYPE_VLAN) {
		if (len < ETH_HLEN + VLAN_HLEN)
			return 0;
		type = fe_get16(frame + 16);
		*off += VLAN_HLEN;
	}
	return type == ETYPE_IPV4 || type == ETYPE_IPV6 ? type : 0;
}

enum fe_ecn_result
fe_ecn_mark(uint8_t *frame, uint32_t len)
{
	uint32_t off;
	uint16_t type = ip_of(frame, len, &off);

	if (type == ETYPE_IPV4)
		return mark_ipv4(frame + off, len - off);
	if (type == ETYPE_IPV6)
		return mark_ipv6(frame + off, len - off);
	return FE_ECN_NOT_IP;
}

int
fe_dscp_set(uint8_t *frame, uint32_t len, uint8_t dscp)
{
	uint32_t off;
	uint16_t type = ip_of(frame, len, &off), old;
	uint8_t *ip = frame + off;

	if (type == ETYPE_IPV4 && len - off >= 20 && (ip[0] >> 4) == 4) {
		old = fe_get16(ip);
		ip[1] = (uint8_t)(dscp << 2 | (ip[1] & ECN_MASK));
		fe_csum_replace16(ip + 10, old, fe_get16(ip));
		return 0;
	}
	if (type == ETYPE_IPV6 && len - off >= 40 && (ip[0] >> 4) == 6) {
		/* traffic class: the low nibble of byte 0 and the high nibble of byte 1 */
		ip[0] = (uint8_t)((ip[0] & 0xf0) | dscp >> 2);
		ip[1] = (uint8_t)((ip[1] & 0x3f) | (dscp & 3) << 6);
		return 0;
	}
	return -1;
}
