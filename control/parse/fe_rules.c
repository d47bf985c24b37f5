/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "fe_credit.h"
#include "fe_link.h"
#include "fe_profile.h"
#include "fe_rules.h"
#include "fe_units.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)
#define SEC 1000000000ULL

/* name, kind, min, max, what the message says is allowed (NULL: min to max) */
#define RULE(n, k, lo, hi, a)                                                                      \
	{                                                                                          \
		.name = n, .kind = k, .min = lo, .max = hi, .allowed = a                           \
	}
#define RULE0(n, k, lo, hi, a)                                                                     \
	{                                                                                          \
		.name = n, .kind = k, .min = lo, .max = hi, .allowed = a, .zero = 1                \
	}

/* docs/regimes.md and docs/profiles.md give the reasons for these ranges */
const struct fe_rule fe_rule_scale = RULE("scale", FE_RULE_COUNT, 1, FE_PROFILE_SCALE_MAX, NULL);
const struct fe_rule fe_rule_seed = RULE("seed", FE_RULE_COUNT, 0, FE_SEED_MAX, NULL);
const struct fe_rule fe_rule_lanes = RULE("lanes", FE_RULE_COUNT, 1, FE_LANES_MAX, NULL);
const struct fe_rule fe_rule_switch_buffer =
	RULE("switch-buffer", FE_RULE_SIZE, 0, FE_LINK_BYTES_MAX, "0 for none, or up to 4GiB");
const struct fe_rule fe_rule_link_rate =
	RULE0("rate", FE_RULE_RATE, FE_LINK_RATE_MIN, FE_LINK_RATE_MAX,
	      "0 for unlimited, or 1kbit to 1Tbit");
const struct fe_rule fe_rule_link_delay =
	RULE("delay", FE_RULE_TIME, 0, FE_LINK_DELAY_MAX, "0 to 10s");
const struct fe_rule fe_rule_link_jitter =
	RULE("jitter", FE_RULE_TIME, 0, FE_LINK_DELAY_MAX, "0 to 10s");
const struct fe_rule fe_rule_link_buffer =
	RULE("buffer", FE_RULE_SIZE, 0, FE_LINK_BYTES_MAX, "0 for unlimited, or up to 4GiB");
const struct fe_rule fe_rule_link_buffer_pkts =
	RULE("buffer-pkts", FE_RULE_COUNT, 0, FE_LINK_PKTS_MAX, NULL);
const struct fe_rule fe_rule_pfc_xoff = RULE("xoff", FE_RULE_SIZE, 0, 4 * GIB, NULL);
const struct fe_rule fe_rule_pfc_xon = RULE("xon", FE_RULE_SIZE, 0, 4 * GIB, NULL);
const struct fe_rule fe_rule_pfc_headroom = RULE(
	"headroom", FE_RULE_SIZE, 0, 4 * GIB, "0 for 2 x delay x rate + 2 frames, or up to 4GiB");
const struct fe_rule fe_rule_pfc_delay = RULE("delay", FE_RULE_TIME, 0, SEC, NULL);
const struct fe_rule fe_rule_pfc_quanta = RULE("quanta", FE_RULE_COUNT, 1, 65535, NULL);
const struct fe_rule fe_rule_pfc_frames = RULE("frames", FE_RULE_COUNT, 0, 1, "0 or 1");
const struct fe_rule fe_rule_pfc_watchdog =
	RULE("watchdog", FE_RULE_TIME, 0, 10 * SEC, "0s (off) to 10s");
const struct fe_rule fe_rule_pfc_restore =
	RULE("restore", FE_RULE_TIME, 0, 10 * SEC, "0s (as long as the watchdog) to 10s");
const struct fe_rule fe_rule_credit_buffer =
	RULE("buffer", FE_RULE_SIZE, FE_CREDIT_UNIT_MIN, 64 * MIB,
	     "16B to 64MiB, one credit (unit) to 1048576 of them");
const struct fe_rule fe_rule_credit_unit =
	RULE("unit", FE_RULE_SIZE, FE_CREDIT_UNIT_MIN, FE_CREDIT_UNIT_MAX, NULL);
const struct fe_rule fe_rule_credit_return = RULE("return", FE_RULE_TIME, 0, SEC, NULL);
const struct fe_rule fe_rule_credit_hoq = RULE("hoq", FE_RULE_TIME, 0, 10 * SEC, "0s (off) to 10s");
const struct fe_rule fe_rule_credit_out = RULE("out", FE_RULE_COUNT, 1, 1U << 20, NULL);
const struct fe_rule fe_rule_credit_update =
	RULE("update", FE_RULE_SIZE, 0, 64 * MIB, "0 (each frame's credits) to 64MiB");
const struct fe_rule fe_rule_nic_g =
	RULE("g", FE_RULE_COUNT, 1, 65536, "1/N with N from 1 to 65536, e.g. 1/256");
const struct fe_rule fe_rule_nic_stages = RULE("stages", FE_RULE_COUNT, 1, 1000, NULL);
const struct fe_rule fe_rule_nic_cnp_interval = RULE("cnp-interval", FE_RULE_TIME, 0, SEC, NULL);
const struct fe_rule fe_rule_nic_alpha = RULE("alpha-period", FE_RULE_TIME, 1, SEC, NULL);
const struct fe_rule fe_rule_nic_timer = RULE("rate-period", FE_RULE_TIME, 1, SEC, NULL);
const struct fe_rule fe_rule_nic_bytes = RULE("rate-bytes", FE_RULE_SIZE, 64, 4 * GIB, NULL);
const struct fe_rule fe_rule_nic_ai =
	RULE("ai-rate", FE_RULE_RATE, FE_LINK_RATE_MIN, FE_LINK_RATE_MAX, NULL);
const struct fe_rule fe_rule_nic_hai =
	RULE("hai-rate", FE_RULE_RATE, FE_LINK_RATE_MIN, FE_LINK_RATE_MAX, NULL);
const struct fe_rule fe_rule_nic_min_rate =
	RULE("min-rate", FE_RULE_RATE, FE_LINK_RATE_MIN, FE_LINK_RATE_MAX, NULL);
const struct fe_rule fe_rule_nic_timeout =
	RULE("timeout", FE_RULE_TIME, 1000, 60 * SEC, "1us to 60s, or path");
/* a trimmed header: at least a minimum frame; at most 256 bytes, a few headers (on a
 * host's down link it takes none of the data's serializer time: docs/uec.md) */
const struct fe_rule fe_rule_nic_trim = RULE("trim", FE_RULE_SIZE, 60, 256, NULL);
const struct fe_rule fe_rule_nic_trim_dscp =
	RULE("trim-dscp", FE_RULE_COUNT, 0, 63, "0 to 63, or keep");
const struct fe_rule fe_rule_nic_rtt =
	RULE("rtt", FE_RULE_TIME, 0, 10 * SEC, "0 (the fabric's: docs/nic.md) or 1ns to 10s");
const struct fe_rule fe_rule_nic_window = RULE("window", FE_RULE_COUNT, 1, 4096, NULL);
const struct fe_rule fe_rule_nic_reps_freeze =
	RULE("reps-freeze", FE_RULE_TIME, 0, 10 * SEC, "0s (never frozen) to 10s");
/* the host's PCIe: any link rate; its backlog room for a jumbo frame at least, and at
 * most what the NIC's ready ring holds in frames of 512 bytes in 8 MiB a port */
const struct fe_rule fe_rule_nic_pcie =
	RULE0("pcie", FE_RULE_RATE, FE_LINK_RATE_MIN, FE_LINK_RATE_MAX,
	      "0 (not modelled), or 1kbit to 1Tbit");
const struct fe_rule fe_rule_nic_pcie_backlog =
	RULE0("pcie-backlog", FE_RULE_SIZE, 16 * KIB, 256 * MIB,
	      "0 (5MB, uet-htsim's) or 16KiB to 256MiB");
const struct fe_rule fe_rule_nic_ack_bytes =
	RULE("ack-bytes", FE_RULE_SIZE, 0, 16 * MIB,
	     "0 (each batch delivered) to 16MiB; uet-htsim's is 16KiB");
const struct fe_rule fe_rule_nic_reorder =
	RULE("reorder", FE_RULE_TIME, 0, SEC, "0s (a gap is reported at once) to 1s");
const struct fe_rule fe_rule_nic_ccti_increase = RULE("ccti-increase", FE_RULE_COUNT, 1, 127, NULL);
const struct fe_rule fe_rule_nic_ccti_limit = RULE("ccti-limit", FE_RULE_COUNT, 1, 16383, NULL);
const struct fe_rule fe_rule_nic_ccti_min = RULE("ccti-min", FE_RULE_COUNT, 0, 16383, NULL);
const struct fe_rule fe_rule_nic_ccti_timer = RULE("ccti-timer", FE_RULE_TIME, 1, SEC, NULL);
const struct fe_rule fe_rule_nic_cct_step =
	RULE("cct-step", FE_RULE_COUNT, 1, 1024, "1/N with N from 1 to 1024, e.g. 1/16");
const struct fe_rule fe_rule_hold = RULE("duration", FE_RULE_TIME, 0, 60 * SEC, NULL);
const struct fe_rule fe_rule_snaplen =
	RULE("snaplen", FE_RULE_COUNT, 0, 65535, "0 (whole packets) to 65535");

static const char *
fmt(const struct fe_rule *r, uint64_t v, char *buf, size_t len)
{
	if (r->kind == FE_RULE_TIME)
		return fe_fmt_time(v, buf, len);
	if (r->kind == FE_RULE_RATE)
		return fe_fmt_rate(v, buf, len);
	if (r->kind == FE_RULE_SIZE && v && v % GIB == 0)
		snprintf(buf, len, "%" PRIu64 "GiB", v / GIB);
	else if (r->kind == FE_RULE_SIZE && v && v % MIB == 0)
		snprintf(buf, len, "%" PRIu64 "MiB", v / MIB);
	else if (r->kind == FE_RULE_SIZE && v && v % KIB == 0)
		snprintf(buf, len, "%" PRIu64 "KiB", v / KIB);
	else
		snprintf(buf, len, "%" PRIu64 "%s", v, r->kind == FE_RULE_SIZE ? "B" : "");
	return buf;
}

const char *
fe_rule_allowed(const struct fe_rule *r, char *buf, size_t len)
{
	char lo[32], hi[32];

	if (r->allowed)
		snprintf(buf, len, "%s", r->allowed);
	else
		snprintf(buf, len, "%s to %s", fmt(r, r->min, lo, sizeof(lo)),
			 fmt(r, r->max, hi, sizeof(hi)));
	return buf;
}

static int
refuse(const struct fe_rule *r, const char *prefix, const char *v, char *err, size_t len)
{
	char allowed[96];

	snprintf(err, len, "%s%s '%s' (allowed: %s)", prefix, r->name, v,
		 fe_rule_allowed(r, allowed, sizeof(allowed)));
	return -EINVAL;
}

int
fe_rule_parse(const struct fe_rule *r, const char *prefix, const char *v, uint64_t *out, char *err,
	      size_t len)
{
	char e[200];
	uint64_t x;
	int rc;

	switch (r->kind) {
	case FE_RULE_SIZE:
		rc = fe_parse_size(v, &x, e, sizeof(e));
		break;
	case FE_RULE_TIME:
		rc = fe_parse_time(v, &x, e, sizeof(e));
		break;
	case FE_RULE_RATE:
		rc = fe_parse_rate(v, &x, e, sizeof(e));
		break;
	default:
		rc = fe_parse_uint(v, r->max, &x, e, sizeof(e));
		if (rc < 0) /* not a number, or above the maximum: say the range */
			return refuse(r, prefix, v, err, len);
	}
	if (rc < 0) {
		snprintf(err, len, "%s%s: %s", prefix, r->name, e);
		return -EINVAL;
	}
	if ((x < r->min && !(x == 0 && r->zero)) || x > r->max)
		return refuse(r, prefix, v, err, len);
	*out = x;
	return 0;
}

int
fe_rule_check(const struct fe_rule *r, const char *prefix, uint64_t v, char *err, size_t len)
{
	char text[32];

	if ((v >= r->min || (v == 0 && r->zero)) && v <= r->max)
		return 0;
	snprintf(text, sizeof(text), "%" PRIu64, v);
	return refuse(r, prefix, text, err, len);
}
