#!/usr/bin/env bash
# cfetch's benchmarks (docs/performance.md, section "cfetch"). Prints
# figures; asserts nothing. Every case runs RUNS times (default 3) and the
# medians are printed:
#
#   1. the demo site's URLs (its sitemaps: every category and product page,
#      the site warmed up first) at concurrency 16: cfetch, then Scrapy (Debian's python3-scrapy, the
#      spider in scripts/bench/scrapy/) on the same list in the same run:
#      pages/s, CPU seconds per 1000 pages, peak RSS;
#   2. one small page at concurrency 16: wrk -c16 (the raw HTTP ceiling of
#      this machine) and cfetch (target: at least 25% of wrk's requests/s);
#   3. the same page with 50 ms of server latency at concurrency 16 (the
#      ceiling is 16 / 0.05 s = 320 requests/s; target: at least 95%);
#   4. 100,000 requests streamed through cfetch (target: peak RSS < 100 MB);
#   5. ten virtual hosts, one of which answers in 2 s (a Go benchmark,
#      BenchmarkTenHostsOneSlow): the nine fast hosts' pages/s with and
#      without it (target: at least 80%).
#
# Cases 2–4 are pure download tests: --no-robots and one URL repeated.
# Case 1 obeys robots.txt in both crawlers.
#
#   scripts/bench/fetch.sh                 everything
#   RUNS=5 scripts/bench/fetch.sh          more runs per case
#   CASES="1 2" scripts/bench/fetch.sh     some cases only
#
# Missing tools (wrk, python3-scrapy, GNU time) are installed with apt-get
# on the first run, except under CI (CI set), where their cases are skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
CASES=${CASES:-"1 2 3 4 5"}
CONC=16
export LC_ALL=C

. scripts/bench/lib.sh

install_missing() {
	local missing=()
	command -v wrk >/dev/null 2>&1 || missing+=(wrk)
	has_scrapy || missing+=(python3-scrapy)
	[ -x /usr/bin/time ] || missing+=(time)
	apt_install "${missing[@]}"
}

# timed FILE CMD...: runs CMD with GNU time; writes "wall_s cpu_s rss_kb" to FILE.
timed() {
	local out=$1
	shift
	/usr/bin/time -v -o "$work/time.txt" "$@" >/dev/null
	awk -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
		/User time/ { cpu += $2 }
		/System time/ { cpu += $2 }
		/Maximum resident set size/ { rss = $2 }
		END { printf "%.3f %.3f %d\n", wall, cpu, rss }' "$work/time.txt" >"$out"
}

# median: the median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# start_site LATENCY: serves the demo site; sets SITE.
start_site() {
	local ready=$work/site-$1
	"$BIN/demosite" -listen 127.0.0.1:0 -latency "$1" -ready "$ready" 2>>"$work/site.log" &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$ready" ] && break; sleep 0.1; done
	[ -s "$ready" ] || { say "the demo site did not start"; cat "$work/site.log" >&2; exit 1; }
	SITE=$(cat "$ready")
}

# crawl_figures NAME PAGES: medians of the runs in $work/NAME.*: prints
# "pages/s cpu_s_per_1000 rss_mb".
crawl_figures() {
	local name=$1 pages=$2
	local rate cpu rss
	rate=$(for f in "$work/$1".*; do awk -v p="$pages" '{ print p / $1 }' "$f"; done | median)
	cpu=$(for f in "$work/$1".*; do awk -v p="$pages" '{ print $2 / p * 1000 }' "$f"; done | median)
	rss=$(for f in "$work/$1".*; do awk '{ print $3 / 1024 }' "$f"; done | median)
	printf '%.0f %.2f %.1f\n' "$rate" "$cpu" "$rss"
}

row() { printf '  %-44s %s\n' "$1" "$2"; }

# repeat URL N: URL on N lines.
repeat() { awk -v u="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) print u }'; }

install_missing
mkdir -p "$BIN"
say "building cfetch and the demo site into $BIN"
go build -o "$BIN/" ./cmd/cfetch ./internal/cmd/demosite
CFETCH=$BIN/cfetch

cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
printf 'cfetch benchmarks: %s cores (%s), %s, %s; medians of %s runs\n' \
	"$(nproc)" "$cpu_model" "$(go version | cut -d' ' -f3)" "$("$CFETCH" --version)" "$RUNS"

if has_case 1; then
	start_site 0s
	say "listing the demo site's URLs from its sitemaps"
	{
		echo "$SITE/"
		echo "$SITE/about.html"
		curl -fsS "$SITE/sitemap.xml" | sed -n 's:.*<loc>\(.*\)</loc>.*:\1:p' | while read -r sm; do
			curl -fsS "$sm" | sed -n 's:.*<loc>\(.*\)</loc>.*:\1:p'
		done
	} >"$work/urls.txt"
	n=$(wc -l <"$work/urls.txt")
	# The demo site renders each page on its first request: warm it, so
	# that both crawlers (and every run) see the same server.
	"$CFETCH" -q --no-robots --concurrency $CONC --per-host $CONC "$work/urls.txt" >/dev/null
	echo
	echo "1. demo site, $n URLs (every category and product page), concurrency $CONC, robots.txt obeyed"
	for r in $(seq "$RUNS"); do
		timed "$work/cfetch-crawl.$r" "$CFETCH" -q --concurrency $CONC --per-host $CONC "$work/urls.txt"
	done
	read -r rate cpu rss < <(crawl_figures cfetch-crawl "$n")
	row "cfetch -c $CONC --per-host $CONC" "$rate pages/s, $cpu CPU s/1000 pages, $rss MB peak RSS"
	if has_scrapy && [ -x /usr/bin/time ]; then
		for r in $(seq "$RUNS"); do
			timed "$work/scrapy-crawl.$r" /usr/bin/python3 -m scrapy runspider scripts/bench/scrapy/urls_spider.py \
				-a urls="$work/urls.txt" -s CONCURRENT_REQUESTS=$CONC -s CONCURRENT_REQUESTS_PER_DOMAIN=$CONC \
				-O "$work/scrapy.jsonl" 2>>"$work/scrapy.log"
			got=$(wc -l <"$work/scrapy.jsonl")
			[ "$got" -eq "$n" ] || say "scrapy wrote $got items for $n URLs (see $work/scrapy.log)"
		done
		read -r srate scpu srss < <(crawl_figures scrapy-crawl "$n")
		row "scrapy $(/usr/bin/python3 -m scrapy version 2>/dev/null), same settings" "$srate pages/s, $scpu CPU s/1000 pages, $srss MB peak RSS"
		row "cfetch / scrapy" "$(awk -v a="$rate" -v b="$srate" 'BEGIN { printf "%.1fx the pages/s", a / b }'), $(awk -v a="$cpu" -v b="$scpu" 'BEGIN { printf "%.1fx less CPU per page", b / a }')"
	else
		row "scrapy" "skipped (python3-scrapy not installed)"
	fi
fi

if has_case 2 || has_case 4; then
	[ -n "${SITE:-}" ] || start_site 0s
	page=$SITE/about.html
fi

if has_case 2; then
	echo
	echo "2. one small page ($(curl -fsS "$page" | wc -c) bytes), concurrency $CONC"
	wrk_rate=
	if command -v wrk >/dev/null 2>&1; then
		wrk_rate=$(for _ in $(seq "$RUNS"); do
			wrk -t2 -c$CONC -d10s "$page" | awk '/Requests\/sec/ { print $2 }'
		done | median)
		row "wrk -t2 -c$CONC -d10s (raw HTTP ceiling)" "$(printf '%.0f' "$wrk_rate") requests/s"
	else
		row "wrk" "skipped (not installed)"
	fi
	reqs=30000
	repeat "$page" $reqs >"$work/one-page.txt"
	for r in $(seq "$RUNS"); do
		timed "$work/cfetch-page.$r" "$CFETCH" -q --no-robots --concurrency $CONC --per-host $CONC "$work/one-page.txt"
	done
	read -r rate cpu rss < <(crawl_figures cfetch-page $reqs)
	share=
	[ -n "$wrk_rate" ] && share=$(awk -v a="$rate" -v b="$wrk_rate" 'BEGIN { printf ", %.0f%% of wrk (target: at least 25%%)", 100 * a / b }')
	row "cfetch --no-robots, $reqs requests" "$rate requests/s$share; $cpu CPU s/1000, $rss MB"
fi

if has_case 3; then
	start_site 50ms
	slow_page=$SITE/about.html
	reqs=3200
	repeat "$slow_page" $reqs >"$work/latency.txt"
	echo
	echo "3. 50 ms server latency, concurrency $CONC (ceiling: $CONC / 0.05 s = 320 requests/s)"
	if command -v wrk >/dev/null 2>&1; then
		wrk50=$(for _ in $(seq "$RUNS"); do
			wrk -t2 -c$CONC -d10s "$slow_page" | awk '/Requests\/sec/ { print $2 }'
		done | median)
		row "wrk -t2 -c$CONC -d10s" "$(printf '%.0f' "$wrk50") requests/s ($(awk -v a="$wrk50" 'BEGIN { printf "%.1f", 100 * a / 320 }')% of the ceiling)"
	fi
	for r in $(seq "$RUNS"); do
		timed "$work/cfetch-latency.$r" "$CFETCH" -q --no-robots --concurrency $CONC --per-host $CONC "$work/latency.txt"
	done
	read -r rate cpu rss < <(crawl_figures cfetch-latency $reqs)
	row "cfetch --no-robots, $reqs requests" "$rate requests/s, $(awk -v a="$rate" 'BEGIN { printf "%.1f", 100 * a / 320 }')% of the ceiling (target: at least 95%)"
fi

if has_case 4; then
	echo
	echo "4. 100,000 requests streamed (one small page, repeated), concurrency $CONC"
	for r in $(seq "$RUNS"); do
		# sh is the parent: GNU time reports the largest process waited for, cfetch.
		timed "$work/cfetch-100k.$r" sh -c "awk -v u='$page' 'BEGIN { for (i = 0; i < 100000; i++) print u }' | '$CFETCH' -q --no-robots --concurrency $CONC --per-host $CONC >/dev/null"
	done
	read -r rate cpu rss < <(crawl_figures cfetch-100k 100000)
	row "cfetch --no-robots" "peak RSS $rss MB (target: under 100 MB); $rate requests/s"
fi

if has_case 5; then
	echo
	echo "5. ten virtual hosts (--resolve), one answering in 2 s, 1000 requests each, interleaved; concurrency $CONC"
	go test -run '^$' -bench '^BenchmarkTenHostsOneSlow$' -benchtime 1x -count "$RUNS" ./internal/cfetch/ >"$work/tenhosts.txt"
	alone=$(awk '/^BenchmarkTenHostsOneSlow/ { for (i = 1; i < NF; i++) if ($(i + 1) == "fast-pages/s-alone") print $i }' "$work/tenhosts.txt" | median)
	with=$(awk '/^BenchmarkTenHostsOneSlow/ { for (i = 1; i < NF; i++) if ($(i + 1) == "fast-pages/s-with-slow") print $i }' "$work/tenhosts.txt" | median)
	ratio=$(awk '/^BenchmarkTenHostsOneSlow/ { for (i = 1; i < NF; i++) if ($(i + 1) == "ratio") print $i }' "$work/tenhosts.txt" | median)
	row "nine fast hosts alone" "$(printf '%.0f' "$alone") pages/s"
	row "nine fast hosts with the slow one" "$(printf '%.0f' "$with") pages/s (median ratio $(printf '%.2f' "$ratio"); target: at least 0.80)"
fi
