#!/usr/bin/env bash
# The link demo: install what is missing, build, bring up two hosts, send real
# TCP and ICMP traffic between them through an emulated link, print what was measured
# next to what the link model predicts, and tear everything down.
#
#   testbeds/link-demo.sh [--rate RATE] [--delay TIME] [--pmd af_xdp|af_packet] [--seconds N]
#
# Defaults: --rate 1Gbit --delay 100us --pmd af_xdp --seconds 5. Needs root.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RATE=1Gbit DELAY=100us PMD=af_xdp SECS=5
while [ $# -gt 0 ]; do
	case "$1" in
	--rate) RATE=${2:?--rate needs a value}; shift 2 ;;
	--delay) DELAY=${2:?--delay needs a value}; shift 2 ;;
	--pmd) PMD=${2:?--pmd needs a value}; shift 2 ;;
	--seconds) SECS=${2:?--seconds needs a value}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 1 ] && [ "$SECS" -le 600 ] ||
	{ echo "demo.sh: --seconds '$SECS' must be 1 to 600" >&2; exit 2; }

"$ROOT/testbeds/setup.sh"
cmake -S "$ROOT" -B "$ROOT/build" >/dev/null
cmake --build "$ROOT/build" -j"$(nproc)" --target fabemu-dp fabemuctl >/dev/null # what it runs
. "$ROOT/testbeds/lib.sh"
fe_init demo
fe_hosts fed 2
EAL="$(fe_eal) $(fe_vdevs "$PMD")"

echo "== baseline: the dataplane with no impairment ($PMD)"
fe_dp_start $EAL
base=$(fe_ping_avg 1 2 20)
fe_dp_stop
echo "   ping RTT $base us"

echo "== emulated link: $RATE, $DELAY each way, on every link (host->switch, switch->host)"
fe_dp_start $EAL -- --rate "$RATE" --delay "$DELAY" --stats-json "$FE_TMP/stats.json"
rtt=$(fe_ping_avg 1 2 20)
good=$(fe_iperf 1 2 "$SECS")
fe_dp_stop

read -r rate_bps delay_ns < <(fe_json "$FE_TMP/stats.json" \
	'"%d %d" % (d["links"][0]["rate_bps"], d["links"][0]["delay_ns"])')
python3 - "$rate_bps" "$delay_ns" "$base" "$rtt" "$good" <<'PY'
import sys
rate, delay, base, rtt, good = (float(x) for x in sys.argv[1:])
share = rate * 1448 / 1538 / 1e6 if rate else float("nan")
print()
print("%-34s %14s %14s" % ("", "predicted", "measured"))
print("%-34s %11.0f us %11.0f us" % ("added ping RTT (4 links)", 4 * delay / 1e3, rtt - base))
print("%-34s %9.1f Mbit/s %8.1f Mbit/s" % ("TCP goodput, host 1 -> host 2", share, good))
print()
print("predicted goodput: the rate's TCP payload share, 1448 payload bytes per 1538 bytes")
print("on the wire (1514-byte frame + FCS, preamble, inter-frame gap).")
PY
echo
echo "== dataplane counters (also in JSON: --stats-json, and on the telemetry socket)"
sed -n '/^fabemu-dp counters after/,/^mbufs:/p' "$FE_DP_LOG" | grep -v '^mbufs:'
echo "== $(grep '^mbufs:' "$FE_DP_LOG")"
