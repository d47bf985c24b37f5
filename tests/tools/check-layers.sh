#!/bin/bash
# The rooms of the code (docs/architecture.md), checked on the sources:
#  1. control/ writes no field of the engine: it asks through dataplane/engine/fe_ctlif.h, the
#     one handoff (an assignment, ++/--, an atomic store, a counter macro or a memset
#     reached through a `dp->` is a write);
#  2. control/ includes none of the engine's inner headers (fe_update.h, fe_switch.h,
#     fe_adopt.h): it knows the engine by fe_dp.h's structures and fe_ctlif.h's calls;
#  3. the models (dataplane/models/) include nothing of DPDK: they run on a fake clock
#     without EAL;
#  4. the engine's change path is one way: fe_update.c (the control side of a change)
#     calls nothing of fe_dp.c, and fe_dp.c nothing of fe_update.c but through fe_adopt.h;
#  5. the regime is dispatched once (fe_regime.h): in the engine, conf.regime is read only
#     by the code that builds it (functions named *_setup, *_create or *_step, and
#     fe_update.c's check_structure), never on the way of a frame.
# usage: check-layers.sh [SRC]      (SRC: the source tree; default: this script's)
#        check-layers.sh --self-test (each check must catch a planted violation)
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)

# what control/ may not do to the engine, one extended regex a line
WRITES=(
	'(^|[^A-Za-z0-9_])dp->[A-Za-z0-9_.>[-]*(\[[^]=]*\])*[A-Za-z0-9_.>-]*[[:space:]]*([-+*/|&^]|<<|>>)?=[^=]'
	'(^|[^A-Za-z0-9_])dp->[A-Za-z0-9_.>[-]*(\[[^]=]*\])*[A-Za-z0-9_.>-]*(\+\+|--)'
	'(\+\+|--)[[:space:]]*[A-Za-z0-9_>.-]*dp->'
	'__atomic_(store|exchange|fetch_[a-z]+|add_fetch|sub_fetch)[a-z_]*\([[:space:]]*&[^,]*dp->'
	'FE_CNT_(SET|ADD|MAX)\([^,]*dp->'
	'(memset|memcpy)\([[:space:]]*&?[^,]*dp->'
)
INNER='#include "(fe_update|fe_switch|fe_adopt)\.h"'

# check SRC: prints each violation, returns how many kinds were found
check() {
	local src=$1 bad=0 out
	# 1: comments are not code: drop // lines and /* */ lines before looking
	for re in "${WRITES[@]}"; do
		out=$(grep -rnE --include='*.c' --include='*.h' "$re" "$src/control" |
			grep -vE ':[0-9]+:[[:space:]]*(/?\*|//)')
		if [ -n "$out" ]; then
			echo "control/ writes an engine field (use dataplane/engine/fe_ctlif.h):"
			echo "$out"
			bad=$((bad + 1))
		fi
	done
	# 2
	out=$(grep -rnE --include='*.c' --include='*.h' "$INNER" "$src/control")
	if [ -n "$out" ]; then
		echo "control/ includes an inner header of the engine:"
		echo "$out"
		bad=$((bad + 1))
	fi
	# 3
	out=$(grep -nE '#include <(rte_|dpdk)' "$src"/dataplane/models/*.[ch] 2>/dev/null)
	if [ -n "$out" ]; then
		echo "a model includes DPDK (models run without EAL):"
		echo "$out"
		bad=$((bad + 1))
	fi
	# 4
	out=$(grep -nE '#include "fe_update\.h"' "$src"/dataplane/engine/fe_dp.c 2>/dev/null
	      grep -nE '\bfe_dp_[a-z_]+\(' "$src"/dataplane/engine/fe_update.c 2>/dev/null |
		grep -vE 'fe_dp_(ack|tsc_ns)\(')
	if [ -n "$out" ]; then
		echo "the change path goes both ways between fe_dp.c and fe_update.c:"
		echo "$out"
		bad=$((bad + 1))
	fi
	# 5: the function each use of conf.regime is in (this style: its name starts a line)
	out=$(awk 'FNR == 1 { fn = "" } /^[a-z_0-9]+\(/ { fn = $0; sub(/\(.*/, "", fn) }
		/conf\.regime/ && fn !~ /(_setup|_create|_step|^check_structure)$/ {
			print FILENAME ":" FNR ": in " (fn == "" ? "(file scope)" : fn) "(): " $0 }' \
		"$src"/dataplane/engine/*.c 2>/dev/null)
	if [ -n "$out" ]; then
		echo "the engine tests the regime outside its set-up (dispatch it: fe_regime.h):"
		echo "$out"
		bad=$((bad + 1))
	fi
	return $bad
}

if [ "${1:-}" = --self-test ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	mkdir -p "$t/control" "$t/dataplane/models" "$t/dataplane/engine"
	plant() { # a file of control/ with one line; expect the check to fail on it
		printf '%s\n' "$2" >"$t/$1"
		if check "$t" >/dev/null; then
			echo "check-layers: missed: $2"
			exit 1
		fi
		rm -f "$t/$1"
	}
	plant control/x.c '	c->dp->hold_link = 2;'
	plant control/x.c '	dp->ports[i].up_def = up[i];'
	plant control/x.c '	dp->ports[i + 1].st.rx_pkts += 3;'
	plant control/x.c '	c->dp->changes++;'
	plant control/x.c '	__atomic_store_n(&c->dp->reset_req, gen, __ATOMIC_RELEASE);'
	plant control/x.c '	FE_CNT_SET(dp->sw.unicast, 0);'
	plant control/x.c '	memset(&dp->idle, 0, sizeof(dp->idle));'
	plant control/x.c '#include "fe_update.h"'
	plant dataplane/models/m.c '#include <rte_mbuf.h>'
	plant dataplane/engine/fe_update.c '	s = fe_dp_causal_step(dp);'
	plant dataplane/engine/fe_dp.c '#include "fe_update.h"'
	plant dataplane/engine/fe_switch.c "$(printf '%s\n' 'static void' \
		'to_egress(struct fe_dp *dp)' '{' '	if (dp->conf.regime == FE_REGIME_PFC)')"
	# and what it must let pass: reads, comparisons, a local's own fields
	printf '%s\n' '	if (dp->nports == 2 && c->dp->hz >= 1 && x != dp->graph)' \
		'	n = dp->nports;' '	/* dp->tap = NULL is what fe_ctlif_untap() does */' \
		'	fe_ctlif_hold(c->dp, 2 * port, ns, CTL_WAIT_NS);' >"$t/control/ok.c"
	printf '%s\n' 'static int' 'regime_setup(struct fe_dp *dp)' '{' \
		'	switch (dp->conf.regime) {' >"$t/dataplane/engine/ok.c"
	if ! check "$t"; then
		echo "check-layers: a clean file was refused"
		exit 1
	fi
	echo "check-layers: self-test passed (12 planted violations caught, clean code passed)"
	exit 0
fi

src=${1:-$here}
for f in dataplane/models/fe_link.c dataplane/engine/fe_dp.c dataplane/engine/fe_update.c \
	dataplane/engine/fe_ctlif.h control/server/fe_ctl.c; do
	if [ ! -f "$src/$f" ]; then # a check over files that moved away passes for nothing
		echo "check-layers: $f is missing: the layout changed; change this check with it"
		exit 1
	fi
done
if check "$src"; then
	echo "check-layers: control/ writes no engine field, includes no inner header; models" \
		"have no DPDK; the change path is one way; the regime is tested only in set-up"
	exit 0
fi
exit 1
