#!/usr/bin/env bash
# Link-level retry on real TCP (cubic): host 1 sends host 2 a fixed amount over a path
# whose round trip is a few milliseconds (2 ms on each down link) while its up link is a
# short one (1 us), every link at 200 Mbit/s (paced by the links, not by the machine's
# cores: a clean run's time varies by a few ms, where at the veth's own speed it varied
# by 100). On that up link, 1 % random loss costs TCP its losses' recovery; the
# same loss with llr=on costs the link a microsecond round trip a frame and TCP nothing.
# The three settings (clean, loss, loss with llr) take turns, a run each in each of seven
# rounds, and the medians are compared inside this one run: the cost with llr (its median
# less the clean one) is under 1 % of the cost without, as the Ultra Ethernet issue asks
# (the hosts keep no TCP metrics between
# connections: a run after a lossy one would start from its ssthresh, veth.sh). With llr the up link drops nothing,
# sends frames again (llr_replays), and the sender retransmits nothing real.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init llr
fe_hosts fellr 2
# AF_PACKET: its edge ring (16384 frames) holds TCP's bursts; AF_XDP's (2048) does not
EAL="$(fe_eal) $(fe_vdevs af_packet)"
BYTES=${FE_LLR_BYTES:-16M}

fe_dp_start $EAL -- --rate 200Mbit --link '0.up:delay=1us' --link 'down:delay=2ms' --stats-json "$FE_TMP/s.json"
# seconds host 1 took to send BYTES to host 2 (cubic)
send_time() {
	local port=$((5201 + RANDOM % 500)) out
	fe_ns 2 iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	fe_listening 2 "$port"
	out=$(fe_ns 1 iperf3 -c "$(fe_ip 2)" -p "$port" -n "$BYTES" -C cubic -J) ||
		fe_fail "iperf3 failed: $(echo "$out" | grep '"error"')"
	wait 2>/dev/null || true
	echo "$out" | python3 -c 'import json, sys; print("%.4f" % json.load(sys.stdin)["end"]["sum_received"]["seconds"])'
}
declare -A T
LLR_RETRANS=""
# the up link's random drops so far (the loss runs')
random_drops() {
	fe_ctl -j counters | python3 -c 'import json, sys
print([l for l in json.load(sys.stdin)["links"] if l["link"] == "0.up"][0]["drop_random_pkts"])'
}
for round in 1 2 3 4 5 6 7; do
	for s in clean loss llr; do
		case $s in
		clean) fe_ctl set 0.up loss=0,llr=off >/dev/null ;;
		loss) fe_ctl set 0.up loss=1%,llr=off >/dev/null ;;
		llr) fe_ctl set 0.up loss=1%,llr=on >/dev/null ;;
		esac
		d0=$(random_drops)
		before=$(fe_tcp_counters 1)
		t=$(send_time)
		after=$(fe_tcp_counters 1)
		r=$(fe_real_retrans "$before" "$after")
		d1=$(random_drops)
		echo "  round $round, $s: $t s, $r real retransmissions, $((d1 - d0)) random drops"
		T[$s]="${T[$s]:-} $t"
		if [ "$s" = llr ]; then
			[ "$d1" = "$d0" ] || fe_fail "llr: the up link dropped $((d1 - d0)) frames"
			LLR_RETRANS="$LLR_RETRANS $r"
		fi
	done
done
fe_ctl -j counters >"$FE_TMP/now.json"
fe_dp_stop
med() { python3 -c "import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))" $1; }
c=$(med "${T[clean]}"); l=$(med "${T[loss]}"); r=$(med "${T[llr]}")
echo "  medians: clean $c s, 1 % loss $l s, 1 % loss with llr $r s"
fe_check "llr: the median round's real retransmissions" "$(med "$LLR_RETRANS")" 0 0
fe_check "the loss's cost (s), its median less clean's" "$(python3 -c "print(round($l - $c, 4))")" \
	"$(python3 -c "print(round($c, 4))")" 1000
fe_check "llr's cost (s), under 1 % of the loss's" "$(python3 -c "print(round($r - $c, 4))")" \
	-1000 "$(python3 -c "print(round(($l - $c) / 100, 4))")"
up=$(fe_json "$FE_TMP/now.json" "[x for x in d['links'] if x['link'] == '0.up'][0]")
rep=$(python3 -c "print($up['llr_replays'])"); rnd=$(python3 -c "print($up['drop_random_pkts'])")
llrd=$(python3 -c "print($up['drop_llr_pkts'])")
echo "  0.up: llr_replays $rep, drop_random_pkts $rnd (the loss runs), drop_llr_pkts $llrd"
fe_check "frames sent again by llr" "$rep" 1 1e12
fe_check "frames llr gave up on" "$llrd" 0 0
echo "llr: passed"
