#!/usr/bin/env bash
# One fabric split across two dataplanes (docs/scale-out.md), on this machine: a
# leaf-spine of 2 leaves and 1 spine, the leaves and their hosts on box a, the spine on
# box b (a network namespace of its own, as another machine would be), the two links
# between them each a veth pair (a trunk). Each box measures its
# trunks' latency at start and subtracts it. The same topology on one dataplane is the
# reference: the ping's least round trip (4 links of 1 ms each way: 8 ms) and TCP's
# goodput under credits (credit frames cross the trunks) must agree within tolerance, and
# what crossed the trunks is counted.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init split
FE_DPB_PID=
TRUNKS="fesplit-1 fesplit-2"
split_cleanup() {
	local rc=$?
	if [ -n "$FE_DPB_PID" ] && kill -0 "$FE_DPB_PID" 2>/dev/null; then
		kill -INT "$FE_DPB_PID" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$FE_DPB_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$FE_DPB_PID" 2>/dev/null || true
		wait "$FE_DPB_PID" 2>/dev/null || true
	fi
	[ "$rc" = 0 ] || [ ! -f "$FE_TMP/b.log" ] || { echo "box b:"; tail -5 "$FE_TMP/b.log"; } >&2
	for t in $TRUNKS; do ip link del "$t-a" 2>/dev/null || true; done
	ip netns del fesplit-b 2>/dev/null || true
	rm -rf /var/run/dpdk/fe-split-b /var/run/dpdk/fe-split-r /run/fabemu/fe-split-b.sock
	set +e
	(exit "$rc")
	fe_cleanup
}
trap split_cleanup EXIT
fe_hosts fesp 2
T=$FE_TMP
cat >"$T/ls.yaml" <<'EOF'
name: split-leaf-spine
description: 2 leaves on box a, their spine on box b
switches:
  - {name: leaf1, box: a}
  - {name: leaf2, box: a}
  - {name: spine1, box: b}
hosts:
  - {name: h1, switch: leaf1}
  - {name: h2, switch: leaf2}
links:
  - {a: leaf1, b: spine1}
  - {a: leaf2, b: spine1}
EOF
# box b's side of the trunks in a namespace of its own: its own network stack, as on
# another machine (AF_PACKET sockets of two processes in one stack can meet in one fanout
# group); no IPv6 on them, whose neighbour discovery would be the only other traffic
ip netns add fesplit-b
for t in $TRUNKS; do
	ip link add "$t-a" mtu 1530 type veth peer name "$t-b" mtu 1530 netns fesplit-b
	sysctl -qw "net.ipv6.conf.$t-a.disable_ipv6=1"
	ip netns exec fesplit-b sysctl -qw "net.ipv6.conf.$t-b.disable_ipv6=1"
	ip link set "$t-a" up
	ip netns exec fesplit-b ip link set "$t-b" up
done
trunk_vdevs() { # SIDE FIRST-INDEX
	local i=$2
	for t in $TRUNKS; do
		printf -- '--vdev=net_af_packet%d,iface=%s-%s,qpairs=1,framecnt=16384,framesz=2048,blocksz=4096 ' \
			"$i" "$t" "$1"
		i=$((i + 1))
	done
}
ARGS="--topology $T/ls.yaml --rate 100Mbit --delay 1ms --idle-sleep 50us"

start_b() { # REGIME: box b (the spine) on the other core
	ip netns exec fesplit-b nice -n -10 "$FE_BIN/fabemu-dp" --no-huge -m 1024 --no-pci -l 1 \
		--file-prefix fe-split-b \
		$(trunk_vdevs b 0) -- $ARGS --regime "$1" --box b \
		--control /run/fabemu/fe-split-b.sock >"$T/b.log" 2>&1 &
	FE_DPB_PID=$!
}
stop_b() {
	kill -INT "$FE_DPB_PID"
	wait "$FE_DPB_PID" || { cat "$T/b.log"; fe_fail "box b exited with an error"; }
	FE_DPB_PID=
}

measure() { # NAME: the least RTT (us) and credit TCP goodput, in NAME.*
	local tcp
	fe_ping_min 1 2 20 >"$T/$1.rtt"
	tcp=$(FE_IPERF_PORT=5601 fe_iperf 1 2 4)
	echo "$tcp" >"$T/$1.tcp"
}

# the reference: the whole fabric on one dataplane
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) -- $ARGS --regime credit
sleep 0.3
measure one
fe_dp_stop

# what --box refuses, before it measures anything
refused() { # WANT ARGS...: fabemu-dp ARGS exits 2 saying WANT
	local want=$1 rc=0 out
	shift
	out=$(timeout 60 "$FE_BIN/fabemu-dp" --no-huge -m 512 --no-pci -l 0 --file-prefix fe-split-r \
		"$@" 2>&1) || rc=$?
	rm -rf /var/run/dpdk/fe-split-r
	[ "$rc" = 2 ] && grep -qF -- "$want" <<<"$out" || fe_fail "want '$want' (exit 2): $rc $out"
	echo "  ok   refused: $want"
}
refused "box 'a' has 2 host ports and 2 links to other boxes: give 4 ports (2 given), the hosts' first, then one a link: leaf1-spine1 leaf2-spine1" \
	$(fe_vdevs af_packet) -- $ARGS --box a
refused "--box a: the emulated roce NICs keep a flow's receiver state with its sender" \
	$(fe_vdevs af_packet) $(trunk_vdevs a 2) -- $ARGS --box a --nic model=roce
refused "no switch of topology $T/ls.yaml is on box 'c' (its boxes: 'a', 'b')" \
	$(fe_vdevs af_packet) -- $ARGS --box c

# split: box b first (it waits for box a's probes), then box a
start_b credit
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) $(trunk_vdevs a 2) -- $ARGS --regime credit --box a || { cat "$T/b.log"; exit 1; }
grep -q "subtracted from its delay" "$FE_DP_LOG" || { cat "$FE_DP_LOG"; fe_fail "box a measured no trunk"; }
for _ in $(seq 50); do grep -q '^fabemu-dp .*ports' "$T/b.log" && break; sleep 0.1; done
grep -q "subtracted from its delay" "$T/b.log" || { cat "$T/b.log"; fe_fail "box b measured no trunk"; }
measure two
fe_ctl -j counters >"$T/a.json"
"$FE_BIN/fabemuctl" -s /run/fabemu/fe-split-b.sock -j counters >"$T/b.json"
fe_dp_stop
stop_b

grep -h "link .* round trip" "$FE_DP_LOG" "$T/b.log" | sed 's/^/  /' >&2
one=$(cat "$T/one.rtt") two=$(cat "$T/two.rtt")
fe_log "least RTT: one box $one us, two boxes $two us; TCP under credits: $(cat "$T/one.tcp") and $(cat "$T/two.tcp") Mbit/s"
fe_check "one box: least RTT (us), 8 links of 1 ms" "$one" 8000 8600
fe_check "two boxes: least RTT (us)" "$two" 8000 8600
fe_check "two boxes against one: RTT difference (us)" "$((two > one ? two - one : one - two))" 0 300
fe_check "two boxes against one: TCP goodput (% of one box's)" \
	"$(python3 -c "print(int(100 * $(cat "$T/two.tcp") / max($(cat "$T/one.tcp"), 0.001)))")" 85 115
# what crossed: box b's spine received frames and returned credits over both trunks
fe_check "box b: frames received over its trunks" \
	"$(fe_json "$T/b.json" 'sum(t["rx_frames"] for t in d["graph"]["trunks"])')" 1000 100000000
fe_check "box b: credit frames sent" \
	"$(fe_json "$T/b.json" 'sum(t["tx_credit"] for t in d["graph"]["trunks"])')" 100 100000000
fe_check "box a: credit frames heard, as box b sent them" \
	"$(($(fe_json "$T/a.json" 'sum(t["rx_credit"] for t in d["graph"]["trunks"])') - $(fe_json "$T/b.json" 'sum(t["tx_credit"] for t in d["graph"]["trunks"])')))" 0 0
fe_check "frames lost at the trunks' ports" \
	"$(fe_json "$T/a.json" 'sum(t["tx_full"] + t["rx_bad"] for t in d["graph"]["trunks"])')" 0 0
