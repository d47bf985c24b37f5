#!/usr/bin/env bash
# Ctrl-C (SIGINT) while a campaign builds its testbed: the campaign says "interrupted",
# exits 130 (not "setup failed", 3), and leaves nothing: no namespace, veth, testbed
# record, runner record or socket, and with cores: split the kernel's workqueues on
# their cores again. A stand-in for ip (first in PATH) makes the testbed slow to build
# (half a second a host), so that the signal lands while veth.sh is building it.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init campsint
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"
PID=

cat >"$T/int.yaml" <<'Y'
name: t-setup-int
hosts: 4
cores: split
fidelity: {capacity: false}
job: {kind: allreduce, sizes: [1KiB], iterations: 5, warmup: 1}
regimes:
  - {name: ideal, profile: ideal}
Y
mkdir -p "$T/bin"
cat >"$T/bin/ip" <<EOF
#!/bin/sh
$(command -v ip) "\$@"
rc=\$?
[ "\$1 \$2" != "netns add" ] || sleep 0.5
exit \$rc
EOF
chmod +x "$T/bin/ip"

tb() { fe_campaign_testbed "$PID"; }
leftovers() {
	{
		ip netns list | awk '{print $1}' | grep "^$(tb)-h" || true
		ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^$(tb)-(h[0-9]+|br)$" || true
		for f in /run/fabemu/testbed-$(tb) /run/fabemu/campaign-$PID.run \
			/run/fabemu/campaign-$PID.sock /var/run/dpdk/fe-campaign-$PID; do
			[ ! -e "$f" ] || echo "$f"
		done
	} | tr '\n' ' '
}
cleanup() {
	local rc=$?
	set +e # the cleanup goes to its end, (exit $rc) below included
	if [ -n "$PID" ]; then
		kill -KILL "$PID" 2>/dev/null || true
		sleep 0.5
		"$FE_ROOT/testbeds/veth.sh" down --name "$(tb)" >/dev/null 2>&1 || true
		for ns in $(ip netns list | awk '{print $1}' | grep "^$(tb)-h" || true); do ip netns del "$ns"; done
		rm -f "/run/fabemu/campaign-$PID."*
	fi
	(exit $rc)
	fe_cleanup
}
trap cleanup EXIT
others=$(ls /run/fabemu/testbed-* 2>/dev/null || true)
WQ=$(cat /sys/devices/virtual/workqueue/cpumask)

echo "SIGINT while the testbed is being built"
PATH="$T/bin:$PATH" "$CTL" campaign run "$T/int.yaml" --out "$T/out" >"$T/out.log" 2>&1 &
PID=$!
has_h1() { ip netns list | awk '{print $1}' | fe_grep_q -x "$(tb)-h1"; }
for _ in $(seq 200); do has_h1 && break; sleep 0.02; done
has_h1 || { cat "$T/out.log"; fe_fail "the testbed was not being built"; }
kill -INT "$PID"
rc=0; wait "$PID" || rc=$?
sed 's/^/  | /' "$T/out.log" | head -6
fe_check "exit status after SIGINT in the setup" "$rc" 130 130
fe_check "status in campaign.json is interrupted" \
	"$(fe_json "$T/out/campaign.json" '1 if d["status"].startswith("interrupted") else 0')" 1 1
grep -q "^campaign t-setup-int: interrupted" "$T/out.log" || fe_fail "no 'interrupted' status line"
! grep -Eq "did not come up|setup failed" "$T/out.log" || fe_fail "a Ctrl-C reported as a failed setup"
left=$(leftovers)
[ -z "$left" ] || fe_fail "left behind: $left"
if [ -z "$others" ] && [ -z "$(ls /run/fabemu/testbed-* 2>/dev/null || true)" ]; then
	[ "$(cat /sys/devices/virtual/workqueue/cpumask)" = "$WQ" ] ||
		fe_fail "the workqueues' cores were not given back: $(cat /sys/devices/virtual/workqueue/cpumask), was $WQ"
fi
echo "  ok   no namespace, veth, record, socket or DPDK directory left; workqueues as before"
echo "campaign_setup_int: passed"
