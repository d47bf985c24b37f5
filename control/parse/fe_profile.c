/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cyaml/cyaml.h>

#include "fe_linkspec.h"
#include "fe_pcie.h"
#include "fe_profile.h"
#include "fe_rules.h"
#include "fe_regimespec.h"
#include "fe_units.h"
#include "fe_yaml.h"

#ifndef FE_PROFILE_DIR
#define FE_PROFILE_DIR "/usr/share/fabemu/profiles"
#endif

/* ---- The document as libcyaml reads it: every value a string, parsed by us. ---- */

struct y_ecn {
	char *enabled, *kmin, *kmax, *pmax, *non_ect;
};

struct y_ge {
	char *p, *r, *loss_bad, *loss_good;
};

struct y_drop {
	char *first, *count;
};

struct y_link {
	char *select; /* only in links: entries */
	char *rate, *delay, *buffer, *buffer_pkts, *loss, *jitter, *llr, *match;
	struct y_ge *ge;
	struct y_ecn *ecn;
	struct y_drop *drop;
};

struct y_pfc {
	char *xoff, *xon, *headroom, *delay, *quanta, *frames, *watchdog, *wd_action, *restore;
};

struct y_credit {
	char *buffer, *unit, *ret, *hoq, *out, *update;
};

struct y_nic {
	char *model, *recovery, *cc, *g, *stages, *cnp_interval, *alpha_period, *rate_period,
		*rate_bytes, *ai_rate, *hai_rate, *min_rate, *timeout, *window, *reorder, *rtt,
		*ccti_increase, *ccti_limit, *ccti_min, *ccti_timer, *cct_step, *trim, *trim_dscp,
		*trim_queue, *oversub_cc, *sleek, *reps_freeze, *pcie, *pcie_backlog, *ack_bytes;
};

struct y_profile {
	char *name, *description, *regime, *lanes, *lane_map, *switch_buffer, *scale, *seed, *path;
	struct y_pfc *pfc;
	struct y_nic *nic;
	struct y_credit *credit;
	struct y_link *link;
	struct y_link *links;
	unsigned links_count;
};

#define STR(key, type, member)                                                                     \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_OPTIONAL, type, member, 0, FE_MATCH_LEN - 1)

static const cyaml_schema_field_t ecn_fields[] = {
	STR("enabled", struct y_ecn, enabled), STR("kmin", struct y_ecn, kmin),
	STR("kmax", struct y_ecn, kmax),       STR("pmax", struct y_ecn, pmax),
	STR("non-ect", struct y_ecn, non_ect), CYAML_FIELD_END,
};

static const cyaml_schema_field_t ge_fields[] = {
	STR("p", struct y_ge, p),
	STR("r", struct y_ge, r),
	STR("loss-bad", struct y_ge, loss_bad),
	STR("loss-good", struct y_ge, loss_good),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t drop_fields[] = {
	STR("first", struct y_drop, first),
	STR("count", struct y_drop, count),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t link_fields[] = {
	STR("select", struct y_link, select),
	STR("rate", struct y_link, rate),
	STR("delay", struct y_link, delay),
	STR("buffer", struct y_link, buffer),
	STR("buffer-pkts", struct y_link, buffer_pkts),
	STR("loss", struct y_link, loss),
	STR("jitter", struct y_link, jitter),
	STR("llr", struct y_link, llr),
	STR("match", struct y_link, match),
	CYAML_FIELD_MAPPING_PTR("gilbert-elliott", CYAML_FLAG_OPTIONAL, struct y_link, ge,
				ge_fields),
	CYAML_FIELD_MAPPING_PTR("ecn", CYAML_FLAG_OPTIONAL, struct y_link, ecn, ecn_fields),
	CYAML_FIELD_MAPPING_PTR("drop", CYAML_FLAG_OPTIONAL, struct y_link, drop, drop_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t link_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_link, link_fields),
};

static const cyaml_schema_field_t pfc_fields[] = {
	STR("xoff", struct y_pfc, xoff),	 STR("xon", struct y_pfc, xon),
	STR("headroom", struct y_pfc, headroom), STR("delay", struct y_pfc, delay),
	STR("quanta", struct y_pfc, quanta),	 STR("frames", struct y_pfc, frames),
	STR("watchdog", struct y_pfc, watchdog), STR("watchdog-action", struct y_pfc, wd_action),
	STR("restore", struct y_pfc, restore),	 CYAML_FIELD_END,
};

static const cyaml_schema_field_t credit_fields[] = {
	STR("buffer", struct y_credit, buffer),
	STR("unit", struct y_credit, unit),
	STR("return", struct y_credit, ret),
	STR("hoq", struct y_credit, hoq),
	STR("out", struct y_credit, out),
	STR("update", struct y_credit, update),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t nic_fields[] = {
	STR("model", struct y_nic, model),
	STR("recovery", struct y_nic, recovery),
	STR("cc", struct y_nic, cc),
	STR("g", struct y_nic, g),
	STR("stages", struct y_nic, stages),
	STR("cnp-interval", struct y_nic, cnp_interval),
	STR("alpha-period", struct y_nic, alpha_period),
	STR("rate-period", struct y_nic, rate_period),
	STR("rate-bytes", struct y_nic, rate_bytes),
	STR("ai-rate", struct y_nic, ai_rate),
	STR("hai-rate", struct y_nic, hai_rate),
	STR("min-rate", struct y_nic, min_rate),
	STR("timeout", struct y_nic, timeout),
	STR("window", struct y_nic, window),
	STR("reorder", struct y_nic, reorder),
	STR("rtt", struct y_nic, rtt),
	STR("ccti-increase", struct y_nic, ccti_increase),
	STR("ccti-limit", struct y_nic, ccti_limit),
	STR("ccti-min", struct y_nic, ccti_min),
	STR("ccti-timer", struct y_nic, ccti_timer),
	STR("cct-step", struct y_nic, cct_step),
	STR("trim", struct y_nic, trim),
	STR("trim-dscp", struct y_nic, trim_dscp),
	STR("trim-queue", struct y_nic, trim_queue),
	STR("oversub-cc", struct y_nic, oversub_cc),
	STR("sleek", struct y_nic, sleek),
	STR("reps-freeze", struct y_nic, reps_freeze),
	STR("pcie", struct y_nic, pcie),
	STR("pcie-backlog", struct y_nic, pcie_backlog),
	STR("ack-bytes", struct y_nic, ack_bytes),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t profile_fields[] = {
	STR("name", struct y_profile, name),
	STR("description", struct y_profile, description),
	STR("regime", struct y_profile, regime),
	STR("lanes", struct y_profile, lanes),
	STR("lane-map", struct y_profile, lane_map),
	STR("switch-buffer", struct y_profile, switch_buffer),
	STR("scale", struct y_profile, scale),
	STR("seed", struct y_profile, seed),
	STR("path", struct y_profile, path),
	CYAML_FIELD_MAPPING_PTR("pfc", CYAML_FLAG_OPTIONAL, struct y_profile, pfc, pfc_fields),
	CYAML_FIELD_MAPPING_PTR("credit", CYAML_FLAG_OPTIONAL, struct y_profile, credit,
				credit_fields),
	CYAML_FIELD_MAPPING_PTR("nic", CYAML_FLAG_OPTIONAL, struct y_profile, nic, nic_fields),
	CYAML_FIELD_MAPPING_PTR("link", CYAML_FLAG_OPTIONAL, struct y_profile, link, link_fields),
	CYAML_FIELD_SEQUENCE("links", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_profile,
			     links, &link_entry, 0, FE_PROFILE_OVERRIDES),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t profile_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct y_profile, profile_fields),
};

/* Known keys by mapping, for "unknown key" messages. */
static const struct fe_yaml_known known_keys[] = {
	{"", "name, description, regime, lanes, lane-map, switch-buffer, scale, seed, path, "
	     "pfc, credit, nic, link, links"},
	{"nic", FE_NIC_KNOWN},
	{"pfc", FE_PFC_KNOWN},
	{"credit", FE_CREDIT_KNOWN},
	{"ecn", "enabled, kmin, kmax, pmax, non-ect"},
	{"gilbert-elliott", "p, r, loss-bad, loss-good"},
	{"drop", "first, count"},
	{"link", "rate, delay, buffer, buffer-pkts, loss, gilbert-elliott, ecn, jitter, drop, "
		 "llr, match"},
	{"links", "select, rate, delay, buffer, buffer-pkts, loss, gilbert-elliott, ecn, jitter, "
		  "drop, llr, match"},
	{NULL, NULL},
};

/* ---- One function a key ---- */

/* Set a link key through the shared link-spec setters, with the line of path. */
static int
link_key(struct fe_yaml *c, struct fe_linkdef *d, const char *path, const char *key, const char *v,
	 char *spec, size_t speclen)
{
	const char *dot = strrchr(path, '.');
	char e[400];

	if (v == NULL)
		return 0;
	/* the setters' messages start with the key: put the mapping it is in first */
	if (fe_link_param_set(d, key, v, e, sizeof(e)) < 0)
		return fe_yaml_fail(c, path, "%.*s.%s", (int)(dot ? dot - path : 0), path, e);
	if (spec && strcmp(key, "match") != 0) /* match goes last: it may hold commas */
		snprintf(spec + strlen(spec), speclen - strlen(spec), "%s%s=%s", spec[0] ? "," : "",
			 key, v);
	return 0;
}

/* ecn: {enabled, kmin, kmax, pmax, non-ect} -> the link spec form KMIN/KMAX/PMAX[/drop]. */
static int
ecn_spec(struct fe_yaml *c, const char *at, const struct y_ecn *y, char *out, size_t len)
{
	char path[96], e[128];
	int on = 1;

	snprintf(path, sizeof(path), "%s.ecn", at);
	if (y->enabled && fe_parse_onoff(y->enabled, &on, e, sizeof(e)) < 0)
		return fe_yaml_fail(c, path, "ecn.enabled %s", e);
	if (!on) {
		snprintf(out, len, "off");
		return 0;
	}
	if (y->kmin == NULL || y->kmax == NULL)
		return fe_yaml_fail(c, path, "ecn: kmin and kmax are required (sizes, e.g. 20KiB)");
	if (y->non_ect && strcmp(y->non_ect, "pass") && strcmp(y->non_ect, "drop"))
		return fe_yaml_fail(c, path, "ecn.non-ect '%s' (allowed: pass, drop)", y->non_ect);
	snprintf(out, len, "%s/%s/%s%s", y->kmin, y->kmax, y->pmax ? y->pmax : "100%",
		 y->non_ect && strcmp(y->non_ect, "drop") == 0 ? "/drop" : "");
	return 0;
}

static int
ge_spec(struct fe_yaml *c, const char *at, const struct y_ge *y, char *out, size_t len)
{
	char path[96];

	snprintf(path, sizeof(path), "%s.gilbert-elliott", at);
	if (y->p == NULL || y->r == NULL)
		return fe_yaml_fail(c, path,
				    "gilbert-elliott: p and r are required (e.g. p: 1%%, r: 30%%)");
	snprintf(out, len, "%s/%s/%s/%s", y->p, y->r, y->loss_bad ? y->loss_bad : "100%",
		 y->loss_good ? y->loss_good : "0%");
	return 0;
}

static int
drop_spec(struct fe_yaml *c, const char *at, const struct y_drop *y, char *out, size_t len)
{
	char path[96];

	snprintf(path, sizeof(path), "%s.drop", at);
	if (y->first == NULL)
		return fe_yaml_fail(c, path,
				    "drop: first is required (the k-th matching packet, from 1)");
	snprintf(out, len, "%s/%s", y->first, y->count ? y->count : "1");
	return 0;
}

/* Every key of one link mapping at path `at`, onto d; spec (if not NULL) gets k=v,... */
static int
link_map(struct fe_yaml *c, const struct y_link *y, const char *at, struct fe_linkdef *d,
	 char *spec, size_t speclen)
{
	static const char *keys[] = {"rate", "delay",  "buffer", "buffer-pkts",
				     "loss", "jitter", "llr"};
	const char *vals[] = {y->rate, y->delay,  y->buffer, y->buffer_pkts,
			      y->loss, y->jitter, y->llr};
	char path[96], v[160];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(path, sizeof(path), "%s.%s", at, keys[i]);
		if (link_key(c, d, path, keys[i], vals[i], spec, speclen) < 0)
			return -EINVAL;
	}
	if (y->ge && (ge_spec(c, at, y->ge, v, sizeof(v)) < 0 ||
		      link_key(c, d, strcat(strcpy(path, at), ".gilbert-elliott"), "ge", v, spec,
			       speclen) < 0))
		return -EINVAL;
	if (y->ecn &&
	    (ecn_spec(c, at, y->ecn, v, sizeof(v)) < 0 ||
	     link_key(c, d, strcat(strcpy(path, at), ".ecn"), "ecn", v, spec, speclen) < 0))
		return -EINVAL;
	if (y->drop &&
	    (drop_spec(c, at, y->drop, v, sizeof(v)) < 0 ||
	     link_key(c, d, strcat(strcpy(path, at), ".drop"), "drop", v, spec, speclen) < 0))
		return -EINVAL;
	if (y->match) {
		if (link_key(c, d, strcat(strcpy(path, at), ".match"), "match", y->match, NULL, 0) <
		    0)
			return -EINVAL;
		if (spec)
			snprintf(spec + strlen(spec), speclen - strlen(spec), "%smatch=%s",
				 spec[0] ? "," : "", y->match);
	}
	return 0;
}

/* pfc: and credit: go through the command line's key tables, one key at a time. */
static int
regime_key(struct fe_yaml *c, const char *sect, const char *key, const char *v, struct fe_fabric *f)
{
	char e[400], path[64], prefix[16];

	if (v == NULL)
		return 0;
	snprintf(path, sizeof(path), "%s.%s", sect, key);
	snprintf(prefix, sizeof(prefix), "%s.", sect);
	if (strcmp(sect, "pfc") == 0 && strcmp(key, "frames") == 0) {
		int b;

		if (fe_parse_onoff(v, &b, e, sizeof(e)) < 0)
			return fe_yaml_fail(c, path, "pfc.frames %s", e);
		f->pfc.frames = (uint32_t)b;
		return 0;
	}
	/* one key at a time; the rules across keys come in finish(), once all are read */
	if ((strcmp(sect, "pfc") == 0
		     ? fe_pfc_key(key, v, &f->pfc, prefix, e, sizeof(e))
		     : fe_credit_key(key, v, &f->credit, prefix, e, sizeof(e))) < 0)
		return fe_yaml_fail(c, path, "%s", e);
	return 0;
}

static int
top_keys(struct fe_yaml *c, const struct y_profile *y, struct fe_profile *p)
{
	uint64_t x;

	if (y->name == NULL)
		return fe_yaml_fail(c, "", "the profile needs a name (name: ...)");
	snprintf(p->name, sizeof(p->name), "%s", y->name);
	if (y->description)
		snprintf(p->description, sizeof(p->description), "%s", y->description);
	if (y->regime && fe_regime_parse(y->regime, &p->fabric.regime) < 0)
		return fe_yaml_fail(c, "regime", "regime '%s' (allowed: " FE_REGIME_ALLOWED ")",
				    y->regime);
	if (y->lane_map && fe_lane_map_parse(y->lane_map, &p->fabric.lane_map) < 0)
		return fe_yaml_fail(c, "lane-map",
				    "lane-map '%s' (allowed: " FE_LANE_MAP_ALLOWED ")",
				    y->lane_map);
	if (y->lanes) {
		if (fe_yaml_rule(c, "lanes", &fe_rule_lanes, y->lanes, &x) < 0)
			return -EINVAL;
		p->fabric.lanes = (uint8_t)x;
	}
	if (y->scale) {
		if (fe_yaml_rule(c, "scale", &fe_rule_scale, y->scale, &x) < 0)
			return -EINVAL;
		p->scale = (uint32_t)x;
	}
	if (y->seed) {
		if (fe_yaml_rule(c, "seed", &fe_rule_seed, y->seed, &p->seed) < 0)
			return -EINVAL;
		p->seed_set = 1;
	}
	if (y->switch_buffer && fe_yaml_rule(c, "switch-buffer", &fe_rule_switch_buffer,
					     y->switch_buffer, &p->fabric.switch_buffer) < 0)
		return -EINVAL;
	if (y->path) { /* the switches' path choice on a topology of several (fe_path.h) */
		if (fe_path_parse(y->path, &p->path) < 0)
			return fe_yaml_fail(c, "path", "path '%s' (allowed: " FE_PATH_ALLOWED ")",
					    y->path);
		p->path_set = 1;
	}
	return 0;
}

/* nic: goes through --nic's key table, one key at a time. */
static int
nic_section(struct fe_yaml *c, const struct y_nic *y, struct fe_nic_params *n)
{
	const struct {
		const char *key, *v;
	} kv[] = {
		{"model", y ? y->model : NULL},
		{"recovery", y ? y->recovery : NULL},
		{"cc", y ? y->cc : NULL},
		{"g", y ? y->g : NULL},
		{"stages", y ? y->stages : NULL},
		{"cnp-interval", y ? y->cnp_interval : NULL},
		{"alpha-period", y ? y->alpha_period : NULL},
		{"rate-period", y ? y->rate_period : NULL},
		{"rate-bytes", y ? y->rate_bytes : NULL},
		{"ai-rate", y ? y->ai_rate : NULL},
		{"hai-rate", y ? y->hai_rate : NULL},
		{"min-rate", y ? y->min_rate : NULL},
		{"timeout", y ? y->timeout : NULL},
		{"window", y ? y->window : NULL},
		{"reorder", y ? y->reorder : NULL},
		{"rtt", y ? y->rtt : NULL},
		{"ccti-increase", y ? y->ccti_increase : NULL},
		{"ccti-limit", y ? y->ccti_limit : NULL},
		{"ccti-min", y ? y->ccti_min : NULL},
		{"ccti-timer", y ? y->ccti_timer : NULL},
		{"cct-step", y ? y->cct_step : NULL},
		{"trim", y ? y->trim : NULL},
		{"trim-dscp", y ? y->trim_dscp : NULL},
		{"trim-queue", y ? y->trim_queue : NULL},
		{"reps-freeze", y ? y->reps_freeze : NULL},
		{"oversub-cc", y ? y->oversub_cc : NULL},
		{"sleek", y ? y->sleek : NULL},
		{"pcie", y ? y->pcie : NULL},
		{"pcie-backlog", y ? y->pcie_backlog : NULL},
		{"ack-bytes", y ? y->ack_bytes : NULL},
	};
	char e[400], path[64];
	const char *key = "cc";

	for (size_t i = 0; y && i < sizeof(kv) / sizeof(kv[0]); i++) {
		if (kv[i].v == NULL)
			continue;
		snprintf(path, sizeof(path), "nic.%s", kv[i].key);
		if (fe_nic_key(kv[i].key, kv[i].v, n, "nic.", e, sizeof(e)) < 0)
			return fe_yaml_fail(c, path, "%s", e);
	}
	if (fe_nic_check(n, "nic.", e, sizeof(e), &key) < 0) { /* at the key it names */
		snprintf(path, sizeof(path), "nic.%s", key);
		return fe_yaml_fail(c, path, "%s", e);
	}
	return 0;
}

static int
regime_sections(struct fe_yaml *c, const struct y_profile *y, struct fe_profile *p)
{
	const struct y_pfc *f = y->pfc;
	const struct y_credit *r = y->credit;

	if (f && (regime_key(c, "pfc", "xoff", f->xoff, &p->fabric) < 0 ||
		  regime_key(c, "pfc", "xon", f->xon, &p->fabric) < 0 ||
		  regime_key(c, "pfc", "headroom", f->headroom, &p->fabric) < 0 ||
		  regime_key(c, "pfc", "delay", f->delay, &p->fabric) < 0 ||
		  regime_key(c, "pfc", "quanta", f->quanta, &p->fabric) < 0 ||
		  regime_key(c, "pfc", "frames", f->frames, &p->fabric) < 0 ||
		  regime_key(c, "pfc", "watchdog", f->watchdog, &p->fabric) < 0 ||
		  regime_key(c, "pfc", "watchdog-action", f->wd_action, &p->fabric) < 0 ||
		  regime_key(c, "pfc", "restore", f->restore, &p->fabric) < 0))
		return -EINVAL;
	if (r && (regime_key(c, "credit", "buffer", r->buffer, &p->fabric) < 0 ||
		  regime_key(c, "credit", "unit", r->unit, &p->fabric) < 0 ||
		  regime_key(c, "credit", "return", r->ret, &p->fabric) < 0 ||
		  regime_key(c, "credit", "hoq", r->hoq, &p->fabric) < 0 ||
		  regime_key(c, "credit", "out", r->out, &p->fabric) < 0 ||
		  regime_key(c, "credit", "update", r->update, &p->fabric) < 0))
		return -EINVAL;
	return nic_section(c, y->nic, &p->fabric.nic);
}

static int
links_section(struct fe_yaml *c, const struct y_profile *y, struct fe_profile *p)
{
	char at[32], e[300];

	if (y->link) {
		if (y->link->select)
			return fe_yaml_fail(
				c, "link.select",
				"link: 'select' belongs in entries of links:, not in link:");
		if (link_map(c, y->link, "link", &p->link, NULL, 0) < 0)
			return -EINVAL;
		p->buffer_set = y->link->buffer || y->link->buffer_pkts;
	}
	for (unsigned i = 0; i < y->links_count; i++) {
		struct fe_profile_override *o = &p->over[p->noverrides++];
		const struct y_link *l = &y->links[i];
		struct fe_linkdef scratch = p->link, dn = p->link;
		long port;
		int dirs;

		snprintf(at, sizeof(at), "links.%u", i);
		if (l->select == NULL)
			return fe_yaml_fail(c, at,
					    "links.%u: 'select' is required (all, up, down, "
					    "N, N.up or N.down)",
					    i);
		if (fe_linkspec_select(l->select, 4096, &port, &dirs, e, sizeof(e)) < 0)
			return fe_yaml_fail(c, strcat(at, ".select"), "%s", e);
		snprintf(o->select, sizeof(o->select), "%s", l->select);
		o->line = fe_yaml_line(c, at);
		if (link_map(c, l, at, &scratch, o->spec, sizeof(o->spec)) < 0)
			return -EINVAL;
		(void)dn;
	}
	return 0;
}

/* Rules across keys, once every key is read: one rule, one message. */
static int
finish(struct fe_yaml *c, struct fe_profile *p)
{
	const struct fe_fabric *f = &p->fabric;
	const char *key = "update";
	char e[300], at[32];

	/* the same rules across keys as --pfc and `set pfc` (fe_regimespec.h) */
	if (fe_pfc_check(&f->pfc, "pfc.", e, sizeof(e)) < 0)
		return fe_yaml_fail(c, "pfc.xon", "%s", e);
	if (fe_credit_check(&f->credit, "credit.", e, sizeof(e), &key) < 0) {
		snprintf(at, sizeof(at), "credit.%s", key);
		return fe_yaml_fail(c, at, "%s", e);
	}
	/* regime sections that the regime does not use are a mistake, not a no-op */
	if (f->regime != FE_REGIME_PFC && fe_yaml_line(c, "pfc"))
		return fe_yaml_fail(c, "pfc",
				    "pfc: section given but regime is %s (set regime: pfc)",
				    fe_regime_name(f->regime));
	if (f->regime != FE_REGIME_CREDIT && fe_yaml_line(c, "credit"))
		return fe_yaml_fail(c, "credit",
				    "credit: section given but regime is %s (set regime: credit)",
				    fe_regime_name(f->regime));
	return 0;
}

int
fe_profile_parse(const char *text, size_t len, const char *source, struct fe_profile *p, char *err,
		 size_t errlen)
{
	struct fe_yaml c = {.text = text,
			    .len = len,
			    .source = source,
			    .err = err,
			    .errlen = errlen,
			    .known = known_keys};
	struct y_profile *y = NULL;
	int rc = -EINVAL;

	*p = (struct fe_profile){
		.scale = 1,
		.fabric = FE_FABRIC_DEFAULT,
		.link = {.link = {.limit_bytes = 1 << 20, .limit_pkts = 1000}},
	};
	snprintf(p->source, sizeof(p->source), "%s", source);
	if (fe_yaml_load(&c, &profile_schema, FE_PROFILE_MAX_BYTES, (void **)&y) < 0)
		return -EINVAL;
	if (top_keys(&c, y, p) == 0 && regime_sections(&c, y, p) == 0 &&
	    links_section(&c, y, p) == 0 && finish(&c, p) == 0)
		rc = 0;
	fe_yaml_free(&profile_schema, y);
	return rc;
}

/* A bare name (letters, digits, '-', '_') is looked up; anything else is a path. */
static int
is_name(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '-' && *s != '_')
			return 0;
	return 1;
}

int
fe_yaml_find(const char *what, const char *env, const char *sub, const char *dir, const char *name,
	     char *path, size_t len, char *err, size_t errlen)
{
	const char *e = getenv(env);
	char dirs[1024], *save = NULL;
	struct stat st;

	if (!is_name(name)) {
		snprintf(path, len, "%s", name);
		return 0;
	}
	snprintf(dirs, sizeof(dirs), "%s%s./%s:%s:/usr/share/fabemu/%s", e ? e : "", e ? ":" : "",
		 sub, dir, sub);
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, len, "%s/%s.yaml", d, name);
		if (stat(path, &st) == 0)
			return 0;
	}
	snprintf(err, errlen, "%s '%s' not found (looked for %s.yaml in $%s, ./%s, %s)", what, name,
		 name, env, sub, dir);
	return -ENOENT;
}

int
fe_profile_find(const char *name, char *path, size_t len, char *err, size_t errlen)
{
	return fe_yaml_find("profile", "FABEMU_PROFILES", "profiles", FE_PROFILE_DIR, name, path,
			    len, err, errlen);
}

char *
fe_profile_read(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	char *buf;
	size_t n;

	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		snprintf(err, errlen, "%s: a directory, not a file", path);
		return NULL;
	}
	buf = malloc(FE_PROFILE_MAX_BYTES + 2);
	if (buf == NULL) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	n = fread(buf, 1, FE_PROFILE_MAX_BYTES + 1, f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (n > FE_PROFILE_MAX_BYTES) {
		free(buf);
		snprintf(err, errlen, "%s: larger than %u bytes", path, FE_PROFILE_MAX_BYTES);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

int
fe_profile_load(const char *name, struct fe_profile *p, char *err, size_t errlen)
{
	char path[512];
	size_t len;
	char *text;
	int rc;

	if (fe_profile_find(name, path, sizeof(path), err, errlen) < 0)
		return -ENOENT;
	text = fe_profile_read(path, &len, err, errlen);
	if (text == NULL)
		return -EIO;
	rc = fe_profile_parse(text, len, path, p, err, errlen);
	free(text);
	return rc;
}

/* ---- Expansion and dilation ---- */

int
fe_profile_dilate(struct fe_linkdef *d, uint32_t scale, const char *name, char *err, size_t errlen)
{
	char r[32];

	if (d->link.rate_bps) {
		uint64_t rate = d->link.rate_bps / scale;

		if (rate < FE_LINK_RATE_MIN) {
			snprintf(err, errlen, "%s: rate %s at scale %u is below 1kbit", name,
				 fe_fmt_rate(d->link.rate_bps, r, sizeof(r)), scale);
			return -ERANGE;
		}
		d->link.rate_bps = rate;
	}
	d->link.delay_ns *= scale;
	d->link.jitter_ns *= scale;
	if (d->link.delay_ns > FE_LINK_DELAY_MAX || d->link.jitter_ns > FE_LINK_DELAY_MAX) {
		snprintf(err, errlen, "%s: delay or jitter at scale %u is above 10s", name, scale);
		return -ERANGE;
	}
	return 0;
}

int
fe_profile_expand(const struct fe_profile *p, uint32_t scale, unsigned nports,
		  struct fe_linkdef *up, struct fe_linkdef *down, struct fe_fabric *fab, char *err,
		  size_t errlen)
{
	char e[400], name[32];

	if (scale == 0)
		scale = p->scale;
	if (fe_rule_check(&fe_rule_scale, "", scale, err, errlen) < 0)
		return -EINVAL;
	*fab = p->fabric;
	for (unsigned i = 0; i < nports; i++) {
		up[i] = down[i] = p->link;
		if (!p->buffer_set) {
			fe_regime_up_buffer(fab->regime, &up[i].link);
			fe_regime_egress_buffer(fab->regime, &down[i].link);
		}
	}
	for (unsigned i = 0; i < p->noverrides; i++) {
		const struct fe_profile_override *o = &p->over[i];
		char spec[FE_PROFILE_SPEC_LEN + 40];

		snprintf(spec, sizeof(spec), "%s:%s", o->select, o->spec);
		if (fe_linkspec_apply(spec, up, down, nports, e, sizeof(e)) < 0) {
			snprintf(err, errlen, "%s:%u: links.%u: %s (the fabric has %u ports)",
				 p->source, o->line, i, e, nports);
			return -EINVAL;
		}
	}
	for (unsigned i = 0; i < nports; i++) /* each port's up link, then its down */
		for (int down_link = 0; down_link < 2; down_link++) {
			snprintf(name, sizeof(name), "link %u.%s", i, down_link ? "down" : "up");
			if (fe_profile_dilate(down_link ? &down[i] : &up[i], scale, name, err,
					      errlen) < 0)
				return -ERANGE;
		}
	fab->pfc.delay_ns *= scale;
	fab->pfc.watchdog_ns *= scale;
	fab->pfc.restore_ns *= scale;
	fab->credit.return_ns *= scale;
	fab->credit.hoq_life_ns *= scale;
	fe_nic_scale(&fab->nic, scale);
	return 0;
}

int
fe_profile_fabric(const struct fe_profile *p, uint32_t scale, struct fe_linkdef *def, char *err,
		  size_t errlen)
{
	static const char name[1][80] = {"fabric"}, lname[1][72] = {"fabric"};
	struct fe_fabric_links fab = {.n = 1, .def = def, .dir = name, .link = lname};
	char e[400];

	if (scale == 0)
		scale = p->scale;
	*def = p->link;
	if (!p->buffer_set)
		fe_regime_egress_buffer(p->fabric.regime, &def->link);
	for (unsigned i = 0; i < p->noverrides; i++) {
		const struct fe_profile_override *o = &p->over[i];
		char spec[FE_PROFILE_SPEC_LEN + 40];

		if (strcmp(o->select, "all") != 0 && strcmp(o->select, "fabric") != 0)
			continue; /* a host's links (up, down, N...): not the fabric's */
		snprintf(spec, sizeof(spec), "%s:%s", o->select, o->spec);
		if (fe_linkspec_apply_fabric(spec, NULL, NULL, 0, &fab, e, sizeof(e)) < 0) {
			snprintf(err, errlen, "%s:%u: links.%u: %s", p->source, o->line, i, e);
			return -EINVAL;
		}
	}
	return fe_profile_dilate(def, scale, "the links between switches", err, errlen) < 0
		       ? -ERANGE
		       : 0;
}

/* ---- Printing ---- */

static char *
fmt_pct(double p, char *buf, size_t len)
{
	snprintf(buf, len, "%.6g%%", p * 100);
	return buf;
}

char *
fe_profile_fmt_link(const struct fe_linkdef *d, char *buf, size_t len)
{
	char r[32], t[32], a[32], b[32], x[32];
	size_t o;

	o = (size_t)snprintf(buf, len, "rate %s delay %s buffer",
			     fe_fmt_rate(d->link.rate_bps, r, sizeof(r)),
			     fe_fmt_time(d->link.delay_ns, t, sizeof(t)));
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (o < len)                                                                       \
			o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__);                      \
	} while (0)
	/* each limit only if it is one (0: none): bytes alone (PFC's egress), packets alone
	 * (the ideal profile), both, or none */
	if (d->link.limit_bytes)
		ADD(" %" PRIu64 "B", d->link.limit_bytes);
	if (d->link.limit_pkts)
		ADD("%s%upkts", d->link.limit_bytes ? "/" : " ", d->link.limit_pkts);
	if (!d->link.limit_bytes && !d->link.limit_pkts)
		ADD(" none");
	if (d->link.rate_bps && d->link.delay_ns)
		ADD(" bdp %" PRIu64 "B", (uint64_t)((unsigned __int128)d->link.rate_bps *
						    d->link.delay_ns / 8000000000ULL));
	if (d->loss.kind == FE_LOSS_BERNOULLI)
		ADD(" loss %s", fmt_pct(d->loss.p, a, sizeof(a)));
	else if (d->loss.kind == FE_LOSS_GE)
		ADD(" ge p=%s r=%s bad=%s good=%s", fmt_pct(d->loss.p, a, sizeof(a)),
		    fmt_pct(d->loss.r, b, sizeof(b)), fmt_pct(d->loss.loss_bad, x, sizeof(x)),
		    fmt_pct(d->loss.loss_good, r, sizeof(r)));
	if (d->ecn.enabled)
		ADD(" ecn %" PRIu64 "B/%" PRIu64 "B/%s%s", d->ecn.kmin, d->ecn.kmax,
		    fmt_pct(d->ecn.pmax, a, sizeof(a)), d->ecn.drop_non_ect ? "/drop" : "");
	if (d->link.jitter_ns)
		ADD(" jitter %s", fe_fmt_time(d->link.jitter_ns, t, sizeof(t)));
	if (d->drop_count)
		ADD(" drop %" PRIu64 "/%" PRIu64, d->drop_first, d->drop_count);
	if (d->llr)
		ADD(" llr");
	if (d->match[0])
		ADD(" match '%s'", d->match);
#undef ADD
	return buf;
}

void
fe_profile_print_fabric(FILE *f, const struct fe_fabric *fab)
{
	char t[32], u[32], v[64];

	fprintf(f, "regime %s\nlanes %u\nlane-map %s\nswitch-buffer %" PRIu64 "B\n",
		fe_regime_name(fab->regime), fab->lanes, fe_lane_map_name(fab->lane_map),
		fab->switch_buffer);
	if (fab->regime == FE_REGIME_PFC)
		fprintf(f,
			"pfc xoff %" PRIu64 "B xon %" PRIu64 "B headroom %s delay %s quanta %u "
			"frames %s\n",
			fab->pfc.xoff, fab->pfc.xon,
			fab->pfc.headroom
				? (snprintf(u, sizeof(u), "%" PRIu64 "B", fab->pfc.headroom), u)
				: "auto",
			fab->pfc.delay_ns ? fe_fmt_time(fab->pfc.delay_ns, t, sizeof(t)) : "auto",
			fab->pfc.quanta, fab->pfc.frames ? "on" : "off");
	if (fab->regime == FE_REGIME_PFC && fab->pfc.watchdog_ns)
		fprintf(f, "pfc watchdog %s action %s restore %s\n",
			fe_fmt_time(fab->pfc.watchdog_ns, t, sizeof(t)),
			fe_pfc_wd_action_name(fab->pfc.watchdog_action),
			fe_fmt_time(fab->pfc.restore_ns ? fab->pfc.restore_ns
							: fab->pfc.watchdog_ns,
				    u, sizeof(u)));
	if (fab->regime == FE_REGIME_CREDIT) {
		const uint32_t unit = fe_credit_unit_of(fab->credit.unit).bytes;
		const uint64_t blocks = fe_credit_total(fab->credit.buffer, fab->credit.unit);
		char held[48] = "";

		if (blocks * unit != fab->credit.buffer) /* rounded down to whole units */
			snprintf(held, sizeof(held), ": %" PRIu64 "B", blocks * unit);
		fprintf(f,
			"credit buffer %" PRIu64 "B (%" PRIu64
			" block%s of %uB%s) return %s hoq %s "
			"out %u update %s\n",
			fab->credit.buffer, blocks, blocks == 1 ? "" : "s", unit, held,
			fe_fmt_time(fab->credit.return_ns, t, sizeof(t)),
			fab->credit.hoq_life_ns ? fe_fmt_time(fab->credit.hoq_life_ns, u, sizeof(u))
						: "off",
			fab->credit.out_pkts,
			fe_credit_update_blocks(fab->credit.update, fab->credit.unit)
				? (snprintf(v, sizeof(v), "%" PRIu64 "B (%u blocks)",
					    fab->credit.update,
					    fe_credit_update_blocks(fab->credit.update,
								    fab->credit.unit)),
				   v)
				: "each-frame");
	}
	if (fab->nic.model != FE_NIC_TCP) {
		const struct fe_nic_params *n = &fab->nic;
		char a[32], b[32], c[32], d[32], e[32];

		fprintf(f, "nic %s recovery %s window %u timeout %s", fe_nic_model_name(n->model),
			fe_nic_recovery_name(fe_nic_recovery(n)), n->window,
			n->timeout_path ? "path" : fe_fmt_time(n->timeout_ns, t, sizeof(t)));
		if (n->reorder_ns)
			fprintf(f, " reorder %s", fe_fmt_time(n->reorder_ns, u, sizeof(u)));
		if (fe_nic_cc(n) == FE_CC_IB)
			fprintf(f,
				" ibcc ccti-increase %u ccti-limit %u ccti-min %u ccti-timer %s "
				"cct-step 1/%u",
				n->ccti_increase, n->ccti_limit, n->ccti_min,
				fe_fmt_time(n->ccti_timer_ns, u, sizeof(u)), n->cct_den);
		else if (fe_nic_cc(n) == FE_CC_DCQCN)
			fprintf(f,
				" dcqcn g 1/%u cnp-interval %s alpha-period %s rate-period %s "
				"rate-bytes %" PRIu64
				"B stages %u ai-rate %s hai-rate %s min-rate %s",
				n->g_den, fe_fmt_time(n->cnp_interval_ns, u, sizeof(u)),
				fe_fmt_time(n->alpha_ns, a, sizeof(a)),
				fe_fmt_time(n->timer_ns, b, sizeof(b)), n->bytes, n->stages,
				fe_fmt_rate(n->ai_bps, c, sizeof(c)),
				fe_fmt_rate(n->hai_bps, d, sizeof(d)),
				fe_fmt_rate(n->min_bps, e, sizeof(e)));
		else if (fe_nic_cc_nscc(fe_nic_cc(n)) || fe_nic_cc_rccc(fe_nic_cc(n)))
			fprintf(f, " %s rtt %s%s%s%s", fe_nic_cc_name(fe_nic_cc(n)),
				n->rtt_ns ? fe_fmt_time(n->rtt_ns, u, sizeof(u)) : "the fabric's",
				fe_nic_cc_rccc(fe_nic_cc(n)) ? " oversub-cc " : "",
				fe_nic_cc_rccc(fe_nic_cc(n)) ? fe_nic_occ_name(n->oversub_cc) : "",
				n->model != FE_NIC_UEC || !fe_nic_cc_nscc(fe_nic_cc(n)) ? ""
				: n->sleek_off ? " sleek off"
					       : " sleek on");
		else
			fprintf(f, " cc off");
		if (n->model == FE_NIC_UEC && n->trim_dscp == FE_NIC_DSCP_KEEP)
			fprintf(f, " trim %uB dscp kept", n->trim_bytes);
		else if (n->model == FE_NIC_UEC)
			fprintf(f, " trim %uB dscp %u", n->trim_bytes, n->trim_dscp);
		if (n->model == FE_NIC_UEC)
			fprintf(f, " queue %s", fe_nic_trimq_name(n->trim_queue));
		if (n->model == FE_NIC_UEC)
			fprintf(f, " reps-freeze %s",
				n->reps_freeze_ns ? fe_fmt_time(n->reps_freeze_ns, u, sizeof(u))
						  : "off");
		if (n->model == FE_NIC_UEC && n->pcie_bps)
			fprintf(f, " pcie %s backlog %" PRIu64 "B",
				fe_fmt_rate(n->pcie_bps, c, sizeof(c)),
				fe_pcie_limit(n->pcie_backlog));
		if (n->model == FE_NIC_UEC && n->ack_bytes)
			fprintf(f, " ack-bytes %" PRIu64 "B", n->ack_bytes);
		else if (n->model == FE_NIC_UEC)
			fprintf(f, " ack-bytes each-batch");
		fputc('\n', f);
	}
}
