// Package sitemap reads sitemaps (https://www.sitemaps.org/protocol.html):
// a urlset of pages or a sitemapindex of other sitemaps, plain or gzip
// compressed, with xhtml:link alternates; and the other forms the protocol
// gives (a text file of URLs, an RSS or Atom feed). It is what Scrapy's
// SitemapSpider and scrapy.utils.sitemap do, for cextract's sitemap rules;
// the Sitemap: lines of a robots.txt are read by robots.Sitemaps.
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
)

// Kind is the kind of a sitemap document.
type Kind uint8

// Kinds of sitemap documents: the XML sitemaps, and the other forms the
// protocol accepts (a text file of URLs, an RSS or Atom feed), which Google
// reads and Scrapy's SitemapSpider does not.
const (
	None   Kind = iota // not a sitemap
	URLSet             // <urlset>: pages
	Index              // <sitemapindex>: other sitemaps
	Text               // a text file, one page URL a line
	RSS                // an RSS feed: its items' <link>s are pages
	Atom               // an Atom feed: its entries' <link href>s are pages
)

func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	case Text:
		return "text"
	case RSS:
		return "rss"
	case Atom:
		return "atom"
	}
	return "not a sitemap"
}

// Entry is one <url> of a urlset or <sitemap> of an index, a line of a
// text sitemap, an <item> of RSS or an <entry> of Atom.
type Entry struct {
	Loc string
	// Lastmod is the <lastmod> (RSS: <pubDate>; Atom: <updated>, or
	// Atom 0.3's <modified>), as written.
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
// the document's kind and each entry that has a <loc>, in order, as it is
// read: memory does not grow with the number of entries. A document whose
// root element is none of urlset, sitemapindex, rss (or RSS 1.0's rdf:RDF)
// and feed gives None and no error. Namespaces are not checked (many
// sitemaps get them wrong); elements are matched by local name, as Scrapy
// does. On malformed XML, the entries read before the error have been
// given to fn, and the error says where it stopped.
//
// A document that does not start with '<' (white space and a byte order
// mark aside) is a text sitemap (sitemaps.org: one URL a line, each
// fully specified): each line that starts with http:// or https:// is an
// entry, other lines are skipped; with none, it is None. A line that
// starts with '<' before any URL line starts an XML document after junk
// (a warning its script printed first), read as XML from there.
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
		return eachDocument(bufio.NewReader(DeclaredUTF8(zr)), fn)
	}
	if size > MaxSize {
		return None, ErrTooLarge
	}
	return eachDocument(br, fn)
}

// eachDocument reads br as XML, or as a text sitemap when its first
// character (after white space and a byte order mark) is not '<'.
func eachDocument(br *bufio.Reader, fn func(Kind, Entry)) (Kind, error) {
	for {
		c, _, err := br.ReadRune()
		if err != nil {
			if err == io.EOF {
				return None, nil
			}
			return None, err
		}
		if !strings.ContainsRune(" \t\r\n\ufeff", c) {
			br.UnreadRune()
			if c != '<' {
				return eachLine(br, fn)
			}
			return each(br, fn)
		}
	}
}

// eachLine reads a text sitemap: each line that is a fully specified
// http or https URL is an entry. A line that starts with '<' before any
// URL starts an XML sitemap after junk (a PHP warning printed before the
// document), read as XML from there.
func eachLine(br *bufio.Reader, fn func(Kind, Entry)) (Kind, error) {
	kind := None
	for {
		line, err := br.ReadString('\n')
		if kind == None && strings.HasPrefix(strings.TrimSpace(line), "<") {
			return each(io.MultiReader(strings.NewReader(line), br), fn)
		}
		if loc := strings.TrimSpace(line); isAbsoluteHTTP(loc) {
			kind = Text
			fn(kind, Entry{Loc: loc})
		}
		if err == io.EOF {
			return kind, nil
		}
		if err != nil {
			return kind, err
		}
	}
}

// isAbsoluteHTTP reports whether s starts with http:// or https://, in
// any case.
func isAbsoluteHTTP(s string) bool {
	for _, p := range []string{"http://", "https://"} {
		if len(s) > len(p) && strings.EqualFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}

// entryName is the element of a document of kind that is one entry.
func entryName(kind Kind) string {
	switch kind {
	case URLSet:
		return "url"
	case Index:
		return "sitemap"
	case RSS:
		return "item"
	case Atom:
		return "entry"
	}
	return ""
}

// lastmodName reports whether name is the element of an entry of kind
// that says when its page last changed.
func lastmodName(kind Kind, name string) bool {
	switch kind {
	case RSS:
		return name == "pubDate"
	case Atom:
		return name == "updated" || name == "modified"
	}
	return name == "lastmod"
}

func each(r io.Reader, fn func(Kind, Entry)) (Kind, error) {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	kind := None
	var cur *Entry
	entryDepth := 0  // the depth of cur's element
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
				case "rss", "RDF": // RSS 2.0; RSS 1.0's rdf:RDF
					kind = RSS
				case "feed":
					kind = Atom
				default:
					return None, nil
				}
			case cur == nil && name == entryName(kind) && (depth == 2 || kind == RSS && depth == 3):
				// RSS 2.0's items are in its <channel>, RSS 1.0's beside it.
				cur, entryDepth = &Entry{}, depth
			case cur == nil || depth != entryDepth+1:
			case name == "loc" && (kind == URLSet || kind == Index), name == "link" && kind == RSS:
				field = "loc"
				text.Reset()
			case lastmodName(kind, name):
				field = "lastmod"
				text.Reset()
			case name == "link" && (kind == URLSet || kind == Atom):
				var rel, href string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "rel":
						rel = a.Value
					case "href":
						href = a.Value
					}
				}
				rel = strings.TrimSpace(rel)
				href = strings.TrimSpace(href)
				switch {
				case href == "" || !strings.EqualFold(rel, "alternate") && (kind == URLSet || rel != ""):
				case kind == URLSet:
					cur.Alternates = append(cur.Alternates, href)
				case cur.Loc == "":
					// Atom: the entry's page is its first link with no
					// rel or rel="alternate".
					cur.Loc = href
				}
			}
		case xml.EndElement:
			if depth == entryDepth+1 && field != "" {
				v := strings.TrimSpace(text.String())
				switch {
				case field == "lastmod":
					cur.Lastmod = v
				case kind == RSS:
					// The first <link> with a URL (an <atom:link/> is
					// empty).
					if cur.Loc == "" {
						cur.Loc = v
					}
				default:
					cur.Loc = v
				}
				field = ""
			}
			if depth == entryDepth && cur != nil {
				if cur.Loc != "" {
					fn(kind, *cur)
				}
				cur, entryDepth = nil, 0
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
