package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc> https://shop.example/a?x=1&amp;y=2 </loc>
    <lastmod>2024-05-01</lastmod>
    <xhtml:link rel="alternate" hreflang="de" href="https://shop.example/de/a"/>
    <xhtml:link rel="canonical" href="https://shop.example/ignored"/>
  </url>
  <url><loc>https://shop.example/b</loc></url>
  <url><lastmod>2024-01-01</lastmod></url>
</urlset>`

func TestParseURLSet(t *testing.T) {
	kind, entries, err := Parse([]byte(urlset))
	want := []Entry{
		{Loc: "https://shop.example/a?x=1&y=2", Lastmod: "2024-05-01", Alternates: []string{"https://shop.example/de/a"}},
		{Loc: "https://shop.example/b"},
	}
	if err != nil || kind != URLSet || !reflect.DeepEqual(entries, want) {
		t.Fatalf("%v %v %#v", kind, err, entries)
	}
}

func TestParseIndexAndGzip(t *testing.T) {
	index := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://s.example/s1.xml.gz</loc><lastmod>2024-02-03T04:05:06Z</lastmod></sitemap></sitemapindex>`
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(index))
	zw.Close()
	kind, entries, err := Parse(b.Bytes())
	if err != nil || kind != Index || len(entries) != 1 || entries[0].Loc != "https://s.example/s1.xml.gz" || entries[0].Lastmod != "2024-02-03T04:05:06Z" {
		t.Fatalf("%v %v %#v", kind, err, entries)
	}
}

func TestParseOthers(t *testing.T) {
	if kind, _, err := Parse([]byte(`<html><body><a href="https://a.example/">a</a></body></html>`)); kind != None || err != nil {
		t.Fatalf("html: %v %v", kind, err)
	}
	if kind, entries, err := Parse([]byte(`not xml at all <`)); kind != None || len(entries) != 0 || err != nil {
		t.Fatalf("text without URLs: %v %v %v", kind, entries, err)
	}
	if _, _, err := Parse([]byte(`<urlset><url><loc>x</loc></url><`)); err == nil {
		t.Fatal("malformed XML parsed")
	}
	if _, _, err := Parse([]byte{0x1f, 0x8b, 1, 2}); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Fatalf("bad gzip: %v", err)
	}
	// A gzip bomb stops at the limit.
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(bytes.Repeat([]byte(" "), 1<<20))
	zw.Close()
	if _, err := Gunzip(b.Bytes(), 1000); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("bomb: %v", err)
	}
	// Truncated documents keep what was read.
	kind, entries, err := Parse([]byte(urlset[:strings.Index(urlset, "<url><lastmod>")]))
	if kind != URLSet || len(entries) != 2 || err == nil {
		t.Fatalf("truncated: %v %d %v", kind, len(entries), err)
	}
}

// FuzzParse: any bytes give a kind and entries with a loc, never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(urlset))
	f.Add([]byte(`<sitemapindex><sitemap><loc>x</loc></sitemap></sitemapindex>`))
	f.Add([]byte(`<urlset><url><loc>a<!-- c -->b</loc><link rel="alternate" href="h"/></url></urlset>`))
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte(`<?xml version="1.0" encoding="latin1"?><urlset><url><loc>&eacute;</loc></url></urlset>`))
	f.Add([]byte("https://a.example/1\r\nnot a URL\nhttp://a.example/2"))
	f.Add([]byte(`<rss><channel><item><link>https://a.example/1</link><pubDate>x</pubDate></item></channel></rss>`))
	f.Add([]byte(`<feed><entry><link rel="alternate" href="https://a.example/1"/><updated>2024</updated></entry></feed>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		kind, entries, _ := Parse(data)
		if kind == None && len(entries) > 0 {
			t.Fatal("entries without a sitemap")
		}
		for _, e := range entries {
			if e.Loc == "" {
				t.Fatal("entry without loc")
			}
			if kind == Text && (len(e.Alternates) > 0 || e.Lastmod != "" || strings.ContainsAny(e.Loc, "\n") || !isAbsoluteHTTP(e.Loc)) {
				t.Fatalf("text entry %#v", e)
			}
		}
	})
}

// TestGzipInDeclaredEncoding: a gzip-compressed sitemap is as it was served,
// read in the encoding its declaration names; an uncompressed one is
// cfetch's text, UTF-8 whatever its declaration says.
func TestGzipInDeclaredEncoding(t *testing.T) {
	latin1 := "<?xml version='1.0' encoding='ISO-8859-1'?>\n<urlset><url><loc>http://a.test/caf\xe9</loc></url><url><loc>http://a.test/tea</loc></url></urlset>"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(latin1))
	zw.Close()
	kind, entries, err := Parse(gz.Bytes())
	if err != nil || kind != URLSet || len(entries) != 2 || entries[0].Loc != "http://a.test/café" {
		t.Errorf("gzip ISO-8859-1: %v %+v %v, want 2 entries, the first http://a.test/café", kind, entries, err)
	}
	converted := strings.Replace(latin1, "\xe9", "é", 1)
	kind, entries, err = Parse([]byte(converted))
	if err != nil || kind != URLSet || len(entries) != 2 || entries[0].Loc != "http://a.test/café" {
		t.Errorf("UTF-8 text declared ISO-8859-1: %v %+v %v, want 2 entries, the first http://a.test/café", kind, entries, err)
	}
}

// TestParseTextAndFeeds: the other forms sitemaps.org gives a sitemap, which
// Google reads: a text file of URLs, an RSS 2.0 (or 1.0) feed whose items'
// <link>s are the pages, with <pubDate> as their lastmod, and an Atom feed
// whose entries' <link href>s are, with <updated>. They were "not a
// sitemap", so a sitemap.txt or a feed a robots.txt named gave no page.
func TestParseTextAndFeeds(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		kind      Kind
		want      []Entry
	}{
		{"text", "\ufeffhttps://a.example/1\r\n  http://a.example/2?x=1&y=2  \n\n# a comment\nftp://a.example/3\n/relative\nHTTPS://a.example/4", Text,
			[]Entry{{Loc: "https://a.example/1"}, {Loc: "http://a.example/2?x=1&y=2"}, {Loc: "HTTPS://a.example/4"}}},
		{"text without a final newline", "https://a.example/1", Text, []Entry{{Loc: "https://a.example/1"}}},
		{"text of no URL", "User-agent: *\nDisallow: /\n", None, nil},
		{"empty", " \n\t", None, nil},
		// Not a text sitemap: an XML one after a warning its script printed.
		{"XML after junk", "Warning: Undefined variable $x in /var/www/sitemap.php on line 3\n<?xml version=\"1.0\"?>\n<urlset><url><loc>https://a.example/1</loc></url></urlset>", URLSet,
			[]Entry{{Loc: "https://a.example/1"}}},
		{"XML after blank lines and junk", "\n\nDeprecated: x\n  <urlset><url><loc>https://a.example/1</loc></url></urlset>", URLSet, []Entry{{Loc: "https://a.example/1"}}},
		{"rss 2.0", `<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title><link>https://a.example/</link>
<atom:link href="https://a.example/feed" rel="self"/>
<item><title>One</title><link> https://a.example/1 </link><atom:link href="https://a.example/feed" rel="self"/><pubDate>Wed, 01 May 2024 10:00:00 +0200</pubDate></item>
<item><title>No link</title><guid>x</guid></item>
<item><link><![CDATA[https://a.example/2?x=1&y=2]]></link></item>
</channel></rss>`, RSS, []Entry{{Loc: "https://a.example/1", Lastmod: "Wed, 01 May 2024 10:00:00 +0200"}, {Loc: "https://a.example/2?x=1&y=2"}}},
		{"rss 1.0", `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><link>https://a.example/</link></channel><item><link>https://a.example/1</link></item></rdf:RDF>`, RSS,
			[]Entry{{Loc: "https://a.example/1"}}},
		{"atom", `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><link href="https://a.example/"/>
<entry><link rel="edit" href="https://a.example/edit/1"/><link href="https://a.example/1"/><link rel="alternate" href="https://a.example/1b"/><updated>2024-05-01T10:00:00Z</updated></entry>
<entry><link rel="enclosure" href="https://a.example/x.mp3"/></entry>
<entry><link rel="alternate" type="text/html" href="https://a.example/2"/><modified>2004-01-01</modified></entry>
</feed>`, Atom, []Entry{{Loc: "https://a.example/1", Lastmod: "2024-05-01T10:00:00Z"}, {Loc: "https://a.example/2", Lastmod: "2004-01-01"}}},
	} {
		kind, entries, err := Parse([]byte(tt.doc))
		if err != nil || kind != tt.kind || !reflect.DeepEqual(entries, tt.want) {
			t.Errorf("%s: %v %#v %v, want %v %#v", tt.name, kind, entries, err, tt.kind, tt.want)
		}
	}
}
