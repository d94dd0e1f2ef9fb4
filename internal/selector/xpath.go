package selector

import (
	"errors"
	"fmt"
	"strings"

	"github.com/antchfx/htmlquery"
	"github.com/antchfx/xpath"
	"golang.org/x/net/html"

	"github.com/crawlutils/crawlutils/internal/htmlparse"
)

// xpathSelector is an XPath 1.0 expression run with antchfx/xpath over the
// same tree goquery uses. Node-sets give one value per node (text nodes their
// text, attributes their value, elements their text content); string,
// number and boolean expressions give one value.
type xpathSelector struct {
	expr *xpath.Expr
	// reorder: the node-sets of expr may come out of document order
	// (MayReorder), and are sorted before they are read.
	reorder bool
}

// probeDoc is a small page every expression is run on once at compile time:
// antchfx/xpath reports some errors (wrong argument types, bad regular
// expressions) only when an expression runs, by panicking.
const probeDoc = `<html><head><title>t</title></head><body><p class="c" id="i">x <a href="/">1</a></p></body></html>`

func compileXPath(src string) (x *xpathSelector, err error) {
	fail := func(e error) (*xpathSelector, error) { return nil, &SyntaxError{"XPath", src, e} }
	if strings.TrimSpace(src) == "" {
		return fail(ErrEmpty)
	}
	if err := CheckBrackets(src); err != nil {
		return fail(err)
	}
	expr, err := compileExpr(src)
	if err != nil {
		return fail(errors.New(strings.TrimPrefix(err.Error(), src+" ")))
	}
	x = &xpathSelector{expr: expr, reorder: MayReorder(src)}
	d := ParseDoc(probeDoc, "https://example.com/")
	if err := x.each(d, d.Root, func(Value) bool { return true }); err != nil {
		return fail(err)
	}
	return x, nil
}

// CheckBrackets finds unclosed brackets, parentheses and string literals,
// which antchfx/xpath reports only as "expression must evaluate to a
// node-set", and says where they are.
func CheckBrackets(src string) error {
	var open []int // offsets of the open ( and [
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"', '\'':
			end := strings.IndexByte(src[i+1:], c)
			if end < 0 {
				return fmt.Errorf("string opened at offset %d is not closed", i)
			}
			i += end + 1
		case '(', '[':
			open = append(open, i)
		case ')', ']':
			want := byte('(')
			if c == ']' {
				want = '['
			}
			if len(open) == 0 || src[open[len(open)-1]] != want {
				return fmt.Errorf("unexpected %q at offset %d", c, i)
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		at := open[len(open)-1]
		return fmt.Errorf("%q at offset %d is not closed", src[at], at)
	}
	return nil
}

// compileExpr is xpath.Compile, with its panics turned into errors.
func compileExpr(src string) (expr *xpath.Expr, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return xpath.Compile(src)
}

// each evaluates the expression with ctx as context node. A panic of the
// XPath engine becomes the error.
func (x *xpathSelector) each(d *Doc, ctx *html.Node, fn func(Value) bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("evaluation failed: %v", r)
		}
	}()
	switch r := x.expr.Evaluate(navigatorAt(d.Root, ctx)).(type) {
	case string:
		fn(StringValue(r))
	case float64:
		fn(NumberValue(r))
	case bool:
		fn(BoolValue(r))
	case *xpath.NodeIterator:
		if x.reorder {
			for _, n := range x.sorted(d, r) {
				if !fn(navValue(n.Nav.(*htmlquery.NodeNavigator))) {
					return nil
				}
			}
			return nil
		}
		var set NodeSet
		for r.MoveNext() {
			nav, ok := r.Current().(*htmlquery.NodeNavigator)
			if !ok || !set.Add(nav.Current(), nav) {
				continue
			}
			if !fn(navValue(nav)) {
				return nil
			}
		}
	}
	return nil
}

// sorted reads the whole node-set of it, each node once, in document order.
func (x *xpathSelector) sorted(d *Doc, it *xpath.NodeIterator) []OrderedNode {
	var set NodeSet
	var nodes []OrderedNode
	for it.MoveNext() {
		nav, ok := it.Current().(*htmlquery.NodeNavigator)
		if ok && set.Add(nav.Current(), nav) {
			nodes = append(nodes, OrderedNode{nav.Current(), nav.Copy()})
		}
	}
	DocumentOrder(nodes, htmlquery.CreateXPathNavigator(d.Root), htmlNode)
	return nodes
}

func htmlNode(nav xpath.NodeNavigator) any { return nav.(*htmlquery.NodeNavigator).Current() }

func (x *xpathSelector) elements(d *Doc, ctx *html.Node) (nodes []*html.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("evaluation failed: %v", r)
		}
	}()
	it, ok := x.expr.Evaluate(navigatorAt(d.Root, ctx)).(*xpath.NodeIterator)
	if !ok {
		return nil, nil
	}
	if x.reorder {
		for _, n := range x.sorted(d, it) {
			if n.Nav.NodeType() == xpath.ElementNode {
				nodes = append(nodes, n.Node.(*html.Node))
			}
		}
		return nodes, nil
	}
	var set NodeSet
	for it.MoveNext() {
		nav, ok := it.Current().(*htmlquery.NodeNavigator)
		if ok && nav.NodeType() == xpath.ElementNode && set.Add(nav.Current(), nav) {
			nodes = append(nodes, nav.Current())
		}
	}
	return nodes, nil
}

// navValue is the string value of the node nav is on.
func navValue(nav *htmlquery.NodeNavigator) Value {
	switch nav.NodeType() {
	case xpath.AttributeNode:
		return StringValue(nav.Value())
	}
	return StringValue(htmlparse.TextContent(nav.Current()))
}

// navigatorAt returns an XPath navigator over the whole tree of root,
// positioned on n: absolute paths still start at the document, and relative
// ones at n. (htmlquery.CreateXPathNavigator(n) would make n the root.)
func navigatorAt(root, n *html.Node) *htmlquery.NodeNavigator {
	nav := htmlquery.CreateXPathNavigator(root)
	if n == root {
		return nav
	}
	var path []*html.Node
	for p := n; p != root; p = p.Parent {
		if p == nil {
			return htmlquery.CreateXPathNavigator(n) // n is not under root
		}
		path = append(path, p)
	}
	for i := len(path) - 1; i >= 0; i-- {
		if !nav.MoveToChild() {
			return htmlquery.CreateXPathNavigator(n)
		}
		for nav.Current() != path[i] {
			if !nav.MoveToNext() {
				return htmlquery.CreateXPathNavigator(n)
			}
		}
	}
	return nav
}
