/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_units.h"

struct unit {
	const char *name;
	double mult;
};

static const struct unit rate_units[] = {
	{"", 1},	 {"bit", 1},	  {"bps", 1},	   {"bit/s", 1},   {"k", 1e3},
	{"kbit", 1e3},	 {"kbps", 1e3},	  {"kbit/s", 1e3}, {"M", 1e6},	   {"Mbit", 1e6},
	{"Mbps", 1e6},	 {"Mbit/s", 1e6}, {"G", 1e9},	   {"Gbit", 1e9},  {"Gbps", 1e9},
	{"Gbit/s", 1e9}, {"T", 1e12},	  {"Tbit", 1e12},  {"Tbps", 1e12}, {"Tbit/s", 1e12},
	{NULL, 0},
};

static const struct unit time_units[] = {
	{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {NULL, 0},
};

static const struct unit size_units[] = {
	{"", 1},     {"B", 1},	    {"KB", 1e3},      {"kB", 1e3},	   {"MB", 1e6},
	{"GB", 1e9}, {"KiB", 1024}, {"MiB", 1048576}, {"GiB", 1073741824}, {NULL, 0},
};

/* Number, then a unit from the table (matched case-sensitively: M is not m). */
static int
parse_with_units(const char *s, const struct unit *units, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !isfinite(v) || v < 0)
		return -EINVAL;
	/* digits and one decimal point only: no exponents, hex, inf or nan */
	for (const char *c = s; c < end; c++)
		if ((*c < '0' || *c > '9') && *c != '.')
			return -EINVAL;
	for (const struct unit *u = units; u->name; u++) {
		if (strcmp(end, u->name) == 0) {
			*out = v * u->mult;
			return 0;
		}
	}
	return -EINVAL;
}

static int
fail(char *err, size_t errlen, const char *what, const char *s)
{
	snprintf(err, errlen, "invalid %s '%s'", what, s ? s : "(null)");
	return -EINVAL;
}

/* Round to the nearest integer; reject values that do not fit or lose a fraction < 1. */
static int
to_u64(double v, uint64_t *out)
{
	if (v >= 18446744073709549568.0)
		return -EINVAL;
	*out = (uint64_t)llround(v);
	return 0;
}

static int
parse_kind(const char *s, const struct unit *units, const char *what, uint64_t *out, char *err,
	   size_t errlen)
{
	double v;

	if (parse_with_units(s, units, &v) < 0 || to_u64(v, out) < 0)
		return fail(err, errlen, what, s);
	return 0;
}

int
fe_parse_rate(const char *s, uint64_t *bps, char *err, size_t errlen)
{
	return parse_kind(s, rate_units, "rate (e.g. 1Gbit, 200Mbit, 10000000)", bps, err, errlen);
}

int
fe_parse_time(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	return parse_kind(s, time_units, "time (e.g. 100us, 1.5ms, 0s; units ns, us, ms, s)", ns,
			  err, errlen);
}

int
fe_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	return parse_kind(s, size_units, "size (e.g. 512KiB, 64KB, 1500)", bytes, err, errlen);
}

int
fe_parse_fraction(const char *s, double *f, char *err, size_t errlen)
{
	static const struct unit frac_units[] = {{"", 1}, {"%", 0.01}, {NULL, 0}};

	if (parse_with_units(s, frac_units, f) < 0 || *f > 1) {
		snprintf(err, errlen, "invalid probability '%s' (0%% to 100%%, or 0 to 1)",
			 s ? s : "(null)");
		return -EINVAL;
	}
	return 0;
}

int
fe_parse_onoff(const char *s, int *on, char *err, size_t errlen)
{
	static const char *const words[2][3] = {{"off", "false", "no"}, {"on", "true", "yes"}};

	for (int b = 0; b < 2; b++)
		for (int i = 0; i < 3; i++)
			if (strcmp(s, words[b][i]) == 0) {
				*on = b;
				return 0;
			}
	snprintf(err, errlen, "'%s' (allowed: " FE_ONOFF_ALLOWED ")", s);
	return -EINVAL;
}

int
fe_parse_uint(const char *s, uint64_t max, uint64_t *v, char *err, size_t errlen)
{
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return fail(err, errlen, "number", s);
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*end != '\0' || errno != 0 || *v > max) {
		snprintf(err, errlen, "invalid number '%s' (allowed: 0 to %llu)", s,
			 (unsigned long long)max);
		return -EINVAL;
	}
	return 0;
}

char *
fe_fmt_rate(uint64_t bps, char *buf, size_t len)
{
	static const char *const names[] = {"bit", "kbit", "Mbit", "Gbit", "Tbit"};
	double v = (double)bps;
	unsigned i = 0;

	if (bps == 0) {
		snprintf(buf, len, "unlimited");
		return buf;
	}
	while (v >= 1000 && i < 4 && fmod(v, 1000) == 0) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.0f%s", v, names[i]);
	return buf;
}

char *
fe_fmt_time(uint64_t ns, char *buf, size_t len)
{
	if (ns % 1000000000 == 0 && ns)
		snprintf(buf, len, "%llus", (unsigned long long)(ns / 1000000000));
	else if (ns % 1000000 == 0 && ns)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000));
	else if (ns % 1000 == 0 && ns)
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000));
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}
