/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_sched's parsers on the kernel's own text (/proc/PID/status, schedstat, stat and
 * /proc/stat as Linux 6.x writes them), and a read of this very thread.
 */
#include <criterion/criterion.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fe_sched.h"

Test(sched, status)
{
	uint64_t v = 0, n = 0;

	cr_assert_eq(fe_sched_parse_status("Name:\tlcore-worker-0\nState:\tR (running)\n"
					   "voluntary_ctxt_switches:\t57\n"
					   "nonvoluntary_ctxt_switches:\t156\n",
					   &v, &n),
		     0);
	cr_assert_eq(v, 57);
	cr_assert_eq(n, 156);
	cr_assert_eq(fe_sched_parse_status("Name:\tx\n", &v, &n), -1);
}

Test(sched, schedstat)
{
	uint64_t run = 0, wait = 0;

	cr_assert_eq(fe_sched_parse_schedstat("3533332958 19441652623 221967\n", &run, &wait), 0);
	cr_assert_eq(run, 3533332958ULL);
	cr_assert_eq(wait, 19441652623ULL);
	cr_assert_eq(fe_sched_parse_schedstat("", &run, &wait), -1);
}

Test(sched, task_cpu)
{
	/* a command with a space and a parenthesis; field 39 (processor) is 3 */
	const char *stat = "4242 (fabemu (dp)) R 1 4242 4242 0 -1 4194560 1 0 0 0 10 20 0 0 "
			   "10 -10 3 0 100 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 "
			   "17 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

	cr_assert_eq(fe_sched_parse_task_cpu(stat), 3);
	cr_assert_eq(fe_sched_parse_task_cpu("4242 (x) R"), -1);
}

Test(sched, proc_stat)
{
	const char *s = "cpu  240205 0 264362 1055207 1139 0 97559 327 0 0\n"
			"cpu0 179943 0 138853 472874 147 5 35245 162 0 0\n"
			"cpu1 60261 0 125508 582332 992 0 62314 165 0 0\n"
			"intr 1 2 3\n";
	uint64_t irq, soft, steal;

	cr_assert_eq(fe_sched_parse_cpu(s, 0, 100, &irq, &soft, &steal), 0);
	cr_assert_eq(irq, 50000000ULL);
	cr_assert_eq(soft, 352450000000ULL);
	cr_assert_eq(steal, 1620000000ULL);
	cr_assert_eq(fe_sched_parse_cpu(s, 1, 100, &irq, &soft, &steal), 0);
	cr_assert_eq(steal, 1650000000ULL, "cpu1, not cpu10 or the total");
	cr_assert_eq(fe_sched_parse_cpu(s, 2, 100, &irq, &soft, &steal), -1);
}

/* This thread, read as fabemu-dp reads its lcores: found, on a core, counting. */
Test(sched, this_thread)
{
	int tid = (int)syscall(SYS_gettid), none = 0;
	struct fe_sched a, b, d;

	fe_sched_read(&tid, 1, &a);
	cr_assert_eq(a.threads, 1);
	cr_assert_eq(a.ncpus, 1);
	cr_assert_geq(a.cpus[0], 0);
	usleep(20000); /* a voluntary switch */
	fe_sched_read(&tid, 1, &b);
	fe_sched_delta(&b, &a, &d);
	cr_assert_geq(d.yielded, 1, "the sleep is a voluntary switch");
	fe_sched_read(&none, 1, &a);
	cr_assert_eq(a.threads, 0, "no thread: nothing read");
}
