/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loading YAML documents (profiles, campaigns) against a libcyaml schema, with messages
 * that name the file and the line: libcyaml's own errors (unknown key, wrong type,
 * syntax) are turned into "FILE:LINE: ..." with the keys the mapping knows, and the
 * parsers' own checks find the line of a key with fe_yaml_line() (libyaml's marks).
 *
 *   struct fe_yaml y = {.text = t, .len = n, .source = "x.yaml", .err = e, .errlen = l,
 *                       .known = known_keys};
 *   if (fe_yaml_load(&y, &schema, max, (void **)&doc) < 0) return -EINVAL;   // e is set
 *   if (bad) return fe_yaml_fail(&y, "links.2.rate", "rate '%s' ...", v);
 *   fe_yaml_free(&schema, doc);
 */
#ifndef FE_YAML_H
#define FE_YAML_H

#include <stddef.h>

#include <cyaml/cyaml.h>

#include "fe_rules.h"

/*
 * The keys a mapping knows, by the name of the field that holds it ("" at the top), for
 * parsers that list them in an order of their own. Without a list (known NULL, or no
 * entry for that mapping) a message lists the schema's keys, in the schema's order.
 */
struct fe_yaml_known {
	const char *in, *known;
};

struct fe_yaml {
	const char *text;
	size_t len;
	const char *source; /* file name for messages */
	char *err;
	size_t errlen;
	const struct fe_yaml_known *known; /* NULL-terminated, or NULL: the schema's keys */
	char log[1024];			   /* what libcyaml said */
	size_t loglen;
};

/* Load the document (at most max bytes); 0, or -errno with the message in y->err. */
int fe_yaml_load(struct fe_yaml *y, const cyaml_schema_value_t *schema, size_t max, void **out);

void fe_yaml_free(const cyaml_schema_value_t *schema, void *data);

/* Line (from 1) of the key at path ("a.b", sequence entries as "a.2.b"), 0 if absent. */
unsigned fe_yaml_line(const struct fe_yaml *y, const char *path);

/* "SOURCE:LINE: message" into y->err for the key at path; returns -EINVAL. */
int fe_yaml_fail(struct fe_yaml *y, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The value v of the key at path by rule r (fe_rules.h), named by its path in messages:
 * "SOURCE:LINE: regimes.0.scale '0' (allowed: 1 to 100000)". 0, or -EINVAL. */
int fe_yaml_rule(struct fe_yaml *y, const char *path, const struct fe_rule *r, const char *v,
		 uint64_t *out);

#endif
