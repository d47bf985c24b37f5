/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regime parameters: "--pfc KEY=VALUE,...", "--credit KEY=VALUE,...", the pfc: and
 * credit: sections of a profile, and `set pfc|credit` at run time. Keys and defaults are
 * in docs/regimes.md; each key's range is its rule in fe_rules.h. Parsing is two steps,
 * in the style of wireguard-tools' config parser: every key on its own (fe_pfc_key),
 * then the rules across keys in one place (fe_pfc_check: xon below xoff), once all
 * are read; for credit (fe_credit_check): a buffer of 1 to FE_CREDIT_BLOCKS_MAX units,
 * update below buffer (the dataplane, which knows its largest frame, refuses an update
 * above the buffer less that frame: fe_derive.c).
 *   pfc:    xoff, xon, headroom (sizes), delay (time), quanta (1..65535), frames (0/1)
 *   credit: buffer (size per lane), unit (size of a credit), return (time), hoq (time,
 *           0s = off), out (packets), update (size, 0 = each frame's credits)
 * Each returns 0 or -EINVAL with a message that starts with prefix ("--pfc: ",
 * "pfc.") and names the bad key or value.
 */
#ifndef FE_REGIMESPEC_H
#define FE_REGIMESPEC_H

#include <stddef.h>

#include "fe_credit.h"
#include "fe_nic.h"
#include "fe_pfc.h"

/* The keys each table knows, for "unknown key" messages (--pfc, --credit, a profile's). */
#define FE_PFC_KNOWN                                                                               \
	"xoff, xon, headroom, delay, quanta, frames, watchdog, watchdog-action, restore"
#define FE_CREDIT_KNOWN "buffer, unit, return, hoq, out, update"

int fe_pfc_key(const char *key, const char *v, struct fe_pfc_params *p, const char *prefix,
	       char *err, size_t len);
int fe_credit_key(const char *key, const char *v, struct fe_credit_params *p, const char *prefix,
		  char *err, size_t len);
/* nic: model (tcp|roce|ib|host|uec), recovery (go-back-n|selective), g (1/N), stages, cnp-interval,
 * alpha-period, rate-period (times), rate-bytes (size), ai-rate, hai-rate, min-rate
 * (rates), timeout (time), window (frames), cc (0/1), ... : every key FE_NIC_KNOWN names
 * (--nic, a profile's nic:). */
#define FE_NIC_KNOWN                                                                               \
	"model, recovery, cc, g, stages, cnp-interval, alpha-period, rate-period, rate-bytes, "    \
	"ai-rate, hai-rate, min-rate, timeout, window, reorder, ccti-increase, ccti-limit, "       \
	"ccti-min, ccti-timer, cct-step, rtt, trim, trim-dscp, trim-queue, reps-freeze, "          \
	"oversub-cc, sleek, pcie, pcie-backlog, ack-bytes"
int fe_nic_key(const char *key, const char *v, struct fe_nic_params *p, const char *prefix,
	       char *err, size_t len);
int fe_nic_spec(const char *spec, struct fe_nic_params *p, char *err, size_t errlen);
/* The rules across a NIC's keys, on its final values (a profile's, then --nic's on top):
 * cc rccc (and nscc+rccc) and pcie with model uec only, pcie-backlog with pcie. 0, or
 * -EINVAL with a message naming the value, and *key (if not NULL) the key it names. */
int fe_nic_check(const struct fe_nic_params *p, const char *prefix, char *err, size_t len,
		 const char **key);
/* A profile's scale: its times multiplied, its rates divided (docs/profiles.md); the
 * NIC's timeout is set by software, like TCP's, and is kept as it is. */
void fe_nic_scale(struct fe_nic_params *p, uint32_t scale);
int fe_pfc_check(const struct fe_pfc_params *p, const char *prefix, char *err, size_t len);
/* 0, or -EINVAL with a message naming the value, and *key (if not NULL) the key it names. */
int fe_credit_check(const struct fe_credit_params *p, const char *prefix, char *err, size_t len,
		    const char **key);

/* KEY=VALUE,...: each key, then the checks (the command line and `set`). */
int fe_pfc_spec(const char *spec, struct fe_pfc_params *p, char *err, size_t errlen);
int fe_credit_spec(const char *spec, struct fe_credit_params *p, char *err, size_t errlen);

#endif
