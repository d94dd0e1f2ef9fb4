package policy

import (
	"bytes"

	"github.com/crawlutils/crawlutils/internal/record"
)

// FromSitemap reports whether req is an entry of a sitemap (its "source"
// is "sitemap:robots", "sitemap:index", "sitemap:url" or
// "sitemap:alternate", as cextract's sitemap rules write it). Such a
// request is held to its own deny_extensions only, never to Scrapy's
// default list (IgnoredExtensions): SitemapSpider requests every URL a
// sitemap lists, its PDFs too, and a sitemap may be an RSS feed
// (sitemap.rss), which that list denies. The rest of the policy applies.
func FromSitemap(req *record.Request) bool {
	return bytes.HasPrefix(bytes.TrimSpace(req.Extra["source"]), []byte(`"sitemap:`))
}

// ExtensionsOf is the set req's own URL is held to: its deny_extensions,
// or, when it has none, DefaultExtensions, or none for a sitemap's entry
// (FromSitemap).
func (r *Rules) ExtensionsOf(req *record.Request) Extensions {
	if r.own == nil && FromSitemap(req) {
		return nil
	}
	return r.Extensions()
}
