#!/usr/bin/env bash
# Ctrl-C in the middle of a run (the link demo, while iperf3 is sending through the
# dataplane) leaves no namespace, link, process or state file behind.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
log=$(mktemp /tmp/fabemu-interrupt.XXXXXX)
trap 'rm -f "$log"' EXIT
fail() { echo "interrupt: FAIL: $*" >&2; cat "$log" >&2; exit 1; }

before=$(pgrep -x iperf3 | sort || true)
# setsid: the demo gets its own process group, as a shell job does; SIGINT goes to it all
setsid "$ROOT/testbeds/link-demo.sh" --seconds 30 >"$log" 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q '^== emulated link' "$log" && break; sleep 0.1; done
grep -q '^== emulated link' "$log" || fail "the demo did not reach the traffic phase"
sleep 2 # iperf3 is now running through the dataplane
kill -INT -- -"$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" != 0 ] || fail "the demo exited 0 after Ctrl-C"
echo "  demo exited with status $rc after SIGINT"
sleep 0.5
left=$(ip netns list | grep '^fed-h' || true)
[ -z "$left" ] || fail "namespaces left: $left"
ip -o link show | grep ' fed-h' >/dev/null && fail "links left"
pgrep -f 'fe-demo' >/dev/null && fail "processes left: $(pgrep -af fe-demo)"
new=$(comm -13 <(echo "$before") <(pgrep -x iperf3 | sort || true) | grep . || true)
[ -z "$new" ] || fail "iperf3 left running: $new"
[ ! -e /run/fabemu/testbed-fed ] || fail "state file left"
[ ! -e /var/run/dpdk/fe-demo ] || fail "DPDK runtime directory left"
echo "interrupt: passed"
