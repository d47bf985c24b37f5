#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every test with ctest.
#   tests/run.sh            all tests (unit and end-to-end; needs root)
#   tests/run.sh -L unit    only the unit tests (any ctest arguments pass through)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/testbeds/setup.sh"
cmake -S "$ROOT" -B "$ROOT/build" >/dev/null
cmake --build "$ROOT/build" -j"$(nproc)"
cd "$ROOT/build"
ctest --output-on-failure "$@"
