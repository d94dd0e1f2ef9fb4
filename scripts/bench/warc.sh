#!/usr/bin/env bash
# The cost of --warc (docs/warc.md): cqueue crawl of the demo site
# (PRODUCTS, default 3000; PAD_KB KiB added to every page, default 0) with
# and without --cfetch '--warc crawl.warc.gz', alternating, each run from an
# empty folder and a reset site, RUNS times each (default 5). Medians:
#
#   wall s, CPU s   GNU time over the whole crawl (every process of it)
#   pages/s         pages fetched (the account's total) per wall second
#   WARC MB         the size of the WARC files written
#   warc / plain    pages/s with --warc over pages/s without, per pair of
#                   runs, then their median (goal: 0.90 or more)
#
#   scripts/bench/warc.sh
#   RUNS=3 PRODUCTS=1000 PAD_KB=100 scripts/bench/warc.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-5}
PRODUCTS=${PRODUCTS:-3000}
PAD_KB=${PAD_KB:-0}
CASES=warc
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
start_site -products "$PRODUCTS" -pad-kb "$PAD_KB"

crawl() { # crawl NAME RUN [CFETCH FLAGS]
	local d="$work/$1.$2"
	mkdir -p "$d"
	echo "$SITE/" >"$d/seeds.txt"
	curl -sf -o /dev/null -X POST "$SITE/__demosite/reset"
	(cd "$d" && timed "$work/time.$1.$2" cqueue crawl -q --stats acct.json seeds.txt "$RULES" items.csv ${3:+--cfetch "$3"}) ||
		say "$1 run $2 failed"
	read -r wall cpu _ <"$work/time.$1.$2"
	pages=$(jq '.pages.total' "$d/acct.json")
	mb=$(find "$d" -name '*.warc.gz' -printf '%s\n' | awk '{ n += $1 } END { printf "%.1f", n / 1048576 }')
	echo "$wall $cpu $pages $(awk -v p="$pages" -v w="$wall" 'BEGIN { printf "%.1f", p / w }') $mb" >"$work/res.$1.$2"
	rm -rf "$d"
}

for i in $(seq "$RUNS"); do
	crawl plain "$i"
	crawl warc "$i" '--warc crawl.warc.gz'
	paste "$work/res.plain.$i" "$work/res.warc.$i" | awk '{ printf "%.4f\n", $9 / $4 }' >"$work/res.ratio.$i"
done

echo "warc: $PRODUCTS products, pages padded by $PAD_KB KiB; medians of $RUNS runs each"
printf '%-14s %8s %8s %7s %8s %8s\n' "" "wall s" "CPU s" "pages" "pages/s" "WARC MB"
for c in plain warc; do
	printf '%-14s %8s %8s %7s %8s %8s\n' "$c" "$(medcol $c 1)" "$(medcol $c 2)" "$(medcol $c 3)" "$(medcol $c 4)" "$(medcol $c 5)"
done
printf '%-14s %8s\n' "warc / plain" "$(medcol ratio 1)"
