#!/usr/bin/env bash
# The demo site's link test bed (internal/demosite/linkbed.go, /linkbed/ on
# 127.0.0.1): what cextract --links finds by default (navigation) and with
# --kinds all, next to Scrapy's LinkExtractor (Debian's
# python3-scrapy; by default and given every tag and attribute by hand) and
# katana (scripts/bench/katana, its own module, built from the module
# proxy). Prints the table of docs/rules.md, which is regenerated with
#
#   scripts/bench.sh linkbed
#
# A finder that cannot be had here is left out of the table, and said so.
# katana waits about 10 s after each of the bed's ~70 pages: this section
# takes some 15 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
CASES=linkbed
source scripts/bench/lib.sh
mkdir -p "$BIN"
go build -o "$BIN" ./cmd/cfetch ./cmd/cextract ./internal/cmd/demosite
PATH=$BIN:$PATH
start_site
has_scrapy || apt_install python3-scrapy
katana=
if (cd scripts/bench/katana && GOFLAGS=-mod=mod go build -o "$BIN/katana" github.com/projectdiscovery/katana/cmd/katana) >&2; then
	katana=$BIN/katana
else
	say "katana could not be built here; left out of the table"
fi
/usr/bin/python3 scripts/bench/linkbed.py "$BIN" "$SITE" $katana
