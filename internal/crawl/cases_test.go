package crawl

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/cexport"
	"github.com/crawlutils/crawlutils/internal/cextract"
	"github.com/crawlutils/crawlutils/internal/cfetch"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/cqueue"
	"github.com/crawlutils/crawlutils/internal/cthrottle"
	"github.com/crawlutils/crawlutils/internal/scripttest"
)

// cqueueCommand is cqueue as its binary is: its subcommands and crawl.
func cqueueCommand() *cli.Command { return cqueue.Command(Command()) }

// TestMain makes the test binary each command of the crawl loop, for the
// cases of cqueue crawl, which runs them.
func TestMain(m *testing.M) {
	scripttest.Main(m, map[string]func() *cli.Command{"cqueue": cqueueCommand, "cfetch": cfetch.Command, "cextract": cextract.Command, "cexport": cexport.Command, "cthrottle": cthrottle.Command})
}

func TestCases(t *testing.T) {
	scripttest.Run(t, "../../testdata/cases/crawl", nil)
}
