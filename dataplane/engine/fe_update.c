/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "fe_time.h"
#include "fe_graph.h"
#include "fe_trunk.h"
#include "fe_update.h"

static uint64_t update_gen;

static const struct fe_link *
cur_link(const struct fe_dp *dp, unsigned n)
{
	return &fe_dp_row(dp, n)->l;
}

/* "link 0.up", "link leaf1>spine2": link n in messages. */
static const char *
link_name(const struct fe_dp *dp, unsigned n, char *buf, size_t len)
{
	char name[80];

	snprintf(buf, len, "link %s", fe_dp_link_name(dp, n, name, sizeof(name)));
	return buf;
}

static int
same_rule(const struct fe_linkdef *a, const struct fe_linkdef *b)
{
	return strcmp(a->match, b->match) == 0 && a->drop_first == b->drop_first &&
	       a->drop_count == b->drop_count;
}

static int
build_link(struct fe_dp *dp, struct fe_update_link *ul, unsigned n, const struct fe_linkdef *d,
	   char *err, size_t errlen)
{
	const struct fe_link *l = cur_link(dp, n);
	const char *what;
	char e[300], name[100];

	if (fe_link_params_check(&d->link, &what) < 0 ||
	    fe_link_compile(&d->link, dp->hz, &ul->cfg) < 0) {
		snprintf(err, errlen, "%s: bad %s", link_name(dp, n, name, sizeof(name)), what);
		return -EINVAL;
	}
	/* the ring only grows: a smaller buffer keeps the ring it has */
	if (ul->cfg.nslots > l->mask + 1) {
		ul->slots = rte_zmalloc("fe_link", sizeof(*ul->slots) * ul->cfg.nslots,
					RTE_CACHE_LINE_SIZE);
		if (ul->slots == NULL) {
			snprintf(err, errlen, "out of memory for %u link slots", ul->cfg.nslots);
			return -ENOMEM;
		}
	}
	if (fe_linkx_compile(&ul->x, d, dp->hz, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "%s: %s", link_name(dp, n, name, sizeof(name)), e);
		return -EINVAL;
	}
	ul->rule_changed = !same_rule(d, fe_dp_link_def(dp, n));
	return 0;
}

/* What the switch is built around cannot change under it. */
static int
check_structure(const struct fe_dp *dp, const struct fe_fabric *f, char *err, size_t errlen)
{
	if (f->regime != dp->conf.regime) {
		snprintf(err, errlen,
			 "regime %s: the dataplane runs %s; the regime is fixed at start "
			 "(restart fabemu-dp with --profile)",
			 fe_regime_name(f->regime), fe_regime_name(dp->conf.regime));
		return -EINVAL;
	}
	if (f->lanes != dp->conf.lanes || f->lane_map != dp->conf.lane_map) {
		snprintf(err, errlen,
			 "lanes %u (%s): the dataplane runs %u lane(s) (%s); lanes are fixed at "
			 "start",
			 f->lanes, fe_lane_map_name(f->lane_map), dp->conf.lanes,
			 fe_lane_map_name(dp->conf.lane_map));
		return -EINVAL;
	}
	/* a tcp NIC has no state: its parameters mean nothing */
	if (f->nic.model != dp->conf.nic.model ||
	    (f->nic.model != FE_NIC_TCP && memcmp(&f->nic, &dp->conf.nic, sizeof(f->nic)) != 0)) {
		snprintf(err, errlen,
			 "nic %s (%s): the dataplane runs nic %s (%s) with other parameters; the "
			 "hosts' adapters are fixed at start (restart fabemu-dp)",
			 fe_nic_model_name(f->nic.model), fe_nic_recovery_name(f->nic.recovery),
			 fe_nic_model_name(dp->conf.nic.model),
			 fe_nic_recovery_name(dp->conf.nic.recovery));
		return -EINVAL;
	}
	if (f->regime == FE_REGIME_CREDIT &&
	    (fe_credit_total(f->credit.buffer, f->credit.unit) !=
		     fe_credit_total(dp->conf.credit.buffer, dp->conf.credit.unit) ||
	     fe_credit_unit_of(f->credit.unit).bytes !=
		     fe_credit_unit_of(dp->conf.credit.unit).bytes ||
	     f->credit.out_pkts != dp->conf.credit.out_pkts)) {
		snprintf(err, errlen,
			 "credit buffer %llu B / unit %u B / out %u: the dataplane runs %llu B / "
			 "unit %u B / out %u; the credits a host adapter was given are fixed at "
			 "start",
			 (unsigned long long)f->credit.buffer,
			 fe_credit_unit_of(f->credit.unit).bytes, f->credit.out_pkts,
			 (unsigned long long)dp->conf.credit.buffer,
			 fe_credit_unit_of(dp->conf.credit.unit).bytes, dp->conf.credit.out_pkts);
		return -EINVAL;
	}
	return 0;
}

void
fe_update_free(struct fe_update *u)
{
	if (u == NULL)
		return;
	fe_update_free(u->stale);
	for (unsigned n = 0; u->links && n < u->nlinks; n++) {
		/* before its lcore took it these are the new ones; after, the retired ones
		 * (per link: one stage of a pipeline may have taken it and not the other) */
		if (!__atomic_load_n(&u->links[n].adopted, __ATOMIC_ACQUIRE)) {
			fe_filter_free(u->links[n].x.filter);
			rte_free(u->links[n].slots);
		} else {
			if (u->links[n].old_filter != u->links[n].x.filter)
				fe_filter_free(u->links[n].old_filter);
			rte_free(u->links[n].old_slots);
		}
	}
	rte_free(u->links);
	rte_free(u);
}

struct fe_update *
fe_update_build(struct fe_dp *dp, const struct fe_linkdef *up, const struct fe_linkdef *down,
		const struct fe_fabric *fab, char *err, size_t errlen)
{
	return fe_update_build_fabric(dp, up, down, NULL, fab, err, errlen);
}

struct fe_update *
fe_update_build_fabric(struct fe_dp *dp, const struct fe_linkdef *up, const struct fe_linkdef *down,
		       const struct fe_linkdef *hop, const struct fe_fabric *fab, char *err,
		       size_t errlen)
{
	struct fe_update *u;
	struct fe_fabric_derived fd;

	if (check_structure(dp, fab, err, errlen) < 0)
		return NULL;
	fe_fabric_derive(dp, up, down, hop, &fd);
	u = rte_zmalloc("fe_update", sizeof(*u), RTE_CACHE_LINE_SIZE);
	if (u == NULL)
		goto nomem;
	u->nports = dp->nports;
	u->nlinks = dp->nlinks;
	u->links = rte_zmalloc("fe_update", sizeof(*u->links) * u->nlinks, 0);
	if (u->links == NULL)
		goto nomem;
	for (unsigned n = 0; n < u->nlinks; n++) {
		unsigned i;
		const enum fe_link_kind k = fe_dp_link_kind(dp, n, &i);
		const struct fe_linkdef *d = k == FE_LINK_HOP
						     ? (hop ? &hop[i] : fe_dp_link_def(dp, n))
					     : k == FE_LINK_DOWN ? &down[i]
								 : &up[i];

		if (build_link(dp, &u->links[n], n, d, err, errlen) < 0)
			goto fail;
		if (k == FE_LINK_HOP &&
		    fe_trunk_split_delay(dp, i, &u->links[n].cfg, err, errlen) < 0)
			goto fail;
		/* what it derives, from the cfg as this box runs it */
		if (fe_link_derive(dp, fab, &fd, n, d, &u->links[n].cfg, &u->links[n].dv, err,
				   errlen) < 0)
			goto fail;
	}
	if (fab->regime == FE_REGIME_PFC) /* the watchdog is PFC's (else 0: off) */
		fe_pfc_wd_compile(&u->wd, &fab->pfc, dp->hz);
	u->switch_buffer = fab->switch_buffer;
	u->hoq_ticks = fe_ns_to_ticks(fab->credit.hoq_life_ns, dp->hz);
	u->gen = ++update_gen;
	return u;
nomem:
	snprintf(err, errlen, "out of memory for a fabric update");
fail:
	fe_update_free(u);
	return NULL;
}

void
fe_update_publish(struct fe_dp *dp, struct fe_update *u)
{
	u->published_tsc = rte_rdtsc();
	__atomic_store_n(&dp->update, u, __ATOMIC_RELAXED);
	__atomic_store_n(&dp->update_gen, u->gen, __ATOMIC_RELEASE); /* both seen together */
}

static void
sleep_us(long us)
{
	nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = us * 1000}, NULL);
}

int
fe_update_wait_ack(const struct fe_dp *dp, const uint64_t *up, const uint64_t *down, uint64_t gen,
		   uint64_t deadline_ns)
{
	while (fe_dp_ack(dp, up, down) < gen)
		if (fe_mono_ns() > deadline_ns)
			return -ETIMEDOUT;
		else
			sleep_us(5);
	return 0;
}

int
fe_update_wait_quiet(struct fe_dp *dp, uint64_t deadline_ns)
{
	uint64_t token;

	if (dp->qsv == NULL)
		return 0;
	token = rte_rcu_qsbr_start(dp->qsv);
	while (rte_rcu_qsbr_check(dp->qsv, token, false) == 0)
		if (fe_mono_ns() > deadline_ns)
			return -ETIMEDOUT;
		else
			sleep_us(5);
	return 0;
}

int
fe_update_wait(struct fe_dp *dp, struct fe_update *u, struct fe_update *prev, uint64_t timeout_ns)
{
	uint64_t deadline = fe_mono_ns() + timeout_ns;

	u->stale = prev;
	if (fe_update_wait_ack(dp, &dp->adopted_gen, &dp->down_acks.adopted_gen, u->gen, deadline) <
		    0 ||
	    fe_update_wait_quiet(dp, deadline) < 0)
		return -ETIMEDOUT;
	u->stale = NULL;
	fe_update_free(prev);
	/* u stays published (the lcore reads its generation); only its retired parts go */
	for (unsigned n = 0; n < u->nlinks; n++) {
		if (u->links[n].old_filter != u->links[n].x.filter)
			fe_filter_free(u->links[n].old_filter);
		rte_free(u->links[n].old_slots);
		u->links[n].old_filter = u->links[n].x.filter; /* not freed twice */
		u->links[n].old_slots = NULL;
	}
	return 0;
}
