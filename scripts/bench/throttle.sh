#!/usr/bin/env bash
# cthrottle's decisions per second (docs/throttle.md), printed, never
# asserted:
#
#   1. the store in process (go test -bench BenchmarkReserve): local,
#      SQLite and Redis; one handle or four, one key per call or 64; medians
#      of RUNS (default 3) runs;
#   2. cthrottle as a command: N (200,000) request lines over 1,000 hosts, at
#      a rate that never holds a record (so the figure is the decisions, not
#      the waits), through one process and through four processes sharing
#      one store: --local, --db FILE, --redis (a redis-server on a free
#      loopback port, when Debian's redis-server is installed). Records/s
#      over the wall time of all of them.
#
# The crawl loop moves 1,000-2,000 pages/s on the demo site
# (scripts/bench.sh loop): each figure here is how far the throttle is from
# being its bottleneck.
#
#   scripts/bench/throttle.sh
#   RUNS=5 N=1000000 scripts/bench/throttle.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
N=${N:-200000}
CASES=${CASES:-"1 2"}
export LC_ALL=C

. scripts/bench/lib.sh

if has_case 1; then
	echo "1. the store in process, decisions/s (medians of $RUNS runs; 1,000 keys in turn)"
	go test ./internal/throttle -run '^$' -bench '^BenchmarkReserve$' -benchtime 2s -count "$RUNS" 2>/dev/null |
		awk '/decisions\/s/ { for (i = 1; i <= NF; i++) if ($(i+1) == "decisions/s") { name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkReserve\//, "", name); print name, $i } }' |
		sort -k1,1 -k2,2g |
		awk '{ v[$1] = v[$1] " " $2; n[$1]++ } END { for (k in v) { split(substr(v[k], 2), a, " "); printf "  %-28s %10.0f\n", k, a[int((n[k] + 1) / 2)] } }' | sort
fi

if has_case 2; then
	go build -o "$BIN/" ./cmd/cthrottle
	awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "https://host%d.example/%d\n", i % 1000, i }' >"$work/urls.txt"
	split -n l/4 "$work/urls.txt" "$work/part."
	redis=
	if command -v redis-server >/dev/null 2>&1; then
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null &
		pids+=($!)
		for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
		redis="redis://127.0.0.1:$port/0"
	fi
	# run STORE-FLAGS...: prints records/s for one process, then four.
	run() {
		local one four start end
		rm -f "$work"/t.db*
		start=$(date +%s.%N)
		"$BIN/cthrottle" -q --rate 1000000/s "$@" <"$work/urls.txt" >/dev/null
		end=$(date +%s.%N)
		one=$(awk -v a="$start" -v b="$end" -v n="$N" 'BEGIN { printf "%.0f", n / (b - a) }')
		rm -f "$work"/t.db*
		start=$(date +%s.%N)
		local four_pids=()
		for p in "$work"/part.*; do
			"$BIN/cthrottle" -q --rate 1000000/s "$@" <"$p" >/dev/null &
			four_pids+=($!)
		done
		wait "${four_pids[@]}"
		end=$(date +%s.%N)
		four=$(awk -v a="$start" -v b="$end" -v n="$N" 'BEGIN { printf "%.0f", n / (b - a) }')
		printf '  %-10s one process %8s/s, four processes %8s/s\n' "$label" "$one" "$four"
	}
	echo "2. cthrottle as a command, $N request lines over 1,000 hosts, records/s"
	label=--local run --local
	label=--db run --db "$work/t.db"
	if [ -n "$redis" ]; then
		label=--redis run --redis "$redis"
	else
		say "no redis-server: the Redis case is skipped"
	fi
fi
