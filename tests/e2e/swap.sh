#!/usr/bin/env bash
# Atomic run-time changes under real traffic: while iperf3 runs, fabemuctl swaps two
# profiles every few milliseconds (rate, delay, buffer, a filter rule). The swaps cause
# no drop anywhere (fabric, edge), no real TCP retransmission (but what TCP's timers
# sent while the hypervisor held the box, said so), no reordering of a UDP stream;
# every change is applied, the last one stays; traffic flows; every mbuf comes back.
# What holds on any machine is checked; how many swaps fit in the run and how fast each
# takes effect depend on the machine, and are printed as figures (`figure` lines), for
# tests/bench/run.sh change.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init swap
fe_hosts feswap 2
T=$FE_TMP
cat >"$T/a.yaml" <<'Y'
name: swap-a
link:
  rate: 1Gbit
  delay: 50us
  buffer: 8MiB
  buffer-pkts: 8000
Y
cat >"$T/b.yaml" <<'Y'
name: swap-b
link:
  rate: 700Mbit
  delay: 150us
  buffer: 16MiB
  buffer-pkts: 16000
links:
  - select: all
    drop: {first: 1000000}
    match: udp port 9
Y
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) -- --profile "$T/a.yaml"

# swap until the file $T/stop appears; count the swaps
swapper() {
	local n=0
	while [ ! -e "$T/stop" ]; do
		fe_ctl apply "$T/b.yaml" >/dev/null
		sleep 0.002
		fe_ctl apply "$T/a.yaml" >/dev/null
		sleep 0.002
		n=$((n + 2))
	done
	echo $n >"$T/swaps"
}
# traffic below both rates, so that only a change could drop or delay a packet
run_with_swaps() { # iperf3 args...
	rm -f "$T/stop"
	swapper &
	local sp=$!
	fe_iperf_json 1 2 "$@" >"$T/iperf.json"
	touch "$T/stop"
	wait $sp
}
fe_iperf_json() { # FROM TO args...: the receiver's JSON report
	local from=$1 to=$2 port=$((5201 + RANDOM % 500))
	shift 2
	fe_ns "$to" iperf3 -s -1 -p "$port" -J >"$T/server.json" 2>&1 &
	local srv=$!
	fe_listening "$to" "$port"
	fe_ns "$from" iperf3 -c "$(fe_ip "$to")" -p "$port" "$@" -J >"$T/client.json" ||
		fe_fail "iperf3 failed: $(tail -5 "$T/client.json")"
	wait $srv || true
	cat "$T/client.json"
}
# a figure of the run, printed and not checked (tests/bench/run.sh change shows them)
figure() { printf '  figure %-44s %10s\n' "$1" "$2"; }
drops() { # all drops of every link, and the edge's
	fe_ctl -j counters | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(v for l in d["links"] for k, v in l.items() if k.startswith("drop_") and k.endswith("_pkts")),
      sum(p["imissed"] + p["rx_nombuf"] for p in d["ports"]))'
}

echo "TCP at 300 Mbit/s for 5 s while the profiles swap"
c0=$(fe_tcp_counters 1)
run_with_swaps -t 5 -b 300M
c1=$(fe_tcp_counters 1)
g=$(fe_json "$T/iperf.json" 'round(d["end"]["sum_received"]["bits_per_second"] / 1e6, 1)')
read -r fabric edge <<<"$(drops)"
swaps=$(cat "$T/swaps")
figure "swaps during the TCP run (5 s)" "$swaps"
figure "TCP goodput (Mbit/s), paced at 300" "$g"
fe_check "swaps during the run (at least one of each)" "$swaps" 2 1000000
fe_check "TCP goodput (Mbit/s): traffic flowed" "$g" 1 310
fe_check "fabric drops" "$fabric" 0 0
fe_check "edge drops (imissed, rx_nombuf)" "$edge" 0 0
# TCP sends nothing again unless a frame was lost or its timers fired. With nothing lost
# (above), a retransmission is its timers': a loss probe after a few ms without an ACK,
# an RTO after 200 ms at least. The box stopping that long is the box's, not the swaps':
# where the hypervisor took 100 ms or more of the dataplane's core (cpu_steal_ns, in 10
# ms ticks), a retransmission its timers account for, and an RTO for each 200 ms taken,
# are allowed, and the check says so (one real retransmission once, nothing dropped,
# on an evening the hypervisor took seconds of a core a minute)
rt=$(fe_real_retrans "$c0" "$c1")
rto=$(echo "$c0 $c1" | awk '{print $7 - $2}')
timers=$(echo "$c0 $c1" | awk '{print ($7 - $2) + ($8 - $3)}')
fe_ctl -j counters >"$T/steal.json"
ms=$(fe_steal_ms "$T/steal.json")
echo "  TCP: $rt real retransmissions, $rto RTOs, $((timers - rto)) loss probes; the hypervisor took $ms ms of the dataplane's core"
if [ "$ms" -ge 100 ]; then
	fe_check "real TCP retransmissions, no more than its timers sent ($ms ms stolen)" "$rt" 0 "$timers"
	fe_check "TCP timeouts, one a 200 ms stolen at most ($ms ms)" "$rto" 0 "$((ms / 200))"
else
	fe_check "real TCP retransmissions" "$rt" 0 0
	fe_check "TCP timeouts" "$rto" 0 0
fi

echo "UDP at 100 Mbit/s for 3 s while the profiles swap"
fe_ctl reset >/dev/null
u0=$(fe_ns 2 nstat -asz UdpRcvbufErrors | awk '{s += $2} END {print s + 0}')
run_with_swaps -u -b 100M -l 1200 -t 3
u1=$(fe_ns 2 nstat -asz UdpRcvbufErrors | awk '{s += $2} END {print s + 0}')
echo "  host 2: $((u1 - u0)) datagrams dropped by its socket buffer; iperf3: $(fe_json "$T/server.json" 'd["end"]["sum"]["packets"]') datagrams, $(fe_json "$T/server.json" 'd["end"]["sum"]["lost_packets"]') lost"
read -r fabric edge <<<"$(drops)"
swaps=$((swaps + $(cat "$T/swaps")))
figure "swaps during the UDP run (3 s)" "$(cat "$T/swaps")"
fe_check "swaps during the run (at least one of each)" "$(cat "$T/swaps")" 2 1000000
fe_check "UDP datagrams received: traffic flowed" "$(fe_json "$T/server.json" 'd["end"]["sum"]["packets"]')" 1 100000000
fe_check "UDP datagrams out of order" "$(fe_json "$T/server.json" 'd["end"]["sum"].get("out_of_order", 0)')" 0 0
fe_check "fabric drops" "$fabric" 0 0
fe_check "edge drops (imissed, rx_nombuf)" "$edge" 0 0
# iperf3 also counts what the receiving host's socket buffer dropped (a busy 2-core
# box) and what is in flight when the test ends; the emulator's own part is the drop
# counters above (0). What neither explains must be near 0.
fe_check "UDP lost beyond the host's socket-buffer drops (% of sent)" \
	"$(fe_json "$T/server.json" "round(100 * (d['end']['sum']['lost_packets'] - $((u1 - u0))) / d['end']['sum']['packets'], 3)")" -100 0.1

fe_ctl -j status >"$T/status.json"
fe_ctl status | grep -A1 'took effect' | sed 's/^/  /'
# every apply returned only once the lcore had taken it: as many changes as swaps
fe_check "changes applied, one a swap" "$(fe_json "$T/status.json" 'd["changes"]')" "$swaps" "$swaps"
fe_check "the last change stays (profile swap-a)" \
	"$(fe_json "$T/status.json" 'int(d["profile"] == "swap-a")')" 1 1
# the lcore takes a change at its next pass: within its idle sleep (100 us) when it
# runs; on two cores shared with iperf3 and a fabemuctl process every 2 ms, the
# scheduler sometimes keeps it off the CPU longer (docs/control.md)
figure "publish-to-effect time, p99 (us)" "$(fe_json "$T/status.json" 'round(d["effect_us"]["p99"], 1)')"
figure "adoption by the lcore, p99 (us)" "$(fe_json "$T/status.json" 'round(d["adopt_us"]["p99"], 2)')"
fe_dp_stop
grep -q 'mbufs: engine holds 0 after drain; pool \([0-9]*\) of \1 returned$' "$FE_DP_LOG" ||
	fe_fail "mbufs not all returned"
echo "swap: passed"
