#!/usr/bin/env bash
# Known vulnerabilities in the code our commands reach: govulncheck over
# every package, against the Go vulnerability database as published in the
# golang.org/x/vulndb module (a copy of the database's OSV entries, fetched
# through the Go module proxy like any module), so it needs no access to
# vuln.go.dev. govulncheck reads a folder of OSV files as a database.
#
#   scripts/vulncheck.sh                     the pinned database snapshot
#   VULNDB_VERSION=latest scripts/vulncheck.sh   the newest one the proxy serves
#
# Exits non-zero when a vulnerability is reachable from our code (govulncheck
# exits 3), or when the database or govulncheck cannot be had.
#
# With Go 1.26.8 it finds vulnerabilities of the standard library (net/http,
# crypto/tls, crypto/x509, mime/multipart, os) that are fixed in Go 1.26.9
# and 1.26.10; build with a Go that has those fixes (GOTOOLCHAIN=go1.27.3 is
# clean) to clear them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"

GOVULNCHECK_VERSION=${GOVULNCHECK_VERSION:-v1.9.0}
# The database as of 2026-11-05; raise it with VULNDB_VERSION.
VULNDB_VERSION=${VULNDB_VERSION:-v0.0.0-20261105234957-e22db6528018}

if ! command -v govulncheck >/dev/null 2>&1; then
  echo "govulncheck not installed: installing golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION"
  (cd / && GOFLAGS= go install "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION")
fi

# go mod download outside our module, so go.mod and go.sum stay as they are.
dir=$(cd / && GOFLAGS= go mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
osv="$dir/data/osv"
if [ ! -d "$osv" ]; then
  echo "vulncheck: no OSV entries in golang.org/x/vulndb@$VULNDB_VERSION ($osv)" >&2
  exit 1
fi
echo "database: golang.org/x/vulndb@$VULNDB_VERSION, $(ls "$osv" | wc -l) entries"
govulncheck -db "file://$osv" ./...
