#!/usr/bin/env bash
# Deterministic forwarding through three pcap ports (no namespaces): MAC learning,
# flooding of broadcast and unknown destinations, no reordering, exact counters, and
# every mbuf returned at exit.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init pcap_forward

A=02:fe:00:00:00:0a B=02:fe:00:00:00:0b C=02:fe:00:00:00:0c BC=ff:ff:ff:ff:ff:ff
T=$FE_TMP
# port 0 (host A): a broadcast, then 50 frames to B
"$FE_BIN/fe-pcapgen" "$T/in0.pcap" $A $BC 1 60 $A $B 50 1000
# port 1 (host B): a broadcast only (so B is learned before A's frames reach the switch)
"$FE_BIN/fe-pcapgen" "$T/in1.pcap" $B $BC 1 60
# port 2 (host C): a broadcast, then 20 frames to A (arriving after A is learned)
"$FE_BIN/fe-pcapgen" "$T/in2.pcap" $C $BC 1 60 $C $A 20 200

vdevs=""
for i in 0 1 2; do vdevs+=" --vdev=net_pcap$i,rx_pcap=$T/in$i.pcap,tx_pcap=$T/out$i.pcap"; done
# The up links of A and C are delayed so that learning happens in a known order:
# B's broadcast at 0 ms, A's frames at 10 ms, C's at 20 ms.
fe_dp_once "$T/dp.log" $(fe_eal) $vdevs -- --link 0.up:delay=10ms --link 2.up:delay=20ms \
	--exit-idle 300ms --stats-json "$T/stats.json" --measure 1024

check_pcap() { # FILE PACKETS
	local got
	got=$("$FE_BIN/fe-pcapcheck" "$1")
	echo "  $(basename "$1"): $got"
	[[ "$got" == "packets=$2 "* ]] || fe_fail "$(basename "$1"): expected $2 packets"
	[[ "$got" == *"order=ok"* ]] || fe_fail "$(basename "$1"): frames reordered"
}
# to A: B's and C's broadcasts, C's 20 frames
check_pcap "$T/out0.pcap" 22
# to B: A's and C's broadcasts, A's 50 frames (B was known: not flooded elsewhere)
check_pcap "$T/out1.pcap" 52
# to C: A's and B's broadcasts only
check_pcap "$T/out2.pcap" 2

S=$T/stats.json
fe_check "switch.flooded" "$(fe_json "$S" 'd["switch"]["flooded"]')" 3 3
fe_check "switch.unicast" "$(fe_json "$S" 'd["switch"]["unicast"]')" 70 70
fe_check "switch.mac_learned" "$(fe_json "$S" 'd["switch"]["mac_learned"]')" 3 3
fe_check "switch.mac_moves" "$(fe_json "$S" 'd["switch"]["mac_moves"]')" 0 0
fe_check "port0.rx_pkts" "$(fe_json "$S" 'd["ports"][0]["rx_pkts"]')" 51 51
fe_check "port1.tx_pkts" "$(fe_json "$S" 'd["ports"][1]["tx_pkts"]')" 52 52
fe_check "port1.tx_bytes" "$(fe_json "$S" 'd["ports"][1]["tx_bytes"]')" 50120 50120
# --measure: every frame sent (copies of a flood too) has its RX-to-TX time, which
# includes its up link's delay: 50 of the 76 took at least 10 ms, 20 at least 20 ms
fe_check "measure.samples" "$(fe_json "$S" 'd["measure"]["samples"]')" 76 76
fe_check "measure.rx_to_tx_ns.p50 (ms)" "$(fe_json "$S" 'd["measure"]["rx_to_tx_ns"]["p50"] / 1e6')" 10 200
fe_check "measure.rx_to_tx_ns.max (ms)" "$(fe_json "$S" 'd["measure"]["rx_to_tx_ns"]["max"] / 1e6')" 20 250
fe_check "measure.tx_calls" "$(fe_json "$S" 'd["measure"]["tx_calls"]')" 1 76
fe_check "measure.tx_call_ns.max > 0" "$(fe_json "$S" 'int(d["measure"]["tx_call_ns"]["max"] > 0)')" 1 1
fe_check "links conserve packets (in - out - drops - queued)" \
	"$(fe_json "$S" 'sum(l["in_pkts"] - l["out_pkts"] - l["drop_tail_pkts"] - l["drop_wire_pkts"] - l["q_pkts"] - l["wire_pkts"] for l in d["links"])')" 0 0
grep -q 'mbufs: engine holds 0 after drain; pool \([0-9]*\) of \1 returned$' "$T/dp.log" ||
	{ grep mbufs "$T/dp.log"; fe_fail "mbufs not all returned"; }
echo "pcap_forward: passed"
