package demosite

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestJSShopPaths: what each path of the JavaScript shop answers.
func TestJSShopPaths(t *testing.T) {
	s, srv := testServer(t, Options{})
	appID := s.js.app[0].id
	c := &http.Client{Transport: &http.Transport{}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		path   string
		status int
		ctype  string
	}{
		{"/js", 301, ""},
		{"/js/", 200, ctHTML},
		{"/js/inline.html", 200, ctHTML},
		{"/js/fetch.html", 200, ctHTML},
		{"/js/more.html", 200, ctHTML},
		{"/js/app/", 200, ctHTML},
		{"/js/app/product/" + strconv.Itoa(appID), 200, ctHTML},
		{"/js/app/product/1", 404, ctHTML}, // not one of the router's
		{"/js/app/product/x", 404, ctHTML},
		{"/js/api/fetch.json", 200, ctJSON},
		{"/js/api/app.json", 200, ctJSON},
		{"/js/api/product/" + strconv.Itoa(appID) + ".json", 200, ctJSON},
		{"/js/api/more-1.json", 200, ctJSON},
		{"/js/api/more-2.json", 200, ctJSON},
		{"/js/api/more-3.json", 404, ctHTML},
		{"/js/nothing.html", 404, ctHTML},
	} {
		r := fetch(t, c, "GET", srv.URL+tc.path, nil)
		if r.status != tc.status || (tc.ctype != "" && r.header.Get("Content-Type") != tc.ctype) {
			t.Errorf("%s: %d %s, want %d %s", tc.path, r.status, r.header.Get("Content-Type"), tc.status, tc.ctype)
		}
	}
}

// TestJSShopTruth: the ground truth is what the pages' data gives, and the
// HTML the server sends holds none of it in elements (only a browser
// running the scripts shows the products).
func TestJSShopTruth(t *testing.T) {
	s, srv := testServer(t, Options{})
	truth := s.JSTruth()
	if len(truth) != 4*JSPerSection {
		t.Fatalf("%d products in the truth, want %d", len(truth), 4*JSPerSection)
	}
	c := &http.Client{}
	byPage := map[string][]JSProduct{}
	for _, p := range truth {
		byPage[p.URL] = append(byPage[p.URL], p)
	}
	var apiGet = func(path string, v any) {
		t.Helper()
		r := fetch(t, c, "GET", srv.URL+path, nil)
		if err := json.Unmarshal(r.body, v); err != nil {
			t.Fatalf("%s: %v: %s", path, err, r.body)
		}
	}
	same := func(page string, got []jsJSON) {
		t.Helper()
		want := byPage[page]
		if len(got) != len(want) {
			t.Fatalf("%s: %d products from the API, %d in the truth", page, len(got), len(want))
		}
		for _, g := range got {
			found := false
			for _, w := range want {
				found = found || (w.Title == g.Title && w.Price == g.Price && w.UPC == g.UPC)
			}
			if !found {
				t.Errorf("%s: %+v not in the truth", page, g)
			}
		}
	}
	var list []jsJSON
	apiGet("/js/api/fetch.json", &list)
	same("/js/fetch.html", list)
	var more []jsJSON
	for next := "/js/api/more-1.json"; next != ""; {
		var page struct {
			Products []jsJSON
			Next     string
		}
		apiGet(next, &page)
		more = append(more, page.Products...)
		next = page.Next
	}
	same("/js/more.html", more)
	apiGet("/js/api/app.json", &list)
	for _, p := range list {
		var one jsJSON
		apiGet("/js/api/product/"+strconv.Itoa(p.ID)+".json", &one)
		same("/js/app/product/"+strconv.Itoa(p.ID), []jsJSON{one})
	}
	inline := string(fetch(t, c, "GET", srv.URL+"/js/inline.html", nil).body)
	for _, p := range byPage["/js/inline.html"] {
		if !strings.Contains(inline, `"upc":"`+p.UPC+`"`) {
			t.Errorf("inline.html's script lacks %s", p.UPC)
		}
	}
	for _, page := range []string{"/js/inline.html", "/js/fetch.html", "/js/more.html", "/js/app/"} {
		doc := parseHTML(t, fetch(t, c, "GET", srv.URL+page, nil).body)
		if n := len(findAll(doc, func(n *html.Node) bool { return hasClass(n, "js-product") })); n != 0 {
			t.Errorf("%s: %d products in the HTML as sent; want none before a browser runs it", page, n)
		}
	}
}

// TestJSShopTinyCatalogue: a catalogue too small for the JavaScript shop
// gives it fewer products, never an error.
func TestJSShopTinyCatalogue(t *testing.T) {
	for _, n := range []int{1, 5, 12} {
		s := New(Options{Products: n})
		if got := len(s.JSTruth()); got%4 != 0 || got > 4*JSPerSection {
			t.Errorf("%d products: %d in the JavaScript shop's truth", n, got)
		}
	}
}
