package htmlparse

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func (p *fastParser) text(t string) bool {
	switch p.mode {
	case modeInitial, modeBeforeHTML, modeBeforeHead:
		return allSpace(t) // ignored
	case modeInHead:
		if !allSpace(t) {
			return false
		}
		p.appendText(p.inHead(), t)
		return true
	case modeAfterHead:
		if !allSpace(t) {
			return false
		}
		p.appendText(p.htmlEl, t)
		return true
	case modeAfterBody, modeAfterAfterBody:
		if !allSpace(t) {
			return false
		}
		p.appendText(p.body, decodeText(t))
		return true
	}
	c := p.cur()
	if inTableContext(c) && !allSpace(t) {
		return false // foster parenting
	}
	if strings.IndexByte(t, '&') >= 0 {
		t = html.UnescapeString(t)
	}
	if (c.DataAtom == atom.Pre || c.DataAtom == atom.Listing) && c.FirstChild == nil && c.Namespace == "" {
		// A newline that starts a <pre> is not its text (even one
		// written as &#10;).
		t = trimStartNewline(t)
	}
	p.appendText(c, t)
	return true
}

// trimStartNewline drops the newline that starts a <pre>, <listing> or
// <textarea>, as x/net/html does: a CR, then an LF (a CR can only come
// from a character reference: the input's are LFs by then).
func trimStartNewline(t string) string {
	t = strings.TrimPrefix(t, "\r")
	return strings.TrimPrefix(t, "\n")
}

func decodeText(t string) string {
	if strings.IndexByte(t, '&') >= 0 {
		return html.UnescapeString(t)
	}
	return t
}

func (p *fastParser) comment() bool {
	start := p.i + 4
	rest := p.s[start:]
	if strings.HasPrefix(rest, ">") || strings.HasPrefix(rest, "->") {
		return false
	}
	end := strings.Index(rest, "-->")
	if end < 0 {
		return false
	}
	data := rest[:end]
	if strings.Contains(data, "--!") {
		return false
	}
	p.i = start + end + 3
	p.placeComment(data)
	return true
}

// bogusComment reads "<?...>" (an XML declaration, a processing
// instruction), which HTML reads as a comment holding all from the '?' to
// the first '>'.
func (p *fastParser) bogusComment() bool {
	end := strings.IndexByte(p.s[p.i:], '>')
	if end < 0 {
		return false
	}
	p.placeComment(p.s[p.i+1 : p.i+end])
	p.i += end + 1
	return true
}

// placeComment adds a comment where the insertion mode puts it, its
// character references decoded as x/net/html decodes them (in text's way,
// though HTML itself leaves a comment as written).
func (p *fastParser) placeComment(data string) {
	data = decodeText(data)
	switch p.mode {
	case modeInitial, modeBeforeHTML, modeAfterAfterBody:
		p.appendComment(p.doc, data)
	case modeBeforeHead, modeAfterHead, modeAfterBody:
		p.appendComment(p.htmlEl, data)
	case modeInHead:
		p.appendComment(p.inHead(), data)
	default:
		p.appendComment(p.cur(), data)
	}
}

func (p *fastParser) doctype() bool {
	if p.mode != modeInitial {
		return false
	}
	rest := p.s[p.i+2:]
	if len(rest) < 7 || !strings.EqualFold(rest[:7], "doctype") {
		return false
	}
	end := strings.IndexByte(rest, '>')
	if end < 0 {
		return false
	}
	body := rest[7:end]
	if len(body) == 0 || !isSpaceByte(body[0]) {
		return false
	}
	var d *html.Node
	if strings.EqualFold(strings.TrimRight(strings.TrimLeft(body, " \t\n\f"), " \t\n\f"), "html") {
		d = p.node()
		d.Type, d.Data = html.DoctypeNode, "html"
	} else if d = legacyDoctype(p.s[p.i : p.i+2+end+1]); d == nil {
		return false
	}
	p.doc.AppendChild(d)
	p.i += 2 + end + 1
	p.mode = modeBeforeHTML
	return true
}

// legacyDoctype is the doctype node x/net/html makes of decl, a doctype
// with a public or system identifier ("<!DOCTYPE html PUBLIC
// "-//W3C//DTD XHTML 1.0 Strict//EN" …>"), or nil. Such a doctype may put
// the parser in quirks mode, which changes one thing only: whether a
// <table> closes an open <p>, where Fast gives up anyway.
func legacyDoctype(decl string) *html.Node {
	doc, err := html.Parse(strings.NewReader(decl))
	if err != nil || doc.FirstChild == nil || doc.FirstChild.Type != html.DoctypeNode {
		return nil
	}
	d := doc.FirstChild
	doc.RemoveChild(d)
	return d
}

// rawText reads the content of a title, style, script or iframe element up
// to its end tag; the element is not left open.
func (p *fastParser) rawText(n *html.Node) bool {
	end := "</" + n.Data
	s := p.s
	k := p.i
	for {
		m := indexFold(s[k:], end)
		if m < 0 {
			return false
		}
		k += m
		after := k + len(end)
		if after < len(s) && (isSpaceByte(s[after]) || s[after] == '/' || s[after] == '>') {
			break
		}
		k = after
	}
	content := s[p.i:k]
	if n.DataAtom == atom.Script {
		// In a script, "<!--" enters the escaped state, where the end tag
		// still ends the script; a "<script" after it would enter the
		// double-escaped one, where it does not.
		if k := strings.Index(content, "<!--"); k >= 0 && indexFold(content[k:], "<script") >= 0 {
			return false
		}
	}
	// The end tag: </script> (white space allowed before '>').
	j := k + len(end)
	for j < len(s) && isSpaceByte(s[j]) {
		j++
	}
	if j >= len(s) || s[j] != '>' {
		return false
	}
	switch n.DataAtom {
	case atom.Title:
		content = decodeText(content)
	case atom.Textarea:
		// A newline that starts a <textarea> is not its text.
		content = trimStartNewline(decodeText(content))
	}
	p.appendText(n, content)
	p.i = j + 1
	return true
}

// indexFold is strings.Index for an ASCII lower-case needle, ignoring the
// case of s.
func indexFold(s, needle string) int {
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			return -1
		}
		i += k
		if len(s)-i < len(needle) {
			return -1
		}
		if strings.EqualFold(s[i:i+len(needle)], needle) {
			return i
		}
		i++
	}
}
