#!/usr/bin/env bash
# testbeds/veth.sh: hosts come up as described, down removes them, and it refuses to
# clobber a namespace it did not create (leaving everything as it was).
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init testbed
VETH=$FE_ROOT/testbeds/veth.sh
foreign=tbx-h2
cleanup_foreign() { ip netns del $foreign 2>/dev/null || true; $VETH down --name tbm 2>/dev/null || true; }
trap 'rc=$?; set +e; cleanup_foreign; (exit $rc); fe_cleanup' EXIT # fe_cleanup exits with rc

fe_hosts tbt 3
for i in 1 2 3; do
	ip netns list | fe_grep_q -w "tbt-h$i" || fe_fail "namespace tbt-h$i missing"
	ip -n "tbt-h$i" -4 addr show eth0 | fe_grep_q "198.18.0.$i/24" || fe_fail "tbt-h$i address"
	ip netns exec "tbt-h$i" ethtool -k eth0 | fe_grep_q '^tx-checksumming: off' ||
		fe_fail "tbt-h$i: tx checksum offload still on"
	ip link show "tbt-h$i" | fe_grep_q 'state UP\|state LOWERLAYERDOWN\|UP' || fe_fail "tbt-h$i link"
	[ "$(ip netns exec "tbt-h$i" sysctl -n net.ipv4.tcp_congestion_control)" = cubic ] ||
		fe_fail "tbt-h$i: congestion control is not cubic"
	# a connection starts from nothing its host learnt before (no cached ssthresh from
	# an earlier run's losses: runs in turn on one testbed are compared)
	[ "$(ip netns exec "tbt-h$i" sysctl -n net.ipv4.tcp_no_metrics_save)" = 1 ] ||
		fe_fail "tbt-h$i: TCP keeps its metrics between connections"
done
[ "$($VETH vdevs --name tbt --pmd af_xdp | wc -w)" = 3 ] || fe_fail "vdevs"
$VETH up 2 --name tbt 2>"$FE_TMP/err" && fe_fail "second up of the same testbed accepted"
grep -q "already up" "$FE_TMP/err" || fe_fail "no clear error for a second up"
$VETH down --name tbt
FE_TB_NAME=
for i in 1 2 3; do
	ip netns list | fe_grep_q -w "tbt-h$i" && fe_fail "tbt-h$i left behind"
	ip link show "tbt-h$i" >/dev/null 2>&1 && fe_fail "link tbt-h$i left behind"
done

# a namespace we did not make: refuse, touch nothing, leave no half-built testbed
ip netns add $foreign
if $VETH up 3 --name tbx 2>"$FE_TMP/err"; then fe_fail "clobbered a foreign namespace"; fi
grep -q "namespace 'tbx-h2' exists and was not made by this testbed" "$FE_TMP/err" ||
	{ cat "$FE_TMP/err"; fe_fail "unclear error"; }
ip netns list | fe_grep_q -w $foreign || fe_fail "the foreign namespace was removed"
ip netns list | fe_grep_q -w tbx-h1 && fe_fail "half-built testbed left behind"
$VETH up 0 2>/dev/null && fe_fail "accepted 0 hosts"
$VETH up 2 --name tby --cc nosuchcc 2>"$FE_TMP/err" && fe_fail "accepted an unknown congestion control"
grep -q "congestion control 'nosuchcc' is not available" "$FE_TMP/err" || fe_fail "unclear --cc error"
$VETH up 3 --name 'Bad Name' 2>/dev/null && fe_fail "accepted a bad name"
$VETH up 2 --name tbm --mtu 99 2>"$FE_TMP/err" && fe_fail "accepted MTU 99"
grep -q "mtu '99' must be 576 to 9000" "$FE_TMP/err" || fe_fail "unclear --mtu error"
ip netns list | fe_grep_q -w tbm-h1 && fe_fail "a refused up left a testbed"
# --mtu: both ends of every veth, and AF_PACKET slots that hold a frame (the same memory)
$VETH up 2 --name tbm --mtu 4096
for i in 1 2; do
	ip -n "tbm-h$i" link show eth0 | fe_grep_q "mtu 4096" || fe_fail "tbm-h$i: MTU"
	ip link show "tbm-h$i" | fe_grep_q "mtu 4096" || fe_fail "tbm-h$i (root side): MTU"
done
$VETH vdevs --name tbm | fe_grep_q "framecnt=4096,framesz=8192,blocksz=8192 " || fe_fail "vdevs at MTU 4096"
$VETH down --name tbm
# two testbeds at once, the first to come up the one that added cubic to the machine's
# allowed congestion controls, and the first to go down: the list is put back when the
# last goes (a leak before: the second found cubic there and recorded nothing)
allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
cleanup_cc() {
	cleanup_foreign
	for t in tbp tbq tbr tbs tbk; do $VETH down --name $t 2>/dev/null || true; done
	rm -f "$CC_STATE_DIR"/cc-killed-*
	sysctl -qw "net.ipv4.tcp_allowed_congestion_control=$allowed"
}
trap 'rc=$?; set +e; cleanup_cc; (exit $rc); fe_cleanup' EXIT
sysctl -qw "net.ipv4.tcp_allowed_congestion_control=reno"
$VETH up 1 --name tbp
$VETH up 1 --name tbq
$VETH down --name tbp
[ "$(sysctl -n net.ipv4.tcp_allowed_congestion_control)" = "reno cubic" ] ||
	fe_fail "one testbed down, another up: allowed $(sysctl -n net.ipv4.tcp_allowed_congestion_control)"
$VETH down --name tbq
[ "$(sysctl -n net.ipv4.tcp_allowed_congestion_control)" = reno ] ||
	fe_fail "both down: allowed $(sysctl -n net.ipv4.tcp_allowed_congestion_control), not reno as before"
echo "  ok   two testbeds at once: the allowed congestion controls put back by the last down"
# a test that makes namespaces of its own (lib.sh: fe_allow_cc) beside a testbed, each
# going first: the list put back when the last goes. Before (two ways of doing it), a test
# that went first left cubic allowed for good, and a testbed that went first put the list
# back under a test still running on cubic.
child() { # SCRIPT: run as a test of its own (lib.sh, fe_init), its status returned
	printf '%s\n' 'set -euo pipefail' ". $FE_ROOT/testbeds/lib.sh" 'fe_init testbed-cc' \
		"VETH=$VETH" "$1" >"$FE_TMP/child.sh"
	bash "$FE_TMP/child.sh"
}
now() { sysctl -n net.ipv4.tcp_allowed_congestion_control; }
child 'fe_allow_cc cubic; $VETH up 1 --name tbr' || fe_fail "the test beside testbed tbr: status $?"
[ "$(now)" = "reno cubic" ] || fe_fail "a test gone, testbed tbr up: allowed $(now)"
$VETH down --name tbr
[ "$(now)" = reno ] || fe_fail "the test gone, then testbed tbr: allowed $(now), not reno as before"
child '$VETH up 1 --name tbs; fe_allow_cc cubic; $VETH down --name tbs
	[ "$(sysctl -n net.ipv4.tcp_allowed_congestion_control)" = "reno cubic" ] ||
		fe_fail "testbed tbs gone under a test on cubic: allowed $(sysctl -n net.ipv4.tcp_allowed_congestion_control)"' ||
	fe_fail "the test around testbed tbs: status $?"
[ "$(now)" = reno ] || fe_fail "testbed tbs gone, then the test: allowed $(now), not reno as before"
ls "$CC_STATE_DIR"/cc-* 2>/dev/null && fe_fail "a test's record left behind"
echo "  ok   a test beside a testbed, each going first: the list put back by the last"
# a test killed before its cleanup (ctest's timeout) leaves its record: the next to go
# takes it as gone (its process is), and puts the list back (before, every later holder
# handed its list to the dead record, and the list stayed as it was for good)
sh -c 'exit 0' &
dead=$!
wait "$dead"
echo "allowed reno" >"$CC_STATE_DIR/cc-killed-$dead"
$VETH up 1 --name tbk
$VETH down --name tbk
[ "$(now)" = reno ] || fe_fail "a killed test's record, then testbed tbk: allowed $(now), not reno as before"
[ ! -e "$CC_STATE_DIR/cc-killed-$dead" ] || fe_fail "the killed test's record left behind"
sysctl -qw "net.ipv4.tcp_allowed_congestion_control=$allowed"
echo "  ok   a killed test's record: taken as gone, the list put back"
echo "testbed: passed"
