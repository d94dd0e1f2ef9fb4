package htmlparse

import (
	"strings"

	"golang.org/x/net/html"
)

// Fast builds, for a page in the well-formed subset of HTML most
// generated pages are in, exactly the tree golang.org/x/net/html builds —
// several times faster, with far fewer allocations (text and attribute
// values share the body's memory, nodes come from one slab). For anything
// outside that subset it gives up and returns nil, and Parse uses
// x/net/html: the result is the same tree either way. FuzzFastParse checks
// that on any input where Fast returns a tree, it is x/net/html's.
//
// The subset: an optional XML declaration and doctype (<!DOCTYPE html>,
// or an HTML 4 or XHTML one), then <html>, <head> with
// meta/link/base/title/style/script and <noscript> holding link/meta/style,
// </head>, <body>, properly nested elements (every end tag closes the
// current element; void elements, the implied <tbody> and <colgroup> of a
// table, the newline that starts a <pre> or <textarea>, a <select> of
// options (closed or not), iframes, and inline SVG are understood),
// </body>, </html>. It gives up on misnested or implicitly closed elements,
// MathML, HTML inside SVG, forms inside forms, nested links, template,
// frames, table captions, NULs, unusual comments, and a named character
// reference it does not know.
// Carriage returns are in the subset: as the HTML spec (and x/net/html's
// tokenizer) asks, CR LF and a lone CR are read as LF first.
func Fast(s string) *html.Node {
	p := fastParser{s: normalizeNewlines(s)}
	if !p.run() {
		return nil
	}
	return p.doc
}

type fastMode uint8

const (
	modeInitial fastMode = iota
	modeBeforeHTML
	modeBeforeHead
	modeInHead
	modeAfterHead
	modeInBody
	modeAfterBody
	modeAfterAfterBody
)

type fastParser struct {
	s    string
	i    int
	mode fastMode

	doc, htmlEl, head, body *html.Node
	// headNoscript is a <noscript> open in <head>: with scripting off,
	// its content is markup, and only what may be in <head> is taken.
	headNoscript           *html.Node
	stack                  []*html.Node
	openP, openA, openForm int
	openButton             int
	openSelect             int // a <select> is open: only options in it

	slab  []html.Node
	attrs []html.Attribute
}

func (p *fastParser) node() *html.Node {
	if len(p.slab) == 0 {
		p.slab = make([]html.Node, 128)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	return n
}

func (p *fastParser) cur() *html.Node { return p.stack[len(p.stack)-1] }

// inHead is where the head's content goes: the head, or a <noscript> open
// in it.
func (p *fastParser) inHead() *html.Node {
	if p.headNoscript != nil {
		return p.headNoscript
	}
	return p.head
}

// appendText adds text to n, merged with a text node that ends n.
func (p *fastParser) appendText(n *html.Node, text string) {
	if text == "" {
		return
	}
	if last := n.LastChild; last != nil && last.Type == html.TextNode {
		last.Data += text
		return
	}
	t := p.node()
	t.Type, t.Data = html.TextNode, text
	n.AppendChild(t)
}

func (p *fastParser) appendComment(n *html.Node, text string) {
	c := p.node()
	c.Type, c.Data = html.CommentNode, text
	n.AppendChild(c)
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func allSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpaceByte(s[i]) {
			return false
		}
	}
	return true
}

// run parses the whole input; false means "not in the subset".
func (p *fastParser) run() bool {
	if strings.IndexByte(p.s, 0) >= 0 || strings.HasPrefix(p.s, "\ufeff") {
		return false
	}
	// One array for every element's attributes, sized at first by the
	// '=' in the page (most attributes have a value): growing it from
	// nothing, element by element, copies it a dozen times.
	p.attrs = make([]html.Attribute, 0, strings.Count(p.s, "=")+8)
	p.doc = p.node()
	p.doc.Type = html.DocumentNode
	for p.i < len(p.s) {
		lt := strings.IndexByte(p.s[p.i:], '<')
		if lt < 0 {
			lt = len(p.s) - p.i
		}
		// Text runs to the next '<' that starts markup.
		j := p.i + lt
		for j < len(p.s) && !startsMarkup(p.s, j) {
			k := strings.IndexByte(p.s[j+1:], '<')
			if k < 0 {
				j = len(p.s)
				break
			}
			j += 1 + k
		}
		if j > p.i {
			if !p.text(p.s[p.i:j]) {
				return false
			}
			p.i = j
		}
		if p.i >= len(p.s) {
			break
		}
		if !p.markup() {
			return false
		}
	}
	// End of input: only after <body> is the tree complete without
	// implied elements.
	return p.mode >= modeInBody
}

// startsMarkup reports whether s[i] == '<' starts a tag, end tag, comment,
// doctype or bogus comment (otherwise the '<' is text).
func startsMarkup(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	c := s[i+1]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// markup handles the markup at p.s[p.i] == '<'.
func (p *fastParser) markup() bool {
	s := p.s
	switch c := s[p.i+1]; {
	case c == '!':
		if strings.HasPrefix(s[p.i:], "<!--") {
			return p.comment()
		}
		return p.doctype()
	case c == '?':
		return p.bogusComment()
	case c == '/':
		return p.endTag()
	}
	return p.startTag()
}
