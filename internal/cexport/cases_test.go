package cexport

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	scripttest.Main(m, map[string]func() *cli.Command{"cexport": Command})
}

// TestCases runs the command cases in testdata/cases/cexport: the real
// command with real stdio and exit codes.
func TestCases(t *testing.T) {
	scripttest.Run(t, "../../testdata/cases/cexport", func(env *testscript.Env) error {
		// Under -race a process sleeps 1 s at a clean exit to catch late
		// reports; every exec would pay it.
		env.Setenv("GORACE", "atexit_sleep_ms=0")
		return nil
	})
}
