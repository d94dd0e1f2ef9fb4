// Package cextract is the cextract command: it reads response records (from
// cfetch) and writes, for each, the items and follow-up requests its rules
// give, then the ack of its lease, passing every other record through
// unchanged. It is Scrapy's spiders, selectors, link extractors, item
// loaders and sitemap/feed spiders, driven by a rules file (package rules,
// docs/rules.md) and/or -f/--links flags.
//
// The pieces, in the order a response meets them:
//
//   - records (record.ParseFields) and decodeFast read a response line in
//     one pass (encoding/json decides whenever the line is not a plain
//     response); a large body is left in the line, and a gzip-compressed
//     one compressed, until a rule needs it whole (body): a sitemap rule
//     reads it as a stream;
//   - a page is parsed at most once per representation, when a rule first
//     needs it: HTML into a *Doc (package htmlparse: a fast builder for the
//     well-formed pages most sites serve, x/net/html for the rest, the
//     same tree either way),
//     XML with xmlquery, JSON with numbers kept exact, CSV rows;
//   - an engine (compiled from the rules file: selectors, jq programs and
//     regular expressions compiled once) runs its item rules (itemWriter),
//     link rules (LinkExtractor) and sitemap rules, then applies the
//     request's crawl policy (maxdepth, allowed_domains, …) to the
//     follow-ups.
//
// The selector engine is usable on its own: ParseDoc, Compile (CSS with
// Scrapy's pseudo-elements, XPath 1.0, @record fields), ItemRule and
// LinkExtractor. None of these types is safe for concurrent use unless its
// comment says so; compile one set per goroutine. One record is handled at
// a time, so memory is bounded by the largest response, not the stream.
package cextract

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/crawlutils/crawlutils/internal/htmlparse"
	"github.com/crawlutils/crawlutils/internal/record"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
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
	for n := d.Root; n != nil; n = nextNode(n, d.Root) {
		if n.Type != html.ElementNode || n.DataAtom != atom.Base || n.Namespace != "" {
			continue
		}
		href, ok := attr(n, "href")
		if !ok {
			continue
		}
		ref, err := url.Parse(cleanHref(href))
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

// recordField returns the top-level field name of d.Record, or nil.
func (d *Doc) recordField(name string) json.RawMessage {
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

// nextNode returns the node after n in document order (preorder) within the
// subtree of root, or nil at its end. Walking this way needs no recursion, so
// no page can exhaust the stack.
func nextNode(n, root *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	for n != root {
		if n.NextSibling != nil {
			return n.NextSibling
		}
		n = n.Parent
		if n == nil {
			return nil
		}
	}
	return nil
}

// textContent is the text of n and its descendants joined, as the DOM's
// textContent and XPath's string() give it (comments excluded).
func textContent(n *html.Node) string {
	switch n.Type {
	case html.TextNode, html.CommentNode:
		return n.Data
	}
	// Most elements hold one text node: avoid the builder then.
	if c := n.FirstChild; c != nil && c == n.LastChild && c.Type == html.TextNode {
		return c.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = nextNode(c, n) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// outerHTML renders n and its subtree.
func outerHTML(n *html.Node) string {
	var b strings.Builder
	_ = html.Render(&b, n) // writes to a strings.Builder cannot fail
	return b.String()
}

// attr returns the value of n's attribute name ("href", or "xlink:href" for a
// namespaced one), matched without regard to case.
func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" {
			if strings.EqualFold(a.Key, name) {
				return a.Val, true
			}
			continue
		}
		if len(name) == len(a.Namespace)+1+len(a.Key) && strings.EqualFold(name, a.Namespace+":"+a.Key) {
			return a.Val, true
		}
	}
	return "", false
}
