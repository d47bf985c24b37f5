/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Following a job's marks file while it runs (control/campaign/cg_job.c, cg_marks_poll):
 * the faults at iterations said once each, as the hook appends them, whether or not the
 * file exists yet, a line still being written waited for, and a file truncated or
 * recreated under it read again from its start.
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

/* A file cut short under it holds new marks: read from its start. */
Test(marks, truncated_read_from_its_start)
{
	append("3 1700000000000000000 delay 0.up delay=20ms\n"
	       "4 1700000000100000000 end of delay 0.up delay=20ms\n");
	cr_assert_not_null(strstr(poll_once(), "iteration 4"));
	cr_assert_eq(truncate(path, 0), 0);
	append("7 1700000000200000000 ecn 0.up\n");
	cr_assert_str_eq(poll_once(), "    fault before iteration 7: ecn 0.up\n");
}

/* A file removed and written again is another file, however long: read from its start. */
Test(marks, recreated_read_from_its_start)
{
	append("3 1700000000000000000 delay 0.up delay=20ms\n");
	cr_assert_not_null(strstr(poll_once(), "iteration 3"));
	cr_assert_eq(unlink(path), 0);
	cr_assert_str_empty(poll_once(), "removed: nothing new");
	cr_assert_null(mk.f);
	append("8 1700000000000000000 delay 1.up delay=40ms\n"
	       "9 1700000000100000000 end of delay 1.up delay=40ms\n");
	cr_assert_str_eq(poll_once(), "    fault before iteration 8: delay 1.up delay=40ms\n"
				      "    fault before iteration 9: end of delay 1.up "
				      "delay=40ms\n");
	/* replaced between two polls (renamed over it): the new one, from its start */
	{
		char other[160];
		FILE *f;

		snprintf(other, sizeof(other), "%s/other.txt", dir);
		f = fopen(other, "w");
		cr_assert_not_null(f);
		fputs("1 1700000000000000000 loss 0.up loss=1%\n"
		      "2 1700000000000000000 loss 0.up loss=2%\n"
		      "3 1700000000000000000 loss 0.up loss=3%\n",
		      f);
		cr_assert_eq(fclose(f), 0);
		cr_assert_eq(rename(other, path), 0);
	}
	cr_assert_str_eq(poll_once(), "    fault before iteration 1: loss 0.up loss=1%\n"
				      "    fault before iteration 2: loss 0.up loss=2%\n"
				      "    fault before iteration 3: loss 0.up loss=3%\n");
}
