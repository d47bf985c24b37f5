#!/usr/bin/env bash
# PFC on pcap ports, deterministic: 100 frames of 1000 bytes from host A, over its
# 10 Mbit/s link, into a 1 Mbit/s egress. The switch holds A's bytes, pauses A at XOFF, resumes it at XON;
# nothing is dropped, every frame arrives in order, and with frames=1 the PAUSE and
# XON frames (802.1Qbb, quanta 65535 then 0) go out toward A.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init pcap_pfc

A=02:fe:00:00:00:0a BC=ff:ff:ff:ff:ff:ff
T=$FE_TMP
"$FE_BIN/fe-pcapgen" "$T/in0.pcap" $A $BC 100 1000
"$FE_BIN/fe-pcapgen" "$T/empty.pcap"
fe_dp_once "$T/dp.log" $(fe_eal) --vdev=net_pcap0,rx_pcap=$T/in0.pcap,tx_pcap=$T/out0.pcap \
	--vdev=net_pcap1,rx_pcap=$T/empty.pcap,tx_pcap=$T/out1.pcap \
	-- --regime pfc --pfc xoff=8000,xon=4000,frames=1 --link 0.up:rate=10Mbit \
	--link 1.down:rate=1Mbit \
	--exit-idle 300ms --stats-json "$T/s.json"

out1=$("$FE_BIN/fe-pcapcheck" "$T/out1.pcap")
echo "  to B: $out1"
[[ "$out1" == "packets=100 "*"order=ok"* ]] || fe_fail "lossless: all 100 frames, in order"
out0=$("$FE_BIN/fe-pcapcheck" "$T/out0.pcap")
echo "  to A: $out0"
S=$T/s.json
fe_check "fabric drops" "$(fe_json "$S" 'sum(v for l in d["links"] for k, v in l.items() if k.startswith("drop_") and k.endswith("_pkts"))')" 0 0
xoffs=$(fe_json "$S" 'd["lane_counters"][0]["xoff_events"]')
fe_check "XOFF events of port 0" "$xoffs" 1 100
# a PAUSE and an XON frame per pause; refreshes every quanta/2 (65535 x 512 bit times
# at 10 Mbit/s / 2 = 1.68 s) are never due in these short pauses
fe_check "real PFC frames toward A" "$(echo "$out0" | sed 's/.* pfc=\([0-9]*\).*/\1/')" \
	$((2 * xoffs)) $((2 * xoffs))
fe_check "pause frames counted = real frames sent" \
	"$(fe_json "$S" 'd["lane_counters"][0]["pause_frames"] - d["ports"][0]["pfc_frames_out"]')" 0 0
q=$(echo "$out0" | sed 's/.*pfc_quanta=//')
[[ "$q" == 65535,0* ]] || fe_fail "first PFC frames: PAUSE 65535 then XON 0, got $q"
# headroom by default: 2 x delay (1 us) x 10 Mbit/s + 2 x 1538 = 3078 bytes
fe_check "bytes held from A never above XOFF + headroom" \
	"$(fe_json "$S" 'd["links"][3]["q_bytes_peak"]')" 8000 $((8000 + 3078))
echo "pcap_pfc: passed"
