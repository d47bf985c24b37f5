#!/usr/bin/env bash
# containerlab labs (docs/containerlab.md): the shipped leaf-spine lab imported
# (`fabemuctl topology import`), then run as the lab would run under containerlab, whose
# containers are network namespaces joined by veth pairs: the campaign builds that wiring
# (a namespace a host, a veth to the dataplane's port) and runs the lab's all-reduce on
# its fabric. The results name the lab's topology; its fabric has the lab's four switches,
# the rate and delay the lab gave leaf1-spine1 and the ECN spine2 gives leaf2, at the lab's
# scale; h4's port has its delay and loss. The one-node example imports and checks too,
# and so does the campaign shipped for it.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init clab
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"
LABS="$FE_ROOT/testbeds/containerlab"

"$CTL" topology import "$LABS/leaf-spine.clab.yml" --out "$T/lab" >"$T/import.out" ||
	{ cat "$T/import.out"; fe_fail "import"; }
grep -qx '  port 3: h4 eth1' "$T/import.out" || fe_fail "import: ports: $(cat "$T/import.out")"
grep -qx '  --link spine2>leaf2:ecn=20KB/80KB/10%' "$T/import.out" ||
	fe_fail "import: specs: $(cat "$T/import.out")"
echo "  ok   imported: 4 hosts on 4 switches, the links' settings as --link specs"
"$CTL" topology check "$T/lab/topology.yaml" >/dev/null
"$CTL" campaign check "$T/lab/campaign.yaml"

"$CTL" topology import "$LABS/fabric.clab.yml" --out "$T/one" >"$T/one.out" ||
	{ cat "$T/one.out"; fe_fail "import one node"; }
grep -q '^topology leaf-spine-4; wrote' "$T/one.out" || fe_fail "one node: $(cat "$T/one.out")"
"$CTL" campaign check "$T/one/campaign.yaml"
# the campaign over the deployed one-node lab (its containers by docker exec: run by
# testbeds/containerlab/image.sh with podman)
"$CTL" campaign check "$LABS/fabric.campaign.yaml"

# a refusal names the lab's file and line
printf 'name: x\ntopology:\n  nodes:\n    s: {kind: bridge}\n    h1: {}\n  links:\n    - endpoints: ["h1:eth1", "s:eth1"]\n      vars: {fabemu: {speed: 1G}}\n' >"$T/bad.clab.yml"
rc=0
out=$("$CTL" topology import "$T/bad.clab.yml" --out "$T/bad" 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -qF "bad.clab.yml:8: vars.fabemu.speed: unknown link key 'speed'" <<<"$out" ||
	fe_fail "refusal: $rc $out"
echo "  ok   a bad key refused at its line"
rc=0
"$CTL" topology import 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fe_fail "usage error: rc $rc (expected 2)"
rc=0
out=$("$CTL" topology import "$T/nowhere.clab.yml" 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -qF "$T/nowhere.clab.yml" <<<"$out" || fe_fail "no file: $rc $out"
echo "  ok   usage (exit 2); a missing file named (exit 1)"

echo "the imported lab's campaign, on namespaces and veth pairs"
"$CTL" campaign run "$T/lab/campaign.yaml" --out "$T/run" --iterations 3 >"$T/run.out" 2>&1 ||
	{ cat "$T/run.out"; fe_fail "campaign failed"; }
python3 - "$T/run" "$T/lab/topology.yaml" <<'PY' || fe_fail "the imported lab's run"
import json, os, sys
d = json.load(open(sys.argv[1] + "/campaign.json"))
reg = d["inputs"]["regimes"][1]
assert reg["name"] == "leaf-spine" and reg["topology"] == "leaf-spine", reg
assert reg["topology_file"] == os.path.realpath(sys.argv[2]), reg
run = d["runs"][-1]
assert run["regime"] == "leaf-spine" and len(run["iterations"]) == 3, run.get("regime")
c = run["counters"]
g = c["graph"]
assert g["switches"] == 4 and g["path"] == "ecmp", g
fab = {l["link"]: l for l in g["fabric_links"]}
# 200 Gbit/s and 1 us at scale 4000; the other links the profile's fabric class
assert fab["leaf1>spine1"]["rate_bps"] == 50000000 and fab["leaf1>spine1"]["delay_ns"] == 4000000, fab["leaf1>spine1"]
assert fab["leaf1>spine2"]["delay_ns"] != 4000000, fab["leaf1>spine2"]
ports = {l["link"]: l for l in c["links"]}
assert ports["3.up"]["delay_ns"] == 8000000 and ports["3.down"]["delay_ns"] == 8000000, ports["3.up"]
comp = {l["link"]: l["compiled"] for l in reg["links"]}
assert "loss 0.1%" in comp["3.up"] and "loss" not in comp["2.up"], comp
# every frame crossed the fabric: traffic on the uplinks of both leaves
assert sum(fab[k]["out_pkts"] for k in fab if k.startswith("leaf1>")) > 0
assert sum(fab[k]["out_pkts"] for k in fab if k.startswith("leaf2>")) > 0
print("  ok   the lab's all-reduce ran on its 4 switches: leaf1>spine1 at %d bit/s, %d ns; "
      "h4's port %d ns with loss" % (fab["leaf1>spine1"]["rate_bps"], fab["leaf1>spine1"]["delay_ns"],
                                    ports["3.up"]["delay_ns"]))
PY
