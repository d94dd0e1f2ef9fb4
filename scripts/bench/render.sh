#!/usr/bin/env bash
# cfetch --render's benchmark (docs/cfetch.md, "What it costs"). Prints
# figures; asserts nothing. RUNS runs (default 3), medians printed:
#
#   PAGES (default 200) of the demo site's JavaScript pages (/js/inline.html,
#   /js/fetch.html, /js/more.html and the router's product pages, each URL
#   made distinct with ?i=N), rendered by cfetch --render at
#   --render-concurrency 4 (CONC), each taken once it marks itself built
#   (--render-wait css:html.ready), robots.txt obeyed: rendered pages per
#   second, and the peak memory of cfetch and its browser's processes
#   together (sampled every 100 ms by treepss.py): summed RSS, which counts
#   the pages the browser's processes share once per process, and summed
#   PSS, which splits them. Goal: 20 pages/s or more on 2 cores, under 1 GB.
#
#   And a crawl of the whole demo site (the shop and the JavaScript shop,
#   seeded with / and /js/) by cqueue crawl with
#   scripts/bench/render-crawl.yml, whose link rule for the JavaScript
#   shop says render: true: cfetch renders those pages and no other. The
#   same crawl with render: false (every page fetched, none rendered) is
#   run next to it: wall and CPU seconds of each, their ratio (goal: the
#   crawl that renders within 1.5x of the one that does not; the CPU is GNU
#   time's, which misses the browser's processes), and the
#   items each exported; on the site as it is, then with every response
#   LATENCY (default 20ms) late, as on the web.
#
#   scripts/bench/render.sh
#   RUNS=5 PAGES=400 CONC=8 scripts/bench/render.sh
#   BROWSER=/usr/bin/chromium scripts/bench/render.sh   the full browser
#
# Needs Chromium (apt-get install chromium): without it the section says so
# and measures nothing. Not compared with scrapy-playwright: it is not a
# Debian package, and Playwright's browsers come from its own download.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
PAGES=${PAGES:-200}
CONC=${CONC:-4}
CASES=render
export LC_ALL=C

. scripts/bench/lib.sh

mkdir -p "$BIN"
go build -o "$BIN/" ./cmd/cfetch ./cmd/cextract ./cmd/cexport ./cmd/cqueue ./internal/cmd/demosite
PATH="$BIN:$PATH"
# cfetch --render with nothing to fetch finds the browser it would use
# (or the one BROWSER names), or says why not.
browser=()
[ -z "${BROWSER:-}" ] || browser=(--browser "$BROWSER")
if ! cfetch -q --render "${browser[@]}" </dev/null 2>"$work/browser.txt"; then
	say "$(head -n1 "$work/browser.txt"): render benchmark skipped"
	exit 0
fi
start_site

# The router's product pages, from the ground truth.
demosite -truth -js -base "$SITE" | sed -n 's/.*"url":"\([^"]*\/js\/app\/product\/[0-9]*\)".*/\1/p' >"$work/app.txt"
{
	i=0
	while [ "$i" -lt "$PAGES" ]; do
		for u in "$SITE/js/inline.html" "$SITE/js/fetch.html" "$SITE/js/more.html" $(cat "$work/app.txt"); do
			[ "$i" -lt "$PAGES" ] || break
			echo "$u?i=$i"
			i=$((i + 1))
		done
	done
} >"$work/urls.txt"

for run in $(seq "$RUNS"); do
	start=$(date +%s.%N)
	cfetch -q "${browser[@]}" --render --render-concurrency "$CONC" --concurrency "$CONC" --per-host "$CONC" \
		--render-wait css:html.ready --render-timeout 1m <"$work/urls.txt" >"$work/out.ndjson" &
	cpid=$!
	read -r rss pss < <(/usr/bin/python3 scripts/bench/treepss.py "$cpid")
	wait "$cpid"
	end=$(date +%s.%N)
	ok=$(grep -c '"rendered":true' "$work/out.ndjson" || true)
	timeouts=$(grep -c '"render_timeout":true' "$work/out.ndjson" || true)
	awk -v a="$start" -v b="$end" -v n="$ok" -v rss="$rss" -v pss="$pss" -v t="$timeouts" \
		'BEGIN { printf "%.3f %d %.2f %.1f %.1f %d\n", b - a, n, n / (b - a), rss / 1024, pss / 1024, t }' >"$work/res.render.$run"
	say "run $run: $(cat "$work/res.render.$run") (wall_s pages pages/s peak_rss_mb peak_pss_mb timeouts)"
done
echo "render: $PAGES JavaScript pages at --render-concurrency $CONC, load $(cut -d' ' -f1-3 /proc/loadavg): $(medcol render 3) pages/s, peak memory of cfetch + browser $(medcol render 4) MB RSS, $(medcol render 5) MB PSS, $(medcol render 1) s (medians of $RUNS runs)"

# The whole site, rendering only the JavaScript shop's pages, against the
# same crawl rendering none: on the site as it is (loopback, no latency:
# the loop itself keeps both cores busy, and the browser's CPU adds to
# it), and with every response 20 ms late (LATENCY), as on the web.
sed 's/^    render: true$/    render: false/' scripts/bench/render-crawl.yml >"$work/plain.yml"
grep -q '^    render: false$' "$work/plain.yml" || { say "scripts/bench/render-crawl.yml has no render: true line"; exit 1; }
crawl_site() { # LABEL RULES
	rm -f "$work/crawl.db" "$work/crawl.jsonl"
	timed "$work/t.txt" cqueue crawl "$work/seeds.txt" "$2" "$work/crawl.jsonl" --db "$work/crawl.db" --crawlid "render-$1" \
		--cfetch "${browser[*]} --render-wait css:html.ready --render-script $PWD/testdata/rules/demo-js-more.js" 2>>"$work/crawl.log"
	echo "$(cat "$work/t.txt") $(wc -l <"$work/crawl.jsonl")" >"$work/res.$1.$run"
}
for latency in 0 "${LATENCY:-20ms}"; do
	if [ "$latency" != 0 ]; then
		stop_site
		start_site -latency "$latency"
	fi
	printf '%s\n' "$SITE/" "$SITE/js/" >"$work/seeds.txt"
	# One crawl not counted: the first after the site starts ran 1.4 s
	# longer than the others (2026-12-07), whichever rules it had.
	run=warmup crawl_site warmup "$work/plain.yml"
	rm -f "$work"/res.plain.* "$work"/res.rendered.* "$work"/res.warmup.*
	for run in $(seq "$RUNS"); do
		crawl_site plain "$work/plain.yml"
		crawl_site rendered scripts/bench/render-crawl.yml
		say "latency $latency, run $run: plain $(cut -d' ' -f1,2,4 "$work/res.plain.$run"), rendered $(cut -d' ' -f1,2,4 "$work/res.rendered.$run") (wall_s cpu_s items)"
	done
	pw=$(medcol plain 1) rw=$(medcol rendered 1)
	echo "render crawl, responses $latency late: the demo site, its JavaScript shop rendered (render: true): $rw s wall, $(medcol rendered 2) CPU s, $(medcol rendered 4) items; rendering none: $pw s, $(medcol plain 2) CPU s, $(medcol plain 4) items; ratio $(awk -v a="$rw" -v b="$pw" 'BEGIN { printf "%.2f", a / b }')x (medians of $RUNS runs)"
done
