package cextract

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"strings"
	"testing"
)

type feedFixture struct {
	url, ctype, body, base64 string
}

// feedFixtures are the responses of feeds.jsonl (see TestStoredFeedResponses).
func feedFixtures() []feedFixture {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url><loc>http://feeds.test/p/1</loc><lastmod>2024-03-01</lastmod>
    <xhtml:link rel="alternate" hreflang="de" href="http://feeds.test/de/p/1"/></url>
  <url><loc>http://feeds.test/p/2</loc><lastmod>2023-06-01</lastmod></url>
  <url><loc>http://feeds.test/p/3</loc></url>
  <url><loc>http://elsewhere.test/p/4</loc></url>
</urlset>`))
	zw.Close()
	return []feedFixture{
		{url: "http://feeds.test/robots.txt", ctype: "text/plain", body: "User-agent: *\nDisallow: /admin/\nSitemap: http://feeds.test/sitemap-index.xml\nSitemap: /sitemap-products.xml.gz\n"},
		{url: "http://feeds.test/sitemap-index.xml", ctype: "application/xml", body: `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>http://feeds.test/sitemap-products.xml.gz</loc></sitemap>
  <sitemap><loc>http://feeds.test/sitemap-blog.xml</loc></sitemap>
</sitemapindex>`},
		{url: "http://feeds.test/sitemap-products.xml.gz", ctype: "application/x-gzip", base64: base64.StdEncoding.EncodeToString(gz.Bytes())},
		{url: "http://feeds.test/products.rss", ctype: "application/rss+xml; charset=utf-8", body: `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">
<channel><title>Shop feed</title><link>http://feeds.test/</link>
<item><title>Blue Widget &amp; Co</title><link>http://feeds.test/p/1</link><g:price>1.299,00 EUR</g:price>
  <pubDate>Wed, 01 May 2024 10:00:00 +0200</pubDate><category>tools</category><category>blue</category>
  <description><![CDATA[<p>Bold <b>and</b> blue</p>]]></description></item>
<item><title>Red Gadget</title><link>http://feeds.test/p/2</link><g:price>19,90 EUR</g:price>
  <pubDate>Thu, 02 May 2024 08:30:00 GMT</pubDate></item>
<item><title>  </title><link>http://feeds.test/p/3</link></item>
</channel></rss>`},
		{url: "http://feeds.test/news.atom", ctype: "application/atom+xml", body: `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>News</title>
<entry><title>Launch</title><link href="http://feeds.test/news/1"/><updated>2024-05-01T10:00:00Z</updated></entry>
<entry><title>Update</title><link href="/news/2"/><updated>2024-05-08</updated></entry>
</feed>`},
		{url: "http://feeds.test/stock.csv", ctype: "text/csv", body: "sku;name;qty;price\r\nA-1;'Widget; blue';12;1.299,50\r\nB-2;'It''s red';0;19,90\r\nbroken;row\r\nC-3;Plain;7;5\r\n"},
		{url: "http://feeds.test/api/products?page=1", ctype: "application/json", body: `{"items": [
  {"id": 12345678901234567890, "name": "Widget", "price": 19.90, "tags": ["a", "b"], "dimensions": {"w": 1.50, "h": 2}, "stock": 3},
  {"id": 2, "name": "Gadget", "price": 5, "tags": [], "dimensions": null, "stock": 0}
], "next": "/api/products?page=2"}`},
		{url: "http://feeds.test/api/products?page=2", ctype: "application/json", body: `{"items": [{"id": 3, "name": "Gizmo", "price": 1e2, "tags": ["c"], "stock": 1}], "next": null}`},
		{url: "http://feeds.test/api/broken", ctype: "application/json", body: `{"items": [1, 2`},
		{url: "http://feeds.test/links.html", ctype: "text/html", body: `<html><head><title>Links</title></head><body>
<div class="nav"><a href="/a">a</a> <a href="/b?y=2&amp;x=1">b</a> <a href="/b?x=1&y=2#top">b again</a></div>
<div class="content"><a href="/doc.pdf">pdf</a> <a href="http://elsewhere.test/x">off site</a>
<a href="/c" rel="nofollow">c</a> <a href="/images/x.JPG">image</a> <a href="javascript:go('/d')">d</a></div>
</body></html>`},
	}
}

// TestFeedsGiveItemsAndRequests checks a few things of the feeds golden
// file that a diff would not explain.
func TestFeedsGiveItemsAndRequests(t *testing.T) {
	out, stderr, code := runFiles(t, "-r", "../../testdata/rules/feeds.yml", feedResponsesFile)
	if code != 3 {
		t.Fatalf("exit %d (want 3 for the broken JSON): %s", code, stderr)
	}
	for _, want := range []string{
		`"type":"rss_product","data":{"title":"Blue Widget & Co","link":"http://feeds.test/p/1","price":1299.00,"published":"2024-05-01T10:00:00+02:00","tags":["tools","blue"]}`,
		`"type":"atom_entry","data":{"title":"Update","link":"http://feeds.test/news/2","updated":"2024-05-08T00:00:00Z"}`,
		`"type":"stock","data":{"sku":"A-1","name":"Widget; blue","qty":12,"price":1299.50}`,
		`"data":{"id":12345678901234567890,"name":"Widget","price":19.90,"tags":["a","b"],"dimensions":{"h":2,"w":1.50},"in_stock":true}`,
		`{"kind":"request","url":"http://feeds.test/api/products?page=2","priority":-10,"depth":2,"referer":"http://feeds.test/api/products?page=1"`,
		`{"kind":"request","url":"http://feeds.test/de/p/1"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s", want)
		}
	}
	for _, no := range []string{`"url":"http://feeds.test/p/2"`, `elsewhere.test`, `doc.pdf`, `x.JPG`} {
		if strings.Contains(out, no) {
			t.Errorf("output has %s", no)
		}
	}
	for _, want := range []string{
		`feeds.jsonl:9: item rule "api_product" (../../testdata/rules/feeds.yml:44): each: not JSON: unexpected EOF`, `item rule "rss_product" (../../testdata/rules/feeds.yml:10): 1 item(s) not written: required field "title" had no value`,
		`dropped (extension 2, missing_field 1, offsite 2)`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
