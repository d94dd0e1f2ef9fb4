#!/usr/bin/env bash
# The main job: crawl the bundled demo site — a shop of 3000 products served
# offline on 127.0.0.1 — with a pipeline of crawlutils commands, and write
# every product to out/products.csv. Then check the CSV against the site's
# ground truth and print a summary.
#
#   scripts/demo.sh                 build, serve, crawl, check
#   OUT=/tmp/x scripts/demo.sh      write elsewhere
#   CONCURRENCY=32 scripts/demo.sh  more requests at once
#
# The crawl goes level by level, each level one pipe of the tools:
#   home page → category pages → every page of every category → product pages.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
BIN=${BIN:-bin}
CONCURRENCY=${CONCURRENCY:-16}
export LC_ALL=C

mkdir -p "$OUT" "$BIN"
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

# Request records → their unique URLs (cfetch reads bare URLs). The url is
# the second field of every request record cextract writes.
urls() { cut -d'"' -f8 | sort -u; }
fetch() { cfetch -q --concurrency "$CONCURRENCY" --stats "$work/fetch-$1.json"; }

start=$(date +%s.%N)

# 1. The home page links to every category.
echo "$SITE/" | fetch home |
	cextract -q --links --allow '/category/[^/]+/$' | urls >"$work/categories.txt"

# 2. Each category's first page links to all of its pages (numbered pager).
fetch categories <"$work/categories.txt" | tee "$work/listing.jsonl" |
	cextract -q --links --allow '/category/[^/]+/page-[0-9]+\.html$' | urls >"$work/pages.txt"

# 3. Every listing page links to its products (some through redirects).
fetch pages <"$work/pages.txt" >>"$work/listing.jsonl"
cextract -q --links --allow '/catalogue/[^/]+_[0-9]+/$' --allow '/p/[0-9]+$' <"$work/listing.jsonl" |
	urls >"$work/products.txt"

# 4. Product pages → one item each → CSV.
fetch products <"$work/products.txt" |
	cextract -q --type product \
		-f url='@url' \
		-f title='h1' \
		-f price='substring-after(//p[@class="price_color"], "£")' \
		-f upc='//th[.="UPC"]/following-sibling::td/text()' \
		-f availability='substring-before(substring-after(//p[contains(@class, "availability")], "("), " ")' \
		-f category='ul.breadcrumb li:nth-child(3)' \
		-f rating='//*[@itemprop="ratingValue"]/@content' \
		-f description='#product_description + p' |
	cexport -q -o "$OUT/products.csv"

end=$(date +%s.%N)

# Summary: pages fetched per level, items, time, and the check against the
# ground truth the demo site knows.
pages=0
for level in home categories pages products; do
	n=$(sed -n 's/.*"in": *\([0-9]*\).*/\1/p' "$work/fetch-$level.json" | head -n1)
	pages=$((pages + n))
done
items=$(($(wc -l <"$OUT/products.csv") - 1))
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
rate=$(awk -v p="$pages" -v s="$secs" 'BEGIN { printf "%.0f", p / s }')
echo "demo: fetched $pages pages in ${secs}s ($rate pages/s), exported $items products to $OUT/products.csv"

demosite -truth -truth-format csv -base "$SITE" >"$OUT/truth.csv"
if diff <(tail -n +2 "$OUT/truth.csv" | sort) <(tail -n +2 "$OUT/products.csv" | sort) >"$work/diff"; then
	echo "demo: all $items products match the site's ground truth ($OUT/truth.csv)"
else
	echo "demo: the export differs from the ground truth ($(grep -c '^[<>]' "$work/diff") lines); first differences:" >&2
	head -n 10 "$work/diff" >&2
	exit 1
fi
