#!/usr/bin/env bash
# veth testbed: N hosts, each a network namespace joined to the dataplane by a veth pair.
#
#   testbeds/veth.sh up N [--name NAME] [--cc ALG]
#                                           create hosts NAME-h1 .. NAME-hN
#   testbeds/veth.sh down [--name NAME]     remove what `up` created (and nothing else)
#   testbeds/veth.sh vdevs [--name NAME] [--pmd af_packet|af_xdp] [--ring FRAMES]
#                                           print the EAL --vdev options for fabemu-dp
#   testbeds/veth.sh status [--name NAME]
#
# Host i lives in namespace NAME-hi with interface eth0, MAC 02:fe:00:00:00:<i>, IPv4
# 198.18.0.<i>/24 (the benchmarking range, RFC 2544). Its veth peer NAME-hi stays in
# the root namespace, where fabemu-dp opens it. NAME defaults to "fe". Each host's TCP
# congestion control is set to ALG (default cubic, Linux's own default), so results do
# not depend on what the machine running the testbed chose (BBR, say, ignores ECN).
#
# The edge ring (frames the kernel can hold for the dataplane) is what absorbs TCP's
# line-rate bursts from a host: AF_PACKET's is FRAMES long (default 16384, 32 MiB per
# port); AF_XDP's fill ring is fixed at 2048 frames by DPDK 22.11's PMD, so bursts
# beyond it are dropped at the edge (counted as imissed). Lossless regimes with
# window-limited TCP want AF_PACKET.
#
# What `up` creates is recorded in /run/fabemu/testbed-NAME; `down` removes exactly
# that. `up` refuses to touch a namespace or interface that already exists.
set -euo pipefail

STATE_DIR=${FABEMU_STATE_DIR:-/run/fabemu}
NAME=fe
PMD=af_packet
CC=cubic
RING=16384
MAX_HOSTS=64

die() { echo "veth.sh: $*" >&2; exit 1; }

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

state_file() { echo "$STATE_DIR/testbed-$NAME"; }

# Remove every namespace and link recorded in the state file, then the file.
down() {
	local f; f=$(state_file)
	[ -f "$f" ] || return 0
	while read -r kind obj; do
		case "$kind" in
		netns) ip netns del "$obj" 2>/dev/null || true ;;
		link) ip link del "$obj" 2>/dev/null || true ;;
		allowed)
			# the machine's list of congestion controls, as it was before `up`, unless
			# another testbed still runs on what was added
			[ -n "$(ls "$STATE_DIR"/testbed-* 2>/dev/null | grep -vx "$f")" ] ||
				sysctl -qw "net.ipv4.tcp_allowed_congestion_control=$obj" || true ;;
		esac
	done < <(tac "$f")
	rm -f "$f"
}

# Hosts (non-initial namespaces) may only choose congestion controls the machine allows;
# add ours to the list if needed, and record the list so `down` can put it back.
allow_cc() {
	local f=$1 allowed
	allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	grep -qw -- "$CC" <<<"$allowed" && return 0
	echo "allowed $allowed" >>"$f"
	sysctl -qw "net.ipv4.tcp_allowed_congestion_control=$allowed $CC"
}

up() {
	local n=$1 f i ns ifc
	[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le $MAX_HOSTS ] ||
		die "number of hosts '$n' must be 1 to $MAX_HOSTS"
	f=$(state_file)
	[ -e "$f" ] && die "testbed '$NAME' is already up ($f); run: $0 down --name $NAME"
	for i in $(seq 1 "$n"); do
		ns="$NAME-h$i"
		ip netns list | awk '{print $1}' | grep -qx "$ns" &&
			die "namespace '$ns' exists and was not made by this testbed; not touching it"
		ip link show "$ns" >/dev/null 2>&1 &&
			die "interface '$ns' exists and was not made by this testbed; not touching it"
	done
	mkdir -p "$STATE_DIR"
	: >"$f"
	# from here on, a failure or a signal removes what was made so far
	trap 'down; exit 1' ERR
	trap 'down; exit 130' INT TERM
	allow_cc "$f"
	for i in $(seq 1 "$n"); do
		ns="$NAME-h$i"
		ifc="$NAME-h$i"
		ip netns add "$ns"
		echo "netns $ns" >>"$f"
		ip link add "$ifc" type veth peer name eth0 netns "$ns"
		echo "link $ifc" >>"$f"
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
		ip -n "$ns" link set eth0 up
	done
	trap - ERR INT TERM
}

vdevs() {
	local f i=0 ifc
	f=$(state_file)
	[ -f "$f" ] || die "testbed '$NAME' is not up"
	while read -r kind ifc; do
		[ "$kind" = link ] || continue
		case "$PMD" in
		af_packet) printf -- '--vdev=net_af_packet%d,iface=%s,qpairs=1,framecnt=%d,framesz=2048,blocksz=4096 ' \
			"$i" "$ifc" "$RING" ;;
		af_xdp) printf -- '--vdev=net_af_xdp%d,iface=%s,start_queue=0,queue_count=1 ' "$i" "$ifc" ;;
		*) die "unknown PMD '$PMD' (af_packet or af_xdp)" ;;
		esac
		i=$((i + 1))
	done <"$f"
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
-h | --help | help) usage; exit 0 ;;
esac
while [ $# -gt 0 ]; do
	case "$1" in
	--name) NAME=${2:?--name needs a value}; shift 2 ;;
	--pmd) PMD=${2:?--pmd needs a value}; shift 2 ;;
	--cc) CC=${2:?--cc needs a value}; shift 2 ;;
	--ring) RING=${2:?--ring needs a value}; shift 2 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[[ "$NAME" =~ ^[a-z][a-z0-9]{0,5}$ ]] || die "name '$NAME' must be 1-6 lower-case letters/digits"
[[ "$RING" =~ ^[0-9]+$ ]] && [ "$RING" -ge 64 ] && [ "$RING" -le 262144 ] ||
	die "ring '$RING' must be 64 to 262144 frames"
[ "$(id -u)" = 0 ] || die "must run as root (namespaces and links)"
grep -qw -- "$CC" /proc/sys/net/ipv4/tcp_available_congestion_control ||
	die "congestion control '$CC' is not available (have: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control))"

case "$cmd" in
up) up "$count" ;;
down) down ;;
vdevs) vdevs ;;
status) status ;;
*) die "unknown command '$cmd' (up, down, vdevs, status)" ;;
esac
