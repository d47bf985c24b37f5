#!/usr/bin/env bash
# Calibration end to end (docs/campaigns.md, "Calibration"): a campaign with a regime at
# scale: auto measures the box's noise through the ideal dataplane before its regimes,
# says which scale it chose for the regime and why, runs the regime at it, and keeps the
# choice in campaign.json and report.html; a regime with no faithful scale in its range
# (here the load rule: ethernet-lossy at scale 2 offers 100 Gbit/s) is refused before any
# regime runs, exit status 8, naming what took the lcore's core. Structural checks only:
# the box's noise is what it is (another engineer's build on the other core moves it).
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init campaign_calib
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"

leftovers() {
	{
		ip netns list | awk '{print $1}' | grep -E '^f[0-9a-z]{5}-h' || true
		ls /run/fabemu/ 2>/dev/null | grep -E '^(testbed-f[0-9a-z]{5}$|campaign-)' || true
		ps -eo stat=,pid=,args= | awk '$1 !~ /^Z/' |
			grep -E 'fe-allreduce|orted|mpirun|fabemu-dp .*fe-campaign-' | grep -v grep || true
	} | tr '\n' ' '
}
[ -z "$(leftovers)" ] || fe_fail "leftovers before the test: $(leftovers)"

echo "no faithful scale in range: refused before the regimes, the cause named"
cat >"$T/none.yaml" <<'Y'
name: t-calib-none
hosts: 2
fidelity: {capacity-time: 1s}
job: {kind: allreduce, sizes: [64KiB], iterations: 4, warmup: 1}
regimes:
  - {name: eth, profile: ethernet-lossy, scale: auto, scale-max: 2}
Y
grep -qxF "  scale auto: chosen before the regimes (calibration), at least 1, at most 2; shown at 1" \
	<<<"$("$CTL" campaign show "$T/none.yaml")" || fe_fail "campaign show does not say scale auto"
rc=0
"$CTL" campaign run "$T/none.yaml" --out "$T/none" >"$T/none.out" 2>&1 || rc=$?
sed -n '/calibration/p' "$T/none.out" | sed 's/^/  /'
[ "$rc" = 8 ] || { cat "$T/none.out"; fe_fail "exit status $rc, not 8"; }
grep -qF "calibration: no scale from 1 to 2 is faithful for regime eth: " "$T/none.out" ||
	fe_fail "no refusal line"
grep -qF "its offered load at scale 2" "$T/none.out" || fe_fail "the refusal does not say the load"
grep -qF "What takes the lcore's core: " "$T/none.out" || fe_fail "the refusal names no cause"
! grep -qF "regime eth (profile" "$T/none.out" || fe_fail "regime eth ran after the refusal"
python3 - "$T/none/campaign.json" <<'PY' || fe_fail "campaign.json of the refusal"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["calibration"]
assert d["status"].startswith("refused"), d["status"]
assert [r["result"] for r in c["regimes"]] == ["none"], c["regimes"]
assert c["regimes"][0]["max"] == 2 and c["run"]["regime"] == "calibration", c["regimes"]
assert d["runs"] == [], d["runs"]
print("  ok   campaign.json: status %r, the choice 'none', no run" % d["status"])
PY
[ -z "$(leftovers)" ] || fe_fail "leftovers after the refusal: $(leftovers)"

echo "scale: auto: chosen, said, run at, kept"
# a hop of 100 us at scale 1, and half a hop allowed: whatever this shared box's noise
# (up to 25 s at p99), a scale in range holds it, and the job stays short
cat >"$T/slow.yaml" <<'Y'
name: slow
regime: lossy
link: {rate: 100Gbit, delay: 100us, buffer: 512KiB, buffer-pkts: 1000}
Y
cat >"$T/auto.yaml" <<Y
name: t-calib
hosts: 2
fidelity: {capacity-time: 1s, lateness: 50%}
job: {kind: allreduce, sizes: [64KiB], iterations: 4, warmup: 1}
regimes:
  - {name: ideal, profile: ideal}
  - {name: eth, profile: $T/slow.yaml, scale: auto, scale-min: 2}
  - {name: fixed, profile: ethernet-lossy, scale: 100}
Y
"$CTL" campaign run "$T/auto.yaml" --out "$T/auto" >"$T/auto.out" 2>&1 ||
	{ cat "$T/auto.out"; fe_fail "campaign failed"; }
sed -n '/calibration/p' "$T/auto.out" | sed 's/^/  /'
line=$(grep -E "^  calibration: chose scale [0-9]+ for regime eth because " "$T/auto.out") ||
	fe_fail "no choice said"
scale=$(sed -E 's/.*chose scale ([0-9]+) for regime eth.*/\1/' <<<"$line")
[ "$scale" -ge 2 ] || fe_fail "scale $scale below the floor 2"
grep -qF "regime eth (profile slow, scale $scale)" "$T/auto.out" ||
	fe_fail "regime eth did not run at scale $scale"
grep -qF "regime fixed (profile ethernet-lossy, scale 100)" "$T/auto.out" ||
	fe_fail "a fixed scale moved"
! grep -qF "for regime fixed" "$T/auto.out" || fe_fail "a fixed scale was calibrated"
python3 - "$T/auto" "$scale" <<'PY' || fe_fail "the choice in campaign.json and report.html"
import json, sys
d = json.load(open(sys.argv[1] + "/campaign.json"))
s = int(sys.argv[2])
c = d["calibration"]
(ch,) = c["regimes"]
assert ch["regime"] == "eth" and ch["result"] == "chosen" and ch["scale"] == s, ch
assert ch["floor"] == 2 and ch["max"] == 100000 and ch["max"] >= s, ch
n = c["noise"]
assert n["late_p99_ns"] is not None and n["window_s"] > 0, n
# the rule, on the figures it kept: twice the noise within the verdict's 10 % of the hop
need = 2 * max(n["late_p99_ns"], n["wait_p99_ns"] or 0) / d["inputs"]["fidelity"]["lateness"]
assert ch["hop_ns"] >= need - 1 and abs(ch["need_hop_ns"] - need) < 1, (ch, need)
reg = {r["name"]: r for r in d["inputs"]["regimes"]}
assert reg["eth"]["scale"] == s and reg["fixed"]["scale"] == 100, reg
# the regime ran at that hop
run = [r for r in d["runs"] if r["regime"] == "eth"][0]
assert run["hop_ns"] == reg["eth"]["hop_ns"] and abs(run["hop_ns"] - ch["hop_ns"]) <= 1, run["hop_ns"]
html = open(sys.argv[1] + "/report.html").read()
assert "<h2 id='calibration'>Calibration</h2>" in html and "scale %d: " % s in html
print("  ok   scale %d (floor 2): hop %.1f us >= %.1f us the noise needs (p99 %.1f us late); "
      "inputs, run and report agree; verdict: %s" % (s, ch["hop_ns"] / 1e3, need / 1e3,
      n["late_p99_ns"] / 1e3, run["verdict"]))
PY
grep -qE "^calibration: regime eth: scale $scale: " "$T/auto.out" || fe_fail "the summary does not repeat the choice"
[ -z "$(leftovers)" ] || fe_fail "leftovers: $(leftovers)"
echo "campaign_calib: ok"
