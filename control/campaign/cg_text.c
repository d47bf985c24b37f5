/* SPDX-License-Identifier: BSD-3-Clause */
/* The terminal's summary: the testbed and its capacity, the job, the network, verdicts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"

/* "%W.Pf" of v, or "-" when there is no such figure (NAN). */
static const char *
fig(char *buf, size_t len, int width, int prec, double v)
{
	if (isnan(v))
		snprintf(buf, len, "%*s", width, "-");
	else
		snprintf(buf, len, "%*.*f", width, prec, v);
	return buf;
}

static void
testbed_line(FILE *f, const struct cg_campaign *c, json_t *capacity)
{
	double ideal = json_number_value(json_object_get(capacity, "ideal_bps"));
	double wire = json_number_value(json_object_get(capacity, "wire_bps"));

	fprintf(f, "testbed: %u hosts, %s (%u-frame rings), MTU %u", c->hosts, c->edge.pmd,
		c->edge.ring, c->edge.mtu);
	if (ideal > 0 || wire > 0) {
		fprintf(f, "; it carries");
		if (ideal > 0)
			fprintf(f, " %.2f Gbit/s through the ideal dataplane", ideal / 1e9);
		if (wire > 0)
			fprintf(f, "%s %.2f Gbit/s over the wire", ideal > 0 ? "," : "",
				wire / 1e9);
		fprintf(f, " (every host to the next, iperf3)");
	} else if (json_is_string(json_object_get(capacity, "note"))) {
		fprintf(f, "; capacity: %s", json_string_value(json_object_get(capacity, "note")));
	}
	fputc('\n', f);
}

static void
job_table(FILE *f, const struct cg_campaign *c, const struct cg_row *rows, size_t n)
{
	char a[8][32], label[128];

	fprintf(f, "\n%-28s %7s %10s %10s %10s %9s %9s %9s %9s %6s\n",
		c->allreduce ? "all-reduce, slowest rank" : "job", c->allreduce ? "size" : "",
		c->allreduce ? "p50 ms" : "-", c->allreduce ? "p99 ms" : "-",
		c->allreduce ? "max ms" : "job s", "p50/wire", "p99/wire", "p50/ideal", "p99/ideal",
		"stalls");
	for (size_t i = 0; i < n; i++) {
		const struct cg_row *w = &rows[i];

		snprintf(label, sizeof(label), "%s%s%s", w->regime,
			 w->baseline ? " (baseline)" : "", w->partial[0] ? " (partial)" : "");
		/* a regime that did not run has no figures: "-", not 0 */
		fprintf(f, "%-28s %7s %s %s %s %s %s %s %s %s\n", label,
			c->allreduce ? w->size : "", fig(a[0], 32, 10, 3, w->p50),
			fig(a[1], 32, 10, 3, w->p99),
			fig(a[2], 32, 10, 3, c->allreduce ? w->max : w->job_s),
			fig(a[3], 32, 9, 2, w->p50 / w->wire_p50),
			fig(a[4], 32, 9, 2, w->p99 / w->wire_p99),
			fig(a[5], 32, 9, 2, w->p50 / w->ideal_p50),
			fig(a[6], 32, 9, 2, w->p99 / w->ideal_p99),
			fig(a[7], 32, 6, 0, w->runs ? (double)w->stalls : NAN));
	}
}

static void
network_table(FILE *f, const struct cg_row *rows, size_t n)
{
	char a[9][32];

	fprintf(f, "\n%-20s %7s %8s %7s %7s %6s %6s %9s %8s %7s %5s %6s %6s %6s %8s %8s\n",
		"network, per run", "hop us", "ping us", "offered", "drops", "marks", "pauses",
		"paused ms", "stall ms", "retrans", "RTOs", "probes", "lost", "unexpl", "late p99",
		"wait p99");
	for (size_t i = 0; i < n; i++) {
		const struct cg_row *w = &rows[i];

		if (!w->first)
			continue;
		if (w->runs == 0) {
			fprintf(f, "%-20s %7.1f %8s (not run)\n", w->regime, w->hop_us, "-");
			continue;
		}
		/* the wire has no fabric: no fabric drops, marks, pauses, nothing unexplained */
		fprintf(f, "%-20s %7.1f %8.1f %s %s %s %s %s %s %7lld %5lld %6lld %6lld %s %s %s\n",
			w->regime, w->hop_us, w->rtt_us, fig(a[0], 32, 7, 2, w->offered_gbps),
			fig(a[1], 32, 7, 0, cg_fab(w, (double)w->drops)),
			fig(a[2], 32, 6, 0, cg_fab(w, (double)w->marks)),
			fig(a[3], 32, 6, 0, cg_fab(w, (double)w->pauses)),
			fig(a[4], 32, 9, 1, cg_fab(w, w->paused_ms)),
			fig(a[5], 32, 8, 1, cg_fab(w, w->stall_ms)), w->real_retrans, w->timeouts,
			w->probes, w->edge_lost,
			fig(a[6], 32, 6, 0, cg_fab(w, (double)w->unexplained)),
			fig(a[7], 32, 8, 1, w->late_worst_p99_us),
			fig(a[8], 32, 8, 1, w->wait_p99_us));
	}
}

/* The emulated NICs, when a regime has one (docs/nic.md). */
static void
nic_table(FILE *f, const struct cg_row *rows, size_t n)
{
	char a[32];

	if (!cg_rows_nic(rows, n))
		return;
	fprintf(f, "\n%-20s %5s %8s %7s %12s %7s %6s %8s %9s\n", "NICs, per run", "nic", "CE eaten",
		"CNPs", "min Mbit/s", "resent", "NAKs", "NIC RTOs", "discarded");
	for (size_t i = 0; i < n; i++) {
		const struct cg_row *w = &rows[i];

		if (!w->first || w->runs == 0)
			continue;
		fprintf(f, "%-20s %5s %8lld %7lld %s %7lld %6lld %8lld %9lld\n", w->regime,
			w->nic_model, w->nic_ce, w->nic_cnp,
			fig(a, 32, 12, 3, w->nic_rate_min_bps / 1e6), w->nic_resent, w->nic_naks,
			w->nic_timeouts, w->nic_discards);
	}
	fprintf(f, "CE eaten: marks the receiving NICs cleared (the hosts never saw them); min: "
		   "the lowest rate DCQCN\nset (- none); resent, NAKs, NIC RTOs, discarded: the "
		   "NICs' loss recovery. docs/nic.md.\n");
}

void
cg_print_summary(FILE *f, const struct cg_campaign *c, json_t *capacity, const struct cg_row *rows,
		 size_t n)
{
	char note[512];

	testbed_line(f, c, capacity);
	job_table(f, c, rows, n);
	network_table(f, rows, n);
	nic_table(f, rows, n);
	fprintf(f,
		"\nverdicts (lateness and edge wait at most %.0f%% of a hop, offered load at most "
		"%.0f%% of the capacity):\n",
		c->fid.late * 100, c->fid.load * 100);
	for (size_t i = 0; i < n; i++)
		if (rows[i].first)
			fprintf(f, "  %-20s %s\n", rows[i].regime, rows[i].verdict);
	if (cg_baseline_note(c, note, sizeof(note)))
		fprintf(f, "\nnote: %s.\n", note);
	fprintf(f,
		"\np50/wire, p50/ideal: the regime's time over the baseline's (the same hosts over "
		"a bridge; through fabemu with an ideal fabric).\nhop: one link's delay plus a "
		"full-sized frame at its rate (MTU + 38 bytes on the wire); offered: Gbit/s the\n"
		"hosts' links allow at once; ping: h1-h2 before the job. drops, marks, pauses: "
		"the fabric's (- for the wire);\nretrans (real: D-SACKed ones excluded), RTOs, "
		"probes: TCP's, all hosts; lost: frames lost at the edge or by the box;\nunexpl: "
		"frames no counter accounts for; late p99: us frames left the worst link after the "
		"model's tick;\nwait p99: us they waited at the edge. stalls: iterations %.0f ms "
		"or "
		"more above the median (an RTO-sized\nstall). How to read it: docs/campaigns.md.\n",
		CG_STALL_MS);
}
