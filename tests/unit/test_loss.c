/* SPDX-License-Identifier: BSD-3-Clause */
/* Loss models over 10^6 draws with fixed seeds: rates and burst lengths within bounds. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>

#include "fe_loss.h"

#define DRAWS 1000000

struct run {
	double rate;	   /* lost / draws */
	double mean_burst; /* mean length of runs of consecutive losses */
};

static struct run
run(const struct fe_loss_params *p, uint64_t seed)
{
	struct fe_loss l;
	struct fe_loss_state st = {0};
	struct fe_rng r;
	unsigned long lost = 0, bursts = 0;
	int prev = 0;

	cr_assert_eq(fe_loss_compile(p, &l), 0);
	fe_rng_seed(&r, seed, 0);
	for (int i = 0; i < DRAWS; i++) {
		int x = fe_loss_lost(&l, &st, &r);

		lost += (unsigned long)x;
		bursts += (unsigned long)(x && !prev);
		prev = x;
	}
	return (struct run){(double)lost / DRAWS, bursts ? (double)lost / (double)bursts : 0};
}

/* |got - want| within k standard deviations of a binomial proportion */
static void
within_sigma(double got, double want, double k, const char *what)
{
	double sigma = sqrt(want * (1 - want) / DRAWS);

	cr_assert(fabs(got - want) <= k * sigma, "%s: %.6f, want %.6f +- %.6f", what, got, want,
		  k * sigma);
}

Test(loss, bernoulli_rate)
{
	struct fe_loss_params p = {.kind = FE_LOSS_BERNOULLI, .p = 0.01};

	within_sigma(run(&p, 1).rate, 0.01, 5, "1% Bernoulli");
	p.p = 0.001;
	within_sigma(run(&p, 2).rate, 0.001, 5, "0.1% Bernoulli");
	p.p = 0.5;
	within_sigma(run(&p, 3).rate, 0.5, 5, "50% Bernoulli");
	/* independent losses: bursts are short, mean 1 / (1 - p) */
	p.p = 0.01;
	cr_assert_float_eq(run(&p, 4).mean_burst, 1 / 0.99, 0.01);
}

Test(loss, bernoulli_extremes)
{
	struct fe_loss_params p = {.kind = FE_LOSS_BERNOULLI, .p = 0};

	cr_assert_eq(run(&p, 1).rate, 0.0);
	p.p = 1;
	cr_assert_eq(run(&p, 1).rate, 1.0);
}

Test(loss, gilbert_elliott_rate_and_burst)
{
	/* p = 1%, r = 25%: stationary P(Bad) = p / (p + r) = 1/26, mean burst 1 / r = 4 */
	struct fe_loss_params p = {.kind = FE_LOSS_GE, .p = 0.01, .r = 0.25, .loss_bad = 1};
	struct run x = run(&p, 7);

	/* losses are correlated, so allow more than the binomial sigma */
	cr_assert(fabs(x.rate - 1.0 / 26) < 0.004, "GE loss %.5f, want %.5f", x.rate, 1.0 / 26);
	cr_assert(fabs(x.mean_burst - 4) < 0.25, "GE mean burst %.3f, want 4", x.mean_burst);
}

Test(loss, gilbert_elliott_partial_loss_in_states)
{
	/* loss 50% in Bad, 1% in Good: 1/26 * 0.5 + 25/26 * 0.01 */
	struct fe_loss_params p = {
		.kind = FE_LOSS_GE, .p = 0.01, .r = 0.25, .loss_bad = 0.5, .loss_good = 0.01};
	double want = 0.5 / 26 + 0.01 * 25 / 26;

	cr_assert(fabs(run(&p, 9).rate - want) < 0.003, "want %.5f", want);
}

Test(loss, same_seed_same_decisions)
{
	struct fe_loss_params p = {.kind = FE_LOSS_GE, .p = 0.02, .r = 0.3, .loss_bad = 1};
	struct fe_loss a, b;
	struct fe_loss_state sa = {0}, sb = {0};
	struct fe_rng ra, rb, rc;
	int differ = 0;

	fe_loss_compile(&p, &a);
	fe_loss_compile(&p, &b);
	fe_rng_seed(&ra, 42, 3);
	fe_rng_seed(&rb, 42, 3);
	fe_rng_seed(&rc, 43, 3);
	for (int i = 0; i < 100000; i++)
		cr_assert_eq(fe_loss_lost(&a, &sa, &ra), fe_loss_lost(&b, &sb, &rb), "draw %d", i);
	fe_loss_compile(&p, &a);
	sa = (struct fe_loss_state){0};
	fe_rng_seed(&ra, 42, 3);
	for (int i = 0; i < 100000; i++)
		differ += fe_loss_lost(&a, &sa, &ra) != fe_loss_lost(&b, &sb, &rc);
	cr_assert_gt(differ, 0, "another seed must give other decisions");
}

Test(loss, rejects_bad_probabilities)
{
	struct fe_loss l;
	struct fe_loss_params p = {.kind = FE_LOSS_BERNOULLI, .p = 1.5};

	cr_assert_eq(fe_loss_compile(&p, &l), -EINVAL);
	p = (struct fe_loss_params){.kind = FE_LOSS_GE, .p = 0.1, .r = -0.1};
	cr_assert_eq(fe_loss_compile(&p, &l), -EINVAL);
}
