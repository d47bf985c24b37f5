#!/usr/bin/env bash
# NIC model host (docs/nic.md): real RDMA NICs at the hosts, fabemu leaves them their
# transport and decodes RoCEv2 as it reaches a host, per queue pair. Generated RoCEv2 in a
# pcap file: a go-back-N resend, a PSN gap, a second queue pair, a NAK, an RNR NAK, an
# ACK and a CNP; then the same with one packet dropped by the fabric, which shows as one
# more gap. Exact counts, per port and per queue pair.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init pcap_roce
T=$FE_TMP

python3 - "$T/in0.pcap" <<'PY'
import struct, sys

def frame(op, qpn, psn, dst=2, syn=None):
    bth = struct.pack("!BBHB3sB3s", op, 0, 0xffff, 0, qpn.to_bytes(3, "big"), 0,
                      psn.to_bytes(3, "big"))
    payload = bth + (bytes([syn, 0, 0, 0]) if syn is not None else b"x" * 64) + b"\0" * 4
    udp = struct.pack("!HHHH", 49152, 4791, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     bytes([198, 18, 0, 1]), bytes([198, 18, 0, dst])) + udp
    return b"\xff" * 6 + b"\x02\xfe\x00\x00\x00\x0a" + b"\x08\x00" + ip

pkts = []
pkts += [frame(0x04, 0x11, p) for p in range(10)]        # QP 0x11: SEND only, 0..9
pkts += [frame(0x04, 0x11, p) for p in range(5, 10)]     # go-back-N from 5
pkts += [frame(0x04, 0x11, p) for p in (10, 11, 13, 14)] # 12 never comes
pkts += [frame(0x0a, 0x22, p) for p in (100, 101, 102)]  # QP 0x22: RDMA WRITE only
pkts += [frame(0x11, 0x33, 7, dst=1, syn=0x60),          # QP 0x33: a NAK (PSN sequence)
         frame(0x11, 0x33, 7, dst=1, syn=0x2e),          # an RNR NAK
         frame(0x11, 0x33, 9, dst=1, syn=0x1f),          # an ACK
         frame(0x81, 0x33, 0, dst=1)]                     # a CNP
pkts.append(b"\xff" * 6 + b"\x02\xfe\x00\x00\x00\x0a" + b"\x88\xb5" + b"\0" * 46)  # not RoCE
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, p in enumerate(pkts):
        f.write(struct.pack("<IIII", 1, i, len(p), len(p)) + p)
PY
"$FE_BIN/fe-pcapgen" "$T/empty.pcap"
run() { # NAME [fabemu-dp options]
	local name=$1
	shift
	fe_dp_once "$T/$name.log" $(fe_eal) \
		--vdev=net_pcap0,rx_pcap=$T/in0.pcap,tx_pcap=$T/$name-out0.pcap \
		--vdev=net_pcap1,rx_pcap=$T/empty.pcap,tx_pcap=$T/$name-out1.pcap \
		-- --nic model=host --exit-idle 200ms --stats-json "$T/$name.json" "$@"
}
check() { # NAME GAPS MISSING PKTS
	python3 - "$T/$1.json" "$2" "$3" "$4" <<'PY' || fe_fail "$1: the queue pairs' counts"
import json, sys
d = json.load(open(sys.argv[1]))
gaps, missing, pkts = map(int, sys.argv[2:])
p = d["ports"][1]
want = {"roce_pkts": pkts, "roce_qps": 3, "roce_gaps": gaps, "roce_missing": missing,
        "roce_resent": 5, "roce_rewinds": 1, "roce_naks": 1, "roce_rnr_naks": 1,
        "roce_cnps": 1, "roce_untracked": 0}
got = {k: p[k] for k in want}
assert got == want, (got, want)
assert d["ports"][0]["roce_pkts"] == 0, "nothing reached host 0"
qps = {(q["dst"], q["qpn"]): q for q in p["qps"]}
a, b, c = qps[("198.18.0.2", 0x11)], qps[("198.18.0.2", 0x22)], qps[("198.18.0.1", 0x33)]
assert (a["gaps"], a["missing"], a["resent"], a["rewinds"]) == (gaps, missing, 5, 1), a
assert (b["pkts"], b["gaps"], b["resent"]) == (3, 0, 0), b
assert (c["naks"], c["rnr_naks"], c["cnps"], c["pkts"]) == (1, 1, 1, 4), c
print("  ok   %s: %d RoCEv2 packets, 3 queue pairs, %d gap(s) (%d PSN missing), 5 resent "
      "in 1 go-back-N, 1 NAK, 1 RNR NAK, 1 CNP" % (sys.argv[1].split("/")[-1], pkts, gaps,
                                                    missing))
PY
}
run clean
check clean 1 1 26
[ "$("$FE_BIN/fe-pcapcheck" "$T/clean-out1.pcap" | sed 's/ .*//')" = "packets=27" ] ||
	fe_fail "model host changed what reaches the host"
# the fabric drops QP 0x11's PSN 2 (the 3rd frame): one more gap, one more PSN missing
run drop --link 1.down:drop=3
check drop 2 2 25
echo "pcap_roce: passed"
