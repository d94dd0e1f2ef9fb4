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
	"github.com/crawlutils/crawlutils/internal/cthrottle"
	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/scripttest"
	"github.com/crawlutils/crawlutils/internal/toolstats"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	scripttest.Main(m, map[string]func() *cli.Command{
		"cdedupe":   cdedupe.Command,
		"cexport":   cexport.Command,
		"cextract":  cextractCommand,
		"cfetch":    cfetch.Command,
		"cthrottle": cthrottle.Command,
		"cqueue":    cqueue.Command,
		"truth":     truth,
	})
}

// cextractCommand is cextract as cmd/cextract wires it: with the store
// behind --stats-to, which package cextract does not link.
func cextractCommand() *cli.Command {
	c := cextract.Command()
	c.OpenStats = toolstats.OpenSink
	return c
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
