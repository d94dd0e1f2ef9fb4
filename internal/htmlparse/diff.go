package htmlparse

import (
	"fmt"

	"golang.org/x/net/html"
)

// Diff returns where two trees differ ("/html[0]/body[1]: …"), or "" when
// they are the same: node types, names, namespaces, attributes in order,
// and children, with every parent link checked. The tests hold Fast's
// trees against x/net/html's with it.
func Diff(a, b *html.Node) string { return sameTree(a, b, "") }

func sameTree(a, b *html.Node, path string) string {
	if a.Type != b.Type || a.Data != b.Data || a.DataAtom != b.DataAtom || a.Namespace != b.Namespace {
		return fmt.Sprintf("%s: %d %q %q vs %d %q %q", path, a.Type, a.Data, a.Namespace, b.Type, b.Data, b.Namespace)
	}
	if len(a.Attr) != len(b.Attr) {
		return fmt.Sprintf("%s: attrs %v vs %v", path, a.Attr, b.Attr)
	}
	for i := range a.Attr {
		if a.Attr[i] != b.Attr[i] {
			return fmt.Sprintf("%s: attr %d: %v vs %v (all: %v vs %v)", path, i, a.Attr[i], b.Attr[i], a.Attr, b.Attr)
		}
	}
	ca, cb := a.FirstChild, b.FirstChild
	for i := 0; ca != nil || cb != nil; i++ {
		if ca == nil || cb == nil {
			return fmt.Sprintf("%s/%s: child %d missing on one side", path, a.Data, i)
		}
		if ca.Parent != a || cb.Parent != b {
			return fmt.Sprintf("%s: bad parent link", path)
		}
		if d := sameTree(ca, cb, fmt.Sprintf("%s/%s[%d]", path, a.Data, i)); d != "" {
			return d
		}
		ca, cb = ca.NextSibling, cb.NextSibling
	}
	return ""
}
