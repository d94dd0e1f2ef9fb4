#!/usr/bin/env bash
# The crawl loop's benchmarks (docs/performance.md, section "Frontier and the
# crawl loop"). Prints figures; asserts nothing but the loop's item count.
# Every case runs RUNS times (default 3), interleaved, and the medians are
# printed:
#
#   1. the whole loop (scripts/crawl.sh: cqueue pop --follow | cfetch |
#      cextract -r testdata/rules/demo.yml | cexport -o CSV | cqueue push)
#      over the demo site (3000 products), concurrency 16, 16 per host,
#      robots.txt obeyed, a fresh SQLite db each run: wall seconds, pages/s
#      (cfetch's --stats "in"), CPU seconds of all the pipeline's processes,
#      peak RSS of the largest process; the CSV must hold 2919 products;
#   2. Scrapy (Debian's python3-scrapy) running a CrawlSpider with the same
#      rules and selectors (scripts/bench/scrapy/demo_crawlspider.py) on the
#      same site: the same figures (pages = downloader/response_count), and
#      the ratios loop / Scrapy;
#   3. cfetch | cextract alone over the URLs the loop fetched (collected
#      once from a loop run that also warms the site): if it is much faster
#      than the loop, the frontier is the bottleneck;
#   4. the SQLite frontier's Go micro-benchmarks (BenchmarkSQLitePush,
#      BenchmarkSQLitePop, BenchmarkSQLitePopAck, BenchmarkSQLiteLoopTurn;
#      500 batches each), if they finish within MICRO_TIMEOUT (120 s);
#   5. cqueue as a command at scale: QUEUE_N (1,000,000) URLs over 1,000
#      hosts pushed into a fresh file, then 200,000 more in runs of 50 per
#      host (as a page's follow-ups come) and, on another copy, round-robin
#      over the hosts (the worst case for the duplicate filter's locality);
#      100,000 pops with leases; info; the file's size per queued URL. One
#      run each, default flags. QUEUE_N=10000000 for the 10 million figures
#      (about 10 minutes and 3 GB of disk);
#   6. the Redis frontier with 1, 4 and 16 workers sharing one crawl, each
#      with its own connections, on one redis-server, on a Redis Cluster
#      of three masters (the crawl in one slot), and on that cluster with
#      the crawl split over three slots (shards=3, "sharded"): pushing it
#      (BenchmarkRedisPushWorkers, batches of 1,000) and popping it with
#      leases, 128 at a time, each worker a consumer
#      (BenchmarkRedisPopWorkers); REDIS_N = 100,000 requests, RUNS runs:
#      pushes and pops with lease per second, the median and each run's,
#      with the busiest master's share of the masters' CPU seconds and the
#      records per CPU second of that master;
#   7. Redis memory (sizing): one redis-server (no persistence, a unix
#      socket), SIZE_N (1,000,000) URLs over 1,000 hosts (the URLs of case 5)
#      pushed with cqueue push: INFO memory's used_memory per queued URL,
#      and MEMORY USAGE of the frontier's keys per URL (the requests, their
#      queue entries, the duplicate filter's fingerprints); then 100,000 of
#      them popped and acked (what a crawled URL leaves: its fingerprint);
#      then the same URLs through cdedupe (a namespace of its own): bytes per
#      fingerprint. SIZE_N=10000000 for the 10 million figures (about 30
#      minutes on 2 busy cores, and 5 GB of memory);
#   8. Redis round trips per crawled page: cqueue crawl of the demo site on
#      one redis-server, with redis-cli MONITOR counting the commands the
#      tools send (each a round trip, or part of a pipeline) and those the
#      scripts run, per page cfetch fetched; the crawl unsplit and split
#      in three (shards=3).
#
#   scripts/bench/frontier.sh              everything
#   RUNS=5 scripts/bench/frontier.sh       more runs per case
#   CASES="1 3" scripts/bench/frontier.sh  some cases only
#
# Missing tools (python3-scrapy, GNU time) are installed with apt-get on the
# first run, except under CI (CI set), where Scrapy's case is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
CASES=${CASES:-"1 2 3 4 5 6 7 8"}
CONC=16
ITEMS=2919
MICRO_TIMEOUT=${MICRO_TIMEOUT:-120}
QUEUE_N=${QUEUE_N:-1000000}
SIZE_N=${SIZE_N:-1000000}
export LC_ALL=C

. scripts/bench/lib.sh

install_missing() {
	local missing=()
	[ -x /usr/bin/time ] || missing+=(time)
	if has_case 2 && ! has_scrapy; then missing+=(python3-scrapy); fi
	apt_install "${missing[@]}"
}

row() { printf '  %-46s %s\n' "$1" "$2"; }
# qtimed LABEL N CMD...: runs CMD, prints N per second (unless N is 0),
# CPU and RSS.
qtimed() {
	local label=$1 n=$2
	shift 2
	timed "$work/q.txt" "$@"
	read -r wall cpu rss <"$work/q.txt"
	row "$label" "$(awk -v n="$n" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN { printf "%.2f s", w; if (n) printf ": %.0f/s", n / w; printf ", %.2f CPU s, %.1f MB peak RSS", c, r / 1024 }')"
}

# redis_up DIR: starts a redis-server listening on DIR/redis.sock only (no
# persistence, its files in DIR), stopped at the end, and waits for it.
redis_up() {
	mkdir -p "$1"
	redis-server --port 0 --unixsocket "$1/redis.sock" --unixsocketperm 700 --save '' --appendonly no \
		--dir "$1" --logfile "$1/redis.log" --daemonize no &
	pids+=($!)
	for _ in $(seq 100); do [ "$(redis-cli -s "$1/redis.sock" ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
}

install_missing
[ -x /usr/bin/time ] || { say "GNU time (/usr/bin/time) is needed"; exit 1; }
mkdir -p "$BIN"
say "building the tools and the demo site into $BIN"
go build -o "$BIN/" ./cmd/... ./internal/cmd/demosite
PATH="$(cd "$BIN" && pwd):$PATH"

cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
printf 'crawl loop benchmarks: %s cores (%s), %s; medians of %s runs\n' \
	"$(nproc)" "$cpu_model" "$(go version | cut -d' ' -f3)" "$RUNS"

if has_case 1 || has_case 2 || has_case 3; then
	start_site

	# One loop run, by hand, with cfetch's output teed: it warms the site
	# (each page is rendered on its first request) and lists the URLs the
	# loop fetches, for case 3.
	say "warm-up loop on $SITE, collecting the fetched URLs"
	echo "$SITE/" | cqueue push -q --db "$work/warm.db" --crawlid demo --appid demo
	cqueue pop -q --db "$work/warm.db" --follow |
		cfetch -q --concurrency $CONC --per-host $CONC |
		tee "$work/responses.jsonl" |
		cextract -q -r testdata/rules/demo.yml |
		cexport -q -o "$work/warm.csv" | cqueue push -q --db "$work/warm.db"
	jq -r '.request.url // empty' "$work/responses.jsonl" >"$work/urls.txt"
	rm -f "$work/responses.jsonl"
	nurls=$(wc -l <"$work/urls.txt")
	say "the loop fetched $nurls URLs"
fi

run_scrapy=
if has_case 2; then
	if [ -n "${CI:-}" ]; then
		say "CI is set: Scrapy's case is skipped"
	elif has_scrapy; then
		run_scrapy=1
	else
		say "python3-scrapy is not installed: Scrapy's case is skipped"
	fi
fi

for r in $(seq "$RUNS"); do
	if has_case 1; then
		say "run $r: the crawl loop"
		rm -f "$work/loop.db" "$work/loop.csv" "$work/fetch.json"
		echo "$SITE/" >"$work/seeds.txt"
		CFETCH_CONCURRENCY=$CONC CFETCH_PER_HOST=$CONC CFETCH_STATS="$work/fetch.json" \
			timed "$work/t.txt" bash scripts/crawl.sh "$work/seeds.txt" testdata/rules/demo.yml "$work/loop.csv" \
			--db "$work/loop.db" --crawlid demo --appid demo
		pages=$(sed -n 's/.*"in": *\([0-9]*\).*/\1/p' "$work/fetch.json" | head -n1)
		rows=$(($(wc -l <"$work/loop.csv") - 1))
		[ "$rows" -eq $ITEMS ] || { say "the loop exported $rows products, not $ITEMS"; exit 1; }
		echo "$(cat "$work/t.txt") $pages" >"$work/res.loop.$r"
	fi
	if [ -n "$run_scrapy" ]; then
		say "run $r: Scrapy"
		rm -f "$work/scrapy.csv" "$work/scrapy-stats.json"
		timed "$work/t.txt" /usr/bin/python3 -m scrapy runspider scripts/bench/scrapy/demo_crawlspider.py \
			-a start="$SITE/" -a stats="$work/scrapy-stats.json" -O "$work/scrapy.csv" 2>>"$work/scrapy.log"
		spages=$(jq '."downloader/response_count"' "$work/scrapy-stats.json")
		sitems=$(($(wc -l <"$work/scrapy.csv") - 1))
		[ "$sitems" -eq $ITEMS ] || say "Scrapy exported $sitems products, not $ITEMS (see $work/scrapy.log)"
		echo "$(cat "$work/t.txt") $spages" >"$work/res.scrapy.$r"
	fi
	if has_case 3; then
		say "run $r: cfetch | cextract"
		timed "$work/t.txt" bash -c "cfetch -q --concurrency $CONC --per-host $CONC <'$work/urls.txt' | cextract -q -r testdata/rules/demo.yml >/dev/null"
		echo "$(cat "$work/t.txt") $nurls" >"$work/res.pipe.$r"
	fi
done

if has_case 1 || has_case 2 || has_case 3; then
	echo
	echo "demo site ($SITE), 3000 products, concurrency $CONC, $CONC per host, robots.txt obeyed"
fi
if has_case 1; then
	read -r wall pages rate cpu rss cpus < <(figures loop)
	row "1. loop (scripts/crawl.sh), $ITEMS products" "$wall s, $pages pages, $rate pages/s, $cpus CPU s ($cpu CPU ms/page), $rss MB peak RSS (largest process)"
fi
if has_case 2; then
	if [ -n "$run_scrapy" ]; then
		read -r swall spages srate scpu srss scpus < <(figures scrapy)
		row "2. scrapy $(/usr/bin/python3 -m scrapy version 2>/dev/null) CrawlSpider, $sitems products" "$swall s, $spages responses, $srate pages/s, $scpus CPU s ($scpu CPU ms/page), $srss MB peak RSS"
		if has_case 1; then
			row "   loop / scrapy" "$(awk -v a="$rate" -v b="$srate" -v c="$cpu" -v d="$scpu" -v e="$rss" -v f="$srss" \
				'BEGIN { printf "%.1fx the pages/s, %.1fx less CPU per page, %.1fx less peak RSS", a / b, d / c, f / e }')"
		fi
	else
		row "2. scrapy" "skipped"
	fi
fi
if has_case 3; then
	read -r pwall ppages prate pcpu prss pcpus < <(figures pipe)
	row "3. cfetch | cextract, the loop's $ppages URLs" "$pwall s, $prate pages/s, $pcpus CPU s ($pcpu CPU ms/page), $prss MB peak RSS"
	if has_case 1; then
		row "   loop / (cfetch | cextract)" "$(awk -v a="$rate" -v b="$prate" 'BEGIN { printf "%.0f%% of the pages/s", 100 * a / b }')"
	fi
fi

if has_case 4; then
	echo
	echo "4. SQLite frontier micro-benchmarks (internal/frontier/bench_test.go: a frontier of FRONTIER_BENCH_N, default 1,000,000, queued URLs)"
	if timeout "$MICRO_TIMEOUT" go test ./internal/frontier -run '^$' -bench 'BenchmarkSQLite(Push|Pop|PopAck|LoopTurn)$' -benchtime 500x >"$work/micro.txt" 2>&1; then
		grep '^Benchmark' "$work/micro.txt" | sed 's/^/  /'
	else
		row "skipped" "did not finish within ${MICRO_TIMEOUT}s (go test ./internal/frontier -run '^\$' -bench 'BenchmarkSQLite' -benchtime 500x)"
	fi
fi

if has_case 5; then
	echo
	echo "5. cqueue at $QUEUE_N queued URLs (1,000 hosts; one run each; GNU time)"
	q=$work/queue
	mkdir -p "$q"
	# urls FROM TO SPREAD: URLs FROM..TO-1 over 1,000 hosts, SPREAD in a
	# row on one host (1: round-robin).
	urls() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { for (i = a; i < b; i++) printf "https://h%d.example/p/%d\n", int(i / s) % 1000, i }'; }
	urls 0 "$QUEUE_N" 50 >"$q/urls.txt"
	urls "$QUEUE_N" "$((QUEUE_N + 200000))" 50 >"$q/clustered.txt"
	urls "$QUEUE_N" "$((QUEUE_N + 200000))" 1 >"$q/spread.txt"
	push=(cqueue push -q --crawlid big --appid bench)
	qtimed "push $QUEUE_N URLs into a new file" "$QUEUE_N" "${push[@]}" --db "$q/base.db" <"$q/urls.txt"
	bytes=$(stat -c %s "$q/base.db")
	row "file size" "$(awk -v b="$bytes" -v n="$QUEUE_N" 'BEGIN { printf "%.0f MB, %.0f bytes per queued URL", b / 1e6, b / n }')"
	cp "$q/base.db" "$q/a.db"
	qtimed "push 200,000 more, 50 per host in a row" 200000 "${push[@]}" --db "$q/a.db" <"$q/clustered.txt"
	cp "$q/base.db" "$q/a.db"
	qtimed "push 200,000 more, round-robin over hosts" 200000 "${push[@]}" --db "$q/a.db" <"$q/spread.txt"
	cp "$q/base.db" "$q/a.db"
	qtimed "pop 100,000 with leases" 100000 cqueue pop -q --db "$q/a.db" --max 100000
	qtimed "info" 0 cqueue info -q --db "$q/a.db"
	rm -rf "$q"
fi

if has_case 6; then
	echo
	echo "6. Redis frontier, workers sharing one crawl: pushes/s (batches of 1,000) and pops with lease/s (128 a call); median of $RUNS runs, each run's in brackets;"
	echo "   the busiest master's share of the masters' CPU seconds, and records per CPU second of it (what one node serves with a core of its own)"
	FRONTIER_BENCH_N=${REDIS_N:-100000} go test ./internal/frontier -run '^$' -bench '^BenchmarkRedis(Push|Pop)Workers$' -benchtime 1x -count "$RUNS" -timeout 30m 2>&1 |
		awk '/^BenchmarkRedis/ { name = $1; sub(/^BenchmarkRedis/, "", name); sub(/Workers\//, " ", name); sub(/-[0-9]+$/, "", name)
			for (i = 2; i < NF; i++) if ($(i+1) ~ /^(pops\/s|pushes\/s|busiest-master-share|per-busiest-master-cpu-s)$/) print name "\t" $(i+1) "\t" $i }' >"$work/redis-rates.tsv"
	med() { awk -F'\t' -v n="$1" -v u="$2" '$1 == n && $2 == u { print $3 }' "$work/redis-rates.tsv" | median; }
	awk -F'\t' '$2 ~ /\/s$/ { print $1 "\t" $2 }' "$work/redis-rates.tsv" | awk '!seen[$0]++' | while IFS=$'\t' read -r name unit; do
		runs=$(awk -F'\t' -v n="$name" -v u="$unit" '$1 == n && $2 == u { printf "%s%.0f", sep, $3; sep = " " }' "$work/redis-rates.tsv")
		printf '  %-26s %8.0f %-8s [%s]  busiest master %.2f, %.0f per its CPU second\n' "$name" "$(tr ' ' '\n' <<<"$runs" | median)" "$unit" "$runs" \
			"$(med "$name" busiest-master-share)" "$(med "$name" per-busiest-master-cpu-s)"
	done
fi

if has_case 7; then
	echo
	echo "7. Redis memory at $SIZE_N queued URLs (1,000 hosts; one redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p'), no persistence; one run)"
	r=$work/redis
	redis_up "$r"
	rc() { redis-cli -s "$r/redis.sock" "$@" | tr -d '\r'; }
	R="unix://$r/redis.sock"
	used() { rc info memory | sed -n 's/^used_memory:\([0-9]*\)$/\1/p'; }
	# usage PATTERN: MEMORY USAGE (every element counted) summed over the
	# keys PATTERN matches.
	usage() { rc --scan --pattern "$1" | while read -r k; do rc memory usage "$k" samples 0; done | awk '{ s += $1 } END { print s + 0 }'; }
	# replays: the answers of the last two minutes' calls, kept to answer a
	# retry; they expire by themselves, and are deleted before measuring.
	drop_replays() { rc --scan --pattern 'crawlutils:f:replay:*' | while read -r k; do rc del "$k" >/dev/null; done; }
	per() { awk -v b="$1" -v n="$2" 'BEGIN { printf "%.1f", b / n }'; }
	awk -v n="$SIZE_N" 'BEGIN { for (i = 0; i < n; i++) printf "https://h%d.example/p/%d\n", int(i / 50) % 1000, i }' >"$r/urls.txt"
	m0=$(used)
	qtimed "push $SIZE_N URLs" "$SIZE_N" cqueue push -q --redis "$R" --crawlid big --appid bench <"$r/urls.txt"
	replay=$(usage 'crawlutils:f:replay:*')
	drop_replays
	m1=$(used)
	row "used_memory, per queued URL" "$(per $((m1 - m0)) "$SIZE_N") bytes ($(((m1 - m0) / 1000000)) MB in all; replay answers dropped first: $((replay / 1000000)) MB, for 2 minutes)"
	raw=$(usage 'crawlutils:f:raw')
	meta=$(usage 'crawlutils:f:meta')
	queues=$(usage 'crawlutils:f:q:*')
	seen=$(usage 'crawlutils:seen:big')
	len=$(rc hget crawlutils:f:raw 1 | wc -c)
	row "  its request (f:raw)" "$(per "$raw" "$SIZE_N") bytes (the JSON: $((len - 1)) bytes, $(rc hget crawlutils:f:raw 1))"
	row "  its entry's state (f:meta)" "$(per "$meta" "$SIZE_N") bytes"
	row "  its place in its host's queue (f:q:*)" "$(per "$queues" "$SIZE_N") bytes"
	row "  its fingerprint (seen:CRAWLID)" "$(per "$seen" "$SIZE_N") bytes"
	done_n=$((SIZE_N < 100000 ? SIZE_N : 100000))
	cqueue pop -q --redis "$R" --max "$done_n" | jq -c '{kind: "ack", lease}' | cqueue push -q --redis "$R"
	drop_replays
	m2=$(used)
	row "popped and acked $done_n: freed per URL" "$(per $((m1 - m2)) "$done_n") bytes; a crawled URL keeps $(per $((m1 - m0 - (m1 - m2) * SIZE_N / done_n)) "$SIZE_N")"
	qtimed "cdedupe $SIZE_N URLs (a namespace of its own)" "$SIZE_N" cdedupe -q --redis "$R" --namespace sizing -o /dev/null "$r/urls.txt"
	m3=$(used)
	row "  used_memory, per fingerprint" "$(per $((m3 - m2)) "$SIZE_N") bytes (MEMORY USAGE: $(per "$(usage 'crawlutils:seen:sizing')" "$SIZE_N"))"
	row "used_memory_rss at the end" "$(rc info memory | sed -n 's/^used_memory_rss_human:\(.*\)$/\1/p') (used_memory $(rc info memory | sed -n 's/^used_memory_human:\(.*\)$/\1/p'))"
	rm -f "$r/urls.txt"
fi

if has_case 8; then
	echo
	echo "8. Redis round trips per crawled page: cqueue crawl of the demo site with --redis (one redis-server, a unix socket), the crawl unsplit and split in three (shards=3); redis-cli MONITOR counts the commands the tools send, not those a script runs; median of $RUNS runs"
	r=$work/rt
	redis_up "$r"
	[ -n "${SITE:-}" ] || start_site
	echo "$SITE/" >"$r/seeds.txt"
	for split in "" "shards=3"; do
		rm -f "$r"/res.*
		for i in $(seq "$RUNS"); do
			redis-cli -s "$r/redis.sock" flushall >/dev/null
			redis-cli -s "$r/redis.sock" monitor >"$r/monitor.txt" &
			mon=$!
			sleep 0.2
			CFETCH_CONCURRENCY=$CONC CFETCH_PER_HOST=$CONC CFETCH_STATS="$r/fetch.json" \
				cqueue crawl -q "$r/seeds.txt" testdata/rules/demo.yml "$r/items.csv" --redis "unix://$r/redis.sock${split:+?$split}" --crawlid "rt$i" --appid demo
			sleep 0.2
			kill "$mon" 2>/dev/null || true
			wait "$mon" 2>/dev/null || true
			pages=$(jq .in "$r/fetch.json")
			# A command a script runs is logged as "[0 lua]", one a client
			# sends as "[0 unix:…]".
			sent=$(grep -v '^OK' "$r/monitor.txt" | grep -vc ' lua\] ' || true)
			scripts=$(grep -v ' lua\] ' "$r/monitor.txt" | grep -ci '\] "eval' || true)
			inner=$(grep -c ' lua\] ' "$r/monitor.txt" || true)
			echo "$pages $sent $scripts $inner" >"$r/res.$i"
			rm -f "$r/items.csv"
		done
		echo "  ${split:-unsplit}:"
		sort -n -k2 "$r"/res.* | awk -v n="$RUNS" 'NR == int((n + 1) / 2) {
			printf "    %-44s %.2f (%d commands for %d pages, %d of them scripts)\n", "commands sent per page", $2 / $1, $2, $1, $3
			printf "    %-44s %.1f\n", "commands run by the scripts, per page", $4 / $1 }'
	done
fi
