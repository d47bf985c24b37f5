/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_bytes: network-order fields of a frame, and the incremental update of a 16-bit
 * Internet checksum (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m'), in one's complement
 * arithmetic). Shared by whatever rewrites or reads headers: ECN marking, the NICs.
 */
#ifndef FE_BYTES_H
#define FE_BYTES_H

#include <stdint.h>

static inline uint16_t
fe_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
fe_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline void
fe_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The checksum at csum, after a 16-bit word of what it covers went from old to new. */
static inline void
fe_csum_replace16(uint8_t *csum, uint16_t old, uint16_t new)
{
	uint32_t s = (uint16_t)~fe_get16(csum) + (uint16_t)~old + new;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	fe_put16(csum, (uint16_t)~s);
}

#endif
