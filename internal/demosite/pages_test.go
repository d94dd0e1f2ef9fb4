package demosite

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

var hrefRe = []byte(`href="`)

// links returns the href values of a page, in order.
func links(body []byte) []string {
	var out []string
	for {
		i := bytes.Index(body, hrefRe)
		if i < 0 {
			return out
		}
		body = body[i+len(hrefRe):]
		j := bytes.IndexByte(body, '"')
		out = append(out, string(body[:j]))
		body = body[j:]
	}
}

func resolve(t testing.TB, base, ref string) string {
	t.Helper()
	b, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	r, err := url.Parse(ref)
	if err != nil {
		t.Fatal(err)
	}
	return b.ResolveReference(r).Path
}

func TestCalendarTrap(t *testing.T) {
	_, srv := testServer(t, Options{Products: 20})
	c := rawClient()
	path := "/calendar/2026/01/"
	seen := map[string]bool{}
	for range 40 {
		r := fetch(t, c, "GET", srv.URL+path, nil)
		if r.status != 200 {
			t.Fatalf("%s: status %d", path, r.status)
		}
		seen[path] = true
		var next, prev string
		for _, l := range links(r.body) {
			abs := resolve(t, path, l)
			if strings.HasPrefix(abs, "/calendar/") {
				if strings.Contains(string(r.body), `<a href="`+l+`">next month`) {
					next = abs
				} else {
					prev = abs
				}
			}
		}
		if next == "" || prev == "" || seen[next] {
			t.Fatalf("%s: next %q prev %q", path, next, prev)
		}
		path = next
	}
	if path != "/calendar/2029/05/" {
		t.Errorf("after 40 months: %s", path)
	}
	tests := map[string]int{
		"/calendar/9999/12/": 200,
		"/calendar/0001/01/": 200,
		"/calendar/0000/01/": 404,
		"/calendar/2026/13/": 404,
		"/calendar/2026/1/":  404,
		"/calendar/2026/01":  404,
		"/calendar/+026/01/": 404,
	}
	for path, want := range tests {
		if r := fetch(t, c, "GET", srv.URL+path, nil); r.status != want {
			t.Errorf("%s: status %d, want %d", path, r.status, want)
		}
	}
	last := fetch(t, c, "GET", srv.URL+"/calendar/9999/12/", nil)
	if bytes.Contains(last.body, []byte("next month")) {
		t.Error("9999-12 links to a next month")
	}
}

func TestPagesShape(t *testing.T) {
	s := New(Options{})
	// Product pages are realistically sized.
	for _, it := range s.items {
		if it.discontinued {
			continue
		}
		if it.failure != failNone {
			serve(s, it.URL) // its one-time failure
		}
		n := len(serve(s, it.URL))
		if n < 8<<10 || n > 15<<10 {
			t.Errorf("%s: %d bytes", it.URL, n)
		}
	}
	// Home links to every category, the trap, the private area and dead links.
	home := string(serve(s, "/"))
	for _, c := range s.cats {
		if !strings.Contains(home, `href="`+strings.TrimPrefix(c.path, "/")+`"`) {
			t.Errorf("home does not link %s", c.path)
		}
	}
	for _, want := range []string{"calendar/2026/01/", "private/", "about.html", "old-catalogue/"} {
		if !strings.Contains(home, `href="`+want+`"`) {
			t.Errorf("home does not link %s", want)
		}
	}
	// Listing pages: each product linked twice, full numbered pager.
	books := s.catBy["books"]
	page := string(serve(s, books.pagePath(3)))
	for _, it := range books.items[40:60] {
		if n := strings.Count(page, `href="`+rel(books.path, it.linkPath())+`"`); n != 2 {
			t.Errorf("%s linked %d times on page 3", it.linkPath(), n)
		}
	}
	for n := 2; n <= books.pages(20); n++ {
		if n != 3 && !strings.Contains(page, `href="page-`+strconv.Itoa(n)+`.html"`) {
			t.Errorf("page 3 does not link page %d", n)
		}
	}
	for _, want := range []string{`<li class="next"><a href="page-4.html">next</a></li>`, `<li class="previous"><a href="page-2.html">previous</a></li>`, `href="./">1</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page 3 lacks %s", want)
		}
	}
}

// TestBaseHref checks that the Kitchen listing's links only work when
// resolved against its <base href>.
func TestBaseHref(t *testing.T) {
	s, srv := testServer(t, Options{Products: 300})
	kitchen := s.catBy["kitchen"]
	c := rawClient()
	for _, path := range []string{kitchen.path, kitchen.pagePath(2)} {
		body := fetch(t, c, "GET", srv.URL+path, nil).body
		if !bytes.Contains(body, []byte(`<base href="/catalogue/">`)) {
			t.Fatalf("%s: no <base href>", path)
		}
		var products int
		for _, l := range links(body) {
			good := resolve(t, "/catalogue/", l)
			if good == "/catalogue/" { // the <base> element itself
				continue
			}
			if !strings.HasPrefix(good, "/catalogue/") && !strings.HasPrefix(good, "/category/") {
				continue
			}
			if r := fetch(t, c, "HEAD", srv.URL+good, nil); r.status != 200 && r.status != 301 && r.status != 404 && r.status != 503 {
				t.Errorf("%s via base: status %d", good, r.status)
			} else if r.status == 404 && !isDiscontinued(idOf(t, good)) {
				t.Errorf("%s via base: 404", good)
			}
			if strings.HasPrefix(good, "/catalogue/") {
				products++
				wrong := resolve(t, path, l)
				if r := fetch(t, c, "HEAD", srv.URL+wrong, nil); r.status != 404 {
					t.Errorf("%s (base ignored): status %d, want 404", wrong, r.status)
				}
			}
		}
		if products == 0 {
			t.Errorf("%s: no product links", path)
		}
	}
}

func TestRel(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"/", "/", "./"},
		{"/", "/category/books/", "category/books/"},
		{"/", "/about.html", "about.html"},
		{"/category/books/", "/category/books/", "./"},
		{"/category/books/", "/category/books/page-2.html", "page-2.html"},
		{"/category/books/", "/catalogue/x_1/", "../../catalogue/x_1/"},
		{"/category/books/", "/p/17", "../../p/17"},
		{"/catalogue/", "/catalogue/x_1/", "x_1/"},
		{"/catalogue/", "/category/kitchen/page-3.html", "../category/kitchen/page-3.html"},
		{"/catalogue/x_1/", "/", "../../"},
		{"/calendar/2026/01/", "/calendar/2025/12/", "../../2025/12/"},
	}
	for _, tc := range tests {
		got := rel(tc.from, tc.to)
		if got != tc.want {
			t.Errorf("rel(%q, %q) = %q, want %q", tc.from, tc.to, got, tc.want)
		}
		if abs := resolve(t, tc.from, got); abs != tc.to {
			t.Errorf("rel(%q, %q) = %q resolves to %q", tc.from, tc.to, got, abs)
		}
	}
}

func TestSmallSites(t *testing.T) {
	for _, n := range []int{1, 2, 5, 37} {
		s := New(Options{Products: n, PerPage: 3})
		if got := len(s.items); got != n {
			t.Errorf("Products %d: %d items", n, got)
		}
		for _, c := range s.cats {
			if body := serve(s, c.path); !bytes.Contains(body, []byte("results")) {
				t.Errorf("Products %d: %s broken", n, c.path)
			}
		}
	}
}
