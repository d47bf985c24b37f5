#!/usr/bin/env bash
# Topologies (docs/topologies.md) with fabemuctl: every shipped one checks, shows its ports
# and links, and draws (Graphviz); a broken file is refused with FILE:LINE and exit 1;
# usage errors exit 2.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init topology
T=$FE_TMP
CTL="$FE_BIN/fabemuctl"

"$CTL" topology check single leaf-spine fat-tree rail ring3 | sed 's/^/  /'
out=$("$CTL" topology show fat-tree)
[ "$(grep -c '^port ' <<<"$out")" = 16 ] || fe_fail "fat-tree: 16 host ports expected"
[ "$(grep -c '^link ' <<<"$out")" = 32 ] || fe_fail "fat-tree: 32 links expected"
grep -q '^link agg1-1-core1 ' <<<"$out" || fe_fail "fat-tree: link names switch-switch"
out=$("$CTL" topology show rail)
grep -q '^port 1   host h1       rail 2 on rail2' <<<"$out" || fe_fail "rail: h1's second port: $out"
echo "  ok   fat-tree: 16 ports, 32 links named a-b; rail: a port a rail"
"$CTL" topology show leaf-spine --svg "$T/ls.svg"
grep -q '<svg' "$T/ls.svg" && grep -q 'spine2' "$T/ls.svg" || fe_fail "no drawing"
"$CTL" topology show ring3 --dot | grep -q '"s3" -- "s1"' || fe_fail "ring3: the cycle's third link"
echo "  ok   drawn with Graphviz (SVG) and as DOT"
out=$("$CTL" topology show fat-tree --routes)
grep -q '^edge1-1    -> edge2-1    4 hops, 2 ways: edge1-1-agg1-1 edge1-1-agg1-2$' <<<"$out" ||
	fe_fail "fat-tree: edge to edge across pods: $(grep '^edge1-1    -> edge2-1' <<<"$out")"
[ "$(grep -c ' -> ' <<<"$out")" = $((8 * 19)) ] || fe_fail "fat-tree: a route from every switch to every edge"
echo "  ok   routes: fat-tree edge to edge, 4 hops, 2 ways; from all 20 switches to all 8 edges"

printf 'name: broken\nswitches: [{name: a}, {name: b}]\nhosts:\n  - {name: h1, switch: a}\nlinks:\n  - {a: a, b: c}\n' >"$T/broken.yaml"
set +e
msg=$("$CTL" topology check "$T/broken.yaml" 2>&1)
rc=$?
"$CTL" topology show 2>/dev/null
rc2=$?
set -e
[ "$rc" = 1 ] && [ "$msg" = "$T/broken.yaml:6: links entry 1: no switch 'c'" ] ||
	fe_fail "broken file: rc $rc, '$msg'"
[ "$rc2" = 2 ] || fe_fail "usage error: rc $rc2 (expected 2)"
echo "  ok   refused with FILE:LINE (exit 1); usage (exit 2)"
echo "topology: passed"
