/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cyaml/cyaml.h>

#include "fe_profile.h"
#include "fe_rules.h"
#include "fe_topo.h"
#include "fe_units.h"
#include "fe_yaml.h"

#ifndef FE_TOPO_DIR
#define FE_TOPO_DIR "/usr/share/fabemu/topologies"
#endif

/* ---- Building ---- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int
add_switch(struct fe_topo *t, const char *fmt, unsigned a, unsigned b)
{
	if (t->nsw == FE_TOPO_SWITCH)
		return -1;
	snprintf(t->sw[t->nsw].name, FE_TOPO_NAME, fmt, a, b);
	t->sw[t->nsw].buffer = 0;
	t->sw[t->nsw].box[0] = '\0';
	return (int)t->nsw++;
}

int
fe_topo_add_host(struct fe_topo *t, const char *name, const unsigned *sw, unsigned nports)
{
	struct fe_topo_host *h;

	if (t->nhosts == FE_TOPO_HOSTS || t->nports + nports > FE_TOPO_PORTS ||
	    nports > FE_TOPO_RAILS || nports == 0)
		return -1;
	h = &t->host[t->nhosts++];
	snprintf(h->name, sizeof(h->name), "%s", name);
	memcpy(h->sw, sw, sizeof(*sw) * nports);
	h->nports = nports;
	h->first_port = t->nports;
	t->nports += nports;
	return 0;
}

/* A link's rate as a share of its class's, "N/M" (digits only): 0, else -1 (not one). */
static int
share(const char *s, uint32_t *num, uint32_t *den)
{
	unsigned n, m;
	int end = 0;

	if (sscanf(s, "%4u/%4u%n", &n, &m, &end) != 2 || s[end] != '\0' || strchr(s, ' '))
		return -1;
	*num = n;
	*den = m;
	return 0;
}

int
fe_topo_add_link(struct fe_topo *t, unsigned a, unsigned b, uint32_t num, uint32_t den)
{
	struct fe_topo_link *l;

	if (t->nlinks == FE_TOPO_LINKS)
		return -1;
	l = &t->link[t->nlinks++];
	*l = (struct fe_topo_link){.a = a, .b = b, .rate_num = num, .rate_den = den};
	return 0;
}

static uint32_t
gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t r = a % b;

		a = b;
		b = r;
	}
	return a ? a : 1;
}

static unsigned
def(unsigned v, unsigned d)
{
	return v ? v : d;
}

static int
gen_hosts_on(struct fe_topo *t, unsigned sw, unsigned n)
{
	char name[FE_TOPO_NAME];

	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "h%u", t->nhosts + 1);
		if (fe_topo_add_host(t, name, &sw, 1) < 0)
			return -1;
	}
	return 0;
}

/*
 * Leaf-spine: every leaf to every spine. With oversubscription N (N:1) a leaf's uplinks
 * carry 1/N of what its hosts can send: each uplink runs at hosts-per-leaf / (spines x N)
 * of the link class's rate.
 */
static int
gen_leaf_spine(const struct fe_topo_gen *g, struct fe_topo *t)
{
	unsigned leaves = def(g->leaves, 2), spines = def(g->spines, 2),
		 hpl = def(g->hosts_per_leaf, 2);
	unsigned over = def(g->oversub, 1), first = 0;
	uint32_t num = hpl, den = spines * over, d = gcd(num, den);

	for (unsigned s = 0; s < spines; s++)
		if (add_switch(t, "spine%u", s + 1, 0) < 0)
			return -1;
	for (unsigned l = 0; l < leaves; l++) {
		int leaf = add_switch(t, "leaf%u", l + 1, 0);

		if (leaf < 0)
			return -1;
		if (l == 0)
			first = (unsigned)leaf;
		for (unsigned s = 0; s < spines; s++)
			if (fe_topo_add_link(t, (unsigned)leaf, s, num / d, den / d) < 0)
				return -1;
	}
	for (unsigned l = 0; l < leaves; l++)
		if (gen_hosts_on(t, first + l, hpl) < 0)
			return -1;
	return 0;
}

/* The 3-tier fat-tree of k-port switches (Al-Fares et al., SIGCOMM 2008). */
static int
gen_fat_tree(const struct fe_topo_gen *g, struct fe_topo *t, char *err, size_t errlen)
{
	unsigned k = def(g->k, 4), half, core0, pods;

	if (k % 2 || k < 2)
		return fail(err, errlen, "fat-tree: k %u (allowed: an even number, 2 or more)", k);
	half = k / 2;
	pods = k;
	core0 = t->nsw;
	for (unsigned c = 0; c < half * half; c++)
		if (add_switch(t, "core%u", c + 1, 0) < 0)
			return -1;
	for (unsigned p = 0; p < pods; p++) {
		unsigned agg0 = t->nsw, edge0;

		for (unsigned a = 0; a < half; a++)
			if (add_switch(t, "agg%u-%u", p + 1, a + 1) < 0)
				return -1;
		edge0 = t->nsw;
		for (unsigned e = 0; e < half; e++)
			if (add_switch(t, "edge%u-%u", p + 1, e + 1) < 0)
				return -1;
		for (unsigned a = 0; a < half; a++) {
			for (unsigned e = 0; e < half; e++)
				if (fe_topo_add_link(t, edge0 + e, agg0 + a, 1, 1) < 0)
					return -1;
			/* aggregation switch a of every pod reaches cores a*k/2 .. a*k/2 + k/2 - 1
			 */
			for (unsigned c = 0; c < half; c++)
				if (fe_topo_add_link(t, agg0 + a, core0 + a * half + c, 1, 1) < 0)
					return -1;
		}
		for (unsigned e = 0; e < half; e++)
			if (gen_hosts_on(t, edge0 + e, half) < 0)
				return -1;
	}
	return 0;
}

/* Rail-optimized: host port r on rail switch r; the rails joined by one spine. */
static int
gen_rail(const struct fe_topo_gen *g, struct fe_topo *t)
{
	unsigned rails = def(g->rails, 2), hosts = def(g->hosts, 4), sw[FE_TOPO_RAILS];
	int spine = add_switch(t, "spine%u", 1, 0);
	char name[FE_TOPO_NAME];

	if (spine < 0 || rails > FE_TOPO_RAILS)
		return -1;
	for (unsigned r = 0; r < rails; r++) {
		int s = add_switch(t, "rail%u", r + 1, 0);

		if (s < 0 || fe_topo_add_link(t, (unsigned)s, (unsigned)spine, 1, 1) < 0)
			return -1;
		sw[r] = (unsigned)s;
	}
	for (unsigned h = 0; h < hosts; h++) {
		snprintf(name, sizeof(name), "h%u", h + 1);
		if (fe_topo_add_host(t, name, sw, rails) < 0)
			return -1;
	}
	return 0;
}

/* Switches in a cycle, a host on each: the cyclic buffer dependency. */
static int
gen_ring(const struct fe_topo_gen *g, struct fe_topo *t, char *err, size_t errlen)
{
	unsigned n = def(g->switches, 3);

	if (n < 3)
		return fail(err, errlen, "ring: switches %u (allowed: 3 or more)", n);
	for (unsigned s = 0; s < n; s++)
		if (add_switch(t, "s%u", s + 1, 0) < 0)
			return -1;
	for (unsigned s = 0; s < n; s++)
		if (fe_topo_add_link(t, s, (s + 1) % n, 1, 1) < 0 || gen_hosts_on(t, s, 1) < 0)
			return -1;
	return 0;
}

/*
 * What kind g makes, counted before it is made: 0, or -EINVAL naming the limit it breaks
 * (an unknown kind: fe_topo_generate() says so).
 */
static int
gen_size(const struct fe_topo_gen *g, char *err, size_t errlen)
{
	const uint64_t k = def(g->k, 4), hpl = def(g->hosts_per_leaf, 2), rails = def(g->rails, 2);
	const uint64_t leaves = def(g->leaves, 2), spines = def(g->spines, 2);
	uint64_t n[4] = {0}; /* switches, hosts, ports, links */
	static const char *const what[4] = {"switches", "hosts", "ports", "links"};
	static const unsigned most[4] = {FE_TOPO_SWITCH, FE_TOPO_HOSTS, FE_TOPO_PORTS,
					 FE_TOPO_LINKS};

	if (strcmp(g->kind, "single") == 0) {
		n[0] = 1;
		n[1] = n[2] = def(g->hosts, 2);
	} else if (strcmp(g->kind, "leaf-spine") == 0) {
		n[0] = leaves + spines;
		n[1] = n[2] = leaves * hpl;
		n[3] = leaves * spines;
	} else if (strcmp(g->kind, "fat-tree") == 0) { /* k^2/4 cores, k pods of k switches */
		if (k % 2 || k < 2)		       /* gen_fat_tree() names it */
			return 0;
		n[0] = k * k / 4 + k * k;
		n[1] = n[2] = k * k * k / 4;
		n[3] = k * k * k / 2;
	} else if (strcmp(g->kind, "rail") == 0) {
		if (rails > FE_TOPO_RAILS)
			return fail(err, errlen, "rail: %" PRIu64 " rails (at most %d a host)",
				    rails, FE_TOPO_RAILS);
		n[0] = rails + 1;
		n[1] = def(g->hosts, 4);
		n[2] = n[1] * rails;
		n[3] = rails;
	} else if (strcmp(g->kind, "ring") == 0) {
		n[0] = n[1] = n[2] = n[3] = def(g->switches, 3);
	}
	for (unsigned i = 0; i < 4; i++)
		if (n[i] > most[i])
			return fail(err, errlen, "%s: %" PRIu64 " %s (at most %u)", g->kind, n[i],
				    what[i], most[i]);
	return 0;
}

int
fe_topo_generate(const struct fe_topo_gen *g, struct fe_topo *t, char *err, size_t errlen)
{
	int rc;

	t->nsw = t->nhosts = t->nports = t->nlinks = 0;
	if (gen_size(g, err, errlen) < 0)
		return -EINVAL;
	if (strcmp(g->kind, "single") == 0) {
		int sw = add_switch(t, "sw%u", 1, 0);

		rc = sw < 0 ? -1 : gen_hosts_on(t, (unsigned)sw, def(g->hosts, 2));
	} else if (strcmp(g->kind, "leaf-spine") == 0) {
		rc = gen_leaf_spine(g, t);
	} else if (strcmp(g->kind, "fat-tree") == 0) {
		rc = gen_fat_tree(g, t, err, errlen);
	} else if (strcmp(g->kind, "rail") == 0) {
		rc = gen_rail(g, t);
	} else if (strcmp(g->kind, "ring") == 0) {
		rc = gen_ring(g, t, err, errlen);
	} else {
		return fail(err, errlen, "kind '%s' (allowed: " FE_TOPO_KINDS ")", g->kind);
	}
	if (rc == -EINVAL)
		return rc;
	if (rc < 0)
		return fail(err, errlen,
			    "%s: more than %d switches, %d hosts, %d ports or %d links, or more "
			    "than %d rails a host",
			    g->kind, FE_TOPO_SWITCH, FE_TOPO_HOSTS, FE_TOPO_PORTS, FE_TOPO_LINKS,
			    FE_TOPO_RAILS);
	return fe_topo_check(t, err, errlen, NULL);
}

/* ---- Checking ---- */

static int
find(const struct fe_topo *t, const char *name, int hosts)
{
	for (unsigned i = 0; !hosts && i < t->nsw; i++)
		if (strcmp(t->sw[i].name, name) == 0)
			return (int)i;
	for (unsigned i = 0; hosts && i < t->nhosts; i++)
		if (strcmp(t->host[i].name, name) == 0)
			return (int)i;
	return -1;
}

/*
 * A switch's, host's or box's name: letters, digits, '_', '-' and '.'. A link is named by
 * its switches (A-B, one way A>B, in --link A-B:rate=..., set, counters, Prometheus
 * labels and the drawing), so a name must not hold what separates those: ':', ',', '>',
 * '"', '=', a space. NULL if it is one, else what is wrong with it.
 */
static const char *
bad_name(const char *s)
{
	if (*s == '\0')
		return "an empty name";
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return "a name of letters, digits, '_', '-' and '.' only";
	return NULL;
}

/* Links i and j (named) share a name, theirs or a direction's: 1, the name in out. */
static int
same_name(const struct fe_topo *t, unsigned i, unsigned j, char *out, size_t len)
{
	char di[2][80], dj[2][80];

	if (strcmp(t->link[i].name, t->link[j].name) == 0) {
		snprintf(out, len, "%s", t->link[i].name);
		return 1;
	}
	for (int a = 0; a < 2; a++) {
		fe_topo_dir_name(t, i, a, di[a], sizeof(di[a]));
		fe_topo_dir_name(t, j, a, dj[a], sizeof(dj[a]));
	}
	for (int a = 0; a < 4; a++)
		if (strcmp(di[a / 2], dj[a % 2]) == 0) {
			snprintf(out, len, "%s", di[a / 2]);
			return 1;
		}
	return 0;
}

int
fe_topo_check(struct fe_topo *t, char *err, size_t errlen, int *where)
{
	unsigned seen[FE_TOPO_SWITCH] = {0}, stack[FE_TOPO_SWITCH], n = 0, reached = 0;
	char both[80];
	int dummy;

	if (where == NULL)
		where = &dummy;
	*where = -1;

	if (t->nsw == 0)
		return fail(err, errlen, "no switch");
	if (t->nhosts == 0)
		return fail(err, errlen, "no host");
	for (unsigned i = 0; i < t->nsw + t->nhosts; i++) {
		const char *a = i < t->nsw ? t->sw[i].name : t->host[i - t->nsw].name;
		const char *bad = bad_name(a);

		if (bad == NULL && i < t->nsw && t->sw[i].box[0] != '\0' &&
		    (bad = bad_name(t->sw[i].box)) != NULL && (*where = (int)i) >= 0)
			return fail(err, errlen, "switch '%s': box '%s': %s", a, t->sw[i].box, bad);
		if (bad != NULL &&
		    (*where = (int)(i < t->nsw ? i : FE_TOPO_SWITCH + i - t->nsw)) >= 0)
			return fail(err, errlen, "%s '%s': %s (it names links: A-B, A>B)",
				    i < t->nsw ? "switch" : "host", a, bad);
		for (unsigned j = i + 1; j < t->nsw + t->nhosts; j++)
			if (strcmp(a, j < t->nsw ? t->sw[j].name : t->host[j - t->nsw].name) == 0 &&
			    (*where = (int)(j < t->nsw ? j : FE_TOPO_SWITCH + j - t->nsw)) >= 0)
				return fail(err, errlen,
					    "the name '%s' is taken twice (switches and hosts "
					    "share one name space)",
					    a);
	}
	for (unsigned i = 0; i < t->nlinks; i++) {
		struct fe_topo_link *l = &t->link[i];
		unsigned same = 0;

		if (l->a >= t->nsw || l->b >= t->nsw || l->a == l->b)
			return fail(err, errlen, "link %u: joins a switch to itself", i + 1);
		for (unsigned j = 0; j < i; j++)
			same += (t->link[j].a == l->a && t->link[j].b == l->b) ||
				(t->link[j].a == l->b && t->link[j].b == l->a);
		if (same)
			snprintf(l->name, sizeof(l->name), "%s-%s.%u", t->sw[l->a].name,
				 t->sw[l->b].name, same + 1);
		else
			snprintf(l->name, sizeof(l->name), "%s-%s", t->sw[l->a].name,
				 t->sw[l->b].name);
		/* names with '-' or '.' can make two links' names one (a-b and c, a and b-c),
		 * or two directions' (b>a.2: the way back of a parallel a-b.2, or b to a.2) */
		for (unsigned j = 0; j < i; j++)
			if (same_name(t, i, j, both, sizeof(both)) &&
			    (*where = FE_TOPO_LINK_AT + (int)i) >= 0)
				return fail(err, errlen,
					    "links %s to %s and %s to %s are both named '%s': "
					    "rename a switch",
					    t->sw[t->link[j].a].name, t->sw[t->link[j].b].name,
					    t->sw[l->a].name, t->sw[l->b].name, both);
	}
	/* one connected graph of switches: hosts do not forward */
	seen[0] = 1;
	stack[n++] = 0;
	while (n) {
		unsigned s = stack[--n];

		reached++;
		for (unsigned i = 0; i < t->nlinks; i++) {
			unsigned o = t->link[i].a == s	 ? t->link[i].b
				     : t->link[i].b == s ? t->link[i].a
							 : FE_TOPO_SWITCH;

			if (o < t->nsw && !seen[o]) {
				seen[o] = 1;
				stack[n++] = o;
			}
		}
	}
	if (reached < t->nsw)
		for (unsigned s = 0; s < t->nsw; s++)
			if (!seen[s] && (*where = (int)s) >= 0)
				return fail(err, errlen,
					    "disconnected: no path of links joins switch '%s' to "
					    "switch '%s'",
					    t->sw[s].name, t->sw[0].name);
	/* a connected graph with as many links as switches or more has a cycle */
	t->cyclic = t->nlinks >= t->nsw;
	/* one-way: every switch reaches every other along the links' a-to-b direction */
	for (unsigned from = 0; t->oneway && from < t->nsw; from++) {
		memset(seen, 0, sizeof(seen));
		seen[from] = 1;
		stack[0] = from;
		n = 1;
		while (n) {
			unsigned s = stack[--n];

			for (unsigned i = 0; i < t->nlinks; i++)
				if (t->link[i].a == s && !seen[t->link[i].b]) {
					seen[t->link[i].b] = 1;
					stack[n++] = t->link[i].b;
				}
		}
		for (unsigned s = 0; s < t->nsw; s++)
			if (!seen[s] && (*where = (int)s) >= 0)
				return fail(err, errlen,
					    "routing one-way: no path from switch '%s' to switch "
					    "'%s' along the links' a-to-b direction",
					    t->sw[from].name, t->sw[s].name);
	}
	return 0;
}

/* ---- YAML ---- */

struct y_gen {
	char *kind, *hosts, *leaves, *spines, *hpl, *oversub, *k, *rails, *switches;
};

struct y_switch {
	char *name, *buffer, *box;
};

struct y_host {
	char *name, *sw;
	char **rails;
	unsigned rails_count;
};

struct y_link {
	char *a, *b, *rate, *delay, *count;
};

struct y_topo {
	char *name, *description, *routing;
	struct y_gen *generate;
	struct y_switch *switches;
	unsigned switches_count;
	struct y_host *hosts;
	unsigned hosts_count;
	struct y_link *links;
	unsigned links_count;
};

#define STR(key, type, member)                                                                     \
	CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_OPTIONAL, type, member, 0, 255)

static const cyaml_schema_value_t str_entry = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, 255),
};

static const cyaml_schema_field_t gen_fields[] = {
	STR("kind", struct y_gen, kind),
	STR("hosts", struct y_gen, hosts),
	STR("leaves", struct y_gen, leaves),
	STR("spines", struct y_gen, spines),
	STR("hosts-per-leaf", struct y_gen, hpl),
	STR("oversubscription", struct y_gen, oversub),
	STR("k", struct y_gen, k),
	STR("rails", struct y_gen, rails),
	STR("switches", struct y_gen, switches),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t switch_fields[] = {
	STR("name", struct y_switch, name),
	STR("buffer", struct y_switch, buffer),
	STR("box", struct y_switch, box),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t switch_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_switch, switch_fields),
};

static const cyaml_schema_field_t host_fields[] = {
	STR("name", struct y_host, name),
	STR("switch", struct y_host, sw),
	CYAML_FIELD_SEQUENCE("rails", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_host,
			     rails, &str_entry, 0, FE_TOPO_RAILS + 1),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t host_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_host, host_fields),
};

static const cyaml_schema_field_t link_fields[] = {
	STR("a", struct y_link, a),	    STR("b", struct y_link, b),
	STR("rate", struct y_link, rate),   STR("delay", struct y_link, delay),
	STR("count", struct y_link, count), CYAML_FIELD_END,
};

static const cyaml_schema_value_t link_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_link, link_fields),
};

static const cyaml_schema_field_t topo_fields[] = {
	STR("name", struct y_topo, name),
	STR("description", struct y_topo, description),
	STR("routing", struct y_topo, routing),
	CYAML_FIELD_MAPPING_PTR("generate", CYAML_FLAG_OPTIONAL, struct y_topo, generate,
				gen_fields),
	CYAML_FIELD_SEQUENCE("switches", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_topo,
			     switches, &switch_entry, 0, FE_TOPO_SWITCH + 1),
	CYAML_FIELD_SEQUENCE("hosts", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_topo,
			     hosts, &host_entry, 0, FE_TOPO_HOSTS + 1),
	CYAML_FIELD_SEQUENCE("links", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_topo,
			     links, &link_entry, 0, FE_TOPO_LINKS + 1),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t topo_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct y_topo, topo_fields),
};

static const struct fe_yaml_known known_keys[] = {
	{"", "name, description, routing, generate, switches, hosts, links"},
	{"generate", "kind, hosts, leaves, spines, hosts-per-leaf, oversubscription, k, rails, "
		     "switches"},
	{"switches", "name, buffer, box"},
	{"hosts", "name, switch, rails"},
	{"links", "a, b, rate, delay, count"},
	{NULL, NULL},
};

/* A generator's count: 1 to 64 (a topology is at most that big anyway). */
static const struct fe_rule rule_count = {"count", FE_RULE_COUNT, 1, 64, NULL, 0};

static int
gen_key(struct fe_yaml *y, const char *key, const char *v, unsigned *out)
{
	char path[64];
	uint64_t x;

	if (v == NULL)
		return 0;
	snprintf(path, sizeof(path), "generate.%s", key);
	if (fe_yaml_rule(y, path, &rule_count, v, &x) < 0)
		return -EINVAL;
	*out = (unsigned)x;
	return 0;
}

/* The keys each kind takes (the rest of generate's are another kind's). */
static const struct {
	const char *kind, *keys;
} kind_keys[] = {
	{"single", "hosts"},  {"leaf-spine", "leaves, spines, hosts-per-leaf, oversubscription"},
	{"fat-tree", "k"},    {"rail", "rails, hosts"},
	{"ring", "switches"},
};

/* key one of list's ", "-separated words */
static int
in_list(const char *list, const char *key)
{
	const size_t n = strlen(key);

	for (const char *p = list; (p = strstr(p, key)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

/* A key given that yg's kind does not take: refused at its line, not ignored. */
static int
foreign_key(struct fe_yaml *y, const struct y_gen *yg)
{
	const struct {
		const char *key, *v;
	} given[] = {{"hosts", yg->hosts},
		     {"leaves", yg->leaves},
		     {"spines", yg->spines},
		     {"hosts-per-leaf", yg->hpl},
		     {"oversubscription", yg->oversub},
		     {"k", yg->k},
		     {"rails", yg->rails},
		     {"switches", yg->switches}};
	char path[64];

	for (unsigned i = 0; i < sizeof(kind_keys) / sizeof(kind_keys[0]); i++) {
		if (strcmp(kind_keys[i].kind, yg->kind) != 0)
			continue;
		for (unsigned j = 0; j < sizeof(given) / sizeof(given[0]); j++)
			if (given[j].v != NULL && !in_list(kind_keys[i].keys, given[j].key)) {
				snprintf(path, sizeof(path), "generate.%s", given[j].key);
				return fe_yaml_fail(y, path,
						    "generate: kind %s takes no %s (its keys: %s)",
						    yg->kind, given[j].key, kind_keys[i].keys);
			}
	}
	return 0; /* an unknown kind: fe_topo_generate() names it */
}

static int
generated(struct fe_yaml *y, const struct y_gen *yg, struct fe_topo *t)
{
	struct fe_topo_gen g = {0};
	char e[300];

	if (yg->kind == NULL)
		return fe_yaml_fail(y, "generate",
				    "generate: a kind is required (" FE_TOPO_KINDS ")");
	snprintf(g.kind, sizeof(g.kind), "%s", yg->kind);
	if (foreign_key(y, yg) < 0)
		return -EINVAL;
	if (gen_key(y, "hosts", yg->hosts, &g.hosts) < 0 ||
	    gen_key(y, "leaves", yg->leaves, &g.leaves) < 0 ||
	    gen_key(y, "spines", yg->spines, &g.spines) < 0 ||
	    gen_key(y, "hosts-per-leaf", yg->hpl, &g.hosts_per_leaf) < 0 ||
	    gen_key(y, "oversubscription", yg->oversub, &g.oversub) < 0 ||
	    gen_key(y, "k", yg->k, &g.k) < 0 || gen_key(y, "rails", yg->rails, &g.rails) < 0 ||
	    gen_key(y, "switches", yg->switches, &g.switches) < 0)
		return -EINVAL;
	if (fe_topo_generate(&g, t, e, sizeof(e)) < 0)
		return fe_yaml_fail(y, "generate", "generate: %s", e);
	return 0;
}

static int
listed(struct fe_yaml *y, const struct y_topo *d, struct fe_topo *t)
{
	char at[64], e[300];
	uint64_t x;
	int where;
	uint16_t entry_of[FE_TOPO_LINKS]; /* the links: entry each link came from */

	/* at the first one too many */
	snprintf(at, sizeof(at), "%s.%d", d->switches_count > FE_TOPO_SWITCH ? "switches" : "hosts",
		 d->switches_count > FE_TOPO_SWITCH ? FE_TOPO_SWITCH : FE_TOPO_HOSTS);
	if (d->switches_count > FE_TOPO_SWITCH)
		return fe_yaml_fail(y, at, "more than %d switches", FE_TOPO_SWITCH);
	if (d->hosts_count > FE_TOPO_HOSTS)
		return fe_yaml_fail(y, at, "more than %d hosts", FE_TOPO_HOSTS);
	for (unsigned i = 0; i < d->switches_count; i++) {
		snprintf(at, sizeof(at), "switches.%u", i);
		if (d->switches[i].name == NULL)
			return fe_yaml_fail(y, at, "switches.%u: a name is required", i);
		snprintf(t->sw[i].name, FE_TOPO_NAME, "%s", d->switches[i].name);
		if (strlen(d->switches[i].name) >= FE_TOPO_NAME)
			return fe_yaml_fail(y, at, "switch '%s': a name of at most %d characters",
					    d->switches[i].name, FE_TOPO_NAME - 1);
		if (d->switches[i].box) {
			snprintf(at, sizeof(at), "switches.%u.box", i);
			if (strlen(d->switches[i].box) >= FE_TOPO_NAME || !d->switches[i].box[0])
				return fe_yaml_fail(y, at,
						    "switch '%s': box '%s': a name of 1 to %d "
						    "characters",
						    t->sw[i].name, d->switches[i].box,
						    FE_TOPO_NAME - 1);
			snprintf(t->sw[i].box, FE_TOPO_NAME, "%s", d->switches[i].box);
		}
		if (d->switches[i].buffer) {
			snprintf(at, sizeof(at), "switches.%u.buffer", i);
			if (fe_yaml_rule(y, at, &fe_rule_switch_buffer, d->switches[i].buffer,
					 &t->sw[i].buffer) < 0)
				return -EINVAL;
		}
		t->nsw++;
	}
	for (unsigned i = 0; i < d->hosts_count; i++) {
		const struct y_host *h = &d->hosts[i];
		unsigned sw[FE_TOPO_RAILS], n = h->rails_count ? h->rails_count : 1;

		snprintf(at, sizeof(at), "hosts.%u", i);
		if (h->name == NULL)
			return fe_yaml_fail(y, at, "hosts.%u: a name is required", i);
		if (strlen(h->name) >= FE_TOPO_NAME)
			return fe_yaml_fail(y, at, "host '%s': a name of at most %d characters",
					    h->name, FE_TOPO_NAME - 1);
		if (h->sw != NULL && h->rails_count != 0)
			return fe_yaml_fail(y, at, "host '%s': switch: or rails:, not both",
					    h->name);
		if (h->sw == NULL && h->rails_count == 0)
			return fe_yaml_fail(y, at,
					    "host '%s': on no switch (give switch: NAME, or "
					    "rails: [NAME, ...] for a port on each)",
					    h->name);
		if (n > FE_TOPO_RAILS)
			return fe_yaml_fail(y, at, "host '%s': more than %d rails", h->name,
					    FE_TOPO_RAILS);
		for (unsigned r = 0; r < n; r++) {
			const char *s = h->rails_count ? h->rails[r] : h->sw;
			int k = find(t, s, 0);

			if (k < 0)
				return fe_yaml_fail(y, at, "host '%s': no switch '%s'", h->name, s);
			sw[r] = (unsigned)k;
		}
		if (fe_topo_add_host(t, h->name, sw, n) < 0)
			return fe_yaml_fail(y, at, "more than %d dataplane ports", FE_TOPO_PORTS);
	}
	for (unsigned i = 0; i < d->links_count; i++) {
		const struct y_link *l = &d->links[i];
		int a, b;
		uint64_t count = 1, rate = 0, delay = 0;
		uint32_t num = 1, den = 1;

		snprintf(at, sizeof(at), "links.%u", i);
		if (l->a == NULL || l->b == NULL)
			return fe_yaml_fail(y, at, "links.%u: a and b are required", i);
		a = find(t, l->a, 0);
		b = find(t, l->b, 0);
		if (a < 0 || b < 0)
			return fe_yaml_fail(
				y, at, "links.%u: no switch '%s'%s", i, a < 0 ? l->a : l->b,
				find(t, a < 0 ? l->a : l->b, 1) >= 0
					? " (a host: hosts are on switches, by switch: or "
					  "rails:)"
					: "");
		if (a == b)
			return fe_yaml_fail(y, at, "links.%u: joins '%s' to itself", i, l->a);
		snprintf(e, sizeof(e), "links.%u.count", i);
		if (l->count && fe_yaml_rule(y, e, &rule_count, l->count, &count) < 0)
			return -EINVAL;
		snprintf(e, sizeof(e), "links.%u.rate", i);
		if (l->rate && share(l->rate, &num, &den) == 0) {
			if (num == 0 || den == 0 || num > 1000 || den > 1000)
				return fe_yaml_fail(y, e,
						    "rate '%s': a share of the class's rate is "
						    "N/M, each 1 to 1000",
						    l->rate);
		} else if (l->rate && fe_yaml_rule(y, e, &fe_rule_link_rate, l->rate, &rate) < 0) {
			return -EINVAL;
		}
		snprintf(e, sizeof(e), "links.%u.delay", i);
		if (l->delay && fe_yaml_rule(y, e, &fe_rule_link_delay, l->delay, &delay) < 0)
			return -EINVAL;
		for (x = 0; x < count; x++) {
			if (fe_topo_add_link(t, (unsigned)a, (unsigned)b, num, den) < 0)
				return fe_yaml_fail(y, at, "more than %d links", FE_TOPO_LINKS);
			t->link[t->nlinks - 1].rate_bps = rate;
			t->link[t->nlinks - 1].delay_ns = delay;
			entry_of[t->nlinks - 1] = (uint16_t)i;
		}
	}
	if (fe_topo_check(t, e, sizeof(e), &where) < 0) {
		/* at the entry it is about: the second of two names, a switch not reached */
		if (where >= FE_TOPO_LINK_AT)
			snprintf(at, sizeof(at), "links.%u", entry_of[where - FE_TOPO_LINK_AT]);
		else if (where >= FE_TOPO_SWITCH)
			snprintf(at, sizeof(at), "hosts.%d", where - FE_TOPO_SWITCH);
		else if (where >= 0)
			snprintf(at, sizeof(at), "switches.%d", where);
		else
			snprintf(at, sizeof(at), "links");
		return fe_yaml_fail(y, at, "%s", e);
	}
	return 0;
}

int
fe_topo_parse(const char *text, size_t len, const char *source, struct fe_topo *t, char *err,
	      size_t errlen)
{
	struct fe_yaml y = {.text = text,
			    .len = len,
			    .source = source,
			    .err = err,
			    .errlen = errlen,
			    .known = known_keys};
	struct y_topo *d = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	snprintf(t->source, sizeof(t->source), "%s", source);
	if (fe_yaml_load(&y, &topo_schema, FE_PROFILE_MAX_BYTES, (void **)&d) < 0)
		return -EINVAL;
	if (d->name == NULL) {
		rc = fe_yaml_fail(&y, "", "the topology needs a name (name: ...)");
	} else if (d->generate && (d->switches_count || d->hosts_count || d->links_count)) {
		rc = fe_yaml_fail(&y, "generate",
				  "generate: or switches:, hosts: and links:, not both");
	} else {
		snprintf(t->name, sizeof(t->name), "%s", d->name);
		if (d->description)
			snprintf(t->description, sizeof(t->description), "%s", d->description);
		rc = 0;
		if (d->routing && strcmp(d->routing, "one-way") == 0)
			t->oneway = 1;
		else if (d->routing && strcmp(d->routing, "shortest") != 0)
			rc = fe_yaml_fail(&y, "routing",
					  "routing '%s' (allowed: shortest, one-way)", d->routing);
		if (rc == 0)
			rc = d->generate ? generated(&y, d->generate, t) : listed(&y, d, t);
	}
	fe_yaml_free(&topo_schema, d);
	return rc;
}

unsigned
fe_topo_box_of(const struct fe_topo *t, char (*names)[FE_TOPO_NAME], unsigned n, unsigned s)
{
	for (unsigned b = 0; b < n; b++)
		if (strcmp(names[b], t->sw[s].box) == 0)
			return b;
	return n;
}

unsigned
fe_topo_boxes(const struct fe_topo *t, char (*names)[FE_TOPO_NAME])
{
	unsigned n = 0;

	for (unsigned i = 0; i <= t->nsw && n < FE_TOPO_BOXES; i++) {
		/* the first host's switch first: its box runs the hosts */
		unsigned s = i == 0 ? (t->nhosts ? t->host[0].sw[0] : 0) : i - 1;

		if (t->sw[s].box[0] && fe_topo_box_of(t, names, n, s) == n)
			snprintf(names[n++], FE_TOPO_NAME, "%s", t->sw[s].box);
	}
	return n;
}

int
fe_topo_split_check(const struct fe_topo *t, char *err, size_t errlen)
{
	char names[FE_TOPO_BOXES][FE_TOPO_NAME];
	unsigned n = fe_topo_boxes(t, names);

	for (unsigned s = 0; s < t->nsw; s++) {
		if (!t->sw[s].box[0]) {
			snprintf(err, errlen, "switch %s names no box (switches: box:)",
				 t->sw[s].name);
			return -EINVAL;
		}
		if (fe_topo_box_of(t, names, n, s) == n) {
			snprintf(err, errlen, "more than %d boxes", FE_TOPO_BOXES);
			return -EINVAL;
		}
	}
	if (n < 2) {
		snprintf(err, errlen, "all its switches are on box %s: nothing to split",
			 n ? names[0] : "''");
		return -EINVAL;
	}
	return 0;
}

void
fe_topo_dir_name(const struct fe_topo *t, unsigned l, int dir, char *buf, size_t len)
{
	const struct fe_topo_link *tl = &t->link[l];
	const char *from = t->sw[dir ? tl->b : tl->a].name, *to = t->sw[dir ? tl->a : tl->b].name;
	char base[sizeof(tl->name)];
	const char *nth;

	snprintf(base, sizeof(base), "%s-%s", t->sw[tl->a].name, t->sw[tl->b].name);
	nth = strncmp(tl->name, base, strlen(base)) == 0 ? tl->name + strlen(base) : "";
	snprintf(buf, len, "%s>%s%s", from, to, nth);
}

int
fe_topo_find(const char *name, char *path, size_t len, char *err, size_t errlen)
{
	return fe_yaml_find("topology", "FABEMU_TOPOLOGIES", "topologies", FE_TOPO_DIR, name, path,
			    len, err, errlen) < 0
		       ? -ENOENT
		       : 0;
}

int
fe_topo_load(const char *name, struct fe_topo *t, char *err, size_t errlen)
{
	char path[600], *text;
	size_t len;
	int rc;

	if (fe_topo_find(name, path, sizeof(path), err, errlen) < 0)
		return -ENOENT;
	text = fe_profile_read(path, &len, err, errlen);
	if (text == NULL)
		return -EIO;
	rc = fe_topo_parse(text, len, path, t, err, errlen);
	free(text);
	return rc;
}

void
fe_topo_fabric_names(const struct fe_topo *t, char (*dir)[80], char (*link)[72])
{
	for (unsigned l = 0; l < t->nlinks; l++) {
		snprintf(link[l], sizeof(link[l]), "%s", t->link[l].name);
		fe_topo_dir_name(t, l, 0, dir[2 * l], sizeof(dir[0]));
		fe_topo_dir_name(t, l, 1, dir[2 * l + 1], sizeof(dir[0]));
	}
}

/* ---- Printing ---- */

static const char *
link_rate(const struct fe_topo_link *l, char *buf, size_t len)
{
	if (l->rate_bps)
		return fe_fmt_rate(l->rate_bps, buf, len);
	uint32_t a = l->rate_num, b = l->rate_den;

	while (b != 0) { /* a: their greatest common divisor */
		uint32_t r = a % b;

		a = b;
		b = r;
	}
	if (l->rate_num == l->rate_den)
		return "the class's";
	if (l->rate_den == a) /* a whole multiple: "x 2", not "x 2/1" */
		snprintf(buf, len, "the class's x %u", l->rate_num / a);
	else
		snprintf(buf, len, "the class's x %u/%u", l->rate_num / a, l->rate_den / a);
	return buf;
}

void
fe_topo_print(FILE *f, const struct fe_topo *t)
{
	char r[48], d[32];

	fprintf(f, "topology %s (%s)\n", t->name, t->source);
	if (t->description[0])
		fprintf(f, "description %s\n", t->description);
	fprintf(f, "switches %u, hosts %u, dataplane ports %u, links %u%s\n", t->nsw, t->nhosts,
		t->nports, t->nlinks,
		t->cyclic ? " (the switches' graph has cycles: routes must not loop)" : "");
	for (unsigned i = 0; i < t->nsw; i++)
		if (t->sw[i].buffer)
			fprintf(f, "switch %-12s buffer %" PRIu64 "B\n", t->sw[i].name,
				t->sw[i].buffer);
	for (unsigned i = 0; i < t->nsw; i++)
		if (t->sw[i].box[0])
			fprintf(f, "switch %-12s on box %s\n", t->sw[i].name, t->sw[i].box);
	for (unsigned i = 0; i < t->nhosts; i++) {
		const struct fe_topo_host *h = &t->host[i];

		for (unsigned p = 0; p < h->nports; p++)
			fprintf(f, "port %-3u host %-8s%s on %s (link class host)\n",
				h->first_port + p, h->name,
				h->nports > 1 ? (snprintf(r, sizeof(r), " rail %u", p + 1), r) : "",
				t->sw[h->sw[p]].name);
	}
	for (unsigned i = 0; i < t->nlinks; i++) {
		const struct fe_topo_link *l = &t->link[i];

		fprintf(f, "link %-20s rate %s, delay %s (link class fabric)\n", l->name,
			link_rate(l, r, sizeof(r)),
			l->delay_ns ? fe_fmt_time(l->delay_ns, d, sizeof(d)) : "the class's");
	}
}

/* s as a DOT string's text: '"' and '\\' escaped (names are checked: the topology's is not) */
static void
dot_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void
fe_topo_dot(FILE *f, const struct fe_topo *t)
{
	char r[48];

	fputs("graph \"", f);
	dot_text(f, t->name);
	fputs("\" {\n  graph [rankdir=BT, fontname=\"Helvetica\", label=\"", f);
	dot_text(f, t->name);
	fputs("\"];\n", f);
	fprintf(f, "  node [fontname=\"Helvetica\", fontsize=10];\n"
		   "  edge [fontname=\"Helvetica\", fontsize=8];\n");
	for (unsigned i = 0; i < t->nsw; i++)
		fprintf(f, "  \"%s\" [shape=box, style=filled, fillcolor=\"#dde6f0\"];\n",
			t->sw[i].name);
	for (unsigned i = 0; i < t->nhosts; i++) {
		const struct fe_topo_host *h = &t->host[i];

		fprintf(f, "  \"%s\" [shape=ellipse];\n", h->name);
		for (unsigned p = 0; p < h->nports; p++)
			fprintf(f, "  \"%s\" -- \"%s\" [label=\"port %u\"];\n", h->name,
				t->sw[h->sw[p]].name, h->first_port + p);
	}
	for (unsigned i = 0; i < t->nlinks; i++) {
		const struct fe_topo_link *l = &t->link[i];

		fprintf(f, "  \"%s\" -- \"%s\"%s%s%s;\n", t->sw[l->a].name, t->sw[l->b].name,
			l->rate_bps || l->rate_num != l->rate_den ? " [label=\"" : "",
			l->rate_bps || l->rate_num != l->rate_den ? link_rate(l, r, sizeof(r)) : "",
			l->rate_bps || l->rate_num != l->rate_den ? "\"]" : "");
	}
	fprintf(f, "}\n");
}
