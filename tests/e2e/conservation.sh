#!/usr/bin/env bash
# Conservation under churn: traffic both ways through three pcap ports (two replaying
# forever), while one client swaps profiles every 10 ms, flaps a link (rate 0 = down is
# not a rate: it holds the link's serializer) and fires exact drops. Afterwards every
# change was applied, every mbuf is back in its pool (the dataplane's exit status), and
# every link keeps in = out + drops by cause + queued + on the wire + stopped (in it at
# exit), with the drops the
# rules asked for among them. No namespaces, no timing: any machine, any speed.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init conservation
T=$FE_TMP
A=02:fe:00:00:00:0a B=02:fe:00:00:00:0b C=02:fe:00:00:00:0c
"$FE_BIN/fe-pcapgen" "$T/a.pcap" $A $B 64 1000 $A $C 64 200
"$FE_BIN/fe-pcapgen" "$T/b.pcap" $B $A 64 600
"$FE_BIN/fe-pcapgen" "$T/c.pcap" $C $A 1 60
fe_dp_start $(fe_eal) \
	--vdev=net_pcap0,rx_pcap=$T/a.pcap,tx_pcap=/dev/null,infinite_rx=1 \
	--vdev=net_pcap1,rx_pcap=$T/b.pcap,tx_pcap=/dev/null,infinite_rx=1 \
	--vdev=net_pcap2,rx_pcap=$T/c.pcap,tx_pcap=/dev/null \
	-- --profile ethernet-lossy --scale 1000 --stats-json "$T/stats.json"

python3 - "$FABEMU_SOCKET" "$FE_ROOT/profiles" "$T/churn.json" <<'PY'
import json, socket, sys, time

sock_path, profiles, out = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sock_path)
f = s.makefile("rw")


def ask(req):
    req["fabemu"] = 1
    f.write(json.dumps(req) + "\n")
    f.flush()
    return json.loads(f.readline())


texts = {n: open(f"{profiles}/{n}.yaml").read() for n in ("ethernet-lossy", "ethernet-ecn", "roce-lossy", "ideal")}
names = list(texts)
ok = refused = holds = drops = 0
errors = set()
end = time.monotonic() + 6
i = 0
while time.monotonic() < end:
    step = i % 8
    if step < 5:  # a profile, at a scale that keeps the links busy
        r = ask({"cmd": "apply", "profile": texts[names[i % len(names)]], "scale": 1000 + 100 * (i % 7)})
    elif step == 5:  # exact drops on a link that carries traffic
        r = ask({"cmd": "set", "link": "1.down", "spec": "drop=3/2"})
        drops += r.get("ok", False)
    elif step == 6:  # a flap: the link stops serializing for 20 ms
        r = ask({"cmd": "hold", "link": "0.down", "duration": "20ms"})
        holds += r.get("ok", False)
    else:
        r = ask({"cmd": "set", "link": "all", "spec": "loss=1%"})
    if r.get("ok"):
        ok += step != 6  # a hold is not a fabric change
    else:
        refused += 1
        errors.add(r.get("error", "?"))
    i += 1
    time.sleep(0.01)
st = ask({"cmd": "status"})["data"]
json.dump({"sent": i, "ok": ok, "refused": refused, "errors": sorted(errors), "holds": holds,
           "drop_rules": drops, "changes": st["changes"]}, open(out, "w"))
PY
C=$T/churn.json
echo "  $(cat "$C")"
fe_check "requests refused" "$(fe_json "$C" 'd["refused"]')" 0 0
fe_check "changes the dataplane counts (= those acknowledged)" "$(fe_json "$C" 'd["changes"]')" \
	"$(fe_json "$C" 'd["ok"]')" "$(fe_json "$C" 'd["ok"]')"
fe_check "changes made (one every 10 ms for 6 s)" "$(fe_json "$C" 'd["ok"]')" 100 1000
fe_check "holds (link flaps)" "$(fe_json "$C" 'd["holds"]')" 10 1000
fe_dp_stop # exit 0: every mbuf back in the pool
grep -q "pool \([0-9]*\) of \1 returned" "$FE_DP_LOG" || fe_fail "mbufs: $(grep mbufs "$FE_DP_LOG")"
echo "  ok   $(grep '^mbufs' "$FE_DP_LOG")"
S=$T/stats.json
python3 - "$S" <<'PY' || fe_fail "a link does not conserve its packets"
import json, sys

d = json.load(open(sys.argv[1]))
bad = 0
for l in d["links"]:
    drops = sum(v for k, v in l.items() if k.startswith("drop_") and k.endswith("_pkts"))
    rest = l["out_pkts"] + drops + l["q_pkts"] + l["wire_pkts"] + l["stopped_pkts"]
    print(f"  {l['link']:7} in {l['in_pkts']:>8} out {l['out_pkts']:>8} drops {drops:>7} "
          f"(exact {l['drop_exact_pkts']}, random {l['drop_random_pkts']}, tail {l['drop_tail_pkts']}) "
          f"queued {l['q_pkts']} wire {l['wire_pkts']} stopped {l['stopped_pkts']} "
          f"held {l['held_ns'] / 1e6:.0f} ms")
    bad += l["in_pkts"] != rest
links = {l["link"]: l for l in d["links"]}
assert links["1.down"]["drop_exact_pkts"] > 0, "the exact drop rule never fired"
assert links["0.down"]["held_ns"] > 0, "the link was never held"
assert sum(l["drop_random_pkts"] for l in d["links"]) > 0, "loss=1% dropped nothing"
assert links["0.up"]["in_pkts"] > 1000, "too little traffic to mean anything"
sys.exit(1 if bad else 0)
PY
echo "PASS"
