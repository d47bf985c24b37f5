#!/usr/bin/env bash
# Counters on request: DPDK telemetry commands under /fabemu/, SIGUSR1 (table and
# JSON), and a clean exit on SIGINT.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init telemetry

A=02:fe:00:00:00:0a BC=ff:ff:ff:ff:ff:ff
T=$FE_TMP
"$FE_BIN/fe-pcapgen" "$T/in0.pcap" $A $BC 10 500
"$FE_BIN/fe-pcapgen" "$T/empty.pcap"
fe_dp_start $(fe_eal) --vdev=net_pcap0,rx_pcap=$T/in0.pcap,tx_pcap=$T/o0.pcap \
	--vdev=net_pcap1,rx_pcap=$T/empty.pcap,tx_pcap=$T/o1.pcap \
	-- --link 1.down:rate=100Mbit,delay=2ms --stats-json "$T/usr1.json"
sleep 0.5
SOCK=/var/run/dpdk/fe-telemetry/dpdk_telemetry.v2
tel() { python3 "$FE_ROOT/tests/tools/fe-telemetry.py" "$SOCK" "$@"; }
tel /fabemu/info /fabemu/ports /fabemu/links /fabemu/link,1.down /fabemu/port,0 /fabemu/switch \
	/fabemu/link,7.up /fabemu/link,1.sideways /fabemu/port,x >"$T/tel.out"
cat "$T/tel.out" | sed 's/^/  /' | cut -c1-160
get() { sed -n "$1p" "$T/tel.out" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"; }
fe_check "/fabemu/info ports" "$(get 1 'd["/fabemu/info"]["ports"]')" 2 2
fe_check "/fabemu/ports count" "$(get 2 'len(d["/fabemu/ports"])')" 2 2
[ "$(get 3 '",".join(d["/fabemu/links"])')" = "0.up,0.down,1.up,1.down" ] || fe_fail "/fabemu/links"
fe_check "/fabemu/link,1.down rate_bps" "$(get 4 'd["/fabemu/link"]["rate_bps"]')" 100000000 100000000
fe_check "/fabemu/link,1.down delay_ns" "$(get 4 'd["/fabemu/link"]["delay_ns"]')" 2000000 2000000
fe_check "/fabemu/link,1.down out_pkts" "$(get 4 'd["/fabemu/link"]["out_pkts"]')" 10 10
fe_check "/fabemu/port,0 rx_pkts" "$(get 5 'd["/fabemu/port"]["rx_pkts"]')" 10 10
fe_check "/fabemu/switch flooded" "$(get 6 'd["/fabemu/switch"]["flooded"]')" 10 10
# bad parameters get an error reply (null data), and the dataplane keeps running
for n in 7 8 9; do [ "$(get $n 'list(d.values())[0]')" = None ] || fe_fail "bad parameter accepted: line $n"; done
kill -0 "$FE_DP_PID" || fe_fail "dataplane died on bad telemetry input"
# every command registered (DPDK refuses a help text of 128 characters or more)
if grep 'telemetry:' "$FE_DP_LOG"; then fe_fail "a telemetry command was not registered"; fi

kill -USR1 "$FE_DP_PID"
for _ in $(seq 50); do [ -s "$T/usr1.json" ] && break; sleep 0.1; done
fe_check "SIGUSR1 JSON: 1.down out_pkts" "$(fe_json "$T/usr1.json" 'd["links"][3]["out_pkts"]')" 10 10
grep -q '^fabemu-dp counters after' "$FE_DP_LOG" || fe_fail "SIGUSR1 printed no table"
# telemetry carries a port's counters as the document has them, flat (docs/counters.md):
# every key of the document's port 0, its objects' keys joined by _ (edge_wait.p99_ns is
# edge_wait_p99_ns, kernel.rx_lost kernel_rx_lost); the histograms left to the document
tel /fabemu/port,0 >"$T/tel2.out"
python3 - "$T/usr1.json" "$T/tel2.out" <<'PY2' || fe_fail "/fabemu/port,0 lacks keys of the document's port"
import json, sys
doc = json.load(open(sys.argv[1]))["ports"][0]
tel = json.load(open(sys.argv[2]))["/fabemu/port"]
def flat(d, pre=""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from flat(v, pre + k + "_")
        elif not isinstance(v, list):
            yield pre + k
missing = sorted(k for k in flat(doc) if k not in tel and k != "port")
print("  /fabemu/port,0: %d keys, the document's port %d; missing: %s" % (len(tel), len(list(flat(doc))), missing))
assert not missing, missing
PY2
fe_dp_stop
grep -q 'mbufs: engine holds 0 after drain; pool \([0-9]*\) of \1 returned$' "$FE_DP_LOG" ||
	fe_fail "mbufs not all returned"
echo "telemetry: passed"
