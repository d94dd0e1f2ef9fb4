package demosite

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
)

// TestPaddedPages: PadBytes makes every HTML page that much bigger, and
// nothing else changes: a perfect crawl makes the same requests and finds
// the same products; the padding has no link and nothing the demo rules
// select, and the pages stay in the fast HTML parser's subset.
func TestPaddedPages(t *testing.T) {
	const pad = 64 << 10
	plain, plainSrv := testServer(t, Options{Products: 120})
	padded, paddedSrv := testServer(t, Options{Products: 120, PadBytes: pad})
	for _, path := range []string{"/", plain.Truth()[0].URL, plain.cats[0].path, "/about.html"} {
		a, b := body(t, plainSrv.URL+path), body(t, paddedSrv.URL+path)
		if n := len(b) - len(a); n < pad || n > pad+1024 {
			t.Errorf("%s: padded page is %d bytes longer, want about %d", path, n, pad)
		}
		if htmlparse.Fast(b) == nil {
			t.Errorf("%s: the fast HTML parser refuses the padded page", path)
		}
	}
	p := padded.padding()
	for _, no := range []string{"<a ", "href", "product_main", "price_color", "product_pod", "</script><", "<base"} {
		if strings.Contains(p, no) {
			t.Errorf("the padding has %q", no)
		}
	}
	clock := newFakeClock()
	var got [2][]string
	var requests [2]int
	for i, srv := range []string{plainSrv.URL, paddedSrv.URL} {
		site := []*Site{plain, padded}[i]
		site.now = clock.Now
		root, _ := url.Parse(srv)
		c := &crawler{root: root, clock: clock, workers: 1}
		c.run(t)
		got[i], requests[i] = c.products, site.Stats().Requests
	}
	if !slices.Equal(got[0], got[1]) || requests[0] != requests[1] {
		t.Errorf("padded crawl: %d products in %d requests, plain: %d in %d", len(got[1]), requests[1], len(got[0]), requests[0])
	}
}

func body(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
