#!/usr/bin/env bash
# The test suite: install what is missing, build, run the tests with ctest, in two
# builds, each in its own directory:
#   build/        the unit and end-to-end tests (labels unit, e2e; quick: see below)
#   build-asan/   under ASan and UBSan (clang), every report a failure: the unit tests and
#                 the pcap, control and command-line end-to-end tests (tests/sanitize/;
#                 label sanitize), and the fuzz targets (libFuzzer; tests/fuzz/): each
#                 replays its corpus and fuzzes for FABEMU_FUZZ_SECONDS (10) (label fuzz).
#                 One tree for both, its code built once with the fuzzers' coverage
#                 (a third tree of its own took 68 s more to compile on 2 cores, cold;
#                 the coverage costs the sanitizer tests 4 %)
#
#   tests/run.sh               every test of both builds (needs root): what CI runs;
#                              the tests both build/ and build-asan/ have (label twin: the
#                              unit tests, the exact end-to-end ones, the report's browser
#                              and the docs' samples) run in build-asan/ only
#   tests/run.sh quick [ARGS]  the unit tests and a few exact end-to-end tests that take
#                              seconds (label quick), in build/ alone, which builds only
#                              what they use (the target quick)
#   tests/run.sh ARGS          ctest ARGS (they pass through) in the builds that they can
#                              select a test of: a label (-L) picks the builds whose own
#                              label it matches (-L unit, -L e2e: build/; -L sanitize:
#                              build-asan/, -L fuzz: build-asan/'s fuzz targets
#                              alone), and only those are built; without -L, both
#
# ctest runs with -j (the machine's cores; ARGS may give another -j): unit and fuzz tests
# in parallel, each end-to-end test alone (RUN_SERIAL, tests/fabemu_tests.cmake).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLANG=${FABEMU_CLANG:-clang-14}
JOBS=$(nproc)
T0=$SECONDS

QUICK=0
if [ "${1:-}" = quick ]; then
	QUICK=1
	shift
fi

# the labels -L and --label-regex give (ctest regular expressions)
labels=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	case "${args[i]}" in
	-L | --label-regex) labels+=("${args[i + 1]:-}") ;;
	--label-regex=*) labels+=("${args[i]#*=}") ;;
	esac
done
# wanted BUILD-LABELS...: whether the builds owning those labels are to run (yes without -L)
wanted() {
	local re l
	[ "${#labels[@]}" = 0 ] && return 0
	for re in "${labels[@]}"; do
		for l in "$@"; do
			[[ $l =~ $re ]] && return 0
		done
	done
	return 1
}

builds=()
if [ "$QUICK" = 1 ]; then
	builds=(build)
else
	wanted unit e2e quick && builds+=(build)
	wanted sanitize fuzz && builds+=(build-asan)
	[ "${#builds[@]}" != 0 ] || {
		echo "tests/run.sh: no build has a label that ${labels[*]} matches (unit, e2e, quick, sanitize, fuzz)" >&2
		exit 2
	}
fi

"$ROOT/testbeds/setup.sh"
# a new build tree is generated for Ninja (setup.sh installs it), one already made keeps
# its generator: Ninja compiles a target's files while the libraries it links are still
# building, where make waits for them (the sanitizer tree, cold, without the compile
# cache: 106 s against 115 on 2 cores)
command -v ninja >/dev/null && export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}
# every build compiles through ccache (setup.sh installs it; CMakeLists.txt uses it): a
# clean clone compiles again only what changed since a run before
# every build, no test picked: the tests both builds have (label twin: the unit tests, the
# exact end-to-end ones, report_browser and docs_samples) run in the sanitizer build only
# (under ASan and UBSan), not twice
twins=()
[ "$QUICK" = 0 ] && [ "$#" = 0 ] && [[ " ${builds[*]} " == *" build-asan "* ]] && twins=(-LE twin)
for b in "${builds[@]}"; do
	case $b in
	build)
		cmake -S "$ROOT" -B "$ROOT/build" >/dev/null
		if [ "$QUICK" = 1 ]; then
			cmake --build "$ROOT/build" -j"$JOBS" --target quick
		elif [ "${#twins[@]}" != 0 ]; then # no twin runs here: only the programs
			cmake --build "$ROOT/build" -j"$JOBS" --target programs
		else
			cmake --build "$ROOT/build" -j"$JOBS"
		fi
		;;
	build-asan)
		CC=$CLANG cmake -S "$ROOT" -B "$ROOT/build-asan" -DFABEMU_SANITIZE=ON -DFABEMU_FUZZ=ON \
			-DFABEMU_FUZZ_SECONDS="${FABEMU_FUZZ_SECONDS:-10}" >/dev/null
		if wanted sanitize; then
			cmake --build "$ROOT/build-asan" -j"$JOBS"
		else # -L fuzz alone
			cmake --build "$ROOT/build-asan" -j"$JOBS" --target fuzzers
		fi
		;;
	esac
done

# ctest's runs: a build each, but the sanitizer build's tests, then its fuzz targets,
# when no test is picked: the fuzzers beside the sanitized end-to-end tests, each busy on
# a core, slowed them (e2e_topology 21 s alone, 89 s beside them): 313 s in all against
# 193 + 62 one after the other
runs=()
for b in "${builds[@]}"; do
	if [ "$b" = build-asan ] && [ "$QUICK" = 0 ] && [ "$#" = 0 ]; then
		runs+=("$b -L sanitize" "$b -L fuzz")
	else
		runs+=("$b")
	fi
done
passed=0 failed=0 rc=0
for run in "${runs[@]}"; do
	read -r b sel <<<"$run"
	read -r -a sel <<<"$sel"
	[ "$QUICK" = 1 ] && sel=(-L quick)
	echo "== $run"
	out=$(mktemp)
	skip=()
	[ "$b" = build ] && skip=("${twins[@]}")
	(cd "$ROOT/$b" && ctest --output-on-failure -j"$JOBS" "${sel[@]}" "${skip[@]}" "$@") | tee "$out" || rc=1
	# "95% tests passed, 2 tests failed out of 40"
	read -r p f < <(awk '/tests passed, .* tests failed out of/ {
		sub("%", "", $1); n = $NF; f = $4; print n - f, f}' "$out") || true
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	rm -f "$out"
done
t=$((SECONDS - T0))
echo "tests/run.sh: $passed passed, $failed failed ($(printf '%d min %02d s' $((t / 60)) $((t % 60))), ${builds[*]})"
exit "$rc"
