/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Converting between nanoseconds and TSC ticks, once, at compile or report time; the
 * fast path only ever sees ticks. 128-bit intermediates: no overflow for any range
 * fabemu accepts. Both round down.
 */
#ifndef FE_TIME_H
#define FE_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
fe_ns_to_ticks(uint64_t ns, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)ns * hz / 1000000000);
}

static inline uint64_t
fe_ticks_to_ns(uint64_t ticks, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000000 / hz);
}

/*
 * The same on the fast path, without a division: ns a tick in 32.32 fixed point,
 * computed once (fe_ns_fp), then one multiply a conversion (fe_fp_to_ns).
 */
static inline uint64_t
fe_ns_fp(uint64_t hz)
{
	return (uint64_t)(((unsigned __int128)1000000000 << 32) / hz);
}

static inline uint64_t
fe_fp_to_ns(uint64_t ticks, uint64_t ns_fp)
{
	return (uint64_t)(((unsigned __int128)ticks * ns_fp) >> 32);
}

/* The monotonic clock in ns (the control thread's waits and timeouts; not the lcore's). */
static inline uint64_t
fe_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

#endif
