#!/usr/bin/env bash
# The main job: crawl the bundled demo site — a shop of 3000 products served
# offline on 127.0.0.1 — with a pipeline of crawlutils commands, and write
# every product to out/products.csv. Then print a summary (with the site's
# own count of the requests it got) and check the CSV against the site's
# ground truth: every product, once.
#
#   scripts/demo.sh                 build, serve, crawl, check
#   OUT=/tmp/x scripts/demo.sh      write elsewhere
#   CONCURRENCY=32 scripts/demo.sh  more requests at once
#   JS=0 scripts/demo.sh            leave out the JavaScript shop
#
# The crawl is one loop closed through the frontier (scripts/crawl.sh):
#   cqueue pop --follow | cfetch | cextract -r demo.yml | cexport -r demo.yml -o products.csv | cqueue push
#
# Then, when Chromium is installed, the site's JavaScript shop (/js/: products
# built by scripts) is crawled with cfetch --render into out/js-products.csv
# and checked against its own ground truth; without Chromium it says so and
# skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
BIN=${BIN:-bin}
CONCURRENCY=${CONCURRENCY:-16}
export LC_ALL=C

mkdir -p "$OUT" "$BIN"
# The first build downloads the modules crawlutils needs (a few MB) from the
# Go module proxy: say so rather than stay silent for minutes. Every later
# run, and the crawl itself, needs no network.
if ! GOPROXY=off go list -deps ./cmd/... ./internal/cmd/demosite >/dev/null 2>&1; then
	echo "demo: first build: downloading the Go modules crawlutils needs from the Go module proxy ($(go env GOPROXY)); this can take a few minutes" >&2
	go mod download
fi
echo "demo: building the tools into $BIN/" >&2
go build -o "$BIN/" ./cmd/... ./internal/cmd/demosite
PATH="$(cd "$BIN" && pwd):$PATH"

work=$(mktemp -d)
site_pid=
cleanup() {
	if [ -n "$site_pid" ]; then kill "$site_pid" 2>/dev/null || true; wait "$site_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

demosite -listen 127.0.0.1:0 -ready "$work/site" 2>"$work/site.log" &
site_pid=$!
for _ in $(seq 100); do [ -s "$work/site" ] && break; sleep 0.1; done
[ -s "$work/site" ] || { echo "demo: the demo site did not start:" >&2; cat "$work/site.log" >&2; exit 1; }
SITE=$(cat "$work/site")
echo "demo: crawling $SITE with concurrency $CONCURRENCY" >&2

start=$(date +%s.%N)

# The crawl loop (scripts/crawl.sh): the frontier feeds cfetch, cextract
# follows the rules in testdata/rules/demo.yml (home page → categories →
# their pages → products) and extracts each product, cexport writes the CSV
# and passes the follow-up requests and acks on to cqueue push, which queues
# the new requests and settles the acks. It ends by itself once nothing is
# queued or in flight.
rm -f "$OUT/products.csv"
echo "$SITE/" | CFETCH_CONCURRENCY=$CONCURRENCY CFETCH_PER_HOST=$CONCURRENCY CFETCH_STATS="$work/fetch.json" \
	scripts/crawl.sh - testdata/rules/demo.yml "$OUT/products.csv" --db "$work/crawl.db" --crawlid demo --appid demo

end=$(date +%s.%N)

# Summary: pages fetched, items, time, the site's request counters, and the
# check against the ground truth the demo site knows.
pages=$(sed -n 's/.*"in": *\([0-9]*\).*/\1/p' "$work/fetch.json" | head -n1)
items=$(($(wc -l <"$OUT/products.csv") - 1))
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
rate=$(awk -v p="$pages" -v s="$secs" 'BEGIN { printf "%.0f", p / s }')
echo "demo: fetched $pages pages in ${secs}s ($rate pages/s), exported $items products to $OUT/products.csv"

# What the site saw (internal/demosite, "Counting requests"): its requests
# against those of a perfect crawl. Duplicates (a page fetched again, e.g.
# reached both directly and through a redirect) and early retries (a 503
# retried before its Retry-After) are reported, not failed on.
stats=$(curl -fsS "$SITE/__demosite/stats") || stats=
sitestat() { n=$(printf '%s\n' "$stats" | sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p"); echo "${n:-?}"; }
echo "demo: the site answered $(sitestat requests) requests, a perfect crawl makes $(sitestat expected): $(sitestat duplicates) duplicates, $(sitestat early_retries) early retries"

# Every product once: no duplicate rows (by URL) in the export.
dups=$(tail -n +2 "$OUT/products.csv" | cut -d, -f1 | sort | uniq -d)
if [ -n "$dups" ]; then
	echo "demo: $(printf '%s\n' "$dups" | wc -l) products exported more than once; first:" >&2
	printf '%s\n' "$dups" | head -n 10 >&2
	exit 1
fi

demosite -truth -truth-format csv -base "$SITE" >"$OUT/truth.csv"
if diff <(tail -n +2 "$OUT/truth.csv" | sort) <(tail -n +2 "$OUT/products.csv" | sort) >"$work/diff"; then
	echo "demo: all $items products match the site's ground truth ($OUT/truth.csv)"
else
	echo "demo: the export differs from the ground truth ($(grep -c '^[<>]' "$work/diff") lines); first differences:" >&2
	head -n 10 "$work/diff" >&2
	exit 1
fi

# The JavaScript shop (/js/): products only a browser sees, built by an
# inline script, from a fetch() of JSON, by a client-side router and behind a
# "load more" button. cfetch renders every page in headless Chromium, waits
# until the page marks itself built, and clicks "load more" with the render
# script (testdata/rules/demo-js-more.js).
if [ "${JS:-1}" = 0 ]; then
	echo "demo: skipped the JavaScript shop ($SITE/js/): JS=0"
	exit 0
fi
# cfetch --render with nothing to fetch checks that it finds a browser.
if ! cfetch -q --render </dev/null 2>/dev/null; then
	echo "demo: skipped the JavaScript shop ($SITE/js/): no Chromium found (apt-get install chromium-headless-shell, or chromium, to crawl it with cfetch --render)"
	exit 0
fi
echo "demo: crawling the JavaScript shop $SITE/js/ with cfetch --render" >&2
rm -f "$OUT/js-products.csv"
echo "$SITE/js/" | CFETCH_RENDER=true CFETCH_RENDER_WAIT=css:html.ready CFETCH_RENDER_SCRIPT="$PWD/testdata/rules/demo-js-more.js" \
	scripts/crawl.sh - testdata/rules/demo-js.yml "$OUT/js-products.csv" --db "$work/js.db" --crawlid demo-js --appid demo
demosite -truth -js -truth-format csv -base "$SITE" >"$OUT/js-truth.csv"
jsitems=$(($(wc -l <"$OUT/js-products.csv") - 1))
if diff <(tail -n +2 "$OUT/js-truth.csv" | sort) <(tail -n +2 "$OUT/js-products.csv" | sort) >"$work/jsdiff"; then
	echo "demo: all $jsitems JavaScript-built products match the site's ground truth ($OUT/js-truth.csv)"
else
	echo "demo: the JavaScript shop's export differs from its ground truth ($(grep -c '^[<>]' "$work/jsdiff") lines); first differences:" >&2
	head -n 10 "$work/jsdiff" >&2
	exit 1
fi
