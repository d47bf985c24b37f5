#!/usr/bin/env bash
# inline box: give real NICs to fabemu-dp, and give them back.
#
#   testbeds/inline.sh up PCI_ADDR... [--force] [--dry-run] [--core N] [--hugepages-mb M]
#       check the NICs, reserve hugepages, load vfio-pci, bind the NICs to it with
#       Debian's dpdk-devbind.py (package dpdk), and print the fabemu-dp command line
#   testbeds/inline.sh down [--dry-run]
#       bind the NICs back to their kernel drivers, restore each interface's name,
#       addresses, MTU and up/down state, and the hugepage reservation
#   testbeds/inline.sh status     what `up` recorded, and each NIC's driver now
#
# PCI_ADDR is as in `lspci -D` (0000:01:00.0). `up` refuses, changing nothing: when not
# root; an address with no device (/sys/bus/pci/devices/ADDR); a device that is not a
# network controller (PCI class 02); a NIC whose interface carries a default route or
# an address outside 198.18.0.0/15 (the lab range) unless --force: nobody unbinds their
# management NIC by a typo; no IOMMU (/sys/kernel/iommu_groups empty). Without an
# IOMMU, vfio can still run unprotected: `modprobe vfio enable_unsafe_noiommu_mode=1`
# (any device can then DMA anywhere in memory), then `up --force`.
#
# Hugepages: 1 GiB pages when the CPU has them (hugepages-1048576kB), else 2 MiB;
# --hugepages-mb (default 2048) is what must be free. 1 GiB pages often cannot be
# reserved once memory is fragmented: then give `default_hugepagesz=1G hugepagesz=1G
# hugepages=N` on the kernel command line. A hugetlbfs of that page size is mounted
# (under /run/fabemu/huge-SIZE) when none is.
#
# The dataplane's core (--core, else the first of /sys/devices/system/cpu/isolated, else
# the last online core) is printed with what isolates it: isolcpus=, nohz_full= and
# rcu_nocbs= on the kernel command line (the only way nothing else runs there), and
# irqbalance stopped or told IRQBALANCE_BANNED_CPUS, so that no interrupt lands on it.
#
# What `up` does is recorded in /run/fabemu/inline, each item before it is done; an
# error or Ctrl-C during `up` undoes it at once, as `down` does. --dry-run prints every
# command (+ ...) and every record (# state ...) without running or writing any.
# FABEMU_SYSFS (default /sys), FABEMU_STATE_DIR, FABEMU_DEVBIND and FABEMU_MODPROBE
# exist for the test (tests/e2e/inline_script.sh), which has no NIC.
set -euo pipefail
set -E # the ERR trap of `up` holds in the functions it calls

SYSFS=${FABEMU_SYSFS:-/sys}
STATE_DIR=${FABEMU_STATE_DIR:-/run/fabemu}
STATE=$STATE_DIR/inline
DEVBIND=${FABEMU_DEVBIND:-/usr/bin/dpdk-devbind.py}
MODPROBE=${FABEMU_MODPROBE:-modprobe}
LAB_NET=198.18.0.0/15
DRY=0
FORCE=0
CORE=
MIN_SPEED= # Mbit/s: the slowest NIC's link, read before it is bound (up())
SPEED_UNKNOWN=0
HUGE_MB=2048

UNDO=0
# die: say why; during `up`, after the first change, undo what was done first
die() {
	echo "inline.sh: $*" >&2
	[ "$UNDO" = 0 ] || down
	exit 1
}
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# run CMD...: run it, or print it under --dry-run
run() {
	if [ "$DRY" = 1 ]; then echo "+ $*"; else "$@"; fi
}
# put VALUE FILE: write a sysfs file
put() {
	if [ "$DRY" = 1 ]; then echo "+ echo $1 > $2"; else echo "$1" >"$2"; fi
}
# record LINE: append to the state file, before the thing it records is done
record() {
	if [ "$DRY" = 1 ]; then echo "# state $STATE: $*"; else echo "$*" >>"$STATE"; fi
}

dev_dir() { echo "$SYSFS/bus/pci/devices/$1"; }
dev_driver() {
	local l
	l=$(dev_dir "$1")/driver
	if [ -e "$l" ]; then basename "$(readlink -f "$l")"; else echo none; fi
}
dev_ifname() {
	local d
	d=$(dev_dir "$1")/net
	[ -d "$d" ] && ls "$d" | head -n1 || true
}

# in_lab CIDR: is this IPv4 address in 198.18.0.0/15?
in_lab() {
	local a=${1%/*} o1 o2
	IFS=. read -r o1 o2 _ <<<"$a"
	[ "$o1" = 198 ] && { [ "$o2" = 18 ] || [ "$o2" = 19 ]; }
}

check_root() { [ "$(id -u)" = 0 ] || die "must run as root (it binds PCI devices and reserves hugepages)"; }

# check_nic ADDR: refuse a device that is not there, not a NIC, or in use outside the lab
check_nic() {
	local a=$1 d cls ifc dr
	[[ "$a" =~ ^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$ ]] ||
		die "'$a' is not a PCI address of the form 0000:01:00.0 (lspci -D)"
	d=$(dev_dir "$a")
	[ -d "$d" ] || die "no PCI device $a ($d does not exist; lspci -D lists the devices)"
	cls=$(cat "$d/class")
	[[ "$cls" == 0x02* ]] || die "PCI device $a is not a network controller (class $cls, not 0x02....)"
	dr=$(dev_driver "$a")
	[ "$dr" = vfio-pci ] && die "PCI device $a is already bound to vfio-pci (by whom? $0 status)"
	ifc=$(dev_ifname "$a")
	[ -n "$ifc" ] || return 0
	if ip route show default 2>/dev/null | grep -w "dev $ifc" >/dev/null ||
		ip -6 route show default 2>/dev/null | grep -w "dev $ifc" >/dev/null; then
		[ "$FORCE" = 1 ] || die "$a ($ifc) carries the default route: it looks like this machine's own link; not unbinding it (--force to insist)"
	fi
	local cidr
	for cidr in $(ip -o -4 addr show dev "$ifc" 2>/dev/null | awk '{print $4}'); do
		in_lab "$cidr" || [ "$FORCE" = 1 ] ||
			die "$a ($ifc) has address $cidr, outside $LAB_NET: not unbinding it (--force to insist)"
	done
	for cidr in $(ip -o -6 addr show dev "$ifc" scope global 2>/dev/null | awk '{print $4}'); do
		[ "$FORCE" = 1 ] || die "$a ($ifc) has address $cidr, outside $LAB_NET: not unbinding it (--force to insist)"
	done
}

# Page size: 1 GiB where the CPU has it. Prints "KB DIR".
huge_size() {
	local h=$SYSFS/kernel/mm/hugepages
	if [ -d "$h/hugepages-1048576kB" ]; then echo "1048576 $h/hugepages-1048576kB"; else echo "2048 $h/hugepages-2048kB"; fi
}

reserve_huge() {
	local kb dir want nr free need mnt
	read -r kb dir <<<"$(huge_size)"
	[ -d "$dir" ] || die "no hugepages of ${kb} kB in this kernel ($dir)"
	want=$(((HUGE_MB * 1024 + kb - 1) / kb))
	nr=$(cat "$dir/nr_hugepages")
	free=$(cat "$dir/free_hugepages")
	if [ "$free" -lt "$want" ]; then
		need=$((nr + want - free))
		record "hugepages $dir $nr"
		put "$need" "$dir/nr_hugepages"
		if [ "$DRY" = 0 ] && [ "$(cat "$dir/free_hugepages")" -lt "$want" ]; then
			die "could reserve only $(cat "$dir/free_hugepages") free pages of ${kb} kB, $want wanted (memory fragmented: reserve them at boot, default_hugepagesz=$((kb / 1024))M hugepagesz=$((kb / 1024))M hugepages=$want on the kernel command line)"
		fi
	fi
	HUGE_DIR=
	mnt=$(awk -v kb="$kb" '$3 == "hugetlbfs" && ($4 ~ "pagesize=" kb / 1024 "M" || ($4 !~ /pagesize=/ && kb == def)) {print $2; exit}' \
		def="$(awk '/Hugepagesize/ {print $2}' /proc/meminfo)" /proc/mounts)
	if [ -z "$mnt" ]; then
		mnt=$STATE_DIR/huge-$((kb / 1024))M
		record "mount $mnt"
		run mkdir -p "$mnt"
		run mount -t hugetlbfs -o pagesize=$((kb / 1024))M nodev "$mnt"
	fi
	HUGE_DIR=$mnt
	HUGE_DESC="$want pages of $((kb / 1024)) MiB free"
}

pick_core() {
	local iso online
	iso=$(cat "$SYSFS/devices/system/cpu/isolated" 2>/dev/null || true)
	online=$(cat "$SYSFS/devices/system/cpu/online" 2>/dev/null || echo 0)
	if [ -z "$CORE" ]; then
		if [ -n "$iso" ]; then CORE=${iso%%[-,]*}; else CORE=${online##*[-,]}; fi
	fi
	[[ "$CORE" =~ ^[0-9]+$ ]] || die "--core '$CORE' is not a core number"
	ISOLATED=0
	local r lo hi
	for r in ${iso//,/ }; do
		lo=${r%-*} hi=${r#*-}
		[ "$CORE" -ge "$lo" ] && [ "$CORE" -le "$hi" ] && ISOLATED=1
	done
	return 0
}

up() {
	local a ifc dr mtu st cidr spd
	[ $# -ge 1 ] || die "up: name the NICs' PCI addresses (lspci -D | grep -i ethernet)"
	[ "$DRY" = 1 ] || check_root
	[ -e "$STATE" ] && die "an inline box is already up ($STATE); run: $0 down"
	for a in "$@"; do check_nic "$a"; done
	if [ -z "$(ls -A "$SYSFS/kernel/iommu_groups" 2>/dev/null)" ] && [ "$FORCE" = 0 ]; then
		die "no IOMMU ($SYSFS/kernel/iommu_groups is empty): turn it on (intel_iommu=on or amd_iommu=on on the kernel command line, VT-d/AMD-Vi in the firmware), or run vfio without one: modprobe vfio enable_unsafe_noiommu_mode=1, then $0 up --force ..."
	fi
	[ "$DRY" = 1 ] || [ -x "$DEVBIND" ] || die "$DEVBIND not found: apt-get install dpdk"
	pick_core
	if [ "$DRY" = 0 ]; then
		mkdir -p "$STATE_DIR"
		trap 'down; exit 1' ERR
		trap 'down; exit 130' INT TERM HUP
		: >"$STATE"
		UNDO=1
	fi
	reserve_huge
	run "$MODPROBE" vfio-pci
	for a in "$@"; do
		dr=$(dev_driver "$a")
		ifc=$(dev_ifname "$a")
		mtu=- st=down
		if [ -n "$ifc" ]; then
			mtu=$(cat "$SYSFS/class/net/$ifc/mtu" 2>/dev/null || ip -o link show dev "$ifc" | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
			ip -o link show dev "$ifc" 2>/dev/null | grep '<[^>]*\bUP\b' >/dev/null && st=up
		fi
		record "nic $a ${dr} ${ifc:--} $mtu $st"
		# its link speed (Mbit/s; -1 or none with the link down): the command line's scale
		spd=$(cat "$SYSFS/class/net/$ifc/speed" 2>/dev/null || true)
		if [[ "$spd" =~ ^[0-9]+$ ]] && [ "$spd" -gt 0 ]; then
			[ -n "$MIN_SPEED" ] && [ "$MIN_SPEED" -le "$spd" ] || MIN_SPEED=$spd
		else
			SPEED_UNKNOWN=1
		fi
		if [ -n "$ifc" ]; then
			for cidr in $(ip -o addr show dev "$ifc" scope global 2>/dev/null | awk '{print $4}'); do
				record "addr $a $cidr"
			done
			run ip link set dev "$ifc" down
		fi
		record "bound $a"
		if [ "$FORCE" = 1 ]; then
			run "$DEVBIND" --force -b vfio-pci "$a"
		else
			run "$DEVBIND" -b vfio-pci "$a"
		fi
	done
	trap - ERR INT TERM HUP
	UNDO=0
	print_cmd "$@"
}

# The dataplane's line: RoCE with PFC and ECN (profiles/roce-pfc-ecn.yaml: 400 Gbit/s
# links), an MTU that holds RoCE's 4,096-byte path MTU with its headers (IP, UDP, BTH,
# RETH, ICRC: 4,156 bytes), dilated (--scale) so that the slowest NIC carries the
# profile's rate: fabemu-dp refuses a port slower than a link it carries undilated.
PROFILE_MBPS=400000
print_cmd() {
	local a eal="" scale=""
	for a in "$@"; do eal+=" -a $a"; done
	if [ -n "$MIN_SPEED" ] && [ "$MIN_SPEED" -lt "$PROFILE_MBPS" ]; then
		scale=" --scale $(((PROFILE_MBPS + MIN_SPEED - 1) / MIN_SPEED))"
	fi
	echo "inline.sh: ${#}-port inline box up ($HUGE_DESC, hugetlbfs $HUGE_DIR); run the dataplane on core $CORE:"
	echo "  build/bin/fabemu-dp -l $CORE --huge-dir $HUGE_DIR$eal -- --mtu 4200 --profile roce-pfc-ecn$scale"
	if [ -n "$scale" ]; then
		echo "inline.sh: the profile's links are $((PROFILE_MBPS / 1000)) Gbit/s and the slowest NIC's link $MIN_SPEED Mbit/s, so${scale} runs the fabric that much slower, its delays that much longer (docs/profiles.md)."
	fi
	if [ "$SPEED_UNKNOWN" = 1 ]; then
		echo "inline.sh: a NIC's link speed is unknown (its link down, or no interface): if it is below $((PROFILE_MBPS / 1000)) Gbit/s, add --scale N, N at least $((PROFILE_MBPS / 1000)) Gbit/s over its speed, or fabemu-dp refuses the port."
	fi
	echo "  (port i is the i-th -a: cable host A's NIC to port 0 ($1) and host B's to port 1${2:+ ($2)}; docs/inline.md)"
	if [ "$ISOLATED" = 1 ]; then
		echo "inline.sh: core $CORE is isolated ($SYSFS/devices/system/cpu/isolated)."
	else
		echo "inline.sh: core $CORE is NOT isolated: the kernel may run other work there. To isolate it, add"
		echo "  isolcpus=$CORE nohz_full=$CORE rcu_nocbs=$CORE to the kernel command line and reboot"
		echo "  (or, without a reboot and less well: taskset -pc on every other task, cset shield -c $CORE)."
	fi
	if systemctl is-active -q irqbalance 2>/dev/null; then
		echo "inline.sh: irqbalance is running: stop it (systemctl stop irqbalance) or set IRQBALANCE_BANNED_CPUS for core $CORE."
	fi
	echo "inline.sh: give the NICs back with: $0 down"
}

# The record is read whole, and signals ignored: a Ctrl-C must not stop it halfway.
down() {
	local line kind a dr ifc mtu st now i n cidr
	local -a lines
	trap '' INT TERM HUP
	trap - ERR
	UNDO=0
	[ -f "$STATE" ] || { echo "inline.sh: nothing recorded ($STATE)"; return 0; }
	mapfile -t lines <"$STATE"
	set +e
	# the drivers first (the interfaces come back), then each interface, then the pages
	for line in "${lines[@]}"; do
		read -r kind a _ <<<"$line"
		[ "$kind" = bound ] || continue
		dr=$(awk -v a="$a" '$1 == "nic" && $2 == a {print $3}' "$STATE")
		if [ "$dr" = none ]; then
			run "$DEVBIND" -u "$a"
		else
			run "$DEVBIND" -b "$dr" "$a"
		fi
	done
	for line in "${lines[@]}"; do
		read -r kind a dr ifc mtu st <<<"$line"
		[ "$kind" = nic ] && [ "$ifc" != - ] || continue
		now=
		for ((n = 0; n < 50; n++)); do
			now=$(dev_ifname "$a")
			[ -n "$now" ] || [ "$DRY" = 1 ] && break
			sleep 0.1
		done
		[ "$DRY" = 1 ] && now=$ifc
		if [ -z "$now" ]; then
			echo "inline.sh: $a came back with no interface (driver $dr); restore $ifc by hand" >&2
			continue
		fi
		[ "$now" = "$ifc" ] || run ip link set dev "$now" name "$ifc"
		run ip link set dev "$ifc" mtu "$mtu"
		for cidr in $(awk -v a="$a" '$1 == "addr" && $2 == a {print $3}' "$STATE"); do
			run ip addr replace "$cidr" dev "$ifc"
		done
		[ "$st" = up ] && run ip link set dev "$ifc" up
	done
	for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
		read -r kind a dr _ <<<"${lines[i]}"
		case "$kind" in
		hugepages) put "$dr" "$a/nr_hugepages" ;;
		mount) run umount "$a" && run rmdir "$a" ;;
		esac
	done
	set -e
	if [ "$DRY" = 1 ]; then echo "+ rm $STATE"; else rm -f "$STATE"; fi
}

status() {
	local kind a dr ifc _r
	[ -f "$STATE" ] || { echo "inline.sh: no inline box up ($STATE)"; return 0; }
	cat "$STATE"
	while read -r kind a dr ifc _r; do
		[ "$kind" != nic ] || echo "now: $a driver $(dev_driver "$a") (was $dr, interface $ifc)"
	done <"$STATE"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--dry-run) DRY=1 ;;
	--force) FORCE=1 ;;
	--core) CORE=${2:?--core needs a core number}; shift ;;
	--hugepages-mb)
		HUGE_MB=${2:?--hugepages-mb needs a size}; shift
		[[ "$HUGE_MB" =~ ^[1-9][0-9]*$ ]] || die "--hugepages-mb '$HUGE_MB' is not a size in MiB"
		;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown option '$1' (--help)" ;;
	*) args+=("$1") ;;
	esac
	shift
done

case "$cmd" in
up) up "${args[@]}" ;;
down)
	[ "$DRY" = 1 ] || check_root
	down
	;;
status) status ;;
-h | --help | help) usage ;;
*) usage >&2; exit 2 ;;
esac
