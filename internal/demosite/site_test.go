package demosite

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRobots(t *testing.T) {
	_, srv := testServer(t, Options{Products: 50})
	r := fetch(t, rawClient(), "GET", srv.URL+"/robots.txt", nil)
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q", ct)
	}
	body := string(r.body)
	for _, want := range []string{
		"User-agent: *\nDisallow: /private/\n",
		"\nSitemap: " + srv.URL + "/sitemap.xml\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("robots.txt lacks %q:\n%s", want, body)
		}
	}
}

func firstID(t *testing.T, s *Site, ok func(*item) bool) *item {
	t.Helper()
	for _, it := range s.items {
		if ok(it) {
			return it
		}
	}
	t.Fatal("no matching product")
	return nil
}

// TestOneTimeFailures checks each kind of one-time failure: the first
// request since New or Reset fails, every later one gets the page.
func TestOneTimeFailures(t *testing.T) {
	for _, tc := range []struct {
		kind       failureKind
		retryAfter time.Duration
		status     int    // of the failure; 0 for a reset
		header     string // its Retry-After; "" for none
	}{
		{fail503RetryAfter, 0, 503, "1"},
		{fail503RetryAfter, 90 * time.Second, 503, "90"},
		{fail503RetryAfter, 1500 * time.Millisecond, 503, "1"},
		{fail503RetryAfter, RetryAfterZero, 503, "0"},
		{fail503RetryAfter, time.Millisecond, 503, "0"},
		{fail503RetryAfter, NoRetryAfter, 503, ""},
		{fail503, 0, 503, ""},
		{fail500, 0, 500, ""},
		{failReset, 0, 0, ""},
	} {
		t.Run(fmt.Sprintf("%s_%v", tc.kind, tc.retryAfter), func(t *testing.T) {
			s, srv := testServer(t, Options{Products: 200, RetryAfter: tc.retryAfter})
			it := firstID(t, s, func(it *item) bool { return it.failure == tc.kind })
			// A fresh connection for every request: the transport does not
			// retry a reset of a new connection by itself.
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for i, reset := range []bool{false, false, false, true, false} {
				if reset {
					s.Reset()
				}
				resp, err := c.Get(srv.URL + it.URL)
				fails := i == 0 || reset
				switch {
				case !fails && (err != nil || resp.StatusCode != 200):
					t.Fatalf("request %d: %v %v, want 200", i+1, resp, err)
				case fails && tc.status == 0:
					if err == nil {
						t.Fatalf("request %d: status %d, want a connection reset", i+1, resp.StatusCode)
					}
				case fails && (err != nil || resp.StatusCode != tc.status):
					t.Fatalf("request %d: %v %v, want %d", i+1, resp, err, tc.status)
				case fails && resp.Header.Get("Retry-After") != tc.header:
					t.Errorf("Retry-After %q, want %q", resp.Header.Get("Retry-After"), tc.header)
				}
				if err == nil {
					resp.Body.Close()
				}
			}
			if got := s.Hits()[it.URL]; got != 2 {
				t.Errorf("hits after Reset = %d, want 2", got)
			}
		})
	}
	// The kinds are disjoint, never discontinued, about 1% each, and leave
	// the README's pages alone (but ancient-radio-mk-ii_7).
	s := New(Options{})
	counts := map[failureKind]int{}
	for _, it := range s.items {
		counts[it.failure]++
		if it.failure != failNone && it.discontinued {
			t.Errorf("%s is discontinued and fails once", it.URL)
		}
	}
	for kind, n := range counts {
		if kind != failNone && (n < 25 || n > 65) {
			t.Errorf("%d products fail with %s", n, kind)
		}
	}
	for id, want := range map[int]failureKind{7: fail503RetryAfter, 2: failNone, 4: failNone, 19: failNone, 1630: failNone, 2574: failNone} {
		if got := s.items[id-1].failure; got != want {
			t.Errorf("product %d fails with %s, want %s", id, got, want)
		}
	}
}

func TestRedirects(t *testing.T) {
	s, srv := testServer(t, Options{Products: 200})
	one := firstID(t, s, func(it *item) bool { return it.redirect == redirectOneHop })
	two := firstID(t, s, func(it *item) bool { return it.redirect == redirectTwoHop })
	gone := firstID(t, s, func(it *item) bool { return it.discontinued })
	tests := []struct {
		name  string
		start string
		chain []string // Locations, in order
		final int
	}{
		{"one hop", "/p/" + strconv.Itoa(one.id), []string{one.URL}, 200},
		{"two hops", "/p/" + strconv.Itoa(two.id), []string{"/item/" + strconv.Itoa(two.id), two.URL}, 200},
		{"item", "/item/" + strconv.Itoa(two.id), []string{two.URL}, 200},
		{"discontinued", "/p/" + strconv.Itoa(gone.id), nil, 404},
		{"zero", "/p/0", nil, 404},
		{"leading zero", "/p/0" + strconv.Itoa(one.id), nil, 404},
		{"out of range", "/p/201", nil, 404},
		{"no slash category", strings.TrimSuffix(one.cat.path, "/"), []string{one.cat.path}, 200},
		{"no slash product", strings.TrimSuffix(one.URL, "/"), []string{one.URL}, 200},
	}
	c := rawClient()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.start
			var chain []string
			for range 5 {
				r := fetch(t, c, "GET", srv.URL+path, nil)
				if r.status != http.StatusMovedPermanently {
					if r.status != tc.final {
						t.Errorf("%s: status %d, want %d", path, r.status, tc.final)
					}
					break
				}
				path = r.header.Get("Location")
				chain = append(chain, path)
			}
			if !slices.Equal(chain, tc.chain) {
				t.Errorf("chain %q, want %q", chain, tc.chain)
			}
		})
	}
	// Listing pages link redirected products through /p/<id>.
	r := fetch(t, c, "GET", srv.URL+one.cat.pagePath((indexIn(one.cat.items, one)/DefaultPerPage)+1), nil)
	if !bytes.Contains(r.body, []byte("p/"+strconv.Itoa(one.id)+`"`)) {
		t.Errorf("listing page does not link /p/%d", one.id)
	}
}

func indexIn(items []*item, it *item) int { return slices.Index(items, it) }

func TestGzip(t *testing.T) {
	s, srv := testServer(t, Options{Products: 100})
	c := rawClient()
	legacy := firstID(t, s, func(it *item) bool { return it.charset == csShiftJIS })
	for _, path := range []string{"/", legacy.URL, "/category/books/", "/about.html", "/no-such-page"} {
		plain := fetch(t, c, "GET", srv.URL+path, nil)
		if plain.header.Get("Content-Encoding") != "" {
			t.Errorf("%s: compressed without Accept-Encoding", path)
		}
		if plain.header.Get("Content-Length") != strconv.Itoa(len(plain.body)) {
			t.Errorf("%s: Content-Length %q for %d bytes", path, plain.header.Get("Content-Length"), len(plain.body))
		}
		zipped := fetch(t, c, "GET", srv.URL+path, map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
		if zipped.header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: Content-Encoding %q", path, zipped.header.Get("Content-Encoding"))
		}
		if zipped.status != plain.status {
			t.Errorf("%s: status %d vs %d", path, zipped.status, plain.status)
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(unzipped, plain.body) {
			t.Errorf("%s: gzip body differs from plain body", path)
		}
		refused := fetch(t, c, "GET", srv.URL+path, map[string]string{"Accept-Encoding": "gzip;q=0"})
		if refused.header.Get("Content-Encoding") != "" {
			t.Errorf("%s: compressed despite gzip;q=0", path)
		}
	}
	for _, path := range []string{"/robots.txt", "/sitemap.xml", "/media/1.jpg"} {
		r := fetch(t, c, "GET", srv.URL+path, map[string]string{"Accept-Encoding": "gzip"})
		if r.header.Get("Content-Encoding") != "" {
			t.Errorf("%s: non-HTML response compressed", path)
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"":                   false,
		"gzip":               true,
		"GZIP":               true,
		"deflate, gzip":      true,
		"gzip;q=0":           false,
		"gzip; q=0.000":      false,
		"gzip;q=0.5":         true,
		"x-gzip":             true,
		"br":                 false,
		"identity, deflate":  false,
		"br;q=1, gzip ;q=.1": true,
	} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestRoutes(t *testing.T) {
	s, srv := testServer(t, Options{Products: 300})
	books := s.catBy["books"]
	gone := firstID(t, s, func(it *item) bool { return it.discontinued })
	tests := []struct {
		path   string
		status int
		ctype  string
	}{
		{"/", 200, ctHTML},
		{"/about.html", 200, ctHTML},
		{"/robots.txt", 200, ctText},
		{books.path, 200, ctHTML},
		{books.pagePath(2), 200, ctHTML},
		{books.pagePath(books.pages(20)), 200, ctHTML},
		{books.path + "page-1.html", 404, ctHTML},
		{books.path + "page-" + strconv.Itoa(books.pages(20)+1) + ".html", 404, ctHTML},
		{books.path + "page-02.html", 404, ctHTML},
		{"/category/nope/", 404, ctHTML},
		{gone.URL, 404, ctHTML},
		{"/catalogue/wrong-slug_1/", 404, ctHTML},
		{"/media/1.jpg", 200, ctImage},
		{"/media/900001.jpg", 200, ctImage},
		{"/media/301.jpg", 404, ctHTML},
		{"/private/", 200, ctHTML},
		{"/private/page-5.html", 200, ctHTML},
		{"/private/page-6.html", 404, ctHTML},
		{s.private[0].URL, 200, ctHTML},
		{"/private/catalogue/x_1/", 404, ctHTML},
		{"/old-catalogue/", 404, ctHTML},
		{"/news/2019/launch.html", 404, ctHTML},
		{"/sitemap-products-1.xml", 200, ctXML},
		{"/sitemap-products-01.xml", 404, ctHTML},
		{"/sitemap-categories.xml", 200, ctXML},
		{"/go/1", 200, ctHTML},
		{"/go/" + strconv.Itoa(gone.id), 404, ctHTML},
		{"/go/0", 404, ctHTML},
		{"/go/301", 404, ctHTML},
		{"/go/1/", 404, ctHTML},
	}
	c := rawClient()
	for _, tc := range tests {
		r := fetch(t, c, "GET", srv.URL+tc.path, nil)
		if r.status != tc.status || r.header.Get("Content-Type") != tc.ctype {
			t.Errorf("GET %s: %d %q, want %d %q", tc.path, r.status, r.header.Get("Content-Type"), tc.status, tc.ctype)
		}
		h := fetch(t, c, "HEAD", srv.URL+tc.path, nil)
		if h.status != tc.status || len(h.body) != 0 || h.header.Get("Content-Length") != strconv.Itoa(len(r.body)) {
			t.Errorf("HEAD %s: %d, %d body bytes, Content-Length %q (GET had %d)", tc.path, h.status, len(h.body), h.header.Get("Content-Length"), len(r.body))
		}
	}
	if r := fetch(t, c, "POST", srv.URL+"/", nil); r.status != 405 || r.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d, Allow %q", r.status, r.header.Get("Allow"))
	}
	jpg := fetch(t, c, "GET", srv.URL+"/media/5.jpg", nil)
	if !bytes.HasPrefix(jpg.body, []byte{0xFF, 0xD8, 0xFF}) || !bytes.HasSuffix(jpg.body, []byte{0xFF, 0xD9}) {
		t.Error("media is not JPEG-like")
	}
	hits := s.Hits()
	if hits["/"] != 3 || hits["/private/"] != 2 {
		t.Errorf("hits / = %d, /private/ = %d; want 3 (GET, HEAD, POST) and 2", hits["/"], hits["/private/"])
	}
}

func TestLatency(t *testing.T) {
	_, srv := testServer(t, Options{Products: 20, Latency: 100 * time.Millisecond})
	start := time.Now()
	if r := fetch(t, rawClient(), "GET", srv.URL+"/robots.txt", nil); r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("answered in %v", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/", nil)
	if _, err := rawClient().Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled request: %v", err)
	}
}
