#!/usr/bin/env bash
# The whole test suite: formatting, go vet, staticcheck, then every test
# (unit, command cases under testdata/, pipeline tests that run the built
# binaries against the demo site, and scripts/demo.sh checked against the
# site's ground truth) with the race detector, then the 10 slowest packages.
#
#   scripts/test.sh            everything
#   scripts/test.sh -short     skip the full demo crawl
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"

step() { printf '\n== %s\n' "$*"; }

step gofmt
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './.cache/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

step "go vet"
go vet ./...

step staticcheck
if command -v staticcheck >/dev/null 2>&1; then
  staticcheck ./...
else
  echo "staticcheck not installed; skipped (.ci/run installs it)"
fi

# go test -json, read by internal/cmd/testreport: the usual output (each
# failing test's output, every package's ok/FAIL line) and at the end the 10
# slowest packages. pipefail keeps go test's exit status.
step "go test -race"
report=$(mktemp -d)
trap 'rm -rf "$report"' EXIT
go build -o "$report/testreport" ./internal/cmd/testreport
go test -race -count=1 -timeout 15m -json "$@" ./... | "$report/testreport" -slowest 10
