#!/usr/bin/env bash
# report.html in a real browser (headless Chromium, 1,400 px wide): a report made from
# synthetic runs (fe-report-fixture: a regime distorted for many long reasons, two sizes,
# the projection and its plots) must render without running off the page's right edge,
# and each verdict must have the room of a sentence, not be squeezed to a word a line.
# The screenshot and what the page measured are kept in OUT (default: the build's
# tests/report/), beside the test's output.
#   tests/report/browser.sh [OUT]        FABEMU_BIN: the build's bin directory
set -euo pipefail
bin=${FABEMU_BIN:?FABEMU_BIN: the bin directory of a build}
out=${1:-${FABEMU_OUT:-$bin/../tests/report}}
browser=$(command -v chromium || true)
[ -n "$browser" ] || { echo "FAIL: no chromium (testbeds/setup.sh installs it)"; exit 1; }
rm -rf "$out"
mkdir -p "$out"
"$bin/fe-report-fixture" "$out/results"
report="$out/results/report.html"
# the copy the browser opens: the report, then a script that writes what it measured
# into the page's title once everything (the plots) has loaded
probe="$out/results/report-probe.html"
cp "$report" "$probe"
cat >>"$probe" <<'JS'
<script>
window.addEventListener('load', () => {
	const d = document.documentElement, w = d.clientWidth;
	const off = [...document.body.querySelectorAll('*')]
		.filter(e => e.getBoundingClientRect().right > w + 1 && !e.closest('.wide'))
		.map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''));
	const v = [...document.querySelectorAll('.verdicts li')];
	const narrow = v.length ? Math.min(...v.map(e => e.getBoundingClientRect().width)) : 0;
	const tallest = v.length ? Math.max(...v.map(e => e.getBoundingClientRect().height)) : 0;
	document.title = `probe client=${w} scroll=${d.scrollWidth} verdicts=${v.length} ` +
		`narrowest=${Math.round(narrow)} tallest=${Math.round(tallest)} ` +
		`height=${d.scrollHeight} images=${document.images.length} ` +
		`off=${off.slice(0, 5).join(',') || 'none'}`;
});
</script>
JS
# shellcheck disable=SC2054 # 1400,900 is one argument
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,900
	--virtual-time-budget=10000 --allow-file-access-from-files)
"$browser" "${flags[@]}" --dump-dom "file://$probe" >"$out/dom.html" 2>"$out/chromium.log"
"$browser" "${flags[@]}" --screenshot="$out/report-1400.png" "file://$report" \
	>>"$out/chromium.log" 2>&1
probe_line=$(grep -o '<title>probe [^<]*</title>' "$out/dom.html" || true)
echo "${probe_line:-no probe}" | tee "$out/measured.txt"
# and the whole page, as tall as it is, at the same width
height=$(sed -n 's/.* height=\([0-9]*\).*/\1/p' <<<"$probe_line")
"$browser" "${flags[@]/--window-size=1400,900/--window-size=1400,${height:-4000}}" \
	--screenshot="$out/report-1400-full.png" "file://$report" >>"$out/chromium.log" 2>&1
[ -s "$out/report-1400.png" ] || { echo "FAIL: no screenshot ($out/chromium.log)"; exit 1; }
[ -n "$probe_line" ] || { echo "FAIL: the page's probe did not run ($out/chromium.log)"; exit 1; }
get() { sed -n "s/.* $1=\([^ <]*\).*/\1/p" <<<"$probe_line"; }
client=$(get client) scroll=$(get scroll) verdicts=$(get verdicts) narrowest=$(get narrowest)
tallest=$(get tallest) off=$(get off)
fail=0
# no horizontal overflow: the page is no wider than the window (a table wider than the
# page scrolls in its own box)
if [ "$scroll" -gt "$client" ]; then
	echo "FAIL: the page overflows: scrollWidth $scroll > clientWidth $client (first: $off)"
	fail=1
fi
if [ "$off" != none ]; then
	echo "FAIL: elements past the right edge: $off"
	fail=1
fi
# every regime's verdict, each the width of a line of text (600 px and more) and no
# taller than a few lines
if [ "$verdicts" -ne 6 ]; then
	echo "FAIL: $verdicts verdicts, expected 6 (one a regime)"
	fail=1
fi
if [ "$narrowest" -lt 600 ] || [ "$tallest" -gt 150 ]; then
	echo "FAIL: a verdict squeezed: narrowest ${narrowest} px, tallest ${tallest} px"
	fail=1
fi
echo "screenshots: $out/report-1400.png (the window), $out/report-1400-full.png (the page)"
[ "$fail" = 0 ] && echo "ok: report.html at 1400 px: no overflow, verdicts ${narrowest} px wide"
exit "$fail"
