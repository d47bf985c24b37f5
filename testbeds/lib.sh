# shellcheck shell=bash
# Helpers shared by testbeds/link-demo.sh and tests/e2e/*.sh: start and stop the dataplane,
# build hosts, run traffic, and clean everything up on exit, error and Ctrl-C.
#
# Source it, then call fe_init NAME. Everything created afterwards through these
# helpers (testbed, dataplane, iperf3 servers, temporary files) is removed by the
# EXIT trap that fe_init installs.

FE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$FE_ROOT/testbeds/cc.sh" # the allowed congestion controls, shared with veth.sh
FE_BIN=${FABEMU_BIN:-$FE_ROOT/build/bin}
FE_DP_PID=
FE_TB_NAME=
FE_TMP=
FE_DP_LOG=
FE_CC_RECORD=

# python3 as PATH names it, resolved once to the interpreter it runs: a version manager's
# shim first in PATH (pyenv's is a bash script that runs `pyenv exec`: 0.4 s a start on
# this machine, against 0.05) would cost more than what it runs, and the tests run it for
# every check (fe_check, fe_json), hundreds of times a suite. The same interpreter either
# way; what the scripts' own commands start (ip netns exec python3) still goes by PATH.
FE_PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || true
[ -n "$FE_PYTHON" ] && [ -x "$FE_PYTHON" ] || FE_PYTHON=$(command -v python3 || echo python3)
# -S: without the site module, which found nothing the tests use (they import the
# standard library only) and took a third of each start (65 ms against 98, loaded)
python3() { "$FE_PYTHON" -S "$@"; }

fe_log() { printf '%s: %s\n' "$FE_SELF" "$*" >&2; }
fe_fail() { fe_log "FAIL: $*"; exit 1; }
# CMD | fe_grep_q [GREP-ARGS] PATTERN: whether CMD printed a line that matches, as `grep -q`,
# but reading all of CMD's output: under pipefail, `CMD | grep -q` fails when grep stops
# at its match and CMD, still writing, dies of SIGPIPE (status 141): a check that found
# its line failed (e2e_image, twice). tests/tools/check-scripts.sh keeps `| grep -q` out.
fe_grep_q() { grep "$@" >/dev/null; }

fe_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "$FE_DP_PID" ] && kill -0 "$FE_DP_PID" 2>/dev/null; then
		kill -INT "$FE_DP_PID" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$FE_DP_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$FE_DP_PID" 2>/dev/null || true
		wait "$FE_DP_PID" 2>/dev/null || true
	fi
	if [ -n "$FE_TB_NAME" ]; then
		# processes left in our namespaces (iperf3 servers, pings) go first
		for ns in $(ip netns list | awk '{print $1}' | grep "^$FE_TB_NAME-h" || true); do
			pids=$(ip netns pids "$ns" 2>/dev/null || true)
			[ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
		done
		"$FE_ROOT/testbeds/veth.sh" down --name "$FE_TB_NAME" || true
	fi
	# the machine's congestion controls as they were (fe_allow_cc), or left to a veth
	# testbed or another test still running on what was added (cc.sh)
	[ -z "$FE_CC_RECORD" ] || cc_leave "$FE_CC_RECORD" || true
	[ -n "$FE_TMP" ] && rm -rf "$FE_TMP"
	# DPDK 22.11 leaves its runtime directory (sockets, config) behind on exit
	[ -n "${FE_SELF:-}" ] && rm -rf "/var/run/dpdk/fe-$FE_SELF" "/run/fabemu/fe-$FE_SELF.sock"
	exit "$rc"
}

# fe_init NAME: name this run (testbed name, DPDK file prefix), install the cleanup.
fe_init() {
	FE_SELF=$1
	[ "$(id -u)" = 0 ] || { echo "$FE_SELF: must run as root" >&2; exit 1; }
	[ -x "$FE_BIN/fabemu-dp" ] || { echo "$FE_SELF: no $FE_BIN/fabemu-dp; build first" >&2; exit 1; }
	FE_TMP=$(mktemp -d "/tmp/fabemu-$FE_SELF.XXXXXX")
	# this run's control socket: fabemu-dp listens there, fabemuctl talks to it
	export FABEMU_SOCKET=/run/fabemu/fe-$FE_SELF.sock
	trap fe_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# fe_allow_cc ALG: let namespaces choose congestion control ALG. Only the initial namespace
# may set one the machine does not allow (EPERM elsewhere: a fresh machine allows only
# "reno" and its default, here bbr), so ALG is added to the list, which fe_cleanup puts back
# when nothing else runs on it: testbeds/cc.sh, which testbeds/veth.sh uses for its hosts.
fe_allow_cc() {
	if [ -z "$FE_CC_RECORD" ]; then
		mkdir -p "$CC_STATE_DIR"
		FE_CC_RECORD=$CC_STATE_DIR/cc-$FE_SELF-$$
		: >"$FE_CC_RECORD"
	fi
	cc_allow "$1" "$FE_CC_RECORD"
}

# fe_hosts NAME N: bring up N hosts named NAME-h1..NAME-hN.
fe_hosts() {
	"$FE_ROOT/testbeds/veth.sh" up "$2" --name "$1"
	FE_TB_NAME=$1
}

# fe_dp_start ARGS...: start fabemu-dp (EAL and app args, "--" included) in the background,
# wait until it forwards. Its output goes to $FE_DP_LOG.
fe_dp_start() {
	FE_DP_LOG="$FE_TMP/dp.$(date +%s%N).log"
	# the dataplane is the network: the hosts it serves share its two cores and must
	# not starve it (a starved dataplane delays packets the emulated links never would)
	nice -n -10 "$FE_BIN/fabemu-dp" "$@" >"$FE_DP_LOG" 2>&1 &
	FE_DP_PID=$!
	for _ in $(seq 100); do
		grep -q '^fabemu-dp .*ports' "$FE_DP_LOG" 2>/dev/null && return 0
		kill -0 "$FE_DP_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$FE_DP_LOG" >&2
	fe_fail "fabemu-dp did not start"
}

# fe_dp_stop: SIGINT, wait, and fail unless it exited 0 (which includes the mbuf check).
fe_dp_stop() {
	local rc=0
	kill -INT "$FE_DP_PID"
	wait "$FE_DP_PID" || rc=$?
	FE_DP_PID=
	if [ "$rc" != 0 ]; then
		cat "$FE_DP_LOG" >&2
		fe_fail "fabemu-dp exited with status $rc"
	fi
}

# fe_dp_once LOG ARGS...: run fabemu-dp to completion (pcap replay, --exit-idle) with its
# output in LOG; fail, showing LOG, unless it exits 0 (which includes the mbuf check).
fe_dp_once() {
	local log=$1 rc=0
	shift
	"$FE_BIN/fabemu-dp" "$@" >"$log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || { cat "$log" >&2; fe_fail "fabemu-dp exited with status $rc"; }
}

# fe_eal_mem MB: EAL's memory, as fe_eal below chooses it (MB: --no-huge's size)
fe_eal_mem() {
	if [ "$(awk '/^HugePages_Free:/ {n = $2} /^Hugepagesize:/ {kb = $2} END {print (n * kb >= 524288)}' /proc/meminfo)" = 1 ]; then
		echo "--in-memory"
	else
		echo "--no-huge -m $1"
	fi
}

# fe_eal [huge]: EAL options common to every run: never touch PCI devices; on hugepages
# where the machine has 512 MiB of them free (setup.sh reserves 2 GiB): --in-memory, no
# DPDK files, the memory gone with the process. Else --no-huge -m 2048, where every 4 KiB
# page of the mbuf pool faults in at start (1 to 3 s a start on this VM, against 0.4).
# huge: hugepage files, unlinked once mapped (nothing is left behind).
fe_eal() {
	local mem
	mem=$(fe_eal_mem 2048)
	[ "${1:-}" = huge ] && mem="--huge-unlink -m 1024"
	echo "$mem --no-pci -l 0 --file-prefix fe-$FE_SELF --log-level=pmd.net.af_xdp:error"
}

# fe_ctl ARGS...: fabemuctl against this run's dataplane.
fe_ctl() { "$FE_BIN/fabemuctl" "$@"; }

# fe_vdevs PMD: EAL --vdev options for the current testbed.
fe_vdevs() { "$FE_ROOT/testbeds/veth.sh" vdevs --name "$FE_TB_NAME" --pmd "$1"; }

# fe_ns I CMD...: run CMD in host I of the current testbed.
fe_ns() { local i=$1; shift; ip netns exec "$FE_TB_NAME-h$i" "$@"; }

fe_ip() { echo "198.18.0.$1"; }

# fe_campaign_testbed PID: the testbed a campaign runner of that PID brings up (its
# hosts NAME-h1..N): "f" and the PID in 5 base-36 digits (control/campaign/cg_run.c).
fe_campaign_testbed() {
	local pid=$1 d=0123456789abcdefghijklmnopqrstuvwxyz s=""
	for _ in 1 2 3 4 5; do
		s=${d:$((pid % 36)):1}$s
		pid=$((pid / 36))
	done
	echo "f$s"
}

# fe_ping_avg FROM TO COUNT: average RTT in microseconds (fails if any ping is lost).
# fe_ping_min FROM TO COUNT: the least RTT. Use it to compare added delays: the
# emulated delay is a floor, while the average also carries the hosts' scheduling
# noise on this 2-core box (hundreds of us at times).
fe_ping_avg() { fe_ping_stat 2 "$@"; }
fe_ping_min() { fe_ping_stat 1 "$@"; }
fe_ping_stat() {
	local field=$1 out
	shift
	out=$(fe_ns "$1" ping -q -c "$3" -i 0.05 -W 2 "$(fe_ip "$2")") ||
		fe_fail "ping from host $1 to host $2 lost packets: $out"
	# rtt min/avg/max/mdev = 0.400/0.656/0.912/0.100 ms
	echo "$out" | awk -v f="$field" '/^rtt/ {split($4, v, "/"); printf "%d\n", v[f] * 1000}'
}

# fe_listening HOST PORT: wait up to 5 s for a TCP listener on PORT in HOST's namespace
# (iperf3 -s listens on TCP even for a UDP test: its UDP socket comes with the test), and
# fail naming it if none came. (A wait on `ss -lun` for iperf3's UDP port never matched
# and spent its 50 tries, 15 s, on every run of e2e_split's lossy part.)
fe_listening() {
	local i
	for i in $(seq 100); do
		fe_ns "$1" ss -ltnH "sport = :$2" | fe_grep_q . && return 0
		sleep 0.05
	done
	fe_fail "host $1: nothing listens on TCP port $2 after 5 s"
}

# fe_iperf FROM TO SECONDS [iperf3 args]: TCP goodput in Mbit/s as the receiver saw it.
# Concurrent calls set FE_IPERF_PORT to distinct ports (a random one could collide).
fe_iperf() {
	local from=$1 to=$2 secs=$3 port=${FE_IPERF_PORT:-$((5201 + RANDOM % 500))} out
	shift 3
	fe_ns "$to" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	fe_listening "$to" "$port"
	out=$(fe_ns "$from" iperf3 -c "$(fe_ip "$to")" -p "$port" -t "$secs" -J "$@") ||
		fe_fail "iperf3 from host $from to host $to (port $port) failed: $(echo "$out" | grep '"error"')"
	wait 2>/dev/null || true
	echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
if "error" in d:
    sys.exit("iperf3: " + d["error"])
print("%.1f" % (d["end"]["sum_received"]["bits_per_second"] / 1e6))'
}

# fe_within VALUE LO HI: whether LO <= VALUE <= HI. Numbers are compared by awk (a
# python3 start a check cost 40 ms or more here, some 20 s a suite); anything else (an
# expression) by python3, where what is not a number is outside.
FE_NUM='^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$'
fe_within() {
	# (15 characters at most: a double holds such an integer exactly)
	if [[ $1 =~ $FE_NUM && $2 =~ $FE_NUM && $3 =~ $FE_NUM ]] &&
		[ "${#1}" -le 15 ] && [ "${#2}" -le 15 ] && [ "${#3}" -le 15 ]; then
		awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(lo + 0 <= v + 0 && v + 0 <= hi + 0) }'
	else
		python3 -c "import sys; sys.exit(0 if $2 <= $1 <= $3 else 1)" 2>/dev/null
	fi
}
# fe_check NAME VALUE LO HI: report and fail if VALUE is outside [LO, HI].
fe_check() {
	if fe_within "$2" "$3" "$4"; then
		printf '  ok   %-44s %10s  (expected %s .. %s)\n' "$1" "$2" "$3" "$4"
	else
		printf '  FAIL %-44s %10s  (expected %s .. %s)\n' "$1" "$2" "$3" "$4"
		fe_fail "$1 = $2, outside $3 .. $4"
	fi
}

# fe_campaign_refused BASE ENTRY...: each ENTRY is "YAML|WANT": `fabemuctl campaign
# check` of a file bad.yaml holding BASE then YAML (printf escapes) exits 1 saying WANT.
fe_campaign_refused() {
	local base=$1 bad rc out
	shift
	for bad in "$@"; do
		printf "$base${bad%%|*}" >"$FE_TMP/bad.yaml"
		rc=0
		out=$("$FE_BIN/fabemuctl" campaign check "$FE_TMP/bad.yaml" 2>&1) || rc=$?
		[ "$rc" = 1 ] && grep -qF -- "${bad#*|}" <<<"$out" ||
			fe_fail "check, want '${bad#*|}': $rc $out"
		echo "  ok   ${bad#*|}"
	done
}

# fe_json FILE EXPR: evaluate a python expression over the JSON document `d` in FILE.
fe_json() { python3 -c "import json; d = json.load(open('$1')); print($2)"; }
# fe_steal_ms COUNTERS...: the most ms the hypervisor took from the lcores' cores of one of
# these counters documents (fabemuctl -j counters, --stats-json: lcores.cpu_steal_ns)
fe_steal_ms() {
	python3 -c "import json, sys; print(max(json.load(open(f))['lcores']['cpu_steal_ns'] for f in sys.argv[1:]) // 1000000)" "$@"
}

# fe_low_steal LOW SECS STATS-JSON: a goodput's low bound LO, and WHY it moved. Where the
# hypervisor took 100 ms or more of the dataplane's core in the run (its cpu_steal_ns,
# in 10 ms ticks), a flow that lost a share s of its SECS s to it can measure as little
# as (1 - s) of its goodput: LO is LOW x (1 - s), s at most 0.75, and WHY says so (the
# lossy victim of e2e_fabric measured 129.6 Mbit/s against 140 once, on an evening the
# hypervisor took hundreds of ms of this machine's cores)
fe_low_steal() {
	local ms
	ms=$(fe_steal_ms "$3")
	LO=$1 WHY=
	if [ "$ms" -ge 100 ]; then
		LO=$(python3 -c "print(int($1 * (1 - min(0.75, $ms / ($2 * 1000)))))")
		WHY=" (the hypervisor took $ms ms of the dataplane's core)"
	fi
}

# fe_campaign_why LOG: why a campaign run (its output in LOG) failed: its progress up to
# the summary, what it said went wrong, and the end of every log it named
fe_campaign_why() {
	local f
	sed -n '1,/^$/p' "$1" | grep -v '^  regime .*, repetition [0-9]*/[0-9]*$' || true
	tail -3 "$1"
	for f in $(grep -o '(log: [^)]*)' "$1" | sed 's/^(log: //; s/)$//' | sort -u); do
		[ -f "$f" ] || continue
		echo "--- the end of $f"
		tail -20 "$f"
	done
}

# fe_tcp_counters I: "retrans timeouts probes dsack spurious-rtos" absolute TCP counters
# of host I.
fe_tcp_counters() {
	fe_ns "$1" nstat -asz TcpRetransSegs TcpExtTCPDSACKRecvSegs TcpExtTCPTimeouts \
		TcpExtTCPLossProbes TcpExtTCPSpuriousRTOs | awk '
		$1 == "TcpRetransSegs" {r = $2} $1 == "TcpExtTCPDSACKRecvSegs" {d = $2}
		$1 == "TcpExtTCPTimeouts" {t = $2} $1 == "TcpExtTCPLossProbes" {p = $2}
		$1 == "TcpExtTCPSpuriousRTOs" {s = $2}
		END {print r + 0, t + 0, p + 0, d + 0, s + 0}'
}

# fe_real_retrans BEFORE AFTER: retransmissions that were not undone by a D-SACK (veth
# reorders across CPUs, which makes spurious ones), from two fe_tcp_counters lines.
fe_real_retrans() {
	echo "$1 $2" | awk '{print ($6 - $1) - ($9 - $4)}'
}
