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
		p.appendText(p.head, t)
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
	p.appendText(c, t)
	return true
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
	switch p.mode {
	case modeInitial, modeBeforeHTML, modeAfterAfterBody:
		p.appendComment(p.doc, data)
	case modeBeforeHead, modeAfterHead, modeAfterBody:
		p.appendComment(p.htmlEl, data)
	case modeInHead:
		p.appendComment(p.head, data)
	default:
		p.appendComment(p.cur(), data)
	}
	return true
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
	if len(body) == 0 || !isSpaceByte(body[0]) || !strings.EqualFold(strings.TrimRight(strings.TrimLeft(body, " \t\n\f"), " \t\n\f"), "html") {
		return false
	}
	d := p.node()
	d.Type, d.Data = html.DoctypeNode, "html"
	p.doc.AppendChild(d)
	p.i += 2 + end + 1
	p.mode = modeBeforeHTML
	return true
}

// rawText reads the content of a title, style or script element up to its
// end tag; the element is not left open.
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
	if n.DataAtom == atom.Script && strings.Contains(content, "<!--") {
		return false // script data escape states
	}
	// The end tag: </script> (white space allowed before '>').
	j := k + len(end)
	for j < len(s) && isSpaceByte(s[j]) {
		j++
	}
	if j >= len(s) || s[j] != '>' {
		return false
	}
	if n.DataAtom == atom.Title {
		content = decodeText(content)
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
