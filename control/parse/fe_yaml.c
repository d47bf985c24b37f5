/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "fe_yaml.h"

/* ---- Where a key is: libyaml's marks, for messages ---- */

#define PATH_MAX_DEPTH 6

struct locator {
	yaml_parser_t parser;
	const char *path[PATH_MAX_DEPTH]; /* mapping keys; sequence indices as decimal */
	int depth;
	unsigned skip; /* the path's key found this many times before the one wanted */
	unsigned line;
};

static int loc_node(struct locator *L, yaml_event_t *ev, int level, int on);

static int
loc_next(struct locator *L, yaml_event_t *ev)
{
	return yaml_parser_parse(&L->parser, ev) ? 0 : -1;
}

static int
loc_mapping(struct locator *L, int level, int on)
{
	for (;;) {
		yaml_event_t k, v;
		int match;

		if (loc_next(L, &k) < 0)
			return -1;
		if (k.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&k);
			return 0;
		}
		match = on && level < L->depth && k.type == YAML_SCALAR_EVENT &&
			strcmp((const char *)k.data.scalar.value, L->path[level]) == 0;
		if (match && level == L->depth - 1 && L->line == 0 && L->skip-- == 0)
			L->line = (unsigned)k.start_mark.line + 1;
		if (loc_node(L, &k, level + 1, 0) < 0 || loc_next(L, &v) < 0 ||
		    loc_node(L, &v, level + 1, match) < 0)
			return -1;
	}
}

static int
loc_sequence(struct locator *L, int level, int on)
{
	for (long i = 0;; i++) {
		yaml_event_t e;
		int match;

		if (loc_next(L, &e) < 0)
			return -1;
		if (e.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&e);
			return 0;
		}
		match = on && level < L->depth && strtol(L->path[level], NULL, 10) == i;
		if (match && level == L->depth - 1 && L->line == 0)
			L->line = (unsigned)e.start_mark.line + 1;
		if (loc_node(L, &e, level + 1, match) < 0)
			return -1;
	}
}

/* Consume the node that starts with ev, noting the line of the path if on it. */
static int
loc_node(struct locator *L, yaml_event_t *ev, int level, int on)
{
	yaml_event_type_t t = ev->type;

	yaml_event_delete(ev);
	if (t == YAML_MAPPING_START_EVENT)
		return loc_mapping(L, level, on);
	if (t == YAML_SEQUENCE_START_EVENT)
		return loc_sequence(L, level, on);
	return 0;
}

/* Line (from 1) of the key at path in the document (skip: its skip + 1st); 0 if not found. */
static unsigned
line_of(const char *text, size_t len, const char *const *path, int depth, unsigned skip)
{
	struct locator L = {.depth = depth, .skip = skip};
	yaml_event_t ev;
	int done = 0;

	for (int i = 0; i < depth && i < PATH_MAX_DEPTH; i++)
		L.path[i] = path[i];
	if (!yaml_parser_initialize(&L.parser))
		return 0;
	yaml_parser_set_input_string(&L.parser, (const unsigned char *)text, len);
	while (!done && loc_next(&L, &ev) == 0) {
		yaml_event_type_t t = ev.type;

		if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
			done = 1;
			loc_node(&L, &ev, 0, 1);
		} else {
			done = t == YAML_STREAM_END_EVENT;
			yaml_event_delete(&ev);
		}
	}
	yaml_parser_delete(&L.parser);
	return L.line;
}

/* ---- Messages ---- */

/* "SOURCE:LINE: what" for the key at path (a.b or a.2.b), its skip + 1st if there are
 * that many (a key given twice: the second). */
static int fail_at(struct fe_yaml *c, const char *path, unsigned skip, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* line_of() the key at path, "a.b" or "a.2.b" */
static unsigned
path_line(const struct fe_yaml *c, const char *path, unsigned skip)
{
	char buf[128], *parts[PATH_MAX_DEPTH], *save = NULL;
	int depth = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *t = strtok_r(buf, ".", &save); t && depth < PATH_MAX_DEPTH;
	     t = strtok_r(NULL, ".", &save))
		parts[depth++] = t;
	return line_of(c->text, c->len, (const char *const *)parts, depth, skip);
}

static int
vfail_at(struct fe_yaml *c, const char *path, unsigned skip, const char *fmt, va_list ap)
{
	char msg[512];
	unsigned line = path_line(c, path, skip);

	if (line == 0 && skip)
		line = path_line(c, path, 0);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (line)
		snprintf(c->err, c->errlen, "%s:%u: %s", c->source, line, msg);
	else
		snprintf(c->err, c->errlen, "%s: %s", c->source, msg);
	return -EINVAL;
}

static int
fail_at(struct fe_yaml *c, const char *path, unsigned skip, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail_at(c, path, skip, fmt, ap);
	va_end(ap);
	return rc;
}

int
fe_yaml_fail(struct fe_yaml *c, const char *path, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail_at(c, path, 0, fmt, ap);
	va_end(ap);
	return rc;
}

static void
cyaml_to_ctx(cyaml_log_t level, void *arg, const char *fmt, va_list ap)
{
	struct fe_yaml *c = arg;

	if (level < CYAML_LOG_ERROR || c->loglen >= sizeof(c->log) - 1)
		return;
	c->loglen += (size_t)vsnprintf(c->log + c->loglen, sizeof(c->log) - c->loglen, fmt, ap);
	if (c->loglen > sizeof(c->log) - 1)
		c->loglen = sizeof(c->log) - 1;
}

/*
 * Turn libcyaml's log (a message, then "in mapping field 'x' (line ...)" lines from
 * the innermost out) into one message with our line numbers and the known keys.
 */
/* A libyaml syntax error: its own line and message (libcyaml's marks are after it). */
static int
syntax_error(struct fe_yaml *c)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int rc;

	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)c->text, c->len);
	while ((rc = yaml_parser_parse(&p, &ev)) != 0) {
		yaml_event_type_t t = ev.type;

		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT)
			break;
	}
	if (rc == 0)
		snprintf(c->err, c->errlen, "%s:%zu: not valid YAML: %s%s%s", c->source,
			 p.problem_mark.line + 1, p.problem ? p.problem : "syntax error",
			 p.context ? " " : "", p.context ? p.context : "");
	else
		snprintf(c->err, c->errlen, "%s: not valid YAML", c->source);
	yaml_parser_delete(&p);
	return -EINVAL;
}

/*
 * The mapping that fields[] (as libcyaml's log names them: mapping keys and sequence
 * entries' numbers, the innermost first) lead to in schema v; NULL if none.
 */
static const cyaml_schema_value_t *
schema_at(const cyaml_schema_value_t *v, char (*fields)[64], int n)
{
	for (int i = n - 1; v != NULL && i >= 0; i--) {
		const cyaml_schema_field_t *f;

		if (v->type == CYAML_SEQUENCE || v->type == CYAML_SEQUENCE_FIXED) {
			v = v->sequence.entry; /* fields[i] is the entry's number */
			continue;
		}
		if (v->type != CYAML_MAPPING)
			return NULL;
		for (f = v->mapping.fields; f->key && strcmp(f->key, fields[i]) != 0; f++)
			;
		v = f->key ? &f->value : NULL;
	}
	return v && v->type == CYAML_MAPPING ? v : NULL;
}

/* The keys mapping m takes, in the schema's order, ", "-joined into out. */
static const char *
schema_keys(const cyaml_schema_value_t *m, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	for (const cyaml_schema_field_t *f = m->mapping.fields; f->key && o < len; f++)
		o += (size_t)snprintf(out + o, len - o, "%s%s", o ? ", " : "", f->key);
	return out;
}

/*
 * Turn libcyaml's log (a message, then "in mapping field 'x' (line ...)" lines from
 * the innermost out) into one message with our line numbers and the known keys: the
 * caller's list for that mapping if it has one, else the schema's own.
 */
static int
schema_error(struct fe_yaml *c, const cyaml_schema_value_t *schema, cyaml_err_t e)
{
	char path[128] = "", ctxname[64] = "", what[256], *p, *nl;
	char fields[PATH_MAX_DEPTH][64], keys[1024];
	const cyaml_schema_value_t *m;
	const char *known = NULL;
	int n = 0;

	if (e == CYAML_ERR_LIBYAML_PARSER || strstr(c->log, "libyaml"))
		return syntax_error(c);
	snprintf(what, sizeof(what), "%.255s", c->log);
	if ((nl = strchr(what, '\n')) != NULL)
		*nl = '\0';
	p = strstr(what, "Load: ");
	p = p ? p + 6 : what;
	if (p[0] == '\0' || strncmp(p, "Backtrace", 9) == 0) /* no message of its own */
		p = (char *)"";
	for (const char *s = strstr(c->log, "\n  in "); s && n < PATH_MAX_DEPTH;
	     s = strstr(s + 1, "\n  in ")) {
		const char *q = strchr(s + 1, '\''), *q2 = q ? strchr(q + 1, '\'') : NULL;
		const char *eol = strchr(s + 1, '\n');

		if (q == NULL || q2 == NULL || (eol && eol < q))
			continue;
		if (strncmp(s, "\n  in sequence entry", 20) == 0) /* 1-based in the log */
			snprintf(fields[n++], sizeof(fields[0]), "%ld",
				 strtol(q + 1, NULL, 10) - 1);
		else
			snprintf(fields[n++], sizeof(fields[0]), "%.*s", (int)(q2 - q - 1), q + 1);
	}
	for (int i = n - 1; i >= 0; i--) /* outermost first */
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s",
			 i == n - 1 ? "" : ".", fields[i]);
	if (strncmp(p, "Unexpected key: ", 16) == 0) {
		const char *key = p + 16;

		/* the mapping the key is in: the innermost named field, or the top level */
		for (int i = 0; i < n && !ctxname[0]; i++)
			if (fields[i][0] < '0' || fields[i][0] > '9')
				snprintf(ctxname, sizeof(ctxname), "%.63s", fields[i]);
		for (const struct fe_yaml_known *k = c->known; k && k->in; k++)
			if (strcmp(k->in, ctxname) == 0)
				known = k->known;
		if (known == NULL && n < PATH_MAX_DEPTH && /* the whole path: not cut */
		    (m = schema_at(schema, fields, n)) != NULL)
			known = schema_keys(m, keys, sizeof(keys));
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s", n ? "." : "",
			 key);
		return fe_yaml_fail(c, path, "unknown key '%s'%s%s (known: %s)", key,
				    ctxname[0] ? " in " : "", ctxname, known ? known : "?");
	}
	if (e == CYAML_ERR_ALIAS || e == CYAML_ERR_INVALID_ALIAS)
		return fe_yaml_fail(
			c, path, "%s: YAML aliases (*name) are not taken: write the value itself",
			n ? path : "the document");
	if (strncmp(p, "Mapping field already seen: ", 28) == 0)
		return fail_at(c, path, 1, "key '%s' given twice", p + 28);
	if (strstr(p, "Expecting MAPPING"))
		return fe_yaml_fail(c, path, "%s: expected a mapping (key: value lines) here",
				    n ? path : "the document");
	if (strstr(p, "Expecting SEQUENCE"))
		return fe_yaml_fail(c, path,
				    "%s: expected a list here ([a, b], or a '- ' line an "
				    "entry)",
				    n ? path : "the document");
	if (strstr(p, "Expecting"))
		return fe_yaml_fail(c, path,
				    "%s: expected a single value here, not a list or mapping",
				    n ? path : "the document");
	if (n)
		return fe_yaml_fail(c, path, "%s: %s", path, p[0] ? p : cyaml_strerror(e));
	snprintf(c->err, c->errlen, "%s: %s", c->source, p[0] ? p : cyaml_strerror(e));
	return -EINVAL;
}

int
fe_yaml_rule(struct fe_yaml *y, const char *path, const struct fe_rule *r, const char *v,
	     uint64_t *out)
{
	struct fe_rule named = *r;
	char e[300];

	named.name = path;
	if (fe_rule_parse(&named, "", v, out, e, sizeof(e)) < 0)
		return fe_yaml_fail(y, path, "%s", e);
	return 0;
}

unsigned
fe_yaml_line(const struct fe_yaml *c, const char *path)
{
	return path_line(c, path, 0);
}

/* The line of a second document ("---" after the first), or 0: a file holds one. */
static unsigned
second_document(const struct fe_yaml *c)
{
	yaml_parser_t p;
	yaml_event_t ev;
	unsigned docs = 0, line = 0;

	if (!yaml_parser_initialize(&p))
		return 0;
	yaml_parser_set_input_string(&p, (const unsigned char *)c->text, c->len);
	while (line == 0 && yaml_parser_parse(&p, &ev)) {
		yaml_event_type_t t = ev.type;

		if (t == YAML_DOCUMENT_START_EVENT && ++docs == 2)
			line = (unsigned)ev.start_mark.line + 1;
		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&p); /* a syntax error is cyaml's to report */
	return line;
}

int
fe_yaml_load(struct fe_yaml *c, const cyaml_schema_value_t *schema, size_t max, void **out)
{
	cyaml_config_t cfg = {
		.log_fn = cyaml_to_ctx,
		.log_ctx = c,
		.mem_fn = cyaml_mem,
		.log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_NO_ALIAS,
	};
	cyaml_err_t e;
	unsigned line;

	*out = NULL;
	if (c->len > max) {
		snprintf(c->err, c->errlen, "%s: larger than %zu bytes", c->source, max);
		return -E2BIG;
	}
	if (memchr(c->text, '\0', c->len) != NULL) {
		snprintf(c->err, c->errlen, "%s: not a text file (NUL byte)", c->source);
		return -EINVAL;
	}
	if ((line = second_document(c)) != 0) {
		snprintf(c->err, c->errlen,
			 "%s:%u: a second YAML document: a file holds one (remove the '---' "
			 "and what follows, or use two files)",
			 c->source, line);
		return -EINVAL;
	}
	e = cyaml_load_data((const uint8_t *)c->text, c->len, &cfg, schema, out, NULL);
	if (e != CYAML_OK)
		return schema_error(c, schema, e);
	if (*out == NULL) {
		snprintf(c->err, c->errlen, "%s: empty document", c->source);
		return -EINVAL;
	}
	return 0;
}

void
fe_yaml_free(const cyaml_schema_value_t *schema, void *data)
{
	cyaml_config_t cfg = {.mem_fn = cyaml_mem, .log_level = CYAML_LOG_ERROR};

	if (data)
		cyaml_free(&cfg, schema, data, 0);
}
