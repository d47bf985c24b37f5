#!/usr/bin/env bash
# Tail drop exactly at the buffer limit (packets, then bytes) and serialization at the
# configured rate, checked on the timestamps the pcap PMD writes at transmit (give or take
# the lateness the box reports for the link).
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init pcap_drops

A=02:fe:00:00:00:0a BC=ff:ff:ff:ff:ff:ff
T=$FE_TMP
# 100 frames of 1000 bytes arrive within a fraction of a millisecond; at 100 kbit/s one
# takes (1000 + 24) * 80 us = 81.92 ms to serialize, so the buffer fills long before it
# drains. At 1 Mbit/s (8.2 ms a frame) a run under ASan, beside the unit tests, once read
# slowly enough that 2 more frames drained and 12 left; reading all 100 takes 0.1-0.4 ms
# here, and at 100 Mbit/s the same run lets 11 to 15 frames through.
"$FE_BIN/fe-pcapgen" "$T/in0.pcap" $A $BC 100 1000
run() { # NAME LINK-SPEC
	fe_dp_once "$T/$1.log" $(fe_eal) \
		--vdev=net_pcap0,rx_pcap=$T/in0.pcap,tx_pcap=$T/$1-out0.pcap \
		--vdev=net_pcap1,rx_pcap=$T/empty.pcap,tx_pcap=$T/$1-out1.pcap \
		-- --link "$2" --exit-idle 200ms --stats-json "$T/$1.json"
}
"$FE_BIN/fe-pcapgen" "$T/empty.pcap"

run pkts "1.down:rate=100kbit,buffer-pkts=10,buffer=0"
out=$("$FE_BIN/fe-pcapcheck" "$T/pkts-out1.pcap")
echo "  buffer-pkts=10: $out"
[[ "$out" == "packets=10 "*"order=ok"* ]] || fe_fail "expected exactly 10 frames, in order"
S=$T/pkts.json
fe_check "1.down drop_tail_pkts" "$(fe_json "$S" 'd["links"][3]["drop_tail_pkts"]')" 90 90
fe_check "1.down drop_tail_bytes" "$(fe_json "$S" 'd["links"][3]["drop_tail_bytes"]')" 90000 90000
fe_check "1.down q_pkts_peak" "$(fe_json "$S" 'd["links"][3]["q_pkts_peak"]')" 10 10
fe_check "1.down in = out + dropped" \
	"$(fe_json "$S" 'd["links"][3]["in_pkts"] - d["links"][3]["out_pkts"] - d["links"][3]["drop_tail_pkts"]')" 0 0
# frames leave one serialization time apart: 81920 us (pcap timestamps are in us), give
# or take what the box says it was late: the pcap PMD stamps a frame when it is sent, up
# to late_max_ns after its tick, so the mean over N frames may be off by that over N - 1
# (8854.7 us once at 1 Mbit/s, on a day the hypervisor took the box's core)
late_us() { fe_json "$1" 'd["links"][3].get("late_max_ns", 0) // 1000'; }
gap=$(echo "$out" | sed 's/.*mean_gap_us=\([0-9.]*\).*/\1/')
late=$(late_us "$S")
fe_check "mean gap between frames at 100kbit/s (us), the box late by up to $late us" "$gap" \
	$((81000 - late / 9)) $((83000 + late / 9))

run bytes "1.down:rate=100kbit,buffer=5000,buffer-pkts=0"
out=$("$FE_BIN/fe-pcapcheck" "$T/bytes-out1.pcap")
echo "  buffer=5000: $out"
[[ "$out" == "packets=5 "* ]] || fe_fail "expected exactly 5 frames of 1000 bytes in 5000 bytes"
fe_check "1.down drop_tail_pkts" "$(fe_json "$T/bytes.json" 'd["links"][3]["drop_tail_pkts"]')" 95 95

run rate10 "1.down:rate=10Mbit,buffer-pkts=0,buffer=0"
out=$("$FE_BIN/fe-pcapcheck" "$T/rate10-out1.pcap")
echo "  10Mbit, no limit: $out"
[[ "$out" == "packets=100 "*"order=ok"* ]] || fe_fail "expected all 100 frames, in order"
gap=$(echo "$out" | sed 's/.*mean_gap_us=\([0-9.]*\).*/\1/')
late=$(late_us "$T/rate10.json")
fe_check "mean gap between frames at 10Mbit/s (us), the box late by up to $late us" "$gap" \
	$((780 - late / 99)) $((860 + late / 99))
echo "pcap_drops: passed"
