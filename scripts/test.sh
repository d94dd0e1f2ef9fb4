#!/usr/bin/env bash
# The whole test suite: formatting, go vet, staticcheck, then every test
# (unit, command cases under testdata/, and the integration tests: real
# redis-server, PostgreSQL and chromium, pipeline tests that run the
# commands against the demo site, and scripts/demo.sh checked against the
# site's ground truth; every package but internal/e2e with the race
# detector), then the 10 slowest packages. staticcheck is installed on the
# first run if it is missing.
#
# The fast tier is plain `go test ./...`: unit tests and command cases
# only, cached by go test. This script sets CRAWLUTILS_INTEGRATION=1 (see
# internal/integration), which turns the integration tests on, and -count=1
# runs everything again.
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
if ! command -v staticcheck >/dev/null 2>&1; then
  # The first run installs it (from the Go module proxy, as the modules).
  echo "staticcheck not installed: installing honnef.co/go/tools/cmd/staticcheck@v0.8.2"
  (cd / && GOFLAGS= go install honnef.co/go/tools/cmd/staticcheck@v0.8.2) || {
    echo "cannot install staticcheck; the checks above passed, the tests did not run"; exit 1; }
fi
staticcheck -checks all ./...   # every check, the style ones (ST) too

# go test -json, read by internal/cmd/testreport: the usual output (each
# failing test's output, every package's ok/FAIL line) and at the end the 10
# slowest packages. Every package but internal/e2e runs with the race
# detector; internal/e2e runs the built commands as real processes against
# real servers, where -race multiplies the time and the same code has
# already run under it in-process, so it runs without. The timeouts allow a
# busy 2-core machine.
export CRAWLUTILS_INTEGRATION=1
step "go test -race, then internal/e2e (CRAWLUTILS_INTEGRATION=1)"
report=$(mktemp -d)
trap 'rm -rf "$report"' EXIT
go build -o "$report/testreport" ./internal/cmd/testreport
pkgs=$(go list ./... | grep -v '/internal/e2e$')
{
  # Each run's status is kept (set -e would end the group at the first).
  st=0; go test -race -count=1 -timeout 30m -json "$@" $pkgs || st=$?; echo $st >"$report/race"
  st=0; go test -count=1 -timeout 40m -json "$@" ./internal/e2e || st=$?; echo $st >"$report/e2e"
} | "$report/testreport" -slowest 10
[ "$(cat "$report/race")" = 0 ] && [ "$(cat "$report/e2e")" = 0 ]
