/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parsing of values with units, as users write them: "1Gbit", "200Mbit/s", "100us",
 * "1.5ms", "512KiB", "64KB", "0.1%". Each function takes the whole string, returns 0
 * or -EINVAL, and on error writes a message that quotes the value into err.
 */
#ifndef FE_UNITS_H
#define FE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* bit/s: plain number, or with bit, kbit, Mbit, Gbit, Tbit (also k/M/G/T, bps, /s). */
int fe_parse_rate(const char *s, uint64_t *bps, char *err, size_t errlen);

/* nanoseconds: ns, us, ms, s; a plain number is rejected (say the unit). */
int fe_parse_time(const char *s, uint64_t *ns, char *err, size_t errlen);

/* bytes: plain number, or B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (of 1024). */
int fe_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen);

/* a probability: "0.1%" (percent, 0% to 100%) or a plain fraction from 0 to 1. */
int fe_parse_fraction(const char *s, double *f, char *err, size_t errlen);

/* a plain non-negative integer no larger than max. */
int fe_parse_uint(const char *s, uint64_t max, uint64_t *v, char *err, size_t errlen);

/* a switch: on or off, also true, false, yes or no (YAML's words for them). */
#define FE_ONOFF_ALLOWED "on, off, true, false, yes, no"
int fe_parse_onoff(const char *s, int *on, char *err, size_t errlen);

/* Human-readable forms for reports ("1Gbit", "100us"); return buf. */
char *fe_fmt_rate(uint64_t bps, char *buf, size_t len);
char *fe_fmt_time(uint64_t ns, char *buf, size_t len);

#endif
