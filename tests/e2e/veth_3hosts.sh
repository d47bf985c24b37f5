#!/usr/bin/env bash
# Three hosts over AF_PACKET: every pair pings through the switch; two senders share
# host 3's 500 Mbit/s down link and together get its payload share; counters add up.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init veth3
fe_hosts fev3 3
PMD=${FABEMU_PMD:-af_packet}
fe_dp_start $(fe_eal) $(fe_vdevs "$PMD") -- --rate 500Mbit --delay 50us --stats-json "$FE_TMP/s.json"

for a in 1 2 3; do
	for b in 1 2 3; do
		[ $a = $b ] && continue
		rtt=$(fe_ping_avg $a $b 5)
		fe_check "ping $a -> $b RTT (us), >= 4 x 50 us" "$rtt" 200 2000
	done
done

# 2-to-1: both flows at once into host 3
out1=$FE_TMP/f1 out2=$FE_TMP/f2
FE_IPERF_PORT=5301 fe_iperf 1 3 4 >"$out1" &
p1=$!
FE_IPERF_PORT=5302 fe_iperf 2 3 4 >"$out2" &
p2=$!
wait $p1 || fe_fail "flow 1 -> 3 failed"
wait $p2 || fe_fail "flow 2 -> 3 failed"
sum=$(python3 -c "print($(cat "$out1") + $(cat "$out2"))")
echo "  flows: 1->3 $(cat "$out1") Mbit/s, 2->3 $(cat "$out2") Mbit/s"
fe_dp_stop
S=$FE_TMP/s.json
# its low bound widened where the hypervisor took the dataplane's core; what it took is
# printed, so that a failure says (once 220.7 in a whole suite's run, its steal not
# recorded then; 461 to 470 in the three runs after)
echo "  the hypervisor took $(fe_steal_ms "$S") ms of the dataplane's core"
fe_low_steal 423.6 4 "$S"
fe_check "sum of goodput into host 3 (Mbit/s), share 470.7$WHY" "$sum" "$LO" 517.8
fe_check "links conserve packets" \
	"$(fe_json "$S" 'sum(l["in_pkts"] - l["out_pkts"] - l["drop_tail_pkts"] - l["drop_wire_pkts"] - l["q_pkts"] - l["wire_pkts"] for l in d["links"])')" 0 0
# at least the payload the two flows' receivers counted over their 4 s
fe_check "2.down carried the bulk (MB), the flows' payload at least" \
	"$(fe_json "$S" 'd["links"][5]["out_bytes"] // 1000000')" \
	"$(python3 -c "print(int($sum * 4 / 8))")" 100000
# three hosts, each on its own port, never seen anywhere else (the table is printed if not)
if [ "$(fe_json "$S" 'sorted((e["mac"], e["port"]) for e in d["switch"]["mac_table"])')" != \
	"[('02:fe:00:00:00:01', 0), ('02:fe:00:00:00:02', 1), ('02:fe:00:00:00:03', 2)]" ]; then
	fe_json "$S" 'd["switch"]' >&2
	fe_fail "MAC table: each host on its own port expected"
fi
fe_check "MAC addresses learned" "$(fe_json "$S" 'd["switch"]["mac_learned"]')" 3 3
# no move: an address seen on another host's port (docs/architecture.md, start-up);
# if there is one, show the switch and the ports' counters with it
[ "$(fe_json "$S" 'd["switch"]["mac_moves"]')" = 0 ] || fe_json "$S" '{"switch": d["switch"], "ports": d["ports"]}' >&2
fe_check "MAC station moves" "$(fe_json "$S" 'd["switch"]["mac_moves"]')" 0 0
echo "veth_3hosts: passed"
