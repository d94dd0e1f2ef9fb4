package demosite

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRelatedLinks checks the shapes the related blocks give the site: 3–4
// links on every product page; every redirected product also linked
// directly, a few canonically listed ones also through /p/<id> or
// /go/<id>, some dead links; the truth and the listings untouched.
func TestRelatedLinks(t *testing.T) {
	s := New(Options{})
	in := map[string][]*item{} // link path → the products linking it
	for _, it := range s.items {
		if it.discontinued {
			if len(it.related) != 0 {
				t.Errorf("%s: discontinued, with related links", it.URL)
			}
			continue
		}
		if n := len(it.related); n < 3 || n > 4 {
			t.Errorf("%s: %d related links", it.URL, n)
		}
		for _, l := range it.related {
			if l.target == it {
				t.Errorf("%s links itself", it.URL)
			}
			in[l.path] = append(in[l.path], it)
		}
	}
	sh := s.Shape()
	for _, it := range s.items {
		p, g := shortPath(it.id), goPath(it.id)
		switch {
		case it.discontinued:
			if len(in[p]) != 0 || len(in[g]) != 0 {
				t.Errorf("product %d: discontinued, linked through /p/ or /go/", it.id)
			}
		case it.redirect != redirectNone:
			if len(in[it.URL]) == 0 {
				t.Errorf("product %d: listed through /p/, never linked directly", it.id)
			}
		case linkedViaP(it.id):
			if len(in[p]) != 1 {
				t.Errorf("product %d: linked through /p/ %d times, want 1", it.id, len(in[p]))
			}
		case linkedViaGo(it.id):
			if len(in[g]) != 1 {
				t.Errorf("product %d: linked through /go/ %d times, want 1", it.id, len(in[g]))
			}
		default:
			if len(in[p])+len(in[g]) != 0 {
				t.Errorf("product %d: linked through /p/ or /go/", it.id)
			}
		}
	}
	both := sh.Redirected + sh.ViaP + sh.ViaGo
	if both < 90 || both > 180 || sh.ViaP < 20 || sh.ViaGo < 20 || sh.DeadLinks < 40 {
		t.Errorf("shape %+v: %d products reached two ways", sh, both)
	}
	if len(s.Truth()) != 2919 || s.PerfectCrawl() != 3496 {
		t.Errorf("%d truth products, perfect crawl %d; want 2919 and 3496 (as documented)", len(s.Truth()), s.PerfectCrawl())
	}
	for _, n := range []int{1, 2, 3, 38, 75} { // tiny sites, a discontinued last product
		small := New(Options{Products: n})
		for _, it := range small.items {
			if len(it.related) > 4 || (n > 10 && !it.discontinued && len(it.related) < 3) {
				t.Errorf("Products %d: product %d has %d related links", n, it.id, len(it.related))
			}
		}
	}
}

var relatedHref = regexp.MustCompile(`<li><a href="([^"]+)">`)

// TestRelatedBlock checks a product page's block resolves to the links
// of the model, and that /go/ pages move on to the canonical URL.
func TestRelatedBlock(t *testing.T) {
	s, srv := testServer(t, Options{Products: 400})
	c := rawClient()
	for _, it := range s.items[:120] {
		if it.discontinued || it.failure != failNone {
			continue
		}
		body := string(fetch(t, c, "GET", srv.URL+it.URL, nil).body)
		_, block, ok := strings.Cut(body, `<section class="related">`)
		if !ok {
			t.Fatalf("%s: no related block", it.URL)
		}
		block, _, _ = strings.Cut(block, "</section>")
		hrefs := relatedHref.FindAllStringSubmatch(block, -1)
		if len(hrefs) != len(it.related) {
			t.Fatalf("%s: %d related links, want %d", it.URL, len(hrefs), len(it.related))
		}
		for i, m := range hrefs {
			if got := resolve(t, it.URL, m[1]); got != it.related[i].path {
				t.Errorf("%s: related link %q resolves to %s, want %s", it.URL, m[1], got, it.related[i].path)
			}
		}
	}
	viaGo := firstID(t, s, func(it *item) bool { return linkedViaGo(it.id) && !it.discontinued })
	r := fetch(t, c, "GET", srv.URL+goPath(viaGo.id), nil)
	want := `<meta http-equiv="refresh" content="0; url=../catalogue/` + viaGo.slug + "_" + strconv.Itoa(viaGo.id) + `/">`
	if r.status != 200 || r.header.Get("Content-Type") != ctHTML || !strings.Contains(string(r.body), want) {
		t.Errorf("/go/%d: %d %q\n%s", viaGo.id, r.status, r.header.Get("Content-Type"), r.body)
	}
	if resolve(t, goPath(viaGo.id), "../catalogue/"+viaGo.slug+"_"+strconv.Itoa(viaGo.id)+"/") != viaGo.URL {
		t.Error("the refresh URL does not resolve to the canonical URL")
	}
}
