/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The all-reduce at cluster scale (docs/campaigns.md, "The all-reduce at cluster scale"):
 * from the rows measured at n ranks, what an iteration costs at N. The model:
 *
 *   - a ring all-reduce of S bytes a rank over N ranks is 2(N-1) steps; in each step
 *     every rank sends a chunk of ceil(S / N) bytes, ceil(chunk / MSS) packets (at least
 *     one), MSS the hosts' MTU less 52 bytes (IPv4, TCP and its timestamps);
 *   - every packet sent starts a stall with the same small chance p, independently, at
 *     every scale; a step waits for its slowest rank, so stalls in one step overlap and
 *     stalls in different steps add;
 *   - p is fitted to the stalled iterations counted at the fitted rows (cg_summary.c's
 *     rule): k stalled iterations of m_i at n_i ranks, P_i packets an iteration, are
 *     taken as Poisson with mean mu(p) = sum m_i (1 - (1 - p)^P_i); p solves mu(p) = k,
 *     its interval the exact (Garwood) Poisson interval of k mapped through mu;
 *   - an iteration without a stall takes 2(N-1) a + 2(N-1)/N S b (a ring's latency and
 *     bandwidth terms), a and b fitted by least squares (each >= 0) to the rows' p50s;
 *     from one rank count only, a is half the ping's RTT and b takes the rest; its band
 *     is the same fit through the ends of the p50s' intervals;
 *   - a stall costs what the fitted rows' stalls cost above their median (pooled), else,
 *     with none measured, the transport's recovery time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"

static const unsigned default_ranks[] = {8, 64, 512, 1024, 4096, 16384};

/* IPv4 (20), TCP (20) and its timestamps (12): what of an MTU is payload */
#define CG_PKT_OVERHEAD 52

unsigned
cg_proj_mss(uint32_t mtu)
{
	return mtu > CG_PKT_OVERHEAD + 64 ? mtu - CG_PKT_OVERHEAD : 64;
}

double
cg_ring_step_packets(unsigned n, uint64_t bytes, unsigned mss)
{
	uint64_t chunk = (bytes + n - 1) / n;
	uint64_t per = (chunk + mss - 1) / mss;

	return (double)n * (double)(per ? per : 1);
}

double
cg_ring_packets(unsigned n, uint64_t bytes, unsigned mss)
{
	return n < 2 ? 0 : 2.0 * (n - 1) * cg_ring_step_packets(n, bytes, mss);
}

/* 1 - (1 - p)^k, exact for the smallest p */
static double
any_of(double p, double k)
{
	if (p >= 1)
		return k > 0 ? 1 : 0;
	return -expm1(k * log1p(-p));
}

/* P(X <= k) for X ~ Poisson(lambda) */
static double
poisson_cdf(long long k, double lambda)
{
	double sum = 0;

	if (lambda <= 0)
		return 1;
	for (long long i = 0; i <= k; i++)
		sum += exp(-lambda + (double)i * log(lambda) - lgamma((double)i + 1));
	return fmin(sum, 1);
}

void
cg_poisson_interval(long long k, double conf, double *lo, double *hi)
{
	double a = (1 - conf) / 2, l, h;

	/* upper: P(X <= k | hi) = a; lower: P(X >= k | lo) = a, i.e. P(X <= k-1 | lo) = 1-a */
	l = 0;
	h = (double)k + 20 + 10 * sqrt((double)k + 1);
	for (int i = 0; i < 200; i++) {
		double m = (l + h) / 2;

		if (poisson_cdf(k, m) > a)
			l = m;
		else
			h = m;
	}
	*hi = (l + h) / 2;
	*lo = 0;
	if (k == 0)
		return;
	l = 0;
	h = *hi;
	for (int i = 0; i < 200; i++) {
		double m = (l + h) / 2;

		if (poisson_cdf(k - 1, m) > 1 - a)
			l = m;
		else
			h = m;
	}
	*lo = (l + h) / 2;
}

unsigned
cg_binom_quantile(unsigned trials, double prob, double q)
{
	double mean = trials * prob, sd = sqrt(mean * (1 - prob)), cum = 0;
	long long k0 = (long long)floor(mean - 12 * sd - 12);

	if (prob <= 0 || trials == 0)
		return 0;
	if (prob >= 1)
		return trials;
	/* the mass below k0 is negligible (12 standard deviations): sum from there */
	for (long long k = k0 < 0 ? 0 : k0; k <= (long long)trials; k++) {
		double lp = lgamma(trials + 1.0) - lgamma(k + 1.0) - lgamma(trials - k + 1.0) +
			    (double)k * log(prob) + (double)(trials - k) * log1p(-prob);

		if ((cum += exp(lp)) >= q)
			return (unsigned)k;
	}
	return trials;
}

/* What the fit reads of a row: its ranks, iterations, stalls, packets an iteration. */
struct point {
	unsigned n;
	double m, k, packets, p50, p50_lo, p50_hi, rtt_ms;
};

/* mu(p): the stalled iterations the points would expect */
static double
mu(const struct point *pt, unsigned np, double p)
{
	double s = 0;

	for (unsigned i = 0; i < np; i++)
		s += pt[i].m * any_of(p, pt[i].packets);
	return s;
}

/* The p whose mu(p) is target (mu rises with p); 1 where even p = 1 falls short. */
static double
solve_p(const struct point *pt, unsigned np, double target)
{
	double l = -40, h = 0; /* log10 p */

	if (target <= 0)
		return 0;
	if (mu(pt, np, 1) <= target)
		return 1;
	for (int i = 0; i < 200; i++) {
		double m = (l + h) / 2;

		if (mu(pt, np, pow(10, m)) < target)
			l = m;
		else
			h = m;
	}
	return pow(10, (l + h) / 2);
}

/* The ring's time without a stall, a x1 + b x2, fitted to y (which: 0 p50, 1 lo, 2 hi). */
static void
fit_base(const struct point *pt, unsigned np, uint64_t bytes, int which, double *a, double *b,
	 int *from_ping)
{
	double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0, det;
	unsigned distinct = 0;

	for (unsigned i = 0; i < np; i++) {
		double x1 = 2.0 * (pt[i].n - 1), x2 = x1 / pt[i].n * (double)bytes;
		double y = which == 0 ? pt[i].p50 : which == 1 ? pt[i].p50_lo : pt[i].p50_hi;
		int seen = 0;

		for (unsigned j = 0; j < i; j++)
			seen |= pt[j].n == pt[i].n;
		distinct += !seen;
		s11 += x1 * x1;
		s12 += x1 * x2;
		s22 += x2 * x2;
		s1y += x1 * y;
		s2y += x2 * y;
	}
	*from_ping = distinct < 2;
	if (distinct < 2) {
		/* one rank count: the latency a step from the ping (one way), the rest bytes */
		*a = isnan(pt[0].rtt_ms) ? 0 : pt[0].rtt_ms / 2;
		*b = s22 > 0 ? fmax(0, (s2y - *a * s12) / s22) : 0;
		if (*b == 0 && s11 > 0)
			*a = s1y / s11;
		return;
	}
	det = s11 * s22 - s12 * s12;
	*a = (s22 * s1y - s12 * s2y) / det;
	*b = (s11 * s2y - s12 * s1y) / det;
	if (*a < 0) {
		*a = 0;
		*b = s2y / s22;
	} else if (*b < 0) {
		*b = 0;
		*a = s1y / s11;
	}
}

static double
base_at(double a, double b, unsigned n, uint64_t bytes)
{
	return 2.0 * (n - 1) * a + 2.0 * (n - 1) / n * (double)bytes * b;
}

/* Stalled steps' count and its p99 at n: the iteration's mean and p99 above base. */
static void
stall_time(const struct cg_proj *p, double prob, unsigned n, double *mean, double *p99)
{
	double q = any_of(prob, cg_ring_step_packets(n, p->bytes, p->mss));
	unsigned steps = 2 * (n - 1);

	*mean = p->cost_ms * steps * q;
	*p99 = p->cost_ms * cg_binom_quantile(steps, q, 0.99);
}

void
cg_proj_at(const struct cg_proj *p, unsigned n, double compute_ms, struct cg_proj_at *at)
{
	double m, x, lo99, hi99, mlo, mhi;

	memset(at, 0, sizeof(*at));
	at->n = n;
	at->packets = cg_ring_packets(n, p->bytes, p->mss);
	at->stall = any_of(p->p, at->packets);
	at->stall_lo = any_of(p->p_lo, at->packets);
	at->stall_hi = any_of(p->p_hi, at->packets);
	at->base = base_at(p->a, p->b, n, p->bytes);
	at->base_lo = fmin(base_at(p->a_lo, p->b_lo, n, p->bytes),
			   base_at(p->a_hi, p->b_hi, n, p->bytes));
	at->base_hi = fmax(base_at(p->a_lo, p->b_lo, n, p->bytes),
			   base_at(p->a_hi, p->b_hi, n, p->bytes));
	at->base_lo = fmin(at->base_lo, at->base);
	at->base_hi = fmax(at->base_hi, at->base);
	stall_time(p, p->p, n, &m, &x);
	at->mean = at->base + m;
	at->p99 = at->base + x;
	stall_time(p, p->p_lo, n, &mlo, &lo99);
	stall_time(p, p->p_hi, n, &mhi, &hi99);
	at->mean_lo = at->base_lo + mlo;
	at->mean_hi = at->base_hi + mhi;
	at->p99_lo = at->base_lo + lo99;
	at->p99_hi = at->base_hi + hi99;
	/* every rank waits out the all-reduce: n GPUs, 1,000 steps, ms to hours */
	at->gpuh = n * 1000.0 * at->mean / 3.6e6;
	at->gpuh_lo = n * 1000.0 * at->mean_lo / 3.6e6;
	at->gpuh_hi = n * 1000.0 * at->mean_hi / 3.6e6;
	at->stall_gpuh = n * 1000.0 * m / 3.6e6;
	at->wait = at->wait_lo = at->wait_hi = NAN;
	if (compute_ms > 0) {
		at->wait = at->mean / (compute_ms + at->mean);
		at->wait_lo = at->mean_lo / (compute_ms + at->mean_lo);
		at->wait_hi = at->mean_hi / (compute_ms + at->mean_hi);
	}
}

/* A row's point: NAN-free figures, its regime's ranks and packets. */
static int
point_of(const struct cg_campaign *c, const struct cg_row *rows, size_t per, unsigned g, size_t s,
	 uint64_t bytes, struct point *pt)
{
	const struct cg_row *w = &rows[g * per + s];
	unsigned mss = cg_proj_mss(c->reg[g].edge.mtu);

	if (w->n == 0 || isnan(w->p50))
		return -1;
	pt->n = cg_regime_ranks(c, &c->reg[g]);
	pt->m = (double)w->n;
	pt->k = (double)w->stalls;
	pt->packets = cg_ring_packets(pt->n, bytes, mss);
	pt->p50 = w->p50;
	pt->p50_lo = isnan(w->p50_lo) ? w->p50 : w->p50_lo;
	pt->p50_hi = isnan(w->p50_hi) ? w->p50 : w->p50_hi;
	pt->rtt_ms = w->rtt_us / 1000;
	return 0;
}

/* Series k's fitted model for size s into p; -1 when no fitted row has iterations. */
static int
fit(const struct cg_campaign *c, const struct cg_row *rows, size_t per, const unsigned *reg,
    unsigned nreg, size_t s, struct cg_proj *p)
{
	struct point pt[CG_MAX_REGIMES];
	unsigned np = 0, from_ping;
	double cost = 0, stalled = 0, mlo, mhi;
	long long k = 0;

	p->bytes = c->sizes[s] / 4 * 4;
	p->mss = cg_proj_mss(c->reg[reg[0]].edge.mtu);
	cg_size_name(c->sizes[s], p->size, sizeof(p->size));
	for (unsigned i = 0; i < nreg; i++) {
		const struct cg_row *w = &rows[reg[i] * per + s];

		if (point_of(c, rows, per, reg[i], s, p->bytes, &pt[np]) < 0)
			continue;
		p->fit_ranks[np] = pt[np].n;
		p->iterations += w->n;
		p->exposure += pt[np].m * pt[np].packets;
		k += w->stalls;
		if (w->stalls && !isnan(w->stall_excess_ms)) {
			cost += w->stall_excess_ms * (double)w->stalls;
			stalled += (double)w->stalls;
		}
		np++;
	}
	if ((p->nfit = np) == 0)
		return -1;
	p->stalls = k;
	p->p = solve_p(pt, np, (double)k);
	cg_poisson_interval(k, CG_CONFIDENCE, &mlo, &mhi);
	p->p_lo = solve_p(pt, np, mlo);
	p->p_hi = solve_p(pt, np, mhi);
	p->cost_measured = stalled > 0;
	p->cost_ms = stalled > 0 ? cost / stalled : rows[reg[0] * per + s].recovery_ms;
	fit_base(pt, np, p->bytes, 0, &p->a, &p->b, &p->base_from_ping);
	fit_base(pt, np, p->bytes, 1, &p->a_lo, &p->b_lo, (int *)&from_ping);
	fit_base(pt, np, p->bytes, 2, &p->a_hi, &p->b_hi, (int *)&from_ping);
	return 0;
}

/* The check of series p against row w (regime g): the prediction at its ranks. */
static void
check(const struct cg_campaign *c, const struct cg_row *w, unsigned g, struct cg_proj *p)
{
	struct cg_proj_check *x = &p->check[p->ncheck++];

	x->reg = g;
	cg_proj_at(p, cg_regime_ranks(c, &c->reg[g]), c->proj.compute_ms, &x->pred);
	x->measured = w->n > 0;
	x->p50 = w->p50;
	x->p50_lo = w->p50_lo;
	x->p50_hi = w->p50_hi;
	x->p99 = w->p99;
	x->p99_lo = w->p99_lo;
	x->p99_hi = w->p99_hi;
	x->max = w->max;
	x->n = w->n;
	x->stall = w->stall_share;
	x->stall_lo = w->stall_share_lo;
	x->stall_hi = w->stall_share_hi;
}

size_t
cg_project(const struct cg_campaign *c, const struct cg_row *rows, size_t nrows,
	   struct cg_proj *out)
{
	const size_t per = c->allreduce ? c->nsizes : 1;
	const struct cg_projection_cfg *cfg = &c->proj;
	unsigned nseries = cfg->nseries ? cfg->nseries : c->nreg;
	const unsigned *ranks = cfg->nranks ? cfg->ranks : default_ranks;
	unsigned nranks = cfg->nranks ? cfg->nranks
				      : (unsigned)(sizeof(default_ranks) / sizeof(*default_ranks));
	size_t n = 0;

	if (!cg_projects(c) || nrows < c->nreg * per)
		return 0;
	for (unsigned k = 0; k < nseries; k++) {
		unsigned self = k;
		const unsigned *reg = cfg->nseries ? cfg->series[k].fit : &self;
		unsigned nreg = cfg->nseries ? cfg->series[k].nfit : 1;

		/* by default, every fabric but the baselines: the testbed's own costs, which
		 * a cluster would not have */
		if (cfg->nseries == 0 && cg_baseline(&c->reg[k]))
			continue;

		for (size_t s = 0; s < per; s++) {
			struct cg_proj *p = &out[n];

			memset(p, 0, sizeof(*p));
			snprintf(p->series, sizeof(p->series), "%s",
				 cfg->nseries ? cfg->series[k].name : c->reg[k].name);
			if (fit(c, rows, per, reg, nreg, s, p) < 0)
				continue;
			p->compute_ms = cfg->compute_ms;
			for (unsigned i = 0; i < nranks; i++)
				cg_proj_at(p, ranks[i], cfg->compute_ms, &p->at[p->nat++]);
			for (unsigned i = 0; cfg->nseries && i < cfg->series[k].ncheck; i++) {
				unsigned g = cfg->series[k].check[i];

				check(c, &rows[g * per + s], g, p);
			}
			n++;
		}
	}
	return n;
}

int
cg_proj_inside(double v, double lo, double hi)
{
	/* a band of one value is a point: inside within rounding */
	return !isnan(v) && v >= lo * (1 - 1e-9) - 1e-12 && v <= hi * (1 + 1e-9) + 1e-12;
}

const char *const cg_proj_assumptions[] = {
	"every packet starts a stall with the same chance, independently of the others, "
	"at every number of ranks",
	"a ring all-reduce: 2(N-1) steps, each rank sending ceil(S/N) bytes a step, in "
	"packets of the hosts' MTU less 52 bytes, at least one",
	"a step waits for its slowest rank: stalls in one step overlap, in different steps "
	"add",
	"a stall costs what the measured ones cost above their median (else the transport's "
	"recovery time); the time between stalls as fitted to the p50s",
	"the p99 counts stalls only, not the spread of ordinary iterations; the all-reduce "
	"overlaps no compute; one GPU a rank",
	NULL,
};

/* A figure and its interval: {"v": .., "ci": [lo, hi]}, null for none. */
static json_t *
fig(double v, double lo, double hi)
{
	if (isnan(v))
		return json_null();
	return json_pack("{s:f, s:[f, f]}", "v", v, "ci", lo, hi);
}

static json_t *
at_json(const struct cg_proj_at *a)
{
	return json_pack("{s:i, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:f}", "ranks", (int)a->n,
			 "packets", a->packets, "p_stall", fig(a->stall, a->stall_lo, a->stall_hi),
			 "no_stall_ms", fig(a->base, a->base_lo, a->base_hi), "mean_ms",
			 fig(a->mean, a->mean_lo, a->mean_hi), "p99_ms",
			 fig(a->p99, a->p99_lo, a->p99_hi), "waiting_share",
			 fig(a->wait, a->wait_lo, a->wait_hi), "gpu_hours_per_1000_steps",
			 fig(a->gpuh, a->gpuh_lo, a->gpuh_hi), "stall_gpu_hours_per_1000_steps",
			 a->stall_gpuh);
}

static json_t *
check_json(const struct cg_campaign *c, const struct cg_proj_check *x)
{
	json_t *m = json_pack("{s:I, s:o, s:o, s:o, s:o}", "iterations", (json_int_t)x->n,
			      "p_stall", fig(x->stall, x->stall_lo, x->stall_hi), "p50_ms",
			      fig(x->p50, x->p50_lo, x->p50_hi), "p99_ms",
			      fig(x->p99, x->p99_lo, x->p99_hi), "max_ms",
			      isnan(x->max) ? json_null() : json_real(x->max));

	json_t *in = json_pack(
		"{s:b, s:b}", "p_stall",
		x->measured && cg_proj_inside(x->stall, x->pred.stall_lo, x->pred.stall_hi), "p50",
		x->measured && cg_proj_inside(x->p50, x->pred.base_lo, x->pred.base_hi));

	/* a p99 only where one was measured (CG_P99_MIN_N iterations) */
	if (x->measured && !isnan(x->p99))
		json_object_set_new(
			in, "p99",
			json_boolean(cg_proj_inside(x->p99, x->pred.p99_lo, x->pred.p99_hi)));
	return json_pack("{s:s, s:i, s:o, s:o, s:o}", "regime", c->reg[x->reg].name, "ranks",
			 (int)x->pred.n, "predicted", at_json(&x->pred), "measured",
			 x->measured ? m : (json_decref(m), json_null()), "inside", in);
}

json_t *
cg_projection_json(const struct cg_campaign *c, const struct cg_proj *p, size_t n)
{
	json_t *all = json_array(), *as = json_array();

	for (unsigned k = 0; cg_proj_assumptions[k]; k++)
		json_array_append_new(as, json_string(cg_proj_assumptions[k]));
	for (size_t i = 0; i < n; i++) {
		json_t *fit = json_array(), *at = json_array(), *chk = json_array();

		for (unsigned k = 0; k < p[i].nfit; k++)
			json_array_append_new(fit, json_integer(p[i].fit_ranks[k]));
		for (unsigned k = 0; k < p[i].nat; k++)
			json_array_append_new(at, at_json(&p[i].at[k]));
		for (unsigned k = 0; k < p[i].ncheck; k++)
			json_array_append_new(chk, check_json(c, &p[i].check[k]));
		json_array_append_new(
			all,
			json_pack(
				"{s:s, s:s, s:I, s:i, s:o, s:I, s:I, s:f, s:o, s:{s:f, s:f, s:s}, "
				"s:{s:f, s:s}, s:o, s:o, s:o}",
				"series", p[i].series, "size", p[i].size, "bytes",
				(json_int_t)p[i].bytes, "mss", (int)p[i].mss, "fit_ranks", fit,
				"iterations", (json_int_t)p[i].iterations, "stalls",
				(json_int_t)p[i].stalls, "packets", p[i].exposure,
				"stalls_per_packet", fig(p[i].p, p[i].p_lo, p[i].p_hi), "step",
				"latency_ms", p[i].a, "ms_per_byte", p[i].b, "from",
				p[i].base_from_ping ? "ping" : "fit", "stall_cost", "ms",
				p[i].cost_ms, "from",
				p[i].cost_measured ? "measured" : "recovery time", "compute_ms",
				c->proj.compute_ms > 0 ? json_real(c->proj.compute_ms)
						       : json_null(),
				"at", at, "checks", chk));
	}
	return json_pack("{s:o, s:o}", "assumptions", as, "series", all);
}
