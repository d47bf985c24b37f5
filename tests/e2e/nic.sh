#!/usr/bin/env bash
# The emulated NICs (docs/nic.md), end to end: a real MPI all-reduce (1 MiB, 3 hosts,
# TCP with ECN asked for) through a fabric whose egress to host 3 is slower than the rest.
#  - the shipped roce-pfc-ecn (PFC, ECN marking at the switch's egress, RoCE NICs) at
#    scale 400 (1 Gbit/s, 160 us a link), host 3's link at 300 Mbit/s: the fabric marks,
#    the receiving NICs consume every mark (no CE reaches a host) and send CNPs that slow
#    the senders (DCQCN); no host retransmits or times out. The same fabric with model=tcp is the control: CE
#    reaches the hosts there.
#  - credits with FECN marking and InfiniBand HCAs running InfiniBand CC: a BECN back for
#    every FECN, the senders slowed by the congestion control table, no CE at a host.
#  - 0.1% random loss on every link with RoCE NICs, go-back-N and then selective repeat:
#    the NICs resend what the fabric lost (go-back-N everything after it, selective the
#    frame alone) and no host retransmits. The same with model=tcp is the control: the
#    hosts' TCP retransmits there.
# Every run has its frames accounted for (nothing unexplained, nothing lost at the edge),
# and the campaign's NIC figures (campaign.json, summary.csv, the table) are the
# dataplane's counters.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init nic
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"

# InfiniBand: credits, the switch marks FECN (here: CE) at its egress, InfiniBand CC
cat >"$T/ib.yaml" <<'Y'
name: t-ib-cc
regime: credit
nic: {model: ib, cc: ib}
link: {rate: 1Gbit, delay: 20us}
links:
  - {select: down, ecn: {kmin: 1500B, kmax: 1500B, pmax: 100%, non-ect: pass}}  # out: 2 frames
  - {select: 2.down, rate: 300Mbit}
Y
# a NIC timeout far below TCP's 200 ms minimum RTO: a lost tail costs the hosts 2 ms
cat >"$T/loss.yaml" <<'Y'
name: t-roce-loss
regime: lossy
nic: {model: roce, cc: "off", timeout: 2ms}
link: {rate: 1Gbit, delay: 20us, loss: 0.1%}
Y
cat >"$T/nic.yaml" <<Y
name: t-nic
hosts: 3
seed: 7
fidelity: {capacity: false}
job: {kind: allreduce, sizes: [1MiB], iterations: 10, warmup: 1}
regimes:
  - {name: roce, profile: roce-pfc-ecn, scale: 400, links: ["2.down:rate=300Mbit"]}
  - {name: roce-as-tcp, profile: roce-pfc-ecn, scale: 400, links: ["2.down:rate=300Mbit"],
     nic: model=tcp}
  - {name: ib-cc, profile: $T/ib.yaml}
  - {name: loss-gbn, profile: $T/loss.yaml}
  - {name: loss-sel, profile: $T/loss.yaml, nic: recovery=selective}
  - {name: loss-as-tcp, profile: $T/loss.yaml, nic: model=tcp}
Y
"$CTL" campaign run "$T/nic.yaml" --out "$T/c" >"$T/c.out" 2>&1 || { cat "$T/c.out"; fe_fail "campaign failed"; }
sed -n '/^network, per run/,/^$/p; /^NICs, per run/,/^$/p' "$T/c.out" | sed 's/^/  /'

python3 - "$T/c" <<'PY' || fe_fail "the NICs did not do what they are for"
import csv, json, sys

out = sys.argv[1]
camp = json.load(open(out + "/campaign.json"))
rows = {r["regime"]: r for r in csv.DictReader(open(out + "/summary.csv"))}
text = open(out + "/../c.out").read()
runs = {r["regime"]: r for r in camp["runs"]}

def port_sum(run, key):
    return sum(p.get(key, 0) for p in run["counters"]["ports"])

for name, run in runs.items():
    tcp = run["tcp"]
    ce = sum(h["ce_received"] for h in tcp)
    retrans = sum(h["real_retrans"] for h in tcp)
    rtos = sum(h["timeouts"] for h in tcp)
    marks = sum(l["ecn_marked"] for l in run["links"])
    drops = sum(l["drops"] for l in run["links"])
    nic = run["nic"]
    print("  %-12s nic %-4s marks %5d  CE at hosts %5d  CE consumed %5d  CNPs %4d  "
          "drops %4d  resent %4d  host retrans %3d  RTOs %d"
          % (name, nic["model"], marks, ce, nic["ce_consumed"], nic["cnp_sent"], drops,
             nic["resent_pkts"], retrans, rtos))
    # every frame accounted for, NIC or not
    assert run["unexplained"] == 0 and run["edge_lost"] == 0, (name, run["verdict"])
    # the campaign's NIC figures are the dataplane's counters
    for key in ("ce_consumed", "cnp_sent", "cnp_recv", "resent_pkts", "naks_sent",
                "timeouts", "oos_discards", "held_pkts"):
        assert nic[key] == port_sum(run, "nic_" + key), (name, key)
    # the NIC's side of conservation (docs/nic.md), port by port, the job over
    links = {l["link"]: l for l in run["counters"]["links"]}
    for p in run["counters"]["ports"]:
        up, down = links["%d.up" % p["port"]], links["%d.down" % p["port"]]
        sent = p.get("nic_cnp_sent", 0) + p.get("nic_acks_sent", 0) + p.get("nic_naks_sent", 0)
        eaten = p.get("nic_cnp_recv", 0) + p.get("nic_acks_recv", 0) + p.get("nic_naks_recv", 0)
        assert up["in_pkts"] == p["rx_pkts"] + p.get("nic_resent_pkts", 0) + sent, (name, p, up)
        assert down["out_pkts"] == p["tx_pkts"] + p.get("nic_oos_discards", 0) + \
            p.get("nic_dup_discards", 0) + p.get("nic_stray", 0) + p.get("nic_edge_drops", 0) + \
            eaten, (name, p, down)
    row = rows[name]
    assert row["nic"] == nic["model"] and int(row["nic_resent"]) == nic["resent_pkts"], row
    assert int(row["nic_ce_consumed"]) == nic["ce_consumed"], row

r = runs["roce"]
assert sum(l["ecn_marked"] for l in r["links"]) > 0, "the fabric marked nothing: no test"
assert sum(h["ce_received"] for h in r["tcp"]) == 0, "CE reached a host through a RoCE NIC"
assert r["nic"]["ce_consumed"] > 0 and r["nic"]["cnp_sent"] > 0, r["nic"]
assert r["nic"]["cnp_recv"] > 0 and r["nic"]["rate_min_bps"] < 10**9, r["nic"]
flows = [f for p in r["counters"]["ports"] for f in p["flows"]]
assert flows and all(f["src"].startswith("198.18.") for f in flows), flows
cut = [f for f in flows if f["rate_min_bps"] > 0]
assert cut and min(f["rate_min_bps"] for f in cut) == r["nic"]["rate_min_bps"], \
    "the lowest flow's rate is the run's"
assert r["nic"]["ce_consumed"] == sum(l["ecn_marked"] for l in r["links"]), \
    "every mark the fabric made was consumed by a NIC"
assert sum(h["real_retrans"] for h in r["tcp"]) == 0, "a host retransmitted under PFC + RoCE"
assert sum(h["timeouts"] for h in r["tcp"]) == 0, "a host timed out under PFC + RoCE"
assert runs["roce-as-tcp"]["nic"]["model"] == "tcp"
assert sum(h["ce_received"] for h in runs["roce-as-tcp"]["tcp"]) > 0, \
    "the control: without the NIC CE reaches the hosts"

r = runs["ib-cc"]
assert r["nic"]["model"] == "ib" and r["nic"]["cc"] == "ib", r["nic"]
assert sum(l["ecn_marked"] for l in r["links"]) > 0, "the switch marked no FECN: no test"
assert sum(h["ce_received"] for h in r["tcp"]) == 0, "FECN reached a host through an HCA"
assert r["nic"]["cnp_sent"] == r["nic"]["ce_consumed"] > 0, "a BECN for every FECN"
assert r["nic"]["rate_min_bps"] < 10**9, "InfiniBand CC slowed no flow"
assert sum(h["real_retrans"] for h in r["tcp"]) == 0 and sum(l["drops"] for l in r["links"]) == 0

for name, rec in (("loss-gbn", "go-back-n"), ("loss-sel", "selective")):
    r = runs[name]
    assert r["nic"]["recovery"] == rec, r["nic"]
    assert sum(l["drops"] for l in r["links"]) > 0, "no loss: no test"
    assert r["nic"]["resent_pkts"] > 0, (name, r["nic"])
    assert sum(h["real_retrans"] for h in r["tcp"]) == 0, "%s: a host retransmitted" % name
    assert sum(h["timeouts"] for h in r["tcp"]) == 0, "%s: a host timed out" % name
assert runs["loss-sel"]["nic"]["held_pkts"] > 0 and runs["loss-sel"]["nic"]["oos_discards"] == 0
assert runs["loss-gbn"]["nic"]["oos_discards"] > 0 and runs["loss-gbn"]["nic"]["held_pkts"] == 0
assert sum(h["real_retrans"] for h in runs["loss-as-tcp"]["tcp"]) > 0, \
    "the control: without the NIC the hosts' TCP recovers the losses"
nics = text.split("NICs, per run", 1)[1].split("\n\n", 1)[0]
line = next(l for l in nics.splitlines() if l.startswith("loss-gbn "))
assert int(line.split()[5]) == runs["loss-gbn"]["nic"]["resent_pkts"], line
print("  ok   no CE and no retransmission reached the hosts through RoCE NICs; both did "
      "without them")
PY
echo "nic: passed"
