#!/usr/bin/env bash
# testbeds/inline.sh without a NIC: a fake sysfs (FABEMU_SYSFS) holds one "NIC" whose
# interface is a veth link in a namespace of the test's own (fe-inl), a fake
# dpdk-devbind.py that does to that link what a driver change does (addresses and MTU
# gone, the interface back under another name), and a fake modprobe. Checks:
#  - --help; the refusals: not root, no such PCI device, not a NIC, the default route,
#    an address outside 198.18.0.0/15, no IOMMU (naming enable_unsafe_noiommu_mode);
#  - --dry-run prints the commands and records, and changes nothing;
#  - up records the driver, name, MTU, state and addresses, binds to vfio-pci, and
#    prints the fabemu-dp command line; down restores them (renaming the interface back);
#  - a refusal during up (no hugepages to be had), a command failing during up and a
#    Ctrl-C during up restore at once.
set -euo pipefail
SRC=${FABEMU_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
SCRIPT=$SRC/testbeds/inline.sh
T=$(mktemp -d /tmp/fe-inline.XXXXXX)
NS=fe-inl
ADDR=0000:03:00.0
SATA=0000:00:1f.2
S=$T/sys
cleanup() {
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_fail PATTERN CMD...: CMD fails and says PATTERN on stderr
expect_fail() {
	local pat=$1 rc=0
	shift
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" != 0 ] || fail "'$*' succeeded; wanted a refusal: $pat"
	grep -q -- "$pat" "$T/err" || { cat "$T/err" >&2; fail "'$*': no '$pat' in its message"; }
	echo "ok: refused ($pat)"
}

# the fake machine
mkdir -p "$S/bus/pci/devices/$ADDR/net/feinl0" "$S/bus/pci/drivers/ixgbe" \
	"$S/bus/pci/drivers/vfio-pci" "$S/bus/pci/devices/$SATA" "$S/kernel/iommu_groups" \
	"$S/kernel/mm/hugepages/hugepages-2048kB" "$S/devices/system/cpu"
echo 0x020000 >"$S/bus/pci/devices/$ADDR/class"
echo 0x010601 >"$S/bus/pci/devices/$SATA/class"
ln -s "$S/bus/pci/drivers/ixgbe" "$S/bus/pci/devices/$ADDR/driver"
echo 0 >"$S/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
echo 1024 >"$S/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"
echo 0-1 >"$S/devices/system/cpu/online"
: >"$S/devices/system/cpu/isolated"
cat >"$T/devbind" <<EOF
#!/usr/bin/env bash
# fake dpdk-devbind.py: [--force] -b DRIVER ADDR
echo "devbind \$*" >>"$T/log"
[ "\$1" = --force ] && shift
d=$S/bus/pci/devices/\$3
rm -f "\$d/driver"; ln -s "$S/bus/pci/drivers/\$2" "\$d/driver"
if [ "\$2" = vfio-pci ]; then
	rm -rf "\$d/net"/*
	ip -n $NS addr flush dev feinl0; ip -n $NS link set feinl0 mtu 1500
	[ -z "\${FAKE_INT:-}" ] || kill -INT \$PPID
	[ -z "\${FAKE_FAIL:-}" ] || { echo "devbind: fake failure" >&2; exit 1; }
else
	ip -n $NS link set feinl0 name eth7 && mkdir -p "\$d/net/eth7"
fi
EOF
printf '#!/bin/sh\necho "modprobe $*" >>%s/log\n' "$T" >"$T/modprobe"
chmod +x "$T/devbind" "$T/modprobe"
export FABEMU_SYSFS=$S FABEMU_STATE_DIR=$T/run FABEMU_DEVBIND=$T/devbind FABEMU_MODPROBE=$T/modprobe
ip netns add "$NS"
ip -n "$NS" link add feinl0 type veth peer name feinl1
ip -n "$NS" link set feinl0 mtu 4000 up
ip -n "$NS" addr add 198.18.9.1/24 dev feinl0
inl() { ip netns exec "$NS" bash "$SCRIPT" "$@"; }

# --help
inl --help | grep 'inline.sh up PCI_ADDR' >/dev/null || fail "--help does not show the usage"
echo "ok: --help"

# refusals
cp "$SCRIPT" "$T/inline.sh" && chmod 755 "$T" "$T/inline.sh"
expect_fail "must run as root" setpriv --reuid=65534 --regid=65534 --clear-groups bash "$T/inline.sh" up "$ADDR"
expect_fail "no PCI device 0000:04:00.0" inl up 0000:04:00.0
expect_fail "not a PCI address" inl up 03:00.0
expect_fail "$SATA is not a network controller (class 0x010601" inl up "$SATA"
expect_fail "no IOMMU.*enable_unsafe_noiommu_mode" inl up "$ADDR"
mkdir "$S/kernel/iommu_groups/7"
ip -n "$NS" route add default dev feinl0
expect_fail "carries the default route" inl up "$ADDR"
ip -n "$NS" route del default
ip -n "$NS" addr add 10.9.9.9/24 dev feinl0
expect_fail "address 10.9.9.9/24, outside 198.18.0.0/15" inl up "$ADDR"
inl up "$ADDR" --force --dry-run >/dev/null || fail "--force did not override the address check"
ip -n "$NS" addr del 10.9.9.9/24 dev feinl0
[ ! -e "$T/log" ] || fail "a refusal ran something: $(cat "$T/log")"

# --dry-run: every command printed, nothing done
inl up "$ADDR" --dry-run >"$T/dry" || { cat "$T/dry"; fail "--dry-run up failed"; }
cat "$T/dry"
for want in "+ $T/modprobe vfio-pci" "+ ip link set dev feinl0 down" "+ $T/devbind -b vfio-pci $ADDR" \
	"# state $T/run/inline: nic $ADDR ixgbe feinl0 4000 up" "# state $T/run/inline: addr $ADDR 198.18.9.1/24" \
	"fabemu-dp -l 1 --huge-dir .* -a $ADDR -- --mtu 4200 --profile roce-pfc-ecn$" \
	"link speed is unknown" "core 1 is NOT isolated" "isolcpus=1 nohz_full=1 rcu_nocbs=1"; do
	grep -q -- "$want" "$T/dry" || fail "--dry-run does not print '$want'"
done
[ ! -e "$T/log" ] && [ ! -e "$T/run/inline" ] || fail "--dry-run ran or recorded something"
ip -n "$NS" -o addr show dev feinl0 | grep 198.18.9.1/24 >/dev/null || fail "--dry-run changed the interface"
echo "ok: --dry-run"

# the round trip: up, then down
check_restored() {
	ip -n "$NS" -o link show dev feinl0 | grep 'mtu 4000' >/dev/null || fail "$1: MTU not restored: $(ip -n "$NS" -o link show)"
	ip -n "$NS" -o link show dev feinl0 | grep '<[^>]*UP' >/dev/null || fail "$1: feinl0 not up again"
	ip -n "$NS" -o addr show dev feinl0 | grep 198.18.9.1/24 >/dev/null || fail "$1: address not restored"
	[ "$(basename "$(readlink "$S/bus/pci/devices/$ADDR/driver")")" = ixgbe ] || fail "$1: driver not restored"
	[ "$(cat "$S/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages")" = 0 ] || fail "$1: hugepages not restored"
	[ ! -e "$T/run/inline" ] || fail "$1: the state file is left"
	# the kernel renames the device's sysfs entry with the interface; the fake does it here
	local n=$S/bus/pci/devices/$ADDR/net
	[ ! -d "$n/eth7" ] || mv "$n/eth7" "$n/feinl0"
}
# the NIC's link at 25 Gbit/s: the profile's 400 dilated 16 times to fit
mkdir -p "$S/class/net/feinl0"
echo 25000 >"$S/class/net/feinl0/speed"
inl up "$ADDR" --core 0 >"$T/up" || { cat "$T/up" "$T/log"; fail "up failed"; }
cat "$T/up"
grep -q -- "fabemu-dp -l 0 --huge-dir .* -a $ADDR -- --mtu 4200 --profile roce-pfc-ecn --scale 16$" "$T/up" ||
	fail "up printed no command line, or not at --scale 16 for a 25 Gbit/s NIC"
grep -q -- "slowest NIC's link 25000 Mbit/s" "$T/up" || fail "up did not say why it dilates"
grep -q -- "speed is unknown" "$T/up" && fail "up: the speed was read, yet called unknown"
grep -qx "nic $ADDR ixgbe feinl0 4000 up" "$T/run/inline" || fail "state: $(cat "$T/run/inline")"
grep -qx "addr $ADDR 198.18.9.1/24" "$T/run/inline" || fail "state has no address"
grep -qx "devbind -b vfio-pci $ADDR" "$T/log" || fail "not bound to vfio-pci: $(cat "$T/log")"
ip -n "$NS" -o addr show dev feinl0 | grep 198.18 >/dev/null && fail "fake devbind left the address"
inl status | grep "now: $ADDR driver vfio-pci (was ixgbe" >/dev/null || fail "status does not show the binding"
expect_fail "already up" inl up "$ADDR"
inl down || fail "down failed"
grep -qx "devbind -b ixgbe $ADDR" "$T/log" || fail "not bound back to ixgbe"
check_restored down
echo "ok: up and down round-trip (driver, name eth7 -> feinl0, MTU 4000, address, up)"

# a failure during up: 2 MiB pages wanted, none to be had; what was done is undone
echo 0 >"$S/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"
expect_fail "could reserve only 0 free pages" inl up "$ADDR"
check_restored "failure during up"
echo 1024 >"$S/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"
echo "ok: failure during up undone"

# a command failing during up (dpdk-devbind.py): undone
expect_fail "fake failure" env FAKE_FAIL=1 ip netns exec "$NS" bash "$SCRIPT" up "$ADDR"
check_restored "devbind failing during up"
echo "ok: a command failing during up undone"

# a Ctrl-C during up (while binding): undone, exit 130
rc=0
FAKE_INT=1 inl up "$ADDR" >"$T/out" 2>&1 || rc=$?
[ "$rc" = 130 ] || { cat "$T/out"; fail "Ctrl-C during up: exit $rc, not 130"; }
check_restored "Ctrl-C during up"
echo "ok: Ctrl-C during up undone"
echo "PASS"
