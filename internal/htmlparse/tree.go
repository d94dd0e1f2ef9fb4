package htmlparse

import (
	"strings"

	"golang.org/x/net/html"
)

// NextNode returns the node after n in document order (preorder) within the
// subtree of root, or nil at its end. Walking this way needs no recursion, so
// no page can exhaust the stack.
func NextNode(n, root *html.Node) *html.Node {
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

// TextContent is the text of n and its descendants joined, as the DOM's
// TextContent and XPath's string() give it (comments excluded).
func TextContent(n *html.Node) string {
	switch n.Type {
	case html.TextNode, html.CommentNode:
		return n.Data
	}
	// Most elements hold one text node: avoid the builder then.
	if c := n.FirstChild; c != nil && c == n.LastChild && c.Type == html.TextNode {
		return c.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = NextNode(c, n) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// OuterHTML renders n and its subtree.
func OuterHTML(n *html.Node) string {
	var b strings.Builder
	_ = html.Render(&b, n) // writes to a strings.Builder cannot fail
	return b.String()
}

// Attr returns the value of n's attribute name ("href", or "xlink:href" for a
// namespaced one), matched without regard to case.
func Attr(n *html.Node, name string) (string, bool) {
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
