/* SPDX-License-Identifier: BSD-3-Clause */
/* One rule for every value (fe_rules.h): the same range and message wherever given. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fe_regimespec.h"
#include "fe_rules.h"

static int
parse(const struct fe_rule *r, const char *prefix, const char *v, uint64_t *x, char *err)
{
	*x = 12345;
	return fe_rule_parse(r, prefix, v, x, err, 256);
}

Test(rules, bounds_are_inclusive)
{
	char err[256];
	uint64_t x;

	cr_assert_eq(parse(&fe_rule_scale, "--", "1", &x, err), 0);
	cr_assert_eq(x, 1);
	cr_assert_eq(parse(&fe_rule_scale, "--", "100000", &x, err), 0);
	cr_assert_eq(x, 100000);
	cr_assert_eq(parse(&fe_rule_scale, "--", "100001", &x, err), -EINVAL);
	cr_assert_str_eq(err, "--scale '100001' (allowed: 1 to 100000)");
	cr_assert_eq(x, 12345, "a refused value is not stored");
	cr_assert_eq(parse(&fe_rule_scale, "", "0", &x, err), -EINVAL);
	cr_assert_str_eq(err, "scale '0' (allowed: 1 to 100000)");
	cr_assert_eq(parse(&fe_rule_scale, "", "1e300", &x, err), -EINVAL);
	cr_assert_str_eq(err, "scale '1e300' (allowed: 1 to 100000)");
	cr_assert_eq(parse(&fe_rule_scale, "", "99999999999999999999999", &x, err), -EINVAL);
}

Test(rules, units_by_kind)
{
	char err[256];
	uint64_t x;

	cr_assert_eq(parse(&fe_rule_switch_buffer, "", "4GiB", &x, err), 0);
	cr_assert_eq(x, 4ULL << 30);
	cr_assert_eq(parse(&fe_rule_switch_buffer, "--", "5GiB", &x, err), -EINVAL);
	cr_assert_str_eq(err, "--switch-buffer '5GiB' (allowed: 0 for none, or up to 4GiB)");
	cr_assert_eq(parse(&fe_rule_credit_buffer, "credit.", "15", &x, err), -EINVAL);
	cr_assert_str_eq(err, "credit.buffer '15' (allowed: 16B to 64MiB, one credit (unit) to "
			      "1048576 of them)");
	cr_assert_eq(parse(&fe_rule_credit_unit, "credit.", "128KiB", &x, err), -EINVAL);
	cr_assert_str_eq(err, "credit.unit '128KiB' (allowed: 16B to 64KiB)");
	cr_assert_eq(parse(&fe_rule_hold, "hold: ", "61s", &x, err), -EINVAL);
	cr_assert_str_eq(err, "hold: duration '61s' (allowed: 0ns to 60s)");
	/* a value that is not of the kind: the unit parser's message, after the name */
	cr_assert_eq(parse(&fe_rule_pfc_delay, "--pfc: ", "soon", &x, err), -EINVAL);
	cr_assert(strncmp(err, "--pfc: delay: invalid time", 26) == 0, "%s", err);
}

Test(rules, zero_as_off)
{
	char err[256];
	uint64_t x;

	/* a rate of 0 is unlimited; anything else starts at 1 kbit/s */
	cr_assert_eq(parse(&fe_rule_link_rate, "", "0", &x, err), 0);
	cr_assert_eq(x, 0);
	cr_assert_eq(parse(&fe_rule_link_rate, "", "500", &x, err), -EINVAL);
	cr_assert_str_eq(err, "rate '500' (allowed: 0 for unlimited, or 1kbit to 1Tbit)");
	cr_assert_eq(fe_rule_check(&fe_rule_link_rate, "", 0, err, sizeof(err)), 0);
	cr_assert_eq(fe_rule_check(&fe_rule_link_rate, "", 999, err, sizeof(err)), -EINVAL);
	cr_assert_eq(fe_rule_check(&fe_rule_scale, "apply: ", 0, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "apply: scale '0' (allowed: 1 to 100000)");
}

/* The command line, a profile and `set` reach the same rule through fe_pfc_key. */
Test(rules, regime_keys_then_the_rule_across_them)
{
	struct fe_pfc_params p = {.xoff = 64 << 10, .xon = 32 << 10, .quanta = 65535};
	char err[256];

	cr_assert_eq(fe_pfc_key("quanta", "0", &p, "pfc.", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "pfc.quanta '0' (allowed: 1 to 65535)");
	cr_assert_eq(fe_pfc_spec("quanta=0", &p, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "--pfc: quanta '0' (allowed: 1 to 65535)");
	/* each key alone is fine; together they break xon < xoff, found once all are read */
	cr_assert_eq(fe_pfc_key("xon", "100KiB", &p, "pfc.", err, sizeof(err)), 0);
	cr_assert_eq(fe_pfc_check(&p, "pfc.", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "pfc.xon (102400 B) must be below xoff (65536 B)");
	/* in one spec, the order of keys does not matter */
	p = (struct fe_pfc_params){.xoff = 64 << 10, .xon = 32 << 10, .quanta = 65535};
	cr_assert_eq(fe_pfc_spec("xon=100KiB,xoff=200KiB", &p, err, sizeof(err)), 0);
	cr_assert_eq(p.xoff, 200 << 10);
}
