#!/usr/bin/env bash
# Extraction throughput: cextract with testdata/rules/demo.yml next to
# parsel (Debian's python3-parsel, what Scrapy's selectors are) running the
# same selectors and the same post-processing, over the same saved stream of
# demo-site responses, both pinned to one core, in the same run.
#
#   scripts/bench/extract.sh              5 runs each, stream of 20 copies
#   RUNS=9 COPIES=50 scripts/bench/extract.sh
#   CRLF=1 scripts/bench/extract.sh       the same pages with CRLF line endings
#                                         (as IIS and many PHP templates serve)
#
# Prints the median pages/s of each and the ratio. Installs python3-parsel
# with apt-get when it is missing (never in CI: there it only says so).
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-5}
COPIES=${COPIES:-20}
CORE=${CORE:-0}
RESPONSES=internal/cextract/testdata/responses/demo.jsonl
RULES=testdata/rules/demo.yml
PY=/usr/bin/python3

if ! "$PY" -c 'import parsel' 2>/dev/null; then
	if [ -n "${CI:-}" ]; then
		echo "bench: python3-parsel is not installed; skipping the comparison in CI" >&2
		exit 0
	fi
	echo "bench: installing python3-parsel (apt-get)" >&2
	if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
	$SUDO apt-get install -y -qq python3-parsel >/dev/null || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3-parsel >/dev/null; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/cextract" ./cmd/cextract
for _ in $(seq "$COPIES"); do cat "$RESPONSES"; done >"$work/stream.jsonl"
if [ -n "${CRLF:-}" ]; then
	# Every "\n" escape in the records (in the bodies) becomes "\r\n".
	sed -i 's/\\n/\\r\\n/g' "$work/stream.jsonl"
fi
pages=$(wc -l <"$work/stream.jsonl")

# The same extraction with parsel: the selectors of demo.yml, the same
# processors in Python, links through response.urljoin (<base href>
# included) and the same allow patterns for each of its three link rules,
# one JSON line out per item and request, as cextract writes them.
cat >"$work/parsel_extract.py" <<'PY'
import json, re, sys
from urllib.parse import urljoin
from parsel import Selector

PRODUCT = re.compile(r'/catalogue/[^/]+_\d+/$')
HOME = re.compile(r'^https?://[^/]+/$')
LISTING = re.compile(r'/category/[^/]+/(page-\d+\.html)?$')
ALLOW_HOME = [re.compile(r'/category/[^/]+/$')]
ALLOW_RELATED = [re.compile(p) for p in (r'/catalogue/[^/]+_\d+/$', r'/p/\d+$', r'/go/\d+$')]
ALLOW_LISTING = [re.compile(p) for p in (r'/category/[^/]+/page-\d+\.html$', r'/catalogue/[^/]+_\d+/$', r'/p/\d+$')]
RATING = {'One': 1, 'Two': 2, 'Three': 3, 'Four': 4, 'Five': 5}
INT = re.compile(r'\d+')

def first(sel, css):
    for v in sel.css(css).getall():
        v = v.strip()
        if v:
            return v
    return None

def text(sel, css):
    # cextract's bare CSS selector: the element's whole text
    for node in sel.css(css):
        v = ''.join(node.css('::text').getall()).strip()
        if v:
            return v
    return None

def product(sel, url):
    d = {'url': url}
    d['title'] = text(sel, 'div.product_main h1')
    price = first(sel, 'div.product_main p.price_color::text')
    if d['title'] is None or price is None:
        return None
    d['price'] = re.sub(r'^£', '', price)
    d['upc'] = text(sel, 'table.table-striped tr:nth-child(1) td')
    m = INT.search(text(sel, 'div.product_main p.availability') or '')
    if m:
        d['availability'] = int(m.group())
    d['category'] = text(sel, 'ul.breadcrumb li:nth-child(3) a')
    cls = first(sel, 'div.product_main p.star-rating::attr(class)') or ''
    m = re.search(r'star-rating (\w+)', cls)
    if m and m.group(1) in RATING:
        d['rating'] = RATING[m.group(1)]
    d['description'] = text(sel, '#product_description + p')
    return {k: v for k, v in d.items() if v is not None}

def links(sel, url, allow):
    base = urljoin(url, sel.css('base::attr(href)').get() or url)
    seen, out = set(), []
    for href in sel.css('a::attr(href), area::attr(href)').getall():
        u = urljoin(base, href.strip()).split('#')[0]
        if u in seen or not u.startswith('http'):
            continue
        seen.add(u)
        if any(r.search(u) for r in allow):
            out.append(u)
    return out

w = sys.stdout.write
for line in open(sys.argv[1], encoding='utf-8'):
    r = json.loads(line)
    if r.get('kind') != 'response' or r.get('status') != 200 or 'body' not in r:
        continue
    url, req = r['url'], r.get('request') or {}
    sel = None
    if PRODUCT.search(url):
        sel = Selector(text=r['body'])
        d = product(sel, url)
        if d:
            w(json.dumps({'kind': 'item', 'type': 'product', 'data': d, 'url': url}, ensure_ascii=False) + '\n')
    # demo.yml's link rules: categories, listing, and related (on every
    # product page, with the page parsed once for both).
    allow = ALLOW_HOME if HOME.search(url) else ALLOW_LISTING if LISTING.search(url) else ALLOW_RELATED if PRODUCT.search(url) else None
    if allow:
        for u in links(sel or Selector(text=r['body']), url, allow):
            w(json.dumps({'kind': 'request', 'url': u, 'priority': req.get('priority', 0) - 10,
                          'depth': req.get('depth', 0) + 1, 'referer': url}) + '\n')
PY

# One run's wall time, in seconds.
wall() {
	local s e
	s=$(date +%s.%N)
	"$@" >/dev/null
	e=$(date +%s.%N)
	awk -v a="$s" -v b="$e" 'BEGIN { printf "%.4f", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The two run in turns, so that a slow spell of a shared machine falls on
# both: the medians of each, and the median of the ratios of the pairs.
go_t=() py_t=() ratios=()
for _ in $(seq "$RUNS"); do
	g=$(wall taskset -c "$CORE" "$work/cextract" -q -r "$RULES" "$work/stream.jsonl")
	p=$(wall taskset -c "$CORE" "$PY" "$work/parsel_extract.py" "$work/stream.jsonl")
	go_t+=("$g") py_t+=("$p") ratios+=("$(awk -v g="$g" -v p="$p" 'BEGIN { printf "%.3f", p / g }')")
done
go_s=$(printf '%s\n' "${go_t[@]}" | median)
py_s=$(printf '%s\n' "${py_t[@]}" | median)
ratio=$(printf '%s\n' "${ratios[@]}" | median)
ratio_range="$(printf '%s\n' "${ratios[@]}" | sort -g | head -n 1)-$(printf '%s\n' "${ratios[@]}" | sort -g | tail -n 1)"
# Both write the same items and the same requests.
"$work/cextract" -q -r "$RULES" "$work/stream.jsonl" >"$work/go.out"
"$PY" "$work/parsel_extract.py" "$work/stream.jsonl" >"$work/py.out"
items_go=$(grep -c '"kind":"item"' "$work/go.out")
items_py=$(grep -c '"kind": "item"' "$work/py.out")
reqs_go=$(jq -r 'select(.kind == "request") | .url' "$work/go.out" | sort | md5sum | cut -c1-12)
reqs_py=$(jq -r 'select(.kind == "request") | .url' "$work/py.out" | sort | md5sum | cut -c1-12)
if [ "$items_go" != "$items_py" ] || [ "$reqs_go" != "$reqs_py" ]; then
	echo "extract: cextract and parsel disagree: $items_go and $items_py items, requests $reqs_go and $reqs_py" >&2
fi

# Memory is bounded by the largest response, not by the stream: the peak
# RSS for the stream and for five times as long a stream.
rss=
if [ -x /usr/bin/time ]; then
	for _ in 1 2 3 4 5; do cat "$work/stream.jsonl"; done >"$work/stream5.jsonl"
	r1=$(/usr/bin/time -f %M "$work/cextract" -q -r "$RULES" "$work/stream.jsonl" 2>&1 >/dev/null | tail -n 1)
	r5=$(/usr/bin/time -f %M "$work/cextract" -q -r "$RULES" "$work/stream5.jsonl" 2>&1 >/dev/null | tail -n 1)
	rss="peak RSS $((r1 / 1024)) MiB for the stream ($(($(wc -c <"$work/stream.jsonl") >> 20)) MiB), $((r5 / 1024)) MiB for 5 times as much"
fi

awk -v n="$pages" -v g="$go_s" -v p="$py_s" -v r="$ratio" -v rr="$ratio_range" -v ig="$items_go" -v ip="$items_py" -v runs="$RUNS" -v crlf="${CRLF:+ with CRLF line endings}" -v pv="$("$PY" -c 'import parsel; print(parsel.__version__)')" 'BEGIN {
	printf "extract: %d responses%s (%d items), one core, median of %d runs\n", n, crlf, ig, runs
	printf "  cextract -r demo.yml   %8.0f pages/s  (%.3f s)\n", n / g, g
	printf "  parsel %-15s %8.0f pages/s  (%.3f s, %d items)\n", pv, n / p, p, ip
	printf "  ratio                  %8.1fx  (median of the %d pairs, %s)\n", r, runs, rr
}'
[ -z "$rss" ] || echo "  cextract: $rss"
