#!/usr/bin/env bash
# One fuzz target, in bounded time (a ctest test of the fuzzing build, tests/fuzz/README.md):
#   run.sh FUZZER CORPUS WORK SECONDS
# First every file of CORPUS once (the seeds, and the regressions crash-*: inputs that
# crashed it before, which must not any more), then SECONDS of fuzzing from CORPUS and
# from what earlier runs found (WORK/corpus, kept in the build directory). Prints
# executions, coverage and corpus size; on a crash, the input (hex) and where it is.
# Fails if either part crashed.
#
# The fuzzer runs in a network namespace of its own when it can (root): libpcap looks
# host names of a filter up (`host foo`), and fuzzed filters must not send DNS queries.
set -euo pipefail
bin=$1 corpus=$2 work=$3 secs=$4
name=${bin##*/}
mkdir -p "$work/corpus" "$work/artifacts"
log=$work/fuzz.log
NET=()
[ "$(id -u)" = 0 ] && command -v unshare >/dev/null && NET=(unshare --net)
failed=0

shopt -s nullglob
files=("$corpus"/*)
if [ ${#files[@]} -gt 0 ]; then
	# FZ_REPLAY: nothing known is stepped around (fuzz_bpf.h)
	if FZ_REPLAY=1 "${NET[@]}" "$bin" "${files[@]}" </dev/null >"$log.replay" 2>&1; then
		echo "$name: replayed the ${#files[@]} inputs of $corpus (seeds and regressions): ok"
	else
		grep -v '^INFO:' "$log.replay" | tail -60
		echo "$name: FAIL: $(grep '^Running: ' "$log.replay" | tail -1 | cut -d' ' -f2) crashes it (above)"
		failed=1
	fi
fi

# the syntax the fuzzer cannot learn from coverage (tests/fuzz/NAME.dict), if any
dict=$(dirname "$(dirname "$corpus")")/${corpus##*/}.dict
DICT=()
[ -f "$dict" ] && DICT=(-dict="$dict")
rc=0
env -u FZ_REPLAY "${NET[@]}" "$bin" -max_total_time="$secs" -timeout=20 -print_final_stats=1 \
	"${DICT[@]}" -artifact_prefix="$work/artifacts/" "$work/corpus" "$corpus" </dev/null \
	>"$log" 2>&1 || rc=$?
# the last status line: "#EXECS DONE cov: N ft: N corp: N/SIZE ... exec/s: N rss: N"
grep -E '^#[0-9]+' "$log" | tail -1 | sed "s/^/$name: /" || true
if [ "$rc" != 0 ]; then
	grep -v -E '^#[0-9]|^INFO:' "$log" | tail -80
	a=$(grep -o "Test unit written to .*" "$log" | tail -1 | cut -d' ' -f5-)
	if [ -n "$a" ] && [ -f "$a" ]; then
		echo "$name: the input ($(stat -c %s "$a") bytes), $a:"
		od -A d -t x1z -v "$a" | head -40
	fi
	echo "$name: FAIL: a crash after fuzzing (exit $rc). Reproduce: $bin FILE; once fixed," \
		"copy FILE to $corpus/crash-WHAT, so that it is replayed from then on"
	failed=1
else
	echo "$name: $secs s of fuzzing: no crash"
fi
# the EAL runtime directory of a fuzzer that crashed (fuzz_eal.h removes it at a clean exit)
for d in /var/run/dpdk/fe-fuzz-*; do
	kill -0 "${d##*-}" 2>/dev/null || rm -rf "$d"
done
exit $failed
