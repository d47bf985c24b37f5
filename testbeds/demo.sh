#!/usr/bin/env bash
# The main job: install what is missing, build, and run the `regimes` campaign: four
# hosts run a real MPI all-reduce (256 KiB and 1 MiB) under an ideal fabric, InfiniBand
# NDR (credits), RoCE with PFC and ECN, and lossy Ethernet with a shallow buffer and with
# 0.1% random loss, and InfiniBand's and RoCE's flow control over the Ethernet links (like
# for like), each twice. It prints progress and a summary table whose last lines answer
# the campaign's question, writes the results (JSON, CSV, SVG plots, report.html) to
# results/, and removes everything it built. About 3 minutes on a quiet 2-core machine
# (an estimate from its parts; 4.6 measured on one loaded by other jobs).
#
#   testbeds/demo.sh [CAMPAIGN] [fabemuctl campaign run options]
#
# CAMPAIGN: a name in testbeds/campaigns/ (regimes, single-drop, incast) or a file;
# default regimes. Options: --out DIR, --iterations N (docs/campaigns.md). Needs root.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
CAMPAIGN=regimes
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
	CAMPAIGN=$1
	shift
fi
[ "$(id -u)" = 0 ] || { echo "demo.sh: must run as root (it builds network namespaces)" >&2; exit 1; }
"$ROOT/testbeds/setup.sh"
cmake -S "$ROOT" -B "$ROOT/build" >/dev/null
cmake --build "$ROOT/build" -j"$(nproc)" --target fabemu-dp fabemuctl fe-allreduce >/dev/null # what a campaign runs
exec "$ROOT/build/bin/fabemuctl" campaign run "$CAMPAIGN" "$@"
