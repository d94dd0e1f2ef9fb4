package demosite

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"
)

// crawlScope is what the test crawler follows: listing pages, product
// pages and the redirecting short links. It never touches /private/.
func crawlScope(path string) bool {
	for _, p := range []string{"/category/", "/catalogue/", "/p/", "/item/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// pageLinks returns the absolute URLs of the <a href> links of a page,
// resolved against its <base href> when it has one.
func pageLinks(page *url.URL, body []byte) []*url.URL {
	base := page
	var refs []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr || (string(name) != "a" && string(name) != "base") {
			continue
		}
		for {
			k, v, more := z.TagAttr()
			if string(k) == "href" {
				if string(name) == "base" {
					if b, err := page.Parse(string(v)); err == nil && base == page {
						base = b
					}
				} else {
					refs = append(refs, string(v))
				}
			}
			if !more {
				break
			}
		}
	}
	out := make([]*url.URL, 0, len(refs))
	for _, r := range refs {
		if u, err := base.Parse(r); err == nil {
			u.Fragment = ""
			out = append(out, u)
		}
	}
	return out
}

type crawlResult struct {
	products  []string       // canonical paths of product pages served 200
	requested int            // URLs requested (not counting retries)
	statuses  map[string]int // final status by requested path
}

// crawl visits everything in crawlScope reachable from "/", with 8
// workers, following redirects and retrying a 503 once.
func crawl(t *testing.T, root string) crawlResult {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections()
	rootURL, _ := url.Parse(root + "/")

	var (
		mu      sync.Mutex
		seen    = map[string]bool{rootURL.Path: true}
		res     = crawlResult{statuses: map[string]int{}}
		pending sync.WaitGroup
		queue   = make(chan *url.URL, 1<<16)
		failure string
	)
	enqueue := func(u *url.URL) {
		mu.Lock()
		defer mu.Unlock()
		if seen[u.Path] {
			return
		}
		seen[u.Path] = true
		pending.Add(1)
		queue <- u
	}
	get := func(u *url.URL) (*http.Response, []byte, error) {
		resp, err := client.Get(u.String())
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp, body, err
	}
	visit := func(u *url.URL) {
		defer pending.Done()
		resp, body, err := get(u)
		if err == nil && resp.StatusCode == http.StatusServiceUnavailable {
			resp, body, err = get(u)
		}
		mu.Lock()
		res.requested++
		if err != nil {
			failure = err.Error()
			mu.Unlock()
			return
		}
		res.statuses[u.Path] = resp.StatusCode
		final := resp.Request.URL.Path
		if resp.StatusCode == 200 && strings.HasPrefix(final, "/catalogue/") {
			res.products = append(res.products, final)
		}
		mu.Unlock()
		if resp.StatusCode != 200 {
			return
		}
		for _, l := range pageLinks(resp.Request.URL, body) {
			if l.Host == rootURL.Host && crawlScope(l.Path) {
				enqueue(l)
			}
		}
	}
	pending.Add(1)
	queue <- rootURL
	var workers sync.WaitGroup
	for range 8 {
		workers.Go(func() {
			for u := range queue {
				visit(u)
			}
		})
	}
	pending.Wait()
	close(queue)
	workers.Wait()
	if failure != "" {
		t.Fatal(failure)
	}
	slices.Sort(res.products)
	return res
}

// TestCrawlReachesExactlyTruth proves the truth is what a correct crawler
// finds: a BFS over listing and product links, honouring <base href>,
// following redirects and retrying 503 once, reaches exactly the truth
// URLs, fetches nothing twice (but flaky pages) and never enters /private/.
func TestCrawlReachesExactlyTruth(t *testing.T) {
	opts := Options{} // the default site, as the README demo crawls it
	if testing.Short() || raceEnabled {
		opts.Products = 800 // still has every reality; -race is ~20x slower
	}
	s, srv := testServer(t, opts)
	var want []string
	for _, p := range s.Truth() {
		want = append(want, p.URL)
	}
	for round := 1; round <= 2; round++ {
		res := crawl(t, srv.URL)
		if !slices.Equal(res.products, want) {
			t.Fatalf("round %d: crawl reached %d product pages, truth has %d (first difference: %s)",
				round, len(res.products), len(want), firstDifference(res.products, want))
		}
		for path, status := range res.statuses {
			if status == 404 && !(strings.HasPrefix(path, "/catalogue/") && isDiscontinued(idOf(t, path))) {
				t.Errorf("round %d: %s answered 404", round, path)
			}
		}
		hits := s.Hits()
		total := 0
		for path, n := range hits {
			total += n
			if strings.HasPrefix(path, "/private/") {
				t.Errorf("round %d: crawler fetched %s", round, path)
			}
			want := 1
			if flakyPath(s, path) {
				want = 2
			}
			if n != want {
				t.Errorf("round %d: %s fetched %d times, want %d", round, path, n, want)
			}
		}
		st := s.Stats()
		t.Logf("round %d: %d URLs requested, %d HTTP requests; %d listing pages, %d products, %d discontinued, %d redirected (%d two-hop), %d flaky",
			round, res.requested, total, st.ListingPages, st.Truth, st.Discontinued, st.Redirected, st.TwoHop, st.Flaky)
		s.Reset()
	}
}

// flakyPath reports whether path is a flaky product's page or short link
// (those are requested twice: 503, then retried).
func flakyPath(s *Site, path string) bool {
	if it := s.byPath[path]; it != nil {
		return it.flaky
	}
	for _, prefix := range []string{"/p/", "/item/"} {
		if digits, ok := strings.CutPrefix(path, prefix); ok {
			if id, err := strconv.Atoi(digits); err == nil && id >= 1 && id <= len(s.items) {
				return s.items[id-1].flaky
			}
		}
	}
	return false
}

func firstDifference(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return "got " + got[i] + ", want " + want[i]
		}
	}
	if len(got) > len(want) {
		return "extra " + got[len(want)]
	}
	if len(want) > len(got) {
		return "missing " + want[len(got)]
	}
	return "none"
}
