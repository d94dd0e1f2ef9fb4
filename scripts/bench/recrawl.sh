#!/usr/bin/env bash
# A recrawl next to the first crawl (docs/cron.md): cqueue crawl of the demo
# site (PRODUCTS, default 3000; round 1 of its changing site: ETags and
# Last-Modified, answering 304) with cfetch's HTTP cache revalidating
# (--cache-dir, --cache-policy rfc9111), then the same command again on the
# unchanged site: round 2, every page requested again with If-None-Match /
# If-Modified-Since. Each run starts from an empty folder and a reset site
# (counters and one-time failures), RUNS times (default 5). Medians:
#
#   wall s, CPU s      GNU time over the whole crawl (every process of it)
#   bytes              what cfetch read from the network (its stats' bytes)
#   304                the pages answered Not Modified (cfetch's unchanged)
#   round 2 / round 1  the ratios, per run, then their median
#
#   scripts/bench/recrawl.sh
#   RUNS=3 PRODUCTS=1000 LATENCY=20ms scripts/bench/recrawl.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-5}
PRODUCTS=${PRODUCTS:-3000}
LATENCY=${LATENCY:-0s}
CASES=recrawl
RULES=$PWD/testdata/rules/demo.yml
export LC_ALL=C

. scripts/bench/lib.sh

missing=()
[ -x /usr/bin/time ] || missing+=(time)
command -v jq >/dev/null || missing+=(jq)
apt_install "${missing[@]}"

mkdir -p "$BIN"
BIN=$(cd "$BIN" && pwd)
say "building the tools and the demo site into $BIN"
go build -o "$BIN/" ./cmd/... ./internal/cmd/demosite
PATH="$BIN:$PATH"
start_site -products "$PRODUCTS" -latency "$LATENCY" -round 1

for i in $(seq "$RUNS"); do
	d="$work/run$i"
	mkdir -p "$d"
	echo "$SITE/" >"$d/seeds.txt"
	curl -sf -o /dev/null -X POST "$SITE/__demosite/reset"
	for r in 1 2; do
		(cd "$d" && timed "$work/time.$r.$i" cqueue crawl -q --stats "round$r.json" seeds.txt "$RULES" items.csv \
			--cfetch '--cache-dir cache --cache-policy rfc9111') || say "run $i round $r failed"
		read -r wall cpu _ <"$work/time.$r.$i"
		bytes=$(jq '.tools.cfetch.bytes' "$d/round$r.json")
		unchanged=$(jq '.pages.unchanged' "$d/round$r.json")
		pages=$(jq '.pages.total' "$d/round$r.json")
		echo "$wall $cpu $bytes $unchanged $pages" >"$work/res.round$r.$i"
	done
	paste "$work/res.round1.$i" "$work/res.round2.$i" |
		awk '{ printf "%.4f %.4f %.4f\n", $6 / $1, $7 / $2, $8 / $3 }' >"$work/res.ratio.$i"
done

echo "recrawl: $PRODUCTS products, latency $LATENCY; medians of $RUNS runs"
printf '%-18s %8s %8s %12s %6s %6s\n' "" "wall s" "CPU s" "bytes" "304" "pages"
for r in 1 2; do
	printf '%-18s %8s %8s %12s %6s %6s\n' "round $r" "$(medcol round$r 1)" "$(medcol round$r 2)" \
		"$(medcol round$r 3)" "$(medcol round$r 4)" "$(medcol round$r 5)"
done
printf '%-18s %8s %8s %12s\n' "round 2 / round 1" "$(medcol ratio 1)" "$(medcol ratio 2)" "$(medcol ratio 3)"
