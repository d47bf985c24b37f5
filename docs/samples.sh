#!/usr/bin/env bash
# Make the docs' sample outputs from a real run's results: every fenced block that follows
# a line `<!-- sample NAME: WHAT -->` in README.md and docs/campaigns.md becomes the
# summary of the run of campaign NAME in DIR, printed again by this build
# (`fabemuctl campaign summary DIR`), so the samples always have the current format:
#   WHAT all     the whole summary
#   WHAT tables  its tables only: the job's, the baselines', the network's, the NICs',
#                the verdicts (the README's), with "..." for the rows past the sixth
# Blocks of other campaigns are left alone; the check (tests/report/samples.sh) says
# whether a sample still has the current columns.
#   docs/samples.sh DIR...     DIR: results of `fabemuctl campaign run` (campaign.json)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ctl=${FABEMU_BIN:-$root/build/bin}/fabemuctl
[ $# -ge 1 ] || { echo "usage: docs/samples.sh RESULTS_DIR..." >&2; exit 2; }
for dir in "$@"; do
	summary=$("$ctl" campaign summary "$dir")
	name=$(sed -n '1s/^campaign \([^:]*\):.*/\1/p' <<<"$summary")
	[ -n "$name" ] || { echo "docs/samples.sh: $dir: no campaign's summary" >&2; exit 1; }
	for doc in README.md docs/campaigns.md; do
		SUMMARY=$summary NAME=$name python3 - "$root/$doc" <<'PY'
import os, re, sys
path = sys.argv[1]
name, summary = os.environ["NAME"], os.environ["SUMMARY"]
# the summary without its first line (campaign NAME: status), as the run printed it
lines = summary.split("\n")[1:]
paras, cur = [], []
for l in lines:
    if l.strip() == "":
        if cur:
            paras.append(cur)
        cur = []
    else:
        cur.append(l)
if cur:
    paras.append(cur)
heads = ("all-reduce, slowest rank", "p50 over the baseline", "network, per run",
         "NICs, per run", "verdicts (")
def tables():
    out = []
    for p in paras:
        if p[0].startswith(heads):
            rows = p[:7] + (["..."] if len(p) > 7 and not p[0].startswith("verdicts") else [])
            if p[0].startswith("NICs"):  # the table, not its legend and notes below it
                rows = p[:next((k for k, r in enumerate(p) if r.startswith("CE eaten")), len(p))]
            elif p[0].startswith("verdicts"):
                rows = p
            out.append("\n".join(rows))
    return "\n\n".join(out)
what = {"all": "\n".join(lines).strip("\n"), "tables": tables()}
text = open(path).read()
pat = re.compile(r"(<!-- sample " + re.escape(name) + r": (\w+) -->\n```\n)(.*?)(\n```)", re.S)
def repl(m):
    if m.group(2) not in what:
        sys.exit(f"{path}: sample {name}: '{m.group(2)}' (allowed: all, tables)")
    return m.group(1) + what[m.group(2)] + m.group(4)
new, n = pat.subn(repl, text)
if n:
    open(path, "w").write(new)
    print(f"{path}: {n} sample(s) of {name}")
PY
	done
done
