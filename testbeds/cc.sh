# shellcheck shell=bash
# The machine's allowed congestion controls, changed and put back in one way by all that
# changes them: testbeds/veth.sh for its hosts, and tests that make namespaces of their own
# (lib.sh: fe_allow_cc). Only the initial namespace may set a congestion control the
# machine does not allow (EPERM elsewhere: a fresh machine allows only "reno" and its
# default, here bbr), so one a namespace needs is added to the list.
#
# Each holder keeps a record file in the state directory ($FABEMU_STATE_DIR, else
# /run/fabemu): veth.sh its testbed's (testbed-NAME), a test its own (cc-NAME-PID). The one
# that added to the list records the list as it was ("allowed LIST"); one that found it
# there records nothing. The last holder to go puts the list back: one going while others
# remain hands its record to one of them. A test's record whose process is gone (killed
# before its cleanup) is taken as gone with it. Adding and going each hold a lock
# (on the state directory itself), so that holders going at once lose nothing.
#
# Sourced by veth.sh and lib.sh; needs bash.

CC_STATE_DIR=${FABEMU_STATE_DIR:-/run/fabemu}

# cc_locked CMD...: CMD run holding the lock on the list and the records: the state
# directory's own (flock on the directory: no lock file to leave behind).
cc_locked() {
	local fd rc=0
	mkdir -p "$CC_STATE_DIR"
	exec {fd}<"$CC_STATE_DIR"
	flock "$fd"
	"$@" || rc=$?
	exec {fd}>&-
	return "$rc"
}

# cc_allow ALG RECORD: ALG allowed; the list as it was appended to RECORD if it was added.
cc_allow() { cc_locked cc_allow_ "$@"; }
cc_allow_() {
	local allowed
	allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	grep -qw -- "$1" <<<"$allowed" && return 0
	echo "allowed $allowed" >>"$2"
	sysctl -qw "net.ipv4.tcp_allowed_congestion_control=$allowed $1"
}

# cc_leave RECORD: RECORD's holder goes: the list its record holds (if any) put back, or
# handed to another holder while any remains; RECORD removed.
cc_leave() { cc_locked cc_leave_ "$1"; }
cc_leave_() {
	local f=$1 was o other theirs
	was=$(cc_list "$f")
	for o in "$CC_STATE_DIR"/cc-*; do # tests killed before their cleanup
		[ -f "$o" ] && [ "$o" != "$f" ] && ! kill -0 "${o##*-}" 2>/dev/null || continue
		was=$(cc_older "$was" "$(cc_list "$o")")
		rm -f "$o"
	done
	other=$(ls "$CC_STATE_DIR"/testbed-* "$CC_STATE_DIR"/cc-* 2>/dev/null | grep -vxF -- "$f" |
		head -1 || true)
	if [ -n "$was" ] && [ -z "$other" ]; then
		sysctl -qw "net.ipv4.tcp_allowed_congestion_control=$was" || true
	elif [ -n "$was" ]; then
		theirs=$(cc_list "$other")
		if [ -z "$theirs" ]; then
			echo "allowed $was" >>"$other"
		elif [ "$(cc_older "$was" "$theirs")" != "$theirs" ]; then
			sed -i "s/^allowed .*/allowed $was/" "$other"
		fi
	fi
	rm -f "$f"
}

# cc_list RECORD: the list RECORD says was there before its holder added to it (or nothing).
cc_list() { sed -n 's/^allowed //p' "$1" 2>/dev/null | head -1; }

# cc_older A B: the older of two lists, either empty: the shorter (each holder only appends).
cc_older() {
	if [ -z "$1" ] || { [ -n "$2" ] && [ "$(wc -w <<<"$2")" -lt "$(wc -w <<<"$1")" ]; }; then
		echo "$2"
	else
		echo "$1"
	fi
}
