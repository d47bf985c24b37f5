#!/usr/bin/env bash
# Install what a fresh Debian 12 machine lacks to build, run and test fabemu, and
# prepare the kernel side. Idempotent: run it as often as you like (as root).
#   testbeds/setup.sh            packages, hugepages, bpffs
#   FABEMU_HUGEPAGES=0 testbeds/setup.sh    skip the hugepage reservation
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "setup.sh: must run as root" >&2; exit 1; }

PKGS=(
	build-essential cmake pkg-config          # build
	ninja-build                               # tests/run.sh's builds (cmake -G Ninja)
	dpdk libdpdk-dev libpcap-dev              # dataplane
	libcyaml-dev libyaml-dev libjansson-dev   # profiles (YAML) and the control protocol (JSON)
	libcriterion-dev                          # unit tests
	iproute2 ethtool iperf3 iputils-ping      # testbeds and end-to-end tests
	dpdk-dev                                  # dpdk-telemetry.py, dpdk-testpmd (tests, benchmarks)
	tshark                                    # reads the pcapng captures in tests
	openmpi-bin libopenmpi-dev                # the campaigns' all-reduce job (TCP transport)
	python3-torch                             # the torch job: torch.distributed over gloo (Debian's python3)
	gnuplot-nox                               # the campaigns' plots (SVG)
	chromium                                  # report.html tested in a headless browser
	graphviz                                  # topology drawings (fabemuctl topology show --svg)
	util-linux                                # runuser (socket permission test)
	python3                                   # JSON checks and the telemetry client in tests
	valgrind                                  # the packet-rate benchmark's instruction counts
	clang-14 libclang-rt-14-dev               # the ASan/UBSan build and libFuzzer (tests/run.sh)
	llvm                                      # llvm-symbolizer: sanitizer reports with file:line
	ccache                                    # tests/run.sh compiles its two builds through it
	podman runc mmdebstrap                    # the fabemu image (testbeds/containerlab/image.sh)
)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Hugepages: the tests and campaigns run fabemu-dp on them where 512 MiB are free (2 GiB
# here: a split campaign runs two dataplanes), else with --no-huge.
pages=${FABEMU_HUGEPAGES:-1024}
if [ "$pages" -gt 0 ]; then
	cur=$(cat /proc/sys/vm/nr_hugepages)
	[ "$cur" -ge "$pages" ] || echo "$pages" >/proc/sys/vm/nr_hugepages || true
	mkdir -p /dev/hugepages
	mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages ||
		echo "setup.sh: could not mount hugetlbfs (fabemu-dp still runs with --no-huge)" >&2
fi
# libxdp (AF_XDP PMD) pins its programs in bpffs when it is there.
mkdir -p /sys/fs/bpf 2>/dev/null || true
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf 2>/dev/null || true
echo "setup.sh: ready (hugepages: $(cat /proc/sys/vm/nr_hugepages))"
