#!/usr/bin/env bash
# The PFC watchdog on a host's port, with real hosts (docs/topologies.md): under PFC,
# host 2 stops taking frames for 1.5 s (`fabemuctl hold 1.down`, a pause storm) while
# host 1 sends it UDP. Without a watchdog the frames wait out the pause and nothing is
# dropped for it; with `set pfc watchdog=100ms` (at run time) the port is stormed: what
# waits for host 2 is dropped by the watchdog (drop_watchdog_pkts on 1.down), counted as
# storms on port 1, and frames reach host 2 again once the pause ends.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init watchdog
fe_hosts fewd 2
T=$FE_TMP
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) -- --regime pfc --rate 100Mbit
fe_ns 2 iperf3 -s -p 5501 -D --logfile "$T/srv.log"
sleep 0.3

storm() { # NAME: a UDP flow to host 2 while it pauses its port for 1.5 s; counters in NAME.json
	fe_ctl reset >/dev/null
	fe_ns 1 iperf3 -c "$(fe_ip 2)" -p 5501 -u -b 20M -t 3 -l 1000 >"$T/$1.out" 2>&1 &
	local pid=$!
	sleep 0.5
	fe_ctl hold 1.down 1500ms >/dev/null
	wait "$pid" || { cat "$T/$1.out"; fe_fail "$1: iperf3"; }
	sleep 0.3
	fe_ctl -j counters >"$T/$1.json"
}
val() { # NAME EXPR
	fe_json "$T/$1.json" "$2"
}
P1='[p for p in d["ports"] if p["port"] == 1][0]'
L1='[l for l in d["links"] if l["link"] == "1.down"][0]'

storm none
fe_check "no watchdog: storms" "$(val none "$P1[\"pfc_wd_storms\"]")" 0 0
fe_check "no watchdog: watchdog drops" "$(val none "$L1[\"drop_watchdog_pkts\"]")" 0 0
fe_check "no watchdog: held" "$(val none "$L1[\"held_ns\"] // 1000000")" 1400 1600
fe_check "no watchdog: every frame waited and was delivered" \
	"$(val none "$L1[\"in_pkts\"] - $L1[\"out_pkts\"]")" 0 0

fe_ctl set pfc watchdog=100ms >/dev/null
storm drop
fe_check "watchdog 100 ms: storms" "$(val drop "$P1[\"pfc_wd_storms\"]")" 1 20
fe_check "watchdog 100 ms: frames it dropped" "$(val drop "$L1[\"drop_watchdog_pkts\"]")" 1 100000
# 0.5 s of frames before the pause and 1 s after it were delivered (about 1200 and 2400)
fe_check "watchdog 100 ms: frames delivered" "$(val drop "$L1[\"out_pkts\"]")" 2000 7600
fe_check "every frame delivered or dropped by it" \
	"$(val drop "$L1[\"in_pkts\"] - $L1[\"out_pkts\"] - $L1[\"drop_watchdog_pkts\"]")" 0 0
