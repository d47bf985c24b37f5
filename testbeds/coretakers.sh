#!/usr/bin/env bash
# What takes a core: for SECONDS (default 5), every 20 ms, which tasks the kernel shows
# running on core CPU (default 0, the dataplane's lcore with cores: split), and over the
# window the core's time by kind (/proc/stat), its interrupts and softirqs a second
# (/proc/interrupts, /proc/softirqs) and the device interrupts whose affinity still allows
# it, with whether the kernel lets them move. Read-only: it changes nothing, and runs
# itself on the other cores so as not to be what it measures.
#
#   testbeds/coretakers.sh [--cpu N] [SECONDS]
#
# Run it beside a campaign (or inside one's calibration) to see what the lcore's
# `preempted` and `cpu_irq_ns` / `cpu_softirq_ns` were (docs/campaigns.md, "Calibration").
set -euo pipefail
CPU=0
SECS=5
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) CPU=${2:?--cpu needs a core}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) SECS=$1; shift ;;
	esac
done
[[ "$CPU" =~ ^[0-9]+$ ]] && [ -d "/sys/devices/system/cpu/cpu$CPU" ] ||
	{ echo "coretakers.sh: --cpu '$CPU': no such core" >&2; exit 2; }
[[ "$SECS" =~ ^[0-9]+([.][0-9]+)?$ ]] ||
	{ echo "coretakers.sh: SECONDS '$SECS': a number" >&2; exit 2; }
# off the core it watches, when there is another
others=$(python3 -c "import os; print(','.join(str(c) for c in sorted(os.sched_getaffinity(0)) if c != $CPU))")
[ -n "$others" ] && exec_pin=(taskset -c "$others") || exec_pin=()
exec "${exec_pin[@]}" python3 - "$CPU" "$SECS" <<'PY'
import glob, os, sys, time

cpu, secs = int(sys.argv[1]), float(sys.argv[2])
col = "cpu%d" % cpu


def stat_row():
    for line in open("/proc/stat"):
        f = line.split()
        if f[0] == col:
            return [int(x) for x in f[1:]]
    raise SystemExit("no %s in /proc/stat" % col)


def table(path):
    """label -> (count on cpu, description) of /proc/interrupts or /proc/softirqs"""
    rows, lines = {}, open(path).read().splitlines()
    ncpu = len(lines[0].split())
    for line in lines[1:]:
        label, _, rest = line.partition(":")
        f = rest.split()
        if len(f) <= cpu or not all(x.isdigit() for x in f[:ncpu]):
            continue
        rows[label.strip()] = (int(f[cpu]), " ".join(f[ncpu:]))
    return rows


def running_on_cpu():
    """(comm, pid) of the tasks in state R whose last core is cpu"""
    seen = []
    for st in glob.glob("/proc/[0-9]*/task/[0-9]*/stat"):
        try:
            s = open(st).read()
        except OSError:
            continue
        comm = s[s.index("(") + 1 : s.rindex(")")]
        f = s[s.rindex(")") + 2 :].split()
        # f[0] state, f[36] processor (field 39 of stat)
        if f[0] == "R" and int(f[36]) == cpu:
            seen.append((comm, st.split("/")[2]))
    return seen


s0, i0, q0 = stat_row(), table("/proc/interrupts"), table("/proc/softirqs")
t0 = time.monotonic()
samples, counts, me = 0, {}, str(os.getpid())
while time.monotonic() - t0 < secs:
    for comm, pid in running_on_cpu():
        if pid != me:
            counts[(comm, pid)] = counts.get((comm, pid), 0) + 1
    samples += 1
    time.sleep(0.02)
dt = time.monotonic() - t0
s1, i1, q1 = stat_row(), table("/proc/interrupts"), table("/proc/softirqs")
d = [b - a for a, b in zip(s0, s1)]
tot = sum(d[:8]) or 1
names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
print("core %d over %.1f s (%d samples of what ran on it)" % (cpu, dt, samples))
print("  time: " + ", ".join("%s %.1f%%" % (n, 100 * v / tot) for n, v in zip(names, d[:8])))
print("  tasks runnable on it, running or waiting for it (share of samples):")
for (comm, pid), n in sorted(counts.items(), key=lambda x: -x[1])[:10]:
    print("    %5.1f%%  %s (pid %s)" % (100 * n / samples, comm, pid))
for title, a, b in (("interrupts", i0, i1), ("softirqs", q0, q1)):
    grew = sorted(((b[k][0] - a.get(k, (0,))[0], k, b[k][1]) for k in b), reverse=True)
    print("  %s a second:" % title)
    for n, k, desc in grew[:8]:
        if n > 0:
            print("    %8.0f  %s %s" % (n / dt, k, desc))
print("  device interrupts whose affinity allows core %d:" % cpu)
for irq in sorted(glob.glob("/proc/irq/[0-9]*"), key=lambda p: int(p.rsplit("/", 1)[1])):
    n = irq.rsplit("/", 1)[1]
    try:
        aff = open(irq + "/smp_affinity_list").read().strip()
        eff = open(irq + "/effective_affinity_list").read().strip() if os.path.exists(irq + "/effective_affinity_list") else aff
    except OSError:
        continue
    cores = set()
    for part in eff.split(","):
        lo, _, hi = part.partition("-")
        if lo:
            cores.update(range(int(lo), int(hi or lo) + 1))
    if cpu in cores:
        moved = os.access(irq + "/smp_affinity_list", os.W_OK)
        print("    %4s  %-40s affinity %s%s" % (n, i1.get(n, (0, "?"))[1], aff,
              "" if moved else " (the kernel does not let it move)"))
PY
