#!/usr/bin/env bash
# veth testbed: N hosts, each a network namespace joined to the dataplane by a veth pair.
#
#   testbeds/veth.sh up N [--name NAME] [--cc ALG] [--cores shared|split] [--mtu M]
#                                           create hosts NAME-h1 .. NAME-hN
#   testbeds/veth.sh down [--name NAME]     remove what `up` created (and nothing else)
#   testbeds/veth.sh vdevs [--name NAME] [--pmd af_packet|af_xdp] [--ring FRAMES]
#                                           print the EAL --vdev options for fabemu-dp
#   testbeds/veth.sh status [--name NAME]
#   testbeds/veth.sh bridge [--name NAME]   join the hosts with a Linux bridge NAME-br
#                                           (the wire: the testbed without fabemu)
#   testbeds/veth.sh unbridge [--name NAME] take the bridge away again
#   testbeds/veth.sh mtu N [--name NAME]    set the MTU of every host and its peer
#   testbeds/veth.sh cpus [--name NAME]     the hosts' cores with --cores split (else
#                                           nothing): run the hosts' programs there
#
# --cores split gives core 0 to the network (the dataplane's lcore, -l 0) and the other
# cores to the hosts: their receive processing goes there (RPS on their eth0), and so
# do the kernel's movable threads (kdamond, rcu_preempt...), the unbound workqueues'
# workers and the interrupts that can move, which would otherwise take core 0 from the
# dataplane for a millisecond at a time; the hosts' receive backlog (netdev_max_backlog)
# grows to 16384 frames; `down` puts them all back. Run the hosts' programs with taskset -c on
# `veth.sh cpus` (campaigns do). shared (the default) changes nothing of the machine's.
# While the bridge is up the interfaces belong to it: no dataplane may open them.
#
# Host i lives in namespace NAME-hi with interface eth0, MAC 02:fe:00:00:00:<i>, IPv4
# 198.18.0.<i>/24 (the benchmarking range, RFC 2544). Its veth peer NAME-hi stays in
# the root namespace, where fabemu-dp opens it. NAME defaults to "fe". Each host's TCP
# congestion control is set to ALG (default cubic, Linux's own default), so results do
# not depend on what the machine running the testbed chose (BBR, say, ignores ECN).
#
# The edge ring (frames the kernel can hold for the dataplane) is what absorbs TCP's
# line-rate bursts from a host: AF_PACKET's is FRAMES long (default 16384, 32 MiB per
# port; above MTU 1900 the slots grow and there are as many fewer of them); AF_XDP's
# fill ring is fixed at 2048 frames by DPDK 22.11's PMD, so bursts beyond it are
# dropped at the edge (counted by fabemu-dp as the interface's rx_dropped). Lossless
# regimes with window-limited TCP want AF_PACKET.
#
# What `up` creates is recorded in /run/fabemu/testbed-NAME, each item before it is
# made; `down` removes exactly that, and the record last (a second Ctrl-C does not stop
# it): a testbed that `up` left halfway, interrupted or killed, goes with `down --name`.
# `up` refuses to touch a namespace or interface that already exists.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cc.sh" # the allowed congestion controls, shared with tests

STATE_DIR=${FABEMU_STATE_DIR:-/run/fabemu}
NAME=fe
PMD=af_packet
CC=cubic
RING=16384
CORES=shared
UP_MTU=
MAX_HOSTS=64

die() { echo "veth.sh: $*" >&2; exit 1; }

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

state_file() { echo "$STATE_DIR/testbed-$NAME"; }

# Remove every namespace and link recorded in the state file, then the file: the record
# goes last, so that until everything in it is gone `down` can run again. A second Ctrl-C
# (or TERM, HUP) must not stop a cleanup halfway: they are ignored from here on, and so
# by the commands run from here (the record is read whole first: a reader killed
# halfway would lose the rest of it).
down() {
	local f line kind obj i comm
	local -a lines
	f=$(state_file)
	trap '' INT TERM HUP
	[ -f "$f" ] || return 0
	mapfile -t lines <"$f"
	for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
		line=${lines[i]}
		kind=${line%% *}
		obj=${line#* }
		case "$kind" in
		cores) ;;
		netns) ip netns del "$obj" 2>/dev/null || true ;;
		link) ip link del "$obj" 2>/dev/null || true ;;
		affinity)
			# a kernel thread's cores before `up` moved it (it may have gone since, and
			# its PID gone to another: the name must still be the same)
			set -- $obj
			comm=
			read -r comm 2>/dev/null <"/proc/$1/comm" || true
			[ "$comm" = "${3-}" ] && taskset -pc "$2" "$1" >/dev/null 2>&1 || true ;;
		setting)
			set -- $obj
			echo "$2" >"$1" 2>/dev/null || true ;;
		allowed) ;; # below, with the record
		esac
	done
	# the record goes, and with it the machine's list of congestion controls as it was
	# before `up`: put back, or left to another testbed or test still running on what
	# was added (cc.sh)
	cc_leave "$f"
}

# Hosts (non-initial namespaces) may only choose congestion controls the machine allows;
# add ours to the list if needed, and record the list so `down` can put it back.
allow_cc() { cc_allow "$CC" "$1"; }

up() {
	local n=$1 f i ns ifc
	[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le $MAX_HOSTS ] ||
		die "number of hosts '$n' must be 1 to $MAX_HOSTS"
	f=$(state_file)
	[ -e "$f" ] && die "testbed '$NAME' is already up ($f); run: $0 down --name $NAME"
	for i in $(seq 1 "$n"); do
		ns="$NAME-h$i"
		ip netns list | awk '{print $1}' | grep -x "$ns" >/dev/null &&
			die "namespace '$ns' exists and was not made by this testbed; not touching it"
		ip link show "$ns" >/dev/null 2>&1 &&
			die "interface '$ns' exists and was not made by this testbed; not touching it"
	done
	mkdir -p "$STATE_DIR"
	# from here on, a failure or a signal removes what was made so far; everything is
	# recorded before it is made, so that a signal between the two leaves nothing that
	# `down` does not know of
	trap 'down; exit 1' ERR
	trap 'down; exit 130' INT TERM HUP
	: >"$f"
	allow_cc "$f"
	for i in $(seq 1 "$n"); do
		ns="$NAME-h$i"
		ifc="$NAME-h$i"
		echo "netns $ns" >>"$f"
		ip netns add "$ns"
		echo "link $ifc" >>"$f"
		ip link add "$ifc" type veth peer name eth0 netns "$ns"
		# The dataplane side carries no IP traffic of its own: no addresses, no IPv6
		# router/neighbour solicitations leaking into the fabric.
		sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=1"
		ip link set "$ifc" up
		ip -n "$ns" link set lo up
		ip -n "$ns" link set eth0 address "$(printf '02:fe:00:00:00:%02x' "$i")"
		ip -n "$ns" addr add "198.18.0.$i/24" dev eth0
		# veth leaves TCP/UDP checksums to be filled in later (CHECKSUM_PARTIAL). A frame
		# that crosses AF_PACKET/AF_XDP into the dataplane leaves the kernel with that
		# checksum never computed and the receiver drops it: compute it on the host.
		ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null
		ip netns exec "$ns" sysctl -qw "net.ipv4.tcp_congestion_control=$CC"
		# each connection starts afresh: Linux otherwise keeps a destination's ssthresh
		# from the last connection's losses, and a run would start slower after a lossy
		# one (runs in turn on one testbed, the regimes of a campaign, are compared)
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_no_metrics_save=1
		# split: what the host receives is processed on the hosts' cores, not in the
		# context of whoever sent it (the dataplane's lcore, on core 0)
		[ "$CORES" = split ] && [ -n "$(host_cpus)" ] &&
			ip netns exec "$ns" sh -c "echo $(cpu_mask) > /sys/class/net/eth0/queues/rx-0/rps_cpus"
		ip -n "$ns" link set eth0 up
	done
	[ "$CORES" = split ] && split_cores "$f"
	trap - ERR INT TERM HUP
}

# The machine's cores (not nproc: it counts those this process may run on, and a
# campaign runs on the hosts' cores only).
ncpus() { getconf _NPROCESSORS_ONLN; }

# The hosts' cores as the kernel's cpumask (for RPS, the workqueues): all but core 0,
# in 32-bit words, the highest first, separated by commas.
cpu_mask() {
	local n w words out="" bits c
	n=$(ncpus)
	words=$(((n + 31) / 32))
	for ((w = words - 1; w >= 0; w--)); do
		bits=0
		for ((c = w * 32; c < n && c < (w + 1) * 32; c++)); do
			[ "$c" -eq 0 ] || bits=$((bits | (1 << (c - w * 32))))
		done
		out+=$(printf '%s%08x' "${out:+,}" "$bits")
	done
	echo "$out"
}

# The hosts' cores: all but core 0 (empty on a machine with one).
host_cpus() {
	local n
	n=$(ncpus)
	[ "$n" -ge 2 ] || return 0
	[ "$n" -eq 2 ] && echo 1 || echo "1-$((n - 1))"
}

# --cores split: the kernel's movable threads off core 0, recorded for `down`.
split_cores() {
	local f=$1 cpus pid aff flags stat comm
	local -a fields
	cpus=$(host_cpus)
	[ -n "$cpus" ] || { echo "veth.sh: one core: --cores split does nothing" >&2; return 0; }
	echo "cores $cpus" >>"$f"
	# /proc read with the shell's builtins: commands for each of the ~60 threads took seconds
	for pid in $(ps -eo pid=,ppid= | awk '$2 == 2 || $1 == 2 {print $1}'); do
		cpus_allowed "$pid" || continue
		[ -n "$aff" ] && [ "$aff" != "$cpus" ] || continue
		# per-CPU threads (ksoftirqd/0, migration/0, ...) cannot move
		# (PF_NO_SETAFFINITY, 0x04000000 in their flags): they stay
		read -r stat 2>/dev/null <"/proc/$pid/stat" || continue
		read -ra fields <<<"${stat##*) }"
		flags=${fields[6]:-}
		[ -n "$flags" ] && [ $((flags & 0x04000000)) = 0 ] || continue
		read -r comm 2>/dev/null <"/proc/$pid/comm" || continue
		echo "affinity $pid $aff $comm" >>"$f"
		taskset -pc "$cpus" "$pid" >/dev/null 2>&1 || true
	done
	# the unbound workqueues' workers, and the interrupts that can move
	set_file /sys/devices/virtual/workqueue/cpumask "$(cpu_mask)" "$f"
	# every host's receive processing now queues on the hosts' cores: their backlog is
	# the hosts' NIC ring, 1000 frames for all of them by default (a burst of the
	# dataplane's overflowed it); 16384, as a NIC's rings would hold for four hosts
	set_file /proc/sys/net/core/netdev_max_backlog 16384 "$f"
	for irq in /proc/irq/[0-9]*; do
		set_file "$irq/smp_affinity_list" "$cpus" "$f"
	done
	return 0
}

# A thread's cores into aff (Cpus_allowed_list: "0-1", as taskset takes them); 1 if it
# is gone.
cpus_allowed() {
	local key value
	aff=
	[ -r "/proc/$1/status" ] || return 1
	while read -r key value; do
		[ "$key" = Cpus_allowed_list: ] && aff=$value
	done 2>/dev/null <"/proc/$1/status"
	return 0
}

# Write value to a kernel setting, its old value recorded first for `down` (if the
# setting does not take, `down` writes back what is there anyway).
set_file() {
	local file=$1 value=$2 f=$3 old
	read -r old 2>/dev/null <"$file" || [ -r "$file" ] || return 0
	[ "$old" != "$value" ] || return 0
	echo "setting $file $old" >>"$f"
	echo "$value" >"$file" 2>/dev/null || true
}

cpus() {
	local f
	f=$(state_file)
	[ -f "$f" ] || die "testbed '$NAME' is not up"
	awk '$1 == "cores" {print $2}' "$f"
}

# The hosts' own links, in the order `up` made them.
host_links() {
	awk '$1 == "link" && $2 !~ /-br$/ {print $2}' "$(state_file)"
}

# The wire: the hosts joined by a Linux bridge, with no netfilter on it, learning,
# forwarding at once (no STP). Recorded, so that `down` removes it whatever happens.
bridge() {
	local f br ifc
	f=$(state_file)
	[ -f "$f" ] || die "testbed '$NAME' is not up"
	br="$NAME-br"
	ip link show "$br" >/dev/null 2>&1 && die "bridge '$br' exists already"
	echo "link $br" >>"$f"
	ip link add "$br" type bridge stp_state 0 forward_delay 0 nf_call_iptables 0 \
		nf_call_ip6tables 0 nf_call_arptables 0
	sysctl -qw "net.ipv6.conf.$br.disable_ipv6=1"
	for ifc in $(host_links); do
		ip link set "$ifc" master "$br"
		# split: the bridge's work on core 0, the network's, as fabemu-dp's is
		[ -n "$(cpus)" ] && echo 1 >"/sys/class/net/$ifc/queues/rx-0/rps_cpus"
	done
	ip link set "$br" up
}

unbridge() {
	local f br
	f=$(state_file)
	br="$NAME-br"
	[ -f "$f" ] || die "testbed '$NAME' is not up"
	ip link del "$br" 2>/dev/null || true
	for ifc in $(host_links); do
		echo 0 >"/sys/class/net/$ifc/queues/rx-0/rps_cpus" 2>/dev/null || true
	done
	sed -i "/^link $br\$/d" "$f"
}

check_mtu() {
	[[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 576 ] && [ "$1" -le 9000 ] || die "mtu '$1' must be 576 to 9000"
}

mtu() {
	local m=$1 f ifc i=0
	f=$(state_file)
	[ -f "$f" ] || die "testbed '$NAME' is not up"
	check_mtu "$m"
	for ifc in $(host_links); do
		i=$((i + 1))
		ip link set "$ifc" mtu "$m"
		ip -n "$NAME-h$i" link set eth0 mtu "$m"
	done
}

vdevs() {
	local f i=0 ifc mtu fsz=2048 frames=$RING
	f=$(state_file)
	[ -f "$f" ] || die "testbed '$NAME' is not up"
	# a ring slot holds a whole frame after its header: above MTU 1900, larger slots,
	# and as many fewer of them as keeps the ring's memory (so its bytes) the same
	mtu=$(cat "/sys/class/net/$(host_links | head -1)/mtu")
	while [ $((fsz - 128)) -lt "$mtu" ]; do fsz=$((fsz * 2)); done
	frames=$((RING * 2048 / fsz))
	for ifc in $(host_links); do
		case "$PMD" in
		af_packet) printf -- '--vdev=net_af_packet%d,iface=%s,qpairs=1,framecnt=%d,framesz=%d,blocksz=%d ' \
			"$i" "$ifc" "$frames" "$fsz" "$((fsz > 4096 ? fsz : 4096))" ;;
		af_xdp) printf -- '--vdev=net_af_xdp%d,iface=%s,start_queue=0,queue_count=1 ' "$i" "$ifc" ;;
		*) die "unknown PMD '$PMD' (af_packet or af_xdp)" ;;
		esac
		i=$((i + 1))
	done
	echo
}

status() {
	local f; f=$(state_file)
	[ -f "$f" ] || { echo "testbed '$NAME': down"; return 0; }
	echo "testbed '$NAME': up"
	cat "$f"
}

cmd=${1:-}
[ -n "$cmd" ] || { usage; exit 2; }
shift
count=
case "$cmd" in
up) count=${1:-}; [ -n "$count" ] || die "up needs a number of hosts"; shift ;;
mtu) count=${1:-}; [ -n "$count" ] || die "mtu needs a value"; shift ;;
-h | --help | help) usage; exit 0 ;;
esac
while [ $# -gt 0 ]; do
	case "$1" in
	--name) NAME=${2:?--name needs a value}; shift 2 ;;
	--pmd) PMD=${2:?--pmd needs a value}; shift 2 ;;
	--cc) CC=${2:?--cc needs a value}; shift 2 ;;
	--ring) RING=${2:?--ring needs a value}; shift 2 ;;
	--cores) CORES=${2:?--cores needs a value}; shift 2 ;;
	--mtu) UP_MTU=${2:?--mtu needs a value}; shift 2 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[[ "$NAME" =~ ^[a-z][a-z0-9]{0,5}$ ]] || die "name '$NAME' must be 1-6 lower-case letters/digits"
[[ "$RING" =~ ^[0-9]+$ ]] && [ "$RING" -ge 64 ] && [ "$RING" -le 262144 ] ||
	die "ring '$RING' must be 64 to 262144 frames"
[ "$CORES" = shared ] || [ "$CORES" = split ] || die "cores '$CORES' must be shared or split"
[ -z "$UP_MTU" ] || check_mtu "$UP_MTU"
[ "$(id -u)" = 0 ] || die "must run as root (namespaces and links)"
grep -qw -- "$CC" /proc/sys/net/ipv4/tcp_available_congestion_control ||
	die "congestion control '$CC' is not available (have: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control))"

case "$cmd" in
up) up "$count"; [ -z "$UP_MTU" ] || mtu "$UP_MTU" ;;
down) down ;;
vdevs) vdevs ;;
status) status ;;
bridge) bridge ;;
unbridge) unbridge ;;
mtu) mtu "$count" ;;
cpus) cpus ;;
*) die "unknown command '$cmd' (up, down, vdevs, status, bridge, unbridge, mtu, cpus)" ;;
esac
