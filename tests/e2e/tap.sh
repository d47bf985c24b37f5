#!/usr/bin/env bash
# The ethdev path of a PCI port, without hardware: DPDK's net_tap PMD, each TAP interface
# moved into a host namespace of its own once fabemu-dp has set it up (the PMD's ioctls
# name the interface in fabemu-dp's namespace). Checks what docs/inline.md promises:
#  - an MTU the port cannot take stops the start with the port's own limit (22.11's
#    net_tap: 1504, its largest frame 1522 bytes), before any frame;
#  - the port is set up (MTU set through the PMD, 802.3x off through the PMD, link up)
#    and says so; an MTU below the default reaches the TAP interface itself, and the
#    port line gives the receive ring;
#  - frames of the full MTU (1500) cross with DF set, both ways;
#  - a PFC frame (802.1Qbb, to 01:80:C2:00:00:01) sent by one host never reaches the
#    other, while the broadcast sent right after it does; the switch counts it
#    (switch.reserved_pfc in the JSON counters and in Prometheus);
#  - the edge pause (docs/inline.md): off on a vdev by default; with --edge-pause on,
#    under credits, a host's TCP into a slower adapter queue is paused and resumed with
#    real 802.1Qbb frames, and nothing is lost in the fabric or at the box's NIC.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init tap

T=$FE_TMP
NS=(fe-tap-h1 fe-tap-h2)
IF=(fetap1 fetap2)
tap_cleanup() {
	if [ -n "$FE_DP_PID" ] && kill -0 "$FE_DP_PID" 2>/dev/null; then
		kill -INT "$FE_DP_PID" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$FE_DP_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$FE_DP_PID" 2>/dev/null || true
		wait "$FE_DP_PID" 2>/dev/null || true
		FE_DP_PID=
	fi
	for ns in "${NS[@]}"; do
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		[ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
}
# the namespaces go after the dataplane (which holds the TAPs), then fe_cleanup's part
trap 'rc=$?; set +e; tap_cleanup; (exit $rc); fe_cleanup' EXIT
ns() { local i=$1; shift; ip netns exec "${NS[$i]}" "$@"; }
vdevs() { echo "--vdev=net_tap0,iface=${IF[0]} --vdev=net_tap1,iface=${IF[1]}"; }
tap_eal() { echo "$(fe_eal) --log-level=pmd.net.tap:error"; }

for ns in "${NS[@]}"; do
	ip netns list | fe_grep_q "^$ns\b" && fe_fail "namespace $ns exists: another run of this test?"
done
for i in 0 1; do
	! ip link show "${IF[$i]}" >/dev/null 2>&1 || fe_fail "interface ${IF[$i]} exists"
done

# 1. an MTU the port cannot take: refused, naming the port's own limit
rc=0
"$FE_BIN/fabemu-dp" $(tap_eal) $(vdevs) -- --mtu 4096 --control none >"$T/big.log" 2>&1 || rc=$?
[ "$rc" = 2 ] || { cat "$T/big.log" >&2; fe_fail "--mtu 4096 on net_tap: exit $rc, expected 2"; }
grep -qF -- "--mtu 4096: port 0 (net_tap0, driver net_tap) takes an MTU of at most 1504 (its largest frame: 1522 bytes" "$T/big.log" ||
	{ cat "$T/big.log" >&2; fe_fail "--mtu 4096: no message naming the port's limit"; }
echo "  ok   --mtu 4096 refused: $(grep -o 'port 0 (net_tap0.*jumbo frames' "$T/big.log")"
for i in 0 1; do
	! ip link show "${IF[$i]}" >/dev/null 2>&1 || fe_fail "${IF[$i]} left behind by a refused start"
done

# 1b. an MTU below the default, set through the PMD: the TAP interface (the kernel's side
# of the port) takes it; and the receive ring, as the PMD adjusted --rxd, in the port line
fe_dp_start $(tap_eal) $(vdevs) -- --mtu 1400 --rxd 2048 --control none
for i in 0 1; do
	grep -q "^  port $i: net_tap$i, .*MTU 1400 (set), .*, RX ring 2048 descriptors, offloads" \
		"$FE_DP_LOG" || { cat "$FE_DP_LOG" >&2; fe_fail "port $i: not at MTU 1400, 2048 descriptors"; }
	ip -o link show "${IF[$i]}" | fe_grep_q " mtu 1400 " ||
		fe_fail "${IF[$i]}: the TAP is not at MTU 1400: $(ip -o link show "${IF[$i]}")"
done
echo "  ok   --mtu 1400: both ports set, their TAP interfaces at MTU 1400; RX rings of 2048"
fe_dp_stop

# 2. the dataplane, then each TAP into its host's namespace
fe_dp_start $(tap_eal) $(vdevs) -- --mtu 1500 --stats-json "$T/stats.json"
for i in 0 1; do
	grep -q "^  port $i: net_tap$i, driver net_tap (vdev), Link up.*MTU 1500 (set), flow control off (set)" \
		"$FE_DP_LOG" || { cat "$FE_DP_LOG" >&2; fe_fail "port $i: not set up as expected"; }
done
grep "^  port [01]: net_tap.*driver" "$FE_DP_LOG" | sed 's/^/ /'
# each TAP (made anew by each start) into its host's namespace, addressed
taps_to_hosts() {
	for i in 0 1; do
		ip netns list | fe_grep_q "^${NS[$i]}\b" || ip netns add "${NS[$i]}"
		ip link set "${IF[$i]}" netns "${NS[$i]}"
		ns $i ip link set lo up
		ns $i ip addr add "198.18.0.$((i + 1))/24" dev "${IF[$i]}"
		ns $i ip link set "${IF[$i]}" up
		# hosts behind a DPDK port compute their own checksums (nothing downstream will)
		ns $i ethtool -K "${IF[$i]}" tx off >/dev/null
	done
}
taps_to_hosts

# 3. full-size frames cross, both ways, with DF set
ns 0 ping -q -c 3 -i 0.2 -W 2 -M do -s 1472 198.18.0.2 >"$T/ping1" ||
	{ cat "$T/ping1" >&2; fe_fail "1500-byte IP packets from host 1 did not cross"; }
ns 1 ping -q -c 3 -i 0.2 -W 2 -M do -s 1472 198.18.0.1 >"$T/ping2" ||
	{ cat "$T/ping2" >&2; fe_fail "1500-byte IP packets from host 2 did not cross"; }
echo "  ok   1500-byte IP packets (DF) cross both ways"

# 4. a PFC frame from host 1, then a broadcast: host 2 hears the broadcast only
# what a host hears in SECS seconds: pfc, the frames to 01:80:C2:00:00:01; marker, the
# broadcasts tx.py sends; of the MAC control frames, xoff (802.1Qbb on every priority,
# 65535 quanta), xon (quanta 0) and other (any other)
cat >"$T/rx.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))  # ETH_P_ALL
s.bind((sys.argv[1], 0))
s.settimeout(0.2)
pfc = marker = xoff = xon = other = 0
open(sys.argv[2], "w").close()  # listening
end = time.time() + float(sys.argv[3])
while time.time() < end:
    try:
        f = s.recv(2048)
    except socket.timeout:
        continue
    pfc += f[:6] == bytes.fromhex("0180c2000001")
    marker += f[12:14] == b"\x88\xb5" and f[14:22] == b"FEMU-TAP"
    if f[12:14] != b"\x88\x08":
        continue
    if f[:6] != bytes.fromhex("0180c2000001") or f[14:16] != b"\x01\x01":
        other += 1
    elif f[17] == 0xff and f[18:20] == b"\xff\xff":
        xoff += 1
    elif f[18:20] == b"\0\0":
        xon += 1
    else:
        other += 1
print("pfc=%d marker=%d xoff=%d xon=%d other=%d" % (pfc, marker, xoff, xon, other))
EOF
cat >"$T/tx.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
src = s.getsockname()[4]
# 802.1Qbb: MAC control 0x8808, opcode 0x0101, priority 3 paused for 65535 quanta
pfc = bytes.fromhex("0180c2000001") + src + bytes.fromhex("880801010008") + bytes(6) + b"\xff\xff"
marker = b"\xff" * 6 + src + b"\x88\xb5" + b"FEMU-TAP"
for _ in range(int(sys.argv[2])):
    s.send(pfc.ljust(60, b"\0"))
    s.send(marker.ljust(60, b"\0"))
EOF
ns 1 python3 "$T/rx.py" "${IF[1]}" "$T/listening" 3 >"$T/rx.out" &
rx=$!
for _ in $(seq 50); do [ -e "$T/listening" ] && break; sleep 0.05; done
ns 0 python3 "$T/tx.py" "${IF[0]}" 5
wait "$rx" || fe_fail "the receiver in host 2 failed"
got=$(cat "$T/rx.out")
echo "  host 2 heard: $got"
[[ "$got" == *"marker=5"* ]] || fe_fail "host 2 did not hear the 5 broadcasts ($got)"
[[ "$got" == "pfc=0 "* ]] || fe_fail "a PFC frame from host 1 reached host 2 ($got)"
[[ "$got" == *" other=0" ]] || fe_fail "a MAC control frame reached host 2 ($got)"

fe_ctl -j counters >"$T/counters.json"
fe_check "switch.reserved_pfc (control socket)" \
	"$(fe_json "$T/counters.json" 'd["switch"]["reserved_pfc"]')" 5 5
fe_ctl prometheus >"$T/prom.txt"
fe_check "fabemu_switch_reserved_pfc (Prometheus)" \
	"$(awk '$1 == "fabemu_switch_reserved_pfc" {print $2}' "$T/prom.txt")" 5 5
fe_dp_stop
fe_check "switch.reserved_pfc (--stats-json at exit)" \
	"$(fe_json "$T/stats.json" 'd["switch"]["reserved_pfc"]')" 5 5
grep -q 'mbufs: engine holds 0 after drain; pool \([0-9]*\) of \1 returned$' "$FE_DP_LOG" ||
	fe_fail "mbufs not all returned"

# 5. the edge pause: by default only on ports with a wire (PCI), so not on net_tap
CREDIT="--regime credit --link 0.up:rate=200Mbit,buffer-pkts=32 --link 1.down:rate=200Mbit"
"$FE_BIN/fabemu-dp" $(tap_eal) $(vdevs) -- --mtu 1500 --control none --duration 0.2s $CREDIT \
	>"$T/auto.log" 2>&1 || { cat "$T/auto.log" >&2; fe_fail "credit, --edge-pause auto: failed"; }
! grep -q "edge pause" "$T/auto.log" || fe_fail "edge pause on a vdev without --edge-pause on"
echo "  ok   --edge-pause auto: none on net_tap (a vdev, no wire)"

# under credits with --edge-pause on: host 1's TCP (cubic) at the TAP's speed into a
# 200 Mbit/s adapter queue of 32 frames: the box pauses host 1 with real 802.1Qbb frames
# on every priority (refreshed while held), and resumes it; nothing is lost in the
# fabric nor by the box's NIC (the PMD's imissed, rx_nombuf, ierrors).
fe_dp_start $(tap_eal) $(vdevs) -- --mtu 1500 $CREDIT --edge-pause on
for _ in $(seq 50); do
	grep -q "^fabemu-dp: port 1: edge pause" "$FE_DP_LOG" && break
	sleep 0.1
done
grep -q "^fabemu-dp: port 0: edge pause: XOFF at .* frames of room" "$FE_DP_LOG" ||
	{ cat "$FE_DP_LOG" >&2; fe_fail "no edge pause line for port 0"; }
grep "^fabemu-dp: port 0: edge pause" "$FE_DP_LOG" | sed 's/^/ /'
taps_to_hosts
tcp() { # the host's retransmissions and D-SACKs
	ns "$1" nstat -asz TcpRetransSegs TcpExtTCPDSACKRecvSegs |
		awk '{s[$1] = $2} END {print s["TcpRetransSegs"] + 0, s["TcpExtTCPDSACKRecvSegs"] + 0}'
}
fe_allow_cc cubic
for i in 0 1; do ns $i sysctl -qw net.ipv4.tcp_congestion_control=cubic; done
ns 1 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
srv=$!
rm -f "$T/listening"
ns 0 python3 "$T/rx.py" "${IF[0]}" "$T/listening" 4 >"$T/pfc.out" &
rx=$!
for _ in $(seq 50); do [ -e "$T/listening" ] && break; sleep 0.05; done
sleep 0.3
before=$(tcp 0)
ns 0 iperf3 -c 198.18.0.2 -p 5201 -t 2 -C cubic >"$T/iperf.out" 2>&1 ||
	{ cat "$T/iperf.out" >&2; fe_fail "iperf3 from host 1 failed"; }
after=$(tcp 0)
wait "$rx" || fe_fail "the PFC listener in host 1 failed"
wait "$srv" 2>/dev/null || true
got=$(cat "$T/pfc.out")
echo "  host 1 heard: $got; iperf3: $(grep -E 'sender$' "$T/iperf.out" | awk '{print $7, $8}')"
fe_ctl -j counters >"$T/c.json"
fe_check "edge XOFF frames host 1 heard (every priority, 65535 quanta)" \
	"$(echo "$got" | sed 's/.*xoff=\([0-9]*\).*/\1/')" 1 100000000
fe_check "XON frames host 1 heard" "$(echo "$got" | sed 's/.*xon=\([0-9]*\).*/\1/')" 1 100000000
fe_check "other MAC control frames host 1 heard" "$(echo "$got" | sed 's/.*other=//')" 0 0
fe_check "port 0's edge_xoff" "$(fe_json "$T/c.json" 'd["ports"][0]["edge_xoff"]')" 1 100000000
fe_check "fabric drops" \
	"$(fe_json "$T/c.json" 'sum(v for l in d["links"] for k, v in l.items() if k.startswith("drop_") and k.endswith("_pkts"))')" 0 0
fe_check "lost at the box's NIC (imissed + rx_nombuf + ierrors, both ports)" \
	"$(fe_json "$T/c.json" 'sum(p["imissed"] + p["rx_nombuf"] + p["ierrors"] for p in d["ports"])')" 0 0
# the PMD's own drop counters (its extended statistics; net_tap has none of its own): read,
# and in the document a campaign reads
fe_check "the PMD's own drop counters (xdrops_rx, xdrops_tx, both ports)" \
	"$(fe_json "$T/c.json" 'sum(p["xdrops_rx"] + p["xdrops_tx"] for p in d["ports"])')" 0 0
# Linux's TAP does not act on PFC: the host keeps sending through its pauses, and its
# TAP queue (what a NIC's ring is to a host that ignores them) overflows. Printed, not
# held: a host that obeys loses nothing (test_epause, against a ring of 63 frames)
tapdrops=$(ns 0 cat /sys/class/net/${IF[0]}/statistics/tx_dropped)
echo "  host 1, which ignores the pauses: its TAP dropped $tapdrops, real TCP retransmissions $(echo "$before $after" | awk '{print ($3 - $1) - ($4 - $2)}')"
fe_dp_stop
echo "tap: passed"
