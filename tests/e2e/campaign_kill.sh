#!/usr/bin/env bash
# A campaign runner killed outright (SIGKILL) leaves nothing running and, in the end,
# nothing at all: its dataplane, job (mpirun, the ranks) and the iperf3 beside it die
# within seconds, and its watchdog removes its testbed, socket, DPDK directory and
# record. Should the watchdog be killed too, `fabemuctl testbed clean` (which leaves a
# live runner's testbed alone) or the next `campaign run` removes what is left.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init campkill
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"
RUNNERS=()
ALL=() # every process the runners had, by id (a runner that failed to clean up)

cat >"$T/kill.yaml" <<'Y'
name: t-kill
hosts: 3
cores: shared
fidelity: {capacity: false}
job: {kind: allreduce, sizes: [64KiB], iterations: 2000, warmup: 1}
beside:
  - {host: 3, command: "iperf3 -s -p 5321"}
  - {host: 1, command: "iperf3 -c 198.18.0.3 -p 5321 -t 600 -b 20M"}
regimes:
  - {name: eth, profile: ethernet-lossy, scale: 1000}
Y

tb_of() { fe_campaign_testbed "$1"; }
alive() { # PID...: those that still run (a zombie runs nothing)
	for p in "$@"; do
		s=$(ps -o stat= -p "$p" 2>/dev/null || true)
		[ -z "$s" ] || [ "${s:0:1}" = Z ] || echo "$p"
	done | tr '\n' ' '
}
procs_of() { # PID: the runner's descendants and whatever runs in its hosts
	local pid=$1 tb
	tb=$(tb_of "$1")
	{
		ps -eo pid=,ppid= | awk -v root="$pid" '{p[$1] = $2}
			END {for (x in p) {y = x; while ((y in p) && y != root && y > 1) y = p[y]
				if (y == root && x != root) print x}}'
		for ns in $(ip netns list | awk '{print $1}' | grep "^$tb-h" || true); do
			ip netns pids "$ns"
		done
	} | sort -un
}
left_of() { # PID: what a runner made that is still there
	local pid=$1 tb
	tb=$(tb_of "$1")
	{
		ip netns list | awk '{print $1}' | grep "^$tb-h" || true
		ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^$tb-(h[0-9]+|br)$" || true
		# and OpenMPI's session directories, which a killed job's daemons leave (its own
		# under the runner's mpi-TESTBED; by default, /tmp/ompi.HOST.UID, its hosts' names)
		for f in /run/fabemu/testbed-$tb /run/fabemu/campaign-$pid.run \
			/run/fabemu/campaign-$pid.sock /var/run/dpdk/fe-campaign-$pid \
			/run/fabemu/mpi-$tb /tmp/ompi.$tb-h*; do
			[ ! -e "$f" ] || echo "$f"
		done
	} | tr '\n' ' '
}
cleanup() { # a runner of ours that a failing build left behind
	local rc=$? pid
	set +e # the cleanup goes to its end, (exit $rc) below included
	kill -KILL "${ALL[@]}" 2>/dev/null || true
	for pid in "${RUNNERS[@]}"; do
		kill -KILL $(procs_of "$pid") "$pid" 2>/dev/null || true
		"$FE_ROOT/testbeds/veth.sh" down --name "$(tb_of "$pid")" >/dev/null 2>&1 || true
		rm -rf "/var/run/dpdk/fe-campaign-$pid" "/run/fabemu/campaign-$pid."*
	done
	(exit $rc)
	fe_cleanup
}
trap cleanup EXIT

# start TAG: a runner, returned once its job iterates (in $PID, its processes in $PROCS)
start() {
	"$CTL" campaign run "$T/kill.yaml" --out "$T/$1" >"$T/$1.out" 2>&1 &
	PID=$!
	RUNNERS+=("$PID")
	for _ in $(seq 300); do grep -q 'iteration ' "$T/$1.out" && break; sleep 0.1; done
	grep -q 'iteration ' "$T/$1.out" || { cat "$T/$1.out"; fe_fail "the campaign did not start iterating"; }
	sleep 1 # iperf3 is sending beside the job
	PROCS=$(procs_of "$PID")
	ALL+=($PROCS)
	WD=$(awk '$1 == "watchdog" {print $2}' "/run/fabemu/campaign-$PID.run" 2>/dev/null || true)
	[ -n "$WD" ] || echo "  (no watchdog in the runner's record)"
	local names
	names=$(for p in $PROCS; do cat "/proc/$p/comm" 2>/dev/null; done | sort -u | tr '\n' ' ')
	for n in fabemu-dp iperf3 mpirun fe-allreduce; do
		grep -qw -- "$n" <<<"$names" || fe_fail "no $n among the runner's processes: $names"
	done
	# OpenMPI's session directories in the runner's own (each host's: the ranks')
	local mpi
	mpi=$(ls -d "/run/fabemu/mpi-$(tb_of "$PID")"/ompi.* 2>/dev/null | wc -l)
	[ "$mpi" = 3 ] || fe_fail "OpenMPI's session directories: $mpi in /run/fabemu/mpi-$(tb_of "$PID"), not 3"
	echo "  runner $PID: $(wc -w <<<"$PROCS") processes ($names), watchdog $WD"
}
named() { # COMM: those of $PROCS that run COMM
	for p in $PROCS; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" != "$1" ] || echo "$p"; done
}
# gone WHAT SECONDS PID...: fail unless every PID stops running within SECONDS
gone() {
	local what=$1 secs=$2 t0=$SECONDS
	shift 2
	local left
	for _ in $(seq $((secs * 10))); do [ -z "$(alive "$@")" ] && break; sleep 0.1; done
	left=$(alive "$@")
	[ -z "$left" ] || fe_fail "$what still running after $secs s: $(ps -o pid=,args= -p "${left% }" | cut -c1-100)"
	echo "  ok   $what gone within $((SECONDS - t0 + 1)) s"
}

echo "SIGKILL of the runner: nothing of it keeps running; its watchdog removes the rest"
start a
kill -KILL "$PID"
gone "the dataplane, the job, iperf3 ($(wc -w <<<"$PROCS") processes)" 5 $(tr ' ' '\n' <<<"$PROCS" | grep -vx "$WD")
[ -n "$WD" ] || fe_fail "the runner's record names no watchdog"
gone "the watchdog" 20 "$WD"
[ -z "$(left_of "$PID")" ] || fe_fail "left behind: $(left_of "$PID")"
grep -q "campaign runner $PID is gone; its watchdog removed what it left" "$T/a.out" ||
	fe_fail "the watchdog did not say what it did: $(tail -3 "$T/a.out")"
echo "  ok   no namespace, veth, record, socket, DPDK or MPI session directory left"
out=$("$CTL" testbed clean 2>&1) || fe_fail "testbed clean failed: $out"
! grep -q "runner $PID " <<<"$out" || fe_fail "testbed clean found something of runner $PID: $out"

echo "testbed clean leaves a live runner alone; SIGKILL of the runner and its watchdog"
start b
out=$("$CTL" testbed clean) || fe_fail "testbed clean failed: $out"
grep -q "campaign runner $PID is running (testbed $(tb_of "$PID")): left alone" <<<"$out" ||
	fe_fail "testbed clean said: $out"
ip netns list | fe_grep_q "^$(tb_of "$PID")-h1" || fe_fail "testbed clean removed a live runner's hosts"
before=$(grep -c 'iteration ' "$T/b.out")
sleep 1
[ "$(grep -c 'iteration ' "$T/b.out")" -gt "$before" ] || fe_fail "the live campaign stopped iterating"
echo "  ok   a live runner's testbed left alone, its job still iterating"
DP=$(named fabemu-dp)
MPI=$(named mpirun)
kill -KILL "$PID" "$WD"
gone "the dataplane and mpirun (they die with the runner)" 5 $DP $MPI
out=$("$CTL" testbed clean 2>&1) || fe_fail "testbed clean failed: $out"
grep -q "removed what 1 campaign runner(s) that are gone left" <<<"$out" || fe_fail "testbed clean said: $out"
echo "$out" | sed 's/^/  /'
gone "every process of the runner" 5 $(tr ' ' '\n' <<<"$PROCS" | grep -vx "$WD")
[ -z "$(left_of "$PID")" ] || fe_fail "left behind after testbed clean: $(left_of "$PID")"
echo "  ok   no namespace, veth, record, socket, DPDK or MPI session directory left"

echo "SIGKILL of the runner and its watchdog: the next campaign run removes what they left"
start c
dead=$PID
kill -KILL "$PID" "$WD"
"$CTL" campaign run "$T/kill.yaml" --out "$T/d" --iterations 3 >"$T/d.out" 2>&1 & PID=$!
RUNNERS+=("$PID")
rc=0; wait "$PID" || rc=$?
[ "$rc" = 0 ] || { cat "$T/d.out"; fe_fail "the next campaign run failed ($rc)"; }
grep -q "campaign runner $dead is gone; the next campaign run removed what it left" "$T/d.out" ||
	fe_fail "the next run did not remove what runner $dead left: $(head -3 "$T/d.out")"
gone "every process of the killed runner" 5 $(tr ' ' '\n' <<<"$PROCS" | grep -vx "$WD")
[ -z "$(left_of "$dead")" ] || fe_fail "left behind by runner $dead: $(left_of "$dead")"
[ -z "$(left_of "$PID")" ] || fe_fail "left behind by runner $PID: $(left_of "$PID")"
echo "  ok   the next run removed it all, ran, and left nothing either"
echo "campaign_kill: passed"
