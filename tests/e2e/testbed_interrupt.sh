#!/usr/bin/env bash
# testbeds/veth.sh up interrupted twice (Ctrl-C: SIGINT to its process group), the first
# time just after it made something and before the next command, the second time while
# its cleanup runs: nothing is left that `veth.sh down --name` does not remove, and with
# --cores split the kernel threads and settings it moved are back where they were.
#
# The moments are made exact with stand-ins for ip and taskset (first in PATH): they run
# the real command, then wait a while at the point where a signal must land.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init tbint
VETH=$FE_ROOT/testbeds/veth.sh
NAME=tbi
FAKE=$FE_TMP/bin
M=$FE_TMP/marks
mkdir -p "$FAKE" "$M"

kthreads() { # every kernel thread's cores (one that ended between ps and taskset, left
	# out: a kworker's "0" before and nothing after once failed the check below)
	local pid c
	for pid in $(ps -eo pid=,ppid= | awk '$2 == 2 {print $1}'); do
		# (under pipefail a taskset that found the thread gone fails the assignment, and
		# set -e ended the test there, with nothing printed)
		c=$(taskset -pc "$pid" 2>/dev/null | awk -F': ' '{print $2}') || continue
		[ -z "$c" ] || echo "$pid $c"
	done
}
settings() {
	cat /sys/devices/virtual/workqueue/cpumask /proc/sys/net/core/netdev_max_backlog
	for irq in /proc/irq/[0-9]*; do echo "$irq $(cat "$irq/smp_affinity_list")"; done
}
kthreads >"$FE_TMP/kthreads.before"
settings >"$FE_TMP/settings.before"
leftovers() {
	{
		ip netns list | awk '{print $1}' | grep "^$NAME-h" || true
		ip -o link show | awk -F': ' '{print $2}' | grep "^$NAME-h" || true
		[ ! -e /run/fabemu/testbed-$NAME ] || echo "record /run/fabemu/testbed-$NAME"
	} | tr '\n' ' '
}
UPPID=
cleanup() { # whatever a failing veth.sh left, the machine's settings as they were
	local rc=$?
	set +e # the cleanup goes to its end, (exit $rc) below included
	[ -z "$UPPID" ] || kill -KILL -- -"$UPPID" 2>/dev/null || true
	"$VETH" down --name $NAME >/dev/null 2>&1 || true
	for ns in $(ip netns list | awk '{print $1}' | grep "^$NAME-h" || true); do ip netns del "$ns"; done
	for l in $(ip -o link show | awk -F': ' '{print $2}' | grep "^$NAME-h" | cut -d@ -f1 || true); do
		ip link del "$l" 2>/dev/null || true
	done
	while read -r pid aff; do
		[ -z "$aff" ] || [ "$(taskset -pc "$pid" 2>/dev/null | awk -F': ' '{print $2}')" = "$aff" ] ||
			taskset -pc "$aff" "$pid" >/dev/null 2>&1 || true
	done <"$FE_TMP/kthreads.before"
	exec 3<"$FE_TMP/settings.before"
	read -r v <&3 && echo "$v" >/sys/devices/virtual/workqueue/cpumask 2>/dev/null || true
	read -r v <&3 && echo "$v" >/proc/sys/net/core/netdev_max_backlog || true
	while read -r irq aff <&3; do echo "$aff" >"$irq/smp_affinity_list" 2>/dev/null || true; done
	(exit $rc)
	fe_cleanup
}
trap cleanup EXIT
[ -z "$(leftovers)" ] || fe_fail "leftovers before the test: $(leftovers)"

# ip: after `netns add` of host 2, wait (the first Ctrl-C lands here: the namespace is
# made, the next command has not run); after the first `netns del`, wait (the second
# Ctrl-C lands in the cleanup)
cat >"$FAKE/ip" <<EOF
#!/bin/sh
$(command -v ip) "\$@"
rc=\$?
if [ "\$1 \$2 \$3" = "netns add $NAME-h2" ] && [ -e "$M/slow-add" ]; then
	touch "$M/added"; sleep 5
elif [ "\$1 \$2" = "netns del" ] && [ ! -e "$M/deleting" ]; then
	touch "$M/deleting"; sleep 1
fi
exit \$rc
EOF
# taskset: after the third kernel thread moved (--cores split), wait
cat >"$FAKE/taskset" <<EOF
#!/bin/sh
$(command -v taskset) "\$@"
rc=\$?
if [ \$rc = 0 ] && [ "\$1" = -pc ] && [ \$# = 3 ] && [ -e "$M/slow-move" ]; then
	n=\$(cat "$M/moves" 2>/dev/null || echo 0)
	echo \$((n + 1)) >"$M/moves"
	[ "\$n" = 2 ] && { touch "$M/moved"; sleep 5; }
fi
exit \$rc
EOF
chmod +x "$FAKE/ip" "$FAKE/taskset"

# interrupted UP_ARGS... MARK: veth.sh up, Ctrl-C once MARK appears, again in its cleanup
interrupted() {
	local mark=${*: -1} rc=0
	rm -f "$M"/*
	touch "$M/slow-${mark#*-}"
	# its own process group, SIGINT not ignored (as a shell's foreground job)
	setsid env --default-signal=INT,TERM PATH="$FAKE:$PATH" "$VETH" up "${@:1:$#-1}" \
		>"$FE_TMP/up.log" 2>&1 &
	UPPID=$!
	for _ in $(seq 200); do [ -e "$M/${mark%%-*}" ] && break; sleep 0.05; done
	[ -e "$M/${mark%%-*}" ] || { cat "$FE_TMP/up.log"; fe_fail "veth.sh up did not reach the moment"; }
	kill -INT -- -"$UPPID"
	for _ in $(seq 100); do [ -e "$M/deleting" ] && break; sleep 0.05; done
	[ -e "$M/deleting" ] || { cat "$FE_TMP/up.log"; fe_fail "veth.sh up did not clean up after SIGINT"; }
	kill -INT -- -"$UPPID" 2>/dev/null || true
	wait "$UPPID" || rc=$?
	UPPID=
	fe_check "veth.sh up's exit status after two SIGINTs" "$rc" 130 130
}

echo "Ctrl-C twice: just after host 2's namespace was made, and during the cleanup"
interrupted 3 --name $NAME added-add
left=$(leftovers)
echo "  left after the interrupted up: ${left:-nothing}"
"$VETH" down --name $NAME
[ -z "$(leftovers)" ] || fe_fail "veth.sh down --name $NAME left: $(leftovers)"
echo "  ok   veth.sh down --name $NAME: no namespace, link or record left"
[ -z "$left" ] || fe_fail "the interrupted up itself left: $left"
echo "  ok   the interrupted up removed everything itself"

if ls /run/fabemu/testbed-* >/dev/null 2>&1; then
	echo "--cores split: skipped (another testbed is up and owns the machine's settings)"
else
	echo "Ctrl-C twice with --cores split: after a kernel thread moved, and during the cleanup"
	interrupted 2 --name $NAME --cores split moved-move
	"$VETH" down --name $NAME
	[ -z "$(leftovers)" ] || fe_fail "veth.sh down --name $NAME left: $(leftovers)"
	kthreads >"$FE_TMP/kthreads.after"
	settings >"$FE_TMP/settings.after"
	# the threads there before and after (kworkers come and go): the same cores
	moved=$(join <(sort "$FE_TMP/kthreads.before") <(sort "$FE_TMP/kthreads.after") |
		awk '$2 != $3')
	[ -z "$moved" ] || fe_fail "kernel threads not on their cores again (pid before after): $moved"
	diff "$FE_TMP/settings.before" "$FE_TMP/settings.after" >"$FE_TMP/diff" ||
		fe_fail "settings not as they were: $(cat "$FE_TMP/diff")"
	echo "  ok   no namespace, link or record left; kernel threads, workqueues, IRQs, backlog as before"
fi
echo "testbed_interrupt: passed"
