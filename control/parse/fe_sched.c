/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fe_sched.h"

int
fe_sched_parse_status(const char *text, uint64_t *voluntary, uint64_t *involuntary)
{
	const char *v = strstr(text, "\nvoluntary_ctxt_switches:");
	const char *n = strstr(text, "\nnonvoluntary_ctxt_switches:");

	if (v == NULL || n == NULL)
		return -1;
	*voluntary = strtoull(strchr(v, ':') + 1, NULL, 10);
	*involuntary = strtoull(strchr(n, ':') + 1, NULL, 10);
	return 0;
}

int
fe_sched_parse_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns)
{
	unsigned long long run, wait;

	if (sscanf(text, "%llu %llu", &run, &wait) != 2)
		return -1;
	*run_ns = run;
	*wait_ns = wait;
	return 0;
}

int
fe_sched_parse_task_cpu(const char *text)
{
	const char *p = strrchr(text, ')'); /* the command may hold spaces and parentheses */
	int cpu = -1;

	if (p == NULL)
		return -1;
	/* fields 3 (state) to 39 (processor): 36 more after the command */
	for (int field = 3; field <= 39 && p; field++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%d", &cpu) != 1)
		return -1;
	return p ? cpu : -1;
}

int
fe_sched_parse_cpu(const char *proc_stat, int cpu, long hz, uint64_t *irq_ns, uint64_t *softirq_ns,
		   uint64_t *steal_ns)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
	char key[24];
	const char *p;
	size_t len;

	if (cpu < 0 || hz <= 0)
		return -1;
	len = (size_t)snprintf(key, sizeof(key), "\ncpu%d ", cpu);
	p = strstr(proc_stat, key);
	if (p == NULL && strncmp(proc_stat, key + 1, len - 1) == 0)
		p = proc_stat - 1; /* the first line */
	if (p == NULL || sscanf(p + len, "%llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
				&sys, &idle, &iowait, &irq, &softirq, &steal) != 8)
		return -1;
	*irq_ns = irq * (1000000000ULL / (unsigned long)hz);
	*softirq_ns = softirq * (1000000000ULL / (unsigned long)hz);
	*steal_ns = steal * (1000000000ULL / (unsigned long)hz);
	return 0;
}

/* A small /proc file into buf; its length, or -1. */
static long
slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (long)n;
}

void
fe_sched_read(const int *tids, unsigned n, struct fe_sched *s)
{
	static char stat[16384];
	char path[64], buf[4096];
	long hz = sysconf(_SC_CLK_TCK);

	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < n; i++) {
		uint64_t a, b;
		int cpu, seen = 0;

		if (tids[i] <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/status", tids[i]);
		if (slurp(path, buf, sizeof(buf)) < 0)
			continue;
		s->threads++;
		if (fe_sched_parse_status(buf, &a, &b) == 0) {
			s->yielded += a;
			s->preempted += b;
		}
		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tids[i]);
		if (slurp(path, buf, sizeof(buf)) > 0 &&
		    fe_sched_parse_schedstat(buf, &a, &b) == 0) {
			s->run_ns += a;
			s->runq_wait_ns += b;
		}
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tids[i]);
		if (slurp(path, buf, sizeof(buf)) < 0 || (cpu = fe_sched_parse_task_cpu(buf)) < 0)
			continue;
		for (unsigned k = 0; k < s->ncpus; k++)
			seen |= s->cpus[k] == cpu;
		if (!seen && s->ncpus < FE_SCHED_MAX_CPUS)
			s->cpus[s->ncpus++] = cpu;
	}
	/* called by one thread at a time (fe_kernel's lock): the static buffer is safe */
	if (s->ncpus == 0 || slurp("/proc/stat", stat, sizeof(stat)) < 0)
		return;
	for (unsigned k = 0; k < s->ncpus; k++) {
		uint64_t irq, softirq, steal;

		if (fe_sched_parse_cpu(stat, s->cpus[k], hz, &irq, &softirq, &steal) == 0) {
			s->cpu_irq_ns += irq;
			s->cpu_softirq_ns += softirq;
			s->cpu_steal_ns += steal;
		}
	}
}

static uint64_t
minus(uint64_t a, uint64_t b)
{
	return a >= b ? a - b : 0;
}

void
fe_sched_delta(const struct fe_sched *now, const struct fe_sched *base, struct fe_sched *d)
{
	*d = *now;
	d->preempted = minus(now->preempted, base->preempted);
	d->yielded = minus(now->yielded, base->yielded);
	d->runq_wait_ns = minus(now->runq_wait_ns, base->runq_wait_ns);
	d->run_ns = minus(now->run_ns, base->run_ns);
	d->cpu_steal_ns = minus(now->cpu_steal_ns, base->cpu_steal_ns);
	d->cpu_irq_ns = minus(now->cpu_irq_ns, base->cpu_irq_ns);
	d->cpu_softirq_ns = minus(now->cpu_softirq_ns, base->cpu_softirq_ns);
}
