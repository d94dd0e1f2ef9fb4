package selector

import "github.com/antchfx/xpath"

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

// Add reports whether the node nav is on is new to the set, and adds it.
// node is nav's node (its Current()): the element, for an attribute.
func (s *NodeSet) Add(node any, nav xpath.NodeNavigator) bool {
	k := nodeKey{node, -1}
	if nav.NodeType() == xpath.AttributeNode {
		// The navigators keep the attribute's index to themselves.
		k.attr = 0
		for c := nav.Copy(); c.MoveToNextAttribute(); {
			k.attr++
		}
	}
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
