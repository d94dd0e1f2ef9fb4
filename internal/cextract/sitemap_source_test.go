package cextract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sitemap an index (or robots.txt) lists was read only when its URL had
// "sitemap" in it: the index of a site whose sitemaps are /products.xml.gz
// and /blog.xml gave their requests, and their responses gave nothing,
// silently. A response requested as a sitemap is read as one, as Scrapy's
// SitemapSpider reads every sitemap an index lists; a rule's own match.url
// still decides for the responses it names.
func TestSitemapListedByAnIndexIsReadWhateverItsName(t *testing.T) {
	t.Parallel()
	urlset := `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://s.test/p/1</loc></url></urlset>`
	asSitemap := map[string]any{"kind": "request", "url": "http://s.test/products.xml", "source": "sitemap:index"}
	asLink := map[string]any{"kind": "request", "url": "http://s.test/products.xml", "source": "a/@href"}
	in := response(t, "http://s.test/products.xml", urlset, asSitemap, map[string]any{"headers": map[string]string{"content-type": "application/xml"}}) + "\n" +
		response(t, "http://s.test/products.xml", urlset, asLink, map[string]any{"headers": map[string]string{"content-type": "application/xml"}}) + "\n"
	dir := t.TempDir()
	writeRules := func(text string) string {
		path := filepath.Join(dir, "rules.yml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	rules := writeRules("sitemaps:\n  - name: s\n")
	out, stderr, code := run(t, in, "-r", rules)
	if code != 0 || strings.Count(out, `"url":"http://s.test/p/1"`) != 1 {
		t.Fatalf("exit %d, out:\n%s\nstderr:\n%s", code, out, stderr)
	}
	// An explicit match.url is the rule's choice.
	rules = writeRules("sitemaps:\n  - name: s\n    match: {url: 'sitemap'}\n")
	if out, stderr, code := run(t, in, "-r", rules); code != 0 || strings.Contains(out, "/p/1") {
		t.Fatalf("with match.url: exit %d, out:\n%s\nstderr:\n%s", code, out, stderr)
	}
}
