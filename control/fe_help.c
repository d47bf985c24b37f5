/* SPDX-License-Identifier: BSD-3-Clause */
/* fabemuctl's help texts, printed from one table a group of commands (fe_help.h). */
#include <string.h>

#include "fe_help.h"

void
fe_help_lines(FILE *f, const char *text, int col, int at)
{
	if (at > 0 && at >= col) {
		fputc('\n', f);
		at = 0;
	}
	for (const char *p = text;; p++) {
		size_t k = strcspn(p, "\n");

		fprintf(f, "%*s%.*s\n", col - at, "", (int)k, p);
		p += k;
		if (*p == '\0')
			break;
		at = 0;
	}
}

void
fe_help_usage(FILE *f, const char *group, const struct fe_help_cmd *cmd, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s fabemuctl %s %s%s\n", i ? "      " : "Usage:", group, cmd[i].name,
			cmd[i].operands);
	int col = 9; /* the help's column: past the longest name, two spaces after it */

	for (unsigned i = 0; i < n; i++)
		if ((int)strlen(cmd[i].name) + 4 > col)
			col = (int)strlen(cmd[i].name) + 4;
	for (unsigned i = 0; i < n; i++)
		fe_help_lines(f, cmd[i].help, col, fprintf(f, "  %s", cmd[i].name));
}

void
fe_help_hint(FILE *f, const char *group, const struct fe_help_cmd *cmd)
{
	fprintf(f, "Usage: fabemuctl %s %s%s (see fabemuctl %s --help)\n", group, cmd->name,
		cmd->operands, group);
}

void
fe_help_section(FILE *f, const char *group, const struct fe_help_cmd *cmd, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		fe_help_lines(f, cmd[i].help, 30,
			      fprintf(f, "  %s %s%s", group, cmd[i].name, cmd[i].operands));
}
