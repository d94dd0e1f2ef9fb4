package cextract

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// bigSitemap writes a urlset of n pages, about 100 bytes each (480,000 of
// them make a 48 MB sitemap, near the protocol's limit), as a generator
// would: one <url> per line, a lastmod on each.
func bigSitemap(w io.Writer, n int) {
	bw := bufio.NewWriter(w)
	bw.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for i := range n {
		fmt.Fprintf(bw, "<url><loc>https://shop.example/catalogue/product-%07d_%d/</loc><lastmod>2024-%02d-%02d</lastmod></url>\n",
			i, i%997, 1+i%12, 1+i%28)
	}
	bw.WriteString("</urlset>\n")
	bw.Flush()
}

// bigSitemapLine is the cfetch response line (with its newline) of a
// sitemap of n pages: as text at sitemap-products.xml, or gzip-compressed
// (body_base64) at sitemap-products.xml.gz.
func bigSitemapLine(n int, gz bool) []byte {
	var xml bytes.Buffer
	bigSitemap(&xml, n)
	url := "https://shop.example/sitemap-products.xml"
	body := []byte(`,"headers":{"content-type":"application/xml"},"body":`)
	if gz {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(xml.Bytes())
		zw.Close()
		url += ".gz"
		body = []byte(`,"headers":{"content-type":"application/x-gzip"},"body_base64":"`)
		body = base64.StdEncoding.AppendEncode(body, z.Bytes())
		body = append(body, '"')
	} else {
		body = record.AppendString(body, xml.Bytes())
	}
	line := []byte(`{"kind":"response","url":"` + url + `","request":{"kind":"request","url":"` + url +
		`","depth":1,"crawlid":"c1","lease":"L1"},"status":200`)
	line = append(line, body...)
	line = append(line, `,"size":`+strconv.Itoa(xml.Len())+`,"fetched_at":"2024-05-01T10:00:00Z"}`+"\n"...)
	return line
}

// TestWriteBigSitemap writes the response lines of a 480,000-page sitemap
// (48 MB) and of its gzip-compressed variant to the directory named by
// CEXTRACT_BIG_SITEMAP, with a rules file that follows them, to measure
// the built cextract on:
//
//	CEXTRACT_BIG_SITEMAP=/tmp/big go test ./internal/cextract -run TestWriteBigSitemap
//	/usr/bin/time -f '%M KB %e s' cextract -q -r /tmp/big/rules.yml /tmp/big/sitemap.jsonl >/dev/null
func TestWriteBigSitemap(t *testing.T) {
	dir := os.Getenv("CEXTRACT_BIG_SITEMAP")
	if dir == "" {
		t.Skip("set CEXTRACT_BIG_SITEMAP to a directory to write the files to")
	}
	const n = 480_000
	files := map[string][]byte{
		"sitemap.jsonl":    bigSitemapLine(n, false),
		"sitemap-gz.jsonl": bigSitemapLine(n, true),
		"rules.yml":        []byte("version: 1\nsitemaps:\n  - name: shop\n    allow: '/catalogue/'\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
