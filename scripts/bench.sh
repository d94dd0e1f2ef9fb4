#!/usr/bin/env bash
# Benchmarks: figures, not pass/fail. Each section builds what it needs,
# starts the demo site on 127.0.0.1, measures crawlutils next to a peer
# (Scrapy, parsel, wrk, colly) in the same run and prints medians of several
# runs.
# docs/performance.md records the figures and the machine they came from.
#
#   scripts/bench.sh              every section
#   scripts/bench.sh fetch        one section: fetch, extract, frontier, loop, throttle, export, recrawl, broad, warc, render, linkbed
#
# Peers come from Debian's packages (python3-scrapy, python3-parsel, wrk,
# hyperfine); a section installs what it lacks with apt-get on first run.
# The colly peer (scripts/bench/colly) is its own Go module, built from the
# module proxy, so the product's go.mod never gains colly.
# Never run in CI: it takes minutes and loads the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(fetch extract frontier loop throttle export recrawl broad warc render linkbed)

echo "# crawlutils benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/ {print $2}') GiB, $(go version | cut -d' ' -f3)"
for s in "${sections[@]}"; do
	script="scripts/bench/$s.sh"
	if [ ! -x "$script" ]; then
		echo "## $s: not written yet ($script)"
		continue
	fi
	echo "## $s"
	"$script"
done
