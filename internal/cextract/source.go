package cextract

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"

	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"
	"github.com/itchyny/gojq"
	"golang.org/x/net/html"

	"github.com/crawlutils/crawlutils/internal/cextract/csvfeed"
	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// A source is a compiled selector of a rules file: where a field's values
// come from. ctx is the context the field is evaluated in — the page's root
// or an element of each: an *html.Node, an *xmlquery.Node, a jsonValue or
// a *csvRow, by the rule's format; nil means the page's root.
type source interface {
	// values calls fn with each value in order until fn returns false.
	values(p *page, ctx any, fn func(process.Value) bool) error
}

// A contextSource can also select the contexts of each.
type contextSource interface {
	source
	contexts(p *page, ctx any) ([]any, error)
}

// compileSource compiles s for a rule reading format.
func compileSource(s *rules.Source, format rules.Format, ns map[string]string, forEach bool) (source, error) {
	lang := s.Lang
	src := s.Src
	if lang == rules.Auto {
		switch {
		case strings.HasPrefix(strings.TrimSpace(src), "@") && !forEach:
			lang, src = rules.Record, strings.TrimPrefix(strings.TrimSpace(src), "@")
		case format == rules.HTML || format == "":
			sel, err := selector.Compile(src)
			if err != nil {
				return nil, err
			}
			return &htmlSource{sel}, nil
		case format == rules.XML:
			lang = rules.XPath
			if strings.HasPrefix(src, "xpath:") {
				src = src[len("xpath:"):]
			} else if strings.HasPrefix(src, "css:") {
				return nil, fmt.Errorf("%q: XML rules take XPath, not CSS", src)
			}
			if forEach && isQName(strings.TrimSpace(src)) {
				// XMLFeedSpider's itertag: every element of that name.
				src = "//" + strings.TrimSpace(src)
			}
		case format == rules.JSON:
			lang = rules.JQ
		case format == rules.CSV:
			lang = rules.Column
		case format == rules.Text:
			return nil, fmt.Errorf("%q: a text rule takes re: (on the body), value: or field:, not a selector", src)
		}
	}
	switch lang {
	case rules.CSS:
		if format != rules.HTML && format != "" {
			return nil, fmt.Errorf("css: only for HTML rules (this one reads %s)", format)
		}
		sel, err := selector.Compile("css:" + src)
		if err != nil {
			return nil, err
		}
		return &htmlSource{sel}, nil
	case rules.XPath:
		if format == rules.XML {
			return compileXMLPath(src, ns)
		}
		if format != rules.HTML && format != "" {
			return nil, fmt.Errorf("xpath: only for HTML and XML rules (this one reads %s)", format)
		}
		sel, err := selector.Compile("xpath:" + src)
		if err != nil {
			return nil, err
		}
		return &htmlSource{sel}, nil
	case rules.JQ:
		if format != rules.JSON {
			return nil, fmt.Errorf("jq: only for JSON rules (match: {type: json})")
		}
		return compileJQ(src)
	case rules.Column:
		if format != rules.CSV {
			return nil, fmt.Errorf("column: only for CSV rules (match: {type: csv})")
		}
		return &columnSource{name: src}, nil
	case rules.Const:
		return &constSource{s.Value}, nil
	case rules.Record:
		f, err := selector.CompileField("@" + src)
		if err != nil {
			return nil, err
		}
		return &recordSource{f}, nil
	case rules.Body:
		return bodySource{}, nil
	}
	return nil, errors.New("unknown selector language")
}

// isQName reports whether s is an XML element name such as "item" or
// "g:product".
func isQName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':' || c >= 0x80) {
			return false
		}
	}
	return s[0] != '-' && s[0] != '.' && (s[0] < '0' || s[0] > '9')
}

// htmlSource is a CSS selector, an XPath expression or an @field on HTML.
type htmlSource struct{ sel *selector.Selector }

func (s *htmlSource) values(p *page, ctx any, fn func(process.Value) bool) error {
	d := p.html()
	n, _ := ctx.(*html.Node)
	if n == nil {
		n = d.Root
	}
	return s.sel.Each(d, n, func(v selector.Value) bool { return fn(toProcess(v)) })
}

func (s *htmlSource) contexts(p *page, ctx any) ([]any, error) {
	d := p.html()
	n, _ := ctx.(*html.Node)
	if n == nil {
		n = d.Root
	}
	nodes, err := s.sel.Elements(d, n)
	out := make([]any, len(nodes))
	for i, x := range nodes {
		out[i] = x
	}
	return out, err
}

// toProcess converts a selector value; a number that is not finite is no
// value (a blank string).
func toProcess(v selector.Value) process.Value {
	switch v.Kind {
	case selector.Number:
		if math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
			return process.Value{}
		}
		return process.Value{Kind: process.Number, Text: v.Text}
	case selector.Boolean:
		return process.Value{Kind: process.Bool, Text: v.Text}
	}
	return process.Str(v.Text)
}

// recordSource is a field of the response record, for any format.
type recordSource struct{ f *selector.FieldSelector }

func (s *recordSource) values(p *page, _ any, fn func(process.Value) bool) error {
	s.f.EachIn(p.recordField, func(v selector.Value) bool { return fn(toProcess(v)) })
	return nil
}

// constSource is value: a constant.
type constSource struct{ v process.Value }

func (s *constSource) values(_ *page, _ any, fn func(process.Value) bool) error {
	fn(s.v)
	return nil
}

// bodySource is the whole body as one string (a field's re: alone).
type bodySource struct{}

func (bodySource) values(p *page, _ any, fn func(process.Value) bool) error {
	fn(process.Str(p.body.whole()))
	return nil
}

// xmlSource is an XPath expression over an XML document.
type xmlSource struct {
	expr    *xpath.Expr
	reorder bool // selector.MayReorder: node-sets are sorted before they are read
}

func compileXMLPath(src string, ns map[string]string) (s *xmlSource, err error) {
	if strings.TrimSpace(src) == "" {
		return nil, selector.NewSyntaxError("XPath", src, selector.ErrEmpty)
	}
	if err := selector.CheckBrackets(src); err != nil {
		return nil, selector.NewSyntaxError("XPath", src, err)
	}
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, selector.NewSyntaxError("XPath", src, fmt.Errorf("%v", r))
		}
	}()
	var expr *xpath.Expr
	if len(ns) > 0 {
		expr, err = xpath.CompileWithNS(src, ns)
	} else {
		expr, err = xpath.Compile(src)
	}
	if err != nil {
		return nil, selector.NewSyntaxError("XPath", src, errors.New(strings.TrimPrefix(err.Error(), src+" ")))
	}
	return &xmlSource{expr: expr, reorder: selector.MayReorder(src)}, nil
}

func (s *xmlSource) root(p *page, ctx any) (*xmlquery.Node, *xmlquery.Node, error) {
	doc, err := p.xml()
	if err != nil {
		return nil, nil, fmt.Errorf("not XML: %v", err)
	}
	n, _ := ctx.(*xmlquery.Node)
	if n == nil {
		n = doc
	}
	return doc, n, nil
}

func (s *xmlSource) values(p *page, ctx any, fn func(process.Value) bool) (err error) {
	doc, n, err := s.root(p, ctx)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("evaluation failed: %v", r)
		}
	}()
	switch r := s.expr.Evaluate(xmlNavigatorAt(doc, n)).(type) {
	case string:
		fn(process.Str(r))
	case float64:
		fn(toProcess(selector.NumberValue(r)))
	case bool:
		fn(toProcess(selector.BoolValue(r)))
	case *xpath.NodeIterator:
		for nav := range s.nodes(doc, r) {
			v := nav.Value()
			if nav.NodeType() != xpath.AttributeNode {
				v = nav.Current().InnerText()
			}
			if !fn(process.Str(v)) {
				return nil
			}
		}
	}
	return nil
}

func (s *xmlSource) contexts(p *page, ctx any) (out []any, err error) {
	doc, n, err := s.root(p, ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("evaluation failed: %v", r)
		}
	}()
	it, ok := s.expr.Evaluate(xmlNavigatorAt(doc, n)).(*xpath.NodeIterator)
	if !ok {
		return nil, errors.New("each: the expression does not select elements")
	}
	for nav := range s.nodes(doc, it) {
		if nav.NodeType() == xpath.ElementNode {
			out = append(out, nav.Current())
		}
	}
	return out, nil
}

// nodes gives the nodes of the node-set of it, each once, in document order.
func (s *xmlSource) nodes(doc *xmlquery.Node, it *xpath.NodeIterator) iter.Seq[*xmlquery.NodeNavigator] {
	return func(yield func(*xmlquery.NodeNavigator) bool) {
		var set selector.NodeSet
		var sorted []selector.OrderedNode
		for it.MoveNext() {
			nav, ok := it.Current().(*xmlquery.NodeNavigator)
			if !ok || !set.Add(nav.Current(), nav) {
				continue
			}
			if s.reorder {
				sorted = append(sorted, selector.OrderedNode{Node: nav.Current(), Nav: nav.Copy()})
			} else if !yield(nav) {
				return
			}
		}
		selector.DocumentOrder(sorted, xmlquery.CreateXPathNavigator(doc), func(nav xpath.NodeNavigator) any {
			return nav.(*xmlquery.NodeNavigator).Current()
		})
		for _, n := range sorted {
			if !yield(n.Nav.(*xmlquery.NodeNavigator)) {
				return
			}
		}
	}
}

// xmlNavigatorAt is navigatorAt for XML: the whole document, positioned on n.
func xmlNavigatorAt(root, n *xmlquery.Node) *xmlquery.NodeNavigator {
	nav := xmlquery.CreateXPathNavigator(root)
	if n == root {
		return nav
	}
	var path []*xmlquery.Node
	for x := n; x != root; x = x.Parent {
		if x == nil {
			return xmlquery.CreateXPathNavigator(n)
		}
		path = append(path, x)
	}
	for i := len(path) - 1; i >= 0; i-- {
		if !nav.MoveToChild() {
			return xmlquery.CreateXPathNavigator(n)
		}
		for nav.Current() != path[i] {
			if !nav.MoveToNext() {
				return xmlquery.CreateXPathNavigator(n)
			}
		}
	}
	return nav
}

// jsonValue is a JSON value as a context (nil would mean the root).
type jsonValue struct{ v any }

// jqSource is a jq program over a JSON document (gojq, compiled once).
type jqSource struct {
	code *gojq.Code
}

func compileJQ(src string) (*jqSource, error) {
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, selector.NewSyntaxError("jq", src, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, selector.NewSyntaxError("jq", src, err)
	}
	return &jqSource{code: code}, nil
}

func (s *jqSource) input(p *page, ctx any) (any, error) {
	if v, ok := ctx.(jsonValue); ok {
		return v.v, nil
	}
	v, err := p.json()
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return v, nil
}

func (s *jqSource) run(p *page, ctx any, fn func(any) bool) error {
	in, err := s.input(p, ctx)
	if err != nil {
		return err
	}
	it := s.code.Run(in)
	for n := 0; ; n++ {
		v, ok := it.Next()
		if !ok {
			return nil
		}
		if err, isErr := v.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return fmt.Errorf("jq: %v", err)
		}
		if n >= 1<<20 {
			return errors.New("jq: more than a million results")
		}
		if !fn(v) {
			return nil
		}
	}
}

func (s *jqSource) values(p *page, ctx any, fn func(process.Value) bool) error {
	return s.run(p, ctx, func(v any) bool {
		if v == nil {
			return true // null is no value
		}
		return fn(process.FromJSON(v))
	})
}

func (s *jqSource) contexts(p *page, ctx any) ([]any, error) {
	var out []any
	err := s.run(p, ctx, func(v any) bool {
		if v != nil {
			out = append(out, jsonValue{v})
		}
		return true
	})
	return out, err
}

// csvRow is one row of a CSV feed with its header.
type csvRow struct {
	header *csvHeader
	cells  []string
}

// csvHeader names the columns of a CSV feed: each name once, none blank
// (csvfeed.Names), so that a row is an object without repeated keys.
type csvHeader struct {
	names []string
	index map[string]int
	// renamed are the header cells that could not be names as they are;
	// reported says they have been reported (once per feed).
	renamed  []csvfeed.Renamed
	reported bool
}

func newCSVHeader(cells []string) *csvHeader {
	h := &csvHeader{index: make(map[string]int, len(cells))}
	h.names, h.renamed = csvfeed.Names(cells)
	for i, n := range h.names {
		h.index[n] = i
	}
	return h
}

// columnSource is a CSV column by name.
type columnSource struct{ name string }

func (s *columnSource) values(_ *page, ctx any, fn func(process.Value) bool) error {
	row, ok := ctx.(*csvRow)
	if !ok {
		return nil
	}
	i, ok := row.header.index[s.name]
	if !ok {
		return fmt.Errorf("no column %q (columns: %s)", s.name, strings.Join(row.header.names, ", "))
	}
	fn(process.Str(row.cells[i]))
	return nil
}
