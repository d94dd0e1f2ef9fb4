#!/usr/bin/env bash
# A broad crawl: the demo site's broad-crawl shape (demosite -broad-hosts
# HOSTS -broad-pages PAGES: HOSTS shops h001.shop.test, … on one loopback
# port, cross-host links; some hosts slow (200-400 ms), some with
# "Crawl-delay: 1", some dead (connection reset), some whose robots.txt
# answers 500), crawled from every host's home page by three crawlers, 2
# requests at once per host at most, robots.txt obeyed:
#
#   loop    cqueue crawl with scripts/bench/broad.yml, cfetch --per-host 2
#           --concurrency 64, every name resolved to 127.0.0.1 (--resolve);
#   colly   scripts/bench/colly -seeds: a LimitRule per host (Parallelism 2),
#           no global limit, names resolved to 127.0.0.1 by its dialer;
#   scrapy  Debian's python3-scrapy, scripts/bench/scrapy/broad_spider.py:
#           CONCURRENT_REQUESTS 64, _PER_DOMAIN 2, a resolver to 127.0.0.1.
#
# Each crawler runs RUNS times (default 3), interleaved; the site is reset
# before each run and its records read after it (GET /__demosite/stats,
# demosite.BroadStats). Printed per crawler, medians of the runs:
#
#   wall s, CPU s     GNU time over the whole crawl (CPU of every process)
#   tree RSS MB       the peak of the crawler's processes' resident memory,
#                     summed (scripts/bench/treerss.py, sampled every 50 ms)
#   requests, perfect the site's count, and a perfect crawl's
#   excess, missing   requests beyond / short of the perfect crawl, per host
#   violations        requests under a Crawl-delay after the previous one to
#                     the host, or over 2 at once on a host (site's count)
#   min gap ms        the shortest gap between two requests to a delayed host
#   fast done s       hosts without Crawl-delay (normal, slow): when each got
#                     its last request, median / max, from the first request
#   delayed done s    the same, max, for the Crawl-delay hosts
#   ideal s           the politeness bound (demosite.Broad.IdealTime)
#
#   scripts/bench/broad.sh                              100 hosts × 20 pages
#   BROAD_HOSTS=300 BROAD_PAGES=40 scripts/bench/broad.sh   the issue's size
#   RUNS=1 CRAWLERS="loop colly" scripts/bench/broad.sh
#   CRAWLERS="loop loop-h0 colly" ...        loop-h0: pop --horizon 0
#   KEEP_WORK=1 scripts/bench/broad.sh                  keep logs and stats
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
HOSTS=${BROAD_HOSTS:-100}
PAGES=${BROAD_PAGES:-20}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
CASES=${CRAWLERS:-"loop colly scrapy"}
PER_HOST=2
CONC=64
export LC_ALL=C

. scripts/bench/lib.sh

prepare_crawlers

start_site -broad-hosts "$HOSTS" -broad-pages "$PAGES"
PORT=${SITE##*:}
for i in $(seq "$HOSTS"); do printf 'http://h%03d.shop.test:%s/\n' "$i" "$PORT"; done >"$work/seeds.txt"

run_loop() {
	rm -f "$work/loop.db" "$work/loop.csv"
	timed "$work/t.txt" timeout "$RUN_TIMEOUT" cqueue crawl "$work/seeds.txt" scripts/bench/broad.yml "$work/loop.csv" \
		--db "$work/loop.db" --crawlid broad \
		--cfetch "--resolve *:$PORT:127.0.0.1 --per-host $PER_HOST --concurrency $CONC" 2>>"$work/loop.log"
}
# loop-h0: the loop with every request held counting against pop's window
# (--horizon 0, as before pop had a horizon), to compare in one run.
run_loop-h0() {
	rm -f "$work/loop-h0.db" "$work/loop-h0.csv"
	timed "$work/t.txt" timeout "$RUN_TIMEOUT" cqueue crawl "$work/seeds.txt" scripts/bench/broad.yml "$work/loop-h0.csv" \
		--db "$work/loop-h0.db" --crawlid broad --pop '--horizon 0' \
		--cfetch "--resolve *:$PORT:127.0.0.1 --per-host $PER_HOST --concurrency $CONC" 2>>"$work/loop-h0.log"
}
run_colly() {
	timed "$work/t.txt" timeout "$RUN_TIMEOUT" colly-demo -seeds "$work/seeds.txt" -per-host $PER_HOST -o "$work/colly.csv" 2>>"$work/colly.log"
}
run_scrapy() {
	rm -f "$work/scrapy.csv"
	PYTHONPATH=scripts/bench/scrapy timed "$work/t.txt" timeout "$RUN_TIMEOUT" /usr/bin/python3 -m scrapy runspider scripts/bench/scrapy/broad_spider.py \
		-s DNS_RESOLVER=broad_spider.LoopbackResolver -a seeds="$work/seeds.txt" -a stats="$work/scrapy-stats.json" -O "$work/scrapy.csv" 2>>"$work/scrapy.log"
}

# measure NAME KEY: resets the site, runs NAME with its process tree's
# memory sampled, and writes to $work/res.KEY: "wall cpu rss_kb requests
# expected excess missing violations min_gap_ms fast_median fast_max
# delayed_max ideal".
measure() {
	local name=$1 key=$2 rc=0 pid sampler
	curl -sf -o /dev/null -X POST "$SITE/__demosite/reset"
	"run_$name" &
	pid=$!
	/usr/bin/python3 scripts/bench/treerss.py "$pid" >"$work/rss.txt" &
	sampler=$!
	wait "$pid" || rc=$?
	wait "$sampler" || true
	if [ $rc -ne 0 ]; then
		say "$name failed (exit $rc$([ $rc -eq 124 ] && echo ": over ${RUN_TIMEOUT}s")); the end of $work/$name.log:"
		tail -n 5 "$work/$name.log" >&2
		return
	fi
	curl -sf "$SITE/__demosite/stats" >"$work/stats.$key.json"
	read -r wall cpu _ <"$work/t.txt"
	echo "$wall $cpu $(cat "$work/rss.txt") $(jq -r '[.requests, .expected, .excess, .missing, .violations, .min_delay_gap_ms, .fast_done_median_s, .fast_done_max_s, .delayed_done_max_s, .ideal_s] | map(tostring) | join(" ")' "$work/stats.$key.json")" >"$work/res.$key"
}

cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
printf 'broad crawl: %s hosts × %s pages, %s runs; %s cores (%s), %s, colly %s, %s; load average at start: %s\n' \
	"$HOSTS" "$PAGES" "$RUNS" "$(nproc)" "$cpu_model" "$(go version | cut -d' ' -f3)" \
	"$(awk '$1 == "github.com/gocolly/colly/v2" { print $2 }' scripts/bench/colly/go.mod)" \
	"$(has_case scrapy && has_scrapy && /usr/bin/python3 -m scrapy version 2>/dev/null || echo "no Scrapy")" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$RUNS"); do
	for c in "${crawlers[@]}"; do
		say "run $r: $c"
		measure "$c" "$c.$r"
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '  %-7s %7s %6s %8s %8s %8s %6s %7s %10s %7s %13s %10s %7s\n' crawler "wall s" "CPU s" "tree MB" requests perfect excess missing violations "min gap" "fast done s" "delayed s" "ideal s"
for c in "${crawlers[@]}"; do
	if ! compgen -G "$work/res.$c.*" >/dev/null; then
		printf '  %-7s every run failed\n' "$c"
		continue
	fi
	gap=$(medcol "$c" 9)
	case $gap in -1 | -) gap=- ;; *) gap=$(printf '%.0f' "$gap") ;; esac
	printf '  %-7s %7.2f %6.2f %8.1f %8s %8s %6s %7s %10s %7s %6.1f/%6.1f %10.1f %7.1f\n' "$c" \
		"$(medcol "$c" 1)" "$(medcol "$c" 2)" "$(echo "$(medcol "$c" 3) / 1024" | bc -l)" \
		"$(medcol "$c" 4)" "$(medcol "$c" 5)" "$(medcol "$c" 6)" "$(medcol "$c" 7)" "$(medcol "$c" 8)" "$gap" \
		"$(medcol "$c" 10)" "$(medcol "$c" 11)" "$(medcol "$c" 12)" "$(medcol "$c" 13)"
	echo "$(medcol "$c" 1) $(medcol "$c" 2) $(medcol "$c" 4) $(medcol "$c" 10) $(medcol "$c" 11) $(medcol "$c" 13)" >"$work/fig.$c"
done
[ -s "$work/fig.loop" ] || exit 0
awk '{ printf "  loop: %.2fx the ideal time\n", $1 / $6 }' "$work/fig.loop"
for c in colly scrapy; do
	[ -s "$work/fig.$c" ] || continue
	paste -d' ' "$work/fig.loop" "$work/fig.$c" | awk -v c="$c" '{
		printf "  loop / %s: %.2fx the wall time, %.2fx the CPU per request, fast hosts done %.2fx (median) and %.2fx (max) the time\n",
			c, $1 / $7, ($2 / $3) / ($8 / $9), ($10 > 0 ? $4 / $10 : 0), ($11 > 0 ? $5 / $11 : 0) }'
done
