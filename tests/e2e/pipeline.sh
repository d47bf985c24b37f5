#!/usr/bin/env bash
# Two forwarding lcores (--lcores 2, a pipeline): traffic flows both ways with the
# configured delay, every packet read is sent, run-time changes, counter resets and
# holds reach both stages, every mbuf comes back. The lossless regimes refuse it.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init pipeline
fe_hosts fepl 2
EAL="$(fe_eal_mem 2048) --no-pci -l 0,1 --file-prefix fe-$FE_SELF $(fe_vdevs af_packet)"

rc=0; out=$("$FE_BIN/fabemu-dp" $EAL -- --lcores 2 --regime credit 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -qF -- "--lcores 2: only the lossy regime runs as a pipeline" <<<"$out" ||
	fe_fail "credit regime with 2 lcores: $rc $(tail -1 <<<"$out")"
rm -rf "/var/run/dpdk/fe-$FE_SELF"
echo "  ok   the credit regime refuses --lcores 2"

fe_dp_start $EAL -- --lcores 2 --idle-sleep 0s --delay 100us --rate 1Gbit --stats-json "$FE_TMP/s.json"
grep -q '^pipeline: RX, up links and switch on lcore 0; down links and TX on lcore 1' "$FE_DP_LOG" ||
	fe_fail "no pipeline: $(head -3 "$FE_DP_LOG")"
rtt=$(fe_ping_min 1 2 20)
fe_check "least ping RTT (us), 4 links x 100 us" "$rtt" 400 1500
g=$(fe_iperf 1 2 3)
# traffic flows, never above the rate; how close to it depends on the machine
# (tests/bench/run.sh veth: the pipeline's row)
fe_check "TCP goodput (Mbit/s) at 1 Gbit/s: flowed, below the rate" "$g" 1 960
fe_ctl set 0.up delay=1ms | sed 's/^/  /'
rtt2=$(fe_ping_min 1 2 20)
# the configured delays are a floor no ping can beat, so each least RTT is checked against
# its own: a difference of two least RTTs carries the noise of both (579 us before, of
# 400, and 1337 after, of 1300, made "758 more" once, on a busy machine)
fe_check "least ping RTT (us), 3 links x 100 us + 0.up at 1 ms ($((rtt2 - rtt)) more)" "$rtt2" \
	1300 2400
fe_ctl hold 1.down 10ms | sed 's/^/  /'
fe_ctl reset >/dev/null
fe_ctl -j counters >"$FE_TMP/c.json"
fe_check "port 0 rx_pkts after reset" "$(fe_json "$FE_TMP/c.json" 'd["ports"][0]["rx_pkts"]')" 0 2
fe_ping_avg 1 2 5 >/dev/null
fe_dp_stop
S=$FE_TMP/s.json
fe_check "every packet read was sent (rx - tx)" \
	"$(fe_json "$S" 'sum(p["rx_pkts"] for p in d["ports"]) - sum(p["tx_pkts"] for p in d["ports"])')" 0 0
fe_check "handoff ring full" "$(fe_json "$S" 'd["switch"]["handoff_full"]')" 0 0
grep -q 'mbufs: engine holds 0 after drain; pool \([0-9]*\) of \1 returned$' "$FE_DP_LOG" ||
	fe_fail "mbufs not all returned"
echo "pipeline: passed"
