/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabric profiles: YAML files in profiles/ (docs/profiles.md has every key).
 *
 *   struct fe_profile p;
 *   if (fe_profile_load("ib-ndr", &p, err, sizeof(err)) < 0)     // a name or a path
 *           fail(err);                                          // "FILE:LINE: key: ..."
 *   fe_profile_expand(&p, scale, nports, up, down, &fabric, err, sizeof(err));
 *
 * libcyaml reads the document against a schema into strings; one small function a
 * key then parses and range-checks each value with the units of fe_units.h. Errors
 * name the file, the line (found with libyaml), the key, the bad value and the range.
 * Loading never touches a running dataplane: expand gives the values to hand over.
 */
#ifndef FE_PROFILE_H
#define FE_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fe_fabric.h"
#include "fe_linkdef.h"
#include "fe_path.h"

#define FE_PROFILE_MAX_BYTES (48U << 10) /* fits one control message */
#define FE_PROFILE_OVERRIDES 64
#define FE_PROFILE_SPEC_LEN  512
#define FE_PROFILE_SCALE_MAX 100000
/* PRNG seeds: 0 to 2^63 - 1, so that every document (JSON integers) carries them exactly. */
#define FE_SEED_MAX ((uint64_t)INT64_MAX)

struct fe_profile_override {
	char select[32];		/* all, up, down, N, N.up, N.down */
	char spec[FE_PROFILE_SPEC_LEN]; /* "key=value,..." already validated; match is last */
	unsigned line;
};

struct fe_profile {
	char name[64];
	char description[256];
	char source[256]; /* where it was read from, for messages */
	uint32_t scale;	  /* the profile's own dilation (1: none); apply may override */
	int seed_set;
	int path_set; /* path: given (several switches: fabemu-dp --path overrides it) */
	enum fe_path path;
	uint64_t seed;
	int buffer_set; /* link.buffer or link.buffer-pkts given (no lossless default) */
	struct fe_fabric fabric;
	struct fe_linkdef link; /* every link, before the overrides */
	unsigned noverrides;
	struct fe_profile_override over[FE_PROFILE_OVERRIDES];
};

/* Parse a profile held in memory; source names it in errors. 0 or -EINVAL. */
int fe_profile_parse(const char *text, size_t len, const char *source, struct fe_profile *p,
		     char *err, size_t errlen);

/* Resolve NAME (profiles/NAME.yaml in the search path) or a path, into path. */
int fe_profile_find(const char *name_or_path, char *path, size_t pathlen, char *err, size_t errlen);

/* The same for any kind of YAML file (what: "topology"): a NAME (letters, digits, '-',
 * '_') is NAME.yaml in $env, ./sub, dir or /usr/share/fabemu/sub; anything else a path. */
int fe_yaml_find(const char *what, const char *env, const char *sub, const char *dir,
		 const char *name, char *path, size_t len, char *err, size_t errlen);

/* Read a whole profile file (at most FE_PROFILE_MAX_BYTES) into a malloc'd string. */
char *fe_profile_read(const char *path, size_t *len, char *err, size_t errlen);

/* fe_profile_find + fe_profile_read + fe_profile_parse. */
int fe_profile_load(const char *name_or_path, struct fe_profile *p, char *err, size_t errlen);

/*
 * The values for a fabric of nports ports at dilation scale (0: the profile's own):
 * rates divided by scale, times multiplied by it, sizes unchanged (docs/profiles.md).
 */
/* Run link d N times slower (scale): a rate N times lower, a delay and jitter N times
 * longer, in range or refused ("NAME: rate ... at scale N is below 1kbit"). 0, or -ERANGE. */
int fe_profile_dilate(struct fe_linkdef *d, uint32_t scale, const char *name, char *err,
		      size_t errlen);

int fe_profile_expand(const struct fe_profile *p, uint32_t scale, unsigned nports,
		      struct fe_linkdef *up, struct fe_linkdef *down, struct fe_fabric *fab,
		      char *err, size_t errlen);

/* One line for a link, as `profile show` and `fabemuctl links` print it. */
/* The class of the links between switches (docs/topologies.md): link:, then the links:
 * entries that pick all or fabric, at scale (0: the profile's). */
int fe_profile_fabric(const struct fe_profile *p, uint32_t scale, struct fe_linkdef *def, char *err,
		      size_t errlen);

char *fe_profile_fmt_link(const struct fe_linkdef *d, char *buf, size_t len);

/* The fabric-wide values, one key a line ("regime credit"), as show and status print. */
void fe_profile_print_fabric(FILE *f, const struct fe_fabric *fab);

#endif
