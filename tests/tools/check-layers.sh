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
#  6. the engine's files stand in layers (ENGINE below, bottom to top; docs/architecture.md
#     draws them): every file of dataplane/engine is listed; each includes (#include
#     "fe_*.h") only the engine's headers listed before it, and a .c its own header; no
#     file calls a function that a file listed after it defines (a lower layer reaches up
#     only through a table of functions: the regime's, fe_regime.h, and dp->nic_trimmed).
#     Include-and-call cycles cannot form.
#  7. the link table's numbering is written out once (fe_dp.h: fe_dp_link_id(),
#     fe_dp_link_kind(), fe_dp_port_link()): no "2 * port (+ 1)", "2 * nports + h" or
#     "n / 2", "n % 2" for a link anywhere else in dataplane/ or control/.
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

# the engine's files, bottom to top, a layer a line ("name: files"); a file may use only
# those listed before it (in its own layer too: the order holds within a layer)
ENGINE=(
	'link table: fe_capture.h fe_measure.h fe_edge.h fe_filter.h fe_filter.c fe_linkx.h
		fe_linkx.c fe_regime.h fe_dp.h fe_nictag.h fe_nictag.c fe_linkop.h fe_linkop.c'
	'switch graph: fe_graph.h fe_trunk.h fe_trunk.c fe_egress.h fe_egress.c fe_routing.h
		fe_routing.c fe_hop.h fe_hop.c fe_flood.h fe_flood.c fe_lossless.h fe_lossless.c
		fe_graph.c'
	'NIC edge: fe_nicport.h fe_nicport.c'
	'adoption: fe_derive.h fe_derive.c fe_update.h fe_adopt.h fe_adopt.c'
	'pass loop: fe_switch.h fe_switch.c fe_regime.c fe_dp.c'
	'change path: fe_update.c fe_ctlif.h fe_ctlif.c'
)

# 6 on the engine in $1: prints each file out of its layer, each include and call upward
engine_layers() {
	local eng=$1/dataplane/engine ranks="" i=0 l f files=()

	for l in "${ENGINE[@]}"; do
		local name=${l%%:*}
		for f in ${l#*:}; do
			ranks+=" $f:$i:${name// /_}"
			i=$((i + 1))
			[ -f "$eng/$f" ] && files+=("$eng/$f")
		done
	done
	for f in "$eng"/*.[ch]; do
		[ -f "$f" ] || continue
		case " $ranks" in *" ${f##*/}:"*) ;; *) echo "dataplane/engine/${f##*/}: in no layer" ;; esac
	done
	[ ${#files[@]} -eq 0 ] && return 0
	# comments are not code; a definition starts its line (fe_x( after the return type's
	# line); FE_RG_CALL(R, fe_x, ...) and the fe_rg_*() of fe_regime.h call fe_x_<regime>
	awk -v ranks="$ranks" '
	BEGIN {
		n = split(ranks, a, " ")
		for (i = 1; i <= n; i++) {
			split(a[i], b, ":")
			rank[b[1]] = b[2] + 0
			layer[b[1]] = b[3]
			gsub(/_/, " ", layer[b[1]])
		}
	}
	FNR == 1 { f = FILENAME; sub(/.*\//, "", f); files[++nf] = f; incom = 0 }
	{
		line = $0
		out = ""
		while (line != "") {
			if (incom) {
				p = index(line, "*" "/")
				if (!p)
					break
				line = substr(line, p + 2)
				incom = 0
				continue
			}
			p = index(line, "/" "*")
			q = index(line, "//")
			if (q && (!p || q < p)) {
				out = out substr(line, 1, q - 1)
				break
			}
			if (!p) {
				out = out line
				break
			}
			out = out substr(line, 1, p - 1)
			line = substr(line, p + 2)
			incom = 1
		}
		code[f, FNR] = out
		nl[f] = FNR
		if (match(out, /^fe_[a-z0-9_]+\(/))
			def[substr(out, 1, RLENGTH - 1)] = f
		if (f ~ /\.c$/ && match(out, /fe_[a-z0-9_]+_##sfx\(/))
			stem[substr(out, RSTART, RLENGTH - 7)] = f
		if (match(out, /^#define fe_rg_[a-z_]+\(R, \.\.\.\)[ \t]+FE_RG_CALL\(R, fe_[a-z0-9_]+,/)) {
			split(substr(out, 9, RLENGTH - 8), w, /[( ,\t]+/)
			rg[w[1]] = w[6]
		}
		if (match(out, /^#include "fe_[a-z0-9_]+\.h"/)) {
			h = substr(out, 11, RLENGTH - 11)
			inc[f, h] = 1
			if (!(h in rank) && system("test -f " ENGINE "/" h) == 0)
				print "dataplane/engine/" f ":" FNR ": includes " h ", in no layer"
			else if ((h in rank) && rank[h] > rank[f])
				print "dataplane/engine/" f ":" FNR ": includes " h " (" layer[h] \
				      "), above it (" layer[f] ")"
		}
	}
	END {
		for (k = 1; k <= nf; k++) {
			f = files[k]
			h = f
			sub(/\.c$/, ".h", h)
			if (f ~ /\.c$/ && system("test -f " ENGINE "/" h) == 0 && !((f, h) in inc))
				print "dataplane/engine/" f ": does not include its own header, " h
			for (i = 1; i <= nl[f]; i++) {
				s = code[f, i]
				# a header declares at the start of a line: only indented lines call
				if (s ~ /^fe_[a-z0-9_]+\(/ || (f ~ /\.h$/ && s ~ /^[^ \t]/))
					continue
				while (match(s, /fe_[a-z0-9_]+/)) {
					tok = substr(s, RSTART, RLENGTH)
					pre = substr(s, 1, RSTART - 1)
					s = substr(s, RSTART + RLENGTH)
					nx = substr(s, 1, 1)
					to = ""
					if (nx == "(" && (tok in def))
						to = def[tok]
					else if (nx == "(" && (tok in rg) && (rg[tok] in stem))
						to = stem[rg[tok]]
					else if (nx == "(" && match(tok, /_(lossy|pfc|credit)$/) &&
						 (substr(tok, 1, RSTART - 1) in stem))
						to = stem[substr(tok, 1, RSTART - 1)]
					else if (nx == "," && pre ~ /FE_RG_CALL\([^,]*, *$/ && (tok in stem))
						to = stem[tok]
					own = f
					sub(/\.h$/, ".c", own)
					if (to != "" && to != own && rank[to] > rank[f])
						print "dataplane/engine/" f ":" i ": calls " tok "() of " to \
						      " (" layer[to] "), above it (" layer[f] ")"
				}
			}
		}
	}' ENGINE="$eng" "${files[@]}"
}

# check SRC: prints each violation, returns how many kinds were found
check() {
	local src=$1 bad=0 out
	# 1: comments are not code: drop // lines and /* */ lines before looking
	for re in "${WRITES[@]}"; do
		out=$(grep -rnE --include='*.c' --include='*.h' "$re" "$src/control" |
			grep -vE ':[0-9]+:[[:space:]]*(/\*|\*( |$)|//)')
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
		grep -vE 'fe_dp_(ack|tsc_ns|link_id|link_kind|link_name|port_link|port_links|row|link_def)\(')
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
	# 7
	out=$(grep -rnE --include='*.c' --include='*.h' \
		'2 \* (\(unsigned\)|\(uint32_t\))?(port|in|q|[a-z]+->nports|[a-z]+->dp->nports|nports)\b|\bn (/|%) 2\b' \
		"$src/dataplane" "$src/control" 2>/dev/null | grep -v '/dataplane/engine/fe_dp\.h:' |
		grep -vE ':[0-9]+:[[:space:]]*(/\*|\*( |$)|//)')
	if [ -n "$out" ]; then
		echo "the link table's numbering written out (use fe_dp_link_id(), fe_dp_link_kind()):"
		echo "$out"
		bad=$((bad + 1))
	fi
	# 6
	out=$(engine_layers "$src")
	if [ -n "$out" ]; then
		echo "the engine's layers do not hold (tests/tools/check-layers.sh ENGINE):"
		echo "$out"
		bad=$((bad + 1))
	fi
	return $bad
}

if [ "${1:-}" = --self-test ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	mkdir -p "$t/control/server" "$t/dataplane/models" "$t/dataplane/engine"
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
	plant control/server/x.c '		*n = 2 * (unsigned)port + (dirs == FE_SEL_DOWN);'
	plant dataplane/engine/x.c '	tap = fe_tap_on(&dp->tap, 2 * dp->nports + h);'
	plant dataplane/engine/x.c '	struct fe_port *p = &dp->ports[n / 2];'
	plant dataplane/engine/fe_dp.c '#include "fe_update.h"'
	plant dataplane/engine/fe_switch.c "$(printf '%s\n' 'static void' \
		'to_egress(struct fe_dp *dp)' '{' '	if (dp->conf.regime == FE_REGIME_PFC)')"
	# the engine's layers: an include upward, a file in no layer, a call upward
	plant dataplane/engine/fe_graph.c '#include "fe_switch.h"'
	plant dataplane/engine/fe_pause.c '#include "fe_dp.h"'
	printf '%s\n' 'int' 'fe_graph_create(struct fe_dp *dp)' '{' '}' '#define GRAPH_REGIME(sfx) \' \
		'	unsigned fe_graph_service_##sfx(struct fe_dp *dp, uint64_t now) \' \
		>"$t/dataplane/engine/fe_graph.c"
	printf '%s\n' '#define fe_rg_graph_service(R, ...) FE_RG_CALL(R, fe_graph_service, __VA_ARGS__)' \
		>"$t/dataplane/engine/fe_regime.h"
	plant dataplane/engine/fe_linkop.c '	rc = fe_graph_create(dp);'
	plant dataplane/engine/fe_trunk.c '	n = fe_graph_service_pfc(dp, now);'
	plant dataplane/engine/fe_egress.c '	n = fe_rg_graph_service(R, dp, now);'
	rm -f "$t/dataplane/engine/fe_graph.c" "$t/dataplane/engine/fe_regime.h"
	# and what it must let pass: reads, comparisons, a local's own fields
	printf '%s\n' '	if (dp->nports == 2 && c->dp->hz >= 1 && x != dp->graph)' \
		'	n = dp->nports;' '	/* dp->tap = NULL is what fe_ctlif_untap() does */' \
		'	fe_ctlif_hold(c->dp, fe_dp_link_id(c->dp, FE_LINK_UP, port), ns, CTL_WAIT_NS);' \
		'	f[18 + 2 * p] = (uint8_t)(quanta >> 8);' >"$t/control/ok.c"
	printf '%s\n' 'static int' 'regime_setup(struct fe_dp *dp)' '{' \
		'	switch (dp->conf.regime) {' >"$t/dataplane/engine/fe_dp.c"
	# a call downward, and a mention of an upper function in a comment
	printf '%s\n' '#include "fe_regime.h"' '#define GRAPH_REGIME(sfx) \' \
		'	unsigned fe_graph_service_##sfx(struct fe_dp *dp, uint64_t now) \' \
		'	{ /* not fe_dp_pass_pfc(dp, now) */ return fe_linkop_x(dp); }' \
		>"$t/dataplane/engine/fe_graph.c"
	printf '%s\n' '#define fe_rg_graph_service(R, ...) FE_RG_CALL(R, fe_graph_service, __VA_ARGS__)' \
		>"$t/dataplane/engine/fe_regime.h"
	printf '%s\n' 'int' 'fe_linkop_x(struct fe_dp *dp)' '{' '}' >"$t/dataplane/engine/fe_linkop.c"
	printf '%s\n' '	n = fe_rg_graph_service(R, dp, now);' >"$t/dataplane/engine/fe_switch.c"
	if ! check "$t"; then
		echo "check-layers: a clean file was refused"
		exit 1
	fi
	echo "check-layers: self-test passed (20 planted violations caught, clean code passed)"
	exit 0
fi

src=${1:-$here}
for f in dataplane/models/fe_link.c dataplane/engine/fe_dp.c dataplane/engine/fe_update.c \
	dataplane/engine/fe_ctlif.h dataplane/engine/fe_graph.c control/server/fe_ctl.c; do
	if [ ! -f "$src/$f" ]; then # a check over files that moved away passes for nothing
		echo "check-layers: $f is missing: the layout changed; change this check with it"
		exit 1
	fi
done
if check "$src"; then
	echo "check-layers: control/ writes no engine field, includes no inner header; models" \
		"have no DPDK; the change path is one way; the regime is tested only in set-up;" \
		"the engine's files stand in their layers; the link table's numbering is written once"
	exit 0
fi
exit 1
