/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every value the engine derives from a link's configuration follows a change of it.
 * Generated from the table of link keys (fe_link_param_key(): a key added there is
 * tested here): for each regime, each key and each kind of link (a port's up link, a
 * port's down link, a link between switches), engine A starts with the base fabric and
 * then changes that one key of that one link at run time; engine B starts with the
 * changed fabric. Everything compiled or derived must then be the same in both: each
 * link's cfg and impairments, its row's credit return, PFC thresholds and headroom (read
 * through the link table, fe_dp_row(), for every kind of link alike), the NIC's line
 * rate and DCQCN, the causal step, the ideal down links. A leaf-spine of 2 leaves, 2
 * spines and 4 hosts over in-memory ports, with RoCE NICs, on a fake clock.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "fe_derive.h"
#include "fe_dp.h"
#include "fe_graph.h"
#include "fe_graphconf.h"
#include "fe_linkspec.h"
#include "fe_nicport.h"
#include "fe_profile.h"
#include "fe_update.h"
#include "ring_ports.h"

#define NP 4
#define HZ 1000000000ULL

static struct rte_mempool *pool;
static struct rte_ring *rxr[NP], *txr[NP];
static uint16_t ports[NP];
static struct fe_topo topo;
static struct fe_graph_build gb[2]; /* engine A's, engine B's */

static void
eal_up(void)
{
	pool = ring_eal_up("fe-test-derive");
	for (int i = 0; i < NP; i++)
		ports[i] = ring_port(i, pool, &rxr[i], &txr[i]);
}

static void
eal_down(void)
{
	ring_eal_down("fe-test-derive");
}

TestSuite(derive, .init = eal_up, .fini = eal_down);

/* A fabric: every link of every kind, as the engine takes them. */
struct fabric {
	struct fe_linkdef up[NP], down[NP];
	struct fe_linkdef hop[2 * FE_TOPO_LINKS];
	unsigned nhop;
};

static const struct fe_linkdef base = {
	.link = {.rate_bps = 100000000, .delay_ns = 10000, .limit_pkts = 64}};

static void
fabric_base(struct fabric *f)
{
	struct fe_topo_gen g = {
		.kind = "leaf-spine", .hosts = NP, .leaves = 2, .spines = 2, .hosts_per_leaf = 2};
	char err[256];

	cr_assert_eq(fe_topo_generate(&g, &topo, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(fe_topo_check(&topo, err, sizeof(err), NULL), 0, "%s", err);
	for (int i = 0; i < NP; i++)
		f->up[i] = f->down[i] = base;
	f->nhop = 2 * topo.nlinks;
	for (unsigned h = 0; h < f->nhop; h++)
		f->hop[h] = base;
}

/* the NIC the cases run: roce, or uec with RCCC (its pull rate follows the fabric's
 * oversubscription: every link's rate) */
static int uec_rccc;
/* and the bytes a credit message gathers (credit: update) */
static uint64_t credit_update_bytes;

static struct fe_fabric
fabric_of(enum fe_regime r)
{
	struct fe_fabric fab = FE_FABRIC_DEFAULT;

	fab.regime = r;
	fab.pfc.headroom = 20000;
	fab.nic.model = uec_rccc ? FE_NIC_UEC : FE_NIC_ROCE;
	if (uec_rccc) {
		fab.nic.cc = FE_CC_RCCC;
		fab.nic.cc_set = 1;
	}
	fab.nic.timeout_path = 1; /* it follows every link's rate and buffer */
	fab.credit.update = credit_update_bytes;
	return fab;
}

static struct fe_dp *
create_fab(const struct fabric *f, const struct fe_fabric fab, struct fe_graph_build *b)
{
	/* every port's frames in a NIC's ring: the edge pause, derived from the up link */
	static const struct fe_wire wire[NP] = {{.bps = 10000000000ULL, .rxd = 63, .pause = 1},
						{.bps = 10000000000ULL, .rxd = 63, .pause = 1},
						{.bps = 0, .rxd = 1023, .pause = 1},
						{.bps = 0, .rxd = 1023, .pause = 1}};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL,
				  .wire = wire,
				  .lanes = fab.lanes,
				  .lane_map = fab.lane_map,
				  .seed = 1,
				  .regime = fab.regime,
				  .pfc = fab.pfc,
				  .credit = fab.credit,
				  .nic = fab.nic};
	char err[256];
	struct fe_dp *dp;

	cr_assert_eq(fe_graph_build(&topo, &base, FE_PATH_ECMP, topo.nports, b, err, sizeof(err)),
		     0, "%s", err);
	for (unsigned h = 0; h < f->nhop; h++)
		b->def[h] = f->hop[h];
	conf.graph = &b->conf;
	dp = fe_dp_create(NP, ports, f->up, f->down, pool, HZ, &conf, err, sizeof(err));
	cr_assert_not_null(dp, "%s", err);
	return dp;
}

static struct fe_dp *
create(const struct fabric *f, enum fe_regime r, struct fe_graph_build *b)
{
	return create_fab(f, fabric_of(r), b);
}

/* The leaf-spine a shipped profile gives at scale: its up and down links, its fabric's
 * class between switches, its fabric-wide values and NIC. */
static struct fe_dp *
create_profile(const char *name, uint32_t scale, struct fe_graph_build *b)
{
	static struct fe_profile prof;
	struct fe_fabric fab;
	struct fe_linkdef hop;
	struct fabric f;
	char err[512];

	cr_assert_eq(fe_profile_load(name, &prof, err, sizeof(err)), 0, "%s", err);
	fabric_base(&f);
	cr_assert_eq(fe_profile_expand(&prof, scale, NP, f.up, f.down, &fab, err, sizeof(err)), 0,
		     "%s at scale %u: %s", name, scale, err);
	cr_assert_eq(fe_profile_fabric(&prof, scale, &hop, err, sizeof(err)), 0, "%s", err);
	for (unsigned h = 0; h < f.nhop; h++)
		f.hop[h] = hop;
	return create_fab(&f, fab, b);
}

/* The link n of dp: its compiled link, its impairments. */
static const struct fe_link *
link_of(const struct fe_dp *dp, unsigned n)
{
	return &fe_dp_row(dp, n)->l;
}

static const struct fe_linkx *
linkx_of(const struct fe_dp *dp, unsigned n)
{
	return &fe_dp_row(dp, n)->x;
}

/* Everything compiled or derived in a and b is the same; what names the case. */
static void
same(const struct fe_dp *a, const struct fe_dp *b, const char *what)
{
	char name[80];

	cr_assert_eq(a->nlinks, b->nlinks);
	for (unsigned n = 0; n < a->nlinks; n++) {
		struct fe_link_cfg ca = link_of(a, n)->cfg, cb = link_of(b, n)->cfg;
		const struct fe_linkx_cfg *xa = &linkx_of(a, n)->cfg, *xb = &linkx_of(b, n)->cfg;
		const struct fe_row *ra = fe_dp_row(a, n), *rb = fe_dp_row(b, n);
		unsigned i;
		const enum fe_link_kind k = fe_dp_link_kind(a, n, &i);

		fe_dp_link_name(a, n, name, sizeof(name));
		ca.nslots = cb.nslots = 0; /* a ring only grows at run time */
		cr_assert(memcmp(&ca, &cb, sizeof(ca)) == 0, "%s: link %s's cfg", what, name);
		cr_assert(memcmp(&xa->loss, &xb->loss, sizeof(xa->loss)) == 0 &&
				  xa->loss_cause == xb->loss_cause &&
				  memcmp(&xa->ecn, &xb->ecn, sizeof(xa->ecn)) == 0 &&
				  xa->jitter_ticks == xb->jitter_ticks &&
				  xa->drop_first == xb->drop_first &&
				  xa->drop_count == xb->drop_count && xa->active == xb->active &&
				  (xa->filter == NULL) == (xb->filter == NULL),
			  "%s: link %s's impairments", what, name);
		/* the lossless state of the ingress the link feeds: its row's, every kind */
		cr_assert(memcmp(&ra->pfc.cfg, &rb->pfc.cfg, sizeof(ra->pfc.cfg)) == 0,
			  "%s: link %s's PFC thresholds and headroom", what, name);
		cr_assert_eq(ra->cred.return_ticks, rb->cred.return_ticks,
			     "%s: link %s's credit return: %lu, started so: %lu", what, name,
			     (unsigned long)ra->cred.return_ticks,
			     (unsigned long)rb->cred.return_ticks);
		cr_assert_eq(ra->cred.update, rb->cred.update,
			     "%s: link %s's credit messages: %u blocks, started so: %u", what, name,
			     ra->cred.update, rb->cred.update);
		if (k == FE_LINK_UP) {
			const struct fe_port *pa = &a->ports[i], *pb = &b->ports[i];

			cr_assert(
				memcmp(&pa->epause.cfg, &pb->epause.cfg, sizeof(pa->epause.cfg)) ==
					0,
				"%s: link %s's edge pause: XOFF %lu, XON %lu, started so: %lu, %lu",
				what, name, (unsigned long)pa->epause.cfg.xoff,
				(unsigned long)pa->epause.cfg.xon,
				(unsigned long)pb->epause.cfg.xoff,
				(unsigned long)pb->epause.cfg.xon);
			cr_assert_eq(pa->nic->line_bps, pb->nic->line_bps,
				     "%s: link %s's NIC line rate: %lu, started so: %lu", what,
				     name, (unsigned long)pa->nic->line_bps,
				     (unsigned long)pb->nic->line_bps);
			cr_assert(memcmp(&pa->nic->cc, &pb->nic->cc, sizeof(pa->nic->cc)) == 0,
				  "%s: link %s's NIC DCQCN", what, name);
			cr_assert_eq(pa->nic->timeout_ticks, pb->nic->timeout_ticks,
				     "%s: port %u's NIC timeout (path): %lu, started so: %lu", what,
				     i, (unsigned long)pa->nic->timeout_ticks,
				     (unsigned long)pb->nic->timeout_ticks);
			cr_assert(memcmp(&pa->nic->nscc, &pb->nic->nscc, sizeof(pa->nic->nscc)) ==
					  0,
				  "%s: link %s's NIC NSCC", what, name);
			cr_assert(memcmp(&pa->nic->rccc, &pb->nic->rccc, sizeof(pa->nic->rccc)) ==
					  0,
				  "%s: link %s's NIC RCCC (its senders)", what, name);
		}
		if (k == FE_LINK_DOWN) { /* the receiving NIC's pacer, its pull rate */
			const struct fe_rccc_cfg *qa = &a->ports[i].nic->rccc_rx,
						 *qb = &b->ports[i].nic->rccc_rx;

			cr_assert(memcmp(qa, qb, sizeof(*qa)) == 0,
				  "%s: link %s's receiving NIC's RCCC: pull rate every %lu ticks "
				  "from %u / 65536, started so: %lu, %u",
				  what, name, (unsigned long)qa->occ_ticks, qa->occ_min16,
				  (unsigned long)qb->occ_ticks, qb->occ_min16);
		}
	}
	cr_assert_eq(a->step, b->step, "%s: the causal step: %lu, started so: %lu", what,
		     (unsigned long)a->step, (unsigned long)b->step);
	cr_assert_eq(a->ideal_down, b->ideal_down, "%s: the ideal down links", what);
}

/* Change dp to fabric f at run time (a fake lcore takes it at its next pass). */
static struct fe_update *
change(struct fe_dp *dp, const struct fabric *f, enum fe_regime r)
{
	const struct fe_fabric fab = fabric_of(r);
	char err[256];
	struct fe_update *u =
		fe_update_build_fabric(dp, f->up, f->down, f->hop, &fab, err, sizeof(err));

	cr_assert_not_null(u, "%s", err);
	fe_update_publish(dp, u);
	fe_dp_poll(dp, 1000);
	cr_assert_eq(fe_update_wait(dp, u, NULL, 1000000000ULL), 0);
	return u;
}

/* The link a case changes: a port's up link, another port's down link, a hop link. */
static struct fe_linkdef *
target(struct fabric *f, enum fe_link_kind k)
{
	return k == FE_LINK_UP ? &f->up[0] : k == FE_LINK_DOWN ? &f->down[1] : &f->hop[1];
}

static void
every_key_of_every_link(enum fe_regime r)
{
	static const char *kind_name[] = {"port up", "port down", "hop link"};
	const char *key, *ex;
	unsigned cases = 0;

	for (unsigned ki = 0; (key = fe_link_param_key(ki, &ex)) != NULL; ki++) {
		cr_assert_not_null(ex, "key %s has no example value to change it to", key);
		for (int k = FE_LINK_UP; k <= FE_LINK_HOP; k++) {
			struct fabric f0, f1;
			struct fe_dp *a, *b;
			struct fe_update *u;
			char err[256], what[160];

			fabric_base(&f0);
			f1 = f0;
			cr_assert_eq(fe_link_param_set(target(&f1, k), key, ex, err, sizeof(err)),
				     0, "%s=%s: %s", key, ex, err);
			snprintf(what, sizeof(what), "%s, %s=%s on a %s", fe_regime_name(r), key,
				 ex, kind_name[k]);
			a = create(&f0, r, &gb[0]);
			u = change(a, &f1, r);
			b = create(&f1, r, &gb[1]);
			same(a, b, what);
			fe_dp_free(a);
			fe_dp_free(b);
			fe_update_free(u);
			cases++;
		}
	}
	cr_assert_geq(cases, 30, "every key of every link: %u cases", cases);
}

/* The fabric's oversubscription, which the receiving NICs' pull rate follows: 1 as the
 * base is (2 hosts a leaf, 2 spines, every link at one rate); 2 with the spines' links
 * to a leaf at half the rate; and a run-time change that makes it so gives every
 * receiving NIC the pull rate that a fabric started so has (and one that undoes it,
 * none). */
Test(derive, the_pull_rate_follows_the_oversubscription)
{
	struct fabric f0, f1;
	struct fe_dp *a, *b;
	struct fe_update *u;
	struct fe_fabric_derived fd;

	uec_rccc = 1;
	fabric_base(&f0);
	f1 = f0;
	for (unsigned h = 0; h < f1.nhop; h++)
		if (h % 2 == 1) /* b > a: spine > leaf (a link is leaf-spine) */
			f1.hop[h].link.rate_bps = 50000000;
	a = create(&f0, FE_REGIME_LOSSY, &gb[0]);
	fe_fabric_derive(a, NULL, NULL, NULL, &fd);
	cr_assert_float_eq(fd.oversub, 1, 1e-9);
	cr_assert_eq(a->ports[1].nic->rccc_rx.occ_ticks, 0, "not oversubscribed: off (auto)");
	u = change(a, &f1, FE_REGIME_LOSSY);
	b = create(&f1, FE_REGIME_LOSSY, &gb[1]);
	fe_fabric_derive(b, NULL, NULL, NULL, &fd);
	cr_assert_float_eq(fd.oversub, 2, 1e-9, "2:1: %g", fd.oversub);
	cr_assert_gt(b->ports[1].nic->rccc_rx.occ_ticks, 0, "oversubscribed: on");
	cr_assert_eq(b->ports[1].nic->rccc_rx.occ_min16, (uint32_t)(0.45 * 65536 + 0.5));
	cr_assert_eq(a->ports[1].nic->rccc_rx.occ_ticks, b->ports[1].nic->rccc_rx.occ_ticks,
		     "the change gave it");
	same(a, b, "spines' links to the leaves at half the rate");
	fe_update_free(u);
	u = change(a, &f0, FE_REGIME_LOSSY);
	cr_assert_eq(a->ports[1].nic->rccc_rx.occ_ticks, 0, "and took it away");
	fe_dp_free(a);
	fe_dp_free(b);
	fe_update_free(u);
	uec_rccc = 0;
}

Test(derive, every_key_of_every_link_uec_rccc)
{
	uec_rccc = 1;
	every_key_of_every_link(FE_REGIME_LOSSY);
	uec_rccc = 0;
}

Test(derive, every_key_of_every_link_lossy)
{
	every_key_of_every_link(FE_REGIME_LOSSY);
}

Test(derive, every_key_of_every_link_pfc)
{
	every_key_of_every_link(FE_REGIME_PFC);
}

Test(derive, every_key_of_every_link_credit)
{
	every_key_of_every_link(FE_REGIME_CREDIT);
}

/*
 * A row holds its lossless state whatever its kind: a port's up link and a link between
 * switches, set up alike (gated, their sender's credits for the fabric's buffer; a down
 * link feeds no switch: neither), take a change of their delay at run time into the
 * same fields of their rows: PFC's delay (the link's and 1 us) and the credits' return
 * (the link's propagation, no receiver's delay), in the state the pass reads.
 */
static void
lossless_rows_follow_a_change(enum fe_regime r)
{
	const unsigned blocks = (64 << 10) / FE_CREDIT_UNIT;
	struct fe_update *u = NULL;
	struct fabric f0, f1;
	unsigned n[2], down;
	struct fe_dp *dp;

	fabric_base(&f0);
	f1 = f0;
	target(&f1, FE_LINK_UP)->link.delay_ns = 30000;
	target(&f1, FE_LINK_HOP)->link.delay_ns = 30000;
	dp = create(&f0, r, &gb[0]);
	n[0] = fe_dp_link_id(dp, FE_LINK_UP, 0);
	n[1] = fe_dp_link_id(dp, FE_LINK_HOP, 1);
	down = fe_dp_link_id(dp, FE_LINK_DOWN, 1);
	cr_assert(!fe_dp_row(dp, down)->l.gated && fe_dp_row(dp, down)->cred.ring == NULL,
		  "%s: a down link feeds no switch: not gated, no credits", fe_regime_name(r));
	for (int changed = 0; changed <= 1; changed++) {
		const uint64_t delay = changed ? 30000 : 10000;

		if (changed)
			u = change(dp, &f1, r);
		for (int k = 0; k < 2; k++) {
			const struct fe_row *row = fe_dp_row(dp, n[k]);
			char name[80], what[160];

			snprintf(what, sizeof(what), "%s, link %s, %s", fe_regime_name(r),
				 fe_dp_link_name(dp, n[k], name, sizeof(name)),
				 changed ? "its delay changed to 30 us" : "as started");
			cr_assert(row->l.gated, "%s: gated", what);
			if (r == FE_REGIME_PFC) {
				cr_assert_eq(row->pfc.cfg.delay_ticks, delay + 1000,
					     "%s: PFC's delay %lu", what,
					     (unsigned long)row->pfc.cfg.delay_ticks);
				continue;
			}
			cr_assert(row->cred.ring != NULL && row->cred.total == blocks &&
					  row->cred.avail[0] == blocks,
				  "%s: its sender's credits, %u of %u blocks", what,
				  row->cred.avail[0], row->cred.total);
			cr_assert_eq(row->cred.return_ticks, delay, "%s: credit return %lu", what,
				     (unsigned long)row->cred.return_ticks);
		}
	}
	fe_dp_free(dp);
	fe_update_free(u);
}

/*
 * Credit messages set at run time (`set credit update=4KiB`): every link's sender, a
 * port's and a switch's, then gets its credits back in messages of 64 blocks, as a
 * fabric started so; set back to 0, each frame's again. Too large: refused, named.
 */
Test(derive, credit_messages_follow_a_change)
{
	struct fabric f;
	struct fe_dp *a, *b;
	struct fe_update *u[2];
	struct fe_fabric big = fabric_of(FE_REGIME_CREDIT);
	char err[256];

	fabric_base(&f);
	a = create(&f, FE_REGIME_CREDIT, &gb[0]);
	cr_assert_eq(fe_dp_row(a, fe_dp_link_id(a, FE_LINK_HOP, 1))->cred.update, 0);
	credit_update_bytes = 4096;
	u[0] = change(a, &f, FE_REGIME_CREDIT);
	b = create(&f, FE_REGIME_CREDIT, &gb[1]);
	cr_assert_eq(fe_dp_row(b, fe_dp_link_id(b, FE_LINK_HOP, 1))->cred.update, 64);
	cr_assert_eq(fe_dp_row(b, fe_dp_link_id(b, FE_LINK_UP, 0))->cred.update, 64);
	same(a, b, "credit update 4 KiB");
	credit_update_bytes = 0;
	u[1] = change(a, &f, FE_REGIME_CREDIT);
	cr_assert_eq(fe_dp_row(a, fe_dp_link_id(a, FE_LINK_HOP, 1))->cred.update, 0,
		     "and back to each frame's");
	/* 64 KiB, frames of up to 2048 B: (1024 - 32 + 1) blocks */
	big.credit.update = 63553;
	cr_assert_null(fe_update_build_fabric(a, f.up, f.down, f.hop, &big, err, sizeof(err)));
	cr_assert_not_null(strstr(err, "credit update 63553 B: at most 63552 B"), "%s", err);
	fe_dp_free(a);
	fe_dp_free(b);
	fe_update_free(u[0]);
	fe_update_free(u[1]);
}

Test(derive, lossless_rows_follow_a_change_pfc)
{
	lossless_rows_follow_a_change(FE_REGIME_PFC);
}

Test(derive, lossless_rows_follow_a_change_credit)
{
	lossless_rows_follow_a_change(FE_REGIME_CREDIT);
}

/*
 * timeout: path: the fabric's round trip (8 links of 10 us, each with a full frame's 123 us
 * at 100 Mbit/s: host, leaf, spine, leaf, host and back) and 6 times the longest drain of
 * any link's full buffer: here 64 frames of 1,538 bytes on the wire at 100 Mbit/s (7.87
 * ms); then a hop link at 10 Mbit/s with 200 frames (246 ms), set at run time, whose
 * frame takes 1,230 us in the round trip instead of 123.
 */
Test(derive, nic_timeout_follows_the_path)
{
	struct fabric f0, f1;
	struct fe_dp *dp;
	struct fe_update *u;
	const uint64_t rtt0 = 8 * (10000 + 1538 * 80), rtt1 = rtt0 + 1538 * 720,
		       drain0 = 64ULL * 1538 * 80, drain1 = 200ULL * 1538 * 800;

	fabric_base(&f0);
	f1 = f0;
	f1.hop[2].link.rate_bps = 10000000;
	f1.hop[2].link.limit_pkts = 200;
	dp = create(&f0, FE_REGIME_LOSSY, &gb[0]);
	cr_assert_eq(dp->ports[0].nic->timeout_ticks, rtt0 + 6 * drain0, "%lu",
		     (unsigned long)dp->ports[0].nic->timeout_ticks);
	u = change(dp, &f1, FE_REGIME_LOSSY);
	for (unsigned i = 0; i < NP; i++)
		cr_assert_eq(dp->ports[i].nic->timeout_ticks, rtt1 + 6 * drain1,
			     "port %u: %lu after the change", i,
			     (unsigned long)dp->ports[i].nic->timeout_ticks);
	fe_dp_free(dp);
	fe_update_free(u);
}

/*
 * The network RTT NSCC and RCCC start from (nic rtt 0) is the fabric's longest round trip,
 * as uet-htsim's network_max_unloaded_rtt: here host, leaf, spine, leaf, host and back,
 * 8 links of 10 us each with a full frame's 123.04 us at 100 Mbit/s; one link between
 * switches 40 us longer, at run time as started so, adds its 40 us (the routes' longest
 * way each way).
 */
Test(derive, the_nics_rtt_is_the_fabrics_longest_round_trip)
{
	const uint64_t link = 10000 + 1538 * 80, rtt0 = 8 * link, rtt1 = rtt0 + 40000;
	struct fabric f0, f1;
	struct fe_dp *a, *b;
	struct fe_update *u;

	uec_rccc = 1;
	fabric_base(&f0);
	f1 = f0;
	f1.hop[2].link.delay_ns = 50000;
	a = create(&f0, FE_REGIME_LOSSY, &gb[0]);
	for (unsigned i = 0; i < NP; i++) {
		cr_assert_eq(a->ports[i].nic->nscc.net_rtt, rtt0, "port %u: NSCC's RTT %lu", i,
			     (unsigned long)a->ports[i].nic->nscc.net_rtt);
		cr_assert_eq(a->ports[i].nic->nscc.target, rtt0 * 3 / 4, "port %u: its target", i);
	}
	u = change(a, &f1, FE_REGIME_LOSSY);
	b = create(&f1, FE_REGIME_LOSSY, &gb[1]);
	for (unsigned i = 0; i < NP; i++) {
		cr_assert_eq(b->ports[i].nic->nscc.net_rtt, rtt1, "port %u: started so, %lu", i,
			     (unsigned long)b->ports[i].nic->nscc.net_rtt);
		cr_assert_eq(a->ports[i].nic->nscc.net_rtt, rtt1, "port %u: changed, %lu", i,
			     (unsigned long)a->ports[i].nic->nscc.net_rtt);
	}
	same(a, b, "a link between switches 40 us longer");
	fe_dp_free(a);
	fe_dp_free(b);
	fe_update_free(u);
	uec_rccc = 0;
}

/*
 * A UEC profile's NICs time out only after SLEEK's probes had their chance: a lost tail
 * is probed FE_NIC_PROBE_FIRST base RTTs after the last ACK, a lost probe tried again
 * FE_NIC_PROBE_RETRY later, and its answer takes a round trip; the timeout must come
 * after all that at every scale the campaigns run the profiles (uec-loss and uec-fail at
 * 4000, uec-htsim at 16000), where the probes' round trips are dilated. (With a fixed
 * 67 ms timeout the retry's answer came after it at 4000: uec-loss's 30 timeouts,
 * docs/uec.md.)
 */
Test(derive, a_uec_profiles_timeout_waits_for_its_probes)
{
	static const char *const names[] = {"uec", "uec-lossless"};
	static const uint32_t scales[] = {1, 4000, 16000};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
			struct fe_dp *dp = create_profile(names[i], scales[s], &gb[0]);

			for (unsigned p = 0; p < NP; p++) {
				const struct fe_nicport *n = dp->ports[p].nic;
				uint64_t probes = (FE_NIC_PROBE_FIRST + FE_NIC_PROBE_RETRY + 1) *
						  n->nscc.net_rtt;

				cr_assert(n->nscc.net_rtt > 0, "%s: NSCC's RTT", names[i]);
				cr_assert_gt(n->timeout_ticks, probes,
					     "%s at scale %u, port %u: the timeout %lu ns comes "
					     "before a lost probe's retry is answered (%lu ns)",
					     names[i], scales[s], p,
					     (unsigned long)n->timeout_ticks,
					     (unsigned long)probes);
			}
			fe_dp_free(dp);
		}
}
