/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe-cpufloor: how late can anything on this core be? The timing floor of the machine.
 *   fe-cpufloor [--cpu N] [--secs S] [--min-gap NS]
 *
 * Spins on one core reading the clock and records every gap between two reads longer
 * than --min-gap (1000 ns): time the core was taken away (interrupts, the kernel's
 * other work, a hypervisor running another vCPU). A deadline that falls inside a gap
 * of g ns at a uniformly random instant is met late by the rest of the gap, so
 * P(late > x) = sum over gaps of max(0, g - x) / run time. That is the lateness a
 * dataplane that busy-polls the same core cannot avoid, whatever its own code does;
 * it prints the percentiles of it in the same columns as tests/bench/run.sh timing.
 *
 *   fe-cpufloor --cpu N --busy M [--busy M2 ...] [--secs S]
 *
 * The same, while a thread spins on each core M (no system call, no memory shared):
 * the floor with the other cores busy, as a campaign's hosts keep them. On a virtual
 * machine whose vCPUs the hypervisor time-shares, the gaps grow when the sibling vCPUs
 * run, though nothing inside the guest touches core N (docs/campaigns.md).
 *
 *   fe-cpufloor --cpu N --peer P [--secs S]
 *
 * Bounces one cache line between cores N and P and prints how long it takes to move
 * one way: the least a packet handed from one lcore to another pays per line of it
 * (a pipeline, --lcores 2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fe_lateness.h"

#define GAPS_MAX (1U << 22)
#define BUSY_MAX 64

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static int
cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: fe-cpufloor [--cpu N] [--secs S] [--min-gap NS] [--busy M ...]\n"
		   "       fe-cpufloor --cpu N --peer P [--secs S]\n"
		   "Spin on core N (default: where it runs) for S seconds (5) and print how\n"
		   "late a deadline at a random instant would be met there: the gaps longer\n"
		   "than NS (1000) in which the core was taken away. --busy M (repeatable):\n"
		   "meanwhile a thread spins on core M, as busy hosts keep it. With --peer,\n"
		   "bounce a cache line between cores N and P instead and print how long it\n"
		   "takes to move one way.\n");
}

/* A core number for option `name`: 0 or -1 (said why). */
static int
parse_cpu(const char *name, const char *arg, int *cpu)
{
	char *e;
	long v = strtol(arg, &e, 10);

	if (e == arg || *e || v < 0 || v >= CPU_SETSIZE) {
		fprintf(stderr, "fe-cpufloor: bad %s '%s'\n", name, arg);
		return -1;
	}
	*cpu = (int)v;
	return 0;
}

static int
pin(pthread_t t, int cpu)
{
	cpu_set_t set;
	int rc;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	rc = pthread_setaffinity_np(t, sizeof(set), &set);
	if (rc != 0)
		fprintf(stderr, "fe-cpufloor: cpu %d: %s\n", cpu, strerror(rc));
	return rc ? -1 : 0;
}

/* The line both cores write: odd values from the first, even ones from the peer. */
static struct {
	_Alignas(64) uint64_t v;
	char pad[56];
} line;

#define LINE_STOP UINT64_MAX

/* --busy: the spinning threads run while this is 0 */
static int busy_stop;

static void *
busy_loop(void *arg)
{
	volatile uint64_t x = 0;

	(void)arg;
	while (!__atomic_load_n(&busy_stop, __ATOMIC_RELAXED))
		x++;
	return NULL;
}

/* Stop and join the first n busy threads. */
static void
busy_end(pthread_t *t, unsigned n)
{
	__atomic_store_n(&busy_stop, 1, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < n; k++)
		pthread_join(t[k], NULL);
}

/* A thread spinning on each of the n cores; 0, or -1 (said why, none left running). */
static int
busy_start(const int *cpus, unsigned n, pthread_t *t)
{
	for (unsigned k = 0; k < n; k++) {
		if (pthread_create(&t[k], NULL, busy_loop, NULL) != 0) {
			fprintf(stderr, "fe-cpufloor: cannot start a thread\n");
			busy_end(t, k);
			return -1;
		}
		if (pin(t[k], cpus[k]) < 0) {
			busy_end(t, k + 1);
			return -1;
		}
	}
	return 0;
}

static void *
peer_loop(void *arg)
{
	(void)arg;
	for (;;) {
		uint64_t v = __atomic_load_n(&line.v, __ATOMIC_ACQUIRE);

		if (v == LINE_STOP)
			return NULL;
		if (v % 2) /* the first core's turn is over: answer */
			__atomic_store_n(&line.v, v + 1, __ATOMIC_RELEASE);
	}
}

/* Round trips of one cache line between cpu and peer for secs; prints the one-way time. */
static int
line_run(int cpu, int peer, double secs)
{
	uint64_t start, end, trips = 0;
	pthread_t t;

	if (pin(pthread_self(), cpu) < 0)
		return 1;
	if (pthread_create(&t, NULL, peer_loop, NULL) != 0) {
		fprintf(stderr, "fe-cpufloor: cannot start a thread\n");
		return 1;
	}
	if (pin(t, peer) < 0) {
		__atomic_store_n(&line.v, LINE_STOP, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		return 1;
	}
	start = now_ns();
	end = start + (uint64_t)(secs * 1e9);
	do {
		for (unsigned k = 0; k < 1024; k++, trips++) {
			uint64_t v = 2 * trips + 1;

			__atomic_store_n(&line.v, v, __ATOMIC_RELEASE);
			while (__atomic_load_n(&line.v, __ATOMIC_ACQUIRE) != v + 1)
				;
		}
	} while (now_ns() < end);
	end = now_ns();
	__atomic_store_n(&line.v, LINE_STOP, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	printf("cpu %d <-> cpu %d: %" PRIu64 " round trips of a cache line in %.1f s, "
	       "one way %.1f ns\n",
	       cpu, peer, trips, (double)(end - start) / 1e9,
	       (double)(end - start) / (double)trips / 2);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"cpu", required_argument, NULL, 'c'},
					     {"secs", required_argument, NULL, 's'},
					     {"min-gap", required_argument, NULL, 'g'},
					     {"peer", required_argument, NULL, 'p'},
					     {"busy", required_argument, NULL, 'b'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	uint64_t min_gap = 1000, start, last, end, loops = 0, away = 0, dropped = 0;
	double secs = 5;
	int cpu = -1, peer = -1, c, busy[BUSY_MAX];
	unsigned nbusy = 0;
	pthread_t busy_t[BUSY_MAX];
	uint64_t *gaps;
	size_t n = 0;
	char *e;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_cpu("--cpu", optarg, &cpu) < 0)
				return 2;
			break;
		case 'p':
			if (parse_cpu("--peer", optarg, &peer) < 0)
				return 2;
			break;
		case 'b':
			if (nbusy == BUSY_MAX) {
				fprintf(stderr, "fe-cpufloor: --busy '%s': at most %d cores\n",
					optarg, BUSY_MAX);
				return 2;
			}
			if (parse_cpu("--busy", optarg, &busy[nbusy]) < 0)
				return 2;
			nbusy++;
			break;
		case 's':
			secs = strtod(optarg, &e);
			if (*e || !(secs > 0 && secs <= 3600)) {
				fprintf(stderr, "fe-cpufloor: bad --secs '%s' (0 to 3600)\n",
					optarg);
				return 2;
			}
			break;
		case 'g':
			min_gap = strtoull(optarg, &e, 10);
			if (*e || min_gap < 100 || min_gap > 1000000) {
				fprintf(stderr,
					"fe-cpufloor: bad --min-gap '%s' (100 to 1000000)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (peer >= 0) {
		if (cpu < 0 || cpu == peer) {
			fprintf(stderr, "fe-cpufloor: --peer needs --cpu, another core\n");
			return 2;
		}
		if (nbusy) {
			fprintf(stderr, "fe-cpufloor: --busy is not for --peer\n");
			return 2;
		}
		return line_run(cpu, peer, secs);
	}
	for (unsigned k = 0; k < nbusy; k++)
		if (cpu < 0 || busy[k] == cpu) {
			fprintf(stderr,
				"fe-cpufloor: --busy %d needs --cpu, another core than it\n",
				busy[k]);
			return 2;
		}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			fprintf(stderr, "fe-cpufloor: cpu %d: %s\n", cpu, strerror(errno));
			return 1;
		}
	}
	gaps = malloc(GAPS_MAX * sizeof(*gaps));
	if (gaps == NULL) {
		fprintf(stderr, "fe-cpufloor: out of memory\n");
		return 1;
	}
	if (busy_start(busy, nbusy, busy_t) < 0) {
		free(gaps);
		return 1;
	}
	start = last = now_ns();
	end = start + (uint64_t)(secs * 1e9);
	while (last < end) {
		uint64_t t = now_ns(), g = t - last;

		loops++;
		if (g > min_gap) {
			away += g;
			if (n < GAPS_MAX)
				gaps[n++] = g;
			else
				dropped++;
		}
		last = t;
	}
	busy_end(busy_t, nbusy);
	qsort(gaps, n, sizeof(*gaps), cmp_desc);
	printf("cpu %d, %.1f s, a clock read every %.0f ns", cpu >= 0 ? cpu : sched_getcpu(),
	       (double)(last - start) / 1e9, (double)(last - start) / (double)loops);
	for (unsigned k = 0; k < nbusy; k++)
		printf("%s%d", k ? "," : "; a thread spinning on cpu ", busy[k]);
	printf("\n");
	printf("taken away %.2f %% of the time in %zu gaps over %" PRIu64 " ns (%.0f a second), "
	       "the longest %" PRIu64 " ns%s\n",
	       100.0 * (double)away / (double)(last - start), n + dropped, min_gap,
	       (double)(n + dropped) / ((double)(last - start) / 1e9), n ? gaps[0] : 0,
	       dropped ? " (some gaps not kept)" : "");
	printf("deadline-lateness-ns p50 %" PRIu64 " p99 %" PRIu64 " p99.9 %" PRIu64 " max %" PRIu64
	       "\n",
	       fe_late_quantile(gaps, n, last - start, 0.5, min_gap),
	       fe_late_quantile(gaps, n, last - start, 0.01, min_gap),
	       fe_late_quantile(gaps, n, last - start, 0.001, min_gap), n ? gaps[0] : 0);
	printf("(0: below %" PRIu64 " ns, the smallest gap recorded)\n", min_gap);
	free(gaps);
	return 0;
}
