/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regime parameters from the command line: "--pfc KEY=VALUE,..." and
 * "--credit KEY=VALUE,...". Keys and defaults are in docs/regimes.md. Each returns 0
 * or -EINVAL with a message naming the bad key or value.
 *   pfc:    xoff, xon, headroom (sizes), delay (time), quanta (1..65535)
 *   credit: buffer (size per lane), return (time), hoq (time, 0s = off), out (packets)
 */
#ifndef FE_REGIMESPEC_H
#define FE_REGIMESPEC_H

#include <stddef.h>

#include "fe_credit.h"
#include "fe_pfc.h"

int fe_pfc_spec(const char *spec, struct fe_pfc_params *p, char *err, size_t errlen);
int fe_credit_spec(const char *spec, struct fe_credit_params *p, char *err, size_t errlen);

#endif
