package rules

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// node is a YAML (or JSON) value with its position: the rules decoder
// works on these, so every error can say where.
type node struct {
	Pos
	kind  nodeKind
	tag   scalarTag // scalars only
	text  string    // scalar value as text: "true" for True, "31" for 0x1F, "1.50" for 1.50
	src   string    // scalar as written in the file (a string: its value): a name's text
	keys  []*node   // mapping keys (scalars), in order
	vals  []*node   // mapping values
	items []*node   // sequence items
}

type nodeKind uint8

const (
	scalarNode nodeKind = iota
	mapNode
	seqNode
)

type scalarTag uint8

const (
	strTag scalarTag = iota
	intTag
	floatTag
	boolTag
	nullTag
)

func (n *node) describe() string {
	switch n.kind {
	case mapNode:
		return "a mapping"
	case seqNode:
		return "a list"
	}
	switch n.tag {
	case intTag, floatTag:
		return "a number (" + n.src + ")"
	case boolTag:
		return n.src
	case nullTag:
		return "null"
	}
	return fmt.Sprintf("a string (%q)", shorten(n.text))
}

func shorten(s string) string {
	if len(s) > 40 {
		cut := 37
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return s[:cut] + "..."
	}
	return s
}

// maxNodes bounds what aliases may expand to (a "billion laughs" file).
const maxNodes = 100000

// converter turns goccy's AST into nodes, resolving anchors and aliases.
type converter struct {
	anchors map[string]ast.Node
	count   int
	depth   int
}

func posOf(n ast.Node) Pos {
	if n == nil {
		return Pos{1, 1}
	}
	switch t := n.(type) {
	case *ast.MappingValueNode:
		if t.Key != nil {
			n = t.Key
		}
	case *ast.MappingNode:
		if t.IsFlowStyle && t.Start != nil {
			return Pos{t.Start.Position.Line, t.Start.Position.Column}
		}
		if len(t.Values) > 0 && t.Values[0].Key != nil {
			n = t.Values[0].Key
		}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return Pos{1, 1}
	}
	return Pos{tk.Position.Line, tk.Position.Column}
}

// parseYAML parses data (YAML, or JSON, which is YAML) into one node tree.
// The error carries the position goccy reports.
func parseYAML(data []byte) (root *node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, &Error{Pos: Pos{1, 1}, Msg: fmt.Sprintf("cannot parse: %v", r)}
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, yamlError(err)
	}
	var body ast.Node
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if body != nil {
			return nil, &Error{Pos: posOf(d.Body), Msg: "more than one YAML document: a rules file is one document"}
		}
		body = d.Body
	}
	if body == nil {
		return nil, &Error{Pos: Pos{1, 1}, Msg: "the file is empty: want a mapping with items, links or sitemaps"}
	}
	c := &converter{anchors: map[string]ast.Node{}}
	return c.convert(body)
}

// yamlError turns goccy's error into an Error with its position.
func yamlError(err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		msg := ye.GetMessage()
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			return &Error{Pos: Pos{tk.Position.Line, tk.Position.Column}, Msg: msg}
		}
		return &Error{Pos: Pos{1, 1}, Msg: msg}
	}
	return &Error{Pos: Pos{1, 1}, Msg: err.Error()}
}

func (c *converter) convert(n ast.Node) (*node, error) {
	c.count++
	c.depth++
	defer func() { c.depth-- }()
	if c.count > maxNodes || c.depth > 200 {
		return nil, &Error{Pos: posOf(n), Msg: "the file expands to too many values (aliases nested too deep?)"}
	}
	pos := posOf(n)
	switch t := n.(type) {
	case nil:
		return &node{Pos: pos, tag: nullTag, text: "null"}, nil // nothing written: src ""
	case *ast.DocumentNode:
		return c.convert(t.Body)
	case *ast.TagNode:
		return c.convert(t.Value)
	case *ast.MappingKeyNode: // "? key"
		return c.convert(t.Value)
	case *ast.CommentNode, *ast.CommentGroupNode:
		return &node{Pos: pos, tag: nullTag, text: "null"}, nil
	case *ast.AnchorNode:
		if name := anchorName(t.Name); name != "" {
			c.anchors[name] = t.Value
		}
		return c.convert(t.Value)
	case *ast.AliasNode:
		name := anchorName(t.Value)
		target, ok := c.anchors[name]
		if !ok {
			return nil, &Error{Pos: pos, Msg: fmt.Sprintf("alias *%s: no anchor &%s before it", name, name)}
		}
		out, err := c.convert(target)
		if err != nil {
			return nil, err
		}
		return relocate(out, pos), nil
	case *ast.MappingNode:
		m := &node{Pos: pos, kind: mapNode}
		for _, mv := range t.Values {
			if err := c.addPair(m, mv); err != nil {
				return nil, err
			}
		}
		return m, nil
	case *ast.MappingValueNode:
		m := &node{Pos: pos, kind: mapNode}
		if err := c.addPair(m, t); err != nil {
			return nil, err
		}
		return m, nil
	case *ast.SequenceNode:
		s := &node{Pos: pos, kind: seqNode}
		if t.Start != nil {
			s.Pos = Pos{t.Start.Position.Line, t.Start.Position.Column}
		}
		for _, v := range t.Values {
			item, err := c.convert(v)
			if err != nil {
				return nil, err
			}
			s.items = append(s.items, item)
		}
		return s, nil
	case *ast.StringNode:
		return &node{Pos: pos, tag: strTag, text: t.Value, src: t.Value}, nil
	case *ast.LiteralNode:
		text := ""
		if t.Value != nil {
			text = t.Value.Value
		}
		return &node{Pos: pos, tag: strTag, text: text, src: text}, nil
	case *ast.IntegerNode:
		return &node{Pos: pos, tag: intTag, text: fmt.Sprint(t.Value), src: written(t)}, nil
	case *ast.FloatNode:
		src := written(t)
		if math.IsInf(t.Value, 0) || math.IsNaN(t.Value) {
			return &node{Pos: pos, tag: strTag, text: src, src: src}, nil
		}
		text := strconv.FormatFloat(t.Value, 'g', -1, 64)
		if isJSONNumber(src) {
			text = src
		}
		return &node{Pos: pos, tag: floatTag, text: text, src: src}, nil
	case *ast.BoolNode:
		return &node{Pos: pos, tag: boolTag, text: strconv.FormatBool(t.Value), src: written(t)}, nil
	case *ast.NullNode:
		return &node{Pos: pos, tag: nullTag, text: "null", src: written(t)}, nil
	case *ast.InfinityNode, *ast.NanNode:
		src := written(n)
		return &node{Pos: pos, tag: strTag, text: src, src: src}, nil
	case *ast.MergeKeyNode:
		return &node{Pos: pos, tag: strTag, text: "<<", src: "<<"}, nil
	}
	return nil, &Error{Pos: pos, Msg: fmt.Sprintf("unsupported YAML: %s", n.Type())}
}

// addPair adds one key: value to mapping m; "<<: *alias" merges a mapping.
func (c *converter) addPair(m *node, mv *ast.MappingValueNode) error {
	if mv.Key != nil && mv.Key.IsMergeKey() {
		src, err := c.convert(mv.Value)
		if err != nil {
			return err
		}
		var srcs []*node
		switch src.kind {
		case mapNode:
			srcs = []*node{src}
		case seqNode:
			srcs = src.items
		}
		for _, s := range srcs {
			if s.kind != mapNode {
				return &Error{Pos: s.Pos, Msg: "<< merges mappings only, got " + s.describe()}
			}
			for i, k := range s.keys {
				if m.index(k.text) < 0 {
					m.keys = append(m.keys, k)
					m.vals = append(m.vals, s.vals[i])
				}
			}
		}
		return nil
	}
	key, err := c.convert(mv.Key)
	if err != nil {
		return err
	}
	if key.kind != scalarNode {
		return &Error{Pos: key.Pos, Msg: "a key must be a plain value, got " + key.describe()}
	}
	key = asName(key)
	if i := m.index(key.text); i >= 0 {
		return &Error{Pos: key.Pos, Msg: fmt.Sprintf("%q is given twice (first at line %d)", key.text, m.keys[i].Line)}
	}
	val, err := c.convert(mv.Value)
	if err != nil {
		return err
	}
	m.keys = append(m.keys, key)
	m.vals = append(m.vals, val)
	return nil
}

// asName is the scalar key as a name: its text as written, a string
// whatever it looks like, so that field 01 is "01", not 1, and 1 and 01
// are two keys (goccy tells them apart too).
func asName(key *node) *node {
	k := *key
	k.tag, k.text = strTag, key.src
	return &k
}

// written is a scalar's text as written in the file: its token's value
// ("0x1F", "1_000", "~", "True"), without quotes or the space around it.
func written(n ast.Node) string {
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return n.String()
}

func (n *node) index(key string) int {
	for i, k := range n.keys {
		if k.text == key {
			return i
		}
	}
	return -1
}

// relocate copies n with the position of the alias that refers to it, so
// errors point where the value is used.
func relocate(n *node, pos Pos) *node {
	c := *n
	c.Pos = pos
	return &c
}

func anchorName(n ast.Node) string {
	if n == nil {
		return ""
	}
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value
	}
	return strings.TrimLeft(n.String(), "&*")
}

func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	if s[i] == '0' {
		i++
	} else {
		if s[i] < '1' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	return i == len(s)
}
