/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a campaign's file is (docs/campaigns.md): a file that exists is taken as given (in
 * the current directory, with or without .yaml); else NAME is a shipped campaign,
 * testbeds/campaigns/NAME.yaml. And the shipped campaigns' names.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cg.h"

#ifndef FE_SOURCE_DIR
#define FE_SOURCE_DIR "."
#endif

const char *
cg_root(void)
{
	const char *root = getenv("FABEMU_ROOT");

	return root ? root : FE_SOURCE_DIR;
}

const char *
cg_shipped_dir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/testbeds/campaigns", cg_root());
	return buf;
}

static int
yaml_file(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return e->d_name[0] != '.' && n > 5 && strcmp(e->d_name + n - 5, ".yaml") == 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

int
cg_shipped(char (*names)[CG_NAME_LEN], unsigned max)
{
	struct dirent **ents;
	char dir[PATH_MAX];
	unsigned k = 0;
	int n = scandir(cg_shipped_dir(dir, sizeof(dir)), &ents, yaml_file, NULL);

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name) - 5;

		if (k < max && l < CG_NAME_LEN) {
			memcpy(names[k], ents[i]->d_name, l);
			names[k++][l] = '\0';
		}
		free(ents[i]);
	}
	free(ents);
	qsort(names, k, sizeof(names[0]), name_cmp); /* congestion-tree before -split */
	return (int)k;
}

/* The shipped names, ", " between them, into buf ("none" if there are none). */
static void
shipped_list(char *buf, size_t len)
{
	char names[64][CG_NAME_LEN];
	int n = cg_shipped(names, 64);
	size_t off = 0;

	snprintf(buf, len, "none");
	for (int i = 0; i < n; i++)
		cg_addf(buf, len, &off, "%s%s", i ? ", " : "", names[i]);
}

int
cg_find(const char *name, char *path, size_t len, char *err, size_t errlen)
{
	char dir[PATH_MAX], base[CG_NAME_LEN], list[1024];
	struct stat st;
	int here = stat(name, &st) == 0;
	size_t n = strlen(name), b;

	/* a file that exists, or a path (its error is the file's) */
	if ((here && !S_ISDIR(st.st_mode)) || strchr(name, '/') || n == 0) {
		snprintf(path, len, "%s", name);
		return 0;
	}
	b = n > 5 && strcmp(name + n - 5, ".yaml") == 0 ? n - 5 : n;
	if (b >= sizeof(base)) { /* never cut: it would name another campaign */
		if (here) {
			snprintf(path, len, "%s", name);
			return 0;
		}
		snprintf(err, errlen,
			 "campaign '%s' not found: no file %s in the current directory, and a "
			 "shipped campaign's name is at most %zu characters (without .yaml); this "
			 "one has %zu",
			 name, name, sizeof(base) - 1, b);
		return -ENAMETOOLONG;
	}
	snprintf(base, sizeof(base), "%.*s", (int)b, name);
	snprintf(path, len, "%s/%s.yaml", cg_shipped_dir(dir, sizeof(dir)), base);
	if (stat(path, &st) == 0)
		return 0;
	if (here) { /* a directory: its error is the file's */
		snprintf(path, len, "%s", name);
		return 0;
	}
	shipped_list(list, sizeof(list));
	snprintf(err, errlen,
		 "campaign '%s' not found: no file %s in the current directory, no shipped "
		 "campaign %s (shipped: %s)",
		 name, name, path, list);
	return -ENOENT;
}
