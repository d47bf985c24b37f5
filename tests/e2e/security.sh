#!/usr/bin/env bash
# Who may change the fabric and what a control request may do (docs/reliability.md):
# TCP needs the dataplane's token; a capture never overwrites a file, never opens a
# FIFO or device, and takes a path only from root on the UNIX socket; a full disk gives
# a partial capture that says so and stays readable; slow clients cannot lock root out;
# a path the counters cannot be written to is refused at start, and a failed write
# changes the exit status; a vdev that fails to probe stops the start; nothing is left
# in /var/run/dpdk or /run/fabemu. No namespaces: pcap ports, one replaying forever.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init security
T=$FE_TMP
# the full-disk case mounts a small tmpfs: never leave it mounted
unmount_then_cleanup() {
	local rc=$?
	set +e
	umount -q "$T/full" 2>/dev/null
	(exit $rc) # fe_cleanup exits with the status it finds
	fe_cleanup
}
trap unmount_then_cleanup EXIT
chmod 755 "$T" # user nobody runs fabemuctl from there, nothing else
A=02:fe:00:00:00:0a B=02:fe:00:00:00:0b
"$FE_BIN/fe-pcapgen" "$T/in.pcap" $A $B 20 1000
TCP_PORT=$((18700 + RANDOM % 1000))
TOKEN=/run/fabemu/token-$TCP_PORT
CAPDIR=$T/captures
PREFIX=fe-security
# frames from A to B, replayed forever through a 10 Mbit/s link: B's down link carries
VDEVS="--vdev=net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=/dev/null,infinite_rx=1
	--vdev=net_pcap1,rx_pcap=$T/in.pcap,tx_pcap=/dev/null"
fe_dp_start $(fe_eal) $VDEVS -- --rate 10Mbit --control-tcp $TCP_PORT --capture-dir "$CAPDIR"
CTL="$FE_BIN/fabemuctl"
# user nobody runs the same fabemuctl, copied where it can reach it: a clone in a
# directory only root may enter (/root, mode 700) holds a build nobody cannot execute
NOBODY_CTL=$T/fabemuctl
install -m 755 "$CTL" "$NOBODY_CTL"
links_before=$(fe_ctl links)
raw_tcp() { # USER JSON: one request over TCP as USER, print the reply
	runuser -u "$1" -- python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(sys.argv[2].encode() + b"\n")
print(s.makefile().readline().strip())' "$TCP_PORT" "$2"
}
raw_unix() { # JSON: one request on the UNIX socket as root, print the reply
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
print(s.makefile().readline().strip())' "$FABEMU_SOCKET" "$1"
}
expect() { # WHAT WANT-SUBSTRING GOT
	grep -qF -- "$2" <<<"$3" || fe_fail "$1: want '$2', got: $3"
	echo "  ok   $1"
}

echo "TCP: the token"
[ "$(stat -c '%a %U' "$TOKEN")" = "600 root" ] || fe_fail "token file: $(stat -c '%a %U' "$TOKEN")"
[ "$(tr -d '\n' <"$TOKEN" | wc -c)" = 64 ] || fe_fail "token: not 64 hex digits"
echo "  ok   $TOKEN: mode 600 root, 64 hex digits"
out=$(runuser -u nobody -- "$NOBODY_CTL" -t $TCP_PORT set all loss=100% 2>&1) && fe_fail "nobody changed the fabric over TCP: $out"
expect "user nobody, fabemuctl -t: refused" "needs this dataplane's token" "$out"
out=$(raw_tcp nobody '{"fabemu":1,"cmd":"set","link":"all","spec":"loss=100%"}')
expect "no token: refused" "needs this dataplane's token" "$out"
out=$(raw_tcp nobody "{\"fabemu\":1,\"cmd\":\"set\",\"link\":\"all\",\"spec\":\"loss=100%\",\"token\":\"$(printf '0%.0s' $(seq 64))\"}")
expect "a wrong token: refused" "needs this dataplane's token" "$out"
out=$(raw_tcp nobody "{\"fabemu\":1,\"cmd\":\"capture\",\"action\":\"start\",\"link\":\"1.down\",\"file\":\"/etc/fe-owned\"}")
expect "capture without the token: refused" "needs this dataplane's token" "$out"
[ "$(fe_ctl links)" = "$links_before" ] || fe_fail "a refused request changed the links"
[ ! -e /etc/fe-owned ] || fe_fail "a refused capture created /etc/fe-owned"
echo "  ok   the links are as before; no file was written"
fe_ctl -t $TCP_PORT status | fe_grep_q '^fabemu-dp ' || fe_fail "root, with the token: status over TCP"
FABEMU_TOKEN=$(cat "$TOKEN") runuser -u nobody --preserve-environment -- "$NOBODY_CTL" -t $TCP_PORT status |
	fe_grep_q '^fabemu-dp ' || fe_fail "nobody with \$FABEMU_TOKEN: status over TCP"
echo "  ok   with the token (read by root, or given in \$FABEMU_TOKEN) TCP works"

echo "captures: only new regular files; a path only from root on the UNIX socket"
echo keep >"$T/exists"
mkfifo "$T/fifo"
ln -s "$T/exists" "$T/link"
for f in "$T/exists" "$T/fifo" "$T/link" /proc/self/mem /dev/null; do
	out=$(timeout 10 "$CTL" capture start 1.down "$f" 2>&1) && fe_fail "capture to $f accepted"
	expect "capture to $f refused" "a capture is only written to a new file" "$out"
done
[ "$(cat "$T/exists")" = keep ] || fe_fail "$T/exists was changed"
out=$(timeout 5 "$CTL" status) || fe_fail "status after a capture to a FIFO: no answer within 5 s"
echo "  ok   the control thread still answers"
out=$("$CTL" -t $TCP_PORT capture start 1.down "$T/tcp.pcapng" 2>&1) && fe_fail "a path over TCP accepted"
expect "a path over TCP: refused" "only root on the UNIX socket may give a path" "$out"
for name in .. . "" sub/x.pcapng; do
	out=$(raw_unix "{\"fabemu\":1,\"cmd\":\"capture\",\"action\":\"start\",\"link\":\"1.down\",\"file\":\"$name\"}")
	expect "capture file '$name': refused" "$([[ $name == */* ]] && echo "give an absolute path" || echo "not a file name")" "$out"
done
"$CTL" -t $TCP_PORT capture start 1.down tcp.pcapng | sed 's/^/  /'
sleep 1
"$CTL" capture stop | sed 's/^/  /'
[ "$(stat -c '%a %U %F' "$CAPDIR/tcp.pcapng")" = "600 root regular file" ] ||
	fe_fail "capture file: $(stat -c '%a %U %F' "$CAPDIR/tcp.pcapng")"
n=$(tshark -r "$CAPDIR/tcp.pcapng" 2>/dev/null | wc -l)
fe_check "packets in the capture written over TCP (in $CAPDIR)" "$n" 1 100000
out=$("$CTL" -t $TCP_PORT capture start 1.down tcp.pcapng 2>&1) && fe_fail "a capture overwrote tcp.pcapng"
expect "the same name again: refused" "File exists" "$out"

echo "a full disk: the capture is partial, says so, and stays readable"
mkdir "$T/full"
mount -t tmpfs -o size=64k fe-security "$T/full"
FULL=$T/full
"$CTL" capture start 1.down "$FULL/c.pcapng" | sed 's/^/  /'
sleep 2
"$CTL" status | grep '^capture' | sed 's/^/  /'
rc=0
out=$("$CTL" capture stop 2>&1) || rc=$?
echo "  $out"
[ "$rc" = 1 ] || fe_fail "capture stop on a full disk: exit $rc (want 1)"
expect "capture stop: PARTIAL and why" "PARTIAL: writing $FULL/c.pcapng failed (No space left on device)" "$out"
said=$(sed -n 's/.*holds the first \([0-9]*\) packets whole.*/\1/p' <<<"$out")
read_back=$(tshark -r "$FULL/c.pcapng" 2>/dev/null | wc -l)
tshark -r "$FULL/c.pcapng" >/dev/null 2>&1 || fe_fail "tshark cannot read the partial capture"
fe_check "packets tshark reads back (the reply said $said)" "$read_back" "$said" "$said"
rm -f "$FULL/c.pcapng"

echo "a capture at full rate does not take the control thread (the soak found it did)"
fe_ctl set all rate=0 >/dev/null # unlimited: the replay's whole rate
"$CTL" capture start 1.down fast.pcapng --snaplen 64 | sed 's/^/  /'
for i in 1 2 3 4 5; do
	timeout 3 "$CTL" status >/dev/null || fe_fail "status during a full-rate capture: no answer within 3 s"
	sleep 0.3
done
echo "  ok   status answered 5 times in a row within 3 s each ($(du -m "$CAPDIR/fast.pcapng" | cut -f1) MB captured so far)"
out=$(timeout 10 "$CTL" capture stop 2>&1) || true
echo "  $out"
expect "the capture stopped, and says what it lost" "lost by the capture (ring full)" "$out"
rm -f "$CAPDIR/fast.pcapng"
fe_ctl set all rate=10Mbit >/dev/null
umount "$FULL"

echo "slow clients: a request has a deadline; root keeps its slots"
python3 - "$TCP_PORT" "$T/slow.out" <<'PY' &
import socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(16)]
for s in conns:
    s.sendall(b"{")  # a request begun, never finished
begun = time.monotonic()
time.sleep(1)
# the 17th: refused with a message, not a broken pipe
extra = socket.create_connection(("127.0.0.1", port))
extra.settimeout(5)
refused = extra.makefile().readline().strip()
# the first, closed with a reason at its deadline (10 s after its request began): read as
# soon as the server closes it, not at a fixed time past the deadline
conns[0].settimeout(16)
closed = conns[0].makefile().readline().strip()
took = time.monotonic() - begun
open(out, "w").write(refused + "\n" + closed + "\n" + "%.1f\n" % took)
PY
slow=$!
sleep 2
"$CTL" status | fe_grep_q '^fabemu-dp ' || fe_fail "root on the UNIX socket locked out by 16 slow clients"
echo "  ok   root on the UNIX socket is served while 16 slow clients hold every other slot"
rc=0
out=$("$CTL" -t $TCP_PORT status 2>&1) || rc=$?
[ "$rc" = 1 ] || fe_fail "the 18th client: exit $rc (want 1, refused): $out"
expect "another TCP client: a clear refusal" "too many control clients" "$out"
wait $slow
expect "the 17th slow client: told why" "too many control clients" "$(sed -n 1p "$T/slow.out")"
expect "a request unfinished after 10 s: closed with a reason" "request not complete within 10 s" "$(sed -n 2p "$T/slow.out")"
fe_check "the unfinished request closed after (s), 10 set" "$(sed -n 3p "$T/slow.out")" 0 16
fe_ctl -t $TCP_PORT status | fe_grep_q '^fabemu-dp ' || fe_fail "TCP status after the slow clients left"
echo "  ok   TCP serves again once they are gone"

echo "scale 1e300 is refused, not taken as 1"
out=$(raw_unix '{"fabemu":1,"cmd":"apply","profile":"name: x\nlink: {rate: 1Gbit}\n","scale":1e300}')
expect "apply with scale 1e300: refused" "apply: scale 1e+300 (allowed: an integer" "$out"

echo "stop: clean, and nothing left behind"
fe_dp_stop
[ ! -e "$TOKEN" ] || fe_fail "$TOKEN left behind"
[ ! -e "$FABEMU_SOCKET" ] || fe_fail "$FABEMU_SOCKET left behind"
[ ! -e /var/run/dpdk/$PREFIX ] || fe_fail "/var/run/dpdk/$PREFIX left behind"
echo "  ok   no token, socket or /var/run/dpdk/$PREFIX after exit"

echo "the counters' file: refused at start if it cannot be written; a failed write is exit 4"
E="$(fe_eal) --vdev=net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=/dev/null"
rc=0
out=$("$FE_BIN/fabemu-dp" $E -- --control none --stats-json "$T/no/such/dir/s.json" 2>&1) || rc=$?
[ "$rc" = 2 ] || fe_fail "--stats-json in a missing directory: exit $rc (want 2)"
expect "--stats-json in a missing directory: refused at start" "--stats-json $T/no/such/dir/s.json: No such file or directory" "$out"
rc=0
out=$("$FE_BIN/fabemu-dp" $E -- --control none --stats-json /dev/full --exit-idle 200ms 2>&1) || rc=$?
[ "$rc" = 4 ] || fe_fail "--stats-json /dev/full: exit $rc (want 4)"
expect "--stats-json /dev/full: exit 4 and why" "--stats-json /dev/full: not written whole: No space left on device" "$out"
[ ! -e /var/run/dpdk/$PREFIX ] || fe_fail "/var/run/dpdk/$PREFIX left behind by a refused start"
echo "  ok   refused starts leave no /var/run/dpdk/$PREFIX"

echo "a device that fails to probe stops the start"
rc=0
out=$("$FE_BIN/fabemu-dp" $E --vdev=net_af_packet1,iface=fe-no-such-if \
	--vdev=net_pcap2,rx_pcap=$T/in.pcap,tx_pcap=/dev/null -- --control none 2>&1) || rc=$?
[ "$rc" = 2 ] || fe_fail "a vdev that failed to probe: exit $rc (want 2): $out"
expect "the missing vdev is named" "device 'net_af_packet1,iface=fe-no-such-if' did not become a port" "$out"

echo "a --file-prefix in use: a message that says so"
# DPDK's shared files, which --in-memory (fe_eal on hugepages) does without: 4 KiB pages
EF=${E/--in-memory/--no-huge -m 512}
"$FE_BIN/fabemu-dp" $EF -- --control none --duration 5s >"$T/first.log" 2>&1 &
first=$!
for _ in $(seq 50); do grep -q '^fabemu-dp ' "$T/first.log" && break; sleep 0.1; done
rc=0
out=$(timeout 30 "$FE_BIN/fabemu-dp" $EF -- --control none 2>&1) || rc=$?
[ "$rc" != 0 ] || fe_fail "a second fabemu-dp with the same --file-prefix started"
grep -q "EAL init failed: Success" <<<"$out" && fe_fail "EAL init failed: Success"
expect "the same --file-prefix: named as the likely cause" "another DPDK process using the same --file-prefix" "$out"
[ -d /var/run/dpdk/$PREFIX ] || fe_fail "the refused second process removed the first one's runtime directory"
echo "  ok   the first one's /var/run/dpdk/$PREFIX is left alone"
kill -INT $first
wait $first || fe_fail "the first fabemu-dp did not exit 0"

echo "files that are not what they claim"
mkdir "$T/dir"
printf 'name: a\nlink: {rate: 1Gbit}\n---\nname: b\nbogus: 1\n' >"$T/multi.yaml"
printf 'name: x\nlink:\n  rate: &r 100Mbit\n  delay: *r\n' >"$T/alias.yaml"
out=$("$CTL" profile check "$T/dir" 2>&1) && fe_fail "a directory passed as a profile"
expect "a directory as a profile" "$T/dir: a directory, not a file" "$out"
out=$("$CTL" profile check "$T/multi.yaml" 2>&1) && fe_fail "a two-document profile passed"
expect "a second YAML document" "multi.yaml:3: a second YAML document" "$out"
out=$("$CTL" profile check "$T/alias.yaml" 2>&1) && fe_fail "a YAML alias passed"
expect "a YAML alias" "alias.yaml:4: link.delay: YAML aliases (*name) are not taken" "$out"
rc=0
out=$("$FE_BIN/fabemu-dp" $E -- --control none --link-file "$T/dir" 2>&1) || rc=$?
[ "$rc" = 2 ] || fe_fail "--link-file DIR: exit $rc (want 2)"
expect "--link-file DIR" "$T/dir: a directory, not a file" "$out"
echo "PASS"
