/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_sched: what the scheduler and the machine did to the lcores. A frame leaves its link
 * late when the lcore is not running; this says why it was not: another task took its
 * core (the thread's involuntary context switches and its time runnable on a run queue,
 * /proc/self/task/TID/status and schedstat), or the core itself was away (the core's
 * steal time: a hypervisor ran another guest's vCPU; its irq and softirq time: the
 * kernel's interrupt work, /proc/stat). Read by the control thread, never the lcore.
 *
 *   fe_sched_read(tids, n, &now);      // absolute
 *   fe_sched_delta(&now, &base, &d);   // since a reset
 */
#ifndef FE_SCHED_H
#define FE_SCHED_H

#include <stdint.h>

#define FE_SCHED_MAX_CPUS 4 /* the lcores' distinct cores counted */

struct fe_sched {
	unsigned threads;	     /* lcore threads read */
	unsigned ncpus;		     /* their distinct cores */
	int cpus[FE_SCHED_MAX_CPUS]; /* which */
	uint64_t preempted;	     /* involuntary context switches: the core given to another */
	uint64_t yielded;	     /* voluntary ones (the idle sleep, a system call that waits) */
	uint64_t runq_wait_ns;	     /* time runnable, waiting for the core */
	uint64_t run_ns;	     /* time running on it (the CPU the lcores took) */
	uint64_t cpu_steal_ns;	     /* the lcores' cores: taken by the hypervisor */
	uint64_t cpu_irq_ns;	     /* in hard interrupts */
	uint64_t cpu_softirq_ns;     /* in softirqs (network receive and transmit work) */
};

/* The lcores' threads (tids[i] > 0) and their cores, now. */
void fe_sched_read(const int *tids, unsigned n, struct fe_sched *s);

/* d = now - base, counter by counter (the threads and cores: now's). */
void fe_sched_delta(const struct fe_sched *now, const struct fe_sched *base, struct fe_sched *d);

/* The parsers, for the tests: 0, or -1 when the text lacks what is asked. */
int fe_sched_parse_status(const char *text, uint64_t *voluntary, uint64_t *involuntary);
int fe_sched_parse_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns);
/* field 39 of /proc/.../stat (the core it last ran on), after the command's ")" */
int fe_sched_parse_task_cpu(const char *text);
/* the cpuN line of /proc/stat: irq, softirq and steal, from ticks of 1/hz s to ns */
int fe_sched_parse_cpu(const char *proc_stat, int cpu, long hz, uint64_t *irq_ns,
		       uint64_t *softirq_ns, uint64_t *steal_ns);

#endif
