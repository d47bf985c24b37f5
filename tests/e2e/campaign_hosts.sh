#!/usr/bin/env bash
# A campaign against hosts that exist already (testbed kind hosts, docs/campaigns.md):
# the test makes three hosts itself (network namespaces fe-chPID-N, each with a veth pair
# whose host end, eth0, holds 198.19.7.N/24, set up as testbeds/veth.sh sets a host up),
# and the campaign file names them only by their prefixes (`ip netns exec NS`) and their
# ports by net_af_packet devices on the root namespace's ends: the path a lab's hosts
# take. Two campaigns: a command job (iperf3 transfers as its iterations, a server
# beside it) under an ideal and a lossy regime, with the capacity measured through the
# prefixes; then the MPI all-reduce with a fault at an iteration (its hook). Each run
# completes with its figures: iteration times, every frame accounted for (unexplained
# 0), the lossy run's retransmissions read through the prefix nonzero and within what
# the test reads from the namespace over the campaign. The campaign makes no namespace
# or interface of its own, changes nothing on the hosts and leaves nothing running in
# them; the test removes what it made on exit, on error and on Ctrl-C.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init camphosts
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"
P=fe-ch$(($$ % 100000)) # this test's namespaces P-N and root-side interfaces P-N
MADE=$T/made            # what the test made, a line each, written before it is made
: >"$MADE"

hosts_down() {
	local kind obj
	trap '' INT TERM
	[ -f "$MADE" ] || return 0
	tac "$MADE" | while read -r kind obj; do
		case "$kind" in
		netns)
			pids=$(ip netns pids "$obj" 2>/dev/null || true)
			[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
			ip netns del "$obj" 2>/dev/null || true ;;
		link) ip link del "$obj" 2>/dev/null || true ;;
		esac
	done
	rm -f "$MADE"
}
trap 'rc=$?; set +e; hosts_down; (exit $rc); fe_cleanup' EXIT

# a namespace may only choose a congestion control the machine allows (fe_allow_cc)
fe_allow_cc cubic
for i in 1 2 3; do
	ns=$P-$i
	ip netns list | awk '{print $1}' | fe_grep_q -x "$ns" && fe_fail "namespace $ns exists"
	ip link show "$ns" >/dev/null 2>&1 && fe_fail "interface $ns exists"
	echo "netns $ns" >>"$MADE"
	ip netns add "$ns"
	echo "link $ns" >>"$MADE"
	ip link add "$ns" type veth peer name eth0 netns "$ns"
	sysctl -qw "net.ipv6.conf.$ns.disable_ipv6=1"
	ip link set "$ns" up
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 address "$(printf '02:fe:00:00:07:%02x' "$i")"
	ip -n "$ns" addr add "198.19.7.$i/24" dev eth0
	ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=cubic \
		net.ipv4.tcp_no_metrics_save=1 net.ipv6.conf.all.disable_ipv6=1
	ip -n "$ns" link set eth0 up
done
# what a campaign runner of PID would name its own: its veth testbed (hosts and bridge),
# a split regime's boxes and their trunks (control/campaign/cg_run.c, cg_dataplane.c)
runner_names() {
	{
		ip netns list | awk '{print $1}'
		ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//'
	} | grep -E "^($(fe_campaign_testbed "$1")-|fe-campaign-$1-|fe$(printf '%05d' $(($1 % 100000)))t)" || true
}
# a campaign run in the background, the machine watched while it runs for anything it
# names its own (other engineers' namespaces may come and go meanwhile: not compared)
campaign_run() { # FILE OUT
	local pid seen=
	"$CTL" campaign run "$1" --out "$2" >"$2.out" 2>&1 &
	pid=$!
	RUNNERS+=" $pid"
	while kill -0 "$pid" 2>/dev/null; do
		seen+=$(runner_names "$pid")
		sleep 0.2
	done
	rc=0
	wait "$pid" || rc=$?
	seen+=$(runner_names "$pid")
	[ -z "$seen" ] || fe_fail "the campaign made namespaces or interfaces: $seen"
	echo "  ok   no namespace or interface of its own (checked every 0.2 s while it ran)"
	return "$rc"
}
RUNNERS= # the campaign runners' PIDs
netns_ours() { ip netns list | awk '{print $1}' | grep "^$P-" | sort | tr '\n' ' '; }
links_ours() { ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^$P-" | sort | tr '\n' ' '; }
hostset() { for i in 1 2 3; do ip netns exec "$P-$i" sysctl -n net.ipv4.tcp_ecn net.ipv4.tcp_congestion_control net.ipv6.conf.all.disable_ipv6; ip netns exec "$P-$i" cat /sys/class/net/eth0/mtu; done | tr '\n' ' '; }
NS0=$(netns_ours) LINKS0=$(links_ours) SET0=$(hostset)

host() { # host I's entry in the campaign file
	echo "    - {name: h$1, prefix: ip netns exec $P-$1, address: 198.19.7.$1, ifname: eth0, port: \"net_af_packet$(($1 - 1)),iface=$P-$1\"}"
}
{
	echo "testbed:"
	echo "  kind: hosts"
	echo "  hosts:"
	host 1
	host 2
	host 3
} >"$T/testbed.yaml"

echo "campaign check: testbed kind hosts, its values and what it refuses"
fe_campaign_refused "name: x\n$(sed 's/$/\\n/' "$T/testbed.yaml" | tr -d '\n')" \
	"regimes:\n  - {name: w, kind: wire}\n|bad.yaml:9: regimes.0.kind: wire is the campaign's veth hosts joined by a Linux bridge: not with testbed kind hosts" \
	"cores: split\nregimes:\n  - {name: a, profile: ideal}\n|bad.yaml:8: cores: not with testbed kind hosts" \
	"host-ecn: false\nregimes:\n  - {name: a, profile: ideal}\n|bad.yaml:8: host-ecn: not with testbed kind hosts (the campaign changes nothing on existing hosts" \
	"regimes:\n  - {name: a, profile: ideal, pmd: af_xdp}\n|bad.yaml:9: regimes.0.pmd: not with testbed kind hosts"
fe_campaign_refused 'name: x\ntestbed:\n  kind: hosts\n  hosts:\n' \
	"    - {name: a, prefix: p, address: 198.19.7.1, port: net_af_packet0}\n    - {name: b, prefix: p, address: 198.19.7.300, port: net_af_packet1}\n|bad.yaml:6: testbed.hosts.1.address '198.19.7.300': an IPv4 address" \
	"    - {name: a, prefix: p, address: 198.19.7.1, port: net_af_packet0}\n    - {name: b, prefix: p, address: 198.19.7.2, port: eth1}\n|bad.yaml:6: testbed.hosts.1.port 'eth1': a PCI address (0000:03:00.0) or a vdev (net_af_packet0,iface=IF)" \
	"    - {name: a, prefix: p, address: 198.19.7.1, port: net_af_packet0}\n|bad.yaml:2: testbed: kind hosts needs hosts: 2 to 16 of them"

fe_campaign_refused 'name: x\nhosts: 2\n' \
	"testbed: {kind: veth, lcore: 1}\nregimes:\n  - {name: a, profile: ideal}\n|bad.yaml:3: testbed.lcore: kind hosts's (kind veth keeps core 0 for the dataplane: cores)"
fe_campaign_refused "name: x\n$(sed 's/$/\\n/' "$T/testbed.yaml" | tr -d '\n')" \
	"  lcore: x\nregimes:\n  - {name: a, profile: ideal}\n|bad.yaml:8: testbed.lcore 'x'"

# the dataplane's core: testbed.lcore, here the last (an isolated core on a lab's box);
# one this machine does not have is refused before anything runs, naming it
sed 's/^  kind: hosts$/  kind: hosts\n  lcore: 1000/' "$T/testbed.yaml" |
	printf 'name: t-core\n%s\njob: {kind: command, command: "true"}\nregimes:\n  - {name: i, profile: ideal}\n' "$(cat)" >"$T/core.yaml"
rc=0
out=$("$CTL" campaign run "$T/core.yaml" --out "$T/core" 2>&1) || rc=$?
[ "$rc" != 0 ] && grep -qF "testbed.lcore 1000: not a core this machine lets it run on" <<<"$out" ||
	fe_fail "testbed.lcore 1000: exit $rc, $(tail -3 <<<"$out")"
echo "  ok   testbed.lcore 1000: refused at the run's start, named"
LCORE=$(($(nproc) - 1))
cat >"$T/iperf.yaml" <<Y
name: t-hosts
repetitions: 1
fidelity: {capacity-time: 1s}
$(cat "$T/testbed.yaml")
  lcore: $LCORE
beside:
  - {host: 2, command: "exec iperf3 -s -p 5391"}
job:
  kind: command
  command: >-
    for g in 1 2 3; do
      t0=\$(date +%s%N); iperf3 -c 198.19.7.2 -p 5391 -n 4M >/dev/null || exit 1;
      echo "iter \$g 4194304 \$g \$(( (\$(date +%s%N) - t0) / 1000 )) \$t0";
    done
regimes:
  - {name: ideal, profile: ideal}
  - {name: lossy, profile: ethernet-lossy, scale: 100, links: ["0.up:loss=2%"]}
Y
"$CTL" campaign check "$T/iperf.yaml" | sed 's/^/  /'
echo "a command job and a server beside it, through the prefixes: ideal, then 2 % loss"
# host 1's retransmissions not undone by a D-SACK, as the test reads them in its namespace
retrans() {
	ip netns exec "$P-1" nstat -asz TcpRetransSegs TcpExtTCPDSACKRecvSegs |
		awk '$1 == "TcpRetransSegs" {r = $2} $1 == "TcpExtTCPDSACKRecvSegs" {d = $2} END {print r - d}'
}
r0=$(retrans)
rc=0
campaign_run "$T/iperf.yaml" "$T/iperf" || rc=$?
r1=$(retrans)
[ "$rc" = 0 ] || { fe_campaign_why "$T/iperf.out"; fe_fail "the campaign failed ($rc)"; }
sed -n '/^testbed:/,/^verdicts/p' "$T/iperf.out" | sed 's/^/  /'
grep '^  host h' "$T/iperf.out" | sed 's/^/ /'
R=$T/iperf/campaign.json
fe_check "status complete" "$(fe_json "$R" '1 if d["status"] == "complete" else 0')" 1 1
fe_check "dataplanes that ran on testbed.lcore $LCORE" \
	"$(cat "$T"/iperf/logs/dp-*.log | grep -c "^fabemu-dp .*, lcore $LCORE, " || true)" 3 3
fe_check "inputs: testbed kind hosts, 3 hosts checked" "$(fe_json "$R" 'len(d["inputs"]["testbed_hosts"]) if d["inputs"]["testbed"] == "hosts" else 0')" 3 3
fe_check "capacity through the prefixes (Gbit/s)" "$(fe_json "$R" 'round(d["capacity"]["ideal_bps"] / 1e9, 3)')" 0.001 100
for x in ideal lossy; do
	run="[r for r in d['runs'] if r['regime'] == '$x'][0]"
	fe_check "$x: job status" "$(fe_json "$R" "$run['job_status']")" 0 0
	fe_check "$x: iterations (3 transfers of 4 MiB)" "$(fe_json "$R" "len([i for i in $run['iterations'] if i[3] > 0])")" 3 3
	fe_check "$x: frames unexplained" "$(fe_json "$R" "$run['unexplained']")" 0 0
	fe_check "$x: frames host 1 sent (through the prefix)" "$(fe_json "$R" "$run['hosts'][0]['tx_packets']")" 1000 1e9
	# the loop's passes reach the campaign (the verdict's account of a late run, and the
	# wait of a ring with no receive time); every port here is timed: no estimate
	fe_check "$x: the loop's passes in the run's counters" "$(fe_json "$R" "sum($run['counters']['idle']['pass_hist_ns'])")" 1000 1e12
	fe_check "$x: no ring estimated from them (every port timed)" "$(fe_json "$R" "1 if $run['edge_wait_loop'] is None else 0")" 1 1
done
lossy="[r for r in d['runs'] if r['regime'] == 'lossy'][0]"
got=$(fe_json "$R" "$lossy['tcp'][0]['real_retrans']")
fe_check "lossy: host 1's retransmissions (read through its prefix)" "$got" 1 1e9
fe_check "lossy: ... at most what the test read over the campaign ($((r1 - r0)))" "$got" 1 $((r1 - r0))
fe_check "lossy: fabric drops on 0.up" "$(fe_json "$R" "[l['drops'] for l in $lossy['links'] if l['link'] == '0.up'][0]")" 1 1e9
[ ! -e "$T/iperf/logs/testbed.log" ] || fe_fail "the campaign ran testbeds/veth.sh: $(cat "$T/iperf/logs/testbed.log")"

echo "the MPI all-reduce through the prefixes, a fault at iteration 3 through its hook"
cat >"$T/mpi.yaml" <<Y
name: t-hosts-mpi
fidelity: {capacity: false}
$(cat "$T/testbed.yaml")
job: {kind: allreduce, sizes: [64KiB], iterations: 5, warmup: 1}
regimes:
  - {name: eth, profile: ethernet-lossy, scale: 100}
timeline:
  - {action: delay, at: {iteration: 3}, until: {iteration: 4}, link: 1.down, delay: 20ms}
Y
rc=0
campaign_run "$T/mpi.yaml" "$T/mpi" || rc=$?
[ "$rc" = 0 ] || { fe_campaign_why "$T/mpi.out"; fe_fail "the campaign failed ($rc)"; }
R=$T/mpi/campaign.json
fe_check "MPI: iterations" "$(fe_json "$R" 'len(d["runs"][0]["iterations"])')" 5 5
fe_check "MPI: frames unexplained" "$(fe_json "$R" 'd["runs"][0]["unexplained"]')" 0 0
# iteration 3, under the 20 ms delay on host 2's link, over the others' median by about
# the delay at least (one on this loaded box may be slow too: not their slowest)
fe_log "MPI iterations (ms): $(fe_json "$R" '" ".join("%.1f" % (i[3] / 1000) for i in d["runs"][0]["iterations"])')"
fe_check "MPI: iteration 3 over the others' median (ms)" "$(fe_json "$R" 'round((max(i[3] for i in d["runs"][0]["iterations"] if i[0] == 3) - sorted(i[3] for i in d["runs"][0]["iterations"] if i[0] != 3)[2]) / 1000, 1)')" 15 1e9
grep -q "fault before iteration 3: delay 1.down delay=20ms" "$T/mpi.out" ||
	fe_fail "the hook did not run the fault: $(grep -i fault "$T/mpi.out")"

echo "a host that is not as the file says: refused at set-up (exit 3), nothing changed"
setup_refused() { # FILE WANT
	rc=0
	"$CTL" campaign run "$1" --out "$T/refused" >"$T/refused.out" 2>&1 || rc=$?
	[ "$rc" = 3 ] && grep -qF -- "$2" "$T/refused.out" ||
		fe_fail "want exit 3 and '$2': $rc $(cat "$T/refused.out")"
	echo "  ok   $2"
}
sed 's/address: 198.19.7.3,/address: 198.19.7.9,/' "$T/mpi.yaml" >"$T/addr.yaml"
setup_refused "$T/addr.yaml" "host h3: no address 198.19.7.9 on eth0 (through 'ip netns exec $P-3')"
sed 's/^fidelity: .*/&\nmtu: 9000/' "$T/mpi.yaml" >"$T/mtu.yaml"
setup_refused "$T/mtu.yaml" "host h1: eth0's MTU is 1500, not 9000: the campaign does not change an existing host's"

echo "what the campaigns left: nothing made, nothing set, nothing running"
fe_check "the test's namespaces as before" "$([ "$(netns_ours)" = "$NS0" ] && echo 1 || echo 0)" 1 1
fe_check "the test's interfaces as before" "$([ "$(links_ours)" = "$LINKS0" ] && echo 1 || echo 0)" 1 1
fe_check "the hosts' settings as before (ECN, cc, IPv6, MTU)" "$([ "$(hostset)" = "$SET0" ] && echo 1 || echo 0)" 1 1
for i in 1 2 3; do
	fe_check "processes left in host $i" "$(ip netns pids "$P-$i" | wc -l)" 0 0
done
left=
for pid in $RUNNERS; do # (other engineers' runners may be at work meanwhile)
	left+=$(ls /run/fabemu/ 2>/dev/null | grep -E "^(testbed-$(fe_campaign_testbed "$pid")\$|campaign-$pid\.)" || true)
	left+=$(ls /var/run/dpdk/ 2>/dev/null | grep -E "^fe-campaign-$pid\$" || true)
done
fe_check "records, sockets, testbeds, DPDK files of its runners left" "$(echo -n "$left" | wc -w)" 0 0
echo "campaign_hosts: passed"
