package demosite

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ServeHTTP serves the site. Requests under /__demosite/ control the site
// and are not counted (see Stats). Every other request is delayed by
// Options.Latency (abandoned if the request's context ends first), routed,
// and counted (see exchange).
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if strings.HasPrefix(path, controlPrefix) {
		s.serveControl(w, r, path)
		return
	}
	x := &exchange{ResponseWriter: w, site: s, method: r.Method, path: path, arrived: s.now()}
	defer x.count()
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !(r.Method == http.MethodPost && isBedPath(path)) {
		w.Header().Set("Allow", "GET, HEAD")
		send(x, r, htmlResponse(http.StatusMethodNotAllowed, renderError(http.StatusMethodNotAllowed, "Only GET and HEAD are supported.")))
		return
	}
	if d := s.opts.Latency; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	s.route(x, withRound(r, s.Round()), path)
}

// route answers a request; x records the exchange for the counters.
func (s *Site) route(x *exchange, r *http.Request, path string) {
	w := http.ResponseWriter(x)
	switch {
	case path == "/":
		send(w, r, s.cache.get(path, func() *response { return htmlResponse(http.StatusOK, s.renderHome()) }))
	case path == "/about.html":
		send(w, r, s.cache.get(path, func() *response { return htmlResponse(http.StatusOK, s.renderAbout()) }))
	case path == "/robots.txt":
		send(w, r, &response{status: http.StatusOK, ctype: ctText, body: []byte(s.robots(baseURL(r)))})
	case path == "/sitemap.xml" || strings.HasPrefix(path, "/sitemap-"):
		s.serveSitemap(w, r, path)
	case strings.HasPrefix(path, "/category/"):
		s.serveCategory(w, r, path)
	case strings.HasPrefix(path, "/catalogue/"):
		s.serveProduct(x, r, path, false)
	case strings.HasPrefix(path, "/p/"), strings.HasPrefix(path, "/item/"):
		s.serveRedirect(w, r, path)
	case strings.HasPrefix(path, "/go/"):
		s.serveGo(w, r, path)
	case strings.HasPrefix(path, "/media/"):
		s.serveMedia(w, r, path)
	case strings.HasPrefix(path, "/calendar/"):
		s.serveCalendar(w, r, path)
	case isBedPath(path):
		s.serveBed(w, r, path)
	case path == "/private":
		redirect(w, "/private/")
	case strings.HasPrefix(path, "/private/"):
		s.servePrivate(x, r, path)
	case path == "/js" || strings.HasPrefix(path, "/js/"):
		s.serveJS(w, r, path)
	default:
		notFound(w, r)
	}
}

func htmlResponse(status int, body string) *response {
	return &response{status: status, ctype: ctHTML, body: []byte(body)}
}

var notFoundResponse = sync.OnceValue(func() *response {
	return htmlResponse(http.StatusNotFound, renderError(http.StatusNotFound, "The page you requested does not exist."))
})

var discontinuedResponse = sync.OnceValue(func() *response {
	return htmlResponse(http.StatusNotFound, renderError(http.StatusNotFound, "This product has been discontinued."))
})

func notFound(w http.ResponseWriter, r *http.Request) { send(w, r, notFoundResponse()) }

// redirect answers 301 with a path-absolute Location and an empty body.
func redirect(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusMovedPermanently)
}

// parseID parses a positive decimal id without sign or leading zeros.
func parseID(s string) (int, bool) {
	if s == "" || s[0] == '0' || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// parsePageFile parses "page-N.html" with 2 ≤ N ≤ pages.
func parsePageFile(name string, pages int) (int, bool) {
	digits, ok := strings.CutPrefix(name, "page-")
	if !ok {
		return 0, false
	}
	if digits, ok = strings.CutSuffix(digits, ".html"); !ok {
		return 0, false
	}
	n, ok := parseID(digits)
	if !ok || n < 2 || n > pages {
		return 0, false
	}
	return n, true
}

func (s *Site) serveCategory(w http.ResponseWriter, r *http.Request, path string) {
	rest := path[len("/category/"):]
	slug, file, slash := strings.Cut(rest, "/")
	c := s.catBy[slug]
	switch {
	case c == nil:
		notFound(w, r)
		return
	case !slash:
		redirect(w, c.path)
		return
	}
	pages := c.pages(s.opts.PerPage)
	n := 1
	if file != "" {
		var ok bool
		if n, ok = parsePageFile(file, pages); !ok {
			notFound(w, r)
			return
		}
	}
	send(w, r, s.cache.get(path, func() *response {
		l := listing{
			selfPath: path,
			heading:  c.name,
			items:    c.items,
			page:     n,
			pages:    pages,
			perPage:  s.opts.PerPage,
			pagePath: c.pagePath,
			linkOf:   (*item).linkPath,
		}
		if c.base {
			l.baseHref = "/catalogue/"
		}
		return htmlResponse(http.StatusOK, s.renderListing(l))
	}))
}

// serveProduct serves public (/catalogue/) and private
// (/private/catalogue/) product pages.
func (s *Site) serveProduct(x *exchange, r *http.Request, path string, private bool) {
	w := http.ResponseWriter(x)
	it := s.byPath[path]
	if it == nil || it.private != private {
		if it = s.byPath[path+"/"]; it != nil && it.private == private {
			redirect(w, it.URL)
			return
		}
		notFound(w, r)
		return
	}
	if it.discontinued || absentIn(it.id, roundOf(r)) {
		send(w, r, discontinuedResponse())
		return
	}
	if it.failure != failNone && s.failOnce(it.id) {
		x.failed = true
		s.serveFailure(w, r, it.failure)
		return
	}
	send(w, r, s.cache.get(path, func() *response {
		return &response{
			status:       http.StatusOK,
			ctype:        it.charset.contentType(),
			body:         encodePage(it.charset, []byte(s.renderProduct(it))),
			validator:    validatorOf(it.id),
			lastModified: roundEpoch.AddDate(0, 0, lastPriceChange(it.id, s.Round())-1),
		}
	}))
}

// serveRedirect answers /p/<id> and /item/<id> (see redirectHop).
func (s *Site) serveRedirect(w http.ResponseWriter, r *http.Request, path string) {
	if to, ok := s.redirectHop(path); ok {
		redirect(w, to)
		return
	}
	notFound(w, r)
}

// redirectHop returns where /p/<id> or /item/<id> redirects: /p/<id> to
// /item/<id> for two-hop products and to the canonical URL otherwise,
// /item/<id> to the canonical URL. It reports false for unknown and
// discontinued ids.
func (s *Site) redirectHop(path string) (string, bool) {
	prefix, digits, _ := strings.Cut(path[1:], "/")
	id, ok := parseID(digits)
	if !ok || id > len(s.items) || s.items[id-1].discontinued {
		return "", false
	}
	it := s.items[id-1]
	if prefix == "p" && it.redirect == redirectTwoHop {
		return "/item/" + digits, true
	}
	return it.URL, true
}

func (s *Site) serveMedia(w http.ResponseWriter, r *http.Request, path string) {
	digits, ok := strings.CutSuffix(path[len("/media/"):], ".jpg")
	id, valid := parseID(digits)
	if !ok || !valid || (id > len(s.items) && (id <= privateIDBase || id > privateIDBase+privateProducts)) {
		notFound(w, r)
		return
	}
	send(w, r, s.cache.get(path, func() *response {
		return &response{status: http.StatusOK, ctype: ctImage, body: fakeJPEG(s.opts.Seed, id)}
	}))
}

func (s *Site) serveCalendar(w http.ResponseWriter, r *http.Request, path string) {
	// /calendar/YYYY/MM/
	rest := path[len("/calendar/"):]
	if len(rest) != 8 || rest[4] != '/' || rest[7] != '/' {
		notFound(w, r)
		return
	}
	year, err1 := strconv.Atoi(rest[:4])
	month, err2 := strconv.Atoi(rest[5:7])
	if err1 != nil || err2 != nil || rest[0] == '+' || rest[0] == '-' || rest[5] == '+' || rest[5] == '-' ||
		year < 1 || month < 1 || month > 12 {
		notFound(w, r)
		return
	}
	send(w, r, htmlResponse(http.StatusOK, s.renderCalendar(year, time.Month(month))))
}

func (s *Site) servePrivate(x *exchange, r *http.Request, path string) {
	w := http.ResponseWriter(x)
	if strings.HasPrefix(path, "/private/catalogue/") {
		s.serveProduct(x, r, path, true)
		return
	}
	pages := s.privatePages()
	n := 1
	if file := path[len("/private/"):]; file != "" {
		var ok bool
		if n, ok = parsePageFile(file, pages); !ok {
			notFound(w, r)
			return
		}
	}
	send(w, r, s.cache.get(path, func() *response {
		return htmlResponse(http.StatusOK, s.renderListing(listing{
			selfPath: path,
			heading:  "Staff preview: unreleased products",
			items:    s.private,
			page:     n,
			pages:    pages,
			perPage:  privatePerPage,
			pagePath: privatePagePath,
			noindex:  true,
			linkOf:   func(it *item) string { return it.URL },
		}))
	}))
}

func privatePagePath(n int) string {
	if n == 1 {
		return "/private/"
	}
	return "/private/page-" + strconv.Itoa(n) + ".html"
}

// fakeJPEG returns deterministic bytes that look like a small JPEG: the
// SOI marker and a JFIF APP0 segment, pseudo-random filler, the EOI marker.
func fakeJPEG(seed int64, id int) []byte {
	r := newRNG(seed, uint64(streamMedia)<<32|uint64(id))
	n := 512 + r.intn(1024)
	b := make([]byte, 0, n+24)
	b = append(b, 0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00)
	for range n {
		b = append(b, byte(r.uint64()))
	}
	return append(b, 0xFF, 0xD9)
}
