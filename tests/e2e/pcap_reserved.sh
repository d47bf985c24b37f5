#!/usr/bin/env bash
# Frames to IEEE 802.1Q's reserved group addresses (01:80:C2:00:00:00 to 0F: pause, PFC,
# LLDP, STP, LACP, 802.1X) stop at the switch they enter, counted by cause, on one switch
# and on a leaf-spine; the broadcasts around them are flooded as ever. Under PFC a host's
# own PFC frame pauses the switch's egress toward it (its quanta at the link's rate), and
# lossy it does not. pcap ports: deterministic, no namespaces.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init pcap_reserved

T=$FE_TMP
# gen OUT KIND...: frames from host A (02:fe:00:00:00:0a), 60 bytes, in order; KIND bcast
# (0x88b5, tagged for fe-pcapcheck's order check) or a reserved address's protocol
gen() {
	python3 - "$@" <<'EOF'
import struct, sys
A = bytes.fromhex("02fe0000000a")
B = bytes.fromhex("02fe0000000b")
R = lambda last: bytes.fromhex("0180c20000") + bytes([last])
seq = 0
def frame(kind):
    global seq
    if kind == "bcast":
        f = b"\xff" * 6 + A + b"\x88\xb5" + b"FEMU" + A[2:] + struct.pack(">I", seq)
        seq += 1
    elif kind == "pfc":    # 802.1Qbb: opcode 0x0101, priority 3 paused
        f = R(1) + A + b"\x88\x08\x01\x01\x00\x08" + b"\x00\x00" * 3 + b"\xff\xff"
    elif kind == "pfc-b":  # the same from host B, 2,000 quanta (102.4 ms at 10 Mbit/s)
        f = R(1) + B + b"\x88\x08\x01\x01\x00\x08" + b"\x00\x00" * 3 + b"\x07\xd0"
    elif kind == "pause":  # 802.3x: opcode 0x0001
        f = R(1) + A + b"\x88\x08\x00\x01\xff\xff"
    elif kind == "lldp":   # chassis id TLV
        f = R(0x0e) + A + b"\x88\xcc\x02\x07\x04" + A
    elif kind == "stp":    # 802.3 length, LLC 42 42 03, a configuration BPDU's start
        f = R(0) + A + struct.pack(">H", 38) + b"\x42\x42\x03\x00\x00\x00\x00"
    elif kind == "lacp":   # slow protocols, subtype 1
        f = R(2) + A + b"\x88\x09\x01\x01"
    elif kind == "eapol":  # 802.1X, EAPOL-Start
        f = R(3) + A + b"\x88\x8e\x01\x01\x00\x00"
    return f.ljust(60, b"\0")
out = open(sys.argv[1], "wb")
out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for i, k in enumerate(sys.argv[2:]):
    f = frame(k)
    out.write(struct.pack("<IIII", 0, i, len(f), len(f)) + f)
EOF
}
# reserved_in FILE...: frames to a reserved address in pcap files (none may leave)
reserved_in() {
	python3 - "$@" <<'EOF'
import struct, sys
n = 0
for name in sys.argv[1:]:
    b = open(name, "rb").read()
    o = 24
    while o + 16 <= len(b):
        cap = struct.unpack("<I", b[o + 8:o + 12])[0]
        f = b[o + 16:o + 16 + cap]
        n += f[:5] == bytes.fromhex("0180c20000") and f[5] & 0xf0 == 0
        o += 16 + cap
print(n)
EOF
}
# first_us FILE: the first frame's capture time in a pcap file, us (DPDK's pcap PMD
# writes them in ns: magic 0xa1b23c4d)
first_us() {
	python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read()
s, f = struct.unpack("<II", b[24:32])
print(s * 1000000 + (f // 1000 if struct.unpack("<I", b[:4])[0] == 0xa1b23c4d else f))' "$1"
}
KINDS="pfc pause lldp stp lacp eapol"
gen "$T/in0.pcap" bcast pfc pause lldp bcast stp lacp eapol pfc bcast
gen "$T/bcast.pcap" bcast bcast bcast
gen "$T/empty.pcap"

# run NAME PORTS IN0 ARGS...: fabemu-dp over PORTS pcap ports, IN0 read on port 0
run() {
	local name=$1 n=$2 in0=$3 p vdevs=()
	shift 3
	vdevs+=("--vdev=net_pcap0,rx_pcap=$in0,tx_pcap=$T/$name-out0.pcap")
	for ((p = 1; p < n; p++)); do
		vdevs+=("--vdev=net_pcap$p,rx_pcap=$T/empty.pcap,tx_pcap=$T/$name-out$p.pcap")
	done
	fe_dp_once "$T/$name.log" $(fe_eal) "${vdevs[@]}" -- --exit-idle 300ms \
		--stats-json "$T/$name.json" "$@"
}
# check NAME PORTS: every other port got the three broadcasts in order, nothing reserved;
# the switch counted each cause and flooded the broadcasts only
check() {
	local name=$1 n=$2 p got S=$T/$1.json
	for ((p = 1; p < n; p++)); do
		got=$("$FE_BIN/fe-pcapcheck" "$T/$name-out$p.pcap")
		[[ "$got" == "packets=3 "*"order=ok"*" pfc=0 "* ]] ||
			fe_fail "$name: port $p got '$got', expected the 3 broadcasts only"
	done
	fe_check "$name: reserved frames out of any port" \
		"$(reserved_in "$T/$name"-out*.pcap)" 0 0
	fe_check "$name: switch.reserved_pfc" "$(fe_json "$S" 'd["switch"]["reserved_pfc"]')" 2 2
	for k in pause lldp stp slow other; do
		fe_check "$name: switch.reserved_$k" "$(fe_json "$S" "d['switch']['reserved_$k']")" 1 1
	done
	fe_check "$name: switch.flooded" "$(fe_json "$S" 'd["switch"]["flooded"]')" 3 3
	fe_check "$name: port 0 rx_pkts (all ten reached the box)" \
		"$(fe_json "$S" 'd["ports"][0]["rx_pkts"]')" 10 10
}

# one switch, three ports, lossy (the burst path: ideal links) and PFC (the general path)
run single 3 "$T/in0.pcap"
check single 3
run single-pfc 3 "$T/in0.pcap" --regime pfc --link all:delay=10us
check single-pfc 3
# a host's own PFC frame: host B (port 1) pauses priority 3 for 2,000 quanta, 102.4 ms at
# its down link's 10 Mbit/s; host A's three broadcasts come 1 ms after (its up link's
# delay). Under PFC the switch holds them toward B for the pause, not toward C (port 2);
# lossy it runs no PFC, and B gets them when C does
gen "$T/bcast-b.pcap" pfc-b
for r in pfc lossy; do
	fe_dp_once "$T/host-$r.log" $(fe_eal) "--vdev=net_pcap0,rx_pcap=$T/bcast.pcap,tx_pcap=$T/host-$r-out0.pcap" \
		"--vdev=net_pcap1,rx_pcap=$T/bcast-b.pcap,tx_pcap=$T/host-$r-out1.pcap" \
		"--vdev=net_pcap2,rx_pcap=$T/empty.pcap,tx_pcap=$T/host-$r-out2.pcap" -- \
		--exit-idle 300ms --stats-json "$T/host-$r.json" --regime $r \
		--link all:rate=10Mbit --link 0.up:rate=10Mbit,delay=1ms
	late=$(($(first_us "$T/host-$r-out1.pcap") - $(first_us "$T/host-$r-out2.pcap")))
	fe_log "$r: host B's first broadcast $late us after host C's"
	if [ $r = pfc ]; then
		fe_check "pfc: B's pause held its frames (us later than C's), 102,400 less 1,000" \
			"$late" 98000 110000
		fe_check "pfc: port 1's host_pfc_xoff" \
			"$(fe_json "$T/host-$r.json" 'd["ports"][1]["host_pfc_xoff"]')" 1 1
	else
		fe_check "lossy: B's frames not held (us later than C's)" "$late" -5000 5000
		fe_check "lossy: port 1's host_pfc_xoff" \
			"$(fe_json "$T/host-$r.json" 'd["ports"][1]["host_pfc_xoff"]')" 0 0
	fi
	fe_check "$r: B's pause out of any port" "$(reserved_in "$T/host-$r"-out*.pcap)" 0 0
	fe_check "$r: the broadcasts B got" \
		"$("$FE_BIN/fe-pcapcheck" "$T/host-$r-out1.pcap" | sed 's/^packets=\([0-9]*\).*/\1/')" 3 3
done
# a leaf-spine of eight hosts, credits: stopped at leaf1, so the links between switches
# carried what the broadcasts alone carry
run fabric 8 "$T/in0.pcap" --topology leaf-spine --regime credit
check fabric 8
run fabric-bcast 8 "$T/bcast.pcap" --topology leaf-spine --regime credit
hops='sum(l["in_pkts"] for l in d["graph"]["fabric_links"])'
fe_check "fabric: frames on links between switches, as broadcasts alone" \
	"$(fe_json "$T/fabric.json" "$hops")" "$(fe_json "$T/fabric-bcast.json" "$hops")" \
	"$(fe_json "$T/fabric-bcast.json" "$hops")"
echo "pcap_reserved: passed"
