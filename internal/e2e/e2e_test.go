package e2e

import (
	"context"
	"encoding/csv"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cdedupe"
	"github.com/crawlutils/crawlutils/internal/cexport"
	"github.com/crawlutils/crawlutils/internal/cextract"
	"github.com/crawlutils/crawlutils/internal/cfetch"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/cqueue"
	"github.com/crawlutils/crawlutils/internal/crawl"
	"github.com/crawlutils/crawlutils/internal/cthrottle"
	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/integration"
	"github.com/crawlutils/crawlutils/internal/scripttest"
	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/rogpeppe/go-internal/testscript"
)

// Every test here is an integration test: each runs the commands as
// processes, most a whole crawl, some against real servers (redis-server,
// kcat, chromium). Unless CRAWLUTILS_INTEGRATION=1 (scripts/test.sh sets
// it), TestMain runs only TestIntegration, which says so.
func TestMain(m *testing.M) {
	scripttest.Main(integration.Package(m, "TestIntegration"), map[string]func() *cli.Command{
		"cdedupe":   cdedupe.Command,
		"cexport":   cexport.Command,
		"cextract":  cextractCommand,
		"cfetch":    cfetch.Command,
		"cthrottle": cthrottle.Command,
		"cqueue":    func() *cli.Command { return cqueue.Command(crawl.Command()) },
		"truth":     truth,
	})
}

// cextractCommand is cextract as cmd/cextract wires it: its --stats-to
// goes through cqueue stats-relay, as package cextract links no driver.
func cextractCommand() *cli.Command {
	c := cextract.Command()
	c.OpenStats = statspub.RelayOpener
	return c
}

// TestIntegration is skipped, saying why, unless CRAWLUTILS_INTEGRATION=1:
// see TestMain.
func TestIntegration(t *testing.T) {
	integration.Skip(t, "internal/e2e runs the commands as processes, against real servers")
}

// pipelineSite is the demo site every pipeline script gets at $SITE.
var pipelineSite = demosite.Options{Products: 60}

// truth prints, as CSV, the products a correct crawl of $SITE extracts:
// url,title,price,upc,availability,category,rating,description.
func truth() *cli.Command {
	return &cli.Command{Name: "truth", Run: func(_ context.Context, env *cli.Env) error {
		w := csv.NewWriter(env.Stdout)
		w.Write([]string{"url", "title", "price", "upc", "availability", "category", "rating", "description"})
		for _, p := range demosite.New(pipelineSite).Truth() {
			w.Write([]string{p.AbsURL(env.Getenv("SITE")), p.Title, p.Price, p.UPC, strconv.Itoa(p.Availability), p.Category, strconv.Itoa(p.Rating), p.Description})
		}
		w.Flush()
		return w.Error()
	}}
}

// TestPipelines runs testdata/pipeline/*.txtar, each with its own demo site
// (a small catalogue, so scripts can list what they expect) at $SITE.
func TestPipelines(t *testing.T) {
	scripttest.Run(t, "../../testdata/pipeline", func(env *testscript.Env) error {
		srv := httptest.NewServer(demosite.New(pipelineSite))
		env.Defer(srv.Close)
		env.Setenv("SITE", srv.URL)
		return nil
	})
}
