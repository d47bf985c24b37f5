#!/usr/bin/env bash
# The control process against a running dataplane with real hosts: the socket is
# root-only; bad input of every kind is refused with a clear message and changes
# nothing; profile show and links agree after an apply (round trip); telemetry (the
# standard dpdk-telemetry.py) and Prometheus text parse and follow run-time changes;
# counters reset; a pcapng capture marks the packets the emulator dropped.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init control
fe_hosts fectl 2
T=$FE_TMP
RAW="python3 $FE_ROOT/tests/tools/fe-ctl-raw.py $FABEMU_SOCKET"
TCP_PORT=$((17700 + RANDOM % 1000))
fe_dp_start $(fe_eal) $(fe_vdevs af_packet) -- --profile ethernet-lossy --scale 100 \
	--control-tcp $TCP_PORT
fe_ctl status | sed 's/^/  /'

echo "TCP listener: loopback only, same protocol"
ss -ltnH "sport = :$TCP_PORT" | awk '{print $4}' | fe_grep_q -x "127.0.0.1:$TCP_PORT" ||
	fe_fail "TCP listener not on loopback: $(ss -ltnH "sport = :$TCP_PORT")"
fe_ctl -t $TCP_PORT status | fe_grep_q '^profile ethernet-lossy, scale 100' || fe_fail "status over TCP"
echo "  ok   127.0.0.1:$TCP_PORT answers status"

echo "socket permissions"
[ "$(stat -c '%a %U' "$FABEMU_SOCKET")" = "600 root" ] || fe_fail "socket mode: $(stat -c '%a %U' "$FABEMU_SOCKET")"
out=$(runuser -u nobody -- python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('$FABEMU_SOCKET'); print('connected')
except PermissionError: print('denied')" 2>&1)
[ "$out" = denied ] || fe_fail "a non-root user could talk to the dataplane: $out"
echo "  ok   mode 0600 root; user nobody is refused"

echo "bad input: refused, the dataplane keeps its fabric"
fe_ctl links >"$T/links.before"
expect_refused() { # CASE EXPECTED-SUBSTRING
	local out
	out=$($RAW "$1") || fe_fail "case $1: no reply"
	grep -qF -- "$2" <<<"$out" || fe_fail "case $1: want '$2', got: $out"
	printf '  ok   %-10s %s\n' "$1" "$(cut -c1-110 <<<"$out")"
}
expect_refused garbage '"ok":false,"error":"not a JSON object'
expect_refused array '"error":"not a JSON object: another JSON value'
expect_refused deep '"error":"not a JSON object: maximum parsing depth reached'
expect_refused utf8 '"error":"not a JSON object: unable to decode byte 0xc3'
expect_refused version '"error":"protocol version mismatch: this fabemu-dp speaks 1"'
expect_refused nocmd "unknown command '(none)'"
expect_refused unknown "unknown command 'reboot' (known: status, ports, links, apply, set"
expect_refused partial sent
expect_refused oversize '"error":"request larger than 65536 bytes: refused"'
expect_refused badyaml 'raw.yaml:3: not valid YAML'
expect_refused unknownkey "raw.yaml:3: unknown key 'speed' in link"
expect_refused range "raw.yaml:3: link.rate '5Tbit' (allowed: 0 for unlimited, or 1kbit to 1Tbit)"
expect_refused filter "raw.yaml:4: link.match 'tcp and port': can't parse filter expression"
expect_refused regime "regime credit: the dataplane runs lossy; the regime is fixed at start"
expect_refused selector "link selector '9.up': no such port (ports 0 to 1)"
expect_refused pipelined '"ok":true'
grep -qF "unknown command 'nope'" <<<"$($RAW pipelined)" || fe_fail "second pipelined request not answered"
printf 'name: bad\nlink:\n  delay: 1 fortnight\n' >"$T/bad.yaml"
rc=0; out=$(fe_ctl apply "$T/bad.yaml" 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -qF "$T/bad.yaml:3: link.delay: invalid time" <<<"$out" || fe_fail "fabemuctl apply bad.yaml: $rc $out"
rc=0; out=$(fe_ctl set 0.up rate=fast 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -qF "invalid rate (e.g. 1Gbit, 200Mbit, 10000000) 'fast'" <<<"$out" || fe_fail "set rate=fast: $rc $out"
# a regime's keys under another regime would change nothing: refused, naming both
rc=0; out=$(fe_ctl set pfc xoff=128KiB,xon=125KiB 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -qF "set pfc: the dataplane runs regime lossy; pfc keys take effect under regime pfc only" <<<"$out" ||
	fe_fail "set pfc on a lossy fabric: $rc $out"
rc=0; out=$(fe_ctl set credit hoq=10ms 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -qF "set credit: the dataplane runs regime lossy; credit keys take effect under regime credit only" <<<"$out" ||
	fe_fail "set credit on a lossy fabric: $rc $out"
# one switch: no links between switches to set or apply to, refused saying so
for cmd in "set fabric loss=1%" "set leaf1-spine1 loss=1%" "apply ethernet-ecn --link fabric"; do
	rc=0; out=$(fe_ctl $cmd 2>&1) || rc=$?
	[ "$rc" = 1 ] && grep -qF "no links between switches without a topology" <<<"$out" ||
		fe_fail "$cmd without a topology: $rc $out"
done
kill -0 "$FE_DP_PID" || fe_fail "the dataplane died"
fe_ctl links | diff "$T/links.before" - || fe_fail "a refused request changed the links"
fe_ping_avg 1 2 5 >/dev/null
echo "  ok   links unchanged, hosts still reach each other"

echo "round trip: profile show = links after apply"
fe_ctl apply roce-lossy --scale 400 >"$T/apply.out"
sed 's/^/  /' "$T/apply.out"
# roce-lossy's NICs are not taken at run time (docs/nic.md), and the reply says so
grep -q "^note: its nic (roce, or its parameters) was not taken: .* they stay nic tcp" "$T/apply.out" ||
	fe_fail "apply did not say that the profile's nic was not taken"
"$FE_BIN/fabemuctl" profile show roce-lossy --scale 400 --ports 2 | grep '^[0-9]' >"$T/show"
fe_ctl links | diff "$T/show" - || fe_fail "links differ from profile show"
echo "  ok   $(head -1 "$T/show")"
fe_ctl -j status >"$T/status.json"
[ "$(fe_json "$T/status.json" 'd["profile"], d["scale"]')" = "roce-lossy 400" ] || fe_fail "status: $(cat "$T/status.json")"
# without --scale, a profile's own scale: a reply that says the fabric runs at another
out=$(fe_ctl apply ethernet-ecn --link 1.down)
grep -qx "note: 1.down at the profile's own scale 1, the rest of the fabric at scale 400 (--scale 400 applies it at the fabric's)" <<<"$out" ||
	fe_fail "apply --link at the profile's own scale, not the fabric's, without a note: $out"
fe_ctl -j apply ethernet-ecn --link 1.down >"$T/apply.json"
[ "$(fe_json "$T/apply.json" 'd["fabric_scale"]')" = 400 ] ||
	fe_fail "apply -j: no fabric_scale 400 in $(cat "$T/apply.json")"
fe_ctl apply ethernet-ecn --scale 100 --link 1.down >/dev/null
fe_ctl links | fe_grep_q '^1.down  rate 1Gbit delay 50us buffer 524288B/1000pkts bdp 6250B ecn 30000B/30000B/100%/drop$' ||
	fe_fail "apply --link 1.down: $(fe_ctl links)"
fe_ctl links | fe_grep_q '^0.down  rate 1Gbit delay 160us' || fe_fail "apply --link touched 0.down"
echo "  ok   apply --link 1.down changes that link only"

echo "telemetry (dpdk-telemetry.py) and Prometheus follow run-time changes"
fe_ctl set 0.up rate=123Mbit,delay=7us >/dev/null
printf '/fabemu/link,0.up\n' | dpdk-telemetry.py -f "fe-$FE_SELF" >"$T/tel.out"
python3 - "$T/tel.out" <<'PY' || fe_fail "telemetry: $(cat "$T/tel.out")"
import json, sys
text = open(sys.argv[1]).read()
# the script prints the connection banner, then one JSON reply a command
docs = [json.loads(l) for l in text.splitlines() if l.startswith("{") and "/fabemu/link" in l]
link = docs[-1]["/fabemu/link"]
assert link["rate_bps"] == 123000000 and link["delay_ns"] == 7000, link
print("  ok   /fabemu/link,0.up rate_bps", link["rate_bps"], "delay_ns", link["delay_ns"])
PY
fe_ping_avg 1 2 10 >/dev/null
fe_ctl prometheus >"$T/prom.txt"
fe_ctl -j counters >"$T/counters.json"
python3 - "$T/prom.txt" "$T/counters.json" <<'PY' || fe_fail "prometheus text"
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]))
sample = re.compile(r'^(fabemu_[a-z0-9_]+)(\{([a-z_]+="[^"]*")(,[a-z_]+="[^"]*")*\})? (-?[0-9]+)$')
typed, helped, values = set(), set(), {}
for l in lines:
    if l.startswith("# TYPE "):
        name, kind = l.split()[2:4]
        assert kind in ("counter", "gauge"), l
        typed.add(name)
    elif l.startswith("# HELP "):
        helped.add(l.split()[2])
    else:
        m = sample.match(l)
        assert m, "not a sample: " + l
        assert m.group(1) in typed and m.group(1) in helped, "no TYPE/HELP for " + l
        # the edge's frames in flight, the kernel's count less the dataplane's: a frame in a
        # ring at the start, counted by the interface before, leaves -1 (docs/counters.md)
        assert int(m.group(5)) >= 0 or m.group(1).endswith("_unexplained"), "negative: " + l
        values[m.group(1) + (m.group(2) or "")] = int(m.group(5))
rx = values['fabemu_port_rx_pkts{port="0",device="net_af_packet0"}']
assert rx == doc["ports"][0]["rx_pkts"], (rx, doc["ports"][0]["rx_pkts"])
assert values['fabemu_link_out_pkts{link="0.up"}'] == doc["links"][0]["out_pkts"]
assert rx >= 10
print("  ok   %d samples in %d families; rx_pkts %d agrees with the JSON" % (len(values), len(typed), rx))
PY

echo "counters reset"
fe_ctl reset >/dev/null
fe_ctl -j counters >"$T/counters.json"
fe_check "rx_pkts of port 0 after reset" "$(fe_json "$T/counters.json" 'd["ports"][0]["rx_pkts"]')" 0 2
fe_check "out_pkts of 0.up after reset" "$(fe_json "$T/counters.json" 'd["links"][0]["out_pkts"]')" 0 2

echo "capture of 1.down with the packets the emulator dropped"
fe_ctl set 1.down drop=3/2,match=icmp >/dev/null
fe_ctl capture start 1.down "$T/cap.pcapng" --drops | sed 's/^/  /'
fe_ns 1 ping -c 6 -i 0.05 -W 1 "$(fe_ip 2)" >/dev/null || true
fe_ctl capture stop | sed 's/^/  /'
fe_ctl -j counters >"$T/counters.json"
fe_check "exact drops on 1.down" "$(fe_json "$T/counters.json" 'd["links"][3]["drop_exact_pkts"]')" 2 2
tshark -r "$T/cap.pcapng" -Y icmp -T fields -e icmp.seq -e frame.comment 2>/dev/null >"$T/cap.txt"
sed 's/^/    /' "$T/cap.txt"
fe_check "ICMP packets in the capture (6 sent)" "$(wc -l <"$T/cap.txt")" 6 6
fe_check "marked 'fabemu-drop: exact' (seq 3 and 4)" \
	"$(awk -F'\t' '$2 == "fabemu-drop: exact" {print $1}' "$T/cap.txt" | tr '\n' ' ' | sed 's/ $//; s/ /./')" 3.4 3.4
python3 - "$T/cap.pcapng" <<'PY' || fe_fail "libpcap cannot read the capture"
import ctypes, ctypes.util, sys
pcap = ctypes.CDLL(ctypes.util.find_library("pcap"))
pcap.pcap_open_offline.restype = ctypes.c_void_p
err = ctypes.create_string_buffer(256)
h = pcap.pcap_open_offline(sys.argv[1].encode(), err)
assert h, err.value
pcap.pcap_datalink.argtypes = [ctypes.c_void_p]
assert pcap.pcap_datalink(h) == 1, "not Ethernet"
print("  ok   libpcap opens it (Ethernet)")
PY
fe_dp_stop
grep -q 'mbufs: engine holds 0 after drain; pool \([0-9]*\) of \1 returned$' "$FE_DP_LOG" ||
	fe_fail "mbufs not all returned"
[ ! -e "$FABEMU_SOCKET" ] || fe_fail "the control socket was left behind"
echo "control: passed"
