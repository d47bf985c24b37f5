#!/usr/bin/env bash
# The tests' own check (testbeds/lib.sh fe_within, under fe_check): every bound of every
# end-to-end test goes through it, so it must fail what is outside, and what is not a
# number, as well as pass what is inside.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
bad=0
expect() { # WANT VALUE LO HI: WANT in or out
	local got=out
	fe_within "$2" "$3" "$4" && got=in
	[ "$got" = "$1" ] || { echo "lib-checks: $2 within $3 .. $4: $got, want $1" >&2; bad=1; }
}
expect in 5 1 10
expect in 1 1 10
expect in 10 1 10
expect out 0 1 10
expect out 10.5 1 10
expect in 0.37 0 0.85
expect out 0.86 0 0.85
expect in -3 -5 0
expect out -6 -5 0
expect in 1e6 1 1000000
expect out 1e6 1 999999
expect in .5 0 1
expect out "" 0 0
expect out None 0 0
expect out abc 0 100
expect out "1 2" 0 100
expect in "3*2" 5 7 # an expression: python3's
expect out "3*3" 5 7
# integers beyond a double's exact range: compared exactly (python3's)
expect out 9007199254740993 9007199254740992 9007199254740992
expect in 9007199254740993 9007199254740993 9007199254740993
[ "$bad" = 0 ] || exit 1
echo "lib-checks: fe_within passed 20 cases"
