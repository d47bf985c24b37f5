/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What fabemu-dp says at start (fe_banner.h): the banner, and the warnings of settings
 * that defeat their purpose, PFC's headroom analysis among them.
 */
#include <inttypes.h>
#include <stdio.h>

#include <rte_lcore.h>

#include "fe_banner.h"
#include "fe_derive.h"
#include "fe_graph.h"
#include "fe_kernel.h"
#include "fe_report.h"
#include "fe_topo.h"
#include "fe_units.h"

void
fe_banner_print(const struct fe_dp *dp, const struct fe_opts *o)
{
	const struct fe_link_params *lp;
	char name[32], r[32], t[32], imp[512];

	printf("fabemu-dp %s: %u ports, TSC %.3f GHz, lcore %u, idle sleep up to %" PRIu64
	       " ns, seed %" PRIu64 ", switch buffer %" PRIu64 " B\n",
	       FE_VERSION, dp->nports, (double)dp->hz / 1e9, rte_lcore_id(), dp->conf.idle_sleep_ns,
	       dp->conf.seed, dp->conf.switch_buffer);
	printf("  regime %s, %u lane%s", fe_regime_name(dp->conf.regime), dp->conf.lanes,
	       dp->conf.lanes > 1 ? "s" : "");
	if (dp->conf.regime == FE_REGIME_CREDIT && dp->nports)
		printf(" of %u credits of %u B", dp->ports[0].up.cred.total,
		       dp->ports[0].up.cred.unit.bytes);
	printf(", nic %s", fe_nic_model_name(dp->conf.nic.model));
	if (dp->topology)
		printf(", topology %s: %u switches, %u links between them, path %s", o->topology,
		       dp->graph->nsw, dp->graph->nhl / 2, fe_path_name(dp->graph->path));
	if (dp->conf.nic.model != FE_NIC_TCP)
		printf(" (%s, congestion control %s)",
		       fe_nic_recovery_name(fe_nic_recovery(&dp->conf.nic)),
		       fe_nic_cc_name(fe_nic_cc(&dp->conf.nic)));
	printf("\n");
	if (o->profile)
		printf("  profile %s, scale %" PRIu64 "\n", o->profile, o->scale);
	if (o->realtime)
		printf("  lcore SCHED_FIFO, priority %d (--realtime)\n", (int)o->realtime);
	if (o->control || o->control_tcp)
		printf("  control %s%s%s\n", o->control ? o->control : "",
		       o->control_tcp ? " tcp " : "", o->control_tcp ? o->control_tcp : "");
	for (unsigned i = 0; i < dp->nports; i++)
		printf("  port %u: %s\n", i, dp->ports[i].name);
	for (unsigned n = 0; n < fe_dp_port_links(dp); n++) {
		fe_report_link(dp, n, &lp, name, sizeof(name));
		printf("  link %-7s rate %-10s delay %-8s buffer %" PRIu64 " B / %u pkts%s\n", name,
		       fe_fmt_rate(lp->rate_bps, r, sizeof(r)),
		       fe_fmt_time(lp->delay_ns, t, sizeof(t)), lp->limit_bytes, lp->limit_pkts,
		       fe_report_impairments(fe_report_linkdef(dp, n), imp, sizeof(imp)));
	}
	for (unsigned h = 0; dp->graph != NULL && h < dp->graph->nhl; h++) {
		const struct fe_linkdef *d = &dp->desc.hop[h]; /* a link between switches */
		char hop[96];

		printf("  link %-7s rate %-10s delay %-8s buffer %" PRIu64 " B / %u pkts%s\n",
		       fe_dp_link_name(dp, fe_dp_link_id(dp, FE_LINK_HOP, h), hop, sizeof(hop)),
		       fe_fmt_rate(d->link.rate_bps, r, sizeof(r)),
		       fe_fmt_time(d->link.delay_ns, t, sizeof(t)), d->link.limit_bytes,
		       d->link.limit_pkts, fe_report_impairments(d, imp, sizeof(imp)));
	}
	fflush(stdout);
}

/*
 * The kernel's ring in front of a port holds what a host sends while the dataplane has
 * not read it yet: in a lossless regime, everything the host adapter queue (the up link)
 * is full for. A ring shorter than the up link's buffer loses at the edge what the
 * emulated buffer would have held: say so, and what to pass.
 */
static void
warn_rings(const struct fe_dp *dp)
{
	for (unsigned i = 0; i < dp->nports; i++) {
		const struct fe_link_params *l = &dp->desc.up[i].link;
		uint64_t frames = l->limit_pkts ? l->limit_pkts : UINT64_MAX;
		struct fe_kernel_port k;

		if (l->limit_bytes)
			frames = RTE_MIN(frames, (l->limit_bytes + 1513) / 1514);
		fe_kernel_read(fe_report_kernel(), i, &k);
		if (k.ring_frames == 0 || frames == UINT64_MAX || k.ring_frames >= frames)
			continue;
		if (k.kind == FE_KPORT_AF_PACKET)
			fprintf(stderr,
				"fabemu-dp: warning: port %u (%s): its AF_PACKET ring holds %u "
				"frames, less than link %u.up's buffer (%" PRIu64
				" full-sized frames): bursts the emulated buffer would hold are "
				"lost at the edge. Pass framecnt=%" PRIu64
				" in its --vdev (testbeds/veth.sh vdevs --ring N does).\n",
				i, k.iface, k.ring_frames, i, frames,
				RTE_MIN(RTE_MAX(frames, (uint64_t)16384), (uint64_t)262144));
		else
			fprintf(stderr,
				"fabemu-dp: warning: port %u (%s): its AF_XDP ring holds %u "
				"frames, "
				"less than link %u.up's buffer (%" PRIu64
				" full-sized frames): bursts the emulated buffer would hold are "
				"lost at the edge. Pass --rxd 2048 (this PMD's fill ring holds "
				"2048 at most), or use AF_PACKET with framecnt=16384.\n",
				i, k.iface, k.ring_frames, i, frames);
	}
}

/*
 * PFC is lossless only if each egress queue can take what the inputs routed to it may
 * send it before their pauses act: each input's XOFF + headroom, in bytes, and in
 * frames of the smallest size. What input i (a port, or past the ports a link between
 * switches: fe_graph.h) may hold, all lanes:
 */
static uint64_t
pfc_may_hold(const struct fe_dp *dp, unsigned i)
{
	const struct fe_pfc *p =
		i < dp->nports ? &dp->ports[i].up.pfc : &dp->graph->hl[i - dp->nports].row.pfc;

	return (uint64_t)dp->conf.lanes * (p->cfg.xoff + p->cfg.headroom);
}

/* The switch input i enters. */
static unsigned
input_switch(const struct fe_dp *dp, unsigned i)
{
	return i < dp->nports ? dp->graph->port_sw[i] : dp->graph->hl[i - dp->nports].to;
}

/* Link h between switches is a next hop from switch s toward switch d (the routes). */
static int
next_hop(const struct fe_graph *g, unsigned s, unsigned d, unsigned h)
{
	for (unsigned k = 0; k < g->nnh[s][d]; k++)
		if (g->nh[s][d][k] == h)
			return 1;
	return 0;
}

/*
 * Frames that come in by input i may leave by egress e (a port's down link, e < nports,
 * or link between switches e - nports), both of one switch: on one switch, any input but
 * the port's own; on several, those the routes send that way for some switch's hosts
 * (hosts: bit d set for switch d with a host).
 */
static int
feeds(const struct fe_dp *dp, uint64_t hosts, unsigned i, unsigned e)
{
	const struct fe_graph *g = dp->graph;
	const unsigned x = input_switch(dp, i);

	if (i == e)
		return 0;
	for (unsigned d = 0; d < g->nsw; d++) {
		if (!(hosts >> d & 1))
			continue;
		/* frames for d's hosts come in by i ... */
		if (i >= dp->nports && !next_hop(g, g->hl[i - dp->nports].from, d, i - dp->nports))
			continue;
		/* ... and leave by e: to a host here, or on toward d */
		if (e < dp->nports ? d == x : d != x && next_hop(g, x, d, e - dp->nports))
			return 1;
	}
	return 0;
}

static void
warn_pfc_egress(const struct fe_dp *dp)
{
	const unsigned nin = dp->nports + dp->graph->nhl;
	unsigned nshort = 0;
	char first[200] = "", name[96];
	uint64_t hosts = 0; /* the switches with a host */

	RTE_BUILD_BUG_ON(FE_TOPO_SWITCH > 64);
	for (unsigned p = 0; p < dp->nports; p++)
		hosts |= UINT64_C(1) << dp->graph->port_sw[p];

	/* egress e: a port's down link (e < nports), or link between switches e - nports
	 * from its switch; the inputs of that switch that may send to it */
	for (unsigned e = 0; e < nin; e++) {
		const unsigned n = e < dp->nports ? fe_dp_link_id(dp, FE_LINK_DOWN, e)
						  : fe_dp_link_id(dp, FE_LINK_HOP, e - dp->nports);
		const struct fe_link *l = &fe_dp_row(dp, n)->l;
		const unsigned x =
			e < dp->nports ? input_switch(dp, e) : dp->graph->hl[e - dp->nports].from;
		uint64_t need = 0;

		for (unsigned i = 0; i < nin; i++)
			if (input_switch(dp, i) == x && feeds(dp, hosts, i, e))
				need += pfc_may_hold(dp, i);
		if (l->cfg.max_bytes >= need &&
		    (uint64_t)l->cfg.max_pkts * FE_WIRE_MIN_FRAME >= need)
			continue;
		if (nshort++ > 0)
			continue;
		fe_dp_link_name(dp, n, name, sizeof(name));
		if (l->cfg.max_bytes < need)
			snprintf(first, sizeof(first), "%s, %" PRIu64 " B against %" PRIu64 " B",
				 name, l->cfg.max_bytes, need);
		else
			snprintf(first, sizeof(first),
				 "%s, %" PRIu32 " packets against %" PRIu64 " of %u B", name,
				 l->cfg.max_pkts, need / FE_WIRE_MIN_FRAME, FE_WIRE_MIN_FRAME);
	}
	if (nshort)
		fprintf(stderr,
			"fabemu-dp: warning: PFC: %u egress link(s) hold less than the inputs "
			"routed "
			"to them may send before their pauses act (xoff + headroom each, lanes "
			"times): the first, %s; tail drops remain possible there "
			"(docs/regimes.md)\n",
			nshort, first);
}

/*
 * The edge pause of each port that has it (fe_wire, docs/inline.md): its thresholds, and
 * a warning where the receive ring and the adapter queue cannot hold what a host at the
 * port's speed sends before its pause acts.
 */
static void
print_edge_pause(const struct fe_dp *dp)
{
	for (unsigned i = 0; i < dp->nports; i++) {
		const struct fe_port *p = &dp->ports[i];
		const struct fe_pfc_cfg *c = &p->epause.cfg;
		uint64_t bps, need, xoff_room;

		if (c->quanta == 0)
			continue;
		bps = fe_epause_bps(&p->wire, &dp->desc.up[i].link); /* its quanta's */
		need = fe_epause_inflight(bps);
		xoff_room = FE_EPAUSE_ROOM - c->xoff;
		printf("fabemu-dp: port %u: edge pause: XOFF at %" PRIu64
		       " frames of room in its adapter queue, XON at %" PRIu64
		       "; %u quanta (%.1f us at %.0f Gbit/s), refreshed every %.1f us\n",
		       i, xoff_room, FE_EPAUSE_ROOM - c->xon, c->quanta,
		       (double)c->quanta * 512 * 1e6 / (double)bps, (double)bps / 1e9,
		       (double)c->refresh_ticks * 1e6 / (double)dp->hz);
		if (fe_epause_holds(&p->wire, xoff_room) < need)
			fprintf(stderr,
				"fabemu-dp: warning: port %u: a host at %.0f Gbit/s sends up to "
				"%" PRIu64 " frames of 64 B in the %u us its pause takes to act; "
				"three quarters of the receive ring (%u descriptors) and the "
				"%" PRIu64 " frames of room left at XOFF hold %" PRIu64
				": frames may be lost at the box's NIC (counted: imissed). Raise "
				"--rxd, or link %u.up's buffer-pkts\n",
				i, (double)bps / 1e9, need, FE_EPAUSE_REACT_NS / 1000, p->wire.rxd,
				xoff_room, fe_epause_holds(&p->wire, xoff_room), i);
	}
	fflush(stdout);
}

/* Credits: a lane's buffer that holds less than the largest frame a port brings takes
 * (rounded up to blocks): a frame that large waits for credits for good. */
static void
warn_credit_buffer(const struct fe_dp *dp)
{
	const struct fe_credit *c = &dp->ports[0].up.cred;
	const uint32_t need = fe_credit_blocks(&c->unit, dp->max_frame);

	if (dp->nports && c->total < need)
		fprintf(stderr,
			"fabemu-dp: warning: credit: a lane's buffer holds %u blocks of %u B, "
			"fewer than a frame of up to %u B takes (%u): a frame above %" PRIu64
			" B can never be sent, and its sender waits for good (docs/regimes.md)\n",
			c->total, c->unit.bytes, dp->max_frame, need,
			(uint64_t)c->total * c->unit.bytes);
}

void
fe_banner_warn(const struct fe_dp *dp)
{
	uint64_t need = 0;

	warn_rings(dp);
	print_edge_pause(dp);
	if (dp->conf.regime == FE_REGIME_PFC)
		warn_pfc_egress(dp);
	if (dp->conf.regime == FE_REGIME_CREDIT)
		warn_credit_buffer(dp);
	if (dp->conf.regime != FE_REGIME_PFC || dp->conf.switch_buffer == 0)
		return;
	for (unsigned i = 0; i < dp->nports; i++)
		need += dp->conf.lanes *
			(dp->ports[i].up.pfc.cfg.xoff + dp->ports[i].up.pfc.cfg.headroom);
	if (dp->conf.switch_buffer < need)
		fprintf(stderr,
			"fabemu-dp: warning: switch buffer %" PRIu64 " B < ports x lanes x (xoff + "
			"headroom) = %" PRIu64 " B: PFC cannot prevent shared-buffer drops\n",
			dp->conf.switch_buffer, need);
}
