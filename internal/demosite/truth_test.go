package demosite

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestProductPagesMatchTruth fetches every truth product's page, decodes
// it by its declared charset, applies the documented extraction rules and
// compares with the truth.
func TestProductPagesMatchTruth(t *testing.T) {
	s, srv := testServer(t, Options{Products: 400})
	c := rawClient()
	charsets := map[string]int{}
	for _, want := range s.Truth() {
		id := idOf(t, want.URL)
		it := s.items[id-1]
		if it.failure != failNone {
			get(c, "GET", srv.URL+want.URL) // its one-time failure
		}
		r := fetch(t, c, "GET", srv.URL+want.URL, nil)
		if r.status != 200 {
			t.Fatalf("%s: status %d", want.URL, r.status)
		}
		if got, want := r.header.Get("Content-Type"), it.charset.contentType(); got != want {
			t.Errorf("%s: Content-Type %q, want %q", it.URL, got, want)
		}
		if got := r.header.Get("Content-Length"); got != strconv.Itoa(len(r.body)) {
			t.Errorf("%s: Content-Length %q for %d bytes", it.URL, got, len(r.body))
		}
		if it.charset != csUTF8 && !strings.ContainsFunc(want.Title+want.Description, func(r rune) bool { return r > 127 }) {
			t.Errorf("%s: legacy-charset product without non-ASCII text", it.URL)
		}
		if it.charset != csUTF8 && utf8.Valid(r.body) {
			t.Errorf("%s: %s page is valid UTF-8; its non-ASCII text should be natively encoded", it.URL, it.charset)
		}
		decoded, label := decodeHTML(t, r.header.Get("Content-Type"), r.body)
		charsets[label]++
		if label != it.charset.String() {
			t.Errorf("%s: declared charset %q, want %q", it.URL, label, it.charset)
		}
		got := extractProduct(t, want.URL, parseHTML(t, decoded))
		if got != want {
			t.Errorf("product page differs from truth:\n got %+v\nwant %+v", got, want)
		}
	}
	for _, cs := range []string{"utf-8", "windows-1252", "iso-8859-1", "shift_jis", "euc-kr"} {
		if charsets[cs] == 0 {
			t.Errorf("no product page in %s", cs)
		}
	}
}

// TestLegacyTextNativelyEncodable checks that titles and descriptions of
// legacy-charset products only use characters of their charset, so they
// are encoded natively rather than as character references.
func TestLegacyTextNativelyEncodable(t *testing.T) {
	s := New(Options{Products: 1000})
	for _, it := range s.items {
		if it.charset == csUTF8 {
			continue
		}
		if _, err := it.charset.encoding().NewEncoder().String(it.Title + it.Description); err != nil {
			t.Errorf("%s (%s): %v", it.URL, it.charset, err)
		}
	}
}

func idOf(t testing.TB, path string) int {
	t.Helper()
	i := strings.LastIndexByte(path, '_')
	id, err := strconv.Atoi(strings.TrimSuffix(path[i+1:], "/"))
	if i < 0 || err != nil {
		t.Fatalf("no id in %q", path)
	}
	return id
}

// TestDeterminism checks that the same seed gives the same truth and the
// same bytes, and that another seed gives other content.
func TestDeterminism(t *testing.T) {
	opts := Options{Products: 300, Seed: 42}
	a, b := New(opts), New(opts)
	other := New(Options{Products: 300, Seed: 43})
	if !slices.Equal(a.Truth(), b.Truth()) {
		t.Fatal("same seed, different truth")
	}
	if slices.Equal(a.Truth(), other.Truth()) {
		t.Fatal("different seeds, same truth")
	}
	// A product's content does not depend on the number of products.
	bigger := New(Options{Products: 600, Seed: 42})
	if a.items[10].Product.Title != bigger.items[10].Product.Title || a.items[10].UPC != bigger.items[10].UPC {
		t.Error("product 11 changed with Options.Products")
	}
	paths := []string{"/", "/about.html", "/robots.txt", "/sitemap.xml", "/sitemap-products-1.xml",
		"/sitemap-categories.xml", "/media/7.jpg", "/calendar/2026/01/", "/private/", "/private/page-2.html"}
	for _, c := range a.cats {
		paths = append(paths, c.path)
	}
	for _, it := range a.items[:60] {
		paths = append(paths, it.URL)
	}
	differ := 0
	for _, path := range paths {
		ra, rb, ro := serve(a, path), serve(b, path), serve(other, path)
		if !bytes.Equal(ra, rb) {
			t.Errorf("%s: same seed, different bytes", path)
		}
		if !bytes.Equal(ra, ro) {
			differ++
		}
	}
	if differ < len(paths)/2 {
		t.Errorf("only %d of %d pages differ between seeds", differ, len(paths))
	}
}

// TestGolden pins the default site's content: the same seed must give the
// same site on every machine and Go release. If you change the generator
// on purpose, update the hashes (the test prints the new ones).
func TestGolden(t *testing.T) {
	s := New(Options{})
	truth, err := json.Marshal(s.Truth())
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, path := range []string{"/", "/category/books/page-2.html", "/catalogue/green-kite-2000_19/", "/media/19.jpg", "/sitemap-products-1.xml"} {
		h.Write(serve(s, path))
	}
	got := [2]string{fmt.Sprintf("%x", sha256.Sum256(truth)), fmt.Sprintf("%x", h.Sum(nil))}
	want := [2]string{"71cee21f77adaf2dece31c94d5fe1f1799e23b56f780e65962d9727406bede90", "f95a3b24c3c239fd7f0f274318d7e19d5cebaf79f473b2c4b84debe0d9414a18"}
	if got != want {
		t.Errorf("default site changed:\n got truth %s pages %s\nwant truth %s pages %s", got[0], got[1], want[0], want[1])
	}
}

// serve renders path in-process (no gzip, Host example.test). A
// connection reset (which panics with http.ErrAbortHandler here, as there
// is no connection) gives no bytes.
func serve(s *Site, path string) []byte {
	req, _ := http.NewRequest("GET", "http://example.test"+path, nil)
	w := &recorder{header: http.Header{}}
	defer func() {
		if v := recover(); v != nil && v != http.ErrAbortHandler {
			panic(v)
		}
	}()
	s.ServeHTTP(w, req)
	return w.body.Bytes()
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(status int)      { r.status = status }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }

func TestTruthExcludesDeadAndPrivate(t *testing.T) {
	s := New(Options{Products: 1000})
	truth := s.Truth()
	if want := 1000 - 1000/37; len(truth) != want {
		t.Errorf("%d truth products, want %d", len(truth), want)
	}
	if !slices.IsSortedFunc(truth, func(a, b Product) int { return strings.Compare(a.URL, b.URL) }) {
		t.Error("truth not sorted by URL")
	}
	seen := map[string]bool{}
	for _, p := range truth {
		id := idOf(t, p.URL)
		switch {
		case seen[p.URL]:
			t.Errorf("duplicate %s", p.URL)
		case !strings.HasPrefix(p.URL, "/catalogue/"):
			t.Errorf("non-catalogue URL %s", p.URL)
		case isDiscontinued(id):
			t.Errorf("discontinued product %s in truth", p.URL)
		case p.Rating < 1 || p.Rating > 5 || p.Availability < 1 || p.Title == "" || p.Description == "" || len(p.UPC) != 16:
			t.Errorf("implausible record %+v", p)
		}
		seen[p.URL] = true
	}
	for _, it := range s.private {
		if seen[it.URL] {
			t.Errorf("private product %s in truth", it.URL)
		}
	}
	if got := truth[0].AbsURL("http://h:1/"); got != "http://h:1"+truth[0].URL {
		t.Errorf("AbsURL = %q", got)
	}
}

func TestSitemapListsExactlyTruth(t *testing.T) {
	s, srv := testServer(t, Options{Products: 2500})
	c := rawClient()
	type loc struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	}
	var index struct {
		Sitemaps []loc `xml:"sitemap"`
	}
	r := fetch(t, c, "GET", srv.URL+"/sitemap.xml", nil)
	if ct := r.header.Get("Content-Type"); ct != "application/xml" {
		t.Errorf("Content-Type %q", ct)
	}
	if err := xml.Unmarshal(r.body, &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Sitemaps) != 4 { // categories + 3 product files for 2433 products
		t.Fatalf("%d sitemaps in index", len(index.Sitemaps))
	}
	var products, categories []string
	for _, sm := range index.Sitemaps {
		var set struct {
			URLs []loc `xml:"url"`
		}
		r := fetch(t, c, "GET", sm.Loc, nil)
		if r.status != 200 {
			t.Fatalf("%s: status %d", sm.Loc, r.status)
		}
		if err := xml.Unmarshal(r.body, &set); err != nil {
			t.Fatal(err)
		}
		if len(set.URLs) > 1000 {
			t.Errorf("%s: %d URLs", sm.Loc, len(set.URLs))
		}
		for _, u := range set.URLs {
			if strings.HasSuffix(sm.Loc, "/sitemap-categories.xml") {
				categories = append(categories, u.Loc)
				continue
			}
			if _, err := time.Parse("2006-01-02", u.Lastmod); err != nil {
				t.Errorf("%s: lastmod %q", u.Loc, u.Lastmod)
			}
			products = append(products, u.Loc)
		}
	}
	var want []string
	for _, p := range s.Truth() {
		want = append(want, p.AbsURL(srv.URL))
	}
	slices.Sort(products)
	if !slices.Equal(products, want) {
		t.Errorf("sitemap lists %d product URLs, truth has %d", len(products), len(want))
	}
	if len(categories) != 16 {
		t.Errorf("%d category URLs", len(categories))
	}
	if r := fetch(t, c, "GET", srv.URL+"/sitemap-products-4.xml", nil); r.status != 404 {
		t.Errorf("sitemap-products-4.xml: status %d", r.status)
	}
}
