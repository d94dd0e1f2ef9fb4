// Package sitemap reads sitemaps (https://www.sitemaps.org/protocol.html):
// a urlset of pages or a sitemapindex of other sitemaps, plain or gzip
// compressed, with xhtml:link alternates; and the Sitemap: lines of a
// robots.txt. It is what Scrapy's SitemapSpider and scrapy.utils.sitemap
// do, for cextract's sitemap rules.
package sitemap

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Kind is the kind of a sitemap document.
type Kind uint8

// Kinds of sitemap documents.
const (
	None   Kind = iota // not a sitemap
	URLSet             // <urlset>: pages
	Index              // <sitemapindex>: other sitemaps
)

func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	}
	return "not a sitemap"
}

// Entry is one <url> of a urlset or <sitemap> of an index.
type Entry struct {
	Loc     string
	Lastmod string
	// Alternates are the hrefs of the entry's <xhtml:link rel="alternate">.
	Alternates []string
}

// MaxSize is the largest sitemap Parse reads, uncompressed (Scrapy's
// SITEMAP_MAX_SIZE: 50 MiB, as the protocol allows).
const MaxSize = 50 << 20

// IsGzip reports whether data starts with the gzip magic bytes.
func IsGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// ErrTooLarge is a sitemap larger than MaxSize once decompressed.
var ErrTooLarge = errors.New("larger than 50 MiB uncompressed")

// Gunzip decompresses data, refusing more than max bytes of output.
func Gunzip(data []byte, max int64) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gzip: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, max+1))
	if err != nil {
		return nil, fmt.Errorf("gzip: %v", err)
	}
	if int64(len(out)) > max {
		return nil, ErrTooLarge
	}
	return out, nil
}

// Parse reads a sitemap document. A document whose root element is neither
// urlset nor sitemapindex gives None and no error. Entries without a <loc>
// are skipped. Namespaces are not checked (many sitemaps get them wrong);
// elements are matched by local name, as Scrapy does.
func Parse(data []byte) (Kind, []Entry, error) {
	if IsGzip(data) {
		var err error
		if data, err = Gunzip(data, MaxSize); err != nil {
			return None, nil, err
		}
	}
	if len(data) > MaxSize {
		return None, nil, ErrTooLarge
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	kind := None
	var entries []Entry
	var cur *Entry
	var field string // "loc" or "lastmod" while inside one
	var text strings.Builder
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if kind == None {
				return None, nil, fmt.Errorf("not XML: %v", err)
			}
			return kind, withLoc(entries), fmt.Errorf("malformed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			name := t.Name.Local
			switch {
			case depth == 1:
				switch name {
				case "urlset":
					kind = URLSet
				case "sitemapindex":
					kind = Index
				default:
					return None, nil, nil
				}
			case depth == 2 && (name == "url" && kind == URLSet || name == "sitemap" && kind == Index):
				entries = append(entries, Entry{})
				cur = &entries[len(entries)-1]
			case depth == 3 && cur != nil && (name == "loc" || name == "lastmod"):
				field = name
				text.Reset()
			case depth == 3 && cur != nil && name == "link":
				var rel, href string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "rel":
						rel = a.Value
					case "href":
						href = a.Value
					}
				}
				if href = strings.TrimSpace(href); href != "" && strings.EqualFold(strings.TrimSpace(rel), "alternate") {
					cur.Alternates = append(cur.Alternates, href)
				}
			}
		case xml.EndElement:
			if depth == 3 && field != "" {
				v := strings.TrimSpace(text.String())
				if field == "loc" {
					cur.Loc = v
				} else {
					cur.Lastmod = v
				}
				field = ""
			}
			if depth == 2 {
				cur = nil
			}
			depth--
		case xml.CharData:
			if field != "" {
				text.Write(t)
			}
		}
	}
	return kind, withLoc(entries), nil
}

// withLoc keeps the entries that have a <loc> (a document cut short ends
// inside its last entry, before or in its <loc>).
func withLoc(entries []Entry) []Entry {
	out := entries[:0]
	for _, e := range entries {
		if e.Loc != "" {
			out = append(out, e)
		}
	}
	return out
}

// Robots returns the URLs of the Sitemap: lines of a robots.txt, in order
// (the field name in any case; comments removed), as Scrapy's
// sitemap_urls_from_robots does.
func Robots(body string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "sitemap") {
			continue
		}
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
