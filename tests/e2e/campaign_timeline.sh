#!/usr/bin/env bash
# A timeline step that cannot happen is never skipped silently: one at an iteration the
# job does not have (--iterations) is refused before anything starts (exit 2, naming
# the step and the iteration); one at a time after the job's end is a warning, printed
# and kept in campaign.json (runs[].faults_missed, warnings). Two steps at the same
# iteration both run.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init camptl
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"

echo "--iterations leaves a fault's iteration out: refused before anything starts"
rc=0
"$CTL" campaign run single-drop --iterations 5 --out "$T/sd" >"$T/sd.out" 2>"$T/sd.err" || rc=$?
fe_check "exit status" "$rc" 2 2
grep -q "single-drop.yaml: timeline.0.at: iteration 15 (drop 0.up .*) is beyond the job's 5 iteration(s) with --iterations 5" "$T/sd.err" ||
	fe_fail "the message does not name the step and its iteration: $(cat "$T/sd.err")"
[ ! -e "$T/sd" ] && [ ! -s "$T/sd.out" ] || fe_fail "the campaign started: $(cat "$T/sd.out")"
echo "  ok   $(cat "$T/sd.err")"
cat >"$T/until.yaml" <<'Y'
name: t-until
hosts: 2
job: {kind: allreduce, sizes: [1KiB, 2KiB], iterations: 10}
regimes:
  - {name: eth, profile: ethernet-lossy}
timeline:
  - {action: loss, at: {iteration: 2}, until: {iteration: 9}, link: 0.up, loss: 1%}
Y
rc=0
"$CTL" campaign run "$T/until.yaml" --iterations 4 --out "$T/un" >"$T/un.out" 2>"$T/un.err" || rc=$?
fe_check "exit status (the end of a fault out)" "$rc" 2 2
grep -q "timeline.0.until: iteration 9 (end of loss 0.up loss=1%) is beyond the job's 8 iteration(s) with --iterations 4 (over all sizes)" "$T/un.err" ||
	fe_fail "the message does not name the step: $(cat "$T/un.err")"
echo "  ok   $(cat "$T/un.err")"

echo "a fault after the job's end: the campaign completes, and says the fault did not run"
cat >"$T/late.yaml" <<'Y'
name: t-late
hosts: 2
cores: shared
fidelity: {capacity: false}
job: {kind: command, command: "sleep 1.5"}
regimes:
  - {name: eth, profile: ethernet-lossy, scale: 100}
timeline:
  - {action: loss, at: {time: 300ms}, duration: 200ms, link: 0.up, loss: 5%}
  - {action: delay, at: {time: 30s}, duration: 1s, link: 1.down, delay: 5ms}
Y
rc=0
"$CTL" campaign run "$T/late.yaml" --out "$T/late" >"$T/late.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$T/late.out"; fe_fail "the campaign failed ($rc)"; }
grep -q "WARNING: run eth-1: timeline.1.at (delay 1.down delay=5ms) at 30.000 s did not run: the job ended" "$T/late.out" ||
	fe_fail "no warning: $(grep -i warn "$T/late.out")"
grep 'WARNING' "$T/late.out" | sed 's/^ */  /'
python3 - "$T/late/campaign.json" <<'PY' || fe_fail "campaign.json"
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
missed = [(m["step"], m["at"]) for m in run["faults_missed"]]
ran = [f["what"] for f in run["faults"]]
print("  faults run:", ran, "; missed:", missed)
assert d["status"] == "complete", d["status"]
assert missed == [("timeline.1.at", "30.000 s"), ("timeline.1.duration", "31.000 s")], missed
assert ran == ["loss 0.up loss=5%", "end of loss 0.up loss=5%"], ran
assert len(d["warnings"]) == 2 and "timeline.1.at" in d["warnings"][0], d["warnings"]
PY
grep -q "Warning:</b> run eth-1: timeline.1.at" "$T/late/report.html" || fe_fail "no warning in report.html"
echo "  ok   2 steps missed, named, in the output, campaign.json and report.html"

echo "two steps at one iteration: both run"
cat >"$T/same.yaml" <<'Y'
name: t-same
hosts: 2
cores: shared
fidelity: {capacity: false}
job: {kind: allreduce, sizes: [1KiB], iterations: 4, warmup: 1}
regimes:
  - {name: eth, profile: ethernet-lossy, scale: 100}
timeline:
  - {action: delay, at: {iteration: 2}, until: {iteration: 3}, link: 0.up, delay: 2ms}
  - {action: loss, at: {iteration: 3}, until: {iteration: 4}, link: 1.up, loss: 1%}
Y
rc=0
"$CTL" campaign run "$T/same.yaml" --out "$T/same" >"$T/same.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$T/same.out"; fe_fail "the campaign failed ($rc)"; }
python3 - "$T/same/campaign.json" <<'PY' || fe_fail "two steps at one iteration"
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
ran = [(f["iteration"], f["what"]) for f in run["faults"]]
print("  faults run:", ran)
assert sorted(ran) == [(2, "delay 0.up delay=2ms"), (3, "end of delay 0.up delay=2ms"),
                       (3, "loss 1.up loss=1%"), (4, "end of loss 1.up loss=1%")], ran
assert run["faults_missed"] == [] and d["warnings"] == [], (run["faults_missed"], d["warnings"])
PY
echo "campaign_timeline: passed"
