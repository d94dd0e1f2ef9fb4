package demosite

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/htmlindex"
)

// testServer starts s on a loopback httptest server.
func testServer(t testing.TB, opts Options) (*Site, *httptest.Server) {
	t.Helper()
	return testServerClock(t, opts, nil)
}

// testServerClock starts s on a loopback httptest server, with clock as
// its clock unless it is nil.
func testServerClock(t testing.TB, opts Options, clock *fakeClock) (*Site, *httptest.Server) {
	t.Helper()
	s := New(opts)
	if clock != nil {
		s.now = clock.Now
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// rawClient neither follows redirects nor decompresses transparently.
func rawClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

type result struct {
	status int
	header http.Header
	body   []byte
}

// fetch performs one request and reads the whole body.
func fetch(t testing.TB, c *http.Client, method, url string, header map[string]string) result {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return result{resp.StatusCode, resp.Header, body}
}

var metaCharset = regexp.MustCompile(`(?i)charset=["']?([a-z0-9_-]+)`)

// decodeHTML converts a page to UTF-8 the way a browser would: the charset
// of the Content-Type header, else the one declared in the first 1024 bytes.
// It returns the label used.
func decodeHTML(t testing.TB, contentType string, body []byte) ([]byte, string) {
	t.Helper()
	label := ""
	if m := metaCharset.FindStringSubmatch(contentType); m != nil {
		label = m[1]
	} else if m := metaCharset.FindSubmatch(body[:min(len(body), 1024)]); m != nil {
		label = string(m[1])
	}
	if label == "" || strings.EqualFold(label, "utf-8") {
		return body, "utf-8"
	}
	enc, err := htmlindex.Get(label)
	if err != nil {
		t.Fatalf("unknown charset %q: %v", label, err)
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		t.Fatalf("decoding %s: %v", label, err)
	}
	return out, strings.ToLower(label)
}

func parseHTML(t testing.TB, b []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	return n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " "+class+" ")
}

// findAll returns the elements under n (inclusive) that match, in
// document order.
func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if all := findAll(n, match); len(all) > 0 {
		return all[0]
	}
	return nil
}

func textOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func nextElement(n *html.Node) *html.Node {
	for n = n.NextSibling; n != nil && n.Type != html.ElementNode; n = n.NextSibling {
	}
	return n
}

func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

var digitsRe = regexp.MustCompile(`\d+`)

// extractProduct applies the extraction rules of the package documentation
// to a decoded product page.
func extractProduct(t testing.TB, url string, doc *html.Node) Product {
	t.Helper()
	p := Product{URL: url}
	main := find(doc, func(n *html.Node) bool { return hasClass(n, "product_main") })
	if main == nil {
		t.Fatalf("%s: no div.product_main", url)
	}
	if h1s := findAll(doc, tag("h1")); len(h1s) != 1 {
		t.Errorf("%s: %d <h1> elements, want 1", url, len(h1s))
	}
	p.Title = strings.TrimSpace(textOf(find(main, tag("h1"))))
	p.Price = strings.TrimPrefix(textOf(find(main, func(n *html.Node) bool { return hasClass(n, "price_color") })), "£")
	for _, th := range findAll(doc, tag("th")) {
		if textOf(th) == "UPC" {
			p.UPC = textOf(nextElement(th))
		}
	}
	avail := textOf(find(main, func(n *html.Node) bool { return hasClass(n, "availability") }))
	p.Availability, _ = strconv.Atoi(digitsRe.FindString(avail))
	if crumbs := find(doc, func(n *html.Node) bool { return hasClass(n, "breadcrumb") }); crumbs != nil {
		if lis := findAll(crumbs, tag("li")); len(lis) >= 3 {
			p.Category = strings.TrimSpace(textOf(lis[2]))
		}
	}
	stars := find(main, func(n *html.Node) bool { return hasClass(n, "star-rating") })
	if stars != nil {
		for i, w := range ratingWords {
			if i > 0 && hasClass(stars, w) {
				p.Rating = i
			}
		}
	}
	if d := find(doc, func(n *html.Node) bool { return attr(n, "id") == "product_description" }); d != nil {
		if next := nextElement(d); next != nil && next.Data == "p" {
			p.Description = textOf(next)
		}
	}
	return p
}

// get performs one request and ignores its outcome: for a one-time
// failure, which may be a connection reset (an error).
func get(c *http.Client, method, url string) {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		panic(err)
	}
	if resp, err := c.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
