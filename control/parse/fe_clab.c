/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

#include "fe_clab.h"
#include "fe_linkspec.h"
#include "fe_profile.h"
#include "fe_rules.h"
#include "fe_units.h"

enum role { R_HOST, R_SWITCH, R_EMULATOR };

static const char *const role_name[] = {"host", "switch", "emulator"};

struct cnode {
	char name[64];
	enum role role;
	const yaml_node_t *at; /* its key, for messages */
	const yaml_node_t *map;
};

/* One end of a link: a node, its interface, its own vars (that end's egress). */
struct cend {
	unsigned node;
	char ifname[32];
	const yaml_node_t *vars, *at;
};

struct clink {
	struct cend e[2];
	const yaml_node_t *vars, *at;
	const char *prefix; /* "": vars.fabemu's keys; "fabemu.": the link's labels' */
};

#define NODES (FE_TOPO_SWITCH + FE_TOPO_HOSTS + 1)

struct ctx {
	yaml_document_t doc;
	uint64_t scale; /* the lab's (labels: fabemu.scale), 1 if none */
	const char *src;
	char *err;
	size_t errlen;
	struct fe_clab *lab;
	const yaml_node_t *defaults, *groups, *kinds;
	struct cnode node[NODES];
	unsigned nnode;
	struct clink link[FE_TOPO_LINKS + FE_TOPO_PORTS];
	unsigned nlink;
};

static int
fail(struct ctx *c, const yaml_node_t *at, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, c->errlen, "%s:%lu: ", c->src,
			 at ? (unsigned long)at->start_mark.line + 1 : 1UL);

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < c->errlen)
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const yaml_node_t *
nd(struct ctx *c, int id)
{
	return yaml_document_get_node(&c->doc, id);
}

static const char *
scal(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of key in mapping m (NULL: absent, or m not a mapping); *k: the key's node. */
static const yaml_node_t *
get_at(struct ctx *c, const yaml_node_t *m, const char *key, const yaml_node_t **k)
{
	if (m == NULL || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		const char *s = scal(nd(c, p->key));

		if (s != NULL && strcmp(s, key) == 0) {
			if (k != NULL)
				*k = nd(c, p->key);
			return nd(c, p->value);
		}
	}
	return NULL;
}

static const yaml_node_t *
get(struct ctx *c, const yaml_node_t *m, const char *key)
{
	return get_at(c, m, key, NULL);
}

/*
 * key (and sub in it, if not NULL) of a node as containerlab inherits it: the node's own,
 * else its group's, else its kind's, else the defaults'.
 */
static const char *
inherit(struct ctx *c, const yaml_node_t *node, const char *key, const char *sub)
{
	const char *group = scal(get(c, node, "group")), *kind;
	const yaml_node_t *from[4] = {node, group ? get(c, c->groups, group) : NULL, NULL,
				      c->defaults};

	kind = scal(get(c, node, "kind"));
	if (kind == NULL && from[1] != NULL)
		kind = scal(get(c, from[1], "kind"));
	if (kind == NULL)
		kind = scal(get(c, c->defaults, "kind"));
	if (strcmp(key, "kind") == 0)
		return kind;
	from[2] = kind ? get(c, c->kinds, kind) : NULL;
	for (unsigned i = 0; i < 4; i++) {
		const yaml_node_t *v = get(c, from[i], key);
		const char *s = sub ? scal(get(c, v, sub)) : scal(v);

		if (s != NULL)
			return s;
	}
	return NULL;
}

/* A lab-wide setting (fabemu.profile, .scale, .path): every node that sets it agrees. */
static int
lab_label(struct ctx *c, const struct cnode *n, const char *label, char *out, size_t len)
{
	const char *v = inherit(c, n->map, "labels", label);

	if (v == NULL)
		return 0;
	if (out[0] != '\0' && strcmp(out, v) != 0)
		return fail(c, n->at,
			    "node %s: %s '%s', where another node says '%s': one value a lab",
			    n->name, label, v, out);
	if (strlen(v) >= len)
		return fail(c, n->at, "node %s: %s '%s' is too long", n->name, label, v);
	snprintf(out, len, "%s", v);
	return 0;
}

/* containerlab's names ([A-Za-z0-9][A-Za-z0-9._-]*, its '|' left out): plain in YAML too. */
static int
good_name(const char *s)
{
	if (!isalnum((unsigned char)s[0]))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return 0;
	return 1;
}

/*
 * The lab's regime as its campaign takes it, checked at the first node that says it (the
 * others must say the same, lab_label(); had_path, had_profile: a node before said it): a
 * path choice known, a profile found and loaded, what `campaign check` does with them.
 */
static int
lab_regime(struct ctx *c, const struct cnode *n, int had_path, int had_profile)
{
	char found[PATH_MAX], e[512];
	struct fe_profile *p;
	enum fe_path path;
	int rc = 0;

	if (!had_path && inherit(c, n->map, "labels", "fabemu.path") != NULL &&
	    fe_path_parse(c->lab->path, &path) < 0)
		return fail(c, n->at, "node %s: fabemu.path '%s' (allowed: " FE_PATH_ALLOWED ")",
			    n->name, c->lab->path);
	if (had_profile || inherit(c, n->map, "labels", "fabemu.profile") == NULL)
		return 0;
	if (fe_profile_find(c->lab->profile, found, sizeof(found), e, sizeof(e)) < 0)
		return fail(c, n->at, "node %s: fabemu.profile: %s", n->name, e);
	p = malloc(sizeof(*p));
	if (p == NULL)
		return fail(c, n->at, "out of memory");
	if (fe_profile_load(found, p, e, sizeof(e)) < 0)
		rc = fail(c, n->at, "node %s: fabemu.profile %s: %s", n->name, c->lab->profile, e);
	free(p);
	return rc;
}

static int
read_nodes(struct ctx *c, const yaml_node_t *nodes)
{
	if (nodes == NULL || nodes->type != YAML_MAPPING_NODE)
		return fail(c, nodes, "topology.nodes: a mapping of node names is required");
	for (yaml_node_pair_t *p = nodes->data.mapping.pairs.start;
	     p < nodes->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = nd(c, p->key);
		struct cnode *n = &c->node[c->nnode];
		const char *name = scal(k), *role, *kind;
		int had_profile, had_path;

		if (c->nnode == NODES)
			return fail(c, k, "more than %d nodes", NODES);
		if (name == NULL || strlen(name) >= FE_TOPO_NAME || !good_name(name))
			return fail(c, k,
				    "node '%s': a name of 1 to %d letters, digits, '.', '_' or '-' "
				    "(containerlab's rule)",
				    name ? name : "?", FE_TOPO_NAME - 1);
		snprintf(n->name, sizeof(n->name), "%s", name);
		n->at = k;
		n->map = nd(c, p->value);
		role = inherit(c, n->map, "labels", "fabemu.role");
		kind = inherit(c, n->map, "kind", NULL);
		if (role != NULL) {
			unsigned r;

			for (r = 0; r < 3 && strcmp(role, role_name[r]) != 0; r++)
				;
			if (r == 3)
				return fail(c, k,
					    "node %s: fabemu.role '%s' (allowed: host, switch, "
					    "emulator)",
					    name, role);
			n->role = (enum role)r;
		} else if (kind == NULL || strcmp(kind, "linux") == 0) {
			n->role = R_HOST; /* a container: a host of the fabric */
		} else {
			n->role = R_SWITCH; /* bridge, ovs-bridge, a network OS's kind */
		}
		/* the regime's values: checked once, where the first node gives them */
		had_profile = c->lab->profile[0] != '\0';
		had_path = c->lab->path[0] != '\0';
		if (n->role != R_HOST &&
		    (lab_label(c, n, "fabemu.profile", c->lab->profile, sizeof(c->lab->profile)) <
			     0 ||
		     lab_label(c, n, "fabemu.scale", c->lab->scale, sizeof(c->lab->scale)) < 0 ||
		     lab_label(c, n, "fabemu.path", c->lab->path, sizeof(c->lab->path)) < 0 ||
		     lab_regime(c, n, had_path, had_profile) < 0))
			return -EINVAL;
		c->nnode++;
	}
	return 0;
}

static int
find_node(struct ctx *c, const char *name, const yaml_node_t *at, unsigned *out)
{
	for (unsigned i = 0; i < c->nnode; i++)
		if (strcmp(c->node[i].name, name) == 0) {
			*out = i;
			return 0;
		}
	return fail(c, at, "endpoint '%s': no node of that name in topology.nodes", name);
}

/*
 * An interface's name: what the lab's kinds take (eth1, e1-1, ethernet-1/1), never empty,
 * and printable, since `import` writes it into the files' comments.
 */
static int
good_ifname(const char *s, size_t size)
{
	size_t n = strlen(s);

	if (n == 0 || n >= size)
		return 0;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s))
			return 0;
	return 1;
}

/* "node:interface" (the brief form) or {node:, interface:, vars:} (the extended form). */
static int
read_end(struct ctx *c, const yaml_node_t *v, struct cend *e)
{
	char node[128];
	const char *s = scal(v), *colon, *ifn;

	e->at = v;
	e->vars = NULL;
	if (s != NULL) {
		colon = strchr(s, ':');
		if (colon == NULL || colon == s || colon[1] == '\0' ||
		    (size_t)(colon - s) >= sizeof(node))
			return fail(c, v, "endpoint '%s': expected NODE:INTERFACE", s);
		snprintf(node, sizeof(node), "%.*s", (int)(colon - s), s);
		ifn = colon + 1;
	} else {
		const char *n = scal(get(c, v, "node"));

		ifn = scal(get(c, v, "interface"));
		if (n == NULL || ifn == NULL)
			return fail(c, v, "endpoint: node and interface are required");
		snprintf(node, sizeof(node), "%s", n);
		e->vars = get(c, get(c, v, "vars"), "fabemu");
	}
	if (!good_ifname(ifn, sizeof(e->ifname)))
		return fail(c, v,
			    "interface '%s': 1 to %zu characters, none a space or a control "
			    "character, are required",
			    ifn, sizeof(e->ifname) - 1);
	snprintf(e->ifname, sizeof(e->ifname), "%s", ifn);
	return find_node(c, node, v, &e->node);
}

/* m has a key that starts with prefix. */
static int
has_prefixed(struct ctx *c, const yaml_node_t *m, const char *prefix)
{
	if (m == NULL || m->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		const char *k = scal(nd(c, p->key));

		if (k != NULL && strncmp(k, prefix, strlen(prefix)) == 0)
			return 1;
	}
	return 0;
}

/* A setting's value: key under prefix in m ("fabemu." + key in a link's labels). */
static const yaml_node_t *
setting(struct ctx *c, const yaml_node_t *m, const char *prefix, const char *key,
	const yaml_node_t **k)
{
	char full[64];

	snprintf(full, sizeof(full), "%s%s", prefix, key);
	return get_at(c, m, full, k);
}

/* An interface is one link's end (containerlab refuses a second); 1 with the error. */
static int
end_taken(struct ctx *c, const struct cend *end, int e)
{
	for (unsigned l = 0; l <= c->nlink; l++)
		for (int j = 0; j < (l < c->nlink ? 2 : e); j++) {
			const struct cend *o = &c->link[l].e[j];

			if (o->node == end->node && strcmp(o->ifname, end->ifname) == 0) {
				fail(c, end->at,
				     "endpoint %s:%s is already an end of the link at line %lu",
				     c->node[end->node].name, end->ifname,
				     (unsigned long)c->link[l].at->start_mark.line + 1);
				return 1;
			}
		}
	return 0;
}

static int
read_links(struct ctx *c, const yaml_node_t *links)
{
	if (links == NULL)
		return 0;
	if (links->type != YAML_SEQUENCE_NODE)
		return fail(c, links, "topology.links: a list of links is expected");
	for (yaml_node_item_t *i = links->data.sequence.items.start;
	     i < links->data.sequence.items.top; i++) {
		const yaml_node_t *l = nd(c, *i), *eps = get(c, l, "endpoints");
		struct clink *k = &c->link[c->nlink];

		if (c->nlink == FE_TOPO_LINKS + FE_TOPO_PORTS)
			return fail(c, l, "more than %d links", FE_TOPO_LINKS + FE_TOPO_PORTS);
		if (eps == NULL || eps->type != YAML_SEQUENCE_NODE ||
		    eps->data.sequence.items.top - eps->data.sequence.items.start != 2)
			return fail(c, l, "link: endpoints: two are required");
		k->at = l;
		k->vars = get(c, get(c, l, "vars"), "fabemu");
		k->prefix = "";
		if (has_prefixed(c, get(c, l, "labels"), "fabemu.")) { /* flat: fabemu.KEY */
			if (k->vars != NULL)
				return fail(
					c, l,
					"link: fabemu settings in both its vars and its labels: "
					"give them in one place");
			k->vars = get(c, l, "labels");
			k->prefix = "fabemu.";
		}
		for (int e = 0; e < 2; e++) {
			if (read_end(c, nd(c, eps->data.sequence.items.start[e]), &k->e[e]) < 0)
				return -EINVAL;
			if (end_taken(c, &k->e[e], e))
				return -EINVAL;
		}
		c->nlink++;
	}
	return 0;
}

/*
 * A lab's values are its real fabric's; fabemu runs them at the lab's scale (fabemu.scale)
 * as it dilates a profile (fe_profile_dilate: a rate N times lower, a delay or jitter N
 * times longer, in range or refused). d holds key's value; *v becomes what to write.
 * Other keys (sizes, probabilities) as given. 0, or -ERANGE with a message in e.
 */
static int
at_scale(const struct ctx *c, const char *key, const char *name, struct fe_linkdef *d,
	 const char **v, char *buf, size_t len, char *e, size_t elen)
{
	int rate = strcmp(key, "rate") == 0, delay = strcmp(key, "delay") == 0;

	if (c->scale <= 1 || (!rate && !delay && strcmp(key, "jitter") != 0))
		return 0;
	if (fe_profile_dilate(d, (uint32_t)c->scale, name, e, elen) < 0)
		return -ERANGE;
	if (rate)
		*v = d->link.rate_bps ? fe_fmt_rate(d->link.rate_bps, buf, len) : *v;
	else
		*v = fe_fmt_time(delay ? d->link.delay_ns : d->link.jitter_ns, buf, len);
	return 0;
}

static int
push_spec(struct ctx *c, const yaml_node_t *at, const char *sel, const struct fe_linkdef *d)
{
	char keys[240];

	if (fe_linkdef_spec(d, keys, sizeof(keys)) < 0 || c->lab->nspecs == FE_CLAB_SPECS ||
	    (size_t)snprintf(c->lab->spec[c->lab->nspecs], sizeof(c->lab->spec[0]), "%s:%s", sel,
			     keys) >= sizeof(c->lab->spec[0]))
		return fail(c, at,
			    "vars.fabemu.profile: too long, or too many links with settings");
	c->lab->nspecs++;
	return 0;
}

/*
 * vars.fabemu.profile: the link takes that profile's values for its class, at the lab's
 * scale (a host's port its up and down links', a link between switches the fabric
 * class's), as `fabemuctl apply P --link` gives them: all of them, so the lab's profile
 * leaves nothing behind on it.
 */
static int
profile_specs(struct ctx *c, const yaml_node_t *at, const char *name, const char *sel, int fabric)
{
	struct fe_profile *p = malloc(sizeof(*p));
	struct fe_linkdef up, down, def;
	struct fe_fabric fab;
	uint32_t scale = c->lab->scale[0] ? (uint32_t)c->scale : 0; /* 0: the profile's own */
	const char *dot = strchr(sel, '.');
	char e[512], s[96];
	int rc = 0;

	if (p == NULL)
		return fail(c, at, "out of memory");
	if (name == NULL || fe_profile_load(name, p, e, sizeof(e)) < 0) {
		rc = fail(c, at, "vars.fabemu.profile: %s",
			  name ? e : "a profile's name is expected");
	} else if (fabric) {
		if (fe_profile_fabric(p, scale, &def, e, sizeof(e)) < 0)
			rc = fail(c, at, "vars.fabemu.profile %s: %s", name, e);
		else
			rc = push_spec(c, at, sel, &def);
	} else if (fe_profile_expand(p, scale, 1, &up, &down, &fab, e, sizeof(e)) < 0) {
		rc = fail(c, at, "vars.fabemu.profile %s: %s", name, e);
	} else if (dot != NULL) { /* one end's: that direction */
		rc = push_spec(c, at, sel, strcmp(dot, ".up") == 0 ? &up : &down);
	} else {
		snprintf(s, sizeof(s), "%s.up", sel);
		rc = push_spec(c, at, s, &up);
		snprintf(s, sizeof(s), "%s.down", sel);
		if (rc == 0)
			rc = push_spec(c, at, s, &down);
	}
	free(p);
	return rc;
}

/*
 * The `--link` spec "SEL:k=v,..." of a vars mapping (NULL: none) on a host's port or a
 * link between switches (fabric), each key checked as --link checks it, after its
 * profile's (profile_specs()); rate and delay left out when skip_rd (a fabric link's are
 * the topology's: rate_delay()). match, if given, goes last (the rest is its filter).
 */
static int
vars_spec(struct ctx *c, const yaml_node_t *vars, const char *prefix, const char *sel, int skip_rd,
	  int fabric)
{
	const char *where = prefix[0] ? "labels: " : "vars.fabemu";
	char spec[sizeof(c->lab->spec[0])], match[FE_MATCH_LEN] = "";
	size_t n = (size_t)snprintf(spec, sizeof(spec), "%s:", sel), base = n;

	if (vars == NULL)
		return 0;
	if (vars->type != YAML_MAPPING_NODE)
		return fail(c, vars, "vars.fabemu: a mapping of --link keys is expected");
	{ /* a profile's values first: the link's own keys then override them */
		const yaml_node_t *pk = NULL, *pv = setting(c, vars, prefix, "profile", &pk);

		if (pv != NULL && profile_specs(c, pk, scal(pv), sel, fabric) < 0)
			return -EINVAL;
		if (pv != NULL) /* a profile's rate and delay would win over the topology's */
			skip_rd = 0;
	}
	for (yaml_node_pair_t *p = vars->data.mapping.pairs.start; p < vars->data.mapping.pairs.top;
	     p++) {
		const yaml_node_t *kn = nd(c, p->key), *vn = nd(c, p->value);
		const char *k = scal(kn), *v = scal(vn);
		struct fe_linkdef d = {0};
		char e[256], dil[32], name[96];

		if (k != NULL && prefix[0] != '\0') { /* a link's labels: fabemu.KEY only */
			if (strncmp(k, prefix, strlen(prefix)) != 0)
				continue;
			k += strlen(prefix);
		}
		if (k != NULL && strcmp(k, "profile") == 0)
			continue;
		if (k == NULL || v == NULL)
			return fail(c, kn,
				    "%s%s%s: a value as --link takes it (e.g. ecn: "
				    "100KB/400KB/1%%), not a list or mapping",
				    where, prefix[0] ? prefix : ".", k ? k : "?");
		if (fe_link_param_set(&d, k, v, e, sizeof(e)) < 0) {
			/* "KEY: what is wrong" from --link's rules: the key once, at its path */
			size_t kl = strlen(k);
			const char *why = strncmp(e, k, kl) == 0 && e[kl] == ':' ? e + kl + 2 : e;

			return fail(c, kn, "%s%s%s: %s", where, prefix[0] ? "fabemu." : ".", k,
				    why);
		}
		if (skip_rd && (strcmp(k, "rate") == 0 || strcmp(k, "delay") == 0))
			continue;
		if (strcmp(k, "match") == 0) {
			snprintf(match, sizeof(match), "%s", v);
			continue;
		}
		snprintf(name, sizeof(name), "%s%s%s", where, prefix[0] ? "fabemu." : ".", k);
		if (at_scale(c, k, name, &d, &v, dil, sizeof(dil), e, sizeof(e)) < 0)
			return fail(c, kn, "%s", e);
		n += (size_t)snprintf(spec + n, n < sizeof(spec) ? sizeof(spec) - n : 0, "%s%s=%s",
				      n > base ? "," : "", k, v);
	}
	if (match[0] != '\0')
		n += (size_t)snprintf(spec + n, n < sizeof(spec) ? sizeof(spec) - n : 0,
				      "%smatch=%s", n > base ? "," : "", match);
	if (n == base)
		return 0;
	if (n >= sizeof(spec) || c->lab->nspecs == FE_CLAB_SPECS)
		return fail(c, vars, "vars.fabemu: too long, or too many links with settings");
	snprintf(c->lab->spec[c->lab->nspecs++], sizeof(c->lab->spec[0]), "%s", spec);
	return 0;
}

static int
add_port(struct ctx *c, const struct clink *k, int host_end)
{
	struct fe_clab *lab = c->lab;
	const struct cend *h = &k->e[host_end];
	char sel[32];

	if (lab->nports == FE_TOPO_PORTS)
		return fail(c, k->at, "more than %d host ports", FE_TOPO_PORTS);
	snprintf(lab->node[lab->nports], sizeof(lab->node[0]), "%s", c->node[h->node].name);
	snprintf(lab->ifname[lab->nports], sizeof(lab->ifname[0]), "%s", h->ifname);
	snprintf(sel, sizeof(sel), "%u", lab->nports);
	if (vars_spec(c, k->vars, k->prefix, sel, 0, 0) < 0)
		return -EINVAL;
	snprintf(sel, sizeof(sel), "%u.up", lab->nports); /* the host's end sends up */
	if (vars_spec(c, h->vars, "", sel, 0, 0) < 0)
		return -EINVAL;
	snprintf(sel, sizeof(sel), "%u.down", lab->nports);
	if (vars_spec(c, k->e[1 - host_end].vars, "", sel, 0, 0) < 0)
		return -EINVAL;
	lab->nports++;
	return 0;
}

/* A fabric link's rate and delay (the topology's), from its vars (NULL: none). */
static int
rate_delay(struct ctx *c, const yaml_node_t *vars, const char *prefix, struct fe_topo_link *l)
{
	static const char *const keys[] = {"rate", "delay"};

	for (unsigned i = 0; i < 2; i++) {
		const yaml_node_t *k = NULL, *v = setting(c, vars, prefix, keys[i], &k);
		struct fe_linkdef d = {0};
		char e[256], name[64];

		if (v == NULL)
			continue;
		snprintf(name, sizeof(name), "%s%s", prefix[0] ? "labels: fabemu." : "vars.fabemu.",
			 keys[i]);
		if (scal(v) == NULL || fe_link_param_set(&d, keys[i], scal(v), e, sizeof(e)) < 0)
			return fail(c, k, "%s: %s", name, scal(v) ? e : "a value is expected");
		/* at the lab's scale, as vars_spec() writes the other keys */
		if (fe_profile_dilate(&d, (uint32_t)c->scale, name, e, sizeof(e)) < 0)
			return fail(c, k, "%s", e);
		if (i == 0)
			l->rate_bps = d.link.rate_bps;
		else
			l->delay_ns = d.link.delay_ns;
	}
	return 0;
}

/* The lab drawn out: its switches, its hosts' ports (rails), its fabric's links. */
static int
drawn_out(struct ctx *c)
{
	struct fe_topo *t = &c->lab->topo;
	unsigned sw_of[NODES];
	const yaml_node_t *link_at[FE_TOPO_LINKS]; /* the links: the lab's each came from */
	char e[300];
	int where;

	snprintf(t->name, sizeof(t->name), "%s", c->lab->name);
	snprintf(t->description, sizeof(t->description), "containerlab lab %s", c->lab->name);
	snprintf(t->source, sizeof(t->source), "%s", c->src);
	for (unsigned i = 0; i < c->nnode; i++)
		if (c->node[i].role == R_SWITCH) {
			if (t->nsw == FE_TOPO_SWITCH)
				return fail(c, c->node[i].at, "more than %d switches",
					    FE_TOPO_SWITCH);
			sw_of[i] = t->nsw;
			snprintf(t->sw[t->nsw++].name, FE_TOPO_NAME, "%s", c->node[i].name);
		}
	for (unsigned i = 0; i < c->nnode; i++) {
		unsigned rails[FE_TOPO_RAILS], n = 0;

		if (c->node[i].role != R_HOST)
			continue;
		for (unsigned l = 0; l < c->nlink; l++)
			for (int e = 0; e < 2; e++)
				if (c->link[l].e[e].node == i) {
					if (n == FE_TOPO_RAILS)
						return fail(c, c->node[i].at,
							    "host %s has more than %d links to "
							    "switches",
							    c->node[i].name, FE_TOPO_RAILS);
					rails[n++] = sw_of[c->link[l].e[1 - e].node];
					if (add_port(c, &c->link[l], e) < 0)
						return -EINVAL;
				}
		if (n == 0)
			return fail(c, c->node[i].at,
				    "host %s has no link to a switch (a node that is not a "
				    "host: labels: {fabemu.role: switch})",
				    c->node[i].name);
		if (fe_topo_add_host(t, c->node[i].name, rails, n) < 0)
			return fail(c, c->node[i].at, "more than %d hosts or %d host ports",
				    FE_TOPO_HOSTS, FE_TOPO_PORTS);
	}
	for (unsigned l = 0; l < c->nlink; l++) {
		const struct clink *k = &c->link[l];

		if (c->node[k->e[0].node].role != R_SWITCH ||
		    c->node[k->e[1].node].role != R_SWITCH)
			continue;
		if (fe_topo_add_link(t, sw_of[k->e[0].node], sw_of[k->e[1].node], 1, 1) < 0)
			return fail(c, k->at, "more than %d links between switches", FE_TOPO_LINKS);
		link_at[t->nlinks - 1] = k->at;
		if (rate_delay(c, k->vars, k->prefix, &t->link[t->nlinks - 1]) < 0)
			return -EINVAL;
	}
	if (fe_topo_check(t, e, sizeof(e), &where) < 0) { /* and the links named */
		const char *name = where < 0 || where >= FE_TOPO_LINK_AT ? NULL
				   : where < FE_TOPO_SWITCH		 ? t->sw[where].name
							    : t->host[where - FE_TOPO_SWITCH].name;
		const yaml_node_t *at =
			where >= FE_TOPO_LINK_AT ? link_at[where - FE_TOPO_LINK_AT] : c->node[0].at;

		for (unsigned i = 0; name && i < c->nnode; i++)
			if (strcmp(c->node[i].name, name) == 0)
				at = c->node[i].at;
		return fail(c, at, "as a fabemu topology: %s", e);
	}
	return 0;
}

/* The links between switches' own settings, by the names the topology gave them. */
static int
fabric_specs(struct ctx *c)
{
	unsigned f = 0;

	for (unsigned l = 0; l < c->nlink; l++) {
		const struct clink *k = &c->link[l];
		char sel[96];

		if (c->node[k->e[0].node].role != R_SWITCH ||
		    c->node[k->e[1].node].role != R_SWITCH)
			continue;
		snprintf(sel, sizeof(sel), "%s", c->lab->topo.link[f].name);
		if (vars_spec(c, k->vars, k->prefix, sel, 1, 1) < 0)
			return -EINVAL;
		for (int e = 0; e < 2; e++) { /* an end's own: its direction */
			fe_topo_dir_name(&c->lab->topo, f, e, sel, sizeof(sel));
			if (vars_spec(c, k->e[e].vars, "", sel, 0, 1) < 0)
				return -EINVAL;
		}
		f++;
	}
	return 0;
}

/* Natural order of interface names: eth2 before eth10. */
static int
if_cmp(const char *a, const char *b)
{
	size_t la = strcspn(a, "0123456789"), lb = strcspn(b, "0123456789");

	if (la != lb || strncmp(a, b, la) != 0 || a[la] == '\0' || b[lb] == '\0')
		return strcmp(a, b);
	return strtoul(a + la, NULL, 10) < strtoul(b + lb, NULL, 10)   ? -1
	       : strtoul(a + la, NULL, 10) > strtoul(b + lb, NULL, 10) ? 1
								       : strcmp(a, b);
}

/* One fabemu node: its links, in its interfaces' order, are the ports. */
static int
one_node(struct ctx *c, unsigned emu, char *err, size_t errlen)
{
	struct fe_clab *lab = c->lab;
	unsigned order[FE_TOPO_PORTS], n = 0;
	const char *topo = inherit(c, c->node[emu].map, "labels", "fabemu.topology");

	for (unsigned l = 0; l < c->nlink; l++) {
		const struct clink *k = &c->link[l];
		int e = k->e[0].node == emu ? 0 : k->e[1].node == emu ? 1 : -1;

		if (e < 0)
			return fail(c, k->at,
				    "link %s-%s does not end on the fabemu node %s: with one "
				    "fabemu node, every link joins a host to it",
				    c->node[k->e[0].node].name, c->node[k->e[1].node].name,
				    c->node[emu].name);
		if (c->node[k->e[1 - e].node].role != R_HOST)
			return fail(c, k->at, "link %s-%s: the fabemu node's links end on hosts",
				    c->node[k->e[0].node].name, c->node[k->e[1].node].name);
		if (n == FE_TOPO_PORTS)
			return fail(c, k->at, "more than %d host ports", FE_TOPO_PORTS);
		order[n++] = l;
	}
	for (unsigned i = 1; i < n; i++) /* by the fabemu node's interface: eth1 is port 0 */
		for (unsigned j = i; j > 0; j--) {
			const struct clink *a = &c->link[order[j - 1]], *b = &c->link[order[j]];
			const char *ia = a->e[a->e[0].node == emu ? 0 : 1].ifname;
			const char *ib = b->e[b->e[0].node == emu ? 0 : 1].ifname;
			unsigned t = order[j];

			if (if_cmp(ia, ib) <= 0)
				break;
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (unsigned i = 0; i < n; i++) {
		const struct clink *k = &c->link[order[i]];

		if (add_port(c, k, k->e[0].node == emu ? 1 : 0) < 0)
			return -EINVAL;
	}
	if (topo != NULL) {
		snprintf(lab->topo_ref, sizeof(lab->topo_ref), "%s", topo);
		if (fe_topo_load(topo, &lab->topo, err, errlen) < 0)
			return fail(c, c->node[emu].at, "node %s: fabemu.topology: %s",
				    c->node[emu].name, err);
	} else {
		struct fe_topo_gen g = {.kind = "single", .hosts = n};

		snprintf(lab->topo_ref, sizeof(lab->topo_ref), "single");
		if (fe_topo_generate(&g, &lab->topo, err, errlen) < 0)
			return fail(c, c->node[emu].at, "%s", err);
	}
	if (lab->topo.nports != n)
		return fail(c, c->node[emu].at,
			    "node %s: its topology %s has %u host ports; the node has %u links",
			    c->node[emu].name, lab->topo.name, lab->topo.nports, n);
	return 0;
}

int
fe_clab_parse(const char *text, size_t len, const char *source, struct fe_clab *lab, char *err,
	      size_t errlen)
{
	struct ctx *c = calloc(1, sizeof(*c));
	yaml_parser_t parser;
	const yaml_node_t *root, *topo, *k = NULL;
	unsigned nsw = 0, nemu = 0, emu = 0;
	int rc = -EINVAL;

	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(lab, 0, sizeof(*lab));
	snprintf(lab->source, sizeof(lab->source), "%s", source);
	c->src = source;
	c->err = err;
	c->errlen = errlen;
	c->lab = lab;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &c->doc)) {
		/* as topology and campaign files say it (fe_yaml.c) */
		snprintf(err, errlen, "%s:%lu: not valid YAML: %s%s%s", source,
			 (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "syntax error",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		free(c);
		return -EINVAL;
	}
	yaml_parser_delete(&parser);
	root = yaml_document_get_root_node(&c->doc);
	topo = get(c, root, "topology");
	if (root == NULL || root->type != YAML_MAPPING_NODE) {
		fail(c, root, "a containerlab topology (name:, topology:) is expected");
		goto out;
	}
	/* a name that is there but not a lab's is invalid, not missing */
	if (get_at(c, root, "name", &k) == NULL) {
		fail(c, root,
		     "name: the lab's name (1 to %zu letters, digits, '.', '_' or '-') is required",
		     sizeof(lab->name) - 1);
		goto out;
	}
	if (scal(get(c, root, "name")) == NULL ||
	    strlen(scal(get(c, root, "name"))) >= sizeof(lab->name) ||
	    !good_name(scal(get(c, root, "name")))) {
		fail(c, k, "name '%s' (allowed: 1 to %zu letters, digits, '.', '_' or '-')",
		     scal(get(c, root, "name")) ? scal(get(c, root, "name")) : "(not a string)",
		     sizeof(lab->name) - 1);
		goto out;
	}
	snprintf(lab->name, sizeof(lab->name), "%s", scal(get(c, root, "name")));
	if (topo == NULL) {
		fail(c, root, "topology: the lab's nodes and links are required");
		goto out;
	}
	c->defaults = get(c, topo, "defaults");
	c->groups = get(c, topo, "groups");
	c->kinds = get(c, topo, "kinds");
	if (read_nodes(c, get(c, topo, "nodes")) < 0 || read_links(c, get(c, topo, "links")) < 0)
		goto out;
	c->scale = 1;
	if (lab->scale[0] != '\0') {
		char e[200];

		if (fe_rule_parse(&fe_rule_scale, "", lab->scale, &c->scale, e, sizeof(e)) < 0) {
			fail(c, get(c, topo, "nodes"), "labels: fabemu.%s", e);
			goto out;
		}
	}
	for (unsigned i = 0; i < c->nnode; i++) {
		nsw += c->node[i].role == R_SWITCH;
		if (c->node[i].role == R_EMULATOR)
			emu = i, nemu++;
	}
	for (unsigned l = 0; l < c->nlink; l++)
		if (c->node[c->link[l].e[0].node].role == R_HOST &&
		    c->node[c->link[l].e[1].node].role == R_HOST) {
			fail(c, c->link[l].at,
			     "link %s-%s joins two hosts: fabemu's fabric is its switches (mark "
			     "one: labels: {fabemu.role: switch})",
			     c->node[c->link[l].e[0].node].name,
			     c->node[c->link[l].e[1].node].name);
			goto out;
		}
	if (nemu > 1 || (nemu && nsw)) {
		fail(c, c->node[emu].at,
		     "a lab has its switches drawn out or one fabemu node (fabemu.role: "
		     "emulator), not both, nor two fabemu nodes");
		goto out;
	}
	if (nemu == 0 && nsw == 0) {
		fail(c, get(c, topo, "nodes"),
		     "no switch: mark the lab's switches (labels: {fabemu.role: switch}) or give "
		     "it one fabemu node (labels: {fabemu.role: emulator})");
		goto out;
	}
	if (nemu) {
		char e[300];

		rc = one_node(c, emu, e, sizeof(e));
	} else {
		rc = drawn_out(c);
		if (rc == 0)
			rc = fabric_specs(c);
	}
	/* a host a port: the lab's campaign is written, and its hosts must be a campaign's */
	if (rc == 0 && lab->topo.nports == lab->topo.nhosts &&
	    (lab->topo.nhosts < 2 || lab->topo.nhosts > FE_CLAB_CAMPAIGN_HOSTS))
		rc = fail(c, get(c, topo, "nodes"),
			  "topology.nodes: %u host%s: the lab's campaign would have hosts '%u' "
			  "(allowed: 2 to %d)",
			  lab->topo.nhosts, lab->topo.nhosts == 1 ? "" : "s", lab->topo.nhosts,
			  FE_CLAB_CAMPAIGN_HOSTS);
out:
	yaml_document_delete(&c->doc);
	free(c);
	return rc;
}

int
fe_clab_load(const char *path, struct fe_clab *lab, char *err, size_t errlen)
{
	size_t len;
	char *text = fe_profile_read(path, &len, err, errlen);
	int rc;

	if (text == NULL)
		return -EIO;
	rc = fe_clab_parse(text, len, path, lab, err, errlen);
	free(text);
	return rc;
}

/* A list entry of a YAML file, single-quoted: a filter's backslashes and quotes as they are. */
static void
yaml_quoted(FILE *f, const char *s)
{
	fputs("      - '", f);
	for (; *s; s++)
		fputs(*s == '\'' ? "''" : (char[2]){*s, 0}, f);
	fputs("'\n", f);
}

/* The topology's YAML, from what was parsed (drawn out). */
static void
write_topo(FILE *f, const struct fe_clab *lab)
{
	const struct fe_topo *t = &lab->topo;

	fprintf(f, "# imported from %s by `fabemuctl topology import` (docs/containerlab.md)\n",
		lab->source);
	fprintf(f, "name: %s\ndescription: containerlab lab %s\nswitches:\n", t->name, lab->name);
	for (unsigned i = 0; i < t->nsw; i++)
		fprintf(f, "  - {name: %s}\n", t->sw[i].name);
	fprintf(f, "hosts:\n");
	for (unsigned i = 0; i < t->nhosts; i++) {
		fprintf(f, "  - {name: %s, rails: [", t->host[i].name);
		for (unsigned r = 0; r < t->host[i].nports; r++)
			fprintf(f, "%s%s", r ? ", " : "", t->sw[t->host[i].sw[r]].name);
		fprintf(f, "]}\n");
	}
	/* one switch: an empty list ("links:" alone would be a null, which a topology refuses) */
	fprintf(f, "links:%s\n", t->nlinks ? "" : " []");
	for (unsigned i = 0; i < t->nlinks; i++) {
		const struct fe_topo_link *l = &t->link[i];
		char r[32], d[32];

		fprintf(f, "  - {a: %s, b: %s", t->sw[l->a].name, t->sw[l->b].name);
		if (l->rate_bps)
			fprintf(f, ", rate: %s", fe_fmt_rate(l->rate_bps, r, sizeof(r)));
		if (l->delay_ns)
			fprintf(f, ", delay: %s", fe_fmt_time(l->delay_ns, d, sizeof(d)));
		fprintf(f, "}\n");
	}
}

int
fe_clab_write(const struct fe_clab *lab, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX], topo[PATH_MAX];
	FILE *f;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	if (lab->topo_ref[0] == '\0') {
		snprintf(path, sizeof(path), "%s/topology.yaml", dir);
		f = fopen(path, "w");
		if (f == NULL) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -errno;
		}
		write_topo(f, lab);
		if (fclose(f) != 0 || realpath(path, topo) == NULL) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -EIO;
		}
	} else {
		snprintf(topo, sizeof(topo), "%s", lab->topo_ref);
	}
	if (lab->topo.nports != lab->topo.nhosts)
		return 1; /* a host with several ports: a campaign runs one port a host */
	snprintf(path, sizeof(path), "%s/campaign.yaml", dir);
	f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "# The containerlab lab %s (%s), imported by `fabemuctl topology import`\n",
		lab->name, lab->source);
	fprintf(f, "# (docs/containerlab.md). Each of the lab's hosts is a host of the campaign, "
		   "in a\n# namespace of its own, at 198.18.0.N (its port N - 1):\n");
	for (unsigned p = 0; p < lab->nports; p++)
		fprintf(f, "#   port %u: %s %s\n", p, lab->node[p], lab->ifname[p]);
	fprintf(f, "# Change the job to the lab's own; `fabemuctl campaign check` this file.\n");
	fprintf(f, "name: %s\ndescription: containerlab lab %s\n", lab->name, lab->name);
	fprintf(f, "hosts: %u\n", lab->topo.nhosts);
	fprintf(f, "job:\n  kind: allreduce\n  sizes: [256KiB]\n  iterations: 6\n  warmup: 1\n");
	fprintf(f, "regimes:\n  - name: wire\n    kind: wire\n");
	fprintf(f, "  - name: %s\n    profile: %s\n", lab->name,
		lab->profile[0] ? lab->profile : "ideal");
	if (lab->scale[0])
		fprintf(f, "    scale: %s\n", lab->scale);
	fprintf(f, "    topology: %s\n", topo);
	if (lab->path[0])
		fprintf(f, "    path: %s\n", lab->path);
	if (lab->nspecs) {
		fprintf(f, "    links:\n");
		for (unsigned i = 0; i < lab->nspecs; i++)
			yaml_quoted(f, lab->spec[i]);
	}
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}
