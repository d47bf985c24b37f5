/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_linkspec.h"
#include "fe_units.h"

#define SPEC_MAX 1024

static int
set_rate(struct fe_link_params *p, const char *v, char *err, size_t len)
{
	uint64_t x;

	if (fe_parse_rate(v, &x, err, len) < 0)
		return -EINVAL;
	if (x != 0 && (x < FE_LINK_RATE_MIN || x > FE_LINK_RATE_MAX)) {
		snprintf(err, len, "rate '%s' out of range (0 for unlimited, or 1kbit to 1Tbit)",
			 v);
		return -EINVAL;
	}
	p->rate_bps = x;
	return 0;
}

static int
set_delay(struct fe_link_params *p, const char *v, char *err, size_t len)
{
	uint64_t x;

	if (fe_parse_time(v, &x, err, len) < 0)
		return -EINVAL;
	if (x > FE_LINK_DELAY_MAX) {
		snprintf(err, len, "delay '%s' out of range (0 to 10s)", v);
		return -EINVAL;
	}
	p->delay_ns = x;
	return 0;
}

static int
set_buffer(struct fe_link_params *p, const char *v, char *err, size_t len)
{
	uint64_t x;

	if (fe_parse_size(v, &x, err, len) < 0)
		return -EINVAL;
	if (x > FE_LINK_BYTES_MAX) {
		snprintf(err, len, "buffer '%s' out of range (0 for unlimited, or up to 4GiB)", v);
		return -EINVAL;
	}
	p->limit_bytes = x;
	return 0;
}

static int
set_buffer_pkts(struct fe_link_params *p, const char *v, char *err, size_t len)
{
	uint64_t x;
	char e[128];

	if (fe_parse_uint(v, FE_LINK_PKTS_MAX, &x, e, sizeof(e)) < 0) {
		snprintf(err, len, "buffer-pkts: %s", e);
		return -EINVAL;
	}
	p->limit_pkts = (uint32_t)x;
	return 0;
}

static const struct {
	const char *key;
	int (*set)(struct fe_link_params *, const char *, char *, size_t);
} keys[] = {
	{"rate", set_rate},
	{"delay", set_delay},
	{"buffer", set_buffer},
	{"buffer-pkts", set_buffer_pkts},
};

int
fe_link_param_set(struct fe_link_params *p, const char *key, const char *val, char *err,
		  size_t errlen)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i].key) == 0)
			return keys[i].set(p, val, err, errlen);
	snprintf(err, errlen, "unknown link key '%s' (known: rate, delay, buffer, buffer-pkts)",
		 key);
	return -EINVAL;
}

enum { SEL_UP = 1, SEL_DOWN = 2 };

/* Selector -> port (or -1 for every port) and direction bits. */
static int
parse_selector(const char *sel, unsigned nports, long *port, int *dirs, char *err, size_t len)
{
	const char *dot = strchr(sel, '.');
	const char *dir = dot ? dot + 1 : sel;
	char *end;

	*port = -1;
	*dirs = SEL_UP | SEL_DOWN;
	if (strcmp(sel, "all") == 0)
		return 0;
	if (isdigit((unsigned char)sel[0])) {
		*port = strtol(sel, &end, 10);
		if (end != (dot ? dot : sel + strlen(sel)) || *port >= (long)nports) {
			snprintf(err, len, "link selector '%s': no such port (ports 0 to %u)", sel,
				 nports ? nports - 1 : 0);
			return -EINVAL;
		}
		if (!dot)
			return 0;
	} else if (dot) {
		goto bad;
	}
	if (strcmp(dir, "up") == 0)
		*dirs = SEL_UP;
	else if (strcmp(dir, "down") == 0)
		*dirs = SEL_DOWN;
	else
		goto bad;
	return 0;
bad:
	snprintf(err, len, "link selector '%s' (allowed: all, up, down, N, N.up, N.down)", sel);
	return -EINVAL;
}

/* Strip comment and surrounding white space in place; return the start. */
static char *
trim(char *s)
{
	char *e;

	if ((e = strchr(s, '#')) != NULL)
		*e = '\0';
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Apply key=value to every selected link. */
static int
apply_kv(char *kv, struct fe_link_params *up, struct fe_link_params *down, unsigned nports,
	 long port, int dirs, char *err, size_t len)
{
	char *eq = strchr(kv, '='), *val;

	if (eq == NULL || eq == kv) {
		snprintf(err, len, "expected key=value, got '%s'", kv);
		return -EINVAL;
	}
	*eq = '\0';
	kv = trim(kv);
	val = trim(eq + 1);
	for (unsigned p = 0; p < nports; p++) {
		if (port >= 0 && p != (unsigned)port)
			continue;
		if ((dirs & SEL_UP) && fe_link_param_set(&up[p], kv, val, err, len) < 0)
			return -EINVAL;
		if ((dirs & SEL_DOWN) && fe_link_param_set(&down[p], kv, val, err, len) < 0)
			return -EINVAL;
	}
	/* with no port at all, still check the key and value */
	if (nports == 0) {
		struct fe_link_params scratch = {0};

		return fe_link_param_set(&scratch, kv, val, err, len);
	}
	return 0;
}

int
fe_linkspec_apply(const char *spec, struct fe_link_params *up, struct fe_link_params *down,
		  unsigned nports, char *err, size_t errlen)
{
	char buf[SPEC_MAX], *colon, *kvs, *save = NULL;
	int dirs, n = 0;
	long port;

	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "link spec longer than %d characters", SPEC_MAX - 1);
		return -EINVAL;
	}
	strcpy(buf, spec);
	colon = strchr(buf, ':');
	kvs = buf;
	port = -1;
	dirs = SEL_UP | SEL_DOWN;
	if (colon) {
		*colon = '\0';
		kvs = colon + 1;
		if (parse_selector(trim(buf), nports, &port, &dirs, err, errlen) < 0)
			return -EINVAL;
	}
	for (char *kv = strtok_r(kvs, ",", &save); kv; kv = strtok_r(NULL, ",", &save), n++)
		if (apply_kv(kv, up, down, nports, port, dirs, err, errlen) < 0)
			return -EINVAL;
	if (n == 0) {
		snprintf(err, errlen, "link spec '%s' sets nothing", spec);
		return -EINVAL;
	}
	return 0;
}

int
fe_linkspec_file(const char *path, struct fe_link_params *up, struct fe_link_params *down,
		 unsigned nports, char *err, size_t errlen)
{
	char line[SPEC_MAX], msg[512];
	unsigned lineno = 0;
	int rc = 0;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char *s;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long", path, lineno);
			rc = -EINVAL;
			break;
		}
		s = trim(line);
		if (*s == '\0')
			continue;
		rc = fe_linkspec_apply(s, up, down, nports, msg, sizeof(msg));
		if (rc < 0)
			snprintf(err, errlen, "%s:%u: %s", path, lineno, msg);
	}
	fclose(f);
	return rc;
}
