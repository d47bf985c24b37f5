/* SPDX-License-Identifier: BSD-3-Clause */
/* A campaign file: its schema (libcyaml), its keys checked one at a time, compiled. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cg.h"
#include "fe_clab.h"
#include "fe_dpopts.h"
#include "fe_linkspec.h"
#include "fe_profile.h"
#include "fe_regimespec.h"
#include "fe_rules.h"
#include "fe_topo.h"
#include "fe_units.h"
#include "fe_yaml.h"

/* ---- The file, as libcyaml reads it ---- */

struct y_at {
	char *iteration, *time;
};

struct y_action {
	char *action, *link, *duration, *profile, *scale, *loss, *delay, *match, *count, *first,
		*spec;
	struct y_at *at, *until;
};

struct y_regime {
	char *name, *kind, *profile, *scale, *pmd, *ring, *mtu, *dataplane, *nic, *topology, *path;
	char *split, *realtime, *ranks, *alike, *scale_min, *scale_max;
	char **links;
	unsigned links_count;
};

struct y_job {
	char *kind, *iterations, *warmup, *command;
	char **sizes;
	unsigned sizes_count;
};

struct y_beside {
	char *host, *command;
};

struct y_fidelity {
	char *lateness, *load, *capacity, *capacity_time, *calibrate;
};

struct y_series {
	char *name;
	char **fit, **check;
	unsigned fit_count, check_count;
};

struct y_projection {
	char **ranks;
	unsigned ranks_count;
	char *compute;
	struct y_series *series;
	unsigned series_count;
};

struct y_alike_links {
	char *profile, *scale;
};

/* testbed: {kind, hosts: [...], huge-dir, lcore}: existing hosts (docs/campaigns.md) */
struct y_tbhost {
	char *name, *prefix, *shell, *address, *ifname, *port;
};

struct y_testbed {
	char *kind, *huge_dir, *lcore;
	struct y_tbhost *hosts;
	unsigned hosts_count;
};

struct y_campaign {
	char *name, *description, *hosts, *cores, *pmd, *ring, *mtu, *dataplane, *repetitions,
		*seed, *host_ecn;
	struct y_testbed *testbed;
	struct y_fidelity *fidelity;
	struct y_alike_links *alike_links;
	struct y_job *job;
	struct y_regime *regimes;
	unsigned regimes_count;
	struct y_action *timeline;
	unsigned timeline_count;
	struct y_beside *beside;
	unsigned beside_count;
	char ***question; /* pairs: question[k][0] against question[k][1] */
	unsigned question_count;
	struct y_projection *projection;
	char **scenes; /* a suite: its campaigns */
	unsigned scenes_count;
};

#define STR(key, type, member)                                                                     \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_OPTIONAL, type, member, 0, 1023)

static const cyaml_schema_value_t str_entry = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, 1023),
};

/* question: [[a, b], ...]: each entry a pair of regime names */
static const cyaml_schema_value_t pair_entry = {
	CYAML_VALUE_SEQUENCE_FIXED(CYAML_FLAG_POINTER, char *, &str_entry, 2),
};

static const cyaml_schema_field_t at_fields[] = {
	STR("iteration", struct y_at, iteration),
	STR("time", struct y_at, time),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t action_fields[] = {
	STR("action", struct y_action, action),
	STR("link", struct y_action, link),
	STR("duration", struct y_action, duration),
	STR("profile", struct y_action, profile),
	STR("scale", struct y_action, scale),
	STR("loss", struct y_action, loss),
	STR("delay", struct y_action, delay),
	STR("match", struct y_action, match),
	STR("count", struct y_action, count),
	STR("first", struct y_action, first),
	STR("spec", struct y_action, spec),
	CYAML_FIELD_MAPPING_PTR("at", CYAML_FLAG_OPTIONAL, struct y_action, at, at_fields),
	CYAML_FIELD_MAPPING_PTR("until", CYAML_FLAG_OPTIONAL, struct y_action, until, at_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t action_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_action, action_fields),
};

static const cyaml_schema_field_t regime_fields[] = {
	STR("name", struct y_regime, name),
	STR("kind", struct y_regime, kind),
	STR("profile", struct y_regime, profile),
	STR("scale", struct y_regime, scale),
	STR("pmd", struct y_regime, pmd),
	STR("ring", struct y_regime, ring),
	STR("mtu", struct y_regime, mtu),
	STR("dataplane", struct y_regime, dataplane),
	STR("nic", struct y_regime, nic),
	STR("topology", struct y_regime, topology),
	STR("path", struct y_regime, path),
	STR("split", struct y_regime, split),
	STR("realtime", struct y_regime, realtime),
	STR("ranks", struct y_regime, ranks),
	STR("alike", struct y_regime, alike),
	STR("scale-min", struct y_regime, scale_min),
	STR("scale-max", struct y_regime, scale_max),
	CYAML_FIELD_SEQUENCE("links", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_regime,
			     links, &str_entry, 0, 16),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t regime_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_regime, regime_fields),
};

static const cyaml_schema_field_t job_fields[] = {
	STR("kind", struct y_job, kind),
	STR("iterations", struct y_job, iterations),
	STR("warmup", struct y_job, warmup),
	STR("command", struct y_job, command),
	CYAML_FIELD_SEQUENCE("sizes", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_job, sizes,
			     &str_entry, 0, CG_MAX_SIZES),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t beside_fields[] = {
	STR("host", struct y_beside, host),
	STR("command", struct y_beside, command),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t beside_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_beside, beside_fields),
};

static const cyaml_schema_field_t fidelity_fields[] = {
	STR("lateness", struct y_fidelity, lateness),
	STR("load", struct y_fidelity, load),
	STR("capacity", struct y_fidelity, capacity),
	STR("capacity-time", struct y_fidelity, capacity_time),
	STR("calibrate", struct y_fidelity, calibrate),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t series_fields[] = {
	STR("name", struct y_series, name),
	CYAML_FIELD_SEQUENCE("fit", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_series, fit,
			     &str_entry, 0, CG_MAX_REGIMES),
	CYAML_FIELD_SEQUENCE("check", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_series,
			     check, &str_entry, 0, CG_PROJ_MAX_CHECK),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t series_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_series, series_fields),
};

static const cyaml_schema_field_t projection_fields[] = {
	CYAML_FIELD_SEQUENCE("ranks", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_projection,
			     ranks, &str_entry, 0, CG_PROJ_MAX_N),
	STR("compute", struct y_projection, compute),
	CYAML_FIELD_SEQUENCE("series", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct y_projection, series, &series_entry, 0, CG_MAX_REGIMES),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t alike_links_fields[] = {
	STR("profile", struct y_alike_links, profile),
	STR("scale", struct y_alike_links, scale),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t tbhost_fields[] = {
	STR("name", struct y_tbhost, name),
	STR("prefix", struct y_tbhost, prefix),
	STR("shell", struct y_tbhost, shell),
	STR("address", struct y_tbhost, address),
	STR("ifname", struct y_tbhost, ifname),
	STR("port", struct y_tbhost, port),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t tbhost_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_tbhost, tbhost_fields),
};

static const cyaml_schema_field_t testbed_fields[] = {
	STR("kind", struct y_testbed, kind),
	STR("huge-dir", struct y_testbed, huge_dir),
	STR("lcore", struct y_testbed, lcore),
	CYAML_FIELD_SEQUENCE("hosts", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_testbed,
			     hosts, &tbhost_entry, 0, CG_MAX_HOSTS),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t campaign_fields[] = {
	STR("name", struct y_campaign, name),
	STR("description", struct y_campaign, description),
	STR("hosts", struct y_campaign, hosts),
	STR("cores", struct y_campaign, cores),
	STR("pmd", struct y_campaign, pmd),
	STR("ring", struct y_campaign, ring),
	STR("mtu", struct y_campaign, mtu),
	STR("dataplane", struct y_campaign, dataplane),
	STR("repetitions", struct y_campaign, repetitions),
	STR("seed", struct y_campaign, seed),
	STR("host-ecn", struct y_campaign, host_ecn),
	CYAML_FIELD_MAPPING_PTR("testbed", CYAML_FLAG_OPTIONAL, struct y_campaign, testbed,
				testbed_fields),
	CYAML_FIELD_MAPPING_PTR("fidelity", CYAML_FLAG_OPTIONAL, struct y_campaign, fidelity,
				fidelity_fields),
	CYAML_FIELD_MAPPING_PTR("alike-links", CYAML_FLAG_OPTIONAL, struct y_campaign, alike_links,
				alike_links_fields),
	CYAML_FIELD_MAPPING_PTR("job", CYAML_FLAG_OPTIONAL, struct y_campaign, job, job_fields),
	CYAML_FIELD_SEQUENCE("regimes", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_campaign,
			     regimes, &regime_entry, 0, CG_MAX_REGIMES),
	CYAML_FIELD_SEQUENCE("timeline", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct y_campaign, timeline, &action_entry, 0, CG_MAX_ACTIONS),
	CYAML_FIELD_SEQUENCE("beside", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_campaign,
			     beside, &beside_entry, 0, CG_MAX_BESIDE),
	CYAML_FIELD_SEQUENCE("question", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			     struct y_campaign, question, &pair_entry, 0, CG_MAX_QUESTIONS),
	CYAML_FIELD_SEQUENCE("scenes", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_campaign,
			     scenes, &str_entry, 0, CG_MAX_SCENES),
	CYAML_FIELD_MAPPING_PTR("projection", CYAML_FLAG_OPTIONAL, struct y_campaign, projection,
				projection_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t campaign_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct y_campaign, campaign_fields),
};

/* ---- Values ---- */

/* A count of the campaign's own (iterations, hosts, ...), from lo to hi. */
static int
uint_val(struct fe_yaml *y, const char *path, const char *v, uint64_t lo, uint64_t hi,
	 uint64_t *out)
{
	const struct fe_rule r = {.kind = FE_RULE_COUNT, .min = lo, .max = hi};

	return fe_yaml_rule(y, path, &r, v, out);
}

static int
bool_val(struct fe_yaml *y, const char *path, const char *v, int *out)
{
	if (strcmp(v, "true") && strcmp(v, "false"))
		return fe_yaml_fail(y, path, "%s '%s' (allowed: true, false)", path, v);
	*out = strcmp(v, "true") == 0;
	return 0;
}

int
cg_addf(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= len)
		return -1;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	*n += k < 0 ? len : (size_t)k;
	return *n < len ? 0 : -1;
}

void
cg_quote(char *out, size_t len, const char *s)
{
	size_t o = 0;

	if (len < 3)
		return;
	out[o++] = '\'';
	for (; *s && o + 5 < len; s++) {
		if (*s == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *s;
		}
	}
	out[o++] = '\'';
	out[o] = '\0';
}

const char *
cg_size_name(uint64_t s, char *buf, size_t len)
{
	if (s >= (1 << 20) && s % (1 << 20) == 0)
		snprintf(buf, len, "%" PRIu64 "MiB", s >> 20);
	else if (s >= 1024 && s % 1024 == 0)
		snprintf(buf, len, "%" PRIu64 "KiB", s >> 10);
	else
		snprintf(buf, len, "%" PRIu64 "B", s);
	return buf;
}

/* "2 regimes, 1 fault (2 steps)": what a campaign holds, for `campaign check`. A fault
 * is an entry of the timeline; one that ends has two steps, its start and its end. */
const char *
cg_describe(const struct cg_campaign *c, char *buf, size_t len)
{
	unsigned faults = 0;

	if (c->nscenes) {
		snprintf(buf, len, "a suite of %u scene%s", c->nscenes, c->nscenes == 1 ? "" : "s");
		return buf;
	}

	for (unsigned i = 0; i < c->nsteps; i++)
		faults += !c->steps[i].revert;
	snprintf(buf, len, "%u regime%s, %u fault%s", c->nreg, c->nreg == 1 ? "" : "s", faults,
		 faults == 1 ? "" : "s");
	if (c->nsteps != faults)
		snprintf(buf + strlen(buf), len - strlen(buf), " (%u steps)", c->nsteps);
	return buf;
}

/* ---- The testbed: the veth hosts the campaign makes, or existing ones ---- */

int
cg_name_bad(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max)
		return 1;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return 1;
	return 0;
}

/* An interface's name as Linux takes it: 1 to 15 bytes, no '/', ':' or white space, not
 * "." or ".."; 1 if not. */
static int
ifname_bad(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= 16 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 1;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || *s == '/' || *s == ':')
			return 1;
	return 0;
}

/* A PCI address as EAL's -a takes it, DOMAIN:BUS:DEV.FN or BUS:DEV.FN, into a full one
 * (0000:03:00.0) that sorts as DPDK numbers the ports; 1 if not one. */
static int
pci_addr(const char *s, char *full, size_t len)
{
	unsigned dom = 0, bus, dev, fn;
	int n = 0;

	if (sscanf(s, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &n) != 4 || s[n] != '\0') {
		dom = 0;
		n = 0;
		if (sscanf(s, "%2x:%2x.%1u%n", &bus, &dev, &fn, &n) != 3 || s[n] != '\0')
			return 1;
	}
	if (!isxdigit((unsigned char)s[0]) || dev > 0x1f || fn > 7)
		return 1;
	snprintf(full, len, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	return 0;
}

/*
 * A vdev's arguments as EAL's --vdev takes them: net_DRIVER followed by its instance's
 * name, then ",key=value" items, each of letters, digits and "_.:/-" (no space or quote:
 * they go on a shell's command line). Its name (before the first ',') into name, and
 * the value of its iface= item into iface (""). 0, or -1 and why in e.
 */
static int
vdev_args(const char *s, char *name, size_t nlen, char *iface, size_t ilen, char *e, size_t elen)
{
	const char *comma = strchr(s, ',');
	size_t n = comma ? (size_t)(comma - s) : strlen(s);

	iface[0] = '\0';
	if (strncmp(s, "net_", 4) != 0 || n <= 4 || n >= nlen) {
		snprintf(e, elen,
			 "a PCI address (0000:03:00.0) or a vdev (net_af_packet0,iface=IF)");
		return -1;
	}
	snprintf(name, nlen, "%.*s", (int)n, s);
	if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != n) {
		snprintf(e, elen, "a vdev's name is lower-case letters, digits and '_'");
		return -1;
	}
	for (const char *it = comma; it; it = strchr(it + 1, ',')) {
		const char *end = strchr(it + 1, ','), *eq = strchr(it + 1, '=');
		size_t len = end ? (size_t)(end - it - 1) : strlen(it + 1);

		if (eq == NULL || eq > it + 1 + len || eq == it + 1 || eq + 1 == it + 1 + len ||
		    strspn(it + 1, "abcdefghijklmnopqrstuvwxyz0123456789_=") < (size_t)(eq - it)) {
			snprintf(e, elen, "item '%.*s' is not key=value", (int)len, it + 1);
			return -1;
		}
		for (const char *c = eq + 1; c < it + 1 + len; c++)
			if (!isalnum((unsigned char)*c) && !strchr("_.:/-", *c)) {
				snprintf(e, elen,
					 "item '%.*s': a value of letters, digits and _.:/-",
					 (int)len, it + 1);
				return -1;
			}
		if (eq - it - 1 == 5 && strncmp(it + 1, "iface", 5) == 0) {
			size_t vl = (size_t)(it + 1 + len - eq - 1);

			if (vl >= ilen) {
				snprintf(e, elen, "iface '%.*s': longer than 15", (int)vl, eq + 1);
				return -1;
			}
			snprintf(iface, ilen, "%.*s", (int)vl, eq + 1);
		}
	}
	return 0;
}

/* testbed.hosts.N.port: a PCI address or a vdev, each once; the PCI ones first and in
 * their addresses' order, as DPDK numbers its ports (port i is host i + 1's). */
static int
host_port(struct fe_yaml *y, const char *key, const char *v, struct cg_campaign *c, unsigned i)
{
	struct cg_host *h = &c->host[i];
	char name[64], e[160];

	if (strlen(v) >= sizeof(h->port))
		return fe_yaml_fail(y, key, "%s: longer than %zu characters", key,
				    sizeof(h->port) - 1);
	h->pci = pci_addr(v, h->port, sizeof(h->port)) == 0;
	if (!h->pci) {
		if (vdev_args(v, name, sizeof(name), h->port_iface, sizeof(h->port_iface), e,
			      sizeof(e)) < 0)
			return fe_yaml_fail(y, key, "%s '%s': %s", key, v, e);
		snprintf(h->port, sizeof(h->port), "%s", v);
	}
	for (unsigned k = 1; k < i; k++) {
		const struct cg_host *o = &c->host[k];
		size_t n = strcspn(o->port, ",");

		if (h->pci && o->pci && strcmp(o->port, h->port) >= 0)
			return fe_yaml_fail(y, key,
					    "%s '%s': not after host %s's %s: DPDK numbers PCI "
					    "ports in their addresses' order, and port i is the "
					    "i-th host's; list the hosts in that order",
					    key, v, o->name, o->port);
		if (h->pci && !o->pci)
			return fe_yaml_fail(
				y, key,
				"%s '%s': a PCI port after host %s's vdev: DPDK numbers "
				"PCI ports before vdevs, and port i is the i-th host's; "
				"list the hosts on PCI ports first",
				key, v, o->name);
		if (!h->pci && !o->pci && strncmp(o->port, h->port, n) == 0 &&
		    (h->port[n] == ',' || h->port[n] == '\0'))
			return fe_yaml_fail(y, key, "%s '%s': vdev %.*s is host %s's already", key,
					    v, (int)n, o->port, o->name);
		if (h->port_iface[0] && strcmp(h->port_iface, o->port_iface) == 0)
			return fe_yaml_fail(y, key,
					    "%s '%s': interface %s is host %s's port already", key,
					    v, h->port_iface, o->name);
	}
	return 0;
}

/* One entry of testbed.hosts: name, prefix, shell, address, ifname, port. */
static int
tb_host(struct fe_yaml *y, const struct y_tbhost *t, unsigned i, struct cg_campaign *c)
{
	struct cg_host *h = &c->host[i];
	char path[48], key[64];
	struct in_addr a;

	snprintf(path, sizeof(path), "testbed.hosts.%u", i - 1);
	if (!t->name || !t->prefix || !t->address || !t->port)
		return fe_yaml_fail(y, path,
				    "%s: name, prefix, address and port are required (ifname: "
				    "eth0 and shell: the default)",
				    path);
	snprintf(key, sizeof(key), "%s.name", path);
	if (cg_name_bad(t->name, CG_HOST_NAME)) /* it names the MPI nodes, the results' hosts */
		return fe_yaml_fail(y, key,
				    "%s '%s': a name of letters, digits, '_', '-' and '.', 1 to "
				    "%d characters",
				    key, t->name, CG_HOST_NAME - 1);
	snprintf(h->name, sizeof(h->name), "%s", t->name);
	snprintf(key, sizeof(key), "%s.prefix", path);
	if (t->prefix[strspn(t->prefix, " \t")] == '\0' || strlen(t->prefix) >= sizeof(h->prefix))
		return fe_yaml_fail(y, key,
				    "%s '%s': a command (ssh HOST, ip netns exec NAME), 1 "
				    "to %zu characters",
				    key, t->prefix, sizeof(h->prefix) - 1);
	for (const char *p = t->prefix; *p; p++)
		if (iscntrl((unsigned char)*p))
			return fe_yaml_fail(y, key, "%s '%s': a control character in it", key,
					    t->prefix);
	snprintf(h->prefix, sizeof(h->prefix), "%s", t->prefix);
	/* ssh hands the remote shell one string: the default for a prefix that starts so */
	h->shell = strncmp(t->prefix + strspn(t->prefix, " \t"), "ssh", 3) == 0 &&
		   strchr(" \t", t->prefix[strspn(t->prefix, " \t") + 3]) != NULL;
	snprintf(key, sizeof(key), "%s.shell", path);
	if (t->shell && bool_val(y, key, t->shell, &h->shell) < 0)
		return -EINVAL;
	snprintf(key, sizeof(key), "%s.address", path);
	if (inet_pton(AF_INET, t->address, &a) != 1)
		return fe_yaml_fail(y, key, "%s '%s': an IPv4 address (198.18.0.1)", key,
				    t->address);
	inet_ntop(AF_INET, &a, h->addr, sizeof(h->addr));
	snprintf(key, sizeof(key), "%s.ifname", path);
	if (t->ifname && ifname_bad(t->ifname))
		return fe_yaml_fail(y, key, "%s '%s': an interface's name, 1 to 15 characters", key,
				    t->ifname);
	snprintf(h->ifname, sizeof(h->ifname), "%s", t->ifname ? t->ifname : "eth0");
	for (unsigned k = 1; k < i; k++) {
		if (strcmp(c->host[k].name, h->name) == 0) {
			snprintf(key, sizeof(key), "%s.name", path);
			return fe_yaml_fail(y, key, "%s '%s': taken by testbed.hosts.%u", key,
					    h->name, k - 1);
		}
		if (strcmp(c->host[k].addr, h->addr) == 0) {
			snprintf(key, sizeof(key), "%s.address", path);
			return fe_yaml_fail(y, key, "%s '%s': host %s's already", key, t->address,
					    c->host[k].name);
		}
	}
	snprintf(key, sizeof(key), "%s.port", path);
	return host_port(y, key, t->port, c, i);
}

/*
 * testbed: the veth kind (the default: hosts: N, made by the campaign) or kind hosts,
 * existing hosts, 2 to CG_MAX_HOSTS of them. What the campaign would change on the hosts
 * or build beside them is refused with kind hosts, at its key (docs/campaigns.md).
 */
static int
compile_testbed(struct fe_yaml *y, const struct y_campaign *d, struct cg_campaign *c)
{
	const struct y_testbed *t = d->testbed;
	uint64_t x;

	c->hosts = 4;
	if (t == NULL || t->kind == NULL || strcmp(t->kind, "veth") == 0) {
		if (t && t->hosts)
			return fe_yaml_fail(y, "testbed.hosts",
					    "testbed.hosts: kind hosts's (kind veth, the default, "
					    "makes hosts: N)");
		if (t && t->huge_dir)
			return fe_yaml_fail(y, "testbed.huge-dir",
					    "testbed.huge-dir: kind hosts's (its PCI ports)");
		if (t && t->lcore)
			return fe_yaml_fail(
				y, "testbed.lcore",
				"testbed.lcore: kind hosts's (kind veth keeps core 0 for "
				"the dataplane: cores)");
		if (d->hosts && uint_val(y, "hosts", d->hosts, 2, CG_MAX_HOSTS, &x) < 0)
			return -EINVAL;
		c->hosts = d->hosts ? (unsigned)x : c->hosts;
		for (unsigned i = 1; i <= c->hosts; i++) { /* testbeds/veth.sh's */
			snprintf(c->host[i].addr, sizeof(c->host[i].addr), "198.18.0.%u", i);
			snprintf(c->host[i].ifname, sizeof(c->host[i].ifname), "eth0");
		}
		return 0;
	}
	if (strcmp(t->kind, "hosts") != 0)
		return fe_yaml_fail(y, "testbed.kind", "testbed.kind '%s' (allowed: veth, hosts)",
				    t->kind);
	c->tb = CG_TB_HOSTS;
	/* rule: the hosts are the list's, and nothing on them is the campaign's to set */
	const struct {
		const char *key, *val, *why;
	} stray[] = {
		{"hosts", d->hosts, "testbed.hosts lists them"},
		{"cores", d->cores,
		 "it moves this machine's threads off the dataplane's core for hosts it makes; "
		 "give fabemu-dp's own options in dataplane:"},
		{"host-ecn", d->host_ecn,
		 "the campaign changes nothing on existing hosts: set net.ipv4.tcp_ecn on them"},
		{"pmd", d->pmd, "the ports are the devices testbed.hosts.N.port names"},
	};
	for (size_t k = 0; k < sizeof(stray) / sizeof(stray[0]); k++)
		if (stray[k].val)
			return fe_yaml_fail(y, stray[k].key, "%s: not with testbed kind hosts (%s)",
					    stray[k].key, stray[k].why);
	if (t->hosts_count < 2)
		return fe_yaml_fail(y, "testbed",
				    "testbed: kind hosts needs hosts: 2 to %d of them",
				    CG_MAX_HOSTS);
	c->hosts = t->hosts_count;
	c->split = 0;
	c->host_ecn = -1; /* as the hosts have it */
	for (unsigned i = 1; i <= c->hosts; i++)
		if (tb_host(y, &t->hosts[i - 1], i, c) < 0)
			return -EINVAL;
	if (t->huge_dir && (t->huge_dir[0] != '/' || strlen(t->huge_dir) >= sizeof(c->huge_dir) ||
			    strpbrk(t->huge_dir, "'\\\n")))
		return fe_yaml_fail(y, "testbed.huge-dir",
				    "testbed.huge-dir '%s': an absolute path, without quotes",
				    t->huge_dir);
	if (t->huge_dir)
		snprintf(c->huge_dir, sizeof(c->huge_dir), "%s", t->huge_dir);
	/* the dataplane's core: an isolated one on a lab's box (docs/inline.md) */
	if (t->lcore && uint_val(y, "testbed.lcore", t->lcore, 0, 1023, &x) < 0)
		return -EINVAL;
	c->lcore = t->lcore ? (unsigned)x : 0;
	return 0;
}

/*
 * The testbed's edge: pmd, ring, mtu and more dataplane options, each over the default
 * (the campaign's, or the built-in one).
 */
static int
edge_val(struct fe_yaml *y, const char *path, const char *pmd, const char *ring, const char *mtu,
	 const char *dpargs, struct cg_edge *e)
{
	char key[96];
	uint64_t x;

	if (pmd) {
		snprintf(key, sizeof(key), "%s%spmd", path, *path ? "." : "");
		if (strcmp(pmd, "af_packet") && strcmp(pmd, "af_xdp"))
			return fe_yaml_fail(y, key, "pmd '%s' (allowed: af_packet, af_xdp)", pmd);
		snprintf(e->pmd, sizeof(e->pmd), "%s", pmd);
	}
	if (ring) {
		snprintf(key, sizeof(key), "%s%sring", path, *path ? "." : "");
		if (uint_val(y, key, ring, 64, 262144, &x) < 0)
			return -EINVAL;
		e->ring = (uint32_t)x;
	}
	if (mtu) {
		snprintf(key, sizeof(key), "%s%smtu", path, *path ? "." : "");
		if (uint_val(y, key, mtu, 576, 9000, &x) < 0)
			return -EINVAL;
		e->mtu = (uint32_t)x;
	}
	if (dpargs) {
		char *copy = strdup(dpargs), *save = NULL, q[300];
		const char *opt = NULL; /* an option whose value is the next word */
		int rc = 0;

		snprintf(key, sizeof(key), "%s%sdataplane", path, *path ? "." : "");
		if (copy == NULL)
			return -ENOMEM;
		e->dpargs[0] = '\0';
		for (char *w = strtok_r(copy, " \t", &save); w && rc == 0;
		     w = strtok_r(NULL, " \t", &save)) {
			const char *eq = strchr(w, '=');

			if (opt != NULL) { /* the value of the option before */
				opt = NULL;
			} else if (strncmp(w, "--", 2) != 0 ||
				   !fe_dpopt_known(w + 2,
						   eq ? (size_t)(eq - w - 2) : strlen(w + 2))) {
				/* fabemu-dp's own options (fe_dpopts.h), each with a value */
				rc = fe_yaml_fail(
					y, key,
					"%s: '%s' is not an option of fabemu-dp (fabemu-dp "
					"--help lists them)",
					key, w);
			} else if (!strncmp(w, "--profile", 9) || !strncmp(w, "--scale", 7) ||
				   !strncmp(w, "--topology", 10) || !strncmp(w, "--path", 6) ||
				   !strncmp(w, "--seed", 6) || !strncmp(w, "--control", 9) ||
				   !strncmp(w, "--stats-json", 12)) {
				/* the campaign sets these itself, for every run */
				rc = fe_yaml_fail(y, key,
						  "%s: '%s' is the campaign's to set (use profile, "
						  "scale, seed)",
						  key, w);
			} else if (!eq) {
				opt = w; /* --name value */
			}
			cg_quote(q, sizeof(q), w);
			if (rc == 0 && (strlen(w) > 200 ||
					strlen(e->dpargs) + 1 + strlen(q) >= sizeof(e->dpargs)))
				rc = fe_yaml_fail(y, key, "%s: too long (at most %zu bytes)", key,
						  sizeof(e->dpargs) / 2);
			if (rc == 0)
				snprintf(e->dpargs + strlen(e->dpargs),
					 sizeof(e->dpargs) - strlen(e->dpargs), " %s", q);
		}
		if (rc == 0 && opt != NULL)
			rc = fe_yaml_fail(y, key, "%s: '%s' wants a value", key, opt);
		free(copy);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
compile_job(struct fe_yaml *y, const struct y_campaign *d, struct cg_campaign *c)
{
	/* no job: the documented defaults (an all-reduce of 1MiB, 20 iterations, 2 warm-up) */
	static const struct y_job defaults;
	const struct y_job *j = d->job ? d->job : &defaults;
	uint64_t x;

	/* torch: the same all-reduce, over torch.distributed's gloo rather than MPI;
	 * permutation: the MPI job's permutation (fe-allreduce --pattern), sized the same */
	c->torch = j->kind && strcmp(j->kind, "torch") == 0;
	c->perm = j->kind && strcmp(j->kind, "permutation") == 0;
	c->allreduce = j->kind == NULL || strcmp(j->kind, "allreduce") == 0 || c->torch || c->perm;
	if (!c->allreduce && strcmp(j->kind, "command") != 0)
		return fe_yaml_fail(
			y, "job.kind",
			"job.kind '%s' (allowed: allreduce, torch, permutation, command)", j->kind);
	if (!c->allreduce) {
		const char *stray = j->iterations ? "iterations"
				    : j->warmup	  ? "warmup"
				    : j->sizes	  ? "sizes"
						  : NULL;
		char key[32];

		if (j->command == NULL)
			return fe_yaml_fail(y, "job.kind", "job: kind command needs a command");
		if (stray) {
			snprintf(key, sizeof(key), "job.%s", stray);
			return fe_yaml_fail(y, key,
					    "job.%s: an allreduce job's (a command job takes "
					    "command)",
					    stray);
		}
		snprintf(c->command, sizeof(c->command), "%s", j->command);
		return 0;
	}
	if (j->command)
		return fe_yaml_fail(y, "job.command",
				    "job.command: a command job's (kind: command); an allreduce "
				    "job takes sizes, iterations, warmup");
	c->iters = 20;
	c->warmup = 2;
	if (j->iterations && uint_val(y, "job.iterations", j->iterations, 1, CG_MAX_ITERS, &x) < 0)
		return -EINVAL;
	c->iters = j->iterations ? (unsigned)x : c->iters;
	if (j->warmup && uint_val(y, "job.warmup", j->warmup, 0, 1000, &x) < 0)
		return -EINVAL;
	c->warmup = j->warmup ? (unsigned)x : c->warmup;
	for (unsigned i = 0; i < j->sizes_count; i++) {
		char e[200], path[32];

		snprintf(path, sizeof(path), "job.sizes.%u", i);
		/* the job sums int32s: a size it sends as given is a whole number of them */
		if (fe_parse_size(j->sizes[i], &c->sizes[i], e, sizeof(e)) < 0 || c->sizes[i] < 4 ||
		    c->sizes[i] > (1ULL << 30) || c->sizes[i] % 4)
			return fe_yaml_fail(y, path,
					    "job.sizes: '%s' (allowed: 4B to 1GiB, a multiple of "
					    "4 bytes: the job sums 32-bit integers)",
					    j->sizes[i]);
		c->nsizes++;
	}
	if (c->nsizes == 0) {
		c->sizes[0] = 1 << 20;
		c->nsizes = 1;
	}
	return 0;
}

/* What the compiled links say of a regime: its hop, its offered load, whether ideal. */
static void
regime_figures(struct cg_regime *g, const struct fe_linkdef *up, const struct fe_linkdef *down,
	       unsigned hosts)
{
	/* a full-sized frame on the wire: the hosts' MTU, Ethernet header, FCS, preamble, gap */
	uint64_t frame = (g->edge.mtu ? g->edge.mtu : 1500) + 38ULL;

	g->hop_ns = down[0].link.delay_ns +
		    (down[0].link.rate_bps ? frame * 8 * 1000000000 / down[0].link.rate_bps : 0);
	g->ideal = g->fabric.regime == FE_REGIME_LOSSY;
	g->offered_bps = 0;
	for (unsigned i = 0; i < hosts; i++) {
		const struct fe_linkdef *l[2] = {&up[i], &down[i]};

		for (unsigned k = 0; k < 2; k++)
			g->ideal &= l[k]->link.rate_bps == 0 && l[k]->link.delay_ns == 0 &&
				    l[k]->loss.kind == FE_LOSS_NONE && !l[k]->ecn.enabled &&
				    l[k]->link.jitter_ns == 0 && l[k]->drop_count == 0;
	}
	for (unsigned i = 0; i < hosts; i++) {
		if (up[i].link.rate_bps == 0) { /* one unbounded host: no figure */
			g->offered_bps = 0;
			return;
		}
		g->offered_bps += up[i].link.rate_bps;
	}
}

/* `topology import` writes campaigns of a lab's hosts only within the campaign's range */
_Static_assert(FE_CLAB_CAMPAIGN_HOSTS == CG_MAX_HOSTS, "fe_clab.h's campaign hosts, cg.h's");

/* The names of t's links between switches (t NULL: none), as fe_linkspec_pick() takes them;
 * fabric_names_free() after. 0, or -ENOMEM. */
struct fabric_names {
	struct fe_fabric_links fab;
	struct fe_linkdef *def;
	char (*dir)[80];
	char (*link)[72];
};

static void
fabric_names_free(struct fabric_names *f)
{
	free(f->def);
	free(f->dir);
	free(f->link);
	f->def = NULL;
	f->dir = NULL;
	f->link = NULL;
}

static int
fabric_names(const struct fe_topo *t, struct fabric_names *f)
{
	unsigned n = t ? 2 * t->nlinks : 0;

	f->def = calloc(n + 1, sizeof(*f->def));
	f->dir = calloc(n + 1, sizeof(*f->dir));
	f->link = calloc(n + 1, sizeof(*f->link));
	if (f->def == NULL || f->dir == NULL || f->link == NULL) {
		fabric_names_free(f);
		return -ENOMEM;
	}
	if (t)
		fe_topo_fabric_names(t, f->dir, f->link);
	f->fab = (struct fe_fabric_links){.n = n,
					  .def = f->def,
					  .dir = (const char(*)[80])f->dir,
					  .link = (const char(*)[72])f->link};
	return 0;
}

/*
 * A regime's --link spec on its ports (up, down) and, with a topology (t, else NULL), on
 * its links between switches by their names (A-B, A>B, fabric), as fabemu-dp takes it:
 * without a topology those are refused.
 */
static int
fabric_spec(const char *spec, const struct fe_topo *t, struct fe_linkdef *up,
	    struct fe_linkdef *down, unsigned hosts, char *err, size_t errlen)
{
	struct fabric_names f;
	int rc;

	if (fabric_names(t, &f) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = fe_linkspec_apply_fabric(spec, up, down, hosts, &f.fab, err, errlen);
	fabric_names_free(&f);
	return rc;
}

/*
 * scale: N, a fixed scale; or scale: auto, chosen by the calibration before the regimes
 * (cg_calib.c) from scale-min (default 1) up to scale-max (default: the most the regime
 * compiles at). The regime compiles at its floor until then.
 */
static int
regime_scale(struct fe_yaml *y, const struct y_regime *r, const char *path, struct cg_regime *g)
{
	char key[80], e[200];
	uint64_t x = 0;

	g->scale_auto = r->scale && strcmp(r->scale, "auto") == 0;
	snprintf(key, sizeof(key), "%s.scale", path);
	if (r->scale && !g->scale_auto &&
	    fe_rule_parse(&fe_rule_scale, "", r->scale, &x, e, sizeof(e)) < 0)
		return fe_yaml_fail(y, key, "%s '%s' (allowed: 1 to %u, or auto)", key, r->scale,
				    FE_PROFILE_SCALE_MAX);
	g->scale = (uint32_t)x;
	/* a range is the calibration's: beside a fixed scale it would say nothing */
	snprintf(key, sizeof(key), "%s.%s", path, r->scale_min ? "scale-min" : "scale-max");
	if ((r->scale_min || r->scale_max) && !g->scale_auto)
		return fe_yaml_fail(y, key, "%s '%s': only with scale: auto (scale %s is fixed)",
				    key, r->scale_min ? r->scale_min : r->scale_max,
				    r->scale ? r->scale : "unset: the profile's");
	snprintf(key, sizeof(key), "%s.scale-min", path);
	if (r->scale_min && fe_yaml_rule(y, key, &fe_rule_scale, r->scale_min, &x) < 0)
		return -EINVAL;
	g->scale_min = r->scale_min ? (uint32_t)x : 0;
	snprintf(key, sizeof(key), "%s.scale-max", path);
	if (r->scale_max && fe_yaml_rule(y, key, &fe_rule_scale, r->scale_max, &x) < 0)
		return -EINVAL;
	g->scale_max = r->scale_max ? (uint32_t)x : 0;
	if (g->scale_max && g->scale_min > g->scale_max)
		return fe_yaml_fail(y, key, "%s '%s': below scale-min %s", key, r->scale_max,
				    r->scale_min);
	if (g->scale_auto) /* compiled at its floor until the calibration chooses */
		g->scale = g->scale_min ? g->scale_min : 1;
	return 0;
}

static int
compile_dataplane_regime(struct fe_yaml *y, const struct y_regime *r, const char *path,
			 struct cg_campaign *c, struct cg_regime *g)
{
	struct fe_linkdef *up = g->up, *down = g->down;
	struct fe_profile *p = malloc(sizeof(*p));
	struct fe_topo *topo = NULL;
	char key[64], err[1024];
	int rc = 0;

	if (p == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	if (r->profile == NULL) {
		rc = fe_yaml_fail(y, path, "%s: a profile is required (regime %s)", path, g->name);
		goto out;
	}
	if (regime_scale(y, r, path, g) < 0) {
		rc = -EINVAL;
		goto out;
	}
	snprintf(key, sizeof(key), "%s.profile", path);
	if (fe_profile_find(r->profile, g->profile, sizeof(g->profile), err, sizeof(err)) < 0) {
		rc = fe_yaml_fail(y, key, "%s: %s", key, err);
		goto out;
	}
	if (fe_profile_load(g->profile, p, err, sizeof(err)) < 0 ||
	    fe_profile_expand(p, g->scale, c->hosts, up, down, &g->fabric, err, sizeof(err)) < 0) {
		rc = fe_yaml_fail(y, key, "%s: %s", key, err);
		goto out;
	}
	g->scale = g->scale ? g->scale : p->scale;
	snprintf(g->profile_name, sizeof(g->profile_name), "%s", p->name);
	if (r->topology) { /* several switches: the hosts' ports are the topology's, in order */
		struct fe_topo *t = topo = malloc(sizeof(*t));

		snprintf(key, sizeof(key), "%s.topology", path);
		if (t == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		char found[PATH_MAX];

		if (fe_topo_find(r->topology, found, sizeof(found), err, sizeof(err)) < 0 ||
		    fe_topo_load(found, t, err, sizeof(err)) < 0)
			rc = fe_yaml_fail(y, key, "%s: %s", key, err);
		else if (t->nports != c->hosts)
			rc = fe_yaml_fail(y, key,
					  "%s: topology %s has %u host ports; the campaign "
					  "has %u hosts",
					  key, t->name, t->nports, c->hosts);
		snprintf(g->topology_name, sizeof(g->topology_name), "%s", t->name);
		/* fabemu-dp gets it by its full path, whatever its working directory */
		if (rc == 0 && realpath(found, g->topology) == NULL)
			rc = fe_yaml_fail(y, key, "%s: %s: %s", key, found, strerror(errno));
		if (rc < 0)
			goto out;
	}
	if (r->split) { /* across boxes: the topology's, one fabemu-dp each */
		snprintf(key, sizeof(key), "%s.split", path);
		if (bool_val(y, key, r->split, &g->split) < 0) {
			rc = -EINVAL;
			goto out;
		}
		if (g->split && topo == NULL) {
			rc = fe_yaml_fail(y, key, "%s: true without a topology", key);
			goto out;
		}
		if (g->split && fe_topo_split_check(topo, err, sizeof(err)) < 0) {
			rc = fe_yaml_fail(y, key, "%s: topology %s: %s", key, topo->name, err);
			goto out;
		}
		if (g->split) {
			char names[FE_TOPO_BOXES][FE_TOPO_NAME];
			unsigned n = fe_topo_boxes(topo, names);

			/* the other boxes run in network namespaces of their own, the hosts
			 * beside the first */
			for (unsigned h = 0; h < topo->nhosts; h++)
				for (unsigned k = 0; k < topo->host[h].nports; k++)
					if (fe_topo_box_of(topo, names, n, topo->host[h].sw[k]) !=
					    0) {
						rc = fe_yaml_fail(
							y, key,
							"%s: host %s is on box %s: a "
							"campaign's hosts are all on one box (%s)",
							key, topo->host[h].name,
							names[fe_topo_box_of(topo, names, n,
									     topo->host[h].sw[k])],
							names[0]);
						goto out;
					}
		}
	}
	if (r->realtime) { /* the other boxes SCHED_FIFO (cg_dataplane.c) */
		snprintf(key, sizeof(key), "%s.realtime", path);
		if (bool_val(y, key, r->realtime, &g->realtime) < 0) {
			rc = -EINVAL;
			goto out;
		}
		if (g->realtime && !g->split) {
			rc = fe_yaml_fail(y, key,
					  "%s: true without split: true (it is for the "
					  "boxes that share the hosts' core)",
					  key);
			goto out;
		}
	}
	if (p->path_set) /* the profile's, unless the regime says */
		g->path = p->path;
	if (r->path) {
		snprintf(key, sizeof(key), "%s.path", path);
		if (r->topology == NULL) {
			rc = fe_yaml_fail(y, key, "%s: without a topology", key);
			goto out;
		}
		g->path_set = 1;
		if (fe_path_parse(r->path, &g->path) < 0) {
			rc = fe_yaml_fail(y, key, "%s '%s' (allowed: " FE_PATH_ALLOWED ")", key,
					  r->path);
			goto out;
		}
	}
	if (r->nic) { /* on top of the profile's nic:, as fabemu-dp --nic takes it */
		snprintf(g->nic, sizeof(g->nic), "%s", r->nic);
		snprintf(key, sizeof(key), "%s.nic", path);
		if (fe_nic_spec(r->nic, &g->fabric.nic, err, sizeof(err)) < 0 ||
		    fe_nic_check(&g->fabric.nic, "", err, sizeof(err), NULL) < 0) {
			rc = fe_yaml_fail(y, key, "%s '%s': %s", key, r->nic, err);
			goto out;
		}
	}
	/* alike: the campaign's alike links first (the buffer where the regime tail-drops), on
	 * a topology its links between switches too, then the regime's own links: entries
	 * over them, as in its as-specified twin */
	for (unsigned k = 0; g->alike && k < (topo ? 3u : 2u) && rc == 0; k++) {
		int drops = g->fabric.regime == FE_REGIME_LOSSY;
		const char *e = k == 2 ? c->alike.fabric[drops]
				: k    ? c->alike.down[drops]
				       : c->alike.up[drops];

		snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "%s", e);
		g->nalike = g->nlinks;
		snprintf(key, sizeof(key), "%s.alike", path);
		if (fabric_spec(e, topo, up, down, c->hosts, err, sizeof(err)) < 0)
			rc = fe_yaml_fail(y, key, "%s: alike-links entry '%s': %s", key, e, err);
	}
	for (unsigned k = 0; k < r->links_count && rc == 0; k++) {
		snprintf(g->links[g->nlinks++], sizeof(g->links[0]), "%s", r->links[k]);
		/* with a topology, its links between switches may be named too (A-B, A>B) */
		snprintf(key, sizeof(key), "%s.links.%u", path, k);
		if (fabric_spec(r->links[k], topo, up, down, c->hosts, err, sizeof(err)) < 0)
			rc = fe_yaml_fail(y, key, "%s '%s': %s", key, r->links[k], err);
	}
	regime_figures(g, up, down, c->hosts);
	/* an ideal fabric is all of it: no topology (its links between switches), no links:
	 * entry (on a host's port or a switch's link) */
	g->ideal &= topo == NULL && g->nlinks == 0;
out:
	free(topo);
	free(p);
	return rc;
}

/*
 * A regime's name: letters, digits, '_', '-', '.' (as a topology's names) and '%' (the
 * shipped ones say eth-0.1%-loss), at most 63 of them; 1 if not. It names files and CSV
 * fields: no '/', ',', quote or space.
 */
static int
regime_name_bad(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= sizeof(((struct cg_regime *)0)->name))
		return 1;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.' && *s != '%')
			return 1;
	return 0;
}

/*
 * alike: REGIME: that regime, above this one in the file, as it is (profile, scale, NICs,
 * links:, edge) but over the campaign's alike-links, at the campaign's MTU: only its flow
 * control and NICs differ from the other alike regimes' (docs/campaigns.md).
 */
static int
compile_alike_regime(struct fe_yaml *y, const struct y_campaign *d, unsigned i,
		     struct cg_campaign *c)
{
	const struct y_regime *r = &d->regimes[i];
	struct cg_regime *g = &c->reg[i];
	char path[64], key[80], names[CG_MAX_REGIMES * 66] = "";
	struct y_regime src;
	size_t n = 0;
	int j = -1;

	snprintf(path, sizeof(path), "regimes.%u", i);
	snprintf(key, sizeof(key), "%s.alike", path);
	/* only the name beside it: what differs from the regime it names is the links */
	if (r->kind || r->profile || r->scale || r->pmd || r->ring || r->mtu || r->dataplane ||
	    r->nic || r->topology || r->path || r->split || r->realtime || r->links_count ||
	    r->scale_min || r->scale_max)
		return fe_yaml_fail(y, path,
				    "%s: alike takes the regime it names whole (name and alike "
				    "only): give what else differs to a regime of its own",
				    path);
	if (!c->alike.set)
		return fe_yaml_fail(y, key,
				    "%s: needs alike-links: {profile: P, scale: S}, the links it "
				    "runs over",
				    key);
	for (unsigned k = 0; k < i; k++) {
		if (strcmp(c->reg[k].name, r->alike) == 0)
			j = (int)k;
		cg_addf(names, sizeof(names), &n, "%s%s", k ? ", " : "", c->reg[k].name);
	}
	if (j < 0)
		return fe_yaml_fail(y, key, "%s '%s': not a regime above this one (above: %s)", key,
				    r->alike, i ? names : "none");
	/* the rule: a fabric through fabemu, as specified, on one switch */
	if (c->reg[j].kind == CG_WIRE)
		return fe_yaml_fail(y, key, "%s '%s': the wire has no links to make alike", key,
				    r->alike);
	if (c->reg[j].alike)
		return fe_yaml_fail(y, key,
				    "%s '%s': an alike regime itself (name the regime it is "
				    "alike of, %s)",
				    key, r->alike, c->reg[c->reg[j].alike_of].name);
	if (c->reg[j].nlinks + 3 > sizeof(c->reg[j].links) / sizeof(c->reg[j].links[0]))
		return fe_yaml_fail(y, key,
				    "%s '%s': its %u links: entries and the %u of alike-links are "
				    "more than %zu",
				    key, r->alike, c->reg[j].nlinks, c->reg[j].topology[0] ? 3 : 2,
				    sizeof(c->reg[j].links) / sizeof(c->reg[j].links[0]));
	src = d->regimes[j];
	src.name = r->alike;
	g->edge = c->edge; /* the campaign's MTU: the links are alike in it too */
	if (edge_val(y, path, src.pmd, src.ring, NULL, src.dataplane, &g->edge) < 0)
		return -EINVAL;
	g->kind = CG_DATAPLANE;
	g->alike = 1;
	g->alike_of = (unsigned)j;
	return compile_dataplane_regime(y, &src, path, c, g);
}

/*
 * With testbed kind hosts, what a regime cannot do to existing hosts: the wire (a Linux
 * bridge joining veth hosts), split (the other boxes in namespaces and veth trunks of
 * this machine), its own pmd (the ports are the file's devices). -EINVAL, said at the key.
 */
static int
hosts_regime_bad(struct fe_yaml *y, const struct y_regime *r, const char *path)
{
	char key[80];

	if (r->kind && strcmp(r->kind, "wire") == 0) {
		snprintf(key, sizeof(key), "%s.kind", path);
		return fe_yaml_fail(
			y, key,
			"%s: wire is the campaign's veth hosts joined by a Linux bridge: "
			"not with testbed kind hosts (compare with an ideal regime, "
			"profile: ideal)",
			key);
	}
	if (r->split && strcmp(r->split, "false") != 0) {
		snprintf(key, sizeof(key), "%s.split", path);
		return fe_yaml_fail(
			y, key,
			"%s: the other boxes run in namespaces and veth trunks this "
			"machine makes: not with testbed kind hosts (docs/scale-out.md: "
			"a box a machine)",
			key);
	}
	if (r->pmd) {
		snprintf(key, sizeof(key), "%s.pmd", path);
		return fe_yaml_fail(y, key,
				    "%s: not with testbed kind hosts (the ports are the devices "
				    "testbed.hosts.N.port names)",
				    key);
	}
	return 0;
}

static int
compile_regime(struct fe_yaml *y, const struct y_campaign *d, unsigned i, struct cg_campaign *c)
{
	const struct y_regime *r = &d->regimes[i];
	struct cg_regime *g = &c->reg[i];
	char path[64], key[80];
	uint64_t x;

	snprintf(path, sizeof(path), "regimes.%u", i);
	if (r->name == NULL)
		return fe_yaml_fail(y, path, "%s: a name is required", path);
	/* it names files (logs/dp-NAME-1.log), CSV fields and labels, as a topology's names */
	snprintf(key, sizeof(key), "%s.name", path);
	if (regime_name_bad(r->name))
		return fe_yaml_fail(y, key,
				    "%s '%s': a name of letters, digits, '_', '-', '.' and '%%' "
				    "only, 1 to %zu characters",
				    key, r->name, sizeof(g->name) - 1);
	snprintf(g->name, sizeof(g->name), "%s", r->name);
	for (unsigned k = 0; k < i; k++)
		if (strcmp(c->reg[k].name, g->name) == 0)
			return fe_yaml_fail(y, key, "%s '%s': taken by regimes.%u", key, g->name,
					    k);
	if (c->tb == CG_TB_HOSTS && hosts_regime_bad(y, r, path) < 0)
		return -EINVAL;
	if (r->alike)
		return compile_alike_regime(y, d, i, c);
	g->edge = c->edge;
	if (edge_val(y, path, r->pmd, r->ring, r->mtu, r->dataplane, &g->edge) < 0)
		return -EINVAL;
	/* the job on hosts 1..ranks: one fabric measured at several rank counts */
	snprintf(key, sizeof(key), "%s.ranks", path);
	if (r->ranks && uint_val(y, key, r->ranks, 2, c->hosts, &x) < 0)
		return -EINVAL;
	g->ranks = r->ranks ? (unsigned)x : 0;
	g->kind = CG_DATAPLANE;
	if (r->kind && strcmp(r->kind, "wire") == 0) {
		/* the hosts joined by a bridge: no fabric to describe */
		g->kind = CG_WIRE;
		if (r->profile || r->scale || r->links_count || r->pmd || r->ring || r->dataplane ||
		    r->nic || r->topology || r->path || r->split || r->realtime || r->scale_min ||
		    r->scale_max)
			return fe_yaml_fail(y, path,
					    "%s: kind wire is the hosts joined by a Linux "
					    "bridge, without fabemu: profile, scale, links, nic, "
					    "topology, path, split, realtime, pmd, ring and "
					    "dataplane do not apply (mtu does)",
					    path);
		snprintf(g->profile_name, sizeof(g->profile_name), "(bridge)");
		return 0;
	}
	snprintf(key, sizeof(key), "%s.kind", path);
	if (r->kind && strcmp(r->kind, "dataplane") != 0)
		return fe_yaml_fail(y, key, "%s '%s' (allowed: dataplane, wire)", key, r->kind);
	return compile_dataplane_regime(y, r, path, c, g);
}

/* An action's end, after its start: 1 us to a day (a fault that lasts the whole job
 * takes no end at all). */
static const struct fe_rule rule_duration = {
	.kind = FE_RULE_TIME, .min = 1000, .max = 86400ULL * 1000000000};

/* starve, pause-storm: the link held 1 us to 60 s (fabemuctl hold's most; its 0 holds
 * nothing) */
static const struct fe_rule rule_hold = {
	.kind = FE_RULE_TIME, .min = 1000, .max = 60ULL * 1000000000};

/*
 * When an action starts or ends (at, or until: path names it): an iteration, before which
 * the job's hook runs it, or a time after the job started. Messages name the key:
 * timeline.N.at.iteration, timeline.N.until.time.
 */
static int
when(struct fe_yaml *y, const char *path, const struct y_at *at, const struct cg_campaign *c,
     int *iter, uint64_t *ns)
{
	char key[64], e[200];
	uint64_t x;

	*iter = 0;
	*ns = 0;
	if (at == NULL || (at->iteration == NULL) == (at->time == NULL))
		return fe_yaml_fail(y, path, "%s: give iteration: N or time: T (one of them)",
				    path);
	snprintf(key, sizeof(key), "%s.%s", path, at->iteration ? "iteration" : "time");
	if (at->iteration) {
		/* a command job's iterations are its own (it runs $FE_HOOK G, cg_job.c): any
		 * up to CG_MAX_ITERS; one it never reaches is said not reached */
		uint64_t most = c->allreduce ? (uint64_t)c->iters * c->nsizes : CG_MAX_ITERS;

		if (uint_val(y, key, at->iteration, 1, most, &x) < 0)
			return -EINVAL;
		*iter = (int)x;
		return 0;
	}
	if (fe_parse_time(at->time, ns, e, sizeof(e)) < 0)
		return fe_yaml_fail(y, key, "%s: %s", key, e);
	return 0;
}

static int add_step(struct cg_campaign *c, const char *src, int iter, uint64_t ns, int revert,
		    const char *what, const char *link, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

/* A step of the timeline, on link (of the campaign's file), its command's arguments fmt. */
static int
add_step(struct cg_campaign *c, const char *src, int iter, uint64_t ns, int revert,
	 const char *what, const char *link, const char *fmt, ...)
{
	struct cg_step *s;
	va_list ap;

	if (c->nsteps == CG_STEPS_MAX)
		return -E2BIG;
	s = &c->steps[c->nsteps++];
	s->at_iter = iter;
	s->at_ns = ns;
	s->revert = revert;
	snprintf(s->what, sizeof(s->what), "%s", what);
	snprintf(s->src, sizeof(s->src), "%s", src);
	snprintf(s->link, sizeof(s->link), "%s", link);
	va_start(ap, fmt);
	vsnprintf(s->args, sizeof(s->args), fmt, ap);
	va_end(ap);
	return 0;
}

/*
 * A link spec (key=value,...) checked now, not when the fault is due, by the parser the
 * dataplane's `set` uses: every item key=value, its key known, its value valid. key names
 * the campaign's key it comes from (timeline.N.spec, .loss, .delay, .match); lkey, the
 * link key that one gives (loss, delay, match), or NULL for a whole spec.
 */
static int
check_spec(struct fe_yaml *y, const char *key, const char *lkey, const char *spec,
	   const struct cg_campaign *c)
{
	struct fe_linkdef *up = calloc(CG_MAX_HOSTS, sizeof(*up));
	struct fe_linkdef *down = calloc(CG_MAX_HOSTS, sizeof(*down));
	char full[800], e[400];
	int rc = 0;

	if (up == NULL || down == NULL) {
		rc = -ENOMEM;
	} else if ((size_t)snprintf(full, sizeof(full), "all:%s", spec) >= sizeof(full)) {
		rc = fe_yaml_fail(y, key, "%s: longer than %zu characters", key, sizeof(full) - 5);
	} else if (fe_linkspec_apply(full, up, down, c->hosts, e, sizeof(e)) < 0) {
		size_t n = lkey ? strlen(lkey) : 0;

		/* the message starts with the link key ("loss: ...", "match 'x': ..."): the
		 * campaign's key in its place */
		if (n && strncmp(e, lkey, n) == 0 && (e[n] == ':' || e[n] == ' '))
			rc = fe_yaml_fail(y, key, "%s%s", key, e + n);
		else
			rc = fe_yaml_fail(y, key, "%s '%s': %s", key, spec, e);
	}
	free(up);
	free(down);
	return rc;
}

/* Regime g's topology, loaded (free() it); NULL: a wire, one switch, or out of memory. */
static struct fe_topo *
regime_topo(const struct cg_regime *g, char *e, size_t elen)
{
	struct fe_topo *t;

	if (g->kind == CG_WIRE || !g->topology[0]) {
		snprintf(e, elen, "no topology");
		return NULL;
	}
	if ((t = malloc(sizeof(*t))) == NULL) {
		snprintf(e, elen, "out of memory");
		return NULL;
	}
	if (fe_topo_load(g->topology, t, e, elen) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

int
cg_regime_hops(const struct cg_campaign *c, const struct cg_regime *g, struct fe_linkdef *def,
	       char (*dir)[80], char *err, size_t errlen)
{
	struct fe_profile *p = malloc(sizeof(*p));
	struct fe_linkdef *up = calloc(2 * (size_t)c->hosts, sizeof(*up)), class;
	struct fabric_names f = {0};
	struct fe_topo *t = NULL;
	char e[400];
	int n = -1;

	if (p == NULL || up == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (g->kind == CG_WIRE || !g->topology[0]) {
		n = 0;
		goto out;
	}
	if ((t = regime_topo(g, e, sizeof(e))) == NULL ||
	    fe_profile_load(g->profile, p, e, sizeof(e)) < 0 ||
	    fe_profile_fabric(p, g->scale, &class, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "regime %s: %s", g->name, e);
		goto out;
	}
	if (fabric_names(t, &f) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (unsigned l = 0; l < t->nlinks; l++) {
		struct fe_linkdef_over o = fe_topo_over(&t->link[l]);

		fe_linkdef_apply_over(&class, &o, &f.def[2 * l]);
		f.def[2 * l + 1] = f.def[2 * l];
	}
	memcpy(up, g->up, c->hosts * sizeof(*up)); /* the ports': as compiled, taken again */
	memcpy(up + c->hosts, g->down, c->hosts * sizeof(*up));
	for (unsigned i = 0; i < g->nlinks; i++)
		if (fe_linkspec_apply_fabric(g->links[i], up, up + c->hosts, c->hosts, &f.fab, e,
					     sizeof(e)) < 0) {
			snprintf(err, errlen, "regime %s: links entry '%s': %s", g->name,
				 g->links[i], e);
			goto out;
		}
	n = (int)f.fab.n;
	memcpy(def, f.def, (size_t)n * sizeof(*def));
	memcpy(dir, f.dir, (size_t)n * sizeof(*dir));
out:
	fabric_names_free(&f);
	free(p);
	free(t);
	free(up);
	return n;
}

int
cg_regime_has_link(const struct cg_campaign *c, const struct cg_regime *g, const char *sel)
{
	uint8_t pick[2 * FE_TOPO_LINKS];
	struct fabric_names f;
	struct fe_topo *t;
	char e[400];
	long port;
	int dirs, has = 0;

	/* as the regime's dataplane takes sel: its ports', and its topology's links by name
	 * (none without one: fabric, A-B, A>B are not its) */
	t = regime_topo(g, e, sizeof(e));
	if (fabric_names(t, &f) == 0) {
		has = fe_linkspec_pick(sel, c->hosts, &f.fab, &port, &dirs, pick, e, sizeof(e)) ==
		      0;
		fabric_names_free(&f);
	}
	free(t);
	return has;
}

/* Some regime runs on a topology with a link between switches so named (A-B, A>B). */
static int
fabric_link_known(const struct cg_campaign *c, const char *name)
{
	for (unsigned g = 0; g < c->nreg; g++)
		if (cg_regime_has_link(c, &c->reg[g], name))
			return 1;
	return 0;
}

/* The keys an action may have beside action, link and at (docs/campaigns.md's table). */
enum {
	K_PROFILE = 1 << 0,
	K_SCALE = 1 << 1,
	K_SPEC = 1 << 2,
	K_LOSS = 1 << 3,
	K_DELAY = 1 << 4,
	K_MATCH = 1 << 5,
	K_FIRST = 1 << 6,
	K_COUNT = 1 << 7,
	K_DURATION = 1 << 8,
	K_UNTIL = 1 << 9,
};

#define K_ENDS (K_DURATION | K_UNTIL)

static const struct {
	const char *name;
	unsigned keys;
	unsigned needs;	  /* the key it cannot do without (0: none) */
	const char *list; /* the keys, for messages */
} actions[] = {
	{"apply", K_PROFILE | K_SCALE | K_ENDS, K_PROFILE, "profile, scale, duration or until"},
	{"set", K_SPEC | K_ENDS, K_SPEC, "spec, duration or until"},
	{"loss", K_LOSS | K_ENDS, K_LOSS, "loss, duration or until"},
	{"delay", K_DELAY | K_ENDS, K_DELAY, "delay, duration or until"},
	{"drop", K_MATCH | K_FIRST | K_COUNT | K_ENDS, K_MATCH,
	 "match, first, count, duration or until"},
	{"flap", K_ENDS, 0, "duration or until"},
	{"starve", K_DURATION, K_DURATION, "duration"},
	{"pause-storm", K_DURATION, K_DURATION, "duration"},
};

/* An action's keys beside action, link and at, by name */
static const struct {
	const char *name;
	unsigned bit;
} action_keys[] = {
	{"profile", K_PROFILE},	  {"scale", K_SCALE}, {"spec", K_SPEC},	  {"loss", K_LOSS},
	{"delay", K_DELAY},	  {"match", K_MATCH}, {"first", K_FIRST}, {"count", K_COUNT},
	{"duration", K_DURATION}, {"until", K_UNTIL},
};

/* The value action a gives key bit (NULL: none) */
static const void *
action_value(const struct y_action *a, unsigned bit)
{
	switch (bit) {
	case K_PROFILE:
		return a->profile;
	case K_SCALE:
		return a->scale;
	case K_SPEC:
		return a->spec;
	case K_LOSS:
		return a->loss;
	case K_DELAY:
		return a->delay;
	case K_MATCH:
		return a->match;
	case K_FIRST:
		return a->first;
	case K_COUNT:
		return a->count;
	case K_DURATION:
		return a->duration;
	default:
		return a->until;
	}
}

/* starve, pause-storm: the link held for its duration (fabemuctl hold), no end step */
static int
holds(int kind)
{
	return !(actions[kind].keys & K_UNTIL);
}

#define ACTIONS "apply, set, loss, delay, drop, flap, starve, pause-storm"

/* The action's kind (its entry in actions[]); a key it does not take refused at its line. */
static int
action_kind(struct fe_yaml *y, const char *path, const struct y_action *a)
{
	char key[64];
	int k = -1;

	if (a->action == NULL)
		return fe_yaml_fail(y, path, "%s: action is required (" ACTIONS ")", path);
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]) && k < 0; i++)
		if (strcmp(a->action, actions[i].name) == 0)
			k = (int)i;
	snprintf(key, sizeof(key), "%s.action", path);
	if (k < 0)
		return fe_yaml_fail(y, key, "%s '%s' (allowed: " ACTIONS ")", key, a->action);
	for (size_t i = 0; i < sizeof(action_keys) / sizeof(action_keys[0]); i++) {
		if (action_value(a, action_keys[i].bit) == NULL ||
		    (actions[k].keys & action_keys[i].bit))
			continue;
		snprintf(key, sizeof(key), "%s.%s", path, action_keys[i].name);
		return fe_yaml_fail(y, key,
				    "%s: action %s does not take %s (its keys: action, link, at, "
				    "%s)",
				    key, a->action, action_keys[i].name, actions[k].list);
	}
	return k;
}

/* Some regime's topology has sel as a link named the other way round (B-A for A-B):
 * -EINVAL with fe_linkspec_misnamed()'s message in e, as fabemu-dp and `set` give it. */
static int
misnamed_in_regimes(const struct cg_campaign *c, const char *sel, char *e, size_t len)
{
	int rc = 0;

	for (unsigned g = 0; g < c->nreg && rc == 0; g++) {
		struct fabric_names f;
		char te[400];
		struct fe_topo *t = regime_topo(&c->reg[g], te, sizeof(te));

		if (t != NULL && fabric_names(t, &f) == 0) {
			rc = fe_linkspec_misnamed(sel, &f.fab, e, len);
			fabric_names_free(&f);
		}
		free(t);
	}
	return rc;
}

/* The link an action is on: a port's (of the campaign's hosts), or a link between
 * switches of some regime's topology (a regime without it reports the step as not run). */
static int
action_link(struct fe_yaml *y, const char *path, const struct y_action *a,
	    const struct cg_campaign *c, long *port, int *dirs)
{
	struct fe_fabric_links one_switch = {0};
	char key[64], e[400];
	uint8_t pick[1];
	int topo = 0;

	if (a->link == NULL)
		return fe_yaml_fail(y, path, "%s: link is required (N.up, N.down, N, ...)", path);
	snprintf(key, sizeof(key), "%s.link", path);
	for (unsigned g = 0; g < c->nreg; g++)
		topo |= c->reg[g].topology[0] != '\0';
	/* no regime has links between switches: fabric, A-B, A>B refused, as fabemu-dp and a
	 * regime's links: refuse them without a topology */
	if (!topo) {
		if (fe_linkspec_pick(a->link, c->hosts, &one_switch, port, dirs, pick, e,
				     sizeof(e)) < 0)
			return fe_yaml_fail(y, key, "%s: %s", key, e);
		return 0;
	}
	if (fe_linkspec_select(a->link, c->hosts, port, dirs, e, sizeof(e)) == 0)
		return 0;
	if (fabric_link_known(c, a->link)) {
		*port = -1;
		*dirs = 0;
		return 0;
	}
	if (misnamed_in_regimes(c, a->link, e, sizeof(e)) < 0)
		return fe_yaml_fail(y, key, "%s: %s", key, e);
	return fe_yaml_fail(y, key, "%s: %s; nor does any regime's topology have a link so named",
			    key, e);
}

/*
 * What the dataplane does with an applied profile when the fault is due (fe_ctl.c's apply):
 * its links expanded for the campaign's hosts, and its links between switches, at the
 * fault's scale (0: the profile's own). Its refusals now, in e.
 */
static int
applied_expands(const struct fe_profile *p, uint32_t scale, unsigned hosts, char *e, size_t elen)
{
	struct fe_linkdef *up = calloc(2 * (size_t)hosts, sizeof(*up)), def;
	struct fe_fabric fab;
	int rc;

	if (up == NULL) {
		snprintf(e, elen, "out of memory");
		return -ENOMEM;
	}
	rc = fe_profile_expand(p, scale, hosts, up, up + hosts, &fab, e, elen) < 0
		     ? -EINVAL
		     : fe_profile_fabric(p, scale, &def, e, elen);
	free(up);
	return rc;
}

/* The command an action starts with, shell-quoted fabemuctl arguments, and a label. */
static int
action_cmd(struct fe_yaml *y, const char *path, const struct y_action *a, int kind,
	   const struct cg_campaign *c, char *args, size_t len, char *what, size_t wlen)
{
	const char *act = actions[kind].name, *lkey = NULL;
	char q[600], spec[700], e[400], p[600], key[64];
	uint64_t x, first = 1, count = 1;
	long port;
	int dirs;

	if (action_link(y, path, a, c, &port, &dirs) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(action_keys) / sizeof(action_keys[0]); i++)
		if (action_keys[i].bit == actions[kind].needs &&
		    action_value(a, action_keys[i].bit) == NULL)
			return fe_yaml_fail(y, path, "%s: action %s needs %s (its keys: %s)", path,
					    act, action_keys[i].name, actions[kind].list);
	if (!strcmp(act, "apply")) {
		struct fe_profile *prof;
		char path2[512];
		int bad;

		snprintf(key, sizeof(key), "%s.scale", path);
		if (a->scale && fe_yaml_rule(y, key, &fe_rule_scale, a->scale, &x) < 0)
			return -EINVAL;
		snprintf(key, sizeof(key), "%s.profile", path);
		if (fe_profile_find(a->profile, path2, sizeof(path2), e, sizeof(e)) < 0)
			return fe_yaml_fail(y, key, "%s: %s", key, e);
		/* the dataplane loads it when the fault is due: its errors now */
		if ((prof = malloc(sizeof(*prof))) == NULL)
			return -ENOMEM;
		bad = fe_profile_load(path2, prof, e, sizeof(e)) < 0 ||
		      applied_expands(prof, a->scale ? (uint32_t)x : 0, c->hosts, e, sizeof(e)) < 0;
		free(prof);
		if (bad)
			return fe_yaml_fail(y, key, "%s: %s", key, e);
		cg_quote(p, sizeof(p), path2);
		cg_quote(q, sizeof(q), a->link);
		snprintf(args, len, "apply %s --link %s%s%s", p, q, a->scale ? " --scale " : "",
			 a->scale ? a->scale : "");
		snprintf(what, wlen, "apply %s to %s", a->profile, a->link);
		return 0;
	}
	if (holds(kind)) { /* starve, pause-storm: the link's serializer held (fabemuctl hold) */
		snprintf(key, sizeof(key), "%s.link", path);
		if (port < 0 || dirs != FE_SEL_DOWN)
			return fe_yaml_fail(y, key,
					    "%s '%s': %s needs N.down (the host that stops "
					    "taking)",
					    key, a->link, act);
		snprintf(key, sizeof(key), "%s.duration", path);
		if (fe_yaml_rule(y, key, &rule_hold, a->duration, &x) < 0)
			return -EINVAL;
		cg_quote(q, sizeof(q), a->duration);
		snprintf(args, len, "hold %s %s", a->link, q);
		snprintf(what, wlen, "%s %s %s", act, a->link, a->duration);
		return 0;
	}
	if (!strcmp(act, "drop")) {
		snprintf(key, sizeof(key), "%s.first", path);
		if (a->first && uint_val(y, key, a->first, 1, UINT32_MAX, &first) < 0)
			return -EINVAL;
		snprintf(key, sizeof(key), "%s.count", path);
		if (a->count && uint_val(y, key, a->count, 1, UINT32_MAX, &count) < 0)
			return -EINVAL;
		snprintf(spec, sizeof(spec), "drop=%" PRIu64 "/%" PRIu64 ",match=%s", first, count,
			 a->match);
		snprintf(key, sizeof(key), "%s.match", path);
		lkey = "match";
	} else if (!strcmp(act, "flap")) {
		snprintf(spec, sizeof(spec), "loss=100%%");
	} else {
		const char *v = !strcmp(act, "loss")	? a->loss
				: !strcmp(act, "delay") ? a->delay
							: a->spec;

		snprintf(key, sizeof(key), "%s.%s", path, !strcmp(act, "set") ? "spec" : act);
		lkey = strcmp(act, "set") ? act : NULL;
		if (lkey)
			snprintf(spec, sizeof(spec), "%s=%s", act, v);
		else
			snprintf(spec, sizeof(spec), "%s", v);
	}
	if (check_spec(y, key, lkey, spec, c) < 0)
		return -EINVAL;
	cg_quote(q, sizeof(q), spec);
	snprintf(args, len, "set %s %s", a->link, q);
	snprintf(what, wlen, "%s %s %s", act, a->link, !strcmp(act, "flap") ? "down" : spec);
	return 0;
}

/*
 * An action's end step: until: {iteration: K2} after a start at an iteration, duration: T
 * or until: {time: T2} after a start at a time. 0 with *has_end 0: none (it lasts).
 */
static int
action_end(struct fe_yaml *y, const char *path, const struct y_action *a,
	   const struct cg_campaign *c, int it, uint64_t ns, int *end_it, uint64_t *end_ns)
{
	char key[64], at[80];
	uint64_t dur;

	*end_it = 0;
	*end_ns = 0;
	if (a->duration && a->until) {
		snprintf(key, sizeof(key), "%s.until", path);
		return fe_yaml_fail(y, key, "%s: give duration or until, not both", key);
	}
	if (it)
		snprintf(at, sizeof(at), "at: {iteration: %d}", it);
	else
		snprintf(at, sizeof(at), "at: {time: %s}", a->at->time);
	if (a->duration) {
		snprintf(key, sizeof(key), "%s.duration", path);
		if (it)
			return fe_yaml_fail(y, key,
					    "%s: an action %s ends at an iteration: use until: "
					    "{iteration: N}, not duration",
					    key, at);
		if (fe_yaml_rule(y, key, &rule_duration, a->duration, &dur) < 0)
			return -EINVAL;
		*end_ns = ns + dur;
		return 0;
	}
	if (a->until == NULL)
		return 0;
	snprintf(key, sizeof(key), "%s.until", path);
	if (when(y, key, a->until, c, end_it, end_ns) < 0)
		return -EINVAL;
	snprintf(key, sizeof(key), "%s.until.%s", path, *end_it ? "iteration" : "time");
	if ((*end_it != 0) != (it != 0))
		return fe_yaml_fail(y, key, "%s: an action %s ends at %s (until: {%s: ...})", key,
				    at, it ? "an iteration" : "a time", it ? "iteration" : "time");
	if (it && *end_it <= it)
		return fe_yaml_fail(y, key, "%s '%s' is not after %s", key, a->until->iteration,
				    at);
	if (!it && *end_ns <= ns)
		return fe_yaml_fail(y, key, "%s '%s' is not after %s", key, a->until->time, at);
	return 0;
}

static int
compile_timeline(struct fe_yaml *y, const struct y_campaign *d, struct cg_campaign *c)
{
	for (unsigned i = 0; i < d->timeline_count; i++) {
		const struct y_action *a = &d->timeline[i];
		char path[32], src[48], args[1200], what[200], rw[240];
		int kind, it, end_it;
		uint64_t ns, end_ns;

		snprintf(path, sizeof(path), "timeline.%u", i);
		if ((kind = action_kind(y, path, a)) < 0 ||
		    action_cmd(y, path, a, kind, c, args, sizeof(args), what, sizeof(what)) < 0)
			return -EINVAL;
		snprintf(src, sizeof(src), "%s.at", path);
		if (a->at == NULL)
			return fe_yaml_fail(y, path,
					    "%s: at is required (at: {iteration: N} or {time: T})",
					    path);
		if (when(y, src, a->at, c, &it, &ns) < 0)
			return -EINVAL;
		add_step(c, src, it, ns, 0, what, a->link, "%s", args);
		if (holds(kind)) /* its duration ends it */
			continue;
		if (action_end(y, path, a, c, it, ns, &end_it, &end_ns) < 0)
			return -EINVAL;
		if (end_it == 0 && end_ns == 0) /* no end: it lasts the job */
			continue;
		snprintf(rw, sizeof(rw), "end of %s", what);
		snprintf(src, sizeof(src), "%s.%s", path, a->until ? "until" : "duration");
		/* the link goes back to the regime's profile and its own links: entries for
		 * that link (filled in per regime, cg_step_command()) */
		add_step(c, src, end_it, end_ns, 1, rw, a->link, "%s", a->link);
	}
	return 0;
}

static int
compile_fidelity(struct fe_yaml *y, const struct y_fidelity *f, struct cg_campaign *c)
{
	char e[200];

	/* defaults, docs/campaigns.md: the box may add a tenth of a hop at p99, and carry
	 * half of what it measured it can */
	c->fid = (struct cg_fidelity){
		.late = 0.10, .load = 0.5, .capacity = 1, .cap_ns = 3000000000};
	if (f == NULL)
		return 0;
	if (f->lateness &&
	    (fe_parse_fraction(f->lateness, &c->fid.late, e, sizeof(e)) < 0 || c->fid.late <= 0))
		return fe_yaml_fail(y, "fidelity.lateness",
				    "fidelity.lateness '%s' (allowed: above 0%% to 100%%)",
				    f->lateness);
	if (f->load &&
	    (fe_parse_fraction(f->load, &c->fid.load, e, sizeof(e)) < 0 || c->fid.load <= 0))
		return fe_yaml_fail(y, "fidelity.load",
				    "fidelity.load '%s' (allowed: above 0%% to 100%%)", f->load);
	if (f->capacity && bool_val(y, "fidelity.capacity", f->capacity, &c->fid.capacity) < 0)
		return -EINVAL;
	if (f->calibrate && bool_val(y, "fidelity.calibrate", f->calibrate, &c->fid.calibrate) < 0)
		return -EINVAL;
	if (f->capacity_time &&
	    (fe_parse_time(f->capacity_time, &c->fid.cap_ns, e, sizeof(e)) < 0 ||
	     c->fid.cap_ns < 1000000000 || c->fid.cap_ns > 60000000000ULL))
		return fe_yaml_fail(y, "fidelity.capacity-time",
				    "fidelity.capacity-time '%s' (allowed: 1s to 60s)",
				    f->capacity_time);
	return 0;
}

/* One direction's alike link as --link entries: [0] its rate and delay, [1] and buffer. */
static void
alike_entries(const char *sel, const struct fe_link_params *l, char (*out)[160])
{
	char r[32], t[32], rd[160];

	snprintf(rd, sizeof(rd), "%s:rate=%s,delay=%s", sel,
		 l->rate_bps ? fe_fmt_rate(l->rate_bps, r, sizeof(r)) : "0",
		 fe_fmt_time(l->delay_ns, t, sizeof(t)));
	snprintf(out[0], sizeof(out[0]), "%s", rd);
	snprintf(out[1], sizeof(out[1]), "%s,buffer=%llu,buffer-pkts=%u", rd,
		 (unsigned long long)l->limit_bytes, l->limit_pkts);
}

/*
 * alike-links: {profile, scale}: the links of the alike regimes, the profile's ports at
 * that scale (default: the profile's), as compiled for the campaign's hosts. Every port
 * must have the same link in each direction: a like-for-like link is one link.
 */
static int
compile_alike_links(struct fe_yaml *y, const struct y_alike_links *a, struct cg_campaign *c)
{
	struct fe_linkdef *up = NULL, *down;
	struct fe_profile *p = NULL;
	struct fe_fabric fab;
	char err[1024];
	uint64_t x = 0;
	int rc = 0;

	if (a == NULL)
		return 0;
	if (a->profile == NULL)
		return fe_yaml_fail(y, "alike-links",
				    "alike-links: a profile is required (its links are the "
				    "alike regimes')");
	if (a->scale && fe_yaml_rule(y, "alike-links.scale", &fe_rule_scale, a->scale, &x) < 0)
		return -EINVAL;
	up = calloc(2 * (size_t)c->hosts, sizeof(*up));
	p = malloc(sizeof(*p));
	if (up == NULL || p == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	down = up + c->hosts;
	if (fe_profile_find(a->profile, c->alike.profile, sizeof(c->alike.profile), err,
			    sizeof(err)) < 0 ||
	    fe_profile_load(c->alike.profile, p, err, sizeof(err)) < 0 ||
	    fe_profile_expand(p, (uint32_t)x, c->hosts, up, down, &fab, err, sizeof(err)) < 0) {
		rc = fe_yaml_fail(y, "alike-links.profile", "alike-links.profile: %s", err);
		goto out;
	}
	for (unsigned i = 1; i < c->hosts && rc == 0; i++)
		if (memcmp(&up[i].link, &up[0].link, sizeof(up[0].link)) != 0 ||
		    memcmp(&down[i].link, &down[0].link, sizeof(down[0].link)) != 0)
			rc = fe_yaml_fail(y, "alike-links.profile",
					  "alike-links.profile '%s': port %u's links differ from "
					  "port 0's; the alike links are one link for every port",
					  a->profile, i);
	if (rc < 0)
		goto out;
	c->alike.set = 1;
	c->alike.scale = x ? (uint32_t)x : p->scale;
	snprintf(c->alike.profile_name, sizeof(c->alike.profile_name), "%s", p->name);
	alike_entries("up", &up[0].link, c->alike.up);
	alike_entries("down", &down[0].link, c->alike.down);
	alike_entries("fabric", &down[0].link, c->alike.fabric);
out:
	free(up);
	free(p);
	return rc;
}

/*
 * The baselines (docs/campaigns.md): the first wire regime and the first regime whose
 * whole fabric is ideal (g->ideal). They run without the timeline's faults, and the
 * others' figures are divided by theirs; any other regime, ideal or not, runs the faults.
 */
static void
mark_baselines(struct cg_campaign *c)
{
	int wire = 0, ideal = 0;

	for (unsigned g = 0; g < c->nreg; g++) {
		struct cg_regime *r = &c->reg[g];

		if (r->kind == CG_WIRE && !wire)
			r->baseline = wire = 1;
		else if (r->kind == CG_DATAPLANE && r->ideal && !ideal)
			r->baseline = ideal = 2;
	}
}

/*
 * fidelity.calibrate: true: every dataplane regime but the baselines and the alike ones
 * (which run at their twin's) is calibrated, its scale (the file's or the profile's) its
 * floor. An alike regime of a calibrated one is calibrated with it.
 */
static void
calibrated(struct cg_campaign *c)
{
	for (unsigned g = 0; g < c->nreg; g++) {
		struct cg_regime *r = &c->reg[g];

		if (!c->fid.calibrate || r->kind != CG_DATAPLANE || cg_baseline(r) || r->alike ||
		    r->scale_auto)
			continue;
		r->scale_auto = 1;
		r->scale_min = r->scale;
	}
	for (unsigned g = 0; g < c->nreg; g++)
		if (c->reg[g].alike)
			c->reg[g].scale_auto = c->reg[c->reg[g].alike_of].scale_auto;
}

/* A timeline runs in some regime: one that is not a baseline. */
static int
timeline_runs(struct fe_yaml *y, const struct y_campaign *d, const struct cg_campaign *c)
{
	char names[200] = "";

	if (d->timeline_count == 0)
		return 0;
	for (unsigned g = 0; g < c->nreg; g++) {
		char key[48];

		/* not a baseline, it would run the faults, and has no fabemu to run them on */
		if (c->reg[g].kind == CG_WIRE && !cg_baseline(&c->reg[g])) {
			snprintf(key, sizeof(key), "regimes.%u.kind", g);
			return fe_yaml_fail(y, key,
					    "%s: a second wire regime beside a timeline (allowed: "
					    "one, the baseline, which runs without the faults; the "
					    "wire has no fabric to run them on)",
					    key);
		}
	}
	for (unsigned g = 0; g < c->nreg; g++) {
		if (!cg_baseline(&c->reg[g]))
			return 0;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s (%s)",
			 g ? ", " : "", c->reg[g].name,
			 c->reg[g].kind == CG_WIRE ? "the wire" : "an ideal fabric");
	}
	return fe_yaml_fail(y, "timeline",
			    "timeline: its faults would run nowhere: every regime is a baseline, "
			    "which runs without them (%s); add a regime that is not: a profile "
			    "that is not ideal, a topology or a links: entry",
			    names);
}

/* The regime named name at key (a question's), or -1 with the message naming them all. */
static int
regime_named(struct fe_yaml *y, const char *key, const char *name, const struct cg_campaign *c)
{
	char names[CG_MAX_REGIMES * 66] = "";
	size_t n = 0;

	for (unsigned g = 0; g < c->nreg; g++) {
		if (strcmp(c->reg[g].name, name) == 0)
			return (int)g;
		cg_addf(names, sizeof(names), &n, "%s%s", g ? ", " : "", c->reg[g].name);
	}
	fe_yaml_fail(y, key, "%s '%s': not a regime of this campaign (regimes: %s)", key, name,
		     names);
	return -1;
}

/*
 * question: [[a, b], ...]: the pairs the campaign asks about, each "is a faster than b?"
 * (docs/campaigns.md). Each name a regime of the file, the two different, each pair once
 * (either way round).
 */
static int
compile_question(struct fe_yaml *y, const struct y_campaign *d, struct cg_campaign *c)
{
	for (unsigned k = 0; k < d->question_count; k++, c->nquestions++) {
		char key[48], path[32];
		int ab[2];

		snprintf(path, sizeof(path), "question.%u", k);
		for (unsigned i = 0; i < 2; i++) {
			snprintf(key, sizeof(key), "question.%u.%u", k, i);
			if ((ab[i] = regime_named(y, key, d->question[k][i], c)) < 0)
				return -EINVAL;
		}
		if (ab[0] == ab[1])
			return fe_yaml_fail(y, path,
					    "%s: '%s' against itself (a question is two "
					    "different regimes)",
					    path, c->reg[ab[0]].name);
		for (unsigned j = 0; j < k; j++)
			if ((c->question[j].a == (unsigned)ab[0] &&
			     c->question[j].b == (unsigned)ab[1]) ||
			    (c->question[j].a == (unsigned)ab[1] &&
			     c->question[j].b == (unsigned)ab[0]))
				return fe_yaml_fail(
					y, path,
					"%s: %s against %s is asked by question.%u already", path,
					c->reg[ab[0]].name, c->reg[ab[1]].name, j);
		c->question[k].a = (unsigned)ab[0];
		c->question[k].b = (unsigned)ab[1];
	}
	return 0;
}

/*
 * projection: the all-reduce at cluster scale (cg_scale.c): the ranks projected (2 to
 * 1,048,576, each once), a step's compute (1us to 1h), the series (each a name, the
 * regimes fitted and those checked against the prediction).
 */
static int
compile_projection(struct fe_yaml *y, const struct y_projection *d, struct cg_campaign *c)
{
	struct cg_projection_cfg *p = &c->proj;
	char key[64], e[200];
	uint64_t x;
	int g;

	if (d == NULL)
		return 0;
	if (c->perm)
		return fe_yaml_fail(y, "projection",
				    "projection: the all-reduce's (job.kind permutation has none)");
	for (unsigned i = 0; i < d->ranks_count; i++, p->nranks++) {
		snprintf(key, sizeof(key), "projection.ranks.%u", i);
		if (uint_val(y, key, d->ranks[i], 2, 1U << 20, &x) < 0)
			return -EINVAL;
		for (unsigned k = 0; k < i; k++)
			if (p->ranks[k] == x)
				return fe_yaml_fail(y, key, "%s '%s': given twice", key,
						    d->ranks[i]);
		p->ranks[i] = (unsigned)x;
	}
	if (d->compute &&
	    (fe_parse_time(d->compute, &x, e, sizeof(e)) < 0 || x < 1000 || x > 3600000000000ULL))
		return fe_yaml_fail(y, "projection.compute",
				    "projection.compute '%s' (allowed: 1us to 1h)", d->compute);
	p->compute_ms = d->compute ? (double)x / 1e6 : 0;
	for (unsigned i = 0; i < d->series_count; i++, p->nseries++) {
		const struct y_series *s = &d->series[i];

		snprintf(key, sizeof(key), "projection.series.%u", i);
		if (s->name == NULL || regime_name_bad(s->name) || s->fit_count == 0)
			return fe_yaml_fail(y, key,
					    "%s: a name (as a regime's) and fit: [regimes] are "
					    "required",
					    key);
		snprintf(p->series[i].name, sizeof(p->series[i].name), "%s", s->name);
		for (unsigned k = 0; k < s->fit_count; k++, p->series[i].nfit++) {
			snprintf(key, sizeof(key), "projection.series.%u.fit.%u", i, k);
			if ((g = regime_named(y, key, s->fit[k], c)) < 0)
				return -EINVAL;
			p->series[i].fit[k] = (unsigned)g;
		}
		for (unsigned k = 0; k < s->check_count; k++, p->series[i].ncheck++) {
			snprintf(key, sizeof(key), "projection.series.%u.check.%u", i, k);
			if ((g = regime_named(y, key, s->check[k], c)) < 0)
				return -EINVAL;
			p->series[i].check[k] = (unsigned)g;
		}
	}
	return 0;
}

/* 1 if path is a regular file (a directory of that name is not a scene's file). */
static int
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * A suite's scenes (scenes:): each a campaign file or name, resolved as the command line's
 * (cg_find()) but a name first beside the suite's own file (source); a suite has no other
 * key but name and description.
 */
static int
compile_scenes(struct fe_yaml *y, const struct y_campaign *d, struct cg_campaign *c)
{
	const char *other = d->hosts		? "hosts"
			    : d->cores		? "cores"
			    : d->pmd		? "pmd"
			    : d->ring		? "ring"
			    : d->mtu		? "mtu"
			    : d->dataplane	? "dataplane"
			    : d->repetitions	? "repetitions"
			    : d->seed		? "seed"
			    : d->host_ecn	? "host-ecn"
			    : d->testbed	? "testbed"
			    : d->fidelity	? "fidelity"
			    : d->alike_links	? "alike-links"
			    : d->job		? "job"
			    : d->regimes_count	? "regimes"
			    : d->timeline_count ? "timeline"
			    : d->beside_count	? "beside"
			    : d->question_count ? "question"
			    : d->projection	? "projection"
						: NULL;
	const char *slash = strrchr(c->source, '/');
	const int dirlen = slash ? (int)(slash - c->source) : 1;
	const char *dir = slash ? c->source : ".";

	if (other)
		return fe_yaml_fail(y, other,
				    "%s: a suite (scenes:) has only a name, a description and its "
				    "scenes; each scene's campaign says the rest",
				    other);
	for (unsigned i = 0; i < d->scenes_count; i++, c->nscenes++) {
		const char *s = d->scenes[i];
		char as[PATH_MAX], yaml[PATH_MAX];
		const char *take = s;

		for (unsigned k = 0; k < i; k++)
			if (strcmp(d->scenes[k], s) == 0)
				return fe_yaml_fail(y, "scenes", "scenes.%u '%s': named twice", i,
						    s);
		/* beside the suite: as given, else with .yaml; else as the command line */
		snprintf(as, sizeof(as), "%.*s/%s", dirlen, dir, s);
		snprintf(yaml, sizeof(yaml), "%s.yaml", as);
		if (s[0] != '/' && is_file(as))
			take = as;
		else if (s[0] != '/' && is_file(yaml))
			take = yaml;
		if (s[0] == '\0' || strlen(take) >= sizeof(c->scene[i]))
			return fe_yaml_fail(y, "scenes",
					    "scenes.%u '%s': empty, or its path too long", i, s);
		snprintf(c->scene[i], sizeof(c->scene[i]), "%s", take);
	}
	return 0;
}

static int
compile(struct fe_yaml *y, const struct y_campaign *d, struct cg_campaign *c)
{
	uint64_t x;

	if (d->name == NULL)
		return fe_yaml_fail(y, "", "the campaign needs a name (name: ...)");
	snprintf(c->name, sizeof(c->name), "%s", d->name);
	if (d->description)
		snprintf(c->description, sizeof(c->description), "%s", d->description);
	if (d->scenes_count)
		return compile_scenes(y, d, c);
	if (d->cores && strcmp(d->cores, "split") && strcmp(d->cores, "shared"))
		return fe_yaml_fail(y, "cores", "cores '%s' (allowed: split, shared)", d->cores);
	c->split = d->cores == NULL || strcmp(d->cores, "split") == 0;
	c->host_ecn = 1;
	if (d->host_ecn && bool_val(y, "host-ecn", d->host_ecn, &c->host_ecn) < 0)
		return -EINVAL;
	if (compile_testbed(y, d, c) < 0)
		return -EINVAL;
	c->edge = (struct cg_edge){.pmd = "af_packet", .ring = 16384, .mtu = 1500};
	if (c->tb == CG_TB_HOSTS) /* the file's devices (results: "pmd": "devices") */
		snprintf(c->edge.pmd, sizeof(c->edge.pmd), "devices");
	if (edge_val(y, "", d->pmd, d->ring, d->mtu, d->dataplane, &c->edge) < 0)
		return -EINVAL;
	c->reps = 1;
	if (d->repetitions && uint_val(y, "repetitions", d->repetitions, 1, 100, &x) < 0)
		return -EINVAL;
	c->reps = d->repetitions ? (unsigned)x : 1;
	c->seed = 1;
	if (d->seed && uint_val(y, "seed", d->seed, 0, FE_SEED_MAX - 100, &c->seed) < 0)
		return -EINVAL;
	if (compile_fidelity(y, d->fidelity, c) < 0 || compile_job(y, d, c) < 0 ||
	    compile_alike_links(y, d->alike_links, c) < 0)
		return -EINVAL;
	if (d->regimes_count == 0)
		return fe_yaml_fail(y, "", "the campaign needs regimes: (name, profile, scale)");
	for (unsigned i = 0; i < d->regimes_count; i++, c->nreg++)
		if (compile_regime(y, d, i, c) < 0)
			return -EINVAL;
	for (unsigned i = 0; i < d->beside_count; i++, c->nbeside++) {
		char path[32];

		snprintf(path, sizeof(path), "beside.%u", i);
		if (d->beside[i].host == NULL || d->beside[i].command == NULL)
			return fe_yaml_fail(y, path, "%s: host and command are required", path);
		if (uint_val(y, path, d->beside[i].host, 1, c->hosts, &x) < 0)
			return -EINVAL;
		c->beside[i].host = (unsigned)x;
		snprintf(c->beside[i].command, sizeof(c->beside[i].command), "%s",
			 d->beside[i].command);
	}
	mark_baselines(c);
	calibrated(c);
	if (compile_question(y, d, c) < 0 || compile_timeline(y, d, c) < 0 ||
	    compile_projection(y, d->projection, c) < 0)
		return -EINVAL;
	return timeline_runs(y, d, c);
}

int
cg_load(const char *path, struct cg_campaign *c, char *err, size_t errlen)
{
	struct y_campaign *d = NULL;
	/* no list of known keys: an unknown key's message lists the schema's, all of them */
	struct fe_yaml y = {.source = path, .err = err, .errlen = errlen};
	size_t len;
	int rc;

	memset(c, 0, sizeof(*c));
	if (cg_find(path, c->source, sizeof(c->source), err, errlen) < 0)
		return -ENOENT;
	y.source = c->source;
	c->text = fe_profile_read(c->source, &len, err, errlen);
	if (c->text == NULL)
		return -EIO;
	y.text = c->text;
	y.len = len;
	if (fe_yaml_load(&y, &campaign_schema, CG_MAX_BYTES, (void **)&d) < 0)
		return -EINVAL;
	rc = compile(&y, d, c);
	fe_yaml_free(&campaign_schema, d);
	return rc;
}

/*
 * Regime g again at scale (the calibration's choice): its profile expanded at it, its NIC
 * and links: entries over that, its hop, load and links between switches. g is unchanged
 * on an error (the scale out of the profile's range: err says how).
 */
int
cg_regime_rescale(const struct cg_campaign *c, struct cg_regime *g, uint32_t scale, char *err,
		  size_t errlen)
{
	struct fe_profile *p = malloc(sizeof(*p));
	struct cg_regime *n = malloc(sizeof(*n));
	struct fe_linkdef *def = calloc(2 * FE_TOPO_LINKS, sizeof(*def));
	char(*dir)[80] = calloc(2 * FE_TOPO_LINKS, sizeof(*dir));
	struct fe_topo *t = NULL;
	char e[1024] = "out of memory";
	int rc = -EINVAL;

	if (p == NULL || n == NULL || def == NULL || dir == NULL)
		goto out;
	*n = *g;
	n->scale = scale;
	if (fe_profile_load(g->profile, p, e, sizeof(e)) < 0 ||
	    fe_profile_expand(p, scale, c->hosts, n->up, n->down, &n->fabric, e, sizeof(e)) < 0 ||
	    (g->nic[0] && fe_nic_spec(g->nic, &n->fabric.nic, e, sizeof(e)) < 0) ||
	    (g->topology[0] && (t = regime_topo(g, e, sizeof(e))) == NULL))
		goto out;
	for (unsigned k = 0; k < g->nlinks; k++)
		if (fabric_spec(g->links[k], t, n->up, n->down, c->hosts, e, sizeof(e)) < 0)
			goto out;
	regime_figures(n, n->up, n->down, c->hosts);
	n->ideal &= t == NULL && n->nlinks == 0;
	if (cg_regime_hops(c, n, def, dir, e, sizeof(e)) < 0)
		goto out;
	*g = *n;
	rc = 0;
out:
	if (rc < 0)
		snprintf(err, errlen, "regime %s at scale %u: %s", g->name, scale, e);
	free(t);
	free(dir);
	free(def);
	free(n);
	free(p);
	return rc;
}
