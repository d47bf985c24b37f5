#!/usr/bin/env bash
# Benchmarks (not tests: they print figures, they do not pass or fail). Each row is
# measured in the same run as its reference. docs/performance.md explains the table.
#
#   tests/bench/run.sh [pps|engine|veth|idle|timing|floor|rate|change|gap|sizing|oversub ...]
#                                                                        (default: all; root)
#
#   pps     packet rate on one core, 64-byte frames, software vdevs (pcap files replayed
#           from memory, infinite_rx): dpdk-testpmd io (and mac) against fabemu-dp with
#           the ideal profile, with a full profile, and ideal on 2 lcores (a pipeline);
#           then the engine alone (below)
#   engine  the engine alone, on in-memory ports and a fake clock (fe-enginebench):
#           wall-clock ns and exact instructions per packet (callgrind), ideal and full
#   veth    TCP goodput between two namespaces over AF_XDP and AF_PACKET: testpmd io
#           against fabemu-dp ideal on the same ports (one core, busy-polling, and a
#           pipeline on two: --lcores 2)
#   idle    what the idle dataplane costs: CPU with no traffic, and the ping RTT through
#           it, for each --idle-sleep (the README's table), AF_XDP and AF_PACKET
#   timing  added delay inside the box (TSC at RX and at TX) against the configured
#           delay, 10 us, 100 us, 1 ms per link, UDP at 100 Mbit/s: as the tests run the
#           dataplane (FE_TIMING_ARGS: more fabemu-dp options, e.g. "--idle-sleep 0s"),
#           then alone on the last core, busy-polling, and the machine's own floor on
#           that core (fe-cpufloor)
#   floor   the floor of core 0 (fe-cpufloor: how late a deadline at a random instant is
#           met by a loop that only reads the clock there) with the other cores idle, and
#           with a thread spinning on each (--busy), as a campaign's hosts keep them:
#           FE_BENCH_ROUNDS (3) rounds of both in turn, FE_BENCH_SECS each
#   rate    achieved TX rate on the wire against the configured rate, 10 Mbit/s up
#   change  profile changes every 2 ms under TCP and UDP (tests/e2e/swap.sh): how many fit
#           in the run, time to take effect and to be adopted, packets disturbed
#   gap     the 4-host MPI all-reduce (1 MiB, 16 MiB) through the ideal dataplane against
#           the wire (the same hosts over a Linux bridge), for every edge configuration
#           tried (tests/bench/gap-*.yaml: cores split or shared, AF_PACKET or AF_XDP,
#           ring, MTU, idle back-off): FE_BENCH_ROUNDS (3) rounds of both campaigns
#
#   sizing  packets a second on one core under each shipped profile, 64 and 1,518-byte
#           frames, pcap ports: what an inline box carries undilated (docs/inline.md)
#   oversub RCCC's pull rate on an oversubscribed fabric (docs/uec.md): leaf-spine-4
#           (2:1) at 200 Mbit/s, its links between switches holding 16 frames, TCP (cubic)
#           from hosts 1 and 2 to hosts 3 and 4 at once through --nic model=uec,cc=rccc,
#           oversub-cc off and auto in turn, FE_BENCH_ROUNDS (5) rounds of FE_BENCH_SECS:
#           frames trimmed between switches, goodput, the pull rate's cuts
#
# FE_BENCH_SECS (4) is the length of a run; pps and veth run every row FE_BENCH_ROUNDS
# times in turn (5 and 3) and print medians with their range and the median of the
# per-round ratios to the reference (this VM drifts between runs).
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init bench
WHAT=${*:-pps veth idle timing floor rate change gap sizing oversub}
T=$FE_TMP
SECS=${FE_BENCH_SECS:-4}
command -v dpdk-testpmd >/dev/null || fe_fail "dpdk-testpmd missing (apt-get install dpdk-dev)"
EALH="--huge-unlink -m 512 --no-pci --log-level=error"
[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 256 ] || EALH="--no-huge -m 2048 --no-pci --log-level=error"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), kernel $(uname -r), DPDK $(pkg-config --modversion libdpdk)"
echo "memory for DPDK: $EALH"
row() { printf '%-50s %14s %13s %11s\n' "$@"; }

testpmd_pps() { # MODE VDEVS...: packets/s forwarded by testpmd on one core (both ports)
	local mode=$1
	shift
	timeout $((SECS + 6)) dpdk-testpmd $EALH -l 0,1 --file-prefix fe-bench-tp "$@" -- \
		--forward-mode="$mode" --nb-cores=1 --auto-start --stats-period 1 </dev/null \
		>"$T/tp.log" 2>&1 || true
	rm -rf /var/run/dpdk/fe-bench-tp
	# the last two per-port Rx-pps lines (one a port), summed
	grep 'Rx-pps' "$T/tp.log" | tail -2 | awk '{s += $2} END {printf "%.2f\n", s / 1e6}'
}

fabemu_pps() { # VDEVS -- ARGS...: packets/s sent by fabemu-dp on one core (both ports)
	local s="/run/fabemu/fe-bench-pps.sock" a b
	"$FE_BIN/fabemu-dp" $EALH -l "${FE_LCORES:-0}" --file-prefix fe-bench-dp "$@" --idle-sleep 0s \
		--control "$s" >"$T/dp.log" 2>&1 &
	local pid=$!
	sleep 2
	a=$("$FE_BIN/fabemuctl" -s "$s" -j counters | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(p["tx_pkts"] for p in d["ports"]), d["uptime_s"])')
	sleep "$SECS"
	b=$("$FE_BIN/fabemuctl" -s "$s" -j counters | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(p["tx_pkts"] for p in d["ports"]), d["uptime_s"])')
	kill -INT $pid
	wait $pid || fe_fail "fabemu-dp exited with an error: $(tail -3 "$T/dp.log")"
	rm -rf /var/run/dpdk/fe-bench-dp
	python3 -c "a='$a'.split(); b='$b'.split(); print('%.2f' % ((int(b[0]) - int(a[0])) / (float(b[1]) - float(a[1])) / 1e6))"
}

# A benchmark profile, $T/NAME.yaml: the regime, the link lines every link gets
# (besides a 16384-packet buffer) and, for every link, a filter and a drop rule on it.
RATE_LINES="  rate: 100Gbit\n  delay: 1us"
ECN_LINES="\n  ecn: {kmin: 2MB, kmax: 4MB, pmax: 1%}"
bench_profile() { # NAME REGIME LINK-LINES [MATCH] [DROP] [NIC-MODEL]
	{
		echo "name: bench-$1"
		echo "regime: $2"
		[ -n "${6:-}" ] && echo "nic: {model: $6}"
		[ "$2" = credit ] && echo "credit: {buffer: 1MiB, return: 1us, hoq: 0s, out: 32}"
		echo "link:"
		echo "  buffer-pkts: 16384"
		[ -n "$3" ] && printf '%b\n' "$3"
		if [ -n "${4:-}" ]; then
			echo "links:"
			echo "  - select: all"
			[ -n "${5:-}" ] && echo "    drop: {first: 1000000000}"
			echo "    match: $4"
		fi
	} >"$T/$1.yaml"
}

# The full profile, $T/full.yaml: every feature on at once (credit regime, rate, delay,
# ECN, a filter on every link that every packet is run through, and a rule behind it).
full_profile() {
	bench_profile full credit "$RATE_LINES$ECN_LINES" "udp port 9" drop
}

bench_pps() {
	echo
	echo "== packet rate, one forwarding core, 60-byte frames (64 on the wire with FCS), 2 ports"
	# IPv4/UDP to port 9, ECN-capable: the full profile's filter matches every frame, so
	# its ECN check and its drop rule run on every packet too
	"$FE_BIN/fe-pcapgen" --udp "$T/a.pcap" 02:fe:00:00:00:0a 02:fe:00:00:00:0b 1024 60
	"$FE_BIN/fe-pcapgen" --udp "$T/b.pcap" 02:fe:00:00:00:0b 02:fe:00:00:00:0a 1024 60
	local V="--vdev net_pcap0,rx_pcap=$T/a.pcap,infinite_rx=1 --vdev net_pcap1,rx_pcap=$T/b.pcap,infinite_rx=1"
	full_profile
	# This VM's speed drifts by tens of % between runs a few seconds apart, so the
	# five are run in turn, ROUNDS times (5), and each row is the median with its range.
	local rounds=${FE_BENCH_ROUNDS:-5} io="" mac="" ideal="" full="" two="" line=""
	for r in $(seq "$rounds"); do
		echo "  round $r of $rounds" >&2
		io+=" $(testpmd_pps io $V)"
		mac+=" $(testpmd_pps mac $V)"
		ideal+=" $(fabemu_pps $V -- --profile ideal)"
		full+=" $(fabemu_pps $V -- --profile "$T/full.yaml")"
		# what a handoff between the two lcores pays per cache line, just before
		line+=" $("$FE_BIN/fe-cpufloor" --cpu 0 --peer 1 --secs 0.5 | sed -n 's/.*one way \([0-9.]*\) ns/\1/p')"
		two+=" $(FE_LCORES=0,1 fabemu_pps $V -- --profile ideal --lcores 2)"
	done
	# median, min-max, and the median of the per-round ratios to io (a round's runs are
	# seconds apart, so they share the machine's speed more than the medians do)
	stat() { python3 -c "import statistics as s, sys; v = [float(x) for x in sys.argv[2].split()]; r = [float(x) for x in sys.argv[1].split()]; print('%.2f %.2f-%.2f %.2f' % (s.median(v), min(v), max(v), s.median([a / b for a, b in zip(v, r)])))" "$io" "$1"; }
	row "" "Mpps (median)" "range" "ratio to io"
	row "dpdk-testpmd io (reference)" $(stat "$io")
	row "dpdk-testpmd mac (rewrites the header)" $(stat "$mac")
	row "fabemu-dp ideal" $(stat "$ideal")
	row "fabemu-dp full (credit, rate, delay, ECN, filter)" $(stat "$full")
	row "fabemu-dp ideal, 2 lcores (--lcores 2)" $(stat "$two")
	python3 -c "import statistics as s, sys; v = [float(x) for x in sys.argv[1].split()]; t = sys.argv[2].split(); print('a cache line from core 0 to core 1 before each: %.0f ns (%.0f-%.0f), fe-cpufloor --peer;' % (s.median(v), min(v), max(v))); print('  per round, ns: Mpps with 2 lcores  ' + ', '.join('%.0f: %s' % (a, b) for a, b in zip(v, t)))" "$line" "$two"
	echo "medians of $rounds rounds of ${SECS} s, run in turn; ratio: median of the rounds' ratios"
	echo "targets: full >= 14.88 Mpps and >= 0.5 x io; ideal >= 0.9 x io (docs/performance.md)"
	bench_engine
}

engine_ir() { # PROFILE PACKETS: instructions the whole fe-enginebench run executed
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$FE_BIN/fe-enginebench" \
		--profile $1 --packets "$2" 2>&1 >/dev/null | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}

# The engine alone, without a PMD, on a fake clock: the same packets at the same
# emulated times on every run. Instructions per packet (callgrind: a run of 2N packets
# less one of N, so start-up cancels) repeat to the instruction on any machine, which
# the wall-clock rates of this VM do not: what an optimization is judged by. The rows
# build the full profile up a feature at a time, so each row less the one above is
# what that feature costs a packet.
bench_engine() {
	full_profile
	bench_profile step-1 lossy "$RATE_LINES"
	bench_profile step-2 lossy "$RATE_LINES$ECN_LINES"
	bench_profile step-3 credit ""
	bench_profile step-4 credit "$RATE_LINES"
	bench_profile step-5 credit "$RATE_LINES$ECN_LINES"
	bench_profile step-6 credit "$RATE_LINES$ECN_LINES" "udp port 9"
	# the emulated NICs (docs/nic.md): the frames are a UDP flow each way
	bench_profile nic-ib credit "$RATE_LINES" "" "" ib
	bench_profile nic-roce lossy "$RATE_LINES$ECN_LINES" "" "" roce
	bench_profile nic-uec lossy "$RATE_LINES$ECN_LINES" "" "" uec
	# and the hosts' down links at 1 Gbit/s, 64 frames: an incast the switch trims
	bench_profile trim-uec lossy "$RATE_LINES$ECN_LINES" "" "" uec
	printf 'links:\n  - {select: down, rate: 1Gbit, buffer-pkts: 64}\n' >>"$T/trim-uec.yaml"
	bench_profile pfc-4 pfc "$RATE_LINES"
	# several switches: host, leaf, spine, leaf, host (fe_graph.h), two hops more a frame
	printf 'name: bench-ls\ngenerate: {kind: leaf-spine, leaves: 2, spines: 1, hosts-per-leaf: 1}\n' \
		>"$T/ls.yaml"
	echo
	echo "== the engine alone: fe-enginebench (2 in-memory ports, fake clock, 15 Mpps offered)"
	row "" "ns/packet" "instr/packet" ""
	local -a labels=("ideal" "lossy, 100 Gbit/s and 1 us on every link" "  and ECN"
		"credit, ideal links" "credit, 100 Gbit/s and 1 us" "  and ECN"
		"  and the filter (udp port 9)" "full: and the drop rule"
		"credit, 100 Gbit/s and 1 us, NIC ib" "lossy, ECN, NIC roce (DCQCN)"
		"lossy, 100 Gbit/s and 1 us, leaf-spine path" "PFC, 100 Gbit/s and 1 us"
		"PFC, 100 Gbit/s and 1 us, leaf-spine path"
		"credit, 100 Gbit/s and 1 us, leaf-spine path"
		"lossy, ECN, NIC uec (NSCC, selective ACKs)"
		"  and the down links at 1 Gbit/s (trimming)")
	local -a profiles=(ideal "$T/step-1.yaml" "$T/step-2.yaml" "$T/step-3.yaml"
		"$T/step-4.yaml" "$T/step-5.yaml" "$T/step-6.yaml" "$T/full.yaml"
		"$T/nic-ib.yaml" "$T/nic-roce.yaml" "$T/step-1.yaml --topology $T/ls.yaml"
		"$T/pfc-4.yaml" "$T/pfc-4.yaml --topology $T/ls.yaml"
		"$T/step-4.yaml --topology $T/ls.yaml" "$T/nic-uec.yaml" "$T/trim-uec.yaml")
	local -a irs=()
	for i in "${!profiles[@]}"; do
		local p=${profiles[$i]} ns ir="(no valgrind)" a b
		ns=$("$FE_BIN/fe-enginebench" --profile $p --packets 2000000 |
			sed -n 's/.*, \([0-9.]*\) ns per packet.*/\1/p')
		if command -v valgrind >/dev/null; then
			a=$(engine_ir "$p" 100000)
			b=$(engine_ir "$p" 200000)
			ir=$(python3 -c "print('%.1f' % (($b - $a) / 100000))")
		fi
		irs[$i]=$ir
		row "${labels[$i]}" "$ns" "$ir" ""
	done
	echo "ns: wall clock on this machine; instructions: callgrind, exact and repeatable"
	# a link: a row of 100 Gbit/s, 1 us links less ideal, over its two links; a hop (a link
	# between switches and a switch): the leaf-spine path less one switch, over its two hops
	command -v valgrind >/dev/null || return 0
	python3 - "${irs[0]}" "${irs[1]}" "${irs[10]}" "${irs[11]}" "${irs[12]}" "${irs[4]}" \
		"${irs[13]}" <<'PY'
import sys
ideal, lossy, lossy_ls, pfc, pfc_ls, credit, credit_ls = map(float, sys.argv[1:])
print("instructions a link (row less ideal, / 2) and a hop (leaf-spine less one switch, / 2):")
for name, one, ls in (("lossy", lossy, lossy_ls), ("PFC", pfc, pfc_ls), ("credit", credit, credit_ls)):
    link, hop = (one - ideal) / 2, (ls - one) / 2
    print("  %-7s a link %6.1f, a hop %6.1f (%.2f x a link)" % (name, link, hop, hop / link))
PY
}

veth_goodput() { # PMD TOOL [FABEMU-ARGS [LCORES]]: TCP Mbit/s host 1 -> host 2
	local pmd=$1 tool=$2 g
	if [ "$tool" = testpmd ]; then
		dpdk-testpmd $EALH -l 0,1 --file-prefix fe-bench-tp $(fe_vdevs "$pmd") -- \
			--forward-mode=io --nb-cores=1 --auto-start --stats-period 3600 </dev/null \
			>"$T/tp.log" 2>&1 &
		local pid=$!
		sleep 3
		g=$(fe_iperf 1 2 "$SECS")
		kill -INT $pid 2>/dev/null || true
		wait $pid 2>/dev/null || true
		rm -rf /var/run/dpdk/fe-bench-tp
	else
		fe_dp_start $(fe_eal | sed "s/-l 0 /-l ${4:-0} /") $(fe_vdevs "$pmd") -- --profile ideal $3
		g=$(fe_iperf 1 2 "$SECS")
		fe_dp_stop
	fi
	echo "$g"
}

bench_veth() {
	echo
	echo "== TCP goodput over veth, host 1 -> host 2 (iperf3, ${SECS} s), one forwarding core"
	fe_hosts febv 2
	# the figure hangs on how the kernel shares two cores between the hosts and the
	# forwarder: rounds in turn, medians (as for the packet rate)
	local rounds=${FE_BENCH_ROUNDS:-3} pmd
	for pmd in af_xdp af_packet; do
		local ref="" fab="" busy="" pipe=""
		for r in $(seq "$rounds"); do
			echo "  $pmd: round $r of $rounds" >&2
			ref+=" $(veth_goodput $pmd testpmd)"
			fab+=" $(veth_goodput $pmd fabemu "")"
			busy+=" $(veth_goodput $pmd fabemu "--idle-sleep 0s")"
			pipe+=" $(veth_goodput $pmd fabemu "--lcores 2 --idle-sleep 0s" 0,1)"
		done
		stat() { python3 -c "import statistics as s, sys; v = [float(x) for x in sys.argv[2].split()]; r = [float(x) for x in sys.argv[1].split()]; print('%.0f %.0f-%.0f %.2f' % (s.median(v), min(v), max(v), s.median([a / b for a, b in zip(v, r)])))" "$ref" "$1"; }
		[ $pmd = af_xdp ] && row "" "Mbit/s (median)" "range" "ratio"
		row "dpdk-testpmd io, $pmd (reference)" $(stat "$ref")
		row "fabemu-dp ideal, $pmd" $(stat "$fab")
		row "fabemu-dp ideal, $pmd, busy-poll" $(stat "$busy")
		row "fabemu-dp ideal, $pmd, 2 lcores (--lcores 2)" $(stat "$pipe")
	done
	echo "medians of $rounds rounds of ${SECS} s, run in turn; ratio: median of the rounds' ratios"
	echo "target: fabemu ideal >= 1.0 x testpmd io on the same PMD"
	"$FE_ROOT/testbeds/veth.sh" down --name febv
	FE_TB_NAME=
}

# The idle dataplane, for each --idle-sleep: the CPU it takes over SECS with no traffic
# (utime + stime of the process), then the ping RTT through it.
bench_idle() {
	local pmd idle c0 c1 min avg
	echo
	echo "== the idle dataplane: CPU with no traffic (${SECS} s, utime + stime) and the ping RTT"
	echo "   through it (20 pings 50 ms apart, unimpaired), by --idle-sleep; lcore 0, nice -10"
	fe_hosts febi 2
	printf '%-10s %-14s %16s %12s %12s\n' "PMD" "--idle-sleep" "CPU, % of a core" "ping min us" \
		"ping avg us"
	for pmd in af_xdp af_packet; do
		for idle in 20us 50us 100us 200us 0s; do
			fe_dp_start $(fe_eal) $(fe_vdevs "$pmd") -- --idle-sleep "$idle"
			sleep 1
			c0=$(awk '{print $14 + $15}' "/proc/$FE_DP_PID/stat")
			sleep "$SECS"
			c1=$(awk '{print $14 + $15}' "/proc/$FE_DP_PID/stat")
			min=$(fe_ping_min 1 2 20)
			avg=$(fe_ping_avg 1 2 20)
			fe_dp_stop
			printf '%-10s %-14s %16s %12s %12s\n' "$pmd" "$idle" \
				"$(python3 -c "print(round(100 * ($c1 - $c0) / $(getconf CLK_TCK) / $SECS, 1))")" \
				"$min" "$avg"
		done
	done
	echo "target: the default (100us) idle well under a core: 8-9 % here (README)"
	"$FE_ROOT/testbeds/veth.sh" down --name febi
	FE_TB_NAME=
}

udp() { # FROM TO RATE SECS: a UDP stream, 1000-byte datagrams (on the cores in $PIN)
	local port=$((5500 + RANDOM % 100)) cpus=${PIN:-0-$(($(nproc) - 1))}
	fe_ns "$2" taskset -c "$cpus" iperf3 -s -1 -p $port >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	fe_ns "$1" taskset -c "$cpus" iperf3 -c "$(fe_ip "$2")" -p $port -u \
		-b "$3" -l 1000 -t "$4" >/dev/null || true
	wait $srv 2>/dev/null || true
}

timing_rows() { # LCORE DATAPLANE-ARGS...: the three delays, one row each
	local lcore=$1 d
	shift
	for d in 10000 100000 1000000; do
		fe_dp_start $(fe_eal | sed "s/-l 0/-l $lcore/") $(fe_vdevs af_packet) -- \
			--delay ${d}ns --measure 65536 --stats-json "$T/t.json" "$@"
		udp 1 2 100M "$SECS"
		fe_dp_stop
		python3 - "$T/t.json" $d <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["measure"]
d = int(sys.argv[2])
q = m["rx_to_tx_ns"]
c = m["tx_call_ns"]
print("%-10s %9d %10d %10d %10d %10d %10d %10d %10d" % ("%d us" % (d // 1000), m["kept"],
      q["min"] - 2 * d, q["p50"] - 2 * d, q["p99"] - 2 * d, q["p999"] - 2 * d, q["max"] - 2 * d,
      c["p50"], c["p99"]))
PY
	done
}

bench_timing() {
	echo
	echo "== added delay inside the box: RX-to-TX time minus 2 x the link delay (up + down),"
	echo "   UDP at 100 Mbit/s host 1 -> host 2, AF_PACKET; call: how long the TX calls took (ns)"
	fe_hosts febt 2
	local hdr last=$(($(nproc) - 1))
	hdr=$(printf '%-10s %9s %10s %10s %10s %10s %10s %10s %10s' "delay" "samples" "min ns" "p50 ns" \
		"p99 ns" "p99.9 ns" "max ns" "call p50" "call p99")
	echo "-- as the tests run it: lcore 0, idle sleep, hosts on any core; options: ${FE_TIMING_ARGS:-none}"
	echo "$hdr"
	PIN= timing_rows 0 ${FE_TIMING_ARGS:-}
	if [ "$last" -ge 1 ]; then
		# the hosts' processes and their receive path (RPS) on cores 0..last-1, the
		# dataplane alone on the last core, busy-polling: as a lab box would run it
		local cpus="0-$((last - 1))" mask i
		[ "$last" = 1 ] && cpus=0
		# rps_cpus is hex in 32-bit groups separated by commas, highest first
		mask=$(python3 -c "m = (1 << $last) - 1; g = []
while True:
    g.append('%08x' % (m & 0xffffffff)); m >>= 32
    if not m: break
print(','.join(reversed(g)))")
		for i in 1 2; do
			fe_ns $i sh -c "echo $mask > /sys/class/net/eth0/queues/rx-0/rps_cpus"
		done
		echo "-- the dataplane alone on core $last (--idle-sleep 0s), the hosts and their receive"
		echo "   path (RPS) on cores $cpus"
		echo "$hdr"
		PIN=$cpus timing_rows "$last" --idle-sleep 0s
		# the floor: a loop that only reads the clock on that core, while the same UDP
		# stream runs between two processes of host 1 (over its loopback) on the others
		echo "-- the machine's floor on core $last: a deadline at a random instant, met by a loop"
		echo "   that does nothing but read the clock there (fe-cpufloor), the same UDP stream"
		echo "   running on cores $cpus (host 1 to itself)"
		fe_ns 1 taskset -c "$cpus" iperf3 -s -1 -p 5999 >/dev/null 2>&1 &
		local srv=$!
		sleep 0.3
		fe_ns 1 taskset -c "$cpus" iperf3 -c "$(fe_ip 1)" -p 5999 -u -b 100M -l 1000 \
			-t $((SECS + 1)) >/dev/null 2>&1 &
		local cli=$!
		"$FE_BIN/fe-cpufloor" --cpu "$last" --secs "$SECS" | sed 's/^/   /'
		wait $cli $srv 2>/dev/null || true
	fi
	echo "target: p99 error < 1 us inside the box"
	"$FE_ROOT/testbeds/veth.sh" down --name febt
	FE_TB_NAME=
}

bench_rate() {
	echo
	echo "== rate accuracy: link 1.down at RATE, UDP offered at 1.5 x RATE (1000-byte datagrams),"
	echo "   achieved = wire bytes (frame + FCS, preamble, IFG) sent by port 1 while its link was"
	echo "   backlogged, over that time (TSC at each TX burst; an idle link would dilute it);"
	echo "   offered: what reached port 0 (wire bits over the stream's ${SECS} s)"
	fe_hosts febr 2
	# the path's own limit first (nothing queues on an unlimited link; averaged over the
	# run): the highest rate a stream 1.5 x as fast keeps backlogged is 0.6 x of it
	fe_dp_start $(fe_eal) $(fe_vdevs af_packet) -- --measure 1024 --stats-json "$T/r.json"
	udp 1 2 5G "$SECS"
	fe_dp_stop
	local cap top
	cap=$(python3 -c "import json; d = json.load(open('$T/r.json')); print('%.0f' % (d['measure']['ports'][1]['tx_wire_bytes'] * 8 / $SECS))")
	top=$((cap * 6 / 10 / 50000000 * 50000000))
	printf '%-12s %16s %16s %10s\n' "configured" "achieved bit/s" "offered bit/s" "error"
	for r in 10000000 100000000 500000000 $top 1000000000; do
		[ "$r" -gt 0 ] || continue
		[ "$r" = 500000000 ] && [ "$top" -le 500000000 ] && continue
		fe_dp_start $(fe_eal) $(fe_vdevs af_packet) -- --link "1.down:rate=$r,buffer=4MiB,buffer-pkts=4000" \
			--measure 1024 --stats-json "$T/r.json"
		udp 1 2 "$((r * 3 / 2))" "$SECS"
		fe_dp_stop
		python3 - "$T/r.json" $r "$SECS" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r, secs = int(sys.argv[2]), float(sys.argv[3])
a = d["measure"]["ports"][1]["tx_wire_bps"]
p = d["ports"][0]
o = (p["rx_bytes"] + 24 * p["rx_pkts"]) * 8 / secs  # FCS, preamble and IFG: 24 bytes
print("%-12s %16.0f %16.0f %+9.3f%%%s" % ("%g Mbit/s" % (r / 1e6), a, o, 100 * (a / r - 1),
      "  (offered < 1.1 x: not kept backlogged, the path's limit)" if o < 1.1 * r else ""))
PY
	done
	printf '%-12s %16s %16s %10s\n' "unlimited" "$cap" "(5 Gbit/s asked)" "(avg)"
	echo "target: rate error < 1%"
	"$FE_ROOT/testbeds/veth.sh" down --name febr
	FE_TB_NAME=
}

bench_change() {
	echo
	echo "== profile changes under load: two profiles swapped every 2 ms, TCP at 300 Mbit/s"
	echo "   for 5 s, then UDP at 100 Mbit/s for 3 s (tests/e2e/swap.sh: its checks and figures)"
	FABEMU_BIN=$FE_BIN bash "$FE_ROOT/tests/e2e/swap.sh" 2>&1 |
		grep -E 'figure|drops|retrans|timeouts|out of order|took effect|adopted|FAIL' |
		sed 's/^ *\(ok\|figure\) */  /'
	echo "target: publish-to-effect p99 < 1 ms (docs/control.md)"
}

bench_gap() {
	local rounds=${FE_BENCH_ROUNDS:-3} k c
	echo
	echo "== the gap to the wire: a 4-host MPI all-reduce through the ideal dataplane against the"
	echo "   same hosts over a Linux bridge, $rounds rounds of tests/bench/gap-split.yaml and gap-shared.yaml"
	for k in $(seq "$rounds"); do
		for c in split shared; do
			"$FE_BIN/fabemuctl" campaign run "$FE_ROOT/tests/bench/gap-$c.yaml" \
				--out "$T/gap-$c-$k" >"$T/gap-$c-$k.log" 2>&1 ||
				fe_fail "campaign gap-$c failed: $(tail -5 "$T/gap-$c-$k.log")"
		done
	done
	python3 - "$T" "$rounds" <<'PY'
import csv, statistics as st, sys
T, rounds = sys.argv[1], int(sys.argv[2])
print("%-30s %7s %10s %10s %11s %11s  %s" % ("cores, regime", "size", "p50 ms", "tail ms",
      "p50 x wire", "tail x wire", "(per-round p50 ratios)"))
for cores in ("split", "shared"):
    rows = [{(r["regime"], r["size"]): r for r in csv.DictReader(open("%s/gap-%s-%d/summary.csv" % (T, cores, k)))}
            for k in range(1, rounds + 1)]
    for (regime, size) in rows[0]:
        # each ideal against the wire of its own MTU, in the same round
        mtu = regime.split("mtu-")[1] if "mtu-" in regime else None
        wire = "wire-mtu-" + mtu if mtu else "wire"
        p50 = [float(r[(regime, size)]["p50_ms"]) for r in rows]
        # below 100 iterations a summary gives no p99: the maximum stands for the tail
        tail = lambda r, g: float(r[(g, size)]["p99_ms"] or r[(g, size)]["max_ms"])
        p99 = [tail(r, regime) for r in rows]
        r50 = [float(r[(regime, size)]["p50_ms"]) / float(r[(wire, size)]["p50_ms"]) for r in rows]
        r99 = [tail(r, regime) / tail(r, wire) for r in rows]
        print("%-30s %7s %10.2f %10.2f %11.2f %11.2f  %s" % (cores + ", " + regime, size, st.median(p50),
              st.median(p99), st.median(r50), st.median(r99), " ".join("%.2f" % x for x in r50)))
print("medians of %d rounds; the ratios are each round's regime over the wire of the same MTU;" % rounds)
print("tail: the p99, or the maximum where a row has fewer than 100 iterations (no p99)")
print("target: ideal 1 MiB p50 <= 1.5 x wire (docs/performance.md)")
PY
}

# Sizing an inline box (docs/inline.md): the packet rate fabemu-dp carries on one core
# under each shipped profile, at 64-byte and at 1,518-byte frames, the profile's links at
# their real rates (400 Gbit/s and up: no link limits it here), from the same pcap
# replay as pps; and what that rate is in Gbit/s of each size. A profile whose links
# carry more than that must be dilated (--scale) on this box.
bench_sizing() {
	echo
	echo "== sizing: packets a second on one core under each shipped profile, 2 ports"
	local rounds=${FE_BENCH_ROUNDS:-3} size p V r
	local -a profs=(ideal ethernet-lossy roce-pfc-ecn spectrum-x ib-ndr uec uec-lossless)
	declare -A got
	for size in 60 1514; do
		"$FE_BIN/fe-pcapgen" --udp "$T/s$size-a.pcap" 02:fe:00:00:00:0a 02:fe:00:00:00:0b 1024 $size
		"$FE_BIN/fe-pcapgen" --udp "$T/s$size-b.pcap" 02:fe:00:00:00:0b 02:fe:00:00:00:0a 1024 $size
	done
	# in turn, ROUNDS times: this VM's speed drifts between runs
	for r in $(seq "$rounds"); do
		echo "  round $r of $rounds" >&2
		for size in 60 1514; do
			V="--vdev net_pcap0,rx_pcap=$T/s$size-a.pcap,infinite_rx=1 --vdev net_pcap1,rx_pcap=$T/s$size-b.pcap,infinite_rx=1"
			for p in "${profs[@]}"; do
				got[$p,$size]+=" $(fabemu_pps $V -- --profile "$p" --mtu 1500)"
			done
		done
	done
	printf '%-16s %22s %22s %15s\n' "profile" "Mpps, 64 B" "Mpps, 1518 B" "Gbit/s, 1518 B"
	for p in "${profs[@]}"; do
		python3 -c "
import statistics as s, sys
a = [float(x) for x in sys.argv[2].split()]; b = [float(x) for x in sys.argv[3].split()]
gb = s.median(b) * 1538 * 8 / 1e3  # on the wire: preamble, gap and FCS
print('%-16s %22s %22s %15s' % (sys.argv[1], '%.2f (%.2f-%.2f)' % (s.median(a), min(a), max(a)),
      '%.2f (%.2f-%.2f)' % (s.median(b), min(b), max(b)), '%.1f' % gb))" "$p" "${got[$p,60]}" "${got[$p,1514]}"
	done
	echo "medians of $rounds rounds of ${SECS} s (range), busy-polling one core, pcap ports"
	echo "Gbit/s: the 1,518-byte rate on the wire (1,538 bytes a frame with preamble and gap)"
}

bench_oversub() {
	local rounds=${FE_BENCH_ROUNDS:-5} r occ n p1 rows=()
	echo "== oversub: RCCC's pull rate, leaf-spine-4 (2:1), hosts 1, 2 -> 3, 4 (TCP, cubic)"
	fe_hosts febo 4
	for r in $(seq "$rounds"); do
		for occ in off auto; do
			n=$occ$r
			fe_dp_start $(fe_eal) $(fe_vdevs af_packet) -- --topology leaf-spine-4 \
				--path entropy --rate 200Mbit --delay 20us --link fabric:buffer-pkts=16 \
				--nic "model=uec,cc=rccc,oversub-cc=$occ" --stats-json "$T/$n.json" --seed 1
			FE_IPERF_PORT=5301 fe_iperf 1 3 "$SECS" -C cubic >"$T/$n.g1" &
			p1=$!
			FE_IPERF_PORT=5302 fe_iperf 2 4 "$SECS" -C cubic >"$T/$n.g2" &
			wait "$p1" "$!" # (not the dataplane, in the background too)
			fe_dp_stop
			rows+=("$(fe_json "$T/$n.json" "'%s %d %d %s %d %d' % ('$occ', \
				sum(l['drop_trim_pkts'] for l in d['graph']['fabric_links']), \
				sum(p['nic_timeouts'] for p in d['ports']), \
				'$(cat "$T/$n.g1")+$(cat "$T/$n.g2")', \
				sum(p['nic_pull_cuts'] for p in d['ports']), \
				min([p['nic_pull_min_permille'] for p in d['ports'] if p['nic_pull_min_permille']] or [0]))")")
			echo "  round $r, oversub-cc $occ: ${rows[-1]#* }" >&2
		done
	done
	"$FE_ROOT/testbeds/veth.sh" down --name febo
	printf '%s\n' "${rows[@]}" | python3 -c "
import statistics as s, sys
rows = [l.split() for l in sys.stdin]
print('%-10s %28s %24s %12s' % ('oversub-cc', 'trimmed between switches', 'goodput, Mbit/s', 'NIC timeouts'))
for occ in ('off', 'auto'):
    r = [x for x in rows if x[0] == occ]
    t = [int(x[1]) for x in r]
    g = [sum(float(v) for v in x[3].split('+')) for x in r]
    print('%-10s %28s %24s %12d' % (occ, '%d (%d-%d)' % (s.median(t), min(t), max(t)),
          '%.1f (%.1f-%.1f)' % (s.median(g), min(g), max(g)), sum(int(x[2]) for x in r)))
off = [int(x[1]) for x in rows if x[0] == 'off']; on = [int(x[1]) for x in rows if x[0] == 'auto']
print('trimmed, off / auto, per round: ' + ' '.join('%.1f' % (a / max(b, 1)) for a, b in zip(off, on)))
"
	echo "medians of $rounds rounds of ${SECS} s (range); goodput: both flows"
}

# Core 0's floor with the other cores idle, then busy: what the machine takes from a
# busy-polling lcore whatever it runs (docs/campaigns.md, "What takes the lcore's core").
bench_floor() {
	local rounds=${FE_BENCH_ROUNDS:-3} r mode n busy=() out="$T/floor"
	n=$(getconf _NPROCESSORS_ONLN)
	[ "$n" -ge 2 ] || fe_fail "floor: needs 2 cores or more"
	for ((r = 1; r < n; r++)); do busy+=(--busy "$r"); done
	: >"$out"
	for ((r = 1; r <= rounds; r++)); do
		for mode in idle busy; do
			if [ "$mode" = idle ]; then
				"$FE_BIN/fe-cpufloor" --cpu 0 --secs "$SECS"
			else
				"$FE_BIN/fe-cpufloor" --cpu 0 --secs "$SECS" "${busy[@]}"
			fi | awk -v m="$mode" '/deadline-lateness-ns/ {print m, $3, $5, $7, $9}' >>"$out"
		done
	done
	echo "-- core 0's floor: a deadline at a random instant, met late by (fe-cpufloor, $SECS s a round)"
	python3 - "$out" "$rounds" <<'PY'
import statistics as s, sys
rows = {}
for line in open(sys.argv[1]):
    m, *v = line.split()
    rows.setdefault(m, []).append([float(x) / 1000 for x in v])
print("%-36s %22s %22s %22s" % ("the other cores", "p99 us", "p99.9 us", "max us"))
for m, what in (("idle", "idle"), ("busy", "a thread spinning on each")):
    cols = []
    for k in (1, 2, 3):
        v = [r[k] for r in rows.get(m, [])]
        cols.append("%.1f (%.1f-%.1f)" % (s.median(v), min(v), max(v)) if v else "-")
    print("%-36s %22s %22s %22s" % (what, *cols))
print("medians of %s rounds (range), idle and busy in turn" % sys.argv[2])
PY
}

for w in $WHAT; do
	case $w in
	pps | engine | veth | idle | timing | floor | rate | change | gap | sizing | oversub) "bench_$w" ;;
	*) fe_fail "unknown benchmark '$w' (pps, engine, veth, idle, timing, floor, rate, change, gap, sizing, oversub)" ;;
	esac
done
