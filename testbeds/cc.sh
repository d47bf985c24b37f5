# shellcheck shell=bash
# The machine's allowed congestion controls, changed and put back in one way by all that
# changes them: testbeds/veth.sh for its hosts, and tests that make namespaces of their own
# (lib.sh: fe_allow_cc). Only the initial namespace may set a congestion control the
# machine does not allow (EPERM elsewhere: a fresh machine allows only "reno" and its
# default, here bbr), so one a namespace needs is added to the list.
#
# Each holder keeps a record file in the state directory ($FABEMU_STATE_DIR, else
# /run/fabemu): veth.sh its testbed's (testbed-NAME), a test its own (cc-NAME). The one
# that added to the list records the list as it was ("allowed LIST"); one that found it
# there records nothing. The last holder to go puts the list back: one going while others
# remain hands its record to one of them.
#
# Sourced by veth.sh and lib.sh; needs bash.

CC_STATE_DIR=${FABEMU_STATE_DIR:-/run/fabemu}

# cc_allow ALG RECORD: ALG allowed; the list as it was appended to RECORD if it was added.
cc_allow() {
	local allowed
	allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	grep -qw -- "$1" <<<"$allowed" && return 0
	echo "allowed $allowed" >>"$2"
	sysctl -qw "net.ipv4.tcp_allowed_congestion_control=$allowed $1"
}

# cc_release RECORD LIST: RECORD's holder goes, and LIST is what its record said the list
# was: put back, or handed to another holder while any remains. A holder that has a
# record of its own keeps the older one: the shorter list (each holder only appends).
# RECORD itself is left to its holder to remove.
cc_release() {
	local other theirs
	other=$(ls "$CC_STATE_DIR"/testbed-* "$CC_STATE_DIR"/cc-* 2>/dev/null | grep -vxF -- "$1" |
		head -1 || true)
	if [ -z "$other" ]; then
		sysctl -qw "net.ipv4.tcp_allowed_congestion_control=$2" || true
		return 0
	fi
	theirs=$(sed -n 's/^allowed //p' "$other" | head -1)
	if [ -z "$theirs" ]; then
		echo "allowed $2" >>"$other"
	elif [ "$(wc -w <<<"$2")" -lt "$(wc -w <<<"$theirs")" ]; then
		sed -i "s/^allowed .*/allowed $2/" "$other"
	fi
}
