package cdedupe

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/scripttest"
)

func TestMain(m *testing.M) {
	scripttest.Main(m, map[string]func() *cli.Command{"cdedupe": Command})
}

func TestCases(t *testing.T) {
	scripttest.Run(t, "../../testdata/cases/cdedupe", nil)
}
