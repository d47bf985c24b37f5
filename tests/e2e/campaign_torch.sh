#!/usr/bin/env bash
# The torch job (job kind torch, testbeds/allreduce_torch.py): PyTorch's torch.distributed
# all-reduce over gloo, a rank a host in its namespace, through one regime. Every
# iteration it reports (the iter lines) is in campaign.json and iterations.csv, with its
# size; the job's log ends in done; a fault at an iteration runs through its hook, before
# that iteration; and a wrong sum (FE_ALLREDUCE_CORRUPT: the last rank adds 1 to one
# element) fails the job (exit 5, "wrong elements" in its log), never a number. Any job
# reports its iterations so (docs/campaigns.md, "The iter lines"): a command job's lines
# are its iterations, and it runs the faults at its iterations through $FE_HOOK.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init camptorch
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"

/usr/bin/python3 -c 'import torch.distributed as d; assert d.is_gloo_available()' ||
	fe_fail "no python3-torch with gloo (testbeds/setup.sh installs python3-torch)"
cat >"$T/torch.yaml" <<'Y'
name: t-torch
hosts: 4
fidelity: {capacity: false}
job: {kind: torch, sizes: [64KiB, 256KiB], iterations: 4, warmup: 1}
regimes:
  - {name: eth, profile: ethernet-lossy, scale: 1000}
timeline:
  - {action: delay, at: {iteration: 3}, until: {iteration: 4}, link: 0.up, delay: 5ms}
Y
echo "the torch all-reduce through ethernet-lossy at scale 1000, 4 ranks"
rc=0
"$CTL" campaign run "$T/torch.yaml" --out "$T/ok" >"$T/ok.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$T/ok.out"; fe_fail "the campaign failed ($rc)"; }
python3 - "$T/ok/campaign.json" <<'P' || { cat "$T/ok.out"; fe_fail "campaign.json"; }
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert len(runs) == 1, len(runs)
it = runs[0]["iterations"]
assert [x[0] for x in it] == list(range(1, 9)), it
assert [x[1] for x in it] == [65536] * 4 + [262144] * 4, it
assert all(x[3] > 0 for x in it), it
print("  ok   8 iterations of 64KiB and 256KiB, %.3f to %.3f ms" % (min(x[3] for x in it) / 1e3, max(x[3] for x in it) / 1e3))
P
fe_check "iterations.csv rows" "$(grep -c '^eth,' "$T/ok/iterations.csv")" 8 8
job=$(ls "$T"/ok/logs/job-eth-1.log)
grep -q "^# allreduce-torch ranks=4 " "$job" || fe_fail "no header from rank 0: $(head -3 "$job")"
grep -q "^done$" "$job" || fe_fail "the job did not end in done: $(tail -3 "$job")"
grep -q "fault before iteration 3: delay 0.up delay=5ms" "$T/ok.out" ||
	fe_fail "the fault at iteration 3 did not run: $(grep -i fault "$T/ok.out")"
grep -q "fault before iteration 4: end of delay 0.up" "$T/ok.out" ||
	fe_fail "the fault's end at iteration 4 did not run: $(grep -i fault "$T/ok.out")"
echo "  ok   $(grep "fault before iteration 3" "$T/ok.out" | sed 's/^ *//')"

echo "a wrong sum: the job fails, never a number"
rc=0
FE_ALLREDUCE_CORRUPT=2 "$CTL" campaign run "$T/torch.yaml" --out "$T/bad" >"$T/bad.out" 2>&1 || rc=$?
fe_check "exit status (the job failed)" "$rc" 5 5
grep -q "allreduce-torch: iteration 2 (65536 bytes): 4 wrong elements in the result" \
	"$T"/bad/logs/job-eth-1.log || fe_fail "no wrong elements said: $(tail -5 "$T"/bad/logs/job-eth-1.log)"
echo "  ok   $(grep "wrong elements" "$T"/bad/logs/job-eth-1.log)"
echo "a command job: its iter lines, and a fault at its iteration 2 through \$FE_HOOK"
cat >"$T/cmd.yaml" <<'Y'
name: t-cmd
hosts: 2
cores: shared
fidelity: {capacity: false}
job:
  kind: command
  command: >-
    for g in 1 2 3; do
      case ",$FE_HOOK_ITERS," in *,$g,*) "$FE_HOOK" $g;; esac;
      t0=$(date +%s%N); for k in 1 2 3; do ping -q -c 1 -W 2 198.18.0.2 >/dev/null; done;
      echo "iter $g 0 $g $(( ($(date +%s%N) - t0) / 1000 )) $t0";
    done
regimes:
  - {name: eth, profile: ethernet-lossy, scale: 100}
timeline:
  - {action: delay, at: {iteration: 2}, until: {iteration: 3}, link: 1.down, delay: 20ms}
  - {action: loss, at: {iteration: 9}, link: 0.up, loss: 1%}
Y
rc=0
"$CTL" campaign run "$T/cmd.yaml" --out "$T/cmd" >"$T/cmd.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$T/cmd.out"; fe_fail "the campaign failed ($rc)"; }
grep -q "fault before iteration 2: delay 1.down delay=20ms" "$T/cmd.out" ||
	fe_fail "the hook did not run the fault: $(grep -i fault "$T/cmd.out")"
grep -q "WARNING: run eth-1: timeline.1.at (loss 0.up loss=1%) at iteration 9 did not run: not reached" \
	"$T/cmd.out" || fe_fail "iteration 9 not said not reached: $(grep WARN "$T/cmd.out")"
python3 - "$T/cmd/campaign.json" <<'P' || { cat "$T/cmd.out"; fe_fail "campaign.json"; }
import json, sys
it = json.load(open(sys.argv[1]))["runs"][0]["iterations"]
assert [x[0] for x in it] == [1, 2, 3], it
# 3 pings one after the other, each 20 ms later in iteration 2 (the requests' link)
assert it[1][3] > it[0][3] + 30000 and it[1][3] > it[2][3] + 30000, it
print("  ok   3 iterations: %s us" % ", ".join("%.0f" % x[3] for x in it))
P
echo "PASS"
