#!/usr/bin/env bash
# Two hosts over AF_XDP, with hugepages: ping works; a 1 Gbit/s, 100 us link adds about 4 x 100 us to
# the RTT and carries TCP at the rate's payload share; at 200 Mbit/s goodput follows;
# the idle dataplane does not take a core; nothing is left behind.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init veth2
fe_hosts fev2 2
PMD=${FABEMU_PMD:-af_xdp}
EAL="$(fe_eal huge) $(fe_vdevs "$PMD")"

# TCP payload share of the wire: 1448 payload bytes (MSS with timestamps) in a
# 1514-byte frame plus 24 bytes of FCS, preamble and inter-frame gap.
share() { python3 -c "print($1 * 1448 / 1538 / 1e6)"; }

echo "baseline: no impairment ($PMD)"
fe_dp_start $EAL -- --buffer-pkts 1000
base=$(fe_ping_min 1 2 20)
echo "  least ping RTT through the dataplane: $base us"
# idle: CPU time the dataplane takes over 2 s with no traffic (utime + stime, in ticks)
cpu0=$(awk '{print $14 + $15}' /proc/$FE_DP_PID/stat)
sleep 2
cpu1=$(awk '{print $14 + $15}' /proc/$FE_DP_PID/stat)
fe_check "idle CPU use of the dataplane (% of a core)" \
	"$(python3 -c "print(round(100 * ($cpu1 - $cpu0) / $(getconf CLK_TCK) / 2, 1))")" 0 50
fe_dp_stop

echo "1 Gbit/s, 100 us each way"
fe_dp_start $EAL -- --rate 1Gbit --delay 100us
rtt=$(fe_ping_min 1 2 20)
fe_check "least ping RTT added (us), 4 links x 100 us" "$((rtt - base))" 350 560
g=$(fe_iperf 1 2 4)
lo=$(python3 -c "print(round($(share 1e9) * 0.9, 1))"); hi=$(python3 -c "print(round($(share 1e9) * 1.1, 1))")
fe_check "TCP goodput (Mbit/s), share 941.5" "$g" "$lo" "$hi"
fe_dp_stop

echo "200 Mbit/s, 100 us each way"
fe_dp_start $EAL -- --rate 200Mbit --delay 100us
g=$(fe_iperf 1 2 4)
lo=$(python3 -c "print(round($(share 2e8) * 0.9, 1))"); hi=$(python3 -c "print(round($(share 2e8) * 1.1, 1))")
fe_check "TCP goodput (Mbit/s), share 188.3" "$g" "$lo" "$hi"
fe_dp_stop
grep mbufs "$FE_DP_LOG" | sed 's/^/  /'
echo "veth_2hosts: passed"
