#!/usr/bin/env bash
# One fabric split across two dataplanes (docs/scale-out.md), on this machine: a
# leaf-spine of 2 leaves and 1 spine, the leaves and their hosts on box a, the spine on
# box b (a network namespace of its own, as another machine would be), the two links
# between them each a trunk: leaf1-spine1 a veth pair, leaf2-spine1 a VXLAN interface on
# each side (VNI 4242) over a veth pair between the boxes' stacks, as a lab across
# machines joins them (docs/scale-out.md). Each box measures its
# trunks' latency at start and subtracts it. The same topology on one dataplane is the
# reference: the ping's least round trip (4 links of 1 ms each way: 8 ms) and TCP's
# goodput under credits (credit frames cross the trunks) must agree within tolerance
# (wider where the hypervisor took 100 ms or more of a box's core, which the check says:
# below, stolen()), and what crossed the trunks is counted. A host on each box, through
# the emulated ib NIC (its goodput against one box's) and the uec NIC with RCCC (the
# receiver's grants, made from the pull target each frame carries across the trunk, all
# heard).
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
	for t in $TRUNKS fesplit-u; do ip link del "$t-a" 2>/dev/null || true; done
	# host 2's port, if box b had it, back before its stack goes (the pair would go too)
	ip -n fesplit-b link set fesp-h2 netns 1 2>/dev/null || true
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
# leaf1-spine1: a veth pair of the hosts' MTU plus the fabric header (38)
ip link add fesplit-1-a mtu 1542 type veth peer name fesplit-1-b mtu 1542 netns fesplit-b
# leaf2-spine1: VXLAN between the two stacks, its underlay a veth pair in the benchmarking
# range, room for VXLAN's 50 bytes
ip link add fesplit-u-a mtu 1600 type veth peer name fesplit-u-b mtu 1600 netns fesplit-b
ip addr add 198.19.255.1/30 dev fesplit-u-a
ip -n fesplit-b addr add 198.19.255.2/30 dev fesplit-u-b
ip link set fesplit-u-a up
ip -n fesplit-b link set fesplit-u-b up
ip link add fesplit-2-a mtu 1542 type vxlan id 4242 local 198.19.255.1 remote 198.19.255.2 \
	dstport 4789 dev fesplit-u-a
ip -n fesplit-b link add fesplit-2-b mtu 1542 type vxlan id 4242 local 198.19.255.2 \
	remote 198.19.255.1 dstport 4789 dev fesplit-u-b
for t in $TRUNKS; do
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
pct() { # ONE TWO: the figure in file TWO in % of the one in file ONE
	python3 -c "print(int(100 * $(cat "$T/$2") / max($(cat "$T/$1"), 0.001)))"
}
nic_sum() { # FILE KEY: a NIC counter summed over the ports of a counters document
	fe_json "$1" "sum(p.get('$2', 0) for p in d['ports'])"
}
ARGS="--topology $T/ls.yaml --rate 100Mbit --delay 1ms --idle-sleep 50us"

start_b() { # REGIME [ARGS]: box b (the spine) on the other core
	ip netns exec fesplit-b nice -n -10 "$FE_BIN/fabemu-dp" $(fe_eal_mem 1024) --no-pci -l 1 \
		--file-prefix fe-split-b \
		$(trunk_vdevs b 0) -- $ARGS --regime "$@" --box b \
		--control /run/fabemu/fe-split-b.sock >"$T/b.log" 2>&1 &
	FE_DPB_PID=$!
}
stop_b() {
	kill -INT "$FE_DPB_PID"
	wait "$FE_DPB_PID" || { cat "$T/b.log"; fe_fail "box b exited with an error"; }
	FE_DPB_PID=
}

# The hypervisor took a box's core (cpu_steal_ns, in 10 ms ticks) 100 ms or more: every
# frame then waits on a box that wakes late, and the figures are the machine's as much as
# the fabric's (a least RTT of 8609 us once, with 740 ms stolen; a TCP goodput of 74
# Mbit/s on one box against 91 on two, with 330 ms): the bounds widen (WIDE 1), and each
# check says why (WHY).
stolen() { # COUNTERS...: WIDE, WHY and RTT_HI from the most the boxes of these counters lost
	local ms
	ms=$(fe_steal_ms "$@")
	WIDE=0 WHY= RTT_HI=8600
	# two boxes: each ping crosses between them twice or four times, each a wake of a
	# box that sleeps when idle (--idle-sleep 50us) on a machine the hosts share: 8800 us
	# (8626 once in CI, with no core taken; 8277 and 8444 in the next two runs)
	[ $# -gt 1 ] && RTT_HI=8800
	if [ "$ms" -ge 100 ]; then WIDE=1 WHY=" (the hypervisor took $ms ms of a box's core)"; fi
	# a least RTT's high bound: 8600 us, 9000 (WIDE); past that, as the goodputs' below,
	# over (1 - s), s the share of 4 s taken, at most 0.75 (9210 us once, with 1650 ms
	# taken: the hypervisor held the boxes' core long enough to stretch every ping)
	[ "$WIDE" = 1 ] && RTT_HI=$(python3 -c "print(int(9000 / (1 - min(0.75, $ms / 4000))))")
	return 0
}

# A TCP goodput of two boxes against one: 85 .. 115 %, 70 .. 130 % (WIDE) when the
# hypervisor took 100 ms or more. A run whose box lost a share s of its 4 s iperf to the
# hypervisor can measure as little as (1 - s) of its goodput, so beyond that the bounds
# follow the share each side lost (s at most 0.75): the low one falls to 85 x (1 - s of
# the two boxes), the high one rises to 115 / (1 - s of the one box); the ib NIC's goodput
# through two boxes was 182 % of one box's once, with 2200 ms of the one box's run stolen
goodput() { # NAME ONE TWO ONE-COUNTERS TWO-COUNTERS...: check TWO.tcp in % of ONE.tcp
	local name=$1 one=$2 two=$3 oc=$4 lo hi
	shift 4
	stolen "$oc" "$@"
	lo=85 hi=115
	if [ "$WIDE" = 1 ]; then
		read -r lo hi < <(python3 -c "
one, two = (min(0.75, ms / 4000) for ms in ($(fe_steal_ms "$oc"), $(fe_steal_ms "$@")))
print(int(min(70, 85 * (1 - two))), int(max(130, 115 / (1 - one) + 0.999)))")
	fi
	fe_check "$name: TCP goodput (% of one box's)$WHY" "$(pct "$one" "$two")" "$lo" "$hi"
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
fe_ctl -j counters >"$T/one.json"
fe_dp_stop

# what --box refuses, before it measures anything
refused() { # WANT ARGS...: fabemu-dp ARGS exits 2 saying WANT
	local want=$1 rc=0 out
	shift
	out=$(timeout 60 "$FE_BIN/fabemu-dp" $(fe_eal_mem 512) --no-pci -l 0 --file-prefix fe-split-r \
		"$@" 2>&1) || rc=$?
	rm -rf /var/run/dpdk/fe-split-r
	[ "$rc" = 2 ] && grep -qF -- "$want" <<<"$out" || fe_fail "want '$want' (exit 2): $rc $out"
	echo "  ok   refused: $want"
}
refused "box 'a' has 2 host ports and 2 links to other boxes: give 4 ports (2 given), the hosts' first, then one a link: leaf1-spine1 leaf2-spine1" \
	$(fe_vdevs af_packet) -- $ARGS --box a
refused "no switch of topology $T/ls.yaml is on box 'c' (its boxes: 'a', 'b')" \
	$(fe_vdevs af_packet) -- $ARGS --box c
# Boxes that run the fabric otherwise: box b started with B's arguments (its regime
# first), box a with A's; both refuse, once their probes meet, each saying so.
both_refuse() { # WHAT "B ARGS" A ARGS...
	local what=$1 b=$2 rc=0
	shift 2
	# shellcheck disable=SC2086 # B's arguments, split
	start_b $b
	refused "the other box runs another topology, splits it otherwise, or runs its regime, credits or NICs otherwise" \
		$(fe_vdevs af_packet) $(trunk_vdevs a 2) -- $ARGS --box a "$@"
	wait "$FE_DPB_PID" || rc=$?
	FE_DPB_PID=
	[ "$rc" = 2 ] && grep -q "credits or NICs otherwise" "$T/b.log" ||
		fe_fail "box b: want exit 2, $what: $rc $(tail -2 "$T/b.log")"
	echo "  ok   $what: box b refused too"
	rm -rf /var/run/dpdk/fe-split-b
}
# NICs (a receiver serves a sender of the other box as its own)
both_refuse "ib NICs of window 64 against 512" "credit --nic model=ib,window=64" \
	--regime credit --nic model=ib
# credits (they cross the trunks in the receiver's blocks)
both_refuse "credits of 128 B against 64 B" "credit --credit unit=128" --regime credit
# a uec NIC's key of its own (the hash took only the keys that came before model uec until
# 2026-12-07)
both_refuse "uec NICs of ack-bytes 16KiB against 0" "lossy --nic model=uec,ack-bytes=16KiB" \
	--regime lossy --nic model=uec

# split: box b first (it waits for box a's probes), then box a
start_b credit
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) $(trunk_vdevs a 2) -- $ARGS --regime credit --box a || { cat "$T/b.log"; exit 1; }
grep -q "subtracted from its delay" "$FE_DP_LOG" || { cat "$FE_DP_LOG"; fe_fail "box a measured no trunk"; }
for _ in $(seq 50); do grep -q '^fabemu-dp .*ports' "$T/b.log" && break; sleep 0.1; done
grep -q "subtracted from its delay" "$T/b.log" || { cat "$T/b.log"; fe_fail "box b measured no trunk"; }
measure two
fe_ctl -j counters >"$T/a.json"
"$FE_BIN/fabemuctl" -s /run/fabemu/fe-split-b.sock -j counters >"$T/b.json"
# a counter reset restarts the trunks' counters with the rest (the traffic is over)
"$FE_BIN/fabemuctl" -s /run/fabemu/fe-split-b.sock reset >/dev/null
"$FE_BIN/fabemuctl" -s /run/fabemu/fe-split-b.sock -j counters >"$T/b-reset.json"
fe_dp_stop
stop_b

grep -h "link .* round trip" "$FE_DP_LOG" "$T/b.log" | sed 's/^/  /' >&2
one=$(cat "$T/one.rtt") two=$(cat "$T/two.rtt")
fe_log "least RTT: one box $one us, two boxes $two us; TCP under credits: $(cat "$T/one.tcp") and $(cat "$T/two.tcp") Mbit/s"
stolen "$T/one.json"
fe_check "one box: least RTT (us), 8 links of 1 ms$WHY" "$one" 8000 "$RTT_HI"
stolen "$T/a.json" "$T/b.json"
fe_check "two boxes: least RTT (us)$WHY" "$two" 8000 "$RTT_HI"
# each least RTT against the configured 8 ms, not their difference: each is the floor plus
# the noise of its own run (a box that wakes late), and the difference carries both (319
# us once in CI's kind of run, one box 8173 and split 8492, each within its bound); a
# split that added a link's delay (2 ms a round trip) is still far outside
goodput "two boxes against one" one.tcp two.tcp "$T/one.json" "$T/a.json" "$T/b.json"
# what crossed: box b's spine received frames and returned credits over both trunks
fe_check "box b: frames received over each trunk (the veth's, VXLAN's: the fewer)" \
	"$(fe_json "$T/b.json" 'min(t["rx_frames"] for t in d["graph"]["trunks"])')" 1000 100000000
fe_check "box b, reset after the traffic: frames received over its trunks since" \
	"$(fe_json "$T/b-reset.json" 'sum(t["rx_frames"] + t["tx_credit"] + t["nic_lost_rx"] for t in d["graph"]["trunks"])')" 0 20
fe_check "box b: credit frames sent" \
	"$(fe_json "$T/b.json" 'sum(t["tx_credit"] for t in d["graph"]["trunks"])')" 100 100000000
fe_check "box a: credit frames heard, as box b sent them" \
	"$(($(fe_json "$T/a.json" 'sum(t["rx_credit"] for t in d["graph"]["trunks"])') - $(fe_json "$T/b.json" 'sum(t["tx_credit"] for t in d["graph"]["trunks"])')))" 0 0
fe_check "frames lost at the trunks' ports" \
	"$(fe_json "$T/a.json" 'sum(t["tx_full"] + t["rx_bad"] for t in d["graph"]["trunks"])')" 0 0

# the emulated ib NIC, its hosts on box a: its flows' frames, ACKs and NAKs cross box b,
# each with the NIC's tag (its flow and PSN) in the trunk header
nic_tcp() { # NAME: TCP goodput through the NIC, in NAME.tcp
	local tcp
	tcp=$(FE_IPERF_PORT=5602 fe_iperf 1 2 4) # (fe_iperf waits for its children)
	echo "$tcp" >"$T/$1.tcp"
}
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) -- $ARGS --regime credit --nic model=ib
sleep 0.3
nic_tcp nic-one
fe_ctl -j counters >"$T/nic-one.json"
fe_dp_stop
start_b credit --nic model=ib
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) $(trunk_vdevs a 2) -- $ARGS --regime credit --box a \
	--nic model=ib || { cat "$T/b.log"; exit 1; }
nic_tcp nic-two
fe_ctl -j counters >"$T/nic-a.json"
"$FE_BIN/fabemuctl" -s /run/fabemu/fe-split-b.sock -j counters >"$T/nic-b.json"
fe_dp_stop
stop_b
fe_log "TCP through the emulated ib NIC: one box $(cat "$T/nic-one.tcp"), two boxes $(cat "$T/nic-two.tcp") Mbit/s"
goodput "the ib NIC, two boxes against one" nic-one.tcp nic-two.tcp "$T/nic-one.json" \
	"$T/nic-a.json" "$T/nic-b.json"
fe_check "the ib NIC across the boxes: ACKs heard" \
	"$(nic_sum "$T/nic-a.json" nic_acks_recv)" 100 100000000
fe_check "the ib NIC across the boxes: frames that lost their flow" \
	"$(nic_sum "$T/nic-a.json" nic_stray)" 0 0

# lossy: a UDP flow of 80 Mbit/s into spine1 > leaf2 at 50 Mbit/s, a direction box b
# models when split: the same share is dropped there (3/8), and counted by its sender
SLOW="--link spine1>leaf2:rate=50Mbit"
udp_loss() { # NAME: the share of datagrams lost end to end (%), in NAME.loss; sent, NAME.sent
	local out
	fe_ns 2 iperf3 -s -1 -p 5603 >/dev/null 2>&1 &
	fe_listening 2 5603
	out=$(fe_ns 1 iperf3 -c "$(fe_ip 2)" -p 5603 -u -b 80M -l 1400 -t 3 -J) ||
		fe_fail "iperf3 UDP failed: $out"
	python3 -c 'import json, sys; print("%.1f" % json.load(sys.stdin)["end"]["sum"]["lost_percent"])' \
		<<<"$out" >"$T/$1.loss"
	python3 -c 'import json, sys; print(json.load(sys.stdin)["end"]["sum"]["packets"])' \
		<<<"$out" >"$T/$1.sent"
}
fabric_drops() { # FILE: the tail drops of spine1 > leaf2 where it is modelled
	fe_json "$1" 'sum(l["drop_tail_pkts"] for l in d["graph"]["fabric_links"] if l["link"] == "spine1>leaf2" and l.get("sent_here", True))'
}
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) -- $ARGS --regime lossy $SLOW
sleep 0.3
udp_loss lossy-one
fe_ctl -j counters >"$T/lossy-one.json"
fe_dp_stop
start_b lossy $SLOW
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) $(trunk_vdevs a 2) -- $ARGS --regime lossy $SLOW \
	--box a || { cat "$T/b.log"; exit 1; }
udp_loss lossy-two
fe_ctl -j counters >"$T/lossy-a.json"
"$FE_BIN/fabemuctl" -s /run/fabemu/fe-split-b.sock -j counters >"$T/lossy-b.json"
fe_dp_stop
stop_b
lone=$(cat "$T/lossy-one.loss") ltwo=$(cat "$T/lossy-two.loss")
# the fabric's share: what spine1>leaf2 dropped of the datagrams sent (the end-to-end
# loss adds what the hosts' stacks lost: 43.6 % split against 36.2 % once, in a run whose
# spine1>leaf2 dropped 7921 and 7935 of about 21,400, the same share both ways)
fone=$(python3 -c "print('%.1f' % (100 * $(fabric_drops "$T/lossy-one.json") / max($(cat "$T/lossy-one.sent"), 1)))")
ftwo=$(python3 -c "print('%.1f' % (100 * $(fabric_drops "$T/lossy-b.json") / max($(cat "$T/lossy-two.sent"), 1)))")
fe_log "lossy, 80 Mbit/s into 50: lost end to end $lone % on one box, $ltwo % split; spine1>leaf2 dropped $(fabric_drops "$T/lossy-one.json") and $(fabric_drops "$T/lossy-b.json") ($fone and $ftwo % of what was sent)"
fe_check "lossy, one box: the fabric's drops (% of datagrams sent), 3/8 expected" "$fone" 30 45
fe_check "lossy, one box: datagrams lost end to end (%), at least the fabric's" \
	"$(python3 -c "print(int($lone >= $fone - 0.2))")" 1 1
fe_check "lossy, two boxes against one: the fabric's drops (percentage points apart)" \
	"$(python3 -c "print(abs($ftwo - $fone))")" 0 3
fe_check "lossy, two boxes: spine1>leaf2 drops on box b" "$(fabric_drops "$T/lossy-b.json")" 1000 100000
fe_check "lossy, two boxes: spine1>leaf2 drops counted on box a" "$(fabric_drops "$T/lossy-a.json")" 0 0

# a host on each box: h1 on leaf1 (box a), h2 on leaf2 with the spine (box b), one trunk
# (leaf1-spine1, the veth pair) between them; h2's port moves into box b's stack. The
# path is the same 8 links of 1 ms a round trip, and through the emulated ib NIC each
# flow's receiving side is kept on the receiver's box (the tag's port fabric-wide)
sed -e 's/{name: leaf2, box: a}/{name: leaf2, box: b}/' "$T/ls.yaml" >"$T/hb.yaml"
both_boxes() { # NAME ARGS...: h2 on box b, fabemu-dp ARGS on both; TCP in NAME.tcp,
	# the least RTT in NAME.rtt, the counters in NAME-a.json and NAME-b.json
	local name=$1
	shift
	ip link set fesp-h2 netns fesplit-b
	ip -n fesplit-b link set fesp-h2 up
	ip netns exec fesplit-b nice -n -10 "$FE_BIN/fabemu-dp" $(fe_eal_mem 1024) --no-pci -l 1 \
		--file-prefix fe-split-b \
		--vdev=net_af_packet0,iface=fesp-h2,qpairs=1,framecnt=16384,framesz=2048,blocksz=4096 \
		--vdev=net_af_packet1,iface=fesplit-1-b,qpairs=1,framecnt=16384,framesz=2048,blocksz=4096 \
		-- "$@" --box b --control /run/fabemu/fe-split-b.sock >"$T/b.log" 2>&1 &
	FE_DPB_PID=$!
	fe_dp_start $(fe_eal) \
		--vdev=net_af_packet0,iface=fesp-h1,qpairs=1,framecnt=16384,framesz=2048,blocksz=4096 \
		--vdev=net_af_packet1,iface=fesplit-1-a,qpairs=1,framecnt=16384,framesz=2048,blocksz=4096 \
		-- "$@" --box a || { cat "$T/b.log"; exit 1; }
	fe_ping_min 1 2 20 >"$T/$name.rtt"
	nic_tcp "$name"
	fe_ctl -j counters >"$T/$name-a.json"
	"$FE_BIN/fabemuctl" -s /run/fabemu/fe-split-b.sock -j counters >"$T/$name-b.json"
	fe_dp_stop
	stop_b
	ip -n fesplit-b link set fesp-h2 netns 1
	ip link set fesp-h2 up
}
HB="--topology $T/hb.yaml --rate 100Mbit --delay 1ms --idle-sleep 50us"
both_boxes hb $HB --regime credit --nic model=ib
fe_log "a host on each box: least RTT $(cat "$T/hb.rtt") us; TCP through the ib NIC $(cat "$T/hb.tcp") Mbit/s (one box $(cat "$T/nic-one.tcp"))"
stolen "$T/hb-a.json" "$T/hb-b.json"
fe_check "a host on each box: least RTT (us), 8 links of 1 ms$WHY" "$(cat "$T/hb.rtt")" 8000 \
	"$RTT_HI"
goodput "a host on each box, the ib NIC" nic-one.tcp hb.tcp "$T/nic-one.json" "$T/hb-a.json" \
	"$T/hb-b.json"
fe_check "a host on each box: h2's NIC acknowledged h1's frames (box b)" \
	"$(fe_json "$T/hb-b.json" 'd["ports"][0].get("nic_acks_sent", 0)')" 100 100000000
fe_check "a host on each box: h1's NIC heard them (box a)" \
	"$(fe_json "$T/hb-a.json" 'd["ports"][0].get("nic_acks_recv", 0)')" 100 100000000
fe_check "a host on each box: NIC frames that lost their flow, both boxes" \
	"$(($(nic_sum "$T/hb-a.json" nic_stray) + $(nic_sum "$T/hb-b.json" nic_stray)))" 0 0

# the same, lossy, through the uec NIC with RCCC (receiver credit): h2's NIC on box b
# grants h1's flow credit from the pull target each frame carries across the trunk (its
# header's field, the trunk header's too: docs/scale-out.md). Refused before it was
# carried; without it the receiver grants nothing, and h1's NIC stops once its
# speculative credit is spent
both_boxes hbr $HB --regime lossy --nic model=uec,cc=rccc
fe_log "a host on each box, the uec NIC with RCCC: TCP $(cat "$T/hbr.tcp") Mbit/s; grants $(nic_sum "$T/hbr-b.json" nic_credit_sent) sent (box b), $(nic_sum "$T/hbr-a.json" nic_credit_recv) heard (box a)"
fe_check "a host on each box, uec RCCC: TCP goodput (Mbit/s, of 100)" \
	"$(python3 -c "print(int($(cat "$T/hbr.tcp")))")" 20 100
fe_check "a host on each box, uec RCCC: grants h2's NIC sent (box b)" \
	"$(nic_sum "$T/hbr-b.json" nic_credit_sent)" 100 100000000
fe_check "a host on each box, uec RCCC: grants sent but not heard" \
	"$(($(nic_sum "$T/hbr-b.json" nic_credit_sent) - $(nic_sum "$T/hbr-a.json" nic_credit_recv)))" 0 2
fe_check "a host on each box, uec RCCC: NIC frames that lost their flow, both boxes" \
	"$(($(nic_sum "$T/hbr-a.json" nic_stray) + $(nic_sum "$T/hbr-b.json" nic_stray)))" 0 0
