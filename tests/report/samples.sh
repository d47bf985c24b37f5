#!/usr/bin/env bash
# The docs' sample outputs have the current format: in README.md and docs/campaigns.md,
# every fenced block after `<!-- sample NAME: WHAT -->` (made by docs/samples.sh from a
# real run) has each table's header exactly as this build prints it (the summary of
# synthetic runs, fe-report-fixture's summary.txt), and the README has such a sample.
# A sample of an older format fails here: run docs/samples.sh on a new run's results.
set -euo pipefail
bin=${FABEMU_BIN:?FABEMU_BIN: the bin directory of a build}
src=${FABEMU_SRC:?FABEMU_SRC: the source tree}
out=$(mktemp -d /tmp/fabemu-samples.XXXXXX)
trap 'rm -rf "$out"' EXIT
"$bin/fe-report-fixture" "$out" >/dev/null
python3 - "$out/summary.txt" "$src/README.md" "$src/docs/campaigns.md" <<'PY'
import re, sys
cur = open(sys.argv[1]).read().split("\n")
# each table's header as this build prints it, by its first words
firsts = ("all-reduce, slowest rank", "p50 over the baseline's", "network, per run",
          "NICs, per run", "   ranks P(>=1 stall)")
headers = {f: l.rstrip() for l in cur for f in firsts if l.startswith(f)}
missing = [f for f in firsts if f not in headers]
if missing:
    sys.exit(f"FAIL: the fixture's summary has no header {missing}")
fail, samples = 0, 0
for path in sys.argv[2:]:
    text = open(path).read()
    blocks = re.findall(r"<!-- sample (\S+): (\w+) -->\n```\n(.*?)\n```", text, re.S)
    if path.endswith("README.md") and not blocks:
        print(f"FAIL: {path}: no sample (<!-- sample NAME: WHAT --> before a block)")
        fail = 1
    for name, what, body in blocks:
        samples += 1
        seen = 0
        for l in body.split("\n"):
            for f, h in headers.items():
                if l.startswith(f):
                    seen += 1
                    if l.rstrip() != h:
                        print(f"FAIL: {path}: sample {name}: a header of another format:\n"
                              f"  sample: {l.rstrip()}\n  now:    {h}\n"
                              f"  (docs/samples.sh makes the samples from a run's results)")
                        fail = 1
        if seen == 0:
            print(f"FAIL: {path}: sample {name}: no table's header in it")
            fail = 1
print(f"{samples} sample(s) checked against this build's headers")
sys.exit(fail)
PY
