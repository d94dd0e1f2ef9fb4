package cextract

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html/charset"

	"github.com/crawlutils/crawlutils/internal/demosite"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// The stored responses of the demo site: what cfetch writes for a crawl of
// a small demo shop, saved once so that rules can be tested (and
// benchmarked) against the same bytes forever. Regenerate with
//
//	go test ./internal/cextract -run TestStoredDemoResponses -update
const (
	demoResponsesFile = "testdata/responses/demo.jsonl"
	demoBase          = "http://demo.test"
	demoProducts      = 120
)

func demoOptions() demosite.Options { return demosite.Options{Products: demoProducts} }

// updateGolden reports whether the tests run with -update (the flag is
// defined by scripttest, which this package's TestMain uses).
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestStoredDemoResponses regenerates testdata/responses/demo.jsonl with
// -update; without it, it checks that the file is there.
func TestStoredDemoResponses(t *testing.T) {
	if !updateGolden() {
		if _, err := os.Stat(demoResponsesFile); err != nil {
			t.Fatalf("%v: run go test -run TestStoredDemoResponses -update", err)
		}
		return
	}
	var b bytes.Buffer
	for _, line := range crawlDemo(t, demosite.New(demoOptions())) {
		b.Write(line)
	}
	if err := os.MkdirAll(filepath.Dir(demoResponsesFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(demoResponsesFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// demoFollow are the links the stored crawl follows: the shop's pages,
// not the calendar trap, the private pages or the media files.
var demoFollow = regexp.MustCompile(`^http://demo\.test/(category/|catalogue/|p/|item/|$)`)

// crawlDemo fetches the demo site breadth first from the home page, the way
// cfetch would (redirects followed, a 503 retried once, legacy charsets
// converted to UTF-8), plus robots.txt and the sitemaps, and returns one
// response record per request.
func crawlDemo(t *testing.T, site *demosite.Site) [][]byte {
	t.Helper()
	type req struct {
		url   string
		depth int
	}
	queue := []req{{demoBase + "/", 0}, {demoBase + "/robots.txt", 0}, {demoBase + "/sitemap.xml", 0}}
	seen := map[string]bool{}
	for _, r := range queue {
		seen[r.url] = true
	}
	var out [][]byte
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		resp := fetchDemo(t, site, r.url, r.depth)
		line, err := record.Encode(resp)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
		var next []string
		switch {
		case strings.Contains(resp.Headers["content-type"], "html") && resp.Status == 200:
			next, _ = (&LinkExtractor{}).Links(selector.ParseDoc(resp.Body, resp.URL))
		case strings.HasSuffix(resp.URL, "/sitemap.xml"):
			for _, m := range regexp.MustCompile(`<loc>([^<]+)</loc>`).FindAllStringSubmatch(resp.Body, -1) {
				next = append(next, m[1])
			}
		}
		for _, u := range next {
			if seen[u] || !demoFollow.MatchString(u) && !strings.Contains(u, "/sitemap-") {
				continue
			}
			seen[u] = true
			queue = append(queue, req{u, r.depth + 1})
		}
	}
	return out
}

// fetchDemo gets one URL from the site in process and builds its response
// record as cfetch would.
func fetchDemo(t *testing.T, site http.Handler, u string, depth int) *record.Response {
	t.Helper()
	reqRaw, _ := json.Marshal(map[string]any{"kind": "request", "url": u, "depth": depth, "crawlid": "demo"})
	resp := &record.Response{Kind: record.KindResponse, Request: reqRaw, FetchedAt: "2026-01-01T00:00:00.000Z"}
	cur := u
	for hops := 0; ; hops++ {
		rec := httptest.NewRecorder()
		site.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, cur, nil))
		if rec.Code == http.StatusServiceUnavailable && resp.Retries == 0 {
			resp.Retries = 1
			rec = httptest.NewRecorder()
			site.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, cur, nil))
		}
		if loc := rec.Header().Get("Location"); rec.Code/100 == 3 && loc != "" && hops < 5 {
			resp.Redirects = append(resp.Redirects, record.Redirect{URL: cur, Status: rec.Code})
			base, _ := url.Parse(cur)
			ref, err := url.Parse(loc)
			if err != nil {
				t.Fatal(err)
			}
			cur = base.ResolveReference(ref).String()
			continue
		}
		resp.URL, resp.Status = cur, rec.Code
		ct := rec.Header().Get("Content-Type")
		resp.Headers = map[string]string{"content-type": ct}
		body := rec.Body.Bytes()
		resp.Size = int64(len(body))
		if strings.HasPrefix(ct, "image/") {
			resp.BodyBase64 = "/9j/"
			return resp
		}
		enc, name, _ := charset.DetermineEncoding(body, ct)
		text, err := enc.NewDecoder().Bytes(body)
		if err != nil {
			t.Fatalf("%s: %v", cur, err)
		}
		resp.Body, resp.Encoding = string(text), name
		return resp
	}
}
