#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every test with ctest, in
# three builds, each in its own directory:
#   build/        the unit and end-to-end tests
#   build-asan/   the unit tests and the pcap, control and command-line end-to-end tests
#                 under ASan and UBSan (clang; tests/sanitize/), every report a failure
#   build-fuzz/   the fuzz targets (libFuzzer, clang; tests/fuzz/): each replays its corpus
#                 and fuzzes for FABEMU_FUZZ_SECONDS (15)
#   tests/run.sh            all tests (needs root)
#   tests/run.sh -L unit    only the unit tests (any ctest arguments pass through, to each
#                           build's ctest; -L fuzz, -L sanitize pick a build's own tests)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/testbeds/setup.sh"
CLANG=${FABEMU_CLANG:-clang-14}
cmake -S "$ROOT" -B "$ROOT/build" >/dev/null
cmake --build "$ROOT/build" -j"$(nproc)"
CC=$CLANG cmake -S "$ROOT" -B "$ROOT/build-asan" -DFABEMU_SANITIZE=ON >/dev/null
cmake --build "$ROOT/build-asan" -j"$(nproc)"
CC=$CLANG cmake -S "$ROOT" -B "$ROOT/build-fuzz" -DFABEMU_FUZZ=ON \
	-DFABEMU_FUZZ_SECONDS="${FABEMU_FUZZ_SECONDS:-15}" >/dev/null
cmake --build "$ROOT/build-fuzz" -j"$(nproc)" --target fuzzers

passed=0 failed=0 rc=0
for b in build build-asan build-fuzz; do
	echo "== $b"
	out=$(mktemp)
	(cd "$ROOT/$b" && ctest --output-on-failure "$@") | tee "$out" || rc=1
	# "95% tests passed, 2 tests failed out of 40"
	read -r p f < <(awk '/tests passed, .* tests failed out of/ {
		sub("%", "", $1); n = $NF; f = $4; print n - f, f}' "$out") || true
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	rm -f "$out"
done
echo "tests/run.sh: $passed passed, $failed failed"
exit "$rc"
