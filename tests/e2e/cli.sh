#!/usr/bin/env bash
# The command line: --help, --version, and a clear error (exit status 2, naming the
# bad value) for every kind of bad input, without forwarding anything.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init cli

T=$FE_TMP
"$FE_BIN/fe-pcapgen" "$T/empty.pcap"
PORTS="--vdev=net_pcap0,rx_pcap=$T/empty.pcap,tx_pcap=$T/o0.pcap --vdev=net_pcap1,rx_pcap=$T/empty.pcap,tx_pcap=$T/o1.pcap"

out=$("$FE_BIN/fabemu-dp" --help)
for word in Usage --rate --delay --buffer --buffer-pkts --link --link-file --profile --scale \
	--control --control-tcp --idle-sleep --realtime \
	--stats-json --exit-idle SIGUSR1 /fabemu/ --regime --lanes --lane-map --pfc --credit \
	--switch-buffer --seed loss= ge= ecn= jitter= drop= match=; do
	grep -q -- "$word" <<<"$out" || fe_fail "--help does not mention $word"
done
# every key --nic takes (the parser's own list, in its error for an unknown key) is in
# --help, where a new key could be forgotten
rc=0
keys=$("$FE_BIN/fabemu-dp" -- --nic bogus=1 2>&1) || rc=$?
[ "$rc" = 2 ] || fe_fail "--nic bogus=1: want exit 2, got $rc: $keys"
keys=$(sed -n 's/.*(known: \(.*\))$/\1/p' <<<"$keys" | tr -d ,)
[ -n "$keys" ] || fe_fail "--nic bogus=1 names no known keys"
for k in $keys; do
	grep -qE -- "(^|[ ,(])$k([=,. ]|$)" <<<"$out" || fe_fail "--help does not mention --nic's $k"
done
echo "  ok   --help names every key --nic takes ($(wc -w <<<"$keys"))"
# --link's selectors, fabric, A-B and A>B among them (README.md's table), and what a
# switch buffer is with several switches (docs/topologies.md)
sels=$(sed -n '/^  --link SPEC/,/^  --link-file/p' <<<"$out" | tr -s ' ,;()\n' '\n')
for s in all up down N N.up N.down fabric A-B 'A>B'; do
	grep -qx -- "$s" <<<"$sels" || fe_fail "fabemu-dp --help: --link's selectors (SEL) lack $s"
done
sed -n '/^  --switch-buffer/,/^  --seed/p' <<<"$out" | tr -s ' \n' ' ' |
	fe_grep_q -F -- "--topology each switch has one of its own" ||
	fe_fail "fabemu-dp --help: --switch-buffer does not say each switch has its own"
v=$("$FE_BIN/fabemu-dp" --version)
grep -qE '^fabemu-dp [0-9][^ ]* \(DPDK [0-9][^ ]*\)$' <<<"$v" || fe_fail "--version: $v"
# every shipped profile is named where --help lists them, and by fabemuctl profile list
names=$(sed -n '/--profile P/,/or a file/p' <<<"$out" | tr -s ' ,()\n' '\n')
listed=$("$FE_BIN/fabemuctl" profile list | awk '{ print $1 }')
for f in "$FE_ROOT"/profiles/*.yaml; do
	p=$(basename "$f" .yaml)
	grep -qx -- "$p" <<<"$names" || fe_fail "fabemu-dp --help: --profile does not name $p ($f)"
	grep -qx -- "$p" <<<"$listed" || fe_fail "fabemuctl profile list: no $p ($f)"
done
echo "  ok   --help and fabemuctl profile list name every profile in profiles/"
# README.md's table of options has a row for every option --help gives
for o in $(grep -oE -- '^  (-[a-zA-Z], )?--[a-z-]+' <<<"$out" | grep -oE -- '--[a-z-]+' | sort -u); do
	grep -qE -- "^\| [^|]*\`$o( [^\`]*)?\`" "$FE_ROOT/README.md" ||
		fe_fail "README.md: the options table has no row for $o (fabemu-dp --help has it)"
done
echo "  ok   README.md's options table has every option of --help"
# every congestion control the NICs run is named by --help and README.md's --nic row
nic_help=$(sed -n '/^  --nic SPEC/,/^  --topology/p' <<<"$out")
for cc in off dcqcn ib nscc rccc; do
	grep -qE -- "cc=([a-z]+\|)*$cc(\||[ ,])" <<<"$nic_help" || fe_fail "fabemu-dp --help: --nic's cc= lacks $cc"
	grep -E -- '^\| `--nic SPEC`' "$FE_ROOT/README.md" | fe_grep_q -F -- "\`$cc\`" ||
		fe_fail "README.md: the --nic row's cc= lacks $cc"
done
echo "  ok   --help and README.md name every cc= of --nic"
# fabemuctl --help: what SEL can be in apply --link SEL and set SEL (docs/control.md)
out=$("$FE_BIN/fabemuctl" --help)
grep -q 'apply P \[--link SEL\]' <<<"$out" && grep -q '^  set SEL ' <<<"$out" ||
	fe_fail "fabemuctl --help: apply --link SEL, set SEL"
sels=$(sed -n '/^Link selectors (SEL):/,/^$/p' <<<"$out" | tr -s ' ,;()\n' '\n')
for s in all up down N N.up N.down fabric A-B 'A>B'; do
	grep -qx -- "$s" <<<"$sels" || fe_fail "fabemuctl --help: the link selectors (SEL) lack $s"
done
echo "  ok   fabemuctl --help: the link selectors, fabric, A-B and A>B among them"
# fabemuctl campaign: every command --help gives is in README.md, docs/campaigns.md and
# docs/control.md; --help (also after a command) on stdout, exit 0, never a file name
for cmd in $(grep -oE '^  campaign [a-z]+' <<<"$out" | awk '{ print $2 }'); do
	for d in README.md docs/campaigns.md docs/control.md; do
		grep -q -- "fabemuctl campaign $cmd" "$FE_ROOT/$d" ||
			fe_fail "$d: no 'fabemuctl campaign $cmd' (fabemuctl --help has it)"
	done
done
grep -q '^  campaign check FILE|NAME\.\.\. ' <<<"$out" || fe_fail "fabemuctl --help: campaign check FILE|NAME..."
# campaign run's own exit statuses (docs/campaigns.md's list) and its baselines, in both
# help texts and docs/control.md
for src in "fabemuctl --help" "fabemuctl campaign --help" docs/control.md; do
	case "$src" in
	docs/*) t=$(tr -d '`' <"$FE_ROOT/$src" | tr '\n' ' ') ;;
	*) t=$($FE_BIN/$src | tr '\n' ' ') ;;
	esac
	t=$(tr -s ' ' <<<"$t")
	for want in "1 bad campaign file" "3 setup failed" "4 the dataplane died" "5 the job failed" \
		"6 results incomplete" "7 complete but a fault step's command failed" "8 no faithful scale" "130 interrupted" \
		"except in the baselines"; do
		grep -qF -- "$want" <<<"$t" || fe_fail "$src: no '$want' (docs/campaigns.md)"
	done
	grep -qF "with its faults;" <<<"$t" && fe_fail "$src: 'with its faults' (the baselines run without them)"
done
for args in "campaign --help" "campaign -h" "campaign run --help" "campaign check --help" \
	"campaign show --help" "campaign list --help" "campaign run quick --help"; do
	rc=0
	o=$("$FE_BIN/fabemuctl" $args 2>"$T/help.err") || rc=$?
	[ "$rc" = 0 ] && [ ! -s "$T/help.err" ] && grep -q '^Usage: fabemuctl campaign list$' <<<"$o" &&
		grep -q '^       fabemuctl campaign check FILE|NAME\.\.\.$' <<<"$o" &&
		grep -q '^       fabemuctl campaign run FILE|NAME \[--out DIR\]' <<<"$o" ||
		fe_fail "fabemuctl $args: exit $rc, stdout '$o', stderr '$(cat "$T/help.err")'"
done
# one source (fe_campaign.c) for campaign's help: fabemuctl --help's campaign section says
# what fabemuctl campaign --help says, word for word (each command's help, FILE|NAME, the
# exit statuses), whatever the layout
all=$("$FE_BIN/fabemuctl" --help | tr -s ' \n' ' ')
n=0
while IFS= read -r part; do
	n=$((n + 1))
	grep -qF -- "$part" <<<"$all" ||
		fe_fail "fabemuctl --help does not say what fabemuctl campaign --help says: '$part'"
done < <("$FE_BIN/fabemuctl" campaign --help | awk '
	/^Usage:|^       fabemuctl / { next }
	/^  [a-z]+ / { if (c != "") print c; sub(/^  [a-z]+ +/, ""); c = $0; next }
	/^[A-Za-z|]+( [a-z]+)?: / { if (c != "") print c; c = $0; next }
	{ sub(/^ +/, ""); c = c " " $0 }
	END { if (c != "") print c }' | tr -s ' ')
[ "$n" = 8 ] || fe_fail "fabemuctl campaign --help: $n parts (6 commands, FILE|NAME, exit status), not 8"
# fabemuctl profile and topology: --help (also after a command) on stdout, exit 0, never a
# name; each command's help as fabemuctl --help says it (one table, fabemuctl.c)
for g in profile topology; do
	cmds=$([ $g = profile ] && echo "check show list" || echo "check show import")
	for args in "$g --help" "$g -h" $(printf "$g:%s:--help " $cmds) "$g:show:x:--help"; do
		args=${args//:/ }
		rc=0
		o=$("$FE_BIN/fabemuctl" $args 2>"$T/help.err") || rc=$?
		[ "$rc" = 0 ] && [ ! -s "$T/help.err" ] && grep -q "^Usage: fabemuctl $g check [PT]\.\.\.$" <<<"$o" &&
			grep -q "^       fabemuctl $g show [PT] \[--" <<<"$o" ||
			fe_fail "fabemuctl $args: exit $rc, stdout '$o', stderr '$(cat "$T/help.err")'"
	done
	n=0
	while IFS= read -r part; do
		n=$((n + 1))
		grep -qF -- "$part" <<<"$all" ||
			fe_fail "fabemuctl --help does not say what fabemuctl $g --help says: '$part'"
	done < <("$FE_BIN/fabemuctl" $g --help | awk '
		/^  [a-z]+ / { if (c != "") print c; sub(/^  [a-z]+ +/, ""); c = $0; next }
		/^ +/ { if (c != "") { sub(/^ +/, ""); c = c " " $0 }; next }
		{ if (c != "") print c; c = "" }
		END { if (c != "") print c }' | tr -s ' ')
	[ "$n" = 3 ] || fe_fail "fabemuctl $g --help: $n commands, not 3"
done
# an unknown option: named with the command, the usage after it, exit status 2
for args in "topology show --x ring3" "topology import --x lab.yml" "profile show --x ideal"; do
	rc=0
	o=$("$FE_BIN/fabemuctl" $args 2>&1) || rc=$?
	set -- $args
	[ "$rc" = 2 ] && grep -qxF "fabemuctl $1 $2: unrecognized option '--x'" <<<"$o" &&
		grep -q "^Usage: fabemuctl $1 $2 " <<<"$o" || fe_fail "fabemuctl $args: exit $rc, $o"
done
# the wrong number of operands, or two forms of output: the reason, then the usage
for t in "campaign show quick fabric:fabemuctl campaign show: needs exactly one campaign file or name" \
	"campaign run:fabemuctl campaign run: needs exactly one campaign file or name" \
	"campaign summary:fabemuctl campaign summary: needs exactly one results directory" \
	"topology show ring3 --routes --dot:fabemuctl topology show: --routes and --dot are one or the other" \
	"topology show ring3 --svg x.svg --dot:fabemuctl topology show: --svg and --dot are one or the other" \
	"topology show ring3 rail:fabemuctl topology show: needs exactly one topology" \
	"profile show ideal --ports 100:fabemuctl profile show: --ports '100' (allowed: 1 to 64)" \
	"profile show ideal --ports 0:fabemuctl profile show: --ports '0' (allowed: 1 to 64)"; do
	rc=0
	o=$("$FE_BIN/fabemuctl" ${t%%:*} 2>&1) || rc=$?
	[ "$rc" = 2 ] && grep -qxF -- "${t#*:}" <<<"$o" && grep -q '^Usage: fabemuctl ' <<<"$o" ||
		fe_fail "fabemuctl ${t%%:*}: exit $rc, $o"
done
# campaign summary DIR: a run's summary printed again from its campaign.json (the
# campaign's text as it ran, its runs); a directory without one named, exit 1
mkdir -p "$T/res"
python3 - "$T/res/campaign.json" <<'PY'
import json, sys
its = [[0, 1024, i + 1, 2000.0 + 10 * i, i] for i in range(20)]
json.dump({"inputs": {"text": "name: t-sum\nhosts: 2\njob: {sizes: [1KiB]}\nregimes:\n"
                              "  - {name: eth, profile: ethernet-lossy}\n"},
           "status": "complete", "capacity": {},
           "runs": [{"regime": "eth", "repetition": 1, "iterations": its, "reasons": [],
                     "not_checked": [], "start_ns": 0, "end_ns": 10 ** 9}]},
          open(sys.argv[1], "w"))
PY
o=$("$FE_BIN/fabemuctl" campaign summary "$T/res" 2>&1) || fe_fail "campaign summary $T/res: $o"
grep -q '^campaign t-sum: complete$' <<<"$o" && grep -q '^eth  *1KiB  *20 2\.090 ' <<<"$o" &&
	grep -q '^the all-reduce at cluster scale' <<<"$o" || fe_fail "campaign summary $T/res: $o"
rc=0
o=$("$FE_BIN/fabemuctl" campaign summary "$T/nosuch" 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -qF "fabemuctl campaign summary: $T/nosuch/campaign.json: " <<<"$o" ||
	fe_fail "campaign summary $T/nosuch: exit $rc, $o"
echo "  ok   campaign summary: a run's summary again from its campaign.json"
# topology import: one of a thing is singular (one host with two rails: two ports, as a
# campaign's hosts need)
cat >"$T/one.clab.yml" <<'EOF'
name: one
topology:
  nodes:
    s1: {kind: bridge}
    s2: {kind: bridge}
    h1: {}
  links:
    - endpoints: ["h1:eth1", "s1:eth1"]
    - endpoints: ["h1:eth2", "s2:eth1"]
    - endpoints: ["s1:eth2", "s2:eth2"]
EOF
o=$("$FE_BIN/fabemuctl" topology import "$T/one.clab.yml" --out "$T/one") ||
	fe_fail "topology import $T/one.clab.yml: $o"
grep -qx 'lab one: 1 host, 2 host ports, 2 switches, 1 link between switches' <<<"$o" ||
	fe_fail "topology import, a lab of one host: $o"
echo "  ok   fabemuctl profile, topology: --help, their commands', a bad option named with its command"
# an unknown option: named with the command, the usage after it, exit status 2
rc=0
o=$("$FE_BIN/fabemuctl" campaign run --x quick 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -qxF "fabemuctl campaign run: unrecognized option '--x'" <<<"$o" &&
	grep -q '^Usage: fabemuctl campaign run FILE|NAME ' <<<"$o" ||
	fe_fail "fabemuctl campaign run --x: exit $rc, $o"
# campaign list: every shipped campaign, with its description and file
listed=$("$FE_BIN/fabemuctl" campaign list)
for f in "$FE_ROOT"/testbeds/campaigns/*.yaml; do
	c=$(basename "$f" .yaml)
	d=$(sed -n 's/^description: //p' "$f")
	grep -qxF "$(printf '%-22s %s (%s)' "$c" "$d" "$f")" <<<"$listed" ||
		fe_fail "fabemuctl campaign list: no line for $c ($f): $listed"
done
# the lookup: a file in the current directory, without .yaml, as given (before a shipped
# one of that name); a shipped name; an unknown name names both places and the shipped ones
mkdir -p "$T/cwd"
sed 's/^name: quick$/name: mine/' "$FE_ROOT/testbeds/campaigns/quick.yaml" >"$T/cwd/mycamp"
cp "$T/cwd/mycamp" "$T/cwd/quick"
o=$(cd "$T/cwd" && "$FE_BIN/fabemuctl" campaign check mycamp quick single-drop 2>&1) ||
	fe_fail "campaign check mycamp quick single-drop (in $T/cwd): $o"
grep -qx 'mycamp: ok (mine: .*' <<<"$o" && grep -qx 'quick: ok (mine: .*' <<<"$o" &&
	grep -qx 'single-drop: ok (single-drop: .*' <<<"$o" ||
	fe_fail "campaign check: ./mycamp, ./quick as given, single-drop shipped: $o"
rc=0
o=$(cd "$T/cwd" && "$FE_BIN/fabemuctl" campaign check nosuch 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -qF "campaign 'nosuch' not found: no file nosuch in the current directory, no shipped campaign " <<<"$o" &&
	grep -qF "/testbeds/campaigns/nosuch.yaml (shipped: congestion-tree, congestion-tree-split, " <<<"$o" &&
	grep -qF ", quick, " <<<"$o" || fe_fail "campaign check nosuch: exit $rc, $o"
# campaign show: the compiled campaign, its regimes' links and its timeline
o=$("$FE_BIN/fabemuctl" campaign show single-drop) || fe_fail "campaign show single-drop: $o"
grep -q '^campaign single-drop (.*/testbeds/campaigns/single-drop\.yaml)$' <<<"$o" &&
	grep -q '^job allreduce, sizes ' <<<"$o" && grep -q '^regime [^ ]*: profile ' <<<"$o" &&
	grep -q '^  0\.up    rate ' <<<"$o" && grep -q '^timeline$' <<<"$o" &&
	grep -q '^  iteration 15: .*: fabemuctl set ' <<<"$o" || fe_fail "campaign show single-drop: $o"
# campaign list loads the shipped files by their path: ./quick (another campaign) is not it
o=$(cd "$T/cwd" && "$FE_BIN/fabemuctl" campaign list 2>&1) || fe_fail "campaign list (in $T/cwd, a file quick there): $o"
grep -qxF "$(printf '%-22s %s (%s)' quick "$(sed -n 's/^description: //p' "$FE_ROOT/testbeds/campaigns/quick.yaml")" \
	"$FE_ROOT/testbeds/campaigns/quick.yaml")" <<<"$o" || fe_fail "campaign list (in $T/cwd): $o"
# campaign show: a command job has no iterations; an end step prints the command it runs
# (the profile, then the regime's links: entries on that link); a baseline is marked; a
# step's time is written as the results write it (cg_step_at(): "1.5 s", "2 s")
cat >"$T/show.yaml" <<'EOF'
name: show
hosts: 2
job: {kind: command, command: "sleep 3"}
regimes:
  - {name: w, kind: wire}
  - {name: eth, profile: ethernet-lossy, scale: 1000, links: ["0.up:delay=5ms"]}
timeline:
  - {action: delay, at: {time: 1500ms}, duration: 500ms, link: 0, delay: 20ms}
EOF
o=$("$FE_BIN/fabemuctl" campaign show "$T/show.yaml") || fe_fail "campaign show $T/show.yaml: $o"
grep -qx "job command 'sleep 3'" <<<"$o" &&
	grep -qxF "regime w: the wire (the hosts joined by a Linux bridge, no fabemu) (baseline: runs without the timeline's faults)" <<<"$o" &&
	grep -q '^regime eth: profile [^(]*([^)]*), scale 1000, regime lossy$' <<<"$o" &&
	grep -qxF "  1.5 s: delay 0 delay=20ms (timeline.0.at): fabemuctl set 0 'delay=20ms'" <<<"$o" &&
	grep -qx "  2 s: end: end of delay 0 delay=20ms (timeline.0.duration): fabemuctl apply '.*/ethernet-lossy.yaml' --scale 1000 --link 0 && fabemuctl set '0.up' 'delay=5ms'" <<<"$o" ||
	fe_fail "campaign show $T/show.yaml: $o"
echo "  ok   fabemuctl campaign: list, show, the lookup (a file as given, else shipped), --help"

# PFC: an egress queue that holds less than its switch's other inputs may send before
# their pauses act is named at start; the defaults (bytes only under PFC) are not
pfc_warn() { # ARGS...: fabemu-dp's warning about PFC's egress queues, or nothing
	"$FE_BIN/fabemu-dp" $(fe_eal) $PORTS -- --profile roce-pfc-ecn --exit-idle 10ms \
		--control "$T/pw.sock" "$@" 2>&1 |
		grep 'warning: PFC: ' || true
}
w=$(pfc_warn)
[ -z "$w" ] || fe_fail "roce-pfc-ecn, 2 ports: a warning about PFC's egress: $w"
w=$(pfc_warn --link down:buffer-pkts=100)
grep -qF '2 egress link(s) hold less than' <<<"$w" && grep -qF '0.down, 100 packets against' <<<"$w" ||
	fe_fail "buffer-pkts=100 under PFC: no warning ($w)"
echo "  ok   PFC: an egress queue too small for its inputs' pauses is named at start"

expect_error() { # EXPECTED-SUBSTRING ARGS...
	local want=$1 rc=0 out
	shift
	out=$("$FE_BIN/fabemu-dp" $(fe_eal) "$@" 2>&1) || rc=$?
	if [ "$rc" != 2 ] || ! grep -qF -- "$want" <<<"$out"; then
		echo "$out" | tail -3
		fe_fail "args '$*': want exit 2 and '$want', got exit $rc"
	fi
	local args="$*"
	echo "  ok   ${args##*-- } -> $want"
}
expect_error "invalid rate (e.g. 1Gbit, 200Mbit, 10000000) 'fast'" $PORTS -- --rate fast
# an option of ours is checked before the EAL starts: its error alone, nothing of the
# EAL's, even where a device would not have probed (that error came first)
rc=0
out=$("$FE_BIN/fabemu-dp" $(fe_eal) --vdev=net_af_packet9,iface=fe-no-such-if -- --rate fast 2>&1) ||
	rc=$?
[ "$rc" = 2 ] && [ "$out" = "fabemu-dp: rate: invalid rate (e.g. 1Gbit, 200Mbit, 10000000) 'fast'" ] ||
	fe_fail "a bad option beside a device that cannot probe: want exit 2 and the option's error alone, got exit $rc: $(tail -3 <<<"$out")"
echo "  ok   a bad option is refused before the EAL starts: its error alone"
expect_error "delay '20s' (allowed: 0 to 10s)" $PORTS -- --delay 20s
expect_error "invalid time (e.g. 100us, 1.5ms, 0s; units ns, us, ms, s) '100'" $PORTS -- --delay 100
expect_error "--link '5:rate=1G': link selector '5': no such port (ports 0 to 1)" $PORTS -- --link 5:rate=1G
expect_error "unknown link key 'speed'" $PORTS -- --link speed=1G
expect_error "unknown option '--bogus'" $PORTS -- --bogus
expect_error "option '--rate' needs a value" $PORTS -- --rate
expect_error "--idle-sleep '1s' (allowed: 0ns to 100ms)" $PORTS -- --idle-sleep 1s
expect_error "--rxd '10' (allowed: 64 to 16384)" $PORTS -- --rxd 10
expect_error "--realtime '100' (allowed: 0 to 99)" $PORTS -- --realtime 100
expect_error "--port-flow-control: 'on' (allowed: off, keep)" $PORTS -- --port-flow-control on
expect_error "--link-wait '120s' (allowed: 0ns to 60s)" $PORTS -- --link-wait 120s
expect_error "--edge-pause: 'maybe' (allowed: auto, on, off)" $PORTS -- --edge-pause maybe
expect_error "--nic: trim '300' (allowed: 60B to 256B)" $PORTS -- --nic model=uec,trim=300
expect_error "--nic: trim-dscp '64' (allowed: 0 to 63, or keep)" $PORTS -- --nic model=uec,trim-dscp=64
expect_error "--nic: trim-queue 'low' (allowed: priority, data)" $PORTS -- --nic model=uec,trim-queue=low
expect_error "--nic: trim-queue 'data' needs model uec (model 'tcp')" $PORTS -- --nic trim-queue=data
expect_error "--nic: reps-freeze '11s' (allowed: 0s (never frozen) to 10s)" $PORTS -- --nic model=uec,reps-freeze=11s
expect_error "--nic: cc 'fast' (allowed: off, dcqcn, ib, nscc, rccc, nscc+rccc)" $PORTS -- --nic cc=fast
expect_error "--nic: cc 'rccc' needs model uec (model 'roce' allowed: off, dcqcn, ib, nscc)" $PORTS -- --nic model=roce,cc=rccc
expect_error "--nic: cc 'rccc' needs model uec (model 'tcp' allowed: off, dcqcn, ib, nscc)" $PORTS -- --nic cc=rccc
expect_error "no ports: give EAL options" -- --rate 1G
expect_error "--regime: 'ib' (allowed: lossy, pfc, credit)" $PORTS -- --regime ib
expect_error "--lanes '9' (allowed: 1 to 8)" $PORTS -- --lanes 9
expect_error "--lane-map: 'vlan' (allowed: pcp, dscp)" $PORTS -- --lane-map vlan
expect_error "--pfc: xon (70000 B) must be below xoff (65536 B)" $PORTS -- --pfc xon=70000
expect_error "--pfc: unknown key 'xof' (known: xoff, xon, headroom, delay, quanta, frames, watchdog, watchdog-action, restore)" $PORTS -- --pfc xof=1
expect_error "--pfc: quanta '70000' (allowed: 1 to 65535)" $PORTS -- --pfc quanta=70000
expect_error "--pfc: watchdog-action 'reset' (allowed: drop, forward)" $PORTS -- --pfc watchdog-action=reset
expect_error "--pfc: watchdog '20s' (allowed: 0s (off) to 10s)" $PORTS -- --pfc watchdog=20s
expect_error "--nic: reorder '2s' (allowed: 0s (a gap is reported at once) to 1s)" $PORTS -- --nic reorder=2s
expect_error "--path: 'random' (allowed: ecmp, polarized, spray, spray-random, adaptive, flowlet, entropy)" $PORTS -- --path random
expect_error "--path adaptive: without a topology (a path choice needs several switches: give --topology)" $PORTS -- --path adaptive
"$FE_BIN/fabemu-dp" $(fe_eal) $PORTS -- --path ecmp --exit-idle 10ms --control "$T/pe.sock" \
	>"$T/pe.log" 2>&1 || fe_fail "--path ecmp (the default) without --topology: $(tail -3 "$T/pe.log")"
expect_error "--deadlock-time '0s' (allowed: 1ns to 60s)" $PORTS -- --deadlock-time 0s
expect_error "--flowlet-gap '2s' (allowed: 1ns to 1s)" $PORTS -- --flowlet-gap 2s
expect_error "--box leaves: topology leaf-spine-4 names no boxes: --box runs one box of a fabric split" $PORTS -- --topology leaf-spine-4 --box leaves
expect_error "--credit: buffer '10' (allowed: 16B to 64MiB, one credit (unit) to 1048576 of them)" $PORTS -- --credit buffer=10
expect_error "--credit: buffer (128 B) must hold 1 to 1048576 credits of unit (256 B): it holds 0" $PORTS -- --credit buffer=128,unit=256
expect_error "--credit: unit '100KiB' (allowed: 16B to 64KiB)" $PORTS -- --credit unit=100KiB
# a buffer that holds less than the largest frame a port brings (2048 B): started, warned
"$FE_BIN/fabemu-dp" $(fe_eal) $PORTS -- --regime credit --credit buffer=1KiB,unit=256 \
	--exit-idle 10ms --control "$T/cw.sock" >"$T/cw.log" 2>&1 || fe_fail "--credit buffer=1KiB: $(tail -3 "$T/cw.log")"
grep -qF "warning: credit: a lane's buffer holds 4 blocks of 256 B, fewer than a frame of up to 2048 B takes (8): a frame above 1024 B can never be sent" "$T/cw.log" ||
	fe_fail "--credit buffer=1KiB: no warning: $(grep -i warn "$T/cw.log")"
echo "  ok   --credit buffer=1KiB,unit=256: started, warned that a frame above 1024 B can never be sent"
expect_error "--credit: hoq: invalid time" $PORTS -- --credit hoq=5
expect_error "--credit: given but the regime is lossy; its keys act under --regime credit only" $PORTS -- --credit unit=256
expect_error "--pfc: given but the regime is credit; its keys act under --regime pfc only" $PORTS -- --regime credit --pfc xoff=128KiB,xon=100KiB
expect_error "match 'tcp and port': can't parse filter expression: syntax error" $PORTS -- --link "0.up:loss=1%,match=tcp and port"
expect_error "invalid probability '150%' (0% to 100%, or 0 to 1)" $PORTS -- --link loss=150%
expect_error "ge '1%': expected P/R[/LOSS_BAD[/LOSS_GOOD]]" $PORTS -- --link ge=1%
expect_error "ecn '40KB/30KB': KMIN is above KMAX" $PORTS -- --link ecn=40KB/30KB
expect_error "drop '0': expected K[/N], K and N from 1" $PORTS -- --link drop=0
expect_error "--seed 'x' (allowed: 0 to 9223372036854775807)" $PORTS -- --seed x
# one switch (no --topology): no links between switches to name, refused, not ignored
expect_error "--link 'fabric:loss=1%': link selector 'fabric': no links between switches without a topology" $PORTS -- --link fabric:loss=1%
expect_error "link selector 'leaf1-spine1': no links between switches without a topology" $PORTS -- --link leaf1-spine1:rate=1G
expect_error "link selector 'x.up' (allowed: all, up, down, N, N.up, N.down; fabric, A-B, A>B: with a topology)" $PORTS -- --link x.up:rate=1G
printf 'rate=1Gbit\n0.up:delay=lots\n' >"$T/bad.links"
expect_error "$T/bad.links:2: delay: invalid time" $PORTS -- --link-file "$T/bad.links"
expect_error "$T/missing.links: No such file or directory" $PORTS -- --link-file "$T/missing.links"
# YAML profiles: by name or file, with file:line: key: value errors
printf 'name: bad\nlink:\n  rate: 1Gbit\n  delay: lots\n' >"$T/bad.yaml"
expect_error "$T/bad.yaml:4: link.delay: invalid time" $PORTS -- --profile "$T/bad.yaml"
expect_error "profile 'nosuch' not found" $PORTS -- --profile nosuch
expect_error "--rate cannot be combined with --profile" $PORTS -- --profile ideal --rate 1Gbit
expect_error "--regime cannot be combined with --profile" $PORTS -- --regime pfc --profile ideal
expect_error "--scale needs --profile" $PORTS -- --scale 10
expect_error "--scale '0' (allowed: 1 to 100000)" $PORTS -- --profile ideal --scale 0
printf 'name: slow\nlink:\n  rate: 10Mbit\n' >"$T/slow.yaml"
expect_error "link 0.up: rate 10Mbit at scale 100000 is below 1kbit" $PORTS -- --profile "$T/slow.yaml" --scale 100000
expect_error "--control-tcp 'localhost:x': expected [IPV4:]PORT" $PORTS -- --control-tcp localhost:x
# a start refused after --stats-json was checked leaves no file there (an empty one would
# pass for a run's counters); a file that was there stays as it was
expect_error "no ports: give EAL options" -- --stats-json "$T/refused.json"
expect_error "link selector '5': no such port" $PORTS -- --link 5:rate=1G --stats-json "$T/refused.json"
[ ! -e "$T/refused.json" ] || fe_fail "a refused start left --stats-json $T/refused.json behind"
echo before >"$T/kept.json"
expect_error "link selector '5': no such port" $PORTS -- --link 5:rate=1G --stats-json "$T/kept.json"
[ "$(cat "$T/kept.json")" = before ] || fe_fail "a refused start changed --stats-json $T/kept.json"

# --realtime: the forwarding lcore runs SCHED_FIFO at that priority, the control thread
# (started before it) and the EAL's threads keep the default policy
fe_dp_start $(fe_eal) $PORTS -- --realtime 7 --control "$T/rt.sock"
grep -q '^  lcore SCHED_FIFO, priority 7 (--realtime)$' "$FE_DP_LOG" || fe_fail "--realtime: no banner line"
threads=$(ps -L -o tid=,cls=,rtprio=,comm= -p "$FE_DP_PID")
awk '$1 == '"$FE_DP_PID"' && $2 == "FF" && $3 == 7 { ok = 1 } END { exit !ok }' <<<"$threads" ||
	fe_fail "--realtime 7: the lcore (main thread) is not SCHED_FIFO 7: $threads"
awk '$4 == "fe-ctl" && $2 == "TS" { ok = 1 } END { exit !ok }' <<<"$threads" ||
	fe_fail "--realtime 7: the control thread is not SCHED_OTHER: $threads"
[ "$(awk '$2 == "FF"' <<<"$threads" | wc -l)" = 1 ] || fe_fail "--realtime 7: more than the lcore is SCHED_FIFO: $threads"
fe_dp_stop
echo "  ok   --realtime 7: the lcore SCHED_FIFO 7, the control thread not"

# fe-cpufloor (the timing benchmark's floor): its figures, and bad input refused
out=$("$FE_BIN/fe-cpufloor" --cpu 0 --secs 0.3)
grep -qE '^cpu 0, [0-9]+\.[0-9] s, a clock read every [0-9]+ ns$' <<<"$out" || fe_fail "fe-cpufloor: $out"
# the time it ran, measured: the 0.3 s asked and what its last gap took past them (0.4 s
# once in a new machine's run, the hypervisor away 102 ms at a time)
fe_check "fe-cpufloor: the run's length (s), 0.3 asked" \
	"$(sed -n 's/^cpu 0, \([0-9.]*\) s,.*/\1/p' <<<"$out")" 0.3 60
grep -qE '^taken away [0-9.]+ % of the time' <<<"$out" || fe_fail "fe-cpufloor: $out"
grep -qE '^deadline-lateness-ns p50 [0-9]+ p99 [0-9]+ p99.9 [0-9]+ max [0-9]+$' <<<"$out" ||
	fe_fail "fe-cpufloor: $out"
for bad in "--secs 0:bad --secs '0'" "--cpu x:bad --cpu 'x'" "--min-gap 5:bad --min-gap '5'"; do
	rc=0
	out=$("$FE_BIN/fe-cpufloor" ${bad%%:*} 2>&1) || rc=$?
	[ "$rc" = 2 ] && grep -qF -- "${bad#*:}" <<<"$out" || fe_fail "fe-cpufloor ${bad%%:*}: exit $rc, $out"
done
"$FE_BIN/fe-cpufloor" --help | fe_grep_q -- --peer || fe_fail "fe-cpufloor --help"
if [ "$(nproc)" -ge 2 ]; then
	out=$("$FE_BIN/fe-cpufloor" --cpu 0 --peer 1 --secs 0.2)
	grep -qE '^cpu 0 <-> cpu 1: [1-9][0-9]* round trips of a cache line in [0-9.]+ s, one way [0-9.]+ ns$' <<<"$out" ||
		fe_fail "fe-cpufloor --peer: $out"
	# --busy: the floor while a thread spins on another core (tests/bench/run.sh floor)
	out=$("$FE_BIN/fe-cpufloor" --cpu 0 --busy 1 --secs 0.2)
	grep -qE '^cpu 0, [0-9.]+ s, a clock read every [0-9]+ ns; a thread spinning on cpu 1$' <<<"$out" ||
		fe_fail "fe-cpufloor --busy: $out"
	grep -qE '^deadline-lateness-ns p50 [0-9]+ p99 [0-9]+ ' <<<"$out" || fe_fail "fe-cpufloor --busy: $out"
fi
for bad in "--peer 1:--peer needs --cpu" "--cpu 0 --peer 0:--peer needs --cpu, another core" \
	"--cpu 0 --peer y:bad --peer 'y'" "--busy 1:--busy 1 needs --cpu, another core" \
	"--cpu 0 --busy 0:--busy 0 needs --cpu, another core" "--cpu 0 --busy z:bad --busy 'z'" \
	"--cpu 0 --peer 1 --busy 1:--busy is not for --peer"; do
	rc=0
	out=$("$FE_BIN/fe-cpufloor" ${bad%%:*} 2>&1) || rc=$?
	[ "$rc" = 2 ] && grep -qF -- "${bad#*:}" <<<"$out" || fe_fail "fe-cpufloor ${bad%%:*}: exit $rc, $out"
done
# fe-pcapgen --udp (the packet-rate benchmark's frames): IPv4/UDP, and fe-pcapcheck reads them
"$FE_BIN/fe-pcapgen" --udp "$T/u.pcap" 02:fe:00:00:00:0a 02:fe:00:00:00:0b 3 60
out=$("$FE_BIN/fe-pcapcheck" "$T/u.pcap")
grep -q '^packets=3 bytes=180 order=ok ' <<<"$out" || fe_fail "fe-pcapgen --udp: $out"
rc=0
out=$("$FE_BIN/fe-pcapgen" --udp "$T/u.pcap" 02:fe:00:00:00:0a 02:fe:00:00:00:0b 3 50 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -qF "bad group" <<<"$out" || fe_fail "fe-pcapgen --udp, 50 bytes: exit $rc, $out"

# fe-enginebench (the packet-rate benchmark's engine alone): it forwards, and refuses bad input
printf 'name: eb\nregime: credit\nlink: {rate: 100Gbit, delay: 1us}\nlinks:\n  - select: all\n    match: udp port 9\n' >"$T/eb.yaml"
for p in ideal "$T/eb.yaml"; do
	out=$("$FE_BIN/fe-enginebench" --profile "$p" --packets 20000)
	n=$(sed -nE 's/^profile .*, offered 15 Mpps \(emulated\): ([0-9]+) packets in [0-9]+ passes, [0-9.]+ ns per packet \(wall clock\)$/\1/p' <<<"$out")
	[ -n "$n" ] && [ "$n" -ge 20000 ] || fe_fail "fe-enginebench --profile $p: $out"
done
for bad in "--packets 0:--packets '0': allowed 1 to" "--offered x:--offered 'x'" \
	"--offered 1 extra:unexpected argument 'extra'" "--bogus:usage: fe-enginebench"; do
	rc=0
	out=$("$FE_BIN/fe-enginebench" ${bad%%:*} 2>&1) || rc=$?
	[ "$rc" = 2 ] && grep -qF -- "${bad#*:}" <<<"$out" || fe_fail "fe-enginebench ${bad%%:*}: exit $rc, $out"
done
rc=0
out=$("$FE_BIN/fe-enginebench" --profile "$T/none.yaml" 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -qF "none.yaml" <<<"$out" || fe_fail "fe-enginebench, a missing profile: exit $rc, $out"
"$FE_BIN/fe-enginebench" --help | fe_grep_q -- --offered || fe_fail "fe-enginebench --help"
[ ! -e /var/run/dpdk/fe-enginebench ] || fe_fail "fe-enginebench left /var/run/dpdk/fe-enginebench"
# frames the ports cannot carry: refused before a frame is read, naming the value
fe_hosts cli 2
expect_error "--mtu 9000: port 0 (AF_XDP) carries frames of at most" $(fe_vdevs af_xdp) -- --mtu 9000
big=$(fe_vdevs af_packet | sed 's/framesz=[0-9]*/framesz=70000/g; s/blocksz=[0-9]*/blocksz=131072/g; s/framecnt=[0-9]*/framecnt=64/g')
expect_error "port 0: framesz=70000: an mbuf holds at most" $big --
expect_error "--mtu '9217' (allowed: 576 to 9216)" $(fe_vdevs af_packet) -- --mtu 9217
"$FE_ROOT/testbeds/veth.sh" down --name "$FE_TB_NAME"
FE_TB_NAME=
echo "cli: passed"
