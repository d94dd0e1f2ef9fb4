// Command colly-demo is the colly peer of the crawl-loop benchmark
// (scripts/bench/loop.sh): it crawls the demo site (internal/demosite) the
// way testdata/rules/demo.yml scopes it and writes the same 8 fields as CSV.
//
//	go run . -start http://127.0.0.1:PORT/ -o products.csv [-c 16]
//
// With -seeds FILE instead of -start it crawls the broad-crawl shape
// (demosite -broad-hosts, scripts/bench/broad.sh) from the home pages in
// FILE: a LimitRule per host of -per-host requests at once (crawlBroad).
//
// It is colly used with care: 16 requests at once (Async and a LimitRule),
// robots.txt obeyed, 2 retries on 5xx and network errors, canonical URLs
// behind one atomic seen-set that also takes redirect targets, charsets
// declared in <meta> decoded, and <meta http-equiv="refresh"> followed as
// Scrapy's MetaRefreshMiddleware does. Its counts go to stderr at the end.
//
// It lives in its own module so that the product's go.mod never gains
// colly.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("colly-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	start := fs.String("start", "", "the demo site's home page `URL`")
	out := fs.String("o", "", "write the products to `CSV`")
	conc := fs.Int("c", 16, "concurrent requests")
	honour := fs.Bool("retry-after", false, "wait a 5xx's Retry-After before its retry (colly does not by itself)")
	seeds := fs.String("seeds", "", "crawl the broad-crawl shape from the home pages in `FILE` instead")
	perHost := fs.Int("per-host", 2, "with -seeds: requests at once per host")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if (*start == "") == (*seeds == "") || *out == "" || *conc < 1 || *perHost < 1 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: colly-demo -start URL -o CSV [-c 16] | -seeds FILE -o CSV [-per-host 2]")
		return 2
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(stderr, "colly-demo: %v\n", err)
		return 1
	}
	var st *stats
	if *seeds != "" {
		st, err = crawlBroad(*seeds, *perHost, newItemWriter(f), stderr)
	} else {
		st, err = crawl(*start, *conc, *honour, newItemWriter(f), stderr)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	fmt.Fprintf(stderr, "colly-demo: %d requests made, %d responses, %d errors (%d retries, %d refused by robots.txt, %d redirects to seen URLs), %d items\n",
		st.requests.Load(), st.responses.Load(), st.errors.Load(), st.retries.Load(), st.robots.Load(), st.seenRedirects.Load(), st.items.Load())
	if err != nil {
		fmt.Fprintf(stderr, "colly-demo: %v\n", err)
		return 1
	}
	return 0
}
