#!/usr/bin/env bash
# The fabemu image (Containerfile), built with podman from Debian 12 alone, then tried
# as a containerlab node: its container gets two data interfaces the way containerlab
# wires them (a veth pair made outside, one end moved into the container's namespace and
# renamed eth1, eth2; the other in a host's namespace), fabemu-node starts fabemu-dp on
# them (AF_PACKET, then AF_XDP), and the two hosts ping each other through it, at the
# lab's delay.
#
#   testbeds/containerlab/image.sh [build | test | all]    (default: all; root)
#
# build: a Debian 12 root by debootstrap from the archive (the mirror apt uses here),
#        imported as localhost/fabemu-debian:12 (once), then localhost/fabemu:latest
# test:  the node and the pings; everything it made is removed on exit, error and Ctrl-C
#
# podman on this kind of machine: crun refuses a cgroup v1 + v2 hybrid and podman's
# default open-file limit is above what the machine allows, so it runs with runc and
# lower limits (a containers.conf of our own, CONTAINERS_CONF).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WHAT=${1:-all}
BASE=localhost/fabemu-debian:12
IMAGE=localhost/fabemu:latest
NAME=fe-clab-node
H1=fe-clab-h1
H2=fe-clab-h2
WORK=$(mktemp -d /tmp/fe-image.XXXXXX)

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	podman rm -f -t 2 "$NAME" >/dev/null 2>&1 || true
	ip netns del "$H1" 2>/dev/null || true
	ip netns del "$H2" 2>/dev/null || true
	ip link del fe-clab-a1 2>/dev/null || true
	ip link del fe-clab-a2 2>/dev/null || true
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "image.sh: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run as root"
for c in podman runc debootstrap; do
	command -v "$c" >/dev/null || fail "$c missing (apt-get install podman runc debootstrap)"
done
cat >"$WORK/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$WORK/containers.conf

mirror() { # the Debian mirror apt uses here
	sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 |
		grep . || awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null |
		grep . || echo http://deb.debian.org/debian
}

build() {
	local t0=$SECONDS
	if ! podman image exists "$BASE"; then
		echo "debootstrap: Debian 12 (bookworm, minbase) from $(mirror)"
		debootstrap --variant=minbase bookworm "$WORK/root" "$(mirror)" >"$WORK/deboot.log" 2>&1 ||
			{ tail -5 "$WORK/deboot.log"; fail "debootstrap"; }
		rm -rf "$WORK"/root/var/cache/apt/archives/*.deb "$WORK"/root/var/lib/apt/lists/*
		tar -C "$WORK/root" -c . | podman import -q - "$BASE" >/dev/null
		rm -rf "$WORK/root"
	fi
	echo "podman build: $IMAGE (Containerfile: Debian's packages, fabemu built in the image)"
	podman build --network host -f "$ROOT/testbeds/containerlab/Containerfile" -t "$IMAGE" \
		"$ROOT" >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; fail "podman build"; }
	echo "  ok   $IMAGE built in $((SECONDS - t0)) s ($(podman image inspect -f '{{.Size}}' "$IMAGE" |
		awk '{printf "%.0f MB", $1 / 1e6}'); $(grep -o 'ccache [A-Z][a-z]*: *[0-9]*' "$WORK/build.log" |
		sed 's/: */ /' | paste -sd, - | sed 's/,/, /g' | grep . || echo 'no compile: cached'))"
}

unwire() { # the node and its hosts, gone
	podman rm -f -t 2 "$NAME" >/dev/null 2>&1 || true
	ip netns del "$H1" 2>/dev/null || true
	ip netns del "$H2" 2>/dev/null || true
}

test_node() {
	local out
	podman image exists "$IMAGE" || fail "$IMAGE: build it first (image.sh build)"
	out=$(podman run --rm --network none "$IMAGE" fabemu-dp --version 2>&1) ||
		fail "fabemu-dp in the image: $out"
	echo "  ok   in the image: $out"
	test_pmd af_packet
	unwire
	test_pmd af_xdp
}

test_pmd() { # PMD: the node on its two links through that PMD
	local pid out
	# the node: no network but what containerlab gives it; fabemu-node waits for 2 links
	podman run -d --name "$NAME" --network none --privileged \
		-e CLAB_INTFS=2 -e FABEMU_PMD="$1" -e FABEMU_PROFILE=ideal \
		-e FABEMU_LINKS="all:delay=5ms" "$IMAGE" >/dev/null
	pid=$(podman inspect -f '{{.State.Pid}}' "$NAME")
	[ -n "$pid" ] && [ "$pid" != 0 ] || fail "the node did not start"
	# the wiring containerlab makes: a veth pair a link, made outside, one end moved into
	# the node and renamed ethN, the other into the host (here a namespace: a container)
	for i in 1 2; do
		local h=$H1
		[ "$i" = 2 ] && h=$H2
		ip netns add "$h"
		ip link add "fe-clab-a$i" type veth peer name "fe-clab-b$i"
		ip link set "fe-clab-a$i" netns "$pid"
		nsenter -t "$pid" -n ip link set "fe-clab-a$i" name "eth$i"
		ip link set "fe-clab-b$i" netns "$h"
		ip -n "$h" link set "fe-clab-b$i" name eth1
		ip -n "$h" addr add "198.18.0.$i/24" dev eth1
		ip -n "$h" link set eth1 up
		ip -n "$h" link set lo up
		ip netns exec "$h" ethtool -K eth1 tx off >/dev/null # checksums, as containerlab does
	done
	# fabemu-dp on eth1 and eth2: the hosts reach each other through it, 2 x 5 ms a way
	for _ in $(seq 100); do
		ip netns exec "$H1" ping -c 1 -W 1 198.18.0.2 >/dev/null 2>&1 && break
		podman container exists "$NAME" && [ "$(podman inspect -f '{{.State.Running}}' "$NAME")" = true ] ||
			{ podman logs "$NAME" | tail -20; fail "the node stopped"; }
		sleep 0.2
	done
	out=$(ip netns exec "$H1" ping -c 5 -i 0.2 198.18.0.2) || { podman logs "$NAME" | tail -20; fail "ping: $out"; }
	local avg
	avg=$(sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p' <<<"$out")
	awk -v a="$avg" 'BEGIN { exit !(a >= 19.5 && a < 40) }' ||
		fail "ping through the node: $avg ms, want about 20 (2 links x 5 ms, both ways)"
	echo "  ok   $1: two hosts wired as containerlab wires them ping through the node: $avg ms (20 set)"
	out=$(podman exec "$NAME" fabemuctl counters | grep -c '^ *[0-9]\.\(up\|down\)' || true)
	[ "$out" -ge 4 ] || fail "fabemuctl in the node: $out links"
	echo "  ok   $1: fabemuctl inside the node reads its counters ($out links)"
}

case "$WHAT" in
build) build ;;
test) test_node ;;
all) build && test_node ;;
*) fail "usage: image.sh [build | test | all]" ;;
esac
