/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calibration (docs/campaigns.md, "Calibration"): the box's own timing noise, as a run
 * through the ideal dataplane measured it, and the scale a regime runs at so that the
 * verdict's bounds (cg_verdict.c) hold against that noise with a margin. Pure: the
 * runner (cg_run.c) measures, these decide and say why.
 *
 * The verdict calls a run distorted when the worst link's lateness p99 or the edge wait's
 * p99 is above fid.late x a hop, or the offered load above fid.load x the capacity.
 * Dilation (scale s) multiplies a link's delay and divides its rate, so a hop grows with
 * s (hop(s) = hop_ns x s + hop_fixed_ns: links: entries are not dilated) and the offered
 * load shrinks (offered_bps / s + offered_fixed_bps), while the box's noise does not
 * change. The least s at or above the floor where
 *
 *     CG_CALIB_MARGIN x max(lateness p99, edge wait p99) <= fid.late x hop(s)
 *     offered(s) <= fid.load x capacity
 *
 * is the regime's; none at or below the most it may run at: refused, with what took the
 * lcore's core.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"

static double
num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double
or0(double v)
{
	return isnan(v) ? 0 : v;
}

void
cg_noise_of(json_t *run, struct cg_noise *n)
{
	json_t *late = json_object_get(run, "lateness"), *wait = json_object_get(run, "edge_wait");
	json_t *l = json_object_get(run, "lcores");

	memset(n, 0, sizeof(*n));
	n->late_p99_ns = n->late_max_ns = n->wait_p99_ns = n->wait_max_ns = NAN;
	if (num(late, "frames") > 0) {
		n->late_p99_ns = num(late, "worst_p99_ns");
		n->late_max_ns = num(late, "max_ns");
	}
	if (num(wait, "frames") > 0) {
		n->wait_p99_ns = num(wait, "p99_ns");
		n->wait_max_ns = num(wait, "max_ns");
	}
	/* ports with no receive time: what the loop's passes let a frame wait, if more */
	wait = json_object_get(run, "edge_wait_loop");
	if (json_is_object(wait) && !(num(wait, "p99_ns") <= n->wait_p99_ns)) {
		n->wait_p99_ns = num(wait, "p99_ns");
		n->wait_max_ns = num(wait, "max_ns");
	}
	n->window_s = or0(num(json_object_get(run, "counters"), "window_ns")) / 1e9;
	n->preempted = or0(num(l, "preempted"));
	n->runq_wait_ns = or0(num(l, "runq_wait_ns"));
	n->irq_ns = or0(num(l, "cpu_irq_ns"));
	n->softirq_ns = or0(num(l, "cpu_softirq_ns"));
	n->steal_ns = or0(num(l, "cpu_steal_ns"));
	n->lcores_unknown = !json_is_object(l);
	cg_qhist_add(n->pass_hist,
		     json_object_get(json_object_get(json_object_get(run, "counters"), "idle"),
				     "pass_hist_ns"));
}

const char *
cg_noise_cause(const struct cg_noise *n, double over_ns, char *buf, size_t len)
{
	double win = n->window_s > 0 ? n->window_s : NAN;
	double intr = (n->irq_ns + n->softirq_ns) / 1e6, away = 0;
	uint64_t passes = 0;
	size_t k = 0;

	buf[0] = '\0';
	/* the passes whose bucket lies wholly above over_ns, at their bucket's least: a
	 * lower bound of both the count and the time */
	for (unsigned i = 0; over_ns > 0 && i < FE_QHIST_BUCKETS; i++)
		if ((double)fe_qhist_lower(i) >= over_ns) {
			passes += n->pass_hist[i];
			away += (double)n->pass_hist[i] * (double)fe_qhist_lower(i);
		}
	if (passes > 0)
		cg_addf(buf, len, &k,
			"its loop came back to its ports more than %.1f us after it left them "
			"%" PRIu64 " times (at least %.0f ms in all)",
			over_ns / 1000, passes, away / 1e6);
	if (n->preempted > 0)
		cg_addf(buf, len, &k,
			"%sits lcore was preempted %.0f times (%.1f ms waiting for its core)",
			k ? "; " : "", n->preempted, n->runq_wait_ns / 1e6);
	if (intr > 0)
		cg_addf(buf, len, &k,
			"%sits core spent %.0f ms in interrupts (%.0f hard, %.0f soft%s",
			k ? "; " : "", intr, n->irq_ns / 1e6, n->softirq_ns / 1e6,
			isnan(win) ? ")" : "");
	if (intr > 0 && !isnan(win))
		cg_addf(buf, len, &k, "; %.1f%% of %.1f s)", 100 * intr / 1e3 / win, win);
	if (n->steal_ns > 0)
		cg_addf(buf, len, &k, "%sthe hypervisor took its core %.0f ms", k ? "; " : "",
			n->steal_ns / 1e6);
	if (n->takes[0])
		cg_addf(buf, len, &k, "%s%s", k ? "; " : "", n->takes);
	if (n->preempted == 0 && intr == 0 && n->steal_ns == 0 && !n->lcores_unknown)
		cg_addf(buf, len, &k,
			"%sthe kernel counted no preemption, interrupt or steal time on its core",
			k ? "; " : "");
	return buf;
}

/* The hop and the offered load of w at scale s. */
static double
hop_at(const struct cg_calib_want *w, double s)
{
	return w->hop_ns * s + w->hop_fixed_ns;
}

static double
offered_at(const struct cg_calib_want *w, double s)
{
	return w->offered_bps / s + w->offered_fixed_bps;
}

/* Whether the bounds hold at s: the noise (ns, NAN: none) against the hop, the load. */
static int
late_holds(const struct cg_calib_want *w, double noise, double s)
{
	double hop = hop_at(w, s);

	/* no hop: the verdict does not check lateness (nothing to hold) */
	return isnan(noise) || hop <= 0 || CG_CALIB_MARGIN * noise <= w->late * hop;
}

static int
load_holds(const struct cg_calib_want *w, double s)
{
	if (w->capacity_bps <= 0 || (w->offered_bps <= 0 && w->offered_fixed_bps <= 0))
		return 1; /* not checked by the verdict either */
	return offered_at(w, s) <= w->load * w->capacity_bps;
}

/* The least s in [lo, hi] where ok(s) holds, ok monotone in s; hi + 1 if none. */
static uint32_t
least(const struct cg_calib_want *w, double noise, uint32_t lo, uint32_t hi, int load)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (load ? load_holds(w, mid) : late_holds(w, noise, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	if (load ? load_holds(w, lo) : late_holds(w, noise, lo))
		return lo;
	return hi + 1;
}

void
cg_calib_choose(const struct cg_noise *n, const struct cg_calib_want *w,
		struct cg_calib_choice *out)
{
	double noise = fmax(or0(n->late_p99_ns), or0(n->wait_p99_ns));
	uint32_t lo = w->floor ? w->floor : 1, hi = w->max >= lo ? w->max : lo, s_late, s_load;
	char cause[1024];
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	if (isnan(n->late_p99_ns) && isnan(n->wait_p99_ns))
		noise = NAN;
	out->need_hop_ns = isnan(noise) ? NAN : CG_CALIB_MARGIN * noise / w->late;
	s_late = least(w, noise, lo, hi, 0);
	s_load = least(w, noise, lo, hi, 1);
	out->scale = s_late > s_load ? s_late : s_load;
	if (out->scale > hi) {
		out->result = CG_CAL_NONE;
		out->scale = hi;
		if (s_late > hi && hop_at(w, hi) > 0)
			cg_addf(out->why, sizeof(out->why), &k,
				"the box's timing noise (p99 %.1f us late, %.1f us at the edge, "
				"through the ideal dataplane) needs a hop of %.1f us (%.0fx it "
				"over "
				"%.0f%%); at scale %u, the most in range, the hop is %.1f us",
				or0(n->late_p99_ns) / 1000, or0(n->wait_p99_ns) / 1000,
				out->need_hop_ns / 1000, CG_CALIB_MARGIN, w->late * 100, hi,
				hop_at(w, hi) / 1000);
		if (s_late > hi && w->hop_ns <= 0)
			cg_addf(out->why, sizeof(out->why), &k,
				" (its hop does not grow with scale: its links: entries set it)");
		if (s_load > hi)
			cg_addf(out->why, sizeof(out->why), &k,
				"%sits offered load at scale %u, %.3f Gbit/s, is above %.0f%% of "
				"the "
				"capacity (%.3f Gbit/s)",
				k ? "; " : "", hi, offered_at(w, hi) / 1e9, w->load * 100,
				w->capacity_bps / 1e9);
		cg_addf(out->why, sizeof(out->why), &k, ". What takes the lcore's core: %s",
			cg_noise_cause(n, w->late * hop_at(w, hi), cause, sizeof(cause)));
		return;
	}
	out->result = isnan(noise) ? CG_CAL_UNMEASURED : CG_CAL_CHOSEN;
	out->hop_ns = hop_at(w, out->scale);
	if (isnan(noise))
		cg_addf(out->why, sizeof(out->why), &k,
			"no frame's lateness or edge wait was measured through the ideal "
			"dataplane: %s",
			out->scale == lo ? "the floor kept" : "raised for the load only");
	else if (out->scale == lo && hop_at(w, lo) <= 0)
		cg_addf(out->why, sizeof(out->why), &k,
			"no hop to hold the noise against (the verdict does not check lateness): "
			"the floor kept");
	else if (out->scale == lo)
		cg_addf(out->why, sizeof(out->why), &k,
			"the floor %u already gives a hop of %.1f us, at least the %.1f us the "
			"box's noise needs (p99 %.1f us late, %.1f us at the edge, x%.0f over "
			"%.0f%%)",
			lo, out->hop_ns / 1000, out->need_hop_ns / 1000, or0(n->late_p99_ns) / 1000,
			or0(n->wait_p99_ns) / 1000, CG_CALIB_MARGIN, w->late * 100);
	else if (s_late >= s_load)
		cg_addf(out->why, sizeof(out->why), &k,
			"the box's noise (p99 %.1f us late, %.1f us at the edge, through the "
			"ideal dataplane) needs a hop of %.1f us (x%.0f over %.0f%%): %.1f us at "
			"scale %u, above the floor %u",
			or0(n->late_p99_ns) / 1000, or0(n->wait_p99_ns) / 1000,
			out->need_hop_ns / 1000, CG_CALIB_MARGIN, w->late * 100, out->hop_ns / 1000,
			out->scale, lo);
	else
		cg_addf(out->why, sizeof(out->why), &k,
			"its offered load is at most %.0f%% of the capacity (%.3f Gbit/s) from "
			"scale %u (%.3f Gbit/s), above the floor %u; the hop there, %.1f us, is at "
			"least the %.1f us the box's noise needs",
			w->load * 100, w->capacity_bps / 1e9, out->scale,
			offered_at(w, out->scale) / 1e9, lo, out->hop_ns / 1000,
			out->need_hop_ns / 1000);
}

/* A row of /proc/interrupts or /proc/softirqs: its label and the count in column cpu
 * (ncpu columns); 0 if the line is not such a row. */
static int
irq_row(const char *line, unsigned cpu, char *label, size_t llen, char *desc, size_t dlen,
	unsigned long long *count)
{
	const char *eol = strchr(line, '\n') ? strchr(line, '\n') : line + strlen(line);
	const char *colon = memchr(line, ':', (size_t)(eol - line)), *p;
	size_t n = 0;
	char *end;

	while (*line == ' ')
		line++;
	if (colon == NULL || colon <= line || (size_t)(colon - line) >= llen)
		return 0;
	memcpy(label, line, (size_t)(colon - line));
	label[colon - line] = '\0';
	p = colon + 1;
	*count = 0;
	for (unsigned k = 0; k <= cpu; k++) {
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p || end > eol)
			return 0; /* fewer columns (ERR, MIS): not per CPU */
		*count = v;
		p = end;
	}
	/* the rest, past the other CPUs' columns: its chip and name, one space apart */
	while (p < eol && (*p == ' ' || (*p >= '0' && *p <= '9')))
		p++;
	for (; p < eol && n + 1 < dlen; p++)
		if (*p != ' ' || (n > 0 && desc[n - 1] != ' '))
			desc[n++] = *p;
	desc[n] = '\0';
	return 1;
}

/* Up to 3 rows of `after` whose count in column cpu grew most since `before`, appended to
 * out as "NAME N/s (what)". */
static void
top_rows(const char *before, const char *after, unsigned cpu, double secs, const char *kind,
	 char *out, size_t len, size_t *k)
{
	struct {
		char label[32], desc[64];
		unsigned long long d;
	} top[3] = {0};
	const char *l;

	for (l = after; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char label[32], desc[64], bl[32], bd[64];
		unsigned long long a, b = 0, d;
		const char *m;

		if (!irq_row(l, cpu, label, sizeof(label), desc, sizeof(desc), &a))
			continue;
		for (m = before; m && *m; m = strchr(m, '\n') ? strchr(m, '\n') + 1 : NULL)
			if (irq_row(m, cpu, bl, sizeof(bl), bd, sizeof(bd), &b) &&
			    strcmp(bl, label) == 0)
				break;
		d = m && *m && a >= b ? a - b : 0;
		for (int i = 0; i < 3; i++) {
			if (d <= top[i].d)
				continue;
			memmove(&top[i + 1], &top[i], (size_t)(2 - i) * sizeof(top[0]));
			snprintf(top[i].label, sizeof(top[i].label), "%s", label);
			snprintf(top[i].desc, sizeof(top[i].desc), "%s", desc);
			top[i].d = d;
			break;
		}
	}
	for (int i = 0; i < 3 && top[i].d; i++)
		cg_addf(out, len, k, "%s%s %s %.0f/s%s%s%s", *k ? ", " : "", kind, top[i].label,
			secs > 0 ? (double)top[i].d / secs : (double)top[i].d,
			top[i].desc[0] ? " (" : "", top[i].desc, top[i].desc[0] ? ")" : "");
}

const char *
cg_core_takers(const char *irq_before, const char *irq_after, const char *soft_before,
	       const char *soft_after, unsigned cpu, double secs, char *out, size_t len)
{
	size_t k = 0, head;

	out[0] = '\0';
	cg_addf(out, len, &k, "on CPU%u: ", cpu);
	head = k;
	k = 0; /* no ", " before the first */
	top_rows(irq_before, irq_after, cpu, secs, "interrupt", out + head, len - head, &k);
	top_rows(soft_before, soft_after, cpu, secs, "softirq", out + head, len - head, &k);
	if (k == 0)
		out[0] = '\0';
	return out;
}

/* Task tid in a[] (n of them), looked for from *j on (both lists in /proc's order: the
 * next one, mostly); NULL if it was not there. */
static const struct cg_task *
task_in(const struct cg_task *a, size_t n, pid_t tid, size_t *j)
{
	for (size_t m = 0; m < n; m++) {
		size_t x = (*j + m) % n;

		if (a[x].tid == tid) {
			*j = x;
			return &a[x];
		}
	}
	return NULL;
}

const char *
cg_tasks_on(const struct cg_task *a, size_t na, const struct cg_task *b, size_t nb, unsigned cpu,
	    char *out, size_t len)
{
	struct {
		const struct cg_task *t;
		uint64_t d;
	} top[3] = {{0}};
	size_t k = 0, j = 0;

	out[0] = '\0';
	for (size_t i = 0; i < nb; i++) {
		const struct cg_task *was = b[i].cpu == cpu ? task_in(a, na, b[i].tid, &j) : NULL;
		uint64_t d = was && b[i].run_ns > was->run_ns ? b[i].run_ns - was->run_ns : 0;

		for (int r = 0; r < 3; r++) {
			if (d <= top[r].d)
				continue;
			memmove(&top[r + 1], &top[r], (size_t)(2 - r) * sizeof(top[0]));
			top[r].t = &b[i];
			top[r].d = d;
			break;
		}
	}
	for (int r = 0; r < 3 && top[r].d >= 1000000; r++) {
		if (k == 0)
			cg_addf(out, len, &k, "tasks last seen on CPU%u: ", cpu);
		else
			cg_addf(out, len, &k, ", ");
		cg_addf(out, len, &k, "%s (pid %d) ran %.0f ms", top[r].t->comm, (int)top[r].t->pid,
			(double)top[r].d / 1e6);
	}
	return out;
}
