/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fe_regimespec.h"
#include "fe_rules.h"
#include "fe_units.h"

struct key {
	const struct fe_rule *rule; /* its name is the key */
	size_t off;		    /* of a uint64_t or uint32_t field */
	int is32;
};

#define K64(t, f, r)                                                                               \
	{                                                                                          \
		&(r), offsetof(struct t, f), 0                                                     \
	}
#define K32(t, f, r)                                                                               \
	{                                                                                          \
		&(r), offsetof(struct t, f), 1                                                     \
	}

static const struct key pfc_keys[] = {
	K64(fe_pfc_params, xoff, fe_rule_pfc_xoff),
	K64(fe_pfc_params, xon, fe_rule_pfc_xon),
	K64(fe_pfc_params, headroom, fe_rule_pfc_headroom),
	K64(fe_pfc_params, delay_ns, fe_rule_pfc_delay),
	K32(fe_pfc_params, quanta, fe_rule_pfc_quanta),
	K32(fe_pfc_params, frames, fe_rule_pfc_frames),
	K64(fe_pfc_params, watchdog_ns, fe_rule_pfc_watchdog),
	K64(fe_pfc_params, restore_ns, fe_rule_pfc_restore),
};

static const struct key credit_keys[] = {
	K64(fe_credit_params, buffer, fe_rule_credit_buffer),
	K32(fe_credit_params, unit, fe_rule_credit_unit),
	K64(fe_credit_params, return_ns, fe_rule_credit_return),
	K64(fe_credit_params, hoq_life_ns, fe_rule_credit_hoq),
	K32(fe_credit_params, out_pkts, fe_rule_credit_out),
	K64(fe_credit_params, update, fe_rule_credit_update),
};

static const struct key nic_keys[] = {
	K32(fe_nic_params, stages, fe_rule_nic_stages),
	K64(fe_nic_params, cnp_interval_ns, fe_rule_nic_cnp_interval),
	K64(fe_nic_params, alpha_ns, fe_rule_nic_alpha),
	K64(fe_nic_params, timer_ns, fe_rule_nic_timer),
	K64(fe_nic_params, bytes, fe_rule_nic_bytes),
	K64(fe_nic_params, ai_bps, fe_rule_nic_ai),
	K64(fe_nic_params, hai_bps, fe_rule_nic_hai),
	K64(fe_nic_params, min_bps, fe_rule_nic_min_rate),
	K64(fe_nic_params, timeout_ns, fe_rule_nic_timeout),
	K32(fe_nic_params, window, fe_rule_nic_window),
	K64(fe_nic_params, reorder_ns, fe_rule_nic_reorder),
	K32(fe_nic_params, ccti_increase, fe_rule_nic_ccti_increase),
	K32(fe_nic_params, ccti_limit, fe_rule_nic_ccti_limit),
	K32(fe_nic_params, ccti_min, fe_rule_nic_ccti_min),
	K64(fe_nic_params, ccti_timer_ns, fe_rule_nic_ccti_timer),
	K64(fe_nic_params, rtt_ns, fe_rule_nic_rtt),
	K32(fe_nic_params, trim_bytes, fe_rule_nic_trim),
	K32(fe_nic_params, trim_dscp, fe_rule_nic_trim_dscp),
	K64(fe_nic_params, reps_freeze_ns, fe_rule_nic_reps_freeze),
	K64(fe_nic_params, pcie_bps, fe_rule_nic_pcie),
	K64(fe_nic_params, pcie_backlog, fe_rule_nic_pcie_backlog),
	K64(fe_nic_params, ack_bytes, fe_rule_nic_ack_bytes),
};

/* One key of a table: its rule, then the field. */
static int
set_key(void *obj, const struct key *keys, size_t nkeys, const char *known, const char *prefix,
	const char *key, const char *v, char *err, size_t len)
{
	uint64_t x;
	size_t i;

	for (i = 0; i < nkeys && strcmp(key, keys[i].rule->name) != 0; i++)
		;
	if (i == nkeys) {
		snprintf(err, len, "%sunknown key '%s' (known: %s)", prefix, key, known);
		return -EINVAL;
	}
	if (fe_rule_parse(keys[i].rule, prefix, v, &x, err, len) < 0)
		return -EINVAL;
	if (keys[i].is32)
		*(uint32_t *)((char *)obj + keys[i].off) = (uint32_t)x;
	else
		*(uint64_t *)((char *)obj + keys[i].off) = x;
	return 0;
}

int
fe_pfc_key(const char *key, const char *v, struct fe_pfc_params *p, const char *prefix, char *err,
	   size_t len)
{
	if (strcmp(key, "watchdog-action") == 0) {
		if (strcmp(v, "drop") == 0 || strcmp(v, "forward") == 0) {
			p->watchdog_action = v[0] == 'f' ? FE_PFC_WD_FORWARD : FE_PFC_WD_DROP;
			return 0;
		}
		snprintf(err, len, "%swatchdog-action '%s' (allowed: " FE_PFC_WD_ALLOWED ")",
			 prefix, v);
		return -EINVAL;
	}
	return set_key(p, pfc_keys, sizeof(pfc_keys) / sizeof(pfc_keys[0]), FE_PFC_KNOWN, prefix,
		       key, v, err, len);
}

int
fe_credit_key(const char *key, const char *v, struct fe_credit_params *p, const char *prefix,
	      char *err, size_t len)
{
	return set_key(p, credit_keys, sizeof(credit_keys) / sizeof(credit_keys[0]),
		       FE_CREDIT_KNOWN, prefix, key, v, err, len);
}

/* "1/N", N by rule r (whose allowed text says so). */
static int
one_over(const struct fe_rule *r, const char *prefix, const char *v, uint32_t *den, char *err,
	 size_t len)
{
	uint64_t x;

	if (strncmp(v, "1/", 2) != 0 || fe_rule_parse(r, prefix, v + 2, &x, err, len) < 0) {
		snprintf(err, len, "%s%s '%s' (allowed: %s)", prefix, r->name, v, r->allowed);
		return -EINVAL;
	}
	*den = (uint32_t)x;
	return 0;
}

int
fe_nic_key(const char *key, const char *v, struct fe_nic_params *p, const char *prefix, char *err,
	   size_t len)
{
	if (strcmp(key, "model") == 0) {
		if (fe_nic_model_parse(v, &p->model) < 0) {
			snprintf(err, len, "%smodel '%s' (allowed: " FE_NIC_MODEL_ALLOWED ")",
				 prefix, v);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "recovery") == 0) {
		if (fe_nic_recovery_parse(v, &p->recovery) < 0) {
			snprintf(err, len, "%srecovery '%s' (allowed: " FE_NIC_RECOVERY_ALLOWED ")",
				 prefix, v);
			return -EINVAL;
		}
		return 0;
	}
	/* g, DCQCN's gain, and cct-step, what one table index adds between packets: 1/N,
	 * as the paper, NICs and the IB spec write them */
	if (strcmp(key, "g") == 0)
		return one_over(&fe_rule_nic_g, prefix, v, &p->g_den, err, len);
	if (strcmp(key, "cc") == 0) {
		if (fe_nic_cc_parse(v, &p->cc) < 0) {
			snprintf(err, len, "%scc '%s' (allowed: " FE_NIC_CC_ALLOWED ")", prefix, v);
			return -EINVAL;
		}
		p->cc_set = 1;
		return 0;
	}
	if (strcmp(key, "cct-step") == 0)
		return one_over(&fe_rule_nic_cct_step, prefix, v, &p->cct_den, err, len);
	if (strcmp(key, "timeout") == 0) { /* a time, or path (fe_nic.h) */
		p->timeout_path = strcmp(v, "path") == 0;
		if (p->timeout_path)
			return 0;
		if (set_key(p, nic_keys, sizeof(nic_keys) / sizeof(nic_keys[0]), FE_NIC_KNOWN,
			    prefix, key, v, err, len) < 0) { /* not a time: say what is allowed */
			snprintf(err, len, "%stimeout '%s' (allowed: %s)", prefix, v,
				 fe_rule_nic_timeout.allowed);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "trim-queue") == 0) {
		if (fe_nic_trimq_parse(v, &p->trim_queue) < 0) {
			snprintf(err, len, "%strim-queue '%s' (allowed: " FE_NIC_TRIMQ_ALLOWED ")",
				 prefix, v);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "oversub-cc") == 0) {
		if (fe_nic_occ_parse(v, &p->oversub_cc) < 0) {
			snprintf(err, len, "%soversub-cc '%s' (allowed: " FE_NIC_OCC_ALLOWED ")",
				 prefix, v);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "sleek") == 0) { /* SLEEK's loss probes (model uec, cc nscc) */
		char e[128];
		int on;

		if (fe_parse_onoff(v, &on, e, sizeof(e)) < 0) {
			snprintf(err, len, "%ssleek %s", prefix, e);
			return -EINVAL;
		}
		p->sleek_off = !on;
		return 0;
	}
	if (strcmp(key, "trim-dscp") == 0 && strcmp(v, "keep") == 0) {
		p->trim_dscp = FE_NIC_DSCP_KEEP;
		return 0;
	}
	return set_key(p, nic_keys, sizeof(nic_keys) / sizeof(nic_keys[0]), FE_NIC_KNOWN, prefix,
		       key, v, err, len);
}

int
fe_nic_check(const struct fe_nic_params *p, const char *prefix, char *err, size_t len,
	     const char **key)
{
	char r[32];

	/* RCCC is Ultra Ethernet's: its grants ride on the uec NIC's ACKs (fe_rccc.h) */
	if (p->cc_set && fe_nic_cc_rccc(p->cc) && p->model != FE_NIC_UEC) {
		snprintf(err, len,
			 "%scc '%s' needs model uec (model '%s' allowed: off, dcqcn, ib, nscc)",
			 prefix, fe_nic_cc_name(p->cc), fe_nic_model_name(p->model));
		goto bad_cc;
	}
	/* the PCIe's full backlog trims a frame: a uec NIC's NAK asks for it (fe_pcie.h) */
	if (p->pcie_bps && p->model != FE_NIC_UEC) {
		snprintf(err, len, "%spcie '%s' needs model uec (model '%s')", prefix,
			 fe_fmt_rate(p->pcie_bps, r, sizeof(r)), fe_nic_model_name(p->model));
		goto bad_pcie;
	}
	/* the receiver's ACK policy is UET's (uet-htsim's sink) */
	if (p->ack_bytes && p->model != FE_NIC_UEC) {
		snprintf(err, len, "%sack-bytes '%" PRIu64 "B' needs model uec (model '%s')",
			 prefix, p->ack_bytes, fe_nic_model_name(p->model));
		if (key)
			*key = "ack-bytes";
		return -EINVAL;
	}
	if (p->pcie_backlog && !p->pcie_bps) {
		snprintf(err, len, "%spcie-backlog '%" PRIu64 "B' needs pcie (the PCIe's rate)",
			 prefix, p->pcie_backlog);
		if (key)
			*key = "pcie-backlog";
		return -EINVAL;
	}
	/* the switch trims a uec NIC's frames alone: its header's DSCP and queue */
	if (p->model != FE_NIC_UEC &&
	    (p->trim_queue != FE_NIC_TRIMQ_PRIORITY || p->trim_dscp != FE_NIC_DSCP_KEEP)) {
		const int q = p->trim_queue != FE_NIC_TRIMQ_PRIORITY;

		if (q)
			snprintf(err, len, "%strim-queue '%s' needs model uec (model '%s')", prefix,
				 fe_nic_trimq_name(p->trim_queue), fe_nic_model_name(p->model));
		else
			snprintf(err, len, "%strim-dscp '%u' needs model uec (model '%s')", prefix,
				 p->trim_dscp, fe_nic_model_name(p->model));
		if (key)
			*key = q ? "trim-queue" : "trim-dscp";
		return -EINVAL;
	}
	return 0;
bad_cc:
	if (key)
		*key = "cc";
	return -EINVAL;
bad_pcie:
	if (key)
		*key = "pcie";
	return -EINVAL;
}

void
fe_nic_scale(struct fe_nic_params *p, uint32_t scale)
{
	p->cnp_interval_ns *= scale;
	p->alpha_ns *= scale;
	p->timer_ns *= scale;
	p->ccti_timer_ns *= scale;
	p->reorder_ns *= scale;	    /* the NIC's hardware window, as the fabric's skew it covers */
	p->rtt_ns *= scale;	    /* the fabric's round trip, dilated with it */
	p->reps_freeze_ns *= scale; /* REPS's, a time against the fabric's round trips */
	/* not timeout: like the hosts' TCP timers, a time software sets (docs/nic.md); or,
	 * with timeout: path, derived from the links, dilated already */
	p->ai_bps = p->ai_bps / scale ? p->ai_bps / scale : 1;
	p->hai_bps = p->hai_bps / scale ? p->hai_bps / scale : 1;
	p->min_bps = p->min_bps / scale ? p->min_bps / scale : 1;
	if (p->pcie_bps) /* the host's PCIe, a rate beside the links' */
		p->pcie_bps = p->pcie_bps / scale ? p->pcie_bps / scale : 1;
}

int
fe_pfc_check(const struct fe_pfc_params *p, const char *prefix, char *err, size_t len)
{
	/* PFC resumes below where it pauses */
	if (p->xon >= p->xoff) {
		snprintf(err, len, "%sxon (%" PRIu64 " B) must be below xoff (%" PRIu64 " B)",
			 prefix, p->xon, p->xoff);
		return -EINVAL;
	}
	return 0;
}

int
fe_credit_check(const struct fe_credit_params *p, const char *prefix, char *err, size_t len,
		const char **key)
{
	const uint32_t unit = p->unit ? p->unit : FE_CREDIT_UNIT;
	const uint64_t blocks = fe_credit_total(p->buffer, unit);

	/* a lane holds one credit at least, and as many as the rings are sized for */
	if (blocks == 0 || blocks > FE_CREDIT_BLOCKS_MAX) {
		snprintf(err, len,
			 "%sbuffer (%" PRIu64 " B) must hold 1 to %u credits of unit (%u B): it "
			 "holds %" PRIu64,
			 prefix, p->buffer, FE_CREDIT_BLOCKS_MAX, unit, blocks);
		if (key)
			*key = "buffer";
		return -EINVAL;
	}
	/* a message gathers less than the buffer (the dataplane, which knows its largest
	 * frame, takes that off too: fe_derive.c) */
	if (fe_credit_update_blocks(p->update, unit) && p->update >= p->buffer) {
		snprintf(err, len,
			 "%supdate (%" PRIu64 " B) must be below buffer (%" PRIu64
			 " B); the dataplane allows at most the buffer less its largest frame "
			 "(2048 B unless --mtu is larger) plus one credit",
			 prefix, p->update, p->buffer);
		if (key)
			*key = "update";
		return -EINVAL;
	}
	return 0;
}

/* "k=v,k=v": every key, then the rules across keys. */
static int
parse(const char *opt, const char *spec, void *obj,
      int (*key)(const char *, const char *, void *, const char *, char *, size_t),
      int (*check)(const void *, const char *, char *, size_t), char *err, size_t len)
{
	char buf[512], *save = NULL, prefix[32];

	snprintf(prefix, sizeof(prefix), "--%s: ", opt);
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, len, "--%s: too long", opt);
		return -EINVAL;
	}
	strcpy(buf, spec);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (eq == NULL) {
			snprintf(err, len, "--%s: expected key=value, got '%s'", opt, kv);
			return -EINVAL;
		}
		*eq = '\0';
		if (key(kv, eq + 1, obj, prefix, err, len) < 0)
			return -EINVAL;
	}
	return check ? check(obj, prefix, err, len) : 0;
}

static int
pfc_key(const char *k, const char *v, void *p, const char *prefix, char *err, size_t len)
{
	return fe_pfc_key(k, v, p, prefix, err, len);
}

static int
pfc_check(const void *p, const char *prefix, char *err, size_t len)
{
	return fe_pfc_check(p, prefix, err, len);
}

static int
credit_key(const char *k, const char *v, void *p, const char *prefix, char *err, size_t len)
{
	return fe_credit_key(k, v, p, prefix, err, len);
}

static int
credit_check(const void *p, const char *prefix, char *err, size_t len)
{
	return fe_credit_check(p, prefix, err, len, NULL);
}

int
fe_pfc_spec(const char *spec, struct fe_pfc_params *p, char *err, size_t errlen)
{
	return parse("pfc", spec, p, pfc_key, pfc_check, err, errlen);
}

static int
nic_key(const char *k, const char *v, void *p, const char *prefix, char *err, size_t len)
{
	return fe_nic_key(k, v, p, prefix, err, len);
}

int
fe_nic_spec(const char *spec, struct fe_nic_params *p, char *err, size_t errlen)
{
	return parse("nic", spec, p, nic_key, NULL, err, errlen);
}

int
fe_credit_spec(const char *spec, struct fe_credit_params *p, char *err, size_t errlen)
{
	return parse("credit", spec, p, credit_key, credit_check, err, errlen);
}
