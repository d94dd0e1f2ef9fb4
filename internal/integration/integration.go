// Package integration is the switch between the two tiers of the tests.
//
// Plain `go test ./...` is the fast tier: unit tests and in-process
// command cases, cached by go test. The slow tier, integration tests, runs
// only when the environment variable CRAWLUTILS_INTEGRATION is 1, as
// scripts/test.sh sets it: tests that start real servers (redis-server,
// PostgreSQL: internal/redistest and internal/pgtest call Skip), a
// browser, or whole crawls of the commands as processes (internal/e2e,
// whose TestMain goes through Package). Unset, each such test is skipped
// with a message that names the switch.
//
// The switch is read inside a test (Skip), never only in TestMain: go test
// keys its cache on the environment variables a test reads, and a read
// before m.Run is not seen, so a result of the fast tier could be reused
// for the slow one.
package integration

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// Env is the environment variable that turns the integration tests on
// (CRAWLUTILS_INTEGRATION=1).
const Env = "CRAWLUTILS_INTEGRATION"

// Enabled reports whether Env is set to anything but "" or "0".
func Enabled() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Skip skips t unless the integration tests are on, saying why: what is
// what t needs ("starts a redis-server"). Call it first in the test, or in
// the helper that starts the server.
func Skip(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("integration test (%s): set %s=1 to run it; scripts/test.sh does", what, Env)
	}
}

// TestingM is what a TestMain runs: *testing.M.
type TestingM interface{ Run() int }

// Package gates a package whose every test is an integration test: its
// TestMain runs Package(m, gate) in place of m. The test named gate should
// call Skip: it says why the tests did not run, and it reads the switch
// where go test's cache sees it. When the integration tests are off, only
// gate runs (the -run flag is replaced). When they are on, every test the
// -run flag selects runs, and gate with them: were it left out, a run of
// `-run TestX` with the switch on would be cached as if it did not depend
// on it, and the same command with the switch off would print that result.
func Package(m TestingM, gate string) TestingM {
	return gated{m, gate}
}

type gated struct {
	m    TestingM
	gate string
}

func (g gated) Run() int {
	if !flag.Parsed() {
		flag.Parse()
	}
	run := "^" + g.gate + "$"
	if Enabled() {
		given := flag.Lookup("test.run").Value.String()
		if given == "" {
			return g.m.Run() // every test, gate too
		}
		// -run splits its pattern at slashes into one per level of
		// subtests; gate has none, so an alternative at the top level
		// adds it and changes nothing else.
		run += "|" + given
	}
	if err := flag.Set("test.run", run); err != nil {
		fmt.Fprintf(os.Stderr, "integration: -run %s: %v\n", run, err)
		return 2
	}
	return g.m.Run()
}
