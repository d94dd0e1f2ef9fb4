#!/usr/bin/env bash
# The crawl loop next to two peers on the demo site (PRODUCTS, default
# 3000), each at 16 requests at once on the one host, robots.txt obeyed:
#
#   loop    scripts/crawl.sh (cqueue pop --follow | cfetch | cextract -r
#           testdata/rules/demo.yml | cexport -o CSV | cqueue push), a fresh
#           SQLite db each run;
#   colly   scripts/bench/colly (its own Go module), colly with the fixes a
#           careful user adds: retries, one atomic seen-set of canonical
#           URLs that also takes redirect targets, <meta> charsets;
#   colly-ra  the same colly crawler, its retries waiting out a Retry-After
#           (as polite as the loop; only with CRAWLERS="... colly-ra");
#   scrapy  Debian's python3-scrapy running scripts/bench/scrapy/demo_crawlspider.py.
#
# once per site setting: "demosite -retry-after 1" (flaky pages answer 503
# with Retry-After: 1) and "-retry-after none" (without the header). Each
# crawler runs RUNS times (default 3), interleaved; before each run the site
# is reset (POST /__demosite/reset: counters and one-time failures; it is
# restarted if it has no such endpoint), after it the site's counts are read
# (GET /__demosite/stats). One table per setting, medians of the runs:
#
#   wall s, CPU ms/page, peak RSS   GNU time over the whole crawl (CPU of all
#                                   the loop's processes, RSS of the largest)
#   pages/s, CPU ms/page            per request the site served
#   requests, expected, dup req,    the site's counts: requests served, the
#   early retries                   requests a correct crawl makes, requests
#                                   for a URL already served, retries sent
#                                   before the Retry-After had passed
#   rows, dup rows, truth rows      the CSV's rows, rows whose url is on an
#                                   earlier row, truth rows found exactly
#                                   (scripts/bench/csvcheck.py against
#                                   demosite -truth)
#
#   scripts/bench/loop.sh                     everything
#   RUNS=1 scripts/bench/loop.sh              one run each
#   CRAWLERS="loop colly" scripts/bench/loop.sh
#   LATENCY=20ms scripts/bench/loop.sh        every response delayed, as on
#                                             the web (default 0: CPU-bound)
#   PAD_KB=150 scripts/bench/loop.sh          every HTML page ~150 KiB bigger
#                                             (an inline script, a style sheet,
#                                             text), as real shop pages are
#   KEEP_WORK=1 scripts/bench/loop.sh         keep the work folder (each
#                                             tool's stderr is a log there)
#
# A run that fails or outlasts RUN_TIMEOUT (600 s) is reported with its
# log's tail and left out of the medians.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
PRODUCTS=${PRODUCTS:-3000}
LATENCY=${LATENCY:-0s}
PAD_KB=${PAD_KB:-0}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
CASES=${CRAWLERS:-"loop colly scrapy"}
CONC=16
RULES=testdata/rules/demo.yml
export LC_ALL=C

. scripts/bench/lib.sh

prepare_crawlers

# site_up: starts the site with the current setting's flags and writes its
# truth for its base URL.
site_up() {
	start_site -products "$PRODUCTS" -latency "$LATENCY" -pad-kb "$PAD_KB" "${flags[@]}"
	demosite -truth -truth-format csv -products "$PRODUCTS" -base "$SITE" >"$work/truth.csv"
}

# reset_site: resets the site's counters and one-time failures, or restarts
# it if it has no reset endpoint.
reset_site() {
	local code
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$SITE/__demosite/reset" || true)
	case $code in
	2??) ;;
	*) stop_site; site_up ;;
	esac
}

# site_counts: "requests expected duplicates early_retries" from the site's
# stats, "-" for what it does not report.
site_counts() {
	{ curl -sf "$SITE/__demosite/stats" || echo '{}'; } |
		jq -r '[.requests, .expected, .duplicates, .early_retries] | map(if . == null then "-" else tostring end) | join(" ")' 2>/dev/null ||
		echo "- - - -"
}

# run_loop, run_colly, run_scrapy: one timed crawl of $SITE into
# $work/NAME.csv, stderr to $work/NAME.log; set own (the crawler's count of
# its requests).
run_loop() {
	rm -f "$work/loop.db" "$work/loop.csv" "$work/fetch.json"
	echo "$SITE/" >"$work/seeds.txt"
	CFETCH_CONCURRENCY=$CONC CFETCH_PER_HOST=$CONC CFETCH_STATS="$work/fetch.json" \
		timed "$work/t.txt" timeout "$RUN_TIMEOUT" bash scripts/crawl.sh "$work/seeds.txt" "$RULES" "$work/loop.csv" \
		--db "$work/loop.db" --crawlid demo --appid demo 2>>"$work/loop.log" || return
	own=$(sed -n 's/.*"in": *\([0-9]*\).*/\1/p' "$work/fetch.json" | head -n1)
}
run_colly() {
	timed "$work/t.txt" timeout "$RUN_TIMEOUT" colly-demo -start "$SITE/" -o "$work/colly.csv" -c $CONC 2>>"$work/colly.log" || return
	own=$(sed -n 's/^colly-demo: \([0-9]*\) requests made.*/\1/p' "$work/colly.log" | tail -n1)
}
run_colly-ra() {
	timed "$work/t.txt" timeout "$RUN_TIMEOUT" colly-demo -start "$SITE/" -o "$work/colly-ra.csv" -c $CONC -retry-after 2>>"$work/colly-ra.log" || return
	own=$(sed -n 's/^colly-demo: \([0-9]*\) requests made.*/\1/p' "$work/colly-ra.log" | tail -n1)
}
run_scrapy() {
	rm -f "$work/scrapy.csv" "$work/scrapy-stats.json"
	timed "$work/t.txt" timeout "$RUN_TIMEOUT" /usr/bin/python3 -m scrapy runspider scripts/bench/scrapy/demo_crawlspider.py \
		-a start="$SITE/" -a stats="$work/scrapy-stats.json" -O "$work/scrapy.csv" 2>>"$work/scrapy.log" || return
	own=$(jq '."downloader/request_count"' "$work/scrapy-stats.json")
}

# measure NAME KEY: resets the site, runs NAME and writes its figures to
# $work/res.KEY: "wall cpu rss pages requests expected duplicates
# early_retries rows dup_rows truth_rows", pages being the site's count of
# requests, or the crawler's own if the site does not count.
measure() {
	local name=$1 key=$2 rc=0 counts requests check
	own=
	reset_site
	"run_$name" || rc=$?
	if [ $rc -ne 0 ]; then
		say "$name failed (exit $rc$([ $rc -eq 124 ] && echo ": over ${RUN_TIMEOUT}s")); the end of $work/$name.log:"
		tail -n 5 "$work/$name.log" >&2
		return
	fi
	counts=$(site_counts)
	requests=${counts%% *}
	[ "$requests" != - ] || requests=${own:--}
	check=$(/usr/bin/python3 scripts/bench/csvcheck.py "$work/truth.csv" "$work/$name.csv")
	echo "$(cat "$work/t.txt") $requests $counts $check" >"$work/res.$key"
}

# table S LABEL: the medians of setting S's runs.
table() {
	local s=$1 c wall pages rate cpu rss cpus own_counts=
	echo
	echo "$2: $PRODUCTS products, latency $LATENCY, pages padded by $PAD_KB KiB, concurrency $CONC, robots.txt obeyed; medians of $RUNS runs"
	printf '  %-8s %7s %8s %12s %7s %9s %9s %8s %8s %6s %5s %6s\n' crawler "wall s" pages/s "CPU ms/page" "RSS MB" requests expected "dup req" "early rt" rows "dup" truth
	for c in "${crawlers[@]}"; do
		if ! compgen -G "$work/res.$c.$s.*" >/dev/null; then
			printf '  %-8s every run failed\n' "$c"
			continue
		fi
		read -r wall pages rate cpu rss cpus < <(figures "$c.$s")
		printf '  %-8s %7s %8s %12.2f %7s %9s %9s %8s %8s %6s %5s %6s\n' "$c" "$wall" "$rate" "$cpu" "$rss" \
			"$(medcol "$c.$s" 4)" "$(medcol "$c.$s" 6)" "$(medcol "$c.$s" 7)" "$(medcol "$c.$s" 8)" \
			"$(medcol "$c.$s" 9)" "$(medcol "$c.$s" 10)" "$(medcol "$c.$s" 11)"
		echo "$wall $cpu" >"$work/fig.$c.$s"
		[ "$(medcol "$c.$s" 5)" != - ] || own_counts=1
	done
	[ -z "${own_counts:-}" ] || echo "  (requests: the crawler's own count, for the site has no /__demosite/stats)"
	[ -s "$work/fig.loop.$s" ] || return 0
	for c in colly colly-ra scrapy; do
		[ -s "$work/fig.$c.$s" ] || continue
		paste -d' ' "$work/fig.loop.$s" "$work/fig.$c.$s" |
			awk -v c="$c" '{ printf "  loop / %s: %.2fx the wall time, %.2fx the CPU per page\n", c, $1 / $3, $2 / $4 }'
	done
}

if [[ $(demosite -h 2>&1) == *-retry-after* ]]; then
	settings=("-retry-after 1" "-retry-after none")
else
	say "demosite has no -retry-after flag yet: one setting, the default site"
	settings=("")
fi
cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
printf 'crawl loop vs colly and Scrapy: %s cores (%s), %s, colly %s, %s\n' "$(nproc)" "$cpu_model" \
	"$(go version | cut -d' ' -f3)" "$(awk '$1 == "github.com/gocolly/colly/v2" { print $2 }' scripts/bench/colly/go.mod)" \
	"$(has_case scrapy && has_scrapy && /usr/bin/python3 -m scrapy version 2>/dev/null || echo "no Scrapy")"

for s in "${!settings[@]}"; do
	read -ra flags <<<"${settings[$s]}"
	label="demosite ${settings[$s]:-(default)}"
	site_up
	if curl -sf -o /dev/null -X POST "$SITE/__demosite/reset"; then
		say "$label: warming it up (one uncounted colly crawl renders every page)"
		colly-demo -start "$SITE/" -o "$work/warm.csv" -c $CONC 2>>"$work/warm.log" || say "the warm-up crawl failed"
	else
		say "$label: no reset endpoint; it is restarted (cold) before each run"
	fi
	for r in $(seq "$RUNS"); do
		for c in "${crawlers[@]}"; do
			say "$label: run $r: $c"
			measure "$c" "$c.$s.$r"
		done
	done
	stop_site
	table "$s" "$label"
done
