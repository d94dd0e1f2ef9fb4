package demosite

import (
	"html"
	"net/http"
	"strconv"
	"strings"
)

// sitemapChunk is the maximum number of URLs per product sitemap.
const sitemapChunk = 1000

// baseURL is the scheme and host the request was addressed to, e.g.
// "http://127.0.0.1:8080"; robots.txt and sitemaps use it to build
// absolute URLs.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// robots returns the robots.txt body.
func (s *Site) robots(base string) string {
	return "# robots.txt for " + siteName + "\n" +
		"User-agent: *\n" +
		"Disallow: /private/\n" +
		"\n" +
		"Sitemap: " + base + "/sitemap.xml\n"
}

// sitemapProducts are the products listed in the product sitemaps: every
// truth product, in id order.
func (s *Site) sitemapProducts() []*item {
	out := make([]*item, 0, len(s.truth))
	for _, it := range s.items {
		if !it.discontinued {
			out = append(out, it)
		}
	}
	return out
}

func (s *Site) sitemapFiles() int {
	return max(1, (len(s.truth)+sitemapChunk-1)/sitemapChunk)
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

func (s *Site) serveSitemap(w http.ResponseWriter, r *http.Request, path string) {
	base := baseURL(r)
	var b strings.Builder
	b.WriteString(xmlHeader)
	switch {
	case path == "/sitemap.xml":
		b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		b.WriteString("  <sitemap>\n    <loc>" + html.EscapeString(base) + "/sitemap-categories.xml</loc>\n  </sitemap>\n")
		for n := 1; n <= s.sitemapFiles(); n++ {
			b.WriteString("  <sitemap>\n    <loc>" + html.EscapeString(base) + "/sitemap-products-" + strconv.Itoa(n) + ".xml</loc>\n  </sitemap>\n")
		}
		b.WriteString("</sitemapindex>\n")
	case path == "/sitemap-categories.xml":
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for _, c := range s.cats {
			b.WriteString("  <url>\n    <loc>" + html.EscapeString(base+c.path) + "</loc>\n  </url>\n")
		}
		b.WriteString("</urlset>\n")
	default:
		digits, ok := strings.CutPrefix(path, "/sitemap-products-")
		if ok {
			digits, ok = strings.CutSuffix(digits, ".xml")
		}
		n, valid := parseID(digits)
		if !ok || !valid || n > s.sitemapFiles() {
			notFound(w, r)
			return
		}
		products := s.sitemapProducts()
		lo := (n - 1) * sitemapChunk
		hi := min(lo+sitemapChunk, len(products))
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		for _, it := range products[lo:hi] {
			b.WriteString("  <url>\n    <loc>" + html.EscapeString(base+it.URL) + "</loc>\n    <lastmod>" + it.lastmod + "</lastmod>\n  </url>\n")
		}
		b.WriteString("</urlset>\n")
	}
	send(w, r, &response{status: http.StatusOK, ctype: ctXML, body: []byte(b.String())})
}
