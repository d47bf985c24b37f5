#!/usr/bin/env bash
# The fabemu images, built with podman from Debian 12 alone, then tried as a containerlab
# lab: the node (Containerfile) and the hosts (Containerfile.host) as containers with no
# network but the links, each link a veth pair made outside at containerlab's default MTU
# (9,500), one end moved into the node and renamed eth1, eth2, the other into a host's
# container as its eth1. fabemu-node starts fabemu-dp on them (AF_PACKET, then AF_XDP),
# and the hosts ping each other through it, at the lab's delay and with 9,000-byte
# frames; then the node is held, and a campaign of testbed kind hosts, run in the node's
# network namespace, reaches the host containers by `podman exec` alone.
#
#   testbeds/containerlab/image.sh [build | test | all]    (default: all; root)
#
# build: a Debian 12 root by mmdebstrap from the archive (the mirror apt uses here),
#        imported as localhost/fabemu-debian:12 (once), then localhost/fabemu:latest and
#        localhost/fabemu-host:latest (podman's layer cache: a build that changed nothing
#        takes seconds)
# test:  the lab and the campaign (fabemuctl and fabemu-dp from $FABEMU_BIN, default
#        build/bin); everything it made is removed on exit, error and Ctrl-C
#
# podman on this kind of machine: crun refuses a cgroup v1 + v2 hybrid and podman's
# default open-file limit is above what the machine allows, so it runs with runc and
# lower limits (a containers.conf of our own, CONTAINERS_CONF).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${FABEMU_BIN:-$ROOT/build/bin}
WHAT=${1:-all}
BASE=localhost/fabemu-debian:12
IMAGE=localhost/fabemu:latest
BUILD_IMAGE=localhost/fabemu-build:latest
HOST_IMAGE=localhost/fabemu-host:latest
NAME=fe-clab-node
H1=fe-clab-h1
H2=fe-clab-h2
WORK=$(mktemp -d /tmp/fe-image.XXXXXX)
CAMPAIGN_PID=
HOST_BUILD_PID=

unwire() { # the node and its hosts, gone (their links with them)
	podman rm -f -t 2 "$NAME" "$H1" "$H2" >/dev/null 2>&1 || true
	ip link del fe-clab-a1 2>/dev/null || true
	ip link del fe-clab-a2 2>/dev/null || true
}
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "$CAMPAIGN_PID" ] && kill -0 "$CAMPAIGN_PID" 2>/dev/null; then
		kill -INT "$CAMPAIGN_PID" 2>/dev/null # it removes what it made, as on Ctrl-C
		for _ in $(seq 100); do kill -0 "$CAMPAIGN_PID" 2>/dev/null || break; sleep 0.1; done
	fi
	if [ -n "$HOST_BUILD_PID" ] && kill -0 "$HOST_BUILD_PID" 2>/dev/null; then
		kill -INT "$HOST_BUILD_PID" 2>/dev/null # podman build stops its container
		wait "$HOST_BUILD_PID" 2>/dev/null || true
	fi
	unwire
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
fail() { echo "image.sh: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run as root"
for c in podman runc mmdebstrap; do
	command -v "$c" >/dev/null || fail "$c missing (apt-get install podman runc mmdebstrap)"
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

image_size() { podman image inspect -f '{{.Size}}' "$1" | awk '{printf "%.0f MB", $1 / 1e6}'; }

build() {
	local t0=$SECONDS
	if ! podman image exists "$BASE"; then
		echo "mmdebstrap: Debian 12 (bookworm, minbase) from $(mirror)"
		# straight into podman as a tarball (apt's lists and downloads left out), its dpkg
		# without an fsync a file, as Debian's own container images have it: a build's
		# layer is written whole or not at all (the build stage's packages, 321 of them
		# then, installed in 88 s instead of 100)
		mmdebstrap --variant=minbase --dpkgopt=force-unsafe-io \
			--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr bookworm - "$(mirror)" \
			2>"$WORK/deboot.log" | podman import -q - "$BASE" >/dev/null || {
			# whatever podman imported of a root that failed: not a base for later runs
			podman rmi -f "$BASE" >/dev/null 2>&1 || true
			tail -5 "$WORK/deboot.log"
			fail "mmdebstrap"
		}
		echo "  ok   $BASE made in $((SECONDS - t0)) s"
		t0=$SECONDS
	fi
	echo "podman build: $IMAGE (Containerfile: Debian's packages, fabemu built in the image)"
	# the machine's compile cache, where tests/run.sh's builds went (the same sources,
	# compiled by the same Debian compiler: found there), if the machine has one
	local cache=() v
	if command -v ccache >/dev/null; then
		local dir
		dir=$(ccache -k cache_dir 2>/dev/null) && mkdir -p "$dir" &&
			cache=(-v "$dir:/ccache" --build-arg CCACHE_DIR=/ccache)
		# and the locale, which ccache hashes with a compile (LANG=C.UTF-8 here)
		for v in LANG LC_ALL LC_CTYPE LC_MESSAGES; do
			[ -z "${!v+set}" ] || cache+=(--build-arg "$v=${!v}")
		done
	fi
	# the packages this machine's apt downloaded (those of the same version are the
	# same files), seen by the builds' apt through an overlay: what it downloads or
	# cleans stays in the build, the machine's cache is left as it was (the build
	# stage's 109 MB: 16 s of downloading)
	local debs=()
	[ ! -d /var/cache/apt/archives ] || debs=(-v /var/cache/apt/archives:/var/cache/apt/archives:O)
	# the host image beside the fabemu image, and the fabemu image's two stages beside each
	# other (--jobs 2): each stage's dpkg keeps one core busy, and the build stage's is the
	# longest (cold, warm compile cache: 118 s for the three, against 128 to 135 one after
	# the other). Its build stage tagged too (from the layer cache), so that it stays as the
	# next build's cache while the stages of earlier builds, untagged, are pruned (1.2 GB each)
	podman build --network host "${debs[@]}" -f "$ROOT/testbeds/containerlab/Containerfile.host" \
		-t "$HOST_IMAGE" "$ROOT" >"$WORK/build-host.log" 2>&1 &
	HOST_BUILD_PID=$!
	podman build --jobs 2 --network host "${debs[@]}" "${cache[@]}" \
		-f "$ROOT/testbeds/containerlab/Containerfile" -t "$IMAGE" "$ROOT" \
		>"$WORK/build.log" 2>&1 &&
		podman build --network host "${debs[@]}" "${cache[@]}" \
			-f "$ROOT/testbeds/containerlab/Containerfile" --target build -t "$BUILD_IMAGE" "$ROOT" \
			>>"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; fail "podman build"; }
	echo "  ok   $IMAGE built in $((SECONDS - t0)) s ($(image_size "$IMAGE"); $(grep -o 'ccache [A-Z][a-z]*: *[0-9][0-9]*' "$WORK/build.log" |
		sed 's/: */ /' | paste -sd, - | sed 's/,/, /g' | grep . || echo 'no compile: cached'))"
	local host_rc=0
	wait "$HOST_BUILD_PID" || host_rc=$?
	HOST_BUILD_PID=
	[ "$host_rc" = 0 ] || { tail -20 "$WORK/build-host.log"; fail "podman build (the host image)"; }
	echo "  ok   $HOST_IMAGE built beside it ($(image_size "$HOST_IMAGE"))"
	prune_old
}

# What earlier builds of these images left: each build's stages and images, untagged
# once a later build took their tags (the Containerfiles' label org.fabemu.image).
prune_old() {
	local n
	n=$(podman images -q --filter dangling=true --filter label=org.fabemu.image | sort -u | wc -l)
	[ "$n" = 0 ] && return 0
	podman image prune -f --filter label=org.fabemu.image >/dev/null ||
		fail "podman image prune: the earlier builds' images"
	echo "  ok   removed $n image(s) earlier builds left untagged"
}

running() { [ "$(podman inspect -f '{{.State.Running}}' "$1" 2>/dev/null)" = true ]; }
node_log() { podman logs "$NAME" 2>&1 | tail -"${1:-20}"; }
# (its checks `CMD | grep ... >/dev/null`, never grep -q, which under pipefail can fail on
# its match: tests/tools/check-scripts.sh)

# wire MTU PMD [refused]: the lab as containerlab deploys it: the node and two hosts started with
# no network, then a veth pair a link (made outside, at MTU), one end moved into the node
# and renamed eth$i, the other into host i as its eth1; the hosts' addresses as the
# lab's exec: lines give them
wire() {
	local i h pid hpid
	podman run -d --name "$NAME" --network none --privileged \
		-e CLAB_INTFS=2 -e FABEMU_PMD="$2" -e CLAB_LABEL_FABEMU_PROFILE=ideal \
		-e FABEMU_LINKS="all:delay=5ms" "$IMAGE" >/dev/null
	pid=$(podman inspect -f '{{.State.Pid}}' "$NAME")
	[ -n "$pid" ] && [ "$pid" != 0 ] || fail "the node did not start"
	for i in 1 2; do
		h=fe-clab-h$i
		podman run -d --name "$h" --network none --privileged -e CLAB_INTFS=1 \
			"$HOST_IMAGE" >/dev/null
		hpid=$(podman inspect -f '{{.State.Pid}}' "$h")
		ip link add "fe-clab-a$i" mtu "$1" type veth peer name "fe-clab-b$i" mtu "$1"
		ip link set "fe-clab-b$i" netns "$hpid"
		nsenter -t "$hpid" -n ip link set "fe-clab-b$i" name eth1
		nsenter -t "$hpid" -n ip link set eth1 up
		podman exec "$h" ip addr add "198.18.0.$i/24" dev eth1
		ip link set "fe-clab-a$i" netns "$pid"
		nsenter -t "$pid" -n ip link set "fe-clab-a$i" name "eth$i"
	done
	[ "${3:-}" = refused ] && return 0 # the node stops, its links with it
	# the hosts' command (fabemu-host) turns their TX checksum offload off
	for h in "$H1" "$H2"; do
		for _ in $(seq 50); do
			podman exec "$h" ethtool -k eth1 | grep '^tx-checksumming: off' >/dev/null && break
			sleep 0.1
		done
		podman exec "$h" ethtool -k eth1 | grep '^tx-checksumming: off' >/dev/null ||
			fail "$h: fabemu-host left TX checksumming on"
	done
}

# ping_through [SIZE]: host 1 reaches host 2 through the node (waited for), then 5 pings
# of SIZE bytes of ICMP data, never fragmented (DF); prints their average in ms
ping_through() {
	local out size=${1:-56}
	for _ in $(seq 100); do
		podman exec "$H1" ping -c 1 -W 1 198.18.0.2 >/dev/null 2>&1 && break
		running "$NAME" || { node_log >&2; fail "the node stopped"; }
		sleep 0.2
	done
	out=$(podman exec "$H1" ping -M do -s "$size" -c 5 -i 0.2 198.18.0.2 2>&1) ||
		{ node_log >&2; fail "ping -M do -s $size: $out"; }
	sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p' <<<"$out"
}

delay_ok() { # AVG: about 20 ms (2 links x 5 ms, both ways)
	awk -v a="$1" 'BEGIN { exit !(a >= 19.5 && a < 40) }' ||
		fail "ping through the node: $1 ms, want about 20 (2 links x 5 ms, both ways)"
}

test_node() {
	local out
	podman image exists "$IMAGE" || fail "$IMAGE: build it first (image.sh build)"
	podman image exists "$HOST_IMAGE" || fail "$HOST_IMAGE: build it first (image.sh build)"
	out=$(podman run --rm --network none "$IMAGE" fabemu-dp --version 2>&1) ||
		fail "fabemu-dp in the image: $out"
	echo "  ok   in the image: $out"
	out=$(podman run --rm --network none "$HOST_IMAGE" sh -c \
		'for c in ip ss ping iperf3 ethtool sysctl; do command -v $c; done' | wc -l)
	[ "$out" = 6 ] || fail "the host image has $out of a campaign's 6 commands (ip ss ping iperf3 ethtool sysctl)"
	echo "  ok   in the host image: ip, ss, ping, iperf3, ethtool, sysctl"
	test_af_packet
	unwire
	test_refused
	unwire
	test_af_xdp
}

test_af_packet() {
	local avg out
	wire 9500 af_packet
	avg=$(ping_through 8972)
	delay_ok "$avg"
	node_log 1000 | grep -x 'fabemu-node: port 0: eth1, MTU 9500' >/dev/null ||
		fail "fabemu-node did not name eth1's MTU: $(node_log 10)"
	echo "  ok   af_packet: links at MTU 9500 (containerlab's default); 9000-byte packets, DF set, cross the node: $avg ms (20 set)"
	out=$(podman exec "$NAME" fabemuctl counters | grep -c '^ *[0-9]\.\(up\|down\)' || true)
	[ "$out" -ge 4 ] || fail "fabemuctl in the node: $out links"
	echo "  ok   af_packet: fabemuctl inside the node reads its counters ($out links)"
	test_campaign
}

# the node held; the links at 9000 (a campaign's largest MTU, as the example lab's mtu:
# 9000 gives them); a campaign run in the node's network namespace, its hosts the
# containers, reached by podman exec alone; then the node released
test_campaign() {
	local pid i rc=0 out avg
	out=$(podman exec "$NAME" fabemu-node hold 2>&1) || { node_log >&2; fail "hold: $out"; }
	podman exec "$NAME" sh -c 'pgrep -x fabemu-dp' >/dev/null && fail "held, but fabemu-dp still runs"
	echo "  ok   $out"
	pid=$(podman inspect -f '{{.State.Pid}}' "$NAME")
	for i in 1 2; do
		nsenter -t "$pid" -n ip link set "eth$i" mtu 9000
		podman exec "fe-clab-h$i" ip link set eth1 mtu 9000
	done
	# the shipped example's testbed, its 2 first hosts, their prefixes podman's
	python3 - "$ROOT/testbeds/containerlab/fabric.campaign.yaml" "$WORK/lab.yaml" <<'PY' ||
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
tb = d["testbed"]
tb["hosts"] = tb["hosts"][:2]
for h in tb["hosts"]:
    h["prefix"] = h["prefix"].replace("docker exec clab-fabric-", "podman exec fe-clab-")
out = {"name": "clab-podman", "repetitions": 1, "fidelity": {"capacity": False},
       "mtu": d["mtu"], "testbed": tb,
       "beside": [{"host": 2, "command": "exec iperf3 -s -p 5391"}],
       "job": {"kind": "command", "command":
               "for g in 1 2 3; do t0=$(date +%s%N); "
               "iperf3 -c 198.18.0.2 -p 5391 -n 4M >/dev/null || exit 1; "
               "echo \"iter $g 4194304 $g $(( ($(date +%s%N) - t0) / 1000 )) $t0\"; done"},
       "regimes": [{"name": "ideal", "profile": "ideal"},
                   {"name": "delay", "profile": "ideal", "links": ["all:delay=2ms"]}]}
yaml.safe_dump(out, open(sys.argv[2], "w"), sort_keys=False)
PY
		fail "the test's campaign file from fabric.campaign.yaml"
	"$BIN/fabemuctl" campaign check "$WORK/lab.yaml" >"$WORK/check.out" 2>&1 ||
		fail "campaign check: $(cat "$WORK/check.out")"
	echo "campaign: 2 host containers (podman exec), the dataplane in the node's namespace"
	nsenter -t "$pid" -n "$BIN/fabemuctl" campaign run "$WORK/lab.yaml" --out "$WORK/run" \
		>"$WORK/run.out" 2>&1 &
	CAMPAIGN_PID=$!
	wait "$CAMPAIGN_PID" || rc=$?
	CAMPAIGN_PID=
	[ "$rc" = 0 ] || { tail -30 "$WORK/run.out" >&2; fail "the campaign in the node's namespace: exit status $rc"; }
	grep '^  host h' "$WORK/run.out" | sed 's/^/ /'
	python3 - "$WORK/run/campaign.json" <<'PY' || { tail -30 "$WORK/run.out" >&2; fail "the campaign's results"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete" and d["inputs"]["testbed"] == "hosts", d["status"]
hosts = d["inputs"]["testbed_hosts"]
assert [h["prefix"] for h in hosts] == ["podman exec fe-clab-h1", "podman exec fe-clab-h2"], hosts
assert all(h["mtu"] == 9000 for h in hosts), hosts
med = {}
for run in d["runs"]:
    it = sorted(i[3] for i in run["iterations"] if i[3] > 0)
    assert run["job_status"] == 0 and len(it) == 3, (run["regime"], run["job_status"], run["iterations"])
    assert run["unexplained"] == 0, (run["regime"], run["unexplained"])
    # the node's interfaces, read in the namespace the campaign entered (nsenter -n, whose
    # /sys is the machine's: read there, every count was 0 and the edge never at rest).
    # The interface counts at least what the dataplane's socket read from it; one way
    # carries the data and the other the acknowledgements (fewer: 399 in one run).
    for p in run["counters"]["ports"]:
        k = p["kernel"]
        assert k["if_rx_packets"] >= k["socket_packets"] > 0, (run["regime"], k)
        assert k["if_tx_packets"] > 0, (run["regime"], k)
    assert sum(p["kernel"]["if_rx_packets"] for p in run["counters"]["ports"]) > 400, run["counters"]
    assert run["hosts"][0]["tx_packets"] > 400, run["hosts"][0]
    med[run["regime"]] = it[1] / 1000
    print("  ok   campaign, regime %s: 3 transfers of 4 MiB between the containers, %.1f ms "
          "median; host 1 sent %d frames (read through podman exec); every frame accounted for; "
          "the node's interfaces counted in its namespace, %d frame(s) in flight at the close "
          "(read %d time(s))"
          % (run["regime"], med[run["regime"]], run["hosts"][0]["tx_packets"],
             run["edge_in_flight"], run["window_reads"]))
# 2 ms a link: 8 ms a round trip more; a 4 MiB transfer takes several round trips
assert med["delay"] > med["ideal"] + 8, med
print("  ok   campaign: the delay regime's transfers slower than the ideal's by %.1f ms (>= 8: "
      "one round trip through 2 links at 2 ms)" % (med["delay"] - med["ideal"]))
PY
	out=$(podman exec "$NAME" fabemu-node release 2>&1) || { node_log >&2; fail "release: $out"; }
	echo "  ok   $out"
	avg=$(ping_through 8972)
	delay_ok "$avg"
	node_log 1000 | grep -x 'fabemu-node: port 0: eth1, MTU 9000' >/dev/null ||
		fail "fabemu-node did not read eth1's MTU again: the node's port lines: $(node_log 1000 |
			grep -a 'port 0' | tail -4 | paste -sd '|' -); its log's end: $(node_log 12)"
	echo "  ok   released: the node's fabemu-dp runs again, at the links' MTU now (9000): 9000-byte pings $avg ms"
}

# a link MTU the node cannot carry stops it, naming the interface and the value
test_refused() {
	wire 9500 af_xdp refused
	for _ in $(seq 100); do running "$NAME" || break; sleep 0.1; done
	running "$NAME" && fail "af_xdp at MTU 9500: the node runs"
	node_log 5 | grep '^fabemu-node: eth1 has MTU 9500: fabemu-dp takes at most 9216' >/dev/null ||
		fail "af_xdp at MTU 9500: $(node_log 5)"
	echo "  ok   af_xdp at MTU 9500: the node stops, saying $(node_log 5 | grep -o 'eth1 has MTU 9500: [^,]*')"
}

test_af_xdp() {
	local avg
	wire 1500 af_xdp
	avg=$(ping_through)
	delay_ok "$avg"
	echo "  ok   af_xdp: links at MTU 1500; the hosts ping each other through the node: $avg ms (20 set)"
}

case "$WHAT" in
build) build ;;
test) test_node ;;
all) build && test_node ;;
*) fail "usage: image.sh [build | test | all] (got '$WHAT')" ;;
esac
