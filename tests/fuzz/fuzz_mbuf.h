/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames for the engine's fuzz targets, so that ASan sees any read outside them: one
 * segment of len bytes in an mbuf of pool, its buffer poisoned before them and after
 * max(len, keep) (keep: bytes a reader may look at in any frame, even a shorter one).
 * The pool's mbufs must come back unpoisoned where DPDK writes: each is unpoisoned whole
 * before it is filled.
 */
#ifndef FUZZ_MBUF_H
#define FUZZ_MBUF_H

#include <sanitizer/asan_interface.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fuzz_common.h"

static inline struct rte_mbuf *
fz_segment(struct rte_mempool *pool, const uint8_t *b, uint32_t len, uint32_t keep)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *buf;
	uint32_t open;

	FZ_CHECK(m != NULL, "%s empty", pool->name);
	buf = m->buf_addr;
	ASAN_UNPOISON_MEMORY_REGION(buf, m->buf_len);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), b, len);
	open = RTE_MAX(len, keep);
	ASAN_POISON_MEMORY_REGION(buf, m->data_off);
	ASAN_POISON_MEMORY_REGION(buf + m->data_off + open, m->buf_len - m->data_off - open);
	return m;
}

#endif
