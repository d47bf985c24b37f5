/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabemuctl's help texts: a group of commands (profile, topology, campaign) is one table of
 * its commands' operands and what each does, printed both as fabemuctl G --help and as G's
 * part of fabemuctl --help, so that the two never say different things.
 */
#ifndef FE_HELP_H
#define FE_HELP_H

#include <stdio.h>

struct fe_help_cmd {
	const char *name;     /* "show" */
	const char *operands; /* " T [--dot | --svg FILE | --routes]": what follows the name */
	const char *help;     /* lines of at most 50 characters (fabemuctl --help: column 30) */
};

/* The lines of text from column col, the first one after what is printed up to column at
 * (on a line of its own if that reaches col). */
void fe_help_lines(FILE *f, const char *text, int col, int at);
/* fabemuctl G --help: "Usage: fabemuctl G CMD OPERANDS" a command, then what each does. */
void fe_help_usage(FILE *f, const char *group, const struct fe_help_cmd *cmd, unsigned n);
/* After a bad option or operand of G CMD: its usage line and where the rest is. */
void fe_help_hint(FILE *f, const char *group, const struct fe_help_cmd *cmd);
/* G's part of fabemuctl --help: "  G CMD OPERANDS", what it does from column 30. */
void fe_help_section(FILE *f, const char *group, const struct fe_help_cmd *cmd, unsigned n);

#endif
