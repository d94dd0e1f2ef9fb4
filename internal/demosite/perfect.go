package demosite

import "strings"

// PerfectCrawl returns the number of requests a perfect crawl of the site
// makes in the scope of testdata/rules/demo.yml: from the home page to
// every category, through all its listing pages to every product listed
// (directly or through /p/<id>), and from every product page through its
// related links (canonical URLs, /p/<id> and /go/<id>; the /go/ pages
// themselves are not followed further). A perfect crawler fetches
// robots.txt once, every URL in scope once, a redirect's target only if it
// has not fetched it yet, and retries each one-time failure once. It is
// computed from the catalogue, for any Options.
func (s *Site) PerfectCrawl() int { return s.perfect }

// perfectCrawl walks the site's link graph breadth first as a perfect
// crawler would and counts its requests.
func (s *Site) perfectCrawl() int {
	links := s.scopeLinks()
	seen := map[string]bool{"/": true}
	queue := []string{"/"}
	requests := 1 // robots.txt
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		requests++
		next := links[path]
		if it := s.byPath[path]; it != nil && it.failure != failNone {
			requests++ // the retry
		}
		if strings.HasPrefix(path, "/p/") || strings.HasPrefix(path, "/item/") {
			if to, ok := s.redirectHop(path); ok {
				next = []string{to}
			}
		}
		for _, p := range next {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return requests
}

// scopeLinks returns, for each page whose links the demo rules follow, the
// paths they go on to: the home page's categories, a listing page's other
// pages and products, a product page's related links.
func (s *Site) scopeLinks() map[string][]string {
	links := map[string][]string{}
	for _, c := range s.cats {
		links["/"] = append(links["/"], c.path)
		pages := make([]string, c.pages(s.opts.PerPage))
		for n := range pages {
			pages[n] = c.pagePath(n + 1)
		}
		for n, page := range pages {
			lo := n * s.opts.PerPage
			out := append([]string(nil), pages...)
			for _, it := range c.items[lo:min(lo+s.opts.PerPage, len(c.items))] {
				out = append(out, it.linkPath())
			}
			links[page] = out
		}
	}
	for _, it := range s.items {
		for _, l := range it.related {
			links[it.URL] = append(links[it.URL], l.path)
		}
	}
	return links
}
