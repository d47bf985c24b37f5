/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN marking on any bytes (dataplane/models/fe_ecn.c, fe_ecn_mark()): Ethernet, one 802.1Q
 * tag or none, IPv4 or IPv6, at any length. It reads and writes only the frame; it
 * changes nothing but the ECN field (and IPv4's header checksum); it says MARKED exactly
 * when ECT(0) or ECT(1) became CE; and an IPv4 header whose checksum was right before
 * is right after (RFC 1624's incremental update). A second marking changes nothing.
 * Seeds: frames of every kind the tests send (tests/fuzz/corpus/ecn/).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fe_ecn.h"
#include "fuzz_common.h"

enum { ETH = 14, VLAN = 4 };

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The IP header's offset, or 0 if the frame carries none fe_ecn_mark() would read. */
static uint32_t
ip_offset(const uint8_t *f, size_t len, int *v6)
{
	uint32_t off = ETH;
	uint16_t type;

	if (len < ETH)
		return 0;
	type = get16(f + 12);
	if (type == 0x8100) {
		if (len < ETH + VLAN)
			return 0;
		type = get16(f + 16);
		off += VLAN;
	}
	*v6 = type == 0x86dd;
	if (type == 0x0800 && len >= off + 20 && f[off] >> 4 == 4)
		return off;
	if (type == 0x86dd && len >= off + 40 && f[off] >> 4 == 6)
		return off;
	return 0;
}

/* The one's complement sum of an IPv4 header is 0xffff when its checksum is right. */
static int
ipv4_csum_ok(const uint8_t *ip, size_t avail)
{
	size_t hl = (size_t)(ip[0] & 0x0f) * 4;
	uint32_t s = 0;

	if (hl < 20 || hl > avail)
		return -1; /* no whole header to check */
	for (size_t i = 0; i < hl; i += 2)
		s += get16(ip + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *f = malloc(size ? size : 1); /* exactly the frame: ASan sees any overrun */
	uint32_t off;
	int v6 = 0, ok_before = -1;
	uint8_t ecn_before = 0;
	enum fe_ecn_result r;

	if (f == NULL || size > UINT32_MAX)
		return 0;
	memcpy(f, data, size);
	off = ip_offset(f, size, &v6);
	if (off) {
		ecn_before = v6 ? (f[off + 1] >> 4) & 3 : f[off + 1] & 3;
		if (!v6)
			ok_before = ipv4_csum_ok(f + off, size - off);
	}
	r = fe_ecn_mark(f, (uint32_t)size);
	if (off == 0) {
		FZ_CHECK(r == FE_ECN_NOT_IP, "no IP header, result %d", r);
		FZ_CHECK(memcmp(f, data, size) == 0, "a frame without IP was changed");
		free(f);
		return 0;
	}
	FZ_CHECK(r == (ecn_before == 0	 ? FE_ECN_NOT_ECT
		       : ecn_before == 3 ? FE_ECN_ALREADY_CE
					 : FE_ECN_MARKED),
		 "ECN %u, result %d", ecn_before, r);
	for (size_t i = 0; i < size; i++) {
		int ecn_byte = i == off + 1;
		int csum_byte = !v6 && (i == off + 10 || i == off + 11);

		if (r != FE_ECN_MARKED || !(ecn_byte || csum_byte))
			FZ_CHECK(f[i] == data[i], "byte %zu changed (result %d)", i, r);
	}
	if (r == FE_ECN_MARKED) {
		uint8_t mask = v6 ? 0x30 : 0x03;

		FZ_CHECK((f[off + 1] & mask) == mask, "not CE after marking");
		FZ_CHECK((f[off + 1] & ~mask) == (data[off + 1] & ~mask), "DSCP changed");
		if (ok_before == 1)
			FZ_CHECK(ipv4_csum_ok(f + off, size - off) == 1,
				 "IPv4 header checksum right before marking, wrong after");
		FZ_CHECK(fe_ecn_mark(f, (uint32_t)size) == FE_ECN_ALREADY_CE, "marked twice");
	}
	free(f);
	return 0;
}
