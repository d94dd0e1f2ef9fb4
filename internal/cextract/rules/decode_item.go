package rules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

func (d *decoder) item(n *node, i int) *Item {
	r := &Item{Pos: n.Pos}
	what := fmt.Sprintf("item rule %d", i+1)
	if j := n.index("name"); n.kind == mapNode && j >= 0 && n.vals[j].kind == scalarNode && n.vals[j].tag != nullTag {
		what = fmt.Sprintf("item rule %q", n.vals[j].src)
	}
	var fieldsNode *node
	errs := len(d.errs)
	typeOK := true
	ok := d.fields(n, "item", what, func(key string, v *node) {
		switch key {
		case "name":
			if s, ok := d.str(v, "name"); ok {
				if !nameRE.MatchString(s.Value) {
					d.errorf(v.Pos, "name %q: use letters, digits, _, . and - (it is the items' type)", s.Value)
				}
				r.Name = s.Value
			}
		case "match":
			typeOK = d.match(v, &r.Match)
		case "each":
			r.Each = d.source(v, "each")
		case "namespaces":
			if v.kind != mapNode {
				d.errorf(v.Pos, "namespaces: want a mapping of prefix: URI, got %s", v.describe())
				return
			}
			r.Namespaces = map[string]string{}
			for j, k := range v.keys {
				if s, ok := d.str(v.vals[j], "namespaces."+k.text); ok {
					r.Namespaces[k.text] = s.Value
				}
			}
		case "csv":
			r.CSV = d.csv(v)
		case "fields":
			fieldsNode = v
		case "files":
			r.Files = d.strings(v, "files")
		}
	})
	if !ok {
		return nil
	}
	if r.Name == "" {
		d.errorf(n.Pos, "%s: needs a name (it becomes the items' type)", what)
	}
	if r.CSV != nil && r.Match.Type != CSV {
		if r.Match.Type != "" {
			d.errorf(n.Pos, "%s: csv options need match.type csv, got %s", what, r.Match.Type)
		}
		r.Match.Type = CSV
	}
	if r.Match.Type == CSV && r.CSV == nil {
		r.CSV = &CSVOptions{Delimiter: ',', Quote: '"'}
	}
	if r.Namespaces != nil && r.Match.Type != XML {
		d.errorf(n.Pos, "%s: namespaces need match.type xml", what)
	}
	switch {
	case fieldsNode != nil:
		r.Fields = d.fieldList(fieldsNode, what)
	case r.Match.Type != CSV && len(d.errs) == errs:
		d.errorf(n.Pos, "%s: needs fields", what)
	}
	d.checkFiles(r, what)
	if !typeOK {
		return nil
	}
	return r
}

// checkFiles checks an item rule's files: each a field of the item, once,
// and no field where the files go.
func (d *decoder) checkFiles(r *Item, what string) {
	if len(r.Files) == 0 {
		return
	}
	seen := map[string]bool{}
	for _, s := range r.Files {
		switch {
		case seen[s.Value]:
			d.errorf(s.Pos, "%s: files: %q given twice", what, s.Value)
		case !r.hasField(s.Value):
			d.errorf(s.Pos, "%s: files: %q is not a field of the item (its fields: %s)", what, s.Value, r.fieldNames())
		}
		seen[s.Value] = true
	}
	for _, f := range r.Fields {
		if f.Name == FilesField {
			d.errorf(f.Pos, "%s: field %q: the item's files go there (files:): rename the field", what, FilesField)
		}
	}
}

func (r *Item) hasField(name string) bool {
	for _, f := range r.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

func (r *Item) fieldNames() string {
	var names []string
	for _, f := range r.Fields {
		names = append(names, f.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func (d *decoder) csv(n *node) *CSVOptions {
	o := &CSVOptions{Delimiter: ',', Quote: '"'}
	char := func(v *node, what string) byte {
		s, ok := d.str(v, what)
		if !ok {
			return 0
		}
		if s.Value == `\t` {
			return '\t'
		}
		if len(s.Value) != 1 || s.Value[0] == '\n' || s.Value[0] == '\r' {
			d.errorf(v.Pos, "%s: want one ASCII character, got %q", what, s.Value)
			return 0
		}
		return s.Value[0]
	}
	d.fields(n, "csv", "csv", func(key string, v *node) {
		switch key {
		case "delimiter":
			o.Delimiter = char(v, "csv.delimiter")
		case "quote":
			o.Quote = char(v, "csv.quote")
		case "headers":
			o.Headers = d.csvHeaders(v)
		}
	})
	if o.Delimiter != 0 && o.Delimiter == o.Quote {
		d.errorf(n.Pos, "csv: the delimiter and the quote must differ")
	}
	return o
}

// csvHeaders reads csv.headers: the columns' names, each given once and
// none blank (a feed's own header row is made so; see csvfeed.Names).
func (d *decoder) csvHeaders(n *node) []string {
	out := []string{} // not nil: headers: [] is given, and no row fits
	first := map[string]int{}
	for i, s := range d.strings(n, "csv.headers") {
		switch prev, dup := first[s.Value]; {
		case strings.TrimSpace(s.Value) == "":
			d.errorf(s.Pos, "csv.headers: column %d has no name: name every column", i+1)
		case dup:
			d.errorf(s.Pos, "csv.headers: %q is given twice (columns %d and %d): name every column once", s.Value, prev, i+1)
		default:
			first[s.Value] = i + 1
		}
		out = append(out, s.Value)
	}
	return out
}

func (d *decoder) fieldList(n *node, what string) []*Field {
	if n.kind != mapNode {
		d.errorf(n.Pos, "%s: fields: want a mapping of NAME: SELECTOR, got %s", what, n.describe())
		return nil
	}
	if len(n.keys) == 0 {
		d.errorf(n.Pos, "%s: fields: none given", what)
	}
	var out []*Field
	for i, k := range n.keys {
		if strings.TrimSpace(k.text) == "" {
			d.errorf(k.Pos, "%s: a field needs a name", what)
			continue
		}
		if f := d.field(k, n.vals[i], what); f != nil {
			out = append(out, f)
		}
	}
	return out
}

// sourceKeys are the keys of a field that say where its values come from.
var sourceKeys = map[string]Lang{"css": CSS, "xpath": XPath, "jq": JQ, "column": Column, "value": Const, "field": Record}

func (d *decoder) field(k, n *node, rule string) *Field {
	f := &Field{Pos: k.Pos, Name: k.text}
	what := fmt.Sprintf("field %q", f.Name)
	if n.kind == scalarNode {
		f.Source = d.source(n, what)
		return f
	}
	var re *node
	d.fields(n, "field", what, func(key string, v *node) {
		if lang, ok := sourceKeys[key]; ok {
			if f.Source != nil {
				d.errorf(v.Pos, "%s: give one of css, xpath, jq, column, value or field, not several", what)
				return
			}
			if lang == Const {
				if v.kind != scalarNode {
					d.errorf(v.Pos, "%s: value: want a string, number or boolean, got %s", what, v.describe())
					return
				}
				f.Source = &Source{Pos: v.Pos, Lang: Const, Value: scalarValue(v)}
				return
			}
			s, ok := d.str(v, what+": "+key)
			if !ok {
				return
			}
			if strings.TrimSpace(s.Value) == "" {
				d.errorf(v.Pos, "%s: %s: empty", what, key)
				return
			}
			f.Source = &Source{Pos: v.Pos, Lang: lang, Src: s.Value}
			return
		}
		switch key {
		case "re":
			re = v
		case "all":
			f.All = d.boolean(v, what+": all")
		case "required":
			f.Required = d.boolean(v, what+": required")
		case "raw":
			f.Raw = d.boolean(v, what+": raw")
		case "process":
			f.Process = d.processors(v, what)
		case "each":
			f.Each = d.source(v, what+": each")
		case "fields":
			f.Fields = d.fieldList(v, rule+", "+what)
		}
	})
	if re != nil {
		if s, ok := d.str(re, what+": re"); ok {
			rx, err := process.CompileRegexp(s.Value)
			if err != nil {
				d.errorf(re.Pos, "%s: re %q: %v", what, s.Value, err)
			} else {
				f.Process = append(process.Chain{process.RegexProc(rx)}, f.Process...)
				if f.Source == nil {
					f.Source = &Source{Pos: re.Pos, Lang: Body, Src: s.Value}
				}
			}
		}
	}
	switch {
	case f.Each != nil && f.Fields == nil:
		d.errorf(n.Pos, "%s: each needs fields (one object per element)", what)
	case f.Fields != nil && f.Source != nil && f.Source.Lang != Body:
		d.errorf(n.Pos, "%s: a nested object takes each and fields, not a selector", what)
	case f.Fields == nil && f.Source == nil && len(d.errs) == 0:
		d.errorf(n.Pos, "%s: say where its value comes from: css, xpath, jq, re, column, value, field, or fields", what)
	case f.Fields != nil && f.Process != nil:
		d.errorf(n.Pos, "%s: processors apply to values, not to a nested object", what)
	}
	return f
}

// source reads a selector written as a plain string (language by the
// rule's format) or as {css: …}, {xpath: …}, {jq: …}.
func (d *decoder) source(n *node, what string) *Source {
	if n.kind == mapNode && len(n.keys) == 1 {
		if lang, ok := sourceKeys[n.keys[0].text]; ok && lang != Const {
			s, ok := d.str(n.vals[0], what)
			if !ok {
				return nil
			}
			return &Source{Pos: s.Pos, Lang: lang, Src: s.Value}
		}
	}
	s, ok := d.str(n, what)
	if !ok {
		return nil
	}
	if strings.TrimSpace(s.Value) == "" {
		d.errorf(n.Pos, "%s: empty selector", what)
		return nil
	}
	return &Source{Pos: s.Pos, Lang: Auto, Src: s.Value}
}

func scalarValue(n *node) process.Value {
	switch n.tag {
	case intTag, floatTag:
		if isJSONNumber(n.text) {
			return process.Value{Kind: process.Number, Text: n.text}
		}
	case boolTag:
		return process.Value{Kind: process.Bool, Text: n.text}
	case nullTag:
		return process.Value{Kind: process.JSON, Text: "null"}
	}
	return process.Str(n.text)
}

// processors reads a list of processors: "strip", {replace: [a, b]}, ….
func (d *decoder) processors(n *node, what string) process.Chain {
	items := n.items
	if n.kind != seqNode {
		items = []*node{n}
	}
	var ch process.Chain
	for _, it := range items {
		name, arg := "", process.Arg{}
		switch {
		case it.kind == scalarNode && it.tag == strTag:
			name = it.text
		case it.kind == mapNode && len(it.keys) == 1:
			name = it.keys[0].text
			arg = toArg(it.vals[0])
		default:
			d.errorf(it.Pos, "%s: a processor is a name (strip) or one name: argument (join: \", \"), got %s", what, it.describe())
			continue
		}
		p, err := process.New(name, arg)
		if err != nil {
			d.errorf(it.Pos, "%s: %v", what, err)
			continue
		}
		ch = append(ch, p)
	}
	return ch
}

func toArg(n *node) process.Arg {
	switch n.kind {
	case seqNode:
		a := process.Arg{Kind: process.ListArg}
		for _, it := range n.items {
			a.List = append(a.List, toArg(it))
		}
		return a
	case mapNode:
		a := process.Arg{Kind: process.MapArg}
		for i, k := range n.keys {
			a.Keys = append(a.Keys, k.text)
			a.Vals = append(a.Vals, toArg(n.vals[i]))
		}
		return a
	}
	if n.tag == nullTag {
		return process.Arg{}
	}
	return process.Arg{Kind: process.ScalarArg, Scalar: scalarValue(n)}
}
