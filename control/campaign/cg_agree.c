/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Do two runs of a campaign agree (fabemuctl campaign agree A B)? From each one's
 * campaign.json summary (cg_summary_json()): every row both have (a regime at a size)
 * agrees when the two p50s' 95 % intervals overlap, and every comparison word both print
 * (a row against the wire, against the ideal fabric, each of the campaign's questions)
 * holds when it is the same word. What a user checks before believing a decision: the
 * box drifts between runs (docs/campaigns.md, "Decisions").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"

static double
num(json_t *o, size_t i)
{
	json_t *v = json_array_get(o, i);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The row of b for regime and size, or NULL. */
static json_t *
row_of(json_t *rows, const char *regime, const char *size)
{
	json_t *r;
	size_t i;

	json_array_foreach(rows, i, r)
	{
		if (strcmp(json_string_value(json_object_get(r, "regime")) ?: "", regime) == 0 &&
		    strcmp(json_string_value(json_object_get(r, "size")) ?: "", size) == 0)
			return r;
	}
	return NULL;
}

/* One comparison word of both runs (their {ratio, ci, word}, or null): counted, said. */
static void
word(FILE *f, const char *what, json_t *a, json_t *b, struct cg_agreement *g)
{
	const char *wa = json_string_value(json_object_get(a, "word"));
	const char *wb = json_string_value(json_object_get(b, "word"));

	if (wa == NULL || wb == NULL)
		return;
	g->words++;
	if (strcmp(wa, wb) == 0) {
		g->words_held++;
		return;
	}
	fprintf(f, "  changed: %s: %s (%.2f [%.2f, %.2f]), then %s (%.2f [%.2f, %.2f])\n", what, wa,
		json_number_value(json_object_get(a, "ratio")), num(json_object_get(a, "ci"), 0),
		num(json_object_get(a, "ci"), 1), wb,
		json_number_value(json_object_get(b, "ratio")), num(json_object_get(b, "ci"), 0),
		num(json_object_get(b, "ci"), 1));
}

void
cg_agree(FILE *f, json_t *a, json_t *b, struct cg_agreement *g)
{
	json_t *ra = json_object_get(json_object_get(a, "summary"), "rows");
	json_t *rb = json_object_get(json_object_get(b, "summary"), "rows");
	json_t *qa = json_object_get(json_object_get(a, "summary"), "questions");
	json_t *qb = json_object_get(json_object_get(b, "summary"), "questions");
	json_t *x, *y;
	size_t i, j;

	memset(g, 0, sizeof(*g));
	fprintf(f, "%-24s %8s %-28s %-28s %s\n", "regime", "size", "p50 ms [95% CI], first", "then",
		"agree");
	json_array_foreach(ra, i, x)
	{
		const char *reg = json_string_value(json_object_get(x, "regime")) ?: "?";
		const char *size = json_string_value(json_object_get(x, "size")) ?: "?";
		json_t *ca = json_object_get(x, "p50_ci_ms"), *cb;
		char sa[64], sb[64], what[160];
		int ok;

		y = row_of(rb, reg, size);
		cb = json_object_get(y, "p50_ci_ms");
		if (y == NULL || !json_is_array(ca) || !json_is_array(cb) || isnan(num(ca, 0)) ||
		    isnan(num(cb, 0))) {
			g->rows_unmatched++;
			continue;
		}
		g->rows++;
		/* the intervals overlap: neither lies wholly above the other */
		ok = num(ca, 0) <= num(cb, 1) && num(cb, 0) <= num(ca, 1);
		g->rows_agree += ok;
		snprintf(sa, sizeof(sa), "%.3f [%.3f, %.3f]",
			 json_number_value(json_object_get(x, "p50_ms")), num(ca, 0), num(ca, 1));
		snprintf(sb, sizeof(sb), "%.3f [%.3f, %.3f]",
			 json_number_value(json_object_get(y, "p50_ms")), num(cb, 0), num(cb, 1));
		fprintf(f, "%-24s %8s %-28s %-28s %s\n", reg, size, sa, sb,
			ok ? "yes" : "no: the intervals do not overlap");
		snprintf(what, sizeof(what), "%s %s against the wire", reg, size);
		word(f, what, json_object_get(x, "vs_wire"), json_object_get(y, "vs_wire"), g);
		snprintf(what, sizeof(what), "%s %s against the ideal fabric", reg, size);
		word(f, what, json_object_get(x, "vs_ideal"), json_object_get(y, "vs_ideal"), g);
	}
	/* rows of b that a has not */
	json_array_foreach(rb, i, y)
	{
		if (row_of(ra, json_string_value(json_object_get(y, "regime")) ?: "",
			   json_string_value(json_object_get(y, "size")) ?: "") == NULL)
			g->rows_unmatched++;
	}
	json_array_foreach(qa, i, x)
	{
		const char *reg = json_string_value(json_object_get(x, "regime")) ?: "?";
		const char *vs = json_string_value(json_object_get(x, "against")) ?: "?";
		const char *size = json_string_value(json_object_get(x, "size")) ?: "?";

		json_array_foreach(qb, j, y)
		{
			char what[160];

			if (strcmp(json_string_value(json_object_get(y, "regime")) ?: "", reg) ||
			    strcmp(json_string_value(json_object_get(y, "against")) ?: "", vs) ||
			    strcmp(json_string_value(json_object_get(y, "size")) ?: "", size))
				continue;
			snprintf(what, sizeof(what), "question %s against %s, %s", reg, vs, size);
			word(f, what, json_object_get(x, "comparison"),
			     json_object_get(y, "comparison"), g);
		}
	}
	fprintf(f,
		"rows whose p50 intervals overlap: %u of %u; comparison words that held: %u of "
		"%u",
		g->rows_agree, g->rows, g->words_held, g->words);
	if (g->rows_unmatched)
		fprintf(f, " (%u rows not in both runs, or without an interval)",
			g->rows_unmatched);
	fprintf(f, "\n");
}
