#!/usr/bin/env bash
# A timeline step that cannot happen is never skipped silently: one at an iteration the
# job does not have (--iterations) is refused before anything starts (exit 2, naming
# the step and the iteration); one at a time after the job's end is a warning ("not
# reached: the job ended"), printed and kept in campaign.json (runs[].faults_missed,
# warnings), not a failure. Two steps at the same iteration both run, and are in the
# progress. A fault's end gives the link back the regime's own links: overrides; a fault
# on a link one regime's fabric lacks is skipped there (faults_skipped, "not in this
# regime's fabric"), not failed; a step whose command the dataplane refuses at run time
# makes the status "complete, N fault step(s) failed", exit 7, its progress line FAILED;
# the baselines run without the faults, and every output says so.
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
grep -q "WARNING: run eth-1: timeline.1.at (delay 1.down delay=5ms) at 30 s did not run: not reached: the job ended" "$T/late.out" ||
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
assert missed == [("timeline.1.at", "30 s"), ("timeline.1.duration", "31 s")], missed
assert all(m["why"].startswith("not reached: the job ended") for m in run["faults_missed"]), run["faults_missed"]
assert all(m["outcome"] == "not_reached" for m in run["faults_missed"]), run["faults_missed"]
assert all(f["outcome"] == "ran" for f in run["faults"]), run["faults"]
assert ran == ["loss 0.up loss=5%", "end of loss 0.up loss=5%"], ran
assert len(d["warnings"]) == 2 and "timeline.1.at" in d["warnings"][0], d["warnings"]
PY
grep -q "Warning:</b> run eth-1: timeline.1.at" "$T/late/report.html" || fe_fail "no warning in report.html"
grep -q "<b>not reached</b> at 30 s: delay 1.down delay=5ms" "$T/late/report.html" || fe_fail "report.html: the step not reached"
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
grep -q "fault before iteration 2: delay 0.up delay=2ms" "$T/same.out" ||
	fe_fail "a fault at an iteration is not in the progress: $(grep fault "$T/same.out")"
echo "  ok   both ran, in the progress"

echo "a fault's end: the regime's links back; a link a regime lacks: skipped; a step the dataplane refuses: exit 7; the baselines: no faults"
printf 'name: pair\nswitches: [{name: s1}, {name: s2}]\nhosts: [{name: h1, switch: s1}, {name: h2, switch: s2}]\nlinks: [{a: s1, b: s2}]\n' >"$T/pair.yaml"
# the link s1-s2 is in the pair regime's topology only: its steps are skipped in eth's run.
# far.yaml is a valid profile at scale 100000 when the campaign is checked (a 1 us delay:
# 0.1 s); the job then writes a 1 ms delay into it, 100 s at that scale, above the
# dataplane's 10 s: the apply is refused when it is due, in every regime that runs it.
printf 'name: far\nregime: lossy\nlink:\n  rate: 0\n  delay: 1us\n' >"$T/far.yaml"
printf 'name: far\nregime: lossy\nlink:\n  rate: 0\n  delay: 1ms\n' >"$T/far-1ms.yaml"
cat >"$T/end.yaml" <<Y
name: t-end
hosts: 2
cores: shared
fidelity: {capacity: false}
job: {kind: command, command: "cp '$T/far-1ms.yaml' '$T/far.yaml'; sleep 1; '$CTL' -s \$FABEMU_SOCKET links || true"}
regimes:
  - {name: wire, kind: wire}
  - {name: eth, profile: ethernet-lossy, scale: 100, links: ["0.up:delay=5ms"]}
  - {name: pair, profile: ethernet-lossy, scale: 100, topology: $T/pair.yaml}
timeline:
  - {action: delay, at: {time: 200ms}, duration: 300ms, link: 0.up, delay: 20ms}
  - {action: set, at: {time: 200ms}, duration: 300ms, link: s1-s2, spec: "delay=1ms"}
  - {action: apply, at: {time: 300ms}, link: 1.down, profile: $T/far.yaml, scale: 100000}
Y
# the 1 ms profile given at check: refused there, at the apply's scale, as the dataplane would
sed "s|$T/far.yaml|$T/far-1ms.yaml|" "$T/end.yaml" >"$T/end-1ms.yaml"
! "$CTL" campaign check "$T/end-1ms.yaml" >"$T/check.out" 2>&1 || fe_fail "check took an apply the dataplane refuses"
grep -q "end-1ms.yaml:[0-9]*: timeline.2.profile: link 0.up: delay or jitter at scale 100000 is above 10s" "$T/check.out" ||
	fe_fail "check: $(cat "$T/check.out")"
rc=0
"$CTL" campaign run "$T/end.yaml" --out "$T/end" >"$T/end.out" 2>&1 || rc=$?
[ "$rc" = 7 ] || { cat "$T/end.out"; fe_fail "exit status $rc, not 7 (a fault step failed)"; }
grep -q "^campaign t-end: complete, 2 fault step(s) failed" "$T/end.out" || fe_fail "status: $(grep '^campaign' "$T/end.out")"
grep -q "fault at [0-9.]* s FAILED: apply $T/far.yaml to 1.down" "$T/end.out" || fe_fail "no FAILED progress line"
grep -q "timeline.1.at: set s1-s2 delay=1ms is not in this regime's fabric: not run" "$T/end.out" ||
	fe_fail "no progress line for the step eth's fabric lacks"
! grep -q "FAILED: set s1-s2" "$T/end.out" || fe_fail "a step eth's fabric lacks is said FAILED"
grep -q "note: baselines run without the timeline's faults: wire" "$T/end.out" || fe_fail "no note of the baselines"
grep -q "a baseline runs without the timeline's faults" "$T/end/report.html" || fe_fail "report.html: no skipped step"
grep -qF "<b>FAILED</b> at 0.3 s: apply $T/far.yaml to 1.down" "$T/end/report.html" || fe_fail "report.html: the step that failed not FAILED"
grep -E '^0\.up .* delay 5ms ' "$T/end/logs/job-eth-1.log" >/dev/null ||
	fe_fail "0.up after the fault's end: $(grep '^0.up' "$T/end/logs/job-eth-1.log"), not the regime's 5 ms"
python3 - "$T/end/campaign.json" <<'PY' || fe_fail "campaign.json"
import json, sys
d = json.load(open(sys.argv[1]))
runs = {r["regime"]: r for r in d["runs"]}
assert d["status"] == "complete, 2 fault step(s) failed", d["status"]
assert any("baselines run without the timeline's faults: wire" in n for n in d["notes"]), d["notes"]
assert runs["wire"]["faults"] == [] and len(runs["wire"]["faults_skipped"]) == 5, runs["wire"]
sk = [(m["step"], m["why"]) for m in runs["eth"]["faults_skipped"]]
assert all(m["outcome"] == "skipped" for g in runs for m in runs[g]["faults_skipped"]), runs
assert sk == [("timeline.1.at", "not in this regime's fabric"),
              ("timeline.1.duration", "not in this regime's fabric")], sk
for g in ("eth", "pair"):
    m = runs[g]["faults_missed"]
    assert [x["step"] for x in m] == ["timeline.2.at"] and m[0]["outcome"] == "failed", (g, m)
assert len(runs["eth"]["faults"]) == 2 and len(runs["pair"]["faults"]) == 4, runs["pair"]
assert runs["pair"]["faults_skipped"] == [], runs["pair"]["faults_skipped"]
print("  ok   status %r; eth's 0.up back to 5 ms; wire skipped %d steps" % (d["status"], len(runs["wire"]["faults_skipped"])))
PY
echo "campaign_timeline: passed"
