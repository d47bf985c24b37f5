/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Following a job's marks file while it runs (control/campaign/cg_job.c, cg_marks_poll):
 * the faults at iterations said once each, as the hook appends them, whether or not the
 * file exists yet, and a line still being written waited for.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/cg.h"

static char dir[64], path[128];
static struct cg_marks mk;

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_cg_marksXXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/marks-eth-1.txt", dir);
	mk = (struct cg_marks){.path = path};
}

static void
teardown(void)
{
	cg_marks_close(&mk);
	unlink(path);
	rmdir(dir);
}

TestSuite(marks, .init = setup, .fini = teardown);

/* Append text to the marks file as the hook does (>>), creating it if need be. */
static void
append(const char *text)
{
	FILE *f = fopen(path, "a");

	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* What one poll says. */
static char *
poll_once(void)
{
	static char *out;
	size_t len = 0;
	FILE *f;

	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	cr_assert_not_null(f);
	cg_marks_poll(&mk, "eth", f);
	cr_assert_eq(fclose(f), 0);
	return out;
}

Test(marks, said_once_each_as_they_are_appended)
{
	cr_assert_str_empty(poll_once(), "no file yet: nothing to say");
	cr_assert_null(mk.f);
	append("3 1700000000000000000 delay 0.up delay=20ms\n");
	cr_assert_str_eq(poll_once(), "    fault before iteration 3: delay 0.up delay=20ms\n");
	cr_assert_not_null(mk.f, "kept open across polls");
	cr_assert_str_empty(poll_once(), "said once");
	/* a fault in time is said when it runs, not here; a failed step names the job's log */
	append("t 1700000000500000000 loss 1.down loss=1%\n"
	       "x 5 1700000001000000000 end of delay 0.up delay=20ms\n");
	cr_assert_str_eq(poll_once(), "    fault before iteration 5 FAILED: end of delay 0.up "
				      "delay=20ms (its fabemuctl command failed: "
				      "logs/job-eth-*.log)\n");
	cg_marks_close(&mk);
	cr_assert_null(mk.f);
}

/* The hook's printf may be caught half way: the line is said once it is whole. */
Test(marks, a_line_being_written_waits)
{
	append("2 1700000000000000000 del");
	cr_assert_str_empty(poll_once());
	append("ay 0.up delay=2ms\n4 1700000000100000000 ");
	cr_assert_str_eq(poll_once(), "    fault before iteration 2: delay 0.up delay=2ms\n");
	append("end of delay 0.up delay=2ms\n");
	cr_assert_str_eq(poll_once(),
			 "    fault before iteration 4: end of delay 0.up delay=2ms\n");
}
