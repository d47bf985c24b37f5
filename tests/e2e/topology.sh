#!/usr/bin/env bash
# Topologies (docs/topologies.md) with fabemuctl: every shipped one checks, shows its ports
# and links, and draws (Graphviz); a broken file is refused with FILE:LINE and exit 1;
# usage errors exit 2.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init topology
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"

"$CTL" topology check single leaf-spine fat-tree rail ring3 | sed 's/^/  /'
out=$("$CTL" topology show fat-tree)
[ "$(grep -c '^port ' <<<"$out")" = 16 ] || fe_fail "fat-tree: 16 host ports expected"
[ "$(grep -c '^link ' <<<"$out")" = 32 ] || fe_fail "fat-tree: 32 links expected"
grep -q '^link agg1-1-core1 ' <<<"$out" || fe_fail "fat-tree: link names switch-switch"
out=$("$CTL" topology show rail)
grep -q '^port 1   host h1       rail 2 on rail2' <<<"$out" || fe_fail "rail: h1's second port: $out"
echo "  ok   fat-tree: 16 ports, 32 links named a-b; rail: a port a rail"
"$CTL" topology show leaf-spine --svg "$T/ls.svg"
grep -q '<svg' "$T/ls.svg" && grep -q 'spine2' "$T/ls.svg" || fe_fail "no drawing"
"$CTL" topology show ring3 --dot | fe_grep_q '"s3" -- "s1"' || fe_fail "ring3: the cycle's third link"
echo "  ok   drawn with Graphviz (SVG) and as DOT"
# dot missing, failing, or an output path it cannot write: exit 1 naming what failed, each
# time (a dot that exits before reading the drawing must not kill fabemuctl by SIGPIPE),
# and no file left behind
mkdir "$T/bin"
printf '#!/bin/sh\necho "fake dot: broken" >&2\nexit 3\n' >"$T/bin/dot"
chmod +x "$T/bin/dot"
svg_fails() { # WANT PATH FILE
	local want=$1 rc out
	for _ in 1 2 3 4 5 6 7 8; do
		rc=0
		out=$(PATH=$2 "$CTL" topology show ring3 --svg "$3" 2>&1) || rc=$?
		[ "$rc" = 1 ] && grep -qF -- "$want" <<<"$out" ||
			fe_fail "--svg $3 with PATH=$2: exit $rc, '$out' (want 1 and '$want')"
	done
	[ ! -e "$3" ] || fe_fail "--svg $3: left behind after dot failed"
}
svg_fails "fabemuctl: topology show: dot not found in PATH" /nonexistent "$T/r.svg"
svg_fails "fabemuctl: topology show: dot exited with status 3; $T/r.svg not written" "$T/bin" "$T/r.svg"
svg_fails "fabemuctl: topology show: cannot write $T/none/r.svg: No such file or directory" "$PATH" "$T/none/r.svg"
echo "  ok   --svg: dot not found, dot exiting 3, an unwritable path: exit 1, each named"
out=$("$CTL" topology show fat-tree --routes)
grep -q '^edge1-1    -> edge2-1    4 hops, 2 ways: edge1-1-agg1-1 edge1-1-agg1-2$' <<<"$out" ||
	fe_fail "fat-tree: edge to edge across pods: $(grep '^edge1-1    -> edge2-1' <<<"$out")"
[ "$(grep -c ' -> ' <<<"$out")" = $((8 * 19)) ] || fe_fail "fat-tree: a route from every switch to every edge"
echo "  ok   routes: fat-tree edge to edge, 4 hops, 2 ways; from all 20 switches to all 8 edges"

printf 'name: broken\nswitches: [{name: a}, {name: b}]\nhosts:\n  - {name: h1, switch: a}\nlinks:\n  - {a: a, b: c}\n' >"$T/broken.yaml"
set +e
msg=$("$CTL" topology check "$T/broken.yaml" 2>&1)
rc=$?
"$CTL" topology show 2>/dev/null
rc2=$?
set -e
[ "$rc" = 1 ] && [ "$msg" = "$T/broken.yaml:6: links.0: no switch 'c'" ] ||
	fe_fail "broken file: rc $rc, '$msg'"
[ "$rc2" = 2 ] || fe_fail "usage error: rc $rc2 (expected 2)"
echo "  ok   refused with FILE:LINE (exit 1); usage (exit 2)"
echo "fabemu-dp --topology: 10 broadcasts through a leaf-spine (pcap ports), and refusals"
printf 'name: ls4\ngenerate: {kind: leaf-spine, leaves: 2, spines: 2, hosts-per-leaf: 2}\n' >"$T/ls4.yaml"
"$FE_BIN/fe-pcapgen" "$T/in0.pcap" 02:fe:00:00:00:0a ff:ff:ff:ff:ff:ff 10 100
"$FE_BIN/fe-pcapgen" "$T/empty.pcap"
vdevs=(--vdev=net_pcap0,rx_pcap=$T/in0.pcap,tx_pcap=$T/out0.pcap)
for i in 1 2 3; do vdevs+=(--vdev=net_pcap$i,rx_pcap=$T/empty.pcap,tx_pcap=$T/out$i.pcap); done
fe_dp_once "$T/dp.log" $(fe_eal) "${vdevs[@]}" -- --topology "$T/ls4.yaml" --path spray \
	--exit-idle 200ms --stats-json "$T/s.json"
python3 - "$T/s.json" <<'PY' || fe_fail "the graph's counts"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["graph"]
links = {l["link"]: l["out_pkts"] for l in g["fabric_links"]}
assert g["switches"] == 4 and g["path"] == "spray", g
assert [p["tx_pkts"] for p in d["ports"]] == [0, 10, 10, 10], [p["tx_pkts"] for p in d["ports"]]
# the flood's tree from leaf1: both spines, and leaf2 through the first
assert links["leaf1>spine1"] == 10 and links["leaf1>spine2"] == 10 and links["spine1>leaf2"] == 10
assert sum(links.values()) == 30 and g["out_of_order"] == [0, 0, 0, 0], links
print("  ok   each other host got the 10 once; the tree's links carried 30 in all")
PY
# the counter table at exit: the links between switches, and the reordering seen
grep -Eq '^leaf1>spine1 +10 ' "$T/dp.log" && grep -q '^graph    out of order at port: 0:0 1:0 2:0 3:0 (path spray)' "$T/dp.log" ||
	fe_fail "the table lacks the links between switches: $(grep -E 'spine|graph' "$T/dp.log" | head -3)"
echo "  ok   the counter table has them (leaf1>spine1 10), and out of order per port"
set +e
"$FE_BIN/fabemu-dp" $(fe_eal) "${vdevs[@]}" -- --topology leaf-spine --exit-idle 100ms \
	>"$T/dp2.log" 2>&1
rc=$?
set -e
grep -q "topology leaf-spine has 8 host ports; the dataplane has 4" "$T/dp2.log" && [ "$rc" = 2 ] ||
	fe_fail "ports mismatch: rc $rc: $(tail -2 "$T/dp2.log")"
echo "  ok   refused: a topology of 8 ports on 4 (exit 2)"

# PFC: each egress queue against what the inputs routed to it may send before their
# pauses act, 110000 B each here: a host's down link takes its leaf's other host and
# both spines (330000), a leaf's uplink its two hosts (220000: not the other spine's
# frames, which the routes never send back up), a spine's egress one leaf (110000)
"$FE_BIN/fabemu-dp" $(fe_eal) "${vdevs[@]}" -- --topology "$T/ls4.yaml" --regime pfc \
	--pfc xoff=100000,xon=90000,headroom=10000 --link all:buffer=250000 --exit-idle 10ms \
	>"$T/dpw.log" 2>&1 || fe_fail "pfc warning run: $(tail -2 "$T/dpw.log")"
grep -qF 'warning: PFC: 4 egress link(s) hold less than the inputs routed to them' "$T/dpw.log" &&
	grep -qF 'the first, 0.down, 250000 B against 330000 B' "$T/dpw.log" ||
	fe_fail "PFC's egress warning: $(grep warning "$T/dpw.log")"
echo "  ok   PFC: the 4 down links short of their routed inputs' 330000 B named, the uplinks not"

# Lossless hop by hop: 100 broadcasts of 1000 B from host 1 at 10 Mbit/s (its link and
# the links between switches: --link fabric:), and host 4's down link at 1 Mbit/s. Its switch (leaf2) backs up into
# the spine, the spine into leaf1, leaf1 into host 1: every host gets all 100, in order,
# and nothing is dropped anywhere. Under credits each frame's blocks go back in a message
# of their own; and (credit-msg) gathered into messages of 2112 B (33 blocks, the most
# 4 KiB allows with frames of up to 2048 B): three frames' 48 blocks a message; and
# (credit-unit) in credits of 256 B (16 a lane, 4 a frame).
"$FE_BIN/fe-pcapgen" "$T/in100.pcap" 02:fe:00:00:00:0a ff:ff:ff:ff:ff:ff 100 1000
vdevs=(--vdev=net_pcap0,rx_pcap=$T/in100.pcap,tx_pcap=$T/out0.pcap)
for i in 1 2 3; do vdevs+=(--vdev=net_pcap$i,rx_pcap=$T/empty.pcap,tx_pcap=$T/out$i.pcap); done
for regime in pfc credit credit-msg credit-unit; do
	echo "fabemu-dp --topology --regime $regime: 100 frames into a 1 Mbit/s host, hop by hop"
	args=(--regime pfc --pfc xoff=8000,xon=4000)
	[ $regime = credit ] && args=(--regime credit --credit buffer=4096,out=4)
	[ $regime = credit-msg ] && args=(--regime credit --credit buffer=4096,out=4,update=2112)
	[ $regime = credit-unit ] && args=(--regime credit --credit buffer=4096,out=4,unit=256)
	fe_dp_once "$T/dp-$regime.log" $(fe_eal) "${vdevs[@]}" -- --topology "$T/ls4.yaml" \
		"${args[@]}" --link 0.up:rate=10Mbit --link fabric:rate=10Mbit --link 3.down:rate=1Mbit \
		--exit-idle 300ms --stats-json "$T/$regime.json"
	for i in 1 2 3; do
		out=$("$FE_BIN/fe-pcapcheck" "$T/out$i.pcap")
		[[ "$out" == "packets=100 "*"order=ok"* ]] || fe_fail "$regime: host $((i + 1)): $out"
	done
	python3 - "$T/$regime.json" "$regime" <<'PY' || fe_fail "$regime: the graph's counts"
import json, sys
d, regime = json.load(open(sys.argv[1])), sys.argv[2]
g = d["graph"]
links = {l["link"]: l for l in g["fabric_links"]}
drops = sum(v for l in d["links"] + g["fabric_links"] for k, v in l.items()
            if k.startswith("drop_") and k.endswith("_pkts"))
assert drops == 0, "drops: %d" % drops
# the flood's tree from leaf1 reaches leaf2 through spine1
down, up = links["spine1>leaf2"]["lanes"][0], links["leaf1>spine1"]["lanes"][0]
host = d["lane_counters"][0]
if regime == "pfc":
    assert down["xoff_events"] > 0 and up["xoff_events"] > 0 and host["xoff_events"] > 0, (down, up, host)
    print("  ok   0 drops; pauses climbed: leaf2 paused spine1 %d times, spine1 leaf1 %d, leaf1 host 1 %d"
          % (down["xoff_events"], up["xoff_events"], host["xoff_events"]))
elif regime == "credit":
    # leaf2's input from spine1 held every block spine1 was given; upstream ran dry too
    assert down["iq_peak_blocks"] == 64 and down["credits_min"] == 0, down
    assert up["credits_min"] == 0 and host["credits_min"] == 0, (up, host)
    # each frame's blocks in a message of their own: nothing gathers, no message counters
    assert "credit_updates" not in down and "credits_unsent" not in down, down
    print("  ok   0 drops; leaf2's input from spine1 filled (64 blocks), spine1, leaf1 and host 1 ran out of credits")
elif regime == "credit-unit":
    # leaf2's input from spine1 held all 16 blocks of 256 B spine1 was given
    assert down["iq_peak_blocks"] == 16 and down["credits_min"] == 0, down
    assert up["credits_min"] == 0 and host["credits_min"] == 0, (up, host)
    assert down["credits"] == 16 and host["credits"] == 16, (down, host)
    print("  ok   0 drops; leaf2's input from spine1 filled (16 blocks of 256 B), all given back")
else:
    # 100 frames of 16 blocks, 3 a message: 33 messages, the last frame's 16 gathering
    assert down["credit_updates"] == 33 and down["credits_unsent"] == 16, down
    assert down["credits"] + down["credits_unsent"] == 64, down
    assert down["credits_min"] == 0 and up["credits_min"] == 0, (down, up)
    print("  ok   0 drops; spine1 got leaf2's credits back in 33 messages, 16 blocks gathering")
assert g["deadlock_count"] == 0 and g["deadlocks"] == [], g["deadlocks"]
PY
	if [ $regime = credit-msg ] && ! grep -q "messages of 33 blocks" "$T/dp-$regime.log"; then
		fe_fail "$regime: the credit line: $(grep '^credit:' "$T/dp-$regime.log")"
	fi
	if [ $regime = credit-unit ] && ! grep -q "^credit: 16 blocks of 256 B per lane" "$T/dp-$regime.log"; then
		fe_fail "$regime: the credit line: $(grep '^credit:' "$T/dp-$regime.log")"
	fi
	grep -q "^graph    0 deadlocks" "$T/dp-$regime.log" ||
		fe_fail "$regime: the table's deadlock line: $(grep '^graph' "$T/dp-$regime.log")"
done

# A running dataplane with a topology (docs/control.md): status names it and its path
# choice; links lists the links between switches beside the ports', with what `set` put
# on them; hold says what it takes; a regime's keys are refused under another regime.
echo "fabemuctl against fabemu-dp --topology: status, links, hold, set pfc and credit"
vdevs=()
for i in 0 1 2 3; do vdevs+=(--vdev=net_pcap$i,rx_pcap=$T/empty.pcap,tx_pcap=$T/run$i.pcap); done
fe_dp_start $(fe_eal) "${vdevs[@]}" -- --topology "$T/ls4.yaml" --path spray --rate 1Gbit
fe_ctl status >"$T/status.txt"
grep -qx "topology $T/ls4.yaml: 4 switches, 4 links between them, path spray" "$T/status.txt" ||
	fe_fail "status does not name the topology: $(cat "$T/status.txt")"
fe_ctl -j status >"$T/status.json"
[ "$(fe_json "$T/status.json" 'd["topology"], d["path"]')" = "$T/ls4.yaml spray" ] ||
	fe_fail "status -j: $(cat "$T/status.json")"
echo "  ok   status: topology $T/ls4.yaml, path spray"
fe_ctl set 'leaf1>spine2' ecn=30KB/30KB >/dev/null
fe_ctl set leaf2-spine1 loss=1% >/dev/null
fe_ctl links >"$T/links.txt"
fe_ctl -j links >"$T/links.json"
python3 - "$T/links.txt" "$T/links.json" <<'PY' || fe_fail "links: $(cat "$T/links.txt")"
import json, sys
text = dict(l.split(None, 1) for l in open(sys.argv[1]).read().splitlines())
doc = {l["link"]: l for l in json.load(open(sys.argv[2]))}
hops = {"%s>%s" % (a, b) for a, b in (("leaf1", "spine1"), ("leaf1", "spine2"), ("leaf2", "spine1"), ("leaf2", "spine2"))}
hops |= {">".join(reversed(h.split(">"))) for h in hops}
ports = {"%d.%s" % (p, d) for p in range(4) for d in ("up", "down")}
assert set(text) == ports | hops and set(doc) == ports | hops, sorted(text)
for name, l in doc.items():
    assert set(l) == set(doc["0.up"]) and l["spec"] == text[name].strip(), (name, l, text[name])
assert " ecn 30000B/30000B/" in text["leaf1>spine2"] and "ecn" not in text["spine2>leaf1"], text
assert text["leaf2>spine1"].endswith(" loss 1%") and text["spine1>leaf2"].endswith(" loss 1%"), text
assert "loss" not in text["leaf1>spine1"] and doc["leaf1>spine2"]["rate_bps"] > 0, doc
print("  ok   links: 8 of the ports, 8 between switches; leaf1>spine2 %s" % text["leaf1>spine2"].strip())
PY
refused() { # WANT ARGS...: fabemuctl ARGS exits 1 saying WANT
	local want=$1 rc=0 out
	shift
	out=$(fe_ctl "$@" 2>&1) || rc=$?
	[ "$rc" = 1 ] && grep -qF -- "$want" <<<"$out" || fe_fail "fabemuctl $*: want exit 1 and '$want', got $rc: $out"
	echo "  ok   $* -> $out"
}
refused "hold: link 'leaf1>spine2' is between switches: hold takes one host's link, N.up or N.down (N: a port, 0 to 3)" hold 'leaf1>spine2' 100ms
refused "hold: link 'fabric': hold takes one host's link, N.up or N.down (N: a port, 0 to 3)" hold fabric 100ms
refused "hold: link '2': hold takes one host's link, N.up or N.down (N: a port, 0 to 3)" hold 2 100ms
fe_ctl hold 1.down 10ms | fe_grep_q -x '1.down held for 10ms' || fe_fail "hold 1.down"
refused "set pfc: the dataplane runs regime lossy; pfc keys take effect under regime pfc only" set pfc xoff=128KiB,xon=125KiB
refused "set pfc: the dataplane runs regime lossy;" set pfc watchdog=100ms
refused "set credit: the dataplane runs regime lossy; credit keys take effect under regime credit only" set credit hoq=10ms
fe_dp_stop
fe_dp_start $(fe_eal) "${vdevs[@]}" -- --topology "$T/ls4.yaml" --regime pfc
refused "set credit: the dataplane runs regime pfc; credit keys take effect under regime credit only" set credit hoq=10ms
fe_ctl set pfc xoff=128KiB,xon=125KiB,watchdog=100ms >/dev/null
fe_ctl status | fe_grep_q '^pfc xoff 131072B xon 128000B ' || fe_fail "set pfc under pfc: $(fe_ctl status)"
fe_ctl status | fe_grep_q -x 'topology .*: 4 switches, 4 links between them, path ecmp' || fe_fail "status under pfc: $(fe_ctl status)"
echo "  ok   under pfc: set pfc taken, shown by status"
# apply P --link: P's values under the regime that runs (docs/control.md): ib-ndr (credit,
# no buffer-pkts) on a PFC egress keeps it without a packet limit, not credit's default
fe_ctl apply ib-ndr --link 3 >/dev/null
fe_ctl apply ib-ndr --link leaf1-spine1 >/dev/null
fe_ctl links >"$T/links.pfc"
for l in '3.down ' 'leaf1>spine1 ' 'spine1>leaf1 '; do
	grep -q "^$l *rate 400Gbit delay 100ns buffer 1048576B bdp " "$T/links.pfc" ||
		fe_fail "apply ib-ndr --link under pfc: $l: $(cat "$T/links.pfc")"
done
grep -q '^3.up  *rate 400Gbit delay 100ns buffer 33554432B/16384pkts ' "$T/links.pfc" ||
	fe_fail "apply ib-ndr --link 3 under pfc: 3.up: $(cat "$T/links.pfc")"
grep -q '^2.down  *rate unlimited ' "$T/links.pfc" || fe_fail "apply --link 3 touched 2.down"
echo "  ok   apply ib-ndr --link 3 and leaf1-spine1 under pfc: NDR's rate, PFC's buffers"
fe_dp_stop
# set credit update= at run time: taken, shown; more than the buffer allows: refused, named
fe_dp_start $(fe_eal) "${vdevs[@]}" -- --topology "$T/ls4.yaml" --regime credit --credit buffer=4096
refused "update (4096 B) must be below buffer (4096 B); the dataplane allows at most the buffer less its largest frame" set credit update=4KiB
refused "credit update 3072 B: at most 2112 B with buffer 4096 B and frames of up to 2048 B" set credit update=3KiB
refused "credit buffer 4096 B / unit 256 B / out 2: the dataplane runs 4096 B / unit 64 B / out 2" set credit unit=256B
fe_ctl set credit update=2KiB >/dev/null
fe_ctl status | fe_grep_q '^credit buffer 4096B (64 blocks of 64B) .* update 2048B (32 blocks)$' ||
	fe_fail "set credit update under credit: $(fe_ctl status)"
echo "  ok   under credit: set credit update=2KiB taken, shown by status"
fe_dp_stop
echo "topology: passed"
