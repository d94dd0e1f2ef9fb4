package htmlparse

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Inline SVG (icons, logos) is foreign content: its elements are in the
// "svg" namespace, some names and attributes are given their SVG case
// (viewBox, linearGradient), xlink:href becomes href in the xlink
// namespace, a self-closing tag closes its element, and <title>, <desc>
// and <foreignObject> hold HTML. Fast takes an SVG whose elements are
// properly nested and closed, holding text and comments; it gives up on
// what ends foreign content (a <div> or <p> inside), on HTML inside
// <title>, <desc> or <foreignObject>, on <script>, <style> and <font>, and
// on CDATA sections.

// svgStart opens <svg> n, met in an HTML element.
func (p *fastParser) svgStart(n *html.Node, selfClosing bool) bool {
	adjustSVGAttributes(n.Attr)
	n.Namespace = "svg"
	p.cur().AppendChild(n)
	if !selfClosing {
		p.stack = append(p.stack, n)
	}
	return true
}

// svgChild opens n (named name, lower case) inside the SVG element c.
func (p *fastParser) svgChild(c, n *html.Node, name string, selfClosing bool) bool {
	if svgBreakout[name] || name == "font" || name == "script" || name == "style" || svgHTMLPoint(c) {
		return false
	}
	if x := svgTagNameAdjustments[name]; x != "" {
		n.Data, n.DataAtom = x, atom.Lookup([]byte(x))
	}
	return p.svgStart(n, selfClosing)
}

// svgEnd closes the current SVG element c on the end tag of name.
func (p *fastParser) svgEnd(c *html.Node, name string) bool {
	if !strings.EqualFold(c.Data, name) {
		return false
	}
	p.pop()
	return true
}

// svgHTMLPoint reports whether SVG element n holds HTML.
func svgHTMLPoint(n *html.Node) bool {
	switch n.Data {
	case "desc", "foreignObject", "title":
		return true
	}
	return false
}

func adjustSVGAttributes(attrs []html.Attribute) {
	for i := range attrs {
		a := &attrs[i]
		if k, ok := svgAttributeAdjustments[a.Key]; ok {
			a.Key = k
		}
		if a.Key == "" || a.Key[0] != 'x' {
			continue
		}
		switch a.Key {
		case "xlink:actuate", "xlink:arcrole", "xlink:href", "xlink:role", "xlink:show",
			"xlink:title", "xlink:type", "xml:lang", "xml:space", "xmlns:xlink":
			j := strings.IndexByte(a.Key, ':')
			a.Namespace, a.Key = a.Key[:j], a.Key[j+1:]
		}
	}
}
