/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters with one writer (the lcore that owns them) and any number of readers
 * (control thread, telemetry). The writer uses relaxed stores of its own value
 * plus a delta, never a locked read-modify-write; readers use relaxed loads and
 * may see a counter a few packets behind another. On x86-64 both compile to a
 * plain mov. Reset is done by readers taking a snapshot, never by writing.
 */
#ifndef FE_COUNTER_H
#define FE_COUNTER_H

#include <stdint.h>

typedef uint64_t fe_counter_t;

#define FE_CNT_ADD(c, v) __atomic_store_n(&(c), (c) + (v), __ATOMIC_RELAXED)
#define FE_CNT_SET(c, v) __atomic_store_n(&(c), (v), __ATOMIC_RELAXED)
#define FE_CNT_GET(c)	 __atomic_load_n(&(c), __ATOMIC_RELAXED)
#define FE_CNT_MAX(c, v)                                                                           \
	do {                                                                                       \
		if ((v) > (c))                                                                     \
			FE_CNT_SET(c, v);                                                          \
	} while (0)
/* the least seen, 0 meaning none yet (a gauge of the lowest rate or window reached) */
#define FE_CNT_LEAST(c, v)                                                                         \
	do {                                                                                       \
		if ((c) == 0 || (v) < (c))                                                         \
			FE_CNT_SET(c, v);                                                          \
	} while (0)

#endif
