/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fe_regimespec.h"
#include "fe_units.h"

enum kind { SIZE, TIME, COUNT };

struct key {
	const char *name;
	enum kind kind;
	size_t off; /* of a uint64_t or uint32_t field */
	int is32;
	uint64_t max;
};

static int
set_key(void *obj, const struct key *k, const char *v, char *err, size_t len)
{
	char e[200];
	uint64_t x;
	int rc;

	if (k->kind == SIZE)
		rc = fe_parse_size(v, &x, e, sizeof(e));
	else if (k->kind == TIME)
		rc = fe_parse_time(v, &x, e, sizeof(e));
	else
		rc = fe_parse_uint(v, k->max, &x, e, sizeof(e));
	if (rc == 0 && x > k->max) {
		snprintf(e, sizeof(e), "'%s' is above the maximum %llu", v,
			 (unsigned long long)k->max);
		rc = -EINVAL;
	}
	if (rc < 0) {
		snprintf(err, len, "%s: %s", k->name, e);
		return -EINVAL;
	}
	if (k->is32)
		*(uint32_t *)((char *)obj + k->off) = (uint32_t)x;
	else
		*(uint64_t *)((char *)obj + k->off) = x;
	return 0;
}

/* "k=v,k=v" against a key table; names the option in errors. */
static int
parse(const char *opt, const char *spec, void *obj, const struct key *keys, size_t nkeys,
      const char *known, char *err, size_t len)
{
	char buf[512], *save = NULL, e[300];

	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, len, "--%s: too long", opt);
		return -EINVAL;
	}
	strcpy(buf, spec);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		size_t i;

		if (eq == NULL) {
			snprintf(err, len, "--%s: expected key=value, got '%s'", opt, kv);
			return -EINVAL;
		}
		*eq = '\0';
		for (i = 0; i < nkeys && strcmp(kv, keys[i].name) != 0; i++)
			;
		if (i == nkeys) {
			snprintf(err, len, "--%s: unknown key '%s' (known: %s)", opt, kv, known);
			return -EINVAL;
		}
		if (set_key(obj, &keys[i], eq + 1, e, sizeof(e)) < 0) {
			snprintf(err, len, "--%s: %s", opt, e);
			return -EINVAL;
		}
	}
	return 0;
}

#define K64(t, f, kind, max)                                                                       \
	{                                                                                          \
#f, kind, offsetof(struct t, f), 0, max                                            \
	}

int
fe_pfc_spec(const char *spec, struct fe_pfc_params *p, char *err, size_t errlen)
{
	static const struct key keys[] = {
		K64(fe_pfc_params, xoff, SIZE, 1ULL << 32),
		K64(fe_pfc_params, xon, SIZE, 1ULL << 32),
		K64(fe_pfc_params, headroom, SIZE, 1ULL << 32),
		{"delay", TIME, offsetof(struct fe_pfc_params, delay_ns), 0, 1000000000},
		{"quanta", COUNT, offsetof(struct fe_pfc_params, quanta), 1, 65535},
		{"frames", COUNT, offsetof(struct fe_pfc_params, frames), 1, 1},
	};

	if (parse("pfc", spec, p, keys, sizeof(keys) / sizeof(keys[0]),
		  "xoff, xon, headroom, delay, quanta, frames", err, errlen) < 0)
		return -EINVAL;
	if (p->xon >= p->xoff) {
		snprintf(err, errlen, "--pfc: xon (%llu B) must be below xoff (%llu B)",
			 (unsigned long long)p->xon, (unsigned long long)p->xoff);
		return -EINVAL;
	}
	if (p->quanta == 0) {
		snprintf(err, errlen, "--pfc: quanta must be 1 to 65535");
		return -EINVAL;
	}
	return 0;
}

int
fe_credit_spec(const char *spec, struct fe_credit_params *p, char *err, size_t errlen)
{
	static const struct key keys[] = {
		{"buffer", SIZE, offsetof(struct fe_credit_params, buffer), 0, 64ULL << 20},
		{"return", TIME, offsetof(struct fe_credit_params, return_ns), 0, 1000000000},
		{"hoq", TIME, offsetof(struct fe_credit_params, hoq_life_ns), 0, 10000000000ULL},
		{"out", COUNT, offsetof(struct fe_credit_params, out_pkts), 1, 1U << 20},
	};

	if (parse("credit", spec, p, keys, sizeof(keys) / sizeof(keys[0]),
		  "buffer, return, hoq, out", err, errlen) < 0)
		return -EINVAL;
	if (p->buffer < FE_CREDIT_BLOCK) {
		snprintf(err, errlen, "--credit: buffer must hold at least one 64-byte block");
		return -EINVAL;
	}
	return 0;
}
