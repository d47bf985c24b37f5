/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "fe_bytes.h"
#include "fe_nic.h"
#include "fe_roce.h"

int
fe_roce_parse(const uint8_t *f, uint32_t len, struct fe_roce_pkt *p)
{
	uint32_t off = fe_nic_ipv4_off(f, len), ihl;
	const uint8_t *ip = f + off, *bth;

	if (off == 0 || ip[9] != 17 || (fe_get16(ip + 6) & 0x3fff) != 0)
		return -1;
	ihl = (uint32_t)(ip[0] & 15) * 4;
	if (len < off + ihl + 8 + 12 || fe_get16(ip + ihl + 2) != FE_ROCE_UDP)
		return -1;
	bth = ip + ihl + 8;
	memset(p, 0, sizeof(*p));
	memcpy(&p->daddr, ip + 16, 4);
	p->opcode = bth[0];
	p->qpn = fe_get24(bth + 5);
	p->psn = fe_get24(bth + 9);
	if ((p->opcode & 0x1f) == FE_BTH_ACK || (p->opcode & 0x1f) == FE_BTH_ATOMIC_ACK ||
	    ((p->opcode & 0x1f) >= 0x0d && (p->opcode & 0x1f) <= 0x10 &&
	     (p->opcode & 0x1f) != 0x0e)) { /* the opcodes with an AETH */
		if (len >= off + ihl + 8 + 12 + 4)
			p->syndrome = bth[12];
	}
	return 0;
}

enum fe_roce_event
fe_roce_track(struct fe_roce_qp *q, const struct fe_roce_pkt *p)
{
	uint8_t op = p->opcode;
	int32_t d;

	q->pkts++;
	if (op == FE_BTH_CNP) {
		q->cnps++;
		return FE_ROCE_CNP;
	}
	if ((op & 0x1f) == FE_BTH_ACK) {
		if ((p->syndrome & 0xe0) == 0x60) {
			q->naks++;
			return FE_ROCE_NAK;
		}
		if ((p->syndrome & 0xe0) == 0x20) {
			q->rnr_naks++;
			return FE_ROCE_RNR_NAK;
		}
		return FE_ROCE_OTHER;
	}
	if ((op & 0x1f) == FE_BTH_ATOMIC_ACK)
		return FE_ROCE_OTHER;
	/* a request or a read response: its PSN follows the queue pair's sequence */
	if (!q->started) {
		q->started = 1;
		q->high = q->next = (p->psn + 1) & FE_PSN_MASK;
		return FE_ROCE_IN_ORDER;
	}
	d = fe_psn_diff(p->psn, q->high);
	if (d >= 0) {
		enum fe_roce_event e = FE_ROCE_IN_ORDER;

		if (d > 0) {
			q->gaps++;
			q->missing += (uint64_t)d;
			e = FE_ROCE_GAP;
		}
		q->high = q->next = (p->psn + 1) & FE_PSN_MASK;
		return e;
	}
	q->resent++;
	if (p->psn != q->next)
		q->rewinds++;
	q->next = (p->psn + 1) & FE_PSN_MASK;
	return FE_ROCE_RESENT;
}
