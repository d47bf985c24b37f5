/* SPDX-License-Identifier: BSD-3-Clause */
/* Values with units: a table of good inputs and their values, bad inputs and their errors. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fe_units.h"

enum kind { RATE, TIME, SIZE };

/* Criterion copies parameters into the test process: arrays, not pointers. */
struct good {
	enum kind kind;
	char in[24];
	uint64_t want;
};

static struct good goods[] = {
	{RATE, "1Gbit", 1000000000},
	{RATE, "200Mbit", 200000000},
	{RATE, "10000000", 10000000},
	{RATE, "400Gbit/s", 400000000000ULL},
	{RATE, "2.5G", 2500000000},
	{RATE, "1kbit", 1000},
	{RATE, "0", 0},
	{RATE, "100Mbps", 100000000},
	{TIME, "100us", 100000},
	{TIME, "1.5ms", 1500000},
	{TIME, "2s", 2000000000},
	{TIME, "50ns", 50},
	{TIME, "0s", 0},
	{TIME, "2µs", 2000},
	{SIZE, "512KiB", 524288},
	{SIZE, "64KB", 64000},
	{SIZE, "1500", 1500},
	{SIZE, "1MiB", 1048576},
	{SIZE, "1.5KiB", 1536},
	{SIZE, "0", 0},
};

static struct good bads[] = {
	{RATE, "", 0},	    {RATE, "fast", 0}, {RATE, "1Gb", 0},  {RATE, "-1G", 0},
	{RATE, "1e9", 0},   {RATE, "inf", 0},  {RATE, "0x10", 0}, {RATE, "1 Gbit", 0},
	{TIME, "100", 0},   {TIME, "1h", 0},   {TIME, "us", 0},	  {TIME, "nan", 0},
	{SIZE, "1KiBs", 0}, {SIZE, "1kib", 0}, {SIZE, "-5", 0},	  {SIZE, "1e3", 0},
};

static int
parse(enum kind k, const char *in, uint64_t *v, char *err, size_t len)
{
	switch (k) {
	case RATE:
		return fe_parse_rate(in, v, err, len);
	case TIME:
		return fe_parse_time(in, v, err, len);
	default:
		return fe_parse_size(in, v, err, len);
	}
}

ParameterizedTestParameters(units, good)
{
	return cr_make_param_array(struct good, goods, sizeof(goods) / sizeof(goods[0]));
}

ParameterizedTest(struct good *g, units, good)
{
	char err[200] = "";
	uint64_t v = 12345;

	cr_assert_eq(parse(g->kind, g->in, &v, err, sizeof(err)), 0, "'%s': %s", g->in, err);
	cr_assert_eq(v, g->want, "'%s' gave %llu, want %llu", g->in, (unsigned long long)v,
		     (unsigned long long)g->want);
}

ParameterizedTestParameters(units, bad)
{
	return cr_make_param_array(struct good, bads, sizeof(bads) / sizeof(bads[0]));
}

ParameterizedTest(struct good *g, units, bad)
{
	char err[200] = "", quoted[64];
	uint64_t v;

	cr_assert_eq(parse(g->kind, g->in, &v, err, sizeof(err)), -EINVAL, "'%s' was accepted",
		     g->in);
	snprintf(quoted, sizeof(quoted), "'%s'", g->in);
	cr_assert_not_null(strstr(err, quoted), "error for '%s' does not quote it: %s", g->in, err);
}

Test(units, exact_messages)
{
	char err[200];
	uint64_t v;

	fe_parse_time("100", &v, err, sizeof(err));
	cr_assert_str_eq(err, "invalid time (e.g. 100us, 1.5ms, 0s; units ns, us, ms, s) '100'");
	fe_parse_uint("12x", 100, &v, err, sizeof(err));
	cr_assert_str_eq(err, "invalid number '12x' (allowed: 0 to 100)");
	fe_parse_uint("101", 100, &v, err, sizeof(err));
	cr_assert_str_eq(err, "invalid number '101' (allowed: 0 to 100)");
	cr_assert_eq(fe_parse_uint("100", 100, &v, err, sizeof(err)), 0);
	cr_assert_eq(v, 100);
}

Test(units, formatting)
{
	char b[32];

	cr_assert_str_eq(fe_fmt_rate(1000000000, b, sizeof(b)), "1Gbit");
	cr_assert_str_eq(fe_fmt_rate(200000000, b, sizeof(b)), "200Mbit");
	cr_assert_str_eq(fe_fmt_rate(1500, b, sizeof(b)), "1500bit");
	cr_assert_str_eq(fe_fmt_rate(0, b, sizeof(b)), "unlimited");
	cr_assert_str_eq(fe_fmt_time(100000, b, sizeof(b)), "100us");
	cr_assert_str_eq(fe_fmt_time(1500000, b, sizeof(b)), "1500us");
	cr_assert_str_eq(fe_fmt_time(0, b, sizeof(b)), "0ns");
}
