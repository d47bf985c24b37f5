#!/usr/bin/env bash
# The shell scripts run under pipefail, where `CMD | grep -q PATTERN` fails on a line it
# found: grep stops reading at its match, and CMD, still writing, dies of SIGPIPE (status
# 141; e2e_image failed so twice, 2026-12-06). This lists every pipe into grep -q in the
# end-to-end tests and the project's scripts, and fails if there is one: pipe into
# fe_grep_q (testbeds/lib.sh), or `grep ... >/dev/null`, which read all of CMD's output.
#   check-scripts.sh              the project's scripts
#   check-scripts.sh --self-test  that it finds what it looks for
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# FILE...: every pipe into grep -q, on one line or across a line that ends in | or |\
pipes() {
	awk 'FNR == 1 { prev = "" }
		/^[[:space:]]*#/ { prev = ""; next }
		/\|[[:space:]]*grep[[:space:]]+-[a-zA-Z]*q/ ||
		(prev ~ /\|[[:space:]]*\\?$/ && /^[[:space:]]*grep[[:space:]]+-[a-zA-Z]*q/) {
			print FILENAME ":" FNR ": " $0 }
		{ prev = $0 }' "$@"
}

if [ "${1:-}" = --self-test ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	printf '%s\n' 'a | grep -q x || f' 'a | grep -qx y' 'a |' '	grep -q z' \
		'a | \' 'grep -Fq w' >"$t/bad.sh"
	printf '%s\n' '# a | grep -q x' 'a | fe_grep_q x' 'grep -q x <<<"$a"' \
		'a | grep x >/dev/null' 'a' 'grep -q x f' >"$t/good.sh"
	n=$(pipes "$t/bad.sh" | wc -l)
	[ "$n" = 4 ] || { echo "check-scripts: self-test: $n of 4 pipes found" >&2; exit 1; }
	out=$(pipes "$t/good.sh")
	[ -z "$out" ] || { echo "check-scripts: self-test: found in good.sh: $out" >&2; exit 1; }
	echo "check-scripts: self-test passed"
	exit 0
fi

# (this script's self-test holds such pipes as its data: left out)
out=$(pipes "$ROOT"/tests/e2e/*.sh $(ls "$ROOT"/tests/tools/*.sh | grep -v /check-scripts.sh) "$ROOT"/tests/bench/*.sh \
	"$ROOT"/testbeds/*.sh "$ROOT"/testbeds/containerlab/*.sh "$ROOT"/.ci/run)
if [ -n "$out" ]; then
	echo "check-scripts: pipes into grep -q (under pipefail, a match can fail; use fe_grep_q):" >&2
	echo "$out" >&2
	exit 1
fi
echo "check-scripts: no pipe into grep -q"
