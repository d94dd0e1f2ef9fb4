package demosite

import (
	"net/http"
	"strconv"
	"strings"
)

// Links between products: every public product page ends with a "You may
// also like" block of links to other products. Most are filler links to
// canonical URLs; the others, the special links, give some pages a second
// way in (see the package documentation).

// relatedLink is one link of a product page's "You may also like" block.
type relatedLink struct {
	path   string // the link resolved: a canonical URL, /p/<id> or /go/<id>
	target *item
}

// Link classes, by the id of the product linked to.
func linkedViaP(id int) bool  { return id%100 == 61 }
func linkedViaGo(id int) bool { return id%100 == 73 }

func shortPath(id int) string { return "/p/" + strconv.Itoa(id) }
func goPath(id int) string    { return "/go/" + strconv.Itoa(id) }

// specialLink returns the special link to it, if it has one: the canonical
// URL of a redirected product (listings link it through /p/<id>), /p/<id>
// or /go/<id> of a few canonically listed ones, and the dead canonical URL
// of a discontinued one.
func specialLink(it *item) (string, bool) {
	switch {
	case it.discontinued, it.redirect != redirectNone:
		return it.URL, true
	case linkedViaP(it.id):
		return shortPath(it.id), true
	case linkedViaGo(it.id):
		return goPath(it.id), true
	}
	return "", false
}

// linkerOf returns the product whose related block carries the special
// link to product id of a site of n products: the next product, or the
// previous one when the next is discontinued or missing; 0 when there is
// neither.
func linkerOf(id, n int) int {
	switch {
	case id+1 <= n && !isDiscontinued(id+1):
		return id + 1
	case id-1 >= 1 && !isDiscontinued(id-1):
		return id - 1
	}
	return 0
}

// buildRelated fills the related blocks of the public products (items is
// indexed by id-1): the special links their neighbours need, then filler
// links to random other products up to 3 or 4 links in all.
func buildRelated(seed int64, items []*item) {
	n := len(items)
	for _, t := range items {
		if path, ok := specialLink(t); ok {
			if l := linkerOf(t.id, n); l != 0 {
				items[l-1].related = append(items[l-1].related, relatedLink{path, t})
			}
		}
	}
	for _, it := range items {
		if it.discontinued {
			continue
		}
		r := newRNG(seed, uint64(streamRelated)<<32|uint64(it.id))
		want := 3 + r.intn(2)
		var fillers []relatedLink
		for tries := 0; len(fillers)+len(it.related) < want && tries < 16; tries++ {
			t := items[r.intn(n)]
			if t != it && !t.discontinued && !linksTo(fillers, t) && !linksTo(it.related, t) {
				fillers = append(fillers, relatedLink{t.URL, t})
			}
		}
		it.related = append(fillers, it.related...)
	}
}

func linksTo(links []relatedLink, t *item) bool {
	for _, l := range links {
		if l.target == t {
			return true
		}
	}
	return false
}

// relatedBlock writes a product page's "You may also like" block.
func (p *page) relatedBlock(links []relatedLink) {
	if len(links) == 0 {
		return
	}
	p.w("<section class=\"related\">\n<h2>You may also like</h2>\n<ul>\n")
	for _, l := range links {
		p.w(`<li><a href="`, p.link(l.path), `">`, esc(l.target.Title), "</a></li>\n")
	}
	p.w("</ul>\n</section>\n")
}

// serveGo answers /go/<id> with a small page that moves on to the
// product's canonical URL by <meta http-equiv="refresh">.
func (s *Site) serveGo(w http.ResponseWriter, r *http.Request, path string) {
	id, ok := parseID(strings.TrimPrefix(path, "/go/"))
	if !ok || id > len(s.items) || s.items[id-1].discontinued {
		notFound(w, r)
		return
	}
	it := s.items[id-1]
	send(w, r, s.cache.get(path, func() *response { return htmlResponse(http.StatusOK, renderGo(it)) }))
}

func renderGo(it *item) string {
	target := rel("/go/", it.URL)
	return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta http-equiv=\"refresh\" content=\"0; url=" + target + "\">\n" +
		"<title>" + esc(it.Title) + " | " + siteName + "</title>\n</head>\n<body>\n" +
		"<p>This product has moved to <a href=\"" + target + "\">" + esc(it.Title) + "</a>.</p>\n</body>\n</html>\n"
}
