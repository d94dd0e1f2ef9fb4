package selector

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
)

// pseudo is a Scrapy/parsel pseudo-element ending a CSS selector.
type pseudo uint8

const (
	pseudoNone pseudo = iota // the element's whole text content
	pseudoText               // ::text, its text nodes
	pseudoAttr               // ::attr(name), an attribute's value
	pseudoHTML               // ::html, its outer HTML
)

// cssGroup is one comma-separated member of a CSS selector group.
type cssGroup struct {
	sel    cascadia.Sel // nil: the context node itself ("::attr(href)")
	pseudo pseudo
	attr   string
	// descendant is set by white space before the pseudo-element
	// ("div ::text"): the text nodes or attributes of the whole subtree
	// rather than of the element alone.
	descendant bool
}

// cssSelector is a CSS selector group with parsel's pseudo-elements:
//
//	sel::text        the text nodes that are direct children of each match
//	sel ::text       every text node in each match's subtree
//	sel::attr(name)  the attribute's value (sel ::attr(name): also of descendants)
//	sel::html        the match's outer HTML
//	sel              the match's whole text content (parsel gives outer HTML)
//
// A pseudo-element with nothing before it applies to the context node (the
// --each element). Each group of "a::text, b::attr(href)" has its own.
type cssSelector struct {
	groups  []cssGroup
	single  bool              // one group with a selector: every match is its match
	matcher cascadia.Selector // union of the groups' selectors; nil if none has one
}

func compileCSS(src string) (*cssSelector, error) {
	fail := func(err error) (*cssSelector, error) { return nil, &SyntaxError{"CSS selector", src, err} }
	if strings.TrimSpace(src) == "" {
		return fail(ErrEmpty)
	}
	parts, err := splitGroups(src)
	if err != nil {
		return fail(err)
	}
	c := &cssSelector{}
	var sels cascadia.SelectorGroup
	for _, part := range parts {
		g, err := compileGroup(part)
		if err != nil {
			return fail(err)
		}
		c.groups = append(c.groups, g)
		if g.sel != nil {
			sels = append(sels, g.sel)
		}
	}
	if len(sels) > 0 {
		c.matcher = cascadia.Selector(sels.Match)
	}
	c.single = len(c.groups) == 1 && c.groups[0].sel != nil
	return c, nil
}

func compileGroup(part string) (cssGroup, error) {
	before, ps, name, err := splitPseudo(part)
	if err != nil {
		return cssGroup{}, err
	}
	// An attribute's name is read without regard to case (as HTML's
	// are), so ::attr(href) and ::attr(HREF) are one node's value.
	g := cssGroup{pseudo: ps, attr: strings.ToLower(name)}
	if before != "" {
		r, _ := utf8.DecodeLastRuneInString(before)
		g.descendant = isCSSSpace(r)
	}
	if rest, ok := anyDescendant(before); ok && (ps == pseudoText || ps == pseudoAttr) {
		// parsel reads "div *::text" as "div ::text": the text nodes of
		// the div and of every element below it (cssselect's path ends in
		// "descendant-or-self::*/*", and parsel makes that
		// "descendant-or-self::*/text()"); "*::text" alone, every text
		// node below the context node. The same for ::attr(NAME).
		before, g.descendant = rest, true
	}
	sel := strings.TrimSpace(before)
	if sel == "" {
		if ps == pseudoNone {
			return cssGroup{}, ErrEmpty
		}
		return g, nil
	}
	g.sel, err = cascadia.Parse(sel)
	if err != nil {
		if fn, _, call := strings.Cut(sel, "("); call && isIdent(strings.TrimSpace(fn)) {
			return cssGroup{}, fmt.Errorf("%v (%s() is not an XPath function this tool knows; prefix xpath: to force XPath)", err, strings.TrimSpace(fn))
		}
		return cssGroup{}, err
	}
	return g, nil
}

// anyDescendant reports whether the selector before a pseudo-element ends
// in a universal selector that is a descendant of what comes before it
// ("div *", "*"), and returns that.
func anyDescendant(before string) (rest string, ok bool) {
	rest, ok = strings.CutSuffix(strings.TrimRightFunc(before, isCSSSpace), "*")
	if !ok {
		return "", false
	}
	sel := strings.TrimRightFunc(rest, isCSSSpace)
	switch {
	case sel == "":
		return "", true
	case len(sel) == len(rest): // "a*", "ns|*"
		return "", false
	}
	switch sel[len(sel)-1] {
	case '>', '+', '~':
		return "", false
	case '\\': // an escaped space is part of a name
		if len(sel) < 2 || sel[len(sel)-2] != '\\' {
			return "", false
		}
	}
	return sel, true
}

func isCSSSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' }

// cssScanner walks a selector keeping track of strings, escapes and
// brackets, so that commas and colons inside them are not taken for syntax.
type cssScanner struct {
	quote byte
	depth int
}

// step consumes s[i] and reports whether it is outside strings, brackets and
// escapes; it returns how many bytes it consumed.
func (sc *cssScanner) step(s string, i int) (top bool, n int) {
	c := s[i]
	switch {
	case c == '\\':
		return false, 2
	case sc.quote != 0:
		if c == sc.quote {
			sc.quote = 0
		}
		return false, 1
	case c == '"' || c == '\'':
		sc.quote = c
		return false, 1
	case c == '(' || c == '[':
		sc.depth++
		return false, 1
	case c == ')' || c == ']':
		if sc.depth > 0 {
			sc.depth--
		}
		return false, 1
	}
	return sc.depth == 0, 1
}

// splitGroups splits a selector group at its top-level commas.
func splitGroups(s string) ([]string, error) {
	var parts []string
	var sc cssScanner
	start := 0
	for i := 0; i < len(s); {
		top, n := sc.step(s, i)
		if top && s[i] == ',' {
			parts = append(parts, s[start:i])
			start = i + 1
		}
		i += n
	}
	parts = append(parts, s[start:])
	if len(parts) > 1 {
		for _, p := range parts {
			if strings.TrimSpace(p) == "" {
				return nil, errors.New("empty selector in a comma-separated group")
			}
		}
	}
	return parts, nil
}

// splitPseudo finds a trailing ::text, ::attr(name) or ::html in one group
// and returns what comes before it. Other pseudo-elements are refused.
func splitPseudo(s string) (before string, ps pseudo, name string, err error) {
	var sc cssScanner
	for i := 0; i < len(s); {
		top, n := sc.step(s, i)
		if !top || !strings.HasPrefix(s[i:], "::") {
			i += n
			continue
		}
		j := i + 2
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
		word := strings.ToLower(s[i+2 : j])
		rest := s[j:]
		switch word {
		case "text":
			ps = pseudoText
		case "html":
			ps = pseudoHTML
		case "attr":
			ps = pseudoAttr
			if !strings.HasPrefix(rest, "(") {
				return "", 0, "", errors.New("::attr needs an attribute name: ::attr(href)")
			}
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				return "", 0, "", errors.New("::attr( is not closed")
			}
			name = strings.Trim(strings.TrimSpace(rest[1:end]), `"'`)
			if name == "" {
				return "", 0, "", errors.New("::attr() needs an attribute name: ::attr(href)")
			}
			rest = rest[end+1:]
		default:
			return "", 0, "", fmt.Errorf("unsupported pseudo-element ::%s (use ::text, ::attr(NAME) or ::html)", s[i+2:j])
		}
		if strings.TrimSpace(rest) != "" {
			return "", 0, "", fmt.Errorf("::%s must end the selector, found %q after it", word, strings.TrimSpace(rest))
		}
		return s[:i], ps, name, nil
	}
	return s, pseudoNone, "", nil
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return s != ""
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

func (c *cssSelector) selectsElements() bool {
	for _, g := range c.groups {
		if g.pseudo != pseudoNone {
			return false
		}
	}
	return true
}

// matches returns the elements the group's selectors match among the
// descendants of ctx, in document order.
func (c *cssSelector) matches(_ *Doc, ctx *html.Node) []*html.Node {
	if c.matcher == nil {
		return nil
	}
	var out []*html.Node
	for n := ctx.FirstChild; n != nil; n = htmlparse.NextNode(n, ctx) {
		if n.Type == html.ElementNode && c.matcher.Match(n) {
			out = append(out, n)
		}
	}
	return out
}

func (c *cssSelector) each(d *Doc, ctx *html.Node, fn func(Value) bool) {
	// A node is one value however many matches or groups reach it, as in
	// parsel (whose CSS is an XPath node-set): "div ::text" with nested
	// divs, "a::text, .x::text" on an <a class=x>. One group without white
	// space before its pseudo-element reaches each node once.
	var seen *cssSeen
	if !c.single || c.groups[0].descendant {
		seen = &cssSeen{}
	}
	// The context node comes first: it precedes its descendants.
	for i := range c.groups {
		if c.groups[i].sel == nil && !c.groups[i].values(ctx, seen, fn) {
			return
		}
	}
	if c.matcher == nil {
		return
	}
	// The descendants of ctx in document order (as goquery's Find gives
	// them), matched one by one so that the first value can stop the walk.
	// The text nodes ::text gives of a match are given as the walk meets
	// them, so that those of a match inside another (nested lists, "li::text")
	// come in document order between the outer one's, as in parsel.
	var textOf map[*html.Node]struct{} // the matches whose text nodes ::text gives
	for n := ctx.FirstChild; n != nil; n = htmlparse.NextNode(n, ctx) {
		if n.Type == html.TextNode {
			if _, ok := textOf[n.Parent]; ok && seen.add(n, pseudoText, "") && !fn(StringValue(n.Data)) {
				return
			}
			continue
		}
		if n.Type != html.ElementNode || !c.matcher.Match(n) {
			continue
		}
		for i := range c.groups {
			g := &c.groups[i]
			if g.sel == nil || !c.single && !g.sel.Match(n) {
				continue
			}
			if g.pseudo == pseudoText && !g.descendant {
				if textOf == nil {
					textOf = make(map[*html.Node]struct{})
				}
				textOf[n] = struct{}{}
				continue
			}
			if !g.values(n, seen, fn) {
				return
			}
		}
	}
}

// cssSeen holds the nodes a selector has given values of. A nil *cssSeen
// holds nothing and takes every node.
type cssSeen struct {
	m map[cssNode]struct{}
}

// cssNode is a node a value is taken from: an element's text or outer
// HTML, a text node, an element's attribute.
type cssNode struct {
	n      *html.Node
	pseudo pseudo
	attr   string
}

// add reports whether the node is new, and adds it.
func (s *cssSeen) add(n *html.Node, ps pseudo, attr string) bool {
	if s == nil {
		return true
	}
	k := cssNode{n, ps, attr}
	if _, ok := s.m[k]; ok {
		return false
	}
	if s.m == nil {
		s.m = make(map[cssNode]struct{})
	}
	s.m[k] = struct{}{}
	return true
}

func (c *cssSelector) elements(d *Doc, ctx *html.Node) ([]*html.Node, error) {
	if !c.selectsElements() {
		return nil, errors.New("selector gives text, not elements (drop ::text, ::attr() or ::html)")
	}
	return c.matches(d, ctx), nil
}

// values calls fn with the group's values for the node n, but for the
// nodes seen has given already.
func (g *cssGroup) values(n *html.Node, seen *cssSeen, fn func(Value) bool) bool {
	switch g.pseudo {
	case pseudoNone, pseudoHTML:
		if !seen.add(n, g.pseudo, "") {
			return true
		}
		if g.pseudo == pseudoHTML {
			return fn(StringValue(htmlparse.OuterHTML(n)))
		}
		return fn(StringValue(htmlparse.TextContent(n)))
	case pseudoText:
		if !g.descendant {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode && seen.add(c, pseudoText, "") && !fn(StringValue(c.Data)) {
					return false
				}
			}
			return true
		}
		for c := n.FirstChild; c != nil; c = htmlparse.NextNode(c, n) {
			if c.Type == html.TextNode && seen.add(c, pseudoText, "") && !fn(StringValue(c.Data)) {
				return false
			}
		}
	case pseudoAttr:
		if v, ok := htmlparse.Attr(n, g.attr); ok && seen.add(n, pseudoAttr, g.attr) && !fn(StringValue(v)) {
			return false
		}
		if !g.descendant {
			return true
		}
		for c := n.FirstChild; c != nil; c = htmlparse.NextNode(c, n) {
			if c.Type != html.ElementNode {
				continue
			}
			if v, ok := htmlparse.Attr(c, g.attr); ok && seen.add(c, pseudoAttr, g.attr) && !fn(StringValue(v)) {
				return false
			}
		}
	}
	return true
}
