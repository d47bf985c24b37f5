#!/usr/bin/env bash
# Conservation across a fabric of several switches: --topology leaf-spine (2 leaves of 4
# hosts, 2 spines), pcap ports, no namespaces. Every frame a host sent is accounted for
# at exit: delivered, dropped by a named cause, filtered, or counted where it was when
# the dataplane stopped (a link's buffer or wire, a switch's input queue, an emulated
# NIC's send queue or reorder hold): nothing is freed uncounted.
#
# Incast runs, stopped with SIGINT while every queue is full: ports 0, 1, 2, 3 and 5 send
# to port 4, port 6 to port 0, replayed forever. Each port first sends frames to itself
# (filtered), 100 of 1000 B from a sender, so that every switch has learned every host
# before the first unicast frame reaches it: nothing is flooded. Frames of EtherType
# 0x88b5 but in the last run (the NICs of roce-pfc-ecn and ib-ndr pass them as they are).
# At 100 Mbit/s a link:
#   ethernet-lossy  tail drops at the hosts' links and the leaves' uplinks
#   roce-pfc-ecn    PFC: pauses climb from port 4's egress through the spines to hosts
#   ib-ndr          credits: the switches' input queues fill (iq_stopped at exit)
#   spectrum-x      IPv4/UDP through the emulated RoCE NICs (docs/nic.md), whose send
#                   queues are full at exit (nic_stopped_send); adaptive routing, and 1 %
#                   loss on the links between switches: gaps, whose later frames the
#                   receiving NICs hold for order (nic_stopped_recv at exit)
# Broadcast runs (10 broadcasts from port 0, to completion), lossy and credits: a flood
# follows its ingress leaf's tree, leaf1 to both spines and one spine on to leaf2; the
# other spine is a branch with no host and no child: the copy it gets ends there
# (switch.flood_ends).
#
# Checks (python below; every term printed):
#  1. every link, hosts' up and down and both directions of every link between switches:
#     in = out + drops by cause + queued + on the wire + stopped (docs/counters.md);
#  2. every port's edge: frames from the host + the NIC's own and resent frames = the up
#     link's in + the NIC's send queue at exit; the down link's out = frames to the host
#     (not PFC frames) + what the NIC took (discards, CNPs, ACKs, NAKs) + what it held or
#     had released at exit (docs/nic.md);
#  3. the whole fabric, host to host: frames from the hosts + the NICs' own + flood
#     copies = frames to the hosts + what the NICs took + every drop by cause, filtered
#     frame, flood end, and frame queued, on a wire or stopped in a link, a switch's input
#     queue or a NIC. No counter says how many copies a switch made of a flood, and a
#     link between switches carries floods and unicast alike: so the incast runs flood
#     nothing (asserted), and the broadcast runs carry floods only, where each switch is
#     checked on its own (each frame into a switch of the tree leaves by every branch: its
#     hosts but the sender, its children in the tree) and gives the copies it made.
#  4. lossy: the links between switches take the frames a pass gives them in the order of
#     their ticks: none behind a later one but what a late pass left (at most 0.1 %), and
#     the stages sorted some (switch.hop_reordered).
# Each counter of frames freed at exit is nonzero in the run built to provoke it: a
# balance that holds with a term that is nonzero fails without it.
# FC_OMIT=TERM (a term's name, as printed) leaves that term out of every sum, to see it
# fail; FC_RUN_S (2.5) is how long an incast runs; FC_KEEP=DIR keeps the counters
# documents and logs there.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init fabric_conservation
T=$FE_TMP
GEN="$FE_BIN/fe-pcapgen"
RUN_S=${FC_RUN_S:-2.5}

mac() { printf '02:fe:00:00:00:%02x' $(($1 + 1)); }

"$FE_BIN/fabemuctl" topology show leaf-spine >"$T/topo.txt"
[ "$(grep -c '^port ' "$T/topo.txt")" = 8 ] || fe_fail "leaf-spine: 8 host ports expected"

# incast pcaps, KIND raw (EtherType 0x88b5: no NIC flow) or udp (IPv4/UDP: NIC flows):
# frames to itself first (always raw), then 1000 unicast frames of 1000 B. Ports 4 and 7
# only send 4 frames to themselves, once.
incast_pcaps() {
	local kind=$1 p dst udp=
	[ "$kind" = udp ] && udp=--udp
	for p in 0 1 2 3 4 5 6 7; do
		case $p in
		4 | 7) "$GEN" "$T/$kind$p.pcap" "$(mac $p)" "$(mac $p)" 4 64 ;;
		*)
			dst=4
			[ $p = 6 ] && dst=0
			"$GEN" "$T/self$p.pcap" "$(mac $p)" "$(mac $p)" 100 1000
			"$GEN" $udp "$T/uni$p.pcap" "$(mac $p)" "$(mac $dst)" 1000 1000
			# one file: the second's frames after the first's (its 24-byte header left out)
			{ cat "$T/self$p.pcap"; tail -c +25 "$T/uni$p.pcap"; } >"$T/$kind$p.pcap"
			;;
		esac
	done
}
incast_pcaps raw
incast_pcaps udp
"$GEN" "$T/bcast.pcap" "$(mac 0)" ff:ff:ff:ff:ff:ff 10 1000
"$GEN" "$T/empty.pcap"

# incast RUN KIND ARGS...: the incast under fabemu-dp ARGS, SIGINT after RUN_S seconds
incast() {
	local run=$1 kind=$2 p inf vdevs=()
	shift 2
	for p in 0 1 2 3 4 5 6 7; do
		inf=,infinite_rx=1
		case $p in 4 | 7) inf= ;; esac
		vdevs+=("--vdev=net_pcap$p,rx_pcap=$T/$kind$p.pcap,tx_pcap=/dev/null$inf")
	done
	echo "run $run: $*, $kind frames, SIGINT after ${RUN_S}s"
	fe_dp_start $(fe_eal) "${vdevs[@]}" -- --topology leaf-spine "$@" --stats-json "$T/$run.json"
	sleep "$RUN_S"
	fe_dp_stop # exit 0: every mbuf back in its pool
	grep -q "pool \([0-9]*\) of \1 returned" "$FE_DP_LOG" || fe_fail "$run: $(grep mbufs "$FE_DP_LOG")"
}

# bcast RUN ARGS...: 10 broadcasts from port 0 under fabemu-dp ARGS, to completion
bcast() {
	local run=$1 p vdevs=("--vdev=net_pcap0,rx_pcap=$T/bcast.pcap,tx_pcap=/dev/null")
	shift
	for p in 1 2 3 4 5 6 7; do vdevs+=("--vdev=net_pcap$p,rx_pcap=$T/empty.pcap,tx_pcap=/dev/null"); done
	echo "run $run: $*, 10 broadcasts from port 0"
	fe_dp_once "$T/$run.log" $(fe_eal) "${vdevs[@]}" -- --topology leaf-spine "$@" \
		--exit-idle 200ms --stats-json "$T/$run.json"
}

incast lossy raw --profile ethernet-lossy --scale 1000
incast pfc raw --profile roce-pfc-ecn --scale 4000
incast credit raw --profile ib-ndr --scale 4000
incast nic udp --profile spectrum-x --scale 4000 --link fabric:loss=1%
bcast bcast-lossy --profile ethernet-lossy --scale 1000
bcast bcast-credit --profile ib-ndr --scale 4000
echo "  the runs took $SECONDS s"
[ -z "${FC_KEEP:-}" ] || { mkdir -p "$FC_KEEP" && cp "$T"/*.json "$T"/*.log "$FC_KEEP"/; }

python3 - "$T" "$T/topo.txt" <<'PY' || fe_fail "frames not accounted for"
import json, os, re, sys

tmp, topo = sys.argv[1:3]
omit = os.environ.get("FC_OMIT", "")
port_sw = {int(m.group(1)): m.group(2)
           for m in re.finditer(r"^port (\d+) .* on (\S+) ", open(topo).read(), re.M)}
failed, missing = [], set()


def field(o, k):
    """o[k]; a field the dataplane does not write is reported, and fails the test."""
    if k not in o:
        missing.add(k)
        return 0
    return o[k]


def check(what, lhs, rhs, quiet=False):
    """lhs, rhs: [(term, value)]; every term printed (those at 0 on the right left out
    of the line); fails unless the sums agree. quiet: print only a failure."""
    lhs = [(k, v) for k, v in lhs if k != omit]
    rhs = [(k, v) for k, v in rhs if k != omit]
    a, b = sum(v for _, v in lhs), sum(v for _, v in rhs)
    if a == b and quiet:
        return
    print("  %s %s: %s = %s" % ("ok  " if a == b else "FAIL", what,
                                " + ".join("%s %d" % kv for kv in lhs) or "0",
                                " + ".join("%s %d" % kv for kv in rhs if kv[1]) or "0"))
    if a != b:
        print("       %d != %d: off by %+d" % (a, b, a - b))
        failed.append(what)


def drops(l):
    return {k[5:-5]: v for k, v in l.items() if k.startswith("drop_") and k.endswith("_pkts")}


def lanes_of(d):
    """[(input, lane counters)]: the ports' lanes, then those of the links between switches
    (each as an input of its receiving switch)."""
    out = [("port%d" % p["port"], x) for p in d["ports"] for x in p.get("lanes", [])]
    if not out:
        out = [("port%d" % x["port"], x) for x in d.get("lane_counters", [])]
    return out + [(l["link"], x) for l in d["graph"]["fabric_links"] for x in l.get("lanes", [])]


NIC_MADE = ("nic_resent_pkts", "nic_cnp_sent", "nic_acks_sent", "nic_naks_sent")
NIC_TOOK = ("nic_oos_discards", "nic_dup_discards", "nic_stray", "nic_edge_drops",
            "nic_cnp_recv", "nic_acks_recv", "nic_naks_recv")


def balance(run, d, copies=None):
    """Checks 1 to 3 on run's counters document d; copies: the flood copies made."""
    links = {l["link"]: l for l in d["links"]}
    fab, g, sw, ports = d["graph"]["fabric_links"], d["graph"], d["switch"], d["ports"]
    every = d["links"] + fab
    lanes = lanes_of(d)
    print("%s: regime %s, %d switches, path %s, %d frames from the hosts" % (
        run, d["regime"], g["switches"], g["path"], sum(p["rx_pkts"] for p in ports)))
    # 1. every link
    idle = []
    for l in every:
        rhs = [("out", l["out_pkts"])] + [("drop_" + c, v) for c, v in sorted(drops(l).items())]
        rhs += [("queued", l["q_pkts"]), ("wire", l["wire_pkts"]), ("stopped", l["stopped_pkts"])]
        if l["in_pkts"] == 0 and not any(v for _, v in rhs):
            idle.append(l["link"])
        else:
            check("%s %s" % (run, l["link"]), [("in", l["in_pkts"])], rhs)
    print("  ok   %s: idle, nothing in or out: %s" % (run, " ".join(idle) or "none"))
    # 2. every port's edge (the NIC's terms are absent without one)
    for p in ports:
        i = p["port"]
        up, down = links["%d.up" % i], links["%d.down" % i]
        check("%s port %d from its host" % (run, i),
              [("rx_pkts", p["rx_pkts"])] + [(k, p.get(k, 0)) for k in NIC_MADE if p.get(k)],
              [("%d.up in" % i, up["in_pkts"]), ("nic_stopped_send", field(p, "nic_stopped_send"))])
        check("%s port %d to its host" % (run, i), [("%d.down out" % i, down["out_pkts"])],
              [("tx_pkts", p["tx_pkts"]), ("pfc_frames_out", -p["pfc_frames_out"])] +
              [(k, p.get(k, 0)) for k in NIC_TOOK] +
              [("nic_stopped_recv", field(p, "nic_stopped_recv"))])
    # 3. the whole fabric, host to host
    lhs = [("rx_pkts", sum(p["rx_pkts"] for p in ports))]
    lhs += [(k, sum(p.get(k, 0) for p in ports)) for k in NIC_MADE]
    if copies is not None:
        lhs.append(("flood copies", copies))
    rhs = [("tx_pkts", sum(p["tx_pkts"] for p in ports)),
           ("pfc_frames_out", -sum(p["pfc_frames_out"] for p in ports))]
    rhs += [(k, sum(p.get(k, 0) for p in ports)) for k in NIC_TOOK]
    for c in sorted({c for l in every for c in drops(l)}):
        rhs.append(("drop_" + c, sum(drops(l).get(c, 0) for l in every)))
    rhs += [("queued", sum(l["q_pkts"] for l in every)), ("wire", sum(l["wire_pkts"] for l in every)),
            ("stopped", sum(l["stopped_pkts"] for l in every))]
    rhs += [(k, sw[k]) for k in ("filtered", "runts", "nombuf", "handoff_full")]
    rhs += [(k, sw[k]) for k in sorted(sw) if k.startswith("reserved_")]  # stopped at the switch
    rhs.append(("flood_ends", field(sw, "flood_ends")))
    if d["regime"] == "credit":
        rhs += [("iq_depth", sum(x["iq_depth"] for _, x in lanes)),
                ("iq_stopped", sum(field(x, "iq_stopped") for _, x in lanes))]
    rhs += [(k, sum(field(p, k) for p in ports)) for k in ("nic_stopped_send", "nic_stopped_recv")]
    check("%s: the whole fabric, host to host" % run, lhs, rhs)
    freed = {"iq_stopped of ports": sum(x.get("iq_stopped", 0) for n, x in lanes if ">" not in n),
             "iq_stopped of links between switches": sum(x.get("iq_stopped", 0) for n, x in lanes if ">" in n),
             "flood_ends": sw.get("flood_ends", 0),
             "nic_stopped_send": sum(p.get("nic_stopped_send", 0) for p in ports),
             "nic_stopped_recv": sum(p.get("nic_stopped_recv", 0) for p in ports)}
    print("  %s: freed at exit or flood ends: %s" % (
        run, ", ".join("%s %d" % kv for kv in freed.items())))
    return freed


def load(run):
    return json.load(open("%s/%s.json" % (tmp, run)))


seen = {}
for run in ("lossy", "pfc", "credit", "nic"):
    d = load(run)
    seen[run] = balance(run, d)
    links = {l["link"]: l for l in d["links"] + d["graph"]["fabric_links"]}
    lanes = lanes_of(d)
    # what makes each run the test it is meant to be
    assert d["switch"]["flooded"] == 0, \
        "%s: %d frames flooded (a destination not learned in time)" % (run, d["switch"]["flooded"])
    assert links["4.down"]["out_pkts"] > 1000 and links["0.down"]["out_pkts"] > 1000, \
        "%s: too little traffic" % run
    if run == "lossy":
        assert links["leaf1>spine1"]["drop_tail_pkts"] > 0 and links["4.down"]["drop_tail_pkts"] > 0, \
            "lossy: no tail drop at leaf1's uplink or port 4's egress"
        # the links between switches are offered a pass's frames in the order of their
        # ticks (docs/architecture.md): four senders into leaf1's uplinks, put in order by
        # the stages; behind a later one only what a pass left to the next (a late pass)
        fab = d["graph"]["fabric_links"]
        behind, offered = sum(l["behind_pkts"] for l in fab), sum(l["in_pkts"] for l in fab)
        print("  lossy: the links between switches took %d of %d frames behind a later one; "
              "their stages put %d back in order" % (behind, offered, d["switch"]["hop_reordered"]))
        assert d["switch"]["hop_reordered"] > 0, "lossy: no stage sorted a frame"
        assert behind * 1000 <= offered, "lossy: %d of %d frames behind a later one" % (behind, offered)
    if run in ("pfc", "nic"):
        assert sum(x["xoff_events"] for n, x in lanes if ">" in n) > 0 and \
            sum(x["xoff_events"] for n, x in lanes if n.startswith("port")) > 0, \
            "%s: no pause, or none reached a host" % run
    if run == "credit":
        assert max(x["iq_peak"] for n, x in lanes if ">" in n) > 0, "credit: no input queue of a spine or leaf filled"
    if run == "nic":
        assert sum(p["nic_flows"] for p in d["ports"]) >= 6, "nic: the NICs carried no flow"
        assert sum(p["nic_held_pkts"] for p in d["ports"]) > 0, "nic: no NIC held a frame for order"
    drops_all = sum(v for l in links.values() for v in drops(l).values())
    assert run not in ("pfc", "credit") or drops_all == 0, "%s: %d drops in a lossless fabric" % (run, drops_all)
    # PFC with the NICs' small frames (ACKs, CNPs) among the data: its egress queues are
    # limited in bytes, as its pauses count, so none tail-drops (the 1 % loss between
    # switches is the run's own, cause random)
    tail = sum(l["drop_tail_pkts"] for l in links.values())
    assert run != "nic" or tail == 0, "nic: %d tail drops under PFC" % tail

# The broadcast runs: switch by switch, each frame in leaves by each of its branches (its
# hosts but the sender, its children in the tree: the links out of it the flood took)
for run in ("bcast-lossy", "bcast-credit"):
    d = load(run)
    fab = {l["link"]: l for l in d["graph"]["fabric_links"]}
    links = {l["link"]: l for l in d["links"]}
    lanes = dict(lanes_of(d))
    root = port_sw[0]
    tree = [n for n, l in fab.items() if l["in_pkts"] > 0]
    switches = sorted({s for n in fab for s in n.split(">")})
    assert len(tree) == len(switches) - 1 and \
        sorted(n.split(">")[1] for n in tree) == sorted(set(switches) - {root}), \
        "%s: the links the flood took are not a tree from %s: %s" % (run, root, tree)
    copies, ends = 0, 0
    for s in switches:
        # frames in: what the links into it delivered, less what waits in its input queues
        ins = [("%s out" % n, fab[n]["out_pkts"]) for n in tree if n.split(">")[1] == s]
        ins += [("%s queued" % n, -(x["iq_depth"] + field(x, "iq_stopped")))
                for n, x in lanes.items() if n in tree and n.split(">")[1] == s]
        if s == root:
            ins += [("0.up out", links["0.up"]["out_pkts"])]
            ins += [("port0 queued", -(x["iq_depth"] + field(x, "iq_stopped")))
                    for n, x in lanes.items() if n == "port0"]
        f = sum(v for _, v in ins)
        outs = [("%d.down in" % p, links["%d.down" % p]["in_pkts"])
                for p, x in sorted(port_sw.items()) if x == s and p != 0]
        outs += [("%s in" % n, fab[n]["in_pkts"]) for n in tree if n.split(">")[0] == s]
        print("  %s: %s takes %d flood frames (%s), %d branches" % (
            run, s, f, " + ".join("%s %d" % kv for kv in ins), len(outs)))
        if outs:
            copies += (len(outs) - 1) * f
            check("%s: %s sends each on all %d" % (run, s, len(outs)),
                  [("%d x %d" % (len(outs), f), len(outs) * f)], outs)
        else:
            ends += f
    check("%s: flood ends = frames into the tree's branches with no host and no child" % run,
          [("flood_ends", field(d["switch"], "flood_ends"))], [("frames in", ends)])
    seen[run] = balance(run, d, copies - d["switch"]["nombuf"])
    got = [links["%d.down" % p]["out_pkts"] for p in range(8)]
    assert d["switch"]["flooded"] == 10 and got == [0] + [10] * 7, \
        "%s: flooded %d, delivered %s" % (run, d["switch"]["flooded"], got)

# each counter of frames freed at exit counts in the run built to provoke it
for run, key in (("credit", "iq_stopped of ports"), ("credit", "iq_stopped of links between switches"),
                 ("nic", "nic_stopped_send"), ("nic", "nic_stopped_recv"),
                 ("bcast-lossy", "flood_ends"), ("bcast-credit", "flood_ends")):
    print("  %s %s: %s %d" % ("ok  " if seen[run][key] else "FAIL", run, key, seen[run][key]))
    if not seen[run][key]:
        failed.append("%s: %s is 0" % (run, key))
if missing:
    print("  FAIL the counters document lacks: %s" % ", ".join(sorted(missing)))
    failed.append("fields missing")
if failed:
    sys.exit("%d checks failed: %s" % (len(failed), "; ".join(failed)))
PY
echo "fabric_conservation: passed in $SECONDS s"
