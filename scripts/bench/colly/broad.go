package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/gocolly/colly/v2"
)

// broadPage is a page of the broad-crawl shape (demosite -broad-hosts).
var broadPage = regexp.MustCompile(`/page/\d+\.html$`)

// crawlBroad crawls the broad-crawl shape of the demo site from the home
// pages in seedsFile, as scripts/bench/broad.yml does: every host's name
// is resolved to 127.0.0.1, each host gets its own LimitRule of perHost
// requests at once (colly's way to be polite per host), robots.txt is
// obeyed, no retries. Items (url, title, price) go to w.
func crawlBroad(seedsFile string, perHost int, w *itemWriter, stderr io.Writer) (*stats, error) {
	st := &stats{}
	seeds, err := readSeeds(seedsFile)
	if err != nil {
		return st, err
	}
	seen := &seenSet{}
	c := colly.NewCollector(colly.Async(true), colly.AllowURLRevisit(),
		colly.UserAgent("crawlutils-bench-colly (+https://github.com/crawlutils/crawlutils)"))
	c.IgnoreRobotsTxt = false
	hosts := map[string]bool{}
	for _, s := range seeds {
		u, err := url.Parse(s)
		if err != nil {
			return st, fmt.Errorf("%s: %w", seedsFile, err)
		}
		if hosts[u.Host] {
			continue
		}
		hosts[u.Host] = true
		// colly matches a rule against the URL's host:port.
		if err := c.Limit(&colly.LimitRule{DomainGlob: u.Host, Parallelism: perHost}); err != nil {
			return st, err
		}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = perHost
	dialer := &net.Dialer{}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		return dialer.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
	}
	c.WithTransport(t)

	visit := func(u string) {
		u, ok := canonical(u)
		if !ok || !seen.add(u) {
			return
		}
		if err := c.Visit(u); errors.Is(err, colly.ErrRobotsTxtBlocked) {
			st.robots.Add(1)
		} else if err != nil {
			st.errors.Add(1)
		}
	}
	c.OnRequest(func(*colly.Request) { st.requests.Add(1) })
	c.OnResponse(func(*colly.Response) { st.responses.Add(1) })
	c.OnError(func(r *colly.Response, _ error) {
		st.errors.Add(1)
		if r.StatusCode != 0 {
			st.responses.Add(1)
		}
	})
	c.OnHTML("html", func(e *colly.HTMLElement) {
		u := e.Request.URL.String()
		if broadPage.MatchString(u) {
			st.items.Add(1)
			w.write([]string{u, strings.TrimSpace(e.ChildText("div.item h1")), strings.TrimSpace(e.ChildText("div.item p.price"))})
		}
		e.ForEach("a[href]", func(_ int, a *colly.HTMLElement) {
			if link := a.Request.AbsoluteURL(a.Attr("href")); broadPage.MatchString(link) {
				visit(link)
			}
		})
	})
	for _, s := range seeds {
		visit(s)
	}
	c.Wait()
	return st, w.flush()
}

// readSeeds reads one URL a line, skipping blank lines.
func readSeeds(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	return out, sc.Err()
}
