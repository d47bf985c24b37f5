#!/usr/bin/env bash
# Soak (not part of CI): fabemu-dp forwarding as fast as this box lets it (three pcap
# ports replaying 64- to 1500-byte frames from memory, links unlimited) for MINUTES,
# while a client makes a random valid change or fault every 50 ms: a profile at a random
# scale, link parameters (rate, delay, jitter, loss, Gilbert-Elliott, ECN), exact drop
# rules, holds (a pause storm), captures started and stopped, counter reads and resets.
# Every 5 s it records the dataplane's RSS, open file descriptors, threads, mbufs out of
# the pool and changes applied (not packet counts: the random resets zero them); at the
# end the dataplane must exit 0 (every mbuf back) and the figures are printed, with a
# plot. A request unanswered for 30 s ends the soak as a failure.
#
#   tests/bench/soak.sh [MINUTES] [OUTDIR]      (default 10, results/soak-DATE; root)
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init soak
MIN=${1:-10}
OUT=${2:-$FE_ROOT/results/soak-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
T=$FE_TMP
"$FE_BIN/fe-pcapgen" "$T/a.pcap" 02:fe:00:00:00:0a 02:fe:00:00:00:0b 64 1500 \
	02:fe:00:00:00:0a 02:fe:00:00:00:0c 64 64
"$FE_BIN/fe-pcapgen" "$T/b.pcap" 02:fe:00:00:00:0b 02:fe:00:00:00:0a 64 600
"$FE_BIN/fe-pcapgen" "$T/c.pcap" 02:fe:00:00:00:0c 02:fe:00:00:00:0a 64 1000
fe_dp_start $(fe_eal) \
	--vdev=net_pcap0,rx_pcap=$T/a.pcap,tx_pcap=/dev/null,infinite_rx=1 \
	--vdev=net_pcap1,rx_pcap=$T/b.pcap,tx_pcap=/dev/null,infinite_rx=1 \
	--vdev=net_pcap2,rx_pcap=$T/c.pcap,tx_pcap=/dev/null,infinite_rx=1 \
	-- --profile ideal --capture-dir "$T/captures" --stats-json "$OUT/exit.json"
echo "soak: $MIN min, dataplane pid $FE_DP_PID, results in $OUT"

python3 - "$FABEMU_SOCKET" "$FE_ROOT/profiles" "$FE_DP_PID" "$MIN" "$OUT/soak.csv" <<'PY'
import json, os, random, socket, sys, time

sock_path, profiles, pid, minutes, csv = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
rng = random.Random(1)
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sock_path)
f = s.makefile("rw")


def ask(**req):
    req["fabemu"] = 1
    f.write(json.dumps(req) + "\n")
    f.flush()
    try:
        return json.loads(f.readline())
    except TimeoutError:
        sys.exit("soak: FAIL: no reply within 30 s to %s" % json.dumps(req)[:300])


texts = [open(f"{profiles}/{n}.yaml").read() for n in ("ideal", "ethernet-lossy", "ethernet-ecn", "roce-lossy")]
links = [f"{p}.{d}" for p in range(3) for d in ("up", "down")]


def change():
    k = rng.randrange(10)
    if k < 3:
        return "apply", ask(cmd="apply", profile=rng.choice(texts), scale=rng.choice([1, 10, 100, 1000]))
    if k == 3:
        spec = rng.choice(["rate=%dMbit" % rng.choice([1, 10, 100, 1000]), "rate=0", "delay=%dus" % rng.randrange(0, 2000),
                           "jitter=%dus" % rng.randrange(0, 50), "loss=%g%%" % rng.choice([0, 0.1, 1, 5]),
                           "ge=1%/30%", "ecn=20KB/200KB/10%", "ecn=off", "buffer=%dKiB" % rng.choice([16, 64, 512])])
        return "set", ask(cmd="set", link=rng.choice(links + ["all", "up", "down"]), spec=spec)
    if k == 4:
        return "drop", ask(cmd="set", link=rng.choice(links), spec="drop=%d/%d" % (rng.randrange(1, 20), rng.randrange(1, 5)))
    if k == 5:
        return "hold", ask(cmd="hold", link=rng.choice(links), duration="%dms" % rng.randrange(1, 50))
    if k == 6:
        r = ask(cmd="capture", action="stop")
        if not r.get("ok"):
            r = ask(cmd="capture", action="start", link=rng.choice(links), file="c%d.pcapng" % rng.randrange(1 << 30),
                    drops=rng.random() < 0.5, snaplen=rng.choice([0, 64, 128]))
        return "capture", r
    if k == 7:
        return "reset", ask(cmd="reset")
    return "read", ask(cmd="counters", json=True)


def sample(t0, counts):
    st = open(f"/proc/{pid}/status").read()
    rss = int(next(l for l in st.splitlines() if l.startswith("VmRSS:")).split()[1])
    thr = int(next(l for l in st.splitlines() if l.startswith("Threads:")).split()[1])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    doc = ask(cmd="counters", json=True)["data"]
    status = ask(cmd="status")["data"]
    return [round(time.monotonic() - t0), rss, fds, thr, doc["mbufs"]["in_use"], doc["mbufs"]["pool"],
            status["changes"], counts["ok"], counts["refused"]]


counts = {"ok": 0, "refused": 0}
slow = 0.0
kinds = {}
t0 = time.monotonic()
end = t0 + 60 * minutes
nxt = t0
with open(csv, "w") as out:
    out.write("t_s,rss_kib,fds,threads,mbufs_in_use,mbufs_pool,changes,requests_ok,requests_refused\n")
    while True:
        now = time.monotonic()
        if now >= nxt:
            row = sample(t0, counts)
            out.write(",".join(map(str, row)) + "\n")
            out.flush()
            print("  t %4d s  rss %6d KiB  fds %3d  threads %2d  mbufs %6d of %d  changes %d" % tuple(row[:7]), flush=True)
            nxt += 5
        if now >= end:
            break
        t = time.monotonic()
        kind, r = change()
        t = time.monotonic() - t
        slow = max(slow, t)
        if t > 1:
            print("  slow: %s took %.1f s: %s" % (kind, t, (r.get("text") or r.get("error") or "")[:200]), flush=True)
        kinds[kind] = kinds.get(kind, 0) + 1
        if r.get("ok"):
            counts["ok"] += 1
        else:
            counts["refused"] += 1
            if "ported" not in r.get("error", ""):
                print("  refused:", kind, r.get("error"), flush=True)
        time.sleep(0.05)
    ask(cmd="capture", action="stop")
print("requests:", json.dumps(kinds), "ok", counts["ok"], "refused", counts["refused"],
      "slowest %.3f s" % slow)
PY
fe_dp_stop # exit 0: every mbuf back in its pool
grep '^mbufs' "$FE_DP_LOG" | sed 's/^/  /'
python3 - "$OUT/soak.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def col(k): return [int(r[k]) for r in rows]
for k, unit in (("rss_kib", "KiB"), ("fds", ""), ("threads", ""), ("mbufs_in_use", "")):
    v = col(k)
    # after the first minute (the pool's cache and the PMDs' rings fill), a leak grows
    late = [x for r, x in zip(rows, v) if int(r["t_s"]) >= 60] or v
    print(f"  {k:13} first {v[0]:>8} {unit:3} last {v[-1]:>8} {unit:3} max {max(v):>8} {unit:3}  "
          f"after 60 s: min {min(late)} max {max(late)} (growth {max(late) - min(late)})")
PY
gnuplot <<EOF
set terminal svg size 900,600 dynamic font "sans,11"
set output "$OUT/soak.svg"
set datafile separator ","
set multiplot layout 3,1 title "fabemu-dp soak: $MIN min of random changes and faults at full rate"
set xlabel "s"
set ylabel "RSS (MiB)"
plot "$OUT/soak.csv" every ::1 using 1:(\$2/1024) with lines title "RSS"
set ylabel "count"
plot "$OUT/soak.csv" every ::1 using 1:3 with lines title "file descriptors", "" every ::1 using 1:4 with lines title "threads"
set ylabel "mbufs"
plot "$OUT/soak.csv" every ::1 using 1:5 with lines title "out of the pool", "" every ::1 using 1:6 with lines title "pool size"
unset multiplot
EOF
echo "soak: $OUT/soak.csv, $OUT/soak.svg"
