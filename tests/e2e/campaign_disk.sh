#!/usr/bin/env bash
# A full disk does not lose results silently: a results directory that cannot be
# written is refused before anything starts (exit 3, naming it); a disk that fills
# during the run leaves no cut-short file (each is whole or absent), names every file
# it could not write, and the campaign exits 6, "results incomplete"; a summary that
# cannot be written to standard output (/dev/full) is the same.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init campdisk
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"
MNT=$T/mnt
mkdir -p "$MNT"
cleanup() {
	local rc=$?
	set +e # the cleanup goes to its end, (exit $rc) below included
	umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
	(exit $rc)
	fe_cleanup
}
trap cleanup EXIT

# the wire (no dataplane: only the results' files are at stake), a short all-reduce
cat >"$T/disk.yaml" <<'Y'
name: t-disk
hosts: 2
cores: shared
fidelity: {capacity: false}
job: {kind: allreduce, sizes: [1KiB], iterations: 20, warmup: 1}
regimes:
  - {name: wire, kind: wire}
Y

echo "a full disk at the start: refused before anything starts"
mount -t tmpfs -o size=64k tmpfs "$MNT"
dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null || true
rc=0
"$CTL" campaign run "$T/disk.yaml" --out "$MNT/out" >"$T/full.out" 2>&1 || rc=$?
fe_check "exit status" "$rc" 3 3
grep -q "cannot write the results in $MNT/out: No space left on device" "$T/full.out" ||
	fe_fail "the message does not name the directory: $(cat "$T/full.out")"
! grep -q "regime(s)" "$T/full.out" || fe_fail "the campaign started: $(cat "$T/full.out")"
echo "  ok   $(cat "$T/full.out")"
umount "$MNT"

echo "the disk fills during the run: every file whole or absent, each named, exit 6"
mount -t tmpfs -o size=1m tmpfs "$MNT"
"$CTL" campaign run "$T/disk.yaml" --out "$MNT/out" >"$T/run.out" 2>"$T/run.err" &
pid=$!
for _ in $(seq 300); do grep -q 'regime wire' "$T/run.out" && break; sleep 0.1; done
grep -q 'regime wire' "$T/run.out" || { cat "$T/run.out" "$T/run.err"; fe_fail "the campaign did not start its run"; }
dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null || true
rc=0; wait "$pid" || rc=$?
sed 's/^/  | /' "$T/run.err"
fe_check "exit status" "$rc" 6 6
for f in campaign.json summary.csv iterations.csv links.csv tcp.csv ports.csv report.html \
	plots/cdf-wire-1KiB.dat plots/timeline-wire.dat plots/report.gp cdf-1KiB.svg timeline.svg; do
	grep -q "could not write $MNT/out/$f: .* (not kept)" "$T/run.err" || fe_fail "no message naming $f"
	[ ! -e "$MNT/out/$f" ] || fe_fail "$f is there, cut short: $(wc -c <"$MNT/out/$f") bytes"
done
grep -q "could not write $MNT/out/campaign.json: No space left on device" "$T/run.err" ||
	fe_fail "no reason given for campaign.json"
part=$(find "$MNT/out" -name '*.part')
[ -z "$part" ] || fe_fail "partial files left: $part"
grep -q "^campaign t-disk: results incomplete; [0-9]* file(s) of the results not written" "$T/run.out" ||
	fe_fail "the summary does not say: $(grep '^campaign' "$T/run.out")"
grep -q "^NOT WRITTEN: $MNT/out/campaign.json" "$T/run.out" || fe_fail "the summary does not list them"
! grep -q "^results: " "$T/run.out" || fe_fail "the summary points to a report that is not there"
echo "  ok   nothing cut short, 12 files named, status 'results incomplete'"
umount "$MNT"

echo "gnuplot cuts its plots short and exits 0 (as on a full disk): they are not kept"
mkdir -p "$T/bin"
cat >"$T/bin/gnuplot" <<'EOF'
#!/bin/sh
# a stand-in for gnuplot on a full disk: each output opened, nothing written, exit 0
sed -n "s/^set output '\(.*\)'$/\1/p" "$1" | while read -r f; do : >"$f"; done
exit 0
EOF
chmod +x "$T/bin/gnuplot"
rc=0
PATH="$T/bin:$PATH" "$CTL" campaign run "$T/disk.yaml" --out "$T/gp" >"$T/gp.out" 2>"$T/gp.err" || rc=$?
fe_check "exit status" "$rc" 6 6
for f in cdf-1KiB.svg timeline.svg; do
	grep -qF "could not write $T/gp/$f: gnuplot's SVG is cut short (a full disk?) (not kept)" "$T/gp.err" ||
		fe_fail "no message naming $f: $(cat "$T/gp.err")"
	[ ! -e "$T/gp/$f" ] || fe_fail "$f kept, $(wc -c <"$T/gp/$f") bytes"
done
for f in campaign.json summary.csv iterations.csv report.html; do [ -s "$T/gp/$f" ] || fe_fail "no $f"; done
grep -q "No plot: no data, or not written" "$T/gp/report.html" || fe_fail "report.html shows a plot that is not there"
echo "  ok   2 plots cut short, named, not kept; the rest written"

echo "standard output on a full device (/dev/full)"
rc=0
"$CTL" campaign run "$T/disk.yaml" --out "$T/devfull" >/dev/full 2>"$T/devfull.err" || rc=$?
fe_check "exit status" "$rc" 6 6
grep -q "could not write the summary to standard output: No space left on device" "$T/devfull.err" ||
	fe_fail "no message: $(cat "$T/devfull.err")"
fe_check "campaign.json written whole" "$(fe_json "$T/devfull/campaign.json" 'len(d["runs"])')" 1 1
grep -q '"status": "results incomplete; 1 file(s) of the results not written"' "$T/devfull/campaign.json" ||
	fe_fail "campaign.json's status: $(grep '"status"' "$T/devfull/campaign.json")"
echo "  ok   $(cat "$T/devfull.err")"
echo "campaign_disk: passed"
