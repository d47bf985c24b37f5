#!/usr/bin/env bash
# The counters contract, end to end: a real dataplane driven into PFC pauses and credit
# stalls by an incast (hosts 1 and 2 send to host 3 through a slow egress), and the
# campaign's figures checked against what the dataplane itself wrote at exit
# (--stats-json, read here by this script's own code): the pause frames, the time
# paused and the credit stall in campaign.json, summary.csv and the printed table; the
# lateness merged over the links; every port's frames from both ends of its veth. Then
# a deliberately small AF_PACKET ring: fabemu-dp warns at start, the edge losses are
# counted, and the run is flagged distorted.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init counters
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"

# PFC that pauses early, and credits that run out: 1 Gbit/s hosts into a 200 Mbit/s
# egress at host 3
cat >"$T/pfc.yaml" <<'Y'
name: t-pfc
regime: pfc
pfc: {xoff: 32KiB, xon: 24KiB}
link: {rate: 1Gbit, delay: 20us}
links:
  - {select: 2.down, rate: 200Mbit}
Y
cat >"$T/credit.yaml" <<'Y'
name: t-credit
regime: credit
credit: {buffer: 16KiB, out: 2}
link: {rate: 1Gbit, delay: 20us}
links:
  - {select: 2.down, rate: 200Mbit}
Y
cat >"$T/contract.yaml" <<Y
name: t-contract
hosts: 3
fidelity: {capacity: false}
job: {kind: command, command: "sleep 3"}
beside:
  - {host: 3, command: "iperf3 -s -p 5401 & iperf3 -s -p 5402 & wait"}
  - {host: 1, command: "iperf3 -c 198.18.0.3 -p 5401 -t 600"}
  - {host: 2, command: "iperf3 -c 198.18.0.3 -p 5402 -t 600"}
regimes:
  - {name: pfc, profile: $T/pfc.yaml}
  - {name: credit, profile: $T/credit.yaml}
Y
"$CTL" campaign run "$T/contract.yaml" --out "$T/c" >"$T/c.out" 2>&1 || { cat "$T/c.out"; fe_fail "campaign failed"; }
sed -n '/^network, per run/,/^$/p' "$T/c.out" | sed 's/^/  /'

python3 - "$T/c" <<'PY' || fe_fail "the campaign's figures are not the dataplane's"
import csv, json, sys

out = sys.argv[1]
camp = json.load(open(out + "/campaign.json"))
rows = {r["regime"]: r for r in csv.DictReader(open(out + "/summary.csv"))}
ports_csv = list(csv.DictReader(open(out + "/ports.csv")))
text = open(out + "/../c.out").read()

def lower(i):  # the quarter-octave buckets of dataplane/models/fe_qhist.h
    return i if i < 8 else (4 + i % 4) << (i // 4 - 1)

def report(i):  # 0..7 exact, above the bucket's upper bound
    return i if i < 8 else (5 + i % 4) << (i // 4 - 1)

def p99(h):  # nearest rank
    n = sum(h)
    rank = max(1, -(-99 * n // 100))
    seen = 0
    for i, c in enumerate(h):
        seen += c
        if seen >= rank:
            return report(i)

for regime, key, want in (("pfc", "pause_frames", "pauses"), ("credit", "stall_ns", "stall")):
    run = next(r for r in camp["runs"] if r["regime"] == regime)
    # what fabemu-dp answered when the job was over (run["counters"]), and its own
    # document at exit (the hosts idle by then: the same counts, or more)
    dp = run["counters"]
    final = json.load(open("%s/logs/dp-%s-1.json" % (out, regime)))
    lanes = dp["lane_counters"]
    assert dp["regime"] == regime and final["regime"] == regime and lanes, regime
    pauses = sum(l.get("pause_frames", 0) for l in lanes)
    paused = sum(l.get("paused_ns", 0) for l in lanes)
    stall = sum(l.get("stall_ns", 0) for l in lanes)
    fl = final["lane_counters"]
    assert sum(l.get("pause_frames", 0) for l in fl) >= pauses and \
        sum(l.get("stall_ns", 0) for l in fl) >= stall, "the counts went backwards"
    for a, b in zip(dp["ports"], final["ports"]):
        assert b["rx_pkts"] >= a["rx_pkts"] and b["tx_pkts"] >= a["tx_pkts"], (a, b)
    print("  %-6s dataplane: %d pause frames, %.3f ms paused, %.3f ms credit stall"
          % (regime, pauses, paused / 1e6, stall / 1e6))
    # the figure the regime is about is real, not a 0 that can be nothing else
    assert (pauses if regime == "pfc" else stall) > 0, "%s: no %s at all" % (regime, want)
    # campaign.json carries the dataplane's numbers
    assert run["pause_frames"] == pauses, (run["pause_frames"], pauses)
    assert run["paused_ns"] == paused, (run["paused_ns"], paused)
    assert run["credit_stall_ns"] == stall, (run["credit_stall_ns"], stall)
    # summary.csv
    row = rows[regime]
    assert int(row["pause_frames"]) == pauses, row
    assert abs(float(row["paused_ms"]) - paused / 1e6) < 0.001, row
    assert abs(float(row["credit_stall_ms"]) - stall / 1e6) < 0.001, row
    # the printed table: pauses, paused ms, stall ms on the regime's line
    net = text.split("network, per run", 1)[1].split("\n\n", 1)[0]
    line = next(l for l in net.splitlines() if l.startswith(regime + " "))
    f = line.split()
    assert int(f[7]) == pauses and abs(float(f[8]) - paused / 1e6) < 0.05 \
        and abs(float(f[9]) - stall / 1e6) < 0.05, (line, pauses, paused, stall)
    # lateness: the dataplane's histograms, merged over its links, as the campaign has it
    merged = [sum(l["late_hist_ns"][i] for l in dp["links"]) for i in range(len(dp["links"][0]["late_hist_ns"]))]
    assert merged == run["lateness"]["hist_ns"], "lateness histogram"
    assert run["lateness"]["p99_ns"] == p99(merged), (run["lateness"]["p99_ns"], p99(merged))
    assert abs(float(row["late_p99_us"]) - p99(merged) / 1000) < 0.001, row
    # every port's frames: the dataplane's counts are the campaign's, and from the hosts'
    # side nothing went missing (no edge loss, nothing unexplained)
    for p in dp["ports"]:
        c = next(x for x in ports_csv if x["regime"] == regime and int(x["port"]) == p["port"])
        assert int(c["rx_pkts"]) == p["rx_pkts"] and int(c["tx_pkts"]) == p["tx_pkts"], (c, p)
        assert int(c["in_unexplained"]) == 0 and int(c["out_unexplained"]) == 0, c
        assert p["kernel"]["rx_unexplained"] == 0 and p["kernel"]["tx_unexplained"] == 0, p
    assert run["edge_lost"] == 0 and run["unexplained"] == 0, run["verdict"]
print("  ok   pauses, paused time, credit stall, lateness and the ports: the same numbers in "
      "the dataplane's document, campaign.json, summary.csv, ports.csv and the table")
PY

echo "a 64-frame AF_PACKET ring: warned at start, edge losses counted, the run flagged"
# the dataplane sleeping up to 1 ms when idle (cores shared): TCP's bursts overflow the
# ring meanwhile, whatever the machine's speed
cat >"$T/ring.yaml" <<'Y'
name: t-ring
hosts: 2
ring: 64
cores: shared
dataplane: "--idle-sleep 1ms"
fidelity: {capacity: false}
job: {kind: command, command: "iperf3 -c 198.18.0.2 -p 5403 -t 2 >/dev/null"}
beside:
  - {host: 2, command: "iperf3 -s -p 5403"}
regimes:
  - {name: ideal, profile: ideal}
Y
"$CTL" campaign run "$T/ring.yaml" --out "$T/r" >"$T/r.out" 2>&1 || { cat "$T/r.out"; fe_fail "campaign failed"; }
grep -q "warning: port 0 .*AF_PACKET ring holds 64 frames.*framecnt=" "$T/r/logs/dp-ideal-1.log" ||
	fe_fail "no ring warning: $(cat "$T/r/logs/dp-ideal-1.log")"
echo "  ok   fabemu-dp: $(grep -m1 -o 'warning: port 0.*frames, less than[^:]*' "$T/r/logs/dp-ideal-1.log")"
python3 - "$T/r" <<'PY' || fe_fail "small ring"
import json, sys
d = json.load(open(sys.argv[1] + "/campaign.json"))
run = d["runs"][0]
dp = json.load(open(sys.argv[1] + "/logs/dp-ideal-1.json"))
lost = sum(p["kernel"]["rx_lost"] for p in dp["ports"])
print("  lost at the edge: %d (dataplane), %d (campaign); verdict: %s" % (lost, run["edge_lost"], run["verdict"][:90]))
assert lost > 0, "the ring lost nothing"
assert run["edge_lost"] >= lost, (run["edge_lost"], lost)
assert run["unexplained"] == 0, run["ports"]
assert run["verdict"].startswith("distorted: ") and "lost at the edge" in run["verdict"], run["verdict"]
PY
grep -q '^  ideal .*distorted: .* frames lost at the edge' "$T/r.out" || fe_fail "the printed verdict"
echo "the kernel side and the box's own delays, in the table, telemetry and Prometheus"
for pmd in af_packet af_xdp; do
	fe_hosts ctr 2
	# busy-polling, so that a task beside it on core 0 takes half of it
	fe_dp_start $(fe_eal) $(fe_vdevs $pmd) -- --rate 100Mbit --delay 200us --idle-sleep 0s
	# the window: from a reset while the hosts are quiet (a frame the hosts sent while
	# the ports opened may be in a ring at the start, counted by the interface before)
	fe_ctl reset >/dev/null
	fe_ns 1 ping -q -c 20 -i 0.01 198.18.0.2 >/dev/null
	taskset -c 0 timeout 0.5 sh -c 'while :; do :; done' || true
	fe_ctl -j counters >"$T/c.json"
	fe_ctl counters >"$T/c.txt"
	fe_ctl prometheus >"$T/p.txt"
	printf '/fabemu/port,0\n/fabemu/link,1.down\n/fabemu/switch\n' | dpdk-telemetry.py -f "fe-$FE_SELF" >"$T/t.out"
	python3 - "$T" $pmd <<'PY' || fe_fail "$pmd: the kernel side"
import json, re, sys
T, pmd = sys.argv[1], sys.argv[2]
d = json.load(open(T + "/c.json"))
p0 = d["ports"][0]
k = p0["kernel"]
assert k["kind"] == pmd and k["iface"] == "ctr-h1", k
# every frame the host sent reached the dataplane (ping and its neighbour discovery)
assert k["if_rx_packets"] >= 20 and k["rx_unexplained"] == 0 and k["tx_unexplained"] == 0, k
w = p0["edge_wait"]
assert w["source"] == ("kernel" if pmd == "af_packet" else "none"), w
if pmd == "af_packet":
    assert w["stamped"] >= 20 and 0 < w["p99_ns"] < 1e9 and w["mismatch"] == 0, w
else:
    assert "AF_XDP" in w["why"], w
l = d["links"][3]
assert sum(l["late_hist_ns"]) == l["out_pkts"] + 0 * l["in_pkts"], "every frame the link delivered is in its lateness"
tel = [json.loads(x) for x in open(T + "/t.out").read().replace("--> ", "").splitlines() if x.startswith("{")]
port = next(x["/fabemu/port"] for x in tel if "/fabemu/port" in x)
link = next(x["/fabemu/link"] for x in tel if "/fabemu/link" in x)
assert port["kernel_kind"] == pmd and port["kernel_if_rx_packets"] >= k["if_rx_packets"], port
assert "late_p99_ns" in link and port["edge_wait_source"] == w["source"], (port, link)
prom = open(T + "/p.txt").read()
assert re.search(r'^fabemu_port_rx_lost\{port="0",device="[^"]+"\} 0$', prom, re.M), "rx_lost"
assert re.search(r'^fabemu_link_late_p99_ns\{link="1.down"\} \d+$', prom, re.M), "late_p99_ns"
assert ("fabemu_port_edge_wait_p99_ns{port=\"0\"" in prom) == (pmd == "af_packet"), "edge wait"
txt = open(T + "/c.txt").read()
assert re.search(r"^0 +%s +ctr-h1 " % pmd, txt, re.M) and "late_p99_ns" in txt, "the table"
# the lcore, as the scheduler saw it: the busy loop beside it on core 0 took its core
lc = d["lcores"]
assert lc["threads"] == 1 and lc["cpus"] == [0], lc
# (fabemu-dp runs at nice -10 here: the busy loop gets a tenth of the core, 50 ms)
assert lc["preempted"] > 0 and lc["runq_wait_ns"] > 10e6, lc
sw = next(x["/fabemu/switch"] for x in tel if "/fabemu/switch" in x)
assert sw["lcore_threads"] == 1 and sw["lcore_runq_wait_ns"] >= lc["runq_wait_ns"], sw
m = re.search(r"^fabemu_lcore_runq_wait_ns_total (\d+)$", prom, re.M)
assert m and int(m.group(1)) >= lc["runq_wait_ns"], "lcore in Prometheus"
assert re.search(r"^lcores: 1 thread\(s\) on core\(s\) 0; ran \d+ ns, preempted \d+ times", txt, re.M), "lcores"
# and the CPU it ran (busy-polling: most of its time up, never more)
assert 0.2 * d["uptime_s"] * 1e9 < lc["run_ns"] <= d["uptime_s"] * 1e9, (lc, d["uptime_s"])
assert sw["lcore_run_ns"] >= lc["run_ns"], sw
m = re.search(r"^fabemu_lcore_run_ns_total (\d+)$", prom, re.M)
assert m and int(m.group(1)) >= lc["run_ns"], "lcore run in Prometheus"
print("  ok   %s: kernel side %d frames in, 0 unexplained; edge wait %s; lcore preempted %d "
      "times, %.0f ms waiting for core 0; lateness, telemetry, Prometheus, the table"
      % (pmd, k["if_rx_packets"], w["source"], lc["preempted"], lc["runq_wait_ns"] / 1e6))
PY
	fe_dp_stop
	"$FE_ROOT/testbeds/veth.sh" down --name ctr
	FE_TB_NAME=
done
echo "counters: passed"
