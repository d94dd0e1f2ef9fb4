// Package selector is the selector engine of cextract's rules and -f
// flags, usable from Go on its own: ParseDoc parses a page once (package
// htmlparse) into a Doc, and Compile turns a selector into something that
// runs on it — CSS with parsel's ::text, ::attr(name) and ::html
// pseudo-elements (cascadia matches the tree), XPath 1.0 expressions
// (antchfx/htmlquery on the same tree, so numbers and booleans come back
// too), and @FIELD selectors that read the record the page came from.
//
// For Go code that walks a parsed page itself, Doc.Query gives it as a
// goquery selection. A Doc, and a Selector, is for one goroutine at a
// time; compile a set per goroutine.
package selector

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Doc is one parsed page: the tree CSS and XPath selectors both run on, and
// the URL its relative links are resolved against. The zero value is not
// usable; build one with ParseDoc.
type Doc struct {
	// Root is the document node.
	Root *html.Node
	// URL is the page's URL (nil when the response had none or it did not
	// parse); links resolve against it unless the page has a <base href>.
	URL *url.URL
	// Record is the record the page came from (its response record), read
	// by @FIELD selectors; nil when there is none.
	Record []byte
	// Degraded says the page was nested too deeply for the HTML parser and
	// was parsed again with its deepest elements made siblings (all text,
	// elements and links kept, the nesting flatter).
	Degraded bool

	gq     *goquery.Document
	fields map[string]json.RawMessage   // Record's top-level fields, once read
	lookup func(string) json.RawMessage // or how to look them up (set by the page)
}

// ParseDoc parses an HTML page (UTF-8, as cfetch writes it) found at
// pageURL with htmlparse.Parse: the tree x/net/html builds, fast for
// well-formed pages, and flattened (Degraded) for pages nested deeper than
// it accepts. It never fails.
func ParseDoc(body, pageURL string) *Doc {
	d := &Doc{}
	if pageURL != "" {
		if u, err := url.Parse(pageURL); err == nil && u.IsAbs() {
			d.URL = u
		}
	}
	d.Root, d.Degraded = htmlparse.Parse(body)
	return d
}

// Query returns a goquery selection of the whole page, for Go code that
// works with the parsed page directly. CSS selectors of rules do not use
// it: they match the tree with cascadia (goquery's engine) without
// goquery's intermediate selections.
func (d *Doc) Query() *goquery.Selection {
	if d.gq == nil {
		d.gq = goquery.NewDocumentFromNode(d.Root)
	}
	return d.gq.Selection
}

// Base is the URL relative links resolve against: the first <base href> of
// the page, itself resolved against the page URL, or else the page URL. It is
// nil when neither is an absolute URL.
func (d *Doc) Base() *url.URL {
	for n := d.Root; n != nil; n = htmlparse.NextNode(n, d.Root) {
		if n.Type != html.ElementNode || n.DataAtom != atom.Base || n.Namespace != "" {
			continue
		}
		href, ok := htmlparse.Attr(n, "href")
		if !ok {
			continue
		}
		ref, err := url.Parse(CleanHref(href))
		if err != nil {
			break
		}
		if d.URL != nil {
			ref = d.URL.ResolveReference(ref)
		}
		if ref.IsAbs() && ref.Host != "" {
			return ref
		}
		break
	}
	return d.URL
}

// LookupFieldsWith makes RecordField ask get for the record's top-level
// fields instead of reading Record itself: for a caller that has read the
// record's fields already.
func (d *Doc) LookupFieldsWith(get func(name string) json.RawMessage) { d.lookup = get }

// RecordField returns the top-level field name of d.Record (the last one
// when the record has it twice, as encoding/json reads it), or nil; @FIELD
// selectors read it.
func (d *Doc) RecordField(name string) json.RawMessage {
	if d.lookup != nil {
		return d.lookup(name)
	}
	if d.fields == nil {
		d.fields = map[string]json.RawMessage{}
		fs, _ := record.Fields(d.Record)
		for _, f := range fs {
			d.fields[f.Key] = f.Value
		}
	}
	return d.fields[name]
}

// CleanHref removes what the URL standard strips before parsing: leading
// and trailing C0 controls and spaces, and every tab and line break.
func CleanHref(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return s
}
