/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One rule for every value a user gives: its name, its kind (size, time, count) and
 * its range, in one table shared by the command line, profiles, the control protocol
 * and campaigns. A value is accepted or refused the same way, with the same message,
 * wherever it is written. Rules across values (xon below xoff, ...) are checked once
 * every key is read, in one place: fe_fabric_check() (fe_regimespec.h).
 *
 *   if (fe_rule_parse(&fe_rule_scale, "--", "0", &x, err, len) < 0)
 *           // err: "--scale '0' (allowed: 1 to 100000)"
 */
#ifndef FE_RULES_H
#define FE_RULES_H

#include <stddef.h>
#include <stdint.h>

enum fe_rule_kind { FE_RULE_COUNT, FE_RULE_SIZE, FE_RULE_TIME, FE_RULE_RATE };

struct fe_rule {
	const char *name;
	enum fe_rule_kind kind;
	uint64_t min, max;   /* a count, bytes, nanoseconds or bit/s */
	const char *allowed; /* NULL: "MIN to MAX" in the kind's units */
	int zero;	     /* 0 is allowed too (off, unlimited), below min */
};

/* the fabric */
extern const struct fe_rule fe_rule_scale, fe_rule_seed, fe_rule_lanes, fe_rule_switch_buffer;
/* a link */
extern const struct fe_rule fe_rule_link_rate, fe_rule_link_delay, fe_rule_link_jitter,
	fe_rule_link_buffer, fe_rule_link_buffer_pkts;
/* the PFC and credit regimes (--pfc, --credit, pfc:, credit:, set pfc|credit) */
extern const struct fe_rule fe_rule_pfc_xoff, fe_rule_pfc_xon, fe_rule_pfc_headroom,
	fe_rule_pfc_delay, fe_rule_pfc_quanta, fe_rule_pfc_frames, fe_rule_pfc_watchdog,
	fe_rule_pfc_restore;
extern const struct fe_rule fe_rule_credit_buffer, fe_rule_credit_unit, fe_rule_credit_return,
	fe_rule_credit_hoq, fe_rule_credit_update, fe_rule_credit_out;
/* the emulated NIC (--nic, nic:) */
extern const struct fe_rule fe_rule_nic_g, fe_rule_nic_stages, fe_rule_nic_cnp_interval,
	fe_rule_nic_alpha, fe_rule_nic_timer, fe_rule_nic_bytes, fe_rule_nic_ai, fe_rule_nic_hai,
	fe_rule_nic_min_rate, fe_rule_nic_timeout, fe_rule_nic_window, fe_rule_nic_ccti_increase,
	fe_rule_nic_ccti_limit, fe_rule_nic_ccti_min, fe_rule_nic_ccti_timer, fe_rule_nic_cct_step,
	fe_rule_nic_reorder, fe_rule_nic_rtt, fe_rule_nic_trim, fe_rule_nic_trim_dscp,
	fe_rule_nic_reps_freeze, fe_rule_nic_pcie, fe_rule_nic_pcie_backlog, fe_rule_nic_ack_bytes;
/* run-time requests */
extern const struct fe_rule fe_rule_hold, fe_rule_snaplen;

/*
 * Parse v by the rule's kind and check its range. On error err says
 * "PREFIXNAME 'V' (allowed: ...)", or the unit parser's message after "PREFIXNAME: ".
 */
int fe_rule_parse(const struct fe_rule *r, const char *prefix, const char *v, uint64_t *out,
		  char *err, size_t len);

/* Check a value that is already a number (a JSON integer, a profile's scale). */
int fe_rule_check(const struct fe_rule *r, const char *prefix, uint64_t v, char *err, size_t len);

/* "1 to 100000", "64B to 64MiB", "0 for none, or up to 4GiB" */
const char *fe_rule_allowed(const struct fe_rule *r, char *buf, size_t len);

#endif
