#!/usr/bin/env bash
# Two hosts over AF_XDP, with hugepages: ping works; a 1 Gbit/s, 100 us link adds about 4 x 100 us to
# the RTT and carries TCP, never above the rate's payload share; at 200 Mbit/s goodput
# follows the rate, as far as the machine carries it (what it carried at 1 Gbit/s);
# nothing is left behind. What the idle dataplane costs, and the goodput a machine
# reaches, are figures: tests/bench/run.sh idle, veth.
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
fe_dp_stop

echo "1 Gbit/s, 100 us each way"
fe_dp_start $EAL -- --rate 1Gbit --delay 100us
rtt=$(fe_ping_min 1 2 20)
# the configured delays are a floor no ping can beat; above it, at most 160 us more than
# the hosts' own least RTT without them (a lower bound on the difference would carry the
# baseline's noise, as e2e_pipeline's once did)
fe_check "least ping RTT (us), 4 links x 100 us ($((rtt - base)) more than without)" "$rtt" \
	400 $((base + 560))
g1=$(fe_iperf 1 2 4)
hi=$(python3 -c "print(round($(share 1e9) * 1.1, 1))")
fe_check "TCP goodput (Mbit/s): flowed, share 941.5 at most" "$g1" 1 "$hi"
fe_dp_stop

echo "200 Mbit/s, 100 us each way"
fe_dp_start $EAL -- --rate 200Mbit --delay 100us --stats-json "$FE_TMP/s200.json"
g=$(fe_iperf 1 2 4)
fe_dp_stop
# the rate's share, or what this machine carried at 1 Gbit/s if that was less; widened
# where the hypervisor took the dataplane's core (fe_low_steal, as e2e_veth_3hosts does:
# once 167.7 against 169.5 in a whole suite's run), what it took printed
lo=$(python3 -c "print(round(min($(share 2e8), $g1) * 0.9, 1))"); hi=$(python3 -c "print(round($(share 2e8) * 1.1, 1))")
echo "  the hypervisor took $(fe_steal_ms "$FE_TMP/s200.json") ms of the dataplane's core"
fe_low_steal "$lo" 4 "$FE_TMP/s200.json"
fe_check "TCP goodput (Mbit/s), share 188.3$WHY" "$g" "$LO" "$hi"
grep mbufs "$FE_DP_LOG" | sed 's/^/  /'
# the testbed's own interfaces as fabemu-dp found them: it made them promiscuous to read
# every host's frames, and makes them not so at exit (a lent testbed, a lab's NICs)
promisc=$(ip -o link show | awk -F': ' -v n="$FE_TB_NAME-h" 'index($2, n) == 1 && /PROMISC/ { print $2 }')
[ -z "$promisc" ] || fe_fail "fabemu-dp left its ports promiscuous: $promisc"
echo "  ok   its ports are not left promiscuous"
echo "veth_2hosts: passed"
