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
#   scripts/bench/render.sh
#   RUNS=5 PAGES=400 CONC=8 scripts/bench/render.sh
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

if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && ! command -v google-chrome >/dev/null; then
	say "no Chromium found (apt-get install chromium): render benchmark skipped"
	exit 0
fi
mkdir -p "$BIN"
go build -o "$BIN/" ./cmd/cfetch ./internal/cmd/demosite
PATH="$BIN:$PATH"
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
	cfetch -q --render --render-concurrency "$CONC" --concurrency "$CONC" --per-host "$CONC" \
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
