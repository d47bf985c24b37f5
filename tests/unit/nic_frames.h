/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames the emulated NIC's tests send (test_nic.c, test_report.c): a TCP/IPv4 frame of
 * one flow (198.18.0.1:12345 -> 198.18.0.2:5201) with a valid IP checksum, the check of
 * that checksum, and a RoCEv2 packet (model host).
 */
#ifndef FE_TEST_NIC_FRAMES_H
#define FE_TEST_NIC_FRAMES_H

#include <stdint.h>
#include <string.h>

/* len bytes from MAC src to MAC dst, ECN bits ecn, IP id id. */
static inline void
tcp_frame(uint8_t *f, uint16_t len, const uint8_t *src, const uint8_t *dst, uint8_t ecn,
	  uint16_t id)
{
	uint32_t s = 0;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = ecn;
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[18] = (uint8_t)(id >> 8);
	f[19] = (uint8_t)id;
	f[22] = 64;
	f[23] = 6;
	memcpy(f + 26, (uint8_t[]){198, 18, 0, 1, 198, 18, 0, 2}, 8);
	f[34] = 0x30; /* source port 12345 */
	f[35] = 0x39;
	f[36] = 0x14; /* destination port 5201 */
	f[37] = 0x51;
	for (int i = 14; i < 34; i += 2)
		s += (uint32_t)(f[i] << 8 | f[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	f[24] = (uint8_t)(~s >> 8);
	f[25] = (uint8_t)~s;
}

/* 1 if the IPv4 header of frame f has a valid checksum. */
static inline int
csum_ok(const uint8_t *f)
{
	uint32_t s = 0;

	for (int i = 14; i < 34; i += 2)
		s += (uint32_t)(f[i] << 8 | f[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

/* A RoCEv2 packet to 198.18.0.2: opcode, QP, PSN, and an AETH syndrome if aeth. */
static inline uint32_t
roce_frame(uint8_t *f, uint8_t op, uint32_t qpn, uint32_t psn, int aeth, uint8_t syn)
{
	uint32_t len = 14 + 20 + 8 + 12 + (aeth ? 4 : 0) + 4;

	memset(f, 0, len);
	f[12] = 0x08;
	f[14] = 0x45;
	f[23] = 17;
	memcpy(f + 26, (uint8_t[]){198, 18, 0, 1, 198, 18, 0, 2}, 8);
	f[36] = 0x12; /* UDP destination port 4791 */
	f[37] = 0xb7;
	f[42] = op;
	f[47] = (uint8_t)(qpn >> 16);
	f[48] = (uint8_t)(qpn >> 8);
	f[49] = (uint8_t)qpn;
	f[51] = (uint8_t)(psn >> 16);
	f[52] = (uint8_t)(psn >> 8);
	f[53] = (uint8_t)psn;
	if (aeth)
		f[54] = syn;
	return len;
}

#endif
