package htmlparse

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func inTableContext(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr, atom.Colgroup:
		return true
	}
	return false
}

// tagName reads a tag name at p.s[i]; ok is false for unusual names.
func (p *fastParser) tagName(i int) (name string, j int, ok bool) {
	s := p.s
	j = i
	lower := true
	for j < len(s) {
		c := s[j]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
			j++
			continue
		}
		if c >= 'A' && c <= 'Z' {
			lower = false
			j++
			continue
		}
		break
	}
	if j == i || j >= len(s) || !(isSpaceByte(s[j]) || s[j] == '/' || s[j] == '>') {
		return "", j, false
	}
	name = s[i:j]
	if !lower {
		name = strings.ToLower(name)
	}
	return name, j, true
}

func (p *fastParser) endTag() bool {
	s := p.s
	i := p.i + 2
	if i >= len(s) || !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		return false
	}
	name, j, ok := p.tagName(i)
	if !ok {
		return false
	}
	for j < len(s) && isSpaceByte(s[j]) {
		j++
	}
	if j >= len(s) || s[j] != '>' {
		return false
	}
	p.i = j + 1
	a := atom.Lookup([]byte(name))
	switch p.mode {
	case modeInHead:
		if p.headNoscript != nil {
			if a != atom.Noscript {
				return false
			}
			p.headNoscript = nil
			return true
		}
		if a != atom.Head {
			return false
		}
		p.mode = modeAfterHead
		return true
	case modeAfterBody:
		if a != atom.Html {
			return false
		}
		p.mode = modeAfterAfterBody
		return true
	case modeInBody:
	default:
		return false
	}
	c := p.cur()
	if c.Namespace == "svg" {
		return p.svgEnd(c, name)
	}
	if p.openSelect > 0 {
		// </select> closes an open option and optgroup first, and
		// </optgroup> an open option.
		for c.DataAtom == atom.Option && (a == atom.Select || a == atom.Optgroup) ||
			c.DataAtom == atom.Optgroup && a == atom.Select {
			p.pop()
			c = p.cur()
		}
	}
	switch a {
	case atom.Body:
		if c != p.body {
			return false
		}
		p.mode = modeAfterBody
		return true
	case atom.Html:
		if c != p.body {
			return false
		}
		p.mode = modeAfterAfterBody
		return true
	case atom.Table:
		// </table> closes an open tbody (or the implied one), and an open
		// colgroup, first.
		for c.DataAtom == atom.Tbody || c.DataAtom == atom.Thead || c.DataAtom == atom.Tfoot || c.DataAtom == atom.Tr || c.DataAtom == atom.Colgroup {
			p.pop()
			c = p.cur()
		}
	}
	if c.Data != name || c.Namespace != "" || c == p.body {
		return false
	}
	p.pop()
	return true
}

// implied opens, in the table c, the element a table implies (a <tbody>
// before a <tr>, a <colgroup> before a <col>) and returns it.
func (p *fastParser) implied(c *html.Node, a atom.Atom) *html.Node {
	n := p.node()
	n.Type, n.DataAtom, n.Data = html.ElementNode, a, a.String()
	c.AppendChild(n)
	p.stack = append(p.stack, n)
	return n
}

func (p *fastParser) pop() {
	n := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	if n.Namespace != "" {
		return
	}
	switch n.DataAtom {
	case atom.P:
		p.openP--
	case atom.A:
		p.openA--
	case atom.Form:
		p.openForm--
	case atom.Button:
		p.openButton--
	case atom.Select:
		p.openSelect--
	}
}

// closesP are the start tags that close an open <p>.
var closesP = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Center: true,
	atom.Details: true, atom.Dialog: true, atom.Dir: true, atom.Div: true, atom.Dl: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Header: true, atom.Hgroup: true,
	atom.Main: true, atom.Menu: true, atom.Nav: true, atom.Ol: true, atom.P: true, atom.Search: true, atom.Section: true,
	atom.Summary: true, atom.Ul: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true,
	atom.H6: true, atom.Pre: true, atom.Listing: true, atom.Form: true, atom.Li: true, atom.Dd: true, atom.Dt: true,
	atom.Plaintext: true, atom.Table: true, atom.Hr: true, atom.Xmp: true,
}

// bailTags are start tags whose handling Fast leaves to x/net/html.
var bailTags = map[atom.Atom]bool{
	atom.Html: true, atom.Head: true, atom.Body: true, atom.Frameset: true, atom.Frame: true, atom.Template: true,
	atom.Math: true, atom.Image: true, atom.Isindex: true,
	atom.Plaintext: true, atom.Xmp: true, atom.Noembed: true, atom.Noframes: true, atom.Nobr: true,
	atom.Applet: true, atom.Marquee: true, atom.Object: true, atom.Rb: true, atom.Rp: true, atom.Rt: true, atom.Rtc: true,
	atom.Caption: true, atom.Col: true, atom.Colgroup: true, atom.Tbody: true, atom.Td: true, atom.Tfoot: true,
	atom.Th: true, atom.Thead: true, atom.Tr: true, atom.Keygen: true, atom.Menuitem: true, atom.Optgroup: true,
}

// special elements stop the search for an open li, dd or dt.
var special = map[atom.Atom]bool{
	atom.Applet: true, atom.Area: true, atom.Article: true, atom.Aside: true, atom.Base: true, atom.Basefont: true,
	atom.Bgsound: true, atom.Blockquote: true, atom.Body: true, atom.Br: true, atom.Button: true, atom.Caption: true,
	atom.Center: true, atom.Col: true, atom.Colgroup: true, atom.Dd: true, atom.Details: true, atom.Dir: true,
	atom.Dl: true, atom.Dt: true, atom.Embed: true, atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true,
	atom.Footer: true, atom.Form: true, atom.Frame: true, atom.Frameset: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Head: true, atom.Header: true, atom.Hgroup: true,
	atom.Hr: true, atom.Html: true, atom.Iframe: true, atom.Img: true, atom.Input: true, atom.Keygen: true,
	atom.Li: true, atom.Link: true, atom.Listing: true, atom.Main: true, atom.Marquee: true, atom.Menu: true,
	atom.Meta: true, atom.Nav: true, atom.Noembed: true, atom.Noframes: true, atom.Noscript: true, atom.Object: true,
	atom.Ol: true, atom.Param: true, atom.Plaintext: true, atom.Pre: true, atom.Script: true, atom.Search: true,
	atom.Section: true, atom.Select: true, atom.Source: true, atom.Style: true, atom.Summary: true, atom.Table: true,
	atom.Tbody: true, atom.Td: true, atom.Template: true, atom.Textarea: true, atom.Tfoot: true, atom.Th: true,
	atom.Thead: true, atom.Title: true, atom.Tr: true, atom.Track: true, atom.Ul: true, atom.Wbr: true, atom.Xmp: true,
}

func (p *fastParser) startTag() bool {
	name, j, ok := p.tagName(p.i + 1)
	if !ok {
		return false
	}
	a := atom.Lookup([]byte(name))
	if a != 0 {
		name = a.String()
	}
	attrs, selfClosing, end, ok := p.attributes(j)
	if !ok {
		return false
	}
	p.i = end
	n := p.node()
	n.Type, n.DataAtom, n.Data, n.Attr = html.ElementNode, a, name, attrs
	switch p.mode {
	case modeInitial, modeBeforeHTML:
		if a != atom.Html {
			return false
		}
		p.doc.AppendChild(n)
		p.htmlEl = n
		p.stack = append(p.stack, n)
		p.mode = modeBeforeHead
		return true
	case modeBeforeHead:
		if a != atom.Head {
			return false
		}
		p.htmlEl.AppendChild(n)
		p.head = n
		p.mode = modeInHead
		return true
	case modeInHead:
		if p.headNoscript != nil {
			switch a {
			case atom.Meta, atom.Link, atom.Basefont, atom.Bgsound:
				p.headNoscript.AppendChild(n)
				return true
			case atom.Style:
				p.headNoscript.AppendChild(n)
				return p.rawText(n)
			}
			return false // ends the <noscript> and is read again
		}
		switch a {
		case atom.Meta, atom.Link, atom.Base, atom.Basefont, atom.Bgsound:
			p.head.AppendChild(n)
			return true
		case atom.Title, atom.Style, atom.Script:
			p.head.AppendChild(n)
			return p.rawText(n)
		case atom.Noscript:
			p.head.AppendChild(n)
			p.headNoscript = n
			return true
		}
		return false
	case modeAfterHead:
		if a != atom.Body {
			return false
		}
		p.htmlEl.AppendChild(n)
		p.body = n
		p.stack = append(p.stack, n)
		p.mode = modeInBody
		return true
	case modeInBody:
	default:
		return false
	}
	c := p.cur()
	if c.Namespace == "svg" {
		return p.svgChild(c, n, name, selfClosing)
	}
	if inTableContext(c) {
		if c.DataAtom == atom.Colgroup {
			if a == atom.Col {
				c.AppendChild(n)
				return true
			}
			// Anything else ends the column group and is read in the
			// table; Fast takes only what starts the table's rows.
			switch a {
			case atom.Colgroup, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr:
			default:
				return false
			}
			p.pop()
			c = p.cur()
		}
		switch {
		case a == atom.Col && c.DataAtom == atom.Table:
			p.implied(c, atom.Colgroup).AppendChild(n)
			return true
		case a == atom.Colgroup && c.DataAtom == atom.Table:
			c.AppendChild(n)
			p.stack = append(p.stack, n)
			return true
		case a == atom.Style || a == atom.Script:
			c.AppendChild(n)
			return p.rawText(n)
		case a == atom.Tr && c.DataAtom == atom.Table:
			p.implied(c, atom.Tbody).AppendChild(n)
			p.stack = append(p.stack, n)
			return true
		case a == atom.Tr && (c.DataAtom == atom.Tbody || c.DataAtom == atom.Thead || c.DataAtom == atom.Tfoot),
			(a == atom.Tbody || a == atom.Thead || a == atom.Tfoot) && c.DataAtom == atom.Table,
			(a == atom.Td || a == atom.Th) && c.DataAtom == atom.Tr:
			c.AppendChild(n)
			p.stack = append(p.stack, n)
			return true
		}
		return false
	}
	if a == atom.Svg {
		return p.svgStart(n, selfClosing)
	}
	if p.openSelect > 0 || a == atom.Select {
		return p.selectStart(c, n, a)
	}
	if bailTags[a] {
		return false
	}
	if closesP[a] && p.openP > 0 {
		return false
	}
	switch a {
	case atom.Area, atom.Br, atom.Embed, atom.Img, atom.Wbr, atom.Input, atom.Param, atom.Source, atom.Track,
		atom.Hr, atom.Meta, atom.Link, atom.Base, atom.Basefont, atom.Bgsound:
		c.AppendChild(n)
		return true
	case atom.Title, atom.Style, atom.Script, atom.Iframe, atom.Textarea:
		c.AppendChild(n)
		return p.rawText(n)
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		switch c.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return false
		}
	case atom.Form:
		if p.openForm > 0 {
			return false
		}
		p.openForm++
	case atom.A:
		if p.openA > 0 {
			return false
		}
		p.openA++
		sortAttrs(n.Attr)
	case atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.S, atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		// x/net/html sorts the attributes of formatting elements (for its
		// Noah's Ark check); so must we, to build the same tree.
		sortAttrs(n.Attr)
	case atom.Button:
		if p.openButton > 0 {
			return false
		}
		p.openButton++
	case atom.P:
		p.openP++
	case atom.Option:
		if c.DataAtom == atom.Option {
			return false
		}
	case atom.Li, atom.Dd, atom.Dt:
		for k := len(p.stack) - 1; k >= 0; k-- {
			x := p.stack[k].DataAtom
			if x == atom.Li || x == atom.Dd || x == atom.Dt {
				return false
			}
			if special[x] && x != atom.Address && x != atom.Div && x != atom.P {
				break
			}
		}
	case atom.Table:
		c.AppendChild(n)
		p.stack = append(p.stack, n)
		return true
	}
	_ = selfClosing // ignored on HTML elements, as the parser does
	c.AppendChild(n)
	p.stack = append(p.stack, n)
	return true
}

// selectStart opens <select>, or, in an open one, an <option> or
// <optgroup>, the only elements Fast takes in a select: an open option
// (and, before an optgroup, an open optgroup) is closed first, as the
// end tags they imply.
func (p *fastParser) selectStart(c, n *html.Node, a atom.Atom) bool {
	switch a {
	case atom.Select:
		if p.openSelect > 0 {
			return false // a select in a select closes it
		}
		p.openSelect++
	case atom.Option:
		if c.DataAtom == atom.Option {
			p.pop()
			c = p.cur()
		}
	case atom.Optgroup:
		for c.DataAtom == atom.Option || c.DataAtom == atom.Optgroup {
			p.pop()
			c = p.cur()
		}
	default:
		return false
	}
	c.AppendChild(n)
	p.stack = append(p.stack, n)
	return true
}
