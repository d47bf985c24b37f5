#!/usr/bin/env python3
"""Seed corpora of the fuzz targets (tests/fuzz/corpus/NAME/seed-*), from the project's
own inputs: the shipped profiles and campaigns, the profiles and campaigns the tests
write, the link specs and filters of the docs and tests, and frames of every kind the
tests send. Run it from anywhere after changing any of those; it rewrites the seed-*
files and leaves the crash-* regressions alone.

    tests/fuzz/make_seeds.py
"""
import glob
import os
import re
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def heredocs(paths):
    """The YAML documents that test scripts write with cat >FILE <<'Y' ... Y."""
    docs = []
    for p in paths:
        text = open(p).read()
        for m in re.finditer(r"<<'?Y'?\n(.*?)\nY\n", text, re.S):
            docs.append(m.group(1) + "\n")
    return docs


def write(target, seeds):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for old in glob.glob(os.path.join(d, "seed-*")):
        os.remove(old)
    for name, data in seeds:
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(d, "seed-" + name), "wb") as f:
            f.write(data)
    print("%-9s %3d seeds" % (target, len(seeds)))


# ---- frames ----

A = bytes.fromhex("02fe0000000a")
B = bytes.fromhex("02fe0000000b")
BCAST = b"\xff" * 6


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(proto, payload, tos=0, ihl=5):
    opts = b"\x01" * (4 * ihl - 20)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, 4 * ihl + len(payload), 1, 0, 64, proto,
                    0, bytes([198, 18, 0, 1]), bytes([198, 18, 0, 2])) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ipv6(nh, payload, tc=0):
    return struct.pack("!IHBB", 6 << 28 | tc << 20, len(payload), nh, 64) + \
        bytes(15) + b"\x01" + bytes(15) + b"\x02" + payload


def udp(dport=9, n=18):
    return struct.pack("!HHHH", 9, dport, 8 + n, 0) + b"FEMU" + bytes(n - 4)


def tcp(flags=0x10, dport=5201, n=20):
    return struct.pack("!HHIIBBHHH", 40000, dport, 1, 1, 5 << 4, flags, 65535, 0, 0) + bytes(n)


def eth(etype, payload, dst=B, src=A, vlan=None):
    tag = b"" if vlan is None else struct.pack("!HH", 0x8100, vlan)
    return dst + src + tag + struct.pack("!H", etype) + payload


ARP = eth(0x0806, bytes.fromhex("0001080006040001") + A + bytes([198, 18, 0, 1]) + bytes(6) +
          bytes([198, 18, 0, 2]), dst=BCAST)
FRAMES = {
    "ipv4-udp-ect0": eth(0x0800, ipv4(17, udp(), tos=0x02)),
    "ipv4-udp-ect1": eth(0x0800, ipv4(17, udp(), tos=0x01)),
    "ipv4-udp-ce": eth(0x0800, ipv4(17, udp(), tos=0x03)),
    "ipv4-tcp-notect": eth(0x0800, ipv4(6, tcp())),
    "ipv4-tcp-syn-ect0": eth(0x0800, ipv4(6, tcp(flags=0x02), tos=0xb8 | 0x02)),
    "ipv4-options-ect0": eth(0x0800, ipv4(17, udp(), tos=0x02, ihl=7)),
    "ipv4-cs5-ect0": eth(0x0800, ipv4(17, udp(n=22), tos=0xa2)),
    "vlan-pcp5-ipv4-ect0": eth(0x0800, ipv4(17, udp(), tos=0x02), vlan=5 << 13 | 10),
    "vlan-pcp3-ipv6-ect1": eth(0x86DD, ipv6(17, udp(), tc=0x61), vlan=3 << 13 | 10),
    "ipv6-tcp-ect0": eth(0x86DD, ipv6(6, tcp(), tc=0x02)),
    "ipv6-udp-ce": eth(0x86DD, ipv6(17, udp(), tc=0x03)),
    "arp-broadcast": ARP,
    "roce-v2-ect0": eth(0x0800, ipv4(17, udp(dport=4791, n=40), tos=0x6a)),
    "femu-88b5": eth(0x88B5, b"FEMU" + bytes(42)),
    "pfc-pause": bytes.fromhex("0180c2000001") + A + bytes.fromhex("88080101000800000000") +
    bytes(40),
    "ipv4-truncated": eth(0x0800, ipv4(17, udp(), tos=0x02))[:30],
    "vlan-truncated": eth(0x0800, b"", vlan=1)[:16],
    "runt": A[:5],
}


# ---- per target ----

def profile_seeds():
    seeds = [(os.path.basename(p), open(p).read()) for p in sorted(glob.glob(ROOT + "/profiles/*.yaml"))]
    docs = heredocs(glob.glob(ROOT + "/tests/e2e/*.sh"))
    seeds += [("test-%d.yaml" % i, d) for i, d in enumerate(x for x in docs if "regimes:" not in x)]
    seeds.append(("full.yaml", "name: full\nregime: credit\ncredit: {buffer: 1MiB, return: 1us, "
                  "hoq: 0s, out: 32, update: 4KiB}\nlanes: 4\nlane-map: dscp\nlink:\n  buffer-pkts: 16384\n"
                  "  rate: 100Gbit\n  delay: 1us\n  ecn: {kmin: 2MB, kmax: 4MB, pmax: 1%}\n"
                  "links:\n  - select: all\n    drop: {first: 1000000000}\n    match: udp port 9\n"))
    seeds.append(("pfc.yaml", "name: pfc\nregime: pfc\nlanes: 8\nswitch-buffer: 4MiB\n"
                  "pfc: {xoff: 64KiB, xon: 32KiB, headroom: 20KB, delay: 2us, quanta: 65535, "
                  "frames: 1}\nlink:\n  rate: 25Gbit\n  jitter: 1us\n"
                  "  gilbert-elliott: {p: 1%, r: 25%, loss-bad: 50%, loss-good: 0%}\n"
                  "links:\n  - select: 1.down\n    loss: 0.1%\n  - select: up\n    buffer: 0\n"))
    return seeds


def campaign_seeds():
    paths = sorted(glob.glob(ROOT + "/testbeds/campaigns/*.yaml")) + \
        sorted(glob.glob(ROOT + "/tests/bench/gap-*.yaml"))
    seeds = [(os.path.basename(p), open(p).read()) for p in paths]
    docs = heredocs(glob.glob(ROOT + "/tests/e2e/*.sh"))
    seeds += [("test-%d.yaml" % i, d) for i, d in enumerate(x for x in docs if "regimes:" in x)]
    return seeds


LINKSPECS = [
    "rate=1Gbit,delay=100us",
    "2.down:ecn=30KB/30KB",
    "0.up:drop=5,match=tcp dst port 5201",
    "0.up:drop=3/2,match=tcp and src host 198.18.0.1 and dst host 198.18.0.2 and greater 1000",
    "1.down:rate=500000000,buffer=4MiB,buffer-pkts=4000",
    "up:loss=0.1%,jitter=20us",
    "down:ge=1%/25%/50%/0%",
    "all:ecn=10KB/40KB/5%/drop",
    "1:rate=1kbit,delay=10s,buffer=0,buffer-pkts=0",
    "0.down: buffer = 64KB , ecn=off # comment",
    "match=icmp",
]


def linkspec_seeds():
    lan = open(ROOT + "/profiles/lan-1g.links").read()
    seeds = [("lan-1g", b"\x04" + lan.encode())]
    seeds += [("spec-%d" % i, bytes([3]) + s.encode()) for i, s in enumerate(LINKSPECS)]
    seeds.append(("regime-specs", b"\x02xoff=64KiB,xon=32KiB,headroom=20KB,delay=2us,quanta=100,"
                  b"frames=1\nbuffer=64KiB,return=1us,hoq=10ms,out=2,update=2KiB\n"))
    seeds.append(("all-lines", b"\x05" + "\n".join(LINKSPECS).encode()))
    return seeds


FILTERS = [
    "udp port 9", "tcp and port 5201", "tcp dst port 5201", "icmp",
    "tcp and src host 198.18.0.1 and dst host 198.18.0.2 and greater 1000",
    "vlan and tcp", "ip6 or arp", "ether[12:2] = 0x0800 and ip[1] & 3 != 0",
    "tcp[tcpflags] & (tcp-syn|tcp-fin) != 0", "ip[1] & 0xfc = 0xb8", "udp dst port 4791",
    "ether broadcast", "not ip", "len > 100 and len < 1000", "ip6 and ip6[1] & 0x30 = 0x30",
    "vlan 10 and udp", "ether src 02:fe:00:00:00:0a", "net 198.18.0.0/15", "portrange 5201-5210",
]


def filter_seeds():
    seeds = []
    names = list(FRAMES)
    for i, f in enumerate(FILTERS):
        frame = FRAMES[names[i % len(names)]]
        seeds.append(("%d" % i, f.encode() + b"\0" + frame))
    return seeds


def engine_input(a, b, frames):
    out = bytes([a, b])
    for port, split, dt, frame in frames:
        out += bytes([port | (0x80 if split else 0) | dt << 2]) + struct.pack("<H", len(frame)) + frame
    return out


def engine_seeds():
    # a: regime (a % 3: lossy, pfc, credit), lanes (1 + a / 3 % 8), map (a / 24 & 1: dscp),
    # pipeline (a / 48 & 1, lossy only); b: 1 ECN, 2 drop non-ECT, 4 filter (b >> 6),
    # 8 rate and delay, 16 jitter and loss, 32 exact drops, 64 small buffers
    f = FRAMES
    learn = [(0, 0, 1, eth(0x88B5, b"FEMU" + bytes(42), dst=BCAST, src=A)),
             (1, 0, 1, eth(0x88B5, b"FEMU" + bytes(42), dst=BCAST, src=B))]
    mix = [(0, i % 2, i % 4, fr) for i, fr in enumerate(f.values())]
    seeds = [
        ("lossy-ideal", engine_input(0, 0, learn + mix)),
        ("lossy-ecn-filter", engine_input(0, 0x01 | 0x04, learn + mix)),
        ("lossy-8lanes-dscp-ecn-drop", engine_input(3 * 7 + 24, 0x03 | 0x08, learn + mix)),
        ("lossy-pipeline", engine_input(48, 0x08 | 0x10, learn + mix)),
        ("pfc-8lanes-pcp", engine_input(1 + 3 * 7, 0x08 | 0x40, learn + mix * 2)),
        ("pfc-4lanes-dscp-filter", engine_input(1 + 3 * 3 + 24, 0x04 | 0x40 | 0x08, learn + mix)),
        ("credit-2lanes", engine_input(2 + 3, 0x08, learn + mix)),
        ("credit-ecn-drops", engine_input(2, 0x01 | 0x20 | 0x08, learn + mix)),
        ("lossy-exact-drops-small", engine_input(0, 0x20 | 0x40 | 0x08, learn + mix * 2)),
    ]
    return seeds


def trunk_seeds():
    """fuzz_trunk: the spine's box of a split leaf-spine reads its trunks (fe_graph.c)."""
    h1, h2 = bytes.fromhex("02fe00000001"), bytes.fromhex("02fe00000002")
    inner = eth(0x0800, ipv4(17, udp()), dst=h2, src=h1)

    def hdr(kind, link):  # fe_trunk_hdr(): to the trunks' address, version 2
        return (bytes.fromhex("03fe00000001020000000009") + b"\x88\xb5\x02"
                + bytes([kind]) + struct.pack(">H", link))

    def route(dst, inn, origin, lane=0, h=0, seq=1):
        return struct.pack(">Q", seq << 48 | h << 32 | lane << 24 | origin << 16 | inn << 8 | dst)

    def rec(trunk, frame, wait=1):  # the input's header: trunk, us until the next, length
        return bytes([trunk | wait << 1]) + struct.pack("<H", len(frame)) + frame

    # late, route, an emulated NIC's tag (data of port 0's flow 3, PSN 7; fe_nicport.c),
    # its pull target (cc rccc: quanta)
    tag = struct.pack(">Q", 1 << 40 | 3 << 24 | 7) + struct.pack(">I", 64)
    data = hdr(1, 0) + struct.pack(">I", 0) + route(1, 0, 0) + tag + inner  # h1 > h2
    flood = hdr(1, 2) + struct.pack(">I", 1000) + route(0xFF, 1, 1) + bytes(12) + inner
    credit = hdr(2, 1) + bytes([1, 0, 0, 0]) + struct.pack(">HI", 2, 500)
    pause = (bytes.fromhex("0180c2000001020000000009") + b"\x88\x08\x01\x01\x00\x01"
             + b"\xff\xff").ljust(60, b"\x00")
    xon = pause[:18] + b"\x00\x00" + pause[20:]
    probe = hdr(3, 0) + struct.pack("<Q", 12345) + bytes(4)
    echo = hdr(4, 0) + struct.pack("<Q", 12345) + bytes(4)
    return [
        ("lossy-frames", bytes([0]) + rec(0, data) * 2 + rec(1, flood)),
        ("pfc-pauses", bytes([1]) + rec(0, data) * 8 + rec(1, pause) + rec(1, xon, 5)),
        ("credit-returns", bytes([2]) + rec(0, data) * 8 + rec(0, credit) + rec(1, credit)),
        ("probes-and-runts", bytes([0]) + rec(0, probe) + rec(1, echo) + rec(0, bytes(10))),
        # credits, an emulated ib NIC: the tags carried through
        ("nic-tags", bytes([12 + 2]) + rec(0, data) * 4 + rec(1, credit)),
        # the box with host 2 and an ib NIC: a flow from host 1 by generation and PSN
        ("nic-remote-flow", bytes([24 + 12]) + b"".join(
            rec(0, hdr(1, 0) + struct.pack(">I", 0) + route(1, 0, 0)
                + struct.pack(">Q", gen << 48 | 1 << 40 | 3 << 24 | psn) + bytes(4) + inner)
            for gen, psn in ((1, 0), (1, 1), (2, 0), (1, 2), (2, 5), (2, 1)))),
    ]


def ecn_seeds():
    return [(name, frame) for name, frame in FRAMES.items()]


if __name__ == "__main__":
    write("profile", profile_seeds())
    write("campaign", campaign_seeds())
    write("linkspec", linkspec_seeds())
    write("filter", filter_seeds())
    write("engine", engine_seeds())
    write("ecn", ecn_seeds())
    write("trunk", trunk_seeds())
