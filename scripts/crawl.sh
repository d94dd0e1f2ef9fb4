#!/usr/bin/env bash
# The crawl loop: push the seeds, then run
#
#   cqueue pop --follow | cfetch | cextract -r RULES | cexport -o OUT | cqueue push
#
# until nothing is queued or in flight. The frontier is an SQLite file
# (OUT.db unless --db FILE or $CRAWLUTILS_DB), so the same command resumes
# a crawl that was killed or interrupted: seeds already seen are refused as
# duplicates, and the export is appended to.
#
#   scripts/crawl.sh SEEDS RULES OUT [--db FILE] [--crawlid ID] [--appid ID]
#
# SEEDS is a file of URLs or request records ("-": stdin), RULES a cextract
# rules file (docs/rules.md), OUT the export (its extension picks the
# format: .csv, .jsonl, .json, .xml). cexport -o always appends to OUT, in
# every format, as Scrapy's -o does: that is what makes a rerun complete the
# export. So a new crawl into an OUT that has items adds to them; to start
# over, remove OUT (and the db) first. With OUT "-" the items go to stdout
# instead: the loop is then closed by cqueue push's pass-through (items flow
# out of push, requests and acks are consumed). Every tool's flags can be set
# in the environment: CFETCH_CONCURRENCY=32, CQUEUE_LEASE=10m, …
# Exit status: 0 when the crawl is over, else the first failing tool's.
set -euo pipefail
usage() { echo "usage: scripts/crawl.sh SEEDS RULES OUT [--db FILE] [--crawlid ID] [--appid ID]" >&2; exit 2; }
[ $# -ge 3 ] || usage
seeds=$1 rules=$2 out=$3
shift 3
db=${CRAWLUTILS_DB:-}
crawlid= appid=crawl
while [ $# -gt 0 ]; do
	case $1 in
	--db) db=${2:?--db FILE}; shift 2 ;;
	--crawlid) crawlid=${2:?--crawlid ID}; shift 2 ;;
	--appid) appid=${2:?--appid ID}; shift 2 ;;
	*) usage ;;
	esac
done
[ -n "$db" ] || { [ "$out" != - ] || usage; db=$out.db; }
[ -n "$crawlid" ] || { crawlid=$(basename "$rules"); crawlid=${crawlid%.*}; }

if [ "$seeds" = - ]; then seeds=/dev/stdin; fi
cqueue push -q --db "$db" --crawlid "$crawlid" --appid "$appid" <"$seeds"

# cqueue and cexport do their work on one goroutine: on one thread each
# (GOMAXPROCS=1) they leave the cores to cfetch and cextract instead of
# waking idle threads on every record (docs/performance.md).
one=(env GOMAXPROCS=1)
if [ "$out" = - ]; then
	"${one[@]}" cqueue pop -q --db "$db" --follow | cfetch -q | cextract -q -r "$rules" | "${one[@]}" cqueue push -q --db "$db"
else
	"${one[@]}" cqueue pop -q --db "$db" --follow | cfetch -q | cextract -q -r "$rules" |
		"${one[@]}" cexport -q -o "$out" | "${one[@]}" cqueue push -q --db "$db"
fi
