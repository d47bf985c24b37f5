/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>

#include "fe_bytes.h"
#include "fe_nic.h"

enum {
	ETH_HLEN = 14,
	ETYPE_VLAN = 0x8100,
	ETYPE_IPV4 = 0x0800,
	AETH_NAK_SEQ = 0x60,
	AETH_NAK_TRIM = 0x70,	   /* a NAK code RoCE reserves: fabemu's, model uec (fe_nic.h) */
	AETH_NAK_TRIM_LAST = 0x71, /* and the next: the frame trimmed at the last hop */
};

void
fe_dcqcn_compile(const struct fe_nic_params *p, uint64_t line_bps, uint64_t hz,
		 struct fe_dcqcn_cfg *c)
{
	c->g = 1.0 / (p->g_den ? p->g_den : 1);
	c->line = (double)line_bps;
	c->ai = (double)p->ai_bps;
	c->hai = (double)p->hai_bps;
	c->min = (double)p->min_bps < c->line ? (double)p->min_bps : c->line;
	c->k = (uint64_t)((unsigned __int128)p->alpha_ns * hz / 1000000000u);
	c->t = (uint64_t)((unsigned __int128)p->timer_ns * hz / 1000000000u);
	c->k += c->k == 0;
	c->t += c->t == 0;
	c->b = p->bytes ? p->bytes : 1;
	c->f = p->stages;
}

void
fe_dcqcn_init(struct fe_dcqcn *s, const struct fe_dcqcn_cfg *c)
{
	*s = (struct fe_dcqcn){.rc = c->line,
			       .rt = c->line,
			       .alpha = 1.0,
			       .alpha_next = UINT64_MAX,
			       .timer_next = UINT64_MAX};
}

/* One rate increase event; T_n, B_n as they were before it. */
static void
increase(struct fe_dcqcn *s, const struct fe_dcqcn_cfg *c)
{
	uint32_t hi = s->t_n > s->b_n ? s->t_n : s->b_n;
	uint32_t lo = s->t_n < s->b_n ? s->t_n : s->b_n;

	if (hi >= c->f) {
		if (lo >= c->f)
			s->rt += (double)(lo - c->f + 1) * c->hai;
		else
			s->rt += c->ai;
		if (s->rt > c->line)
			s->rt = c->line;
	}
	s->rc = (s->rt + s->rc) / 2;
	s->increases++;
	/* within a millionth of the line rate: at it, and no longer paced */
	if (s->rt >= c->line && s->rc >= c->line * (1 - 1e-6)) {
		s->rc = c->line;
		s->limited = 0;
		s->timer_next = UINT64_MAX;
	}
}

void
fe_dcqcn_advance(struct fe_dcqcn *s, const struct fe_dcqcn_cfg *c, uint64_t now)
{
	if (s->alpha_next <= now) {
		uint64_t n = (now - s->alpha_next) / c->k + 1;

		s->alpha *= pow(1 - c->g, (double)n);
		s->alpha_next += n * c->k;
	}
	while (s->limited && s->timer_next <= now) {
		uint64_t at = s->timer_next;

		increase(s, c);
		s->t_n++;
		if (s->limited)
			s->timer_next = at + c->t;
	}
}

void
fe_dcqcn_cnp(struct fe_dcqcn *s, const struct fe_dcqcn_cfg *c, uint64_t now)
{
	fe_dcqcn_advance(s, c, now);
	s->rt = s->rc;
	s->rc *= 1 - s->alpha / 2;
	if (s->rc < c->min)
		s->rc = c->min;
	s->alpha = (1 - c->g) * s->alpha + c->g;
	s->alpha_next = now + c->k;
	s->timer_next = now + c->t;
	s->bytes = 0;
	s->t_n = s->b_n = 0;
	s->limited = 1;
	s->cnps++;
}

void
fe_dcqcn_sent(struct fe_dcqcn *s, const struct fe_dcqcn_cfg *c, uint32_t len, uint64_t now)
{
	fe_dcqcn_advance(s, c, now);
	if (!s->limited)
		return;
	s->bytes += len;
	while (s->limited && s->bytes >= c->b) {
		s->bytes -= c->b;
		increase(s, c);
		s->b_n++;
	}
}

uint64_t
fe_dcqcn_gap(const struct fe_dcqcn *s, uint32_t len, uint64_t hz)
{
	if (!s->limited || s->rc <= 0)
		return 0;
	return (uint64_t)((double)len * 8.0 * (double)hz / s->rc);
}

void
fe_ibcc_compile(const struct fe_nic_params *p, uint64_t hz, struct fe_ibcc_cfg *c)
{
	c->increase = p->ccti_increase;
	c->limit = p->ccti_limit;
	c->min = p->ccti_min < p->ccti_limit ? p->ccti_min : p->ccti_limit;
	c->den = p->cct_den ? p->cct_den : 1;
	c->timer = (uint64_t)((unsigned __int128)p->ccti_timer_ns * hz / 1000000000u);
	c->timer += c->timer == 0;
}

void
fe_ibcc_advance(struct fe_ibcc *s, const struct fe_ibcc_cfg *c, uint64_t now)
{
	while (s->timer_next <= now) {
		if (s->ccti > c->min)
			s->ccti--;
		if (s->ccti <= c->min) {
			s->timer_next = UINT64_MAX;
			break;
		}
		s->timer_next += c->timer;
	}
}

void
fe_ibcc_becn(struct fe_ibcc *s, const struct fe_ibcc_cfg *c, uint64_t now)
{
	fe_ibcc_advance(s, c, now);
	s->ccti = s->ccti + c->increase > c->limit ? c->limit : s->ccti + c->increase;
	if (s->ccti < c->min)
		s->ccti = c->min;
	if (s->timer_next == UINT64_MAX && s->ccti > c->min)
		s->timer_next = now + c->timer;
	s->becns++;
}

uint64_t
fe_ibcc_gap(const struct fe_ibcc *s, const struct fe_ibcc_cfg *c, uint32_t len, uint64_t line_bps,
	    uint64_t hz)
{
	uint64_t pkt;

	if (s->ccti == 0 || line_bps == 0)
		return 0;
	pkt = (uint64_t)((unsigned __int128)len * 8 * hz / line_bps);
	return pkt + pkt * s->ccti / c->den;
}

uint32_t
fe_nic_ipv4_off(const uint8_t *f, uint32_t len)
{
	uint32_t off = ETH_HLEN;
	uint16_t type;

	if (len < ETH_HLEN + 20)
		return 0;
	type = fe_get16(f + 12);
	if (type == ETYPE_VLAN) {
		type = fe_get16(f + 16);
		off += 4;
	}
	if (type != ETYPE_IPV4 || len < off + 20 || (f[off] >> 4) != 4 || (f[off] & 15) < 5)
		return 0;
	return off;
}

int
fe_nic_flow_key(const uint8_t *f, uint32_t len, struct fe_nic_key *k)
{
	uint32_t off = fe_nic_ipv4_off(f, len), l4;
	const uint8_t *ip = f + off;

	if (off == 0 || (ip[9] != 6 && ip[9] != 17) || (fe_get16(ip + 6) & 0x3fff) != 0)
		return -1; /* not TCP or UDP, or a fragment */
	l4 = off + (uint32_t)(ip[0] & 15) * 4;
	if (len < l4 + 4)
		return -1;
	memset(k, 0, sizeof(*k));
	memcpy(&k->saddr, ip + 12, 4);
	memcpy(&k->daddr, ip + 16, 4);
	memcpy(&k->sport, f + l4, 2);
	memcpy(&k->dport, f + l4 + 2, 2);
	k->proto = ip[9];
	memcpy(k->dmac, f, 6);
	return 0;
}

int
fe_nic_ecn_get(const uint8_t *f, uint32_t len)
{
	uint32_t off = fe_nic_ipv4_off(f, len);

	return off ? f[off + 1] & 3 : -1;
}

int
fe_nic_ecn_set(uint8_t *f, uint32_t len, uint8_t v)
{
	uint32_t off = fe_nic_ipv4_off(f, len);
	uint16_t old;

	if (off == 0)
		return -1;
	old = fe_get16(f + off);
	f[off + 1] = (uint8_t)((f[off + 1] & ~3u) | (v & 3u));
	fe_csum_replace16(f + off + 10, old, fe_get16(f + off));
	return 0;
}

static uint16_t
ip_csum(const uint8_t *ip)
{
	uint32_t s = 0;

	for (int i = 0; i < 20; i += 2)
		s += fe_get16(ip + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

void
fe_nic_ctl_frame(uint8_t *out, const uint8_t *data, enum fe_nic_ctl kind, uint32_t qpn,
		 uint32_t psn)
{
	uint32_t off = fe_nic_ipv4_off(data, 64); /* the caller passed an IPv4 flow's frame */
	uint8_t *ip = out + ETH_HLEN, *udp = ip + 20, *bth = udp + 8;

	memset(out, 0, FE_NIC_CTL_LEN);
	if (kind == FE_NIC_PROBE) { /* the data's way */
		memcpy(out, data, 12);
	} else { /* back to the data's source */
		memcpy(out, data + 6, 6);
		memcpy(out + 6, data, 6);
	}
	fe_put16(out + 12, ETYPE_IPV4);
	ip[0] = 0x45;
	ip[1] = 48 << 2; /* DSCP 48, not ECN-capable */
	fe_put16(ip + 2, FE_NIC_CTL_LEN - ETH_HLEN);
	fe_put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = 17;
	if (off && kind == FE_NIC_PROBE) {
		memcpy(ip + 12, data + off + 12, 8);
	} else if (off) {
		memcpy(ip + 12, data + off + 16, 4);
		memcpy(ip + 16, data + off + 12, 4);
	}
	fe_put16(ip + 10, ip_csum(ip));
	fe_put16(udp, 49152 | (qpn & 0x3fff)); /* source port: entropy, as NICs do */
	fe_put16(udp + 2, FE_ROCE_UDP);
	fe_put16(udp + 4, FE_NIC_CTL_LEN - ETH_HLEN - 20);
	bth[0] = kind == FE_NIC_CNP ? FE_BTH_CNP : FE_BTH_ACK;
	fe_put16(bth + 2, 0xffff); /* default P_Key */
	bth[5] = (uint8_t)(qpn >> 16);
	bth[6] = (uint8_t)(qpn >> 8);
	bth[7] = (uint8_t)qpn;
	bth[9] = (uint8_t)(psn >> 16);
	bth[10] = (uint8_t)(psn >> 8);
	bth[11] = (uint8_t)psn;
	if (kind == FE_NIC_NAK)
		bth[12] = AETH_NAK_SEQ;
	else if (kind == FE_NIC_TRIM_NAK)
		bth[12] = AETH_NAK_TRIM;
	else if (kind == FE_NIC_ACK)
		bth[12] = 0x1f; /* ACK, no credit count */
	else if (kind == FE_NIC_ACK_ECE)
		bth[12] = 0x1e; /* an ACK whose credit field RoCE leaves alone: fabemu's ECN echo */
	else if (kind == FE_NIC_CREDIT)
		bth[12] = 0x1d; /* and another: fabemu's RCCC grant */
	else if (kind == FE_NIC_PROBE)
		bth[12] = 0x1c; /* fabemu's SLEEK probe */
	else if (kind == FE_NIC_PROBE_ACK)
		bth[12] = 0x1b; /* and its answer */
}

int
fe_nic_ctl_parse(const uint8_t *f, uint32_t len, enum fe_nic_ctl *kind, uint32_t *qpn,
		 uint32_t *psn)
{
	const uint8_t *ip = f + ETH_HLEN, *udp = ip + 20, *bth = udp + 8;

	if (len < FE_NIC_CTL_LEN - 4 || fe_get16(f + 12) != ETYPE_IPV4 || ip[0] != 0x45 ||
	    ip[9] != 17 || fe_get16(udp + 2) != FE_ROCE_UDP)
		return -1;
	if (bth[0] == FE_BTH_CNP)
		*kind = FE_NIC_CNP;
	else if (bth[0] == FE_BTH_ACK)
		*kind = (bth[12] & 0xfe) == AETH_NAK_TRIM  ? FE_NIC_TRIM_NAK
			: (bth[12] & 0xe0) == AETH_NAK_SEQ ? FE_NIC_NAK
			: bth[12] == 0x1e		   ? FE_NIC_ACK_ECE
			: bth[12] == 0x1d		   ? FE_NIC_CREDIT
			: bth[12] == 0x1c		   ? FE_NIC_PROBE
			: bth[12] == 0x1b		   ? FE_NIC_PROBE_ACK
							   : FE_NIC_ACK;
	else
		return -1;
	*qpn = (uint32_t)bth[5] << 16 | (uint32_t)bth[6] << 8 | bth[7];
	*psn = (uint32_t)bth[9] << 16 | (uint32_t)bth[10] << 8 | bth[11];
	return 0;
}

void
fe_nic_ctl_sack_set(uint8_t *f, uint32_t sack, uint32_t off)
{
	uint8_t *msn = f + ETH_HLEN + 20 + 8 + 13; /* the AETH's, after its syndrome */

	fe_put16(f + FE_NIC_CTL_LEN - 4, (uint16_t)(sack >> 16));
	fe_put16(f + FE_NIC_CTL_LEN - 2, (uint16_t)sack);
	msn[0] = (uint8_t)(off >> 16);
	msn[1] = (uint8_t)(off >> 8);
	msn[2] = (uint8_t)off;
}

uint32_t
fe_nic_ctl_sack(const uint8_t *f, uint32_t *off)
{
	const uint8_t *msn = f + ETH_HLEN + 20 + 8 + 13;

	*off = (uint32_t)msn[0] << 16 | (uint32_t)msn[1] << 8 | msn[2];
	return (uint32_t)fe_get16(f + FE_NIC_CTL_LEN - 4) << 16 | fe_get16(f + FE_NIC_CTL_LEN - 2);
}

void
fe_nic_ctl_probe_set(uint8_t *f, uint8_t probe)
{
	/* the 7 reserved bits after the BTH's AckReq, before the PSN */
	f[ETH_HLEN + 20 + 8 + 8] = (uint8_t)(probe & 0x7f);
}

void
fe_nic_ctl_trim_last_set(uint8_t *f)
{
	uint8_t *aeth = f + ETH_HLEN + 20 + 8 + 12;

	if (aeth[0] == AETH_NAK_TRIM)
		aeth[0] = AETH_NAK_TRIM_LAST;
}

int
fe_nic_ctl_trim_last(const uint8_t *f)
{
	return f[ETH_HLEN + 20 + 8 + 12] == AETH_NAK_TRIM_LAST;
}

uint8_t
fe_nic_ctl_probe(const uint8_t *f)
{
	return f[ETH_HLEN + 20 + 8 + 8] & 0x7f;
}
