/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fe_linkspec.h"
#include "fe_rules.h"
#include "fe_units.h"

#include <pcap/pcap.h>

#define SPEC_MAX 1024

static int
set_rate(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	return fe_rule_parse(&fe_rule_link_rate, "", v, &d->link.rate_bps, err, len);
}

static int
set_delay(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	return fe_rule_parse(&fe_rule_link_delay, "", v, &d->link.delay_ns, err, len);
}

static int
set_jitter(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	return fe_rule_parse(&fe_rule_link_jitter, "", v, &d->link.jitter_ns, err, len);
}

static int
set_buffer(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	return fe_rule_parse(&fe_rule_link_buffer, "", v, &d->link.limit_bytes, err, len);
}

static int
set_buffer_pkts(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	uint64_t x;

	if (fe_rule_parse(&fe_rule_link_buffer_pkts, "", v, &x, err, len) < 0)
		return -EINVAL;
	d->link.limit_pkts = (uint32_t)x;
	return 0;
}

static int
set_loss(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	char e[200];
	double p;

	if (fe_parse_fraction(v, &p, e, sizeof(e)) < 0) {
		snprintf(err, len, "loss: %s", e);
		return -EINVAL;
	}
	d->loss = (struct fe_loss_params){.kind = p > 0 ? FE_LOSS_BERNOULLI : FE_LOSS_NONE, .p = p};
	return 0;
}

/* Split "a/b/c" in place into at most max fields; returns how many. */
static int
split_slash(char *s, char **f, int max)
{
	int n = 0;
	char *save = NULL;

	for (char *t = strtok_r(s, "/", &save); t && n < max + 1; t = strtok_r(NULL, "/", &save))
		f[n++] = t;
	return n;
}

static int
set_ge(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	struct fe_loss_params lp = {.kind = FE_LOSS_GE, .loss_bad = 1, .loss_good = 0};
	double *dst[4] = {&lp.p, &lp.r, &lp.loss_bad, &lp.loss_good};
	char buf[128], *f[5], e[200];
	int n;

	snprintf(buf, sizeof(buf), "%s", v);
	n = split_slash(buf, f, 4);
	if (n < 2 || n > 4) {
		snprintf(err, len, "ge '%s': expected P/R[/LOSS_BAD[/LOSS_GOOD]], e.g. 1%%/30%%",
			 v);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++)
		if (fe_parse_fraction(f[i], dst[i], e, sizeof(e)) < 0) {
			snprintf(err, len, "ge '%s': %s", v, e);
			return -EINVAL;
		}
	d->loss = lp;
	return 0;
}

static int
set_ecn(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	struct fe_ecn_params e = {.enabled = 1, .pmax = 1};
	char buf[128], *f[5], m[200] = "";
	int n;

	snprintf(buf, sizeof(buf), "%s", v);
	if (strcmp(v, "off") == 0) {
		d->ecn = (struct fe_ecn_params){0};
		return 0;
	}
	n = split_slash(buf, f, 4);
	if (n >= 1 && strcmp(f[n - 1], "drop") == 0) {
		e.drop_non_ect = 1;
		n--;
	}
	if (n < 2 || n > 3) {
		snprintf(err, len,
			 "ecn '%s': expected KMIN/KMAX[/PMAX][/drop] or off, e.g. "
			 "30KB/30KB or 20KB/200KB/10%%/drop",
			 v);
		return -EINVAL;
	}
	if (fe_parse_size(f[0], &e.kmin, m, sizeof(m)) < 0 ||
	    fe_parse_size(f[1], &e.kmax, m, sizeof(m)) < 0 ||
	    (n == 3 && fe_parse_fraction(f[2], &e.pmax, m, sizeof(m)) < 0)) {
		snprintf(err, len, "ecn '%s': %s", v, m);
		return -EINVAL;
	}
	if (e.kmin > e.kmax) {
		snprintf(err, len, "ecn '%s': KMIN is above KMAX", v);
		return -EINVAL;
	}
	d->ecn = e;
	return 0;
}

static int
set_drop(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	char buf[64], *f[3], e[128];
	uint64_t k, n = 1;
	int nf;

	snprintf(buf, sizeof(buf), "%s", v);
	nf = split_slash(buf, f, 2);
	if (nf < 1 || nf > 2 || fe_parse_uint(f[0], UINT32_MAX, &k, e, sizeof(e)) < 0 || k == 0 ||
	    (nf == 2 && (fe_parse_uint(f[1], UINT32_MAX, &n, e, sizeof(e)) < 0 || n == 0))) {
		snprintf(err, len,
			 "drop '%s': expected K[/N], K and N from 1 (drop matching packets K "
			 "to K+N-1)",
			 v);
		return -EINVAL;
	}
	d->drop_first = k;
	d->drop_count = n;
	return 0;
}

static int
set_llr(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	char e[128];
	int on;

	if (fe_parse_onoff(v, &on, e, sizeof(e)) < 0) {
		snprintf(err, len, "llr %s", e);
		return -EINVAL;
	}
	d->llr = (uint8_t)on;
	return 0;
}

static int
set_match(struct fe_linkdef *d, const char *v, char *err, size_t len)
{
	struct bpf_program prog;
	pcap_t *p;

	if (strlen(v) >= sizeof(d->match)) {
		snprintf(err, len, "match: filter longer than %zu characters",
			 sizeof(d->match) - 1);
		return -EINVAL;
	}
	/* check it here, where the user is, with the compiler the dataplane will use */
	p = pcap_open_dead(DLT_EN10MB, 65535);
	if (p == NULL || pcap_compile(p, &prog, v, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, len, "match '%s': %s", v, p ? pcap_geterr(p) : "libpcap unavailable");
		if (p)
			pcap_close(p);
		return -EINVAL;
	}
	pcap_freecode(&prog);
	pcap_close(p);
	snprintf(d->match, sizeof(d->match), "%s", v);
	return 0;
}

/* Every key a link takes, with a value of it (tests change every key of every link). */
static const struct {
	const char *key;
	int (*set)(struct fe_linkdef *, const char *, char *, size_t);
	const char *example;
} keys[] = {
	{"rate", set_rate, "40Mbit"},	    {"delay", set_delay, "3ms"},
	{"buffer", set_buffer, "96KiB"},    {"buffer-pkts", set_buffer_pkts, "77"},
	{"loss", set_loss, "1%"},	    {"ge", set_ge, "1%/30%"},
	{"ecn", set_ecn, "20KB/200KB/10%"}, {"jitter", set_jitter, "50us"},
	{"drop", set_drop, "5/2"},	    {"llr", set_llr, "on"},
	{"match", set_match, "udp"},
};

const char *
fe_link_param_key(unsigned i, const char **example)
{
	if (i >= sizeof(keys) / sizeof(keys[0]))
		return NULL;
	if (example != NULL)
		*example = keys[i].example;
	return keys[i].key;
}

#define KNOWN_KEYS "rate, delay, buffer, buffer-pkts, loss, ge, ecn, jitter, drop, llr, match"

int
fe_link_param_set(struct fe_linkdef *p, const char *key, const char *val, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i].key) == 0)
			return keys[i].set(p, val, err, errlen);
	snprintf(err, errlen, "unknown link key '%s' (known: " KNOWN_KEYS ")", key);
	return -EINVAL;
}

/* Selector -> port (or -1 for every port) and direction bits. */
int
fe_linkspec_select(const char *sel, unsigned nports, long *port, int *dirs, char *err, size_t len)
{
	const char *dot = strchr(sel, '.');
	const char *dir = dot ? dot + 1 : sel;
	char *end;

	*port = -1;
	*dirs = FE_SEL_UP | FE_SEL_DOWN | FE_SEL_FABRIC;
	if (strcmp(sel, "all") == 0)
		return 0;
	*dirs = FE_SEL_UP | FE_SEL_DOWN;
	if (strcmp(sel, "fabric") == 0) { /* every link between switches (none: no topology) */
		*dirs = FE_SEL_FABRIC;
		return 0;
	}
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
		*dirs = FE_SEL_UP;
	else if (strcmp(dir, "down") == 0)
		*dirs = FE_SEL_DOWN;
	else
		goto bad;
	return 0;
bad:
	snprintf(err, len, "link selector '%s' (allowed: all, up, down, N, N.up, N.down, fabric)",
		 sel);
	return -EINVAL;
}

/*
 * A selector naming links between switches: "A-B" (both directions) or "A>B" (one):
 * 1 with pick[] set for the directions it names; 0 if it names none.
 */
static int
select_fabric(const char *sel, const struct fe_fabric_links *fab, uint8_t *pick)
{
	int found = 0;

	for (unsigned i = 0; fab && i < fab->n; i++) {
		pick[i] = strcmp(sel, fab->dir[i]) == 0 || strcmp(sel, fab->link[i / 2]) == 0;
		found |= pick[i];
	}
	return found;
}

int
fe_linkspec_misnamed(const char *sel, const struct fe_fabric_links *fab, char *err, size_t len)
{
	for (unsigned i = 1; fab && i < fab->n; i += 2) { /* A-B given as B-A */
		char rev[80], *gt;

		snprintf(rev, sizeof(rev), "%s", fab->dir[i]); /* "b>a": its other way */
		if ((gt = strchr(rev, '>')) != NULL)
			*gt = '-';
		if (strcmp(sel, rev) == 0) {
			snprintf(err, len,
				 "link selector '%s': no such link; that link is named %s (its "
				 "ends in the topology's order), its directions %s and %s",
				 sel, fab->link[i / 2], fab->dir[i - 1], fab->dir[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* A selector only links between switches could match: fabric, A-B, A>B. */
static int
names_switch_links(const char *sel)
{
	return strcmp(sel, "fabric") == 0 ||
	       (!isdigit((unsigned char)sel[0]) && strpbrk(sel, "->") != NULL);
}

int
fe_linkspec_pick(const char *sel, unsigned nports, const struct fe_fabric_links *fab, long *port,
		 int *dirs, uint8_t *pick, char *err, size_t len)
{
	if (select_fabric(sel, fab, pick)) {
		*port = -1;
		*dirs = 0; /* those links between switches alone */
		return 0;
	}
	/* one switch: "fabric" would pick nothing, silently; an A-B name, nothing known */
	if (fab && fab->n == 0 && names_switch_links(sel)) {
		snprintf(err, len,
			 "link selector '%s': no links between switches without a topology "
			 "(docs/topologies.md)",
			 sel);
		return -EINVAL;
	}
	if (fe_linkspec_select(sel, nports, port, dirs, err, len) == 0)
		return 0;
	if (fe_linkspec_misnamed(sel, fab, err, len) < 0)
		return -EINVAL;
	if (fab && fab->n && !isdigit((unsigned char)sel[0]))
		snprintf(err, len,
			 "link selector '%s': no such link (allowed: all, up, down, N, N.up, "
			 "N.down, fabric, or a link between switches such as %s or %s)",
			 sel, fab->link[0], fab->dir[0]);
	else if (fab && !isdigit((unsigned char)sel[0]))
		snprintf(err, len,
			 "link selector '%s' (allowed: all, up, down, N, N.up, N.down; fabric, "
			 "A-B, A>B: with a topology)",
			 sel);
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

/* Apply key=value to every selected link (pick: the links between switches chosen). */
static int
apply_kv(char *kv, struct fe_linkdef *up, struct fe_linkdef *down, unsigned nports, long port,
	 int dirs, struct fe_fabric_links *fab, const uint8_t *pick, char *err, size_t len)
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
		if ((dirs & FE_SEL_UP) && fe_link_param_set(&up[p], kv, val, err, len) < 0)
			return -EINVAL;
		if ((dirs & FE_SEL_DOWN) && fe_link_param_set(&down[p], kv, val, err, len) < 0)
			return -EINVAL;
	}
	for (unsigned i = 0; fab && i < fab->n; i++)
		if (((dirs & FE_SEL_FABRIC) || pick[i]) &&
		    fe_link_param_set(&fab->def[i], kv, val, err, len) < 0)
			return -EINVAL;
	/* with no port at all, still check the key and value */
	if (nports == 0) {
		struct fe_linkdef scratch = {0};

		return fe_link_param_set(&scratch, kv, val, err, len);
	}
	return 0;
}

int
fe_linkspec_apply(const char *spec, struct fe_linkdef *up, struct fe_linkdef *down, unsigned nports,
		  char *err, size_t errlen)
{
	return fe_linkspec_apply_fabric(spec, up, down, nports, NULL, err, errlen);
}

int
fe_linkspec_apply_fabric(const char *spec, struct fe_linkdef *up, struct fe_linkdef *down,
			 unsigned nports, struct fe_fabric_links *fab, char *err, size_t errlen)
{
	char buf[SPEC_MAX], *colon, *kvs, *match, *save = NULL;
	uint8_t pick[2 * 256] = {0};
	int dirs, n = 0;
	long port;

	if (fab && fab->n > sizeof(pick)) {
		snprintf(err, errlen, "more than %zu links between switches", sizeof(pick) / 2);
		return -EINVAL;
	}
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "link spec longer than %d characters", SPEC_MAX - 1);
		return -EINVAL;
	}
	strcpy(buf, spec);
	/* a selector ends at a ':' before the first '=' (filters may hold ':' themselves) */
	colon = strchr(buf, ':');
	if (colon && strchr(buf, '=') && strchr(buf, '=') < colon)
		colon = NULL;
	kvs = buf;
	port = -1;
	dirs = FE_SEL_UP | FE_SEL_DOWN | FE_SEL_FABRIC; /* no selector: all */
	if (colon) {
		*colon = '\0';
		kvs = colon + 1;
		if (fe_linkspec_pick(trim(buf), nports, fab, &port, &dirs, pick, err, errlen) < 0)
			return -EINVAL;
	}
	/* match=EXPR is last and takes the rest of the spec, commas included */
	match = strncmp(trim(kvs), "match=", 6) == 0 ? trim(kvs) : strstr(kvs, ",match=");
	if (match && *match == ',')
		*match++ = '\0';
	else if (match)
		kvs = match + strlen(match); /* nothing before it */
	for (char *kv = strtok_r(kvs, ",", &save); kv; kv = strtok_r(NULL, ",", &save), n++)
		if (apply_kv(kv, up, down, nports, port, dirs, fab, pick, err, errlen) < 0)
			return -EINVAL;
	if (match) {
		n++;
		if (apply_kv(match, up, down, nports, port, dirs, fab, pick, err, errlen) < 0)
			return -EINVAL;
	}
	if (n == 0) {
		snprintf(err, errlen, "link spec '%s' sets nothing", spec);
		return -EINVAL;
	}
	return 0;
}

int
fe_linkspec_file(const char *path, struct fe_linkdef *up, struct fe_linkdef *down, unsigned nports,
		 struct fe_fabric_links *fab, char *err, size_t errlen)
{
	char line[SPEC_MAX], msg[512];
	unsigned lineno = 0;
	struct stat st;
	int rc = 0;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		snprintf(err, errlen, "%s: a directory, not a file", path);
		return -EISDIR;
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
		rc = fe_linkspec_apply_fabric(s, up, down, nports, fab, msg, sizeof(msg));
		if (rc < 0)
			snprintf(err, errlen, "%s:%u: %s", path, lineno, msg);
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -EIO;
	}
	fclose(f);
	return rc;
}

int
fe_linkdef_spec(const struct fe_linkdef *d, char *buf, size_t len)
{
	const struct fe_loss_params *l = &d->loss;
	const struct fe_ecn_params *e = &d->ecn;
	char r[32], t[32], j[32];
	size_t n;

#define PUT(...) n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__)
	n = 0;
	PUT("rate=%s,delay=%s,buffer=%llu,buffer-pkts=%u",
	    d->link.rate_bps ? fe_fmt_rate(d->link.rate_bps, r, sizeof(r)) : "0",
	    fe_fmt_time(d->link.delay_ns, t, sizeof(t)), (unsigned long long)d->link.limit_bytes,
	    d->link.limit_pkts);
	if (l->kind == FE_LOSS_GE)
		PUT(",ge=%.12g%%/%.12g%%/%.12g%%/%.12g%%", l->p * 100, l->r * 100,
		    l->loss_bad * 100, l->loss_good * 100);
	else
		PUT(",loss=%.12g%%", l->kind == FE_LOSS_BERNOULLI ? l->p * 100 : 0.0);
	if (e->enabled)
		PUT(",ecn=%llu/%llu/%.12g%%%s", (unsigned long long)e->kmin,
		    (unsigned long long)e->kmax, e->pmax * 100, e->drop_non_ect ? "/drop" : "");
	else
		PUT(",ecn=off");
	PUT(",jitter=%s", fe_fmt_time(d->link.jitter_ns, j, sizeof(j)));
	if (d->drop_count)
		PUT(",drop=%llu/%llu", (unsigned long long)d->drop_first,
		    (unsigned long long)d->drop_count);
	if (d->llr)
		PUT(",llr=on");
	if (d->match[0] != '\0')
		PUT(",match=%s", d->match);
#undef PUT
	return n < len ? 0 : -ENOSPC;
}
