// Command demosite serves the crawlutils demo site, a deterministic
// generated web shop, on a local address, or prints its ground truth.
//
// Usage:
//
//	demosite [-listen 127.0.0.1:8080] [-products 3000] [-seed 1] [-per-page 20]
//	         [-latency 0s] [-retry-after 1|0|none] [-round N] [-pad-kb 0] [-ready FILE]
//	         [-stats-on-exit]
//	demosite -broad-hosts N [-broad-pages 20] [-listen …] [-ready FILE] [-stats-on-exit]
//	demosite -truth [-js] [-truth-format jsonl|csv] [-base http://127.0.0.1:8080]
//	         [-products 3000] [-seed 1] [-per-page 20]
//
// When serving, it prints "demosite: serving http://HOST:PORT" to standard
// error and, with -ready, writes that base URL and a newline to FILE
// (atomically, by rename) once it accepts connections, and removes FILE
// when it stops. It stops cleanly on SIGINT or SIGTERM; with
// -stats-on-exit it then prints the site's request counters to standard
// error as one line of JSON, the body of GET /__demosite/stats.
//
// -retry-after sets the Retry-After header of the pages that answer 503
// once: a whole number of seconds, or "none" for no header.
//
// -round N serves round N of a site that changes between crawls (see the
// package's Rounds; 0, the default, is the classic site); POST
// /__demosite/round?n=N changes it while it serves.
//
// -broad-hosts N serves the broad-crawl shape instead (demosite.Broad): N
// shops named h001.shop.test, … on the one address, -broad-pages pages
// each, some slow, delayed, dead or with a broken robots.txt; GET
// /__demosite/stats then answers demosite.BroadStats.
//
// With -truth it prints the products a correct crawl must extract, sorted
// by URL, with absolute URLs built from -base: one JSON object per line
// (fields url, title, price, upc, availability, category, rating,
// description), or CSV with that header. With -js too, those of the
// JavaScript shop under /js/ (demosite.JSTruth: url, title, price, upc),
// which only a browser sees.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/crawlutils/crawlutils/internal/demosite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command; it returns the exit status. Serving stops
// when ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demosite", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		listen   = fs.String("listen", "127.0.0.1:8080", "address to listen on (127.0.0.1:0 picks a free port)")
		products = fs.Int("products", demosite.DefaultProducts, "number of catalogue entries")
		seed     = fs.Int64("seed", demosite.DefaultSeed, "content seed")
		perPage  = fs.Int("per-page", demosite.DefaultPerPage, "products per listing page")
		latency  = fs.Duration("latency", 0, "delay added to every response")
		retry    = fs.String("retry-after", "1", "Retry-After `seconds` of the pages that answer 503 once, or none")
		round    = fs.Int("round", 0, "serve round `N` of a site that changes between crawls (0: the classic site)")
		padKB    = fs.Int("pad-kb", 0, "add about `N` KiB to every HTML page (an inline script, a style sheet, text; no links), as real pages carry")
		ready    = fs.String("ready", "", "write the base URL to `FILE` once listening")
		onExit   = fs.Bool("stats-on-exit", false, "print the request counters as JSON to standard error when stopping")
		broadN   = fs.Int("broad-hosts", 0, "serve the broad-crawl shape: `N` hosts h001.shop.test, … (0: the shop)")
		broadP   = fs.Int("broad-pages", demosite.DefaultBroadPages, "pages per host of the broad-crawl shape")
		truth    = fs.Bool("truth", false, "print the ground truth instead of serving")
		format   = fs.String("truth-format", "jsonl", "ground truth format: jsonl or csv")
		base     = fs.String("base", "http://127.0.0.1:8080", "base URL for absolute URLs in the ground truth")
		jsTruth  = fs.Bool("js", false, "with -truth: the ground truth of the JavaScript shop under /js/ (products only a browser sees)")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: demosite [flags]\n\nServe the crawlutils demo site, or print its ground truth with -truth.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "demosite: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *products < 1 || *perPage < 1 || *seed == 0 || *latency < 0 || *padKB < 0 || *padKB > 100<<10 {
		fmt.Fprintln(stderr, "demosite: -products and -per-page must be positive, -seed non-zero, -latency not negative, -pad-kb from 0 to 102400")
		return 2
	}
	retryAfter, err := parseRetryAfter(*retry)
	if err != nil {
		fmt.Fprintln(stderr, "demosite:", err)
		return 2
	}
	if *broadN < 0 || *broadP < 1 || *broadN > 9999 {
		fmt.Fprintln(stderr, "demosite: -broad-hosts must be from 0 to 9999, -broad-pages positive")
		return 2
	}
	if *broadN > 0 && !*truth {
		broad := demosite.NewBroad(demosite.BroadOptions{Hosts: *broadN, Pages: *broadP})
		if err := serve(ctx, broad, *listen, *ready, stderr, true); err != nil {
			fmt.Fprintln(stderr, "demosite:", err)
			return 1
		}
		if *onExit {
			b, _ := json.Marshal(broad.Stats()) // numbers and a map[string]int: cannot fail
			fmt.Fprintf(stderr, "%s\n", b)
		}
		return 0
	}
	site := demosite.New(demosite.Options{Products: *products, Seed: *seed, PerPage: *perPage, Latency: *latency, RetryAfter: retryAfter, Round: *round, PadBytes: *padKB << 10})
	if *truth {
		if *format != "jsonl" && *format != "csv" {
			fmt.Fprintf(stderr, "demosite: -truth-format must be jsonl or csv, not %q\n", *format)
			return 2
		}
		write := func() error { return writeTruth(stdout, site.Truth(), *base, *format) }
		if *jsTruth {
			write = func() error { return writeJSTruth(stdout, site.JSTruth(), *base, *format) }
		}
		if err := write(); err != nil {
			fmt.Fprintln(stderr, "demosite:", err)
			return 1
		}
		return 0
	}
	if err := serve(ctx, site, *listen, *ready, stderr, false); err != nil {
		fmt.Fprintln(stderr, "demosite:", err)
		return 1
	}
	if *onExit {
		b, _ := json.Marshal(site.Stats()) // a struct of ints and a map[int]int: cannot fail
		fmt.Fprintf(stderr, "%s\n", b)
	}
	return 0
}

// maxRetryAfter is the largest -retry-after, a year in seconds.
const maxRetryAfter = 365 * 24 * 3600

// parseRetryAfter reads -retry-after: whole seconds, or "none".
func parseRetryAfter(v string) (time.Duration, error) {
	if v == "none" {
		return demosite.NoRetryAfter, nil
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n < 0 || n > maxRetryAfter:
		return 0, fmt.Errorf("-retry-after must be a whole number of seconds from 0 to %d, or none, not %q", maxRetryAfter, v)
	case n == 0:
		return demosite.RetryAfterZero, nil
	}
	return time.Duration(n) * time.Second, nil
}

// serve runs the site on addr until ctx is done, then shuts down
// gracefully. With arrivals, requests' arrival times come from the kernel
// (demosite.ArrivalListener).
func serve(ctx context.Context, site http.Handler, addr, readyFile string, stderr io.Writer, arrivals bool) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := baseURL(ln.Addr())
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
	if arrivals {
		ln = demosite.ArrivalListener(ln)
		srv.ConnContext = demosite.ArrivalContext
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "demosite: serving %s\n", base)
	if readyFile != "" {
		if err := writeAtomically(readyFile, base+"\n"); err != nil {
			srv.Close()
			return fmt.Errorf("writing -ready file: %w", err)
		}
		defer os.Remove(readyFile)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// baseURL is the URL clients use for a listener address; an unspecified
// host (":8080", "[::]:8080") is reached through 127.0.0.1.
func baseURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// writeAtomically writes data to a temporary file beside path and renames
// it into place, so readers never see a partial file.
func writeAtomically(path, data string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
