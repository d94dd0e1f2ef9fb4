// Package sitemap reads sitemaps (https://www.sitemaps.org/protocol.html):
// a urlset of pages or a sitemapindex of other sitemaps, plain or gzip
// compressed, with xhtml:link alternates; and the Sitemap: lines of a
// robots.txt. It is what Scrapy's SitemapSpider and scrapy.utils.sitemap
// do, for cextract's sitemap rules.
package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/crawlutils/crawlutils/internal/robots"
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
	r, err := GunzipReader(bytes.NewReader(data), max)
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GunzipReader reads data decompressed, failing with ErrTooLarge past max
// bytes of output; its other errors say "gzip:".
func GunzipReader(data io.Reader, max int64) (io.Reader, error) {
	zr, err := gzip.NewReader(data)
	if err != nil {
		return nil, fmt.Errorf("gzip: %v", err)
	}
	return &capped{r: zr, left: max}, nil
}

// capped reads r up to left bytes, then fails with ErrTooLarge if r has
// more; r's own errors are reported as gzip errors.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := io.ReadFull(c.r, one[:]); n > 0 {
			return 0, ErrTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("gzip: %v", err)
	}
	return n, err
}

// Parse reads a sitemap document, as Each, and returns its entries.
func Parse(data []byte) (Kind, []Entry, error) {
	var entries []Entry
	kind, err := Each(string(data), func(_ Kind, e Entry) { entries = append(entries, e) })
	return kind, entries, err
}

// Each reads a sitemap document (gzip-compressed or not) and calls fn with
// the document's kind and each entry that has a <loc>, in order, as it is read: memory does not
// grow with the number of entries. A document whose root element is
// neither urlset nor sitemapindex gives None and no error. Namespaces are
// not checked (many sitemaps get them wrong); elements are matched by local
// name, as Scrapy does. On malformed XML, the entries read before the
// error have been given to fn, and the error says where it stopped.
func Each(data string, fn func(Kind, Entry)) (Kind, error) {
	return EachFrom(strings.NewReader(data), int64(len(data)), fn)
}

// EachFrom is Each for a document of size bytes read from r, so that a
// large sitemap need not be held whole to be read.
func EachFrom(r io.Reader, size int64, fn func(Kind, Entry)) (Kind, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(2); IsGzip(head) {
		zr, err := GunzipReader(br, MaxSize)
		if err != nil {
			return None, err
		}
		return each(DeclaredUTF8(zr), fn)
	}
	if size > MaxSize {
		return None, ErrTooLarge
	}
	return each(br, fn)
}

func each(r io.Reader, fn func(Kind, Entry)) (Kind, error) {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	kind := None
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
			if errors.Is(err, ErrTooLarge) {
				return kind, err
			}
			if kind == None {
				return None, fmt.Errorf("not XML: %v", err)
			}
			return kind, fmt.Errorf("malformed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			name := t.Name.Local
			switch {
			case depth == 1 && kind != None:
				// A second root element: the document ended with the
				// first (whose entries were given), the rest is not read.
				return kind, nil
			case depth == 1:
				switch name {
				case "urlset":
					kind = URLSet
				case "sitemapindex":
					kind = Index
				default:
					return None, nil
				}
			case depth == 2 && (name == "url" && kind == URLSet || name == "sitemap" && kind == Index):
				cur = &Entry{}
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
			if depth == 2 && cur != nil {
				if cur.Loc != "" {
					fn(kind, *cur)
				}
				cur = nil
			}
			depth = max(depth-1, 0)
		case xml.CharData:
			if field != "" {
				text.Write(t)
			}
		}
	}
	return kind, nil
}

// Robots returns the URLs of the Sitemap: lines of a robots.txt, in order
// (the field name in any case; comments removed), as Scrapy's
// sitemap_urls_from_robots does. The lines are read as cfetch reads the
// file (robots.EachLine: a line ends at CR or LF, a byte order mark is
// skipped).
func Robots(body string) []string {
	var out []string
	robots.EachLine([]byte(body), func(key, value string) {
		if key == "sitemap" && value != "" {
			out = append(out, value)
		}
	})
	return out
}
