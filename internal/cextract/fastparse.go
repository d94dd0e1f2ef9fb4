package cextract

import (
	"cmp"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// fastParse builds, for a page in the well-formed subset of HTML most
// generated pages are in, exactly the tree golang.org/x/net/html builds —
// several times faster, with far fewer allocations (text and attribute
// values share the body's memory, nodes come from one slab). For anything
// outside that subset it gives up and returns nil, and ParseDoc uses
// x/net/html: the result is the same tree either way. FuzzFastParse checks
// that on any input where fastParse returns a tree, it is x/net/html's.
//
// The subset: an optional <!DOCTYPE html>, then <html>, <head> with
// meta/link/base/title/style/script, </head>, <body>, properly nested
// elements (every end tag closes the current element; void elements and
// the implied <tbody> of a table are understood), </body>, </html>.
// It gives up on misnested or implicitly closed elements, foreign content
// (svg, math), forms inside forms, nested links, <pre> starting with a
// newline, select, textarea, template, frames, carriage returns, NULs,
// unusual comments and doctypes, and entities an attribute would read
// differently from text.
func fastParse(s string) *html.Node {
	p := fastParser{s: s}
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
	stack                   []*html.Node
	openP, openA, openForm  int
	openButton              int

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
	if strings.ContainsAny(p.s, "\r\x00") || strings.HasPrefix(p.s, "\ufeff") {
		return false
	}
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

func inTableContext(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr:
		return true
	}
	return false
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
		return false
	case c == '/':
		return p.endTag()
	}
	return p.startTag()
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
		// </table> closes an open tbody (or the implied one) first.
		for c.DataAtom == atom.Tbody || c.DataAtom == atom.Thead || c.DataAtom == atom.Tfoot || c.DataAtom == atom.Tr {
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

func (p *fastParser) pop() {
	n := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	switch n.DataAtom {
	case atom.P:
		p.openP--
	case atom.A:
		p.openA--
	case atom.Form:
		p.openForm--
	case atom.Button:
		p.openButton--
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

// bailTags are start tags whose handling fastParse leaves to x/net/html.
var bailTags = map[atom.Atom]bool{
	atom.Html: true, atom.Head: true, atom.Body: true, atom.Frameset: true, atom.Frame: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Image: true, atom.Isindex: true, atom.Textarea: true, atom.Select: true,
	atom.Plaintext: true, atom.Xmp: true, atom.Iframe: true, atom.Noembed: true, atom.Noframes: true, atom.Nobr: true,
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
		switch a {
		case atom.Meta, atom.Link, atom.Base, atom.Basefont, atom.Bgsound:
			p.head.AppendChild(n)
			return true
		case atom.Title, atom.Style, atom.Script:
			p.head.AppendChild(n)
			return p.rawText(n)
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
	if inTableContext(c) {
		switch {
		case a == atom.Style || a == atom.Script:
			c.AppendChild(n)
			return p.rawText(n)
		case a == atom.Tr && c.DataAtom == atom.Table:
			// The implied <tbody>.
			tb := p.node()
			tb.Type, tb.DataAtom, tb.Data = html.ElementNode, atom.Tbody, "tbody"
			c.AppendChild(tb)
			p.stack = append(p.stack, tb)
			tb.AppendChild(n)
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
	if bailTags[a] || n.Namespace != "" {
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
	case atom.Title, atom.Style, atom.Script:
		c.AppendChild(n)
		return p.rawText(n)
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		switch c.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return false
		}
	case atom.Pre, atom.Listing:
		if p.i < len(p.s) && p.s[p.i] == '\n' {
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

// attributes reads the attributes of a start tag from s[i] to its '>'.
func (p *fastParser) attributes(i int) (attrs []html.Attribute, selfClosing bool, end int, ok bool) {
	s := p.s
	start := len(p.attrs)
	for {
		for i < len(s) && isSpaceByte(s[i]) {
			i++
		}
		if i >= len(s) {
			return nil, false, 0, false
		}
		switch s[i] {
		case '>':
			attrs = p.attrs[start:len(p.attrs):len(p.attrs)]
			if len(attrs) == 0 {
				attrs = nil
			}
			return attrs, selfClosing, i + 1, true
		case '/':
			if i+1 < len(s) && s[i+1] == '>' {
				selfClosing = true
				i++
				continue
			}
			return nil, false, 0, false
		}
		// The attribute's name.
		j := i
		lower := true
		for j < len(s) {
			c := s[j]
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':' || c == '.' || c == '@' {
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
		if j == i || j >= len(s) || !(isSpaceByte(s[j]) || s[j] == '=' || s[j] == '>' || s[j] == '/') {
			return nil, false, 0, false
		}
		key := s[i:j]
		if !lower {
			key = strings.ToLower(key)
		}
		i = j
		for i < len(s) && isSpaceByte(s[i]) {
			i++
		}
		val := ""
		if i < len(s) && s[i] == '=' {
			i++
			for i < len(s) && isSpaceByte(s[i]) {
				i++
			}
			if i >= len(s) {
				return nil, false, 0, false
			}
			switch q := s[i]; q {
			case '"', '\'':
				k := strings.IndexByte(s[i+1:], q)
				if k < 0 {
					return nil, false, 0, false
				}
				val = s[i+1 : i+1+k]
				i += k + 2
				if i < len(s) && !(isSpaceByte(s[i]) || s[i] == '>' || s[i] == '/') {
					return nil, false, 0, false
				}
			default:
				k := i
				for k < len(s) && !isSpaceByte(s[k]) && s[k] != '>' {
					switch s[k] {
					case '"', '\'', '<', '=', '`':
						return nil, false, 0, false
					}
					k++
				}
				if k == i {
					return nil, false, 0, false
				}
				val = s[i:k]
				i = k
			}
			if strings.IndexByte(val, '&') >= 0 {
				if !attrEntitiesSafe(val) {
					return nil, false, 0, false
				}
				val = html.UnescapeString(val)
			}
		}
		for _, a := range p.attrs[start:] {
			if a.Key == key {
				return nil, false, 0, false // duplicate attribute
			}
		}
		p.attrs = append(p.attrs, html.Attribute{Key: key, Val: val})
	}
}

// attrEntitiesSafe reports whether the character references of an
// attribute value decode the same in an attribute as in text (where
// html.UnescapeString decodes them): every named reference is complete,
// with its semicolon, and known.
func attrEntitiesSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] != '&' {
			continue
		}
		j := i + 1
		if j < len(v) && v[j] == '#' {
			continue // numeric references read the same everywhere
		}
		for j < len(v) && isAlnumByte(v[j]) {
			j++
		}
		if j == i+1 {
			continue // a lone '&'
		}
		if j >= len(v) || v[j] != ';' {
			return false
		}
		ref := v[i : j+1]
		if dec := html.UnescapeString(ref); dec == ref || strings.Contains(dec, ";") {
			return false // unknown, or a prefix match
		}
		i = j
	}
	return true
}

func isAlnumByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// sortAttrs sorts attributes as x/net/html's attrCompare does.
func sortAttrs(attrs []html.Attribute) {
	if len(attrs) < 2 {
		return
	}
	slices.SortFunc(attrs, func(a, b html.Attribute) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Val, b.Val))
	})
}
