package selector

import (
	"slices"
	"strings"

	"github.com/antchfx/xpath"
)

// NodeSet gives each node of an XPath node-set once. antchfx/xpath's
// descendant axis walks the subtree of every context node it is given, so
// //div//a meets a link inside two nested divs twice, and //table//td the
// cells of a table inside a table; XPath's node-sets (lxml's, parsel's) hold
// each node once. The first time is kept, which is document order for the
// node-sets the descendant axis makes. The zero value is empty.
type NodeSet struct {
	first nodeKey
	n     int
	seen  map[nodeKey]struct{}
}

type nodeKey struct {
	node any // *html.Node, *xmlquery.Node
	attr int // an attribute's place among its element's, from the end; -1 for other nodes
}

// keyOf is the node nav is on; node is nav's node (its Current()): the
// element, for an attribute.
func keyOf(node any, nav xpath.NodeNavigator) nodeKey {
	k := nodeKey{node, -1}
	if nav.NodeType() == xpath.AttributeNode {
		// The navigators keep the attribute's index to themselves.
		k.attr = 0
		for c := nav.Copy(); c.MoveToNextAttribute(); {
			k.attr++
		}
	}
	return k
}

// Add reports whether the node nav is on is new to the set, and adds it.
// node is nav's node (its Current()): the element, for an attribute.
func (s *NodeSet) Add(node any, nav xpath.NodeNavigator) bool {
	k := keyOf(node, nav)
	switch s.n {
	case 0:
		s.first, s.n = k, 1
		return true
	case 1:
		if k == s.first {
			return false
		}
		s.seen = map[nodeKey]struct{}{s.first: {}}
	}
	if _, ok := s.seen[k]; ok {
		return false
	}
	s.seen[k] = struct{}{}
	s.n++
	return true
}

// MayReorder reports whether the XPath expression src can give a node-set
// out of document order from antchfx/xpath: a union ("//h2 | //p" comes
// as the nodes of //h2, then those of //p), a reverse axis
// (preceding-sibling::p comes nearest first) or a parent step (".."). lxml,
// and so parsel, give every node-set in document order; DocumentOrder puts
// such a one back in it. Other expressions come in document order already,
// and can be read as they come.
func MayReorder(src string) bool {
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"', '\'':
			end := strings.IndexByte(src[i+1:], c)
			if end < 0 {
				return false
			}
			i += end + 1
		case '|':
			return true
		case '.':
			if i+1 < len(src) && src[i+1] == '.' {
				return true
			}
		case 'a', 'p':
			for _, axis := range []string{"ancestor", "preceding", "parent"} {
				if strings.HasPrefix(src[i:], axis) {
					return true
				}
			}
		}
	}
	return false
}

// OrderedNode is a node of a node-set and the navigator on it.
type OrderedNode struct {
	Node any // the navigator's Current(): the element, for an attribute
	Nav  xpath.NodeNavigator
}

// DocumentOrder sorts nodes, each node of one document once, into document
// order: an element before its attributes (in the order they are written)
// and its attributes before its children. root is a navigator of the
// document, and current gives the node a navigator is on.
func DocumentOrder(nodes []OrderedNode, root xpath.NodeNavigator, current func(xpath.NodeNavigator) any) {
	if len(nodes) < 2 {
		return
	}
	// Number the nodes of the set by a walk of the document, which stops
	// once it has met them all.
	pos := make(map[any]int, len(nodes))
	for _, n := range nodes {
		pos[n.Node] = -1
	}
	left := len(pos)
	w := root.Copy()
	w.MoveToRoot()
	for i := 0; left > 0; i++ {
		if p, ok := pos[current(w)]; ok && p < 0 {
			pos[current(w)] = i
			left--
		}
		if w.MoveToChild() {
			continue
		}
		for !w.MoveToNext() {
			if !w.MoveToParent() {
				left = 0 // the walk is over (a node of another tree)
				break
			}
		}
	}
	slices.SortStableFunc(nodes, func(a, b OrderedNode) int {
		if pa, pb := pos[a.Node], pos[b.Node]; pa != pb {
			return pa - pb
		}
		// One element and its attributes: the element (-1) first, then the
		// attributes, counted from the end.
		ka, kb := keyOf(a.Node, a.Nav), keyOf(b.Node, b.Nav)
		switch {
		case ka.attr == kb.attr:
			return 0
		case ka.attr < 0:
			return -1
		case kb.attr < 0:
			return 1
		}
		return kb.attr - ka.attr
	})
}
