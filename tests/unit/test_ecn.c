/* SPDX-License-Identifier: BSD-3-Clause */
/* ECN: which packets are hit at which backlog, and CE marking with correct checksums. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fe_ecn.h"

/* Full IPv4 header checksum of a 20-byte header: 0 when the header is valid. */
static uint16_t
ip_csum(const uint8_t *h)
{
	uint32_t s = 0;

	for (int i = 0; i < 20; i += 2)
		s += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* An Ethernet + IPv4 frame with the given TOS and a valid checksum. */
static void
ipv4_frame(uint8_t *f, uint8_t tos, int vlan)
{
	uint8_t *ip;
	uint16_t c;

	memset(f, 0, 64);
	if (vlan) {
		f[12] = 0x81;
		f[13] = 0x00;
		f[14] = 0x00;
		f[15] = 0x05;
		f[16] = 0x08;
		f[17] = 0x00;
		ip = f + 18;
	} else {
		f[12] = 0x08;
		f[13] = 0x00;
		ip = f + 14;
	}
	ip[0] = 0x45;
	ip[1] = tos;
	ip[3] = 40;
	ip[8] = 64;
	ip[9] = 6;
	ip[12] = 198, ip[13] = 18, ip[14] = 0, ip[15] = 1;
	ip[16] = 198, ip[17] = 18, ip[18] = 0, ip[19] = 2;
	c = ip_csum(ip);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	cr_assert_eq(ip_csum(ip), 0);
}

Test(ecn, ipv4_ect0_marked_checksum_valid)
{
	uint8_t f[64];

	ipv4_frame(f, 0xb8 | 0x02, 0); /* DSCP EF, ECT(0) */
	cr_assert_eq(fe_ecn_mark(f, sizeof(f)), FE_ECN_MARKED);
	cr_assert_eq(f[15], 0xb8 | 0x03, "DSCP kept, CE set: 0x%02x", f[15]);
	cr_assert_eq(ip_csum(f + 14), 0, "checksum invalid after marking");
}

Test(ecn, ipv4_ect1_and_vlan)
{
	uint8_t f[64];

	ipv4_frame(f, 0x01, 1);
	cr_assert_eq(fe_ecn_mark(f, sizeof(f)), FE_ECN_MARKED);
	cr_assert_eq(f[19] & 3, 3);
	cr_assert_eq(ip_csum(f + 18), 0);
}

Test(ecn, ipv4_not_ect_and_ce_untouched)
{
	uint8_t f[64], g[64];

	ipv4_frame(f, 0x00, 0);
	memcpy(g, f, sizeof(f));
	cr_assert_eq(fe_ecn_mark(f, sizeof(f)), FE_ECN_NOT_ECT);
	cr_assert_arr_eq(f, g, sizeof(f));
	ipv4_frame(f, 0x03, 0);
	memcpy(g, f, sizeof(f));
	cr_assert_eq(fe_ecn_mark(f, sizeof(f)), FE_ECN_ALREADY_CE);
	cr_assert_arr_eq(f, g, sizeof(f));
}

Test(ecn, ipv4_incremental_checksum_random_headers)
{
	srand(1);
	for (int i = 0; i < 20000; i++) {
		uint8_t f[64];

		ipv4_frame(f, (uint8_t)((rand() & 0xfc) | (1 + rand() % 2)), 0);
		for (int k = 14 + 4; k < 14 + 20; k++) /* vary id, ttl, addresses */
			if (k != 14 + 10 && k != 14 + 11)
				f[k] = (uint8_t)rand();
		uint16_t c = 0;
		f[24] = f[25] = 0;
		c = ip_csum(f + 14);
		f[24] = (uint8_t)(c >> 8);
		f[25] = (uint8_t)c;
		cr_assert_eq(fe_ecn_mark(f, sizeof(f)), FE_ECN_MARKED);
		cr_assert_eq(ip_csum(f + 14), 0, "header %d: checksum wrong after marking", i);
	}
}

Test(ecn, ipv6)
{
	uint8_t f[64] = {0};

	f[12] = 0x86;
	f[13] = 0xdd;
	/* version 6, traffic class 0xba = DSCP 46 (EF) + ECT(0) */
	f[14] = 0x6b;
	f[15] = 0xa0;
	cr_assert_eq(fe_ecn_mark(f, sizeof(f)), FE_ECN_MARKED);
	cr_assert_eq(f[14], 0x6b);
	cr_assert_eq(f[15], 0xb0, "traffic class 0xbb (EF + CE): byte 0x%02x", f[15]);
	cr_assert_eq(fe_ecn_mark(f, sizeof(f)), FE_ECN_ALREADY_CE);
	f[15] = 0x80; /* TC 0xb8: not ECT */
	cr_assert_eq(fe_ecn_mark(f, sizeof(f)), FE_ECN_NOT_ECT);
}

Test(ecn, not_ip_and_truncated)
{
	uint8_t f[64] = {0};

	f[12] = 0x08;
	f[13] = 0x06; /* ARP */
	cr_assert_eq(fe_ecn_mark(f, sizeof(f)), FE_ECN_NOT_IP);
	f[13] = 0x00;
	f[14] = 0x45;
	cr_assert_eq(fe_ecn_mark(f, 20), FE_ECN_NOT_IP, "IPv4 header cut short");
	cr_assert_eq(fe_ecn_mark(f, 10), FE_ECN_NOT_IP);
}

Test(ecn, hit_thresholds)
{
	struct fe_ecn_params p = {.enabled = 1, .kmin = 10000, .kmax = 30000, .pmax = 0.5};
	struct fe_ecn e;
	struct fe_rng r;
	int hits = 0;

	cr_assert_eq(fe_ecn_compile(&p, &e), 0);
	fe_rng_seed(&r, 5, 0);
	for (int i = 0; i < 100000; i++) {
		cr_assert_eq(fe_ecn_hit(&e, 9999, &r), 0);
		cr_assert_eq(fe_ecn_hit(&e, 30000, &r), 1);
		hits += fe_ecn_hit(&e, 20000, &r); /* halfway: pmax / 2 */
	}
	cr_assert(hits > 24000 && hits < 26000, "halfway hit rate %d / 100000, want ~25000", hits);
}

Test(ecn, dctcp_step)
{
	/* kmin = kmax = K: everything at or above K, nothing below */
	struct fe_ecn_params p = {.enabled = 1, .kmin = 65 * 1514, .kmax = 65 * 1514, .pmax = 1};
	struct fe_ecn e;
	struct fe_rng r;

	cr_assert_eq(fe_ecn_compile(&p, &e), 0);
	fe_rng_seed(&r, 5, 0);
	cr_assert_eq(fe_ecn_hit(&e, 65 * 1514 - 1, &r), 0);
	cr_assert_eq(fe_ecn_hit(&e, 65 * 1514, &r), 1);
	p.kmin = 2;
	p.kmax = 1;
	cr_assert_eq(fe_ecn_compile(&p, &e), -EINVAL);
}

/* A trimmed header's remark: the DSCP set, the ECN bits kept, the checksum still valid;
 * through a VLAN tag; IPv6's traffic class; not IP, or too short: -1, unchanged. */
Test(ecn, dscp_set)
{
	uint8_t f[64], g[64];

	for (int vlan = 0; vlan < 2; vlan++)
		for (unsigned d = 0; d < 64; d++) {
			uint8_t *ip = f + (vlan ? 18 : 14);

			ipv4_frame(f, 0xb9, vlan); /* DSCP 46 (EF), ECN 01 */
			cr_assert_eq(fe_dscp_set(f, 64, (uint8_t)d), 0);
			cr_assert_eq(ip[1] >> 2, d, "vlan %d: DSCP %u, got %u", vlan, d,
				     ip[1] >> 2);
			cr_assert_eq(ip[1] & 3, 1, "the ECN bits changed");
			cr_assert_eq(ip_csum(ip), 0, "vlan %d, DSCP %u: checksum invalid", vlan, d);
		}
	memset(f, 0, sizeof(f));
	f[12] = 0x86, f[13] = 0xdd;
	f[14] = 0x6b, f[15] = 0x90; /* traffic class 0xb9: DSCP 46, ECN 01 */
	cr_assert_eq(fe_dscp_set(f, 64, 10), 0);
	cr_assert_eq(((f[14] & 0x0f) << 4 | f[15] >> 4) >> 2, 10);
	cr_assert_eq((f[15] >> 4) & 3, 1, "the ECN bits changed");
	cr_assert_eq(f[14] >> 4, 6, "the version changed");
	cr_assert_eq(f[15] & 0x0f, 0, "the flow label changed");
	memset(f, 0, sizeof(f));
	f[12] = 0x88, f[13] = 0xb5;
	memcpy(g, f, sizeof(f));
	cr_assert_eq(fe_dscp_set(f, 64, 10), -1);
	cr_assert(memcmp(f, g, sizeof(f)) == 0);
	ipv4_frame(f, 0, 0);
	cr_assert_eq(fe_dscp_set(f, 30, 10), -1, "a truncated header");
}
