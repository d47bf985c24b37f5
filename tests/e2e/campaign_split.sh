#!/usr/bin/env bash
# A campaign regime split across boxes (split: true, docs/scale-out.md): `campaign check`
# refuses what cannot run (no topology, a switch on no box, a host off the first box);
# the shipped congestion-tree-split campaign (each lossless regime 3 times, lossy once, on
# one box and split) agrees within the tolerance docs/scale-out.md states: under credits (the hosts'
# TCP, and the emulated ib NIC) the victim's median time and the median credit wait
# within 25 % of one box's, 70 .. 140 % for the hosts' TCP, whose runs fall in modes 30 %
# apart on one box too (wider by the share of a run the hypervisor took from a box's
# core, where it took 100 ms or more); under PFC the victim's median time and pause frames
# a second within 25 % over the runs whose box kept time (2 or more each side), else no
# comparison: a box that fell behind moves them, and every such run must say distorted;
# nothing dropped but where a box ran late and its verdict says so (each box's lateness is seen: the links that leave for another box
# count it); lossy, drops at host 3's
# down link both ways (the victim's time is printed: TCP's RTOs spread it too much for a
# bound); every frame accounted for; the
# spine's box counted what crossed its trunks (merged into the run's counters); and
# nothing is left behind (the other box's namespace, trunks, socket, DPDK directory).
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init campaign_split
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"

leftovers() {
	{
		ip netns list | awk '{print $1}' | grep '^fe-campaign-.*-b' || true
		ip -o link show | awk -F': ' '{print $2}' | grep -E '^fe[0-9]{5}t' || true
		ls /run/fabemu/ 2>/dev/null | grep -E '\.sock\.b' || true
		ls /var/run/dpdk/ 2>/dev/null | grep '^fe-campaign-' || true
	} | tr '\n' ' '
}
[ -z "$(leftovers)" ] || fe_fail "leftovers before the test: $(leftovers)"

echo "campaign check: a split that cannot run is refused at its line"
printf 'name: nobox\nswitches: [{name: s1}, {name: s2, box: b}]\nhosts: [{name: h1, switch: s1}, {name: h2, switch: s1}]\nlinks: [{a: s1, b: s2}]\n' >"$T/nobox.yaml"
printf 'name: ab\nswitches: [{name: s1, box: a}, {name: s2, box: b}]\nhosts: [{name: h1, switch: s1}, {name: h2, switch: s1}]\nlinks: [{a: s1, b: s2}]\n' >"$T/ab.yaml"
printf 'name: hostb\nswitches: [{name: s1, box: a}, {name: s2, box: b}]\nhosts: [{name: h1, switch: s1}, {name: h2, switch: s2}]\nlinks: [{a: s1, b: s2}]\n' >"$T/hostb.yaml"
fe_campaign_refused 'name: x\nhosts: 2\njob: {kind: command, command: "true"}\nregimes:\n' \
	"  - {name: a, profile: ethernet-lossy, split: true}\n|bad.yaml:5: regimes.0.split: true without a topology" \
	"  - {name: a, profile: ethernet-lossy, topology: $T/nobox.yaml, split: true}\n|bad.yaml:5: regimes.0.split: topology nobox: switch s1 names no box" \
	"  - {name: a, profile: ethernet-lossy, topology: $T/hostb.yaml, split: true}\n|bad.yaml:5: regimes.0.split: host h2 is on box b: a campaign's hosts are all on one box (a)" \
	"  - {name: a, profile: ethernet-lossy, topology: $T/hostb.yaml, split: maybe}\n|bad.yaml:5" \
	"  - {name: a, profile: ethernet-lossy, topology: $T/ab.yaml, realtime: true}\n|bad.yaml:5: regimes.0.realtime: true without split: true" \
	"  - {name: a, profile: ethernet-lossy, topology: $T/ab.yaml, split: true, realtime: 1}\n|bad.yaml:5: regimes.0.realtime '1' (allowed: true, false)" \
	"  - {name: w, kind: wire, split: true, realtime: true}\n|bad.yaml:5: regimes.0: kind wire is the hosts joined by a Linux bridge, without fabemu: profile, scale, links, nic, topology, path, split, realtime, pmd, ring and dataplane do not apply (mtu does)"

echo "the shipped congestion-tree-split: one box against two"
# REGEX REPS OUT [SIZE]: the shipped file with only the regimes whose name REGEX matches
# (never its baseline ideal, which nothing here looks at), REPS repetitions, the victim
# sending SIZE (iperf3 -n; the file's 8M if not given), run into $T/OUT
cts_run() {
	awk -v keep="^($1)\$" -v reps="$2" -v size="${4:-8M}" '
		/^repetitions:/ { print "repetitions: " reps; next }
		/^  command: "iperf3 -c / { sub(/-n [0-9]+M/, "-n " size) }
		/^seed:/ { print; print "fidelity: {capacity: false}"; next }
		/^regimes:/ { in_r = 1; print; next }
		in_r && /^  - name: / { name = $3 }
		!in_r || name ~ keep' "$FE_ROOT/testbeds/campaigns/congestion-tree-split.yaml" \
		>"$T/$3.yaml"
	grep -F -- "-n ${4:-8M} " "$T/$3.yaml" >/dev/null || fe_fail "$3.yaml: the victim does not send ${4:-8M}"
	local rc=0
	"$CTL" campaign run "$T/$3.yaml" --out "$T/$3" >"$T/$3.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || { fe_campaign_why "$T/$3.log"; fe_fail "campaign run $3: status $rc"; }
}
# lossy's checks are of what its runs counted, not a comparison: one repetition each, the
# victim sending 2 MB (with 8, the split run took 12.5 s against one box's 1.3: its
# spine's box runs SCHED_FIFO on the hosts' core); the lossless regimes are compared, on
# three each, the victim sending 4 MB (with the file's 8, ib-ndr's runs took 6.0 s each,
# with 4, 4.4: the test 123 s against 145)
cts_run 'eth-lossy|eth-lossy-split' 1 out-lossy 2M
cts_run 'roce-pfc|roce-pfc-split|ib-ndr|ib-ndr-split|ib-nic|ib-nic-split' 3 out 4M
# both campaigns' runs, as one campaign.json would hold them
R="$T/runs.json"
python3 -c "import json, sys; print(json.dumps({'runs': [r for f in sys.argv[1:] for r in json.load(open(f))['runs']]}))" \
	"$T/out-lossy/campaign.json" "$T/out/campaign.json" >"$R"
# what the hypervisor took from the cores of a run `r`'s boxes, ns
STEAL="max([r['lcores']['cpu_steal_ns']] + [b['lcores']['cpu_steal_ns'] for b in r['counters'].get('boxes', [])])"
runs() { # REGIME EXPR: EXPR over each of that regime's runs `r`, summed
	fe_json "$R" "sum($2 for r in d['runs'] if r['regime'] == '$1')"
}
times() { # REGIME: its runs' job times, ms, each with what the hypervisor took from a box's core
	fe_json "$R" "' '.join('%.0f (%d stolen)' % ((r['end_ns'] - r['start_ns']) / 1e6, $STEAL // 1000000) for r in d['runs'] if r['regime'] == '$1')"
}
med() { # REGIME EXPR: the median of EXPR over its 3 runs `r`
	fe_json "$R" "sorted($2 for r in d['runs'] if r['regime'] == '$1')[1]"
}
pct() { python3 -c "print(int(round(100 * $2 / max($1, 1e-9))))"; } # ONE TWO: TWO in % of ONE
JOB='(r["end_ns"] - r["start_ns"]) / 1e6'
for g in eth-lossy roce-pfc ib-ndr ib-nic; do
	fe_log "$g, the victim's $([ $g = eth-lossy ] && echo 2 || echo 4) MB in ms (and ms stolen): one box $(times $g), two boxes $(times $g-split)"
	for x in $g $g-split; do
		# each run: reads the window took to open and to close, frames its edge still had
		# in flight, and the ports whose frames are not all accounted for (port:in/out),
		# so that a failure below says where
		fe_log "$x, each run's window: $(fe_json "$R" "' '.join('%d+%d reads, %s in flight%s;' % (r['window_open_reads'], r['window_reads'], r['edge_in_flight'], ''.join(' port %d: %+d/%+d' % (p['port'], p['in_unexplained'], p['out_unexplained']) for p in r['ports'] if p['in_unexplained'] or p['out_unexplained'])) for r in d['runs'] if r['regime'] == '$x')")"
		fe_check "$x: frames unexplained" "$(runs $x 'r["unexplained"]')" 0 0
		# and each run's verdict, the start of it: what the box said of its own timing and
		# CPU (a split run once finished 25 % faster than one box's; this says whether
		# its verdict saw why)
		fe_log "$x, each run's verdict: $(fe_json "$R" "' | '.join(r['verdict'][:160] for r in d['runs'] if r['regime'] == '$x')")"
	done
done
for g in eth-lossy eth-lossy-split; do
	fe_check "$g: drops at host 3's down link" \
		"$(runs $g 'sum(l["drops"] for l in r["links"] if l["link"] == "2.down")')" 1 1000000
done
# PFC's figures are the ones a box falling behind moves: a pause or an XON that reaches
# the sender late (pause frames 66 % of one box's once, the victim's time 157 % once, in
# campaigns whose split runs were all marked distorted). Held within 25 % where no split
# run is marked distorted; else within a factor of 2, the count of distorted runs said
# "distorted" here: by the box's timing (its lateness or edge wait), what these rules are
# about; a split run on this machine is also distorted by the CPU the spine's box takes
# from the hosts' core (its own rule), which a lossless regime's drops do not follow
BY_TIMING='any("at p99" in x for x in r["reasons"])' # a run distorted by the box's timing
distorted() { runs "$1" "$BY_TIMING"; }
# the most ms the hypervisor took from a box's core in one run of REGIME or REGIME-split
# (cpu_steal_ns, in 10 ms ticks): 100 ms or more, PFC's distorted runs' bound widens to a
# factor of 3, said so (the pause frames split 48 % of one box's once, all three split
# runs distorted on a day the hypervisor took hundreds of ms from the boxes' cores)
stolen() {
	fe_json "$R" "max($STEAL for r in d['runs'] if r['regime'] in ('$1', '$1-split')) // 1000000"
}
# credits: held within 25 % in every run. A run whose box lost a share s of its job's time
# to the hypervisor stalls the fabric as long, and the hosts' TCP stalled with it takes as
# long again to recover (a timeout, slow start): it can take up to 1 / (1 - s)^2 of its
# time, and wait for credits as much longer (ib-nic's victim: one box's runs 3.6 s with
# 1.06 s taken and 3.6 s with 0.95, 2.0 s with 0.54 and the split's 2.0 to 2.1 s with
# under 0.1; 1 / (1 - s) would allow 2.9). Where it took 100 ms or more, the bounds follow
# the most either side lost (s at most 0.5), down to 75 x (1 - s of the one box's
# runs)^2, up to 125 / (1 - s of the split runs)^2, said so (ib-nic's victim split took
# 69 % of one box's once: one box's runs took 3.2 and 3.1 s, 2.1 most days)
share() { # REGIME: the most of a run's job time the hypervisor took from a box's core
	fe_json "$R" "min(0.5, max($STEAL / max(r['end_ns'] - r['start_ns'], 1) for r in d['runs'] if r['regime'] == '$1'))"
}
# LO HI REGIME: the bounds LO .. HI, where the hypervisor took 100 ms or more of a box's
# core in a run of REGIME or REGIME-split widened by the share s it took: down to
# LO x (1 - s of the one box's runs)^2, up to HI / (1 - s of the split runs)^2; prints
# "lo hi why"
steal_bounds() {
	local ms
	ms=$(stolen "$3")
	if [ "$ms" -ge 100 ]; then
		python3 -c "print(min($1, int($1 * (1 - $(share "$3")) ** 2)), max($2, int($2 / (1 - $(share "$3-split")) ** 2 + 0.999)))" |
			tr -d '\n'
		echo " , the hypervisor took $ms ms of a box's core"
	else
		echo "$1 $2 "
	fi
}
# WHAT REGIME ONE SPLIT: SPLIT in % of ONE, within LO .. HI of the regime (below), or
# wider as above
within() {
	local lo hi why
	read -r lo hi why < <(steal_bounds "${BOUNDS[$2]% *}" "${BOUNDS[$2]#* }" "$2")
	fe_check "$1 (%)$why" "$(pct "$3" "$4")" "$lo" "$hi"
}
# PFC: WHAT EXPR (over a run r of roce-pfc, roce-pfc-split): the split's median of EXPR
# over the runs not marked distorted by the box's timing within 75 .. 125 % of one box's
# (widened by the steal as above), where each side has 2 such runs or more. Where it has
# fewer, the figures are not a comparison: a box that fell behind moves them (a pause or
# an XON that reaches the sender late; in CI, all six runs distorted, the split's median
# time once 329 % of one box's, once 33 %), and the campaign says so: every run so marked
# must carry the verdict "distorted", which is what is checked then (docs/scale-out.md)
held() {
	local what=$1 expr=$2 g=roce-pfc n1 n2 lo hi why
	n1=$(runs $g "not $BY_TIMING")
	n2=$(runs $g-split "not $BY_TIMING")
	fe_log "$what: one box $(fe_json "$R" "' '.join('%.0f%s' % ($expr, '*' * ($BY_TIMING)) for r in d['runs'] if r['regime'] == '$g')"), split $(fe_json "$R" "' '.join('%.0f%s' % ($expr, '*' * ($BY_TIMING)) for r in d['runs'] if r['regime'] == '$g-split')") (* distorted by the box's timing)"
	if [ "$n1" -ge 2 ] && [ "$n2" -ge 2 ]; then
		read -r lo hi why < <(steal_bounds 75 125 $g)
		fe_check "$what: split against one box, runs on time (%)$why" "$(pct \
			"$(fe_json "$R" "__import__('statistics').median($expr for r in d['runs'] if r['regime'] == '$g' and not $BY_TIMING)")" \
			"$(fe_json "$R" "__import__('statistics').median($expr for r in d['runs'] if r['regime'] == '$g-split' and not $BY_TIMING)")")" "$lo" "$hi"
	else
		fe_check "$what: not compared ($n1 and $n2 runs on time): runs late at p99 whose verdict is not distorted" \
			"$(fe_json "$R" "sum(1 for r in d['runs'] if r['regime'] in ('$g', '$g-split') and $BY_TIMING and not r['verdict'].startswith('distorted'))")" 0 0
	fi
}
held "roce-pfc: the victim's median time (ms)" "$JOB"
# the bounds under credits: ib-nic's 75 .. 125 %; ib-ndr's 70 .. 140 %. The hosts' TCP
# behind credits' head-of-line blocking (the victim's frames and its ACKs queue behind
# the incast's on both leaves) finishes its 4 MB in one of three times about 1.3 s apart,
# on one box as split: in 18 runs each on 2026-12-06, one box 3.1 s once, 4.3 to 4.6 s
# 15 times, 5.6 s twice; split 4.5 to 4.7 s 13 times, 5.7 to 5.8 s 5 times. Medians of 3
# from different modes are 132 % (or 70 %) apart with nothing split-made, and the test
# failed so (130 %) on a fresh clone; the time waiting for credits follows the time
declare -A BOUNDS=([ib-ndr]="70 140" [ib-nic]="75 125")
for g in ib-ndr ib-nic; do
	within "$g: split against one box, the victim's median time" $g "$(med $g "$JOB")" \
		"$(med $g-split "$JOB")"
done
for g in roce-pfc ib-ndr ib-nic; do
	fe_check "$g: drops (lossless)" "$(runs $g 'sum(l["drops"] for l in r["links"])')" 0 0
	# split, a box that runs late (the hosts share its cores) lets a pause or credit
	# reach the other box after its time: a drop is then the box's, and its verdict
	# must say so
	fe_check "$g-split: drops in runs not found distorted (lossless)" \
		"$(runs $g-split "sum(l['drops'] for l in r['links']) * (not $BY_TIMING)")" 0 0
done
# the pause frames a second of the victim's job: the incast, which runs throughout, sets
# them, and a run's count follows its length (eight runs on one box: 1.4 to 3.8 s, 172
# to 898 pause frames, 124 to 242 a second)
PAUSE_RATE='r["pause_frames"] / max((r["end_ns"] - r["start_ns"]) / 1e9, 1e-9)'
held "roce-pfc: median pause frames a second" "$PAUSE_RATE"
for g in ib-ndr ib-nic; do
	within "$g: split against one box, median time waiting for credits" $g \
		"$(med $g 'r["credit_stall_ns"]')" "$(med $g-split 'r["credit_stall_ns"]')"
done
# the emulated ib NIC across the boxes: its flows' frames and ACKs crossed with their tags
for g in ib-nic ib-nic-split; do
	fe_check "$g: the NIC's ACKs heard" \
		"$(runs $g 'sum(p.get("nic_acks_recv", 0) for p in r["counters"]["ports"])')" 100 100000000
	fe_check "$g: NIC frames that lost their flow" \
		"$(runs $g 'sum(p.get("nic_stray", 0) for p in r["counters"]["ports"])')" 0 0
done
fe_log "split runs found distorted: roce-pfc $(distorted roce-pfc-split) of 3, ib-ndr $(distorted ib-ndr-split) of 3, ib-nic $(distorted ib-nic-split) of 3"
fe_check "eth-lossy-split: frames received over the trunks, both boxes" \
	"$(runs eth-lossy-split 'sum(t["rx_frames"] for t in r["counters"]["graph"]["trunks"])')" 1000 100000000
fe_check "roce-pfc-split: 802.1Qbb frames over the trunks, sent and heard" \
	"$(runs roce-pfc-split 'sum(t["rx_pfc"] for t in r["counters"]["graph"]["trunks"])')" 10 100000000
fe_check "ib-ndr-split: credit frames over the trunks, sent and heard" \
	"$(runs ib-ndr-split 'sum(t["rx_credit"] for t in r["counters"]["graph"]["trunks"])')" 100 100000000
fe_check "ib-ndr-split: frames lost at the trunks' ports" \
	"$(runs ib-ndr-split 'sum(t["tx_full"] + t["rx_bad"] + t["nic_lost_rx"] + t["nic_lost_tx"] for t in r["counters"]["graph"]["trunks"])')" 0 0
# each box's lateness: the spine's box counts it on its links to the leaves (the report's
# fabric_links[].late_hist_ns, merged as the box that sends each counted it)
fe_check "eth-lossy-split: frames whose lateness the spine's box counted" \
	"$(runs eth-lossy-split 'sum(sum(l["late_hist_ns"]) for l in r["counters"]["graph"]["fabric_links"] if l["link"].startswith("spine"))')" 1000 100000000
# each direction of each link once, as the box that sends it counted it: 1 run x 4
fe_check "eth-lossy-split: links between switches counted where they are sent" \
	"$(runs eth-lossy-split 'sum(1 for l in r["counters"]["graph"]["fabric_links"] if l["sent_here"] and l["out_pkts"] > 0)')" 4 4
# the boxes' cores: the spine's box shares the hosts' core and sleeps when idle; with
# realtime: true (eth-lossy-split) it runs SCHED_FIFO, else not; the first box has core 0
# to itself and busy-polls as one box does
for g in eth-lossy roce-pfc ib-ndr ib-nic; do
	want=0
	[ $g = eth-lossy ] && want=1
	fe_check "$g-split: spine boxes that ran SCHED_FIFO, sleeping when idle" \
		"$(cat "$T"/out*/logs/dp-$g-split-[0-9]-box-*.log | grep -c '^  lcore SCHED_FIFO, priority 10 (--realtime)$' || true)" $want $want
done
# what the spine's box ran on the hosts' core, counted in every split run (the verdict
# holds it to 10 % of the job) and in no run on one box: 1 lossy and 3 x 3 lossless
fe_check "split runs that counted the other box's CPU on the hosts' core" \
	"$(fe_json "$R" "sum(1 for r in d['runs'] if r['regime'].endswith('-split') and r.get('boxes_run_ns', 0) > 1e6)")" 10 10
fe_check "runs on one box with such a figure" \
	"$(fe_json "$R" "sum(1 for r in d['runs'] if not r['regime'].endswith('-split') and 'boxes_run_ns' in r)")" 0 0
fe_check "split runs whose verdict says the box took over 10 % of the hosts' core, against those that did" \
	"$(fe_json "$R" "sum((any('lcores ran on the hosts' in x for x in r['reasons'])) != (r['boxes_run_ns'] > 0.1 * r['window_ns']) for r in d['runs'] if 'boxes_run_ns' in r)")" 0 0
fe_log "the spine's box on the hosts' core, % of the window: $(fe_json "$R" "' '.join('%s %.0f' % (r['regime'], 100 * r['boxes_run_ns'] / r['window_ns']) for r in d['runs'] if 'boxes_run_ns' in r)")"
fe_check "split runs' first boxes that busy-polled on a core of their own" \
	"$(cat "$T"/out*/logs/dp-*-split-[0-9].log | grep -c '^fabemu-dp .*, lcore 0, idle sleep up to 0 ns')" 10 10
fe_check "split runs' first boxes that ran SCHED_FIFO" \
	"$(cat "$T"/out*/logs/dp-*-split-[0-9].log | grep -c 'SCHED_FIFO' || true)" 0 0
[ -z "$(leftovers)" ] || fe_fail "left behind: $(leftovers)"
echo "  ok   nothing left behind"
