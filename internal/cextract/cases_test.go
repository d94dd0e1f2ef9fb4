package cextract

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/scripttest"
)

func TestMain(m *testing.M) {
	scripttest.Main(m, map[string]func() *cli.Command{"cextract": Command})
}

// TestCases runs the command cases in testdata/cases/cextract: the real
// command, re-executed, with real stdio and exit codes.
func TestCases(t *testing.T) {
	scripttest.Run(t, "../../testdata/cases/cextract", nil)
}
