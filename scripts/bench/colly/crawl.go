package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"golang.org/x/net/html/charset"
)

const maxRetries = 2

// stats are the crawl's counts, printed at the end.
type stats struct {
	requests, responses, errors, retries, robots, seenRedirects, items atomic.Int64
}

// A linkRule follows, from pages whose URL matches page, the links that
// match one of allow: testdata/rules/demo.yml's link rules, plus product
// pages' related products.
type linkRule struct {
	page  *regexp.Regexp
	allow []*regexp.Regexp
}

var (
	productURL = regexp.MustCompile(`/catalogue/[^/]+_\d+/$`)
	shortURL   = regexp.MustCompile(`/p/\d+$`)
	linkRules  = []linkRule{
		{regexp.MustCompile(`^https?://[^/]+/$`), []*regexp.Regexp{regexp.MustCompile(`/category/[^/]+/$`)}},
		{regexp.MustCompile(`/category/[^/]+/(page-\d+\.html)?$`),
			[]*regexp.Regexp{regexp.MustCompile(`/category/[^/]+/page-\d+\.html$`), productURL, shortURL}},
		{productURL, []*regexp.Regexp{productURL, shortURL, regexp.MustCompile(`/go/\d+$`)}},
	}
)

// errSeenRedirect stops a redirect to a URL already requested.
var errSeenRedirect = errors.New("redirect to a URL already seen")

// crawl crawls from start with conc requests at once, writing products to
// w, and returns the counts.
func crawl(start string, conc int, honourRetryAfter bool, w *itemWriter, stderr io.Writer) (*stats, error) {
	st := &stats{}
	seen := &seenSet{}
	delayed := &waiting{}
	// colly's own visited check (IsVisited, then Visited: two steps) is off:
	// it lets two goroutines through for one URL, and on a redirect it could
	// refuse a target that seen has just admitted, losing the page.
	c := colly.NewCollector(colly.Async(true), colly.AllowURLRevisit(),
		colly.UserAgent("crawlutils-bench-colly (+https://github.com/crawlutils/crawlutils)"))
	c.IgnoreRobotsTxt = false
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: conc}); err != nil {
		return st, err
	}
	// net/http keeps 2 idle connections per host by default: at 16 at once,
	// the other 14 would be reopened for every request.
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = conc
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
			fmt.Fprintf(stderr, "colly-demo: %s: %v\n", u, err)
		}
	}

	// Redirects are followed inside net/http: their targets join the
	// seen-set too, and a redirect to a URL already requested stops there
	// (unless it is a retry, or a redirect back to the URL asked for).
	c.SetRedirectHandler(func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		u, _ := canonical(req.URL.String())
		first, _ := canonical(via[0].URL.String())
		retry := req.Context().Value(colly.CheckRevisitKey) == false
		if !seen.add(u) && u != first && !retry {
			return errSeenRedirect
		}
		return nil
	})

	c.OnRequest(func(*colly.Request) { st.requests.Add(1) })
	c.OnResponse(func(r *colly.Response) {
		st.responses.Add(1)
		decodeMetaCharset(r)
	})
	c.OnError(func(r *colly.Response, err error) {
		if errors.Is(err, errSeenRedirect) {
			st.seenRedirects.Add(1)
			return
		}
		if r.StatusCode != 0 {
			st.responses.Add(1)
		}
		n, _ := r.Ctx.GetAny("retries").(int)
		if (r.StatusCode == 0 || r.StatusCode >= 500) && n < maxRetries {
			r.Ctx.Put("retries", n+1)
			st.retries.Add(1)
			if wait := retryAfter(r); honourRetryAfter && wait > 0 {
				// A careful user's Retry-After: the retry waits in its own
				// goroutine, not in one of colly's parallel slots.
				delayed.Add(1)
				go func() {
					defer delayed.Done()
					time.Sleep(wait)
					if err := r.Request.Retry(); err != nil {
						st.errors.Add(1)
					}
				}()
				return
			}
			if err = r.Request.Retry(); err == nil {
				return
			}
		}
		st.errors.Add(1)
		if r.StatusCode != http.StatusNotFound { // discontinued products are expected
			fmt.Fprintf(stderr, "colly-demo: %s: %v\n", r.Request.URL, err)
		}
	})
	c.OnHTML("html", func(e *colly.HTMLElement) {
		if target, ok := metaRefresh(e); ok {
			visit(target)
			return
		}
		page := e.Request.URL.String()
		for _, rule := range linkRules {
			if rule.page.MatchString(page) {
				followLinks(e, rule.allow, visit)
			}
		}
		if !productURL.MatchString(page) {
			return
		}
		if row := extractProduct(e); row != nil {
			if err := w.write(row); err != nil {
				fmt.Fprintf(stderr, "colly-demo: %v\n", err)
				return
			}
			st.items.Add(1)
		}
	})

	visit(start)
	// A delayed retry joins colly's wait group only when it is sent: wait
	// until nothing is in flight and no retry is waiting.
	for {
		c.Wait()
		if delayed.n.Load() == 0 {
			break
		}
		delayed.wg.Wait()
	}
	return st, w.flush()
}

// retryAfter is a response's Retry-After in seconds, or 0.
func retryAfter(r *colly.Response) time.Duration {
	if r.Headers == nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(r.Headers.Get("Retry-After")))
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// waiting counts the retries waiting for their Retry-After.
type waiting struct {
	n  atomic.Int64
	wg sync.WaitGroup
}

func (w *waiting) Add(d int) { w.n.Add(int64(d)); w.wg.Add(d) }
func (w *waiting) Done()     { w.n.Add(-1); w.wg.Done() }

// followLinks visits every <a href> and <area href> whose absolute URL
// (against <base href> if there is one) matches one of allow.
func followLinks(e *colly.HTMLElement, allow []*regexp.Regexp, visit func(string)) {
	e.ForEach("a[href], area[href]", func(_ int, a *colly.HTMLElement) {
		u := e.Request.AbsoluteURL(a.Attr("href"))
		for _, re := range allow {
			if u != "" && re.MatchString(u) {
				visit(u)
				return
			}
		}
	})
}

// metaRefresh returns the target of a <meta http-equiv="refresh"> with a
// delay under 100 seconds (Scrapy's METAREFRESH_MAXDELAY).
func metaRefresh(e *colly.HTMLElement) (string, bool) {
	var target string
	e.ForEachWithBreak("meta[http-equiv]", func(_ int, m *colly.HTMLElement) bool {
		if !strings.EqualFold(m.Attr("http-equiv"), "refresh") {
			return true
		}
		if delay, u, ok := parseRefresh(m.Attr("content")); ok && delay < 100 {
			target = e.Request.AbsoluteURL(u)
		}
		return false
	})
	return target, target != ""
}

// decodeMetaCharset converts a body whose charset is declared only in
// <meta> (or a BOM) to UTF-8: with a Content-Type of plain "text/html",
// colly would parse it as UTF-8.
func decodeMetaCharset(r *colly.Response) {
	ct := r.Headers.Get("Content-Type")
	if !strings.HasPrefix(ct, "text/html") || strings.Contains(strings.ToLower(ct), "charset") {
		return
	}
	enc, name, _ := charset.DetermineEncoding(r.Body, ct)
	if name == "utf-8" {
		return
	}
	if body, err := enc.NewDecoder().Bytes(r.Body); err == nil {
		r.Body = body
	}
}
